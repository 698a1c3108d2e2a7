#!/usr/bin/env bash
# render-manifests.sh [OUT]: renders the Helm chart with its default values into the plain-YAML
# install bundle (manifests/dagsched.yaml by default), preceded by the Namespace. The bundle is
# committed; `make helm-test` fails when it is out of date with the chart.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-manifests/dagsched.yaml}
tools=$(hack/install-helm.sh 2>/dev/null | tail -n 1)
{
  cat <<'YAML'
# dagsched install bundle, rendered from helm/dagsched with its default values by
# hack/render-manifests.sh (do not edit by hand). Install with:
#   kubectl apply -f manifests/dagsched.yaml
# then set the scheduler image tag to your cluster's version if it is not v1.32.3.
apiVersion: v1
kind: Namespace
metadata:
  name: dagsched-system
  labels:
    pod-security.kubernetes.io/enforce: restricted
YAML
  "$tools/helm" template dagsched helm/dagsched --namespace dagsched-system
} >"$out"

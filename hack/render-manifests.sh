#!/usr/bin/env bash
# render-manifests.sh [OUT]: renders the Helm chart with its default values into the plain-YAML
# install bundle (manifests/dagsched.yaml by default), preceded by the Namespace. The bundle is
# committed; `make helm-test` fails when it is out of date with the chart.
# One value differs from the defaults: the extender's certificate is read from the existing Secret
# dagsched-extender-tls (made by hack/gen-extender-tls.sh), because a certificate generated at
# render time would put a private key shared by every user into the repository. For the same
# reason the admission webhook is off in the bundle: its caBundle is that CA, made at install time
# (docs/admission.md says how to add it). Helm hooks are left out (--no-hooks): `kubectl apply`
# would run the uninstall hook's Job at once; bundle users run `dagsched-controller uninstall`
# before deleting the bundle (docs/admission.md, "Uninstall").
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-manifests/dagsched.yaml}
tools=$(hack/install-helm.sh 2>/dev/null | tail -n 1)
{
  cat <<'YAML'
# dagsched install bundle, rendered from helm/dagsched with its default values by
# hack/render-manifests.sh (do not edit by hand). Install with:
#   kubectl apply -f manifests/dagsched.yaml
#   hack/gen-extender-tls.sh | kubectl apply -f -   # the extender's certificate, see below
# then set the scheduler image tag to your cluster's version if it is not v1.32.3 (with Helm the
# chart takes the cluster's version by itself).
# The scheduler talks HTTPS to the extender with the certificate of the Secret
# dagsched-system/dagsched-extender-tls (tls.crt, tls.key, ca.crt; valid for
# dagsched-extender.dagsched-system.svc), which the bundle does not contain: the extender and
# scheduler pods wait for it. Ingress NetworkPolicies admit only the scheduler on the extender's
# port and only the namespace `monitoring` on the metrics ports. helm/dagsched/README.md has details.
# The admission webhook that gates DAG pods at creation is not in the bundle (its caBundle is the
# CA made at install time): install with Helm for it, or see docs/admission.md.
apiVersion: v1
kind: Namespace
metadata:
  name: dagsched-system
  labels:
    pod-security.kubernetes.io/enforce: restricted
YAML
  "$tools/helm" template dagsched helm/dagsched --namespace dagsched-system \
    --set extender.tls.secretName=dagsched-extender-tls --set scheduler.image.tag=v1.32.3 \
    --set admission.enabled=false --no-hooks
} >"$out"

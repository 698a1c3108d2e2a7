#!/usr/bin/env bash
# kind-up.sh: for users with Docker and kind. Creates a kind cluster, builds the two dagsched
# images, loads them into the cluster and installs the Helm chart with them.
#   CLUSTER_NAME (default dagsched), NAMESPACE (default dagsched-system), TAG (default dev)
# Extra arguments are passed to `helm upgrade --install` (e.g. --set controller.dryRun=true).
set -euo pipefail
cd "$(dirname "$0")/.."
CLUSTER_NAME=${CLUSTER_NAME:-dagsched}
NAMESPACE=${NAMESPACE:-dagsched-system}
TAG=${TAG:-dev}
for tool in docker kind kubectl helm; do
  command -v "$tool" >/dev/null || { echo "kind-up: $tool is required" >&2; exit 1; }
done
kind get clusters | grep -qx "$CLUSTER_NAME" || kind create cluster --name "$CLUSTER_NAME"
for c in extender controller; do
  docker build -f "docker/$c.Dockerfile" -t "dagsched/dagsched-$c:$TAG" \
    --build-arg DAGSCHED_GIT="$(git describe --always --dirty 2>/dev/null || echo unknown)" .
  kind load docker-image --name "$CLUSTER_NAME" "dagsched/dagsched-$c:$TAG"
done
k8s_version=$(kubectl --context "kind-$CLUSTER_NAME" version -o json | python3 -c \
  'import json,sys; print(json.load(sys.stdin)["serverVersion"]["gitVersion"])')
helm upgrade --install dagsched helm/dagsched --kube-context "kind-$CLUSTER_NAME" \
  --namespace "$NAMESPACE" --create-namespace --wait \
  --set image.extender.tag="$TAG" --set image.controller.tag="$TAG" \
  --set image.extender.pullPolicy=Never --set image.controller.pullPolicy=Never \
  --set scheduler.image.tag="$k8s_version" "$@"
kubectl --context "kind-$CLUSTER_NAME" -n "$NAMESPACE" get pods

#!/usr/bin/env bash
# argo-up.sh: adds Argo Workflows to the running local cluster in CLUSTER_DIR (run by up.sh when
# ARGO=1, or by hand after it): builds or reuses the cached controller (build-argo.sh), installs
# the Argo CRDs of the same version (manifests/base/crds/minimal), the namespace argo and the
# ConfigMap argo/workflow-controller-configmap (metrics and telemetry off), and starts
# workflow-controller as the cluster component argo-controller (log in logs/argo-controller.log;
# down.sh stops it). It uses the admin kubeconfig on loopback, so Argo's RBAC is not installed.
# Its health endpoint is Argo's fixed port 6060 (/healthz), so one Argo-enabled cluster runs at
# a time. kwok plays Argo's pods (kwok/pod-complete-argo.yaml); nothing plays Argo's executor (no
# WorkflowTaskResults are written, which Argo accepts for templates without outputs).
# Idempotent: a running argo-controller of this cluster is left alone.
set -euo pipefail
LOG_PREFIX=argo-up
# shellcheck source=hack/cluster/lib.sh
source "$(dirname "$0")/lib.sh"
check_cluster_dir
[[ -f "$CLUSTER_DIR/cluster.env" ]] || die "no cluster in $CLUSTER_DIR (run hack/cluster/up.sh first)"
START_TIMEOUT="${CLUSTER_START_TIMEOUT:-90}"

if component_pid argo-controller >/dev/null && component_healthy argo-controller; then
  log "argo-controller is already running"
  exit 0
fi
"$CLUSTER_LIB_DIR/build-argo.sh"
K() { "$K8S_BIN_DIR/kubectl" --kubeconfig "$CLUSTER_DIR/kubeconfig" "$@"; }

K apply --server-side -f "$ARGO_BIN_DIR/crds" >/dev/null
K wait --for=condition=Established --timeout="${START_TIMEOUT}s" \
  -f "$ARGO_BIN_DIR/crds" >/dev/null
K create namespace argo --dry-run=client -o yaml | K apply -f - >/dev/null
K apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata: {name: workflow-controller-configmap, namespace: argo}
data:
  metricsConfig: |
    enabled: false
  telemetryConfig: |
    enabled: false
YAML

mkdir -p "$CLUSTER_DIR/run"
{
  echo "#!/usr/bin/env bash"
  echo "# Launcher of argo-controller for the local cluster in $CLUSTER_DIR (written by hack/cluster/argo-up.sh)."
  echo "echo \$\$ > $(pid_file argo-controller)"
  echo "export LEADER_ELECTION_DISABLE=true"
  printf 'exec'
  printf ' %q' "$ARGO_BIN_DIR/workflow-controller" --kubeconfig "$CLUSTER_DIR/kubeconfig" \
    --namespace argo --configmap workflow-controller-configmap --loglevel info
  echo
} >"$(launcher argo-controller)"
start_component argo-controller || die "argo-controller did not start"
if ! wait_healthy argo-controller "$START_TIMEOUT"; then
  tail -n 30 "$(log_file argo-controller)" >&2 || true
  stop_component argo-controller
  die "argo-controller did not become healthy within ${START_TIMEOUT}s"
fi
log "Argo Workflows $ARGO_VERSION controller running (log $(log_file argo-controller))"

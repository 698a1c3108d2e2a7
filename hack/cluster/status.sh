#!/usr/bin/env bash
# status.sh: shows the state of the local cluster in CLUSTER_DIR (default <repo>/.cache/cluster):
# each component's pid, health, port and log, then the nodes and pods. Exits 0 when every
# component runs and is healthy, 1 otherwise.
set -euo pipefail
LOG_PREFIX=cluster-status
# shellcheck source=hack/cluster/lib.sh
source "$(dirname "$0")/lib.sh"
check_cluster_dir

if [[ ! -f "$CLUSTER_DIR/cluster.env" ]]; then
  echo "no cluster in $CLUSTER_DIR (start one with: make cluster-up)"
  exit 1
fi
# shellcheck disable=SC1091
source "$CLUSTER_DIR/cluster.env"
declare -A PORT=([etcd]="$ETCD_CLIENT_PORT" [kube-apiserver]="$APISERVER_PORT"
  [kube-controller-manager]="$KCM_PORT" [kube-scheduler]="$SCHEDULER_PORT" [kwok]="$KWOK_PORT" [runtime-scaler]="-")
ok=1
echo "cluster in $CLUSTER_DIR: Kubernetes $K8S_VERSION, kwok $KWOK_VERSION"
printf '%-24s %-8s %-10s %-6s %s\n' COMPONENT PID STATE PORT LOG
for c in "${CLUSTER_COMPONENTS[@]}"; do
  if pid="$(component_pid "$c")"; then
    if component_healthy "$c"; then state=healthy; else
      state=unhealthy
      ok=0
    fi
  else
    pid=-
    state=stopped
    ok=0
  fi
  printf '%-24s %-8s %-10s %-6s %s\n' "$c" "$pid" "$state" "${PORT[$c]}" "$(log_file "$c")"
done
if ((ok)); then
  KUBECTL="$K8S_BIN_DIR/kubectl --kubeconfig $CLUSTER_DIR/kubeconfig"
  echo
  $KUBECTL get nodes -L dagsched.io/speed,dagsched.io/shape 2>&1 | awk 'NR <= 21' || true
  nodes="$($KUBECTL get nodes --no-headers 2>/dev/null | wc -l)"
  ((nodes <= 20)) || echo "... ($nodes nodes)"
  echo
  echo "pods by phase (all namespaces):"
  $KUBECTL get pods -A -o jsonpath='{range .items[*]}{.status.phase}{"\n"}{end}' 2>/dev/null | sort | uniq -c || true
  echo
  echo "kubeconfig: $CLUSTER_DIR/kubeconfig"
  exit 0
fi
echo
echo "the cluster is not fully up; see the logs above, or restart it: make cluster-down cluster-up"
exit 1

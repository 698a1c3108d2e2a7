#!/usr/bin/env bash
# down.sh: stops the local cluster in CLUSTER_DIR (default <repo>/.cache/cluster).
#
# Stops exactly the processes whose pid files this cluster wrote, in reverse start order, and only
# when the process still belongs to this cluster (its command line names CLUSTER_DIR): SIGTERM,
# then SIGKILL after 15 s. Nothing else is touched. The run directory (logs, etcd data) stays for
# inspection unless --purge is given; the next up.sh starts afresh either way.
# Usage: down.sh [--purge]
set -euo pipefail
LOG_PREFIX=cluster-down
# shellcheck source=hack/cluster/lib.sh
source "$(dirname "$0")/lib.sh"
check_cluster_dir

purge=0
case "${1:-}" in
"") ;;
--purge) purge=1 ;;
*) die "usage: down.sh [--purge] (got '$1')" ;;
esac

if [[ ! -d "$CLUSTER_DIR" ]]; then
  log "no cluster in $CLUSTER_DIR"
  exit 0
fi
[[ -f "$CLUSTER_DIR/.dagsched-cluster" ]] || die "$CLUSTER_DIR was not made by hack/cluster/up.sh"

stopped=0
# stop_one COMPONENT: stops it when it runs (counted in stopped), else removes its stale pid file.
stop_one() {
  local pid
  if pid="$(component_pid "$1")"; then
    stop_component "$1"
    log "stopped $1 (pid $pid)"
    stopped=$((stopped + 1))
  else
    rm -f "$(pid_file "$1")"
  fi
}
for c in "${CLUSTER_OPTIONAL_COMPONENTS[@]}"; do stop_one "$c"; done
for ((i = ${#CLUSTER_COMPONENTS[@]} - 1; i >= 0; i--)); do stop_one "${CLUSTER_COMPONENTS[$i]}"; done
rm -f "$CLUSTER_DIR/runtime-scaler.ready"
log "stopped $stopped processes of the cluster in $CLUSTER_DIR"
if ((purge)); then
  rm -rf "$CLUSTER_DIR"
  log "removed $CLUSTER_DIR"
fi

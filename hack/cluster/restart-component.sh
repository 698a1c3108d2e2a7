#!/usr/bin/env bash
# restart-component.sh: stops and/or starts one component of the local cluster in CLUSTER_DIR
# (default <repo>/.cache/cluster), for failure tests and for reconfiguring the scheduler.
#
# Usage: restart-component.sh [--stop | --start] [--signal SIG] COMPONENT
#   COMPONENT   etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok, runtime-scaler
#   (default)   restart: stop, start with the same command line and ports, wait until healthy
#   --stop      only stop it (SIGTERM, or --signal KILL to simulate a crash)
#   --start     only start it again and wait until healthy
#   SCHEDULER_CONFIG=path  (kube-scheduler only) start with this KubeSchedulerConfiguration
set -euo pipefail
LOG_PREFIX=restart-component
# shellcheck source=hack/cluster/lib.sh
source "$(dirname "$0")/lib.sh"
check_cluster_dir

action=restart sig=TERM comp=""
while [[ $# -gt 0 ]]; do
  case "$1" in
  --stop) action=stop && shift ;;
  --start) action=start && shift ;;
  --signal)
    sig="${2:-}"
    shift 2
    ;;
  -*) die "unknown option $1" ;;
  *)
    [[ -z "$comp" ]] || die "only one component may be given (got '$comp' and '$1')"
    comp="$1"
    shift
    ;;
  esac
done
[[ "$sig" =~ ^(TERM|KILL|INT|QUIT)$ ]] || die "--signal must be TERM, KILL, INT or QUIT (got '$sig')"
[[ " ${CLUSTER_COMPONENTS[*]} " == *" $comp "* ]] || die "unknown component '$comp' (one of: ${CLUSTER_COMPONENTS[*]})"
[[ -f "$CLUSTER_DIR/cluster.env" && -f "$(launcher "$comp")" ]] || die "no cluster in $CLUSTER_DIR; start one with hack/cluster/up.sh"

if [[ "$action" != start ]]; then
  if pid="$(component_pid "$comp")"; then
    stop_component "$comp" "$sig"
    log "stopped $comp (pid $pid, SIG$sig)"
  else
    log "$comp was not running"
  fi
fi
if [[ "$action" != stop ]]; then
  if pid="$(component_pid "$comp")"; then
    log "$comp is already running (pid $pid)"
    exit 0
  fi
  if [[ "$comp" == kube-scheduler && -n "${SCHEDULER_CONFIG:-}" ]]; then
    render_scheduler_config "$SCHEDULER_CONFIG"
  fi
  [[ "$comp" == runtime-scaler ]] && rm -f "$CLUSTER_DIR/runtime-scaler.ready"
  start_component "$comp" || {
    show_log_tail "$comp"
    die "$comp did not start; log $(log_file "$comp")"
  }
  rc=0
  wait_healthy "$comp" "${CLUSTER_START_TIMEOUT:-90}" || rc=$?
  if ((rc != 0)); then
    show_log_tail "$comp"
    die "$comp is not healthy after restart; log $(log_file "$comp")"
  fi
  log "started $comp (pid $(component_pid "$comp"))"
fi

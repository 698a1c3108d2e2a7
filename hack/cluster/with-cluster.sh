#!/usr/bin/env bash
# with-cluster.sh: runs a command against a fresh local cluster of its own and always tears the
# cluster down afterwards (on success, failure or interruption). For integration tests.
#
# Usage: with-cluster.sh [--dir DIR] [--keep] [--] CMD [ARGS...]
#   --dir DIR   run directory (must not exist or be empty); default a new directory under
#               <repo>/.cache/clusters/. Its ports are chosen afresh, so several clusters can
#               run side by side and beside the one of `make cluster-up`.
#   --keep      keep the run directory (logs, etcd data) also when CMD succeeds; it is always
#               kept when CMD or the start fails, and its path is printed
# NODE_PROFILE and SCHEDULER_CONFIG are passed on to up.sh. CMD runs with CLUSTER_DIR and
# KUBECONFIG exported, KUBECTL set to the built kubectl, and $CLUSTER_DIR/bin first on PATH.
# Exit status: CMD's, or 1 when the cluster could not be started.
set -euo pipefail
LOG_PREFIX=with-cluster
# shellcheck source=hack/cluster/lib.sh
source "$(dirname "$0")/lib.sh"

dir="" keep=0
while [[ $# -gt 0 ]]; do
  case "$1" in
  --dir)
    dir="${2:-}"
    [[ -n "$dir" ]] || die "--dir needs a directory"
    shift 2
    ;;
  --keep) keep=1 && shift ;;
  --)
    shift
    break
    ;;
  -*) die "unknown option $1" ;;
  *) break ;;
  esac
done
[[ $# -gt 0 ]] || die "usage: with-cluster.sh [--dir DIR] [--keep] [--] CMD [ARGS...]"

if [[ -z "$dir" ]]; then
  mkdir -p "$REPO_ROOT/.cache/clusters"
  dir="$(mktemp -d "$REPO_ROOT/.cache/clusters/run.XXXXXX")"
else
  [[ ! -e "$dir" || -z "$(ls -A "$dir" 2>/dev/null)" ]] || die "--dir $dir exists and is not empty"
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
fi
export CLUSTER_DIR="$dir"
check_cluster_dir

teardown_done=0
teardown() {
  ((teardown_done)) && return 0
  teardown_done=1
  "$CLUSTER_LIB_DIR/down.sh" || log "stopping the cluster in $CLUSTER_DIR failed"
}
trap 'teardown' EXIT
trap 'log "interrupted"; exit 130' INT TERM

if ! "$CLUSTER_LIB_DIR/up.sh"; then
  log "the cluster did not start; run directory kept: $CLUSTER_DIR"
  exit 1
fi

export KUBECONFIG="$CLUSTER_DIR/kubeconfig"
export KUBECTL="$CLUSTER_DIR/bin/kubectl"
export PATH="$CLUSTER_DIR/bin:$PATH"
rc=0
"$@" || rc=$?
teardown
if ((rc != 0)); then
  log "command failed (exit $rc); run directory kept: $CLUSTER_DIR"
elif ((keep)); then
  log "run directory kept: $CLUSTER_DIR"
else
  rm -rf "$CLUSTER_DIR"
fi
exit "$rc"

#!/usr/bin/env bash
# record-fixture.sh: records tests/demo/fixture/ (pods, jobs, events, nodes as `kubectl get -o json`
# prints them) by running tests/demo/workload/ on a fresh local cluster. The summary tool's tests
# (test_summary.py) assert values read from that recording; after recording anew, update those
# values (each is derived in the test from the recorded timestamps it names).
#
# The workload runs on the plain kube-scheduler and
# holds what the metrics must recognise in a recording:
#   - job "filler": one low-priority task pinned to cpu-slow-1. It is started first; then "extract"
#     (priority 0, pinned to the same node, which has no room left) makes kube-scheduler preempt it
#     (a "Preempted" Event); the filler's Job starts it again once there is room: two attempts,
#     the first one deleted and known only from Events.
#   - job "mini": extract -> transform -> load, deadline-after 60s. "transform" carries the
#     dagsched.io/dependencies gate, which the recording script removes once extract has succeeded
#     (the right order); "load" has no gate, so the default scheduler starts it at once, before
#     transform ended: a dependency violation.
#
# Usage: tests/demo/record-fixture.sh [OUT_DIR]   (default tests/demo/fixture)
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO_ROOT="$(cd "$HERE/../.." && pwd)"
OUT="${1:-$HERE/fixture}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"

record() {
  set -euo pipefail
  local ns=fixture k i
  kubectl create namespace "$ns" >/dev/null
  wait_for() { # wait_for SECONDS DESCRIPTION COMMAND...
    local until=$((SECONDS + $1)) what="$2"
    shift 2
    until "$@"; do
      ((SECONDS < until)) || { echo "record-fixture: timed out waiting for $what" >&2; return 1; }
      sleep 0.5
    done
  }
  # shellcheck disable=SC2317 # called through wait_for
  job_done() { [[ "$(kubectl -n "$ns" get job "$1" -o jsonpath='{.status.succeeded}')" == 1 ]]; }
  # shellcheck disable=SC2317 # called through wait_for
  filler_running() { kubectl -n "$ns" get pods -l dagsched.io/job=filler -o jsonpath='{.items[*].status.phase}' | grep -q Running; }
  # The PriorityClass and the filler first; the DAG job once the filler runs.
  kubectl -n "$ns" create -f "$HERE/workload/filler.yaml" >/dev/null
  wait_for 60 "the filler to run" filler_running
  kubectl -n "$ns" create -f "$HERE/workload/mini.yaml" >/dev/null
  wait_for 120 "extract to succeed" job_done mini-extract
  for i in $(kubectl -n "$ns" get pods -l dagsched.io/task=transform -o name); do
    kubectl -n "$ns" patch "$i" --type=json -p '[{"op":"remove","path":"/spec/schedulingGates"}]' >/dev/null
  done
  for k in mini-transform mini-load filler-fill; do wait_for 180 "$k to succeed" job_done "$k"; done
  for k in pods jobs events; do kubectl -n "$ns" get "$k" -o json >"$OUT/$k.json"; done
  kubectl get nodes -o json >"$OUT/nodes.json"
  echo "record-fixture: recorded into $OUT"
}
export -f record
export HERE REPO_ROOT OUT
"$REPO_ROOT/hack/cluster/with-cluster.sh" -- bash -c record

#!/usr/bin/env bash
# admission_integration.sh: the admission webhook against a real local control plane
# (hack/cluster/with-cluster.sh) with the scheduler profile "dagsched" (admission-scheduler-
# config.yaml) and two nodes (tests/controller/nodes.tsv). Run by `make admission-integration-test`.
#
# The extender under test serves HTTPS with a throw-away CA (hack/gen-test-certs.sh) and its
# webhook on a listener of its own; a MutatingWebhookConfiguration (url clientConfig with that CA,
# failurePolicy Ignore, every namespace but kube-system) sends it every Pod CREATE. Then:
#   - a chain of three bare pods (a -> b -> c) of the dagsched scheduler, created at once without
#     any scheduling gate, as a workflow engine would: each has the gate dagsched.io/dependencies
#     after creation; the controller releases them in dependency order (released-at annotations,
#     no task started before its upstream task finished) and all three succeed;
#   - a dagsched pod without dagsched.io/job is gated, then ungated at once by the controller;
#   - a pod of default-scheduler and a dagsched pod in the install namespace are not gated;
#   - release as admission: while two 3-cpu pods of default-scheduler fill both 4-cpu nodes,
#     five one-task jobs of 3-cpu pods are created ungated, in an order unlike the policy's
#     (shortestRemaining, lookahead 0): they are held, a held pod shows
#     dagsched.io/waiting-reason ("no room: needs cpu 3; ...") and a Waiting Event; as room frees
#     the controller releases them in the policy's order (released-at annotations), never more
#     than the two nodes hold (the fillers included); a released pod loses the annotation; the
#     queue-length gauge and the release-latency histogram record it;
#   - with the extender stopped (failurePolicy Ignore) a dagsched pod is created ungated;
#   - the extender's metrics count gated and ignored reviews; no sanitizer report in its log.
# Usage: admission_integration.sh EXTENDER CONTROLLER   (prints "admission integration: N passed,
#        M failed"); admission_integration.sh --inside EXTENDER CONTROLLER (run by with-cluster.sh)
# shellcheck disable=SC2317 # helpers are called through wait_until
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
SELF="$ROOT/tests/extender/admission_integration.sh"
# shellcheck source=tests/common/cluster_suite.sh
. "$ROOT/tests/common/cluster_suite.sh"

if [[ "${1:-}" != --inside ]]; then
  export NODE_PROFILE="$ROOT/tests/controller/nodes.tsv"
  export SCHEDULER_CONFIG="$ROOT/tests/extender/admission-scheduler-config.yaml"
  run_in_cluster "$SELF" 2 "$0 EXTENDER CONTROLLER (executables)" "$@"
fi
EXT="$2"
CTL="$3"
LOGDIR="$CLUSTER_DIR/admission-logs"
CERTS="$CLUSTER_DIR/admission-certs"
mkdir -p "$LOGDIR"
"$ROOT/hack/gen-test-certs.sh" "$CERTS"
SUITE=admission
GATE=dagsched.io/dependencies
INSTALL_NS=dagsched-system
NS=wf

on_failure() { tail_logs 25 "$LOGDIR"/*.log; }
EXT_PORT="$(free_port)"
ADM_PORT="$(free_port)"
CTL_PORT="$(free_port)"
start_extender_ready() {
  start_extender "$EXT" "$LOGDIR/extender.log" "$INSTALL_NS" --log-level debug
  wait_until 30 extender_webhook_ready
}
trap stop_components EXIT
metric() { metric_of "https://127.0.0.1:$EXT_PORT/metrics" "$1" --cacert "$CERTS/ca.crt"; }
ctl_metric() { metric_of "http://127.0.0.1:$CTL_PORT/metrics" "$1"; }
gates() { K -n "$1" get pod "$2" -o jsonpath='{.spec.schedulingGates[*].name}' 2>/dev/null; }
gated() { [[ " $(gates "$1" "$2") " == *" $GATE "* ]]; }
ungated() { [[ -z "$(gates "$1" "$2")" ]]; }
bound() { [[ -n "$(K -n "$1" get pod "$2" -o jsonpath='{.spec.nodeName}' 2>/dev/null)" ]]; }
pod() { # NAME SCHEDULER [LABELS_YAML] [ANNOTATIONS_YAML]
  cat <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: $1
  labels: {${3:-}}
  annotations: {${4:-}}
spec:
  schedulerName: $2
  restartPolicy: Never
  containers: [{name: main, image: busybox, resources: {requests: {cpu: "1"}}}]
---
YAML
}

K create namespace "$INSTALL_NS" >/dev/null
K create namespace "$NS" >/dev/null
check "the extender serves its webhook listener over HTTPS" start_extender_ready
register_webhook dagsched-admission-test
check "the webhook is called by the API server" wait_until 30 probe_gated "$NS"
K -n "$NS" delete pod probe --wait=false >/dev/null 2>&1 || true

# ---- a chain created at once, without gates, as a workflow engine creates it
{
  pod chain-a dagsched "dagsched.io/job: chain, dagsched.io/task: a" 'dagsched.io/runtime: "3s"'
  pod chain-b dagsched "dagsched.io/job: chain, dagsched.io/task: b" 'dagsched.io/runtime: "3s", dagsched.io/depends-on: a'
  pod chain-c dagsched "dagsched.io/job: chain, dagsched.io/task: c" 'dagsched.io/runtime: "2s", dagsched.io/depends-on: b'
  pod plain dagsched
  pod other default-scheduler "dagsched.io/job: other, dagsched.io/task: x"
} | K -n "$NS" create -f - >/dev/null
pod own-ns dagsched "dagsched.io/job: own, dagsched.io/task: x" | K -n "$INSTALL_NS" create -f - >/dev/null
for p in chain-a chain-b chain-c; do
  check "$p was created with the gate (no controller running yet)" gated "$NS" "$p"
done
check "a dagsched pod outside any DAG job was gated too" gated "$NS" plain
check "a default-scheduler pod is not gated" ungated "$NS" other
check "a dagsched pod in the install namespace is not gated" ungated "$INSTALL_NS" own-ns
check "gated reviews are counted" test "$(metric 'dagsched_extender_admission_total{result="gated"}')" -ge 4
check "ignored reviews are counted" test "$(metric 'dagsched_extender_admission_total{result="ignored"}')" -ge 2
check "each gated pod is logged at debug" \
  bash -c "grep -q 'admission: pod $NS/chain-b: gate added' '$LOGDIR/extender.log'"

# ---- the controller releases them
start_controller "$CTL" "$LOGDIR/controller.log" "$INSTALL_NS" --log-level debug
check "the controller removes the gate of the pod outside any DAG job" wait_until 30 ungated "$NS" plain
check "... and it is scheduled" wait_until 30 bound "$NS" plain
all_done() { [[ "$(K -n "$NS" get pods -l dagsched.io/job=chain --field-selector=status.phase=Succeeded -o name | wc -l)" -eq 3 ]]; }
check "the three chained tasks succeed" wait_until 120 all_done
json="$(K -n "$NS" get pods -o json)"
order_ok=1
for pair in chain-b:chain-a chain-c:chain-b; do
  t="${pair%%:*}" u="${pair#*:}"
  if ! not_before "$(start_of "$t")" "$(end_of "$u")"; then
    echo "  $t started at $(start_of "$t"), before $u finished at $(end_of "$u")" >&2
    order_ok=0
  fi
  if ! not_before "$(released_at "$t")" "$(end_of "$u")"; then
    echo "  $t released at '$(released_at "$t")', before $u finished at $(end_of "$u")" >&2
    order_ok=0
  fi
done
check "no task was released or started before its upstream task finished" test "$order_ok" = 1
check "the root task was released by the controller too" test -n "$(released_at chain-a)"
check "the controller counted the ungated non-DAG pod" \
  test "$(ctl_metric 'dagsched_controller_releases_total{kind="outside_dag"}')" -ge 1

# ---- release as admission: limited room, the policy's order, reasons on held pods
K -n "$NS" delete pod plain other --wait=true >/dev/null
K -n "$INSTALL_NS" delete pod own-ns --wait=true >/dev/null
apply_policy "$INSTALL_NS" "      order: {acrossJobs: shortestRemaining, starvationThreshold: 0s}
      release: {admission: capacity, lookahead: 0}"
check "the controller takes the policy with lookahead 0" \
  wait_until 30 grep -q 'policy default from .* is active' "$LOGDIR/controller.log"
task() { # NAME RUNTIME: a one-task job of one 3-cpu pod, no gate in its manifest
  cat <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: $1
  labels: {dagsched.io/job: $1, dagsched.io/task: main}
  annotations: {dagsched.io/runtime: "$2"}
spec:
  schedulerName: dagsched
  restartPolicy: Never
  containers: [{name: main, image: busybox, resources: {requests: {cpu: "3"}}}]
---
YAML
}
filler() { # NAME: a default-scheduler pod of 3 cpu that runs 15 s
  cat <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: $1
  annotations: {dagsched.io/runtime: "15s"}
spec:
  restartPolicy: Never
  containers: [{name: main, image: busybox, resources: {requests: {cpu: "3"}}}]
---
YAML
}
{
  filler fill-1
  filler fill-2
} | K -n "$NS" create -f - >/dev/null
fillers_run() { [[ "$(K -n "$NS" get pod fill-1 fill-2 -o jsonpath='{.items[*].status.phase}')" == "Running Running" ]]; }
check "two pods of another scheduler fill the two nodes" wait_until 60 fillers_run
# Created (FIFO) order: j20 j5 j15 j10 j12; the policy's order (least remaining work): j5 j10
# j12 j15 j20. No room until the fillers finish; then each node holds one task at a time.
{
  task j20 20s
  task j5 5s
  task j15 15s
  task j10 10s
  task j12 12s
} | K -n "$NS" create -f - >/dev/null
all_held() { for p in j20 j5 j15 j10 j12; do gated "$NS" "$p" || return 1; done; }
check "the five tasks are held while the nodes are full" all_held
reason_of() { K -n "$NS" get pod "$1" -o jsonpath='{.metadata.annotations.dagsched\.io/waiting-reason}' 2>/dev/null; }
held_for_room() { [[ "$(reason_of j20)" == "no room: needs cpu 3; most free room on node "* ]] && gated "$NS" j20; }
check "a pod held for room is gated and says why (dagsched.io/waiting-reason)" wait_until 30 held_for_room
echo "  j20 waits: $(reason_of j20)"
waiting_event() { K -n "$NS" get events --field-selector reason=Waiting,involvedObject.name=j20 -o jsonpath='{.items[*].message}' | grep -q '^no room: needs cpu 3'; }
check "... with a Waiting Event that kubectl describe shows" wait_until 30 waiting_event
check "the queue-length gauge counts the pods held for room" \
  test "$(ctl_metric 'dagsched_controller_release_queue_length{reason="no-room"}')" -ge 1
cap_done() { [[ "$(K -n "$NS" get pods -l 'dagsched.io/job in (j5,j10,j12,j15,j20)' --field-selector=status.phase=Succeeded -o name | wc -l)" -eq 5 ]]; }
check "the five jobs succeed" wait_until 180 cap_done
json="$(K -n "$NS" get pods -o json | jq '.items |= map(select(.metadata.name | test("^(j[0-9]+|fill-[12])$")))')"
order="$(jq -r '[.items[] | select(.metadata.name | startswith("j")) | {n: .metadata.name, r: (.metadata.annotations["dagsched.io/released-at"] // "")}] | sort_by(.r) | map(.n) | join(" ")' <<<"$json")"
echo "  release order: $order"
check "the controller released them in the policy's order, not in creation order" test "$order" = "j5 j10 j12 j15 j20"
# At each release, the pods released (a filler: since it started) and not finished, the one
# released included, must fit the two nodes: at most two.
most_in_flight="$(jq -r '.items[] | [.metadata.annotations["dagsched.io/released-at"] // .status.startTime // "", ([.status.containerStatuses[]?.state.terminated.finishedAt] | max // "")] | @tsv' <<<"$json" |
  python3 -c '
import sys, datetime
def t(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp() if s else float("inf")
rows = [tuple(t(x) for x in line.rstrip("\n").split("\t")) for line in sys.stdin if line.strip()]
print(max(sum(1 for r, e in rows if r <= rel and e > rel) for rel, _ in rows))')"
echo "  most tasks released and not finished at a release: $most_in_flight"
check "no pod was released before there was room for it (at most 2 in flight)" test "$most_in_flight" -le 2
check "a released pod no longer carries dagsched.io/waiting-reason" test -z "$(reason_of j20)"
check "the release latency histogram counts the releases" \
  test "$(ctl_metric 'dagsched_controller_release_latency_seconds_count{kind="pod"}')" -ge 5

check "no dependency edge was violated" env KUBECTL="$KUBECTL" python3 "$ROOT/tests/common/check_edges.py"

# ---- failurePolicy Ignore with the extender down
stop_pid "$EXT_PID"
EXT_PID=""
check "with the extender down (failurePolicy Ignore) a dagsched pod is created, ungated" \
  bash -c "$(declare -f pod); pod down dagsched 'dagsched.io/job: down, dagsched.io/task: x' | '$KUBECTL' -n $NS create -f - >/dev/null && [[ -z \"\$('$KUBECTL' -n $NS get pod down -o jsonpath='{.spec.schedulingGates}')\" ]]"
check "the extender left no sanitizer report" no_sanitizer_report "$LOGDIR/extender.log"

stop_components
K delete mutatingwebhookconfiguration dagsched-admission-test >/dev/null 2>&1 || true
suite_result "admission integration"

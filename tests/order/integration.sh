#!/usr/bin/env bash
# integration.sh: dependency order whatever the order in which a DAG's pods are created, on a real
# local control plane (hack/cluster/with-cluster.sh) whose kube-scheduler calls the extender as the
# chart configures it (hack/demo/scheduler-config.yaml: HTTPS, filter, prioritize and preempt),
# two 4-cpu nodes, the extender (sanitizer build) with its admission webhook, and the controller. Run by
# `make order-integration-test`.
#
# The same workload runs twice, in two namespaces: with the webhook up (every pod arrives gated)
# and with the webhook down (failurePolicy Ignore: the webhook configuration points at a closed
# port, every pod arrives ungated, as in an outage or for pods created before dagsched was
# installed). The workload, as a careless user creates it:
#   - one `kubectl create -f` of a file that lists a 5-task chain and a diamond last task first;
#   - a fan-out f0 -> f1..f6 -> f7 whose downstream pods are created 3 s before its root;
#   - invalid jobs: a cycle (a <-> b) with a root r, a self-dependency with a root r, and a job
#     whose task v2 depends on "v1, ghost" where no pod carries ghost.
# Checked: every valid job succeeds; the roots of the invalid jobs run; their tasks that depend on
# something never get a node and say why (dagsched.io/waiting-reason with the webhook up, the
# FailedScheduling message with it down), and one InvalidJobGraph Event names the cycle; then the
# jobs are fixed (ghost's pod created, the cycle broken) and their held tasks run in order; a job
# whose upstream pod never comes gets the Event that says it is stalled once the grace period
# (2 minutes) is over. Every dependency edge of every job is checked from the pods' own
# timestamps (tests/common/check_edges.py): none may be violated.
# Usage: integration.sh EXTENDER CONTROLLER   (prints "order integration: N passed, M failed")
# shellcheck disable=SC2317 # helpers are called through wait_until
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
SELF="$ROOT/tests/order/integration.sh"
# shellcheck source=tests/common/cluster_suite.sh
. "$ROOT/tests/common/cluster_suite.sh"

if [[ "${1:-}" != --inside ]]; then
  # The chart's scheduler configuration (as make demo renders it): the extender over HTTPS with
  # a CA made for the run, on a port chosen now.
  ORDER_TMP="$(mktemp -d /tmp/dagsched-order.XXXXXX)"
  trap 'rm -rf "$ORDER_TMP"' EXIT
  "$ROOT/hack/gen-test-certs.sh" "$ORDER_TMP/certs" >/dev/null
  ORDER_EXT_PORT="$(free_port)"
  sed -e "s|@EXTENDER_URL@|https://127.0.0.1:$ORDER_EXT_PORT|" \
    -e "s|@EXTENDER_CA@|$ORDER_TMP/certs/ca.crt|" \
    "$ROOT/hack/demo/scheduler-config.yaml" >"$ORDER_TMP/scheduler-config.yaml"
  export ORDER_TMP ORDER_EXT_PORT
  export NODE_PROFILE="$ROOT/tests/controller/nodes.tsv"
  export SCHEDULER_CONFIG="$ORDER_TMP/scheduler-config.yaml"
  (run_in_cluster "$SELF" 2 "$0 EXTENDER CONTROLLER (executables)" "$@")
  exit $?
fi
EXT="$2"
CTL="$3"
LOGDIR="$CLUSTER_DIR/order-logs"
CERTS="$ORDER_TMP/certs"
mkdir -p "$LOGDIR"
SUITE=order
INSTALL_NS=dagsched-system
UP=order-up
DOWN=order-down
STALL=order-stall

on_failure() {
  K get pods -A -o wide 2>&1 | grep -v kube-system | tail -40 >&2 || true
  tail_logs 25 "$LOGDIR"/*.log
}
EXT_PORT="$ORDER_EXT_PORT"
ADM_PORT="$(free_port)"
CTL_PORT="$(free_port)"
trap stop_components EXIT

gates() { K -n "$1" get pod "$2" -o jsonpath='{.spec.schedulingGates[*].name}' 2>/dev/null; }
gated() { [[ " $(gates "$1" "$2") " == *" dagsched.io/dependencies "* ]]; }
bound() { [[ -n "$(K -n "$1" get pod "$2" -o jsonpath='{.spec.nodeName}' 2>/dev/null)" ]]; }
succeeded() { # NS POD...
  local ns="$1" p
  shift
  for p in "$@"; do
    [[ "$(K -n "$ns" get pod "$p" -o jsonpath='{.status.phase}' 2>/dev/null)" == Succeeded ]] || return 1
  done
}
reason_of() { K -n "$1" get pod "$2" -o jsonpath='{.metadata.annotations.dagsched\.io/waiting-reason}' 2>/dev/null; }
reason_is() { [[ "$(reason_of "$1" "$2")" == "$3"* ]]; }
sched_msg() { K -n "$1" get events --field-selector "involvedObject.name=$2,reason=FailedScheduling" -o jsonpath='{.items[*].message}' 2>/dev/null; }
sched_msg_has() { [[ "$(sched_msg "$1" "$2")" == *"$3"* ]]; }
events_of() { K -n "$1" get events --field-selector "reason=$2" -o jsonpath='{range .items[*]}{.message}{"\n"}{end}' 2>/dev/null; }
event_has() { events_of "$1" "$2" | grep -qF "$3"; }
edges_ok() { KUBECTL="$KUBECTL" python3 "$ROOT/tests/common/check_edges.py" ${1:+-n "$1"}; }

# pod NAME JOB TASK DEPENDS_ON: a 100m pod of the dagsched scheduler that runs 2 s, no gate.
pod() {
  cat <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: $1
  labels: {dagsched.io/job: $2, dagsched.io/task: $3}
  annotations: {dagsched.io/runtime: "2s", dagsched.io/depends-on: "$4"}
spec:
  schedulerName: dagsched
  restartPolicy: Never
  containers: [{name: main, image: busybox, resources: {requests: {cpu: 100m}}}]
---
YAML
}

# The workload in NS, downstream first. Returns once every pod is created.
create_workload() {
  local ns="$1"
  {
    pod c5 chain c5 c4
    pod c4 chain c4 c3
    pod c3 chain c3 c2
    pod c2 chain c2 c1
    pod c1 chain c1 ""
    pod d4 diamond d4 "d2, d3"
    pod d3 diamond d3 d1
    pod d2 diamond d2 d1
    pod d1 diamond d1 ""
  } | K -n "$ns" create -f - >/dev/null
  {
    pod f7 fan f7 "f1,f2,f3,f4,f5,f6"
    for i in 1 2 3 4 5 6; do pod "f$i" fan "f$i" f0; done
    pod cy-a cyc a b
    pod cy-b cyc b a
    pod cy-r cyc r ""
    pod self-a self a a
    pod self-r self r ""
    pod v2 typo v2 "v1, ghost"
    pod v1 typo v1 ""
  } | K -n "$ns" create -f - >/dev/null
  sleep 3
  pod f0 fan f0 "" | K -n "$ns" create -f - >/dev/null
}
VALID=(c1 c2 c3 c4 c5 d1 d2 d3 d4 f0 f1 f2 f3 f4 f5 f6 f7 cy-r self-r v1)
HELD=(cy-a cy-b self-a v2)

# After the valid tasks and the roots have succeeded: the held tasks are still unbound.
none_bound() {
  local ns="$1" p
  for p in "${HELD[@]}"; do
    if bound "$ns" "$p"; then
      echo "  $ns/$p was bound" >&2
      return 1
    fi
  done
}

# Fix the invalid jobs: the missing upstream pod is created, the cycle is broken (cy-b recreated
# without its dependency), the self-dependency removed (self-a recreated). Their held tasks then
# run, in order.
fix_jobs() {
  local ns="$1"
  K -n "$ns" delete pod cy-b self-a --wait=true >/dev/null
  {
    pod ghost typo ghost ""
    pod cy-b cyc b ""
    pod self-a self a ""
  } | K -n "$ns" create -f - >/dev/null
}

K create namespace "$INSTALL_NS" >/dev/null
for ns in "$UP" "$DOWN" "$STALL"; do K create namespace "$ns" >/dev/null; done
start_extender "$EXT" "$LOGDIR/extender.log" "$INSTALL_NS" --log-level debug
check "the extender serves its webhook" wait_until 30 extender_webhook_ready
register_webhook dagsched-order-test
check "the webhook is called by the API server" wait_until 30 probe_gated "$UP"
K -n "$UP" delete pod probe --wait=true >/dev/null 2>&1 || true
start_controller "$CTL" "$LOGDIR/controller.log" "$INSTALL_NS" --log-level debug

# A job whose upstream pod never comes, created first: its Event is due 2 minutes later.
pod never-down lost down never | K -n "$STALL" create -f - >/dev/null
STALL_CREATED=$SECONDS

# ---- webhook up
SCENARIO="webhook up"
create_workload "$UP"
check "the webhook gated every pod of the workload" \
  test "$(metric_of "https://127.0.0.1:$EXT_PORT/metrics" 'dagsched_extender_admission_total{result="gated"}' --cacert "$CERTS/ca.crt")" -ge 26
check "the valid jobs and the invalid jobs' roots succeed" wait_until 180 succeeded "$UP" "${VALID[@]}"
check "no task that depends on another was bound in an invalid job" none_bound "$UP"
for p in "${HELD[@]}"; do
  check "$p keeps its gate" gated "$UP" "$p"
done
check "cy-a says its job is invalid (dagsched.io/waiting-reason)" \
  wait_until 20 reason_is "$UP" cy-a "its job is invalid right now: dependency cycle: "
check "self-a says its job is invalid" \
  wait_until 20 reason_is "$UP" self-a "its job is invalid right now: dependency cycle: a -> a"
reason_has() { [[ "$(reason_of "$1" "$2")" == *"$3"* ]]; }
check "v2 waits for its upstream task that has no pod yet" \
  wait_until 20 reason_has "$UP" v2 "ghost (not created yet)"
check "one InvalidJobGraph Event for the cyclic job" \
  wait_until 20 event_has "$UP" InvalidJobGraph "Job $UP/cyc cannot be scheduled as a DAG: dependency cycle"
check "... one, not one per pod" test "$(events_of "$UP" InvalidJobGraph | grep -c "Job $UP/cyc ")" -eq 1
echo "  cy-a waits: $(reason_of "$UP" cy-a)"
check "no dependency edge was violated" edges_ok "$UP"

# ---- webhook down (failurePolicy Ignore): pods arrive ungated
SCENARIO="webhook down"
closed="$(free_port)"
admission_webhook_yaml dagsched-order-test "$closed" "$CERTS/ca.crt" | K apply -f - >/dev/null
ungated_probe() {
  K -n "$DOWN" delete pod probe --ignore-not-found --wait=true >/dev/null 2>&1
  printf '%s\n' "apiVersion: v1" "kind: Pod" "metadata: {name: probe}" \
    "spec: {schedulerName: dagsched, containers: [{name: main, image: busybox}]}" |
    K -n "$DOWN" create -f - >/dev/null || return 1
  [[ -z "$(gates "$DOWN" probe)" ]]
}
check "pods are created without the gate while the webhook is unreachable" wait_until 30 ungated_probe
K -n "$DOWN" delete pod probe --wait=false >/dev/null 2>&1 || true
create_workload "$DOWN"
check "the workload's pods arrived ungated" test -z "$(K -n "$DOWN" get pods -o jsonpath='{.items[*].spec.schedulingGates}')"
check "the valid jobs and the invalid jobs' roots succeed" wait_until 180 succeeded "$DOWN" "${VALID[@]}"
check "no task that depends on another was bound in an invalid job" none_bound "$DOWN"
check "kube-scheduler says why cy-a gets no node" \
  wait_until 30 sched_msg_has "$DOWN" cy-a "the pod may depend on other tasks and waits until the job is fixed"
check "kube-scheduler says what v2 waits for" \
  wait_until 30 sched_msg_has "$DOWN" v2 "waiting for upstream tasks: ghost (not created yet)"
check "no dependency edge was violated" edges_ok "$DOWN"

# ---- fixed jobs run their held tasks, in order
for ns in "$UP" "$DOWN"; do
  SCENARIO="fixed ($ns)"
  fix_jobs "$ns"
  check "the held tasks run once their jobs are fixed" wait_until 120 succeeded "$ns" ghost v2 cy-b cy-a self-a
  check "no dependency edge was violated" edges_ok "$ns"
done

# ---- a job stalled on an upstream pod that never comes
SCENARIO=stalled
left=$((STALL_CREATED + 150 - SECONDS))
((left > 10)) || left=10
check "an InvalidJobGraph Event says the job is stalled, past the grace period" \
  wait_until "$left" event_has "$STALL" InvalidJobGraph "Job $STALL/lost is stalled: task \"down\" depends on task \"never\""
check "... and its task still waits" gated "$STALL" never-down
echo "  $(events_of "$STALL" InvalidJobGraph | head -1)"

SCENARIO=""
check "no dependency edge was violated in any namespace" edges_ok
check "the extender left no sanitizer report" no_sanitizer_report "$LOGDIR/extender.log"
stop_components
K delete mutatingwebhookconfiguration dagsched-order-test >/dev/null 2>&1 || true
suite_result "order integration"

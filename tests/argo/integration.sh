#!/usr/bin/env bash
# integration.sh: Argo Workflows under dagsched, against the real Argo controller
# (github.com/argoproj/argo-workflows/v4, hack/cluster/build-argo.sh) on a local control plane
# (hack/cluster/with-cluster.sh with ARGO=1) with two 4-cpu nodes (tests/controller/nodes.tsv) and
# the scheduler profile "dagsched" calling the extender over HTTPS as the chart configures it
# (tests/common/extender-scheduler-config.yaml: kube-scheduler is restarted with it once the
# extender runs).
# kwok plays the pods (hack/cluster/kwok/pod-complete-argo.yaml: `sleep N` in the main container).
# The extender serves the admission webhook that gates every dagsched pod at creation, as
# installed clusters do, and kube-scheduler's filter, prioritize and preempt verbs; the controller
# releases the pods. The Workflows carry no dagsched annotation but the deadline.
#   diamond   extract -> (clean, enrich) -> load (`dependencies`), each `sleep 2`: it succeeds; every
#             pod was gated at creation and released by the controller (released-at annotation)
#             never before its upstream tasks finished, as a task of the Workflow's DAG (its
#             Released Event names its upstream tasks); no pod got an InvalidPodMetadata or InvalidJobGraph Event
#   fan-out   (`depends`) a task with withItems of 64 after a root and before a join, 1 cpu each on 8 cpus, podGC
#             OnPodSuccess, and a retried task whose first attempt fails (retryStrategy): the
#             Workflow succeeds; the join ran after every item; the retried task ran twice; no pod
#             of it was released outside the order (Argo creates fan-out pods before its status
#             lists them: they wait for the listing, never released as "not a DAG task")
#   invalid   a DAG with `depends: "a || b"`, which dagsched does not support: the Workflow still
#             runs to Succeeded, and its pods get a Warning Event InvalidJobGraph saying why
#   nightly   examples/argo-nightly.yaml as a user creates it (a WorkflowTemplate and a CronWorkflow
#             that runs it), its schedule moved to every minute: Argo's cron controller starts a
#             run, which carries the CronWorkflow's deadline, shows the template's run times and
#             the deadline in describe job, is released task by task by the controller in the
#             DAG's order, and succeeds
#   plugin    kubectl-dagsched get jobs, describe job, gantt and describe job -o json on a
#             Workflow first -> second while second runs (its states and its live pod), then
#             once it succeeded and its pods were deleted (states and times from status.nodes)
# Scenarios: ARGO_SCENARIOS (default "diamond fan invalid urgent plugin nightly").
# Usage: integration.sh EXTENDER CONTROLLER PLUGIN (prints "argo integration: N passed, M failed")
#        integration.sh --inside EXTENDER CONTROLLER PLUGIN (run by with-cluster.sh)
# shellcheck disable=SC2317 # helpers are called through wait_until
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
SELF="$ROOT/tests/argo/integration.sh"
# shellcheck source=tests/common/cluster_suite.sh
. "$ROOT/tests/common/cluster_suite.sh"

if [[ "${1:-}" != --inside ]]; then
  export NODE_PROFILE="$ROOT/tests/controller/nodes.tsv"
  export SCHEDULER_CONFIG="$ROOT/tests/extender/admission-scheduler-config.yaml"
  export ARGO=1
  run_in_cluster "$SELF" 3 "$0 EXTENDER CONTROLLER PLUGIN (executables)" "$@"
fi
EXT="$2"
CTL="$3"
PLUGIN="$4"
LOGDIR="$CLUSTER_DIR/argo-logs"
CERTS="$CLUSTER_DIR/argo-certs"
mkdir -p "$LOGDIR"
"$ROOT/hack/gen-test-certs.sh" "$CERTS"
SUITE=argo
INSTALL_NS=dagsched-system
NS=wf

on_failure() {
  ((FAILED == 1)) || return 0 # the logs' tails once, at the first failure
  tail_logs 15 "$LOGDIR"/*.log "$CLUSTER_DIR/logs/argo-controller.log"
  K get workflows -A -o wide >&2 2>&1 || true
}

EXT_PORT="$(free_port)"
ADM_PORT="$(free_port)"
CTL_PORT="$(free_port)"
trap stop_components EXIT

K create namespace "$INSTALL_NS" >/dev/null
K create namespace "$NS" >/dev/null
start_extender "$EXT" "$LOGDIR/extender.log" "$INSTALL_NS" --log-level debug
check "the extender serves its webhook" wait_until 60 extender_webhook_ready
check "the extender watches Workflows (the Argo CRDs are installed)" \
  grep -q "Argo Workflows are installed: watching Workflows" "$LOGDIR/extender.log"
# kube-scheduler calls the extender from now on, over HTTPS with the test CA.
check "kube-scheduler restarts with the extender configured" schedule_through_extender "$LOGDIR"
register_webhook dagsched-admission-test argo
check "the webhook is called by the API server" wait_until 30 probe_gated "$NS"
K -n "$NS" delete pod probe --wait=false >/dev/null 2>&1 || true

start_controller "$CTL" "$LOGDIR/controller.log" "$INSTALL_NS" --log-level debug
check "the controller watches Workflows" \
  wait_until 60 grep -q "Argo Workflows are installed: watching Workflows" "$LOGDIR/controller.log"

wf_phase() { K -n "$NS" get workflow "$1" -o jsonpath='{.status.phase}' 2>/dev/null; }
wf_done() { [[ "$(wf_phase "$1")" == Succeeded ]]; }

# shows REGEX ARGS...: the plugin (its stderr into the log) succeeds and prints a line matching.
shows() {
  local want="$1" out
  shift
  out="$(env "${SANITIZER_ENV[@]}" "$PLUGIN" "$@" 2>>"$LOGDIR/plugin.log")" || return 1
  grep -qE "$want" <<<"$out"
}
want() { [[ " ${ARGO_SCENARIOS:-diamond fan invalid urgent plugin nightly} " == *" $1 "* ]]; }

scenario_diamond() {
K -n "$NS" create -f - >/dev/null <<YAML
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata:
  name: etl
  annotations: {dagsched.io/deadline: "$(deadline_in 600)"}
spec:
  entrypoint: main
  schedulerName: dagsched
  templates:
    - name: main
      dag:
        tasks:
          - {name: extract, template: work}
          - {name: clean, template: work, dependencies: [extract]}
          - {name: enrich, template: work, dependencies: [extract]}
          - {name: load, template: work, dependencies: [clean, enrich]}
    - name: work
      container:
        image: busybox
        command: [sleep]
        args: ["2"]
        resources: {requests: {cpu: "1"}}
YAML
check "the diamond Workflow runs to Succeeded under dagsched" wait_until 180 wf_done etl
json="$(K -n "$NS" get pods -l workflows.argoproj.io/workflow=etl -o json)"
task_pod() { jq -r --arg n "etl.$1" '.items[] | select(.metadata.annotations["workflows.argoproj.io/node-name"]==$n) | .metadata.name' <<<"$json"; }
order_ok=1
for pair in clean:extract enrich:extract load:clean load:enrich; do
  t="$(task_pod "${pair%%:*}")" u="$(task_pod "${pair#*:}")"
  if ! not_before "$(start_of "$t")" "$(end_of "$u")" || ! not_before "$(released_at "$t")" "$(end_of "$u")"; then
    echo "  $t (released $(released_at "$t"), started $(start_of "$t")) before $u finished at $(end_of "$u")" >&2
    order_ok=0
  fi
done
check "no task was released or started before its upstream tasks finished" test "$order_ok" = 1
released=0
for t in extract clean enrich load; do [[ -n "$(released_at "$(task_pod "$t")")" ]] && released=$((released + 1)); done
check "all four pods were gated at creation and released by the controller" test "$released" = 4
released_msg() { K -n "$NS" get events --field-selector "reason=Released,involvedObject.name=$1" -o jsonpath='{.items[*].message}' 2>/dev/null; }
check "load was released as the DAG task after clean and enrich (Released Event)" \
  grep -qF "its upstream tasks (clean, enrich) have succeeded" <<<"$(released_msg "$(task_pod load)")"
check "extract was released as a root task of the DAG" \
  grep -qF "its upstream tasks (none) have succeeded" <<<"$(released_msg "$(task_pod extract)")"
invalid_events() { K -n "$NS" get events --field-selector "reason=$1" -o name 2>/dev/null | grep -c . || true; }
check "no InvalidPodMetadata or InvalidJobGraph Event for the diamond" \
  test "$(invalid_events InvalidPodMetadata)" = 0 -a "$(invalid_events InvalidJobGraph)" = 0

}

# ---- fan-out of 20, podGC, a retry
fan_outside_dag() { metric_of "http://127.0.0.1:$CTL_PORT/metrics" 'dagsched_controller_releases_total{kind="outside_dag"}'; }
scenario_fan() {
local outside_before
outside_before="$(fan_outside_dag)"
K -n "$NS" create -f - >/dev/null <<YAML
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata:
  name: fan
  annotations: {dagsched.io/deadline-after: "10m"}
spec:
  entrypoint: main
  schedulerName: dagsched
  podGC: {strategy: OnPodSuccess}
  templates:
    - name: main
      dag:
        tasks:
          - {name: root, template: work}
          - {name: shard, template: work, depends: root, withItems: [$(seq -s, 0 63)]}
          - {name: flaky, template: fail-once, depends: root}
          - {name: join, template: work, depends: "shard && flaky"}
    - name: work
      container:
        image: busybox
        command: [sleep]
        args: ["1"]
        resources: {requests: {cpu: "1"}}
    - name: fail-once
      retryStrategy: {limit: 2}
      container:
        image: busybox
        command: [exit]
        args: ["{{=asInt(retries) < 1 ? '1' : '0'}}"]
        resources: {requests: {cpu: "1"}}
YAML
check "the fan-out Workflow runs to Succeeded under dagsched" wait_until 300 wf_done fan
wfjson="$(K -n "$NS" get workflow fan -o json)"
node_time() { jq -r --arg n "$1" --arg f "$2" '.status.nodes[] | select(.name==$n) | .[$f]' <<<"$wfjson"; }
items_done_before_join=1
join_start="$(node_time fan.join startedAt)"
for i in $(seq 0 63); do
  f="$(jq -r --arg p "fan.shard($i:" '.status.nodes[] | select(.type=="Pod" and (.name | startswith($p))) | .finishedAt' <<<"$wfjson")"
  not_before "$join_start" "$f" || items_done_before_join=0
done
check "64 items ran and the join started after every one of them" test "$items_done_before_join" = 1
check "no pod of the fan-out was released outside the order (releases_total{kind=outside_dag})" \
  test "$(fan_outside_dag)" = "$outside_before"
check "... and the controller's log names none as not a DAG task" \
  bash -c "! grep -E 'pod $NS/fan-.*not a DAG task' '$LOGDIR/controller.log'"
no_succeeded_pods() { [[ -z "$(K -n "$NS" get pods -l workflows.argoproj.io/workflow=fan --field-selector=status.phase=Succeeded -o name)" ]]; }
check "podGC deleted the succeeded pods" wait_until 60 no_succeeded_pods
check "the retried task ran twice, its first attempt failed" \
  test "$(jq '[.status.nodes[] | select(.type=="Pod" and (.name | startswith("fan.flaky(")))] | length' <<<"$wfjson")" -ge 2

}

# ---- a DAG dagsched does not support: left to run, with a Warning Event
scenario_invalid() {
K -n "$NS" create -f - >/dev/null <<YAML
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata: {name: either}
spec:
  entrypoint: main
  schedulerName: dagsched
  templates:
    - name: main
      dag:
        tasks:
          - {name: a, template: work}
          - {name: b, template: work}
          - {name: c, template: work, depends: "a || b"}
    - name: work
      container:
        image: busybox
        command: [sleep]
        args: ["1"]
        resources: {requests: {cpu: "1"}}
YAML
check "a Workflow dagsched cannot model still runs to Succeeded" wait_until 180 wf_done either
why() { K -n "$NS" get events --field-selector reason=InvalidJobGraph -o jsonpath='{range .items[*]}{.message}{"\n"}{end}' 2>/dev/null; }
has_why() { why | grep -qF 'depends "a || b": dagsched supports only'; }
check "... and its pods got a Warning Event saying why" wait_until 30 has_why
}

# ---- the plugin on a Workflow, live and after its pods were deleted
scenario_plugin() {
K -n "$NS" create -f - >/dev/null <<YAML
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata:
  name: show
  annotations: {dagsched.io/deadline-after: "10m"}
spec:
  entrypoint: main
  schedulerName: dagsched
  templates:
    - name: main
      dag:
        tasks:
          - {name: first, template: quick}
          - {name: second, template: slow, dependencies: [first]}
    - name: quick
      container: {image: busybox, command: [sleep], args: ["1"], resources: {requests: {cpu: "1"}}}
    - name: slow
      container: {image: busybox, command: [sleep], args: ["20"], resources: {requests: {cpu: "1"}}}
YAML
check "get jobs on the live Workflow: Running, 2 tasks, 1 done, 1 running" \
  wait_until 120 shows '^show +Running +2 +1 +1 ' get jobs -n "$NS"
check "describe job on the live Workflow: first succeeded, second running on its pod" \
  shows '^second +2 +running +show-' describe job show -n "$NS"
check "describe job on the live Workflow gives its ETA (second runs: now + remaining critical path)" \
  shows '^ETA: +in [0-9hms]+, at [0-9:]+ \(remaining critical path [0-9hms]+\)' describe job show -n "$NS"
check "gantt of the live Workflow draws second running" \
  shows '^second .*#' gantt show -n "$NS" --width 60
check "the plugin's Workflow runs to Succeeded" wait_until 120 wf_done show
K -n "$NS" delete pods -l workflows.argoproj.io/workflow=show --wait=true >/dev/null
gone() { [[ -z "$(K -n "$NS" get pods -l workflows.argoproj.io/workflow=show -o name)" ]]; }
check "the Workflow's pods are deleted" wait_until 60 gone
check "get jobs after the pods are gone: Succeeded, 2 of 2 done" \
  shows '^show +Succeeded +2 +2 ' get jobs -n "$NS"
check "describe job after the pods are gone: both tasks succeeded, no pod" \
  shows '^second +2 +succeeded +- ' describe job show -n "$NS"
check "... and first too" shows '^first +1 +succeeded +- ' describe job show -n "$NS"
check "describe job of the finished Workflow: when it finished, its makespan, its deadline met" \
  shows '^Finished: +finished [0-9hms]+ ago, makespan [0-9hms]+; deadline met with [0-9hms]+ to spare$' \
  describe job show -n "$NS"
check "... and when second ran, from status.nodes" \
  shows "^  second: +started .* ago +ran [0-9hms]+ +\\(no pod: from the Workflow's status.nodes\\)$" \
  describe job show -n "$NS"
check "gantt after the pods are gone draws both runs" \
  shows '^first .*#' gantt show -n "$NS" --width 60
check "... and second's" shows '^second .*#' gantt show -n "$NS" --width 60
json_times() {
  local out
  out="$(env "${SANITIZER_ENV[@]}" "$PLUGIN" describe job show -n "$NS" -o json 2>>"$LOGDIR/plugin.log")" || return 1
  jq -e '.finished != null and .deadline != null and .makespanSeconds > 0 and
    .deadlineMarginSeconds > 0 and .eta == null and
    ([.taskList[] | .started != null and .finished != null] | all)' <<<"$out" >/dev/null
}
check "-o json after the pods are gone has the job's and every task's times" json_times
check "the plugin left no sanitizer report" no_sanitizer_report "$LOGDIR/plugin.log"
}

# ---- the nightly example: a WorkflowTemplate run by a CronWorkflow
nightly_run() {
  K -n "$NS" get workflows -l workflows.argoproj.io/cron-workflow=nightly-report -o name 2>/dev/null |
    head -1 | sed 's|.*/||'
}
nightly_started() { [[ -n "$(nightly_run)" ]]; }
released_count() { # PREFIX: Released Events on pods whose name starts with PREFIX
  K -n "$NS" get events --field-selector reason=Released -o json |
    jq --arg p "$1" '[.items[] | select(.involvedObject.name | startswith($p))] | length'
}
scenario_nightly() {
  K -n "$NS" create -f "$ROOT/examples/argo-nightly.yaml" >/dev/null
  # Every minute instead of 02:00, until the first run exists; then no more runs.
  K -n "$NS" patch cronworkflow nightly-report --type merge \
    -p '{"spec":{"schedules":["* * * * *"]}}' >/dev/null
  check "the CronWorkflow starts a run within a minute" wait_until 90 nightly_started
  K -n "$NS" patch cronworkflow nightly-report --type merge -p '{"spec":{"suspend":true}}' >/dev/null
  local run
  run="$(nightly_run)"
  check "the run carries the deadline of the CronWorkflow's workflowMetadata" \
    test "$(K -n "$NS" get workflow "$run" -o jsonpath='{.metadata.annotations.dagsched\.io/deadline-after}')" = 30m
  check "describe job shows the run's deadline (30m after its creation)" \
    wait_until 60 shows '^Deadline: +in (2[0-9]|30)m' describe job "$run" -n "$NS"
  check "... and the run times of the WorkflowTemplate's templates" \
    shows '^  publish: +5s +template annotation dagsched.io/runtime$' describe job "$run" -n "$NS"
  check "the run (a WorkflowTemplate through a CronWorkflow) runs to Succeeded under dagsched" \
    wait_until 240 wf_done "$run"
  check "the controller released its five pods (extract, three aggregate items, publish)" \
    test "$(released_count "$run-")" = 5
  local wfjson
  wfjson="$(K -n "$NS" get workflow "$run" -o json)"
  local publish_start last_item
  publish_start="$(jq -r '.status.nodes[] | select(.displayName=="publish") | .startedAt' <<<"$wfjson")"
  last_item="$(jq -r '[.status.nodes[] | select(.type=="Pod" and (.displayName | startswith("aggregate("))) | .finishedAt] | max' <<<"$wfjson")"
  check "publish started after every aggregate item finished" not_before "$publish_start" "$last_item"
  K -n "$NS" delete cronworkflow nightly-report >/dev/null
}

# shellcheck source=tests/argo/urgent.sh
. "$ROOT/tests/argo/urgent.sh"

for s in diamond fan invalid urgent plugin nightly; do
  if want "$s"; then SCENARIO="$s" "scenario_$s"; fi
done

check "no dependency edge was violated (JobGraphs and annotations)" \
  env KUBECTL="$KUBECTL" python3 "$ROOT/tests/common/check_edges.py"
stop_components
check "kube-scheduler called the extender's filter for the Workflows' pods" \
  grep -q "filter pod $NS/" "$LOGDIR/extender.log"
check "the extender and the controller left no sanitizer report" \
  no_sanitizer_report "$LOGDIR/extender.log" "$LOGDIR/controller.log"
K delete mutatingwebhookconfiguration dagsched-admission-test >/dev/null 2>&1 || true
suite_result "argo integration"

#!/usr/bin/env bash
# run.sh: make bench-urgent. An urgent Argo Workflow arriving while a batch Workflow holds the
# cluster, run side by side in one local control plane (hack/cluster/with-cluster.sh with ARGO=1,
# the real Argo workflow-controller) under three ways of running it, each on its own pool of two
# 4-cpu nodes (bench/urgent/nodes.tsv):
#   dagsched   schedulerName dagsched: the admission webhook gates the pods, the controller
#              releases and evicts (the policy of `make demo`, policies/demo.yaml's guards)
#   default    the default scheduler, nothing else
#   priority   the default scheduler, the urgent Workflow with a preempting PriorityClass
#              (value 1000, PreemptLowerPriority): what a user would do instead
# The batch: split -> crunch (4 items of `sleep 60`, 4 cpu, retryStrategy retryPolicy Always,
# limit 2) -> reduce. The urgent job: prep -> compute -> publish, `sleep 5`, 4 cpu each,
# dagsched.io/deadline-after 60s, submitted OFFSET seconds after the batch's first items run
# (0: with the batch). Without run-time annotations (ANNOTATE=1 adds dagsched.io/runtime: 5s):
# dagsched knows them from a warm-up run (learned run times). kube-scheduler calls the extender as
# the chart configures it (HTTPS, tests/common/extender-scheduler-config.yaml). A kube-scheduler's
# extenders serve all its profiles, so the default scheduler's pods pass through it too, as pods
# outside any DAG (fit and packing scores; dagsched's room holds bind only their own namespace):
# on pools of two nodes with one pod per node, that changes no placement of theirs.
# Prints one line per offset and mode: the urgent makespan, whether it met its deadline, the
# evictions (dagsched's, or kube-scheduler's preemptions), the batch's outcome and the work lost
# (seconds its evicted pods had run). A benchmark: it prints figures, it judges nothing.
# Usage: bench/urgent/run.sh EXTENDER CONTROLLER    (OFFSETS="0 10 30" by default; ANNOTATE=1)
# shellcheck disable=SC2317 # helpers are called through wait_until
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
SELF="$ROOT/bench/urgent/run.sh"
# shellcheck source=tests/common/cluster_suite.sh
. "$ROOT/tests/common/cluster_suite.sh"

if [[ "${1:-}" != --inside ]]; then
  export NODE_PROFILE="$ROOT/bench/urgent/nodes.tsv"
  export SCHEDULER_CONFIG="$ROOT/tests/extender/admission-scheduler-config.yaml"
  export ARGO=1
  run_in_cluster "$SELF" 2 "$0 EXTENDER CONTROLLER (executables)" "$@"
fi
EXT="$2"
CTL="$3"
LOGDIR="$CLUSTER_DIR/bench-logs"
CERTS="$CLUSTER_DIR/bench-certs"
mkdir -p "$LOGDIR"
"$ROOT/hack/gen-test-certs.sh" "$CERTS" >/dev/null
SUITE=bench-urgent
INSTALL_NS=dagsched-system
MODES=(dagsched default priority)
DEADLINE=60
OFFSETS="${OFFSETS:-0 10 30}"

EXT_PORT="$(free_port)"
ADM_PORT="$(free_port)"
CTL_PORT="$(free_port)"
trap stop_components EXIT

K create namespace "$INSTALL_NS" >/dev/null
for m in "${MODES[@]}"; do K create namespace "u-$m" >/dev/null; done
K apply -f - >/dev/null <<YAML
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: urgent-bench}
value: 1000
preemptionPolicy: PreemptLowerPriority
description: the urgent Workflow of make bench-urgent (mode priority)
YAML
apply_policy "$INSTALL_NS" "      deadlines: {urgentThreshold: 30s}
      preemption: {enabled: true, epoch: 5s, minRunTime: 10s, cooldown: 1m, maxVictimsPerPreemptor: 1,
                   maxEvictionsPerNode: 1, maxEvictionsPerNamespace: 10, maxEvictionsPerMinute: 10}"
start_extender "$EXT" "$LOGDIR/extender.log" "$INSTALL_NS"
wait_until 60 extender_webhook_ready
schedule_through_extender "$LOGDIR" >/dev/null
register_webhook dagsched-admission-bench
wait_until 30 probe_gated u-dagsched
K -n u-dagsched delete pod probe --wait=false >/dev/null 2>&1 || true
start_controller "$CTL" "$LOGDIR/controller.log" "$INSTALL_NS" --log-level debug

sched_of() { [[ "$1" == dagsched ]] && echo dagsched || echo default-scheduler; }

batch_yaml() {
  cat <<YAML
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata: {generateName: batch-}
spec:
  entrypoint: main
  schedulerName: $(sched_of "$1")
  nodeSelector: {bench/pool: $1}
  templates:
    - name: main
      dag:
        tasks:
          - {name: split, template: short}
          - {name: crunch, template: long, depends: split, withItems: [0, 1, 2, 3]}
          - {name: reduce, template: short, depends: crunch}
    - name: long
      retryStrategy: {limit: 2, retryPolicy: Always}
      container: {image: busybox, command: [sleep], args: ["60"], resources: {requests: {cpu: "4"}}}
    - name: short
      container: {image: busybox, command: [sleep], args: ["1"], resources: {requests: {cpu: "4"}}}
YAML
}

urgent_yaml() {
  local meta="" prio=""
  [[ "${ANNOTATE:-0}" == 1 ]] && meta='metadata: {annotations: {dagsched.io/runtime: "5s"}}'
  [[ "$1" == priority ]] && prio="podPriorityClassName: urgent-bench"
  cat <<YAML
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata:
  generateName: urgent-
  annotations: {dagsched.io/deadline-after: "${DEADLINE}s"}
spec:
  entrypoint: main
  schedulerName: $(sched_of "$1")
  nodeSelector: {bench/pool: $1}
  $prio
  templates:
    - name: main
      dag:
        tasks:
          - {name: prep, template: step}
          - {name: compute, template: step, depends: prep}
          - {name: publish, template: step, depends: compute}
    - name: step
      $meta
      container: {image: busybox, command: [sleep], args: ["5"], resources: {requests: {cpu: "4"}}}
YAML
}

create() { K -n "u-$1" create -o name -f - | sed 's|.*/||'; }
phase() { K -n "u-$1" get workflow "$2" -o jsonpath='{.status.phase}' 2>/dev/null; }
finished() { [[ "$(phase "$1" "$2")" =~ ^(Succeeded|Failed|Error)$ ]]; }
crunch_running() {
  [[ "$(K -n "u-$1" get pods -l "workflows.argoproj.io/workflow=$2" \
    --field-selector=status.phase=Running -o name | grep -c .)" -ge 2 ]]
}
makespan() {
  K -n "u-$1" get workflow "$2" -o json | jq -r '
    if .status.finishedAt == null then "-" else
    ((.status.finishedAt | fromdateiso8601) - (.metadata.creationTimestamp | fromdateiso8601)) end'
}
lost_work() {
  K -n "u-$1" get workflow "$2" -o json | jq -r '[.status.nodes[]? | select(.type == "Pod" and
    (.phase == "Error" or .phase == "Failed") and .startedAt != null and .finishedAt != null) |
    ((.finishedAt | fromdateiso8601) - (.startedAt | fromdateiso8601))] | add // 0'
}
evictions() {
  local reason=Preempted
  [[ "$1" == dagsched ]] && reason=DagschedEvicted
  K -n "u-$1" get events --field-selector "reason=$reason" -o name | grep -c . || true
}
no_pods() { [[ -z "$(K -n "u-$1" get pods -o name 2>/dev/null)" ]]; }

# Warm-up: the urgent job once on the empty cluster, so that dagsched knows its run times.
for m in "${MODES[@]}"; do
  w="$(urgent_yaml "$m" | create "$m")"
  wait_until 180 finished "$m" "$w" || echo "bench-urgent: warm-up $m did not finish" >&2
done
sleep 16 # the controller writes the learned run times at most every 15 s
for m in "${MODES[@]}"; do K -n "u-$m" delete workflows --all --wait=true >/dev/null; done

printf '%-7s %-9s %9s %5s %6s %-10s %6s\n' offset mode urgent_s met evict batch lost_s
for off in $OFFSETS; do
  declare -A batch=() urgent=()
  for m in "${MODES[@]}"; do
    K -n "u-$m" delete events --all >/dev/null 2>&1 || true
    batch[$m]="$(batch_yaml "$m" | create "$m")"
  done
  if ((off > 0)); then
    for m in "${MODES[@]}"; do wait_until 90 crunch_running "$m" "${batch[$m]}" || true; done
    sleep "$off"
  fi
  for m in "${MODES[@]}"; do urgent[$m]="$(urgent_yaml "$m" | create "$m")"; done
  for m in "${MODES[@]}"; do wait_until 400 finished "$m" "${urgent[$m]}" || true; done
  for m in "${MODES[@]}"; do wait_until 600 finished "$m" "${batch[$m]}" || true; done
  for m in "${MODES[@]}"; do
    u="$(makespan "$m" "${urgent[$m]}")"
    met=no
    awk -v t="$u" -v d="$DEADLINE" 'BEGIN { exit !(t != "-" && t <= d) }' && met=yes
    printf '%-7s %-9s %9s %5s %6s %-10s %6s\n' "$off" "$m" "$u" "$met" "$(evictions "$m")" \
      "$(phase "$m" "${batch[$m]}")" "$(lost_work "$m" "${batch[$m]}")"
  done
  for m in "${MODES[@]}"; do
    K -n "u-$m" delete workflows --all --wait=true >/dev/null
    wait_until 120 no_pods "$m" || true
  done
  unset batch urgent
done
stop_components
K delete mutatingwebhookconfiguration dagsched-admission-bench >/dev/null 2>&1 || true

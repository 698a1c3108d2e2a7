#!/usr/bin/env bash
# run.sh: make bench-urgent. An urgent DAG job arriving while a batch DAG job holds the cluster,
# run side by side in one local control plane (hack/cluster/with-cluster.sh with ARGO=1, the real
# Argo workflow-controller) under three ways of running it, each on its own pool of two 4-cpu
# nodes (bench/urgent/nodes.tsv):
#   dagsched   schedulerName dagsched: the admission webhook gates the pods, the controller
#              releases and evicts (the policy of `make demo`, policies/demo.yaml's guards)
#   default    the default scheduler, nothing else
#   priority   the default scheduler, the urgent job with a preempting PriorityClass
#              (value 1000, PreemptLowerPriority): what a user would do instead
# Two engines declare the jobs (ENGINES="argo jobs"):
#   argo   one Workflow each, the real Argo controller running them;
#   jobs   one batch/v1 Job per task: under dagsched all created at once, downstream first, the
#          pods naming their upstream tasks; under the default scheduler a driver creates each
#          level once the one before it has completed, as a user's script would.
# The batch: split -> crunch (4 tasks of `sleep N`, N 45-75 s by seed, 4 cpu, retried on
# eviction: Argo's retryStrategy retryPolicy Always, limit 2; a Job's podFailurePolicy ignoring
# DisruptionTarget) -> reduce. The urgent job: prep -> compute -> publish, `sleep S` (S 4-6 s by
# seed), 4 cpu each, deadline 60 s after its submission, submitted OFFSET seconds after the
# batch's first long tasks run (0: with the batch), each mode timed on its own batch. Without
# run-time annotations (ANNOTATE=1 adds dagsched.io/runtime to the urgent tasks; the batch never
# has them): dagsched knows the
# urgent run times from a warm-up run (learned run times) and nothing of the batch's; the local
# kubelet takes them from the `sleep` argument, which dagsched does not read. kube-scheduler calls
# the extender as the chart configures it (HTTPS, tests/common/extender-scheduler-config.yaml). A
# kube-scheduler's extenders serve all its profiles, so the default scheduler's pods pass through
# it too, as pods outside any DAG (fit and packing scores; dagsched's room holds bind only their
# own namespace): on pools of two nodes with one pod per node, that changes no placement of theirs.
# Prints one line per engine, seed, offset and mode: the urgent makespan, whether it met its
# deadline, the evictions (dagsched's, or kube-scheduler's preemptions), the batch's outcome and
# the work lost (seconds its evicted pods had run). A benchmark: it prints figures, it judges
# nothing.
# Usage: bench/urgent/run.sh EXTENDER CONTROLLER
#   OFFSETS="0 10 30", ENGINES="argo jobs", SEEDS="1" (space-separated) select; ANNOTATE=1;
#   KEEP_LOGS=DIR keeps the logs and each scenario's Events.
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
ENGINES="${ENGINES:-argo jobs}"
SEEDS="${SEEDS:-1}"

EXT_PORT="$(free_port)"
ADM_PORT="$(free_port)"
CTL_PORT="$(free_port)"
# KEEP_LOGS=DIR: the components' logs and each scenario's pods and Events are copied to DIR at
# the end (the cluster's run directory goes with the cluster).
keep_logs() {
  stop_components
  if [[ -n "${KEEP_LOGS:-}" ]]; then mkdir -p "$KEEP_LOGS" && cp -r "$LOGDIR"/. "$KEEP_LOGS"/; fi
}
trap keep_logs EXIT

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

# The seed's durations (bash's RANDOM seeded): CRUNCH[i], the batch's four long tasks, 45-75 s;
# STEP, each urgent task, 4-6 s.
seed_durations() {
  RANDOM=$1
  CRUNCH=()
  for i in 0 1 2 3; do CRUNCH[i]=$((45 + RANDOM % 31)); done
  STEP=$((4 + RANDOM % 3))
}

# ---- engine argo: one Workflow per workload
argo_batch_yaml() {
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
          - name: crunch
            template: long
            depends: split
            arguments: {parameters: [{name: secs, value: "{{item}}"}]}
            withItems: [${CRUNCH[0]}, ${CRUNCH[1]}, ${CRUNCH[2]}, ${CRUNCH[3]}]
          - {name: reduce, template: short, depends: crunch}
    - name: long
      inputs: {parameters: [{name: secs}]}
      retryStrategy: {limit: 2, retryPolicy: Always}
      container:
        image: busybox
        command: [sleep]
        args: ["{{inputs.parameters.secs}}"]
        resources: {requests: {cpu: "4"}}
    - name: short
      container: {image: busybox, command: [sleep], args: ["1"], resources: {requests: {cpu: "4"}}}
YAML
}

argo_urgent_yaml() {
  local meta="" prio=""
  [[ "${ANNOTATE:-0}" == 1 ]] && meta="metadata: {annotations: {dagsched.io/runtime: \"${STEP}s\"}}"
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
      container: {image: busybox, command: [sleep], args: ["$STEP"], resources: {requests: {cpu: "4"}}}
YAML
}

argo_start() { # MODE WORKLOAD: STARTED is the Workflow's name
  STARTED="$("argo_$2_yaml" "$1" | K -n "u-$1" create -o name -f - | sed 's|.*/||')"
}
argo_phase() { K -n "u-$1" get workflow "$2" -o jsonpath='{.status.phase}' 2>/dev/null; }
argo_finished() { [[ "$(argo_phase "$1" "$2")" =~ ^(Succeeded|Failed|Error)$ ]]; }
argo_makespan() {
  K -n "u-$1" get workflow "$2" -o json | jq -r '
    if .status.finishedAt == null then "-" else
    ((.status.finishedAt | fromdateiso8601) - (.metadata.creationTimestamp | fromdateiso8601)) end'
}
argo_lost_work() {
  K -n "u-$1" get workflow "$2" -o json | jq -r '[.status.nodes[]? | select(.type == "Pod" and
    (.phase == "Error" or .phase == "Failed") and .startedAt != null and .finishedAt != null) |
    ((.finishedAt | fromdateiso8601) - (.startedAt | fromdateiso8601))] | add // 0'
}
argo_running() {
  [[ "$(K -n "u-$1" get pods -l "workflows.argoproj.io/workflow=$2" \
    --field-selector=status.phase=Running -o name | grep -c .)" -ge 2 ]]
}
argo_cleanup() { K -n "u-$1" delete workflows --all --wait=true >/dev/null; }

# ---- engine jobs: one batch/v1 Job per task, as a user without a workflow engine writes them.
# Under dagsched the Jobs of a workload are created at once, downstream first (one `kubectl create
# -f` of a file that lists them so), and the pods say their job, task and upstream tasks; the
# admission webhook gates them and the controller releases them in order. Under the default
# scheduler nothing orders them, so the bench drives them as a user's script would: each level's
# Jobs once the level before has completed. Every Job retries its pods (backoffLimit 2) and
# ignores evictions (podFailurePolicy on DisruptionTarget), as docs/controller.md asks of Jobs.
# A level is "task:seconds:upstream,upstream ..." separated by spaces.
jobs_levels() { # WORKLOAD: one level per line
  if [[ "$1" == batch ]]; then
    echo "split:1:"
    echo "crunch-0:${CRUNCH[0]}:split crunch-1:${CRUNCH[1]}:split crunch-2:${CRUNCH[2]}:split crunch-3:${CRUNCH[3]}:split"
    echo "reduce:1:crunch-0,crunch-1,crunch-2,crunch-3"
  else
    echo "prep:$STEP:"
    echo "compute:$STEP:prep"
    echo "publish:$STEP:compute"
  fi
}
jobs_count() { [[ "$1" == batch ]] && echo 6 || echo 3; }

job_yaml() { # MODE WORKLOAD TASK SECONDS UPSTREAM
  local labels="bench/workload: $2" ann="" prio=""
  if [[ "$1" == dagsched ]]; then
    labels="$labels, dagsched.io/job: $2, dagsched.io/task: $3"
    [[ -n "$5" ]] && ann="dagsched.io/depends-on: \"$5\""
    [[ "$2" == urgent ]] && ann="${ann:+$ann, }dagsched.io/deadline-after: \"${DEADLINE}s\""
  fi
  [[ "$2" == urgent && "${ANNOTATE:-0}" == 1 ]] && ann="${ann:+$ann, }dagsched.io/runtime: \"${4}s\""
  [[ "$2" == urgent && "$1" == priority ]] && prio="priorityClassName: urgent-bench"
  cat <<YAML
---
apiVersion: batch/v1
kind: Job
metadata: {name: $2-$3, labels: {bench/workload: $2}}
spec:
  backoffLimit: 2
  podFailurePolicy:
    rules: [{action: Ignore, onPodConditions: [{type: DisruptionTarget, status: "True"}]}]
  template:
    metadata:
      labels: {$labels}
      annotations: {$ann}
    spec:
      schedulerName: $(sched_of "$1")
      nodeSelector: {bench/pool: $1}
      $prio
      restartPolicy: Never
      containers:
        - {name: main, image: busybox, command: [sleep], args: ["$4"], resources: {requests: {cpu: "4"}}}
YAML
}
level_yaml() { # MODE WORKLOAD LEVEL
  local t
  for t in $3; do
    IFS=: read -r name secs deps <<<"$t"
    job_yaml "$1" "$2" "$name" "$secs" "${deps//,/, }"
  done
}
jobs_of() { K -n "u-$1" get jobs -l "bench/workload=$2" -o json; }
jobs_done() { # MODE WORKLOAD N: N Jobs of the workload have completed, or one has failed
  jobs_of "$1" "$2" | jq -e --argjson n "$3" '[.items[] | .status.conditions[]? |
    select(.status == "True") | .type] | (map(select(. == "Failed")) | length > 0) or
    (map(select(. == "Complete")) | length >= $n)' >/dev/null
}
drive() { # MODE WORKLOAD: a user's script, level after level
  local level n=0
  while read -r level; do
    level_yaml "$1" "$2" "$level" | K -n "u-$1" create -f - >/dev/null
    n=$((n + $(wc -w <<<"$level")))
    wait_until 900 jobs_done "$1" "$2" "$n" || return 0
    jobs_of "$1" "$2" | jq -e '[.items[].status.conditions[]? | select(.type == "Failed" and
      .status == "True")] | length == 0' >/dev/null || return 0
  done < <(jobs_levels "$2")
}
jobs_start() { # MODE WORKLOAD: STARTED is the workload's name
  STARTED="$2"
  if [[ "$1" == dagsched ]]; then
    jobs_levels "$2" | tac | while read -r level; do level_yaml "$1" "$2" "$level"; done |
      K -n "u-$1" create -f - >/dev/null
  else
    drive "$1" "$2" >/dev/null 2>&1 &
    DRIVERS+=($!)
  fi
}
wait_drivers() { if ((${#DRIVERS[@]} > 0)); then wait "${DRIVERS[@]}" || true; fi; }
jobs_finished() { jobs_done "$1" "$2" "$(jobs_count "$2")"; }
jobs_phase() {
  jobs_of "$1" "$2" | jq -r --argjson n "$(jobs_count "$2")" '[.items[] | .status.conditions[]? |
    select(.status == "True") | .type] | if index("Failed") != null then "Failed"
    elif (map(select(. == "Complete")) | length) >= $n then "Succeeded" else "Running" end'
}
jobs_makespan() {
  jobs_of "$1" "$2" | jq -r --argjson n "$(jobs_count "$2")" '
    if ([.items[] | select(.status.completionTime != null)] | length) < $n then "-" else
    ([.items[].status.completionTime | fromdateiso8601] | max) -
    ([.items[].metadata.creationTimestamp | fromdateiso8601] | min) end'
}
# The seconds the workload's evicted pods had run: from each eviction Event (dagsched's
# DagschedEvicted, kube-scheduler's Preempted) back to the pod's Scheduled Event (kwok starts a
# pod within a second of its binding).
jobs_lost_work() {
  K -n "u-$1" get events -o json | jq -r --arg w "$2-" '
    def t: (.eventTime // .firstTimestamp // .lastTimestamp) | sub("\\.[0-9]+"; "") | fromdateiso8601;
    [.items[] | select(.involvedObject.name | startswith($w))] as $e |
    [$e[] | select(.reason == "Scheduled") | {key: .involvedObject.name, value: t}] | from_entries as $s |
    [$e[] | select(.reason == "DagschedEvicted" or .reason == "Preempted") |
      select($s[.involvedObject.name] != null) | t - $s[.involvedObject.name]] | add // 0'
}
jobs_running() {
  [[ "$(K -n "u-$1" get pods -l "bench/workload=$2" --field-selector=status.phase=Running \
    -o name | grep -c .)" -ge 2 ]]
}
jobs_cleanup() { K -n "u-$1" delete jobs --all --wait=true >/dev/null; }

evictions() {
  local reason=Preempted
  [[ "$1" == dagsched ]] && reason=DagschedEvicted
  K -n "u-$1" get events --field-selector "reason=$reason" -o name | grep -c . || true
}
no_pods() { [[ -z "$(K -n "u-$1" get pods -o name 2>/dev/null)" ]]; }
cleanup() { # ENGINE
  local m
  for m in "${MODES[@]}"; do "$1_cleanup" "$m"; done
  for m in "${MODES[@]}"; do
    K -n "u-$m" delete pods --all --wait=false >/dev/null 2>&1 || true
    wait_until 120 no_pods "$m" || true
  done
}

# Warm-up: the urgent job once on the empty cluster, so that dagsched knows its run times.
for engine in $ENGINES; do
  seed_durations "${SEEDS%% *}"
  DRIVERS=()
  declare -A warm=()
  for m in "${MODES[@]}"; do
    "${engine}_start" "$m" urgent
    warm[$m]="$STARTED"
  done
  for m in "${MODES[@]}"; do
    wait_until 180 "${engine}_finished" "$m" "${warm[$m]}" || echo "bench-urgent: warm-up $engine $m did not finish" >&2
  done
  wait_drivers
  unset warm
done
sleep 16 # the controller writes the learned run times at most every 15 s
for engine in $ENGINES; do cleanup "$engine"; done

printf '%-6s %-4s %-6s %-9s %9s %5s %6s %-10s %6s\n' engine seed offset mode urgent_s met evict batch lost_s
for engine in $ENGINES; do
  for seed in $SEEDS; do
    seed_durations "$seed"
    for off in $OFFSETS; do
      declare -A batch=() urgent=() due=()
      DRIVERS=()
      for m in "${MODES[@]}"; do K -n "u-$m" delete events --all >/dev/null 2>&1 || true; done
      # Each mode's urgent job right after its own batch job (offset 0), or OFFSET seconds after
      # its own batch's long tasks run: no mode's batch is further along than another's when its
      # urgent job comes.
      for m in "${MODES[@]}"; do
        "${engine}_start" "$m" batch
        batch[$m]="$STARTED"
        if ((off == 0)); then
          "${engine}_start" "$m" urgent
          urgent[$m]="$STARTED"
        fi
      done
      t0=$SECONDS
      while ((${#urgent[@]} < ${#MODES[@]})); do
        for m in "${MODES[@]}"; do
          [[ -n "${urgent[$m]:-}" ]] && continue
          if [[ -z "${due[$m]:-}" ]] && { "${engine}_running" "$m" "${batch[$m]}" ||
            ((SECONDS - t0 > 120)); }; then
            due[$m]=$((SECONDS + off))
          fi
          if [[ -n "${due[$m]:-}" ]] && ((SECONDS >= due[$m])); then
            "${engine}_start" "$m" urgent
            urgent[$m]="$STARTED"
          fi
        done
        ((${#urgent[@]} == ${#MODES[@]})) || sleep 0.5
      done
      for m in "${MODES[@]}"; do wait_until 400 "${engine}_finished" "$m" "${urgent[$m]}" || true; done
      for m in "${MODES[@]}"; do wait_until 600 "${engine}_finished" "$m" "${batch[$m]}" || true; done
      wait_drivers
      for m in "${MODES[@]}"; do
        u="$("${engine}_makespan" "$m" "${urgent[$m]}")"
        met=no
        awk -v t="$u" -v d="$DEADLINE" 'BEGIN { exit !(t != "-" && t <= d) }' && met=yes
        printf '%-6s %-4s %-6s %-9s %9s %5s %6s %-10s %6s\n' "$engine" "$seed" "$off" "$m" "$u" \
          "$met" "$(evictions "$m")" "$("${engine}_phase" "$m" "${batch[$m]}")" \
          "$("${engine}_lost_work" "$m" "${batch[$m]}")"
        if [[ -n "${KEEP_LOGS:-}" ]]; then
          K -n "u-$m" get events -o wide >"$LOGDIR/events-$engine-$seed-$off-$m-$(date +%s).txt" 2>&1 || true
        fi
      done
      cleanup "$engine"
      unset batch urgent due
    done
  done
done
stop_components
K delete mutatingwebhookconfiguration dagsched-admission-bench >/dev/null 2>&1 || true

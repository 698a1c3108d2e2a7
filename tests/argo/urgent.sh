# shellcheck shell=bash
# urgent.sh: the scenario "urgent" of tests/argo/integration.sh (sourced, not run): an urgent
# Workflow submitted while a batch Workflow holds the whole cluster (two 4-cpu nodes).
#   batch    split -> crunch (4 items of `sleep 60`, 4 cpu each, retryStrategy retryPolicy Always)
#            -> reduce; no deadline. Two crunch items run, two wait.
#   urgent   (generateName urgent-) prep -> compute -> publish, `sleep 5` and 4 cpu each, no
#            run-time annotation, dagsched.io/deadline-after 60s. A first run on the empty
#            cluster teaches the controller its run times (lib/runtime_history.h; persisted in the
#            ConfigMap dagsched-runtime-history); the second is submitted 10 s after the first
#            crunch items started. Without an eviction its first task would wait about 50 s for
#            room and the job would miss its deadline; without learned run times each task would
#            count 60 s and the job would look lost (no eviction for a lost deadline).
# Passes when the urgent Workflow succeeds within its 60 s deadline, its first task got room by
# an eviction at once (the eviction names the room forecast: predictive urgency, learned run
# times), that one eviction was enough (the room passes on: while Argo has not yet created the
# next urgent task, it is an upcoming task and the release rule keeps the room its upstream freed,
# lib/upcoming.h), and the batch Workflow ends Succeeded (the evicted item was retried by Argo).
# Before upcoming tasks, a batch item took that room first and each later urgent task waited for
# a victim past minRunTime: 2-3 evictions, and the deadline missed in three of four full CI runs
# (81-130 s).
# Policy: policies/demo.yaml's preemption guards (minRunTime 10s), as `make demo` installs, with
# the default look-ahead (2 tasks released ahead of room): kube-scheduler calls the extender, whose
# filter keeps the tasks already released to kube-scheduler off the room held for a preemptor
# (dagsched.io/reserved-node) and off the room an upcoming task's upstream freed
# (lib/room_hold.h).
# Needs: K, NS, INSTALL_NS, ROOT, check, wait_until, apply_policy, and wf_phase of the suite.

# urgent_batch_yaml NAME: the batch Workflow.
urgent_batch_yaml() {
  cat <<YAML
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata: {name: $1}
spec:
  entrypoint: main
  schedulerName: dagsched
  templates:
    - name: main
      dag:
        tasks:
          - {name: split, template: short}
          - {name: crunch, template: long, depends: split, withItems: [0, 1, 2, 3]}
          - {name: reduce, template: short, depends: crunch}
    - name: long
      retryStrategy: {limit: 2, retryPolicy: Always}
      container:
        image: busybox
        command: [sleep]
        args: ["60"]
        resources: {requests: {cpu: "4"}}
    - name: short
      container:
        image: busybox
        command: [sleep]
        args: ["1"]
        resources: {requests: {cpu: "4"}}
YAML
}

# urgent_wf_yaml GENERATE_NAME DEADLINE_AFTER: the urgent Workflow; no run-time annotation.
urgent_wf_yaml() {
  cat <<YAML
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata:
  generateName: $1
  annotations: {dagsched.io/deadline-after: "$2"}
spec:
  entrypoint: main
  schedulerName: dagsched
  templates:
    - name: main
      dag:
        tasks:
          - {name: prep, template: step}
          - {name: compute, template: step, depends: prep}
          - {name: publish, template: step, depends: compute}
    - name: step
      container:
        image: busybox
        command: [sleep]
        args: ["5"]
        resources: {requests: {cpu: "4"}}
YAML
}

# wf_seconds NAME: seconds from the Workflow's creation to its end ("" while it runs).
wf_seconds() {
  K -n "$NS" get workflow "$1" -o json | jq -r '
    if .status.finishedAt == null then "" else
    ((.status.finishedAt | fromdateiso8601) - (.metadata.creationTimestamp | fromdateiso8601)) end'
}
wf_finished() { [[ "$(wf_phase "$1")" == Succeeded || "$(wf_phase "$1")" == Failed || "$(wf_phase "$1")" == Error ]]; }
running_crunch() {
  [[ "$(K -n "$NS" get pods -l workflows.argoproj.io/workflow=batch \
    --field-selector=status.phase=Running -o name | grep -c .)" -ge 2 ]]
}

learned_prep() {
  K -n "$INSTALL_NS" get configmap dagsched-runtime-history -o jsonpath='{.data.history\.tsv}' |
    grep -q "^$NS/urgent-/prep	"
}

scenario_urgent() {
  apply_policy "$INSTALL_NS" "      deadlines: {urgentThreshold: 30s}
      preemption: {enabled: true, epoch: 5s, minRunTime: 10s, cooldown: 1m, maxVictimsPerPreemptor: 1,
                   maxEvictionsPerNode: 1, maxEvictionsPerNamespace: 10, maxEvictionsPerMinute: 10}"
  local warm urgent
  warm="$(urgent_wf_yaml urgent- 10m | K -n "$NS" create -o name -f -)"
  warm="${warm#*/}"
  check "a first urgent Workflow runs alone to Succeeded" wait_until 120 wf_done "$warm"
  check "... and the controller learned and stored its run times" wait_until 60 learned_prep
  urgent_batch_yaml batch | K -n "$NS" create -f - >/dev/null
  check "the batch Workflow fills the cluster" wait_until 60 running_crunch
  sleep 10
  urgent="$(urgent_wf_yaml urgent- 60s | K -n "$NS" create -o name -f -)"
  urgent="${urgent#*/}"
  check "the urgent Workflow runs to Succeeded" wait_until 150 wf_finished "$urgent"
  local took evicted
  took="$(wf_seconds "$urgent")"
  echo "  urgent Workflow: $(wf_phase "$urgent") in ${took:-?} s (deadline 60 s)" >&2
  local first
  first="$(K -n "$NS" get events --field-selector reason=DagschedEvicted -o jsonpath='{range .items[*]}{.message}{"\n"}{end}' |
    grep -c "urgent: room would" || true)"
  check "room was made at once, by the room forecast (predictive urgency): $first eviction(s) say so" \
    test "$first" -ge 1
  evicted="$(K -n "$NS" get events --field-selector reason=DagschedEvicted -o name | grep -c . || true)"
  echo "  evictions: $evicted" >&2
  check "one eviction made room for the whole urgent job: upcoming tasks kept it ($evicted)" \
    test "$evicted" -eq 1
  check "the urgent Workflow met its 60 s deadline (${took:-?} s)" test "${took:-999}" -le 60
  check "the batch Workflow ends Succeeded: Argo retried its evicted item" \
    wait_until 400 wf_finished batch
  check "... Succeeded (got $(wf_phase batch))" test "$(wf_phase batch)" = Succeeded
}

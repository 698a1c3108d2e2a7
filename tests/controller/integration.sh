#!/usr/bin/env bash
# integration.sh: the controller's integration suite, run by `make controller-integration-test`
# against a real local control plane (hack/cluster/with-cluster.sh: kube-apiserver, kube-scheduler,
# kube-controller-manager, kwok) with two 4-cpu nodes (tests/controller/nodes.tsv).
#
# Scenarios, each in namespaces of its own, with the controller started for it:
#   dag-order     a three-level DAG job runs to completion in dependency order: no task starts
#                 before its upstream tasks succeeded, and each release is reported by an Event
#   releaser      the release window (controller/releaser.h) on its own: the program
#                 tests/controller/prog_releaser_itest.c releases real gated pods through a fault
#                 proxy that delays every answer by 50 ms: at once and never more than the window in
#                 flight, one PATCH each (read back), failures, not leading, stop, the rate limit;
#                 it ends once its namespace is gone with the pods it left gated (the next
#                 scenario's controller would remove their gates, a PATCH each)
#   release-writes  each release is one PATCH request (the gate removed and dagsched.io/released-at
#                 set together), counted by the controller's own request metric; a pod whose
#                 annotations are at the API server's 256 KiB limit, which refuses released-at,
#                 is released all the same by a second request, the gate alone
#   urgent        a full cluster of low-priority Job pods and an urgent deadline Job: exactly the
#                 lowest-priority pod is evicted, the urgent pod is then scheduled, Events explain
#                 both, and the ledger, annotations and metrics record it
#   rho           a waiting task only slightly above a running one (normalised gap <= rho) evicts
#                 nothing; with rho = 0 it evicts one pod, for reason "priority"
#   protections   an ancestor of a waiting urgent task, a PDB-protected pod and a pod in a
#                 protected namespace are never evicted; the only eligible pod is
#   affinity      an urgent pod whose required node affinity only ctl-node-2 satisfies: the
#                 lowest-priority pods run on ctl-node-1, yet the one eviction is on ctl-node-2
#   namespace-selector  with spec.preemption.namespaceSelector, the lowest-priority pods, in a
#                 namespace without the label, are never evicted; the lowest-priority pod of the
#                 labelled namespace is, and the guard shows in the metrics and the log
#   invalid-pod   a gated DAG pod whose dagsched.io/depends-on is 200 KB (over dagsched's 64 KiB,
#                 within the API server's 256 KiB): the controller removes its gate, it is
#                 scheduled, and it gets one InvalidPodMetadata Event naming the field and the limit; the
#                 same for a pod over each other class of bound (1,100 tolerations, a 300-entry
#                 nodeSelector, 1,101 scheduling gates, 1,030 containers, 70 affinity terms, 300
#                 labels, 300 dagsched.io/ annotations)
#   owner-retry   the lowest-priority pod's Job has backoffLimit 0: the urgent task evicts the
#                 next-lowest pod (its Job has retries left) instead, and no Job fails
#   dry-run       --dry-run evicts nothing and reports what it would do (Events, metrics)
#   failover      two controllers, one leader; the leader is killed, the other takes over within
#                 the lease duration and does not repeat the eviction already made
#   apiserver     kube-apiserver restarted during operation: no wrong eviction, work resumes
#   cascade       an urgent task evicts the only opted-in pod, whose deadline task's replacement
#                 is then urgent itself; another pod opted in afterwards is not evicted for it
#                 within the cooldown: a victim's replacement never evicts others
#   tenants       a full namespace; a task whose deadline passed an hour ago and an urgent task
#                 of another namespace at equal Kubernetes priority evict nothing (both counted
#                 as urgent); an urgent task of the same namespace then evicts exactly one pod
#   replacement-failover  an urgent task evicts a deadline task; the leader is killed; under the
#                 new leader the victim's replacement (urgent itself) evicts nobody, and once it
#                 runs another urgent task does not evict it, within the cooldown
#   gated-urgent  an urgent task whose pod carries the gate, held by the release rule for lack of
#                 room, evicts exactly one pod and is released into the room it made
#   apiserver-eviction  kube-apiserver restarted right after an eviction made for a preemptor of
#                 the victims' priority: no second eviction for it
#   write-queue   with --write-qps 0.05 (one annotation write every 20 s), an urgent task's
#                 eviction is made and the urgent pod scheduled while DSP annotation writes are
#                 still queued: decisions never wait behind informational writes
#   uninstall     `dagsched-controller uninstall`: --objects-only waits for the release's pods,
#                 then deletes the named ConfigMaps and Leases (one never created is fine), deletes
#                 nothing while a pod stays, and exits 1 on a deletion its ServiceAccount may not
#                 make while still making the others; without it, removes dagsched's gate (other
#                 gates kept) and reports the pods and suspended Jobs it leaves
#   fairness      spec.fairness: one namespace floods the gate with ten jobs and alone fills the
#                 cluster; another namespace's task, with more work than each of the flood's, is
#                 released into the first room that frees, before every flood task still held
#                 when it arrived; the flood's held tasks say their tenant is above its fair
#                 share, and the metrics show both
#   gang          a gang of three gated 2-cpu pods (dagsched.io/gang, dagsched.io/gang-size: 3)
#                 while the free room holds two of them: none is released, every member keeps its
#                 gate and says "gang workers: room for 2 of 3 members; the room that frees is
#                 held for it"; once a running pod ends and the room holds three, the three are
#                 released in one round, each holding the room planned for it
#                 (dagsched.io/reserved-node), and start
# The binary under test is normally the sanitizer build (make controller-integration-test): every
# controller runs with AddressSanitizer (leaks checked at its graceful exit) and
# UndefinedBehaviorSanitizer, and a sanitizer report in any controller's log fails the suite.
# Usage: integration.sh BINARY RELEASER_PROGRAM (prints "controller integration: N passed, M failed")
#        integration.sh --inside BINARY RELEASER_PROGRAM (run by with-cluster.sh)
#   RELEASER_PROGRAM: tests/controller/prog_releaser_itest.c built (scenario releaser)
# shellcheck disable=SC2317 # helpers are called through wait_until
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
SELF="$ROOT/tests/controller/integration.sh"
HERE="$ROOT/tests/controller"
# shellcheck source=tests/common/cluster_suite.sh
. "$ROOT/tests/common/cluster_suite.sh"

if [[ "${1:-}" != --inside ]]; then
  export NODE_PROFILE="$HERE/nodes.tsv"
  run_in_cluster "$SELF" 2 "$0 BINARY RELEASER_PROGRAM (executables)" "$@"
fi
BIN="$2"
RELEASER_PROG="$3"
LOGDIR="$CLUSTER_DIR/controller-logs"
mkdir -p "$LOGDIR"
SUITE=controller
SCENARIO=""
on_failure() { tail_logs 25 "$LOGDIR"/*.log; }

# ---- controllers
declare -A CTL_PIDS # NAME -> pid
start_ctl() { # NAME ARGS...
  local name="$1"
  shift
  # A name's earlier log is kept aside (NAME.log.1, .2, ...) for the sanitizer check at the end.
  if [[ -f "$LOGDIR/$name.log" ]]; then
    local n=1
    while [[ -e "$LOGDIR/$name.log.$n" ]]; do n=$((n + 1)); done
    mv "$LOGDIR/$name.log" "$LOGDIR/$name.log.$n"
  fi
  # The suite's pods run under the default scheduler: --scheduler-name= lets the controller act on
  # every scheduler's pods (by default it acts only on spec.schedulerName dagsched).
  env "${SANITIZER_ENV[@]}" "$BIN" --kubeconfig "$KUBECONFIG" --log-level debug --scheduler-name= "$@" >"$LOGDIR/$name.log" 2>&1 &
  CTL_PIDS[$name]=$!
}
stop_ctl() { # NAME [SIGNAL]
  stop_pid "${CTL_PIDS[$1]:-}" "${2:-}"
  unset "CTL_PIDS[$1]"
}
stop_all() {
  local n
  for n in "${!CTL_PIDS[@]}"; do stop_ctl "$n"; done
}
trap stop_all EXIT

metric() { metric_of "http://127.0.0.1:$1/metrics" "$2"; } # PORT NAME_WITH_LABELS

# ---- cluster objects
policy() { # key=value overrides of spec.preemption (YAML lines), e.g. "rho: 0"; with RELEASE set
  # (e.g. RELEASE="{lookahead: 0}") also spec.release, with FAIRNESS spec.fairness
  local extra="" l cooldown="cooldown: 60s"
  for l in "$@"; do
    if [[ "$l" == cooldown:* ]]; then cooldown="$l"; else extra+="        $l"$'\n'; fi
  done
  [[ -z "${RELEASE:-}" ]] || extra+="      release: $RELEASE"$'\n'
  [[ -z "${FAIRNESS:-}" ]] || extra+="      fairness: $FAIRNESS"$'\n'
  apply_policy dagsched-system "      preemption:
        epoch: 2s
        minRunTime: 0s
        $cooldown
        maxEvictionsPerNode: 1
        maxEvictionsPerMinute: 10
$extra"
}
job() { # NS NAME CPU RUNTIME [DEADLINE] [PRIORITY_CLASS] [LABEL k=v] [NODE_SELECTOR k=v]
  "$HERE/gen-jobs.sh" "$2" "$3" "$4" "${5:--}" "${6:--}" "${7:--}" "${8:--}" | K -n "$1" apply -f - >/dev/null
}
pod_of() { K -n "$1" get pods -l "job-name=$2" -o jsonpath='{.items[0].metadata.name}' 2>/dev/null; }
pod_uid() { K -n "$1" get pod "$2" -o jsonpath='{.metadata.uid}' 2>/dev/null; }
phase_of() { K -n "$1" get pod "$2" -o jsonpath='{.status.phase}' 2>/dev/null; }
running_count() { K -n "$1" get pods --field-selector=status.phase=Running -o name 2>/dev/null | wc -l; }
all_running() { [[ "$(running_count "$1")" -ge "$2" ]]; }
events() { # NS REASON -> "object<TAB>message" lines
  K -n "$1" get events --sort-by=.lastTimestamp --field-selector "reason=$2" \
    -o jsonpath='{range .items[*]}{.involvedObject.name}{"\t"}{.message}{"\n"}{end}' 2>/dev/null
}
event_count() { events "$1" "$2" | grep -c . || true; }
has_events() { [[ "$(event_count "$1" "$2")" -ge "${3:-1}" ]]; }
fresh_ns() {
  local ns
  for ns in "$@"; do
    K delete namespace "$ns" --ignore-not-found --wait=true >/dev/null 2>&1 || true
    K create namespace "$ns" >/dev/null
  done
}
# Empty the cluster of the scenarios' pods (capacity must be free for the next one).
cleanup() {
  stop_all
  check "no dependency edge was violated" \
    env KUBECTL="$KUBECTL" python3 "$ROOT/tests/common/check_edges.py" --quiet "${@/#/--namespace=}"
  local ns
  for ns in "$@"; do K delete namespace "$ns" --ignore-not-found --wait=true >/dev/null 2>&1 || true; done
  K -n kube-system delete jobs -l dagsched-test=1 --wait=true >/dev/null 2>&1 || true
  wait_until 60 bash -c "[[ -z \"\$($KUBECTL get pods -A -l dagsched.io/job -o name 2>/dev/null)\" ]]" || true
  K -n dagsched-system delete configmap dagsched-controller-evictions --ignore-not-found >/dev/null
}
# Fill both nodes with four 2-cpu Jobs of one task each, running TIMES (e.g. 2h 3h 4h 5h): the
# longest remaining run time has the lowest DSP priority.
fill() { # NS RUNTIME...
  local ns="$1" rt
  shift
  for rt in "$@"; do job "$ns" "low-$rt" 2 "$rt"; done
  wait_until 60 all_running "$ns" "$#"
}

K create namespace dagsched-system >/dev/null 2>&1 || true
# Urgent work runs at a higher Kubernetes priority without kube-scheduler preemption
# (preemptionPolicy: Never): the controller decides evictions, and once the room is free
# kube-scheduler places the urgent pod before the victim's replacement (docs/controller.md).
K apply -f - >/dev/null <<EOF
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: dagsched-urgent}
value: 1000
preemptionPolicy: Never
description: deadline work whose preemption the dagsched controller decides
EOF

# ------------------------------------------------------------------------------------------------
scenario_dag_order() {
  SCENARIO=dag-order
  fresh_ns dag
  policy
  start_ctl main --leader-elect=false --metrics-listen 127.0.0.1:18101
  K -n dag apply -f "$HERE/manifests/dag-3-levels.yaml" >/dev/null
  all_done() { [[ "$(K -n dag get pods --field-selector=status.phase=Succeeded -o name | wc -l)" -eq 4 ]]; }
  check "the four tasks succeed" wait_until 90 all_done
  # start of each task >= finish of each of its upstream tasks
  local json order_ok=1 t u
  json="$(K -n dag get pods -o json)"
  start_of() { jq -r --arg n "$1" '.items[] | select(.metadata.name==$n) | .status.startTime' <<<"$json"; }
  end_of() { jq -r --arg n "$1" '.items[] | select(.metadata.name==$n) | [.status.containerStatuses[].state.terminated.finishedAt] | max' <<<"$json"; }
  for pair in etl-clean:etl-extract etl-enrich:etl-extract etl-report:etl-clean etl-report:etl-enrich; do
    t="${pair%%:*}" u="${pair#*:}"
    if [[ ! "$(start_of "$t")" > "$(end_of "$u")" && "$(start_of "$t")" != "$(end_of "$u")" ]]; then
      echo "  $t started at $(start_of "$t"), before $u finished at $(end_of "$u")" >&2
      order_ok=0
    fi
  done
  check "no task started before its upstream tasks succeeded" test "$order_ok" = 1
  check "each gated task was released once, with an Event" test "$(event_count dag Released)" = 3
  check "the release Event names the upstream tasks" \
    bash -c "$(declare -f events); K() { \"$KUBECTL\" \"\$@\"; }; events dag Released | grep -q 'etl-report.*upstream tasks (clean, enrich) have succeeded'"
  check "released pods are annotated" \
    test -n "$(K -n dag get pod etl-report -o jsonpath='{.metadata.annotations.dagsched\.io/released-at}')"
  check "releases are counted in the metrics" test "$(metric 18101 'dagsched_controller_releases_total{kind="pod"}')" = 3
  dag_finished() { [[ "$(metric 18101 'dagsched_controller_jobs_finished_total{namespace="dag",outcome="no_deadline"}')" == 1 ]]; }
  check "the finished job is counted once in the outcome metrics" wait_until 20 dag_finished
  check "... with its makespan" test "$(metric 18101 dagsched_controller_job_makespan_seconds_count)" = 1
  check "each task's wait is observed once, from creation and from readiness" \
    test "$(metric 18101 'dagsched_controller_task_wait_seconds_count{from="created"}'):$(metric 18101 'dagsched_controller_task_wait_seconds_count{from="ready"}')" = 4:4
  check "the build is labelled in the metrics" \
    bash -c "curl -s http://127.0.0.1:18101/metrics | grep '^dagsched_controller_build_info{version=\"[0-9]' >/dev/null"
  check "the process's own figures are in the metrics (resident memory, descriptors, CPU time)" \
    awk -v r="$(metric 18101 process_resident_memory_bytes)" -v f="$(metric 18101 process_open_fds)" \
    -v c="$(metric 18101 process_cpu_seconds_total)" 'BEGIN { exit !(r > 1e6 && f >= 3 && c > 0) }'
  cleanup dag
}

# ------------------------------------------------------------------------------------------------
# A DAG job "full" of two pods: a (1 s), then b, gated, whose annotations total 262,134 bytes: 10
# under the API server's limit (262,144, keys and values), 50 short of what dagsched.io/released-at
# (23 bytes of key, 27 of value) needs.
full_job() { # NS
  python3 - "$1" <<'PY'
import json, sys
ns = sys.argv[1]
def pod(task, ann, gated):
    spec = {"restartPolicy": "Never",
            "containers": [{"name": "main", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}]}
    if gated:
        spec["schedulingGates"] = [{"name": "dagsched.io/dependencies"}]
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "full-" + task, "namespace": ns,
                         "labels": {"dagsched.io/job": "full", "dagsched.io/task": task},
                         "annotations": ann}, "spec": spec}
ann = {"dagsched.io/runtime": "1s", "dagsched.io/depends-on": "a"}
used = sum(len(k) + len(v) for k, v in ann.items()) + len("example.com/filler")
ann["example.com/filler"] = "x" * (262144 - 10 - used)
assert sum(len(k) + len(v) for k, v in ann.items()) == 262134
print(json.dumps({"apiVersion": "v1", "kind": "List",
                  "items": [pod("a", {"dagsched.io/runtime": "1s"}, False), pod("b", ann, True)]}))
PY
}
# The release window's program: each of its "ok"/"FAIL" lines is a check of the suite.
scenario_releaser() {
  SCENARIO=releaser
  local log="$LOGDIR/releaser.log" rc=0 line
  env "${SANITIZER_ENV[@]}" timeout 120 "$RELEASER_PROG" >"$log" 2>&1 || rc=$?
  while IFS= read -r line; do
    case "$line" in
    "ok    "*) pass "${line#ok    }" ;;
    "FAIL  "*) failed "${line#FAIL  }" ;;
    esac
  done <"$log"
  check "the program ended with status 0 (got $rc; log $log)" test "$rc" -eq 0
}
scenario_release_writes() {
  SCENARIO=release-writes
  fresh_ns rw
  policy
  # No waiting-reason or DSP annotation writes: the controller's only PATCH requests are releases.
  start_ctl main --leader-elect=false --metrics-listen 127.0.0.1:18119 --max-annotation-updates 0
  K -n rw create -f "$HERE/manifests/dag-3-levels.yaml" >/dev/null
  rw_done() { [[ "$(K -n rw get pods --field-selector=status.phase=Succeeded -o name | wc -l)" -eq "$1" ]]; }
  check "the four tasks succeed" wait_until 90 rw_done 4
  local patches
  patches="$(metric 18119 'dagsched_controller_api_requests_total{verb="PATCH"}')"
  # A gated pod left by an earlier scenario would cost a PATCH of its own: its gate is removed as
  # a pod outside any DAG job, counted apart (kind="outside_dag").
  check "three releases, one PATCH request each: the gate and released-at in one (got $patches; gates of pods outside any DAG job removed: $(metric 18119 'dagsched_controller_releases_total{kind="outside_dag"}'))" \
    test "$(metric 18119 'dagsched_controller_releases_total{kind="pod"}'):$patches" = 3:3
  check "... and the pods carry released-at" \
    test -n "$(K -n rw get pod etl-report -o jsonpath='{.metadata.annotations.dagsched\.io/released-at}')"
  full_job rw | K create -f - >/dev/null
  full_bound() { [[ -n "$(K -n rw get pod full-b -o jsonpath='{.spec.nodeName}' 2>/dev/null)" ]]; }
  check "a pod whose annotations cannot take released-at is released all the same" wait_until 60 full_bound
  patches="$(metric 18119 'dagsched_controller_api_requests_total{verb="PATCH"}')"
  check "... by two requests: the refused one, then the gate alone (PATCH requests $patches)" \
    test "$(metric 18119 'dagsched_controller_releases_total{kind="pod"}'):$patches" = 4:5
  check "... without the annotation, and the log says why" \
    bash -c "[[ -z \"\$($KUBECTL -n rw get pod full-b -o jsonpath='{.metadata.annotations.dagsched\.io/released-at}')\" ]] && grep -q 'full-b: released without annotation dagsched.io/released-at: .*422' '$LOGDIR/main.log'"
  cleanup rw
}

# ------------------------------------------------------------------------------------------------
scenario_urgent() {
  SCENARIO=urgent
  fresh_ns low
  policy
  # JSON logs here: the eviction's line carries its objects as fields of their own.
  start_ctl main --leader-elect=false --metrics-listen 127.0.0.1:18102 --log-format json
  fill low 2h 3h 4h 5h
  local victim victim_uid others
  victim="$(pod_of low low-5h)"
  victim_uid="$(pod_uid low "$victim")"
  others="$(for j in 2h 3h 4h; do pod_uid low "$(pod_of low "low-$j")"; echo; done)"
  job low urgent 2 10s "$(deadline_in 40)" dagsched-urgent
  local urgent
  wait_until 10 test -n "$(pod_of low urgent)" || true
  urgent="$(pod_of low urgent)"
  check "the urgent pod is scheduled" wait_until 40 bash -c "[[ \$($KUBECTL -n low get pod $urgent -o jsonpath='{.spec.nodeName}') != '' ]]"
  check "exactly one pod was evicted" test "$(event_count low DagschedEvicted)" = 1
  check "the victim is the lowest-priority pod (the 5h job's)" bash -c "! $KUBECTL -n low get pod $victim -o jsonpath='{.metadata.uid}' 2>/dev/null | grep -q $victim_uid"
  local o
  for o in $others; do
    check "higher-priority pod $o still runs" bash -c "$KUBECTL -n low get pods -o jsonpath='{.items[*].metadata.uid}' | grep -q $o"
  done
  check "the victim's Event names the preemptor and the reason" \
    bash -c "$(declare -f events); K() { \"$KUBECTL\" \"\$@\"; }; events low DagschedEvicted | grep -q \"^$victim.*to make room for low/$urgent (urgent: its slack\""
  check "the preemptor's Event names the victim" \
    bash -c "$(declare -f events); K() { \"$KUBECTL\" \"\$@\"; }; events low DagschedEvicting | grep -q \"^$urgent.*Evicting low/$victim\""
  check "the eviction is in the ledger" \
    bash -c "$KUBECTL -n dagsched-system get configmap dagsched-controller-evictions -o jsonpath='{.data.evictions}' | grep -q '\"victimUID\":\"$victim_uid\".*\"result\":\"evicted\"'"
  check "the eviction is counted in the metrics" test "$(metric 18102 'dagsched_controller_evictions_total{result="evicted",reason="urgent"}')" = 1
  # kube-scheduler found the urgent pod Unschedulable: the controller decided at once, without
  # waiting for --min-round-interval (controller/cadence.h).
  check "the Unschedulable urgent pod started a round at once" \
    test "$(metric 18102 dagsched_controller_urgent_rounds_total)" -ge 1
  check "the eviction's JSON log line names pod, namespace, job, task, node and reason" \
    bash -c "grep '^{' '$LOGDIR/main.log' | jq -c --arg p '$victim' 'select(.component==\"evict\" and (.msg|startswith(\"evicted \")) and .pod==\$p and .namespace==\"low\" and .job==\"low-5h\" and .task==\"main\" and .reason==\"urgent\" and (.node|length)>0)' | grep -q ."
  check "running tasks carry their DSP priority and slack" \
    test -n "$(K -n low get pod "$(pod_of low low-2h)" -o jsonpath='{.metadata.annotations.dagsched\.io/priority}')"
  # The urgent job runs 10 s and meets its deadline: the eviction made for it paid, which the
  # yield metrics count when the job finishes (job level and task level).
  urgent_paid() { [[ "$(metric 18102 'dagsched_controller_evictions_for_finished_jobs_total{outcome="deadline_met"}')" == 1 ]]; }
  check "the eviction is counted as paid when the urgent job met its deadline" wait_until 40 urgent_paid
  check "... and its task as finished by its level deadline" \
    test "$(metric 18102 'dagsched_controller_evictions_for_finished_tasks_total{outcome="level_deadline_met"}')" = 1
  # No second eviction while the cooldown lasts, even though the victim's Job recreated it.
  check "no further eviction" test "$(event_count low DagschedEvicted)" = 1
  cleanup low
}

# ------------------------------------------------------------------------------------------------
scenario_rho() {
  SCENARIO=rho
  fresh_ns rho
  # The paper's normalisation (P_bar), no queue order and the paper's urgency (slack within
  # epsilon; no room forecast, no exchange rule): this scenario is about rho.
  policy "delta: 1" "rho: 1.5" "normalisation: paper" "queueOrder: false" "payoff: false"
  start_ctl main --leader-elect=false --metrics-listen 127.0.0.1:18103
  fill rho 1h 1h1s 1h2s 1h3s
  # A task of very high priority that fits nowhere widens the priority range (P_bar) ...
  job rho giant 100 1s
  # ... so that a waiting task only slightly above the running ones (same run time; ten minutes
  # of slack: not urgent, and only a preemptor with a deadline has lateness to save) has a
  # normalised gap well below rho.
  job rho waiter 2 1h "$(deadline_in 4200)"
  sleep 12
  check "rho 1.5: no eviction for a small normalised gap" test "$(event_count rho DagschedEvicted)" = 0
  check "rho 1.5: the controller saw the waiting tasks" grep -q "2 waiting" "$LOGDIR/main.log"
  policy "delta: 1" "rho: 0" "normalisation: paper" "queueOrder: false" "payoff: false"
  check "rho 0: the waiting task evicts a running one" wait_until 20 has_events rho DagschedEvicted
  # (Without the gap test every replacement pod may evict the next one: that thrashing is what
  # rho prevents, so only the first eviction is checked.)
  check "rho 0: the first eviction is for the waiting task, reason priority" \
    bash -c "$(declare -f events); K() { \"$KUBECTL\" \"\$@\"; }; events rho DagschedEvicted | head -n 1 | grep -q 'rho/$(pod_of rho waiter) (priority: its DSP priority'"
  cleanup rho
}

# ------------------------------------------------------------------------------------------------
scenario_protections() {
  SCENARIO=protections
  fresh_ns prot
  policy
  start_ctl main --leader-elect=false --metrics-listen 127.0.0.1:18104
  # Lowest priorities first: a pod in kube-system (protected), a pod covered by a PDB that allows
  # no disruption, and the upstream task of a DAG job whose downstream task is urgent.
  "$HERE/gen-jobs.sh" sys-low 2 10h - - dagsched-test=1 | K -n kube-system apply -f - >/dev/null
  job prot guarded 2 9h - - app=guarded
  K -n prot apply -f - >/dev/null <<EOF
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: guarded}
spec:
  minAvailable: 1
  selector: {matchLabels: {app: guarded}}
EOF
  K -n prot apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata:
  name: anc-a
  labels: {dagsched.io/job: anc, dagsched.io/task: a}
  annotations: {dagsched.io/runtime: "8h", dagsched.io/deadline: "$(deadline_in 40)"}
  ownerReferences: []
spec:
  restartPolicy: Never
  containers: [{name: main, image: busybox, resources: {requests: {cpu: "2"}}}]
---
apiVersion: v1
kind: Pod
metadata:
  name: anc-b
  labels: {dagsched.io/job: anc, dagsched.io/task: b}
  annotations: {dagsched.io/runtime: "10s", dagsched.io/depends-on: a, dagsched.io/deadline: "$(deadline_in 40)"}
spec:
  restartPolicy: Never
  schedulingGates: [{name: dagsched.io/dependencies}]
  containers: [{name: main, image: busybox, resources: {requests: {cpu: "2"}}}]
EOF
  job prot eligible 2 1h
  wait_until 60 bash -c "[[ \$($KUBECTL get pods -A -l dagsched.io/job --field-selector=status.phase=Running -o name | wc -l) -ge 4 ]]" || true
  local sys guarded anc eligible
  sys="$(K -n kube-system get pods -l job-name=sys-low -o jsonpath='{.items[0].metadata.uid}')"
  guarded="$(pod_uid prot "$(pod_of prot guarded)")"
  anc="$(pod_uid prot anc-a)"
  eligible="$(pod_uid prot "$(pod_of prot eligible)")"
  wait_until 30 bash -c "[[ \$($KUBECTL -n prot get pdb guarded -o jsonpath='{.status.expectedPods}') == 1 ]]" || true
  job prot urgent 2 10s "$(deadline_in 40)" dagsched-urgent
  check "the urgent pod gets room" wait_until 40 bash -c "[[ \$($KUBECTL -n prot get pods -l job-name=urgent -o jsonpath='{.items[0].spec.nodeName}') != '' ]]"
  check "the only eligible pod was evicted" bash -c "! $KUBECTL -n prot get pods -o jsonpath='{.items[*].metadata.uid}' | grep -q $eligible"
  check "the pod in a protected namespace still runs" bash -c "$KUBECTL -n kube-system get pods -o jsonpath='{.items[*].metadata.uid}' | grep -q $sys"
  check "the PDB-protected pod still runs" bash -c "$KUBECTL -n prot get pods -o jsonpath='{.items[*].metadata.uid}' | grep -q $guarded"
  check "the ancestor of the urgent task b still runs" test "$(pod_uid prot anc-a)" = "$anc"
  check "exactly one eviction" test "$(event_count prot DagschedEvicted)" = 1
  check "the guards are visible in the metrics" test "$(metric 18104 'dagsched_controller_guarded_tasks{guard="pdb"}')" = 1
  cleanup prot
}

# ------------------------------------------------------------------------------------------------
scenario_affinity() {
  SCENARIO=affinity
  fresh_ns aff
  policy
  start_ctl main --leader-elect=false --metrics-listen 127.0.0.1:18109
  # The two lowest-priority pods (longest run times) on ctl-node-1, which lacks the label the
  # urgent pod requires; two higher-priority pods on ctl-node-2, which has it.
  local rt node
  for rt in 4h:ctl-node-1 5h:ctl-node-1 2h:ctl-node-2 3h:ctl-node-2; do
    node="${rt#*:}" rt="${rt%%:*}"
    job aff "low-$rt" 2 "$rt" - - - "kubernetes.io/hostname=$node"
  done
  wait_until 60 all_running aff 4 || true
  local u2 u3 u4 u5
  u2="$(pod_uid aff "$(pod_of aff low-2h)")" u3="$(pod_uid aff "$(pod_of aff low-3h)")"
  u4="$(pod_uid aff "$(pod_of aff low-4h)")" u5="$(pod_uid aff "$(pod_of aff low-5h)")"
  check "the four low-priority pods run, two on each node" \
    test -n "$u2" -a -n "$u3" -a -n "$u4" -a -n "$u5" -a "$(running_count aff)" = 4
  K -n aff apply -f - >/dev/null <<EOF
apiVersion: batch/v1
kind: Job
metadata: {name: urgent}
spec:
  backoffLimit: 6
  template:
    metadata:
      labels: {dagsched.io/job: urgent, dagsched.io/task: main}
      annotations: {dagsched.io/runtime: "10s", dagsched.io/deadline: "$(deadline_in 40)"}
    spec:
      restartPolicy: Never
      priorityClassName: dagsched-urgent
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
            - matchExpressions:
              - {key: dagsched-test/pool, operator: In, values: [fast]}
      containers: [{name: main, image: busybox, resources: {requests: {cpu: "2"}}}]
EOF
  local uids
  check "the urgent pod is scheduled on the node its affinity requires" \
    wait_until 40 bash -c "[[ \$($KUBECTL -n aff get pods -l job-name=urgent -o jsonpath='{.items[0].spec.nodeName}') == ctl-node-2 ]]"
  uids="$(K -n aff get pods -o jsonpath='{.items[*].metadata.uid}')"
  check "exactly one pod was evicted" test "$(event_count aff DagschedEvicted)" = 1
  check "the victim is the lowest-priority pod on the matching node (the 3h job's)" \
    bash -c "! grep -q '$u3' <<<'$uids'"
  check "the lower-priority pods on the node without the label still run" \
    bash -c "grep -q '$u4' <<<'$uids' && grep -q '$u5' <<<'$uids'"
  check "the other pod on the matching node still runs" bash -c "grep -q '$u2' <<<'$uids'"
  check "the ledger records the eviction on ctl-node-2" \
    test "$(K -n dagsched-system get configmap dagsched-controller-evictions -o jsonpath='{.data.evictions}' |
      jq -r '[.[] | select(.result == "evicted") | .node] | join(",")')" = ctl-node-2
  cleanup aff
}

scenario_namespace_selector() {
  SCENARIO=namespace-selector
  fresh_ns nsel-on nsel-off
  K label namespace nsel-on dagsched-test/preemption=enabled >/dev/null
  policy "namespaceSelector: {matchLabels: {dagsched-test/preemption: enabled}}"
  start_ctl main --leader-elect=false --metrics-listen 127.0.0.1:18109
  # The two lowest priorities (longest remaining work) run in the namespace that did not opt in.
  job nsel-off low-5h 2 5h
  job nsel-off low-4h 2 4h
  job nsel-on low-3h 2 3h
  job nsel-on low-2h 2 2h
  wait_until 60 bash -c "[[ \$($KUBECTL get pods -n nsel-on --field-selector=status.phase=Running -o name | wc -l) -ge 2 && \$($KUBECTL get pods -n nsel-off --field-selector=status.phase=Running -o name | wc -l) -ge 2 ]]" || true
  local off victim victim_uid kept
  off="$(for j in 5h 4h; do pod_uid nsel-off "$(pod_of nsel-off "low-$j")"; echo; done)"
  victim="$(pod_of nsel-on low-3h)"
  victim_uid="$(pod_uid nsel-on "$victim")"
  kept="$(pod_uid nsel-on "$(pod_of nsel-on low-2h)")"
  job nsel-on urgent 2 10s "$(deadline_in 40)" dagsched-urgent
  # Which pod is evicted is what this scenario is about (whether the urgent pod then wins the
  # room against the victim's replacement is the urgent scenario's business).
  check "the urgent pod makes an eviction" wait_until 40 has_events nsel-on DagschedEvicted
  check "the victim's Event names the urgent pod" \
    bash -c "$(declare -f events); K() { \"$KUBECTL\" \"\$@\"; }; events nsel-on DagschedEvicted | grep -q \"^$victim.*to make room for nsel-on/$(pod_of nsel-on urgent) (urgent:\""
  sleep 4
  check "exactly one eviction, in the labelled namespace" test "$(event_count nsel-on DagschedEvicted)" = 1
  check "no eviction in the namespace without the label" test "$(event_count nsel-off DagschedEvicted)" = 0
  check "the victim is the lowest-priority pod of the labelled namespace" \
    bash -c "! $KUBECTL -n nsel-on get pods -o jsonpath='{.items[*].metadata.uid}' | grep -q $victim_uid"
  check "the higher-priority pod of the labelled namespace still runs" \
    bash -c "$KUBECTL -n nsel-on get pods -o jsonpath='{.items[*].metadata.uid}' | grep -q $kept"
  local o ok=1
  for o in $off; do K -n nsel-off get pods -o jsonpath='{.items[*].metadata.uid}' | grep -q "$o" || ok=0; done
  check "the lower-priority pods of the other namespace still run" test "$ok" = 1
  check "the namespace guard holds both back in the metrics" \
    test "$(metric 18109 'dagsched_controller_guarded_tasks{guard="namespace-not-opted-in"}')" = 2
  check "the log says why" grep -q "pod nsel-off/$(pod_of nsel-off low-5h): namespace nsel-off is not selected by spec.preemption.namespaceSelector" "$LOGDIR/main.log"
  cleanup nsel-on nsel-off
}

# ------------------------------------------------------------------------------------------------
scenario_invalid_pod() {
  SCENARIO=invalid-pod
  fresh_ns inv
  policy
  start_ctl main --leader-elect=false --metrics-listen 127.0.0.1:18110
  # kubectl create, not apply: apply would copy the annotation into last-applied-configuration,
  # beyond the API server's 256 KiB.
  python3 - <<'EOF' | K -n inv create -f - >/dev/null
import json
print(json.dumps({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "big", "labels": {"dagsched.io/job": "big", "dagsched.io/task": "b"},
                 "annotations": {"dagsched.io/runtime": "3s",
                                 "dagsched.io/depends-on": "a," * 102400}},
    "spec": {"restartPolicy": "Never",
             "schedulingGates": [{"name": "dagsched.io/dependencies"}],
             "containers": [{"name": "main", "image": "busybox",
                             "resources": {"requests": {"cpu": "1"}}}]}}))
EOF
  bound() { [[ -n "$(K -n inv get pod big -o jsonpath='{.spec.nodeName}' 2>/dev/null)" ]]; }
  named() { events inv InvalidPodMetadata | grep -q "annotation dagsched.io/depends-on: 204800 bytes, limit 65536"; }
  check "the gate is removed and the pod is scheduled" wait_until 30 bound
  check "an InvalidPodMetadata Event names the field and the limit" wait_until 10 named
  sleep 6 # three more rounds
  check "the Event is posted once" test "$(event_count inv InvalidPodMetadata)" = 1
  check "the gate removal is counted" test "$(metric 18110 'dagsched_controller_releases_total{kind="outside_dag"}')" = 1
  check "the controller logs it, with the pod's fields" grep -q "pod inv/big: annotation dagsched.io/depends-on: 204800 bytes.* pod=big namespace=inv reason=" "$LOGDIR/main.log"
  # Every other class of bounded field, one pod each (the API server accepts them all): none may
  # stay Pending because of dagsched. Each is ungated, scheduled (or, with other gates, keeps only
  # those) and gets one InvalidPodMetadata Event naming the field and its limit.
  python3 "$ROOT/tests/controller/over_bounds_pods.py" | K -n inv create -f - >/dev/null
  local p
  # The field and its limit each Event must name (the API server adds two tolerations of its own).
  declare -A field=([tolerations]="spec.tolerations: too many|limit 1024"
    [nodeselector]="spec.nodeSelector: too many entries (got 300|limit 256"
    [gates]="spec.schedulingGates: too many (got 1101|limit 1024"
    [containers]="spec.containers: too many (got 1030|limit 1024"
    [affinity]="nodeSelectorTerms: too many (got 70|limit 64"
    [labels]="302 labels|limit 256"
    [annotations]="dagsched.io/ annotations|limit 256")
  our_gate_gone() { [[ " $(K -n inv get pod "$1" -o jsonpath='{.spec.schedulingGates[*].name}') " != *" dagsched.io/dependencies "* ]]; }
  pod_bound() { [[ -n "$(K -n inv get pod "$1" -o jsonpath='{.spec.nodeName}' 2>/dev/null)" ]]; }
  named_for() { events inv InvalidPodMetadata | grep "^$1"$'\t' | grep -F "${2%%|*}" | grep -qF "${2#*|}"; }
  for p in tolerations nodeselector gates containers affinity labels annotations; do
    check "$p: dagsched's gate is removed" wait_until 30 our_gate_gone "$p"
    check "$p: an InvalidPodMetadata Event names the field and the limit (${field[$p]/|/ ... })" \
      wait_until 20 named_for "$p" "${field[$p]}"
    # Other gates are their owners' to remove; 300 nodeSelector labels match no node.
    [[ "$p" == gates || "$p" == nodeselector ]] && continue
    check "$p: the pod is scheduled" wait_until 30 pod_bound "$p"
  done
  check "... the pod with other gates keeps them" \
    test "$(K -n inv get pod gates -o jsonpath='{.spec.schedulingGates[*].name}' | wc -w)" = 1100
  cleanup inv
}

# ------------------------------------------------------------------------------------------------
# The lowest-priority pod belongs to a Job with backoffLimit 0: evicting it would fail that Job.
# The urgent task evicts the next-lowest instead (a Job with retries left), and no Job fails.
scenario_owner_retry() {
  SCENARIO=owner-retry
  fresh_ns own
  policy
  start_ctl main --leader-elect=false --metrics-listen 127.0.0.1:18117
  local rt
  for rt in 2h 3h 4h; do job own "low-$rt" 2 "$rt"; done
  BACKOFF_LIMIT=0 job own low-5h 2 5h
  wait_until 60 all_running own 4
  local fragile fragile_uid second
  fragile="$(pod_of own low-5h)"
  fragile_uid="$(pod_uid own "$fragile")"
  second="$(pod_uid own "$(pod_of own low-4h)")"
  job own urgent 2 10s "$(deadline_in 40)" dagsched-urgent
  wait_until 10 test -n "$(pod_of own urgent)" || true
  local urgent
  urgent="$(pod_of own urgent)"
  check "the urgent pod is scheduled" wait_until 40 bash -c "[[ \$($KUBECTL -n own get pod $urgent -o jsonpath='{.spec.nodeName}') != '' ]]"
  check "exactly one pod was evicted" test "$(event_count own DagschedEvicted)" = 1
  check "the pod of the Job with backoffLimit 0 was not evicted" \
    bash -c "$KUBECTL -n own get pods -o jsonpath='{.items[*].metadata.uid}' | grep -q $fragile_uid"
  check "the next-lowest pod (a Job with retries left) was evicted instead" \
    bash -c "! $KUBECTL -n own get pods -o jsonpath='{.items[*].metadata.uid}' | grep -q $second"
  guarded() { [[ "$(metric 18117 'dagsched_controller_guarded_tasks{guard="owner-would-fail"}')" -ge 1 ]]; }
  check "the guard is counted (dagsched_controller_guarded_tasks{guard=\"owner-would-fail\"})" \
    wait_until 20 guarded
  failed_jobs() { K -n own get jobs -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Failed")].status}{"\n"}{end}' | grep -c True || true; }
  check "no Job failed" test "$(failed_jobs)" = 0
  cleanup own
}

# ------------------------------------------------------------------------------------------------
# Every running pod belongs to a Job with backoffLimit 0: no eviction can make room for the urgent
# task without failing a Job. Nothing is evicted, and the urgent pod gets one Warning Event
# DagschedUnsaved saying why (counted in dagsched_controller_urgent_unsaved_total).
scenario_unsaved() {
  SCENARIO=unsaved
  fresh_ns uns
  policy
  start_ctl main --leader-elect=false --metrics-listen 127.0.0.1:18118
  local rt
  for rt in 2h 3h 4h 5h; do BACKOFF_LIMIT=0 job uns "low-$rt" 2 "$rt"; done
  wait_until 60 all_running uns 4
  job uns urgent 2 10s "$(deadline_in 40)" dagsched-urgent
  said() { events uns DagschedUnsaved | grep -q "no eviction can make room for it: every running DAG task that could (4) belongs to an owner that would fail"; }
  check "the urgent pod gets a DagschedUnsaved Event saying why" wait_until 40 said
  check "nothing was evicted" test "$(event_count uns DagschedEvicted)" = 0
  check "it is counted (dagsched_controller_urgent_unsaved_total)" \
    test "$(metric 18118 'dagsched_controller_urgent_unsaved_total')" = 1
  sleep 4
  check "the Event is posted once" test "$(event_count uns DagschedUnsaved)" = 1
  failed_jobs() { K -n uns get jobs -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Failed")].status}{"\n"}{end}' | grep -c True || true; }
  check "no Job failed" test "$(failed_jobs)" = 0
  cleanup uns
}

# ------------------------------------------------------------------------------------------------
scenario_dry_run() {
  SCENARIO=dry-run
  fresh_ns dry
  policy
  start_ctl main --leader-elect=false --dry-run --metrics-listen 127.0.0.1:18105
  fill dry 2h 3h 4h 5h
  local uids victim
  sorted_uids() { K -n dry get pods -l 'job-name in (low-2h,low-3h,low-4h,low-5h)' -o jsonpath='{.items[*].metadata.uid}' | tr ' ' '\n' | sort; }
  uids="$(sorted_uids)"
  victim="$(pod_of dry low-5h)"
  job dry urgent 2 10s "$(deadline_in 40)" dagsched-urgent
  check "dry run reports the eviction it would make" wait_until 30 has_events dry DagschedWouldEvict 2
  check "the report names the lowest-priority pod" \
    bash -c "$(declare -f events); K() { \"$KUBECTL\" \"\$@\"; }; events dry DagschedWouldEvict | grep -q \"^$victim.*Would be evicted (dry run)\""
  sleep 4
  check "nothing was evicted" test "$(sorted_uids)" = "$uids"
  check "no DagschedEvicted Event" test "$(event_count dry DagschedEvicted)" = 0
  check "the urgent pod stays pending" test "$(phase_of dry "$(pod_of dry urgent)")" = Pending
  check "dry-run decisions are counted" test "$(metric 18105 'dagsched_controller_evictions_total{result="dry-run",reason="urgent"}')" = 1
  check "the ledger records nothing" bash -c "! $KUBECTL -n dagsched-system get configmap dagsched-controller-evictions -o jsonpath='{.data.evictions}' | grep -q victim"
  cleanup dry
}

# ------------------------------------------------------------------------------------------------
lease_holder() { K -n dagsched-system get lease dagsched-controller -o jsonpath='{.spec.holderIdentity}' 2>/dev/null; }
holder_is() { [[ "$(lease_holder)" == "$1" ]]; }
scenario_failover() {
  SCENARIO=failover
  fresh_ns fo
  policy
  local le=(--leader-elect=true --leader-elect-lease-duration 6s --leader-elect-renew-deadline 4s
    --leader-elect-retry-period 1s)
  start_ctl one "${le[@]}" --leader-elect-identity one --metrics-listen 127.0.0.1:18106
  wait_until 20 holder_is one || true
  start_ctl two "${le[@]}" --leader-elect-identity two --metrics-listen 127.0.0.1:18107
  check "one controller leads" test "$(lease_holder)" = one
  fill fo 2h 3h 4h 5h
  # The preemptor asks for more than one eviction frees at once (a node holds 4 cpu, each low pod
  # 2): it stays pending after the first eviction, so a new leader would be tempted to evict again
  # for it if it did not know the eviction already made.
  job fo urgent 2 10s "$(deadline_in 40)" dagsched-urgent
  check "the leader evicts once" wait_until 30 has_events fo DagschedEvicted
  check "the follower wrote nothing" test "$(metric 18107 'dagsched_controller_leader')" = 0
  local t0=$SECONDS
  stop_ctl one KILL
  # Lease duration 6 s counted from the last renewal the follower observed, plus its retry period
  # (1 s with jitter) and the polling here: the takeover must come within 10 s of the kill.
  check "the other controller takes over within the lease duration (+ retry period)" wait_until 10 holder_is two
  echo "  takeover after $((SECONDS - t0)) s" >&2
  check "the new leader loads the ledger" wait_until 10 grep -q "eviction ledger .* loaded: 1 recent entries" "$LOGDIR/two.log"
  sleep 6
  check "the eviction is not repeated" test "$(event_count fo DagschedEvicted)" = 1
  # The new leader works: a DAG released in order (room for it first: its tasks have no
  # deadline, so none of them evicts anything).
  K -n fo delete job low-2h --wait=true >/dev/null
  K -n fo apply -f "$HERE/manifests/dag-3-levels.yaml" >/dev/null
  check "the new leader releases tasks" wait_until 30 has_events fo Released 1
  cleanup fo
}

# ------------------------------------------------------------------------------------------------
scenario_apiserver() {
  SCENARIO=apiserver
  fresh_ns api
  policy
  start_ctl main --leader-elect=true --leader-elect-lease-duration 15s --metrics-listen 127.0.0.1:18108 --cache-max-age 10s
  fill api 2h 3h 4h 5h
  local victim_uid others
  victim_uid="$(pod_uid api "$(pod_of api low-5h)")"
  others="$(for j in 2h 3h 4h; do pod_uid api "$(pod_of api "low-$j")"; echo; done)"
  "$ROOT/hack/cluster/restart-component.sh" --stop kube-apiserver >/dev/null
  sleep 12
  check "the controller stops acting without the API server" grep -q "no action until they recover" "$LOGDIR/main.log"
  "$ROOT/hack/cluster/restart-component.sh" --start kube-apiserver >/dev/null
  check "the controller acts again once its watches recover" wait_until 60 bash -c "grep -c 'watches synced and in contact: acting' $LOGDIR/main.log | grep -qv '^1$'"
  job api urgent 2 10s "$(deadline_in 40)" dagsched-urgent
  check "work resumes: the urgent pod gets room" wait_until 40 bash -c "[[ \$($KUBECTL -n api get pods -l job-name=urgent -o jsonpath='{.items[0].spec.nodeName}') != '' ]]"
  check "exactly one eviction" test "$(event_count api DagschedEvicted)" = 1
  check "of the lowest-priority pod" bash -c "! $KUBECTL -n api get pods -o jsonpath='{.items[*].metadata.uid}' | grep -q $victim_uid"
  local o ok=1
  for o in $others; do K -n api get pods -o jsonpath='{.items[*].metadata.uid}' | grep -q "$o" || ok=0; done
  check "no other pod was evicted" test "$ok" = 1
  cleanup api
}

# ------------------------------------------------------------------------------------------------
cascade_evicted_is() { [[ "$(event_count cas DagschedEvicted)" == "$1" ]]; }
cascade_urgent_waiting() { (("$(metric 18112 dagsched_controller_urgent_pending_tasks)" >= 1)); }
scenario_cascade() {
  SCENARIO=cascade
  fresh_ns cas
  # Tasks are urgent within 150 s of their deadline; only pods labelled preemptable may go.
  apply_policy dagsched-system "      deadlines: {urgentThreshold: 150s}
      preemption:
        epoch: 2s
        minRunTime: 0s
        cooldown: 60s
        maxEvictionsPerNode: 1
        maxEvictionsPerMinute: 10
        deadlineVictims: true
        podSelector: {matchLabels: {dagsched-test/preemptable: \"true\"}}"
  start_ctl main --leader-elect=false --metrics-listen 127.0.0.1:18112
  job cas low-2h 2 2h
  job cas low-3h 2 3h
  job cas low-4h 2 4h
  # 100 s of work, deadline in 200 s: preemptable while it runs (slack 100 s), urgent once it
  # waits again.
  job cas victim 2 100s "$(deadline_in 200)" - dagsched-test/preemptable=true
  wait_until 60 all_running cas 4 || true
  local victim_uid
  victim_uid="$(pod_uid cas "$(pod_of cas victim)")"
  job cas urgent 2 60s "$(deadline_in 80)" dagsched-urgent
  check "the urgent task evicts the only opted-in pod" wait_until 40 cascade_evicted_is 1
  check "the victim was the opted-in pod" bash -c "! $KUBECTL -n cas get pods -o jsonpath='{.items[*].metadata.uid}' | grep -q $victim_uid"
  # Now another pod may be evicted, and the victim's replacement is urgent and finds no room.
  K -n cas label pod "$(pod_of cas low-4h)" dagsched-test/preemptable=true >/dev/null
  check "the replacement is urgent and waiting" wait_until 20 cascade_urgent_waiting
  sleep 12 # six epochs
  check "the victim's replacement evicts nobody within the cooldown" cascade_evicted_is 1
  check "the newly opted-in pod still runs" test "$(phase_of cas "$(pod_of cas low-4h)")" = Running
  cleanup cas
}

tenants_urgent_is() { [[ "$(metric 18111 dagsched_controller_urgent_pending_tasks)" == "$1" ]]; }
tenants_cross_guarded() { (("$(metric 18111 'dagsched_controller_guarded_tasks{guard="cross-namespace"}')" >= 1)); }
tenants_evicted_is() { [[ "$(event_count tenant-b DagschedEvicted)" == "$1" ]]; }
scenario_tenants() {
  SCENARIO=tenants
  fresh_ns tenant-a tenant-b
  policy
  start_ctl main --leader-elect=false --metrics-listen 127.0.0.1:18111
  fill tenant-b 2h 3h 4h 5h
  # Urgent by its slack (-1 h), but no eviction can save a deadline that has passed.
  job tenant-b late 2 10s "$(date -u -d '-3600 sec' +%Y-%m-%dT%H:%M:%SZ)"
  # Another tenant, the same Kubernetes priority as the running pods, a deadline it could meet.
  job tenant-a other 2 10s "$(deadline_in 45)"
  check "the controller sees both urgent tasks" wait_until 30 tenants_urgent_is 2
  check "the other namespace's pods show the cross-namespace guard" wait_until 15 tenants_cross_guarded
  sleep 8 # four epochs
  check "a passed deadline and another namespace's urgent task evict nothing" tenants_evicted_is 0
  check "no eviction is made for the other namespace's task" test "$(event_count tenant-a DagschedEvicting)" = 0
  # The controller acts: an urgent task of the same namespace gets exactly one eviction.
  job tenant-b urgent 2 10s "$(deadline_in 40)" dagsched-urgent
  check "an urgent task of the same namespace evicts one pod" wait_until 30 tenants_evicted_is 1
  sleep 6
  check "and only one" tenants_evicted_is 1
  check "still none for the other namespace's task" test "$(event_count tenant-a DagschedEvicting)" = 0
  cleanup tenant-a tenant-b
}

# ------------------------------------------------------------------------------------------------
gat_bound() { [[ -n "$(K -n gat get pod "$(pod_of gat urgent)" -o jsonpath='{.spec.nodeName}' 2>/dev/null)" ]]; }
scenario_gated_urgent() {
  SCENARIO=gated-urgent
  fresh_ns gat
  # No look-ahead: the release rule releases nothing that does not fit now.
  RELEASE="{lookahead: 0}" policy
  start_ctl main --leader-elect=false --metrics-listen 127.0.0.1:18115
  fill gat 2h 3h 4h 5h
  local victim_uid
  victim_uid="$(pod_uid gat "$(pod_of gat low-5h)")"
  # The urgent task's pod carries the gate (as the webhook adds it): the release rule holds it
  # for lack of room, and the controller, which owns its admission, makes the room itself.
  GATED=1 job gat urgent 2 10s "$(deadline_in 40)" dagsched-urgent
  check "the urgent task held at its gate evicts a pod" wait_until 30 has_events gat DagschedEvicted
  check "the controller releases it into the room, where it binds" wait_until 30 gat_bound
  check "its Released Event says where the room came from" \
    bash -c "$(declare -f events); K() { \"$KUBECTL\" \"\$@\"; }; events gat Released | grep -q \"^$(pod_of gat urgent).*room made on node .* by evicting gat/\""
  check "the victim is the lowest-priority pod (the 5h job's)" bash -c "! $KUBECTL -n gat get pods -o jsonpath='{.items[*].metadata.uid}' | grep -q $victim_uid"
  sleep 6
  check "exactly one eviction" test "$(event_count gat DagschedEvicted)" = 1
  cleanup gat
}

# ------------------------------------------------------------------------------------------------
rep_evicted_is() { [[ "$(event_count rep DagschedEvicted)" == "$1" ]]; }
rep_running() { [[ "$(phase_of rep "$(pod_of rep victim)")" == Running ]]; }
rep_metric_at_least() { (("$(metric 18114 "$1")" >= "$2")); }
scenario_replacement_failover() {
  SCENARIO=replacement-failover
  fresh_ns rep
  # Tasks are urgent within 150 s of their deadline; tasks with a deadline may be victims; only
  # pods labelled preemptable may go; a 5-minute cooldown.
  apply_policy dagsched-system "      deadlines: {urgentThreshold: 150s}
      preemption:
        epoch: 2s
        minRunTime: 0s
        cooldown: 5m
        maxEvictionsPerNode: 1
        maxEvictionsPerMinute: 10
        deadlineVictims: true
        podSelector: {matchLabels: {dagsched-test/preemptable: \"true\"}}"
  local le=(--leader-elect=true --leader-elect-lease-duration 6s --leader-elect-renew-deadline 4s
    --leader-elect-retry-period 1s)
  start_ctl one "${le[@]}" --leader-elect-identity one --metrics-listen 127.0.0.1:18113
  wait_until 20 holder_is one || true
  start_ctl two "${le[@]}" --leader-elect-identity two --metrics-listen 127.0.0.1:18114
  job rep low-2h 2 2h
  job rep low-3h 2 3h
  job rep low-4h 2 4h
  # 10 min of work, 100 s of slack: evictable (slack above an epoch, it survives a short redo),
  # and urgent once it waits again.
  job rep victim 2 600s "$(deadline_in 700)" - dagsched-test/preemptable=true
  wait_until 60 all_running rep 4 || true
  local victim_uid
  victim_uid="$(pod_uid rep "$(pod_of rep victim)")"
  # 5 min of work, 30 s of slack, less work than the victim's job (the queue order): waiting for
  # the victim's end would make it ten minutes late. Once it runs, the next room (its own end) is
  # minutes away for the victim's replacement, which could not wait that long either.
  job rep urgent 2 300s "$(deadline_in 330)" dagsched-urgent
  check "the urgent task evicts the opted-in pod" wait_until 40 rep_evicted_is 1
  check "the victim was the opted-in pod" bash -c "! $KUBECTL -n rep get pods -o jsonpath='{.items[*].metadata.uid}' | grep -q $victim_uid"
  stop_ctl one KILL
  check "the other controller takes over" wait_until 10 holder_is two
  # The replacement (urgent, waiting) could now evict the opted-in low-4h pod.
  K -n rep label pod "$(pod_of rep low-4h)" dagsched-test/preemptable=true >/dev/null
  check "the new leader sees the urgent replacement" wait_until 20 rep_metric_at_least dagsched_controller_urgent_pending_tasks 1
  sleep 12 # six epochs of the new leader
  check "the replacement evicts nobody within the cooldown, across the leader change" rep_evicted_is 1
  check "the newly opted-in pod still runs" test "$(phase_of rep "$(pod_of rep low-4h)")" = Running
  # Room for the replacement, then an urgent task that only the replacement could make room for.
  K -n rep label pod "$(pod_of rep low-4h)" dagsched-test/preemptable- >/dev/null
  K -n rep delete job low-2h --wait=true >/dev/null
  check "the replacement runs" wait_until 40 rep_running
  job rep urgent2 2 300s "$(deadline_in 330)" dagsched-urgent
  check "the new leader holds the replacement back by its cooldown" \
    wait_until 20 rep_metric_at_least 'dagsched_controller_guarded_tasks{guard="cooldown"}' 1
  sleep 12
  check "the replacement is not evicted within the cooldown, across the leader change" rep_evicted_is 1
  cleanup rep
}

# ------------------------------------------------------------------------------------------------
api2_evicted_is() { [[ "$(event_count api2 DagschedEvicted)" == "$1" ]]; }
api2_acting() { # ROUNDS_BEFORE
  local log="$LOGDIR/main.log"
  if grep -q 'no action until they recover' "$log"; then
    [[ "$(grep -c 'watches synced and in contact: acting' "$log")" -ge 2 ]]
  else
    [[ "$(grep -c ' preempt: ' "$log")" -ge $(($1 + 3)) ]]
  fi
}
scenario_apiserver_eviction() {
  SCENARIO=apiserver-eviction
  fresh_ns api2
  policy "cooldown: 5m"
  start_ctl main --leader-elect=true --leader-elect-lease-duration 15s --metrics-listen 127.0.0.1:18115 --cache-max-age 10s
  fill api2 2h 3h 4h 5h
  # The same Kubernetes priority as the running pods: the victim's replacement may take the
  # room the eviction freed.
  job api2 urgent 2 1h "$(deadline_in 3630)"
  check "the urgent task makes one eviction" wait_until 40 api2_evicted_is 1
  "$ROOT/hack/cluster/restart-component.sh" kube-apiserver >/dev/null
  # Acting again: in contact again after it said it lost contact, or, when the outage was shorter
  # than --cache-max-age (kube-apiserver's graceful stop takes part of the restart), never out of
  # contact and still deciding rounds after the restart.
  local rounds
  rounds="$(grep -c ' preempt: ' "$LOGDIR/main.log" || true)"
  check "the controller acts again once its watches recover" wait_until 60 api2_acting "$rounds"
  sleep 16 # eight epochs
  check "no second eviction for the same preemptor" api2_evicted_is 1
  local where
  where="$(K -n api2 get pods -l job-name=urgent -o jsonpath='{.items[0].spec.nodeName}')"
  if [[ -n "$where" ]]; then echo "  the urgent pod is bound to $where" >&2; else echo "  the urgent pod is still pending" >&2; fi
  cleanup api2
}

# ------------------------------------------------------------------------------------------------
# Two JobGraph jobs of three chained tasks each under a bound of 4 tasks a round: one job a round,
# in turn; both run in dependency order, and the deferred one is told why.
gw_graph() { # JOB
  cat <<EOF
apiVersion: v1
kind: ConfigMap
metadata:
  name: g-$1
  labels: {dagsched.io/kind: JobGraph}
data:
  graph.yaml: |
    apiVersion: dagsched.io/v1alpha1
    kind: JobGraph
    metadata: {name: $1}
    spec:
      tasks:
        - {name: x1, runtime: 3s}
        - {name: x2, runtime: 3s, dependsOn: [x1]}
        - {name: x3, runtime: 3s, dependsOn: [x2]}
EOF
  local t gate
  for t in x1 x2 x3; do
    gate=""
    [[ "$t" == x1 ]] || gate="schedulingGates: [{name: dagsched.io/dependencies}]"
    cat <<EOF
---
apiVersion: v1
kind: Pod
metadata:
  name: $1-$t
  labels: {dagsched.io/job: $1, dagsched.io/task: $t}
  annotations: {dagsched.io/runtime: "3s"}
spec:
  restartPolicy: Never
  $gate
  containers: [{name: main, image: busybox, resources: {requests: {cpu: 100m}}}]
EOF
  done
}
gw_done() { [[ "$(K -n gw get pods --field-selector=status.phase=Succeeded -o name | wc -l)" -eq 6 ]]; }
gw_deferred_event() { # read whole first: grep -q would end the pipe early (pipefail)
  local all
  all="$(events gw JobDeferred)"
  grep -q $'^g-\\(alpha\\|beta\\)\tJob gw/\\(alpha\\|beta\\) (3 tasks) waits for a later round: the controller evaluates at most 4 tasks' <<<"$all" ||
    { echo "  JobDeferred Events: ${all:-none}" >&2 && return 1; }
}
scenario_graph_work() {
  SCENARIO=graph-work
  fresh_ns gw
  policy
  start_ctl main --leader-elect=false --metrics-listen 127.0.0.1:18119 --max-graph-tasks-per-round 4
  { gw_graph alpha; echo ---; gw_graph beta; } | K -n gw apply -f - >/dev/null
  check "both jobs' six tasks succeed, one job a round" wait_until 120 gw_done
  check "a deferred job gets the Event JobDeferred on its JobGraph ConfigMap" gw_deferred_event
  check "... once per job" test "$(event_count gw JobDeferred)" -le 2
  check "deferrals are counted" test "$(metric 18119 dagsched_controller_jobs_deferred_total)" -ge 2
  check "the last round evaluated one job's 3 tasks and deferred the other's 3" \
    test "$(metric 18119 'dagsched_controller_round_graph_tasks{disposition="evaluated"}'):$(metric 18119 'dagsched_controller_round_graph_tasks{disposition="deferred"}')" = 3:3
  cleanup gw
}

# ------------------------------------------------------------------------------------------------
wq_depth() { metric 18116 dagsched_controller_write_queue_depth; }
scenario_write_queue() {
  SCENARIO=write-queue
  fresh_ns wq
  policy
  start_ctl main --leader-elect=false --metrics-listen 127.0.0.1:18116 --write-qps 0.05
  fill wq 2h 3h 4h 5h
  job wq urgent 2 10s "$(deadline_in 40)" dagsched-urgent
  check "the urgent task evicts one pod" wait_until 40 has_events wq DagschedEvicted
  local depth urgent
  depth="$(wq_depth)"
  check "... while annotation writes are still queued (depth $depth)" test "${depth%.*}" -ge 2
  urgent="$(pod_of wq urgent)"
  check "the urgent pod is scheduled" wait_until 40 bash -c "[[ \$($KUBECTL -n wq get pod $urgent -o jsonpath='{.spec.nodeName}') != '' ]]"
  check "the queue makes its writes meanwhile" \
    test "$(metric 18116 'dagsched_controller_write_latency_seconds_count{stage="request"}')" -ge 1
  check "no write refused by the queue's bound" test "$(metric 18116 dagsched_controller_write_queue_dropped_total)" = 0
  cleanup wq
}

# ------------------------------------------------------------------------------------------------
fair_reason() { # NS -> the waiting reasons of its pods, one a line
  K -n "$1" get pods -o jsonpath='{range .items[*]}{.metadata.annotations.dagsched\.io/waiting-reason}{"\n"}{end}' 2>/dev/null
}
flood_held_for_share() { fair_reason fl | grep -q '^tenant fl is above its fair share (dominant share 1.00, fair share 0.50)'; }
released_at() { K -n "$1" get pod "$2" -o jsonpath='{.metadata.annotations.dagsched\.io/released-at}' 2>/dev/null; }
light_released() { [[ -n "$(released_at li "$(pod_of li light)")" ]]; }
flood_gated() { K -n fl get pods -o jsonpath='{range .items[?(@.spec.schedulingGates)]}{.metadata.name}{"\n"}{end}' 2>/dev/null; }
flood_gated_is() { [[ "$(flood_gated | grep -c .)" == "$1" ]]; }
scenario_fairness() {
  SCENARIO=fairness
  fresh_ns fl li
  # No look-ahead: a release is a task that fits.
  FAIRNESS="{enabled: true}" RELEASE="{lookahead: 0}" policy
  start_ctl main --leader-elect=false --metrics-listen 127.0.0.1:18119
  # Run times 40 s, 45 s, ... 85 s: the four shortest run first (the order across jobs) and end
  # 5 s apart, so the flood still runs three of them when the first room frees.
  local i
  for i in 0 1 2 3 4 5 6 7 8 9; do GATED=1 job fl "flood-$i" 2 "$((40 + 5 * i))s"; done
  check "the flood alone fills the cluster (work-conserving)" wait_until 60 all_running fl 4
  check "six flood tasks are held at their gate" wait_until 30 flood_gated_is 6
  local held
  held="$(flood_gated)"
  # 120 s of work: more than any flood job's, so the order across jobs (shortestRemaining) alone
  # would put it after every flood task.
  GATED=1 job li light 2 120s
  check "the flood's held tasks say their tenant is above its fair share" wait_until 30 flood_held_for_share
  check "the flood's dominant share is 1 in the metrics" \
    awk -v v="$(metric 18119 'dagsched_controller_tenant_dominant_share{tenant="fl"}')" 'BEGIN { exit !(v == 1) }'
  check "its held tasks are counted under the reason fair-share" \
    awk -v v="$(metric 18119 'dagsched_controller_release_queue_length{reason="fair-share"}')" 'BEGIN { exit !(v >= 1) }'
  check "the light namespace's task is released" wait_until 90 light_released
  local light_at p at early=""
  light_at="$(released_at li "$(pod_of li light)")"
  for p in $held; do
    at="$(released_at fl "$p")"
    if [[ -n "$at" && "$at" < "$light_at" ]]; then early+=" $p ($at)"; fi
  done
  check "no flood task held when it arrived was released before it (at $light_at)" test -z "$early"
  [[ -z "$early" ]] || echo "  released before the light task:$early" >&2
  check "the light task runs" wait_until 60 bash -c "[[ \$($KUBECTL -n li get pod $(pod_of li light) -o jsonpath='{.status.phase}') == Running || \$($KUBECTL -n li get pod $(pod_of li light) -o jsonpath='{.status.phase}') == Succeeded ]]"
  cleanup fl li
}

# `dagsched-controller uninstall` (the chart's hooks), on pods, ConfigMaps and Leases of its own
# namespace: --objects-only waits for the release's pods, then deletes the objects named (one
# that never existed is fine), and deletes nothing while a pod stays; a deletion its
# ServiceAccount may not make fails the run, the others are still made; without --objects-only
# it removes dagsched's gate (other gates stay) and reports pods left for dagsched's scheduler and
# suspended DAG Jobs.
scenario_uninstall() {
  SCENARIO=uninstall
  fresh_ns un
  local sel="app.kubernetes.io/instance=dagsched,app.kubernetes.io/component in (controller,scheduler)"
  K apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: rel-controller
  namespace: un
  labels: {app.kubernetes.io/instance: dagsched, app.kubernetes.io/component: controller}
spec: {containers: [{name: c, image: busybox}]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm-a, namespace: un}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm-b, namespace: un}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm-c, namespace: un}
---
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: l-a, namespace: un}
spec: {holderIdentity: x}
---
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: l-b, namespace: un}
spec: {holderIdentity: x}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: cleanup, namespace: un}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: cleanup, namespace: un}
rules:
- {apiGroups: [""], resources: [pods], verbs: [list]}
- {apiGroups: [""], resources: [configmaps], resourceNames: [cm-b, cm-c, cm-gone], verbs: [delete]}
- {apiGroups: [coordination.k8s.io], resources: [leases], resourceNames: [l-a, l-b], verbs: [delete]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: cleanup, namespace: un}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: cleanup}
subjects: [{kind: ServiceAccount, name: cleanup, namespace: un}]
YAML
  K config view --raw --minify | TOKEN="$(K -n un create token cleanup)" python3 -c '
import os, sys, yaml
c = yaml.safe_load(sys.stdin)
c["users"] = [{"name": "cleanup", "user": {"token": os.environ["TOKEN"]}}]
c["contexts"][0]["context"]["user"] = "cleanup"
print(yaml.safe_dump(c))' >"$LOGDIR/uninstall.kubeconfig"
  local log="$LOGDIR/uninstall.log"
  : >"$log"
  un() { env "${SANITIZER_ENV[@]}" "$BIN" uninstall --kubeconfig "$LOGDIR/uninstall.kubeconfig" "$@" >>"$log" 2>&1; }
  exits() { # STATUS COMMAND...: COMMAND exits with STATUS
    local want="$1" rc=0
    shift
    "$@" || rc=$?
    [[ "$rc" == "$want" ]]
  }
  present() { K -n un get "$@" -o name >/dev/null 2>&1; }
  gone() { ! K -n un get "$1" "$2" >/dev/null 2>&1; }

  check "while a pod of the release stays, --objects-only waits, then exits 1" \
    exits 1 un --objects-only --namespace un --wait-for-pods "$sel" --wait-timeout 2s \
    --delete-configmap cm-b --delete-lease l-a
  check "... and deletes nothing (the pod would write it again)" present configmap/cm-b lease/l-a

  un --objects-only --namespace un --wait-for-pods "$sel" --wait-timeout 60s --delete-configmap cm-b \
    --delete-configmap cm-gone --delete-lease l-a --delete-lease l-b </dev/null &
  local pid=$! rc=0
  check "it waits for the release's pod" wait_until 30 grep -q "waiting for 1 pods of un matching" "$log"
  K -n un delete pod rel-controller --grace-period=0 --force --wait >/dev/null 2>&1
  wait "$pid" || rc=$?
  check "once the pod is gone it deletes the objects and exits 0 (got $rc)" test "$rc" = 0
  check "... ConfigMap cm-b and Leases l-a and l-b are gone" \
    bash -c "! $KUBECTL -n un get configmap cm-b 2>/dev/null && ! $KUBECTL -n un get lease l-a 2>/dev/null && ! $KUBECTL -n un get lease l-b 2>/dev/null"
  check "... a ConfigMap that never existed is fine" grep -q "ConfigMap un/cm-gone deleted (or already gone)" "$log"
  check "... another ConfigMap is kept" present configmap/cm-a

  check "a deletion its ServiceAccount may not make: exit 1" \
    exits 1 un --objects-only --namespace un --delete-configmap cm-a --delete-configmap cm-c
  check "... with the server's refusal in the log" grep -q "deleting ConfigMap un/cm-a: .*403 Forbidden" "$log"
  check "... cm-a is kept, cm-c is deleted all the same" \
    bash -c "$KUBECTL -n un get configmap cm-a >/dev/null && ! $KUBECTL -n un get configmap cm-c 2>/dev/null"

  # Gates, with the admin's kubeconfig: the pre-delete hook's own run.
  K apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: g1, namespace: un}
spec:
  schedulingGates: [{name: dagsched.io/dependencies}]
  containers: [{name: c, image: busybox}]
---
apiVersion: v1
kind: Pod
metadata: {name: g2, namespace: un}
spec:
  schedulingGates: [{name: dagsched.io/dependencies}, {name: example.com/hold}]
  containers: [{name: c, image: busybox}]
---
apiVersion: v1
kind: Pod
metadata: {name: waits, namespace: un}
spec:
  schedulerName: dagsched
  containers: [{name: c, image: busybox}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: held, namespace: un, labels: {dagsched.io/task: t}}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
YAML
  rc=0
  log="$LOGDIR/uninstall-gates.log"
  env "${SANITIZER_ENV[@]}" "$BIN" uninstall --kubeconfig "$KUBECONFIG" >"$log" 2>&1 || rc=$?
  check "without --objects-only it removes the gates and exits 0 (got $rc)" test "$rc" = 0
  check "... g1 has no gate left" test -z "$(K -n un get pod g1 -o jsonpath='{.spec.schedulingGates}')"
  check "... g2 keeps its other gate" test "$(K -n un get pod g2 -o jsonpath='{.spec.schedulingGates[*].name}')" = example.com/hold
  check "... it reports the pod left for dagsched's scheduler" \
    grep -q "pod un/waits is pending with schedulerName dagsched" "$log"
  check "... and the suspended DAG Job" grep -q "Job un/held (a DAG task) is suspended and stays so" "$log"
  check "... done: 2 gates removed, 1 pending pod, 1 suspended Job" \
    grep -q "done: 2 gates removed; 1 pending pods wait for scheduler dagsched; 1 suspended DAG Jobs left suspended" "$log"
  K delete namespace un --ignore-not-found --wait=true >/dev/null 2>&1 || true
}

# ------------------------------------------------------------------------------------------------
gang_pods() { # three gated pods of job "gang", one gang of size 3, 2 cpus each
  local t
  for t in w0 w1 w2; do
    cat <<EOF
apiVersion: v1
kind: Pod
metadata:
  name: gang-$t
  labels: {dagsched.io/job: gang, dagsched.io/task: $t, dagsched.io/gang: workers, dagsched.io/gang-size: "3"}
  annotations: {dagsched.io/runtime: "20s"}
spec:
  restartPolicy: Never
  schedulingGates: [{name: dagsched.io/dependencies}]
  containers:
  - name: main
    image: busybox
    resources: {requests: {cpu: "2"}}
---
EOF
  done
}
gang_gated() { K -n gg get pods -l dagsched.io/gang=workers -o jsonpath='{range .items[?(@.spec.schedulingGates)]}{.metadata.name}{"\n"}{end}' 2>/dev/null | grep -c . || true; }
gang_reasons() { K -n gg get pods -l dagsched.io/gang=workers -o jsonpath='{range .items[*]}{.metadata.annotations.dagsched\.io/waiting-reason}{"\n"}{end}' 2>/dev/null; }
gang_held_for_room() { [[ "$(gang_reasons | grep -c '^gang workers: room for 2 of 3 members; the room that frees is held for it$')" == 3 ]]; }
gang_holds() { # the members' dagsched.io/reserved-node annotations: "<node> <until>", one per member
  K -n gg get pods -l dagsched.io/gang=workers -o jsonpath='{range .items[*]}{.metadata.annotations.dagsched\.io/reserved-node}{"\n"}{end}' 2>/dev/null | grep -cE '^[a-z0-9.-]+ [0-9]{4}-[0-9]{2}-[0-9]{2}T' || true
}
gang_released_at() { K -n gg get pods -l dagsched.io/gang=workers -o jsonpath='{range .items[*]}{.metadata.annotations.dagsched\.io/released-at}{"\n"}{end}' 2>/dev/null; }
gang_all_released() { [[ "$(gang_released_at | grep -c .)" == 3 ]]; }
gang_all_started() { [[ "$(K -n gg get pods -l dagsched.io/gang=workers --field-selector=status.phase!=Pending -o name 2>/dev/null | grep -c .)" == 3 ]]; }
gang_none_waiting() { [[ "$(metric 18120 dagsched_controller_gangs_waiting)" == 0 ]]; }
scenario_gang() {
  SCENARIO=gang
  fresh_ns gg
  policy
  start_ctl main --leader-elect=false --metrics-listen 127.0.0.1:18120
  # 4 of the 8 cpus taken: room for two 2-cpu members of three. The short one frees 2 cpus.
  job gg short 2 40s
  job gg long 2 10m
  check "two pods take half the cluster" wait_until 60 all_running gg 2
  gang_pods | K -n gg apply -f - >/dev/null
  # Every member keeps its gate while the short pod runs (sampled every half second from the
  # gang's creation until it ends).
  local partial="" n short_pod
  short_pod="$(pod_of gg short)"
  for _ in $(seq 1 10); do
    n="$(gang_gated)"
    [[ "$n" == 3 ]] || partial+=" $n"
    sleep 0.5
  done
  check "every member says the gang lacks room for all of them, and that the room which frees is held for it" wait_until 30 gang_held_for_room
  check "... counted under the reason gang" \
    test "$(metric 18120 'dagsched_controller_release_queue_length{reason="gang"}')" = 3
  check "one gang waits in the metrics" test "$(metric 18120 dagsched_controller_gangs_waiting)" = 1
  check "... and the Waiting Event says it" wait_until 20 \
    bash -c "$(declare -f events); K() { \"$KUBECTL\" \"\$@\"; }; events gg Waiting | grep -q 'gang workers: room for 2 of 3 members'"
  while [[ "$(phase_of gg "$short_pod")" != Succeeded ]]; do
    n="$(gang_gated)"
    [[ "$n" == 3 ]] || partial+=" $n"
    [[ "$n" != 0 ]] || break
    sleep 0.5
  done
  check "no member is released while the room holds two of three (gated counts seen:${partial:- 3})" test -z "$partial"
  check "once the room holds three, the three are released" wait_until 60 gang_all_released
  local ended early
  ended="$(K -n gg get pod "$short_pod" -o jsonpath='{.status.containerStatuses[0].state.terminated.finishedAt}' 2>/dev/null)"
  early="$(gang_released_at | python3 -c 'import sys, datetime as d
t = lambda s: d.datetime.fromisoformat(s.strip().replace("Z", "+00:00")).timestamp()
end = t(sys.argv[1]) if sys.argv[1] else float("inf")
print(sum(1 for l in sys.stdin if l.strip() and t(l) < end))' "$ended")"
  check "... none of them before the short pod ended at ${ended:-?} ($early early)" test "$early" = 0
  local spread
  spread="$(gang_released_at | python3 -c 'import sys, datetime as d; t = [d.datetime.fromisoformat(l.strip().replace("Z", "+00:00")).timestamp() for l in sys.stdin if l.strip()]; print(f"{max(t) - min(t):.3f}")')"
  check "... together (released-at within ${spread} s of each other)" awk -v v="$spread" 'BEGIN { exit !(v < 1) }'

  check "... each holding the room planned for it (dagsched.io/reserved-node: $(gang_holds) of 3)" test "$(gang_holds)" = 3
  check "... and they start together" wait_until 60 gang_all_started
  check "no gang waits any more" wait_until 20 gang_none_waiting
  cleanup gg
}

for s in ${CONTROLLER_SCENARIOS:-dag_order releaser release_writes urgent owner_retry unsaved rho protections namespace_selector affinity invalid_pod dry_run failover apiserver tenants cascade gated_urgent replacement_failover apiserver_eviction write_queue fairness gang graph_work uninstall}; do
  "scenario_$s"
done
stop_all
SCENARIO=sanitizers
sanitizer_reports() { grep -l -E "$SANITIZER_REPORT" "$LOGDIR"/*.log "$LOGDIR"/*.log.* 2>/dev/null; }
if reports="$(sanitizer_reports)"; then
  failed "sanitizer reports in: $(echo "$reports" | xargs -n1 basename | tr '\n' ' ')"
  for f in $reports; do
    echo "---- sanitizer report in $f" >&2
    grep -A 30 -E "$SANITIZER_REPORT" "$f" | head -60 >&2
  done
else
  pass "no AddressSanitizer, LeakSanitizer or UndefinedBehaviorSanitizer report in any controller log"
fi
suite_result "controller integration"

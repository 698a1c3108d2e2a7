#!/usr/bin/env bash
# integration.sh: the extender's integration suite against the real kube-scheduler of a fresh
# local control plane (hack/cluster), configured with a "dagsched" profile and this extender
# (tests/extender/scheduler-config.yaml), the extender running as a local process on 127.0.0.1.
#
#   1. DAG ordering: a three-level job created at once; at no moment is a task bound before its
#      upstream task has succeeded; the waiting pod's FailedScheduling event names the missing
#      upstream task; all tasks succeed.
#   2. Packing: a memory-heavy pod among two equal nodes, one empty, one running a CPU-heavy pod.
#      kube-scheduler alone (default configuration) picks the empty node; with the extender, the
#      complementary one.
#   3. Deadline: a task that can only meet its deadline on the small fast node avoids the large
#      slow node kube-scheduler would prefer; the extender counts the node as too slow.
#   4. Preemption and policy hot reload: a young low-priority victim is refused (minRunTime), a
#      policy ConfigMap with minRunTime 0s is loaded (generation 2) and the same preemption then
#      happens; an invalid policy update is refused, the policy stays, an Event is posted; a
#      policy that changes gpuResourceNames makes the pod and node watches decode again.
#   5. Invalid job: the root task of a cyclic job is scheduled, its two tasks that depend on each
#      other get no node and an InvalidJobGraph Event says why. A pod
#      whose dagsched.io/depends-on is 200 KB (over dagsched's 64 KiB, within the API server's
#      256 KiB) is scheduled like a pod outside any DAG instead of being refused with 400.
#   6. Restart: with the extender killed, a new pod stays pending; once it is back, the pod is
#      scheduled.
# At the end, every dependency edge of every job is checked from the pods' own timestamps
# (tests/common/check_edges.py).
#
# Usage: tests/extender/integration.sh [EXTENDER_BINARY]   (make extender-integration-test)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
HERE="$ROOT/tests/extender"
MANIFESTS="$HERE/manifests"

if [[ "${1:-}" != "--inside" ]]; then
  EXT_BIN="$(cd "$(dirname "${1:-$ROOT/bin/dagsched-extender}")" && pwd)/$(basename "${1:-dagsched-extender}")"
  [[ -x "$EXT_BIN" ]] || {
    echo "extender-it: $EXT_BIN is not an executable (run make first)" >&2
    exit 1
  }
  LOG_PREFIX=extender-it
  # shellcheck source=hack/cluster/lib.sh
  source "$ROOT/hack/cluster/lib.sh"
  port="$(pick_port)"
  conf="$(mktemp /tmp/dagsched-extender-sched.XXXXXX.yaml)"
  trap 'rm -f "$conf"' EXIT
  sed "s/@EXTENDER_PORT@/$port/" "$HERE/scheduler-config.yaml" >"$conf"
  export EXT_BIN EXTENDER_PORT="$port" EXT_SCHED_CONFIG="$conf"
  SCHEDULER_CONFIG="$conf" NODE_PROFILE="$HERE/nodes.tsv" \
    "$ROOT/hack/cluster/with-cluster.sh" -- "$0" --inside
  exit $?
fi

# ---- inside the cluster (CLUSTER_DIR, KUBECONFIG, KUBECTL exported) ----
K="$KUBECTL"
URL="http://127.0.0.1:$EXTENDER_PORT"
EXT_LOG="$CLUSTER_DIR/logs/extender.log"
ext_pid=""

log() { echo "extender-it: $*"; }

# stop_extender [SIGNAL]: stops the extender this suite started; EXT_STATUS is its exit status.
EXT_STATUS=0
stop_extender() {
  EXT_STATUS=0
  if [[ -n "$ext_pid" ]] && kill -0 "$ext_pid" 2>/dev/null; then
    kill "${1:--TERM}" "$ext_pid" 2>/dev/null || true
    wait "$ext_pid" 2>/dev/null || EXT_STATUS=$?
  fi
  ext_pid=""
}
trap 'stop_extender' EXIT

fail() {
  log "FAIL: $*"
  log "--- pods"
  "$K" get pods -A -o wide 2>&1 | tail -30 || true
  log "--- events"
  "$K" get events -A --sort-by=.lastTimestamp -o custom-columns=NS:.metadata.namespace,OBJ:.involvedObject.name,REASON:.reason,MSG:.message 2>&1 | tail -20 || true
  log "--- extender log (tail)"
  tail -n 40 "$EXT_LOG" || true
  exit 1
}

start_extender() {
  ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}" \
    UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" "$EXT_BIN" --kubeconfig "$KUBECONFIG" --listen "127.0.0.1:$EXTENDER_PORT" \
    --policy-namespace dagsched-system --log-level debug >>"$EXT_LOG" 2>&1 &
  ext_pid=$!
  local i
  for ((i = 0; i < 100; i++)); do
    if [[ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/readyz")" == 200 ]]; then
      return 0
    fi
    kill -0 "$ext_pid" 2>/dev/null || fail "the extender exited at start"
    sleep 0.2
  done
  fail "the extender did not become ready within 20 s"
}

# Value of a metric series (exact name with labels), 0 when absent.
metric() {
  curl -s "$URL/metrics" | awk -v k="$1" '$1 == k {print $2; found=1} END {if (!found) print 0}'
}

# wait_for SECONDS DESCRIPTION CMD...: poll CMD every 0.5 s until it succeeds.
wait_for() {
  local t="$1" what="$2"
  shift 2
  local deadline=$((SECONDS + t))
  until "$@"; do
    ((SECONDS < deadline)) || fail "timed out after ${t}s waiting for $what"
    sleep 0.5
  done
}

node_of() { "$K" -n "$1" get pod "$2" -o jsonpath='{.spec.nodeName}' 2>/dev/null; }
bound() { [[ -n "$(node_of "$1" "$2")" ]]; }
phase_is() { [[ "$("$K" -n "$1" get pod "$2" -o jsonpath='{.status.phase}' 2>/dev/null)" == "$3" ]]; }

"$K" create namespace dagsched-system >/dev/null
start_extender
log "extender ready on $URL (log $EXT_LOG)"

# ---- 0. The process's own metrics and the build ----
test_process_metrics() {
  # Read the page whole first: grep -q stops at the first match, and curl, still writing, would
  # then fail the pipeline (pipefail) with SIGPIPE.
  local page
  page="$(curl -s "$URL/metrics")"
  grep -q '^dagsched_extender_build_info{version="[0-9]' <<<"$page" ||
    fail "/metrics: no dagsched_extender_build_info with a version"
  local rss fds cpu
  rss="$(metric process_resident_memory_bytes)" fds="$(metric process_open_fds)"
  cpu="$(metric process_cpu_seconds_total)"
  awk -v r="$rss" -v f="$fds" -v c="$cpu" 'BEGIN { exit !(r > 1e6 && f >= 3 && c > 0) }' ||
    fail "/metrics: process figures missing or implausible (resident $rss B, fds $fds, cpu $cpu s)"
  log "PASS process metrics: resident $rss B, $fds descriptors, $cpu CPU s; build_info"
}

# ---- 1. DAG ordering ----
test_dag_order() {
  local ns=it-dag
  "$K" create namespace "$ns" >/dev/null
  "$K" -n "$ns" apply -f "$MANIFESTS/dag-three-levels.yaml" >/dev/null
  # Every observation is one consistent list from the API server: no bound task may have an
  # upstream task that has not succeeded.
  local jq_check='
    [.items[] | {task: .metadata.labels["dagsched.io/task"], phase: .status.phase,
                 node: (.spec.nodeName // ""),
                 deps: ((.metadata.annotations["dagsched.io/depends-on"] // "") | split(",")
                        | map(select(length > 0)))}] as $p
    | ($p | map({(.task): .phase}) | add) as $ph
    | ([$p[] | select(.node != "") | . as $x | $x.deps[] | select($ph[.] != "Succeeded")
        | "\($x.task) bound while \(.) is \($ph[.])"]) as $bad
    | if ($bad | length) > 0 then "VIOLATION " + ($bad | join("; "))
      elif ($p | length) == 3 and ([$p[] | select(.phase == "Succeeded")] | length) == 3 then "DONE"
      else "WAIT" end'
  local deadline=$((SECONDS + 90)) state
  while :; do
    state="$("$K" -n "$ns" get pods -o json | jq -r "$jq_check")"
    case "$state" in
    DONE) break ;;
    VIOLATION*) fail "DAG order: $state" ;;
    esac
    ((SECONDS < deadline)) || fail "DAG job did not finish within 90 s"
    sleep 0.3
  done
  # Events are written asynchronously by kube-scheduler: give them a moment.
  transform_waited() {
    "$K" -n "$ns" get events --field-selector involvedObject.name=etl-transform \
      -o jsonpath='{range .items[*]}{.message}{"\n"}{end}' |
      grep -q "dagsched: waiting for upstream tasks: clean"
  }
  wait_for 15 "a FailedScheduling event of etl-transform naming its upstream task" transform_waited
  log "PASS dag order: extract -> clean -> transform, each bound only after its upstream succeeded"
}

# ---- 2. Packing ----
test_packing() {
  local ns=it-pack
  "$K" create namespace "$ns" >/dev/null
  "$K" -n "$ns" apply -f "$MANIFESTS/pack-hog.yaml" >/dev/null
  wait_for 30 "pack-hog running" phase_is "$ns" pack-hog Running
  # kube-scheduler alone, with the cluster's default configuration.
  SCHEDULER_CONFIG="$ROOT/hack/cluster/scheduler-config.yaml" \
    "$ROOT/hack/cluster/restart-component.sh" kube-scheduler >/dev/null
  sed 's/SCHEDULER_NAME/default-scheduler/' "$MANIFESTS/pack-probe.yaml" | "$K" -n "$ns" apply -f - >/dev/null
  wait_for 30 "pack-probe bound by the default scheduler" bound "$ns" pack-probe
  local alone
  alone="$(node_of "$ns" pack-probe)"
  [[ "$alone" == pack-a ]] || fail "without the extender, kube-scheduler chose $alone (expected pack-a)"
  "$K" -n "$ns" delete pod pack-probe --wait=true >/dev/null
  SCHEDULER_CONFIG="$EXT_SCHED_CONFIG" "$ROOT/hack/cluster/restart-component.sh" kube-scheduler >/dev/null
  sed 's/SCHEDULER_NAME/dagsched/' "$MANIFESTS/pack-probe.yaml" | "$K" -n "$ns" apply -f - >/dev/null
  wait_for 30 "pack-probe bound with the extender" bound "$ns" pack-probe
  local with
  with="$(node_of "$ns" pack-probe)"
  [[ "$with" == pack-b ]] || fail "with the extender, kube-scheduler chose $with (expected pack-b)"
  log "PASS packing: kube-scheduler alone chose pack-a, with Sailfish complementarity pack-b"
}

# ---- 3. Deadline ----
test_deadline() {
  local ns=it-deadline before after
  "$K" create namespace "$ns" >/dev/null
  before="$(metric 'dagsched_extender_filter_nodes_total{verdict="too_slow"}')"
  sed "s/DEADLINE_TS/$(date -u -d '+45 seconds' +%Y-%m-%dT%H:%M:%SZ)/" "$MANIFESTS/deadline-task.yaml" |
    "$K" -n "$ns" apply -f - >/dev/null
  wait_for 30 "report bound" bound "$ns" report
  local n
  n="$(node_of "$ns" report)"
  [[ "$n" == fast-1 ]] || fail "the deadline task went to $n (expected fast-1)"
  after="$(metric 'dagsched_extender_filter_nodes_total{verdict="too_slow"}')"
  awk -v a="$after" -v b="$before" 'BEGIN {exit !(a > b)}' ||
    fail "the filter did not reject the slow node (too_slow $before -> $after)"
  log "PASS deadline: the task avoided slow-1 (rejected as too slow) and runs on fast-1"
}

# ---- 4. Preemption and policy hot reload ----
policy_generation() { metric dagsched_extender_policy_generation; }
generation_is() { [[ "$(policy_generation)" == "$1" ]]; }

test_preempt_and_policy() {
  local ns=it-preempt
  "$K" create namespace "$ns" >/dev/null
  "$K" -n "$ns" apply -f "$MANIFESTS/preempt.yaml" >/dev/null
  filler_pod() { "$K" -n "$ns" get pods -l app=filler -o jsonpath='{.items[0].metadata.name}' 2>/dev/null; }
  wait_for 30 "filler created" bash -c "[[ -n \"\$('$K' -n $ns get pods -l app=filler -o name)\" ]]"
  local filler
  filler="$(filler_pod)"
  wait_for 30 "filler running" phase_is "$ns" "$filler" Running
  local young0
  young0="$(metric 'dagsched_extender_preempt_victims_total{verdict="too-young"}')"
  "$K" -n "$ns" apply -f "$MANIFESTS/preempt-urgent.yaml" >/dev/null
  young_refused() {
    awk -v a="$(metric 'dagsched_extender_preempt_victims_total{verdict="too-young"}')" \
      -v b="$young0" 'BEGIN {exit !(a > b)}'
  }
  wait_for 30 "the young victim refused" young_refused
  sleep 3
  phase_is "$ns" "$filler" Running || fail "the filler was evicted although it ran less than minRunTime"
  bound "$ns" urgent && fail "urgent was bound although no victim was allowed"
  "$K" -n "$ns" delete pod urgent --wait=true >/dev/null

  [[ "$(policy_generation)" == 1 ]] || fail "policy generation is $(policy_generation) before any policy (expected 1)"
  "$K" -n dagsched-system apply -f "$MANIFESTS/policy-min-run-0.yaml" >/dev/null
  wait_for 20 "policy generation 2" generation_is 2
  "$K" -n "$ns" apply -f "$MANIFESTS/preempt-urgent.yaml" >/dev/null
  wait_for 60 "urgent bound after preempting the filler" bound "$ns" urgent
  [[ "$(node_of "$ns" urgent)" == pre-1 ]] || fail "urgent went to $(node_of "$ns" urgent)"
  wait_for 30 "the filler gone" bash -c "! '$K' -n $ns get pod $filler >/dev/null 2>&1"
  # Its ReplicaSet's replacement cannot fit beside urgent: not needed any more.
  "$K" -n "$ns" delete replicaset filler --wait=false >/dev/null
  log "PASS preemption: young victim refused under minRunTime 60s, evicted after hot reload to 0s"

  "$K" -n dagsched-system apply -f "$MANIFESTS/policy-invalid.yaml" >/dev/null
  local has_event='[[ -n "$("$K" -n dagsched-system get events --field-selector reason=InvalidPolicy,involvedObject.name=dagsched-policy-default -o name)" ]]'
  wait_for 20 "an InvalidPolicy event" bash -c "K='$K'; $has_event"
  "$K" -n dagsched-system get events --field-selector reason=InvalidPolicy \
    -o jsonpath='{.items[0].message}' | grep -q "spec.preemption.rho: must be > 1 (got 0.5)" ||
    fail "the InvalidPolicy event does not give the validation error"
  generation_is 2 || fail "an invalid policy changed the generation to $(policy_generation)"
  log "PASS policy: invalid update refused (generation stays 2, InvalidPolicy event)"

  "$K" -n dagsched-system apply -f "$MANIFESTS/policy-gpu-names.yaml" >/dev/null
  wait_for 20 "policy generation 3" generation_is 3
  for what in pods nodes; do
    wait_for 20 "the $what decoded again with the new gpuResourceNames" \
      grep -q "gpuResourceNames changed: decoding $what again" "$EXT_LOG"
  done
  log "PASS policy: a reloaded gpuResourceNames makes the pod and node watches decode again"
}

# ---- 5. Invalid job ----
test_invalid_job() {
  local ns=it-invalid
  "$K" create namespace "$ns" >/dev/null
  "$K" -n "$ns" apply -f "$MANIFESTS/cyclic-job.yaml" >/dev/null
  wait_for 30 "the cyclic job's root task bound" bound "$ns" cyc-r
  wait_for 20 "an InvalidJobGraph event" bash -c "'$K' -n $ns get events --field-selector reason=InvalidJobGraph -o jsonpath='{.items[*].message}' | grep -q 'dependency cycle.*no node until the job is fixed'"
  for p in cyc-a cyc-b; do
    bound "$ns" "$p" && fail "$p, a task of a cyclic job that depends on another, was bound"
  done
  "$K" -n "$ns" get events --field-selector involvedObject.name=cyc-a,reason=FailedScheduling \
    -o jsonpath='{.items[*].message}' | grep -q "the pod may depend on other tasks and waits until the job is fixed" ||
    fail "kube-scheduler does not show why cyc-a waits"
  log "PASS invalid job: the root task of a cyclic job scheduled, its dependent tasks held, InvalidJobGraph event posted"
}

test_oversized_annotation() {
  local ns=it-oversized before after
  "$K" create namespace "$ns" >/dev/null
  before="$(metric 'dagsched_extender_pods_total{verb="filter",class="invalid_pod"}')"
  # kubectl create, not apply: apply would copy the annotation into last-applied-configuration,
  # beyond the API server's 256 KiB.
  python3 - <<'EOF' | "$K" -n "$ns" create -f - >/dev/null
import json
print(json.dumps({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "big", "labels": {"dagsched.io/job": "big", "dagsched.io/task": "b"},
                 "annotations": {"dagsched.io/runtime": "2s",
                                 "dagsched.io/depends-on": "a," * 102400}},
    "spec": {"schedulerName": "dagsched", "restartPolicy": "Never",
             "nodeSelector": {"dagsched.io/test": "dag"},
             "containers": [{"name": "main", "image": "registry.example/etl:1.0",
                             "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]}}))
EOF
  wait_for 30 "the pod with a 200 KB depends-on bound" bound "$ns" big
  after="$(metric 'dagsched_extender_pods_total{verb="filter",class="invalid_pod"}')"
  awk -v a="$after" -v b="$before" 'BEGIN {exit !(a > b)}' ||
    fail "the filter did not count the pod as invalid_pod ($before -> $after)"
  grep -q "pod $ns/big: annotation dagsched.io/depends-on: 204800 bytes, limit 65536" "$EXT_LOG" ||
    fail "the extender did not log the oversized annotation"
  if grep "filter: bad request" "$EXT_LOG" | grep -q "pod $ns/big\|dagsched.io/depends-on"; then
    fail "the filter answered 400 for the pod"
  fi
  log "PASS oversized annotation: a pod with a 200 KB depends-on scheduled outside any DAG"
}

# ---- 6. Restart ----
test_restart() {
  local ns=it-restart
  "$K" create namespace "$ns" >/dev/null
  stop_extender -KILL
  "$K" -n "$ns" apply -f "$MANIFESTS/restart-probe.yaml" >/dev/null
  sleep 5
  bound "$ns" after-restart && fail "a pod was bound while the extender was down"
  "$K" -n "$ns" get events --field-selector involvedObject.name=after-restart \
    -o jsonpath='{.items[*].message}' | grep -q "connection refused" ||
    fail "no FailedScheduling event shows the extender unreachable"
  start_extender
  wait_for 30 "after-restart bound once the extender is back" bound "$ns" after-restart
  log "PASS restart: scheduling resumed after the extender was killed and restarted"
}

test_process_metrics
test_dag_order
test_packing
test_deadline
test_preempt_and_policy
test_invalid_job
test_oversized_annotation
test_restart
KUBECTL="$K" python3 "$ROOT/tests/common/check_edges.py" || fail "a dependency edge was violated"
log "PASS dependency order: no task of any job started before its upstream tasks succeeded"
if grep " ERROR " "$EXT_LOG" | grep -v "invalid policy" | grep -q .; then
  fail "unexpected errors in the extender log"
fi
stop_extender
((EXT_STATUS == 0)) || fail "the extender exited with status $EXT_STATUS at shutdown (sanitizer report above)"
if grep -q "ERROR: \(AddressSanitizer\|LeakSanitizer\)\|runtime error:" "$EXT_LOG"; then
  fail "sanitizer report in the extender log"
fi
log "all extender integration tests passed"

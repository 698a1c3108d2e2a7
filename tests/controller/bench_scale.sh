#!/usr/bin/env bash
# bench_scale.sh: the controller and the extender at scale on a local cluster of many kwok nodes
# (make bench-scale).
#
# One fresh cluster (hack/cluster/with-cluster.sh, NODES nodes from gen-large.sh). Then:
#   1. PODS DAG task pods (jobs of 20 independent tasks, a deadline 10 h away, 100m CPU and
#      128Mi each, bare pods) are created in namespace bench, 500 per kubectl call and four calls
#      at a time, bound by
#      spec.nodeName round-robin to every node but the URGENT target nodes (kube-scheduler would
#      take minutes to place 20,000 pods; the controller sees the same pods either way). They carry
#      dagsched.io/runtime-scaled already, so that kwok starts them without the runtime scaler.
#   2. Each of the URGENT target nodes (8-cpu general nodes) is filled by four 2-cpu Jobs of one
#      task each (run time 5 h), placed by kube-scheduler.
#   3. The controller (release build, leader election off) and, when its binary is given, the
#      extender (release build; kube-scheduler does not call it here, so what is measured is what
#      keeping its snapshot current costs) start; the time until /readyz and their RSS then are
#      printed. After IDLE_S seconds without changes (default 60), their RSS and the CPU seconds
#      they used in them (/proc/PID/stat) are printed.
#  3b. Churn: for CHURN_S seconds (default 30), CHURN_RATE pod changes a second (default 50: one
#      kubectl annotate call a second on the next CHURN_RATE bulk pods, calls overlapping when one
#      takes longer); the changes made, their rate, and the CPU both processes used meanwhile
#      (as a share of one core) are printed.
#   4. One urgent Job per target node, one after the other (2 cpu, 10 s run time, deadline 40 s
#      away, priority class dagsched-urgent, nodeSelector on its node): a watch of the pods of
#      namespace urg (kubectl get -w) timestamps, on this machine, the moment each urgent pod is
#      seen Unschedulable and the moment a victim on its node is seen terminating; the difference
#      is the urgent pod's Unschedulable -> eviction latency (p50 and max printed).
#      FOLLOW_S seconds later (default 60, within the policy's 5 min cooldown), the evictions
#      in the cluster are counted: exactly one per urgent pod, none for a victim's replacement or
#      any other pod (issue 15: one urgent pod causes exactly the evictions it needs and no
#      follow-up eviction). This is the one check of the benchmark: the script exits 1 when the
#      count differs, after printing every figure.
#   5. From the controller's /metrics: rounds, round duration and CPU time
#      (dagsched_controller_decision_{duration,cpu}_seconds: mean and the p99 bucket bound), the
#      write queue (depth now and at each eviction, coalesced, dropped, writes made).
# Each figure is printed next to the goal of issue 16. No pass/fail: a benchmark.
#
# Usage: tests/controller/bench_scale.sh CONTROLLER_BINARY [EXTENDER_BINARY]
#        (NODES=1000 PODS=20000 URGENT=5 IDLE_S=60 WRITE_QPS=20 FOLLOW_S=60 CHURN_S=30
#        CHURN_RATE=50; KEEP=1 keeps the cluster's run directory: the components' logs, and the
#        urgent pods' watch as logs/urgent-watch.txt)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"

if [[ "${1:-}" != "--inside" ]]; then
  CTL_BIN="$(cd "$(dirname "${1:?usage: $0 CONTROLLER_BINARY}")" && pwd)/$(basename "$1")"
  [[ -x "$CTL_BIN" ]] || {
    echo "bench-scale: $CTL_BIN is not an executable" >&2
    exit 1
  }
  EXT_BIN=""
  if [[ -n "${2:-}" ]]; then
    EXT_BIN="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
    [[ -x "$EXT_BIN" ]] || {
      echo "bench-scale: $EXT_BIN is not an executable" >&2
      exit 1
    }
  fi
  LOG_PREFIX=bench-scale
  # shellcheck source=hack/cluster/lib.sh
  source "$ROOT/hack/cluster/lib.sh"
  NODES="${NODES:-1000}" PODS="${PODS:-20000}" URGENT="${URGENT:-5}" IDLE_S="${IDLE_S:-60}"
  WRITE_QPS="${WRITE_QPS:-20}" FOLLOW_S="${FOLLOW_S:-60}"
  CHURN_S="${CHURN_S:-30}" CHURN_RATE="${CHURN_RATE:-50}"
  [[ "$NODES" =~ ^[0-9]+$ && "$PODS" =~ ^[0-9]+$ && "$URGENT" =~ ^[0-9]+$ && "$IDLE_S" =~ ^[0-9]+$ &&
    "$FOLLOW_S" =~ ^[0-9]+$ && "$CHURN_S" =~ ^[0-9]+$ && "$CHURN_RATE" =~ ^[0-9]+$ ]] &&
    ((CHURN_RATE >= 1 && CHURN_RATE <= 500)) &&
    ((URGENT >= 1 && NODES >= 20 && IDLE_S >= 10)) ||
    die "NODES (>= 20), PODS, URGENT (>= 1), IDLE_S (>= 10), FOLLOW_S, CHURN_S and CHURN_RATE (1-500) must be integers"
  tmp="$(mktemp -d /tmp/dagsched-bench-scale.XXXXXX)"
  trap 'rm -rf "$tmp"' EXIT
  "$ROOT/hack/cluster/nodes/gen-large.sh" "$NODES" >"$tmp/nodes.tsv"
  general="$(awk -v n="$URGENT" '!/^#/ && $1 ~ /^general-/ && c < n {print $1; c++}' "$tmp/nodes.tsv")"
  (($(wc -l <<<"$general") >= URGENT)) || die "fewer than URGENT=$URGENT general nodes"
  port="$(pick_port)" ext_port="$(pick_port)"
  export CTL_BIN EXT_BIN TMPD="$tmp" NODES PODS URGENT IDLE_S WRITE_QPS FOLLOW_S CHURN_S CHURN_RATE
  export CTL_PORT="$port" EXT_PORT="$ext_port"
  export TARGETS="$general"
  keep=()
  [[ "${KEEP:-0}" == 1 ]] && keep=(--keep)
  NODE_PROFILE="$tmp/nodes.tsv" "$ROOT/hack/cluster/with-cluster.sh" "${keep[@]}" -- "$0" --inside
  exit $?
fi

# ---- inside the cluster (CLUSTER_DIR, KUBECONFIG, KUBECTL exported) ----
K="$KUBECTL"
LOG_PREFIX=bench-scale
# shellcheck source=hack/cluster/lib.sh
source "$ROOT/hack/cluster/lib.sh"
CTL_LOG="$CLUSTER_DIR/logs/controller.log"
EXT_LOG="$CLUSTER_DIR/logs/extender.log"
ctl_pid="" ext_pid="" watch_pid=""
stop_all() {
  [[ -z "$watch_pid" ]] || kill "$watch_pid" 2>/dev/null || true
  local p
  for p in "$ctl_pid" "$ext_pid"; do
    if [[ -n "$p" ]] && kill -0 "$p" 2>/dev/null; then
      kill "$p" 2>/dev/null || true
      wait "$p" 2>/dev/null || true
    fi
  done
}
trap stop_all EXIT
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
metric() { # NAME_WITH_LABELS -> value (0 when absent)
  local v
  v="$(curl -s --max-time 5 "http://127.0.0.1:$CTL_PORT/metrics" | awk -v m="$1" '$1 == m {print $2}')"
  echo "${v:-0}"
}
# What the resident set of the process on PORT holds now: malloc's heap in use (decoded
# objects, caches, snapshots), malloc's free memory, and the rest (code, libraries, stacks).
mem_split() { # PORT PID
  curl -s --max-time 5 "http://127.0.0.1:$1/metrics" | awk -v rss="$(awk '/^VmRSS/ { print $2 * 1024 }' "/proc/$2/status")" '
    $1 == "dagsched_process_heap_bytes{state=\"in_use\"}" { u = $2 }
    $1 == "dagsched_process_heap_bytes{state=\"free\"}" { f = $2 }
    END { if (u == "") print "-"; else printf "%.1f / %.1f / %.1f MB", u / 1048576, f / 1048576, (rss - u - f) / 1048576 }'
}
# Of the controller, or of the process PID given.
rss_mb() { awk '/^VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/${1:-$ctl_pid}/status"; }
# Wait until a component started at T0 answers /readyz on PORT (at most 600 s).
wait_ready() { # NAME PID PORT LOG T0
  until [[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$3/readyz")" == 200 ]]; do
    kill -0 "$2" 2>/dev/null || die "the $1 exited at start (log $4)"
    (($(awk -v a="$5" -v b="$(now)" 'BEGIN { print (b - a > 600) }'))) && die "$1 not ready after 600 s"
    sleep 0.2
  done
}
hwm_mb() { awk '/^VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/${1:-$ctl_pid}/status"; }
cpu_s() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/${1:-$ctl_pid}/stat"; }
# histogram NAME [LABELS] -> "mean_ms p99_bucket_ms count" from the controller's /metrics;
# LABELS: the series' own labels, e.g. stage="request"
histogram() {
  curl -s --max-time 5 "http://127.0.0.1:$CTL_PORT/metrics" | awk -v n="$1" -v l="${2:-}" '
    BEGIN { bp = n "_bucket{" (l != "" ? l "," : ""); sl = (l != "" ? "{" l "}" : "") }
    index($1, bp "le=") == 1 { match($1, /le="[^"]*"/); b[++nb] = substr($1, RSTART + 4, RLENGTH - 5); c[nb] = $2 }
    $1 == n "_sum" sl { s = $2 } $1 == n "_count" sl { cnt = $2 }
    END { p = "-"; for (k = 1; k <= nb; k++) if (c[k] >= cnt * 0.99) { p = (b[k] == "+Inf" ? "+Inf" : b[k] * 1000); break }
          printf "%.1f %s %d\n", (cnt > 0 ? s / cnt * 1000 : 0), p, cnt }'
}

"$K" create namespace dagsched-system >/dev/null
"$K" create namespace bench >/dev/null
"$K" create namespace urg >/dev/null
"$K" apply -f - >/dev/null <<EOF
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: dagsched-urgent}
value: 1000
preemptionPolicy: Never
description: deadline work whose preemption the dagsched controller decides
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: dagsched-policy-default
  namespace: dagsched-system
  labels: {dagsched.io/kind: SchedulingPolicy}
data:
  policy.yaml: |
    apiVersion: dagsched.io/v1alpha1
    kind: SchedulingPolicy
    metadata: {name: default}
    spec:
      preemption:
        minRunTime: 0s
        maxEvictionsPerNode: 1
        maxEvictionsPerMinute: 30
EOF

echo "bench-scale: $NODES kwok nodes, $PODS DAG task pods, $URGENT urgent pods, load $(cut -d' ' -f1-3 /proc/loadavg)"
# 1. the bulk pods, bound round-robin to the nodes that are not targets
"$K" get nodes -o name | sed 's|^node/||' | grep -vxF -f <(printf '%s\n' "$TARGETS") >"$TMPD/bulk-nodes"
t0="$(now)"
deadline="$(date -u -d '+10 hour' +%Y-%m-%dT%H:%M:%SZ)"
for ((from = 0; from < PODS; from += 500)); do
  to=$((from + 500 < PODS ? from + 500 : PODS))
  awk -v from="$from" -v to="$to" -v dl="$deadline" 'NR == FNR { node[n++] = $1; next } END {
      print "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":["
      for (i = from; i < to; i++) {
        printf "%s{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"t%05d\",\"labels\":{\"dagsched.io/job\":\"j%04d\",\"dagsched.io/task\":\"t%02d\"},", (i > from ? "," : ""), i, int(i / 20), i % 20
        printf "\"annotations\":{\"dagsched.io/runtime\":\"10h\",\"dagsched.io/runtime-scaled\":\"36000000ms\",\"dagsched.io/deadline\":\"%s\"}},", dl
        printf "\"spec\":{\"nodeName\":\"%s\",\"restartPolicy\":\"Never\",\"tolerations\":[{\"operator\":\"Exists\"}],\"containers\":[{\"name\":\"main\",\"image\":\"registry.example/task:1.0\",\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"128Mi\"}}}]}}\n", node[i % n]
      }
      print "]}" }' "$TMPD/bulk-nodes" /dev/null >"$TMPD/chunk-$from.json"
done
# four kubectl processes at a time: one kubectl creates the objects of a list one after the other
find "$TMPD" -name 'chunk-*.json' -print0 | xargs -0 -P 4 -n 1 "$K" -n bench create -f >/dev/null
echo "created $PODS pods in $(since "$t0") s"
running() { "$K" -n "$1" get pods --chunk-size=500 --field-selector=status.phase=Running -o name 2>/dev/null | wc -l; }
t1="$(now)"
until (($(running bench) >= PODS)); do
  (($(awk -v a="$t1" -v b="$(now)" 'BEGIN { print (b - a > 900) }'))) && die "pods not running after 900 s"
  sleep 5
done
echo "all $PODS pods running $(since "$t1") s later"

# 2. the target nodes, full of victims
k=0
for node in $TARGETS; do
  k=$((k + 1))
  for j in 1 2 3 4; do
    "$ROOT/tests/controller/gen-jobs.sh" "v$k-$j" 2 5h - - - "kubernetes.io/hostname=$node"
    echo "---"
  done
done | "$K" -n urg apply -f - >/dev/null
t1="$(now)"
until (($(running urg) >= 4 * URGENT)); do
  (($(awk -v a="$t1" -v b="$(now)" 'BEGIN { print (b - a > 300) }'))) && die "victims not running after 300 s"
  sleep 2
done
echo "$((4 * URGENT)) victim pods running on $URGENT target nodes"

# 3. the controller, ready, then idle
t0="$(now)"
"$CTL_BIN" --kubeconfig "$KUBECONFIG" --leader-elect=false --metrics-listen "127.0.0.1:$CTL_PORT" \
  --scheduler-name= --write-qps "$WRITE_QPS" --log-level info >"$CTL_LOG" 2>&1 &
ctl_pid=$!
wait_ready controller "$ctl_pid" "$CTL_PORT" "$CTL_LOG" "$t0"
ready_s="$(since "$t0")" ready_rss="$(rss_mb)"
if [[ -n "$EXT_BIN" ]]; then
  t2="$(now)"
  "$EXT_BIN" --kubeconfig "$KUBECONFIG" --listen "127.0.0.1:$EXT_PORT" \
    --policy-namespace dagsched-system --log-level info >"$EXT_LOG" 2>&1 &
  ext_pid=$!
  wait_ready extender "$ext_pid" "$EXT_PORT" "$EXT_LOG" "$t2"
  ext_ready_s="$(since "$t2")" ext_ready_rss="$(rss_mb "$ext_pid")"
  echo "extender ready after $ext_ready_s s (RSS $ext_ready_rss MB)"
fi
until (($(metric 'dagsched_controller_rounds_total{outcome="acted"}' | cut -d. -f1) >= 1)); do sleep 0.5; done
first_round_s="$(since "$t0")"
echo "controller ready after $ready_s s (RSS $ready_rss MB), first round acted after $first_round_s s"
# Let the first rounds queue their annotation writes, then measure a quiet minute.
sleep 20
c0="$(cpu_s)" r0="$(metric 'dagsched_controller_rounds_total{outcome="acted"}')"
[[ -z "$ext_pid" ]] || e0="$(cpu_s "$ext_pid")"
w0="$(metric 'dagsched_controller_write_latency_seconds_count{stage="request"}')"
sleep "$IDLE_S"
c1="$(cpu_s)" r1="$(metric 'dagsched_controller_rounds_total{outcome="acted"}')"
[[ -z "$ext_pid" ]] || e1="$(cpu_s "$ext_pid")"
w1="$(metric 'dagsched_controller_write_latency_seconds_count{stage="request"}')"
idle_cpu="$(awk -v a="$c0" -v b="$c1" -v s="$IDLE_S" 'BEGIN { printf "%.2f", (b - a) * 60 / s }')"
idle_rss="$(rss_mb)"
echo "idle ${IDLE_S} s: $(awk -v a="$c0" -v b="$c1" 'BEGIN { printf "%.2f", b - a }') CPU s, $((${r1%.*} - ${r0%.*})) rounds, $((${w1%.*} - ${w0%.*})) annotation writes; RSS $idle_rss MB; write queue depth $(metric dagsched_controller_write_queue_depth)"
if [[ -n "$ext_pid" ]]; then
  ext_idle_cpu="$(awk -v a="$e0" -v b="$e1" -v s="$IDLE_S" 'BEGIN { printf "%.2f", (b - a) * 60 / s }')"
  ext_idle_rss="$(rss_mb "$ext_pid")"
  echo "extender idle ${IDLE_S} s: $(awk -v a="$e0" -v b="$e1" 'BEGIN { printf "%.2f", b - a }') CPU s; RSS $ext_idle_rss MB"
fi

# 3b. churn: CHURN_RATE pod changes a second for CHURN_S seconds (annotations on bulk pods)
churn_made=0 churn_s=0 ext_churn="-" ctl_churn="-"
if ((CHURN_S > 0 && PODS > 0)); then
  c2="$(cpu_s)"
  [[ -z "$ext_pid" ]] || e2="$(cpu_s "$ext_pid")"
  t2="$(now)"
  next=0 churn_pids=()
  for ((sec = 0; sec < CHURN_S; sec++)); do
    names=()
    for ((k = 0; k < CHURN_RATE; k++)); do
      names+=("$(printf 't%05d' $(((next + k) % PODS)))")
    done
    next=$((next + CHURN_RATE))
    "$K" -n bench annotate pods "${names[@]}" "dagsched.io/bench-churn=$sec" --overwrite >/dev/null 2>&1 &
    churn_pids+=($!)
    sleep 1
  done
  wait "${churn_pids[@]}" 2>/dev/null || true
  churn_s="$(since "$t2")"
  churn_made=$((CHURN_S * CHURN_RATE))
  ctl_churn="$(awk -v a="$c2" -v b="$(cpu_s)" -v s="$churn_s" 'BEGIN { printf "%.1f", (b - a) * 100 / s }')"
  [[ -z "$ext_pid" ]] || ext_churn="$(awk -v a="$e2" -v b="$(cpu_s "$ext_pid")" -v s="$churn_s" 'BEGIN { printf "%.1f", (b - a) * 100 / s }')"
  echo "churn: $churn_made pod changes in $churn_s s; CPU meanwhile: controller $ctl_churn %, extender $ext_churn % of a core"
fi

# 4. urgent pods, one after the other
"$K" -n urg get pods -w -o jsonpath='{.metadata.name}{"|"}{.spec.nodeName}{"|"}{.metadata.deletionTimestamp}{"|"}{.status.conditions[?(@.type=="PodScheduled")].reason}{"\n"}' 2>/dev/null |
  while IFS= read -r line; do printf '%s|%s\n' "$(date +%s.%N)" "$line"; done >"$TMPD/watch" &
watch_pid=$!
sleep 2
: >"$TMPD/depths"
k=0
for node in $TARGETS; do
  k=$((k + 1))
  "$ROOT/tests/controller/gen-jobs.sh" "urgent-$k" 2 10s "$(date -u -d '+40 sec' +%Y-%m-%dT%H:%M:%SZ)" \
    dagsched-urgent - "kubernetes.io/hostname=$node" | "$K" -n urg apply -f - >/dev/null
  t1="$(now)"
  until awk -F'|' -v v="^v$k-" '$2 ~ v && $4 != "" { f = 1 } END { exit !f }' "$TMPD/watch"; do
    (($(awk -v a="$t1" -v b="$(now)" 'BEGIN { print (b - a > 90) }'))) && {
      echo "urgent-$k: no eviction within 90 s"
      break
    }
    sleep 0.2
  done
  metric dagsched_controller_write_queue_depth >>"$TMPD/depths"
done
sleep 1
kill "$watch_pid" 2>/dev/null || true
watch_pid=""
cp "$TMPD/watch" "$CLUSTER_DIR/logs/urgent-watch.txt" 2>/dev/null || true
# Follow-up evictions: the victims' Jobs start replacements at once; none of them, and nothing
# else, may evict within the cooldown.
sleep "$FOLLOW_S"
evicted_all="$("$K" get events -A --field-selector reason=DagschedEvicted -o name 2>/dev/null | grep -c . || true)"
: >"$TMPD/lat"
for ((k = 1; k <= URGENT; k++)); do
  awk -F'|' -v u="^urgent-$k-" -v v="^v$k-" '
    $2 ~ u && $5 == "Unschedulable" && !tu { tu = $1 }
    $2 ~ v && $4 != "" && !te { te = $1 }
    END { if (tu && te) printf "%.3f\n", te - tu }' "$TMPD/watch" >>"$TMPD/lat"
done
n_lat="$(grep -c . "$TMPD/lat" || true)"
lat="$(sort -n "$TMPD/lat" | awk '{ v[NR] = $1 } END { if (NR) printf "%.0f %.0f", v[int((NR + 1) / 2)] * 1000, v[NR] * 1000; else print "- -" }')"

# 5. the figures
read -r dur_mean dur_p99 rounds < <(histogram dagsched_controller_decision_duration_seconds)
read -r cpu_mean cpu_p99 _ < <(histogram dagsched_controller_decision_cpu_seconds)
read -r wr_mean wr_p99 writes < <(histogram dagsched_controller_write_latency_seconds 'stage="request"')
read -r wq_mean wq_p99 _ < <(histogram dagsched_controller_write_latency_seconds 'stage="wait"')
tasks="$(curl -s "http://127.0.0.1:$CTL_PORT/metrics" | awk '$1 ~ /^dagsched_controller_tasks\{/ { s += $2 } END { print s + 0 }')"
echo
echo "controller at $NODES nodes, $PODS bulk pods + $((5 * URGENT)) urgent/victim pods ($tasks DAG tasks seen), write-qps $WRITE_QPS:"
printf '  %-48s %-22s %s\n' "figure" "measured" "goal (issue 16)"
printf '  %-48s %-22s %s\n' "urgent Unschedulable -> eviction, p50 / max" "$(cut -d' ' -f1 <<<"$lat") / $(cut -d' ' -f2 <<<"$lat") ms ($n_lat of $URGENT)" "p99 <= 500 ms"
printf '  %-48s %-22s %s\n' "round CPU time, mean / p99 bucket" "$cpu_mean / $cpu_p99 ms" "<= 100 ms"
printf '  %-48s %-22s %s\n' "round duration, mean / p99 bucket ($rounds rounds)" "$dur_mean / $dur_p99 ms" "-"
printf '  %-48s %-22s %s\n' "RSS ready / after idle / peak" "$ready_rss / $idle_rss / $(hwm_mb) MB" "<= 64 MB"
printf '  %-48s %-22s %s\n' "RSS now: heap in use / heap free / other" "$(mem_split "$CTL_PORT" "$ctl_pid")" "-"
printf '  %-48s %-22s %s\n' "CPU per idle minute" "$idle_cpu s" "<= 1 s"
printf '  %-48s %-22s %s\n' "write queue depth at each eviction" "$(tr '\n' ' ' <"$TMPD/depths")" "decisions do not wait"
printf '  %-48s %-22s %s\n' "write queue: depth now, coalesced, dropped" "$(metric dagsched_controller_write_queue_depth), $(metric dagsched_controller_write_queue_coalesced_total), $(metric dagsched_controller_write_queue_dropped_total)" "-"
printf '  %-48s %-22s %s\n' "annotation write request, mean / p99 bucket" "$wr_mean / $wr_p99 ms ($writes)" "-"
printf '  %-48s %-22s %s\n' "annotation write time queued, mean / p99 bucket" "$wq_mean / $wq_p99 ms" "-"
printf '  %-48s %-22s %s\n' "ready after / first round after" "$ready_s / $first_round_s s" "-"
printf '  %-48s %-22s %s\n' "evictions ${FOLLOW_S} s after the last urgent pod" "$evicted_all" "exactly $URGENT (one per urgent pod)"
if [[ -n "$ext_pid" ]]; then
  echo
  echo "extender at $NODES nodes and the same pods (its snapshot kept current; kube-scheduler does not call it here):"
  printf '  %-48s %-22s %s\n' "figure" "measured" "goal (issue 16)"
  printf '  %-48s %-22s %s\n' "RSS ready / after idle / peak" "$ext_ready_rss / $ext_idle_rss / $(hwm_mb "$ext_pid") MB" "<= 64 MB"
  printf '  %-48s %-22s %s\n' "RSS now: heap in use / heap free / other" "$(mem_split "$EXT_PORT" "$ext_pid")" "-"
  printf '  %-48s %-22s %s\n' "CPU per idle minute" "$ext_idle_cpu s" "-"
  printf '  %-48s %-22s %s\n' "CPU under churn ($churn_made changes in $churn_s s)" "$ext_churn % of a core" "<= 5 % at 50 changes/s"
  printf '  %-48s %-22s %s\n' "ready after" "$ext_ready_s s" "-"
fi
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
if [[ "$evicted_all" != "$URGENT" ]]; then
  echo "bench-scale: FAILED: $evicted_all evictions for $URGENT urgent pods (expected exactly one each, no follow-up)" >&2
  exit 1
fi

#!/usr/bin/env bash
# bench_e2e.sh: kube-scheduler's throughput with the dagsched extender against its default profile
# on a local cluster of many kwok nodes (make bench-e2e).
#
# One fresh cluster (hack/cluster/with-cluster.sh, NODES nodes from gen-large.sh); ROUNDS rounds
# in the order A B B A A B B A ... (A: kube-scheduler's default configuration; B: the same plus
# the extender, serving every pod, with nodeCacheCapable). Each round:
#   1. kube-scheduler is stopped; PODS pods are created in a new namespace (DAG tasks without
#      dependencies: jobs of 100 tasks, label dagsched.io/job; 100m CPU, 128Mi each), in chunks
#      of 500 per kubectl call;
#   2. B only: a fresh extender is started and waits until ready (its snapshot holds the backlog);
#   3. a fresh kube-scheduler is started (SCHEDULER_CONFIG + restart-component.sh) and its
#      /metrics polled every 0.2 s; the rate is (PODS - 1) / (time of the last bind - time of
#      the first bind), binds counted by scheduler_schedule_attempts_total{result="scheduled"};
#   4. kube-scheduler's per-pod algorithm time (scheduler_scheduling_algorithm_duration_seconds:
#      mean and the p50 bucket bound) is read, the scheduler and extender stopped, and the pods
#      deleted in chunks (hack/cluster/delete-pods.sh).
# Prints each round, the mean rate of A and of B, the ratio B/A against the goal 0.9, and the
# algorithm times. No pass/fail: a benchmark.
#
# Usage: tests/extender/bench_e2e.sh EXTENDER_BINARY   (NODES=1000 PODS=2000 ROUNDS=4)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"

if [[ "${1:-}" != "--inside" ]]; then
  EXT_BIN="$(cd "$(dirname "${1:?usage: $0 EXTENDER_BINARY}")" && pwd)/$(basename "$1")"
  [[ -x "$EXT_BIN" ]] || {
    echo "bench-e2e: $EXT_BIN is not an executable" >&2
    exit 1
  }
  LOG_PREFIX=bench-e2e
  # shellcheck source=hack/cluster/lib.sh
  source "$ROOT/hack/cluster/lib.sh"
  NODES="${NODES:-1000}" PODS="${PODS:-2000}" ROUNDS="${ROUNDS:-4}"
  [[ "$NODES" =~ ^[0-9]+$ && "$PODS" =~ ^[0-9]+$ && "$ROUNDS" =~ ^[0-9]+$ ]] && ((PODS >= 2 && ROUNDS >= 2)) ||
    die "NODES, PODS (>= 2) and ROUNDS (>= 2) must be integers"
  tmp="$(mktemp -d /tmp/dagsched-bench-e2e.XXXXXX)"
  trap 'rm -rf "$tmp"' EXIT
  port="$(pick_port)"
  "$ROOT/hack/cluster/nodes/gen-large.sh" "$NODES" >"$tmp/nodes.tsv"
  # A: the local cluster's default configuration. B: the same with the extender for every pod.
  cp "$ROOT/hack/cluster/scheduler-config.yaml" "$tmp/a.yaml"
  {
    cat "$ROOT/hack/cluster/scheduler-config.yaml"
    cat <<YAML
extenders:
  - urlPrefix: "http://127.0.0.1:$port"
    filterVerb: filter
    prioritizeVerb: prioritize
    preemptVerb: preempt
    weight: 5
    httpTimeout: 5s
    nodeCacheCapable: true
    ignorable: false
YAML
  } >"$tmp/b.yaml"
  export EXT_BIN EXTENDER_PORT="$port" TMPD="$tmp" NODES PODS ROUNDS
  NODE_PROFILE="$tmp/nodes.tsv" "$ROOT/hack/cluster/with-cluster.sh" -- "$0" --inside
  exit $?
fi

# ---- inside the cluster (CLUSTER_DIR, KUBECONFIG, KUBECTL exported) ----
K="$KUBECTL"
LOG_PREFIX=bench-e2e
# shellcheck source=hack/cluster/lib.sh
source "$ROOT/hack/cluster/lib.sh"
# shellcheck disable=SC1091
source "$CLUSTER_DIR/cluster.env"
EXT_LOG="$CLUSTER_DIR/logs/extender.log"
ext_pid=""
stop_extender() {
  if [[ -n "$ext_pid" ]] && kill -0 "$ext_pid" 2>/dev/null; then
    kill "$ext_pid" 2>/dev/null || true
    wait "$ext_pid" 2>/dev/null || true
  fi
  ext_pid=""
}
trap 'stop_extender' EXIT

start_extender() {
  "$EXT_BIN" --kubeconfig "$KUBECONFIG" --listen "127.0.0.1:$EXTENDER_PORT" \
    --policy-namespace dagsched-system --log-level warn >>"$EXT_LOG" 2>&1 &
  ext_pid=$!
  local i
  for ((i = 0; i < 300; i++)); do
    [[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$EXTENDER_PORT/readyz")" == 200 ]] && return 0
    kill -0 "$ext_pid" 2>/dev/null || die "the extender exited at start (log $EXT_LOG)"
    sleep 0.2
  done
  die "the extender did not become ready within 60 s"
}

sched_metrics() {
  curl -sk --max-time 5 --cert "$CLUSTER_DIR/pki/admin.crt" --key "$CLUSTER_DIR/pki/admin.key" \
    "https://127.0.0.1:$SCHEDULER_PORT/metrics"
}
scheduled() { sched_metrics | awk '$1 ~ /^scheduler_schedule_attempts_total\{/ && /result="scheduled"/ {s += $2} END {printf "%d\n", s}'; }
now() { date +%s.%N; }

# Creates PODS pods in namespace $1, 500 per kubectl call.
create_backlog() {
  local ns="$1" from to
  "$K" create namespace "$ns" >/dev/null
  for ((from = 0; from < PODS; from += 500)); do
    to=$((from + 500 < PODS ? from + 500 : PODS))
    awk -v from="$from" -v to="$to" 'BEGIN {
      print "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":["
      for (i = from; i < to; i++) {
        printf "%s{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"t%05d\",\"labels\":{\"dagsched.io/job\":\"j%03d\"},\"annotations\":{\"dagsched.io/runtime\":\"1h\"}},", (i > from ? "," : ""), i, int(i / 100)
        printf "\"spec\":{\"restartPolicy\":\"Never\",\"tolerations\":[{\"operator\":\"Exists\"}],\"containers\":[{\"name\":\"main\",\"image\":\"registry.example/task:1.0\",\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"128Mi\"}}}]}}\n"
      }
      print "]}" }' | "$K" -n "$ns" create -f - >/dev/null
  done
}

# One round: kind A or B, index $2. Appends "kind rate alg_mean_ms alg_p50_ms" to $TMPD/results.
run_round() {
  local kind="$1" i="$2" ns="bench-$2" conf t0 t_first="" t_last="" n=0 deadline m
  "$ROOT/hack/cluster/restart-component.sh" --stop kube-scheduler >/dev/null 2>&1
  create_backlog "$ns"
  conf="$TMPD/a.yaml"
  if [[ "$kind" == B ]]; then
    conf="$TMPD/b.yaml"
    start_extender
  fi
  SCHEDULER_CONFIG="$conf" "$ROOT/hack/cluster/restart-component.sh" --start kube-scheduler >/dev/null 2>&1 ||
    die "kube-scheduler did not start with $conf"
  t0="$(now)"
  deadline=$((SECONDS + 900))
  while ((n < PODS)); do
    ((SECONDS < deadline)) || die "round $i ($kind): $n of $PODS pods bound after 900 s"
    n="$(scheduled)"
    [[ "$n" =~ ^[0-9]+$ ]] || n=0
    if [[ -z "$t_first" ]] && ((n > 0)); then t_first="$(now)"; fi
    ((n >= PODS)) && t_last="$(now)" && break
    sleep 0.2
  done
  m="$(sched_metrics)"
  read -r mean p50 < <(awk '
    $1 ~ /^scheduler_scheduling_algorithm_duration_seconds_bucket/ {
      match($1, /le="[^"]*"/); le = substr($1, RSTART + 4, RLENGTH - 5); b[++nb] = le; c[nb] = $2 }
    $1 == "scheduler_scheduling_algorithm_duration_seconds_sum" { s = $2 }
    $1 == "scheduler_scheduling_algorithm_duration_seconds_count" { cnt = $2 }
    END { p = "-"; for (k = 1; k <= nb; k++) if (c[k] >= cnt / 2) { p = b[k] * 1000; break }
          printf "%.3f %s\n", (cnt > 0 ? s / cnt * 1000 : 0), p }' <<<"$m")
  rate="$(awk -v n="$PODS" -v a="$t_first" -v b="$t_last" 'BEGIN { printf "%.1f", (b > a ? (n - 1) / (b - a) : 0) }')"
  printf '%s %s %s %s\n' "$kind" "$rate" "$mean" "$p50" >>"$TMPD/results"
  printf 'round %d %s: %d pods bound in %.1f s after the first bind (%.1f s after start): %s pods/s; algorithm time per pod mean %s ms, p50 <= %s ms\n' \
    "$i" "$kind" "$PODS" "$(awk -v a="$t_first" -v b="$t_last" 'BEGIN{print b-a}')" \
    "$(awk -v a="$t0" -v b="$t_last" 'BEGIN{print b-a}')" "$rate" "$mean" "$p50"
  "$ROOT/hack/cluster/restart-component.sh" --stop kube-scheduler >/dev/null 2>&1
  stop_extender
  # The runtime scaler (hack/cluster/runtime-scaler.sh) annotates every bound pod; counted after
  # the measurement so that the count's list requests do not load the API server during it.
  local ann=0 k
  for ((k = 0; k < 120; k++)); do
    ann="$("$K" -n "$ns" get pods --chunk-size=500 -o jsonpath='{range .items[*]}{.metadata.annotations.dagsched\.io/runtime-scaled}{"\n"}{end}' | grep -c ms || true)"
    ((ann >= PODS)) && break
    sleep 1
  done
  printf '  runtime scaler: %d of %d pods annotated %.1f s after the last bind\n' "$ann" "$PODS" \
    "$(awk -v a="$t_last" -v b="$(now)" 'BEGIN{print b-a}')"
  local d0
  d0="$(now)"
  "$ROOT/hack/cluster/delete-pods.sh" --wait "$ns" 2>/dev/null
  printf '  deleted %d pods in chunks of 500 in %.1f s\n' "$PODS" "$(awk -v a="$d0" -v b="$(now)" 'BEGIN{print b-a}')"
}

: >"$TMPD/results"
"$K" create namespace dagsched-system >/dev/null
echo "bench-e2e: $NODES kwok nodes, backlog of $PODS pods, $ROUNDS rounds (A: default profile, B: with the extender), load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 0; r < ROUNDS; r++)); do
  case $((r % 4)) in 0 | 3) kind=A ;; *) kind=B ;; esac
  run_round "$kind" "$r"
done
awk '{ n[$1]++; r[$1] += $2; m[$1] += $3 }
  END {
    ra = r["A"] / n["A"]; rb = r["B"] / n["B"]
    printf "default profile (A): %.1f pods/s (mean of %d rounds); algorithm time per pod %.3f ms\n", ra, n["A"], m["A"] / n["A"]
    printf "with the extender (B): %.1f pods/s (mean of %d rounds); algorithm time per pod %.3f ms\n", rb, n["B"], m["B"] / n["B"]
    printf "ratio B/A: %.2f (goal >= 0.90: %s); algorithm time B/A: %.2f\n", rb / ra, (rb / ra >= 0.9 ? "met" : "NOT met"), (m["B"] / n["B"]) / (m["A"] / n["A"])
  }' "$TMPD/results"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

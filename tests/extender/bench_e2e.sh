#!/usr/bin/env bash
# bench_e2e.sh: kube-scheduler's throughput with the dagsched extender against its default profile
# on a local cluster of many kwok nodes (make bench-e2e).
#
# One fresh cluster (hack/cluster/with-cluster.sh, NODES nodes from gen-large.sh); ROUNDS rounds
# in the order A S P P S A A S P ... (A: kube-scheduler's default configuration; S: the same plus
# the extender as the Helm chart configures it, serving every pod: HTTPS with a CA-signed
# certificate (hack/gen-test-certs.sh, caFile and serverName as the chart writes them), the
# chart's verbs, weight, httpTimeout, nodeCacheCapable, ignorable and kube-scheduler's client QPS
# and burst, read from helm/dagsched/values.yaml; P: the same over plain HTTP, for comparison).
# Each round:
#   1. kube-scheduler is stopped; PODS pods are created in a new namespace (DAG tasks without
#      dependencies: jobs of 100 tasks, label dagsched.io/job; 100m CPU, 128Mi each), in chunks
#      of 500 per kubectl call;
#   2. S and P: a fresh extender is started and waits until ready (its snapshot holds the
#      backlog);
#   3. a fresh kube-scheduler is started (SCHEDULER_CONFIG + restart-component.sh) and its
#      /metrics polled every 0.2 s; the rate is (PODS - 1) / (time of the last bind - time of
#      the first bind), binds counted by scheduler_schedule_attempts_total{result="scheduled"};
#   4. kube-scheduler's per-pod algorithm time (scheduler_scheduling_algorithm_duration_seconds:
#      mean and the p50 bucket bound) is read; S and P: where the extender's part of it goes, from
#      the extender's /metrics before kube-scheduler starts and after the last bind: its calls per
#      pod (dagsched_extender_requests_total), its own time per pod (the sum of
#      request_duration_seconds: parse, decide, write), its CPU per pod (process_cpu_seconds_total,
#      every thread: informers and snapshots included) and the body bytes per pod
#      (dagsched_extender_bytes_total, both directions); the rest of the extra algorithm time
#      against A is kube-scheduler's side of the calls: encoding, the transport (TLS in S) and
#      decoding. Then the scheduler and extender are stopped and the pods deleted in chunks
#      (hack/cluster/delete-pods.sh).
# Prints each round, the mean rate of each kind, the ratios S/A (against the goal 0.9) and P/A,
# and the decomposition. With PROFILE_SECONDS > 0 (default 8; 0: off) the first round of each
# kind also takes a CPU profile of kube-scheduler (its /debug/pprof/profile, PROFILE_SECONDS long,
# from the first bind) and prints, from `go tool pprof -top -cum`, the share of its samples in the
# scheduling cycle and in its extender calls (send, JSON, TLS); the profiles stay in the cluster's
# run directory. No pass/fail: a benchmark.
#
# Usage: tests/extender/bench_e2e.sh EXTENDER_BINARY   (NODES=1000 PODS=2000 ROUNDS=6)
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
  NODES="${NODES:-1000}" PODS="${PODS:-2000}" ROUNDS="${ROUNDS:-6}"
  [[ "$NODES" =~ ^[0-9]+$ && "$PODS" =~ ^[0-9]+$ && "$ROUNDS" =~ ^[0-9]+$ ]] && ((PODS >= 2 && ROUNDS >= 3)) ||
    die "NODES, PODS (>= 2) and ROUNDS (>= 3) must be integers"
  tmp="$(mktemp -d /tmp/dagsched-bench-e2e.XXXXXX)"
  trap 'rm -rf "$tmp"' EXIT
  port="$(pick_port)"
  "$ROOT/hack/cluster/nodes/gen-large.sh" "$NODES" >"$tmp/nodes.tsv"
  "$ROOT/hack/gen-test-certs.sh" "$tmp/certs"
  # A: the local cluster's default configuration. S and P: the same with the extender for every
  # pod as the chart configures it (helm/dagsched/values.yaml), over HTTPS and over plain HTTP.
  python3 - "$ROOT" "$tmp" "$port" <<'PY' || die "cannot render the scheduler configurations"
import sys, yaml
root, tmp, port = sys.argv[1], sys.argv[2], sys.argv[3]
values = yaml.safe_load(open(f"{root}/helm/dagsched/values.yaml"))
sched = values["scheduler"]
ext = sched["extender"]
base = yaml.safe_load(open(f"{root}/hack/cluster/scheduler-config.yaml"))
base["clientConnection"]["qps"] = sched["clientConnection"]["qps"]
base["clientConnection"]["burst"] = sched["clientConnection"]["burst"]
with open(f"{tmp}/a.yaml", "w") as f:
    yaml.safe_dump(base, f, sort_keys=False)
for kind, https in (("s", True), ("p", False)):
    e = {"urlPrefix": f"{'https' if https else 'http'}://127.0.0.1:{port}",
         "filterVerb": "filter", "prioritizeVerb": "prioritize"}
    if ext.get("preempt", True):
        e["preemptVerb"] = "preempt"
    e.update({"weight": ext["weight"], "httpTimeout": ext["httpTimeout"], "nodeCacheCapable": True,
              "ignorable": ext["ignorable"], "enableHTTPS": https})
    if https:
        e["tlsConfig"] = {"caFile": f"{tmp}/certs/ca.crt", "serverName": "localhost"}
    conf = dict(base, extenders=[e])
    with open(f"{tmp}/{kind}.yaml", "w") as f:
        yaml.safe_dump(conf, f, sort_keys=False)
PY
  PROFILE_SECONDS="${PROFILE_SECONDS:-8}"
  [[ "$PROFILE_SECONDS" =~ ^[0-9]+$ ]] || die "PROFILE_SECONDS must be an integer"
  export EXT_BIN EXTENDER_PORT="$port" TMPD="$tmp" NODES PODS ROUNDS PROFILE_SECONDS
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

# The extender's base URL and curl's TLS flags for the round's kind (S: HTTPS, P: plain HTTP).
ext_url="" ext_curl=()
start_extender() { # $1: S or P
  local -a tls=()
  if [[ "$1" == S ]]; then
    tls=(--tls-cert "$TMPD/certs/a.crt" --tls-key "$TMPD/certs/a.key")
    ext_url="https://127.0.0.1:$EXTENDER_PORT" ext_curl=(--cacert "$TMPD/certs/ca.crt")
  else
    ext_url="http://127.0.0.1:$EXTENDER_PORT" ext_curl=()
  fi
  "$EXT_BIN" --kubeconfig "$KUBECONFIG" --listen "127.0.0.1:$EXTENDER_PORT" "${tls[@]}" \
    --policy-namespace dagsched-system --log-level warn >>"$EXT_LOG" 2>&1 &
  ext_pid=$!
  local i
  for ((i = 0; i < 300; i++)); do
    [[ "$(curl -s "${ext_curl[@]}" -o /dev/null -w '%{http_code}' "$ext_url/readyz")" == 200 ]] && return 0
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
# The extender's figures: "calls seconds cpu_seconds bytes" (filter and prioritize calls, their
# handling time summed, the process's CPU, the verbs' body bytes both ways).
ext_figures() {
  curl -s --max-time 5 "${ext_curl[@]}" "$ext_url/metrics" | awk '
    $1 ~ /^dagsched_extender_requests_total\{verb="(filter|prioritize)"/ { calls += $2 }
    $1 ~ /^dagsched_extender_request_duration_seconds_sum\{verb="(filter|prioritize)"/ { secs += $2 }
    $1 == "process_cpu_seconds_total" { cpu = $2 }
    $1 ~ /^dagsched_extender_bytes_total\{/ { bytes += $2 }
    END { printf "%d %.6f %.3f %d\n", calls, secs, cpu, bytes }'
}
now() { date +%s.%N; }
# A CPU profile of kube-scheduler, $1 seconds, into $2 (in the background: the caller waits).
sched_profile() {
  curl -sk --max-time $(($1 + 20)) --cert "$CLUSTER_DIR/pki/admin.crt" --key "$CLUSTER_DIR/pki/admin.key" \
    -o "$2" "https://127.0.0.1:$SCHEDULER_PORT/debug/pprof/profile?seconds=$1"
}
# What a profile shows: the share of samples under the scheduling cycle and the extender calls.
profile_summary() {
  local go
  go="$(command -v go || echo /usr/local/go/bin/go)"
  [[ -s "$1" && -x "$go" ]] || {
    echo "  profile: none (no profile taken, or no go toolchain to read it)"
    return 0
  }
  "$go" tool pprof -top -cum -nodecount=400 "$1" 2>/dev/null | awk '
    /^Duration:/ { total = $0 }
    $6 ~ /\(\*Scheduler\)\.schedulingCycle$/ { cyc = $5 }
    $6 ~ /\(\*HTTPExtender\)\.Filter$/ { flt = $5 }
    $6 ~ /\(\*HTTPExtender\)\.Prioritize$/ { pri = $5 }
    $6 ~ /\(\*HTTPExtender\)\.send$/ { snd = $5 }
    $6 ~ /^encoding\/json\.Marshal$/ { enc = $5 }
    $6 ~ /^encoding\/json\.\(\*Decoder\)\.Decode$/ { dec = $5 }
    $6 ~ /^crypto\/tls\.\(\*Conn\)\.(Write|Read)$/ { tls = tls " " $6 " " $5 }
    END {
      printf "  profile: %s\n", total
      printf "  cumulative share of samples: scheduling cycle %s; extender calls: Filter %s, Prioritize %s (send %s: JSON encoding %s, decoding %s; TLS%s)\n", \
        cyc ? cyc : "-", flt ? flt : "-", pri ? pri : "-", snd ? snd : "-", enc ? enc : "-", dec ? dec : "-", tls ? tls : " -"
    }'
}

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

# One round: kind A, S or P, index $2. Appends "kind rate alg_mean_ms alg_p50_ms calls_per_pod
# ext_ms_per_pod ext_cpu_ms_per_pod bytes_per_pod" to $TMPD/results (the last four "-" for A).
run_round() {
  local kind="$1" i="$2" ns="bench-$2" conf t0 t_first="" t_last="" n=0 deadline m before="" after=""
  "$ROOT/hack/cluster/restart-component.sh" --stop kube-scheduler >/dev/null 2>&1
  create_backlog "$ns"
  conf="$TMPD/a.yaml"
  if [[ "$kind" != A ]]; then
    conf="$TMPD/${kind,,}.yaml"
    start_extender "$kind"
    before="$(ext_figures)"
  fi
  SCHEDULER_CONFIG="$conf" "$ROOT/hack/cluster/restart-component.sh" --start kube-scheduler >/dev/null 2>&1 ||
    die "kube-scheduler did not start with $conf"
  t0="$(now)"
  deadline=$((SECONDS + 900))
  local prof="" prof_pid=""
  if ((PROFILE_SECONDS > 0)) && [[ " $PROFILED " != *" $kind "* ]]; then
    prof="$CLUSTER_DIR/scheduler-profile-$kind.pb.gz"
    PROFILED+=" $kind"
  fi
  while ((n < PODS)); do
    ((SECONDS < deadline)) || die "round $i ($kind): $n of $PODS pods bound after 900 s"
    n="$(scheduled)"
    [[ "$n" =~ ^[0-9]+$ ]] || n=0
    if [[ -z "$t_first" ]] && ((n > 0)); then
      t_first="$(now)"
      if [[ -n "$prof" ]]; then
        sched_profile "$PROFILE_SECONDS" "$prof" &
        prof_pid=$!
      fi
    fi
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
  local ext="- - - -"
  if [[ -n "$before" ]]; then
    after="$(ext_figures)"
    ext="$(awk -v n="$PODS" -v b="$before" -v a="$after" 'BEGIN {
      split(b, x, " "); split(a, y, " ")
      printf "%.2f %.3f %.3f %.0f", (y[1] - x[1]) / n, (y[2] - x[2]) * 1000 / n, (y[3] - x[3]) * 1000 / n, (y[4] - x[4]) / n }')"
  fi
  printf '%s %s %s %s %s\n' "$kind" "$rate" "$mean" "$p50" "$ext" >>"$TMPD/results"
  printf 'round %d %s: %d pods bound in %.1f s after the first bind (%.1f s after start): %s pods/s; algorithm time per pod mean %s ms, p50 <= %s ms\n' \
    "$i" "$kind" "$PODS" "$(awk -v a="$t_first" -v b="$t_last" 'BEGIN{print b-a}')" \
    "$(awk -v a="$t0" -v b="$t_last" 'BEGIN{print b-a}')" "$rate" "$mean" "$p50"
  if [[ -n "$before" ]]; then
    read -r calls ems ecpu ebytes <<<"$ext"
    printf '  extender per pod: %s calls, %s ms handling them, %s ms of CPU, %s bytes of bodies\n' \
      "$calls" "$ems" "$ecpu" "$ebytes"
  fi
  if [[ -n "$prof_pid" ]]; then
    wait "$prof_pid" || true
    profile_summary "$prof"
  fi
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
echo "bench-e2e: $NODES kwok nodes, backlog of $PODS pods, $ROUNDS rounds (A: default profile, S: with the extender as the chart configures it, over HTTPS; P: the same over plain HTTP), load $(cut -d' ' -f1-3 /proc/loadavg)"
kinds=(A S P P S A)
PROFILED=""
for ((r = 0; r < ROUNDS; r++)); do
  run_round "${kinds[r % 6]}" "$r"
done
awk '{ n[$1]++; r[$1] += $2; m[$1] += $3
       if ($5 != "-") { c[$1] += $5; e[$1] += $6; u[$1] += $7; b[$1] += $8 } }
  function line(k, what) {
    if (!n[k]) return
    printf "%s (%s): %.1f pods/s (mean of %d rounds); algorithm time per pod %.3f ms\n", what, k, r[k] / n[k], n[k], m[k] / n[k]
  }
  function split_time(k, what) {
    if (!n[k] || !n["A"]) return
    extra = m[k] / n[k] - m["A"] / n["A"]
    printf "  %s: %.3f ms more per pod than A: the extender handling %.2f calls %.3f ms, kube-scheduler'"'"'s side of them (encoding, transport, decoding) %.3f ms; extender CPU %.3f ms, %.0f bytes of bodies per pod\n", what, extra, c[k] / n[k], e[k] / n[k], extra - e[k] / n[k], u[k] / n[k], b[k] / n[k]
  }
  END {
    line("A", "default profile"); line("S", "with the extender, the chart'"'"'s HTTPS"); line("P", "with the extender, plain HTTP")
    ra = r["A"] / n["A"]
    if (n["S"]) printf "ratio S/A: %.2f (goal >= 0.90: %s); algorithm time S/A: %.2f\n", r["S"] / n["S"] / ra, (r["S"] / n["S"] / ra >= 0.9 ? "met" : "NOT met"), (m["S"] / n["S"]) / (m["A"] / n["A"])
    if (n["P"]) printf "ratio P/A: %.2f (plain HTTP, for comparison); algorithm time P/A: %.2f\n", r["P"] / n["P"] / ra, (m["P"] / n["P"]) / (m["A"] / n["A"])
    print "where the extra algorithm time goes (means over the rounds):"
    split_time("S", "HTTPS"); split_time("P", "plain HTTP")
  }' "$TMPD/results"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

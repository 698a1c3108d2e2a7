#!/usr/bin/env bash
# bench/release/run.sh: the controller's release throughput on a local cluster of many kwok nodes
# (make bench-release).
#
# One fresh cluster (hack/cluster/with-cluster.sh, NODES kwok nodes from gen-large.sh), then one
# run per value of RELEASE_CONCURRENCY (default "1 16": one release after another, then the
# controller's default window), each on a batch of its own:
#   1. PODS gated DAG task pods (default 2000; jobs of 50 independent tasks, 10m CPU and 16Mi
#      each, the scheduling gate dagsched.io/dependencies, a run time of 10 h) are created in a
#      namespace of the run while no controller runs, 500 per kubectl call and four calls at a
#      time: every task is ready and the nodes have room for all of them (and the earlier runs'
#      pods, which keep running).
#   2. The controller (release build, leader election off, every scheduler's pods,
#      --release-concurrency N, CTL_ARGS added) starts; its first round finds PODS tasks to
#      release. Every 0.5 s its dagsched_controller_releases_total is sampled, until every pod is
#      released (or no release for 60 s, or 600 s). Once every pod runs (kube-scheduler and kwok
#      at work), the controller stops.
#   3. The figures: the release rate from the pods' own dagsched.io/released-at annotations
#      (the controller's clock when it sent each release): sustained (the middle 80 % of the
#      releases over the time they took), overall (first to last) and the median and best
#      1-second rates of the sampled counter; the rounds and their CPU time
#      (dagsched_controller_decision_{duration,cpu}_seconds); each release's PATCH and its
#      Released Event as the controller waited for them (dagsched_controller_release_request_
#      seconds); the PATCH requests on pods at the API server (apiserver_request_duration_seconds);
#      the controller's requests by verb. Means, then p50 / p90 / p99 as bucket bounds.
#   4. Baseline: the API server's own ceiling on this machine for the same kind of write, with no
#      controller running: one strategic merge patch of an annotation on each pod of the last
#      batch, WINDOW (default 16) in flight at once, sent by one curl process (--parallel, a
#      connection each), then SERIAL_N (default 300) of them one at a time; their rate and
#      latency (exact quantiles).
# CTL_BEFORE=BINARY adds a first run of another controller binary (an older build) with its own
# defaults. Each figure is printed beside the target of issue 33 (>= 100 releases/s sustained).
# A benchmark: it prints figures and never fails on them (exit 1 only when the cluster or a
# controller cannot be set up). About 6 minutes at the defaults.
#
# Usage: bench/release/run.sh CONTROLLER_BINARY
#        (NODES=1000 PODS=2000 RELEASE_CONCURRENCY="1 16" WINDOW=16 SERIAL_N=300 CTL_ARGS="..."
#        CTL_BEFORE=...; KEEP=1 keeps the cluster's run directory: the controllers' logs, each
#        run's samples, metrics and release times, the report). An item of RELEASE_CONCURRENCY
#        may add flags of its own run: "16:--kube-api-qps=0,--min-round-interval=2s".
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"

if [[ "${1:-}" != "--inside" ]]; then
  CTL_BIN="$(cd "$(dirname "${1:?usage: $0 CONTROLLER_BINARY}")" && pwd)/$(basename "$1")"
  [[ -x "$CTL_BIN" ]] || {
    echo "bench-release: $CTL_BIN is not an executable" >&2
    exit 1
  }
  LOG_PREFIX=bench-release
  # shellcheck source=hack/cluster/lib.sh
  source "$ROOT/hack/cluster/lib.sh"
  NODES="${NODES:-1000}" PODS="${PODS:-2000}" WINDOW="${WINDOW:-16}" SERIAL_N="${SERIAL_N:-300}"
  [[ "$NODES" =~ ^[0-9]+$ && "$PODS" =~ ^[0-9]+$ && "$WINDOW" =~ ^[0-9]+$ && "$SERIAL_N" =~ ^[0-9]+$ ]] &&
    ((NODES >= 1 && PODS >= 10 && WINDOW >= 1 && WINDOW <= 256)) ||
    die "NODES (>= 1), PODS (>= 10), WINDOW (1-256) and SERIAL_N must be integers"
  tmp="$(mktemp -d /tmp/dagsched-bench-release.XXXXXX)"
  trap 'rm -rf "$tmp"' EXIT
  "$ROOT/hack/cluster/nodes/gen-large.sh" "$NODES" >"$tmp/nodes.tsv"
  # The runs, one batch of PODS pods each: NAME|BINARY|FLAGS
  {
    [[ -z "${CTL_BEFORE:-}" ]] || echo "before|$(cd "$(dirname "$CTL_BEFORE")" && pwd)/$(basename "$CTL_BEFORE")|"
    k=0
    for item in ${RELEASE_CONCURRENCY:-1 16}; do
      w="${item%%:*}" extra=""
      [[ "$item" == *:* ]] && extra="${item#*:}"
      [[ "$w" =~ ^[0-9]+$ ]] || die "RELEASE_CONCURRENCY: N or N:--FLAG=VALUE items (got '$item')"
      k=$((k + 1))
      echo "w$w${extra:+-$k}|$CTL_BIN|--release-concurrency $w ${CTL_ARGS:-} ${extra//,/ }"
    done
  } >"$tmp/runs"
  export CTL_BIN TMPD="$tmp" NODES PODS WINDOW SERIAL_N
  export CTL_PORT="$(pick_port)"
  keep=()
  [[ "${KEEP:-0}" == 1 ]] && keep=(--keep)
  NODE_PROFILE="$tmp/nodes.tsv" "$ROOT/hack/cluster/with-cluster.sh" "${keep[@]}" -- "$0" --inside
  exit $?
fi

# ---- inside the cluster (CLUSTER_DIR, KUBECONFIG, KUBECTL exported) ----
K="$KUBECTL"
LOG_PREFIX=bench-release
# shellcheck source=hack/cluster/lib.sh
source "$ROOT/hack/cluster/lib.sh"
ctl_pid="" sampler_pid=""
stop_ctl() {
  [[ -z "$sampler_pid" ]] || kill "$sampler_pid" 2>/dev/null || true
  sampler_pid=""
  if [[ -n "$ctl_pid" ]] && kill -0 "$ctl_pid" 2>/dev/null; then
    kill "$ctl_pid" 2>/dev/null || true
    wait "$ctl_pid" 2>/dev/null || true
  fi
  ctl_pid=""
}
trap stop_ctl EXIT
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
older() { awk -v a="$1" -v b="$(now)" -v s="$2" 'BEGIN { exit !(b - a > s) }'; }
metrics() { curl -s --max-time 5 "http://127.0.0.1:$CTL_PORT/metrics"; }
released() {
  local v
  v="$(metrics | awk '$1 == "dagsched_controller_releases_total{kind=\"pod\"}" { print $2 }')"
  echo "${v:-0}" | cut -d. -f1
}
read_apiserver() { "$K" get --raw /metrics 2>/dev/null | grep -E '^apiserver_request_duration_seconds_(bucket|sum|count)\{' |
  grep 'verb="PATCH"' | grep 'resource="pods"' | grep 'subresource=""' >"$1" || true; }
running() { "$K" -n "$1" get pods --chunk-size=500 --field-selector=status.phase=Running -o name 2>/dev/null | wc -l; }

"$K" create namespace dagsched-system >/dev/null
echo "bench-release: $NODES kwok nodes, $PODS gated DAG task pods a run, runs: $(tr '\n' ' ' <"$TMPD/runs"), load $(cut -d' ' -f1-3 /proc/loadavg)"

# 1. PODS gated pods in namespace NS, all ready, with room for all
create_pods() { # NS
  local from to t0
  "$K" create namespace "$1" >/dev/null
  rm -f "$TMPD"/chunk-*.json
  t0="$(now)"
  for ((from = 0; from < PODS; from += 500)); do
    to=$((from + 500 < PODS ? from + 500 : PODS))
    awk -v from="$from" -v to="$to" 'BEGIN {
      print "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":["
      for (i = from; i < to; i++) {
        printf "%s{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"r%05d\",\"labels\":{\"dagsched.io/job\":\"j%03d\",\"dagsched.io/task\":\"t%02d\"},", (i > from ? "," : ""), i, int(i / 50), i % 50
        printf "\"annotations\":{\"dagsched.io/runtime\":\"10h\",\"dagsched.io/runtime-scaled\":\"36000000ms\"}},"
        printf "\"spec\":{\"schedulingGates\":[{\"name\":\"dagsched.io/dependencies\"}],\"restartPolicy\":\"Never\",\"tolerations\":[{\"operator\":\"Exists\"}],\"containers\":[{\"name\":\"main\",\"image\":\"registry.example/task:1.0\",\"resources\":{\"requests\":{\"cpu\":\"10m\",\"memory\":\"16Mi\"}}}]}}\n"
      }
      print "]}" }' >"$TMPD/chunk-$from.json"
  done
  find "$TMPD" -name 'chunk-*.json' -print0 | xargs -0 -P 4 -n 1 "$K" -n "$1" create -f >/dev/null
  echo "$1: created $PODS gated pods in $(since "$t0") s"
}

# 2-3. One run: the controller BINARY with FLAGS releases the pods of NS; files into DIR.
measure() { # NAME BINARY FLAGS
  local name="$1" bin="$2" flags="$3" ns="bench-$1" dir="$TMPD/run-$1" n last_n=-1 last_t t_start t1
  mkdir -p "$dir"
  create_pods "$ns"
  read_apiserver "$dir/apiserver-0"
  t_start="$(now)"
  echo "$t_start" >"$dir/start"
  echo "$flags" >"$dir/flags"
  # shellcheck disable=SC2086 # flags: split on purpose
  "$bin" --kubeconfig "$KUBECONFIG" --leader-elect=false --metrics-listen "127.0.0.1:$CTL_PORT" \
    --scheduler-name= --log-level info $flags >"$CLUSTER_DIR/logs/controller-$name.log" 2>&1 &
  ctl_pid=$!
  (while :; do
    printf '%s %s\n' "$(now)" "$(released 2>/dev/null || echo 0)"
    sleep 0.5
  done) >"$dir/samples" &
  sampler_pid=$!
  last_t="$(now)"
  while :; do
    kill -0 "$ctl_pid" 2>/dev/null || die "the controller exited (log $CLUSTER_DIR/logs/controller-$name.log)"
    n="$(released 2>/dev/null || echo 0)"
    ((n >= PODS)) && break
    if ((n != last_n)); then
      last_n=$n last_t="$(now)"
    elif older "$last_t" 60; then
      echo "$name: no release for 60 s: $n of $PODS released"
      break
    fi
    older "$t_start" 600 && {
      echo "$name: 600 s: $n of $PODS released"
      break
    }
    sleep 0.5
  done
  sleep 1
  kill "$sampler_pid" 2>/dev/null || true
  sampler_pid=""
  read_apiserver "$dir/apiserver-1"
  metrics >"$dir/metrics"
  "$K" -n "$ns" get pods --chunk-size=500 -o jsonpath='{range .items[*]}{.metadata.name}{" "}{.metadata.annotations.dagsched\.io/released-at}{"\n"}{end}' >"$dir/released-at"
  # every pod bound and running before the next run (kube-scheduler and kwok at work)
  t1="$(now)"
  until (($(running "$ns") >= PODS)); do
    older "$t1" 300 && {
      echo "$name: not every pod runs 300 s later; going on"
      break
    }
    sleep 3
  done
  since "$t1" >"$dir/running-s"
  stop_ctl
  echo "$name: $(grep -c ' .' "$dir/released-at" || true) pods released, all running $(cat "$dir/running-s") s later"
}

while IFS='|' read -r name bin flags; do
  [[ -n "$name" ]] && measure "$name" "$bin" "$flags" </dev/null
done <"$TMPD/runs"

# 4. the baseline: the same kind of PATCH on the last run's pods, by curl, WINDOW at once, then
# one at a time
last="$(tail -1 "$TMPD/runs" | cut -d'|' -f1)"
server="$("$K" config view --raw -o jsonpath='{.clusters[0].cluster.server}')"
pki="$CLUSTER_DIR/pki"
curl_cfg() { # COUNT TAG -> a curl config of COUNT patches
  awk -v n="$1" -v tag="$2" -v ns="bench-$last" -v server="$server" -v pki="$pki" 'BEGIN {
    for (i = 0; i < n; i++) {
      printf "url = \"%s/api/v1/namespaces/%s/pods/r%05d\"\n", server, ns, i
      print "request = \"PATCH\""
      print "header = \"Content-Type: application/strategic-merge-patch+json\""
      printf "data = \"{\\\"metadata\\\":{\\\"annotations\\\":{\\\"bench.dagsched.io/baseline\\\":\\\"%s-%d\\\"}}}\"\n", tag, i
      printf "cert = \"%s/admin.crt\"\nkey = \"%s/admin.key\"\ncacert = \"%s/ca.crt\"\n", pki, pki, pki
      print "output = \"/dev/null\""
      print "silent"
      print "write-out = \"%{http_code} %{time_total}\\n\""
      if (i < n - 1) print "next"
    } }'
}
curl_cfg "$PODS" parallel >"$TMPD/curl-parallel"
t2="$(now)"
curl --parallel --parallel-immediate --parallel-max "$WINDOW" -K "$TMPD/curl-parallel" >"$TMPD/baseline-parallel" 2>/dev/null || true
base_par_s="$(since "$t2")"
serial_n=$((SERIAL_N < PODS ? SERIAL_N : PODS))
base_ser_s=0
: >"$TMPD/baseline-serial"
if ((serial_n > 0)); then
  curl_cfg "$serial_n" serial >"$TMPD/curl-serial"
  t3="$(now)"
  curl -K "$TMPD/curl-serial" >"$TMPD/baseline-serial" 2>/dev/null || true
  base_ser_s="$(since "$t3")"
fi

runs=()
while IFS='|' read -r name _; do
  [[ -n "$name" ]] && runs+=(--run "$name=$TMPD/run-$name")
done <"$TMPD/runs"
python3 "$ROOT/bench/release/report.py" --pods "$PODS" --nodes "$NODES" --window "$WINDOW" "${runs[@]}" \
  --baseline-parallel "$TMPD/baseline-parallel" --baseline-parallel-s "$base_par_s" \
  --baseline-serial "$TMPD/baseline-serial" --baseline-serial-s "$base_ser_s" | tee "$CLUSTER_DIR/logs/report.txt"
cp -r "$TMPD"/run-* "$TMPD/baseline-parallel" "$TMPD/baseline-serial" "$CLUSTER_DIR/logs/" 2>/dev/null || true
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

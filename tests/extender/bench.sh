#!/usr/bin/env bash
# bench.sh: `make bench-extender`: latency and throughput of the extender's filter + prioritize
# verbs (alternating, as kube-scheduler calls them) at 100, 1,000 and 5,000 nodes with 10,000 pods
# cached, under load from wrk, against a floor measured in the same run: the same server parsing
# the same requests and answering constants (bench_server --floor).
#   c=1: one connection, requests back to back (kube-scheduler calls the extender serially);
#   c=8: eight concurrent connections on two wrk threads (throughput).
# Targets: p99 <= 1 ms at 5,000 nodes (c=1); throughput >= 50% of the floor (c=8).
#
# Each configuration runs BENCH_ROUNDS times (default 3), alternating with the floor, and the
# median is printed: on a shared machine single runs are noisy.
#
# Usage: tests/extender/bench.sh BENCH_SERVER [DURATION_S]
set -euo pipefail
SERVER="$1"
DUR="${2:-3}"
ROUNDS="${BENCH_ROUNDS:-3}"
PODS="${BENCH_PODS:-10000}"
NODES_LIST="${BENCH_NODES:-100 1000 5000}"
HERE="$(cd "$(dirname "$0")" && pwd)"
command -v wrk >/dev/null || {
  echo "bench-extender: wrk is not installed (apt-get install wrk)" >&2
  exit 1
}
tmp="$(mktemp -d /tmp/dagsched-bench.XXXXXX)"
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# start_server NAME ARGS...: starts bench_server, sets PORT.
start_server() {
  local name="$1"
  shift
  "$SERVER" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
  pids+=($!)
  local i
  for ((i = 0; i < 600; i++)); do
    if grep -q '^port ' "$tmp/$name.out" 2>/dev/null; then
      PORT="$(awk '/^port / {print $2}' "$tmp/$name.out")"
      return 0
    fi
    sleep 0.1
  done
  echo "bench-extender: $name did not start: $(cat "$tmp/$name.err")" >&2
  exit 1
}

# run PORT CONNS THREADS -> "p50 p99 rps errors"
run() {
  local out
  out="$(BODY="$tmp/request.json" MODE=mix wrk -t"$3" -c"$2" -d"${DUR}s" --timeout 5s \
    -s "$HERE/bench-request.lua" "http://127.0.0.1:$1" | awk '/^RESULT/ {print $3, $4, $5, $6}')"
  [[ -n "$out" ]] || {
    echo "bench-extender: wrk gave no result" >&2
    exit 1
  }
  echo "$out"
}

# median of the arguments
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

printf '\nextender filter+prioritize, %s pods cached, median of %s rounds of %ss per run (latency in microseconds)\n' \
  "$PODS" "$ROUNDS" "$DUR"
printf '%-6s %-8s | %8s %8s %8s | %8s %8s %8s | %s\n' nodes server "c1 p50" "c1 p99" "c1 req/s" \
  "c8 p50" "c8 p99" "c8 req/s" "vs floor (c8)"
summary=()
for n in $NODES_LIST; do
  start_server "real-$n" "$n" "$PODS" --write-bodies "$tmp"
  real_port="$PORT"
  start_server "floor-$n" "$n" "$PODS" --floor
  floor_port="$PORT"
  declare -A m=()
  # Rounds alternate the two servers so that both see the same background load.
  for ((r = 0; r < ROUNDS; r++)); do
    for who in real floor; do
      port="$real_port"
      [[ "$who" == floor ]] && port="$floor_port"
      read -r p50 p99 rps err <<<"$(run "$port" 1 1)"
      ((err == 0)) || { echo "bench-extender: $err failed requests ($who, $n nodes)" >&2; exit 1; }
      m[$who.c1p50]+="$p50 " m[$who.c1p99]+="$p99 " m[$who.c1rps]+="$rps "
      read -r p50 p99 rps err <<<"$(run "$port" 8 2)"
      ((err == 0)) || { echo "bench-extender: $err failed requests ($who, $n nodes)" >&2; exit 1; }
      m[$who.c8p50]+="$p50 " m[$who.c8p99]+="$p99 " m[$who.c8rps]+="$rps "
    done
  done
  declare -A med=()
  for k in "${!m[@]}"; do
    # shellcheck disable=SC2086 # word splitting of the collected values is intended
    med[$k]="$(median ${m[$k]})"
  done
  ratio="$(awk -v a="${med[real.c8rps]}" -v b="${med[floor.c8rps]}" 'BEGIN {printf "%.0f%%", 100 * a / b}')"
  printf '%-6s %-8s | %8s %8s %8s | %8s %8s %8s | %s\n' "$n" dagsched "${med[real.c1p50]}" \
    "${med[real.c1p99]}" "${med[real.c1rps]}" "${med[real.c8p50]}" "${med[real.c8p99]}" \
    "${med[real.c8rps]}" "$ratio"
  printf '%-6s %-8s | %8s %8s %8s | %8s %8s %8s |\n' "$n" floor "${med[floor.c1p50]}" \
    "${med[floor.c1p99]}" "${med[floor.c1rps]}" "${med[floor.c8p50]}" "${med[floor.c8p99]}" \
    "${med[floor.c8rps]}"
  if [[ "$n" == 5000 ]]; then
    summary+=("p99 at 5000 nodes (c1): ${med[real.c1p99]} us (target <= 1000): $(awk -v a="${med[real.c1p99]}" 'BEGIN {print (a <= 1000) ? "met" : "MISSED"}'); floor p99 ${med[floor.c1p99]} us")
  fi
  summary+=("throughput at $n nodes (c8): $ratio of the floor (target >= 50%): $(awk -v a="${med[real.c8rps]}" -v b="${med[floor.c8rps]}" 'BEGIN {print (a >= 0.5 * b) ? "met" : "MISSED"}')")
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  pids=()
  unset m med
done
printf '\n'
printf '%s\n' "${summary[@]}"
printf 'load average during the run: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"

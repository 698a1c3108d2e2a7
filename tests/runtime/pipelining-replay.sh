#!/usr/bin/env bash
# pipelining-replay.sh: replays the pipelining attack on the HTTP servers of both real binaries
# (the extender's API port and the controller's metrics/health port), then the TLS handshake
# flood and the memory attack, each started against a fresh local control plane
# (hack/cluster/with-cluster.sh).
#
# The attack, for ATTACK_SECONDS (default 4) per binary in a bounded loop: connections that each
# send two POST requests with bodies in one write (the second asks to close), read the answers
# for at most 1 s, and close. Then, per binary:
#   - both requests of the first connection were answered;
#   - the process is alive and its resident memory grew by less than RSS_BOUND_KB (20 MB);
#   - its log grew by less than LOG_BOUND_KB (2 MB) during the attack and by less than 64 KB in
#     the 2 s after it (no runaway logging), and it used less than half a core in those 2 s
#     (no spinning service thread);
#   - GET /healthz answers 200 within 2 s;
#   - SIGTERM ends it within 10 s, with exit status 0 (the extender under test is the sanitizer
#     build: a memory error, undefined behaviour or a leak at its exit fails this).
# Before that, on each binary, a deep pipeline (tests/runtime/deep_pipeline.py): 256 KiB of
# pipelined GET /healthz (every 100th GET /metrics) written on one connection without reading
# until the connection takes no more, then read: every request must be answered, in order, with
# no reset.
# Then the TLS handshake flood (tests/runtime/handshake_flood.py) on the extender's sanitizer build
# serving HTTPS with the webhook on its own listener: for FLOOD_SECONDS (default 15), 12 clients
# connect to the webhook port and close again as fast as they can (after a full handshake, after
# their ClientHello only, right after connecting; several hundred connections a second) and 32
# connections connect and never send a byte, while POST /mutate-pods (on new connections and on
# one keep-alive connection) and POST /filter on the other listener are probed every 0.2 s. The
# webhook probes' p99 must stay under 5 s (the API server's webhook timeout) with no timeout, the
# /filter probes' under 1 s, and every silent connection must be dropped within 13 s; then the
# process answers /healthz and ends cleanly on SIGTERM. The same probes without the flood first
# (3 s) give the quiet figures.
# Then the memory attack (tests/runtime/memory_attack.py) on the extender as shipped (the release
# build, HTTPS, the webhook on its own listener, the default limits the chart sets): 16 and then
# 256 TLS connections each send all but the last byte of the largest body allowed (4 MiB on the
# webhook port, 60 MiB on the scheduling port) and hold. Its resident memory must stay under
# MEM_CAP_MB (640 MiB: twice the 256 MiB buffered-bytes budget plus 128 MiB, under the chart's
# 1 GiB limit), requests past the budget are answered 503 and counted, and it answers /healthz
# afterwards. The same on the controller's release build (its metrics port, plain HTTP, bodies of
# at most 4 KiB, 64 connections): under CTL_MEM_CAP_MB (128 MiB).
#
# Usage: tests/runtime/pipelining-replay.sh EXTENDER_BINARY CONTROLLER_BINARY EXTENDER_RELEASE
#        CONTROLLER_RELEASE
#        (make runtime-replay-test; wrap in flock /tmp/dagsched-cluster.lock by hand)
#        REPLAYS: the replays to run, of "pipelining handshake memory" (the default: all).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"

if [[ "${1:-}" != "--inside" ]]; then
  [[ $# -eq 4 && -x "$1" && -x "$2" && -x "$3" && -x "$4" ]] || {
    echo "pipelining-replay: usage: $0 EXTENDER_BINARY CONTROLLER_BINARY EXTENDER_RELEASE CONTROLLER_RELEASE (run make first)" >&2
    exit 1
  }
  EXT_BIN="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
  CTL_BIN="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
  EXT_REL_BIN="$(cd "$(dirname "$3")" && pwd)/$(basename "$3")"
  CTL_REL_BIN="$(cd "$(dirname "$4")" && pwd)/$(basename "$4")"
  export EXT_BIN CTL_BIN EXT_REL_BIN CTL_REL_BIN
  exec "$ROOT/hack/cluster/with-cluster.sh" -- "$0" --inside
fi

# ---- inside the cluster (CLUSTER_DIR, KUBECONFIG, KUBECTL exported) ----
LOG_PREFIX=pipelining-replay
# shellcheck source=hack/cluster/lib.sh
source "$ROOT/hack/cluster/lib.sh"
ATTACK_SECONDS="${ATTACK_SECONDS:-4}"
FLOOD_SECONDS="${FLOOD_SECONDS:-15}"
REPLAYS=" ${REPLAYS:-pipelining handshake memory} "
wants() { [[ "$REPLAYS" == *" $1 "* ]]; }
RSS_BOUND_KB=$((20 * 1024))
LOG_BOUND_KB=$((2 * 1024))
QUIET_LOG_BOUND_B=$((64 * 1024))
LOGDIR="$CLUSTER_DIR/logs"
mkdir -p "$LOGDIR"

log() { echo "pipelining-replay: $*"; }
declare -A PID=()
stop_all() {
  local n
  for n in "${!PID[@]}"; do kill -KILL "${PID[$n]}" 2>/dev/null || true; done
}
trap stop_all EXIT
fail() {
  log "FAIL: $*"
  local f
  for f in "$LOGDIR"/replay-*.log; do
    [[ -f "$f" ]] && { log "--- tail of $f"; tail -n 15 "$f" | cut -c1-300; }
  done
  exit 1
}

healthz_code() { curl -s -m 2 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$1/healthz" || true; }

wait_healthy() { # NAME PORT
  local i
  for ((i = 0; i < 150; i++)); do
    [[ "$(healthz_code "$2")" == 200 ]] && return 0
    kill -0 "${PID[$1]}" 2>/dev/null || fail "$1 exited at start"
    sleep 0.2
  done
  fail "$1 did not answer /healthz within 30 s"
}

rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
size_of() { stat -c %s "$1"; }

# One attack connection: two pipelined POSTs with bodies in one write; prints the answers' status
# lines. Bounded: at most 1 s of reading.
attack_once() { # PORT PATH
  local body='{"Pod":{}}' fd
  local req1="POST $2 HTTP/1.1"$'\r\n'"Host: replay"$'\r\n'"Content-Type: application/json"$'\r\n'"Content-Length: ${#body}"$'\r\n\r\n'"$body"
  local req2="POST $2 HTTP/1.1"$'\r\n'"Host: replay"$'\r\n'"Connection: close"$'\r\n'"Content-Type: application/json"$'\r\n'"Content-Length: ${#body}"$'\r\n\r\n'"$body"
  exec {fd}<>"/dev/tcp/127.0.0.1/$1" || return 0
  printf '%s%s' "$req1" "$req2" >&"$fd" 2>/dev/null || true
  timeout 1 cat <&"$fd" 2>/dev/null | grep -a -o 'HTTP/1\.[01] [0-9][0-9][0-9]' || true
  exec {fd}>&-
}

FAILURES=()
bad() { log "$1"; FAILURES+=("$1"); }
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }

replay() { # NAME PORT PATH LOG
  local name="$1" port="$2" path="$3" logf="$4" pid="${PID[$1]}"
  local rss0 log0 first n=0 deadline
  rss0="$(rss_kb "$pid")"
  log0="$(size_of "$logf")"
  first="$(attack_once "$port" "$path" | wc -l)"
  deadline=$((SECONDS + ATTACK_SECONDS))
  while ((SECONDS < deadline && n < 5000)); do
    attack_once "$port" "$path" >/dev/null
    n=$((n + 1))
  done
  kill -0 "$pid" 2>/dev/null || fail "$name died under the attack"
  local rss1 log1 t0 t1 log2 hz
  hz="$(getconf CLK_TCK)"
  rss1="$(rss_kb "$pid")"
  log1="$(size_of "$logf")"
  t0="$(cpu_ticks "$pid")"
  sleep 2
  t1="$(cpu_ticks "$pid")"
  log2="$(size_of "$logf")"
  log "$name: $((n + 1)) attack connections; the first got $first of 2 answers;" \
    "RSS ${rss0} -> ${rss1} kB; log +$(((log1 - log0) / 1024)) kB during the attack," \
    "+$((log2 - log1)) B in the 2 s after; CPU $((t1 - t0)) of $((2 * hz)) ticks in those 2 s"
  ((first == 2)) || bad "$name: the two pipelined requests got $first answers (want 2)"
  ((rss1 - rss0 < RSS_BOUND_KB)) ||
    bad "$name: RSS grew by $((rss1 - rss0)) kB (bound $RSS_BOUND_KB kB)"
  (((log1 - log0) / 1024 < LOG_BOUND_KB)) ||
    bad "$name: log grew by $(((log1 - log0) / 1024)) kB during the attack (bound $LOG_BOUND_KB kB)"
  ((log2 - log1 < QUIET_LOG_BOUND_B)) ||
    bad "$name: log still growing after the attack (+$((log2 - log1)) B in 2 s)"
  ((t1 - t0 < hz)) || bad "$name: busy after the attack ($((t1 - t0)) ticks of CPU in 2 s)"
  local t code
  t="$(date +%s.%N)"
  code="$(healthz_code "$port")"
  if [[ "$code" == 200 ]]; then
    log "$name: /healthz 200 in $(elapsed "$t") s"
  else
    bad "$name: /healthz answered '$code' after the attack (want 200 within 2 s)"
  fi
  t="$(date +%s.%N)"
  kill -TERM "$pid"
  local i status=0
  for ((i = 0; i < 100; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    bad "$name: still running 10 s after SIGTERM (killed)"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" || status=$?
  unset "PID[$name]"
  if ((status == 0)); then
    log "$name: ended by SIGTERM in $(elapsed "$t") s, exit status 0"
  else
    bad "$name: exit status $status after SIGTERM"
  fi
}

"$KUBECTL" get namespace dagsched-system >/dev/null 2>&1 ||
  "$KUBECTL" create namespace dagsched-system >/dev/null
CERTS="$CLUSTER_DIR/replay-certs"
"$ROOT/hack/gen-test-certs.sh" "$CERTS" >/dev/null
https_code() { curl -s -m 2 --cacert "$CERTS/ca.crt" -o /dev/null -w '%{http_code}' "https://127.0.0.1:$1/healthz" || true; }

# ---- the pipelining attack, on both sanitizer builds
if wants pipelining; then
  ext_port="$(pick_port)"
  ctl_port="$ext_port"
  while [[ "$ctl_port" == "$ext_port" ]]; do ctl_port="$(pick_port)"; done
  ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}" \
    UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
    "$EXT_BIN" --kubeconfig "$KUBECONFIG" --listen "127.0.0.1:$ext_port" \
    --policy-namespace dagsched-system >"$LOGDIR/replay-extender.log" 2>&1 &
  PID[extender]=$!
  "$CTL_BIN" --kubeconfig "$KUBECONFIG" --leader-elect=false \
    --metrics-listen "127.0.0.1:$ctl_port" >"$LOGDIR/replay-controller.log" 2>&1 &
  PID[controller]=$!
  wait_healthy extender "$ext_port"
  wait_healthy controller "$ctl_port"
  log "extender on :$ext_port, controller on :$ctl_port"

  # deep_pipeline NAME PORT: far more pipelined requests than a connection buffers.
  deep_pipeline() {
    local out rc=0
    out="$(python3 "$ROOT/tests/runtime/deep_pipeline.py" --port "$2" --path /healthz \
      --bytes 262144 --every 100)" || rc=$?
    log "$1: deep pipeline: $out"
    ((rc != 2)) || fail "the deep pipeline on $1 could not be run: $out"
    ((rc == 0)) || bad "$1: 256 KiB of pipelined requests were not all answered in order: $out"
  }
  deep_pipeline extender "$ext_port"
  deep_pipeline controller "$ctl_port"

  replay extender "$ext_port" /filter "$LOGDIR/replay-extender.log"
  replay controller "$ctl_port" /healthz "$LOGDIR/replay-controller.log"
fi

# ---- the TLS handshake flood, on the extender's sanitizer build (HTTPS, webhook on its own port)
if wants handshake; then
  api_port="$(pick_port)"
  adm_port="$api_port"
  while [[ "$adm_port" == "$api_port" ]]; do adm_port="$(pick_port)"; done
  ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}" \
    UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
    "$EXT_BIN" --kubeconfig "$KUBECONFIG" --listen "127.0.0.1:$api_port" \
    --tls-cert "$CERTS/a.crt" --tls-key "$CERTS/a.key" --admission-listen "127.0.0.1:$adm_port" \
    --policy-namespace dagsched-system >"$LOGDIR/replay-extender-flood.log" 2>&1 &
  PID[flood]=$!
  for ((i = 0; i < 150; i++)); do
    [[ "$(https_code "$adm_port")" == 200 ]] && break
    kill -0 "${PID[flood]}" 2>/dev/null || fail "the extender exited at start"
    sleep 0.2
  done
  flood() { python3 "$ROOT/tests/runtime/handshake_flood.py" --port "$adm_port" --filter-port "$api_port" --ca "$CERTS/ca.crt" "$@"; }
  out="$(flood --seconds 3 --clients 0 --silent 0)" || fail "the quiet probes could not be made: $out"
  while IFS= read -r line; do log "handshake flood, quiet: $line"; done <<<"$out"
  rc=0
  out="$(flood --seconds "$FLOOD_SECONDS" --clients 12 --silent 32 --check)" || rc=$?
  while IFS= read -r line; do
    if [[ "$line" == violated:* ]]; then
      bad "handshake flood: ${line#violated: }"
    else
      log "handshake flood: $line"
    fi
  done <<<"$out"
  ((rc == 0 || rc == 1)) || fail "the handshake flood could not be carried out (exit $rc)"
  kill -0 "${PID[flood]}" 2>/dev/null || fail "the extender died under the handshake flood"
  [[ "$(https_code "$adm_port")" == 200 && "$(https_code "$api_port")" == 200 ]] ||
    bad "handshake flood: /healthz does not answer 200 on both listeners afterwards"
  t="$(date +%s.%N)"
  kill -TERM "${PID[flood]}"
  status=0
  for ((i = 0; i < 100; i++)); do
    kill -0 "${PID[flood]}" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "${PID[flood]}" 2>/dev/null; then
    bad "handshake flood: the extender still runs 10 s after SIGTERM (killed)"
    kill -KILL "${PID[flood]}" 2>/dev/null || true
  fi
  wait "${PID[flood]}" || status=$?
  unset "PID[flood]"
  ((status == 0)) || bad "handshake flood: the extender's exit status is $status after SIGTERM"
  log "handshake flood: the extender ended by SIGTERM in $(elapsed "$t") s, exit status $status"
fi

# ---- the memory attack, on the extender as shipped
if wants memory; then
  MEM_CAP_MB="${MEM_CAP_MB:-640}"
  api_port="$(pick_port)"
  adm_port="$api_port"
  while [[ "$adm_port" == "$api_port" ]]; do adm_port="$(pick_port)"; done
  "$EXT_REL_BIN" --kubeconfig "$KUBECONFIG" --listen "127.0.0.1:$api_port" \
    --tls-cert "$CERTS/a.crt" --tls-key "$CERTS/a.key" --admission-listen "127.0.0.1:$adm_port" \
    --policy-namespace dagsched-system >"$LOGDIR/replay-extender-release.log" 2>&1 &
  PID[release]=$!
  for ((i = 0; i < 150; i++)); do
    [[ "$(https_code "$adm_port")" == 200 ]] && break
    kill -0 "${PID[release]}" 2>/dev/null || fail "the release extender exited at start"
    sleep 0.2
  done
  # memory_attack NAME CAP_MB HEALTHY_CMD PORT PATH BODY ARGS...: 16 and then 256 connections each
  # holding all but the last byte of BODY on PORT (memory_attack.py, with ARGS); NAME's resident
  # memory must stay under CAP_MB, and HEALTHY_CMD must succeed afterwards.
  memory_attack() {
    local name="$1" cap="$2" healthy="$3" port="$4" path="$5" body="$6" conns out peak_kb
    shift 6
    for conns in 16 256; do
      out="$(python3 "$ROOT/tests/runtime/memory_attack.py" --port "$port" --path "$path" \
        --conns "$conns" --body "$body" --pid "${PID[$name]}" --hold 3 "$@")" ||
        fail "the memory attack on $name could not be carried out: $out"
      log "memory attack ($name): $out"
      peak_kb="${out##*peak_kb=}"
      kill -0 "${PID[$name]}" 2>/dev/null || fail "$name died under the memory attack"
      ((peak_kb < cap * 1024)) ||
        bad "memory attack on $name ($conns connections to $path): RSS peaked at $((peak_kb / 1024)) MiB (cap $cap MiB)"
      $healthy ||
        bad "memory attack on $name ($conns connections to $path): /healthz does not answer 200 afterwards"
    done
  }
  release_healthy() { [[ "$(https_code "$adm_port")" == 200 && "$(https_code "$api_port")" == 200 ]]; }
  memory_attack release "$MEM_CAP_MB" release_healthy "$adm_port" /mutate-pods 4194304 --ca "$CERTS/ca.crt"
  memory_attack release "$MEM_CAP_MB" release_healthy "$api_port" /filter 62914560 --ca "$CERTS/ca.crt"
  refused="$(curl -s --cacert "$CERTS/ca.crt" "https://127.0.0.1:$api_port/metrics" |
    awk '$1 ~ /_http_refused_total\{reason="buffered_bytes"\}$/ {n += $2} END {print n + 0}')"
  log "memory attack: $refused requests refused for the buffered-bytes budget (503)"
  ((refused > 0)) || bad "memory attack: no request was refused for the buffered-bytes budget"
  kill -TERM "${PID[release]}" 2>/dev/null || true
  wait "${PID[release]}" 2>/dev/null || true
  unset "PID[release]"

  CTL_MEM_CAP_MB="${CTL_MEM_CAP_MB:-128}"
  mctl_port="$(pick_port)"
  "$CTL_REL_BIN" --kubeconfig "$KUBECONFIG" --leader-elect=false \
    --metrics-listen "127.0.0.1:$mctl_port" >"$LOGDIR/replay-controller-release.log" 2>&1 &
  PID[ctlrelease]=$!
  wait_healthy ctlrelease "$mctl_port"
  ctl_healthy() { [[ "$(healthz_code "$mctl_port")" == 200 ]]; }
  memory_attack ctlrelease "$CTL_MEM_CAP_MB" ctl_healthy "$mctl_port" /healthz 4096 --plain
  kill -TERM "${PID[ctlrelease]}" 2>/dev/null || true
  wait "${PID[ctlrelease]}" 2>/dev/null || true
  unset "PID[ctlrelease]"
fi

((${#FAILURES[@]} == 0)) || fail "${#FAILURES[@]} check(s) failed: ${FAILURES[*]}"
log "PASS"

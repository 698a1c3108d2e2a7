#!/usr/bin/env bash
# integration-run.sh: the Kubernetes client's integration scenarios, run against the cluster that
# KUBECONFIG and CLUSTER_DIR point at (see integration.sh): list+watch order, watch across an API
# server restart, relist after 410, eviction against a PodDisruptionBudget, the request layer
# (Status answers, retries, connection reuse, body limits, token files, streams) and the writes
# read back, the informer and leader election under transport faults (a byte-forwarding proxy in
# front of the real API server: tests/kube/fault_proxy.h), TLS with a wrong CA, and two processes
# contending for a Lease. Ends with "N passed, M failed".
# Usage: integration-run.sh PROGRAM_DIR
set -uo pipefail
progs="${1:?usage: integration-run.sh PROGRAM_DIR}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
restart=("$root/hack/cluster/restart-component.sh" kube-apiserver)
work="$(mktemp -d /tmp/kube-itest.XXXXXX)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

passed=0 failed=0
run() { # name command...
  local name="$1"
  shift
  if timeout 420 "$@"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "kube-integration: scenario $name FAILED" >&2
  fi
}

run list-watch "$progs/prog_kube_itest" list-watch
# Before the restarts: the PDB's status comes from kube-controller-manager, the pods' readiness
# from kube-scheduler and kwok, and each of them reconnects to a restarted API server on its own
# back-off (seen at over 60 s). This scenario tests the eviction client, not their recovery.
run evict-pdb "$progs/prog_kube_itest" evict-pdb
run relist "$progs/prog_kube_itest" relist "${restart[@]}"
run restart "$progs/prog_kube_itest" restart "${restart[@]}"
# After the restarts: a watch from resourceVersion 1 is answered 410 (prog_client_itest).
run client "$progs/prog_client_itest"
run writes "$progs/prog_writes_itest"
run informer "$progs/prog_informer_itest"
run leader "$progs/prog_leader_itest"

# TLS: a CA that did not sign the server's certificate.
if openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/wrong.key" -out "$work/wrong-ca.pem" \
  -days 1 -subj /CN=wrong-ca >/dev/null 2>&1; then
  run tls-wrong-ca "$progs/prog_kube_itest" tls-wrong-ca "$work/wrong-ca.pem"
else
  echo "kube-integration: cannot generate a CA with openssl" >&2
  failed=$((failed + 1))
fi

# Leader election: two processes, one leads; kill it; the other takes over.
lease_test() {
  local lease="itest-lease-$$" a="$work/a.out" b="$work/b.out"
  echo "== lease"
  "$progs/prog_lease_contender" kube-system "$lease" cand-a 4 3 0.5 >"$a" 2>"$work/a.log" &
  local pa=$!
  pids+=("$pa")
  "$progs/prog_lease_contender" kube-system "$lease" cand-b 4 3 0.5 >"$b" 2>"$work/b.log" &
  local pb=$!
  pids+=("$pb")
  local i leader="" lpid="" other="" opid=""
  for ((i = 0; i < 200; i++)); do
    if grep -q '^LEADING' "$a"; then leader=cand-a lpid=$pa other="$b" opid=$pb && break; fi
    if grep -q '^LEADING' "$b"; then leader=cand-b lpid=$pb other="$a" opid=$pa && break; fi
    sleep 0.1
  done
  if [[ -z "$leader" ]]; then
    echo "FAIL  no candidate started leading within 20 s"
    cat "$work/a.log" "$work/b.log" >&2
    return 1
  fi
  echo "ok    $leader leads"
  sleep 3 # several renewal periods
  local n
  n="$(cat "$a" "$b" | grep -c '^LEADING')"
  if [[ "$n" != 1 ]]; then
    echo "FAIL  $n candidates started leading (want 1)"
    return 1
  fi
  echo "ok    exactly one leader over 3 s of renewals"
  kill -KILL "$lpid"
  local t0=$SECONDS
  for ((i = 0; i < 300; i++)); do
    grep -q '^LEADING' "$other" && break
    sleep 0.1
  done
  if ! grep -q '^LEADING' "$other"; then
    echo "FAIL  the other candidate did not take over within 30 s of the leader's death"
    cat "$work/a.log" "$work/b.log" >&2
    return 1
  fi
  echo "ok    the other candidate took over $((SECONDS - t0)) s after the leader was killed"
  kill -TERM "$opid"
  wait "$opid" 2>/dev/null
  if ! grep -q '^STOPPED' "$other"; then
    echo "FAIL  the new leader did not report stopping on SIGTERM"
    return 1
  fi
  echo "ok    the new leader stopped and released the lease on SIGTERM"
  if [[ -n "${KUBECTL:-}" && -x "${KUBECTL:-}" ]]; then
    local holder
    holder="$("$KUBECTL" get lease -n kube-system "$lease" -o jsonpath='{.spec.holderIdentity}')"
    if [[ -n "$holder" ]]; then
      echo "FAIL  the released lease still names a holder ($holder)"
      return 1
    fi
    echo "ok    the released lease has no holder"
  fi
  echo "== lease: passed"
}
if lease_test; then passed=$((passed + 1)); else failed=$((failed + 1)); fi

echo "kube-integration: $passed passed, $failed failed"
[[ $failed -eq 0 ]]

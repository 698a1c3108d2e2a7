#!/usr/bin/env bash
# run.sh: `make bench-parity`. The simulator against the real control plane: one generated workload
# of DAG jobs with deadlines (bench/parity/gen.py, fixed seed) runs
#
#   1. on a fresh local cluster (hack/cluster: kube-apiserver, etcd, kube-controller-manager,
#      kube-scheduler, kwok nodes of NODE_PROFILE) under dagsched: kube-scheduler with the dagsched
#      profile and the extender over HTTPS, the admission webhook registered through a
#      MutatingWebhookConfiguration (it gates every pod of the dagsched scheduler at creation),
#      the controller releasing the gated tasks; the SchedulingPolicy PARITY_POLICY;
#   2. on another fresh cluster under the default kube-scheduler;
#
# in both runs created the way a workflow engine creates them (hack/demo/baseline_driver.py: each
# task's Job when its upstream tasks have succeeded, no scheduling gate, jobs arriving over time);
#   3. through bin/dagsched-sim, policies dagsched and default, on the same nodes (the untainted
#      ones of the profile) with the delays measured in each real run (report.py real), and
#      `--graph observed`: the driver declares no graph, so the controller knows a job only by the
#      pods created so far;
#
# Every dependency edge of each cluster run is checked from the pods' own timestamps
# (tests/common/check_edges.py): a violated edge fails the run. Then it prints per policy
# makespan, mean job completion time, deadlines met and evictions from the cluster and from the
# simulator side by side, the ratios dagsched/default of each, and their
# agreement |sim ratio / real ratio - 1| (report.py table), and pod by pod the wait in
# kube-scheduler's queue on both sides (report.py waits: waits.txt, the samples in waits.csv; the
# simulator's pods in sim-POLICY-pods.csv). A benchmark: it prints figures and
# fails only when a run cannot be carried out or breaks the dependency order. Results and logs
# stay in .cache/parity/last/
#
# Environment:
#   PARITY_SHAPE       workload shape (bench/parity/gen.py --shape: generator, backlog,
#                      long-backlog, wide, urgent; default generator)
#   PARITY_SEED        generator seed (default 1)
#   PARITY_JOBS        jobs (default 44); PARITY_MIN_TASKS: at least that many tasks (default 300)
#   PARITY_POLICY      SchedulingPolicy of the dagsched run and of the simulator (default
#                      policies/demo.yaml: time guards scaled to tasks of seconds)
#   PARITY_TIMEOUT     seconds the workload may take in each cluster run (default 600)
#   PARITY_REUSE       a previous run directory: take its cluster results, only re-run the
#                      simulator and the report (e.g. after a change of the simulator)
#   NODE_PROFILE       node profile (default hack/cluster/nodes/default.tsv)
#   ETA_SAMPLE         1: during the dagsched run, record the ETA of every job every ETA_INTERVAL
#                      seconds (default 3; bench/eta/sample.py) and print its error against each
#                      job's actual finish (bench/eta/report.py; .cache/parity/last/eta.txt)
# The cluster runs take the local control plane: run it as
#   flock /tmp/dagsched-cluster.lock make bench-parity
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
SELF="$ROOT/bench/parity/run.sh"
TOOLS="$ROOT/bench/parity"
DEMO_TOOLS="$ROOT/hack/demo"
NS=dagsched-parity
SYSTEM_NS=dagsched-system
EXTENDER="$ROOT/bin/dagsched-extender"
CONTROLLER="$ROOT/bin/dagsched-controller"
SIM="$ROOT/bin/dagsched-sim"
say() { printf 'bench-parity: %s\n' "$*"; }
die() {
  printf 'bench-parity: error: %s\n' "$*" >&2
  exit 1
}
# wait_until, install_dagsched, save_results
# shellcheck source=tests/common/cluster_suite.sh
. "$ROOT/tests/common/cluster_suite.sh"

# ---------------------------------------------------------------- one cluster run
# run.sh --inside RUN OUT: runs inside hack/cluster/with-cluster.sh (CLUSTER_DIR, KUBECONFIG and
# KUBECTL are set); RUN is dagsched or default.
inside() {
  local run="$1" out="$2" dir="$2/$1" policy_name
  local -a pids=()
  # shellcheck disable=SC2317 # called by the trap
  stop_all() {
    local p
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    pids=()
  }
  trap stop_all EXIT
  K create namespace "$NS" >/dev/null
  if [[ "$run" == dagsched ]]; then
    policy_name="$(python3 -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["metadata"]["name"])' "$POLICY")"
    install_dagsched "$POLICY" "$dir" "$SYSTEM_NS" dagsched-parity parity-probe || die "$run: dagsched could not be installed"
    pids+=("$EXT_PID" "$CTL_PID")
    sched=dagsched
  else
    sched=default-scheduler
  fi

  say "$run: the driver creates the workload's tasks (jobs arrive over $(python3 -c 'import json,sys; print(round(max(json.load(open(sys.argv[1])).values())))' "$out/workload/arrivals.json") s)"
  local t0=$SECONDS rc=0 total
  total="$(grep -c '^kind: Job$' "$out/workload/workload.yaml")"
  python3 "$DEMO_TOOLS/baseline_driver.py" --kubectl "$KUBECTL" --kubeconfig "$KUBECONFIG" \
    --namespace "$NS" --scheduler-name "$sched" --poll 1 --timeout "$TIMEOUT" \
    --arrivals "$out/workload/arrivals.json" "$out/workload/workload.yaml" >"$dir/driver.log" 2>&1 &
  local driver=$!
  pids+=("$driver")
  if [[ "$run" == dagsched && "${ETA_SAMPLE:-}" == 1 ]]; then
    python3 "$ROOT/bench/eta/sample.py" --plugin "$ROOT/bin/kubectl-dagsched" --kubeconfig "$KUBECONFIG" \
      --namespace "$NS" --policy-name "$policy_name" --interval "${ETA_INTERVAL:-3}" \
      --out "$dir/eta-samples.jsonl" 2>"$dir/eta-sample.log" &
    pids+=("$!")
  fi
  while kill -0 "$driver" 2>/dev/null; do
    sleep 1
    if (((SECONDS - t0) % 30 == 0)); then
      say "$run: $((SECONDS - t0)) s, $(grep -c ' succeeded$' "$dir/driver.log" || true)/$total tasks succeeded"
    fi
  done
  wait "$driver" || rc=$?
  ((rc == 0)) || die "$run: the driver ended with status $rc (see $dir/driver.log: $(tail -n 1 "$dir/driver.log"))"
  say "$run: all $total tasks succeeded after $((SECONDS - t0)) s"
  save_results "$dir/result" "$NS"
  stop_all
  python3 "$ROOT/tests/common/check_edges.py" --pods "$dir/result/pods.json" 2>&1 |
    sed "s/^/$run: /" || die "$run: a dependency edge was violated (above)"
}

if [[ "${1:-}" == --inside ]]; then
  [[ $# -eq 3 ]] || die "usage: run.sh --inside RUN OUT"
  inside "$2" "$3"
  exit 0
fi

# ---------------------------------------------------------------- the benchmark
SEED="${PARITY_SEED:-1}"
SHAPE="${PARITY_SHAPE:-generator}"
JOBS="${PARITY_JOBS:-44}"
MIN_TASKS="${PARITY_MIN_TASKS:-300}"
POLICY="$(realpath "${PARITY_POLICY:-$ROOT/policies/demo.yaml}")"
TIMEOUT="${PARITY_TIMEOUT:-600}"
REUSE="${PARITY_REUSE:-}"
PROFILE="$(realpath "${NODE_PROFILE:-$ROOT/hack/cluster/nodes/default.tsv}")"
[[ "$SEED" =~ ^[0-9]{1,9}$ ]] || die "PARITY_SEED must be a number (got '$SEED')"
[[ "$TIMEOUT" =~ ^[0-9]{2,5}$ ]] || die "PARITY_TIMEOUT must be 10..99999 seconds (got '$TIMEOUT')"
for b in "$SIM" "$EXTENDER" "$CONTROLLER"; do [[ -x "$b" ]] || die "$b is missing: run make bench-parity"; done
T_START=$SECONDS

BASE="$ROOT/.cache/parity"
mkdir -p "$BASE"
OUT="$(mktemp -d "$BASE/run.$(date +%Y%m%d-%H%M%S).XXXX")"
ln -sfn "$(basename "$OUT")" "$BASE/last"
say "results and logs in ${OUT#"$ROOT"/} (also .cache/parity/last)"

if [[ -n "$REUSE" ]]; then
  REUSE="$(realpath "$REUSE")"
  for r in dagsched default; do
    [[ -f "$REUSE/$r/result/pods.json" ]] || die "PARITY_REUSE: $REUSE/$r/result/pods.json is missing"
    mkdir -p "$OUT/$r"
    cp -r "$REUSE/$r/result" "$OUT/$r/"
  done
  cp -r "$REUSE/workload" "$OUT/"
  # The shape and seed the reused workload was generated with (its first line).
  read -r SEED SHAPE < <(sed -n '1s/.*--seed \([0-9]*\)\( --shape \([a-z-]*\)\)\?.*/\1 \3/p' "$OUT/workload/workload.yaml")
  SHAPE="${SHAPE:-generator}"
  say "cluster results of $REUSE reused"
else
  "$ROOT/hack/cluster/create-nodes.sh" "$PROFILE" --print >"$OUT/nodes.jsonl"
  python3 "$TOOLS/gen.py" --seed "$SEED" --shape "$SHAPE" --jobs "$JOBS" --min-tasks "$MIN_TASKS" \
    --nodes "$OUT/nodes.jsonl" --out "$OUT/workload"
  CERTS="$OUT/certs"
  "$ROOT/hack/gen-test-certs.sh" "$CERTS"
  # shellcheck source=hack/cluster/lib.sh
  source "$ROOT/hack/cluster/lib.sh"
  EXT_PORT="$(pick_port)"
  ADM_PORT="$(pick_port)"
  CTL_PORT="$(pick_port)"
  export EXT_PORT ADM_PORT CTL_PORT CERTS POLICY TIMEOUT
  sed -e "s|@EXTENDER_URL@|https://127.0.0.1:$EXT_PORT|" -e "s|@CA_FILE@|$CERTS/ca.crt|" \
    "$TOOLS/scheduler-config.yaml" >"$OUT/scheduler-config.yaml"
  for r in dagsched default; do
    mkdir -p "$OUT/$r"
    cfg=""
    [[ "$r" == dagsched ]] && cfg="$OUT/scheduler-config.yaml"
    say "$r: starting a local cluster ($(basename "$PROFILE"))"
    t=$SECONDS
    if ! NODE_PROFILE="$PROFILE" SCHEDULER_CONFIG="$cfg" "$ROOT/hack/cluster/with-cluster.sh" \
      --dir "$OUT/$r/cluster" "$SELF" --inside "$r" "$OUT" 2>"$OUT/$r/cluster.log"; then
      tail -n 20 "$OUT/$r/cluster.log" >&2
      die "the $r run failed; logs in $OUT/$r (the cluster's in $OUT/$r/cluster)"
    fi
    say "$r: done in $((SECONDS - t)) s"
  done
fi

# ---------------------------------------------------------------- figures
python3 "$TOOLS/report.py" real --workload "$OUT/workload/workload.yaml" \
  --run "dagsched=$OUT/dagsched/result" --run "default=$OUT/default/result" --json "$OUT/real.json"
for p in dagsched default; do
  mapfile -t args < <(python3 "$TOOLS/report.py" sim-args --real "$OUT/real.json" --run "$p")
  say "sim: bin/dagsched-sim --workload ${OUT#"$ROOT"/}/workload/sim-workload.yaml --policy $p --policy-file ${POLICY#"$ROOT"/} --graph observed ${args[*]}"
  "$SIM" --workload "$OUT/workload/sim-workload.yaml" --policy "$p" --policy-file "$POLICY" \
    --graph observed "${args[@]}" --json "$OUT/sim-$p.json" --pods-csv "$OUT/sim-$p-pods.csv" --quiet
done
echo
python3 "$TOOLS/report.py" table --real "$OUT/real.json" \
  --sim "dagsched=$OUT/sim-dagsched.json" --sim "default=$OUT/sim-default.json" \
  --json "$OUT/parity.json" --meta "shape=$SHAPE" --meta "seed=$SEED" | tee "$OUT/report.txt"
if [[ "${ETA_SAMPLE:-}" == 1 && -f "$OUT/dagsched/eta-samples.jsonl" ]]; then
  echo
  python3 "$ROOT/bench/eta/report.py" --samples "$OUT/dagsched/eta-samples.jsonl" \
    --pods "$OUT/dagsched/result/pods.json" --json "$OUT/eta.json" | tee "$OUT/eta.txt" ||
    die "the ETA report failed"
fi
echo
python3 "$TOOLS/report.py" waits --workload "$OUT/workload/workload.yaml" --real "$OUT/real.json" \
  --run "dagsched=$OUT/dagsched/result" --run "default=$OUT/default/result" \
  --sim "dagsched=$OUT/sim-dagsched-pods.csv" --sim "default=$OUT/sim-default-pods.csv" \
  --sim-json "dagsched=$OUT/sim-dagsched.json" --sim-json "default=$OUT/sim-default.json" \
  --csv "$OUT/waits.csv" | tee "$OUT/waits.txt"
echo
say "done in $((SECONDS - T_START)) s; report in ${OUT#"$ROOT"/}/report.txt"

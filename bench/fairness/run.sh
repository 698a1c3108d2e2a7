#!/usr/bin/env bash
# run.sh: `make bench-fairness`. Fair share across tenants and gang release on the local real
# control plane (hack/cluster: kube-apiserver, etcd, kube-controller-manager, kube-scheduler, kwok
# nodes of bench/fairness/nodes.tsv, 4 x 8 cpu). The workload (bench/fairness/gen.py, per seed):
# tests/sim/data/two-tenants.yaml scaled down to seconds: the namespace `flood` submits 30 small
# batch jobs that fill the cluster and two gang jobs beside them, the namespace `light` four small
# DAGs with deadlines arriving behind the flood. Per seed, four runs, each on a fresh cluster:
#
#   alone     the light tenant alone under dagsched (the reference of its job completion times)
#   fair      dagsched with spec.fairness (FAIR_POLICY, default policies/fair-share.yaml)
#   nofair    dagsched without it (NOFAIR_POLICY, default policies/default.yaml: the same policy
#             with fairness off)
#   default   the default kube-scheduler
#
# Under dagsched: kube-scheduler with the dagsched profile and the extender over HTTPS, the
# admission webhook gating every pod of the dagsched scheduler, the controller releasing them
# (install_dagsched, tests/common/cluster_suite.sh, as bench/parity/run.sh installs it). In every
# run the tasks are created the way a workflow engine creates them: one
# hack/demo/baseline_driver.py per namespace, each task's Job once its upstream tasks have
# succeeded, jobs arriving over time. Every dependency edge of each run is checked from the pods'
# own timestamps (tests/common/check_edges.py): a violated edge fails the run. Then the same
# workload runs through bin/dagsched-sim (policies dagsched with each run's policy, and default;
# the delays measured on the cluster, as bench/parity/run.sh gives them), and report.py prints
# per run, cluster and simulator: the light tenant's mean JCT and its ratio to running alone, the
# flood's and the gang jobs' mean JCT, deadlines met, Jain's index of the tenants' dominant shares
# over time, cpu utilisation and its ratio to fairness off, and for gangs the member-seconds held
# while a sibling waited and the gangs that started partially; then the ratios fair/default on
# both sides and their agreement |sim ratio / real ratio - 1|.
#
# A benchmark: it prints figures and fails only when a run cannot be carried out or breaks the
# dependency order. Results and logs (the controller's, with its waiting reasons) stay in
# .cache/fairness/last/seed-N/RUN/.
#
# Environment:
#   FAIR_SEEDS     workload seeds, space-separated (default "1")
#   FAIR_RUNS      runs, space-separated (default "alone fair nofair default")
#   FAIR_POLICY    SchedulingPolicy of the runs alone and fair (default policies/fair-share.yaml)
#   NOFAIR_POLICY  SchedulingPolicy of the run nofair (default policies/default.yaml)
#   FAIR_TIMEOUT   seconds the workload may take in each cluster run (default 600)
#   FAIR_REUSE     a previous results directory: take its cluster results, only re-run the
#                  simulator and the report
# The cluster runs take the local control plane: run it as
#   flock /tmp/dagsched-cluster.lock make bench-fairness
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
SELF="$ROOT/bench/fairness/run.sh"
TOOLS="$ROOT/bench/fairness"
SYSTEM_NS=dagsched-system
EXTENDER="$ROOT/bin/dagsched-extender"
CONTROLLER="$ROOT/bin/dagsched-controller"
SIM="$ROOT/bin/dagsched-sim"
say() { printf 'bench-fairness: %s\n' "$*"; }
die() {
  printf 'bench-fairness: error: %s\n' "$*" >&2
  exit 1
}
# wait_until, install_dagsched, save_results
# shellcheck source=tests/common/cluster_suite.sh
. "$ROOT/tests/common/cluster_suite.sh"

namespaces_of() { if [[ "$1" == alone ]]; then echo light; else echo flood light; fi; }
policy_of() { if [[ "$1" == nofair ]]; then echo "$NOFAIR_POLICY"; else echo "$FAIR_POLICY"; fi; }

# ---------------------------------------------------------------- one cluster run
# run.sh --inside RUN DIR WORKLOAD: runs inside hack/cluster/with-cluster.sh (CLUSTER_DIR,
# KUBECONFIG and KUBECTL are set); results and logs into DIR.
inside() {
  local run="$1" dir="$2" wl="$3" ns sched=default-scheduler
  local -a pids=() drivers=()
  # shellcheck disable=SC2317 # called by the trap
  stop_all() {
    local p
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    pids=()
  }
  trap stop_all EXIT
  if [[ "$run" != default ]]; then
    install_dagsched "$(policy_of "$run")" "$dir" "$SYSTEM_NS" dagsched-fairness fairness-probe ||
      die "$run: dagsched could not be installed"
    pids+=("$EXT_PID" "$CTL_PID")
    sched=dagsched
  fi
  local t0=$SECONDS total=0 rc
  for ns in $(namespaces_of "$run"); do
    K create namespace "$ns" >/dev/null
    total=$((total + $(grep -c '^kind: Job$' "$wl/$ns.yaml")))
  done
  say "$run: the drivers create the tasks of $(namespaces_of "$run")"
  for ns in $(namespaces_of "$run"); do
    python3 "$ROOT/hack/demo/baseline_driver.py" --kubectl "$KUBECTL" --kubeconfig "$KUBECONFIG" \
      --namespace "$ns" --scheduler-name "$sched" --poll 1 --timeout "$TIMEOUT" \
      --arrivals "$wl/$ns-arrivals.json" "$wl/$ns.yaml" >"$dir/driver-$ns.log" 2>&1 &
    drivers+=("$!")
    pids+=("$!")
  done
  local running=1 d
  while ((running)); do
    sleep 1
    running=0
    for d in "${drivers[@]}"; do kill -0 "$d" 2>/dev/null && running=1; done
    if ((running && (SECONDS - t0) % 30 == 0)); then
      say "$run: $((SECONDS - t0)) s, $(cat "$dir"/driver-*.log | grep -c ' succeeded$' || true)/$total tasks succeeded"
    fi
  done
  for d in "${drivers[@]}"; do
    rc=0
    wait "$d" || rc=$?
    ((rc == 0)) || die "$run: a driver ended with status $rc (see $dir/driver-*.log)"
  done
  say "$run: all $total tasks succeeded after $((SECONDS - t0)) s"
  # shellcheck disable=SC2046 # one argument per namespace
  save_results "$dir/result" $(namespaces_of "$run")
  stop_all
  python3 "$ROOT/tests/common/check_edges.py" --pods "$dir/result/pods.json" 2>&1 |
    sed "s/^/$run: /" || die "$run: a dependency edge was violated (above)"
}

if [[ "${1:-}" == --inside ]]; then
  [[ $# -eq 4 ]] || die "usage: run.sh --inside RUN DIR WORKLOAD"
  inside "$2" "$3" "$4"
  exit 0
fi

# ---------------------------------------------------------------- the benchmark
SEEDS="${FAIR_SEEDS:-1}"
RUNS="${FAIR_RUNS:-alone fair nofair default}"
FAIR_POLICY="$(realpath "${FAIR_POLICY:-$ROOT/policies/fair-share.yaml}")"
NOFAIR_POLICY="$(realpath "${NOFAIR_POLICY:-$ROOT/policies/default.yaml}")"
TIMEOUT="${FAIR_TIMEOUT:-600}"
REUSE="${FAIR_REUSE:-}"
PROFILE="$TOOLS/nodes.tsv"
for s in $SEEDS; do [[ "$s" =~ ^[0-9]{1,9}$ ]] || die "FAIR_SEEDS must be numbers (got '$s')"; done
for r in $RUNS; do [[ " alone fair nofair default " == *" $r "* ]] || die "FAIR_RUNS: unknown run '$r'"; done
[[ "$TIMEOUT" =~ ^[0-9]{2,5}$ ]] || die "FAIR_TIMEOUT must be 10..99999 seconds (got '$TIMEOUT')"
for b in "$SIM" "$EXTENDER" "$CONTROLLER"; do [[ -x "$b" ]] || die "$b is missing: run make bench-fairness"; done
export FAIR_POLICY NOFAIR_POLICY TIMEOUT
T_START=$SECONDS

BASE="$ROOT/.cache/fairness"
mkdir -p "$BASE"
OUT="$(mktemp -d "$BASE/run.$(date +%Y%m%d-%H%M%S).XXXX")"
ln -sfn "$(basename "$OUT")" "$BASE/last"
say "results and logs in ${OUT#"$ROOT"/} (also .cache/fairness/last)"

if [[ -n "$REUSE" ]]; then
  REUSE="$(realpath "$REUSE")"
else
  "$ROOT/hack/cluster/create-nodes.sh" "$PROFILE" --print >"$OUT/nodes.jsonl"
  CERTS="$OUT/certs"
  "$ROOT/hack/gen-test-certs.sh" "$CERTS" >/dev/null
  # shellcheck source=hack/cluster/lib.sh
  source "$ROOT/hack/cluster/lib.sh"
  EXT_PORT="$(pick_port)"
  ADM_PORT="$(pick_port)"
  CTL_PORT="$(pick_port)"
  export EXT_PORT ADM_PORT CTL_PORT CERTS
  sed -e "s|@EXTENDER_URL@|https://127.0.0.1:$EXT_PORT|" -e "s|@CA_FILE@|$CERTS/ca.crt|" \
    "$ROOT/bench/parity/scheduler-config.yaml" >"$OUT/scheduler-config.yaml"
fi

for seed in $SEEDS; do
  S="$OUT/seed-$seed"
  mkdir -p "$S"
  if [[ -n "$REUSE" ]]; then
    [[ -d "$REUSE/seed-$seed/workload" ]] || die "FAIR_REUSE: $REUSE/seed-$seed/workload is missing"
    cp -r "$REUSE/seed-$seed/workload" "$S/"
    for r in $RUNS; do
      [[ -f "$REUSE/seed-$seed/$r/result/pods.json" ]] || die "FAIR_REUSE: $REUSE/seed-$seed/$r/result/pods.json is missing"
      mkdir -p "$S/$r"
      cp -r "$REUSE/seed-$seed/$r/result" "$S/$r/"
    done
    say "seed $seed: cluster results of $REUSE reused"
  else
    python3 "$TOOLS/gen.py" --seed "$seed" --nodes "$OUT/nodes.jsonl" --out "$S/workload" | sed 's/^/bench-fairness: /'
    for r in $RUNS; do
      mkdir -p "$S/$r"
      cfg=""
      [[ "$r" != default ]] && cfg="$OUT/scheduler-config.yaml"
      say "seed $seed, $r: starting a local cluster (bench/fairness/nodes.tsv)"
      t=$SECONDS
      if ! NODE_PROFILE="$PROFILE" SCHEDULER_CONFIG="$cfg" "$ROOT/hack/cluster/with-cluster.sh" \
        --dir "$S/$r/cluster" "$SELF" --inside "$r" "$S/$r" "$S/workload" 2>"$S/$r/cluster.log"; then
        tail -n 20 "$S/$r/cluster.log" >&2
        die "seed $seed, $r: the run failed; logs in $S/$r (the cluster's in $S/$r/cluster)"
      fi
      say "seed $seed, $r: done in $((SECONDS - t)) s"
    done
  fi

  # ---------------------------------------------------------------- figures
  W="$S/workload"
  real_args=() sim_args=()
  for r in $RUNS; do real_args+=(--run "$r=$S/$r/result"); done
  python3 "$TOOLS/report.py" cluster --jobs "$W/jobs.json" --workload "$W/flood.yaml" "$W/light.yaml" \
    "${real_args[@]}" --json "$S/real.json"
  for r in $RUNS; do
    policy=dagsched wl="$W/sim-workload.yaml"
    [[ "$r" == default ]] && policy=default
    [[ "$r" == alone ]] && wl="$W/sim-workload-light.yaml"
    mapfile -t args < <(python3 "$TOOLS/report.py" sim-args --real "$S/real.json" --run "$r")
    say "sim $r: bin/dagsched-sim --workload ${wl#"$ROOT"/} --policy $policy --policy-file $(basename "$(policy_of "$r")") --graph observed ${args[*]}"
    "$SIM" --workload "$wl" --policy "$policy" --policy-file "$(policy_of "$r")" --graph observed "${args[@]}" \
      --json "$S/sim-$r.json" --pods-csv "$S/sim-$r-pods.csv" --quiet
    sim_args+=(--run "$r=$S/sim-$r-pods.csv:$policy")
  done
  python3 "$TOOLS/report.py" sim --jobs "$W/jobs.json" --workload "$W/sim-workload.yaml" --real "$S/real.json" \
    "${sim_args[@]}" --json "$S/sim.json"
  echo
  echo "seed $seed:"
  python3 "$TOOLS/report.py" table --real "$S/real.json" --sim "$S/sim.json" --meta "seed=$seed" \
    --json "$S/fairness.json" | tee "$S/report.txt"
  echo
done
say "done in $((SECONDS - T_START)) s; reports in ${OUT#"$ROOT"/}/seed-*/report.txt"

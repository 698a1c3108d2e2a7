#!/usr/bin/env bash
# all.sh: `make bench-parity-all`. bench/parity/run.sh on every workload shape of
# bench/parity/gen.py and on several seeds, one after the other (each run starts its own two
# local clusters), then one agreement table over all of them (report.py shapes): per shape and
# seed the ratios dagsched/default of makespan, mean JCT and deadlines met on the cluster and in
# the simulator, and their agreement against the 10 % target. A benchmark: it prints figures and
# fails only when a run cannot be carried out. Every run's results stay in .cache/parity/run.*;
# the table in .cache/parity/shapes.txt.
# Environment: PARITY_SHAPES (default "generator backlog long-backlog wide urgent"),
# PARITY_SEEDS (default "1 2"); the other PARITY_* variables of run.sh apply to every run.
# It starts local clusters: run it as  flock /tmp/dagsched-cluster.lock make bench-parity-all
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
SHAPES="${PARITY_SHAPES:-generator backlog long-backlog wide urgent}"
SEEDS="${PARITY_SEEDS:-1 2}"
say() { printf 'bench-parity-all: %s\n' "$*"; }

results=()
t0=$SECONDS
for shape in $SHAPES; do
  for seed in $SEEDS; do
    say "shape $shape, seed $seed"
    PARITY_SHAPE="$shape" PARITY_SEED="$seed" "$ROOT/bench/parity/run.sh"
    results+=("$(realpath "$ROOT/.cache/parity/last")/parity.json")
  done
done
echo
python3 "$ROOT/bench/parity/report.py" shapes "${results[@]}" | tee "$ROOT/.cache/parity/shapes.txt"
echo
say "${#results[@]} runs in $((SECONDS - t0)) s; table in .cache/parity/shapes.txt"

#!/bin/sh
# bench-gain.sh: where dagsched's gain comes from. Runs bin/dagsched-sim's `default` policy and
# its `dagsched` policy with variants of policies/default.yaml and of the controller's timing on
# the medium workload at a fifth of its tasks and cores, over several seeds, and prints per
# variant the ratios of means to `default` (makespan, mean JCT, p95 JCT, deadlines met). Called
# by `make bench-gain` (mk/sim.mk); see docs/simulator.md "Where dagsched's gain comes from".
#
# usage: sim/bench-gain.sh SIM_BINARY POLICY_YAML OUT_DIR [SEEDS]
# SIM_MODEL_ARGS: more flags for every run (make bench-gain gives the model's: mk/sim.mk).
# PARALLEL (default 2): variants run at once.
set -eu

SIM=$1
BASE=$2
OUT=$3
SEEDS=${4:-1,2,3,4,5,6,7,8}
ARGS='--jobs 150 --task-scale 0.2 --nodes 8x12:48Gi:1,2x24:96Gi:1.5'

mkdir -p "$OUT"

# Policy variants; every edit must change the file (a default.yaml whose layout changed fails
# here instead of benchmarking the defaults twice).
edit() { # NAME SED-EXPRESSION
    sed "$2" "$BASE" >"$OUT/gain-$1.yaml"
    if cmp -s "$BASE" "$OUT/gain-$1.yaml"; then
        echo "bench-gain: '$2' changes nothing in $BASE" >&2
        exit 1
    fi
}
cp "$BASE" "$OUT/gain-shipped.yaml"
edit all 's/^    admission: capacity$/    admission: all/'
edit nolookahead 's/^    lookahead: 2$/    lookahead: 0/'
edit nostarve 's/^    starvationThreshold: 20m$/    starvationThreshold: 0s/'

# name|policy file|more flags|what it is
VARIANTS='shipped|shipped||shipped (release latency 0.5 s, rounds at most every 1 s, look-ahead 2)
all|all||admission: all (every ready task released at once: the release order has no effect)
norounds|shipped|--release-latency 0 --round-interval 0|no release latency, no round interval
nolatency|shipped|--release-latency 0|no release latency
latency2|shipped|--release-latency 2|release latency 2 s
rounds5|shipped|--round-interval 5|rounds at most every 5 s
nolookahead|nolookahead||lookahead: 0
nostarve|nostarve||starvationThreshold: 0s (no starvation guard)'

# shellcheck source=sim/bench-parallel.sh
. "$(dirname "$0")/bench-parallel.sh"
run_variant() { # "NAME|POLICY|FLAGS|WHAT"
    IFS='|' read -r name policy flags what <<VARIANT
$1
VARIANT
    # shellcheck disable=SC2086 # lists of flags
    "$SIM" --policy dagsched $ARGS ${SIM_MODEL_ARGS:-} $flags --seeds "$SEEDS" \
        --policy-file "$OUT/gain-$policy.yaml" --quiet --csv "$OUT/gain-$name.csv"
}

if [ "${SKIP_RUNS:-0}" != 1 ]; then
    echo "bench-gain: model flags: ${SIM_MODEL_ARGS:-(the simulator's defaults)}"
    # shellcheck disable=SC2086
    "$SIM" --policy default $ARGS ${SIM_MODEL_ARGS:-} --seeds "$SEEDS" --policy-file "$BASE" \
        --quiet --csv "$OUT/gain-default.csv" || {
        echo "bench-gain: the default policy's runs failed" >&2
        exit 1
    }
    printf '%s\n' "$VARIANTS" >"$OUT/gain-variants.txt"
    if ! parallel_lines "$OUT/gain-variants.txt" "$OUT/gain-failed.txt" run_variant; then
        echo "bench-gain: runs failed: $(tr '\n' ' ' <"$OUT/gain-failed.txt")" >&2
        exit 1
    fi
fi

echo "Where dagsched's gain comes from: $ARGS, seeds $SEEDS."
echo "Ratios of means over the seeds to the default policy (kube-scheduler alone)."
printf '%-90s %9s %9s %9s %9s\n' "dagsched variant" makespan "mean JCT" "p95 JCT" deadlines
printf '%s\n' "$VARIANTS" | while IFS='|' read -r name policy flags what; do
    awk -F, -v what="$what" '
        function col(n) { return idx[n] }
        FNR == 1 { file++; for (i = 1; i <= NF; i++) idx[$i] = i; next }
        file == 1 { dm += $col("makespan_s"); dj += $col("jct_mean_s"); dp += $col("jct_p95_s")
                    dd += $col("deadline_met"); dn++; next }
        { m += $col("makespan_s"); j += $col("jct_mean_s"); p += $col("jct_p95_s")
          d += $col("deadline_met"); n++ }
        END {
            if (n == 0 || dn == 0) { print "bench-gain: no runs" > "/dev/stderr"; exit 1 }
            printf "%-90s %9.2f %9.2f %9.2f %9s\n", what, (m / n) / (dm / dn), (j / n) / (dj / dn),
                (p / n) / (dp / dn), (dd > 0 ? sprintf("%.2f", (d / n) / (dd / dn)) : "n/a")
        }' "$OUT/gain-default.csv" "$OUT/gain-$name.csv"
done

#!/bin/sh
# bench-preemption.sh: does DSP preemption pay? Runs the `dagsched` policy of bin/dagsched-sim on
# several workload shapes and seeds with five SchedulingPolicy files derived from
# policies/default.yaml (shipped defaults; preemption off; the paper's rule, payoff: false;
# normalisation: ratio; urgent-only, delta: 0, no preemption on priority) and prints, per shape
# and variant, deadlines met, mean job completion time, evictions, lost node time and eviction
# yield, with a verdict per shape. Called by
# `make bench-preemption` (mk/sim.mk); see docs/simulator.md "Does preemption pay?".
#
# usage: sim/bench-preemption.sh SIM_BINARY POLICY_YAML OUT_DIR [SEEDS]
# With SKIP_RUNS=1 only the table is printed again from the CSV files of an earlier run.
set -eu

SIM=$1
BASE=$2
OUT=$3
SEEDS=${4:-1,2,3,4,5,6,7,8}

mkdir -p "$OUT"

# The four policies. Every edit is checked: a default.yaml whose layout changed fails here instead
# of silently benchmarking the defaults four times.
ENABLED='^    enabled: true$'
grep -q "$ENABLED" "$BASE" || { echo "bench-preemption: no '    enabled: true' in $BASE" >&2; exit 1; }
cp "$BASE" "$OUT/preempt-shipped.yaml"
sed "s/$ENABLED/    enabled: false/" "$BASE" >"$OUT/preempt-off.yaml"
sed 's/^    payoff: true$/    payoff: false/' "$BASE" >"$OUT/preempt-paper.yaml"
sed 's/^    normalisation: paper$/    normalisation: ratio/' "$BASE" >"$OUT/preempt-ratio.yaml"
sed 's/^    delta: 0.35$/    delta: 0/' "$BASE" >"$OUT/preempt-urgent.yaml"
grep -q '^    enabled: false$' "$OUT/preempt-off.yaml"
grep -q '^    payoff: false$' "$OUT/preempt-paper.yaml"
grep -q '^    normalisation: ratio$' "$OUT/preempt-ratio.yaml"
grep -q '^    delta: 0$' "$OUT/preempt-urgent.yaml"

VARIANTS="off shipped paper ratio urgent"

# Shapes: name|generator flags. Each is a scaled-down cluster loaded enough that queues form.
SHAPES='medium|--jobs 150 --task-scale 0.2 --nodes 8x12:48Gi:1,2x24:96Gi:1.5
wide-ml|--jobs 40 --task-scale 0.2 --levels 5 --fanout 64 --nodes 3x16:64Gi:1.5,3x8:32Gi:0.7,2x8:128Gi:1
mixed|--jobs 90 --mix 8:0:1 --batch-large --small 20:80 --large 8000 --task-scale 0.2 --nodes 4x12:48Gi:1,1x24:96Gi:1.5
upfront|--jobs 150 --task-scale 0.2 --nodes 8x12:48Gi:1,2x24:96Gi:1.5 --release upfront'

[ "${SKIP_RUNS:-0}" = 1 ] || echo "$SHAPES" | while IFS='|' read -r shape args; do
    for v in $VARIANTS; do
        # shellcheck disable=SC2086 # args is a list of flags
        "$SIM" --policy dagsched $args --seeds "$SEEDS" --policy-file "$OUT/preempt-$v.yaml" \
            --quiet --csv "$OUT/preempt-$shape-$v.csv"
    done
done

echo "Does preemption pay? policy dagsched, seeds $SEEDS; means per run over the seeds."
echo "met: jobs that met their deadline (of jobs with one); ratios are to the 'off' variant."
echo "lost: node seconds the evicted runs had run. yield: evictions made for a job with a"
echo "deadline that met it / all evictions made for jobs with a deadline (pooled over seeds);"
echo "no-dl evict: evictions made for jobs without a deadline (not in the yield)."
echo "$SHAPES" | while IFS='|' read -r shape args; do
    echo
    echo "== $shape: $args"
    printf '%-8s %8s %6s %9s %6s %9s %9s %7s %11s\n' variant met/of ratio "JCT (s)" ratio \
        evictions "lost (s)" yield "no-dl evict"
    for v in $VARIANTS; do
        awk -F, -v name="$v" '
            function col(n) { return idx[n] }
            FNR == 1 { file++; for (i = 1; i <= NF; i++) idx[$i] = i; next }
            file == 1 { om += $col("deadline_met"); oj += $col("jct_mean_s"); on++; next }
            {
                n++; met += $col("deadline_met"); of += $col("deadline_jobs")
                jct += $col("jct_mean_s"); ev += $col("preemptions"); lost += $col("lost_run_s")
                ed += $col("evict_deadline"); em += $col("evict_met")
                nd += $col("evict_no_deadline")
            }
            END {
                if (n == 0 || on == 0) { print "bench-preemption: no runs" > "/dev/stderr"; exit 1 }
                y = ed > 0 ? sprintf("%.3f", em / ed) : "n/a"
                mr = om > 0 ? sprintf("%.3f", (met / n) / (om / on)) : "n/a"
                printf "%-8s %8s %6s %9.0f %6.3f %9.1f %9.0f %7s %11.1f\n", name,
                    sprintf("%.1f/%.0f", met / n, of / n), mr, jct / n, (jct / n) / (oj / on),
                    ev / n, lost / n, y, nd / n
            }' "$OUT/preempt-$shape-off.csv" "$OUT/preempt-$shape-$v.csv"
    done
    awk -F, -v shape="$shape" '
        function col(n) { return idx[n] }
        FNR == 1 { file++; for (i = 1; i <= NF; i++) idx[$i] = i; next }
        file == 1 { om += $col("deadline_met"); oj += $col("jct_mean_s"); on++; next }
        { sm += $col("deadline_met"); sj += $col("jct_mean_s"); sn++ }
        END {
            jr = (sj / sn) / (oj / on)
            ok = sm / sn > om / on && jr <= 1.02
            printf "verdict %s: shipped preemption %s off: deadlines met %+.2f per run, " \
                "mean JCT x%.3f (wins when more deadlines are met and mean JCT is at most x1.020)\n",
                shape, ok ? "BEATS" : "does NOT beat", sm / sn - om / on, jr
        }' "$OUT/preempt-$shape-off.csv" "$OUT/preempt-$shape-shipped.csv"
done

#!/bin/sh
# bench-preemption.sh: does DSP preemption pay? Runs the `dagsched` policy of bin/dagsched-sim on
# several workload shapes and seeds with SchedulingPolicy files derived from
# policies/default.yaml (the shipped defaults; preemption off; the paper's rule: payoff false,
# no queue order, tasks with a deadline as victims, the paper's normalisation; and the shipped
# defaults with one rule changed at a time: queueOrder false, deadlineVictims true, delta 0
# (urgent only), normalisation paper, jobRoom true) and prints, per shape and variant, deadlines met, mean job
# completion time, evictions, lost node time and eviction yield, with a verdict per shape. Called
# by `make bench-preemption` (mk/sim.mk); see docs/simulator.md "Does preemption pay?".
#
# usage: sim/bench-preemption.sh SIM_BINARY POLICY_YAML OUT_DIR [SEEDS]
# With SKIP_RUNS=1 only the table is printed again from the CSV files of an earlier run.
# SIM_MODEL_ARGS: more flags for every run (make bench-preemption gives the model's: mk/sim.mk).
# PARALLEL (default 2): shapes run at once.
set -eu

SIM=$1
BASE=$2
OUT=$3
SEEDS=${4:-1,2,3,4,5,6,7,8}

mkdir -p "$OUT"

# The policies. Every edit is checked: a default.yaml whose layout changed fails here instead of
# silently benchmarking the defaults several times.
edit() { # NAME SED-EXPRESSION... (each must change the file)
    name=$1
    shift
    cp "$BASE" "$OUT/preempt-$name.yaml"
    for e in "$@"; do
        sed "$e" "$OUT/preempt-$name.yaml" >"$OUT/preempt-$name.yaml.tmp"
        if cmp -s "$OUT/preempt-$name.yaml" "$OUT/preempt-$name.yaml.tmp"; then
            echo "bench-preemption: '$e' changes nothing in $BASE" >&2
            exit 1
        fi
        mv "$OUT/preempt-$name.yaml.tmp" "$OUT/preempt-$name.yaml"
    done
}
ENABLED='s/^    enabled: true$/    enabled: false/'
PAYOFF='s/^    payoff: true$/    payoff: false/'
QUEUE='s/^    queueOrder: true$/    queueOrder: false/'
DLVICT='s/^    deadlineVictims: false$/    deadlineVictims: true/'
DELTA='s/^    delta: 0.35$/    delta: 0/'
NORM='s/^    normalisation: ratio$/    normalisation: paper/'
JOBROOM='s/^    jobRoom: false$/    jobRoom: true/'
cp "$BASE" "$OUT/preempt-shipped.yaml"
edit off "$ENABLED"
edit paper "$PAYOFF" "$QUEUE" "$DLVICT" "$NORM"
edit anyorder "$QUEUE"
edit dlvictims "$DLVICT"
edit urgent "$DELTA"
edit papernorm "$NORM"
edit jobroom "$JOBROOM"

VARIANTS=${VARIANTS:-"off shipped paper anyorder dlvictims urgent papernorm jobroom"}

# Shapes: name|generator flags. Each is a scaled-down cluster loaded enough that queues form.
SHAPES='medium|--jobs 150 --task-scale 0.2 --nodes 8x12:48Gi:1,2x24:96Gi:1.5
wide-ml|--jobs 40 --task-scale 0.2 --levels 5 --fanout 64 --nodes 3x16:64Gi:1.5,3x8:32Gi:0.7,2x8:128Gi:1
mixed|--jobs 90 --mix 8:0:1 --batch-large --small 20:80 --large 8000 --task-scale 0.2 --nodes 4x12:48Gi:1,1x24:96Gi:1.5
upfront|--jobs 150 --task-scale 0.2 --nodes 8x12:48Gi:1,2x24:96Gi:1.5 --release upfront
trace|--jobs 200 --mix 16:3:1 --batch-large --small 2:40 --medium 200 --large 2000 --runtime lognormal:40,1.6,1,7200 --cpu lognormal:0.5,1,0.05,16 --deadline-factor 1.5:4 --nodes 12x16:64Gi:1,4x32:128Gi:1.5
long-batch|--jobs 90 --mix 8:0:1 --batch-large --large-runtime lognormal:1200,0.7,120,7200 --small 20:80 --large 2000 --task-scale 0.2 --nodes 4x12:48Gi:1,1x24:96Gi:1.5'

# shellcheck source=sim/bench-parallel.sh
. "$(dirname "$0")/bench-parallel.sh"
run_shape() { # "SHAPE|ARGS"
    shape=${1%%|*}
    for v in $VARIANTS; do
        # shellcheck disable=SC2086 # args are lists of flags
        "$SIM" --policy dagsched ${1#*|} ${SIM_MODEL_ARGS:-} --seeds "$SEEDS" \
            --policy-file "$OUT/preempt-$v.yaml" --quiet --csv "$OUT/preempt-$shape-$v.csv" ||
            return 1
    done
}
if [ "${SKIP_RUNS:-0}" != 1 ]; then
    echo "bench-preemption: model flags: ${SIM_MODEL_ARGS:-(the simulator's defaults)}"
    # Shapes in parallel, PARALLEL at a time; any failed run fails the benchmark.
    echo "$SHAPES" | while IFS='|' read -r shape args; do
        printf '%s\n' "$shape|$args"
    done >"$OUT/preempt-shapes.txt"
    if ! parallel_lines "$OUT/preempt-shapes.txt" "$OUT/preempt-failed.txt" run_shape; then
        echo "bench-preemption: runs failed for: $(tr '\n' ' ' <"$OUT/preempt-failed.txt")" >&2
        exit 1
    fi
fi

echo "Does preemption pay? policy dagsched, seeds $SEEDS; means per run over the seeds."
echo "met: jobs that met their deadline (of jobs with one); ratios are to the 'off' variant."
echo "lost: node seconds the evicted runs had run. yield: evictions made for a job with a"
echo "deadline that met it / all evictions made for jobs with a deadline (pooled over seeds);"
echo "no-dl evict: evictions made for jobs without a deadline (not in the yield). task yield:"
echo "evictions made for a task with a level deadline whose task finished by it / all of them."
echo "$SHAPES" | while IFS='|' read -r shape args; do
    echo
    echo "== $shape: $args"
    printf '%-10s %9s %6s %9s %6s %9s %9s %7s %11s %10s\n' variant met/of ratio "JCT (s)" ratio \
        evictions "lost (s)" yield "no-dl evict" "task yield"
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
                td += $col("evict_task_deadline"); tm += $col("evict_task_met")
            }
            END {
                if (n == 0 || on == 0) { print "bench-preemption: no runs" > "/dev/stderr"; exit 1 }
                y = ed > 0 ? sprintf("%.3f", em / ed) : "n/a"
                ty = td > 0 ? sprintf("%.3f", tm / td) : "n/a"
                mr = om > 0 ? sprintf("%.3f", (met / n) / (om / on)) : "n/a"
                printf "%-10s %9s %6s %9.0f %6.3f %9.1f %9.0f %7s %11.1f %10s\n", name,
                    sprintf("%.1f/%.0f", met / n, of / n), mr, jct / n, (jct / n) / (oj / on),
                    ev / n, lost / n, y, nd / n, ty
            }' "$OUT/preempt-$shape-off.csv" "$OUT/preempt-$shape-$v.csv"
    done
    awk -F, -v shape="$shape" '
        function col(n) { return idx[n] }
        FNR == 1 { file++; for (i = 1; i <= NF; i++) idx[$i] = i; next }
        file == 1 { om += $col("deadline_met"); oj += $col("jct_mean_s"); on++; next }
        { sm += $col("deadline_met"); sj += $col("jct_mean_s"); sn++; se += $col("preemptions") }
        END {
            jr = (sj / sn) / (oj / on)
            ok = sm / sn > om / on && jr <= 1.02
            same = se == 0 && sm == om && sj == oj
            printf "verdict %s: shipped preemption %s off: deadlines met %+.2f per run, " \
                "mean JCT x%.3f (wins when more deadlines are met and mean JCT is at most x1.020)\n",
                shape, ok ? "BEATS" : same ? "TIES (no eviction) with" : "does NOT beat",
                sm / sn - om / on, jr
        }' "$OUT/preempt-$shape-off.csv" "$OUT/preempt-$shape-shipped.csv"
done

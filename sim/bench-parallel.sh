# bench-parallel.sh: sourced by the simulator's benchmark scripts (sim/bench-preemption.sh,
# sim/bench-gain.sh). parallel_lines LIST FAILED FUNC: calls FUNC with each line of the file LIST
# (fields separated by '|'), PARALLEL (default 2) at a time in the background; the first field of
# each line whose FUNC fails is appended to the file FAILED (emptied first). Returns 1 when any
# failed, after all have ended.
parallel_lines() {
    : >"$2"
    running=0
    while IFS= read -r line; do
        ("$3" "$line" || echo "${line%%|*}" >>"$2") &
        running=$((running + 1))
        if [ "$running" -ge "${PARALLEL:-2}" ]; then
            wait
            running=0
        fi
    done <"$1"
    wait
    [ ! -s "$2" ]
}

#!/bin/sh
# sim_same.sh OLD NEW [BUILD_DIR]: do two perfskel binaries predict the
# same? Records bench/sim_folded.sh's C programs (small: 300 iterations,
# work 50) with 2 and 4 ranks and the heat example (64 x 200 and 2,000
# steps) with BUILD_DIR's recorder, and simulates each trace with both
# binaries five ways (whole trace, --folded, --folded --no-skip, each
# with --intervals loops where it applies); compares the whole --json
# output with cmp (but replay_memory, which older binaries lack). One line
# per case: "same" or "DIFF", with the new binary's prediction and the
# iterations it skipped (docs/benchmarks.md).
set -u
OLD=$1 NEW=$2
B=$(cd "${3:-build}" && pwd)
SRC=$(cd "$(dirname "$0")/../tests/mpi" && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
. "$(dirname "$0")/cases.sh"
diffs=0
cmpall() {
    for opts in "" "--folded" "--folded --no-skip" "--folded --intervals loops" "--intervals loops"; do
        "$OLD" sim "$1" $opts --json -q 2>/dev/null | grep -v '"replay_memory"' >"$W/o.json"
        "$NEW" sim "$1" $opts --json -q 2>/dev/null | grep -v '"replay_memory"' >"$W/n.json"
        if [ -s "$W/n.json" ] && cmp -s "$W/o.json" "$W/n.json"; then r=same; else r=DIFF diffs=$((diffs + 1)); fi
        echo "$2 [$opts] $r $(grep -o '"predicted_seconds": [0-9.e-]*' "$W/n.json") $(grep -o '"iterations_skipped": [0-9]*' "$W/n.json")"
    done
}
cases=$(echo "$CASELIST" | cut -d' ' -f1-2)
for c in $(echo "$cases" | tr ' ' ':'); do
    prog=${c%%:*} mac=${c#*:}
    build_case "$prog" "$mac" 300 50 c openmpi "$W/$prog" || continue
    for np in 2 4; do
        rm -rf "$W/t"
        "$B/perfskel" record -o "$W/t" -- mpirun.openmpi --oversubscribe -np $np "$W/$prog" </dev/null >/dev/null 2>&1
        cmpall "$W/t" "$prog, $np ranks"
    done
done
for steps in 200 2000; do
    rm -rf "$W/t"
    "$B/perfskel" record -o "$W/t" -- mpirun.openmpi -np 2 "$B/examples/heat" 64 $steps </dev/null >/dev/null 2>&1
    cmpall "$W/t" "heat 64 x $steps"
done
echo "$diffs differences"
[ "$diffs" -eq 0 ]

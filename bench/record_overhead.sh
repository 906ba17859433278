#!/bin/sh
# record_overhead.sh [BUILD_DIR]: the time perfskel's recording library adds
# per MPI call, and the bytes it writes per event, under Open MPI and MPICH.
# Runs bench/record_overhead.c (one rank, tight loops of calls) plainly and
# under `perfskel record`, five times each, and prints a markdown table of
# the median over runs of each run's fastest and median ns per call; then
# bytes per event on disk for the benchmark's own trace and for the bundled
# heat example recorded with 2 ranks.
set -eu
B=$(cd "${1:-build}" && pwd)
P=$B/perfskel
S=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
N=${N:-200000}
RUNS=${RUNS:-5}

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

for fl in openmpi mpich; do
    command -v mpicc.$fl >/dev/null || { echo "($fl not installed: skipped)"; continue; }
    mpicc.$fl -O2 -Wno-stringop-overflow -o "$W/ov_$fl" "$S/record_overhead.c"
    if [ $fl = openmpi ]; then run="mpirun.openmpi --allow-run-as-root -np 1"; else run="mpirun.mpich -np 1"; fi
    for i in $(seq "$RUNS"); do
        $run "$W/ov_$fl" "$N" 7 >"$W/plain_$fl.$i"
        "$P" record -o "$W/tr_$fl" -- $run "$W/ov_$fl" "$N" 7 >"$W/rec_$fl.$i" 2>/dev/null
    done
    echo
    echo "### $fl $(mpirun.$fl --version 2>&1 | grep -m1 -oE '[0-9]+\.[0-9]+(\.[0-9]+)?')"
    echo
    echo "| call | plain ns (min / median) | recorded ns (min / median) | added ns per call (min / median) |"
    echo "|---|---|---|---|"
    cut -f1 "$W/plain_$fl.1" | while IFS= read -r kind; do
        pmin=$(cat "$W"/plain_$fl.* | awk -F'\t' -v k="$kind" '$1 == k { print $3 }' | median)
        pmed=$(cat "$W"/plain_$fl.* | awk -F'\t' -v k="$kind" '$1 == k { print $4 }' | median)
        rmin=$(cat "$W"/rec_$fl.* | awk -F'\t' -v k="$kind" '$1 == k { print $3 }' | median)
        rmed=$(cat "$W"/rec_$fl.* | awk -F'\t' -v k="$kind" '$1 == k { print $4 }' | median)
        echo "| $kind | $pmin / $pmed | $rmin / $rmed | $(awk -v a="$rmin" -v b="$pmin" 'BEGIN { printf "%.1f", a - b }') / $(awk -v a="$rmed" -v b="$pmed" 'BEGIN { printf "%.1f", a - b }') |"
    done
    bytes=$(cat "$W/tr_$fl"/rank-*.psk | wc -c)
    events=$("$P" stats "$W/tr_$fl" --json | awk -F: '/"events"/ { gsub(/[^0-9]/, "", $2); print $2; exit }')
    echo
    echo "bytes per event on disk, this benchmark's trace: $bytes bytes / $events events = $(awk -v b="$bytes" -v e="$events" 'BEGIN { printf "%.2f", b / e }')"
done

if [ -x "$B/examples/heat" ]; then
    "$P" record -o "$W/heat" -- mpirun.openmpi --allow-run-as-root -np 2 "$B/examples/heat" >/dev/null 2>&1
    bytes=$(cat "$W/heat"/rank-*.psk | wc -c)
    events=$("$P" stats "$W/heat" --json | awk -F: '/"events"/ { gsub(/[^0-9]/, "", $2); print $2; exit }')
    echo
    echo "bytes per event on disk, examples/heat with 2 ranks: $bytes bytes / $events events = $(awk -v b="$bytes" -v e="$events" 'BEGIN { printf "%.2f", b / e }')"
fi

#!/bin/sh
# merge_speed.sh [BUILD_DIR]: how long `perfskel merge` takes on an NPB
# LU-shaped trace of 16 ranks with 324,355 events on the busiest rank (NPB
# LU class C as in Table 1 of Zhang et al., "Parallel Job Performance
# Prediction Based on the Case Reconstruction", Journal of Software 2010;
# boundary ranks make fewer calls), and on the same
# with MPI_PROC_NULL at the boundaries (every rank 324,355 events). Median
# of 5 runs, and peak memory (GNU time).
set -eu
B=$(cd "${1:-build}" && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
for variant in skip proc-null; do
    opt=""
    [ $variant = proc-null ] && opt=--proc-null
    "$B/gen_trace" "$W/lu" --ranks 16 --events 324355 $opt >"$W/gen.out"
    events=$(sed -n 's/.*iterations, \([0-9]*\) events.*/\1/p' "$W/gen.out")
    bytes=$(cat "$W"/lu/rank-*.psk | wc -c)
    for i in 1 2 3 4 5; do
        /usr/bin/time -f "%e %M" -o "$W/time.$i" "$B/perfskel" merge -q "$W/lu" -o "$W/m.pskm"
    done
    secs=$(cat "$W"/time.* | awk '{ print $1 }' | median)
    kb=$(cat "$W"/time.* | awk '{ print $2 }' | sort -n | tail -1)
    merged=$("$B/perfskel" merge "$W/lu" -o "$W/m.pskm" --json | awk -F: '/"merged_events"/ { gsub(/[^0-9]/, "", $2); print $2 }')
    echo "| LU-shaped, 16 ranks, boundary calls: $variant | $events | $((bytes / 1048576)) MB | $merged | $secs s | $(awk -v e="$events" -v s="$secs" 'BEGIN { printf "%.1f", e / s / 1e6 }') M/s | $((kb / 1024)) MB |"
    rm -rf "$W/lu"
done

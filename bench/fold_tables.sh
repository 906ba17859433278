#!/bin/sh
# fold_tables.sh [BUILD_DIR]: Tables 4-5 of Zhang et al., "Parallel Job
# Performance Prediction Based on the Case Reconstruction" (Journal of
# Software 2010; folded length and time of the four folding algorithms) on our
# own generated traces: the merged symbol sequences of NPB LU-shaped traces
# (bench/gen_trace, 16 ranks, 2 to 324,355 events on the busiest rank) and
# MPI-like nested-loop sequences (bench/fold_speed). A run longer than LIMIT
# seconds (default 120) is stopped and shown as "-", as the paper shows
# top-down on LU.
set -eu
B=$(cd "${1:-build}" && pwd)
LIMIT=${LIMIT:-120}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

echo "| trace | length | runs | paper | topdown | bottomup |"
echo "|---|---|---|---|---|---|"
for ev in 20000 100000 324355; do
    "$B/gen_trace" "$W/lu" --ranks 16 --events $ev >/dev/null
    "$B/perfskel" merge -q "$W/lu" -o "$W/lu.pskm"
    len="" row=""
    for a in runs paper topdown bottomup; do
        if timeout "$LIMIT" "$B/perfskel" fold "$W/lu.pskm" --algo $a --json >"$W/f.json" 2>/dev/null; then
            len=$(awk -F: '/"length"/ { gsub(/[^0-9]/, "", $2); print $2; exit }' "$W/f.json")
            fl=$(awk -F: '/"folded_length"/ { gsub(/[^0-9]/, "", $2); print $2; exit }' "$W/f.json")
            s=$(awk -F: '/"seconds"/ { gsub(/[ ,]/, "", $2); printf "%.3f", $2; exit }' "$W/f.json")
            row="$row | $fl ($s s)"
        else
            row="$row | - (> ${LIMIT} s)"
        fi
    done
    echo "| LU-shaped, 16 ranks, $ev on the busiest | $len$row |"
    rm -rf "$W/lu"
done
for n in 10000 100000 1000000; do
    row=""
    for a in runs paper topdown bottomup; do
        if out=$(timeout "$LIMIT" "$B/fold_speed" --algo $a $n 2>/dev/null) && [ -n "$out" ]; then
            fl=$(echo "$out" | sed -n 's/.*folded=\([0-9]*\).*/\1/p')
            s=$(echo "$out" | sed -n 's/.*seconds=\([0-9.]*\).*/\1/p')
            row="$row | $fl ($s s)"
        else
            row="$row | - (> ${LIMIT} s)"
        fi
    done
    echo "| MPI-like nested loops (fold_speed) | $n$row |"
done

#!/bin/sh
# predict_accuracy.sh [BUILD_DIR]: how close `perfskel predict` comes to the
# real run time, on this machine with 2 ranks. The actual time is what the
# prediction stands for, MPI_Init's exit to MPI_Finalize's entry on the
# slowest rank, taken from three recorded runs (median; recording adds well
# under 1 % to these programs); the first of them is the one predicted from,
# with K = 10 and K = 100 (each the median of 5 skeleton runs).
set -eu
B=$(cd "${1:-build}" && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
RUN="mpirun.openmpi -np 2"
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

echo "| program | actual (s) | K = 10 predicted (s) | error | K = 100 predicted (s) | error | skeleton time K = 100 (s) |"
echo "|---|---|---|---|---|---|---|"
for case in "heat 1024 2000" "heat 2048 1000" "heat 768 6000"; do
    set -- $case
    prog=$1
    shift
    # the original's wall, MPI_Init's exit to MPI_Finalize's entry: recorded
    # three times; the median of the slowest rank's wall (stats --json)
    for i in 1 2 3; do
        "$B/perfskel" record -o "$W/t$i" -- $RUN "$B/examples/$prog" "$@" >/dev/null 2>&1
        "$B/perfskel" stats "$W/t$i" --json | awk -F: '/"wall_seconds"/ { gsub(/[ ,]/, "", $2); print $2 }' |
            sort -n | tail -1 >"$W/wall.$i"
    done
    actual=$(cat "$W"/wall.* | median)
    row="| $prog $* | $actual"
    for K in 10 100; do
        "$B/perfskel" predict "$W/t1" -K $K --repeat 5 --json -- $RUN >"$W/p.json" 2>/dev/null
        pred=$(awk -F: '/^  "predicted_seconds"/ { gsub(/[ ,]/, "", $2); print $2 }' "$W/p.json")
        skel=$(awk -F: '/^  "skeleton_seconds"/ { gsub(/[ ,]/, "", $2); print $2 }' "$W/p.json")
        err=$(awk -v p="$pred" -v a="$actual" 'BEGIN { printf "%+.1f %%", 100 * (p - a) / a }')
        row="$row | $(printf '%.3f' "$pred") | $err"
    done
    echo "$row | $(printf '%.3f' "$skel") |"
    rm -rf "$W"/t*
done

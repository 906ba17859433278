#!/bin/sh
# sim_accuracy.sh [BUILD_DIR]: self-prediction of perfskel sim. Calibrates
# this machine once (`perfskel calibrate` with 2 ranks), then for each test
# program of bench/predict_accuracy.sh (the same sizes; C and Fortran):
# ROUNDS rounds (default 3) of one plain run and one recorded run; each
# recording simulated with the machine file. Prints the median plain wall,
# the median simulated time and its error, and the median error against
# the recorded run itself (its slowest rank's MPI_Init exit to MPI_Finalize
# entry), with the replay's speed.
set -eu
B=$(cd "${1:-build}" && pwd)
SRC=$(cd "$(dirname "$0")/../tests/mpi" && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
RUN=${RUN:-mpirun.openmpi -np 2}
ROUNDS=${ROUNDS:-3}
. "$(dirname "$0")/cases.sh"

"$B/perfskel" calibrate -o "$W/machine.par" -- $RUN >&2
sed 's/^/    /' "$W/machine.par" >&2

echo "| program | lang | actual (s) | simulated (s) | error | vs recording | events | replay (s) |"
echo "|---|---|---|---|---|---|---|---|"
echo "$CASELIST" | while read -r prog mac n work; do
    [ -n "${CASES:-}" ] && case " $CASES " in *" $prog "*) ;; *) continue ;; esac
    for lang in c f90; do
        exe="$W/$prog.$lang"
        build_case "$prog" "$mac" "$n" "$work" "$lang" openmpi "$exe"
        : >"$W/wall"; : >"$W/sim"; : >"$W/vsrec"; : >"$W/secs"
        for i in $(seq "$ROUNDS"); do
            PS_WALL=1 $RUN "$exe" </dev/null 2>/dev/null | awk '$1 == "wall" { print $2 }' >>"$W/wall"
            rm -rf "$W/t"
            "$B/perfskel" record -o "$W/t" -- $RUN "$exe" </dev/null >/dev/null 2>&1
            rec=$(recorded_wall "$B" "$W/t")
            /usr/bin/time -f "%e" -o "$W/time" "$B/perfskel" sim "$W/t" --machine "$W/machine.par" --json -q >"$W/s.json"
            p=$(num predicted_seconds "$W/s.json")
            echo "$p" >>"$W/sim"
            awk -v p="$p" -v r="$rec" 'BEGIN { print 100 * (p - r) / r }' >>"$W/vsrec"
            cat "$W/time" >>"$W/secs"
            ev=$(num events "$W/s.json")
        done
        actual=$(median <"$W/wall")
        sim=$(median <"$W/sim")
        err=$(awk -v p="$sim" -v a="$actual" 'BEGIN { printf "%+.1f %%", 100 * (p - a) / a }')
        echo "| $prog | $lang | $(printf '%.3f' "$actual") | $(printf '%.3f' "$sim") | $err | $(printf '%+.1f %%' "$(median <"$W/vsrec")") | $ev | $(median <"$W/secs") |"
    done
done

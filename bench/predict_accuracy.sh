#!/bin/sh
# predict_accuracy.sh [BUILD_DIR]: how close `perfskel predict` comes to the
# real run time of the test programs (tests/mpi: seven communication
# patterns, in C and in Fortran with `use mpi`), built here with more
# iterations and some computation per iteration (PS_WORK) so that each runs
# for seconds.
#
# This VM's speed drifts by up to 2x over seconds (other tenants of the
# host; a fixed compute loop runs 0.11-0.26 s back to back), so one plain
# run against one prediction says little. For each program, ROUNDS rounds
# (default 3), one after the other, of: one plain run (the wall it prints
# with PS_WALL set: first MPI call after MPI_Init to the report before
# MPI_Finalize, slowest rank), one recorded run with the recording
# launcher, and from that recording `perfskel predict` with K = 10 and with
# K = 100 (one skeleton run each) on the target. The table gives the median
# of each column, the spread of the plain runs ((max - min) / median), and
# the median error of each prediction against the run it was recorded from
# (its slowest rank's MPI_Init exit to MPI_Finalize entry; the recorder adds
# well under 1 % to these programs): how well the skeleton reproduces the
# run it comes from, apart from how the machine drifted since. Only
# meaningful when the target is the recording machine.
#
# Environment:
#   REC_RUN  launcher for the recording   (default: mpirun.openmpi -np 2)
#   RUN      launcher on the target       (default: $REC_RUN)
#   MPI      MPI of the launchers for predict --mpi (default: from REC_RUN)
#   CASES    which cases to run, by name  (default: all)
#   LANGS    c and/or f90                 (default: both)
#   ROUNDS   rounds per program           (default: 3)
#   SCALE    multiplies every iteration count (default: 1)
#   DIV      divides every iteration count (default: 1)
set -eu
B=$(cd "${1:-build}" && pwd)
SRC=$(cd "$(dirname "$0")/../tests/mpi" && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
REC_RUN=${REC_RUN:-mpirun.openmpi -np 2}
RUN=${RUN:-$REC_RUN}
ROUNDS=${ROUNDS:-3}
SCALE=${SCALE:-1}
DIV=${DIV:-1}
LANGS=${LANGS:-c f90}
case $REC_RUN in *mpich*) FL=mpich ;; *) FL=openmpi ;; esac
FL=${MPI:-$FL}
. "$(dirname "$0")/cases.sh"

echo "| program | lang | actual (s) | spread | K = 10 (s) | error | K = 100 (s) | error | vs recording K = 10 / 100 | skeleton K = 100 (s) | skeleton lines | scaled loops |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
echo "$CASELIST" | while read -r prog mac n work; do
    [ -n "${CASES:-}" ] && case " $CASES " in *" $prog "*) ;; *) continue ;; esac
    n=$((n * SCALE / DIV))
    for lang in $LANGS; do
        exe="$W/$prog.$lang"
        build_case "$prog" "$mac" "$n" "$work" "$lang" "$FL" "$exe"
        : >"$W/wall"; : >"$W/p10"; : >"$W/p100"; : >"$W/s100"; : >"$W/r10"; : >"$W/r100"
        for i in $(seq "$ROUNDS"); do
            PS_WALL=1 $RUN "$exe" </dev/null 2>/dev/null | awk '$1 == "wall" { print $2 }' >>"$W/wall"
            rm -rf "$W/t"
            "$B/perfskel" record -o "$W/t" -- $REC_RUN "$exe" </dev/null >/dev/null 2>&1
            rec=$(recorded_wall "$B" "$W/t")
            for K in 10 100; do
                rm -rf "$W/keep"
                if "$B/perfskel" predict "$W/t" -K $K --repeat 1 --json --mpi "$FL" --keep "$W/keep" -- $RUN \
                    </dev/null >"$W/p.json" 2>"$W/p.err"; then
                    num predicted_seconds "$W/p.json" >>"$W/p$K"
                    awk -v p="$(num predicted_seconds "$W/p.json")" -v r="$rec" 'BEGIN { print 100 * (p - r) / r }' >>"$W/r$K"
                    [ $K = 100 ] && num skeleton_seconds "$W/p.json" >>"$W/s100"
                else
                    sed 1q "$W/p.err" >&2
                fi
            done
        done
        actual=$(median <"$W/wall")
        spread=$(sort -n "$W/wall" | awk '{ a[NR] = $1 } END { m = a[int((NR + 1) / 2)]; printf "%.0f %%", 100 * (a[NR] - a[1]) / m }')
        row="| $prog | $lang | $(printf '%.3f' "$actual") | $spread"
        for K in 10 100; do
            pred=$(median <"$W/p$K")
            if [ -z "$pred" ]; then row="$row | failed | "; continue; fi
            err=$(awk -v p="$pred" -v a="$actual" 'BEGIN { printf "%+.1f %%", 100 * (p - a) / a }')
            row="$row | $(printf '%.3f' "$pred") | $err"
        done
        vsrec=$(printf '%+.1f / %+.1f %%' "$(median <"$W/r10")" "$(median <"$W/r100")")
        lines=$(cat "$W"/keep/skeleton.c 2>/dev/null | wc -l)
        scaled=$(grep -c "here (K = " "$W"/keep/skeleton.c 2>/dev/null || true)
        echo "$row | $vsrec | $(printf '%.3f' "$(median <"$W/s100")") | $lines | ${scaled:-0} |"
    done
done

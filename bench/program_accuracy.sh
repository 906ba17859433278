#!/bin/sh
# program_accuracy.sh BUILD_DIR PROGRAMS_DIR [NP]: predictions of the
# bench/programs programs (docs/benchmarks.md) against their plain runs, on this
# machine. For each program (PROGS, default all seven; built by
# bench/programs/build.sh into PROGRAMS_DIR/MPI): RUNS plain runs (default
# 5; the program's own time, slowest rank: median and spread min-max), one
# recording, then from it `perfskel predict` at K = 10 and K = 100
# (--repeat 3: median) and `perfskel sim` (full and --folded) with the
# machine file MACHINE (default: none, or `perfskel calibrate`d first on
# the target, with RUN, when MACHINE=calibrate). Errors are against the median plain run, and
# against the recorded run itself ("rec"); "in" is how many of the plain
# runs fall inside the range of the 3 K = 10 predictions (which a further
# run falls inside with probability 1/2 if runs vary alike). One row per
# program:
#   program np actual spread rec K10 err range in K100 err sim err simf err skipped
# Environment: MPI (openmpi or mpich, default openmpi), RUNS, PROGS,
# ARGS_<prog>, MACHINE, PSK (another perfskel binary to compare, e.g. an
# older build: its K = 10 prediction is added as a last column); RUN (the
# launcher of the plain runs and skeletons, with its -np: another target,
# e.g. an emulated cluster's `TESTBED/cluster.sh mpirun -np 2 --host h0,h2`,
# as in docs/benchmarks.md) and
# REC_RUN (the recording's, default RUN); SIM=0 leaves sim out.
set -u
B=$(cd "$1" && pwd)
PD=$(cd "$2" && pwd)
NP=${3:-2}
MPI=${MPI:-openmpi}
RUNS=${RUNS:-5}
P=$B/perfskel
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if [ -n "${RUN:-}" ]; then
    :
elif [ "$MPI" = openmpi ]; then
    RUN="mpirun.openmpi --oversubscribe -np $NP"
else
    RUN="mpirun.mpich -np $NP"
fi
REC_RUN=${REC_RUN:-$RUN}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
mach=""
case "${MACHINE:-}" in
calibrate)
    # the machine the plain runs and skeletons run on (RUN), which is the
    # recording's own unless RUN names another target
    "$P" calibrate -o "$W/m.par" -- $RUN >/dev/null 2>&1 && mach="--machine $W/m.par" ;;
"") ;;
*) mach="--machine $MACHINE" ;;
esac

secs() { sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' | tail -n 1; }
num() { sed -n "s/.*\"$1\": *\([0-9.e+-]*\).*/\1/p" | head -n 1; }
err() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%+.1f%%", 100 * (b / a - 1); else printf "-" }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

echo "program np actual spread rec K10 err range in K100 err sim err simf err skipped${PSK:+ old_K10 err}"
for prog in ${PROGS:-polling_halo tagged_ring redblack vcycle ring coldstart fft_transpose}; do
    exe=$PD/$MPI/$prog
    [ -x "$exe" ] || { echo "program_accuracy: $exe missing" >&2; continue; }
    args=$(eval echo "\${ARGS_$prog:-}")
    : >"$W/runs"
    i=0
    while [ $i -lt "$RUNS" ]; do
        i=$((i + 1))
        $RUN "$exe" $args </dev/null 2>/dev/null | secs >>"$W/runs"
    done
    act=$(median <"$W/runs")
    spread=$(sort -g "$W/runs" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f-%.3f", lo, hi }')
    rm -rf "$W/t"
    "$P" record -o "$W/t" -- $REC_RUN "$exe" $args </dev/null >"$W/rec.out" 2>/dev/null
    rec=$(secs <"$W/rec.out")
    "$P" predict "$W/t" -K 10 --repeat 3 --json -q -- $RUN >"$W/k10" 2>/dev/null
    k10=$(num predicted_seconds <"$W/k10")
    lo=$(num low_seconds <"$W/k10")
    hi=$(num high_seconds <"$W/k10")
    inside=$(awk -v lo="${lo:-0}" -v hi="${hi:-0}" '$1 >= lo && $1 <= hi { n++ } END { printf "%d/%d", n, NR }' "$W/runs")
    k100=$("$P" predict "$W/t" -K 100 --repeat 3 --json -q -- $RUN 2>/dev/null | num predicted_seconds)
    sim="" simf="" skip=""
    if [ "${SIM:-1}" != 0 ]; then
        sim=$("$P" sim "$W/t" $mach --json -q 2>/dev/null | num predicted_seconds)
        "$P" sim "$W/t" $mach --folded --json -q >"$W/simf" 2>/dev/null
        simf=$(num predicted_seconds <"$W/simf")
        skip=$(num iterations_skipped <"$W/simf")
    fi
    old=""
    if [ -n "${PSK:-}" ]; then
        o=$("$PSK" predict "$W/t" -K 10 --repeat 3 --json -q -- $RUN 2>/dev/null | num predicted_seconds)
        old=" ${o:--} $(err "$act" "${o:-0}")"
    fi
    echo "$prog $NP $act $spread ${rec:--} ${k10:--} $(err "$act" "${k10:-0}") ${lo:--}-${hi:--} $inside" \
         "${k100:--} $(err "$act" "${k100:-0}")" \
         "${sim:--} $(err "$act" "${sim:-0}") ${simf:--} $(err "$act" "${simf:-0}") ${skip:--}$old"
done

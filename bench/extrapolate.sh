#!/bin/sh
# extrapolate.sh [BUILD_DIR]: process-count extrapolation (sim --ranks,
# issue 17) against real recordings. Records the weak-scaling 1-D stencil
# tests/cli/extrap_stencil.c (Cart_create, halos of H doubles each way,
# WORK loop iterations of compute per rank and iteration, an Allreduce
# every 10) at 2, 4, 8 and 16 ranks with Open MPI, oversubscribed on this
# 2-core machine (only 2 ranks really fit), and runs it once unrecorded at
# each size for its measured loop time. From the 2- and 4-rank traces it
# predicts 8 and 16 ranks with the weak rule and the fit through both, and
# compares with sim of the real 8- and 16-rank traces: on the default
# machine (the recorded compute gaps, which under oversubscription hold
# the time a rank waited for a core), on this machine as `perfskel
# calibrate` measures it with 2 ranks, every rank on one node (ranks per
# node = 16) whose 2 cores they share (cores per node: the sharing sim
# models, against the sharing each recording had), and on a machine whose
# CPU is 10^6 times faster with 4 links per node (the communication alone).
# The measured loop times are MPI_Wtime around the loop on rank 0.
set -eu
B=$(cd "${1:-build}" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
RUN="mpirun.openmpi --allow-run-as-root --oversubscribe"
NITER=${NITER:-500} WORK=${WORK:-20000} H=${H:-512}
P="$B/perfskel"
mpicc.openmpi -O1 -o "$W/stencil" "$SRC/tests/cli/extrap_stencil.c"
echo "power = 1000000; links per node = 4;" >"$W/comm.par"
"$P" calibrate -o "$W/cal.par" -- mpirun.openmpi --allow-run-as-root -np 2 >&2
echo "ranks per node = 16;" >>"$W/cal.par"
grep -v '^ *//' "$W/cal.par" | tr '\n' ' ' | cut -c1-300 >&2
echo >&2
for n in 2 4 8 16; do
    $RUN -np $n "$W/stencil" $NITER $WORK $H </dev/null | sed -n 's/.*loop \([0-9.]*\) s/\1/p' >"$W/measured$n"
    "$P" record -o "$W/t$n" -- $RUN -np $n "$W/stencil" $NITER $WORK $H </dev/null >/dev/null 2>&1
done
pred() { "$P" sim "$@" -q | awk '/^predicted run time:/ { print $4; exit }'; }
err() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f %%", 100 * (a / b - 1) }'; }
echo "uptime: $(uptime)"
for mach in default calibrated comm; do
    m=""
    [ $mach = comm ] && m="--machine $W/comm.par"
    [ $mach = calibrated ] && m="--machine $W/cal.par"
    echo
    echo "machine: $mach"
    echo "| P | measured loop (s) | sim of the P-rank trace (s) | weak from 2 | weak from 4 | fit 2,4 |"
    echo "|---|---|---|---|---|---|"
    for n in 2 4 8 16; do
        # shellcheck disable=SC2086
        real=$(pred "$W/t$n" $m)
        row="| $n | $(cat "$W/measured$n") | $real"
        for rule in "t2 --scale weak" "t4 --scale weak" "t2 --fit $W/t4"; do
            src=${rule%% *} rest=${rule#* }
            if [ "${src#t}" -gt "$n" ] || { [ "$src" = t4 ] && [ "$n" -lt 4 ]; } || { [ "${rest%% *}" = --fit ] && [ "$n" -lt 8 ]; }; then
                row="$row | —"
                continue
            fi
            # shellcheck disable=SC2086
            x=$(pred "$W/$src" --ranks $n $rest $m)
            row="$row | $x ($(err "$x" "$real"))"
        done
        echo "$row |"
    done
done

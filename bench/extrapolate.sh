#!/bin/sh
# extrapolate.sh [BUILD_DIR]: process-count extrapolation (sim --ranks,
# docs/simulation.md) against real recordings. Records the weak-scaling 1-D
# stencil tests/cli/extrap_stencil.c (Cart_create, halos of H doubles each
# way, WORK loop iterations of compute per rank and iteration, an Allreduce
# every 10) at 2, 4, 8 and 16 ranks with Open MPI, oversubscribed on this
# 2-core machine (only 2 ranks really fit), and runs it once unrecorded at
# each size for its measured loop time (MPI_Wtime around the loop, rank 0).
# From the 2- and 4-rank traces it predicts 8 and 16 ranks with the weak rule
# and the fit through both, and compares with sim of the real 8- and 16-rank
# traces on three machines: the default one (the recorded compute gaps, which
# under oversubscription hold the time a rank waited for a core); this machine
# as `perfskel calibrate` measures it with 2 ranks, every rank on one node
# (ranks per node = 16) whose 2 cores they share (cores per node: the sharing
# sim models, against the sharing each recording had); and one whose CPU is
# 10^6 times faster with 4 links per node (the communication alone). ROUNDS
# rounds (default 3) of recordings; each cell is the median over rounds, its
# error the median of the rounds' errors. WORK=-US makes each iteration's
# compute a sleep of US microseconds (needing no core, so that the
# oversubscribed 8- and 16-rank runs keep the 2-rank run's compute times).
set -eu
B=$(cd "${1:-build}" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
RUN="mpirun.openmpi --allow-run-as-root --oversubscribe"
NITER=${NITER:-500} WORK=${WORK:-20000} H=${H:-512} ROUNDS=${ROUNDS:-3}
P="$B/perfskel"
mpicc.openmpi -O1 -o "$W/stencil" "$SRC/tests/cli/extrap_stencil.c"
echo "power = 1000000; links per node = 4;" >"$W/comm.par"
"$P" calibrate -o "$W/calibrated.par" -- mpirun.openmpi --allow-run-as-root -np 2 >&2
echo "ranks per node = 16;" >>"$W/calibrated.par"
grep -v '^ *//' "$W/calibrated.par" | sed 's|//.*||' | tr -s ' \n' ' ' | cut -c1-200 >&2
echo >&2
pred() { "$P" sim "$@" -q | awk '/^predicted run time:/ { print $4; exit }'; }
: >"$W/cells"
for round in $(seq "$ROUNDS"); do
    for n in 2 4 8 16; do
        $RUN -np $n "$W/stencil" $NITER $WORK $H </dev/null | sed -n "s/.*loop \([0-9.]*\) s/measured $n \1/p" >>"$W/cells"
        rm -rf "$W/t$n"
        "$P" record -o "$W/t$n" -- $RUN -np $n "$W/stencil" $NITER $WORK $H </dev/null >/dev/null 2>&1
    done
    for mach in default calibrated comm; do
        m=""
        [ $mach = default ] || m="--machine $W/$mach.par"
        for n in 2 4 8 16; do
            # shellcheck disable=SC2086
            real=$(pred "$W/t$n" $m)
            echo "$mach $n real $real 0" >>"$W/cells"
            for rule in "weak2:t2 --scale weak" "weak4:t4 --scale weak" "fit:t2 --fit $W/t4"; do
                col=${rule%%:*} args=${rule#*:}
                case $col:$n in weak4:2 | fit:2 | fit:4) continue ;; esac
                # shellcheck disable=SC2086
                x=$(pred "$W/${args%% *}" --ranks $n ${args#* } $m)
                echo "$mach $n $col $x $(awk -v a="$x" -v b="$real" 'BEGIN { print 100 * (a / b - 1) }')" >>"$W/cells"
            done
        done
    done
done
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
cell() { # MACHINE N COLUMN
    v=$(awk -v a="$1" -v n="$2" -v c="$3" '$1 == a && $2 == n && $3 == c { print $4 }' "$W/cells" | median)
    [ -n "$v" ] || { printf -- "—"; return; }
    e=$(awk -v a="$1" -v n="$2" -v c="$3" '$1 == a && $2 == n && $3 == c { print $5 }' "$W/cells" | median)
    [ "$3" = real ] && printf "%.6f" "$v" || printf "%.6f (%+.1f %%)" "$v" "$e"
}
echo "uptime at the end: $(uptime)"
for mach in default calibrated comm; do
    echo
    echo "machine: $mach (median of $ROUNDS rounds)"
    echo "| P | measured loop (s) | sim of the P-rank trace (s) | weak from 2 | weak from 4 | fit 2,4 |"
    echo "|---|---|---|---|---|---|"
    for n in 2 4 8 16; do
        meas=$(awk -v n="$n" '$1 == "measured" && $2 == n { print $3 }' "$W/cells" | median)
        echo "| $n | $meas | $(cell $mach $n real) | $(cell $mach $n weak2) | $(cell $mach $n weak4) | $(cell $mach $n fit) |"
    done
done

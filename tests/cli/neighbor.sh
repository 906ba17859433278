#!/bin/sh
# neighbor.sh FLAVOUR PROGRAM: MPI_Neighbor_alltoall and
# MPI_Neighbor_allgather (MPI-3) on tests/cli/neighbor.c's periodic
# Cartesian grid: recorded by the C wrappers on every rank with their
# counts and communicator, given back whole by merge, folded into the
# program's loop; and refused, each with one line naming the function, by
# the stages that cannot replay them yet: sim (whole and folded), gen,
# export --smpi and export --otf2 (OTF2 has no neighborhood collective op).
set -u
P=${PERFSKEL:?}
flavour=$1
prog=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
mpirun_of "$flavour"
n=4
[ "$flavour" = openmpi ] || n=2 # MPICH busy-polls: slow when oversubscribed

# shellcheck disable=SC2086
if ! timeout -k 10 300 "$P" record -o "$T/t" -- $MPIRUN -np $n "$prog" 5 </dev/null >"$T/out" 2>"$T/err"; then
    bad "recording ($n ranks) failed"; cat "$T/err"
    exit 1
fi
"$P" dump "$T/t" >"$T/dump" 2>"$T/err" || { bad "dump failed"; cat "$T/err"; }
for fn in MPI_Neighbor_alltoall MPI_Neighbor_allgather; do
    for r in $(seq 0 $((n - 1))); do
        got=$(awk -v r="$r" -v f="$fn" '$1 == r && $5 == f && / count=1 dtsize=4 rcount=1 rdtsize=4/ && !/comm=0/' \
            "$T/dump" | wc -l)
        [ "$got" -eq 5 ] || bad "rank $r: $got $fn events with their counts on the Cartesian communicator, not 5"
    done
done
ok "every rank's 5 MPI_Neighbor_alltoall and MPI_Neighbor_allgather recorded"
"$P" merge -q "$T/t" -o "$T/m.pskm" >/dev/null 2>"$T/err" && "$P" dump "$T/m.pskm" >"$T/mdump" &&
    cmp -s "$T/dump" "$T/mdump" && ok "merge gives back the recorded events" ||
    { bad "the merged trace does not give back the recorded events"; cat "$T/err"; }
"$P" fold "$T/m.pskm" >"$T/fold" 2>"$T/err"
grep -q '(Neighbor_alltoall Neighbor_allgather)x5' "$T/fold" && ok "folded into the loop" ||
    { bad "fold: no (Neighbor_alltoall Neighbor_allgather)x5"; cat "$T/fold" "$T/err"; }
expect 1 'MPI_Neighbor_alltoall (event [0-9]*): neighborhood collectives are not simulated' "sim refuses" -- \
    "$P" sim "$T/t"
expect 1 'MPI_Neighbor_alltoall (event [0-9]*): neighborhood collectives are not simulated' "sim --folded refuses" -- \
    "$P" sim --folded "$T/m.pskm"
expect 1 'MPI_Neighbor_alltoall: neighborhood collectives are not supported by perfskel gen' "gen refuses" -- \
    "$P" gen "$T/m.pskm" -o "$T/sk.c"
expect 1 'MPI_Neighbor_alltoall' "export --smpi refuses" -- "$P" export --smpi "$T/t" -o "$T/smpi"
expect 1 'MPI_Neighbor_alltoall is not exported (OTF2 has no neighborhood collectives)' "export --otf2 refuses" -- \
    "$P" export --otf2 "$T/t" -o "$T/otf2"
[ $fails -eq 0 ] && echo "all neighborhood collective tests passed" || echo "$fails neighborhood collective test(s) failed"
exit $fails

#!/bin/sh
# completion.sh FLAVOUR COMPLETION: every way a request completes, replayed
# (tests/cli/completion.c: a wildcard receive polled by MPI_Testany and
# cancelled at the end, as HPC Challenge's RandomAccess does; request
# arrays with MPI_REQUEST_NULL and inactive persistent requests through
# Waitall, Waitany, Waitsome, Testsome, Testall, Testany, Test and Wait;
# requests completed across polls). Recorded on 2 ranks: the cancelled
# receive's status says it received nothing (-1/-1, under both MPIs); sim
# replays every event (a cancelled receive left posted took a later
# message, whose own receive then waited forever) and sim --folded
# predicts the same, and predict -K 10's skeleton runs, each within 25 %
# of the recorded run's time.
set -u
flavour=$1 prog=$2
: "${PERFSKEL:?PERFSKEL must name the perfskel CLI}"
P=$PERFSKEL
. "$(dirname "$0")/lib.sh"
mpirun_of "$flavour"
T=$(mktemp -d "${TMPDIR:-/tmp}/perfskel-completion.XXXXXX")
trap 'rm -rf "$T"' EXIT

if ! timeout 300 "$P" record -o "$T/trace" -- $MPIRUN -np 2 "$prog" >"$T/out" 2>"$T/err"; then
    bad "recording completion failed"; cat "$T/err"; exit 1
fi
"$P" dump "$T/trace" --rank 0 >"$T/dump" 2>"$T/err" || { bad "dump failed"; cat "$T/err"; }
# the pattern is there: Testany completing the wildcard receive, then its cancel
if grep -q ' MPI_Testany flag=1 index=0 reqs=\[[0-9]*\] statuses=\[0:1/1\]$' "$T/dump" &&
    awk '$5 == "MPI_Cancel" { c = 1; next } c && $5 == "MPI_Wait" { exit !($0 ~ /statuses=\[0:-1\/-1\]$/) } { c = 0 }' "$T/dump" &&
    grep -q ' MPI_Cancel ' "$T/dump"; then
    ok "Testany completes the wildcard receive; the cancelled one's status names no source"
else
    bad "the trace lacks the Testany pattern or a cancelled receive's status"; grep -m 4 'Testany flag=1\|Cancel' -A1 "$T/dump"
fi
for fn in Waitall Waitany Waitsome Testsome Testall Test Start Recv_init Send_init; do
    grep -q " MPI_$fn " "$T/dump" || bad "no MPI_$fn in the trace"
done
replays "$T/trace" "the completion trace" folded
[ $fails -eq 0 ] || { echo "$fails failed"; exit 1; }

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

num() { sed -n "s/.*\"$2\": *\([-0-9.e+]*\).*/\1/p" "$1" | head -n 1; }
near() {
    if awk -v g="$2" -v w="$3" 'BEGIN { exit !(w > 0 && g >= 0.75 * w && g <= 1.25 * w) }'; then
        ok "$1: $2 s for a recorded $3 s"
    else
        bad "$1: $2 s, not within 25 % of the recorded $3 s"
    fi
}

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
"$P" stats "$T/trace" --json >"$T/stats.json" 2>"$T/err" || { bad "stats failed"; cat "$T/err"; }
wall=$(num "$T/stats.json" wall_seconds)
events=$(num "$T/stats.json" events)
if "$P" sim "$T/trace" --json -q >"$T/sim.json" 2>"$T/err"; then
    [ "$(num "$T/sim.json" events_replayed)" = "$events" ] && ok "sim replayed all $events events" ||
        bad "sim replayed $(num "$T/sim.json" events_replayed) events of $events"
    near "sim" "$(num "$T/sim.json" predicted_seconds)" "$wall"
else
    bad "sim failed"; cat "$T/err"
fi
if "$P" sim "$T/trace" --folded --no-skip --json -q >"$T/simf.json" 2>"$T/err"; then
    a=$(num "$T/sim.json" predicted_seconds) b=$(num "$T/simf.json" predicted_seconds)
    awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0 && d <= 1e-6 * a) }' &&
        ok "sim --folded predicts what sim does" || bad "sim --folded predicted $b, sim $a"
else
    bad "sim --folded failed"; cat "$T/err"
fi
if timeout 300 "$P" predict "$T/trace" -K 10 --timeout 240 -q --json -- $MPIRUN -np 2 >"$T/pred.json" 2>"$T/err"; then
    near "predict -K 10" "$(num "$T/pred.json" predicted_seconds)" "$wall"
else
    bad "predict -K 10 failed"; cat "$T/err"
fi
[ $fails -eq 0 ] || { echo "$fails failed"; exit 1; }

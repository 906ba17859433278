#!/bin/sh
# calibrate.sh FLAVOUR VARIANT_BINARY: perfskel calibrate end to end: the
# machine file it writes for 2 ranks on this host has the measured message
# costs, the work unit's times (short and sustained) and the poll costs
# (13 points, 5 to 500 us of compute before a poll, none below 0), and
# perfskel sim reads it (power 1 on the host calibrated). Then the poll
# cost in sim: tests/cli/variant.c's busy MPI_Iprobe loop (tens of
# thousands of polls a few tenths of a us apart) at 1 ms a poll costs a
# poll a run, not a millisecond a recorded poll; a launcher that fails is
# one line and a non-zero exit.
set -u
flavour=$1 prog=$2
: "${PERFSKEL:?PERFSKEL must name the perfskel CLI}"
P=$PERFSKEL
. "$(dirname "$0")/lib.sh"
mpirun_of "$flavour"
T=$(mktemp -d "${TMPDIR:-/tmp}/perfskel-calibrate.XXXXXX")
trap 'rm -rf "$T"' EXIT

if timeout 300 "$P" calibrate -o "$T/m.par" -- $MPIRUN -np 2 >"$T/out" 2>"$T/err"; then
    ok "calibrate ran"
else
    bad "calibrate failed"; cat "$T/out" "$T/err"; exit 1
fi
for key in 'message cost = {' 'work unit time = ' 'node work unit time = {' 'poll cost = {' 'calibrated on = '; do
    if grep -q "^$key" "$T/m.par"; then ok "has $key"; else bad "no '$key'"; cat "$T/m.par"; fi
done
n=$(awk -F'[{}]' '/^poll cost = \{/ { c = split($2, v, ","); bad = c != 26;
        for (i = 1; i <= c; i++) if (v[i] + 0 < 0) bad = 1;
        if (v[1] + 0 != 5 || v[25] + 0 != 500) bad = 1; print bad ? "bad" : c / 2 }' "$T/m.par")
if [ "$n" = 13 ]; then ok "poll cost: 13 points, 5 to 500 us, none below 0"; else bad "poll cost: $n"; grep '^poll' "$T/m.par"; fi

timeout 120 "$P" record -o "$T/poll" -- $MPIRUN -np 2 "$prog" poll 20 >"$T/rec.out" 2>&1 ||
    { cat "$T/rec.out"; bad "poll: the recorded run failed"; exit 1; }
pred() { awk -F: '/"predicted_seconds"/ { gsub(/[ ,]/, "", $2); print $2; exit }' "$1"; }
if "$P" sim "$T/poll" --machine "$T/m.par" --json -q >"$T/s0.json" 2>"$T/err" &&
    grep -q '"power_from": "the host calibrated"' "$T/s0.json"; then
    ok "sim reads the machine file: power from the host calibrated"
else
    bad "sim with the calibrated machine"; cat "$T/err"; grep -A3 '"machine"' "$T/s0.json"
fi
{ grep -v '^poll cost' "$T/m.par"; echo 'poll cost = {0, 1000};'; } >"$T/slow.par"
"$P" sim "$T/poll" --machine "$T/slow.par" --json -q >"$T/s1.json" 2>"$T/err" || { bad "sim, 1 ms polls"; cat "$T/err"; }
a=$(pred "$T/s0.json") b=$(pred "$T/s1.json")
calls=$("$P" stats "$T/poll" --no-fold | awk '$1 == "MPI_Iprobe" && $2 ~ /^[0-9]+$/ { print $2; exit }')
if awk -v a="$a" -v b="$b" 'BEGIN { exit !(a > 0 && b >= a && b - a <= 20 * 0.001 + 1e-6) }'; then
    ok "busy polls ($calls MPI_Iprobe calls) at 1 ms: $a -> $b s, at most a poll a run"
else
    bad "busy polls ($calls MPI_Iprobe calls) at 1 ms: $a -> $b s"
fi

expect 1 'calibration run failed' "a launcher that fails" -- "$P" calibrate -o "$T/x.par" --mpi "$flavour" -- false
[ ! -e "$T/x.par" ] && ok "no machine file after a failed run" || bad "a machine file after a failed run"
echo "calibrate.sh: $fails failure(s)"
[ "$fails" -eq 0 ]

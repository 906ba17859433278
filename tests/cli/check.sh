#!/bin/sh
# perfskel check, the user's trust test: check.sh FLAVOUR HEAT CRASH (heat
# and tests/cli/crash.c built with FLAVOUR's mpicc). Needs PERFSKEL.
# heat 256 300 with 2 ranks checked (a machine calibrated on the spot, the
# table on stdout), and crash.c's late mode (rank 1 the slowest) with
# --json, -n 1 (no noise floor) and that machine file: every field of the JSON, each plain run's time
# recomputed from the ranks' time files, the recorded run's from perfskel
# stats and sim's from perfskel sim, the median inside the plain runs'
# range, every error and the noise floor recomputed from the seconds
# (tests/cli/check_verify.py), the table's rows and verdict agreeing with
# the JSON, the trace kept in DIR. Then a program that exits with status 3,
# one that dies of SIGSEGV and one that hangs (--timeout 1): one line each
# naming the status or signal, exit 1, what was measured kept in DIR, no
# process left; and the usage errors (exit 2). Nothing here compares a
# time with a constant.
set -u
FL=$1
HEAT=$2
CRASH=$3
P=${PERFSKEL:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
D=$(dirname "$0")
. "$D/lib.sh"
mpirun_of "$FL"
verify() { python3 "$D/check_verify.py" "$@"; } # check_verify.py says what it checks

# --- heat, the table ---
# from a directory of its own: a plain run that recorded would leave a
# ./perfskel-trace there (the recorder's default)
mkdir "$T/cwd"
(cd "$T/cwd" && timeout 300 "$P" check -o "$T/chk" -- $MPIRUN -np 2 "$HEAT" 256 300 >"$T/table" 2>"$T/progress")
st=$?
if [ $st -ne 0 ]; then
    bad "check on heat: exit $st"; cat "$T/table" "$T/progress"; exit 1
fi
ok "check on heat: exit 0"
miss=""
for pat in "^perfskel check: MPI: " "^perfskel check: plain run 1 of 3, no time limit \.\.\.$" \
    "^perfskel check: plain run 1 of 3: [0-9.]* s (MPI_Init to MPI_Finalize, slowest of 2 ranks); the launcher's wall time" \
    "^perfskel check: recording (perfskel record -o $T/chk), limit [0-9.]* s \.\.\.$" \
    "^perfskel check: recorded run: [0-9.]* s, [0-9]* events recorded in $T/chk$" \
    "^perfskel check: plain run 3 of 3, limit [0-9.]* s \.\.\.$" "^perfskel check: predicting with a K = 10 skeleton" \
    "^perfskel check: measuring this machine with mpirun.$FL" "^perfskel check: simulated [0-9.]* s$"; do
    grep -q -- "$pat" "$T/progress" || miss="$miss '$pat'"
done
if [ -z "$miss" ] && ! grep -qv "^perfskel check: " "$T/progress" && ! grep -q "^perfskel check: " "$T/table"; then
    ok "progress: each step on stderr, none on stdout"
else
    bad "progress: stderr lacks$miss (or holds other lines, or stdout has progress)"; cat "$T/progress"
fi
[ -z "$(ls -A "$T/cwd")" ] && ok "the plain runs recorded nothing (no trace in the working directory)" ||
    bad "the plain runs left $(ls -A "$T/cwd") in the working directory"
for f in job.json rank-000000.psk rank-000001.psk machine.par check.json check/plain-1/rank-000000.times \
    check/plain-3/rank-000001.times check/plain-2.out check/record.err; do
    [ -s "$T/chk/$f" ] || bad "$T/chk/$f missing or empty"
done
# stats_sim DIR MACHINE: what perfskel stats and sim say of the kept trace
stats_sim() {
    "$P" stats "$1" --json --no-fold >"$T/stats.json" 2>"$T/err" && ok "$1: the trace kept, perfskel stats reads it" ||
        { bad "perfskel stats on $1"; cat "$T/err"; }
    "$P" sim "$1" --machine "$2" --json -q >"$T/sim.json" 2>"$T/err" || { bad "perfskel sim on $1"; cat "$T/err"; }
}
stats_sim "$T/chk" "$T/chk/machine.par"
verify json "$T/chk/check.json" "$T/chk" "$T/stats.json" "$T/sim.json" "$FL" 3 "$T/chk/machine.par" 1 "256 300" &&
    ok "check.json: its fields; times, medians, errors and noise floor recomputed" || bad "check.json: see above"
verify table "$T/table" "$T/chk/check.json" && ok "the table: its rows, errors and verdict agree with the JSON" ||
    { bad "the table: see above"; cat "$T/table"; }

# --- again with --json, one plain run (no noise floor) and the machine file
# just made, on a program whose slowest rank is rank 1 (crash late: 300 ms
# more compute before MPI_Finalize; heat's rank 0 prints last) ---
cp "$T/chk/machine.par" "$T/m.par"
timeout 300 "$P" check --json -n 1 --machine "$T/m.par" -o "$T/chk2" -- $MPIRUN -np 2 "$CRASH" late 300 >"$T/out.json" 2>"$T/err"
st=$?
if [ $st -eq 0 ] && [ ! -s "$T/err" ] && cmp -s "$T/out.json" "$T/chk2/check.json"; then
    ok "--json: exit 0, nothing on stderr, stdout is DIR/check.json"
else
    bad "--json: exit $st, or stderr not empty, or stdout differs from check.json"; cat "$T/err"
fi
stats_sim "$T/chk2" "$T/m.par"
verify json "$T/out.json" "$T/chk2" "$T/stats.json" "$T/sim.json" "$FL" 1 "$T/m.par" 0 "late 300" 1 &&
    ok "--json: its fields and arithmetic; sim on the machine given" || bad "--json: see above"

# --- a program that fails, crashes or hangs: one line, exit 1, what was measured kept ---
# one_line NAME: stderr is exactly one perfskel line
one_line() {
    n=$(wc -l <"$T/err")
    [ "$n" -eq 1 ] && ok "$1: one line" || { bad "$1: $n lines on stderr"; cat "$T/err"; }
}
expect 1 "crash: plain run 1 of 3 failed with exit status 3: rank 1 exited with status 3 before MPI_Finalize" \
    "exit status 3" -- timeout 120 "$P" check -q -o "$T/fexit" -- $MPIRUN -np 2 "$CRASH" exit 5
one_line "exit status 3"
grep -qx "exit 3" "$T/fexit/check/plain-1/rank-000001.times" && [ -s "$T/fexit/check/plain-1/rank-000000.times" ] &&
    grep -q "$T/fexit/check" "$T/err" && ok "exit status 3: the ranks' times kept where the line says" ||
    { bad "exit status 3: $T/fexit/check/plain-1 lacks the ranks' ends"; ls -R "$T/fexit"; }
# (the program named after a second --, as for a program check cannot tell)
expect 1 "crash: plain run 1 of 3 failed with exit status [0-9]*: rank 1 died of SIGSEGV before MPI_Finalize" \
    "SIGSEGV" -- timeout 120 "$P" check -q -o "$T/fsegv" -- $MPIRUN -np 2 -- "$CRASH" segv 5
one_line "SIGSEGV"
cp "$CRASH" "$T/hangprog" # a name of this test's own, for pgrep
expect 1 "hangprog: plain run 1 of 3 did not finish within 1 s (--timeout) and was stopped; 2 of 2 ranks had not reached MPI_Finalize" \
    "a hang stopped by --timeout 1" -- timeout 120 "$P" check -q --timeout 1 -o "$T/fhang" -- $MPIRUN -np 2 "$T/hangprog" hang 5
one_line "a hang"
[ -s "$T/fhang/check/plain-1/rank-000000.times" ] && ok "a hang: the ranks' times kept" || bad "a hang: no times kept"
left=""
for i in 1 2 3 4 5 6 7 8 9 10; do
    left=$(pgrep -f "$T/hangprog") || break
    sleep 0.2
done
[ -z "$left" ] && ok "a hang: no process left" || { bad "a hang: processes left: $left"; pgrep -f "$T/hangprog" | xargs -r kill -KILL; }

# --- usage ---
expect 0 "" "--help" -- "$P" check --help
for o in -n -K --machine -o --json --quiet --timeout --mpi --help; do
    grep -q -- "^  .*$o" "$T/out" || bad "--help does not document $o"
done
expect 2 "check: -n takes a number of runs from 1 to 100, not '0'" "-n 0" -- "$P" check -n 0 -- $MPIRUN -np 2 "$HEAT"
expect 2 "check: '$(echo $MPIRUN | cut -d' ' -f1)' before the --" "no --" -- "$P" check $MPIRUN -np 2 "$HEAT"
expect 2 "check: no job given after --" "nothing after --" -- "$P" check -n 2 --
expect 2 "check: unknown option '--frobnicate'" "unknown option" -- "$P" check --frobnicate -- $MPIRUN -np 2 "$HEAT"
expect 2 "check: unknown option '--frobnicate'" "unknown --name=value" -- "$P" check --frobnicate=1 -- $MPIRUN -np 2 "$HEAT"
expect 2 "check: -K takes a whole number" "-K 0" -- "$P" check -K 0 -- $MPIRUN -np 2 "$HEAT"
expect 2 "check: --timeout takes seconds" "--timeout=soon" -- "$P" check --timeout=soon -- $MPIRUN -np 2 "$HEAT"
expect 2 "cannot tell where the program starts" "no MPI program among the job's words" -- \
    "$P" check -o "$T/nope" -- $MPIRUN -np 2 /bin/sh -c true
[ ! -e "$T/nope" ] && ok "a usage error makes no directory" || bad "a usage error made $T/nope"
[ "$fails" -eq 0 ]

#!/bin/sh
# perfskel predict never hangs and says what it is doing: predict.sh FLAVOUR
# HEAT_PROGRAM. Needs PERFSKEL (path of the CLI). A recording of heat that
# runs about 3 s is predicted normally (progress on stderr, none with -q,
# stdout as before), then with K = 1 and a 1.5 s watchdog (the timeout
# message, no skeleton process left, the temporary directory gone; each rank's
# position), then interrupted with SIGINT, and mpicc is stopped by its own
# watchdog.
set -u
FL=$1
HEAT=$2
P=${PERFSKEL:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
MPIRUN="mpirun.$FL"
[ "$FL" = openmpi ] && MPIRUN="$MPIRUN --allow-run-as-root --oversubscribe"
mkdir "$T/tmp"
# predict's temporary directories go here, so that what is left of them and
# of their skeletons (pgrep -f on the path) is this test's alone
export TMPDIR="$T/tmp"

. "$(dirname "$0")/lib.sh"

# left PATTERN NAME: no process whose command line holds PATTERN (killed
# processes may take a moment to be gone)
left() {
    for i in 1 2 3 4 5 6 7 8 9 10; do
        pgrep -f "$1" >/dev/null || { ok "$2: no process left"; return; }
        sleep 0.2
    done
    bad "$2: processes left:"; pgrep -af "$1"
    pgrep -f "$1" | xargs -r kill -KILL # this test's own: $1 holds its mktemp path
}

# tmp_empty NAME: predict removed its temporary directory
tmp_empty() {
    [ -z "$(ls -A "$T/tmp")" ] && ok "$1: temporary directory removed" ||
        { bad "$1: left in TMPDIR: $(ls -A "$T/tmp")"; rm -rf "$T/tmp"/*; }
}

# heat long enough (about 3 s) that a skeleton with K = 1 cannot finish in
# 1.5 s (time for its ranks to pass MPI_Init and set up their report on a
# loaded machine): its speed depends on what else the machine runs, so
# more steps until the recorded run takes 3 s (as many more as the last
# run says are needed, with a margin)
steps=2000
while :; do
    timeout 120 "$P" record -o "$T/heat" -- $MPIRUN -np 2 "$HEAT" 512 $steps >/dev/null 2>"$T/err" ||
        { bad "recording heat failed"; cat "$T/err"; exit 1; }
    wall=$("$P" stats "$T/heat" --json | sed -n 's/.*"wall_seconds": \([0-9.e+-]*\).*/\1/p' | head -n 1)
    awk -v w="${wall:-0}" 'BEGIN { exit !(w >= 3) }' && break
    [ $steps -ge 64000 ] && { bad "heat with $steps steps took only ${wall} s"; break; }
    steps=$(awk -v s=$steps -v w="${wall:-0}" 'BEGIN { f = w > 0 ? 3.5 / w : 2; printf "%d", s * (f < 1.25 ? 1.25 : f > 16 ? 16 : f) }')
done
echo "heat: $steps steps recorded in ${wall} s"

# usage
expect 0 "" "--help" -- "$P" predict --help
for o in -K --repeat --json --actual --keep --mpi --timeout --build-timeout --quiet --help; do
    grep -q -- "^  .*$o" "$T/out" || bad "--help does not document $o"
done
expect 2 "predict: --timeout takes seconds (0 for no limit), not 'soon'" "--timeout=soon" -- \
    "$P" predict "$T/heat" -K 1 --timeout=soon -- $MPIRUN -np 2
expect 2 "predict: --build-timeout takes seconds" "--build-timeout -1" -- \
    "$P" predict "$T/heat" -K 1 --build-timeout -1 -- $MPIRUN -np 2

# a normal prediction: each step on stderr, the result alone on stdout
# (without -K: K = 10, as its progress line says)
timeout 300 "$P" predict "$T/heat" --repeat 1 -- $MPIRUN -np 2 >"$T/out" 2>"$T/err"
st=$?
miss=""
for pat in "^predict: merging the trace in " "^predict: [0-9]* events of 2 ranks merged into [0-9]* and folded in" \
    "^predict: generated .*/skeleton.c ([0-9]* lines) in .* s; the recorded run took" \
    "^predict: building with mpicc.$FL \.\.\.$" "^predict: built in [0-9.]* s$" \
    "^predict: running 1 of 1 with mpirun.$FL, K = 10, limit [0-9.]* s \.\.\.$" "^predict: run 1 of 1 took [0-9.]* s$"; do
    grep -q -- "$pat" "$T/err" || miss="$miss '$pat'"
done
if [ $st -eq 0 ] && [ -z "$miss" ] && grep -q "predicted run time" "$T/out" && ! grep -q "^predict:" "$T/out"; then
    ok "predict: progress on stderr, the prediction on stdout"
else
    bad "predict: exit $st, stderr lacks$miss"; cat "$T/err"
fi
tmp_empty "predict"
timeout 300 "$P" predict "$T/heat" -K 10 --repeat 3 -q --json --actual 1e-3 -- $MPIRUN -np 2 >"$T/out" 2>"$T/err"
st=$?
if [ $st -eq 0 ] && ! grep -q "^predict:" "$T/err" && [ "$(head -c 1 "$T/out")" = "{" ] &&
    grep -q '"predicted_seconds"' "$T/out"; then
    ok "predict -q --json: no progress, JSON on stdout"
else
    bad "predict -q --json: exit $st"; cat "$T/err" "$T/out"
fi
# the range of the 3 runs holds the median; an actual time far below it is outside
num() { sed -n "s/.*\"$1\": \([-0-9.e+]*\).*/\1/p" "$T/out" | head -1; }
if awk -v lo="$(num low_seconds)" -v med="$(num predicted_seconds)" -v hi="$(num high_seconds)" \
    'BEGIN { exit !(lo > 0 && lo <= med && med <= hi) }' &&
    grep -q '"runs": 3' "$T/out" && grep -q '"coverage": 0.5' "$T/out" && grep -q '"actual_inside": false' "$T/out"; then
    ok "predict --repeat 3 --json: the range of the runs holds the median"
else
    bad "predict --repeat 3 --json: no range around the median"; cat "$T/out"
fi

# the watchdog: a skeleton that cannot finish in time (K = 1 runs all of
# heat's ~3 s) is stopped, and each rank says where it was; its build kept
# to see that the skeleton has the position report
timeout 120 "$P" predict "$T/heat" -K 1 --repeat 1 --timeout 1.5 --keep "$T/kept" -- $MPIRUN -np 2 \
    >"$T/out" 2>"$T/err"
st=$?
if [ $st -eq 1 ] &&
    grep -q "^perfskel: predict: the skeleton did not finish within 1.5 s (limit; --timeout to change it)$" "$T/err"; then
    ok "--timeout 1.5: exit 1 and the timeout message"
else
    bad "--timeout 1.5: exit $st"; cat "$T/err"
fi
left "$T/kept/skeleton" "--timeout 1.5"
grep -q "perfskel-skeleton: position" "$T/kept/skeleton.c" 2>/dev/null && ok "--keep: the skeleton reports positions" ||
    bad "--keep: no position report in $T/kept/skeleton.c"
for r in 0 1; do
    grep -q "^  rank $r: \(in loop [0-9]* iteration [0-9]*\|outside loops\), at event [0-9]* (MPI_[A-Za-z_]*)$" \
        "$T/err" && ok "--timeout: rank $r said where it was" || { bad "--timeout: no position of rank $r"; cat "$T/err"; }
done

# the same in a temporary directory, --timeout=S spelling
timeout 120 "$P" predict "$T/heat" -K 1 --repeat 1 -q --timeout=0.5 -- $MPIRUN -np 2 >"$T/out" 2>"$T/err"
st=$?
[ $st -eq 1 ] && grep -q "did not finish within 0.5 s" "$T/err" && ok "--timeout=0.5: stopped" ||
    { bad "--timeout=0.5: exit $st"; cat "$T/err"; }
left "$T/tmp/perfskel-predict" "--timeout=0.5"
tmp_empty "--timeout=0.5"

# Ctrl-C: SIGINT to predict while the skeleton runs stops the launcher's
# group and the ranks, removes the directory, and predict dies of SIGINT
# (env resets SIGINT, which a script's background job would ignore)
env --default-signal=INT "$P" predict "$T/heat" -K 1 --repeat 1 -- $MPIRUN -np 2 >"$T/out" 2>"$T/err" &
pid=$!
for i in $(seq 300); do
    grep -q "^predict: running 1 of 1" "$T/err" && break
    sleep 0.1
done
sleep 0.5
kill -INT $pid
wait $pid
st=$?
[ $st -eq 130 ] && grep -q "^perfskel: predict: interrupted (SIGINT) during run 1 of 1" "$T/err" &&
    ok "SIGINT: predict dies of it, saying so" || { bad "SIGINT: exit $st"; cat "$T/err"; }
left "$T/tmp/perfskel-predict" "SIGINT"
tmp_empty "SIGINT"

# mpicc has its own watchdog
timeout 120 "$P" predict "$T/heat" -K 1 --repeat 1 -q --build-timeout 0.01 -- $MPIRUN -np 2 >"$T/out" 2>"$T/err"
st=$?
[ $st -eq 1 ] && grep -q "^perfskel: .*skeleton.c: mpicc.$FL did not finish building it within 0.01 s (--build-timeout to change it)$" \
    "$T/err" && ok "--build-timeout: mpicc stopped" || { bad "--build-timeout: exit $st"; cat "$T/err"; }
left "$T/tmp/perfskel-predict" "--build-timeout"
tmp_empty "--build-timeout"

[ "$fails" -eq 0 ] && echo "predict.sh $FL: all passed" || echo "predict.sh $FL: $fails failed"
[ "$fails" -eq 0 ]

#!/usr/bin/env bash
# regress.sh: recordings that once broke a skeleton, replayed from their
# traces (timing made them: a random program records a different shape on
# another run, so the program alone would not find the fault again).
# For each tests/random/regress/NAME/trace (NAME/prog.c or prog.f90 is the program
# that recorded it): perfskel gen at K = 1, 2 and 10, each skeleton built
# and run under both MPIs on the recorded rank count within a time limit,
# and sim and sim --folded accounting for every event. Exit 0 if all pass.
# REGRESS_QUICK=1 (the fast tier): gen at each K, but one skeleton of
# each recording built and run (K = 1, 2, 10 in turn from one recording to
# the next), once, under the MPI that recorded its trace (its directory's
# name says which), not five times under both (a deadlock that needs
# unlucky timing is the full tier's).
set -u
: "${PERFSKEL:?PERFSKEL must name the perfskel CLI}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
here=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/perfskel-regress.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
fails=0 passes=0
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

nrec=0
for d in "$here"/regress/*/; do
    name=$(basename "$d")
    nrec=$((nrec + 1))
    tr=$d/trace
    np=$(sed -n 's/^ *"ranks": *\([0-9]*\).*/\1/p' "$tr/job.json")
    [ -n "$np" ] || { bad "$name: no rank count in $tr/job.json"; continue; }
    if ! "$PERFSKEL" stats "$tr" --no-fold --json >"$T/stats.json" 2>"$T/stats.err"; then
        bad "$name: stats failed: $(tail -n 1 "$T/stats.err")"
        continue
    fi
    events=$(sed -n 's/^ *"events": *\([0-9]*\).*/\1/p' "$T/stats.json" | head -n 1)
    [ -n "$events" ] || { bad "$name: stats --json gave no event count"; continue; }
    for how in "" --folded; do
        if ! timeout 120 "$PERFSKEL" sim "$tr" $how --json -q >"$T/sim.json" 2>"$T/sim.err"; then
            bad "$name: sim $how failed: $(tail -n 1 "$T/sim.err")"
        elif ! grep -q "\"events\": *$events\b" "$T/sim.json"; then
            bad "$name: sim $how did not account for all $events events"
        fi
    done
    for K in 1 2 10; do
        if ! "$PERFSKEL" gen "$tr" -K "$K" --min-sample 0 -o "$T/s$K.c" >/dev/null 2>"$T/gen.err"; then
            bad "$name: gen -K $K failed: $(tail -n 1 "$T/gen.err")"
            continue
        fi
        flavours="openmpi mpich" runs="1 2 3 4 5"
        if [ "${REGRESS_QUICK:-0}" = 1 ]; then
            # this recording's K in the turn 1, 2, 10
            [ "$K" = "$(echo 1 2 10 | cut -d' ' -f$((nrec % 3 + 1)))" ] || continue
            case $name in *openmpi*) flavours=openmpi ;; *) flavours=mpich ;; esac
            runs=1
        fi
        for flavour in $flavours; do
            case $flavour in
            openmpi) run="mpirun.openmpi --allow-run-as-root --oversubscribe -np $np" ;;
            *) run="mpirun.mpich -np $np" ;;
            esac
            if ! "mpicc.$flavour" -O2 -o "$T/s" "$T/s$K.c" >"$T/cc" 2>&1; then
                bad "$name: the K = $K skeleton does not build with $flavour: $(grep -m1 error "$T/cc")"
                continue
            fi
            # 5 runs: a deadlock may need the unlucky timing
            for i in $runs; do
                timeout -k 5 60 $run "$T/s" </dev/null >"$T/out" 2>"$T/err"
                rc=$?
                if [ $rc -ne 0 ] || ! grep -q '^perfskel-skeleton: predicted_seconds=' "$T/out"; then
                    [ $rc -eq 124 ] && why="did not finish in 60 s" || why="exited with $rc: $(grep -m1 -i error "$T/err")"
                    bad "$name: the K = $K skeleton under $flavour (run $i) $why"
                    break
                fi
            done
            [ $rc -eq 0 ] && passes=$((passes + 1))
        done
    done
done
echo "regress: $passes skeleton runs passed, $fails failure(s)"
[ $fails -eq 0 ]

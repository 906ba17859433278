#!/bin/sh
# skeleton_size.sh [STEPS] [FLAVOUR] [REPEATS] [SHIFT]: the size of a
# skeleton whose calls do not fold. Records bench/irregular.c (STEPS drawn
# steps, default 280000: about a million calls per rank; with REPEATS the
# same steps that many times, a loop whose body does not fold, its tags
# following the loop's index with SHIFT 1) on 2 ranks, then times perfskel gen and
# mpicc on its skeleton and prints lines, bytes and seconds; checks that
# the K = 1 skeleton makes the recorded calls (trace_cmp) when the build
# has it. Run from a build directory's parent with PERFSKEL set, e.g.
#   PERFSKEL=build/perfskel sh bench/skeleton_size.sh
set -eu
: "${PERFSKEL:?PERFSKEL must name the perfskel CLI}"
steps=${1:-280000} flavour=${2:-mpich} reps=${3:-1} shift=${4:-0}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
case $flavour in
openmpi) run="mpirun.openmpi --allow-run-as-root -np 2" ;;
*) run="mpirun.mpich -np 2" ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/perfskel-size.XXXXXX")
trap 'rm -rf "$T"' EXIT
now() { date +%s.%N; }
"mpicc.$flavour" -O2 -w -o "$T/irr" "$here/irregular.c"
"$PERFSKEL" record -o "$T/tr" -- $run "$T/irr" "$steps" "$reps" "$shift" >/dev/null
events=$("$PERFSKEL" stats "$T/tr" --no-fold --json | sed -n 's/^ *"events": *\([0-9]*\).*/\1/p' | head -n 1)
t0=$(now)
"$PERFSKEL" gen "$T/tr" -K 10 -o "$T/s.c" 2>/dev/null
t1=$(now)
"mpicc.$flavour" -O2 -w -o "$T/s" "$T/s.c"
t2=$(now)
set -- $(wc -lc <"$T/s.c")
echo "skeleton_size: $events events on 2 ranks ($steps steps x $reps, shift $shift), $flavour"
echo "  gen: $(echo "$t1 - $t0" | bc) s; $1 lines, $2 bytes; $(grep -c 'replayx\?_(R' "$T/s.c") runs replayed from data"
echo "  mpicc -O2: $(echo "$t2 - $t1" | bc) s"
t3=$(now)
$run "$T/s" | tail -n 1
echo "  skeleton run (K = 10): $(echo "$(now) - $t3" | bc) s"
cmp=$(dirname "$PERFSKEL")/trace_cmp
if [ -x "$cmp" ]; then
    "$PERFSKEL" gen "$T/tr" -K 1 -o "$T/s1.c" 2>/dev/null
    "mpicc.$flavour" -O2 -w -o "$T/s1" "$T/s1.c"
    "$PERFSKEL" record -o "$T/s1tr" -- $run "$T/s1" >/dev/null 2>&1
    if "$cmp" "$T/tr" "$T/s1tr" >/dev/null 2>&1; then
        echo "  trace_cmp: the K = 1 skeleton makes the recorded calls"
    else
        echo "  trace_cmp: the K = 1 skeleton's calls DIFFER"
    fi
fi

#!/bin/sh
# edgestencil.sh FLAVOUR PROGRAM: ranks that differ a little are merged
# (docs/merged-format.md, "How ranks are merged"). Records
# tests/cli/edgestencil.c (boundary ranks skip the calls to missing
# neighbours) with 4 ranks on a line and on a 2 x 2 grid, checks the recorded
# counts against the program's, then, with Algorithm 1's reordering and
# without: the merge has exactly one event per call site of the program (well
# below the events of all ranks), every rank is rebuilt exactly from it, each
# Allreduce is one merged event with every rank, and fold finds the main loop
# with the program's iteration count. Needs PERFSKEL and CHECK_COUNTS (paths).
set -u
P=${PERFSKEL:?}
C=${CHECK_COUNTS:?}
flavour=$1
prog=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
case $flavour in
openmpi) launch="mpirun.openmpi --allow-run-as-root --oversubscribe -np 4" ;;
mpich) launch="mpirun.mpich -np 4" ;;
*) echo "usage: $0 openmpi|mpich PROGRAM" >&2; exit 2 ;;
esac
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

field() { awk -F: -v k="\"$1\"" '$1 ~ k { gsub(/[^0-9]/, "", $2); print $2; exit }' "$2"; }

for layout in 1d 2d; do
    arg=""
    [ $layout = 2d ] && arg=2d
    # shellcheck disable=SC2086
    if ! timeout -k 10 200 "$P" record -o "$T/$layout" -- $launch "$prog" $arg </dev/null >"$T/out" 2>"$T/err"; then
        bad "$layout: recording failed"; cat "$T/err"; continue
    fi
    "$P" stats "$T/$layout" --json >"$T/stats.json" && "$C" "$T/out" "$T/stats.json" >"$T/cc" 2>&1 &&
        ok "$layout: recorded call counts are the program's" || { bad "$layout: call counts differ"; cat "$T/cc"; }
    sites=$(awk '$1 == "sites" { print $2 }' "$T/out")
    iters=$(awk '$1 == "mainloop" { print $2 }' "$T/out")
    "$P" dump "$T/$layout" >"$T/dump.trace"
    for mode in reorder no-reorder; do
        opt=""
        [ $mode = no-reorder ] && opt=--no-reorder
        name="$layout, $mode"
        # shellcheck disable=SC2086
        "$P" merge "$T/$layout" $opt -o "$T/m.pskm" --json >"$T/m.json" 2>"$T/err" || { bad "$name: merge failed"; cat "$T/err"; continue; }
        events=$(field events "$T/m.json")
        merged=$(field merged_events "$T/m.json")
        [ "$merged" = "$sites" ] && [ $((2 * merged)) -lt "$events" ] &&
            ok "$name: $events events merged into $merged, one per call site" ||
            bad "$name: $events events merged into $merged, the program has $sites call sites"
        "$P" dump "$T/m.pskm" >"$T/dump.merged" && cmp -s "$T/dump.trace" "$T/dump.merged" &&
            ok "$name: every rank rebuilt exactly" || bad "$name: the merged trace does not give back the recorded events"
        "$P" dump "$T/m.pskm" --merged >"$T/merged.txt"
        all=$(grep -c ' MPI_Allreduce .*ranks=all' "$T/merged.txt")
        any=$(grep -c ' MPI_Allreduce ' "$T/merged.txt")
        [ "$all" = "$iters" ] && [ "$any" = "$iters" ] && ok "$name: $all Allreduces, each one merged event of every rank" ||
            bad "$name: $any merged Allreduce events, $all of every rank, for $iters calls"
        "$P" fold "$T/m.pskm" --json >"$T/fold.json" 2>"$T/err" || { bad "$name: fold failed"; cat "$T/err"; }
        got=$(awk '/"main_loop"/ { m = 1 } m && /"count"/ { gsub(/[^0-9]/, ""); print; exit }' "$T/fold.json")
        [ "$got" = "$iters" ] && ok "$name: fold finds the main loop (x$got)" ||
            bad "$name: fold's main loop x'$got', the program's x$iters"
    done
done
[ $fails -eq 0 ] && echo "all edge stencil tests passed" || echo "$fails edge stencil test(s) failed"
[ $fails -eq 0 ]

#!/bin/sh
# trace_size.sh [BUILD_DIR] [TRACE_DIR...]: bytes per call of each stage's
# files (docs/benchmarks.md, Trace size): the rank files as recorded, the
# merged file (`perfskel merge`, every call's times) and the merged file
# with summarised times (`--times summary`), for the recorded traces kept
# in the repository (by default: the bench programs and examples/heat.c at
# 2 ranks in tests/golden/traces, and the random programs of
# tests/random/regress), or the trace directories given. With each, how
# far its calls fold: the merged sequence's length and its folded length
# (`perfskel fold`). The kept recordings are short (12 to 13,096 calls;
# headers weigh): RECORD=1 also records each program of bench/programs
# with its default arguments, at 2 ranks under Open MPI (named
# PROGRAM.rec), as a user would (needs mpicc.openmpi and mpif90.openmpi).
set -u
B=$(cd "${1:-build}" && pwd)
[ $# -gt 0 ] && shift
here=$(cd "$(dirname "$0")/.." && pwd)
P=$B/perfskel
W=$(mktemp -d "${TMPDIR:-/tmp}/trace_size.XXXXXX")
trap 'rm -rf "$W"' EXIT
if [ $# -eq 0 ]; then
    set -- "$here"/tests/golden/traces/*
    for d in "$here"/tests/random/regress/*/trace; do
        set -- "$@" "$d"
    done
    if [ "${RECORD:-0}" = 1 ]; then
        sh "$here/bench/programs/build.sh" "$W/bin" >/dev/null 2>&1 || { echo "trace_size: build.sh failed" >&2; exit 1; }
        for exe in "$W"/bin/openmpi/*; do
            d=$W/$(basename "$exe").rec
            OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "$P" record -o "$d" -- \
                mpirun.openmpi --allow-run-as-root --oversubscribe -np 2 "$exe" </dev/null >/dev/null 2>&1 &&
                set -- "$@" "$d" || echo "(trace_size: recording $(basename "$exe") failed)" >&2
        done
    fi
fi
num() { sed -n "s/^ *\"$1\": *\([0-9]*\).*/\1/p" "$2" | head -n 1; }
bytes() { wc -c <"$1" | tr -d ' '; }
perc() { awk -v b="$1" -v n="$2" 'BEGIN { printf "%.1f", (n > 0 ? b / n : 0) }'; }

echo "| trace | ranks | calls | merged length, folded | rank files B/call | merged B/call | summarised B/call |"
echo "|---|---|---|---|---|---|---|"
for d in "$@"; do
    name=$(basename "$d")
    [ "$name" = trace ] && name=$(basename "$(dirname "$d")")
    "$P" stats "$d" --no-fold --json >"$W/s.json" 2>/dev/null || { echo "($name: stats failed)" >&2; continue; }
    calls=$(num events "$W/s.json") ranks=$(num ranks "$W/s.json")
    rb=0
    for f in "$d"/rank-*.psk; do
        rb=$((rb + $(bytes "$f")))
    done
    "$P" merge "$d" -o "$W/m.pskm" -q >/dev/null 2>&1 || { echo "($name: merge failed)" >&2; continue; }
    "$P" merge "$d" -o "$W/s.pskm" --times summary -q >/dev/null 2>&1 || { echo "($name: merge --times summary failed)" >&2; continue; }
    "$P" fold "$W/m.pskm" --json >"$W/f.json" 2>/dev/null || { echo "($name: fold failed)" >&2; continue; }
    echo "| $name | $ranks | $calls | $(num length "$W/f.json"), $(num folded_length "$W/f.json") |" \
        "$(perc "$rb" "$calls") | $(perc "$(bytes "$W/m.pskm")" "$calls") | $(perc "$(bytes "$W/s.pskm")" "$calls") |"
done

#!/bin/sh
# More ranks than open files: under `ulimit -n 64`, gen_trace
# (the trace writer) writes a trace of a few hundred ranks, the streaming
# merge merges it and the whole-trace sim replays it, each giving the same
# bytes as without the limit (their rank readers share a pool that caps
# the files open; a reader past it is released and reopened where it
# was). Random shapes and seeds; ranks long enough to span several
# blocks, so readers are reopened inside blocks.
# Needs PERFSKEL and GEN_TRACE (paths).
set -u
P=${PERFSKEL:?}
G=${GEN_TRACE:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"

seed=${MANY_RANKS_SEED:-$(date +%s)}
echo "seed $seed (MANY_RANKS_SEED=$seed to repeat)"
awk -v s="$seed" 'BEGIN { srand(s); for (i = 0; i < 2; i++)
    printf "%d %d %d %d\n", 150 + int(rand() * 250), 1500 + int(rand() * 8000), 3 + int(rand() * 30), int(rand() * 1e6) }' >"$T/shapes"
while read -r ranks events planes gseed; do
    name="$ranks ranks, $events events, $planes planes, seed $gseed"
    rm -rf "$T/a" "$T/b"
    "$G" "$T/a" --ranks "$ranks" --events "$events" --planes "$planes" --seed "$gseed" >/dev/null ||
        { bad "$name: gen_trace failed"; continue; }
    if ! (ulimit -n 64 && "$G" "$T/b" --ranks "$ranks" --events "$events" --planes "$planes" --seed "$gseed") \
        >/dev/null 2>"$T/err"; then
        bad "$name: gen_trace under ulimit -n 64 failed: $(head -1 "$T/err")"
        continue
    fi
    if diff -r "$T/a" "$T/b" >/dev/null; then ok "$name: gen_trace, same trace under ulimit -n 64"
    else bad "$name: gen_trace wrote another trace under ulimit -n 64"; fi
    for o in "" --no-reorder; do
        "$P" merge -q $o "$T/a" -o "$T/a.pskm" 2>"$T/err" || { bad "$name: merge $o failed: $(head -1 "$T/err")"; continue; }
        if ! (ulimit -n 64 && "$P" merge -q $o "$T/a" -o "$T/b.pskm") 2>"$T/err"; then
            bad "$name: merge $o under ulimit -n 64 failed: $(head -1 "$T/err")"
        elif cmp -s "$T/a.pskm" "$T/b.pskm"; then ok "$name: merge $o, same bytes under ulimit -n 64"
        else bad "$name: merge $o wrote another file under ulimit -n 64"; fi
    done
    "$P" sim "$T/a" --json -q >"$T/a.json" 2>"$T/err" || { bad "$name: sim failed: $(head -1 "$T/err")"; continue; }
    if ! (ulimit -n 64 && "$P" sim "$T/a" --json -q) >"$T/b.json" 2>"$T/err"; then
        bad "$name: sim under ulimit -n 64 failed: $(head -1 "$T/err")"
    elif cmp -s "$T/a.json" "$T/b.json"; then ok "$name: sim (whole trace), same output under ulimit -n 64"
    else bad "$name: sim predicts otherwise under ulimit -n 64"; fi
done <"$T/shapes"
[ "$fails" -eq 0 ]

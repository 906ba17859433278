#!/bin/sh
# CLI tests of the streaming merge (`perfskel merge`, psk_merge_file): its
# file is byte for byte the in-memory merge's (`merge --in-memory`, psk_merge
# then psk_merged_write) on random LU-shaped traces (bench/gen_trace, random
# shapes and seeds, with and without MPI_PROC_NULL) and on the recorded
# traces of tests/random/regress, with each merge option; it holds less
# than the in-memory merge on a trace of many ranks (peak memory, GNU time,
# as a ratio within this run); and on a bad rank file it fails with one
# line naming the file, leaving neither the output nor a temporary file.
# Needs PERFSKEL and GEN_TRACE (paths); REGRESS: tests/random/regress.
set -u
P=${PERFSKEL:?}
G=${GEN_TRACE:?}
R=${REGRESS:-}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"

same() { # same DIR OPTIONS...: streaming and in-memory merge, same bytes
    d=$1
    shift
    if ! "$P" merge -q "$@" "$d" -o "$T/s.pskm" 2>"$T/err"; then
        bad "$d $*: streaming merge failed: $(head -1 "$T/err")"
    elif ! "$P" merge -q --in-memory "$@" "$d" -o "$T/m.pskm" 2>"$T/err"; then
        bad "$d $*: in-memory merge failed: $(head -1 "$T/err")"
    elif ! cmp -s "$T/s.pskm" "$T/m.pskm"; then
        bad "$d $*: the streaming merge's file differs from the in-memory merge's"
    else
        return 0
    fi
    return 1
}

# random shapes: ranks, events, planes and seed drawn from this run's seed
seed=${MERGE_STREAM_SEED:-$(date +%s)}
echo "seed $seed (MERGE_STREAM_SEED=$seed to repeat)"
awk -v s="$seed" 'BEGIN { srand(s); for (i = 0; i < 10; i++) {
    p = 1 + int(rand() * 40); if (i == 9) p = 97
    printf "%d %d %d %d %d\n", p, 200 + int(rand() * 3000), 3 + int(rand() * 12), int(rand() * 1e6), i % 3 == 2 }
}' >"$T/shapes"
n=0
while read -r ranks events planes gseed pnull; do
    n=$((n + 1))
    opt=""
    [ "$pnull" = 1 ] && opt=--proc-null
    rm -rf "$T/g"
    "$G" "$T/g" --ranks "$ranks" --events "$events" --planes "$planes" --seed "$gseed" $opt >/dev/null ||
        { bad "gen_trace --ranks $ranks --events $events failed"; continue; }
    fine=1
    for o in "" --no-reorder "--window 2" --keep-polls; do
        same "$T/g" $o || fine=0
    done
    [ $fine = 1 ] && ok "random trace $n ($ranks ranks, $events events, $planes planes${opt:+, $opt}): same bytes, 4 option sets"
done <"$T/shapes"

# recorded traces: polls, sub-communicators, wildcards, both MPI flavours
if [ -n "$R" ] && [ -d "$R" ]; then
    for d in "$R"/*/trace; do
        fine=1
        for o in "" --keep-polls --no-reorder; do
            same "$d" $o || fine=0
        done
        [ $fine = 1 ] && ok "$(basename "$(dirname "$d")"): same bytes, 3 option sets"
    done
fi

# bounded: 192 ranks hold far less than the in-memory merge (ratio, one run;
# not under a sanitizer, whose own memory swamps the difference)
"$G" "$T/big" --ranks 192 --events 12000 >/dev/null || bad "gen_trace failed"
if ldd "$P" 2>/dev/null | grep -q -e libasan -e libubsan; then
    echo "skip 192 ranks: peak memory not compared under a sanitizer"
elif /usr/bin/time -f %M -o "$T/ms" "$P" merge -q "$T/big" -o "$T/s.pskm" &&
    /usr/bin/time -f %M -o "$T/mm" "$P" merge -q --in-memory "$T/big" -o "$T/m.pskm"; then
    s=$(tail -1 "$T/ms") m=$(tail -1 "$T/mm")
    if cmp -s "$T/s.pskm" "$T/m.pskm" && [ $((s * 2)) -lt "$m" ]; then
        ok "192 ranks: streaming peak $((s / 1024)) MB, in memory $((m / 1024)) MB, same bytes"
    else
        bad "192 ranks: streaming peak $((s / 1024)) MB not under half the in-memory $((m / 1024)) MB, or bytes differ"
    fi
else
    bad "merging 192 ranks failed"
fi
ls "$T/big" | grep -q tmp && bad "a temporary file was left beside the output"

# progress: plain lines on a pipe (from the start: PSK_PROGRESS_AFTER=0),
# nothing with -q
PSK_PROGRESS_AFTER=0 "$P" merge "$T/big" -o "$T/s.pskm" >/dev/null 2>"$T/progress"
if grep -q "writing the merged trace: done" "$T/progress" && ! grep -q "$(printf '\r')" "$T/progress"; then
    ok "progress: plain lines when stderr is not a terminal"
else
    bad "progress on a pipe: $(head -c 200 "$T/progress")"
fi
PSK_PROGRESS_AFTER=0 "$P" merge -q "$T/big" -o "$T/s.pskm" >/dev/null 2>"$T/progress"
[ -s "$T/progress" ] && bad "merge -q printed: $(head -c 200 "$T/progress")" || ok "merge -q: quiet"

# a truncated rank: one line naming it, no output, no temporary file
rm -rf "$T/g" && "$G" "$T/g" --ranks 4 --events 3000 >/dev/null
f="$T/g/rank-000002.psk"
head -c 5000 "$f" >"$T/cut" && mv "$T/cut" "$f"
expect 1 "rank-000002.psk" "merge with a truncated rank" -- "$P" merge -q "$T/g" -o "$T/g/out.pskm"
[ -e "$T/g/out.pskm" ] && bad "a failed merge left its output"
ls "$T/g" | grep -q tmp && bad "a failed merge left a temporary file"
# an output that cannot be written: named
expect 1 "$T/none/out.pskm" "merge to a missing directory" -- "$P" merge -q "$T/big" -o "$T/none/out.pskm"

[ $fails -eq 0 ] && echo "all streaming merge tests passed" || echo "$fails streaming merge test(s) failed"
[ $fails -eq 0 ]

#!/bin/sh
# CLI tests of perfskel merge and fold on generated traces (bench/gen_trace):
# the round trip (every rank rebuilt from the merged trace), MPI_PROC_NULL
# boundaries merging into one event, the LU-shaped main loop found, and bad
# input: a missing rank, ranks of different jobs, a truncated rank file, a
# damaged merged file, a symbols file with a non-integer. Needs PERFSKEL and
# GEN_TRACE (paths).
set -u
P=${PERFSKEL:?}
G=${GEN_TRACE:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"

roundtrip() { # roundtrip DIR NRANKS
    for r in $(seq 0 $(($2 - 1))); do
        "$P" dump "$1" --rank "$r" >"$T/a" && "$P" dump "$1/merged.pskm" --rank "$r" >"$T/b" &&
            cmp -s "$T/a" "$T/b" || { bad "$1: rank $r not rebuilt exactly"; return; }
    done
    ok "$1: all $2 ranks rebuilt exactly from the merged trace"
}

# LU-shaped, boundary ranks skip calls (event counts differ between ranks)
"$G" "$T/lu" --ranks 6 --events 6000 --planes 12 >"$T/gen.out" || bad "gen_trace failed"
gen_iters=$(sed -n 's/.*, \([0-9]*\) iterations.*/\1/p' "$T/gen.out")
expect 0 "" "merge LU-shaped trace" -- "$P" merge "$T/lu"
roundtrip "$T/lu" 6
"$P" fold "$T/lu/merged.pskm" --json >"$T/fold.json" 2>"$T/err" || { bad "fold failed"; cat "$T/err"; }
iters=$(awk '/"main_loop"/ { m = 1 } m && /"count"/ { gsub(/[^0-9]/, ""); print; exit }' "$T/fold.json")
# an Allreduce every 5 iterations: the trace repeats every 5 iterations
[ -n "$iters" ] && [ "$iters" -eq $((gen_iters / 5)) ] && ok "LU-shaped main loop found (x$iters for $gen_iters iterations)" ||
    bad "LU-shaped main loop: x'$iters' for $gen_iters iterations"

# simulated from its folded trace (merged without reordering): every event
# accounted for; a merged file that Algorithm 1 reordered is refused
"$P" sim "$T/lu" --folded --json -q >"$T/simf.json" 2>"$T/err" || { bad "sim --folded failed"; cat "$T/err"; }
n=$(awk -F: '/"events"/ { gsub(/[ ,]/, "", $2); print $2; exit }' "$T/simf.json")
total=$("$P" sim "$T/lu" --json -q | awk -F: '/"events"/ { gsub(/[ ,]/, "", $2); print $2; exit }')
[ -n "$n" ] && [ "$n" = "$total" ] && ok "sim --folded: LU-shaped trace, $n events" || bad "sim --folded: $n events of $total"
expect 1 "merged.pskm: the merged trace was reordered" "sim --folded: a merged trace that was reordered" -- \
    "$P" sim "$T/lu/merged.pskm" --folded

# the same with MPI_PROC_NULL at the boundaries: one merged event per call
"$G" "$T/lun" --ranks 6 --events 6000 --planes 12 --proc-null >"$T/gen.out" || bad "gen_trace --proc-null failed"
"$P" merge "$T/lun" --json >"$T/m.json" || bad "merge --proc-null failed"
per=$(sed -n 's/.*busiest rank \([0-9]*\).*/\1/p' "$T/gen.out")
merged=$(awk -F: '/"merged_events"/ { gsub(/[^0-9]/, "", $2); print $2 }' "$T/m.json")
[ "$per" = "$merged" ] && ok "PROC_NULL boundaries: $merged merged events, as many as one rank's" ||
    bad "PROC_NULL boundaries: $merged merged events for $per per rank"
roundtrip "$T/lun" 6

# bad input
cp -r "$T/lu" "$T/missing" && rm "$T/missing/rank-000003.psk"
expect 1 "rank-000003.psk: missing" "merge: a rank missing" -- "$P" merge "$T/missing"
expect 1 "rank-000003.psk: missing" "fold: a rank missing" -- "$P" fold "$T/missing"
"$G" "$T/other" --ranks 6 --events 6000 --planes 12 --seed 2 >/dev/null
cp -r "$T/lu" "$T/mixed" && cp "$T/other/rank-000002.psk" "$T/mixed/"
expect 1 "rank-000002.psk: belongs to job" "merge: ranks of different jobs" -- "$P" merge "$T/mixed"
cp -r "$T/lu" "$T/cut" && head -c 3000 "$T/lu/rank-000001.psk" >"$T/cut/rank-000001.psk"
expect 1 "rank-000001.psk: .*did not reach MPI_Finalize" "merge: a truncated rank" -- "$P" merge "$T/cut"
expect 1 "rank-000001.psk" "fold: a truncated rank" -- "$P" fold "$T/cut"
head -c 2000 "$T/lu/merged.pskm" >"$T/cut.pskm"
expect 1 "cut.pskm: truncated" "fold: a truncated merged trace" -- "$P" fold "$T/cut.pskm"
cp "$T/lu/merged.pskm" "$T/flip.pskm"
flip "$T/flip.pskm" 600
expect 1 "flip.pskm: corrupt" "fold: a corrupted merged trace" -- "$P" fold "$T/flip.pskm"
printf '1 2 3\n4 five 6\n' >"$T/syms"
expect 1 "syms: line 2: 'five' is not a symbol" "fold: a symbols file with a word" -- "$P" fold --symbols "$T/syms"
printf '1 2 -3\n' >"$T/neg"
expect 1 "neg: line 1: '-3' is not a symbol" "fold: a negative symbol" -- "$P" fold --symbols "$T/neg"
expect 1 "nowhere: No such file" "fold: no such input" -- "$P" fold "$T/nowhere"
printf '1 12\000x 3\n' >"$T/nul"
expect 1 "nul: line 1: '12.x00x' is not a symbol" "fold: a NUL byte inside a symbol" -- "$P" fold --symbols "$T/nul"
printf '7 +5\n' >"$T/plus"
expect 1 "plus: line 1: '+5' is not a symbol" "fold: a signed symbol" -- "$P" fold --symbols "$T/plus"
# a control byte in what an error quotes (here the path) is escaped: one line
expect 1 'no.nwhere.x1b.31m: No such file' "fold: a newline and an escape in a path" -- \
    "$P" fold "$T/no
where$(printf '\033')[31m"
expect 2 "" "fold: bad --algo" -- "$P" fold --symbols "$T/syms" --algo fastest
expect 2 "" "merge: bad --window" -- "$P" merge "$T/lu" --window 0

# symbols: every algorithm, and the JSON the issue asks for
printf '1 2 3 1 2 3 1 2 3 1\n' >"$T/abc"
for a in runs paper topdown bottomup; do
    "$P" fold --symbols "$T/abc" --algo $a --json >"$T/abc.json" 2>"$T/err" || bad "fold --algo $a failed"
    grep -q '"folded_length": 4' "$T/abc.json" && grep -q '"length": 10' "$T/abc.json" &&
        grep -q '"seconds"' "$T/abc.json" && ok "fold --algo $a: ABCABCABCA to length 4" ||
        bad "fold --algo $a: $(tr -d '\n' <"$T/abc.json" | head -c 200)"
done

[ $fails -eq 0 ] && echo "all merge/fold CLI tests passed" || echo "$fails merge/fold CLI test(s) failed"
[ $fails -eq 0 ]

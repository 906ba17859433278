#!/bin/sh
# bytes_per_call.sh BINDIR PROGRAM...: each bench program (built in BINDIR
# with Open MPI) recorded at its default arguments on 2 ranks; where its
# loops fold completely (folded to at most 32 symbols: the premise, checked),
# the merged file with summarised times (`merge --times summary`) takes at
# most 3 bytes a call; and the merged files expand to exactly the calls of
# the rank files: `dump` of a lossless merge with every poll kept equals
# the trace directory's, every field and both times, and the summary's
# equals it but for the two time columns; and `sim --folded` of the
# summary is within 2 % of the lossless trace's (both merged without
# Algorithm 1's reordering, as sim --folded needs; the recordings' call
# floors on: they come from the calls' durations).
set -u
: "${PERFSKEL:?PERFSKEL must name the perfskel CLI}"
[ $# -ge 2 ] || { echo "usage: PERFSKEL=... $0 BINDIR PROGRAM..." >&2; exit 2; }
B=$1
shift
P=$PERFSKEL
T=$(mktemp -d "${TMPDIR:-/tmp}/perfskel-bpc.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
num() { sed -n "s/^ *\"$1\": *\([0-9]*\).*/\1/p" "$2" | head -n 1; }
pred() { "$P" sim "$1" --folded --json 2>/dev/null | sed -n 's/.*"predicted_seconds": *\([0-9.e+-]*\).*/\1/p'; }

for prog in "$@"; do
    d=$T/$prog
    if ! "$P" record -o "$d" -- mpirun.openmpi --allow-run-as-root --oversubscribe -np 2 "$B/$prog" \
        </dev/null >"$T/out" 2>&1; then
        bad "$prog: recording failed: $(tail -n 2 "$T/out")"
        continue
    fi
    "$P" stats "$d" --no-fold --json >"$T/s.json" 2>"$T/err" || { bad "$prog: stats: $(cat "$T/err")"; continue; }
    calls=$(num events "$T/s.json")
    "$P" merge "$d" -q --times summary -o "$T/sum.pskm" 2>"$T/err" || { bad "$prog: merge: $(cat "$T/err")"; continue; }
    "$P" merge "$d" -q --keep-polls -o "$T/all.pskm" 2>"$T/err" || { bad "$prog: merge: $(cat "$T/err")"; continue; }
    "$P" merge "$d" -q --keep-polls --times summary -o "$T/allsum.pskm" 2>"$T/err" ||
        { bad "$prog: merge: $(cat "$T/err")"; continue; }
    "$P" fold "$T/sum.pskm" --json >"$T/f.json" 2>"$T/err" || { bad "$prog: fold: $(cat "$T/err")"; continue; }
    len=$(num length "$T/f.json") folded=$(num folded_length "$T/f.json")
    size=$(wc -c <"$T/sum.pskm" | tr -d ' ')
    bpc=$(awk -v b="$size" -v n="$calls" 'BEGIN { printf "%.2f", b / n }')
    if [ -z "$folded" ] || [ "$folded" -gt 32 ]; then
        bad "$prog: premise: its $len merged events fold to $folded symbols, not completely"
    elif awk -v x="$bpc" 'BEGIN { exit !(x <= 3.0) }'; then
        ok "$prog: $calls calls ($len merged, folded to $folded): summarised $size bytes, $bpc B a call"
    else
        bad "$prog: $calls calls ($len merged, folded to $folded): summarised $size bytes, $bpc B a call (at most 3)"
    fi
    if "$P" merge "$d" -q --no-reorder -o "$T/nr.pskm" 2>"$T/err" &&
        "$P" merge "$d" -q --no-reorder --times summary -o "$T/nrs.pskm" 2>"$T/err"; then
        a=$(pred "$T/nr.pskm") b=$(pred "$T/nrs.pskm")
        if [ -n "$a" ] && [ -n "$b" ] && awk -v a="$a" -v b="$b" 'BEGIN { exit !(b > 0.98 * a && b < 1.02 * a) }'; then
            ok "$prog: sim --folded of the summary $b s, of the lossless trace $a s"
        else
            bad "$prog: sim --folded of the summary '$b' s, of the lossless trace '$a' s (within 2 %)"
        fi
    else
        bad "$prog: merge --no-reorder: $(cat "$T/err")"
    fi
    for r in 0 1; do
        "$P" dump "$d" --rank $r >"$T/dir" 2>&1
        "$P" dump "$T/all.pskm" --rank $r >"$T/all" 2>&1
        "$P" dump "$T/allsum.pskm" --rank $r >"$T/allsum" 2>&1
        if [ -s "$T/dir" ] && cmp -s "$T/dir" "$T/all"; then
            ok "$prog rank $r: the lossless merged file expands to its $(wc -l <"$T/dir") lines"
        else
            bad "$prog rank $r: the lossless merged file's dump differs from the directory's"
        fi
        # the summary: every field but the two times (columns 3 and 4)
        if cut -d' ' -f1,2,5- "$T/dir" >"$T/a" && cut -d' ' -f1,2,5- "$T/allsum" >"$T/b" && cmp -s "$T/a" "$T/b"; then
            ok "$prog rank $r: the summarised merged file expands to the same calls"
        else
            bad "$prog rank $r: the summarised merged file's calls differ from the directory's"
        fi
    done
done
[ "$fails" -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "every program within 3 bytes a call, its summary within 2 % in sim"

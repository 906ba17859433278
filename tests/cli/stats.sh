#!/bin/sh
# stats.sh FLAVOUR VARIANT_BINARY: perfskel stats lists the calls whose
# arguments change between loop iterations (docs/folding.md, "Loops whose
# arguments change"): on the ring mode of
# tests/cli/variant.c (tag = iteration number, 40 iterations, 2 ranks) the
# text names both the Isend and the Irecv with "tag = 1*i0 + 0" in the
# 40-iteration loop, --json has them under "varying" (field, min 0, max
# 39), --no-fold leaves them out ("varying": null), a loop without varying
# arguments (root mode on 1 rank: nothing varies) says so, and a damaged
# trace is still profiled (exit 1, the one-line error).
set -u
flavour=$1 prog=$2
: "${PERFSKEL:?PERFSKEL must name the perfskel CLI}"
P=$PERFSKEL
. "$(dirname "$0")/lib.sh"
mpirun_of "$flavour"
T=$(mktemp -d "${TMPDIR:-/tmp}/perfskel-stats.XXXXXX")
trap 'rm -rf "$T"' EXIT

timeout 120 "$P" record -o "$T/ring" -- $MPIRUN -np 2 "$prog" ring 40 >"$T/rec.out" 2>&1 ||
    { cat "$T/rec.out"; bad "ring: the recorded run failed"; exit 1; }

"$P" stats "$T/ring" >"$T/text" 2>"$T/err" || { bad "stats failed"; cat "$T/err"; }
for fn in MPI_Isend MPI_Irecv; do
    if grep -q "^  $fn in loop [0-9]* (x40): tag = 1\*i0 + 0" "$T/text"; then
        ok "text: $fn's tag follows the iteration"
    else
        bad "text: no '$fn in loop (x40): tag = 1*i0 + 0'"; sed -n '/arguments change/,$p' "$T/text"
    fi
done

"$P" stats "$T/ring" --json >"$T/json" 2>"$T/err" || { bad "stats --json failed"; cat "$T/err"; }
n=$(awk '/"varying"/ { v = 1 } v && /"field": "tag"/ { n++ } END { print n + 0 }' "$T/json")
if [ "$n" -eq 2 ] && grep -q '"max": 39' "$T/json"; then
    ok "json: two calls with a varying tag, 0 to 39"
else
    bad "json: $n varying tags (expected 2, max 39)"; grep -A12 '"varying"' "$T/json"
fi
"$P" stats "$T/ring" --json --no-fold >"$T/json2" 2>"$T/err"
if grep -q '"varying": null' "$T/json2"; then ok "--no-fold: not computed"; else bad "--no-fold: varying present"; fi

timeout 120 "$P" record -o "$T/root" -- $MPIRUN -np 1 "$prog" root 10 >"$T/rec.out" 2>&1 ||
    { cat "$T/rec.out"; bad "root: the recorded run failed"; }
"$P" stats "$T/root" >"$T/text" 2>"$T/err"
if grep -q "^no call's arguments change between loop iterations" "$T/text"; then
    ok "one rank, nothing varies: said so"
else
    bad "one rank: expected 'no call's arguments change'"; tail -5 "$T/text"
fi

# a damaged trace: profiled up to its last good block, no fold, exit 1
cp -r "$T/ring" "$T/cut"
f=$T/cut/rank-000001.psk
head -c $(($(wc -c <"$f") - 7)) "$f" >"$f.tmp" && mv "$f.tmp" "$f"
expect 1 "rank-000001.psk" "damaged trace: one-line error, exit 1" -- "$P" stats "$T/cut"
grep -q "^MPI_Isend" "$T/out" && ok "damaged trace: still profiled" || bad "damaged trace: no profile"

[ "$fails" -eq 0 ] && echo "all passed" || { echo "$fails failed"; exit 1; }

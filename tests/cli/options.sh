#!/bin/sh
# CLI test of how every command reads its options (programs/options.c,
# psk_cli_normalise and psk_cli_next, by each command's table): `--opt=value` is `--opt value` (the same output, on a
# generated trace and an advisor example), a flag given a value and an
# unknown `--name=value` are refused in one line, and nothing after `--`
# or after record's launcher is touched. The options of sim, fold and
# advise that no other test exercises are checked by their effect (sim
# --depth, fold --tree, -o and --algo, advise --top, --maxdims and
# --static). Every option a command's --help shows is known to it (a
# command missing from perfskel.c's table or an option from its own fails
# here).
# Needs PERFSKEL, GEN_TRACE and SRC (paths).
set -u
P=${PERFSKEL:?}
G=${GEN_TRACE:?}
S=${SRC:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"

# same NAME -- ARGS1 -- ARGS2: perfskel gives the same stdout and status
same() {
    name=$1; shift 2
    a="" ; while [ "$1" != "--" ]; do a="$a $1"; shift; done; shift
    # shellcheck disable=SC2086
    "$P" $a >"$T/o1" 2>"$T/e1"; s1=$?
    # shellcheck disable=SC2086
    "$P" "$@" >"$T/o2" 2>"$T/e2"; s2=$?
    if [ "$s1" -ne 0 ] || [ "$s2" -ne 0 ]; then bad "$name: exit $s1 and $s2"; cat "$T/e1" "$T/e2"; return; fi
    # times measured in the run may differ
    sed -i 's/ in [0-9.]* s\b/ in T s/' "$T/o1" "$T/o2"
    [ -s "$T/o1" ] && cmp -s "$T/o1" "$T/o2" && ok "$name" || { bad "$name: outputs differ"; diff "$T/o1" "$T/o2" | head -5; }
}

"$G" "$T/tr" --ranks 4 --events 2000 >/dev/null || bad "gen_trace failed"
same "dump --rank=2 as --rank 2" -- dump $T/tr --rank 2 -- dump "$T/tr" --rank=2
"$P" merge "$T/tr" --times summary --window 8 -q -o "$T/m1" && "$P" merge "$T/tr" --times=summary --window=8 -q -o "$T/m2" &&
    cmp -s "$T/m1" "$T/m2" && ok "merge --times=summary --window=8: the same merged file" || bad "merge --times=summary --window=8: the merged files differ"
same "fold --algo=paper" -- fold $T/m1 --algo paper --tree -- fold "$T/m1" --algo=paper --tree
same "sim --depth=1 --intervals=loops" -- sim $T/tr --depth 1 --intervals loops -q -- sim "$T/tr" --depth=1 --intervals=loops -q
same "advise --top=2 --procs=8 (and -D N=64 untouched)" -- advise $S/examples/advise/jacobi.adv -D N=64 --top 2 --procs 8 -- \
    advise "$S/examples/advise/jacobi.adv" -D N=64 --top=2 --procs=8
same "advise -DN=64 (glued) --top=2" -- advise $S/examples/advise/jacobi.adv -D N=64 --top 2 -- \
    advise "$S/examples/advise/jacobi.adv" -DN=64 --top=2
# defaults: gen without -K writes what -K 10 writes (a recorded trace)
"$P" gen "$S/tests/golden/traces/heat" -o "$T/k.c" >/dev/null 2>&1 && "$P" gen "$S/tests/golden/traces/heat" -K 10 -o "$T/k10.c" >/dev/null 2>&1 &&
    cmp -s "$T/k.c" "$T/k10.c" && ok "gen without -K: the skeleton of -K 10" || bad "gen without -K differs from -K 10 (or failed)"
# a value holding '=' is kept whole
expect 2 "not '4=5'" "advise --procs=4=5: the value is 4=5" -- "$P" advise "$S/examples/advise/jacobi.adv" --procs=4=5

# options by their effect (those no other test shows taking effect)
# sim --depth: gen_trace's loops hold loops; depth 1 shows the outer ones only
"$P" sim "$T/tr" --intervals loops --depth 1 -q >"$T/d1" 2>"$T/e1" &&
    "$P" sim "$T/tr" --intervals loops --depth 3 -q >"$T/d3" 2>"$T/e3" || { bad "sim --depth: failed"; cat "$T/e1" "$T/e3"; }
n1=$(grep -c '^ *loop [0-9]* (' "$T/d1") n3=$(grep -c '^ *loop [0-9]* (' "$T/d3")
in1=$(grep -c '^    *loop [0-9]* (' "$T/d1") in3=$(grep -c '^    *loop [0-9]* (' "$T/d3")
[ "$n1" -ge 1 ] && [ "$in1" -eq 0 ] && [ "$in3" -ge 1 ] && [ "$n3" -gt "$n1" ] &&
    ok "sim --depth 1: $n1 outer loop rows, --depth 3: $n3 with the nested" ||
    bad "sim --depth 1 shows $n1 loop rows ($in1 nested), --depth 3 $n3 ($in3 nested)"
# fold --tree: past 100,000 symbols plain fold leaves out the folded loop tree,
# --tree prints it
"$G" "$T/big" --ranks 2 --events 110000 >/dev/null || bad "gen_trace of 2 x 110000 events failed"
"$P" merge "$T/big" -q -o "$T/big.pskm" || bad "merge of 2 x 110000 events failed"
"$P" fold "$T/big.pskm" >"$T/f1" 2>"$T/e1" && "$P" fold "$T/big.pskm" --tree >"$T/f2" 2>"$T/e2" ||
    { bad "fold --tree: failed"; cat "$T/e1" "$T/e2"; }
tree='^Init .*)x[0-9]'
! grep -q "$tree" "$T/f1" && grep -q "$tree" "$T/f2" &&
    ok "fold --tree: the loop tree of $(sed -n 's/^folded \([0-9]*\) .*/\1/p' "$T/f2") symbols, not without it" ||
    bad "fold --tree: the loop tree in plain fold $(grep -c "$tree" "$T/f1") time(s), with --tree $(grep -c "$tree" "$T/f2")"
# fold -o FILE: the JSON --json prints, written to FILE, and the text on stdout
"$P" fold "$T/m1" -o "$T/fo.json" >"$T/fo.txt" 2>"$T/e1" && "$P" fold "$T/m1" --json >"$T/fj.json" 2>"$T/e2" ||
    { bad "fold -o: failed"; cat "$T/e1" "$T/e2"; }
sed -i '/"seconds":/d' "$T/fo.json" "$T/fj.json"
grep -q '"main_loop": {' "$T/fo.json" && cmp -s "$T/fo.json" "$T/fj.json" && grep -q '^folded [0-9]* symbols' "$T/fo.txt" &&
    ok "fold -o FILE: FILE holds what --json prints, the text on stdout" || bad "fold -o FILE: FILE differs from --json or stdout is not the text"
# fold --algo: the algorithm named in the text and the JSON
for a in paper topdown bottomup; do
    "$P" fold "$T/m1" --algo $a >"$T/fa.txt" 2>"$T/e1" && "$P" fold "$T/m1" --algo $a --json >"$T/fa.json" 2>>"$T/e1" ||
        { bad "fold --algo $a: failed"; cat "$T/e1"; }
    grep -q "^folded [0-9]* symbols to [0-9]* in [0-9.]* s ($a, " "$T/fa.txt" && grep -q "\"algorithm\": \"$a\"" "$T/fa.json" &&
        ok "fold --algo $a: folded by $a" || bad "fold --algo $a: $(head -n 1 "$T/fa.txt"), $(grep '"algorithm"' "$T/fa.json")"
done
# advise --top N: the best layout and N-1 runners-up (jacobi has 3 in all)
adv="$S/examples/advise/jacobi.adv"
cands() { "$P" advise "$adv" -D N=64 "$@" 2>&1 | grep -c '^best layout\|^[0-9]*\. (+[0-9.]* %)'; }
c1=$(cands --top 1) c2=$(cands --top 2) c5=$(cands --top 5) c0=$(cands)
[ "$c1" = 1 ] && [ "$c2" = 2 ] && [ "$c5" = 3 ] && [ "$c0" = "$c5" ] &&
    ok "advise --top 1, 2, 5: 1, 2, 3 layouts (3 by default)" ||
    bad "advise --top 1, 2, 5 and none: $c1, $c2, $c5 and $c0 layouts, not 1, 2, 3 and 3"
# advise --maxdims 1: 1-D grids only (jacobi's best 2-D ones among the listed otherwise)
"$P" advise "$adv" -D N=64 >"$T/a0" 2>&1 && "$P" advise "$adv" -D N=64 --maxdims 1 >"$T/a1" 2>&1 ||
    { bad "advise --maxdims 1: failed"; cat "$T/a0" "$T/a1"; }
grep -q '(2-D)' "$T/a0" && ! grep -q '(2-D)' "$T/a1" && grep -q '(1-D)' "$T/a1" &&
    ok "advise --maxdims 1: no 2-D grid" || bad "advise --maxdims 1: $(grep -c '(2-D)' "$T/a1") 2-D layout(s) listed"
# advise --static: adi pays for redistributing between its sweeps, unless static
"$P" advise "$S/examples/advise/adi.adv" >"$T/a0" 2>&1 && "$P" advise "$S/examples/advise/adi.adv" --static >"$T/a1" 2>&1 ||
    { bad "advise --static: failed"; cat "$T/a0" "$T/a1"; }
grep -q '^  redistribute before ' "$T/a0" && ! grep -q 'redistribute before ' "$T/a1" &&
    ok "advise --static: no redistribution (adi has one without)" ||
    bad "advise adi.adv: $(grep -c '^  redistribute before ' "$T/a0") redistribution(s), with --static $(grep -c 'redistribute before ' "$T/a1")"

# flags take no value; an unknown --name=value is refused by name
expect 2 "stats: --json takes no value" "stats --json=x refused" -- "$P" stats "$T/tr" --json=x
expect 2 "merge: --mpi takes no value" "merge --mpi=x refused" -- "$P" merge "$T/tr" --mpi=openmpi
expect 2 "predict: --json takes no value" "predict --json=1 refused" -- "$P" predict "$T/tr" -K 2 --json=1 -- true
expect 2 "sim: unknown option '--bogus'" "sim --bogus=1 refused" -- "$P" sim "$T/tr" --bogus=1

# after `--`, and after record's launcher, the arguments are the job's
"$P" record --mpi=openmpi -o "$T/r1" -- sh -c 'printf "%s\n" "$@"' sh --json=x --rank=1 >"$T/out" 2>/dev/null
[ "$(tr '\n' ' ' <"$T/out")" = "--json=x --rank=1 " ] && ok "record --mpi=openmpi -- ...: the job's --opt=value untouched" ||
    bad "record -- ...: the job got '$(cat "$T/out")'"
"$P" record --mpi=openmpi -o "$T/r2" sh -c 'printf "%s\n" "$@"' sh --help --zstd=1 >"$T/out" 2>/dev/null
[ "$(tr '\n' ' ' <"$T/out")" = "--help --zstd=1 " ] && ok "record LAUNCHER ... (no --): the job's options untouched" ||
    bad "record LAUNCHER ...: the job got '$(cat "$T/out")'"

# every command in perfskel --help: in the table (an unknown --name=value
# refused even with --help), and every option its --help shows known
cmds=$("$P" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
for c in $cmds; do
    expect 2 "unknown option" "$c: an unknown --name=value refused" -- "$P" "$c" --help --zz-not-an-option=1
    "$P" "$c" --help >"$T/h" 2>&1
    # the options of its usage line, those in [...] or (...) or after |, and predict's option list
    opts=$( { sed -n 1p "$T/h" | grep -o -- '--[a-z][a-z0-9-]*'
              grep -o -- '[[(|] *--[a-z][a-z0-9-]*' "$T/h" | grep -o -- '--[a-z][a-z0-9-]*'
              grep -- '^  -' "$T/h" | grep -o -- '--[a-z][a-z0-9-]*'; } | sort -u)
    unknown=""
    for o in $opts; do
        "$P" "$c" --help "$o=1" >"$T/o" 2>"$T/e"
        st=$?
        if [ "$st" -eq 0 ] && grep -q '^usage:' "$T/o"; then :
        elif [ "$st" -eq 2 ] && grep -q "takes no value" "$T/e"; then :
        else unknown="$unknown $o"; fi
    done
    [ -z "$unknown" ] && ok "$c: its options known ($(echo $opts | wc -w))" || bad "$c: options not in its table (cmd_$c.c):$unknown"
done
[ "$fails" -eq 0 ]

#!/bin/sh
# advise.sh EXAMPLES_DIR: perfskel advise from the command line: every
# bundled example advised in text and in JSON (valid JSON, a layout, a
# plan), -D and --procs taking effect, --help, and the user's mistakes:
# a bad program (one line naming FILE:LINE:COL, exit 1), a missing file or
# machine file (exit 1), bad options (exit 2).
set -u
ex=$1
: "${PERFSKEL:?PERFSKEL must name the perfskel CLI}"
P=$PERFSKEL
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/perfskel-advise.XXXXXX")
trap 'rm -rf "$T"' EXIT

for f in "$ex"/*.adv; do
    n=$(basename "$f" .adv)
    expect 0 "" "$n: text" -- "$P" advise "$f"
    grep -q "^best layout" "$T/out" || bad "$n: no best layout in the text"
    expect 0 "" "$n: json" -- "$P" advise "$f" --json
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["layouts"] and "plan" in d' "$T/out" ||
        bad "$n: --json is not the expected JSON"
done

# Jacobi's crossover on a bus (Ts 7 us, Tb 0.001 us/B, work 0 would be
# exact; here the file's work only adds the same compute to both): a
# small N on one axis, a large one on a square grid
printf 'type = bus;\nstart time = 7;\nsend byte time = 0.001;\n' >"$T/bus.machine"
"$P" advise "$ex/jacobi.adv" -D N=64 --machine "$T/bus.machine" --json >"$T/small.json" &&
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["layouts"][0]["grid"]==[16], d["layouts"][0]["grid"]' "$T/small.json" &&
    ok "jacobi N=64: one axis" || bad "jacobi N=64: not one axis of 16"
"$P" advise "$ex/jacobi.adv" -D N=4096 --machine "$T/bus.machine" --json >"$T/large.json" &&
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["layouts"][0]["grid"]==[4,4], d["layouts"][0]["grid"]' "$T/large.json" &&
    ok "jacobi N=4096: 4 x 4" || bad "jacobi N=4096: not 4 x 4"
"$P" advise "$ex/dot.adv" --procs 4 --json >"$T/p4.json" &&
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["procs"]==4' "$T/p4.json" &&
    ok "--procs 4" || bad "--procs 4 not taken"

expect 0 "" "--help" -- "$P" advise --help
grep -q "usage: perfskel advise" "$T/out" || bad "--help: no usage line"
printf 'procs 4;\narray A[10] double;\nnest n { for i = 0 .. 9 par\n  A[i] = B[i]; }\n' >"$T/bad.adv"
expect 1 "bad.adv:4:10: " "unknown array" -- "$P" advise "$T/bad.adv"
printf 'procs 4;\narray A[10] double;\nnest n { for i = 0 .. 9 par for j = 0 .. 9 par\n  A[i*j] = 1; }\n' >"$T/nonaff.adv"
expect 1 "nonaff.adv:4:" "non-affine subscript" -- "$P" advise "$T/nonaff.adv"
expect 1 "nothere.adv" "missing file" -- "$P" advise "$T/nothere.adv"
expect 1 "nothere.machine" "missing machine file" -- "$P" advise "$ex/dot.adv" --machine "$T/nothere.machine"
expect 1 "dot.adv: 100000 processors: the advisor handles at most 65536" "too many processors" -- "$P" advise "$ex/dot.adv" --procs 100000
expect 2 "" "unknown option" -- "$P" advise "$ex/dot.adv" --frobnicate
expect 2 "" "no file" -- "$P" advise
expect 1 "no param Q" "-D of no param" -- "$P" advise "$ex/dot.adv" -D Q=3
# a time loop of 10^8 iterations is costed once and multiplied, but a
# trace of it would not fit: refused before anything is walked
printf 'param N = 100; procs 4;\narray A[N] double;\nnest n { for t = 0 .. 99999999 seq for i = 1 .. N-2 par A[i] = f(A[i-1]); }\n' >"$T/long.adv"
expect 0 "" "a long time loop" -- timeout 20 "$P" advise "$T/long.adv"
expect 1 "over the 50000000 steps a trace may hold" "a long time loop's trace" -- timeout 20 "$P" advise "$T/long.adv" --trace "$T/longtr"
[ -e "$T/longtr" ] && bad "a refused trace left $T/longtr"
printf 'param N = 100; procs 4;\narray A[N] double;\nnest n { for t = 0 .. 99999999 seq for i = 1 .. N-2 par A[i] = f(A[t]); }\n' >"$T/used.adv"
expect 1 "used.adv:3:1: nest n: its outer seq loops run 100000000 times" "an outer loop too long to cost" -- timeout 20 "$P" advise "$T/used.adv"
[ "$fails" -eq 0 ]

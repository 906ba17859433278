#!/bin/sh
# CLI test of how every command reads its options (programs/perfskel.c,
# normalise): `--opt=value` is `--opt value` (the same output, on a
# generated trace and an advisor example), a flag given a value and an
# unknown `--name=value` are refused in one line, and nothing after `--`
# or after record's launcher is touched. Every option a command's --help
# shows is known to it (a command or option missing from the table of
# perfskel.c fails here). Needs PERFSKEL, GEN_TRACE and SRC (paths).
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
# a value holding '=' is kept whole
expect 2 "not '4=5'" "advise --procs=4=5: the value is 4=5" -- "$P" advise "$S/examples/advise/jacobi.adv" --procs=4=5

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
    [ -z "$unknown" ] && ok "$c: its options known ($(echo $opts | wc -w))" || bad "$c: options not in perfskel.c's table:$unknown"
done
[ "$fails" -eq 0 ]

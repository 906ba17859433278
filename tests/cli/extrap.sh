#!/bin/sh
# extrap.sh FLAVOUR PROGRAM: sim --ranks (docs/simulation.md) on a real
# weak-scaling stencil (tests/cli/extrap_stencil.c), recorded at 2, 4 and 8
# ranks (oversubscribed: the machine has 2 cores, and may be shared). The
# recorded compute gaps of oversubscribed ranks are partly waiting for a core,
# so the predictions are compared on a machine whose CPU is a million times
# faster (power = 1e6), every rank starting at 0 (not when its MPI_Init
# returned: 8 ranks on 2 cores leave it milliseconds apart, 2 ranks do not),
# and no time-sharing modelled (the 8-rank recording shared the cores, the
# 2-rank one did not: a rank of the first whose wait ends beside another
# waiting rank would pay half a switch cost, one rebuilt from the second not):
# what is left is the rebuilt communication (with 4 links per node: with one,
# which of two messages takes a link first turns on the sub-microsecond gaps
# left, and the 8-rank prediction moves by up to 15 % between recordings,
# extrapolated or not). From the 2- and 4-rank traces, the 8-rank prediction
# (weak rule, and the fit through both) must be within 3 % of sim of the real
# 8-rank trace, with exactly its events; with halos shrinking as 1/P, the fit
# (a*P^b on the sizes) within 3 % and closer than the weak rule; P -> P gives
# sim's own prediction exactly (with the recorded compute); --json names the
# rule; traces whose peers are no rank-relative pattern (the "mirror" swap
# with rank P-1-r; "irregular" neighbours skipped at every third rank, a table
# of peers), and bad --ranks values, are refused in one line.
set -u
P=${PERFSKEL:?}
flavour=$1
prog=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
mpirun_of "$flavour"

pred() { awk '/^predicted run time:/ { print $4; exit }' "$1"; }
events() { sed -n 's/^predicted run time:.*ranks, \([0-9]*\) events.*/\1/p' "$1" | head -1; }
within() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { r = a / b; exit !(r > 1 / (1 + t) && r < 1 + t) }'; }
record() { # NAME RANKS ARGS...
    name=$1 n=$2
    shift 2
    # shellcheck disable=SC2086
    timeout -k 10 300 "$P" record -o "$T/$name" -- $MPIRUN -np "$n" "$prog" "$@" </dev/null >"$T/out" 2>"$T/err" ||
        { bad "recording $name ($n ranks) failed"; cat "$T/err"; }
}
for n in 2 4 8; do
    record "s$n" $n 200 20000 512
    record "h$n" $n 100 0 -4096
done
record mirror 4 20 1000 8 mirror
record irregular 4 20 1000 8 irregular
echo "power = 1000000; links per node = 4; ranks start = together; time sharing = off;" >"$T/nocpu.par"
sim() { "$P" sim "$@" -q --machine "$T/nocpu.par"; }

for p in 2 4; do # P -> P: the same prediction, compute included
    "$P" sim "$T/s$p" -q >"$T/a" && "$P" sim "$T/s$p" -q --ranks $p --scale weak >"$T/b" &&
        [ "$(pred "$T/a")" = "$(pred "$T/b")" ] &&
        ok "$p -> $p ranks: the prediction of the trace itself ($(pred "$T/a") s)" ||
        bad "$p -> $p ranks: $(pred "$T/b") s, the trace itself $(pred "$T/a") s"
done
check() { # NAME FILE REAL_FILE
    got=$(pred "$2") want=$(pred "$3")
    [ "$(events "$2")" = "$(events "$3")" ] && within "$got" "$want" 0.03 &&
        ok "$1: $got s, sim of the real 8-rank trace $want s, $(events "$2") events" ||
        { bad "$1: $got s ($(events "$2") events), sim of the real trace $want s ($(events "$3") events)"; cat "$2"; }
}
sim "$T/s8" >"$T/real" 2>"$T/err" || { bad "sim of the 8-rank trace failed"; cat "$T/err"; }
for from in 2 4; do
    sim "$T/s$from" --ranks 8 --scale weak >"$T/x" 2>"$T/err" || { bad "weak $from -> 8 failed"; cat "$T/err"; }
    check "weak $from -> 8 ranks" "$T/x" "$T/real"
done
sim "$T/s2" --ranks 8 --fit "$T/s4" >"$T/x" 2>"$T/err" || { bad "fit 2,4 -> 8 failed"; cat "$T/err"; }
check "fit 2,4 -> 8 ranks" "$T/x" "$T/real"
grep -q 'compute gaps .*fitted at P=2,4' "$T/x" && ok "the fit's report names the points" ||
    { bad "the fit's report does not say it fitted the gaps at P=2,4"; cat "$T/x"; }

# three recordings: the patterns from the largest, the residual chooses (equal: a*P^b)
sim "$T/h2" --ranks 16 --fit "$T/h4" "$T/h8" >"$T/x" 2>"$T/err" && grep -q 'extrapolated from 8 ranks' "$T/x" &&
    grep -q 'message sizes .*a\*P^b (fitted at P=2,4,8, residual at most' "$T/x" &&
    ok "fit 2,4,8 -> 16: from the 8-rank trace, a*P^b on the sizes by its residual" ||
    { bad "fit 2,4,8 -> 16"; cat "$T/x" "$T/err"; }

# halos shrinking as 1/P: the fit finds it, the weak rule cannot
sim "$T/h8" >"$T/hreal" 2>"$T/err" || { bad "sim of the 8-rank trace (shrinking halos) failed"; cat "$T/err"; }
sim "$T/h2" --ranks 8 --fit "$T/h4" >"$T/x" 2>"$T/err" || { bad "fit 2,4 -> 8 (shrinking halos) failed"; cat "$T/err"; }
check "shrinking halos, fit 2,4 -> 8 ranks" "$T/x" "$T/hreal"
grep -q 'message sizes .*a\*P^b' "$T/x" && ok "the fit says the message sizes follow a*P^b" ||
    { bad "the fit does not say a*P^b for the message sizes"; cat "$T/x"; }
sim "$T/h4" --ranks 8 --scale weak >"$T/y" 2>"$T/err" || { bad "weak 4 -> 8 (shrinking halos) failed"; cat "$T/err"; }
awk -v f="$(pred "$T/x")" -v w="$(pred "$T/y")" -v r="$(pred "$T/hreal")" \
    'BEGIN { d = f / r - 1; e = w / r - 1; exit !(d * d < e * e) }' &&
    ok "shrinking halos: the fit ($(pred "$T/x") s) is closer than the weak rule ($(pred "$T/y") s)" ||
    bad "shrinking halos: the fit ($(pred "$T/x") s) is no closer than the weak rule ($(pred "$T/y") s) to $(pred "$T/hreal") s"

# 8 ranks from a 2-rank recording on 2 cores, on a node of 2 cores: they
# share them (cores per node), 4 ranks a core where the recording had 1,
# so the compute takes about 4 times as long (the job's cores are scaled)
echo "ranks per node = 16;" >"$T/node.par"
echo "ranks per node = 16; cores per node = 2;" >"$T/shared.par"
a=$("$P" sim "$T/s2" -q --ranks 8 --scale weak --machine "$T/node.par" | awk '/^predicted/ { print $4 }')
b=$("$P" sim "$T/s2" -q --ranks 8 --scale weak --machine "$T/shared.par" | awk '/^predicted/ { print $4 }')
awk -v a="$a" -v b="$b" 'BEGIN { exit !(b > 2 * a) }' &&
    ok "8 ranks from 2 share 2 cores: $b s, $a s with a core each" ||
    bad "8 ranks from 2 on 2 cores: $b s, with a core each $a s (expected over twice)"

# the report says which rule, in JSON too
for rule in "--scale weak:weak" "--scale strong:strong" "--fit $T/s4:fit"; do
    # shellcheck disable=SC2086
    "$P" sim "$T/s2" -q --ranks 8 ${rule%:*} --json >"$T/j" 2>"$T/err" &&
        python3 -c "import json,sys; d=json.load(open(sys.argv[1])); x=d['extrapolation']; \
assert x['rule']==sys.argv[2] and x['to_ranks']==8 and x['from_ranks'] in (2,4) and x['applied'] and d['ranks']==8" \
            "$T/j" "${rule#*:}" && ok "--json: rule ${rule#*:}" || { bad "--json: rule ${rule#*:}"; cat "$T/j" "$T/err"; }
done
"$P" sim "$T/s4" -q --ranks 8 --scale strong >"$T/x" &&
    grep -q 'compute gaps .*x 0.5 (P/P2)' "$T/x" && ok "strong: compute gaps halved from 4 to 8 ranks" ||
    { bad "strong 4 -> 8: the report does not say the gaps are halved"; cat "$T/x"; }

"$P" sim "$T/s4" -q --ranks 8 --scale weak --html "$T/r.html" >/dev/null &&
    grep -q '<title>.*extrapolated from 4 to 8 ranks (weak)' "$T/r.html" && ok "--html: the page says the rule" ||
    bad "--html: the page does not say it is extrapolated"

# refused: peers no rank-relative pattern gives, bad --ranks, mismatched fits
expect 1 'MPI_Sendrecv.*cannot be rebuilt' "the mirror program's peers refused" -- "$P" sim "$T/mirror" -q --ranks 8 --scale weak
expect 1 'MPI_Sendrecv.*per-rank table' "the irregular program's table of peers refused" -- "$P" sim "$T/irregular" -q --ranks 8 --scale weak
for r in 0 -3 abc 99999999999; do
    expect 2 'ranks' "--ranks $r refused" -- "$P" sim "$T/s4" --ranks "$r" --scale weak
done
expect 2 'one rule' "--ranks without a rule refused" -- "$P" sim "$T/s4" --ranks 8
expect 2 'go with --ranks' "--scale without --ranks refused" -- "$P" sim "$T/s4" --scale weak
expect 1 'same events' "--fit with another program refused" -- "$P" sim "$T/s2" --ranks 8 --fit "$T/mirror"
expect 1 'different rank counts' "--fit at the same rank count refused" -- "$P" sim "$T/s4" --ranks 8 --fit "$T/h4"
[ $fails -eq 0 ] && echo "all extrapolation tests passed" || echo "$fails extrapolation test(s) failed"
[ $fails -eq 0 ]

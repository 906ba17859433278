#!/bin/sh
# extrap_synth.sh: sim --ranks (docs/simulation.md) on random synthetic traces
# (bench/gen_trace: LU-shaped sweeps and halos on a px x py grid, times
# drawn at random from a seed), no MPI needed. For three random seeds,
# with boundary ranks skipping their calls and with them passing
# MPI_PROC_NULL: extrapolating P -> P gives the trace's own prediction
# exactly; P -> 4P (the 2-D grid rebuilt, 4x4 -> 8x8) has exactly the
# events of the real 4P trace and predicts within 3 % of it (the times are
# other random draws); the fit through P and 4P predicts 16P within 3 %.
# A trace whose ranks are all at the grid's ends (2x2, boundary calls
# skipped) and a --ranks whose MPI_Dims_create grid has a dimension of 1
# are refused in one line. Needs PERFSKEL and GEN_TRACE.
set -u
P=${PERFSKEL:?}
G=${GEN_TRACE:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"

pred() { awk '/^predicted run time:/ { print $4; exit }' "$1"; }
events() { sed -n 's/^predicted run time:.*ranks, \([0-9]*\) events.*/\1/p' "$1" | head -1; }
within() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { r = a / b; exit !(r > 1 / (1 + t) && r < 1 + t) }'; }
check() { # NAME FILE REAL_FILE
    got=$(pred "$2") want=$(pred "$3")
    [ -n "$got" ] && [ "$(events "$2")" = "$(events "$3")" ] && within "$got" "$want" 0.03 &&
        ok "$1: $got s, the real trace $want s, $(events "$2") events" ||
        bad "$1: '$got' s ($(events "$2") events), the real trace $want s ($(events "$3") events)"
}

seeds="$(od -An -tu2 -N6 /dev/urandom)"
for seed in $seeds; do
    for mode in skip null; do
        opt=""
        [ $mode = null ] && opt=--proc-null
        for n in 4 16 64; do
            # shellcheck disable=SC2086
            "$G" "$T/$mode$n" --ranks $n --events 2000 --seed "$seed" $opt >/dev/null || bad "gen_trace $n ranks"
        done
        "$P" sim "$T/${mode}16" -q >"$T/a" && "$P" sim "$T/${mode}16" -q --ranks 16 --scale weak >"$T/b" &&
            [ "$(pred "$T/a")" = "$(pred "$T/b")" ] &&
            ok "seed $seed, $mode: 16 -> 16 ranks gives the trace's own prediction ($(pred "$T/a") s)" ||
            bad "seed $seed, $mode: 16 -> 16 ranks $(pred "$T/b") s, the trace itself $(pred "$T/a") s"
        "$P" sim "$T/${mode}64" -q >"$T/real" || bad "seed $seed: sim of the 64-rank trace"
        "$P" sim "$T/${mode}16" -q --ranks 64 --scale weak >"$T/x" 2>"$T/err" || { bad "seed $seed, $mode: 16 -> 64"; cat "$T/err"; }
        check "seed $seed, $mode: weak 16 -> 64 ranks" "$T/x" "$T/real"
        if [ $mode = null ]; then
            "$P" sim "$T/null4" -q --ranks 16 --scale weak >"$T/x" 2>"$T/err" || { bad "seed $seed: 4 -> 16"; cat "$T/err"; }
            "$P" sim "$T/null16" -q >"$T/real16"
            check "seed $seed, $mode: weak 4 -> 16 ranks" "$T/x" "$T/real16"
            "$P" sim "$T/null4" -q --ranks 64 --fit "$T/null16" >"$T/x" 2>"$T/err" || { bad "seed $seed: fit 4,16 -> 64"; cat "$T/err"; }
            check "seed $seed, $mode: fit 4,16 -> 64 ranks" "$T/x" "$T/real"
        fi
    done
done
expect 2 'would take part in a combination' "a 2x2 trace whose ranks all skip calls refused" -- "$P" sim "$T/skip4" --ranks 16 --scale weak
expect 2 'MPI_Dims_create.*dimension of 1' "--ranks 7 on a 2-D grid refused" -- "$P" sim "$T/null16" --ranks 7 --scale weak
[ $fails -eq 0 ] && echo "all synthetic extrapolation tests passed" || echo "$fails synthetic extrapolation test(s) failed"
[ $fails -eq 0 ]

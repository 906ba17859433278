#!/bin/sh
# cart.sh FLAVOUR PROGRAM: MPI_Dims_create and MPI_Cart_create recorded
# with their grid (trace format 3) and used by sim --ranks
# (docs/simulation.md), on tests/cli/cart_stencil.c, a 2-D stencil on
# MPI_Dims_create's grid. Every flavour: perfskel dump shows Dims_create's
# nnodes, dims given and returned, and Cart_create's dims and periods, on
# every rank, and the merged trace keeps them. Open MPI also: recorded at 4
# ranks as 2x2, as 4x1 (the second dimension kept at 1 by Dims_create) and as
# 2x2 with the second dimension kept at 2, extrapolated to 8 and 16 with the
# recorded grid (its report says so, text and --json: grid_source "recorded",
# the P2 grid 4x2, 4x4; 8x1, 16x1; 4x2, 8x2), the prediction within 3 % of sim
# of the real 8- and 16-rank recordings with exactly their events, on a bus
# (one message at a time: the grid's shape shows in the time) whose CPU is a
# million times faster (only the rebuilt communication counts, as in
# extrap.sh); 8x2 and 4x4 predict times over 3 % apart (the grid an inference
# would take, MPI_Dims_create's 4x4, would be wrong there).
set -u
P=${PERFSKEL:?}
flavour=$1
prog=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
mpirun_of "$flavour"

record() { # NAME RANKS ARGS...
    name=$1 n=$2
    shift 2
    # shellcheck disable=SC2086
    timeout -k 10 300 "$P" record -o "$T/$name" -- $MPIRUN -np "$n" "$prog" "$@" </dev/null >"$T/out" 2>"$T/err" ||
        { bad "recording $name ($n ranks) failed"; cat "$T/err"; }
}
# dumped NAME RANKS FUNCTION TOKENS...: every rank's FUNCTION event carries the tokens
dumped() {
    name=$1 n=$2 fn=$3
    shift 3
    "$P" dump "$T/$name" >"$T/dump" 2>"$T/err" || { bad "dump $name failed"; cat "$T/err"; return; }
    "$P" merge -q "$T/$name" -o "$T/$name.pskm" >/dev/null 2>"$T/err" && "$P" dump "$T/$name.pskm" >"$T/mdump" &&
        cmp -s "$T/dump" "$T/mdump" || { bad "$name: the merged trace does not give back the recorded events"; return; }
    for r in $(seq 0 $((n - 1))); do
        line=$(awk -v r="$r" -v f="$fn" '$1 == r && $5 == f { print; exit }' "$T/dump")
        for tok in "$@"; do
            case " $line " in *" $tok "*) ;; *) bad "$name rank $r: $fn lacks $tok (${line:-no such event})"; return ;; esac
        done
    done
    ok "$name: every rank's $fn has $*"
}

if [ "$flavour" != openmpi ]; then # MPICH: 2 ranks (slow when oversubscribed)
    record m2 2 20 1000 16 0 0 1 0
    dumped m2 2 MPI_Dims_create i1=2 dims=[2,1] dimsin=[0,0]
    dumped m2 2 MPI_Cart_create dims=[2,1] periods=[1,0]
    [ $fails -eq 0 ] && echo "all Cartesian grid tests passed" || echo "$fails Cartesian grid test(s) failed"
    exit $fails
fi

pred() { awk '/^predicted run time:/ { print $4; exit }' "$1"; }
events() { sed -n 's/^predicted run time:.*ranks, \([0-9]*\) events.*/\1/p' "$1" | head -1; }
within() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { r = a / b; exit !(r > 1 / (1 + t) && r < 1 + t) }'; }
# communication alone: CPUs a million times faster, every rank starting at
# 0 (16 ranks on 2 cores leave MPI_Init milliseconds apart, 4 do not)
echo "type = bus; power = 1000000; ranks start = together;" >"$T/nocpu.par"
sim() { "$P" sim "$@" -q --machine "$T/nocpu.par"; }

for n in 4 8 16; do
    record "g$n" $n 40 2000 64       # MPI_Dims_create's own: 2x2, 4x2, 4x4
    record "l$n" $n 40 2000 64 0 1   # the second dimension kept at 1: 4x1, 8x1, 16x1
    record "f$n" $n 40 2000 64 0 2   # kept at 2: 2x2, 4x2, 8x2
done
record p4 4 10 1000 8 0 0 1 0        # periodic in the first dimension
dumped g4 4 MPI_Dims_create i1=4 dims=[2,2] dimsin=[0,0]
dumped g4 4 MPI_Cart_create dims=[2,2] periods=[0,0] members=[0,1,2,3]
dumped l4 4 MPI_Dims_create i1=4 dims=[4,1] dimsin=[0,1]
dumped l4 4 MPI_Cart_create dims=[4,1] periods=[0,0]
dumped p4 4 MPI_Cart_create dims=[2,2] periods=[1,0]

for g in g l f; do
    for n in 8 16; do
        case $g$n in g8 | f8) want=4x2 ;; g16) want=4x4 ;; l8) want=8x1 ;; l16) want=16x1 ;; f16) want=8x2 ;; esac
        from=$(case $g in l) echo 4x1 ;; *) echo 2x2 ;; esac) label=$(case $g in l) echo 4x1 ;; g) echo 2x2 ;; f) echo "2x2 (0 2 given)" ;; esac)
        sim "$T/$g$n" >"$T/real" 2>"$T/err" || { bad "sim of the real $g$n trace failed"; cat "$T/err"; continue; }
        sim "$T/${g}4" --ranks $n --scale weak >"$T/x" 2>"$T/err" || { bad "$g$n: 4 -> $n failed"; cat "$T/err"; continue; }
        grep -q "grid $from -> $want (recorded by MPI_Cart_create" "$T/x" &&
            ok "$label -> $n ranks: the recorded grid, $want at $n" ||
            { bad "$label -> $n ranks: the report does not say the recorded grid gives $want"; head -3 "$T/x"; }
        got=$(pred "$T/x") real=$(pred "$T/real")
        [ "$(events "$T/x")" = "$(events "$T/real")" ] && within "$got" "$real" 0.03 &&
            ok "$label -> $n ranks: $got s, sim of the real $n-rank trace $real s, $(events "$T/x") events" ||
            { bad "$label -> $n ranks: $got s ($(events "$T/x") events), the real trace $real s ($(events "$T/real") events)"; cat "$T/x"; }
        cp "$T/x" "$T/x.$g$n"
    done
done
a=$(pred "$T/x.f16") b=$(pred "$T/x.g16")
! within "$a" "$b" 0.03 && ok "the dimension kept at 2 matters: 8x2 $a s, 4x4 $b s" ||
    bad "8x2 ($a s) and 4x4 ($b s) predict within 3 %: the test cannot tell the grids apart"
sim "$T/l4" --ranks 16 --scale weak --json >"$T/j" 2>"$T/err" &&
    python3 -c "import json,sys; x=json.load(open(sys.argv[1]))['extrapolation']; \
assert x['grid_source']=='recorded' and x['grid_from']==[4,1] and x['grid_to']==[16,1] \
and x['grid_periods']==[0,0] and x['grid_fixed']==[0,1], x" "$T/j" &&
    ok "--json: grid_source recorded, 4x1 -> 16x1, periods and the dimension kept at 1" ||
    { bad "--json: the recorded grid"; cat "$T/j" "$T/err"; }
[ $fails -eq 0 ] && echo "all Cartesian grid tests passed" || echo "$fails Cartesian grid test(s) failed"
[ $fails -eq 0 ]

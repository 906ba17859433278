#!/bin/sh
# neighbor.sh FLAVOUR PROGRAM: MPI_Neighbor_alltoall and
# MPI_Neighbor_allgather (MPI-3) on tests/cli/neighbor.c's Cartesian grid
# (MPI_Dims_create's 2-D one: 2x2 at 4 ranks under Open MPI, 2x1 at 2 under
# MPICH), periodic and not (MPI_PROC_NULL at the edges), and on the rows
# MPI_Cart_sub keeps. For each grid: recorded by the C wrappers on every
# rank with their counts and communicator, given back whole by merge, folded
# into the program's loop; sim predicts (whole and --folded, the same), and
# on a bus (every message between nodes one after the other: 20 + 400 x
# 0.001 = 20.4 us each, no CPU, no floors) the interval of the collectives
# (MPI_Pcontrol 2) takes what its messages do: 2 exchanges x ITERS x the
# grid's messages (2 per rank and periodic dimension longer than 1, 2 per
# line and edge inside a line otherwise; a rank's own, in a periodic
# dimension of 1, cost nothing on the bus) x 20.4 us, within 2 %; and what
# the same exchanges written with MPI_Irecv, MPI_Isend and MPI_Waitall
# (interval 3) take, within 2 %, and what their nonblocking forms
# (MPI_Ineighbor_alltoall and MPI_Ineighbor_allgather, each waited for:
# interval 4) take, within 2 % (on the bus plus at most one exchange's
# messages: interval 3's last sends may still hold it); on a switch too (links per node). gen -K 2
# writes a skeleton that gives the communicators their grids
# (MPI_Cart_create on the split ones) and makes the collectives, blocking
# and not, on them:
# predict builds and runs it under FLAVOUR. On a communicator of
# MPI_Dist_graph_create_adjacent (not recorded: no grid) sim, sim --folded
# and gen refuse in one line naming the call; export --smpi and --otf2
# refuse neighborhood collectives in one line (neither format has them).
set -u
P=${PERFSKEL:?}
flavour=$1
prog=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
mpirun_of "$flavour"
n=4
[ "$flavour" = openmpi ] || n=2 # MPICH busy-polls: slow when oversubscribed
iters=5

record() { # NAME ARGS...
    name=$1
    shift
    # shellcheck disable=SC2086
    timeout -k 10 300 "$P" record -o "$T/$name" -- $MPIRUN -np $n "$prog" "$@" </dev/null >"$T/out" 2>"$T/err" ||
        { bad "recording $name ($n ranks, $*) failed"; cat "$T/err"; return 1; }
}
# a machine of one rank a node, no CPU time, the network model alone
mach="power = 1000000; ranks start = together; call floors = off; time sharing = off; ranks per node = 1;
start time = 20; send byte time = 0.001; intra start time = 0; intra send byte time = 0;"
echo "type = bus; $mach" >"$T/bus.par"
echo "type = switch; $mach" >"$T/switch.par"
# ival JSON NAME: the exec seconds of interval NAME
ival() { python3 -c "import json,sys; print([c for c in json.load(open(sys.argv[1]))['intervals']['children'] \
if c['name'] == sys.argv[2]][0]['exec_seconds'])" "$1" "$2"; }
within() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { exit !(a > 0 && b > 0 && a / b < 1 + t && b / a < 1 + t) }'; }

for per in 1 0; do
    g=grid$per
    what=$([ $per = 1 ] && echo periodic || echo "not periodic")
    record $g $iters $per 100 || continue
    "$P" dump "$T/$g" >"$T/dump" 2>"$T/err" || { bad "$g: dump failed"; cat "$T/err"; }
    for fn in MPI_Neighbor_alltoall MPI_Neighbor_allgather MPI_Ineighbor_alltoall MPI_Ineighbor_allgather; do
        want=$([ $fn = MPI_Neighbor_alltoall ] && echo $((iters + 1)) || echo $iters) # and one on the rows
        for r in $(seq 0 $((n - 1))); do
            got=$(awk -v r="$r" -v f="$fn" '$1 == r && $5 == f && / count=100 dtsize=4 rcount=100 rdtsize=4/ &&
                !/comm=0/' "$T/dump" | wc -l)
            [ "$got" -eq "$want" ] || bad "$g rank $r: $got $fn events with their counts on a Cartesian communicator, not $want"
        done
    done
    ok "$what: every rank's MPI_Neighbor_alltoall, MPI_Neighbor_allgather and their nonblocking forms recorded"
    "$P" merge -q "$T/$g" -o "$T/$g.pskm" >/dev/null 2>"$T/err" && "$P" dump "$T/$g.pskm" >"$T/mdump" &&
        cmp -s "$T/dump" "$T/mdump" && ok "$what: merge gives back the recorded events" ||
        { bad "$what: the merged trace does not give back the recorded events"; cat "$T/err"; }
    "$P" fold "$T/$g.pskm" >"$T/fold" 2>"$T/err"
    grep -q "(Neighbor_alltoall Neighbor_allgather)x$iters" "$T/fold" &&
        grep -q "(Ineighbor_alltoall Wait Ineighbor_allgather Wait)x$iters" "$T/fold" && ok "$what: folded into the loops" ||
        { bad "$what: fold: no (Neighbor_alltoall Neighbor_allgather)x$iters or the nonblocking loop"; cat "$T/fold" "$T/err"; }

    # sim, whole and folded, on the recording's machine
    if "$P" sim "$T/$g" --json -q >"$T/s.json" 2>"$T/err" &&
        "$P" sim --folded "$T/$g.pskm" --json -q >"$T/f.json" 2>>"$T/err"; then
        a=$(num "$T/s.json" predicted_seconds) b=$(num "$T/f.json" predicted_seconds)
        awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0 && d <= 1e-6 * a) }' &&
            ok "$what: sim predicts $a s, sim --folded the same" || bad "$what: sim predicts $a s, sim --folded $b s"
    else
        bad "$what: sim or sim --folded failed"; cat "$T/err"
    fi
    # on a bus: the messages one after the other
    dims=$(awk '$1 == 0 && $5 == "MPI_Dims_create" { for (i = 6; i <= NF; i++) if ($i ~ /^dims=/) print $i; exit }' \
        "$T/dump" | tr -d 'dims=[]' | tr ',' ' ')
    msgs=$(echo "$dims" | awk -v n=$n -v per=$per '{ m = 0; for (d = 1; d <= NF; d++) { e = $d; lines = n / e;
        m += per ? (e > 1 ? lines * 2 * e : 0) : lines * 2 * (e - 1) } print m }')
    want=$(awk -v m="$msgs" -v i=$iters 'BEGIN { print 2 * i * m * 20.4e-6 }')
    for m in bus switch; do
        for how in "" --folded; do
            src="$T/$g" label=sim
            [ -z "$how" ] || src="$T/$g.pskm" label="sim --folded"
            # shellcheck disable=SC2086
            "$P" sim $how "$src" --machine "$T/$m.par" --json -q >"$T/m.json" 2>"$T/err" ||
                { bad "$what: $label on a $m failed"; cat "$T/err"; continue; }
            c=$(ival "$T/m.json" "pcontrol 2") x=$(ival "$T/m.json" "pcontrol 3") i=$(ival "$T/m.json" "pcontrol 4")
            if [ $m = bus ]; then
                within "$c" "$want" 0.02 &&
                    ok "$what, bus, $label: the collectives $c s, their $msgs messages x 2 x $iters x 20.4 us $want s" ||
                    bad "$what, bus, $label: the collectives $c s, not their messages' $want s (grid $dims)"
            fi
            within "$c" "$x" 0.02 && ok "$what, $m, $label: the collectives $c s, as Isend/Irecv/Waitall $x s" ||
                bad "$what, $m, $label: the collectives $c s, Isend/Irecv/Waitall $x s"
            # the same, but on the bus interval 4 may start with interval 3's
            # last sends still on it (eager: a rank goes on when its sends are
            # queued): at most one exchange's messages more, whatever ITERS
            slack=$([ $m = bus ] && awk -v m="$msgs" 'BEGIN { print m * 20.4e-6 }' || echo 0)
            awk -v c="$c" -v i="$i" -v sl="$slack" 'BEGIN { exit !(c > 0 && i >= c * 0.98 && i <= c * 1.02 + sl) }' &&
                ok "$what, $m, $label: the collectives $c s, their nonblocking forms $i s" ||
                bad "$what, $m, $label: the collectives $c s, their nonblocking forms each waited for $i s"
        done
    done

    # the skeleton: the grids remade, the collectives made on them
    "$P" gen "$T/$g.pskm" -K 2 -o "$T/sk.c" 2>"$T/err" || { bad "$what: gen failed"; cat "$T/err"; }
    grep -q "MPI_Cart_create(t_, 2, d_, p_, 0, " "$T/sk.c" && grep -q "MPI_Cart_create(t_, 1, d_, p_, 0, " "$T/sk.c" &&
        grep -q "MPI_Neighbor_alltoall(sbuf_, s_, MPI_BYTE, rbuf_, r_, MPI_BYTE, comm_" "$T/sk.c" &&
        grep -q "MPI_Neighbor_allgather(sbuf_, s_, MPI_BYTE, rbuf_, r_, MPI_BYTE, comm_" "$T/sk.c" &&
        grep -q "MPI_Ineighbor_alltoall(sbuf_, s_, MPI_BYTE, rbuf_, r_, MPI_BYTE, comm_.*, newreq_(" "$T/sk.c" &&
        grep -q "MPI_Ineighbor_allgather(sbuf_, s_, MPI_BYTE, rbuf_, r_, MPI_BYTE, comm_.*, newreq_(" "$T/sk.c" &&
        ok "$what: gen gives the grid and the rows their grids, and makes the collectives on them" ||
        { bad "$what: the skeleton lacks the grids or the collectives"; grep -n "Cart\|Neighbor" "$T/sk.c"; }
    # shellcheck disable=SC2086
    if timeout 300 "$P" predict "$T/$g" -K 2 --timeout 240 -q --json -- $MPIRUN -np $n >"$T/pred.json" 2>"$T/err"; then
        s=$(num "$T/pred.json" predicted_seconds)
        awk -v s="$s" 'BEGIN { exit !(s > 0) }' && ok "$what: predict -K 2 ran the skeleton under $flavour: $s s" ||
            bad "$what: predict -K 2 predicted '$s'"
    else
        bad "$what: predict -K 2 (the skeleton under $flavour) failed"; cat "$T/err"
    fi
done

# a neighborhood collective on a communicator without a grid
if record graph 1 1 1 1; then
    "$P" merge -q "$T/graph" -o "$T/graph.pskm" >/dev/null 2>"$T/err" || { bad "merge of graph failed"; cat "$T/err"; }
    pat='MPI_Neighbor_alltoall (event [0-9]*) on communicator [0-9]*, which has no Cartesian grid'
    expect 1 "$pat" "sim refuses MPI_Dist_graph_create's communicator" -- "$P" sim "$T/graph"
    expect 1 "$pat" "sim --folded refuses it" -- "$P" sim --folded "$T/graph.pskm"
    expect 1 "(MPI_Neighbor_alltoall): rank [0-9]*'s communicator [0-9]* has no Cartesian grid" "gen refuses it" -- \
        "$P" gen "$T/graph.pskm" -o "$T/g.c"
fi
expect 1 'MPI_Neighbor_alltoall' "export --smpi refuses" -- "$P" export --smpi "$T/grid1" -o "$T/smpi"
expect 1 'MPI_Neighbor_alltoall is not exported (OTF2 has no neighborhood collectives)' "export --otf2 refuses" -- \
    "$P" export --otf2 "$T/grid1" -o "$T/otf2"
[ $fails -eq 0 ] && echo "all neighborhood collective tests passed" || echo "$fails neighborhood collective test(s) failed"
exit $fails

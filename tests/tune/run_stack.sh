#!/usr/bin/env bash
# run_stack.sh FLAVOUR NP PROGRAM ARM ORDER [ARGS...]
#
# The recorder and the tuning library stacked (docs/tune.md, "Recording a
# tuned job"): runs PROGRAM ARGS (tune_preload or tune_fortran: 44
# MPI_Alltoall, 22 MPI_Bcast, 22 MPI_Allreduce and 33 MPI_Allgather calls a
# rank; another program: as many as the tuning library says) on NP ranks
# under
#   ORDER=record-tune: perfskel record -o T -- perfskel tune --force ARM -- LAUNCHER ...
#   ORDER=tune-record: perfskel tune --force ARM -- perfskel record -o T -- LAUNCHER ...
# with PSK_TUNE_DEBUG=1 (each rank prints its calls per arm), and checks:
# the job succeeds and (tune_*) every rank says "121 calls, 0 wrong"; the trace is
# format version 4 (arms carried since 2); per rank and collective it holds the program's calls
# exactly once (no call recorded twice, none lost); its calls per arm
# (perfskel stats --json) are the tuning library's own counts (its native
# count plus the calls it passed on untouched); ARM ran at least once.
# ARM=cycle (every call the next arm): then also the skeleton of the trace,
# whose arms change from call to call, is built and run (perfskel predict
# -K 1: merge, fold, gen, mpicc, the launcher) and simulated (perfskel sim).
set -u
[ $# -ge 5 ] || { echo "usage: PERFSKEL=... JSON_FLAT=... $0 openmpi|mpich NP PROGRAM ARM ORDER [ARGS...]" >&2; exit 1; }
flavour=$1 np=$2 prog=$3 arm=$4 order=$5
shift 5
: "${PERFSKEL:?PERFSKEL must name the perfskel CLI}" "${JSON_FLAT:?JSON_FLAT must name json_flat}"
case $flavour in
openmpi) launcher=(mpirun.openmpi --allow-run-as-root --oversubscribe -np "$np") ;;
mpich) launcher=(mpirun.mpich -np "$np") ;;
*) echo "run_stack: unknown MPI $flavour" >&2; exit 1 ;;
esac
work=$(mktemp -d "${TMPDIR:-/tmp}/perfskel-stack.XXXXXX") || exit 1
name="$flavour np$np $(basename "$prog") $arm $order"
fail() {
    echo "FAIL [$name]: $*" >&2
    for f in "$work"/out "$work"/err "$work"/predict; do [ -s "$f" ] && { echo "--- $f:"; tail -n 30 "$f"; } >&2; done
    exit 1
}

T=$work/trace
case $order in
record-tune) cmd=("$PERFSKEL" record -o "$T" -- "$PERFSKEL" tune --force "$arm" -- "${launcher[@]}" "$prog" "$@") ;;
tune-record) cmd=("$PERFSKEL" tune --force "$arm" -- "$PERFSKEL" record -o "$T" -- "${launcher[@]}" "$prog" "$@") ;;
*) fail "ORDER is record-tune or tune-record, not $order" ;;
esac
PSK_TUNE_DEBUG=1 timeout -k 5 100 "${cmd[@]}" </dev/null >"$work/out" 2>"$work/err" ||
    fail "the job exited with status $?"
grep -q "the tuning library stacked)$\|, recorded$" "$work/err" || fail "perfskel did not say both libraries are loaded"
[ "$(od -An -tu2 -j8 -N2 "$T/rank-000000.psk" | tr -d ' ')" = 4 ] || fail "rank 0's file is not format version 4"
"$PERFSKEL" stats --json --no-fold "$T" >"$work/stats.json" || fail "perfskel stats failed"
"$JSON_FLAT" "$work/stats.json" >"$work/flat" || fail "json_flat failed"
"$PERFSKEL" dump "$T" >"$work/dump" || fail "perfskel dump failed"

ran=0 tp=0
case $(basename "$prog") in tune_*) tp=1 ;; esac
for ((r = 0; r < np; r++)); do
    [ $tp = 0 ] || grep -qx "tune_[a-z0-9]*: rank $r: 121 calls, 0 wrong" "$work/out" ||
        fail "rank $r did not say '121 calls, 0 wrong'"
    for cn in Alltoall:44 Bcast:22 Allreduce:22 Allgather:33; do
        coll=${cn%:*} n=${cn#*:}
        # (the library reports MPI_Alltoall always, the others if called)
        line=$(grep "^perfskel-tune: rank $r: MPI_$coll " "$work/err") ||
            { [ $tp = 0 ] && [ $coll != Alltoall ] && continue; fail "no MPI_$coll report from rank $r"; }
        [ $tp = 1 ] || n=$(sed -n 's/.* calls \([0-9]*\) fortran .*/\1/p' <<<"$line")
        got=$(sed -n "s/^ranks\.$r\.calls\.MPI_$coll=//p" "$work/flat")
        [ "$got" = "$n" ] || fail "rank $r: $got MPI_$coll calls in the trace, the program made $n"
        untouched=$(sed -n 's/.* unsupported \([0-9]*\) .*/\1/p' <<<"$line")
        # the library's counts per arm, native with the calls it passed on
        sed 's/.*| //' <<<"$line" | tr ' ' '\n' | paste - - |
            awk -v u="$untouched" '$1 == "native" { $2 += u } $2 > 0 { print $1 "=" $2 }' | sort >"$work/want"
        sed -n "s/^ranks\.$r\.arm_calls\.MPI_$coll\.//p" "$work/flat" | sort >"$work/got"
        cmp -s "$work/want" "$work/got" ||
            fail "rank $r MPI_$coll: the trace's arms $(tr '\n' ' ' <"$work/got")differ from the library's $(tr '\n' ' ' <"$work/want")"
        grep -q "^$arm=" "$work/got" && ran=1
    done
done
[ "$arm" = cycle ] || [ $ran = 1 ] || fail "no call ran with $arm"
# cycle: the arm changes from call to call (in the trace too)
[ "$arm" != cycle ] || [ "$(grep -c '^ranks\.0\.arm_calls\.MPI_Alltoall\.' "$work/flat")" -ge 3 ] ||
    fail "rank 0's MPI_Alltoall calls ran with fewer than 3 arms: $(grep '^ranks\.0\.arm_calls' "$work/flat" | tr '\n' ' ')"
[ "$arm" = cycle ] || grep -q " arm=$arm\$" "$work/dump" || fail "perfskel dump shows no arm=$arm"

if [ "$arm" = cycle ]; then
    # arms that change from call to call: merged, folded, a skeleton that runs
    timeout -k 5 300 "$PERFSKEL" predict "$T" -K 1 -q -- "${launcher[@]}" </dev/null >"$work/predict" 2>&1 ||
        fail "perfskel predict (skeleton built from the trace and run) failed"
    "$PERFSKEL" sim "$T" -q >"$work/sim" 2>&1 || fail "perfskel sim failed: $(tail -3 "$work/sim")"
fi
rm -rf "$work"
echo "ok [$name]"

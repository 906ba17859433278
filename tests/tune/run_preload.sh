#!/usr/bin/env bash
# run_preload.sh FLAVOUR NP PROGRAM FORTRAN
#
# Runs PROGRAM (tune_preload or tune_fortran: 44 MPI_Alltoall, 22 MPI_Bcast,
# 22 MPI_Allreduce and 33 MPI_Allgather calls a rank) on NP ranks under
# `$PERFSKEL tune --force cycle` (the library preloaded through the CLI,
# each call taking the next arm of its collective) with PSK_TUNE_DEBUG=2,
# and checks: the job succeeds and every rank says "121 calls, 0 wrong";
# every rank's report line of each collective says its calls reached the
# library, all of them through a Fortran entry point if FORTRAN is 1, none
# unsupported or fallen back, every arm taken (NP a power of two); every
# rank reports the same keys (communicator, call site as module+offset,
# collective, size class, calls): 8 on the world, one per call site there.
set -u
[ $# -eq 4 ] || { echo "usage: PERFSKEL=... $0 openmpi|mpich NP PROGRAM FORTRAN" >&2; exit 1; }
flavour=$1 np=$2 prog=$3 nfort=$4
: "${PERFSKEL:?PERFSKEL must name the perfskel CLI}"
case $flavour in
openmpi) launcher=(mpirun.openmpi --allow-run-as-root --oversubscribe -np "$np") ;;
mpich) launcher=(mpirun.mpich -np "$np") ;;
*) echo "run_preload: unknown MPI $flavour" >&2; exit 1 ;;
esac
work=$(mktemp -d "${TMPDIR:-/tmp}/perfskel-tune.XXXXXX") || exit 1
name="$flavour np$np $(basename "$prog")"
fail() {
    echo "FAIL [$name]: $*" >&2
    for f in "$work"/out "$work"/err; do [ -s "$f" ] && { echo "--- $f:"; tail -n 30 "$f"; } >&2; done
    exit 1
}

PSK_TUNE_DEBUG=2 timeout -k 5 100 "$PERFSKEL" tune --force cycle -- "${launcher[@]}" "$prog" \
    </dev/null >"$work/out" 2>"$work/err" || fail "the job exited with status $?"
for ((r = 0; r < np; r++)); do
    grep -qx "tune_[a-z]*: rank $r: 121 calls, 0 wrong" "$work/out" || fail "rank $r did not say '121 calls, 0 wrong'"
    for cn in Alltoall:44 Bcast:22 Allreduce:22 Allgather:33; do
        coll=${cn%:*} n=${cn#*:}
        line=$(grep "^perfskel-tune: rank $r: MPI_$coll " "$work/err") || fail "no MPI_$coll report from rank $r"
        case $line in
        *" calls $n fortran $((nfort ? n : 0)) unsupported 0 fallback 0 |"*) ;;
        *) fail "rank $r: $line" ;;
        esac
        # every arm of the collective: no count of 0 after the bar
        if [ $((np & (np - 1))) -eq 0 ] && grep -q ' 0\( \|$\)' <<<"${line#*|}"; then
            fail "rank $r did not take every arm: $line"
        fi
    done
    grep "^perfskel-tune: rank $r: key " "$work/err" | sed 's/^perfskel-tune: rank [0-9]*: //; s/:.*//' | sort >"$work/keys$r"
    [ -s "$work/keys$r" ] || fail "rank $r reported no key"
    cmp -s "$work/keys0" "$work/keys$r" || fail "rank $r's keys differ from rank 0's: $(diff "$work/keys0" "$work/keys$r" | head -4)"
done
nkeys=$(wc -l <"$work/keys0")
[ "$nkeys" -eq 8 ] || fail "rank 0 has $nkeys keys on the world communicator, not 8 (one per call site): $(cat "$work/keys0")"
grep -q "site $(basename "$prog")+0x" "$work/keys0" || fail "call sites not in $(basename "$prog"): $(cat "$work/keys0")"
rm -rf "$work"
echo "ok [$name]"

#!/usr/bin/env bash
# run_preload.sh FLAVOUR NP PROGRAM FORTRAN
#
# Runs PROGRAM (tune_preload or tune_fortran, 44 MPI_Alltoall calls a rank)
# on NP ranks under `$PERFSKEL tune --force cycle` (the library preloaded
# through the CLI, each call taking the next arm) with PSK_TUNE_DEBUG=2,
# and checks: the job succeeds and every rank says "44 calls, 0 wrong";
# every rank's report line says 44 calls reached the library, FORTRAN of
# them (0 or 44) through a Fortran entry point, none unsupported or fallen
# back, every arm taken (NP a power of two); every rank reports the same
# keys (communicator, call site as module+offset, size class, calls).
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
    grep -qx "tune_[a-z]*: rank $r: 44 calls, 0 wrong" "$work/out" || fail "rank $r did not say '44 calls, 0 wrong'"
    line=$(grep "^perfskel-tune: rank $r: MPI_Alltoall " "$work/err") || fail "no report from rank $r"
    case $line in
    *" calls 44 fortran $nfort unsupported 0 fallback 0 |"*) ;;
    *) fail "rank $r: $line" ;;
    esac
    if [ $((np & (np - 1))) -eq 0 ]; then
        for arm in native spread pair ring bruck pair_lb ring_lb pair_mb ring_mb pair_ob ring_ob; do
            case "$line " in *" $arm 0 "*) fail "rank $r never took $arm: $line" ;; esac
        done
    fi
    grep "^perfskel-tune: rank $r: key " "$work/err" | sed 's/^perfskel-tune: rank [0-9]*: //; s/:.*//' | sort >"$work/keys$r"
    [ -s "$work/keys$r" ] || fail "rank $r reported no key"
    cmp -s "$work/keys0" "$work/keys$r" || fail "rank $r's keys differ from rank 0's: $(diff "$work/keys0" "$work/keys$r" | head -4)"
done
nkeys=$(wc -l <"$work/keys0")
[ "$nkeys" -eq 3 ] || fail "rank 0 has $nkeys keys on the world communicator, not 3 (one per call site): $(cat "$work/keys0")"
grep -q "site $(basename "$prog")+0x" "$work/keys0" || fail "call sites not in $(basename "$prog"): $(cat "$work/keys0")"
rm -rf "$work"
echo "ok [$name]"

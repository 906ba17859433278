#!/bin/sh
# asan_preload.sh FLAVOUR OTF2PROG TUNEPROG CANARY MEMOPROG: the sanitizer build's
# recording and tuning libraries (-DPSK_SANITIZE=ON: ASan and UBSan)
# preloaded into real 2-rank jobs of programs that are not built with ASan
# (scripts/test.sh's sanitizer pass; ctest -L asan in that build), each job
# checked to exit 0 without a sanitizer report:
# 1. perfskel record --merge --zstd of OTF2PROG (tests/cli/otf2prog.c:
#    point-to-point, collectives with roots, an Iallreduce, a split
#    communicator; the merge and fold inside the job): its trace and merged
#    trace read by dump and stats;
# 2. perfskel record -- perfskel tune --force cycle --check --report of
#    TUNEPROG (tests/tune/tune_preload.c: every arm of the four collectives
#    in turn, results checked by the program), both libraries stacked;
# 3. perfskel tune --check (the learner) of MEMOPROG (tests/tune/memo_prog.c:
#    communicators and datatypes freed and made again, whose handles the
#    dispatcher's memo of calls must not take for the old ones; the
#    learning gate on, so that communicators are freed while its checks
#    are under way).
# Control: CANARY (asan_canary.c, a heap overflow in each rank's
# constructor) preloaded too must fail the job with ASan's report, so a
# rank that ASan does not watch cannot pass unseen.
# The ASan runtime the libraries link is put in LD_PRELOAD; perfskel record
# and tune put their library before what LD_PRELOAD holds, so ASan's
# check that its runtime comes first is off (verify_asan_link_order=0):
# neither library defines an allocator function, and the runtime is still
# loaded before the MPI libraries and libc, whose calls it intercepts.
# Leak checks are off in the jobs (the MPI libraries and launchers leak);
# dump and stats run with them.
set -u
[ $# -eq 5 ] || { echo "usage: PERFSKEL=... $0 openmpi|mpich OTF2PROG TUNEPROG CANARY MEMOPROG" >&2; exit 2; }
flavour=$1 prog=$2 tprog=$3 canary=$4 mprog=$5
: "${PERFSKEL:?PERFSKEL must name the perfskel of the sanitizer build}"
P=$PERFSKEL
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
case $flavour in
openmpi) MPIRUN="mpirun.openmpi --allow-run-as-root --oversubscribe" ;;
mpich) MPIRUN="mpirun.mpich" ;;
*) echo "asan_preload: unknown MPI $flavour" >&2; exit 2 ;;
esac
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/perfskel-asan.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT

# perfskel takes the libraries beside it: they must be the sanitizer build's
unset PERFSKEL_LIBDIR
dir=$(dirname "$P")
lib=$dir/libperfskel-record-$flavour.so tlib=$dir/libperfskel-tune-$flavour.so
rt=$(ldd "$lib" 2>/dev/null | awk '$1 ~ /^lib(asan|clang_rt[.]asan)/ { print $3 }')
if [ -z "$rt" ] || ! ldd "$tlib" 2>/dev/null | grep -q "$rt"; then
    echo "FAIL $lib or $tlib missing or not linked with ASan (build with -DPSK_SANITIZE=ON)"
    exit 1
fi
for p in "$prog" "$tprog" "$canary" "$mprog"; do
    [ -x "$p" ] || [ -f "$p" ] || { echo "FAIL $p not built"; exit 1; }
done

# job NAME PRELOAD COMMAND...: COMMAND with the ASan runtime (and PRELOAD)
# preloaded, its output in $T/NAME.out and .err; its exit status
job() {
    name=$1 extra=$2
    shift 2
    LD_PRELOAD="$rt${extra:+:$extra}" ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 \
        UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 timeout -k 5 120 "$@" \
        </dev/null >"$T/$name.out" 2>"$T/$name.err"
}
# clean NAME: no sanitizer report in the job's output
clean() {
    if grep -Eq "$SANITIZER" "$T/$1.out" "$T/$1.err"; then
        bad "$1: a sanitizer report"
        grep -E -A12 "$SANITIZER" "$T/$1.err" "$T/$1.out" | head -n 40
        return 1
    fi
}
# passed NAME STATUS: the job exited 0 with no sanitizer report
passed() {
    if [ "$2" -ne 0 ]; then
        bad "$1: exit $2"
        clean "$1" && tail -n 15 "$T/$1.err"
        return 1
    fi
    clean "$1"
}
# readable NAME DIR|MERGED: dump and stats (leak checks on) read the trace
# whole; a merged trace: dump, and dump --merged
readable() {
    if [ -d "$2" ]; then more="stats --json"; else more="dump --merged"; fi
    # shellcheck disable=SC2086 # more is a command and its option
    if "$P" dump "$2" >"$T/$1.dump" 2>"$T/$1.derr" && "$P" $more "$2" >"$T/$1.more" 2>>"$T/$1.derr"; then
        n=$(grep -vc '^#' "$T/$1.dump")
        [ "$n" -gt 0 ] && ok "$1: dump ($n events) and $more read it" || bad "$1: dump found no event"
    else
        bad "$1: dump or $more failed"
        head -n 20 "$T/$1.derr"
    fi
}
# ranks NAME: both ranks of the tune_preload job say all 121 calls right
ranks() {
    for r in 0 1; do
        grep -qx "tune_[a-z]*: rank $r: 121 calls, 0 wrong" "$T/$1.out" ||
            { bad "$1: rank $r did not say '121 calls, 0 wrong'"; cat "$T/$1.out"; return 1; }
    done
}

# ---- control: an overflow in the ranks fails the job, reported ----
# shellcheck disable=SC2086 # MPIRUN is a command and its options
job control "$canary" "$P" record -o "$T/ctl" -- $MPIRUN -np 2 "$prog"
st=$?
if [ "$st" -ne 0 ] && grep -q 'ERROR: AddressSanitizer: heap-buffer-overflow' "$T/control.err" &&
    grep -q 'psk_asan_canary' "$T/control.err"; then
    ok "control: a heap overflow in the ranks fails the job (exit $st) with ASan's report"
else
    bad "control: the canary's heap overflow went unseen (exit $st): ASan does not watch the ranks"
    tail -n 20 "$T/control.err"
fi

# ---- 1. the recorder ----
# shellcheck disable=SC2086
job record "" "$P" record --merge --zstd -o "$T/tr" -- $MPIRUN -np 2 "$prog"
if passed record $?; then
    grep -q "perfskel: 2 ranks, [0-9]* events recorded" "$T/record.err" &&
        ok "record --merge --zstd: 2 ranks recorded under ASan" ||
        bad "record: no '2 ranks, N events recorded' line: $(tail -n 3 "$T/record.err")"
    readable record "$T/tr"
    readable record.merged "$T/tr/merged.pskm"
fi

# ---- 2. the tuning library, the recorder stacked on it ----
# shellcheck disable=SC2086
job stack "" "$P" record -o "$T/st" -- "$P" tune --force cycle --debug --check --report "$T/report.json" -- \
    $MPIRUN -np 2 "$tprog"
if passed stack $? && ranks stack; then
    n=$(grep -c '^perfskel-tune: rank [01]: MPI_[A-Za-z]* calls' "$T/stack.err")
    [ "$n" -eq 8 ] && [ -s "$T/report.json" ] &&
        ok "record -- tune --force cycle: every arm, results right on both ranks, both libraries stacked under ASan" ||
        bad "stack: $n report lines of the four collectives on two ranks, not 8, or no --report"
    readable stack "$T/st"
fi

# ---- 3. the learner and its memo of calls ----
# shellcheck disable=SC2086
job memo "" "$P" tune --check -- $MPIRUN -np 2 "$mprog" 2000
if passed memo $?; then
    n=$(grep -c '^memo_prog: rank [01]: [0-9]* calls, 0 wrong$' "$T/memo.out")
    [ "$n" -eq 2 ] && ok "tune --check of memo_prog: handles freed and reused, results right on both ranks under ASan" ||
        bad "memo: $n of 2 ranks said '0 wrong': $(head -n 3 "$T/memo.out")"
fi

[ "$fails" -eq 0 ] && echo "all passed" && exit 0
echo "$fails failed"
exit 1

#!/bin/sh
# perfskel starts itself again, once, with glibc's malloc asking for
# transparent huge pages (programs/hugepages.c), seen with strace: the
# second start's environment adds glibc.malloc.hugetlb=1 and, but for
# advise, glibc.malloc.arena_max=1 to GLIBC_TUNABLES (the caller's
# tunables kept), none with PERFSKEL_HUGEPAGES=0, with a
# hugetlb tunable of the caller's or where the kernel gives no huge pages;
# the same output either way; the second start named as the first (not
# "exe"); and a program perfskel launches sees the
# environment perfskel was given, not its own.
# Needs PERFSKEL, GEN_TRACE and SRC (the source tree) in the environment.
set -u
P=${PERFSKEL:?} G=${GEN_TRACE:?} SRC=${SRC:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"

"$G" "$T/t" --ranks 4 --events 2000 --seed 5 >/dev/null 2>&1 || bad "gen_trace"
thp=1
grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null && thp=0
[ -r /sys/kernel/mm/transparent_hugepage/enabled ] || thp=0

# traced NAME ENV...: perfskel sim of the trace under strace, with ENV (as
# env(1) takes it); its execve calls (environments in full) into $T/NAME.st
traced() {
    name=$1
    shift
    env "$@" strace -f -v -s 4096 -e trace=execve,prctl -o "$T/$name.st" "$P" sim "$T/t" --folded --json -q \
        >"$T/$name.json" 2>"$T/$name.err" || bad "$name: sim failed: $(head -n 1 "$T/$name.err")"
}
starts() { grep -c 'execve(' "$T/$1.st"; }
again() { grep 'execve("/proc/self/exe"' "$T/$1.st"; }

traced plain -u GLIBC_TUNABLES -u PERFSKEL_HUGEPAGES
traced off -u GLIBC_TUNABLES PERFSKEL_HUGEPAGES=0
traced kept -u PERFSKEL_HUGEPAGES GLIBC_TUNABLES=glibc.malloc.arena_max=4
traced own -u PERFSKEL_HUGEPAGES GLIBC_TUNABLES=glibc.malloc.hugetlb=0
if [ $thp -eq 1 ]; then
    if [ "$(starts plain)" -eq 2 ] &&
        again plain | grep -q '"GLIBC_TUNABLES=glibc.malloc.hugetlb=1:glibc.malloc.arena_max=1"' &&
        again plain | grep -q '"sim", "[^"]*/t", "--folded", "--json", "-q"\]'; then
        ok "started again with glibc.malloc.hugetlb=1 and arena_max=1, the same arguments"
    else
        bad "not started again with huge pages"; cat "$T/plain.st"
    fi
    # named as it was started (ps, top and pgrep show the name), not "exe"
    pname=$(basename "$P" | cut -c 1-15)
    if grep -q "prctl(PR_SET_NAME, \"$pname\")" "$T/plain.st"; then
        ok "started again, named $pname"
    else
        bad "started again without its name $pname"; cat "$T/plain.st"
    fi
    if [ "$(starts kept)" -eq 2 ] &&
        again kept | grep -q '"GLIBC_TUNABLES=glibc.malloc.arena_max=4:glibc.malloc.hugetlb=1"'; then
        ok "the caller's tunables kept"
    else
        bad "the caller's tunables"; cat "$T/kept.st"
    fi
    env -u GLIBC_TUNABLES -u PERFSKEL_HUGEPAGES strace -f -v -s 4096 -e trace=execve -o "$T/adv.st" \
        "$P" advise "$SRC/examples/advise/jacobi.adv" --top 1 >"$T/adv.out" 2>&1 || bad "advise failed"
    if [ "$(starts adv)" -eq 2 ] && again adv | grep -q '"GLIBC_TUNABLES=glibc.malloc.hugetlb=1"'; then
        ok "advise: huge pages, each thread its arena"
    else
        bad "advise's second start"; cat "$T/adv.st"
    fi
else
    if [ "$(starts plain)" -eq 1 ]; then
        ok "the kernel gives no huge pages: started once"
    else
        bad "started again though the kernel gives no huge pages"; cat "$T/plain.st"
    fi
fi
if [ "$(starts off)" -eq 1 ] && [ "$(starts own)" -eq 1 ]; then
    ok "PERFSKEL_HUGEPAGES=0, or a hugetlb tunable of the caller's: started once"
else
    bad "started again with PERFSKEL_HUGEPAGES=0 or the caller's hugetlb"; cat "$T/off.st" "$T/own.st"
fi
if cmp -s "$T/plain.json" "$T/off.json" && cmp -s "$T/plain.json" "$T/kept.json" && grep -q '"predicted_seconds"' "$T/plain.json"; then
    ok "the same prediction either way"
else
    bad "predictions differ with and without huge pages"
fi

# what a launched program sees: the environment as given
mpirun_of openmpi
for given in unset glibc.malloc.arena_max=4; do
    if [ $given = unset ]; then set -- -u GLIBC_TUNABLES; else set -- GLIBC_TUNABLES=$given; fi
    rm -rf "$T/rec"
    env -u PERFSKEL_HUGEPAGES "$@" "$P" record -o "$T/rec" -- $MPIRUN -np 1 \
        sh -c 'echo "seen [${GLIBC_TUNABLES-unset}] [${PERFSKEL_GLIBC_TUNABLES_WAS-unset}]"' >"$T/out" 2>&1
    if grep -q "^seen \[$given\] \[unset\]$" "$T/out"; then
        ok "a launched program sees GLIBC_TUNABLES as given ($given)"
    else
        bad "a launched program's environment ($given)"; cat "$T/out"
    fi
done

[ $fails -eq 0 ] || { echo "hugepages.sh: $fails failed"; exit 1; }
echo "hugepages.sh: all passed"

#!/bin/sh
# merge_mpi.sh FLAVOUR: `mpirun -n N perfskel merge --mpi DIR` (N = 2, 3)
# writes the bytes of `perfskel merge DIR` on random LU-shaped traces
# (bench/gen_trace, random shapes from this run's seed) and on the recorded
# traces of tests/random/regress, with and without --keep-polls; a missing
# rank file fails on every process with one line naming it; --mpi outside
# mpirun is a usage error. Needs PERFSKEL, GEN_TRACE; REGRESS (optional).
set -u
F=${1:?flavour}
P=${PERFSKEL:?}
G=${GEN_TRACE:?}
R=${REGRESS:-}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
mpirun_of "$F"

same() { # same DIR OPTIONS...: merge --mpi over 2 and 3 processes == merge
    d=$1
    shift
    "$P" merge -q "$@" "$d" -o "$T/s.pskm" </dev/null 2>"$T/err" || { bad "$d $*: merge failed: $(head -1 "$T/err")"; return 1; }
    for n in 2 3; do
        if ! timeout 300 $MPIRUN -n $n "$P" merge --mpi -q "$@" "$d" -o "$T/p.pskm" </dev/null >"$T/out" 2>"$T/err"; then
            bad "$d $*: merge --mpi over $n processes failed: $(grep perfskel "$T/err" | head -1)"
            return 1
        fi
        cmp -s "$T/s.pskm" "$T/p.pskm" || { bad "$d $*: merge --mpi over $n processes: other bytes"; return 1; }
    done
}

seed=${MERGE_MPI_SEED:-$(date +%s)}
echo "seed $seed (MERGE_MPI_SEED=$seed to repeat)"
awk -v s="$seed" 'BEGIN { srand(s); for (i = 0; i < 4; i++)
    printf "%d %d %d %d %d\n", 1 + int(rand() * 30), 200 + int(rand() * 3000), 3 + int(rand() * 12), int(rand() * 1e6), i % 2 }' >"$T/shapes"
while read -r ranks events planes gseed pnull; do
    opt=""
    [ "$pnull" = 1 ] && opt=--proc-null
    rm -rf "$T/g"
    "$G" "$T/g" --ranks "$ranks" --events "$events" --planes "$planes" --seed "$gseed" $opt >/dev/null || bad gen_trace
    same "$T/g" && same "$T/g" --no-reorder && same "$T/g" --times summary &&
        ok "$F: random trace ($ranks ranks, $events events${opt:+, $opt}): same bytes over 2 and 3 processes (also --times summary)"
done <"$T/shapes"

if [ -n "$R" ] && [ -d "$R" ]; then
    for d in "$R"/*/trace; do
        same "$d" && same "$d" --keep-polls && ok "$F: $(basename "$(dirname "$d")"): same bytes over 2 and 3 processes"
    done
fi

# a missing rank: every process ends, exit 1, the file named on one line
rm -rf "$T/g" && "$G" "$T/g" --ranks 6 --events 2000 >/dev/null && rm "$T/g/rank-000004.psk"
timeout 300 $MPIRUN -n 3 "$P" merge --mpi "$T/g" -o "$T/g/out.pskm" >"$T/out" 2>"$T/err"
st=$?
if [ $st -ne 0 ] && [ $st -ne 124 ] && [ "$(grep -c '^perfskel: .*rank-000004.psk' "$T/err")" = 1 ] && [ ! -e "$T/g/out.pskm" ]; then
    ok "$F: a missing rank fails merge --mpi with one line naming it"
else
    bad "$F: missing rank: exit $st, stderr: $(head -c 300 "$T/err")"
fi
# outside mpirun
env -u OMPI_COMM_WORLD_SIZE -u PMI_SIZE -u PMI_RANK "$P" merge --mpi "$T/g" >"$T/out" 2>"$T/err"
[ $? -eq 2 ] && grep -q "mpirun" "$T/err" && ok "merge --mpi outside mpirun: a usage error" ||
    bad "merge --mpi outside mpirun: $(cat "$T/err")"

[ $fails -eq 0 ] && echo "all merge --mpi tests passed ($F)" || echo "$fails merge --mpi test(s) failed ($F)"
[ $fails -eq 0 ]

#!/bin/sh
# merge_injob.sh [BUILD_DIR] [P...]: the merge inside the job (`perfskel
# record --merge`, README "Merging in the job") of tests/mpi/stencil.c
# (1-D halo exchange, 2 Irecv + 2 Isend + Waitall an iteration, an
# Allreduce every 5) with 2,000 iterations and of bench/programs/vcycle.c
# (multigrid V-cycles, 64 x 64 cells a rank, 50 cycles), under Open MPI,
# oversubscribed on this machine (default P: 4 16 64). PROGRAMS="stencil"
# or "vcycle" for one of them. Per program and P: events recorded, bytes of
# the rank files, bytes of merged.pskm, the seconds rank 0 spent reading
# its file and gathering the ranks' key sequences up the tree, then
# merging (pulling the events over MPI; its own stderr line), the same job
# recorded without --merge (wall seconds of both), and the largest
# process's peak memory (GNU time's maximum resident set of the launcher's
# children), with --merge and without; then the same files merged with --times summary (the summarised
# merged trace: its bytes) and `sim --folded` of both merged traces (the
# summary's prediction against the lossless one's, on a machine file made
# by calibrate here). The markdown rows go to stdout.
set -eu
B=$(cd "${1:-build}" && pwd)
[ $# -gt 0 ] && shift
PS=${*:-4 16 64}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
H=$(cd "$(dirname "$0")/.." && pwd)
mpicc.openmpi -O1 -DNITER=2000 -I "$H/tests/mpi" -o "$W/stencil" "$H/tests/mpi/stencil.c"
mpicc.openmpi -O2 -o "$W/vcycle" "$H/bench/programs/vcycle.c" -lm
"$B/perfskel" calibrate -o "$W/machine.par" -- mpirun.openmpi --allow-run-as-root -np 2 >/dev/null 2>&1
pred() { "$B/perfskel" sim "$1" --folded --machine "$W/machine.par" --json 2>/dev/null |
    sed -n 's/.*"predicted_seconds": *\([0-9.e+-]*\).*/\1/p'; }
echo "| program | P | events | rank files | merged.pskm | gathering | merging | job with --merge | job without | peak memory | peak without | --times summary | sim: summary vs all |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for prog in ${PROGRAMS:-stencil vcycle}; do
for P in $PS; do
    args=""
    [ "$prog" = vcycle ] && args="64 50"
    run="mpirun.openmpi --allow-run-as-root --oversubscribe -np $P $W/$prog $args"
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    /usr/bin/time -f "%M" -o "$W/mem" "$B/perfskel" record --merge -o "$W/t" -- $run >/dev/null 2>"$W/err"
    t1=$(date +%s.%N)
    # shellcheck disable=SC2086
    /usr/bin/time -f "%M" -o "$W/mem0" "$B/perfskel" record -o "$W/u" -- $run >/dev/null 2>/dev/null
    t2=$(date +%s.%N)
    line=$(grep "merged $P ranks in the job" "$W/err")
    gather=$(echo "$line" | sed 's/.*(\([0-9.]*\) s reading and gathering, \([0-9.]*\) s merging).*/\1/')
    merge=$(echo "$line" | sed 's/.*(\([0-9.]*\) s reading and gathering, \([0-9.]*\) s merging).*/\2/')
    events=$(sed -n 's/.* ranks, \([0-9]*\) events recorded.*/\1/p' "$W/err")
    rbytes=$(cat "$W"/t/rank-*.psk | wc -c)
    mbytes=$(wc -c <"$W/t/merged.pskm")
    "$B/perfskel" merge "$W/t" --times summary -q -o "$W/sum.pskm"
    sbytes=$(wc -c <"$W/sum.pskm")
    pa=$(pred "$W/t/merged.pskm") pm=$(pred "$W/sum.pskm")
    dsim=$(awk -v a="$pa" -v m="$pm" 'BEGIN { if (a > 0 && m > 0) printf "%+.1f %%", 100 * (m - a) / a; else print "-" }')
    echo "| $prog | $P | $events | $((rbytes / 1024)) KiB | $((mbytes / 1024)) KiB | $gather s | $merge s |" \
        "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s |" \
        "$(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.2f", b - a }') s | $(($(cat "$W/mem") / 1024)) MB | $(($(cat "$W/mem0") / 1024)) MB |" \
        "$((sbytes / 1024)) KiB | $dsim |"
    rm -rf "$W/t" "$W/u"
done
done

#!/bin/sh
# sim_turns.sh [BUILD_DIR]: how sim prices each kind of message where ranks
# share cores and wait busily (docs/simulation.md, "Time-sharing"). Builds
# bench/one_op.c with MPICH, records one operation repeated (a ring of
# Isend/Irecv, MPI_Alltoall, MPI_Bcast, MPI_Ibcast, at sizes on both sides
# of MPICH's eager threshold) at NP ranks (default 4) on this machine, each
# rank pinned with taskset to CPU rank mod the CPUs (the placement sim
# assumes) and run in a scheduling group of its own at nice -20 (as root),
# then prints per case the recorded time a repetition (MPI_Init to
# MPI_Finalize, slowest rank, over N) and sim's, and sim's error; with
# BEFORE=PERFSKEL that binary's too. BUILD_DIR defaults to ./build.
# Environment: NP, CASES ("OP N BYTES;..."), BEFORE.
set -eu
B=$(cd "${1:-build}" && pwd)
P=$B/perfskel
[ -x "$P" ] || { echo "sim_turns.sh: no $P (build first)" >&2; exit 2; }
command -v mpicc.mpich >/dev/null || { echo "sim_turns.sh: mpicc.mpich not found" >&2; exit 2; }
S=$(cd "$(dirname "$0")" && pwd)
NP=${NP:-4}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
mpicc.mpich -std=c11 -O2 -Wall -Wextra -o "$W/one_op" "$S/one_op.c"
ncpu=$(nproc)
printf '#!/bin/sh\necho -20 >/proc/self/autogroup 2>/dev/null\nexec nice -n -20 taskset -c $(( ${PMI_RANK:-0} %% %s )) "$@"\n' "$ncpu" >"$W/pin.sh"
chmod +x "$W/pin.sh"
CASES=${CASES:-"ring 200 4800;ring 200 65536;alltoall 100 1024;alltoall 50 65536;bcast 200 16;bcast 100 32768;ibcast 100 32768"}
. "$S/cases.sh"
pred() { "$1" sim "$2" --json -q 2>/dev/null | sed -n 's/.*"predicted_seconds": *\([0-9.e+-]*\).*/\1/p' | head -n 1; }
echo "| operation | N | recorded (ms a repetition) | sim | error |${BEFORE:+ sim before | error before |}"
echo "|---|---|---|---|---|${BEFORE:+---|---|}"
echo "$CASES" | tr ';' '\n' | while read -r op n bytes; do
    [ -n "$op" ] || continue
    rm -rf "$W/t"
    setsid sh "$W/pin.sh" "$P" record --mpi mpich -o "$W/t" -- mpirun.mpich -np "$NP" "$W/pin.sh" "$W/one_op" "$op" "$n" "$bytes" \
        </dev/null >/dev/null 2>&1 || { echo "sim_turns: recording $op $n $bytes failed" >&2; continue; }
    rec=$(recorded_wall "$B" "$W/t")
    line="| $op $bytes B | $n"
    for b in "$P" ${BEFORE:+"$BEFORE"}; do
        p=$(pred "$b" "$W/t")
        if [ "$b" = "$P" ]; then line="$line | $(awk -v a="$rec" -v n="$n" 'BEGIN { printf "%.2f", 1e3 * a / n }')"; fi
        line="$line | $(awk -v a="${p:-0}" -v n="$n" 'BEGIN { printf "%.2f", 1e3 * a / n }') | $(awk -v a="$rec" -v b="${p:-0}" 'BEGIN { if (a > 0 && b > 0) printf "%+.1f %%", 100 * (b / a - 1); else printf "-" }')"
    done
    echo "$line |"
done
echo
echo "$(nproc) cores, $NP ranks pinned rank mod $ncpu; $(uptime | sed 's/.*load/load/'); $(date -u +%Y-%m-%d)"

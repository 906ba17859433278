#!/bin/sh
# smpi_compare.sh [BUILD_DIR]: perfskel sim side by side with SimGrid SMPI's
# trace replay (Debian's libsimgrid-dev, 3.32) on the same traces. This
# machine is calibrated once (perfskel calibrate); each test program of
# bench/cases.sh that talks on MPI_COMM_WORLD only (C, the same sizes;
# subcomm, on other communicators, is left out) is recorded with 2 ranks,
# simulated by perfskel sim with the machine file, exported (perfskel
# export --smpi, a platform with the same latency and bandwidth, 1 Gflop/s
# hosts, compute as 1 flop per ns) and replayed by smpirun -replay. Then
# an LU-shaped trace of 16 ranks and about a million events
# (bench/gen_trace) for speed. Wall time of each tool, the best of 3.
set -eu
B=$(cd "${1:-build}" && pwd)
SRC=$(cd "$(dirname "$0")/../tests/mpi" && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
. "$(dirname "$0")/cases.sh"
command -v smpirun >/dev/null || { echo "smpirun not found: apt-get install libsimgrid-dev" >&2; exit 1; }
"$B/perfskel" calibrate -o "$W/m.par" -- mpirun.openmpi -np 2 >&2
best() { # best wall of 3 runs of "$@", stdout of the last kept in $W/last
    b=""
    for i in 1 2 3; do
        s=$(date +%s.%N)
        "$@" </dev/null >"$W/last" 2>&1 || true
        e=$(date +%s.%N)
        t=$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f", e - s }')
        if [ -z "$b" ] || awk -v a="$t" -v c="$b" 'BEGIN { exit !(a < c) }'; then b=$t; fi
    done
    echo "$b"
}
row() { # row NAME TRACE [RECORDED_WALL]
    if ! "$B/perfskel" export --smpi "$2" -o "$W/smpi" --machine "$W/m.par" >/dev/null 2>"$W/err"; then
        echo "| $1 | ${3:--} | not exported: $(sed 's/^perfskel: [^:]*: //' "$W/err") | | | | |"
        rm -rf "$W/smpi"
        return 0
    fi
    ts=$(best "$B/perfskel" sim "$2" --machine "$W/m.par" --json -q)
    ps=$(awk -F: '/"predicted_seconds"/ { gsub(/[ ,]/, "", $2); print $2; exit }' "$W/last")
    ev=$(awk -F: '/"events"/ { gsub(/[ ,]/, "", $2); print $2; exit }' "$W/last")
    P=$(wc -l <"$W/smpi/hostfile")
    tg=$(cd "$W/smpi" && best smpirun -np "$P" -platform platform.xml -hostfile hostfile -replay traces.txt \
        --cfg=smpi/host-speed:1Gf)
    pg=$(sed -n 's/.*Simulation time \([0-9.e+-]*\).*/\1/p' "$W/last" | tail -1)
    printf '| %s | %s | %.4f | %s | %s | %s | %s |\n' "$1" "$(printf '%.4f' "${3:-0}")" "$ps" "${pg:-failed}" "$ev" "$ts" "$tg"
    rm -rf "$W/smpi"
}
echo "| trace | recorded (s) | perfskel sim (s) | SMPI replay (s) | events | perfskel wall (s) | SMPI wall (s) |"
echo "|---|---|---|---|---|---|---|"
echo "$CASELIST" | while read -r prog mac n work; do
    [ "$prog" = subcomm ] && continue # talks on other communicators: not exported
    build_case "$prog" "$mac" "$n" "$work" c openmpi "$W/prog"
    rm -rf "$W/t"
    "$B/perfskel" record -o "$W/t" -- mpirun.openmpi -np 2 "$W/prog" </dev/null >/dev/null 2>&1
    row "$prog (C, 2 ranks)" "$W/t" "$(recorded_wall "$B" "$W/t")"
done
rm -rf "$W/t"
"$B/gen_trace" "$W/t" --ranks 16 --events 65000 >/dev/null
row "LU-shaped, 16 ranks (gen_trace)" "$W/t"

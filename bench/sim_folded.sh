#!/bin/sh
# sim_folded.sh [BUILD_DIR]: perfskel sim from the folded trace against the
# replay of the whole trace. Calibrates this machine once (2 ranks), then
# records each C test program of bench/cases.sh (their benchmark sizes) and
# the bundled heat example with 2 ranks, once each, and simulates each
# recording with that machine file three ways: the whole trace, the folded
# trace replaying every iteration (--no-skip), and the folded trace
# skipping the iterations that repeat. Prints, per program: the events, the
# recorded run (slowest rank, MPI_Init exit to MPI_Finalize entry), the
# three predictions, how far the folded one is from the whole trace's and
# from the recording, the events the folded replay replayed and the
# iterations it skipped, and the times: the whole replay, merging and
# folding, building the folded program (one pass over the merged events),
# and the folded replay itself (best of 3 each).
set -eu
B=$(cd "${1:-build}" && pwd)
SRC=$(cd "$(dirname "$0")/../tests/mpi" && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
RUN=${RUN:-mpirun.openmpi -np 2}
. "$(dirname "$0")/cases.sh"

"$B/perfskel" calibrate -o "$W/machine.par" -- $RUN >&2

best() { sort -n | head -n 1; }
# sims NAME: the three simulations of the trace in $W/t, one table row
sims() {
    rec=$(recorded_wall "$B" "$W/t")
    : >"$W/te"; : >"$W/tf"; : >"$W/tm"; : >"$W/tb"
    for i in 1 2 3; do
        "$B/perfskel" sim "$W/t" --machine "$W/machine.par" --json >"$W/e.json" 2>"$W/e.err"
        sed -n 's/.* in \([0-9.]*\) s (.*/\1/p' "$W/e.err" >>"$W/te"
        "$B/perfskel" sim "$W/t" --machine "$W/machine.par" --folded --json >"$W/f.json" 2>"$W/f.err"
        sed -n 's/^perfskel: merged and folded .* in \([0-9.]*\) s$/\1/p' "$W/f.err" >>"$W/tm"
        sed -n 's/^perfskel: built the folded program in \([0-9.]*\) s;.*/\1/p' "$W/f.err" >>"$W/tb"
        sed -n 's/^perfskel: built .* in \([0-9.]*\) s$/\1/p' "$W/f.err" >>"$W/tf"
    done
    "$B/perfskel" sim "$W/t" --machine "$W/machine.par" --folded --no-skip --json -q >"$W/n.json"
    e=$(num predicted_seconds "$W/e.json")
    f=$(num predicted_seconds "$W/f.json")
    n=$(num predicted_seconds "$W/n.json")
    awk -v name="$1" -v ev="$(num events "$W/e.json")" -v rec="$rec" -v e="$e" -v f="$f" -v n="$n" \
        -v rep="$(num events_replayed "$W/f.json")" -v sk="$(num iterations_skipped "$W/f.json")" \
        -v te="$(best <"$W/te")" -v tm="$(best <"$W/tm")" -v tb="$(best <"$W/tb")" -v tf="$(best <"$W/tf")" 'BEGIN {
        printf "| %s | %d | %.4f | %.4f | %.4f | %.4f | %+.2f %% | %+.2f %% | %.1e | %d | %d | %.4f | %.4f | %.4f | %.4f |\n",
            name, ev, rec, e, n, f, 100 * (f - e) / e, 100 * (f - rec) / rec, (n - f) / n, rep, sk, te, tm, tb, tf }'
}

echo "| program | events | recorded (s) | whole trace (s) | folded, every iteration (s) | folded, skipping (s) | folded vs whole | folded vs recorded | skip vs every, relative | events replayed | iterations skipped | whole replay (s) | merge + fold (s) | folded program (s) | folded replay (s) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
echo "$CASELIST" | while read -r prog mac n work; do
    [ -n "${CASES:-}" ] && case " $CASES " in *" $prog "*) ;; *) continue ;; esac
    build_case "$prog" "$mac" "$n" "$work" c openmpi "$W/$prog"
    rm -rf "$W/t"
    "$B/perfskel" record -o "$W/t" -- $RUN "$W/$prog" </dev/null >/dev/null 2>&1
    sims "$prog"
done
for steps in 2000 20000; do
    rm -rf "$W/t"
    "$B/perfskel" record -o "$W/t" -- $RUN "$B/examples/heat" 128 "$steps" </dev/null >/dev/null 2>&1
    sims "heat 128 x $steps"
done

#!/bin/sh
# sim_scale.sh [BUILD_DIR] [RANKS...]: perfskel sim at many ranks
# (docs/benchmarks.md, Many ranks).
# For each rank count (default 1024 4096 16384 65536): an LU-shaped trace of
# bench/gen_trace with 2,000 events a rank, merged without reordering (its
# time and peak memory apart), then simulated from the merged file with
# --folded and, up to WHOLE_MAX ranks (default 16384), from the trace
# directory (the whole trace). GNU time's wall and user seconds and peak
# memory, one run each; the replay's own count of its per-rank state
# (--json's replay_memory); and whether both predictions are the same.
# Needs /usr/bin/time. gen_trace writes one rank file at a time and the
# merge and the whole-trace replay cap the rank files they hold open, so
# the open-file limit does not bound the ranks. SCRATCH: where the traces
# go (default: a temporary directory; they take about 7.5 KB per rank).
set -u
B=$(cd "${1:-build}" && pwd)
[ $# -gt 0 ] && shift
RANKS=${*:-1024 4096 16384 65536}
WHOLE_MAX=${WHOLE_MAX:-16384}
EVENTS=${EVENTS:-2000}
W=$(mktemp -d "${SCRATCH:-${TMPDIR:-/tmp}}/sim_scale.XXXXXX")
trap 'rm -rf "$W"' EXIT

# timed NAME cmd...: runs it under GNU time; "wall s, user s, peak MB" into $W/NAME.t
timed() {
    name=$1
    shift
    /usr/bin/time -f "%e %U %M" -o "$W/$name.t" "$@" >"$W/$name.out" 2>"$W/$name.err"
    st=$?
    [ $st -eq 0 ] || { echo "($name failed: $(grep -v '^perfskel merge: [0-9]' "$W/$name.err" | tail -n 1))" >&2; }
    return $st
}
fmt() { awk '{ printf "%.2f s (user %.2f s), %.0f MB", $1, $2, $3 / 1024 }' "$W/$1.t"; }
num() { awk -F: -v k="\"$1\"" '$1 ~ k { gsub(/[ ,}]/, "", $2); print $2; exit }' "$2"; }
# field KEY FILE: a number inside the replay_memory object
field() { sed -n "s/.*\"$1\": \([0-9.]*\).*/\1/p" "$2" | head -n 1; }

echo "| ranks | events | merge | merged.pskm | sim --folded | folded state / rank | sim (whole trace) | same prediction |"
echo "|---|---|---|---|---|---|---|---|"
for P in $RANKS; do
    rm -rf "$W/t"
    timed gen "$B/gen_trace" "$W/t" --ranks "$P" --events "$EVENTS" || continue
    timed merge "$B/perfskel" merge "$W/t" --no-reorder || continue
    size=$(du -m "$W/t/merged.pskm" | cut -f1)
    timed fold "$B/perfskel" sim "$W/t/merged.pskm" --folded --json -q || continue
    f=$(num predicted_seconds "$W/fold.out")
    ev=$(num events "$W/fold.out")
    per=$(field state_bytes_per_rank "$W/fold.out")
    prog=$(field program_bytes "$W/fold.out")
    whole="–" same="–"
    if [ "$P" -le "$WHOLE_MAX" ] && timed whole "$B/perfskel" sim "$W/t" --json -q; then
        whole=$(fmt whole)
        e=$(num predicted_seconds "$W/whole.out")
        [ "$e" = "$f" ] && same="yes ($f s)" || same="NO: $f s folded, $e s whole"
    fi
    echo "| $P | $ev | $(fmt merge) | $size MB | $(fmt fold) | $(awk -v b="$per" -v p="$prog" -v n="$P" 'BEGIN { printf "%.1f KB (+ program %.1f KB)", b / 1024, p / 1024 / n }') | $whole | $same |"
    rm -rf "$W/t"
done

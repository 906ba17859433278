#!/bin/sh
# sim_scale.sh [BUILD_DIR] [RANKS...]: perfskel sim --folded at many ranks
# (docs/benchmarks.md, Many ranks), on traces of bench/gen_trace of several
# shapes (SHAPES, default all of them):
#   lu        LU-shaped, 2,000 events a rank (long ranks), boundary ranks
#             skipping the calls they have no neighbour for
#   lu_short  LU-shaped, 200 events a rank (short ranks: loops of 2 and 5
#             iterations), 3 planes, MPI_PROC_NULL at the boundaries
#   halo3d    a 3-D neighbour exchange (6 Irecv, 6 Isend, 12 Wait) with
#             MPI_PROC_NULL at the boundaries, 2,000 events a rank, then
#             an all-to-all phase (50 MPI_Alltoall of 64 B a peer)
# For each shape and rank count (default 1024 4096 16384 65536; 64 gives
# the small end of the per-event cost): the merge without reordering, then
# sim --folded from the merged file and from the trace directory (which
# merges and folds in memory): GNU time's wall and user seconds and peak
# memory, one run each; the replay's own time per event (the folded
# program's building, with the call floors' first pass, and the replay:
# what it says it took, over the trace's events), the
# events it replayed and the loop iterations it skipped; and whether the
# two predictions are the same. Up to WHOLE_MAX ranks (default 4096) also
# sim of the whole trace (no folding) and whether it predicts the same
# (when nothing was skipped; else its difference).
# Needs /usr/bin/time. SCRATCH: where the traces go (default: a temporary
# directory; up to 80 MB a million events).
set -u
B=$(cd "${1:-build}" && pwd)
[ $# -gt 0 ] && shift
RANKS=${*:-1024 4096 16384 65536}
SHAPES=${SHAPES:-lu lu_short halo3d}
WHOLE_MAX=${WHOLE_MAX:-4096}
W=$(mktemp -d "${SCRATCH:-${TMPDIR:-/tmp}}/sim_scale.XXXXXX")
trap 'rm -rf "$W"' EXIT

# timed NAME cmd...: runs it under GNU time; "wall s, user s, peak MB" into $W/NAME.t
timed() {
    name=$1
    shift
    /usr/bin/time -f "%e %U %M" -o "$W/$name.t" "$@" >"$W/$name.out" 2>"$W/$name.err"
    st=$?
    [ $st -eq 0 ] || { echo "($name failed: $(tr '\r' '\n' <"$W/$name.err" | grep -v '[0-9] %' | tail -n 1))" >&2; }
    return $st
}
fmt() { awk '{ printf "%.1f s (user %.1f s), %.0f MB", $1, $2, $3 / 1024 }' "$W/$1.t"; }
num() { awk -F: -v k="\"$1\"" '$1 ~ k { gsub(/[ ,}]/, "", $2); print $2; exit }' "$2"; }
# the replay's seconds: "built the folded program in B s; simulated N
# events (...) in T s", B + T
simsec() {
    tr '\r' '\n' <"$W/$1.err" |
        sed -n 's/.*built the folded program in \([0-9.]*\) s; simulated [0-9]* events.* in \([0-9.]*\) s$/\1 \2/p' |
        tail -n 1 | awk '{ print $1 + $2 }'
}

opts() {
    case $1 in
    lu) echo "--events 2000" ;;
    lu_short) echo "--events 200 --planes 3 --proc-null" ;;
    halo3d) echo "--events 2000 --shape halo3d --proc-null --alltoall 50" ;;
    *) echo "sim_scale.sh: unknown shape $1 (lu, lu_short, halo3d)" >&2; exit 2 ;;
    esac
}

echo "| shape | ranks | events | merge | sim merged --folded | replayed, skipped | us an event | sim DIR --folded | same | whole trace |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for S in $SHAPES; do
    o=$(opts "$S") || exit 2
    for P in $RANKS; do
        rm -rf "$W/t"
        # shellcheck disable=SC2086 # the shape's options are words
        timed gen "$B/gen_trace" "$W/t" --ranks "$P" $o || continue
        timed merge "$B/perfskel" merge "$W/t" --no-reorder -o "$W/m.pskm" || continue
        timed fm "$B/perfskel" sim "$W/m.pskm" --folded --json || continue
        timed fd "$B/perfskel" sim "$W/t" --folded --json || continue
        ev=$(num events "$W/fm.out")
        rep=$(num events_replayed "$W/fm.out")
        skip=$(num iterations_skipped "$W/fm.out")
        f=$(num predicted_seconds "$W/fm.out")
        d=$(num predicted_seconds "$W/fd.out")
        per=$(awk -v t="$(simsec fm)" -v n="$ev" 'BEGIN { printf "%.2f", (n > 0 ? 1e6 * t / n : 0) }')
        [ "$f" = "$d" ] && same=yes || same="NO: $d s"
        whole="–"
        if [ "$P" -le "$WHOLE_MAX" ] && timed whole "$B/perfskel" sim "$W/t" --json -q; then
            e=$(num predicted_seconds "$W/whole.out")
            whole="$(fmt whole), $(awk -v a="$f" -v b="$e" 'BEGIN { if (a == b) print "the same"; else printf "folded %+.3f %%", 100 * (a - b) / b }')"
        fi
        echo "| $S | $P | $ev | $(fmt merge) | $(fmt fm) | $rep, $skip | $per | $(fmt fd) | $same ($f s) | $whole |"
        rm -rf "$W/t" "$W/m.pskm"
    done
done

#!/bin/sh
# CLI test of perfskel sim --folded's scaling in ranks (docs/simulation.md,
# "Simulating the folded trace"), without
# timing anything: generated LU-shaped and 3-D halo traces (bench/gen_trace)
# at P and 4P ranks, for a few random seeds and shapes. The replay's own count of its
# state (--json's replay_memory) must grow at most linearly: its bytes per
# rank at 4P within 25 % of those at P, the folded program's bytes at most
# 5 times, its snapshots per rank no more than at P, and every tree event
# read through a pattern at both sizes (none expanded per rank), the ranks
# that are its exceptions (boundary ranks passing MPI_PROC_NULL) a share
# of the ranks that does not grow. And the
# folded replay of every iteration predicts exactly what the whole trace's
# replay does, to the last printed digit. Needs PERFSKEL and GEN_TRACE.
set -u
P=${PERFSKEL:?}
G=${GEN_TRACE:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"

num() { awk -F: -v k="\"$1\"" '$1 ~ k { gsub(/[ ,}]/, "", $2); print $2; exit }' "$2"; }
field() { sed -n "s/.*\"$1\": \([0-9.]*\).*/\1/p" "$2" | head -n 1; }

# run NAME NRANKS gen_trace-options...: merged trace, folded and whole replays
run() {
    name=$1 n=$2
    shift 2
    "$G" "$T/$name" --ranks "$n" "$@" >/dev/null 2>"$T/err" || { bad "$name: gen_trace failed"; cat "$T/err"; return 1; }
    "$P" merge "$T/$name" --no-reorder >/dev/null 2>"$T/err" || { bad "$name: merge failed"; cat "$T/err"; return 1; }
    "$P" sim "$T/$name/merged.pskm" --folded --json -q >"$T/$name.f" 2>"$T/err" &&
        "$P" sim "$T/$name/merged.pskm" --folded --no-skip --json -q >"$T/$name.n" 2>>"$T/err" &&
        "$P" sim "$T/$name" --json -q >"$T/$name.w" 2>>"$T/err" || { bad "$name: sim failed"; cat "$T/err"; return 1; }
    rm -rf "${T:?}/$name"
    e=$(num predicted_seconds "$T/$name.w") f=$(num predicted_seconds "$T/$name.n")
    [ -n "$e" ] && [ "$e" = "$f" ] && ok "$name: folded replay of every iteration predicts the whole trace's $e s" ||
        bad "$name: folded (every iteration) $f s, whole trace $e s"
    if [ "$(num iterations_skipped "$T/$name.f")" = 0 ]; then
        f=$(num predicted_seconds "$T/$name.f")
        [ "$e" = "$f" ] && ok "$name: nothing skipped, folded predicts $e s too" || bad "$name: folded $f s, whole $e s"
    fi
}

# scale NAME NRANKS gen_trace-options...: NAME at NRANKS and 4 x NRANKS
scale() {
    sname=$1 sn=$2
    shift 2
    run "$sname.1" "$sn" "$@" || return
    run "$sname.4" $((4 * sn)) "$@" || return
    a=$T/$sname.1.f b=$T/$sname.4.f
    awk -v x="$(field state_bytes_per_rank "$a")" -v y="$(field state_bytes_per_rank "$b")" 'BEGIN { exit !(x > 0 && y <= 1.25 * x) }' &&
        ok "$sname: replay state per rank $(field state_bytes_per_rank "$a") B at $sn ranks, $(field state_bytes_per_rank "$b") B at $((4 * sn))" ||
        bad "$sname: replay state per rank $(field state_bytes_per_rank "$a") B at $sn ranks, $(field state_bytes_per_rank "$b") B at $((4 * sn)) (more than 25 % more)"
    awk -v x="$(field program_bytes "$a")" -v y="$(field program_bytes "$b")" 'BEGIN { exit !(x > 0 && y <= 5 * x) }' &&
        ok "$sname: folded program $(field program_bytes "$a") B, $(field program_bytes "$b") B at 4x the ranks" ||
        bad "$sname: folded program $(field program_bytes "$a") B, $(field program_bytes "$b") B at 4x the ranks (more than 5x)"
    awk -v x="$(field snapshots "$a")" -v y="$(field snapshots "$b")" -v n="$sn" 'BEGIN { exit !(x != "" && y != "" && y / (4 * n) <= x / n + 1e-9) }' &&
        ok "$sname: skip snapshots per rank do not grow ($(field snapshots "$a"), $(field snapshots "$b"))" ||
        bad "$sname: skip snapshots per rank grow: $(field snapshots "$a") at $sn ranks, $(field snapshots "$b") at $((4 * sn))"
    pa=$(field pattern_events "$a") pb=$(field pattern_events "$b")
    ta=$(field tree_events "$a") tb=$(field tree_events "$b")
    [ -n "$pa" ] && [ "$pa" -gt 0 ] && [ "$pa" = "$ta" ] && [ "$pb" = "$tb" ] &&
        ok "$sname: every tree event read through a pattern at both sizes ($pa)" ||
        bad "$sname: tree events read through patterns: $pa of $ta at $sn ranks, $pb of $tb at $((4 * sn))"
    # the exceptions (boundary ranks) a smaller share of the ranks on the larger grid
    xa=$(field pattern_exceptions "$a") xb=$(field pattern_exceptions "$b")
    awk -v x="$xa" -v y="$xb" -v n="$sn" 'BEGIN { exit !(x != "" && y != "" && y / (4 * n) <= x / n) }' &&
        ok "$sname: ranks reading their own record: $xa at $sn ranks, $xb at $((4 * sn))" ||
        bad "$sname: ranks reading their own record: $xa at $sn ranks, $xb at $((4 * sn)) (a larger share)"
}

# the LU shape at a few sizes, seeds and plane counts, with and without
# MPI_PROC_NULL at the boundaries (seeds from the clock: the random cases
# differ from run to run; the seed is printed)
seed=${SEED:-$(date +%s)}
echo "seed $seed"
scale lu 16 --events 2000 --planes 8 --seed "$seed"
scale lu_null 36 --events 1500 --planes 6 --seed $((seed + 1)) --proc-null
scale lu_long 16 --events 6000 --planes 5 --seed $((seed + 2))
# a 3-D neighbour exchange (MPI_PROC_NULL at the faces) and an all-to-all
# phase: no wavefront, every rank in the same iteration, so that its main
# loop (over 21 iterations of 5 exchanges and an Allreduce) is skipped at
# both sizes, the prediction within 1 % of the whole trace's
scale halo3d 16 --events 15000 --shape halo3d --proc-null --alltoall 30 --seed $((seed + 3))
for n in 1 4; do
    k=$(num iterations_skipped "$T/halo3d.$n.f") f=$(num predicted_seconds "$T/halo3d.$n.f")
    e=$(num predicted_seconds "$T/halo3d.$n.w")
    [ -n "$k" ] && [ "$k" -gt 0 ] && awk -v a="$f" -v b="$e" 'BEGIN { d = (a - b) / b; exit !(d < 0.01 && d > -0.01) }' &&
        ok "halo3d.$n: $k iterations skipped, $f s against the whole trace's $e s" ||
        bad "halo3d.$n: ${k:-no} iterations skipped, $f s against the whole trace's $e s (more than 1 % apart, or none skipped)"
done
i=0
while [ $i -lt 4 ]; do
    s=$((seed + 10 + i))
    n=$((4 + s % 29)) planes=$((3 + s % 9)) ev=$((300 + s % 1700))
    if [ $((s % 2)) -eq 0 ]; then
        run "random$i" "$n" --events "$ev" --planes "$planes" --seed "$s"
    else
        run "random$i" "$n" --events "$ev" --planes "$planes" --seed "$s" --proc-null
    fi
    i=$((i + 1))
done

[ "$fails" -eq 0 ] && echo "all passed" || echo "$fails failed"
[ "$fails" -eq 0 ]

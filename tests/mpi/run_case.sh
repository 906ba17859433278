#!/usr/bin/env bash
# run_case.sh FLAVOUR NP PROGRAM_PATH
#
# One MPI test case: runs PROGRAM_PATH on NP ranks with mpirun.FLAVOUR
# (FLAVOUR = openmpi | mpich) once plainly and once under
# `$PERFSKEL record`, requires both runs to succeed with byte-identical
# stdout, then checks the counts the recorder saw (`$PERFSKEL stats --json`)
# against the program's own `expect <rank> <function> <count>` lines with
# $CHECK_COUNTS; then merges the trace and checks that expanding it gives
# back every rank's events exactly, and folds it: the main loop must have
# the iteration count the program prints ("mainloop N"); simulates it
# (perfskel sim: every event replayed, a prediction; from the folded
# trace, the same prediction with and without skipping iterations); then generates its
# skeleton with K = 2, builds and runs it (no deadlock, a prediction, and
# where the main loop was scaled, a phase line for it and that many
# iterations in the skeleton's trace); with K = 1 the skeleton's messages
# and collectives per rank and function must be the original's.  Every
# step runs at every rank count, one rank included; a program that says
# "threads several" (it calls MPI from several threads of a rank) must
# have its trace refused by sim and gen, saying why; any other refusal
# fails.
# Works in a fresh temporary directory, removed on success and kept (its
# path printed) on failure.  Exit 0 on success, 1 on failure.
#
# Environment: PERFSKEL (perfskel CLI), CHECK_COUNTS (check_counts checker),
# optionally PERFSKEL_MPI_TIMEOUT (seconds per mpirun, default 120).
set -u

usage() {
    echo "usage: PERFSKEL=... CHECK_COUNTS=... $0 openmpi|mpich NP PROGRAM" >&2
    exit 1
}
[ $# -eq 3 ] || usage
flavour=$1
np=$2
prog=$3
case $np in '' | *[!0-9]*) usage ;; esac
: "${PERFSKEL:?PERFSKEL must name the perfskel CLI}"
: "${CHECK_COUNTS:?CHECK_COUNTS must name the check_counts checker}"
limit=${PERFSKEL_MPI_TIMEOUT:-120}

case $flavour in
openmpi) launcher=(mpirun.openmpi --allow-run-as-root --oversubscribe -np "$np") ;;
mpich) launcher=(mpirun.mpich -np "$np") ;;
*) usage ;;
esac
command -v "${launcher[0]}" >/dev/null || { echo "run_case: ${launcher[0]} not found" >&2; exit 1; }
[ -x "$prog" ] || { echo "run_case: $prog is not an executable" >&2; exit 1; }
prog=$(cd "$(dirname "$prog")" && pwd)/$(basename "$prog")
name="$flavour np$np $(basename "$prog")"

work=$(mktemp -d "${TMPDIR:-/tmp}/perfskel-mpi.XXXXXX") || exit 1
cd "$work" || exit 1

fail() {
    echo "FAIL [$name]: $*" >&2
    echo "  (files kept in $work)" >&2
    exit 1
}
show() { # show FILE: the last lines of a captured stream
    [ -s "$1" ] && { echo "--- $1 (last 20 lines):"; tail -n 20 "$1"; } >&2
    return 0
}

# 1. plain run
timeout -k 10 "$limit" "${launcher[@]}" "$prog" </dev/null >plain.out 2>plain.err
rc=$?
if [ $rc -ne 0 ]; then
    show plain.err
    [ $rc -eq 124 ] && fail "plain run timed out after ${limit}s"
    fail "plain run exited with status $rc"
fi

# 2. recorded run
timeout -k 10 "$limit" "$PERFSKEL" record -o trace -- "${launcher[@]}" "$prog" \
    </dev/null >recorded.out 2>recorded.err
rc=$?
if [ $rc -ne 0 ]; then
    show recorded.err
    [ $rc -eq 124 ] && fail "recorded run timed out after ${limit}s"
    fail "recorded run (perfskel record) exited with status $rc"
fi

# 3. same output with and without the recorder
if ! cmp -s plain.out recorded.out; then
    diff plain.out recorded.out | head -n 20 >&2
    fail "stdout of the recorded run differs from the plain run"
fi

# 4. the program states one set of counts per rank
ranks=$(awk '$1 == "expect" { print $2 }' plain.out | sort -un | wc -l)
[ "$ranks" -eq "$np" ] || fail "program printed expect lines for $ranks rank(s), not $np"

# 5. recorded counts
if ! "$PERFSKEL" stats trace --json </dev/null >stats.json 2>stats.err; then
    show stats.err
    fail "perfskel stats trace --json failed"
fi
if ! "$CHECK_COUNTS" plain.out stats.json; then
    fail "recorded call counts differ from the expected ones (see above)"
fi

# 6. merged: every rank's events rebuilt from the merged trace are exactly
#    the recorded ones
if ! "$PERFSKEL" merge -q trace -o merged.pskm </dev/null >merge.out 2>merge.err; then
    show merge.err
    fail "perfskel merge failed"
fi
"$PERFSKEL" dump trace >dump.trace 2>dump.err || { show dump.err; fail "perfskel dump trace failed"; }
"$PERFSKEL" dump merged.pskm >dump.merged 2>dump.err || { show dump.err; fail "perfskel dump merged.pskm failed"; }
if ! cmp -s dump.trace dump.merged; then
    diff dump.trace dump.merged | head -n 10 >&2
    fail "expanding the merged trace does not give back the recorded events"
fi
# 6a. fields the program states: "expectdump RANK FUNCTION field=value ...":
#     the rank's first event of FUNCTION carries each of them
while read -r _ r fn want; do
    line=$(awk -v r="$r" -v f="$fn" '$1 == r && $5 == f { print; exit }' dump.trace)
    for tok in $want; do
        case " $line " in *" $tok "*) ;; *) fail "rank $r's $fn: no $tok in the trace (${line:-no such event})" ;; esac
    done
done < <(awk '$1 == "expectdump"' plain.out)

# 6b. simulated on the default machine: the replay gets through every
#     rank's events (no deadlock, every call understood) and predicts a time.
#     A program that says "threads several" (tests/cli/threads.c) calls MPI
#     from several threads of a rank: sim and gen must refuse its trace,
#     saying why, and there is no skeleton to check; for any other program
#     that refusal is a failure
if grep -q '^threads several$' plain.out; then
    for cmd in "sim trace" "gen trace -K 2 -o skel.c"; do
        # shellcheck disable=SC2086 # cmd is the command's words
        if "$PERFSKEL" $cmd </dev/null >refused.out 2>refused.err; then
            fail "perfskel $cmd accepted a trace whose ranks called MPI from several threads"
        fi
        grep -Eq "from (more than one thread|[0-9]+ threads) under MPI_THREAD_MULTIPLE" refused.err ||
            { show refused.err; fail "perfskel $cmd failed on a trace of several threads, but not saying why"; }
    done
    cd / && rm -rf "$work"
    exit 0
fi
if ! "$PERFSKEL" sim trace --json -q </dev/null >sim.json 2>sim.err; then
    show sim.err
    fail "perfskel sim failed"
else
    awk -F: '/"predicted_seconds"/ { gsub(/[ ,]/, "", $2); ok = $2 > 0 } END { exit !ok }' sim.json ||
        fail "perfskel sim predicted no time"
    events=$(awk -F: '/"events"/ { gsub(/[ ,]/, "", $2); print $2; exit }' sim.json)
    recorded=$(awk '$1 != "#"' dump.trace | wc -l)
    [ "$events" = "$recorded" ] || fail "perfskel sim replayed ${events:-no} events of $recorded"
    # the loops fold finds, as intervals: the same prediction
    "$PERFSKEL" sim trace --intervals loops --json -q </dev/null >simloops.json 2>sim.err || {
        show sim.err
        fail "perfskel sim --intervals loops failed"
    }
    a=$(awk -F: '/"predicted_seconds"/ { print $2; exit }' sim.json)
    b=$(awk -F: '/"predicted_seconds"/ { print $2; exit }' simloops.json)
    [ "$a" = "$b" ] || fail "perfskel sim predicted $a without loop intervals, $b with"
    # 6c. simulated from the folded trace, with the loops as intervals:
    #     every event accounted for; replaying every iteration (each
    #     execution with its own recorded gap) is the full replay, so it
    #     predicts what sim does; skipping the iterations that repeat
    #     (exactly, or estimated from a window) stays within 1 % of it
    for mode in skip all; do
        opt=""
        [ $mode = all ] && opt=--no-skip
        "$PERFSKEL" sim trace --folded $opt --intervals loops --json -q </dev/null >fold_$mode.json 2>sim.err || {
            show sim.err
            fail "perfskel sim --folded $opt failed"
        }
        e=$(awk -F: '/"events"/ { gsub(/[ ,]/, "", $2); print $2; exit }' fold_$mode.json)
        [ "$e" = "$recorded" ] || fail "perfskel sim --folded $opt accounted for ${e:-no} events of $recorded"
    done
    a=$(awk -F: '/"predicted_seconds"/ { gsub(/[ ,]/, "", $2); print $2; exit }' fold_all.json)
    b=$(awk -F: '/"predicted_seconds"/ { gsub(/[ ,]/, "", $2); print $2; exit }' fold_skip.json)
    awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0 && d <= 0.01 * a) }' ||
        fail "perfskel sim --folded predicted $b skipping iterations, $a replaying them all"
    w=$(awk -F: '/"predicted_seconds"/ { gsub(/[ ,]/, "", $2); print $2; exit }' sim.json)
    awk -v a="$a" -v w="$w" 'BEGIN { d = a - w; if (d < 0) d = -d; exit !(w > 0 && d <= 1e-6 * w) }' ||
        fail "perfskel sim --folded --no-skip predicted $a, the replay of the whole trace $w"
fi

# 7. folded: the main loop has the iteration count the program states; a
#    program that states none (one-rank masterworker calls MPI in no loop)
#    folds to no main loop
want=$(awk '$1 == "mainloop" { print $2 }' plain.out)
if ! "$PERFSKEL" fold merged.pskm --json </dev/null >fold.json 2>fold.err; then
    show fold.err
    fail "perfskel fold failed"
fi
if [ -z "$want" ]; then
    grep -q '"main_loop": null' fold.json || fail "perfskel fold found a main loop where the program has none"
else
    got=$(awk '/"main_loop"/ { m = 1 } m && /"count"/ { gsub(/[^0-9]/, ""); print; exit }' fold.json)
    [ "$got" = "$want" ] || fail "perfskel fold found a main loop of ${got:-no} iterations, the program says $want"
fi

# 8. the skeleton (K = 2): generated, built, run under the recorder without
#    deadlock; it prints a prediction, and where the main loop was scaled
#    (the skeleton's comment on it says so; else it says why not), the
#    skeleton reports its phase and its own main loop has the iterations
#    that phase line says it ran
if ! "$PERFSKEL" gen trace -K 2 --min-sample 0 -o skel.c </dev/null >gen.out 2>gen.err; then
    show gen.err
    fail "perfskel gen failed"
fi
"mpicc.$flavour" -O2 -o skel skel.c >cc.out 2>&1 || { show cc.out; fail "the skeleton does not compile"; }
# K = 1: nothing scaled, so the skeleton makes every rank's messages and
# collectives exactly as often as the original did (its three reports
# of the prediction are MPI_Reduce calls, hence the + 3)
"$PERFSKEL" gen trace -K 1 -o skel1.c </dev/null >gen.out 2>gen.err || { show gen.err; fail "perfskel gen -K 1 failed"; }
"mpicc.$flavour" -O2 -o skel1 skel1.c >cc.out 2>&1 || { show cc.out; fail "the K = 1 skeleton does not compile"; }
timeout -k 10 "$limit" "$PERFSKEL" record -o skel1trace -- "${launcher[@]}" ./skel1 </dev/null >skel1.out 2>skel1.err
rc=$?
[ $rc -eq 0 ] || { show skel1.err; fail "the K = 1 skeleton run failed (status $rc)"; }
traffic='^MPI_(Send|Isend|Recv|Irecv|Sendrecv|Bcast|Allreduce|Alltoall|Alltoallv|Gather|Gatherv|Scatterv|Allgatherv|Reduce_scatter|Barrier|Ibarrier|Waitall|Waitany|Startall|Reduce)$'
percall() { "$PERFSKEL" dump "$1" | awk -v re="$traffic" -v extra="$2" '$1 != "#" { seen[$1] = 1 } $5 ~ re { n[$1 " " $5]++ }
    END { for (r in seen) if (extra) n[r " MPI_Reduce"] += extra; for (k in n) print k, n[k] }' | sort; }
percall trace 3 >counts.orig
percall skel1trace 0 >counts.skel1
if ! cmp -s counts.orig counts.skel1; then
    diff counts.orig counts.skel1 | head -n 10 >&2
    fail "the K = 1 skeleton's calls per rank differ from the original's"
fi
timeout -k 10 "$limit" "$PERFSKEL" record -o skeltrace -- "${launcher[@]}" ./skel </dev/null >skel.out 2>skel.err
rc=$?
[ $rc -eq 0 ] || { show skel.err; fail "the skeleton run failed (status $rc; 124: deadlock or timeout)"; }
grep -q "^perfskel-skeleton: predicted_seconds=" skel.out || { show skel.out; fail "the skeleton printed no prediction"; }
if [ -n "$want" ]; then
    if grep -q "/\* loop [0-9]*: $want iterations of [0-9]* events in the original; here " skel.c; then
        ran=$(awk -v w="$want" '/perfskel-skeleton: phase/ { c = ""; r = ""
            for (i = 1; i <= NF; i++) { if ($i ~ /^count=/) c = substr($i, 7); if ($i ~ /^ran=/) r = substr($i, 5) }
            if (c == w) print r }' skel.out | head -n 1)
        case $ran in
        '' | *[!0-9]*) show skel.out; fail "the skeleton scaled its main loop of $want iterations but printed no phase line with count=$want and a ran= count" ;;
        esac
        if [ "$ran" -ge 2 ]; then
            "$PERFSKEL" fold skeltrace --json </dev/null >skelfold.json 2>fold.err || { show fold.err; fail "folding the skeleton's trace failed"; }
            got=$(awk '/"main_loop"/ { m = 1 } m && /"count"/ { gsub(/[^0-9]/, ""); print; exit }' skelfold.json)
            [ "$got" = "$ran" ] || fail "the skeleton's main loop ran ${got:-no} iterations, not the $ran its phase line says (of $want)"
        else
            echo "note [$name]: the skeleton ran its main loop of $want iterations $ran time(s), no loop left to fold"
        fi
    else
        # not scaled: a loop run in full, saying why, or (a loop of few
        # iterations among calls executed once) inside a stretch of calls
        # replayed from data, "nodes A-B", around the main loop's node
        ml=$(awk '/"main_loop"/ { m = 1 } m && /"node"/ { gsub(/[^0-9]/, ""); print; exit }' fold.json)
        why=$(grep -o "/\* loop [0-9]*: $want iterations of [0-9]* events; .*\*/" skel.c | head -n 1)
        [ -n "$why" ] || why=$(grep -o '/\* nodes [0-9]*-[0-9]*: [0-9]* calls, replayed from data \*/' skel.c |
            awk -v ml="${ml:--1}" '{ split($3, ab, "[-:]"); if (ab[1] + 0 <= ml + 0 && ml + 0 <= ab[2] + 0) { print; exit } }')
        [ -n "$why" ] || fail "the K = 2 skeleton has no loop of $want iterations (the main loop, node ${ml:-?}), scaled or not, nor a replay from data around it"
        echo "note [$name]: main loop not scaled, so no phase line to check: $why"
    fi
fi

cd / && rm -rf "$work"
exit 0

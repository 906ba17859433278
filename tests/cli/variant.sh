#!/bin/sh
# variant.sh FLAVOUR VARIANT_BINARY: loops whose arguments change from one
# iteration to the next (tests/cli/variant.c; docs/folding.md, "Loops
# whose arguments change").
# For each mode on 2 ranks: the fold finds the loop the program states
# (not 40 unrolled copies), fold --json lists what varies, the K = 1
# skeleton makes every rank's calls in the same order with the same
# peers, tags, sizes, roots and request ids (recorded and compared), and
# the K = 10 skeleton finishes (two Irecvs from one neighbour in flight,
# two Comm_dup in a row: no deadlock, no MPI_ERR_COMM).
# Then the skeletons' own cases (src/gen): waits whose order changes with
# rank and iteration (the skeleton compiles), matched probes among other
# messages, twelve persistent requests completed by a loop of twelve
# waits, Testall / Testsome completing on one rank only, and Iprobe
# polling: their K = 1 skeleton compared with the recording by trace_cmp
# (which allows for what timing changes: polls, completion order), the K =
# 10 skeleton finishing; and a loop of polls (each iteration's number of
# MPI_Iprobe calls is how long a message took) scaled, its polls one
# "poll until found" (merge_poll.c; the old replay of recorded poll counts
# could not scale it; how close its prediction comes is measured in bench/);
# a loop with a cold first iteration: its outlier listed by fold, named in
# the simulator's report, replayed apart by the K = 10 skeleton.
set -u
flavour=$1 prog=$2
: "${PERFSKEL:?PERFSKEL must name the perfskel CLI}"
P=$PERFSKEL
. "$(dirname "$0")/lib.sh"
mpirun_of "$flavour"
TRACE_CMP=${TRACE_CMP:-$(dirname "$P")/trace_cmp}
T=$(mktemp -d "${TMPDIR:-/tmp}/perfskel-variant.XXXXXX")
trap 'rm -rf "$T"' EXIT

# the calls of a trace, per rank, without times, the skeleton's own
# set-up (communicators remade by MPI_Comm_split) and its final report
calls() {
    "$P" dump "$1" | awk '$1 != "#" && $5 !~ /^MPI_(Init|Finalize|Reduce|Comm_split|Comm_dup)$/ {
        $2 = $3 = $4 = ""; print }'
}

# skeletons: K = 1 built, recorded and compared with the recording (the
# calls of the first five modes exactly; the others by trace_cmp), K = 10
# built and run (uses $mode, $d)
skeletons() {
    "$P" gen "$d/trace" -K 1 -o "$d/s1.c" >/dev/null 2>"$d/err" || { bad "$mode: gen -K 1 failed"; cat "$d/err"; return; }
    # the K = 10 skeleton compiles beside the K = 1 one (a core each)
    g10=0
    if "$P" gen "$d/trace" -K 10 --min-sample 0 -o "$d/s10.c" >/dev/null 2>"$d/err10"; then
        g10=1
        "mpicc.$flavour" -O1 -Wno-stringop-overflow -o "$d/s10" "$d/s10.c" >"$d/cc10" 2>&1 &
        c10=$!
    fi
    b1=0 b10=0
    "mpicc.$flavour" -O1 -Wno-stringop-overflow -o "$d/s1" "$d/s1.c" >"$d/cc" 2>&1 || b1=1
    [ $g10 = 0 ] || wait $c10 || b10=1 # done before any job runs
    [ $b1 = 0 ] || { bad "$mode: the K = 1 skeleton does not build"; head -n 5 "$d/cc"; return; }
    if ! timeout 120 "$P" record -o "$d/strace" -- $MPIRUN -np 2 "$d/s1" >"$d/sout" 2>"$d/err"; then
        bad "$mode: the K = 1 skeleton failed or hung"; tail -n 5 "$d/err"; return
    fi
    case $mode in
    ring | root | ibcast | vcycle | dup | waitorder | persist)
        calls "$d/trace" >"$d/a"
        calls "$d/strace" >"$d/b"
        if cmp -s "$d/a" "$d/b"; then
            ok "$mode: the K = 1 skeleton makes the recorded calls ($(wc -l <"$d/a") of them)"
        else
            bad "$mode: the K = 1 skeleton's calls differ"; diff "$d/a" "$d/b" | head -n 6
        fi ;;
    *)
        if "$TRACE_CMP" "$d/trace" "$d/strace" >"$d/cmp" 2>&1; then
            ok "$mode: trace_cmp finds the K = 1 skeleton's calls the recorded ones"
        else
            bad "$mode: trace_cmp: $(head -n 1 "$d/cmp")"
        fi ;;
    esac
    [ $g10 = 1 ] || { bad "$mode: gen -K 10 failed"; cat "$d/err10"; return; }
    [ $b10 = 0 ] || { bad "$mode: the K = 10 skeleton does not build"; head -n 5 "$d/cc10"; return; }
    if timeout 60 $MPIRUN -np 2 "$d/s10" >"$d/s10out" 2>"$d/err" && grep -q "predicted_seconds=" "$d/s10out"; then
        ok "$mode: the K = 10 skeleton runs and predicts"
    else
        bad "$mode: the K = 10 skeleton failed or hung"; tail -n 5 "$d/err"
    fi
    # a run of polls is one event, which waits for what it polls for: the
    # loop is scaled, and predicts about what the K = 1 skeleton takes
    if [ "$mode" = poll ]; then
        if awk '/counted once\) and/ { in_ = 1 } in_ && /pollp_\(.*, 1\); \/\* poll:MPI_Iprobe/ { ok = 1 } /phase_\(/ { in_ = 0 } END { exit !ok }' "$d/s10.c"; then
            ok "$mode: the loop of MPI_Iprobe polls is scaled, its polls one poll until found"
        else
            bad "$mode: the loop of MPI_Iprobe polls is not scaled as one poll until found"
        fi
    fi
    # a cold first iteration: fold lists it, the simulator's report names
    # the loop's outlier, the K = 10 skeleton runs it once, apart
    if [ "$mode" = coldstart ]; then
        if awk '/"outlier_iterations"/ { o = 1 } o && /"iteration": 0,/ { ok = 1 } END { exit !ok }' "$d/fold.json"; then
            ok "$mode: fold --json lists iteration 0 as an outlier"
        else
            bad "$mode: fold --json lists no outlier iteration 0"
        fi
        if "$P" sim "$d/trace" --intervals loops --json -q 2>"$d/err" | grep -q '"name": "loop [0-9]* (40 iterations, [0-9]* outliers\{0,1\})"'; then
            ok "$mode: sim --intervals loops names the loop's outlier"
        else
            bad "$mode: sim --intervals loops does not name the outlier"; cat "$d/err"
        fi
        if grep -q '^ *psk_work(\(cunits_(\)\{0,1\}L[0-9]*_outlier_work\[rank_\]' "$d/s10.c"; then
            ok "$mode: the K = 10 skeleton runs the outlier's work apart"
        else
            bad "$mode: the K = 10 skeleton has no outlier work"
        fi
    fi
}

for mode in ring root ibcast vcycle dup waitorder mprobe persist testpoll poll coldstart; do
    d=$T/$mode
    mkdir -p "$d"
    if ! timeout 120 "$P" record -o "$d/trace" -- $MPIRUN -np 2 "$prog" $mode 40 >"$d/out" 2>"$d/err"; then
        bad "$mode: the recorded run failed"; cat "$d/err"; continue
    fi
    "$P" fold "$d/trace" --json >"$d/fold.json" 2>"$d/err" || { bad "$mode: fold failed"; cat "$d/err"; continue; }
    # the main loop covers the 40 iterations: x40, or x20 of two when the
    # values repeat in pairs (a root alternating on 2 ranks)
    case $mode in ring) per=3 ;; root) per=1 ;; ibcast) per=4 ;; vcycle) per=35 ;; dup) per=2 ;; *) per= ;; esac
    [ -n "$per" ] || { skeletons; continue; }
    got=$(awk '/"main_loop"/ { m = 1 } m && /"count"/ { c = $2 } m && /"span"/ { s = $2; gsub(/[^0-9]/, "", c)
        gsub(/[^0-9]/, "", s); print c * s; exit }' "$d/fold.json")
    [ "$got" = $((40 * per)) ] && ok "$mode: fold finds the loop of 40 iterations" ||
        bad "$mode: fold's main loop covers ${got:-no} events, not 40 x $per"
    case $mode in
    ring | ibcast) want=tag ;; root) want=root ;; vcycle) want=count ;; dup) want=newid ;;
    esac
    [ $mode = ibcast ] && want=""
    if [ -n "$want" ]; then
        grep -q "\"field\": \"$want\"" "$d/fold.json" && ok "$mode: fold --json says $want varies" ||
            bad "$mode: fold --json does not list $want as varying"
    fi
    skeletons
done
echo "variant ($flavour): $fails failed"
[ "$fails" -eq 0 ]

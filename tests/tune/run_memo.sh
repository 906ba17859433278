#!/usr/bin/env bash
# run_memo.sh FLAVOUR NP PROGRAM: the dispatcher's memo of calls and the
# learner's sampled monitoring (src/tune/tune_memo.c, tune_plan.c;
# docs/tune.md, "What a call costs"). PROGRAM (memo_prog.c) on NP ranks
# under `$PERFSKEL tune --check` (the learner, every decision hash-checked
# across ranks) with PSK_TUNE_DEBUG=1: communicators freed and split again,
# derived datatypes freed and made again, one call site in place and not,
# with other counts and other operations, then STEADY 8-byte alltoalls.
# Checks:
#   - every rank's results right ("0 wrong");
#   - the memo serves the calls: each rank looked up at most a tenth of its
#     calls (the steady calls are found in it);
#   - the learner samples: each rank timed at most a quarter of its calls;
#   - its steady group decides rarely: at most one decision in 500 calls,
#     and 15 more for each change it detected (after which it explores
#     and its windows start short again), and it has settled (monitoring
#     now, or its decision-file line settled before a late change).
# Broken on purpose (each fails here): a memo never filled (every call
# looked up), every call timed, monitoring windows that do not grow.
# Then the program again under a fixed arm (native) with a report: it
# must end cleanly (MPI_Finalize frees MPI_COMM_SELF's state after the
# report is written).
# Without the learning gate (PSK_TUNE_GATE=0): every group is set up at
# its first call, so that the steady one has all its calls (with the gate
# it would hold the first 32,769 of these cheap calls native; the gate's
# own test is run_learn.sh's case gate, and the sanitizer run
# tests/cli/asan_preload.sh runs this program with the gate on).
set -u
[ $# -eq 3 ] || { echo "usage: PERFSKEL=... JSON_FLAT=... $0 openmpi|mpich NP PROGRAM" >&2; exit 1; }
flavour=$1 np=$2 prog=$3
: "${PERFSKEL:?PERFSKEL must name the perfskel CLI}" "${JSON_FLAT:?JSON_FLAT must name json_flat}"
case $flavour in
openmpi) launcher=(mpirun.openmpi --allow-run-as-root --oversubscribe -np "$np") ;;
mpich) launcher=(mpirun.mpich -np "$np") ;;
*) echo "run_memo: unknown MPI $flavour" >&2; exit 1 ;;
esac
work=$(mktemp -d "${TMPDIR:-/tmp}/perfskel-memo.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
fail() {
    echo "FAIL [$flavour np$np memo]: $*" >&2
    [ -s "$work/err" ] && { echo "--- stderr:"; tail -n 20 "$work/err"; } >&2
    exit 1
}
steady=40000
PSK_TUNE_GATE=0 PSK_TUNE_DEBUG=1 timeout -k 5 120 "$PERFSKEL" tune --check --report "$work/r.json" --db "$work/db" -- "${launcher[@]}" "$prog" \
    "$steady" </dev/null >"$work/out" 2>"$work/err" || fail "the job exited with status $?"
ok=$(grep -c "^memo_prog: rank [0-9]*: [0-9]* calls, 0 wrong$" "$work/out")
[ "$ok" -eq "$np" ] || fail "$ok ranks of $np said '0 wrong': $(head -3 "$work/out")"
for ((r = 0; r < np; r++)); do
    line=$(grep "^perfskel-tune: rank $r: dispatch: " "$work/err") || fail "rank $r printed no dispatch line"
    read -r calls looked timed < <(sed 's/.*dispatch: \([0-9]*\) calls, \([0-9]*\) looked up.*, \([0-9]*\) timed$/\1 \2 \3/' <<<"$line")
    [ "$calls" -gt "$steady" ] || fail "rank $r: $calls calls, fewer than the $steady steady ones: $line"
    [ $((looked * 10)) -le "$calls" ] || fail "rank $r looked up $looked of $calls calls (a tenth at most): $line"
    [ $((timed * 4)) -le "$calls" ] || fail "rank $r timed $timed of $calls calls (a quarter at most): $line"
done
"$JSON_FLAT" "$work/r.json" >"$work/r.flat" || fail "the report is not JSON"
# the steady group: MPI_Alltoall on the world, 8 bytes a peer (class 3),
# the one of most calls (communicators split off have groups of 3 calls)
g="" most=0
for i in $(sed -n 's/^groups\.\([0-9]*\)\.collective=alltoall$/\1/p' "$work/r.flat"); do
    n=$(sed -n "s/^groups\\.$i\\.calls=//p" "$work/r.flat")
    if grep -qx "groups\\.$i\\.ranks=$np" "$work/r.flat" && grep -qx "groups\\.$i\\.size_class=3" "$work/r.flat" &&
        [ "${n:-0}" -gt "$most" ]; then
        g=$i most=$n
    fi
done
[ -n "$g" ] || fail "no MPI_Alltoall group of class 3 on $np ranks in the report"
get() { sed -n "s/^groups\\.$g\\.$1=//p" "$work/r.flat" | head -1; }
gcalls=$(get calls) decisions=$(get decisions) phase=$(get phase) alarms=$(get changes_detected)
[ -n "$gcalls" ] && [ "$gcalls" -ge "$steady" ] || fail "the steady group has $gcalls calls"
# a change the detector sees (this machine's slow and fast spells) starts
# exploring and short windows again: 15 decisions each are allowed for
[ $(((decisions - 15 * ${alarms:-0}) * 500)) -le "$gcalls" ] ||
    fail "the steady group decided $decisions times in $gcalls calls with $alarms changes detected (1 in 500 at most, and 15 a change)"
# settled: monitoring now, or it was before a change sent it exploring
# again (its line in the decision file says settled once it has been)
state=$(awk -v np="$np" '$1 == "psk2" && $4 == np && $5 == "memo_prog" && $7 == 3 && $8 == "alltoall" &&
    $11 + 0 > most { most = $11 + 0; s = $9 } END { print s }' "$work/db" 2>/dev/null)
[ "$phase" = monitoring ] || [ "$state" = settled ] ||
    fail "the steady group is $phase, and its decision-file line '${state:-none}', not settled"
said="$(grep "^perfskel-tune: rank 0: dispatch: " "$work/err" | sed 's/.*dispatch: //'); steady group: $decisions decisions in $gcalls calls, $alarms changes detected"
# the same handles under a fixed arm with a report (no learner: every
# communicator's state is freed without groups, MPI_COMM_SELF's in
# MPI_Finalize after the report is written), the gate on
timeout -k 5 120 "$PERFSKEL" tune --force native --report "$work/n.json" -- "${launcher[@]}" "$prog" 100 \
    </dev/null >"$work/out" 2>"$work/err" || fail "native, with a report: the job exited with status $?"
ok=$(grep -c "^memo_prog: rank [0-9]*: [0-9]* calls, 0 wrong$" "$work/out")
[ "$ok" -eq "$np" ] && [ -s "$work/n.json" ] || fail "native, with a report: $ok ranks of $np said '0 wrong', or no report"
echo "ok: $flavour np$np: $said; under native with a report, ended cleanly"

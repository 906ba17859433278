#!/usr/bin/env bash
# check_seed.sh SEED FLAVOUR NP [LANG]
#
# One random program (randprog --seed SEED) through the whole perfskel
# pipeline with mpirun.FLAVOUR (openmpi | mpich) on NP ranks: generated,
# built, run plainly and under `perfskel record --merge`; then (a) recorded
# counts == the program's own, (b) merge round trip exact, and the merge
# the ranks did in MPI_Finalize the same bytes as `perfskel merge`, (c) fold never longer than
# its input, (d) the K = 1 skeleton's trace == the original's (trace_cmp),
# also with every run of calls replayed from data (--table-min 1), (e)
# K = 2 (as code and as data) and K = 10 skeletons build and finish, (f)
# sim replays, and sim
# --folded accounts for, every event. Each failed check prints
#   FAIL seed=S flavour=F np=N lang=L check=NAME: reason
#   repro: <command> # files in <kept work directory>
# on stdout; exit 0 if every check passed, 1 otherwise, 2 on usage errors.
#
# Environment: PERFSKEL (the CLI; required); CHECK_COUNTS, RANDPROG and
# TRACE_CMP default to the programs next to it (the build's top directory);
# RANDOM_SIZE small|medium (default small); RANDOM_KEEP=1 keeps the work
# directory of a passing seed too.
set -u

usage() {
    echo "usage: PERFSKEL=... $0 SEED openmpi|mpich NP [c|f90]" >&2
    exit 2
}
[ $# -ge 3 ] && [ $# -le 4 ] || usage
seed=$1 flavour=$2 np=$3 lang=${4:-c}
case $seed in '' | *[!0-9]*) usage ;; esac
case $np in '' | *[!0-9]* | 0) usage ;; esac
case $lang in c | f90) ;; *) usage ;; esac
: "${PERFSKEL:?PERFSKEL must name the perfskel CLI}"
PERFSKEL=$(cd "$(dirname "$PERFSKEL")" && pwd)/$(basename "$PERFSKEL")
bin=$(dirname "$PERFSKEL")
CHECK_COUNTS=${CHECK_COUNTS:-$bin/check_counts}
RANDPROG=${RANDPROG:-$bin/randprog}
TRACE_CMP=${TRACE_CMP:-$bin/trace_cmp}
size=${RANDOM_SIZE:-small}
for p in "$PERFSKEL" "$CHECK_COUNTS" "$RANDPROG" "$TRACE_CMP"; do
    [ -x "$p" ] || { echo "check_seed: $p is not an executable" >&2; exit 2; }
done
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI's aggregated help messages come out garbled when ranks abort together
export OMPI_MCA_orte_base_help_aggregate=0
case $flavour in
openmpi) launcher=(mpirun.openmpi --allow-run-as-root --oversubscribe -np "$np") ;;
mpich) launcher=(mpirun.mpich -np "$np") ;;
*) usage ;;
esac
command -v "${launcher[0]}" >/dev/null || { echo "check_seed: ${launcher[0]} not found" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/psk-random-$seed-$flavour-np$np.XXXXXX") || exit 2
cd "$work" || exit 2
failed=0

# fail CHECK REASON: one line (newlines in the reason flattened), and how to
# run this seed again
fail() {
    local check=$1
    shift
    printf 'FAIL seed=%s flavour=%s np=%s lang=%s check=%s: %s\n' "$seed" "$flavour" "$np" "$lang" "$check" \
        "$(printf '%s' "$*" | tr '\n' ' ' | cut -c1-400)"
    printf '  repro: PERFSKEL=%s RANDOM_SIZE=%s bash %s %s %s %s %s  # files in %s\n' "$PERFSKEL" "$size" "$self" \
        "$seed" "$flavour" "$np" "$lang" "$work"
    failed=1
}
finish() {
    if [ $failed -eq 0 ] && [ "${RANDOM_KEEP:-0}" != 1 ]; then
        cd / && rm -rf "$work"
    fi
    exit $failed
}
lastline() { [ -s "$1" ] && grep -v '^\s*$' "$1" | tail -n 1; }
# errline FILE: what an MPI job's stderr says went wrong (both MPIs' forms)
errline() {
    local e
    e=$(grep -E -m3 'error occurred in|MPI_ERR|Fatal error|[Ss]egmentation|[Ss]ignal [0-9]|Abort|skeleton:|randprog:' "$1" |
        sed 's/^\[[^]]*\] //; s/\*\*\* //g' | paste -sd' ' -)
    [ -n "$e" ] && echo "$e" || lastline "$1"
}
now() { date +%s.%N; }
# json_num KEY FILE: the first "KEY": number in FILE
json_num() { awk -v k="\"$1\"" -F: 'index($0, k) { v = $2; gsub(/[ ,]/, "", v); print v; exit }' "$2"; }

plain_limit=60

# the program
if [ "$lang" = c ]; then src=prog.c; else src=prog.f90; fi
"$RANDPROG" --seed "$seed" --lang "$lang" --size "$size" -o "$src" 2>gen.err ||
    { fail generate "randprog: $(lastline gen.err)"; finish; }
if [ "$lang" = c ]; then
    "mpicc.$flavour" -std=c11 -O1 -o prog "$src" >build.out 2>&1
else
    "mpif90.$flavour" -O1 -ffree-line-length-none -o prog "$src" >build.out 2>&1
fi
[ $? -eq 0 ] || { fail build "mpi compiler: $(grep -m1 -i error build.out)"; finish; }

# plain run: it must work without perfskel at all
t0=$(now)
timeout -k 5 $plain_limit "${launcher[@]}" ./prog </dev/null >plain.out 2>plain.err
rc=$?
plain_s=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
if [ $rc -ne 0 ]; then
    [ $rc -eq 124 ] && { fail plain "plain run timed out after ${plain_limit}s"; finish; }
    fail plain "plain run exited with $rc: $(errline plain.err)"
    finish
fi
ranks=$(awk '$1 == "expect" { print $2 }' plain.out | sort -u | wc -l)
[ "$ranks" -eq "$np" ] || { fail plain "expect lines for $ranks rank(s), not $np"; finish; }
# the skeletons get five times the plain run, at least 30 s
skel_limit=$(awk -v p="$plain_s" 'BEGIN { l = 5 * p; if (l < 30) l = 30; printf "%d", l + 0.5 }')

# recorded run
timeout -k 5 $plain_limit "$PERFSKEL" record --merge -o trace -- "${launcher[@]}" ./prog </dev/null >rec.out 2>rec.err
rc=$?
if [ $rc -ne 0 ]; then
    [ $rc -eq 124 ] && { fail record "recorded run timed out after ${plain_limit}s"; finish; }
    fail record "recorded run exited with $rc: $(errline rec.err)"
    finish
fi
# the data the program checked add up to the same in both runs
a=$(grep '^randprog checksum' plain.out)
b=$(grep '^randprog checksum' rec.out)
[ "$a" = "$b" ] || fail record "checksum differs: plain '$a', recorded '$b'"

# (a) counts: the recorded run's own expect lines (polling loops make a
# different number of calls in every run)
if ! "$PERFSKEL" stats trace --json --no-fold </dev/null >stats.json 2>stats.err; then
    fail counts "perfskel stats failed: $(lastline stats.err)"
elif ! "$CHECK_COUNTS" rec.out stats.json >counts.out 2>&1; then
    fail counts "$(grep -v '^check_counts:' counts.out | head -n 3 | paste -sd';' -)"
fi

# (b) merge round trip: exact with --keep-polls; by default each run of
# polls is one event, whose calls (i1) account for the rest
"$PERFSKEL" dump trace >dump.trace 2>dump.err || fail dump "perfskel dump trace failed: $(lastline dump.err)"
recorded=$(awk '$1 != "#"' dump.trace | wc -l)
merged=0
if ! "$PERFSKEL" merge -q --keep-polls trace -o mk.pskm </dev/null >merge.out 2>merge.err; then
    fail merge "perfskel merge --keep-polls failed: $(lastline merge.err)"
elif ! "$PERFSKEL" dump mk.pskm >dump.merged 2>dump.err; then
    fail merge "perfskel dump mk.pskm failed: $(lastline dump.err)"
elif ! cmp -s dump.trace dump.merged; then
    fail merge "expanding the merged trace differs from the trace: $(diff dump.trace dump.merged | grep -m2 '^[<>]' | paste -sd' ' -)"
elif ! "$PERFSKEL" merge -q trace -o m.pskm </dev/null >merge.out 2>merge.err; then
    fail merge "perfskel merge failed: $(lastline merge.err)"
elif ! "$PERFSKEL" dump m.pskm >dump.polls 2>dump.err; then
    fail merge "perfskel dump m.pskm failed: $(lastline dump.err)"
else
    calls=$(awk '$1 != "#" { n = 1; for (i = 6; i <= NF; i++) if ($5 ~ /^poll:/ && $i ~ /^i1=/) n = substr($i, 4); s += n } END { print s + 0 }' dump.polls)
    if [ "$calls" != "$recorded" ]; then
        fail merge "the merged trace's events and runs of polls stand for $calls calls, not the $recorded recorded"
    else
        merged=1
    fi
    # the merge the ranks did in their MPI_Finalize: the same bytes
    cmp -s trace/merged.pskm m.pskm ||
        fail merge_injob "record --merge's trace/merged.pskm differs from perfskel merge's: $(grep -m1 'in-job merge' rec.err)"
fi

# (c) fold never longer than its input
if [ $merged -eq 1 ]; then
    if ! "$PERFSKEL" fold m.pskm --json </dev/null >fold.json 2>fold.err; then
        fail fold "perfskel fold failed: $(lastline fold.err)"
    else
        len=$(json_num length fold.json)
        flen=$(json_num folded_length fold.json)
        if [ -z "$len" ] || [ -z "$flen" ]; then
            fail fold "no length/folded_length in fold --json"
        elif [ "$flen" -gt "$len" ]; then
            fail fold "folded length $flen > input length $len"
        fi
    fi
fi

# (f) sim replays every event; sim --folded accounts for every event
if ! "$PERFSKEL" sim trace --json -q </dev/null >sim.json 2>sim.err; then
    fail sim "perfskel sim failed: $(lastline sim.err)"
else
    e=$(json_num events sim.json)
    [ "$e" = "$recorded" ] || fail sim "replayed ${e:-no} events of $recorded"
fi
if ! timeout -k 5 120 "$PERFSKEL" sim trace --folded --json -q </dev/null >simf.json 2>simf.err; then
    fail sim_folded "perfskel sim --folded failed: $(lastline simf.err)"
else
    e=$(json_num events simf.json)
    [ "$e" = "$recorded" ] || fail sim_folded "accounted for ${e:-no} events of $recorded"
fi

# skeleton K: generated, built, run (recorded for K = 1) within the limit
skeleton() {
    local K=$1 check=$2 s=${3:-s$1}
    shift 3 2>/dev/null || shift $#
    if ! "$PERFSKEL" gen trace -K "$K" --min-sample 0 "$@" -o "$s.c" </dev/null >"gen$s.out" 2>"gen$s.err"; then
        fail "$check" "perfskel gen -K $K failed: $(lastline "gen$s.err")"
        return 1
    fi
    if ! "mpicc.$flavour" -O2 -o "$s" "$s.c" >"cc$s.out" 2>&1; then
        fail "$check" "the K = $K skeleton does not compile: $(grep -m1 error "cc$s.out")"
        return 1
    fi
    local run=()
    [ "$K" = 1 ] && run=("$PERFSKEL" record -o "${s}trace" --)
    timeout -k 5 "$skel_limit" "${run[@]}" "${launcher[@]}" "./$s" </dev/null >"$s.out" 2>"$s.err"
    local rc=$?
    if [ $rc -eq 124 ]; then
        local where=""
        # the recorded K = 1 run says where each rank was: its last call that returned
        [ "$K" = 1 ] && where="; last calls: $("$PERFSKEL" dump "${s}trace" 2>/dev/null |
            awk '$1 != "#" { last[$1] = $5 " " $6 " " $7 " " $8 } END { for (r in last) printf "r%s %s, ", r, last[r] }')"
        fail "$check" "the K = $K skeleton did not finish in ${skel_limit}s (deadlock?; plain run ${plain_s}s)$where"
        return 1
    elif [ $rc -ne 0 ]; then
        fail "$check" "the K = $K skeleton exited with $rc: $(errline "$s.err")"
        return 1
    fi
    grep -q '^perfskel-skeleton: predicted_seconds=' "$s.out" ||
        { fail "$check" "the K = $K skeleton printed no prediction"; return 1; }
    return 0
}

# (d) the K = 1 skeleton makes the original's calls: as code, and with
# every run of calls replayed from data (--table-min 1), inside loops too
compare() {
    "$TRACE_CMP" trace "$1" >"cmp$1.out" 2>&1
    local rc=$?
    if [ $rc -eq 1 ]; then
        fail "$2" "$(head -n 1 "cmp$1.out") [$(wc -l <"cmp$1.out") rank(s) differ]"
    elif [ $rc -ne 0 ]; then
        fail "$2" "trace_cmp could not compare: $(lastline "cmp$1.out")"
    fi
}
skeleton 1 skel1 s1 && compare s1trace trace_cmp
skeleton 1 skel1_data t1 --table-min 1 && compare t1trace trace_cmp_data

# (e) K = 2 and K = 10 build and finish; K = 2 also with its calls as
# data (scaled loops running fewer executions of their stored runs)
skeleton 2 skel2 s2
skeleton 2 skel2_data t2 --table-min 1
skeleton 10 skel10 s10

finish

#!/bin/sh
# onethread.sh FLAVOUR ONETHREAD THREADS SYNTH_THREADS: MPI_THREAD_MULTIPLE
# asked for, and which thread made each call (trace format 4).
# onethread.c asks for MPI_THREAD_MULTIPLE and calls MPI from its main
# thread only: recorded, its files say so (version 4, the threads flag,
# every call thread 0); sim replays every event (whole and folded: the
# same prediction) and predict -K 10's skeleton within 25 % of the
# recorded run's time; neither refuses it. threads.c calls
# MPI from four threads of each rank at once: the trace names each call's
# thread, merging keeps them, and sim,
# sim --folded, gen and predict refuse it in one line naming the trace and
# the rank. synth_threads' traces: format 3 under MPI_THREAD_MULTIPLE (no
# threads recorded) refused as before; format 4 from one thread replayed;
# format 4 from two threads of rank 1 refused naming rank 1.
set -u
flavour=$1 one=$2 multi=$3 synth=$4
: "${PERFSKEL:?PERFSKEL must name the perfskel CLI}"
P=$PERFSKEL
. "$(dirname "$0")/lib.sh"
mpirun_of "$flavour"
T=$(mktemp -d "${TMPDIR:-/tmp}/perfskel-onethread.XXXXXX")
trap 'rm -rf "$T"' EXIT

# 1. one thread under MPI_THREAD_MULTIPLE
if ! timeout 300 "$P" record -o "$T/one" -- $MPIRUN -np 2 "$one" >"$T/out" 2>"$T/err"; then
    bad "recording onethread failed"; cat "$T/err"; exit 1
fi
grep -q '"version": 4' "$T/one/job.json" && ok "job.json: trace format 4" || bad "job.json is not format 4"
for r in 0 1; do
    flags=$(od -An -tu4 -j 12 -N 4 "$T/one/rank-00000$r.psk" | tr -d ' ')
    [ "$flags" = 1 ] && ok "rank $r's file records threads (flags 1)" || bad "rank $r's file header flags are '$flags', not 1"
done
"$P" dump "$T/one" >"$T/dump" 2>"$T/err" || { bad "dump failed"; cat "$T/err"; }
if grep -q ' MPI_Init_thread i1=3 i2=3$' "$T/dump" && ! grep -q ' thread=' "$T/dump"; then
    ok "every call from the thread that initialised MPI, under MPI_THREAD_MULTIPLE"
else
    bad "the dump lacks MPI_Init_thread i2=3 or names another thread"; grep -m 3 'Init_thread\| thread=' "$T/dump"
fi
replays "$T/one" "the one-thread trace" folded

# 2. four threads of each rank at once: recorded with their numbers, kept
#    by merging, refused by the replays
if ! timeout 300 "$P" record -o "$T/multi" -- $MPIRUN -np 2 "$multi" 200 >"$T/out" 2>"$T/err"; then
    bad "recording threads failed"; cat "$T/err"; exit 1
fi
"$P" dump "$T/multi" >"$T/dump" 2>"$T/err" || bad "dump of the threads trace failed"
for r in 0 1; do
    n=$(awk -v r=$r '$1 == r { for (i = 6; i <= NF; i++) if ($i ~ /^thread=[1-4]$/) t[$i] = 1 } END { print length(t) }' "$T/dump")
    [ "$n" = 4 ] && ok "rank $r's calls name threads 1 to 4" || bad "rank $r's calls name $n threads besides thread 0, not 4"
done
"$P" merge -q "$T/multi" -o "$T/multi.pskm" 2>"$T/err" || { bad "merge failed"; cat "$T/err"; }
"$P" dump "$T/multi.pskm" >"$T/dumpm" 2>"$T/err" || bad "dump of the merged trace failed"
cmp -s "$T/dump" "$T/dumpm" && ok "the merged trace keeps each call's thread" || bad "the merged trace's calls differ"
m=$T/multi
expect 1 "^perfskel: $m: rank [01] made its MPI calls from more than one thread under MPI_THREAD_MULTIPLE" \
    "sim refuses the calls of several threads" -- "$P" sim "$m"
expect 1 "^perfskel: $m: rank [01] made its MPI calls from 5 threads under MPI_THREAD_MULTIPLE" \
    "sim --folded refuses the calls of several threads" -- "$P" sim "$m" --folded -q
expect 1 "^perfskel: $m: rank [01] made its MPI calls from 5 threads under MPI_THREAD_MULTIPLE" \
    "gen refuses the calls of several threads" -- "$P" gen "$m" -K 2 -o "$T/s.c"
expect 1 "^perfskel: $m: rank [01] made its MPI calls from 5 threads under MPI_THREAD_MULTIPLE" \
    "predict refuses the calls of several threads" -- "$P" predict "$m" -K 10 -q -- $MPIRUN -np 2
[ "$(wc -l <"$T/err")" -eq 1 ] && ok "predict's refusal is one line" || { bad "predict said more than one line"; cat "$T/err"; }

# 3. synthetic traces: an older perfskel's, one thread, two threads
for c in "3 1 old" "4 1 one" "4 2 two"; do
    set -- $c
    "$synth" "$T/s$3" "$1" "$2" || { bad "synth_threads $1 $2 failed"; continue; }
done
expect 1 "^perfskel: $T/sold: rank 0 was recorded under MPI_THREAD_MULTIPLE by a perfskel that did not record which thread" \
    "sim refuses a format-3 trace under MPI_THREAD_MULTIPLE" -- "$P" sim "$T/sold"
expect 1 "^perfskel: $T/sold: rank 0 was recorded under MPI_THREAD_MULTIPLE by a perfskel that did not record which thread" \
    "gen refuses a format-3 trace under MPI_THREAD_MULTIPLE" -- "$P" gen "$T/sold" -K 2 -o "$T/s.c"
expect 0 "" "sim replays a format-4 trace of one thread" -- "$P" sim "$T/sone" -q
expect 0 "" "gen makes a skeleton of a format-4 trace of one thread" -- "$P" gen "$T/sone" -K 2 -o "$T/s.c"
expect 1 "^perfskel: $T/stwo: rank 1 made its MPI calls from more than one thread" \
    "sim refuses rank 1's two threads" -- "$P" sim "$T/stwo"
expect 1 "^perfskel: $T/stwo: rank 1 made its MPI calls from 2 threads" \
    "gen refuses rank 1's two threads" -- "$P" gen "$T/stwo" -K 2 -o "$T/s.c"

[ $fails -eq 0 ] || { echo "$fails failed"; exit 1; }

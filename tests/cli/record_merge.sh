#!/bin/sh
# record_merge.sh FLAVOUR HEAT CRASH: the merge inside the job (README.md,
# "Merging in the job"; docs/merged-format.md, "Inside the job"). `perfskel
# record --merge` of examples/heat.c on 4 ranks writes DIR/merged.pskm,
# byte-identical to `perfskel merge DIR` of the same files, and fold, sim and
# gen take it; with rank 0's directory apart from the others' (an MPMD launch
# giving each its own PSK_TRACE_DIR, as node-local disks would), rank 0 reads
# the other ranks' files over MPI, through them, and writes the same merge
# without copying them; PSK_MERGE given to other ranks than rank 0 changes
# nothing (rank 0 decides for all, so no Finalize waits for a merge that will
# not come); a rank killed before Finalize leaves the others' files and a
# readable trace, and the command says the merge did not happen. Needs
# PERFSKEL.
set -u
P=${PERFSKEL:?}
flavour=$1
heat=$2
crash=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
L=$(dirname "$P")/libperfskel-record-$flavour.so
case $flavour in
openmpi) pass="-x PSK_MERGE=1" ;;
mpich) pass="-genv PSK_MERGE 1" ;;
*) echo "usage: $0 openmpi|mpich HEAT CRASH" >&2; exit 2 ;;
esac
mpirun_of "$flavour"
run=$MPIRUN
hargs="256 100" # heat's grid and steps: a quarter of its default run (a 4-rank job on 2 cores)

# one directory for all ranks
# shellcheck disable=SC2086
if timeout -k 10 200 "$P" record --merge -o "$T/d" -- $run -np 4 "$heat" $hargs </dev/null >"$T/out" 2>"$T/err"; then
    grep -q "^perfskel: merged 4 ranks in the job into $T/d/merged.pskm" "$T/err" &&
        ok "record --merge: merged in the job" || { bad "record --merge: no merge said"; cat "$T/err"; }
else
    bad "record --merge failed"; cat "$T/err"
fi
# and its loops, folded by rank 0 in the job, as perfskel fold -o writes them
grep -q "^perfskel: folded the [0-9]* merged events to [0-9]*.*main loop x[0-9]*.*$T/d/merged.fold.json" "$T/err" &&
    "$P" fold "$T/d/merged.pskm" --json 2>/dev/null | grep -v '"seconds"\|"input"' >"$T/fold.want" &&
    grep -v '"seconds"\|"input"' "$T/d/merged.fold.json" | cmp -s - "$T/fold.want" && grep -q '"main_loop": {' "$T/fold.want" &&
    ok "record --merge: the loops folded into merged.fold.json, as perfskel fold" ||
    { bad "record --merge: no merged.fold.json, or not fold's"; cat "$T/err"; }
"$P" merge "$T/d" -o "$T/offline.pskm" -q 2>"$T/err" || { bad "offline merge failed"; cat "$T/err"; }
cmp -s "$T/d/merged.pskm" "$T/offline.pskm" && ok "the same bytes as perfskel merge" ||
    bad "the merge in the job differs from perfskel merge"
"$P" dump "$T/d" >"$T/dump.trace" && "$P" dump "$T/d/merged.pskm" >"$T/dump.merged" &&
    cmp -s "$T/dump.trace" "$T/dump.merged" && ok "every rank rebuilt exactly from it" ||
    bad "the merged trace does not give back the recorded events"
"$P" fold "$T/d/merged.pskm" --json >"$T/fold.json" 2>"$T/err" && grep -q '"main_loop"' "$T/fold.json" &&
    ok "fold takes it" || { bad "fold of the merged trace"; cat "$T/err"; }
"$P" sim "$T/d/merged.pskm" --folded --json >"$T/sim.json" 2>"$T/err" && grep -q '"predicted_seconds"' "$T/sim.json" &&
    ok "sim takes it" || { bad "sim of the merged trace"; cat "$T/err"; }
"$P" gen "$T/d/merged.pskm" -K 4 --min-sample 0 -o "$T/skel.c" >/dev/null 2>"$T/err" && [ -s "$T/skel.c" ] &&
    ok "gen takes it" || { bad "gen of the merged trace"; cat "$T/err"; }

# --merge-times summary: the summarised merged trace, as perfskel merge --times summary
# shellcheck disable=SC2086
if timeout -k 10 200 "$P" record --merge --merge-times summary -o "$T/m" -- $run -np 4 "$heat" $hargs </dev/null >"$T/out" 2>"$T/err"; then
    "$P" merge "$T/m" --times summary -o "$T/m-offline.pskm" -q 2>"$T/err"
    cmp -s "$T/m/merged.pskm" "$T/m-offline.pskm" && ok "--merge-times summary: the same bytes as merge --times summary" ||
        bad "--merge-times summary: differs from merge --times summary"
    "$P" merge "$T/m" -o "$T/m-all.pskm" -q 2>/dev/null
    cmp -s "$T/m/merged.pskm" "$T/m-all.pskm" && bad "--merge-times summary: every rank's times kept"
    "$P" sim "$T/m/merged.pskm" --folded --json >"$T/sim.json" 2>"$T/err" && grep -q '"predicted_seconds"' "$T/sim.json" &&
        ok "--merge-times summary: sim takes it" || { bad "--merge-times summary: sim"; cat "$T/err"; }
else
    bad "record --merge --merge-times summary failed"; cat "$T/err"
fi

# rank 0's directory apart from the other ranks'
mkdir -p "$T/a" "$T/b"
# shellcheck disable=SC2086
if timeout -k 10 200 $run $pass -np 1 env LD_PRELOAD="$L" PSK_TRACE_DIR="$T/a" "$heat" $hargs : \
    -np 3 env LD_PRELOAD="$L" PSK_TRACE_DIR="$T/b" "$heat" $hargs </dev/null >"$T/out" 2>"$T/err"; then
    ok "apart: the job ran"
else
    bad "apart: the job failed"; cat "$T/err"
fi
[ -s "$T/a/merged.pskm" ] && grep -q '"main_loop": {' "$T/a/merged.fold.json" &&
    ok "apart: rank 0 merged and folded (the library alone, no perfskel record)" ||
    { bad "apart: no merged trace or no fold"; cat "$T/err"; }
# rank 0 read the other ranks' files over MPI: none was copied to its directory
! ls "$T"/a/rank-00000[123].psk >/dev/null 2>&1 && [ -s "$T/b/rank-000003.psk" ] &&
    ok "apart: merged without the other ranks' files in rank 0's directory" ||
    { bad "apart: rank files copied, or missing"; ls "$T/a" "$T/b"; }
mkdir -p "$T/ab" && cp "$T"/a/job.json "$T"/a/rank-*.psk "$T"/b/rank-*.psk "$T/ab/" &&
    "$P" merge "$T/ab" -o "$T/a-offline.pskm" -q 2>/dev/null && cmp -s "$T/a/merged.pskm" "$T/a-offline.pskm" &&
    ok "apart: the same bytes as perfskel merge of the files put together" || bad "apart: differs from perfskel merge"

# rank 0 may hold fewer files open than there are ranks (ulimit -n 24:
# its readers' pool keeps at most 12 open): the other ranks' files, each
# of several blocks and in another directory, are let go and read again
# over MPI where they were left; the same bytes. Open MPI only (MPICH's
# UCX does not start with so few files).
if [ "$flavour" = openmpi ]; then
    mkdir -p "$T/fa" "$T/fb" "$T/fab"
    # shellcheck disable=SC2086
    timeout -k 10 200 $run -np 1 env PSK_MERGE=1 PSK_TRACE_DIR="$T/fa" LD_PRELOAD="$L" \
        sh -c "ulimit -n 24 && exec '$crash' ok 20000" : \
        -np 19 env PSK_TRACE_DIR="$T/fb" LD_PRELOAD="$L" "$crash" ok 20000 </dev/null >"$T/out" 2>"$T/err"
    cp "$T"/fa/job.json "$T"/fa/rank-*.psk "$T"/fb/rank-*.psk "$T/fab/" 2>/dev/null
    "$P" merge "$T/fab" -o "$T/fab.pskm" -q 2>/dev/null && cmp -s "$T/fa/merged.pskm" "$T/fab.pskm" &&
        [ "$(wc -c <"$T/fb/rank-000019.psk")" -gt 140000 ] &&
        ok "few open files on rank 0 (ulimit -n 24), 20 ranks of several blocks: the same bytes" ||
        { bad "few open files on rank 0"; cat "$T/err"; ls -l "$T/fa" "$T/fb"; }
fi

# --merge-only: the same merge, no rank files left (each rank's gone once
# read, rank 0's copies once merged)
# shellcheck disable=SC2086
if timeout -k 10 200 "$P" record --merge-only -o "$T/o" -- $run -np 4 "$heat" $hargs </dev/null >"$T/out" 2>"$T/err"; then
    n1=$(sed -n 's/.* ranks, \([0-9]*\) events recorded.*/\1/p' "$T/err")
    n0=$("$P" stats "$T/d" --json | awk -F: '/"events"/ { gsub(/[^0-9]/, "", $2); print $2; exit }')
    [ -s "$T/o/merged.pskm" ] && [ -s "$T/o/job.json" ] && ! ls "$T"/o/rank-*.psk >/dev/null 2>&1 &&
        [ "$n1" = "$n0" ] && ok "--merge-only: merged, no rank files, $n1 events as with --merge" ||
        { bad "--merge-only: $n1 events (want $n0)"; ls "$T/o"; cat "$T/err"; }
    "$P" dump "$T/o/merged.pskm" >"$T/dump.o" 2>/dev/null && [ "$(wc -l <"$T/dump.o")" -gt "$n0" ] &&
        ok "--merge-only: the merged trace rebuilds every rank" || bad "--merge-only: dump of the merged trace"
else
    bad "record --merge-only failed"; cat "$T/err"
fi
mkdir -p "$T/oa" "$T/ob"
# shellcheck disable=SC2086
timeout -k 10 200 $run -np 1 env LD_PRELOAD="$L" PSK_MERGE=only PSK_TRACE_DIR="$T/oa" "$heat" $hargs : \
    -np 3 env LD_PRELOAD="$L" PSK_TRACE_DIR="$T/ob" "$heat" $hargs </dev/null >"$T/out" 2>"$T/err" &&
    [ -s "$T/oa/merged.pskm" ] && ! ls "$T"/oa/rank-*.psk "$T"/ob/rank-*.psk >/dev/null 2>&1 &&
    ok "--merge-only apart: merged on rank 0, no rank files on either side" ||
    { bad "PSK_MERGE=only apart"; ls "$T/oa" "$T/ob"; cat "$T/err"; }

# PSK_MERGE on ranks 1-3 only: no merge, no hang
mkdir -p "$T/c"
# shellcheck disable=SC2086
timeout -k 10 200 $run -np 1 env LD_PRELOAD="$L" PSK_TRACE_DIR="$T/c" "$heat" $hargs : \
    -np 3 env LD_PRELOAD="$L" PSK_TRACE_DIR="$T/c" PSK_MERGE=1 "$heat" $hargs </dev/null >"$T/out" 2>"$T/err" &&
    [ ! -e "$T/c/merged.pskm" ] && [ -s "$T/c/rank-000003.psk" ] &&
    ok "PSK_MERGE on other ranks than 0: no merge, the job ends" || { bad "PSK_MERGE on ranks 1-3"; cat "$T/err"; }

# a rank killed before Finalize: the files stay, the command says why
# shellcheck disable=SC2086
timeout -k 10 200 "$P" record --merge -o "$T/k" -- $run -np 2 "$crash" kill 20000 </dev/null >"$T/out" 2>"$T/err"
st=$?
[ $st -ne 0 ] && [ ! -e "$T/k/merged.pskm" ] && [ -s "$T/k/rank-000000.psk" ] &&
    ok "a rank killed: exit $st, no merged trace, the files stay" || { bad "a rank killed (exit $st)"; cat "$T/err"; }
n=$("$P" dump "$T/k" --rank 1 2>/dev/null | grep -c MPI_Allreduce)
[ "$n" -gt 1000 ] && [ "$n" -lt 20000 ] && ok "a rank killed: $n of its events readable" ||
    bad "a rank killed: $n of its events readable"
[ "$fails" -eq 0 ]

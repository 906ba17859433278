#!/bin/sh
# Fault tests of perfskel record and its readers, with real MPI jobs:
# faults.sh FLAVOUR CRASH_PROGRAM [HEAT_PROGRAM [COLLECTIVES_PROGRAM
# [WILDCARD_PROGRAM]]].
# Needs PERFSKEL (path of the CLI).
# Each case checks the exit status and that the one-line error names the
# file and the problem; a killed rank's trace must still be readable up to
# its last complete block.
set -u
FL=$1
PROG=$2
HEAT=${3:-}
COLL=${4:-}
WILD=${5:-}
P=${PERFSKEL:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
MPIRUN="mpirun.$FL"
[ "$FL" = openmpi ] && MPIRUN="$MPIRUN --allow-run-as-root --oversubscribe"

. "$(dirname "$0")/lib.sh"

rec() { # rec DIR MODE N
    timeout 120 "$P" record -o "$T/$1" -- $MPIRUN -np 2 "$PROG" "$2" "$3" >"$T/rec.out" 2>"$T/rec.err"
}

# a clean run is complete
rec good ok 200 || { bad "clean run failed"; cat "$T/rec.err"; }
expect 0 "" "clean trace reads" -- "$P" stats "$T/good"
rec good2 ok 200

# the recorded clock agrees with MPI_Wtime: the gap between the two barriers
# of `crash clock 300` is the busy wait, within 1 %
rec clock clock 300
grep "clock rank 1" "$T/rec.out" >/dev/null || { bad "clock run failed"; cat "$T/rec.err"; }
want=$(sed -n 's/^clock rank 1: \([0-9]*\) ns/\1/p' "$T/rec.out")
got=$("$P" dump "$T/clock" --rank 1 --json | awk -F'[:,]' '/MPI_Barrier/ { for (i = 1; i < NF; i++) { if ($i ~ /t_entry_ns/) e = $(i+1); if ($i ~ /t_exit_ns/) x = $(i+1) } if (n++) print e - prev; prev = x }')
if [ -n "$want" ] && [ -n "$got" ] && awk -v w="$want" -v g="$got" 'BEGIN { d = (g - w) / w; exit !(d > -0.01 && d < 0.01) }'; then
    ok "recorded gap ${got} ns vs MPI_Wtime ${want} ns"
else
    bad "recorded gap '${got}' ns vs MPI_Wtime '${want}' ns"
fi

# requests outstanding together have different ids, even when the MPI hands
# out one handle for all eagerly completed sends
rec reqs reqs 20 || { bad "reqs run failed"; cat "$T/rec.err"; }
dups=$("$P" dump "$T/reqs" | awk '/MPI_Waitall/ { s = $0; sub(/.*reqs=\[/, "", s); sub(/\].*/, "", s);
    n = split(s, a, ","); delete seen; for (i = 1; i <= n; i++) { if (a[i] in seen || a[i] < 0) d++; seen[a[i]] = 1 } c++ }
    END { print c + 0, d + 0 }')
[ "$dups" = "40 0" ] && ok "40 Waitalls of 16 distinct request ids" || bad "Waitalls, duplicate ids: $dups (want 40 0)"

# SIGKILL: the block being filled is lost, complete blocks stay readable
rec killed kill 40000
[ $? -ne 0 ] && ok "killed job: record reports failure" || bad "killed job: record exited 0"
expect 1 "rank-000001.psk: ends after .* events in .* complete blocks: the rank did not reach MPI_Finalize" \
    "killed rank: stats says where the trace ends" -- "$P" stats "$T/killed"
n=$("$P" dump "$T/killed" --rank 1 2>/dev/null | grep -c MPI_Allreduce)
[ "$n" -gt 1000 ] && [ "$n" -lt 40000 ] && ok "killed rank: $n events readable" || bad "killed rank: $n events readable"

# SIGTERM: the rank writes all it holds
rec termed term 3000
n=$("$P" dump "$T/termed" --rank 1 2>/dev/null | grep -c MPI_Allreduce)
[ "$n" -eq 3000 ] && ok "SIGTERM: all 3000 events kept" || bad "SIGTERM: $n of 3000 events kept"
expect 1 "rank-000001.psk: ends after 3001 events" "SIGTERM: reported as cut short" -- "$P" stats "$T/termed"

# a segmentation fault: the rank writes all it holds, then the MPI's handler
rec segv segv 2000
n=$("$P" dump "$T/segv" --rank 1 2>/dev/null | grep -c MPI_Allreduce)
[ "$n" -eq 2000 ] && ok "SIGSEGV: all 2000 events kept" || bad "SIGSEGV: $n of 2000 events kept"

# a stack overflow: the handler runs on the recorder's own stack, so the
# rank still writes all it holds
rec overflow overflow 2000
n=$("$P" dump "$T/overflow" --rank 1 2>/dev/null | grep -c MPI_Allreduce)
[ "$n" -eq 2000 ] && ok "stack overflow: all 2000 events kept" || bad "stack overflow: $n of 2000 events kept"

# MPI_Abort: recorded as the last event
rec aborted abort 50
last=$("$P" dump "$T/aborted" --rank 1 2>/dev/null | tail -1)
case "$last" in *MPI_Abort*i1=3*) ok "MPI_Abort recorded last with its error code" ;; *) bad "MPI_Abort: last event '$last'" ;; esac

# exit() without MPI_Finalize
rec exited exit 50
n=$("$P" dump "$T/exited" --rank 1 2>/dev/null | grep -c MPI_Allreduce)
[ "$n" -eq 50 ] && ok "exit without MPI_Finalize: 50 events kept" || bad "exit without MPI_Finalize: $n events"
# the simulator replays an unfinished job up to where its ranks' traces
# end, and says so; if a rank left no complete block at all (MPICH here:
# rank 0's events were still buffered when it exited), it says which file
if "$P" sim "$T/exited" -q --json >"$T/sim.json" 2>"$T/err"; then
    if grep -q '"ranks_ended_early": [12]' "$T/sim.json" && "$P" sim "$T/exited" -q | grep -q "ended before MPI_Finalize"; then
        ok "sim: a job that exited early is replayed up to the end of its traces, with a note"
    else
        bad "sim on a job that exited early: no note"
    fi
elif [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "rank-0.*did not reach MPI_Finalize" "$T/err"; then
    ok "sim: a job that exited early with a rank's trace empty: one line naming its file"
else
    bad "sim on a job that exited early"; cat "$T/err"
fi
# folding needs every rank complete: one line naming the file
expect 1 "rank-.*did not reach MPI_Finalize" "sim --folded: a job that exited early" -- "$P" sim "$T/exited" --folded

# a file cut short inside a block
cp -r "$T/good" "$T/trunc"
f="$T/trunc/rank-000000.psk"
truncate -s $(($(stat -c %s "$f") - 7)) "$f"
expect 1 "rank-000000.psk: truncated inside a block" "truncated file" -- "$P" stats "$T/trunc"
expect 1 "rank-000000.psk" "truncated file: dump names it" -- "$P" dump "$T/trunc" --rank 0

# a corrupted byte in a block
cp -r "$T/good" "$T/corrupt"
f="$T/corrupt/rank-000001.psk"
flip "$f" 200
expect 1 "rank-000001.psk: corrupt block 0 at byte 64 (checksum mismatch)" "corrupted block" -- "$P" stats "$T/corrupt"

# a corrupted file header
cp -r "$T/good" "$T/corrupthdr"
flip "$T/corrupthdr/rank-000000.psk" 20
expect 1 "rank-000000.psk: corrupt file header" "corrupted header" -- "$P" stats "$T/corrupthdr"

# rank files of two different runs
cp -r "$T/good" "$T/mixed"
cp "$T/good2/rank-000001.psk" "$T/mixed/"
expect 1 "rank-000001.psk: belongs to job .* (files of two different runs)" "mixed jobs" -- "$P" stats "$T/mixed"

# a rank missing
cp -r "$T/good" "$T/missing"
rm "$T/missing/rank-000001.psk"
expect 1 "rank-000001.psk: missing" "missing rank" -- "$P" stats "$T/missing"

# a rank too many
cp -r "$T/good" "$T/extra"
cp "$T/extra/rank-000001.psk" "$T/extra/rank-000002.psk"
expect 1 "rank-000002.psk: rank 2, but job.json says the job had 2 ranks" "extra rank" -- "$P" stats "$T/extra"

# a program argument that is not UTF-8: job.json stays valid JSON (U+FFFD
# for the byte), and the recording says so
timeout 120 "$P" record -o "$T/utf8" -- $MPIRUN -np 2 "$PROG" ok 20 "$(printf 'caf\351')" >"$T/rec.out" 2>"$T/rec.err"
if "$P" stats "$T/utf8" >/dev/null 2>"$T/err" && grep -q 'caf\\ufffd' "$T/utf8/job.json" &&
    grep -q 'job.json: 1 byte of the command line, MPI version or host names is not UTF-8, written as U+FFFD' "$T/rec.err"; then
    ok "a non-UTF-8 argument: job.json readable, the byte as U+FFFD, said so"
else
    bad "a non-UTF-8 argument"; cat "$T/err" "$T/rec.err"; grep command "$T/utf8/job.json"
fi

# a program in a locale with a decimal comma (made with localedef, if the
# locale sources are there; once for both MPIs' runs where LOCALE_CACHE
# names a directory): job.json's numbers are still C's
loc=${LOCALE_CACHE:-$T/loc}
if [ ! -d "$loc/de_DE.UTF-8" ]; then
    mkdir -p "$T/newloc"
    localedef -i de_DE -f UTF-8 "$T/newloc/de_DE.UTF-8" >/dev/null 2>&1
    [ -d "$T/newloc/de_DE.UTF-8" ] && mkdir -p "$loc" && mv -T "$T/newloc/de_DE.UTF-8" "$loc/de_DE.UTF-8" 2>/dev/null
fi
if [ -d "$loc/de_DE.UTF-8" ]; then
    LOCPATH=$loc LC_ALL=de_DE.UTF-8 timeout 120 "$P" record -o "$T/locale" -- $MPIRUN -np 2 "$PROG" locale 20 \
        >"$T/rec.out" 2>"$T/rec.err"
    if "$P" stats "$T/locale" >/dev/null 2>"$T/err" && grep -A2 '"ns_per_unit"' "$T/locale/job.json" | grep -q '^ *[0-9]*\.[0-9]*,$'; then
        ok "a program in a decimal-comma locale: job.json's numbers in C's notation"
    else
        bad "a program in a decimal-comma locale"; cat "$T/err" "$T/rec.err"; grep -A3 ns_per_unit "$T/locale/job.json"
    fi
else
    skipped locales "a program in a decimal-comma locale (localedef -i de_DE)"
fi

# a launcher known only by what it says of itself (--version), at a path
# holding a quote: told without a shell
mkdir -p "$T/it's here"
printf '#!/bin/sh\nexec %s "$@"\n' "$MPIRUN" >"$T/it's here/launch"
chmod +x "$T/it's here/launch"
if timeout 120 "$P" record -o "$T/quoted" -- "$T/it's here/launch" -np 2 "$PROG" ok 10 >"$T/rec.out" 2>"$T/rec.err" &&
    "$P" stats "$T/quoted" >/dev/null 2>&1; then
    ok "a launcher at a path with a quote, told by --version"
else
    bad "a launcher at a path with a quote"; cat "$T/rec.err"
fi

# another format version
cp -r "$T/good" "$T/version"
sed -i 's/"version": [0-9]*,/"version": 9,/' "$T/version/job.json"
expect 1 "job.json: trace format version 9; this perfskel reads versions 1 to 4" "wrong version" -- "$P" stats "$T/version"

# a share of a core that cannot be (job.json's cpu.run_share)
cp -r "$T/good" "$T/share"
/usr/bin/python3 -c 'import json, sys
p = sys.argv[1] + "/job.json"; j = json.load(open(p)); j["cpu"]["run_share"][1] = 1.5; json.dump(j, open(p, "w"))' "$T/share"
expect 1 'job.json: bad "cpu" "run_share" of rank 1 (a share in (0, 1\], or -1)' "a share of a core of 1.5" -- "$P" stats "$T/share"
/usr/bin/python3 -c 'import json, sys
p = sys.argv[1] + "/job.json"; j = json.load(open(p)); j["cpu"]["run_share"][1] = 1; j["cpu"]["on"][0] = 2.5; json.dump(j, open(p, "w"))' "$T/share"
expect 1 'job.json: bad "cpu" "on" of rank 0 (a CPU number, or -1)' "a CPU numbered 2.5" -- "$P" stats "$T/share"
# two ranks of one host with different core counts (sim places a host's
# ranks on its cores: they would index past them)
/usr/bin/python3 -c 'import json, sys
p = sys.argv[1] + "/job.json"; j = json.load(open(p)); j["cpu"]["on"][0] = 0; j["cores"][1] = j["cores"][0] + 3; json.dump(j, open(p, "w"))' "$T/share"
expect 1 'job.json: "cores" of rank 1 ([0-9]*) differs from rank 0'"'"'s ([0-9]*) on the same host' "a host with two core counts" -- "$P" sim "$T/share"

# strings of job.json that would end the skeleton's header comment (a
# command line, the start time, the MPI version written by someone else):
# gen keeps them comment text, so the skeleton compiles and nothing in them
# became code
cp -r "$T/good" "$T/inject"
sed -i -e 's|"command": ".*",|"command": "x */ _Static_assert(0, \\"injected\\"); /* ??/ \\\\ \\u00e9 \\n end",|' \
    -e 's|"start_time": ".*",|"start_time": "*/ _Static_assert(0, \\"time\\"); /*",|' \
    -e 's|"version": "\([^"]*\)"|"version": "*/ _Static_assert(0, \\"mpi\\"); /*"|' "$T/inject/job.json"
if grep -q 'injected' "$T/inject/job.json" && "$P" gen "$T/inject" -K 1 -o "$T/inject.c" >/dev/null 2>"$T/err" &&
    "mpicc.$FL" -fsyntax-only "$T/inject.c" 2>"$T/cc"; then
    ok "job.json strings that end a comment stay comment text in the skeleton"
else
    bad "job.json strings made code of the skeleton or failed"; cat "$T/err"; head -n 5 "$T/cc"
fi
# the same strings reaching gen from a merged file's job section
if "$P" merge --no-reorder "$T/inject" -o "$T/inject.pskm" >/dev/null 2>"$T/err" &&
    "$P" gen "$T/inject.pskm" -K 1 -o "$T/inject2.c" >/dev/null 2>"$T/err" &&
    grep -q 'injected' "$T/inject2.c" && "mpicc.$FL" -fsyntax-only "$T/inject2.c" 2>"$T/cc"; then
    ok "a merged file's job strings stay comment text in the skeleton"
else
    bad "a merged file's job strings made code of the skeleton or failed"; cat "$T/err"; head -n 5 "$T/cc"
fi

# not a trace at all
expect 1 "no such trace directory" "no directory" -- "$P" stats "$T/nothing"
mkdir "$T/empty"
expect 1 "job.json: missing" "empty directory" -- "$P" stats "$T/empty"

# every data error above is exactly one line
for d in trunc corrupt mixed missing version; do
    "$P" stats "$T/$d" >/dev/null 2>"$T/err"
    [ "$(wc -l <"$T/err")" -eq 1 ] && ok "$d: one-line error" || { bad "$d: $(wc -l <"$T/err") lines"; cat "$T/err"; }
done

# usage errors exit 2
expect 2 "no trace directory given" "stats without directory" -- "$P" stats
expect 2 "no launcher given" "record without launcher" -- "$P" record -o "$T/x"
expect 2 "unknown command" "unknown command" -- "$P" frobnicate
expect 2 "cannot tell which MPI" "unknown launcher" -- "$P" record -- /bin/true

# skeletons: bad K, a rank missing, a launcher with another rank count
expect 2 "-K takes a whole number" "gen: K below 1" -- "$P" gen "$T/good" -K 0 -o "$T/s.c"
expect 1 "rank-000001.psk: missing" "gen: a rank missing" -- "$P" gen "$T/missing" -K 2 -o "$T/s.c"
expect 0 "skeleton written" "gen: the clean trace" -- "$P" gen "$T/good" -K 2 -o "$T/s.c"
timeout 120 "$P" predict "$T/good" -K 2 --repeat 1 -- $MPIRUN -np 3 >"$T/out" 2>"$T/err"
st=$?
if [ $st -eq 1 ] && grep -q "recorded with 2 ranks, run with 3" "$T/err" &&
    grep -q "^perfskel: .*the skeleton exited with status" "$T/err"; then
    ok "predict: a launcher with 3 ranks for a 2-rank recording"
else
    bad "predict with 3 ranks: exit $st"; cat "$T/err"
fi
timeout 120 "$P" predict "$T/good" -K 2 --repeat 1 --json -- $MPIRUN -np 2 >"$T/out" 2>"$T/err"
if grep -q '"predicted_seconds"' "$T/out" && grep -q '"skeleton_seconds"' "$T/out" && grep -q '"K": 2' "$T/out"; then
    ok "predict --json: predicted_seconds, skeleton_seconds, K"
else
    bad "predict --json"; cat "$T/out" "$T/err"
fi

# the bundled example's skeleton: MPI_PROC_NULL at the boundaries must stay
# MPI_PROC_NULL in this MPI's numbering
if [ -n "$HEAT" ]; then
    timeout 120 "$P" record -o "$T/heat" -- $MPIRUN -np 2 "$HEAT" 64 50 >/dev/null 2>&1 || bad "heat run failed"
    if timeout 120 "$P" predict "$T/heat" -K 5 --repeat 1 -- $MPIRUN -np 2 >"$T/out" 2>"$T/err" &&
        grep -q "predicted run time" "$T/out"; then
        ok "predict: heat's skeleton (MPI_PROC_NULL boundaries) runs"
    else
        bad "predict on heat"; cat "$T/err"
    fi
fi

# the simulator on heat: a prediction, its MPI_Pcontrol intervals, an HTML
# report that headless Chromium opens without console errors; and a bad
# machine file
if [ -n "$HEAT" ] && [ -d "$T/heat" ]; then
    if "$P" sim "$T/heat" --json -q --html "$T/heat.html" >"$T/sim.json" 2>"$T/err" &&
        grep -q '"predicted_seconds"' "$T/sim.json" && grep -q '"name": "pcontrol 3"' "$T/sim.json" &&
        [ "$(grep -c '<svg' "$T/heat.html")" -eq 2 ]; then
        ok "sim: heat predicted, its Pcontrol intervals, an HTML report with two plots"
    else
        bad "sim on heat"; cat "$T/err"
    fi
    if command -v chromium >/dev/null; then
        # --enable-logging prints the page's console messages as CONSOLE lines
        if timeout 120 chromium --headless=new --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
            --dump-dom "file://$T/heat.html" >"$T/dom.html" 2>"$T/chromium.err" &&
            grep -q 'id="iv2"' "$T/dom.html" && ! grep -q 'CONSOLE' "$T/chromium.err"; then
            ok "sim: the HTML report opens in headless Chromium without console errors"
        else
            bad "sim: headless Chromium on the HTML report"; grep CONSOLE "$T/chromium.err" | head -5
        fi
    else
        skipped chromium "sim: the HTML report in headless Chromium"
    fi
    # the loops fold finds, as intervals: heat's 50 steps are 5 x (10 steps + an Allreduce)
    if "$P" sim "$T/heat" --intervals loops --json -q >"$T/simloops.json" 2>"$T/err" &&
        grep -q '"name": "loop [0-9]* (5 iterations[,)]' "$T/simloops.json" &&
        grep -q '"name": "loop [0-9]* (10 iterations[,)]' "$T/simloops.json"; then
        ok "sim --intervals loops: heat's two nested loops are intervals"
    else
        bad "sim --intervals loops on heat"; cat "$T/err"; grep '"name"' "$T/simloops.json"
    fi
    # export --smpi: SMPI's replay format; replayed by smpirun when it is there
    if "$P" export --smpi "$T/heat" -o "$T/smpi" >/dev/null 2>"$T/err" &&
        [ "$(sed -n 1p "$T/smpi/rank-0.txt")" = "0 init" ] && [ "$(tail -n 1 "$T/smpi/rank-1.txt")" = "1 finalize" ] &&
        grep -q '^0 irecv 1 0 ' "$T/smpi/rank-0.txt" && grep -q '^0 wait ' "$T/smpi/rank-0.txt" &&
        grep -q '^1 allreduce ' "$T/smpi/rank-1.txt" && [ "$(wc -l <"$T/smpi/traces.txt")" -eq 2 ]; then
        ok "export --smpi: heat in SMPI's trace format"
    else
        bad "export --smpi of heat"; cat "$T/err"; head -n 5 "$T/smpi/rank-0.txt"
    fi
    if ! command -v smpirun >/dev/null; then
        skipped libsimgrid-dev "export --smpi: the replay by SimGrid's smpirun"
    elif [ -d "$T/smpi" ]; then
        if (cd "$T/smpi" && timeout 120 smpirun -np 2 -platform platform.xml -hostfile hostfile -replay traces.txt) \
            >"$T/smpi.out" 2>&1 && grep -q "Simulation time" "$T/smpi.out"; then
            ok "export --smpi: smpirun -replay runs it"
        else
            bad "smpirun -replay of the exported heat"; tail -n 5 "$T/smpi.out"
        fi
    fi
    printf 'type = bus;\nstart time = 3;\nlatency = 5;\n' >"$T/bad.par"
    expect 1 "bad.par:3: unknown key 'latency'" "sim: an unknown key in the machine file, with its line" -- \
        "$P" sim "$T/heat" --machine "$T/bad.par"
    printf 'type = grid; topology = {1};\n' >"$T/small.par"
    expect 1 "small.par: the topology has 1 nodes; the trace's 2 ranks" "sim: a grid too small for the ranks" -- \
        "$P" sim "$T/heat" --machine "$T/small.par"
    expect 1 "no-such.par" "sim: a machine file that does not exist" -- "$P" sim "$T/heat" --machine "$T/no-such.par"
    expect 2 "no trace directory" "sim: no trace" -- "$P" sim
    # from the folded trace: heat's 100 x (10 steps + an Allreduce), some of
    # them skipped once they repeat (40-80 in 37 recordings, idle and under
    # load; at least one is asked; with 40 x, 2 of 9 recordings on an idle
    # machine had an outlier that left no room for a window: 0 and 4);
    # the intervals of its loops; the HTML report
    timeout 120 "$P" record -o "$T/heat1000" -- $MPIRUN -np 2 "$HEAT" 64 1000 >/dev/null 2>&1 || bad "heat run failed"
    if "$P" sim "$T/heat1000" --folded --intervals loops --json -q --html "$T/heatf.html" >"$T/simf.json" 2>"$T/err" &&
        grep -q '"folded": true' "$T/simf.json" && grep -q '"iterations_skipped": [1-9]' "$T/simf.json" &&
        grep -q '"name": "loop [0-9]* (10 iterations[,)]' "$T/simf.json" &&
        [ "$(grep -c '<svg' "$T/heatf.html")" -eq 2 ]; then
        ok "sim --folded: heat from its loop tree, identical iterations skipped, loop intervals"
    else
        bad "sim --folded on heat"; cat "$T/err"; head -n 8 "$T/simf.json"
    fi
    expect 2 "no-skip goes with --folded" "sim: --no-skip alone" -- "$P" sim "$T/heat" --no-skip
fi

# every kind of collective, blocking and nonblocking, on a split
# communicator too, with 3 ranks: the skeleton builds and runs
if [ -n "$COLL" ]; then
    timeout 120 "$P" record -o "$T/coll" -- $MPIRUN -np 3 "$COLL" >/dev/null 2>&1 || bad "collectives run failed"
    if timeout 120 "$P" predict "$T/coll" -K 2 --repeat 1 -- $MPIRUN -np 3 >"$T/out" 2>"$T/err" &&
        grep -q "predicted run time" "$T/out"; then
        ok "predict: the collectives program's skeleton runs"
    else
        bad "predict on the collectives program"; cat "$T/err"
    fi
fi

# wildcard receives are replayed from the sources recorded in their
# statuses: the skeleton's rank 0 receives from the same ranks in the same
# order as the original (blocking receives, Irecv + Waitall, Irecv + Wait)
if [ -n "$WILD" ]; then
    timeout 120 "$P" record -o "$T/wild" -- $MPIRUN -np 4 "$WILD" >"$T/wild.out" 2>"$T/err" || bad "wildcard run failed"
    want=$(awk '$1 ~ /_sources$/ { for (i = 2; i <= NF; i++) printf "%s ", $i }' "$T/wild.out")
    if "$P" gen "$T/wild" -K 1 -o "$T/wild.c" 2>"$T/err" && "mpicc.$FL" -O1 -o "$T/wild.skel" "$T/wild.c" 2>"$T/err" &&
        timeout 120 "$P" record -o "$T/wildskel" -- $MPIRUN -np 4 "$T/wild.skel" >/dev/null 2>"$T/err"; then
        got=$("$P" dump "$T/wildskel" --rank 0 | awk '$5 == "MPI_Recv" || $5 == "MPI_Irecv" {
            for (i = 6; i <= NF; i++) if ($i ~ /^peer=/) printf "%s ", substr($i, 6) }')
        if [ -n "$want" ] && [ "$got" = "$want" ]; then
            ok "gen: wildcard receives replayed from their recorded sources ($want)"
        else
            bad "gen: the skeleton received from '$got', the original from '$want'"
        fi
    else
        bad "gen/run of the wildcard program's skeleton"; cat "$T/err"
    fi
fi

[ "$fails" -eq 0 ] && echo "faults.sh $FL: all passed" || echo "faults.sh $FL: $fails failed"
[ "$fails" -eq 0 ]

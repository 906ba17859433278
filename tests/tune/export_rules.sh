#!/usr/bin/env bash
# export_rules.sh FLAVOUR PROG [SHIM]
#
# perfskel tune --export-rules (docs/tune.md "Taking the decisions home"):
# a crafted decision file (settled psk2 lines, a psk1 line, lines still
# exploring or starting, two sites of one key that disagree, lines of the
# other MPI) is exported, and PROG (export_prog.c) runs on 4 ranks with the
# exported file and no perfskel library.
#   openmpi: SHIM (export_shim.c, preloaded) names the coll_tuned base
#       algorithm each call ran. Every call in a decided size class (its
#       first and last byte counts) must run the decision's algorithm; every
#       call outside them, and every call on a communicator of 3 ranks, what
#       Open MPI runs without the file; and per collective at least one
#       decision must differ from what Open MPI runs without the file (or
#       the check would prove nothing). Also: perfskel tune's errors of
#       --export-rules (one line, exit 1 or 2).
#   mpich: MPICH's algorithms cannot be seen from outside (its internal
#       functions are hidden, it has no MPI_T pvar for them, and at 4 ranks
#       its recursive doubling and reduce-scatter/allgather allreduce add in
#       the same order). What is checked: every result right with the file;
#       the file is read (a copy naming an unknown algorithm makes the job
#       fail); and each decision's range routes to its rule: a copy whose
#       one rule names another collective's algorithm makes a call inside
#       that range fail, and calls just outside it pass.
set -u
fl=$1 prog=$2 shim=${3:-}
P=${PERFSKEL:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../cli/lib.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_pml=ob1

# a psk2 settled line: MPI P MODULE OFFSET CLASS COLL ARM CALLS
s2() { echo "psk2 box:1 $1 $2 $3 $4 $5 $6 settled $7 $8 1000.0 0.0 10.0 1795000000"; }

if [ "$fl" = openmpi ]; then
    M=openmpi-4.1.4
    {
        echo "# crafted for tests/tune/export_rules.sh"
        s2 $M 4 app 0x10 10 alltoall bruck 400
        echo "psk1 box:1 $M 4 app 0x18 11 pair_lb 200 1000.0 2000.0 1795000000"
        s2 $M 4 app 0x10 12 alltoall spread 400
        s2 $M 4 app 0x10 14 alltoall ring 300
        s2 $M 4 other 0x20 14 alltoall pair 20 # disagrees, fewer calls: not taken
        echo "psk2 box:1 $M 4 app 0x90 13 alltoall exploring bruck 50 1000.0 0.0 10.0 1795000000 native:d:- pair:a:0.1"
        echo "psk2 box:1 $M 4 app 0x80 9 alltoall start native 4 1000.0 0.0 10.0 1795000000"
        s2 $M 4 app 0x40 10 bcast bc_binomial 100
        s2 $M 4 app 0x40 16 bcast bc_scatter_ring 100
        s2 $M 4 app 0x50 8 allreduce ar_recdbl 100
        s2 $M 4 app 0x50 12 allreduce ar_ring 100
        s2 $M 4 app 0x50 16 allreduce ar_rabenseifner 100
        s2 $M 4 app 0x60 10 allgather ag_ring 100
        s2 $M 4 app 0x60 12 allgather ag_bruck 100
        s2 $M 4 app 0x60 14 allgather ag_recdbl 100
        s2 mpich-4.0.2 4 app 0x10 16 alltoall bruck 400 # the other MPI's
    } >"$T/db"
    # COLL CLASS ALG: the decisions as the shim names Open MPI's algorithms
    cat >"$T/expect" <<'EOF'
alltoall 10 modified_bruck
alltoall 11 pairwise
alltoall 12 basic_linear
alltoall 14 pairwise
bcast 10 binomial
bcast 16 scatter_allgather_ring
allreduce 8 recursive_doubling
allreduce 12 ring
allreduce 16 rabenseifner
allgather 10 ring
allgather 12 bruck
allgather 14 recursive_doubling
EOF
    undecided="alltoall:512 alltoall:1023 alltoall:8192 alltoall:16383 alltoall:32768 bcast:1023 bcast:2048
        bcast:65535 bcast:131072 allreduce:252 allreduce:512 allreduce:4092 allreduce:131072 allgather:1023
        allgather:8192 allgather:32768"
else
    M=mpich-4.0.2
    {
        s2 $M 4 app 0x10 10 alltoall bruck 400
        s2 $M 4 app 0x10 12 alltoall spread 400
        s2 $M 4 app 0x10 14 alltoall pair 300
        s2 $M 4 other 0x20 14 alltoall ring 20
        s2 $M 4 app 0x40 16 bcast bc_scatter_ring 100
        s2 $M 4 app 0x50 12 allreduce ar_recdbl 100
        s2 $M 4 app 0x60 12 allgather ag_ring 100
        s2 openmpi-4.1.4 4 app 0x10 16 alltoall bruck 400
    } >"$T/db"
fi

out=$T/rules
[ "$fl" = mpich ] && out=$T/sel.json
"$P" tune --db "$T/db" --export-rules "$out" --format "$fl" 2>"$T/err"
st=$?
if [ $st -ne 0 ] || [ ! -s "$out" ]; then
    bad "export: exit $st"; cat "$T/err"; exit 1
fi
ok "export: $(cat "$T/err")"
grep -q 'disagree' "$out" && ok "export: the disagreeing sites said in the file" ||
    bad "export: the disagreeing sites not said in the file"

# the calls: each decided class's first and last byte counts
calls=""
if [ "$fl" = openmpi ]; then
    while read -r c k a; do
        lo=$((1 << k)) hi=$(((2 << k) - 1))
        [ "$c" = allreduce ] && hi=$(((2 << k) - 4))
        calls="$calls $c:$lo $c:$hi"
    done <"$T/expect"
    L=(mpirun.openmpi --allow-run-as-root --oversubscribe -np 4 -x LD_PRELOAD="$shim")
    timeout -k 5 60 "${L[@]}" "$prog" --sub $calls $undecided >"$T/control" 2>"$T/cerr" ||
        { bad "control run failed"; cat "$T/cerr"; exit 1; }
    timeout -k 5 60 "${L[@]}" --mca coll_tuned_use_dynamic_rules 1 \
        --mca coll_tuned_dynamic_rules_filename "$out" "$prog" --sub $calls $undecided >"$T/ruled" 2>"$T/rerr" ||
        { bad "run with the rules failed"; cat "$T/rerr"; exit 1; }
    grep -q WRONG "$T/control" "$T/ruled" && bad "a wrong result" && grep WRONG "$T/control" "$T/ruled"
    n=0
    while read -r where c b alg; do
        ctl=$(awk -v w="$where" -v c="$c" -v b="$b" '$1 == w && $2 == c && $3 == b { print $4 }' "$T/control")
        k=$(awk -v b="$b" 'BEGIN { k = -1; while (b >= 1) { b = int(b / 2); k++ } print k }')
        want=$(awk -v c="$c" -v k="$k" '$1 == c && $2 == k { print $3 }' "$T/expect")
        n=$((n + 1))
        if [ "$where" = world ] && [ -n "$want" ]; then
            [ "$alg" = "$want" ] || bad "$where $c $b B (class $k): ran $alg, the decision is $want"
            [ "$ctl" != "$want" ] && echo "$c" >>"$T/differs"
        else
            [ "$alg" = "$ctl" ] || bad "$where $c $b B (class $k): ran $alg, Open MPI's own choice is $ctl"
        fi
    done <"$T/ruled"
    [ "$n" -eq "$(wc -l <"$T/control")" ] && [ "$n" -gt 40 ] || bad "runs printed $n calls"
    for c in alltoall bcast allreduce allgather; do
        grep -qx "$c" "$T/differs" 2>/dev/null && ok "$c: a decision Open MPI would not take without the file" ||
            bad "$c: every decision is what Open MPI runs without the file: the check proves nothing"
    done
    [ "$fails" -eq 0 ] && ok "$n calls: every decided one ran its decision, the others Open MPI's own choice"

    # the command line's errors: one line, exit 1 (data) or 2 (usage)
    expect 2 'needs --db' "no --db" -- "$P" tune --export-rules "$T/x" --format openmpi
    expect 2 'needs --format' "no --format" -- "$P" tune --db "$T/db" --export-rules "$T/x"
    expect 2 "takes openmpi or mpich, not 'lam'" "bad --format" -- "$P" tune --db "$T/db" --export-rules "$T/x" --format lam
    expect 2 'without a launcher' "a launcher too" -- "$P" tune --db "$T/db" --export-rules "$T/x" --format openmpi -- mpirun -np 2 true
    expect 2 'goes with --export-rules' "--format alone" -- "$P" tune --format openmpi -- mpirun -np 2 true
    expect 1 "$T/nothere: cannot read it" "unreadable file" -- "$P" tune --db "$T/nothere" --export-rules "$T/x" --format openmpi
    grep mpich "$T/db" >"$T/db_mpich"
    expect 1 "db_mpich: no decision for Open MPI" "no decision for that MPI" -- "$P" tune --db "$T/db_mpich" --export-rules "$T/x" --format openmpi
    grep exploring "$T/db" >"$T/db_expl"
    expect 1 "no settled decision" "only an exploring line" -- "$P" tune --db "$T/db_expl" --export-rules "$T/x" --format openmpi
    { cat "$T/db"; sed 's/box:1/node:n/' "$T/db"; } >"$T/db2"
    expect 1 "2 machines (box:1, node:n): choose one with --machine" "two machines" -- "$P" tune --db "$T/db2" --export-rules "$T/x" --format openmpi
    expect 1 "machine gpu:1 (it has: box:1, node:n)" "an unknown --machine" -- "$P" tune --db "$T/db2" --export-rules "$T/x" --format openmpi --machine gpu:1
    [ ! -e "$T/x" ] && ok "no file written on an error" || bad "a file written on an error"
    "$P" tune --db "$T/db2" --export-rules "$T/x" --format openmpi --machine node:n 2>/dev/null &&
        grep -q 'machine node:n' "$T/x" && ok "--machine chooses" || bad "--machine node:n did not export"
    exit $((fails > 0))
fi

# ---- MPICH ----
lib=/usr/lib/x86_64-linux-gnu/libmpich.so.12
strings "$lib" | grep '^algorithm=MPIR_' | sort -u >"$T/known"
for a in $(grep -o '"algorithm=[A-Za-z_]*' "$out" | sort -u | sed 's/"algorithm=//'); do
    grep -qx "algorithm=$a" "$T/known" || bad "$a: not an algorithm $lib knows"
done
[ "$(wc -l <"$T/known")" -gt 50 ] && ok "every algorithm named is one $lib knows" || bad "no algorithm names in $lib"
# --mpich-selection: MPICH's own selection from a file (a comment on top,
# as json-c allows) gives the same file; one that is not a selection, an error
{ echo "/* MPICH's built-in MPIR selection */"; strings -n 100 "$lib" | grep '^{"collective=' | grep '"algorithm=MPIR_'; } >"$T/own.json"
"$P" tune --db "$T/db" --export-rules "$T/sel2.json" --format mpich --mpich-selection "$T/own.json" 2>/dev/null &&
    cmp -s "$out" "$T/sel2.json" && ok "--mpich-selection FILE: the same export as from $lib" ||
    bad "--mpich-selection FILE: not the export from $lib"
echo '{"collective=bcast": [1, 2]}' >"$T/notsel.json"
expect 1 "not a selection JSON" "--mpich-selection of a file that is not a selection" -- \
    "$P" tune --db "$T/db" --export-rules "$T/x" --format mpich --mpich-selection "$T/notsel.json"
expect 2 "is for --format mpich" "--mpich-selection with --format openmpi" -- \
    "$P" tune --db "$T/db" --export-rules "$T/x" --format openmpi --mpich-selection "$T/own.json"
ENV=(env MPIR_CVAR_DEVICE_COLLECTIVES=percoll MPIR_CVAR_ALLTOALL_DEVICE_COLLECTIVE=0
    MPIR_CVAR_BCAST_DEVICE_COLLECTIVE=0 MPIR_CVAR_ALLREDUCE_DEVICE_COLLECTIVE=0
    MPIR_CVAR_ALLGATHER_DEVICE_COLLECTIVE=0)
L=(mpirun.mpich -np 4)
# run FILE CALLS...: the job's exit status with FILE as MPICH's selection
run() {
    f=$1
    shift
    timeout -k 5 60 "${ENV[@]}" MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE="$f" "${L[@]}" "$prog" "$@" \
        >"$T/o" 2>"$T/e"
}
calls="alltoall:1024 alltoall:2047 alltoall:4096 alltoall:8191 alltoall:16384 alltoall:32767 alltoall:2048
    bcast:65536 bcast:131071 allreduce:4096 allreduce:8188 allgather:4096 allgather:8191 allgather:1024"
# without it, what follows proves nothing: a job that fails anyway
run "$out" $calls --sub && ok "every result right with the exported selection" ||
    { bad "a run with the exported selection failed"; head -5 "$T/o" "$T/e"; exit 1; }
sed 's/"algorithm=MPIR_Alltoall_intra_brucks"/"algorithm=MPIR_Alltoall_intra_nonexistent"/' "$out" >"$T/unknown.json"
cmp -s "$out" "$T/unknown.json" && bad "no brucks rule to change"
run "$T/unknown.json" alltoall:4096 && bad "an unknown algorithm in the selection: the job ran (the file not read?)" ||
    ok "an unknown algorithm in the selection: the job fails (MPICH reads the file)"
# poison COLL KEY: the copy whose rule on line "KEY": {"algorithm=... of
# COLL's section names a barrier algorithm
poison() {
    awk -v c="\"collective=$1\"" -v k="\"$2\": {\"algorithm=" '
        index($0, "\"collective=") { on = index($0, c) > 0 }
        on && index($0, k) { sub(/"algorithm=[A-Za-z_]*"/, "\"algorithm=MPIR_Barrier_intra_dissemination\""); n++ }
        { print }
        END { if (n != 1) exit 1 }' "$out" >"$T/p.json"
}
# COLL KEY INSIDE OUTSIDE...: calls inside the range fail, outside pass
route() {
    c=$1 k=$2 in=$3
    shift 3
    poison "$c" "$k" || { bad "$c: no rule $k to change"; return; }
    run "$T/p.json" "$c:$in" && bad "$c $in B: its rule ($k) changed, yet the call ran right" ||
        ok "$c $in B: goes by its rule ($k)"
    for o in "$@"; do
        run "$T/p.json" "$c:$o" && ok "$c $o B: not by the rule $k" ||
            { bad "$c $o B: went by the rule $k, outside its range"; cat "$T/e" | head -3; }
    done
}
route alltoall 'avg_msg_size<=2047' 1024 1023 2048
route alltoall 'avg_msg_size<=32767' 32767 16383
route bcast 'avg_msg_size<=131071' 65536 65535 131072
route allreduce 'avg_msg_size<=8191' 8188 4092 8192
route allgather 'total_msg_size<=32767' 4096 4095 8192
# docs/tune.md: on one node the MPIR selection decides with ch4's device
# layer left on too, after the calls that can turn MPICH to its shared
# memory algorithms (8 allreduces and bcasts of a class without a rule)
warm="allreduce:8 allreduce:8 allreduce:8 allreduce:8 allreduce:8 allreduce:8 allreduce:8 allreduce:8
    bcast:8 bcast:8 bcast:8 bcast:8 bcast:8 bcast:8 bcast:8 bcast:8"
for c in "allreduce avg_msg_size<=8191 8188" "bcast avg_msg_size<=131071 65536"; do
    set -- $c
    poison "$1" "$2" || { bad "$1: no rule $2"; continue; }
    # the same calls without the rule's last one pass: so the last one fails
    on() { timeout -k 5 60 env MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE="$T/p.json" "${L[@]}" "$prog" $warm "$@" \
        >"$T/o" 2>"$T/e"; }
    if ! on "$1:8"; then
        bad "$1, device layer on: the calls before the rule's failed"
    elif on "$1:8" "$1:$3"; then
        bad "$1 $3 B, device layer on: not by its rule"
    else
        ok "$1 $3 B, device layer on, after 9 calls: by its rule"
    fi
done
exit $((fails > 0))

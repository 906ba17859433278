#!/bin/sh
# invariants.sh: inputs that break one documented invariant of the trace
# or merged format each, with every checksum right (written by
# craft_inputs.c, tests/unit), given to every command that reads them:
# each refuses in one line naming the file, exit 1 (docs/trace-format.md).
# The good trace and its merged file pass every command first, so that a
# refusal is the invariant's and not the input's. Needs PERFSKEL and
# CRAFT (paths); no MPI.
set -u
P=${PERFSKEL:?}
C=${CRAFT:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
mkdir "$T/in"
"$C" "$T/in" || { bad "craft_inputs"; exit 1; }

# the commands, each a line: name, then the command with IN for the input
# (sim --folded with loop intervals: the path on which empty member lists
# overflowed a heap buffer)
cmds='dump|dump IN
fold|fold IN
sim --folded|sim IN --folded --intervals loops
gen|gen IN -K 10 -o OUT.c'
trace_cmds="$cmds
stats|stats IN
sim|sim IN
merge|merge IN -o OUT.pskm"

run_all() { # run_all INPUT STATUS PATTERN LIST
    in=$1 st=$2 pat=$3
    printf '%s\n' "$4" | while IFS='|' read -r name line; do
        cmd=$(printf '%s' "$line" | sed -e "s|IN|$in|" -e "s|OUT|$T/out|")
        # shellcheck disable=SC2086 # the command's words
        expect "$st" "$pat" "$(basename "$in"): $name" -- "$P" $cmd
        rm -f "$T/out.c" "$T/out.pskm"
    done
}

run_all "$T/in/good" 0 "" "$trace_cmds" >"$T/log"
run_all "$T/in/good.pskm" 0 "" "$cmds" >>"$T/log"
run_all "$T/in/base" 1 "rank-000001.psk: block 2's time base is 28300, not the exit of the event before it (27600)" "$trace_cmds" >>"$T/log"
run_all "$T/in/endcount" 1 "the end block counts 27 events, the blocks hold 26" "$trace_cmds" >>"$T/log"
run_all "$T/in/seq" 1 "is numbered 3 (blocks lost or repeated)" "$trace_cmds" >>"$T/log"
run_all "$T/in/members" 1 "communicator 2's 0 member(s) leave out rank 0, which made it" "$trace_cmds" >>"$T/log"
run_all "$T/in/rankcount.pskm" 1 "rank 0's section counts 27 events, the events name it in 26" "$cmds" >>"$T/log"
run_all "$T/in/evclass.pskm" 1 "evclass.pskm: corrupt: event 0 is of class [0-9]*, of [0-9]*$" "$cmds" >>"$T/log"
run_all "$T/in/evcount.pskm" 1 "evcount.pskm: corrupt: .*" "$cmds" >>"$T/log"
run_all "$T/in/order.pskm" 1 "order.pskm: corrupt: rank 1 takes the call order of rank 0, which has none" "$cmds" >>"$T/log"
cat "$T/log"
! grep -q '^FAIL' "$T/log"

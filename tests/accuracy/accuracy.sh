#!/bin/sh
# accuracy.sh FLAVOUR NP NAME PROGRAM ARGS...: the program is recorded once
# on NP ranks, then predicted from a skeleton (perfskel predict -K 10,
# --repeat 3, the median) and simulated (perfskel sim, the recording's own
# machine), and both must come within LIMIT per cent (default 10) of the
# recorded run's own time (MPI_Init to MPI_Finalize, slowest rank). A run
# of at least 0.5 s must also shrink: its skeleton may take at most SHRINK
# of the recorded time (default 0.2; K = 10 aims at a tenth; floors on
# what is timed, and what the cold iterations pay once, add to it). What
# is compared is one recording against what was made from it, on the same
# machine, in the same test: ratios, never an absolute time. Needs PERFSKEL. Environment: LIMIT, and PREDICT_LIMIT and
# SIM_LIMIT for predict and sim alone (default LIMIT); PLACED=1 (more ranks
# than cores): the skeleton's ranks must have run on the CPUs their
# recorded ranks stayed on, every rank where job.json's cpu.on gives each
# a CPU (plain runs of one program spread by 20 % here, by which ranks
# share a CPU); RECORD_MPIRUN_ARGS: options of mpirun's for the recording
# alone.
set -u
FL=$1 NP=$2 NAME=$3
shift 3
P=${PERFSKEL:?}
LIMIT=${LIMIT:-10}
PLIMIT=${PREDICT_LIMIT:-$LIMIT}
SLIMIT=${SIM_LIMIT:-$LIMIT}
SHRINK=${SHRINK:-0.2}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../cli/lib.sh"
mpirun_of "$FL"

num() { sed -n "s/.*\"$1\": *\([0-9.e+-]*\).*/\1/p" "$2" | head -n 1; }
# err A B: B against A in per cent, signed
err() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f", 100 * (b / a - 1) }'; }
within() { awk -v e="$1" -v l="$2" 'BEGIN { e = e < 0 ? -e : e; exit !(e <= l) }'; }

timeout 300 "$P" record -o "$T/trace" -- $MPIRUN ${RECORD_MPIRUN_ARGS:-} -np "$NP" "$@" >"$T/rec.out" 2>"$T/rec.err" ||
    { bad "$NAME: recording failed"; cat "$T/rec.err"; exit 1; }
if ! timeout 600 "$P" predict "$T/trace" -K 10 --repeat 3 --json -q -- $MPIRUN -np "$NP" >"$T/pred.json" 2>"$T/pred.err"; then
    bad "$NAME: predict failed"; cat "$T/pred.err"; exit 1
fi
if ! timeout 300 "$P" sim "$T/trace" --json -q >"$T/sim.json" 2>"$T/sim.err"; then
    bad "$NAME: sim failed"; cat "$T/sim.err"; exit 1
fi
rec=$(num recorded_seconds "$T/pred.json")
pred=$(num predicted_seconds "$T/pred.json")
skel=$(num skeleton_seconds "$T/pred.json")
sim=$(num predicted_seconds "$T/sim.json")
for v in rec pred skel sim; do
    eval "x=\${$v:-}"
    [ -n "$x" ] || { bad "$NAME: no $v in the output"; cat "$T/pred.json"; exit 1; }
done
awk -v r="$rec" 'BEGIN { exit !(r > 0) }' || { bad "$NAME: recorded time $rec"; exit 1; }
ep=$(err "$rec" "$pred") es=$(err "$rec" "$sim")
frac=$(awk -v s="$skel" -v r="$rec" 'BEGIN { printf "%.3f", s / r }')
echo "$NAME: np=$NP recorded $rec s, predict $pred s ($ep %), skeleton $skel s ($frac of it), sim $sim s ($es %)"
# what the skeleton ran of each loop, for the log
sed -n '/"loops"/,$p' "$T/pred.json" | grep -E '"(loop|count|cold|ran|compute_factor|why)"' | paste -sd' ' | head -c 2000
echo
if [ "${PLACED:-0}" = 1 ]; then
    planned=$(num planned "$T/pred.json") pinned=$(num pinned "$T/pred.json")
    onall=$(/usr/bin/python3 -c 'import json, sys
on = json.load(open(sys.argv[1] + "/job.json")).get("cpu", {}).get("on", [])
print(len(on) if on and min(on) >= 0 else 0)' "$T/trace")
    if [ "$onall" = "$NP" ] && [ "$planned" = "$NP" ] && [ "$pinned" = "$NP" ]; then
        ok "$NAME: the skeleton's $NP ranks ran on their recorded CPUs"
    elif [ "$onall" != "$NP" ] && [ "$pinned" = "$planned" ]; then
        ok "$NAME: the recording kept no CPU for some rank (the kernel moved it): $pinned of $NP ranks placed"
    else
        bad "$NAME: the skeleton's ranks on their recorded CPUs: $pinned of $planned planned, $onall of $NP ranks with a CPU in job.json"
    fi
fi
if within "$ep" "$PLIMIT"; then ok "$NAME: predict within $PLIMIT % of the recording ($ep %)"; else bad "$NAME: predict $ep % off the recording (limit $PLIMIT %)"; fi
if within "$es" "$SLIMIT"; then ok "$NAME: sim within $SLIMIT % of the recording ($es %)"; else bad "$NAME: sim $es % off the recording (limit $SLIMIT %)"; fi
if awk -v r="$rec" 'BEGIN { exit !(r >= 0.5) }'; then
    if awk -v f="$frac" -v m="$SHRINK" 'BEGIN { exit !(f <= m) }'; then
        ok "$NAME: the skeleton shrinks ($frac of the recorded run)"
    else
        bad "$NAME: the skeleton takes $frac of the recorded run (at most $SHRINK for a run of 0.5 s or more)"
    fi
fi
[ "$fails" -eq 0 ]

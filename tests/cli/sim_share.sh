#!/bin/sh
# sim_share.sh FLAVOUR: perfskel sim on recordings with twice as many ranks
# as cores (docs/simulation.md, "Time-sharing"). bench/programs' ring.f90
# and redblack.c are recorded at 2 x cores ranks (4 on a 2-core machine)
# in a scheduling group of their own at nice -20, so that other programs'
# load takes little of the cores and the sharing the recording saw is the
# job's own; each is simulated as recorded (no --machine): within LIMIT %
# (default 25) of its own run time (MPI_Init to MPI_Finalize, slowest rank;
# the same program's runs here take from 0.38 to 0.60 s, with the kernel
# moving its ranks between the cores, and sim gives one answer for all:
# in 12 runs of this test ring -4..-15 %, redblack -7..+20 %,
# docs/simulation.md), where the
# recorded gaps replayed as they are (`time sharing = off`, the model
# switched off) are more than 35 % short. The report says what it did
# (text, --json, --html), and a machine with a core per rank takes the
# sharing out (a shorter prediction). Needs root (the priority) and at
# most 4 cores (8 ranks); exits 77 saying why otherwise.
set -u
. "$(dirname "$0")/lib.sh"
P=$PERFSKEL
SRC=$(cd "$(dirname "$0")/../../bench/programs" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mpirun_of "$1"
ncpu=$(nproc)
NP=$((2 * ncpu))
if [ "$NP" -gt 8 ]; then
    skipped cores "cli.sim_share: $ncpu cores: this test records 2 ranks a core, at most 8"
    [ "$fails" -eq 0 ] && exit 77
    exit 1
fi
if [ "$(id -u)" != 0 ]; then
    skipped root "cli.sim_share: the recordings need a scheduling group at nice -20, or other programs' load is in them"
    [ "$fails" -eq 0 ] && exit 77
    exit 1
fi
"mpif90.$1" -O2 -o "$T/ring" "$SRC/ring.f90" || { bad "mpif90.$1 ring.f90"; exit 1; }
"mpicc.$1" -std=c11 -O2 -o "$T/redblack" "$SRC/redblack.c" -lm || { bad "mpicc.$1 redblack.c"; exit 1; }
printf '#!/bin/sh\necho -20 >/proc/self/autogroup\nexec nice -n -20 "$@"\n' >"$T/prio.sh"
printf 'time sharing = off;\n' >"$T/off.par"
printf 'ranks per node = %d;\ncores per node = %d;\n' "$NP" "$NP" >"$T/own.par"
LIMIT=${LIMIT:-25}
num() { sed -n "s/.*\"$1\": *\([0-9.e+-]*\).*/\1/p" | head -n 1; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", 100 * (b / a - 1) }'; }

# The skeleton of the ring recorded in $T/t (docs/skeletons.md,
# "Scaling"): where ranks took turns on cores, its sampled main loop
# times at least 0.25 s of the original (not 0.04) and keeps its compute
# in full (a loop sampled as long with a core per rank runs its compute
# shorter); and it emulates the share of the gaps that was work: under
# MPICH's busy waiting (a short recording of the ring), cores / ranks of
# each. A core per rank: job.json's cores edited, and no rank waiting for
# one (its cpu.run_share, the share it measured, taken out; python3's json).
edit_cores() { # DIR N
    /usr/bin/python3 -c 'import json, sys
p = sys.argv[1] + "/job.json"; j = json.load(open(p)); j["cores"] = [int(sys.argv[2])] * len(j["cores"])
j.pop("cpu", None)
json.dump(j, open(p, "w"), indent=2)' "$@"
}
sampled() { sed -n 's/.*loop [0-9]*: 600 iterations.* and \([0-9]*\) of the others.*/\1/p' "$1" | head -n 1; }
cut() { grep -c 'psk_work(cunits_(' "$1"; }
shared() { sed -n 's/^static const double shared_\[NRANKS\] = {\([^,]*\),.*/\1/p' "$1"; }
# each table's rank-0 work in the skeleton, "name units" a line (the two
# skeletons compared may sample their loops differently: tables match by name)
work() { sed -n "s/^static const long long \(T[0-9]*\)_work\[NRANKS\] = {\([0-9]*\),.*/\1 \2/p" "$1" | sort; }
gen_of() { # DIR OUT [ARGS]
    d=$1 o=$2
    shift 2
    "$P" gen "$d" -K 10 -o "$o" "$@" >"$T/gen.out" 2>&1 || { bad "gen $d $*"; cat "$T/gen.out"; return 1; }
}
skeletons() {
    rm -rf "$T/own" "$T/busy" "$T/busyown"
    cp -r "$T/t" "$T/own" && edit_cores "$T/own" "$NP" || { bad "ring: job.json edited"; return; }
    gen_of "$T/t" "$T/t.c" && gen_of "$T/own" "$T/own.c" && gen_of "$T/own" "$T/own25.c" --min-sample 0.25 || return
    s1=$(sampled "$T/t.c") s0=$(sampled "$T/own.c")
    [ -n "$s1" ] && [ "$s0" = 59 ] && [ "$s1" -gt "$s0" ] &&
        ok "ring: its skeleton samples $s1 iterations of 600 (59 with a core per rank)" ||
        bad "ring: the skeleton samples '$s1' iterations of 600, '$s0' with a core per rank (59; more shared: 0.25 s of the loop, as with --min-sample 0.25 below)"
    [ "$(sampled "$T/own25.c")" = "$s1" ] && [ "$(cut "$T/own25.c")" -gt "$(cut "$T/t.c")" ] &&
        ok "ring: shared, its sampled loop keeps its compute in full" ||
        bad "ring: shared, the sampled loop's compute: $(cut "$T/t.c") calls cut, $(cut "$T/own25.c") with a core per rank"
    # the recording's placement: each rank on the CPU its recorded rank
    # stayed on (job.json cpu.on), where every rank stayed on one
    want=$(/usr/bin/python3 -c 'import json, sys
on = json.load(open(sys.argv[1] + "/job.json")).get("cpu", {}).get("on", [])
print(", ".join(str(c) for c in on) if on and min(on) >= 0 else ", ".join(["-1"] * len(on)))' "$T/t")
    cpus() { sed -n 's/^static const int cpu_\[NRANKS\] = {\(.*\)};/\1/p' "$1"; }
    gen_of "$T/t" "$T/pin0.c" --no-pin || return
    none=$(cpus "$T/pin0.c")
    [ -n "$want" ] && [ "$(cpus "$T/t.c")" = "$want" ] && [ "$(cpus "$T/own.c" | tr -d ' ,-1')" = "" ] &&
        [ "$none" = "$(echo "$want" | sed 's/[0-9-][0-9]*/-1/g')" ] &&
        ok "ring: the skeleton's CPUs: {$want} as recorded; none with a core per rank or --no-pin" ||
        bad "ring: the skeleton's CPUs {$(cpus "$T/t.c")}, recorded {$want}; a core per rank {$(cpus "$T/own.c")}, --no-pin {$none}"
    "mpif90.mpich" -O2 -o "$T/ring.mpich" "$SRC/ring.f90" || { bad "mpif90.mpich ring.f90"; return; }
    "$P" record -o "$T/busy" -- mpirun.mpich -np "$NP" "$T/ring.mpich" 20000 60 20 >"$T/rec.out" 2>&1 ||
        { bad "ring: record under MPICH"; cat "$T/rec.out"; return; }
    cp -r "$T/busy" "$T/busyown" && edit_cores "$T/busyown" "$NP" || { bad "ring: job.json edited"; return; }
    gen_of "$T/busy" "$T/busy.c" && gen_of "$T/busyown" "$T/busyown.c" || return
    a=$(shared "$T/t.c") b=$(shared "$T/busy.c") c=$(shared "$T/busyown.c")
    awk -v a="$a" -v b="$b" -v c="$c" -v f="$((NP / ncpu))" 'BEGIN { exit !(a >= 1 && a < 1.5 && b == f && c == 1) }' &&
        ok "ring: gaps that waited for a core: x$a under Open MPI, x$b under MPICH, x$c with a core per rank" ||
        bad "ring: the gaps' share of work: x$a under Open MPI, x$b under MPICH (x$((NP / ncpu))), x$c with a core per rank (x1)"
    work "$T/busy.c" >"$T/w.busy" && work "$T/busyown.c" >"$T/w.own"
    join "$T/w.busy" "$T/w.own" >"$T/w.both"
    awk -v f="$((NP / ncpu))" '$2 > 1000 { n++; if (!($3 / $2 > 0.99 * f && $3 / $2 < 1.01 * f)) bad++ }
        END { exit !(n > 0 && !bad) }' "$T/w.both" &&
        ok "ring: under MPICH, its skeleton's work is $ncpu/$NP of the gaps ($(wc -l <"$T/w.both") table(s))" ||
        bad "ring: under MPICH, each table's work shared, then with a core per rank: $(tr '\n' ';' <"$T/w.both")"
}

for case in "ring 20000 600 20" "redblack 250 600 1024"; do
    set -- $case
    prog=$1
    shift
    rm -rf "$T/t"
    setsid sh "$T/prio.sh" "$P" record -o "$T/t" -- $MPIRUN -np "$NP" "$T/$prog" "$@" >"$T/rec.out" 2>"$T/rec.err" ||
        { bad "$prog: record"; cat "$T/rec.err"; continue; }
    rec=$("$P" stats "$T/t" --json --no-fold | num wall_seconds_max)
    [ -n "$rec" ] || rec=$("$P" stats "$T/t" --json --no-fold | awk -F: '/"wall_seconds"/ { gsub(/[ ,]/, "", $2); print $2 }' | sort -g | tail -n 1)
    "$P" sim "$T/t" --json -q >"$T/s.json" 2>"$T/s.err" || { bad "$prog: sim"; cat "$T/s.err"; continue; }
    sim=$(num predicted_seconds <"$T/s.json")
    off=$("$P" sim "$T/t" --machine "$T/off.par" --json -q | num predicted_seconds)
    own=$("$P" sim "$T/t" --machine "$T/own.par" --json -q | num predicted_seconds)
    e=$(pct "$rec" "$sim")
    eo=$(pct "$rec" "$off")
    echo "$prog: recorded $rec s; sim $sim s ($e %), the model off $off s ($eo %), a core per rank $own s; $(uptime | sed 's/.*load/load/')"
    awk -v e="$e" -v l="$LIMIT" 'BEGIN { exit !(e <= l && e >= -l) }' && ok "$prog: sim within $LIMIT % of the recording ($e %)" ||
        bad "$prog: sim $e % off the recording (limit $LIMIT %)"
    awk -v e="$eo" 'BEGIN { exit !(e < -35) }' && ok "$prog: without the model $eo %" ||
        bad "$prog: without the model only $eo % off: the recording did not share its cores as expected"
    grep -Eq '"time_sharing": \{"state": "modelled", "text": "time-sharing modelled: '"$NP"' ranks on '"$ncpu"' cores \(host .*\), as recorded(, each rank on the CPU it stayed on)?; ranks waiting in MPI yield their core \(Open MPI\)"\}' "$T/s.json" &&
        ok "$prog: --json says the sharing was modelled" || { bad "$prog: --json's time_sharing"; grep time_sharing "$T/s.json"; }
    "$P" sim "$T/t" --machine "$T/own.par" >"$T/own.txt" 2>&1
    grep -q "^time-sharing taken out: the recording's $NP ranks on $ncpu cores (host " "$T/own.txt" &&
        awk -v a="$own" -v b="$sim" 'BEGIN { exit !(a < b) }' && ok "$prog: a core per rank takes the sharing out ($own s)" ||
        { bad "$prog: a core per rank: $own s, sim $sim s"; grep "time-sharing" "$T/own.txt"; }
    "$P" sim "$T/t" -q --html "$T/r.html" >"$T/txt" 2>&1
    grep -q "^time-sharing modelled: $NP ranks" "$T/txt" && grep -q 'class="sharing">time-sharing modelled' "$T/r.html" &&
        ok "$prog: the text and the HTML report say it" || bad "$prog: the text or the HTML report"
    a=$("$P" sim "$T/t" --folded --json -q | num predicted_seconds)
    [ "$a" = "$sim" ] && ok "$prog: sim --folded the same ($a s)" || bad "$prog: sim --folded $a s, sim $sim s"
    [ "$prog" = ring ] && skeletons
done
[ "$fails" -eq 0 ] || exit 1

#!/bin/bash
# tune_bench.sh [BUILD] [OUT]: the tuning library's benchmarks (docs/tune.md
# "Benchmarks"). Per scenario, job A runs RUNS times under every
# policy, interleaved: native (no library), native through the library, every
# fixed arm valid for its P, STAR-MPI's policy (star), the learner (learn) and
# the learner warm-started from a decision file a first learn run wrote
# (warm); then once more under learn with PSK_TUNE_CHECK=1. OUT gets per
# scenario a markdown table (SC.md), an SVG of job A's elapsed time per run
# and policy (SC.svg), every run's output and report (SC/runs/), and all
# tables in OUT/tables.md. BUILD (./build) has perfskel, the tuning libraries
# and bench/tune/<mpi>/{ft_like,a2a_bench}; OUT defaults to ./tune-bench.
#
# Scenarios (SCENARIOS, default "vm cost tb"):
#   vm  this machine, NP ranks (2) under each MPI of MPIS ("openmpi mpich"):
#       ft_like FT_ARGS ("64 64 64 20": 21 alltoalls of 1 MiB per peer) and
#       a2a_bench A2A_ARGS ("-b 8 -B 4194304 -f 4 -n 20 -r 5")
#   cost  this machine, NP ranks, each MPI: a2a_bench COST_ARGS ("-b 8 -B 8
#       -n 100000 -r 7"), the cost per call of the library, native, learn, star
#   tb  the emulated cluster (TESTBED: a testbed kept outside this repository,
#       its cluster.sh up already; default ../shared/testbed), Open
#       MPI, job A on A_HOSTS (h0,h2: across the slow link; one rank a host,
#       scenarios named -npN for other than 2 hosts); a neighbour job
#       B, a2a_bench B_ARGS ("-b 1048576 -n 2") on B_HOSTS (h0,h2), starts
#       *_B_DELAY s after A is launched and loops for *_B_SECONDS s. Job A:
#       ft_like TB_FT_ARGS ("64 64 64 20"; B 1.0 s after, for 1.0 s) and
#       a2a_bench TB_A2A_ARGS ("-b 65536 -B 65536 -n 25 -r 12": 300 calls;
#       B 1.5 s after, for 3.0 s), the latter with a per-call trace from which
#       the calls where B started and stopped are found, and the learner's
#       PSK_TUNE_DEBUG=3 decision lines, to say how many calls after each
#       change it detected it and was monitoring again.
#       B on h0,h2 and not h1,h3: the testbed shapes each host's egress per
#       destination subnet, with no uplink shared between hosts, so a job on
#       h1,h3 does not slow one on h0,h2 (docs/tune.md); on the same hosts B
#       shares A's slow links.
#   apps  this machine, NP ranks, Open MPI (Debian builds python3-mpi4py
#       and hpcc with Open MPI only; under MPICH hpcc is the one HPCC_MPICH
#       names, default ./bench-hpcc-mpich/hpcc, which
#       bench/programs/hpcc_mpich.sh builds from Debian's source, and
#       pfft is said to be left out): bench/programs/pfft_roundtrip.py PFFT_ARGS ("64 100":
#       python3-mpi4py-fft's transforms, whose transposes are
#       MPI_Alltoallw) timed by the program (its seconds=), and Debian's
#       hpcc (HPC Challenge) with HPCC_N ("1000": its example input, an HPL
#       problem of N, blocks of 40, a 1 x NP grid), timed by the sum of its
#       MPI FFT's phases (hpccoutf.txt, MPIFFT_time0..6). Policies
#       (default): native, native (lib), learn, warm
#   pass  this machine, NP ranks, each MPI: bench/tune/passthrough
#       PASS_ARGS ("-s 0,8,64,1024,16384,262144,1048576") under learn, RUNS
#       runs: a call through the library against the same call made
#       directly, blocks of each in turn inside one job; per size the
#       median over runs of each run's direct time, library time and
#       median paired difference per call (scenario pass-MPI); with
#       PASS_LIFE set, the same for short-lived groups: each library block
#       of PASS_LIFE calls on a fresh duplicate of the world (passthrough
#       -l; scenario pass-life-MPI)
#   demo  this machine, 2 Open MPI ranks, unbound, as scripts/demo.sh runs
#       them: DEMO_ROUNDS (11) rounds of its benchmark (a2a_bench DEMO_ARGS,
#       "-b 1024 -B 1048576 -f 8 -n 200 -r 1") native (no library), cold
#       (learn, an empty decision file) and warm (the file the cold run
#       wrote), in turn; MPI_Alltoall time as a2a_bench measures it (its last
#       line): medians over rounds, the medians of each round's ratios, and
#       each warm report's headline (scenario demo)
#   series  this machine, NP ranks, each MPI: ft_like FT_ARGS SERIES_RUNS (8)
#       times in a row under learn with one decision file (a job run again
#       and again), SERIES_REPEATS (3) such series, each from an empty file,
#       with SERIES_INJECT (none) as PSK_TUNE_INJECT: per run of each series
#       its elapsed time, its MPI_Alltoall group's exploration calls, and the
#       group's state in the file after it (scenario vm-MPI-ft-series)
# Other settings: RUNS (3), ONLY (a space-separated list of scenario names,
# e.g. "vm-openmpi-ft tb-openmpi-a2a"), POLICIES (all; star2 is STAR-MPI's rule
# with X = 2 trials per arm, star with its 10; learnw is learn with
# PSK_TUNE_SWITCH_WARMUP=1, not in the default list), RUN_TIMEOUT (300 s),
# RESUMMARISE=1 (no runs: the tables and plots again from what OUT holds).
# Needs jq. Figures are medians over runs; spread is (max - min) / median.
set -u
S=$(cd "$(dirname "$0")" && pwd)
B=$(cd "${1:-build}" && pwd) || exit 2
OUT=${2:-tune-bench}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 2
RUNS=${RUNS:-3}
SCENARIOS=${SCENARIOS:-vm cost tb}
MPIS=${MPIS:-openmpi mpich}
NP=${NP:-2}
FT_ARGS=${FT_ARGS:-64 64 64 20}
A2A_ARGS=${A2A_ARGS:--b 8 -B 4194304 -f 4 -n 20 -r 5}
PFFT_ARGS=${PFFT_ARGS:-64 100}
HPCC_N=${HPCC_N:-1000}
HPCC_MPICH=${HPCC_MPICH:-bench-hpcc-mpich/hpcc}
[ -x "$HPCC_MPICH" ] && HPCC_MPICH=$(cd "$(dirname "$HPCC_MPICH")" && pwd)/$(basename "$HPCC_MPICH")
COST_ARGS=${COST_ARGS:--b 8 -B 8 -n 100000 -r 7}
PASS_ARGS=${PASS_ARGS:--s 0,8,64,1024,16384,262144,1048576}
TESTBED=${TESTBED:-$S/../../shared/testbed}
TOOLS=${TOOLS:-/tmp/mpicluster-tools}
A_HOSTS=${A_HOSTS:-h0,h2}
B_HOSTS=${B_HOSTS:-h0,h2}
B_ARGS=${B_ARGS:--b 1048576 -n 2}
TB_FT_ARGS=${TB_FT_ARGS:-64 64 64 20}
TB_FT_B_DELAY=${TB_FT_B_DELAY:-1.0}
TB_FT_B_SECONDS=${TB_FT_B_SECONDS:-1.0}
TB_A2A_ARGS=${TB_A2A_ARGS:--b 65536 -B 65536 -n 25 -r 12}
TB_A2A_B_DELAY=${TB_A2A_B_DELAY:-1.5}
TB_A2A_B_SECONDS=${TB_A2A_B_SECONDS:-3.0}
RUN_TIMEOUT=${RUN_TIMEOUT:-300}
command -v jq >/dev/null || { echo "tune_bench.sh: needs jq" >&2; exit 2; }
[ -x "$B/perfskel" ] || { echo "tune_bench.sh: no $B/perfskel (build first)" >&2; exit 2; }
START=$(date +%s)
DONE=""

log() { echo "[tune_bench $(date +%H:%M:%S)] $*" >&2; }

# the policies of a scenario with P ranks, in the order of the tables
policies() {
    local arms="spread ring bruck ring_lb ring_mb ring_ob"
    [ $(($1 & ($1 - 1))) = 0 ] && arms="spread pair ring bruck pair_lb ring_lb pair_mb ring_mb pair_ob ring_ob"
    echo "${POLICIES:-native libnative $arms star star2 learn warm}"
}

SERIES_RUNS=${SERIES_RUNS:-8}
SERIES_REPEATS=${SERIES_REPEATS:-3}
SERIES_INJECT=${SERIES_INJECT:-}
nhosts() { echo "$1" | tr ',' '\n' | grep -c .; }
label() { case $1 in libnative) echo "native (lib)" ;; *) echo "$1" ;; esac; }

# launch SC POL TAG DB CHECK DEBUG: job A of scenario SC (KIND, MPI, PROG,
# ARGS set by the caller) under POL; output in $D/TAG.{out,err,json}
launch() {
    local pol=$2 tag=$3 db=$4 check=$5 debug=$6 p lib prog
    p=$pol
    case $pol in libnative) p=native ;; warm | seed | check | learnw) p=learn ;; star2) p=star ;; esac
    # star2: STAR-MPI's rule with X = 2 trials per arm (its default 10);
    # learnw: learn with PSK_TUNE_SWITCH_WARMUP=1 (docs/tune.md)
    local sx=10 sw=0
    [ "$pol" = star2 ] && sx=2
    [ "$pol" = learnw ] && sw=1
    lib=$B/libperfskel-tune-$MPI.so
    prog=$B/bench/tune/$MPI/$PROG
    local args=($ARGS) dir=.
    case $PROG in
    pfft) prog=/usr/bin/python3 args=("$S/programs/pfft_roundtrip.py" $ARGS) ;;
    hpcc) # its input and output in a directory of the run's own
        prog=/usr/bin/hpcc args=() dir=$D/$tag.hpcc
        [ "$MPI" = mpich ] && prog=$HPCC_MPICH
        mkdir -p "$dir" && cp "$SCD/hpccinf.txt" "$dir/" ;;
    esac
    [ "$PROG" = a2a_bench ] && [ "$KIND" = tb ] && args+=(-o "$D/$tag.trace")
    local cmd=()
    if [ "$KIND" = vm ]; then
        local l=(mpirun.mpich -np "$NP")
        [ "$MPI" = openmpi ] && l=(mpirun.openmpi --allow-run-as-root -np "$NP")
        [ "$MPI" = openmpi ] && [ "$NP" -gt "$(nproc)" ] && l+=(--oversubscribe)
        if [ "$pol" = native ]; then
            cmd=("${l[@]}" "$prog" "${args[@]}")
        else
            cmd=("$B/perfskel" tune --mpi "$MPI" --policy "$p" --report "$D/$tag.json")
            [ -n "$db" ] && cmd+=(--db "$db")
            [ "$check" = 1 ] && cmd+=(--check)
            cmd+=(-- "${l[@]}" "$prog" "${args[@]}")
        fi
        (cd "$dir" && PSK_TUNE_SWITCH_WARMUP=$sw PSK_TUNE_STAR_X=$sx PSK_TUNE_DEBUG=$debug \
            timeout -k 5 "$RUN_TIMEOUT" "${cmd[@]}") >"$D/$tag.out" 2>"$D/$tag.err"
        return
    fi
    # the testbed: -x LD_PRELOAD keeps its idle shim (cluster.sh mpirun sets
    # LD_PRELOAD=$TOOLS/idlesleep.so; ours is given later and wins)
    cmd=("$TESTBED/cluster.sh" mpirun -np "$(nhosts "$A_HOSTS")" --host "$A_HOSTS")
    if [ "$pol" != native ]; then
        local pre=$lib
        [ "${IDLE_SHIM:-1}" = 1 ] && pre=$TOOLS/idlesleep.so:$lib
        cmd+=(-x "LD_PRELOAD=$pre" -x "PSK_TUNE_POLICY=$p" -x "PSK_TUNE_REPORT=$D/$tag.json" -x "PSK_TUNE_STAR_X=$sx" -x "PSK_TUNE_SWITCH_WARMUP=$sw")
        [ -n "$db" ] && cmd+=(-x "PSK_TUNE_DB=$db")
        [ "$check" = 1 ] && cmd+=(-x PSK_TUNE_CHECK=1)
        [ "$debug" != 0 ] && cmd+=(-x "PSK_TUNE_DEBUG=$debug")
    fi
    cmd+=("$prog" "${args[@]}")
    timeout -k 5 "$RUN_TIMEOUT" "${cmd[@]}" >"$D/$tag.out" 2>"$D/$tag.err" &
    local a=$!
    # the neighbour: plain a2a_bench, a timed loop, B_DELAY s after A's launch
    sleep "$BDELAY"
    date +%s.%N >"$D/$tag.B.launch"
    timeout -k 5 "$RUN_TIMEOUT" "$TESTBED/cluster.sh" mpirun -np "$(nhosts "$B_HOSTS")" --host "$B_HOSTS" --oversubscribe \
        "$B/bench/tune/openmpi/a2a_bench" $B_ARGS -t "$BSECONDS" >"$D/$tag.B.out" 2>"$D/$tag.B.err"
    wait "$a"
}

# run POL R: one scored run; a line "POL R ELAPSED A2A_S CHECKSUM STATUS" in $D/../results
run() {
    local pol=$1 r=$2 db="" debug=0 st
    if [ "$pol" = warm ]; then
        db=$D/warm.$r.db
        cp "$SCD/seed.db" "$db" 2>/dev/null || : >"$db"
    fi
    [ "$KIND" = tb ] && case $pol in star | star2 | learn | learnw | warm) debug=3 ;; esac
    launch "$SC" "$pol" "$pol.$r" "$db" 0 "$debug"
    st=$?
    local el a2a ck
    case $PROG in
    pfft) el=$(sed -n 's/.* seconds=\([0-9.]*\).*/\1/p' "$D/$pol.$r.out" | tail -1) ;;
    hpcc) el=$(awk -F= '/^MPIFFT_time[0-6]=/ { t += $2; n++ } END { if (n == 7) printf "%.6f", t }' \
        "$D/$pol.$r.hpcc/hpccoutf.txt" 2>/dev/null) ;;
    *) el=$(sed -n 's/.* elapsed \([0-9.]*\) s.*/\1/p' "$D/$pol.$r.out" | tail -1) ;;
    esac
    a2a=$(sed -n 's/.* alltoall \([0-9.]*\) s.*/\1/p' "$D/$pol.$r.out" | tail -1)
    ck=$(sed -n 's/.* checksum \(.*\)$/\1/p' "$D/$pol.$r.out" | tr ' ' '_')
    grep -q WRONG "$D/$pol.$r.err" && st=wrong
    echo "$pol $r ${el:-nan} ${a2a:-nan} ${ck:--} $st" >>"$SCD/results"
    log "$SC $pol run $r: ${el:-?} s (status $st)"
}

# per-run figures from a report, over its MPI_Alltoall groups only (the
# library may tune other collectives too: their groups say "collective"):
# POL R OVERHEAD% WITHIN5% EXPLORATION/BEFORE_A_CHANGE DECISION_US/CALL SWITCHES FROMFILE GROUPS
report_line() {
    jq -r --arg p "$1" --arg r "$2" '[.groups[]? | select((.collective // "alltoall") == "alltoall")] as $g
        | def s(f): [$g[] | f // 0] | add // 0;
        s(.calls) as $calls | s(.time_us) as $t |
        [$p, $r,
         (if $t > 0 then 100 * s(.learning_overhead_us) / $t else 0 end),
         (if $calls > 0 then 100 * s(.calls_within_5pct_of_best) / $calls else 0 end),
         "\(s(.exploration_calls))/\(s(.exploration_calls_before_change))",
         (if $calls > 0 then s(.decision_us) / $calls else 0 end), s(.switches),
         ([$g[] | select(.prior == "decision file" or .prior == "decision file, exploring")] | length),
         ($g | length)] | @tsv' "$3" 2>/dev/null
}

# the table of a scenario from $SCD/results and the reports
summarise() {
    local f=$SCD/results rl=$SCD/reports
    : >"$rl"
    for j in "$D"/*.json; do
        [ -f "$j" ] || continue
        local t=${j##*/}
        t=${t%.json}
        case $t in star.* | star2.* | learn.* | learnw.* | warm.*) report_line "${t%%.*}" "${t#*.}" "$j" >>"$rl" ;; esac
    done
    {
        echo "### $SC: $TITLE"
        echo
        echo "$RUNS runs per policy, interleaved; job A's own elapsed time (slowest rank); median, spread (max - min) / median,"
        echo "and the median's difference from native's. From the tuning library's JSON reports (medians over runs):"
        echo "learning overhead as % of the collective time, % of calls on an arm within 5 % of the best in hindsight,"
        echo "exploration calls (of them before a change was detected), the decision allreduces' time per call, switches, and groups"
        echo "started from the decision file (warm: a copy of the file a first learn run of the scenario wrote)."
        echo
        echo "| policy | runs | median s | spread | vs native | overhead % | within 5 % | exploring calls | decisions us/call | switches | from file |"
        echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
        awk -v order="$(policies "$NP_SC")" -v rl="$rl" '
        function med(a, n,    i, j, x, b) {
            for (i = 1; i <= n; i++) b[i] = a[i]
            for (i = 2; i <= n; i++) { x = b[i]; for (j = i - 1; j >= 1 && b[j] > x; j--) b[j + 1] = b[j]; b[j + 1] = x }
            return n % 2 ? b[(n + 1) / 2] : (b[n / 2] + b[n / 2 + 1]) / 2
        }
        BEGIN {
            while ((getline l < rl) > 0) {
                split(l, w, "\t"); p = w[1]; k = ++nr[p]
                for (c = 3; c <= 9; c++) rep[p, c, k] = w[c]
            }
        }
        $3 != "nan" && $6 == "0" { k = ++n[$1]; t[$1, k] = $3; if ($3 < lo[$1] || k == 1) lo[$1] = $3; if ($3 > hi[$1] || k == 1) hi[$1] = $3; next }
        { bad[$1]++ }
        END {
            np = split(order, ps, " ")
            for (i = 1; i <= np; i++) { p = ps[i]; if (n[p]) { for (k = 1; k <= n[p]; k++) v[k] = t[p, k]; m[p] = med(v, n[p]) } }
            for (i = 1; i <= np; i++) {
                p = ps[i]; lab = p == "libnative" ? "native (lib)" : p
                if (!n[p]) { printf "| %s | 0 | - | - | - | - | - | - | - | - | - |\n", lab; continue }
                vs = m["native"] ? sprintf("%+.1f %%", 100 * (m[p] / m["native"] - 1)) : "-"
                line = sprintf("| %s | %d%s | %.4g | %.1f %% | %s |", lab, n[p], bad[p] ? " (" bad[p] " failed)" : "", m[p], 100 * (hi[p] - lo[p]) / m[p], vs)
                if (nr[p]) {
                    for (c = 3; c <= 9; c++) {
                        for (k = 1; k <= nr[p]; k++) { v[k] = rep[p, c, k]; if (c == 5) { split(v[k], e2, "/"); v[k] = e2[1]; v2[k] = e2[2] } }
                        q[c] = med(v, nr[p])
                    }
                    q5b = med(v2, nr[p])
                    line = line sprintf(" %.2f | %.1f %% | %g (%g) | %.3f | %g | %g of %g |", q[3], q[4], q[5], q5b, q[6], q[7], q[8], q[9])
                } else line = line " - | - | - | - | - | - |"
                print line
            }
        }' "$f"
        echo
        local ck
        ck=$(awk '$5 != "-" { print $5 }' "$f" | sort -u | wc -l)
        [ "$PROG" = ft_like ] && echo "Checksums: $ck distinct value(s) over all runs (1: every arm gave the same result)."
        if [ -f "$SCD/check" ]; then
            echo "PSK_TUNE_CHECK=1 run (learn): $(cat "$SCD/check")."
        fi
        if [ -f "$SCD/seed" ]; then
            echo "Decision file after the first learn run: $(cat "$SCD/seed")."
        fi
        echo
        [ "$PROG" = a2a_bench ] && per_size
        [ "$KIND" = tb ] && [ "$PROG" = a2a_bench ] && adaptation
    } >"$OUT/$SC.md"
    svg >"$OUT/$SC.svg"
}

# a2a_bench: per size, the median over runs of each policy's us per call
per_size() {
    echo "Time per call by size (us, median over runs of each run's median of the slowest rank's time per call; % against native; best fixed arm = the least median of the fixed arms):"
    echo
    echo "| bytes per peer | native | native (lib) | best fixed arm | star | star2 | learn | warm |"
    echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
    for o in "$D"/*.out; do
        local t=${o##*/}
        t=${t%.out}
        case $t in *.B | seed | check) continue ;; esac
        awk -v p="${t%%.*}" '/us_per_call/ { print p, $3, $9 }' "$o"
    done | awk -v arms="$(policies "$NP_SC")" '
    function med(a, n,    i, j, x, b) {
        for (i = 1; i <= n; i++) b[i] = a[i]
        for (i = 2; i <= n; i++) { x = b[i]; for (j = i - 1; j >= 1 && b[j] > x; j--) b[j + 1] = b[j]; b[j + 1] = x }
        return n % 2 ? b[(n + 1) / 2] : (b[n / 2] + b[n / 2 + 1]) / 2
    }
    { k = ++n[$1, $2]; t[$1, $2, k] = $3; if (!($2 in seen)) { seen[$2] = 1; sz[++ns] = $2 } }
    function m(p, s,    k, v) { if (!n[p, s]) return -1; for (k = 1; k <= n[p, s]; k++) v[k] = t[p, s, k]; return med(v, n[p, s]) }
    function cell(p, s, base,    x) { x = m(p, s); if (x < 0) return "-"; return base > 0 && p != "native" ? sprintf("%.2f (%+.0f %%)", x, 100 * (x / base - 1)) : sprintf("%.2f", x) }
    END {
        na = split(arms, a, " ")
        for (i = 1; i <= ns; i++) {
            s = sz[i]; base = m("native", s); best = ""; bv = -1
            for (j = 1; j <= na; j++) {
                if (a[j] ~ /^(native|libnative|star|star2|learn|learnw|warm)$/) continue
                x = m(a[j], s); if (x >= 0 && (bv < 0 || x < bv)) { bv = x; best = a[j] }
            }
            bcell = bv < 0 ? "-" : sprintf("%s %.2f (%+.0f %%)", best, bv, base > 0 ? 100 * (bv / base - 1) : 0)
            printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", s, cell("native", s, base), cell("libnative", s, base), bcell, cell("star", s, base), cell("star2", s, base), cell("learn", s, base), cell("warm", s, base)
        }
    }'
    echo
}

# testbed a2a_bench: where B started and stopped in A's calls, A's time per
# call around them, and when the learner (or STAR) reacted
adaptation() {
    echo "Neighbour job B ($B_HOSTS, a2a_bench $B_ARGS, a loop of $BSECONDS s) against job A's calls: the call index where B was"
    echo "launched (cb), where A's calls slowed (onset: from cb, the first of two calls in a row 1.5 times A's median before cb;"
    echo "B's processes start, initialise MPI and fill buffers before its loop), where B's loop started (c0) and ended (c1), from"
    echo "A's per-call trace (rank 0's start times), the launch time and B's printed times; A's median time per call (slowest"
    echo "rank, ms) before c0, between, after c1; for star/learn/warm the report's first three changes from the onset to c1 and"
    echo "from c1 on, as +calls after the onset (or c1) why: arm, and for learn/warm the first decision in monitoring after one"
    echo "that was not, from the onset and from c1 (PSK_TUNE_DEBUG=3 lines; \"stayed\": monitoring all along)."
    echo
    echo "| run | cb | onset | c0 | c1 | before ms | during ms | after ms | changes from onset | monitoring again | changes from c1 | monitoring again |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---|---:|"
    local pol r tr bo s e
    for pol in $(policies "$NP_SC"); do
        for ((r = 1; r <= RUNS; r++)); do
            tr=$D/$pol.$r.trace
            bo=$D/$pol.$r.B.out
            [ -f "$tr" ] && [ -f "$bo" ] || continue
            s=$(awk '/loop of/ { print $9 }' "$bo")
            e=$(awk '/loop of/ { print $11 }' "$bo")
            [ -n "$s" ] || continue
            local l=$s row
            [ -s "$D/$pol.$r.B.launch" ] && l=$(cat "$D/$pol.$r.B.launch")
            row=$(awk -v s="$s" -v e="$e" -v l="$l" '
            function med(a, n,    i, j, x, b) {
                if (!n) return -1
                for (i = 1; i <= n; i++) b[i] = a[i]
                for (i = 2; i <= n; i++) { x = b[i]; for (j = i - 1; j >= 1 && b[j] > x; j--) b[j + 1] = b[j]; b[j + 1] = x }
                return n % 2 ? b[(n + 1) / 2] : (b[n / 2] + b[n / 2 + 1]) / 2
            }
            /^#/ { next }
            $3 >= l && cb == "" { cb = $1 }
            cb == "" { pre[++npre] = $4 }
            { t[$1] = $4; last = $1 }
            { if ($3 < s) bf[++nb] = $4; else if ($3 < e) { du[++nd] = $4; if (c0 == "") c0 = $1 } else { af[++na] = $4; if (c1 == "") c1 = $1 } }
            function ms(a, n) { return n ? sprintf("%.2f", med(a, n) / 1e3) : "-" }
            END { if (c0 == "") c0 = "-"; if (c1 == "") c1 = "-"; if (cb == "") cb = c0
                  # onset: from cb, the first of two calls in a row 1.5 times the median before cb
                  on = "-"; m = med(pre, npre)
                  for (i = cb; cb != "-" && m > 0 && i < last; i++) if (t[i] >= 1.5 * m && t[i + 1] >= 1.5 * m) { on = i; break }
                  printf "%s %s %s %s %s %s %s", cb, on, c0, c1, ms(bf, nb), ms(du, nd), ms(af, na) }' "$tr")
            local cb on c0 c1 b1 d1 a1 ch="-" ch1="-" m0="-" m1="-"
            read -r cb on c0 c1 b1 d1 a1 <<<"$row"
            if [[ " star star2 learn learnw warm " == *" $pol "* ]] && [ -f "$D/$pol.$r.json" ] && [ "$on" != "-" ]; then
                local end=$c1
                [ "$end" = - ] && end=1000000000
                ch=$(changes_in "$D/$pol.$r.json" "$on" "$end")
                ch1="-"
                [ "$c1" != "-" ] && ch1=$(changes_in "$D/$pol.$r.json" "$c1" 1000000000)
            fi
            if [ "$pol" = learn ] || [ "$pol" = learnw ] || [ "$pol" = warm ]; then
                m0=$(mon_after "$D/$pol.$r.err" "$on")
                m1=$(mon_after "$D/$pol.$r.err" "$c1")
            fi
            echo "| $pol $r | $cb | $on | $c0 | $c1 | $b1 | $d1 | $a1 | $ch | $m0 | $ch1 | $m1 |"
        done
    done
    echo
}

# changes_in JSON FROM TO: the report's first three changes at calls in [FROM, TO)
changes_in() {
    jq -r --argjson a "$2" --argjson b "$3" '[.groups[]? | select((.collective // "alltoall") == "alltoall") | .changes[]
        | select(.call >= $a and .call < $b)
        | "+\(.call - $a) \(.why)\(if .to then ": " + .to else "" end)"] as $l
        | if ($l | length) == 0 then "none" else ($l[0:3] | join(", ")) + (if ($l | length) > 3 then ", ..." else "" end) end' "$1"
}

# mon_after ERR C: calls after C to the first decision line after a
# non-monitoring one (or none) at or after C that is monitoring
mon_after() {
    [ "$2" = - ] && { echo -; return; }
    awk -v c="$2" '/perfskel-tune: comm [0-9]+ (alltoall )?class -?[0-9]+ call [0-9]+: / {
        for (i = 1; i <= NF; i++) if ($i == "call") { k = $(i + 1); sub(":", "", k); break }
        ph = $0; sub(/.* call [0-9]+: /, "", ph); sub(/,.*/, "", ph)
        if (k + 0 < c + 0) { last = ph; next }
        if (ph != "monitoring") { moved = 1; next }
        if (moved) { print k - c (last != "monitoring" ? " (exploring at the change)" : ""); found = 1; exit }
    } END { if (!found) print moved ? "not yet" : "stayed" }' "$1"
}

# the SVG: every run's elapsed time per policy, the median as a bar,
# native's median as a dashed line
svg() {
    awk -v order="$(policies "$NP_SC")" -v sc="$SC" -v title="$TITLE" '
    $3 != "nan" && $6 == "0" { k = ++n[$1]; t[$1, k] = $3; if (!any || $3 < lo) lo = $3; if (!any || $3 > hi) hi = $3; any = 1 }
    function med(p,    i, j, x, b, c) {
        c = n[p]; for (i = 1; i <= c; i++) b[i] = t[p, i]
        for (i = 2; i <= c; i++) { x = b[i]; for (j = i - 1; j >= 1 && b[j] > x; j--) b[j + 1] = b[j]; b[j + 1] = x }
        return c % 2 ? b[(c + 1) / 2] : (b[c / 2] + b[c / 2 + 1]) / 2
    }
    function y(v) { return top + ph * (1 - (v - y0) / (y1 - y0)) }
    END {
        np = split(order, ps, " "); left = 70; top = 50; step = 46 * np < 560 ? 560 / np : 46; pw = step * np; ph = 260
        W = left + pw + 20; H = top + ph + 110
        if (!any) { lo = 0; hi = 1 }
        y0 = lo - 0.08 * (hi - lo + 1e-9); y1 = hi + 0.08 * (hi - lo + 1e-9); if (y0 < 0) y0 = 0
        printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"11\">\n", W, H
        printf "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H
        printf "<text x=\"%d\" y=\"20\" font-size=\"13\">%s</text>\n", left, sc
        printf "<text x=\"%d\" y=\"36\" font-size=\"9\">%s</text>\n", left, title
        printf "<text transform=\"translate(14,%d) rotate(-90)\" text-anchor=\"middle\">job A elapsed (s)</text>\n", top + ph / 2
        for (g = 0; g <= 5; g++) {
            v = y0 + (y1 - y0) * g / 5
            printf "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", left, left + pw, y(v), y(v)
            printf "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.3g</text>\n", left - 4, y(v) + 4, v
        }
        printf "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>\n", left, top, pw, ph
        if (n["native"]) printf "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#c00\" stroke-dasharray=\"4,3\"/>\n", left, left + pw, y(med("native")), y(med("native"))
        for (i = 1; i <= np; i++) {
            p = ps[i]; x = left + step * (i - 0.5)
            col = p ~ /^(learn|learnw|warm)$/ ? "#1a6" : p ~ /^star/ ? "#d80" : p ~ /native/ ? "#c00" : "#36c"
            lab = p == "libnative" ? "native (lib)" : p
            printf "<text transform=\"translate(%.1f,%d) rotate(-45)\" text-anchor=\"end\">%s</text>\n", x + 4, top + ph + 14, lab
            if (!n[p]) continue
            for (k = 1; k <= n[p]; k++) printf "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\" fill-opacity=\"0.6\"/>\n", x + (k - (n[p] + 1) / 2) * 5, y(t[p, k]), col
            printf "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>\n", x - 14, x + 14, y(med(p)), y(med(p)), col
        }
        printf "<text x=\"%d\" y=\"%d\" fill=\"#555\">dots: runs; bars: medians; dashed: native (no library); the axis does not start at 0</text>\n", left, H - 8
        print "</svg>"
    }' "$SCD/results"
}

# scenario NAME KIND MPI PROG ARGS NP TITLE [BDELAY BSECONDS]
scenario() {
    SC=$1 KIND=$2 MPI=$3 PROG=$4 ARGS=$5 NP_SC=$6 TITLE=$7 BDELAY=${8:-0} BSECONDS=${9:-0}
    if [ -n "${ONLY:-}" ] && ! [[ " $ONLY " == *" $SC "* ]]; then return; fi
    SCD=$OUT/$SC
    D=$SCD/runs
    local np_save=$NP
    NP=$NP_SC
    if [ "${RESUMMARISE:-0}" = 1 ]; then # the tables again from the runs kept in OUT
        [ -f "$SCD/results" ] && summarise && DONE="$DONE $SC"
        NP=$np_save
        return
    fi
    rm -rf "$SCD"
    mkdir -p "$D"
    : >"$SCD/results"
    # hpcc's input: Debian's example, an HPL problem of HPCC_N, a 1 x NP grid
    # (Debian's copy of the example, else the one hpcc_mpich.sh keeps)
    local inf
    inf=$(ls /usr/share/doc/hpcc/examples/_hpccinf.txt* "$(dirname "$HPCC_MPICH")/_hpccinf.txt" 2>/dev/null | head -n 1)
    [ "$PROG" = hpcc ] && zcat -f "$inf" 2>/dev/null |
        sed -e "6s/^[0-9]*/$HPCC_N /" -e '8s/^[0-9]*/40 /' -e '11s/^[0-9]*/1 /' -e "12s/^[0-9]*/$NP /" >"$SCD/hpccinf.txt"
    log "$SC: $TITLE"
    # the first run under learn writes the decision file the warm runs copy
    if [[ " $(policies "$NP") " == *" warm "* ]]; then
        launch "$SC" seed seed "$SCD/seed.db" 0 0
        local lines
        lines=$(grep -vc '^#' "$SCD/seed.db" 2>/dev/null)
        echo "${lines:-0} line(s)" >"$SCD/seed"
    fi
    local r pol
    for ((r = 1; r <= RUNS; r++)); do
        for pol in $(policies "$NP"); do
            run "$pol" "$r"
        done
    done
    # once with every decision hash-checked across ranks
    if [[ " $(policies "$NP") " == *" learn "* ]]; then
        launch "$SC" check check "" 1 0
        local st=$?
        if [ $st = 0 ] && ! grep -q 'decision mismatch' "$D/check.err"; then
            echo "exit 0, no decision mismatch, $(jq -r '.summary.calls' "$D/check.json" 2>/dev/null) calls" >"$SCD/check"
        else
            echo "FAILED (exit $st): $(grep -m1 'mismatch' "$D/check.err")" >"$SCD/check"
        fi
    fi
    summarise
    DONE="$DONE $SC"
    NP=$np_save
}

# series NAME MPI: ft_like run after run with one decision file
series() {
    SC=$1 MPI=$2
    if [ -n "${ONLY:-}" ] && ! [[ " $ONLY " == *" $SC "* ]]; then return; fi
    SCD=$OUT/$SC
    local l=(mpirun.mpich -np "$NP") s r tag
    [ "$MPI" = openmpi ] && l=(mpirun.openmpi --allow-run-as-root -np "$NP")
    [ "$MPI" = openmpi ] && [ "$NP" -gt "$(nproc)" ] && l+=(--oversubscribe)
    if [ "${RESUMMARISE:-0}" = 1 ]; then # the table again from the results kept
        SERIES_REPEATS=0
    else
        rm -rf "$SCD"
        mkdir -p "$SCD"
        log "$SC: ft_like $FT_ARGS, $SERIES_RUNS runs in a row with one decision file, $SERIES_REPEATS times"
    fi
    [ -f "$SCD/results" ] || : >"$SCD/results"
    for ((s = 1; s <= SERIES_REPEATS; s++)); do
        for ((r = 1; r <= SERIES_RUNS; r++)); do
            tag=s$s-r$r
            PSK_TUNE_INJECT=$SERIES_INJECT timeout -k 5 "$RUN_TIMEOUT" "$B/perfskel" tune --mpi "$MPI" --policy learn \
                --report "$SCD/$tag.json" --db "$SCD/s$s.db" -- "${l[@]}" "$B/bench/tune/$MPI/ft_like" $FT_ARGS \
                >"$SCD/$tag.out" 2>"$SCD/$tag.err" || log "$SC $tag: exit $?"
            cp "$SCD/s$s.db" "$SCD/$tag.db" 2>/dev/null
            # elapsed s; the alltoall group's exploration calls, decision,
            # prior; its line's state, calls and incumbent in the file
            printf '%s %s %s %s\n' "$s" "$r" "$(sed -n 's/.*elapsed \([0-9.]*\) s.*/\1/p' "$SCD/$tag.out" | head -1)" \
                "$(jq -r '[.groups[] | select(.collective == "alltoall")][0] | "\(.exploration_calls) \(.decision) \(.prior | gsub(" "; "_"))"' \
                    "$SCD/$tag.json" 2>/dev/null) $(awk '$1 == "psk2" && $8 == "alltoall" { print $9, $11, $10 }' "$SCD/s$s.db" | head -1)" \
                >>"$SCD/results"
        done
    done
    {
        echo "##### $SC: this machine, $MPI, $NP ranks, ft_like $FT_ARGS run $SERIES_RUNS times in a row with one decision file${SERIES_INJECT:+, PSK_TUNE_INJECT=$SERIES_INJECT} ($(cut -d' ' -f1 "$SCD/results" | sort -u | wc -l) series)"
        echo
        echo "| run | elapsed s (median) | exploration calls, each series | decision | prior | file after it: state, calls |"
        echo "|---:|---:|---|---|---|---|"
        awk -v n="$SERIES_RUNS" '
            { t[$2] = t[$2] " " $3; e[$2] = e[$2] (e[$2] == "" ? "" : " / ") $4; d[$2] = d[$2] (d[$2] == "" ? "" : " / ") $5
              p[$2] = p[$2] (p[$2] == "" ? "" : " / ") $6; f[$2] = f[$2] (f[$2] == "" ? "" : " / ") $7 " " $8 }
            END { for (r = 1; r <= n; r++) { k = split(t[r], v, " "); for (i = 2; i <= k; i++) for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { x = v[j]; v[j] = v[j - 1]; v[j - 1] = x } m = k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
                  gsub("_", " ", p[r]); printf "| %d | %.4f | %s | %s | %s | %s |\n", r, m, e[r], d[r], p[r], f[r] } }' "$SCD/results"
        echo
    } >"$OUT/$SC.md"
    DONE="$DONE $SC"
}

# pass NAME MPI: bench/tune/passthrough RUNS times under learn
# the demo's benchmark, native, cold and warm in turn (scenario demo)
demo() {
    SC=demo
    if [ -n "${ONLY:-}" ] && ! [[ " $ONLY " == *" $SC "* ]]; then return; fi
    SCD=$OUT/$SC
    local a2a=("$B/bench/tune/openmpi/a2a_bench" ${DEMO_ARGS:--b 1024 -B 1048576 -f 8 -n 200 -r 1})
    local l=(mpirun.openmpi --allow-run-as-root -np 2) r k
    if [ "${RESUMMARISE:-0}" != 1 ]; then
        rm -rf "$SCD"
        mkdir -p "$SCD"
        log "$SC: ${DEMO_ROUNDS:-11} rounds of native, cold, warm: ${a2a[*]}"
        for ((r = 1; r <= ${DEMO_ROUNDS:-11}; r++)); do
            timeout -k 5 "$RUN_TIMEOUT" "${l[@]}" "${a2a[@]}" >"$SCD/r$r-native.out" 2>&1 || log "$SC round $r native: exit $?"
            for k in cold warm; do
                timeout -k 5 "$RUN_TIMEOUT" "$B/perfskel" tune --mpi openmpi --db "$SCD/r$r.db" \
                    --report "$SCD/r$r-$k.txt" -- "${l[@]}" "${a2a[@]}" >"$SCD/r$r-$k.out" 2>&1 ||
                    log "$SC round $r $k: exit $?"
            done
        done
    fi
    {
        echo "##### $SC: this machine, Open MPI, 2 ranks, ${a2a[*]#$B/} native, cold, warm in turn ($(ls "$SCD"/r*-native.out 2>/dev/null | wc -l) rounds)"
        echo
        for f in "$SCD"/r*-native.out; do
            r=${f%-native.out}
            echo "$(sed -n 's/.*alltoall \([0-9.]*\) s$/\1/p' "$f") $(sed -n 's/.*alltoall \([0-9.]*\) s$/\1/p' "$r-cold.out")" \
                "$(sed -n 's/.*alltoall \([0-9.]*\) s$/\1/p' "$r-warm.out")" \
                "$(sed -n '1s/.*: \(tuned [0-9.]* % [a-z]* than native [^;]*\).*/\1/p' "$r-warm.txt")"
        done | awk '
            function med(v, n,   i, j, t) {
                for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
                return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
            NF >= 3 && $1 > 0 && $2 > 0 && $3 > 0 { k++; n[k] = $1; c[k] = $2; w[k] = $3; rc[k] = $2 / $1; rw[k] = $3 / $1
                lo = k == 1 || $1 < lo ? $1 : lo; hi = $1 > hi ? $1 : hi
                h = ""; for (i = 4; i <= NF; i++) h = h " " $i; head[k] = h }
            END {
                if (!k) { print "no complete round"; exit }
                printf "| native ms | cold ms | warm ms | cold / native | warm / native | native, least to most |\n|---:|---:|---:|---:|---:|---:|\n"
                mn = med(n, k); mc = med(c, k); mw = med(w, k)
                printf "| %.1f | %.1f (%.3f x) | %.1f (%.3f x) | %.3f | %.3f | %.1f-%.1f ms |\n\n", 1e3 * mn, 1e3 * mc, mc / mn,
                    1e3 * mw, mw / mn, med(rc, k), med(rw, k), 1e3 * lo, 1e3 * hi
                print "(cold / native and warm / native: the medians of each round'"'"'s ratio.) Warm headlines:"
                for (i = 1; i <= k; i++) printf "%s%s", (i > 1 ? ";" : ""), head[i]
                print ""
            }'
        echo
    } >"$OUT/$SC.md"
    DONE="$DONE $SC"
}

pass() {
    SC=$1 MPI=$2
    if [ -n "${ONLY:-}" ] && ! [[ " $ONLY " == *" $SC "* ]]; then return; fi
    SCD=$OUT/$SC
    local l=(mpirun.mpich -np "$NP" -bind-to core) r
    [ "$MPI" = openmpi ] && l=(mpirun.openmpi --allow-run-as-root -np "$NP" --bind-to core)
    [ "$MPI" = openmpi ] && [ "$NP" -gt "$(nproc)" ] && l=(mpirun.openmpi --allow-run-as-root -np "$NP" --oversubscribe)
    if [ "${RESUMMARISE:-0}" != 1 ]; then
        rm -rf "$SCD"
        mkdir -p "$SCD"
        log "$SC: passthrough $PASS_ARGS, $RUNS runs"
        for ((r = 1; r <= RUNS; r++)); do
            timeout -k 5 "$RUN_TIMEOUT" "$B/perfskel" tune --mpi "$MPI" --policy learn --report "$SCD/r$r.json" -- \
                "${l[@]}" "$B/bench/tune/$MPI/passthrough" $PASS_ARGS >"$SCD/r$r.out" 2>"$SCD/r$r.err" ||
                log "$SC run $r: exit $?"
        done
    fi
    {
        echo "##### $SC: this machine, $MPI, $NP ranks, passthrough $PASS_ARGS under learn ($(ls "$SCD"/r*.out 2>/dev/null | wc -l) runs; medians over runs)"
        echo
        echo "| bytes a peer | direct us | through the library us | over us (quartiles' medians) | over % | decision |"
        echo "|---:|---:|---:|---|---:|---|"
        for f in "$SCD"/r*.out; do
            j=${f%.out}.json
            grep '^passthrough: bytes' "$f" | while read -r _ _ b _ _ _ _ _ d _ lib _ o _ _ _ lo _ hi; do
                # the decision of the size's MPI_Alltoall group (its class)
                dec=$(jq -r --argjson b "$b" '[.groups[] | select(.collective == "alltoall" and .ranks > 1 and
                    ((.size_class == -1 and $b == 0) or ($b > 0 and .size_class == ($b | log2 | floor))))] |
                    if length == 0 then "none (no group)" else .[0].decision end' "$j" 2>/dev/null)
                echo "$b $d $lib $o $lo $hi ${dec:-?}"
            done
        done | awk '
            function med(s,   k, v, i, j, x) { k = split(s, v, " "); for (i = 2; i <= k; i++) for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { x = v[j]; v[j] = v[j - 1]; v[j - 1] = x }
                return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2 }
            { if (!($1 in D)) o[++n] = $1; D[$1] = D[$1] " " $2; L[$1] = L[$1] " " $3; O[$1] = O[$1] " " $4
              LO[$1] = LO[$1] " " $5; HI[$1] = HI[$1] " " $6; if (index(dec[$1], $7) == 0) dec[$1] = dec[$1] (dec[$1] == "" ? "" : ", ") $7 }
            END { for (i = 1; i <= n; i++) { b = o[i]; d = med(D[b]); printf "| %s | %.3f | %.3f | %+.3f (%+.3f .. %+.3f) | %+.1f | %s |\n",
                  b, d, med(L[b]), med(O[b]), med(LO[b]), med(HI[b]), (d > 0 ? 100 * med(O[b]) / d : 0), dec[b] } }'
        echo
    } >"$OUT/$SC.md"
    DONE="$DONE $SC"
}

for kind in $SCENARIOS; do
    case $kind in
    vm)
        for mpi in $MPIS; do
            scenario "vm-$mpi-ft" vm "$mpi" ft_like "$FT_ARGS" "$NP" "this machine, $mpi, $NP ranks, ft_like $FT_ARGS"
            scenario "vm-$mpi-a2a" vm "$mpi" a2a_bench "$A2A_ARGS" "$NP" "this machine, $mpi, $NP ranks, a2a_bench $A2A_ARGS"
        done
        ;;
    apps)
        for mpi in $MPIS; do
            if [ "$mpi" != openmpi ]; then
                log "apps: pfft under $mpi left out: Debian's python3-mpi4py is built with Open MPI only"
                if [ -x "$HPCC_MPICH" ]; then
                    POLICIES=${POLICIES:-native libnative learn warm} \
                        scenario "vm-$mpi-hpcc" vm "$mpi" hpcc "$HPCC_N" "$NP" "this machine, $mpi, $NP ranks, hpcc (bench/programs/hpcc_mpich.sh), HPL N = $HPCC_N: its MPI FFT's time (MPIFFT_time0..6)"
                else
                    log "apps: hpcc under $mpi left out: no $HPCC_MPICH (sh bench/programs/hpcc_mpich.sh)"
                fi
                continue
            fi
            [ -x /usr/bin/hpcc ] && [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import mpi4py_fft' 2>/dev/null ||
                { log "apps: needs Debian's hpcc and python3-mpi4py-fft (apt-get install hpcc python3-mpi4py-fft)"; continue; }
            POLICIES=${POLICIES:-native libnative learn warm} \
                scenario "vm-$mpi-pfft" vm "$mpi" pfft "$PFFT_ARGS" "$NP" "this machine, $mpi, $NP ranks, mpi4py-fft: pfft_roundtrip.py $PFFT_ARGS (its seconds=)"
            POLICIES=${POLICIES:-native libnative learn warm} \
                scenario "vm-$mpi-hpcc" vm "$mpi" hpcc "$HPCC_N" "$NP" "this machine, $mpi, $NP ranks, hpcc, HPL N = $HPCC_N: its MPI FFT's time (MPIFFT_time0..6)"
        done
        ;;
    series)
        for mpi in $MPIS; do
            series "vm-$mpi-ft-series" "$mpi"
        done
        ;;
    demo)
        demo
        ;;
    pass)
        for mpi in $MPIS; do
            if [ -n "${PASS_LIFE:-}" ]; then
                PASS_ARGS="$PASS_ARGS -l $PASS_LIFE" pass "pass-life-$mpi" "$mpi"
            else
                pass "pass-$mpi" "$mpi"
            fi
        done
        ;;
    cost)
        for mpi in $MPIS; do
            POLICIES=${POLICIES:-native libnative learn star} \
                scenario "cost-$mpi" vm "$mpi" a2a_bench "$COST_ARGS" "$NP" "this machine, $mpi, $NP ranks, cost per call: a2a_bench $COST_ARGS"
        done
        ;;
    tb)
        [ -x "$TESTBED/cluster.sh" ] || { log "no $TESTBED/cluster.sh: testbed skipped"; continue; }
        tnp=$(nhosts "$A_HOSTS") sfx=""
        [ "$tnp" = 2 ] || sfx=-np$tnp
        scenario "tb-openmpi-ft$sfx" tb openmpi ft_like "$TB_FT_ARGS" "$tnp" \
            "testbed, Open MPI, A on $A_HOSTS: ft_like $TB_FT_ARGS; B on $B_HOSTS from $TB_FT_B_DELAY s for $TB_FT_B_SECONDS s" \
            "$TB_FT_B_DELAY" "$TB_FT_B_SECONDS"
        scenario "tb-openmpi-a2a$sfx" tb openmpi a2a_bench "$TB_A2A_ARGS" "$tnp" \
            "testbed, Open MPI, A on $A_HOSTS: a2a_bench $TB_A2A_ARGS; B on $B_HOSTS from $TB_A2A_B_DELAY s for $TB_A2A_B_SECONDS s" \
            "$TB_A2A_B_DELAY" "$TB_A2A_B_SECONDS"
        ;;
    *) log "unknown scenario kind $kind" ;;
    esac
done

{
    echo "# tune_bench.sh results"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -n), $(nproc) CPUs, build $B, $(($(date +%s) - START)) s"
    echo
    for sc in $DONE; do
        cat "$OUT/$sc.md"
    done
} >"$OUT/tables.md.tmp" && mv "$OUT/tables.md.tmp" "$OUT/tables.md"
log "done in $(($(date +%s) - START)) s: $OUT/tables.md"

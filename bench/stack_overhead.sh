#!/bin/sh
# stack_overhead.sh [BUILD_DIR]: what the recorder costs per call when the
# tuning library is stacked after it (docs/tune.md, "Recording a tuned
# job") against what it costs alone, under Open MPI and MPICH. Builds
# bench/record_overhead.c for each MPI (in a temporary directory) and runs
# it with one rank in four ways, in turn, RUNS times each: plain; the
# tuning library alone (PSK_TUNE_FORCE=native: it takes MPI_Allreduce and
# passes it on); the recorder alone; both, the recorder first. Prints a
# markdown table per MPI: per kind of call the median over runs of each
# run's fastest ns per call in the four ways, the recorder's added ns alone
# (recorder - plain) and stacked (both - tune), and stacked over alone.
# allreduce_1int is the one tuned collective of the benchmark: there the
# recorder forwards to the tuning library's MPI_Allreduce, tells it the call
# site and asks it the arm; the other calls are the control.
# BUILD_DIR defaults to ./build. Environment: RUNS (5), N (200000), R (7).
set -eu
B=$(cd "${1:-build}" && pwd)
S=$(cd "$(dirname "$0")" && pwd)
RUNS=${RUNS:-5}
N=${N:-200000}
R=${R:-7}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# run FLAVOUR LIBS OUT: one run of the benchmark with LIBS preloaded (or none)
run() {
    if [ "$1" = openmpi ]; then
        mpirun.openmpi --allow-run-as-root -np 1 -x PSK_TRACE_DIR="$W/tr" -x PSK_TUNE_FORCE=native \
            -x LD_PRELOAD="$2" "$W/ov_$1" "$N" "$R" >"$3"
    else
        mpirun.mpich -np 1 -genv PSK_TRACE_DIR "$W/tr" -genv PSK_TUNE_FORCE native -genv LD_PRELOAD "$2" \
            "$W/ov_$1" "$N" "$R" >"$3"
    fi
}

summarise() { # FLAVOUR
    awk -v runs="$RUNS" '
    function median(v, n,    i, j, x, a) {
        for (i = 1; i <= n; i++) a[i] = v[i]
        for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
        return a[int((n + 1) / 2)]
    }
    FNR == 1 { how = FILENAME; sub(/.*\/[a-z]*\./, "", how); run = how; sub(/\..*/, "", how); sub(/.*\./, "", run) }
    NF == 4 && $1 !~ /^#/ { if (!($1 in seen)) { order[++nk] = $1; seen[$1] = 1 } t[how, $1, run] = $3 }
    END {
        print "| call | plain ns | tune ns | record ns | record + tune ns | recorder adds, alone | recorder adds, stacked | stacked / alone |"
        print "|---|---|---|---|---|---|---|---|"
        for (k = 1; k <= nk; k++) {
            c = order[k]
            for (h = 1; h <= 4; h++) {
                split("plain tune rec both", hw, " ")
                for (i = 1; i <= runs; i++) v[i] = t[hw[h], c, i]
                m[h] = median(v, runs)
            }
            alone = m[3] - m[1]; stacked = m[4] - m[2]
            ratio = (alone > 1) ? sprintf("%.2f", stacked / alone) : "-"
            printf "| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %s |\n", c, m[1], m[2], m[3], m[4], alone, stacked, ratio
        }
    }' "$W/$1".plain.* "$W/$1".tune.* "$W/$1".rec.* "$W/$1".both.*
}

echo "# the recorder's overhead, alone and with the tuning library stacked"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); kernel $(uname -r); CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -n1), $(nproc) cores"
echo "- bench/record_overhead with 1 rank, N = $N iterations per loop, each loop timed R = $R times, the fastest kept; $RUNS runs of each way, in turn; medians over runs"
echo "- load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for fl in openmpi mpich; do
    rec=$B/libperfskel-record-$fl.so tune=$B/libperfskel-tune-$fl.so
    if ! command -v mpicc.$fl >/dev/null || [ ! -f "$rec" ] || [ ! -f "$tune" ]; then
        echo "- $fl: no mpicc.$fl or libraries in $B, skipped"
        continue
    fi
    mpicc.$fl -std=c11 -O2 -Wall -Wextra -o "$W/ov_$fl" "$S/record_overhead.c"
    i=1
    while [ "$i" -le "$RUNS" ]; do
        run $fl "" "$W/$fl.plain.$i"
        run $fl "$tune" "$W/$fl.tune.$i"
        run $fl "$rec" "$W/$fl.rec.$i"
        run $fl "$rec:$tune" "$W/$fl.both.$i"
        i=$((i + 1))
    done
    echo
    echo "## $fl"
    echo
    summarise $fl
done
echo
echo "- load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

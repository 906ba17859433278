#!/bin/sh
# record_overhead.sh [BUILD_DIR]: what perfskel's recording costs, under Open
# MPI and MPICH: the ns it adds per recorded MPI call, and the bytes it writes
# per event. Builds bench/record_overhead.c for each MPI (in a temporary
# directory), runs it with one rank plainly, under `perfskel record` and
# with the recording library in its time-only mode (PSK_TIMES, as perfskel
# check times its plain runs), in turn, RUNS times each, and prints markdown
# tables: per kind of call the median over runs of each run's fastest and
# median ns per call, recorded minus plain and time-only minus plain; then bytes per event on disk (rank-*.psk sizes over the event
# count of `perfskel stats --json`) for the benchmark's trace and for the heat
# example recorded with 2 ranks. BUILD_DIR defaults to ./build.
# Environment: RUNS (5), N iterations per loop (200000), R timings per loop (7).
set -eu
B=$(cd "${1:-build}" && pwd)
P=$B/perfskel
S=$(cd "$(dirname "$0")" && pwd)
RUNS=${RUNS:-5}
N=${N:-200000}
R=${R:-7}
[ -x "$P" ] || { echo "record_overhead.sh: no $P (build first)" >&2; exit 2; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

launcher() { # launcher FLAVOUR NP
    if [ "$1" = openmpi ]; then echo "mpirun.openmpi --allow-run-as-root -np $2"; else echo "mpirun.mpich -np $2"; fi
}

# events_of DIR: the total number of events perfskel stats reads in DIR
events_of() {
    if command -v jq >/dev/null; then
        "$P" stats "$1" --json | jq '.totals.events'
    else # "totals" is printed before "ranks": its "events" comes first
        "$P" stats "$1" --json | awk -F: '/"events"/ { gsub(/[^0-9]/, "", $2); print $2; exit }'
    fi
}

# bpe_row LABEL FLAVOUR RANKS DIR: one row of the bytes-per-event table
bpe_row() {
    bytes=$(cat "$4"/rank-*.psk | wc -c)
    events=$(events_of "$4")
    awk -v l="$1" -v f="$2" -v r="$3" -v b="$bytes" -v e="$events" \
        'BEGIN { printf "| %s | %s | %d | %d | %d | %.2f |\n", l, f, r, e, b, b / e }'
}

# summarise FLAVOUR SERIES WHAT: the overhead table from $W/FLAVOUR.plain.*
# and $W/FLAVOUR.SERIES.* (rec: recorded; times: the time-only mode)
summarise() {
    awk -v runs="$RUNS" -v series="$2" -v what="$3" '
    function median(v, n,    i, j, x, a) {
        for (i = 1; i <= n; i++) a[i] = v[i]
        for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
        return a[int((n + 1) / 2)]
    }
    FNR == 1 { rec = FILENAME ~ ("\\." series "\\."); run = FILENAME; sub(/.*\./, "", run) }
    NF == 4 && $1 !~ /^#/ {
        if (!($1 in calls)) { order[++nk] = $1; calls[$1] = $2 }
        if (rec) { rmin[$1, run] = $3; rmed[$1, run] = $4 } else { pmin[$1, run] = $3; pmed[$1, run] = $4 }
    }
    END {
        print "| call | calls per iteration | plain ns (min / median) | " what " ns (min / median) | added ns (min / median) | added ns (min), lowest to highest run |"
        print "|---|---|---|---|---|---|"
        for (k = 1; k <= nk; k++) {
            c = order[k]
            for (i = 1; i <= runs; i++) {
                a[i] = pmin[c, i]; b[i] = pmed[c, i]; d[i] = rmin[c, i]; e[i] = rmed[c, i]; g[i] = d[i] - a[i]
            }
            lo = hi = g[1]
            for (i = 2; i <= runs; i++) { if (g[i] < lo) lo = g[i]; if (g[i] > hi) hi = g[i] }
            pm = median(a, runs); pd = median(b, runs); rm = median(d, runs); rd = median(e, runs)
            printf "| %s | %d | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f | %.1f to %.1f |\n", \
                c, calls[c], pm, pd, rm, rd, rm - pm, rd - pd, lo, hi
        }
    }' "$W/$1".plain.* "$W/$1.$2".*
}

echo "# perfskel recording overhead"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); kernel $(uname -r); CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -n1), $(nproc) cores"
echo "- bench/record_overhead with 1 rank, N = $N iterations per loop, each loop timed R = $R times; $RUNS plain, $RUNS recorded and $RUNS time-only runs, in turn"
echo "- load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

flavours=""
for fl in openmpi mpich; do
    if ! command -v mpicc.$fl >/dev/null || ! command -v mpirun.$fl >/dev/null; then
        echo "- $fl: not installed, skipped"
        continue
    fi
    if [ ! -f "$B/libperfskel-record-$fl.so" ]; then
        echo "- $fl: no $B/libperfskel-record-$fl.so, skipped"
        continue
    fi
    flavours="$flavours $fl"
    mpicc.$fl -std=c11 -O2 -Wall -Wextra -o "$W/ov_$fl" "$S/record_overhead.c"
    run=$(launcher "$fl" 1)
    i=1
    # $run is a command line: split on purpose
    # shellcheck disable=SC2086
    while [ "$i" -le "$RUNS" ]; do
        $run "$W/ov_$fl" "$N" "$R" >"$W/$fl.plain.$i"
        if ! "$P" record -o "$W/tr_$fl" -- $run "$W/ov_$fl" "$N" "$R" >"$W/$fl.rec.$i" 2>"$W/$fl.err"; then
            cat "$W/$fl.err" >&2
            exit 1
        fi
        # the time-only mode perfskel check times its plain runs with
        if [ $fl = openmpi ]; then pre="-x PSK_TIMES=$W/times -x LD_PRELOAD=$B/libperfskel-record-$fl.so"
        else pre="-genv PSK_TIMES $W/times -genv LD_PRELOAD $B/libperfskel-record-$fl.so"; fi
        $run $pre "$W/ov_$fl" "$N" "$R" >"$W/$fl.times.$i"
        grep -q '^finalize ' "$W/times/rank-000000.times" ||
            { echo "record_overhead.sh: $fl: the time-only run wrote no times" >&2; exit 1; }
        i=$((i + 1))
    done
    if [ $fl = openmpi ]; then v=$(mpirun.openmpi --version 2>&1 | head -n1); else v="MPICH $(mpichversion | sed -n 's/^MPICH Version:[[:space:]]*//p')"; fi
    echo
    echo "## $fl ($v)"
    echo
    summarise "$fl" rec recorded
    echo
    echo "The time-only mode (perfskel check's plain runs: the library preloaded, PSK_TIMES set, nothing recorded):"
    echo
    summarise "$fl" times time-only
done

echo
echo "- load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "## Bytes per event on disk"
echo
echo "| trace | MPI | ranks | events | bytes (rank files) | bytes per event |"
echo "|---|---|---|---|---|---|"
for fl in $flavours; do
    bpe_row "bench/record_overhead, last recorded run" "$fl" 1 "$W/tr_$fl"
done
# heat: build/examples/heat under the MPI it is linked with; for the other
# MPI, the same source built here, if the repository has it
heat_mpi=""
if [ -x "$B/examples/heat" ]; then
    if ldd "$B/examples/heat" | grep -q libmpich; then heat_mpi=mpich; else heat_mpi=openmpi; fi
fi
for fl in $flavours; do
    if [ "$fl" = "$heat_mpi" ]; then
        prog=$B/examples/heat label="build/examples/heat"
    elif [ -f "$S/../examples/heat.c" ]; then
        # gcc 12 takes MPICH's MPI_STATUSES_IGNORE for an empty array: silence that
        mpicc."$fl" -std=c11 -O2 -Wno-stringop-overflow -o "$W/heat_$fl" "$S/../examples/heat.c" -lm
        prog=$W/heat_$fl label="examples/heat.c built with mpicc.$fl"
    else
        continue
    fi
    # shellcheck disable=SC2046
    if "$P" record -o "$W/heat_tr_$fl" -- $(launcher "$fl" 2) "$prog" >/dev/null 2>"$W/$fl.err"; then
        bpe_row "$label (512 x 512, 400 steps)" "$fl" 2 "$W/heat_tr_$fl"
    else
        cat "$W/$fl.err" >&2
    fi
done

#!/bin/sh
# merge_stream.sh [BUILD_DIR] [OLD_PERFSKEL]: the streaming offline merge
# (`perfskel merge`) against the in-memory one (`merge --in-memory`, which
# is what `perfskel merge` did before; OLD_PERFSKEL: an older binary to
# time too). LU-shaped traces of bench/gen_trace:
#   1. 1,024 ranks x 100,000 events (about 99 M events, 1.4 GB on disk);
#   2. peak memory vs ranks P at 5,000 events a rank;
#   3. peak memory vs events a rank at 256 ranks.
# Wall seconds and peak memory from GNU time, one run each; every merged
# file compared byte for byte with the in-memory merge's. Prints markdown
# rows for docs/benchmarks.md. Needs about 4 GB free in TMPDIR.
set -eu
B=$(cd "${1:-build}" && pwd)
OLD=${2:-}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
avail=$(df -Pk "$W" | awk 'NR == 2 { print $4 }')
[ "$avail" -gt 4500000 ] || { echo "merge_stream.sh: under 4.5 GB free in $W" >&2; exit 1; }

run() { # run LABEL BINARY ARGS...: "wall-seconds MB cpu-seconds" of one merge
    label=$1
    shift
    /usr/bin/time -f "%e %M %U %S" -o "$W/time" "$@" >/dev/null 2>"$W/err" || { cat "$W/err" >&2; exit 1; }
    awk -v l="$label" '{ printf "%s %.1f %d %.1f\n", l, $1, $2 / 1024, $3 + $4 }' "$W/time"
}
mb() { echo $(($(cat "$@" | wc -c) / 1048576)); }

echo "## 1,024 ranks x 100,000 events"
"$B/gen_trace" "$W/t" --ranks 1024 --events 100000 >"$W/gen.out"
events=$(sed -n 's/.*iterations, \([0-9]*\) events.*/\1/p' "$W/gen.out")
echo "events $events, recorded $(mb "$W"/t/rank-*.psk) MB"
echo "| merge | wall time | CPU time (user + sys) | peak memory |"
echo "|---|---|---|---|"
if [ -n "$OLD" ]; then
    run old "$OLD" merge -q "$W/t" -o "$W/old.pskm" | awk '{ printf "| before (%s) | %s s | %s s | %s MB |\n", $1, $2, $4, $3 }'
fi
run streaming "$B/perfskel" merge -q "$W/t" -o "$W/s.pskm" | awk '{ printf "| %s | %s s | %s s | %s MB |\n", $1, $2, $4, $3 }'
run in-memory "$B/perfskel" merge -q --in-memory "$W/t" -o "$W/m.pskm" | awk '{ printf "| %s | %s s | %s s | %s MB |\n", $1, $2, $4, $3 }'
cmp "$W/s.pskm" "$W/m.pskm" || { echo "merge_stream.sh: the files differ" >&2; exit 1; }
[ -z "$OLD" ] || cmp "$W/s.pskm" "$W/old.pskm" || { echo "merge_stream.sh: differs from $OLD's" >&2; exit 1; }
echo "merged file $(mb "$W/s.pskm") MB, the same bytes"
rm -rf "$W/t" "$W"/*.pskm

table() { # table RANKS EVENTS: one row
    "$B/gen_trace" "$W/t" --ranks "$1" --events "$2" >"$W/gen.out"
    ev=$(sed -n 's/.*iterations, \([0-9]*\) events.*/\1/p' "$W/gen.out")
    s=$(run s "$B/perfskel" merge -q "$W/t" -o "$W/s.pskm")
    m=$(run m "$B/perfskel" merge -q --in-memory "$W/t" -o "$W/m.pskm")
    cmp "$W/s.pskm" "$W/m.pskm" || { echo "merge_stream.sh: the files differ" >&2; exit 1; }
    echo "$s $m" | awk -v p="$1" -v e="$2" -v ev="$ev" \
        '{ printf "| %d | %d | %.1f M | %s s, %s MB | %s s, %s MB |\n", p, e, ev / 1e6, $2, $3, $6, $7 }'
    rm -rf "$W/t" "$W"/*.pskm
}
echo
echo "## peak memory vs ranks and vs events a rank"
echo "| ranks | events a rank (busiest) | events | streaming | in memory |"
echo "|---|---|---|---|---|"
for p in 64 256 1024 4096; do table $p 5000; done
for e in 20000 80000; do table 256 $e; done

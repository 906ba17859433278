#!/bin/sh
# sim_speed.sh [BUILD_DIR]: how fast `perfskel sim` replays, and how much
# memory it takes, on LU-shaped traces (bench/gen_trace: 16 ranks, sweeps of
# blocking sends and receives, a halo exchange with Irecv + Send + Wait, an
# Allreduce every 5 iterations) of about 1, 10 and 30 million events; each
# the best of 3 runs (user + system time, one core). Collectives expanded
# and by formula.
set -eu
B=$(cd "${1:-build}" && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
echo "| events | collectives | best time (s) | million events/s | max RSS (MB) | predicted (s) |"
echo "|---|---|---|---|---|---|"
for per in 65000 650000 2000000; do
    rm -rf "$W/t"
    "$B/gen_trace" "$W/t" --ranks 16 --events "$per" >/dev/null
    for form in expand closed; do
        printf 'collectives = %s;\n' "$form" >"$W/m.par"
        best=""
        for i in 1 2 3; do
            /usr/bin/time -f "%U %S %M" -o "$W/time" "$B/perfskel" sim "$W/t" --machine "$W/m.par" --json -q \
                >"$W/out.json"
            t=$(awk '{ printf "%.3f", $1 + $2 }' "$W/time")
            rss=$(awk '{ printf "%.0f", $3 / 1024 }' "$W/time")
            if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$t; mem=$rss; fi
        done
        n=$(awk -F: '/"events"/ { gsub(/[ ,]/, "", $2); print $2; exit }' "$W/out.json")
        pred=$(awk -F: '/"predicted_seconds"/ { gsub(/[ ,]/, "", $2); print $2; exit }' "$W/out.json")
        rate=$(awk -v n="$n" -v t="$best" 'BEGIN { printf "%.1f", (t > 0 ? n / t / 1e6 : 0) }')
        echo "| $n | $form | $best | $rate | $mem | $pred |"
    done
done

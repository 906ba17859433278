#!/bin/sh
# report_size.sh [BUILD_DIR]: the size of `perfskel sim --html`'s page, and
# the time and memory of the sim that writes it, on generated LU-shaped
# traces (bench/gen_trace) of about half a million to ten million events at
# 4, 64 and 1,024 ranks, with loop intervals, on one machine and on two
# (--machine twice), against the same sim without a page
# (docs/simulation.md, "The report").
set -eu
B=$(cd "${1:-build}" && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
printf 'type = bus; start time = 50; send byte time = 0.01; power = 0.5;\n' >"$W/bus.par"
printf 'type = switch; start time = 2; send byte time = 0.0001;\n' >"$W/switch.par"
echo "| ranks | events | page, one machine | page, two machines | sim with the page (two machines) | sim without |"
echo "|---|---|---|---|---|---|"
for cfg in "4 250000" "64 16000" "1024 1000" "4 2500000"; do
    set -- $cfg
    rm -rf "$W/t"
    "$B/gen_trace" "$W/t" --ranks "$1" --events "$2" >"$W/gen"
    n=$(sed -n 's/.*, \([0-9]*\) events.*/\1/p' "$W/gen")
    "$B/perfskel" sim "$W/t" -q --intervals loops --machine "$W/switch.par" --html "$W/one.html" >/dev/null
    /usr/bin/time -f "%e s, %M KB" -o "$W/two" "$B/perfskel" sim "$W/t" -q --intervals loops \
        --machine "$W/switch.par" --machine "$W/bus.par" --html "$W/two.html" >/dev/null
    /usr/bin/time -f "%e s, %M KB" -o "$W/none" "$B/perfskel" sim "$W/t" -q --intervals loops \
        --machine "$W/switch.par" --machine "$W/bus.par" >/dev/null
    echo "| $1 | $n | $(wc -c <"$W/one.html") B | $(wc -c <"$W/two.html") B | $(tail -n 1 "$W/two") | $(tail -n 1 "$W/none") |"
done

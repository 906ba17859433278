#!/bin/sh
# cpu_share.sh HEAT: a job recorded beside other CPU-bound programs
# (docs/skeletons.md, "Compute that waited for a core"). With as many
# busy loops as cores beside a 2-rank heat stencil, the recorder writes
# each rank's share of a core while it was runnable (job.json cpu.run_share,
# from the kernel's schedstat) well below 1, and the skeleton emulates that
# share of the gaps as work (its work tables against the same trace with
# the share set to 1). How close its prediction then comes beside busy
# loops is not asserted here: two ranks polling each on a core it shares
# with a busy loop progress only while both hold their cores, which
# depends on how the two cores' time slices line up: skeletons of one
# recording predicted -45..+37 % of it here (docs/accuracy.md). As root, the test
# runs in a scheduling group of its own at nice -20, so that other
# programs' load takes little of the cores.
set -u
if [ "${PSK_CPU_SHARE_GROUP:-}" != 1 ] && [ "$(id -u)" = 0 ]; then
    PSK_CPU_SHARE_GROUP=1 exec setsid -w sh -c 'echo -20 >/proc/self/autogroup; exec nice -n -20 sh "$@"' sh "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
P=$PERFSKEL
HEAT=$1
T=$(mktemp -d)
hogs=
trap 'kill $hogs 2>/dev/null; rm -rf "$T"' EXIT
mpirun_of openmpi

for i in $(seq "$(nproc)"); do
    awk 'BEGIN { while (1) x++ }' &
    hogs="$hogs $!"
done
"$P" record -o "$T/t" -- $MPIRUN -np 2 "$HEAT" 1024 500 >"$T/rec.out" 2>&1 || { bad "record"; cat "$T/rec.out"; exit 1; }
shares=$(/usr/bin/python3 -c 'import json, sys
print(" ".join(str(x) for x in json.load(open(sys.argv[1] + "/job.json"))["cpu"]["run_share"]))' "$T/t") ||
    { bad "job.json has no cpu.run_share"; exit 1; }
echo "run_share: $shares"
for s in $shares; do
    awk -v s="$s" 'BEGIN { exit !(s > 0 && s < 0.85) }' || bad "a rank's share of a core is $s beside $(nproc) busy loops"
done
[ "$fails" -eq 0 ] && ok "each rank's share of a core recorded below 0.85 ($shares)"

# the work the skeleton emulates: the share of the gaps
cp -r "$T/t" "$T/one"
/usr/bin/python3 -c 'import json, sys
p = sys.argv[1] + "/job.json"; j = json.load(open(p)); j["cpu"]["run_share"] = [1.0] * len(j["cpu"]["run_share"])
json.dump(j, open(p, "w"))' "$T/one"
"$P" gen "$T/t" -K 10 -o "$T/t.c" >"$T/gen.out" 2>&1 && "$P" gen "$T/one" -K 10 -o "$T/one.c" >>"$T/gen.out" 2>&1 ||
    { bad "gen"; cat "$T/gen.out"; exit 1; }
work() { sed -n "s/^static const long long T[0-9]*_work\[NRANKS\] = {\([0-9]*\),.*/\1/p" "$1" | sort -n | tail -n 1; }
s0=${shares%% *}
a=$(work "$T/t.c") b=$(work "$T/one.c")
awk -v a="$a" -v b="$b" -v s="$s0" 'BEGIN { exit !(b > 0 && a / b > 0.98 * s && a / b < 1.02 * s) }' &&
    ok "rank 0's work is its share of the gaps ($a of $b units, share $s0)" ||
    bad "rank 0's work: $a units, $b with a whole core (share $s0)"

[ "$fails" -eq 0 ]

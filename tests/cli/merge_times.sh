#!/bin/sh
# merge --times summary (docs/merged-format.md, "Summarised times") on random
# generated traces: every event and field is kept (dumps equal but for the
# times), each rank keeps its total compute, the file stays nearly the same
# size from P to 8P while the lossless one grows, both orders (reordered or
# not) read back, and damaged summaries are refused with one line.
# Needs PERFSKEL and GEN_TRACE in the environment.
set -u
P=${PERFSKEL:?} G=${GEN_TRACE:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"

# notimes DUMP: the dump without its time columns (entry, duration)
notimes() { awk '!/^#/ { $3 = ""; $4 = ""; print }' "$1"; }
# compute DUMP: per rank, the sum of the gaps between a call's end and the
# next call's start, in us
compute() {
    awk '!/^#/ { if ($1 in end) c[$1] += $3 - end[$1]; end[$1] = $3 + $4 }
         END { for (r in c) printf "%d %.3f\n", r, c[r] }' "$1" | sort -n
}

for seed in 1 2 3 4 5 6; do
    np=$((4 + seed * 3))
    extra=""
    [ $((seed % 2)) -eq 0 ] && extra=--proc-null
    # shellcheck disable=SC2086
    "$G" "$T/t" --ranks $np --events $((1500 + seed * 300)) --seed "$seed" $extra >/dev/null 2>&1 ||
        { bad "seed $seed: gen_trace"; continue; }
    for order in reorder no-reorder; do
        opt=""
        [ $order = no-reorder ] && opt=--no-reorder
        name="seed $seed ($np ranks, $order)"
        # shellcheck disable=SC2086
        if ! "$P" merge "$T/t" -q $opt -o "$T/all.pskm" || ! "$P" merge "$T/t" -q $opt --times summary -o "$T/sum.pskm"; then
            bad "$name: merge"; continue
        fi
        "$P" dump "$T/t" >"$T/d.t"
        "$P" dump "$T/sum.pskm" >"$T/d.m" || { bad "$name: dump of the summarised trace"; continue; }
        notimes "$T/d.t" >"$T/n.t"
        notimes "$T/d.m" >"$T/n.m"
        cmp -s "$T/n.t" "$T/n.m" && ok "$name: every event and field kept" ||
            { bad "$name: events differ"; diff "$T/n.t" "$T/n.m" | head -5; }
        cmp -s "$T/d.t" "$T/d.m" && bad "$name: the times did not change (nothing summarised)"
        # streamed as the merge writes, or made from every rank's times in
        # memory: the same bytes
        "$P" merge "$T/t" -q $opt --times summary --in-memory -o "$T/sum2.pskm"
        cmp -s "$T/sum.pskm" "$T/sum2.pskm" && ok "$name: the streamed summary is the in-memory one" ||
            bad "$name: the streamed summary differs from the in-memory one"
        if [ $order = no-reorder ]; then
            # each rank's compute is its own (the factor), to 0.1 % + 1 us
            compute "$T/d.t" >"$T/c.t"
            compute "$T/d.m" >"$T/c.m"
            if join "$T/c.t" "$T/c.m" | awk '{ d = $2 - $3; if (d < 0) d = -d; if (d > 0.001 * $2 + 1) { print; bad = 1 } }
                                             END { exit bad }'; then
                ok "$name: every rank's compute kept"
            else
                bad "$name: a rank's compute changed"
            fi
            # the simulation runs on it, within 2 % of the lossless trace's (mean
            # gaps alone, without their spread, were 2.4-5 % off here); the
            # call floors off (they come from the calls' durations, which the
            # summary holds as a few order statistics: 2.0 % off alone)
            printf 'call floors = off;\n' >"$T/nofloors.par"
            a=$("$P" sim "$T/all.pskm" --folded --json --machine "$T/nofloors.par" 2>/dev/null | sed -n 's/.*"predicted_seconds": *\([0-9.e+-]*\).*/\1/p')
            b=$("$P" sim "$T/sum.pskm" --folded --json --machine "$T/nofloors.par" 2>/dev/null | sed -n 's/.*"predicted_seconds": *\([0-9.e+-]*\).*/\1/p')
            if [ -n "$a" ] && [ -n "$b" ] && awk -v a="$a" -v b="$b" 'BEGIN { exit !(b > 0.98 * a && b < 1.02 * a) }'; then
                ok "$name: sim --folded $b s (lossless $a s)"
            else
                bad "$name: sim --folded of the summary '$b' s, of the lossless trace '$a' s"
            fi
        fi
    done
done

# size: from 8 to 64 ranks the summary grows little, the lossless file a lot
for np in 8 64; do
    "$G" "$T/s$np" --ranks $np --events 3000 --seed 9 >/dev/null 2>&1
    "$P" merge "$T/s$np" -q -o "$T/a$np.pskm"
    "$P" merge "$T/s$np" -q --times summary -o "$T/m$np.pskm"
done
a8=$(wc -c <"$T/a8.pskm") a64=$(wc -c <"$T/a64.pskm") m8=$(wc -c <"$T/m8.pskm") m64=$(wc -c <"$T/m64.pskm")
if [ $((m64 * 10)) -le $((m8 * 15)) ] && [ $((a64)) -ge $((a8 * 4)) ]; then
    ok "size 8 -> 64 ranks: summary $m8 -> $m64 bytes, lossless $a8 -> $a64"
else
    bad "size 8 -> 64 ranks: summary $m8 -> $m64 bytes, lossless $a8 -> $a64"
fi

# damaged summaries: a byte changed inside TSUM with its CRC fixed, and
# one cut short; a wrong --times value
python3 - "$T/m8.pskm" "$T/bad1.pskm" "$T/bad2.pskm" <<'EOF'
import struct, subprocess, sys, zlib
d = bytearray(open(sys.argv[1], 'rb').read())
i = 9
while d[i:i + 4] != b'TSUM':
    i += 16 + struct.unpack('<Q', d[i + 4:i + 12])[0]
n = struct.unpack('<Q', d[i + 4:i + 12])[0]
p = bytes(d[i + 12:i + 12 + n])
# the payload's coding byte: 1, one zstd frame (the zstd tool reads it); 0, stored
p = bytearray(subprocess.run(['zstd', '-d', '-c', '-q'], input=p[1:], capture_output=True, check=True).stdout
              if p[0] == 1 else p[1:])
def with_tsum(pl):  # the file with TSUM's payload pl, stored
    pl = b'\x00' + bytes(pl)
    return d[:i + 4] + struct.pack('<Q', len(pl)) + pl + struct.pack('<I', zlib.crc32(pl)) + d[i + 16 + n:]
q = bytearray(p)
q[0] ^= 0x01  # the event count is wrong now
open(sys.argv[2], 'wb').write(with_tsum(q))
open(sys.argv[3], 'wb').write(with_tsum(p[:-3]))  # the last rank's factor cut off
EOF
expect 1 "bad1.pskm: corrupt: the summarised times do not match" "TSUM with a wrong count refused" -- "$P" dump "$T/bad1.pskm"
expect 1 "bad2.pskm: corrupt: the summarised times do not match" "TSUM cut short refused" -- "$P" dump "$T/bad2.pskm"
expect 2 "times takes all or summary" "--times with a wrong value" -- "$P" merge "$T/s8" --times median
[ "$fails" -eq 0 ]

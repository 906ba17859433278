#!/bin/sh
# record_zstd.sh FLAVOUR HEAT CRASH: trace blocks compressed with zstd
# (docs/trace-format.md, kind 3). `perfskel record --zstd` of
# examples/heat.c on 4 ranks writes compressed blocks, and every reader
# gives back the same calls as a recording without (times aside); the
# merge inside the job takes them; a rank ended by SIGTERM still leaves
# its trace readable (its last block written as it is, from the signal
# handler); crafted compressed blocks with a valid checksum (a frame
# without its size, a size that lies, garbage) are one-line errors naming
# the file. Needs PERFSKEL.
set -u
P=${PERFSKEL:?}
flavour=$1
heat=$2
crash=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
case $flavour in
openmpi | mpich) mpirun_of "$flavour" ;;
*) echo "usage: $0 openmpi|mpich HEAT CRASH" >&2; exit 2 ;;
esac
run=$MPIRUN

# kinds FILE: the kind of every block, one a line
kinds() {
    python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
at = 64
while at + 32 <= len(d):
    magic, kind, plen = struct.unpack_from("<IB3xI", d, at)
    print(kind)
    at += 32 + plen
PY
}

# shellcheck disable=SC2086
"$P" record --zstd -o "$T/z" -- $run -np 4 "$heat" </dev/null >/dev/null 2>"$T/err" || { bad "record --zstd failed"; cat "$T/err"; }
# shellcheck disable=SC2086
"$P" record -o "$T/u" -- $run -np 4 "$heat" </dev/null >/dev/null 2>"$T/err" || { bad "record failed"; cat "$T/err"; }
kinds "$T/z/rank-000001.psk" >"$T/kinds"
[ "$(grep -c '^3$' "$T/kinds")" -ge 1 ] && [ "$(tail -1 "$T/kinds")" = 2 ] && ! grep -q '^1$' "$T/kinds" &&
    ok "--zstd: every events block compressed, then the end block" || { bad "--zstd: block kinds"; cat "$T/kinds"; }
zb=$(cat "$T"/z/rank-*.psk | wc -c)
ub=$(cat "$T"/u/rank-*.psk | wc -c)
[ $((2 * zb)) -lt "$ub" ] && ok "--zstd: $zb bytes against $ub" || bad "--zstd: $zb bytes against $ub, not half"
"$P" dump "$T/z" | awk '{ $3 = $4 = ""; print }' >"$T/dz" && "$P" dump "$T/u" | awk '{ $3 = $4 = ""; print }' >"$T/du" &&
    cmp -s "$T/dz" "$T/du" && ok "--zstd: the same calls read back" || bad "--zstd: the calls read back differ"
"$P" stats "$T/z" --json >/dev/null 2>"$T/err" && "$P" fold "$T/z" --json >/dev/null 2>>"$T/err" &&
    ok "--zstd: stats and fold read it" || { bad "--zstd: stats or fold"; cat "$T/err"; }

# shellcheck disable=SC2086
"$P" record --zstd --merge -o "$T/zm" -- $run -np 4 "$heat" </dev/null >/dev/null 2>"$T/err" &&
    "$P" merge "$T/zm" -o "$T/off.pskm" -q && cmp -s "$T/zm/merged.pskm" "$T/off.pskm" &&
    ok "--zstd --merge: merged in the job as offline" || { bad "--zstd --merge"; cat "$T/err"; }

# SIGTERM: the blocks before compressed, the last one as it is
# shellcheck disable=SC2086
"$P" record --zstd -o "$T/t" -- $run -np 2 "$crash" term 30000 </dev/null >/dev/null 2>&1
kinds "$T/t/rank-000001.psk" >"$T/kinds"
n=$("$P" dump "$T/t" --rank 1 2>/dev/null | grep -c MPI_Allreduce)
[ "$(tail -1 "$T/kinds")" = 1 ] && grep -q '^3$' "$T/kinds" && [ "$n" -gt 1000 ] &&
    ok "SIGTERM: compressed blocks, then the last as it is; $n calls readable" ||
    { bad "SIGTERM with --zstd: $n calls readable"; cat "$T/kinds"; }

# crafted compressed blocks, checksums right: one line naming the file
# craft DIR HOW: rank 1's first block replaced by a kind-3 block whose
# payload is HOW: nosize (a frame without its content size), lie (the
# block's header counting 5 events more than its frame holds), junk (not
# zstd after the magic number)
craft() {
    rm -rf "$T/c" && cp -r "$T/z" "$T/c"
    python3 - "$T/c/rank-000001.psk" "$2" <<'PY' || exit 1
import struct, subprocess, sys, zlib
path, how = sys.argv[1], sys.argv[2]
d = bytearray(open(path, "rb").read())
magic, kind, plen, nev, base, seq = struct.unpack_from("<IB3xIIQI", d, 64)
raw = subprocess.run(["zstd", "-d", "-c"], input=bytes(d[96:96 + plen]), capture_output=True, check=True).stdout
if how == "nosize":
    z = subprocess.run(["zstd", "-c", "--no-content-size"], input=raw, capture_output=True, check=True).stdout
elif how == "lie":
    z = bytes(d[96:96 + plen])
    nev += 5  # more events than the frame holds
else:
    z = b"\x28\xb5\x2f\xfd" + bytes(range(200))
hdr = bytearray(struct.pack("<IB3xIIQI", magic, 3, len(z), nev, base, seq))
crc = zlib.crc32(bytes(hdr) + z) & 0xffffffff
hdr += struct.pack("<I", crc)
open(path, "wb").write(bytes(d[:64]) + bytes(hdr) + z + bytes(d[96 + plen:]))
PY
}
for how in nosize junk lie; do
    craft "$T/c" $how
    case $how in
    nosize) pat="rank-000001.psk: corrupt compressed block 0 (not one zstd frame of a known size)" ;;
    junk) pat="rank-000001.psk: corrupt compressed block 0" ;;
    lie) pat="rank-000001.psk: undecodable event" ;;
    esac
    expect 1 "$pat" "crafted compressed block: $how" -- "$P" stats "$T/c"
done
[ "$fails" -eq 0 ]

# Sourced by otf2.sh and otf2_asan.sh: the archives they craft from
# otf2_writer.py's, each refused in one line by perfskel import --otf2.
# otf2_crafted CHECK VALID NOFINALIZE BADPEER: CHECK is the caller's
# "CHECK STATUS PATTERN NAME -- command..." (expect, or otf2_asan.sh's run);
# VALID, NOFINALIZE and BADPEER the writer's directories of those modes.
# Needs P, PY and T; crafted copies go to T.
otf2_crafted() {
    check=$1 valid=$2 nofin=$3 badpeer=$4
    "$check" 1 "rank 9 out of range for communicator" "crafted: a peer out of range" -- \
        "$P" import --otf2 "$badpeer/traces.otf2" -o "$T/x"
    cp -r "$valid" "$T/swap" && cp "$nofin/traces.def" "$nofin/traces.otf2" "$T/swap/"
    "$check" 1 "which is not defined" "crafted: an event of an undefined region" -- \
        "$P" import --otf2 "$T/swap/traces.otf2" -o "$T/x"
    cp -r "$valid" "$T/trdef" && truncate -s 200 "$T/trdef/traces.def"
    "$check" 1 "definitions" "crafted: truncated definitions" -- "$P" import --otf2 "$T/trdef/traces.otf2" -o "$T/x"
    cp -r "$valid" "$T/trevt" && truncate -s 100 "$T/trevt/traces/1.evt"
    "$check" 1 "location 1" "crafted: truncated events" -- "$P" import --otf2 "$T/trevt/traces.otf2" -o "$T/x"
    cp -r "$valid" "$T/tranc" && truncate -s 50 "$T/tranc/traces.otf2"
    "$check" 1 "not an OTF2 archive" "crafted: truncated anchor" -- "$P" import --otf2 "$T/tranc/traces.otf2" -o "$T/x"
    cp -r "$valid" "$T/back1"
    "$PY" - "$T/back1/traces/1.evt" <<'EOF' || bad "crafted: no timestamp to move back"
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
for t in range(1020, 1100):  # a timestamp record (type 5, 8 bytes) of rank 1 put before its predecessors
    i = b.find(b"\x05" + struct.pack("<Q", t))
    if i >= 0:
        b[i + 1:i + 9] = struct.pack("<Q", 1002)
        open(sys.argv[1], "wb").write(b)
        sys.exit(0)
sys.exit(1)
EOF
    "$check" 1 "time goes backwards" "crafted: time going backwards" -- "$P" import --otf2 "$T/back1/traces.otf2" -o "$T/x"
    head -c 300 /dev/urandom >"$T/junk.otf2"
    "$check" 1 "not an OTF2 archive" "crafted: random bytes" -- "$P" import --otf2 "$T/junk.otf2" -o "$T/x"
}

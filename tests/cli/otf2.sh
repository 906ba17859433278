#!/bin/sh
# otf2.sh FLAVOUR OTF2PROG MPI_TEST_DIR: perfskel export --otf2 and import
# --otf2 (README.md, "OTF2: Score-P, Vampir, Scalasca").
# 1. otf2prog (tests/cli/otf2prog.c: blocking, nonblocking and Sendrecv
#    point-to-point, a send to MPI_PROC_NULL, collectives with roots, an
#    Iallreduce, a split sub-communicator) recorded with 4 ranks and
#    exported: otf2-print reads the archive, and its counts per location
#    (Enter, Leave, MpiSend, MpiIsend, MpiRecv, MpiIrecv, collectives)
#    are those the recorded trace implies (perfskel dump --json, stats
#    --json); imported back, every event of every rank equals the
#    original in what OTF2 holds (function, entry and exit to the ns,
#    communicator, peer, tag, root, bytes); sim, sim --folded, fold and
#    gen run on the import and the K = 1 skeleton runs.
# 2. subcomm, persistent, masterworker and vcoll (tests/mpi, 3 ranks: groups,
#    Comm_create and Comm_dup, persistent requests, wildcards and
#    Waitany, v-collectives): exported, imported and exported again, the two archives
#    have the same MPI records per location; sim runs on the import.
# 3. An archive written by an independent writer (tests/cli/otf2_writer.py
#    on Debian's python3-otf2): imported with exactly its calls per rank
#    and its bytes, the user regions and the MPI function perfskel does
#    not record said on stderr.
# 4. Crafted archives (truncated definitions, events or anchor, an event
#    of an undefined region, a peer out of range, time going backwards,
#    not an archive at all): refused with one line, exit 1, no crash; a
#    region name with a newline and control bytes: said escaped.
set -u
flavour=$1 prog=$2 mpidir=$3
: "${PERFSKEL:?PERFSKEL must name the perfskel CLI}"
P=$PERFSKEL
HERE=$(dirname "$0")
PY=/usr/bin/python3
. "$HERE/lib.sh"
. "$HERE/otf2_crafted.sh"
mpirun_of "$flavour"
T=$(mktemp -d "${TMPDIR:-/tmp}/perfskel-otf2.XXXXXX")
trap 'rm -rf "$T"' EXIT
command -v otf2-print >/dev/null || { echo "FAIL otf2-print not found (sh scripts/deps.sh)"; exit 1; }

# ---- 1. otf2prog: export, otf2-print's counts, the round trip ----
if ! "$P" record -o "$T/tr" -- $MPIRUN -np 4 "$prog" >"$T/rec.out" 2>"$T/rec.err"; then
    bad "otf2prog: record failed"; cat "$T/rec.err"; exit 1
fi
expect 0 "" "export --otf2" -- "$P" export --otf2 "$T/tr" -o "$T/ox"
[ -f "$T/ox/traces.otf2" ] && [ -f "$T/ox/traces.def" ] && ok "export: traces.otf2 and traces.def" ||
    bad "export: no traces.otf2 or traces.def"
if otf2-print "$T/ox/traces.otf2" >"$T/print" 2>"$T/print.err" && ! grep -qi error "$T/print.err"; then
    ok "otf2-print reads the archive"
else
    bad "otf2-print: $(head -n 3 "$T/print.err")"
fi
otf2-print -G "$T/ox/traces.otf2" >"$T/defs" 2>&1
grep -q '^COMM .*"MPI_COMM_WORLD"' "$T/defs" && grep -q '^CLOCK_PROPERTIES .*Ticks per Seconds: 1000000000' "$T/defs" &&
    [ "$(grep -c '^LOCATION ' "$T/defs")" -eq 4 ] && [ "$(grep -c '^COMM ' "$T/defs")" -eq 4 ] &&
    ok "definitions: 4 locations, the clock, world, self and the two halves" ||
    bad "definitions: $(grep -E '^(COMM|LOCATION|CLOCK)' "$T/defs" | head -n 8)"
"$P" dump "$T/tr" --json >"$T/orig.json" && "$P" stats "$T/tr" --json --no-fold >"$T/stats.json" ||
    bad "dump/stats of the recorded trace"
"$PY" - "$T/print" "$T/orig.json" "$T/stats.json" <<'EOF' && ok "otf2-print's counts per location match the trace" || bad "otf2-print's counts"
import json, sys, collections
got = collections.Counter()
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 3 and f[1].isdigit() and f[0].isupper():
        got[(int(f[1]), f[0])] += 1
evs = [json.loads(l) for l in open(sys.argv[2])]
stats = json.load(open(sys.argv[3]))
coll = {"MPI_" + n for n in "Barrier Bcast Gather Gatherv Scatter Scatterv Allgather Allgatherv Alltoall Alltoallv "
        "Alltoallw Reduce Allreduce Reduce_scatter Reduce_scatter_block Scan Exscan".split()}
icoll = {"MPI_I" + n[4:].lower() for n in coll}
makers = {"MPI_" + n for n in "Comm_dup Comm_dup_with_info Comm_split Comm_split_type Comm_create "
          "Comm_create_group Cart_create Cart_sub Intercomm_create Intercomm_merge Comm_free".split()}
want = collections.Counter()
for e in evs:
    r, fn = e["rank"], e["fn"]
    for k in ("ENTER", "LEAVE"):
        want[(r, k)] += 1
    if fn in ("MPI_Send", "MPI_Bsend", "MPI_Ssend", "MPI_Rsend", "MPI_Sendrecv", "MPI_Sendrecv_replace") and e["peer"] >= 0:
        want[(r, "MPI_SEND")] += 1
    if fn == "MPI_Recv" and e["peer"] != -2 or fn.startswith("MPI_Sendrecv") and e["rpeer"] != -2:
        want[(r, "MPI_RECV")] += 1
    if fn in ("MPI_Isend", "MPI_Ibsend", "MPI_Issend", "MPI_Irsend") and e["peer"] >= 0:
        want[(r, "MPI_ISEND")] += 1
        want[(r, "MPI_ISEND_COMPLETE")] += 1
    if fn == "MPI_Irecv" and e["peer"] != -2:
        want[(r, "MPI_IRECV_REQUEST")] += 1
        want[(r, "MPI_IRECV")] += 1
    if fn in coll or fn in makers:
        want[(r, "MPI_COLLECTIVE_BEGIN")] += 1
        want[(r, "MPI_COLLECTIVE_END")] += 1
    if fn in icoll:
        want[(r, "NON_BLOCKING_COLLECTIVE_REQUEST")] += 1
        want[(r, "NON_BLOCKING_COLLECTIVE_COMPLETE")] += 1
    if fn == "MPI_Comm_split":
        want[(r, "COMM_CREATE")] += 1
    if fn == "MPI_Comm_free":
        want[(r, "COMM_DESTROY")] += 1
for rk in stats["ranks"]:  # Enter per rank = the calls stats counts
    if sum(rk["calls"].values()) != want[(rk["rank"], "ENTER")]:
        sys.exit("rank %d: stats counts %d calls, dump %d" % (rk["rank"], sum(rk["calls"].values()),
                                                             want[(rk["rank"], "ENTER")]))
kinds = {k for _, k in want} | {k for _, k in got}
bad = [(r, k, want[(r, k)], got[(r, k)]) for r in range(4) for k in sorted(kinds) if want[(r, k)] != got[(r, k)]]
for b in bad:
    print("  rank %d %s: expected %d, otf2-print shows %d" % b)
for r in range(4):  # every kind the test means to see is there
    for k in ("MPI_SEND", "MPI_RECV", "MPI_ISEND", "MPI_IRECV", "MPI_COLLECTIVE_END", "NON_BLOCKING_COLLECTIVE_COMPLETE"):
        if not got[(r, k)]:
            bad.append(1)
            print("  rank %d: no %s" % (r, k))
sys.exit(1 if bad else 0)
EOF
# the round trip
expect 0 "" "import --otf2 of the export" -- "$P" import --otf2 "$T/ox/traces.otf2" -o "$T/back"
"$P" dump "$T/back" --json >"$T/back.json" 2>"$T/back.err" || { bad "dump of the import"; cat "$T/back.err"; }
"$PY" - "$T/orig.json" "$T/back.json" <<'EOF' && ok "round trip: every event equal in what OTF2 holds" || bad "round trip"
import json, sys
def key(e):
    b = lambda c, d: e[c] * e[d] if c in e and d in e else None
    k = [e["rank"], e["seq"], e["fn"], e["t_entry_ns"], e["t_exit_ns"], e.get("comm"), e.get("peer"), e.get("tag"),
         e.get("root"), e.get("rpeer"), e.get("rtag"), e.get("newid"), e.get("members")]
    if e.get("peer") != -2:  # MPI_PROC_NULL messages are not in OTF2
        k += [b("count", "dtsize"), b("rcount", "rdtsize")]
    return k
a = [key(json.loads(l)) for l in open(sys.argv[1])]
b = [key(json.loads(l)) for l in open(sys.argv[2])]
if len(a) != len(b):
    sys.exit("%d events recorded, %d imported" % (len(a), len(b)))
diff = [(x, y) for x, y in zip(a, b) if x != y]
for x, y in diff[:5]:
    print("  recorded %s\n  imported %s" % (x, y))
sys.exit(1 if diff else 0)
EOF
expect 0 "" "sim of the import" -- "$P" sim "$T/back" -q
expect 0 "" "sim --folded of the import" -- "$P" sim "$T/back" --folded -q
expect 0 "" "fold of the import" -- "$P" fold "$T/back"
grep -q "x4" "$T/out" && ok "fold finds the 4-iteration loop" || bad "fold: no x4 loop: $(head -n 3 "$T/out")"
# the same prediction from the recorded and the imported trace (the same
# events and times), with the ranks starting together (export puts every
# rank on rank 0's clock, where sim otherwise takes each host's own offset)
# and the calls' own floors off (their kinds go by bytes, which OTF2 keeps
# as Score-P counts them, not always as recorded)
printf 'ranks start = together;\ncall floors = off;\n' >"$T/together.par"
a=$("$P" sim "$T/tr" --machine "$T/together.par" -q | head -n 1) b=$("$P" sim "$T/back" --machine "$T/together.par" -q | head -n 1)
[ "$a" = "$b" ] && ok "sim: the same prediction from both" || bad "sim: recorded '$a', imported '$b'"
# the same where the ping-pong measured offsets between ranks of one host
# (noise: they share its clock; a loaded machine measures tens of us):
# export moves each rank to rank 0's clock as sim does
cp -r "$T/tr" "$T/tro"
"$PY" - "$T/tro/job.json" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
j["clock"]["offsets_ns"] = [0, 40000, -30000, 20000]
json.dump(j, open(sys.argv[1], "w"))
EOF
if "$P" export --otf2 "$T/tro" -o "$T/oxo" >/dev/null 2>&1 && "$P" import --otf2 "$T/oxo/traces.otf2" -o "$T/backo" >/dev/null 2>&1; then
    a=$("$P" sim "$T/tro" --machine "$T/together.par" --json 2>/dev/null | "$PY" -c 'import json, sys; print(repr(json.load(sys.stdin)["predicted_seconds"]))')
    b=$("$P" sim "$T/backo" --machine "$T/together.par" --json 2>/dev/null | "$PY" -c 'import json, sys; print(repr(json.load(sys.stdin)["predicted_seconds"]))')
    [ -n "$a" ] && [ "$a" = "$b" ] && ok "sim: the same prediction with noisy offsets on one host ($a s)" ||
        bad "sim with noisy offsets on one host: recorded '$a', imported '$b'"
else
    bad "export/import of the trace with noisy offsets"
fi
if "$P" gen "$T/back" -K 1 -o "$T/sk.c" 2>"$T/gen.err" && "mpicc.$flavour" -O1 -o "$T/sk" "$T/sk.c" 2>"$T/cc.err" &&
    timeout 60 $MPIRUN -np 4 "$T/sk" >"$T/sk.out" 2>"$T/sk.err"; then
    ok "gen: the import's skeleton builds and runs"
else
    bad "gen: $(cat "$T/gen.err" "$T/cc.err" | head -n 3) $(grep -v '^\[' "$T/sk.err" | tail -n 3)"
fi

# ---- 2. groups, persistent requests, wildcards: export, import, export again ----
for p in subcomm persistent masterworker vcoll; do
    exe=$mpidir/${p}_c
    [ -x "$exe" ] || { bad "$p: $exe not built"; continue; }
    d=$T/$p
    if ! "$P" record -o "$d/tr" -- $MPIRUN -np 3 "$exe" >"$d.out" 2>"$d.err"; then
        bad "$p: record failed"; tail -n 3 "$d.err"; continue
    fi
    if "$P" export --otf2 "$d/tr" -o "$d/o1" 2>"$d.err" && "$P" import --otf2 "$d/o1/traces.otf2" -o "$d/im" 2>"$d.ierr" &&
        "$P" export --otf2 "$d/im" -o "$d/o2" 2>>"$d.err"; then
        :
    else
        bad "$p: export, import, export: $(cat "$d.err" "$d.ierr" | head -n 3)"; continue
    fi
    for o in o1 o2; do
        otf2-print "$d/$o/traces.otf2" 2>"$d/$o.err" |
            awk '$2 ~ /^[0-9]+$/ && $1 ~ /^(MPI_|NON_|COMM_)/ { n[$2 " " $1]++ } END { for (k in n) print k, n[k] }' |
            sort >"$d/$o.counts"
        [ -s "$d/$o/traces.otf2" ] && ! grep -qi error "$d/$o.err" || bad "$p: otf2-print of $o: $(head -n 2 "$d/$o.err")"
    done
    if cmp -s "$d/o1.counts" "$d/o2.counts" && [ -s "$d/o1.counts" ]; then
        ok "$p: the same MPI records per location after import and export again"
    else
        bad "$p: MPI records differ:"; diff "$d/o1.counts" "$d/o2.counts" | head -n 6
    fi
    "$P" sim "$d/im" -q >/dev/null 2>"$d.serr" && ok "$p: sim of the import" || bad "$p: sim: $(head -n 2 "$d.serr")"
done

# ---- 3. an archive of an independent writer ----
if "$PY" -c 'import otf2' 2>/dev/null; then
    "$PY" "$HERE/otf2_writer.py" "$T/py" 2>"$T/py.err" || { bad "otf2_writer.py: $(tail -n 2 "$T/py.err")"; }
    expect 0 "4 calls of MPI functions perfskel does not record (e.g. MPI_Comm_rank)" "import of python3-otf2's archive" \
        -- "$P" import --otf2 "$T/py/traces.otf2" -o "$T/pyi"
    grep -q "16 entries of regions that are not MPI calls" "$T/err" && ok "import: the user regions said" ||
        bad "import: the user regions not said: $(cat "$T/err")"
    "$P" stats "$T/pyi" --json --no-fold >"$T/pys.json" 2>&1 || bad "stats of the python archive's import"
    "$P" dump "$T/pyi" --json >"$T/pyd.json" 2>&1 || bad "dump of the python archive's import"
    "$PY" - "$T/pys.json" "$T/pyd.json" <<'EOF' && ok "import: the python archive's calls, bytes, roots, times" || bad "import of the python archive"
import json, sys
s = json.load(open(sys.argv[1]))
want = {"MPI_Init": 1, "MPI_Send": 3, "MPI_Recv": 3, "MPI_Allreduce": 4, "MPI_Irecv": 2, "MPI_Isend": 2,
        "MPI_Waitall": 2, "MPI_Bcast": 1, "MPI_Barrier": 1, "MPI_Comm_split": 1, "MPI_Comm_free": 1, "MPI_Finalize": 1}
bad = 0
if len(s["ranks"]) != 4:
    sys.exit("%d ranks" % len(s["ranks"]))
for rk in s["ranks"]:
    if rk["calls"] != want:
        bad = print("  rank %d: %s" % (rk["rank"], rk["calls"])) or 1
for l in open(sys.argv[2]):
    e = json.loads(l)
    r, fn = e["rank"], e["fn"]
    if fn == "MPI_Send" and (e["count"] * e["dtsize"] != 800 or e["peer"] != (r + 1) % 4):
        bad = print("  ", e) or 1
    if fn == "MPI_Irecv" and (e["count"] != 96 or e["peer"] != (r + 3) % 4 or e["tag"] not in (10, 11)):
        bad = print("  ", e) or 1
    if fn == "MPI_Bcast" and (e["root"] != 2 or e["count"] != 64):
        bad = print("  ", e) or 1
    if fn == "MPI_Comm_split" and e["members"] != [q for q in range(4) if q % 2 == r % 2]:
        bad = print("  ", e) or 1
    if fn == "MPI_Allreduce" and (e["comm"], e["count"]) not in ((0, 8), (2, 16)):
        bad = print("  ", e) or 1
    # us ticks: the first call after MPI_Init enters 17 us after it on every rank
    if e["seq"] == 1 and e["t_entry_ns"] != 17000:
        bad = print("  time", e) or 1
sys.exit(bad)
EOF
    expect 0 "" "sim of the python archive's import" -- "$P" sim "$T/pyi" -q

    # ---- 4. crafted archives ----
    for m in nofinalize badpeer ctrlname; do
        "$PY" "$HERE/otf2_writer.py" "$T/$m" "$m" 2>"$T/$m.err" || bad "otf2_writer.py $m: $(tail -n 1 "$T/$m.err")"
    done
    "$P" import --otf2 "$T/ctrlname/traces.otf2" -o "$T/x" >/dev/null 2>"$T/err"
    if [ $? -eq 0 ] && ! grep -qv '^perfskel: ' "$T/err" && grep -q 'MPI_Comm_rank\\n\\x01\\x1b' "$T/err"; then
        ok "crafted: a region name with a newline and control bytes said escaped, on one line"
    else
        bad "crafted: a region name with control bytes: $(cat "$T/err")"
    fi
    otf2_crafted expect "$T/py" "$T/nofinalize" "$T/badpeer"
else
    bad "python3-otf2 is not installed for /usr/bin/python3 (sh scripts/deps.sh)"
fi
expect 1 "No such file" "import: a missing archive" -- "$P" import --otf2 "$T/none.otf2" -o "$T/x"
expect 2 "say which format" "import: no format" -- "$P" import "$T/ox/traces.otf2" -o "$T/x"
expect 0 "" "import --help" -- "$P" import --help
grep -q "import --otf2" "$T/out" && ok "import --help says --otf2" || bad "import --help: $(cat "$T/out")"

[ "$fails" -eq 0 ] && echo "all passed" && exit 0
echo "$fails failed"
exit 1

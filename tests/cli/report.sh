#!/bin/sh
# CLI test of perfskel sim's HTML report and its what-if comparison of
# machines (docs/simulation.md, "The report"), without MPI: a generated
# LU-shaped trace of a million events (bench/gen_trace, 4 ranks) simulated
# with its loops on two machines, one of them a file whose name holds
# </script>, quotes and markup, in a directory whose name does too. The page
# must stay under 5 MB, carry the names escaped (exactly the page's own two
# </script>), open in headless Chromium without a console message, and pass
# its own self-test (#selftest: zoom in, pan, hover a call and read the
# tooltip, the wheel, switch machines, hover the communication matrix and a
# bar); the figures Chromium then shows must be those of sim --json and
# perfskel stats (each machine's prediction; on a short trace also the
# timeline, a hovered rank, the per-rank table, the calls and bytes); --json
# with two machines gives each one's report as with one, and the comparison;
# with one machine --json keeps its shape. Needs PERFSKEL and GEN_TRACE;
# without chromium, fails unless PSK_ALLOW_SKIP names it (lib.sh, skipped).
set -u
P=${PERFSKEL:?}
G=${GEN_TRACE:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

TR="$T/trace<i>&\"'"
mkdir -p "$T/x<"
BAD="$T/x</script>\"'<b>.par" # the path holds </script>: directory "x<", file "script>..."
printf 'type = bus; start time = 50; send byte time = 0.01; power = 0.5;\n' >"$BAD"
printf 'type = switch; start time = 2; send byte time = 0.0001;\n' >"$T/fast.par"

if ! "$G" "$TR" --ranks 4 --events 250000 >"$T/gen" 2>"$T/err"; then
    bad "gen_trace failed"; cat "$T/err"; exit 1
fi
events=$(sed -n 's/.*, \([0-9]*\) events.*/\1/p' "$T/gen")
s0=$(date +%s)
if "$P" sim "$TR" --intervals loops --machine "$T/fast.par" --machine "$BAD" --html "$T/r.html" \
    >"$T/two.txt" 2>"$T/err" &&
    "$P" sim "$TR" --intervals loops --machine "$T/fast.par" --machine "$BAD" --json -q >"$T/two.json" 2>>"$T/err" &&
    "$P" sim "$TR" --intervals loops --machine "$T/fast.par" --json -q >"$T/one.json" 2>>"$T/err"; then
    ok "sim on two machines ($events events, $(($(date +%s) - s0)) s for three runs)"
else
    bad "sim on two machines"; cat "$T/err"; exit 1
fi

size=$(wc -c <"$T/r.html")
[ "$size" -lt 5000000 ] && ok "the report of $events events on two machines is $size bytes (under 5 MB)" ||
    bad "the report of $events events is $size bytes (5 MB or more)"
n=$(grep -o '</script>' "$T/r.html" | wc -l)
[ "$n" -eq 2 ] && ! grep -qF "\"'<b>" "$T/r.html" && grep -qF 'x&lt;/script&gt;&quot;&#39;&lt;b&gt;.par' "$T/r.html" &&
    grep -qF 'x\u003c/script\u003e\"'"'"'\u003cb\u003e.par' "$T/r.html" &&
    grep -qF 'trace&lt;i&gt;&amp;&quot;&#39;' "$T/r.html" &&
    ok "the names are escaped in the page's text and in its data" ||
    bad "a name is not escaped (</script> $n times)"
for want in 'id="iv0"' 'id="m1-iv0"' 'class="matrix"' 'class="fns"' 'class="loops"' 'loop 2 ('; do
    grep -qF "$want" "$T/r.html" || bad "the report lacks $want"
done
grep -q 'machines compared' "$T/two.txt" && grep -qF "$BAD" "$T/two.txt" && grep -q '== machine 2: ' "$T/two.txt" &&
    ok "text: the comparison, then each machine's report" || { bad "text of two machines"; head -5 "$T/two.txt"; }

# --json: the comparison and each machine's report as --json gives it alone
if "$PY" - "$T/two.json" "$T/one.json" "$BAD" <<'EOF'; then
import json, sys
two = json.load(open(sys.argv[1]))
one = json.load(open(sys.argv[2]))
m, r = two["machines"], two["runs"]
assert len(m) == 2 and len(r) == 2, (len(m), len(r))
assert m[1]["machine"] == sys.argv[3], m[1]["machine"]
for k in range(2):
    assert m[k]["predicted_seconds"] == r[k]["predicted_seconds"]
    assert set(r[k]) == set(one), set(r[k]) ^ set(one)
assert r[0] == one, "the first machine's report differs from the one-machine --json"
assert m[1]["predicted_seconds"] > m[0]["predicted_seconds"], "the slow bus is not slower"
assert abs(m[1]["ratio_to_first"] - m[1]["predicted_seconds"] / m[0]["predicted_seconds"]) < 1e-6
assert "predicted_seconds" in one and "intervals" in one and "machines" not in one
EOF
    ok "--json: two machines' reports as each alone, their comparison; one machine's shape unchanged"
else
    bad "--json of two machines"
fi

# what the page holds adds up: on 64 ranks of about 20,000 calls each (more
# than the 16,384 segments a rank keeps, so the collector merges them as
# the replay goes, and the page merges them again), each rank's segments
# hold every call it made (perfskel stats), their MPI and waiting time are
# the rank's (the report's own totals, to a ns a segment), and the table
# per function counts every call, the matrix every byte each rank sent
if "$G" "$T/g64" --ranks 64 --events 20000 >/dev/null 2>"$T/err" &&
    "$P" sim "$T/g64" -q --html "$T/g64.html" >/dev/null 2>>"$T/err" &&
    "$P" stats "$T/g64" --json --no-fold >"$T/g64.stats" 2>>"$T/err"; then
    if "$PY" - "$T/g64.html" "$T/g64.stats" <<'EOF'; then
import json, re, sys
page = open(sys.argv[1]).read()
i = page.index('id="psk-data">') + len('id="psk-data">')
data = json.loads(page[i:page.index("</script>", i)])
st = json.load(open(sys.argv[2]))
skip = ("MPI_Init", "MPI_Init_thread", "MPI_Pcontrol")
rows = data["runs"][0]["rows"]
assert len(rows) == 64, len(rows)
for row in rows:
    s = row["s"]
    nseg = len(s) // 8
    calls = sum(v for k, v in st["ranks"][row["rank"]]["calls"].items() if k not in skip)
    assert sum(s[7::8]) == calls, (row["rank"], sum(s[7::8]), calls)
    assert abs(sum(s[2::8]) * 1e-9 - row["mpi"]) <= 1e-9 * nseg + 1e-9, (row["rank"], "mpi")
    assert abs(sum(s[3::8]) * 1e-9 - row["sync"]) <= 1e-9 * nseg + 1e-9, (row["rank"], "sync")
want = {}
for r in st["ranks"]:
    for k, v in r["calls"].items():
        if k not in skip:
            want[k] = want.get(k, 0) + v
got = dict((m.group(1), int(m.group(2))) for m in
           re.finditer(r'<tr><td class="name">(MPI_\w+)</td><td>(\d+)</td>', page[page.index('class="fntotals"'):]))
assert got == want, (got, want)
sent = {}
for m in re.finditer(r'title="rank (\d+) to (\d+): (\d+) bytes in (\d+) messages"', page):
    sent[int(m.group(1))] = sent.get(int(m.group(1)), 0) + int(m.group(3))
for r in range(64):
    b = sum(v for k, v in st["ranks"][r]["bytes"].items() if k in ("MPI_Send", "MPI_Isend"))
    assert sent.get(r, 0) == b, (r, sent.get(r, 0), b)
EOF
        ok "64 ranks, segments merged as the replay goes: every call and its time accounted for, every byte sent in the matrix"
    else
        bad "64 ranks: the page's segments or function table do not add up"
    fi
else
    bad "sim of 64 ranks"; cat "$T/err"
fi

# browse FILE NAME: FILE in headless Chromium without a console message,
# its self-test all ok; the DOM in $T/dom.html
browse() {
    url=$(printf '%s' "file://$1" | sed 's/%/%25/g; s/</%3C/g; s/>/%3E/g; s/"/%22/g; s/'"'"'/%27/g; s/&/%26/g')
    if ! timeout 60 chromium --headless=new --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
        --window-size=1400,1000 --dump-dom "$url#selftest" >"$T/dom.html" 2>"$T/chromium.err"; then
        bad "$2: headless Chromium failed"; tail -5 "$T/chromium.err"; return 1
    fi
    if grep -q 'CONSOLE' "$T/chromium.err"; then
        bad "$2: console messages in Chromium"; grep CONSOLE "$T/chromium.err" | head -5
    else
        ok "$2: opens in headless Chromium without console messages"
    fi
    if grep -q '<pre id="selftest">selftest: ok' "$T/dom.html"; then
        ok "$2: the page's self-test, $(sed -n '/<pre id="selftest">/,/<\/pre>/p' "$T/dom.html" | grep -c .) lines, all ok"
    else
        bad "$2: the page's self-test"; sed -n '/<pre id="selftest">/,/<\/pre>/p' "$T/dom.html" | head -20; return 1
    fi
}

# the page in headless Chromium: no console message, and its self-test;
# on a short trace the calls are each one segment, hovered one by one.
# Then the page as Chromium shows it (its DOM once the scripts ran) is read
# from outside and its figures compared with perfskel's own: each
# machine's predicted time with sim --json; on the short trace also the
# timeline's span and the hovered rank's totals (drawn by the page's
# script), the program's per-rank table (sim --json), the calls per
# function and the messages and bytes each rank sent (perfskel stats)
if command -v chromium >/dev/null; then
    if browse "$T/r.html" "two machines"; then
        grep -qF "switched to machine 2: $T/x&lt;/script&gt;\"'&lt;b&gt;.par" "$T/dom.html" &&
            ok "the crafted machine name is a button's text, as given" ||
            bad "the crafted machine name is not the button's text"
        grep -q 'hover on merged calls: rank 0 .*mostly MPI_' "$T/dom.html" &&
            ok "a million events: the hovered segment merges calls" || bad "a million events: no merged segment hovered"
        if "$PY" - "$T/dom.html" "$T/two.json" <<'EOF'; then
import json, re, sys
dom = open(sys.argv[1]).read()
two = json.load(open(sys.argv[2]))
t = dom[dom.index('<table class="compare">'):]
t = t[:t.index("</table>")]
got = [float(x) for x in re.findall(r'<tr data-run="\d+"><td class="name">[^<]*</td><td>([0-9.]+)</td>', t)]
want = [m["predicted_seconds"] for m in two["machines"]]
assert len(got) == len(want) == 2, (got, want)
for g, w in zip(got, want):
    assert abs(g - w) <= 1e-6, (got, want)
EOF
            ok "two machines, as Chromium shows them: each predicted time is sim --json's"
        else
            bad "two machines, as Chromium shows them: the predicted times are not sim --json's"
        fi
    fi
    "$G" "$T/small" --ranks 4 --events 3000 >/dev/null 2>"$T/err" &&
        "$P" sim "$T/small" --intervals loops -q --html "$T/small.html" >/dev/null 2>>"$T/err" &&
        "$P" sim "$T/small" --intervals loops -q --json >"$T/small.json" 2>>"$T/err" &&
        "$P" stats "$T/small" --json --no-fold >"$T/small.stats" 2>>"$T/err" ||
        { bad "sim or stats of a short trace"; cat "$T/err"; }
    if browse "$T/small.html" "a short trace"; then
        grep -q 'hover on a call: rank 0 .* | MPI_[A-Za-z]*, peer rank [0-9], [0-9.]* KiB' "$T/dom.html" &&
            ok "a short trace: the hovered call's function, peer and bytes" ||
            { bad "a short trace: the hovered call"; grep 'hover' "$T/dom.html"; }
        if "$PY" - "$T/dom.html" "$T/small.json" "$T/small.stats" <<'EOF'; then
import json, re, sys
dom = open(sys.argv[1]).read()
sim = json.load(open(sys.argv[2]))
st = json.load(open(sys.argv[3]))
pred = sim["predicted_seconds"]
def near(g, w, tol, what):
    assert abs(g - w) <= tol, (what, g, w)
def part(start, end):
    i = dom.index(start)
    return dom[i:dom.index(end, i)]
m = re.search(r'Predicted run time <b>([0-9.]+) s</b>', dom)
near(float(m.group(1)), pred, 1e-6, "predicted time")
# the timeline (drawn by the script) spans the predicted run
m = re.search(r'class="tl-info">[^<]* of ([0-9.]+) ms', dom)
span = float(m.group(1)) * 1e-3
assert pred - 1e-6 <= span <= pred * 1.01, ("timeline span", span, pred)
# the hovered rank's totals, as the script writes them
m = re.search(r'hover on a call: rank (\d+) \(in all: ([0-9.]+) ms compute, ([0-9.]+) ms MPI of which ([0-9.]+) ms waiting\)', dom)
r = sim["intervals"]["ranks"][int(m.group(1))]
near(float(m.group(2)) * 1e-3, r["cpu"], 1e-6, "hovered rank's compute")
near(float(m.group(3)) * 1e-3, r["p2p"] + r["collective"], 1e-6, "hovered rank's MPI")
near(float(m.group(4)) * 1e-3, r["sync"], 1e-6, "hovered rank's waiting")
# the program's per-rank table
rows = re.findall(r'<tr><td>(\d+)</td><td>\d+</td>((?:<td>[0-9.]+</td>)+)</tr>', part('<section id="iv0">', "</section>"))
assert len(rows) == len(sim["intervals"]["ranks"]) == st["job"]["ranks"], ("per-rank rows", len(rows))
cols = ("exec", "cpu", "p2p", "collective", "wait", "sync")
for rank, cells in rows:
    v = [float(x) for x in re.findall(r'<td>([0-9.]+)</td>', cells)]
    r = sim["intervals"]["ranks"][int(rank)]
    for k, c in enumerate(cols):
        near(v[k], r[c], 1e-6, "rank %s %s" % (rank, c))
# calls per function (those the replay has no row for left out)
skip = ("MPI_Init", "MPI_Init_thread", "MPI_Pcontrol")
got = dict((m.group(1), int(m.group(2))) for m in
           re.finditer(r'<tr><td class="name">(MPI_\w+)</td><td>(\d+)</td>', part('class="fntotals"', "</table>")))
want = dict((f["name"], f["calls"]) for f in st["functions"] if f["name"] not in skip)
assert got == want, ("calls per function", got, want)
# what each rank sent: the matrix's rows against its Send and Isend calls
# (a cell the self-test hovered keeps its title as data-tip)
sent = {}
for m in re.finditer(r'(?:title|data-tip)="rank (\d+) to \d+: (\d+) bytes in (\d+) messages"', part('class="matrix"', "</table>")):
    b, n = sent.get(int(m.group(1)), (0, 0))
    sent[int(m.group(1))] = (b + int(m.group(2)), n + int(m.group(3)))
for r in st["ranks"]:
    p2p = ("MPI_Send", "MPI_Isend")
    want = (sum(r["bytes"].get(f, 0) for f in p2p), sum(r["calls"].get(f, 0) for f in p2p))
    assert sent.get(r["rank"], (0, 0)) == want, ("rank %d sent" % r["rank"], sent.get(r["rank"]), want)
EOF
            ok "a short trace, as Chromium shows it: prediction, timeline, hovered rank and per-rank table as sim --json, calls and bytes as perfskel stats"
        else
            bad "a short trace, as Chromium shows it: figures differ from sim --json or perfskel stats (above)"
        fi
    fi
else
    skipped chromium "the HTML report in headless Chromium"
fi

[ "$fails" -eq 0 ] && echo "all ok" || echo "$fails failed"
[ "$fails" -eq 0 ]

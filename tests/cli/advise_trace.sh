#!/bin/sh
# advise_trace.sh: `perfskel advise --trace DIR` and `perfskel sim DIR`
# agree on the plan's time (docs/advise.md "The trace and the simulator").
# On a bus (Ts 7 us, Tb 0.001 us/B, one rank a node, everything eager)
# the sim's predicted_seconds is compared with the advisor's plan.total_us
# per kernel: equal (to 0.01 %) where the formulas' step-by-step
# synchronisation changes nothing; where the replay overlaps one rank's
# compute with others' messages, the measured time, derived or bounded in
# the comment. Also the intervals' names, the HTML report, and the errors.
set -u
: "${PERFSKEL:?PERFSKEL must name the perfskel CLI}"
P=$PERFSKEL
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/perfskel-advtrace.XXXXXX")
trap 'rm -rf "$T"' EXIT

printf 'type = bus;\nstart time = 7;\nsend byte time = 0.001;\neager threshold = 1000000000;\nranks per node = 1;\n' >"$T/bus.machine"
sed 's/type = bus/type = switch/' "$T/bus.machine" >"$T/switch.machine"
M=$T/bus.machine # the machine check() advises and simulates on

# Jacobi 2-D (5-point stencil + copy, work 0), P = 4, repeat 10: one axis
# at N = 864 (6 messages of a row: 42 + 0.048 N us), 2 x 2 at N = 880
# (8 of half a row: 56 + 0.032 N); the crossover is N = 875
cat >"$T/jacobi.adv" <<'K'
param N = 864; procs 4; repeat 10;
array A[N][N] double; array B[N][N] double;
nest relax { for i = 1 .. N-2 par for j = 1 .. N-2 par
  B[i][j] = f(A[i-1][j], A[i+1][j], A[i][j-1], A[i][j+1]); }
nest copy { for i = 1 .. N-2 par for j = 1 .. N-2 par A[i][j] = B[i][j]; }
K
# the dot product's reduction, P = 4: R + P - 2 = 6 messages of 8 B
cat >"$T/dot.adv" <<'K'
param N = 1000; param R = 1; procs 4; repeat R;
array x[N] double; array y[N] double; scalar s double;
nest dot work 0.0005 { for i = 0 .. N-1 par s += x[i] * y[i]; }
K
# LU without pivoting, N = 8, P = 4: rows, 12 remote messages (84.496 us)
cat >"$T/lu.adv" <<'K'
param N = 8; procs 4;
array A[N][N] double;
nest lu work 1 { for k = 0 .. N-2 seq for i = k+1 .. N-1 par
  for j = k+1 .. N-1 par A[i][j] -= A[i][k] * A[k][j]; }
K
sed 's/work 1/work 0/' "$T/lu.adv" >"$T/lu0.adv"
# ADI as two sweeps without pipelining, N = 4, P = 2, repeat 10, work 1:
# transposing between the sweeps (19 redistributions of 2 x 32 B)
cat >"$T/adi.adv" <<'K'
param N = 4; procs 2; repeat 10;
array X[N][N] double;
nest sweep_i work 1 { for i = 1 .. N-1 seq for j = 0 .. N-1 par
  X[i][j] = f(X[i-1][j]); }
nest sweep_j work 1 { for j = 1 .. N-1 seq for i = 0 .. N-1 par
  X[i][j] = f(X[i][j-1]); }
K

# check NAME FILE GRID WANT TOL [advise args]: advise with --trace, sim the
# trace; the plan's grid must be GRID ("-": any), the sim's time WANT us
# ("f": the formula's) within TOL percent
check() {
    name=$1 f=$2 grid=$3 want=$4 tol=$5
    shift 5
    rm -rf "$T/tr"
    if ! "$P" advise "$f" --machine "$M" --json --trace "$T/tr" "$@" >"$T/a.json" 2>"$T/err"; then
        bad "$name: advise --trace failed"; cat "$T/err"; return
    fi
    if ! "$P" sim "$T/tr" --machine "$M" --json >"$T/s.json" 2>"$T/err"; then
        bad "$name: sim of the trace failed"; cat "$T/err"; return
    fi
    python3 - "$T/a.json" "$T/s.json" "$name" "$grid" "$want" "$tol" <<'PY' && ok "$name" || bad "$name"
import json, sys
a = json.load(open(sys.argv[1])); s = json.load(open(sys.argv[2]))
name, grid, want, tol = sys.argv[3], sys.argv[4], sys.argv[5], float(sys.argv[6])
f = a["plan"]["total_us"]; m = s["predicted_seconds"] * 1e6
g = a["plan"]["nests"][0]["grid"]
print("     %-22s grid %-8s formula %10.3f us  sim %10.3f us  %+.3f %%" % (name, g, f, m, 100 * (m - f) / f))
if grid != "-" and str(g).replace(" ", "") != grid:
    sys.exit("grid %s, expected %s" % (g, grid))
w = f if want == "f" else float(want)
if abs(m - w) > tol / 100 * w:
    sys.exit("sim %.6f us, expected %.6f within %g %%" % (m, w, tol))
PY
}

check "jacobi P=4 one axis" "$T/jacobi.adv" "[4]" f 0.01 -D N=864
check "jacobi P=4 2x2" "$T/jacobi.adv" "[2,2]" f 0.01 -D N=880
check "dot P=4" "$T/dot.adv" "[4]" f 0.01
# repeated, a rank that has its broadcast computes the next dot product
# while the bus still carries the others' (measured -0.27 %)
check "dot P=4 repeat 10" "$T/dot.adv" "[4]" f 1 -D R=10
# LU's communication alone agrees exactly ...
check "lu N=8 P=4 work 0" "$T/lu0.adv" "[4]" f 0.01
# ... but with compute the owner of row k+1 sends it while the others
# still compute step k (a look-ahead), where the formula ends every k
# with the slowest compute and then the whole transfer: the sim measures
# 90.464 us against 139.496 (-35 %); never less than the bus's 84.496
check "lu N=8 P=4 work 1" "$T/lu.adv" "[4]" 90.464 0.01
# ADI transposing: the redistribution's two messages go one after the
# other on the bus, and the rank that has its data first computes its 6
# us of the sweep while the other's message (7.032 us) is on the bus; so
# the bus never waits for compute and the sim is the 19 redistributions'
# 267.216 us plus the first and the last sweep's 6: 279.216 us, against
# the formula's 387.216 (-27.9 %)
check "adi transposes P=2" "$T/adi.adv" "[2]" 279.216 0.01
python3 -c 'import json,sys; assert not json.load(open(sys.argv[1]))["plan"]["static"]' "$T/a.json" &&
    ok "adi: the plan transposes" || bad "adi: the plan does not transpose"

# the intervals: their names, and the HTML report shows them
printf 'pcontrol 2\tnest sweep_i\npcontrol 3\tnest sweep_j\npcontrol 4\tredistribution before nest sweep_i\npcontrol 5\tredistribution before nest sweep_j\n' >"$T/want.txt"
cmp -s "$T/want.txt" "$T/tr/intervals.txt" && ok "intervals.txt" || { bad "intervals.txt"; cat "$T/tr/intervals.txt"; }
python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
names = []
def walk(i):
    names.append(i["name"]); [walk(c) for c in i.get("children", [])]
walk(d["intervals"])
want = ["nest sweep_i", "nest sweep_j", "redistribution before nest sweep_i", "redistribution before nest sweep_j"]
assert all(w in names for w in want), names' "$T/s.json" &&
    ok "sim: one interval per nest and per redistribution, named" || bad "sim: the named intervals are not there"
expect 0 "" "sim --html of the trace" -- "$P" sim "$T/tr" --machine "$T/bus.machine" --html "$T/r.html"
grep -q "redistribution before nest sweep_j" "$T/r.html" && ok "html names the intervals" || bad "html lacks the intervals"
# intervals.txt comes from elsewhere: a bad line is one error naming it;
# without the file the levels keep their numbers
printf 'pcontrol 2\tnest <b>\nnonsense\n' >"$T/tr/intervals.txt"
expect 1 "intervals.txt:2: not \`pcontrol LEVEL<TAB>NAME\`" "a bad intervals.txt" -- "$P" sim "$T/tr" --machine "$T/bus.machine"
printf 'pcontrol 2\tnest <b>&\n' >"$T/tr/intervals.txt"
expect 0 "" "a name to escape" -- "$P" sim "$T/tr" --machine "$T/bus.machine" --html "$T/r2.html"
grep -q "nest &lt;b&gt;&amp;" "$T/r2.html" && ok "html escapes the names" || bad "html does not escape a name"
rm "$T/tr/intervals.txt"
expect 0 "" "no intervals.txt" -- "$P" sim "$T/tr" --machine "$T/bus.machine" --json
grep -q '"pcontrol 5"' "$T/out" && ok "without intervals.txt: pcontrol numbers" || bad "without intervals.txt: no pcontrol 5"

# On a switch the reduction's formula is binomial trees, ceil(log2 R) +
# ceil(log2 P) message times, and the trace sends them round by round:
# equal, at powers of two and not
M=$T/switch.machine
check "switch: dot P=4" "$T/dot.adv" "[4]" f 0.01
check "switch: dot P=6" "$T/dot.adv" "[6]" f 0.01 --procs 6
check "switch: dot P=13" "$T/dot.adv" "[13]" f 0.01 --procs 13
M=$T/bus.machine

# errors: too many events (nothing written), a directory that cannot be made
rm -rf "$T/big"
sed 's/repeat 10;/repeat 10000000;/' "$T/jacobi.adv" >"$T/big.adv"
expect 1 "would hold [0-9]* events, more than the 50000000" "too many events" -- \
    "$P" advise "$T/big.adv" --machine "$T/bus.machine" --trace "$T/big"
[ ! -e "$T/big" ] && ok "nothing written when too big" || bad "a trace was written though too big"
: >"$T/file"
expect 1 "" "--trace under a file" -- "$P" advise "$T/dot.adv" --machine "$T/bus.machine" --trace "$T/file/x"
expect 2 "" "--trace without DIR" -- "$P" advise "$T/dot.adv" --trace
[ "$fails" -eq 0 ]

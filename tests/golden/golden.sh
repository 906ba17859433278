#!/bin/sh
# golden.sh [--update] [--keep DIR]: what perfskel writes for a fixed
# corpus, byte for byte, against tests/golden/expected.sha256. The corpus:
# the recorded traces kept in tests/golden/traces (examples/heat.c and the
# programs of bench/programs, recorded at 2 ranks) and in
# tests/random/regress, and the advisor's examples. For each trace: dump,
# stats --json, fold --json and --tree, merge (both time modes), sim
# --json (whole and folded, two machines, loop intervals, extrapolated to
# twice the ranks), the HTML report, gen -K 10's skeleton, export --smpi
# and --otf2 (each file but the archive's anchor, which holds its
# creation time), that archive read back by import --otf2 (its events);
# for each .adv file advise --json. Only what depends on
# nothing but the input: fold's own run time is taken out, nothing runs a
# skeleton or a job.
#
# A change that must not change what perfskel writes (a refactoring) keeps
# this test green; one that does change it says so by running
# `sh tests/golden/golden.sh --update` and committing the manifest with it.
# --keep DIR leaves every output in DIR: run it at two commits and diff the
# directories to see what changed. Needs PERFSKEL (the CLI).
set -u
P=${PERFSKEL:?PERFSKEL must name the perfskel CLI}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
manifest=$here/expected.sha256
update=0 keep=
while [ $# -gt 0 ]; do
    case $1 in
    --update) update=1 ;;
    --keep) keep=$2; shift ;;
    *) echo "usage: golden.sh [--update] [--keep DIR]" >&2; exit 2 ;;
    esac
    shift
done
if [ -n "$keep" ]; then
    rm -rf "$keep" && mkdir -p "$keep" && O=$(cd "$keep" && pwd) || exit 2
else
    O=$(mktemp -d "${TMPDIR:-/tmp}/perfskel-golden.XXXXXX") || exit 2
    trap 'rm -rf "$O"' EXIT
fi

# out NAME CMD...: CMD's standard output and exit status into NAME (run in
# the case's directory, its paths relative, so that none of this machine's
# paths reach the output)
out() {
    name=$1
    shift
    "$@" >"$name" 2>/dev/null
    echo "exit $?" >>"$name"
}
# outq NAME CMD...: the same with its standard error after (commands run
# quiet: what they say there is a refusal, or a warning)
outq() {
    name=$1
    shift
    "$@" >"$name" 2>"$name.err"
    echo "exit $?" >>"$name"
    cat "$name.err" >>"$name" && rm -f "$name.err"
}

# the corpus: a copy of each trace under a short name
mkdir -p "$O/in"
for d in "$here"/traces/*/ "$src"/tests/random/regress/*/trace/; do
    [ -f "$d/job.json" ] || continue
    case $d in */regress/*) n=$(basename "$(dirname "$d")") ;; *) n=$(basename "$d") ;; esac
    cp -r "$d" "$O/in/$n"
done
cp "$src"/examples/machines/*.par "$O/in/"

for t in $(cd "$O/in" && ls -d */ | tr -d /); do
    c=$O/$t
    mkdir -p "$c"
    cd "$O/in" || exit 2
    ranks=$(sed -n 's/^ *"ranks": \([0-9]*\).*/\1/p' "$t/job.json" | head -n 1)
    out "$c/dump" "$P" dump "$t"
    out "$c/stats.json" "$P" stats "$t" --json
    "$P" fold "$t" --json 2>/dev/null | sed '/^  "seconds": /d' >"$c/fold.json"
    "$P" fold "$t" --tree 2>/dev/null | sed '1s/ in [0-9.]* s / /' >"$c/fold.tree"
    "$P" merge "$t" -q -o "$c/merged.pskm" >/dev/null 2>&1 || echo failed >"$c/merged.pskm"
    "$P" merge "$t" -q --times summary -o "$c/summary.pskm" >/dev/null 2>&1 || echo failed >"$c/summary.pskm"
    outq "$c/sim.json" "$P" sim "$t" --json -q
    outq "$c/sim-folded.json" "$P" sim "$t" --folded --json -q
    outq "$c/sim-machines.json" "$P" sim "$t" --machine cluster.par --machine ethernet.par --json -q
    outq "$c/sim-loops.json" "$P" sim "$t" --intervals loops --depth 3 --json -q
    outq "$c/sim-ranks.json" "$P" sim "$t" --ranks $((2 * ${ranks:-2})) --scale weak --json -q
    "$P" sim "$t" -q --html "$c/report.html" >/dev/null 2>&1 || echo failed >"$c/report.html"
    "$P" gen "$t" -K 10 -o "$c/skeleton.c" >"$c/gen.out" 2>/dev/null || echo failed >>"$c/gen.out"
    "$P" export --smpi "$t" -o "$c/smpi" >/dev/null 2>&1 || echo failed >"$c/smpi.failed"
    if "$P" export --otf2 "$t" -o "$c/otf2" >/dev/null 2>&1; then
        # read back by import --otf2: its events (job.json's compute unit
        # is timed on this machine)
        "$P" import --otf2 "$c/otf2/traces.otf2" -o "$O/imported" -q >/dev/null 2>&1
        out "$c/imported.dump" "$P" dump "$O/imported"
        rm -rf "$O/imported" "$c/otf2/traces.otf2"
    else
        echo failed >"$c/otf2.failed"
    fi
done
mkdir -p "$O/advise"
for a in "$src"/examples/advise/*.adv; do
    n=$(basename "$a" .adv)
    cd "$src/examples/advise" || exit 2
    outq "$O/advise/$n.json" "$P" advise "$n.adv" --json
    outq "$O/advise/$n-cluster.json" "$P" advise "$n.adv" --procs 16 --machine ../machines/cluster.par --json
done

cd "$O" || exit 2
find . \( -path ./in -o -name got.sha256 \) -prune -o -type f -print | LC_ALL=C sort | sed 's|^\./||' | xargs sha256sum >"$O/got.sha256"
if [ "$update" = 1 ]; then
    cp "$O/got.sha256" "$manifest"
    echo "golden.sh: $(wc -l <"$manifest") outputs written to $manifest"
    exit 0
fi
if cmp -s "$O/got.sha256" "$manifest"; then
    echo "golden.sh: all $(wc -l <"$manifest") outputs as in $manifest"
    exit 0
fi
echo "golden.sh: outputs that differ from $manifest (sh tests/golden/golden.sh --keep DIR at two commits, then diff -r; --update if the change is meant):"
LC_ALL=C diff "$manifest" "$O/got.sha256" | sed -n 's/^[<>] [0-9a-f]*  //p' | LC_ALL=C sort -u | sed 's/^/  /' | head -n 40
exit 1

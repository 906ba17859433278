#!/bin/sh
# otf2_asan.sh: perfskel import --otf2 of the sanitizer build (ASan, UBSan,
# leak checks) on every archive tests/cli/otf2.sh crafts, made the same way
# (tests/cli/otf2_writer.py on Debian's python3-otf2, then truncated or
# patched): python3-otf2's valid archive, a region name with control
# bytes, a missing MPI_Finalize, a peer out of range, an event of an
# undefined region, truncated definitions, events and anchor, time going
# backwards, random bytes, a missing file. Each exits as otf2.sh expects,
# with its message and no sanitizer report; the accepted imports are
# then read by dump, stats and sim. (otf2.sh itself records MPI jobs and
# builds skeletons: too slow here; the crafting, otf2_crafted.sh, is
# shared.) LSAN_SUPP: libotf2's own leaks (tests/fuzz/lsan_otf2.supp: a
# truncated anchor makes it leak).
set -u
: "${PERFSKEL:?PERFSKEL must name the perfskel of the sanitizer build}"
P=$PERFSKEL
HERE=$(dirname "$0")
PY=/usr/bin/python3
. "$HERE/otf2_crafted.sh"
. "$HERE/lib.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/perfskel-otf2asan.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
"$PY" -c 'import otf2' 2>/dev/null || { echo "FAIL python3-otf2 is not installed for $PY (sh scripts/deps.sh)"; exit 1; }
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export LSAN_OPTIONS=print_suppressions=0${LSAN_SUPP:+:suppressions=$LSAN_SUPP}

# run STATUS PATTERN NAME -- command...: the exit status, a stderr line
# matching PATTERN, only perfskel's one-line messages, no sanitizer report
run() {
    st=$1 pat=$2 name=$3
    shift 4
    "$@" >"$T/out" 2>"$T/err"
    got=$?
    if grep -Eq "$SANITIZER" "$T/out" "$T/err"; then
        bad "$name: a sanitizer report"; grep -E -A15 "$SANITIZER" "$T/err" "$T/out" | head -n 40; return
    fi
    if [ "$got" -ne "$st" ]; then
        bad "$name: exit $got, expected $st"; head -n 20 "$T/err"; return
    fi
    if [ -n "$pat" ] && ! grep -q -- "$pat" "$T/err"; then
        bad "$name: stderr lacks '$pat'"; head -n 20 "$T/err"; return
    fi
    if grep -qv '^perfskel: ' "$T/err"; then
        bad "$name: stderr has more than perfskel's one-line messages"; head -n 20 "$T/err"; return
    fi
    ok "$name"
}

for m in "" nofinalize badpeer ctrlname; do
    "$PY" "$HERE/otf2_writer.py" "$T/py$m" $m 2>"$T/py.err" || { bad "otf2_writer.py $m: $(tail -n 1 "$T/py.err")"; exit 1; }
done
run 0 "4 calls of MPI functions perfskel does not record" "python3-otf2's archive" \
    -- "$P" import --otf2 "$T/py/traces.otf2" -o "$T/pyi"
run 0 'MPI_Comm_rank\\n\\x01\\x1b' "a region name with control bytes, said escaped" \
    -- "$P" import --otf2 "$T/pyctrlname/traces.otf2" -o "$T/ctrli"
run 0 "" "without MPI_Finalize" -- "$P" import --otf2 "$T/pynofinalize/traces.otf2" -o "$T/nofi"
for d in pyi ctrli nofi; do
    run 0 "" "dump of $d" -- "$P" dump "$T/$d"
    run 0 "" "stats of $d" -- "$P" stats "$T/$d" --json
    run 0 "" "sim of $d" -- "$P" sim "$T/$d" -q
done
otf2_crafted run "$T/py" "$T/pynofinalize" "$T/pybadpeer"
run 1 "No such file" "a missing archive" -- "$P" import --otf2 "$T/none.otf2" -o "$T/x"

[ "$fails" -eq 0 ] && echo "all passed" && exit 0
echo "$fails failed"
exit 1

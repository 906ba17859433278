#!/usr/bin/env bash
# adv_malformed.sh [COUNT [FIRST]]: COUNT (default 300) random programs
# (adv_gen SEED), each mutated (adv_gen SEED --mutate M: truncated, bytes
# flipped, tokens deleted, duplicated or moved), through `perfskel advise`.
# Each must succeed (exit 0, something on stdout, nothing on stderr) or fail
# as bad input: exit 1 and exactly one stderr line `perfskel: FILE:LINE:COL:
# ...`, or `perfskel: FILE: ...` for the run-level errors that have no place
# (no procs). Never a crash, another exit code or a hang (30 s). Prints
# FAIL lines with a repro command, then a summary; exit 1 if any failed.
set -u
: "${PERFSKEL:?PERFSKEL must name the perfskel CLI}"
: "${ADV_GEN:?ADV_GEN must name adv_gen}"
count=${1:-300} first=${2:-1}
T=$(mktemp -d "${TMPDIR:-/tmp}/adv-malformed.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
f=$T/m.adv
ok=0 bad=0 fails=0 placeless=0
for ((s = first; s < first + count; s++)); do
    m=$((s % 7))
    "$ADV_GEN" "$s" --mutate "$m" >"$f" || { echo "FAIL seed=$s: adv_gen failed"; fails=$((fails + 1)); continue; }
    timeout -k 5 30 "$PERFSKEL" advise "$f" >"$T/out" 2>"$T/err"
    rc=$?
    why=
    nl=$(wc -l <"$T/err")
    case $rc in
    0) [ -s "$T/out" ] && [ "$nl" -eq 0 ] && ok=$((ok + 1)) || why="exit 0 but no output or a message: $(head -c 200 "$T/err")" ;;
    1)
        if [ "$nl" -ne 1 ]; then
            why="exit 1 with $nl stderr lines"
        elif grep -q "^perfskel: $f:[0-9][0-9]*:[0-9][0-9]*: " "$T/err"; then
            bad=$((bad + 1))
        elif grep -q "^perfskel: $f: no processor count" "$T/err"; then
            bad=$((bad + 1)) placeless=$((placeless + 1))
        else
            why="exit 1, message not 'perfskel: FILE:LINE:COL: ...': $(head -c 200 "$T/err")"
        fi
        ;;
    124 | 137) why="no answer in 30 s" ;;
    *) why="exit $rc (a crash?): $(head -c 200 "$T/err")" ;;
    esac
    if [ -n "$why" ]; then
        fails=$((fails + 1))
        cp "$f" "$T/../adv-malformed-$s.adv" 2>/dev/null
        echo "FAIL seed=$s mutate=$m: $why"
        echo "  repro: adv_gen $s --mutate $m > m.adv && perfskel advise m.adv"
    fi
done
echo "$count mutants: $ok ran, $bad refused as bad input ($placeless without a place: no procs), $fails failed"
[ $fails -eq 0 ]

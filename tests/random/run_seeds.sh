#!/usr/bin/env bash
# run_seeds.sh FIRST COUNT
#
# Runs check_seed.sh on seeds FIRST .. FIRST+COUNT-1, one MPI job at a time:
# the flavour alternates with the seed (even openmpi, odd mpich) and the rank
# count cycles 1, 2, 3, 4 every two seeds, so every 8 seeds cover every
# pair. Prints the FAIL and repro lines of failed checks as they come, then
# "N passed, M failed, K known failures" (seeds) alone on the last line;
# exit 1 if any failed.
#
# Environment: as check_seed.sh (PERFSKEL required); RANDOM_LANG c, f90 or
# both (default c; both: seeds 24-31, 56-63, ... are Fortran, the rest C).
# Seeds listed in known_failures (next to this script; RANDOM_KNOWN names
# another file) are open bugs: their failures print as KNOWN and are not
# counted, and such a seed that passes is a failure (the list is stale).
set -u
[ $# -eq 2 ] || { echo "usage: PERFSKEL=... $0 FIRST COUNT" >&2; exit 2; }
first=$1 count=$2
case $first$count in *[!0-9]*) echo "run_seeds: FIRST and COUNT are numbers" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")" && pwd)
lang=${RANDOM_LANG:-c}
known=${RANDOM_KNOWN:-$here/known_failures}
is_known() { [ -f "$known" ] && awk -v s="$1" '$1 == s { f = 1 } END { exit !f }' "$known"; }
passed=0 failed=0 nknown=0
for ((s = first; s < first + count; s++)); do
    if [ $((s % 2)) -eq 0 ]; then flavour=openmpi; else flavour=mpich; fi
    np=$((s / 2 % 4 + 1))
    l=$lang
    [ "$lang" = both ] && { [ $((s / 8 % 4)) -eq 3 ] && l=f90 || l=c; }
    if is_known "$s"; then
        bash "$here/check_seed.sh" "$s" "$flavour" "$np" "$l" | sed 's/^FAIL /KNOWN /'
        if [ "${PIPESTATUS[0]}" -eq 0 ]; then
            echo "FAIL seed=$s flavour=$flavour np=$np lang=$l check=known: listed in $known but now passes: remove it"
            failed=$((failed + 1))
        else
            nknown=$((nknown + 1))
        fi
        continue
    fi
    bash "$here/check_seed.sh" "$s" "$flavour" "$np" "$l"
    rc=$?
    if [ $rc -eq 0 ]; then
        passed=$((passed + 1))
    else
        [ $rc -eq 1 ] || echo "FAIL seed=$s flavour=$flavour np=$np lang=$l check=harness: check_seed.sh exited with $rc"
        failed=$((failed + 1))
    fi
done
echo "$passed passed, $failed failed, $nknown known failures (seeds in $known)"
[ $failed -eq 0 ]

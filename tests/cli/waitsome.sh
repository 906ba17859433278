#!/bin/sh
# waitsome.sh FLAVOUR SYNTH_BINARY: a skeleton completes, by each
# MPI_Waitsome and each run of polls that ended with completion, at least
# the requests the original's call did. The trace (synth_waitsome.c) has
# rank 0 complete two receives with one Waitsome while rank 1 sends the
# second one 100-300 ms after the first, then an Irecv and an Iallreduce
# with a Testsome before the communicator is freed: a skeleton whose
# Waitsome returned with the first request alone left the other pending
# (an Iallreduce pending as its communicator is freed brings Open MPI
# down). Skeletons at K = 1, as code and as data (--table-min 1), run
# under perfskel record: rank 0's Waitsome completes indices 0 and 1, and so
# does its Testsome poll (the tests that found nothing and the Waitsome
# that ends it, with Open MPI; MPICH's first test finds both).
set -u
flavour=$1 synth=$2
: "${PERFSKEL:?PERFSKEL must name the perfskel CLI}"
P=$PERFSKEL
. "$(dirname "$0")/lib.sh"
mpirun_of "$flavour"
T=$(mktemp -d "${TMPDIR:-/tmp}/perfskel-waitsome.XXXXXX")
trap 'rm -rf "$T"' EXIT

"$synth" "$T/trace" || { echo "FAIL synth_waitsome failed"; exit 1; }
for how in code data; do
    d=$T/$how
    mkdir -p "$d"
    opt=
    [ $how = data ] && opt="--table-min 1"
    # shellcheck disable=SC2086 # opt is two words or none
    "$P" gen "$T/trace" -K 1 $opt -o "$d/s.c" >/dev/null 2>"$d/err" || { bad "$how: gen failed"; cat "$d/err"; continue; }
    "mpicc.$flavour" -O1 -Wno-stringop-overflow -o "$d/s" "$d/s.c" >"$d/cc" 2>&1 || { bad "$how: the skeleton does not build"; head -n 5 "$d/cc"; continue; }
    if ! timeout 120 "$P" record -o "$d/st" -- $MPIRUN -np 2 "$d/s" >"$d/out" 2>"$d/err"; then
        bad "$how: the skeleton failed or hung"; grep -v '^\[' "$d/err" | tail -n 4; continue
    fi
    # the first Waitsome's indices, then the union of those of the poll
    # (Testsomes that found nothing and possibly the Waitsome that ended it)
    "$P" dump "$d/st" --rank 0 | awk '
        $5 == "MPI_Iallreduce" { after = 1 }
        $5 ~ /^MPI_(Waitsome|Testsome)$/ {
            i = $0; sub(/.*indices=\[/, "", i); sub(/\].*/, "", i)
            if (!after) { if (first == "") first = i; next }
            n = split(i, a, ","); for (k = 1; k <= n; k++) got[a[k]] = 1
        }
        END { printf "%s %s\n", first, (0 in got) && (1 in got) ? "0,1" : "not-both" }' >"$d/ws"
    if [ "$(cat "$d/ws")" = "0,1 0,1" ]; then
        ok "$how: the Waitsome and the Testsome poll completed both requests, as recorded"
    else
        bad "$how: a Waitsome of the skeleton left a request the original's had completed ($(cat "$d/ws"))"
        "$P" dump "$d/st" --rank 0 | grep -E 'Waitsome|Testsome'
    fi
done
[ $fails -eq 0 ] || { echo "$fails failed"; exit 1; }

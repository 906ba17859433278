#!/usr/bin/env bash
# random_programs.sh [BUILD_DIR] [FIRST] [COUNT]: runs tests/random/check_seed.sh
# on COUNT random programs (default 2000, from seed FIRST, default 1000), one
# MPI job at a time, with the flavour and rank count rotating per seed as
# run_seeds.sh does, and writes a summary: programs run, passed, failed;
# failures by check (with example seeds); and by motif kind, how many of the
# programs using it failed, against the failure rate of those not using it
# (a kind far above the rest is a suspect). Environment: LANGS (default "c";
# "c f90" alternates), SIZES (default "small"; "small medium" alternates),
# OUT (default random_programs.summary), LOG (default random_programs.log:
# every FAIL and repro line). Takes about 20 s a program on this 2-core VM,
# 90 s more for each skeleton that hangs until its time limit.
set -u
B=$(cd "${1:-build}" && pwd)
first=${2:-1000}
count=${3:-2000}
here=$(cd "$(dirname "$0")/.." && pwd)
check=$here/tests/random/check_seed.sh
langs=(${LANGS:-c})
sizes=(${SIZES:-small})
out=${OUT:-random_programs.summary}
log=${LOG:-random_programs.log}
export PERFSKEL=$B/perfskel
for p in "$PERFSKEL" "$B/randprog" "$B/trace_cmp" "$B/check_counts"; do
    [ -x "$p" ] || { echo "random_programs: $p missing (build first)" >&2; exit 2; }
done
rows=$(mktemp)
tmp=$(mktemp -d)
trap 'rm -rf "$rows" "$tmp"' EXIT
: >"$log"
t0=$(date +%s)

for ((s = first; s < first + count; s++)); do
    if [ $((s % 2)) -eq 0 ]; then flavour=openmpi; else flavour=mpich; fi
    np=$((s / 2 % 4 + 1))
    lang=${langs[$((s / 8 % ${#langs[@]}))]}
    size=${sizes[$((s / 16 % ${#sizes[@]}))]}
    # the motif kinds of this program, from its header line
    "$B/randprog" --seed "$s" --lang "$lang" --size "$size" -o "$tmp/p" 2>/dev/null
    motifs=$(grep -m1 'randprog-motifs:' "$tmp/p" | sed 's/.*randprog-motifs://; s/\*\///' |
        tr ' ' '\n' | sed 's/:.*//' | grep . | sort -u | paste -sd, -)
    RANDOM_SIZE=$size bash "$check" "$s" "$flavour" "$np" "$lang" >"$tmp/o" 2>&1
    rc=$?
    cat "$tmp/o" >>"$log"
    checks=$(sed -n 's/^FAIL .* check=\([a-z_0-9]*\):.*/\1/p' "$tmp/o" | sort -u | paste -sd, -)
    [ $rc -eq 0 ] || [ -n "$checks" ] || checks=harness
    echo "$s $flavour $np $lang $size ${checks:--} ${motifs:--}" >>"$rows"
    done_n=$((s - first + 1))
    [ $((done_n % 50)) -eq 0 ] && echo "random_programs: $done_n of $count, $(grep -vc ' - ' "$rows" || true) failed so far" >&2
done

awk -v secs=$(($(date +%s) - t0)) '
{
    n++; fail = $6 != "-"; nf += fail
    split($7, ms, ","); for (i in ms) if (ms[i] != "-") { used[ms[i]]++; if (fail) ufail[ms[i]]++ }
    if (fail) {
        split($6, cs, ",")
        for (i in cs) { byc[cs[i]]++; if (ex[cs[i]] == "" || split(ex[cs[i]], t, " ") < 3) ex[cs[i]] = ex[cs[i]] " " $1 "/" $2 "/np" $3 "/" $4 }
    }
    byfl[$2 " np" $3]++; if (fail) flfail[$2 " np" $3]++
}
END {
    printf "random programs: %d run, %d passed, %d failed (%.0f s)\n\n", n, n - nf, nf, secs
    printf "failures by check (a program can fail several):\n"
    for (c in byc) printf "  %-12s %5d   e.g. seed/flavour/np/lang%s\n", c, byc[c], ex[c]
    printf "\nby flavour and ranks (failed / run):\n"
    for (k in byfl) printf "  %-12s %5d / %d\n", k, flfail[k], byfl[k]
    printf "\nby motif kind: failed / programs using it (failure rate), and the rate without it:\n"
    for (m in used) {
        others = n - used[m]; of = nf - ufail[m]
        printf "  %-12s %5d / %-5d (%3.0f %%)   without: %3.0f %%\n", m, ufail[m], used[m],
            100 * ufail[m] / used[m], others ? 100 * of / others : 0
    }
}' "$rows" | tee "$out"
echo "(every FAIL line with its repro command: $log)" >&2

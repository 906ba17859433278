#!/bin/sh
# fuzz.sh PERFSKEL_BUILD SECONDS [TARGET...]: runs the libFuzzer targets of
# tests/fuzz (job, machine, merged, trace, adv, otf2; default all) for SECONDS each,
# from seed corpora made here out of the traces of tests/random/regress
# (their job.json; the trace as one input, job.json and rank files joined
# by "\0PSKFILE"; merged by PERFSKEL_BUILD/perfskel into .pskm; exported by
# it as OTF2 archives for otf2, their files joined the same way, as are
# those tests/cli/otf2_writer.py writes), the
# inputs of tests/fuzz/regress and the machine files of docs/simulation.md (and examples/advise for adv). The targets are built with clang in
# FUZZ_BUILD (default /tmp/perfskel-fuzz-build: cmake -DPSK_FUZZ=ON, with
# AddressSanitizer and UBSan). Per target one line: executions, coverage
# (edges), features, crashes found; a crash, sanitizer report, hang
# (TIMEOUT s, default 10) or allocation above 1 GiB leaves its input in
# OUT/TARGET/ (default /tmp/perfskel-fuzz; a finding becomes a regression
# test). Exit status 1 if any target found something or ran no input. CORPUS_ONLY=1 makes
# the corpora and stops. Environment: PARALLEL (targets run at once, default
# as many as cores: SECONDS each, not in all), JOBS (fuzzing processes per
# target, default 1; then one target at a time).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "$1" && pwd)
secs=${2:-60}
shift 2 2>/dev/null || shift $#
targets=${*:-job machine merged trace adv otf2}
FB=${FUZZ_BUILD:-/tmp/perfskel-fuzz-build}
OUT=${OUT:-/tmp/perfskel-fuzz}
TIMEOUT=${TIMEOUT:-10}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
par=""
[ "${JOBS:-1}" -gt 1 ] && par="-jobs=$JOBS -workers=$JOBS" # their logs go to OUT/fuzz-N.log

mkdir -p "$FB"
FB=$(cd "$FB" && pwd) # the targets run from OUT: a relative path would not reach them

if ! CC=clang cmake -S "$here" -B "$FB" -DPSK_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$OUT/cmake.log" 2>&1 ||
    ! cmake --build "$FB" -j"$(nproc)" >"$OUT/build.log" 2>&1; then
    echo "fuzz: the build in $FB failed (clang and libclang-rt-14-dev needed; see $OUT/build.log)" >&2
    exit 2
fi

# ---- seed corpora ----
C=$OUT/corpus
rm -rf "$C"
mkdir -p "$C/job" "$C/machine" "$C/merged" "$C/trace" "$C/adv" "$C/otf2"
# otf2_input DIR: an OTF2 archive as fuzz_otf2 takes it (tests/fuzz/fuzz_otf2.c:
# its global definitions, then each location's events and local definitions)
otf2_input() {
    cat "$1/traces.def"
    k=0
    while [ $k -lt 8 ] && [ -f "$1/traces/$k.evt" ]; do
        printf '\000PSKFILE'
        cat "$1/traces/$k.evt"
        printf '\000PSKFILE'
        cat "$1/traces/$k.def" 2>/dev/null
        k=$((k + 1))
    done
}
i=0
for d in "$here"/tests/random/regress/*/trace; do
    i=$((i + 1))
    cp "$d/job.json" "$C/job/$i.json"
    {
        cat "$d/job.json"
        for f in "$d"/rank-*.psk; do
            printf '\000PSKFILE'
            cat "$f"
        done
    } >"$C/trace/$i"
    "$B/perfskel" merge "$d" -o "$C/merged/$i.pskm" >/dev/null 2>&1 || rm -f "$C/merged/$i.pskm"
    "$B/perfskel" export --otf2 "$d" -o "$C/otf2.$i" >/dev/null 2>&1 && otf2_input "$C/otf2.$i" >"$C/otf2/export$i"
    rm -rf "$C/otf2.$i"
done
# an independent writer's archive, as written and as tests/cli/otf2.sh crafts it wrong
for m in "" nofinalize badpeer ctrlname; do
    if /usr/bin/python3 "$here/tests/cli/otf2_writer.py" "$C/py" $m >/dev/null 2>&1; then
        otf2_input "$C/py" >"$C/otf2/python${m:+-$m}"
    else
        echo "fuzz: tests/cli/otf2_writer.py $m failed (Debian's python3-otf2 installed?): otf2 without its archives" >&2
    fi
    rm -rf "$C/py"
done
# and the inputs kept as regression tests (tests/fuzz/regress: e.g. a
# trace of format version 2, the recorder stacked with the tuning library)
for t in job machine merged trace adv otf2; do
    cp "$here"/tests/fuzz/regress/$t/* "$C/$t/" 2>/dev/null
done
cp "$here"/examples/advise/*.adv "$C/adv/" # the advisor's examples
printf 'type = bus;\nstart time = 100;\nsend byte time = 0.1;\npower = 0.5;\n' >"$C/machine/1.par"
printf 'type = grid; topology = {4, 4}; start time = 20; send byte time = 0.5;\n' >"$C/machine/2.par"
cat >"$C/machine/3.par" <<'EOF'
type = switch; ranks per node = 2; links per node = 2; buses = 0; eager threshold = 8192;
intra start time = 0.4; intra send byte time = 0.0002;
message cost = {
    0, 0.4, 0.001,
    4096, 2.5, 0.0002
};
work unit spread = {1.6, 1.7}; calibrated on = host1; cores per node = 2; work unit time = 1.62;
power = {1, 0.5}; collectives = closed; allreduce = ring; bcast = binomial;
EOF
[ "${CORPUS_ONLY:-0}" = 1 ] && { echo "fuzz: corpora in $C"; exit 0; }

# ---- runs ----
# run_target T: one target's run, its line into OUT/T.line and what it
# found into OUT/T.found (a file only if it found something)
run_target() {
    t=$1
    exe=$FB/fuzz_$t
    rm -f "$OUT/$t.line" "$OUT/$t.found"
    [ -x "$exe" ] || { echo "fuzz: $exe missing" >"$OUT/$t.found"; return; }
    mkdir -p "$OUT/$t" "$OUT/$t.corpus"
    cp "$C/$t"/* "$OUT/$t.corpus/" 2>/dev/null
    # otf2: libotf2 allocates what an archive's counts say before reading
    # the data (a Group of 1.8e9 members: 15 GB, which glibc grants
    # untouched and ASan poisons for seconds): allocations above 1 GiB
    # fail there (malloc returns NULL; libotf2 refuses the archive, and an
    # unchecked NULL in perfskel would still crash); libotf2's own leaks
    # are suppressed (tests/fuzz/lsan_otf2.supp); no other target loads it
    aopt=${ASAN_OPTIONS:-}
    [ "$t" = otf2 ] && aopt=${aopt:+$aopt:}allocator_may_return_null=1:max_allocation_size_mb=1024
    (cd "$OUT" && ASAN_OPTIONS=$aopt \
        LSAN_OPTIONS=${LSAN_OPTIONS:-}${LSAN_OPTIONS:+:}suppressions=$here/tests/fuzz/lsan_otf2.supp \
        TMPDIR=$OUT/$t "$exe" "$OUT/$t.corpus" -max_total_time="$secs" -timeout="$TIMEOUT" \
        -rss_limit_mb=2048 -malloc_limit_mb=1024 -close_fd_mask=3 -print_final_stats=1 \
        -artifact_prefix="$OUT/$t/" $par >"$OUT/$t.log" 2>&1)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$OUT/$t.log" | awk '{ s += $1 } END { print s + 0 }')
    cov=$(grep -o 'cov: [0-9]*' "$OUT/$t.log" | tail -n 1 | awk '{ print $2 }')
    ft=$(grep -o 'ft: [0-9]*' "$OUT/$t.log" | tail -n 1 | awk '{ print $2 }')
    n=$(find "$OUT/$t" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | wc -l)
    echo "$t $secs ${execs:-0} ${cov:-?} ${ft:-?} $n" >"$OUT/$t.line"
    [ "$n" -gt 0 ] && grep -m 3 -E 'ERROR|SUMMARY|runtime error' "$OUT/$t.log" | sed 's/^/  /' >"$OUT/$t.found"
    # a target that never ran proves nothing: say so and fail
    if [ "${execs:-0}" -eq 0 ]; then
        {
            echo "fuzz: $t ran no input (see $OUT/$t.log)"
            sed -n 1,3p "$OUT/$t.log" | sed 's/^/  /'
        } >>"$OUT/$t.found"
    fi
}
# the targets PARALLEL at a time (default: as many as cores; 1 with JOBS,
# which runs one target in several processes), reported in order
atonce=${PARALLEL:-$(nproc)}
[ "${JOBS:-1}" -gt 1 ] && atonce=1
n=0
for t in $targets; do
    run_target "$t" &
    n=$((n + 1))
    [ $((n % atonce)) -eq 0 ] && wait
done
wait
found=0
echo "target seconds executions coverage features findings"
for t in $targets; do
    [ -f "$OUT/$t.line" ] && cat "$OUT/$t.line"
    if [ -f "$OUT/$t.found" ]; then
        cat "$OUT/$t.found" >&2
        found=1
    fi
done
exit $found

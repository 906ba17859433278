#!/bin/sh
# scripts/test.sh [--full] [CTEST ARGS...]: builds perfskel and runs its
# tests. The fast tier (the default, the README's test command and
# .ci/run's): every test not labelled `full` (each capability at least
# once: unit, CLI, accuracy, real-MPI jobs under Open MPI and MPICH, random
# programs, the tuner), then the unit tests, the tests of untrusted input
# and the recording and tuning libraries preloaded into real 2-rank jobs
# again under ASan/UBSan (with each fuzz target's kept inputs: the
# unit.fuzz.* replays). --full: every test (all random seeds, every
# program x language x MPI x rank count, every learner case), then each
# libFuzzer target for 60 seconds (FUZZ_SECONDS; as many at a time as
# cores; a clang build of its own, 57 s here, which is why the fast tier
# has none unless FUZZ_SECONDS asks); run it before an issue is resolved.
# Each run ends with its ten slowest tests.
#
# Nothing is skipped unseen: configure fails when a package a test needs is
# missing (tests/CMakeLists.txt) and a test fails when it cannot run a
# check, unless PSK_ALLOW_SKIP names the package (or condition); the run
# compares the number of tests with the tier's in tests/tier_counts and its
# last line counts what was left out and skipped.
set -e
cd "$(dirname "$0")/.."
t0=$(date +%s)
tier=fast
if [ "${1:-}" = --full ]; then
    tier=full
    shift
fi
sh scripts/build.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI picks its ob1 messaging layer on a machine without InfiniBand
# after trying UCX, which costs 0.2 s of each launch's 0.4 s: named, the
# same layer without the try (a user's own setting is kept)
export OMPI_MCA_pml="${OMPI_MCA_pml:-ob1}"
export PSK_SKIP_LOG="$PWD/build/skips.log"
: >"$PSK_SKIP_LOG"
if [ "$tier" = full ]; then
    cmake --build build -j"$(nproc)" --target perfskel_mpi_programs_full
    select=""
    fuzz=${FUZZ_SECONDS:-60}
else
    select="-LE full"
    fuzz=${FUZZ_SECONDS:-0}
fi
start=$(date +%s)
# shellcheck disable=SC2086 # select is two words or none
{ (cd build && ctest --output-on-failure -j"$(nproc)" $select "$@") 2>&1 && echo 0 >build/ctest.rc || echo $? >build/ctest.rc; } |
    tee build/ctest.log
st=$(cat build/ctest.rc)
echo "the ten slowest tests of the $tier tier:"
sed -n 's/^ *[0-9]*\/[0-9]* Test *#[0-9]*: \([^ ]*\) .* \([0-9.]*\) sec$/\2 \1/p' build/ctest.log | sort -rn | head -n 10 |
    awk '{ printf "  %8.2f s  %s\n", $1, $2 }'
echo "build: $((start - t0)) s, ctest: $(($(date +%s) - start)) s"
[ "$st" -eq 0 ] || exit "$st"
# the number of tests against the tier's (arguments that select tests: not
# compared); fewer only where PSK_ALLOW_SKIP left tests out
ran=$(sed -n 's/^.* tests passed, [0-9]* tests failed out of \([0-9]*\)$/\1/p' build/ctest.log | tail -n 1)
want=$(awk -v t="$tier" '$1 == t { print $2 }' tests/tier_counts)
leftout=$(tr -s '; \n' '   ' <build/psk_skipped.txt | sed 's/^ *//; s/ *$//')
if [ $# -gt 0 ]; then
    echo "test count not compared: ctest arguments $*"
elif [ "${ran:-0}" -ne "$want" ]; then
    if [ "${ran:-0}" -lt "$want" ] && [ -n "$leftout" ]; then
        echo "the $tier tier ran $ran tests of $want: configure left out those that need what is missing: $leftout (PSK_ALLOW_SKIP)"
    else
        echo "perfskel: the $tier tier ran ${ran:-no} tests, tests/tier_counts says $want (a test that vanished, or a new one not counted there)" >&2
        exit 1
    fi
fi
# the unit tests, the CLI tests of untrusted input (with import --otf2 of
# crafted archives: asan.otf2) and the recording and tuning libraries
# preloaded into real 2-rank jobs under each MPI (asan.preload.*) once
# more under AddressSanitizer and UBSan
cmake -S . -B build-asan -DPSK_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-asan -j"$(nproc)" --target psk_unit_tests perfskel gen_trace craft_inputs psk_asan_tests
cd build-asan
# shellcheck disable=SC2086
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ctest --output-on-failure -j"$(nproc)" $select \
    -R "^unit[.]|^cli[.]merge_fold$|^cli[.]invariants$|^asan[.]"
cd ..
# each libFuzzer target (bench/fuzz.sh: clang, ASan, UBSan) from the seed
# corpora; a crash, hang or huge allocation fails the suite
if [ "$fuzz" -gt 0 ]; then
    FUZZ_BUILD=build-fuzz OUT=build-fuzz/out sh bench/fuzz.sh build "$fuzz"
fi
skips=$(grep -c . "$PSK_SKIP_LOG" || true)
if [ "$skips" -gt 0 ]; then
    echo "skipped checks (PSK_ALLOW_SKIP):"
    sed 's/^/  /' "$PSK_SKIP_LOG"
fi
echo "perfskel: the $tier tier passed in $(($(date +%s) - t0)) s: ${ran:-?} tests of $want, $skips checks skipped; missing and allowed (PSK_ALLOW_SKIP): ${leftout:-nothing}"

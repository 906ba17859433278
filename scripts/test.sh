#!/bin/sh
# scripts/test.sh [--full] [CTEST ARGS...]: builds perfskel and runs its
# tests. The fast tier (the default, the README's test command and
# .ci/run's): every test not labelled `full` (each capability at least
# once: unit, CLI, accuracy, real-MPI jobs under Open MPI and MPICH, random
# programs, the tuner), then the unit tests and the tests of untrusted input
# again under ASan/UBSan, then each libFuzzer target for 5 seconds. --full:
# every test (all random seeds, every program x language x MPI x rank count,
# every learner case) and 60 seconds a fuzz target; run it before an issue
# is resolved. Each run ends with its ten slowest tests.
set -e
cd "$(dirname "$0")/.."
tier=fast
if [ "${1:-}" = --full ]; then
    tier=full
    shift
fi
sh scripts/build.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if [ "$tier" = full ]; then
    cmake --build build -j"$(nproc)" --target perfskel_mpi_programs_full
    select=""
    fuzz=${FUZZ_SECONDS:-60}
else
    select="-LE full"
    fuzz=${FUZZ_SECONDS:-5}
fi
start=$(date +%s)
# shellcheck disable=SC2086 # select is two words or none
{ (cd build && ctest --output-on-failure -j"$(nproc)" $select "$@") 2>&1 && echo 0 >build/ctest.rc || echo $? >build/ctest.rc; } |
    tee build/ctest.log
st=$(cat build/ctest.rc)
echo "the ten slowest tests of the $tier tier:"
sed -n 's/^ *[0-9]*\/[0-9]* Test *#[0-9]*: \([^ ]*\) .* \([0-9.]*\) sec$/\2 \1/p' build/ctest.log | sort -rn | head -n 10 |
    awk '{ printf "  %8.2f s  %s\n", $1, $2 }'
echo "ctest: $(($(date +%s) - start)) s"
[ "$st" -eq 0 ] || exit "$st"
# the unit tests and the CLI tests of untrusted input once more under
# AddressSanitizer and UBSan (the MPI jobs are not: the recording library
# is preloaded into MPI programs that are not built with ASan)
cmake -S . -B build-asan -DPSK_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-asan -j"$(nproc)" --target psk_unit_tests perfskel gen_trace craft_inputs
cd build-asan
# shellcheck disable=SC2086
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ctest --output-on-failure -j"$(nproc)" $select \
    -R "^unit[.]|^cli[.]merge_fold$|^cli[.]invariants$"
cd ..
# each libFuzzer target (bench/fuzz.sh: clang, ASan, UBSan) from the seed
# corpora; a crash, hang or huge allocation fails the suite
FUZZ_BUILD=build-fuzz OUT=build-fuzz/out sh bench/fuzz.sh build "$fuzz"
echo "perfskel: the $tier tier passed"

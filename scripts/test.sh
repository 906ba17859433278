#!/bin/sh
# Builds perfskel and runs the whole test suite (unit, CLI, and real-MPI
# tests under Open MPI and MPICH), then the unit and merge/fold CLI tests
# again under ASan/UBSan, then each libFuzzer target for a few seconds.
set -e
cd "$(dirname "$0")/.."
sh scripts/build.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
(cd build && ctest --output-on-failure -j"$(nproc)" "$@")
# the unit tests and the merge/fold CLI tests once more under
# AddressSanitizer and UBSan (the MPI jobs are not: the recording library
# is preloaded into MPI programs that are not built with ASan)
cmake -S . -B build-asan -DPSK_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-asan -j"$(nproc)" --target psk_unit_tests perfskel gen_trace
cd build-asan
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ctest --output-on-failure -j"$(nproc)" -R "^unit[.]|^cli[.]merge_fold$"
cd ..
# a short run of each libFuzzer target (bench/fuzz.sh: clang, ASan, UBSan),
# from the seed corpora; a crash, hang or huge allocation fails the suite
FUZZ_BUILD=build-fuzz OUT=build-fuzz/out sh bench/fuzz.sh build "${FUZZ_SECONDS:-5}"

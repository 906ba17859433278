#!/bin/sh
# Builds perfskel and runs the whole test suite (unit, CLI, and real-MPI
# tests under Open MPI and MPICH).
set -e
cd "$(dirname "$0")/.."
sh scripts/build.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd build
ctest --output-on-failure -j"$(nproc)" "$@"

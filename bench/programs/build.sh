#!/bin/sh
# build.sh OUTDIR: build every program here with Open MPI and with MPICH,
# into OUTDIR/openmpi/ and OUTDIR/mpich/ (an MPI whose compiler wrappers are
# not installed is skipped with a note). Environment: CFLAGS, FFLAGS.
set -eu
if [ $# -ne 1 ]; then
    echo "usage: sh build.sh OUTDIR" >&2
    exit 2
fi
out=$1
src=$(cd "$(dirname "$0")" && pwd)
CFLAGS=${CFLAGS:--std=c11 -O2 -Wall -Wextra}
FFLAGS=${FFLAGS:--O2 -Wall -Wextra}
C_PROGS="polling_halo tagged_ring redblack vcycle coldstart fft_transpose cgsolve bucketsort embar"
F_PROGS="ring"

built=0
for mpi in openmpi mpich; do
    if ! command -v "mpicc.$mpi" >/dev/null 2>&1; then
        echo "build.sh: mpicc.$mpi not found, skipping $mpi" >&2
        continue
    fi
    mkdir -p "$out/$mpi"
    for p in $C_PROGS; do
        "mpicc.$mpi" $CFLAGS -o "$out/$mpi/$p" "$src/$p.c" -lm
    done
    if command -v "mpif90.$mpi" >/dev/null 2>&1; then
        for p in $F_PROGS; do
            "mpif90.$mpi" $FFLAGS -o "$out/$mpi/$p" "$src/$p.f90"
        done
    else
        echo "build.sh: mpif90.$mpi not found, skipping the Fortran programs" >&2
    fi
    built=$((built + 1))
done
[ "$built" -gt 0 ] || { echo "build.sh: no MPI found" >&2; exit 1; }
echo "built into $out"

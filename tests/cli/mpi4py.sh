#!/bin/sh
# mpi4py.sh PROGRAM.py: an mpi4py program (Debian's python3-mpi4py, linked
# with Open MPI) recorded on 2 ranks under Open MPI, simulated and
# predicted. mpi4py asks MPI_Init_thread for MPI_THREAD_MULTIPLE and makes
# every call from the main thread: the trace says so, and sim and predict
# -K 10 replay it as any other (no refusal), each within 25 % of the
# recorded run's time. Debian's /usr/bin/python3 is used (mpi4py and numpy
# are Debian packages: a python3 earlier on PATH may lack them); a missing
# mpi4py, numpy or Open MPI fails the test.
set -u
prog=$1
: "${PERFSKEL:?PERFSKEL must name the perfskel CLI}"
P=$PERFSKEL
PY=/usr/bin/python3
. "$(dirname "$0")/lib.sh"
mpirun_of openmpi
T=$(mktemp -d "${TMPDIR:-/tmp}/perfskel-mpi4py.XXXXXX")
trap 'rm -rf "$T"' EXIT
# numpy's threads (OpenBLAS, OpenMP) would compete with the other rank
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1

lib=$("$PY" -c 'import mpi4py.MPI as M, numpy; print(M.__file__)' 2>"$T/err") ||
    { bad "$PY cannot import mpi4py and numpy (apt-get install python3-mpi4py python3-numpy)"; cat "$T/err"; exit 1; }
if ldd "$lib" | grep -q 'libmpi\.so\.40 '; then
    ok "Debian's mpi4py links Open MPI"
else
    bad "$lib does not link Open MPI's libmpi.so.40"; ldd "$lib" | grep -i mpi; exit 1
fi

if ! timeout 300 "$P" record -o "$T/trace" -- $MPIRUN -np 2 "$PY" "$prog" >"$T/out" 2>"$T/err"; then
    bad "recording the mpi4py program failed"; cat "$T/err"; exit 1
fi
grep -q '^provided MULTIPLE$' "$T/out" || bad "mpi4py did not get MPI_THREAD_MULTIPLE: $(cat "$T/out")"
"$P" dump "$T/trace" >"$T/dump" 2>"$T/err" || { bad "dump failed"; cat "$T/err"; }
if [ "$(grep -c ' MPI_Init_thread i1=3 i2=3$' "$T/dump")" = 2 ] && ! grep -q ' thread=' "$T/dump"; then
    ok "both ranks under MPI_THREAD_MULTIPLE, every call from the main thread"
else
    bad "the trace does not show MPI_THREAD_MULTIPLE from one thread"; grep -m 3 'Init_thread\| thread=' "$T/dump"
fi
replays "$T/trace" "the mpi4py trace"
[ $fails -eq 0 ] || { echo "$fails failed"; exit 1; }

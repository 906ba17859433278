"""pfft_roundtrip.py -- repeated 3-D real-to-complex FFTs with mpi4py-fft.

A random N^3 field, distributed over the ranks by mpi4py-fft's PFFT (slab
or pencil decomposition, its own global transposes with MPI_Alltoall(w)),
transformed forward and back ITERS times. Run with Debian's /usr/bin/python3
(python3-mpi4py, python3-mpi4py-fft, numpy).

usage: mpirun -np P /usr/bin/python3 pfft_roundtrip.py [N] [ITERS]   (64, 100)
"""
import sys, time
import numpy as np
from mpi4py import MPI
from mpi4py_fft import PFFT, newDistArray
comm = MPI.COMM_WORLD
N = int(sys.argv[1]) if len(sys.argv) > 1 else 64
iters = int(sys.argv[2]) if len(sys.argv) > 2 else 100
fft = PFFT(comm, [N, N, N], dtype=np.float64)
u = newDistArray(fft, False)
u[:] = np.random.default_rng(comm.rank).random(u.shape)
t0 = MPI.Wtime()
for i in range(iters):
    u_hat = fft.forward(u)
    u = fft.backward(u_hat)
t = comm.reduce(MPI.Wtime() - t0, op=MPI.MAX)
if comm.rank == 0:
    print("pfft_roundtrip: ranks=%d iters=%d seconds=%.3f" % (comm.size, iters, t))

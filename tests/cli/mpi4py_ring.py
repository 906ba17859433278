"""mpi4py_ring: a small mpi4py program for tests/cli/mpi4py.sh. mpi4py
initialises MPI with MPI_Init_thread asking for MPI_THREAD_MULTIPLE (its
default) and calls MPI from the main thread only. Each of ITER iterations
(argv[1], default 80): numpy work (about 25 ms: few synchronisations,
which another job on the cores would stretch), a ring exchange with
Irecv, Isend and Waitall, a Sendrecv, and an allreduce of a Python float
and a numpy array. Rank 0 prints "iterations N" and "provided MULTIPLE"."""
import sys

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
iters = int(sys.argv[1]) if len(sys.argv) > 1 else 80
left, right = (rank - 1) % size, (rank + 1) % size
x = np.linspace(0.0, 1.0, 200000) + rank
out = np.ones(20000)
inb = np.zeros(20000)
half = np.zeros(5000)
total = np.zeros(4)
for it in range(iters):
    for _ in range(16):  # numpy work, single-threaded
        x = np.sqrt(x * x + 1.0) - 0.5 * x
    reqs = [comm.Irecv(inb, source=left, tag=1), comm.Isend(out, dest=right, tag=1)]
    MPI.Request.Waitall(reqs)
    comm.Sendrecv(out[:5000], dest=left, sendtag=2, recvbuf=half, source=right, recvtag=2)
    s = comm.allreduce(float(x[0]), op=MPI.SUM)
    part = np.array([x.sum(), inb[0], half[0], s])
    comm.Allreduce(part, total, op=MPI.SUM)
if rank == 0:
    print("iterations", iters)
    print("provided", "MULTIPLE" if MPI.Query_thread() == MPI.THREAD_MULTIPLE else MPI.Query_thread())

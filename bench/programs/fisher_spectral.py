"""fisher_spectral.py -- a Fourier pseudo-spectral solver of 3-D Fisher-KPP.

u_t = nu lap(u) + u (1 - u) on a periodic N^3 grid distributed by
mpi4py-fft's PFFT: per step two forward transforms (u and the reaction
term), the diffusion applied exactly in Fourier space, one backward
transform, and the energy summed over the ranks (MPI_Allreduce). Run with
Debian's /usr/bin/python3 (python3-mpi4py, python3-mpi4py-fft, numpy).

usage: mpirun -np P /usr/bin/python3 fisher_spectral.py [N] [STEPS]   (48, 60)
"""
import sys
import numpy as np
from mpi4py import MPI
from mpi4py_fft import PFFT, newDistArray
comm = MPI.COMM_WORLD
N = int(sys.argv[1]) if len(sys.argv) > 1 else 48
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 60
fft = PFFT(comm, [N, N, N], dtype=np.float64)
u = newDistArray(fft, False)
uh = newDistArray(fft, True)
k = [np.fft.fftfreq(N, 1.0 / N)] * 2 + [np.fft.rfftfreq(N, 1.0 / N)]
sl = fft.local_slice(True)
K = np.meshgrid(k[0][sl[0]], k[1][sl[1]], k[2][sl[2]], indexing="ij")
k2 = K[0] ** 2 + K[1] ** 2 + K[2] ** 2
x = np.linspace(0, 2 * np.pi, N, endpoint=False)
ls = fft.local_slice(False)
X = np.meshgrid(x[ls[0]], x[ls[1]], x[ls[2]], indexing="ij")
u[:] = 0.5 + 0.4 * np.sin(X[0]) * np.cos(X[1]) * np.sin(2 * X[2])
nu, dt = 0.05, 0.01
E = np.exp(-nu * k2 * dt)
t0 = MPI.Wtime()
for s in range(steps):
    # Fisher-KPP: diffusion exactly in Fourier space, reaction by Euler
    uh = fft.forward(u, uh)
    nl = fft.forward(u * (1.0 - u))
    uh = E * (uh + dt * nl)
    u = fft.backward(uh, u)
    energy = comm.allreduce(float(np.sum(u * u)), op=MPI.SUM)
t = comm.reduce(MPI.Wtime() - t0, op=MPI.MAX)
if comm.rank == 0:
    print("spectral: ranks=%d iters=%d seconds=%.3f energy=%.6g" % (comm.size, steps, t, energy / N ** 3))

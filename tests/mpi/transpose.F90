! transpose (Fortran; mpif.h / use mpi / use mpi_f08 via psf.h): NITER
! iterations of a distributed matrix transpose.  Each iteration rank 0
! broadcasts a seed (MPI_Bcast), every rank fills its block row from it,
! MPI_Alltoall transposes the blocks, and a checksum of the result goes to
! rank 0 with MPI_Reduce.  Same output as transpose.c.
!
! Per rank: Init 1, Bcast NITER, Alltoall NITER, Reduce NITER, Gather 1,
!           Finalize 1.
#include "psf.h"
#ifndef PS_NITER
#define PS_NITER 10
#endif
program transpose
  PS_USE_MPI
  implicit none
  PS_INCLUDE_MPIF
#include "psf_decl.h"
  integer, parameter :: NITER = PS_NITER, BLK = 2, MODULUS = 1000003
  integer, allocatable :: a(:), b(:)
  integer :: rank, nprocs, it, j, k, i, seed, local, red, total, ierr

  call cnt('MPI_Init')
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  allocate(a(0:nprocs*BLK-1), b(0:nprocs*BLK-1))

  total = 0
  do it = 1, NITER
    call ps_compute()   ! benchmarks only (PS_WORK)
    seed = 0
    if (rank == 0) seed = it * 13 + 7
    call cnt('MPI_Bcast')
    call MPI_Bcast(seed, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)

    do j = 0, nprocs - 1
      do k = 0, BLK - 1
        a(j*BLK + k) = mod(seed * (rank + 1) + j * 7 + k, MODULUS)
      end do
    end do
    call cnt('MPI_Alltoall')
    call MPI_Alltoall(a, BLK, MPI_INTEGER, b, BLK, MPI_INTEGER, MPI_COMM_WORLD, ierr)

    local = 0
    red = 0
    do i = 0, nprocs*BLK - 1
      local = mod(local + (i + 1) * b(i), MODULUS)
    end do
    call cnt('MPI_Reduce')
    call MPI_Reduce(local, red, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
    if (rank == 0) total = mod(total * 3 + red, MODULUS)
  end do
  if (rank == 0) write(*, '(a,i0)') 'transpose checksum ', total

  ! the loop perfskel fold must find as the main one: one transpose per iteration
  if (rank == 0) write(*, '(a,i0)') 'mainloop ', NITER
  call ps_report()
  call MPI_Finalize(ierr)   ! counted by ps_report()

contains
#include "psf_procs.h"
end program transpose

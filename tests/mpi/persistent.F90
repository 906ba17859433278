! persistent (Fortran; mpif.h / use mpi / use mpi_f08 via psf.h): persistent
! point-to-point.  MPI_Recv_init from / MPI_Send_init to both ring neighbours
! once (a 1-rank ring talks to itself), NITER iterations of MPI_Startall +
! MPI_Waitall on the 4 requests, MPI_Request_free of each; then one
! MPI_Sendrecv ring shift, one MPI_Ibarrier + MPI_Wait and an MPI_Reduce of
! the checksum to rank 0.  Same output as persistent.c.
!
! Per rank: Init 1, Send_init 2, Recv_init 2, Startall NITER, Waitall NITER,
!   Request_free 4, Sendrecv 1, Ibarrier 1, Wait 1, Reduce 1, Gather 1,
!   Finalize 1.
#include "psf.h"
#ifndef PS_NITER
#define PS_NITER 20
#endif
program persistent
  PS_USE_MPI
  implicit none
  PS_INCLUDE_MPIF
#include "psf_decl.h"
  integer, parameter :: NITER = PS_NITER, MODULUS = 1000003
  ! buffers of persistent requests: read/written by MPI between start and wait
  integer, asynchronous :: from_left(2), from_right(2), to_right(2), to_left(2)
  integer :: rank, nprocs, left, right, it, i, v, w, local, total, ierr
  REQ_T :: req(4), breq

  call cnt('MPI_Init')
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  left = mod(rank + nprocs - 1, nprocs)
  right = mod(rank + 1, nprocs)

  ! tag 1: travelling right, tag 2: travelling left
  call cnt('MPI_Recv_init')
  call MPI_Recv_init(from_left, 2, MPI_INTEGER, left, 1, MPI_COMM_WORLD, req(1), ierr)
  call cnt('MPI_Recv_init')
  call MPI_Recv_init(from_right, 2, MPI_INTEGER, right, 2, MPI_COMM_WORLD, req(2), ierr)
  call cnt('MPI_Send_init')
  call MPI_Send_init(to_right, 2, MPI_INTEGER, right, 1, MPI_COMM_WORLD, req(3), ierr)
  call cnt('MPI_Send_init')
  call MPI_Send_init(to_left, 2, MPI_INTEGER, left, 2, MPI_COMM_WORLD, req(4), ierr)

  v = rank + 1
  do it = 1, NITER
    call ps_compute()   ! benchmarks only (PS_WORK)
    to_right(1) = v
    to_right(2) = it
    to_left(1) = v + 1
    to_left(2) = -it
    call cnt('MPI_Startall')
    call MPI_Startall(4, req, ierr)
    call cnt('MPI_Waitall')
    call MPI_Waitall(4, req, MPI_STATUSES_IGNORE, ierr)
    v = mod(from_left(1) + 2 * from_right(1) + 3 * v + from_left(2) + &
            from_right(2) + it, MODULUS)
  end do
  do i = 1, 4
    call cnt('MPI_Request_free')
    call MPI_Request_free(req(i), ierr)
  end do

  call cnt('MPI_Sendrecv')
  call MPI_Sendrecv(v, 1, MPI_INTEGER, right, 3, w, 1, MPI_INTEGER, left, 3, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)

  call cnt('MPI_Ibarrier')
  call MPI_Ibarrier(MPI_COMM_WORLD, breq, ierr)
  call cnt('MPI_Wait')
  call MPI_Wait(breq, MPI_STATUS_IGNORE, ierr)

  local = mod(v + 2 * w, MODULUS)
  total = 0
  call cnt('MPI_Reduce')
  call MPI_Reduce(local, total, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) write(*, '(a,i0)') 'persistent checksum ', total

  ! the loop perfskel fold must find as the main one: one Startall/Waitall per iteration
  if (rank == 0) write(*, '(a,i0)') 'mainloop ', NITER
  call ps_report()
  call MPI_Finalize(ierr)   ! counted by ps_report()

contains
#include "psf_procs.h"
end program persistent

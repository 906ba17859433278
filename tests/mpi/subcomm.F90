! subcomm (Fortran; mpif.h / use mpi / use mpi_f08 via psf.h): communicator
! and group management.  MPI_Comm_split makes even/odd sub-communicators,
! MPI_Comm_dup a copy of MPI_COMM_WORLD, and MPI_Comm_create a "low half"
! communicator (world ranks < (np+1)/2) from a group built with
! MPI_Comm_group + MPI_Group_incl (both groups then freed with
! MPI_Group_free).  On the split communicator: MPI_Allreduce, MPI_Bcast and
! NRING steps of a point-to-point ring (MPI_Irecv + MPI_Send + MPI_Wait; a
! 1-rank ring talks to itself); on the low half: MPI_Bcast + MPI_Allreduce; on
! the duplicate: one MPI_Allreduce of the checksum.  Every communicator is
! released with MPI_Comm_free.  Same output as subcomm.c.
!
! Per rank (low = 1 if rank < (np+1)/2 else 0): Init 1, Comm_split 1,
!   Comm_dup 1, Comm_group 1, Group_incl 1, Comm_create 1, Group_free 2,
!   Allreduce 2+low, Bcast 1+low, Irecv NRING, Send NRING, Wait NRING,
!   Comm_free 2+low, Gather 1, Finalize 1.
#include "psf.h"
#ifndef PS_NRING
#define PS_NRING 5
#endif
program subcomm
  PS_USE_MPI
  implicit none
  PS_INCLUDE_MPIF
#include "psf_decl.h"
  integer, parameter :: NRING = PS_NRING, MODULUS = 1000003
  COMM_T :: sub, dup, low
  GROUP_T :: world_group, low_group
  REQ_T :: req
  integer, asynchronous :: inval
  integer :: rank, nprocs, nlow, i, subrank, subsize, subsum, val, subleft, &
             subright, token, acc, step, lowpart, x, lowsum, local, total, ierr
  integer, allocatable :: low_ranks(:)

  call cnt('MPI_Init')
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)

  call cnt('MPI_Comm_split')
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, sub, ierr)
  call cnt('MPI_Comm_dup')
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)

  nlow = (nprocs + 1) / 2
  allocate(low_ranks(nlow))
  low_ranks = [(i, i = 0, nlow - 1)]
  call cnt('MPI_Comm_group')
  call MPI_Comm_group(MPI_COMM_WORLD, world_group, ierr)
  call cnt('MPI_Group_incl')
  call MPI_Group_incl(world_group, nlow, low_ranks, low_group, ierr)
  call cnt('MPI_Comm_create')
  call MPI_Comm_create(MPI_COMM_WORLD, low_group, low, ierr)
  call cnt('MPI_Group_free')
  call MPI_Group_free(low_group, ierr)
  call cnt('MPI_Group_free')
  call MPI_Group_free(world_group, ierr)

  ! even/odd sub-communicator
  call MPI_Comm_rank(sub, subrank, ierr)
  call MPI_Comm_size(sub, subsize, ierr)
  call cnt('MPI_Allreduce')
  call MPI_Allreduce(rank, subsum, 1, MPI_INTEGER, MPI_SUM, sub, ierr)
  val = 0
  if (subrank == 0) val = rank * 10 + 5
  call cnt('MPI_Bcast')
  call MPI_Bcast(val, 1, MPI_INTEGER, 0, sub, ierr)

  subleft = mod(subrank + subsize - 1, subsize)
  subright = mod(subrank + 1, subsize)
  token = rank + 1
  acc = 0
  do step = 1, NRING
    call ps_compute()   ! benchmarks only (PS_WORK)
    call cnt('MPI_Irecv')
    call MPI_Irecv(inval, 1, MPI_INTEGER, subleft, 7, sub, req, ierr)
    call cnt('MPI_Send')
    call MPI_Send(token, 1, MPI_INTEGER, subright, 7, sub, ierr)
    call cnt('MPI_Wait')
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    token = mod(inval * 3 + subrank + step, MODULUS)
    acc = mod(acc * 5 + token, MODULUS)
  end do

  ! low half
  lowpart = 0
  if (low /= MPI_COMM_NULL) then
    x = 0
    if (rank == 0) x = 42
    call cnt('MPI_Bcast')
    call MPI_Bcast(x, 1, MPI_INTEGER, 0, low, ierr)
    call cnt('MPI_Allreduce')
    call MPI_Allreduce(rank, lowsum, 1, MPI_INTEGER, MPI_SUM, low, ierr)
    lowpart = x + lowsum
  end if

  ! duplicate of MPI_COMM_WORLD
  local = mod(subsum + val * 3 + acc * 5 + lowpart * 7, MODULUS)
  call cnt('MPI_Allreduce')
  call MPI_Allreduce(local, total, 1, MPI_INTEGER, MPI_SUM, dup, ierr)
  if (rank == 0) write(*, '(a,i0)') 'subcomm checksum ', total

  call cnt('MPI_Comm_free')
  call MPI_Comm_free(sub, ierr)
  call cnt('MPI_Comm_free')
  call MPI_Comm_free(dup, ierr)
  if (low /= MPI_COMM_NULL) then
    call cnt('MPI_Comm_free')
    call MPI_Comm_free(low, ierr)
  end if

  ! the loop perfskel fold must find as the main one: the ring steps
  if (rank == 0) write(*, '(a,i0)') 'mainloop ', NRING
  call ps_report()
  call MPI_Finalize(ierr)   ! counted by ps_report()

contains
#include "psf_procs.h"
end program subcomm

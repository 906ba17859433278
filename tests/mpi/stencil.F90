! stencil (Fortran; mpif.h / use mpi / use mpi_f08 via psf.h): 1-D periodic
! halo exchange.  Each of NITER iterations posts MPI_Irecv x2 + MPI_Isend x2
! to the left/right neighbours and completes them with one MPI_Waitall of 4
! requests; every ALLRED_EVERY iterations an MPI_Allreduce sums the field.
! With 1 rank both neighbours are the rank itself.  Same output as stencil.c.
! First the ring is described with MPI_Dims_create and MPI_Cart_create
! (periodic, freed at once): the recorded fields (dims, periods: a LOGICAL
! array in Fortran) are stated in "expectdump" lines run_case.sh checks.
!
! Per rank: Init 1, Dims_create 1, Cart_create 1, Comm_free 1,
!           Irecv 2*NITER, Isend 2*NITER, Waitall NITER,
!           Allreduce NITER/ALLRED_EVERY, Gather 1, Finalize 1.
#include "psf.h"
#ifndef PS_NITER
#define PS_NITER 20
#endif
program stencil
  PS_USE_MPI
  implicit none
  PS_INCLUDE_MPIF
#include "psf_decl.h"
  integer, parameter :: NITER = PS_NITER, ALLRED_EVERY = 5, NLOC = 8, MODULUS = 1000003
  integer, asynchronous :: u(0:NLOC+1)
  integer :: unew(NLOC)
  integer :: rank, nprocs, left, right, it, i, local, global, ierr
  integer :: dims(1)
  logical :: periods(1)
  COMM_T :: ring
  REQ_T :: req(4)

  call cnt('MPI_Init')
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  dims(1) = 0
  periods(1) = .true.
  call cnt('MPI_Dims_create')
  call MPI_Dims_create(nprocs, 1, dims, ierr)
  call cnt('MPI_Cart_create')
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .false., ring, ierr)
  call cnt('MPI_Comm_free')
  call MPI_Comm_free(ring, ierr)
  if (rank == 0) write(*, '(a,i0,a,i0,a)') 'expectdump 0 MPI_Dims_create i1=', nprocs, ' dims=[', dims(1), &
       '] dimsin=[0]'
  if (rank == 0) write(*, '(a,i0,a)') 'expectdump 0 MPI_Cart_create dims=[', dims(1), '] periods=[1]'
  left = mod(rank + nprocs - 1, nprocs)
  right = mod(rank + 1, nprocs)

  do i = 1, NLOC
    u(i) = rank * NLOC + i
  end do
  global = 0

  do it = 1, NITER
    call ps_compute()   ! benchmarks only (PS_WORK)
    ! tag 1: data travelling right, tag 2: data travelling left
    call cnt('MPI_Irecv')
    call MPI_Irecv(u(0), 1, MPI_INTEGER, left, 1, MPI_COMM_WORLD, req(1), ierr)
    call cnt('MPI_Irecv')
    call MPI_Irecv(u(NLOC+1), 1, MPI_INTEGER, right, 2, MPI_COMM_WORLD, req(2), ierr)
    call cnt('MPI_Isend')
    call MPI_Isend(u(NLOC), 1, MPI_INTEGER, right, 1, MPI_COMM_WORLD, req(3), ierr)
    call cnt('MPI_Isend')
    call MPI_Isend(u(1), 1, MPI_INTEGER, left, 2, MPI_COMM_WORLD, req(4), ierr)
    call cnt('MPI_Waitall')
    call MPI_Waitall(4, req, MPI_STATUSES_IGNORE, ierr)

    do i = 1, NLOC
      unew(i) = mod(u(i-1) + 2 * u(i) + 3 * u(i+1) + it, MODULUS)
    end do
    u(1:NLOC) = unew

    if (mod(it, ALLRED_EVERY) == 0) then
      local = sum(u(1:NLOC))
      call cnt('MPI_Allreduce')
      call MPI_Allreduce(local, global, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    end if
  end do
  if (rank == 0) write(*, '(a,i0)') 'stencil checksum ', global

  ! the loop perfskel fold must find as the main one: the Allreduce every ALLRED_EVERY iterations makes the trace repeat every ALLRED_EVERY iterations
  if (rank == 0) write(*, '(a,i0)') 'mainloop ', NITER / ALLRED_EVERY
  call ps_report()
  call MPI_Finalize(ierr)   ! counted by ps_report()

contains
#include "psf_procs.h"
end program stencil

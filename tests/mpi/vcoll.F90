! vcoll (Fortran; mpif.h / use mpi / use mpi_f08 via psf.h): vector
! collectives with rank-dependent counts (rank i contributes i+1 integers;
! MPI_Alltoallv sends mod(i+j,3)+1 integers from i to j).  NITER iterations of
! MPI_Gatherv and MPI_Scatterv (root 0), MPI_Allgatherv, MPI_Alltoallv and
! MPI_Reduce_scatter; then one MPI_Allreduce with MPI_IN_PLACE and one
! MPI_Gather with MPI_IN_PLACE at the root.  Same output as vcoll.c.
!
! Per rank: Init 1, Gatherv NITER, Scatterv NITER, Allgatherv NITER,
!   Alltoallv NITER, Reduce_scatter NITER, Allreduce 1,
!   Gather 2 (the MPI_IN_PLACE one + the count report), Finalize 1.
#include "psf.h"
#ifndef PS_NITER
#define PS_NITER 3
#endif
program vcoll
  PS_USE_MPI
  implicit none
  PS_INCLUDE_MPIF
#include "psf_decl.h"
  integer, parameter :: NITER = PS_NITER, MODULUS = 1000003
  integer :: rank, nprocs, ntot, mine, i, j, k, m, it, acc, s, g, ierr
  integer :: dummy(1)
  integer, allocatable :: counts(:), displs(:), sc(:), sd(:), rc(:), rd(:)
  integer, allocatable :: sbuf(:), rbuf(:), piece(:), all(:)

  call cnt('MPI_Init')
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)

  ! rank i owns i+1 elements, stored at offset i*(i+1)/2
  allocate(counts(0:nprocs-1), displs(0:nprocs-1), sc(0:nprocs-1), &
           sd(0:nprocs-1), rc(0:nprocs-1), rd(0:nprocs-1))
  do i = 0, nprocs - 1
    counts(i) = i + 1
    displs(i) = i * (i + 1) / 2
    sc(i) = mod(rank + i, 3) + 1   ! what I send to i
    rc(i) = mod(i + rank, 3) + 1   ! what i sends to me
    if (i == 0) then
      sd(i) = 0
      rd(i) = 0
    else
      sd(i) = sd(i-1) + sc(i-1)
      rd(i) = rd(i-1) + rc(i-1)
    end if
  end do
  ntot = nprocs * (nprocs + 1) / 2
  mine = rank + 1
  allocate(sbuf(0:max(ntot, 3*nprocs)-1), rbuf(0:max(ntot, 3*nprocs)-1), &
           piece(0:mine-1))

  acc = 0
  do it = 1, NITER
    call ps_compute()   ! benchmarks only (PS_WORK)
    ! Gatherv to 0
    do k = 0, mine - 1
      piece(k) = rank * 100 + k + it
    end do
    call cnt('MPI_Gatherv')
    call MPI_Gatherv(piece, mine, MPI_INTEGER, rbuf, counts, displs, &
                     MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    if (rank == 0) then
      do k = 0, ntot - 1
        acc = mix(acc, rbuf(k))
      end do
    end if

    ! Scatterv from 0
    if (rank == 0) then
      do k = 0, ntot - 1
        sbuf(k) = it * 1000 + k
      end do
    end if
    call cnt('MPI_Scatterv')
    call MPI_Scatterv(sbuf, counts, displs, MPI_INTEGER, piece, mine, &
                      MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    do k = 0, mine - 1
      acc = mix(acc, piece(k))
    end do

    ! Allgatherv
    do k = 0, mine - 1
      piece(k) = rank * 10 + k * it
    end do
    call cnt('MPI_Allgatherv')
    call MPI_Allgatherv(piece, mine, MPI_INTEGER, rbuf, counts, displs, &
                        MPI_INTEGER, MPI_COMM_WORLD, ierr)
    do k = 0, ntot - 1
      acc = mix(acc, rbuf(k))
    end do

    ! Alltoallv: element m of the block for j is rank*100 + j*10 + m
    do j = 0, nprocs - 1
      do m = 0, sc(j) - 1
        sbuf(sd(j) + m) = rank * 100 + j * 10 + m + it
      end do
    end do
    call cnt('MPI_Alltoallv')
    call MPI_Alltoallv(sbuf, sc, sd, MPI_INTEGER, rbuf, rc, rd, MPI_INTEGER, &
                       MPI_COMM_WORLD, ierr)
    do k = 0, rd(nprocs-1) + rc(nprocs-1) - 1
      acc = mix(acc, rbuf(k))
    end do

    ! Reduce_scatter: rank i gets i+1 summed elements
    do k = 0, ntot - 1
      sbuf(k) = rank + k * it
    end do
    call cnt('MPI_Reduce_scatter')
    call MPI_Reduce_scatter(sbuf, piece, counts, MPI_INTEGER, MPI_SUM, &
                            MPI_COMM_WORLD, ierr)
    do k = 0, mine - 1
      acc = mix(acc, piece(k))
    end do
  end do

  s = acc
  call cnt('MPI_Allreduce')
  call MPI_Allreduce(MPI_IN_PLACE, s, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)

  if (rank == 0) then
    allocate(all(0:nprocs-1))
    all(0) = acc
    call cnt('MPI_Gather')
    call MPI_Gather(MPI_IN_PLACE, 1, MPI_INTEGER, all, 1, MPI_INTEGER, 0, &
                    MPI_COMM_WORLD, ierr)
    g = 0
    do i = 0, nprocs - 1
      g = mod(g + (i + 1) * all(i), MODULUS)
    end do
    write(*, '(a,i0,a,i0)') 'vcoll allreduce ', s, ' gather ', g
  else
    call cnt('MPI_Gather')
    call MPI_Gather(acc, 1, MPI_INTEGER, dummy, 0, MPI_INTEGER, 0, &
                    MPI_COMM_WORLD, ierr)
  end if

  ! the loop perfskel fold must find as the main one: one round of v-collectives per iteration
  if (rank == 0) write(*, '(a,i0)') 'mainloop ', NITER
  call ps_report()
  call MPI_Finalize(ierr)   ! counted by ps_report()

contains
#include "psf_procs.h"

  integer function mix(a, x)
    integer, intent(in) :: a, x
    mix = mod(a * 31 + x, MODULUS)
  end function mix
end program vcoll

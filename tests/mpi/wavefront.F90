! wavefront (Fortran; mpif.h / use mpi / use mpi_f08 via psf.h): pipeline of
! blocking MPI_Send/MPI_Recv from rank r-1 to rank r+1.  Each of NSWEEP
! sweeps pushes NCHUNK chunks through the pipeline (rank 0 only sends, the
! last rank only receives), followed by an MPI_Barrier.  At the end the last
! rank sends its checksum to rank 0.  With 1 rank there is no message at all.
! Same output as wavefront.c.
!
! Per rank (S = NSWEEP*NCHUNK): Init 1, Barrier NSWEEP, Gather 1, Finalize 1,
!   np == 1:           nothing else
!   rank 0:            Send S, Recv 1
!   0 < rank < np-1:   Recv S, Send S
!   rank np-1:         Recv S, Send 1
#include "psf.h"
#ifndef PS_NSWEEP
#define PS_NSWEEP 4
#endif
program wavefront
  PS_USE_MPI
  implicit none
  PS_INCLUDE_MPIF
#include "psf_decl.h"
  integer, parameter :: NSWEEP = PS_NSWEEP, NCHUNK = 5, CLEN = 4, MODULUS = 1000003
  integer :: buf(CLEN)
  integer :: rank, nprocs, last, s, c, i, total, acc, ierr

  call cnt('MPI_Init')
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  last = nprocs - 1

  acc = 0
  do s = 1, NSWEEP
    do c = 1, NCHUNK
      call ps_compute()   ! benchmarks only (PS_WORK)
      if (rank == 0) then
        do i = 1, CLEN
          buf(i) = s * 100 + c * 10 + i
        end do
      else
        call cnt('MPI_Recv')
        call MPI_Recv(buf, CLEN, MPI_INTEGER, rank - 1, c, MPI_COMM_WORLD, &
                      MPI_STATUS_IGNORE, ierr)
      end if
      total = 0
      do i = 1, CLEN
        buf(i) = mod(buf(i) * 3 + rank + 1, MODULUS)
        total = total + buf(i)
      end do
      if (rank < last) then
        call cnt('MPI_Send')
        call MPI_Send(buf, CLEN, MPI_INTEGER, rank + 1, c, MPI_COMM_WORLD, ierr)
      else
        acc = mod(acc * 7 + total, MODULUS)
      end if
    end do
    call cnt('MPI_Barrier')
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do

  ! (through buf: with implicit interfaces, i.e. mpif.h, gfortran >= 10
  ! rejects passing an array here and a scalar there to the same routine)
  if (nprocs > 1 .and. rank == last) then
    buf(1) = acc
    call cnt('MPI_Send')
    call MPI_Send(buf, 1, MPI_INTEGER, 0, 99, MPI_COMM_WORLD, ierr)
  end if
  if (nprocs > 1 .and. rank == 0) then
    call cnt('MPI_Recv')
    call MPI_Recv(buf, 1, MPI_INTEGER, last, 99, MPI_COMM_WORLD, &
                  MPI_STATUS_IGNORE, ierr)
    acc = buf(1)
  end if
  if (rank == 0) write(*, '(a,i0)') 'wavefront checksum ', acc

  ! the loop perfskel fold must find as the main one: one sweep per iteration
  if (rank == 0) write(*, '(a,i0)') 'mainloop ', NSWEEP
  call ps_report()
  call MPI_Finalize(ierr)   ! counted by ps_report()

contains
#include "psf_procs.h"
end program wavefront

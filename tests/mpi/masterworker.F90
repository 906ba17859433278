! masterworker (Fortran; mpif.h / use mpi / use mpi_f08 via psf.h): rank 0
! hands out tasks, workers MPI_Send results back.  Every worker w gets a fixed
! set of tasks, so the call counts do not depend on the order in which
! results arrive; only the receive order does.
!  phase 1: the master sends each worker its first task, then receives
!           NW*T1 results with MPI_Recv(MPI_ANY_SOURCE, MPI_ANY_TAG) and
!           replies to the status source with that worker's next task until it
!           has had T1; the result tag (RES_TAG + task id) says which task.
!  phase 2: R2 rounds of: an MPI_Irecv (MPI_ANY_TAG) posted to each worker,
!           one task sent to each, then MPI_Waitany until all are done.
!  stop:    a STOP_TAG message to each worker.
! Workers loop on MPI_Recv(from 0, MPI_ANY_TAG) until they get STOP_TAG.
! With 1 rank the master does T1+R2 tasks itself and sends nothing.
! Same output as masterworker.c.
!
! Per rank (NW = np-1 workers): Init 1, Gather 1, Finalize 1, and if np > 1
!   rank 0:  Send NW*(T1+R2+1), Recv NW*T1, Irecv NW*R2, Waitany NW*R2
!   worker:  Recv T1+R2+1, Send T1+R2
#include "psf.h"
#ifndef PS_R2
#define PS_R2 2
#endif
program masterworker
  PS_USE_MPI
  implicit none
  PS_INCLUDE_MPIF
#include "psf_decl.h"
  integer, parameter :: T1 = 3, R2 = PS_R2, TASK_TAG = 1, STOP_TAG = 2, &
                        RES_TAG = 100, MODULUS = 1000003
  integer :: rank, nprocs, nw, ntask, t, w, k, q, idx, total, ierr
  ! every buffer is an array: with implicit interfaces (mpif.h) gfortran >= 10
  ! rejects passing an array here and a scalar there to the same routine
  integer :: res(2), msg(1)
  integer, allocatable :: result(:), sent(:)
  integer, allocatable, asynchronous :: res2(:,:)
  REQ_T, allocatable :: req(:)
  STATUS_T :: st

  call cnt('MPI_Init')
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  nw = nprocs - 1

  if (rank == 0) then
    ntask = max(nw, 1) * (T1 + R2)
    allocate(result(0:ntask-1))
    if (nw == 0) then
      do t = 0, ntask - 1
        result(t) = work(t)
      end do
    else
      ! phase 1: worker w does tasks (w-1)*T1 .. w*T1-1
      allocate(sent(nw))
      do w = 1, nw
        msg(1) = (w - 1) * T1
        call cnt('MPI_Send')
        call MPI_Send(msg, 1, MPI_INTEGER, w, TASK_TAG, MPI_COMM_WORLD, ierr)
        sent(w) = 1
      end do
      do k = 1, nw * T1
        call cnt('MPI_Recv')
        call MPI_Recv(res, 2, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, &
                      MPI_COMM_WORLD, st, ierr)
        w = ST_SOURCE(st)
        t = ST_TAG(st) - RES_TAG
        if (w < 1 .or. w > nw .or. t /= res(1) .or. t / T1 /= w - 1) &
          call fail('phase 1: unexpected result message')
        result(t) = res(2)
        if (sent(w) < T1) then
          msg(1) = (w - 1) * T1 + sent(w)
          sent(w) = sent(w) + 1
          call cnt('MPI_Send')
          call MPI_Send(msg, 1, MPI_INTEGER, w, TASK_TAG, MPI_COMM_WORLD, ierr)
        end if
      end do
      ! phase 2: round q gives worker w task nw*T1 + q*nw + w-1
      allocate(req(nw), res2(2, nw))
      do q = 0, R2 - 1
        do w = 1, nw
          call cnt('MPI_Irecv')
          call MPI_Irecv(res2(:, w), 2, MPI_INTEGER, w, MPI_ANY_TAG, &
                         MPI_COMM_WORLD, req(w), ierr)
        end do
        do w = 1, nw
          msg(1) = nw * T1 + q * nw + w - 1
          call cnt('MPI_Send')
          call MPI_Send(msg, 1, MPI_INTEGER, w, TASK_TAG, MPI_COMM_WORLD, ierr)
        end do
        do k = 1, nw
          call cnt('MPI_Waitany')
          call MPI_Waitany(nw, req, idx, st, ierr)
          ! The worker is identified by the status, not by idx: MPICH 4.0's
          ! mpi_f08 MPI_Waitany returns a 0-based idx (pmodels/mpich#6270).
          w = ST_SOURCE(st)
          t = ST_TAG(st) - RES_TAG
          if (idx == MPI_UNDEFINED .or. w < 1 .or. w > nw) &
            call fail('phase 2: unexpected completion')
          if (req(w) /= MPI_REQUEST_NULL .or. t /= res2(1, w) .or. &
              t /= nw * T1 + q * nw + w - 1) &
            call fail('phase 2: unexpected result message')
          result(t) = res2(2, w)
        end do
      end do
      do w = 1, nw
        msg(1) = 0
        call cnt('MPI_Send')
        call MPI_Send(msg, 1, MPI_INTEGER, w, STOP_TAG, MPI_COMM_WORLD, ierr)
      end do
    end if
    total = 0
    do t = 0, ntask - 1
      total = mod(total + (t + 1) * result(t), MODULUS)
    end do
    write(*, '(a,i0,a,i0)') 'masterworker tasks ', ntask, ' checksum ', total
  else
    do
      call cnt('MPI_Recv')
      call MPI_Recv(msg, 1, MPI_INTEGER, 0, MPI_ANY_TAG, MPI_COMM_WORLD, st, ierr)
      if (ST_TAG(st) == STOP_TAG) exit
        call ps_compute()   ! benchmarks only (PS_WORK)
      t = msg(1)
      res(1) = t
      res(2) = work(t)
      call cnt('MPI_Send')
      call MPI_Send(res, 2, MPI_INTEGER, 0, RES_TAG + t, MPI_COMM_WORLD, ierr)
    end do
  end if

  ! the loop perfskel fold must find as the main one: phase 2 repeats R2 times; phase 1 depends on arrival order
  ! (one rank does every task itself and calls MPI in no loop: no main loop)
  if (rank == 0 .and. nprocs > 1) write(*, '(a,i0)') 'mainloop ', R2
  call ps_report()
  call MPI_Finalize(ierr)   ! counted by ps_report()

contains
#include "psf_procs.h"

  integer function work(t)
    integer, intent(in) :: t
    work = mod(t * t * 7 + t * 3 + 1, MODULUS)
  end function work

  subroutine fail(what)   ! error path only; its MPI_Abort is never counted
    character(len=*), intent(in) :: what
    integer :: ierr2
    write(0, '(2a)') 'masterworker: ', what
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr2)
  end subroutine fail
end program masterworker

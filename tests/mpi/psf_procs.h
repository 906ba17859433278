! psf_procs.h - internal procedures of a Fortran test program that count its
! MPI calls and report them (the Fortran twin of ps_count.h).
!   call cnt('MPI_Send')   before every recorded MPI call, with its C name
!   call ps_report()       last thing before MPI_Finalize (counts its own
!                          MPI_Gather and the MPI_Finalize that follows)

  subroutine cnt(name)
    character(len=*), intent(in) :: name
    integer :: i, ierr
    if (ps_inited .and. ps_t0 == 0.0d0) ps_t0 = MPI_Wtime()
    if (name == 'MPI_Init') ps_inited = .true.
    do i = 1, PS_NFUNC
      if (ps_names(i) == name) then
        ps_counts(i) = ps_counts(i) + 1
        return
      end if
    end do
    ! a bug in the test program: not in ps_names (add it there and to
    ! ps_count.h); this uncounted MPI_Abort then fails the test
    write(0, '(a,a)') 'cnt: not a counted MPI function: ', name
    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end subroutine cnt

  ! Computation between calls, for benchmarks (bench/predict_accuracy.sh):
  ! PS_WORK sweeps over a 512-double array, a quarter more on odd ranks;
  ! nothing when PS_WORK is 0 (the tests). Same work as ps_count.h's.
  subroutine ps_compute()
    integer :: k, i, me, ierr
    integer, save :: n = -1
    if (PS_WORK <= 0) return
    if (n < 0) then
      call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
      n = PS_WORK + mod(me, 2) * (PS_WORK / 4)
    end if
    do k = 1, n
      do i = 0, 510
        ps_work_a(i) = 0.5d0 * ps_work_a(i) + 0.25d0 * ps_work_a(i + 1) + 1.0d0
      end do
      ps_work_a(511) = 0.5d0 * ps_work_a(511) + 0.25d0 * ps_work_a(0) + 1.0d0
    end do
  end subroutine ps_compute

  subroutine ps_report()
    integer :: me, np, r, i, ierr
    integer :: mine(PS_NFUNC)
    integer :: iwall, imost
    integer, allocatable :: all(:)   ! (PS_NFUNC, 0:np-1) flattened
    call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
    call get_environment_variable('PS_WALL', length=i)
    if (i > 0) then   ! uncounted: only for benchmarks
      ! in integer microseconds: with mpif.h gfortran refuses one MPI
      ! routine called with buffers of two types in one program
      iwall = nint((MPI_Wtime() - ps_t0) * 1.0d6)
      call MPI_Reduce(iwall, imost, 1, MPI_INTEGER, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
      if (me == 0) write(*, '(a,f0.6)') 'wall ', dble(imost) / 1.0d6
    end if
    if (ps_work_a(0) /= ps_work_a(0)) write(*, '(a)') 'work: NaN'   ! never
    call cnt('MPI_Finalize')       ! the call that follows this report
    call cnt('MPI_Gather')         ! counted before the counters are copied
    mine = ps_counts
    if (me == 0) then
      allocate(all(PS_NFUNC * np))
    else
      allocate(all(1))   ! not significant on non-root ranks
    end if
    call MPI_Gather(PS_SEQ(mine), PS_NFUNC, MPI_INTEGER, PS_SEQ(all), PS_NFUNC, &
                    MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    if (me == 0) then
      do r = 0, np - 1
        do i = 1, PS_NFUNC
          if (all(r * PS_NFUNC + i) /= 0) write(*, '(a,i0,1x,a,1x,i0)') &
               'expect ', r, trim(ps_names(i)), all(r * PS_NFUNC + i)
        end do
      end do
      flush(6)
    end if
    deallocate(all)
  end subroutine ps_report

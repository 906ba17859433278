! tune_fortran: MPI_ALLTOALL, MPI_BCAST, MPI_ALLREDUCE and MPI_ALLGATHER
! from Fortran through the preloaded tuning library (run_preload.sh runs
! it under `perfskel tune --force cycle`). Built three times: -DF77
! (include 'mpif.h'), -DF90 (use mpi), -DF08 (use mpi_f08). Each of REPS
! rounds makes four alltoall calls: integers on the world, MPI_IN_PLACE,
! integers received into a vector type with holes (which must stay
! untouched), integers on an even/odd split; two bcasts (integers from a
! root that moves, the vector type from rank 0); two allreduces (integer
! sum on the world, max in place on the split); three allgathers
! (integers, in place, into the vector type on the split): 11 calls, every
! result checked. Prints "tune_fortran: rank R: N calls, B wrong".
program tune_fortran
#if defined(F08)
  use mpi_f08
#elif defined(F90)
  use mpi
#endif
  implicit none
#if defined(F77)
  include 'mpif.h'
#endif
  integer, parameter :: n = 3, reps = 11
  integer :: me, np, ierr, j, k, r, ncalls, bad, sme, snp, root
  integer(kind=MPI_ADDRESS_KIND) :: lb, ext
  integer, allocatable :: sbuf(:), rbuf(:), vbuf(:)
#if defined(F08)
  type(MPI_Comm) :: sub
  type(MPI_Datatype) :: vec0, vec
#else
  integer :: sub, vec0, vec
#endif

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  call MPI_Comm_split(MPI_COMM_WORLD, mod(me, 2), -me, sub, ierr)
  call MPI_Comm_rank(sub, sme, ierr)
  call MPI_Comm_size(sub, snp, ierr)
  ! n integers two apart, extent 2n: a hole after each
  call MPI_Type_vector(n, 1, 2, MPI_INTEGER, vec0, ierr)
  lb = 0
  ext = 2 * n * 4
  call MPI_Type_create_resized(vec0, lb, ext, vec, ierr)
  call MPI_Type_commit(vec, ierr)
  allocate(sbuf(n * np), rbuf(n * np), vbuf(2 * n * np))
  bad = 0
  ncalls = 0

  do r = 1, reps
    do j = 0, np - 1
      do k = 1, n
        sbuf(j * n + k) = val(me, j, k)
      end do
    end do

    rbuf = -1
    call MPI_Alltoall(sbuf, n, MPI_INTEGER, rbuf, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    ncalls = ncalls + 1
    call check_plain(np, me)

    rbuf = sbuf
    call MPI_Alltoall(MPI_IN_PLACE, 0, MPI_INTEGER, rbuf, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    ncalls = ncalls + 1
    call check_plain(np, me)

    vbuf = -7
    call MPI_Alltoall(sbuf, n, MPI_INTEGER, vbuf, 1, vec, MPI_COMM_WORLD, ierr)
    ncalls = ncalls + 1
    do j = 0, np - 1
      do k = 1, n
        if (vbuf(j * 2 * n + 2 * k - 1) /= val(j, me, k)) bad = bad + 1
        if (vbuf(j * 2 * n + 2 * k) /= -7) bad = bad + 1
      end do
    end do

    do j = 0, snp - 1
      do k = 1, n
        sbuf(j * n + k) = val(sme, j, k) + 7
      end do
    end do
    rbuf = -1
    call MPI_Alltoall(sbuf, n, MPI_INTEGER, rbuf, n, MPI_INTEGER, sub, ierr)
    ncalls = ncalls + 1
    do j = 0, snp - 1
      do k = 1, n
        if (rbuf(j * n + k) /= val(j, sme, k) + 7) bad = bad + 1
      end do
    end do
    if (ierr /= MPI_SUCCESS) bad = bad + 1

    ! MPI_BCAST: integers from a root that moves, the vector from rank 0
    ! (no branch on the rank before a call: gfortran may duplicate the
    ! call, and the ranks' call sites would differ)
    root = mod(r, np)
    do j = 1, n * np
      rbuf(j) = (100000 * root + 1000 * r + j) * merge(1, -1, me == root)
    end do
    call MPI_Bcast(rbuf, n * np, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    ncalls = ncalls + 1
    do j = 1, n * np
      if (rbuf(j) /= 100000 * root + 1000 * r + j) bad = bad + 1
    end do
    if (ierr /= MPI_SUCCESS) bad = bad + 1
    vbuf = -7
    do j = 1, n * np
      vbuf(2 * j - 1) = (1000 * r + j) * merge(1, -1, me == 0)
    end do
    call MPI_Bcast(vbuf, np, vec, 0, MPI_COMM_WORLD, ierr)
    ncalls = ncalls + 1
    do j = 1, n * np
      if (vbuf(2 * j - 1) /= 1000 * r + j) bad = bad + 1
      if (vbuf(2 * j) /= -7) bad = bad + 1
    end do
    if (ierr /= MPI_SUCCESS) bad = bad + 1

    ! MPI_ALLREDUCE: a sum on the world, a max in place on the split
    do j = 1, n * np
      sbuf(j) = 1000 * me + j + r
    end do
    rbuf = -1
    call MPI_Allreduce(sbuf, rbuf, n * np, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    ncalls = ncalls + 1
    do j = 1, n * np
      if (rbuf(j) /= 1000 * (np * (np - 1) / 2) + np * (j + r)) bad = bad + 1
    end do
    if (ierr /= MPI_SUCCESS) bad = bad + 1
    do j = 1, n * np
      rbuf(j) = 1000 * sme + j
    end do
    call MPI_Allreduce(MPI_IN_PLACE, rbuf, n * np, MPI_INTEGER, MPI_MAX, sub, ierr)
    ncalls = ncalls + 1
    do j = 1, n * np
      if (rbuf(j) /= 1000 * (snp - 1) + j) bad = bad + 1
    end do
    if (ierr /= MPI_SUCCESS) bad = bad + 1

    ! MPI_ALLGATHER: integers, in place, into the vector on the split
    do k = 1, n
      sbuf(k) = val(me, 0, k) + r
    end do
    rbuf = -1
    call MPI_Allgather(sbuf, n, MPI_INTEGER, rbuf, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    ncalls = ncalls + 1
    do j = 0, np - 1
      do k = 1, n
        if (rbuf(j * n + k) /= val(j, 0, k) + r) bad = bad + 1
      end do
    end do
    if (ierr /= MPI_SUCCESS) bad = bad + 1
    rbuf = -1
    do k = 1, n
      rbuf(me * n + k) = val(me, 0, k) + r + 1
    end do
    call MPI_Allgather(MPI_IN_PLACE, 0, MPI_INTEGER, rbuf, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    ncalls = ncalls + 1
    do j = 0, np - 1
      do k = 1, n
        if (rbuf(j * n + k) /= val(j, 0, k) + r + 1) bad = bad + 1
      end do
    end do
    if (ierr /= MPI_SUCCESS) bad = bad + 1
    do k = 1, n
      sbuf(k) = val(sme, 0, k) + r + 2
    end do
    vbuf = -7
    call MPI_Allgather(sbuf, n, MPI_INTEGER, vbuf, 1, vec, sub, ierr)
    ncalls = ncalls + 1
    do j = 0, snp - 1
      do k = 1, n
        if (vbuf(j * 2 * n + 2 * k - 1) /= val(j, 0, k) + r + 2) bad = bad + 1
        if (vbuf(j * 2 * n + 2 * k) /= -7) bad = bad + 1
      end do
    end do
    if (ierr /= MPI_SUCCESS) bad = bad + 1
  end do

  print '(A,I0,A,I0,A,I0,A)', 'tune_fortran: rank ', me, ': ', ncalls, ' calls, ', bad, ' wrong'
  call MPI_Type_free(vec, ierr)
  call MPI_Type_free(vec0, ierr)
  call MPI_Comm_free(sub, ierr)
  call MPI_Finalize(ierr)
  if (bad /= 0) stop 1

contains

  integer function val(s, d, k)
    integer, intent(in) :: s, d, k
    val = 10000 * s + 100 * d + k
  end function val

  subroutine check_plain(np, me)
    integer, intent(in) :: np, me
    integer :: j, k
    do j = 0, np - 1
      do k = 1, n
        if (rbuf(j * n + k) /= val(j, me, k)) bad = bad + 1
      end do
    end do
    if (ierr /= MPI_SUCCESS) bad = bad + 1
  end subroutine check_plain
end program tune_fortran

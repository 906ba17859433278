! ring.f90 -- a ring of coupled 1-D diffusion segments with uneven work.
!
! Each rank owns a segment of a periodic 1-D rod. Every step it hands its
! segment's edge block to the right neighbour and takes the left one's with
! MPI_SENDRECV (tag: the step number), blends the received block into its
! boundary layer, and then runs a number of explicit diffusion substeps over
! its segment. The segment length grows with the rank (rank r has
! N * (1 + r/P) points), so the ranks do unequal work and the faster ones
! wait in MPI_SENDRECV.
!
! usage: ring [N] [ITERS] [SUBSTEPS]
!   N         base points per rank        (default 40000)
!   ITERS     ring steps                  (default 1200)
!   SUBSTEPS  diffusion substeps per step (default 20)
program ring
  use mpi
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nedge = 512
  integer :: ierr, rank, nprocs, left, right, status(MPI_STATUS_SIZE)
  integer :: n, iters, nsub, it, k, i
  real(dp), allocatable :: u(:), unew(:), sendbuf(:), recvbuf(:)
  real(dp) :: t0, elapsed, tmax, alpha, local, total
  character(len=32) :: arg

  call MPI_INIT(ierr)
  t0 = MPI_WTIME()
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)

  n = 40000
  iters = 1200
  nsub = 20
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) n
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) iters
  end if
  if (command_argument_count() >= 3) then
    call get_command_argument(3, arg)
    read (arg, *) nsub
  end if
  if (n < 2*nedge .or. iters < 1 .or. nsub < 1) then
    if (rank == 0) write (*, '(a,i0)') 'usage: ring [N] [ITERS] [SUBSTEPS]; N >= ', 2*nedge
    call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
  end if

  ! uneven segments: rank r has n * (1 + r/P) points
  n = int(real(n, dp) * (1.0_dp + real(rank, dp) / real(nprocs, dp)))
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)

  allocate (u(0:n+1), unew(0:n+1), sendbuf(nedge), recvbuf(nedge))
  do i = 0, n + 1
    u(i) = real(rank + 1, dp) * sin(3.0_dp * real(i, dp) / real(n, dp))
  end do
  alpha = 0.24_dp

  do it = 1, iters
    sendbuf = u(n - nedge + 1:n)
    call MPI_SENDRECV(sendbuf, nedge, MPI_DOUBLE_PRECISION, right, mod(it, 32768), &
                      recvbuf, nedge, MPI_DOUBLE_PRECISION, left, mod(it, 32768), &
                      MPI_COMM_WORLD, status, ierr)
    ! blend the neighbour's edge into the first nedge points
    do i = 1, nedge
      u(i) = 0.5_dp * (u(i) + recvbuf(nedge - i + 1))
    end do
    u(0) = recvbuf(nedge)
    u(n + 1) = u(n)
    do k = 1, nsub
      do i = 1, n
        unew(i) = u(i) + alpha * (u(i - 1) - 2.0_dp * u(i) + u(i + 1))
      end do
      unew(0) = u(0)
      unew(n + 1) = unew(n)
      u = unew
    end do
  end do

  local = sum(u(1:n)**2)
  call MPI_REDUCE(local, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)

  elapsed = MPI_WTIME() - t0
  call MPI_REDUCE(elapsed, tmax, 1, MPI_DOUBLE_PRECISION, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    write (arg, '(f12.3)') tmax
    write (*, '(a,i0,a,i0,2a)') 'ring: ranks=', nprocs, ' iters=', iters, ' seconds=', trim(adjustl(arg))
  end if

  deallocate (u, unew, sendbuf, recvbuf)
  call MPI_FINALIZE(ierr)
end program ring

! psf_decl.h - declarations of the per-rank MPI call counters of a Fortran
! test program (the Fortran twin of ps_count.h).  #include it in the
! specification part of the main program, after 'implicit none' and
! PS_INCLUDE_MPIF; #include "psf_procs.h" after its 'contains'.
! ps_names lists every recorded function the test programs call, by its C name
! (as the recorder reports it), in ASCII order; ps_report relies on that order.
  integer, parameter :: PS_NFUNC = 35
  character(len=18), parameter :: ps_names(PS_NFUNC) = [character(len=18) :: &
       'MPI_Allgatherv', &
       'MPI_Allreduce', &
       'MPI_Alltoall', &
       'MPI_Alltoallv', &
       'MPI_Barrier', &
       'MPI_Bcast', &
       'MPI_Cart_create', &
       'MPI_Comm_create', &
       'MPI_Comm_dup', &
       'MPI_Comm_free', &
       'MPI_Comm_group', &
       'MPI_Comm_split', &
       'MPI_Dims_create', &
       'MPI_Finalize', &
       'MPI_Gather', &
       'MPI_Gatherv', &
       'MPI_Group_free', &
       'MPI_Group_incl', &
       'MPI_Ibarrier', &
       'MPI_Init', &
       'MPI_Irecv', &
       'MPI_Isend', &
       'MPI_Recv', &
       'MPI_Recv_init', &
       'MPI_Reduce', &
       'MPI_Reduce_scatter', &
       'MPI_Request_free', &
       'MPI_Scatterv', &
       'MPI_Send', &
       'MPI_Send_init', &
       'MPI_Sendrecv', &
       'MPI_Startall', &
       'MPI_Wait', &
       'MPI_Waitall', &
       'MPI_Waitany']
  integer :: ps_counts(PS_NFUNC) = 0
  ! the wall clock ps_report prints when PS_WALL is set: from the first
  ! counted call after MPI_Init
  double precision :: ps_t0 = 0.0d0
  ! ps_compute's array (benchmarks only; see psf_procs.h)
  double precision :: ps_work_a(0:511) = 0.0d0
  logical :: ps_inited = .false.

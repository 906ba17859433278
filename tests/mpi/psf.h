! psf.h - C-preprocessor glue that lets one Fortran source (.F90) build
! against the three Fortran MPI bindings.  Compile with exactly one of
!   -DPS_MPIF   Fortran 77 style:  include 'mpif.h'
!   -DPS_MPI    use mpi
!   -DPS_F08    use mpi_f08
! Every MPI call is written the same way in all three (the trailing ierr
! argument is optional in mpi_f08 but accepted); only the handle, request and
! status declarations differ, so they are spelled with these macros:
!   COMM_T :: c        communicator handle
!   GROUP_T :: g       group handle
!   REQ_T :: r(4)      request handle(s)
!   STATUS_T :: st     one status;  ST_SOURCE(st) / ST_TAG(st) read it
! PS_USE_MPI goes before 'implicit none', PS_INCLUDE_MPIF after it.
! PS_SEQ(a) is how ps_report passes its array buffers: whole arrays with
! mpi_f08 (assumed-rank dummies), else the first element (F77 sequence
! association), because mpif.h (and MPICH use mpi) give no interfaces and
! gfortran >= 10 rejects a file that passes an array to MPI_Gather in one call
! and a scalar (e.g. MPI_IN_PLACE) in another.
#if defined(PS_F08)
#  define PS_USE_MPI use mpi_f08
#  define PS_INCLUDE_MPIF
#  define COMM_T type(MPI_Comm)
#  define GROUP_T type(MPI_Group)
#  define REQ_T type(MPI_Request)
#  define STATUS_T type(MPI_Status)
#  define ST_SOURCE(st) st%MPI_SOURCE
#  define ST_TAG(st) st%MPI_TAG
#  define PS_SEQ(a) a
#elif defined(PS_MPI) || defined(PS_MPIF)
#  if defined(PS_MPI)
#    define PS_USE_MPI use mpi
#    define PS_INCLUDE_MPIF
#  else
#    define PS_USE_MPI
#    define PS_INCLUDE_MPIF include 'mpif.h'
#  endif
#  define COMM_T integer
#  define GROUP_T integer
#  define REQ_T integer
#  define STATUS_T integer, dimension(MPI_STATUS_SIZE)
#  define ST_SOURCE(st) st(MPI_SOURCE)
#  define ST_TAG(st) st(MPI_TAG)
#  define PS_SEQ(a) a(1)
#else
#  error "compile with -DPS_MPIF, -DPS_MPI or -DPS_F08"
#endif

! PS_WORK: sweeps of ps_compute per call (benchmarks); 0 in the tests
#ifndef PS_WORK
#define PS_WORK 0
#endif

/* The tuning library's MPI entry points, the only symbols it exports: C
 * MPI_Alltoall and MPI_Finalize, and the Fortran ones (mpif.h and `use
 * mpi`: mpi_alltoall_, mpi_alltoall__, mpi_alltoall, MPI_ALLTOALL; mpi_f08:
 * each MPI's own name), as the recorder defines them (notes/recording.md).
 * MPI_Finalize is taken in every binding so that every process, whether it
 * called MPI_Alltoall or not, joins the collective that gathers the report
 * and the decisions (psk_tune_pre_finalize); a guard keeps MPICH's Fortran
 * finalize, which calls the C one, from doing it twice. Open MPI 4.1's Fortran
 * layer calls PMPI_Alltoall, bypassing a C wrapper, so its Fortran entries
 * convert the arguments here (handles, MPI_IN_PLACE and MPI_BOTTOM, which
 * are addresses of Open MPI's common blocks). MPICH's Fortran layer calls
 * the C MPI_Alltoall, which is ours: its Fortran entries only note the
 * caller's address for the C one and pass the call on to MPICH's own
 * Fortran code, which converts it. */
#include "tune_internal.h"

typedef void psk_ft_alltoall(void *, MPI_Fint *, MPI_Fint *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                             MPI_Fint *);
typedef void psk_ft_finalize(MPI_Fint *);

/* inside a Fortran MPI_Finalize: the C one it may call only passes on */
static __thread int fguard __attribute__((tls_model("initial-exec")));

PSK_EXPORT int MPI_Finalize(void)
{
    if (!fguard)
        psk_tune_pre_finalize();
    return PMPI_Finalize();
}

static void f_finalize(psk_ft_finalize *fwd, MPI_Fint *ierr)
{
    psk_tune_pre_finalize();
    fguard++;
    fwd(ierr);
    fguard--;
}

#if defined(OPEN_MPI)
extern psk_ft_finalize pmpi_finalize_, pmpi_finalize_f08_;
PSK_EXPORT void mpi_finalize_f08_(MPI_Fint *ierr) { f_finalize(pmpi_finalize_f08_, ierr); }
#else
extern psk_ft_finalize pmpi_finalize_, pmpir_finalize_f08_;
PSK_EXPORT void mpi_finalize_f08_(MPI_Fint *ierr) { f_finalize(pmpir_finalize_f08_, ierr); }
#endif
PSK_EXPORT void mpi_finalize_(MPI_Fint *ierr) { f_finalize(pmpi_finalize_, ierr); }
PSK_EXPORT void mpi_finalize__(MPI_Fint *) __attribute__((alias("mpi_finalize_")));
PSK_EXPORT void mpi_finalize(MPI_Fint *) __attribute__((alias("mpi_finalize_")));
PSK_EXPORT void MPI_FINALIZE(MPI_Fint *) __attribute__((alias("mpi_finalize_")));

#if defined(OPEN_MPI)

/* Open MPI's Fortran sentinels (ompi/mpi/fortran/base/constants.h) */
extern int mpi_fortran_in_place_, mpi_fortran_bottom_;

static const void *f_buffer(void *b)
{
    return b == (void *)&mpi_fortran_in_place_ ? MPI_IN_PLACE : b == (void *)&mpi_fortran_bottom_ ? MPI_BOTTOM : b;
}

static void f_alltoall(void *ra, void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt,
                       MPI_Fint *comm, MPI_Fint *ierr)
{
    int e = psk_tune_alltoall(f_buffer(sb), (int)*sc, PMPI_Type_f2c(*st), (void *)f_buffer(rb), (int)*rc,
                              PMPI_Type_f2c(*rt), PMPI_Comm_f2c(*comm), ra, 1);
    if (ierr) /* absent when an mpi_f08 caller leaves ierror out */
        *ierr = (MPI_Fint)e;
}

PSK_EXPORT int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return psk_tune_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                             __builtin_return_address(0), 0);
}

PSK_EXPORT void mpi_alltoall_f08_(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt,
                                  MPI_Fint *comm, MPI_Fint *ierr)
{
    f_alltoall(__builtin_return_address(0), sb, sc, st, rb, rc, rt, comm, ierr);
}

#else /* MPICH */

/* the Fortran caller's address, from the Fortran entry to the C one */
static __thread void *fsite __attribute__((tls_model("initial-exec")));

extern psk_ft_alltoall pmpi_alltoall_, pmpir_alltoall_f08ts_;

static void f_alltoall(psk_ft_alltoall *fwd, void *ra, void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb,
                       MPI_Fint *rc, MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *ierr)
{
    fsite = ra;
    fwd(sb, sc, st, rb, rc, rt, comm, ierr);
    if (fsite) { /* MPICH did not come back through MPI_Alltoall */
        fsite = NULL;
        psk_tune_count_fortran_native();
    }
}

PSK_EXPORT int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    void *ra = fsite;
    if (ra)
        fsite = NULL;
    return psk_tune_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                             ra ? ra : __builtin_return_address(0), ra != NULL);
}

/* buffers are descriptors here (TS 29113), passed on untouched */
PSK_EXPORT void mpi_alltoall_f08ts_(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt,
                                    MPI_Fint *comm, MPI_Fint *ierr)
{
    f_alltoall(pmpir_alltoall_f08ts_, __builtin_return_address(0), sb, sc, st, rb, rc, rt, comm, ierr);
}

#endif

PSK_EXPORT void mpi_alltoall_(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt,
                              MPI_Fint *comm, MPI_Fint *ierr)
{
#if defined(OPEN_MPI)
    f_alltoall(__builtin_return_address(0), sb, sc, st, rb, rc, rt, comm, ierr);
#else
    f_alltoall(pmpi_alltoall_, __builtin_return_address(0), sb, sc, st, rb, rc, rt, comm, ierr);
#endif
}
PSK_EXPORT void mpi_alltoall__(void *, MPI_Fint *, MPI_Fint *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                               MPI_Fint *) __attribute__((alias("mpi_alltoall_")));
PSK_EXPORT void mpi_alltoall(void *, MPI_Fint *, MPI_Fint *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                             MPI_Fint *) __attribute__((alias("mpi_alltoall_")));
PSK_EXPORT void MPI_ALLTOALL(void *, MPI_Fint *, MPI_Fint *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                             MPI_Fint *) __attribute__((alias("mpi_alltoall_")));

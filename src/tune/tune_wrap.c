/* The tuning library's MPI entry points, the only symbols it exports: C
 * MPI_Alltoall, MPI_Bcast, MPI_Allreduce, MPI_Allgather and MPI_Finalize,
 * and the Fortran ones (mpif.h and `use mpi`: mpi_alltoall_,
 * mpi_alltoall__, mpi_alltoall, MPI_ALLTOALL and the same for the others;
 * mpi_f08: each MPI's own name), as the recorder defines them
 * (src/record/gen_wrappers.awk; docs/tune.md, The arms: Fortran).
 * MPI_Finalize is taken in every binding so that every process, whether it
 * called MPI_Alltoall or not, joins the collective that gathers the report
 * and the decisions (psk_tune_pre_finalize); a guard keeps MPICH's Fortran
 * finalize, which calls the C one, from doing it twice. Open MPI 4.1's Fortran
 * layer calls PMPI_Alltoall (and the others), bypassing a C wrapper, so its
 * Fortran entries convert the arguments here (handles, MPI_IN_PLACE and
 * MPI_BOTTOM, which are addresses of Open MPI's common blocks). MPICH's
 * Fortran layer calls the C MPI_Alltoall, which is ours: its Fortran
 * entries only note the caller's address for the C one and pass the call
 * on to MPICH's own Fortran code, which converts it.
 * Stacked with the recorder (docs/tune.md, "Recording a tuned job"),
 * psk_tune_last_arm tells it which arm ran a call, psk_tune_caller gives
 * the program's call site (the return address here is then the
 * recorder's), and MPI_Finalize in
 * every binding passes on to the next definition of its name, so that
 * whichever of the two libraries comes first, both see it. */
#include "psk_next.h"
#include "tune_internal.h"

typedef void psk_ft_alltoall(void *, MPI_Fint *, MPI_Fint *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                             MPI_Fint *);
typedef void psk_ft_bcast(void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *);
typedef void psk_ft_allreduce(void *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *);
/* (allgather's arguments are alltoall's) */
typedef void psk_ft_finalize(MPI_Fint *);

/* inside a Fortran MPI_Finalize: the C one it may call only passes on */
static __thread int fguard __attribute__((tls_model("initial-exec")));

PSK_EXPORT int psk_tune_last_arm(void)
{
    int a = psk_tune_last;
    psk_tune_last = -1;
    return a;
}

/* the program's call site, from the recorder, for the next entry point */
static __thread void *outer_site __attribute__((tls_model("initial-exec")));

PSK_EXPORT void psk_tune_caller(void *site) { outer_site = site; }

/* the call site of this call: the recorder's word for it, else ra */
static inline void *caller(void *ra)
{
    void *o = outer_site;
    if (!o)
        return ra;
    outer_site = NULL;
    return o;
}

static void *_Atomic next_finalize, *_Atomic next_ffinalize[2];

PSK_EXPORT int MPI_Finalize(void)
{
    if (!fguard)
        psk_tune_pre_finalize();
    return ((int (*)(void))psk_next(&next_finalize, "MPI_Finalize", (void *)PMPI_Finalize))();
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
#define PSK_PMPI_FINALIZE_F08 pmpi_finalize_f08_
#else
extern psk_ft_finalize pmpi_finalize_, pmpir_finalize_f08_;
#define PSK_PMPI_FINALIZE_F08 pmpir_finalize_f08_
#endif
PSK_EXPORT void mpi_finalize_f08_(MPI_Fint *ierr)
{
    f_finalize((psk_ft_finalize *)psk_next(&next_ffinalize[1], "mpi_finalize_f08_", (void *)PSK_PMPI_FINALIZE_F08),
               ierr);
}
PSK_EXPORT void mpi_finalize_(MPI_Fint *ierr)
{
    f_finalize((psk_ft_finalize *)psk_next(&next_ffinalize[0], "mpi_finalize_", (void *)pmpi_finalize_), ierr);
}
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
                             caller(__builtin_return_address(0)), 0);
}

PSK_EXPORT void mpi_alltoall_f08_(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt,
                                  MPI_Fint *comm, MPI_Fint *ierr)
{
    f_alltoall(caller(__builtin_return_address(0)), sb, sc, st, rb, rc, rt, comm, ierr);
}

static void f_bcast(void *ra, void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    int e = psk_tune_bcast((void *)f_buffer(b), (int)*n, PMPI_Type_f2c(*t), (int)*root, PMPI_Comm_f2c(*comm), ra, 1);
    if (ierr)
        *ierr = (MPI_Fint)e;
}

static void f_allreduce(void *ra, void *sb, void *rb, MPI_Fint *n, MPI_Fint *t, MPI_Fint *op, MPI_Fint *comm,
                        MPI_Fint *ierr)
{
    int e = psk_tune_allreduce(f_buffer(sb), (void *)f_buffer(rb), (int)*n, PMPI_Type_f2c(*t), PMPI_Op_f2c(*op),
                               PMPI_Comm_f2c(*comm), ra, 1);
    if (ierr)
        *ierr = (MPI_Fint)e;
}

static void f_allgather(void *ra, void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt,
                        MPI_Fint *comm, MPI_Fint *ierr)
{
    int e = psk_tune_allgather(f_buffer(sb), (int)*sc, PMPI_Type_f2c(*st), (void *)f_buffer(rb), (int)*rc,
                               PMPI_Type_f2c(*rt), PMPI_Comm_f2c(*comm), ra, 1);
    if (ierr)
        *ierr = (MPI_Fint)e;
}

PSK_EXPORT int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    return psk_tune_bcast(buf, count, type, root, comm, caller(__builtin_return_address(0)), 0);
}

PSK_EXPORT int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    return psk_tune_allreduce(sbuf, rbuf, count, type, op, comm, caller(__builtin_return_address(0)), 0);
}

PSK_EXPORT int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                             MPI_Datatype rtype, MPI_Comm comm)
{
    return psk_tune_allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm, caller(__builtin_return_address(0)), 0);
}

PSK_EXPORT void mpi_bcast_f08_(void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    f_bcast(caller(__builtin_return_address(0)), b, n, t, root, comm, ierr);
}

PSK_EXPORT void mpi_allreduce_f08_(void *sb, void *rb, MPI_Fint *n, MPI_Fint *t, MPI_Fint *op, MPI_Fint *comm,
                                   MPI_Fint *ierr)
{
    f_allreduce(caller(__builtin_return_address(0)), sb, rb, n, t, op, comm, ierr);
}

PSK_EXPORT void mpi_allgather_f08_(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt,
                                   MPI_Fint *comm, MPI_Fint *ierr)
{
    f_allgather(caller(__builtin_return_address(0)), sb, sc, st, rb, rc, rt, comm, ierr);
}

#else /* MPICH */

/* the Fortran caller's address, from the Fortran entry to the C one */
static __thread void *fsite __attribute__((tls_model("initial-exec")));

extern psk_ft_alltoall pmpi_alltoall_, pmpir_alltoall_f08ts_, pmpi_allgather_, pmpir_allgather_f08ts_;
extern psk_ft_bcast pmpi_bcast_, pmpir_bcast_f08ts_;
extern psk_ft_allreduce pmpi_allreduce_, pmpir_allreduce_f08ts_;

/* after MPICH's Fortran code: if it did not come back through the C entry
 * point (MPI_BOTTOM), the call was native */
static void f_done(int coll)
{
    if (fsite) {
        fsite = NULL;
        psk_tune_count_fortran_native(coll);
    }
}

static void f_alltoall(psk_ft_alltoall *fwd, void *ra, void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb,
                       MPI_Fint *rc, MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *ierr)
{
    fsite = ra;
    fwd(sb, sc, st, rb, rc, rt, comm, ierr);
    f_done(PSK_TUNE_C_alltoall);
}

static void f_allgather(psk_ft_alltoall *fwd, void *ra, void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb,
                        MPI_Fint *rc, MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *ierr)
{
    fsite = ra;
    fwd(sb, sc, st, rb, rc, rt, comm, ierr);
    f_done(PSK_TUNE_C_allgather);
}

static void f_bcast(psk_ft_bcast *fwd, void *ra, void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *root, MPI_Fint *comm,
                    MPI_Fint *ierr)
{
    fsite = ra;
    fwd(b, n, t, root, comm, ierr);
    f_done(PSK_TUNE_C_bcast);
}

static void f_allreduce(psk_ft_allreduce *fwd, void *ra, void *sb, void *rb, MPI_Fint *n, MPI_Fint *t, MPI_Fint *op,
                        MPI_Fint *comm, MPI_Fint *ierr)
{
    fsite = ra;
    fwd(sb, rb, n, t, op, comm, ierr);
    f_done(PSK_TUNE_C_allreduce);
}

/* the site: the Fortran caller's, noted by its entry point, else ours */
static void *c_site(void *ra, int *fortran)
{
    void *f = fsite;
    *fortran = f != NULL;
    if (f)
        fsite = NULL;
    return f ? f : ra;
}

PSK_EXPORT int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    int fortran;
    void *ra = c_site(caller(__builtin_return_address(0)), &fortran);
    return psk_tune_bcast(buf, count, type, root, comm, ra, fortran);
}

PSK_EXPORT int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    int fortran;
    void *ra = c_site(caller(__builtin_return_address(0)), &fortran);
    return psk_tune_allreduce(sbuf, rbuf, count, type, op, comm, ra, fortran);
}

PSK_EXPORT int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                             MPI_Datatype rtype, MPI_Comm comm)
{
    int fortran;
    void *ra = c_site(caller(__builtin_return_address(0)), &fortran);
    return psk_tune_allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm, ra, fortran);
}

PSK_EXPORT void mpi_bcast_f08ts_(void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    f_bcast(pmpir_bcast_f08ts_, caller(__builtin_return_address(0)), b, n, t, root, comm, ierr);
}

PSK_EXPORT void mpi_allreduce_f08ts_(void *sb, void *rb, MPI_Fint *n, MPI_Fint *t, MPI_Fint *op, MPI_Fint *comm,
                                     MPI_Fint *ierr)
{
    f_allreduce(pmpir_allreduce_f08ts_, caller(__builtin_return_address(0)), sb, rb, n, t, op, comm, ierr);
}

PSK_EXPORT void mpi_allgather_f08ts_(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt,
                                     MPI_Fint *comm, MPI_Fint *ierr)
{
    f_allgather(pmpir_allgather_f08ts_, caller(__builtin_return_address(0)), sb, sc, st, rb, rc, rt, comm, ierr);
}

PSK_EXPORT int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    void *ra = fsite;
    if (ra)
        fsite = NULL;
    return psk_tune_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                             ra ? ra : caller(__builtin_return_address(0)), ra != NULL);
}

/* buffers are descriptors here (TS 29113), passed on untouched */
PSK_EXPORT void mpi_alltoall_f08ts_(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt,
                                    MPI_Fint *comm, MPI_Fint *ierr)
{
    f_alltoall(pmpir_alltoall_f08ts_, caller(__builtin_return_address(0)), sb, sc, st, rb, rc, rt, comm, ierr);
}

#endif

PSK_EXPORT void mpi_alltoall_(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt,
                              MPI_Fint *comm, MPI_Fint *ierr)
{
#if defined(OPEN_MPI)
    f_alltoall(caller(__builtin_return_address(0)), sb, sc, st, rb, rc, rt, comm, ierr);
#else
    f_alltoall(pmpi_alltoall_, caller(__builtin_return_address(0)), sb, sc, st, rb, rc, rt, comm, ierr);
#endif
}
PSK_EXPORT void mpi_alltoall__(void *, MPI_Fint *, MPI_Fint *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                               MPI_Fint *) __attribute__((alias("mpi_alltoall_")));
PSK_EXPORT void mpi_alltoall(void *, MPI_Fint *, MPI_Fint *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                             MPI_Fint *) __attribute__((alias("mpi_alltoall_")));
PSK_EXPORT void MPI_ALLTOALL(void *, MPI_Fint *, MPI_Fint *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                             MPI_Fint *) __attribute__((alias("mpi_alltoall_")));

PSK_EXPORT void mpi_bcast_(void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
#if defined(OPEN_MPI)
    f_bcast(caller(__builtin_return_address(0)), b, n, t, root, comm, ierr);
#else
    f_bcast(pmpi_bcast_, caller(__builtin_return_address(0)), b, n, t, root, comm, ierr);
#endif
}
PSK_EXPORT void mpi_bcast__(void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *)
    __attribute__((alias("mpi_bcast_")));
PSK_EXPORT void mpi_bcast(void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *)
    __attribute__((alias("mpi_bcast_")));
PSK_EXPORT void MPI_BCAST(void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *)
    __attribute__((alias("mpi_bcast_")));

PSK_EXPORT void mpi_allreduce_(void *sb, void *rb, MPI_Fint *n, MPI_Fint *t, MPI_Fint *op, MPI_Fint *comm,
                               MPI_Fint *ierr)
{
#if defined(OPEN_MPI)
    f_allreduce(caller(__builtin_return_address(0)), sb, rb, n, t, op, comm, ierr);
#else
    f_allreduce(pmpi_allreduce_, caller(__builtin_return_address(0)), sb, rb, n, t, op, comm, ierr);
#endif
}
PSK_EXPORT void mpi_allreduce__(void *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *)
    __attribute__((alias("mpi_allreduce_")));
PSK_EXPORT void mpi_allreduce(void *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *)
    __attribute__((alias("mpi_allreduce_")));
PSK_EXPORT void MPI_ALLREDUCE(void *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *)
    __attribute__((alias("mpi_allreduce_")));

PSK_EXPORT void mpi_allgather_(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt,
                               MPI_Fint *comm, MPI_Fint *ierr)
{
#if defined(OPEN_MPI)
    f_allgather(caller(__builtin_return_address(0)), sb, sc, st, rb, rc, rt, comm, ierr);
#else
    f_allgather(pmpi_allgather_, caller(__builtin_return_address(0)), sb, sc, st, rb, rc, rt, comm, ierr);
#endif
}
PSK_EXPORT void mpi_allgather__(void *, MPI_Fint *, MPI_Fint *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                                MPI_Fint *) __attribute__((alias("mpi_allgather_")));
PSK_EXPORT void mpi_allgather(void *, MPI_Fint *, MPI_Fint *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                              MPI_Fint *) __attribute__((alias("mpi_allgather_")));
PSK_EXPORT void MPI_ALLGATHER(void *, MPI_Fint *, MPI_Fint *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                              MPI_Fint *) __attribute__((alias("mpi_allgather_")));

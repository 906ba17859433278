/* Test shim for tune.export.openmpi (export_rules.sh), preloaded into an
 * Open MPI 4.1 job run with no perfskel library: Open MPI's coll_tuned
 * component (mca_coll_tuned.so) calls the base algorithms exported by
 * libmpi.so.40 across shared objects, so defining them here sees each
 * call; each is passed on to libmpi's (dlsym RTLD_NEXT). The program asks
 * which one ran first since its reset (psk_export_shim_first). Tests only. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCOLL 4 /* alltoall bcast allreduce allgather, as export_prog.c numbers them */
static const char *first[NCOLL];

__attribute__((visibility("default"))) void psk_export_shim_reset(void) { memset(first, 0, sizeof first); }

__attribute__((visibility("default"))) const char *psk_export_shim_first(int coll)
{
    return coll >= 0 && coll < NCOLL && first[coll] ? first[coll] : "none";
}

static void *real(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        fprintf(stderr, "export_shim: %s not found\n", name);
        abort();
    }
    return f;
}

static void seen(int coll, const char *name)
{
    if (!first[coll])
        first[coll] = name;
}

typedef void *P; /* struct pointers of Open MPI's, passed on untouched */

/* alltoall and allgather: (sbuf, scount, sdtype, rbuf, rcount, rdtype, comm, module) */
#define A8(coll, fn, tag)                                                                                    \
    __attribute__((visibility("default"))) int fn(const void *sb, int sc, P st, void *rb, int rc, P rt, P comm, \
                                                  P mod)                                                     \
    {                                                                                                        \
        static int (*f)(const void *, int, P, void *, int, P, P, P);                                         \
        if (!f)                                                                                              \
            f = (int (*)(const void *, int, P, void *, int, P, P, P))real(#fn);                              \
        seen(coll, tag);                                                                                     \
        return f(sb, sc, st, rb, rc, rt, comm, mod);                                                         \
    }
A8(0, ompi_coll_base_alltoall_intra_basic_linear, "basic_linear")
A8(0, ompi_coll_base_alltoall_intra_pairwise, "pairwise")
A8(0, ompi_coll_base_alltoall_intra_bruck, "modified_bruck")
A8(0, ompi_coll_base_alltoall_intra_two_procs, "two_proc")
A8(3, ompi_coll_base_allgather_intra_ring, "ring")
A8(3, ompi_coll_base_allgather_intra_bruck, "bruck")
A8(3, ompi_coll_base_allgather_intra_recursivedoubling, "recursive_doubling")
A8(3, ompi_coll_base_allgather_intra_neighborexchange, "neighbor")
A8(3, ompi_coll_base_allgather_intra_basic_linear, "basic_linear")
A8(3, ompi_coll_base_allgather_intra_two_procs, "two_proc")

__attribute__((visibility("default"))) int ompi_coll_base_alltoall_intra_linear_sync(const void *sb, int sc, P st,
                                                                                      void *rb, int rc, P rt,
                                                                                      P comm, P mod, int maxreq)
{
    static int (*f)(const void *, int, P, void *, int, P, P, P, int);
    if (!f)
        f = (int (*)(const void *, int, P, void *, int, P, P, P, int))real("ompi_coll_base_alltoall_intra_linear_sync");
    seen(0, "linear_sync");
    return f(sb, sc, st, rb, rc, rt, comm, mod, maxreq);
}

/* bcast: (buf, count, dtype, root, comm, module, segsize) */
#define B7(fn, tag)                                                                               \
    __attribute__((visibility("default"))) int fn(void *b, int c, P t, int root, P comm, P mod, \
                                                  uint32_t seg)                                  \
    {                                                                                            \
        static int (*f)(void *, int, P, int, P, P, uint32_t);                                    \
        if (!f)                                                                                  \
            f = (int (*)(void *, int, P, int, P, P, uint32_t))real(#fn);                         \
        seen(1, tag);                                                                            \
        return f(b, c, t, root, comm, mod, seg);                                                 \
    }
B7(ompi_coll_base_bcast_intra_binomial, "binomial")
B7(ompi_coll_base_bcast_intra_scatter_allgather_ring, "scatter_allgather_ring")
B7(ompi_coll_base_bcast_intra_scatter_allgather, "scatter_allgather")
B7(ompi_coll_base_bcast_intra_pipeline, "pipeline")
B7(ompi_coll_base_bcast_intra_split_bintree, "split_binary_tree")
B7(ompi_coll_base_bcast_intra_bintree, "binary_tree")

/* allreduce: (sbuf, rbuf, count, dtype, op, comm, module) */
#define R7(fn, tag)                                                                                       \
    __attribute__((visibility("default"))) int fn(const void *sb, void *rb, int c, P t, P op, P comm, P mod) \
    {                                                                                                    \
        static int (*f)(const void *, void *, int, P, P, P, P);                                          \
        if (!f)                                                                                          \
            f = (int (*)(const void *, void *, int, P, P, P, P))real(#fn);                               \
        seen(2, tag);                                                                                    \
        return f(sb, rb, c, t, op, comm, mod);                                                           \
    }
R7(ompi_coll_base_allreduce_intra_recursivedoubling, "recursive_doubling")
R7(ompi_coll_base_allreduce_intra_ring, "ring")
R7(ompi_coll_base_allreduce_intra_redscat_allgather, "rabenseifner")
R7(ompi_coll_base_allreduce_intra_nonoverlapping, "nonoverlapping")
R7(ompi_coll_base_allreduce_intra_basic_linear, "basic_linear")

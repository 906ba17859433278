/* The merge tree over MPI: every process's part of a trace (its ranks'
 * key sequences and call orders, merge_stream.c) sent up a binomial tree,
 * each parent absorbing its children's, so that sequences shared by many
 * ranks cross each edge once, and the first error on the way reaches the
 * root. One source for the two places that run it, each compiling
 * merge_tree_mpi.c with its own MPI (not part of libpsk_merge, which needs
 * none): the recorder's merge inside the job (src/record/record_merge.c,
 * its MPI calls through PMPI_: -DPSK_MTREE_PMPI) and the offline merge over
 * MPI processes (programs/merge_mpi.c, `perfskel merge --mpi`). */
#ifndef PSK_MERGE_TREE_MPI_H
#define PSK_MERGE_TREE_MPI_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "perfskel/merge.h"

typedef struct {
    MPI_Comm comm;
    int me, np;               /* this process and the processes in comm */
    int tag_head, tag_data;   /* the caller's own tags on comm */
    void (*wait)(MPI_Request *r); /* how to wait for a request (not spinning) */
    const char *who;          /* before "out of memory" in err: "rank 3: " or "" */
} psk_mtree;

/* Runs the tree: part (NULL where st is already an error, err saying it)
 * goes to its parent, after absorbing every child's. Returns the status
 * at this process: at the root (me 0) 0 means part holds every process's,
 * else err (cap bytes) holds the first error up the tree. */
int64_t psk_mtree_gather(const psk_mtree *t, psk_merge_part *part, int64_t st, char *err, size_t cap);

#endif

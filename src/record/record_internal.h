/* Recorder internals shared by record_core.c and record_call.c: the lock
 * around the shared tables and the block buffer, taken only when the
 * program asked for MPI_THREAD_MULTIPLE (a spin on one atomic flag), and
 * whether PMPI calls are allowed yet (between MPI_Init and MPI_Finalize). */
#ifndef PSK_RECORD_INTERNAL_H
#define PSK_RECORD_INTERNAL_H

#include <stdatomic.h>

/* Held around the shared tables and the block buffer, but only when the
 * program asked for MPI_THREAD_MULTIPLE: otherwise one thread calls MPI. */
extern int psk_threaded;
extern atomic_flag psk_lockflag;

static inline void psk_rec_lock(void)
{
    if (psk_threaded)
        while (atomic_flag_test_and_set_explicit(&psk_lockflag, memory_order_acquire))
            ;
}

static inline void psk_rec_unlock(void)
{
    if (psk_threaded)
        atomic_flag_clear_explicit(&psk_lockflag, memory_order_release);
}

/* 1 between MPI_Init and MPI_Finalize (PMPI calls allowed) */
int psk_mpi_alive(void);

#endif

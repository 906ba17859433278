/* The collector of what a report keeps of a replay beyond its intervals
 * (psk_sim_detail, sim_detail.h): the replay calls it for each call it
 * finishes and each message sent (psk_sim_opts.on_call, on_message). Per
 * rank, its calls as segments (once a rank has more than its share,
 * neighbours are merged per cell of a time grid that doubles, so memory
 * stays bounded whatever the trace's length; the first PSK_DETAIL_ROWS
 * ranks only, those the report shows); per interval and MPI
 * function, time, waiting, calls and bytes; and the bytes and messages
 * sent between each pair of ranks (or of blocks of ranks beyond 64). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perfskel/trace.h"
#include "sim_detail.h"

#define MATRIX_MAX 64           /* blocks of the communication matrix per side */
#define SEGMENTS_ALL (1u << 20) /* segments kept over all ranks (64 MB) */

psk_sim_detail *psk_sim_detail_new(int nranks)
{
    if (nranks < 1)
        return NULL;
    psk_sim_detail *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->P = nranks;
    d->rows = nranks < PSK_DETAIL_ROWS ? nranks : PSK_DETAIL_ROWS;
    d->rowcap = SEGMENTS_ALL / (size_t)d->rows;
    if (d->rowcap < 1024)
        d->rowcap = 1024;
    d->nfn = psk_fn_count();
    d->block = (nranks + MATRIX_MAX - 1) / MATRIX_MAX;
    d->G = (nranks + d->block - 1) / d->block;
    d->row = calloc((size_t)d->rows, sizeof *d->row);
    d->mbytes = calloc((size_t)d->G * (size_t)d->G, sizeof *d->mbytes);
    d->mmsgs = calloc((size_t)d->G * (size_t)d->G, sizeof *d->mmsgs);
    if (!d->row || !d->mbytes || !d->mmsgs) {
        psk_sim_detail_free(d);
        return NULL;
    }
    return d;
}

void psk_sim_detail_free(psk_sim_detail *d)
{
    if (!d)
        return;
    for (int q = 0; d->row && q < d->rows; q++)
        free(d->row[q].seg);
    for (int i = 0; i < d->nint; i++)
        free(d->fncell[i]);
    free(d->fncell);
    free(d->row);
    free(d->mbytes);
    free(d->mmsgs);
    free(d);
}

int psk_sim_detail_status(const psk_sim_detail *d)
{
    return d->status;
}

void psk_dseg_merge(psk_dseg *a, const psk_dseg *b)
{
    if (b->t1 > a->t1)
        a->t1 = b->t1;
    if (a->fn == b->fn)
        a->fnmpi += b->fnmpi;
    else if (b->fnmpi > a->fnmpi)
        a->fn = b->fn, a->fnmpi = b->fnmpi;
    a->mpi += b->mpi;
    a->sync += b->sync;
    a->bytes += b->bytes;
    a->n += b->n;
    if (a->peer != b->peer)
        a->peer = -2;
}

void psk_dseg_coalesce(psk_drow *r, double w)
{
    if (!r->n || w <= 0)
        return;
    size_t k = 0;
    double cell = floor(r->seg[0].t0 / w);
    for (size_t i = 1; i < r->n; i++) {
        double c = floor(r->seg[i].t0 / w);
        if (c == cell) {
            psk_dseg_merge(&r->seg[k], &r->seg[i]);
        } else {
            r->seg[++k] = r->seg[i];
            cell = c;
        }
    }
    r->n = k + 1;
}

static void on_call(void *arg, const psk_sim_call *c)
{
    psk_sim_detail *d = arg;
    if (c->rank < 0 || c->rank >= d->P || c->fn >= d->nfn || c->interval < 0)
        return;
    /* time per function per interval */
    if (c->interval >= d->nint) {
        int n = c->interval + 16;
        psk_dcell **a = realloc(d->fncell, (size_t)n * sizeof *a);
        if (!a) {
            d->status = PSK_ENOMEM;
            return;
        }
        memset(a + d->nint, 0, (size_t)(n - d->nint) * sizeof *a);
        d->fncell = a, d->nint = n;
    }
    if (!d->fncell[c->interval] && !(d->fncell[c->interval] = calloc(d->nfn, sizeof **d->fncell))) {
        d->status = PSK_ENOMEM;
        return;
    }
    psk_dcell *x = &d->fncell[c->interval][c->fn];
    double t = c->end - c->begin;
    x->time += t, x->sync += c->sync, x->calls++, x->bytes += c->bytes;
    /* the rank's segments, if it is shown */
    if (c->rank >= d->rows)
        return;
    psk_drow *r = &d->row[c->rank];
    psk_dseg sg = {.t0 = c->begin, .t1 = c->end, .mpi = t, .sync = c->sync, .fnmpi = t, .bytes = c->bytes,
                   .n = 1, .peer = c->peer, .fn = c->fn};
    if (r->grid > 0 && r->n && floor(r->seg[r->n - 1].t0 / r->grid) == floor(sg.t0 / r->grid)) {
        psk_dseg_merge(&r->seg[r->n - 1], &sg);
        return;
    }
    if (r->n == r->cap) {
        if (r->cap >= d->rowcap) { /* too many: merge per cell of a grid twice as wide, until a quarter is free */
            while (r->n > d->rowcap - d->rowcap / 4) {
                double w = r->grid > 0 ? 2 * r->grid : c->end / (double)(d->rowcap / 2);
                r->grid = w > 0 ? w : 1e-9;
                psk_dseg_coalesce(r, r->grid);
            }
        } else {
            size_t cap = r->cap ? 2 * r->cap : 256;
            psk_dseg *a = realloc(r->seg, cap * sizeof *a);
            if (!a) {
                d->status = PSK_ENOMEM;
                return;
            }
            r->seg = a, r->cap = cap;
        }
    }
    r->seg[r->n++] = sg;
}

static void on_message(void *arg, int src, int dst, int64_t bytes)
{
    psk_sim_detail *d = arg;
    if (src < 0 || src >= d->P || dst < 0 || dst >= d->P)
        return;
    size_t k = (size_t)(src / d->block) * (size_t)d->G + (size_t)(dst / d->block);
    d->mbytes[k] += (double)bytes;
    d->mmsgs[k] += 1;
}

void psk_sim_detail_attach(psk_sim_detail *d, psk_sim_opts *o)
{
    o->on_call = on_call;
    o->on_message = on_message;
    o->report_arg = d;
}

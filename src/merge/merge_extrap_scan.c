/* Pass 1 of process-count extrapolation, over each recording: the checks
 * (what cannot be rebuilt at P2 is refused with its event), the tables of
 * the peers that are not constants (to find the grid from), the grid the
 * trace's MPI_Cart_create and MPI_Dims_create recorded, and per event the
 * mean message count and gap over its ranks (what the fit needs). */
#include <stdlib.h>
#include <string.h>

#include "merge_extrap.h"
#include "merge_internal.h"
#include "psk_fn_ids.h"

static const int64_t x_maxdim = 1 << 24; /* a grid's dimension at most */

static int is_sized(const psk_mevent *me, int *f)
{
    if ((me->fields >> PSK_F_COUNT) & 1u)
        *f = PSK_F_COUNT;
    else if ((me->fields >> PSK_F_RCOUNT) & 1u)
        *f = PSK_F_RCOUNT;
    else
        return 0;
    return 1;
}

/* the same int array on every rank taking part, of at most MAXD values:
 * its length, the values in v; else -1 */
int xscan_grid_array(const psk_mevent *me, int f, int *v)
{
    if (!((me->fields >> f) & 1u) || !me->nranks)
        return -1;
    uint32_t n = PSK_ARRN(&me->ev[0], f);
    if (n > MAXD)
        return -1;
    for (int j = 0; j < me->nranks; j++) {
        if (PSK_ARRN(&me->ev[j], f) != n)
            return -1;
        for (uint32_t k = 0; k < n; k++) {
            int64_t a = PSK_ARR(&me->ev[j], f)[k];
            if (a < 0 || a > x_maxdim || a != PSK_ARR(&me->ev[0], f)[k])
                return -1;
            v[k] = (int)a;
        }
    }
    return (int)n;
}

/* pass 1 of the base: the grid of the first MPI_Cart_create over the
 * world (all ranks, in order: pass 1 refuses other members) whose dims
 * multiply to P, and the dims the last MPI_Dims_create(P, ...) that
 * returned them kept fixed */
static void note_grid(xctx *x, const psk_mevent *me)
{
    int a[MAXD], b[MAXD];
    if (me->fn == PSK_FN_Dims_create) {
        int n = xscan_grid_array(me, PSK_F_DIMSIN, a);
        if (n > 0 && xscan_grid_array(me, PSK_F_DIMS, b) == n && me->ev[0].v[PSK_F_I1] == x->P) {
            x->dcn = n;
            memcpy(x->dcin, a, sizeof a);
            memcpy(x->dcout, b, sizeof b);
        }
        return;
    }
    if (me->fn != PSK_FN_Cart_create || x->rnd || me->nranks != x->P)
        return;
    int n = xscan_grid_array(me, PSK_F_DIMS, a);
    long long prod = 1;
    for (int k = 0; k < n; k++)
        prod *= a[k];
    if (n <= 0 || prod != x->P || xscan_grid_array(me, PSK_F_PERIODS, b) != n)
        return;
    for (int k = 0; k < n; k++)
        if (b[k] > 1)
            return;
    x->rnd = n;
    memcpy(x->rD, a, sizeof a);
    memcpy(x->rper, b, sizeof b);
    memset(x->rfixed, 0, sizeof x->rfixed);
    if (x->dcn == n && !memcmp(x->dcout, a, (size_t)n * sizeof *a))
        memcpy(x->rfixed, x->dcin, sizeof x->rfixed);
}

/* walks m: per event mean count and gap (if st), and for the base, the
 * checks and the tables of peers (if pt) */
int xscan_pass1(xctx *x, psk_merged *m, int input, evstat *st, ptable **pt, int *npt)
{
    int P = m->nranks, rc = 0;
    psk_mcursor *c;
    commtab *ct = calloc((size_t)P, sizeof *ct);
    int32_t *crank = malloc((size_t)P * sizeof *crank), *csize = malloc((size_t)P * sizeof *csize);
    uint8_t *seen = pt ? calloc(psk_merged_nclasses(m) + 1, 2) : NULL;
    if (!ct || !crank || !csize || (pt && !seen) || psk_mcursor_open(m, &c)) {
        free(ct), free(crank), free(csize), free(seen);
        return xnomem(x);
    }
    for (int r = 0; r < P && !rc; r++)
        if (commtab_init(&ct[r], r, P))
            rc = xnomem(x);
    int ptcap = 0;
    psk_mevent me;
    while (!rc && (rc = psk_mcursor_next(c, &me)) == PSK_OK) {
        if (st) {
            int f = PSK_F_COUNT;
            double sc = 0, sg = 0;
            int sized = is_sized(&me, &f);
            for (int j = 0; j < me.nranks; j++)
                sc += sized ? (double)me.ev[j].v[f] : 0, sg += (double)me.gap[j];
            st->count[me.index] = me.nranks ? sc / me.nranks : 0;
            st->gap[me.index] = me.nranks ? sg / me.nranks : 0;
        }
        for (int j = 0; j < me.nranks; j++)
            commtab_ctx(&ct[me.ranks[j]], &me.ev[j], &crank[j], &csize[j]);
        if (pt) {
            const char *fn = xfname(me.fn);
            for (int f = PSK_F_PEER; f <= PSK_F_RPEER && !rc; f++) {
                if (!pattern_is_peer(f) || !((me.fields >> f) & 1u) || me.kind[f] == PSK_PAT_CONST ||
                    seen[2 * me.cls + (f == PSK_F_RPEER)])
                    continue;
                seen[2 * me.cls + (f == PSK_F_RPEER)] = 1;
                int world = 1;
                for (int j = 0; j < me.nranks; j++)
                    world &= csize[j] == P;
                if (!world && me.kind[f] != PSK_PAT_TABLE)
                    continue; /* rank + c inside a smaller communicator: kept as it is */
                if (!world) {
                    rc = xrefuse(x, input, "event %llu (%s): %s is a per-rank table on a communicator smaller than the "
                                           "world: it cannot be rebuilt",
                                 (unsigned long long)me.index, fn, psk_field_name(f));
                    break;
                }
                if (*npt == ptcap) {
                    ptcap = ptcap ? 2 * ptcap : 16;
                    ptable *q = realloc(*pt, (size_t)ptcap * sizeof *q);
                    if (!q) {
                        rc = xnomem(x);
                        break;
                    }
                    *pt = q;
                }
                ptable *t = &(*pt)[(*npt)++];
                t->event = me.index;
                t->fn = me.fn;
                t->np = me.nranks;
                t->crank = malloc((size_t)me.nranks * sizeof *t->crank);
                t->v = malloc((size_t)me.nranks * sizeof *t->v);
                if (!t->crank || !t->v) {
                    rc = xnomem(x);
                    break;
                }
                for (int j = 0; j < me.nranks; j++)
                    t->crank[j] = crank[j], t->v[j] = me.ev[j].v[f];
            }
            note_grid(x, &me);
            /* arrays that cannot be rebuilt (a grid's are rebuilt in pass 2) */
            for (int f = PSK_F_FIRST_ARRAY; f < PSK_F_NFIELDS && !rc; f++) {
                if (!((me.fields >> f) & 1u) || f == PSK_F_REQS || f == PSK_F_INDICES || ((PSK_FIELDS_V3 >> f) & 1u))
                    continue;
                for (int j = 0; j < me.nranks && !rc; j++) {
                    uint32_t n = PSK_ARRN(&me.ev[j], f);
                    const int64_t *a = PSK_ARR(&me.ev[j], f);
                    if (!n)
                        continue;
                    if (f == PSK_F_STATUSES) {
                        rc = xrefuse(x, input, "event %llu (%s): wildcard receives' sources are per-rank values: they "
                                               "cannot be rebuilt",
                                     (unsigned long long)me.index, fn);
                        break;
                    }
                    int ok = me.kind[f] == PSK_PAT_CONST;
                    if (f == PSK_F_MEMBERS) {
                        ok &= n == (uint32_t)P;
                        for (uint32_t i = 0; ok && i < n; i++)
                            ok = a[i] == (int64_t)i;
                    } else {
                        ok &= n == (uint32_t)csize[j];
                        for (uint32_t i = 1; ok && i < n; i++)
                            ok = a[i] == a[0];
                    }
                    if (!ok)
                        rc = xrefuse(x, input,
                                     f == PSK_F_MEMBERS
                                         ? "event %llu (%s): the new communicator is not all the ranks in order "
                                           "(its members are a per-rank table): it cannot be rebuilt"
                                         : "event %llu (%s): %s differ per rank or per destination (a table): they "
                                           "cannot be rebuilt",
                                     (unsigned long long)me.index, fn, psk_field_name(f));
                }
            }
        }
        for (int j = 0; j < me.nranks && !rc; j++)
            if (commtab_event(&ct[me.ranks[j]], &me.ev[j], me.ranks[j]))
                rc = xnomem(x);
    }
    if (rc == PSK_EOF)
        rc = 0;
    else if (rc && !x->m2->err[0])
        rc = xrefuse(x, input, "%s", psk_merged_errmsg(m));
    psk_mcursor_close(c);
    for (int r = 0; r < P; r++)
        commtab_free(&ct[r]);
    free(ct), free(crank), free(csize), free(seen);
    return rc;
}

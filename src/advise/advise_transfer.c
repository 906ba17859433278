/* perfskel advise: what moving bytes costs, and the lists that say what
 * moves. A transfer's time is the DVM Predictor's GetCost (its detailed
 * design, 2000, section 4.2) on a bus or a grid, and a switch's, as pinned
 * down in docs/advise.md "Costs"; it is summed message by message in an
 * order that gives the same bits as a scan of a dense P x P matrix, which
 * is never built. What moves is a sparse list of (src, dst, bytes), merged
 * to one message per pair and sorted by (src, dst). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "advise_internal.h"

/* ---- transfer time (GetCost) ---- */

static int64_t node_of(const psk_machine *m, int64_t r)
{
    return r / (m->ranks_per_node > 0 ? m->ranks_per_node : 1);
}

/* hops between two nodes: Manhattan distance of their row-major
 * coordinates on the topology; a node beyond its cells gets them from an
 * unbounded first dimension (a line of nodes without a topology) */
static int64_t hops(const psk_machine *m, int64_t na, int64_t nb)
{
    int64_t d = 0;
    for (int k = m->ntopo - 1; k >= 1; k--) {
        int64_t e = m->topo[k] > 0 ? m->topo[k] : 1;
        int64_t x = na % e - nb % e;
        d += x < 0 ? -x : x;
        na /= e, nb /= e;
    }
    return d + (na > nb ? na - nb : nb - na);
}

static double pipe_time(int64_t l, int64_t L, int64_t S, double ts, double tb)
{
    return (double)(l - 1 + (L + S - 1) / S) * (ts + tb * (double)S);
}

/* min over integer S in 1..L of (l - 1 + ceil(L / S)) (ts + tb S): the
 * best S for each value k of ceil(L / S) is the smallest, ceil(L / k), and
 * those are the S up to sqrt(L) and the ceil(L / k) for k up to sqrt(L) */
static double grid_pipelined(int64_t l, int64_t L, double ts, double tb)
{
    int64_t r = (int64_t)sqrt((double)L);
    while (r * r > L)
        r--;
    while ((r + 1) * (r + 1) <= L)
        r++;
    double best = pipe_time(l, L, L, ts, tb);
    for (int64_t s = 1; s <= r + 1 && s <= L; s++) {
        double v = pipe_time(l, L, s, ts, tb);
        if (v < best)
            best = v;
    }
    for (int64_t k = 1; k <= r + 1 && k <= L; k++) {
        double v = pipe_time(l, L, (L + k - 1) / k, ts, tb);
        if (v < best)
            best = v;
    }
    return best;
}

int psk_adv_xfer_init(adv_xfer *x, int64_t P, const psk_machine *m)
{
    memset(x, 0, sizeof *x);
    x->m = m, x->P = P;
    x->plain = m->ranks_per_node <= 1 && !(m->cost && m->ncost > 0);
    if (m->type == PSK_NET_SWITCH && !(x->acc = calloc((size_t)(P > 0 ? P : 1) * 4, sizeof *x->acc)))
        return PSK_ENOMEM;
    return PSK_OK;
}

void psk_adv_xfer_add(adv_xfer *x, int64_t s, int64_t d, int64_t b)
{
    const psk_machine *m = x->m;
    if (m->type == PSK_NET_GRID) {
        int64_t ns = node_of(m, s), nd = node_of(m, d);
        if (ns == nd) {
            double t = psk_machine_msg_us(m, b, 1);
            if (t > x->intra)
                x->intra = t;
            return;
        }
        int64_t h = hops(m, ns, nd);
        if (h > x->l || (h == x->l && b > x->L))
            x->l = h, x->L = b;
    } else if (m->type == PSK_NET_SWITCH) {
        if (x->plain) { /* psk_machine_msg_us's own expression, inline */
            double t = m->start_us + (double)(b > 0 ? b : 0) * m->byte_us;
            x->acc[s * 4] += t;
            x->acc[d * 4 + 1] += t;
            return;
        }
        int intra = node_of(m, s) == node_of(m, d);
        double t = psk_machine_msg_us(m, b, intra);
        x->acc[s * 4 + (intra ? 2 : 0)] += t;
        x->acc[d * 4 + (intra ? 3 : 1)] += t;
    } else { /* the bus: one transfer at a time */
        x->total += psk_machine_msg_us(m, b, node_of(m, s) == node_of(m, d));
    }
}

/* the time; frees what psk_adv_xfer_init took */
double psk_adv_xfer_end(adv_xfer *x)
{
    const psk_machine *m = x->m;
    double total = 0;
    if (m->type == PSK_NET_GRID) {
        if (x->l == 1)
            total = m->start_us + m->byte_us * (double)x->L;
        else if (x->l > 1)
            total = grid_pipelined(x->l, x->L, m->start_us, m->byte_us);
        return total > x->intra ? total : x->intra;
    }
    if (m->type == PSK_NET_SWITCH) {
        int links = m->links > 0 ? m->links : 1;
        for (int64_t p = 0; p < x->P; p++) {
            const double *a = &x->acc[p * 4];
            double t = (a[0] > a[1] ? a[0] : a[1]) / links;
            if (a[2] > t)
                t = a[2];
            if (a[3] > t)
                t = a[3];
            if (t > total)
                total = t;
        }
        free(x->acc);
        x->acc = NULL;
        return total;
    }
    return x->total;
}

int psk_adv_transfer_list(const adv_msg *v, int64_t n, int64_t P, const psk_machine *m, double *us)
{
    adv_xfer x;
    if (psk_adv_xfer_init(&x, P, m))
        return PSK_ENOMEM;
    for (int64_t i = 0; i < n; i++)
        psk_adv_xfer_add(&x, v[i].src, v[i].dst, v[i].bytes);
    *us = psk_adv_xfer_end(&x);
    return PSK_OK;
}

double psk_adv_transfer_us(const int64_t *t, int64_t P, const psk_machine *m)
{
    int64_t n = 0;
    for (int64_t i = 0; i < P * P; i++)
        n += t[i] > 0 && i / P != i % P;
    adv_msg *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    double us = NAN;
    if (!v)
        return us;
    n = 0;
    for (int64_t s = 0; s < P; s++)
        for (int64_t d = 0; d < P; d++)
            if (s != d && t[s * P + d] > 0)
                v[n++] = (adv_msg){s, d, t[s * P + d]};
    if (psk_adv_transfer_list(v, n, P, m, &us) != PSK_OK)
        us = NAN;
    free(v);
    return us;
}

/* ---- message lists ---- */

/* a transfer of b bytes from s to d; nothing when b <= 0 or s == d */
int psk_adv_mlist_add(adv_mlist *l, int64_t s, int64_t d, int64_t b)
{
    if (b <= 0 || s == d)
        return PSK_OK;
    if (l->n == l->cap) {
        int64_t nc = l->cap ? l->cap * 2 : 64;
        adv_msg *v = realloc(l->v, (size_t)nc * sizeof *v);
        if (!v)
            return PSK_ENOMEM;
        l->v = v, l->cap = nc;
    }
    l->v[l->n++] = (adv_msg){s, d, b};
    return PSK_OK;
}

static int cmp_msg(const void *x, const void *y)
{
    const adv_msg *a = x, *b = y;
    if (a->src != b->src)
        return a->src < b->src ? -1 : 1;
    return (a->dst > b->dst) - (a->dst < b->dst);
}

/* a stable counting sort of v[0..n-1] into out by src (by = 0) or dst
 * (by = 1), ranks below P; cnt: P + 1 entries */
static void ml_count_sort(const adv_msg *v, int64_t n, int64_t P, int by, int64_t *cnt, adv_msg *out)
{
    memset(cnt, 0, ((size_t)P + 1) * sizeof *cnt);
    for (int64_t i = 0; i < n; i++)
        cnt[(by ? v[i].dst : v[i].src) + 1]++;
    for (int64_t r = 0; r < P; r++)
        cnt[r + 1] += cnt[r];
    for (int64_t i = 0; i < n; i++)
        out[cnt[by ? v[i].dst : v[i].src]++] = v[i];
}

/* sorted by (src, dst), one message per pair (their bytes summed): what a
 * P x P matrix of bytes held. Long lists (against P) by two counting
 * sorts (dst, then src: stable), short ones by qsort; the same list. */
int psk_adv_mlist_merge(adv_mlist *l, int64_t P)
{
    int sorted = 1;
    for (int64_t i = 1; i < l->n && sorted; i++)
        sorted = cmp_msg(&l->v[i - 1], &l->v[i]) < 0;
    if (sorted)
        return PSK_OK;
    if (l->n * 4 > P) {
        int64_t *cnt = malloc(((size_t)P + 1) * sizeof *cnt);
        adv_msg *tmp = malloc((size_t)l->n * sizeof *tmp);
        if (!cnt || !tmp) {
            free(cnt), free(tmp);
            return PSK_ENOMEM;
        }
        ml_count_sort(l->v, l->n, P, 1, cnt, tmp);
        ml_count_sort(tmp, l->n, P, 0, cnt, l->v);
        free(cnt), free(tmp);
    } else {
        qsort(l->v, (size_t)l->n, sizeof *l->v, cmp_msg);
    }
    int64_t k = 0;
    for (int64_t i = 0; i < l->n; i++) {
        if (k && l->v[k - 1].src == l->v[i].src && l->v[k - 1].dst == l->v[i].dst)
            l->v[k - 1].bytes += l->v[i].bytes;
        else
            l->v[k++] = l->v[i];
    }
    l->n = k;
    return PSK_OK;
}

void psk_adv_mlist_count(const adv_mlist *l, int64_t *msgs, int64_t *bytes)
{
    for (int64_t i = 0; i < l->n; i++)
        *msgs += 1, *bytes += l->v[i].bytes;
}

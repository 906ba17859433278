/* Summarised times (`merge --times mean`, docs/merged-format.md): instead
 * of every rank's gap and duration of every event, the merged file keeps
 * per merged event the mean gap and mean duration over the ranks taking
 * part, and per rank one factor scaling its gaps (its compute over the
 * compute the means give it). The file then no longer grows with the
 * ranks' count; reading it gives every rank synthetic times from the means,
 * so everything downstream works unchanged, on a lossy trace. */
#include <math.h>
#include <stdlib.h>

#include "merge_internal.h"
#include "psk_varint.h"

#define FACTOR_ONE 65536.0 /* a rank's factor in 1/65536ths */
#define FACTOR_MAX (1ull << 40)

static int put_u(mbuf *b, uint64_t v)
{
    if (mbuf_reserve(b, PSK_VARINT_MAX))
        return -1;
    b->len = (size_t)(psk_put_uvar(b->p + b->len, v) - b->p);
    return 0;
}

static int put_s(mbuf *b, int64_t v)
{
    if (mbuf_reserve(b, PSK_VARINT_MAX))
        return -1;
    b->len = (size_t)(psk_put_svar(b->p + b->len, v) - b->p);
    return 0;
}

int tsum_encode(psk_merged *m, mbuf *out)
{
    int P = m->nranks, rc = -1;
    size_t *pos = calloc((size_t)P + 1, sizeof *pos);
    double *own = calloc((size_t)P + 1, sizeof *own), *mean = calloc((size_t)P + 1, sizeof *mean);
    if (!pos || !own || !mean)
        goto done;
    rc = 0;
    if (put_u(out, m->n))
        rc = -1;
    for (uint64_t i = 0; i < m->n && !rc; i++) {
        int np;
        const int32_t *ranks = psk_merged_class_ranks(m, m->cls[i], &np);
        double sg = 0, sd = 0;
        for (int j = 0; j < np; j++) {
            mbuf *t = &m->rank[ranks[j]].times;
            const uint8_t *p = t->p + pos[ranks[j]];
            int64_t gap;
            uint64_t dur;
            if (psk_get_svar(&p, t->p + t->len, &gap) || psk_get_uvar(&p, t->p + t->len, &dur)) {
                rc = -2; /* a rank's times end early: the object is broken */
                break;
            }
            pos[ranks[j]] = (size_t)(p - t->p);
            sg += (double)gap;
            sd += (double)dur;
            own[ranks[j]] += gap > 0 ? (double)gap : 0;
        }
        int64_t g = np ? llround(sg / np) : 0;
        for (int j = 0; j < np; j++)
            mean[ranks[j]] += g > 0 ? (double)g : 0;
        if (!rc && (put_s(out, g) || put_u(out, np ? (uint64_t)llround(sd / np) : 0)))
            rc = -1;
    }
    if (!rc && put_u(out, (uint64_t)P))
        rc = -1;
    for (int r = 0; r < P && !rc; r++) {
        double f = mean[r] > 0 ? own[r] / mean[r] * FACTOR_ONE : FACTOR_ONE;
        if (put_u(out, f < (double)FACTOR_MAX ? (uint64_t)llround(f) : FACTOR_MAX))
            rc = -1;
    }
done:
    free(pos);
    free(own);
    free(mean);
    return rc;
}

int tsum_decode(psk_merged *m, const uint8_t *p, const uint8_t *end)
{
    uint64_t n, P;
    if (psk_get_uvar(&p, end, &n) || n != m->n || n > (uint64_t)(end - p) / 2)
        return -1;
    const uint8_t *ev = p; /* the means, read again after the factors */
    for (uint64_t i = 0; i < n; i++) {
        int64_t g;
        uint64_t d;
        if (psk_get_svar(&p, end, &g) || psk_get_uvar(&p, end, &d) || d > (1ull << 62) ||
            g > (int64_t)(1ll << 62) || g < -(int64_t)(1ll << 62))
            return -1;
    }
    if (psk_get_uvar(&p, end, &P) || P != (uint64_t)m->nranks)
        return -1;
    double *f = malloc(((size_t)P + 1) * sizeof *f);
    uint64_t *cnt = calloc((size_t)P + 1, sizeof *cnt);
    if (!f || !cnt)
        return free(f), free(cnt), -2;
    for (uint64_t r = 0; r < P; r++) {
        uint64_t v;
        if (psk_get_uvar(&p, end, &v) || v > FACTOR_MAX)
            return free(f), free(cnt), -1;
        f[r] = (double)v / FACTOR_ONE;
    }
    if (p != end)
        return free(f), free(cnt), -1;
    int rc = 0;
    for (uint64_t i = 0; i < n && !rc; i++) {
        int64_t g = 0;
        uint64_t d = 0;
        psk_get_svar(&ev, end, &g); /* checked above */
        psk_get_uvar(&ev, end, &d);
        int np;
        const int32_t *ranks = psk_merged_class_ranks(m, m->cls[i], &np);
        for (int j = 0; j < np && !rc; j++) {
            mrank *mr = &m->rank[ranks[j]];
            /* positive gaps (compute) scale with the rank's factor */
            double x = g > 0 ? (double)g * f[ranks[j]] : (double)g;
            int64_t rg = x < 0x1p62 ? llround(x) : (int64_t)1 << 62;
            cnt[ranks[j]]++;
            if (put_s(&mr->times, rg) || put_u(&mr->times, d))
                rc = -2;
        }
    }
    /* every rank gets as many times as it has events */
    for (uint64_t r = 0; r < P && !rc; r++)
        if (cnt[r] != m->rank[r].n)
            rc = -1;
    free(f);
    free(cnt);
    return rc;
}

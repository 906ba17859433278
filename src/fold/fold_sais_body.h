/* The body of SA-IS (fold_sais.c) for one type of symbol: included there
 * once per type with SYM the type and FN(name) the name of each function
 * for it (the reduced string, int32_t, is sorted through sais_any: from a
 * narrow copy too if it is long and its names few). */

/* L pass: from the LMS suffixes (x > 0 each, at their buckets' ends), the
 * L suffixes in order; b: bucket starts */
static inline void FN(induce_l)(const SYM *T, int32_t *SA, int32_t n, int32_t *b, int plain)
{
    /* the suffix before the sentinel is L type: it comes first in its bucket */
    int32_t j = n - 1;
    SA[b[T[j]]++] = j > 0 && T[j - 1] >= T[j] ? j : ~j;
    for (int32_t i = 0; i < n; i++) {
        if (i + AHEAD < n) {
            int32_t y = SA[i + AHEAD];
            if (y > 0)
                __builtin_prefetch(&T[y - 1]);
        }
        int32_t x = SA[i];
        if (x > 0) {
            j = x - 1;
            int32_t c = T[j];
            int32_t v = j > 0 && T[j - 1] >= c ? j : ~j;
            if (v > 0) /* read again soon, maybe before AHEAD */
                __builtin_prefetch(&T[v - 1]);
            SA[b[c]++] = v;
            if (!plain)
                SA[i] = 0;
        }
    }
}

/* S pass, right to left; b: bucket ends */
static inline void FN(induce_s)(const SYM *T, int32_t *SA, int32_t n, int32_t *b, int plain)
{
    for (int32_t i = n - 1; i >= 0; i--) {
        if (i >= AHEAD) {
            int32_t y = SA[i - AHEAD];
            if (y < -1)
                __builtin_prefetch(&T[~y - 1]);
        }
        int32_t x = SA[i];
        if (x < 0) {
            x = ~x;
            SA[i] = plain ? x : 0;
            if (x > 0) {
                int32_t j = x - 1, c = T[j];
                int32_t v = j > 0 && T[j - 1] <= c ? ~j : j;
                if (v < -1)
                    __builtin_prefetch(&T[~v - 1]);
                SA[--b[c]] = v;
            }
        }
    }
}

static int FN(sais)(const SYM *T, int32_t *SA, int32_t n, int32_t k)
{
    if (n == 0)
        return 0;
    if (n == 1) {
        SA[0] = 0;
        return 0;
    }
    int32_t *cnt = psk_big_alloc((size_t)k * sizeof *cnt), *b = psk_big_alloc((size_t)k * sizeof *b);
    if (!cnt || !b) {
        free(cnt), free(b);
        return -1;
    }
    memset(cnt, 0, (size_t)k * sizeof *cnt);
    for (int32_t i = 0; i < n; i++)
        cnt[T[i]]++;
    /* stage 1: LMS suffixes into their buckets' ends (types from the
     * right: T[n-1] is L, the sentinel being smaller), induce */
    for (int32_t i = 0; i < n; i++)
        SA[i] = 0;
    buckets(cnt, b, k, 1);
    int32_t m = 0;
    for (int32_t i = n - 2, snext = 0; i >= 0; i--) {
        int si = T[i] < T[i + 1] || (T[i] == T[i + 1] && snext);
        if (!si && snext) {
            SA[--b[T[i + 1]]] = i + 1;
            m++;
        }
        snext = si;
    }
    buckets(cnt, b, k, 0);
    FN(induce_l)(T, SA, n, b, 0);
    buckets(cnt, b, k, 1);
    FN(induce_s)(T, SA, n, b, 0);
    /* the LMS substrings, sorted, to the front */
    for (int32_t i = 0, j = 0; i < n; i++)
        if (SA[i] > 0)
            SA[j++] = SA[i];
    /* each one's length to SA[m + p / 2] (LMS positions are at least 2
     * apart), the last one's (it holds the sentinel: like no other) n + 1;
     * two are equal if their lengths and symbols are (their types follow) */
    for (int32_t i = m; i < n; i++)
        SA[i] = -1;
    for (int32_t i = n - 2, snext = 0, q = n; i >= 0; i--) {
        int si = T[i] < T[i + 1] || (T[i] == T[i + 1] && snext);
        if (!si && snext) {
            SA[m + (i + 1) / 2] = q == n ? n + 1 : q - i;
            q = i + 1;
        }
        snext = si;
    }
    int32_t name = 0, prev = -1, plen = 0;
    for (int32_t i = 0; i < m; i++) {
        if (i + AHEAD < m) {
            int32_t y = SA[i + AHEAD];
            __builtin_prefetch(&T[y]);
            __builtin_prefetch(&SA[m + y / 2]);
        }
        int32_t pos = SA[i], len = SA[m + pos / 2], d = 0;
        if (len == plen && len <= n)
            while (d < len && T[pos + d] == T[prev + d])
                d++;
        if (prev < 0 || len != plen || len > n || d < len) {
            name++;
            prev = pos;
            plen = len;
        }
        SA[m + pos / 2] = name - 1;
    }
    /* the reduced string: names in text order, packed at the end of SA
     * (m <= n / 2: its suffix array fits before it, in SA[0, m)) */
    int32_t *s1 = SA + n - m, *sa1 = SA;
    for (int32_t i = n - 1, j = n - 1; i >= m; i--)
        if (SA[i] >= 0)
            SA[j--] = SA[i];
    /* stage 2: sort the LMS suffixes, recursing if names repeat */
    if (name < m) {
        if (sais_any(s1, sa1, m, name)) {
            free(cnt), free(b);
            return -1;
        }
    } else {
        for (int32_t i = 0; i < m; i++)
            sa1[s1[i]] = i;
    }
    /* stage 3: LMS positions in sorted order, then induce everything */
    for (int32_t i = n - 2, snext = 0, j = m; i >= 0; i--) {
        int si = T[i] < T[i + 1] || (T[i] == T[i + 1] && snext);
        if (!si && snext)
            s1[--j] = i + 1; /* s1 now: the j-th LMS position */
        snext = si;
    }
    for (int32_t i = 0; i < m; i++) {
        if (i + AHEAD < m)
            __builtin_prefetch(&s1[sa1[i + AHEAD]]);
        sa1[i] = s1[sa1[i]];
    }
    for (int32_t i = m; i < n; i++)
        SA[i] = 0;
    buckets(cnt, b, k, 1);
    /* the i-th LMS suffix goes to position i or later: moved from the
     * last, none is overwritten before it moves */
    for (int32_t i = m - 1; i >= 0; i--) {
        if (i >= AHEAD)
            __builtin_prefetch(&T[sa1[i - AHEAD]]);
        int32_t j = sa1[i];
        SA[i] = 0;
        SA[--b[T[j]]] = j;
    }
    buckets(cnt, b, k, 0);
    FN(induce_l)(T, SA, n, b, 1);
    buckets(cnt, b, k, 1);
    FN(induce_s)(T, SA, n, b, 1);
    free(cnt), free(b);
    return 0;
}

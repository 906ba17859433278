/* One event in its encoded form (docs/trace-format.md: fn, gap, duration,
 * then the fields of the function in field order, unsigned ones as plain
 * varints, others zigzag), for the trace writer and for stages that keep
 * events in memory. */
#include "psk_varint.h"
#include "trace_format.h"

static size_t nvalues(int f, uint32_t n) { return f == PSK_F_STATUSES ? 3 * (size_t)n : n; }

size_t psk_event_encoded_max(const psk_event *ev)
{
    uint32_t fields = psk_fn_fields(ev->fn);
    if (!(fields >> PSK_F_FIRST_ARRAY)) /* scalars only: the common case */
        return (size_t)(3 + PSK_F_FIRST_ARRAY) * PSK_VARINT_MAX;
    size_t s = (size_t)(3 + PSK_F_NFIELDS) * PSK_VARINT_MAX;
    for (int f = PSK_F_FIRST_ARRAY; f < PSK_F_NFIELDS; f++)
        if ((fields >> f) & 1u)
            s += PSK_VARINT_MAX * nvalues(f, PSK_ARRN(ev, f));
    return s;
}

uint8_t *psk_event_encode(uint8_t *p, const psk_event *ev, int64_t gap)
{
    return psk_event_encode_fields(p, ev, gap, psk_fn_fields(ev->fn));
}

uint8_t *psk_event_encode_fields(uint8_t *p, const psk_event *ev, int64_t gap, uint32_t fields)
{
    p = psk_put_uvar(p, ev->fn);
    p = psk_put_svar(p, gap);
    p = psk_put_uvar(p, ev->t_exit - ev->t_entry);
    for (uint32_t fs = fields; fs; fs &= fs - 1) {
        int f = __builtin_ctz(fs);
        int u = (PSK_FIELDS_UNSIGNED >> f) & 1u;
        if (f < PSK_F_FIRST_ARRAY) {
            p = u ? psk_put_uvar(p, (uint64_t)ev->v[f]) : psk_put_svar(p, ev->v[f]);
            continue;
        }
        uint32_t n = PSK_ARRN(ev, f);
        const int64_t *a = PSK_ARR(ev, f);
        p = psk_put_uvar(p, n);
        for (size_t i = 0; i < nvalues(f, n); i++)
            p = u ? psk_put_uvar(p, (uint64_t)a[i]) : psk_put_svar(p, a[i]);
    }
    return p;
}

/* Unit tests of the LEB128 varints and zigzag mapping (psk_varint.h):
 * encoded lengths at each 7-bit boundary, signed round trips, overlong
 * encodings refused, and sequences read back in order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "psk_varint.h"

static void roundtrip_u(uint64_t v, size_t want_len)
{
    uint8_t buf[PSK_VARINT_MAX];
    uint8_t *end = psk_put_uvar(buf, v);
    assert_int_equal((size_t)(end - buf), want_len);
    const uint8_t *p = buf;
    uint64_t got = ~v;
    assert_int_equal(psk_get_uvar(&p, end, &got), 0);
    assert_true(got == v);
    assert_ptr_equal(p, end);
    /* every shorter slice ends inside the varint */
    for (size_t n = 0; n < want_len; n++) {
        const uint8_t *q = buf;
        assert_int_equal(psk_get_uvar(&q, buf + n, &got), -1);
        assert_ptr_equal(q, buf);
    }
}

static void test_unsigned_lengths(void **state)
{
    (void)state;
    roundtrip_u(0, 1);
    roundtrip_u(1, 1);
    roundtrip_u(127, 1);
    roundtrip_u(128, 2);
    roundtrip_u(16383, 2);
    roundtrip_u(16384, 3);
    roundtrip_u(UINT32_MAX, 5);
    roundtrip_u((uint64_t)1 << 63, 10);
    roundtrip_u(UINT64_MAX, 10);
    for (int s = 0; s < 64; s++)
        roundtrip_u((uint64_t)1 << s, (size_t)(s / 7 + 1));
}

static void test_zigzag(void **state)
{
    (void)state;
    assert_true(psk_zigzag(0) == 0);
    assert_true(psk_zigzag(-1) == 1);
    assert_true(psk_zigzag(1) == 2);
    assert_true(psk_zigzag(-2) == 3);
    assert_true(psk_zigzag(INT64_MAX) == UINT64_MAX - 1);
    assert_true(psk_zigzag(INT64_MIN) == UINT64_MAX);
    const int64_t vals[] = {0, 1, -1, 63, -64, 64, -65, 1000000, -1000000,
                            -32766, INT32_MIN, INT32_MAX, INT64_MIN, INT64_MAX};
    for (size_t i = 0; i < sizeof vals / sizeof *vals; i++) {
        uint8_t buf[PSK_VARINT_MAX];
        uint8_t *end = psk_put_svar(buf, vals[i]);
        const uint8_t *p = buf;
        int64_t got = 0;
        assert_int_equal(psk_get_svar(&p, end, &got), 0);
        assert_true(got == vals[i]);
        assert_ptr_equal(p, end);
    }
    /* small negative constants stay one byte */
    uint8_t buf[PSK_VARINT_MAX];
    assert_int_equal(psk_put_svar(buf, -1) - buf, 1);
    assert_int_equal(psk_put_svar(buf, -3) - buf, 1);
}

static void test_overlong_rejected(void **state)
{
    (void)state;
    uint8_t buf[12];
    for (int i = 0; i < 11; i++)
        buf[i] = 0x80;
    buf[11] = 0;
    const uint8_t *p = buf;
    uint64_t v;
    assert_int_equal(psk_get_uvar(&p, buf + sizeof buf, &v), -1);
    assert_ptr_equal(p, buf);
}

static void test_sequence(void **state)
{
    (void)state;
    uint8_t buf[10000 * PSK_VARINT_MAX], *w = buf;
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 10000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        w = (i & 1) ? psk_put_svar(w, (int64_t)(x >> (i % 64))) : psk_put_uvar(w, x >> (i % 64));
    }
    const uint8_t *p = buf;
    x = 88172645463325252ull;
    for (int i = 0; i < 10000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        if (i & 1) {
            int64_t s;
            assert_int_equal(psk_get_svar(&p, w, &s), 0);
            assert_true(s == (int64_t)(x >> (i % 64)));
        } else {
            uint64_t u;
            assert_int_equal(psk_get_uvar(&p, w, &u), 0);
            assert_true(u == x >> (i % 64));
        }
    }
    assert_ptr_equal(p, w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unsigned_lengths),
        cmocka_unit_test(test_zigzag),
        cmocka_unit_test(test_overlong_rejected),
        cmocka_unit_test(test_sequence),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

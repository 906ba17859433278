/* Unit tests of the work kernel's arithmetic (psk_work.h): how many units
 * a timed piece of work runs (psk_work_units), which every skeleton uses.
 * Random seed 4489 (MPICH, 1 rank) hung in a skeleton's compute when the
 * clock's cost, timed while the rank was descheduled, exceeded half the
 * work: the unit count went negative and was converted to a huge one. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "psk_work.h"

static void test_units_plain(void **state)
{
    (void)state;
    assert_true(psk_work_units(1e6, 30, 2) == 499970);  /* (1e6 - 2 x 30) / 2 */
    assert_true(psk_work_units(1e6, 0, 2) == 500000);
    assert_true(psk_work_units(20000, 0, 1.5) == 13333);
}

static void test_units_never_runaway(void **state)
{
    (void)state;
    /* a clock reading timed at 20 us (the rank descheduled meanwhile)
     * against 20 us of work: nothing to run, not 2^63 units */
    assert_true(psk_work_units(20000, 20000, 1.2) == 0);
    assert_true(psk_work_units(20000, 1e7, 1.2) == 0);
    assert_true(psk_work_units(0, 0, 1.2) == 0);
    assert_true(psk_work_units(-5, 0, 1.2) == 0);
    assert_true(psk_work_units(1e6, -1e9, 1.2) == psk_work_units(1e6, 0, 1.2)); /* a negative cost is none */
    assert_true(psk_work_units(NAN, 0, 1.2) == 0);
    assert_true(psk_work_units(1e6, NAN, 2) == 500000);
    assert_true(psk_work_units(1e6, 0, 0) == 0);
    assert_true(psk_work_units(1e6, 0, NAN) == 0);
    assert_true(psk_work_units(1e300, 0, 1e-300) > 0); /* bounded, not undefined */
    /* over many random inputs: never more than the work alone asks for */
    uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < 100000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double want = (double)(x % 100000000) * ((x >> 40) % 3 ? 1 : -1);
        double clk = (double)((x >> 8) % 2000000) - 1000000.0;
        double unit = (double)((x >> 20) % 10000 + 1) / 100.0;
        uint64_t n = psk_work_units(want, clk, unit);
        double most = want > 0 ? want / unit + 1 : 0;
        assert_true((double)n <= most);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_units_plain),
        cmocka_unit_test(test_units_never_runaway),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The fit of process-count extrapolation (src/merge/merge_extrap_rule.c)
 * against its oracle: values drawn exactly from a*P^b or a + b/P at three
 * random rank counts must be recognised as that model and extrapolated to
 * its exact value at P2; equal values are constant; with two points a*P^b
 * is kept; and the strong rule's factors. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "merge_extrap.h"

static uint64_t rng = 88172645463325252ull;
static double urand(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static void test_models(void **state)
{
    (void)state;
    for (int t = 0; t < 5000; t++) {
        double P[3], y[3];
        int n = 3, model;
        P[0] = 1 + (int)(urand() * 8);
        P[1] = P[0] * (2 + (int)(urand() * 3));
        P[2] = P[1] * (2 + (int)(urand() * 3));
        double P2 = P[2] * (1 + (int)(urand() * 16)), a = 1 + urand() * 1e5, b;
        int power = t % 2;
        if (power) {
            do
                b = urand() * 3 - 1.5;
            while (fabs(b) < 0.05);
            for (int i = 0; i < n; i++)
                y[i] = a * pow(P[i], b);
        } else {
            b = (urand() * 2 - 0.5) * a * P[0]; /* y stays > 0 */
            if (fabs(b) < 0.05 * a)
                b = a;
            for (int i = 0; i < n; i++)
                y[i] = a + b / P[i];
        }
        double f = xrule_fit(P, y, n, P[2], P2, &model);
        double want = power ? a * pow(P2, b) : a + b / P2;
        assert_int_equal(model, power ? XM_POWER : XM_INVERSE);
        if (want > 0)
            assert_true(fabs(f * y[2] - want) <= 1e-6 * fabs(want) + 1e-9);
        /* two points: both models fit, a*P^b is kept */
        double f2 = xrule_fit(P, y, 2, P[1], P2, &model);
        assert_int_equal(model, XM_POWER);
        double b2 = log(y[1] / y[0]) / log(P[1] / P[0]);
        assert_true(fabs(f2 - pow(P2 / P[1], b2)) <= 1e-9 * f2);
    }
    double P[3] = {2, 4, 8}, y[3] = {7, 7, 7};
    int model;
    assert_true(xrule_fit(P, y, 3, 8, 64, &model) == 1);
    assert_int_equal(model, XM_CONST);
}

static void test_strong(void **state)
{
    (void)state;
    xrule r = {.scale = PSK_SCALE_STRONG, .P = 4, .P2 = 16, .nd = 2};
    assert_true(fabs(xrule_gap_factor(&r, 0) - 0.25) < 1e-12);
    assert_true(fabs(xrule_count_factor(&r, 0, XC_NEIGHBOUR) - 0.5) < 1e-12); /* (1/4)^(1/2) */
    assert_true(fabs(xrule_count_factor(&r, 0, XC_P2P) - 0.25) < 1e-12);
    assert_true(fabs(xrule_count_factor(&r, 0, XC_ALLTOALL) - 0.0625) < 1e-12);
    assert_true(xrule_count_factor(&r, 0, XC_REDUCE) == 1);
    r.nd = 1;
    assert_true(xrule_count_factor(&r, 0, XC_NEIGHBOUR) == 1);
    xrule w = {.scale = PSK_SCALE_WEAK, .P = 4, .P2 = 16, .nd = 3};
    assert_true(xrule_gap_factor(&w, 0) == 1 && xrule_count_factor(&w, 0, XC_GATHER) == 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_models), cmocka_unit_test(test_strong)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

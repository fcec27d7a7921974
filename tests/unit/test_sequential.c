/*
 * Unit tests of the group-sequential boundaries (stats/sequential.c) against
 * published Lan-DeMets values and a Monte Carlo of the crossing probability.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "base/rng.h"
#include "stats/compare_seq.h"
#include "stats/sequential.h"
#include "stats/stats.h"
#include "test.h"

/*
 * Five equally spaced looks at one-sided alpha 0.025, as tabulated by gsDesign (sfLDOF,
 * sfLDPocock; Anderson, gsDesign manual, and Jennison and Turnbull 2000, table 7.6):
 * O'Brien-Fleming type 4.877 3.357 2.680 2.290 2.031; Pocock type 2.438 2.427 2.410 2.397 2.386.
 */
static void test_published_bounds(void)
{
    const double t[5] = {0.2, 0.4, 0.6, 0.8, 1.0};
    const double obf[5] = {4.877, 3.357, 2.680, 2.290, 2.031};
    const double poc[5] = {2.438, 2.427, 2.410, 2.397, 2.386};
    double c[5];
    CHECK_INT(seq_bounds(SEQ_SPEND_OBF, 0.025, t, 5, c), 0);
    for (int i = 0; i < 5; i++) {
        CHECK_NEAR(c[i], obf[i], 0.005);
        if (fabs(c[i] - obf[i]) > 0.005)
            fprintf(stderr, "  obf look %d: %.4f, published %.3f\n", i + 1, c[i], obf[i]);
    }
    CHECK_INT(seq_bounds(SEQ_SPEND_POCOCK, 0.025, t, 5, c), 0);
    for (int i = 0; i < 5; i++) {
        CHECK_NEAR(c[i], poc[i], 0.005);
        if (fabs(c[i] - poc[i]) > 0.005)
            fprintf(stderr, "  pocock look %d: %.4f, published %.3f\n", i + 1, c[i], poc[i]);
    }
    /* one look is the fixed test */
    {
        double one = 1.0;
        CHECK_INT(seq_bounds(SEQ_SPEND_OBF, 0.05, &one, 1, c), 0);
        CHECK_NEAR(c[0], 1.644854, 1e-5);
    }
    CHECK_NEAR(seq_spent(SEQ_SPEND_OBF, 0.05, 1), 0.05, 1e-12);
    CHECK_NEAR(seq_spent(SEQ_SPEND_POCOCK, 0.05, 0.5), 0.05 * log(1 + (exp(1) - 1) * 0.5), 1e-12);
    CHECK_NEAR(seq_nominal(1.959964), 0.025, 1e-6);
    CHECK_INT(seq_bounds(SEQ_SPEND_OBF, 0.05, t, 0, c), -1);
    {
        const double bad[2] = {0.5, 0.5};
        CHECK_INT(seq_bounds(SEQ_SPEND_OBF, 0.05, bad, 2, c), -1);
    }
}

/*
 * Unequal looks (as a gate's rounds are when the golden set ends mid-round): the chance that
 * a null random walk ever crosses is alpha, measured over 200000 paths (SE 0.0005).
 */
static void test_crossing_rate(void)
{
    const double t[7] = {0.1, 0.2, 0.35, 0.5, 0.7, 0.9, 1.0};
    double c[7];
    for (int f = 0; f < 2; f++) {
        uint64_t s = 42;
        int crossed = 0, n = 200000;
        CHECK_INT(seq_bounds((enum seq_spending)f, 0.05, t, 7, c), 0);
        for (int p = 0; p < n; p++) {
            double b = 0, prev = 0;
            for (int j = 0; j < 7; j++) {
                double u1 = rng_unit(rng_splitmix64(&s)), u2 = rng_unit(rng_splitmix64(&s));
                double z = sqrt(-2 * log(u1 + 1e-300)) * cos(2 * M_PI * u2);
                b += z * sqrt(t[j] - prev);
                prev = t[j];
                if (b / sqrt(t[j]) >= c[j]) {
                    crossed++;
                    break;
                }
            }
        }
        CHECK(fabs((double)crossed / n - 0.05) < 0.002);
        if (fabs((double)crossed / n - 0.05) >= 0.002)
            fprintf(stderr, "  %s: crossed %.4f\n", seq_spending_name((enum seq_spending)f),
                    (double)crossed / n);
    }
}

/* The gate's levels (compare_seq.h): one look is the fixed design's levels; later looks at the
   spending function's boundaries, FAIL per test at alpha / m with Holm at m times its nominal */
static void test_look_levels(void)
{
    double one = 1.0, t[4] = {0.25, 0.5, 0.75, 1.0}, c[4];
    struct compare_look lv;
    compare_look_levels(SEQ_SPEND_POCOCK, 0.05, &one, 0, 3, &lv);
    CHECK_NEAR(lv.fail_alpha, 0.05, 1e-9);
    CHECK_NEAR(lv.bound_alpha, 0.05, 1e-9);
    CHECK_NEAR(lv.bound_z, 1.644854, 1e-5);
    CHECK(lv.primary_tests == 3);
    compare_look_levels(SEQ_SPEND_POCOCK, 0.05, t, 2, 3, &lv);
    seq_bounds(SEQ_SPEND_POCOCK, 0.05 / 3, t, 3, c);
    CHECK_NEAR(lv.fail_z, c[2], 1e-12);
    CHECK_NEAR(lv.fail_alpha, 3 * seq_nominal(c[2]), 1e-12);
    seq_bounds(SEQ_SPEND_POCOCK, 0.05, t, 3, c);
    CHECK_NEAR(lv.bound_z, c[2], 1e-12);
    CHECK(lv.bound_alpha < 0.05 && lv.fail_alpha < 0.05); /* stricter than one look */
    {
        struct compare_options o;
        compare_options_init(&o);
        compare_look_apply(&lv, &o);
        CHECK(o.alpha == lv.fail_alpha && o.bound_alpha == lv.bound_alpha);
    }
    /* m = 0 (no primary test with data) plans as one test */
    compare_look_levels(SEQ_SPEND_OBF, 0.05, &one, 0, 0, &lv);
    CHECK(lv.primary_tests == 1);
    CHECK_NEAR(lv.fail_alpha, 0.05, 1e-9);
}

int main(void)
{
    RUN(test_published_bounds);
    RUN(test_crossing_rate);
    RUN(test_look_levels);
    return TEST_EXIT();
}

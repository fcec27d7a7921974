/*
 * Unit tests of the group-sequential boundaries (stats/sequential.c) against
 * published Lan-DeMets values and a Monte Carlo of the crossing probability.
 */
#include <stdint.h>
#include <math.h>
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
/* Betting tests are valid at every look at once: every look runs at the whole alpha. */
static void test_look_levels(void)
{
    double t[4] = {0.25, 0.5, 0.75, 1.0};
    struct compare_look lv;
    compare_look_levels(SEQ_SPEND_POCOCK, 0.05, t, 2, 3, &lv);
    CHECK_NEAR(lv.fail_alpha, 0.05, 1e-15);
    CHECK_NEAR(lv.bound_alpha, 0.05, 1e-15);
    CHECK(lv.fail_z >= SEQ_NEVER && lv.bound_z >= SEQ_NEVER);
    CHECK(lv.primary_tests == 3);
    {
        struct compare_options o;
        compare_options_init(&o);
        compare_look_apply(&lv, &o);
        CHECK(o.alpha == lv.fail_alpha && o.bound_alpha == lv.bound_alpha);
    }
    /* m = 0 (no primary test with data) plans as one test */
    compare_look_levels(SEQ_SPEND_OBF, 0.05, t, 0, 0, &lv);
    CHECK(lv.primary_tests == 1);
}

/* Bounds bracket the mean and tighten with questions; p-values fall with the evidence. */
static void test_betting_bounds(void)
{
    double x[400];
    for (int i = 0; i < 400; i++)
        x[i] = (i % 10 == 0) ? 1.0 : 0.0; /* mean 0.1 */
    double u100 = seq_bet_bound(x, 100, 1.0, SEQ_BELOW, 0.05);
    double u400 = seq_bet_bound(x, 400, 1.0, SEQ_BELOW, 0.05);
    double l400 = seq_bet_bound(x, 400, 1.0, SEQ_ABOVE, 0.05);
    CHECK(u100 > 0.1 && u400 > 0.1 && u400 < u100 && u400 < 0.2);
    CHECK(l400 < 0.1 && l400 > 0.0);
    CHECK(seq_bet_p(x, 400, 1.0, 0.0, SEQ_ABOVE, 0.05) < 0.05);
    CHECK(seq_bet_p(x, 400, 1.0, 0.1, SEQ_ABOVE, 0.05) > 0.05);
    CHECK(seq_bet_p(x, 0, 1.0, 0.0, SEQ_ABOVE, 0.05) == 1.0);
    CHECK(seq_bet_bound(x, 0, 2.0, SEQ_BELOW, 0.05) == 2.0);
}

/*
 * The skew, exactly: the candidate loses whole questions (x = 1) with probability
 * p = the tolerance, every other question identical (x = 0), so the true drop equals the
 * tolerance and PASS (the upper bound below it) is an error. Every one of the 2^n sequences
 * is enumerated with its probability: n = 22, tolerance 0.25 (small enough to enumerate,
 * large enough that PASS is reachable: all zeros PASS). The exact chance that PASS is ever
 * claimed, at any question up to n (the first rejection over every prefix, which is what
 * a stopped gate or a later compare sees), is at most alpha.
 */
static void test_skew_pass_exact(void)
{
    enum { N = 22 };
    const double tol = 0.25, alpha = 0.05;
    double x[N], err_any = 0.0, zeros_pass = 0.0;
    for (unsigned long m = 0; m < (1UL << N); m++) {
        int k = 0;
        for (int i = 0; i < N; i++) {
            x[i] = (double)((m >> i) & 1);
            k += (int)x[i];
        }
        double pr = pow(tol, k) * pow(1.0 - tol, N - k);
        /* PASS at some look = the test of "mean >= tol" rejects by question N */
        size_t hit = seq_bet_first_reject(x, N, 1.0, tol, SEQ_BELOW, alpha, N);
        if (hit)
            err_any += pr;
        if (!m)
            zeros_pass = hit ? 1.0 : 0.0;
    }
    CHECK(zeros_pass == 1.0);
    CHECK(err_any <= alpha);
    printf("  exact P(PASS at any look | skewed drop = tolerance), n %d: %.5f\n", N, err_any);
}

int main(void)
{
    RUN(test_published_bounds);
    RUN(test_crossing_rate);
    RUN(test_look_levels);
    RUN(test_betting_bounds);
    RUN(test_skew_pass_exact);
    return TEST_EXIT();
}

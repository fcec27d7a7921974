/* Unit tests for power.c: the normal model of compare's rule against hand-computed values. */
#include "stats/power.h"
#include "base/strbuf.h"

#include "test.h"

/*
 * One cell, fixed discordance 0.2, drop 0.1, 100 questions, no tolerance.
 * Per question d = +1 w.p. 0.15, -1 w.p. 0.05: E = 0.1, Var = 0.19. T ~
 * N(10, 19); the test's null variance 100 * (0.19 + 0.01) = 20. One depth:
 * no middle, so the primary family is the length's all-depths test alone,
 * at alpha 0.05: T >= 1.644854 * sqrt(20) + 1 = 8.35604, probability
 * Phi((10 - 8.35604) / sqrt(19)) = Phi(0.37715) = 0.64697.
 */
static void test_fail_rate_by_hand(void)
{
    struct power_cell c = {3000, 5000, 0.5};
    struct power_spec s = {100, 1, 0.05, 0.0, 0.0, 0.2, &c, 1, POWER_GATE_PRIMARY, 0, 0, 0, 0};
    struct power_verdicts v;
    double drop = 0.1, zero = 0.0, p;
    CHECK_INT(power_primary_size(&s), 1);
    CHECK_INT(power_secondary_size(&s), 1);
    p = power_fail_rate(&s, &drop, 200000, 7);
    CHECK_NEAR(p, 0.64697, 0.005);
    /* no drop: T >= 8.356 with T ~ N(0, 20): 1 - Phi(1.86846) = 0.03085 */
    p = power_fail_rate(&s, &zero, 200000, 7);
    CHECK_NEAR(p, 0.03085, 0.002);
    /* seeded: the same draws */
    CHECK(power_fail_rate(&s, &drop, 1000, 3) == power_fail_rate(&s, &drop, 1000, 3));
    power_verdict_rates(&s, &drop, 1000, 3, &v);
    CHECK_NEAR(v.fail + v.pass + v.inconclusive, 1.0, 1e-12);
}

/*
 * Three depths 0, 50, 100% at 90%, 60%, 90%, fixed discordance 0.2, icc
 * 0.5: per pair var 0.2, sd 0.447214. The primary family is all depths,
 * middle (the 50% cell) and dip (+1 on 50%, -1/2 on each edge), 3 tests at
 * 0.05/3; the cells a secondary family of 3 at 0.05/3. Per question, no drop:
 *   all depths  0.5 * 3 * (1/9) * 0.2 + 0.5 * (3 * 0.447214 / 3)^2 = 0.133333
 *   middle      0.5 * 0.2 + 0.5 * 0.2 = 0.2
 *   dip         0.5 * (0.2 + 0.05 + 0.05) + 0.5 * (0.447214 - 0.447214)^2 = 0.15
 * (the question effect cancels in the dip); with icc 0 the dip's is 0.3.
 */
static void test_rows_by_hand(void)
{
    struct power_cell c[3] = {{1000, 0, 0.9}, {1000, 5000, 0.6}, {1000, 10000, 0.9}};
    struct power_spec s = {100, 1, 0.05, 0.05, 0.5, 0.2, c, 3, POWER_GATE_PRIMARY, 0, 0, 0, 0};
    struct power_row *rows;
    size_t n;
    CHECK_INT(power_primary_size(&s), 3);
    power_rows(&s, 0.0, &rows, &n);
    CHECK_INT(n, 7); /* length, middle, dip, 3 cells, overall */
    CHECK(rows[0].scope == COMPARE_LENGTH && rows[1].scope == COMPARE_MIDDLE &&
          rows[2].scope == COMPARE_DIP && rows[3].scope == COMPARE_CELL &&
          rows[6].scope == COMPARE_OVERALL);
    CHECK(rows[0].primary && rows[1].primary && rows[2].primary && !rows[3].primary &&
          !rows[6].primary);
    CHECK_NEAR(rows[0].sd, sqrt(0.133333333), 1e-6);
    CHECK_NEAR(rows[1].sd, sqrt(0.2), 1e-9);
    CHECK_NEAR(rows[2].sd, sqrt(0.15), 1e-9);
    CHECK_NEAR(rows[0].level, 0.05 / 3, 1e-12);
    CHECK_NEAR(rows[3].level, 0.05 / 3, 1e-12);
    CHECK_NEAR(rows[6].level, 0.05, 1e-12);
    CHECK_INT(rows[0].pairs, 3);
    CHECK_INT(rows[1].pairs, 1);
    CHECK_INT(rows[2].pairs, 3);
    CHECK_NEAR(rows[0].base, 0.8, 1e-12);
    CHECK_NEAR(rows[1].base, 0.6, 1e-12);
    CHECK_NEAR(rows[2].base, 0.3, 1e-12); /* dip = edge 0.9 - middle 0.6 */
    free(rows);
    s.icc = 0.0;
    power_rows(&s, 0.0, &rows, &n);
    CHECK_NEAR(rows[2].sd, sqrt(0.3), 1e-9);
    free(rows);
    /* two depths: no middle, so no middle and dip endpoints */
    s.n_cells = 2;
    c[1].depth_bp = 10000;
    CHECK_INT(power_primary_size(&s), 1);
}

/* The minimum detectable drop has 80% power, and questions needed fall with the drop. */
static void test_mde_and_need(void)
{
    struct power_cell c[2] = {{3000, 0, 0.8}, {3000, 5000, 0.8}};
    struct power_spec s = {60, 1, 0.05, 0.05, 0.0, -1.0, c, 2, POWER_GATE_PRIMARY, 0, 0, 0, 0};
    struct power_row *rows;
    size_t n;
    double drop[1];
    power_rows(&s, 0.15, &rows, &n);
    CHECK_INT(n, 4); /* 1 length (no middle with 2 depths), 2 cells, overall */
    CHECK(rows[0].scope == COMPARE_LENGTH && rows[1].scope == COMPARE_CELL &&
          rows[3].scope == COMPARE_OVERALL);
    CHECK(rows[0].mde > 0 && rows[0].mde < rows[1].mde); /* a length pools its depths */
    CHECK_INT(rows[0].pairs, 2);
    /* at a single cell's mde the Monte Carlo of the verdict agrees on 80% */
    {
        struct power_cell one = {3000, 0, 0.8};
        struct power_spec s1 = {120, 1, 0.05, 0.05, 0.0, -1.0, &one, 1, POWER_GATE_PRIMARY,
                                0,   0, 0,    0};
        struct power_row *r1;
        size_t n1;
        power_rows(&s1, 0.0, &r1, &n1);
        drop[0] = r1[0].mde;
        /* primary family 1 (the length): planned at 0.05, Holm rejects at the same level */
        CHECK_NEAR(power_fail_rate(&s1, drop, 100000, 1), 0.80, 0.01);
        free(r1);
    }
    CHECK(rows[1].need_q > rows[0].need_q && rows[0].need_q > 0);
    free(rows);
}

/*
 * PASS of an unchanged model: two depths (no middle), fixed discordance
 * 0.2, icc 0, so the one primary endpoint's per-question x = (D_0 + D_100)/2
 * has variance 0.1. At Q = 100 its estimate e ~ N(0, 0.001) and the bound is
 * e + t(99, 0.95) s / 10, s^2 = (99 * 0.1 + 100 (e - a)^2 + (1 - a)^2 + (1 +
 * a)^2) / 101, a = 100 e / 102: integrating over e (by hand, a Riemann sum)
 * P(bound < 0.05) = 0.4126 (about Phi((0.05 - 1.66 * 0.3433 / 10) /
 * 0.03162) = Phi(-0.2214)). The same integral first reaches 80% at 260
 * questions and 95% at 443.
 */
static void test_pass_by_hand(void)
{
    struct power_cell c[2] = {{1000, 0, 0.8}, {1000, 10000, 0.8}};
    struct power_spec s = {100, 1, 0.05, 0.05, 0.0, 0.2, c, 2, POWER_GATE_PRIMARY, 0, 0, 0, 0};
    double zero[2] = {0.0, 0.0};
    struct power_verdicts v;
    long need;
    power_verdict_rates(&s, zero, 200000, 5, &v);
    CHECK_NEAR(v.pass, 0.4126, 0.006);
    need = power_pass_need(&s, 0.8, 200000, 5);
    CHECK(need >= 256 && need <= 264);
    need = power_pass_need(&s, 0.95, 200000, 5);
    CHECK(need >= 435 && need <= 451);
    /* a drop at twice the tolerance on both depths never PASSes */
    zero[0] = zero[1] = 0.1;
    power_verdict_rates(&s, zero, 20000, 5, &v);
    CHECK(v.pass < 0.001 && v.fail > 0.9);
}

/*
 * The gate: a drop in one cell of 11 that the primary endpoints dilute
 * (all depths 1/11 of it, the 0% cell an edge) FAILs far more often with
 * --gate cells, where that cell's own test counts.
 */
static void test_gate_cells(void)
{
    struct power_cell c[11];
    struct power_spec s = {200, 1, 0.05, 0.05, 0.0, -1.0, c, 11, POWER_GATE_PRIMARY, 0, 0, 0, 0};
    double drop[11] = {0.3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    double primary, cells;
    int i;
    for (i = 0; i < 11; i++) {
        c[i].length = 1000;
        c[i].depth_bp = i * 1000;
        c[i].accuracy = 0.9;
    }
    primary = power_fail_rate(&s, drop, 20000, 2);
    s.gate = POWER_GATE_CELLS;
    cells = power_fail_rate(&s, drop, 20000, 2);
    CHECK(cells > 0.95);
    CHECK(primary < cells - 0.2);
}

static void test_parse_drop(void)
{
    struct strbuf err = STRBUF_INIT;
    double d;
    CHECK(power_parse_drop("5pp", &d, &err) == 0 && fabs(d - 0.05) < 1e-15);
    CHECK(power_parse_drop("12.5%", &d, &err) == 0 && fabs(d - 0.125) < 1e-15);
    CHECK(power_parse_drop("0.03", &d, &err) == 0 && fabs(d - 0.03) < 1e-15);
    CHECK(power_parse_drop("3", &d, &err) == -1); /* 3 pp or 300%? parse_points refuses it */
    CHECK(power_parse_drop("x", &d, &err) == -1);
    CHECK(strstr(err.buf, "'x' is not a drop") != NULL);
    CHECK(power_parse_drop("101pp", &d, &err) == -1);
    strbuf_release(&err);
}

int main(void)
{
    RUN(test_fail_rate_by_hand);
    RUN(test_rows_by_hand);
    RUN(test_mde_and_need);
    RUN(test_pass_by_hand);
    RUN(test_gate_cells);
    RUN(test_parse_drop);
    return TEST_EXIT();
}

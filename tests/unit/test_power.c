/* Unit tests for power.c: the normal model of compare's power against hand-computed values. */
#include "stats/power.h"
#include "base/strbuf.h"

#include "test.h"

/*
 * One cell, fixed discordance 0.2, drop 0.1, 100 questions, no tolerance.
 * Per question d = +1 w.p. 0.15, -1 w.p. 0.05: E = 0.1, Var = 0.19. T ~
 * N(10, 19); the test's null variance 100 * (0.19 + 0.01) = 20. The family
 * is the cell and its length (2 tests, one and the same), so Holm rejects at
 * p < 0.025: T >= 1.959964 * sqrt(20) + 1 = 9.7652, probability
 * Phi((10 - 9.7652) / sqrt(19)) = Phi(0.05387) = 0.52148.
 */
static void test_fail_rate_by_hand(void)
{
    struct power_cell c = {3000, 5000, 0.5};
    struct power_spec s = {100, 1, 0.05, 0.0, 0.0, 0.2, &c, 1};
    double drop = 0.1, zero = 0.0, p;
    CHECK_INT(power_family_size(&s), 2);
    p = power_fail_rate(&s, &drop, 200000, 7);
    CHECK_NEAR(p, 0.52148, 0.005);
    /* no drop: T >= 9.77 with T ~ N(0, 20): 1 - Phi(2.1836) = 0.0145 */
    p = power_fail_rate(&s, &zero, 200000, 7);
    CHECK_NEAR(p, 0.0145, 0.002);
    /* seeded: the same draws */
    CHECK(power_fail_rate(&s, &drop, 1000, 3) == power_fail_rate(&s, &drop, 1000, 3));
}

/* The minimum detectable drop has 80% power, and questions needed fall with the drop. */
static void test_mde_and_need(void)
{
    struct power_cell c[2] = {{3000, 0, 0.8}, {3000, 5000, 0.8}};
    struct power_spec s = {60, 1, 0.05, 0.05, 0.0, -1.0, c, 2};
    struct power_row *rows;
    size_t n;
    double drop[1];
    power_rows(&s, 0.15, &rows, &n);
    CHECK_INT(n, 4); /* 2 cells, 1 length, overall */
    CHECK(rows[0].scope == POWER_CELL && rows[2].scope == POWER_LENGTH &&
          rows[3].scope == POWER_OVERALL);
    CHECK(rows[2].mde > 0 && rows[2].mde < rows[0].mde); /* a length pools its depths */
    CHECK_INT(rows[2].pairs, 2);
    /* at a single cell's mde the Monte Carlo of the verdict agrees on 80% */
    {
        struct power_cell one = {3000, 0, 0.8};
        struct power_spec s1 = {120, 1, 0.05, 0.05, 0.0, -1.0, &one, 1};
        struct power_row *r1;
        size_t n1;
        power_rows(&s1, 0.0, &r1, &n1);
        drop[0] = r1[0].mde;
        /* family 2 (cell + length): planned at 0.025, Holm rejects at the same level */
        CHECK_NEAR(power_fail_rate(&s1, drop, 100000, 1), 0.80, 0.01);
        free(r1);
    }
    CHECK(rows[0].need_q > rows[2].need_q && rows[2].need_q > 0);
    free(rows);
}

static void test_parse_drop(void)
{
    struct strbuf err = STRBUF_INIT;
    double d;
    CHECK(power_parse_drop("5pp", &d, &err) == 0 && fabs(d - 0.05) < 1e-15);
    CHECK(power_parse_drop("12.5%", &d, &err) == 0 && fabs(d - 0.125) < 1e-15);
    CHECK(power_parse_drop("3", &d, &err) == 0 && fabs(d - 0.03) < 1e-15);
    CHECK(power_parse_drop("x", &d, &err) == -1);
    CHECK(strstr(err.buf, "'x' is not a drop") != NULL);
    CHECK(power_parse_drop("101pp", &d, &err) == -1);
    strbuf_release(&err);
}

int main(void)
{
    RUN(test_fail_rate_by_hand);
    RUN(test_mde_and_need);
    RUN(test_parse_drop);
    return TEST_EXIT();
}

/*
 * Unit tests for stats.c and stats_run.c: Wilson, design effect, exact McNemar, sign-flip,
 * Holm, bootstrap, cells, dip, warnings, effective length, advice.
 */
#include <cJSON.h>
#include <stdio.h>

#include "run/plan.h"
#include "prompt/retrieval.h"
#include "base/rng.h"
#include "stats/stats.h"
#include "stats/stats_axes.h"
#include "store/store.h"
#include "report/summary_json.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"

#include "test.h"
#include "test_points.h"

static void test_wilson(void)
{
    double lo, hi;
    /* 8/10 at z = 1.96: center 0.716739, half-width 0.226581 (by hand) */
    wilson_interval(8, 10, 1.96, &lo, &hi);
    CHECK_NEAR(lo, 0.490158, 1e-5);
    CHECK_NEAR(hi, 0.943320, 1e-5);
    /* 0/10: [0, z^2/n / (1 + z^2/n)] = [0, 0.38416/1.38416] */
    wilson_interval(0, 10, 1.96, &lo, &hi);
    CHECK_NEAR(lo, 0.0, 1e-12);
    CHECK_NEAR(hi, 0.277540, 1e-5);
    wilson_interval(10, 10, 1.96, &lo, &hi);
    CHECK_NEAR(lo, 1.0 - 0.277540, 1e-5);
    CHECK_NEAR(hi, 1.0, 1e-12);
    wilson_interval(0, 0, 1.96, &lo, &hi);
    CHECK(lo == 0.0 && hi == 1.0);
    /* 50/100: 0.5 +- 1.96*sqrt(0.0025+0.00009604)/1.038416 = [0.403832, 0.596168] */
    wilson_interval(50, 100, 1.96, &lo, &hi);
    CHECK_NEAR(lo, 0.403832, 1e-5);
    CHECK_NEAR(hi, 0.596168, 1e-5);
}

static void test_mcnemar(void)
{
    /* binomial(n, 1/2) upper tails from the table */
    CHECK_NEAR(mcnemar_drop_p(5, 0), 1.0 / 32, 1e-12);
    CHECK_NEAR(mcnemar_drop_p(7, 1), 9.0 / 256, 1e-12);
    CHECK_NEAR(mcnemar_drop_p(3, 3), 42.0 / 64, 1e-12);
    CHECK_NEAR(mcnemar_drop_p(1, 7), 255.0 / 256, 1e-12);
    CHECK_NEAR(mcnemar_gain_p(1, 7), 9.0 / 256, 1e-12);
    CHECK_NEAR(mcnemar_two_sided_p(7, 1), 18.0 / 256, 1e-12);
    CHECK_NEAR(mcnemar_two_sided_p(3, 3), 1.0, 1e-12);
    CHECK_NEAR(mcnemar_drop_p(0, 0), 1.0, 0);
    /* n = 10: P(X >= 9) = 11/1024, P(X >= 8) = 56/1024 */
    CHECK_NEAR(mcnemar_drop_p(9, 1), 11.0 / 1024, 1e-12);
    CHECK_NEAR(mcnemar_drop_p(8, 2), 56.0 / 1024, 1e-12);
    /* n = 20: P(X >= 15) = 21700/1048576 */
    CHECK_NEAR(mcnemar_drop_p(15, 5), 21700.0 / 1048576, 1e-12);
    /* large n stays finite and monotone */
    CHECK_NEAR(binom_half_upper_tail(500, 1000), 0.5126125, 1e-6);
    CHECK(binom_half_upper_tail(600, 1000) < 1e-9);
    CHECK(binom_half_upper_tail(600, 1000) > 0.0);
    CHECK_NEAR(binom_half_upper_tail(0, 5), 1.0, 0);
    CHECK_NEAR(binom_half_upper_tail(6, 5), 0.0, 0);
}

static void test_holm(void)
{
    /* textbook: p = .01 .04 .03 .005 -> ordered .005*4 .01*3 .03*2 .04*1, monotone */
    double p[4] = {0.01, 0.04, 0.03, 0.005}, adj[4];
    double q[3] = {0.5, 0.9, 0.8};
    holm_adjust(p, 4, adj);
    CHECK_NEAR(adj[0], 0.03, 1e-12);
    CHECK_NEAR(adj[1], 0.06, 1e-12);
    CHECK_NEAR(adj[2], 0.06, 1e-12);
    CHECK_NEAR(adj[3], 0.02, 1e-12);
    holm_adjust(q, 3, q); /* aliasing, capped at 1 */
    CHECK_NEAR(q[0], 1.0, 1e-12);
    CHECK_NEAR(q[1], 1.0, 1e-12);
    CHECK_NEAR(q[2], 1.0, 1e-12);
}

static void test_normal_quantiles(void)
{
    /* tables: P(Z > 1.959964) = 0.025, P(Z > 1.644854) = 0.05, P(Z > 0) = 0.5 */
    CHECK_NEAR(stats_norm_upper_inv(0.025), 1.959963985, 1e-8);
    CHECK_NEAR(stats_norm_upper_inv(0.05), 1.644853627, 1e-8);
    CHECK_NEAR(stats_norm_upper(0.0), 0.5, 1e-15);
    CHECK_NEAR(stats_norm_upper(2.326347874), 0.01, 1e-9);
    /* the tails, to full precision (mpmath at 30 digits) */
    CHECK_NEAR(stats_norm_upper_inv(1e-10), 6.361340902404056, 1e-9);
    CHECK_NEAR(stats_norm_upper_inv(0.9), -1.281551565544601, 1e-12);
    CHECK_NEAR(stats_norm_upper_inv(0.5), 0.0, 1e-15);
    for (double p = 1e-12; p < 1; p *= 1.7)
        CHECK_NEAR(stats_norm_upper(stats_norm_upper_inv(p)) / p, 1.0, 1e-12);
}

/*
 * Student t quantiles at the 97.5% point, exact to 1e-8 (mpmath at 30 digits:
 * the root of 1 - betainc(df/2, 1/2, 0, df/(df+t^2))/2 = 0.975); the
 * Cornish-Fisher expansion gave 9.71 at df 1 and 4.17 at df 2, so intervals on
 * very few questions were too narrow.
 */
static void test_t_quantiles(void)
{
    static const struct {
        long df;
        double t;
    } v[] = {{1, 12.70620473617471},   {2, 4.302652729749464},  {3, 3.182446305283708},
             {4, 2.776445105197793},   {5, 2.570581835636314},  {9, 2.262157162798205},
             {10, 2.228138851986274},  {30, 2.042272456301238}, {999, 1.96234146113345},
             {5000, 1.960438551706508}};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
        CHECK_NEAR(stats_t_upper_inv(0.025, v[i].df), v[i].t, 1e-8);
    CHECK_NEAR(stats_t_upper_inv(0.005, 3), 5.840909309733351, 1e-8);
    CHECK_NEAR(stats_t_upper_inv(0.975, 4), -2.776445105197793, 1e-8);
    /* the median: 1 - p is p again (it recursed forever: compare --alpha 0.5 crashed) */
    CHECK_NEAR(stats_t_upper_inv(0.5, 4), 0.0, 1e-15);
    CHECK_NEAR(stats_t_upper_inv(0.5, 1000), 0.0, 1e-15);
    CHECK(isnan(stats_t_upper_inv(0.025, 0)));
}

static void test_quantile_rng(void)
{
    double v[5] = {1, 2, 3, 4, 5};
    struct rng a, b;
    int i, same = 1, counts[3] = {0, 0, 0};
    CHECK_NEAR(stats_quantile_sorted(v, 5, 0.5), 3.0, 1e-12);
    CHECK_NEAR(stats_quantile_sorted(v, 5, 0.1), 1.4, 1e-12);
    CHECK_NEAR(stats_quantile_sorted(v, 5, 1.0), 5.0, 1e-12);
    rng_seed(&a, 42);
    rng_seed(&b, 42);
    for (i = 0; i < 100; i++)
        same &= rng_next(&a) == rng_next(&b);
    CHECK(same);
    for (i = 0; i < 3000; i++)
        counts[rng_index(&a, 3)]++;
    CHECK(counts[0] > 900 && counts[1] > 900 && counts[2] > 900);
}

/* ---- trial arrays ---- */

struct tset {
    struct trial_result *t;
    size_t n, alloc;
    struct trial_point *p; /* P(): the points statistics read */
};

/* s's trials as points (trial.h), taken again on every call (trials may have changed). */
static const struct trial_point *P(struct tset *s)
{
    free(s->p);
    s->p = trial_points_of(s->t, s->n);
    return s->p;
}

static void add(struct tset *s, const char *q, long len, int depth, int rep, enum trial_outcome o)
{
    struct trial_result *t;
    ALLOC_GROW(s->t, s->n + 1, s->alloc);
    t = &s->t[s->n++];
    trial_result_init(t);
    t->question_id = xstrdup(q);
    t->length = len;
    t->depth_bp = depth;
    t->repeat = rep;
    t->outcome = o;
    t->facts.realized_length = len;
    t->usage_prompt_tokens = len;
    t->facts.realized_depth = depth / 10000.0;
    t->score = o == OUTCOME_CORRECT;
}

static void tset_free(struct tset *s)
{
    size_t i;
    for (i = 0; i < s->n; i++)
        trial_result_release(&s->t[i]);
    free(s->t);
    free(s->p);
}

static void test_cells_and_coverage(void)
{
    struct tset s = {0};
    struct run_stats rs;
    const struct cell_stats *c;
    int i;
    /* 1000 tokens, depth 0: 6 correct, 2 wrong, 1 overflow, 1 error, 1 pending */
    for (i = 0; i < 6; i++)
        add(&s, "q", 1000, 0, i, OUTCOME_CORRECT);
    add(&s, "q", 1000, 0, 6, OUTCOME_WRONG);
    add(&s, "q", 1000, 0, 7, OUTCOME_WRONG);
    add(&s, "q", 1000, 0, 8, OUTCOME_OVERFLOW);
    add(&s, "q", 1000, 0, 9, OUTCOME_ERROR);
    add(&s, "q", 1000, 0, 10, OUTCOME_PENDING);
    add(&s, "q", 1000, 5000, 0, OUTCOME_TRUNCATED); /* cell with no valid trial */
    CHECK(stats_compute(P(&s), s.n, NULL, &rs, NULL) == 0);
    CHECK_INT(rs.n_cells, 2);
    c = run_stats_cell(&rs, 1000, 0);
    CHECK(c != NULL);
    if (c) {
        CHECK_INT(c->n_trials, 10);
        CHECK_INT(c->n_pending, 1);
        CHECK_INT(c->n_valid, 8);
        CHECK_INT(c->n_correct, 6);
        CHECK_NEAR(c->accuracy, 0.75, 1e-12);
        CHECK_INT(c->outcomes[OUTCOME_OVERFLOW], 1);
        CHECK_INT(c->outcomes[OUTCOME_ERROR], 1);
        CHECK_NEAR(c->coverage, 0.8, 1e-12);
    }
    c = run_stats_cell(&rs, 1000, 5000);
    CHECK(c && c->n_valid == 0 && c->accuracy == 0.0 && c->outcomes[OUTCOME_TRUNCATED] == 1);
    CHECK_INT(rs.n_lengths, 1);
    CHECK_INT(rs.lengths[0].n_depths, 1); /* the truncated-only cell is not a 0% point */
    CHECK_NEAR(rs.lengths[0].edge.est, 0.75, 1e-12);
    CHECK(!rs.lengths[0].has_middle);
    CHECK_INT(rs.n_valid, 8);
    CHECK_INT(rs.outcomes[OUTCOME_TRUNCATED], 1);
    run_stats_release(&rs);
    tset_free(&s);
}

/*
 * Two questions, depths 0/50/100: q1 always right; q2 right at the edges,
 * wrong in the middle. Point dip = 1 - 0.5 = 0.5. Resampling 2 questions
 * gives dip 0 (p=1/4), 0.5 (p=1/2), 1 (p=1/4), so the 95% interval is
 * [0, 1]. Expanded percentile levels (Hesterberg) with 2 clusters: a 40%
 * interval (a = 0.6, z = 0.5244, t(0.3; 1) = 0.7265) takes quantiles at
 * a'/2 = Phi(-sqrt(2) * 0.7265) = 0.153 and 0.847 -> [0, 1], where the plain
 * percentile interval (0.3, 0.7) would say [0.5, 0.5]; a 20% interval
 * (t(0.4; 1) = 0.3249, a'/2 = Phi(-0.4595) = 0.323) -> [0.5, 0.5].
 */
static void two_question_set(struct tset *s)
{
    add(s, "q1", 100, 0, 0, OUTCOME_CORRECT);
    add(s, "q1", 100, 5000, 0, OUTCOME_CORRECT);
    add(s, "q1", 100, 10000, 0, OUTCOME_CORRECT);
    add(s, "q2", 100, 0, 0, OUTCOME_CORRECT);
    add(s, "q2", 100, 5000, 0, OUTCOME_WRONG);
    add(s, "q2", 100, 10000, 0, OUTCOME_CORRECT);
}

static void test_bootstrap(void)
{
    struct tset s = {0};
    struct run_stats rs, rs2;
    struct stats_options o;
    const struct length_stats *ls;
    two_question_set(&s);
    stats_options_init(&o);
    CHECK(stats_compute(P(&s), s.n, &o, &rs, NULL) == 0);
    ls = &rs.lengths[0];
    CHECK(ls->has_middle);
    CHECK_INT(ls->middle_worst_depth_bp, 5000);
    CHECK_NEAR(ls->edge.est, 1.0, 1e-12);
    CHECK_NEAR(ls->middle_worst.est, 0.5, 1e-12);
    CHECK_NEAR(ls->dip.est, 0.5, 1e-12);
    CHECK_NEAR(ls->dip.lo, 0.0, 1e-12);
    CHECK_NEAR(ls->dip.hi, 1.0, 1e-12);
    CHECK(ls->has_worst);
    CHECK_NEAR(ls->middle.est, 0.5, 1e-12);
    CHECK_NEAR(ls->dip_worst.est, 0.5, 1e-12);
    /* basic bootstrap of the worst depth: [2 * 0.5 - 1, 2 * 0.5 - 0] */
    CHECK_NEAR(ls->dip_worst.lo, 0.0, 1e-12);
    CHECK_NEAR(ls->dip_worst.hi, 1.0, 1e-12);
    CHECK_NEAR(ls->auc, 0.75, 1e-12); /* trapezoids: (1+.5)/2*.5 + (.5+1)/2*.5 */
    CHECK_INT(ls->n_questions, 2);
    o.confidence = 0.40;
    CHECK(stats_compute(P(&s), s.n, &o, &rs2, NULL) == 0);
    CHECK_NEAR(rs2.lengths[0].dip.lo, 0.0, 1e-12);
    CHECK_NEAR(rs2.lengths[0].dip.hi, 1.0, 1e-12);
    run_stats_release(&rs2);
    o.confidence = 0.20;
    CHECK(stats_compute(P(&s), s.n, &o, &rs2, NULL) == 0);
    CHECK_NEAR(rs2.lengths[0].dip.lo, 0.5, 1e-12);
    CHECK_NEAR(rs2.lengths[0].dip.hi, 0.5, 1e-12);
    run_stats_release(&rs2);
    /* same seed -> identical intervals */
    o.confidence = 0.95;
    CHECK(stats_compute(P(&s), s.n, &o, &rs2, NULL) == 0);
    CHECK(rs2.lengths[0].dip.lo == ls->dip.lo && rs2.lengths[0].dip.hi == ls->dip.hi);
    run_stats_release(&rs2);
    run_stats_release(&rs);
    tset_free(&s);
}

static void test_bootstrap_reproducible(void)
{
    struct tset s = {0};
    struct run_stats a, b;
    struct stats_options o;
    int q, d;
    char id[16];
    /* 30 questions with a noisy middle */
    for (q = 0; q < 30; q++) {
        snprintf(id, sizeof(id), "q%02d", q);
        for (d = 0; d <= 10000; d += 2500)
            add(&s, id, 4096, d, 0,
                (d == 0 || d == 10000 || (q * 7 + d / 2500) % 4) ? OUTCOME_CORRECT : OUTCOME_WRONG);
    }
    stats_options_init(&o);
    o.seed = 7;
    CHECK(stats_compute(P(&s), s.n, &o, &a, NULL) == 0);
    CHECK(stats_compute(P(&s), s.n, &o, &b, NULL) == 0);
    CHECK(a.lengths[0].dip.lo == b.lengths[0].dip.lo);
    CHECK(a.lengths[0].dip.hi == b.lengths[0].dip.hi);
    CHECK(a.lengths[0].dip.lo <= a.lengths[0].dip.est);
    CHECK(a.lengths[0].dip.hi >= a.lengths[0].dip.est);
    CHECK(a.lengths[0].dip.hi > a.lengths[0].dip.lo);
    run_stats_release(&a);
    run_stats_release(&b);
    tset_free(&s);
}

static void test_wilson_effective_size(void)
{
    double lo, hi, lo2, hi2;
    /* a fractional size equals the integer one where both exist */
    wilson_interval_p(0.8, 10.0, 1.96, &lo, &hi);
    wilson_interval(8, 10, 1.96, &lo2, &hi2);
    CHECK_NEAR(lo, lo2, 1e-15);
    CHECK_NEAR(hi, hi2, 1e-15);
    /* halving the size (design effect 2) widens it: 0.5 at n = 50 */
    wilson_interval_p(0.5, 50.0, 1.96, &lo, &hi);
    /* 0.5 +- 1.96*sqrt(0.005 + 0.0003842)/1.076832 = [0.366442, 0.633558] */
    CHECK_NEAR(lo, 0.366442, 1e-5);
    CHECK_NEAR(hi, 0.633558, 1e-5);
}

static void test_design_effect(void)
{
    /* by hand: p = 3/6, residuals 1, -1, 0: CR1 var = 3/2 * 2/36 = 1/12, binomial 1/24 -> 2 */
    long m3[3] = {2, 2, 2}, y3[3] = {2, 0, 1};
    /* one trial per cluster: exactly 1 whatever the outcomes */
    long m1[4] = {1, 1, 1, 1}, y1[4] = {1, 0, 1, 1};
    /* repeats that agree less than chance would: floored at 1 */
    long mf[2] = {2, 2}, yf[2] = {1, 1};
    /* one question x 100 repeats: not estimable, n_eff = clusters = 1 */
    long mq[1] = {100}, yq[1] = {50};
    /* every trial alike: not estimable, n_eff = clusters (4 of 12 trials) */
    long ma[5] = {3, 3, 3, 3, 0}, ya[5] = {0, 0, 0, 0, 0};
    CHECK_NEAR(cluster_design_effect(m3, y3, 3), 2.0, 1e-12);
    CHECK_NEAR(cluster_design_effect(m1, y1, 4), 1.0, 0);
    CHECK_NEAR(cluster_design_effect(mf, yf, 2), 1.0, 0);
    CHECK_NEAR(cluster_design_effect(mq, yq, 1), 100.0, 0);
    CHECK_NEAR(cluster_design_effect(ma, ya, 5), 3.0, 0);
}

static void test_signflip(void)
{
    /*
     * Fisher (1935), The Design of Experiments, ch. III s. 21: Darwin's Zea
     * mays, 15 paired height differences in eighths of an inch; "in 863
     * cases out of 32768" the sum is at least the observed 314.
     */
    long darwin[15] = {49, -67, 8, 16, 6, 23, 28, 41, 14, 29, 56, 24, 75, 60, -48};
    long small[3] = {2, 1, -1};
    long pm[14] = {1, 1, 1, 1, 1, 1, 1, -1, -1, 0, 0, 0, 0, 0};
    long zero[3] = {0, 0, 0};
    CHECK_NEAR(signflip_drop_p(darwin, 15), 863.0 / 32768, 1e-12);
    /* by hand: sums of +-2 +-1 +-1 are 4, 2, 2, 0, 0, -2, -2, -4 */
    CHECK_NEAR(signflip_drop_p(small, 3), 3.0 / 8, 1e-12);
    CHECK_NEAR(signflip_gain_p(small, 3), 7.0 / 8, 1e-12);
    /* every |d| <= 1: exactly McNemar on b = 7 drops, c = 2 gains */
    CHECK(signflip_drop_p(pm, 14) == mcnemar_drop_p(7, 2));
    CHECK(signflip_gain_p(pm, 14) == mcnemar_gain_p(7, 2));
    CHECK_NEAR(signflip_drop_p(zero, 3), 1.0, 0);
    CHECK_NEAR(signflip_gain_p(zero, 3), 1.0, 0);
}

static void test_cell_interval_clustered(void)
{
    struct tset s = {0};
    struct run_stats rs;
    const struct cell_stats *c;
    double lo, hi;
    int r;
    /* q1 right in all 4 repeats, q2 wrong in all 4: design effect 8/7 * ... by hand below */
    for (r = 0; r < 4; r++) {
        add(&s, "q1", 1000, 0, r, OUTCOME_CORRECT);
        add(&s, "q2", 1000, 0, r, OUTCOME_WRONG);
    }
    CHECK(stats_compute(P(&s), s.n, NULL, &rs, NULL) == 0);
    c = run_stats_cell(&rs, 1000, 0);
    CHECK(c != NULL);
    if (c) {
        /* p = 0.5, residuals 2, -2: CR1 var = 2 * 8 / 64 = 0.25, binomial 0.25/8 -> 8 */
        CHECK_NEAR(c->design_effect, 8.0, 1e-12);
        CHECK_INT(c->n_questions, 2);
        wilson_interval_p(0.5, 1.0, STATS_Z95, &lo, &hi);
        CHECK_NEAR(c->ci_lo, lo, 1e-12);
        CHECK_NEAR(c->ci_hi, hi, 1e-12);
    }
    CHECK_INT(rs.n_repeats, 4);
    run_stats_release(&rs);
    tset_free(&s);
}

/*
 * The new-user case: 1 question x 100 repeats. The dip interval
 * cannot be estimated from one cluster and spans the whole range (it was
 * "+1.5 pp [+1.5 pp, +1.5 pp]"), the cell intervals have effective size 1,
 * and the warnings say so.
 */
static void test_one_question_many_repeats(void)
{
    struct tset s = {0};
    struct run_stats rs;
    struct strvec w = STRVEC_INIT;
    int r, d;
    for (r = 0; r < 100; r++)
        for (d = 0; d <= 10000; d += 5000)
            add(&s, "only", 1000, d, r,
                (d == 5000 && r % 3 == 0) ? OUTCOME_WRONG : OUTCOME_CORRECT);
    CHECK(stats_compute(P(&s), s.n, NULL, &rs, NULL) == 0);
    CHECK_NEAR(rs.lengths[0].dip.lo, -1.0, 0);
    CHECK_NEAR(rs.lengths[0].dip.hi, 1.0, 0);
    CHECK_NEAR(rs.lengths[0].dip_worst.lo, -1.0, 0);
    CHECK_NEAR(rs.cells[1].design_effect, 100.0, 0);
    stats_warnings(&rs, &w);
    CHECK_INT(w.nr, 3);
    if (w.nr == 3) {
        CHECK(strstr(w.v[0], "only 1 question carry") != NULL);
        CHECK(strstr(w.v[1], "100 repeats exceed the 1 question") != NULL);
        CHECK(strstr(w.v[2], "3 cells and 1 length rest on fewer than 10 questions") != NULL);
    }
    strvec_clear(&w);
    run_stats_release(&rs);
    tset_free(&s);
}

static void test_warnings_quiet_when_enough(void)
{
    struct tset s = {0};
    struct run_stats rs;
    struct strvec w = STRVEC_INIT;
    char id[16];
    int q;
    for (q = 0; q < 30; q++) {
        snprintf(id, sizeof(id), "q%02d", q);
        add(&s, id, 1000, 0, 0, q % 4 ? OUTCOME_CORRECT : OUTCOME_WRONG);
    }
    CHECK(stats_compute(P(&s), s.n, NULL, &rs, NULL) == 0);
    stats_warnings(&rs, &w);
    CHECK_INT(w.nr, 0);
    strvec_clear(&w);
    run_stats_release(&rs);
    /* 29 questions: the first warning only */
    trial_result_release(&s.t[--s.n]);
    CHECK(stats_compute(P(&s), s.n, NULL, &rs, NULL) == 0);
    stats_warnings(&rs, &w);
    CHECK_INT(w.nr, 1);
    CHECK(w.nr == 1 && strstr(w.v[0], "only 29 questions carry") != NULL);
    strvec_clear(&w);
    run_stats_release(&rs);
    tset_free(&s);
}

/* Accuracy 0 everywhere: no threshold of 0 that every length "reaches". */
static void test_effective_length_degenerate(void)
{
    struct tset s = {0};
    struct run_stats rs;
    int q, d;
    char id[16];
    for (q = 0; q < 5; q++) {
        snprintf(id, sizeof(id), "q%d", q);
        for (d = 0; d <= 10000; d += 5000)
            add(&s, id, 8192, d, 0, OUTCOME_WRONG);
    }
    CHECK(stats_compute(P(&s), s.n, NULL, &rs, NULL) == 0);
    CHECK_INT(rs.effective_defined, 0);
    CHECK_INT(rs.effective_length, 0);
    CHECK_NEAR(rs.effective_threshold, 0.0, 0);
    run_stats_release(&rs);
    tset_free(&s);
}

/*
 * Controls (trial.h): kept out of the curve, summarised on their own;
 * --exclude-known drops the questions answered correctly closed-book from
 * the curve and the oracle; the oracle is the effective-length reference.
 */
static void test_controls_and_exclude_known(void)
{
    struct tset s = {0};
    struct run_stats rs;
    struct stats_options o;
    char id[16];
    int q, d;
    for (q = 0; q < 4; q++) {
        snprintf(id, sizeof(id), "q%d", q);
        for (d = 0; d <= 10000; d += 5000)
            add(&s, id, 1000, d, 0, (q == 0 || d != 5000) ? OUTCOME_CORRECT : OUTCOME_WRONG);
        /* q0 is known closed-book; the oracle is right for q0..q2 */
        add(&s, id, TRIAL_CONTROL_LENGTH, DEPTH_BP_CLOSED_BOOK, 0,
            q == 0 ? OUTCOME_CORRECT : OUTCOME_WRONG);
        add(&s, id, TRIAL_CONTROL_LENGTH, DEPTH_BP_ORACLE, 0,
            q < 3 ? OUTCOME_CORRECT : OUTCOME_WRONG);
    }
    stats_options_init(&o);
    CHECK(stats_compute(P(&s), s.n, &o, &rs, NULL) == 0);
    CHECK_INT(rs.n_cells, 3); /* the controls are no cells */
    CHECK_INT(rs.n_lengths, 1);
    CHECK_INT(rs.n_valid, 12);
    CHECK(rs.closed_book.present && rs.oracle.present);
    CHECK_INT(rs.closed_book.n_correct, 1);
    CHECK_NEAR(rs.oracle.accuracy, 0.75, 1e-12);
    CHECK_INT(rs.n_known, 1);
    /* middle (50%) = 1/4 -> dip = 1 - 0.25 */
    CHECK_NEAR(rs.lengths[0].dip.est, 0.75, 1e-12);
    /* effective length against 85% of the oracle's 75%: 0.6375; the 50% cell is below */
    CHECK_INT(rs.effective_from_oracle, 1);
    CHECK_NEAR(rs.effective_threshold, 0.85 * 0.75, 1e-12);
    CHECK_INT(rs.effective_length, 0);
    run_stats_release(&rs);
    o.exclude_known = 1;
    CHECK(stats_compute(P(&s), s.n, &o, &rs, NULL) == 0);
    CHECK_INT(rs.n_questions, 3);
    CHECK_INT(rs.n_valid, 9);
    CHECK_NEAR(rs.lengths[0].dip.est, 1.0, 1e-12); /* q1..q3 all wrong at 50% */
    CHECK_INT(rs.closed_book.n_valid, 4);          /* closed-book: every question */
    CHECK_INT(rs.oracle.n_valid, 3);               /* oracle: the curve's set */
    CHECK_NEAR(rs.oracle.accuracy, 2.0 / 3.0, 1e-12);
    CHECK_INT(rs.exclude_known, 1);
    run_stats_release(&rs);
    tset_free(&s);
}

static void test_effective_length_and_mismatch(void)
{
    struct tset s = {0};
    struct run_stats rs;
    int q, d;
    char id[16];
    /* 1k: all correct. 2k: 90% at 50%. 4k: 50% at 50%. threshold = 0.85 * 1.0 */
    for (q = 0; q < 10; q++) {
        snprintf(id, sizeof(id), "q%d", q);
        for (d = 0; d <= 10000; d += 5000) {
            add(&s, id, 1024, d, 0, OUTCOME_CORRECT);
            add(&s, id, 2048, d, 0, (d == 5000 && q == 0) ? OUTCOME_WRONG : OUTCOME_CORRECT);
            add(&s, id, 4096, d, 0, (d == 5000 && q < 5) ? OUTCOME_WRONG : OUTCOME_CORRECT);
        }
    }
    /* one trial where the server counted 5% more tokens */
    s.t[0].usage_prompt_tokens = 1075;
    CHECK(stats_compute(P(&s), s.n, NULL, &rs, NULL) == 0);
    CHECK_INT(rs.n_lengths, 3);
    CHECK_INT(rs.effective_defined, 1);
    CHECK_NEAR(rs.effective_reference, 1.0, 1e-12);
    CHECK_NEAR(rs.effective_threshold, 0.85, 1e-12);
    CHECK_INT(rs.effective_length, 2048);
    CHECK_INT(rs.lengths[0].tokenizer_mismatches, 1);
    CHECK_INT(rs.lengths[1].tokenizer_mismatches, 0);
    CHECK_NEAR(rs.lengths[0].usage_ratio_max_dev, 51.0 / 1024, 1e-9);
    CHECK_INT(rs.lengths[0].realized_min, 1024);
    CHECK_NEAR(rs.lengths[2].dip.est, 0.5, 1e-12);
    CHECK_INT(rs.n_questions, 10);
    run_stats_release(&rs);
    tset_free(&s);
}

static void test_advice_from_run(void)
{
    struct tset s = {0};
    struct run_stats rs;
    struct stats_options o;
    double probs[2] = {0.6, 0.2};
    int k3[1] = {3};
    size_t i;
    two_question_set(&s);
    stats_options_init(&o);
    o.rank_probs = probs;
    o.n_rank_probs = 2;
    o.advice_k = k3;
    o.n_advice_k = 1;
    CHECK(stats_compute(P(&s), s.n, &o, &rs, NULL) == 0);
    CHECK_INT(rs.n_advice, 1);
    /* slots at depth 0, .5, 1 -> accuracy 1, .5, 1 */
    CHECK_NEAR(length_accuracy_at(&rs, &rs.lengths[0], 0.25), 0.75, 1e-12);
    CHECK_NEAR(rs.advice[0].retrieved, 0.8, 1e-12);
    CHECK_NEAR(rs.advice[0].accuracy[ORDER_SOURCE], 2.5 / 3, 1e-12);
    CHECK_NEAR(rs.advice[0].accuracy[ORDER_BEST_FIRST], (0.6 + 0.2 * 0.5) / 0.8, 1e-12);
    CHECK_NEAR(rs.advice[0].accuracy[ORDER_EDGES_FIRST], 1.0, 1e-12);
    run_stats_release(&rs);
    /* default: geometric p = 0.5, k = 5, 10, 20 */
    CHECK(stats_compute(P(&s), s.n, NULL, &rs, NULL) == 0);
    CHECK_INT(rs.n_advice, 3);
    CHECK_NEAR(rs.advice[0].retrieved, 1.0 - 1.0 / 32, 1e-12);
    for (i = 0; i < rs.n_advice; i++)
        CHECK(rs.advice[i].accuracy[ORDER_EDGES_FIRST] >= rs.advice[i].accuracy[ORDER_SOURCE]);
    run_stats_release(&rs);
    tset_free(&s);
}

static void test_rank_dist_parse(void)
{
    struct strbuf err = STRBUF_INIT;
    double *p = NULL;
    size_t n = 0;
    CHECK(rank_dist_parse("# ranks\n0.5\n\n0.25\n0.125\n", &p, &n, &err) == 0);
    CHECK_INT(n, 3);
    if (p)
        CHECK_NEAR(p[2], 0.125, 1e-12);
    free(p);
    CHECK(rank_dist_parse("0.7\n0.5\n", &p, &n, &err) == -1);
    CHECK(strstr(err.buf, "line 2") != NULL);
    strbuf_reset(&err);
    CHECK(rank_dist_parse("0.1\nabc\n", &p, &n, &err) == -1);
    CHECK(strstr(err.buf, "line 2: \"abc\"") != NULL);
    strbuf_reset(&err);
    CHECK(rank_dist_parse("# none\n", &p, &n, &err) == -1);
    strbuf_release(&err);
}

static void test_bad_options(void)
{
    struct tset s = {0};
    struct run_stats rs;
    struct stats_options o;
    struct strbuf err = STRBUF_INIT;
    double bad[2] = {0.9, 0.3};
    two_question_set(&s);
    stats_options_init(&o);
    o.rank_probs = bad;
    o.n_rank_probs = 2;
    CHECK(stats_compute(P(&s), s.n, &o, &rs, &err) == -1);
    CHECK(strstr(err.buf, "more than 1") != NULL);
    strbuf_release(&err);
    tset_free(&s);
    /* empty input is fine */
    CHECK(stats_compute(NULL, 0, NULL, &rs, NULL) == 0);
    CHECK_INT(rs.n_cells, 0);
    run_stats_release(&rs);
}

static void test_summary_json(void)
{
    struct tset s = {0};
    struct run_stats rs;
    struct run_info ri;
    struct strbuf out = STRBUF_INIT;
    cJSON *root, *l, *c, *x;
    two_question_set(&s);
    s.t[1].outcome = OUTCOME_TRUNCATED; /* q1 @ 50%: coverage, not wrong */
    run_info_init(&ri);
    ri.name = xstrdup("nightly \"<x>\"");
    ri.model_requested = xstrdup("m");
    ri.tags = xstrdup("a,b");
    ri.settings_json = xstrdup("{\"repeats\":1}");
    CHECK(stats_compute(P(&s), s.n, NULL, &rs, NULL) == 0);
    CHECK(summary_json_write(&ri, &rs, NULL, 0, &out) == 0);
    root = cJSON_Parse(out.buf);
    CHECK(root != NULL);
    if (root) {
        CHECK_STR(cJSON_GetObjectItem(root, "schema")->valuestring, "dipmap.summary/2");
        CHECK_INT(cJSON_GetObjectItem(root, "schema_version")->valueint, 2);
        /* 2 questions: the small-sample warnings are in the document */
        CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(root, "warnings")), 2);
        x = cJSON_GetObjectItem(root, "run");
        CHECK_STR(cJSON_GetObjectItem(x, "name")->valuestring, "nightly \"<x>\"");
        CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(x, "tags")), 2);
        CHECK_INT(cJSON_GetObjectItem(cJSON_GetObjectItem(x, "settings"), "repeats")->valueint, 1);
        l = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "lengths"), 0);
        CHECK_INT(cJSON_GetObjectItem(l, "length")->valueint, 100);
        x = cJSON_GetObjectItem(l, "dip");
        CHECK_NEAR(cJSON_GetObjectItem(x, "value")->valuedouble, 1.0, 1e-12);
        CHECK(cJSON_GetObjectItem(x, "lo") != NULL && cJSON_GetObjectItem(x, "hi") != NULL);
        x = cJSON_GetObjectItem(l, "dip_worst");
        CHECK_NEAR(cJSON_GetObjectItem(x, "value")->valuedouble, 1.0, 1e-12);
        CHECK_NEAR(cJSON_GetObjectItem(cJSON_GetObjectItem(l, "middle"), "value")->valuedouble, 0.0,
                   1e-12);
        CHECK_NEAR(
            cJSON_GetObjectItem(cJSON_GetObjectItem(l, "middle_worst"), "depth")->valuedouble, 0.5,
            1e-12);
        c = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "cells"), 1);
        CHECK_INT(cJSON_GetObjectItem(c, "depth_bp")->valueint, 5000);
        CHECK_INT(cJSON_GetObjectItem(c, "valid")->valueint, 1);
        CHECK_INT(cJSON_GetObjectItem(cJSON_GetObjectItem(c, "outcomes"), "truncated")->valueint,
                  1);
        CHECK_NEAR(cJSON_GetObjectItem(c, "coverage")->valuedouble, 0.5, 1e-12);
        CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(c, "interval95")), 2);
        CHECK_NEAR(cJSON_GetObjectItem(c, "design_effect")->valuedouble, 1.0, 0);
        CHECK_INT(cJSON_GetObjectItem(c, "questions")->valueint, 1);
        x = cJSON_GetObjectItem(root, "ordering_advice");
        CHECK_STR(
            cJSON_GetObjectItem(cJSON_GetObjectItem(x, "rank_distribution"), "kind")->valuestring,
            "geometric");
        x = cJSON_GetArrayItem(cJSON_GetObjectItem(x, "entries"), 0);
        CHECK(cJSON_GetObjectItem(cJSON_GetObjectItem(x, "accuracy"), "edges-first") != NULL);
        /* the 50% cell is at 0% < 0.85: no length qualifies */
        CHECK(cJSON_IsNull(
            cJSON_GetObjectItem(cJSON_GetObjectItem(root, "effective_length"), "length")));
        cJSON_Delete(root);
    }
    run_info_release(&ri);
    run_stats_release(&rs);
    strbuf_release(&out);
    tset_free(&s);
}

/*
 * Axis statistics: values in the declared order, accuracy per value and per
 * depth, the paired effect exactly the mean difference over pairs equal in
 * everything but the axis (other axes kept apart), its interval around it,
 * control trials and unpaired trials left out.
 */
static void test_axes_stats(void)
{
    enum { NQ = 40 };
    struct trial_result *t = xcalloc(NQ * 2 * 2 * 2 + 2, sizeof(*t));
    char ids[NQ][8];
    static const char *const ax[2][2] = {
        {"needles=1;question-at=end", "needles=1;question-at=start"},
        {"needles=2;question-at=end", "needles=2;question-at=start"}};
    const char *const order[] = {"end", "start"};
    struct plan_axis decl = {"question-at", order, 2};
    struct axis_stats *a = NULL;
    size_t n = 0, na = 0, q, i;
    int d, v, k;
    for (q = 0; q < NQ; q++) {
        snprintf(ids[q], sizeof(ids[q]), "q%02zu", q);
        for (k = 0; k < 2; k++)
            for (d = 0; d < 2; d++)
                for (v = 0; v < 2; v++) {
                    struct trial_result *x = &t[n++];
                    trial_result_init(x);
                    x->question_id = ids[q];
                    x->length = 1024;
                    x->depth_bp = d * 10000;
                    x->axes = (char *)ax[k][v];
                    /* end always right; start wrong for a quarter of the questions at depth 0 */
                    x->outcome = v == 1 && d == 0 && q % 4 == 0 ? OUTCOME_WRONG : OUTCOME_CORRECT;
                }
    }
    /* a control trial and a trial without a partner are not pairs */
    trial_result_init(&t[n]);
    t[n].question_id = ids[0];
    t[n].depth_bp = DEPTH_BP_CLOSED_BOOK;
    t[n].outcome = OUTCOME_WRONG;
    t[n++].axes = "";
    trial_result_init(&t[n]);
    t[n].question_id = ids[1];
    t[n].length = 2048;
    t[n].outcome = OUTCOME_WRONG;
    t[n++].axes = "needles=1;question-at=start";
    stats_axes_compute(pts(0, t, n), n, &decl, 1, NULL, &a, &na);
    CHECK_INT(na, 2);
    if (na == 2) {
        CHECK_STR(a[0].name, "needles");
        CHECK_STR(a[1].name, "question-at");
        CHECK_INT(a[1].n_values, 2);
        CHECK_STR(a[1].values[0].value, "end");
        CHECK_STR(a[1].values[1].value, "start");
        CHECK_INT(a[1].values[0].n_valid, NQ * 4);
        CHECK_NEAR(a[1].values[0].accuracy, 1.0, 1e-12);
        CHECK_INT(a[1].values[1].n_valid, NQ * 4 + 1);
        CHECK_INT(a[1].values[1].n_depths, 2);
        CHECK_NEAR(a[1].values[1].depth_acc[1], 1.0, 1e-12);
        CHECK_INT(a[1].n_effects, 1);
        CHECK_INT(a[1].effects[0].n_pairs, NQ * 4);
        CHECK_INT(a[1].effects[0].n_questions, NQ);
        /* 10 questions x 2 needles values wrong at depth 0: -20 of 160 pairs */
        CHECK_NEAR(a[1].effects[0].diff.est, -20.0 / 160.0, 1e-12);
        CHECK(a[1].effects[0].diff.lo < -0.125 && a[1].effects[0].diff.hi > -0.125);
        CHECK(a[1].effects[0].diff.hi < 0);
        /* needles: no difference; values first-seen (not declared) */
        CHECK_STR(a[0].values[0].value, "1");
        CHECK_NEAR(a[0].effects[0].diff.est, 0, 1e-12);
    }
    stats_axes_free(a, na);
    for (i = 0; i < n; i++)
        t[i].axes = NULL, t[i].question_id = NULL;
    free(t);
}

int main(void)
{
    RUN(test_wilson);
    RUN(test_axes_stats);
    RUN(test_wilson_effective_size);
    RUN(test_design_effect);
    RUN(test_mcnemar);
    RUN(test_signflip);
    RUN(test_holm);
    RUN(test_normal_quantiles);
    RUN(test_t_quantiles);
    RUN(test_quantile_rng);
    RUN(test_cells_and_coverage);
    RUN(test_bootstrap);
    RUN(test_bootstrap_reproducible);
    RUN(test_cell_interval_clustered);
    RUN(test_one_question_many_repeats);
    RUN(test_warnings_quiet_when_enough);
    RUN(test_effective_length_degenerate);
    RUN(test_controls_and_exclude_known);
    RUN(test_effective_length_and_mismatch);
    RUN(test_advice_from_run);
    RUN(test_rank_dist_parse);
    RUN(test_bad_options);
    RUN(test_summary_json);
    test_points_free();
    return TEST_EXIT();
}

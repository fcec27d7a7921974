/*
 * Unit tests of serve-sim's pure parts: the planted curve and decision,
 * model and fault specs, and the fault draw. The HTTP server is tested by
 * tests/cli/3xx-serve-sim-*.sh against the real binary.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"
#include "base/strbuf.h"
#include "test.h"

static struct sim_model model(double edge, double dip, double shape, uint64_t seed)
{
    struct sim_model m = {NULL, edge, dip, shape, seed, 0, 0, 0, 0, 0, 0, 0,
                          0,    0,    0,   0,     0,    0, 0, 0, 0, 0, 0};
    return m;
}

static void test_curve_formula(void)
{
    struct sim_model m = model(0.92, 0.40, 1.6, 1);
    /* depth(T) = dip * clamp(log2(T/1500)/4, 0, 1) */
    CHECK_NEAR(sim_depth(0.4, 1500), 0, 1e-12);
    CHECK_NEAR(sim_depth(0.4, 1000), 0, 1e-12);
    CHECK_NEAR(sim_depth(0.4, 3000), 0.1, 1e-12);
    CHECK_NEAR(sim_depth(0.4, 24000), 0.4, 1e-12);
    CHECK_NEAR(sim_depth(0.4, 100000), 0.4, 1e-12);
    CHECK_NEAR(sim_depth(0.4, 0), 0, 1e-12);
    /* edges keep `edge`, the middle loses the whole depth */
    CHECK_NEAR(sim_curve_p(&m, 0.0, 24000), 0.92, 1e-12);
    CHECK_NEAR(sim_curve_p(&m, 1.0, 24000), 0.92, 1e-12);
    CHECK_NEAR(sim_curve_p(&m, 0.5, 24000), 0.52, 1e-12);
    CHECK_NEAR(sim_curve_p(&m, 0.25, 24000), 0.92 - 0.4 * (1 - pow(0.5, 1.6)), 1e-12);
    CHECK_NEAR(sim_curve_p(&m, 0.5, 6000), 0.92 - 0.2, 1e-12);
    /* no dip at short prompts */
    CHECK_NEAR(sim_curve_p(&m, 0.5, 1200), 0.92, 1e-12);
    /* clamped */
    m = model(0.1, 1.0, 1.0, 1);
    CHECK_NEAR(sim_curve_p(&m, 0.5, 50000), 0, 1e-12);
    CHECK_NEAR(sim_curve_p(&m, -3, 50000), 0.1, 1e-12);
}

/* Thousands of decisions at fixed (x, T) over distinct questions reproduce P. */
static void test_curve_reproduced(void)
{
    static const double xs[] = {0.0, 0.1, 0.3, 0.5, 0.7, 0.95};
    static const long Ts[] = {1000, 4096, 8192, 32768, 65536};
    struct sim_model m = model(0.92, 0.40, 1.6, 7);
    const int n = 20000;
    char qid[32];
    for (size_t i = 0; i < sizeof(xs) / sizeof(xs[0]); i++) {
        for (size_t j = 0; j < sizeof(Ts) / sizeof(Ts[0]); j++) {
            double p = sim_curve_p(&m, xs[i], Ts[j]), sd = sqrt(p * (1 - p) / n);
            int ok = 0;
            for (int q = 0; q < n; q++) {
                snprintf(qid, sizeof(qid), "q%05d", q);
                ok += sim_decide(&m, qid, xs[i], Ts[j], 0);
            }
            if (fabs((double)ok / n - p) > 4.5 * sd + 1e-9)
                fprintf(stderr, "  x=%g T=%ld: %d/%d correct, P=%g\n", xs[i], Ts[j], ok, n, p);
            CHECK(fabs((double)ok / n - p) <= 4.5 * sd + 1e-9);
        }
    }
}

/* The same inputs give the same draw; the salt (distractor order) changes it. */
static void test_draw_deterministic(void)
{
    double u = sim_draw(3, "q1", 0.42, 8192, 99);
    int same_salt = 0, same_seed = 0, same_bucket = 0, other_bucket = 0;
    CHECK(u >= 0 && u < 1);
    CHECK(u == sim_draw(3, "q1", 0.42, 8192, 99));
    /* x bucket = floor(100x), T bucket = floor(8 log2 T): same bucket, same draw */
    CHECK(u == sim_draw(3, "q1", 0.425, 8200, 99));
    for (int s = 0; s < 1000; s++) {
        char qid[16];
        snprintf(qid, sizeof(qid), "q%d", s);
        same_salt += sim_draw(3, qid, 0.42, 8192, 1) == sim_draw(3, qid, 0.42, 8192, 2);
        same_seed += sim_draw(3, qid, 0.42, 8192, 1) == sim_draw(4, qid, 0.42, 8192, 1);
        same_bucket += sim_draw(3, qid, 0.421, 8192, 1) == sim_draw(3, qid, 0.429, 8192, 1);
        other_bucket += sim_draw(3, qid, 0.42, 8192, 1) == sim_draw(3, qid, 0.43, 8192, 1);
    }
    CHECK_INT(same_salt, 0);
    CHECK_INT(same_seed, 0);
    CHECK_INT(same_bucket, 1000);
    CHECK_INT(other_bucket, 0);
}

/* Two models sharing a seed differ only where their curves differ. */
static void test_shared_seed_pairs(void)
{
    struct sim_model a = model(0.92, 0.40, 1.6, 5), b = model(0.92, 0.20, 1.6, 5);
    struct sim_model c = model(0.92, 0.20, 1.6, 6);
    int only_a = 0, only_b = 0, edge_diff = 0, diff_seed = 0;
    char qid[16];
    for (int q = 0; q < 5000; q++) {
        int da, db;
        snprintf(qid, sizeof(qid), "q%d", q);
        da = sim_decide(&a, qid, 0.5, 32768, 11);
        db = sim_decide(&b, qid, 0.5, 32768, 11);
        only_a += da && !db;
        only_b += db && !da;
        /* at the edge both curves are equal: identical answers */
        edge_diff += sim_decide(&a, qid, 0.0, 32768, 11) != sim_decide(&b, qid, 0.0, 32768, 11);
        diff_seed += db != sim_decide(&c, qid, 0.5, 32768, 11);
    }
    CHECK_INT(only_a, 0); /* P_a < P_b in the middle: a correct => b correct */
    CHECK(only_b > 800);  /* ~ (0.72 - 0.52) * 5000 = 1000 */
    CHECK_INT(edge_diff, 0);
    CHECK(diff_seed > 1000); /* another seed: independent draws */
}

static void test_model_parse(void)
{
    struct sim_model m;
    struct strbuf err = STRBUF_INIT;
    CHECK_INT(sim_model_parse("base", &m, &err), 0);
    CHECK_STR(m.name, "base");
    CHECK_NEAR(m.edge, 0.92, 0);
    CHECK_NEAR(m.dip, 0.40, 0);
    CHECK_NEAR(m.shape, 1.6, 0);
    CHECK_INT(m.seed, 1);
    sim_model_release(&m);
    CHECK_INT(sim_model_parse("cand:edge=0.9,dip=0.25,shape=2,seed=42", &m, &err), 0);
    CHECK_STR(m.name, "cand");
    CHECK_NEAR(m.edge, 0.9, 0);
    CHECK_NEAR(m.dip, 0.25, 0);
    CHECK_NEAR(m.shape, 2, 0);
    CHECK_INT(m.seed, 42);
    sim_model_release(&m);
    CHECK_INT(sim_model_parse("x:dip=0", &m, &err), 0);
    CHECK_NEAR(m.dip, 0, 0);
    CHECK_INT(m.flat, 0);
    sim_model_release(&m);
    /* flat=1: the full dip at every length (below 1500 tokens the default has none) */
    CHECK_INT(sim_model_parse("f:edge=0.92,dip=0.37,flat=1", &m, &err), 0);
    CHECK_INT(m.flat, 1);
    CHECK_NEAR(sim_curve_p(&m, 0.5, 400), 0.55, 1e-12);
    CHECK_NEAR(sim_curve_p(&m, 0.0, 400), 0.92, 1e-12);
    m.flat = 0;
    CHECK_NEAR(sim_curve_p(&m, 0.5, 400), 0.92, 1e-12);
    sim_model_release(&m);
    CHECK_INT(sim_model_parse("f:flat=2", &m, &err), -1);
    CHECK(strstr(err.buf, "flat must be 0 or 1") != NULL);
    strbuf_reset(&err);
    CHECK_INT(err.len, 0);

    CHECK_INT(sim_model_parse("", &m, &err), -1);
    CHECK_INT(sim_model_parse(":edge=1", &m, &err), -1);
    CHECK_INT(sim_model_parse("a:edge=1.5", &m, &err), -1);
    CHECK(strstr(err.buf, "edge must be a number in [0,1]") != NULL);
    strbuf_reset(&err);
    CHECK_INT(sim_model_parse("a:depth=0.1", &m, &err), -1);
    CHECK(strstr(err.buf, "unknown key 'depth'") != NULL);
    CHECK_INT(sim_model_parse("a:shape=0", &m, &err), -1);
    CHECK_INT(sim_model_parse("a:seed=-1", &m, &err), -1);
    CHECK_INT(sim_model_parse("a:edge", &m, &err), -1);
    CHECK_INT(sim_model_parse("a,b", &m, &err), -1);
    strbuf_release(&err);
}

static void test_faults_parse(void)
{
    struct sim_faults f;
    struct strbuf err = STRBUF_INIT;
    CHECK_INT(sim_faults_parse("429=0.05,500=0.02,503=0.01,drop=0.01,truncate=0.01,garbage=0.01,"
                               "slow=0.01,error200=0.01",
                               &f, &err),
              0);
    CHECK_NEAR(f.rate[SIM_FAULT_429], 0.05, 0);
    CHECK_NEAR(f.rate[SIM_FAULT_500], 0.02, 0);
    CHECK_NEAR(f.rate[SIM_FAULT_ERROR200], 0.01, 0);
    CHECK_INT(sim_faults_parse("", &f, &err), 0);
    CHECK_NEAR(f.rate[SIM_FAULT_429], 0, 0);
    CHECK_INT(sim_faults_parse("404=0.1", &f, &err), -1);
    CHECK(strstr(err.buf, "unknown kind '404'") != NULL);
    CHECK_INT(sim_faults_parse("429=0.7,500=0.7", &f, &err), -1);
    CHECK_INT(sim_faults_parse("429", &f, &err), -1);
    CHECK_INT(sim_faults_parse("429=x", &f, &err), -1);
    CHECK_STR(sim_fault_name(SIM_FAULT_TRUNCATE), "truncate");
    CHECK_STR(sim_fault_name(SIM_FAULT_NONE), "none");
    strbuf_release(&err);
}

/* Each kind comes up at its rate; the draw depends on the counter, not content. */
static void test_fault_rates(void)
{
    struct sim_faults f;
    struct strbuf err = STRBUF_INIT;
    long counts[SIM_FAULT__COUNT] = {0};
    const long n = 200000;
    CHECK_INT(sim_faults_parse("429=0.05,500=0.02,503=0.01,drop=0.01,truncate=0.01,garbage=0.01,"
                               "slow=0.01,error200=0.01",
                               &f, &err),
              0);
    for (long i = 0; i < n; i++)
        counts[sim_fault_draw(&f, 9, (uint64_t)i)]++;
    for (int k = 1; k < SIM_FAULT__COUNT; k++) {
        double p = f.rate[k], sd = sqrt(p * (1 - p) / n);
        if (fabs((double)counts[k] / n - p) > 4.5 * sd)
            fprintf(stderr, "  %s: %ld of %ld, rate %g\n", sim_fault_name(k), counts[k], n, p);
        CHECK(fabs((double)counts[k] / n - p) <= 4.5 * sd);
    }
    CHECK(sim_fault_draw(&f, 9, 12345) == sim_fault_draw(&f, 9, 12345));
    memset(&f, 0, sizeof(f));
    CHECK(sim_fault_draw(&f, 9, 1) == SIM_FAULT_NONE);
    strbuf_release(&err);
}

/* spacing=E, window=E and shuffled=E: the planted drops of sim_axes_p from the prompt's features.
 */
static void test_axes_spacing_window(void)
{
    struct sim_model m;
    struct strbuf err = STRBUF_INIT;
    struct sim_features f;
    CHECK_INT(sim_model_parse("a:edge=0.9,dip=0.2,flat=1,spacing=0.6,window=0.4", &m, &err), 0);
    CHECK_NEAR(m.spacing, 0.6, 0);
    CHECK_NEAR(m.window, 0.4, 0);
    memset(&f, 0, sizeof(f));
    CHECK_NEAR(sim_axes_p(&m, 0.5, 4096, &f), 0.7, 1e-12); /* no --ctx: no window effect */
    f.spacing = 0.25;
    CHECK_NEAR(sim_axes_p(&m, 0.5, 4096, &f), 0.7 - 0.15, 1e-12);
    f.spacing = 0;
    f.ctx = 8192; /* fill 0.5: the whole E on the dip; 0.25: half; edges unchanged */
    CHECK_NEAR(sim_axes_p(&m, 0.5, 4096, &f), 0.9 - 0.6, 1e-12);
    CHECK_NEAR(sim_axes_p(&m, 0.5, 2048, &f), 0.9 - 0.4, 1e-12);
    CHECK_NEAR(sim_axes_p(&m, 0.0, 4096, &f), 0.9, 1e-12);
    CHECK_NEAR(sim_axes_p(&m, 0.5, 8192, &f), 0.9 - 0.2, 1e-12);
    f.shuffled = 1; /* haystack out of source order: E off */
    m.shuffled = 0.25;
    CHECK_NEAR(sim_axes_p(&m, 0.0, 4096, &f), 0.9 - 0.25, 1e-12);
    sim_model_release(&m);
    CHECK_INT(sim_model_parse("a:shuffled=0.3", &m, &err), 0);
    CHECK_NEAR(m.shuffled, 0.3, 0);
    sim_model_release(&m);
    CHECK_INT(sim_model_parse("a:window=2", &m, &err), -1);
    CHECK(strstr(err.buf, "window must be a number in [0,1]") != NULL);
    strbuf_release(&err);
}

/*
 * corr=C (common random numbers): corr 0 is sim_draw bit for bit; any corr keeps the draw
 * uniform (planted accuracies unchanged); corr 1 gives the prompts of a question at one
 * position and length one draw, and nearly one a few tokens away; in between, two prompts of
 * a question (other salts: another axis value) agree more often; far depths stay independent.
 */
static void test_model_draw_corr(void)
{
    struct sim_model m = model(0.92, 0.40, 1.6, 3);
    int below[3] = {0, 0, 0}, agree[3] = {0, 0, 0}, same1 = 0, same0 = 0, near1 = 0, far1 = 0;
    const double corr[3] = {0, 0.8, 1};
    const int n = 20000;
    for (int q = 0; q < n; q++) {
        char qid[16];
        snprintf(qid, sizeof(qid), "q%d", q);
        for (int k = 0; k < 3; k++) {
            double a, b;
            m.corr = corr[k];
            a = sim_model_draw(&m, qid, 0.42, 8192, 1);
            b = sim_model_draw(&m, qid, 0.42, 8192, 2);
            CHECK(a >= 0 && a < 1);
            below[k] += a < 0.3;
            agree[k] += (a < 0.6) == (b < 0.6);
            if (k == 0)
                same0 += a == sim_draw(3, qid, 0.42, 8192, 1);
            if (k == 2) {
                same1 += a == b && a == sim_model_draw(&m, qid, 0.42, 8300, 77);
                near1 += fabs(a - sim_model_draw(&m, qid, 0.427, 8192, 5)) < 0.05;
                far1 += (a < 0.6) == (sim_model_draw(&m, qid, 0.72, 8192, 5) < 0.6);
            }
        }
    }
    CHECK_INT(same0, n);
    CHECK_INT(same1, n);
    CHECK(near1 > 0.8 * n); /* 0.7 % of x apart: ~57 tokens at 8k */
    CHECK(fabs((double)far1 / n - 0.52) < 0.02);
    for (int k = 0; k < 3; k++) /* P(u < 0.3) = 0.3: sd 0.0032 at n = 20000 */
        CHECK(fabs((double)below[k] / n - 0.3) < 0.015);
    /* independent: 0.6^2 + 0.4^2 = 0.52 agree; corr 0.8 far more; corr 1 always */
    CHECK(fabs((double)agree[0] / n - 0.52) < 0.02);
    CHECK((double)agree[1] / n > 0.75);
    CHECK_INT(agree[2], n);
}

/*
 * icc=R: the question effect. Measured from draws: many questions, each with k prompts at one
 * accuracy P (other salts: repeats, other distractors), the one-way ANOVA estimator of the
 * intraclass correlation of the 0/1 outcomes, (MSB - MSW) / (MSB + (k - 1) MSW), recovers R;
 * the marginal accuracy stays P; icc 0 is the old draw bit for bit; the question is hard
 * everywhere (its outcomes at two far depths correlate); qseed shares difficulty between
 * models and its default (the model's seed) does not.
 */
static double icc_of_draws(struct sim_model *m, double x, long T, int nq, int k, double *acc)
{
    double p = sim_curve_p(m, x, T), grand = 0, ssb = 0, ssw = 0;
    double *mean = malloc(sizeof(double) * (size_t)nq);
    int *y = malloc(sizeof(int) * (size_t)k), total = 0;
    for (int q = 0; q < nq; q++) {
        char qid[16];
        int s = 0;
        snprintf(qid, sizeof(qid), "q%d", q);
        for (int j = 0; j < k; j++)
            s += y[j] = sim_model_draw(m, qid, x, T, (uint64_t)j * 7919 + 1) < p;
        mean[q] = (double)s / k;
        for (int j = 0; j < k; j++)
            ssw += (y[j] - mean[q]) * (y[j] - mean[q]);
        total += s;
    }
    grand = (double)total / ((double)nq * k);
    for (int q = 0; q < nq; q++)
        ssb += k * (mean[q] - grand) * (mean[q] - grand);
    *acc = grand;
    free(mean);
    free(y);
    {
        double msb = ssb / (nq - 1), msw = ssw / ((double)nq * (k - 1));
        return (msb - msw) / (msb + (k - 1) * msw);
    }
}

static void test_model_draw_icc(void)
{
    struct sim_model m = model(0.9, 0.4, 1.6, 5);
    const double want[4] = {0, 0.1, 0.3, 0.6};
    const int nq = 4000, k = 8;
    struct strbuf err = STRBUF_INIT;
    for (int i = 0; i < 4; i++) {
        double acc, icc;
        m.icc = want[i];
        /* P = 0.9 at the edge and 0.6 in the middle of a 24k prompt (full depth) */
        icc = icc_of_draws(&m, 0.0, 24000, nq, k, &acc);
        /* sd of the estimate ~ 0.01 at these sizes; of the accuracy ~ 0.003-0.009 */
        CHECK(fabs(icc - want[i]) < 0.035);
        CHECK(fabs(acc - 0.9) < 0.02);
        icc = icc_of_draws(&m, 0.5, 24000, nq, k, &acc);
        CHECK(fabs(icc - want[i]) < 0.035);
        CHECK(fabs(acc - 0.5) < 0.025);
        if (fabs(icc - want[i]) >= 0.035 || fabs(acc - 0.5) >= 0.025)
            fprintf(stderr, "  icc %g: measured %g, accuracy %g\n", want[i], icc, acc);
    }
    {
        /* icc 0: sim_draw bit for bit; hard everywhere: far depths agree; qseed */
        struct sim_model a = model(0.9, 0.4, 1.6, 5), b = model(0.9, 0.4, 1.6, 6);
        int same = 0, far_both = 0, far_a = 0, far_b = 0, shared = 0, own = 0;
        const int n = 20000;
        for (int q = 0; q < n; q++) {
            char qid[16];
            int e, mdl;
            snprintf(qid, sizeof(qid), "q%d", q);
            same += sim_model_draw(&a, qid, 0.3, 8192, 3) == sim_draw(5, qid, 0.3, 8192, 3);
            a.icc = 0.5;
            e = sim_model_draw(&a, qid, 0.0, 24000, 1) < 0.5;
            mdl = sim_model_draw(&a, qid, 0.6, 2048, 2) < 0.5;
            far_both += e && mdl;
            far_a += e;
            far_b += mdl;
            b.icc = 0.5;
            own += sim_question_difficulty(&a, qid) == sim_question_difficulty(&b, qid);
            b.qseed = 5;
            b.qseed_set = 1;
            shared += sim_question_difficulty(&a, qid) == sim_question_difficulty(&b, qid);
            b.qseed_set = 0;
            a.icc = 0;
        }
        CHECK_INT(same, n);
        /* P = 0.5 both: independent 0.25; with R = 0.5, 0.5 * 0.5 + 0.5 * 0.25 = 0.375 */
        CHECK(fabs((double)far_both / n - 0.375) < 0.015);
        CHECK(fabs((double)far_a / n - 0.5) < 0.015 && fabs((double)far_b / n - 0.5) < 0.015);
        CHECK_INT(shared, n);
        CHECK(own < 5);
    }
    CHECK_INT(sim_model_parse("a:icc=0.3,qseed=9,mid=0.1", &m, &err), 0);
    CHECK_NEAR(m.icc, 0.3, 0);
    CHECK_INT((int)m.qseed, 9);
    CHECK_INT(m.qseed_set, 1);
    CHECK_NEAR(m.mid, 0.1, 0);
    sim_model_release(&m);
    CHECK_INT(sim_model_parse("a:icc=1.5", &m, &err), -1);
    CHECK(strstr(err.buf, "icc must be a number in [0,1]") != NULL);
    strbuf_reset(&err);
    CHECK_INT(sim_model_parse("a:qseed=-1", &m, &err), -1);
    CHECK(strstr(err.buf, "qseed must be a non-negative integer") != NULL);
    strbuf_release(&err);
}

/*
 * mid=M: the middle-only regression. On the report's depth grid 0:100:10 (x = depth), against the
 * same model without it: the edges (0% and 100%) and every depth outside 25-75% are the same, the
 * five depths of the middle band are M lower (the middle and the dip change by M), and the
 * all-depths accuracy drops by 5/11 M: 4.5 pp for M = 0.10, under compare's 5 pp tolerance.
 */
static void test_mid_regression(void)
{
    struct sim_model base = model(0.9, 0.6, 1.6, 1), cand = base;
    double all_b = 0, all_c = 0, mid_b = 0, mid_c = 0;
    int nmid = 0;
    base.flat = cand.flat = 1;
    cand.mid = 0.10;
    for (int d = 0; d <= 100; d += 10) {
        double x = d / 100.0, pb = sim_curve_p(&base, x, 4000), pc = sim_curve_p(&cand, x, 4000);
        all_b += pb / 11;
        all_c += pc / 11;
        if (d >= 25 && d <= 75) {
            CHECK_NEAR(pb - pc, 0.10, 1e-12);
            mid_b += pb;
            mid_c += pc;
            nmid++;
        } else {
            CHECK_NEAR(pc, pb, 0); /* edges the same */
        }
        CHECK_NEAR(sim_axes_p(&cand, x, 4000, NULL), pc, 1e-12);
    }
    CHECK_INT(nmid, 5);
    CHECK_NEAR((mid_b - mid_c) / nmid, 0.10, 1e-12);     /* the middle drops M */
    CHECK_NEAR(all_b - all_c, 5.0 / 11.0 * 0.10, 1e-12); /* 4.5 pp */
    CHECK(all_b - all_c < 0.05);                         /* under the tolerance */
    /* the dip (edge - middle) grows by M */
    {
        double edge_b = (sim_curve_p(&base, 0, 4000) + sim_curve_p(&base, 1, 4000)) / 2;
        double edge_c = (sim_curve_p(&cand, 0, 4000) + sim_curve_p(&cand, 1, 4000)) / 2;
        CHECK_NEAR((edge_c - mid_c / nmid) - (edge_b - mid_b / nmid), 0.10, 1e-12);
    }
}

int main(void)
{
    RUN(test_model_draw_icc);
    RUN(test_mid_regression);
    RUN(test_curve_formula);
    RUN(test_curve_reproduced);
    RUN(test_draw_deterministic);
    RUN(test_model_draw_corr);
    RUN(test_shared_seed_pairs);
    RUN(test_model_parse);
    RUN(test_axes_spacing_window);
    RUN(test_faults_parse);
    RUN(test_fault_rates);
    return TEST_EXIT();
}

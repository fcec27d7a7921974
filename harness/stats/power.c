/*
 * Power planning for compare's question-clustered sign-flip tests: the
 * normal model of power.h over compare's endpoints (primary: per length all
 * depths, middle, dip; secondary: the cells; overall), minimum detectable
 * drops, questions needed, and a seeded Monte Carlo of the verdict (FAIL,
 * PASS by upper bounds, INCONCLUSIVE). Pure.
 */
#include "stats/power.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/num.h"
#include "run/plan.h"
#include "base/rng.h"
#include "stats/compare_seq.h"
#include "stats/stats.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

#include "base/banned.h"

#define POWER_TARGET  0.8
#define MAX_QUESTIONS 1000000L
#define DEFAULT_ITERS 20000u
/* normals power_pass_need() keeps to reuse at every size */
#define MAX_CACHED (8u * 1024u * 1024u)

/* An endpoint: x = sum w[j] D_{cell[j]} / r per question (power.h). */
struct endpoint {
    enum compare_scope scope;
    int primary;
    long length;
    int depth_bp;
    size_t *cell;
    double *w;
    size_t n;
    double k; /* compare's integer statistic is k x */
};

struct endpoints {
    struct endpoint *v;
    size_t n, n_primary, n_secondary;
};

static void ep_add(struct endpoints *e, enum compare_scope scope, int primary, long length,
                   int depth_bp, double k)
{
    struct endpoint *p;
    e->v = xreallocarray(e->v, e->n + 1, sizeof(*e->v));
    p = &e->v[e->n++];
    memset(p, 0, sizeof(*p));
    p->scope = scope;
    p->primary = primary;
    p->length = length;
    p->depth_bp = depth_bp;
    p->k = k;
}

static void ep_cell(struct endpoints *e, size_t cell, double w, size_t cap)
{
    struct endpoint *p = &e->v[e->n - 1];
    if (!p->cell) {
        p->cell = xcalloc(cap + 1, sizeof(*p->cell));
        p->w = xcalloc(cap + 1, sizeof(*p->w));
    }
    p->cell[p->n] = cell;
    p->w[p->n++] = w;
}

static void endpoints_release(struct endpoints *e)
{
    size_t i;
    for (i = 0; i < e->n; i++) {
        free(e->v[i].cell);
        free(e->v[i].w);
    }
    free(e->v);
    memset(e, 0, sizeof(*e));
}

/*
 * compare's endpoints for the matrix, in power_rows()' order: per length all
 * depths, middle, dip (primary); every cell (secondary); overall.
 */
static void endpoints_build(const struct power_spec *s, struct endpoints *e)
{
    size_t i, j, c, k;
    double r = (double)s->repeats;
    memset(e, 0, sizeof(*e));
    for (i = 0; i < s->n_cells; i = j) {
        size_t nd, n_edge = 0, n_mid = 0;
        long len = s->cells[i].length;
        for (j = i; j < s->n_cells && s->cells[j].length == len; j++)
            ;
        nd = j - i;
        for (c = i; c < j; c++) {
            enum depth_role role = stats_depth_role(c - i, nd, s->cells[c].depth_bp);
            n_edge += role == DEPTH_ROLE_EDGE;
            n_mid += role == DEPTH_ROLE_MIDDLE;
        }
        /* the primary endpoints, from compare's one table */
        for (k = 0; k < COMPARE_N_ENDPOINTS; k++) {
            const struct compare_endpoint *ep = &compare_endpoints[k];
            size_t per_q =
                ep->all_depths ? nd : (ep->w_middle ? n_mid : 1) * (ep->w_edge ? n_edge : 1);
            if (!ep->all_depths && !n_mid)
                continue; /* no middle: the all-depths endpoint alone */
            ep_add(e, ep->scope, 1, len, -1, (double)per_q * r);
            for (c = i; c < j; c++) {
                enum depth_role role = stats_depth_role(c - i, nd, s->cells[c].depth_bp);
                if (ep->all_depths)
                    ep_cell(e, c, 1.0 / (double)nd, nd);
                else if (role == DEPTH_ROLE_MIDDLE && ep->w_middle)
                    ep_cell(e, c, ep->w_middle / (double)n_mid, nd);
                else if (role == DEPTH_ROLE_EDGE && ep->w_edge)
                    ep_cell(e, c, ep->w_edge / (double)n_edge, nd);
            }
        }
    }
    e->n_primary = e->n;
    for (c = 0; c < s->n_cells; c++) {
        ep_add(e, COMPARE_CELL, 0, s->cells[c].length, s->cells[c].depth_bp, r);
        ep_cell(e, c, 1.0, 1);
    }
    e->n_secondary = s->n_cells;
    if (s->n_cells) {
        ep_add(e, COMPARE_OVERALL, 0, 0, -1, (double)s->n_cells * r);
        for (c = 0; c < s->n_cells; c++)
            ep_cell(e, c, 1.0 / (double)s->n_cells, s->n_cells);
    }
}

size_t power_primary_size(const struct power_spec *s)
{
    struct endpoints e;
    size_t n;
    endpoints_build(s, &e);
    n = e.n_primary;
    endpoints_release(&e);
    return n;
}

size_t power_secondary_size(const struct power_spec *s)
{
    return s->n_cells;
}

static double discordance(const struct power_spec *s, double p, double drop)
{
    double q = p - drop, v;
    if (q < 0.0)
        q = 0.0;
    if (q > 1.0)
        q = 1.0;
    v = s->discordance >= 0.0 ? s->discordance : p * (1.0 - q) + q * (1.0 - p);
    if (v < fabs(drop))
        v = fabs(drop);
    return v > 1.0 ? 1.0 : v;
}

/* Per pair: the variance of a cell's difference with drop dl. */
static double pair_var(const struct power_spec *s, size_t c, double dl)
{
    double v = discordance(s, s->cells[c].accuracy, dl) - dl * dl;
    return v < 0.0 ? 0.0 : v;
}

/* Per question: E[x] and Var[x] of endpoint p with cell drops drop[] (power.h). */
struct moments {
    double mean, var;
};

static void ep_moments(const struct power_spec *s, const struct endpoint *p, const double *drop,
                       struct moments *m)
{
    double sum_var = 0.0, sum_sd = 0.0, mean = 0.0;
    size_t j;
    for (j = 0; j < p->n; j++) {
        size_t c = p->cell[j];
        double w = p->w[j], var = pair_var(s, c, drop[c]);
        mean += w * drop[c];
        sum_var += w * w * var;
        sum_sd += w * sqrt(var);
    }
    m->mean = mean;
    m->var = (1.0 - s->icc) * sum_var / (double)s->repeats + s->icc * sum_sd * sum_sd;
}

/* The endpoint in the baseline: its accuracy, or for the dip edge - middle. */
static double ep_base(const struct power_spec *s, const struct endpoint *p)
{
    double v = 0.0;
    size_t j;
    for (j = 0; j < p->n; j++)
        v += p->w[j] * s->cells[p->cell[j]].accuracy;
    return compare_endpoint_of(p->scope) && compare_endpoint_of(p->scope)->worse_up ? -v : v;
}

/* Power of endpoint p's test at level `level` with q questions: significant and drop >= tol. */
static double ep_power(const struct power_spec *s, const struct endpoint *p, const double *drop,
                       double q, double level)
{
    struct moments m;
    double z = stats_norm_upper_inv(level), v1, v0, thr, tol;
    ep_moments(s, p, drop, &m);
    v1 = q * m.var;
    v0 = q * (m.var + m.mean * m.mean);
    thr = z * sqrt(v0) + 1.0 / p->k;
    tol = s->tolerance * q - 1e-9;
    if (tol > thr)
        thr = tol;
    if (v1 <= 0.0)
        return q * m.mean >= thr ? 1.0 : 0.0;
    return stats_norm_upper((thr - q * m.mean) / sqrt(v1));
}

/* drop[] = d on the cells endpoint p weighs positively (power.h), 0 elsewhere. */
static void target_drop(const struct power_spec *s, const struct endpoint *p, double d,
                        double *drop)
{
    size_t j;
    memset(drop, 0, (s->n_cells + 1) * sizeof(*drop));
    for (j = 0; j < p->n; j++)
        if (p->w[j] > 0.0)
            drop[p->cell[j]] = d;
}

static double target_power(const struct power_spec *s, const struct endpoint *p, double d, double q,
                           double level, double *drop)
{
    target_drop(s, p, d, drop);
    return ep_power(s, p, drop, q, level);
}

/* Smallest drop with power >= 0.8, or -1. */
static double ep_mde(const struct power_spec *s, const struct endpoint *p, double q, double level,
                     double *drop)
{
    double lo = 0.0, hi = 1.0;
    size_t j;
    int k;
    for (j = 0; j < p->n; j++)
        if (p->w[j] > 0.0 && s->cells[p->cell[j]].accuracy < hi)
            hi = s->cells[p->cell[j]].accuracy;
    if (target_power(s, p, hi, q, level, drop) < POWER_TARGET)
        return -1.0;
    for (k = 0; k < 60; k++) {
        double mid = (lo + hi) / 2.0;
        if (target_power(s, p, mid, q, level, drop) >= POWER_TARGET)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

/*
 * The fewest questions q in 1..MAX_QUESTIONS with ok(ctx, q) (assumed
 * monotone: doubling, then bisection), or -1.
 */
static long fewest_questions(int (*ok)(void *ctx, long q), void *ctx)
{
    long lo = 1, hi = 2;
    if (ok(ctx, lo))
        return lo;
    while (!ok(ctx, hi)) {
        if (hi >= MAX_QUESTIONS)
            return -1;
        lo = hi;
        hi = hi * 2 > MAX_QUESTIONS ? MAX_QUESTIONS : hi * 2;
    }
    while (hi - lo > 1) {
        long mid = lo + (hi - lo) / 2;
        if (ok(ctx, mid))
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

struct need_ctx {
    const struct power_spec *s;
    const struct endpoint *p;
    double d, level;
    double *drop;
};

static int need_ok(void *ctx, long q)
{
    struct need_ctx *c = ctx;
    return target_power(c->s, c->p, c->d, (double)q, c->level, c->drop) >= POWER_TARGET;
}

/* Fewest questions (up to MAX_QUESTIONS) with power >= 0.8 for a drop d, or -1. */
static long ep_need(const struct power_spec *s, const struct endpoint *p, double d, double level,
                    double *drop)
{
    struct need_ctx c;
    c.s = s;
    c.p = p;
    c.d = d;
    c.level = level;
    c.drop = drop;
    return fewest_questions(need_ok, &c);
}

void power_rows(const struct power_spec *s, double target, struct power_row **rows, size_t *n)
{
    struct endpoints e;
    struct power_row *v;
    double *drop = xcalloc(s->n_cells + 1, sizeof(*drop));
    double q = (double)s->questions;
    size_t i;
    endpoints_build(s, &e);
    v = xcalloc(e.n + 1, sizeof(*v));
    for (i = 0; i < e.n; i++) {
        const struct endpoint *p = &e.v[i];
        struct power_row *r = &v[i];
        struct moments m;
        size_t fam = p->primary ? e.n_primary : e.n_secondary;
        r->scope = p->scope;
        r->primary = p->primary;
        r->length = p->length;
        r->depth_bp = p->depth_bp;
        r->level = p->scope == COMPARE_OVERALL ? s->alpha : s->alpha / (double)(fam ? fam : 1);
        r->pairs = (long)p->n * (long)s->repeats;
        r->base = ep_base(s, p);
        memset(drop, 0, (s->n_cells + 1) * sizeof(*drop));
        ep_moments(s, p, drop, &m);
        r->sd = sqrt(m.var);
        r->mde = ep_mde(s, p, q, r->level, drop);
        r->need_q = target > 0.0 ? ep_need(s, p, target, r->level, drop) : 0;
    }
    *rows = v;
    *n = e.n;
    free(drop);
    endpoints_release(&e);
}

/* A standard normal draw (Box-Muller on the stats PRNG). */
static double gauss(struct rng *r)
{
    double u1 = ((double)(rng_next(r) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
    double u2 = rng_unit(rng_next(r));
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/*
 * The Monte Carlo of the verdict at q questions: per draw a shared normal G
 * and one Z per cell; cell c's sum over questions S_c = q drop_c + sqrt(q)
 * sd_c (sqrt(icc) G + sqrt((1 - icc) / r) Z_c), endpoint e's T_e = sum w S_c.
 * Normals from z (iters x (n_cells + 1), reused across sizes) or, z NULL,
 * from a PRNG seeded with seed.
 */
struct mc {
    const struct power_spec *s;
    struct endpoints e;
    const double *drop;
    const double *z;
    unsigned iters;
    unsigned long long seed;
};

static void mc_run(const struct mc *mc, double q, struct power_verdicts *out)
{
    const struct power_spec *s = mc->s;
    const struct endpoints *e = &mc->e;
    size_t nc = s->n_cells, ne = e->n_primary + e->n_secondary, i, j, f;
    /* the endpoints that can fail the gate: the primary ones, with --gate cells the cells too */
    size_t ne_gate = s->gate == POWER_GATE_CELLS ? ne : e->n_primary;
    double *shared = xcalloc(nc + 1, sizeof(double)), *ind = xcalloc(nc + 1, sizeof(double));
    double *sc = xcalloc(nc + 1, sizeof(double)), *zb = xcalloc(nc + 1, sizeof(double));
    double *sd0 = xcalloc(ne + 1, sizeof(double)), *var = xcalloc(ne + 1, sizeof(double));
    double *most = xcalloc(ne + 1, sizeof(double)), *est = xcalloc(ne + 1, sizeof(double));
    double *p = xcalloc(ne + 1, sizeof(double)), *adj = xcalloc(ne + 1, sizeof(double));
    double tq = q >= 2.0 ? stats_t_upper_inv(s->alpha, (long)q - 1) : 0.0;
    long fails = 0, passes = 0;
    struct rng rng;
    unsigned it;

    for (i = 0; i < nc; i++) {
        double sd = sqrt(pair_var(s, i, mc->drop[i]));
        shared[i] = sqrt(q) * sd * sqrt(s->icc);
        ind[i] = sqrt(q) * sd * sqrt((1.0 - s->icc) / (double)s->repeats);
    }
    for (j = 0; j < ne; j++) {
        struct moments m;
        double b = ep_base(s, &e->v[j]);
        ep_moments(s, &e->v[j], mc->drop, &m);
        var[j] = m.var;
        sd0[j] = sqrt(q * (m.var + m.mean * m.mean));
        most[j] = compare_endpoint_of(e->v[j].scope) && compare_endpoint_of(e->v[j].scope)->worse_up
                      ? 1.0 - b
                      : b; /* compare's floor */
    }
    rng_seed(&rng, mc->seed);
    for (it = 0; it < mc->iters; it++) {
        const double *z = mc->z ? mc->z + (size_t)it * (nc + 1) : zb;
        int fail = 0, pass = q >= 2.0;
        if (!mc->z)
            for (i = 0; i <= nc; i++)
                zb[i] = gauss(&rng);
        for (i = 0; i < nc; i++)
            sc[i] = q * mc->drop[i] + shared[i] * z[nc] + ind[i] * z[i];
        for (j = 0; j < ne_gate; j++) {
            const struct endpoint *ep = &e->v[j];
            double t = 0.0;
            size_t k;
            for (k = 0; k < ep->n; k++)
                t += ep->w[k] * sc[ep->cell[k]];
            est[j] = t / q;
        }
        /* a family can fail only where a drop reaches the tolerance: Holm only then */
        for (f = 0; f < 2 && !fail; f++) {
            size_t a = f ? e->n_primary : 0, b = f ? ne_gate : e->n_primary;
            int reach = 0;
            for (j = a; j < b; j++)
                reach |= est[j] >= s->tolerance - 1e-9;
            if (!reach)
                continue;
            for (j = a; j < b; j++)
                p[j] =
                    sd0[j] > 0.0 ? stats_norm_upper((q * est[j] - 1.0 / e->v[j].k) / sd0[j]) : 1.0;
            holm_adjust(p + a, b - a, adj + a);
            for (j = a; j < b && !fail; j++)
                fail = adj[j] < s->alpha && est[j] >= s->tolerance - 1e-9;
        }
        for (j = 0; j < e->n_primary && pass && !fail; j++) {
            double a = q * est[j] / (q + 2.0), d = est[j] - a, ss, ub;
            ss = ((q - 1.0) * var[j] + q * d * d + (1.0 - a) * (1.0 - a) + (1.0 + a) * (1.0 + a)) /
                 (q + 1.0);
            ub = est[j] + tq * sqrt(ss / q);
            if (ub > most[j])
                ub = most[j];
            pass = ub < s->tolerance;
        }
        fails += fail;
        passes += !fail && pass;
    }
    out->fail = mc->iters ? (double)fails / (double)mc->iters : 0.0;
    out->pass = mc->iters ? (double)passes / (double)mc->iters : 0.0;
    out->inconclusive = 1.0 - out->fail - out->pass;
    free(shared);
    free(ind);
    free(sc);
    free(zb);
    free(sd0);
    free(var);
    free(most);
    free(est);
    free(p);
    free(adj);
}

static void mc_init(struct mc *mc, const struct power_spec *s, const double *drop, unsigned iters,
                    unsigned long long seed)
{
    memset(mc, 0, sizeof(*mc));
    mc->s = s;
    endpoints_build(s, &mc->e);
    mc->drop = drop;
    mc->iters = iters;
    mc->seed = seed;
}

void power_verdict_rates(const struct power_spec *s, const double *drop, unsigned iters,
                         unsigned long long seed, struct power_verdicts *out)
{
    struct mc mc;
    mc_init(&mc, s, drop, iters, seed);
    mc_run(&mc, (double)s->questions, out);
    endpoints_release(&mc.e);
}

double power_fail_rate(const struct power_spec *s, const double *drop, unsigned iters,
                       unsigned long long seed)
{
    struct power_verdicts v;
    power_verdict_rates(s, drop, iters, seed, &v);
    return v.fail;
}

struct pass_ctx {
    struct mc *mc;
    double prob;
};

static int pass_ok(void *ctx, long q)
{
    struct pass_ctx *c = ctx;
    struct power_verdicts v;
    mc_run(c->mc, (double)q, &v);
    return v.pass >= c->prob;
}

long power_pass_need(const struct power_spec *s, double prob, unsigned iters,
                     unsigned long long seed)
{
    struct mc mc;
    struct pass_ctx c;
    struct rng rng;
    size_t nz = s->n_cells + 1, i;
    double *zero = xcalloc(s->n_cells + 1, sizeof(double)), *z;
    long need;
    if (iters > MAX_CACHED / nz)
        iters = (unsigned)(MAX_CACHED / nz);
    if (!iters)
        iters = 1;
    /* the draws mc_run() would make, made once (the same at every size) */
    z = xcalloc((size_t)iters * nz, sizeof(double));
    rng_seed(&rng, seed);
    for (i = 0; i < (size_t)iters * nz; i++)
        z[i] = gauss(&rng);
    mc_init(&mc, s, zero, iters, seed);
    mc.z = z;
    c.mc = &mc;
    c.prob = prob;
    need = fewest_questions(pass_ok, &c);
    endpoints_release(&mc.e);
    free(zero);
    free(z);
    return need;
}

/* One trial of a model whose question has difficulty v (power_gate_simulate(): sim.h icc=R). */
static enum trial_outcome sim_trial(struct rng *r, double v, double share, double p)
{
    double u = rng_unit(rng_next(r)) < share ? v : rng_unit(rng_next(r));
    return u < p ? OUTCOME_CORRECT : OUTCOME_WRONG;
}

/* Both runs' trials of q questions, question by question (cells, repeats inside). */
static void sim_runs(const struct power_spec *s, const double *drop, struct rng *r, size_t q,
                     char (*ids)[24], struct trial_point *tb, struct trial_point *tc)
{
    double share = sqrt(s->icc);
    size_t k = 0;
    for (size_t i = 0; i < q; i++) {
        double vb = rng_unit(rng_next(r)), vc = rng_unit(rng_next(r));
        for (size_t c = 0; c < s->n_cells; c++)
            for (int rep = 0; rep < s->repeats; rep++, k++) {
                double p = s->cells[c].accuracy;
                memset(&tb[k], 0, sizeof(tb[k]));
                tb[k].question_id = ids[i];
                tb[k].length = s->cells[c].length;
                tb[k].depth_bp = s->cells[c].depth_bp;
                tb[k].repeat = rep;
                tc[k] = tb[k];
                tb[k].outcome = sim_trial(r, vb, share, p);
                tc[k].outcome = sim_trial(r, vc, share, p - drop[c]);
            }
    }
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

void power_gate_simulate(const struct power_spec *s, const double *drop, unsigned reps,
                         unsigned long long seed, struct power_gate_rates *out)
{
    size_t q = s->questions, round = s->round ? s->round : 20, per = s->n_cells * s->repeats;
    size_t looks = (q + round - 1) / round;
    char(*ids)[24] = xcalloc(q + 1, sizeof(*ids));
    const char **order = xcalloc(q + 1, sizeof(*order));
    struct trial_point *tb = xcalloc(q * per + 1, sizeof(*tb));
    struct trial_point *tc = xcalloc(q * per + 1, sizeof(*tc));
    long *pass_at = xcalloc(reps + 1, sizeof(*pass_at)), fails = 0, passes = 0;
    double *t = xcalloc(looks + 1, sizeof(*t)), asn = 0.0;
    struct rng r;

    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < q; i++) {
        snprintf(ids[i], sizeof(ids[i]), "q%06zu", i);
        order[i] = ids[i];
    }
    for (size_t k = 0; k < looks; k++)
        t[k] = (double)((k + 1) * round < q ? (k + 1) * round : q) / (double)q;
    rng_seed(&r, seed);
    for (unsigned rep = 0; rep < reps; rep++) {
        sim_runs(s, drop, &r, q, ids, tb, tc);
        pass_at[rep] = LONG_MAX;
        for (size_t k = 0; k < looks; k++) {
            size_t n = (k + 1) * round < q ? (k + 1) * round : q;
            struct compare_options co;
            struct compare_look look;
            struct compare_result res;
            enum compare_verdict v;
            compare_options_init(&co);
            co.alpha = s->alpha;
            co.tolerance = s->tolerance;
            co.gate = s->gate == POWER_GATE_CELLS ? COMPARE_GATE_CELLS : COMPARE_GATE_PRIMARY;
            compare_look_levels(SEQ_SPEND_POCOCK, co.alpha, t, k, power_primary_size(s), &look);
            compare_look_apply(&look, &co);
            co.order = order;
            co.n_order = n;
            compare_runs(tb, n * per, tc, n * per, &co, &res);
            v = res.verdict;
            compare_result_release(&res);
            if (v == VERDICT_FAIL || v == VERDICT_PASS || k + 1 == looks) {
                fails += v == VERDICT_FAIL;
                passes += v == VERDICT_PASS;
                if (v == VERDICT_PASS)
                    pass_at[rep] = (long)n;
                asn += (double)n;
                break;
            }
        }
    }
    qsort(pass_at, reps, sizeof(*pass_at), cmp_long);
    for (int i = 0; i < 2; i++) {
        size_t at = (size_t)ceil((i ? 0.95 : 0.8) * (double)reps);
        long v = at ? pass_at[at - 1] : LONG_MAX;
        out->pass_by[i] = v == LONG_MAX ? -1 : v;
    }
    out->fail = reps ? (double)fails / reps : 0.0;
    out->pass = reps ? (double)passes / reps : 0.0;
    out->inconclusive = 1.0 - out->fail - out->pass;
    out->mean_questions = reps ? asn / reps : 0.0;
    free(ids);
    free(order);
    free(tb);
    free(tc);
    free(pass_at);
    free(t);
}

double power_mde_se(double se, double level)
{
    return (stats_norm_upper_inv(level) + stats_norm_upper_inv(1.0 - POWER_TARGET)) * se;
}

long power_need_se(double se, size_t q, double tolerance, double level)
{
    double need, mde = power_mde_se(se, level);
    if (!(tolerance > 0.0) || !(mde >= 0.0))
        return -1;
    need = ceil((double)q * (mde / tolerance) * (mde / tolerance));
    if (need > (double)MAX_QUESTIONS)
        return -1;
    return need < (double)q ? (long)q : (long)need;
}

int power_parse_drop(const char *s, double *out, struct strbuf *err)
{
    struct strbuf sb = STRBUF_INIT;
    double v;
    int rc = 0;
    strbuf_addstr(&sb, s);
    strbuf_trim(&sb);
    if (parse_points(sb.buf, &v) < 0 || !(v >= 0.0) || v > 1.0) {
        strbuf_addf(err, "'%s' is not a drop between 0 and 100 pp: write %s", s,
                    PARSE_POINTS_FORMS);
        rc = -1;
    } else {
        *out = v;
    }
    strbuf_release(&sb);
    return rc;
}

static void add_drop(struct strbuf *out, double d)
{
    if (d < 0)
        strbuf_addstr(out, "not detectable");
    else
        strbuf_addf(out, "%.1f pp", d * 100.0);
}

static void row_name(struct strbuf *out, const struct power_row *r)
{
    if (r->scope == COMPARE_OVERALL) {
        strbuf_addstr(out, "overall");
        return;
    }
    plan_format_length(out, r->length);
    if (r->scope == COMPARE_CELL) {
        strbuf_addstr(out, " @ ");
        plan_format_depth(out, r->depth_bp);
    } else {
        strbuf_addf(out, " %s", compare_endpoint_of(r->scope)->label);
    }
}

static void add_row(struct strbuf *out, const char *name, const struct power_row *r, double target)
{
    struct strbuf d = STRBUF_INIT;
    add_drop(&d, r->mde);
    if (compare_endpoint_of(r->scope) &&
        compare_endpoint_of(r->scope)
            ->worse_up) /* 1e-9 keeps a flat curve's dip from printing as -0.0 */
        strbuf_addf(out, "  %-22s %8ld %+7.1fpp", name, r->pairs,
                    fabs(r->base) < 1e-9 ? 0.0 : r->base * 100.0);
    else
        strbuf_addf(out, "  %-22s %8ld %8.1f%%", name, r->pairs, r->base * 100.0);
    strbuf_addf(out, target > 0 ? "  %-22s" : "  %s", d.buf);
    if (target > 0) {
        if (r->need_q < 0)
            strbuf_addstr(out, "  more than 1000000");
        else
            strbuf_addf(out, "  %ld", r->need_q);
    }
    strbuf_addch(out, '\n');
    strbuf_release(&d);
}

static void add_header(struct strbuf *out, double target)
{
    strbuf_addf(out, "  %-22s %8s %9s  %-22s%s\n", "scope", "pairs/q", "baseline",
                "min. drop at 80% power", target > 0 ? "  questions needed" : "");
}

static void add_need(struct strbuf *out, long need)
{
    if (need < 0)
        strbuf_addstr(out, "more than 1000000");
    else
        strbuf_addf(out, "%ld", need);
}

/* "more than N" when fewer gates PASS by the cap N. */
static void add_need_by(struct strbuf *out, long need, size_t cap)
{
    if (need < 0)
        strbuf_addf(out, "more than %zu", cap);
    else
        strbuf_addf(out, "%ld", need);
}

void power_gate_line(const struct power_spec *s, const struct power_gate_rates *g,
                     struct strbuf *out)
{
    strbuf_addf(out,
                "the gate (dipmap gate --round %zu --max-questions %zu: compare's anytime-valid "
                "betting tests after every round, simulated %u times with serve-sim's question "
                "effect, icc %g): FAIL %.1f%%, PASS %.1f%%, INCONCLUSIVE %.1f%%, after %.0f "
                "questions on average",
                s->round ? s->round : 20, s->questions, s->gate_reps, s->icc, g->fail * 100.0,
                g->pass * 100.0, g->inconclusive * 100.0, g->mean_questions);
}

void power_summary(const struct power_spec *s, double target, struct strbuf *out)
{
    struct power_row *rows;
    struct power_verdicts v;
    size_t n, i, np = power_primary_size(s), ns = power_secondary_size(s);
    unsigned iters = s->iters ? s->iters : DEFAULT_ITERS;
    unsigned long long seed = s->seed ? s->seed : 1;
    double *zero = xcalloc(s->n_cells + 1, sizeof(double));
    int same_cells;

    power_rows(s, target, &rows, &n);
    strbuf_addf(out,
                "power (compare's question-clustered sign-flip tests): %zu questions x %zu "
                "cells, %d repeat%s; alpha %g, tolerance %.1f pp\n",
                s->questions, s->n_cells, s->repeats, s->repeats == 1 ? "" : "s", s->alpha,
                s->tolerance * 100.0);
    strbuf_addf(out,
                "primary endpoints (the gate): %zu tests, one Holm family, each planned at "
                "alpha/%zu = %.3g (Holm's first step); the middle and dip rows drop the middle "
                "depths, the edges unchanged\n",
                np, np ? np : 1, s->alpha / (double)(np ? np : 1));
    add_header(out, target);
    for (i = 0; i < n; i++)
        if (rows[i].primary) {
            struct strbuf name = STRBUF_INIT;
            row_name(&name, &rows[i]);
            add_row(out, name.buf, &rows[i], target);
            strbuf_release(&name);
        }
    strbuf_addf(out,
                "secondary (the cells; they fail the gate only with --gate cells): %zu tests, "
                "each planned at alpha/%zu = %.3g\n",
                ns, ns ? ns : 1, s->alpha / (double)(ns ? ns : 1));
    add_header(out, target);
    /* cells that all plan alike (an assumed accuracy) are one row */
    for (i = 1; i < s->n_cells && s->cells[i].accuracy == s->cells[0].accuracy; i++)
        ;
    same_cells = s->n_cells > 1 && i == s->n_cells;
    for (i = 0; i < n; i++) {
        struct strbuf name = STRBUF_INIT;
        if (rows[i].scope != COMPARE_CELL)
            continue;
        if (same_cells && i > 0 && rows[i - 1].scope == COMPARE_CELL)
            continue;
        if (same_cells)
            strbuf_addstr(&name, "each cell");
        else
            row_name(&name, &rows[i]);
        add_row(out, name.buf, &rows[i], target);
        strbuf_release(&name);
    }
    for (i = 0; i < n; i++)
        if (rows[i].scope == COMPARE_OVERALL) {
            strbuf_addf(out, "reported, not part of the verdict (at alpha %g):\n", s->alpha);
            add_row(out, "overall", &rows[i], target);
        }
    if (target > 0)
        strbuf_addf(out,
                    "  (questions needed: for a drop of %.1f pp at 80%% power, each test on its "
                    "own)\n",
                    target * 100.0);
    if (target > 0 && target <= s->tolerance + 1e-12)
        strbuf_addf(out,
                    "  note: %.1f pp is not above the tolerance %.1f pp; compare calls a drop a "
                    "regression only when the observed drop reaches the tolerance, which a true "
                    "drop at the tolerance does half the time, so 80%% power needs a larger "
                    "drop or a smaller --tolerance\n",
                    target * 100.0, s->tolerance * 100.0);
    if (np && s->gate_reps) {
        struct power_gate_rates g;
        power_gate_simulate(s, zero, s->gate_reps, seed, &g);
        power_gate_line(s, &g, out);
        strbuf_addstr(out, "; an unchanged model needs ");
        add_need_by(out, g.pass_by[0], s->questions);
        strbuf_addstr(out, " questions to PASS with 80% probability and ");
        add_need_by(out, g.pass_by[1], s->questions);
        strbuf_addstr(out, " with 95%\n");
    } else if (np) {
        power_verdict_rates(s, zero, iters, seed, &v);
        strbuf_addf(out,
                    "an unchanged model PASSes (every primary %.0f%% upper bound below %.1f pp) "
                    "with probability %.1f%% at %zu questions (FAIL %.1f%%, INCONCLUSIVE "
                    "%.1f%%); it needs ",
                    (1.0 - s->alpha) * 100.0, s->tolerance * 100.0, v.pass * 100.0, s->questions,
                    v.fail * 100.0, v.inconclusive * 100.0);
        add_need(out, power_pass_need(s, 0.8, iters, seed));
        strbuf_addstr(out, " questions to PASS with 80% probability and ");
        add_need(out, power_pass_need(s, 0.95, iters, seed));
        strbuf_addf(out, " with 95%% (Monte Carlo of the normal model, %u draws, seed %llu)\n",
                    iters, seed);
    }
    free(zero);
    free(rows);
}

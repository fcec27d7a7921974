/*
 * Power planning for compare's paired sign-flip test over questions: the
 * normal model of power.h, minimum detectable drops, questions needed, and a
 * seeded Monte Carlo of the whole verdict (Holm + tolerance). Pure.
 */
#include "stats/power.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/num.h"
#include "run/plan.h"
#include "stats/stats.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

#include "base/banned.h"

#define POWER_TARGET  0.8
#define MAX_QUESTIONS 1000000L

size_t power_family_size(const struct power_spec *s)
{
    size_t i, lengths = 0;
    for (i = 0; i < s->n_cells; i++)
        if (!i || s->cells[i].length != s->cells[i - 1].length)
            lengths++;
    return s->n_cells + lengths;
}

static double discordance(const struct power_spec *s, double p, double drop)
{
    double q = p - drop, v;
    if (q < 0.0)
        q = 0.0;
    v = s->discordance >= 0.0 ? s->discordance : p * (1.0 - q) + q * (1.0 - p);
    if (v < fabs(drop))
        v = fabs(drop);
    return v > 1.0 ? 1.0 : v;
}

/*
 * Per-question moments of d over cells [a, b) with drop[] (NULL = uniform
 * `uniform`): mean, variance, and the pairs per question.
 */
struct moments {
    double mean, var, pairs;
};

static void scope_moments(const struct power_spec *s, size_t a, size_t b, const double *drop,
                          double uniform, struct moments *m)
{
    double sum_var = 0.0, sum_sd = 0.0, mean = 0.0;
    size_t i;
    double r = (double)s->repeats;
    for (i = a; i < b; i++) {
        double dl = drop ? drop[i] : uniform;
        double v = discordance(s, s->cells[i].accuracy, dl);
        double var = v - dl * dl;
        if (var < 0.0)
            var = 0.0;
        mean += r * dl;
        sum_var += r * var;
        sum_sd += r * sqrt(var);
    }
    m->mean = mean;
    m->var = (1.0 - s->icc) * sum_var + s->icc * sum_sd * sum_sd;
    m->pairs = r * (double)(b - a);
}

/* Power of one test at level `level` with Q questions. */
static double test_power(const struct power_spec *s, const struct moments *m, double q,
                         double level)
{
    double z = stats_norm_upper_inv(level);
    double v1 = q * m->var, v0 = q * (m->var + m->mean * m->mean);
    double thr = z * sqrt(v0) + 1.0, tol = s->tolerance * q * m->pairs - 1e-9;
    if (tol > thr)
        thr = tol;
    if (v1 <= 0.0)
        return q * m->mean >= thr ? 1.0 : 0.0;
    return stats_norm_upper((thr - q * m->mean) / sqrt(v1));
}

static double scope_power(const struct power_spec *s, size_t a, size_t b, double drop, double q,
                          double level)
{
    struct moments m;
    scope_moments(s, a, b, NULL, drop, &m);
    return test_power(s, &m, q, level);
}

/* Smallest uniform drop with power >= 0.8 over cells [a, b), or -1. */
static double scope_mde(const struct power_spec *s, size_t a, size_t b, double q, double level)
{
    double lo = 0.0, hi = 1.0;
    size_t i;
    int k;
    for (i = a; i < b; i++)
        if (s->cells[i].accuracy < hi)
            hi = s->cells[i].accuracy;
    if (scope_power(s, a, b, hi, q, level) < POWER_TARGET)
        return -1.0;
    for (k = 0; k < 60; k++) {
        double mid = (lo + hi) / 2.0;
        if (scope_power(s, a, b, mid, q, level) >= POWER_TARGET)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

/* Fewest questions (up to MAX_QUESTIONS) with power >= 0.8 for `drop`, or -1. */
static long scope_need(const struct power_spec *s, size_t a, size_t b, double drop, double level)
{
    long lo = 1, hi = 2;
    if (scope_power(s, a, b, drop, (double)lo, level) >= POWER_TARGET)
        return lo;
    while (scope_power(s, a, b, drop, (double)hi, level) < POWER_TARGET) {
        if (hi >= MAX_QUESTIONS)
            return -1;
        lo = hi;
        hi = hi * 2 > MAX_QUESTIONS ? MAX_QUESTIONS : hi * 2;
    }
    while (hi - lo > 1) {
        long mid = lo + (hi - lo) / 2;
        if (scope_power(s, a, b, drop, (double)mid, level) >= POWER_TARGET)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

static void fill_row(const struct power_spec *s, struct power_row *r, size_t a, size_t b,
                     double level, double target)
{
    r->level = level;
    r->pairs = (long)s->repeats * (long)(b - a);
    r->mde = scope_mde(s, a, b, (double)s->questions, level);
    r->need_q = target > 0.0 ? scope_need(s, a, b, target, level) : 0;
}

void power_rows(const struct power_spec *s, double target, struct power_row **rows, size_t *n)
{
    size_t fam = power_family_size(s), i, j, nr = 0;
    double level = fam ? s->alpha / (double)fam : s->alpha;
    struct power_row *v = xcalloc(fam + 2, sizeof(*v));
    for (i = 0; i < s->n_cells; i++) {
        struct power_row *r = &v[nr++];
        r->scope = POWER_CELL;
        r->length = s->cells[i].length;
        r->depth_bp = s->cells[i].depth_bp;
        fill_row(s, r, i, i + 1, level, target);
    }
    for (i = 0; i < s->n_cells; i = j) {
        struct power_row *r = &v[nr++];
        for (j = i; j < s->n_cells && s->cells[j].length == s->cells[i].length; j++)
            ;
        r->scope = POWER_LENGTH;
        r->length = s->cells[i].length;
        r->depth_bp = -1;
        fill_row(s, r, i, j, level, target);
    }
    if (s->n_cells) {
        struct power_row *r = &v[nr++];
        r->scope = POWER_OVERALL;
        r->depth_bp = -1;
        fill_row(s, r, 0, s->n_cells, s->alpha, target);
    }
    *rows = v;
    *n = nr;
}

/* A standard normal draw (Box-Muller on the stats PRNG). */
static double gauss(struct stats_rng *r)
{
    double u1 = ((double)(stats_rng_next(r) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
    double u2 = (double)(stats_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

double power_fail_rate(const struct power_spec *s, const double *drop, unsigned iters,
                       unsigned long long seed)
{
    size_t fam = power_family_size(s), nt, i, j, k, nl = fam - s->n_cells;
    double q = (double)s->questions, r = (double)s->repeats;
    double *mean = xcalloc(s->n_cells + 1, sizeof(double));
    double *sd_ind = xcalloc(s->n_cells + 1, sizeof(double));
    double *sd_shared = xcalloc(s->n_cells + 1, sizeof(double));
    double *t = xcalloc(fam + 1, sizeof(double)), *sd0 = xcalloc(fam + 1, sizeof(double));
    double *pairs = xcalloc(fam + 1, sizeof(double)), *p = xcalloc(fam + 1, sizeof(double));
    size_t *first = xcalloc(nl + 1, sizeof(size_t));
    struct stats_rng rng;
    unsigned it;
    long fails = 0;

    /* T_c = Q E_c + sqrt(Q) (sqrt(icc) sd_c r G + sqrt((1 - icc) r) sd_c E_c) */
    for (i = 0; i < s->n_cells; i++) {
        double v = discordance(s, s->cells[i].accuracy, drop[i]);
        double var = v - drop[i] * drop[i];
        struct moments m;
        if (var < 0.0)
            var = 0.0;
        mean[i] = q * r * drop[i];
        sd_shared[i] = sqrt(q) * sqrt(s->icc) * sqrt(var) * r;
        sd_ind[i] = sqrt(q) * sqrt((1.0 - s->icc) * r) * sqrt(var);
        scope_moments(s, i, i + 1, drop, 0.0, &m);
        sd0[i] = sqrt(q * (m.var + m.mean * m.mean));
        pairs[i] = q * r;
    }
    for (i = 0, nt = 0; i < s->n_cells; i = j) {
        struct moments m;
        for (j = i; j < s->n_cells && s->cells[j].length == s->cells[i].length; j++)
            ;
        first[nt] = i;
        scope_moments(s, i, j, drop, 0.0, &m);
        sd0[s->n_cells + nt] = sqrt(q * (m.var + m.mean * m.mean));
        pairs[s->n_cells + nt] = q * m.pairs;
        nt++;
    }
    first[nt] = s->n_cells;

    stats_rng_seed(&rng, seed);
    for (it = 0; it < iters; it++) {
        double g = gauss(&rng);
        int fail = 0;
        for (i = 0; i < s->n_cells; i++)
            t[i] = mean[i] + sd_shared[i] * g + sd_ind[i] * gauss(&rng);
        for (k = 0; k < nl; k++) {
            t[s->n_cells + k] = 0.0;
            for (i = first[k]; i < first[k + 1]; i++)
                t[s->n_cells + k] += t[i];
        }
        for (k = 0; k < fam; k++)
            p[k] = sd0[k] > 0.0 ? stats_norm_upper((t[k] - 1.0) / sd0[k]) : 1.0;
        holm_adjust(p, fam, p);
        for (k = 0; k < fam && !fail; k++)
            fail = p[k] < s->alpha && t[k] / pairs[k] >= s->tolerance - 1e-9;
        fails += fail;
    }
    free(mean);
    free(sd_ind);
    free(sd_shared);
    free(t);
    free(sd0);
    free(pairs);
    free(p);
    free(first);
    return iters ? (double)fails / (double)iters : 0.0;
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
    if (sb.len >= 2 && !strcmp(sb.buf + sb.len - 2, "pp"))
        strbuf_setlen(&sb, sb.len - 2);
    else if (sb.len >= 1 && sb.buf[sb.len - 1] == '%')
        strbuf_setlen(&sb, sb.len - 1);
    if (!sb.len || parse_double(sb.buf, &v) || !(v >= 0.0) || v > 100.0) {
        strbuf_addf(err, "'%s' is not a drop in percentage points between 0 and 100 (e.g. 5pp)", s);
        rc = -1;
    } else {
        *out = v / 100.0;
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
    if (r->scope == POWER_OVERALL) {
        strbuf_addstr(out, "overall");
        return;
    }
    plan_format_length(out, r->length);
    if (r->scope == POWER_CELL) {
        strbuf_addstr(out, " @ ");
        plan_format_depth(out, r->depth_bp);
    } else {
        strbuf_addstr(out, " (all depths)");
    }
}

void power_summary(const struct power_spec *s, double target, struct strbuf *out)
{
    struct power_row *rows;
    size_t n, i, fam = power_family_size(s);
    int same_cells;
    power_rows(s, target, &rows, &n);
    strbuf_addf(out,
                "power (compare's sign-flip test over questions): %zu questions x %zu cells, "
                "%d repeat%s; alpha %g, tolerance %.1f pp, Holm family %zu tests (cells and "
                "lengths are planned at alpha/%zu = %.3g, Holm's first step; overall at alpha, "
                "reported but not part of the verdict)\n",
                s->questions, s->n_cells, s->repeats, s->repeats == 1 ? "" : "s", s->alpha,
                s->tolerance * 100.0, fam, fam, s->alpha / (double)(fam ? fam : 1));
    strbuf_addf(out, "  %-22s %8s %9s  %-22s%s\n", "scope", "pairs/q", "accuracy",
                "min. drop at 80% power", target > 0 ? "  questions needed" : "");
    /* cells that all plan alike (an assumed accuracy) are one row */
    for (i = 1; i < s->n_cells && s->cells[i].accuracy == s->cells[0].accuracy; i++)
        ;
    same_cells = s->n_cells > 1 && i == s->n_cells;
    for (i = 0; i < n; i++) {
        struct strbuf name = STRBUF_INIT, d = STRBUF_INIT;
        double acc = 0.0;
        size_t k, nk = 0;
        if (same_cells && rows[i].scope == POWER_CELL && i > 0)
            continue;
        for (k = 0; k < s->n_cells; k++)
            if (rows[i].scope == POWER_OVERALL ||
                (s->cells[k].length == rows[i].length &&
                 (rows[i].scope == POWER_LENGTH || s->cells[k].depth_bp == rows[i].depth_bp))) {
                acc += s->cells[k].accuracy;
                nk++;
            }
        if (same_cells && rows[i].scope == POWER_CELL)
            strbuf_addstr(&name, "each cell");
        else
            row_name(&name, &rows[i]);
        add_drop(&d, rows[i].mde);
        strbuf_addf(out, target > 0 ? "  %-22s %8ld %8.1f%%  %-22s" : "  %-22s %8ld %8.1f%%  %s",
                    name.buf, rows[i].pairs, nk ? acc / (double)nk * 100.0 : 0.0, d.buf);
        if (target > 0) {
            if (rows[i].need_q < 0)
                strbuf_addstr(out, "  more than 1000000");
            else
                strbuf_addf(out, "  %ld", rows[i].need_q);
        }
        strbuf_addch(out, '\n');
        strbuf_release(&name);
        strbuf_release(&d);
    }
    if (target > 0)
        strbuf_addf(out,
                    "  (questions needed: for a drop of %.1f pp at 80%% power, each scope "
                    "on its own)\n",
                    target * 100.0);
    if (target > 0 && target <= s->tolerance + 1e-12)
        strbuf_addf(out,
                    "  note: %.1f pp is not above the tolerance %.1f pp; compare calls a drop a "
                    "regression only when the observed drop reaches the tolerance, which a true "
                    "drop at the tolerance does half the time, so 80%% power needs a larger "
                    "drop or a smaller --tolerance\n",
                    target * 100.0, s->tolerance * 100.0);
    free(rows);
}

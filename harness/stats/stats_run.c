/*
 * Run statistics: per-cell accuracy with question-clustered intervals and
 * coverage, per-length edge/middle/dip with a seeded question (cluster)
 * bootstrap, effective length, warnings, ordering advice, control and
 * cache figures, from a run's trials. Pure: no I/O and no global state.
 */
#include "stats/stats.h"
#include "stats/decomp.h"
#include "stats/hops.h"
#include "stats/absent_stats.h"
#include "stats/ordinal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/num.h"
#include "run/plan.h"
#include "base/rng.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"

#include "base/banned.h"

void stats_options_init(struct stats_options *o)
{
    *o = (struct stats_options)STATS_OPTIONS_INIT;
}

/* ---- run statistics ---- */

static int cmp_trial_cell(const void *a, const void *b)
{
    const struct trial_point *x = *(const struct trial_point *const *)a;
    const struct trial_point *y = *(const struct trial_point *const *)b;
    if (x->length != y->length)
        return x->length < y->length ? -1 : 1;
    if (x->depth_bp != y->depth_bp)
        return x->depth_bp < y->depth_bp ? -1 : 1;
    return 0;
}

/* part / whole, 0 when whole is 0: accuracy (correct of valid) and coverage (valid of trials). */
static double share(long part, long whole)
{
    return whole ? (double)part / (double)whole : 0.0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static long question_index(const char **ids, size_t n, const char *id)
{
    const char **hit = bsearch(&id, ids, n, sizeof(*ids), cmp_str);
    return hit ? (long)(hit - ids) : -1;
}

/* A depth counts towards the primary middle: interior and within 25-75%. */
static int is_mid_depth(int depth_bp)
{
    return depth_bp >= 2500 && depth_bp <= 7500;
}

enum depth_role stats_depth_role(size_t rank, size_t n_with_data, int depth_bp)
{
    if (!n_with_data || rank >= n_with_data)
        return DEPTH_ROLE_OTHER;
    if (rank == 0 || rank == n_with_data - 1)
        return DEPTH_ROLE_EDGE;
    return is_mid_depth(depth_bp) ? DEPTH_ROLE_MIDDLE : DEPTH_ROLE_OTHER;
}

/*
 * Summary of one depth curve given per-cell (valid, correct) counts. Cells
 * without valid trials are skipped.
 */
struct curve {
    int n_depths;
    int lo_i, hi_i; /* cell indices of the edges */
    double edge_lo, edge_hi, edge;
    int has_worst, worst_i;
    double middle_worst;
    int has_middle;
    double middle;
};

static void curve_summary(const struct cell_stats *cells, size_t n, const long *valid,
                          const long *correct, struct curve *c)
{
    size_t i, rank;
    double sum = 0.0;
    int nm = 0;
    memset(c, 0, sizeof(*c));
    c->lo_i = c->hi_i = c->worst_i = -1;
    for (i = 0; i < n; i++) {
        if (valid[i] <= 0)
            continue;
        if (c->lo_i < 0)
            c->lo_i = (int)i;
        c->hi_i = (int)i;
        c->n_depths++;
    }
    if (!c->n_depths)
        return;
    c->edge_lo = (double)correct[c->lo_i] / (double)valid[c->lo_i];
    c->edge_hi = (double)correct[c->hi_i] / (double)valid[c->hi_i];
    c->edge = (c->edge_lo + c->edge_hi) / 2.0;
    for (i = 0, rank = 0; i < n; i++) {
        double a;
        enum depth_role role;
        if (valid[i] <= 0)
            continue;
        role = stats_depth_role(rank++, (size_t)c->n_depths, cells[i].depth_bp);
        if (role == DEPTH_ROLE_EDGE)
            continue;
        a = (double)correct[i] / (double)valid[i];
        if (!c->has_worst || a < c->middle_worst) {
            c->middle_worst = a;
            c->worst_i = (int)i;
        }
        c->has_worst = 1;
        if (role == DEPTH_ROLE_MIDDLE) {
            sum += a;
            nm++;
        }
    }
    if (nm) {
        c->has_middle = 1;
        c->middle = sum / nm;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/*
 * Interval from n bootstrap replicates v (sorted here) of a statistic over
 * nq clusters: Hesterberg's expanded percentile interval (The American
 * Statistician 69(4), 2015, s. 5.4). The bootstrap variance is (nq - 1)/nq
 * of the sampling variance and a percentile interval uses normal quantiles
 * where t quantiles belong, so with few clusters it under-covers; the
 * expanded interval takes the percentiles at a'/2 and 1 - a'/2 with
 * Phi^-1(a'/2) = -sqrt(nq / (nq - 1)) t(a/2; nq - 1). basic: the basic
 * (reverse percentile) interval [2 est - q_hi, 2 est - q_lo] at the same
 * levels. Clamped to [lo_min, hi_max].
 */
static void set_interval(struct estimate *e, double *v, size_t n, double conf, int basic,
                         double lo_min, double hi_max, size_t nq)
{
    double a = 1.0 - conf, ql, qh;
    if (!n)
        return;
    if (nq >= 2) {
        double t = stats_t_upper_inv(a / 2.0, (long)nq - 1) * sqrt((double)nq / (double)(nq - 1));
        a = 2.0 * stats_norm_upper(t);
    }
    qsort(v, n, sizeof(*v), cmp_double);
    ql = stats_quantile_sorted(v, n, a / 2.0);
    qh = stats_quantile_sorted(v, n, 1.0 - a / 2.0);
    if (basic) {
        e->lo = 2.0 * e->est - qh;
        e->hi = 2.0 * e->est - ql;
    } else {
        e->lo = ql;
        e->hi = qh;
    }
    if (e->lo < lo_min)
        e->lo = lo_min;
    if (e->hi > hi_max)
        e->hi = hi_max;
}

void stats_bootstrap_interval(struct estimate *e, double *v, size_t n, double conf, double lo_min,
                              double hi_max, size_t nq)
{
    set_interval(e, v, n, conf, 0, lo_min, hi_max, nq);
}

/* The whole range of a quantity: an interval that cannot be estimated. */
static void whole_range(struct estimate *e, double lo, double hi)
{
    e->lo = lo;
    e->hi = hi;
}

/*
 * Bootstrap over questions for one length: resample the questions that have
 * a valid trial at this length (each with all its depths and repeats),
 * recompute edge, middle, dip and -- re-selecting the worst interior depth
 * in every replicate -- middle_worst and dip_worst. qv/qc are
 * n_ids x n_cells count matrices, qs the nq question rows used.
 */
static void bootstrap_length(struct length_stats *ls, const struct cell_stats *cells,
                             const long *qv, const long *qc, const size_t *qs, size_t nq,
                             size_t ncells, const struct stats_options *opt,
                             unsigned long long seed, const struct curve *cv)
{
    struct rng rng;
    /* slot 0 = shallow edge, 1 = deep edge, then every interior depth with data */
    size_t *slot_cell = xcalloc(ncells + 2, sizeof(*slot_cell));
    char *slot_mid = xcalloc(ncells + 2, 1);
    size_t nslots = 0, k, j, iters = opt->bootstrap_iters;
    long *pk, *sum;
    double *edge = xcalloc(iters, sizeof(double)), *mid = xcalloc(iters, sizeof(double));
    double *dip = xcalloc(iters, sizeof(double)), *mw = xcalloc(iters, sizeof(double));
    double *dipw = xcalloc(iters, sizeof(double));
    size_t ne = 0, nm = 0, nw = 0;
    unsigned it;

    slot_cell[nslots++] = (size_t)cv->lo_i;
    slot_cell[nslots++] = (size_t)cv->hi_i;
    for (k = 0; k < ncells; k++) {
        if ((int)k == cv->lo_i || (int)k == cv->hi_i || cells[k].n_valid <= 0)
            continue;
        slot_mid[nslots] = (char)is_mid_depth(cells[k].depth_bp);
        slot_cell[nslots++] = k;
    }
    pk = xcalloc(st_mult(nq, 2 * nslots), sizeof(*pk));
    sum = xcalloc(2 * nslots, sizeof(*sum));
    for (j = 0; j < nq; j++)
        for (k = 0; k < nslots; k++) {
            pk[j * 2 * nslots + 2 * k] = qv[qs[j] * ncells + slot_cell[k]];
            pk[j * 2 * nslots + 2 * k + 1] = qc[qs[j] * ncells + slot_cell[k]];
        }

    rng_seed(&rng, seed);
    for (it = 0; it < iters; it++) {
        double e, acc = 0.0, worst = 2.0;
        int n_mid = 0, n_int = 0;
        memset(sum, 0, 2 * nslots * sizeof(*sum));
        for (j = 0; j < nq; j++) {
            const long *row = pk + rng_index(&rng, nq) * 2 * nslots;
            /* (valid, correct) per slot: two adds a step halve the loop overhead */
            for (k = 0; k < 2 * nslots; k += 2) {
                sum[k] += row[k];
                sum[k + 1] += row[k + 1];
            }
        }
        if (sum[0] <= 0 || sum[2] <= 0)
            continue;
        e = ((double)sum[1] / (double)sum[0] + (double)sum[3] / (double)sum[2]) / 2.0;
        edge[ne++] = e;
        for (k = 2; k < nslots; k++) {
            double a;
            if (sum[2 * k] <= 0)
                continue;
            a = (double)sum[2 * k + 1] / (double)sum[2 * k];
            n_int++;
            if (a < worst)
                worst = a;
            if (slot_mid[k]) {
                acc += a;
                n_mid++;
            }
        }
        if (n_mid) {
            mid[nm] = acc / n_mid;
            dip[nm++] = e - acc / n_mid;
        }
        if (n_int) {
            mw[nw] = worst;
            dipw[nw++] = e - worst;
        }
    }
    if (nq < 2) {
        whole_range(&ls->edge, 0.0, 1.0);
        whole_range(&ls->middle, 0.0, 1.0);
        whole_range(&ls->dip, -1.0, 1.0);
        whole_range(&ls->middle_worst, 0.0, 1.0);
        whole_range(&ls->dip_worst, -1.0, 1.0);
    } else {
        set_interval(&ls->edge, edge, ne, opt->confidence, 0, 0.0, 1.0, nq);
        if (ls->has_middle) {
            set_interval(&ls->middle, mid, nm, opt->confidence, 0, 0.0, 1.0, nq);
            set_interval(&ls->dip, dip, nm, opt->confidence, 0, -1.0, 1.0, nq);
        }
        if (ls->has_worst) {
            set_interval(&ls->middle_worst, mw, nw, opt->confidence, 1, 0.0, 1.0, nq);
            set_interval(&ls->dip_worst, dipw, nw, opt->confidence, 1, -1.0, 1.0, nq);
        }
    }
    free(slot_cell);
    free(slot_mid);
    free(pk);
    free(sum);
    free(edge);
    free(mid);
    free(dip);
    free(mw);
    free(dipw);
}

static void point_estimate(struct estimate *e, double x)
{
    e->est = e->lo = e->hi = x;
}

/* Cell value `which` (0 accuracy, 1 interval low, 2 high) interpolated at depth. */
static double length_value_at(const struct run_stats *s, const struct length_stats *ls,
                              double depth, int which)
{
    const struct cell_stats *cells = s->cells + ls->first_cell;
    size_t i;
    int have_prev = 0;
    double px = 0.0, py = 0.0;
    for (i = 0; i < ls->n_cells; i++) {
        double x, y;
        if (cells[i].n_valid <= 0)
            continue;
        x = cells[i].depth_bp / (double)DEPTH_BP_MAX;
        y = which == 1 ? cells[i].ci_lo : which == 2 ? cells[i].ci_hi : cells[i].accuracy;
        if (depth <= x) {
            if (!have_prev || x == px)
                return y;
            return py + (y - py) * (depth - px) / (x - px);
        }
        px = x;
        py = y;
        have_prev = 1;
    }
    return have_prev ? py : 0.0;
}

double length_accuracy_at(const struct run_stats *s, const struct length_stats *ls, double depth)
{
    return length_value_at(s, ls, depth, 0);
}

void length_interval_at(const struct run_stats *s, const struct length_stats *ls, double depth,
                        double *lo, double *hi)
{
    *lo = length_value_at(s, ls, depth, 1);
    *hi = length_value_at(s, ls, depth, 2);
}

static void length_realized(struct length_stats *ls, const struct trial_point *const *t, size_t n,
                            double tol)
{
    size_t i;
    double sum = 0.0, rsum = 0.0;
    for (i = 0; i < n; i++) {
        double ratio, dev;
        if (t[i]->outcome == OUTCOME_PENDING || t[i]->realized_length <= 0)
            continue;
        if (!ls->n_realized || t[i]->realized_length < ls->realized_min)
            ls->realized_min = t[i]->realized_length;
        if (!ls->n_realized || t[i]->realized_length > ls->realized_max)
            ls->realized_max = t[i]->realized_length;
        ls->n_realized++;
        sum += (double)t[i]->realized_length;
        if (t[i]->usage_prompt_tokens < 0)
            continue;
        ratio = (double)t[i]->usage_prompt_tokens / (double)t[i]->realized_length;
        dev = fabs(ratio - 1.0);
        ls->n_usage++;
        rsum += ratio;
        if (dev > ls->usage_ratio_max_dev)
            ls->usage_ratio_max_dev = dev;
        if (dev > tol)
            ls->tokenizer_mismatches++;
    }
    ls->realized_mean = ls->n_realized ? sum / (double)ls->n_realized : 0.0;
    ls->usage_ratio_mean = ls->n_usage ? rsum / (double)ls->n_usage : 0.0;
}

static const int default_k[] = {5, 10, 20};

static void compute_advice(struct run_stats *s, const struct stats_options *opt)
{
    const int *ks = opt->advice_k ? opt->advice_k : default_k;
    size_t nk = opt->advice_k ? opt->n_advice_k : sizeof(default_k) / sizeof(default_k[0]);
    size_t li, ki, alloc = 0;

    for (li = 0; li < s->n_lengths; li++) {
        struct length_stats *ls = &s->lengths[li];
        if (!ls->n_depths)
            continue;
        for (ki = 0; ki < nk; ki++) {
            int k = ks[ki], r, o;
            double *acc, *probs, ret = 0.0;
            struct ordering_advice *a;
            if (k <= 0)
                continue;
            acc = xcalloc((size_t)k, sizeof(double));
            probs = xcalloc((size_t)k, sizeof(double));
            for (r = 0; r < k; r++) {
                acc[r] = length_accuracy_at(s, ls, k > 1 ? (double)r / (k - 1) : 0.5);
                if (opt->rank_probs)
                    probs[r] = (size_t)r < opt->n_rank_probs ? opt->rank_probs[r] : 0.0;
                else
                    probs[r] = opt->geometric_p * pow(1.0 - opt->geometric_p, r);
                ret += probs[r];
            }
            ALLOC_GROW(s->advice, s->n_advice + 1, alloc);
            a = &s->advice[s->n_advice++];
            memset(a, 0, sizeof(*a));
            a->length = ls->length;
            a->k = k;
            a->retrieved = ret > 1.0 ? 1.0 : ret;
            for (o = 0; o < ORDER__COUNT; o++)
                a->accuracy[o] = ordering_expected_accuracy((enum ordering)o, acc, probs, k);
            free(acc);
            free(probs);
        }
    }
}

/*
 * Question-clustered interval of every cell of one length: the design
 * effect over the questions' (valid, correct) counts, then Wilson at the
 * effective size. qv/qc are n_ids x ncells, qs the nq rows with data.
 */
static void cell_intervals(struct cell_stats *cells, size_t ncells, const long *qv, const long *qc,
                           const size_t *qs, size_t nq, double z)
{
    long *m = xcalloc(nq ? nq : 1, sizeof(*m)), *y = xcalloc(nq ? nq : 1, sizeof(*y));
    size_t k, j;
    for (k = 0; k < ncells; k++) {
        struct cell_stats *c = &cells[k];
        c->n_questions = 0;
        for (j = 0; j < nq; j++) {
            m[j] = qv[qs[j] * ncells + k];
            y[j] = qc[qs[j] * ncells + k];
            c->n_questions += m[j] > 0;
        }
        if (c->n_valid <= 0)
            continue;
        cluster_interval(m, y, nq, z, &c->design_effect, &c->ci_lo, &c->ci_hi);
    }
    free(m);
    free(y);
}

/* The effective length against an absolute reference accuracy (0: undefined). */
static void effective_length(struct run_stats *out, double reference, double fraction,
                             int from_oracle)
{
    size_t i, j;
    out->effective_defined = 0;
    out->effective_reference = out->effective_threshold = 0.0;
    out->effective_length = 0;
    out->effective_from_oracle = from_oracle;
    if (!(reference > 0.0))
        return;
    out->effective_defined = 1;
    out->effective_reference = reference;
    out->effective_threshold = fraction * reference;
    for (i = 0; i < out->n_lengths; i++) {
        const struct length_stats *ls = &out->lengths[i];
        int ok = ls->n_depths > 0;
        for (j = 0; ok && j < ls->n_cells; j++) {
            const struct cell_stats *cs = &out->cells[ls->first_cell + j];
            if (cs->n_valid > 0 && cs->accuracy < out->effective_threshold)
                ok = 0;
        }
        if (ok)
            out->effective_length = ls->length;
    }
}

/* The options are usable: confidence in (0,1), p in (0,1], rank probabilities summing to <= 1. */
static int check_options(const struct stats_options *opt, struct strbuf *err)
{
    if (opt->confidence <= 0.0 || opt->confidence >= 1.0) {
        if (err)
            strbuf_addf(err, "confidence must be between 0 and 1, not %g", opt->confidence);
        return -1;
    }
    if (!opt->rank_probs && (opt->geometric_p <= 0.0 || opt->geometric_p > 1.0)) {
        if (err)
            strbuf_addf(err, "geometric p must be in (0, 1], not %g", opt->geometric_p);
        return -1;
    }
    if (opt->rank_probs) {
        double sum = 0.0;
        for (size_t i = 0; i < opt->n_rank_probs; i++) {
            if (opt->rank_probs[i] < 0.0) {
                if (err)
                    strbuf_addf(err, "rank %lu has a negative probability", (unsigned long)i + 1);
                return -1;
            }
            sum += opt->rank_probs[i];
        }
        if (sum > 1.0 + 1e-6) {
            if (err)
                strbuf_addf(err, "rank probabilities sum to %g, more than 1", sum);
            return -1;
        }
    }
    return 0;
}

/* The distinct question ids, sorted, pointing into trials (caller frees the array). */
static const char **distinct_question_ids(const struct trial_point *trials, size_t n, size_t *nids)
{
    const char **ids = xcalloc(n, sizeof(*ids));
    size_t i;
    for (i = 0; i < n; i++)
        ids[i] = trials[i].question_id ? trials[i].question_id : "";
    qsort(ids, n, sizeof(*ids), cmp_str);
    *nids = 0;
    for (i = 0; i < n; i++)
        if (!*nids || strcmp(ids[*nids - 1], ids[i]))
            ids[(*nids)++] = ids[i];
    return ids;
}

/* One cell per (length, depth) of the sorted trials: outcomes, accuracy, Wilson; run totals. */
static void sum_cells(const struct trial_point **sorted, size_t n, double z, struct run_stats *out)
{
    size_t i, j, cell_alloc = 0;
    for (i = 0; i < n; i = j) {
        struct cell_stats *c;
        double rd = 0.0;
        long nrd = 0;
        for (j = i; j < n && !cmp_trial_cell(&sorted[i], &sorted[j]); j++)
            ;
        ALLOC_GROW(out->cells, out->n_cells + 1, cell_alloc);
        c = &out->cells[out->n_cells++];
        memset(c, 0, sizeof(*c));
        c->length = sorted[i]->length;
        c->depth_bp = sorted[i]->depth_bp;
        c->mean_realized_depth = -1.0;
        for (size_t k = i; k < j; k++) {
            enum trial_outcome o = sorted[k]->outcome;
            if ((unsigned)o >= OUTCOME__COUNT)
                o = OUTCOME_ERROR;
            c->outcomes[o]++;
            if (o == OUTCOME_PENDING) {
                c->n_pending++;
                continue;
            }
            c->n_trials++;
            if (o == OUTCOME_STARVED)
                c->starved_reasoning_tokens += trial_reasoning_spent(sorted[k]->reasoning_tokens,
                                                                     sorted[k]->completion_tokens);
            if (outcome_is_scored(o)) {
                c->n_cut += sorted[k]->cut != 0;
                c->n_valid++;
                if (o == OUTCOME_CORRECT)
                    c->n_correct++;
            }
            if (sorted[k]->realized_length > 0) {
                rd += sorted[k]->realized_depth;
                nrd++;
            }
        }
        c->accuracy = share(c->n_correct, c->n_valid);
        wilson_interval(c->n_correct, c->n_valid, z, &c->ci_lo, &c->ci_hi);
        c->design_effect = 1.0;
        c->coverage = share(c->n_valid, c->n_trials);
        if (nrd)
            c->mean_realized_depth = rd / (double)nrd;
        out->n_trials += c->n_trials;
        out->n_valid += c->n_valid;
        out->n_correct += c->n_correct;
        for (int o = 0; o < OUTCOME__COUNT; o++)
            out->outcomes[o] += c->outcomes[o];
        out->n_cut += c->n_cut;
        out->starved_reasoning_tokens += c->starved_reasoning_tokens;
    }
}

/* The questions with a scored trial and the repeats (qseen: nids bytes of scratch). */
static void count_questions(const struct trial_point *trials, size_t n, const char **ids,
                            size_t nids, char *qseen, struct run_stats *out)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (outcome_is_scored(trials[i].outcome))
            qseen[question_index(ids, nids, trials[i].question_id ? trials[i].question_id : "")] =
                1;
    for (i = 0; i < nids; i++)
        out->n_questions += qseen[i];
    for (i = 0; i < n; i++)
        if (outcome_is_scored(trials[i].outcome) && trials[i].repeat + 1 > out->n_repeats)
            out->n_repeats = trials[i].repeat + 1;
}

/* The length's U-curve from its cells (cl, valid counts v): edges, middle, worst, dip, AUC. */
static void length_shape(struct length_stats *ls, const struct cell_stats *cl, const long *v,
                         const struct curve *cv)
{
    ls->n_depths = cv->n_depths;
    if (!cv->n_depths)
        return;
    ls->edge_lo_depth_bp = cl[cv->lo_i].depth_bp;
    ls->edge_hi_depth_bp = cl[cv->hi_i].depth_bp;
    ls->edge_lo_accuracy = cv->edge_lo;
    ls->edge_hi_accuracy = cv->edge_hi;
    point_estimate(&ls->edge, cv->edge);
    ls->has_worst = cv->has_worst;
    if (cv->has_worst) {
        ls->middle_worst_depth_bp = cl[cv->worst_i].depth_bp;
        point_estimate(&ls->middle_worst, cv->middle_worst);
        point_estimate(&ls->dip_worst, cv->edge - cv->middle_worst);
    }
    ls->has_middle = cv->has_middle;
    if (cv->has_middle) {
        point_estimate(&ls->middle, cv->middle);
        point_estimate(&ls->dip, cv->edge - cv->middle);
    }
    /* AUC by trapezoids over depth, normalised by the span */
    if (cv->n_depths == 1) {
        ls->auc = cv->edge;
    } else {
        double area = 0.0, px = 0.0, py = 0.0;
        int have = 0;
        for (size_t k = 0; k < ls->n_cells; k++) {
            double x, y;
            if (v[k] <= 0)
                continue;
            x = cl[k].depth_bp / (double)DEPTH_BP_MAX;
            y = cl[k].accuracy;
            if (have)
                area += (x - px) * (y + py) / 2.0;
            px = x;
            py = y;
            have = 1;
        }
        ls->auc = area / ((cl[cv->hi_i].depth_bp - cl[cv->lo_i].depth_bp) / (double)DEPTH_BP_MAX);
    }
}

/*
 * The length's question-clustered cell intervals and bootstrap, from the per-question
 * (valid, correct) count matrix of its nt trials t (qseen: nids bytes of scratch).
 */
static void length_questions(struct length_stats *ls, struct cell_stats *cl,
                             const struct trial_point *const *t, size_t nt, const char **ids,
                             size_t nids, char *qseen, const struct stats_options *opt,
                             const struct curve *cv)
{
    long *qv = xcalloc(st_mult(nids, ls->n_cells), sizeof(*qv));
    long *qc = xcalloc(st_mult(nids, ls->n_cells), sizeof(*qc));
    size_t *qs, nq = 0, k;

    memset(qseen, 0, nids);
    for (k = 0; k < nt; k++) {
        const struct trial_point *tr = t[k];
        long q;
        size_t cell = 0;
        if (!outcome_is_scored(tr->outcome))
            continue;
        q = question_index(ids, nids, tr->question_id ? tr->question_id : "");
        while (cell < ls->n_cells && cl[cell].depth_bp != tr->depth_bp)
            cell++;
        qv[(size_t)q * ls->n_cells + cell]++;
        if (tr->outcome == OUTCOME_CORRECT)
            qc[(size_t)q * ls->n_cells + cell]++;
        qseen[q] = 1;
    }
    qs = xcalloc(nids ? nids : 1, sizeof(*qs));
    for (k = 0; k < nids; k++)
        if (qseen[k])
            qs[nq++] = k;
    ls->n_questions = nq;
    cell_intervals(cl, ls->n_cells, qv, qc, qs, nq, opt->z);
    if (opt->bootstrap_iters && nq && cv->n_depths)
        bootstrap_length(ls, cl, qv, qc, qs, nq, ls->n_cells, opt,
                         opt->seed ^ ((unsigned long long)ls->length * 0x9E3779B97F4A7C15ULL), cv);
    free(qs);
    free(qv);
    free(qc);
}

/* One length from cells [i, j) (its trials contiguous in sorted): sums, shape, intervals. */
static void compute_length(struct run_stats *out, size_t i, size_t j,
                           const struct trial_point **sorted, size_t n, const char **ids,
                           size_t nids, char *qseen, const struct stats_options *opt)
{
    struct length_stats *ls = &out->lengths[out->n_lengths - 1];
    struct cell_stats *cl = out->cells + i;
    struct curve cv;
    size_t first_trial, last_trial, k;
    long *v, *c;

    memset(ls, 0, sizeof(*ls));
    ls->length = cl[0].length;
    ls->first_cell = i;
    ls->n_cells = j - i;
    v = xcalloc(ls->n_cells, sizeof(*v));
    c = xcalloc(ls->n_cells, sizeof(*c));
    for (k = 0; k < ls->n_cells; k++) {
        v[k] = cl[k].n_valid;
        c[k] = cl[k].n_correct;
        ls->n_trials += cl[k].n_trials;
        ls->n_valid += cl[k].n_valid;
        ls->n_correct += cl[k].n_correct;
        for (int o = 0; o < OUTCOME__COUNT; o++)
            ls->outcomes[o] += cl[k].outcomes[o];
    }
    ls->accuracy = share(ls->n_correct, ls->n_valid);
    ls->coverage = share(ls->n_valid, ls->n_trials);
    curve_summary(cl, ls->n_cells, v, c, &cv);
    length_shape(ls, cl, v, &cv);

    for (first_trial = 0; first_trial < n && sorted[first_trial]->length != ls->length;
         first_trial++)
        ;
    for (last_trial = first_trial; last_trial < n && sorted[last_trial]->length == ls->length;
         last_trial++)
        ;
    length_realized(ls, sorted + first_trial, last_trial - first_trial, opt->mismatch_tolerance);
    length_questions(ls, cl, sorted + first_trial, last_trial - first_trial, ids, nids, qseen, opt,
                     &cv);
    free(v);
    free(c);
}

/* The depth curve of the non-control trials: cells, lengths, effective length, advice. */
static int compute_curve(const struct trial_point *trials, size_t n,
                         const struct stats_options *opt_in, struct run_stats *out,
                         struct strbuf *err)
{
    struct stats_options defopt;
    const struct stats_options *opt = opt_in;
    const struct trial_point **sorted;
    const char **ids;
    size_t nids = 0, i, j, len_alloc = 0;
    char *qseen;

    memset(out, 0, sizeof(*out));
    if (!opt) {
        stats_options_init(&defopt);
        opt = &defopt;
    }
    if (check_options(opt, err) < 0)
        return -1;
    out->bootstrap_iters = opt->bootstrap_iters;
    out->seed = opt->seed;
    out->confidence = opt->confidence;
    out->geometric_p = opt->rank_probs ? 0.0 : opt->geometric_p;
    out->n_rank_probs = opt->rank_probs ? opt->n_rank_probs : 0;
    if (!n)
        return 0;

    ids = distinct_question_ids(trials, n, &nids);
    sorted = xcalloc(n, sizeof(*sorted));
    for (i = 0; i < n; i++)
        sorted[i] = &trials[i];
    qsort(sorted, n, sizeof(*sorted), cmp_trial_cell);
    sum_cells(sorted, n, opt->z, out);
    qseen = xcalloc(nids ? nids : 1, 1);
    count_questions(trials, n, ids, nids, qseen, out);
    out->accuracy = share(out->n_correct, out->n_valid);
    out->coverage = share(out->n_valid, out->n_trials);

    /* the cells are sorted by length: each run of one length is a length */
    for (i = 0; i < out->n_cells; i = j) {
        for (j = i; j < out->n_cells && out->cells[j].length == out->cells[i].length; j++)
            ;
        ALLOC_GROW(out->lengths, out->n_lengths + 1, len_alloc);
        out->n_lengths++;
        compute_length(out, i, j, sorted, n, ids, nids, qseen, opt);
    }

    /* effective length, against the shortest length's edge (the oracle, when run, later) */
    for (i = 0; i < out->n_lengths; i++)
        if (out->lengths[i].n_depths)
            break;
    if (i < out->n_lengths)
        effective_length(out, out->lengths[i].edge.est, opt->effective_fraction, 0);
    effective_length_ruler(out->lengths, out->n_lengths, opt->ruler_threshold, &out->ruler);
    effective_length_nolima(out->lengths, out->n_lengths, opt->nolima_base_max,
                            opt->nolima_fraction, &out->nolima);

    compute_advice(out, opt);

    free(qseen);
    free(sorted);
    free(ids);
    return 0;
}

static void count_small(const struct run_stats *s, size_t *cells, size_t *lengths)
{
    size_t i;
    *cells = *lengths = 0;
    for (i = 0; i < s->n_cells; i++)
        if (s->cells[i].n_valid > 0 && s->cells[i].n_questions < STATS_MIN_CLUSTERS)
            (*cells)++;
    for (i = 0; i < s->n_lengths; i++)
        if (s->lengths[i].n_valid > 0 && s->lengths[i].n_questions < STATS_MIN_CLUSTERS)
            (*lengths)++;
}

void stats_sample_warnings(size_t questions, int repeats, size_t small_cells, size_t small_lengths,
                           struct strvec *out)
{
    if (questions < STATS_MIN_QUESTIONS)
        strvec_pushf(out,
                     "only %lu question%s carry a result (fewer than %d): intervals are wide and "
                     "rough, and a dip or a regression is hard to tell from noise",
                     (unsigned long)questions, questions == 1 ? "" : "s", STATS_MIN_QUESTIONS);
    if ((size_t)repeats > questions)
        strvec_pushf(out,
                     "%d repeats exceed the %lu question%s: repeats of one question are "
                     "correlated, so they add little; more questions narrow the intervals, more "
                     "repeats barely do",
                     repeats, (unsigned long)questions, questions == 1 ? "" : "s");
    if (small_cells || small_lengths) {
        struct strbuf sb = STRBUF_INIT;
        strbuf_addstr(&sb, "the intervals and tests of ");
        if (small_cells)
            strbuf_addf(&sb, "%lu cell%s", (unsigned long)small_cells, small_cells == 1 ? "" : "s");
        if (small_cells && small_lengths)
            strbuf_addstr(&sb, " and ");
        if (small_lengths)
            strbuf_addf(&sb, "%lu length%s", (unsigned long)small_lengths,
                        small_lengths == 1 ? "" : "s");
        strbuf_addf(&sb, " rest on fewer than %d questions (clusters)", STATS_MIN_CLUSTERS);
        strvec_push(out, sb.buf);
        strbuf_release(&sb);
    }
}

void stats_warnings(const struct run_stats *s, struct strvec *out)
{
    size_t small_cells, small_lengths;
    if (!s->n_valid)
        return;
    count_small(s, &small_cells, &small_lengths);
    stats_sample_warnings(s->n_questions, s->n_repeats, small_cells, small_lengths, out);
}

/* Accuracy of one control over its trials (pointers), clustered by question. */
static void control_summary(struct control_stats *c, const struct trial_point **t, size_t n,
                            double z)
{
    long *m, *y;
    size_t i, j, nq = 0;
    memset(c, 0, sizeof(*c));
    if (!n)
        return;
    c->present = 1;
    m = xcalloc(n, sizeof(*m));
    y = xcalloc(n, sizeof(*y));
    /* t is sorted by question id */
    for (i = 0; i < n; i = j) {
        for (j = i; j < n && !strcmp(t[i]->question_id ? t[i]->question_id : "",
                                     t[j]->question_id ? t[j]->question_id : "");
             j++) {
            if (!outcome_is_scored(t[j]->outcome))
                continue;
            m[nq]++;
            y[nq] += t[j]->outcome == OUTCOME_CORRECT;
        }
        if (m[nq]) {
            c->n_valid += m[nq];
            c->n_correct += y[nq];
            nq++;
        }
    }
    c->n_questions = nq;
    c->accuracy = share(c->n_correct, c->n_valid);
    cluster_interval(m, y, nq, z, &c->design_effect, &c->ci_lo, &c->ci_hi);
    free(m);
    free(y);
}

static int cmp_trial_qid(const void *a, const void *b)
{
    const struct trial_point *x = *(const struct trial_point *const *)a;
    const struct trial_point *y = *(const struct trial_point *const *)b;
    return strcmp(x->question_id ? x->question_id : "", y->question_id ? y->question_id : "");
}

/* Group order for plan_cache_estimate(): question, length, repeat, axes, then depth. */
static int cmp_trial_group(const void *a, const void *b)
{
    const struct trial_point *x = *(const struct trial_point *const *)a,
                             *y = *(const struct trial_point *const *)b;
    int c = strcmp(x->question_id ? x->question_id : "", y->question_id ? y->question_id : "");
    if (c)
        return c;
    if (x->length != y->length)
        return x->length < y->length ? -1 : 1;
    if (x->repeat != y->repeat)
        return x->repeat < y->repeat ? -1 : 1;
    c = strcmp(x->axes ? x->axes : "", y->axes ? y->axes : "");
    if (c)
        return c;
    return (x->depth_bp > y->depth_bp) - (x->depth_bp < y->depth_bp);
}

/* struct cache_stats from every finished trial (see stats.h). */
static void cache_stats(const struct trial_point *trials, size_t n, struct cache_stats *cs)
{
    const struct trial_point **v = xcalloc(n + 1, sizeof(*v));
    struct plan p = {0};
    size_t i, nv = 0;
    memset(cs, 0, sizeof(*cs));
    for (i = 0; i < n; i++) {
        const struct trial_point *t = &trials[i];
        int timings = t->cache_n >= 0 && t->prompt_n >= 0;
        if (t->outcome == OUTCOME_PENDING)
            continue;
        v[nv++] = t;
        if (t->cached_tokens < 0 && !timings)
            continue;
        cs->trials++;
        cs->from_timings += t->cached_tokens < 0;
        cs->cached += t->cached_tokens >= 0 ? t->cached_tokens : t->cache_n;
        cs->sent += t->usage_prompt_tokens >= 0 ? t->usage_prompt_tokens
                    : timings                   ? t->cache_n + t->prompt_n
                                                : t->realized_length;
    }
    if (cs->trials) {
        qsort(v, nv, sizeof(*v), cmp_trial_group);
        p.t = xcalloc(nv + 1, sizeof(*p.t));
        for (i = 0; i < nv; i++) {
            p.t[i].question = i && !strcmp(v[i]->question_id ? v[i]->question_id : "",
                                           v[i - 1]->question_id ? v[i - 1]->question_id : "")
                                  ? p.t[i - 1].question
                                  : i;
            p.t[i].length = v[i]->length;
            p.t[i].depth_bp = v[i]->depth_bp;
            p.t[i].repeat = v[i]->repeat;
            p.t[i].axes = v[i]->axes ? v[i]->axes : "";
        }
        p.nr = nv;
        plan_cache_estimate(&p, &cs->est_sent, &cs->est_cached);
        free(p.t);
    }
    free(v);
}

/* Does trial t count in the curve (not a control, not a known question left out)? */
static int on_curve(const struct trial_point *t, const struct stats_options *opt,
                    const char **known, size_t nknown)
{
    const char *q = t->question_id ? t->question_id : "";
    if (!trial_on_curve(t->length, t->depth_bp, t->axes))
        return 0;
    return !opt->exclude_known || !bsearch(&q, known, nknown, sizeof(*known), cmp_str);
}

int stats_compute(const struct trial_point *trials, size_t n, const struct stats_options *opt_in,
                  struct run_stats *out, struct strbuf *err)
{
    struct stats_options defopt;
    const struct stats_options *opt = opt_in;
    const struct trial_point **cb, **orc;
    const char **known;
    struct trial_point *kept = NULL;
    size_t ncb = 0, nor = 0, nknown = 0, nk = 0, ncontrols = 0, i, k;
    int rc;
    if (!opt) {
        stats_options_init(&defopt);
        opt = &defopt;
    }
    /* the control trials' lists sized by their count, not by the run's (a million trials) */
    for (i = 0; i < n; i++)
        ncontrols += trial_is_control(trials[i].length, trials[i].depth_bp);
    cb = xcalloc(ncontrols + 1, sizeof(*cb));
    orc = xcalloc(ncontrols + 1, sizeof(*orc));
    known = xcalloc(ncontrols + 1, sizeof(*known));
    for (i = 0; i < n; i++) {
        if (!trial_is_control(trials[i].length, trials[i].depth_bp))
            continue;
        if (trials[i].depth_bp == DEPTH_BP_CLOSED_BOOK) {
            cb[ncb++] = &trials[i];
            if (trials[i].outcome == OUTCOME_CORRECT)
                known[nknown++] = trials[i].question_id ? trials[i].question_id : "";
        } else {
            orc[nor++] = &trials[i];
        }
    }
    qsort(known, nknown, sizeof(*known), cmp_str);
    for (i = 0, k = 0; i < nknown; i++)
        if (!k || strcmp(known[k - 1], known[i]))
            known[k++] = known[i];
    nknown = k;
    for (i = 0; i < n; i++)
        nk += on_curve(&trials[i], opt, known, nknown);
    if (nk < n) {
        /* shallow copies, read only; a run without controls or exclusions is not copied */
        kept = xcalloc(nk + 1, sizeof(*kept));
        for (i = 0, k = 0; i < n; i++)
            if (on_curve(&trials[i], opt, known, nknown))
                kept[k++] = trials[i];
    }
    rc = compute_curve(kept ? kept : trials, nk, opt, out, err);
    if (!rc) {
        size_t no = 0;
        qsort(cb, ncb, sizeof(*cb), cmp_trial_qid);
        control_summary(&out->closed_book, cb, ncb, opt->z);
        /* the oracle over the same question set as the curve */
        for (i = 0; i < nor; i++) {
            const char *q = orc[i]->question_id ? orc[i]->question_id : "";
            if (!opt->exclude_known || !bsearch(&q, known, nknown, sizeof(*known), cmp_str))
                orc[no++] = orc[i];
        }
        qsort(orc, no, sizeof(*orc), cmp_trial_qid);
        control_summary(&out->oracle, orc, no, opt->z);
        out->exclude_known = opt->exclude_known;
        out->n_known = nknown;
        if (out->oracle.present && out->oracle.n_valid)
            effective_length(out, out->oracle.accuracy, opt->effective_fraction, 1);
        cache_stats(trials, n, &out->cache);
        out->hops = hops_stats_compute(trials, n, opt->z);
        out->decomp = decomp_stats_compute(trials, n, opt);
    }
    free(cb);
    free(orc);
    free(known);
    free(kept);
    return rc;
}

void run_stats_release(struct run_stats *s)
{
    free(s->cells);
    free(s->lengths);
    free(s->advice);
    hops_stats_free(s->hops);
    if (s->absent)
        absent_stats_release(s->absent);
    free(s->absent);
    ordinal_stats_free(s->ordinal);
    decomp_stats_free(s->decomp);
    memset(s, 0, sizeof(*s));
}

const struct cell_stats *run_stats_cell(const struct run_stats *s, long length, int depth_bp)
{
    size_t i;
    for (i = 0; i < s->n_cells; i++)
        if (s->cells[i].length == length && s->cells[i].depth_bp == depth_bp)
            return &s->cells[i];
    return NULL;
}

const char *stats_dip_bound(const struct length_stats *ls)
{
    if (!ls->has_middle || ls->n_valid <= 0)
        return NULL;
    return !ls->n_correct ? "floor" : ls->n_correct == ls->n_valid ? "ceiling" : NULL;
}

const char *stats_dip_bound_text(const struct length_stats *ls)
{
    const char *b = stats_dip_bound(ls);
    if (!b)
        return NULL;
    return !strcmp(b, "floor")
               ? "cannot be measured: every scored trial is wrong (the accuracy floor)"
               : "cannot be measured: every scored trial is correct (the accuracy ceiling)";
}

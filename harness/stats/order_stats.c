/*
 * Statistics of the order experiment (order_stats.h): accuracy, recall@k and
 * answer-present accuracy per (policy, k) with question-clustered intervals,
 * paired policy differences with the exact sign-flip test and Holm, the
 * expectation from a depth curve, and the recommendation. Owns its arrays.
 */
#include "stats/order_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/axes.h"
#include "base/num.h"
#include "stats/stats.h"
#include "base/strbuf.h"
#include "run/trial.h"
#include "base/xalloc.h"

#include "base/banned.h"

/* Per cell and question: trials finished, scored, correct, gold in the prompt. */
struct qcount {
    long done, valid, correct, present, pvalid, pcorrect;
};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* A trial's policy and k, or -1 when it has not both. */
static int trial_axes(const struct trial_point *t, struct strbuf *tmp, enum ordering *policy,
                      int *k)
{
    long v;
    if (t->outcome == OUTCOME_PENDING || !axes_get(t->axes, "policy", tmp) ||
        ordering_parse(tmp->buf, policy) < 0)
        return -1;
    if (!axes_get(t->axes, "k", tmp) || parse_long_range(tmp->buf, 1, 1000000, &v))
        return -1;
    *k = (int)v;
    return 0;
}

static size_t cell_index(const struct order_stats *s, enum ordering policy, int k)
{
    size_t p, j;
    for (p = 0; p < s->n_policies && s->policies[p] != policy; p++)
        ;
    for (j = 0; j < s->n_ks && s->ks[j] != k; j++)
        ;
    if (p == s->n_policies || j == s->n_ks)
        return (size_t)-1;
    return p * s->n_ks + j;
}

const struct order_cell *order_stats_cell(const struct order_stats *s, enum ordering policy, int k)
{
    size_t i = cell_index(s, policy, k);
    return i == (size_t)-1 ? NULL : &s->cells[i];
}

/* Accuracy and question-clustered interval from per-question (m, y) counts. */
static void clustered(const long *m, const long *y, size_t nq, double *acc, double *lo, double *hi)
{
    long tm = 0;
    size_t i;
    for (i = 0; i < nq; i++)
        tm += m[i];
    if (!tm) {
        *acc = *lo = *hi = NAN;
        return;
    }
    *acc = cluster_interval(m, y, nq, STATS_Z95, NULL, lo, hi);
}

static void fill_cell(struct order_cell *c, const struct qcount *q, size_t nq, long *m, long *y)
{
    size_t i, n = 0;
    for (i = 0; i < nq; i++) {
        c->all_questions += q[i].done > 0;
        c->present_questions += q[i].present > 0;
        if (q[i].valid) {
            m[n] = q[i].valid;
            y[n++] = q[i].correct;
        }
    }
    c->questions = n;
    clustered(m, y, n, &c->accuracy, &c->lo, &c->hi);
    for (i = 0, n = 0; i < nq; i++)
        if (q[i].pvalid) {
            m[n] = q[i].pvalid;
            y[n++] = q[i].pcorrect;
            c->present_valid += q[i].pvalid;
            c->present_correct += q[i].pcorrect;
        }
    clustered(m, y, n, &c->present_accuracy, &c->present_lo, &c->present_hi);
    c->recall = c->all_questions ? (double)c->present_questions / (double)c->all_questions : NAN;
}

/* Paired difference of cell a against reference cell r over the questions scored alike. */
static void paired(const struct qcount *a, const struct qcount *r, size_t nq, struct order_diff *d)
{
    long *dd = xcalloc(nq ? nq : 1, sizeof(*dd));
    double sum = 0, sum2 = 0;
    size_t i, n = 0;
    for (i = 0; i < nq; i++) {
        double x;
        if (!a[i].valid || a[i].valid != r[i].valid)
            continue;
        dd[n++] = r[i].correct - a[i].correct; /* compare's sign: reference - policy */
        x = (double)(a[i].correct - r[i].correct) / (double)a[i].valid;
        sum += x;
        sum2 += x * x;
    }
    d->questions = n;
    if (n) {
        double mean = sum / (double)n;
        double var = n > 1 ? (sum2 - (double)n * mean * mean) / (double)(n - 1) : 0.0;
        double se = var > 0 ? sqrt(var / (double)n) : 0.0;
        double pd, pg;
        signflip_p(dd, n, &pd, &pg);
        d->diff = mean;
        d->lo = mean - STATS_Z95 * se;
        d->hi = mean + STATS_Z95 * se;
        d->p = 2.0 * (pd < pg ? pd : pg);
        if (d->p > 1.0)
            d->p = 1.0;
    } else {
        d->diff = d->lo = d->hi = NAN;
        d->p = 1.0;
    }
    free(dd);
}

static void choose(struct order_stats *s)
{
    size_t i, n = s->n_policies * s->n_ks;
    int zero = 0, one = 0, other = 0;
    s->best = s->recommended = -1;
    s->bound = 0;
    for (i = 0; i < n; i++) {
        double a = s->cells[i].accuracy;
        zero += !isnan(a) && a <= 0;
        one += !isnan(a) && a >= 1;
        other += !isnan(a) && a > 0 && a < 1;
    }
    if (!other && (!zero != !one)) { /* every cell 0% or every one 100%: a tie, no advice */
        s->bound = zero ? -1 : 1;
        return;
    }
    for (i = 0; i < n; i++) {
        const struct order_cell *c = &s->cells[i];
        if (isnan(c->accuracy))
            continue;
        if (s->best < 0 || c->accuracy > s->cells[s->best].accuracy + 1e-12 ||
            (fabs(c->accuracy - s->cells[s->best].accuracy) <= 1e-12 &&
             c->prompt_tokens < s->cells[s->best].prompt_tokens))
            s->best = (int)i;
    }
    if (s->best < 0)
        return;
    for (i = 0; i < n; i++) {
        const struct order_cell *c = &s->cells[i];
        if (isnan(c->accuracy) || c->accuracy < s->cells[s->best].accuracy - ORDER_MARGIN - 1e-12)
            continue;
        if (s->recommended < 0 || c->prompt_tokens < s->cells[s->recommended].prompt_tokens ||
            (c->prompt_tokens == s->cells[s->recommended].prompt_tokens &&
             c->accuracy > s->cells[s->recommended].accuracy))
            s->recommended = (int)i;
    }
}

/* Every policy against the reference, per k, paired over questions; Holm over the whole family. */
static void compare_to_reference(struct order_stats *out, const struct qcount *qc, size_t nq)
{
    size_t i, j, ncells = out->n_policies * out->n_ks;

    out->diffs = xcalloc(ncells, sizeof(*out->diffs));
    for (j = 0; j < out->n_ks; j++) {
        size_t rci = cell_index(out, out->reference, out->ks[j]);
        for (i = 0; i < out->n_policies; i++) {
            struct order_diff *d;
            if (out->policies[i] == out->reference)
                continue;
            d = &out->diffs[out->n_diffs++];
            d->policy = out->policies[i];
            d->reference = out->reference;
            d->k = out->ks[j];
            paired(&qc[(i * out->n_ks + j) * nq], &qc[rci * nq], nq, d);
        }
    }
    if (out->n_diffs) {
        double *p = xcalloc(out->n_diffs, sizeof(*p));
        for (i = 0; i < out->n_diffs; i++)
            p[i] = out->diffs[i].p;
        holm_adjust(p, out->n_diffs, p);
        for (i = 0; i < out->n_diffs; i++)
            out->diffs[i].p_holm = p[i];
        free(p);
    }
}

int order_stats_compute(const struct trial_point *t, size_t n, struct order_stats *out,
                        struct strbuf *err)
{
    struct strbuf tmp = STRBUF_INIT;
    const char **ids = xcalloc(n ? n : 1, sizeof(*ids));
    int have[ORDER__COUNT] = {0}, *ks = xcalloc(n ? n : 1, sizeof(*ks));
    size_t nid = 0, nk = 0, i, j, ncells, nq = 0;
    struct qcount *qc;
    double *tok, *comp;
    long *tokn, *compn, *m, *y;

    memset(out, 0, sizeof(*out));
    out->best = out->recommended = -1;
    for (i = 0; i < n; i++) {
        enum ordering p;
        int k;
        if (trial_axes(&t[i], &tmp, &p, &k) < 0)
            continue;
        have[p] = 1;
        ks[nk++] = k;
        ids[nid++] = t[i].question_id;
    }
    if (!nid) {
        strbuf_addstr(err, "no trial of the run carries the order experiment's axes (policy, k)");
        strbuf_release(&tmp);
        free(ids);
        free(ks);
        return -1;
    }
    qsort(ids, nid, sizeof(*ids), cmp_str);
    for (i = 0; i < nid; i++)
        if (!nq || strcmp(ids[nq - 1], ids[i]))
            ids[nq++] = ids[i];
    qsort(ks, nk, sizeof(*ks), cmp_int);
    for (i = 0, j = 0; i < nk; i++)
        if (!j || ks[j - 1] != ks[i])
            ks[j++] = ks[i];
    out->ks = ks;
    out->n_ks = j;
    for (i = 0; i < ORDER__COUNT; i++)
        if (have[i])
            out->policies[out->n_policies++] = (enum ordering)i;
    out->reference = have[ORDER_BEST_FIRST] ? ORDER_BEST_FIRST : out->policies[0];
    out->n_questions = nq;
    ncells = out->n_policies * out->n_ks;
    out->cells = xcalloc(ncells, sizeof(*out->cells));
    qc = xcalloc(st_mult(ncells, nq), sizeof(*qc));
    tok = xcalloc(ncells, sizeof(*tok));
    comp = xcalloc(ncells, sizeof(*comp));
    tokn = xcalloc(ncells, sizeof(*tokn));
    compn = xcalloc(ncells, sizeof(*compn));
    for (i = 0; i < n; i++) {
        enum ordering p;
        int k;
        size_t ci, qi;
        const char **hit;
        struct qcount *q;
        struct order_cell *c;
        if (trial_axes(&t[i], &tmp, &p, &k) < 0)
            continue;
        ci = cell_index(out, p, k);
        hit = bsearch(&t[i].question_id, ids, nq, sizeof(*ids), cmp_str);
        qi = (size_t)(hit - ids);
        q = &qc[ci * nq + qi];
        c = &out->cells[ci];
        c->trials++;
        q->done++;
        q->present += t[i].gold_offset >= 0;
        tok[ci] += (double)t[i].realized_length;
        tokn[ci]++;
        if (outcome_is_scored(t[i].outcome)) {
            int ok = t[i].outcome == OUTCOME_CORRECT;
            c->valid++;
            c->correct += ok;
            q->valid++;
            q->correct += ok;
            if (t[i].gold_offset >= 0) {
                q->pvalid++;
                q->pcorrect += ok;
            }
            comp[ci] += (double)t[i].completion_tokens;
            compn[ci]++;
        }
    }
    m = xcalloc(nq, sizeof(*m));
    y = xcalloc(nq, sizeof(*y));
    for (i = 0; i < out->n_policies; i++)
        for (j = 0; j < out->n_ks; j++) {
            size_t ci = i * out->n_ks + j;
            struct order_cell *c = &out->cells[ci];
            c->policy = out->policies[i];
            c->k = out->ks[j];
            c->expected = c->expected_lo = c->expected_hi = c->cost = NAN;
            fill_cell(c, &qc[ci * nq], nq, m, y);
            c->prompt_tokens = tokn[ci] ? tok[ci] / (double)tokn[ci] : NAN;
            c->completion_tokens = compn[ci] ? comp[ci] / (double)compn[ci] : NAN;
        }
    compare_to_reference(out, qc, nq);
    choose(out);
    free(m);
    free(y);
    free(qc);
    free(tok);
    free(comp);
    free(tokn);
    free(compn);
    free(ids);
    strbuf_release(&tmp);
    return 0;
}

void order_stats_release(struct order_stats *s)
{
    free(s->ks);
    free(s->cells);
    free(s->diffs);
    memset(s, 0, sizeof(*s));
}

/* The curve's length nearest (by ratio) to tokens, among those with a depth curve. */
static const struct length_stats *nearest_length(const struct run_stats *curve, double tokens)
{
    const struct length_stats *best = NULL;
    double bd = INFINITY;
    size_t i;
    for (i = 0; i < curve->n_lengths; i++) {
        const struct length_stats *ls = &curve->lengths[i];
        double d;
        if (!ls->n_depths || ls->length <= 0)
            continue;
        d = fabs(log((double)ls->length / (tokens > 1 ? tokens : 1)));
        if (d < bd) {
            bd = d;
            best = ls;
        }
    }
    return best;
}

void order_stats_expect(struct order_stats *s, const struct trial_point *t, size_t n,
                        const struct run_stats *curve)
{
    struct strbuf tmp = STRBUF_INIT;
    double *sum, *slo, *shi;
    long *cnt;
    const struct length_stats **ls;
    size_t i, ncells = s->n_policies * s->n_ks;
    if (!curve || !ncells)
        return;
    sum = xcalloc(ncells, sizeof(*sum));
    slo = xcalloc(ncells, sizeof(*slo));
    shi = xcalloc(ncells, sizeof(*shi));
    cnt = xcalloc(ncells, sizeof(*cnt));
    ls = xcalloc(ncells, sizeof(*ls));
    for (i = 0; i < ncells; i++)
        ls[i] = nearest_length(curve, s->cells[i].prompt_tokens);
    for (i = 0; i < n; i++) {
        enum ordering p;
        int k;
        size_t ci;
        if (trial_axes(&t[i], &tmp, &p, &k) < 0 || !outcome_is_scored(t[i].outcome))
            continue;
        ci = cell_index(s, p, k);
        if (ci == (size_t)-1 || !ls[ci])
            continue;
        if (t[i].gold_offset >= 0 && t[i].realized_depth >= 0) {
            double lo, hi;
            sum[ci] += length_accuracy_at(curve, ls[ci], t[i].realized_depth);
            length_interval_at(curve, ls[ci], t[i].realized_depth, &lo, &hi);
            slo[ci] += lo;
            shi[ci] += hi;
        }
        cnt[ci]++;
    }
    for (i = 0; i < ncells; i++)
        if (cnt[i]) {
            s->cells[i].expected = sum[i] / (double)cnt[i];
            s->cells[i].expected_lo = slo[i] / (double)cnt[i];
            s->cells[i].expected_hi = shi[i] / (double)cnt[i];
            s->cells[i].curve_length = ls[i]->length;
        }
    free(sum);
    free(slo);
    free(shi);
    free(cnt);
    free(ls);
    strbuf_release(&tmp);
}

void order_stats_price(struct order_stats *s, double price_in, double price_out)
{
    size_t i;
    for (i = 0; i < s->n_policies * s->n_ks; i++) {
        struct order_cell *c = &s->cells[i];
        double comp = isnan(c->completion_tokens) ? 0 : c->completion_tokens;
        c->cost =
            isnan(c->prompt_tokens) ? NAN : (c->prompt_tokens * price_in + comp * price_out) / 1e6;
    }
}

static void pct(struct strbuf *out, double f)
{
    strbuf_addf(out, "%.1f%%", 100.0 * f);
}

void order_recommendation(const struct order_stats *s, struct strbuf *out)
{
    const struct order_cell *r, *b, *big = NULL;
    size_t i;
    if (s->recommended < 0)
        return;
    r = &s->cells[s->recommended];
    b = &s->cells[s->best];
    strbuf_addf(out, "%s at k=%d: ", ordering_name(r->policy), r->k);
    pct(out, r->accuracy);
    strbuf_addstr(out, " [");
    pct(out, r->lo);
    strbuf_addstr(out, ", ");
    pct(out, r->hi);
    strbuf_addch(out, ']');
    if (r == b)
        strbuf_addstr(out, ", the most accurate");
    else {
        strbuf_addf(out, ", within %.0f pp of the best (%s at k=%d, ", 100.0 * ORDER_MARGIN,
                    ordering_name(b->policy), b->k);
        pct(out, b->accuracy);
        strbuf_addch(out, ')');
    }
    /* the token saving against the same policy at the largest k */
    for (i = 0; i < s->n_policies * s->n_ks; i++)
        if (s->cells[i].policy == r->policy && s->cells[i].k == s->ks[s->n_ks - 1])
            big = &s->cells[i];
    if (big && big != r && big->prompt_tokens > 0)
        strbuf_addf(out, ", %.0f%% of the prompt tokens of k=%d",
                    100.0 * r->prompt_tokens / big->prompt_tokens, big->k);
    strbuf_addf(out, " (%.0f prompt tokens per question", r->prompt_tokens);
    if (isfinite(r->cost))
        strbuf_addf(out, ", $%.4f", r->cost);
    strbuf_addch(out, ')');
}

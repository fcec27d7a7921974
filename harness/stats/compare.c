/*
 * Paired regression verdicts between two runs: pairing by trial key, the
 * exact one-sided sign-flip test over questions per cell, per length and
 * overall (McNemar with one pair per question), Holm adjustment, warnings
 * and the verdict. Pure statistics: no I/O, no output formats (the writers are in
 * report_compare.c); owns nothing beyond struct compare_result.
 */
#include "stats/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/axes.h"
#include "run/plan.h"
#include "stats/power.h"
#include "stats/stats.h"
#include "store/store.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"

#include "base/banned.h"

void compare_options_init(struct compare_options *o)
{
    o->exclude_known = 0;
    o->alpha = 0.05;
    o->tolerance = 0.05;
    o->min_pairs = 10;
    o->min_coverage = 0.8;
    o->gate = COMPARE_GATE_PRIMARY;
    o->pass_rule = COMPARE_PASS_BOUND;
    o->bound_alpha = 0.0;
}

static const char *const status_names[] = {"ok", "regression", "improvement", "not enough data"};

const char *compare_status_name(enum compare_status s)
{
    return (unsigned)s <= CMP_NO_DATA ? status_names[s] : "unknown";
}

const char *compare_verdict_name(enum compare_verdict v)
{
    switch (v) {
    case VERDICT_PASS:
        return "PASS";
    case VERDICT_FAIL:
        return "FAIL";
    default:
        return "INCONCLUSIVE";
    }
}

const struct compare_endpoint compare_endpoints[COMPARE_N_ENDPOINTS] = {
    {COMPARE_LENGTH, "length", "(all depths)", "all depths", "accuracy", 0, 1, 0, 0},
    {COMPARE_MIDDLE, "middle", "middle (25-75%)", "the middle (25-75%)", "accuracy", 0, 0, 1, 0},
    {COMPARE_DIP, "dip", "dip", "the dip", "dip", 1, 0, 1, -1},
};

const struct compare_endpoint *compare_endpoint_of(enum compare_scope s)
{
    size_t i;
    for (i = 0; i < COMPARE_N_ENDPOINTS; i++)
        if (compare_endpoints[i].scope == s)
            return &compare_endpoints[i];
    return NULL;
}

const char *compare_scope_name(enum compare_scope s)
{
    const struct compare_endpoint *ep = compare_endpoint_of(s);
    if (ep)
        return ep->name;
    return s == COMPARE_CELL ? "cell" : s == COMPARE_OVERALL ? "overall" : "axis";
}

double compare_upper_bound(const double *x, size_t n, double level, double *se)
{
    double mean = 0.0, aug = 0.0, ss = 0.0, s_aug, e;
    size_t i;
    if (!n) {
        if (se)
            *se = 1.0;
        return 1.0;
    }
    for (i = 0; i < n; i++)
        mean += x[i];
    mean /= (double)n;
    /* the augmented sample: x plus the pseudo-questions +1 and -1 (their mean adds 0) */
    aug = mean * (double)n / (double)(n + 2);
    for (i = 0; i < n; i++)
        ss += (x[i] - aug) * (x[i] - aug);
    ss += (1.0 - aug) * (1.0 - aug) + (-1.0 - aug) * (-1.0 - aug);
    s_aug = sqrt(ss / (double)(n + 1));
    e = s_aug / sqrt((double)n);
    if (se)
        *se = e;
    if (n < 2)
        return 1.0;
    return mean + stats_t_upper_inv(level, (long)n - 1) * e;
}

/* ---- pairing ---- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Question ids answered correctly closed-book in t[0..n-1], appended to ids (sorted later). */
static void known_ids(const struct trial_point *t, size_t n, const char ***ids, size_t *nr,
                      size_t *alloc)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (t[i].length == TRIAL_CONTROL_LENGTH && t[i].depth_bp == DEPTH_BP_CLOSED_BOOK &&
            t[i].outcome == OUTCOME_CORRECT) {
            ALLOC_GROW(*ids, *nr + 1, *alloc);
            (*ids)[(*nr)++] = t[i].question_id ? t[i].question_id : "";
        }
}

/*
 * Final (non-pending) curve trials sorted by key, duplicates dropped (first
 * kept); control trials and the questions in known[0..nk-1] (sorted) left out.
 */
static const struct trial_point **sorted_final(const struct trial_point *t, size_t n, size_t *nr,
                                               const char **known, size_t nk)
{
    const struct trial_point **v = xcalloc(n ? n : 1, sizeof(*v));
    size_t i, m = 0, k = 0;
    for (i = 0; i < n; i++) {
        const char *q = t[i].question_id ? t[i].question_id : "";
        if (t[i].outcome == OUTCOME_PENDING || trial_is_control(t[i].length, t[i].depth_bp))
            continue;
        if (nk && bsearch(&q, known, nk, sizeof(*known), cmp_str))
            continue;
        v[m++] = &t[i];
    }
    qsort(v, m, sizeof(*v), trial_point_cmp_ptr);
    for (i = 0; i < m; i++)
        if (!k || trial_point_cmp(v[k - 1], v[i]))
            v[k++] = v[i];
    *nr = k;
    return v;
}

struct pair {
    long length;
    int depth_bp;
    const char *axes; /* borrowed from a trial, "" without axes */
    int repeat;
    size_t q; /* question index (the cluster) */
    int base; /* outcome, -1 when missing */
    int cand;
};

static int cmp_pair_cell(const void *a, const void *b)
{
    const struct pair *x = a, *y = b;
    if (x->length != y->length)
        return x->length < y->length ? -1 : 1;
    if (x->depth_bp != y->depth_bp)
        return x->depth_bp < y->depth_bp ? -1 : 1;
    return strcmp(x->axes, y->axes);
}

static void tally(struct compare_test *t, const struct pair *p)
{
    t->n_keys++;
    if (p->base < 0 || p->cand < 0 || !outcome_is_scored((enum trial_outcome)p->base) ||
        !outcome_is_scored((enum trial_outcome)p->cand))
        return;
    t->n_pairs++;
    if (p->base == OUTCOME_CORRECT && p->cand == OUTCOME_CORRECT)
        t->both_correct++;
    else if (p->base == OUTCOME_CORRECT)
        t->base_only++;
    else if (p->cand == OUTCOME_CORRECT)
        t->cand_only++;
    else
        t->both_wrong++;
}

static int pair_valid(const struct pair *p)
{
    return p->base >= 0 && p->cand >= 0 && outcome_is_scored((enum trial_outcome)p->base) &&
           outcome_is_scored((enum trial_outcome)p->cand);
}

static double bound_level(const struct compare_options *o)
{
    return o->bound_alpha > 0.0 ? o->bound_alpha : o->alpha;
}

/*
 * The paired test over questions for pairs[0..n-1] (compare.h): per question
 * the integer d = sum of kw[p] * (baseline correct - candidate correct) over
 * its valid pairs, then the exact sign-flip test on the d's (stats.h); and
 * the drop as a sum of per-question contributions u = sum of a[p] * (the same
 * difference), with its question-clustered bound. a NULL: every valid pair
 * weighs 1 / t->n_pairs (the pooled accuracy difference); kw NULL: 1. d is
 * scratch of nq longs, left zeroed.
 */
static void cluster_test(struct compare_test *t, const struct compare_options *o,
                         const struct pair *pairs, size_t n, const double *a, const long *kw,
                         long *d, size_t nq)
{
    size_t k, q = 0;
    long *m = xcalloc(nq ? nq : 1, sizeof(*m));
    double *u = xcalloc(nq ? nq : 1, sizeof(*u));
    double uniform = t->n_pairs ? 1.0 / (double)t->n_pairs : 0.0;
    for (k = 0; k < n; k++) {
        const struct pair *p = &pairs[k];
        int delta;
        if (!pair_valid(p))
            continue;
        delta = (p->base == OUTCOME_CORRECT) - (p->cand == OUTCOME_CORRECT);
        m[p->q]++;
        d[p->q] += (kw ? kw[k] : 1) * delta;
        u[p->q] += (a ? a[k] : uniform) * delta;
        if (p->repeat + 1 > t->n_repeats)
            t->n_repeats = p->repeat + 1;
    }
    t->n_questions = 0;
    for (k = 0; k < nq; k++)
        t->n_questions += m[k] > 0;
    /* x_q = Q u_q over the questions with a pair: their mean is the drop */
    for (k = 0; k < nq; k++)
        if (m[k])
            u[q++] = (double)t->n_questions * u[k];
    t->upper = compare_upper_bound(u, q, bound_level(o), &t->se);
    signflip_p(d, nq, &t->p_drop, &t->p_gain);
    memset(d, 0, nq * sizeof(*d));
    free(m);
    free(u);
}

static void test_status(struct compare_test *t, const struct compare_options *o)
{
    /* no endpoint can worsen past its floor: accuracy 0, dip 1 */
    double most = t->scope == COMPARE_DIP ? 1.0 - t->acc_base : t->acc_base;
    if (t->n_pairs && t->upper > most)
        t->upper = most;
    t->p_drop_adj = t->p_gain_adj = 1.0;
    t->status = (t->n_pairs < o->min_pairs || t->coverage < o->min_coverage) ? CMP_NO_DATA : CMP_OK;
}

static void finish_test(struct compare_test *t, const struct compare_options *o,
                        const struct pair *pairs, size_t n, long *d, size_t nq)
{
    t->coverage = t->n_keys ? (double)t->n_pairs / (double)t->n_keys : 0.0;
    if (t->n_pairs) {
        t->acc_base = (double)(t->both_correct + t->base_only) / (double)t->n_pairs;
        t->acc_cand = (double)(t->both_correct + t->cand_only) / (double)t->n_pairs;
    }
    t->drop = t->acc_base - t->acc_cand;
    cluster_test(t, o, pairs, n, NULL, NULL, d, nq);
    test_status(t, o);
}

static void add_reason(struct compare_result *r, struct strbuf *sb)
{
    r->reasons = xreallocarray(r->reasons, r->n_reasons + 1, sizeof(*r->reasons));
    r->reasons[r->n_reasons++] = strbuf_detach(sb, NULL);
}

void compare_test_name(struct strbuf *out, const struct compare_test *t)
{
    if (t->scope == COMPARE_OVERALL) {
        strbuf_addstr(out, "overall");
        return;
    }
    if (t->scope == COMPARE_AXIS) {
        axes_format(out, t->axes, "");
        strbuf_addstr(out, " (pooled)");
        return;
    }
    if (t->scope == COMPARE_CELL && t->axes_only) {
        axes_format(out, t->axes, "");
        return;
    }
    plan_format_length(out, t->length);
    if (compare_endpoint_of(t->scope)) {
        strbuf_addf(out, " %s", compare_endpoint_of(t->scope)->label);
        return;
    }
    strbuf_addstr(out, " @ ");
    plan_format_depth(out, t->depth_bp);
    if (t->axes) {
        strbuf_addstr(out, ", ");
        axes_format(out, t->axes, "");
    }
}

void compare_endpoint_name(struct strbuf *out, const struct compare_test *t)
{
    const struct compare_endpoint *ep = compare_endpoint_of(t->scope);
    if (ep) {
        strbuf_addf(out, "%s at ", ep->phrase);
        plan_format_length(out, t->length);
        return;
    }
    compare_test_name(out, t);
}

static void no_data_reason(struct compare_result *r, enum compare_scope scope)
{
    struct strbuf sb = STRBUF_INIT;
    size_t i, shown = 0, count = 0;
    for (i = 0; i < r->n_tests; i++)
        if (r->tests[i].scope == scope && r->tests[i].status == CMP_NO_DATA)
            count++;
    if (!count)
        return;
    strbuf_addf(&sb, "%lu %s without enough data (need %ld valid pairs and %.0f%% coverage): ",
                (unsigned long)count,
                scope == COMPARE_CELL     ? (count == 1 ? "cell" : "cells")
                : scope == COMPARE_LENGTH ? (count == 1 ? "length" : "lengths")
                : scope == COMPARE_MIDDLE ? (count == 1 ? "middle band" : "middle bands")
                : scope == COMPARE_DIP    ? (count == 1 ? "dip" : "dips")
                                          : (count == 1 ? "axis value" : "axis values"),
                r->opt.min_pairs, r->opt.min_coverage * 100.0);
    for (i = 0; i < r->n_tests && shown < 5; i++) {
        const struct compare_test *t = &r->tests[i];
        if (t->scope != scope || t->status != CMP_NO_DATA)
            continue;
        if (shown++)
            strbuf_addstr(&sb, ", ");
        compare_test_name(&sb, t);
        strbuf_addf(&sb, " (%ld pairs, %.0f%% coverage)", t->n_pairs, t->coverage * 100.0);
    }
    if (count > shown)
        strbuf_addf(&sb, ", and %lu more", (unsigned long)(count - shown));
    add_reason(r, &sb);
}

/*
 * The axis values of pairs[0..n-1] ("name=value", first seen order per
 * name, names sorted) of the axes with more than one value.
 */
static void axis_items(const struct pair *pairs, size_t n, struct strvec *names,
                       struct strvec *items)
{
    struct strbuf v = STRBUF_INIT, item = STRBUF_INIT;
    size_t i, k, u;
    for (i = 0; i < n; i++) {
        const char *a = pairs[i].axes;
        struct axes_pair pr;
        if (i && !strcmp(a, pairs[i - 1].axes))
            continue;
        while (axes_next(&a, &pr) > 0) {
            strbuf_reset(&item);
            strbuf_add(&item, pr.name, (size_t)(pr.value + pr.value_len - pr.name));
            for (k = 0; k < items->nr && strcmp(items->v[k], item.buf); k++)
                ;
            if (k == items->nr)
                strvec_push(items, item.buf);
        }
    }
    /* names with more than one value */
    for (k = 0; k < items->nr; k++) {
        const char *eq = strchr(items->v[k], '=');
        size_t len = (size_t)(eq - items->v[k]), count = 0;
        for (u = 0; u < items->nr; u++)
            count += !strncmp(items->v[u], items->v[k], len + 1);
        strbuf_reset(&v);
        strbuf_add(&v, items->v[k], len);
        for (u = 0; u < names->nr && strcmp(names->v[u], v.buf); u++)
            ;
        if (count > 1 && u == names->nr)
            strvec_push(names, v.buf);
    }
    qsort(names->v, names->nr, sizeof(*names->v), cmp_str);
    strbuf_release(&v);
    strbuf_release(&item);
}

/* One COMPARE_AXIS test per value of each axis with more than one value (compare.h). */
static void axis_tests(struct compare_result *out, const struct pair *pairs, size_t np,
                       long *scratch, size_t nq, size_t *alloc)
{
    struct strvec names = STRVEC_INIT, items = STRVEC_INIT;
    struct strbuf val = STRBUF_INIT;
    struct pair *sub = xcalloc(np + 1, sizeof(*sub));
    size_t a, k, i, ns;

    axis_items(pairs, np, &names, &items);
    /* cells of axes alone with a single axis: its pooled lines would be the cells */
    for (a = 0; a < names.nr && !(out->axes_only && names.nr < 2); a++) {
        size_t len = strlen(names.v[a]);
        for (k = 0; k < items.nr; k++) {
            struct compare_test *t;
            if (strncmp(items.v[k], names.v[a], len) || items.v[k][len] != '=')
                continue;
            strbuf_reset(&val);
            strbuf_addstr(&val, items.v[k] + len + 1);
            for (i = ns = 0; i < np; i++)
                if (axes_has(pairs[i].axes, names.v[a], val.buf))
                    sub[ns++] = pairs[i];
            ALLOC_GROW(out->tests, out->n_tests + 1, *alloc);
            t = &out->tests[out->n_tests++];
            memset(t, 0, sizeof(*t));
            t->scope = COMPARE_AXIS;
            t->depth_bp = -1;
            t->axes = xstrdup(items.v[k]);
            for (i = 0; i < ns; i++)
                tally(t, &sub[i]);
            finish_test(t, &out->opt, sub, ns, scratch, nq);
        }
    }
    free(sub);
    strvec_clear(&names);
    strvec_clear(&items);
    strbuf_release(&val);
}

/*
 * Both runs' final trials sorted by key (*b, *c: caller frees), without the questions
 * answered closed-book when opt.exclude_known; out->n_known counts those questions.
 */
static void sorted_inputs(const struct trial_point *base, size_t nb, const struct trial_point *cand,
                          size_t nc, struct compare_result *out, const struct trial_point ***b,
                          size_t *nbs, const struct trial_point ***c, size_t *ncs)
{
    const char **known = NULL;
    size_t nk = 0, ka = 0, u = 0;

    known_ids(base, nb, &known, &nk, &ka);
    known_ids(cand, nc, &known, &nk, &ka);
    if (nk)
        qsort(known, nk, sizeof(*known), cmp_str);
    for (size_t k = 0; k < nk; k++)
        if (!u || strcmp(known[u - 1], known[k]))
            known[u++] = known[k];
    out->n_known = u;
    *b = sorted_final(base, nb, nbs, known, out->opt.exclude_known ? u : 0);
    *c = sorted_final(cand, nc, ncs, known, out->opt.exclude_known ? u : 0);
    free(known);
}

/*
 * One pair per trial key of either run (an outcome of -1 where a run lacks the key), in
 * cell order; *nq the questions (clusters). The pairs borrow the trials' strings.
 */
static struct pair *pair_keys(const struct trial_point **b, size_t nbs,
                              const struct trial_point **c, size_t ncs, struct compare_result *out,
                              size_t *np_out, size_t *nq_out)
{
    struct pair *pairs = NULL;
    size_t i = 0, j = 0, np = 0, nq = 0, alloc = 0;
    const char *prev_q = NULL;

    while (i < nbs || j < ncs) {
        int d = i >= nbs ? 1 : j >= ncs ? -1 : trial_point_cmp(b[i], c[j]);
        const struct trial_point *ref = d <= 0 ? b[i] : c[j];
        const char *qid = ref->question_id ? ref->question_id : "";
        ALLOC_GROW(pairs, np + 1, alloc);
        /* keys are sorted by question first: a new id is a new cluster */
        if (!prev_q || strcmp(prev_q, qid))
            nq++;
        prev_q = qid;
        pairs[np].q = nq - 1;
        pairs[np].length = ref->length;
        pairs[np].depth_bp = ref->depth_bp;
        pairs[np].axes = axes_or_empty(ref->axes);
        if (*pairs[np].axes)
            out->has_axes = 1;
        pairs[np].repeat = ref->repeat;
        pairs[np].base = d <= 0 ? (int)b[i++]->outcome : -1;
        pairs[np].cand = d >= 0 ? (int)c[j++]->outcome : -1;
        if (pairs[np].base < 0)
            out->candidate_only_keys++;
        if (pairs[np].cand < 0)
            out->baseline_only_keys++;
        np++;
    }
    qsort(pairs, np, sizeof(*pairs), cmp_pair_cell);
    out->axes_only = out->has_axes && np && pairs[0].length == pairs[np - 1].length &&
                     pairs[0].depth_bp == pairs[np - 1].depth_bp;
    *np_out = np;
    *nq_out = nq;
    return pairs;
}

/* A depth of one length: its pairs [a, b) and their valid counts. */
struct depth_span {
    size_t a, b;
    long valid, base_ok, cand_ok;
    enum depth_role role;
};

/*
 * The middle (scope COMPARE_MIDDLE) or dip (COMPARE_DIP) test of one length
 * from its depths dv[0..nd-1] with data (compare.h): the pairs of the middle
 * (and edge) depths, each weighted so that every depth counts alike, as in the
 * report's edge, middle and dip.
 */
static void band_test(struct compare_result *out, enum compare_scope scope,
                      const struct pair *pairs, const struct depth_span *dv, size_t nd, int n_edge,
                      int n_mid, long *scratch, size_t nq, size_t *alloc)
{
    struct compare_test *t;
    struct pair *sub = NULL;
    double *a = NULL, mid_b = 0.0, mid_c = 0.0, edge_b = 0.0, edge_c = 0.0;
    long *kw = NULL;
    size_t i, k, ns = 0, na = 0;

    ALLOC_GROW(out->tests, out->n_tests + 1, *alloc);
    t = &out->tests[out->n_tests++];
    memset(t, 0, sizeof(*t));
    t->scope = scope;
    t->length = pairs[0].length;
    t->depth_bp = -1;
    t->primary = 1;
    t->n_edge = n_edge;
    t->n_middle = n_mid;
    for (i = 0; i < nd; i++) {
        const struct depth_span *dp = &dv[i];
        double w;
        long kk;
        if (dp->role == DEPTH_ROLE_MIDDLE) {
            w = 1.0 / (double)n_mid;
            kk = n_edge;
            mid_b += w * (double)dp->base_ok / (double)dp->valid;
            mid_c += w * (double)dp->cand_ok / (double)dp->valid;
        } else if (dp->role == DEPTH_ROLE_EDGE && scope == COMPARE_DIP) {
            w = -1.0 / (double)n_edge;
            kk = -n_mid;
            edge_b += -w * (double)dp->base_ok / (double)dp->valid;
            edge_c += -w * (double)dp->cand_ok / (double)dp->valid;
        } else {
            continue;
        }
        for (k = dp->a; k < dp->b; k++) {
            ALLOC_GROW(sub, ns + 1, na);
            a = xreallocarray(a, na, sizeof(*a));
            kw = xreallocarray(kw, na, sizeof(*kw));
            sub[ns] = pairs[k];
            a[ns] = w / (double)dp->valid;
            kw[ns] = scope == COMPARE_DIP ? kk : 1;
            tally(t, &pairs[k]);
            ns++;
        }
    }
    t->coverage = t->n_keys ? (double)t->n_pairs / (double)t->n_keys : 0.0;
    if (scope == COMPARE_MIDDLE) {
        t->acc_base = mid_b;
        t->acc_cand = mid_c;
        t->drop = mid_b - mid_c;
    } else {
        t->acc_base = edge_b - mid_b;
        t->acc_cand = edge_c - mid_c;
        t->drop = t->acc_cand - t->acc_base;
    }
    cluster_test(t, &out->opt, sub, ns, a, kw, scratch, nq);
    test_status(t, &out->opt);
    free(sub);
    free(a);
    free(kw);
}

/*
 * The middle and dip tests of one length from its pairs[0..n-1] (sorted by
 * depth): none when no middle depth has data (fewer than 3 depths).
 */
static void band_tests(struct compare_result *out, const struct pair *pairs, size_t n,
                       long *scratch, size_t nq, size_t *alloc)
{
    struct depth_span *dv = xcalloc(n + 1, sizeof(*dv));
    size_t i, j, k, nd = 0;
    int n_edge = 0, n_mid = 0;

    for (i = 0; i < n; i = j) {
        struct depth_span *dp = &dv[nd];
        for (j = i; j < n && pairs[j].depth_bp == pairs[i].depth_bp; j++)
            ;
        memset(dp, 0, sizeof(*dp));
        dp->a = i;
        dp->b = j;
        for (k = i; k < j; k++)
            if (pair_valid(&pairs[k])) {
                dp->valid++;
                dp->base_ok += pairs[k].base == OUTCOME_CORRECT;
                dp->cand_ok += pairs[k].cand == OUTCOME_CORRECT;
            }
        if (dp->valid)
            nd++;
    }
    for (i = 0; i < nd; i++) {
        dv[i].role = stats_depth_role(i, nd, pairs[dv[i].a].depth_bp);
        n_edge += dv[i].role == DEPTH_ROLE_EDGE;
        n_mid += dv[i].role == DEPTH_ROLE_MIDDLE;
    }
    if (n_mid) {
        band_test(out, COMPARE_MIDDLE, pairs, dv, nd, n_edge, n_mid, scratch, nq, alloc);
        band_test(out, COMPARE_DIP, pairs, dv, nd, n_edge, n_mid, scratch, nq, alloc);
    }
    free(dv);
}

/* A COMPARE_CELL test per cell (each pair also into overall), then COMPARE_LENGTH per length. */
static void cell_length_tests(struct compare_result *out, const struct pair *pairs, size_t np,
                              long *scratch, size_t nq, struct compare_test *overall, size_t *alloc)
{
    size_t i, j, k;
    for (i = 0; i < np; i = j) {
        struct compare_test *t;
        for (j = i; j < np && !cmp_pair_cell(&pairs[i], &pairs[j]); j++)
            ;
        ALLOC_GROW(out->tests, out->n_tests + 1, *alloc);
        t = &out->tests[out->n_tests++];
        memset(t, 0, sizeof(*t));
        t->scope = COMPARE_CELL;
        t->length = pairs[i].length;
        t->depth_bp = pairs[i].depth_bp;
        t->axes = *pairs[i].axes ? xstrdup(pairs[i].axes) : NULL;
        t->axes_only = out->axes_only;
        t->primary = out->axes_only; /* without lengths the cells are the endpoints */
        for (k = i; k < j; k++) {
            tally(t, &pairs[k]);
            tally(overall, &pairs[k]);
        }
        finish_test(t, &out->opt, pairs + i, j - i, scratch, nq);
    }
    if (out->axes_only)
        return;
    for (i = 0; i < np; i = j) {
        struct compare_test *t;
        for (j = i; j < np && pairs[j].length == pairs[i].length; j++)
            ;
        ALLOC_GROW(out->tests, out->n_tests + 1, *alloc);
        t = &out->tests[out->n_tests++];
        memset(t, 0, sizeof(*t));
        t->scope = COMPARE_LENGTH;
        t->length = pairs[i].length;
        t->depth_bp = -1;
        t->primary = 1;
        for (k = i; k < j; k++)
            tally(t, &pairs[k]);
        finish_test(t, &out->opt, pairs + i, j - i, scratch, nq);
        band_tests(out, pairs + i, j - i, scratch, nq, alloc);
    }
}

/*
 * Holm over one family (primary or secondary: the tests with primary ==
 * want, overall aside), drops and gains apart; statuses, detectable drops and
 * questions needed. Returns the family's size.
 */
static size_t holm_family(struct compare_result *out, int want)
{
    double *pd = xcalloc(out->n_tests + 1, sizeof(*pd));
    double *pg = xcalloc(out->n_tests + 1, sizeof(*pg));
    size_t *idx = xcalloc(out->n_tests + 1, sizeof(*idx));
    size_t i, k, fam = 0;
    double level;

    for (i = 0; i < out->n_tests; i++)
        if (out->tests[i].primary == want && out->tests[i].status != CMP_NO_DATA) {
            pd[fam] = out->tests[i].p_drop;
            pg[fam] = out->tests[i].p_gain;
            idx[fam++] = i;
        }
    holm_adjust(pd, fam, pd);
    holm_adjust(pg, fam, pg);
    level = out->opt.alpha / (double)(fam ? fam : 1);
    for (k = 0; k < fam; k++) {
        struct compare_test *t = &out->tests[idx[k]];
        const double eps = 1e-9;
        t->p_drop_adj = pd[k];
        t->p_gain_adj = pg[k];
        if (t->p_drop_adj < out->opt.alpha && t->drop >= out->opt.tolerance - eps)
            t->status = CMP_REGRESSION;
        else if (t->p_gain_adj < out->opt.alpha && -t->drop >= out->opt.tolerance - eps)
            t->status = CMP_IMPROVEMENT;
    }
    /* planned at Holm's first step, as dipmap plan plans */
    for (i = 0; i < out->n_tests; i++) {
        struct compare_test *t = &out->tests[i];
        if (t->primary != want || !t->n_questions)
            continue;
        t->mde = power_mde_se(t->se, level);
        t->need_q = power_need_se(t->se, t->n_questions, out->opt.tolerance, level);
    }
    free(pd);
    free(pg);
    free(idx);
    return fam;
}

static void holm_statuses(struct compare_result *out)
{
    size_t i;
    out->n_primary_family = holm_family(out, 1);
    out->n_family = holm_family(out, 0);
    for (i = 0; i < out->n_tests; i++) {
        const struct compare_test *t = &out->tests[i];
        if (t->status == CMP_REGRESSION)
            out->n_regressions++;
        else if (t->status == CMP_IMPROVEMENT)
            out->n_improvements++;
        else if (t->status == CMP_NO_DATA)
            out->n_no_data++;
        if (!t->primary)
            continue;
        out->n_primary++;
        if (t->status == CMP_REGRESSION)
            out->n_primary_regressions++;
        if (t->status == CMP_NO_DATA) {
            out->n_primary_no_data++;
            continue;
        }
        if (t->upper >= out->opt.tolerance)
            out->n_primary_over++;
        if (t->mde > out->max_mde)
            out->max_mde = t->mde;
        if (t->need_q < 0 || out->need_questions < 0)
            out->need_questions = -1;
        else if (t->need_q > out->need_questions)
            out->need_questions = t->need_q;
    }
}

/* "2 of 6 primary endpoints have ... bound ... : the dip at 32k +3.1 pp (bound +9.8 pp), ..." */
static void bound_reason(struct compare_result *r)
{
    struct strbuf sb = STRBUF_INIT;
    size_t i, shown = 0;
    strbuf_addf(&sb,
                "no primary regression, but %ld of %lu primary endpoints %s a %.0f%% upper bound "
                "on the drop at or above the %.1f pp tolerance, so a drop that large is not "
                "ruled out: ",
                r->n_primary_over, (unsigned long)(r->n_primary - (size_t)r->n_primary_no_data),
                r->n_primary_over == 1 ? "has" : "have", (1.0 - bound_level(&r->opt)) * 100.0,
                r->opt.tolerance * 100.0);
    for (i = 0; i < r->n_tests && shown < 6; i++) {
        const struct compare_test *t = &r->tests[i];
        if (!t->primary || t->status == CMP_NO_DATA || t->upper < r->opt.tolerance)
            continue;
        if (shown++)
            strbuf_addstr(&sb, "; ");
        compare_endpoint_name(&sb, t);
        strbuf_addf(&sb, " %+.1f pp (bound %+.1f pp)", t->drop * 100.0, t->upper * 100.0);
    }
    if ((size_t)r->n_primary_over > shown)
        strbuf_addf(&sb, "; and %lu more", (unsigned long)((size_t)r->n_primary_over - shown));
    if (r->need_questions > 0)
        strbuf_addf(&sb,
                    ". The planner says a decision needs about %ld questions (this comparison "
                    "has %lu; see dipmap plan)",
                    r->need_questions, (unsigned long)r->n_questions);
    else
        strbuf_addstr(&sb, ". No number of questions the planner tries (up to 10^6) decides it "
                           "at this tolerance");
    add_reason(r, &sb);
}

/* FAIL on a regression, else INCONCLUSIVE with its reasons, else PASS; overall's status. */
static void decide_verdict(struct compare_result *out, struct compare_test *overall, size_t nb,
                           size_t nc)
{
    int cells_gate = out->opt.gate == COMPARE_GATE_CELLS;
    int old_rule = out->opt.pass_rule == COMPARE_PASS_NO_REGRESSION;
    if (out->n_primary_regressions || (cells_gate && out->n_regressions)) {
        out->verdict = VERDICT_FAIL;
    } else {
        struct strbuf sb = STRBUF_INIT;
        if (!overall->n_pairs) {
            strbuf_addstr(&sb, "no valid pairs: no trial is correct or wrong in both runs");
            if (!nb || !nc)
                strbuf_addf(&sb, " (the %s run has no trials)", !nb ? "baseline" : "candidate");
            add_reason(out, &sb);
        } else if (overall->coverage < out->opt.min_coverage) {
            strbuf_addf(&sb,
                        "coverage %.1f%% is below the minimum %.1f%%: %ld of %ld trial keys are "
                        "valid in both runs (%ld only in the baseline, %ld only in the candidate, "
                        "the rest ended overflow/truncated/empty/filtered/error in one run)",
                        overall->coverage * 100.0, out->opt.min_coverage * 100.0, overall->n_pairs,
                        overall->n_keys, out->baseline_only_keys, out->candidate_only_keys);
            add_reason(out, &sb);
        }
        no_data_reason(out, COMPARE_LENGTH);
        no_data_reason(out, COMPARE_MIDDLE);
        no_data_reason(out, COMPARE_DIP);
        if (cells_gate || old_rule || out->axes_only) {
            no_data_reason(out, COMPARE_AXIS);
            no_data_reason(out, COMPARE_CELL);
        }
        if (!out->n_reasons && !old_rule && out->n_primary_over)
            bound_reason(out);
        strbuf_release(&sb);
        out->verdict = out->n_reasons ? VERDICT_INCONCLUSIVE : VERDICT_PASS;
    }
    overall->status = out->verdict == VERDICT_FAIL           ? CMP_REGRESSION
                      : out->verdict == VERDICT_INCONCLUSIVE ? CMP_NO_DATA
                                                             : CMP_OK;
}

void compare_runs(const struct trial_point *base, size_t nb, const struct trial_point *cand,
                  size_t nc, const struct compare_options *opt, struct compare_result *out)
{
    const struct trial_point **b, **c;
    size_t nbs, ncs, np, nq, alloc = 0;
    struct pair *pairs;
    struct compare_test overall;
    long *scratch;

    memset(out, 0, sizeof(*out));
    if (opt)
        out->opt = *opt;
    else
        compare_options_init(&out->opt);
    sorted_inputs(base, nb, cand, nc, out, &b, &nbs, &c, &ncs);
    pairs = pair_keys(b, nbs, c, ncs, out, &np, &nq);
    scratch = xcalloc(nq ? nq : 1, sizeof(*scratch));

    /* cells, then lengths, then axis values, then overall */
    memset(&overall, 0, sizeof(overall));
    overall.scope = COMPARE_OVERALL;
    overall.depth_bp = -1;
    cell_length_tests(out, pairs, np, scratch, nq, &overall, &alloc);
    if (out->has_axes)
        axis_tests(out, pairs, np, scratch, nq, &alloc);
    finish_test(&overall, &out->opt, pairs, np, scratch, nq);
    out->n_questions = overall.n_questions;
    out->n_repeats = overall.n_repeats;
    free(pairs);
    free(scratch);
    /* the pairs borrowed the question ids of the sorted trial lists */
    free(b);
    free(c);

    holm_statuses(out);
    overall.p_drop_adj = overall.p_drop;
    overall.p_gain_adj = overall.p_gain;
    decide_verdict(out, &overall, nb, nc);
    ALLOC_GROW(out->tests, out->n_tests + 1, alloc);
    out->tests[out->n_tests++] = overall;
}

void compare_result_release(struct compare_result *r)
{
    size_t i;
    for (i = 0; i < r->n_reasons; i++)
        free(r->reasons[i]);
    free(r->reasons);
    for (i = 0; i < r->n_tests; i++)
        free(r->tests[i].axes);
    free(r->tests);
    memset(r, 0, sizeof(*r));
}

void compare_warnings(const struct compare_result *r, struct strvec *out)
{
    size_t i, cells = 0, lengths = 0;
    if (!r->n_questions)
        return;
    for (i = 0; i < r->n_tests; i++) {
        const struct compare_test *t = &r->tests[i];
        if (!t->n_pairs || t->n_questions >= STATS_MIN_CLUSTERS)
            continue;
        if (t->scope == COMPARE_CELL)
            cells++;
        else if (t->scope == COMPARE_LENGTH)
            lengths++;
    }
    stats_sample_warnings(r->n_questions, r->n_repeats, cells, lengths, out);
}

/* "the dip at 32k +9.8 pp": an endpoint and its change (a dip's rise, an accuracy's fall) */
static void endpoint_change(struct strbuf *out, const struct compare_test *t)
{
    const struct compare_endpoint *ep = compare_endpoint_of(t->scope);
    compare_endpoint_name(out, t);
    strbuf_addf(out, " %+.1f pp", (ep && ep->worse_up ? t->drop : -t->drop) * 100.0);
}

void compare_headline(struct strbuf *out, const struct compare_result *r)
{
    const struct compare_test *worst = NULL;
    size_t i, shown = 0;
    long shown_max = 4;

    strbuf_addstr(out, compare_verdict_name(r->verdict));
    if (r->verdict == VERDICT_FAIL) {
        int primary = r->n_primary_regressions > 0;
        strbuf_addstr(out,
                      primary ? ": regression in " : ": regression in the cells (--gate cells): ");
        for (i = 0; i < r->n_tests; i++) {
            const struct compare_test *t = &r->tests[i];
            if (t->status != CMP_REGRESSION || t->scope == COMPARE_OVERALL || t->primary != primary)
                continue;
            if ((long)shown++ >= shown_max)
                continue; /* counted for "and N more" */
            if (shown > 1)
                strbuf_addstr(out, "; ");
            endpoint_change(out, t);
            strbuf_addf(out, " (Holm p %.2g)", t->p_drop_adj);
        }
        /* the first four, and how many more the tables list */
        if ((long)shown > shown_max)
            strbuf_addf(out, "; and %ld more", (long)shown - shown_max);
        return;
    }
    for (i = 0; i < r->n_tests; i++) {
        const struct compare_test *t = &r->tests[i];
        if (t->primary && t->status != CMP_NO_DATA && (!worst || t->upper > worst->upper))
            worst = t;
    }
    if (r->verdict == VERDICT_PASS && r->opt.pass_rule == COMPARE_PASS_NO_REGRESSION) {
        strbuf_addf(out,
                    ": no significant primary regression (--pass-rule no-regression); this does "
                    "not rule out a drop: %.1f pp is what these questions detect at 80%% power",
                    r->max_mde * 100.0);
        return;
    }
    if (r->verdict == VERDICT_PASS) {
        strbuf_addf(out, ": no primary endpoint worsened by %.1f pp or more, at %.0f%% confidence",
                    r->opt.tolerance * 100.0, (1.0 - bound_level(&r->opt)) * 100.0);
        if (worst) {
            strbuf_addstr(out, " (highest upper bound ");
            strbuf_addf(out, "%+.1f pp, ", worst->upper * 100.0);
            compare_endpoint_name(out, worst);
            strbuf_addch(out, ')');
        }
        return;
    }
    if (!r->n_primary_no_data && r->n_primary_over && worst && r->n_reasons == 1) {
        strbuf_addstr(out, ": no primary regression, but ");
        compare_endpoint_name(out, worst);
        strbuf_addf(out, " may have worsened by up to %.1f pp (tolerance %.1f pp)",
                    worst->upper * 100.0, r->opt.tolerance * 100.0);
        if (r->need_questions > 0)
            strbuf_addf(out, "; a decision needs about %ld questions (have %lu)", r->need_questions,
                        (unsigned long)r->n_questions);
        return;
    }
    if (r->n_reasons)
        strbuf_addf(out, ": %s", r->reasons[0]);
}

/*
 * Paired regression verdicts between two runs: pairing by trial key, the
 * exact one-sided sign-flip test over questions per cell, per length and
 * overall (McNemar with one pair per question), Holm adjustment and the
 * verdict with its reasons. Pure statistics: no I/O, no output formats (the
 * writers are in report/; the tests' names and the headline compare_text.c);
 * owns nothing beyond struct compare_result.
 */
#include "stats/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/rng.h"
#include "run/axes.h"
#include "run/plan.h"
#include "stats/power.h"
#include "stats/sequential.h"
#include "stats/stats.h"
#include "store/store.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"

#include "base/banned.h"

void compare_options_init(struct compare_options *o)
{
    /* unnamed members are zero: exclude_known off, bound_alpha 0 (= alpha), no order */
    *o = (struct compare_options){
        .alpha = COMPARE_DEFAULT_ALPHA,
        .tolerance = COMPARE_DEFAULT_TOLERANCE,
        .min_pairs = 10,
        .min_coverage = 0.8,
        .gate = COMPARE_GATE_PRIMARY,
        .pass_rule = COMPARE_PASS_BOUND,
        .fail_margin = -1.0,
        .halluc_margin = -1.0,
    };
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
    return s == COMPARE_CELL      ? "cell"
           : s == COMPARE_OVERALL ? "overall"
           : s == COMPARE_HALLUC  ? "hallucination"
                                  : "axis";
}

double compare_fail_margin(const struct compare_options *o)
{
    return o->fail_margin < 0.0 ? o->tolerance / 2.0 : o->fail_margin;
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
                                               const char **known, size_t nk, int absent)
{
    const struct trial_point **v = xcalloc(n ? n : 1, sizeof(*v));
    size_t i, m = 0, k = 0;
    for (i = 0; i < n; i++) {
        const char *q = t[i].question_id ? t[i].question_id : "";
        if (t[i].outcome == OUTCOME_PENDING || trial_is_control(t[i].length, t[i].depth_bp) ||
            trial_is_absent(t[i].axes) != absent)
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

double compare_bound_level(const struct compare_options *o)
{
    return o->bound_alpha > 0.0 ? o->bound_alpha : o->alpha;
}

/*
 * What the tests of one comparison share about its questions: nq of them
 * (pair.q), by_rank the question indexes in the order the questions entered
 * (compare_options.order, then by id), d scratch of nq longs (zeroed).
 */
struct qctx {
    size_t nq;
    size_t *by_rank;
    long *d;
};

/* Per-question values beyond this many questions observed are not extrapolated further. */
#define NEED_FACTOR 10
#define NEED_MIN    1000

/*
 * The paired test over questions for pairs[0..n-1] (compare.h): per question
 * the integer d = sum of kw[p] * (baseline correct - candidate correct) over
 * its valid pairs, then the exact sign-flip test on the d's (stats.h); the
 * drop as a sum of per-question contributions u = sum of a[p] * (the same
 * difference), with its question-clustered se; and the betting tests and
 * bounds on the question's own endpoint x_q = sum over groups gi of gw[gi]
 * * the mean difference of its pairs in the group (g[p] a pair's group, a
 * depth; g NULL: one group of weight 1). a NULL: every valid pair weighs 1 /
 * t->n_pairs (the pooled accuracy difference); kw NULL: 1.
 */
static void cluster_test(struct compare_test *t, const struct compare_options *o,
                         const struct pair *pairs, size_t n, const double *a, const long *kw,
                         const int *g, const double *gw, size_t ng, struct qctx *qc)
{
    size_t k, q = 0, nq = qc->nq, nv = 0;
    long *d = qc->d;
    long *m = xcalloc(nq ? nq : 1, sizeof(*m));
    double *u = xcalloc(nq ? nq : 1, sizeof(*u));
    double *gs, *x, range = 0.0, margin = compare_fail_margin(o), level = compare_bound_level(o);
    long *gc;
    double uniform = t->n_pairs ? 1.0 / (double)t->n_pairs : 0.0;
    static const double one = 1.0;
    if (!g) {
        gw = &one;
        ng = 1;
    }
    gs = xcalloc(nq * ng + 1, sizeof(*gs));
    gc = xcalloc(nq * ng + 1, sizeof(*gc));
    x = xcalloc(nq + 1, sizeof(*x));
    for (k = 0; k < n; k++) {
        const struct pair *p = &pairs[k];
        int delta;
        if (!pair_valid(p))
            continue;
        delta = (p->base == OUTCOME_CORRECT) - (p->cand == OUTCOME_CORRECT);
        m[p->q]++;
        d[p->q] += (kw ? kw[k] : 1) * delta;
        u[p->q] += (a ? a[k] : uniform) * delta;
        gs[p->q * ng + (g ? (size_t)g[k] : 0)] += delta;
        gc[p->q * ng + (g ? (size_t)g[k] : 0)]++;
        if (p->repeat + 1 > t->n_repeats)
            t->n_repeats = p->repeat + 1;
    }
    for (k = 0; k < ng; k++)
        range += fabs(gw[k]);
    t->n_questions = 0;
    for (k = 0; k < nq; k++)
        t->n_questions += m[k] > 0;
    /* the question's own endpoint, in the order the questions entered */
    for (size_t r = 0; r < nq; r++) {
        size_t qq = qc->by_rank[r], gi;
        double v = 0.0;
        if (!m[qq])
            continue;
        for (gi = 0; gi < ng; gi++)
            if (gc[qq * ng + gi])
                v += gw[gi] * gs[qq * ng + gi] / (double)gc[qq * ng + gi];
        x[nv++] = v;
    }
    /* x_q = Q u_q over the questions with a pair: their mean is the drop */
    for (k = 0; k < nq; k++)
        if (m[k])
            u[q++] = (double)t->n_questions * u[k];
    (void)compare_upper_bound(u, q, level, &t->se);
    signflip_p(d, nq, &t->p_signflip_drop, &t->p_signflip_gain);
    if (range <= 0.0)
        range = 1.0;
    t->upper = seq_bet_bound(x, nv, range, SEQ_BELOW, level);
    t->lower = seq_bet_bound(x, nv, range, SEQ_ABOVE, level);
    t->p_drop = seq_bet_p(x, nv, range, margin, SEQ_ABOVE, o->alpha);
    t->p_gain = seq_bet_p(x, nv, range, -margin, SEQ_BELOW, o->alpha);
    t->p_any_drop = seq_bet_p(x, nv, range, 0.0, SEQ_ABOVE, o->alpha);
    t->need_q = 0;
    if (nv) {
        size_t cap = nv * NEED_FACTOR > NEED_MIN ? nv * NEED_FACTOR : NEED_MIN;
        size_t np = seq_bet_first_reject(x, nv, range, o->tolerance, SEQ_BELOW, level, cap);
        size_t nf = seq_bet_first_reject(x, nv, range, margin, SEQ_ABOVE, o->alpha, cap);
        size_t first = np && nf ? (np < nf ? np : nf) : np ? np : nf;
        t->need_q = first ? (long)(first > nv ? first : nv) : -1;
    }
    memset(d, 0, nq * sizeof(*d));
    free(m);
    free(u);
    free(gs);
    free(gc);
    free(x);
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
                        const struct pair *pairs, size_t n, struct qctx *qc)
{
    t->coverage = t->n_keys ? (double)t->n_pairs / (double)t->n_keys : 0.0;
    if (t->n_pairs) {
        t->acc_base = (double)(t->both_correct + t->base_only) / (double)t->n_pairs;
        t->acc_cand = (double)(t->both_correct + t->cand_only) / (double)t->n_pairs;
    }
    t->drop = t->acc_base - t->acc_cand;
    cluster_test(t, o, pairs, n, NULL, NULL, NULL, NULL, 0, qc);
    test_status(t, o);
}

static void add_reason(struct compare_result *r, struct strbuf *sb)
{
    r->reasons = xreallocarray(r->reasons, r->n_reasons + 1, sizeof(*r->reasons));
    r->reasons[r->n_reasons++] = strbuf_detach(sb, NULL);
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
                       struct qctx *qc, size_t *alloc)
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
            finish_test(t, &out->opt, sub, ns, qc);
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
    *b = sorted_final(base, nb, nbs, known, out->opt.exclude_known ? u : 0, 0);
    *c = sorted_final(cand, nc, ncs, known, out->opt.exclude_known ? u : 0, 0);
    free(known);
}

/*
 * One pair per trial key of either run (an outcome of -1 where a run lacks the key), in
 * cell order; *nq the questions (clusters), *ids_out their ids by index (malloc'd, borrowed
 * strings). The pairs borrow the trials' strings.
 */
static struct pair *pair_keys(const struct trial_point **b, size_t nbs,
                              const struct trial_point **c, size_t ncs, struct compare_result *out,
                              size_t *np_out, size_t *nq_out, const char ***ids_out)
{
    struct pair *pairs = NULL;
    const char **ids = NULL;
    size_t i = 0, j = 0, np = 0, nq = 0, alloc = 0, ialloc = 0;
    const char *prev_q = NULL;

    while (i < nbs || j < ncs) {
        int d = i >= nbs ? 1 : j >= ncs ? -1 : trial_point_cmp(b[i], c[j]);
        const struct trial_point *ref = d <= 0 ? b[i] : c[j];
        const char *qid = ref->question_id ? ref->question_id : "";
        ALLOC_GROW(pairs, np + 1, alloc);
        /* keys are sorted by question first: a new id is a new cluster */
        if (!prev_q || strcmp(prev_q, qid)) {
            ALLOC_GROW(ids, nq + 1, ialloc);
            ids[nq++] = qid;
        }
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
    *ids_out = ids;
    return pairs;
}

/* A question's place in the default order: FNV-1a of its id, a shuffle no outcome knows. */
struct ranked {
    uint64_t h;
    size_t q;
};

static int cmp_ranked(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    if (x->h != y->h)
        return x->h < y->h ? -1 : 1;
    return x->q < y->q ? -1 : x->q > y->q;
}

/*
 * The question indexes 0..nq-1 (ids[q], sorted) in the order of o->order, the rest after
 * in the order of their ids' hashes: the betting tests need an order that does not follow
 * the outcomes, and ids often group questions by topic or difficulty.
 */
static size_t *questions_by_rank(const char **ids, size_t nq, const struct compare_options *o)
{
    struct ranked *rest = xcalloc(nq + 1, sizeof(*rest));
    size_t nr = 0;
    size_t *by = xcalloc(nq + 1, sizeof(*by));
    char *used = xcalloc(nq + 1, 1);
    size_t n = 0;
    for (size_t i = 0; i < o->n_order && o->order; i++) {
        const char *id = o->order[i];
        const char **hit = id ? bsearch(&id, ids, nq, sizeof(*ids), cmp_str) : NULL;
        if (hit && !used[hit - ids]) {
            used[hit - ids] = 1;
            by[n++] = (size_t)(hit - ids);
        }
    }
    for (size_t q = 0; q < nq; q++)
        if (!used[q]) {
            /* FNV-1a alone keeps ids that differ in their last byte together: mixed */
            uint64_t st = fnv64_str(FNV64_INIT, ids[q]);
            rest[nr].h = rng_splitmix64(&st);
            rest[nr++].q = q;
        }
    qsort(rest, nr, sizeof(*rest), cmp_ranked);
    for (size_t k = 0; k < nr; k++)
        by[n++] = rest[k].q;
    free(rest);
    free(used);
    return by;
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
                      int n_mid, struct qctx *qc, size_t *alloc)
{
    struct compare_test *t;
    struct pair *sub = NULL;
    double *a = NULL, mid_b = 0.0, mid_c = 0.0, edge_b = 0.0, edge_c = 0.0;
    double *gw = xcalloc(nd + 1, sizeof(*gw));
    long *kw = NULL;
    int *g = NULL;
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
        gw[i] = w;
        for (k = dp->a; k < dp->b; k++) {
            ALLOC_GROW(sub, ns + 1, na);
            a = xreallocarray(a, na, sizeof(*a));
            kw = xreallocarray(kw, na, sizeof(*kw));
            g = xreallocarray(g, na, sizeof(*g));
            sub[ns] = pairs[k];
            g[ns] = (int)i;
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
    cluster_test(t, &out->opt, sub, ns, a, kw, g, gw, nd, qc);
    test_status(t, &out->opt);
    free(sub);
    free(a);
    free(kw);
    free(g);
    free(gw);
}

/*
 * The middle and dip tests of one length from its pairs[0..n-1] (sorted by
 * depth): none when no middle depth has data (fewer than 3 depths).
 */
static void band_tests(struct compare_result *out, const struct pair *pairs, size_t n,
                       struct qctx *qc, size_t *alloc)
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
        band_test(out, COMPARE_MIDDLE, pairs, dv, nd, n_edge, n_mid, qc, alloc);
        band_test(out, COMPARE_DIP, pairs, dv, nd, n_edge, n_mid, qc, alloc);
    }
    free(dv);
}

/* A COMPARE_CELL test per cell (each pair also into overall), then COMPARE_LENGTH per length. */
static void cell_length_tests(struct compare_result *out, const struct pair *pairs, size_t np,
                              struct qctx *qc, struct compare_test *overall, size_t *alloc)
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
        finish_test(t, &out->opt, pairs + i, j - i, qc);
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
        finish_test(t, &out->opt, pairs + i, j - i, qc);
        band_tests(out, pairs + i, j - i, qc, alloc);
    }
}

/* The middle band of the dip tests[i] (band_tests() makes it just before), or NULL. */
static const struct compare_test *dip_middle(const struct compare_result *out, size_t i)
{
    if (out->tests[i].scope != COMPARE_DIP || !i)
        return NULL;
    for (size_t k = i; k-- > 0;)
        if (out->tests[k].scope == COMPARE_MIDDLE && out->tests[k].length == out->tests[i].length)
            return &out->tests[k];
    return NULL;
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
        t->p_drop_adj = pd[k];
        t->p_gain_adj = pg[k];
        if (t->p_drop_adj < out->opt.alpha) {
            const struct compare_test *mid = dip_middle(out, idx[k]);
            /* a dip regresses only when its middle dropped: else a change of shape */
            if (t->scope != COMPARE_DIP || (mid && mid->p_any_drop < out->opt.alpha))
                t->status = CMP_REGRESSION;
            else
                t->shape_change = 1;
        } else if (t->p_gain_adj < out->opt.alpha) {
            t->status = CMP_IMPROVEMENT;
        }
    }
    /* planned at Holm's first step, as dipmap plan plans */
    for (i = 0; i < out->n_tests; i++) {
        struct compare_test *t = &out->tests[i];
        if (t->primary != want || !t->n_questions)
            continue;
        t->mde = power_mde_se(t->se, level);
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
        out->n_shape_changes += t->shape_change;
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
                r->n_primary_over == 1 ? "has" : "have",
                (1.0 - compare_bound_level(&r->opt)) * 100.0, r->opt.tolerance * 100.0);
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
                    ". If later questions differ as these %lu did, a decision needs about %ld "
                    "questions",
                    (unsigned long)r->n_questions, r->need_questions);
    else
        strbuf_addf(&sb,
                    ". If later questions differ as these %lu did, %lu questions do not decide "
                    "it at this tolerance",
                    (unsigned long)r->n_questions,
                    (unsigned long)(r->n_questions * NEED_FACTOR > NEED_MIN
                                        ? r->n_questions * NEED_FACTOR
                                        : NEED_MIN));
    add_reason(r, &sb);
}

/*
 * With --hallucination-margin D a PASS also claims the hallucination rate did not rise by D or
 * more: INCONCLUSIVE while its upper bound reaches D or it has no data (VALIDATION.md "The
 * hallucination endpoint": without this, a rise of 2 D PASSed 22 % of simulated gates).
 */
static void halluc_reason(struct compare_result *r)
{
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < r->n_tests; i++) {
        const struct compare_test *t = &r->tests[i];
        if (t->scope != COMPARE_HALLUC)
            continue;
        if (t->status == CMP_NO_DATA)
            strbuf_addstr(&sb, "the hallucination endpoint has no data: too few needle-absent "
                               "twins valid in both runs (run --absent P)");
        else if (t->upper >= r->opt.halluc_margin)
            strbuf_addf(&sb,
                        "the hallucination rate on needle-absent trials changed %+.1f pp and its "
                        "%.0f%% upper bound %+.1f pp is at or above the --hallucination-margin "
                        "%.1f pp, so a rise that large is not ruled out",
                        t->drop * 100.0, (1.0 - compare_bound_level(&r->opt)) * 100.0,
                        t->upper * 100.0, r->opt.halluc_margin * 100.0);
        break;
    }
    if (sb.len)
        add_reason(r, &sb);
    strbuf_release(&sb);
}

/* FAIL on a regression, else INCONCLUSIVE with its reasons, else PASS; overall's status. */
static void decide_verdict(struct compare_result *out, struct compare_test *overall, size_t nb,
                           size_t nc)
{
    int cells_gate = out->opt.gate == COMPARE_GATE_CELLS;
    int old_rule = out->opt.pass_rule == COMPARE_PASS_NO_REGRESSION;
    if (out->n_primary_regressions || (cells_gate && out->n_regressions) ||
        out->halluc_regression) {
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
        if (out->opt.halluc_margin >= 0)
            halluc_reason(out);
        strbuf_release(&sb);
        out->verdict = out->n_reasons ? VERDICT_INCONCLUSIVE : VERDICT_PASS;
    }
    overall->status = out->verdict == VERDICT_FAIL           ? CMP_REGRESSION
                      : out->verdict == VERDICT_INCONCLUSIVE ? CMP_NO_DATA
                                                             : CMP_OK;
}

/*
 * The hallucination endpoint (compare_options.halluc_margin): the absent twins of both runs
 * paired by key, abstaining counted as correct, so the accuracy drop is the rise of the
 * hallucination rate; tested at the margin by the betting test of every endpoint, at alpha on
 * its own. Appended to out->tests.
 */
static void halluc_test(struct compare_result *out, const struct trial_point *base, size_t nb,
                        const struct trial_point *cand, size_t nc, size_t *alloc)
{
    struct compare_result scratch;
    struct compare_options o = out->opt;
    const struct trial_point **b = sorted_final(base, nb, &nb, NULL, 0, 1);
    const struct trial_point **c = sorted_final(cand, nc, &nc, NULL, 0, 1);
    const char **ids;
    size_t np, nq;
    struct pair *pairs;
    struct qctx qc;
    struct compare_test *t;

    memset(&scratch, 0, sizeof(scratch));
    pairs = pair_keys(b, nb, c, nc, &scratch, &np, &nq, &ids);
    qc.nq = nq;
    qc.d = xcalloc(nq ? nq : 1, sizeof(*qc.d));
    qc.by_rank = questions_by_rank(ids, nq, &out->opt);
    o.fail_margin = out->opt.halluc_margin;
    ALLOC_GROW(out->tests, out->n_tests + 1, *alloc);
    t = &out->tests[out->n_tests++];
    memset(t, 0, sizeof(*t));
    t->scope = COMPARE_HALLUC;
    t->depth_bp = -1;
    for (size_t i = 0; i < np; i++)
        tally(t, &pairs[i]);
    finish_test(t, &o, pairs, np, &qc);
    if (t->status != CMP_NO_DATA) {
        t->p_drop_adj = t->p_drop;
        t->p_gain_adj = t->p_gain;
        if (t->p_drop < o.alpha)
            t->status = CMP_REGRESSION;
        else if (t->p_gain < o.alpha)
            t->status = CMP_IMPROVEMENT;
    }
    out->halluc_regression = t->status == CMP_REGRESSION;
    free(pairs);
    free(qc.d);
    free(qc.by_rank);
    free(ids);
    free(b);
    free(c);
}

void compare_runs(const struct trial_point *base, size_t nb, const struct trial_point *cand,
                  size_t nc, const struct compare_options *opt, struct compare_result *out)
{
    const struct trial_point **b, **c;
    size_t nbs, ncs, np, nq, alloc = 0;
    struct pair *pairs;
    struct compare_test overall;
    struct qctx qctx, *qc = &qctx;
    const char **ids;

    memset(out, 0, sizeof(*out));
    if (opt)
        out->opt = *opt;
    else
        compare_options_init(&out->opt);
    sorted_inputs(base, nb, cand, nc, out, &b, &nbs, &c, &ncs);
    pairs = pair_keys(b, nbs, c, ncs, out, &np, &nq, &ids);
    qc->nq = nq;
    qc->d = xcalloc(nq ? nq : 1, sizeof(*qc->d));
    qc->by_rank = questions_by_rank(ids, nq, &out->opt);

    /* cells, then lengths, then axis values, then overall */
    memset(&overall, 0, sizeof(overall));
    overall.scope = COMPARE_OVERALL;
    overall.depth_bp = -1;
    cell_length_tests(out, pairs, np, qc, &overall, &alloc);
    if (out->has_axes)
        axis_tests(out, pairs, np, qc, &alloc);
    finish_test(&overall, &out->opt, pairs, np, qc);
    out->n_questions = overall.n_questions;
    out->n_repeats = overall.n_repeats;
    free(pairs);
    free(qc->d);
    free(qc->by_rank);
    free(ids);
    /* the pairs borrowed the question ids of the sorted trial lists */
    free(b);
    free(c);

    holm_statuses(out);
    if (out->opt.halluc_margin >= 0)
        halluc_test(out, base, nb, cand, nc, &alloc);
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

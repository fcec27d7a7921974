/*
 * Paired regression verdicts between two runs: pairing by trial key, the
 * exact one-sided sign-flip test over questions per cell, per length and
 * overall (McNemar with one pair per question), Holm adjustment, warnings
 * and the verdict. Pure statistics: no I/O, no output formats (the writers are in
 * report_compare.c); owns nothing beyond struct compare_result.
 */
#include "stats/compare.h"

#include <stdlib.h>
#include <string.h>

#include "run/axes.h"
#include "run/plan.h"
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

/* ---- pairing ---- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Question ids answered correctly closed-book in t[0..n-1], appended to ids (sorted later). */
static void known_ids(const struct trial_result *t, size_t n, const char ***ids, size_t *nr,
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
static const struct trial_result **sorted_final(const struct trial_result *t, size_t n, size_t *nr,
                                                const char **known, size_t nk)
{
    const struct trial_result **v = xcalloc(n ? n : 1, sizeof(*v));
    size_t i, m = 0, k = 0;
    for (i = 0; i < n; i++) {
        const char *q = t[i].question_id ? t[i].question_id : "";
        if (t[i].outcome == OUTCOME_PENDING || trial_is_control(t[i].length, t[i].depth_bp))
            continue;
        if (nk && bsearch(&q, known, nk, sizeof(*known), cmp_str))
            continue;
        v[m++] = &t[i];
    }
    qsort(v, m, sizeof(*v), trial_key_cmp_ptr);
    for (i = 0; i < m; i++)
        if (!k || trial_key_cmp(v[k - 1], v[i]))
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

/*
 * The paired test over questions for pairs[0..n-1]: per question the
 * difference d = (baseline correct) - (candidate correct) over its valid
 * pairs, then the exact sign-flip test on the d's (stats.h). d is scratch
 * of nq longs, left zeroed.
 */
static void cluster_test(struct compare_test *t, const struct pair *pairs, size_t n, long *d,
                         size_t nq)
{
    size_t k;
    long *m = xcalloc(nq ? nq : 1, sizeof(*m));
    for (k = 0; k < n; k++) {
        const struct pair *p = &pairs[k];
        if (!pair_valid(p))
            continue;
        m[p->q]++;
        d[p->q] += (p->base == OUTCOME_CORRECT) - (p->cand == OUTCOME_CORRECT);
        if (p->repeat + 1 > t->n_repeats)
            t->n_repeats = p->repeat + 1;
    }
    t->n_questions = 0;
    for (k = 0; k < nq; k++)
        t->n_questions += m[k] > 0;
    t->p_drop = signflip_drop_p(d, nq);
    t->p_gain = signflip_gain_p(d, nq);
    memset(d, 0, nq * sizeof(*d));
    free(m);
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
    cluster_test(t, pairs, n, d, nq);
    t->p_drop_adj = t->p_gain_adj = 1.0;
    t->status = (t->n_pairs < o->min_pairs || t->coverage < o->min_coverage) ? CMP_NO_DATA : CMP_OK;
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
    if (t->scope == COMPARE_CELL) {
        strbuf_addstr(out, " @ ");
        plan_format_depth(out, t->depth_bp);
        if (t->axes) {
            strbuf_addstr(out, ", ");
            axes_format(out, t->axes, "");
        }
    } else {
        strbuf_addstr(out, " (all depths)");
    }
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
static void sorted_inputs(const struct trial_result *base, size_t nb,
                          const struct trial_result *cand, size_t nc, struct compare_result *out,
                          const struct trial_result ***b, size_t *nbs,
                          const struct trial_result ***c, size_t *ncs)
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
static struct pair *pair_keys(const struct trial_result **b, size_t nbs,
                              const struct trial_result **c, size_t ncs, struct compare_result *out,
                              size_t *np_out, size_t *nq_out)
{
    struct pair *pairs = NULL;
    size_t i = 0, j = 0, np = 0, nq = 0, alloc = 0;
    const char *prev_q = NULL;

    while (i < nbs || j < ncs) {
        int d = i >= nbs ? 1 : j >= ncs ? -1 : trial_key_cmp(b[i], c[j]);
        const struct trial_result *ref = d <= 0 ? b[i] : c[j];
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
        for (k = i; k < j; k++)
            tally(t, &pairs[k]);
        finish_test(t, &out->opt, pairs + i, j - i, scratch, nq);
    }
}

/* Holm over every tested cell, length and axis value, drops and gains as two families. */
static void holm_statuses(struct compare_result *out)
{
    double *pd = xcalloc(out->n_tests + 1, sizeof(*pd));
    double *pg = xcalloc(out->n_tests + 1, sizeof(*pg));
    size_t *idx = xcalloc(out->n_tests + 1, sizeof(*idx));
    size_t i, k, fam = 0;

    for (i = 0; i < out->n_tests; i++)
        if (out->tests[i].status != CMP_NO_DATA) {
            pd[fam] = out->tests[i].p_drop;
            pg[fam] = out->tests[i].p_gain;
            idx[fam++] = i;
        }
    holm_adjust(pd, fam, pd);
    holm_adjust(pg, fam, pg);
    out->n_family = fam;
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
    free(pd);
    free(pg);
    free(idx);
    for (i = 0; i < out->n_tests; i++) {
        if (out->tests[i].status == CMP_REGRESSION)
            out->n_regressions++;
        else if (out->tests[i].status == CMP_IMPROVEMENT)
            out->n_improvements++;
        else if (out->tests[i].status == CMP_NO_DATA)
            out->n_no_data++;
    }
}

/* FAIL on a regression, else INCONCLUSIVE with its reasons, else PASS; overall's status. */
static void decide_verdict(struct compare_result *out, struct compare_test *overall, size_t nb,
                           size_t nc)
{
    if (out->n_regressions) {
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
        no_data_reason(out, COMPARE_AXIS);
        no_data_reason(out, COMPARE_CELL);
        strbuf_release(&sb);
        out->verdict = out->n_reasons ? VERDICT_INCONCLUSIVE : VERDICT_PASS;
    }
    overall->status = out->verdict == VERDICT_FAIL           ? CMP_REGRESSION
                      : out->verdict == VERDICT_INCONCLUSIVE ? CMP_NO_DATA
                                                             : CMP_OK;
}

void compare_runs(const struct trial_result *base, size_t nb, const struct trial_result *cand,
                  size_t nc, const struct compare_options *opt, struct compare_result *out)
{
    const struct trial_result **b, **c;
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

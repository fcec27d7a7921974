/*
 * Paired regression verdicts between two runs: pairing by trial key, exact
 * one-sided McNemar per cell and per length, Holm adjustment, the verdict,
 * and its writers (Markdown step summary, JUnit XML, JSON, GitHub
 * annotations). Pure: no I/O; owns nothing beyond struct compare_result.
 */
#include "compare.h"

#include <cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "stats.h"
#include "store.h"
#include "strbuf.h"
#include "xalloc.h"

#include "banned.h"

void compare_options_init(struct compare_options *o)
{
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

static int cmp_key(const struct trial_result *x, const struct trial_result *y)
{
    int c = strcmp(x->question_id ? x->question_id : "", y->question_id ? y->question_id : "");
    if (c)
        return c;
    if (x->length != y->length)
        return x->length < y->length ? -1 : 1;
    if (x->depth_bp != y->depth_bp)
        return x->depth_bp < y->depth_bp ? -1 : 1;
    if (x->repeat != y->repeat)
        return x->repeat < y->repeat ? -1 : 1;
    return 0;
}

static int cmp_key_ptr(const void *a, const void *b)
{
    return cmp_key(*(const struct trial_result *const *)a, *(const struct trial_result *const *)b);
}

/* Final (non-pending) trials sorted by key, duplicates dropped (first kept). */
static const struct trial_result **sorted_final(const struct trial_result *t, size_t n, size_t *nr)
{
    const struct trial_result **v = xcalloc(n ? n : 1, sizeof(*v));
    size_t i, m = 0, k = 0;
    for (i = 0; i < n; i++)
        if (t[i].outcome != OUTCOME_PENDING)
            v[m++] = &t[i];
    qsort(v, m, sizeof(*v), cmp_key_ptr);
    for (i = 0; i < m; i++)
        if (!k || cmp_key(v[k - 1], v[i]))
            v[k++] = v[i];
    *nr = k;
    return v;
}

struct pair {
    long length;
    int depth_bp;
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
    return 0;
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

static void finish_test(struct compare_test *t, const struct compare_options *o)
{
    t->coverage = t->n_keys ? (double)t->n_pairs / (double)t->n_keys : 0.0;
    if (t->n_pairs) {
        t->acc_base = (double)(t->both_correct + t->base_only) / (double)t->n_pairs;
        t->acc_cand = (double)(t->both_correct + t->cand_only) / (double)t->n_pairs;
    }
    t->drop = t->acc_base - t->acc_cand;
    t->p_drop = mcnemar_drop_p(t->base_only, t->cand_only);
    t->p_gain = mcnemar_gain_p(t->base_only, t->cand_only);
    t->p_drop_adj = t->p_gain_adj = 1.0;
    t->status = (t->n_pairs < o->min_pairs || t->coverage < o->min_coverage) ? CMP_NO_DATA : CMP_OK;
}

static void add_reason(struct compare_result *r, struct strbuf *sb)
{
    r->reasons = xreallocarray(r->reasons, r->n_reasons + 1, sizeof(*r->reasons));
    r->reasons[r->n_reasons++] = strbuf_detach(sb, NULL);
}

static void fmt_length(struct strbuf *out, long len)
{
    if (len > 0 && len % 1024 == 0)
        strbuf_addf(out, "%ldk", len / 1024);
    else
        strbuf_addf(out, "%ld", len);
}

static void fmt_depth(struct strbuf *out, int bp)
{
    if (bp % 100 == 0)
        strbuf_addf(out, "%d%%", bp / 100);
    else
        strbuf_addf(out, "%g%%", bp / 100.0);
}

static void fmt_test_name(struct strbuf *out, const struct compare_test *t)
{
    if (t->scope == COMPARE_OVERALL) {
        strbuf_addstr(out, "overall");
        return;
    }
    fmt_length(out, t->length);
    if (t->scope == COMPARE_CELL) {
        strbuf_addstr(out, " @ ");
        fmt_depth(out, t->depth_bp);
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
                scope == COMPARE_CELL ? (count == 1 ? "cell" : "cells")
                                      : (count == 1 ? "length" : "lengths"),
                r->opt.min_pairs, r->opt.min_coverage * 100.0);
    for (i = 0; i < r->n_tests && shown < 5; i++) {
        const struct compare_test *t = &r->tests[i];
        if (t->scope != scope || t->status != CMP_NO_DATA)
            continue;
        if (shown++)
            strbuf_addstr(&sb, ", ");
        fmt_test_name(&sb, t);
        strbuf_addf(&sb, " (%ld pairs, %.0f%% coverage)", t->n_pairs, t->coverage * 100.0);
    }
    if (count > shown)
        strbuf_addf(&sb, ", and %lu more", (unsigned long)(count - shown));
    add_reason(r, &sb);
}

void compare_runs(const struct trial_result *base, size_t nb, const struct trial_result *cand,
                  size_t nc, const struct compare_options *opt, struct compare_result *out)
{
    const struct trial_result **b, **c;
    size_t nbs, ncs, i = 0, j = 0, np = 0, k, alloc = 0, fam = 0;
    struct pair *pairs = NULL;
    struct compare_test overall;
    double *pd, *pg;
    size_t *idx;

    memset(out, 0, sizeof(*out));
    if (opt)
        out->opt = *opt;
    else
        compare_options_init(&out->opt);

    b = sorted_final(base, nb, &nbs);
    c = sorted_final(cand, nc, &ncs);
    while (i < nbs || j < ncs) {
        int d = i >= nbs ? 1 : j >= ncs ? -1 : cmp_key(b[i], c[j]);
        const struct trial_result *ref = d <= 0 ? b[i] : c[j];
        ALLOC_GROW(pairs, np + 1, alloc);
        pairs[np].length = ref->length;
        pairs[np].depth_bp = ref->depth_bp;
        pairs[np].base = d <= 0 ? (int)b[i++]->outcome : -1;
        pairs[np].cand = d >= 0 ? (int)c[j++]->outcome : -1;
        if (pairs[np].base < 0)
            out->candidate_only_keys++;
        if (pairs[np].cand < 0)
            out->baseline_only_keys++;
        np++;
    }
    free(b);
    free(c);
    qsort(pairs, np, sizeof(*pairs), cmp_pair_cell);

    /* cells, then lengths, then overall */
    alloc = 0;
    memset(&overall, 0, sizeof(overall));
    overall.scope = COMPARE_OVERALL;
    overall.depth_bp = -1;
    for (i = 0; i < np; i = j) {
        struct compare_test *t;
        for (j = i; j < np && !cmp_pair_cell(&pairs[i], &pairs[j]); j++)
            ;
        ALLOC_GROW(out->tests, out->n_tests + 1, alloc);
        t = &out->tests[out->n_tests++];
        memset(t, 0, sizeof(*t));
        t->scope = COMPARE_CELL;
        t->length = pairs[i].length;
        t->depth_bp = pairs[i].depth_bp;
        for (k = i; k < j; k++) {
            tally(t, &pairs[k]);
            tally(&overall, &pairs[k]);
        }
        finish_test(t, &out->opt);
    }
    {
        for (i = 0; i < np; i = j) {
            struct compare_test *t;
            for (j = i; j < np && pairs[j].length == pairs[i].length; j++)
                ;
            ALLOC_GROW(out->tests, out->n_tests + 1, alloc);
            t = &out->tests[out->n_tests++];
            memset(t, 0, sizeof(*t));
            t->scope = COMPARE_LENGTH;
            t->length = pairs[i].length;
            t->depth_bp = -1;
            for (k = i; k < j; k++)
                tally(t, &pairs[k]);
            finish_test(t, &out->opt);
        }
    }
    free(pairs);

    /* Holm over every tested cell and length, drops and gains as two families */
    pd = xcalloc(out->n_tests + 1, sizeof(*pd));
    pg = xcalloc(out->n_tests + 1, sizeof(*pg));
    idx = xcalloc(out->n_tests + 1, sizeof(*idx));
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

    finish_test(&overall, &out->opt);
    overall.p_drop_adj = overall.p_drop;
    overall.p_gain_adj = overall.p_gain;

    if (out->n_regressions) {
        out->verdict = VERDICT_FAIL;
    } else {
        struct strbuf sb = STRBUF_INIT;
        if (!overall.n_pairs) {
            strbuf_addstr(&sb, "no valid pairs: no trial is correct or wrong in both runs");
            if (!nb || !nc)
                strbuf_addf(&sb, " (the %s run has no trials)", !nb ? "baseline" : "candidate");
            add_reason(out, &sb);
        } else if (overall.coverage < out->opt.min_coverage) {
            strbuf_addf(&sb,
                        "coverage %.1f%% is below the minimum %.1f%%: %ld of %ld trial keys are "
                        "valid in both runs (%ld only in the baseline, %ld only in the candidate, "
                        "the rest ended overflow/truncated/empty/filtered/error in one run)",
                        overall.coverage * 100.0, out->opt.min_coverage * 100.0, overall.n_pairs,
                        overall.n_keys, out->baseline_only_keys, out->candidate_only_keys);
            add_reason(out, &sb);
        }
        no_data_reason(out, COMPARE_LENGTH);
        no_data_reason(out, COMPARE_CELL);
        strbuf_release(&sb);
        out->verdict = out->n_reasons ? VERDICT_INCONCLUSIVE : VERDICT_PASS;
    }
    overall.status = out->verdict == VERDICT_FAIL           ? CMP_REGRESSION
                     : out->verdict == VERDICT_INCONCLUSIVE ? CMP_NO_DATA
                                                            : CMP_OK;
    ALLOC_GROW(out->tests, out->n_tests + 1, alloc);
    out->tests[out->n_tests++] = overall;
}

void compare_result_release(struct compare_result *r)
{
    size_t i;
    for (i = 0; i < r->n_reasons; i++)
        free(r->reasons[i]);
    free(r->reasons);
    free(r->tests);
    memset(r, 0, sizeof(*r));
}

/* ---- input identity ---- */

static int str_eq(const char *a, const char *b)
{
    if (!a || !b)
        return !a && !b;
    return !strcmp(a, b);
}

static void short_hash(struct strbuf *out, const char *h)
{
    if (!h)
        strbuf_addstr(out, "(none)");
    else if (strlen(h) > 12)
        strbuf_addf(out, "%.12s\xe2\x80\xa6", h);
    else
        strbuf_addstr(out, h);
}

static int check_field(const char *what, const char *field, const char *a, const char *b,
                       struct strbuf *why)
{
    if (str_eq(a, b))
        return 1;
    if (why) {
        strbuf_addf(why, "%s differs: %s ", what, field);
        short_hash(why, a);
        strbuf_addstr(why, " vs ");
        short_hash(why, b);
        strbuf_addch(why, '\n');
    }
    return 0;
}

int compare_same_inputs(const struct run_info *a, const struct run_info *b, struct strbuf *why)
{
    int same = 1;
    same &= check_field("golden set", "golden_sha256", a->golden_sha256, b->golden_sha256, why);
    same &= check_field("haystack", "haystack_sha256", a->haystack_sha256, b->haystack_sha256, why);
    same &= check_field("template", "template_sha256", a->template_sha256, b->template_sha256, why);
    if (a->tokenizer_sha256 || b->tokenizer_sha256)
        same &= check_field("tokenizer", "tokenizer_sha256", a->tokenizer_sha256,
                            b->tokenizer_sha256, why);
    else
        same &=
            check_field("tokenizer", "tokenizer_name", a->tokenizer_name, b->tokenizer_name, why);
    return same;
}

/* ---- shared formatting ---- */

static void fmt_pct(struct strbuf *out, double x)
{
    strbuf_addf(out, "%.1f%%", x * 100.0);
}

static void fmt_pp(struct strbuf *out, double x)
{
    /* change candidate - baseline in percentage points, sign always shown */
    double v = x * 100.0;
    if (fabs(v) < 0.05)
        v = 0.0;
    strbuf_addf(out, "%+.1f pp", v);
}

static void fmt_p(struct strbuf *out, double p)
{
    if (p < 0.0001)
        strbuf_addf(out, "%.1e", p);
    else
        strbuf_addf(out, "%.4f", p);
}

static const char *run_name(const struct run_info *r)
{
    return r && r->name ? r->name : "?";
}

static const char *run_model(const struct run_info *r)
{
    if (!r)
        return NULL;
    return r->model_served ? r->model_served : r->model_requested;
}

/* worst first: largest drop, then smallest adjusted p */
static int cmp_drop(const void *a, const void *b)
{
    const struct compare_test *x = *(const struct compare_test *const *)a;
    const struct compare_test *y = *(const struct compare_test *const *)b;
    if (x->drop != y->drop)
        return x->drop > y->drop ? -1 : 1;
    if (x->p_drop_adj != y->p_drop_adj)
        return x->p_drop_adj < y->p_drop_adj ? -1 : 1;
    return x < y ? -1 : x > y;
}

static const struct compare_test *const *tests_by_drop(const struct compare_result *r,
                                                       enum compare_scope scope, size_t *nr)
{
    const struct compare_test **v = xcalloc(r->n_tests + 1, sizeof(*v));
    size_t i, n = 0;
    for (i = 0; i < r->n_tests; i++)
        if (r->tests[i].scope == scope)
            v[n++] = &r->tests[i];
    qsort(v, n, sizeof(*v), cmp_drop);
    *nr = n;
    return v;
}

/* ---- Markdown ---- */

#define MD_TOP_CELLS 20

static void md_row(struct strbuf *out, const struct compare_test *t)
{
    strbuf_addstr(out, "| ");
    fmt_test_name(out, t);
    strbuf_addf(out, " | %ld | ", t->n_pairs);
    fmt_pct(out, t->acc_base);
    strbuf_addstr(out, " | ");
    fmt_pct(out, t->acc_cand);
    strbuf_addstr(out, " | ");
    fmt_pp(out, -t->drop);
    strbuf_addf(out, " | %ld / %ld | ", t->base_only, t->cand_only);
    if (t->status == CMP_NO_DATA && t->scope != COMPARE_OVERALL)
        strbuf_addstr(out, "–");
    else
        fmt_p(out, t->drop >= 0 ? t->p_drop_adj : t->p_gain_adj);
    if (t->scope == COMPARE_OVERALL)
        strbuf_addstr(out, " (unadjusted)");
    strbuf_addf(out, " | %s |\n", compare_status_name(t->status));
}

static const char md_head[] = "| test | pairs | baseline | candidate | change | lost / gained | "
                              "p (Holm) | status |\n"
                              "|---|---:|---:|---:|---:|---:|---:|---|\n";

/* Append text unless it would pass the limit; returns 0 when appended. */
static int md_add(struct strbuf *out, const struct strbuf *piece, size_t limit)
{
    if (limit && out->len + piece->len > limit)
        return -1;
    strbuf_add(out, piece->buf, piece->len);
    return 0;
}

void compare_write_markdown(struct strbuf *out, const struct compare_result *r,
                            const struct compare_meta *m, size_t max_bytes)
{
    struct strbuf piece = STRBUF_INIT;
    const struct compare_test *const *v;
    const struct compare_test *overall = r->n_tests ? &r->tests[r->n_tests - 1] : NULL;
    size_t n, i, shown, omitted = 0, start = out->len;
    /* room kept for the closing note */
    size_t limit = max_bytes ? start + (max_bytes > 512 ? max_bytes - 512 : max_bytes / 2) : 0;
    const char *mark = r->verdict == VERDICT_PASS   ? "\xe2\x9c\x85"
                       : r->verdict == VERDICT_FAIL ? "\xe2\x9d\x8c"
                                                    : "\xe2\x9a\xa0\xef\xb8\x8f";

    strbuf_addf(out, "## dipmap compare: %s %s\n\n", compare_verdict_name(r->verdict), mark);
    strbuf_addstr(out, "Baseline **");
    escape_md(out, run_name(m ? m->baseline : NULL));
    strbuf_addstr(out, "**");
    if (m && run_model(m->baseline)) {
        strbuf_addstr(out, " (");
        escape_md(out, run_model(m->baseline));
        strbuf_addstr(out, ")");
    }
    strbuf_addstr(out, " vs candidate **");
    escape_md(out, run_name(m ? m->candidate : NULL));
    strbuf_addstr(out, "**");
    if (m && run_model(m->candidate)) {
        strbuf_addstr(out, " (");
        escape_md(out, run_model(m->candidate));
        strbuf_addstr(out, ")");
    }
    strbuf_addstr(out, ".\n\n");
    if (overall)
        strbuf_addf(out,
                    "%ld regression%s, %ld improvement%s, %ld test%s without enough data; "
                    "%ld valid pairs of %ld trial keys (coverage %.1f%%).\n",
                    r->n_regressions, r->n_regressions == 1 ? "" : "s", r->n_improvements,
                    r->n_improvements == 1 ? "" : "s", r->n_no_data, r->n_no_data == 1 ? "" : "s",
                    overall->n_pairs, overall->n_keys, overall->coverage * 100.0);
    strbuf_addf(out,
                "A regression is a drop of at least %.1f pp with Holm-adjusted p < %g "
                "(exact one-sided McNemar on paired trials, %lu test%s).\n\n",
                r->opt.tolerance * 100.0, r->opt.alpha, (unsigned long)r->n_family,
                r->n_family == 1 ? "" : "s");
    if (m && m->inputs_note) {
        strbuf_addstr(out, "> **Warning:** ");
        escape_md(out, m->inputs_note);
        strbuf_addstr(out, "\n\n");
    }
    if (r->n_reasons) {
        strbuf_addstr(out, "### Inconclusive because\n\n");
        for (i = 0; i < r->n_reasons; i++) {
            strbuf_addstr(out, "- ");
            escape_md(out, r->reasons[i]);
            strbuf_addch(out, '\n');
        }
        strbuf_addch(out, '\n');
    }

    /* regressions and improvements: cells and lengths, worst first */
    for (int pass = 0; pass < 2; pass++) {
        enum compare_status want = pass ? CMP_IMPROVEMENT : CMP_REGRESSION;
        long count = pass ? r->n_improvements : r->n_regressions;
        if (!count)
            continue;
        strbuf_addf(out, "### %s\n\n%s", pass ? "Improvements" : "Regressions", md_head);
        for (int sc = COMPARE_LENGTH; sc >= COMPARE_CELL; sc--) {
            v = tests_by_drop(r, (enum compare_scope)sc, &n);
            for (i = 0; i < n; i++) {
                size_t idx = pass ? n - 1 - i : i;
                if (v[idx]->status != want)
                    continue;
                strbuf_reset(&piece);
                md_row(&piece, v[idx]);
                if (md_add(out, &piece, limit))
                    omitted++;
            }
            free((void *)v);
        }
        strbuf_addch(out, '\n');
    }

    /* per length */
    v = tests_by_drop(r, COMPARE_LENGTH, &n);
    if (n) {
        strbuf_addf(out, "### Per length\n\n%s", md_head);
        for (i = 0; i < r->n_tests; i++) {
            if (r->tests[i].scope != COMPARE_LENGTH)
                continue;
            strbuf_reset(&piece);
            md_row(&piece, &r->tests[i]);
            if (md_add(out, &piece, limit))
                omitted++;
        }
        if (overall) {
            strbuf_reset(&piece);
            md_row(&piece, overall);
            if (md_add(out, &piece, limit))
                omitted++;
        }
        strbuf_addch(out, '\n');
    }
    free((void *)v);

    /* worst cells */
    v = tests_by_drop(r, COMPARE_CELL, &n);
    if (n) {
        strbuf_addf(out, "### Cells, largest drop first (top %d of %lu)\n\n%s",
                    n < MD_TOP_CELLS ? (int)n : MD_TOP_CELLS, (unsigned long)n, md_head);
        for (i = 0, shown = 0; i < n && shown < MD_TOP_CELLS; i++, shown++) {
            strbuf_reset(&piece);
            md_row(&piece, v[i]);
            if (md_add(out, &piece, limit))
                omitted++;
        }
        strbuf_addch(out, '\n');
    }
    free((void *)v);
    if (omitted)
        strbuf_addf(out,
                    "_%lu table rows omitted to keep this summary under %lu bytes; "
                    "see the JSON or JUnit output for every test._\n",
                    (unsigned long)omitted, (unsigned long)max_bytes);
    strbuf_release(&piece);
}

/* ---- XML ---- */

void compare_xml_escape(struct strbuf *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t len = strlen((const char *)p), i = 0;
    while (i < len) {
        unsigned cp;
        size_t k = utf8_decode(p + i, len - i, &cp);
        if (!k) { /* invalid byte: dropped */
            i++;
            continue;
        }
        if ((cp < 0x20 && cp != 0x9 && cp != 0xA && cp != 0xD) || (cp >= 0xD800 && cp <= 0xDFFF) ||
            cp == 0xFFFE || cp == 0xFFFF) {
            i += k;
            continue;
        }
        switch (cp) {
        case '&':
            strbuf_addstr(out, "&amp;");
            break;
        case '<':
            strbuf_addstr(out, "&lt;");
            break;
        case '>':
            strbuf_addstr(out, "&gt;");
            break;
        case '"':
            strbuf_addstr(out, "&quot;");
            break;
        case '\'':
            strbuf_addstr(out, "&apos;");
            break;
        case '\n':
            strbuf_addstr(out, "&#10;");
            break;
        case '\r':
            strbuf_addstr(out, "&#13;");
            break;
        case '\t':
            strbuf_addstr(out, "&#9;");
            break;
        default:
            strbuf_add(out, p + i, k);
        }
        i += k;
    }
}

static void xml_attr(struct strbuf *out, const char *name, const char *value)
{
    strbuf_addf(out, " %s=\"", name);
    compare_xml_escape(out, value);
    strbuf_addch(out, '"');
}

static void test_details(struct strbuf *out, const struct compare_test *t)
{
    strbuf_addf(out, "%ld valid pairs of %ld keys (coverage %.1f%%); baseline ", t->n_pairs,
                t->n_keys, t->coverage * 100.0);
    fmt_pct(out, t->acc_base);
    strbuf_addstr(out, ", candidate ");
    fmt_pct(out, t->acc_cand);
    strbuf_addstr(out, " (");
    fmt_pp(out, -t->drop);
    strbuf_addf(out, "); lost %ld, gained %ld; p(drop) %.6g, Holm-adjusted %.6g", t->base_only,
                t->cand_only, t->p_drop, t->p_drop_adj);
}

void compare_write_junit(struct strbuf *out, const struct compare_result *r,
                         const struct compare_meta *m)
{
    struct strbuf sb = STRBUF_INIT, name = STRBUF_INIT, cls = STRBUF_INIT;
    long failures = 0, skipped = 0;
    size_t i;
    for (i = 0; i < r->n_tests; i++) {
        if (r->tests[i].status == CMP_REGRESSION)
            failures++;
        else if (r->tests[i].status == CMP_NO_DATA)
            skipped++;
    }
    strbuf_addf(&sb, "dipmap compare %s vs %s", run_name(m ? m->baseline : NULL),
                run_name(m ? m->candidate : NULL));
    strbuf_addstr(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites");
    xml_attr(out, "name", "dipmap compare");
    strbuf_addf(out, " tests=\"%lu\" failures=\"%ld\" errors=\"0\" skipped=\"%ld\" time=\"0\">\n",
                (unsigned long)r->n_tests, failures, skipped);
    strbuf_addstr(out, "  <testsuite");
    xml_attr(out, "name", sb.buf);
    strbuf_addf(out, " tests=\"%lu\" failures=\"%ld\" errors=\"0\" skipped=\"%ld\" time=\"0\">\n",
                (unsigned long)r->n_tests, failures, skipped);
    strbuf_addstr(out, "    <properties>\n");
    strbuf_addstr(out, "      <property name=\"baseline\"");
    xml_attr(out, "value", run_name(m ? m->baseline : NULL));
    strbuf_addstr(out, "/>\n      <property name=\"candidate\"");
    xml_attr(out, "value", run_name(m ? m->candidate : NULL));
    strbuf_addf(out,
                "/>\n      <property name=\"verdict\" value=\"%s\"/>\n"
                "      <property name=\"alpha\" value=\"%g\"/>\n"
                "      <property name=\"tolerance\" value=\"%g\"/>\n    </properties>\n",
                compare_verdict_name(r->verdict), r->opt.alpha, r->opt.tolerance);
    for (i = 0; i < r->n_tests; i++) {
        const struct compare_test *t = &r->tests[i];
        strbuf_reset(&name);
        strbuf_reset(&cls);
        strbuf_reset(&sb);
        if (t->scope == COMPARE_OVERALL) {
            strbuf_addstr(&cls, "dipmap.compare");
            strbuf_addstr(&name, "overall");
        } else {
            strbuf_addstr(&cls, "dipmap.compare.length.");
            fmt_length(&cls, t->length);
            if (t->scope == COMPARE_CELL) {
                strbuf_addstr(&name, "depth ");
                fmt_depth(&name, t->depth_bp);
            } else {
                strbuf_addstr(&name, "all depths");
            }
        }
        test_details(&sb, t);
        strbuf_addstr(out, "    <testcase");
        xml_attr(out, "classname", cls.buf);
        xml_attr(out, "name", name.buf);
        strbuf_addstr(out, " time=\"0\">\n");
        if (t->status == CMP_REGRESSION) {
            struct strbuf msg = STRBUF_INIT;
            if (t->scope == COMPARE_OVERALL) {
                strbuf_addf(&msg, "%ld regression%s", r->n_regressions,
                            r->n_regressions == 1 ? "" : "s");
            } else {
                strbuf_addstr(&msg, "accuracy dropped ");
                fmt_pct(&msg, t->acc_base);
                strbuf_addstr(&msg, " -> ");
                fmt_pct(&msg, t->acc_cand);
                strbuf_addstr(&msg, " (Holm p ");
                fmt_p(&msg, t->p_drop_adj);
                strbuf_addstr(&msg, ")");
            }
            strbuf_addstr(out, "      <failure type=\"regression\"");
            xml_attr(out, "message", msg.buf);
            strbuf_addch(out, '>');
            compare_xml_escape(out, sb.buf);
            strbuf_addstr(out, "</failure>\n");
            strbuf_release(&msg);
        } else if (t->status == CMP_NO_DATA) {
            strbuf_addstr(out, "      <skipped");
            xml_attr(out, "message", "not enough data");
            strbuf_addch(out, '>');
            if (t->scope == COMPARE_OVERALL) {
                size_t k;
                for (k = 0; k < r->n_reasons; k++) {
                    compare_xml_escape(out, r->reasons[k]);
                    compare_xml_escape(out, "\n");
                }
            } else {
                compare_xml_escape(out, sb.buf);
            }
            strbuf_addstr(out, "</skipped>\n");
        }
        strbuf_addstr(out, "      <system-out>");
        compare_xml_escape(out, sb.buf);
        strbuf_addstr(out, "</system-out>\n    </testcase>\n");
    }
    strbuf_addstr(out, "  </testsuite>\n</testsuites>\n");
    strbuf_release(&sb);
    strbuf_release(&name);
    strbuf_release(&cls);
}

/* ---- JSON ---- */

static cJSON *run_json(const struct run_info *ri)
{
    cJSON *o;
    if (!ri)
        return cJSON_CreateNull();
    o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "name", ri->name ? cJSON_CreateString(ri->name) : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "model",
                          run_model(ri) ? cJSON_CreateString(run_model(ri)) : cJSON_CreateNull());
    return o;
}

void compare_write_json(struct strbuf *out, const struct compare_result *r,
                        const struct compare_meta *m)
{
    cJSON *root = cJSON_CreateObject(), *o, *arr;
    char *text;
    size_t i;
    cJSON_AddStringToObject(root, "schema", "dipmap.compare/1");
    cJSON_AddStringToObject(root, "verdict", compare_verdict_name(r->verdict));
    cJSON_AddItemToObject(root, "baseline", run_json(m ? m->baseline : NULL));
    cJSON_AddItemToObject(root, "candidate", run_json(m ? m->candidate : NULL));
    o = cJSON_AddObjectToObject(root, "options");
    cJSON_AddNumberToObject(o, "alpha", r->opt.alpha);
    cJSON_AddNumberToObject(o, "tolerance", r->opt.tolerance);
    cJSON_AddNumberToObject(o, "min_pairs", (double)r->opt.min_pairs);
    cJSON_AddNumberToObject(o, "min_coverage", r->opt.min_coverage);
    cJSON_AddItemToObject(root, "inputs_note",
                          m && m->inputs_note ? cJSON_CreateString(m->inputs_note)
                                              : cJSON_CreateNull());
    cJSON_AddNumberToObject(root, "regressions", (double)r->n_regressions);
    cJSON_AddNumberToObject(root, "improvements", (double)r->n_improvements);
    cJSON_AddNumberToObject(root, "not_enough_data", (double)r->n_no_data);
    cJSON_AddNumberToObject(root, "holm_family_size", (double)r->n_family);
    cJSON_AddNumberToObject(root, "baseline_only_keys", (double)r->baseline_only_keys);
    cJSON_AddNumberToObject(root, "candidate_only_keys", (double)r->candidate_only_keys);
    arr = cJSON_AddArrayToObject(root, "reasons");
    for (i = 0; i < r->n_reasons; i++)
        cJSON_AddItemToArray(arr, cJSON_CreateString(r->reasons[i]));
    arr = cJSON_AddArrayToObject(root, "tests");
    for (i = 0; i < r->n_tests; i++) {
        const struct compare_test *t = &r->tests[i];
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "scope",
                                t->scope == COMPARE_CELL     ? "cell"
                                : t->scope == COMPARE_LENGTH ? "length"
                                                             : "overall");
        if (t->scope == COMPARE_OVERALL)
            cJSON_AddNullToObject(x, "length");
        else
            cJSON_AddNumberToObject(x, "length", (double)t->length);
        if (t->scope == COMPARE_CELL)
            cJSON_AddNumberToObject(x, "depth", t->depth_bp / (double)DEPTH_BP_MAX);
        else
            cJSON_AddNullToObject(x, "depth");
        cJSON_AddNumberToObject(x, "keys", (double)t->n_keys);
        cJSON_AddNumberToObject(x, "pairs", (double)t->n_pairs);
        cJSON_AddNumberToObject(x, "coverage", t->coverage);
        cJSON_AddNumberToObject(x, "both_correct", (double)t->both_correct);
        cJSON_AddNumberToObject(x, "lost", (double)t->base_only);
        cJSON_AddNumberToObject(x, "gained", (double)t->cand_only);
        cJSON_AddNumberToObject(x, "both_wrong", (double)t->both_wrong);
        cJSON_AddNumberToObject(x, "accuracy_baseline", t->acc_base);
        cJSON_AddNumberToObject(x, "accuracy_candidate", t->acc_cand);
        cJSON_AddNumberToObject(x, "drop", t->drop);
        cJSON_AddNumberToObject(x, "p_drop", t->p_drop);
        cJSON_AddNumberToObject(x, "p_gain", t->p_gain);
        cJSON_AddNumberToObject(x, "p_drop_holm", t->p_drop_adj);
        cJSON_AddNumberToObject(x, "p_gain_holm", t->p_gain_adj);
        cJSON_AddStringToObject(x, "status", compare_status_name(t->status));
        cJSON_AddItemToArray(arr, x);
    }
    text = cJSON_Print(root);
    if (text) {
        strbuf_addstr(out, text);
        strbuf_addch(out, '\n');
        cJSON_free(text);
    }
    cJSON_Delete(root);
}

/* ---- GitHub annotations ---- */

static void gh_escape(struct strbuf *out, const char *s, int property)
{
    for (; *s; s++) {
        if (*s == '%')
            strbuf_addstr(out, "%25");
        else if (*s == '\r')
            strbuf_addstr(out, "%0D");
        else if (*s == '\n')
            strbuf_addstr(out, "%0A");
        else if (property && *s == ':')
            strbuf_addstr(out, "%3A");
        else if (property && *s == ',')
            strbuf_addstr(out, "%2C");
        else
            strbuf_addch(out, *s);
    }
}

void compare_write_annotations(struct strbuf *out, const struct compare_result *r, int max_lines)
{
    struct strbuf msg = STRBUF_INIT, title = STRBUF_INIT;
    const struct compare_test **v;
    size_t i, n = 0;
    long emitted = 0;
    if (!r->n_regressions || max_lines <= 0)
        return;
    v = xcalloc(r->n_tests + 1, sizeof(*v));
    for (i = 0; i < r->n_tests; i++)
        if (r->tests[i].status == CMP_REGRESSION && r->tests[i].scope != COMPARE_OVERALL)
            v[n++] = &r->tests[i];
    qsort(v, n, sizeof(*v), cmp_drop);
    for (i = 0; i < n; i++) {
        strbuf_reset(&msg);
        strbuf_reset(&title);
        if (emitted == max_lines - 1 && n - i > 1) {
            strbuf_addf(&msg, "%lu more regressions; see the step summary or JUnit report",
                        (unsigned long)(n - i));
            strbuf_addstr(&title, "dipmap regression");
        } else {
            strbuf_addstr(&title, "dipmap regression ");
            fmt_test_name(&title, v[i]);
            strbuf_addstr(&msg, "accuracy ");
            fmt_pct(&msg, v[i]->acc_base);
            strbuf_addstr(&msg, " -> ");
            fmt_pct(&msg, v[i]->acc_cand);
            strbuf_addstr(&msg, " (");
            fmt_pp(&msg, -v[i]->drop);
            strbuf_addf(&msg, ") over %ld paired trials; Holm-adjusted p ", v[i]->n_pairs);
            fmt_p(&msg, v[i]->p_drop_adj);
        }
        strbuf_addstr(out, "::error title=");
        gh_escape(out, title.buf, 1);
        strbuf_addstr(out, "::");
        gh_escape(out, msg.buf, 0);
        strbuf_addch(out, '\n');
        if (++emitted >= max_lines)
            break;
    }
    free(v);
    strbuf_release(&msg);
    strbuf_release(&title);
}

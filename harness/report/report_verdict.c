/*
 * The verdict of `dipmap compare` as every format shows it: struct verdict
 * (report-int.h) orders the tests (what the gate tested first, the primary
 * endpoints of compare_endpoints[] by length, then the secondary tests worst
 * first, overall last), says per test whether it fails the gate, and formats
 * values, changes and counts once; and the one document written from it as
 * compare.md, the step summary and the body of compare.html (markup calls).
 */
#include "report/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/axes.h"
#include "stats/compare.h"
#include "report/report-int.h"
#include "run/plan.h"
#include "store/store.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"

#include "base/banned.h"

/* ---- the verdict structure ---- */

static int gated(const struct compare_result *r, const struct compare_test *t)
{
    if (t->scope == COMPARE_OVERALL)
        return 0;
    return t->primary || t->scope == COMPARE_HALLUC || r->opt.gate == COMPARE_GATE_CELLS;
}

/* A gated test that keeps the verdict from PASS under the bound rule without failing it. */
static int undecided(const struct compare_result *r, const struct compare_test *t)
{
    return gated(r, t) && t->primary && t->status == CMP_OK &&
           r->opt.pass_rule == COMPARE_PASS_BOUND && t->upper >= r->opt.tolerance;
}

static const char *decision(const struct compare_result *r, const struct verdict_row *w)
{
    const struct compare_test *t = w->t;
    if (t->status == CMP_REGRESSION && !w->gated)
        return "regression (not gated)";
    if (t->status != CMP_OK || !t->primary || r->opt.pass_rule != COMPARE_PASS_BOUND)
        return compare_status_name(t->status);
    return t->upper < r->opt.tolerance ? "within tolerance" : "undecided";
}

/* worst first: largest drop, then smallest adjusted p, then the result's order */
static int cmp_worst(const void *a, const void *b)
{
    const struct verdict_row *x = a, *y = b;
    if (x->t->drop != y->t->drop)
        return x->t->drop > y->t->drop ? -1 : 1;
    if (x->t->p_drop_adj != y->t->p_drop_adj)
        return x->t->p_drop_adj < y->t->p_drop_adj ? -1 : 1;
    return x->t < y->t ? -1 : x->t > y->t;
}

static void add_row(struct verdict *v, const struct compare_test *t)
{
    struct verdict_row *w = &v->rows[v->n++];
    memset(w, 0, sizeof(*w));
    w->t = t;
    w->ep = compare_endpoint_of(t->scope);
    w->gated = gated(v->r, t);
    w->fails = w->gated && t->status == CMP_REGRESSION;
    w->undecided = undecided(v->r, t);
    /* the margin a FAIL claims (compare.h): shown for the primary endpoints it applies to */
    w->margin = compare_endpoint_of(t->scope) ? compare_fail_margin(&v->r->opt) : NAN;
    w->shape_change = t->shape_change;
    w->decision = decision(v->r, w);
    if (w->gated) {
        v->n_gated++;
        v->gated_regressions += t->status == CMP_REGRESSION;
        v->gated_improvements += t->status == CMP_IMPROVEMENT;
        v->gated_no_data += t->status == CMP_NO_DATA;
        v->gated_undecided += w->undecided;
    } else if (t->scope != COMPARE_OVERALL) {
        v->n_secondary++;
        v->secondary_regressions += t->status == CMP_REGRESSION;
        v->secondary_improvements += t->status == CMP_IMPROVEMENT;
    }
}

void verdict_init(struct verdict *v, const struct compare_result *r, const struct compare_meta *m)
{
    size_t i, first;
    memset(v, 0, sizeof(*v));
    v->r = r;
    v->m = m;
    v->rows = xcalloc(r->n_tests + 1, sizeof(*v->rows));
    /* the primary endpoints in the result's order (per length: the table's order) */
    for (i = 0; i < r->n_tests; i++)
        if (r->tests[i].primary)
            add_row(v, &r->tests[i]);
    v->n_primary = v->n;
    first = v->n;
    for (i = 0; i < r->n_tests; i++)
        if (!r->tests[i].primary && r->tests[i].scope != COMPARE_OVERALL)
            add_row(v, &r->tests[i]);
    qsort(v->rows + first, v->n - first, sizeof(*v->rows), cmp_worst);
    for (i = 0; i < r->n_tests; i++)
        if (r->tests[i].scope == COMPARE_OVERALL)
            add_row(v, &r->tests[i]);
    compare_headline(&v->headline, r);
}

void verdict_release(struct verdict *v)
{
    free(v->rows);
    strbuf_release(&v->headline);
    memset(v, 0, sizeof(*v));
}

/* ---- formats ---- */

void verdict_p(struct strbuf *out, double p)
{
    if (p < 0.0001)
        strbuf_addf(out, "%.1e", p);
    else
        strbuf_addf(out, "%.4f", p);
}

const char *verdict_measure(const struct verdict_row *w)
{
    return w->ep ? w->ep->measure : "accuracy";
}

void verdict_value(struct strbuf *out, const struct verdict_row *w, int candidate)
{
    double x = candidate ? w->t->acc_cand : w->t->acc_base;
    if (!w->t->n_pairs)
        strbuf_addstr(out, "n/a");
    else if (w->ep && w->ep->worse_up) /* a dip: a difference of accuracies */
        strbuf_addf(out, "dip %.1f pp", fabs(x) < 0.0005 ? 0.0 : x * 100.0);
    else
        report_pct(out, x);
}

double verdict_change_of(const struct verdict_row *w)
{
    return w->ep && w->ep->worse_up ? w->t->drop : -w->t->drop;
}

void verdict_change(struct strbuf *out, const struct verdict_row *w)
{
    if (!w->t->n_pairs)
        strbuf_addstr(out, "n/a");
    else
        report_pp(out, verdict_change_of(w));
}

void verdict_row_p(struct strbuf *out, const struct verdict_row *w)
{
    if (w->t->status == CMP_NO_DATA && w->t->scope != COMPARE_OVERALL)
        strbuf_addstr(out, "\xE2\x80\x93");
    else
        verdict_p(out, w->t->drop >= 0 ? w->t->p_drop_adj : w->t->p_gain_adj);
}

void verdict_sentence(struct strbuf *out, const struct verdict_row *w)
{
    compare_test_name(out, w->t);
    /* a dip's values say "dip" themselves */
    strbuf_addstr(out, w->ep && w->ep->worse_up ? ": " : ": accuracy ");
    verdict_value(out, w, 0);
    strbuf_addstr(out, " -> ");
    verdict_value(out, w, 1);
    strbuf_addstr(out, " (");
    verdict_change(out, w);
    strbuf_addstr(out, ")");
    if (!w->t->n_pairs)
        return;
    strbuf_addstr(out, "; worse by ");
    report_pp(out, w->t->drop);
    if (isfinite(w->margin)) {
        strbuf_addstr(out, ", by more than ");
        report_pp(out, w->margin);
    }
    strbuf_addstr(out, ", upper bound ");
    report_pp(out, w->t->upper);
    strbuf_addstr(out, "; Holm p ");
    verdict_p(out, w->t->drop >= 0 ? w->t->p_drop_adj : w->t->p_gain_adj);
    strbuf_addf(out, "; %s", w->decision);
    if (w->shape_change)
        strbuf_addstr(out, " (a change of shape, not a regression)");
    if (!w->gated && w->t->scope != COMPARE_OVERALL)
        strbuf_addstr(out, "; secondary: fails the gate only with --gate cells");
}

void verdict_counts(struct strbuf *out, const struct verdict *v)
{
    const struct compare_result *r = v->r;
    const char *what = r->opt.gate == COMPARE_GATE_CELLS ? "tests the gate tested (--gate cells)"
                                                         : "primary endpoints";
    strbuf_addf(out, "%s: %ld of %lu %s regressed, %ld improved, %ld without enough data",
                compare_verdict_name(r->verdict), v->gated_regressions, (unsigned long)v->n_gated,
                what, v->gated_improvements, v->gated_no_data);
    if (r->opt.pass_rule == COMPARE_PASS_BOUND)
        strbuf_addf(out, ", %ld undecided (upper bound not below %.1f pp)", v->gated_undecided,
                    r->opt.tolerance * 100.0);
    if (v->n_secondary)
        strbuf_addf(out,
                    "; not gated: %ld of %lu secondary test%s (cells, axis values) regressed, "
                    "%ld improved (--gate cells gates them)",
                    v->secondary_regressions, (unsigned long)v->n_secondary,
                    v->n_secondary == 1 ? "" : "s", v->secondary_improvements);
    strbuf_addf(out, " (alpha %g, tolerance %.1f pp)", r->opt.alpha, r->opt.tolerance * 100.0);
}

/* The distinct lengths and depths of the result's cells, as "8k, 32k" and "0%, 50%, 100%". */
static void tested_grid(struct strbuf *lengths, struct strbuf *depths,
                        const struct compare_result *r)
{
    long *ls = xcalloc(r->n_tests + 1, sizeof(*ls));
    int *ds = xcalloc(r->n_tests + 1, sizeof(*ds));
    size_t i, k, nl = 0, nd = 0;
    for (i = 0; i < r->n_tests; i++) {
        const struct compare_test *t = &r->tests[i];
        if (t->scope != COMPARE_CELL || t->axes_only)
            continue;
        for (k = 0; k < nl && ls[k] != t->length; k++)
            ;
        if (k == nl)
            ls[nl++] = t->length;
        for (k = 0; k < nd && ds[k] != t->depth_bp; k++)
            ;
        if (k == nd)
            ds[nd++] = t->depth_bp;
    }
    for (i = 0; i < nl; i++) {
        if (i)
            strbuf_addstr(lengths, ", ");
        plan_format_length(lengths, ls[i]);
    }
    for (i = 0; i < nd; i++) {
        if (i)
            strbuf_addstr(depths, ", ");
        plan_format_depth(depths, ds[i]);
    }
    free(ls);
    free(ds);
}

static const char *run_model(const struct run_info *ri)
{
    if (!ri)
        return NULL;
    return ri->model_served ? ri->model_served : ri->model_requested;
}

/* "name (model)", "?" without the run */
static void run_named(struct strbuf *out, const struct run_info *ri)
{
    strbuf_addstr(out, ri && ri->name ? ri->name : "?");
    if (run_model(ri))
        strbuf_addf(out, " (%s)", run_model(ri));
}

/* The run's value of a field, or "baseline X, candidate Y" when they differ. */
static void both(struct strbuf *out, const char *b, const char *c, size_t cut)
{
    if (!b && !c) {
        strbuf_addstr(out, "not recorded");
    } else if (b && c && !strcmp(b, c)) {
        strbuf_add(out, b, cut && strlen(b) > cut ? cut : strlen(b));
    } else {
        strbuf_addstr(out, "baseline ");
        strbuf_add(out, b ? b : "-", b && cut && strlen(b) > cut ? cut : strlen(b ? b : "-"));
        strbuf_addstr(out, ", candidate ");
        strbuf_add(out, c ? c : "-", c && cut && strlen(c) > cut ? cut : strlen(c ? c : "-"));
    }
}

void verdict_tested(struct strvec *out, const struct verdict *v)
{
    const struct compare_result *r = v->r;
    const struct run_info *b = v->m ? v->m->baseline : NULL, *c = v->m ? v->m->candidate : NULL;
    struct strbuf sb = STRBUF_INIT, ls = STRBUF_INIT, ds = STRBUF_INIT;
    size_t k;

    strbuf_addstr(&sb, "models: baseline ");
    run_named(&sb, b);
    strbuf_addstr(&sb, ", candidate ");
    run_named(&sb, c);
    strvec_push(out, sb.buf);
    strbuf_reset(&sb);
    strbuf_addf(&sb, "golden set: %lu questions paired (sha256 ", (unsigned long)r->n_questions);
    both(&sb, b ? b->golden_sha256 : NULL, c ? c->golden_sha256 : NULL, 12);
    strbuf_addstr(&sb, r->opt.exclude_known ? "; closed-book known questions left out)" : ")");
    strvec_push(out, sb.buf);
    strbuf_reset(&sb);
    tested_grid(&ls, &ds, r);
    strbuf_addf(&sb, "lengths: %s; depths: %s", ls.len ? ls.buf : "none (axes only)",
                ds.len ? ds.buf : "none (axes only)");
    strvec_push(out, sb.buf);
    strbuf_reset(&sb);
    strbuf_addstr(&sb, "tokenizer: ");
    both(&sb, b ? b->tokenizer_name : NULL, c ? c->tokenizer_name : NULL, 0);
    strvec_push(out, sb.buf);
    strbuf_reset(&sb);
    strbuf_addstr(&sb, "endpoints (the gate): per length ");
    for (k = 0; k < COMPARE_N_ENDPOINTS; k++)
        strbuf_addf(&sb, "%s%s (%s)", k ? ", " : "", compare_endpoints[k].phrase,
                    compare_endpoints[k].measure);
    strbuf_addf(&sb, "; %lu tested%s", (unsigned long)v->n_primary,
                r->opt.gate == COMPARE_GATE_CELLS ? ", and every cell and axis value (--gate cells)"
                                                  : "; cells and axis values are secondary");
    strvec_push(out, sb.buf);
    strbuf_release(&sb);
    strbuf_release(&ls);
    strbuf_release(&ds);
}

/* ---- the document: compare.md, the step summary, compare.html's body ---- */

/*
 * A row or a section of the document goes through vdoc_put(): with a limit
 * (the step summary) a piece that would pass it is counted in omitted.
 */
struct vdoc {
    struct markup *d;
    size_t limit; /* bytes of d->out, 0: none */
    size_t omitted;
};

/* A scratch writer with d's table state; its text goes to *piece. */
static struct markup piece_of(const struct vdoc *doc, struct strbuf *piece)
{
    struct markup p = *doc->d;
    strbuf_reset(piece);
    p.out = piece;
    return p;
}

static void vdoc_put(struct vdoc *doc, const struct strbuf *piece)
{
    if (doc->limit && doc->d->out->len + piece->len > doc->limit) {
        doc->omitted++;
        return;
    }
    strbuf_add(doc->d->out, piece->buf, piece->len);
}

static const char *row_class(const struct verdict_row *w)
{
    return w->t->status == CMP_REGRESSION    ? "regression"
           : w->t->status == CMP_IMPROVEMENT ? "improvement"
                                             : NULL;
}

static int any_margin(const struct verdict *v)
{
    size_t i;
    for (i = 0; i < v->n; i++)
        if (isfinite(v->rows[i].margin))
            return 1;
    return 0;
}

/* A cell of a bound-like figure in pp, "n/a" when not measured. */
static void pp_cell(struct markup *d, double v, int measured)
{
    struct strbuf sb = STRBUF_INIT;
    if (measured && isfinite(v))
        report_pp(&sb, v);
    else
        strbuf_addstr(&sb, "n/a");
    report_cell(d, sb.buf);
    strbuf_release(&sb);
}

/* A row's baseline, candidate and change cells (sb is scratch). */
static void value_cells(struct markup *d, const struct verdict_row *w, struct strbuf *sb)
{
    strbuf_reset(sb);
    verdict_value(sb, w, 0);
    report_cell(d, sb->buf);
    strbuf_reset(sb);
    verdict_value(sb, w, 1);
    report_cell(d, sb->buf);
    strbuf_reset(sb);
    verdict_change(sb, w);
    report_cell(d, sb->buf);
}

/* One gated (primary) row: the endpoint, both values, change, worse by, bound, decision. */
static void primary_row(struct markup *d, const struct verdict_row *w, int margin)
{
    struct strbuf sb = STRBUF_INIT;
    int tested = w->t->n_pairs > 0;
    report_row_begin(d, row_class(w));
    compare_test_name(&sb, w->t);
    report_cell(d, sb.buf);
    report_cellf(d, "%lu", (unsigned long)w->t->n_questions);
    value_cells(d, w, &sb);
    pp_cell(d, w->t->drop, tested);
    if (margin)
        pp_cell(d, w->margin, tested);
    pp_cell(d, w->t->upper, tested);
    if (tested && w->t->mde >= 0)
        report_cellf(d, "%.1f pp", w->t->mde * 100.0);
    else
        report_cell(d, "n/a");
    strbuf_reset(&sb);
    verdict_row_p(&sb, w);
    report_cell(d, sb.buf);
    strbuf_reset(&sb);
    strbuf_addstr(&sb, w->decision);
    if (w->shape_change)
        strbuf_addstr(&sb, " (change of shape, not a regression)");
    report_cell(d, sb.buf);
    report_row_end(d);
    strbuf_release(&sb);
}

static void primary_table(struct vdoc *doc, const struct verdict *v)
{
    static const char *const head[] = {
        "endpoint", "questions", "baseline",    "candidate",
        "change",   "worse by",  "upper bound", "detectable (80% power)",
        "p (Holm)", "decision",
    };
    static const char *const head_margin[] = {
        "endpoint",  "questions",   "baseline",
        "candidate", "change",      "worse by",
        "margin",    "upper bound", "detectable (80% power)",
        "p (Holm)",  "decision",
    };
    const struct compare_result *r = v->r;
    int margin = any_margin(v);
    struct strbuf sb = STRBUF_INIT;
    struct markup p;
    size_t i;

    if (!v->n_primary)
        return;
    report_heading(doc->d, 3, "Primary endpoints (the gate)", "primary");
    strbuf_addf(
        &sb,
        "Per length: all depths, the middle band (25-75%%) and the dip (edge - middle). "
        "\"change\" is candidate minus baseline of what the endpoint measures (a larger "
        "dip is worse); \"worse by\" is the worsening. A regression: Holm-adjusted p below %g "
        "over these %lu tests and a worsening of at least %.1f pp. PASS needs every %.0f%% "
        "upper bound below %.1f pp.",
        r->opt.alpha, (unsigned long)r->n_primary_family, r->opt.tolerance * 100.0,
        (1.0 - compare_bound_level(&r->opt)) * 100.0, r->opt.tolerance * 100.0);
    report_para(doc->d, sb.buf);
    report_table_begin(doc->d, margin ? "lrrrrrrrrrl" : "lrrrrrrrrl", margin ? head_margin : head);
    for (i = 0; i < v->n_primary; i++) {
        p = piece_of(doc, &sb);
        primary_row(&p, &v->rows[i], margin);
        vdoc_put(doc, &sb);
    }
    report_table_end(doc->d);
    strbuf_release(&sb);
}

/* One secondary (or overall) row: the test, pairs, values, change, lost / gained, p, decision. */
static void secondary_row(struct markup *d, const struct verdict_row *w)
{
    struct strbuf sb = STRBUF_INIT;
    report_row_begin(d, row_class(w));
    compare_test_name(&sb, w->t);
    report_cell(d, sb.buf);
    report_cellf(d, "%ld", w->t->n_pairs);
    value_cells(d, w, &sb);
    report_cellf(d, "%ld / %ld", w->t->base_only, w->t->cand_only);
    strbuf_reset(&sb);
    verdict_row_p(&sb, w);
    if (w->t->scope == COMPARE_OVERALL)
        strbuf_addstr(&sb, " (unadjusted)");
    report_cell(d, sb.buf);
    report_cell(d, w->decision);
    report_row_end(d);
    strbuf_release(&sb);
}

enum pick { PICK_CHANGED, PICK_AXIS, PICK_CELL, PICK_OVERALL };

static int picked(const struct verdict_row *w, enum pick pick)
{
    switch (pick) {
    case PICK_CHANGED:
        return w->t->scope != COMPARE_OVERALL &&
               (w->t->status == CMP_REGRESSION || w->t->status == CMP_IMPROVEMENT);
    case PICK_AXIS:
        return w->t->scope == COMPARE_AXIS;
    case PICK_CELL:
        return w->t->scope == COMPARE_CELL;
    default:
        return w->t->scope == COMPARE_OVERALL;
    }
}

/* The secondary rows (after the primary ones) that pick selects, at most max (0: all). */
static void secondary_table(struct vdoc *doc, const struct verdict *v, enum pick pick,
                            const char *heading, size_t max)
{
    static const char *const head[] = {"test",   "pairs",         "baseline", "candidate",
                                       "change", "lost / gained", "p (Holm)", "decision"};
    struct strbuf sb = STRBUF_INIT;
    struct markup p;
    size_t i, n = 0, shown = 0;
    for (i = v->n_primary; i < v->n; i++)
        n += picked(&v->rows[i], pick);
    if (!n)
        return;
    strbuf_addstr(&sb, heading);
    if (max && n > max)
        strbuf_addf(&sb, " (top %lu of %lu)", (unsigned long)max, (unsigned long)n);
    report_heading(doc->d, 3, sb.buf, NULL);
    report_table_begin(doc->d, "lrrrrrrl", head);
    for (i = v->n_primary; i < v->n && (!max || shown < max); i++) {
        if (!picked(&v->rows[i], pick))
            continue;
        shown++;
        p = piece_of(doc, &sb);
        secondary_row(&p, &v->rows[i]);
        vdoc_put(doc, &sb);
    }
    report_table_end(doc->d);
    strbuf_release(&sb);
}

static void doc_head(struct vdoc *doc, const struct verdict *v)
{
    const struct compare_result *r = v->r;
    const char *mark = r->verdict == VERDICT_PASS   ? " \xe2\x9c\x85"
                       : r->verdict == VERDICT_FAIL ? " \xe2\x9d\x8c"
                                                    : " \xe2\x9a\xa0\xef\xb8\x8f";
    const char *cls = r->verdict == VERDICT_PASS   ? "verdict pass"
                      : r->verdict == VERDICT_FAIL ? "verdict fail"
                                                   : "verdict inconclusive";
    struct strbuf sb = STRBUF_INIT;
    struct strvec tested = STRVEC_INIT;
    size_t i;

    if (!doc->d->html) {
        strbuf_addf(&sb, "dipmap compare: %s%s", compare_verdict_name(r->verdict), mark);
        report_heading(doc->d, 2, sb.buf, NULL);
        strbuf_reset(&sb);
    }
    report_para_class(doc->d, cls, v->headline.buf);
    verdict_counts(&sb, v);
    strbuf_addch(&sb, '.');
    if (v->n && v->rows[v->n - 1].t->scope == COMPARE_OVERALL) {
        const struct compare_test *o = v->rows[v->n - 1].t;
        strbuf_addf(&sb, " %ld valid pairs of %ld trial keys (coverage %.1f%%).", o->n_pairs,
                    o->n_keys, o->coverage * 100.0);
    }
    report_para(doc->d, sb.buf);
    report_heading(doc->d, 3, "What was tested", "tested");
    verdict_tested(&tested, v);
    report_bullets_begin(doc->d);
    for (i = 0; i < tested.nr; i++)
        report_item(doc->d, tested.v[i]);
    report_bullets_end(doc->d);
    strvec_clear(&tested);
    strbuf_release(&sb);
}

/* What the reader must know before the tables: notes, question set, warnings, reasons. */
static void doc_notes(struct vdoc *doc, const struct verdict *v)
{
    const struct compare_result *r = v->r;
    struct strvec w = STRVEC_INIT;
    struct strbuf sb = STRBUF_INIT;
    size_t i;

    if (v->m && v->m->inputs_note)
        strvec_push(&w, v->m->inputs_note);
    if (r->opt.pass_rule == COMPARE_PASS_NO_REGRESSION && r->verdict == VERDICT_PASS) {
        strbuf_addf(&sb,
                    "--pass-rule no-regression: PASS here only means that no primary endpoint "
                    "regressed significantly. It does not show that there is no regression: a "
                    "worsening of up to %.1f pp is what these questions detect at 80%% power, "
                    "and the upper bounds say how large a drop the data still allow",
                    r->max_mde * 100.0);
        strvec_push(&w, sb.buf);
    }
    compare_warnings(r, &w);
    for (i = 0; i < w.nr; i++) {
        strbuf_reset(&sb);
        strbuf_addf(&sb, "Warning: %s.", w.v[i]);
        report_para_class(doc->d, "note", sb.buf);
    }
    if (r->n_known) {
        strbuf_reset(&sb);
        if (r->opt.exclude_known)
            strbuf_addf(&sb,
                        "Question set: %lu questions; the %lu answered correctly closed-book in "
                        "either run are left out (--exclude-known).",
                        (unsigned long)r->n_questions, (unsigned long)r->n_known);
        else
            strbuf_addf(&sb,
                        "Question set: all %lu questions (%lu answered correctly closed-book; "
                        "--exclude-known leaves them out).",
                        (unsigned long)r->n_questions, (unsigned long)r->n_known);
        report_para(doc->d, sb.buf);
    }
    if (r->n_reasons) {
        report_heading(doc->d, 3, "Inconclusive because", "reasons");
        report_bullets_begin(doc->d);
        for (i = 0; i < r->n_reasons; i++)
            report_item(doc->d, r->reasons[i]);
        report_bullets_end(doc->d);
    }
    strvec_clear(&w);
    strbuf_release(&sb);
}

#define MD_TOP_CELLS 20

/* The secondary family and the rest: changed tests, the grid, axis values, overall, cells. */
static void doc_secondary(struct vdoc *doc, const struct verdict *v, const char *svg)
{
    const struct compare_result *r = v->r;
    struct strbuf sb = STRBUF_INIT;
    struct markup p;

    if (doc->d->html) {
        report_heading(doc->d, 2, "Baseline vs candidate", "plot");
        if (svg)
            report_svg_figure(doc->d, svg, NULL,
                              "Baseline dashed with open points, candidate solid with filled "
                              "points; shaded bands: the candidate's Wilson 95% interval per "
                              "cell; circled: cells with a significant regression.");
        else
            report_para(doc->d, "Plot not drawn (gnuplot not available).");
    }
    strbuf_addf(&sb,
                "Secondary tests: every cell (length, depth%s) and pooled axis value, each an "
                "exact one-sided sign-flip test over questions, Holm-adjusted as a second family "
                "of %lu. They %s.",
                r->has_axes ? ", axes" : "", (unsigned long)r->n_family,
                r->opt.gate == COMPARE_GATE_CELLS ? "fail the gate too (--gate cells)"
                                                  : "are shown but do not fail the gate (--gate "
                                                    "cells makes them)");
    report_heading(doc->d, 2, "Secondary tests", "secondary");
    report_para(doc->d, sb.buf);
    if (r->has_axes)
        report_para(doc->d, r->axes_only
                                ? "A cell is one combination of the named axes (length and depth "
                                  "are the same for every trial; the cells are the endpoints); a "
                                  "pooled line is one axis value over the others."
                                : "A cell is (length, depth, axes): each combination of the named "
                                  "axes is tested on its own; a pooled line is one axis value "
                                  "over every length, depth and other axis value.");
    secondary_table(doc, v, PICK_CHANGED, "Secondary regressions and improvements, worst first", 0);
    p = piece_of(doc, &sb);
    if (doc->d->html)
        report_compare_heatmap_html(&p, r);
    else
        report_compare_heatmap_md(&sb, r);
    vdoc_put(doc, &sb);
    secondary_table(doc, v, PICK_AXIS, "Per axis value (pooled)", 0);
    secondary_table(doc, v, PICK_OVERALL, "Overall (reported, not gated)", 0);
    secondary_table(doc, v, PICK_CELL, "Cells, largest drop first",
                    doc->d->html ? 0 : MD_TOP_CELLS);
    p = piece_of(doc, &sb);
    if (doc->d->html)
        report_compare_flips_html(&p, r, v->m);
    else
        report_compare_flips_md(&sb, r, v->m);
    vdoc_put(doc, &sb);
    if (r->baseline_only_keys || r->candidate_only_keys) {
        strbuf_reset(&sb);
        strbuf_addf(&sb, "Unpaired trials: %ld only in the baseline, %ld only in the candidate.",
                    r->baseline_only_keys, r->candidate_only_keys);
        report_para(doc->d, sb.buf);
    }
    strbuf_release(&sb);
}

void report_verdict_doc(struct markup *d, const struct verdict *v, const char *svg,
                        size_t max_bytes)
{
    /* room kept for the section headings (written whole) and the closing note */
    struct vdoc doc = {
        d, max_bytes ? d->out->len + (max_bytes > 4096 ? max_bytes - 2048 : max_bytes / 2) : 0, 0};
    doc_head(&doc, v);
    doc_notes(&doc, v);
    primary_table(&doc, v);
    doc_secondary(&doc, v, svg);
    if (doc.omitted) {
        struct strbuf sb = STRBUF_INIT;
        strbuf_addf(&sb,
                    "%lu table rows omitted to keep this summary under %lu bytes; see the JSON "
                    "or JUnit output for every test.",
                    (unsigned long)doc.omitted, (unsigned long)max_bytes);
        report_para(d, sb.buf);
        strbuf_release(&sb);
    }
}

void report_compare_markdown(struct strbuf *out, const struct compare_result *r,
                             const struct compare_meta *m, size_t max_bytes)
{
    struct markup d = report_markup_md(out);
    struct verdict v;
    verdict_init(&v, r, m);
    report_verdict_doc(&d, &v, NULL, max_bytes);
    verdict_release(&v);
}

/*
 * Compare reports: compare.html and the overlay plot of `compare --out`, and
 * the verdict writers of `dipmap compare` (Markdown step summary, JUnit XML,
 * JSON, GitHub annotations), all from one struct compare_result. The
 * statistics behind them are compare.c.
 */
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "run/axes.h"
#include "stats/compare.h"
#include "base/escape.h"
#include "base/json.h"
#include "report/plot.h"
#include "stats/stats.h"
#include "store/store.h"
#include "run/plan.h"
#include "report/report-int.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/unicode.h"
#include "base/version.h"
#include "base/xalloc.h"

#include "base/banned.h"

/* ---- compare --out: overlay plot and compare.html ---- */

static const char *run_label(const struct run_info *r)
{
    return r && r->name ? r->name : "?";
}

/* axes: the result has named axes (a column "axes" after depth) */
static void compare_test_row(struct markup *d, const struct compare_test *t, int axes)
{
    struct strbuf sb = STRBUF_INIT;
    int any = t->scope == COMPARE_OVERALL || t->scope == COMPARE_AXIS;

    report_row_begin(d, t->status == CMP_REGRESSION    ? "regression"
                        : t->status == CMP_IMPROVEMENT ? "improvement"
                                                       : NULL);
    if (any || t->axes_only)
        report_cell(d, "all");
    else
        report_cell_length(d, t->length);
    if (t->scope == COMPARE_CELL && !t->axes_only)
        report_cell_depth(d, t->depth_bp);
    else
        report_cell(d, "all");
    if (axes) {
        axes_format(&sb, t->axes, "all");
        report_cell(d, sb.buf);
        strbuf_reset(&sb);
    }
    report_cellf(d, "%ld", t->n_pairs);
    report_cell_pct(d, t->n_pairs ? t->acc_base : NAN);
    report_cell_pct(d, t->n_pairs ? t->acc_cand : NAN);
    report_pp(&sb, t->n_pairs ? -t->drop : NAN);
    report_cell(d, sb.buf);
    report_cellf(d, "%ld", t->base_only);
    report_cellf(d, "%ld", t->cand_only);
    if (t->status == CMP_NO_DATA) {
        report_cell(d, "\xE2\x80\x93");
    } else {
        strbuf_reset(&sb);
        strbuf_addf(&sb, "%.3g", t->p_drop_adj);
        report_cell(d, sb.buf);
    }
    report_cell(d, compare_status_name(t->status));
    report_row_end(d);
    strbuf_release(&sb);
}

static const char *primary_status(const struct compare_result *r, const struct compare_test *t);
static void change_or_na(struct strbuf *out, const struct compare_test *t);

/* The primary endpoints first (the gate): estimate, upper bound, detectable drop. */
static void compare_primary_table(struct markup *d, const struct compare_result *r)
{
    static const char *const head[] = {
        "endpoint", "questions", "baseline",    "candidate",
        "change",   "worse by",  "upper bound", "detectable (80% power)",
        "p (Holm)", "status",
    };
    struct strbuf sb = STRBUF_INIT;
    size_t i;
    if (!r->n_primary)
        return;
    report_heading(d, 2, "Primary endpoints (the gate)", "primary");
    strbuf_addf(&sb,
                "Per length: all depths, the middle band (25-75%%) and the dip (edge - middle). A "
                "regression: Holm-adjusted p < %g over these %lu tests and a worsening of at least "
                "%.1f pp. PASS needs every one-sided upper bound below %.1f pp.",
                r->opt.alpha, (unsigned long)r->n_primary_family, r->opt.tolerance * 100.0,
                r->opt.tolerance * 100.0);
    report_para(d, sb.buf);
    report_table_begin(d, "lrrrrrrrrl", head);
    for (i = 0; i < r->n_tests; i++) {
        const struct compare_test *t = &r->tests[i];
        int tested = t->n_pairs > 0;
        if (!t->primary)
            continue;
        report_row_begin(d, t->status == CMP_REGRESSION    ? "regression"
                            : t->status == CMP_IMPROVEMENT ? "improvement"
                                                           : NULL);
        strbuf_reset(&sb);
        compare_test_name(&sb, t);
        report_cell(d, sb.buf);
        report_cellf(d, "%lu", (unsigned long)t->n_questions);
        if (!tested) {
            report_cell(d, "n/a");
            report_cell(d, "n/a");
        } else if (t->scope == COMPARE_DIP) {
            report_cellf(d, "dip %.1f pp", t->acc_base * 100.0);
            report_cellf(d, "dip %.1f pp", t->acc_cand * 100.0);
        } else {
            report_cell_pct(d, t->acc_base);
            report_cell_pct(d, t->acc_cand);
        }
        strbuf_reset(&sb);
        change_or_na(&sb, t);
        report_cell(d, sb.buf);
        strbuf_reset(&sb);
        if (tested)
            report_pp(&sb, t->drop);
        report_cell(d, tested ? sb.buf : "n/a");
        strbuf_reset(&sb);
        if (tested)
            report_pp(&sb, t->upper);
        report_cell(d, tested ? sb.buf : "n/a");
        if (tested && t->mde >= 0)
            report_cellf(d, "%.1f pp", t->mde * 100.0);
        else
            report_cell(d, "n/a");
        if (t->status == CMP_NO_DATA)
            report_cell(d, "\xE2\x80\x93");
        else
            report_cellf(d, "%.3g", t->drop >= 0 ? t->p_drop_adj : t->p_gain_adj);
        report_cell(d, primary_status(r, t));
        report_row_end(d);
    }
    report_table_end(d);
    strbuf_release(&sb);
}

static void compare_runs_table(struct markup *d, const struct compare_meta *m)
{
    static const char *const head[] = {"", "baseline", "candidate"};
    const struct run_info *b = m ? m->baseline : NULL, *c = m ? m->candidate : NULL;
    struct strbuf x = STRBUF_INIT, y = STRBUF_INIT;

#define RUNROW(label, field)                                                                       \
    do {                                                                                           \
        report_row_begin(d, NULL);                                                                 \
        report_cell(d, label);                                                                     \
        report_cell(d, report_or_dash(b ? b->field : NULL));                                       \
        report_cell(d, report_or_dash(c ? c->field : NULL));                                       \
        report_row_end(d);                                                                         \
    } while (0)
    report_heading(d, 2, "Runs", "runs");
    report_table_begin(d, "lll", head);
    RUNROW("run", name);
    RUNROW("model requested", model_requested);
    RUNROW("model served", model_served);
    RUNROW("endpoints", endpoints);
    RUNROW("golden set sha256", golden_sha256);
    RUNROW("haystack sha256", haystack_sha256);
    RUNROW("template sha256", template_sha256);
    RUNROW("tokenizer", tokenizer_name);
    RUNROW("tokenizer sha256", tokenizer_sha256);
#undef RUNROW
    report_time(&x, b ? b->created_at : 0);
    report_time(&y, c ? c->created_at : 0);
    report_row_begin(d, NULL);
    report_cell(d, "created");
    report_cell(d, x.buf);
    report_cell(d, y.buf);
    report_row_end(d);
    strbuf_reset(&x);
    strbuf_reset(&y);
    if (b)
        strbuf_addf(&x, "%s, %ld of %ld trials", run_status_name(b->status), b->trials_done,
                    run_info_planned(b));
    if (c)
        strbuf_addf(&y, "%s, %ld of %ld trials", run_status_name(c->status), c->trials_done,
                    run_info_planned(c));
    report_row_begin(d, NULL);
    report_cell(d, "status");
    report_cell(d, report_or_dash(x.buf));
    report_cell(d, report_or_dash(y.buf));
    report_row_end(d);
    report_table_end(d);
    strbuf_release(&x);
    strbuf_release(&y);
}

void report_compare_html(struct strbuf *out, const struct compare_result *r,
                         const struct compare_meta *m, const char *svg)
{
    static const char *const head[] = {
        "length", "depth",     "pairs",     "baseline",          "candidate",
        "change", "drops (b)", "gains (c)", "adjusted p (drop)", "status",
    };
    static const char *const head_axes[] = {
        "length",    "depth",  "axes",      "pairs",     "baseline",
        "candidate", "change", "drops (b)", "gains (c)", "adjusted p (drop)",
        "status",
    };
    const char *const *h = r->has_axes ? head_axes : head;
    const char *align = r->has_axes ? "lllrrrrrrrl" : "llrrrrrrrl";
    struct markup d = report_markup_html(out);
    struct strbuf sb = STRBUF_INIT;
    const char *cls = r->verdict == VERDICT_PASS   ? "verdict pass"
                      : r->verdict == VERDICT_FAIL ? "verdict fail"
                                                   : "verdict inconclusive";
    size_t i;

    strbuf_addf(&sb, "dipmap compare: %s vs %s", run_label(m ? m->baseline : NULL),
                run_label(m ? m->candidate : NULL));
    report_html_page_head(&d, sb.buf, 0);

    strbuf_reset(&sb);
    strbuf_addf(&sb,
                "%s: %ld regression%s, %ld improvement%s, %ld test%s without enough data "
                "(alpha %g, tolerance %.1f pp)",
                compare_verdict_name(r->verdict), r->n_regressions,
                r->n_regressions == 1 ? "" : "s", r->n_improvements,
                r->n_improvements == 1 ? "" : "s", r->n_no_data, r->n_no_data == 1 ? "" : "s",
                r->opt.alpha, r->opt.tolerance * 100.0);
    report_para_class(&d, cls, sb.buf);
    strbuf_reset(&sb);
    compare_headline(&sb, r);
    report_para(&d, sb.buf);
    if (r->n_reasons) {
        report_bullets_begin(&d);
        for (i = 0; i < r->n_reasons; i++)
            report_item(&d, r->reasons[i]);
        report_bullets_end(&d);
    }
    compare_primary_table(&d, r);
    if (m && m->inputs_note)
        report_para(&d, m->inputs_note);
    {
        struct strvec w = STRVEC_INIT;
        size_t k;
        compare_warnings(r, &w);
        for (k = 0; k < w.nr; k++) {
            strbuf_reset(&sb);
            strbuf_addf(&sb, "Warning: %s.", w.v[k]);
            report_para(&d, sb.buf);
        }
        strvec_clear(&w);
    }

    report_heading(&d, 2, "Baseline vs candidate", "plot");
    if (svg) {
        /* a constant caption: its quote (candidate's) stays a quote */
        report_svg_figure(&d, svg, NULL,
                          "Baseline dashed with open points, candidate solid with filled points; "
                          "shaded bands: the candidate's Wilson 95% interval per cell; circled: "
                          "cells with a significant regression.");
    } else {
        report_para(&d, "Plot not drawn (gnuplot not available).");
    }
    report_compare_heatmap_html(&d, r);

    report_heading(&d, 2, r->has_axes ? "Per length and axis value" : "Per length", "lengths");
    report_table_begin(&d, align, h);
    for (i = 0; i < r->n_tests; i++)
        if (r->tests[i].scope != COMPARE_CELL)
            compare_test_row(&d, &r->tests[i], r->has_axes);
    report_table_end(&d);
    report_heading(&d, 2, "Per cell", "cells");
    report_para(
        &d, "Exact one-sided sign-flip test over questions (each question's difference, baseline "
            "correct minus candidate correct, is one unit; with one repeat per question this is "
            "the exact McNemar test), Holm-adjusted over all cells and lengths; a regression "
            "needs adjusted p < alpha and a drop of at least the tolerance.");
    if (r->has_axes)
        report_para(&d, r->axes_only
                            ? "A cell is one combination of the named axes (length and depth are "
                              "the same for every trial); a pooled line is one axis value over "
                              "the others."
                            : "A cell is (length, depth, axes): each combination of the named "
                              "axes is tested on its own; a pooled line is one axis value over "
                              "every length, depth and other axis value.");
    report_table_begin(&d, align, h);
    for (i = 0; i < r->n_tests; i++)
        if (r->tests[i].scope == COMPARE_CELL)
            compare_test_row(&d, &r->tests[i], r->has_axes);
    report_table_end(&d);
    report_compare_flips_html(&d, r, m);
    if (r->baseline_only_keys || r->candidate_only_keys) {
        strbuf_reset(&sb);
        strbuf_addf(&sb, "Unpaired trials: %ld only in the baseline, %ld only in the candidate.",
                    r->baseline_only_keys, r->candidate_only_keys);
        report_para(&d, sb.buf);
    }
    compare_runs_table(&d, m);
    strbuf_reset(&sb);
    strbuf_addf(&sb, "Generated by dipmap %s (%s).", dipmap_version, dipmap_commit);
    report_footer(&d, sb.buf);
    report_page_end(&d);
    strbuf_release(&sb);
}

struct overlay {
    const struct plot_series *b, *c;
    size_t nb, nc;
};

static void build_overlay(struct strbuf *script, const struct plot_opts *o, const void *data)
{
    const struct overlay *ov = data;
    plot_script_compare(script, o, ov->b, ov->nb, ov->c, ov->nc);
}

/* Label series "8k baseline" / "8k candidate" (labels are owned by the series). */
static void relabel(struct plot_series *v, size_t n, const char *role)
{
    size_t i;
    for (i = 0; i < n; i++) {
        struct strbuf sb = STRBUF_INIT;
        const char *sp = strchr(v[i].label, ' ');
        strbuf_add(&sb, v[i].label, sp ? (size_t)(sp - v[i].label) : strlen(v[i].label));
        strbuf_addf(&sb, " %s", role);
        free((char *)v[i].label);
        v[i].label = strbuf_detach(&sb, NULL);
        v[i].edge = v[i].middle = NAN;
    }
}

static int append_file(const char *path, const char *text)
{
    struct strbuf old = STRBUF_INIT;
    int ret;
    if (strbuf_read_file(&old, path) < 0 && old.len == 0)
        strbuf_reset(&old);
    strbuf_addstr(&old, text);
    ret = plot_write_file(path, &old);
    strbuf_release(&old);
    return ret;
}

/*
 * The baseline/candidate overlay: both runs' U-curves (no bootstrap: only cell
 * accuracies and Wilson bands are drawn), candidate cells with a significant
 * regression flagged, rendered by plot_save() into dir (NULL: only into svg).
 * Returns a plot_status, or -2 after an error (statistics failed).
 */
static int draw_overlay(const char *dir, unsigned formats, const struct compare_result *r,
                        const struct compare_meta *m, const struct trial_point *base, size_t nb,
                        const struct trial_point *cand, size_t nc, struct strbuf *svg)
{
    struct run_stats sb, sc;
    struct stats_options o;
    struct strbuf err = STRBUF_INIT, title = STRBUF_INIT;
    struct plot_series *vb = NULL, *vc = NULL;
    struct overlay ov;
    struct plot_opts po;
    size_t i, j;
    int pr = -2, have_b = 0, have_c = 0;

    stats_options_init(&o);
    o.bootstrap_iters = 0;
    ov.nb = ov.nc = 0;
    if (stats_compute(base, nb, &o, &sb, &err) < 0) {
        error("compare: %s", err.buf);
        goto cleanup;
    }
    have_b = 1;
    if (stats_compute(cand, nc, &o, &sc, &err) < 0) {
        error("compare: %s", err.buf);
        goto cleanup;
    }
    have_c = 1;
    ov.nb = report_ucurve_series(&sb, &vb);
    ov.nc = report_ucurve_series(&sc, &vc);
    relabel(vb, ov.nb, "baseline");
    relabel(vc, ov.nc, "candidate");
    for (i = 0; i < ov.nc; i++) {
        const struct length_stats *l = &sc.lengths[i];
        for (j = 0; j < vc[i].n; j++) {
            const struct cell_stats *c = &sc.cells[l->first_cell + j];
            size_t k;
            for (k = 0; k < r->n_tests; k++) {
                const struct compare_test *t = &r->tests[k];
                if (t->scope == COMPARE_CELL && t->length == c->length &&
                    t->depth_bp == c->depth_bp && t->status == CMP_REGRESSION)
                    ((struct plot_point *)vc[i].pts)[j].flag = 1;
            }
        }
    }
    ov.b = vb;
    ov.c = vc;
    memset(&po, 0, sizeof(po));
    strbuf_addf(&title, "%s (%s) vs %s (%s)", run_label(m ? m->baseline : NULL),
                report_or_dash(m && m->baseline ? m->baseline->model_requested : NULL),
                run_label(m ? m->candidate : NULL),
                report_or_dash(m && m->candidate ? m->candidate->model_requested : NULL));
    po.title = title.buf;
    po.subtitle = compare_verdict_name(r->verdict);
    pr = plot_save(dir, "compare", formats, build_overlay, &ov, &po, svg);

cleanup:
    if (have_b)
        run_stats_release(&sb);
    if (have_c)
        run_stats_release(&sc);
    report_series_free(vb, ov.nb);
    report_series_free(vc, ov.nc);
    strbuf_release(&err);
    strbuf_release(&title);
    return pr;
}

int report_compare_files(const char *dir, const struct compare_result *r,
                         const struct compare_meta *m, const struct trial_point *base, size_t nb,
                         const struct trial_point *cand, size_t nc)
{
    struct strbuf svg = STRBUF_INIT, html = STRBUF_INIT, path = STRBUF_INIT;
    int ret = 0, pr;

    pr = draw_overlay(dir, PLOT_BOTH, r, m, base, nb, cand, nc, &svg);
    if (pr == -2) {
        ret = -1;
        goto cleanup;
    }
    if (pr == PLOT_NO_GNUPLOT)
        warning("gnuplot not found on PATH: the compare plot is skipped; compare.html is still "
                "written");
    else if (pr != PLOT_OK)
        warning("the compare plot is skipped: gnuplot failed");
    else {
        strbuf_addf(&path, "%s/compare.md", dir);
        if (append_file(path.buf, "\n![Baseline (dashed) vs candidate (solid); circled: "
                                  "significant regressions](compare.svg)\n") < 0)
            ret = -1;
    }

    report_compare_html(&html, r, m, svg.len ? svg.buf : NULL);
    strbuf_reset(&path);
    strbuf_addf(&path, "%s/compare.html", dir);
    if (plot_write_file(path.buf, &html) < 0)
        ret = -1;

cleanup:
    strbuf_release(&svg);
    strbuf_release(&html);
    strbuf_release(&path);
    return ret;
}

int report_compare_page(struct strbuf *out, const struct compare_result *r,
                        const struct compare_meta *m, const struct trial_point *base, size_t nb,
                        const struct trial_point *cand, size_t nc)
{
    struct strbuf svg = STRBUF_INIT;
    int pr = draw_overlay(NULL, 1u << PLOT_SVG, r, m, base, nb, cand, nc, &svg);
    if (pr != -2)
        report_compare_html(out, r, m, pr == PLOT_OK && svg.len ? svg.buf : NULL);
    strbuf_release(&svg);
    return pr == -2 ? -1 : 0;
}

/* ---- the verdict writers (Markdown, JUnit, JSON, GitHub annotations) ---- */

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

/* An accuracy of a test, "n/a" when the test has no pair (nothing was measured). */
static void pct_or_na(struct strbuf *out, const struct compare_test *t, double v)
{
    if (t->n_pairs)
        report_pct(out, v);
    else
        strbuf_addstr(out, "n/a");
}

/* The change of a test in pp (candidate - baseline; for a dip its rise), or "n/a". */
static void change_or_na(struct strbuf *out, const struct compare_test *t)
{
    if (!t->n_pairs)
        strbuf_addstr(out, "n/a");
    else if (t->scope == COMPARE_DIP)
        report_pp(out, t->drop);
    else
        report_pp(out, -t->drop);
}

/* A primary test's standing: regression, improvement, not enough data, or under the
   bound rule "within tolerance" (upper bound below it) / "undecided". */
static const char *primary_status(const struct compare_result *r, const struct compare_test *t)
{
    if (t->status != CMP_OK || r->opt.pass_rule != COMPARE_PASS_BOUND)
        return compare_status_name(t->status);
    return t->upper < r->opt.tolerance ? "within tolerance" : "undecided";
}

static void md_row(struct strbuf *out, const struct compare_test *t)
{
    strbuf_addstr(out, "| ");
    compare_test_name(out, t);
    strbuf_addf(out, " | %ld | ", t->n_pairs);
    pct_or_na(out, t, t->acc_base);
    strbuf_addstr(out, " | ");
    pct_or_na(out, t, t->acc_cand);
    strbuf_addstr(out, " | ");
    change_or_na(out, t);
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

/*
 * The summary being written: a table row or section that would pass the size
 * limit (0: none) is counted in omitted instead, and named in the closing note.
 */
struct md {
    struct strbuf *out;
    struct strbuf piece;
    size_t limit;
    size_t omitted;
};

/* Append md->piece unless it would pass the limit. */
static void md_put(struct md *md)
{
    if (md->limit && md->out->len + md->piece.len > md->limit) {
        md->omitted++;
        return;
    }
    strbuf_add(md->out, md->piece.buf, md->piece.len);
}

static void md_put_row(struct md *md, const struct compare_test *t)
{
    strbuf_reset(&md->piece);
    md_row(&md->piece, t);
    md_put(md);
}

/* "**run** (model)" */
static void md_run(struct strbuf *out, const struct run_info *ri)
{
    strbuf_addstr(out, "**");
    escape_md(out, run_name(ri));
    strbuf_addstr(out, "**");
    if (run_model(ri)) {
        strbuf_addstr(out, " (");
        escape_md(out, run_model(ri));
        strbuf_addstr(out, ")");
    }
}

/* The verdict, the two runs, the counts and what a regression (and a cell) is. */
static void md_summary(struct strbuf *out, const struct compare_result *r,
                       const struct compare_meta *m, const struct compare_test *overall)
{
    const char *mark = r->verdict == VERDICT_PASS   ? "\xe2\x9c\x85"
                       : r->verdict == VERDICT_FAIL ? "\xe2\x9d\x8c"
                                                    : "\xe2\x9a\xa0\xef\xb8\x8f";

    strbuf_addf(out, "## dipmap compare: %s %s\n\n", compare_verdict_name(r->verdict), mark);
    strbuf_addstr(out, "**");
    {
        struct strbuf h = STRBUF_INIT;
        compare_headline(&h, r);
        escape_md(out, h.buf);
        strbuf_release(&h);
    }
    strbuf_addstr(out, "**\n\n");
    strbuf_addstr(out, "Baseline ");
    md_run(out, m ? m->baseline : NULL);
    strbuf_addstr(out, " vs candidate ");
    md_run(out, m ? m->candidate : NULL);
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
                "(exact one-sided sign-flip test over questions; %lu primary test%s, and %lu "
                "secondary cell%s and axis values as a second family, which %s).\n\n",
                r->opt.tolerance * 100.0, r->opt.alpha, (unsigned long)r->n_primary_family,
                r->n_primary_family == 1 ? "" : "s", (unsigned long)r->n_family,
                r->n_family == 1 ? "" : "s",
                r->opt.gate == COMPARE_GATE_CELLS ? "fail the gate too (--gate cells)"
                                                  : "are shown but do not fail the gate "
                                                    "(--gate cells makes them)");
    if (r->opt.pass_rule == COMPARE_PASS_NO_REGRESSION && r->verdict == VERDICT_PASS)
        strbuf_addf(out,
                    "> **Note:** --pass-rule no-regression: PASS here only means that no "
                    "primary endpoint regressed significantly. It does not show that there is "
                    "no regression: a worsening of up to %.1f pp is what these questions detect "
                    "at 80%% power, and the upper bounds in the table say how large a drop the "
                    "data still allow.\n\n",
                    r->max_mde * 100.0);
    if (r->has_axes)
        strbuf_addstr(out, r->axes_only
                               ? "A cell is one combination of the named axes (length and depth "
                                 "are the same for every trial).\n\n"
                               : "A cell is (length, depth, axes): each combination of the named "
                                 "axes is tested on its own.\n\n");
}

static void md_warning(struct strbuf *out, const char *text)
{
    strbuf_addstr(out, "> **Warning:** ");
    escape_md(out, text);
    strbuf_addstr(out, "\n\n");
}

/* What the reader must know before the tables: input notes, question set, warnings, reasons. */
static void md_notes(struct strbuf *out, const struct compare_result *r,
                     const struct compare_meta *m)
{
    struct strvec w = STRVEC_INIT;
    size_t i;

    if (m && m->inputs_note)
        md_warning(out, m->inputs_note);
    if (r->opt.exclude_known)
        strbuf_addf(out,
                    "Question set: %lu questions; the %lu answered correctly closed-book in "
                    "either run are left out (--exclude-known).\n\n",
                    (unsigned long)r->n_questions, (unsigned long)r->n_known);
    else if (r->n_known)
        strbuf_addf(out,
                    "Question set: all %lu questions (%lu answered correctly closed-book; "
                    "--exclude-known leaves them out).\n\n",
                    (unsigned long)r->n_questions, (unsigned long)r->n_known);
    compare_warnings(r, &w);
    for (i = 0; i < w.nr; i++)
        md_warning(out, w.v[i]);
    strvec_clear(&w);
    if (r->n_reasons) {
        strbuf_addstr(out, "### Inconclusive because\n\n");
        for (i = 0; i < r->n_reasons; i++) {
            strbuf_addstr(out, "- ");
            escape_md(out, r->reasons[i]);
            strbuf_addch(out, '\n');
        }
        strbuf_addch(out, '\n');
    }
}

/* Regressions, then improvements: lengths, axis values, cells, each worst (best) first. */
static void md_changes(struct md *md, const struct compare_result *r)
{
    static const enum compare_scope order[] = {COMPARE_MIDDLE, COMPARE_DIP, COMPARE_LENGTH,
                                               COMPARE_AXIS, COMPARE_CELL};
    const struct compare_test *const *v;
    size_t o, i, n;
    int pass;

    for (pass = 0; pass < 2; pass++) {
        enum compare_status want = pass ? CMP_IMPROVEMENT : CMP_REGRESSION;
        long count = pass ? r->n_improvements : r->n_regressions;
        if (!count)
            continue;
        strbuf_addf(md->out, "### %s\n\n%s", pass ? "Improvements" : "Regressions", md_head);
        for (o = 0; o < sizeof(order) / sizeof(*order); o++) {
            v = tests_by_drop(r, order[o], &n);
            for (i = 0; i < n; i++) {
                size_t idx = pass ? n - 1 - i : i;
                if (v[idx]->status == want)
                    md_put_row(md, v[idx]);
            }
            free((void *)v);
        }
        strbuf_addch(md->out, '\n');
    }
}

/* Every test of one scope in the result's order, under a heading; then the overall row if given. */
static void md_scope_table(struct md *md, const struct compare_result *r, enum compare_scope scope,
                           const char *heading, const struct compare_test *overall)
{
    size_t i, n = 0;
    for (i = 0; i < r->n_tests; i++)
        n += r->tests[i].scope == scope;
    if (!n)
        return;
    strbuf_addf(md->out, "### %s\n\n%s", heading, md_head);
    for (i = 0; i < r->n_tests; i++)
        if (r->tests[i].scope == scope)
            md_put_row(md, &r->tests[i]);
    if (overall)
        md_put_row(md, overall);
    strbuf_addch(md->out, '\n');
}

static const char md_primary_head[] =
    "| endpoint | questions | baseline | candidate | change | worse by | upper bound | "
    "detectable (80% power) | p (Holm) | status |\n"
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";

static void md_primary_row(struct strbuf *out, const struct compare_result *r,
                           const struct compare_test *t)
{
    int dip = t->scope == COMPARE_DIP, tested = t->n_pairs > 0;
    strbuf_addstr(out, "| ");
    compare_test_name(out, t);
    strbuf_addf(out, " | %lu | ", (unsigned long)t->n_questions);
    if (dip && tested)
        strbuf_addf(out, "dip %.1f pp | dip %.1f pp", t->acc_base * 100.0, t->acc_cand * 100.0);
    else {
        pct_or_na(out, t, t->acc_base);
        strbuf_addstr(out, " | ");
        pct_or_na(out, t, t->acc_cand);
    }
    strbuf_addstr(out, " | ");
    change_or_na(out, t);
    strbuf_addstr(out, " | ");
    if (tested) {
        report_pp(out, t->drop);
        strbuf_addstr(out, " | ");
        report_pp(out, t->upper);
        strbuf_addstr(out, " | ");
        if (t->mde >= 0)
            strbuf_addf(out, "%.1f pp", t->mde * 100.0);
        else
            strbuf_addstr(out, "n/a");
        strbuf_addstr(out, " | ");
    } else {
        strbuf_addstr(out, "n/a | n/a | n/a | ");
    }
    if (t->status == CMP_NO_DATA)
        strbuf_addstr(out, "–");
    else
        fmt_p(out, t->drop >= 0 ? t->p_drop_adj : t->p_gain_adj);
    strbuf_addf(out, " | %s |\n", primary_status(r, t));
}

/*
 * The primary endpoints first: the gate. "worse by" is the estimated
 * worsening (an accuracy's drop, a dip's rise), "upper bound" its one-sided
 * question-clustered bound, the detectable drop the planner's at 80% power.
 */
static void md_primary(struct md *md, const struct compare_result *r)
{
    size_t i;
    if (!r->n_primary)
        return;
    strbuf_reset(&md->piece);
    strbuf_addf(&md->piece,
                "### Primary endpoints (the gate)\n\n"
                "Per length: all depths, the middle band (25-75%%) and the dip (edge - middle). "
                "A regression: Holm-adjusted p < %g over these %lu tests and a worsening of at "
                "least %.1f pp. PASS needs every %.0f%% upper bound below %.1f pp.\n\n%s",
                r->opt.alpha, (unsigned long)r->n_primary_family, r->opt.tolerance * 100.0,
                (1.0 - (r->opt.bound_alpha > 0 ? r->opt.bound_alpha : r->opt.alpha)) * 100.0,
                r->opt.tolerance * 100.0, md_primary_head);
    md_put(md);
    for (i = 0; i < r->n_tests; i++)
        if (r->tests[i].primary) {
            strbuf_reset(&md->piece);
            md_primary_row(&md->piece, r, &r->tests[i]);
            md_put(md);
        }
    strbuf_addch(md->out, '\n');
}

static void md_worst_cells(struct md *md, const struct compare_result *r)
{
    size_t i, n;
    const struct compare_test *const *v = tests_by_drop(r, COMPARE_CELL, &n);
    if (n) {
        strbuf_addf(md->out, "### Cells, largest drop first (top %d of %lu)\n\n%s",
                    n < MD_TOP_CELLS ? (int)n : MD_TOP_CELLS, (unsigned long)n, md_head);
        for (i = 0; i < n && i < MD_TOP_CELLS; i++)
            md_put_row(md, v[i]);
        strbuf_addch(md->out, '\n');
    }
    free((void *)v);
}

void report_compare_markdown(struct strbuf *out, const struct compare_result *r,
                             const struct compare_meta *m, size_t max_bytes)
{
    const struct compare_test *overall = r->n_tests ? &r->tests[r->n_tests - 1] : NULL;
    /* room kept for the section headings (written whole) and the closing note */
    struct md md = {
        out, STRBUF_INIT,
        max_bytes ? out->len + (max_bytes > 4096 ? max_bytes - 2048 : max_bytes / 2) : 0, 0};

    md_summary(out, r, m, overall);
    md_primary(&md, r);
    md_notes(out, r, m);
    md_changes(&md, r);
    /* the change by depth and length */
    strbuf_reset(&md.piece);
    report_compare_heatmap_md(&md.piece, r);
    if (md.piece.len)
        md_put(&md);
    md_scope_table(&md, r, COMPARE_OVERALL, "Overall (reported, not gated)", NULL);
    md_scope_table(&md, r, COMPARE_AXIS, "Per axis value (pooled)", NULL);
    md_worst_cells(&md, r);
    /* the flipped questions of the regressed cells, last: the longest part */
    strbuf_reset(&md.piece);
    report_compare_flips_md(&md.piece, r, m);
    if (md.piece.len)
        md_put(&md);
    if (md.omitted)
        strbuf_addf(out,
                    "_%lu table rows omitted to keep this summary under %lu bytes; "
                    "see the JSON or JUnit output for every test._\n",
                    (unsigned long)md.omitted, (unsigned long)max_bytes);
    strbuf_release(&md.piece);
}

/* ---- XML ---- */

static void xml_attr(struct strbuf *out, const char *name, const char *value)
{
    strbuf_addf(out, " %s=\"", name);
    escape_xml(out, value);
    strbuf_addch(out, '"');
}

static void test_details(struct strbuf *out, const struct compare_test *t)
{
    strbuf_addf(out, "%ld valid pairs of %ld keys (coverage %.1f%%) over %lu questions; ",
                t->n_pairs, t->n_keys, t->coverage * 100.0, (unsigned long)t->n_questions);
    if (!t->n_pairs) {
        strbuf_addstr(out, "no pairs: baseline n/a, candidate n/a");
        return;
    }
    strbuf_addstr(out, t->scope == COMPARE_DIP ? "dip: baseline " : "baseline ");
    report_pct(out, t->acc_base);
    strbuf_addstr(out, ", candidate ");
    report_pct(out, t->acc_cand);
    strbuf_addstr(out, " (");
    change_or_na(out, t);
    strbuf_addf(out, "); lost %ld, gained %ld; p(drop) %.6g, Holm-adjusted %.6g", t->base_only,
                t->cand_only, t->p_drop, t->p_drop_adj);
    strbuf_addf(out, "; worse by %+.1f pp, upper bound %+.1f pp", t->drop * 100.0,
                t->upper * 100.0);
    if (t->mde >= 0)
        strbuf_addf(out, ", detectable at 80%% power %.1f pp", t->mde * 100.0);
}

/* A primary test that keeps the verdict from PASS under the bound rule (not FAIL by itself). */
static int undecided(const struct compare_result *r, const struct compare_test *t)
{
    return t->primary && t->status == CMP_OK && r->opt.pass_rule == COMPARE_PASS_BOUND &&
           t->upper >= r->opt.tolerance;
}

/* classname and name of a test's testcase */
static void junit_names(struct strbuf *cls, struct strbuf *name, const struct compare_test *t)
{
    if (t->scope == COMPARE_OVERALL) {
        strbuf_addstr(cls, "dipmap.compare");
        strbuf_addstr(name, "overall");
    } else if (t->scope == COMPARE_AXIS) {
        strbuf_addstr(cls, "dipmap.compare.axis");
        compare_test_name(name, t);
    } else if (t->axes_only) {
        strbuf_addstr(cls, "dipmap.compare.axes");
        compare_test_name(name, t);
    } else {
        strbuf_addstr(cls, "dipmap.compare.length.");
        plan_format_length(cls, t->length);
        if (t->scope == COMPARE_CELL) {
            strbuf_addstr(name, "depth ");
            plan_format_depth(name, t->depth_bp);
            if (t->axes) {
                strbuf_addstr(name, ", ");
                axes_format(name, t->axes, "");
            }
        } else if (t->scope == COMPARE_MIDDLE) {
            strbuf_addstr(name, "middle (25-75%)");
        } else if (t->scope == COMPARE_DIP) {
            strbuf_addstr(name, "dip");
        } else {
            strbuf_addstr(name, "all depths");
        }
    }
}

static void junit_overall_body(struct strbuf *out, const struct compare_result *r)
{
    struct strbuf h = STRBUF_INIT;
    size_t k;
    compare_headline(&h, r);
    escape_xml(out, h.buf);
    escape_xml(out, "\n");
    for (k = 0; k < r->n_reasons; k++) {
        escape_xml(out, r->reasons[k]);
        escape_xml(out, "\n");
    }
    strbuf_release(&h);
}

/* The <failure>, <skipped> or nothing of one testcase. */
static void junit_outcome(struct strbuf *out, const struct compare_result *r,
                          const struct compare_test *t, const char *details)
{
    struct strbuf msg = STRBUF_INIT;
    if (t->scope == COMPARE_OVERALL && r->verdict != VERDICT_PASS) {
        /* INCONCLUSIVE is not green: the verdict's test fails with its reasons */
        compare_headline(&msg, r);
        strbuf_addf(out, "      <failure type=\"%s\"",
                    r->verdict == VERDICT_FAIL ? "regression" : "inconclusive");
        xml_attr(out, "message", msg.buf);
        strbuf_addch(out, '>');
        junit_overall_body(out, r);
        strbuf_addstr(out, "</failure>\n");
    } else if (t->status == CMP_REGRESSION) {
        strbuf_addstr(&msg, t->scope == COMPARE_DIP ? "dip rose " : "accuracy dropped ");
        report_pct(&msg, t->acc_base);
        strbuf_addstr(&msg, " -> ");
        report_pct(&msg, t->acc_cand);
        strbuf_addstr(&msg, " (Holm p ");
        fmt_p(&msg, t->p_drop_adj);
        strbuf_addstr(&msg,
                      t->primary ? ")" : "; secondary: fails the gate only with --gate cells)");
        strbuf_addstr(out, "      <failure type=\"regression\"");
        xml_attr(out, "message", msg.buf);
        strbuf_addch(out, '>');
        escape_xml(out, details);
        strbuf_addstr(out, "</failure>\n");
    } else if (undecided(r, t)) {
        strbuf_addf(&msg, "undecided: upper bound %+.1f pp is not below the tolerance %.1f pp",
                    t->upper * 100.0, r->opt.tolerance * 100.0);
        if (t->need_q > 0)
            strbuf_addf(&msg, "; a decision needs about %ld questions", t->need_q);
        strbuf_addstr(out, "      <failure type=\"inconclusive\"");
        xml_attr(out, "message", msg.buf);
        strbuf_addch(out, '>');
        escape_xml(out, details);
        strbuf_addstr(out, "</failure>\n");
    } else if (t->status == CMP_NO_DATA) {
        strbuf_addstr(out, "      <skipped");
        xml_attr(out, "message", "not enough data");
        strbuf_addch(out, '>');
        escape_xml(out, details);
        strbuf_addstr(out, "</skipped>\n");
    }
    strbuf_release(&msg);
}

void report_compare_junit(struct strbuf *out, const struct compare_result *r,
                          const struct compare_meta *m)
{
    struct strbuf sb = STRBUF_INIT, name = STRBUF_INIT, cls = STRBUF_INIT;
    long failures = 0, skipped = 0;
    size_t i;
    for (i = 0; i < r->n_tests; i++) {
        const struct compare_test *t = &r->tests[i];
        if (t->scope == COMPARE_OVERALL)
            failures += r->verdict != VERDICT_PASS;
        else if (t->status == CMP_REGRESSION || undecided(r, t))
            failures++;
        else if (t->status == CMP_NO_DATA)
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
        junit_names(&cls, &name, t);
        test_details(&sb, t);
        strbuf_addstr(out, "    <testcase");
        xml_attr(out, "classname", cls.buf);
        xml_attr(out, "name", name.buf);
        strbuf_addstr(out, " time=\"0\">\n");
        junit_outcome(out, r, t, sb.buf);
        strbuf_addstr(out, "      <system-out>");
        escape_xml(out, sb.buf);
        strbuf_addstr(out, "</system-out>\n    </testcase>\n");
    }
    strbuf_addstr(out, "  </testsuite>\n</testsuites>\n");
    strbuf_release(&sb);
    strbuf_release(&name);
    strbuf_release(&cls);
}

void report_compare_junit_error(struct strbuf *out, const char *baseline, const char *candidate,
                                const char *why)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "dipmap compare %s vs %s", baseline ? baseline : "?",
                candidate ? candidate : "?");
    strbuf_addstr(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites");
    xml_attr(out, "name", "dipmap compare");
    strbuf_addstr(out, " tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0\">\n");
    strbuf_addstr(out, "  <testsuite");
    xml_attr(out, "name", sb.buf);
    strbuf_addstr(out, " tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0\">\n");
    strbuf_addstr(out, "    <properties>\n      <property name=\"verdict\" "
                       "value=\"INCONCLUSIVE\"/>\n    </properties>\n");
    strbuf_addstr(out, "    <testcase classname=\"dipmap.compare\" name=\"overall\" time=\"0\">\n"
                       "      <error type=\"refused\"");
    xml_attr(out, "message", why);
    strbuf_addch(out, '>');
    escape_xml(out, why);
    strbuf_addstr(out, "</error>\n    </testcase>\n  </testsuite>\n</testsuites>\n");
    strbuf_release(&sb);
}

void report_compare_refused_markdown(struct strbuf *out, const char *baseline,
                                     const char *candidate, const char *why)
{
    strbuf_addstr(out, "## dipmap compare: INCONCLUSIVE \xe2\x9a\xa0\xef\xb8\x8f\n\n"
                       "**INCONCLUSIVE: not compared.** Baseline **");
    escape_md(out, baseline ? baseline : "?");
    strbuf_addstr(out, "** vs candidate **");
    escape_md(out, candidate ? candidate : "?");
    strbuf_addstr(out, "**.\n\n### Not compared because\n\n");
    for (const char *p = why; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        struct strbuf line = STRBUF_INIT;
        strbuf_add(&line, p, len);
        if (line.len) {
            strbuf_addstr(out, "- ");
            escape_md(out, line.buf);
            strbuf_addch(out, '\n');
        }
        strbuf_release(&line);
        p += len + (nl != NULL);
    }
    strbuf_addch(out, '\n');
}

/* ---- JSON ---- */

/* key: {"name", "model"}, or null without the run */
static void add_run(struct json *root, const char *key, const struct run_info *ri)
{
    struct json *o;
    if (!ri) {
        json_add_null(root, key);
        return;
    }
    o = json_add_object(root, key);
    json_add_str(o, "name", ri->name);
    json_add_str(o, "model", run_model(ri));
}

/* "axes": {"k": "10", "policy": "source"} from the test's axes; null for a length or overall */
static void add_test_axes(struct json *x, const char *axes)
{
    struct json *ax;
    const char *a = axes;
    struct axes_pair pr;
    struct strbuf k = STRBUF_INIT, val = STRBUF_INIT;
    if (!axes) {
        json_add_null(x, "axes");
        return;
    }
    ax = json_add_object(x, "axes");
    while (axes_next(&a, &pr) > 0) {
        strbuf_reset(&k);
        strbuf_reset(&val);
        strbuf_add(&k, pr.name, pr.name_len);
        strbuf_add(&val, pr.value, pr.value_len);
        json_add_str(ax, k.buf, val.buf);
    }
    strbuf_release(&k);
    strbuf_release(&val);
}

static void add_test(struct json *arr, const struct compare_result *r, const struct compare_test *t,
                     int has_axes)
{
    struct json *x = json_add_object(arr, NULL);
    json_add_str(x, "scope", compare_scope_name(t->scope));
    json_add_bool(x, "primary", t->primary);
    if (t->scope == COMPARE_OVERALL || t->scope == COMPARE_AXIS)
        json_add_null(x, "length");
    else
        json_add_num(x, "length", (double)t->length);
    if (t->scope == COMPARE_CELL)
        json_add_num(x, "depth", t->depth_bp / (double)DEPTH_BP_MAX);
    else
        json_add_null(x, "depth");
    if (has_axes)
        add_test_axes(x, t->axes);
    json_add_num(x, "keys", (double)t->n_keys);
    json_add_num(x, "pairs", (double)t->n_pairs);
    json_add_num(x, "questions", (double)t->n_questions);
    json_add_num(x, "coverage", t->coverage);
    json_add_num(x, "both_correct", (double)t->both_correct);
    json_add_num(x, "lost", (double)t->base_only);
    json_add_num(x, "gained", (double)t->cand_only);
    json_add_num(x, "both_wrong", (double)t->both_wrong);
    json_add_num(x, "accuracy_baseline", t->acc_base);
    json_add_num(x, "accuracy_candidate", t->acc_cand);
    json_add_num(x, "drop", t->drop);
    json_add_num(x, "p_drop", t->p_drop);
    json_add_num(x, "p_gain", t->p_gain);
    json_add_num(x, "p_drop_holm", t->p_drop_adj);
    json_add_num(x, "p_gain_holm", t->p_gain_adj);
    json_add_str(x, "status", compare_status_name(t->status));
    if (t->n_pairs) {
        json_add_num(x, "se", t->se);
        json_add_num(x, "upper_bound", t->upper);
    } else {
        json_add_null(x, "se");
        json_add_null(x, "upper_bound");
    }
    if (t->mde >= 0 && t->n_pairs)
        json_add_num(x, "detectable_drop", t->mde);
    else
        json_add_null(x, "detectable_drop");
    json_add_num(x, "questions_needed", (double)t->need_q);
    if (t->primary)
        json_add_str(x, "decision", primary_status(r, t));
}

void report_compare_json(struct strbuf *out, const struct compare_result *r,
                         const struct compare_meta *m)
{
    struct json *root = json_new_object(), *o, *arr;
    struct strvec w = STRVEC_INIT;
    size_t i;
    json_add_str(root, "schema", "dipmap.compare/1");
    json_add_str(root, "verdict", compare_verdict_name(r->verdict));
    json_add_bool(root, "refused", 0);
    {
        struct strbuf h = STRBUF_INIT;
        compare_headline(&h, r);
        json_add_str(root, "headline", h.buf);
        strbuf_release(&h);
    }
    add_run(root, "baseline", m ? m->baseline : NULL);
    add_run(root, "candidate", m ? m->candidate : NULL);
    o = json_add_object(root, "options");
    json_add_num(o, "alpha", r->opt.alpha);
    json_add_num(o, "tolerance", r->opt.tolerance);
    json_add_num(o, "min_pairs", (double)r->opt.min_pairs);
    json_add_num(o, "min_coverage", r->opt.min_coverage);
    json_add_str(o, "gate", r->opt.gate == COMPARE_GATE_CELLS ? "cells" : "primary");
    json_add_str(o, "pass_rule",
                 r->opt.pass_rule == COMPARE_PASS_BOUND ? "bound" : "no-regression");
    json_add_num(o, "bound_alpha", r->opt.bound_alpha > 0 ? r->opt.bound_alpha : r->opt.alpha);
    json_add_str(root, "inputs_note", m ? m->inputs_note : NULL);
    json_add_num(root, "regressions", (double)r->n_regressions);
    json_add_num(root, "improvements", (double)r->n_improvements);
    json_add_num(root, "not_enough_data", (double)r->n_no_data);
    json_add_num(root, "holm_family_size", (double)r->n_family);
    json_add_num(root, "primary_family_size", (double)r->n_primary_family);
    json_add_num(root, "primary_regressions", (double)r->n_primary_regressions);
    json_add_num(root, "primary_bounds_over_tolerance", (double)r->n_primary_over);
    json_add_num(root, "questions_needed", (double)r->need_questions);
    json_add_num(root, "largest_detectable_drop", r->max_mde);
    json_add_num(root, "baseline_only_keys", (double)r->baseline_only_keys);
    json_add_num(root, "candidate_only_keys", (double)r->candidate_only_keys);
    json_add_num(root, "questions", (double)r->n_questions);
    json_add_bool(root, "exclude_known", r->opt.exclude_known);
    json_add_num(root, "known_questions", (double)r->n_known);
    arr = json_add_array(root, "reasons");
    for (i = 0; i < r->n_reasons; i++)
        json_add_str(arr, NULL, r->reasons[i]);
    arr = json_add_array(root, "warnings");
    compare_warnings(r, &w);
    for (i = 0; i < w.nr; i++)
        json_add_str(arr, NULL, w.v[i]);
    strvec_clear(&w);
    arr = json_add_array(root, "tests");
    for (i = 0; i < r->n_tests; i++)
        add_test(arr, r, &r->tests[i], r->has_axes);
    json_print(out, root, 1);
    strbuf_addch(out, '\n');
    json_free(root);
}

void report_compare_refused_json(struct strbuf *out, const char *baseline, const char *candidate,
                                 const char *why)
{
    struct json *root = json_new_object(), *o, *arr;
    struct strbuf h = STRBUF_INIT;
    strbuf_addf(&h, "INCONCLUSIVE: not compared: %s", why);
    json_add_str(root, "schema", "dipmap.compare/1");
    json_add_str(root, "verdict", "INCONCLUSIVE");
    json_add_str(root, "headline", h.buf);
    json_add_bool(root, "refused", 1);
    o = json_add_object(root, "baseline");
    json_add_str(o, "name", baseline);
    o = json_add_object(root, "candidate");
    json_add_str(o, "name", candidate);
    arr = json_add_array(root, "reasons");
    json_add_str(arr, NULL, why);
    json_add_array(root, "tests");
    json_print(out, root, 1);
    strbuf_addch(out, '\n');
    json_free(root);
    strbuf_release(&h);
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

void report_compare_annotations(struct strbuf *out, const struct compare_result *r, int max_lines)
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
            compare_test_name(&title, v[i]);
            strbuf_addstr(&msg, "accuracy ");
            report_pct(&msg, v[i]->acc_base);
            strbuf_addstr(&msg, " -> ");
            report_pct(&msg, v[i]->acc_cand);
            strbuf_addstr(&msg, " (");
            report_pp(&msg, -v[i]->drop);
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

void report_compare_refused_annotation(struct strbuf *out, const char *why)
{
    strbuf_addstr(out, "::error title=dipmap compare refused::");
    gh_escape(out, why, 0);
    strbuf_addch(out, '\n');
}

/* GitHub's per-step summary limit is 1 MiB; keep a margin for other steps' text. */
#define STEP_SUMMARY_MAX (1024 * 1024 - 16 * 1024)
#define STEP_SUMMARY_MIN 2048

size_t report_step_summary_room(const char *path)
{
    struct stat st;
    size_t room = STEP_SUMMARY_MAX;
    if (!stat(path, &st) && st.st_size > 0)
        room = (size_t)st.st_size >= room ? 0 : room - (size_t)st.st_size;
    if (room < STEP_SUMMARY_MIN) {
        warning("$GITHUB_STEP_SUMMARY (%s) is already near GitHub's 1 MiB limit; "
                "summary not appended",
                path);
        return 0;
    }
    return room;
}

void report_step_summary_append(const char *path, const struct strbuf *md)
{
    FILE *fp = fopen(path, "a");
    int bad = !fp;
    if (fp) {
        bad = fwrite(md->buf, 1, md->len, fp) != md->len;
        bad |= fclose(fp) != 0;
    }
    if (bad)
        warning("cannot append to $GITHUB_STEP_SUMMARY (%s): %s", path, strerror(errno));
}

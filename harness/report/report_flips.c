/*
 * The drill-downs of a comparison (compare.md and compare.html): per regressed
 * cell the questions that flipped, correct -> wrong and wrong -> correct, with
 * both runs' answers; and the depth x length table of the change (pp, with
 * the tested significance marked), drawn as a heatmap in HTML. Private to the
 * report files; the tests and their verdicts come from compare.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/axes.h"
#include "stats/compare.h"
#include "base/escape.h"
#include "run/plan.h"
#include "report/report-int.h"
#include "report/report.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/unicode.h"
#include "base/xalloc.h"

#include "base/banned.h"

/* Flipped pairs listed per direction and cell; the rest are counted. */
#define FLIPS_MAX 25
/* Bytes of an answer shown. */
#define ANSWER_MAX 200

/* One flipped pair of a cell. */
struct flip {
    const struct trial_point *b, *c;
};

struct cell_flips {
    struct flip *lost, *gained; /* correct -> wrong, wrong -> correct; by question */
    size_t nlost, ngained;
};

/* One trial in the cell of test t: its length, depth and axes. */
static int in_cell(const struct trial_point *x, const struct compare_test *t)
{
    return x->length == t->length && x->depth_bp == t->depth_bp &&
           !strcmp(axes_or_empty(x->axes), axes_or_empty(t->axes));
}

/* The pairs of cell t (length, depth, axes) that changed between the runs (both trials scored). */
static void find_flips(const struct compare_meta *m, const struct compare_test *t,
                       struct cell_flips *out)
{
    const struct trial_point **cand;
    size_t i, nc = 0, al = 0, ag = 0;

    memset(out, 0, sizeof(*out));
    if (!m || !m->base_trials || !m->cand_trials)
        return;
    cand = xcalloc(m->n_cand + 1, sizeof(*cand));
    for (i = 0; i < m->n_cand; i++)
        if (in_cell(&m->cand_trials[i], t))
            cand[nc++] = &m->cand_trials[i];
    qsort(cand, nc, sizeof(*cand), trial_point_cmp_ptr);
    for (i = 0; i < m->n_base; i++) {
        const struct trial_point *b = &m->base_trials[i], **hit;
        if (!in_cell(b, t) || !outcome_is_scored(b->outcome))
            continue;
        hit = bsearch(&b, cand, nc, sizeof(*cand), trial_point_cmp_ptr);
        if (!hit || !outcome_is_scored((*hit)->outcome) || (*hit)->outcome == b->outcome)
            continue;
        if (b->outcome == OUTCOME_CORRECT) {
            ALLOC_GROW(out->lost, out->nlost + 1, al);
            out->lost[out->nlost].b = b;
            out->lost[out->nlost++].c = *hit;
        } else {
            ALLOC_GROW(out->gained, out->ngained + 1, ag);
            out->gained[out->ngained].b = b;
            out->gained[out->ngained++].c = *hit;
        }
    }
    free(cand);
}

static void cell_flips_release(struct cell_flips *f)
{
    free(f->lost);
    free(f->gained);
}

/* An answer cut to ANSWER_MAX bytes on a UTF-8 boundary, "(no answer)" when empty. */
static void answer_text(struct strbuf *out, const char *a)
{
    size_t n = a ? strlen(a) : 0, k = n;
    if (!n) {
        strbuf_addstr(out, "(no answer)");
        return;
    }
    if (k > ANSWER_MAX) {
        k = utf8_char_start(a, ANSWER_MAX);
    }
    strbuf_add(out, a, k);
    if (k < n)
        strbuf_addstr(out, " \xE2\x80\xA6");
}

static void cell_title(struct strbuf *out, const struct compare_test *t)
{
    if (!t->axes_only) {
        plan_format_length(out, t->length);
        strbuf_addstr(out, " tokens, depth ");
        plan_format_depth(out, t->depth_bp);
    }
    if (t->axes) {
        if (!t->axes_only)
            strbuf_addstr(out, ", ");
        axes_format(out, t->axes, "");
    }
    strbuf_addstr(out, ": ");
    report_pct(out, t->acc_base);
    strbuf_addstr(out, " \xE2\x86\x92 ");
    report_pct(out, t->acc_cand);
    strbuf_addstr(out, " (");
    report_pp(out, -t->drop);
    strbuf_addstr(out, ")");
}

/*
 * The table of flipped pairs (the first FLIPS_MAX), in either format; axes:
 * the cell has named axes (a column naming each row's).
 */
/* The answer of flipped trial p of the baseline (candidate 0) or the candidate, as shown. */
static void flip_answer(struct strbuf *out, const struct compare_meta *m, int candidate,
                        const struct trial_point *p)
{
    char *a = m->answer ? m->answer(m->answer_ctx, candidate, p) : NULL;
    answer_text(out, a);
    free(a);
}

static void flips_rows(struct markup *d, const struct compare_meta *m, const struct flip *v,
                       size_t n, int axes)
{
    static const char *const head[] = {"question", "repeat", "baseline answer", "candidate answer",
                                       NULL};
    static const char *const head_axes[] = {"question",         "axes", "repeat", "baseline answer",
                                            "candidate answer", NULL};
    struct strbuf sb = STRBUF_INIT;
    size_t i;

    report_table_begin(d, axes ? "llrll" : "lrll", axes ? head_axes : head);
    for (i = 0; i < n && i < FLIPS_MAX; i++) {
        report_row_begin(d, NULL);
        report_cell(d, report_or_dash(v[i].b->question_id));
        if (axes) {
            strbuf_reset(&sb);
            axes_format(&sb, v[i].b->axes, "\xE2\x80\x93");
            report_cell(d, sb.buf);
        }
        report_cellf(d, "%d", v[i].b->repeat);
        strbuf_reset(&sb);
        flip_answer(&sb, m, 0, v[i].b);
        report_cell(d, sb.buf);
        strbuf_reset(&sb);
        flip_answer(&sb, m, 1, v[i].c);
        report_cell(d, sb.buf);
        report_row_end(d);
    }
    report_table_end(d);
    strbuf_release(&sb);
}

/* ---- HTML ---- */

static void flips_table(struct markup *d, const struct compare_meta *m, const char *caption,
                        const struct flip *v, size_t n, int axes)
{
    struct strbuf sb = STRBUF_INIT;

    strbuf_addf(&sb, "%s: %zu", caption, n);
    report_para(d, sb.buf);
    if (n)
        flips_rows(d, m, v, n, axes);
    if (n > FLIPS_MAX) {
        strbuf_reset(&sb);
        strbuf_addf(&sb, "... and %zu more.", n - FLIPS_MAX);
        report_para(d, sb.buf);
    }
    strbuf_release(&sb);
}

/*
 * A walk over r's cells with a significant regression, the cells the HTML and Markdown lists
 * both show: regressed_next() moves to the next one, with its test t (borrowed from r), its
 * flips f and its title; it returns 0 after the last and has then freed what it held.
 */
struct regressed_walk {
    const struct compare_result *r;
    const struct compare_meta *m;
    size_t i;
    const struct compare_test *t; /* NULL before the first and after the last */
    struct cell_flips f;
    struct strbuf title;
};

static void regressed_walk_init(struct regressed_walk *w, const struct compare_result *r,
                                const struct compare_meta *m)
{
    memset(w, 0, sizeof(*w));
    w->r = r;
    w->m = m;
    strbuf_init(&w->title, 0);
}

static int regressed_next(struct regressed_walk *w)
{
    if (w->t)
        cell_flips_release(&w->f);
    w->t = NULL;
    while (w->i < w->r->n_tests) {
        const struct compare_test *t = &w->r->tests[w->i++];
        if (t->scope != COMPARE_CELL || t->status != CMP_REGRESSION)
            continue;
        w->t = t;
        find_flips(w->m, t, &w->f);
        strbuf_reset(&w->title);
        cell_title(&w->title, t);
        return 1;
    }
    strbuf_release(&w->title);
    return 0;
}

void report_compare_flips_html(struct markup *d, const struct compare_result *r,
                               const struct compare_meta *m)
{
    struct regressed_walk w;
    int any = 0;

    report_heading(d, 2, "Questions that flipped in regressed cells", "flips");
    if (!m || !m->base_trials) {
        report_para(d, "Trials not available: the flipped questions are not listed.");
        return;
    }
    regressed_walk_init(&w, r, m);
    while (regressed_next(&w)) {
        any = 1;
        report_heading(d, 3, w.title.buf, NULL);
        flips_table(d, m, "Correct in the baseline, wrong in the candidate", w.f.lost, w.f.nlost,
                    w.t->axes != NULL);
        flips_table(d, m, "Wrong in the baseline, correct in the candidate", w.f.gained,
                    w.f.ngained, w.t->axes != NULL);
    }
    if (!any)
        report_para(d, "No cell regressed.");
}

/* Grid of the change: depths as rows, lengths as columns; NULL cells where not in both runs. */
struct change_grid {
    long *lengths;
    long *depths; /* depth_bp */
    size_t nl, nd;
    const struct compare_test **cell; /* [d * nl + l] */
};

/* Adds x to the ascending set v[0..*n) unless it is there. */
static void add_sorted(long **v, size_t *n, size_t *alloc, long x)
{
    size_t j;
    for (j = 0; j < *n && (*v)[j] != x; j++)
        ;
    if (j < *n)
        return;
    ALLOC_GROW(*v, *n + 1, *alloc);
    for (j = *n; j > 0 && (*v)[j - 1] > x; j--)
        (*v)[j] = (*v)[j - 1];
    (*v)[j] = x;
    (*n)++;
}

static void grid_build(const struct compare_result *r, struct change_grid *g)
{
    size_t i, al = 0, ad = 0;
    memset(g, 0, sizeof(*g));
    for (i = 0; i < r->n_tests; i++) {
        const struct compare_test *t = &r->tests[i];
        if (t->scope != COMPARE_CELL)
            continue;
        add_sorted(&g->lengths, &g->nl, &al, t->length);
        add_sorted(&g->depths, &g->nd, &ad, t->depth_bp);
    }
    g->cell = xcalloc(g->nl * g->nd + 1, sizeof(*g->cell));
    for (i = 0; i < r->n_tests; i++) {
        const struct compare_test *t = &r->tests[i];
        size_t l, dd;
        if (t->scope != COMPARE_CELL)
            continue;
        for (l = 0; g->lengths[l] != t->length; l++)
            ;
        for (dd = 0; g->depths[dd] != t->depth_bp; dd++)
            ;
        g->cell[dd * g->nl + l] = t;
    }
}

static void grid_release(struct change_grid *g)
{
    free(g->lengths);
    free(g->depths);
    free(g->cell);
}

/* The mark of a tested cell: a regression, an improvement, not tested, or nothing. */
static const char *change_mark(const struct compare_test *t)
{
    switch (t->status) {
    case CMP_REGRESSION:
        return " \xE2\x96\xBC"; /* down-pointing triangle */
    case CMP_IMPROVEMENT:
        return " \xE2\x96\xB2"; /* up-pointing triangle */
    case CMP_NO_DATA:
        return " ?";
    default:
        return "";
    }
}

/*
 * The change grid's colour bands, written once: |change| of at least band_pp[k]
 * percentage points is k steps from the middle (red below zero, green above),
 * judged on the change as the cell shows it (rounded to 0.1 pp, so a cell that
 * reads "-20.0 pp" is in the "<= -20 pp" band). report_change_band() colours the
 * cells by it and change_legend() writes the legend from it.
 */
static const double band_pp[] = {2.5, 10, 20};
#define N_BAND_PP (sizeof(band_pp) / sizeof(band_pp[0]))
static const char *const band_class[] = {"chg-n3", "chg-n2", "chg-n1", "chg-0",
                                         "chg-p1", "chg-p2", "chg-p3"};
_Static_assert(sizeof(band_class) / sizeof(band_class[0]) == 2 * N_BAND_PP + 1,
               "one class per band: both sides of every threshold and the middle");

const char *report_change_band(double change)
{
    char shown[64];
    double pp;
    size_t k = 0;

    if (!isfinite(change))
        return "chg-na";
    /* the value report_pp() prints */
    snprintf(shown, sizeof(shown), "%.1f", fabs(change) < 0.0005 ? 0.0 : change * 100.0);
    pp = strtod(shown, NULL);
    while (k < N_BAND_PP && fabs(pp) >= band_pp[k])
        k++;
    return band_class[pp < 0 ? N_BAND_PP - k : N_BAND_PP + k];
}

/* Colour band of a cell's change in accuracy (candidate - baseline). */
static const char *change_class(const struct compare_test *t)
{
    return t->n_pairs ? report_change_band(-t->drop) : "chg-na";
}

static void change_text(struct strbuf *out, const struct compare_test *t)
{
    if (!t->n_pairs)
        strbuf_addstr(out, "\xE2\x80\x93");
    else
        report_pp(out, -t->drop);
    strbuf_addstr(out, change_mark(t));
}

static const char change_legend_text[] =
    "Change in accuracy, candidate minus baseline, over the pairs valid in both runs. "
    "\xE2\x96\xBC significant regression, \xE2\x96\xB2 significant improvement (Holm-adjusted "
    "p < alpha and a change of at least the tolerance), ? not tested (too few pairs or low "
    "coverage), no mark: no significant change.";

/*
 * The colour legend (HTML; Markdown has no colour), one span per band of
 * band_pp: "<= -20 pp", "-10 to -20", ..., "within +-2.5", ..., ">= +20 pp".
 * The labels are built from constants only (entities and the thresholds).
 */
static void change_legend(struct markup *d)
{
    struct strbuf label = STRBUF_INIT;
    size_t b, n = 2 * N_BAND_PP + 1;

    report_open(d, "p", "legend");
    report_text(d, "Colour:");
    for (b = 0; b < n; b++) {
        strbuf_reset(&label);
        if (b == 0)
            strbuf_addf(&label, "&le; &minus;%g pp", band_pp[N_BAND_PP - 1]);
        else if (b < N_BAND_PP)
            strbuf_addf(&label, "&minus;%g to &minus;%g", band_pp[N_BAND_PP - 1 - b],
                        band_pp[N_BAND_PP - b]);
        else if (b == N_BAND_PP)
            strbuf_addf(&label, "within &plusmn;%g", band_pp[0]);
        else if (b < n - 1)
            strbuf_addf(&label, "+%g to +%g", band_pp[b - N_BAND_PP - 1], band_pp[b - N_BAND_PP]);
        else
            strbuf_addf(&label, "&ge; +%g pp", band_pp[N_BAND_PP - 1]);
        report_text(d, " ");
        report_open(d, "span", band_class[b]);
        report_trusted(d, label.buf);
        report_close(d, "span");
    }
    report_close(d, "p");
    report_nl(d);
    strbuf_release(&label);
}

/*
 * The grid, one description for both formats: depths as rows, lengths as
 * columns, each cell its change (and mark) coloured by its band in HTML.
 */
static void change_grid_write(struct markup *d, const struct change_grid *g)
{
    struct strvec head = STRVEC_INIT;
    struct strbuf sb = STRBUF_INIT, align = STRBUF_INIT;
    size_t l, dd;

    strvec_push(&head, "depth");
    strbuf_addch(&align, 'l');
    for (l = 0; l < g->nl; l++) {
        strbuf_reset(&sb);
        plan_format_length(&sb, g->lengths[l]);
        strvec_push(&head, sb.buf);
        strbuf_addch(&align, 'r');
    }
    report_table_begin_class(d, "change", align.buf, (const char *const *)head.v);
    for (dd = 0; dd < g->nd; dd++) {
        report_row_begin(d, NULL);
        report_cell_depth(d, (int)g->depths[dd]);
        for (l = 0; l < g->nl; l++) {
            const struct compare_test *t = g->cell[dd * g->nl + l];
            strbuf_reset(&sb);
            if (t)
                change_text(&sb, t);
            report_cell_class(d, t ? change_class(t) : "chg-na", sb.buf);
        }
        report_row_end(d);
    }
    report_table_end(d);
    strvec_clear(&head);
    strbuf_release(&sb);
    strbuf_release(&align);
}

void report_compare_heatmap_html(struct markup *d, const struct compare_result *r)
{
    struct change_grid g;

    if (r->has_axes) {
        /* several cells share a (length, depth): the per-cell table names them */
        report_heading(d, 2, "Change by depth and length", "change");
        report_para(d, "Not drawn: with named axes a cell is (length, depth, axes); see the "
                       "per-cell table.");
        return;
    }
    grid_build(r, &g);
    report_heading(d, 2, "Change by depth and length", "change");
    report_para(d, change_legend_text);
    change_grid_write(d, &g);
    change_legend(d);
    grid_release(&g);
}

/* ---- Markdown ---- */

void report_compare_heatmap_md(struct strbuf *out, const struct compare_result *r)
{
    struct markup md = report_markup_md(out);
    struct change_grid g;

    if (r->has_axes) /* several cells share a (length, depth): the cell tables name them */
        return;
    grid_build(r, &g);
    if (g.nl) {
        strbuf_addstr(out, "### Change by depth and length\n\n");
        report_para(&md, change_legend_text);
        change_grid_write(&md, &g);
    }
    grid_release(&g);
}

static void md_flips(struct strbuf *out, const struct compare_meta *m, const char *caption,
                     const struct flip *v, size_t n, int axes)
{
    struct markup md = report_markup_md(out);
    strbuf_addf(out, "%s: %zu\n\n", caption, n);
    if (!n)
        return;
    flips_rows(&md, m, v, n, axes);
    if (n > FLIPS_MAX)
        strbuf_addf(out, "... and %zu more.\n\n", n - FLIPS_MAX);
}

void report_compare_flips_md(struct strbuf *out, const struct compare_result *r,
                             const struct compare_meta *m)
{
    struct regressed_walk w;
    if (!m || !m->base_trials || !r->n_regressions)
        return;
    strbuf_addstr(out, "### Questions that flipped in regressed cells\n\n");
    regressed_walk_init(&w, r, m);
    while (regressed_next(&w)) {
        strbuf_addstr(out, "#### ");
        escape_md(out, w.title.buf);
        strbuf_addstr(out, "\n\n");
        md_flips(out, m, "Correct -> wrong", w.f.lost, w.f.nlost, w.t->axes != NULL);
        md_flips(out, m, "Wrong -> correct", w.f.gained, w.f.ngained, w.t->axes != NULL);
    }
}

/*
 * Private to the report files (report.c: run reports; report_markup.c: the
 * document model; report_plots.c: plots of a run; report_verdict.c: a
 * comparison's verdict and its document (compare.md, compare.html's body);
 * report_compare.c: compare.html and the overlay plot; report_compare_ci.c:
 * JSON, JUnit, annotations, the step summary; view.c: the pages of
 * `dipmap view`): a tiny document model that writes Markdown or HTML from one
 * set of calls, escaping every piece of text in one place. report.h stays the
 * API. The rule (docs/conventions.md): HTML is written only through these
 * calls; no other file writes a tag, and every value from the store, a dataset
 * or a model answer passes report_text() or an attribute of report_open_attrs().
 */
#ifndef REPORT_INT_H
#define REPORT_INT_H

#include "base/strbuf.h"

struct markup {
    struct strbuf *out;
    int html;
    const char *align; /* per column 'l' or 'r' for the current table */
    int col;
    int bare; /* the current table has no scrolling box (report_table_begin_class) */
};
/* A writer of HTML or Markdown into out (borrowed). */
static inline struct markup report_markup_html(struct strbuf *out)
{
    struct markup d = {out, 1, NULL, 0, 0};
    return d;
}
static inline struct markup report_markup_md(struct strbuf *out)
{
    struct markup d = {out, 0, NULL, 0, 0};
    return d;
}

/* A heading (level 1..3) with an optional anchor id (HTML). */
void report_heading(struct markup *d, int level, const char *title, const char *id);
/* A paragraph of untrusted text. */
void report_para(struct markup *d, const char *s);
/*
 * A table: align has one 'l' or 'r' per column, head the column titles
 * (NULL-terminated); rows of cells (escaped), an optional row class (HTML).
 */
void report_table_begin(struct markup *d, const char *align, const char *const *head);
void report_row_begin(struct markup *d, const char *cls);
void report_cell(struct markup *d, const char *s);
void report_cellf(struct markup *d, const char *fmt, ...) DM_PRINTF(2, 3);
void report_row_end(struct markup *d);
void report_table_end(struct markup *d);
/* Cells of a fraction as a percentage, a token length ("32k") and a depth ("12.5%"). */
void report_cell_pct(struct markup *d, double v);
void report_cell_length(struct markup *d, long len);
void report_cell_depth(struct markup *d, int depth_bp);
/* s, or an en dash for NULL. */
const char *report_or_dash(const char *s);
/*
 * A table like report_table_begin() but without the scrolling box, with a
 * class on <table> (HTML; "change" for the change grid); Markdown the same.
 */
void report_table_begin_class(struct markup *d, const char *cls, const char *align,
                              const char *const *head);
/* A cell with a class (HTML: "num CLS" in a right-aligned column); Markdown: the text. */
void report_cell_class(struct markup *d, const char *cls, const char *s);

/*
 * Elements. HTML only: in Markdown they write nothing, so one sequence of
 * calls can carry structure that Markdown lacks. Tag and attribute names are
 * constants of the caller; every value is escaped.
 *
 * report_open: <tag> or <tag class="cls"> (cls NULL: none).
 * report_open_attrs: <tag name="value" ...> from name/value pairs ending in a
 *   NULL name; a NULL value leaves its pair out, REPORT_BARE writes the bare
 *   name (selected).
 * report_close: </tag>. report_nl: a newline.
 */
extern const char report_attr_bare[];
#define REPORT_BARE report_attr_bare
void report_open(struct markup *d, const char *tag, const char *cls);
void report_open_attrs(struct markup *d, const char *tag, ...);
void report_close(struct markup *d, const char *tag);
void report_nl(struct markup *d);
/* Text, escaped for the format (HTML or Markdown); report_textf formats first, then escapes. */
void report_text(struct markup *d, const char *s);
void report_textf(struct markup *d, const char *fmt, ...) DM_PRINTF(2, 3);
/* <tag class="cls">text</tag> (HTML); Markdown: the text. */
void report_element(struct markup *d, const char *tag, const char *cls, const char *s);
/* A paragraph with a class: <p class="cls">text</p> (HTML); Markdown as report_para(). */
void report_para_class(struct markup *d, const char *cls, const char *s);
/* <a href="href">text</a>: href built by the caller (escape_url_component for values). */
void report_link(struct markup *d, const char *href, const char *s);
/* One list item of report_bullets_begin(): <li>text</li> (HTML), "- text" (Markdown). */
void report_item(struct markup *d, const char *s);
/*
 * A fragment that is HTML already and trusted: a constant of this source (an
 * entity, a <code> in a fixed sentence), the page's script. Never a value.
 */
void report_trusted(struct markup *d, const char *html);
/*
 * The <svg>...</svg> element of a gnuplot SVG inlined (trusted: our gnuplot
 * script, every label in it passed escape_gnuplot). -1 when svg has none.
 */
int report_svg(struct markup *d, const char *svg);
/*
 * <figure>: the SVG (or "(plot unavailable)") and the caption: text (escaped),
 * or caption_html, a trusted constant (with caption NULL).
 */
void report_svg_figure(struct markup *d, const char *svg, const char *caption,
                       const char *caption_html);
/* <footer>text</footer> (HTML); Markdown: a rule and a paragraph. */
void report_footer(struct markup *d, const char *s);

/*
 * A page: <!DOCTYPE html> through <body> (charset, an optional
 * Content-Security-Policy meta, the inline CSS and extra_css, a navigation
 * bar) and the escaped title as <title> and <h1>; report_page_end()
 * closes body and html.
 */
struct markup_page {
    const char *title;
    const char *csp; /* the meta Content-Security-Policy, NULL: none (sent as a header) */
    const char *extra_css;
    void (*nav)(struct markup *d); /* writes what comes before <h1>, NULL: nothing */
};
void report_page_begin(struct markup *d, const struct markup_page *p);
void report_page_end(struct markup *d);
/*
 * report.html's and compare.html's page: the CSP forbids network fetches and
 * every script but report.html's sorting script (by its hash, when `script`).
 */
void report_html_page_head(struct markup *d, const char *title, int script);

/* report_questions.c: the question x depth matrices, trial details and example prompt. */
struct report_input;
struct cell_stats;
void report_section_questions(struct markup *d, const struct report_input *in);
/* "18 correct, 2 wrong (1 distractor), 1 truncated" for one (length, depth) cell. */
void report_cell_outcomes(const struct report_input *in, const struct cell_stats *c,
                          struct strbuf *out);
/* One rendered plot: inline SVG (HTML) or an image link to its file (Markdown); nothing if absent.
 */
struct report_plot;
void report_figure(struct markup *d, const struct report_plot *p);
/* report_axes.c: the named axes: values side by side, paired effects */
struct axis_stats;
struct axis_effect;
void report_section_axes(struct markup *d, const struct report_input *in);
/* report_hops.c: two-hop chains (run --hops 2): depth A x depth B, hop distance and order */
void report_section_hops(struct markup *d, const struct report_input *in);
/* Needle-absent trials (run --absent): rates by length and depth (report_absent.c). */
void report_section_absent(struct markup *d, const struct report_input *in);
/* report_ordinal.c: ordinal needles (run --ordinal N): accuracy and neighbour rate by N, depth */
void report_section_ordinal(struct markup *d, const struct report_input *in);
/* The length, distraction and position penalties (run --arm; report_decomp.c), or nothing. */
void report_section_decomp(struct markup *d, const struct report_input *in);
/* "question-at start vs end: -7.2 pp [-10.1, -4.4] (312 pairs, 40 questions)" */
void report_axis_effect_text(struct strbuf *out, const struct axis_stats *a,
                             const struct axis_effect *e);
/* report_flips.c: per regressed cell the flipped questions; the change by depth and length */
struct compare_result;
struct compare_meta;
void report_compare_flips_html(struct markup *d, const struct compare_result *r,
                               const struct compare_meta *m);
void report_compare_heatmap_html(struct markup *d, const struct compare_result *r);
void report_compare_flips_md(struct strbuf *out, const struct compare_result *r,
                             const struct compare_meta *m);
void report_compare_heatmap_md(struct strbuf *out, const struct compare_result *r);
/*
 * The colour band of a change in accuracy (candidate - baseline, a fraction)
 * as the grid shows it: its class ("chg-n3" .. "chg-p3", "chg-na" when not
 * finite). The thresholds are one table in report_flips.c, which also writes
 * the legend.
 */
const char *report_change_band(double change);
/*
 * report_verdict.c: the verdict of a comparison as every format shows it
 * (compare.md, the step summary, compare.html, compare.json, JUnit and the
 * GitHub annotations read this one structure, so they say the same thing).
 */
struct compare_test;
struct compare_endpoint;
struct strvec;
struct verdict_row {
    const struct compare_test *t;      /* borrowed from the result */
    const struct compare_endpoint *ep; /* a primary endpoint's row of compare_endpoints[];
                                          NULL for a cell, an axis value and overall */
    int gated;            /* the gate tests it: primary, or with --gate cells every test but
                             overall */
    int fails;            /* a gated regression: it fails the gate */
    int undecided;        /* gated, no regression, upper bound not below the tolerance (the
                             bound rule): keeps the verdict from PASS */
    const char *decision; /* "regression", "regression (not gated)", "improvement", "within
                             tolerance", "undecided", "not enough data", "ok" */
    double margin;        /* the margin a FAIL claims ("worse by more than"); NAN: the rule
                             states none (then no margin column is shown) */
    int shape_change;     /* a change of the dip's shape reported, not a regression */
};
struct verdict {
    const struct compare_result *r; /* borrowed */
    const struct compare_meta *m;   /* borrowed, may be NULL */
    /* the primary endpoints first (the result's order: per length the table's order), then
       the secondary tests worst first, overall last */
    struct verdict_row *rows;
    size_t n, n_primary;
    size_t n_gated, n_secondary; /* rows the gate tests; rows it does not (but overall) */
    long gated_regressions, gated_improvements, gated_no_data, gated_undecided;
    long secondary_regressions, secondary_improvements; /* among the rows not gated */
    struct strbuf headline;                             /* compare_headline() */
};
void verdict_init(struct verdict *v, const struct compare_result *r, const struct compare_meta *m);
void verdict_release(struct verdict *v);
/* "0.0012" or "3.1e-07" */
void verdict_p(struct strbuf *out, double p);
/* A row's p (Holm; the side of its change), or an en dash when not tested. */
void verdict_row_p(struct strbuf *out, const struct verdict_row *w);
/* "accuracy" or "dip": what the row measures. */
const char *verdict_measure(const struct verdict_row *w);
/* The baseline's (candidate 0) or candidate's value: "55.0%", "dip 13.9 pp", "n/a". */
void verdict_value(struct strbuf *out, const struct verdict_row *w, int candidate);
/* Candidate minus baseline of what the row measures (a fraction; a dip's rise is positive). */
double verdict_change_of(const struct verdict_row *w);
/* verdict_change_of() as "+16.6 pp", "n/a" without pairs. */
void verdict_change(struct strbuf *out, const struct verdict_row *w);
/* "8k dip: dip 13.9 pp -> 30.5 pp (+16.6 pp); worse by +16.6 pp, upper bound ...; Holm p ...;
   regression": one row in one sentence (annotations, JUnit). */
void verdict_sentence(struct strbuf *out, const struct verdict_row *w);
/* "FAIL: 2 of 6 primary endpoints regressed, ...; not gated: ... (alpha 0.05, ...)" */
void verdict_counts(struct strbuf *out, const struct verdict *v);
/* What was tested, one line each: models, golden set, lengths and depths, tokenizer,
   endpoints. */
void verdict_tested(struct strvec *out, const struct verdict *v);
/*
 * The document of a verdict: compare.md and the step summary (Markdown,
 * kept under max_bytes, 0 = no limit, by leaving out table rows) and the body
 * of compare.html (HTML; with the overlay plot svg, may be NULL).
 */
void report_verdict_doc(struct markup *d, const struct verdict *v, const char *svg,
                        size_t max_bytes);

/* report.html's one inline script (sorting), allowed by report_script_csp() */
void report_script(struct markup *d);

void report_bullets_begin(struct markup *d);

void report_bullets_end(struct markup *d);

/* One bullet "label: value" with the label in bold. */
void report_bullet(struct markup *d, const char *label, const char *value);

void report_cell_interval(struct markup *d, double lo, double hi);

void report_add_interval(struct strbuf *out, double lo, double hi);

#endif

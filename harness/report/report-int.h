/*
 * Private to the report files (report.c: run reports; report_markup.c: the
 * document model; report_plots.c: plots of a run; report_compare.c:
 * compare.html, the overlay plot and the verdict writers): a tiny document
 * model that writes Markdown or HTML from one set of calls, escaping every
 * piece of text in one place. report.h stays the API.
 */
#ifndef REPORT_INT_H
#define REPORT_INT_H

#include "base/strbuf.h"

struct markup {
    struct strbuf *out;
    int html;
    const char *align; /* per column 'l' or 'r' for the current table */
    int col;
};

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
 * <!DOCTYPE html> through <body>: charset, the Content-Security-Policy (with
 * script-src for report_script() when `script`) and the inline CSS.
 */
void report_html_page_head(struct strbuf *out, const char *title, int script);

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
/* report.html's one inline script (sorting), allowed by report_script_csp() */
void report_script(struct strbuf *out);

void report_bullets_begin(struct markup *d);

void report_bullets_end(struct markup *d);

/* One bullet "label: value" with the label in bold. */
void report_bullet(struct markup *d, const char *label, const char *value);

void report_cell_interval(struct markup *d, double lo, double hi);

void report_add_interval(struct strbuf *out, double lo, double hi);

#endif

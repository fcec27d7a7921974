#ifndef REPORT_H
#define REPORT_H

#include <stddef.h>

#include "run/trial.h"

struct store;

struct strbuf;
struct run_info;
struct run_stats;
struct golden_set;

/*
 * Run reports (docs/design.md "Outputs"): summary.md (GitHub-flavoured Markdown)
 * and report.html (one self-contained file: inline CSS and SVG, one inline
 * sorting script whose hash report_script_csp() gives, no network fetches). The writers are pure:
 * they take the run's metadata, its statistics, already-rendered plots and a selection of failed
 * trials, and append text to a strbuf. Every string from the run, the dataset or the model is
 * escaped (escape_html / escape_md), so a model answer such as
 * "<script>..." is shown as text and never executed.
 */

/* One failed trial to show, with its question when the golden set is available. */
struct report_failure {
    const struct trial_result *trial; /* borrowed */
    const char *question;             /* borrowed; NULL when unknown */
    const char *const *answers;       /* borrowed expected answers; may be NULL */
    size_t n_answers;
};

/*
 * A question's measured lexical overlap with its gold (docs/axes.md "Lexical overlap"): the share
 * of its distinct tokens found in the gold text (prompt/overlap.h; -1 unknown: no golden set in the
 * store, or no gold chunk) and, per length (ascending), the gold's BM25 rank among its prompts'
 * documents (trial.h gold_bm25_rank: min and max over the question's trials at that length, which
 * differ only between axis values; docs the most documents ranked); no ranks for a run stored
 * before schema 11.
 */
struct report_lexical_rank {
    long length, min, max, docs;
};
struct report_lexical {
    const char *id; /* borrowed from the run's trials */
    double share;
    struct report_lexical_rank *ranks; /* owned by whoever made the table */
    size_t n_ranks;
};
/* The entry of question id in lex[0..n) (sorted by id), or NULL. */
const struct report_lexical *report_lexical_find(const struct report_lexical *lex, size_t n,
                                                 const char *id);
/* e's ranks at length (NULL when e is NULL or has none there). */
const struct report_lexical_rank *report_lexical_rank_at(const struct report_lexical *e,
                                                         long length);
/* "3 / 41" (rank 3 of 41 documents), "1-2 / 41" when the trials' ranks differ. */
void report_lexical_rank_text(struct strbuf *out, const struct report_lexical_rank *rk);

/* One plot, already rendered. */
struct report_plot {
    const char *title; /* heading and alt text, e.g. "Accuracy vs depth (U-curve)" */
    const char *file;  /* file name relative to the report folder for the Markdown
                          image link ("ucurve.svg"), or NULL when not written */
    const char *svg;   /* the SVG document, inlined into the HTML; NULL: not inlined */
};

struct report_input {
    const struct run_info *run;      /* required */
    const struct run_stats *stats;   /* required */
    const struct report_plot *plots; /* may be NULL when n_plots is 0 */
    size_t n_plots;
    const char *plots_note; /* shown where plots would be, e.g. "plots skipped: ..." */
    const struct report_failure *failures;
    size_t n_failures;
    const char *golden_path; /* where the questions came from, or NULL */
    const char *golden_note; /* e.g. "golden set not found: questions not shown" */
    /* golden-set hygiene (hard negatives excluded at load), shown under Provenance; or NULL */
    const char *hygiene_note;
    double generated_at; /* unix time shown in the footer; 0: not shown */
    /* per named axis (stats_axes.h): one curve per value and the paired effects; NULL/0 none */
    const struct axis_stats *axes;
    size_t n_axes;
    const char *axis_pair[2]; /* report --axis-pair A,B: their heatmap (NULL: none) */
    /* the axes' small multiples, n_axes entries (file/svg NULL: not drawn), or NULL */
    const struct report_plot *axis_plots;
    const struct report_plot *axis_pair_plot; /* the --axis-pair heatmap, or NULL */
    /* two-hop chains (stats->hops): per length its depth A x depth B heatmap, or NULL/0 */
    const struct report_plot *hops_plots;
    size_t n_hops_plots;
    /* needle-absent trials (stats->absent): the rates by depth, or NULL */
    const struct report_plot *absent_plot;
    /* the length, distraction and position penalties (stats->decomp): decomp.svg, or NULL */
    const struct report_plot *decomp_plot;

    /*
     * The question x depth matrix and trial details of report.html (all may be
     * NULL/0: the section then says what is missing). trials: every trial of
     * the run (borrowed); golden: the run's golden set for question text,
     * expected answers and distractor values; excerpts[i]: the stored prompt's
     * text around the gold chunk of trials[i] (NULL when not stored);
     * example_prompt: one whole stored prompt, shown collapsed, of the trial
     * example_trial (an index into trials).
     */
    const struct trial_result *trials;
    size_t n_trials;
    const struct golden_set *golden;
    /* per question its overlap and BM25 ranks, sorted by id (NULL/0: none) */
    const struct report_lexical *lexical;
    size_t n_lexical;
    const char *const *excerpts;
    const char *example_prompt;
    size_t example_trial;

    /* An order experiment (order_stats.h): shown instead of the depth sections; or NULL. */
    const struct order_stats *order;
    const char *curve_run; /* the depth run its expectations come from, or NULL */
};

/* Append summary.md / report.html for `in` to out. Never fails. */
void report_markdown(struct strbuf *out, const struct report_input *in);
void report_html(struct strbuf *out, const struct report_input *in);

/*
 * Choose failed trials worth reading: for each length, the (up to) `depths`
 * depths with the lowest accuracy (interior depths first on ties), and in
 * them the trials that did not end correct (wrong, empty, truncated, ...;
 * never pending), at most `per_length` per length, in trial order.
 * Stores pointers into trials[] in *out (malloc'd array, caller frees; NULL
 * when none) and returns how many.
 */
size_t report_pick_failures(const struct trial_result *trials, size_t n, const struct run_stats *s,
                            int depths, size_t per_length, const struct trial_result ***out);

/*
 * Whether report.html gives trial t its own details block (and so needs its
 * prompt excerpt): every trial of a run of at most 4000, else only the ones
 * that did not end correct.
 */
int report_trial_detailed(size_t n_trials, const struct trial_result *t);

/* ---- plots of a run (adapters from run_stats to plot.h's plain arrays) ---- */

struct plot_series;
struct plot_grid;

/*
 * U-curve series: one per length, x = depth in percent, y = accuracy (NAN
 * where a cell has no scored trial), question-clustered interval, edge accuracy and the
 * 25-75% middle's accuracy as levels; labels like "8k tokens".
 * *out is malloc'd with its labels and points; free with report_series_free().
 */
size_t report_ucurve_series(const struct run_stats *s, struct plot_series **out);
void report_series_free(struct plot_series *v, size_t n);

/* The depth x length accuracy grid of a run; release with report_grid_release(). */
void report_grid(const struct run_stats *s, struct plot_grid *g);
void report_grid_release(struct plot_grid *g);

/*
 * Render the run's plots into dir: ucurve.svg/.png and heatmap.svg/.png
 * (formats: PLOT_BOTH or one bit of it), titled with the model and run name.
 * The SVG texts are appended to ucurve_svg / heatmap_svg when non-NULL.
 * Returns PLOT_OK, PLOT_NO_GNUPLOT (nothing printed) or PLOT_FAILED (printed).
 */
/*
 * The small multiples of each named axis (and grouping), axis-NAME.svg/png
 * in dir (dir NULL: nothing written): one panel per value, titled with the
 * value and its scored trials, one line per length (the U-curve's colours),
 * question-clustered bands (stats_axes.h: the rule of the run's own cells),
 * every panel on the same axes. svgs (NULL, or n_axes strbufs) get the SVG
 * texts; the file names written are appended to `written` (may be NULL).
 * Returns a plot_status.
 */
struct axis_stats;
int report_axis_plots(const char *dir, unsigned formats, const struct run_info *run,
                      const struct axis_stats *axes, size_t n_axes, struct strbuf *svgs,
                      struct strbuf *written);
/*
 * report --axis-pair A,B: the heatmap axis-pair-A-B.svg/png (plot.h's
 * heatmap with the values as rows and columns): accuracy of the scored,
 * non-control trials per (A value, B value) over every length and depth,
 * with each cell's trial count. The SVG is appended to svg and the file's
 * name (without extension) to file. Returns a plot_status.
 */
int report_axis_pair_plot(const char *dir, unsigned formats, const struct run_info *run,
                          const struct trial_result *trials, size_t n_trials,
                          const struct axis_stats *axes, size_t n_axes, const char *const pair[2],
                          struct strbuf *svg, struct strbuf *file);
/*
 * Two-hop chains (run --hops 2): per length of h the depth A x depth B heatmap
 * hops-LENGTH.svg/.png, its SVG appended to svg[l] and "hops-LENGTH.svg" and a NUL to files.
 * Returns a plot_status (PLOT_OK when h is NULL).
 */
/*
 * Needle-absent trials (run --absent): absent.svg/.png, two panels (hallucination on the absent
 * twins, false absence with the gold present), the rate by depth, one line per length with its
 * interval; its SVG appended to svg.
 */
struct absent_stats;
int report_absent_plot(const char *dir, unsigned formats, const struct run_info *run,
                       const struct absent_stats *a, struct strbuf *svg);
/*
 * Ordinal needles (run --ordinal N): the scored trials with the axis ordinal, read against the
 * golden set kept in the store (golden_text, NULL: neighbours unknown), into their statistics
 * (stats/ordinal.h; NULL when no trial has the axis; the caller frees with ordinal_stats_free()).
 */
struct trial_result;
struct ordinal_stats;
struct ordinal_stats *report_ordinal_stats(const struct trial_result *t, size_t n,
                                           const char *golden_text, size_t golden_len, double z);

struct hops_stats;
int report_hops_plots(const char *dir, unsigned formats, const struct run_info *run,
                      const struct hops_stats *h, struct strbuf *svg, struct strbuf *files);
int report_run_plots(const char *dir, unsigned formats, const struct run_info *run,
                     const struct run_stats *s, struct strbuf *ucurve_svg,
                     struct strbuf *heatmap_svg);

/* ---- compare --out ---- */

struct compare_result;

/* ---- compare reports (report_compare.c) ---- */

/* Names and notes shown by the writers; any field may be NULL. */
struct compare_meta {
    const struct run_info *baseline;
    const struct run_info *candidate;
    const char *inputs_note; /* e.g. "inputs differ (--allow-different-inputs): ..." */
    /*
     * Both runs' trials (borrowed; may be NULL): with them the Markdown and
     * HTML list, per regressed cell, the questions that flipped with both
     * answers.
     */
    const struct trial_point *base_trials, *cand_trials;
    size_t n_base, n_cand;
    /*
     * The answer of a listed flipped trial (malloc'd; NULL: none), asked only for the
     * pairs a list shows, so a comparison holds the trials' points, not their texts
     * (report_doc.h: compare_answer_from_store). NULL: the lists show no answers.
     */
    char *(*answer)(void *ctx, int candidate, const struct trial_point *p);
    void *answer_ctx;
};

/* Where compare_answer_from_store (report_doc.c) reads a listed flip's answers (borrowed). */
struct compare_answers {
    struct store *base_st, *cand_st;
    const char *base_run, *cand_run;
};
/* compare_meta.answer from the runs' stores (ctx: a struct compare_answers). */
char *compare_answer_from_store(void *ctx, int candidate, const struct trial_point *p);

/*
 * GitHub-flavoured Markdown summary: verdict line, counts, the regressed and
 * improved tests, a per-length table and the worst cells (top-K only), kept
 * under max_bytes (0 = no limit) by dropping table rows, with a note saying
 * so. Every run/model string is escaped.
 */
void report_compare_markdown(struct strbuf *out, const struct compare_result *r,
                             const struct compare_meta *m, size_t max_bytes);

/*
 * $GITHUB_STEP_SUMMARY at path: the bytes a step may still append (GitHub's
 * 1 MiB per step less a 16 KiB margin, less what the file holds); 0, with a
 * warning, when fewer than 2 KiB are left. Give it to
 * report_compare_markdown() as max_bytes (less any text of one's own).
 */
size_t report_step_summary_room(const char *path);
/* Append md to the step summary at path; a failure is a warning. */
void report_step_summary_append(const char *path, const struct strbuf *md);

/*
 * JUnit XML: <testsuites> with one <testsuite> holding one <testcase> per
 * cell, per length (all depths, middle, dip) and one overall; <failure
 * type="regression"> for a regression (a secondary one says it fails the gate
 * only with --gate cells), <failure type="inconclusive"> for a primary
 * endpoint whose upper bound is not below the tolerance and on the overall
 * testcase when the verdict is not PASS (INCONCLUSIVE is never green),
 * <skipped> for not enough data; classname + name unique; time in seconds;
 * text XML-escaped with characters illegal in XML 1.0 removed.
 */
void report_compare_junit(struct strbuf *out, const struct compare_result *r,
                          const struct compare_meta *m);
/*
 * JUnit XML for a comparison refused before any test (different inputs or
 * scoring, exit 4): one testcase "overall" with an <error type="refused">
 * saying why. Run names may be NULL.
 */
void report_compare_junit_error(struct strbuf *out, const char *baseline, const char *candidate,
                                const char *why);
/*
 * The same refusal as Markdown (step summary, compare.md: "## dipmap compare:
 * INCONCLUSIVE", "not compared" and why) and as JSON (schema dipmap.compare/1
 * with "refused": true, the reason in "reasons" and "headline", no tests).
 */
void report_compare_refused_markdown(struct strbuf *out, const char *baseline,
                                     const char *candidate, const char *why);
void report_compare_refused_json(struct strbuf *out, const char *baseline, const char *candidate,
                                 const char *why);
/* The same refusal as compare.html: the verdict INCONCLUSIVE, "not compared" and why. */
void report_compare_refused_html(struct strbuf *out, const char *baseline, const char *candidate,
                                 const char *why);
/* "::error title=dipmap compare refused::WHY" (GitHub Actions), escaped. */
void report_compare_refused_annotation(struct strbuf *out, const char *why);

/* JSON (documented in docs/statistics.md "Scoring, statistics and compare"): options, verdict,
 * reasons, every test. */
void report_compare_json(struct strbuf *out, const struct compare_result *r,
                         const struct compare_meta *m);

/*
 * GitHub Actions annotations: one "::error title=...::message" line per
 * regression (worst first), at most max_lines in total (the last one
 * summarising the rest); nothing when there is no regression. Workflow
 * command data is escaped (%, CR, LF; and : , in properties).
 */
void report_compare_annotations(struct strbuf *out, const struct compare_result *r, int max_lines);

/*
 * The HTML page of a comparison (self-contained like report.html): verdict,
 * reasons, the overlay plot (svg: a gnuplot SVG document, or NULL), per-length
 * and per-cell tests with regressions highlighted, both runs' metadata.
 */
void report_compare_html(struct strbuf *out, const struct compare_result *r,
                         const struct compare_meta *m, const char *svg);

/*
 * For `dipmap compare --out DIR` (after compare.md is written there): draw
 * the overlay of both runs' U-curves (baseline dashed, candidate solid,
 * cells with a significant regression circled) as DIR/compare.svg and .png,
 * link it from DIR/compare.md, and write DIR/compare.html. base/cand are the
 * runs' trials (borrowed). A missing gnuplot only skips the plot, with one
 * warning. Returns 0, or -1 with why appended to err (a file could not be written).
 */
int report_compare_files(const char *dir, const struct compare_result *r,
                         const struct compare_meta *m, const struct trial_point *base, size_t nb,
                         const struct trial_point *cand, size_t nc, struct strbuf *err);

/*
 * compare.html as one page in memory (dipmap view): the same page as
 * report_compare_files() writes, with the overlay plot inlined (left out
 * without gnuplot). Appends to out; returns 0, or -1 with why appended to err.
 */
int report_compare_page(struct strbuf *out, const struct compare_result *r,
                        const struct compare_meta *m, const struct trial_point *base, size_t nb,
                        const struct trial_point *cand, size_t nc, struct strbuf *err);

/*
 * mkdir -p for an output folder. Returns 0 when path is (now) a folder, or
 * -1 after an error naming the folder.
 */
/*
 * The order experiment's plot (accuracy vs k, one line per policy) as
 * order.svg/.png in dir; the SVG also into svg. A plot_status.
 */
struct order_stats;
/*
 * The decomposition's figure (run --arm, stats/decomp.h): each penalty vs length with its
 * interval, as decomp.svg/.png in dir; the SVG also into svg. A plot_status.
 */
struct decomp_stats;
int report_decomp_plot(const char *dir, unsigned formats, const struct run_info *run,
                       const struct decomp_stats *s, struct strbuf *svg);
int report_order_plot(const char *dir, unsigned formats, const struct run_info *run,
                      const struct order_stats *os, struct strbuf *svg);

/*
 * Creates path and its missing parents (mode 0755). 0, or -1 with why appended to err
 * (the folder that could not be made, or path is not a folder); prints nothing.
 */
int report_make_dirs(const char *path, struct strbuf *err);

/* Formatting helpers shared with compare reports. */
/* "95.0%" (one decimal); "–" for a non-finite value. */
void report_pct(struct strbuf *out, double frac);
/* "+12.5 pp" style signed difference in percentage points. */
void report_pp(struct strbuf *out, double frac);
/* "2026-11-30 09:11:15 UTC"; "–" for 0. */
void report_time(struct strbuf *out, double unix_time);

/* The CSS block (without <style>) used by report.html, for other HTML pages. */
const char *report_css(void);

/*
 * The Content-Security-Policy source that allows report.html's one inline
 * script (table sorting, progressive enhancement: the page reads the same
 * without it), e.g. "'sha256-...'" (static string). A server that sends its
 * own CSP header (dipmap view) adds it to script-src.
 */
const char *report_script_csp(void);

#endif

#ifndef REPORT_DOC_H
#define REPORT_DOC_H

#include <stddef.h>

#include "stats/compare.h"
#include "prompt/dataset.h"
#include "stats/order_stats.h"
#include "report/report.h"
#include "stats/stats.h"
#include "stats/stats_axes.h"
#include "store/store.h"
#include "base/strbuf.h"

/*
 * Everything a run report shows, gathered from the store: the run, its
 * trials and statistics, the plots (rendered by the caller into usvg/hsvg,
 * to files by `dipmap report`, in memory by `dipmap view`), and the failed
 * trials with their questions when the golden set can be read. One place for
 * `report` and `view`, so both show the same report. Life cycle:
 * report_doc_init(), report_doc_load(), report_doc_plots(),
 * report_doc_failures(), then use d->in; report_doc_release().
 */
struct report_doc {
    struct run_info run;
    struct trial_result *trials;
    size_t ntrials;
    struct trial_point *points; /* of trials (borrowing their strings): what statistics read */
    struct run_stats stats;
    int have_stats;
    struct axis_stats *axes; /* the run's named axes (stats_axes.h), NULL/0 without */
    /* per question (with trials) its overlap and BM25 ranks, sorted by id (report.h) */
    struct report_lexical *lexical;
    size_t n_lexical;
    size_t n_axes;
    struct strbuf usvg, hsvg; /* U-curve and heatmap SVG, filled by the caller */
    /* report_doc_axis_plots(): per axis its small multiples; the --axis-pair heatmap */
    struct strbuf *axis_svg;        /* n_axes */
    struct report_plot *axis_plots; /* n_axes; NULL: not drawn */
    struct strbuf axis_files;       /* the file names, NUL-separated, kept for axis_plots */
    struct strbuf pair_svg, pair_file;
    struct report_plot pair_plot;
    int have_pair_plot;
    /* two-hop chains (stats.hops): per length its depth A x depth B heatmap */
    struct strbuf *hops_svg;        /* stats.hops->n_lengths */
    struct report_plot *hops_plots; /* NULL: not drawn */
    struct strbuf hops_files;       /* the file names, NUL-separated */
    size_t n_hops_plots;
    /* needle-absent trials (stats.absent): absent.svg */
    struct strbuf absent_svg;
    struct report_plot absent_plot;
    int have_absent_plot;
    /* the decomposition (stats.decomp): decomp.svg */
    struct strbuf decomp_svg;
    struct report_plot decomp_plot;
    int have_decomp_plot;
    struct strbuf plots_note, golden_note, hygiene_note;
    struct report_plot plots[2];
    const struct trial_result **picked;
    struct report_failure *fails;
    size_t nfail;
    struct golden_set gs;
    int have_golden;
    char *golden;
    char **excerpts;      /* per trial: stored prompt around the gold, or NULL */
    char *example_prompt; /* one whole stored prompt, or NULL */
    char *golden_text;    /* the run's golden set as kept in the store, or NULL */
    size_t golden_len;
    struct report_input in; /* ready after report_doc_failures() */
    /*
     * An order experiment (trials with the axes policy and k): its statistics,
     * with expectations from the newest complete depth run of the same model, template
     * and tokenizer in the store (curve_run, NULL when there is none).
     */
    struct order_stats order;
    int have_order;
    char *curve_run;
};

void report_doc_init(struct report_doc *d);
/*
 * Load run `name` and compute its statistics with `o` (NULL: defaults).
 * Returns 0; 1 when there is no such run (nothing printed); -1 after an
 * error (store failure; an invalid option, with its reason in err).
 */
int report_doc_load(struct report_doc *d, struct store *st, const char *name,
                    const struct stats_options *o, struct strbuf *err);
/*
 * Record the outcome of rendering the plots (a plot_status, or -2 for
 * "not drawn on request"): with PLOT_OK the SVGs in usvg/hsvg are inlined,
 * otherwise a note says why there are no plots.
 */
void report_doc_plots(struct report_doc *d, int plot_status);
/*
 * Render the small multiples of every axis (report_axis_plots) and, with
 * pair (NULL or two axis names), the axis-pair heatmap into dir (NULL: SVG
 * in memory only, dipmap view), for the Axes section. The names written are
 * appended to written (may be NULL). Returns a plot_status; nothing is
 * shown for plots that failed.
 */
int report_doc_axis_plots(struct report_doc *d, const char *dir, unsigned formats,
                          const char *const *pair, struct strbuf *written);
/*
 * Pick the failed trials worth reading and attach their questions from
 * `dataset` (NULL: the golden set recorded in the run's settings), with a
 * note when it cannot be read or has changed since the run (also warned).
 * Then fills d->in.
 */
void report_doc_failures(struct report_doc *d, const char *dataset, double generated_at);
/*
 * With prompts stored in the run (--store-prompts): for each trial that gets
 * a details block, the prompt's text around the gold chunk (needs the golden
 * set), and one whole prompt as the example (a failed trial at a worst depth
 * when there is one). Call after report_doc_failures(). Store errors only
 * leave the excerpts out.
 */
void report_doc_prompts(struct report_doc *d, struct store *st);
void report_doc_release(struct report_doc *d);

/*
 * Two runs compared, gathered from the store: both runs' trials (the
 * baseline's from base_st, which may be the candidate's store), the result
 * of compare_runs() and the compare_meta the writers take, with a note when
 * the runs' inputs differ or they were scored differently (run_identity.h).
 * One place for `compare` and `view`, so both pair and describe the runs
 * alike. Life cycle: compare_doc_init(), compare_doc_load(), use d->res and
 * d->meta; compare_doc_release().
 */
struct compare_doc {
    /* both runs' points (trial.h); answers are read from the stores when a list shows them */
    struct trial_point_set base, cand;
    const struct trial_point *base_trials, *cand_trials; /* base.v, cand.v */
    size_t n_base, n_cand;
    struct compare_answers answers; /* the stores and runs given to compare_doc_load */
    struct compare_result res;
    int have_res;
    struct compare_meta meta;
    struct strbuf note; /* meta.inputs_note when set */
};

void compare_doc_init(struct compare_doc *d);
/*
 * Compare run bi (in base_st) with run ci (in cand_st) under o (NULL:
 * defaults); bi, ci and both stores are borrowed and must outlive d (a list of flips reads answers
 * from the stores). forced: the caller was told to compare runs that differ, and the note names the
 * options that said so (--allow-different-inputs, --allow-different-scoring). Returns 0, or -1
 * after a store error (printed).
 */
int compare_doc_load(struct compare_doc *d, struct store *base_st, struct store *cand_st,
                     const struct run_info *bi, const struct run_info *ci,
                     const struct compare_options *o, int forced);
void compare_doc_release(struct compare_doc *d);

#endif

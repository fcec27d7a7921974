#ifndef TREND_H
#define TREND_H

#include <stddef.h>

#include "stats/compare.h"
#include "stats/stats.h"
#include "store/store.h"

struct strbuf;

/*
 * The trend of a set of runs (a tag or a model prefix), oldest first: per run
 * its statistics (edge, middle (25-75%) and dip per length, with bootstrap
 * intervals) and the verdict of the comparison the nightly job makes
 * (`compare --latest --against last-pass`, README "nightly"): with the newest
 * earlier complete run that passed its own comparison (trend_last_pass()'s
 * walk), so a regression that persists is ringed on every night it lasts.
 * Drawn by `dipmap plot --tag`, shown by `dipmap view /trend`.
 */
struct trend_run {
    struct run_stats stats;
    int have_stats;
    long prev;    /* index of the run it was compared with (the last passing run), -1 none */
    int compared; /* 1 when compared; 0: no earlier complete run */
    enum compare_verdict verdict;
    long regressions; /* primary endpoints that regressed (what the gate tested) */
};

struct trend {
    struct run_info *runs; /* store_run_list() order: oldest created first; only the runs
                              of the newest run's series (run_identity_same_series()) */
    size_t n;
    size_t n_other; /* runs matching the filter left out: another series */
    size_t n_all;   /* runs[] as allocated (n + n_other) */
    struct trend_run *t;
    long *lengths; /* every length of any run, ascending */
    size_t nlen;
};

/*
 * The run runs[i] is compared against by default ("--against previous"): the
 * newest earlier run whose status is complete and that is of the same series
 * (run_identity_same_series(): inputs and trial matrix). -1 when there is none.
 */
long trend_previous(const struct run_info *runs, size_t i);

/*
 * The run runs[i] is compared against with "--against last-pass": the newest
 * earlier run of its series whose own comparison passed, so that a regression
 * that persists keeps failing. Walking the series' complete runs before i
 * oldest first, the first is the first baseline and each later one that
 * PASSes against the current baseline (compare_runs() with opt) becomes the
 * next. Trials come from st. Returns the index, -1 when no earlier complete
 * run of the series exists, -2 after an error (printed).
 */
long trend_last_pass(struct store *st, const struct run_info *runs, size_t i,
                     const struct compare_options *opt);

/*
 * Load the runs matching f with their statistics and comparisons (default
 * compare options). Returns 0, 1 when no run matches (nothing printed), -1
 * after an error (with the reason in err for statistics errors).
 */
int trend_load(struct trend *tr, struct store *st, const struct run_filter *f, struct strbuf *err);
void trend_release(struct trend *tr);

/*
 * Draw the trend: one point per run (x = run index, each tick labelled with
 * the run name), edge, middle (25-75%) and dip per length with their intervals,
 * the dip of runs whose comparison failed ringed. Into dir (NULL: SVG only,
 * appended to svg). Returns a plot_status.
 */
int trend_plot(const struct trend *tr, const char *what, const char *dir, unsigned formats,
               struct strbuf *svg);

#endif

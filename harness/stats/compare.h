#ifndef COMPARE_H
#define COMPARE_H

#include <stddef.h>

#include "run/trial.h"

struct strbuf;
struct run_info;

/*
 * Paired regression verdicts between two runs of the same trial matrix
 * (dipmap compare). Trials are paired by (question, length, depth, repeat, axes);
 * only pairs where both trials are valid (correct/wrong) count. The question
 * is the unit: for every (length, depth) cell, every length and overall, the
 * per-question difference (baseline correct minus candidate correct over the
 * question's pairs in that scope) enters an exact one-sided sign-flip test
 * (stats.h signflip_drop_p), which is the exact McNemar test when each
 * question has one pair in the scope (a cell with one repeat). The p-values
 * of the cells and lengths are Holm-adjusted as one family (gains likewise,
 * as a second family). A regression is adjusted p < alpha AND a drop >=
 * tolerance. Pure functions: no I/O.
 */

struct compare_options {
    double alpha;        /* default 0.05 */
    double tolerance;    /* minimum absolute accuracy drop, default 0.05 */
    long min_pairs;      /* valid pairs a cell (or length) needs to be tested, default 10 */
    double min_coverage; /* valid pairs / trial keys in either run, per cell and overall
                            (default 0.8); below it the cell is "not enough data" */
    int exclude_known;   /* leave out questions answered correctly closed-book in either run
                            (control trials, trial.h, are never tested themselves) */
};
void compare_options_init(struct compare_options *o);

/*
 * With named axes (axes.h) a cell is (length, depth, axes): each axis
 * combination is tested on its own. When length and depth are the same for
 * every pair (the order experiment) a cell is its axes alone and there are
 * no length tests. COMPARE_AXIS pools one axis value (name=value) over
 * everything else (every length, depth and other axis value); it is made
 * for each axis with more than one value, except when the cells are axes
 * alone and the run has a single such axis (the line would repeat a cell).
 */
enum compare_scope { COMPARE_CELL, COMPARE_LENGTH, COMPARE_OVERALL, COMPARE_AXIS };

enum compare_status {
    CMP_OK,          /* tested, no significant change beyond tolerance */
    CMP_REGRESSION,  /* significant drop >= tolerance */
    CMP_IMPROVEMENT, /* significant gain >= tolerance */
    CMP_NO_DATA      /* too few valid pairs or coverage too low: not tested */
};
/* "ok", "regression", "improvement", "not enough data". */
const char *compare_status_name(enum compare_status s);

struct compare_test {
    enum compare_scope scope;
    long length;  /* 0 for overall */
    int depth_bp; /* -1 for length and overall */
    long n_keys;  /* distinct trial keys in either run (pending excluded) */
    long n_pairs; /* valid in both */
    long both_correct, base_only, cand_only, both_wrong; /* base_only = b (drops) */
    double coverage;                                     /* n_pairs / n_keys */
    double acc_base, acc_cand;
    double drop;                   /* acc_base - acc_cand over the pairs */
    size_t n_questions;            /* questions (clusters) with a valid pair */
    int n_repeats;                 /* distinct repeats among the valid pairs */
    double p_drop, p_gain;         /* exact one-sided sign-flip test over questions */
    double p_drop_adj, p_gain_adj; /* Holm-adjusted; 1 when not tested */
    enum compare_status status;
    char *axes;    /* owned: a cell's axes, canonical ("k=10;policy=source"), or an axis
                      test's "name=value"; NULL without axes */
    int axes_only; /* a cell named by its axes alone (length and depth constant) */
};

enum compare_verdict { VERDICT_PASS, VERDICT_FAIL, VERDICT_INCONCLUSIVE };
/* "PASS", "FAIL", "INCONCLUSIVE". */
const char *compare_verdict_name(enum compare_verdict v);

struct compare_result {
    struct compare_options opt;
    /* cells by (length, depth, axes), then one per length, then one per axis value
       (COMPARE_AXIS), then the overall test last */
    struct compare_test *tests;
    size_t n_tests;
    size_t n_family; /* tests in the Holm family (not NO_DATA, not overall) */
    enum compare_verdict verdict;
    long n_regressions, n_improvements, n_no_data;
    long baseline_only_keys;  /* keys with a trial only in the baseline */
    long candidate_only_keys; /* keys with a trial only in the candidate */
    size_t n_questions;       /* questions with a valid pair */
    int n_repeats;
    size_t n_known; /* questions answered correctly closed-book in either run */
    int has_axes;   /* some pair has named axes */
    int axes_only;  /* cells are (axes) alone: length and depth constant */
    /* human sentences saying why the verdict is inconclusive (owned) */
    char **reasons;
    size_t n_reasons;
};

/*
 * Compare base[0..nb-1] with cand[0..nc-1] (borrowed). opt NULL = defaults.
 * Fills *out (initialised here; release with compare_result_release()).
 * Verdict: FAIL when any cell or length regressed; otherwise INCONCLUSIVE
 * when there are no pairs, overall coverage is below min_coverage, or some
 * cell/length was not tested; otherwise PASS.
 */
void compare_runs(const struct trial_result *base, size_t nb, const struct trial_result *cand,
                  size_t nc, const struct compare_options *opt, struct compare_result *out);
void compare_result_release(struct compare_result *r);

/*
 * Warnings about how far the verdict can be trusted (stats.h rules): fewer
 * than STATS_MIN_QUESTIONS questions with a valid pair, more repeats than
 * questions, tests resting on fewer than STATS_MIN_CLUSTERS questions. One
 * sentence each, appended to out.
 */
struct strvec;
void compare_warnings(const struct compare_result *r, struct strvec *out);

/*
 * "overall", "32k (all depths)", "32k @ 12.5%", "32k @ 12.5%, question-at=start",
 * "k=10, policy=source" (a cell of axes alone) or "policy=source (pooled)": the
 * name of a test in reasons and reports.
 */
void compare_test_name(struct strbuf *out, const struct compare_test *t);

#endif

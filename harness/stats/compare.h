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
 * is the unit: every test takes per question the difference its pairs in the
 * test's scope make (baseline correct minus candidate correct) and an exact
 * one-sided sign-flip test over questions (stats.h signflip_drop_p; the exact
 * McNemar test when each question has one pair in the scope).
 *
 * The primary endpoints (pre-specified; the gate): for every length
 *   - all depths: the accuracy drop over the length's pairs;
 *   - middle: the drop of the middle band, the mean accuracy of the middle
 *     depths (stats.h stats_depth_role(): interior depths in 25-75%);
 *   - dip: the dip's increase, candidate dip - baseline dip, dip = edge -
 *     middle as in the report (edge = the mean of the shallowest and deepest
 *     depth's accuracy). It equals the middle's drop minus the edges' drop.
 * (A length with fewer than 3 depths has no middle and no dip. Runs whose
 * cells are axes alone, the order experiment, have no lengths: there the
 * cells are the primary endpoints.) Their p-values are Holm-adjusted as one
 * family (gains likewise). The secondary family: every (length, depth, axes)
 * cell and pooled axis value, Holm over those.
 *
 * The decision statistics are anytime-valid betting tests and confidence
 * bounds (sequential.h seq_bet_*; Waudby-Smith and Ramdas 2024) on the
 * per-question differences x_q, the question's own endpoint (each depth the
 * mean of its pairs there, the depths weighted as the endpoint weighs them:
 * x_q in [-1, 1], the dip's in [-2, 2]), taken in the order the questions
 * entered (opt.order; the others in the order of a hash of their id, which no
 * outcome follows: ids often group questions by topic). They hold whatever the distribution of
 * x_q (a drop concentrated on whole questions included), at any number of
 * questions and under optional stopping (the gate's rounds, a later compare
 * over more questions), with no normal approximation.
 *
 * A regression (status CMP_REGRESSION) is the claim "worse by more than the
 * fail margin delta" (compare_fail_margin(): --fail-margin, default half the
 * tolerance): Holm-adjusted p_drop < alpha, p_drop the test of "drop <=
 * delta", so P(a regression is claimed anywhere | every true drop <= delta)
 * <= alpha. A dip is a regression only when, beside that, its length's
 * middle band dropped (the middle's p_any_drop, the test of "middle drop <=
 * 0", below alpha): a dip grown from better edges with the middle unchanged
 * is a change of shape (shape_change), never a regression. An improvement
 * is the mirror claim (better by more than delta).
 *
 * The estimate of a middle or dip endpoint weights its depths equally (the
 * report's cell means); its sign-flip test gives each question the integer
 * E * (middle pairs' differences) - M * (edge pairs' differences) for a dip
 * over M middle and E edge depths (the same weights when every depth has the
 * same pairs per question).
 *
 * The bounds: every test carries the one-sided (1 - alpha) anytime-valid
 * upper and lower bounds on its drop (upper, lower). compare_upper_bound(),
 * the older question-clustered t bound, gives the standard error (se) the
 * detectable drop is planned with: the
 * estimate is a sum of per-question contributions u_q; with x_q = Q u_q
 * (the question's own drop, in accuracy units) the bound is mean(x) +
 * t(Q - 1) * s / sqrt(Q), s the standard deviation of x augmented by two
 * pseudo-questions x = +1 and x = -1 (one that lost the endpoint entirely,
 * one that gained it: the Agresti-Caffo idea, so that no discordance in a
 * small sample does not give a zero-width bound). The planner's normal model
 * (power.h power_mde_se()) turns that standard error into the drop
 * detectable at 80% power. The questions a decision needs (need_q) come from
 * what was observed: the betting test run on, the questions so far repeated
 * in their order (assumption: later questions differ as these did), until
 * the upper bound falls below the tolerance or the drop beyond the margin is
 * significant (at alpha).
 *
 * The verdict (COMPARE_PASS_BOUND, the default):
 *   FAIL          a primary regression (with COMPARE_GATE_CELLS also any
 *                 secondary regression);
 *   PASS          otherwise, when every primary endpoint was tested and its
 *                 upper bound is below the tolerance (an intersection-union
 *                 test: PASS wrongly claims "no drop >= tolerance" with
 *                 probability <= alpha, no multiplicity adjustment needed);
 *   INCONCLUSIVE  otherwise, with reasons (data missing, or which bounds are
 *                 not below the tolerance and how many questions a decision
 *                 needs if later questions differ as these did).
 * COMPARE_PASS_NO_REGRESSION is the older rule: PASS when no regression
 * (worse by more than the fail margin) was shown, which does not show that no
 * regression larger than the tolerance exists (the reports say so, with the
 * detectable drop).
 * Pure functions: no I/O.
 */

/* What can fail the gate. */
enum compare_gate {
    COMPARE_GATE_PRIMARY, /* the primary endpoints (default) */
    COMPARE_GATE_CELLS    /* the primary endpoints and the secondary cells and axis values */
};
/* What PASS means. */
enum compare_pass_rule {
    COMPARE_PASS_BOUND,        /* every primary upper bound below the tolerance (default) */
    COMPARE_PASS_NO_REGRESSION /* no significant regression (does not show safety) */
};

/* compare_options_init()'s; gate and plan start from them too, and every help states them. */
#define COMPARE_DEFAULT_ALPHA     0.05
#define COMPARE_DEFAULT_TOLERANCE 0.05

struct compare_options {
    double alpha;           /* default COMPARE_DEFAULT_ALPHA */
    double tolerance;       /* minimum absolute accuracy drop, default COMPARE_DEFAULT_TOLERANCE */
    long min_pairs;         /* valid pairs a cell (or length) needs to be tested, default 10 */
    double min_coverage;    /* valid pairs / trial keys in either run, per cell and overall
                               (default 0.8); below it the cell is "not enough data" */
    int exclude_known;      /* leave out questions answered correctly closed-book in either run
                               (control trials, trial.h, are never tested themselves) */
    enum compare_gate gate; /* default COMPARE_GATE_PRIMARY */
    enum compare_pass_rule pass_rule; /* default COMPARE_PASS_BOUND */
    double bound_alpha;               /* one-sided level of the PASS bounds; 0 (default) = alpha */
    double fail_margin; /* FAIL claims "worse by more than fail_margin" (absolute, as the
                           tolerance); < 0 (default): half the tolerance */
    const char **order; /* borrowed, may be NULL: question ids in the order they entered
                           (the gate's rounds); the betting tests take the questions in this
                           order, the others after them in the order of their ids' hashes */
    size_t n_order;
    /*
     * The hallucination endpoint (gate --hallucination-margin; < 0, the default: off): the
     * needle-absent twins (run --absent, trial.h trial_is_absent()) paired by key, each
     * question's difference in abstentions tested by the same betting test as every endpoint;
     * FAIL when the candidate's hallucination rate is higher by more than this margin (p of
     * "rise <= margin" below alpha, tested on its own beside the primary family: with it on,
     * a false FAIL can happen at up to alpha more). A run pair without absent twins leaves it
     * untested (not enough data, no reason for INCONCLUSIVE).
     */
    double halluc_margin;
};
void compare_options_init(struct compare_options *o);
/* The fail margin in force: o->fail_margin, or half the tolerance when it is < 0. */
double compare_fail_margin(const struct compare_options *o);
/* The error rate of the bounds in force: o->bound_alpha, or alpha when it is 0. */
double compare_bound_level(const struct compare_options *o);

/*
 * With named axes (axes.h) a cell is (length, depth, axes): each axis
 * combination is tested on its own. When length and depth are the same for
 * every pair (the order experiment) a cell is its axes alone and there are
 * no length tests. COMPARE_AXIS pools one axis value (name=value) over
 * everything else (every length, depth and other axis value); it is made
 * for each axis with more than one value, except when the cells are axes
 * alone and the run has a single such axis (the line would repeat a cell).
 */
enum compare_scope {
    COMPARE_CELL,
    COMPARE_LENGTH, /* primary: all depths of a length */
    COMPARE_OVERALL,
    COMPARE_AXIS,
    COMPARE_MIDDLE, /* primary: a length's middle band */
    COMPARE_DIP,    /* primary: a length's dip (drop = the dip's increase) */
    COMPARE_HALLUC  /* the hallucination endpoint (compare_options.halluc_margin): the rate on
                       the needle-absent twins (run --absent), drop = its rise */
};
/* "cell", "length", "overall", "axis", "middle", "dip", "hallucination" (the JSON scope names). */
const char *compare_scope_name(enum compare_scope s);

/*
 * The primary endpoints of a length: ONE table (compare.c compare_endpoints[]),
 * in the order compare tests them, the planner (power.c) models them, every
 * report lists them and the validation study (tests/validate/gate_rates.c)
 * counts them. An endpoint is a weighted mean of its depths' accuracies: the
 * depths of a role (stats.h stats_depth_role()) weigh 1 / (depths of that
 * role), times the role's sign below; "all depths" weighs every depth alike.
 */
struct compare_endpoint {
    enum compare_scope scope; /* COMPARE_LENGTH, COMPARE_MIDDLE, COMPARE_DIP */
    const char *name;         /* the JSON scope name: "length", "middle", "dip" */
    const char *label;        /* after the length in a table: "(all depths)", "middle (25-75%)" */
    const char *phrase;       /* in a sentence, before " at 32k": "the middle (25-75%)" */
    const char *measure;      /* what it measures: "accuracy" or "dip" (edge - middle) */
    int worse_up;             /* direction: 1 when a rise is the worsening (the dip), 0 a fall */
    /* the power model (power.h): the sign of each role's weight, 0 = not in the endpoint */
    int all_depths;       /* every depth weighs 1/N (then the roles below are unused) */
    int w_middle, w_edge; /* middle depths: +1/M; edge depths: -1/E (the dip) */
};
#define COMPARE_N_ENDPOINTS 3
extern const struct compare_endpoint compare_endpoints[COMPARE_N_ENDPOINTS];
/* A primary scope's row of compare_endpoints[]; NULL for cells, axis values and overall. */
const struct compare_endpoint *compare_endpoint_of(enum compare_scope s);

enum compare_status {
    CMP_OK,          /* tested, no significant change beyond tolerance */
    CMP_REGRESSION,  /* worse by more than the fail margin (Holm p_drop_adj < alpha; a dip
                        also needs its middle to have dropped) */
    CMP_IMPROVEMENT, /* better by more than the fail margin (Holm p_gain_adj < alpha) */
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
    double acc_base, acc_cand;     /* the endpoint in each run: accuracy over the pairs; for
                                      middle the mean of the middle depths' accuracies; for dip
                                      the dip (edge - middle) */
    double drop;                   /* acc_base - acc_cand; for dip acc_cand - acc_base (the dip's
                                      increase): a positive drop is always a worsening */
    size_t n_questions;            /* questions (clusters) with a valid pair */
    int n_repeats;                 /* distinct repeats among the valid pairs */
    double p_drop, p_gain;         /* anytime-valid betting p-values of "drop <= fail margin"
                                      (p_drop: small = worse by more than the margin) and of
                                      "drop >= -fail margin" (p_gain: better by more) */
    double p_drop_adj, p_gain_adj; /* Holm-adjusted; 1 when not tested */
    double p_signflip_drop, p_signflip_gain; /* the exact one-sided sign-flip test of any drop
                                                (gain) over questions: descriptive, decides
                                                nothing */
    double p_any_drop; /* betting p-value of "drop <= 0": for a middle band, what its dip's
                          regression needs below alpha */
    double lower;      /* one-sided (1 - bound_alpha) anytime-valid lower bound on drop (the
                          FAIL side: drop > margin is claimed when the Holm p says so) */
    int shape_change;  /* dip only: grew by more than the margin (Holm p_drop_adj < alpha)
                          while the middle did not drop: reported as a change of shape, not a
                          regression (status CMP_OK) */
    enum compare_status status;
    int primary;  /* in the primary family (the gate) */
    double se;    /* question-clustered standard error of drop (compare_upper_bound()) */
    double upper; /* one-sided (1 - bound_alpha) anytime-valid upper bound on drop (betting) */
    double mde;   /* drop detectable at 80% power at the test's planned level (alpha / family
                     size, Holm's first step); < 0 when not estimable */
    long need_q;  /* questions at which this endpoint would be decided (upper bound below
                     the tolerance, or drop beyond the margin significant at alpha) if later
                     questions differ as the observed ones did (their sequence repeated); 0
                     when not estimable, -1 when not within 10 times the questions observed
                     (at least 1000) */
    int n_edge, n_middle; /* middle and dip: the depths in each role */
    char *axes;           /* owned: a cell's axes, canonical ("k=10;policy=source"), or an axis
                             test's "name=value"; NULL without axes */
    int axes_only;        /* a cell named by its axes alone (length and depth constant) */
};

enum compare_verdict { VERDICT_PASS, VERDICT_FAIL, VERDICT_INCONCLUSIVE };
/* "PASS", "FAIL", "INCONCLUSIVE". */
const char *compare_verdict_name(enum compare_verdict v);

struct compare_result {
    struct compare_options opt;
    /* cells by (length, depth, axes), then per length its all-depths, middle and dip
       tests, then one per axis value (COMPARE_AXIS), then the overall test last */
    struct compare_test *tests;
    size_t n_tests;
    size_t n_family;         /* tests in the secondary Holm family (cells, axis values; tested) */
    size_t n_primary;        /* tests in the primary family (tested or not) */
    size_t n_primary_family; /* primary tests Holm-adjusted together (tested) */
    enum compare_verdict verdict;
    long n_regressions, n_improvements, n_no_data; /* over every test but overall */
    long n_primary_regressions;
    long n_primary_no_data;
    long n_primary_over;      /* primary tests whose upper bound is >= the tolerance */
    long need_questions;      /* the questions a decision needs from what was observed: the
                                 largest need_q of the primary tests (0 when none, -1 when one
                                 is not within its cap) */
    long n_shape_changes;     /* primary dips with shape_change */
    int halluc_regression;    /* the hallucination endpoint rose by more than its margin */
    double max_mde;           /* the largest detectable drop of the primary tests */
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
 * Verdict as above; also INCONCLUSIVE (never PASS) when there are no pairs,
 * overall coverage is below min_coverage, or a primary test (with
 * COMPARE_GATE_CELLS or COMPARE_PASS_NO_REGRESSION: any test) lacks data.
 * The sequential gate calls this on the trials of the rounds so far with the
 * round's alpha and bound_alpha.
 */
void compare_runs(const struct trial_point *base, size_t nb, const struct trial_point *cand,
                  size_t nc, const struct compare_options *opt, struct compare_result *out);
void compare_result_release(struct compare_result *r);

/*
 * The question-clustered one-sided upper bound of the drop from the
 * per-question drops x[0..n-1] (x_q = Q u_q above; the estimate is their
 * mean): mean(x) + t(n - 1) * s / sqrt(n), s the sample standard deviation
 * of x with the two pseudo-questions +1 and -1 added, t the one-sided (1 -
 * level) quantile. *se (may be NULL) gets s / sqrt(n). n == 0: returns 1 (no
 * bound), *se = 1.
 */
double compare_upper_bound(const double *x, size_t n, double level, double *se);

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

/*
 * The verdict in one line, appended to out (stdout, compare.json "headline",
 * the demo): where the regression is, what a PASS rules out, or why it is
 * inconclusive, e.g. "FAIL: the middle (25-75%) at 32k -12.1 pp (Holm p
 * 0.001); the dip at 32k +9.8 pp (Holm p 0.004)".
 */
void compare_headline(struct strbuf *out, const struct compare_result *r);

/*
 * "the middle (25-75%) at 32k", "the dip at 32k", ...: a primary test named
 * for a sentence; the same as compare_test_name() for other tests.
 */
void compare_endpoint_name(struct strbuf *out, const struct compare_test *t);

#endif

#ifndef STATS_H
#define STATS_H

#include <stddef.h>

#include "prompt/order.h"
#include "stats/effective_length.h"
#include "run/trial.h"

/*
 * Statistics over one run's trials: per-(length, depth) cells with
 * question-clustered intervals and coverage, per-length edge/middle/dip with
 * a seeded question (cluster) bootstrap, effective length, and ordering
 * advice for RAG pipelines. Also the exact tests used by compare (McNemar,
 * the paired sign-flip test over questions, Holm).
 * Pure functions: no I/O, no globals; results are reproducible for a seed.
 *
 * The question is the unit of every interval: all of a question's trials
 * (depths, repeats) share the question, so they are one cluster.
 * Only OUTCOME_CORRECT / OUTCOME_WRONG trials enter accuracies ("valid");
 * every other outcome is counted per cell as coverage, never as wrong.
 */

/* ---- small statistical building blocks ---- */

/* z for a two-sided 95% interval */
#define STATS_Z95 1.959963984540054

/*
 * Wilson score interval for k successes in n trials at normal quantile z.
 * n == 0 gives [0, 1].
 */
void wilson_interval(long k, long n, double z, double *lo, double *hi);
/* The same at a proportion p and an effective (possibly fractional) size n. */
void wilson_interval_p(double p, double n, double z, double *lo, double *hi);

/*
 * Design effect of a clustered proportion: m[i] trials with y[i] successes
 * in cluster i (n clusters, clusters with m[i] == 0 ignored). The ratio of
 * the cluster-robust (CR1) variance of sum(y)/sum(m) to the binomial one,
 * at least 1. Exactly 1 when every cluster holds one trial. When it cannot
 * be estimated (fewer than 2 clusters, or every trial alike) the clusters
 * are taken as perfectly correlated: sum(m) / clusters.
 */
double cluster_design_effect(const long *m, const long *y, size_t n);
/*
 * The question-clustered interval of a proportion, the one rule of every
 * accuracy interval (cells, controls, axis values and their depth curves,
 * order cells): over clusters m[i] trials / y[i] successes, Wilson at the
 * effective size sum(m) / cluster_design_effect() (plain Wilson with one
 * trial per cluster). No trials: [0, 1]. deff may be NULL. Returns the
 * accuracy sum(y) / sum(m) (0 without trials).
 */
double cluster_interval(const long *m, const long *y, size_t n, double z, double *deff, double *lo,
                        double *hi);

/*
 * Exact McNemar test on discordant pairs: b = pairs correct in the baseline
 * and wrong in the candidate (drops), c = wrong -> correct (gains).
 * mcnemar_drop_p: one-sided p for "the candidate is worse",
 * P(X >= b) with X ~ Binomial(b + c, 1/2). mcnemar_gain_p: P(X >= c).
 * Both return 1.0 when b + c == 0. mcnemar_two_sided_p: min(1, 2 * min tail).
 */
double mcnemar_drop_p(long b, long c);
double mcnemar_gain_p(long b, long c);
double mcnemar_two_sided_p(long b, long c);
/* P(X >= k) for X ~ Binomial(n, 1/2), exact in log space (any n). */
double binom_half_upper_tail(long k, long n);

/*
 * Exact paired sign-flip (randomisation) test over clusters: d[0..n-1] are
 * integer per-question differences (baseline correct minus candidate
 * correct over the question's pairs). Under H0 each d[i] is symmetric about
 * 0, so every sign pattern is equally likely; the one-sided p-value for a
 * drop is P(sum s_i |d_i| >= sum d_i) over the 2^n patterns, computed
 * exactly by convolution over the integer sums. signflip_gain_p is the
 * same for sum <= observed. When every |d_i| <= 1 this is the exact
 * McNemar test (b = #(d_i = 1), c = #(d_i = -1)). Returns 1 when all d are 0.
 * signflip_p gives both from one convolution.
 */
void signflip_p(const long *d, size_t n, double *p_drop, double *p_gain);
double signflip_drop_p(const long *d, size_t n);
double signflip_gain_p(const long *d, size_t n);

/*
 * Holm step-down adjustment of n p-values: adj[i] is the adjusted p-value of
 * p[i] (monotone, capped at 1). adj may alias p.
 */
void holm_adjust(const double *p, size_t n, double *adj);

/* P(Z > z) for a standard normal Z, and its inverse (0 < p < 1; closed form, double precision). */
double stats_norm_upper(double z);
double stats_norm_upper_inv(double p);
/*
 * The t such that P(T > t) = p for Student's t with df >= 1 degrees of freedom:
 * exact (closed forms at df 1 and 2, the exact CDF inverted up to df 1000, the
 * Cornish-Fisher expansion above, where it is exact to 1e-10). NAN for df < 1.
 */
double stats_t_upper_inv(double p, long df);

/* q-quantile (0..1) of sorted values, linear interpolation (type 7). n > 0. */
double stats_quantile_sorted(const double *sorted, size_t n, double q);

/* ---- run statistics ---- */

struct stats_options {
    double z;                  /* interval quantile (default STATS_Z95) */
    double confidence;         /* bootstrap interval level (default 0.95) */
    unsigned bootstrap_iters;  /* default 2000; 0 disables the bootstrap */
    unsigned long long seed;   /* bootstrap seed (default 1) */
    double effective_fraction; /* effective-length threshold as a fraction of the
                                  shortest length's edge accuracy (default 0.85) */
    double mismatch_tolerance; /* |usage/realized - 1| above this is a mismatch (0.02) */
    double ruler_threshold;    /* RULER's effective-length threshold (default 0.856) */
    double nolima_fraction;    /* NoLiMa's share of the base score to keep (default 0.85) */
    long nolima_base_max;      /* NoLiMa's base: lengths up to this many tokens (default 1024) */
    const double *rank_probs;  /* retriever rank distribution, borrowed; NULL = geometric */
    size_t n_rank_probs;
    double geometric_p;  /* default ORDER_DEFAULT_RANK_P: P(rank r) = p (1-p)^(r-1) */
    const int *advice_k; /* chunk counts to advise for; NULL = {5, 10, 20} */
    size_t n_advice_k;
    int exclude_known; /* leave out questions answered correctly closed-book (any repeat) */
};
/* The defaults documented in struct stats_options (every other member 0 or NULL). */
#define STATS_OPTIONS_INIT                                                                         \
    {                                                                                              \
        .z = STATS_Z95, .confidence = 0.95, .bootstrap_iters = 2000, .seed = 1,                    \
        .effective_fraction = 0.85, .mismatch_tolerance = 0.02,                                    \
        .ruler_threshold = EFFECTIVE_RULER_THRESHOLD,                                              \
        .nolima_fraction = EFFECTIVE_NOLIMA_FRACTION,                                              \
        .nolima_base_max = EFFECTIVE_NOLIMA_BASE_MAX, .geometric_p = ORDER_DEFAULT_RANK_P          \
    }
/* *o = STATS_OPTIONS_INIT. */
void stats_options_init(struct stats_options *o);

/* A control's accuracy (run --controls; trial.h), clustered by question. */
struct control_stats {
    int present; /* the run has trials of this control */
    long n_valid, n_correct;
    size_t n_questions;
    double accuracy, design_effect, ci_lo, ci_hi;
};

struct cell_stats {
    long length;
    int depth_bp;
    long n_trials;  /* all trials in the cell, any outcome except pending */
    long n_pending; /* unfinished trials (not in n_trials) */
    long n_valid;   /* correct + wrong */
    long n_correct;
    size_t n_questions;            /* clusters: questions with a valid trial in the cell */
    double accuracy;               /* n_correct / n_valid; 0 when n_valid == 0 */
    double design_effect;          /* cluster_design_effect() over the questions; 1 with one
                                      trial per question */
    double ci_lo, ci_hi;           /* question-clustered interval: Wilson at the effective size
                                      n_valid / design_effect (plain Wilson with one repeat) */
    double coverage;               /* n_valid / n_trials (0 when no trials) */
    long outcomes[OUTCOME__COUNT]; /* count per outcome (OUTCOME_PENDING included) */
    long n_cut;                    /* correct/wrong answers cut at the answer budget */
    long starved_reasoning_tokens; /* reasoning tokens spent by the starved trials */
    double mean_realized_depth;    /* mean over trials with a prompt, -1 when none */
};

/*
 * A point estimate with a bootstrap interval over questions (each resampled
 * question brings all its depths and repeats; seeded); lo = hi = est when
 * not bootstrapped. With fewer than 2 questions the interval cannot be
 * estimated and is the whole range of the quantity.
 */
struct estimate {
    double est, lo, hi;
};

/*
 * The percentile interval of a statistic from n bootstrap replicates v
 * (sorted in place) over nq question clusters, widened for few clusters
 * (Hesterberg's expanded percentile interval), clamped to [lo_min, hi_max];
 * e->est is kept. The one interval rule of the run statistics.
 */
void stats_bootstrap_interval(struct estimate *e, double *v, size_t n, double conf, double lo_min,
                              double hi_max, size_t nq);

struct length_stats {
    long length;
    size_t first_cell, n_cells; /* this length's cells in run_stats.cells, by depth */
    long n_trials, n_valid, n_correct;
    double accuracy; /* n_correct / n_valid; 0 when n_valid == 0 */
    double coverage; /* n_valid / n_trials; 0 when no trials */
    long outcomes[OUTCOME__COUNT];

    /* depth curve (only cells with n_valid > 0 count) */
    int n_depths;         /* depths with data */
    int edge_lo_depth_bp; /* shallowest depth with data */
    int edge_hi_depth_bp; /* deepest depth with data */
    double edge_lo_accuracy, edge_hi_accuracy;
    struct estimate edge; /* mean of the two edge accuracies (percentile bootstrap) */
    /*
     * The primary, pre-specified estimand: middle = mean accuracy over the
     * interior depths (not an edge) in [25%, 75%]; dip = edge - middle.
     * Percentile bootstrap over questions.
     */
    int has_middle;
    struct estimate middle;
    struct estimate dip;
    /*
     * Secondary: the worst interior depth. Its point estimate is the minimum
     * of noisy cells (biased towards a larger dip); the bootstrap re-selects
     * the worst depth in every replicate and the interval is the basic
     * (reverse-percentile) bootstrap, which corrects that selection bias to
     * first order (VALIDATION.md measures its coverage).
     */
    int has_worst;             /* at least 3 depths: an interior exists */
    int middle_worst_depth_bp; /* interior depth with the lowest accuracy */
    struct estimate middle_worst;
    struct estimate dip_worst; /* edge - middle_worst */
    double auc;                /* trapezoid area under accuracy vs depth (0..1),
                                  normalised by the depth span; single depth = its accuracy */

    /* realized length and tokenizer agreement */
    long n_realized; /* trials with realized_length > 0 */
    long realized_min, realized_max;
    double realized_mean;
    long n_usage;               /* trials with usage_prompt_tokens >= 0 and realized > 0 */
    double usage_ratio_mean;    /* mean usage/realized */
    double usage_ratio_max_dev; /* max |usage/realized - 1| */
    long tokenizer_mismatches;  /* trials with |usage/realized - 1| > mismatch_tolerance */
    size_t n_questions;         /* distinct questions with a valid trial: the clusters of
                                   edge, middle and dip */
};

struct ordering_advice {
    long length;
    int k;                         /* chunks passed to the model */
    double retrieved;              /* P(answer ranked within the top k) */
    double accuracy[ORDER__COUNT]; /* expected accuracy given it was retrieved */
};

/*
 * What the server's prefix cache did, from the trials that report it (usage
 * prompt_tokens_details.cached_tokens, else llama.cpp timings cache_n):
 * trials 0 when none does. sent is their prompt tokens (usage.prompt_tokens,
 * else cache_n + prompt_n, else the realized length), cached those the server
 * says it reused; computed = sent - cached. est_sent / est_cached:
 * plan_cache_estimate() over every finished trial of the run, what the cache
 * schedule could reuse on a server caching whole prefixes (an estimate; a
 * naive order is assumed to reuse nothing).
 */
struct cache_stats {
    long trials, sent, cached;
    long from_timings; /* of trials, those counted from llama.cpp timings */
    double est_sent, est_cached;
};

struct hops_stats;
struct ordinal_stats;
struct decomp_stats;

struct run_stats {
    struct cell_stats *cells; /* sorted by (length, depth_bp) */
    size_t n_cells;
    struct length_stats *lengths; /* ascending length */
    size_t n_lengths;
    long n_trials, n_valid, n_correct;
    double accuracy; /* n_correct / n_valid over every cell; 0 when n_valid == 0 */
    double coverage; /* n_valid / n_trials; 0 when no trials */
    long outcomes[OUTCOME__COUNT];
    long n_cut, starved_reasoning_tokens; /* sums of the cells' */
    size_t n_questions;
    int n_repeats; /* distinct repeat indices among valid trials */

    /*
     * Effective length: the longest length whose every depth is at or above
     * effective_threshold = effective_fraction * effective_reference, where
     * the reference is the oracle control's accuracy when the run has one,
     * else the shortest length's edge accuracy. Undefined
     * (effective_defined 0, threshold and length 0) when there is no data or
     * the reference accuracy is 0: a threshold of 0 would call every length
     * effective. effective_length 0 with effective_defined 1: no length
     * qualifies.
     */
    int effective_defined;
    int effective_from_oracle; /* the reference is the oracle control's accuracy */
    double effective_reference;
    double effective_threshold; /* absolute accuracy threshold used */
    long effective_length;
    /* the published definitions (effective_length.h), over the same lengths */
    struct published_effective ruler, nolima;

    /*
     * Controls (never part of cells or lengths). closed_book is over every
     * question; oracle over the curve's question set. With exclude_known the
     * curve and the oracle leave out the n_known questions answered
     * correctly closed-book (n_known is counted either way).
     */
    struct control_stats closed_book, oracle;
    int exclude_known;
    size_t n_known;

    struct ordering_advice *advice; /* per length x k */
    size_t n_advice;

    unsigned bootstrap_iters; /* as used */
    unsigned long long seed;
    double confidence;   /* bootstrap interval level used */
    double geometric_p;  /* rank distribution used by the advice: geometric p, or 0 when */
    size_t n_rank_probs; /* a rank-probability list of this many ranks was given */

    struct cache_stats cache; /* over every trial, controls included */
    struct hops_stats *hops;  /* two-hop chains (hops.h; run --hops 2), or NULL */
    /* needle-absent trials (absent_stats.h; run --absent), or NULL: they need the answers, so
     * the report (report_doc.c) sets them; released with the rest */
    struct absent_stats *absent;
    /* ordinal needles (ordinal.h; run --ordinal N), or NULL: set by the report, which reads
       the answers against the golden set; freed with the rest */
    struct ordinal_stats *ordinal;
    struct decomp_stats *decomp; /* length, distraction, position (decomp.h; run --arm), or NULL */
};

/*
 * Compute everything from trials[0..n-1] (borrowed; not modified). out is
 * initialised here; release it with run_stats_release(). Returns 0, or -1
 * with a reason in err for invalid options (e.g. a rank distribution that
 * sums over 1). Trials with the same key twice are all counted.
 */
int stats_compute(const struct trial_point *trials, size_t n, const struct stats_options *opt,
                  struct run_stats *out, struct strbuf *err);
void run_stats_release(struct run_stats *s);

/*
 * Warnings about how far the statistics can be trusted, one sentence each
 * (no trailing period), appended to out: fewer than STATS_MIN_QUESTIONS
 * questions carry a result; more repeats than questions; intervals resting
 * on fewer than STATS_MIN_CLUSTERS questions (cells or lengths).
 */
#define STATS_MIN_QUESTIONS 30
#define STATS_MIN_CLUSTERS  10
struct strvec;
void stats_warnings(const struct run_stats *s, struct strvec *out);
/* The same sentences from counts (shared with compare_warnings()). */
void stats_sample_warnings(size_t questions, int repeats, size_t small_cells, size_t small_lengths,
                           struct strvec *out);

/*
 * The depths of the primary estimand, the one definition (the report's edge,
 * middle and dip, and compare's primary endpoints): of a length's depths with
 * data in ascending order (rank 0..n_with_data-1), the first and the last are
 * the edges (edge = the mean of their accuracies); an interior depth within
 * 25-75% is a middle depth (middle = the mean of their accuracies); dip =
 * edge - middle. Other interior depths have no role (they enter the worst
 * depth and the AUC only).
 */
enum depth_role { DEPTH_ROLE_OTHER, DEPTH_ROLE_EDGE, DEPTH_ROLE_MIDDLE };
enum depth_role stats_depth_role(size_t rank, size_t n_with_data, int depth_bp);

/* The cell for (length, depth_bp), or NULL. */
const struct cell_stats *run_stats_cell(const struct run_stats *s, long length, int depth_bp);

/*
 * Accuracy at a fractional depth (0..1) interpolated linearly between the
 * measured depths of one length (clamped at the ends). Used by the ordering
 * advice; exposed for tests and reports.
 */
/*
 * "floor" when every scored trial of the length is wrong, "ceiling" when every one is correct,
 * else NULL: at a bound edge and middle are 0% or 100% by construction, so the dip (and
 * dip_worst) cannot be measured there, and every report says so instead of "+0.0 pp".
 */
const char *stats_dip_bound(const struct length_stats *ls);
/* The same in words for the reports: "cannot be measured: every scored trial is wrong (the
   accuracy floor)"; NULL when the dip can be measured. Static strings. */
const char *stats_dip_bound_text(const struct length_stats *ls);
double length_accuracy_at(const struct run_stats *s, const struct length_stats *ls, double depth);
/* The cells' interval bounds interpolated the same way (the order experiment's expectation). */
void length_interval_at(const struct run_stats *s, const struct length_stats *ls, double depth,
                        double *lo, double *hi);

#endif

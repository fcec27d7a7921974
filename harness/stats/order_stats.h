#ifndef ORDER_STATS_H
#define ORDER_STATS_H

#include <stddef.h>

#include "prompt/order.h"

struct trial_point;
struct run_stats;
struct strbuf;

/*
 * The statistics of an order experiment (run --experiment order): per
 * (policy, k) the accuracy with a question-clustered interval, recall@k
 * (the gold in the prompt), the accuracy given the gold was in the prompt,
 * mean prompt and completion tokens; paired differences between policies
 * per k with compare's exact sign-flip test over questions (two-sided, Holm
 * over all of them); the accuracy computed from a depth curve next to the
 * measured one; and the recommendation. Pure: trials in, numbers out.
 *
 * A trial's policy and k are its axes "policy" and "k" (axes.h); its gold
 * was in the prompt when gold_offset >= 0. Trials without those axes are
 * ignored.
 */

/* The recommendation takes the cheapest (policy, k) within this of the best accuracy. */
#define ORDER_MARGIN 0.01

struct order_cell {
    enum ordering policy;
    int k;
    long trials;              /* finished trials */
    long valid, correct;      /* scored (correct/wrong) */
    size_t questions;         /* with a valid trial */
    double accuracy, lo, hi;  /* NAN without valid trials; interval question-clustered */
    size_t present_questions; /* questions whose prompt held the gold (any outcome) */
    size_t all_questions;     /* questions with a finished trial */
    double recall;            /* present_questions / all_questions (recall@k; NAN when none) */
    long present_valid, present_correct;
    double present_accuracy, present_lo, present_hi; /* given the gold was in the prompt */
    double prompt_tokens;     /* mean realized length of the finished trials */
    double completion_tokens; /* mean completion tokens of the scored trials */
    double cost;              /* USD per question at the given prices (order_stats_price), NAN */
    double expected;          /* computed from a depth curve (order_stats_expect), NAN none */
    double expected_lo, expected_hi; /* the same from the curve's interval bounds */
    long curve_length;               /* the curve's length it was read at, 0 none */
};

/* The paired difference policy - reference at one k. */
struct order_diff {
    enum ordering policy, reference;
    int k;
    size_t questions;    /* with a valid trial under both */
    double diff, lo, hi; /* mean per-question difference in accuracy, normal 95% interval */
    double p, p_holm;    /* two-sided exact sign-flip p, Holm-adjusted over every diff */
};

struct order_stats {
    enum ordering policies[ORDER__COUNT]; /* present, in enum order */
    size_t n_policies;
    int *ks; /* present, ascending */
    size_t n_ks;
    struct order_cell *cells; /* n_policies x n_ks, policy-major */
    struct order_diff *diffs; /* per k, every policy against the reference */
    size_t n_diffs;
    enum ordering reference; /* best-first (rank order) when present, else the first */
    size_t n_questions;
    int best;        /* index of the most accurate cell, -1 when none has data */
    int recommended; /* the fewest prompt tokens within ORDER_MARGIN of the best, -1 none */
    /* -1 every cell with data at 0% (the floor), 1 all at 100% (the ceiling), else 0: the
       cells tie by construction, so best and recommended are -1 (no advice from ties) */
    int bound;
};

/* Returns 0; -1 with a reason in err when no trial carries the order axes. */
int order_stats_compute(const struct trial_point *t, size_t n, struct order_stats *out,
                        struct strbuf *err);
void order_stats_release(struct order_stats *s);
/* The cell of (policy, k), or NULL. */
const struct order_cell *order_stats_cell(const struct order_stats *s, enum ordering policy, int k);

/*
 * The expected accuracy of each cell from a depth run's statistics: each
 * scored trial counts the curve's accuracy at its realized depth when its
 * gold was in the prompt, 0 when not, at the curve's length nearest (by
 * ratio) the cell's mean prompt tokens; expected_lo/hi the same from the
 * curve cells' interval bounds (a conservative band: the curve's own
 * uncertainty). curve NULL: leaves NAN.
 */
void order_stats_expect(struct order_stats *s, const struct trial_point *t, size_t n,
                        const struct run_stats *curve);

/* The cost per question of every cell at these prices (USD per 1M prompt / completion tokens). */
void order_stats_price(struct order_stats *s, double price_in, double price_out);

/*
 * The recommendation in plain words, appended to out: "edges-first at k=10:
 * 71.2% [68.0%, 74.3%], within 1 pp of the best (edges-first at k=20,
 * 71.9%), 52% of the prompt tokens of k=20". Nothing when there is no data.
 */
void order_recommendation(const struct order_stats *s, struct strbuf *out);

#endif

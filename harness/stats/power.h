#ifndef POWER_H
#define POWER_H

#include <stddef.h>

#include "stats/compare.h"

struct strbuf;

/*
 * Power planning for `dipmap compare` (dipmap plan, run --dry-run): how big
 * a drop compare's question-clustered sign-flip tests detect, how many
 * questions a target drop needs, how often compare says FAIL, PASS or
 * INCONCLUSIVE for a drop profile, and how many questions an unchanged model
 * needs to PASS. Pure functions, no I/O.
 *
 * Compare's rule (compare.h). Per length three PRIMARY endpoints: all
 * depths, the middle band (the middle depths of stats_depth_role(): interior
 * depths in 25-75%) and the dip (edge - middle; its "drop" is the dip's
 * rise = middle drop - edge drop). A length with no middle depth has the
 * all-depths endpoint alone. They form one Holm family; a primary endpoint
 * with Holm-adjusted p < alpha and a drop >= tolerance is FAIL. PASS when
 * there is no FAIL and every primary endpoint's one-sided (1 - alpha) upper
 * bound on its drop is below the tolerance; otherwise INCONCLUSIVE. The cells
 * are a secondary Holm family that fails the gate only with --gate cells
 * (POWER_GATE_CELLS). Overall is reported at alpha, not part of the verdict.
 *
 * The model. An endpoint is a weighted sum of cell drops: x = sum_c w_c D_c
 * / r per question, D_c the sum of the question's r pair differences
 * (baseline correct - candidate correct) in cell c. Weights: all depths 1/N
 * on each of its N cells; middle 1/M on its M middle cells; dip +1/M on the
 * middle cells and -1/E on the E edge cells (a cell alone: 1). A pair is +1
 * with probability (v + delta)/2, -1 with (v - delta)/2 and 0 otherwise (v =
 * the cell's discordance, delta = its drop), so per pair mean delta and
 * variance var_c = v - delta^2. Any two pairs of one question (same or other
 * cell) correlate with coefficient icc, so per question
 *   E[x] = sum w_c delta_c,
 *   Var[x] = (1 - icc) sum w_c^2 var_c / r + icc (sum w_c sd_c)^2
 * (signed weights: for the dip a question effect shared by edge and middle
 * cancels). Over Q questions T = sum x is taken as normal, N(Q E[x], Q
 * Var[x]). The sign-flip test rejects at level L when T >= z(L) sqrt(Q
 * E[x^2]) + 1/k (its conditional variance; a continuity correction of one
 * unit of compare's integer statistic, k = N r, M r, E M r or r), and compare
 * also needs the observed drop T / Q >= tolerance. The upper bound is T / Q +
 * t(Q - 1) s / sqrt(Q) with s^2 = ((Q - 1) Var[x] + Q (T/Q - a)^2 + (1 - a)^2
 * + (1 + a)^2) / (Q + 1), a = T / (Q + 2): compare_upper_bound()'s sample
 * standard deviation with the two pseudo-questions +1 and -1, its sample
 * variance replaced by the model's. Discordance: a fixed value, or
 * (discordance < 0) that of independent draws, p (1 - q) + q (1 - p) with q =
 * p - delta (the worst case for a model with sampling noise; a deterministic
 * model discords less).
 *
 * A row's minimum detectable drop is planned at Holm's first step (alpha /
 * family size; primary and secondary families apart) for a drop on the
 * row's own cells: all depths and a cell uniformly, the middle and the dip
 * on the middle cells with the edges unchanged (a dip rise equal to the
 * middle's drop: the regression the gate exists for). The verdict rates
 * (FAIL, PASS, INCONCLUSIVE) are a seeded Monte Carlo of the normal model
 * with every endpoint's correlation (shared cells, the question effect).
 */

struct power_cell {
    long length;
    int depth_bp;
    double accuracy; /* baseline accuracy of the cell, 0..1 */
};

/* What can fail the gate (compare --gate). */
enum power_gate { POWER_GATE_PRIMARY, POWER_GATE_CELLS };

struct power_spec {
    size_t questions; /* >= 1 */
    int repeats;      /* pairs per question per cell, >= 1 */
    double alpha, tolerance, icc;
    double discordance;             /* < 0: independent draws */
    const struct power_cell *cells; /* sorted by (length, depth); borrowed */
    size_t n_cells;
    enum power_gate gate;    /* default POWER_GATE_PRIMARY */
    unsigned iters;          /* Monte Carlo draws of power_summary()'s PASS line (0: 20000) */
    unsigned long long seed; /* and their seed (0: 1) */
    unsigned gate_reps;      /* power_summary(): simulated gates (power_gate_simulate()); 0: the
                                normal model's PASS line instead */
    size_t round;            /* the gate's questions per round (0: 20) */
};

/* Tests in compare's primary family: per length all depths, and middle and dip when it has a
   middle depth. */
size_t power_primary_size(const struct power_spec *s);
/* Tests in the secondary family: the cells. */
size_t power_secondary_size(const struct power_spec *s);

struct power_row {
    enum compare_scope scope; /* a primary endpoint (compare.h compare_endpoints[]), a cell or
                                 overall */
    int primary;              /* in the primary family (the gate) */
    long length;              /* 0 for overall */
    int depth_bp;             /* -1 unless a cell */
    double level;             /* significance level the test is planned at */
    long pairs;               /* pairs per question in the scope */
    double base; /* the endpoint in the baseline: accuracy, or for the dip edge - middle */
    double sd;   /* per-question standard deviation of the endpoint's drop x, no drop */
    double mde;  /* smallest drop (on the row's cells, see above) with power >= 0.8; < 0
                    when none up to the accuracy (not detectable) */
    long need_q; /* with a target drop: questions needed (-1 none up to 10^6; 0 not asked) */
};

/*
 * One row per primary endpoint (per length: all depths, middle, dip), per
 * cell, then overall (*rows malloc'd, caller frees, *n set). target > 0 also
 * fills need_q for a drop of target.
 */
void power_rows(const struct power_spec *s, double target, struct power_row **rows, size_t *n);

struct power_verdicts {
    double fail, pass, inconclusive; /* probabilities, summing to 1 */
};

/*
 * Monte Carlo (seeded, iters draws) of compare's verdict when cell i drops
 * by drop[i], under s->gate (above).
 */
void power_verdict_rates(const struct power_spec *s, const double *drop, unsigned iters,
                         unsigned long long seed, struct power_verdicts *out);
/* Its FAIL rate. */
double power_fail_rate(const struct power_spec *s, const double *drop, unsigned iters,
                       unsigned long long seed);

/*
 * The fewest questions (s->questions ignored) at which an unchanged model
 * (no drop anywhere) PASSes with probability >= prob: every primary upper
 * bound below the tolerance, and no FAIL. The same draws at every size
 * (iters of them, seeded), searched by bisection; -1 beyond 10^6.
 */
long power_pass_need(const struct power_spec *s, double prob, unsigned iters,
                     unsigned long long seed);

/*
 * The sequential gate as `dipmap gate` decides it, by simulation: reps
 * replicates, each a baseline and a candidate answering s->questions
 * questions (the gate's cap) at every cell and repeat, with serve-sim's
 * question effect (sim.h icc=R: a uniform difficulty per question and model,
 * taken by a trial with probability sqrt(s->icc), else the trial's own
 * uniform draw; correct when below the cell's accuracy, less drop[c] for the
 * candidate; s->discordance is not used). compare_runs() at the gate's
 * levels (compare_look_levels()) after every round of s->round questions,
 * the questions in the order they entered: the same tests the gate runs.
 * Out: the rates of the final verdicts, the mean questions to a decision
 * (the cap when none), and the questions by which 80% and 95% of the gates
 * PASSed (-1 when fewer PASS by the cap).
 */
struct power_gate_rates {
    double fail, pass, inconclusive;
    double mean_questions;
    long pass_by[2]; /* 80%, 95% */
};
void power_gate_simulate(const struct power_spec *s, const double *drop, unsigned reps,
                         unsigned long long seed, struct power_gate_rates *out);
/* "the gate (...): FAIL x%, PASS y%, INCONCLUSIVE z%, after N questions on average" (no
   newline) appended to out. */
void power_gate_line(const struct power_spec *s, const struct power_gate_rates *g,
                     struct strbuf *out);

/*
 * The power tables appended to out (dipmap plan, run --dry-run): the
 * settings; the primary endpoints (level, pairs per question, the baseline
 * endpoint, the minimum drop at 80% power and, target > 0, the questions
 * needed for a drop of target); the cells, marked secondary; overall; then
 * the chance that an unchanged model PASSes with s->questions and the
 * questions it needs to PASS with 80% and 95% probability.
 */
void power_summary(const struct power_spec *s, double target, struct strbuf *out);

/*
 * The same normal model, with the standard error se of a drop estimated from
 * q questions of a comparison (compare.h: the question-clustered se, so the
 * per-question variance, intraclass correlation included, is the observed
 * one instead of the cell accuracies' model). The drop is detected at 80%
 * power at one-sided level `level` when drop >= (z(level) + z(0.8)) se:
 * power_mde_se() returns that drop. power_need_se() returns the questions
 * (se shrinking as 1/sqrt(questions)) at which that detectable drop is down
 * to the tolerance: where a regression of the tolerance FAILs and an
 * unchanged model PASSes (its bound below the tolerance) with about 80%
 * probability each. At least q; -1 when tolerance <= 0 or beyond 10^6.
 */
double power_mde_se(double se, double level);
long power_need_se(double se, size_t q, double tolerance, double level);

/*
 * Parse a drop "5pp", "5%" or "0.05" (parse_points: the forms every option takes) into a
 * fraction (0.05), between 0 and 1. Returns 0, or -1 with the reason in err.
 */
int power_parse_drop(const char *s, double *out, struct strbuf *err);

#endif

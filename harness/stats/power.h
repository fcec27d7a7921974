#ifndef POWER_H
#define POWER_H

#include <stddef.h>

struct strbuf;

/*
 * Power planning for `dipmap compare` (dipmap plan, run --dry-run): how big
 * a drop the paired sign-flip test over questions detects, how many
 * questions a target drop needs, and how often compare says FAIL for a given
 * drop profile. Pure functions, no I/O.
 *
 * The model. Each question contributes to a test the sum d of its pairs'
 * differences (baseline correct - candidate correct), a pair being +1 with
 * probability (v + delta)/2, -1 with (v - delta)/2 and 0 otherwise (v = the
 * cell's discordance, delta = its drop). Any two pairs of one question are
 * correlated with coefficient icc (0 = pairs independent given the
 * question; the question effect that makes repeats worth little). The test
 * statistic T = sum over Q questions of d is taken as normal with mean
 * Q E[d] and variance Q Var(d); the sign-flip test rejects when
 * T >= z * sqrt(Q E[d^2]) + 1 (its conditional variance, continuity
 * corrected) and compare also needs the observed drop >= tolerance.
 * Discordance: a fixed value, or (discordance < 0) that of independent
 * draws, p (1 - q) + q (1 - p) with q = p - delta (the worst case for a
 * model with sampling noise; a deterministic model discords less).
 * Cells and lengths form one Holm family; a single test is planned at
 * alpha / family (Holm's first step, Bonferroni), the overall test at alpha.
 */

struct power_cell {
    long length;
    int depth_bp;
    double accuracy; /* baseline accuracy of the cell, 0..1 */
};

struct power_spec {
    size_t questions; /* >= 1 */
    int repeats;      /* pairs per question per cell, >= 1 */
    double alpha, tolerance, icc;
    double discordance;             /* < 0: independent draws */
    const struct power_cell *cells; /* sorted by (length, depth); borrowed */
    size_t n_cells;
};

/* Tests in compare's Holm family: cells + lengths. */
size_t power_family_size(const struct power_spec *s);

enum power_scope { POWER_CELL, POWER_LENGTH, POWER_OVERALL };

struct power_row {
    enum power_scope scope;
    long length;  /* 0 for overall */
    int depth_bp; /* -1 unless a cell */
    double level; /* significance level the test is planned at */
    long pairs;   /* pairs per question in the scope */
    double mde;   /* smallest uniform drop with power >= 0.8; < 0 when none up to the
                     accuracy (not detectable) */
    long need_q;  /* with a target drop: questions needed (-1 none up to 10^6; 0 not asked) */
};

/*
 * One row per cell, per length and overall (in that order; *rows malloc'd,
 * caller frees, *n set). target > 0 also fills need_q for a drop of target.
 */
void power_rows(const struct power_spec *s, double target, struct power_row **rows, size_t *n);

/*
 * Monte Carlo (seeded, iters draws) of compare's verdict when cell i drops
 * by drop[i]: the probability of FAIL (any cell or length with Holm-adjusted
 * p < alpha and an observed drop >= tolerance).
 */
double power_fail_rate(const struct power_spec *s, const double *drop, unsigned iters,
                       unsigned long long seed);

/*
 * The power table appended to out (dipmap plan, run --dry-run): the
 * settings, then per cell, per length and overall the pairs per question,
 * the mean accuracy, the minimum drop at 80% power and (target > 0) the
 * questions needed for a drop of target.
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
 * Parse a drop "5pp", "5%" or "5" (percentage points) into a fraction
 * (0.05). Returns 0, or -1 with the reason in err.
 */
int power_parse_drop(const char *s, double *out, struct strbuf *err);

#endif

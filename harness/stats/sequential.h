#ifndef SEQUENTIAL_H
#define SEQUENTIAL_H

#include <stddef.h>

/*
 * Group-sequential boundaries by the alpha-spending approach of Lan and
 * DeMets (Biometrika 70, 1983, 659-663): a test looked at after each round
 * of data, at information fractions 0 < t_1 < ... < t_K <= 1 that need not
 * be fixed in advance, spends alpha(t_k) - alpha(t_{k-1}) of its one-sided
 * level at look k, so the chance of ever crossing under the null is alpha
 * however many looks there are and whenever the data stop. The boundary c_k
 * on the standardised statistic Z_k solves
 *     P(Z_1 < c_1, ..., Z_{k-1} < c_{k-1}, Z_k >= c_k) = alpha(t_k) - alpha(t_{k-1})
 * for the canonical joint distribution (Z_k = B(t_k) / sqrt(t_k), B a
 * standard Brownian motion: sums of independent per-question differences),
 * computed by numerical integration on a grid (Jennison and Turnbull,
 * Group Sequential Methods with Applications to Clinical Trials, 2000,
 * ch. 19). Repeated confidence bounds use the same c_k: estimate + c_k se_k
 * covers the truth at every look at once with probability 1 - alpha
 * (ibid., ch. 9). Pure functions: no I/O.
 */

enum seq_spending {
    SEQ_SPEND_OBF = 0, /* O'Brien-Fleming type: 2 - 2 Phi(z_{1-alpha/2} / sqrt(t)) */
    SEQ_SPEND_POCOCK   /* Pocock type: alpha ln(1 + (e - 1) t) */
};
/* "obf" | "pocock"; 0 or -1. */
int seq_spending_parse(const char *s, enum seq_spending *out);
const char *seq_spending_name(enum seq_spending f);

/* The level spent by information fraction t (0 at t <= 0, alpha at t >= 1). */
double seq_spent(enum seq_spending f, double alpha, double t);

/*
 * The one-sided upper boundaries c[0..k-1] for looks at fractions t[0..k-1]
 * (strictly increasing, in (0, 1]) at total level alpha (0 < alpha < 0.5).
 * A look that spends nothing more gets c = SEQ_NEVER. Returns 0, or -1 for
 * bad arguments (nothing written).
 */
#define SEQ_NEVER 1e9
int seq_bounds(enum seq_spending f, double alpha, const double *t, size_t k, double *c);

/* The nominal one-sided level of boundary c: P(Z >= c) (0 for SEQ_NEVER). */
double seq_nominal(double c);

/*
 * Anytime-valid one-sided tests and confidence bounds for the mean of
 * bounded values by betting (Waudby-Smith and Ramdas, "Estimating means of
 * bounded random variables by betting", JRSS-B 86, 2024, 1-27). The values
 * x[0..n-1], each in [-range, range], arrive in a fixed order (the order the
 * questions entered: a data-independent order). To test "the mean is <= m"
 * a gambler starts with capital 1 and bets on each value in turn:
 *     K_t = prod_{i <= t} (1 + lambda_i (y_i - m_y)),
 * y and m_y mapped to [0, 1], the bet lambda_i chosen from the values before
 * i alone (a predictable plug-in: lambda_i = sqrt(2 ln(1/a) / (s2_{i-1}
 * 150)), s2 their running variance, tuned for 150 questions and capped at
 * 0.99 of what keeps the capital positive: sequential.c says why). Under the hypothesis K is a
 * nonnegative supermartingale whatever the values' distribution, so by Ville's inequality P(K_t
 * ever reaches 1/a) <= a: a test valid at every t at once (optional stopping, more questions
 * later), with no normal approximation and no variance assumption. The bound is the set of m never
 * rejected so far. Pure functions: no I/O.
 */

/* Which side a betting test takes: the mean above m ("worse by more than m"), or below. */
enum seq_side { SEQ_ABOVE, SEQ_BELOW };

/*
 * The anytime-valid p-value of "the mean is <= m" (SEQ_ABOVE) or ">= m"
 * (SEQ_BELOW) after x[0..n-1]: min(1, 1 / the largest capital reached),
 * the bets tuned for level tune (0 < tune < 1). 1 when n == 0.
 */
double seq_bet_p(const double *x, size_t n, double range, double m, enum seq_side side,
                 double tune);

/*
 * The one-sided (1 - a) anytime-valid bound on the mean after x[0..n-1]:
 * SEQ_BELOW gives the upper bound (the smallest m whose "mean >= m" was
 * rejected at some t <= n), SEQ_ABOVE the lower bound. range (-range for the
 * lower) when n == 0 or nothing is rejected.
 */
double seq_bet_bound(const double *x, size_t n, double range, enum seq_side side, double a);

/*
 * The questions at which the test of m at level a (side as seq_bet_p) first
 * rejects when the values keep coming as x[0..n-1] did: the sequence
 * repeated in its order, up to cap values. 0 when it does not by cap (or n
 * == 0).
 */
size_t seq_bet_first_reject(const double *x, size_t n, double range, double m, enum seq_side side,
                            double a, size_t cap);

#endif

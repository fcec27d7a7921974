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

#endif

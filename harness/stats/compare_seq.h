#ifndef COMPARE_SEQ_H
#define COMPARE_SEQ_H

#include <stddef.h>

#include "stats/compare.h"
#include "stats/sequential.h"

/* Questions a gate round adds when --round is not given (gate; plan simulates the same). */
#define SEQ_DEFAULT_ROUND 20

/*
 * One look of the sequential gate (`dipmap gate`, docs/ci.md "Recommended"):
 * compare_runs() on the trials of the questions so far, taken in the order
 * they entered (compare_options.order). Its FAIL (Holm over anytime-valid
 * betting p-values of "worse by more than the fail margin") and PASS (every
 * primary endpoint's anytime-valid upper bound below the tolerance, an
 * intersection-union test) hold at every look at once (compare.h), so each
 * look runs at the whole alpha: nothing is spent, and a later look, a larger
 * cap or another gate over the same questions keeps the error rates. The
 * spending function and information fractions are kept in the interface for
 * the gates recorded with them; they no longer change a level. The error
 * rates under this optional stopping are measured in
 * tests/validate/gate_rates.c (VALIDATION.md). Pure: no I/O.
 */
struct compare_look {
    size_t primary_tests; /* m: the primary family at this look */
    double fail_alpha;    /* Holm's alpha for FAIL */
    double fail_z;        /* SEQ_NEVER: no Gaussian boundary (betting tests) */
    double bound_alpha;   /* one-sided level of the PASS bounds */
    double bound_z;       /* SEQ_NEVER, as fail_z */
};

/* The levels of look k for a primary family of m tests at total level alpha: alpha each. */
void compare_look_levels(enum seq_spending f, double alpha, const double *t, size_t k, size_t m,
                         struct compare_look *look);
/* The options of a comparison at those levels: o->alpha and o->bound_alpha. */
void compare_look_apply(const struct compare_look *look, struct compare_options *o);

/* opt->alpha is the gate's total alpha (NULL = defaults); *out as compare_runs(). */
void compare_runs_look(const struct trial_point *base, size_t nb, const struct trial_point *cand,
                       size_t nc, const struct compare_options *opt, enum seq_spending f,
                       const double *t, size_t k, struct compare_look *look,
                       struct compare_result *out);

#endif

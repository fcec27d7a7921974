#ifndef COMPARE_SEQ_H
#define COMPARE_SEQ_H

#include <stddef.h>

#include "stats/compare.h"
#include "stats/sequential.h"

/*
 * One look of the sequential gate (`dipmap gate`, docs/ci.md "Recommended"):
 * compare_runs() on the trials of the questions so far, at the levels the
 * spending function gives look k (0-based) of the looks at information
 * fractions t[0..k]. FAIL: each of the m primary tests spends alpha / m by
 * the spending function (its boundary z_k), and Holm runs at m times that
 * boundary's nominal level (the first Holm step is then exactly the
 * per-test sequential level). PASS: every primary endpoint's repeated
 * confidence bound at the boundary of the whole alpha (no multiplicity
 * adjustment: PASS needs every bound below the tolerance, an
 * intersection-union test). The error rates under this optional stopping are
 * measured in tests/validate/gate_rates.c (VALIDATION.md). Pure: no I/O.
 */
struct compare_look {
    size_t primary_tests; /* m: the primary family at this look */
    double fail_alpha;    /* Holm's alpha for FAIL */
    double fail_z;        /* the per-test FAIL boundary (SEQ_NEVER: spends nothing) */
    double bound_alpha;   /* one-sided level of the PASS bounds */
    double bound_z;       /* the PASS bounds' boundary */
};

/* The levels of look k for a primary family of m tests at total level alpha. */
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

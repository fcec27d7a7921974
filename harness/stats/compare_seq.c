/*
 * One look of the sequential gate: compare_runs() at the look's levels
 * (compare_seq.h). The decisions are anytime-valid betting tests, so every
 * look uses the whole alpha.
 */
#include <stdlib.h>

#include "base/xalloc.h"
#include "stats/compare_seq.h"

#include "base/banned.h"

void compare_look_levels(enum seq_spending f, double alpha, const double *t, size_t k, size_t m,
                         struct compare_look *look)
{
    /* betting tests are valid at every look at once: nothing to spend (f, t, k unused) */
    (void)f;
    (void)t;
    (void)k;
    look->primary_tests = m ? m : 1;
    look->fail_alpha = alpha;
    look->fail_z = SEQ_NEVER;
    look->bound_alpha = alpha;
    look->bound_z = SEQ_NEVER;
}

void compare_look_apply(const struct compare_look *look, struct compare_options *o)
{
    o->alpha = look->fail_alpha;
    o->bound_alpha = look->bound_alpha;
}

void compare_runs_look(const struct trial_point *base, size_t nb, const struct trial_point *cand,
                       size_t nc, const struct compare_options *opt, enum seq_spending f,
                       const double *t, size_t k, struct compare_look *look,
                       struct compare_result *out)
{
    struct compare_options co;

    if (opt)
        co = *opt;
    else
        compare_options_init(&co);
    compare_look_levels(f, co.alpha, t, k, 1, look);
    compare_look_apply(look, &co);
    compare_runs(base, nb, cand, nc, &co, out);
    look->primary_tests = out->n_primary_family ? out->n_primary_family : 1;
}

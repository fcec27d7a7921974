/*
 * One look of the sequential gate: compare_runs() at the look's spending
 * levels (compare_seq.h).
 */
#include <stdlib.h>

#include "base/xalloc.h"
#include "stats/compare_seq.h"

#include "base/banned.h"

/* Levels below this are treated as this (a boundary that spends nothing stays unreachable). */
#define LOOK_MIN_LEVEL 1e-12

void compare_look_levels(enum seq_spending f, double alpha, const double *t, size_t k, size_t m,
                         struct compare_look *look)
{
    double *c = xcalloc(k + 1, sizeof(double));
    if (!m)
        m = 1;
    seq_bounds(f, alpha / (double)m, t, k + 1, c);
    look->primary_tests = m;
    look->fail_z = c[k];
    look->fail_alpha = seq_nominal(c[k]) * (double)m;
    seq_bounds(f, alpha, t, k + 1, c);
    look->bound_z = c[k];
    look->bound_alpha = seq_nominal(c[k]);
    if (look->fail_alpha < LOOK_MIN_LEVEL)
        look->fail_alpha = LOOK_MIN_LEVEL;
    if (look->fail_alpha > 0.5)
        look->fail_alpha = 0.5;
    if (look->bound_alpha < LOOK_MIN_LEVEL)
        look->bound_alpha = LOOK_MIN_LEVEL;
    free(c);
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
    /* the size of the primary family (it depends on the lengths with data, not on levels) */
    compare_runs(base, nb, cand, nc, &co, out);
    compare_look_levels(f, co.alpha, t, k, out->n_primary_family, look);
    compare_result_release(out);
    compare_look_apply(look, &co);
    compare_runs(base, nb, cand, nc, &co, out);
}

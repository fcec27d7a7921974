#ifndef STATS_AXES_H
#define STATS_AXES_H

#include <stddef.h>

#include "stats/stats.h"
#include "run/trial.h"

/*
 * Statistics per named axis (axes.h) of one run, for reports: per axis value
 * the accuracy (question-clustered interval) and its depth curve pooled over
 * lengths (the small multiples), and the paired effect of each value against
 * the axis's first value: over the pairs of trials equal in everything but
 * that axis (question, length, depth, repeat, the other axes), the mean
 * difference in correctness, with a bootstrap interval over questions.
 * Pure functions; control trials are left out.
 */

/* One (length, depth) point of an axis value's curve. */
struct axis_cell {
    long n_valid;
    double accuracy;     /* NAN when n_valid is 0 */
    double ci_lo, ci_hi; /* question-clustered (cluster_interval) */
};

struct axis_value_stats {
    char *value;
    long n_valid, n_correct;
    size_t n_questions;
    double accuracy, ci_lo, ci_hi;
    size_t n_depths;
    int *depths_bp;    /* ascending */
    double *depth_acc; /* accuracy at depths_bp[i] over every length; NAN when no data */
    long *depth_n;     /* valid trials at depths_bp[i] */
    /* question-clustered interval at depths_bp[i] (cluster_interval; [0, 1] without data) */
    double *depth_lo, *depth_hi;
    /*
     * The depth curve per length (the small multiples' lines): n_lengths
     * ascending lengths (every value of the axis has the same lengths and
     * depths), cells[l * n_depths + i] at lengths[l], depths_bp[i].
     */
    size_t n_lengths;
    long *lengths;
    struct axis_cell *cells;
};

struct axis_effect {
    const char *value, *ref; /* borrowed from the axis's values */
    long n_pairs;            /* pairs with both trials scored */
    size_t n_questions;      /* questions with a pair (the clusters) */
    struct estimate diff;    /* accuracy(value) - accuracy(ref) over the pairs, -1..1 */
};

struct axis_stats {
    char *name;
    struct axis_value_stats *values; /* in first-seen (plan) order: values[0] is the reference */
    size_t n_values;
    struct axis_effect *effects; /* one per values[1..]; empty when not paired (paired == 0) */
    size_t n_effects;
    int paired; /* effects computed (an axis of the trial key; 0 for a grouping such as overlap) */
    char *note; /* how the grouping was made (shown under it), or NULL; freed with the stats */
};

struct plan_axis;

/*
 * Every axis present in t[0..n-1] (sorted by name) into *out (malloc'd, *nr
 * entries; both NULL/0 without axes). An axis in declared[0..n_declared)
 * (the run's settings) lists its values in the declared order, so the
 * reference is the first value given (--question-at end,start: end);
 * otherwise first seen. Bootstrap: o->bootstrap_iters, seed o->seed, level
 * o->confidence (o NULL: stats_options_init defaults). Free with
 * stats_axes_free().
 */
void stats_axes_compute(const struct trial_point *t, size_t n, const struct plan_axis *declared,
                        size_t n_declared, const struct stats_options *o, struct axis_stats **out,
                        size_t *nr);
/*
 * The statistics of one grouping given per trial (label[i] for t[i], NULL:
 * not counted), named name, values in order[0..n_order) first (order may be
 * NULL) then first-seen, no effects: used for groupings that are not part
 * of the key (lexical-overlap terciles).
 */
void stats_axes_grouping(const struct trial_point *t, size_t n, const char *const *label,
                         const char *name, const char *const *order, size_t n_order,
                         const struct stats_options *o, struct axis_stats *out);
void stats_axes_free(struct axis_stats *a, size_t nr);

/*
 * A paired difference clustered by question, the one rule of the axis effects and the
 * decomposition penalties (decomp.h): d[q] is the sum of question q's paired differences
 * (each -1, 0 or 1), m[q] its pairs (0: not counted). diff->est = sum(d) / sum(m), its
 * interval the percentile bootstrap over the questions with a pair (each resampled with all
 * its pairs; seeded by seed, o->bootstrap_iters, o->confidence; [-1, 1] with fewer than two
 * questions). *n_pairs = sum(m), *n_questions the questions with a pair.
 */
void stats_paired_clusters(const long *d, const long *m, size_t nq, const struct stats_options *o,
                           uint64_t seed, struct estimate *diff, long *n_pairs,
                           size_t *n_questions);

#endif

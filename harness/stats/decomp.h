#ifndef DECOMP_H
#define DECOMP_H

#include <stddef.h>

#include "stats/stats.h"

struct trial_point;

/*
 * The decomposition of a long-context drop into length, distraction and position (run --arm
 * haystack,padding,adjacent with --controls oracle; docs/effects.md "Length, distraction and
 * position", after Du et al., "Context Length Alone Hurts", arXiv 2510.05381). Per length,
 * three paired penalties, each the mean difference in correctness over pairs of trials of one
 * question, positive when the harder condition answers worse, with a bootstrap interval over
 * questions (stats_paired_clusters(): a question's pairs resampled together):
 *
 *   length       oracle - padding: each padding trial against the oracle control (the gold
 *                alone) of its question and repeat
 *   distraction  padding - haystack: trials equal in question, length, depth, repeat and the
 *                other axes
 *   position     adjacent - haystack: the same pairs; adjacent is the haystack prompt with the
 *                gold next to the question, haystack the gold at the trial's depth (the depth
 *                curve), so this is the mean over the run's depths
 *
 * A penalty whose arms the run lacks has n_pairs 0. Only correct and wrong trials count.
 * Pure; owns only its results.
 */
struct decomp_penalty {
    long n_pairs;
    size_t n_questions;
    struct estimate diff; /* -1..1; lo = -1, hi = 1 with fewer than two questions */
};

enum { DECOMP_LENGTH, DECOMP_DISTRACTION, DECOMP_POSITION, DECOMP__COUNT };

struct decomp_length {
    long length;
    struct decomp_penalty pen[DECOMP__COUNT];
};

struct decomp_stats {
    struct decomp_length *lengths; /* ascending */
    size_t n_lengths;
};

/* "length", "distraction", "position" (JSON keys, table rows). */
const char *decomp_name(int which);

/*
 * The penalties of t[0..n-1], or NULL when no trial has the arm axis. Bootstrap as o
 * (o->bootstrap_iters, o->seed, o->confidence). Free with decomp_stats_free().
 */
struct decomp_stats *decomp_stats_compute(const struct trial_point *t, size_t n,
                                          const struct stats_options *o);
void decomp_stats_free(struct decomp_stats *s);

#endif

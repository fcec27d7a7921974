#ifndef HOPS_H
#define HOPS_H

#include <stddef.h>

struct trial_point;

/*
 * Two-hop chains (run --hops 2, docs/axes.md "Two-hop chains"): needle A at the trial's depth,
 * needle B at its axis depth-b. Accuracy per (length, depth A, depth B), and per hop distance
 * |depth B - depth A| and order. Scored, non-control trials with the axes hops and depth-b only.
 */
enum hops_order { HOPS_A_FIRST = 0, HOPS_SAME, HOPS_B_FIRST, HOPS_ORDER__COUNT };

/* "a-first", "same", "b-first" */
const char *hops_order_name(enum hops_order o);

struct hops_cell {
    long length;
    double depth_a, depth_b; /* percent */
    long valid, correct;
};

struct hops_group {
    double distance; /* |depth B - depth A|, percentage points */
    enum hops_order order;
    long valid, correct;
    double design_effect; /* over the questions (cluster_design_effect()) */
    double lo, hi; /* correct / valid, clustered by question (cluster_interval(), the run's z) */
};

struct hops_stats {
    struct hops_cell *cells; /* sorted by (length, depth A, depth B) */
    size_t n_cells;
    struct hops_group *groups; /* sorted by (distance, order) */
    size_t n_groups;
    long *lengths; /* ascending, each once */
    size_t n_lengths;
    double *depth_a, *depth_b; /* ascending, each once */
    size_t n_a, n_b;
};

/* NULL when no trial has the hops axes; else the statistics (free with hops_stats_free()). */
struct hops_stats *hops_stats_compute(const struct trial_point *t, size_t n, double z);
void hops_stats_free(struct hops_stats *h);

/* The cell of (length, depth_a, depth_b), or NULL. */
const struct hops_cell *hops_cell_at(const struct hops_stats *h, long length, double depth_a,
                                     double depth_b);

#endif

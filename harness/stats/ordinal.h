#ifndef ORDINAL_H
#define ORDINAL_H

#include <stddef.h>

/*
 * Ordinal needles (run --ordinal N, docs/effects.md "Ordinal needles"): N similar needles, the
 * question naming occurrence k. Accuracy and the rate of answering a neighbouring occurrence
 * (the value of occurrence k - 1 or k + 1) by N, by the target occurrence's depth, and per
 * (N, depth), each with an interval clustered by question (cluster_interval(), the run's z).
 */

/* One scored trial: its question (the cluster, borrowed), N, depth and what it answered. */
struct ordinal_obs {
    const char *qid;
    int n;         /* the ordinal axis value N */
    int depth_bp;  /* the target occurrence's depth */
    int correct;   /* the named occurrence's value */
    int neighbour; /* 1: occurrence k - 1's or k + 1's value; 0 not; -1 unknown (no golden set) */
};

struct ordinal_group {
    int n;        /* N, 0 = every N */
    int depth_bp; /* -1 = every depth */
    long valid, correct, neighbour;
    double acc_lo, acc_hi; /* correct / valid, clustered by question */
    double nb_lo, nb_hi;   /* neighbour / valid, clustered by question */
};

struct ordinal_stats {
    struct ordinal_group *by_n; /* ascending N, every depth */
    size_t n_by_n;
    struct ordinal_group *by_depth; /* ascending depth, every N */
    size_t n_by_depth;
    struct ordinal_group *cells; /* per (N, depth), sorted by N then depth */
    size_t n_cells;
    int neighbour_known; /* 0 when a trial's neighbour is unknown (no golden set) */
};

/* NULL without observations; else the statistics (free with ordinal_stats_free()). */
struct ordinal_stats *ordinal_stats_compute(const struct ordinal_obs *o, size_t n, double z);
void ordinal_stats_free(struct ordinal_stats *s);

#endif

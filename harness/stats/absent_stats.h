#ifndef ABSENT_STATS_H
#define ABSENT_STATS_H

#include <stddef.h>

struct trial_result;
struct abstain_rule;
struct strbuf;

/*
 * Needle-absent trials (run --absent; docs/effects.md "Needle-absent trials"): the
 * hallucination rate on the absent twins (an answer that does not abstain) and the
 * false-absence rate on the present trials of the curve (an answer that abstains though the
 * gold is there), per (length, depth), per length and overall, each with the
 * question-clustered interval every accuracy has (stats.h cluster_interval()).
 */
#define ABSENT_ALL_DEPTHS  (-1) /* a rate over every depth of its length */
#define ABSENT_ALL_LENGTHS 0    /* ... and over every length */

struct absent_rate {
    long length;         /* ABSENT_ALL_LENGTHS: overall */
    int depth_bp;        /* ABSENT_ALL_DEPTHS: every depth */
    long n, k;           /* scored trials, events among them */
    size_t questions;    /* clusters */
    double rate, lo, hi; /* k / n and its interval ([0, 1] without trials) */
};

struct absent_stats {
    int present; /* the run has absent twins (else nothing below) */
    /* rows in order: each length's depths ascending, then its all-depths row; overall last */
    struct absent_rate *halluc, *denied;
    size_t n_halluc, n_denied;
};

/*
 * From a run's trials (answers needed for the false absences) and its detector r. z is the
 * interval quantile. Returns 0, or -1 (err: a detector regex failed).
 */
int absent_stats_compute(const struct trial_result *t, size_t n, const struct abstain_rule *r,
                         double z, struct absent_stats *out, struct strbuf *err);
/* The overall row of rates (NULL when none). */
const struct absent_rate *absent_rate_overall(const struct absent_rate *v, size_t n);
void absent_stats_release(struct absent_stats *s);

#endif

#ifndef EFFECTIVE_LENGTH_H
#define EFFECTIVE_LENGTH_H

#include <stddef.h>

struct length_stats;

/*
 * Effective length by the published definitions, beside dipmap's own (every depth at or above
 * 85% of a reference, stats.h): computed from the lengths' accuracies (all depths pooled, the
 * way RULER and NoLiMa score a length), lengths without a scored trial skipped.
 *
 * RULER (Hsieh et al., "RULER: What's the Real Context Size of Your Long-Context Language
 * Models?", COLM 2024): the longest length whose accuracy exceeds an absolute threshold; theirs
 * is Llama-2-7B's score at 4K, 85.6 %.
 *
 * NoLiMa (Modarressi et al., "NoLiMa: Long-Context Evaluation Beyond Literal Matching", ICML
 * 2025): the base score is the model's accuracy on short inputs (the mean over the lengths of
 * at most base_max tokens; their 250, 500 and 1K), and the effective length the longest length
 * keeping at least `fraction` (85 %) of it. With no length at or below base_max the shortest
 * length is the base (base_lengths says how many lengths were averaged).
 *
 * Both take "longest" literally: a length that qualifies counts even when a shorter one does
 * not (the papers' tables never hit that case; the report says when it happens: gaps).
 */
struct published_effective {
    int defined;         /* 0: no length with a scored trial, or a base score of 0 (NoLiMa) */
    double threshold;    /* the absolute accuracy threshold (0..1) */
    double base;         /* NoLiMa: the base score; RULER: 0 */
    double fraction;     /* NoLiMa: the share of the base to keep; RULER: 0 */
    size_t base_lengths; /* NoLiMa: lengths averaged into the base */
    long base_longest;   /* NoLiMa: the longest of them */
    long length;         /* the longest qualifying length, 0 when none qualifies */
    int gaps;            /* a shorter length misses the threshold while a longer one meets it */
};

#define EFFECTIVE_RULER_THRESHOLD 0.856 /* Llama-2-7B at 4K in RULER's results table */
#define EFFECTIVE_NOLIMA_FRACTION 0.85
#define EFFECTIVE_NOLIMA_BASE_MAX 1024L /* lengths up to 1K tokens form the base */

/* ls: n lengths in ascending order (run_stats.lengths). */
void effective_length_ruler(const struct length_stats *ls, size_t n, double threshold,
                            struct published_effective *out);
void effective_length_nolima(const struct length_stats *ls, size_t n, long base_max,
                             double fraction, struct published_effective *out);

#endif

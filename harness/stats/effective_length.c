/*
 * Effective length by RULER's and NoLiMa's published definitions (effective_length.h), from
 * the per-length accuracies run_stats computed. Pure functions.
 */
#include <string.h>

#include "stats/effective_length.h"
#include "stats/stats.h"

#include "base/banned.h"

/* The longest length meeting the threshold (>= when at_least, else >), and whether some shorter
 * scored length misses it. */
static void longest_meeting(const struct length_stats *ls, size_t n, double threshold, int at_least,
                            struct published_effective *out)
{
    size_t i;
    int missed = 0;

    out->length = 0;
    out->gaps = 0;
    for (i = 0; i < n; i++) {
        int ok;
        if (!ls[i].n_valid)
            continue;
        ok = at_least ? ls[i].accuracy >= threshold : ls[i].accuracy > threshold;
        if (ok) {
            if (missed)
                out->gaps = 1;
            out->length = ls[i].length;
        } else {
            missed = 1;
        }
    }
}

static int any_scored(const struct length_stats *ls, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (ls[i].n_valid)
            return 1;
    return 0;
}

void effective_length_ruler(const struct length_stats *ls, size_t n, double threshold,
                            struct published_effective *out)
{
    memset(out, 0, sizeof(*out));
    out->threshold = threshold;
    if (!any_scored(ls, n))
        return;
    out->defined = 1;
    longest_meeting(ls, n, threshold, 0, out);
}

void effective_length_nolima(const struct length_stats *ls, size_t n, long base_max,
                             double fraction, struct published_effective *out)
{
    double sum = 0.0;
    size_t i;

    memset(out, 0, sizeof(*out));
    out->fraction = fraction;
    for (i = 0; i < n; i++) {
        if (!ls[i].n_valid || ls[i].length > base_max)
            continue;
        sum += ls[i].accuracy;
        out->base_lengths++;
        out->base_longest = ls[i].length;
    }
    if (!out->base_lengths) { /* nothing that short: the shortest scored length is the base */
        for (i = 0; i < n && !ls[i].n_valid; i++)
            ;
        if (i == n)
            return;
        sum = ls[i].accuracy;
        out->base_lengths = 1;
        out->base_longest = ls[i].length;
    }
    out->base = sum / (double)out->base_lengths;
    out->threshold = fraction * out->base;
    if (out->base <= 0.0)
        return; /* a threshold of 0 would call every length effective */
    out->defined = 1;
    longest_meeting(ls, n, out->threshold, 1, out);
}

/*
 * Effective length by the published definitions, checked against the papers' own tables:
 * RULER's (Hsieh et al., COLM 2024, results table of its repository's README: accuracy at
 * 4K..128K and the effective length it states) and NoLiMa's (Modarressi et al., ICML 2025,
 * its README's table: base score over 250/500/1K, accuracy at 1K..32K, effective length).
 */
#include "test.h"

#include "stats/effective_length.h"
#include "stats/stats.h"

static const long ruler_lengths[] = {4096, 8192, 16384, 32768, 65536, 131072};

/* One length_stats per value (percent), every length scored. */
static void fill(struct length_stats *ls, const long *lengths, const double *pct, size_t n)
{
    size_t i;
    memset(ls, 0, n * sizeof(*ls));
    for (i = 0; i < n; i++) {
        ls[i].length = lengths[i];
        ls[i].n_valid = 100;
        ls[i].accuracy = pct[i] / 100.0;
    }
}

static long ruler(const double *pct)
{
    struct length_stats ls[6];
    struct published_effective e;
    fill(ls, ruler_lengths, pct, 6);
    effective_length_ruler(ls, 6, EFFECTIVE_RULER_THRESHOLD, &e);
    CHECK(e.defined);
    CHECK(!e.gaps);
    return e.length;
}

static void test_ruler_table(void)
{
    /* rows of RULER's table: model, 4K..128K, the effective length it reports */
    static const double gpt4[] = {96.6, 96.3, 95.2, 93.2, 87.0, 81.2};       /* 64K */
    static const double llama31_8b[] = {95.5, 93.8, 91.6, 87.4, 84.7, 77.0}; /* 32K */
    static const double glm4[] = {94.7, 92.8, 92.1, 89.9, 86.7, 83.1};       /* 64K */
    static const double gemini15[] = {96.7, 95.8, 96.0, 95.9, 95.9, 94.4};   /* >128K */
    static const double gradient70[] = {95.1, 94.4, 90.8, 85.4, 80.9, 72.1}; /* 16K */
    CHECK_INT(ruler(gpt4), 65536);
    CHECK_INT(ruler(llama31_8b), 32768);
    CHECK_INT(ruler(glm4), 65536);
    CHECK_INT(ruler(gemini15), 131072);
    CHECK_INT(ruler(gradient70), 16384);
}

static void test_ruler_threshold_settable(void)
{
    static const double gpt4[] = {96.6, 96.3, 95.2, 93.2, 87.0, 81.2};
    struct length_stats ls[6];
    struct published_effective e;
    fill(ls, ruler_lengths, gpt4, 6);
    effective_length_ruler(ls, 6, 0.95, &e);
    CHECK_INT(e.length, 16384);
    CHECK_NEAR(e.threshold, 0.95, 1e-15);
    effective_length_ruler(ls, 6, 0.97, &e); /* none above: defined, no length */
    CHECK(e.defined);
    CHECK_INT(e.length, 0);
    /* "exceeds": a length exactly at the threshold does not count */
    effective_length_ruler(ls, 6, 0.87, &e);
    CHECK_INT(e.length, 32768);
}

static const long nolima_lengths[] = {250, 500, 1000, 2000, 4000, 8000, 16000, 32000};

/* NoLiMa rows give the base score, not the 250/500 scores: both set to the value that makes the
 * mean of 250, 500 and 1K the published base. */
static struct published_effective nolima(double base, const double *pct_1k_to_32k)
{
    double pct[8];
    struct length_stats ls[8];
    struct published_effective e;
    size_t i;
    pct[0] = pct[1] = (3 * base - pct_1k_to_32k[0]) / 2;
    for (i = 0; i < 6; i++)
        pct[i + 2] = pct_1k_to_32k[i];
    fill(ls, nolima_lengths, pct, 8);
    effective_length_nolima(ls, 8, EFFECTIVE_NOLIMA_BASE_MAX, EFFECTIVE_NOLIMA_FRACTION, &e);
    CHECK(e.defined);
    CHECK_INT(e.base_lengths, 3);
    CHECK_INT(e.base_longest, 1000);
    CHECK_NEAR(e.base, base / 100.0, 1e-12);
    return e;
}

static void test_nolima_table(void)
{
    static const double gpt4o[] = {98.1, 98.0, 95.7, 89.2, 81.6, 69.7};     /* 8K, thr 84.4 */
    static const double llama33[] = {94.2, 87.4, 81.5, 72.1, 59.5, 42.7};   /* 2K, thr 82.7 */
    static const double claude35[] = {85.4, 84.0, 77.6, 61.7, 45.7, 29.8};  /* 4K, thr 74.4 */
    static const double gemma3_12b[] = {74.7, 61.8, 39.9, 27.4, 16.8, 7.3}; /* 1K, thr 74.3 */
    static const double command_rp[] = {77.0, 73.5, 66.3, 39.5, 21.3, 7.4}; /* <1K, thr 77.3 */
    struct published_effective e = nolima(99.3, gpt4o);
    CHECK_INT(e.length, 8000);
    CHECK_NEAR(e.threshold * 100, 84.4, 0.05);
    e = nolima(97.3, llama33);
    CHECK_INT(e.length, 2000);
    CHECK_NEAR(e.threshold * 100, 82.7, 0.05);
    CHECK_INT(nolima(87.6, claude35).length, 4000);
    CHECK_INT(nolima(87.4, gemma3_12b).length, 1000);
    /* "<1K": 1K misses 85% of the base; the base lengths below it keep it */
    CHECK_INT(nolima(90.9, command_rp).length, 500);
}

static void test_nolima_edges(void)
{
    static const long lengths[] = {4096, 8192, 16384};
    static const double pct[] = {80.0, 40.0, 70.0};
    struct length_stats ls[3];
    struct published_effective e;

    /* no length at or below the base cutoff: the shortest one is the base */
    fill(ls, lengths, pct, 3);
    effective_length_nolima(ls, 3, 1024, 0.85, &e);
    CHECK(e.defined);
    CHECK_INT(e.base_lengths, 1);
    CHECK_INT(e.base_longest, 4096);
    CHECK_NEAR(e.threshold, 0.68, 1e-12);
    /* 16K keeps 85% though 8K does not: the longest is taken literally, and flagged */
    CHECK_INT(e.length, 16384);
    CHECK(e.gaps);
    /* a settable base: up to 8K averages 80 and 40 */
    effective_length_nolima(ls, 3, 8192, 0.85, &e);
    CHECK_INT(e.base_lengths, 2);
    CHECK_NEAR(e.base, 0.60, 1e-12);
    CHECK_INT(e.length, 16384);
    /* unscored lengths are skipped; nothing scored: undefined */
    ls[0].n_valid = ls[1].n_valid = ls[2].n_valid = 0;
    effective_length_nolima(ls, 3, 1024, 0.85, &e);
    CHECK(!e.defined);
    effective_length_ruler(ls, 3, 0.856, &e);
    CHECK(!e.defined);
    /* a base score of 0: undefined (a threshold of 0 would call every length effective) */
    fill(ls, lengths, (const double[]){0.0, 0.0, 0.0}, 3);
    effective_length_nolima(ls, 3, 1024, 0.85, &e);
    CHECK(!e.defined);
    CHECK_INT(e.length, 0);
}

int main(void)
{
    RUN(test_ruler_table);
    RUN(test_ruler_threshold_settable);
    RUN(test_nolima_table);
    RUN(test_nolima_edges);
    return TEST_EXIT();
}

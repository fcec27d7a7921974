/*
 * Statistics benchmark: `make bench-stats`. stats_compute() (cells, lengths, the
 * question-clustered intervals and the default 2000-draw bootstrap) on a synthetic run of
 * QUESTIONS x 3 lengths x 11 depths x REPEATS trials with a planted dip, ROUNDS times; prints
 * the best and mean CPU milliseconds and a few figures, so two builds can be compared for
 * both speed and identical numbers; then compare_runs() of that run against a candidate
 * whose middle is 3 pp lower (the exact sign-flip tests of every cell and endpoint) with its
 * verdict and the smallest p, and the CPU time of one normal and one t quantile.
 * Numbers, never failures.
 *
 * usage: bench_stats [QUESTIONS [REPEATS [ROUNDS]]]   (default 1000 3 5)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/num.h"
#include "stats/compare.h"
#include "stats/stats.h"
#include "base/strbuf.h"
#include "run/trial.h"
#include "base/xalloc.h"

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static long arg(int argc, char **argv, int i, long def)
{
    long v;
    if (argc <= i)
        return def;
    if (parse_long(argv[i], &v) < 0 || v < 1) {
        fprintf(stderr, "bench_stats: '%s' is not a positive count\n", argv[i]);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    static const long lens[3] = {8192, 32768, 65536};
    long nq = arg(argc, argv, 1, 1000), reps = arg(argc, argv, 2, 3),
         rounds = arg(argc, argv, 3, 5);
    size_t n = (size_t)nq * 3 * 11 * (size_t)reps, k = 0;
    struct trial_result *t = xcalloc(n, sizeof(*t));
    struct trial_point *pt;
    unsigned long long s = 1;
    struct stats_options o;
    double best = 1e30, sum = 0;

    for (long q = 0; q < nq; q++)
        for (int l = 0; l < 3; l++)
            for (int d = 0; d < 11; d++)
                for (long r = 0; r < reps; r++) {
                    struct trial_result *x = &t[k++];
                    struct strbuf id = STRBUF_INIT;
                    double p = 0.9 - 0.4 * (d > 0 && d < 10) * (1.0 - abs(d - 5) / 5.0);
                    strbuf_addf(&id, "q%05ld", q);
                    x->question_id = strbuf_detach(&id, NULL);
                    x->length = lens[l];
                    x->depth_bp = d * 1000;
                    x->repeat = (int)r;
                    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
                    x->outcome =
                        (double)((s >> 33) % 1000) / 1000.0 < p ? OUTCOME_CORRECT : OUTCOME_WRONG;
                    x->facts.realized_length = x->usage_prompt_tokens = lens[l];
                    x->facts.realized_depth = d / 10.0;
                    x->reasoning_tokens = x->cache_n = x->cached_tokens = -1;
                }
    stats_options_init(&o);
    pt = trial_points_of(t, n); /* what the statistics read (run/trial.h) */
    for (long i = 0; i < rounds; i++) {
        struct run_stats rs;
        struct strbuf err = STRBUF_INIT;
        double t0 = cpu_seconds(), dt;
        if (stats_compute(pt, n, &o, &rs, &err) < 0) {
            fprintf(stderr, "bench_stats: %s\n", err.buf);
            return 1;
        }
        dt = cpu_seconds() - t0;
        sum += dt;
        if (dt < best)
            best = dt;
        if (!i)
            printf("figures: %zu cells, %zu lengths, edge %.6f, dip at 32k %.6f [%.6f, %.6f]\n",
                   rs.n_cells, rs.n_lengths, rs.lengths[0].edge.est, rs.lengths[1].dip.est,
                   rs.lengths[1].dip.lo, rs.lengths[1].dip.hi);
        run_stats_release(&rs);
        strbuf_release(&err);
    }
    printf("%zu trials: stats_compute best %.1f ms, mean %.1f ms CPU (%ld rounds)\n", n, best * 1e3,
           sum / (double)rounds * 1e3, rounds);
    {
        /* compare: the candidate draws its own outcomes, the middle 3 pp lower */
        struct trial_result *c = xcalloc(n, sizeof(*c));
        double cbest = 1e30, pmin = 1;
        struct compare_result r;
        for (k = 0; k < n; k++) {
            double p = 0.9 - 0.4 * (t[k].depth_bp > 0 && t[k].depth_bp < 10000) *
                                 (1.0 - abs(t[k].depth_bp / 1000 - 5) / 5.0);
            if (t[k].depth_bp >= 2500 && t[k].depth_bp <= 7500)
                p -= 0.03;
            c[k] = t[k];
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            c[k].outcome =
                (double)((s >> 33) % 1000) / 1000.0 < p ? OUTCOME_CORRECT : OUTCOME_WRONG;
        }
        struct trial_point *cpt = trial_points_of(c, n);
        for (long i = 0; i < rounds; i++) {
            double t0 = cpu_seconds(), dt;
            compare_runs(pt, n, cpt, n, NULL, &r);
            dt = cpu_seconds() - t0;
            if (dt < cbest)
                cbest = dt;
            if (i + 1 < rounds)
                compare_result_release(&r);
        }
        for (k = 0; k < r.n_tests; k++)
            if (r.tests[k].p_drop < pmin)
                pmin = r.tests[k].p_drop;
        printf(
            "compare_runs: %zu pairs, %zu tests, best %.1f ms CPU; verdict %s, smallest p %.6g\n",
            n, r.n_tests, cbest * 1e3, compare_verdict_name(r.verdict), pmin);
        compare_result_release(&r);
        free(cpt);
        free(c);
    }
    {
        /* the normal quantile serve-sim draws twice per trial, and the t quantile of intervals */
        double t0 = cpu_seconds(), acc = 0, tn, tt;
        for (long i = 1; i <= 1000000; i++)
            acc += stats_norm_upper_inv((double)i / 1000001.0);
        tn = cpu_seconds() - t0;
        t0 = cpu_seconds();
        for (long i = 2; i <= 1001; i++)
            acc += stats_t_upper_inv(0.025, i);
        tt = cpu_seconds() - t0;
        printf("quantiles: normal %.0f ns, t (df 2..1001) %.1f us CPU per call (checksum %.6f)\n",
               tn * 1e3, tt * 1e3, acc);
    }
    for (k = 0; k < n; k++)
        free(t[k].question_id);
    free(pt);
    free(t);
    return 0;
}

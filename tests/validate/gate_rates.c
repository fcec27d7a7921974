/*
 * The error rates of compare's verdict rule (issue 29: primary endpoints, PASS by upper
 * bounds), by an in-process Monte Carlo of compare_runs() on Bernoulli trials: Q questions x
 * one length (8k) x 11 depths (0:100:10), one repeat. Each question has a difficulty U_q
 * shared by both runs; a trial uses U_q with probability sqrt(icc), else a fresh uniform
 * (the outcome ICC is icc at equal accuracy: serve-sim's icc= model), and is correct when
 * the draw is below the cell's accuracy. Baseline curve: 0.9 at the edges, 0.75 in the
 * middle (25-75%), linear between. Scenarios: unchanged (the candidate has the same curve,
 * its own draws), middle-only regressions (the middle depths 5 pp = the tolerance, or 10 pp,
 * lower; edges equal: a PASS at 5 pp is the error PASS guards against).
 * Prints FAIL / PASS / INCONCLUSIVE rates per scenario, questions and icc.
 *
 * build (after make; every object but main.o):
 *   cc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Iharness tests/validate/gate_rates.c \
 *      $(ls build/harness/[a-z]*[a-z]/[a-z]*.o) -lcurl -lsqlite3 -lpcre2-8 -lcjson \
 *      -lmicrohttpd -lz -lm -lpthread -o gate_rates && ./gate_rates 400
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/compare.h"
#include "stats/stats.h"
#include "base/xalloc.h"

static double curve(int depth_bp, double mid_drop)
{
    double x = depth_bp / 10000.0, shape = 1.0 - fabs(2.0 * x - 1.0); /* 0 edges, 1 at 50% */
    double acc = 0.9 - 0.15 * (shape < 0.5 ? shape * 2.0 : 1.0);
    if (depth_bp >= 2500 && depth_bp <= 7500)
        acc -= mid_drop;
    return acc;
}

static double unif(struct stats_rng *r)
{
    return (double)(stats_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

static void make(struct trial_result *t, int q, const double *uq, double icc, double mid_drop,
                 struct stats_rng *r, char ids[][12])
{
    int d, k = 0, i;
    for (i = 0; i < q; i++)
        for (d = 0; d <= 10000; d += 1000) {
            double u = unif(r) < sqrt(icc) ? uq[i] : unif(r);
            trial_result_init(&t[k]);
            t[k].question_id = ids[i];
            t[k].length = 8192;
            t[k].depth_bp = d;
            t[k].outcome = u < curve(d, mid_drop) ? OUTCOME_CORRECT : OUTCOME_WRONG;
            k++;
        }
}

int main(int argc, char **argv)
{
    static const int qs[] = {36, 100, 200, 400};
    static const double iccs[] = {0.0, 0.3};
    static const double drops[] = {0.0, 0.05, 0.10};
    int reps = argc > 1 ? atoi(argv[1]) : 400;
    struct stats_rng rng;
    size_t a, b, c;
    stats_rng_seed(&rng, 29);
    printf("scenario | questions | icc | replicates | FAIL | PASS | INCONCLUSIVE\n");
    for (c = 0; c < sizeof(drops) / sizeof(*drops); c++)
        for (b = 0; b < 2; b++)
            for (a = 0; a < sizeof(qs) / sizeof(*qs); a++) {
                int q = qs[a], rep, n = q * 11, v[3] = {0, 0, 0};
                char(*ids)[12] = xcalloc((size_t)q, sizeof(*ids));
                double *uq = xcalloc((size_t)q, sizeof(*uq));
                struct trial_result *tb = xcalloc((size_t)n, sizeof(*tb));
                struct trial_result *tc = xcalloc((size_t)n, sizeof(*tc));
                for (int i = 0; i < q; i++)
                    snprintf(ids[i], sizeof(ids[i]), "q%04d", i);
                for (rep = 0; rep < reps; rep++) {
                    struct compare_result r;
                    for (int i = 0; i < q; i++)
                        uq[i] = unif(&rng);
                    make(tb, q, uq, iccs[b], 0.0, &rng, ids);
                    make(tc, q, uq, iccs[b], drops[c], &rng, ids);
                    compare_runs(tb, (size_t)n, tc, (size_t)n, NULL, &r);
                    v[r.verdict == VERDICT_FAIL ? 0 : r.verdict == VERDICT_PASS ? 1 : 2]++;
                    compare_result_release(&r);
                }
                printf("%s | %d | %.1f | %d | %.1f%% | %.1f%% | %.1f%%\n",
                       drops[c] > 0.07 ? "middle -10 pp" : drops[c] > 0 ? "middle -5 pp (= tolerance)" : "unchanged", q, iccs[b], reps,
                       100.0 * v[0] / reps, 100.0 * v[1] / reps, 100.0 * v[2] / reps);
                fflush(stdout);
                free(ids);
                free(uq);
                free(tb);
                free(tc);
            }
    return 0;
}

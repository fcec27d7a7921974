/*
 * Listing figures of a run (valid trials, accuracy, dip per length): load the
 * trials, run the statistics without the bootstrap, keep the few numbers a
 * listing shows. Used by `dipmap runs` and `dipmap view`.
 */
#include "report/runbrief.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/plan.h"
#include "run/runner.h"
#include "run/trial.h"
#include "stats/stats.h"
#include "store/store.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

#include "base/banned.h"

int runbrief_load(struct store *st, const char *name, struct runbrief *b)
{
    struct trial_point_set c = TRIAL_POINT_SET_INIT;
    size_t i;
    struct stats_options o;
    struct run_stats s;
    struct strbuf err = STRBUF_INIT;
    int rc;

    memset(b, 0, sizeof(*b));
    b->accuracy = NAN;
    b->dip_max = NAN;
    /* the points only (no texts): a million trials' statistics in about 100 MB */
    rc = store_points_load(st, name, &c);
    if (rc) {
        trial_point_set_release(&c);
        return rc;
    }
    stats_options_init(&o);
    o.bootstrap_iters = 0;
    if (stats_compute(c.v, c.nr, &o, &s, &err) < 0) {
        strbuf_release(&err);
        trial_point_set_release(&c);
        return -1;
    }
    b->trials = s.n_trials;
    b->valid = s.n_valid;
    b->correct = s.n_correct;
    if (s.n_valid)
        b->accuracy = s.accuracy;
    b->n_dips = s.n_lengths;
    b->dips = xcalloc(s.n_lengths + 1, sizeof(*b->dips));
    for (i = 0; i < s.n_lengths; i++) {
        const struct length_stats *l = &s.lengths[i];
        b->dips[i].length = l->length;
        /* at the floor or the ceiling there is no dip to list (stats_dip_bound) */
        b->dips[i].dip = l->has_middle && !stats_dip_bound(l) ? l->dip.est : NAN;
        if (!isnan(b->dips[i].dip) && (isnan(b->dip_max) || l->dip.est > b->dip_max)) {
            b->dip_max = l->dip.est;
            b->dip_max_length = l->length;
        }
    }
    run_stats_release(&s);
    strbuf_release(&err);
    trial_point_set_release(&c);
    return 0;
}

void runbrief_release(struct runbrief *b)
{
    free(b->dips);
    memset(b, 0, sizeof(*b));
}

/*
 * The end-of-run lines. `outcomes` are this invocation's; the accuracy line is the whole run's
 * (run_correct of run_valid, from the store's statistics, trials kept from before included)
 * when run_valid >= 0, else this invocation's; either counts the depth curve's trials only
 * (trial_on_curve), as the report does.
 */
/*
 * The schedule and what the server's prefix cache did with it: prompt tokens sent, those it
 * says it took from its cache, those it computed; and the mean send time per depth (a
 * schedule must not send one depth systematically earlier than another).
 */
void runbrief_print_schedule(const struct runner_result *res)
{
    size_t i;
    double first = 0, last = 0;
    int any = 0;
    printf("schedule: %s", runner_schedule_name(res->schedule));
    if (res->prompt_tokens > 0 && (res->cached_trials || res->timings_trials))
        printf("; prompt tokens sent %ld, from the server's cache %ld (%.1f%%), computed %ld",
               res->prompt_tokens, res->prompt_cached,
               100.0 * (double)res->prompt_cached / (double)res->prompt_tokens,
               res->prompt_tokens - res->prompt_cached);
    printf("\n");
    for (i = 0; i < res->depth_nr; i++) {
        double m;
        if (!res->depth_sent[i] || trial_is_control(TRIAL_CONTROL_LENGTH, res->depth_bp[i]))
            continue;
        m = res->depth_send_s[i] / (double)res->depth_sent[i];
        if (!any || m < first)
            first = m;
        if (!any || m > last)
            last = m;
        any++;
    }
    if (any < 2)
        return;
    /* the curve's depths, then the control trials by name (closed-book, oracle) */
    printf("send time by depth (mean s after the start):");
    for (int pass = 0; pass < 2; pass++)
        for (i = 0; i < res->depth_nr; i++) {
            struct strbuf d = STRBUF_INIT;
            const char *ctl = trial_is_control(TRIAL_CONTROL_LENGTH, res->depth_bp[i])
                                  ? trial_control_name(res->depth_bp[i])
                                  : NULL;
            if (!res->depth_sent[i] || !ctl != !pass)
                continue;
            if (ctl)
                strbuf_addstr(&d, ctl);
            else
                plan_format_depth(&d, res->depth_bp[i]);
            printf(" %s %.1f", d.buf, res->depth_send_s[i] / (double)res->depth_sent[i]);
            strbuf_release(&d);
        }
    printf("; spread %.1f s of %.1f s\n", last - first, res->wall_seconds);
}

void runbrief_print_run(const char *run, const char *db, const struct runner_result *res,
                        enum run_status status, int window, long run_correct, long run_valid,
                        long run_stored)
{
    long scored = res->curve_scored, correct = res->curve_correct;
    long done = res->already_done + res->finished;
    int o;
    printf("run %s: %s\n", run, run_status_name(status));
    if (run_stored >= 0 && run_stored < done)
        /* answers the store could not keep (a full disk): say what is stored */
        printf("trials: %ld of %ld stored (%ld answered this time, %ld of them not stored; %ld "
               "kept from before)\n",
               run_stored, res->planned, res->finished, done - run_stored, res->already_done);
    else
        printf("trials: %ld of %ld done (%ld this time, %ld kept from before)\n", done,
               res->planned, res->finished, res->already_done);
    /* this invocation's outcomes; on a resume the accuracy below is the whole run's */
    printf(res->already_done ? "outcomes this time:" : "outcomes:");
    for (o = OUTCOME_CORRECT; o < OUTCOME__COUNT; o++)
        printf(" %s %ld", outcome_name((enum trial_outcome)o), res->outcomes[o]);
    printf("\n");
    if (res->reused)
        printf("reused: %ld trial(s) answered from stored byte-identical requests (not sent)\n",
               res->reused);
    if (res->cut)
        printf("cut: %ld scored answer(s) reached the answer budget (finish_reason length; scored "
               "on what they said)\n",
               res->cut);
    if (res->outcomes[OUTCOME_STARVED])
        printf("starved: %ld trial(s) spent the answer budget on reasoning (%ld reasoning tokens); "
               "raise --max-tokens or lower --reasoning-effort\n",
               res->outcomes[OUTCOME_STARVED], res->starved_reasoning_tokens);
    if (run_valid >= 0) {
        scored = run_valid;
        correct = run_correct;
    }
    if (scored)
        printf("accuracy: %.1f%% (%ld of %ld scored trials%s)\n", 100.0 * correct / scored, correct,
               scored, run_valid >= 0 && res->already_done ? " in the run" : "");
    if (scored && (!correct || correct == scored))
        printf("dip: cannot be measured: every scored trial is %s (the accuracy %s); the report "
               "gives no dip and no ordering advice\n",
               correct ? "correct" : "wrong", correct ? "ceiling" : "floor");
    printf("requests: %ld (%ld retries); tokens: %ld prompt, %ld completion", res->requests,
           res->retries, res->prompt_tokens, res->completion_tokens);
    if (res->cost_usd >= 0)
        printf("; cost $%.4f", res->cost_usd);
    printf("\n");
    if (res->timings_trials && res->cache_n + res->prompt_n > 0)
        printf(
            "prompt cache: %ld of %ld prompt tokens reused (%.1f%%), from the server's timings of "
            "%ld trials\n",
            res->cache_n, res->cache_n + res->prompt_n,
            100.0 * (double)res->cache_n / (double)(res->cache_n + res->prompt_n),
            res->timings_trials);
    runbrief_print_schedule(res);
    if (res->mean_inflight > 0)
        printf("in flight: mean %.1f requests (window %d), %.1f s\n", res->mean_inflight, window,
               res->wall_seconds);
    if (res->window_decreases)
        printf("concurrency: lowered %ld time(s) on rate limits, down to %d\n",
               res->window_decreases, res->min_window);
    if (res->tokenizer_mismatches)
        printf("tokenizer mismatch: %ld trial(s), worst %.1f%%\n", res->tokenizer_mismatches,
               100.0 * res->worst_mismatch);
    printf("store: %s\n", db);
}

void runbrief_print_end(struct store *st, const char *run, const char *db,
                        const struct runner_result *res, enum run_status status, int window)
{
    struct runbrief b;
    struct run_info ri;
    long correct = -1, valid = -1, stored = -1;
    memset(&b, 0, sizeof(b));
    if (runbrief_load(st, run, &b) == 0) {
        correct = b.correct;
        valid = b.valid;
    }
    runbrief_release(&b);
    if (store_run_get(st, run, &ri) == 0)
        stored = ri.trials_done; /* finished trial rows, controls included */
    run_info_release(&ri);
    runbrief_print_run(run, db, res, status, window, correct, valid, stored);
}

/*
 * The runner: a single-threaded event loop that turns a plan into stored
 * trials. It owns filling the window (buckets, retries, the budget), scoring
 * dispatch, batched store writes, progress on stderr and the SIGINT/SIGTERM
 * handling of `dipmap run`; the send order is runner_order.c's, the prompts
 * built ahead runner_prebuild.c's (runner-int.h).
 */
#define _GNU_SOURCE
#include "run/runner.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prompt/dataset.h"
#include "run/plan.h"
#include "prompt/layout.h"
#include "run/reuse.h"
#include "store/store.h"
#include "tokenizer/tokenizer.h"
#include "base/rng.h"
#include "base/xalloc.h"
#include "base/utc.h"

#include "run/runner-int.h"

#include "base/banned.h"

/* Trials finished before the "mostly errors" circuit breaker may trip. */
#define BREAKER_MIN_TRIALS 20
/* Longest single wait in the loop, so signals and deadlines are noticed quickly. */
#define MAX_POLL_MS 100
/* Consecutive failed commits before the run gives up. */
#define MAX_FLUSH_FAILURES 5
/* A tokenizer mismatch: |usage.prompt_tokens / realized - 1| above this. */

int runner_progress_parse(const char *s, enum runner_progress *out)
{
    static const char *const names[] = {"auto", "bar", "lines", "none"};
    size_t i;
    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (!strcmp(s, names[i])) {
            *out = (enum runner_progress)i;
            return 0;
        }
    return -1;
}

int runner_schedule_parse(const char *s, enum runner_schedule *out)
{
    if (!strcmp(s, "plan"))
        *out = RUNNER_SCHEDULE_PLAN;
    else if (!strcmp(s, "shuffle"))
        *out = RUNNER_SCHEDULE_SHUFFLE;
    else if (!strcmp(s, "cache"))
        *out = RUNNER_SCHEDULE_CACHE;
    else
        return -1;
    return 0;
}

const char *runner_schedule_name(enum runner_schedule s)
{
    switch (s) {
    case RUNNER_SCHEDULE_SHUFFLE:
        return "shuffle";
    case RUNNER_SCHEDULE_CACHE:
        return "cache";
    case RUNNER_SCHEDULE_PLAN:
        break;
    }
    return "plan";
}

const char *runner_end_name(enum runner_end e)
{
    switch (e) {
    case RUNNER_COMPLETE:
        return "complete";
    case RUNNER_INTERRUPTED:
        return "interrupted";
    case RUNNER_BUDGET:
        return "budget reached";
    case RUNNER_TOO_MANY_ERRORS:
        return "too many errors";
    case RUNNER_FATAL:
        return "refused by the endpoint";
    case RUNNER_INPUT_ERROR:
        return "input error";
    case RUNNER_MISMATCH:
        return "tokenizer mismatch";
    case RUNNER_STORE_ERROR:
        return "store error";
    case RUNNER_INCOMPLETE:
        return "incomplete";
    }
    return "unknown";
}

void runner_config_init(struct runner_config *c)
{
    struct throttle_backoff b;

    throttle_backoff_init(&b, 0); /* the backoff's defaults are throttle's */
    memset(c, 0, sizeof(*c));
    c->chat = 1;
    c->max_tokens = CLIENT_DEFAULT_MAX_TOKENS;
    c->concurrency = RUNNER_DEFAULT_CONCURRENCY;
    c->max_attempts = 6;
    c->backoff_base_ms = b.base_ms;
    c->backoff_max_ms = b.max_ms;
    c->max_error_rate = 0.05;
    c->price_in = -1;
    c->price_out = -1;
    c->drain_seconds = 30;
    c->flush_seconds = 0;
    c->progress_interval = 10;
    c->jitter_seed = 0x9e3779b97f4a7c15ULL;
    c->price_cached_in = -1;
}

void runner_result_init(struct runner_result *r)
{
    memset(r, 0, sizeof(*r));
    r->cost_usd = -1;
}

void runner_result_release(struct runner_result *r)
{
    int i;
    free(r->message);
    free(r->served_model);
    free(r->system_fingerprint);
    for (i = 0; i < RUNNER_TOP_ERRORS; i++)
        free(r->top_error[i]);
    free(r->depth_bp);
    free(r->depth_send_s);
    free(r->depth_sent);
    runner_result_init(r);
}

/* ---- signals ------------------------------------------------------------- */

static volatile sig_atomic_t signals_seen, first_signal;

/*
 * The first SIGINT or SIGTERM drains (runner.h). Only a Ctrl-C after it exits at once: GNU
 * timeout sends its SIGTERM to the process and again to its process group, and a service
 * manager may repeat it, so a SIGTERM never counts as "again" (it drains like one Ctrl-C).
 */
static void on_signal(int sig)
{
    if (signals_seen && sig == SIGINT) {
        static const char msg[] = "\ninterrupted again: exiting now (committed trials are kept)\n";
        ssize_t w = write(STDERR_FILENO, msg, sizeof(msg) - 1);
        (void)w;
        _exit(DM_EXIT_INTERRUPTED);
    }
    if (!signals_seen)
        first_signal = sig;
    signals_seen = 1;
}

/*
 * on_signal() for SIGINT and SIGTERM (the old actions kept for the return); from here a
 * signal drains, which the "sending" line says (tests wait for it before they send one).
 */
static void signals_install(struct sigaction *old_int, struct sigaction *old_term, long to_send)
{
    struct sigaction sa;
    signals_seen = first_signal = 0;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: waits end early */
    sigaction(SIGINT, &sa, old_int);
    sigaction(SIGTERM, &sa, old_term);
    if (to_send > 0)
        fprintf(stderr,
                "sending %ld trial(s): Ctrl-C or SIGTERM stops after the requests in flight, "
                "and the run resumes\n",
                to_send);
}

/* USD of in_tokens prompt tokens, cached of them from the server's cache, and out_tokens. */
static double cost_of(const struct runner_config *cfg, double in_tokens, double cached,
                      double out_tokens)
{
    double pc = cfg->price_cached_in >= 0 ? cfg->price_cached_in : cfg->price_in;
    if (cached > in_tokens)
        cached = in_tokens;
    return (in_tokens - cached) * cfg->price_in / 1e6 + cached * pc / 1e6 +
           out_tokens * cfg->price_out / 1e6;
}

static int prices_known(const struct runner_config *cfg)
{
    return cfg->price_in >= 0 && cfg->price_out >= 0;
}

static void set_message(struct runner *r, const char *fmt, ...) DM_PRINTF(2, 3);
static void set_message(struct runner *r, const char *fmt, ...)
{
    struct strbuf sb = STRBUF_INIT;
    va_list ap;
    if (r->res->message)
        return; /* the first reason wins */
    va_start(ap, fmt);
    strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    r->res->message = strbuf_detach(&sb, NULL);
}

static void stop_with(struct runner *r, enum runner_end end)
{
    if (!r->stop || r->res->end == RUNNER_COMPLETE || r->res->end == RUNNER_BUDGET)
        r->res->end = end;
    r->stop = 1;
}

static void count_error_message(struct runner_result *res, const char *msg)
{
    int i, min = 0;
    if (!msg || !*msg)
        msg = "unknown error";
    for (i = 0; i < RUNNER_TOP_ERRORS; i++) {
        if (!res->top_error[i]) {
            res->top_error[i] = xstrndup(msg, 300);
            res->top_error_count[i] = 1;
            return;
        }
        if (!strncmp(res->top_error[i], msg, 300) && strlen(res->top_error[i]) == strlen(msg)) {
            res->top_error_count[i]++;
            return;
        }
        if (res->top_error_count[i] < res->top_error_count[min])
            min = i;
    }
    /* Table full: replace the least frequent entry seen once (keeps frequent ones). */
    if (res->top_error_count[min] <= 1) {
        free(res->top_error[min]);
        res->top_error[min] = xstrndup(msg, 300);
        res->top_error_count[min] = 1;
    }
}

/* ---- progress ------------------------------------------------------------ */

static void fmt_duration(struct strbuf *sb, double s)
{
    long t;
    if (!(s >= 0) || s > 1e8) {
        strbuf_addstr(sb, "?");
        return;
    }
    t = (long)(s + 0.5);
    if (t >= 3600)
        strbuf_addf(sb, "%ldh%02ldm", t / 3600, (t / 60) % 60);
    else if (t >= 60)
        strbuf_addf(sb, "%ldm%02lds", t / 60, t % 60);
    else
        strbuf_addf(sb, "%lds", t);
}

static void progress(struct runner *r, double now, int final)
{
    const struct runner_result *res = r->res;
    struct strbuf sb = STRBUF_INIT;
    long done = res->already_done + res->finished;
    long scored = res->curve_scored; /* the accuracy the report gives: the depth curve's */
    double elapsed = (now - r->start_ms) / 1000.0;
    double rate = elapsed > 0 ? res->finished / elapsed : 0;
    double eta = rate > 0 ? (res->planned - done) / rate : -1;
    long errors = res->outcomes[OUTCOME_ERROR];

    if (!r->bar && !r->lines)
        return;
    if (r->bar) {
        int width = 24, fill, i;
        fill = res->planned ? (int)((double)done * width / (double)res->planned) : width;
        strbuf_addstr(&sb, "\r[");
        for (i = 0; i < width; i++)
            strbuf_addch(&sb, i < fill ? '=' : (i == fill ? '>' : ' '));
        strbuf_addf(&sb, "] %ld/%ld %.1f/s ETA ", done, res->planned, rate);
        fmt_duration(&sb, eta);
        strbuf_addf(&sb, " retries %ld errors %ld", res->retries, errors);
        if (scored)
            strbuf_addf(&sb, " acc %.1f%%", 100.0 * res->curve_correct / scored);
        strbuf_addf(&sb, " c=%d\033[K", throttle_aimd_limit(&r->aimd));
        if (final)
            strbuf_addch(&sb, '\n');
        r->bar_drawn = !final;
    } else {
        strbuf_addf(&sb, "progress: %ld/%ld trials (%.0f%%), %zu in flight, %.1f/s, ETA ", done,
                    res->planned, res->planned ? 100.0 * done / res->planned : 100.0,
                    client_inflight(r->cfg->client), rate);
        fmt_duration(&sb, eta);
        strbuf_addf(&sb, ", %ld retries, %ld errors", res->retries, errors);
        if (scored)
            strbuf_addf(&sb, ", accuracy %.1f%%", 100.0 * res->curve_correct / scored);
        strbuf_addf(&sb, ", window %d\n", throttle_aimd_limit(&r->aimd));
    }
    fputs(sb.buf, stderr);
    fflush(stderr);
    strbuf_release(&sb);
    r->last_progress_ms = now;
}

/* A warning while the bar is drawn must start on a fresh line. */
static void bar_break(struct runner *r)
{
    if (r->bar && r->bar_drawn) {
        fputc('\n', stderr);
        r->bar_drawn = 0;
    }
}

/* ---- store --------------------------------------------------------------- */

static int flush(struct runner *r, double now)
{
    r->last_flush_ms = now;
    if (store_flush(r->cfg->store) == 0) {
        r->flush_failures = 0;
        return 0;
    }
    if (++r->flush_failures >= MAX_FLUSH_FAILURES) {
        set_message(r, "cannot commit trials to %s", store_path(r->cfg->store));
        stop_with(r, RUNNER_STORE_ERROR);
    }
    return -1;
}

/* Was trial i of the plan finished by an earlier invocation (cfg->done)? */
int runner_trial_done(const struct runner_config *cfg, size_t i)
{
    const struct plan_trial *pt = &cfg->plan->t[i];
    struct trial_key k;
    if (!cfg->done)
        return 0;
    k.question_id = cfg->gs->q[pt->question].id;
    k.length = pt->length;
    k.depth_bp = pt->depth_bp;
    k.repeat = pt->repeat;
    k.axes = pt->axes;
    return store_done_set_has(cfg->done, &k);
}

static void slot_free(struct runner *r, struct slot *s)
{
    if (s->state == SLOT_FLIGHT)
        r->inflight_tokens -= s->est_tokens;
    s->state = SLOT_FREE;
    r->busy--;
}

void runner_result_count(struct runner_result *res, const struct plan_trial *pt,
                         enum trial_outcome outcome)
{
    int curve = trial_on_curve(pt->length, pt->depth_bp, pt->axes);
    res->finished++;
    res->outcomes[outcome]++;
    res->curve_scored += curve && outcome_is_scored(outcome);
    res->curve_correct += curve && outcome == OUTCOME_CORRECT;
}

int runner_score_answer(const struct question *q, const char *axes, enum scorer_kind kind,
                        const struct abstain_rule *ab, const char *answer, double *score,
                        struct strbuf *err)
{
    static const struct abstain_rule dflt = {ABSTAIN_PHRASE, NULL, 0};
    const char **needles = NULL;
    size_t n;
    int rc;
    if (!answer)
        answer = "";
    if (trial_is_absent(axes)) {
        rc = score_abstained(ab ? ab : &dflt, answer, err);
        *score = rc > 0;
        return rc < 0 ? -1 : 0;
    }
    n = prompt_needle_answers(q, axes, &needles);
    if (n)
        rc = score_answer(SCORER_ALL, answer, needles, n, NULL, score, err);
    else
        rc = score_answer(kind, answer, (const char *const *)q->answers.v, q->answers.nr,
                          q->answer_regex, score, err);
    free(needles);
    return rc;
}

int runner_score(const struct runner_config *cfg, size_t trial, const char *answer, double *score,
                 struct strbuf *err)
{
    const struct plan_trial *pt = &cfg->plan->t[trial];
    return runner_score_answer(&cfg->gs->q[pt->question], pt->axes, cfg->scorers[pt->question],
                               cfg->abstain, answer, score, err);
}

static void record_trial(struct runner *r, struct slot *s, const struct client_response *resp,
                         enum trial_outcome outcome, double score, const char *error_msg)
{
    const struct runner_config *cfg = r->cfg;
    const struct plan_trial *pt = &cfg->plan->t[s->trial];
    struct trial_answer_meta meta = {
        .attempts = s->attempts, .sent_at = s->sent_at, .reused_from = s->reused_from};
    struct trial_view v;
    const struct trial_result *t = &v.figures;

    if (trial_answer_record(cfg, s->trial, &s->facts, resp, outcome, score, error_msg, &meta, &v) <
        0) {
        set_message(r, "cannot store trial %s/%ld/%d/%d: %s", v.question_id, pt->length,
                    pt->depth_bp, pt->repeat, store_errmsg(cfg->store));
        stop_with(r, RUNNER_STORE_ERROR);
    }
    runner_result_count(r->res, pt, outcome);
    r->res->cut += t->cut;
    if (t->cache_n >= 0 && t->prompt_n >= 0) {
        r->res->timings_trials++;
        r->res->cache_n += t->cache_n;
        r->res->prompt_n += t->prompt_n;
    }
    if (t->cached_tokens >= 0) {
        r->res->cached_trials++;
        r->res->cached_tokens += t->cached_tokens;
    }
    if (s->sent_at > 0) {
        size_t d;
        for (d = 0; d < r->res->depth_nr && r->res->depth_bp[d] != pt->depth_bp; d++)
            ;
        if (d < r->res->depth_nr) {
            r->res->depth_send_s[d] += s->sent_at - r->start_wall;
            r->res->depth_sent[d]++;
        }
    }
    runner_order_answered(r, s->trial, s->reused_from ? NULL : resp);
    runner_order_final(r, s->trial);
    if (outcome == OUTCOME_STARVED)
        r->res->starved_reasoning_tokens +=
            trial_reasoning_spent(t->reasoning_tokens, t->completion_tokens);
    if (outcome == OUTCOME_ERROR)
        count_error_message(r->res, error_msg);
    slot_free(r, s);
}

/* ---- sending ------------------------------------------------------------- */

static int send_built(struct runner *r, struct slot *s, const struct built_prompt *bp, double now);

/* A retry: build the trial's prompt again (event loop's builder), then send it. */
static int send_slot(struct runner *r, struct slot *s, double now)
{
    const struct runner_config *cfg = r->cfg;
    const struct plan_trial *pt = &cfg->plan->t[s->trial];
    const struct question *q = &cfg->gs->q[pt->question];
    struct prompt_request pr;

    trial_prompt_request(cfg, s->trial, &pr);
    strbuf_reset(&r->err);
    if (prompt_build(cfg->builder, &pr, &r->bp, &r->err) < 0) {
        set_message(r, "cannot build the prompt of question %s at length %ld, depth %g%%: %s",
                    q->id, pt->length, pt->depth_bp / 100.0, r->err.buf);
        stop_with(r, RUNNER_INPUT_ERROR);
        slot_free(r, s);
        return -1;
    }
    return send_built(r, s, &r->bp, now);
}

/*
 * A byte-identical request was answered before (run --reuse): its stored
 * answer is taken instead of sending, scored with this run's scorer, and
 * the trial records where it came from.
 */
static void finish_reused(struct runner *r, struct slot *s, const struct trial_result *old,
                          const char hex[SHA256_HEX_LEN + 1], const char *source)
{
    const struct runner_config *cfg = r->cfg;
    struct client_response resp;
    enum trial_outcome outcome = old->outcome;
    double score = 0;
    const char *msg = old->error;

    client_response_init(&resp);
    resp.content = old->answer;
    resp.reasoning = old->reasoning;
    resp.finish_reason = old->finish_reason;
    resp.http_status = old->http_status;
    resp.prompt_tokens = old->usage_prompt_tokens;
    resp.completion_tokens = old->completion_tokens;
    resp.reasoning_tokens = old->reasoning_tokens;
    resp.cut = old->cut;
    memcpy(resp.request_sha256, hex, sizeof(resp.request_sha256));
    strbuf_reset(&r->err);
    if (outcome_is_scored(outcome)) {
        if (runner_score(cfg, s->trial, old->answer, &score, &r->err) < 0) {
            outcome = OUTCOME_ERROR;
            msg = r->err.buf;
        } else {
            outcome = score >= 0.5 ? OUTCOME_CORRECT : OUTCOME_WRONG;
            msg = NULL;
        }
    }
    s->state = SLOT_WAITING; /* never in flight */
    s->reused_from = source;
    r->res->reused++;
    record_trial(r, s, &resp, outcome, score, msg);
    s->reused_from = NULL;
    /* resp's strings are borrowed from the index: not released */
}

static int send_built(struct runner *r, struct slot *s, const struct built_prompt *bp, double now)
{
    const struct runner_config *cfg = r->cfg;
    struct client_request *req = &r->req.req;
    struct client_cache_hints hints;
    char salt[32], nonce[40];

    if (cfg->no_reuse == RUNNER_REUSE_NONCE)
        snprintf(nonce, sizeof(nonce), "[request %016llx]\n",
                 (unsigned long long)rng_splitmix64(&r->nonce_next));
    trial_request_make(cfg, bp, cfg->no_reuse == RUNNER_REUSE_NONCE ? nonce : NULL, &r->req);
    s->facts = r->req.facts;
    s->est_tokens = (double)bp->realized_len + (double)cfg->max_tokens;
    s->id_slot = -1;

    if (cfg->store_prompts && s->attempts == 0 && trial_request_store_prompt(cfg, &r->req) < 0) {
        set_message(r, "cannot store a rendered prompt in %s", store_path(cfg->store));
        stop_with(r, RUNNER_STORE_ERROR);
        slot_free(r, s);
        return -1;
    }
    req->tag = s;
    runner_order_hints(r, s, &hints, salt);
    req->hints = &hints;

    if (cfg->reuse && s->attempts == 0) {
        char hex[SHA256_HEX_LEN + 1];
        const char *src = NULL;
        const struct trial_result *old;
        client_request_sha256(cfg->client, req, hex);
        old = reuse_find(cfg->reuse, hex, &src);
        if (old) {
            finish_reused(r, s, old, hex, src);
            return 0;
        }
    }

    s->attempts++;
    r->res->requests++;
    if (s->attempts > 1)
        r->res->retries++;
    throttle_bucket_take(&r->rpm, 1, now);
    throttle_bucket_take(&r->tpm, s->est_tokens, now);
    s->sent_at = utc_now();
    strbuf_reset(&r->err);
    if (client_submit(cfg->client, req, &r->err) < 0) {
        /* Could not even set the transfer up: an attempt that failed locally. */
        if (s->attempts < cfg->max_attempts) {
            s->state = SLOT_WAITING;
            s->ready_ms = now + throttle_backoff_delay(&r->backoff, s->attempts, -1);
        } else {
            struct strbuf msg = STRBUF_INIT;
            strbuf_addf(&msg, "request not sent: %s", r->err.buf);
            s->state = SLOT_WAITING; /* not in flight: record_trial() must not adjust tokens */
            record_trial(r, s, NULL, OUTCOME_ERROR, 0, msg.buf);
            strbuf_release(&msg);
        }
        return 0;
    }
    s->state = SLOT_FLIGHT;
    r->inflight_tokens += s->est_tokens;
    if (r->id_slots && hints.id_slot >= 0) {
        s->id_slot = hints.id_slot;
        r->id_slots[s->id_slot].inflight++;
    }
    return 0;
}

/* Buckets (--rpm/--tpm): ms until a request of est tokens may go. */
static double bucket_wait(struct runner *r, double est, double now)
{
    double a = throttle_bucket_wait_ms(&r->rpm, 1, now);
    double b = throttle_bucket_wait_ms(&r->tpm, est, now);
    return a > b ? a : b;
}

static struct slot *free_slot(struct runner *r)
{
    int i;
    for (i = 0; i < r->nslots; i++)
        if (r->slots[i].state == SLOT_FREE)
            return &r->slots[i];
    return NULL;
}

/* Upper bound of what the trials in progress (in flight or awaiting a retry) will cost. */
static double committed_cost(const struct runner *r)
{
    double in = 0, out = 0;
    int i;
    for (i = 0; i < r->nslots; i++) {
        if (r->slots[i].state == SLOT_FREE)
            continue;
        in += (double)r->slots[i].facts.realized_length;
        out += (double)r->cfg->max_tokens;
    }
    return cost_of(r->cfg, in, 0, out);
}

/* What the run has spent in this invocation, cached prompt tokens at their price. */
static double spent_cost(const struct runner *r)
{
    return cost_of(r->cfg, (double)r->res->prompt_tokens, (double)r->res->prompt_cached,
                   (double)r->res->completion_tokens);
}

/* Fill the window: due retries first, then new trials. Returns ms until the next due event. */
static double fill_window(struct runner *r, double now)
{
    const struct runner_config *cfg = r->cfg;
    int limit = throttle_aimd_limit(&r->aimd);
    double next = MAX_POLL_MS;
    int i;

    if (r->probing)
        limit = 1;
    if (r->stop)
        return next;
    for (i = 0; i < r->nslots && !r->stop; i++) {
        struct slot *s = &r->slots[i];
        double w;
        if (s->state != SLOT_WAITING)
            continue;
        if (r->id_slots) {
            const struct sgroup *g = &r->groups[r->grp[s->trial]];
            if (g->slot >= 0 && r->id_slots[g->slot].inflight)
                continue; /* one request per llama.cpp slot (group_pick_slot()) */
        }
        if (s->ready_ms > now) {
            if (s->ready_ms - now < next)
                next = s->ready_ms - now;
            continue;
        }
        if ((int)client_inflight(cfg->client) >= limit)
            break;
        w = bucket_wait(r, s->est_tokens, now);
        if (w > 0) {
            if (w < next)
                next = w;
            break;
        }
        send_slot(r, s, now);
    }
    while (!r->stop && r->busy < limit) {
        int exhausted;
        struct prebuilt *e =
            runner_prebuild_take(r->pb, r->groups ? runner_order_ready : NULL, r, &exhausted);
        const struct plan_trial *pt;
        struct slot *s;
        double est, w;

        if (!e) {
            r->exhausted = exhausted;
            if (!exhausted && next > 2)
                next = 2; /* a builder thread is about to deliver: look again soon */
            break;
        }
        pt = &cfg->plan->t[e->trial];
        est = (double)e->bp.realized_len + (double)cfg->max_tokens;
        if (cfg->max_cost > 0 && prices_known(cfg)) {
            double spent = spent_cost(r);
            double pending = committed_cost(r);
            double mine = cost_of(cfg, (double)e->bp.realized_len, 0, (double)cfg->max_tokens);
            if (spent + pending + mine > cfg->max_cost) {
                runner_prebuild_unget(r->pb, e);
                r->budget_stop = 1;
                stop_with(r, RUNNER_BUDGET);
                break;
            }
        }
        w = bucket_wait(r, est, now);
        if (w > 0) {
            runner_prebuild_unget(r->pb, e);
            if (w < next)
                next = w;
            break;
        }
        if (r->groups)
            runner_order_taken(r, e->trial);
        s = free_slot(r);
        if (!s)
            BUG("runner: busy %d < limit %d but no free slot", r->busy, limit);
        memset(s, 0, sizeof(*s));
        s->trial = e->trial;
        s->state = SLOT_WAITING;
        r->busy++;
        if (e->failed) {
            const struct question *q = &cfg->gs->q[pt->question];
            set_message(r, "cannot build the prompt of question %s at length %ld, depth %g%%: %s",
                        q->id, pt->length, pt->depth_bp / 100.0, e->err.buf);
            stop_with(r, RUNNER_INPUT_ERROR);
            slot_free(r, s);
        } else {
            send_built(r, s, &e->bp, now);
        }
        runner_prebuild_recycle(r->pb, e);
    }
    return next;
}

/* ---- results ------------------------------------------------------------- */

/*
 * The server counts this prompt more than 2% off the run's count (content +
 * template overhead, like with like): counted as a mismatch, and on one of
 * the first answers the run stops when mismatches stop it. The trial itself
 * is recorded and scored as usual, so the report shows the mismatch that
 * stopped the run (a resume with --allow-tokenizer-mismatch keeps it).
 */
static void check_mismatch(struct runner *r, const struct slot *s,
                           const struct client_response *resp)
{
    long realized = s->facts.realized_length;
    double dev = trial_count_mismatch(r->cfg, realized, resp);
    if (dev < 0)
        return;
    r->answers_checked++;
    if (dev <= TRIAL_MISMATCH_RATIO)
        return;
    r->res->tokenizer_mismatches++;
    if (dev > r->res->worst_mismatch)
        r->res->worst_mismatch = dev;
    if (r->cfg->mismatch_stop && r->answers_checked <= TRIAL_MISMATCH_FIRST) {
        struct strbuf msg = STRBUF_INIT;
        trial_mismatch_message(r->cfg, realized, resp, dev, &msg);
        set_message(r, "%s", msg.buf);
        strbuf_release(&msg);
        stop_with(r, RUNNER_MISMATCH);
        return;
    }
    if (!r->warned_mismatch && !r->cfg->mismatch_warned) {
        r->warned_mismatch = 1;
        bar_break(r);
        warning("tokenizer mismatch: the server counted %ld prompt tokens where the run's "
                "tokenizer counted %ld (%.1f%% off); lengths are not in the model's tokens "
                "(use --tokenizer server or the model's tokenizer)",
                resp->prompt_tokens, realized, dev * 100);
    }
}

static void check_error_rate(struct runner *r)
{
    const struct runner_result *res = r->res;
    long errors = res->outcomes[OUTCOME_ERROR];
    double limit = r->cfg->max_error_rate;
    if (!errors)
        return;
    /* The run's share is already certain to end above the limit... */
    if ((double)errors > limit * (double)r->to_send) {
        stop_with(r, RUNNER_TOO_MANY_ERRORS);
        return;
    }
    /* ...or the endpoint is mostly failing: do not grind through the whole matrix. */
    if (res->finished >= BREAKER_MIN_TRIALS && (double)errors > 0.5 * (double)res->finished &&
        (double)errors / (double)res->finished > limit)
        stop_with(r, RUNNER_TOO_MANY_ERRORS);
}

/* --max-attempts, except for responses that another attempt cannot change (client.h). */
static int attempts_allowed(const struct runner_config *cfg, const struct client_response *resp)
{
    if (resp->reason == CLIENT_R_OUTPUT_PARSE && cfg->max_attempts > CLIENT_OUTPUT_PARSE_ATTEMPTS)
        return CLIENT_OUTPUT_PARSE_ATTEMPTS;
    return cfg->max_attempts;
}

static void take_response(struct runner *r, struct client_response *resp, double now)
{
    const struct runner_config *cfg = r->cfg;
    struct slot *s = resp->tag;
    long before = r->aimd.decreases;
    double in, out;

    r->probing = 0;
    throttle_aimd_update(&r->aimd, resp, now);
    if (r->aimd.decreases > before) {
        r->res->window_decreases++;
        if (throttle_aimd_limit(&r->aimd) < r->res->min_window)
            r->res->min_window = throttle_aimd_limit(&r->aimd);
    }
    if (!r->res->served_model && resp->model)
        r->res->served_model = xstrdup(resp->model);
    if (!r->res->system_fingerprint && resp->system_fingerprint)
        r->res->system_fingerprint = xstrdup(resp->system_fingerprint);

    /* Back from the wire: no longer in flight. */
    r->inflight_tokens -= s->est_tokens;
    s->state = SLOT_WAITING;
    if (s->id_slot >= 0) {
        r->id_slots[s->id_slot].inflight--;
        s->id_slot = -1;
    }

    /* an HTML page is a glitch retried like a 502, until the server keeps answering pages */
    if (!resp->html_page)
        r->html_streak = 0;
    else if (++r->html_streak >= CLIENT_HTML_ANSWERS_MAX)
        resp->cls = CLIENT_FATAL;

    if (resp->cls == CLIENT_RETRYABLE) {
        if (r->stop) {
            /* Stopping: leave it unsent (not an error); a resume sends it again. */
            runner_order_answered(r, s->trial, NULL);
            s->state = SLOT_WAITING;
            r->busy--;
            s->state = SLOT_FREE;
            return;
        }
        if (s->attempts < attempts_allowed(cfg, resp)) {
            long delay = throttle_backoff_delay(&r->backoff, s->attempts, resp->retry_after_ms);
            s->ready_ms = now + (double)delay;
            return;
        }
        record_trial(r, s, resp, OUTCOME_ERROR, 0, resp->error ? resp->error : "request failed");
        check_error_rate(r);
        return;
    }
    if (resp->cls == CLIENT_FATAL) {
        r->res->fatal_reason = resp->reason;
        if (resp->html_page)
            set_message(r,
                        "%s: %d answers in a row were HTML pages (one is retried as a proxy's "
                        "glitch, %d in a row stop the run); the last: %s",
                        client_reason_name(resp->reason), r->html_streak, CLIENT_HTML_ANSWERS_MAX,
                        resp->error);
        else
            set_message(r, "%s%s%s (HTTP %ld)", client_reason_name(resp->reason),
                        resp->error ? ": " : "", resp->error ? resp->error : "", resp->http_status);
        stop_with(r, RUNNER_FATAL);
        runner_order_answered(r, s->trial, NULL);
        r->busy--;
        s->state = SLOT_FREE;
        return;
    }

    /*
     * Tokens the server processed: its usage when it reports one; else the local count only
     * when it answered (a prompt refused as too long, or an error, was never processed and
     * costs nothing). The --tpm bucket is charged the estimate at send; correct it to this.
     */
    in = resp->prompt_tokens >= 0 ? (double)resp->prompt_tokens
         : (resp->cls == CLIENT_OK || resp->cls == CLIENT_TRUNCATED || resp->cls == CLIENT_EMPTY ||
            resp->cls == CLIENT_STARVED)
             ? (double)s->facts.realized_length
             : 0;
    out = resp->completion_tokens >= 0 ? (double)resp->completion_tokens : 0;
    r->res->prompt_tokens += (long)in;
    r->res->completion_tokens += (long)out;
    if (resp->cached_tokens >= 0)
        r->res->prompt_cached += resp->cached_tokens;
    else if (resp->timings_cache_n >= 0)
        r->res->prompt_cached += resp->timings_cache_n;
    throttle_bucket_adjust(&r->tpm, s->est_tokens - (in + out));
    check_mismatch(r, s, resp);
    {
        struct strbuf msg = STRBUF_INIT;
        double score;
        enum trial_outcome o = trial_answer_outcome(cfg, s->trial, resp, &score, &msg);
        record_trial(r, s, resp, o, score, !outcome_is_scored(o) ? msg.buf : NULL);
        strbuf_release(&msg);
        if (o == OUTCOME_ERROR)
            check_error_rate(r);
    }
}

/* ---- the loop ------------------------------------------------------------ */

/* The runner's state for cfg at the start of a run: throttles, order, prebuild, progress. */
static void runner_setup(struct runner *r, const struct runner_config *cfg,
                         struct runner_result *res)
{
    memset(r, 0, sizeof(*r));
    r->cfg = cfg;
    r->res = res;
    r->nslots = cfg->concurrency;
    r->slots = xcalloc((size_t)r->nslots, sizeof(*r->slots));
    built_prompt_init(&r->bp);
    strbuf_init(&r->err, 0);
    throttle_backoff_init(&r->backoff, cfg->jitter_seed);
    r->backoff.base_ms = cfg->backoff_base_ms;
    r->backoff.max_ms = cfg->backoff_max_ms;
    throttle_aimd_init(&r->aimd, cfg->concurrency, 1, cfg->concurrency);
    r->start_ms = utc_monotonic_ms();
    throttle_bucket_init(&r->rpm, cfg->rpm, r->start_ms);
    throttle_bucket_init(&r->tpm, cfg->tpm, r->start_ms);
    r->last_flush_ms = r->last_progress_ms = r->start_ms;
    r->probing = cfg->probe_first;
    r->start_wall = utc_now();
    r->req = (struct trial_request)TRIAL_REQUEST_INIT;
    r->nonce_next = cfg->jitter_seed ^ 0x6e6f6e6365ULL;
    runner_order_init(r);
    r->pb = runner_prebuild_start(cfg, r->ord, r->grp);
    if (cfg->progress == RUNNER_PROGRESS_BAR ||
        (cfg->progress == RUNNER_PROGRESS_AUTO && isatty(STDERR_FILENO)))
        r->bar = 1;
    else if (cfg->progress != RUNNER_PROGRESS_NONE)
        r->lines = 1;
}

/* The result's figures known before the first request, and the trials left to send. */
static void count_planned(struct runner *r)
{
    const struct runner_config *cfg = r->cfg;
    struct runner_result *res = r->res;
    size_t i;

    res->end = RUNNER_COMPLETE;
    res->schedule = cfg->schedule;
    res->planned = (long)cfg->plan->nr;
    res->min_window = cfg->concurrency;
    res->cost_usd = prices_known(cfg) ? 0 : -1;
    for (i = 0; i < cfg->plan->nr; i++)
        if (runner_trial_done(cfg, i))
            res->already_done++;
    r->to_send = res->planned - res->already_done;
}

/* The first Ctrl-C (or SIGTERM): stop sending and wait for what is in flight. Returns the deadline.
 */
static double start_drain(struct runner *r, double now)
{
    const struct runner_config *cfg = r->cfg;
    stop_with(r, RUNNER_INTERRUPTED);
    bar_break(r);
    fprintf(stderr,
            "interrupted%s: waiting up to %.0fs for %zu request(s) in flight "
            "(Ctrl-C again to exit at once)\n",
            first_signal == SIGTERM ? " (SIGTERM)" : "", cfg->drain_seconds,
            client_inflight(cfg->client));
    return now + cfg->drain_seconds * 1000.0;
}

/* Retries that have not gone out are dropped: a resume sends them. */
static void drop_waiting(struct runner *r)
{
    size_t i;
    for (i = 0; i < (size_t)r->nslots; i++)
        if (r->slots[i].state == SLOT_WAITING)
            slot_free(r, &r->slots[i]);
}

/* Flushes the store when its interval (or the run lock's heartbeat) is due, then the progress. */
static void flush_and_report(struct runner *r, double now)
{
    const struct runner_config *cfg = r->cfg;
    if (store_pending(cfg->store) && now - r->last_flush_ms >= cfg->flush_seconds * 1000.0)
        flush(r, now);
    else if (now - r->last_flush_ms >= 10000.0)
        flush(r, now); /* heartbeat of the run lock */
    if (r->bar ? now - r->last_progress_ms >= 200.0
               : now - r->last_progress_ms >= cfg->progress_interval * 1000.0)
        progress(r, now, 0);
}

/*
 * The run's end, cost, wall time and mean requests in flight (inflight_area
 * over the time from the first submit to the last busy moment), after the
 * last flush; prints the final progress.
 */
static void settle_result(struct runner *r, double first_submit_ms, double last_busy_ms,
                          double inflight_area)
{
    const struct runner_config *cfg = r->cfg;
    struct runner_result *res = r->res;

    /* Whatever is still in flight (drain timeout, fatal stop) is abandoned unsent. */
    flush(r, utc_monotonic_ms());
    if (store_pending(cfg->store))
        stop_with(r, RUNNER_STORE_ERROR);
    if (res->end == RUNNER_COMPLETE && (long)res->finished + res->already_done < res->planned)
        res->end = RUNNER_INTERRUPTED; /* cannot happen without a stop; be safe */
    if (res->end == RUNNER_COMPLETE && res->outcomes[OUTCOME_ERROR] &&
        (double)res->outcomes[OUTCOME_ERROR] > cfg->max_error_rate * (double)r->to_send)
        res->end = RUNNER_TOO_MANY_ERRORS;
    if (prices_known(cfg))
        res->cost_usd = spent_cost(r);
    res->wall_seconds = (utc_monotonic_ms() - r->start_ms) / 1000.0;
    if (last_busy_ms > first_submit_ms && first_submit_ms > 0)
        res->mean_inflight = inflight_area / (last_busy_ms - first_submit_ms);
    progress(r, utc_monotonic_ms(), 1);
}

/* Restores the signal handlers and frees what runner_setup() took. */
static void runner_teardown(struct runner *r, const struct sigaction *old_int,
                            const struct sigaction *old_term)
{
    sigaction(SIGINT, old_int, NULL);
    sigaction(SIGTERM, old_term, NULL);
    runner_prebuild_stop(r->pb);
    runner_order_release(r);
    built_prompt_release(&r->bp);
    strbuf_release(&r->err);
    trial_request_release(&r->req);
    free(r->slots);
}

int runner_run(const struct runner_config *cfg, struct runner_result *res)
{
    struct runner r;
    struct sigaction old_int, old_term;
    double drain_deadline = 0;
    double first_submit_ms = 0, last_busy_ms = 0, inflight_area = 0, before;
    size_t inflight;
    int draining = 0;

    runner_result_init(res);
    if (!cfg->run_name || !cfg->gs || !cfg->plan || !cfg->scorers || !cfg->builder ||
        !cfg->client || !cfg->store || cfg->concurrency < 1 || cfg->max_attempts < 1)
        BUG("runner: incomplete configuration");

    runner_setup(&r, cfg, res);
    count_planned(&r);
    signals_install(&old_int, &old_term, r.to_send);

    for (;;) {
        double now = utc_monotonic_ms();
        double wait;
        struct client_response *resp;

        if (signals_seen && !draining) {
            draining = 1;
            drain_deadline = start_drain(&r, now);
        }
        if (r.stop)
            drop_waiting(&r);
        wait = fill_window(&r, now);
        if (r.stop)
            runner_prebuild_halt(r.pb);
        if (r.busy == 0 && (r.stop || r.exhausted))
            break;
        if (r.stop && res->end != RUNNER_INTERRUPTED && res->end != RUNNER_BUDGET)
            break; /* errors, fatal, input or store failure: do not wait for the rest */
        if (draining && now >= drain_deadline)
            break;
        before = utc_monotonic_ms();
        inflight = client_inflight(cfg->client);
        if (inflight && !first_submit_ms)
            first_submit_ms = before;
        if (inflight == 0) {
            utc_sleep_ms(wait < 1 ? 1 : wait);
        } else {
            int n;
            strbuf_reset(&r.err);
            n = client_poll(cfg->client, (int)(wait < 1 ? 1 : wait), &r.err);
            if (n < 0) {
                set_message(&r, "HTTP client failure: %s", r.err.buf);
                stop_with(&r, RUNNER_FATAL);
                break;
            }
        }
        now = utc_monotonic_ms();
        inflight_area += (double)inflight * (now - before);
        if (inflight)
            last_busy_ms = now;
        while ((resp = client_take(cfg->client))) {
            take_response(&r, resp, now);
            client_response_free(resp);
        }
        flush_and_report(&r, now);
    }

    settle_result(&r, first_submit_ms, last_busy_ms, inflight_area);
    runner_teardown(&r, &old_int, &old_term);
    return 0;
}

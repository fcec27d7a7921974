/*
 * The runner's prompts built ahead: worker threads (one prompt builder each) claim
 * the plan's trials in send order, a (question, length, repeat) group at a time, and
 * queue the built prompts, so refilling the window after an answer costs the event
 * loop no tokenization. At most a cap of them are built and not yet sent: memory
 * stays bounded by the window, never the matrix. With no threads the event loop
 * builds inline. Owns struct prebuild (its threads, builders and queue).
 */
#include <signal.h>
#include <stdlib.h>

#include "prompt/dataset.h"
#include "run/plan.h"
#include "base/xalloc.h"

#include "run/runner-int.h"

#include "base/banned.h"

struct prebuild {
    const struct runner_config *cfg;
    const size_t *ord; /* plan indexes in send order (the schedule) */
    const size_t *grp; /* per plan index: its group */
    pthread_mutex_t mu;
    pthread_cond_t space;
    pthread_t *th;
    struct pb_worker *workers; /* per thread: its argument (pb, index) */
    int nth;
    struct prompt_builder **builders;
    struct prebuilt *head, *tail; /* built, in order of completion */
    struct prebuilt *spare;       /* recycled entries (their buffers are kept) */
    size_t next;                  /* next position in ord to claim */
    size_t outstanding;           /* claimed and not yet released by the loop */
    size_t reserved;              /* in a worker's group, not claimed yet */
    size_t cap;
    int stop;
};

static struct prebuilt *pb_entry(struct prebuild *pb)
{
    struct prebuilt *e = pb->spare;
    if (e) {
        pb->spare = e->next;
    } else {
        e = xcalloc(1, sizeof(*e));
        built_prompt_init(&e->bp);
        strbuf_init(&e->err, 0);
    }
    e->next = NULL;
    e->failed = 0;
    strbuf_reset(&e->err);
    return e;
}

/* Claim the next trial not done yet (caller holds the lock); 0 when none is left. */
static int pb_claim_pos(struct prebuild *pb, size_t *pos)
{
    while (pb->next < pb->cfg->plan->nr && runner_trial_done(pb->cfg, pb->ord[pb->next]))
        pb->next++;
    if (pb->next >= pb->cfg->plan->nr)
        return 0;
    *pos = pb->next++;
    pb->outstanding++;
    return 1;
}

static int pb_claim(struct prebuild *pb, size_t *trial)
{
    size_t pos;
    if (!pb_claim_pos(pb, &pos))
        return 0;
    *trial = pb->ord[pos];
    return 1;
}

struct pb_worker {
    struct prebuild *pb;
    int index;
    size_t next, end; /* the worker's reserved group: positions [next, end) of ord */
};

/* Trials left to build in the worker's reserved group (caller holds the lock)? */
static int pb_reserved_left(struct prebuild *pb, struct pb_worker *w)
{
    while (w->next < w->end && runner_trial_done(pb->cfg, pb->ord[w->next]))
        w->next++;
    return w->next < w->end;
}

/*
 * A worker thread's claim (caller holds the lock): the trials of one
 * (question, length, repeat) share one distractor selection, the costly first
 * build, so one worker reserves the whole group and builds it with its own
 * builder (its selection cache); several workers taking one depth each would
 * each select again. Reserved trials count in pb->reserved until claimed, so
 * the event loop never sees the plan exhausted while a group is half built;
 * a new group waits for room under cap, the rest of a reserved one does not
 * (pb_thread()).
 */
static int pb_claim_group(struct prebuild *pb, struct pb_worker *w, size_t *trial)
{
    const struct plan *plan = pb->cfg->plan;
    size_t i;

    if (pb_reserved_left(pb, w)) {
        *trial = pb->ord[w->next++];
        pb->reserved--;
        pb->outstanding++;
        return 1;
    }
    if (!pb_claim_pos(pb, &w->next))
        return 0;
    /* a group is consecutive in send order (plan, cache); shuffled, groups are split */
    w->end = w->next + 1;
    while (w->end < plan->nr && pb->grp[pb->ord[w->end]] == pb->grp[pb->ord[w->next]])
        w->end++;
    for (i = w->next + 1; i < w->end; i++)
        if (!runner_trial_done(pb->cfg, pb->ord[i]))
            pb->reserved++;
    pb->next = w->end;
    *trial = pb->ord[w->next++];
    return 1;
}

static void pb_build(const struct runner_config *cfg, struct prompt_builder *b, struct prebuilt *e)
{
    struct prompt_request pr;
    trial_prompt_request(cfg, e->trial, &pr);
    strbuf_reset(&e->err);
    e->failed = prompt_build(b, &pr, &e->bp, &e->err) < 0;
}

static void pb_append(struct prebuild *pb, struct prebuilt *e)
{
    if (pb->tail)
        pb->tail->next = e;
    else
        pb->head = e;
    pb->tail = e;
}

static void *pb_thread(void *arg)
{
    struct pb_worker *w = arg;
    struct prebuild *pb = w->pb;
    sigset_t set;

    /* Signals belong to the event loop: its waits must be the ones interrupted. */
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);

    pthread_mutex_lock(&pb->mu);
    for (;;) {
        struct prebuilt *e;
        size_t trial;
        /*
         * A group reserved is built to its end past the cap (by at most a group per
         * thread): the schedule may be waiting for its followers (with llama.cpp slots, its
         * slot takes no other group until it has sent them), while the prompts filling the
         * cap wait for that slot.
         */
        while (!pb->stop && pb->outstanding >= pb->cap && !pb_reserved_left(pb, w))
            pthread_cond_wait(&pb->space, &pb->mu);
        if (pb->stop || !pb_claim_group(pb, w, &trial))
            break;
        e = pb_entry(pb);
        e->trial = trial;
        pthread_mutex_unlock(&pb->mu);
        pb_build(pb->cfg, pb->builders[w->index], e);
        pthread_mutex_lock(&pb->mu);
        pb_append(pb, e);
        pthread_mutex_unlock(&pb->mu);
        client_wakeup(pb->cfg->client);
        pthread_mutex_lock(&pb->mu);
    }
    pthread_mutex_unlock(&pb->mu);
    return NULL;
}

struct prebuild *runner_prebuild_start(const struct runner_config *cfg, const size_t *ord,
                                       const size_t *grp)
{
    struct prebuild *pb = xcalloc(1, sizeof(*pb));
    int i, n = cfg->build_threads;

    pb->cfg = cfg;
    pb->ord = ord;
    pb->grp = grp;
    pthread_mutex_init(&pb->mu, NULL);
    pthread_cond_init(&pb->space, NULL);
    if (n > 0 && (!cfg->tokenizer || !cfg->tmpl))
        n = 0;
    pb->cap = (size_t)cfg->concurrency < 8 ? 8 : (size_t)cfg->concurrency;
    if (pb->cap > 64)
        pb->cap = 64;
    if (cfg->schedule == RUNNER_SCHEDULE_CACHE) {
        /*
         * The followers of the open groups wait built: room for all of them (fewer than
         * runner_open_below() plus the group opened last) and the next groups whole.
         */
        size_t gmax = runner_group_max(cfg->plan);
        size_t used = (size_t)runner_id_slots_used(cfg->id_slots, cfg->concurrency);
        pb->cap = (size_t)runner_open_below(cfg->concurrency, gmax) + 3 * gmax + 16;
        /* with llama.cpp slots a group per slot is open, and the next one waits built */
        if (pb->cap < (used + 2) * gmax + 16)
            pb->cap = (used + 2) * gmax + 16;
    }
    if (n <= 0)
        return pb;
    pb->builders = xcalloc((size_t)n, sizeof(*pb->builders));
    pb->th = xcalloc((size_t)n, sizeof(*pb->th));
    pb->workers = xcalloc((size_t)n, sizeof(*pb->workers));
    for (i = 0; i < n; i++) {
        pb->builders[i] = prompt_builder_new(cfg->tokenizer, cfg->tmpl, cfg->haystack);
        pb->workers[i].pb = pb;
        pb->workers[i].index = i;
        if (pthread_create(&pb->th[i], NULL, pb_thread, &pb->workers[i])) {
            prompt_builder_free(pb->builders[i]);
            break; /* fewer threads (or none: inline) */
        }
        pb->nth++;
    }
    return pb;
}

static void pb_free_list(struct prebuilt *e)
{
    while (e) {
        struct prebuilt *n = e->next;
        built_prompt_release(&e->bp);
        strbuf_release(&e->err);
        free(e);
        e = n;
    }
}

void runner_prebuild_stop(struct prebuild *pb)
{
    int i;
    pthread_mutex_lock(&pb->mu);
    pb->stop = 1;
    pthread_cond_broadcast(&pb->space);
    pthread_mutex_unlock(&pb->mu);
    for (i = 0; i < pb->nth; i++) {
        pthread_join(pb->th[i], NULL);
        prompt_builder_free(pb->builders[i]);
    }
    pb_free_list(pb->head);
    pb_free_list(pb->spare);
    pthread_mutex_destroy(&pb->mu);
    pthread_cond_destroy(&pb->space);
    free(pb->builders);
    free(pb->th);
    free(pb->workers);
    free(pb);
}

/*
 * The first built prompt that ready() allows (all with ready NULL), taken out of the
 * queue: give it back with runner_prebuild_recycle() once sent, or runner_prebuild_unget() to keep
 * it. NULL when none may go yet (*exhausted = 0) or every trial has been handed out (*exhausted =
 * 1).
 */
struct prebuilt *runner_prebuild_take(struct prebuild *pb, runner_ready_fn ready, void *ctx,
                                      int *exhausted)
{
    struct prebuilt *e, *prev = NULL;
    pthread_mutex_lock(&pb->mu);
    if (!pb->nth) {
        /* inline: build one more when none of those built may go (or none is built) */
        for (e = pb->head; e && ready && !ready(ctx, e->trial); e = e->next)
            ;
        if (!e && pb->outstanding < pb->cap) {
            size_t trial;
            if (pb_claim(pb, &trial)) {
                e = pb_entry(pb);
                e->trial = trial;
                pthread_mutex_unlock(&pb->mu);
                pb_build(pb->cfg, pb->cfg->builder, e); /* inline: only this thread touches pb */
                pthread_mutex_lock(&pb->mu);
                pb_append(pb, e);
            }
        }
    }
    for (e = pb->head; e && ready && !ready(ctx, e->trial); e = e->next)
        prev = e;
    if (e) {
        if (prev)
            prev->next = e->next;
        else
            pb->head = e->next;
        if (pb->tail == e)
            pb->tail = prev;
        e->next = NULL;
    }
    *exhausted = !e && !pb->head && pb->outstanding == 0 && pb->reserved == 0 &&
                 pb->next >= pb->cfg->plan->nr;
    if (!e && !pb->head && !*exhausted && pb->next < pb->cfg->plan->nr && pb->outstanding == 0 &&
        pb->reserved == 0) {
        /* only trials already done remain between next and the end? let a claim decide */
        size_t save = pb->next;
        while (save < pb->cfg->plan->nr && runner_trial_done(pb->cfg, pb->ord[save]))
            save++;
        pb->next = save;
        *exhausted = save >= pb->cfg->plan->nr;
    }
    pthread_mutex_unlock(&pb->mu);
    return e;
}

/* Put a taken prompt back at the head (not sent after all: budget, buckets). */
void runner_prebuild_unget(struct prebuild *pb, struct prebuilt *e)
{
    pthread_mutex_lock(&pb->mu);
    e->next = pb->head;
    pb->head = e;
    if (!pb->tail)
        pb->tail = e;
    pthread_mutex_unlock(&pb->mu);
}

/* A taken prompt was used: recycle it (its buffers are kept). */
void runner_prebuild_recycle(struct prebuild *pb, struct prebuilt *e)
{
    pthread_mutex_lock(&pb->mu);
    e->next = pb->spare;
    pb->spare = e;
    pb->outstanding--;
    pthread_cond_signal(&pb->space);
    pthread_mutex_unlock(&pb->mu);
}

/* Stop building (signal, budget, errors): nothing new is claimed. */
void runner_prebuild_halt(struct prebuild *pb)
{
    pthread_mutex_lock(&pb->mu);
    pb->stop = 1;
    pthread_cond_broadcast(&pb->space);
    pthread_mutex_unlock(&pb->mu);
}

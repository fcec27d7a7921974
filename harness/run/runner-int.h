#ifndef RUNNER_INT_H
#define RUNNER_INT_H

/*
 * The runner's private header (runner.h stays the API): the event loop's state (struct
 * runner, its slots and the cache schedule's groups), shared by runner.c (the loop),
 * runner_order.c (the send order) and runner_prebuild.c (the prompts built ahead).
 */

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "base/sha256.h"
#include "base/strbuf.h"
#include "client/client.h"
#include "client/throttle.h"
#include "prompt/prompt.h"
#include "run/runner.h"
#include "run/trial_send.h"

struct prebuild;

enum slot_state { SLOT_FREE = 0, SLOT_WAITING, SLOT_FLIGHT };

struct slot {
    enum slot_state state;
    size_t trial; /* index into plan->t */
    int attempts;
    double ready_ms;           /* SLOT_WAITING: when the retry may go */
    struct prompt_facts facts; /* of the prompt sent (trial_send.h) */
    double est_tokens;         /* prompt + answer budget, for --max-cost and --tpm */
    const char *reused_from;   /* while finishing a reused trial: its source */
    double sent_at;            /* wall time the latest attempt went out (0: not sent) */
    int id_slot;               /* the llama.cpp slot its request in flight counts at, -1 none */
};

/*
 * A llama.cpp slot of the CACHE schedule (id_slots): the group last pinned to it and the
 * requests in flight there (at most one: the server computes one request per slot at once,
 * and a second one queued there only reaches it in whatever order the server takes it).
 */
struct id_slot {
    size_t group; /* the group last pinned to it, SIZE_MAX none */
    int inflight;
};

struct runner {
    const struct runner_config *cfg;
    struct runner_result *res;
    struct slot *slots;
    int nslots;
    int busy; /* slots not free */
    size_t next;
    long to_send; /* trials of the plan not already done */
    struct built_prompt bp;
    struct strbuf err;
    struct throttle_backoff backoff;
    struct throttle_aimd aimd;
    struct throttle_bucket rpm, tpm;
    int stop;        /* no more scheduling */
    int budget_stop; /* the stop was the budget */
    double inflight_tokens;
    double start_ms;
    double last_flush_ms, last_progress_ms;
    int flush_failures;
    int bar;   /* live bar on stderr */
    int lines; /* plain progress lines */
    int bar_drawn;
    int warned_mismatch;
    long answers_checked; /* answers with usage.prompt_tokens seen (the first decide a stop) */
    int probing;          /* probe_first: no second request before the first answer */
    int html_streak;      /* answers in a row that were HTML pages (CLIENT_HTML_ANSWERS_MAX) */
    struct prebuild *pb;
    int exhausted; /* every trial of the plan has been handed out */
    /* the schedule (run --schedule): plan indexes in send order, and the groups */
    size_t *ord; /* plan->nr entries */
    size_t *grp; /* per plan index: its group */
    struct sgroup *groups;
    size_t ngroups;
    struct id_slot *id_slots; /* CACHE with id_slots: the llama.cpp slots used */
    int nid_slots;            /* runner_id_slots_used() of them */
    int open_groups;          /* CACHE: groups whose leader went and that are not done */
    long pending;             /* CACHE: unsent followers of the open groups */
    long open_below;          /* CACHE: a new group opens while pending is below this */
    uint64_t nonce_next;      /* --no-cache-reuse salts and nonces */
    struct trial_request req; /* the request being sent (trial_send.h) */
    double start_wall;        /* wall clock at the start (send times per depth) */
};

/*
 * A group of the CACHE schedule: its leader (the deepest trial not done yet) goes first;
 * the others wait for its answer, then go to the endpoint (and slot) that answered it.
 */
struct sgroup {
    size_t leader;  /* plan index, SIZE_MAX when the group has nothing to send */
    int released;   /* the leader was answered (or given up) */
    int endpoint;   /* where the leader was answered, -1 any */
    int slot;       /* llama.cpp slot (id_slots), -1 none */
    long remaining; /* trials not final yet */
    long unsent;    /* trials not taken to be sent yet */
    int opened;     /* its leader was taken to be sent (counted in open_groups) */
    char key[24];   /* prompt_cache_key (cache_keys) */
};

struct prebuilt {
    struct prebuilt *next;
    size_t trial;
    int failed;
    struct built_prompt bp;
    struct strbuf err;
};

/* May this built trial be sent now (the schedule's release rule)? */
typedef int (*runner_ready_fn)(void *ctx, size_t trial);

/* runner.c: was trial i of the plan finished by an earlier invocation (cfg->done)? */
int runner_trial_done(const struct runner_config *cfg, size_t i);

/*
 * runner_prebuild.c. runner_prebuild_start(): threads (cfg->build_threads; none: built
 * inline by runner_prebuild_take()) building the trials of ord (plan indexes in send
 * order; grp: each one's group) not done yet; runner_prebuild_stop() joins and frees
 * everything. runner_prebuild_take(): the first built prompt ready() allows (every one
 * with ready NULL), out of the queue; NULL when none may go yet (*exhausted 0) or every
 * trial has been handed out (*exhausted 1). A taken prompt goes back with
 * runner_prebuild_recycle() once sent (its buffers are kept), or to the head of the queue
 * with runner_prebuild_unget() (not sent after all: budget, buckets).
 * runner_prebuild_halt(): nothing new is claimed (signal, budget, errors).
 */
struct prebuild *runner_prebuild_start(const struct runner_config *cfg, const size_t *ord,
                                       const size_t *grp);
void runner_prebuild_stop(struct prebuild *pb);
struct prebuilt *runner_prebuild_take(struct prebuild *pb, runner_ready_fn ready, void *ctx,
                                      int *exhausted);
void runner_prebuild_unget(struct prebuild *pb, struct prebuilt *e);
void runner_prebuild_recycle(struct prebuild *pb, struct prebuilt *e);
void runner_prebuild_halt(struct prebuild *pb);

/*
 * runner_order.c, the send order of --schedule. runner_order_init(): r->ord (plan indexes in
 * send order), r->grp (each one's group) and, for cache, r->groups (leaders, cache keys) and
 * the llama.cpp slots used; the depths the send times are reported by (r->res);
 * runner_order_release() frees them. runner_order_ready(): the cache release rule, a
 * runner_ready_fn over r. runner_order_hints(): a request's cache hints (its group's
 * endpoint, slot and prompt_cache_key; the no-reuse salt, written into salt).
 * runner_order_answered(), _taken(), _final(): a group's leader answered (or given up), a
 * trial taken to be sent, a trial final. runner_group_max(): the most trials one group of
 * the plan has; runner_open_below(): the cache schedule's opening rule.
 */
void runner_order_init(struct runner *r);
void runner_order_release(struct runner *r);
int runner_order_ready(void *ctx, size_t trial);
void runner_order_hints(struct runner *r, const struct slot *s, struct client_cache_hints *h,
                        char salt[32]);
void runner_order_answered(struct runner *r, size_t trial, const struct client_response *resp);
void runner_order_taken(struct runner *r, size_t trial);
void runner_order_final(struct runner *r, size_t trial);
size_t runner_group_max(const struct plan *plan);
long runner_open_below(int concurrency, size_t gmax);

#endif

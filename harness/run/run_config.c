/*
 * The runner's settings for `dipmap run` from the run's context: every runner_config field
 * the options, inputs, preflight and store give (build threads, the budget left after what
 * earlier invocations spent), and the send order --schedule picks when not given, with the
 * cache hints and no-reuse mode the server understands. Owns nothing.
 */
#include <stdio.h>
#include <unistd.h>

#include "run/run_cmd.h"

#include "base/banned.h"

/* The runner's configuration for c's run (all but the schedule: run_config_schedule()). */
struct runner_config run_config_runner(struct run_ctx *c)
{
    struct runner_config rc;

    runner_config_init(&rc);
    rc.run_name = c->run_name;
    rc.reuse = c->reuse;
    rc.gs = &c->gs;
    rc.plan = &c->plan;
    rc.scorers = c->scorers;
    rc.abstain = c->absent > 0 ? &c->abstain : NULL;
    rc.builder = c->builder;
    {
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        rc.build_threads = ncpu > 2 ? (ncpu > 5 ? 4 : (int)ncpu - 1) : 1;
        /*
         * Counting on the server waits on the network, not the CPU: one builder
         * per request in flight (up to the client's counting handles), so
         * prompts are ready while the window is full.
         */
        if (tokenizer_is_remote(c->tk))
            rc.build_threads = c->o.concurrency < 8 ? (int)c->o.concurrency : 8;
        rc.tokenizer = c->tk;
        rc.tmpl = &c->tpl;
        rc.haystack = c->have_hay ? &c->hay : NULL;
    }
    rc.client = c->client;
    rc.store = c->st;
    rc.done = c->done;
    rc.seed = (unsigned long)c->o.seed;
    rc.max_tokens = c->o.max_tokens;
    rc.chat = !c->o.completions;
    rc.overhead = c->overhead;
    rc.turn_cost = c->turn_cost;
    rc.mismatch_stop = !c->o.allow_mismatch;
    rc.mismatch_warned = c->mismatch_warned;
    rc.store_prompts = c->o.store_prompts;
    rc.probe_first = c->pinfo.model_listed != 1;
    rc.server_context = c->pinfo.context;
    rc.concurrency = (int)c->o.concurrency;
    rc.rpm = (double)c->o.rpm;
    rc.tpm = (double)c->o.tpm;
    rc.max_attempts = (int)c->o.max_attempts;
    rc.backoff_base_ms = c->o.retry_base_ms;
    rc.max_error_rate = c->o.max_error_rate;
    rc.max_cost = c->o.max_cost;
    if (c->o.max_cost > 0)
        /* nothing left: a tiny positive budget stops before the first request */
        rc.max_cost =
            c->o.max_cost - c->spent_before > 1e-9 ? c->o.max_cost - c->spent_before : 1e-9;
    rc.price_in = c->o.price_in;
    rc.price_out = c->o.price_out;
    rc.drain_seconds = c->o.drain_seconds;
    rc.progress = c->progress;
    rc.progress_interval = c->o.progress_interval;
    rc.jitter_seed = (uint64_t)c->o.seed * 0x9e3779b97f4a7c15ULL + (uint64_t)getpid();
    return rc;
}

/*
 * --schedule (default cache when the preflight says the server caches prefixes, else plan),
 * the hints the server understands (llama.cpp id_slot, OpenAI prompt_cache_key) and how
 * --no-cache-reuse forbids reuse there.
 */
void run_config_schedule(struct run_ctx *c, struct runner_config *rc)
{
    enum client_server_kind kind = c->pinfo.kind;
    char slots[96] = "";
    rc->schedule = c->o.schedule                                        ? c->schedule
                   : c->pinfo.prefix_cache == 1 && !c->o.no_cache_reuse ? RUNNER_SCHEDULE_CACHE
                                                                        : RUNNER_SCHEDULE_PLAN;
    c->schedule = rc->schedule;
    if (rc->schedule == RUNNER_SCHEDULE_CACHE) {
        if (kind == CLIENT_SERVER_LLAMACPP && c->pinfo.slots > 0 &&
            client_endpoint_count(c->client) == 1)
            rc->id_slots = c->pinfo.slots;
        rc->cache_keys = kind == CLIENT_SERVER_OPENAI;
    }
    if (c->o.no_cache_reuse)
        rc->no_reuse = kind == CLIENT_SERVER_LLAMACPP ? RUNNER_REUSE_CACHE_PROMPT
                       : kind == CLIENT_SERVER_VLLM   ? RUNNER_REUSE_SALT
                                                      : RUNNER_REUSE_NONCE;
    rc->price_cached_in = c->o.price_cached_in;
    if (rc->id_slots && rc->concurrency > rc->id_slots)
        snprintf(slots, sizeof(slots), "; one request per slot in flight: %d of --concurrency %d",
                 runner_id_slots_used(rc->id_slots, rc->concurrency), rc->concurrency);
    fprintf(stderr, "schedule: %s (server %s%s)%s%s%s\n", runner_schedule_name(rc->schedule),
            client_server_kind_name(kind),
            c->pinfo.prefix_cache == 1   ? ", caches prompt prefixes"
            : c->pinfo.prefix_cache == 0 ? ", no prefix cache"
                                         : "",
            rc->id_slots ? ", groups pinned to llama.cpp slots" : "", slots,
            rc->no_reuse == RUNNER_REUSE_CACHE_PROMPT ? "; no cache reuse: cache_prompt false"
            : rc->no_reuse == RUNNER_REUSE_SALT       ? "; no cache reuse: cache_salt per request"
            : rc->no_reuse == RUNNER_REUSE_NONCE      ? "; no cache reuse: a unique first line"
                                                      : "");
}

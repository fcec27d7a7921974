/*
 * The runner's send order (run --schedule plan, shuffle, cache): the plan's trials
 * in the order they go to the server and, for cache, the groups (a group's deepest
 * trial leads, the rest follow its answer to the same endpoint and llama.cpp slot)
 * and the cache hints of each request. Owns the order arrays and groups of struct runner.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prompt/dataset.h"
#include "run/plan.h"
#include "base/rng.h"
#include "base/xalloc.h"

#include "run/runner-int.h"

#include "base/banned.h"

/* The most trials one group of the plan has. */
size_t runner_group_max(const struct plan *plan)
{
    size_t gmax = 1, g = 0;
    while (g < plan->nr) {
        size_t e = plan_group_end(plan, g);
        if (e - g > gmax)
            gmax = e - g;
        g = e;
    }
    return gmax;
}

/*
 * The CACHE schedule's opening rule: a new group (its leader) goes only while the open
 * groups' unsent followers (released, or waiting for a leader in flight) are fewer than
 * this: C (a leader waits behind about a window of requests at the server, the C
 * followers in hand keep the window busy meanwhile) plus one group. Every group opened
 * beyond that only makes the server's cache hold more groups at once and evict the
 * prefixes the followers need: 2 C + one group kept 5 more of 64 requests in flight but
 * computed 0.63 instead of 0.59 of the prompt tokens with a cache of C prompts
 * (BENCHMARKS.md "Prefix-cache schedule").
 */
long runner_open_below(int concurrency, size_t gmax)
{
    return (long)concurrency + (long)gmax;
}

int runner_id_slots_used(int id_slots, int concurrency)
{
    return id_slots < concurrency ? id_slots : concurrency;
}

/*
 * The llama.cpp slot group gi's next request may go to now (CACHE with id_slots), -1 none:
 * a pinned group's own slot when nothing is in flight there; a new group (its leader) the
 * first idle slot whose last group has nothing left to send. So a slot computes one group's
 * requests one after another, each finding the previous one's prefix in the slot's cache:
 * with concurrency above the slot count, requests beyond one per slot would only queue at
 * the server, in an order it chooses, between other groups' (BENCHMARKS.md "The same sweep
 * against a real llama-server").
 */
static int group_pick_slot(const struct runner *r, size_t gi)
{
    const struct sgroup *g = &r->groups[gi];
    int k;
    if (g->slot >= 0)
        return r->id_slots[g->slot].inflight ? -1 : g->slot;
    for (k = 0; k < r->nid_slots; k++) {
        size_t last = r->id_slots[k].group;
        if (!r->id_slots[k].inflight && (last == SIZE_MAX || r->groups[last].unsent == 0))
            return k;
    }
    return -1;
}

/*
 * The CACHE schedule's release rule (runner_ready_fn): a group's leader, or a released group;
 * with llama.cpp slots, when group_pick_slot() has a slot for it (which also bounds the open
 * groups), else while the open groups' unsent followers are below open_below.
 */
int runner_order_ready(void *ctx, size_t trial)
{
    const struct runner *r = ctx;
    size_t gi = r->grp[trial];
    const struct sgroup *g = &r->groups[gi];
    if (r->id_slots)
        return (g->released || g->leader == trial) && group_pick_slot(r, gi) >= 0;
    return g->released || (g->leader == trial && (g->opened || r->pending < r->open_below));
}

/*
 * The send order (r->ord) and groups (r->grp; r->groups for CACHE) of the plan, and the
 * depths the send times are reported by.
 */
void runner_order_init(struct runner *r)
{
    const struct runner_config *cfg = r->cfg;
    const struct plan *plan = cfg->plan;
    size_t n = plan->nr, i, j, g = 0;

    r->ord = xmalloc(st_mult(n ? n : 1, sizeof(*r->ord)));
    r->grp = xmalloc(st_mult(n ? n : 1, sizeof(*r->grp)));
    for (i = 0; i < n; g++) {
        size_t end = plan_group_end(plan, i);
        for (; i < end; i++)
            r->grp[i] = g;
    }
    r->ngroups = g;
    for (i = 0; i < n; i++)
        r->ord[i] = i;
    if (cfg->schedule == RUNNER_SCHEDULE_SHUFFLE) {
        uint64_t x = (uint64_t)cfg->seed ^ 0x5c4ed01e5ULL;
        rng_shuffle_sizes(r->ord, n, &x);
    } else if (cfg->schedule == RUNNER_SCHEDULE_CACHE) {
        r->groups = xcalloc(g ? g : 1, sizeof(*r->groups));
        for (i = 0; i < n;) {
            size_t end = plan_group_end(plan, i), a, b;
            struct sgroup *sg = &r->groups[r->grp[i]];
            struct sha256_ctx sc;
            char hex[SHA256_HEX_LEN + 1];
            /* deepest gold first (insertion sort: a group is a handful of depths) */
            for (a = i + 1; a < end; a++)
                for (b = a; b > i && plan->t[r->ord[b]].depth_bp > plan->t[r->ord[b - 1]].depth_bp;
                     b--) {
                    size_t t = r->ord[b];
                    r->ord[b] = r->ord[b - 1];
                    r->ord[b - 1] = t;
                }
            sg->leader = SIZE_MAX;
            sg->endpoint = -1;
            sg->slot = -1;
            for (a = i; a < end; a++)
                if (!runner_trial_done(cfg, r->ord[a])) {
                    if (sg->leader == SIZE_MAX)
                        sg->leader = r->ord[a];
                    sg->remaining++;
                }
            sg->unsent = sg->remaining;
            /* one prompt_cache_key per group, distinct across runs and groups */
            sha256_init(&sc);
            sha256_update(&sc, cfg->run_name, strlen(cfg->run_name) + 1);
            sha256_update(&sc, cfg->gs->q[plan->t[i].question].id,
                          strlen(cfg->gs->q[plan->t[i].question].id) + 1);
            sha256_update(&sc, &plan->t[i].length, sizeof(plan->t[i].length));
            sha256_update(&sc, &plan->t[i].repeat, sizeof(plan->t[i].repeat));
            if (plan->t[i].axes)
                sha256_update(&sc, plan->t[i].axes, strlen(plan->t[i].axes));
            sha256_final_hex(&sc, hex);
            snprintf(sg->key, sizeof(sg->key), "dipmap-%.16s", hex);
            i = end;
        }
        if (cfg->id_slots > 0) {
            r->nid_slots = runner_id_slots_used(cfg->id_slots, cfg->concurrency);
            r->id_slots = xmalloc(st_mult((size_t)r->nid_slots, sizeof(*r->id_slots)));
            for (j = 0; j < (size_t)r->nid_slots; j++) {
                r->id_slots[j].group = SIZE_MAX;
                r->id_slots[j].inflight = 0;
            }
        }
        r->open_below = runner_open_below(cfg->concurrency, runner_group_max(plan));
    }
    /* the plan's depths, in order of first appearance */
    r->res->depth_bp = xmalloc(st_mult(n ? n : 1, sizeof(*r->res->depth_bp)));
    for (i = 0; i < n; i++) {
        for (j = 0; j < r->res->depth_nr && r->res->depth_bp[j] != plan->t[i].depth_bp; j++)
            ;
        if (j == r->res->depth_nr)
            r->res->depth_bp[r->res->depth_nr++] = plan->t[i].depth_bp;
    }
    r->res->depth_send_s = xcalloc(r->res->depth_nr ? r->res->depth_nr : 1, sizeof(double));
    r->res->depth_sent = xcalloc(r->res->depth_nr ? r->res->depth_nr : 1, sizeof(long));
}

void runner_order_release(struct runner *r)
{
    free(r->ord);
    free(r->grp);
    free(r->groups);
    free(r->id_slots);
}

/* The cache hints of a trial's request: its group's endpoint, slot and key; no reuse. */
void runner_order_hints(struct runner *r, const struct slot *s, struct client_cache_hints *h,
                        char salt[32])
{
    const struct runner_config *cfg = r->cfg;
    h->endpoint = -1;
    h->id_slot = -1;
    h->prompt_cache_key = NULL;
    h->cache_salt = NULL;
    h->no_cache_prompt = 0;
    if (r->groups) {
        struct sgroup *g = &r->groups[r->grp[s->trial]];
        if (g->leader != s->trial)
            h->endpoint = g->endpoint;
        if (r->id_slots) {
            if (g->slot < 0) {
                /* the leader: runner_order_ready() found it a slot */
                g->slot = group_pick_slot(r, r->grp[s->trial]);
                if (g->slot < 0)
                    BUG("runner: a group's leader went with no llama.cpp slot free");
                r->id_slots[g->slot].group = r->grp[s->trial];
            }
            h->id_slot = g->slot;
        }
        if (cfg->cache_keys)
            h->prompt_cache_key = g->key;
    }
    if (cfg->no_reuse == RUNNER_REUSE_SALT) {
        snprintf(salt, 32, "dipmap-%016llx", (unsigned long long)rng_splitmix64(&r->nonce_next));
        h->cache_salt = salt;
    } else if (cfg->no_reuse == RUNNER_REUSE_CACHE_PROMPT) {
        h->no_cache_prompt = 1;
    }
}

/*
 * The CACHE schedule: the leader of trial's group is done with (answered, failed, or dropped
 * by a stop): release the rest of the group to the endpoint that answered it.
 */
void runner_order_answered(struct runner *r, size_t trial, const struct client_response *resp)
{
    struct sgroup *g;
    if (!r->groups)
        return;
    g = &r->groups[r->grp[trial]];
    if (g->leader != trial || g->released)
        return;
    g->released = 1;
    if (resp && resp->http_status)
        g->endpoint = resp->endpoint;
}

/* The CACHE schedule: trial is taken to be sent (once; retries are not taken again). */
void runner_order_taken(struct runner *r, size_t trial)
{
    struct sgroup *g = &r->groups[r->grp[trial]];
    if (g->unsent <= 0)
        return;
    g->unsent--;
    if (g->leader == trial && !g->opened) {
        g->opened = 1;
        r->open_groups++;
        r->pending += g->unsent;
    } else if (g->opened) {
        r->pending--;
    }
}

/* A trial of a group reached a final state; the last one frees the group's slot. */
void runner_order_final(struct runner *r, size_t trial)
{
    struct sgroup *g;
    if (!r->groups)
        return;
    g = &r->groups[r->grp[trial]];
    if (--g->remaining > 0)
        return;
    if (g->opened) {
        g->opened = 0;
        r->open_groups--;
    }
    g->slot = -1; /* its slot takes a new group once this one has nothing left to send */
}

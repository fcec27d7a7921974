/*
 * serve-sim's prefix cache and slots (--prefix-cache, --slots): per slot (or
 * one shared cache when the server has no slots, as vLLM's), an LRU list of
 * token sequences; a request reuses the longest common prefix of its tokens
 * with any of them. Owns the slots' busy state and the waits for a free slot.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sim-int.h"
#include "xalloc.h"

#include "banned.h"

struct cache_entry {
    uint32_t *ids;
    size_t n;
    uint64_t used; /* LRU clock */
};

struct cache_slot {
    struct cache_entry *e;
    size_t nr, alloc;
    size_t tokens; /* sum of the entries' n */
    int busy;
    uint64_t used; /* when it last took a request (LRU choice of a free slot) */
};

struct sim_cache {
    pthread_mutex_t mu;
    pthread_cond_t freed;
    long capacity; /* tokens per slot (0: nothing is kept) */
    int nslots;    /* 0: no slots (unlimited concurrency, one shared cache) */
    struct cache_slot *slot;
    uint64_t clock;
    int stopping;
};

struct sim_cache *sim_cache_new(long capacity, int slots)
{
    struct sim_cache *c = xcalloc(1, sizeof(*c));
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->freed, NULL);
    c->capacity = capacity > 0 ? capacity : 0;
    c->nslots = slots > 0 ? slots : 0;
    c->slot = xcalloc((size_t)(c->nslots ? c->nslots : 1), sizeof(*c->slot));
    return c;
}

void sim_cache_free(struct sim_cache *c)
{
    int i;
    if (!c)
        return;
    for (i = 0; i < (c->nslots ? c->nslots : 1); i++) {
        for (size_t j = 0; j < c->slot[i].nr; j++)
            free(c->slot[i].e[j].ids);
        free(c->slot[i].e);
    }
    free(c->slot);
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->freed);
    free(c);
}

void sim_cache_shutdown(struct sim_cache *c)
{
    pthread_mutex_lock(&c->mu);
    c->stopping = 1;
    pthread_cond_broadcast(&c->freed);
    pthread_mutex_unlock(&c->mu);
}

int sim_cache_slots(const struct sim_cache *c)
{
    return c->nslots;
}

static size_t common_prefix(const uint32_t *a, size_t an, const uint32_t *b, size_t bn)
{
    size_t i, n = an < bn ? an : bn;
    for (i = 0; i < n && a[i] == b[i]; i++)
        ;
    return i;
}

/* The longest common prefix of ids with the slot's entries (caller holds the lock). */
static size_t slot_match(const struct cache_slot *s, const uint32_t *ids, size_t n, size_t *which)
{
    size_t best = 0;
    for (size_t j = 0; j < s->nr; j++) {
        size_t m = common_prefix(s->e[j].ids, s->e[j].n, ids, n);
        if (m > best) {
            best = m;
            if (which)
                *which = j;
        }
    }
    return best;
}

/*
 * A free slot for ids: the one holding the longest prefix when it covers more
 * than half the prompt (llama.cpp's --slot-prompt-similarity 0.5), else the
 * least recently used. -1 when none is free.
 */
static int pick_slot(struct sim_cache *c, const uint32_t *ids, size_t n)
{
    int i, best = -1, lru = -1;
    size_t best_m = 0;
    for (i = 0; i < c->nslots; i++) {
        size_t m;
        if (c->slot[i].busy)
            continue;
        m = slot_match(&c->slot[i], ids, n, NULL);
        if (m > best_m) {
            best_m = m;
            best = i;
        }
        if (lru < 0 || c->slot[i].used < c->slot[lru].used)
            lru = i;
    }
    return best >= 0 && 2 * best_m > n ? best : lru;
}

int sim_cache_acquire(struct sim_cache *c, const uint32_t *ids, size_t n, int want, long *cached)
{
    int slot = 0;
    size_t m, hit = 0;
    pthread_mutex_lock(&c->mu);
    if (c->nslots) {
        for (;;) {
            if (c->stopping) {
                pthread_mutex_unlock(&c->mu);
                return -1;
            }
            slot = want >= 0 ? (c->slot[want].busy ? -1 : want) : pick_slot(c, ids, n);
            if (slot >= 0)
                break;
            pthread_cond_wait(&c->freed, &c->mu);
        }
        c->slot[slot].busy = 1;
        c->slot[slot].used = ++c->clock;
    }
    m = slot_match(&c->slot[slot], ids, n, &hit);
    if (m)
        c->slot[slot].e[hit].used = ++c->clock; /* a hit keeps the entry young */
    /* the last prompt token is always computed (its logits start the answer) */
    if (m >= n)
        m = n ? n - 1 : 0;
    *cached = (long)m;
    pthread_mutex_unlock(&c->mu);
    return slot;
}

static void drop_entry(struct cache_slot *s, size_t j)
{
    s->tokens -= s->e[j].n;
    free(s->e[j].ids);
    s->e[j] = s->e[--s->nr];
}

void sim_cache_store(struct sim_cache *c, int slot, const uint32_t *ids, size_t n)
{
    struct cache_slot *s;
    size_t j, keep = n;
    if (slot < 0 || !c->capacity || !n)
        return;
    pthread_mutex_lock(&c->mu);
    s = &c->slot[slot];
    if ((long)keep > c->capacity)
        keep = (size_t)c->capacity; /* a prompt longer than the cache keeps its start */
    /* entries that are a prefix of this one are subsumed by it */
    for (j = 0; j < s->nr;) {
        if (s->e[j].n <= keep && common_prefix(s->e[j].ids, s->e[j].n, ids, keep) == s->e[j].n)
            drop_entry(s, j);
        else
            j++;
    }
    /* evict the least recently used until this one fits */
    while (s->nr && s->tokens + keep > (size_t)c->capacity) {
        size_t old = 0;
        for (j = 1; j < s->nr; j++)
            if (s->e[j].used < s->e[old].used)
                old = j;
        drop_entry(s, old);
    }
    ALLOC_GROW(s->e, s->nr + 1, s->alloc);
    s->e[s->nr].ids = xmalloc(keep * sizeof(*ids));
    memcpy(s->e[s->nr].ids, ids, keep * sizeof(*ids));
    s->e[s->nr].n = keep;
    s->e[s->nr].used = ++c->clock;
    s->tokens += keep;
    s->nr++;
    pthread_mutex_unlock(&c->mu);
}

void sim_cache_release(struct sim_cache *c, int slot)
{
    if (slot < 0 || !c->nslots)
        return;
    pthread_mutex_lock(&c->mu);
    c->slot[slot].busy = 0;
    pthread_cond_broadcast(&c->freed);
    pthread_mutex_unlock(&c->mu);
}

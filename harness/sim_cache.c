/*
 * serve-sim's prefix cache and slots (--prefix-cache, --slots): per slot (or
 * one shared cache when the server has no slots, as vLLM's), an LRU set of
 * hashed token prefixes; a request reuses the longest prefix of its tokens
 * the set holds. Owns the slots' busy state and the waits for a free slot.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sim-int.h"
#include "xalloc.h"

#include "banned.h"

/*
 * A slot's cache is a set of token-prefix hashes (prefix caching at a block size of one
 * token: vLLM hashes blocks of 16 the same way, chained on the block before): the prefix
 * ids[0..i] is cached iff hash(ids[0..i]) is in the set. Capacity counts tokens, shared
 * prefixes once. LRU over the hashes; a prefix is always at least as recent as its
 * extensions (touched parent after child), so eviction takes the ends of prompts first.
 */
struct pc_node {
    uint64_t key;
    int32_t prev, next; /* LRU list: head most recent */
    int32_t hnext;      /* bucket chain */
};

struct cache_slot {
    struct pc_node *node;
    size_t nr, alloc;
    int32_t *bucket;
    size_t nbucket; /* power of two (0 until the first store) */
    int32_t head, tail, freelist;
    size_t count;
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

static void slot_init(struct cache_slot *s)
{
    memset(s, 0, sizeof(*s));
    s->head = s->tail = s->freelist = -1;
}

struct sim_cache *sim_cache_new(long capacity, int slots)
{
    struct sim_cache *c = xcalloc(1, sizeof(*c));
    int i;
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->freed, NULL);
    c->capacity = capacity > 0 ? capacity : 0;
    c->nslots = slots > 0 ? slots : 0;
    c->slot = xcalloc((size_t)(c->nslots ? c->nslots : 1), sizeof(*c->slot));
    for (i = 0; i < (c->nslots ? c->nslots : 1); i++)
        slot_init(&c->slot[i]);
    return c;
}

void sim_cache_free(struct sim_cache *c)
{
    int i;
    if (!c)
        return;
    for (i = 0; i < (c->nslots ? c->nslots : 1); i++) {
        free(c->slot[i].node);
        free(c->slot[i].bucket);
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

/* The chained hashes of the prefixes ids[0..i], i < n (malloc'd). */
static uint64_t *prefix_hashes(const uint32_t *ids, size_t n)
{
    uint64_t *h = xmalloc(st_mult(n ? n : 1, sizeof(*h))), x = 0x243f6a8885a308d3ULL;
    for (size_t i = 0; i < n; i++)
        h[i] = x = sim_mix64(x ^ ((uint64_t)ids[i] * 0x9e3779b97f4a7c15ULL));
    return h;
}

static int32_t find(const struct cache_slot *s, uint64_t key)
{
    int32_t i;
    if (!s->nbucket)
        return -1;
    for (i = s->bucket[key & (s->nbucket - 1)]; i >= 0; i = s->node[i].hnext)
        if (s->node[i].key == key)
            return i;
    return -1;
}

static void lru_unlink(struct cache_slot *s, int32_t i)
{
    struct pc_node *n = &s->node[i];
    if (n->prev >= 0)
        s->node[n->prev].next = n->next;
    else
        s->head = n->next;
    if (n->next >= 0)
        s->node[n->next].prev = n->prev;
    else
        s->tail = n->prev;
}

static void lru_push_head(struct cache_slot *s, int32_t i)
{
    s->node[i].prev = -1;
    s->node[i].next = s->head;
    if (s->head >= 0)
        s->node[s->head].prev = i;
    s->head = i;
    if (s->tail < 0)
        s->tail = i;
}

static void touch(struct cache_slot *s, int32_t i)
{
    if (s->head == i)
        return;
    lru_unlink(s, i);
    lru_push_head(s, i);
}

static void evict_tail(struct cache_slot *s)
{
    int32_t i = s->tail, *pp;
    lru_unlink(s, i);
    for (pp = &s->bucket[s->node[i].key & (s->nbucket - 1)]; *pp != i; pp = &s->node[*pp].hnext)
        ;
    *pp = s->node[i].hnext;
    s->node[i].hnext = s->freelist;
    s->freelist = i;
    s->count--;
}

static void insert(struct cache_slot *s, long capacity, uint64_t key)
{
    int32_t i;
    if (!s->nbucket) {
        s->nbucket = 1024;
        while (s->nbucket < (size_t)capacity && s->nbucket < ((size_t)1 << 20))
            s->nbucket <<= 1;
        s->bucket = xmalloc(s->nbucket * sizeof(*s->bucket));
        memset(s->bucket, 0xff, s->nbucket * sizeof(*s->bucket)); /* all -1 */
    }
    if (s->count >= (size_t)capacity)
        evict_tail(s);
    if (s->freelist >= 0) {
        i = s->freelist;
        s->freelist = s->node[i].hnext;
    } else {
        ALLOC_GROW(s->node, s->nr + 1, s->alloc);
        i = (int32_t)s->nr++;
    }
    s->node[i].key = key;
    s->node[i].hnext = s->bucket[key & (s->nbucket - 1)];
    s->bucket[key & (s->nbucket - 1)] = i;
    lru_push_head(s, i);
    s->count++;
}

/* How many leading tokens the slot holds (caller holds the lock). */
static size_t slot_match(const struct cache_slot *s, const uint64_t *h, size_t n)
{
    size_t m = 0;
    while (m < n && find(s, h[m]) >= 0)
        m++;
    return m;
}

/*
 * A free slot for the prompt: the one caching the longest prefix when it covers more than
 * half the prompt (llama.cpp's --slot-prompt-similarity 0.5), else the least recently used.
 * -1 when none is free.
 */
static int pick_slot(struct sim_cache *c, const uint64_t *h, size_t n)
{
    int i, best = -1, lru = -1;
    size_t best_m = 0;
    for (i = 0; i < c->nslots; i++) {
        size_t m;
        if (c->slot[i].busy)
            continue;
        m = slot_match(&c->slot[i], h, n);
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
    size_t m;
    uint64_t *h = prefix_hashes(ids, n);
    pthread_mutex_lock(&c->mu);
    if (c->nslots) {
        for (;;) {
            if (c->stopping) {
                pthread_mutex_unlock(&c->mu);
                free(h);
                return -1;
            }
            slot = want >= 0 ? (c->slot[want].busy ? -1 : want) : pick_slot(c, h, n);
            if (slot >= 0)
                break;
            pthread_cond_wait(&c->freed, &c->mu);
        }
        c->slot[slot].busy = 1;
        c->slot[slot].used = ++c->clock;
    }
    m = slot_match(&c->slot[slot], h, n);
    for (size_t i = m; i-- > 0;)
        touch(&c->slot[slot], find(&c->slot[slot], h[i])); /* a hit keeps its prefix young */
    /* the last prompt token is always computed (its logits start the answer) */
    if (m >= n)
        m = n ? n - 1 : 0;
    *cached = (long)m;
    pthread_mutex_unlock(&c->mu);
    free(h);
    return slot;
}

void sim_cache_store(struct sim_cache *c, int slot, const uint32_t *ids, size_t n)
{
    struct cache_slot *s;
    uint64_t *h;
    if (slot < 0 || !c->capacity || !n)
        return;
    h = prefix_hashes(ids, n);
    pthread_mutex_lock(&c->mu);
    s = &c->slot[slot];
    /* the end first, so each prefix ends more recent than its extensions */
    for (size_t i = n; i-- > 0;) {
        int32_t k = find(s, h[i]);
        if (k >= 0)
            touch(s, k);
        else
            insert(s, c->capacity, h[i]);
    }
    pthread_mutex_unlock(&c->mu);
    free(h);
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

/*
 * serve-sim's prefix cache and slots (--prefix-cache, --slots): per slot (or
 * one shared cache when the server has no slots, as vLLM's), an LRU set of
 * hashed token prefixes; a request reuses the longest prefix of its tokens
 * the set holds. Owns the slots' busy state and the waits for a free slot.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim-int.h"
#include "base/xalloc.h"

#include "base/banned.h"

/*
 * A slot's cache is a radix tree of token runs (SGLang's radix cache; prefix caching at a
 * block size of one token): a prompt's cached prefix is the path from the root along its
 * tokens. Capacity counts tokens, shared prefixes once. LRU by token: a lookup or a store
 * touches the whole path it covers, each prefix more recent than its extensions, so the
 * least recently used token is always the last token of the least recently used leaf and
 * eviction takes the ends of prompts first. A touch that ends inside a node splits it, so
 * every token of a node was last touched at the same time: the node list (most recent
 * first) is the token order, and its tail is always a leaf.
 */
struct pc_node {
    uint32_t *tok;  /* the node's tokens (owned), len of them */
    size_t len;     /* 0 only for the root */
    int32_t parent; /* -1 for the root */
    int32_t *child; /* children, each starting with a different token */
    size_t nchild, child_alloc;
    int32_t prev, next; /* LRU list (not the root): head most recent */
};

struct cache_slot {
    struct pc_node *node; /* node[0] is the root */
    size_t nr, alloc;
    int32_t freelist; /* free nodes, chained by parent */
    int32_t head, tail;
    size_t count; /* tokens held */
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
    s->node = xcalloc(1, sizeof(*s->node)); /* the root */
    s->nr = s->alloc = 1;
    s->node[0].parent = -1;
    s->node[0].prev = s->node[0].next = -1;
    s->head = s->tail = s->freelist = -1;
}

static void slot_release(struct cache_slot *s)
{
    for (size_t i = 0; i < s->nr; i++) {
        free(s->node[i].tok);
        free(s->node[i].child);
    }
    free(s->node);
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
    for (i = 0; i < (c->nslots ? c->nslots : 1); i++)
        slot_release(&c->slot[i]);
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

int sim_cache_keeps(const struct sim_cache *c)
{
    return c->capacity > 0;
}

/* The child of node i whose tokens start with t, or -1. */
static int32_t child_with(const struct cache_slot *s, int32_t i, uint32_t t)
{
    const struct pc_node *n = &s->node[i];
    for (size_t k = 0; k < n->nchild; k++)
        if (s->node[n->child[k]].tok[0] == t)
            return n->child[k];
    return -1;
}

/*
 * Walks ids[0..n) down from the root: the number of leading tokens the tree holds; *at and
 * *in: the node the match ends in and how many of its tokens it covers (the root and 0
 * when nothing matches).
 */
static size_t walk(const struct cache_slot *s, const uint32_t *ids, size_t n, int32_t *at,
                   size_t *in)
{
    size_t m = 0, k = 0;
    int32_t i = 0, c;
    while (m < n && (c = child_with(s, i, ids[m])) >= 0) {
        const struct pc_node *x = &s->node[c];
        i = c;
        for (k = 0; k < x->len && m < n && x->tok[k] == ids[m]; k++, m++)
            ;
        if (k < x->len)
            break;
    }
    if (at)
        *at = i;
    if (in)
        *in = i ? k : 0;
    return m;
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

/* Node i and its ancestors become the most recent, each ancestor more recent than i. */
static void touch_path(struct cache_slot *s, int32_t i)
{
    for (; i > 0; i = s->node[i].parent) {
        lru_unlink(s, i);
        lru_push_head(s, i);
    }
}

static int32_t node_new(struct cache_slot *s, int32_t parent, const uint32_t *tok, size_t len)
{
    int32_t i;
    struct pc_node *p;
    if (s->freelist >= 0) {
        i = s->freelist;
        s->freelist = s->node[i].parent;
    } else {
        ALLOC_GROW(s->node, s->nr + 1, s->alloc);
        i = (int32_t)s->nr++;
        memset(&s->node[i], 0, sizeof(s->node[i]));
    }
    s->node[i].tok = xmalloc(st_mult(len, sizeof(*tok)));
    memcpy(s->node[i].tok, tok, len * sizeof(*tok));
    s->node[i].len = len;
    s->node[i].parent = parent;
    s->node[i].nchild = 0;
    p = &s->node[parent];
    ALLOC_GROW(p->child, p->nchild + 1, p->child_alloc);
    p->child[p->nchild++] = i;
    return i;
}

/*
 * Splits node i after its first k tokens (0 < k < len): a new node holds them, in i's place
 * under its parent; i keeps the rest, below it. Returns the new node, which the caller
 * touches (a split ends a touch).
 */
static int32_t split(struct cache_slot *s, int32_t i, size_t k)
{
    int32_t parent = s->node[i].parent, top;
    struct pc_node *p = &s->node[parent];
    size_t j;
    for (j = 0; p->child[j] != i; j++)
        ;
    p->child[j] = p->child[--p->nchild]; /* node_new appends top in its place */
    top = node_new(s, parent, s->node[i].tok, k);
    memmove(s->node[i].tok, s->node[i].tok + k, (s->node[i].len - k) * sizeof(uint32_t));
    s->node[i].len -= k;
    s->node[i].parent = top;
    ALLOC_GROW(s->node[top].child, 1, s->node[top].child_alloc);
    s->node[top].child[0] = i;
    s->node[top].nchild = 1;
    lru_push_head(s, top); /* the caller touches its path next */
    return top;
}

/* Drops the least recently used tokens until at most capacity are held. */
static void evict(struct cache_slot *s, size_t capacity)
{
    while (s->count > capacity) {
        int32_t i = s->tail, parent;
        struct pc_node *n = &s->node[i], *p;
        size_t drop = s->count - capacity, j;
        if (drop < n->len) { /* the leaf's last tokens */
            n->len -= drop;
            s->count -= drop;
            return;
        }
        s->count -= n->len;
        lru_unlink(s, i);
        parent = n->parent;
        p = &s->node[parent];
        for (j = 0; p->child[j] != i; j++)
            ;
        p->child[j] = p->child[--p->nchild];
        free(n->tok);
        n->tok = NULL;
        n->len = 0;
        n->parent = s->freelist;
        s->freelist = i;
    }
}

/*
 * walk(), then a split where the match ends inside a node, so the match ends a node: the
 * number of leading tokens held, *at the node it ends (the root when none).
 */
static size_t walk_split(struct cache_slot *s, const uint32_t *ids, size_t n, int32_t *at)
{
    size_t in, m = walk(s, ids, n, at, &in);
    if (*at && in < s->node[*at].len)
        *at = split(s, *at, in);
    return m;
}

/*
 * A free slot for the prompt: the one caching the longest prefix when it covers more than
 * half the prompt (llama.cpp's --slot-prompt-similarity 0.5), else the least recently used.
 * -1 when none is free.
 */
static int pick_slot(struct sim_cache *c, const uint32_t *ids, size_t n)
{
    int i, best = -1, lru = -1;
    size_t best_m = 0;
    for (i = 0; i < c->nslots; i++) {
        size_t m;
        if (c->slot[i].busy)
            continue;
        m = walk(&c->slot[i], ids, n, NULL, NULL);
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
    int32_t at;
    struct cache_slot *s;
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
    s = &c->slot[slot];
    m = walk_split(s, ids, n, &at);
    touch_path(s, at); /* a hit keeps its prefix young */
    /* the last prompt token is always computed (its logits start the answer) */
    if (m >= n)
        m = n ? n - 1 : 0;
    *cached = (long)m;
    pthread_mutex_unlock(&c->mu);
    return slot;
}

void sim_cache_store(struct sim_cache *c, int slot, const uint32_t *ids, size_t n)
{
    struct cache_slot *s;
    size_t m;
    int32_t at;
    if (slot < 0 || !c->capacity || !n)
        return;
    pthread_mutex_lock(&c->mu);
    s = &c->slot[slot];
    m = walk_split(s, ids, n, &at);
    if (m < n) {
        at = node_new(s, at, ids + m, n - m);
        s->node[at].prev = s->node[at].next = -1;
        lru_push_head(s, at);
        s->count += n - m;
    }
    touch_path(s, at);
    evict(s, (size_t)c->capacity);
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

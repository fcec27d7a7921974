/*
 * Private to the simulated model (sim.c, sim_prompt.c, sim_http.c), the way
 * sqliteInt.h sits behind sqlite3.h: the hash mixer every draw uses, the
 * question index, and the prompt as the model sees it. sim.h stays the API.
 */
#ifndef SIM_INT_H
#define SIM_INT_H

#include <stddef.h>
#include <stdint.h>

#include "base/rng.h"
#include "sim/sim.h"
#include "base/strbuf.h"

struct chunk;
struct golden_set;
struct question;
struct sim_config;
struct tokenizer;

/* splitmix64 of a value (one step from state z): the one mixer behind every simulated draw. */
static inline uint64_t sim_mix64(uint64_t z)
{
    return rng_splitmix64(&z);
}

/* A hash to a double in [0, 1). */
static inline double sim_to_unit(uint64_t h)
{
    return rng_unit(h);
}

/*
 * Questions are found by their last 8 bytes (endings differ more than
 * beginnings such as "who was the"): an open-addressing table maps the key to
 * a chain of questions; a 64k-bit filter on the key's first two bytes skips
 * most prompt positions. Questions shorter than 8 bytes are found with memmem.
 */
struct qindex {
    uint64_t *keys;
    size_t *head; /* SIZE_MAX = empty slot */
    size_t mask;
    size_t *next; /* per question: next in chain, SIZE_MAX = end */
    size_t *len;  /* per question: strlen of its text */
    size_t *shorts;
    size_t shorts_nr;
    unsigned char filter[65536 / 8];
    /* the haystack's chunks (sim_hindex_build) by their first 8 bytes; chunks under 8 skipped */
    const struct haystack *hay;
    uint64_t *hkeys;
    size_t *hhead, hmask, *hnext;
};

struct sim_prompt {
    struct strbuf *seg; /* segments (messages), owned */
    char **role;        /* chat: each message's role (owned), else NULL */
    size_t nr, alloc, role_alloc;
    size_t *start; /* byte where the model's view begins (shift-ctx) */
    long *count;   /* tokens of seg[i] from start[i] */
};

struct sim_analysis {
    const struct question *q;
    long T;           /* after shift */
    long sent_tokens; /* before shift */
    int shifted;
    int gold;
    double x;
    uint64_t salt;
    const struct chunk *negative; /* hard negative chosen for a wrong answer */
    struct sim_features features; /* what the planted axis effects look at */
};

/* Builds the index of gs's questions (gs may be NULL: an empty index); release frees it. */
void sim_qindex_build(struct qindex *ix, const struct golden_set *gs);
/* Adds the index of h's chunks (h may be NULL: none) to ix, freed by sim_qindex_release. */
void sim_hindex_build(struct qindex *ix, const struct haystack *h);
void sim_qindex_release(struct qindex *ix);

/* Appends an empty segment (a message) to p and returns it; release frees all segments. */
struct strbuf *sim_prompt_add(struct sim_prompt *p);
void sim_prompt_release(struct sim_prompt *p);

/* Tokens of p[0..len) (0 when the tokenizer fails). */
long sim_count_tokens(struct tokenizer *tok, const char *p, size_t len);
/* Byte length of the first n tokens of p[0..len). */
size_t sim_token_prefix_bytes(struct tokenizer *tok, const char *p, size_t len, long n);

/*
 * What the model sees in p: the question asked, the tokens after a context
 * shift (cfg->shift_ctx), where the gold chunk sits, the salt of the prompt
 * without the gold bytes, and a hard negative for a wrong answer. Fills
 * p->start / p->count (freed by sim_prompt_release).
 */
void sim_analyse(const struct sim_config *cfg, const struct qindex *qix, struct sim_prompt *p,
                 struct sim_analysis *a);

/*
 * The prefix cache and slots (sim_cache.c). capacity: tokens kept per slot (0: none);
 * slots: 0 = no slots (unlimited concurrency, one shared cache, as vLLM), else at most
 * that many requests are processed at once, each slot with its own cache (llama.cpp).
 */
struct sim_cache;
struct sim_cache *sim_cache_new(long capacity, int slots);
void sim_cache_free(struct sim_cache *c);
/* Wake and fail every wait for a slot (server shutdown). */
void sim_cache_shutdown(struct sim_cache *c);
int sim_cache_slots(const struct sim_cache *c);
/* 1 when the cache keeps prompts (--prefix-cache): only then are a prompt's ids looked up. */
int sim_cache_keeps(const struct sim_cache *c);
/*
 * Take a slot for a prompt of n token ids: want (0..slots-1) waits for that slot, -1 takes
 * a free one (the one caching most of the prompt when that is over half of it, else the
 * least recently used), waiting while all are busy. *cached: the longest prefix of ids the
 * slot's cache holds (at most n - 1). Returns the slot (0 without slots), or -1 when the
 * server is stopping. Pair with sim_cache_release().
 */
int sim_cache_acquire(struct sim_cache *c, const uint32_t *ids, size_t n, int want, long *cached);
/* The prompt's prefill is done: keep its ids in the slot's cache (LRU eviction). */
void sim_cache_store(struct sim_cache *c, int slot, const uint32_t *ids, size_t n);
void sim_cache_release(struct sim_cache *c, int slot);

/*
 * serve-sim's Batch API (sim_batch.c): files and batches in memory. sim_batch_request()
 * answers /v1/files... and /v1/batches... (returns 1 and fills a, body malloc'd) and returns 0
 * for any other path. ctype: the request's Content-Type; q: the query of a list (any member
 * NULL when not given).
 */
struct sim_list_query {
    const char *after, *limit, *order, *purpose;
};
struct sim_answer {
    int status;
    char *body;
    size_t len;
    const char *content_type;
};
struct sim_server;
struct sim_batches;
struct sim_batches *sim_batches_new(const struct sim_config *cfg);
void sim_batches_free(struct sim_batches *b);
int sim_batch_request(struct sim_server *s, struct sim_batches *b, const char *method,
                      const char *path, const char *ctype, const struct sim_list_query *q,
                      const char *body, size_t len, struct sim_answer *a);
/*
 * Answer one generation request body as POST /v1/chat/completions (chat) or /v1/completions
 * would (sim_http.c; logged with route "batch"): the status, and the body in *out (malloc'd).
 */
int sim_generate(struct sim_server *s, int chat, const char *body, size_t len, char **out,
                 size_t *out_len);

#endif

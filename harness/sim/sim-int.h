/*
 * Private to the simulated model (sim.c, sim_prompt.c, sim_cache.c, sim_batch.c and the
 * HTTP server's files), the way sqliteInt.h sits behind sqlite3.h: the hash mixer every draw
 * uses, the question index, the prompt as the model sees it, and the server's state, replies
 * and requests. sim.h stays the API.
 */
#ifndef SIM_INT_H
#define SIM_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "base/rng.h"
#include "base/usage.h"
#include "sim/sim.h"
#include "base/strbuf.h"

struct chunk;
struct golden_set;
struct httpd;
struct json;
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
    /* an ordinal question (features.ordinal_n > 0): the chunks of occurrences rank - 1 and
       rank + 1 in the prompt (NULL at an end), the neighbours a planted slip answers */
    const struct chunk *ordinal_prev, *ordinal_next;
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
 * would (sim_generate.c; logged with route "batch"): the status, and the body in *out (malloc'd).
 */
int sim_generate(struct sim_server *s, int chat, const char *body, size_t len, char **out,
                 size_t *out_len);

/* ---- the HTTP server (sim_http.c, sim_request.c, sim_generate.c, sim_fault.c) ---------- */

struct sim_server {
    const struct sim_config *cfg;
    struct httpd *http;
    int port;
    struct qindex qix;
    FILE *log;
    pthread_mutex_t log_lock;
    pthread_mutex_t stop_lock;
    pthread_cond_t stop_cond;
    int stopping;
    atomic_uint_fast64_t gen_counter;      /* generation requests, for fault draws */
    atomic_uint_fast64_t id_counter;       /* response ids */
    struct sim_cache *cache;               /* prefix cache and slots */
    atomic_int gen_inflight, tok_inflight; /* requests being answered, per kind (log) */
    /* --prefill-throughput: the shared prefill engine, FIFO by ticket (under stop_lock) */
    pthread_cond_t engine_cond;
    uint64_t engine_next, engine_serving;
    double t0_ms;   /* the server's start, utc_monotonic_ms (engine times in the log) */
    time_t created; /* the server's start, the models' "created" */
    struct sim_batches *batches; /* the Batch API's files and batches (sim_batch.c) */
};

/* What a handler decided to send. */
struct sim_reply {
    int status;
    char *body; /* malloc'd */
    size_t len;
    const char *content_type;
    long retry_after_ms; /* > 0: add Retry-After headers */
    int drop;            /* close without a response */
    int truncate;        /* send half the body with the full Content-Length */
    char request_id[40]; /* x-request-id, as OpenAI's: "req_" and 32 hex digits */
};

/* Everything the log line says about one request. */
struct sim_logrec {
    const char *route;
    const char *request_id; /* the x-request-id header sent, or NULL (a batch's lines) */
    const char *model;
    const char *question_id;
    double x; /* < 0: unknown */
    long T;   /* prompt tokens seen by the model (after shift); -1 unknown */
    long sent_tokens;
    double p, u;      /* < 0: not drawn */
    double overlap;   /* the question's overlap with its gold (sim_features), < 0: unknown */
    int reversed;     /* -1: the question has one gold chunk; else sim_features.reversed */
    double spacing;   /* with reversed: sim_features.spacing (the needles' gap / T) */
    long gold_tokens; /* sim_features.gold_tokens, 0: no gold */
    int haystack;     /* -1: serve-sim has no --haystack; else sim_features.haystack */
    const char *outcome;
    const char *finish;           /* finish_reason of an answer, else NULL */
    const char *reasoning_effort; /* as requested, else NULL */
    long think;                   /* reasoning tokens emitted, -1 none */
    const char *think_form;       /* "field" or "inline", else NULL */
    struct json *extra;           /* request fields serve-sim does not use (a root), or NULL */
    enum sim_fault fault;
    int gold;
    long cached;   /* prompt tokens taken from the prefix cache, -1 not looked up */
    int slot;      /* the slot that served it, -1 none (no --slots) */
    long inflight; /* requests of this kind in flight on arrival, -1 not counted */
    /* --prefill-throughput: ms waited for the engine, its start and end (ms since start) */
    double queue_ms, engine_start_ms, engine_end_ms; /* < 0: no engine */
};

/* A generation request as sim_request.c checked it, and what answering it took. */
struct sim_gen {
    int chat;
    const struct sim_model *model;
    long max_tokens; /* -1 = not given */
    long think;      /* reasoning tokens to emit before the answer (config, effort, kwargs) */
    int no_think;    /* chat_template_kwargs.enable_thinking false (the template renders it) */
    struct sim_prompt prompt;
    /* the prefix cache (sim_cache.c) */
    int id_slot;            /* llama.cpp "id_slot", -1 any */
    int cache_prompt;       /* llama.cpp "cache_prompt" (default true): reuse and keep */
    const char *cache_salt; /* vLLM "cache_salt": only requests with the same salt share */
    uint32_t *ids;          /* the prompt as cached: markers and token ids */
    size_t nids;
    int slot; /* taken, -1 none */
    long T;   /* prompt tokens */
    long cached;
    long ctok;  /* completion tokens */
    int engine; /* holds the prefill engine (--prefill-throughput) */
};

/* Replies (sim_http.c): the JSON (obj freed), OpenAI's error object (param and code null when
 * NULL), a 400 invalid_request_error naming the field at fault (param NULL: the body). */
void sim_json_reply(struct sim_reply *r, int status, struct json *obj);
/* OpenAI's error object {"error": {message, type, param, code}} (the caller frees it). */
struct json *sim_error_object(const char *type, const char *param, const char *str_code,
                              const char *fmt, va_list ap) DM_PRINTF(4, 0);
void sim_error_reply(struct sim_reply *r, int status, const char *type, const char *param,
                     const char *str_code, const char *fmt, ...) DM_PRINTF(6, 7);
void sim_bad_request(struct sim_reply *r, const char *param, const char *msg);
/* The model a request names (NULL: the first), or NULL; OpenAI's 404 model_not_found. */
const struct sim_model *sim_find_model(struct sim_server *s, const char *name);
void sim_model_not_found(struct sim_reply *r, const char *name);
/* Wait ms (woken by sim_stop); 1 when the server is stopping. */
int sim_delay_ms(struct sim_server *s, double ms);
/* A log record with nothing known yet; one --log line for it. */
void sim_logrec_init(struct sim_logrec *l, const char *route);
void sim_write_log(struct sim_server *s, const struct sim_logrec *l, int status);
/* OpenAI's x-request-id: "req_" and 32 hex digits, unique per request. */
void sim_request_id(struct sim_server *s, char *buf, size_t size);

/*
 * The request checks (sim_request.c). sim_gen_parse: a generation request's fields into g
 * (g->chat set, the rest zero but id_slot, slot -1 and cache_prompt 1); 0, or -1 with the
 * 400/404 in r and l->outcome set. sim_add_messages: "messages" into p (each message a
 * segment, its role kept); 0, or -1 with the 400 in r. sim_decode_ids: token ids into out.
 */
int sim_gen_parse(struct sim_server *s, const struct json *req, struct sim_gen *g,
                  struct sim_reply *r, struct sim_logrec *l);
int sim_add_messages(struct sim_prompt *p, const struct json *messages, struct sim_reply *r);
int sim_decode_ids(struct sim_server *s, const struct json *arr, struct strbuf *out,
                   struct sim_reply *r);
/*
 * The chat template (--chat-template chatml): each message as
 * "<|im_start|>ROLE\nCONTENT<|im_end|>\n", then "<|im_start|>assistant\n", and, as Qwen3's
 * template does for chat_template_kwargs.enable_thinking false (sim_kwargs_no_think), an empty
 * think block after it (so the kwargs change the rendered length).
 */
void sim_render_chatml(const struct sim_prompt *p, int no_think, struct strbuf *out);
int sim_kwargs_no_think(const struct json *req);
/*
 * Tokens the server adds around the content it counts: the chat template's (chatml: the
 * rendered text minus its messages) plus --template-overhead (BOS-like, chat and
 * completions alike).
 */
long sim_template_tokens(struct sim_server *s, const struct sim_prompt *p, int chat, int no_think);

/* Answer POST /v1/chat/completions (chat) or /v1/completions (sim_generate.c). */
void sim_handle_generation(struct sim_server *s, int chat, const char *body, size_t len,
                           struct sim_reply *r, struct sim_logrec *l);
/* Put fault f's reply in place of r (sim_fault.c; none and slow leave it). */
void sim_fault_apply(struct sim_server *s, enum sim_fault f, struct sim_reply *r);

#endif

/*
 * The HTTP face of `dipmap serve-sim`: an OpenAI-compatible server on httpd.c
 * (a thread per connection). Owns request
 * parsing, the generation reply, fault replies, /tokenize, and the request
 * log. The curve is sim.c, reading the prompt is sim_prompt.c.
 */
#define _GNU_SOURCE
#include "sim/sim.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prompt/dataset.h"
#include "base/httpd.h"
#include "base/json.h"
#include "base/num.h"
#include "sim/sim-int.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "tokenizer/tokenizer.h"
#include "base/unicode.h"
#include "base/version.h"
#include "base/xalloc.h"
#include "base/hash.h"
#include "base/utc.h"

#include "base/banned.h"

#define BODY_CAP                       ((size_t)64 << 20)
#define COMPLETIONS_DEFAULT_MAX_TOKENS 16 /* OpenAI's legacy default */
#define REASONING_TOKENS               256
#define IDK                            "I don't know"

/* ---- the server ----------------------------------------------------------- */

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
struct reply {
    int status;
    char *body; /* malloc'd */
    size_t len;
    const char *content_type;
    long retry_after_ms; /* > 0: add Retry-After headers */
    int drop;            /* close without a response */
    int truncate;        /* send half the body with the full Content-Length */
    char request_id[40]; /* x-request-id, as OpenAI's "req_" and 32 hex digits */
};

/* Everything the log line says about one request. */
struct logrec {
    const char *route;
    const char *request_id; /* the x-request-id header sent, or NULL (a batch line) */
    const char *model;
    const char *question_id;
    double x; /* < 0: unknown */
    long T;   /* prompt tokens seen by the model (after shift); -1 unknown */
    long sent_tokens;
    double p, u;    /* < 0: not drawn */
    double overlap; /* the question's overlap with its gold (sim_features), < 0: unknown */
    int reversed;   /* -1: the question has one gold chunk; else sim_features.reversed */
    double spacing; /* with reversed: sim_features.spacing (the needles' gap / T) */
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

static void logrec_init(struct logrec *l, const char *route)
{
    memset(l, 0, sizeof(*l));
    l->route = route;
    l->x = -1;
    l->T = -1;
    l->sent_tokens = -1;
    l->p = -1;
    l->u = -1;
    l->overlap = -1;
    l->reversed = -1;
    l->spacing = -1;
    l->outcome = "ok";
    l->think = -1;
    l->inflight = -1;
    l->cached = -1;
    l->slot = -1;
    l->queue_ms = l->engine_start_ms = l->engine_end_ms = -1;
}

static void json_reply(struct reply *r, int status, struct json *obj)
{
    struct strbuf sb = STRBUF_INIT;
    json_print(&sb, obj, 0);
    r->status = status;
    free(r->body);
    r->len = sb.len;
    r->body = strbuf_detach(&sb, NULL);
    r->content_type = "application/json";
    json_free(obj);
}

/* OpenAI's error object {"error":{"message","type","param","code"}}; param and code null when NULL.
 */
static void error_reply(struct reply *r, int status, const char *type, const char *param,
                        const char *str_code, const char *fmt, ...) DM_PRINTF(6, 7);
static void error_reply(struct reply *r, int status, const char *type, const char *param,
                        const char *str_code, const char *fmt, ...)
{
    struct strbuf msg = STRBUF_INIT;
    struct json *root = json_new_object(), *e = json_add_object(root, "error");
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&msg, fmt, ap);
    va_end(ap);
    json_add_str(e, "message", msg.buf);
    json_add_str(e, "type", type);
    if (param)
        json_add_str(e, "param", param);
    else
        json_add_null(e, "param");
    if (str_code)
        json_add_str(e, "code", str_code);
    else
        json_add_null(e, "code");
    strbuf_release(&msg);
    json_reply(r, status, root);
}

/* A 400 invalid_request_error naming the field at fault (param, or NULL for the body). */
static void bad_request(struct reply *r, const char *param, const char *msg)
{
    error_reply(r, 400, "invalid_request_error", param, NULL, "%s", msg);
}

static int delay_ms(struct sim_server *s, double ms)
{
    struct timespec until;
    long us;
    int stopped;
    if (!(ms > 0))
        return 0;
    us = (long)(ms * 1000.0 + 0.5);
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += us / 1000000L;
    until.tv_nsec += (us % 1000000L) * 1000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&s->stop_lock);
    while (!s->stopping && pthread_cond_timedwait(&s->stop_cond, &s->stop_lock, &until) == 0)
        ;
    stopped = s->stopping;
    pthread_mutex_unlock(&s->stop_lock);
    return stopped;
}

static void write_log(struct sim_server *s, const struct logrec *l, int status)
{
    struct json *o;
    char *line;
    struct timespec now;
    if (!s->log)
        return;
    clock_gettime(CLOCK_REALTIME, &now);
    o = json_new_object();
    json_add_num(o, "ts", (double)now.tv_sec + now.tv_nsec / 1e9);
    json_add_str(o, "route", l->route);
    if (l->request_id)
        json_add_str(o, "request_id", l->request_id);
    json_add_num(o, "status", status);
    if (l->model)
        json_add_str(o, "model", l->model);
    else
        json_add_null(o, "model");
    if (l->question_id)
        json_add_str(o, "question_id", l->question_id);
    else
        json_add_null(o, "question_id");
    if (l->x >= 0)
        json_add_num(o, "x", l->x);
    else
        json_add_null(o, "x");
    if (l->T >= 0)
        json_add_num(o, "T", (double)l->T);
    else
        json_add_null(o, "T");
    if (l->sent_tokens >= 0)
        json_add_num(o, "sent_tokens", (double)l->sent_tokens);
    if (l->p >= 0) {
        json_add_num(o, "p", l->p);
        json_add_num(o, "u", l->u);
        if (l->overlap >= 0)
            json_add_num(o, "overlap", l->overlap);
        if (l->reversed >= 0) { /* a two-hop chain's order (run --hops 2) and the gap */
            json_add_bool(o, "reversed", l->reversed);
            json_add_num(o, "spacing", l->spacing);
        }
    }
    json_add_bool(o, "gold", l->gold);
    json_add_str(o, "outcome", l->outcome);
    if (l->finish)
        json_add_str(o, "finish_reason", l->finish);
    if (l->reasoning_effort)
        json_add_str(o, "reasoning_effort", l->reasoning_effort);
    if (l->think >= 0) {
        json_add_num(o, "think", (double)l->think);
        json_add_str(o, "think_form", l->think_form);
    }
    if (l->extra)
        json_add(o, "extra", json_copy(l->extra));
    if (l->inflight >= 0)
        json_add_num(o, "inflight", (double)l->inflight);
    if (l->cached >= 0)
        json_add_num(o, "cached", (double)l->cached);
    if (l->slot >= 0)
        json_add_num(o, "slot", l->slot);
    if (l->engine_start_ms >= 0) {
        json_add_num(o, "queue_ms", l->queue_ms);
        json_add_num(o, "engine_start_ms", l->engine_start_ms);
        json_add_num(o, "engine_end_ms", l->engine_end_ms);
    }
    json_add_str(o, "fault", sim_fault_name(l->fault));
    line = json_print_str(o, 0);
    json_free(o);
    pthread_mutex_lock(&s->log_lock);
    fputs(line, s->log);
    fputc('\n', s->log);
    fflush(s->log);
    pthread_mutex_unlock(&s->log_lock);
    free(line);
}

/* ---- generation ----------------------------------------------------------- */

struct gen_request {
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

/* Ids above any vocabulary: a message boundary (by role) or a cache salt in the cached ids. */
#define CACHE_MARK  0xffffff00u
#define IS_MARK(id) ((id) >= CACHE_MARK)

/*
 * The tokens the prefix cache compares: per message a marker of its role, then its
 * tokens as the model sees them (after a context shift); a cache_salt leads with its own
 * marker, so differently salted requests share nothing.
 */
static void cache_ids(struct sim_server *s, struct gen_request *g)
{
    size_t alloc = 0;
    if (g->cache_salt) {
        /* 63 bits of the salt's hash, 7 per marker: two salts share a prefix 1 in 2^63 */
        uint64_t h = fnv64_str(FNV64_INIT, g->cache_salt);
        ALLOC_GROW(g->ids, g->nids + 9, alloc);
        for (int k = 0; k < 9; k++, h >>= 7)
            g->ids[g->nids++] = CACHE_MARK | (uint32_t)(h & 0x7f);
    }
    for (size_t i = 0; i < g->prompt.nr; i++) {
        const char *role = g->prompt.role ? g->prompt.role[i] : "prompt";
        uint32_t *t = NULL;
        size_t n = 0;
        ALLOC_GROW(g->ids, g->nids + 1, alloc);
        g->ids[g->nids++] = CACHE_MARK | 0x80u | (uint32_t)(fnv64_str(FNV64_INIT, role) & 0x7f);
        if (tokenizer_encode(s->cfg->tokenizer, g->prompt.seg[i].buf + g->prompt.start[i],
                             g->prompt.seg[i].len - g->prompt.start[i], TOKENIZER_SPECIAL_DEFAULT,
                             &t, &n) == 0 &&
            n) {
            ALLOC_GROW(g->ids, g->nids + n, alloc);
            memcpy(g->ids + g->nids, t, n * sizeof(*t));
            g->nids += n;
        }
        free(t);
    }
}

static double since_start_ms(const struct sim_server *s)
{
    return utc_monotonic_ms() - s->t0_ms;
}

/*
 * --prefill-throughput: wait for the shared prefill engine (FIFO: tickets in arrival
 * order). 0 with the engine held (g->engine), -1 when the server is stopping.
 */
static int engine_enter(struct sim_server *s, struct gen_request *g, struct logrec *l)
{
    double t = since_start_ms(s);
    uint64_t me;
    int stopped;
    pthread_mutex_lock(&s->stop_lock);
    me = s->engine_next++;
    while (!s->stopping && s->engine_serving != me)
        pthread_cond_wait(&s->engine_cond, &s->stop_lock);
    stopped = s->stopping;
    pthread_mutex_unlock(&s->stop_lock);
    if (stopped)
        return -1;
    g->engine = 1;
    l->engine_start_ms = since_start_ms(s);
    l->queue_ms = l->engine_start_ms - t;
    return 0;
}

/* The prefill is done (or abandoned): the next request's turn. */
static void engine_leave(struct sim_server *s, struct gen_request *g, struct logrec *l)
{
    if (!g->engine)
        return;
    g->engine = 0;
    l->engine_end_ms = since_start_ms(s);
    pthread_mutex_lock(&s->stop_lock);
    s->engine_serving++;
    pthread_cond_broadcast(&s->engine_cond);
    pthread_mutex_unlock(&s->stop_lock);
}

/* Take a slot and look the prompt up in its cache; 0, or -1 when the server is stopping. */
static int cache_lookup(struct sim_server *s, struct gen_request *g)
{
    long m = 0, marks = 0;
    size_t i;
    g->slot = sim_cache_acquire(s->cache, g->ids, g->nids, g->id_slot, &m);
    if (g->slot < 0)
        return -1;
    if (!g->cache_prompt)
        m = 0;
    for (i = 0; i < (size_t)m; i++)
        marks += IS_MARK(g->ids[i]) != 0; /* markers are not tokens */
    m -= marks;
    if (m > g->T - 1)
        m = g->T > 0 ? g->T - 1 : 0;
    g->cached = m < 0 ? 0 : m;
    return 0;
}

static const struct sim_model *find_model(struct sim_server *s, const char *name)
{
    if (!name)
        return &s->cfg->models[0];
    for (size_t i = 0; i < s->cfg->nr_models; i++)
        if (!strcmp(s->cfg->models[i].name, name))
            return &s->cfg->models[i];
    return NULL;
}

static void model_not_found(struct reply *r, const char *name)
{
    error_reply(r, 404, "invalid_request_error", NULL, "model_not_found",
                "The model `%s` does not exist or you do not have access to it.", name);
}

/* Text of a message content: a string, or an array of parts whose "text" is concatenated. */
static int add_content(struct strbuf *sb, const struct json *content)
{
    if (json_kind(content) == JSON_STRING) {
        strbuf_addstr(sb, json_str(content));
        return 0;
    }
    if (json_kind(content) == JSON_NULL)
        return 0;
    if (json_kind(content) == JSON_ARRAY) {
        const struct json *part;
        for (part = json_first(content); part; part = json_next(part)) {
            const struct json *t = json_get(part, "text");
            if (json_kind(t) == JSON_STRING)
                strbuf_addstr(sb, json_str(t));
        }
        return 0;
    }
    return -1;
}

/* One element of an assistant message's "tool_calls": 0, or -1 with the reason in *why. */
static int check_tool_call(const struct json *call, size_t i, size_t k, struct strbuf *why)
{
    const struct json *fn = json_get(call, "function");
    const char *type = json_get_str(call, "type"), *args = json_get_str(fn, "arguments");
    struct json *parsed;
    if (!json_get_str(call, "id") || !*json_get_str(call, "id"))
        strbuf_addf(why, "messages[%zu].tool_calls[%zu]: 'id' must be a non-empty string", i, k);
    else if (!type || strcmp(type, "function"))
        strbuf_addf(why, "messages[%zu].tool_calls[%zu]: 'type' must be 'function'", i, k);
    else if (!json_get_str(fn, "name") || !*json_get_str(fn, "name"))
        strbuf_addf(
            why, "messages[%zu].tool_calls[%zu].function: 'name' must be a non-empty string", i, k);
    else if (!args || !(parsed = json_parse_str(args)))
        strbuf_addf(why,
                    "messages[%zu].tool_calls[%zu].function: 'arguments' must be a string "
                    "holding JSON",
                    i, k);
    else
        json_free(parsed);
    return why->len ? -1 : 0;
}

/*
 * The OpenAI tool-call rules a chat request's messages keep (the API answers 400 otherwise):
 * "tool_calls" only in an assistant message, a non-empty array of {"id", "type": "function",
 * "function": {"name", "arguments": JSON text}}; each call answered by a following "tool"
 * message whose "tool_call_id" names it, before any other message; a "tool" message answers a
 * call. Returns 0, or -1 with the reason in *why.
 */
static int check_tool_calls(const struct json *messages, struct strbuf *why)
{
    struct strvec open = STRVEC_INIT; /* the ids not answered yet */
    const struct json *msg, *call;
    size_t i = 0, k;
    for (msg = json_first(messages); msg && !why->len; msg = json_next(msg), i++) {
        const char *role = json_get_str(msg, "role"), *id = json_get_str(msg, "tool_call_id");
        const struct json *calls = json_get(msg, "tool_calls");
        if (role && !strcmp(role, "tool")) {
            long at = id ? strvec_find(&open, id) : -1;
            char *t;
            if (at < 0) {
                strbuf_addf(why,
                            "messages[%zu]: a message with role 'tool' must answer a tool call "
                            "of the assistant message before it ('tool_call_id' %s%s%s)",
                            i, id ? "'" : "", id ? id : "missing", id ? "' names none" : "");
                break;
            }
            t = open.v[at];
            open.v[at] = open.v[open.nr - 1];
            open.v[open.nr - 1] = t;
            strvec_pop(&open);
            continue;
        }
        if (open.nr) {
            strbuf_addf(why,
                        "messages[%zu]: the tool calls before it must each be answered by a "
                        "'tool' message first (not answered: %s)",
                        i, open.v[0]);
            break;
        }
        if (!calls || json_kind(calls) == JSON_NULL)
            continue;
        if (!role || strcmp(role, "assistant") || json_kind(calls) != JSON_ARRAY ||
            !json_size(calls)) {
            strbuf_addf(why,
                        "messages[%zu]: 'tool_calls' must be a non-empty array in an assistant "
                        "message",
                        i);
            break;
        }
        for (call = json_first(calls), k = 0; call && !why->len; call = json_next(call), k++)
            if (!check_tool_call(call, i, k, why))
                strvec_push(&open, json_get_str(call, "id"));
    }
    if (!why->len && open.nr)
        strbuf_addf(why, "the tool call %s is not answered by a 'tool' message", open.v[0]);
    strvec_clear(&open);
    return why->len ? -1 : 0;
}

static int add_messages(struct sim_prompt *p, const struct json *messages, struct reply *r)
{
    const struct json *msg;
    struct strbuf why = STRBUF_INIT;
    if (!messages) {
        error_reply(r, 400, "invalid_request_error", "messages", "missing_required_parameter",
                    "Missing required parameter: 'messages'.");
        return -1;
    }
    if (json_kind(messages) != JSON_ARRAY || !json_size(messages)) {
        bad_request(r, "messages", "'messages' must be a non-empty array");
        return -1;
    }
    if (check_tool_calls(messages, &why)) {
        bad_request(r, "messages", why.buf);
        strbuf_release(&why);
        return -1;
    }
    for (msg = json_first(messages); msg; msg = json_next(msg)) {
        const struct json *content = json_get(msg, "content");
        const struct json *role = json_get(msg, "role");
        if (json_kind(msg) != JSON_OBJECT || add_content(sim_prompt_add(p), content)) {
            bad_request(r, "messages",
                        "each message must be an object whose 'content' is a string or "
                        "an array of text parts");
            return -1;
        }
        ALLOC_GROW(p->role, p->nr, p->role_alloc);
        p->role[p->nr - 1] = xstrdup(json_kind(role) == JSON_STRING ? json_str(role) : "user");
    }
    return 0;
}

/*
 * The chat template (--chat-template chatml): each message as
 * "<|im_start|>ROLE\nCONTENT<|im_end|>\n", then "<|im_start|>assistant\n", and,
 * as Qwen3's template does for chat_template_kwargs.enable_thinking false, an
 * empty think block after it (so the kwargs change the rendered length).
 */
static void render_chatml(const struct sim_prompt *p, int no_think, struct strbuf *out)
{
    for (size_t i = 0; i < p->nr; i++) {
        strbuf_addf(out, "<|im_start|>%s\n", p->role ? p->role[i] : "user");
        strbuf_add(out, p->seg[i].buf, p->seg[i].len);
        strbuf_addstr(out, "<|im_end|>\n");
    }
    strbuf_addstr(out, "<|im_start|>assistant\n");
    if (no_think)
        strbuf_addstr(out, "<think>\n\n</think>\n\n");
}

/* The request turns thinking off the Qwen3 way (chat_template_kwargs.enable_thinking false). */
static int kwargs_no_think(const struct json *req)
{
    return json_is_false(json_get(json_get(req, "chat_template_kwargs"), "enable_thinking"));
}

/*
 * Tokens the simulated server adds around the content it counts: the chat
 * template's (chatml: the rendered text minus its messages) plus
 * --template-overhead (BOS-like, chat and completions alike).
 */
static long template_tokens(struct sim_server *s, const struct sim_prompt *p, int chat,
                            int no_think)
{
    long n = s->cfg->template_overhead;
    if (chat && s->cfg->chat_template == SIM_TEMPLATE_CHATML) {
        struct strbuf r = STRBUF_INIT;
        render_chatml(p, no_think, &r);
        n += sim_count_tokens(s->cfg->tokenizer, r.buf, r.len);
        for (size_t i = 0; i < p->nr; i++)
            n -= sim_count_tokens(s->cfg->tokenizer, p->seg[i].buf, p->seg[i].len);
        strbuf_release(&r);
    }
    return n;
}

static int decode_ids(struct sim_server *s, const struct json *arr, struct strbuf *out,
                      struct reply *r)
{
    size_t n = (size_t)json_size(arr), i = 0;
    uint32_t *ids = xcalloc(n + 1, sizeof(*ids));
    const struct json *it;
    int ret = 0;
    for (it = json_first(arr); it; it = json_next(it)) {
        if (json_kind(it) != JSON_NUMBER || json_num(it, 0) < 0 || json_num(it, 0) > 4294967295.0) {
            bad_request(r, NULL, "token ids must be non-negative integers");
            ret = -1;
            goto cleanup;
        }
        ids[i++] = (uint32_t)json_num(it, 0);
    }
    if (tokenizer_decode(s->cfg->tokenizer, ids, n, out)) {
        bad_request(r, NULL, "unknown token id");
        ret = -1;
    }
cleanup:
    free(ids);
    return ret;
}

static int add_completion_prompt(struct sim_server *s, struct sim_prompt *p,
                                 const struct json *prompt, struct reply *r)
{
    if (json_kind(prompt) == JSON_ARRAY && json_size(prompt) == 1 &&
        (json_kind(json_first(prompt)) == JSON_STRING ||
         json_kind(json_first(prompt)) == JSON_ARRAY))
        prompt = json_first(prompt);
    if (json_kind(prompt) == JSON_STRING) {
        strbuf_addstr(sim_prompt_add(p), json_str(prompt));
        return 0;
    }
    if (json_kind(prompt) == JSON_ARRAY &&
        (!json_first(prompt) || json_kind(json_first(prompt)) == JSON_NUMBER))
        return decode_ids(s, prompt, sim_prompt_add(p), r);
    bad_request(r, "prompt",
                "'prompt' must be a string, a one-element array of strings, or token ids");
    return -1;
}

static long get_max_tokens(const struct json *req, const char *name, struct reply *r, int *bad)
{
    const struct json *v = json_get(req, name);
    if (!v || json_kind(v) == JSON_NULL)
        return -1;
    if (json_kind(v) != JSON_NUMBER || json_num(v, 0) != floor(json_num(v, 0))) {
        error_reply(r, 400, "invalid_request_error", name, "invalid_type",
                    "Invalid type for '%s': expected an integer.", name);
        *bad = 1;
    } else if (json_num(v, 0) < 1 || json_num(v, 0) > 1e9) {
        error_reply(r, 400, "invalid_request_error", name,
                    json_num(v, 0) < 1 ? "integer_below_min_value" : "integer_above_max_value",
                    "Invalid '%s': '%s' must be a positive integer (1..1000000000), got %.0f.",
                    name, name, json_num(v, 0));
        *bad = 1;
    }
    return (long)json_num(v, 0);
}

/* OpenAI's x-request-id: "req_" and 32 hex digits, unique per request. */
static void request_id(struct sim_server *s, char *buf, size_t size)
{
    uint64_t n = atomic_fetch_add(&s->id_counter, 1), h = sim_mix64(n ^ (uint64_t)time(NULL));
    snprintf(buf, size, "req_%016llx%016llx", (unsigned long long)h,
             (unsigned long long)sim_mix64(h ^ n));
}

static char *new_id(struct sim_server *s, const char *prefix)
{
    struct strbuf sb = STRBUF_INIT;
    uint64_t n = atomic_fetch_add(&s->id_counter, 1);
    strbuf_addf(&sb, "%s-%016llx", prefix, (unsigned long long)sim_mix64(n ^ (uint64_t)time(NULL)));
    return strbuf_detach(&sb, NULL);
}

/* The answer text, possibly cut to max_tokens (sets *finish to "length"). */
static void cut_answer(struct sim_server *s, struct strbuf *ans, long max_tokens, long *ntok,
                       const char **finish)
{
    *ntok = sim_count_tokens(s->cfg->tokenizer, ans->buf, ans->len);
    *finish = "stop";
    if (max_tokens >= 0 && *ntok > max_tokens) {
        size_t bytes = sim_token_prefix_bytes(s->cfg->tokenizer, ans->buf, ans->len, max_tokens);
        strbuf_setlen(ans, bytes);
        *ntok = max_tokens;
        *finish = "length";
    }
}

/*
 * Reasoning mode: g->think tokens of thinking (which mention the gold answer,
 * so crediting them would show) come out of the same budget as the answer.
 * Thinking that reaches the budget leaves no answer: finish_reason "length",
 * or "stop" with --think-stop (a server forcing the end of thinking). The form
 * is the reasoning_content field or an inline <think> block in the content
 * (--think-form; "both" alternates by question and position).
 */
static void think_then_answer(struct sim_server *s, const struct gen_request *g,
                              const struct sim_analysis *a, struct strbuf *answer,
                              struct strbuf *thinking, long *ctok, long *rtok, int *inline_form,
                              const char **finish, struct logrec *l)
{
    const struct sim_config *cfg = s->cfg;
    long budget = g->max_tokens, n;
    struct strbuf content = STRBUF_INIT;
    int starved;

    strbuf_addf(thinking, "Is the answer %s? ", a->q ? a->q->answers.v[0] : "in the documents");
    while ((n = sim_count_tokens(cfg->tokenizer, thinking->buf, thinking->len)) < g->think)
        strbuf_addstr(thinking, "Let me read the documents once more and check. ");
    n = g->think;
    starved = budget >= 0 && n >= budget;
    if (starved)
        n = budget;
    strbuf_setlen(thinking,
                  sim_token_prefix_bytes(cfg->tokenizer, thinking->buf, thinking->len, n));
    *rtok = n;
    if (cfg->think_form == SIM_THINK_BOTH)
        *inline_form = (sim_mix64(a->salt ^ (a->q ? fnv64_str(FNV64_INIT, a->q->id) : 0)) & 1) != 0;
    else
        *inline_form = cfg->think_form == SIM_THINK_INLINE;
    if (starved) {
        strbuf_reset(answer);
        *ctok = n;
        *finish = cfg->think_stop ? "stop" : "length";
        l->outcome = "starved";
    } else {
        long atok;
        cut_answer(s, answer, budget >= 0 ? budget - n : -1, &atok, finish);
        *ctok = n + atok;
    }
    if (*inline_form) {
        /* the block closes unless the budget ran out while thinking (no forced stop) */
        strbuf_addf(&content, "<think>%s", thinking->buf);
        if (!starved || cfg->think_stop)
            strbuf_addstr(&content, "</think>\n\n");
        strbuf_add(&content, answer->buf, answer->len);
        strbuf_reset(answer);
        strbuf_add(answer, content.buf, content.len);
    }
    l->think = n;
    l->think_form = *inline_form ? "inline" : "field";
    strbuf_release(&content);
}

/* The server's time for a request: base latency, prefill of the uncached prompt, decoding. */
static double prefill_ms(const struct sim_config *cfg, const struct gen_request *g)
{
    return cfg->prefill_ms_per_1k * (double)(g->T - g->cached) / 1000.0;
}
/* --prefill-throughput: the request's time on the shared prefill engine (0 without) */
static double engine_ms(const struct sim_config *cfg, const struct gen_request *g)
{
    if (!(cfg->prefill_throughput > 0))
        return 0;
    return 1000.0 * (double)(g->T - g->cached) / cfg->prefill_throughput;
}
static double decode_ms(const struct sim_config *cfg, const struct gen_request *g)
{
    return cfg->decode_ms_per_token * (double)g->ctok;
}

/*
 * Several gold chunks in the prompt, each with a "value": the all-of answer
 * lists them (dataset order). Returns 1 when it wrote one.
 */
static int sim_needle_answer(const struct question *q, const struct sim_prompt *p,
                             struct strbuf *answer)
{
    size_t g, i, n = 0;
    for (g = 0; g < q->gold_nr; g++) {
        int found = 0;
        for (i = 0; i < p->nr && !found; i++)
            found = memmem(p->seg[i].buf + p->start[i], p->seg[i].len - p->start[i],
                           q->gold[g].text, q->gold[g].text_len) != NULL;
        if (!found)
            continue;
        if (!q->gold[g].value || !*q->gold[g].value)
            return 0;
        n++;
    }
    if (n < 2)
        return 0;
    for (g = 0, n = 0; g < q->gold_nr; g++) {
        int found = 0;
        for (i = 0; i < p->nr && !found; i++)
            found = memmem(p->seg[i].buf + p->start[i], p->seg[i].len - p->start[i],
                           q->gold[g].text, q->gold[g].text_len) != NULL;
        if (found)
            strbuf_addf(answer, "%s%s", n++ ? ", " : "", q->gold[g].value);
    }
    return 1;
}

static void answer_completion(struct sim_server *s, struct gen_request *g, struct reply *r,
                              struct logrec *l)
{
    const struct sim_config *cfg = s->cfg;
    struct sim_analysis a;
    struct strbuf answer = STRBUF_INIT, reasoning = STRBUF_INIT;
    const char *finish = "stop";
    long ctok = 0, rtok = -1;
    int reasoning_only = 0, inline_form = 0;
    struct json *root, *choices, *choice, *usage;
    char *id;

    sim_analyse(s->cfg, &s->qix, &g->prompt, &a);
    {
        long extra = template_tokens(s, &g->prompt, g->chat, g->no_think);
        a.T += extra;
        a.sent_tokens += extra;
    }
    l->T = a.T;
    l->sent_tokens = a.sent_tokens;
    l->question_id = a.q ? a.q->id : NULL;
    l->gold = a.gold;
    if (a.gold)
        l->x = a.x;
    l->overlap = a.features.overlap;
    if (a.q && a.q->gold_nr >= 2 && a.features.gold_present >= 2) {
        l->reversed = a.features.reversed;
        l->spacing = a.features.spacing;
    }

    if (cfg->ctx > 0 && a.T + (g->max_tokens > 0 ? g->max_tokens : 0) > cfg->ctx) {
        if (g->max_tokens > 0)
            error_reply(r, 400, "invalid_request_error", "messages", "context_length_exceeded",
                        "This model's maximum context length is %ld tokens. However, you "
                        "requested %ld tokens (%ld in the messages, %ld in the completion). "
                        "Please reduce the length of the messages or completion.",
                        cfg->ctx, a.T + g->max_tokens, a.T, g->max_tokens);
        else
            error_reply(r, 400, "invalid_request_error", "messages", "context_length_exceeded",
                        "This model's maximum context length is %ld tokens. However, your "
                        "messages resulted in %ld tokens. Please reduce the length of the "
                        "messages.",
                        cfg->ctx, a.T);
        l->outcome = "overflow";
        goto cleanup;
    }
    g->T = a.T;
    if (sim_cache_keeps(s->cache))
        cache_ids(s, g); /* tokenized on arrival, as a server does before queueing the request */
    /* with the shared engine the cache is looked up when the request's prefill starts */
    if (cfg->prefill_throughput > 0 && engine_enter(s, g, l)) {
        r->drop = 1; /* shutting down while waiting for the engine */
        goto cleanup;
    }
    if (cache_lookup(s, g)) {
        r->drop = 1; /* shutting down while waiting for a slot */
        goto cleanup;
    }
    l->cached = g->cached;
    l->slot = sim_cache_slots(s->cache) ? g->slot : -1;

    if (a.q) {
        double p = a.gold ? sim_axes_p(g->model, a.x, a.T, &a.features) : 0;
        double u = sim_model_draw(g->model, a.q->id, a.gold ? a.x : 0, a.T, a.salt);
        l->p = p;
        l->u = u;
        if (u < p) {
            if (!sim_needle_answer(a.q, &g->prompt, &answer))
                strbuf_addstr(&answer, a.q->answers.v[0]);
            l->outcome = "correct";
        } else if (a.negative) {
            strbuf_addstr(&answer, a.negative->value);
            l->outcome = "negative";
        } else {
            strbuf_addstr(&answer, IDK);
            l->outcome = "idk";
        }
    } else {
        strbuf_addstr(&answer, IDK);
        l->outcome = "unrecognised";
    }

    if (g->think > 0) {
        think_then_answer(s, g, &a, &answer, &reasoning, &ctok, &rtok, &inline_form, &finish, l);
    } else if (cfg->reasoning > 0 &&
               sim_to_unit(sim_mix64(sim_mix64(g->model->seed ^ 0x7ea5011ULL) ^ a.salt ^
                                     (a.q ? fnv64_str(FNV64_INIT, a.q->id) : 0))) <
                   cfg->reasoning) {
        reasoning_only = 1;
        strbuf_addstr(&reasoning, "The user wants the answer to a question about the documents. "
                                  "Let me go through the documents one by one and check "
                                  "which of them mentions it. The first document says");
        ctok = g->max_tokens > 0 ? g->max_tokens : REASONING_TOKENS;
        finish = "length";
        l->outcome = "empty";
    } else {
        cut_answer(s, &answer, g->max_tokens, &ctok, &finish);
    }

    id = new_id(s, g->chat ? "chatcmpl" : "cmpl");
    root = json_new_object();
    json_add_str(root, "id", id);
    free(id);
    json_add_str(root, "object", g->chat ? "chat.completion" : "text_completion");
    json_add_num(root, "created", (double)time(NULL));
    json_add_str(root, "model", g->model->name);
    choices = json_add_array(root, "choices");
    choice = json_new_object();
    json_add(choices, NULL, choice);
    json_add_num(choice, "index", 0);
    if (g->chat) {
        struct json *msg = json_add_object(choice, "message");
        json_add_str(msg, "role", "assistant");
        json_add_str(msg, "content", reasoning_only ? "" : answer.buf);
        if (reasoning_only || (rtok >= 0 && !inline_form))
            json_add_str(msg, "reasoning_content", reasoning.buf);
    } else {
        json_add_str(choice, "text", reasoning_only ? "" : answer.buf);
        if (reasoning_only || (rtok >= 0 && !inline_form))
            json_add_str(choice, "reasoning_content", reasoning.buf);
    }
    json_add_null(choice, "logprobs");
    json_add_str(choice, "finish_reason", finish);
    usage = json_add_object(root, "usage");
    json_add_num(usage, "prompt_tokens", (double)a.T);
    json_add_num(usage, "completion_tokens", (double)ctok);
    json_add_num(usage, "total_tokens", (double)(a.T + ctok));
    if (reasoning_only || rtok >= 0) {
        struct json *d = json_add_object(usage, "completion_tokens_details");
        json_add_num(d, "reasoning_tokens", (double)(rtok >= 0 ? rtok : ctok));
    }
    g->ctok = ctok;
    if (cfg->prefix_cache > 0) {
        /* as vLLM with --enable-prompt-tokens-details, SGLang and OpenAI report it */
        struct json *d = json_add_object(usage, "prompt_tokens_details");
        json_add_num(d, "cached_tokens", (double)g->cached);
    }
    if (cfg->timings) {
        /* llama.cpp's timings: cache_n + prompt_n = the prompt's tokens */
        struct json *t = json_add_object(root, "timings");
        json_add_num(t, "cache_n", (double)g->cached);
        json_add_num(t, "prompt_n", (double)(a.T - g->cached));
        json_add_num(t, "prompt_ms", engine_ms(cfg, g) + prefill_ms(cfg, g));
        json_add_num(t, "predicted_n", (double)ctok);
        json_add_num(t, "predicted_ms", decode_ms(cfg, g));
    }
    json_add_str(root, "system_fingerprint", "dipmap-sim");
    json_reply(r, 200, root);
    l->finish = finish;
cleanup:
    strbuf_release(&answer);
    strbuf_release(&reasoning);
}

static void apply_fault(struct sim_server *s, enum sim_fault f, struct reply *r)
{
    /* a completion cut mid-body by a flaky proxy: not JSON, and asking again helps (an HTML
       page would stop the run: client_body_is_html) */
    static const char garbage[] = "{\"id\":\"chatcmpl-sim\",\"object\":\"chat.completion\","
                                  "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assi";
    struct json *root, *e;
    switch (f) {
    case SIM_FAULT_NONE:
    case SIM_FAULT_SLOW:
        break;
    case SIM_FAULT_429:
        error_reply(r, 429, "requests", NULL, "rate_limit_exceeded",
                    "Rate limit reached for requests (simulated by dipmap serve-sim). "
                    "Please try again later.");
        r->retry_after_ms = s->cfg->retry_after_ms > 0 ? s->cfg->retry_after_ms : 1;
        break;
    case SIM_FAULT_500:
        /* vLLM's shape: the exception's class as the type, the status as an integer code */
        root = json_new_object();
        e = json_add_object(root, "error");
        json_add_str(e, "message", "Internal server error (simulated by dipmap serve-sim)");
        json_add_str(e, "type", "InternalServerError");
        json_add_null(e, "param");
        json_add_num(e, "code", 500);
        json_reply(r, 500, root);
        break;
    case SIM_FAULT_503:
        /* llama.cpp's shape: {"error":{"code":503,"message":"Loading model","type":...}} */
        root = json_new_object();
        e = json_add_object(root, "error");
        json_add_num(e, "code", 503);
        json_add_str(e, "message", "Loading model");
        json_add_str(e, "type", "unavailable_error");
        json_reply(r, 503, root);
        break;
    case SIM_FAULT_DROP:
        r->drop = 1;
        break;
    case SIM_FAULT_TRUNCATE:
        r->truncate = 1;
        break;
    case SIM_FAULT_GARBAGE:
        free(r->body);
        r->body = xstrdup(garbage);
        r->len = strlen(garbage);
        r->status = 200;
        r->content_type = "application/json";
        break;
    case SIM_FAULT_ERROR200:
        error_reply(r, 500, "server_error", NULL, NULL,
                    "The server had an error while processing your request (simulated).");
        r->status = 200;
        break;
    case SIM_FAULT__COUNT:
        break;
    }
}

/*
 * How much the model thinks: --think tokens, scaled by "reasoning_effort"
 * (low 1/4, medium 1/2, high all), none when the request turns thinking off
 * the Qwen3 way (chat_template_kwargs.enable_thinking false) or the Anthropic
 * way (thinking.type "disabled"). The request fields serve-sim does not use
 * are logged as "extra", so tests can see what a client merged in.
 */
static void reasoning_request(struct sim_server *s, const struct json *req, struct gen_request *g,
                              struct logrec *l)
{
    static const char *const known[] = {
        "model", "messages", "prompt",           "temperature",
        "top_p", "seed",     "max_tokens",       "max_completion_tokens",
        "n",     "stream",   "reasoning_effort", NULL};
    const struct json *eff = json_get(req, "reasoning_effort");
    const struct json *kw = json_get(req, "chat_template_kwargs");
    const struct json *th = json_get(req, "thinking");
    const struct json *it;
    struct json *extra = json_new_object();

    g->think = s->cfg->think_tokens;
    if (json_kind(eff) == JSON_STRING) {
        if (!strcmp(json_str(eff), "low")) {
            l->reasoning_effort = "low";
            g->think /= 4;
        } else if (!strcmp(json_str(eff), "medium")) {
            l->reasoning_effort = "medium";
            g->think /= 2;
        } else {
            l->reasoning_effort = !strcmp(json_str(eff), "high") ? "high" : "other";
        }
    }
    if (json_is_false(json_get(kw, "enable_thinking"))) {
        g->think = 0;
        g->no_think = 1;
    }
    if (json_kind(th) == JSON_OBJECT && json_get_str(th, "type") &&
        !strcmp(json_get_str(th, "type"), "disabled"))
        g->think = 0;
    for (it = json_first(req); it; it = json_next(it)) {
        size_t i;
        for (i = 0; known[i] && strcmp(known[i], json_key(it)); i++)
            ;
        if (!known[i])
            json_add(extra, json_key(it), json_copy(it));
    }
    if (json_size(extra))
        l->extra = extra;
    else
        json_free(extra);
}

/*
 * The cache fields of a request: llama.cpp's "id_slot" (an integer; 0..slots-1 pins the
 * slot, anything else takes any) and "cache_prompt", vLLM's "cache_salt" (a non-empty
 * string). 0 or -1 (400).
 */
static int cache_request(struct sim_server *s, const struct json *req, struct gen_request *g,
                         struct reply *r)
{
    const struct json *v = json_get(req, "id_slot");
    int slots = sim_cache_slots(s->cache);
    if (v && json_kind(v) != JSON_NULL) {
        if (json_kind(v) != JSON_NUMBER || json_num(v, 0) != (double)(long)json_num(v, 0)) {
            error_reply(r, 400, "invalid_request_error", "id_slot", NULL,
                        "'id_slot' must be an integer");
            return -1;
        }
        /* llama.cpp serves a slot number it does not have on any slot: so does serve-sim */
        if (slots && json_num(v, 0) >= 0 && json_num(v, 0) < slots)
            g->id_slot = (int)json_num(v, 0);
    }
    v = json_get(req, "cache_prompt");
    if (json_is_false(v))
        g->cache_prompt = 0;
    v = json_get(req, "cache_salt");
    if (v && json_kind(v) != JSON_NULL) {
        if (json_kind(v) != JSON_STRING || !*json_str(v)) {
            bad_request(r, "cache_salt", "'cache_salt' must be a non-empty string");
            return -1;
        }
        g->cache_salt = json_str(v);
    }
    return 0;
}

/*
 * The budget rules of OpenAI's reasoning models and some Azure deployments
 * (sim.h: reject_max_tokens, min_max_tokens). 1 with the 400 in r, else 0.
 */
static int budget_refused(struct sim_server *s, int chat, const struct json *req, long max_tokens,
                          struct reply *r)
{
    const char *field =
        chat && json_get(req, "max_completion_tokens") ? "max_completion_tokens" : "max_tokens";
    if (chat && s->cfg->reject_max_tokens && json_get(req, "max_tokens")) {
        error_reply(r, 400, "invalid_request_error", "max_tokens", "unsupported_parameter",
                    "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
                    "'max_completion_tokens' instead.");
        return 1;
    }
    if (s->cfg->min_max_tokens > 0 && max_tokens >= 0 && max_tokens < s->cfg->min_max_tokens) {
        error_reply(r, 400, "invalid_request_error", field, "integer_below_min_value",
                    "Invalid '%s': integer below minimum value. Expected a value >= %ld, but got "
                    "%ld instead.",
                    field, s->cfg->min_max_tokens, max_tokens);
        return 1;
    }
    return 0;
}

static void handle_generation(struct sim_server *s, int chat, const char *body, size_t len,
                              struct reply *r, struct logrec *l)
{
    struct gen_request g;
    struct json *req = json_parse(body, len, NULL);
    const struct json *model, *stream, *n;
    enum sim_fault fault;
    int bad = 0;

    memset(&g, 0, sizeof(g));
    g.chat = chat;
    g.id_slot = -1;
    g.cache_prompt = 1;
    g.slot = -1;
    if (json_kind(req) != JSON_OBJECT) {
        bad_request(r, NULL, "the request body is not a JSON object");
        l->outcome = "bad_request";
        goto cleanup;
    }
    model = json_get(req, "model");
    if (model && json_kind(model) != JSON_STRING && json_kind(model) != JSON_NULL) {
        bad_request(r, "model", "'model' must be a string");
        l->outcome = "bad_request";
        goto cleanup;
    }
    g.model = find_model(s, json_str(model));
    if (!g.model) {
        model_not_found(r, json_str(model));
        l->model = NULL;
        l->outcome = "unknown_model";
        goto cleanup;
    }
    l->model = g.model->name;
    stream = json_get(req, "stream");
    if (json_is_true(stream)) {
        bad_request(r, "stream", "streaming is not supported by dipmap serve-sim");
        l->outcome = "bad_request";
        goto cleanup;
    }
    n = json_get(req, "n");
    if (n && json_kind(n) != JSON_NULL && (json_kind(n) != JSON_NUMBER || json_num(n, 0) != 1)) {
        bad_request(r, "n", "only n=1 is supported");
        l->outcome = "bad_request";
        goto cleanup;
    }
    if (chat) {
        g.max_tokens = get_max_tokens(req, "max_completion_tokens", r, &bad);
        if (g.max_tokens < 0 && !bad)
            g.max_tokens = get_max_tokens(req, "max_tokens", r, &bad);
        if (!bad && add_messages(&g.prompt, json_get(req, "messages"), r))
            bad = 1;
    } else {
        g.max_tokens = get_max_tokens(req, "max_tokens", r, &bad);
        if (g.max_tokens < 0)
            g.max_tokens = COMPLETIONS_DEFAULT_MAX_TOKENS;
        if (!bad && add_completion_prompt(s, &g.prompt, json_get(req, "prompt"), r))
            bad = 1;
    }
    if (!bad && budget_refused(s, chat, req, g.max_tokens, r))
        bad = 1;
    if (bad) {
        l->outcome = "bad_request";
        goto cleanup;
    }

    reasoning_request(s, req, &g, l);
    if (cache_request(s, req, &g, r)) {
        l->outcome = "bad_request";
        goto cleanup;
    }

    fault =
        sim_fault_draw(&s->cfg->faults, s->cfg->fault_seed, atomic_fetch_add(&s->gen_counter, 1));
    l->fault = fault;
    answer_completion(s, &g, r, l);
    apply_fault(s, fault, r);
    /*
     * the prefill: its turn on the shared engine (--prefill-throughput; the engine is held
     * for that alone), then the per-request part (--latency-ms, --prefill-ms-per-1k); then
     * the prompt is in the cache (a streamed first token would go now)
     */
    if (!r->drop && delay_ms(s, engine_ms(s->cfg, &g)))
        r->drop = 1; /* shutting down */
    if (g.engine) {
        if (g.slot >= 0 && g.cache_prompt && r->status == 200 && !r->drop)
            sim_cache_store(s->cache, g.slot, g.ids, g.nids);
        engine_leave(s, &g, l);
    }
    if (!r->drop && delay_ms(s, (double)s->cfg->latency_ms + prefill_ms(s->cfg, &g)))
        r->drop = 1;
    if (!(s->cfg->prefill_throughput > 0) && g.slot >= 0 && g.cache_prompt && r->status == 200 &&
        !r->drop)
        sim_cache_store(s->cache, g.slot, g.ids, g.nids);
    if (!r->drop && delay_ms(s, decode_ms(s->cfg, &g) +
                                    (fault == SIM_FAULT_SLOW ? (double)s->cfg->slow_ms : 0)))
        r->drop = 1;
cleanup:
    engine_leave(s, &g, l);
    if (g.slot >= 0)
        sim_cache_release(s->cache, g.slot);
    free(g.ids);
    sim_prompt_release(&g.prompt);
    json_free(req);
}

int sim_generate(struct sim_server *s, int chat, const char *body, size_t len, char **out,
                 size_t *out_len)
{
    struct reply r;
    struct logrec l;
    memset(&r, 0, sizeof(r));
    logrec_init(&l, "batch");
    handle_generation(s, chat, body, len, &r, &l);
    write_log(s, &l, r.status);
    json_free(l.extra);
    *out = r.body;
    *out_len = r.len;
    return r.status;
}

/* ---- other routes --------------------------------------------------------- */

/* A model object as GET /v1/models lists it and GET /v1/models/{id} returns it. */
static struct json *model_json(const struct sim_server *s, const struct sim_model *sm)
{
    struct json *m = json_new_object();
    json_add_str(m, "id", sm->name);
    json_add_str(m, "object", "model");
    json_add_num(m, "created", (double)s->created);
    json_add_str(m, "owned_by", s->cfg->owned_by ? s->cfg->owned_by : "dipmap-sim");
    json_add_str(m, "root", sm->name);
    json_add_null(m, "parent");
    if (s->cfg->ctx > 0)
        json_add_num(m, "max_model_len", (double)s->cfg->ctx);
    return m;
}

static void handle_models(struct sim_server *s, struct reply *r)
{
    struct json *root = json_new_object(), *data;
    json_add_str(root, "object", "list");
    data = json_add_array(root, "data");
    for (size_t i = 0; i < s->cfg->nr_models; i++)
        json_add(data, NULL, model_json(s, &s->cfg->models[i]));
    json_reply(r, 200, root);
}

/* GET /v1/models/{id}: the model, or OpenAI's 404 model_not_found. */
static void handle_model(struct sim_server *s, const char *id, struct reply *r)
{
    const struct sim_model *m = *id ? find_model(s, id) : NULL;
    if (m)
        json_reply(r, 200, model_json(s, m));
    else
        model_not_found(r, id);
}

/* llama.cpp's /props: served unless --owned-by names another server */
static int sim_has_props(const struct sim_config *cfg)
{
    return !cfg->owned_by || !strcmp(cfg->owned_by, "dipmap-sim") ||
           !strcmp(cfg->owned_by, "llamacpp");
}

static void handle_props(struct sim_server *s, struct reply *r)
{
    struct json *root = json_new_object(),
                *dgs = json_add_object(root, "default_generation_settings");
    long n_ctx = s->cfg->ctx > 0 ? s->cfg->ctx : s->cfg->shift_ctx;
    struct strbuf b = STRBUF_INIT;
    if (n_ctx > 0)
        json_add_num(dgs, "n_ctx", (double)n_ctx);
    json_add_str(dgs, "model", s->cfg->models[0].name);
    /* llama.cpp's request default, listed in params by some builds (absent: true) */
    json_add_bool(json_add_object(dgs, "params"), "cache_prompt", s->cfg->prefix_cache > 0);
    /* without --slots there is no slot limit (a thread per connection): no total_slots */
    if (s->cfg->slots > 0)
        json_add_num(root, "total_slots", s->cfg->slots);
    json_add_str(root, "model_path", s->cfg->models[0].name);
    json_add_str(root, "chat_template", "");
    strbuf_addf(&b, "dipmap-sim %s", dipmap_version);
    json_add_str(root, "build_info", b.buf);
    strbuf_release(&b);
    json_reply(r, 200, root);
}

static void handle_tokenize(struct sim_server *s, const char *body, size_t len, struct reply *r)
{
    struct json *req = json_parse(body, len, NULL), *root = NULL, *arr;
    const struct json *prompt, *messages, *content, *model;
    uint32_t *ids = NULL;
    size_t n = 0;

    if (json_kind(req) != JSON_OBJECT) {
        bad_request(r, NULL, "the request body is not a JSON object");
        goto cleanup;
    }
    model = json_get(req, "model");
    if (json_kind(model) == JSON_STRING && !find_model(s, json_str(model))) {
        model_not_found(r, json_str(model));
        goto cleanup;
    }
    prompt = json_get(req, "prompt");
    messages = json_get(req, "messages");
    content = json_get(req, "content");
    if (json_kind(content) == JSON_STRING && !prompt && !messages &&
        s->cfg->tokenize_api != SIM_API_VLLM) {
        /* llama.cpp: {"content", "add_special"=false, "parse_special"=true, "with_pieces"=false} */
        const struct json *ps = json_get(req, "parse_special");
        const struct json *wp = json_get(req, "with_pieces");
        const struct json *as = json_get(req, "add_special");
        int special = ps ? json_is_true(ps) : 1;
        tokenizer_encode(s->cfg->tokenizer, json_str(content), strlen(json_str(content)), special,
                         &ids, &n);
        root = json_new_object();
        arr = json_add_array(root, "tokens");
        /* add_special: the BOS-like --template-overhead tokens (id 0) in front */
        for (long k = 0; json_is_true(as) && k < s->cfg->template_overhead; k++)
            json_add_num(arr, NULL, 0);
        for (size_t i = 0; i < n; i++) {
            if (json_is_true(wp)) {
                struct json *o = json_new_object();
                const char *bytes;
                size_t blen;
                json_add_num(o, "id", ids[i]);
                if (tokenizer_token_bytes(s->cfg->tokenizer, ids[i], &bytes, &blen) == 0) {
                    if (utf8_valid(bytes, blen)) {
                        char *piece = xstrndup(bytes, blen);
                        json_add_str(o, "piece", piece);
                        free(piece);
                    } else {
                        struct json *pa = json_add_array(o, "piece");
                        for (size_t k = 0; k < blen; k++)
                            json_add_num(pa, NULL, (unsigned char)bytes[k]);
                    }
                }
                json_add(arr, NULL, o);
            } else {
                json_add_num(arr, NULL, ids[i]);
            }
        }
        json_reply(r, 200, root);
        goto cleanup;
    }
    if ((json_kind(prompt) == JSON_STRING || json_kind(messages) == JSON_ARRAY) &&
        s->cfg->tokenize_api != SIM_API_LLAMACPP) {
        /*
         * vLLM: {"prompt", "add_special_tokens"=true} or {"messages",
         * "add_generation_prompt"=true} -> {"count","max_model_len","tokens","token_strs"};
         * the template's tokens (and the BOS-like overhead) come first, as id 0.
         */
        struct sim_prompt p;
        struct reply tmp = {0};
        const struct json *strs = json_get(req, "return_token_strs");
        const struct json *ast = json_get(req, "add_special_tokens");
        long extra;
        memset(&p, 0, sizeof(p));
        if (json_kind(prompt) == JSON_STRING)
            strbuf_addstr(sim_prompt_add(&p), json_str(prompt));
        else if (add_messages(&p, messages, &tmp)) {
            *r = tmp;
            sim_prompt_release(&p);
            goto cleanup;
        }
        if (json_kind(prompt) == JSON_STRING)
            extra = !ast || json_is_true(ast) ? template_tokens(s, &p, 0, 0) : 0;
        else
            extra = template_tokens(s, &p, 1, kwargs_no_think(req));
        root = json_new_object();
        arr = json_new_array();
        if (extra > 0) {
            ids = xcalloc((size_t)extra, sizeof(*ids));
            n = (size_t)extra;
        }
        for (size_t i = 0; i < p.nr; i++) {
            uint32_t *seg_ids = NULL;
            size_t seg_n = 0;
            tokenizer_encode(s->cfg->tokenizer, p.seg[i].buf, p.seg[i].len,
                             TOKENIZER_SPECIAL_DEFAULT, &seg_ids, &seg_n);
            ids = xreallocarray(ids, n + seg_n + 1, sizeof(*ids));
            if (seg_n)
                memcpy(ids + n, seg_ids, seg_n * sizeof(*ids));
            n += seg_n;
            free(seg_ids);
        }
        sim_prompt_release(&p);
        json_add_num(root, "count", (double)n);
        json_add_num(root, "max_model_len", (double)(s->cfg->ctx > 0 ? s->cfg->ctx : 1048576));
        for (size_t i = 0; i < n; i++)
            json_add_num(arr, NULL, ids[i]);
        json_add(root, "tokens", arr);
        if (json_is_true(strs)) {
            struct json *ts = json_add_array(root, "token_strs");
            for (size_t i = 0; i < n; i++) {
                const char *bytes;
                size_t blen;
                char *piece;
                if (tokenizer_token_bytes(s->cfg->tokenizer, ids[i], &bytes, &blen))
                    blen = 0;
                piece = xstrndup(blen ? bytes : "", blen);
                json_add_str(ts, NULL, piece);
                free(piece);
            }
        } else {
            json_add_null(root, "token_strs");
        }
        json_reply(r, 200, root);
        goto cleanup;
    }
    bad_request(r, NULL,
                "expected {\"prompt\": string}, {\"messages\": [...]} (vLLM) or "
                "{\"content\": string} (llama.cpp)");
cleanup:
    free(ids);
    json_free(req);
}

/*
 * llama.cpp POST /apply-template {"messages", "chat_template_kwargs"} -> {"prompt"}: the
 * chatml rendering.
 */
static void handle_apply_template(const char *body, size_t len, struct reply *r)
{
    struct json *req = json_parse(body, len, NULL), *root;
    struct sim_prompt p;
    struct reply tmp = {0};
    struct strbuf out = STRBUF_INIT;
    memset(&p, 0, sizeof(p));
    if (json_kind(req) != JSON_OBJECT) {
        bad_request(r, NULL, "the request body is not a JSON object");
    } else if (add_messages(&p, json_get(req, "messages"), &tmp)) {
        *r = tmp;
    } else {
        render_chatml(&p, kwargs_no_think(req), &out);
        root = json_new_object();
        json_add_str(root, "prompt", out.buf);
        json_reply(r, 200, root);
    }
    strbuf_release(&out);
    sim_prompt_release(&p);
    json_free(req);
}

static void handle_detokenize(struct sim_server *s, const char *body, size_t len, struct reply *r)
{
    struct json *req = json_parse(body, len, NULL), *root;
    const struct json *tokens = json_get(req, "tokens");
    struct strbuf out = STRBUF_INIT;
    if (json_kind(tokens) != JSON_ARRAY) {
        bad_request(r, NULL, "expected {\"tokens\": [ids]}");
        goto cleanup;
    }
    if (decode_ids(s, tokens, &out, r))
        goto cleanup;
    root = json_new_object();
    json_add_str(root, "prompt", out.buf);  /* vLLM */
    json_add_str(root, "content", out.buf); /* llama.cpp */
    json_reply(r, 200, root);
cleanup:
    strbuf_release(&out);
    json_free(req);
}

/* ---- the HTTP side (httpd.c) ------------------------------------------------ */

static int authorised(struct sim_server *s, const struct httpd_request *rq)
{
    const char *key = s->cfg->api_key, *h;
    if (!key || !*key)
        return 1;
    h = httpd_header(rq, "Authorization");
    if (h && !strncasecmp(h, "Bearer ", 7)) {
        h += 7;
        while (*h == ' ')
            h++;
        if (!strcmp(h, key))
            return 1;
    }
    h = httpd_header(rq, "api-key"); /* Azure style */
    return h && !strcmp(h, key);
}

/* The list parameters of GET /v1/files and /v1/batches (?after=, ?limit=, ?order=, ?purpose=). */
static void list_query(const struct httpd_request *rq, struct sim_list_query *q)
{
    q->after = httpd_query(rq, "after");
    q->limit = httpd_query(rq, "limit");
    q->order = httpd_query(rq, "order");
    q->purpose = httpd_query(rq, "purpose");
}

/* The reply as httpd sends it: Retry-After headers, a dropped or truncated transfer. */
static void to_response(const struct reply *r, struct httpd_response *resp)
{
    resp->status = r->status;
    resp->content_type = r->content_type;
    strbuf_add(&resp->body, r->body, r->len);
    httpd_add_header(resp, "x-request-id", r->request_id);
    if (r->retry_after_ms > 0) {
        char v[32];
        snprintf(v, sizeof(v), "%ld", (r->retry_after_ms + 999) / 1000);
        httpd_add_header(resp, "Retry-After", v);
        snprintf(v, sizeof(v), "%ld", r->retry_after_ms);
        httpd_add_header(resp, "retry-after-ms", v);
    }
    resp->drop = r->drop;
    resp->truncate = r->truncate;
}

static void on_request(const struct httpd_request *rq, struct httpd_response *resp, void *data)
{
    struct sim_server *s = data;
    const char *url = rq->path, *method = rq->method;
    struct reply r;
    struct logrec l;
    struct sim_answer ans;
    struct sim_list_query lq;
    int get = !strcmp(method, "GET") || !strcmp(method, "HEAD");
    int post = !strcmp(method, "POST");

    memset(&r, 0, sizeof(r));
    logrec_init(&l, url);
    request_id(s, r.request_id, sizeof(r.request_id));
    l.request_id = r.request_id;
    if (!strcmp(url, "/health") && get) {
        struct json *o = json_new_object();
        json_add_str(o, "status", "ok");
        json_reply(&r, 200, o);
    } else if (!authorised(s, rq)) {
        error_reply(&r, 401, "invalid_request_error", NULL, "invalid_api_key",
                    "Incorrect API key provided. You can pass it as 'Authorization: Bearer KEY'.");
        l.outcome = "unauthorised";
    } else if (rq->body_too_big) {
        error_reply(&r, 413, "invalid_request_error", NULL, NULL,
                    "request body larger than %zu bytes", (size_t)BODY_CAP);
        l.outcome = "too_big";
    } else if (post && !utf8_valid(rq->body, rq->body_len)) {
        /* JSON text is UTF-8: llama.cpp's and Python's parsers refuse other bytes, so does this */
        error_reply(&r, 400, "invalid_request_error", NULL, NULL,
                    "the request body is not valid UTF-8 (byte %zu)",
                    utf8_valid_prefix((const unsigned char *)rq->body, rq->body_len) + 1);
        l.outcome = "bad_request";
    } else if ((!strcmp(url, "/v1/chat/completions") || !strcmp(url, "/v1/completions")) && post) {
        l.inflight = atomic_fetch_add(&s->gen_inflight, 1) + 1;
        handle_generation(s, !strcmp(url, "/v1/chat/completions"), rq->body, rq->body_len, &r, &l);
        atomic_fetch_sub(&s->gen_inflight, 1);
    } else if (list_query(rq, &lq),
               sim_batch_request(s, s->batches, method, url, httpd_header(rq, "Content-Type"), &lq,
                                 rq->body, rq->body_len, &ans)) {
        r.status = ans.status;
        r.body = ans.body;
        r.len = ans.len;
        r.content_type = ans.content_type;
        l.outcome = ans.status == 200 ? "ok" : "batch_error";
    } else if (!strcmp(url, "/v1/models") && get) {
        handle_models(s, &r);
    } else if (!strncmp(url, "/v1/models/", 11) && get) {
        handle_model(s, url + 11, &r);
    } else if (!strcmp(url, "/props") && get && sim_has_props(s->cfg)) {
        handle_props(s, &r);
    } else if (!strcmp(url, "/tokenize") && post && s->cfg->tokenize_api != SIM_API_NONE) {
        l.inflight = atomic_fetch_add(&s->tok_inflight, 1) + 1;
        if (delay_ms(s, s->cfg->tokenize_latency_ms))
            r.drop = 1; /* shutting down */
        handle_tokenize(s, rq->body, rq->body_len, &r);
        atomic_fetch_sub(&s->tok_inflight, 1);
    } else if (!strcmp(url, "/apply-template") && post &&
               s->cfg->chat_template == SIM_TEMPLATE_CHATML &&
               (s->cfg->tokenize_api == SIM_API_LLAMACPP || s->cfg->tokenize_api == SIM_API_BOTH)) {
        l.inflight = atomic_fetch_add(&s->tok_inflight, 1) + 1;
        if (delay_ms(s, s->cfg->tokenize_latency_ms))
            r.drop = 1;
        handle_apply_template(rq->body, rq->body_len, &r);
        atomic_fetch_sub(&s->tok_inflight, 1);
    } else if (!strcmp(url, "/detokenize") && post) {
        handle_detokenize(s, rq->body, rq->body_len, &r);
    } else {
        int known = !strcmp(url, "/health") || !strcmp(url, "/v1/chat/completions") ||
                    !strcmp(url, "/v1/completions") || !strcmp(url, "/v1/models") ||
                    !strncmp(url, "/v1/models/", 11) ||
                    (!strcmp(url, "/props") && sim_has_props(s->cfg)) ||
                    (!strcmp(url, "/tokenize") && s->cfg->tokenize_api != SIM_API_NONE) ||
                    !strcmp(url, "/detokenize");
        if (known)
            error_reply(&r, 405, "invalid_request_error", NULL, NULL,
                        "Invalid method for URL (%s %s)", method, url);
        else
            error_reply(&r, 404, "invalid_request_error", NULL, NULL, "Invalid URL (%s %s)", method,
                        url);
        l.outcome = "bad_route";
    }
    if (!r.content_type) /* a handler always replies; this guards a missed path */
        bad_request(&r, NULL, "request not handled");

    write_log(s, &l, r.drop ? 0 : r.status);
    json_free(l.extra);
    to_response(&r, resp);
    free(r.body);
}

/* What sim_start() set up, released (the HTTP server already stopped or never started). */
static void server_free(struct sim_server *s)
{
    if (s->log)
        fclose(s->log);
    sim_cache_free(s->cache);
    sim_batches_free(s->batches);
    sim_qindex_release(&s->qix);
    pthread_mutex_destroy(&s->log_lock);
    pthread_mutex_destroy(&s->stop_lock);
    pthread_cond_destroy(&s->stop_cond);
    pthread_cond_destroy(&s->engine_cond);
    free(s);
}

struct sim_server *sim_start(const struct sim_config *cfg, struct strbuf *err)
{
    struct sim_server *s;
    /* a thread per connection: requests are answered concurrently, as a real server does */
    struct httpd_options o = {
        .host = cfg->host ? cfg->host : "127.0.0.1",
        .port = cfg->port,
        .bodies = 1,
        .body_max = BODY_CAP,
        .max_connections = 1024,
        .timeout_s = 600,
        .conn_memory = (size_t)256 * 1024,
        .backlog = 256,
    };

    if (!cfg->nr_models || !cfg->tokenizer) {
        strbuf_addstr(err, "serve-sim needs at least one model and a tokenizer");
        return NULL;
    }
    s = xcalloc(1, sizeof(*s));
    s->cfg = cfg;
    pthread_mutex_init(&s->log_lock, NULL);
    pthread_mutex_init(&s->stop_lock, NULL);
    pthread_cond_init(&s->stop_cond, NULL);
    pthread_cond_init(&s->engine_cond, NULL);
    s->t0_ms = utc_monotonic_ms();
    s->created = time(NULL);
    atomic_init(&s->gen_counter, 0);
    atomic_init(&s->id_counter, 0);
    sim_qindex_build(&s->qix, cfg->gs);
    sim_hindex_build(&s->qix, cfg->hay);
    s->cache = sim_cache_new(cfg->prefix_cache, cfg->slots);
    s->batches = sim_batches_new(cfg);
    if (cfg->log_path) {
        s->log = fopen(cfg->log_path, "a");
        if (!s->log) {
            strbuf_addf(err, "cannot open log '%s': %s", cfg->log_path, strerror(errno));
            goto fail;
        }
    }
    s->http = httpd_start(&o, on_request, s, err);
    if (!s->http)
        goto fail;
    s->port = httpd_port(s->http);
    return s;
fail:
    server_free(s);
    return NULL;
}

int sim_port(const struct sim_server *s)
{
    return s->port;
}

void sim_stop(struct sim_server *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->stop_lock);
    s->stopping = 1;
    pthread_cond_broadcast(&s->stop_cond);
    pthread_cond_broadcast(&s->engine_cond);
    pthread_mutex_unlock(&s->stop_lock);
    sim_cache_shutdown(s->cache);
    httpd_stop(s->http);
    server_free(s);
}

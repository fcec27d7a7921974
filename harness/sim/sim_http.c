/*
 * The HTTP face of `dipmap serve-sim`: an OpenAI-compatible server on httpd.c (a thread per
 * connection). Owns the server (start, stop, the route table, the API key, x-request-id), the
 * replies and the request log, and the routes that are not generation: models, props and the
 * counting routes (/tokenize, /detokenize, /apply-template). Generation is sim_generate.c, its
 * request checks sim_request.c, the faults sim_fault.c, the Batch API sim_batch.c.
 */
#define _GNU_SOURCE
#include "sim/sim.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "prompt/dataset.h"
#include "base/httpd.h"
#include "base/json.h"
#include "sim/sim-int.h"
#include "base/strbuf.h"
#include "tokenizer/tokenizer.h"
#include "base/unicode.h"
#include "base/version.h"
#include "base/xalloc.h"
#include "base/utc.h"

#include "base/banned.h"

#define BODY_CAP ((size_t)256 << 20) /* above the 200 MB of a Batch API input file */

/* ---- replies and the request log ------------------------------------------- */

void sim_logrec_init(struct sim_logrec *l, const char *route)
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
    l->haystack = -1;
    l->outcome = "ok";
    l->think = -1;
    l->inflight = -1;
    l->cached = -1;
    l->slot = -1;
    l->queue_ms = l->engine_start_ms = l->engine_end_ms = -1;
}

void sim_json_reply(struct sim_reply *r, int status, struct json *obj)
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

struct json *sim_error_object(const char *type, const char *param, const char *str_code,
                              const char *fmt, va_list ap)
{
    struct strbuf msg = STRBUF_INIT;
    struct json *root = json_new_object(), *e = json_add_object(root, "error");
    strbuf_vaddf(&msg, fmt, ap);
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
    return root;
}

void sim_error_reply(struct sim_reply *r, int status, const char *type, const char *param,
                     const char *str_code, const char *fmt, ...)
{
    struct json *root;
    va_list ap;
    va_start(ap, fmt);
    root = sim_error_object(type, param, str_code, fmt, ap);
    va_end(ap);
    sim_json_reply(r, status, root);
}

void sim_bad_request(struct sim_reply *r, const char *param, const char *msg)
{
    sim_error_reply(r, 400, "invalid_request_error", param, NULL, "%s", msg);
}

int sim_delay_ms(struct sim_server *s, double ms)
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

void sim_write_log(struct sim_server *s, const struct sim_logrec *l, int status)
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
        if (l->gold_tokens > 0)
            json_add_num(o, "gold_tokens", (double)l->gold_tokens);
        if (l->reversed >= 0) { /* a two-hop chain's order (run --hops 2) and the gap */
            json_add_bool(o, "reversed", l->reversed);
            json_add_num(o, "spacing", l->spacing);
        }
    }
    if (l->haystack >= 0) /* a chunk of --haystack in the prompt (distract=E) */
        json_add_bool(o, "haystack", l->haystack);
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

void sim_request_id(struct sim_server *s, char *buf, size_t size)
{
    uint64_t n = atomic_fetch_add(&s->id_counter, 1), h = sim_mix64(n ^ (uint64_t)time(NULL));
    snprintf(buf, size, "req_%016llx%016llx", (unsigned long long)h,
             (unsigned long long)sim_mix64(h ^ n));
}

/* ---- models and props ------------------------------------------------------ */

const struct sim_model *sim_find_model(struct sim_server *s, const char *name)
{
    if (!name)
        return &s->cfg->models[0];
    for (size_t i = 0; i < s->cfg->nr_models; i++)
        if (!strcmp(s->cfg->models[i].name, name))
            return &s->cfg->models[i];
    return NULL;
}

void sim_model_not_found(struct sim_reply *r, const char *name)
{
    sim_error_reply(r, 404, "invalid_request_error", NULL, "model_not_found",
                    "The model `%s` does not exist or you do not have access to it.", name);
}

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

static void handle_models(struct sim_server *s, struct sim_reply *r)
{
    struct json *root = json_new_object(), *data;
    json_add_str(root, "object", "list");
    data = json_add_array(root, "data");
    for (size_t i = 0; i < s->cfg->nr_models; i++)
        json_add(data, NULL, model_json(s, &s->cfg->models[i]));
    sim_json_reply(r, 200, root);
}

/* GET /v1/models/{id}: the model, or OpenAI's 404 model_not_found. */
static void handle_model(struct sim_server *s, const char *id, struct sim_reply *r)
{
    const struct sim_model *m = *id ? sim_find_model(s, id) : NULL;
    if (m)
        sim_json_reply(r, 200, model_json(s, m));
    else
        sim_model_not_found(r, id);
}

/* llama.cpp's /props: served unless --owned-by names another server */
static int sim_has_props(const struct sim_config *cfg)
{
    return !cfg->owned_by || !strcmp(cfg->owned_by, "dipmap-sim") ||
           !strcmp(cfg->owned_by, "llamacpp");
}

static void handle_props(struct sim_server *s, struct sim_reply *r)
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
    sim_json_reply(r, 200, root);
}

/* ---- the counting routes ---------------------------------------------------- */

/* A reply whose JSON text is already written (sb is taken). */
static void text_reply(struct sim_reply *r, int status, struct strbuf *sb)
{
    r->status = status;
    free(r->body);
    r->len = sb->len;
    r->body = strbuf_detach(sb, NULL);
    r->content_type = "application/json";
}

/*
 * "[id,...]": `zeros` ids 0 (the tokens a template or a BOS adds), then ids. Written as text,
 * not as a JSON tree: a million-token prompt's ids are 7 MB of text where a tree of a million
 * nodes took 100 MB (test 315).
 */
static void add_ids(struct strbuf *sb, const uint32_t *ids, size_t n, long zeros)
{
    strbuf_addch(sb, '[');
    for (long k = 0; k < zeros; k++)
        strbuf_addstr(sb, k ? ",0" : "0");
    for (size_t i = 0; i < n; i++)
        strbuf_addf(sb, "%s%u", zeros || i ? "," : "", ids[i]);
    strbuf_addch(sb, ']');
}

/* A token's text for the token lists: a string, or its bytes when they are not UTF-8. */
static void add_piece(struct json *o, const char *key, const char *bytes, size_t blen)
{
    if (utf8_valid(bytes, blen)) {
        char *piece = xstrndup(bytes, blen);
        json_add_str(o, key, piece);
        free(piece);
    } else {
        struct json *pa = json_add_array(o, key);
        for (size_t k = 0; k < blen; k++)
            json_add_num(pa, NULL, (unsigned char)bytes[k]);
    }
}

/* A token's bytes as a string in arr (vLLM's token_strs). */
static void add_token_str(struct sim_server *s, struct json *arr, uint32_t id)
{
    const char *bytes;
    size_t blen;
    char *piece;
    if (tokenizer_token_bytes(s->cfg->tokenizer, id, &bytes, &blen))
        blen = 0;
    piece = xstrndup(blen ? bytes : "", blen);
    json_add_str(arr, NULL, piece);
    free(piece);
}

/*
 * llama.cpp's POST /tokenize {"content", "add_special"=false, "parse_special"=true,
 * "with_pieces"=false} -> {"tokens":[ids]} or, with pieces, [{"id","piece"}]; add_special puts
 * the BOS-like --template-overhead tokens (id 0) in front.
 */
static void tokenize_llamacpp(struct sim_server *s, const struct json *req, struct sim_reply *r)
{
    const char *content = json_get_str(req, "content");
    const struct json *ps = json_get(req, "parse_special");
    int pieces = json_is_true(json_get(req, "with_pieces"));
    long bos = json_is_true(json_get(req, "add_special")) ? s->cfg->template_overhead : 0;
    uint32_t *ids = NULL;
    size_t n = 0;
    tokenizer_encode(s->cfg->tokenizer, content, strlen(content), ps ? json_is_true(ps) : 1, &ids,
                     &n);
    if (pieces) {
        struct json *root = json_new_object(), *arr = json_add_array(root, "tokens");
        for (long k = 0; k < bos; k++)
            json_add_num(arr, NULL, 0);
        for (size_t i = 0; i < n; i++) {
            struct json *o = json_new_object();
            const char *bytes;
            size_t blen;
            json_add_num(o, "id", ids[i]);
            if (tokenizer_token_bytes(s->cfg->tokenizer, ids[i], &bytes, &blen) == 0)
                add_piece(o, "piece", bytes, blen);
            json_add(arr, NULL, o);
        }
        sim_json_reply(r, 200, root);
    } else {
        struct strbuf sb = STRBUF_INIT;
        strbuf_addstr(&sb, "{\"tokens\":");
        add_ids(&sb, ids, n, bos);
        strbuf_addch(&sb, '}');
        text_reply(r, 200, &sb);
    }
    free(ids);
}

/*
 * vLLM's POST /tokenize {"prompt", "add_special_tokens"=true} or {"messages",
 * "add_generation_prompt"=true} -> {"count","max_model_len","tokens","token_strs"}; the
 * template's tokens (and the BOS-like overhead) come first, as id 0.
 */
static void tokenize_vllm(struct sim_server *s, const struct json *req, struct sim_reply *r)
{
    const struct json *prompt = json_get(req, "prompt");
    const struct json *ast = json_get(req, "add_special_tokens");
    struct sim_prompt p;
    struct strbuf sb = STRBUF_INIT;
    uint32_t *ids = NULL;
    size_t n = 0;
    long extra;
    memset(&p, 0, sizeof(p));
    if (json_kind(prompt) == JSON_STRING)
        strbuf_addstr(sim_prompt_add(&p), json_str(prompt));
    else if (sim_add_messages(&p, json_get(req, "messages"), r))
        goto cleanup;
    if (json_kind(prompt) == JSON_STRING)
        extra = !ast || json_is_true(ast) ? sim_template_tokens(s, &p, 0, 0) : 0;
    else
        extra = sim_template_tokens(s, &p, 1, sim_kwargs_no_think(req));
    for (size_t i = 0; i < p.nr; i++) {
        uint32_t *seg_ids = NULL;
        size_t seg_n = 0;
        tokenizer_encode(s->cfg->tokenizer, p.seg[i].buf, p.seg[i].len, TOKENIZER_SPECIAL_DEFAULT,
                         &seg_ids, &seg_n);
        ids = xreallocarray(ids, n + seg_n + 1, sizeof(*ids));
        if (seg_n)
            memcpy(ids + n, seg_ids, seg_n * sizeof(*ids));
        n += seg_n;
        free(seg_ids);
    }
    if (extra < 0)
        extra = 0;
    strbuf_addf(&sb, "{\"count\":%zu,\"max_model_len\":%ld,\"tokens\":", n + (size_t)extra,
                s->cfg->ctx > 0 ? s->cfg->ctx : 1048576L);
    add_ids(&sb, ids, n, extra);
    strbuf_addstr(&sb, ",\"token_strs\":");
    if (json_is_true(json_get(req, "return_token_strs"))) {
        struct json *ts = json_new_array();
        for (long k = 0; k < extra; k++)
            add_token_str(s, ts, 0);
        for (size_t i = 0; i < n; i++)
            add_token_str(s, ts, ids[i]);
        json_print(&sb, ts, 0);
        json_free(ts);
    } else {
        strbuf_addstr(&sb, "null");
    }
    strbuf_addch(&sb, '}');
    text_reply(r, 200, &sb);
cleanup:
    strbuf_release(&sb);
    free(ids);
    sim_prompt_release(&p);
}

static void handle_tokenize(struct sim_server *s, const char *body, size_t len, struct sim_reply *r)
{
    struct json *req = json_parse(body, len, NULL);
    const struct json *prompt = json_get(req, "prompt"), *messages = json_get(req, "messages");
    const struct json *model = json_get(req, "model");
    if (json_kind(req) != JSON_OBJECT)
        sim_bad_request(r, NULL, "the request body is not a JSON object");
    else if (json_kind(model) == JSON_STRING && !sim_find_model(s, json_str(model)))
        sim_model_not_found(r, json_str(model));
    else if (json_get_str(req, "content") && !prompt && !messages &&
             s->cfg->tokenize_api != SIM_API_VLLM)
        tokenize_llamacpp(s, req, r);
    else if ((json_kind(prompt) == JSON_STRING || json_kind(messages) == JSON_ARRAY) &&
             s->cfg->tokenize_api != SIM_API_LLAMACPP)
        tokenize_vllm(s, req, r);
    else
        sim_bad_request(r, NULL,
                        "expected {\"prompt\": string}, {\"messages\": [...]} (vLLM) or "
                        "{\"content\": string} (llama.cpp)");
    json_free(req);
}

/*
 * llama.cpp POST /apply-template {"messages", "chat_template_kwargs"} -> {"prompt"}: the
 * chatml rendering.
 */
static void handle_apply_template(const char *body, size_t len, struct sim_reply *r)
{
    struct json *req = json_parse(body, len, NULL), *root;
    struct sim_prompt p;
    struct sim_reply tmp = {0};
    struct strbuf out = STRBUF_INIT;
    memset(&p, 0, sizeof(p));
    if (json_kind(req) != JSON_OBJECT) {
        sim_bad_request(r, NULL, "the request body is not a JSON object");
    } else if (sim_add_messages(&p, json_get(req, "messages"), &tmp)) {
        *r = tmp;
    } else {
        sim_render_chatml(&p, sim_kwargs_no_think(req), &out);
        root = json_new_object();
        json_add_str(root, "prompt", out.buf);
        sim_json_reply(r, 200, root);
    }
    strbuf_release(&out);
    sim_prompt_release(&p);
    json_free(req);
}

static void handle_detokenize(struct sim_server *s, const char *body, size_t len,
                              struct sim_reply *r)
{
    struct json *req = json_parse(body, len, NULL), *root;
    const struct json *tokens = json_get(req, "tokens");
    struct strbuf out = STRBUF_INIT;
    if (json_kind(tokens) != JSON_ARRAY) {
        sim_bad_request(r, NULL, "expected {\"tokens\": [ids]}");
        goto cleanup;
    }
    if (sim_decode_ids(s, tokens, &out, r))
        goto cleanup;
    root = json_new_object();
    json_add_str(root, "prompt", out.buf);  /* vLLM */
    json_add_str(root, "content", out.buf); /* llama.cpp */
    sim_json_reply(r, 200, root);
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
static void to_response(const struct sim_reply *r, struct httpd_response *resp)
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
    struct sim_reply r;
    struct sim_logrec l;
    struct sim_answer ans;
    struct sim_list_query lq;
    int get = !strcmp(method, "GET") || !strcmp(method, "HEAD");
    int post = !strcmp(method, "POST");

    memset(&r, 0, sizeof(r));
    sim_logrec_init(&l, url);
    sim_request_id(s, r.request_id, sizeof(r.request_id));
    l.request_id = r.request_id;
    if (!strcmp(url, "/health") && get) {
        struct json *o = json_new_object();
        json_add_str(o, "status", "ok");
        sim_json_reply(&r, 200, o);
    } else if (!authorised(s, rq)) {
        sim_error_reply(
            &r, 401, "invalid_request_error", NULL, "invalid_api_key",
            "Incorrect API key provided. You can pass it as 'Authorization: Bearer KEY'.");
        l.outcome = "unauthorised";
    } else if (rq->body_too_big) {
        sim_error_reply(&r, 413, "invalid_request_error", NULL, NULL,
                        "request body larger than %zu bytes", (size_t)BODY_CAP);
        l.outcome = "too_big";
    } else if (post && !utf8_valid(rq->body, rq->body_len)) {
        /* JSON text is UTF-8: llama.cpp's and Python's parsers refuse other bytes, so does this */
        sim_error_reply(&r, 400, "invalid_request_error", NULL, NULL,
                        "the request body is not valid UTF-8 (byte %zu)",
                        utf8_valid_prefix((const unsigned char *)rq->body, rq->body_len) + 1);
        l.outcome = "bad_request";
    } else if ((!strcmp(url, "/v1/chat/completions") || !strcmp(url, "/v1/completions")) && post) {
        l.inflight = atomic_fetch_add(&s->gen_inflight, 1) + 1;
        sim_handle_generation(s, !strcmp(url, "/v1/chat/completions"), rq->body, rq->body_len, &r,
                              &l);
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
        if (sim_delay_ms(s, s->cfg->tokenize_latency_ms))
            r.drop = 1; /* shutting down */
        handle_tokenize(s, rq->body, rq->body_len, &r);
        atomic_fetch_sub(&s->tok_inflight, 1);
    } else if (!strcmp(url, "/apply-template") && post &&
               s->cfg->chat_template == SIM_TEMPLATE_CHATML &&
               (s->cfg->tokenize_api == SIM_API_LLAMACPP || s->cfg->tokenize_api == SIM_API_BOTH)) {
        l.inflight = atomic_fetch_add(&s->tok_inflight, 1) + 1;
        if (sim_delay_ms(s, s->cfg->tokenize_latency_ms))
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
            sim_error_reply(&r, 405, "invalid_request_error", NULL, NULL,
                            "Invalid method for URL (%s %s)", method, url);
        else
            sim_error_reply(&r, 404, "invalid_request_error", NULL, NULL, "Invalid URL (%s %s)",
                            method, url);
        l.outcome = "bad_route";
    }
    if (!r.content_type) /* a handler always replies; this guards a missed path */
        sim_bad_request(&r, NULL, "request not handled");

    sim_write_log(s, &l, r.drop ? 0 : r.status);
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
    {
        /* ids count from a start unique to this server: two serve-sims started in the same
         * second (one test often runs two) must not hand out the same ids */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        atomic_init(&s->id_counter,
                    sim_mix64(((uint64_t)getpid() << 32) ^ (uint64_t)ts.tv_nsec ^
                              ((uint64_t)ts.tv_sec << 20) ^ (uint64_t)(uintptr_t)s));
    }
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

/*
 * The blocking calls of the client, outside the event loop: preflight (the
 * server's models, props and context size) and /tokenize counts, on a
 * small pool of easy handles per endpoint for the prompt-building threads.
 */
#include "client/client.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "client/client-int.h"
#include "base/escape.h"
#include "base/json.h"
#include "base/num.h"
#include "base/secret.h"
#include "base/sha256.h"
#include "base/strbuf.h"
#include "base/usage.h"
#include "base/xalloc.h"

#include "base/banned.h"

/* ------------------------------------------------------- blocking helpers */

/*
 * One blocking request on the sync handle. body NULL = GET. Returns 0 when an
 * HTTP response arrived (*status set, resp filled), -1 on transport failure
 * (message in err).
 */
static int http_perform(struct client *c, CURL **hp, const char *url, const char *body,
                        size_t body_len, long *status, struct strbuf *resp, struct strbuf *err);

int client_http_sync(struct client *c, const char *url, const char *body, size_t body_len,
                     long *status, struct strbuf *resp, struct strbuf *err)
{
    return http_perform(c, &c->sync, url, body, body_len, status, resp, err);
}

void client_sync_req_release(struct client_sync_req *q)
{
    strbuf_release(&q->url);
    strbuf_release(&q->body);
    strbuf_release(&q->resp);
    json_free(q->root);
    q->root = NULL;
}

/* The request's body (body_len bytes, JSON) with the JSON headers, or a GET when body is NULL. */
static void set_body(struct client *c, CURL *h, const char *body, size_t body_len)
{
    if (body) {
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, c->hdrs);
        curl_easy_setopt(h, CURLOPT_POST, 1L);
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
    } else {
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, c->get_hdrs);
        curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    }
}

/* Perform with the response headers into x->hdrs and curl's message into x->errbuf. */
static CURLcode perform_into(CURL *h, struct xfer *x)
{
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, client_header_cb);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &x->hdrs);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, x->errbuf);
    return curl_easy_perform(h);
}

/* The same on *hp (created on first use), which the caller alone uses meanwhile. */
static int http_perform(struct client *c, CURL **hp, const char *url, const char *body,
                        size_t body_len, long *status, struct strbuf *resp, struct strbuf *err)
{
    struct xfer x;
    CURLcode rc;
    CURL *h;
    memset(&x, 0, sizeof(x));
    x.c = c;
    x.resp = *resp;
    strbuf_init(&x.hdrs, 0);
    strbuf_set_cap(&x.resp, c->cfg.max_response_bytes);
    strbuf_set_cap(&x.hdrs, MAX_HEADER_BYTES);
    if (!*hp && !(*hp = curl_easy_init())) {
        strbuf_release(&x.hdrs);
        strbuf_addstr(err, "curl_easy_init failed");
        return -1;
    }
    h = *hp;
    curl_easy_reset(h);
    client_setup_common(c, h);
    curl_easy_setopt(h, CURLOPT_URL, url);
    set_body(c, h, body, body_len);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, client_write_cb);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &x);
    rc = perform_into(h, &x);
    *resp = x.resp;
    strbuf_release(&x.hdrs);
    if (rc != CURLE_OK) {
        if (x.too_large)
            strbuf_addf(err, "%s: response bigger than %zu bytes", url, c->cfg.max_response_bytes);
        else
            strbuf_addf(err, "%s: %s", url, x.errbuf[0] ? x.errbuf : curl_easy_strerror(rc));
        return -1;
    }
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
    if (*status == 401 || *status == 403) {
        pthread_mutex_lock(&c->auth_lock);
        if (!c->auth_status) {
            c->auth_status = *status;
            c->auth_url = xstrdup(url);
        }
        pthread_mutex_unlock(&c->auth_lock);
    }
    return 0;
}

long client_auth_refused(struct client *c, struct strbuf *url)
{
    long st;
    pthread_mutex_lock(&c->auth_lock);
    st = c->auth_status;
    if (st && url)
        strbuf_addstr(url, c->auth_url);
    pthread_mutex_unlock(&c->auth_lock);
    return st;
}

void client_add_error_of(struct strbuf *err, const struct strbuf *resp, long status)
{
    struct strbuf m = STRBUF_INIT;
    client_error_message(resp->buf, resp->len, &m, NULL);
    strbuf_addf(err, "HTTP %ld%s%.500s", status, m.len ? ": " : "", m.buf);
    strbuf_release(&m);
}

void client_preflight_info_release(struct client_preflight_info *info)
{
    free(info->served_model);
    free(info->server_info);
    info->served_model = NULL;
    info->server_info = NULL;
}

static void context_min(struct client_preflight_info *info, long n)
{
    if (n > 0 && (info->context < 0 || n < info->context))
        info->context = n;
}

/* GET /props (llama.cpp). Returns 1 when it answered like llama.cpp. */
static int probe_props(struct client *c, struct endpoint *ep, struct client_preflight_info *info)
{
    struct strbuf url = STRBUF_INIT, resp = STRBUF_INIT, err = STRBUF_INIT;
    long status = 0;
    int is_llama = 0;
    strbuf_addf(&url, "%s/props", ep->root);
    if (!client_http_sync(c, url.buf, NULL, 0, &status, &resp, &err) && status == 200) {
        struct json *root = json_parse(resp.buf, resp.len, NULL);
        const struct json *dgs = json_get(root, "default_generation_settings");
        long n = client_obj_long(dgs, "n_ctx");
        if (n < 0)
            n = client_obj_long(json_get(dgs, "params"), "n_ctx");
        if (n < 0)
            n = client_obj_long(root, "n_ctx");
        if (dgs || n > 0) {
            const struct json *cp = json_get(json_get(dgs, "params"), "cache_prompt");
            long slots = client_obj_long(root, "total_slots");
            is_llama = 1;
            if (info->kind == CLIENT_SERVER_UNKNOWN) {
                info->kind = CLIENT_SERVER_LLAMACPP;
                info->slots = slots > 0 && slots <= 1 << 20 ? (int)slots : -1;
                /* cache_prompt is on unless the server says otherwise */
                info->prefix_cache = json_is_false(cp) ? 0 : 1;
            }
            context_min(info, n);
            if (!info->server_info && json_get_str(root, "build_info"))
                info->server_info = xstrdup(json_get_str(root, "build_info"));
        }
        json_free(root);
    }
    strbuf_release(&url);
    strbuf_release(&resp);
    strbuf_release(&err);
    return is_llama;
}

/*
 * 1 after a message in err when ep has no OpenAI API: its /v1/models answered an HTML page
 * (a web UI, a login page, a proxy), or it and /v1/chat/completions both answered 404/405
 * (a wrong path: "http://host:8000/v2"). A server without /v1/models still passes when its
 * chat path exists: an empty request there gets a 4xx about the request, not a 404. The
 * empty request is invalid, so nothing is generated or billed.
 */
static int no_api_here(struct client *c, const struct endpoint *ep, long status,
                       const struct strbuf *resp, struct strbuf *err)
{
    struct strbuf url = STRBUF_INIT, body = STRBUF_INIT;
    long chat_status = 0;
    int none;
    if (status == 200 && client_body_is_html(resp->buf, resp->len)) {
        strbuf_addf(err,
                    "%s/v1/models answered an HTML page, not the OpenAI API (a web UI, a login "
                    "page or a proxy at this address?): ",
                    ep->root);
        client_error_message(resp->buf, resp->len > 200 ? 200 : resp->len, err, NULL);
        return 1;
    }
    if (status != 404 && status != 405)
        return 0;
    strbuf_addf(&url, "%s/v1/chat/completions", ep->root);
    none = !client_http_sync(c, url.buf, "{}", 2, &chat_status, &body, err) &&
           (chat_status == 404 || chat_status == 405);
    strbuf_reset(err);
    if (none)
        strbuf_addf(err,
                    "no OpenAI-compatible API at %s: GET %s/v1/models and POST %s answered HTTP "
                    "%ld and %ld (give the server's base URL, e.g. http://HOST:8000 or "
                    "http://HOST:8000/v1)",
                    ep->root, ep->root, url.buf, status, chat_status);
    strbuf_release(&url);
    strbuf_release(&body);
    return none;
}

static enum client_class preflight_locked(struct client *c, struct client_preflight_info *info,
                                          enum client_reason *reason, struct strbuf *err)
{
    enum client_reason dummy;
    if (!reason)
        reason = &dummy;
    *reason = CLIENT_R_NONE;
    info->context = -1;
    info->model_listed = -1;
    info->served_model = NULL;
    info->server_info = NULL;
    info->kind = CLIENT_SERVER_UNKNOWN;
    info->slots = -1;
    info->prefix_cache = -1;
    if (c->nr_ep && strstr(c->ep[0].root, "://api.openai.com")) {
        info->kind = CLIENT_SERVER_OPENAI; /* automatic prompt caching */
        info->prefix_cache = 1;
    }
    for (size_t i = 0; i < c->nr_ep; i++) {
        struct endpoint *ep = &c->ep[i];
        struct strbuf url = STRBUF_INIT, resp = STRBUF_INIT, names = STRBUF_INIT;
        long status = 0;
        int found = 0, listed = 0, llamacpp = 0;
        struct json *root;
        const struct json *data, *m;
        if (ep->azure)
            continue; /* deployments have no /v1/models */
        strbuf_addf(&url, "%s/v1/models", ep->root);
        if (client_http_sync(c, url.buf, NULL, 0, &status, &resp, err)) {
            strbuf_release(&url);
            strbuf_release(&resp);
            *reason = CLIENT_R_CONNECT;
            return CLIENT_RETRYABLE;
        }
        if (status == 401 || status == 403) {
            strbuf_addf(err, "%s refused the API key: ", url.buf);
            client_add_error_of(err, &resp, status);
            strbuf_release(&url);
            strbuf_release(&resp);
            *reason = CLIENT_R_AUTH;
            return CLIENT_FATAL;
        }
        if (status >= 500) {
            strbuf_addf(err, "%s: ", url.buf);
            client_add_error_of(err, &resp, status);
            strbuf_release(&url);
            strbuf_release(&resp);
            *reason = CLIENT_R_SERVER_ERROR;
            return CLIENT_RETRYABLE;
        }
        if (no_api_here(c, ep, status, &resp, err)) {
            strbuf_release(&url);
            strbuf_release(&resp);
            *reason = CLIENT_R_BAD_REQUEST;
            return CLIENT_FATAL;
        }
        probe_props(c, ep, info);
        root = status == 200 ? json_parse(resp.buf, resp.len, NULL) : NULL;
        data = json_get(root, "data");
        if (json_kind(data) != JSON_ARRAY)
            data = json_get(root, "models"); /* llama.cpp also lists "models" */
        if (json_kind(data) == JSON_ARRAY) {
            for (m = json_first(data); m; m = json_next(m)) {
                const char *id = json_get_str(m, "id");
                if (!id)
                    id = json_get_str(m, "name");
                if (!id)
                    id = json_get_str(m, "model");
                if (!id)
                    continue;
                listed++;
                if (json_get_str(m, "owned_by") && !strcmp(json_get_str(m, "owned_by"), "llamacpp"))
                    llamacpp++;
                if (i == 0 && info->kind == CLIENT_SERVER_UNKNOWN && json_get_str(m, "owned_by")) {
                    /* both cache prefixes by default (automatic prefix caching, radix cache) */
                    if (!strcmp(json_get_str(m, "owned_by"), "vllm"))
                        info->kind = CLIENT_SERVER_VLLM;
                    else if (!strcmp(json_get_str(m, "owned_by"), "sglang"))
                        info->kind = CLIENT_SERVER_SGLANG;
                    if (info->kind != CLIENT_SERVER_UNKNOWN)
                        info->prefix_cache = 1;
                }
                if (listed <= 10)
                    strbuf_addf(&names, "%s\"%s\"", names.len ? ", " : "", id);
                if (c->model && !strcmp(id, c->model) && !found) {
                    found = 1;
                    context_min(info, client_obj_long(m, "max_model_len"));
                    if (!info->served_model)
                        info->served_model = xstrdup(id);
                }
            }
            if (listed > 10)
                strbuf_addf(&names, ", ... (%d in all)", listed);
            if (found) {
                if (info->model_listed != 0)
                    info->model_listed = 1;
            } else if (llamacpp && listed == 1) {
                /* llama.cpp single-model mode answers whatever the model name is */
                info->model_listed = 0;
            } else if (listed && c->model) {
                strbuf_addf(err, "model \"%s\" is not served by %s (it serves %s)", c->model,
                            ep->root, names.buf);
                json_free(root);
                strbuf_release(&names);
                strbuf_release(&url);
                strbuf_release(&resp);
                *reason = CLIENT_R_MODEL_NOT_FOUND;
                return CLIENT_FATAL;
            }
        }
        json_free(root);
        strbuf_release(&names);
        strbuf_release(&url);
        strbuf_release(&resp);
    }
    return CLIENT_OK;
}

/* tokenize with one request shape; 0 ok, 1 shape not understood, -1 transport/other error */
static int tokenize_kind(struct client *c, CURL **hp, int kind, const char *text, size_t len,
                         long *count, struct strbuf *err)
{
    struct client_sync_req q = CLIENT_SYNC_REQ_INIT;
    long status = 0;
    int ret = 1;
    strbuf_addf(&q.url, "%s/tokenize", c->ep[0].root);
    if (kind == 1) {
        strbuf_addstr(&q.body, "{\"model\":");
        escape_json_n(&q.body, c->model, strlen(c->model));
        strbuf_addstr(&q.body, ",\"add_special_tokens\":false,\"prompt\":");
    } else {
        strbuf_addstr(&q.body, "{\"add_special\":false,\"content\":");
    }
    escape_json_n(&q.body, text, len);
    strbuf_addch(&q.body, '}');
    if (http_perform(c, hp, q.url.buf, q.body.buf, q.body.len, &status, &q.resp, err)) {
        ret = -1;
        goto out;
    }
    if (status == 404 || status == 405) {
        strbuf_addf(err,
                    "%s: HTTP %ld: the server has no /tokenize endpoint (use a local --tokenizer)",
                    q.url.buf, status);
        ret = -2;
        goto out;
    }
    if (status != 200) {
        /* the other shape may work; keep the message in case it does not */
        strbuf_addf(err, "%s: ", q.url.buf);
        client_add_error_of(err, &q.resp, status);
        ret = status >= 500 ? -1 : 1;
        goto out;
    }
    q.root = json_parse(q.resp.buf, q.resp.len, NULL);
    {
        const struct json *cnt = json_get(q.root, "count");
        const struct json *toks = json_get(q.root, "tokens");
        if (json_kind(cnt) == JSON_NUMBER && json_num(cnt, 0) >= 0) {
            *count = (long)json_num(cnt, 0);
            ret = 0;
        } else if (json_kind(toks) == JSON_ARRAY) {
            *count = (long)json_size(toks);
            /* llama.cpp ignores {"prompt"} and answers [] — not an answer */
            ret = (*count == 0 && len > 0 && kind == 1) ? 1 : 0;
        } else {
            strbuf_addf(err, "%s: unexpected /tokenize answer", q.url.buf);
        }
    }
out:
    client_sync_req_release(&q);
    return ret;
}

static int tokenize_locked(struct client *c, const char *text, size_t len, long *count,
                           struct strbuf *err)
{
    struct strbuf e1 = STRBUF_INIT, e2 = STRBUF_INIT;
    int r;
    if (!len) {
        *count = 0;
        return 0;
    }
    if (c->tok_kind) {
        r = tokenize_kind(c, &c->sync, c->tok_kind, text, len, count, &e1);
        if (r) {
            strbuf_add(err, e1.buf, e1.len);
            if (!e1.len)
                strbuf_addstr(err, "server /tokenize gave no token count");
        }
        strbuf_release(&e1);
        return r ? -1 : 0;
    }
    /* detect: vLLM/SGLang {"prompt"} first (llama.cpp answers it with []), then llama.cpp */
    r = tokenize_kind(c, &c->sync, 1, text, len, count, &e1);
    if (r == 0) {
        c->tok_kind = 1;
    } else if (r == 1 || r == -2) {
        int r2 = tokenize_kind(c, &c->sync, 2, text, len, count, &e2);
        if (r2 == 0) {
            c->tok_kind = 2;
            r = 0;
        } else {
            r = -1;
        }
    }
    if (r) {
        if (e2.len)
            strbuf_add(err, e2.buf, e2.len);
        else if (e1.len)
            strbuf_add(err, e1.buf, e1.len);
        else
            strbuf_addf(err,
                        "%s/tokenize: the server did not count tokens (neither the vLLM "
                        "nor the llama.cpp shape)",
                        c->ep[0].root);
    }
    strbuf_release(&e1);
    strbuf_release(&e2);
    return r ? -1 : 0;
}

enum client_class client_preflight(struct client *c, struct client_preflight_info *info,
                                   enum client_reason *reason, struct strbuf *err)
{
    enum client_class cls;
    pthread_mutex_lock(&c->sync_lock);
    cls = preflight_locked(c, info, reason, err);
    pthread_mutex_unlock(&c->sync_lock);
    return cls;
}

/* Count on a pooled handle (the shape is known): several threads at once. */
static int tokenize_pooled(struct client *c, int kind, const char *text, size_t len, long *count,
                           struct strbuf *err)
{
    size_t i;
    int r;
    pthread_mutex_lock(&c->tok_lock);
    for (;;) {
        for (i = 0; i < TOK_POOL && c->tok_busy[i]; i++)
            ;
        if (i < TOK_POOL)
            break;
        pthread_cond_wait(&c->tok_free, &c->tok_lock);
    }
    c->tok_busy[i] = 1;
    pthread_mutex_unlock(&c->tok_lock);
    r = tokenize_kind(c, &c->tok_pool[i], kind, text, len, count, err);
    if (r && !err->len)
        strbuf_addstr(err, "server /tokenize gave no token count");
    pthread_mutex_lock(&c->tok_lock);
    c->tok_busy[i] = 0;
    pthread_cond_signal(&c->tok_free);
    pthread_mutex_unlock(&c->tok_lock);
    return r ? -1 : 0;
}

int client_tokenize(struct client *c, const char *text, size_t len, long *count, struct strbuf *err)
{
    int r, kind;
    pthread_mutex_lock(&c->sync_lock);
    kind = c->tok_kind;
    if (!kind || !len) {
        /* detect the shape once, serialised; then count concurrently */
        r = tokenize_locked(c, text, len, count, err);
        pthread_mutex_unlock(&c->sync_lock);
        return r;
    }
    pthread_mutex_unlock(&c->sync_lock);
    return tokenize_pooled(c, kind, text, len, count, err);
}

int client_tokenize_cb(void *client, const char *text, size_t len, long *count, struct strbuf *err)
{
    return client_tokenize(client, text, len, count, err);
}

/* ------------------------------------------- the Batch API (client_batch.c) */

static size_t sink_cb(char *ptr, size_t size, size_t nmemb, void *ud)
{
    return fwrite(ptr, 1, size * nmemb, ud);
}

int client_call(struct client *c, const struct client_call *call, long *status, struct strbuf *resp,
                struct strbuf *err)
{
    struct strbuf url = STRBUF_INIT;
    struct xfer x;
    curl_mime *mime = NULL;
    CURL *h = curl_easy_init();
    CURLcode rc;
    int ret = -1;

    memset(&x, 0, sizeof(x));
    x.c = c;
    x.resp = *resp;
    strbuf_init(&x.hdrs, 0);
    strbuf_set_cap(&x.hdrs, MAX_HEADER_BYTES);
    if (!h) {
        strbuf_addstr(err, "curl_easy_init failed");
        goto cleanup;
    }
    strbuf_addf(&url, "%s%s", c->ep[0].root, call->path);
    client_setup_common(c, h);
    if (call->sink)
        /* a downloaded file may be far bigger than any answer: no response cap */
        curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)0);
    curl_easy_setopt(h, CURLOPT_URL, url.buf);
    if (call->upload_path) {
        curl_mimepart *part;
        mime = curl_mime_init(h);
        part = curl_mime_addpart(mime);
        curl_mime_name(part, "purpose");
        curl_mime_data(part, call->purpose ? call->purpose : "batch", CURL_ZERO_TERMINATED);
        part = curl_mime_addpart(mime);
        curl_mime_name(part, "file");
        if (curl_mime_filedata(part, call->upload_path) != CURLE_OK) {
            strbuf_addf(err, "cannot read %s", call->upload_path);
            goto cleanup;
        }
        curl_mime_filename(part, call->upload_name);
        curl_mime_type(part, "application/jsonl");
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, c->get_hdrs);
        curl_easy_setopt(h, CURLOPT_MIMEPOST, mime);
    } else {
        set_body(c, h, call->body, call->body_len);
    }
    if (call->sink) {
        curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink_cb);
        curl_easy_setopt(h, CURLOPT_WRITEDATA, call->sink);
    } else {
        strbuf_set_cap(&x.resp, c->cfg.max_response_bytes);
        curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, client_write_cb);
        curl_easy_setopt(h, CURLOPT_WRITEDATA, &x);
    }
    rc = perform_into(h, &x);
    if (rc != CURLE_OK) {
        strbuf_addf(err, "%s %s: %s", call->upload_path || call->body ? "POST" : "GET", url.buf,
                    x.errbuf[0] ? x.errbuf : curl_easy_strerror(rc));
        goto cleanup;
    }
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
    ret = 0;
cleanup:
    *resp = x.resp;
    if (resp->buf) {
        char *s = resp->len ? strbuf_detach(resp, NULL) : NULL;
        if (s) {
            client_redact_key(c, &s);
            strbuf_addstr(resp, s);
            free(s);
        }
    }
    strbuf_release(&x.hdrs);
    strbuf_release(&url);
    curl_mime_free(mime);
    if (h)
        curl_easy_cleanup(h);
    return ret;
}

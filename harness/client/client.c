/*
 * OpenAI-compatible HTTP client: endpoint configuration, libcurl multi
 * transfers for one event loop, and the blocking preflight and /tokenize
 * calls. The only file that includes <curl/curl.h>. Classification of a
 * finished exchange is client_classify.c, Retry-After parsing
 * client_retry_after.c; the retry policy (backoff, AIMD, token buckets) is the
 * runner's (throttle.c).
 */
#include "client/client.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

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

#define MAX_HEADER_BYTES (64 * 1024)
/* Handles for concurrent /tokenize counts (one per prompt-building thread). */
#define TOK_POOL 8

/* ----------------------------------------------------------------- config */

void client_config_init(struct client_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    strvec_init(&cfg->endpoints);
    strvec_init(&cfg->headers);
    cfg->temperature = 0.0;
    cfg->top_p = 1.0;
    cfg->send_seed = 1;
    cfg->seed = 0;
    cfg->max_tokens = CLIENT_DEFAULT_MAX_TOKENS;
    cfg->max_tokens_field = CLIENT_MTF_AUTO;
    cfg->connect_timeout_ms = 10000;
    cfg->timeout_ms = 600000;
    cfg->max_response_bytes = 64u * 1024 * 1024;
    cfg->truncation_ratio = 0.98;
}

void client_config_release(struct client_config *cfg)
{
    strvec_clear(&cfg->endpoints);
    strvec_clear(&cfg->headers);
}

int client_has_prefix_ci(const char *s, const char *prefix)
{
    size_t n = strlen(prefix);
    return strncasecmp(s, prefix, n) == 0;
}

static int ends_with(const char *s, size_t len, const char *suffix)
{
    size_t n = strlen(suffix);
    return len >= n && !memcmp(s + len - n, suffix, n);
}

int client_normalize_base(const char *url, struct strbuf *out, struct strbuf *err)
{
    size_t len;
    const char *rest;
    const char *const suffixes[] = {"/v1/chat/completions", "/v1/completions", "/chat/completions",
                                    "/completions", "/v1"};
    if (!url || !(client_has_prefix_ci(url, "http://") || client_has_prefix_ci(url, "https://"))) {
        if (err)
            strbuf_addf(err, "endpoint \"%s\" must start with http:// or https://", url ? url : "");
        return -1;
    }
    rest = strstr(url, "://") + 3;
    if (!*rest || *rest == '/') {
        if (err)
            strbuf_addf(err, "endpoint \"%s\" has no host", url);
        return -1;
    }
    len = strlen(url);
    while (len && url[len - 1] == '/')
        len--;
    for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
        /* "/chat/completions" alone only strips for Azure deployment URLs */
        if (i == 2 || i == 3) {
            if (!strstr(url, "/openai/deployments/"))
                continue;
        }
        if (ends_with(url, len, suffixes[i])) {
            len -= strlen(suffixes[i]);
            break;
        }
    }
    while (len && url[len - 1] == '/')
        len--;
    strbuf_add(out, url, len);
    return 0;
}

int client_is_reasoning_model(const char *model)
{
    const char *m;
    if (!model)
        return 0;
    /* provider prefixes as used by proxies: "openai/o3-mini" */
    m = strrchr(model, '/');
    m = m ? m + 1 : model;
    if ((m[0] == 'o' || m[0] == 'O') && (m[1] == '1' || m[1] == '3' || m[1] == '4') &&
        (m[2] == '\0' || m[2] == '-'))
        return 1;
    if (client_has_prefix_ci(m, "gpt-5"))
        return 1;
    return 0;
}

/* ------------------------------------------------------------------ clock */

double client_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

/* ------------------------------------------------------- the multi client */

struct endpoint {
    char *root;    /* normalised base, e.g. http://h:8000 */
    char *gen_url; /* chat or legacy completions URL */
    char *query;   /* Azure "?api-version=..." or "" */
    int azure;
    size_t inflight;
};

struct xfer {
    CURL *easy;
    struct client *c;
    struct strbuf body; /* request JSON */
    struct strbuf resp;
    struct strbuf hdrs;
    int too_large;
    void *tag;
    long expected;
    long context;
    const char *mt_field; /* the budget field the body sent */
    int endpoint;
    double start_ms;
    char sha[SHA256_HEX_LEN + 1]; /* of the body without cache hints */
    char errbuf[CURL_ERROR_SIZE];
    struct xfer *next_free;
    struct xfer *prev, *next; /* the active list */
};

struct client {
    CURLM *multi;
    struct endpoint *ep;
    size_t nr_ep;
    size_t rr; /* round-robin cursor for ties */
    char *model;
    char *key;
    char *reasoning_effort, *extra_members; /* extra_members: the extra body without braces */
    char *reasoning_open, *reasoning_close;
    unsigned extra_hints;        /* HINT_* bits: cache hints the extra body sets (its value wins) */
    struct curl_slist *hdrs;     /* shared request headers (with auth) */
    struct curl_slist *get_hdrs; /* for GETs */
    struct client_config cfg;    /* scalars only; strvecs empty, strings NULL */
    const char *mt_field;
    int mt_auto;     /* mt_field was chosen by the auto rule: a server may correct it */
    size_t inflight; /* in curl */
    struct client_response **ready;
    size_t ready_head, ready_nr, ready_alloc;
    struct xfer *free_xfers;
    struct xfer *active;       /* in curl, for client_free() */
    CURL *sync;                /* blocking helper handle (preflight, tokenize) */
    int tok_kind;              /* 0 unknown, 1 vLLM/SGLang {"prompt"}, 2 llama.cpp {"content"} */
    pthread_mutex_t sync_lock; /* serialises the users of sync and tok_kind */
    /*
     * Handles for counting once the /tokenize shape is known: prompt builders
     * in several threads count at the same time (each handle keeps its
     * connection), instead of queueing on the sync handle.
     */
    CURL *tok_pool[TOK_POOL];
    int tok_busy[TOK_POOL];
    pthread_mutex_t tok_lock;
    pthread_cond_t tok_free;
};

static int global_init_done;

static int is_openai_host(const char *root)
{
    const char *h = strstr(root, "://");
    h = h ? h + 3 : root;
    return client_has_prefix_ci(h, "api.openai.com") || strstr(root, ".openai.azure.com") != NULL;
}

/*
 * 1 when a header line "Name: value" carries a credential: Authorization, api-key, and any
 * header whose name mentions a key, token, secret, password, auth or cookie (-H 'X-Api-Key: ...').
 */
/* verbose output with credentials removed */
static int debug_cb(CURL *h, curl_infotype type, char *data, size_t size, void *ud)
{
    const char *prefix;
    size_t i = 0;
    (void)h;
    (void)ud;
    if (type == CURLINFO_TEXT)
        prefix = "* ";
    else if (type == CURLINFO_HEADER_OUT)
        prefix = "> ";
    else if (type == CURLINFO_HEADER_IN)
        prefix = "< ";
    else
        return 0;
    while (i < size) {
        size_t j = i;
        struct strbuf line = STRBUF_INIT;
        while (j < size && data[j] != '\n')
            j++;
        size_t name_len = 0;
        if (j - i >= 14 && !strncasecmp(data + i, "authorization:", 14))
            strbuf_addstr(&line, "Authorization: <redacted>");
        else if (j - i >= 8 && !strncasecmp(data + i, "api-key:", 8))
            strbuf_addstr(&line, "api-key: <redacted>");
        else if (type != CURLINFO_TEXT && secret_header(data + i, j - i, &name_len))
            strbuf_addf(&line, "%.*s: <redacted>", (int)name_len, data + i);
        else
            client_add_clean(&line, data + i, j - i, 2000);
        strbuf_rtrim(&line);
        if (line.len)
            fprintf(stderr, "client: %s%s\n", prefix, line.buf);
        strbuf_release(&line);
        i = j + 1;
    }
    return 0;
}

static size_t write_cb(char *ptr, size_t size, size_t nmemb, void *ud)
{
    struct xfer *x = ud;
    size_t n = size * nmemb;
    if (strbuf_add(&x->resp, ptr, n)) {
        x->too_large = 1;
        return 0;
    }
    return n;
}

static size_t header_cb(char *ptr, size_t size, size_t nmemb, void *ud)
{
    struct strbuf *h = ud;
    size_t n = size * nmemb;
    /* a new status line (100 Continue, redirects): keep only the last block */
    if (n >= 5 && !memcmp(ptr, "HTTP/", 5))
        strbuf_reset(h);
    strbuf_add(h, ptr, n); /* silently dropped past the cap */
    return n;
}

static void setup_common(struct client *c, CURL *e)
{
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, c->cfg.connect_timeout_ms);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, c->cfg.timeout_ms);
    curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(e, CURLOPT_USERAGENT, "dipmap");
    if (c->cfg.insecure) {
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (c->cfg.verbose) {
        curl_easy_setopt(e, CURLOPT_VERBOSE, 1L);
        curl_easy_setopt(e, CURLOPT_DEBUGFUNCTION, debug_cb);
    }
    if (c->cfg.max_response_bytes)
        curl_easy_setopt(e, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)c->cfg.max_response_bytes);
}

static struct curl_slist *build_headers(const struct client_config *cfg, const char *key, int azure,
                                        int json_body, struct strbuf *err)
{
    struct curl_slist *l = NULL, *t;
    struct strbuf h = STRBUF_INIT;
    if (json_body) {
        l = curl_slist_append(l, "Content-Type: application/json");
        l = curl_slist_append(l, "Expect:");
    }
    l = curl_slist_append(l, "Accept: application/json");
    if (key && *key) {
        if (azure)
            strbuf_addf(&h, "api-key: %s", key);
        else
            strbuf_addf(&h, "Authorization: Bearer %s", key);
        l = curl_slist_append(l, h.buf);
        memset(h.buf, 0, h.len);
    }
    for (size_t i = 0; i < cfg->headers.nr; i++) {
        const char *s = cfg->headers.v[i], *colon = strchr(s, ':');
        if (!colon || colon == s) {
            strbuf_addf(err, "header \"%s\" must look like \"Name: value\"", s);
            curl_slist_free_all(l);
            strbuf_release(&h);
            return NULL;
        }
        t = curl_slist_append(l, s);
        if (!t)
            break;
        l = t;
    }
    strbuf_release(&h);
    return l;
}

/* The cache hints (add_hints()) an extra body of client_extra_body_check() sets. */
enum { HINT_ID_SLOT = 1, HINT_CACHE_PROMPT = 2, HINT_CACHE_SALT = 4, HINT_CACHE_KEY = 8 };

static unsigned extra_hint_bits(const char *canon)
{
    struct json *o = json_parse_str(canon);
    unsigned bits = 0;
    bits |= json_get(o, "id_slot") ? HINT_ID_SLOT : 0;
    bits |= json_get(o, "cache_prompt") ? HINT_CACHE_PROMPT : 0;
    bits |= json_get(o, "cache_salt") ? HINT_CACHE_SALT : 0;
    bits |= json_get(o, "prompt_cache_key") ? HINT_CACHE_KEY : 0;
    json_free(o);
    return bits;
}

struct client *client_new(const struct client_config *cfg, struct strbuf *err)
{
    struct client *c;
    int azure_any = 0;
    if (!cfg->endpoints.nr) {
        strbuf_addstr(err, "no endpoint given");
        return NULL;
    }
    if (!cfg->model || !*cfg->model) {
        strbuf_addstr(err, "no model given");
        return NULL;
    }
    if (!global_init_done) {
        if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
            strbuf_addstr(err, "curl_global_init failed");
            return NULL;
        }
        global_init_done = 1;
    }
    c = xcalloc(1, sizeof(*c));
    pthread_mutex_init(&c->sync_lock, NULL);
    pthread_mutex_init(&c->tok_lock, NULL);
    pthread_cond_init(&c->tok_free, NULL);
    c->cfg = *cfg;
    strvec_init(&c->cfg.endpoints);
    strvec_init(&c->cfg.headers);
    c->cfg.model = NULL;
    c->cfg.api_key = NULL;
    if (c->cfg.truncation_ratio <= 0)
        c->cfg.truncation_ratio = 0.98;
    c->model = xstrdup(cfg->model);
    c->key = cfg->api_key && *cfg->api_key ? xstrdup(cfg->api_key) : NULL;
    c->cfg.reasoning_effort = c->cfg.extra_body = NULL;
    c->cfg.reasoning_open = c->cfg.reasoning_close = NULL;
    c->reasoning_effort = cfg->reasoning_effort ? xstrdup(cfg->reasoning_effort) : NULL;
    c->reasoning_open = cfg->reasoning_open ? xstrdup(cfg->reasoning_open) : NULL;
    c->reasoning_close = cfg->reasoning_close ? xstrdup(cfg->reasoning_close) : NULL;
    if (cfg->extra_body) {
        struct strbuf canon = STRBUF_INIT;
        if (client_extra_body_check(cfg->extra_body, &canon, err) < 0) {
            strbuf_release(&canon);
            client_free(c);
            return NULL;
        }
        c->extra_hints = extra_hint_bits(canon.buf);
        /* "{...}" -> "..." (members appended to every body) */
        if (canon.len > 2)
            c->extra_members = xmemdup(canon.buf + 1, canon.len - 2);
        strbuf_release(&canon);
    }
    c->ep = xcalloc(cfg->endpoints.nr, sizeof(*c->ep));
    for (size_t i = 0; i < cfg->endpoints.nr; i++) {
        struct strbuf root = STRBUF_INIT, url = STRBUF_INIT;
        const char *raw = cfg->endpoints.v[i], *q = strchr(raw, '?');
        struct endpoint *ep = &c->ep[i];
        struct strbuf noq = STRBUF_INIT;
        strbuf_add(&noq, raw, q ? (size_t)(q - raw) : strlen(raw));
        if (client_normalize_base(noq.buf, &root, err)) {
            strbuf_release(&noq);
            strbuf_release(&root);
            c->nr_ep = i;
            client_free(c);
            return NULL;
        }
        strbuf_release(&noq);
        ep->azure = strstr(root.buf, "/openai/deployments/") != NULL;
        azure_any |= ep->azure;
        if (ep->azure)
            ep->query = xstrdup(q ? q : "?api-version=2025-03-01-preview");
        else
            ep->query = xstrdup(q ? q : "");
        if (ep->azure)
            strbuf_addf(&url, "%s/%s%s", root.buf,
                        cfg->legacy_completions ? "completions" : "chat/completions", ep->query);
        else
            strbuf_addf(&url, "%s/v1/%s%s", root.buf,
                        cfg->legacy_completions ? "completions" : "chat/completions", ep->query);
        ep->root = strbuf_detach(&root, NULL);
        ep->gen_url = strbuf_detach(&url, NULL);
    }
    c->nr_ep = cfg->endpoints.nr;
    c->hdrs = build_headers(cfg, c->key, azure_any, 1, err);
    c->get_hdrs = build_headers(cfg, c->key, azure_any, 0, err);
    if (!c->hdrs || !c->get_hdrs) {
        client_free(c);
        return NULL;
    }
    switch (cfg->max_tokens_field) {
    case CLIENT_MTF_MAX_TOKENS:
        c->mt_field = "max_tokens";
        break;
    case CLIENT_MTF_MAX_COMPLETION_TOKENS:
        c->mt_field = "max_completion_tokens";
        break;
    default:
        c->mt_auto = !cfg->legacy_completions;
        if (cfg->legacy_completions)
            c->mt_field = "max_tokens";
        else if (is_openai_host(c->ep[0].root) || azure_any || client_is_reasoning_model(c->model))
            c->mt_field = "max_completion_tokens";
        else
            c->mt_field = "max_tokens";
    }
    c->multi = curl_multi_init();
    if (!c->multi) {
        strbuf_addstr(err, "curl_multi_init failed");
        client_free(c);
        return NULL;
    }
    curl_multi_setopt(c->multi, CURLMOPT_MAXCONNECTS, 1024L);
    return c;
}

static void xfer_destroy(struct xfer *x)
{
    if (x->easy)
        curl_easy_cleanup(x->easy);
    strbuf_release(&x->body);
    strbuf_release(&x->resp);
    strbuf_release(&x->hdrs);
    free(x);
}

void client_free(struct client *c)
{
    if (!c)
        return;
    /* abort transfers in flight */
    while (c->active) {
        struct xfer *x = c->active;
        c->active = x->next;
        curl_multi_remove_handle(c->multi, x->easy);
        xfer_destroy(x);
    }
    while (c->free_xfers) {
        struct xfer *x = c->free_xfers;
        c->free_xfers = x->next_free;
        xfer_destroy(x);
    }
    for (size_t i = c->ready_head; i < c->ready_nr; i++)
        client_response_free(c->ready[i]);
    free(c->ready);
    if (c->multi)
        curl_multi_cleanup(c->multi);
    if (c->sync)
        curl_easy_cleanup(c->sync);
    for (size_t i = 0; i < TOK_POOL; i++)
        if (c->tok_pool[i])
            curl_easy_cleanup(c->tok_pool[i]);
    pthread_mutex_destroy(&c->sync_lock);
    pthread_mutex_destroy(&c->tok_lock);
    pthread_cond_destroy(&c->tok_free);
    curl_slist_free_all(c->hdrs);
    curl_slist_free_all(c->get_hdrs);
    for (size_t i = 0; i < c->nr_ep; i++) {
        free(c->ep[i].root);
        free(c->ep[i].gen_url);
        free(c->ep[i].query);
    }
    free(c->ep);
    free(c->model);
    free(c->reasoning_effort);
    free(c->extra_members);
    free(c->reasoning_open);
    free(c->reasoning_close);
    if (c->key) {
        volatile char *p = c->key;
        while (*p)
            *p++ = 0;
        free(c->key);
    }
    free(c);
}

const char *client_server_kind_name(enum client_server_kind k)
{
    switch (k) {
    case CLIENT_SERVER_LLAMACPP:
        return "llama.cpp";
    case CLIENT_SERVER_VLLM:
        return "vllm";
    case CLIENT_SERVER_SGLANG:
        return "sglang";
    case CLIENT_SERVER_OPENAI:
        return "openai";
    case CLIENT_SERVER_UNKNOWN:
        break;
    }
    return "unknown";
}

/*
 * The cache hints as body members (after the request's own; see client_cache_hints); a
 * hint the extra body sets is left out (the user's value wins, the key appears once).
 */
static void add_hints(const struct client_cache_hints *h, unsigned skip, struct strbuf *b)
{
    if (!h)
        return;
    if (h->id_slot >= 0 && !(skip & HINT_ID_SLOT))
        strbuf_addf(b, ",\"id_slot\":%d", h->id_slot);
    if (h->no_cache_prompt && !(skip & HINT_CACHE_PROMPT))
        strbuf_addstr(b, ",\"cache_prompt\":false");
    if (h->cache_salt && !(skip & HINT_CACHE_SALT)) {
        strbuf_addstr(b, ",\"cache_salt\":");
        escape_json_n(b, h->cache_salt, strlen(h->cache_salt));
    }
    if (h->prompt_cache_key && !(skip & HINT_CACHE_KEY)) {
        strbuf_addstr(b, ",\"prompt_cache_key\":");
        escape_json_n(b, h->prompt_cache_key, strlen(h->prompt_cache_key));
    }
}

static void build_body(struct client *c, const struct client_request *req, int hints,
                       struct strbuf *b)
{
    long mt = req->max_tokens > 0 ? req->max_tokens : c->cfg.max_tokens;
    const char *user = req->user ? req->user : "";
    size_t ulen = req->user ? req->user_len : 0;
    strbuf_grow(b, ulen + (req->system ? strlen(req->system) : 0) + 256);
    strbuf_addstr(b, "{\"model\":");
    escape_json_n(b, c->model, strlen(c->model));
    if (c->cfg.legacy_completions) {
        strbuf_addstr(b, ",\"prompt\":");
        escape_json_n(b, user, ulen);
    } else {
        strbuf_addstr(b, ",\"messages\":[");
        if (req->system && *req->system) {
            strbuf_addstr(b, "{\"role\":\"system\",\"content\":");
            escape_json_n(b, req->system, strlen(req->system));
            strbuf_addstr(b, "},");
        }
        strbuf_addstr(b, "{\"role\":\"user\",\"content\":");
        escape_json_n(b, user, ulen);
        strbuf_addstr(b, "}]");
    }
    strbuf_addf(b, ",\"temperature\":%.6g,\"top_p\":%.6g", c->cfg.temperature, c->cfg.top_p);
    if (c->cfg.send_seed)
        strbuf_addf(b, ",\"seed\":%ld", c->cfg.seed);
    strbuf_addf(b, ",\"%s\":%ld,\"n\":1,\"stream\":false", c->mt_field, mt);
    if (c->reasoning_effort) {
        strbuf_addstr(b, ",\"reasoning_effort\":");
        escape_json_n(b, c->reasoning_effort, strlen(c->reasoning_effort));
    }
    if (c->extra_members) {
        strbuf_addch(b, ',');
        strbuf_addstr(b, c->extra_members);
    }
    if (hints)
        add_hints(req->hints, c->extra_hints, b);
    strbuf_addch(b, '}');
}

int client_extra_body_check(const char *json, struct strbuf *out, struct strbuf *err)
{
    static const char *const own[] = {
        "model",
        "messages",
        "prompt",
        "temperature",
        "top_p",
        "seed",
        "n",
        "stream",
        "max_tokens",
        "max_completion_tokens",
        "reasoning_effort",
        NULL,
    };
    struct json *o = json_parse_str(json);
    const struct json *it;
    size_t i;
    if (json_kind(o) != JSON_OBJECT) {
        strbuf_addstr(err, "--extra-body must be a JSON object, e.g. "
                           "'{\"chat_template_kwargs\": {\"enable_thinking\": false}}'");
        json_free(o);
        return -1;
    }
    for (it = json_first(o); it; it = json_next(it)) {
        for (i = 0; own[i]; i++)
            if (!strcmp(json_key(it), own[i])) {
                strbuf_addf(err,
                            "--extra-body must not set \"%s\": dipmap sets it (use its own "
                            "option)",
                            own[i]);
                json_free(o);
                return -1;
            }
    }
    json_print(out, o, 0);
    json_free(o);
    return 0;
}

void client_request_sha256(struct client *c, const struct client_request *req,
                           char hex[SHA256_HEX_LEN + 1])
{
    struct strbuf b = STRBUF_INIT;
    build_body(c, req, 0, &b);
    sha256_hex(b.buf, b.len, hex);
    strbuf_release(&b);
}

static int pick_endpoint(struct client *c)
{
    size_t best = c->rr % c->nr_ep;
    for (size_t k = 1; k < c->nr_ep; k++) {
        size_t i = (c->rr + k) % c->nr_ep;
        if (c->ep[i].inflight < c->ep[best].inflight)
            best = i;
    }
    c->rr = best + 1;
    return (int)best;
}

int client_submit(struct client *c, const struct client_request *req, struct strbuf *err)
{
    struct xfer *x = c->free_xfers;
    CURLMcode mc;
    if (x) {
        c->free_xfers = x->next_free;
        curl_easy_reset(x->easy);
        strbuf_reset(&x->body);
        strbuf_reset(&x->resp);
        strbuf_reset(&x->hdrs);
    } else {
        x = xcalloc(1, sizeof(*x));
        strbuf_init(&x->body, 0);
        strbuf_init(&x->resp, 0);
        strbuf_init(&x->hdrs, 0);
        x->easy = curl_easy_init();
        if (!x->easy) {
            xfer_destroy(x);
            strbuf_addstr(err, "curl_easy_init failed");
            return -1;
        }
    }
    strbuf_set_cap(&x->resp, c->cfg.max_response_bytes);
    strbuf_set_cap(&x->hdrs, MAX_HEADER_BYTES);
    x->c = c;
    x->too_large = 0;
    x->tag = req->tag;
    x->expected = req->expected_prompt_tokens;
    x->context = req->context_tokens;
    x->endpoint = req->hints && req->hints->endpoint >= 0 && (size_t)req->hints->endpoint < c->nr_ep
                      ? req->hints->endpoint
                      : pick_endpoint(c);
    x->errbuf[0] = '\0';
    build_body(c, req, 1, &x->body);
    /* the request's hash leaves the hints out (client_request_sha256) */
    if (req->hints)
        client_request_sha256(c, req, x->sha);
    else
        sha256_hex(x->body.buf, x->body.len, x->sha);
    x->mt_field = c->mt_field;

    setup_common(c, x->easy);
    curl_easy_setopt(x->easy, CURLOPT_URL, c->ep[x->endpoint].gen_url);
    curl_easy_setopt(x->easy, CURLOPT_HTTPHEADER, c->hdrs);
    curl_easy_setopt(x->easy, CURLOPT_POST, 1L);
    curl_easy_setopt(x->easy, CURLOPT_POSTFIELDS, x->body.buf);
    curl_easy_setopt(x->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)x->body.len);
    curl_easy_setopt(x->easy, CURLOPT_WRITEFUNCTION, write_cb);
    curl_easy_setopt(x->easy, CURLOPT_WRITEDATA, x);
    curl_easy_setopt(x->easy, CURLOPT_HEADERFUNCTION, header_cb);
    curl_easy_setopt(x->easy, CURLOPT_HEADERDATA, &x->hdrs);
    curl_easy_setopt(x->easy, CURLOPT_ERRORBUFFER, x->errbuf);
    curl_easy_setopt(x->easy, CURLOPT_PRIVATE, x);
    x->start_ms = client_now_ms();
    mc = curl_multi_add_handle(c->multi, x->easy);
    if (mc != CURLM_OK) {
        strbuf_addf(err, "curl_multi_add_handle: %s", curl_multi_strerror(mc));
        x->next_free = c->free_xfers;
        c->free_xfers = x;
        return -1;
    }
    c->ep[x->endpoint].inflight++;
    c->inflight++;
    x->prev = NULL;
    x->next = c->active;
    if (c->active)
        c->active->prev = x;
    c->active = x;
    return 0;
}

/* Replace every occurrence of the API key in s (defence in depth: servers echo input). */
static void redact_key(const struct client *c, char **s)
{
    struct strbuf out = STRBUF_INIT;
    size_t klen;
    const char *p, *hit;
    if (!c->key || !*s || (klen = strlen(c->key)) < 4 || !strstr(*s, c->key))
        return;
    p = *s;
    while ((hit = strstr(p, c->key))) {
        strbuf_add(&out, p, (size_t)(hit - p));
        strbuf_addstr(&out, "<redacted>");
        p = hit + klen;
    }
    strbuf_addstr(&out, p);
    free(*s);
    *s = strbuf_detach(&out, NULL);
}

/*
 * The one rule for an answer budget a server refuses (the overhead probe and
 * the trials), given the field the request sent: a 400 saying the field is
 * not supported switches to the other field when the auto rule chose it
 * (OpenAI's reasoning models behind a plain /v1 URL want
 * max_completion_tokens; requests already in flight with the old field are
 * simply sent again); one saying the value is too small raises *budget to
 * the stated minimum (16 when none is stated), when the caller may change it
 * (budget non-NULL: the probe, never a trial's answer budget). Returns 1 when
 * the request should be sent again, else 0.
 */
static int budget_refused(struct client *c, const char *sent, long status, const char *body,
                          size_t len, long *budget)
{
    long min = 0;
    switch (client_budget_verdict(status, body, len, sent, &min)) {
    case CLIENT_BUDGET_FIELD:
        if (strcmp(sent, c->mt_field))
            return 1; /* switched meanwhile */
        if (!c->mt_auto)
            return 0;
        c->mt_field = strcmp(sent, "max_tokens") ? "max_tokens" : "max_completion_tokens";
        c->mt_auto = 0; /* switched once: a second refusal is the server's last word */
        return 1;
    case CLIENT_BUDGET_TOO_SMALL:
        if (!budget)
            return 0;
        if (min <= *budget)
            min = *budget < 16 ? 16 : 0;
        if (min <= *budget || min > 4096)
            return 0;
        *budget = min;
        return 1;
    case CLIENT_BUDGET_OK:
        break;
    }
    return 0;
}

static void classify_transport(struct xfer *x, CURLcode rc, struct client_response *r)
{
    const char *detail = x->errbuf[0] ? x->errbuf : curl_easy_strerror(rc);
    r->cls = CLIENT_RETRYABLE;
    r->curl_code = (int)rc;
    if (x->too_large || rc == CURLE_FILESIZE_EXCEEDED) {
        r->reason = CLIENT_R_TOO_LARGE;
        client_set_error(r, "response bigger than the %zu-byte cap", x->c->cfg.max_response_bytes);
        return;
    }
    switch (rc) {
    case CURLE_OPERATION_TIMEDOUT:
        r->reason = CLIENT_R_TIMEOUT;
        break;
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
        r->reason = CLIENT_R_CONNECT;
        break;
    default:
        r->reason = CLIENT_R_TRANSPORT;
    }
    client_set_error(r, "%s (curl %d)", detail, (int)rc);
}

static void finish_xfer(struct client *c, struct xfer *x, CURLcode rc)
{
    struct client_response *r = xmalloc(sizeof(*r));
    long status = 0;
    client_response_init(r);
    r->tag = x->tag;
    r->endpoint = x->endpoint;
    curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
    if (rc == CURLE_OK) {
        struct client_exchange ex;
        memset(&ex, 0, sizeof(ex));
        ex.status = status;
        ex.headers = x->hdrs.buf;
        ex.body = x->resp.buf;
        ex.body_len = x->resp.len;
        ex.legacy = c->cfg.legacy_completions;
        ex.expected_prompt_tokens = x->expected;
        ex.context_tokens = x->context;
        ex.truncation_ratio = c->cfg.truncation_ratio;
        ex.reasoning_open = c->reasoning_open;
        ex.reasoning_close = c->reasoning_close;
        ex.now = time(NULL);
        client_classify(&ex, r);
        if (r->cls == CLIENT_FATAL &&
            budget_refused(c, x->mt_field, status, x->resp.buf, x->resp.len, NULL)) {
            /* sent again with the field the server asked for (the next body has it) */
            r->cls = CLIENT_RETRYABLE;
            r->reason = CLIENT_R_HTTP_RETRYABLE;
        }
    } else {
        r->http_status = status;
        r->expected_prompt_tokens = x->expected > 0 ? x->expected : -1;
        r->response_bytes = x->resp.len;
        classify_transport(x, rc, r);
    }
    r->curl_code = (int)rc;
    memcpy(r->request_sha256, x->sha, sizeof(r->request_sha256));
    r->latency_ms = client_now_ms() - x->start_ms;
    redact_key(c, &r->error);
    redact_key(c, &r->content);
    redact_key(c, &r->reasoning);
    ALLOC_GROW(c->ready, c->ready_nr + 1, c->ready_alloc);
    c->ready[c->ready_nr++] = r;
    c->ep[x->endpoint].inflight--;
    c->inflight--;
    curl_multi_remove_handle(c->multi, x->easy);
    if (x->prev)
        x->prev->next = x->next;
    else
        c->active = x->next;
    if (x->next)
        x->next->prev = x->prev;
    /* keep the buffers' memory small between requests: big prompts come and go */
    if (x->body.alloc > (1u << 20))
        strbuf_release(&x->body);
    if (x->resp.alloc > (1u << 20))
        strbuf_release(&x->resp);
    x->next_free = c->free_xfers;
    c->free_xfers = x;
}

static void drain(struct client *c)
{
    CURLMsg *m;
    int left;
    while ((m = curl_multi_info_read(c->multi, &left))) {
        struct xfer *x = NULL;
        if (m->msg != CURLMSG_DONE)
            continue;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&x);
        if (x)
            finish_xfer(c, x, m->data.result);
    }
}

static size_t ready_count(const struct client *c)
{
    return c->ready_nr - c->ready_head;
}

int client_poll(struct client *c, int timeout_ms, struct strbuf *err)
{
    int running = 0;
    CURLMcode mc = curl_multi_perform(c->multi, &running);
    if (mc != CURLM_OK)
        goto fail;
    drain(c);
    if (!ready_count(c) && timeout_ms > 0 && c->inflight) {
        mc = curl_multi_poll(c->multi, NULL, 0, timeout_ms, NULL);
        if (mc != CURLM_OK)
            goto fail;
        mc = curl_multi_perform(c->multi, &running);
        if (mc != CURLM_OK)
            goto fail;
        drain(c);
    }
    return (int)ready_count(c);
fail:
    strbuf_addf(err, "curl multi: %s", curl_multi_strerror(mc));
    return -1;
}

struct client_response *client_take(struct client *c)
{
    struct client_response *r;
    if (!ready_count(c))
        return NULL;
    r = c->ready[c->ready_head++];
    if (c->ready_head == c->ready_nr)
        c->ready_head = c->ready_nr = 0;
    return r;
}

size_t client_inflight(const struct client *c)
{
    return c->inflight + ready_count(c);
}

size_t client_endpoint_inflight(const struct client *c, int endpoint)
{
    if (endpoint < 0 || (size_t)endpoint >= c->nr_ep)
        return 0;
    return c->ep[endpoint].inflight;
}

size_t client_endpoint_count(const struct client *c)
{
    return c->nr_ep;
}

void client_limit_host_connections(struct client *c, long n)
{
    curl_multi_setopt(c->multi, CURLMOPT_MAX_HOST_CONNECTIONS, n);
}

void client_close_idle(struct client *c)
{
    pthread_mutex_lock(&c->sync_lock);
    if (c->sync)
        curl_easy_cleanup(c->sync);
    c->sync = NULL;
    pthread_mutex_unlock(&c->sync_lock);
}

const char *client_endpoint_url(const struct client *c, int endpoint)
{
    if (endpoint < 0 || (size_t)endpoint >= c->nr_ep)
        return NULL;
    return c->ep[endpoint].root;
}

void client_wakeup(struct client *c)
{
    if (c && c->multi)
        curl_multi_wakeup(c->multi);
}

/* ------------------------------------------------------- blocking helpers */

/*
 * One blocking request on the sync handle. body NULL = GET. Returns 0 when an
 * HTTP response arrived (*status set, resp filled), -1 on transport failure
 * (message in err).
 */
static int http_perform(struct client *c, CURL **hp, const char *url, const char *body,
                        size_t body_len, long *status, struct strbuf *resp, struct strbuf *err);

static int http_sync(struct client *c, const char *url, const char *body, size_t body_len,
                     long *status, struct strbuf *resp, struct strbuf *err)
{
    return http_perform(c, &c->sync, url, body, body_len, status, resp, err);
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
    setup_common(c, h);
    curl_easy_setopt(h, CURLOPT_URL, url);
    if (body) {
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, c->hdrs);
        curl_easy_setopt(h, CURLOPT_POST, 1L);
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
    } else {
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, c->get_hdrs);
        curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    }
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, write_cb);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &x);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, header_cb);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &x.hdrs);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, x.errbuf);
    rc = curl_easy_perform(h);
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
    return 0;
}

static void add_error_of(struct strbuf *err, const struct strbuf *resp, long status)
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
    if (!http_sync(c, url.buf, NULL, 0, &status, &resp, &err) && status == 200) {
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
        if (http_sync(c, url.buf, NULL, 0, &status, &resp, err)) {
            strbuf_release(&url);
            strbuf_release(&resp);
            *reason = CLIENT_R_CONNECT;
            return CLIENT_RETRYABLE;
        }
        if (status == 401 || status == 403) {
            strbuf_addf(err, "%s refused the API key: ", url.buf);
            add_error_of(err, &resp, status);
            strbuf_release(&url);
            strbuf_release(&resp);
            *reason = CLIENT_R_AUTH;
            return CLIENT_FATAL;
        }
        if (status >= 500) {
            strbuf_addf(err, "%s: ", url.buf);
            add_error_of(err, &resp, status);
            strbuf_release(&url);
            strbuf_release(&resp);
            *reason = CLIENT_R_SERVER_ERROR;
            return CLIENT_RETRYABLE;
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
                if (!strcmp(id, c->model) && !found) {
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
            } else if (listed) {
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
    struct strbuf url = STRBUF_INIT, body = STRBUF_INIT, resp = STRBUF_INIT;
    long status = 0;
    int ret = 1;
    struct json *root = NULL;
    strbuf_addf(&url, "%s/tokenize", c->ep[0].root);
    if (kind == 1) {
        strbuf_addstr(&body, "{\"model\":");
        escape_json_n(&body, c->model, strlen(c->model));
        strbuf_addstr(&body, ",\"add_special_tokens\":false,\"prompt\":");
    } else {
        strbuf_addstr(&body, "{\"add_special\":false,\"content\":");
    }
    escape_json_n(&body, text, len);
    strbuf_addch(&body, '}');
    if (http_perform(c, hp, url.buf, body.buf, body.len, &status, &resp, err)) {
        ret = -1;
        goto out;
    }
    if (status == 404 || status == 405) {
        strbuf_addf(err,
                    "%s: HTTP %ld: the server has no /tokenize endpoint (use a local --tokenizer)",
                    url.buf, status);
        ret = -2;
        goto out;
    }
    if (status != 200) {
        /* the other shape may work; keep the message in case it does not */
        strbuf_addf(err, "%s: ", url.buf);
        add_error_of(err, &resp, status);
        ret = status >= 500 ? -1 : 1;
        goto out;
    }
    root = json_parse(resp.buf, resp.len, NULL);
    {
        const struct json *cnt = json_get(root, "count");
        const struct json *toks = json_get(root, "tokens");
        if (json_kind(cnt) == JSON_NUMBER && json_num(cnt, 0) >= 0) {
            *count = (long)json_num(cnt, 0);
            ret = 0;
        } else if (json_kind(toks) == JSON_ARRAY) {
            *count = (long)json_size(toks);
            /* llama.cpp ignores {"prompt"} and answers [] — not an answer */
            ret = (*count == 0 && len > 0 && kind == 1) ? 1 : 0;
        } else {
            strbuf_addf(err, "%s: unexpected /tokenize answer", url.buf);
        }
    }
out:
    json_free(root);
    strbuf_release(&url);
    strbuf_release(&body);
    strbuf_release(&resp);
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

/* ------------------------------------------------------ template overhead */

static void add_messages_json(struct strbuf *b, const char *system, const char *user)
{
    strbuf_addstr(b, "\"messages\":[");
    if (system && *system) {
        strbuf_addstr(b, "{\"role\":\"system\",\"content\":");
        escape_json_n(b, system, strlen(system));
        strbuf_addstr(b, "},");
    }
    strbuf_addstr(b, "{\"role\":\"user\",\"content\":");
    escape_json_n(b, user, strlen(user));
    strbuf_addstr(b, "}]");
}

/* POST url body; 0 with the parsed JSON object in *root (caller frees), else -1 (err). */
static int post_json(struct client *c, const char *url, const struct strbuf *body,
                     struct json **root, struct strbuf *err)
{
    struct strbuf resp = STRBUF_INIT;
    long status = 0;
    int ret = -1;
    *root = NULL;
    if (http_sync(c, url, body->buf, body->len, &status, &resp, err))
        goto out;
    if (status != 200) {
        strbuf_addf(err, "%s: ", url);
        add_error_of(err, &resp, status);
        goto out;
    }
    *root = json_parse(resp.buf, resp.len, NULL);
    if (json_kind(*root) != JSON_OBJECT) {
        strbuf_addf(err, "%s: the answer is not a JSON object", url);
        json_free(*root);
        *root = NULL;
        goto out;
    }
    ret = 0;
out:
    strbuf_release(&resp);
    return ret;
}

static int count_vllm(struct client *c, const char *system, const char *user, int chat, long *count,
                      struct strbuf *err)
{
    struct strbuf url = STRBUF_INIT, body = STRBUF_INIT;
    struct json *root = NULL;
    const struct json *n;
    int ret = -1;
    strbuf_addf(&url, "%s/tokenize", c->ep[0].root);
    strbuf_addstr(&body, "{\"model\":");
    escape_json_n(&body, c->model, strlen(c->model));
    if (chat) {
        strbuf_addstr(&body, ",\"add_generation_prompt\":true,");
        add_messages_json(&body, system, user);
    } else {
        strbuf_addstr(&body, ",\"add_special_tokens\":true,\"prompt\":");
        escape_json_n(&body, user, strlen(user));
    }
    strbuf_addch(&body, '}');
    if (post_json(c, url.buf, &body, &root, err) == 0) {
        n = json_get(root, "count");
        if (json_kind(n) == JSON_NUMBER && json_num(n, 0) >= 0) {
            *count = (long)json_num(n, 0);
            ret = 0;
        } else {
            strbuf_addf(err, "%s: no \"count\" in the answer", url.buf);
        }
    }
    json_free(root);
    strbuf_release(&url);
    strbuf_release(&body);
    return ret;
}

static int count_llamacpp(struct client *c, const char *system, const char *user, int chat,
                          long *count, struct strbuf *err)
{
    struct strbuf url = STRBUF_INIT, body = STRBUF_INIT;
    struct json *root = NULL;
    const struct json *v;
    int ret = -1;
    const char *text = user;
    char *rendered = NULL;
    if (chat) {
        strbuf_addf(&url, "%s/apply-template", c->ep[0].root);
        strbuf_addch(&body, '{');
        add_messages_json(&body, system, user);
        strbuf_addch(&body, '}');
        if (post_json(c, url.buf, &body, &root, err) < 0)
            goto out;
        v = json_get(root, "prompt");
        if (json_kind(v) != JSON_STRING) {
            strbuf_addf(err, "%s: no \"prompt\" in the answer", url.buf);
            goto out;
        }
        rendered = xstrdup(json_str(v));
        text = rendered;
        json_free(root);
        root = NULL;
    }
    strbuf_reset(&url);
    strbuf_reset(&body);
    strbuf_addf(&url, "%s/tokenize", c->ep[0].root);
    /* as llama-server tokenizes a prompt: special tokens added and parsed */
    strbuf_addstr(&body, "{\"add_special\":true,\"parse_special\":true,\"content\":");
    escape_json_n(&body, text, strlen(text));
    strbuf_addch(&body, '}');
    if (post_json(c, url.buf, &body, &root, err) < 0)
        goto out;
    v = json_get(root, "tokens");
    if (json_kind(v) != JSON_ARRAY) {
        strbuf_addf(err, "%s: no \"tokens\" in the answer", url.buf);
        goto out;
    }
    *count = (long)json_size(v);
    ret = 0;
out:
    free(rendered);
    json_free(root);
    strbuf_release(&url);
    strbuf_release(&body);
    return ret;
}

/*
 * A probe request (max tokens 1, the trials' budget field) read for
 * usage.prompt_tokens; a budget the server refuses is corrected once each
 * way (budget_refused(): the other field, a larger budget).
 */
static int count_probe(struct client *c, const char *system, const char *user, int chat,
                       long *count, struct strbuf *err)
{
    struct strbuf url = STRBUF_INIT, body = STRBUF_INIT, resp = STRBUF_INIT;
    struct json *root = NULL;
    const struct json *n;
    long status = 0, budget = 1;
    int ret = -1, attempt;
    strbuf_addf(&url, "%s/v1/%s", c->ep[0].root, chat ? "chat/completions" : "completions");
    for (attempt = 0; attempt < 3; attempt++) {
        const char *field = c->mt_field;
        strbuf_reset(&body);
        strbuf_reset(&resp);
        strbuf_addstr(&body, "{\"model\":");
        escape_json_n(&body, c->model, strlen(c->model));
        strbuf_addf(&body, ",\"%s\":%ld,\"temperature\":0,", field, budget);
        if (chat) {
            add_messages_json(&body, system, user);
        } else {
            strbuf_addstr(&body, "\"prompt\":");
            escape_json_n(&body, user, strlen(user));
        }
        strbuf_addch(&body, '}');
        if (http_sync(c, url.buf, body.buf, body.len, &status, &resp, err))
            goto out;
        if (status == 200 || !budget_refused(c, field, status, resp.buf, resp.len, &budget))
            break;
    }
    if (status != 200) {
        strbuf_addf(err, "%s: ", url.buf);
        add_error_of(err, &resp, status);
        goto out;
    }
    root = json_parse(resp.buf, resp.len, NULL);
    n = json_get(json_get(root, "usage"), "prompt_tokens");
    if (json_kind(n) == JSON_NUMBER && json_num(n, 0) > 0) {
        *count = (long)json_num(n, 0);
        ret = 0;
    } else {
        strbuf_addf(err, "%s: the answer has no usage.prompt_tokens", url.buf);
    }
out:
    json_free(root);
    strbuf_release(&url);
    strbuf_release(&body);
    strbuf_release(&resp);
    return ret;
}

int client_count_request(struct client *c, const char *system, const char *user, int chat,
                         long *count, enum client_count_method *method, struct strbuf *err)
{
    struct strbuf e = STRBUF_INIT;
    int r;
    pthread_mutex_lock(&c->sync_lock);
    r = count_vllm(c, system, user, chat, count, &e);
    if (!r) {
        *method = CLIENT_COUNT_VLLM_TOKENIZE;
    } else {
        strbuf_reset(&e);
        r = count_llamacpp(c, system, user, chat, count, &e);
        if (!r) {
            *method = CLIENT_COUNT_LLAMACPP_TEMPLATE;
        } else {
            strbuf_reset(&e);
            r = count_probe(c, system, user, chat, count, &e);
            if (!r)
                *method = CLIENT_COUNT_PROBE;
            else
                strbuf_add(err, e.buf, e.len);
        }
    }
    pthread_mutex_unlock(&c->sync_lock);
    strbuf_release(&e);
    return r;
}

const char *client_count_method_name(enum client_count_method m)
{
    switch (m) {
    case CLIENT_COUNT_VLLM_TOKENIZE:
        return "vllm-tokenize";
    case CLIENT_COUNT_LLAMACPP_TEMPLATE:
        return "llamacpp-apply-template";
    case CLIENT_COUNT_PROBE:
        return "probe";
    case CLIENT_COUNT_GIVEN:
        return "given";
    }
    return "?";
}

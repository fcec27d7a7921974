/*
 * OpenAI-compatible HTTP client: endpoint configuration and libcurl multi
 * transfers for one event loop. The blocking preflight and /tokenize calls
 * are client_sync.c, a request's server-side count client_count.c, the
 * request bodies client_body.c (all behind client-int.h, the only header with <curl/curl.h>).
 * Classification of a finished exchange is client_classify.c, Retry-After parsing
 * client_retry_after.c; the retry policy (backoff, AIMD, token buckets) is the
 * runner's (throttle.c).
 */
#include "client/client.h"

#include <stdlib.h>
#include <string.h>

#include "client/client-int.h"
#include "base/json.h"
#include "base/secret.h"
#include "base/xalloc.h"
#include "base/utc.h"

#include "base/banned.h"

/* ----------------------------------------------------------------- config */

void client_config_init(struct client_config *cfg)
{
    *cfg = (struct client_config)CLIENT_CONFIG_INIT;
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

/* ------------------------------------------------------- the multi client */

/*
 * curl_global_init is not thread-safe and must run once per process: pthread_once makes
 * two clients created on two threads at the same time safe (a plain flag was a race).
 */
static pthread_once_t global_init_once = PTHREAD_ONCE_INIT;
static CURLcode global_init_rc;

static void global_init(void)
{
    global_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

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

size_t client_write_cb(char *ptr, size_t size, size_t nmemb, void *ud)
{
    struct xfer *x = ud;
    size_t n = size * nmemb;
    if (strbuf_add_capped(&x->resp, ptr, n)) {
        x->too_large = 1;
        return 0;
    }
    return n;
}

size_t client_header_cb(char *ptr, size_t size, size_t nmemb, void *ud)
{
    struct strbuf *h = ud;
    size_t n = size * nmemb;
    /* a new status line (100 Continue, redirects): keep only the last block */
    if (n >= 5 && !memcmp(ptr, "HTTP/", 5))
        strbuf_reset(h);
    if (strbuf_add_capped(h, ptr, n) < 0)
        return n; /* dropped past the cap; the headers read so far stay */
    return n;
}

void client_setup_common(struct client *c, CURL *e)
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
    pthread_once(&global_init_once, global_init);
    if (global_init_rc != CURLE_OK) {
        strbuf_addstr(err, "curl_global_init failed");
        return NULL;
    }
    c = xcalloc(1, sizeof(*c));
    pthread_mutex_init(&c->sync_lock, NULL);
    pthread_mutex_init(&c->tok_lock, NULL);
    pthread_mutex_init(&c->auth_lock, NULL);
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
    pthread_mutex_destroy(&c->auth_lock);
    free(c->auth_url);
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
    client_body_build(c, req, 1, &x->body);
    /* the request's hash leaves the hints out (client_request_sha256) */
    if (req->hints)
        client_request_sha256(c, req, x->sha);
    else
        sha256_hex(x->body.buf, x->body.len, x->sha);
    x->mt_field = c->mt_field;

    client_setup_common(c, x->easy);
    curl_easy_setopt(x->easy, CURLOPT_URL, c->ep[x->endpoint].gen_url);
    curl_easy_setopt(x->easy, CURLOPT_HTTPHEADER, c->hdrs);
    curl_easy_setopt(x->easy, CURLOPT_POST, 1L);
    curl_easy_setopt(x->easy, CURLOPT_POSTFIELDS, x->body.buf);
    curl_easy_setopt(x->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)x->body.len);
    curl_easy_setopt(x->easy, CURLOPT_WRITEFUNCTION, client_write_cb);
    curl_easy_setopt(x->easy, CURLOPT_WRITEDATA, x);
    curl_easy_setopt(x->easy, CURLOPT_HEADERFUNCTION, client_header_cb);
    curl_easy_setopt(x->easy, CURLOPT_HEADERDATA, &x->hdrs);
    curl_easy_setopt(x->easy, CURLOPT_ERRORBUFFER, x->errbuf);
    curl_easy_setopt(x->easy, CURLOPT_PRIVATE, x);
    x->start_ms = utc_monotonic_ms();
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
void client_redact_key(const struct client *c, char **s)
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
int client_budget_refused(struct client *c, const char *sent, long status, const char *body,
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

void client_classify_answer(struct client *c, long status, const char *headers, const char *body,
                            size_t len, long expected, long context, struct client_response *r)
{
    struct client_exchange ex;
    memset(&ex, 0, sizeof(ex));
    ex.status = status;
    ex.headers = headers;
    ex.body = body;
    ex.body_len = len;
    ex.legacy = c->cfg.legacy_completions;
    ex.expected_prompt_tokens = expected;
    ex.context_tokens = context;
    ex.truncation_ratio = c->cfg.truncation_ratio;
    ex.reasoning_open = c->reasoning_open;
    ex.reasoning_close = c->reasoning_close;
    ex.now = time(NULL);
    client_classify(&ex, r);
    client_redact_key(c, &r->error);
    client_redact_key(c, &r->content);
    client_redact_key(c, &r->reasoning);
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
        client_classify_answer(c, status, x->hdrs.buf, x->resp.buf, x->resp.len, x->expected,
                               x->context, r);
        if (r->cls == CLIENT_FATAL &&
            client_budget_refused(c, x->mt_field, status, x->resp.buf, x->resp.len, NULL)) {
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
    r->latency_ms = utc_monotonic_ms() - x->start_ms;
    client_redact_key(c, &r->error);
    client_redact_key(c, &r->content);
    client_redact_key(c, &r->reasoning);
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

void client_library_version(struct strbuf *out)
{
    const curl_version_info_data *v = curl_version_info(CURLVERSION_NOW);
    strbuf_addf(out, "libcurl %s", v && v->version ? v->version : "unknown");
    if (v && v->ssl_version)
        strbuf_addf(out, " (%s)", v->ssl_version);
}

/*
 * Counting a whole request as the server does, for the template overhead:
 * vLLM's /tokenize with messages, llama.cpp's /apply-template then
 * /tokenize, or one probe request whose usage says.
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

/* ------------------------------------------------------ template overhead */

/* POST url body; 0 with the parsed JSON object in *root (caller frees), else -1 (err). */
static int post_json(struct client *c, const char *url, const struct strbuf *body,
                     struct json **root, struct strbuf *err)
{
    struct strbuf resp = STRBUF_INIT;
    long status = 0;
    int ret = -1;
    *root = NULL;
    if (client_http_sync(c, url, body->buf, body->len, &status, &resp, err))
        goto out;
    if (status != 200) {
        strbuf_addf(err, "%s: ", url);
        client_add_error_of(err, &resp, status);
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

static int count_vllm(struct client *c, const char *messages, const char *system, const char *user,
                      int chat, long *count, struct strbuf *err)
{
    struct client_sync_req q = CLIENT_SYNC_REQ_INIT;
    const struct json *n;
    int ret = -1;
    strbuf_addf(&q.url, "%s/tokenize", c->ep[0].root);
    client_open_body(c, messages, system, user, strlen(user), chat, &q.body);
    strbuf_addstr(&q.body,
                  chat ? ",\"add_generation_prompt\":true}" : ",\"add_special_tokens\":true}");
    if (post_json(c, q.url.buf, &q.body, &q.root, err) == 0) {
        n = json_get(q.root, "count");
        if (json_kind(n) == JSON_NUMBER && json_num(n, 0) >= 0) {
            *count = (long)json_num(n, 0);
            ret = 0;
        } else {
            strbuf_addf(err, "%s: no \"count\" in the answer", q.url.buf);
        }
    }
    client_sync_req_release(&q);
    return ret;
}

static int count_llamacpp(struct client *c, const char *messages, const char *system,
                          const char *user, int chat, long *count, struct strbuf *err)
{
    struct client_sync_req q = CLIENT_SYNC_REQ_INIT;
    const struct json *v;
    int ret = -1;
    const char *text = user;
    char *rendered = NULL;
    if (chat) {
        strbuf_addf(&q.url, "%s/apply-template", c->ep[0].root);
        client_open_body(c, messages, system, user, strlen(user), 1, &q.body);
        strbuf_addch(&q.body, '}');
        if (post_json(c, q.url.buf, &q.body, &q.root, err) < 0)
            goto out;
        v = json_get(q.root, "prompt");
        if (json_kind(v) != JSON_STRING) {
            strbuf_addf(err, "%s: no \"prompt\" in the answer", q.url.buf);
            goto out;
        }
        rendered = xstrdup(json_str(v));
        text = rendered;
        json_free(q.root);
        q.root = NULL;
    }
    strbuf_reset(&q.url);
    strbuf_reset(&q.body);
    strbuf_addf(&q.url, "%s/tokenize", c->ep[0].root);
    /* as llama-server tokenizes a prompt: special tokens added and parsed */
    strbuf_addstr(&q.body, "{\"add_special\":true,\"parse_special\":true,\"content\":");
    escape_json_n(&q.body, text, strlen(text));
    strbuf_addch(&q.body, '}');
    if (post_json(c, q.url.buf, &q.body, &q.root, err) < 0)
        goto out;
    v = json_get(q.root, "tokens");
    if (json_kind(v) != JSON_ARRAY) {
        strbuf_addf(err, "%s: no \"tokens\" in the answer", q.url.buf);
        goto out;
    }
    *count = (long)json_size(v);
    ret = 0;
out:
    free(rendered);
    client_sync_req_release(&q);
    return ret;
}

/*
 * A probe request (max tokens 1, the trials' budget field) read for
 * usage.prompt_tokens; a budget the server refuses is corrected once each
 * way (client_budget_refused(): the other field, a larger budget).
 */
static int count_probe(struct client *c, const char *messages, const char *system, const char *user,
                       int chat, long *count, struct strbuf *err)
{
    struct client_sync_req q = CLIENT_SYNC_REQ_INIT;
    const struct json *n;
    long status = 0, budget = c->probe_budget > 0 ? c->probe_budget : 1;
    int ret = -1, attempt;
    strbuf_addf(&q.url, "%s/v1/%s", c->ep[0].root, chat ? "chat/completions" : "completions");
    for (attempt = 0; attempt < 3; attempt++) {
        const char *field = c->mt_field;
        strbuf_reset(&q.body);
        strbuf_reset(&q.resp);
        client_open_body(c, messages, system, user, strlen(user), chat, &q.body);
        strbuf_addf(&q.body, ",\"%s\":%ld,\"temperature\":0}", field, budget);
        if (client_http_sync(c, q.url.buf, q.body.buf, q.body.len, &status, &q.resp, err))
            goto out;
        if (status == 200 ||
            !client_budget_refused(c, field, status, q.resp.buf, q.resp.len, &budget))
            break;
    }
    c->probe_budget = budget; /* the next probe starts where this one was answered */
    if (status != 200) {
        strbuf_addf(err, "%s: ", q.url.buf);
        client_add_error_of(err, &q.resp, status);
        goto out;
    }
    q.root = json_parse(q.resp.buf, q.resp.len, NULL);
    n = json_get(json_get(q.root, "usage"), "prompt_tokens");
    if (json_kind(n) == JSON_NUMBER && json_num(n, 0) > 0) {
        *count = (long)json_num(n, 0);
        ret = 0;
    } else {
        strbuf_addf(err, "%s: the answer has no usage.prompt_tokens", q.url.buf);
    }
out:
    client_sync_req_release(&q);
    return ret;
}

static int count_any(struct client *c, const char *messages, const char *system, const char *user,
                     int chat, long *count, enum client_count_method *method, struct strbuf *err)
{
    struct strbuf e = STRBUF_INIT;
    int r;
    pthread_mutex_lock(&c->sync_lock);
    r = count_vllm(c, messages, system, user, chat, count, &e);
    if (!r) {
        *method = CLIENT_COUNT_VLLM_TOKENIZE;
    } else {
        strbuf_reset(&e);
        r = count_llamacpp(c, messages, system, user, chat, count, &e);
        if (!r) {
            *method = CLIENT_COUNT_LLAMACPP_TEMPLATE;
        } else if (c->cfg.no_count_probe) {
            strbuf_addstr(err, "the server has no counting endpoint (/tokenize, /apply-template) "
                               "and counting by a probe request is off");
        } else {
            strbuf_reset(&e);
            r = count_probe(c, messages, system, user, chat, count, &e);
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

int client_count_request(struct client *c, const char *system, const char *user, int chat,
                         long *count, enum client_count_method *method, struct strbuf *err)
{
    return count_any(c, NULL, system, user, chat, count, method, err);
}

int client_count_messages(struct client *c, const char *messages, long *count,
                          enum client_count_method *method, struct strbuf *err)
{
    return count_any(c, messages, NULL, "", 1, count, method, err);
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

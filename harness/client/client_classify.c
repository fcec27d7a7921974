/*
 * Response classification: turns one finished exchange (status, headers,
 * body) into a client_class and reason, with the error message cleaned out of
 * every error-body shape of the OpenAI-compatible servers (OpenAI, vLLM,
 * llama.cpp, TGI, Ollama, LiteLLM, FastAPI: one real body of each in
 * tests/unit/test_client.c, test_error_message). No transfer here.
 */
#include "client/client.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "client/client-int.h"
#include "base/json.h"
#include "base/num.h"
#include "client/reasoning.h"
#include "base/strbuf.h"
#include "base/usage.h"
#include "base/xalloc.h"

#include "base/banned.h"

#define MAX_MESSAGE_BYTES 4096

/* ------------------------------------------------------------------ names */

static const char *const class_names[CLIENT_CLASS__COUNT] = {
    "ok", "overflow", "truncated", "empty", "starved", "filtered", "retryable", "fatal",
};

const char *client_class_name(enum client_class c)
{
    if ((int)c < 0 || c >= CLIENT_CLASS__COUNT)
        return "unknown";
    return class_names[c];
}

static const char *const reason_names[CLIENT_REASON__COUNT] = {
    "none",          "length",
    "prompt-short",  "context-shift",
    "rate-limit",    "server-error",
    "output-parse",  "http-retryable",
    "timeout",       "connect",
    "transport",     "bad-body",
    "error-in-body", "too-large",
    "auth",          "model-not-found",
    "quota",         "unsupported-parameter",
    "bad-request",
};

const char *client_reason_name(enum client_reason r)
{
    if ((int)r < 0 || r >= CLIENT_REASON__COUNT)
        return "unknown";
    return reason_names[r];
}

int client_max_tokens_field_parse(const char *s, enum client_max_tokens_field *out)
{
    if (!s)
        return -1;
    if (!strcmp(s, "auto"))
        *out = CLIENT_MTF_AUTO;
    else if (!strcmp(s, "max_tokens"))
        *out = CLIENT_MTF_MAX_TOKENS;
    else if (!strcmp(s, "max_completion_tokens"))
        *out = CLIENT_MTF_MAX_COMPLETION_TOKENS;
    else
        return -1;
    return 0;
}

/* ------------------------------------------------------- error messages */

/* Append s (len bytes) with control characters replaced, at most max bytes. */
void client_add_clean(struct strbuf *sb, const char *s, size_t len, size_t max)
{
    size_t n = len < max ? len : max;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        strbuf_addch(sb, ch < 0x20 || ch == 0x7f ? ' ' : ch);
    }
    if (len > max)
        strbuf_addstr(sb, "...");
}

/* number or numeric string -> long; -1 when absent/invalid */
long client_obj_long(const struct json *o, const char *key)
{
    const struct json *v = json_get(o, key);
    if (json_kind(v) == JSON_NUMBER && json_num(v, 0) >= 0 && json_num(v, 0) < 9e15)
        return (long)json_num(v, 0);
    if (json_kind(v) == JSON_STRING) {
        long n;
        if (!parse_long(json_str(v), &n) && n >= 0)
            return n;
    }
    return -1;
}

/* Scalar (string/number) as text into out; 0 when something was added. */
static int scalar_text(const struct json *v, struct strbuf *out)
{
    if (json_kind(v) == JSON_STRING && json_str(v)[0]) {
        client_add_clean(out, json_str(v), strlen(json_str(v)), 200);
        return 0;
    }
    if (json_kind(v) == JSON_NUMBER) {
        strbuf_addf(out, "%.0f", json_num(v, 0));
        return 0;
    }
    return -1;
}

struct err_info {
    struct strbuf msg;
    struct strbuf code; /* error.code as text */
    struct strbuf type; /* error.type / error_type */
    /* lower-case copies for pattern tests, made once by err_lower() */
    struct strbuf lmsg, lcode, ltype;
    int lowered;
};

static void err_info_init(struct err_info *e)
{
    strbuf_init(&e->msg, 0);
    strbuf_init(&e->code, 0);
    strbuf_init(&e->type, 0);
    strbuf_init(&e->lmsg, 0);
    strbuf_init(&e->lcode, 0);
    strbuf_init(&e->ltype, 0);
    e->lowered = 0;
}

static void err_info_release(struct err_info *e)
{
    strbuf_release(&e->msg);
    strbuf_release(&e->code);
    strbuf_release(&e->type);
    strbuf_release(&e->lmsg);
    strbuf_release(&e->lcode);
    strbuf_release(&e->ltype);
}

static void lower_into(struct strbuf *dst, const struct strbuf *src)
{
    strbuf_reset(dst);
    strbuf_grow(dst, src->len);
    for (size_t i = 0; i < src->len; i++)
        dst->buf[i] = (char)tolower((unsigned char)src->buf[i]);
    strbuf_setlen(dst, src->len);
}

static void err_lower(struct err_info *e)
{
    if (e->lowered)
        return;
    lower_into(&e->lmsg, &e->msg);
    lower_into(&e->lcode, &e->code);
    lower_into(&e->ltype, &e->type);
    e->lowered = 1;
}

/* needle (lower case) in an already lower-cased haystack */
static int has(const struct strbuf *lower_hay, const char *needle)
{
    return lower_hay->len && strstr(lower_hay->buf, needle) != NULL;
}

static void add_msg_value(struct strbuf *msg, const struct json *m)
{
    if (json_kind(m) == JSON_STRING)
        client_add_clean(msg, json_str(m), strlen(json_str(m)), MAX_MESSAGE_BYTES);
    else if (json_kind(m) == JSON_ARRAY) {
        /* FastAPI validation: [{"loc":[...],"msg":"...","type":"..."}] */
        const struct json *it;
        int first = 1;
        for (it = json_first(m); it; it = json_next(it)) {
            const char *s = json_get_str(it, "msg");
            if (!s)
                s = json_kind(it) == JSON_STRING ? json_str(it) : NULL;
            if (!s)
                continue;
            if (!first)
                strbuf_addstr(msg, "; ");
            client_add_clean(msg, s, strlen(s), MAX_MESSAGE_BYTES);
            first = 0;
            if (msg->len > MAX_MESSAGE_BYTES)
                break;
        }
    } else if (json_kind(m) == JSON_OBJECT) {
        const char *s = json_get_str(m, "message");
        if (!s)
            s = json_get_str(m, "msg");
        if (s)
            client_add_clean(msg, s, strlen(s), MAX_MESSAGE_BYTES);
    }
}

/*
 * Extract message/code/type from a parsed JSON body (any shape). Returns 0
 * when the body looked like an error (had a message or code), -1 otherwise.
 */
static int extract_error(const struct json *root, struct err_info *e)
{
    const struct json *err = json_get(root, "error");
    const struct json *holder = NULL;
    if (json_kind(err) == JSON_OBJECT) {
        holder = err;
    } else if (json_kind(err) == JSON_STRING) {
        /* Ollama native / TGI: {"error":"...","error_type":"validation"} */
        client_add_clean(&e->msg, json_str(err), strlen(json_str(err)), MAX_MESSAGE_BYTES);
        scalar_text(json_get(root, "error_type"), &e->type);
        scalar_text(json_get(root, "code"), &e->code);
        return 0;
    } else if (json_kind(root) == JSON_OBJECT &&
               (json_get(root, "message") || json_get(root, "detail") || json_get(root, "msg"))) {
        /* {"object":"error","message":...,"code":400}, {"message":...}, {"detail":...} */
        holder = root;
    }
    if (!holder)
        return -1;
    {
        const struct json *m = json_get(holder, "message");
        if (!m)
            m = json_get(holder, "detail");
        if (!m)
            m = json_get(holder, "msg");
        add_msg_value(&e->msg, m);
    }
    scalar_text(json_get(holder, "code"), &e->code);
    if (scalar_text(json_get(holder, "type"), &e->type))
        scalar_text(json_get(holder, "error_type"), &e->type);
    /* {"error": {"message": "...", "metadata": {"raw": "..."}}}: keep the outer message */
    return e->msg.len || e->code.len || e->type.len ? 0 : -1;
}

static void add_raw_body(struct strbuf *msg, const char *body, size_t len)
{
    size_t i = 0;
    while (i < len && isspace((unsigned char)body[i]))
        i++;
    client_add_clean(msg, body + i, len - i, MAX_MESSAGE_BYTES);
    strbuf_rtrim(msg);
}

int client_body_is_html(const char *body, size_t len)
{
    size_t i = 0;
    if (!body)
        return 0;
    if (len >= 3 && !memcmp(body, "\xef\xbb\xbf", 3))
        i = 3; /* a byte-order mark */
    while (i < len && isspace((unsigned char)body[i]))
        i++;
    /* "<!DOCTYPE html", "<html", "<head>", "<!-- ... -->", "<?xml ...><html": a page, not JSON */
    return i + 1 < len && body[i] == '<' &&
           (isalpha((unsigned char)body[i + 1]) || body[i + 1] == '!' || body[i + 1] == '?');
}

int client_error_message(const char *body, size_t len, struct strbuf *msg, struct strbuf *code)
{
    struct json *root = body && len ? json_parse(body, len, NULL) : NULL;
    struct err_info e;
    int ret = -1;
    err_info_init(&e);
    if (root && !extract_error(root, &e)) {
        if (e.msg.len)
            strbuf_add(msg, e.msg.buf, e.msg.len);
        else
            strbuf_add(msg, e.code.len ? e.code.buf : e.type.buf,
                       e.code.len ? e.code.len : e.type.len);
        if (code) {
            /* a numeric code (vLLM/llama.cpp: the HTTP status) says less than the type */
            int numeric = e.code.len && isdigit((unsigned char)e.code.buf[0]);
            if (e.code.len && !(numeric && e.type.len))
                strbuf_add(code, e.code.buf, e.code.len);
            else if (e.type.len)
                strbuf_add(code, e.type.buf, e.type.len);
        }
        ret = 0;
    } else if (body && len) {
        add_raw_body(msg, body, len);
    }
    json_free(root);
    err_info_release(&e);
    return ret;
}

/* The overflow patterns of reference §4.4, on a lower-cased text. */
static int overflow_lower(const struct strbuf *t)
{
    static const char *const patterns[] = {
        "context_length_exceeded",
        "exceed_context_size_error",
        "context_window_exceeded",
        "maximum context length",
        "context length is only",
        "longer than the model's context length",
        "exceeds the available context size",
        "prompt is longer than the context length",
        "requested token count exceeds",
        "reduce the length of the",
        "exceeds the context window",
        "exceeds the maximum context",
        "must have less than",
        "prompt is too long",
        "input is too long",
        "too many tokens in the prompt",
    };
    for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++)
        if (has(t, patterns[i]))
            return 1;
    return has(t, "must be <=") && has(t, "max_new_tokens");
}

int client_is_overflow_message(const char *msg)
{
    struct strbuf raw = STRBUF_INIT, low = STRBUF_INIT;
    int r;
    if (!msg)
        return 0;
    strbuf_addstr(&raw, msg);
    lower_into(&low, &raw);
    r = overflow_lower(&low);
    strbuf_release(&raw);
    strbuf_release(&low);
    return r;
}

static int is_overflow(struct err_info *e)
{
    err_lower(e);
    return overflow_lower(&e->lmsg) || overflow_lower(&e->lcode) || overflow_lower(&e->ltype);
}

static int is_filter(struct err_info *e)
{
    static const char *const codes[] = {"content_filter", "content_policy_violation",
                                        "responsibleaipolicyviolation", "cyber_policy"};
    err_lower(e);
    for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
        if (has(&e->lcode, codes[i]) || has(&e->ltype, codes[i]))
            return 1;
    return has(&e->lmsg, "content management policy") || has(&e->lmsg, "content filter");
}

static int is_quota(struct err_info *e)
{
    err_lower(e);
    return has(&e->lcode, "insufficient_quota") || has(&e->ltype, "insufficient_quota") ||
           has(&e->lmsg, "exceeded your current quota") || has(&e->lmsg, "insufficient_quota") ||
           has(&e->lmsg, "check your plan and billing");
}

static int is_unsupported(struct err_info *e)
{
    err_lower(e);
    return has(&e->lcode, "unsupported_parameter") || has(&e->lcode, "unsupported_value") ||
           has(&e->lmsg, "unsupported parameter") || has(&e->lmsg, "unsupported value") ||
           has(&e->lmsg, "is not supported with this model") ||
           has(&e->lmsg, "extra inputs are not permitted") ||
           has(&e->lmsg, "unrecognized request argument");
}

/* The number after the first of the markers in a lower-cased message, or 0. */
static long number_after(const struct strbuf *lmsg, const char *const *markers)
{
    for (size_t i = 0; markers[i]; i++) {
        const char *p = lmsg->len ? strstr(lmsg->buf, markers[i]) : NULL;
        long n = 0;
        if (!p)
            continue;
        p += strlen(markers[i]);
        while (*p == ' ' || *p == '\'')
            p++;
        while (isdigit((unsigned char)*p) && n < 100000000)
            n = n * 10 + (*p++ - '0');
        if (n > 0)
            return n;
    }
    return 0;
}

enum client_budget_verdict client_budget_verdict(long status, const char *body, size_t len,
                                                 const char *field, long *min)
{
    static const char *const min_markers[] = {">=", "at least", "minimum value of",
                                              "greater than or equal to", NULL};
    struct json *root = body && len ? json_parse(body, len, NULL) : NULL;
    struct err_info e;
    enum client_budget_verdict v = CLIENT_BUDGET_OK;
    const char *param;
    int names;
    *min = 0;
    err_info_init(&e);
    if ((status != 400 && status != 422) || !root || extract_error(root, &e))
        goto out;
    err_lower(&e);
    param = json_get_str(json_get(root, "error"), "param");
    /* the param when the server says it; else the message must name the field */
    names = param ? !strcmp(param, field) : has(&e.lmsg, field);
    if (!names)
        goto out;
    if (is_unsupported(&e)) {
        v = CLIENT_BUDGET_FIELD;
    } else if (has(&e.lcode, "below_min") || has(&e.lmsg, "below minimum") ||
               has(&e.lmsg, "at least") || has(&e.lmsg, "too small") ||
               has(&e.lmsg, "minimum value") || has(&e.lmsg, "greater than or equal")) {
        v = CLIENT_BUDGET_TOO_SMALL;
        *min = number_after(&e.lmsg, min_markers);
    }
out:
    err_info_release(&e);
    json_free(root);
    return v;
}

/* ------------------------------------------------------------- classify */

void client_response_init(struct client_response *r)
{
    memset(r, 0, sizeof(*r));
    r->prompt_tokens = -1;
    r->completion_tokens = -1;
    r->reasoning_tokens = -1;
    r->cached_tokens = -1;
    r->timings_cache_n = -1;
    r->timings_prompt_n = -1;
    r->timings_prompt_ms = -1;
    r->expected_prompt_tokens = -1;
    r->retry_after_ms = -1;
    r->endpoint = -1;
}

void client_response_release(struct client_response *r)
{
    free(r->content);
    free(r->reasoning);
    free(r->refusal);
    free(r->finish_reason);
    free(r->model);
    free(r->system_fingerprint);
    free(r->request_id);
    free(r->error);
    free(r->error_code);
    client_response_init(r);
}

void client_response_free(struct client_response *r)
{
    if (!r)
        return;
    client_response_release(r);
    free(r);
}

static char *dup_str(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

static void set_str(char **dst, const char *s)
{
    free(*dst);
    *dst = dup_str(s);
}

static void set_sb(char **dst, const struct strbuf *sb)
{
    free(*dst);
    *dst = sb->len ? xmemdup(sb->buf, sb->len) : NULL;
}

void client_set_error(struct client_response *r, const char *fmt, ...)
{
    struct strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    free(r->error);
    r->error = strbuf_detach(&sb, NULL);
}

/* The choice with "index": 0 (or the first one). */
static const struct json *first_choice(const struct json *choices)
{
    const struct json *c, *first = NULL;
    for (c = json_first(choices); c; c = json_next(c)) {
        const struct json *idx;
        if (json_kind(c) != JSON_OBJECT)
            continue;
        if (!first)
            first = c;
        idx = json_get(c, "index");
        if (json_kind(idx) == JSON_NUMBER && json_num(idx, 0) == 0)
            return c;
    }
    return first;
}

/*
 * A leading <think> block in the content is reasoning, not answer: moved to
 * r->reasoning (after the reasoning field's text, if any), so nothing
 * downstream ever scores it.
 */
static void split_inline_reasoning(const struct client_exchange *ex, struct client_response *r)
{
    struct strbuf ans = STRBUF_INIT, rs = STRBUF_INIT;
    if (r->reasoning && *r->reasoning) {
        strbuf_addstr(&rs, r->reasoning);
        strbuf_addch(&rs, '\n');
    }
    if (r->content &&
        reasoning_split(r->content, ex->reasoning_open, ex->reasoning_close, &ans, &rs)) {
        free(r->reasoning);
        r->reasoning = strbuf_detach(&rs, NULL);
        free(r->content);
        r->content = strbuf_detach(&ans, NULL);
    }
    strbuf_release(&ans);
    strbuf_release(&rs);
}

/*
 * A 2xx body that is not a JSON object is retried: a body cut short, or an HTML page (a
 * proxy's or gateway's glitch; html_page set, the runner stops when they keep coming:
 * CLIENT_HTML_ANSWERS_MAX).
 */
static void classify_not_json(const struct client_exchange *ex, struct client_response *r)
{
    struct strbuf raw = STRBUF_INIT;
    add_raw_body(&raw, ex->body ? ex->body : "", ex->body ? ex->body_len : 0);
    r->reason = CLIENT_R_BAD_BODY;
    r->cls = CLIENT_RETRYABLE;
    if (client_body_is_html(ex->body, ex->body ? ex->body_len : 0)) {
        r->html_page = 1;
        client_set_error(r,
                         "HTTP %ld with an HTML page, not an OpenAI API answer (a login page, a "
                         "proxy or a web UI at this address?): %.200s",
                         ex->status, raw.buf);
    } else {
        client_set_error(r, "HTTP %ld with a body that is not a JSON object: %.200s", ex->status,
                         raw.len ? raw.buf : "(empty)");
    }
    strbuf_release(&raw);
}

/* The token counts of "usage" and llama.cpp's "timings" (absent fields stay -1). */
static void read_usage(const struct json *root, struct client_response *r)
{
    const struct json *usage = json_get(root, "usage");
    const struct json *v = json_get(root, "timings");

    r->prompt_tokens = client_obj_long(usage, "prompt_tokens");
    r->completion_tokens = client_obj_long(usage, "completion_tokens");
    r->reasoning_tokens =
        client_obj_long(json_get(usage, "completion_tokens_details"), "reasoning_tokens");
    r->cached_tokens = client_obj_long(json_get(usage, "prompt_tokens_details"), "cached_tokens");
    if (json_kind(v) == JSON_OBJECT) {
        const struct json *ms = json_get(v, "prompt_ms");
        r->timings_cache_n = client_obj_long(v, "cache_n");
        r->timings_prompt_n = client_obj_long(v, "prompt_n");
        if (json_kind(ms) == JSON_NUMBER && json_num(ms, 0) >= 0 && json_num(ms, 0) < 1e12)
            r->timings_prompt_ms = json_num(ms, 0);
    }
}

/*
 * The class of a well-formed choice: filtered, server error, truncated (prompt short of what
 * was sent, or a context shift), starved or empty, else an answer.
 */
static void classify_answer(const struct client_exchange *ex, struct client_response *r)
{
    double ratio = ex->truncation_ratio > 0 ? ex->truncation_ratio : 0.98;

    if (r->finish_reason && !strcmp(r->finish_reason, "content_filter")) {
        r->cls = CLIENT_FILTERED;
        client_set_error(r, "finish_reason content_filter");
    } else if (reasoning_blank(r->content) && !reasoning_blank(r->refusal)) {
        r->cls = CLIENT_FILTERED;
        client_set_error(r, "refusal: %.300s", r->refusal);
    } else if (r->finish_reason && !strcmp(r->finish_reason, "error")) {
        r->cls = CLIENT_RETRYABLE;
        r->reason = CLIENT_R_SERVER_ERROR;
        client_set_error(r, "finish_reason error");
    } else if (ex->expected_prompt_tokens > 0 && r->prompt_tokens >= 0 &&
               (double)r->prompt_tokens < ratio * (double)ex->expected_prompt_tokens) {
        r->cls = CLIENT_TRUNCATED;
        r->reason = CLIENT_R_PROMPT_SHORT;
        client_set_error(r, "server counted %ld prompt tokens, %ld were sent (silent truncation?)",
                         r->prompt_tokens, ex->expected_prompt_tokens);
    } else if (ex->context_tokens > 0 && r->prompt_tokens >= 0 && r->completion_tokens >= 0 &&
               r->prompt_tokens + r->completion_tokens > ex->context_tokens) {
        /*
         * The answer did not fit beside the prompt, yet the server answered: llama.cpp with
         * --context-shift then drops half the prompt's tokens and goes on (finish_reason
         * "stop", usage unchanged), so the answer was written without part of the prompt.
         */
        r->cls = CLIENT_TRUNCATED;
        r->reason = CLIENT_R_CONTEXT_SHIFT;
        client_set_error(r,
                         "the server's context of %ld tokens cannot hold the %ld prompt and %ld "
                         "answer tokens: it dropped part of the prompt (context shift)",
                         ex->context_tokens, r->prompt_tokens, r->completion_tokens);
    } else if (reasoning_blank(r->content)) {
        /*
         * No answer. When the budget went to reasoning (reasoning text, reasoning
         * tokens, or tokens spent with nothing to show and finish_reason length),
         * the trial was starved, whatever finish_reason says: servers report
         * "stop" after forcing the end of thinking.
         */
        if (reasoning_starved(r->reasoning, r->reasoning_tokens, r->completion_tokens,
                              r->finish_reason)) {
            int length = r->finish_reason && !strcmp(r->finish_reason, "length");
            r->cls = CLIENT_STARVED;
            r->reason = length ? CLIENT_R_LENGTH : CLIENT_R_NONE;
            client_set_error(r,
                             "no answer after the reasoning (finish_reason %s, %ld reasoning "
                             "tokens)",
                             r->finish_reason ? r->finish_reason : "none",
                             r->reasoning_tokens >= 0 ? r->reasoning_tokens : r->completion_tokens);
        } else {
            r->cls = CLIENT_EMPTY;
            client_set_error(r, "empty content (finish_reason %s)",
                             r->finish_reason ? r->finish_reason : "none");
        }
    } else {
        /* an answer cut at the answer budget is scored on what it said, and flagged */
        r->cls = CLIENT_OK;
        r->cut = r->finish_reason && !strcmp(r->finish_reason, "length");
    }
}

static void classify_success(const struct client_exchange *ex, struct client_response *r)
{
    struct json *root = ex->body && ex->body_len ? json_parse(ex->body, ex->body_len, NULL) : NULL;
    const struct json *choice, *msg, *v;
    struct err_info e;

    err_info_init(&e);
    if (json_kind(root) != JSON_OBJECT) {
        classify_not_json(ex, r);
        goto out;
    }
    set_str(&r->model, json_get_str(root, "model"));
    set_str(&r->system_fingerprint, json_get_str(root, "system_fingerprint"));
    if (!r->request_id)
        set_str(&r->request_id, json_get_str(root, "id"));

    v = json_get(root, "error");
    if (v && json_kind(v) != JSON_NULL && !extract_error(root, &e)) {
        /* TGI 2.4 returned validation errors with HTTP 200 */
        set_sb(&r->error, e.msg.len ? &e.msg : (e.code.len ? &e.code : &e.type));
        set_sb(&r->error_code, e.code.len ? &e.code : &e.type);
        if (!r->error)
            client_set_error(r, "HTTP %ld with an error object in the body", ex->status);
        if (is_overflow(&e)) {
            r->cls = CLIENT_OVERFLOW;
        } else {
            r->cls = CLIENT_RETRYABLE;
            r->reason = CLIENT_R_ERROR_IN_BODY;
        }
        goto out;
    }

    read_usage(root, r);

    v = json_get(root, "choices");
    choice = json_kind(v) == JSON_ARRAY ? first_choice(v) : NULL;
    if (!choice) {
        r->cls = CLIENT_RETRYABLE;
        r->reason = CLIENT_R_BAD_BODY;
        client_set_error(r, "HTTP %ld response without choices", ex->status);
        goto out;
    }
    set_str(&r->finish_reason, json_get_str(choice, "finish_reason"));
    msg = json_get(choice, "message");
    if (ex->legacy || !msg) {
        set_str(&r->content, json_get_str(choice, "text"));
        if (!r->content && msg)
            set_str(&r->content, json_get_str(msg, "content"));
    } else {
        set_str(&r->content, json_get_str(msg, "content"));
    }
    {
        /* vLLM "reasoning", llama.cpp/DeepSeek "reasoning_content"; legacy: on the choice */
        const struct json *holder = msg ? msg : choice;
        const char *reasoning = json_get_str(holder, "reasoning_content");
        if (!reasoning)
            reasoning = json_get_str(holder, "reasoning");
        set_str(&r->reasoning, reasoning);
        if (msg)
            set_str(&r->refusal, json_get_str(msg, "refusal"));
    }
    if (!r->content && !r->reasoning && ex->legacy == 0 && !msg && !json_get(choice, "text")) {
        r->cls = CLIENT_RETRYABLE;
        r->reason = CLIENT_R_BAD_BODY;
        client_set_error(r, "HTTP %ld choice without message or text", ex->status);
        goto out;
    }

    split_inline_reasoning(ex, r);
    classify_answer(ex, r);
out:
    err_info_release(&e);
    json_free(root);
}

static void classify_error(const struct client_exchange *ex, struct client_response *r)
{
    struct json *root = ex->body && ex->body_len ? json_parse(ex->body, ex->body_len, NULL) : NULL;
    struct err_info e;
    long st = ex->status;
    int structured;

    err_info_init(&e);
    structured = root && !extract_error(root, &e);
    if (!structured && ex->body && ex->body_len)
        add_raw_body(&e.msg, ex->body, ex->body_len);
    if (e.msg.len)
        set_sb(&r->error, &e.msg);
    else if (e.code.len || e.type.len)
        set_sb(&r->error, e.code.len ? &e.code : &e.type);
    else
        client_set_error(r, "HTTP %ld with an empty body", st);
    {
        int numeric = e.code.len && isdigit((unsigned char)e.code.buf[0]);
        if (e.code.len && !(numeric && e.type.len))
            set_sb(&r->error_code, &e.code);
        else if (e.type.len)
            set_sb(&r->error_code, &e.type);
    }

    if (st >= 400 && st < 500 && is_overflow(&e)) {
        r->cls = CLIENT_OVERFLOW;
    } else if (st == 413) {
        /* gateways (Cloudflare, nginx) answer 413 for bodies too big: overflow by another name */
        r->cls = CLIENT_OVERFLOW;
    } else if (st == 429) {
        if (is_quota(&e)) {
            r->cls = CLIENT_FATAL;
            r->reason = CLIENT_R_QUOTA;
        } else {
            r->cls = CLIENT_RETRYABLE;
            r->reason = CLIENT_R_RATE_LIMIT;
        }
    } else if (st >= 400 && st < 500 && is_filter(&e)) {
        r->cls = CLIENT_FILTERED;
    } else if (st == 408 || st == 409) {
        r->cls = CLIENT_RETRYABLE;
        r->reason = CLIENT_R_HTTP_RETRYABLE;
    } else if (st == 401 || st == 403) {
        r->cls = CLIENT_FATAL;
        r->reason = CLIENT_R_AUTH;
    } else if (st == 404) {
        r->cls = CLIENT_FATAL;
        r->reason = CLIENT_R_MODEL_NOT_FOUND;
    } else if (st == 501) {
        /* llama.cpp not_supported_error: asking again does not help */
        r->cls = CLIENT_FATAL;
        r->reason = CLIENT_R_BAD_REQUEST;
    } else if (st >= 500 && st < 600) {
        r->cls = CLIENT_RETRYABLE;
        r->reason = strstr(r->error ? r->error : "", "Failed to parse input")
                        ? CLIENT_R_OUTPUT_PARSE
                        : CLIENT_R_SERVER_ERROR;
    } else if (st >= 400 && st < 500) {
        struct strbuf sr = STRBUF_INIT;
        r->cls = CLIENT_FATAL;
        r->reason = is_unsupported(&e) ? CLIENT_R_UNSUPPORTED_PARAM : CLIENT_R_BAD_REQUEST;
        /* openai-python honours x-should-retry */
        if (r->reason == CLIENT_R_BAD_REQUEST &&
            !client_header_get(ex->headers, "x-should-retry", &sr) && !strcasecmp(sr.buf, "true")) {
            r->cls = CLIENT_RETRYABLE;
            r->reason = CLIENT_R_HTTP_RETRYABLE;
        }
        strbuf_release(&sr);
    } else if (st >= 300 && st < 400) {
        struct strbuf loc = STRBUF_INIT;
        r->cls = CLIENT_FATAL;
        r->reason = CLIENT_R_BAD_REQUEST;
        if (!client_header_get(ex->headers, "location", &loc)) {
            struct strbuf m = STRBUF_INIT;
            client_add_clean(&m, loc.buf, loc.len, 300);
            client_set_error(r, "HTTP %ld redirect to %s (give the final URL as --endpoint)", st,
                             m.buf);
            strbuf_release(&m);
        }
        strbuf_release(&loc);
    } else {
        r->cls = CLIENT_RETRYABLE;
        r->reason = CLIENT_R_TRANSPORT;
    }
    err_info_release(&e);
    json_free(root);
}

void client_classify(const struct client_exchange *ex, struct client_response *out)
{
    void *tag = out->tag;
    int endpoint = out->endpoint;
    client_response_release(out);
    out->tag = tag;
    out->endpoint = endpoint;
    out->http_status = ex->status;
    out->expected_prompt_tokens = ex->expected_prompt_tokens > 0 ? ex->expected_prompt_tokens : -1;
    out->response_bytes = ex->body ? ex->body_len : 0;
    if (ex->headers) {
        struct strbuf id = STRBUF_INIT;
        if (!client_header_get(ex->headers, "x-request-id", &id) && id.len) {
            struct strbuf clean = STRBUF_INIT;
            client_add_clean(&clean, id.buf, id.len, 200);
            out->request_id = strbuf_detach(&clean, NULL);
        }
        strbuf_release(&id);
    }
    if (ex->status >= 200 && ex->status < 300) {
        classify_success(ex, out);
    } else {
        out->retry_after_ms = client_retry_after_ms(ex->headers, ex->now);
        classify_error(ex, out);
    }
}

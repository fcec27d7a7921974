/*
 * OpenAI-compatible HTTP client: libcurl multi transfers for one event loop,
 * the response classifier (every error-body shape of the servers in
 * reference/openai-compatible-servers.md), Retry-After parsing, the retry
 * policy helpers (backoff, AIMD, token buckets), preflight and /tokenize.
 * The only file that includes <curl/curl.h>.
 */
#include "client.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <cJSON.h>
#include <curl/curl.h>

#include "num.h"
#include "strbuf.h"
#include "usage.h"
#include "xalloc.h"

#include "banned.h"

#define MAX_HEADER_BYTES  (64 * 1024)
#define MAX_MESSAGE_BYTES 4096

/* ------------------------------------------------------------------ names */

static const char *const class_names[CLIENT_CLASS__COUNT] = {
    "ok", "overflow", "truncated", "empty", "filtered", "retryable", "fatal",
};

const char *client_class_name(enum client_class c)
{
    if ((int)c < 0 || c >= CLIENT_CLASS__COUNT)
        return "unknown";
    return class_names[c];
}

static const char *const reason_names[CLIENT_REASON__COUNT] = {
    "none",         "length",          "prompt-short",  "rate-limit",
    "server-error", "http-retryable",  "timeout",       "connect",
    "transport",    "bad-body",        "error-in-body", "too-large",
    "auth",         "model-not-found", "quota",         "unsupported-parameter",
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
    cfg->max_tokens = 256;
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

static int has_prefix_ci(const char *s, const char *prefix)
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
    static const char *const suffixes[] = {"/v1/chat/completions", "/v1/completions",
                                           "/chat/completions", "/completions", "/v1"};
    if (!url || !(has_prefix_ci(url, "http://") || has_prefix_ci(url, "https://"))) {
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
    if (has_prefix_ci(m, "gpt-5"))
        return 1;
    return 0;
}

/* --------------------------------------------------------------- headers */

int client_header_get(const char *headers, const char *name, struct strbuf *out)
{
    size_t nlen;
    const char *p = headers;
    if (!headers || !name)
        return -1;
    nlen = strlen(name);
    while (*p) {
        const char *eol = p, *v, *end;
        while (*eol && *eol != '\n' && *eol != '\r')
            eol++;
        if ((size_t)(eol - p) > nlen && p[nlen] == ':' && !strncasecmp(p, name, nlen)) {
            v = p + nlen + 1;
            while (v < eol && (*v == ' ' || *v == '\t'))
                v++;
            end = eol;
            while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
                end--;
            strbuf_add(out, v, (size_t)(end - v));
            return 0;
        }
        p = eol;
        while (*p == '\n' || *p == '\r')
            p++;
    }
    return -1;
}

/*
 * Parse an unsigned decimal "12", "1.5", ".5" at *sp; advances *sp. Returns
 * -1 when there is no digit. No exponents, signs, hex, inf or nan.
 */
static int scan_decimal(const char **sp, double *out)
{
    const char *s = *sp;
    double v = 0, scale = 1;
    int digits = 0;
    while (isdigit((unsigned char)*s)) {
        if (v < 1e15)
            v = v * 10 + (*s - '0');
        else
            v *= 10;
        s++;
        digits++;
    }
    if (*s == '.') {
        s++;
        while (isdigit((unsigned char)*s)) {
            scale /= 10;
            v += (*s - '0') * scale;
            s++;
            digits++;
        }
    }
    if (!digits)
        return -1;
    *sp = s;
    *out = v;
    return 0;
}

static long ms_ceil(double ms)
{
    if (!(ms >= 0) || ms > 1e12)
        return -1;
    return (long)ceil(ms - 1e-9);
}

long client_parse_duration_ms(const char *s)
{
    double total = 0, v;
    int parts = 0;
    const char *p = s;
    if (!s)
        return -1;
    while (*p == ' ' || *p == '\t')
        p++;
    /* plain number: seconds */
    {
        const char *q = p;
        if (!scan_decimal(&q, &v)) {
            const char *r = q;
            while (*r == ' ' || *r == '\t')
                r++;
            if (!*r)
                return ms_ceil(v * 1000.0);
        }
    }
    while (*p) {
        double mult;
        if (scan_decimal(&p, &v))
            return -1;
        if (!strncmp(p, "ms", 2)) {
            mult = 1;
            p += 2;
        } else if (!strncmp(p, "us", 2) || !strncmp(p, "\xc2\xb5s", 3)) {
            mult = 0.001;
            p += p[0] == 'u' ? 2 : 3;
        } else if (!strncmp(p, "ns", 2)) {
            mult = 0.000001;
            p += 2;
        } else if (*p == 'h') {
            mult = 3600000.0;
            p++;
        } else if (*p == 'm') {
            mult = 60000.0;
            p++;
        } else if (*p == 's') {
            mult = 1000.0;
            p++;
        } else if (*p == 'd') {
            mult = 86400000.0;
            p++;
        } else {
            return -1;
        }
        total += v * mult;
        parts++;
        if (*p == ' ' || *p == '\t') {
            while (*p == ' ' || *p == '\t')
                p++;
            if (*p)
                return -1;
        }
    }
    if (!parts)
        return -1;
    return ms_ceil(total);
}

static int month_index(const char *m)
{
    static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                         "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    for (int i = 0; i < 12; i++)
        if (!strncasecmp(m, months[i], 3))
            return i;
    return -1;
}

/* days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm) */
static long days_from_civil(long y, int m, int d)
{
    long era, yoe, doy, doe;
    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = y - era * 400;
    doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int read_int(const char **sp, int maxdigits, long *out)
{
    const char *s = *sp;
    long v = 0;
    int n = 0;
    while (n < maxdigits && isdigit((unsigned char)*s)) {
        v = v * 10 + (*s - '0');
        s++;
        n++;
    }
    if (!n)
        return -1;
    *sp = s;
    *out = v;
    return 0;
}

static int read_hms(const char **sp, long *h, long *mi, long *sec)
{
    if (read_int(sp, 2, h) || **sp != ':')
        return -1;
    (*sp)++;
    if (read_int(sp, 2, mi) || **sp != ':')
        return -1;
    (*sp)++;
    return read_int(sp, 2, sec);
}

int client_parse_http_date(const char *s, time_t *out)
{
    long day, year, h, mi, sec;
    int mon;
    const char *p;
    if (!s)
        return -1;
    while (*s == ' ')
        s++;
    p = s;
    while (isalpha((unsigned char)*p))
        p++;
    if (p == s)
        return -1;
    if (*p == ',') {
        /* IMF-fixdate "Sun, 06 Nov 1994 08:49:37 GMT" or RFC 850 "Sunday, 06-Nov-94 ..." */
        p++;
        while (*p == ' ')
            p++;
        if (read_int(&p, 2, &day))
            return -1;
        if (*p != ' ' && *p != '-')
            return -1;
        p++;
        if ((mon = month_index(p)) < 0)
            return -1;
        p += 3;
        if (*p != ' ' && *p != '-')
            return -1;
        p++;
        {
            const char *y0 = p;
            if (read_int(&p, 4, &year))
                return -1;
            if (p - y0 == 2)
                year += year < 70 ? 2000 : 1900;
            else if (p - y0 != 4)
                return -1;
        }
        if (*p++ != ' ')
            return -1;
        if (read_hms(&p, &h, &mi, &sec))
            return -1;
        while (*p == ' ')
            p++;
        if (strncmp(p, "GMT", 3) && strncmp(p, "UTC", 3))
            return -1;
    } else if (*p == ' ') {
        /* asctime "Sun Nov  6 08:49:37 1994" */
        p++;
        if ((mon = month_index(p)) < 0)
            return -1;
        p += 3;
        while (*p == ' ')
            p++;
        if (read_int(&p, 2, &day) || *p++ != ' ')
            return -1;
        if (read_hms(&p, &h, &mi, &sec) || *p++ != ' ')
            return -1;
        if (read_int(&p, 4, &year))
            return -1;
    } else {
        return -1;
    }
    if (day < 1 || day > 31 || h > 23 || mi > 59 || sec > 60 || year < 1970)
        return -1;
    *out = (time_t)(days_from_civil(year, mon + 1, (int)day) * 86400L + h * 3600 + mi * 60 + sec);
    return 0;
}

/* A non-negative decimal number of units (no trailing text). -1 when not. */
static double parse_plain_number(const char *s)
{
    double v;
    const char *p = s;
    while (*p == ' ')
        p++;
    if (scan_decimal(&p, &v))
        return -1;
    while (*p == ' ')
        p++;
    return *p ? -1 : v;
}

long client_retry_after_ms(const char *headers, time_t now)
{
    struct strbuf v = STRBUF_INIT;
    long best = -1;
    if (!headers)
        return -1;
    if (!client_header_get(headers, "retry-after-ms", &v)) {
        double ms = parse_plain_number(v.buf);
        if (ms >= 0) {
            best = ms_ceil(ms);
            goto done;
        }
    }
    strbuf_reset(&v);
    if (!client_header_get(headers, "retry-after", &v)) {
        double secs = parse_plain_number(v.buf);
        time_t when;
        if (secs >= 0) {
            best = ms_ceil(secs * 1000.0);
            goto done;
        }
        if (!client_parse_http_date(v.buf, &when)) {
            double diff = difftime(when, now);
            best = diff > 0 ? ms_ceil(diff * 1000.0) : 0;
            goto done;
        }
    }
    {
        static const char *const names[] = {"x-ratelimit-reset-requests",
                                            "x-ratelimit-reset-tokens"};
        for (int i = 0; i < 2; i++) {
            long d;
            strbuf_reset(&v);
            if (client_header_get(headers, names[i], &v))
                continue;
            d = client_parse_duration_ms(v.buf);
            if (d > best)
                best = d;
        }
    }
done:
    strbuf_release(&v);
    return best;
}

/* ------------------------------------------------------- error messages */

/* Append s (len bytes) with control characters replaced, at most max bytes. */
static void add_clean(struct strbuf *sb, const char *s, size_t len, size_t max)
{
    size_t n = len < max ? len : max;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        strbuf_addch(sb, ch < 0x20 || ch == 0x7f ? ' ' : ch);
    }
    if (len > max)
        strbuf_addstr(sb, "...");
}

static const cJSON *obj_get(const cJSON *o, const char *key)
{
    return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

static const char *obj_str(const cJSON *o, const char *key)
{
    const cJSON *v = obj_get(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* number or numeric string -> long; -1 when absent/invalid */
static long obj_long(const cJSON *o, const char *key)
{
    const cJSON *v = obj_get(o, key);
    if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 9e15)
        return (long)v->valuedouble;
    if (cJSON_IsString(v)) {
        long n;
        if (!parse_long(v->valuestring, &n) && n >= 0)
            return n;
    }
    return -1;
}

/* Scalar (string/number) as text into out; 0 when something was added. */
static int scalar_text(const cJSON *v, struct strbuf *out)
{
    if (cJSON_IsString(v) && v->valuestring[0]) {
        add_clean(out, v->valuestring, strlen(v->valuestring), 200);
        return 0;
    }
    if (cJSON_IsNumber(v)) {
        strbuf_addf(out, "%.0f", v->valuedouble);
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

static void add_msg_value(struct strbuf *msg, const cJSON *m)
{
    if (cJSON_IsString(m))
        add_clean(msg, m->valuestring, strlen(m->valuestring), MAX_MESSAGE_BYTES);
    else if (cJSON_IsArray(m)) {
        /* FastAPI validation: [{"loc":[...],"msg":"...","type":"..."}] */
        const cJSON *it;
        int first = 1;
        cJSON_ArrayForEach(it, m)
        {
            const char *s = obj_str(it, "msg");
            if (!s)
                s = cJSON_IsString(it) ? it->valuestring : NULL;
            if (!s)
                continue;
            if (!first)
                strbuf_addstr(msg, "; ");
            add_clean(msg, s, strlen(s), MAX_MESSAGE_BYTES);
            first = 0;
            if (msg->len > MAX_MESSAGE_BYTES)
                break;
        }
    } else if (cJSON_IsObject(m)) {
        const char *s = obj_str(m, "message");
        if (!s)
            s = obj_str(m, "msg");
        if (s)
            add_clean(msg, s, strlen(s), MAX_MESSAGE_BYTES);
    }
}

/*
 * Extract message/code/type from a parsed JSON body (any shape). Returns 0
 * when the body looked like an error (had a message or code), -1 otherwise.
 */
static int extract_error(const cJSON *root, struct err_info *e)
{
    const cJSON *err = obj_get(root, "error");
    const cJSON *holder = NULL;
    if (cJSON_IsObject(err)) {
        holder = err;
    } else if (cJSON_IsString(err)) {
        /* Ollama native / TGI: {"error":"...","error_type":"validation"} */
        add_clean(&e->msg, err->valuestring, strlen(err->valuestring), MAX_MESSAGE_BYTES);
        scalar_text(obj_get(root, "error_type"), &e->type);
        scalar_text(obj_get(root, "code"), &e->code);
        return 0;
    } else if (cJSON_IsObject(root) &&
               (obj_get(root, "message") || obj_get(root, "detail") || obj_get(root, "msg"))) {
        /* {"object":"error","message":...,"code":400}, {"message":...}, {"detail":...} */
        holder = root;
    }
    if (!holder)
        return -1;
    {
        const cJSON *m = obj_get(holder, "message");
        if (!m)
            m = obj_get(holder, "detail");
        if (!m)
            m = obj_get(holder, "msg");
        add_msg_value(&e->msg, m);
    }
    scalar_text(obj_get(holder, "code"), &e->code);
    if (scalar_text(obj_get(holder, "type"), &e->type))
        scalar_text(obj_get(holder, "error_type"), &e->type);
    /* {"error": {"message": "...", "metadata": {"raw": "..."}}}: keep the outer message */
    return e->msg.len || e->code.len || e->type.len ? 0 : -1;
}

static void add_raw_body(struct strbuf *msg, const char *body, size_t len)
{
    size_t i = 0;
    while (i < len && isspace((unsigned char)body[i]))
        i++;
    add_clean(msg, body + i, len - i, MAX_MESSAGE_BYTES);
    strbuf_rtrim(msg);
}

int client_error_message(const char *body, size_t len, struct strbuf *msg, struct strbuf *code)
{
    cJSON *root = body && len ? cJSON_ParseWithLength(body, len) : NULL;
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
    cJSON_Delete(root);
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

/* ------------------------------------------------------------- classify */

void client_response_init(struct client_response *r)
{
    memset(r, 0, sizeof(*r));
    r->prompt_tokens = -1;
    r->completion_tokens = -1;
    r->reasoning_tokens = -1;
    r->cached_tokens = -1;
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

static void set_error(struct client_response *r, const char *fmt, ...) DM_PRINTF(2, 3);
static void set_error(struct client_response *r, const char *fmt, ...)
{
    struct strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    free(r->error);
    r->error = strbuf_detach(&sb, NULL);
}

static int blank(const char *s)
{
    if (!s)
        return 1;
    for (; *s; s++)
        if (!isspace((unsigned char)*s))
            return 0;
    return 1;
}

/* The choice with "index": 0 (or the first one). */
static const cJSON *first_choice(const cJSON *choices)
{
    const cJSON *c, *first = NULL;
    cJSON_ArrayForEach(c, choices)
    {
        const cJSON *idx;
        if (!cJSON_IsObject(c))
            continue;
        if (!first)
            first = c;
        idx = obj_get(c, "index");
        if (cJSON_IsNumber(idx) && idx->valuedouble == 0)
            return c;
    }
    return first;
}

static void classify_success(const struct client_exchange *ex, struct client_response *r)
{
    cJSON *root = ex->body && ex->body_len ? cJSON_ParseWithLength(ex->body, ex->body_len) : NULL;
    const cJSON *choice, *usage, *msg, *v;
    struct err_info e;
    double ratio = ex->truncation_ratio > 0 ? ex->truncation_ratio : 0.98;

    err_info_init(&e);
    if (!cJSON_IsObject(root)) {
        struct strbuf raw = STRBUF_INIT;
        add_raw_body(&raw, ex->body ? ex->body : "", ex->body ? ex->body_len : 0);
        r->cls = CLIENT_RETRYABLE;
        r->reason = CLIENT_R_BAD_BODY;
        set_error(r, "HTTP %ld with a body that is not a JSON object: %.200s", ex->status,
                  raw.len ? raw.buf : "(empty)");
        strbuf_release(&raw);
        goto out;
    }
    set_str(&r->model, obj_str(root, "model"));
    set_str(&r->system_fingerprint, obj_str(root, "system_fingerprint"));
    if (!r->request_id)
        set_str(&r->request_id, obj_str(root, "id"));

    v = obj_get(root, "error");
    if (v && !cJSON_IsNull(v) && !extract_error(root, &e)) {
        /* TGI 2.4 returned validation errors with HTTP 200 */
        set_sb(&r->error, e.msg.len ? &e.msg : (e.code.len ? &e.code : &e.type));
        set_sb(&r->error_code, e.code.len ? &e.code : &e.type);
        if (!r->error)
            set_error(r, "HTTP %ld with an error object in the body", ex->status);
        if (is_overflow(&e)) {
            r->cls = CLIENT_OVERFLOW;
        } else {
            r->cls = CLIENT_RETRYABLE;
            r->reason = CLIENT_R_ERROR_IN_BODY;
        }
        goto out;
    }

    usage = obj_get(root, "usage");
    r->prompt_tokens = obj_long(usage, "prompt_tokens");
    r->completion_tokens = obj_long(usage, "completion_tokens");
    r->reasoning_tokens = obj_long(obj_get(usage, "completion_tokens_details"), "reasoning_tokens");
    r->cached_tokens = obj_long(obj_get(usage, "prompt_tokens_details"), "cached_tokens");

    v = obj_get(root, "choices");
    choice = cJSON_IsArray(v) ? first_choice(v) : NULL;
    if (!choice) {
        r->cls = CLIENT_RETRYABLE;
        r->reason = CLIENT_R_BAD_BODY;
        set_error(r, "HTTP %ld response without choices", ex->status);
        goto out;
    }
    set_str(&r->finish_reason, obj_str(choice, "finish_reason"));
    msg = obj_get(choice, "message");
    if (ex->legacy || !msg) {
        set_str(&r->content, obj_str(choice, "text"));
        if (!r->content && msg)
            set_str(&r->content, obj_str(msg, "content"));
    } else {
        set_str(&r->content, obj_str(msg, "content"));
    }
    if (msg) {
        const char *reasoning = obj_str(msg, "reasoning_content");
        if (!reasoning)
            reasoning = obj_str(msg, "reasoning");
        set_str(&r->reasoning, reasoning);
        set_str(&r->refusal, obj_str(msg, "refusal"));
    }
    if (!r->content && !r->reasoning && ex->legacy == 0 && !msg && !obj_get(choice, "text")) {
        r->cls = CLIENT_RETRYABLE;
        r->reason = CLIENT_R_BAD_BODY;
        set_error(r, "HTTP %ld choice without message or text", ex->status);
        goto out;
    }

    if (r->finish_reason && !strcmp(r->finish_reason, "content_filter")) {
        r->cls = CLIENT_FILTERED;
        set_error(r, "finish_reason content_filter");
    } else if (blank(r->content) && !blank(r->refusal)) {
        r->cls = CLIENT_FILTERED;
        set_error(r, "refusal: %.300s", r->refusal);
    } else if (r->finish_reason && !strcmp(r->finish_reason, "error")) {
        r->cls = CLIENT_RETRYABLE;
        r->reason = CLIENT_R_SERVER_ERROR;
        set_error(r, "finish_reason error");
    } else if (ex->expected_prompt_tokens > 0 && r->prompt_tokens >= 0 &&
               (double)r->prompt_tokens < ratio * (double)ex->expected_prompt_tokens) {
        r->cls = CLIENT_TRUNCATED;
        r->reason = CLIENT_R_PROMPT_SHORT;
        set_error(r, "server counted %ld prompt tokens, %ld were sent (silent truncation?)",
                  r->prompt_tokens, ex->expected_prompt_tokens);
    } else if (blank(r->content)) {
        r->cls = CLIENT_EMPTY;
        set_error(r, "empty content (finish_reason %s%s)",
                  r->finish_reason ? r->finish_reason : "none",
                  blank(r->reasoning) ? "" : ", reasoning present");
    } else if (r->finish_reason && !strcmp(r->finish_reason, "length")) {
        r->cls = CLIENT_TRUNCATED;
        r->reason = CLIENT_R_LENGTH;
        set_error(r, "finish_reason length (output hit max tokens)");
    } else {
        r->cls = CLIENT_OK;
    }
out:
    err_info_release(&e);
    cJSON_Delete(root);
}

static void classify_error(const struct client_exchange *ex, struct client_response *r)
{
    cJSON *root = ex->body && ex->body_len ? cJSON_ParseWithLength(ex->body, ex->body_len) : NULL;
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
        set_error(r, "HTTP %ld with an empty body", st);
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
        r->reason = CLIENT_R_SERVER_ERROR;
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
            add_clean(&m, loc.buf, loc.len, 300);
            set_error(r, "HTTP %ld redirect to %s (give the final URL as --endpoint)", st, m.buf);
            strbuf_release(&m);
        }
        strbuf_release(&loc);
    } else {
        r->cls = CLIENT_RETRYABLE;
        r->reason = CLIENT_R_TRANSPORT;
    }
    err_info_release(&e);
    cJSON_Delete(root);
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
            add_clean(&clean, id.buf, id.len, 200);
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

/* ---------------------------------------------------------- retry policy */

static uint64_t rng_next(uint64_t *s)
{
    /* xorshift64* */
    uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545f4914f6cdd1dull;
}

void client_backoff_init(struct client_backoff *b, uint64_t seed)
{
    b->base_ms = 1000;
    b->max_ms = 60000;
    b->max_hint_ms = 120000;
    b->max_attempts = 6;
    b->rng = seed ^ 0x6a09e667f3bcc909ull;
    if (!b->rng)
        b->rng = 1;
}

int client_backoff_should_retry(const struct client_backoff *b, enum client_class cls, int attempts)
{
    return cls == CLIENT_RETRYABLE && attempts < b->max_attempts;
}

long client_backoff_delay(struct client_backoff *b, int attempts, long hint_ms)
{
    double d, u;
    if (hint_ms > 0)
        return hint_ms < b->max_hint_ms ? hint_ms : b->max_hint_ms;
    if (attempts < 1)
        attempts = 1;
    d = (double)b->base_ms * ldexp(1.0, attempts > 60 ? 60 : attempts - 1);
    if (d > (double)b->max_ms)
        d = (double)b->max_ms;
    u = (double)(rng_next(&b->rng) >> 11) / 9007199254740992.0; /* [0,1) */
    return (long)(d / 2 + u * (d / 2));
}

void client_aimd_init(struct client_aimd *a, int initial, int min, int max)
{
    if (min < 1)
        min = 1;
    if (max < min)
        max = min;
    if (initial < min)
        initial = min;
    if (initial > max)
        initial = max;
    a->limit = initial;
    a->min = min;
    a->max = max;
    a->decrease = 0.8;
    a->increase = 1.0;
    a->cooldown_ms = 15000;
    a->hold_until_ms = -1e300;
    a->last_decrease_ms = -1e300;
    a->decreases = 0;
}

void client_aimd_update(struct client_aimd *a, const struct client_response *r, double now_ms)
{
    if (r->cls == CLIENT_RETRYABLE && r->reason == CLIENT_R_RATE_LIMIT) {
        double hold = a->cooldown_ms;
        if (r->retry_after_ms > hold)
            hold = (double)r->retry_after_ms;
        if (now_ms - a->last_decrease_ms >= a->cooldown_ms) {
            a->limit *= a->decrease;
            if (a->limit < a->min)
                a->limit = a->min;
            a->last_decrease_ms = now_ms;
            a->decreases++;
        }
        if (now_ms + hold > a->hold_until_ms)
            a->hold_until_ms = now_ms + hold;
        return;
    }
    if (r->cls == CLIENT_RETRYABLE) {
        /* transient trouble: pause growth, do not shrink */
        if (now_ms + a->cooldown_ms > a->hold_until_ms)
            a->hold_until_ms = now_ms + a->cooldown_ms;
        return;
    }
    if (now_ms < a->hold_until_ms)
        return;
    a->limit += a->increase / (a->limit > 1 ? a->limit : 1);
    if (a->limit > a->max)
        a->limit = a->max;
}

int client_aimd_limit(const struct client_aimd *a)
{
    int l = (int)floor(a->limit + 1e-9);
    if (l < a->min)
        l = a->min;
    if (l > a->max)
        l = a->max;
    return l;
}

void client_bucket_init(struct client_bucket *b, double per_minute, double now_ms)
{
    if (per_minute <= 0) {
        b->per_ms = 0;
        b->capacity = 0;
        b->tokens = 0;
    } else {
        b->per_ms = per_minute / 60000.0;
        b->capacity = per_minute / 6.0;
        if (b->capacity < 1)
            b->capacity = 1;
        b->tokens = b->capacity;
    }
    b->last_ms = now_ms;
}

static void bucket_refill(struct client_bucket *b, double now_ms)
{
    if (now_ms > b->last_ms) {
        b->tokens += (now_ms - b->last_ms) * b->per_ms;
        if (b->tokens > b->capacity)
            b->tokens = b->capacity;
        b->last_ms = now_ms;
    }
}

double client_bucket_wait_ms(struct client_bucket *b, double cost, double now_ms)
{
    double need;
    if (b->per_ms <= 0)
        return 0;
    bucket_refill(b, now_ms);
    need = cost < b->capacity ? cost : b->capacity;
    if (b->tokens >= need - 1e-9)
        return 0;
    return (need - b->tokens) / b->per_ms;
}

void client_bucket_take(struct client_bucket *b, double cost, double now_ms)
{
    if (b->per_ms <= 0)
        return;
    bucket_refill(b, now_ms);
    b->tokens -= cost;
}

void client_bucket_adjust(struct client_bucket *b, double delta)
{
    if (b->per_ms <= 0)
        return;
    b->tokens += delta;
    if (b->tokens > b->capacity)
        b->tokens = b->capacity;
}

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
    int endpoint;
    double start_ms;
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
    struct curl_slist *hdrs;     /* shared request headers (with auth) */
    struct curl_slist *get_hdrs; /* for GETs */
    struct client_config cfg;    /* scalars only; strvecs empty, strings NULL */
    const char *mt_field;
    size_t inflight; /* in curl */
    struct client_response **ready;
    size_t ready_head, ready_nr, ready_alloc;
    struct xfer *free_xfers;
    struct xfer *active;       /* in curl, for client_free() */
    CURL *sync;                /* blocking helper handle (preflight, tokenize) */
    int tok_kind;              /* 0 unknown, 1 vLLM/SGLang {"prompt"}, 2 llama.cpp {"content"} */
    pthread_mutex_t sync_lock; /* serialises the users of sync and tok_kind */
};

static int global_init_done;

static void json_escape(struct strbuf *sb, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    size_t start = 0;
    strbuf_addch(sb, '"');
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch >= 0x20 && ch != '"' && ch != '\\' && ch != 0x7f)
            continue;
        strbuf_add(sb, s + start, i - start);
        start = i + 1;
        switch (ch) {
        case '"':
            strbuf_addstr(sb, "\\\"");
            break;
        case '\\':
            strbuf_addstr(sb, "\\\\");
            break;
        case '\n':
            strbuf_addstr(sb, "\\n");
            break;
        case '\r':
            strbuf_addstr(sb, "\\r");
            break;
        case '\t':
            strbuf_addstr(sb, "\\t");
            break;
        default: {
            char u[7] = {'\\', 'u', '0', '0', hex[ch >> 4], hex[ch & 15], 0};
            strbuf_add(sb, u, 6);
        }
        }
    }
    strbuf_add(sb, s + start, len - start);
    strbuf_addch(sb, '"');
}

static int is_openai_host(const char *root)
{
    const char *h = strstr(root, "://");
    h = h ? h + 3 : root;
    return has_prefix_ci(h, "api.openai.com") || strstr(root, ".openai.azure.com") != NULL;
}

/*
 * 1 when a header line "Name: value" carries a credential: Authorization, api-key, and any
 * header whose name mentions a key, token, secret, password, auth or cookie (-H 'X-Api-Key: ...').
 */
static int secret_header(const char *s, size_t n, size_t *name_len)
{
    static const char *const words[] = {"key", "token", "secret", "passw", "auth", "cookie"};
    const char *colon = memchr(s, ':', n);
    size_t len, i, k;
    if (!colon)
        return 0;
    len = (size_t)(colon - s);
    *name_len = len;
    for (k = 0; k < sizeof(words) / sizeof(words[0]); k++) {
        size_t w = strlen(words[k]);
        for (i = 0; i + w <= len; i++)
            if (!strncasecmp(s + i, words[k], w))
                return 1;
    }
    return 0;
}

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
            add_clean(&line, data + i, j - i, 2000);
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
    c->cfg = *cfg;
    strvec_init(&c->cfg.endpoints);
    strvec_init(&c->cfg.headers);
    c->cfg.model = NULL;
    c->cfg.api_key = NULL;
    if (c->cfg.truncation_ratio <= 0)
        c->cfg.truncation_ratio = 0.98;
    c->model = xstrdup(cfg->model);
    c->key = cfg->api_key && *cfg->api_key ? xstrdup(cfg->api_key) : NULL;
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
    pthread_mutex_destroy(&c->sync_lock);
    curl_slist_free_all(c->hdrs);
    curl_slist_free_all(c->get_hdrs);
    for (size_t i = 0; i < c->nr_ep; i++) {
        free(c->ep[i].root);
        free(c->ep[i].gen_url);
        free(c->ep[i].query);
    }
    free(c->ep);
    free(c->model);
    if (c->key) {
        volatile char *p = c->key;
        while (*p)
            *p++ = 0;
        free(c->key);
    }
    free(c);
}

static void build_body(struct client *c, const struct client_request *req, struct strbuf *b)
{
    long mt = req->max_tokens > 0 ? req->max_tokens : c->cfg.max_tokens;
    const char *user = req->user ? req->user : "";
    size_t ulen = req->user ? req->user_len : 0;
    strbuf_grow(b, ulen + (req->system ? strlen(req->system) : 0) + 256);
    strbuf_addstr(b, "{\"model\":");
    json_escape(b, c->model, strlen(c->model));
    if (c->cfg.legacy_completions) {
        strbuf_addstr(b, ",\"prompt\":");
        json_escape(b, user, ulen);
    } else {
        strbuf_addstr(b, ",\"messages\":[");
        if (req->system && *req->system) {
            strbuf_addstr(b, "{\"role\":\"system\",\"content\":");
            json_escape(b, req->system, strlen(req->system));
            strbuf_addstr(b, "},");
        }
        strbuf_addstr(b, "{\"role\":\"user\",\"content\":");
        json_escape(b, user, ulen);
        strbuf_addstr(b, "}]");
    }
    strbuf_addf(b, ",\"temperature\":%.6g,\"top_p\":%.6g", c->cfg.temperature, c->cfg.top_p);
    if (c->cfg.send_seed)
        strbuf_addf(b, ",\"seed\":%ld", c->cfg.seed);
    strbuf_addf(b, ",\"%s\":%ld,\"n\":1,\"stream\":false}", c->mt_field, mt);
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
    x->endpoint = pick_endpoint(c);
    x->errbuf[0] = '\0';
    build_body(c, req, &x->body);

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

static void classify_transport(struct xfer *x, CURLcode rc, struct client_response *r)
{
    const char *detail = x->errbuf[0] ? x->errbuf : curl_easy_strerror(rc);
    r->cls = CLIENT_RETRYABLE;
    r->curl_code = (int)rc;
    if (x->too_large || rc == CURLE_FILESIZE_EXCEEDED) {
        r->reason = CLIENT_R_TOO_LARGE;
        set_error(r, "response bigger than the %zu-byte cap", x->c->cfg.max_response_bytes);
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
    set_error(r, "%s (curl %d)", detail, (int)rc);
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
        ex.truncation_ratio = c->cfg.truncation_ratio;
        ex.now = time(NULL);
        client_classify(&ex, r);
    } else {
        r->http_status = status;
        r->expected_prompt_tokens = x->expected > 0 ? x->expected : -1;
        r->response_bytes = x->resp.len;
        classify_transport(x, rc, r);
    }
    r->curl_code = (int)rc;
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
static int http_sync(struct client *c, const char *url, const char *body, size_t body_len,
                     long *status, struct strbuf *resp, struct strbuf *err)
{
    struct xfer x;
    CURLcode rc;
    memset(&x, 0, sizeof(x));
    x.c = c;
    x.resp = *resp;
    strbuf_init(&x.hdrs, 0);
    strbuf_set_cap(&x.resp, c->cfg.max_response_bytes);
    strbuf_set_cap(&x.hdrs, MAX_HEADER_BYTES);
    if (!c->sync && !(c->sync = curl_easy_init())) {
        strbuf_addstr(err, "curl_easy_init failed");
        return -1;
    }
    curl_easy_reset(c->sync);
    setup_common(c, c->sync);
    curl_easy_setopt(c->sync, CURLOPT_URL, url);
    if (body) {
        curl_easy_setopt(c->sync, CURLOPT_HTTPHEADER, c->hdrs);
        curl_easy_setopt(c->sync, CURLOPT_POST, 1L);
        curl_easy_setopt(c->sync, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c->sync, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
    } else {
        curl_easy_setopt(c->sync, CURLOPT_HTTPHEADER, c->get_hdrs);
        curl_easy_setopt(c->sync, CURLOPT_HTTPGET, 1L);
    }
    curl_easy_setopt(c->sync, CURLOPT_WRITEFUNCTION, write_cb);
    curl_easy_setopt(c->sync, CURLOPT_WRITEDATA, &x);
    curl_easy_setopt(c->sync, CURLOPT_HEADERFUNCTION, header_cb);
    curl_easy_setopt(c->sync, CURLOPT_HEADERDATA, &x.hdrs);
    curl_easy_setopt(c->sync, CURLOPT_ERRORBUFFER, x.errbuf);
    rc = curl_easy_perform(c->sync);
    *resp = x.resp;
    strbuf_release(&x.hdrs);
    if (rc != CURLE_OK) {
        if (x.too_large)
            strbuf_addf(err, "%s: response bigger than %zu bytes", url, c->cfg.max_response_bytes);
        else
            strbuf_addf(err, "%s: %s", url, x.errbuf[0] ? x.errbuf : curl_easy_strerror(rc));
        return -1;
    }
    curl_easy_getinfo(c->sync, CURLINFO_RESPONSE_CODE, status);
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
        cJSON *root = cJSON_ParseWithLength(resp.buf, resp.len);
        const cJSON *dgs = obj_get(root, "default_generation_settings");
        long n = obj_long(dgs, "n_ctx");
        if (n < 0)
            n = obj_long(obj_get(dgs, "params"), "n_ctx");
        if (n < 0)
            n = obj_long(root, "n_ctx");
        if (dgs || n > 0) {
            is_llama = 1;
            context_min(info, n);
            if (!info->server_info && obj_str(root, "build_info"))
                info->server_info = xstrdup(obj_str(root, "build_info"));
        }
        cJSON_Delete(root);
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
    for (size_t i = 0; i < c->nr_ep; i++) {
        struct endpoint *ep = &c->ep[i];
        struct strbuf url = STRBUF_INIT, resp = STRBUF_INIT, names = STRBUF_INIT;
        long status = 0;
        int found = 0, listed = 0, llamacpp = 0;
        cJSON *root;
        const cJSON *data, *m;
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
        root = status == 200 ? cJSON_ParseWithLength(resp.buf, resp.len) : NULL;
        data = obj_get(root, "data");
        if (!cJSON_IsArray(data))
            data = obj_get(root, "models"); /* llama.cpp also lists "models" */
        if (cJSON_IsArray(data)) {
            cJSON_ArrayForEach(m, data)
            {
                const char *id = obj_str(m, "id");
                if (!id)
                    id = obj_str(m, "name");
                if (!id)
                    id = obj_str(m, "model");
                if (!id)
                    continue;
                listed++;
                if (obj_str(m, "owned_by") && !strcmp(obj_str(m, "owned_by"), "llamacpp"))
                    llamacpp++;
                if (listed <= 10)
                    strbuf_addf(&names, "%s\"%s\"", names.len ? ", " : "", id);
                if (!strcmp(id, c->model) && !found) {
                    found = 1;
                    context_min(info, obj_long(m, "max_model_len"));
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
                cJSON_Delete(root);
                strbuf_release(&names);
                strbuf_release(&url);
                strbuf_release(&resp);
                *reason = CLIENT_R_MODEL_NOT_FOUND;
                return CLIENT_FATAL;
            }
        }
        cJSON_Delete(root);
        strbuf_release(&names);
        strbuf_release(&url);
        strbuf_release(&resp);
    }
    return CLIENT_OK;
}

/* tokenize with one request shape; 0 ok, 1 shape not understood, -1 transport/other error */
static int tokenize_kind(struct client *c, int kind, const char *text, size_t len, long *count,
                         struct strbuf *err)
{
    struct strbuf url = STRBUF_INIT, body = STRBUF_INIT, resp = STRBUF_INIT;
    long status = 0;
    int ret = 1;
    cJSON *root = NULL;
    strbuf_addf(&url, "%s/tokenize", c->ep[0].root);
    if (kind == 1) {
        strbuf_addstr(&body, "{\"model\":");
        json_escape(&body, c->model, strlen(c->model));
        strbuf_addstr(&body, ",\"add_special_tokens\":false,\"prompt\":");
    } else {
        strbuf_addstr(&body, "{\"add_special\":false,\"content\":");
    }
    json_escape(&body, text, len);
    strbuf_addch(&body, '}');
    if (http_sync(c, url.buf, body.buf, body.len, &status, &resp, err)) {
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
    root = cJSON_ParseWithLength(resp.buf, resp.len);
    {
        const cJSON *cnt = obj_get(root, "count");
        const cJSON *toks = obj_get(root, "tokens");
        if (cJSON_IsNumber(cnt) && cnt->valuedouble >= 0) {
            *count = (long)cnt->valuedouble;
            ret = 0;
        } else if (cJSON_IsArray(toks)) {
            *count = (long)cJSON_GetArraySize(toks);
            /* llama.cpp ignores {"prompt"} and answers [] — not an answer */
            ret = (*count == 0 && len > 0 && kind == 1) ? 1 : 0;
        } else {
            strbuf_addf(err, "%s: unexpected /tokenize answer", url.buf);
        }
    }
out:
    cJSON_Delete(root);
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
        r = tokenize_kind(c, c->tok_kind, text, len, count, &e1);
        if (r) {
            strbuf_add(err, e1.buf, e1.len);
            if (!e1.len)
                strbuf_addstr(err, "server /tokenize gave no token count");
        }
        strbuf_release(&e1);
        return r ? -1 : 0;
    }
    /* detect: vLLM/SGLang {"prompt"} first (llama.cpp answers it with []), then llama.cpp */
    r = tokenize_kind(c, 1, text, len, count, &e1);
    if (r == 0) {
        c->tok_kind = 1;
    } else if (r == 1 || r == -2) {
        int r2 = tokenize_kind(c, 2, text, len, count, &e2);
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

int client_tokenize(struct client *c, const char *text, size_t len, long *count, struct strbuf *err)
{
    int r;
    pthread_mutex_lock(&c->sync_lock);
    r = tokenize_locked(c, text, len, count, err);
    pthread_mutex_unlock(&c->sync_lock);
    return r;
}

int client_tokenize_cb(void *client, const char *text, size_t len, long *count, struct strbuf *err)
{
    return client_tokenize(client, text, len, count, err);
}

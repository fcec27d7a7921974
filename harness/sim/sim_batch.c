/*
 * serve-sim's Batch API: /v1/files (multipart upload, metadata, content) and /v1/batches
 * (create, get, list, cancel), held in memory. A batch goes validating -> in_progress ->
 * finalizing -> completed (or expired when some lines expired; failed when its input does
 * not validate; cancelling -> cancelled), each state lasting --batch-delay-ms; its lines are
 * answered by the same generation code as POST /v1/chat/completions when it leaves
 * in_progress. Lines may be made to expire, fail with a server error or come back malformed
 * (--batch-expire, --batch-errors, --batch-malformed) for the client's tests. The objects
 * carry every field of OpenAI's File and Batch objects (the state's timestamps, usage), as
 * the official SDK reads them; files can be listed and deleted.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "base/json.h"
#include "base/num.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "sim/sim-int.h"
#include "base/hash.h"
#include "base/utc.h"

#include "base/banned.h"

struct sim_file {
    char *id, *name, *purpose;
    struct strbuf data;
    double created;
};

struct sim_batch {
    char *id, *input_file_id, *endpoint, *window, *metadata; /* metadata: JSON text or NULL */
    char *output_file_id, *error_file_id;
    char *errors;         /* JSON text of errors.data, or NULL */
    char *model;          /* the first line's body "model", or NULL */
    double t0, cancel_at; /* ms (monotonic); cancel_at 0: not cancelled */
    double created;       /* s (wall clock): created_at; the other timestamps follow from t0 */
    int seq;
    int validated, processed, failed;
    long total, completed, nfailed;
    int any_expired;
    long in_tokens, out_tokens, cached_tokens, reasoning_tokens; /* the answered lines' usage */
};

struct sim_batches {
    const struct sim_config *cfg;
    pthread_mutex_t lock;
    struct sim_file *files;
    size_t nfiles, afiles;
    struct sim_batch *batches;
    size_t nbatches, abatches;
    unsigned long next_id;
};

static int is_final(const char *status)
{
    return !strcmp(status, "failed") || !strcmp(status, "completed") ||
           !strcmp(status, "expired") || !strcmp(status, "cancelled");
}

struct sim_batches *sim_batches_new(const struct sim_config *cfg)
{
    struct sim_batches *b = xcalloc(1, sizeof(*b));
    b->cfg = cfg;
    pthread_mutex_init(&b->lock, NULL);
    return b;
}

void sim_batches_free(struct sim_batches *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->nfiles; i++) {
        free(b->files[i].id);
        free(b->files[i].name);
        free(b->files[i].purpose);
        strbuf_release(&b->files[i].data);
    }
    for (size_t i = 0; i < b->nbatches; i++) {
        struct sim_batch *x = &b->batches[i];
        free(x->id);
        free(x->input_file_id);
        free(x->endpoint);
        free(x->window);
        free(x->metadata);
        free(x->output_file_id);
        free(x->error_file_id);
        free(x->errors);
        free(x->model);
    }
    free(b->files);
    free(b->batches);
    pthread_mutex_destroy(&b->lock);
    free(b);
}

static void answer(struct sim_answer *a, int status, const char *content_type, struct strbuf *sb)
{
    a->status = status;
    a->content_type = content_type;
    a->len = sb->len;
    a->body = strbuf_detach(sb, NULL);
}

static void answer_json(struct sim_answer *a, int status, struct json *o)
{
    struct strbuf sb = STRBUF_INIT;
    json_print(&sb, o, 0);
    json_free(o);
    answer(a, status, "application/json", &sb);
}

/* OpenAI's error object: invalid_request_error, param the field at fault (or NULL), code null. */
static void answer_error(struct sim_answer *a, int status, const char *param, const char *fmt, ...)
    DM_PRINTF(4, 5);
static void answer_error(struct sim_answer *a, int status, const char *param, const char *fmt, ...)
{
    struct json *o;
    va_list ap;
    va_start(ap, fmt);
    o = sim_error_object("invalid_request_error", param, NULL, fmt, ap);
    va_end(ap);
    answer_json(a, status, o);
}

static struct sim_file *file_find(struct sim_batches *b, const char *id)
{
    for (size_t i = 0; i < b->nfiles; i++)
        if (!strcmp(b->files[i].id, id))
            return &b->files[i];
    return NULL;
}

static struct sim_batch *batch_find(struct sim_batches *b, const char *id)
{
    for (size_t i = 0; i < b->nbatches; i++)
        if (!strcmp(b->batches[i].id, id))
            return &b->batches[i];
    return NULL;
}

static struct sim_file *file_new(struct sim_batches *b, const char *name, const char *purpose)
{
    struct sim_file *f;
    char id[40];
    ALLOC_GROW(b->files, b->nfiles + 1, b->afiles);
    f = &b->files[b->nfiles++];
    memset(f, 0, sizeof(*f));
    snprintf(id, sizeof(id), "file-sim%06lu", ++b->next_id);
    f->id = xstrdup(id);
    f->name = xstrdup(name);
    f->purpose = xstrdup(purpose);
    strbuf_init(&f->data, 0);
    f->created = (double)time(NULL);
    return f;
}

static struct json *file_json(const struct sim_file *f)
{
    struct json *o = json_new_object();
    json_add_str(o, "id", f->id);
    json_add_str(o, "object", "file");
    json_add_num(o, "bytes", (double)f->data.len);
    json_add_num(o, "created_at", f->created);
    json_add_str(o, "filename", f->name);
    json_add_str(o, "purpose", f->purpose);
    json_add_str(o, "status", "processed");
    json_add_null(o, "status_details");
    json_add_null(o, "expires_at");
    return o;
}

/* ---- multipart/form-data (what curl's mime API sends) ------------------------ */

static const char *memfind(const char *hay, size_t n, const char *needle, size_t m)
{
    return m && n >= m ? memmem(hay, n, needle, m) : NULL;
}

/* The value of attribute attr ("name", "filename") in a Content-Disposition header block. */
static int part_attr(const char *h, size_t n, const char *attr, struct strbuf *out)
{
    struct strbuf pat = STRBUF_INIT;
    const char *p, *q;
    strbuf_addf(&pat, " %s=\"", attr);
    p = memfind(h, n, pat.buf, pat.len);
    if (!p) {
        strbuf_reset(&pat);
        strbuf_addf(&pat, ";%s=\"", attr);
        p = memfind(h, n, pat.buf, pat.len);
    }
    if (!p) {
        strbuf_release(&pat);
        return -1;
    }
    p += pat.len;
    strbuf_release(&pat);
    q = memchr(p, '"', (size_t)(h + n - p));
    if (!q)
        return -1;
    strbuf_add(out, p, (size_t)(q - p));
    return 0;
}

/* Split the form into its "purpose" value and its "file" part (name and bytes). */
static int parse_form(const char *ctype, const char *body, size_t len, struct strbuf *purpose,
                      struct strbuf *fname, struct strbuf *data, struct strbuf *err)
{
    const char *bd = ctype ? strstr(ctype, "boundary=") : NULL;
    struct strbuf delim = STRBUF_INIT, crlf_delim = STRBUF_INIT;
    const char *p, *end = body + len;
    int have_file = 0;
    if (!bd || strncmp(ctype, "multipart/form-data", 19)) {
        strbuf_addstr(err, "expected a multipart/form-data body");
        return -1;
    }
    bd += 9;
    strbuf_addstr(&delim, "--");
    strbuf_add(&delim, bd + (*bd == '"'), strcspn(bd + (*bd == '"'), "\";"));
    strbuf_addstr(&crlf_delim, "\r\n");
    strbuf_add(&crlf_delim, delim.buf, delim.len);
    p = memfind(body, len, delim.buf, delim.len);
    while (p) {
        const char *hdr, *hend, *next;
        struct strbuf name = STRBUF_INIT;
        p += delim.len;
        if (end - p >= 2 && !memcmp(p, "--", 2))
            break; /* the closing delimiter */
        hdr = p;
        hend = memfind(hdr, (size_t)(end - hdr), "\r\n\r\n", 4);
        if (!hend)
            break;
        next = memfind(hend + 4, (size_t)(end - hend - 4), crlf_delim.buf, crlf_delim.len);
        if (!next)
            break;
        if (part_attr(hdr, (size_t)(hend - hdr), "name", &name) == 0) {
            if (!strcmp(name.buf, "purpose"))
                strbuf_add(purpose, hend + 4, (size_t)(next - hend - 4));
            else if (!strcmp(name.buf, "file")) {
                part_attr(hdr, (size_t)(hend - hdr), "filename", fname);
                strbuf_add(data, hend + 4, (size_t)(next - hend - 4));
                have_file = 1;
            }
        }
        strbuf_release(&name);
        p = next + 2;
    }
    strbuf_release(&delim);
    strbuf_release(&crlf_delim);
    if (!have_file) {
        strbuf_addstr(err, "the form has no \"file\" part");
        return -1;
    }
    return 0;
}

static void files_post(struct sim_batches *b, const char *ctype, const char *body, size_t len,
                       struct sim_answer *a)
{
    struct strbuf purpose = STRBUF_INIT, fname = STRBUF_INIT, data = STRBUF_INIT, err = STRBUF_INIT;
    if (parse_form(ctype, body, len, &purpose, &fname, &data, &err) < 0) {
        answer_error(a, 400, "file", "%s", err.buf);
    } else if (strcmp(purpose.buf, "batch")) {
        answer_error(a, 400, "purpose",
                     "serve-sim takes files of purpose \"batch\" only, not \"%s\"", purpose.buf);
    } else {
        struct sim_file *f = file_new(b, fname.len ? fname.buf : "upload", purpose.buf);
        f->data = data;
        strbuf_init(&data, 0);
        answer_json(a, 200, file_json(f));
    }
    strbuf_release(&purpose);
    strbuf_release(&fname);
    strbuf_release(&data);
    strbuf_release(&err);
}

/* ---- batches ---------------------------------------------------------------- */

static const char *batch_status(const struct sim_batches *b, const struct sim_batch *x, double t)
{
    double d = (double)b->cfg->batch_delay_ms;
    if (x->cancel_at > 0) /* cancelling lasts a tenth of a state (a cancel is quick) */
        return t >= x->cancel_at + d / 10 ? "cancelled" : "cancelling";
    if (x->failed)
        return "failed";
    if (t < x->t0 + d || !x->validated)
        return "validating";
    if (t < x->t0 + 2 * d || !x->processed)
        return "in_progress";
    if (t < x->t0 + 3 * d)
        return "finalizing";
    return x->any_expired ? "expired" : "completed";
}

/* Records a validation error (line 0: the file as a whole). */
static void invalid(struct sim_batch *x, long line, const char *code, const char *msg)
{
    struct json *arr = x->errors ? json_parse_str(x->errors) : json_new_array();
    struct json *e = json_new_object();
    struct strbuf sb = STRBUF_INIT;
    json_add_str(e, "code", code);
    json_add_str(e, "message", msg);
    if (line > 0)
        json_add_num(e, "line", (double)line);
    else
        json_add_null(e, "line");
    json_add(arr, NULL, e);
    json_print(&sb, arr, 0);
    json_free(arr);
    free(x->errors);
    x->errors = strbuf_detach(&sb, NULL);
    x->failed = 1;
}

/* The input file's checks (the provider's validating state). */
static void validate(struct sim_batches *b, struct sim_batch *x)
{
    const struct sim_file *f = file_find(b, x->input_file_id);
    const char *p, *end;
    long line = 0;
    struct strvec ids = STRVEC_INIT;
    x->validated = 1;
    if (!f) {
        invalid(x, 0, "file_not_found", "the input file no longer exists");
        return;
    }
    if (b->cfg->batch_max_bytes > 0 && (long)f->data.len > b->cfg->batch_max_bytes) {
        struct strbuf m = STRBUF_INIT;
        strbuf_addf(&m, "the input file has %zu bytes; the limit is %ld", f->data.len,
                    b->cfg->batch_max_bytes);
        invalid(x, 0, "file_too_large", m.buf);
        strbuf_release(&m);
        return;
    }
    for (p = f->data.buf, end = p + f->data.len; p < end && !x->failed;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        struct json *o;
        line++;
        if (n) {
            const char *cid, *url;
            o = json_parse(p, n, NULL);
            cid = json_get_str(o, "custom_id");
            url = json_get_str(o, "url");
            if (json_kind(o) != JSON_OBJECT)
                invalid(x, line, "invalid_json_line", "this line is not a JSON object");
            else if (!cid)
                invalid(x, line, "missing_required_parameter", "the line has no custom_id");
            else if (!url || strcmp(url, x->endpoint))
                invalid(x, line, "invalid_url", "the line's url differs from the batch endpoint");
            else if (json_kind(json_get(o, "body")) != JSON_OBJECT)
                invalid(x, line, "invalid_request", "the line has no body object");
            else {
                for (size_t i = 0; i < ids.nr; i++)
                    if (!strcmp(ids.v[i], cid)) {
                        invalid(x, line, "duplicate_custom_id", "custom_id is not unique");
                        break;
                    }
                strvec_push(&ids, cid);
                if (!x->model && json_get_str(json_get(o, "body"), "model"))
                    x->model = xstrdup(json_get_str(json_get(o, "body"), "model"));
            }
            json_free(o);
        }
        p += n + 1;
    }
    if (!x->failed && b->cfg->batch_max_requests > 0 && (long)ids.nr > b->cfg->batch_max_requests) {
        struct strbuf m = STRBUF_INIT;
        strbuf_addf(&m, "the input file has %zu requests; the limit per batch is %ld", ids.nr,
                    b->cfg->batch_max_requests);
        invalid(x, 0, "too_many_requests", m.buf);
        strbuf_release(&m);
    }
    if (!x->failed)
        x->total = (long)ids.nr;
    strvec_clear(&ids);
}

/* A draw in [0,1) for one line of one batch (the same line draws anew in a new batch). */
static double line_draw(const struct sim_batch *x, const char *cid, uint64_t salt)
{
    uint64_t h = fnv64_str(FNV64_INIT ^ salt ^ ((uint64_t)x->seq << 32), cid);
    return sim_to_unit(sim_mix64(h));
}

static void add_line(struct strbuf *file, const char *rid, const char *cid, int status,
                     struct json *body, const char *code, const char *msg)
{
    struct json *o = json_new_object();
    json_add_str(o, "id", rid);
    json_add_str(o, "custom_id", cid);
    if (body) {
        struct json *r = json_add_object(o, "response");
        json_add_num(r, "status_code", status);
        json_add_str(r, "request_id", rid);
        json_add(r, "body", body);
        json_add_null(o, "error");
    } else {
        struct json *e;
        json_add_null(o, "response");
        e = json_add_object(o, "error");
        json_add_str(e, "code", code);
        json_add_str(e, "message", msg);
    }
    json_print(file, o, 0);
    strbuf_addch(file, '\n');
    json_free(o);
}

/* Add a 200 line's usage to the batch's (OpenAI's Batch.usage). */
static void add_usage(struct sim_batch *x, const struct json *body)
{
    const struct json *u = json_get(body, "usage");
    x->in_tokens += (long)json_num(json_get(u, "prompt_tokens"), 0);
    x->out_tokens += (long)json_num(json_get(u, "completion_tokens"), 0);
    x->cached_tokens +=
        (long)json_num(json_get(json_get(u, "prompt_tokens_details"), "cached_tokens"), 0);
    x->reasoning_tokens +=
        (long)json_num(json_get(json_get(u, "completion_tokens_details"), "reasoning_tokens"), 0);
}

/* Answer one line o (custom_id cid, response id rid) into the output or the error file. */
static void answer_line(struct sim_server *s, struct sim_batches *b, struct sim_batch *x,
                        const struct json *o, const char *rid, struct strbuf *out,
                        struct strbuf *errs)
{
    const char *cid = json_get_str(o, "custom_id");
    struct strbuf req = STRBUF_INIT;
    char *ans = NULL;
    size_t alen = 0;
    int status;
    struct json *body;
    if (line_draw(x, cid, 0xe7) < b->cfg->batch_expire) {
        add_line(errs, rid, cid, 0, NULL, "batch_expired",
                 "This request could not be executed before the completion window expired.");
        x->any_expired = 1;
        x->nfailed++;
        return;
    }
    if (line_draw(x, cid, 0x5e) < b->cfg->batch_errors) {
        struct json *e;
        body = json_new_object();
        e = json_add_object(body, "error");
        json_add_str(e, "message", "The server had an error while processing your request.");
        json_add_str(e, "type", "server_error");
        add_line(errs, rid, cid, 500, body, NULL, NULL);
        x->nfailed++;
        return;
    }
    json_print(&req, json_get(o, "body"), 0);
    status = sim_generate(s, !strcmp(x->endpoint, "/v1/chat/completions"), req.buf, req.len, &ans,
                          &alen);
    strbuf_release(&req);
    body = json_parse(ans ? ans : "", alen, NULL);
    if (!body) {
        body = json_new_object();
        json_add_str(body, "raw", ans ? ans : "");
    }
    if (status == 200)
        add_usage(x, body);
    if (status == 200 && line_draw(x, cid, 0xaa) < b->cfg->batch_malformed) {
        /* a line cut short, as a broken download or a provider bug leaves it */
        struct strbuf tmp = STRBUF_INIT;
        add_line(&tmp, rid, cid, status, body, NULL, NULL);
        strbuf_add(out, tmp.buf, tmp.len / 2);
        strbuf_addch(out, '\n');
        strbuf_release(&tmp);
        x->completed++;
    } else if (status == 200) {
        add_line(out, rid, cid, status, body, NULL, NULL);
        x->completed++;
    } else {
        add_line(errs, rid, cid, status, body, NULL, NULL);
        x->nfailed++;
    }
    free(ans);
}

/* A file of purpose batch_output named after the batch ("ID_output.jsonl"); takes data. */
static char *output_file(struct sim_batches *b, const struct sim_batch *x, const char *kind,
                         struct strbuf *data)
{
    struct strbuf name = STRBUF_INIT;
    struct sim_file *f;
    strbuf_addf(&name, "%s_%s.jsonl", x->id, kind);
    f = file_new(b, name.buf, "batch_output");
    f->data = *data;
    strbuf_init(data, 0);
    strbuf_release(&name);
    return xstrdup(f->id);
}

/* Answer every line (leaving in_progress): the output and error files. */
static void answer_batch_lines(struct sim_server *s, struct sim_batches *b, struct sim_batch *x)
{
    const struct sim_file *f = file_find(b, x->input_file_id);
    struct strbuf out = STRBUF_INIT, errs = STRBUF_INIT;
    const char *p = f ? f->data.buf : "", *end = f ? p + f->data.len : p;
    long n = 0;
    /* f stays put: the lines are answered under the lock, and files are added after them */
    x->processed = 1;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        struct json *o = len ? json_parse(p, len, NULL) : NULL;
        char rid[48];
        p += len + 1;
        if (!o)
            continue;
        snprintf(rid, sizeof(rid), "batch_req_%d_%ld", x->seq, ++n);
        answer_line(s, b, x, o, rid, &out, &errs);
        json_free(o);
    }
    if (out.len)
        x->output_file_id = output_file(b, x, "output", &out);
    if (errs.len)
        x->error_file_id = output_file(b, x, "error", &errs);
    strbuf_release(&out);
    strbuf_release(&errs);
}

/* Bring x up to time t: validate when validating is over, answer when in_progress is. */
static void advance(struct sim_server *s, struct sim_batches *b, struct sim_batch *x, double t)
{
    double d = (double)b->cfg->batch_delay_ms;
    if (x->cancel_at > 0)
        return;
    if (!x->validated && t >= x->t0 + d)
        validate(b, x);
    if (x->validated && !x->failed && !x->processed && t >= x->t0 + 2 * d)
        answer_batch_lines(s, b, x);
}

/* A timestamp of the batch (Unix seconds) at monotonic ms t, or null when when is 0. */
static void add_time(struct json *o, const char *key, const struct sim_batch *x, int when, double t)
{
    if (when)
        json_add_num(o, key, floor(x->created + (t - x->t0) / 1000.0));
    else
        json_add_null(o, key);
}

/*
 * The timestamps of OpenAI's Batch object: each state's start once the batch reached it
 * (validating at t0, in_progress at t0 + d, finalizing at t0 + 2d, the end at t0 + 3d;
 * failed when validation ends; cancelling when asked, cancelled a tenth of d later), null
 * before; expires_at the end of the 24 h window.
 */
static void batch_times(struct json *o, const struct sim_batches *b, const struct sim_batch *x,
                        const char *st)
{
    double d = (double)b->cfg->batch_delay_ms;
    add_time(o, "created_at", x, 1, x->t0);
    add_time(o, "in_progress_at", x, x->validated && !x->failed, x->t0 + d);
    add_time(o, "expires_at", x, 1, x->t0 + 24 * 3600 * 1000.0);
    add_time(o, "finalizing_at", x, x->processed, x->t0 + 2 * d);
    add_time(o, "completed_at", x, !strcmp(st, "completed"), x->t0 + 3 * d);
    add_time(o, "failed_at", x, !strcmp(st, "failed"), x->t0 + d);
    add_time(o, "expired_at", x, !strcmp(st, "expired"), x->t0 + 3 * d);
    add_time(o, "cancelling_at", x, x->cancel_at > 0, x->cancel_at);
    add_time(o, "cancelled_at", x, !strcmp(st, "cancelled"), x->cancel_at + d / 10);
}

/* OpenAI's Batch.usage: the answered lines' tokens (zero until they are answered). */
static void batch_usage(struct json *o, const struct sim_batch *x)
{
    struct json *u = json_add_object(o, "usage");
    json_add_num(u, "input_tokens", (double)x->in_tokens);
    json_add_num(json_add_object(u, "input_tokens_details"), "cached_tokens",
                 (double)x->cached_tokens);
    json_add_num(u, "output_tokens", (double)x->out_tokens);
    json_add_num(json_add_object(u, "output_tokens_details"), "reasoning_tokens",
                 (double)x->reasoning_tokens);
    json_add_num(u, "total_tokens", (double)(x->in_tokens + x->out_tokens));
}

static struct json *batch_json(const struct sim_batches *b, const struct sim_batch *x, double t)
{
    struct json *o = json_new_object(), *rc;
    const char *st = batch_status(b, x, t);
    double d = (double)b->cfg->batch_delay_ms;
    long done = x->completed, failed = x->nfailed;
    json_add_str(o, "id", x->id);
    json_add_str(o, "object", "batch");
    json_add_str(o, "endpoint", x->endpoint);
    if (x->model)
        json_add_str(o, "model", x->model);
    else
        json_add_null(o, "model");
    if (x->errors) {
        struct json *e = json_add_object(o, "errors");
        json_add_str(e, "object", "list");
        json_add(e, "data", json_parse_str(x->errors));
    } else {
        json_add_null(o, "errors");
    }
    json_add_str(o, "input_file_id", x->input_file_id);
    json_add_str(o, "completion_window", x->window);
    json_add_str(o, "status", st);
    /* the files appear once the batch is final (OpenAI: null before) */
    if (is_final(st) && x->output_file_id)
        json_add_str(o, "output_file_id", x->output_file_id);
    else
        json_add_null(o, "output_file_id");
    if (is_final(st) && x->error_file_id)
        json_add_str(o, "error_file_id", x->error_file_id);
    else
        json_add_null(o, "error_file_id");
    batch_times(o, b, x, st);
    if (!strcmp(st, "in_progress") && d > 0) {
        /* progress as the provider shows it: a share of the lines, by time */
        double share = (t - x->t0 - d) / d;
        done = (long)(share * (double)x->total);
        failed = 0;
    } else if (!strcmp(st, "validating")) {
        done = failed = 0;
    }
    rc = json_add_object(o, "request_counts");
    json_add_num(rc, "total", (double)x->total);
    json_add_num(rc, "completed", (double)done);
    json_add_num(rc, "failed", (double)failed);
    if (x->metadata)
        json_add(o, "metadata", json_parse_str(x->metadata));
    else
        json_add_null(o, "metadata");
    batch_usage(o, x);
    return o;
}

static void batches_create(struct sim_batches *b, const char *body, size_t len,
                           struct sim_answer *a)
{
    struct json *req = json_parse(body, len, NULL);
    const char *in = json_get_str(req, "input_file_id"), *ep = json_get_str(req, "endpoint"),
               *win = json_get_str(req, "completion_window");
    const struct json *meta = json_get(req, "metadata");
    struct sim_batch *x;
    char id[40];
    if (!in || !ep || !win) {
        answer_error(a, 400,
                     !in   ? "input_file_id"
                     : !ep ? "endpoint"
                           : "completion_window",
                     "input_file_id, endpoint and completion_window are required");
    } else if (!file_find(b, in)) {
        answer_error(a, 404, "input_file_id", "No such File object: %s", in);
    } else if (strcmp(ep, "/v1/chat/completions") && strcmp(ep, "/v1/completions")) {
        answer_error(a, 400, "endpoint",
                     "endpoint must be /v1/chat/completions or /v1/completions");
    } else if (strcmp(win, "24h")) {
        answer_error(a, 400, "completion_window", "completion_window must be 24h");
    } else {
        ALLOC_GROW(b->batches, b->nbatches + 1, b->abatches);
        x = &b->batches[b->nbatches++];
        memset(x, 0, sizeof(*x));
        snprintf(id, sizeof(id), "batch_sim%06lu", ++b->next_id);
        x->id = xstrdup(id);
        x->seq = (int)b->nbatches;
        x->input_file_id = xstrdup(in);
        x->endpoint = xstrdup(ep);
        x->window = xstrdup(win);
        if (json_kind(meta) == JSON_OBJECT)
            x->metadata = json_print_str(meta, 0);
        x->t0 = utc_monotonic_ms();
        x->created = (double)time(NULL);
        answer_json(a, 200, batch_json(b, x, x->t0));
    }
    json_free(req);
}

/*
 * ?limit= of a list: 1..max (default def), or -1 with OpenAI's 400 in a.
 */
static long list_limit(const struct sim_list_query *q, long def, long max, struct sim_answer *a)
{
    long n = def;
    if (q->limit && parse_long_range(q->limit, 1, max, &n)) {
        answer_error(a, 400, "limit", "Invalid 'limit': expected an integer in 1..%ld, got '%s'.",
                     max, q->limit);
        return -1;
    }
    return n;
}

/*
 * A cursor page of OpenAI's lists: {"object":"list","data","first_id","last_id","has_more"}.
 * ids[0..n) in the listing order; the page [*from, *to) starts after the id q->after names;
 * the caller adds its objects to *data.
 */
static struct json *list_page(const char *const *ids, size_t n, const struct sim_list_query *q,
                              long limit, size_t *from, size_t *to, struct json **data)
{
    struct json *o = json_new_object();
    size_t i = 0;
    if (q->after) {
        while (i < n && strcmp(ids[i], q->after))
            i++;
        i = i < n ? i + 1 : n;
    }
    *from = i;
    *to = i + (size_t)limit < n ? i + (size_t)limit : n;
    json_add_str(o, "object", "list");
    *data = json_add_array(o, "data");
    if (*to > *from) {
        json_add_str(o, "first_id", ids[*from]);
        json_add_str(o, "last_id", ids[*to - 1]);
    } else {
        json_add_null(o, "first_id");
        json_add_null(o, "last_id");
    }
    json_add_bool(o, "has_more", *to < n);
    return o;
}

/* GET /v1/batches: newest first, ?after= and ?limit= (default 20, at most 100). */
static void batches_list(struct sim_server *s, struct sim_batches *b,
                         const struct sim_list_query *q, struct sim_answer *a)
{
    double t = utc_monotonic_ms();
    long limit = list_limit(q, 20, 100, a);
    const char **ids;
    struct json *o, *data;
    size_t from, to;
    if (limit < 0)
        return;
    ids = xcalloc(b->nbatches + 1, sizeof(*ids));
    for (size_t i = 0; i < b->nbatches; i++)
        ids[i] = b->batches[b->nbatches - 1 - i].id;
    o = list_page(ids, b->nbatches, q, limit, &from, &to, &data);
    for (size_t i = from; i < to; i++) {
        struct sim_batch *x = &b->batches[b->nbatches - 1 - i];
        advance(s, b, x, t);
        json_add(data, NULL, batch_json(b, x, t));
    }
    free(ids);
    answer_json(a, 200, o);
}

/* GET /v1/files: ?purpose=, ?order=asc|desc (default desc), ?after=, ?limit= (1..10000). */
static void files_list(struct sim_batches *b, const struct sim_list_query *q, struct sim_answer *a)
{
    long limit = list_limit(q, 10000, 10000, a);
    int asc = q->order && !strcmp(q->order, "asc");
    const char **ids;
    const struct sim_file **fs;
    struct json *o, *data;
    size_t n = 0, from, to;
    if (limit < 0)
        return;
    if (q->order && !asc && strcmp(q->order, "desc")) {
        answer_error(a, 400, "order", "Invalid 'order': expected 'asc' or 'desc', got '%s'.",
                     q->order);
        return;
    }
    ids = xcalloc(b->nfiles + 1, sizeof(*ids));
    fs = xcalloc(b->nfiles + 1, sizeof(*fs));
    for (size_t k = 0; k < b->nfiles; k++) {
        const struct sim_file *f = &b->files[asc ? k : b->nfiles - 1 - k];
        if (q->purpose && strcmp(q->purpose, f->purpose))
            continue;
        fs[n] = f;
        ids[n++] = f->id;
    }
    o = list_page(ids, n, q, limit, &from, &to, &data);
    for (size_t i = from; i < to; i++)
        json_add(data, NULL, file_json(fs[i]));
    free(ids);
    free(fs);
    answer_json(a, 200, o);
}

/* DELETE /v1/files/{id}: {"id","object":"file","deleted":true}. */
static void files_delete(struct sim_batches *b, struct sim_file *f, struct sim_answer *a)
{
    struct json *o = json_new_object();
    size_t i = (size_t)(f - b->files);
    json_add_str(o, "id", f->id);
    json_add_str(o, "object", "file");
    json_add_bool(o, "deleted", 1);
    free(f->id);
    free(f->name);
    free(f->purpose);
    strbuf_release(&f->data);
    memmove(f, f + 1, (b->nfiles - i - 1) * sizeof(*f));
    b->nfiles--;
    answer_json(a, 200, o);
}

/* /v1/files/{id}[/content]: GET the object or its bytes, DELETE it. */
static void file_request(struct sim_batches *b, const char *method, const char *path,
                         struct sim_answer *a)
{
    const char *id = path + 10, *slash = strchr(id, '/');
    struct strbuf fid = STRBUF_INIT;
    struct sim_file *f;
    int get = !strcmp(method, "GET") || !strcmp(method, "HEAD");
    strbuf_add(&fid, id, slash ? (size_t)(slash - id) : strlen(id));
    f = file_find(b, fid.buf);
    if (slash && strcmp(slash, "/content")) {
        answer_error(a, 404, NULL, "Invalid URL (%s %s)", method, path);
    } else if (!(get || (!slash && !strcmp(method, "DELETE")))) {
        answer_error(a, 405, NULL, "Invalid method for URL (%s %s)", method, path);
    } else if (!f) {
        answer_error(a, 404, "id", "No such File object: %s", fid.buf);
    } else if (!strcmp(method, "DELETE")) {
        files_delete(b, f, a);
    } else if (!slash) {
        answer_json(a, 200, file_json(f));
    } else {
        struct strbuf sb = STRBUF_INIT;
        strbuf_add(&sb, f->data.buf, f->data.len);
        answer(a, 200, "application/octet-stream", &sb);
    }
    strbuf_release(&fid);
}

/* /v1/batches/{id}[/cancel]: GET the batch, POST a cancel. */
static void batch_request(struct sim_server *s, struct sim_batches *b, const char *method,
                          const char *path, struct sim_answer *a)
{
    const char *id = path + 12, *slash = strchr(id, '/');
    struct strbuf bid = STRBUF_INIT;
    struct sim_batch *x;
    double t = utc_monotonic_ms();
    int get = !strcmp(method, "GET") || !strcmp(method, "HEAD");
    strbuf_add(&bid, id, slash ? (size_t)(slash - id) : strlen(id));
    x = batch_find(b, bid.buf);
    if (slash && strcmp(slash, "/cancel")) {
        answer_error(a, 404, NULL, "Invalid URL (%s %s)", method, path);
    } else if (slash ? strcmp(method, "POST") : !get) {
        answer_error(a, 405, NULL, "Invalid method for URL (%s %s)", method, path);
    } else if (!x) {
        answer_error(a, 404, "batch_id", "No such Batch object: %s", bid.buf);
    } else if (!slash) {
        advance(s, b, x, t);
        answer_json(a, 200, batch_json(b, x, t));
    } else {
        advance(s, b, x, t);
        if (is_final(batch_status(b, x, t)) && x->cancel_at <= 0) {
            answer_error(a, 400, NULL, "Cannot cancel a batch with status %s",
                         batch_status(b, x, t));
        } else {
            if (x->cancel_at <= 0)
                x->cancel_at = t;
            answer_json(a, 200, batch_json(b, x, t));
        }
    }
    strbuf_release(&bid);
}

int sim_batch_request(struct sim_server *s, struct sim_batches *b, const char *method,
                      const char *path, const char *ctype, const struct sim_list_query *q,
                      const char *body, size_t len, struct sim_answer *a)
{
    int get = !strcmp(method, "GET") || !strcmp(method, "HEAD"), post = !strcmp(method, "POST");
    memset(a, 0, sizeof(*a));
    if (strcmp(path, "/v1/files") && strncmp(path, "/v1/files/", 10) &&
        strcmp(path, "/v1/batches") && strncmp(path, "/v1/batches/", 12))
        return 0;
    pthread_mutex_lock(&b->lock);
    if (!strcmp(path, "/v1/files") && post)
        files_post(b, ctype, body, len, a);
    else if (!strcmp(path, "/v1/files") && get)
        files_list(b, q, a);
    else if (!strncmp(path, "/v1/files/", 10))
        file_request(b, method, path, a);
    else if (!strcmp(path, "/v1/batches") && post)
        batches_create(b, body, len, a);
    else if (!strcmp(path, "/v1/batches") && get)
        batches_list(s, b, q, a);
    else if (!strncmp(path, "/v1/batches/", 12))
        batch_request(s, b, method, path, a);
    else
        answer_error(a, 405, NULL, "Invalid method for URL (%s %s)", method, path);
    pthread_mutex_unlock(&b->lock);
    return 1;
}

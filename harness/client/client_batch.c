/*
 * The OpenAI Batch API calls (files and batches) and the parsing of their output lines: the
 * JSON of each call here, the HTTP in client.c's client_call() (the one file with libcurl).
 */
#include "client/client_batch.h"

#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "client/client.h"
#include "client/client-int.h"

#include "base/banned.h"

void client_batch_init(struct client_batch *b)
{
    memset(b, 0, sizeof(*b));
    b->total = b->completed = b->failed = -1;
}

void client_batch_release(struct client_batch *b)
{
    free(b->id);
    free(b->status);
    free(b->input_file_id);
    free(b->output_file_id);
    free(b->error_file_id);
    free(b->errors);
    free(b->tag);
    client_batch_init(b);
}

int client_batch_is_final(const char *status)
{
    return status && (!strcmp(status, "failed") || !strcmp(status, "completed") ||
                      !strcmp(status, "expired") || !strcmp(status, "cancelled"));
}

static char *dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

/* A non-2xx answer as a message: "HTTP 400: <the provider's message>". */
static int http_error(const char *what, long status, const struct strbuf *resp, struct strbuf *err)
{
    struct strbuf m = STRBUF_INIT;
    client_error_message(resp->buf, resp->len, &m, NULL);
    strbuf_addf(err, "%s: HTTP %ld%s%.500s", what, status, m.len ? ": " : "", m.buf);
    strbuf_release(&m);
    return status == 404 ? CLIENT_BATCH_UNKNOWN : -1;
}

/* A call whose 2xx answer is a JSON object: *out (caller frees with json_free). */
static int call_json(struct client *c, const struct client_call *call, const char *what,
                     struct json **out, struct strbuf *err)
{
    struct strbuf resp = STRBUF_INIT;
    long status = 0;
    int rc;
    *out = NULL;
    if (client_call(c, call, &status, &resp, err) < 0) {
        strbuf_release(&resp);
        return -1;
    }
    if (status < 200 || status > 299) {
        rc = http_error(what, status, &resp, err);
        strbuf_release(&resp);
        return rc;
    }
    *out = json_parse(resp.buf, resp.len, NULL);
    if (json_kind(*out) != JSON_OBJECT) {
        strbuf_addf(err, "%s: the answer is not a JSON object: %.200s", what, resp.buf);
        json_free(*out);
        *out = NULL;
        strbuf_release(&resp);
        return -1;
    }
    strbuf_release(&resp);
    return 0;
}

static long count_of(const struct json *counts, const char *key)
{
    const struct json *v = json_get(counts, key);
    return json_kind(v) == JSON_NUMBER ? (long)json_num(v, -1) : -1;
}

static int batch_of(const struct json *o, const char *what, struct client_batch *out,
                    struct strbuf *err)
{
    const struct json *counts = json_get(o, "request_counts"), *errs, *e;
    client_batch_release(out);
    if (!json_get_str(o, "id") || !json_get_str(o, "status")) {
        strbuf_addf(err, "%s: the answer has no \"id\" or \"status\"", what);
        return -1;
    }
    out->id = xstrdup(json_get_str(o, "id"));
    out->status = xstrdup(json_get_str(o, "status"));
    out->input_file_id = dup_or_null(json_get_str(o, "input_file_id"));
    out->output_file_id = dup_or_null(json_get_str(o, "output_file_id"));
    out->error_file_id = dup_or_null(json_get_str(o, "error_file_id"));
    out->tag = dup_or_null(json_get_str(json_get(o, "metadata"), "dipmap"));
    out->total = count_of(counts, "total");
    out->completed = count_of(counts, "completed");
    out->failed = count_of(counts, "failed");
    errs = json_get(json_get(o, "errors"), "data");
    if (json_kind(errs) == JSON_ARRAY && json_size(errs)) {
        struct strbuf sb = STRBUF_INIT;
        for (size_t i = 0; i < json_size(errs) && i < 10; i++) {
            const struct json *line;
            e = json_at(errs, i);
            line = json_get(e, "line");
            if (sb.len)
                strbuf_addstr(&sb, "; ");
            if (json_kind(line) == JSON_NUMBER)
                strbuf_addf(&sb, "line %.0f: ", json_num(line, 0));
            strbuf_addstr(&sb, json_get_str(e, "message") ? json_get_str(e, "message") : "?");
            if (json_get_str(e, "code"))
                strbuf_addf(&sb, " (%s)", json_get_str(e, "code"));
        }
        out->errors = strbuf_detach(&sb, NULL);
    }
    return 0;
}

int client_file_upload(struct client *c, const char *path, const char *name, struct strbuf *id,
                       struct strbuf *err)
{
    struct client_call call = {
        .path = "/v1/files", .upload_path = path, .upload_name = name, .purpose = "batch"};
    struct json *o;
    int rc = call_json(c, &call, "upload of the batch input file", &o, err);
    if (rc)
        return rc;
    if (!json_get_str(o, "id")) {
        strbuf_addstr(err, "upload of the batch input file: the answer has no \"id\"");
        json_free(o);
        return -1;
    }
    strbuf_addstr(id, json_get_str(o, "id"));
    json_free(o);
    return 0;
}

int client_file_download(struct client *c, const char *id, FILE *out, struct strbuf *err)
{
    struct strbuf path = STRBUF_INIT, resp = STRBUF_INIT, what = STRBUF_INIT;
    struct client_call call;
    long status = 0;
    int rc = -1;
    strbuf_addf(&path, "/v1/files/%s/content", id);
    strbuf_addf(&what, "download of file %s", id);
    memset(&call, 0, sizeof(call));
    call.path = path.buf;
    call.sink = out;
    if (client_call(c, &call, &status, &resp, err) == 0) {
        if (status >= 200 && status <= 299) {
            rc = fflush(out) ? -1 : 0;
            if (rc)
                strbuf_addf(err, "%s: cannot write the downloaded file", what.buf);
        } else {
            /* the error body went to the file: read it back for the message */
            strbuf_addf(err, "%s: HTTP %ld", what.buf, status);
            rc = status == 404 ? CLIENT_BATCH_UNKNOWN : -1;
        }
    }
    strbuf_release(&path);
    strbuf_release(&resp);
    strbuf_release(&what);
    return rc;
}

int client_batch_create(struct client *c, const char *input_file_id, const char *window,
                        const char *tag, struct client_batch *out, struct strbuf *err)
{
    struct strbuf body = STRBUF_INIT;
    struct client_call call;
    struct json *o;
    int rc;
    strbuf_addstr(&body, "{\"input_file_id\":");
    escape_json_n(&body, input_file_id, strlen(input_file_id));
    strbuf_addstr(&body, ",\"endpoint\":");
    escape_json_n(&body, client_request_path(c), strlen(client_request_path(c)));
    strbuf_addstr(&body, ",\"completion_window\":");
    escape_json_n(&body, window, strlen(window));
    if (tag) {
        strbuf_addstr(&body, ",\"metadata\":{\"dipmap\":");
        escape_json_n(&body, tag, strlen(tag));
        strbuf_addch(&body, '}');
    }
    strbuf_addch(&body, '}');
    memset(&call, 0, sizeof(call));
    call.path = "/v1/batches";
    call.body = body.buf;
    call.body_len = body.len;
    rc = call_json(c, &call, "create batch", &o, err);
    strbuf_release(&body);
    if (rc)
        return rc;
    rc = batch_of(o, "create batch", out, err);
    json_free(o);
    return rc;
}

static int batch_call(struct client *c, const char *id, const char *suffix, int post,
                      struct client_batch *out, struct strbuf *err)
{
    struct strbuf path = STRBUF_INIT, what = STRBUF_INIT;
    struct client_call call;
    struct json *o;
    int rc;
    strbuf_addf(&path, "/v1/batches/%s%s", id, suffix);
    strbuf_addf(&what, "%s batch %s", post ? "cancel" : "get", id);
    memset(&call, 0, sizeof(call));
    call.path = path.buf;
    if (post) {
        call.body = "{}";
        call.body_len = 2;
    }
    rc = call_json(c, &call, what.buf, &o, err);
    if (!rc) {
        rc = batch_of(o, what.buf, out, err);
        json_free(o);
    }
    strbuf_release(&path);
    strbuf_release(&what);
    return rc;
}

int client_batch_get(struct client *c, const char *id, struct client_batch *out, struct strbuf *err)
{
    return batch_call(c, id, "", 0, out, err);
}

int client_batch_cancel(struct client *c, const char *id, struct client_batch *out,
                        struct strbuf *err)
{
    return batch_call(c, id, "/cancel", 1, out, err);
}

int client_batch_find(struct client *c, const char *input_file_id, struct client_batch *out,
                      struct strbuf *err)
{
    struct strbuf path = STRBUF_INIT, after = STRBUF_INIT;
    int page, found = 0;
    for (page = 0; page < 10 && !found; page++) {
        struct client_call call;
        struct json *o;
        const struct json *data;
        int rc;
        strbuf_reset(&path);
        strbuf_addstr(&path, "/v1/batches?limit=100");
        if (after.len)
            strbuf_addf(&path, "&after=%s", after.buf);
        memset(&call, 0, sizeof(call));
        call.path = path.buf;
        rc = call_json(c, &call, "list batches", &o, err);
        if (rc) {
            found = -1;
            break;
        }
        data = json_get(o, "data");
        for (size_t i = 0; i < json_size(data) && !found; i++) {
            const struct json *b = json_at(data, i);
            const char *in = json_get_str(b, "input_file_id");
            if (in && !strcmp(in, input_file_id))
                found = batch_of(b, "list batches", out, err) < 0 ? -1 : 1;
        }
        strbuf_reset(&after);
        if (!found && json_is_true(json_get(o, "has_more")) && json_get_str(o, "last_id"))
            strbuf_addstr(&after, json_get_str(o, "last_id"));
        json_free(o);
        if (!after.len)
            break;
    }
    strbuf_release(&path);
    strbuf_release(&after);
    return found;
}

void client_batch_line_init(struct client_batch_line *l)
{
    memset(l, 0, sizeof(*l));
}

void client_batch_line_release(struct client_batch_line *l)
{
    free(l->custom_id);
    free(l->body);
    free(l->error_code);
    free(l->error_message);
    client_batch_line_init(l);
}

int client_batch_line_parse(const char *line, size_t len, struct client_batch_line *out,
                            struct strbuf *err)
{
    struct json *o = json_parse(line, len, NULL);
    const struct json *resp, *e, *body;
    client_batch_line_release(out);
    if (json_kind(o) != JSON_OBJECT) {
        strbuf_addstr(err, "not a JSON object");
        json_free(o);
        return -1;
    }
    if (!json_get_str(o, "custom_id")) {
        strbuf_addstr(err, "no \"custom_id\"");
        json_free(o);
        return -1;
    }
    out->custom_id = xstrdup(json_get_str(o, "custom_id"));
    resp = json_get(o, "response");
    e = json_get(o, "error");
    if (json_kind(resp) == JSON_OBJECT) {
        const struct json *sc = json_get(resp, "status_code");
        struct strbuf sb = STRBUF_INIT;
        out->status = json_kind(sc) == JSON_NUMBER ? (long)json_num(sc, 0) : 0;
        body = json_get(resp, "body");
        if (json_kind(body) == JSON_STRING)
            strbuf_addstr(&sb, json_str(body));
        else if (body)
            json_print(&sb, body, 0);
        out->body_len = sb.len;
        out->body = strbuf_detach(&sb, NULL);
    }
    if (json_kind(e) == JSON_OBJECT) {
        out->error_code = dup_or_null(json_get_str(e, "code"));
        out->error_message = dup_or_null(json_get_str(e, "message"));
        if (!out->error_code && !out->error_message)
            out->error_code = xstrdup("unknown");
    }
    json_free(o);
    if (!out->status && !out->error_code) {
        strbuf_addstr(err, "neither a \"response\" with a status_code nor an \"error\"");
        return -1;
    }
    return 0;
}

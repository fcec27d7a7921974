/*
 * Private to the client (client.c: the transfer loop; client_sync.c: the
 * blocking preflight and /tokenize calls; client_count.c: a request's
 * server-side count; client_classify.c, client_retry_after.c): the client's
 * state and the helpers they share. The only header that includes
 * <curl/curl.h>; client.h stays the API.
 */
#ifndef CLIENT_INT_H
#define CLIENT_INT_H

#include <stddef.h>
#include <stdio.h>

#include <pthread.h>

#include <curl/curl.h>

#include "base/strbuf.h"

struct client;
struct client_response;
struct json;

/* 1 when s starts with prefix, ASCII case-insensitively. */
int client_has_prefix_ci(const char *s, const char *prefix);

/* Appends s[0..len) to sb, control bytes as spaces, at most max bytes (then "...").  */
void client_add_clean(struct strbuf *sb, const char *s, size_t len, size_t max);

/* A non-negative number or numeric string at o[key] (json.h) as a long; -1 when absent or invalid.
 */
long client_obj_long(const struct json *o, const char *key);

/*
 * What an error answer says about the answer-budget field the request sent
 * (field: "max_tokens" or "max_completion_tokens"), the one reading of it for
 * the overhead probe and the trials (client_budget_refused()):
 * CLIENT_BUDGET_FIELD when the server does not support the field (OpenAI's
 * reasoning models: "Unsupported parameter: 'max_tokens' ... Use
 * 'max_completion_tokens' instead."), CLIENT_BUDGET_TOO_SMALL when it refuses
 * the value as below its minimum (*min = the minimum it states, else 0),
 * CLIENT_BUDGET_OK otherwise (another error, or not a 400/422). The error
 * must name the field (its "param", else its message).
 */
enum client_budget_verdict { CLIENT_BUDGET_OK = 0, CLIENT_BUDGET_FIELD, CLIENT_BUDGET_TOO_SMALL };
enum client_budget_verdict client_budget_verdict(long status, const char *body, size_t len,
                                                 const char *field, long *min);

/*
 * One blocking request on the first endpoint for the Files and Batches APIs (client_batch.c),
 * with the run's headers, TLS and timeouts: a GET (body and upload_path NULL), a POST of the
 * JSON body, or with upload_path a multipart form of purpose and the file (streamed from
 * disk). The answer goes into resp (capped at max_response_bytes), or with sink into that
 * file (no cap: output files are large). Returns 0 with *status set when an HTTP answer
 * came, -1 on a transport failure (message in err).
 */
struct client_call {
    const char *path; /* from the server root: "/v1/batches" */
    const char *body; /* JSON to POST, or NULL */
    size_t body_len;
    const char *upload_path, *upload_name, *purpose; /* a multipart upload, or NULL */
    FILE *sink;                                      /* the response into this file, or NULL */
};
int client_call(struct client *c, const struct client_call *call, long *status, struct strbuf *resp,
                struct strbuf *err);

/* Replace every occurrence of the API key in *s (servers echo input). */
void client_redact_key(const struct client *c, char **s);

/* Sets r->error (replacing any) to the formatted message. */
void client_set_error(struct client_response *r, const char *fmt, ...) DM_PRINTF(2, 3);

/* The client's state, shared by the transfer loop (client.c), the blocking calls
 * (client_sync.c) and the request counts (client_count.c). */
#define MAX_HEADER_BYTES (64 * 1024)
/* Handles for concurrent /tokenize counts (one per prompt-building thread). */
#define TOK_POOL 8

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
    int mt_auto;       /* mt_field was chosen by the auto rule: a server may correct it */
    long probe_budget; /* the probe's answer budget, once a server raised it (0: 1) */
    size_t inflight;   /* in curl */
    struct client_response **ready;
    size_t ready_head, ready_nr, ready_alloc;
    struct xfer *free_xfers;
    struct xfer *active; /* in curl, for client_free() */
    CURL *sync;          /* blocking helper handle (preflight, tokenize) */
    /*
     * The first 401/403 a blocking call got (models, /tokenize, /apply-template, the overhead
     * probe) and its URL, for client_auth_refused(); 0 while none. Written under auth_lock:
     * the tokenize pool's threads perform blocking calls too.
     */
    long auth_status;
    char *auth_url;
    pthread_mutex_t auth_lock;
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

void client_add_error_of(struct strbuf *err, const struct strbuf *resp, long status);

/*
 * The one body builder: opens the object with "model", the content (chat: the
 * messages; else "prompt") and every member that reaches the server's template
 * ("reasoning_effort", the --extra-body members such as chat_template_kwargs).
 * Trials (client.c) and the counting requests (client_count.c: vLLM /tokenize,
 * llama.cpp /apply-template, the probe) all start here, so the template overhead
 * is measured on the request that is sent. messages (chat only; NULL: [system,]
 * user): the whole "messages" array as JSON (a layout's turns, prompt_messages_json()),
 * sent as given. The caller adds its own members and the closing brace.
 */
void client_open_body(struct client *c, const char *messages, const char *system, const char *user,
                      size_t ulen, int chat, struct strbuf *b);

/* The cache hints (add_hints()) an extra body of client_extra_body_check() sets. */
enum { HINT_ID_SLOT = 1, HINT_CACHE_PROMPT = 2, HINT_CACHE_SALT = 4, HINT_CACHE_KEY = 8 };

/*
 * A trial's whole body (client_open_body(), then sampling, the answer budget field, "n",
 * "stream" and, with hints, req's cache hints except those the extra body sets), closed.
 */
void client_body_build(struct client *c, const struct client_request *req, int hints,
                       struct strbuf *b);

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
                          size_t len, long *budget);

int client_http_sync(struct client *c, const char *url, const char *body, size_t body_len,
                     long *status, struct strbuf *resp, struct strbuf *err);

/*
 * The buffers of one blocking request (client_sync.c's /tokenize, client_count.c's counts): its
 * url, JSON body, answer and parsed answer. client_sync_req_release() frees them all, the
 * unused ones too; each function has one of these and one release on its way out.
 */
struct client_sync_req {
    struct strbuf url, body, resp;
    struct json *root;
};
#define CLIENT_SYNC_REQ_INIT                                                                       \
    {                                                                                              \
        .url = STRBUF_INIT, .body = STRBUF_INIT, .resp = STRBUF_INIT, .root = NULL                 \
    }
void client_sync_req_release(struct client_sync_req *q);

void client_setup_common(struct client *c, CURL *e);

size_t client_header_cb(char *ptr, size_t size, size_t nmemb, void *ud);

size_t client_write_cb(char *ptr, size_t size, size_t nmemb, void *ud);

#endif

#ifndef CLIENT_H
#define CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "base/sha256.h"
#include "base/strvec.h"

struct strbuf;

/*
 * OpenAI-compatible HTTP client (the only module that includes libcurl).
 *
 * - A non-blocking multi interface for one event loop: client_submit() starts
 *   a request and returns at once; client_poll() drives the transfers and
 *   client_take() hands back finished responses, each classified.
 * - Pure functions (no network) for the classifier, Retry-After parsing,
 *   backoff, adaptive concurrency and token buckets, so they can be unit
 *   tested and fuzzed. The runner drives the retry policy with them; the
 *   client itself never retries.
 * - Blocking helpers for the preflight (GET /v1/models, /props) and for
 *   server-side token counting (POST /tokenize).
 *
 * The API key is copied into the client to build the Authorization header; it
 * is never written to stderr (verbose output redacts it), never put into an
 * error message and is wiped when the client is freed.
 */

/* ---------------------------------------------------------------- classes */

enum client_class {
    CLIENT_OK = 0,    /* content present, finished normally */
    CLIENT_OVERFLOW,  /* server says the context was exceeded (400/413/422); do not retry */
    CLIENT_TRUNCATED, /* the server shortened the prompt: usage.prompt_tokens clearly below what
                         was sent (context shift). An answer cut at max_tokens is CLIENT_OK+cut */
    CLIENT_EMPTY,     /* no content and no sign of reasoning */
    CLIENT_STARVED,   /* no answer after reasoning (reasoning text or tokens, or tokens spent
                         with nothing shown and finish_reason length): the budget went to it */
    CLIENT_FILTERED,  /* content filter (finish_reason content_filter or a filter error) */
    CLIENT_RETRYABLE, /* 408/409/429/5xx, transport failure, unparseable 200, 200 with an error */
    CLIENT_FATAL,     /* fatal for the whole run: auth, missing model, quota, unsupported param */
    CLIENT_CLASS__COUNT
};

/* "ok", "overflow", "truncated", "empty", "starved", "filtered", "retryable", "fatal". */
const char *client_class_name(enum client_class c);

/*
 * Finer reason behind a class, for decisions (shrink concurrency only on
 * rate limits; exit 2 for auth/model/parameter but 3 for quota) and reports.
 */
enum client_reason {
    CLIENT_R_NONE = 0,
    CLIENT_R_LENGTH,            /* STARVED: finish_reason length */
    CLIENT_R_PROMPT_SHORT,      /* TRUNCATED: usage.prompt_tokens < ratio * expected */
    CLIENT_R_CONTEXT_SHIFT,     /* TRUNCATED: prompt + completion tokens exceed the server's
                                   context (llama.cpp --context-shift dropped prompt tokens) */
    CLIENT_R_RATE_LIMIT,        /* RETRYABLE: 429 */
    CLIENT_R_SERVER_ERROR,      /* RETRYABLE: 5xx */
    CLIENT_R_OUTPUT_PARSE,      /* RETRYABLE, CLIENT_OUTPUT_PARSE_ATTEMPTS at most: 500 "Failed to
                                   parse input" (llama.cpp's chat parser rejected the model's own
                                   output) */
    CLIENT_R_HTTP_RETRYABLE,    /* RETRYABLE: 408/409 */
    CLIENT_R_TIMEOUT,           /* RETRYABLE: total or connect timeout */
    CLIENT_R_CONNECT,           /* RETRYABLE: cannot connect / resolve / TLS */
    CLIENT_R_TRANSPORT,         /* RETRYABLE: reset, empty reply, partial body, other curl error */
    CLIENT_R_BAD_BODY,          /* RETRYABLE: 2xx body that is not a completion (bad JSON, or
                                   an HTML page: html_page, which the runner stops on after
                                   CLIENT_HTML_ANSWERS_MAX in a row) */
    CLIENT_R_ERROR_IN_BODY,     /* RETRYABLE: 2xx carrying an error object */
    CLIENT_R_TOO_LARGE,         /* RETRYABLE: response bigger than max_response_bytes */
    CLIENT_R_AUTH,              /* FATAL: 401/403 */
    CLIENT_R_MODEL_NOT_FOUND,   /* FATAL: 404 */
    CLIENT_R_QUOTA,             /* FATAL: 429 insufficient_quota */
    CLIENT_R_UNSUPPORTED_PARAM, /* FATAL: 400 unsupported parameter/value */
    CLIENT_R_BAD_REQUEST,       /* FATAL: any other 4xx */
    CLIENT_REASON__COUNT
};

/*
 * Attempts a CLIENT_R_OUTPUT_PARSE trial gets at most (the first and one retry),
 * whatever --max-attempts says: the same prompt at the same seed gives the same
 * output, so more attempts only repeat the failure; one retry covers llama.cpp's
 * documented prompt-cache nondeterminism.
 */
#define CLIENT_OUTPUT_PARSE_ATTEMPTS 2

/* "none", "length", "prompt-short", "rate-limit", ... (stable, lower case). */
const char *client_reason_name(enum client_reason r);

/* ----------------------------------------------------------------- config */

enum client_max_tokens_field {
    CLIENT_MTF_AUTO = 0,              /* see client_config.max_tokens_field */
    CLIENT_MTF_MAX_TOKENS,            /* "max_tokens" */
    CLIENT_MTF_MAX_COMPLETION_TOKENS, /* "max_completion_tokens" */
};

/* Parse "auto" | "max_tokens" | "max_completion_tokens"; 0 or -1. */
int client_max_tokens_field_parse(const char *s, enum client_max_tokens_field *out);

/* The answer budget (max_tokens) when none is given: run, show-prompt and the client agree. */
#define CLIENT_DEFAULT_MAX_TOKENS 256

struct client_config {
    /*
     * Base URLs, one or more: "http://h:8000", "http://h:8000/v1" and
     * "http://h:8000/v1/" are all the same endpoint. An Azure deployment URL
     * (".../openai/deployments/NAME[?api-version=V]") is recognised: it is
     * used as is, with "api-key:" instead of "Authorization: Bearer".
     */
    struct strvec endpoints;
    const char *model;     /* borrowed; sent as "model" (required) */
    const char *api_key;   /* borrowed, may be NULL/"" (no auth header); copied by client_new() */
    struct strvec headers; /* extra "Name: value" headers */

    int legacy_completions; /* 0: POST /v1/chat/completions; 1: POST /v1/completions */
    double temperature;     /* always sent (default 0) */
    double top_p;           /* always sent (default 1) */
    int send_seed;          /* default 1 */
    long seed;              /* default 0 */
    long max_tokens;        /* always sent (default 256); per-request override possible */
    /*
     * AUTO: legacy completions -> max_tokens; chat on api.openai.com / Azure,
     * or with an OpenAI reasoning model name (o1*, o3*, o4*, gpt-5*) ->
     * max_completion_tokens; otherwise max_tokens (llama.cpp and Ollama
     * ignore max_completion_tokens; vLLM, SGLang, TGI accept max_tokens).
     * A 400 saying the auto-chosen field is unsupported switches it to the
     * other one for the rest of the run and the request is sent again.
     */
    enum client_max_tokens_field max_tokens_field;

    long connect_timeout_ms;   /* default 10000 */
    long timeout_ms;           /* whole transfer, default 600000 */
    size_t max_response_bytes; /* default 64 MiB; bigger responses -> RETRYABLE/TOO_LARGE */
    /* TRUNCATED when usage.prompt_tokens < truncation_ratio * expected; default 0.98 */
    double truncation_ratio;
    /* sent as "reasoning_effort" when non-NULL ("low", "medium", "high"); borrowed, copied */
    const char *reasoning_effort;
    /*
     * A JSON object whose members are added to every generation request body
     * (e.g. {"chat_template_kwargs":{"enable_thinking":false}}); NULL = none.
     * Must not name a field the client sets itself (client_extra_body_check()).
     * Borrowed; copied by client_new().
     */
    const char *extra_body;
    /* inline reasoning block tags (reasoning_split()); NULL = <think>, </think>; copied */
    const char *reasoning_open, *reasoning_close;
    int insecure; /* skip TLS verification */
    int verbose;  /* request/response lines and headers on stderr, auth redacted */
    /* client_count_request() never falls back to a probe request (it generates a token):
     * a --dry-run without --probe sends no generation request */
    int no_count_probe;
};

/*
 * Check and canonicalise an --extra-body value: a JSON object that names no
 * field the client sets (model, messages, prompt, temperature, top_p, seed,
 * max_tokens, max_completion_tokens, n, stream, reasoning_effort). On success
 * appends the compact JSON to out and returns 0; else -1 with a reason in err.
 */
int client_extra_body_check(const char *json, struct strbuf *out, struct strbuf *err);

/* The defaults documented above (every other member 0 or NULL); endpoints and headers empty. */
#define CLIENT_CONFIG_INIT                                                                         \
    {                                                                                              \
        .endpoints = STRVEC_INIT, .headers = STRVEC_INIT, .temperature = 0.0, .top_p = 1.0,        \
        .send_seed = 1, .seed = 0, .max_tokens = CLIENT_DEFAULT_MAX_TOKENS,                        \
        .max_tokens_field = CLIENT_MTF_AUTO, .connect_timeout_ms = 10000, .timeout_ms = 600000,    \
        .max_response_bytes = 64u * 1024 * 1024, .truncation_ratio = 0.98                          \
    }
/* *cfg = CLIENT_CONFIG_INIT. */
void client_config_init(struct client_config *cfg);
/* Frees the two strvecs (nothing else is owned). */
void client_config_release(struct client_config *cfg);

/*
 * Normalise a base URL: strip trailing '/', a trailing "/v1", and a trailing
 * "/v1/chat/completions" or "/v1/completions". The result is the server root
 * ("http://h:8000"); append to out. Returns 0, or -1 for a URL that is not
 * http:// or https:// (message in err when err != NULL).
 */
int client_normalize_base(const char *url, struct strbuf *out, struct strbuf *err);

/* 1 when the model name is an OpenAI reasoning model (o1, o3, o4-mini, gpt-5...). */
int client_is_reasoning_model(const char *model);

/* --------------------------------------------------------------- requests */

/*
 * Prefix-cache hints of one request (run --schedule, --no-cache-reuse). None of them changes
 * what the model answers, so client_request_sha256() leaves them out (run --reuse matches
 * requests across schedules).
 */
struct client_cache_hints {
    int endpoint;                 /* the endpoint to send to (index), -1 the least loaded */
    int id_slot;                  /* llama.cpp "id_slot", -1 not sent */
    const char *prompt_cache_key; /* OpenAI "prompt_cache_key", NULL not sent */
    const char *cache_salt;       /* vLLM "cache_salt", NULL not sent */
    int no_cache_prompt;          /* send llama.cpp "cache_prompt": false */
};

struct client_request {
    const char *system; /* chat system message, NULL or "" for none */
    /*
     * chat: the whole "messages" array as JSON (prompt_messages_json(): a layout's turns),
     * sent as given instead of system and user; NULL: system and user
     */
    const char *messages;
    const char *user; /* chat user message, or the whole prompt for legacy completions */
    size_t user_len;  /* bytes of user (may hold anything but NUL) */
    long max_tokens;  /* 0: use the config's */
    /* the request's prompt token count by the run's tokenizer; <= 0 = unknown (no check) */
    long expected_prompt_tokens;
    /* the server's context per request (GET /props n_ctx, max_model_len); <= 0 = unknown */
    long context_tokens;
    const struct client_cache_hints *hints; /* NULL: none */
    void *tag;                              /* returned untouched in the response */
};

struct client_response {
    void *tag;
    enum client_class cls;
    enum client_reason reason;
    long http_status; /* 0 when no HTTP response (transport failure) */
    int curl_code;    /* CURLcode of the transfer, 0 = CURLE_OK */
    int html_page;    /* 1: a 2xx answer that is an HTML page (client_body_is_html) */
    int endpoint;     /* index into the config's endpoints */

    /* All strings below are malloc'd and owned by the response; any may be NULL. */
    char *content; /* message.content (chat) or text (legacy) */
    /*
     * message.reasoning_content / message.reasoning, then the content's leading
     * <think> blocks (reasoning_split() with the config's tags); content holds
     * only the answer after them.
     */
    char *reasoning;
    char *refusal;            /* message.refusal */
    char *finish_reason;      /* raw string */
    char *model;              /* model as echoed by the server */
    char *system_fingerprint; /* when given */
    char *request_id;         /* x-request-id header or body "id" */
    /*
     * Human message for anything not OK: the server's error message (from
     * any error-body shape), the curl error, or what was wrong with the body.
     * Never contains the API key. Also set for TRUNCATED/EMPTY/FILTERED.
     */
    char *error;
    char *error_code; /* error.code / error.type as text when given ("context_length_exceeded") */

    long prompt_tokens;     /* usage.prompt_tokens, -1 unknown */
    long completion_tokens; /* usage.completion_tokens, -1 unknown */
    long reasoning_tokens;  /* usage.completion_tokens_details.reasoning_tokens, -1 unknown */
    long cached_tokens;     /* usage.prompt_tokens_details.cached_tokens, -1 unknown */
    /*
     * llama.cpp's "timings" (prompt cache use, prefill time), -1 unknown: cache_n prompt
     * tokens reused from the slot's cache, prompt_n prompt tokens computed, prompt_ms the
     * time spent computing them.
     */
    long timings_cache_n;
    long timings_prompt_n;
    double timings_prompt_ms;
    long expected_prompt_tokens; /* copied from the request */

    long retry_after_ms; /* server's delay hint (client_retry_after_ms), -1 none */
    /* OK with finish_reason "length": the answer reached the answer budget (scored as said) */
    int cut;
    /* sha256 of the request body sent: equal hashes = byte-identical requests ("" if none) */
    char request_sha256[SHA256_HEX_LEN + 1];
    double latency_ms; /* submit -> done, including queueing in curl */
    size_t response_bytes;
};

/* Zero a response (all counts -1, strings NULL). */
void client_response_init(struct client_response *r);
/* Free the strings of a response (struct itself not freed); re-initialises it. */
void client_response_release(struct client_response *r);
/* Release and free a response returned by client_take(). NULL is fine. */
void client_response_free(struct client_response *r);

/* ------------------------------------------------------- the multi client */

struct client;
/*
 * sha256 hex of the exact body client_submit() would send for req (model,
 * messages, every sampling parameter, max tokens, reasoning effort, extra
 * body): what `run --reuse` matches stored answers by.
 */
void client_request_sha256(struct client *c, const struct client_request *req,
                           char hex[SHA256_HEX_LEN + 1]);

/*
 * The exact body client_submit() sends for req, hints included (one builder: the Batch API's
 * input lines carry the very bodies online mode sends), appended to out; and the path it is
 * sent to ("/v1/chat/completions" or "/v1/completions").
 */
void client_request_body(struct client *c, const struct client_request *req, struct strbuf *out);
const char *client_request_path(const struct client *c);

/*
 * Classify an answer that came another way (a Batch API output line: its status_code and
 * body) with the classifier and settings of the online requests (client_classify() with the
 * client's truncation ratio and reasoning tags; the API key redacted). expected/context as
 * in client_request. out must be initialised.
 */
void client_classify_answer(struct client *c, long status, const char *headers, const char *body,
                            size_t len, long expected, long context, struct client_response *out);

/*
 * Create a client (copies everything it needs from cfg). Returns NULL with a
 * message in err for a bad config (no endpoint, bad URL, no model).
 * Free with client_free(), which aborts transfers still in flight.
 */
struct client *client_new(const struct client_config *cfg, struct strbuf *err);
void client_free(struct client *c);

/*
 * Start one request (body built and copied now: the request's strings may be
 * freed on return). The endpoint with the fewest requests in flight is used
 * (ties: round robin). Never blocks; the client enforces no in-flight limit
 * (the caller keeps client_inflight() under its window). Returns 0, or -1
 * when the transfer cannot even be set up (message in err).
 */
int client_submit(struct client *c, const struct client_request *req, struct strbuf *err);

/*
 * Drive transfers, waiting up to timeout_ms for activity (0 = do not wait).
 * Returns the number of finished responses ready for client_take(), or -1 on
 * an internal curl multi error (message in err). Returns at once when
 * responses are already waiting or nothing is in flight (it never sleeps for
 * an idle caller: a caller waiting on a backoff sleeps itself), and early
 * when client_wakeup() is called.
 */
int client_poll(struct client *c, int timeout_ms, struct strbuf *err);

/* Next finished response (FIFO), or NULL. Caller frees with client_response_free(). */
struct client_response *client_take(struct client *c);

/* Requests submitted and not yet taken back as responses (in flight or ready). */
size_t client_inflight(const struct client *c);
/* In flight on one endpoint. */
size_t client_endpoint_inflight(const struct client *c, int endpoint);
size_t client_endpoint_count(const struct client *c);
/*
 * At most n connections to each host; further requests wait in the client for a free one
 * (CURLMOPT_MAX_HOST_CONNECTIONS). Call before the first client_submit.
 */
void client_limit_host_connections(struct client *c, long n);
/*
 * Closes the connection the preflight's requests kept open (reopened when needed): an idle
 * keep-alive connection holds one of a thread-per-connection server's threads (llama.cpp).
 */
void client_close_idle(struct client *c);
/* Normalised base URL of an endpoint (owned by the client). */
const char *client_endpoint_url(const struct client *c, int endpoint);

/*
 * Make a client_poll() blocked in another thread return early. Thread-safe;
 * libcurl does not promise async-signal safety, so from a signal handler set
 * a flag instead and keep poll timeouts short.
 */
void client_wakeup(struct client *c);

/* ------------------------------------------------------------- preflight */

/* What answered the preflight (decides the prefix-cache hints a run may send). */
enum client_server_kind {
    CLIENT_SERVER_UNKNOWN = 0,
    CLIENT_SERVER_LLAMACPP, /* GET /props answered like llama.cpp (serve-sim does too) */
    CLIENT_SERVER_VLLM,     /* /v1/models owned_by "vllm" */
    CLIENT_SERVER_SGLANG,   /* owned_by "sglang" */
    CLIENT_SERVER_OPENAI    /* api.openai.com */
};
/* "unknown", "llama.cpp", "vllm", "sglang", "openai". */
const char *client_server_kind_name(enum client_server_kind k);

struct client_preflight_info {
    enum client_server_kind kind; /* of the first endpoint */
    int slots;                    /* llama.cpp /props total_slots, -1 unknown */
    /*
     * 1 the server reuses prompt prefixes (llama.cpp cache_prompt, default on; vLLM automatic
     * prefix caching and SGLang's radix cache, on by default; OpenAI prompt caching), 0 it says
     * it does not (/props params.cache_prompt false), -1 unknown.
     */
    int prefix_cache;
    long context;     /* smallest context over endpoints (vLLM max_model_len, llama.cpp n_ctx), -1
                         unknown */
    int model_listed; /* 1 listed by /v1/models, 0 not listed, -1 unknown (no usable /v1/models) */
    char *served_model; /* the matching id from /v1/models (malloc'd), or NULL */
    char *server_info;  /* e.g. llama.cpp build_info, or NULL (malloc'd) */
};

void client_preflight_info_release(struct client_preflight_info *info);

/*
 * Blocking checks before the first trial, on every endpoint: GET
 * {base}/v1/models (model present? vLLM max_model_len) and GET {base}/props
 * (llama.cpp default_generation_settings.n_ctx) when available.
 * Returns CLIENT_OK (info filled; model_listed is 0 for llama.cpp in
 * single-model mode, which lists one model owned_by "llamacpp" and answers
 * to any name; -1 when /v1/models is missing), CLIENT_FATAL with reason AUTH (401/403 on
 * /v1/models) or MODEL_NOT_FOUND (listed models do not include it; err names the ones that are), or
 * CLIENT_RETRYABLE when an endpoint cannot be reached (err says which and why). *reason may be
 * NULL.
 */
enum client_class client_preflight(struct client *c, struct client_preflight_info *info,
                                   enum client_reason *reason, struct strbuf *err);

/*
 * 401 or 403 when a blocking call of c (the preflight's /v1/models, /tokenize,
 * /apply-template, the template-overhead probe) was refused that way, else 0; url (may be
 * NULL) gets the refused URL appended. A setup step that fails reads it to say "the endpoint
 * refused the API key" instead of its own failure (a llama-server --api-key answers
 * /v1/models without a key but refuses /tokenize).
 */
long client_auth_refused(struct client *c, struct strbuf *url);

/* ------------------------------------------------------------- tokenize */

/*
 * Count the tokens of text with the server's tokenizer (blocking, on the
 * first endpoint). Detected on first use and remembered: vLLM/SGLang
 * `POST {root}/tokenize {"model":M,"prompt":text}` -> {"count":n,...}, or
 * llama.cpp `POST {root}/tokenize {"content":text}` -> {"tokens":[...]}.
 * Returns 0 with *count set, or -1 with a message appended to err (e.g. the
 * server has no /tokenize endpoint).
 */
int client_tokenize(struct client *c, const char *text, size_t len, long *count,
                    struct strbuf *err);
/*
 * Same, with the tokenizer_remote_fn signature (ctx is the struct client *).
 * client_tokenize() and client_preflight() may be called from any thread,
 * also while another thread drives client_poll(): they use their own handle
 * and are serialised by a lock.
 */
int client_tokenize_cb(void *client, const char *text, size_t len, long *count, struct strbuf *err);

/* ---------------------------------------------------- template overhead */

enum client_count_method {
    CLIENT_COUNT_VLLM_TOKENIZE,     /* POST /tokenize {"messages","add_generation_prompt":true} */
    CLIENT_COUNT_LLAMACPP_TEMPLATE, /* POST /apply-template, then /tokenize {"content",
                                       "add_special":true,"parse_special":true} */
    CLIENT_COUNT_PROBE,             /* a real request with max_tokens 1: usage.prompt_tokens */
    CLIENT_COUNT_GIVEN              /* not measured: the user's --template-overhead */
};
/* "vllm-tokenize", "llamacpp-apply-template", "probe", "given". */
const char *client_count_method_name(enum client_count_method m);

/*
 * The number of prompt tokens the server counts for one request, template
 * and special tokens included (blocking, first endpoint): chat = a system
 * message (omitted when system is NULL or "") and a user message, else the
 * completion prompt user. Tried in order: vLLM's /tokenize with messages,
 * llama.cpp's /apply-template + /tokenize, a probe request (not with
 * no_count_probe). Returns 0 with
 * *count and *method set, or -1 with the last failure appended to err.
 * See overhead.h for the template overhead computed from it.
 */
int client_count_request(struct client *c, const char *system, const char *user, int chat,
                         long *count, enum client_count_method *method, struct strbuf *err);
/* The same for a chat request whose "messages" array is given as JSON (a layout's turns). */
int client_count_messages(struct client *c, const char *messages, long *count,
                          enum client_count_method *method, struct strbuf *err);

/* ------------------------------------------- pure functions (no network) */

/*
 * Classify one HTTP exchange and fill the response fields from it. status:
 * the HTTP status; headers: the raw response header block ("Name: value"
 * lines separated by CRLF or LF; status lines are ignored; may be NULL);
 * body/body_len: the response body (need not be NUL-terminated; may be NULL).
 * legacy: 1 for /v1/completions bodies (choices[].text). now: the time used
 * for HTTP-date Retry-After values. out must be initialised (client_response_init);
 * its previous strings are released. Never fails; never reads beyond body_len.
 */
struct client_exchange {
    long status;
    const char *headers;
    const char *body;
    size_t body_len;
    int legacy;
    long expected_prompt_tokens; /* <= 0: no truncation check */
    long context_tokens;         /* <= 0: no context-shift check */
    double truncation_ratio;     /* <= 0: 0.98 */
    const char *reasoning_open;  /* inline reasoning tags; NULL: <think> */
    const char *reasoning_close; /* NULL: </think> */
    time_t now;
};
void client_classify(const struct client_exchange *ex, struct client_response *out);

/*
 * Pull the human-readable message out of an error body of any shape in the
 * reference: {"error":{"message":..}}, {"error":"..."}, {"object":"error",
 * "message":..}, {"message":..}, {"detail":".."|[{"msg":..}]}, otherwise the
 * raw body (first 4 KiB, control characters replaced). Appends to msg; when
 * code is non-NULL, appends error.code/type text. Returns 0 when a structured
 * message was found, -1 when the raw body was used.
 */
int client_error_message(const char *body, size_t len, struct strbuf *msg, struct strbuf *code);
/*
 * 1 when body is an HTML (or XML) page, not JSON: after blanks and a byte-order mark it opens
 * with "<" and a letter, "!" or "?". A web UI, a login page or a proxy answers so; the run
 * and the preflight stop on it rather than ask again.
 */
int client_body_is_html(const char *body, size_t len);

/*
 * HTML pages in a row (answers to the run's requests, any trial) after which a run stops:
 * one is a proxy's or gateway's glitch and is retried like a 502, a server that keeps
 * answering a page (a login page, a web UI at the address) is not an OpenAI API.
 */
#define CLIENT_HTML_ANSWERS_MAX 5

/* 1 when an error message/code says the context was exceeded (reference §4.4 patterns). */
int client_is_overflow_message(const char *msg);

/*
 * A Go-style duration: a sum of <number><unit>, units h, m, s, ms, us/µs, ns,
 * e.g. "6m0s", "1.5s", "500ms", "1h2m"; a plain number is seconds ("20",
 * "0.5"). Returns milliseconds rounded up, or -1 when s is not a duration.
 */
long client_parse_duration_ms(const char *s);

/*
 * An HTTP-date into *out through curl_getdate: RFC 7231's three forms (IMF-fixdate,
 * RFC 850, asctime) and what curl also reads (another zone such as PST, no seconds).
 * 0, or -1 when s is not a date or names one before 1970.
 */
int client_parse_http_date(const char *s, time_t *out);

/*
 * The server's delay hint from a raw header block (names case-insensitive):
 * retry-after-ms (ms), else Retry-After (seconds, may be fractional, or an
 * HTTP-date relative to now), else the larger of x-ratelimit-reset-requests
 * and x-ratelimit-reset-tokens (durations). Returns ms (>= 0), or -1 when no
 * usable hint. Negative or unparsable values are ignored.
 */
long client_retry_after_ms(const char *headers, time_t now);

/* Value of the first header named name in a raw block, appended to out. 0 found, -1 not. */
int client_header_get(const char *headers, const char *name, struct strbuf *out);

/* Appends "libcurl VERSION" of the library linked at run time (dipmap --version). */
void client_library_version(struct strbuf *out);

#endif

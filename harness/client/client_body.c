/*
 * The client's request bodies: the one JSON body builder of trials and counting
 * requests (model, messages or prompt, reasoning effort, --extra-body members,
 * sampling, the answer budget field, cache hints), --extra-body checked against
 * the members dipmap sets, the request path and a request's sha256 (the reuse key,
 * hints left out). Owns nothing; behind client-int.h.
 */
#include "client/client.h"

#include <string.h>

#include "client/client-int.h"
#include "base/escape.h"
#include "base/json.h"

#include "base/banned.h"

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

/* "messages": the array given (JSON, prompt_messages_json(): a layout's turns), or [system,] user.
 */
static void add_messages_json(struct strbuf *b, const char *messages, const char *system,
                              const char *user, size_t ulen)
{
    if (messages) {
        strbuf_addstr(b, "\"messages\":");
        strbuf_addstr(b, messages);
        return;
    }
    strbuf_addstr(b, "\"messages\":[");
    if (system && *system) {
        strbuf_addstr(b, "{\"role\":\"system\",\"content\":");
        escape_json_n(b, system, strlen(system));
        strbuf_addstr(b, "},");
    }
    strbuf_addstr(b, "{\"role\":\"user\",\"content\":");
    escape_json_n(b, user, ulen);
    strbuf_addstr(b, "}]");
}

/* The one body builder (client-int.h): trials and counting requests alike. */
void client_open_body(struct client *c, const char *messages, const char *system, const char *user,
                      size_t ulen, int chat, struct strbuf *b)
{
    strbuf_grow(b, ulen + (system ? strlen(system) : 0) + (messages ? strlen(messages) : 0) + 256);
    strbuf_addstr(b, "{\"model\":");
    escape_json_n(b, c->model, strlen(c->model));
    strbuf_addch(b, ',');
    if (chat) {
        add_messages_json(b, messages, system, user, ulen);
    } else {
        strbuf_addstr(b, "\"prompt\":");
        escape_json_n(b, user, ulen);
    }
    if (c->reasoning_effort) {
        strbuf_addstr(b, ",\"reasoning_effort\":");
        escape_json_n(b, c->reasoning_effort, strlen(c->reasoning_effort));
    }
    if (c->extra_members) {
        strbuf_addch(b, ',');
        strbuf_addstr(b, c->extra_members);
    }
}

void client_body_build(struct client *c, const struct client_request *req, int hints,
                       struct strbuf *b)
{
    long mt = req->max_tokens > 0 ? req->max_tokens : c->cfg.max_tokens;
    client_open_body(c, c->cfg.legacy_completions ? NULL : req->messages, req->system,
                     req->user ? req->user : "", req->user ? req->user_len : 0,
                     !c->cfg.legacy_completions, b);
    strbuf_addf(b, ",\"temperature\":%.6g,\"top_p\":%.6g", c->cfg.temperature, c->cfg.top_p);
    if (c->cfg.send_seed)
        strbuf_addf(b, ",\"seed\":%ld", c->cfg.seed);
    strbuf_addf(b, ",\"%s\":%ld,\"n\":1,\"stream\":false", c->mt_field, mt);
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

void client_request_body(struct client *c, const struct client_request *req, struct strbuf *out)
{
    client_body_build(c, req, 1, out);
}

const char *client_request_path(const struct client *c)
{
    return c->cfg.legacy_completions ? "/v1/completions" : "/v1/chat/completions";
}

void client_request_sha256(struct client *c, const struct client_request *req,
                           char hex[SHA256_HEX_LEN + 1])
{
    struct strbuf b = STRBUF_INIT;
    client_body_build(c, req, 0, &b);
    sha256_hex(b.buf, b.len, hex);
    strbuf_release(&b);
}

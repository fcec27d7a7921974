/*
 * serve-sim's checks of an OpenAI request (chat completions, completions): the model, the
 * budget fields, "messages" (content parts, the tool-call rules) or "prompt" (text or token
 * ids), stream and n, the reasoning and cache fields; each refusal is OpenAI's 400 naming the
 * field. Also how the server counts a request: the chat template's tokens (--chat-template,
 * --template-overhead).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "sim/sim-int.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "tokenizer/tokenizer.h"
#include "base/xalloc.h"

#include "base/banned.h"

#define COMPLETIONS_DEFAULT_MAX_TOKENS 16 /* OpenAI's legacy default */

/* Text of a message content: a string, or an array of parts whose "text" is concatenated. */
static int add_content(struct strbuf *sb, const struct json *content)
{
    if (json_kind(content) == JSON_STRING) {
        strbuf_addstr(sb, json_str(content));
        return 0;
    }
    if (json_kind(content) == JSON_NULL)
        return 0;
    if (json_kind(content) == JSON_ARRAY) {
        const struct json *part;
        for (part = json_first(content); part; part = json_next(part)) {
            const struct json *t = json_get(part, "text");
            if (json_kind(t) == JSON_STRING)
                strbuf_addstr(sb, json_str(t));
        }
        return 0;
    }
    return -1;
}

/* One element of an assistant message's "tool_calls": 0, or -1 with the reason in *why. */
static int check_tool_call(const struct json *call, size_t i, size_t k, struct strbuf *why)
{
    const struct json *fn = json_get(call, "function");
    const char *type = json_get_str(call, "type"), *args = json_get_str(fn, "arguments");
    struct json *parsed;
    if (!json_get_str(call, "id") || !*json_get_str(call, "id"))
        strbuf_addf(why, "messages[%zu].tool_calls[%zu]: 'id' must be a non-empty string", i, k);
    else if (!type || strcmp(type, "function"))
        strbuf_addf(why, "messages[%zu].tool_calls[%zu]: 'type' must be 'function'", i, k);
    else if (!json_get_str(fn, "name") || !*json_get_str(fn, "name"))
        strbuf_addf(
            why, "messages[%zu].tool_calls[%zu].function: 'name' must be a non-empty string", i, k);
    else if (!args || !(parsed = json_parse_str(args)))
        strbuf_addf(why,
                    "messages[%zu].tool_calls[%zu].function: 'arguments' must be a string "
                    "holding JSON",
                    i, k);
    else
        json_free(parsed);
    return why->len ? -1 : 0;
}

/*
 * The OpenAI tool-call rules a chat request's messages keep (the API answers 400 otherwise):
 * "tool_calls" only in an assistant message, a non-empty array of {"id", "type": "function",
 * "function": {"name", "arguments": JSON text}}; each call answered by a following "tool"
 * message whose "tool_call_id" names it, before any other message; a "tool" message answers a
 * call. Returns 0, or -1 with the reason in *why.
 */
static int check_tool_calls(const struct json *messages, struct strbuf *why)
{
    struct strvec open = STRVEC_INIT; /* the ids not answered yet */
    const struct json *msg, *call;
    size_t i = 0, k;
    for (msg = json_first(messages); msg && !why->len; msg = json_next(msg), i++) {
        const char *role = json_get_str(msg, "role"), *id = json_get_str(msg, "tool_call_id");
        const struct json *calls = json_get(msg, "tool_calls");
        if (role && !strcmp(role, "tool")) {
            long at = id ? strvec_find(&open, id) : -1;
            char *t;
            if (at < 0) {
                strbuf_addf(why,
                            "messages[%zu]: a message with role 'tool' must answer a tool call "
                            "of the assistant message before it ('tool_call_id' %s%s%s)",
                            i, id ? "'" : "", id ? id : "missing", id ? "' names none" : "");
                break;
            }
            t = open.v[at];
            open.v[at] = open.v[open.nr - 1];
            open.v[open.nr - 1] = t;
            strvec_pop(&open);
            continue;
        }
        if (open.nr) {
            strbuf_addf(why,
                        "messages[%zu]: the tool calls before it must each be answered by a "
                        "'tool' message first (not answered: %s)",
                        i, open.v[0]);
            break;
        }
        if (!calls || json_kind(calls) == JSON_NULL)
            continue;
        if (!role || strcmp(role, "assistant") || json_kind(calls) != JSON_ARRAY ||
            !json_size(calls)) {
            strbuf_addf(why,
                        "messages[%zu]: 'tool_calls' must be a non-empty array in an assistant "
                        "message",
                        i);
            break;
        }
        for (call = json_first(calls), k = 0; call && !why->len; call = json_next(call), k++)
            if (!check_tool_call(call, i, k, why))
                strvec_push(&open, json_get_str(call, "id"));
    }
    if (!why->len && open.nr)
        strbuf_addf(why, "the tool call %s is not answered by a 'tool' message", open.v[0]);
    strvec_clear(&open);
    return why->len ? -1 : 0;
}

int sim_add_messages(struct sim_prompt *p, const struct json *messages, struct sim_reply *r)
{
    const struct json *msg;
    struct strbuf why = STRBUF_INIT;
    if (!messages) {
        sim_error_reply(r, 400, "invalid_request_error", "messages", "missing_required_parameter",
                        "Missing required parameter: 'messages'.");
        return -1;
    }
    if (json_kind(messages) != JSON_ARRAY || !json_size(messages)) {
        sim_bad_request(r, "messages", "'messages' must be a non-empty array");
        return -1;
    }
    if (check_tool_calls(messages, &why)) {
        sim_bad_request(r, "messages", why.buf);
        strbuf_release(&why);
        return -1;
    }
    for (msg = json_first(messages); msg; msg = json_next(msg)) {
        const struct json *content = json_get(msg, "content");
        const struct json *role = json_get(msg, "role");
        if (json_kind(msg) != JSON_OBJECT || add_content(sim_prompt_add(p), content)) {
            sim_bad_request(r, "messages",
                            "each message must be an object whose 'content' is a string or "
                            "an array of text parts");
            return -1;
        }
        ALLOC_GROW(p->role, p->nr, p->role_alloc);
        p->role[p->nr - 1] = xstrdup(json_kind(role) == JSON_STRING ? json_str(role) : "user");
    }
    return 0;
}

void sim_render_chatml(const struct sim_prompt *p, int no_think, struct strbuf *out)
{
    for (size_t i = 0; i < p->nr; i++) {
        strbuf_addf(out, "<|im_start|>%s\n", p->role ? p->role[i] : "user");
        strbuf_add(out, p->seg[i].buf, p->seg[i].len);
        strbuf_addstr(out, "<|im_end|>\n");
    }
    strbuf_addstr(out, "<|im_start|>assistant\n");
    if (no_think)
        strbuf_addstr(out, "<think>\n\n</think>\n\n");
}

int sim_kwargs_no_think(const struct json *req)
{
    return json_is_false(json_get(json_get(req, "chat_template_kwargs"), "enable_thinking"));
}

long sim_template_tokens(struct sim_server *s, const struct sim_prompt *p, int chat, int no_think)
{
    long n = s->cfg->template_overhead;
    if (chat && s->cfg->chat_template == SIM_TEMPLATE_CHATML) {
        struct strbuf r = STRBUF_INIT;
        sim_render_chatml(p, no_think, &r);
        n += sim_count_tokens(s->cfg->tokenizer, r.buf, r.len);
        for (size_t i = 0; i < p->nr; i++)
            n -= sim_count_tokens(s->cfg->tokenizer, p->seg[i].buf, p->seg[i].len);
        strbuf_release(&r);
    }
    return n;
}

int sim_decode_ids(struct sim_server *s, const struct json *arr, struct strbuf *out,
                   struct sim_reply *r)
{
    size_t n = (size_t)json_size(arr), i = 0;
    uint32_t *ids = xcalloc(n + 1, sizeof(*ids));
    const struct json *it;
    int ret = 0;
    for (it = json_first(arr); it; it = json_next(it)) {
        if (json_kind(it) != JSON_NUMBER || json_num(it, 0) < 0 || json_num(it, 0) > 4294967295.0) {
            sim_bad_request(r, NULL, "token ids must be non-negative integers");
            ret = -1;
            goto cleanup;
        }
        ids[i++] = (uint32_t)json_num(it, 0);
    }
    if (tokenizer_decode(s->cfg->tokenizer, ids, n, out)) {
        sim_bad_request(r, NULL, "unknown token id");
        ret = -1;
    }
cleanup:
    free(ids);
    return ret;
}

static int add_completion_prompt(struct sim_server *s, struct sim_prompt *p,
                                 const struct json *prompt, struct sim_reply *r)
{
    if (json_kind(prompt) == JSON_ARRAY && json_size(prompt) == 1 &&
        (json_kind(json_first(prompt)) == JSON_STRING ||
         json_kind(json_first(prompt)) == JSON_ARRAY))
        prompt = json_first(prompt);
    if (json_kind(prompt) == JSON_STRING) {
        strbuf_addstr(sim_prompt_add(p), json_str(prompt));
        return 0;
    }
    if (json_kind(prompt) == JSON_ARRAY &&
        (!json_first(prompt) || json_kind(json_first(prompt)) == JSON_NUMBER))
        return sim_decode_ids(s, prompt, sim_prompt_add(p), r);
    sim_bad_request(r, "prompt",
                    "'prompt' must be a string, a one-element array of strings, or token ids");
    return -1;
}

static long get_max_tokens(const struct json *req, const char *name, struct sim_reply *r, int *bad)
{
    const struct json *v = json_get(req, name);
    if (!v || json_kind(v) == JSON_NULL)
        return -1;
    if (json_kind(v) != JSON_NUMBER || json_num(v, 0) != floor(json_num(v, 0))) {
        sim_error_reply(r, 400, "invalid_request_error", name, "invalid_type",
                        "Invalid type for '%s': expected an integer.", name);
        *bad = 1;
    } else if (json_num(v, 0) < 1 || json_num(v, 0) > 1e9) {
        sim_error_reply(r, 400, "invalid_request_error", name,
                        json_num(v, 0) < 1 ? "integer_below_min_value" : "integer_above_max_value",
                        "Invalid '%s': '%s' must be a positive integer (1..1000000000), got %.0f.",
                        name, name, json_num(v, 0));
        *bad = 1;
    }
    return (long)json_num(v, 0);
}

/*
 * How much the model thinks: --think tokens, scaled by "reasoning_effort"
 * (low 1/4, medium 1/2, high all), none when the request turns thinking off
 * the Qwen3 way (chat_template_kwargs.enable_thinking false) or the Anthropic
 * way (thinking.type "disabled"). The request fields serve-sim does not use
 * are logged as "extra", so tests can see what a client merged in.
 */
static void reasoning_request(struct sim_server *s, const struct json *req, struct sim_gen *g,
                              struct sim_logrec *l)
{
    static const char *const known[] = {
        "model", "messages", "prompt",           "temperature",
        "top_p", "seed",     "max_tokens",       "max_completion_tokens",
        "n",     "stream",   "reasoning_effort", NULL};
    const struct json *eff = json_get(req, "reasoning_effort");
    const struct json *kw = json_get(req, "chat_template_kwargs");
    const struct json *th = json_get(req, "thinking");
    const struct json *it;
    struct json *extra = json_new_object();

    g->think = s->cfg->think_tokens;
    if (json_kind(eff) == JSON_STRING) {
        if (!strcmp(json_str(eff), "low")) {
            l->reasoning_effort = "low";
            g->think /= 4;
        } else if (!strcmp(json_str(eff), "medium")) {
            l->reasoning_effort = "medium";
            g->think /= 2;
        } else {
            l->reasoning_effort = !strcmp(json_str(eff), "high") ? "high" : "other";
        }
    }
    if (json_is_false(json_get(kw, "enable_thinking"))) {
        g->think = 0;
        g->no_think = 1;
    }
    if (json_kind(th) == JSON_OBJECT && json_get_str(th, "type") &&
        !strcmp(json_get_str(th, "type"), "disabled"))
        g->think = 0;
    for (it = json_first(req); it; it = json_next(it)) {
        size_t i;
        for (i = 0; known[i] && strcmp(known[i], json_key(it)); i++)
            ;
        if (!known[i])
            json_add(extra, json_key(it), json_copy(it));
    }
    if (json_size(extra))
        l->extra = extra;
    else
        json_free(extra);
}

/*
 * The cache fields of a request: llama.cpp's "id_slot" (an integer; 0..slots-1 pins the
 * slot, anything else takes any) and "cache_prompt", vLLM's "cache_salt" (a non-empty
 * string). 0 or -1 (400).
 */
static int cache_request(struct sim_server *s, const struct json *req, struct sim_gen *g,
                         struct sim_reply *r)
{
    const struct json *v = json_get(req, "id_slot");
    int slots = sim_cache_slots(s->cache);
    if (v && json_kind(v) != JSON_NULL) {
        if (json_kind(v) != JSON_NUMBER || json_num(v, 0) != (double)(long)json_num(v, 0)) {
            sim_error_reply(r, 400, "invalid_request_error", "id_slot", NULL,
                            "'id_slot' must be an integer");
            return -1;
        }
        /* llama.cpp serves a slot number it does not have on any slot: so does serve-sim */
        if (slots && json_num(v, 0) >= 0 && json_num(v, 0) < slots)
            g->id_slot = (int)json_num(v, 0);
    }
    v = json_get(req, "cache_prompt");
    if (json_is_false(v))
        g->cache_prompt = 0;
    v = json_get(req, "cache_salt");
    if (v && json_kind(v) != JSON_NULL) {
        if (json_kind(v) != JSON_STRING || !*json_str(v)) {
            sim_bad_request(r, "cache_salt", "'cache_salt' must be a non-empty string");
            return -1;
        }
        g->cache_salt = json_str(v);
    }
    return 0;
}

/*
 * The budget rules of OpenAI's reasoning models and some Azure deployments
 * (sim.h: reject_max_tokens, min_max_tokens). 1 with the 400 in r, else 0.
 */
static int budget_refused(struct sim_server *s, int chat, const struct json *req, long max_tokens,
                          struct sim_reply *r)
{
    const char *field =
        chat && json_get(req, "max_completion_tokens") ? "max_completion_tokens" : "max_tokens";
    if (chat && s->cfg->reject_max_tokens && json_get(req, "max_tokens")) {
        sim_error_reply(r, 400, "invalid_request_error", "max_tokens", "unsupported_parameter",
                        "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
                        "'max_completion_tokens' instead.");
        return 1;
    }
    if (s->cfg->min_max_tokens > 0 && max_tokens >= 0 && max_tokens < s->cfg->min_max_tokens) {
        sim_error_reply(
            r, 400, "invalid_request_error", field, "integer_below_min_value",
            "Invalid '%s': integer below minimum value. Expected a value >= %ld, but got "
            "%ld instead.",
            field, s->cfg->min_max_tokens, max_tokens);
        return 1;
    }
    return 0;
}

/* "max_completion_tokens" or "max_tokens" (chat), "max_tokens" (completions) and "prompt". */
static int parse_budget_prompt(struct sim_server *s, const struct json *req, struct sim_gen *g,
                               struct sim_reply *r)
{
    int bad = 0;
    if (g->chat) {
        g->max_tokens = get_max_tokens(req, "max_completion_tokens", r, &bad);
        if (g->max_tokens < 0 && !bad)
            g->max_tokens = get_max_tokens(req, "max_tokens", r, &bad);
        if (!bad && sim_add_messages(&g->prompt, json_get(req, "messages"), r))
            bad = 1;
    } else {
        g->max_tokens = get_max_tokens(req, "max_tokens", r, &bad);
        if (g->max_tokens < 0)
            g->max_tokens = COMPLETIONS_DEFAULT_MAX_TOKENS;
        if (!bad && add_completion_prompt(s, &g->prompt, json_get(req, "prompt"), r))
            bad = 1;
    }
    if (!bad && budget_refused(s, g->chat, req, g->max_tokens, r))
        bad = 1;
    return bad ? -1 : 0;
}

int sim_gen_parse(struct sim_server *s, const struct json *req, struct sim_gen *g,
                  struct sim_reply *r, struct sim_logrec *l)
{
    const struct json *model = json_get(req, "model"), *n = json_get(req, "n");
    if (json_kind(req) != JSON_OBJECT) {
        sim_bad_request(r, NULL, "the request body is not a JSON object");
        goto bad;
    }
    if (model && json_kind(model) != JSON_STRING && json_kind(model) != JSON_NULL) {
        sim_bad_request(r, "model", "'model' must be a string");
        goto bad;
    }
    g->model = sim_find_model(s, json_str(model));
    if (!g->model) {
        sim_model_not_found(r, json_str(model));
        l->outcome = "unknown_model";
        return -1;
    }
    l->model = g->model->name;
    if (json_is_true(json_get(req, "stream"))) {
        sim_bad_request(r, "stream", "streaming is not supported by dipmap serve-sim");
        goto bad;
    }
    if (n && json_kind(n) != JSON_NULL && (json_kind(n) != JSON_NUMBER || json_num(n, 0) != 1)) {
        sim_bad_request(r, "n", "only n=1 is supported");
        goto bad;
    }
    if (parse_budget_prompt(s, req, g, r))
        goto bad;
    reasoning_request(s, req, g, l);
    if (cache_request(s, req, g, r))
        goto bad;
    return 0;
bad:
    l->outcome = "bad_request";
    return -1;
}

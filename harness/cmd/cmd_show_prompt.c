/*
 * `dipmap show-prompt`: builds and prints the exact request of one trial
 * (question, length, depth, repeat, seed) with its realized length, depth,
 * gold position and hash -- for debugging a strange result.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/axes.h"
#include "cmd/builtin.h"
#include "client/client.h"
#include "client/overhead.h"
#include "prompt/dataset.h"
#include "base/json.h"
#include "base/num.h"
#include "base/opt.h"
#include "base/secret.h"
#include "prompt/layout.h"
#include "prompt/prompt.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "tokenizer/tokenizer.h"
#include "run/trial.h"
#include "base/usage.h"

#include "base/banned.h"

static const char *const show_prompt_usage[] = {
    "dipmap show-prompt --dataset FILE [--haystack FILE] [--question ID] [--length N] "
    "[--depth PCT] [--repeat N] [--seed N] [--template NAME|FILE] "
    "[--tokenizer NAME|FILE | --tokenizer server --endpoint URL --model NAME [--api-key-env VAR]] "
    "[--template-overhead N] [--turn-overhead N] [--turn-suffix TEXT] [--special parse|plain] "
    "[--max-tokens N] "
    "[--completions] [--json] "
    "[--axes NAME=VALUE;...]",
    NULL,
};

/* --template-overhead and --turn-overhead when not given: measured with --tokenizer server */
#define NOT_GIVEN LONG_MIN

/* The options as given (defaults in show_prompt_init) and what show-prompt builds from them. */
struct show_prompt {
    const char *dataset, *haystack, *qid, *length_s, *tpl_spec, *tok_spec, *special, *axes_spec;
    const char *endpoint, *model, *api_key_env; /* --tokenizer server: who counts */
    struct client *client;
    double depth;
    long repeat, seed, max_tokens, overhead, length, turn_overhead;
    const char *turn_suffix; /* --turn-suffix, as run's settings keep it (JSON escapes) */
    struct strbuf ov_how;    /* how the template overhead was had: given, measured or not */
    struct prompt_turn_cost turn_table[PROMPT_LAYOUT__COUNT];
    int completion, json;
    struct strvec rest;
    struct golden_set gs;
    struct haystack hay;
    struct prompt_template tpl;
    int have_gs, have_hay, have_tpl;
    const struct question *q;
    struct tokenizer *tk;
    struct prompt_builder *b;
    struct built_prompt bp;
    struct strbuf axes, err, path;
};

static void show_prompt_init(struct show_prompt *s)
{
    memset(s, 0, sizeof(*s));
    s->length_s = "8k";
    s->tpl_spec = PROMPT_DEFAULT_TEMPLATE;
    s->tok_spec = TOKENIZER_DEFAULT;
    s->api_key_env = SECRET_DEFAULT_KEY_ENV;
    s->depth = 50;
    s->max_tokens = CLIENT_DEFAULT_MAX_TOKENS;
    s->overhead = s->turn_overhead = NOT_GIVEN;
    strvec_init(&s->rest);
    strbuf_init(&s->ov_how, 0);
    built_prompt_init(&s->bp);
    strbuf_init(&s->axes, 0);
    strbuf_init(&s->err, 0);
    strbuf_init(&s->path, 0);
}

static void show_prompt_release(struct show_prompt *s)
{
    built_prompt_release(&s->bp);
    prompt_builder_free(s->b);
    tokenizer_free(s->tk);
    client_free(s->client);
    if (s->have_tpl)
        prompt_template_release(&s->tpl);
    if (s->have_hay)
        haystack_release(&s->hay);
    if (s->have_gs)
        golden_set_release(&s->gs);
    strbuf_release(&s->err);
    strbuf_release(&s->axes);
    strbuf_release(&s->path);
    strbuf_release(&s->ov_how);
    strvec_clear(&s->rest);
}

/* The option table (dipmap help show-prompt prints it): 0, 1 after help, -1 after an error. */
static int show_prompt_parse(struct show_prompt *s, int argc, const char **argv)
{
    struct option opts[] = {
        OPT_STRING('d', "dataset", &s->dataset, "FILE", "golden set (JSONL, optionally .gz)"),
        OPT_STRING(0, "haystack", &s->haystack, "FILE", "filler chunks (JSONL or .txt)"),
        OPT_STRING(0, "question", &s->qid, "ID", "question id (default: the first)"),
        OPT_STRING('l', "length", &s->length_s, "N", "target length in tokens (default 8k)"),
        OPT_DOUBLE(0, "depth", &s->depth, "PCT", "gold depth in percent, 0..100 (default 50)"),
        OPT_LONG('r', "repeat", &s->repeat, "N", "repeat index (default 0)"),
        OPT_LONG(0, "seed", &s->seed, "N", "run seed (default 0)"),
        OPT_STRING(0, "template", &s->tpl_spec, "NAME|FILE",
                   "prompt template (default " PROMPT_DEFAULT_TEMPLATE ")"),
        OPT_STRING('t', "tokenizer", &s->tok_spec, "NAME|FILE",
                   "tokenizer (default " TOKENIZER_DEFAULT ")"),
        OPT_STRING(
            0, "endpoint", &s->endpoint, "URL",
            "with --tokenizer server: the server whose /tokenize counts (as run --endpoint)"),
        OPT_STRING('m', "model", &s->model, "NAME",
                   "with --tokenizer server: the model its counts are for (as run --model)"),
        OPT_STRING(
            0, "api-key-env", &s->api_key_env, "VAR",
            "with --tokenizer server: the environment variable holding the API key sent (as run "
            "--api-key-env; default " SECRET_DEFAULT_KEY_ENV ")"),
        OPT_STRING(0, "special", &s->special, "parse|plain",
                   "special-token text: its id (parse; default for tokenizer.json) or plain text"),
        OPT_LONG(
            0, "max-tokens", &s->max_tokens, "N",
            "answer budget shown (default " OPT_DEFAULT(CLIENT_DEFAULT_MAX_TOKENS) ", as run)"),
        OPT_LONG(
            0, "template-overhead", &s->overhead, "N",
            "tokens the server adds per request (as run measured them; default: with --tokenizer "
            "server measured as run measures them, else 0, said to be not measured)"),
        OPT_LONG(
            0, "turn-overhead", &s->turn_overhead, "N",
            "with --axes layout=...: tokens the server adds per turn pair (as run measured them; "
            "default: with --tokenizer server measured as run measures them, else 0)"),
        OPT_STRING(
            0, "turn-suffix", &s->turn_suffix, "TEXT",
            "with --axes layout=...: the text after a turn that its end merges with, as the run's "
            "settings keep it (e.g. '\\n'; default none)"),
        OPT_BOOL(0, "completions", &s->completion,
                 "the /v1/completions rendering (one string), as run --completions"),
        OPT_BOOL(0, "json", &s->json, "print the request as JSON (messages or prompt)"),
        OPT_STRING(0, "axes", &s->axes_spec, "NAME=VALUE;...",
                   "the trial's named axes, as run crosses them: e.g. 'question-at=start;needles=2;"
                   "spacing=25'"),
        OPT_END(),
    };
    int rc = parse_options(argc, argv, opts, show_prompt_usage, &s->rest);
    if (rc)
        return rc;
    if (s->rest.nr)
        return error("show-prompt: unexpected argument '%s'", s->rest.v[0]);
    return 0;
}

/* --dataset, --length, --depth, --repeat and --seed. */
static int show_prompt_check(struct show_prompt *s)
{
    if (!s->dataset)
        return error("show-prompt: --dataset FILE is required");
    if (parse_token_count(s->length_s, 16L * 1024 * 1024, &s->length) < 0)
        return error("show-prompt: --length: '%s' is not a token count (e.g. 8k, 32768)",
                     s->length_s);
    if (!(s->depth >= 0 && s->depth <= 100))
        return error("show-prompt: --depth must be between 0 and 100 (percent)");
    if (s->repeat < 0 || s->seed < 0)
        return error("show-prompt: --repeat and --seed must be >= 0");
    return 0;
}

/* The golden set and its question, the haystack, the template and the tokenizer. */
static int show_prompt_load(struct show_prompt *s)
{
    if (golden_set_load(&s->gs, s->dataset) < 0)
        return -1;
    s->have_gs = 1;
    if (s->haystack) {
        if (haystack_load(&s->hay, s->haystack) < 0)
            return -1;
        s->have_hay = 1;
    }
    if (prompt_template_resolve(s->tpl_spec, &s->path) < 0)
        return error("show-prompt: template '%s' not found (%s)", s->tpl_spec, s->path.buf);
    if (prompt_template_load(&s->tpl, s->path.buf, &s->err) < 0)
        return error("%s", s->err.buf);
    s->have_tpl = 1;
    s->q = s->qid ? golden_set_find(&s->gs, s->qid) : &s->gs.q[0];
    if (!s->q)
        return error("show-prompt: no question '%s' in %s", s->qid, s->dataset);
    if (!strcmp(s->tok_spec, "server")) {
        struct client_config cc;
        if (!s->endpoint || !s->model)
            return error("show-prompt: --tokenizer server counts with a server: give --endpoint "
                         "URL and --model NAME (as the run had)");
        client_config_init(&cc);
        strvec_push(&cc.endpoints, s->endpoint);
        cc.model = s->model;
        cc.api_key = secret_api_key(s->api_key_env);
        s->client = client_new(&cc, &s->err);
        cc.model = NULL; /* borrowed */
        cc.api_key = NULL;
        client_config_release(&cc);
        if (!s->client)
            return error("show-prompt: %s", s->err.buf);
        s->tk = tokenizer_new_remote(s->model, client_tokenize_cb, s->client);
    } else {
        if (s->endpoint)
            return error("show-prompt: --endpoint is for --tokenizer server");
        s->tk = tokenizer_load(s->tok_spec, &s->err);
        if (!s->tk)
            return error("show-prompt: %s", s->err.buf);
    }
    if (s->special) {
        if (strcmp(s->special, "parse") && strcmp(s->special, "plain"))
            return error("show-prompt: --special must be parse or plain, not '%s'", s->special);
        tokenizer_set_special(s->tk, !strcmp(s->special, "parse"));
    }
    return 0;
}

/*
 * The overheads not given: with --tokenizer server measured by the functions run measures
 * them with (overhead.h, on the shown question), else 0 and said to be not measured
 * (s->ov_how says which, for the header). layout: the layout the axes ask for.
 */
static void show_prompt_overheads(struct show_prompt *s, int layout)
{
    struct template_overhead ov;
    if (s->overhead != NOT_GIVEN) {
        strbuf_addstr(&s->ov_how, "given");
    } else if (!s->client) {
        s->overhead = 0;
        strbuf_addstr(&s->ov_how, "not measured: give --template-overhead N as the run measured "
                                  "it, or --tokenizer server --endpoint URL --model NAME");
    } else if (overhead_measure_question(s->client, s->tk, &s->tpl, s->q, !s->completion, &ov,
                                         &s->err) < 0) {
        s->overhead = 0;
        strbuf_addf(&s->ov_how, "not measured: %s", s->err.buf);
        strbuf_reset(&s->err);
    } else {
        s->overhead = ov.tokens > 0 ? ov.tokens : 0;
        strbuf_addf(&s->ov_how,
                    "measured as run measures it, %s: the server counts %ld, the tokenizer %ld",
                    client_count_method_name(ov.method), ov.server_count, ov.local_count);
    }
    if (s->turn_overhead == NOT_GIVEN) {
        struct prompt_turn_cost tc;
        s->turn_overhead = 0;
        if (s->client && prompt_layout_in_turns(layout) && !s->completion &&
            overhead_measure_turns_question(s->client, s->tk, &s->tpl, s->q,
                                            prompt_layouts[layout].measured_as, /* as run */
                                            s->overhead, &tc, &s->err) == 0) {
            s->turn_overhead = tc.per_pair;
            if (!s->turn_suffix)
                snprintf(s->turn_table[1].suffix, sizeof(s->turn_table[1].suffix), "%s", tc.suffix);
        }
        strbuf_reset(&s->err);
    }
}

/* The trial's request, built as run builds it. */
static int show_prompt_build(struct show_prompt *s)
{
    struct prompt_request req;
    size_t len = 0;
    const char *lv;

    s->b = prompt_builder_new(s->tk, &s->tpl, s->have_hay ? &s->hay : NULL);
    memset(&req, 0, sizeof(req));
    req.q = s->q;
    req.target_len = s->length;
    req.depth_bp = (int)(s->depth * 100 + 0.5);
    req.repeat = (int)s->repeat;
    req.seed = (unsigned long)s->seed;
    req.max_answer_tokens = s->max_tokens;
    req.chat = !s->completion;
    if (s->axes_spec && axes_canonical(s->axes_spec, &s->axes, &s->err) < 0)
        return error("show-prompt: --axes: %s", s->err.buf);
    lv = axes_find(s->axes.buf, "layout", &len);
    show_prompt_overheads(s, lv ? prompt_layout_parse(lv, len) : PROMPT_LAYOUT_DOCUMENTS);
    req.overhead = s->overhead;
    if (s->turn_suffix) {
        /* the run's settings' JSON string, e.g. "\n" */
        struct strbuf js = STRBUF_INIT;
        struct json *v;
        strbuf_addch(&js, '"');
        strbuf_addstr(&js, s->turn_suffix);
        strbuf_addch(&js, '"');
        v = json_parse_str(js.buf);
        strbuf_release(&js);
        if (json_kind(v) != JSON_STRING || strlen(json_str(v)) >= PROMPT_TURN_SUFFIX_MAX) {
            json_free(v);
            return error("show-prompt: --turn-suffix '%s' is not a short JSON-escaped text "
                         "(e.g. '\\n', as the run's settings keep it)",
                         s->turn_suffix);
        }
        snprintf(s->turn_table[1].suffix, sizeof(s->turn_table[1].suffix), "%s", json_str(v));
        json_free(v);
    }
    for (int l = 0; l < PROMPT_LAYOUT__COUNT; l++) {
        s->turn_table[l].per_pair = l ? s->turn_overhead : 0;
        memcpy(s->turn_table[l].suffix, l ? s->turn_table[1].suffix : "",
               l ? sizeof(s->turn_table[l].suffix) : 1);
    }
    req.turn_cost = s->turn_table;
    req.axes = s->axes.buf;
    if (s->overhead < 0 || s->overhead >= s->length)
        return error("show-prompt: --template-overhead must be in 0..%ld (below the length)",
                     s->length - 1);
    if (prompt_build(s->b, &req, &s->bp, &s->err) < 0)
        return error("show-prompt: %s", s->err.buf);
    return 0;
}

/* --json: the request body's messages (or prompt) and max_tokens, one line. */
static void print_json(const struct show_prompt *s)
{
    const struct built_prompt *bp = &s->bp;
    struct json *o = json_new_object();
    struct strbuf line = STRBUF_INIT;

    if (s->completion) {
        json_add_str(o, "prompt", bp->text.buf);
    } else if (bp->layout != PROMPT_LAYOUT_DOCUMENTS) {
        struct strbuf m = STRBUF_INIT;
        prompt_messages_json(bp, NULL, &m); /* the array run sends */
        json_add(o, "messages", json_parse_str(m.buf));
        strbuf_release(&m);
    } else {
        struct json *msgs = json_add_array(o, "messages"), *m;
        if (bp->system.len) {
            m = json_add_object(msgs, NULL);
            json_add_str(m, "role", "system");
            json_add_str(m, "content", bp->system.buf);
        }
        m = json_add_object(msgs, NULL);
        json_add_str(m, "role", "user");
        json_add_str(m, "content", bp->user.buf);
    }
    json_add_num(o, "max_tokens", (double)s->max_tokens);
    json_print(&line, o, 0);
    printf("%s\n", line.buf);
    strbuf_release(&line);
    json_free(o);
}

/* The "# ..." header lines (what was asked and what was realized), then the prompt. */
static void print_text(const struct show_prompt *s)
{
    const struct built_prompt *bp = &s->bp;
    long length = s->length;

    printf("# question %s, length %ld (realized %ld, %+.2f%%), depth %.2f%% (realized "
           "%.2f%%), repeat %ld, seed %ld\n",
           s->q->id, length, bp->realized_len, 100.0 * (double)(bp->realized_len - length) / length,
           s->depth, 100.0 * bp->realized_depth, s->repeat, s->seed);
    printf("# length: target %ld, realized %ld = content %ld + template overhead %ld (%s)\n",
           length, bp->realized_len, bp->realized_len - bp->overhead, bp->overhead, s->ov_how.buf);
    printf("# gold: document %zu of %zu, token offset %ld; %zu hard negative%s, %zu filler "
           "chunk%s (%zu excluded: they contain an answer)\n",
           bp->gold_index + 1, bp->docs_nr, bp->gold_offset, bp->hard_negatives,
           bp->hard_negatives == 1 ? "" : "s", bp->filler, bp->filler == 1 ? "" : "s",
           bp->filler_dropped);
    if (s->have_hay)
        printf("# haystack %s: %zu chunks (%zu exact duplicates dropped)\n", s->hay.path, s->hay.nr,
               s->hay.dropped_duplicates);
    printf("# template %s, tokenizer %s\n", s->tpl.path, tokenizer_name(s->tk));
    printf("# prompt_sha256 %s (the messages' text, as run stores it for this trial and export "
           "prints it)\n",
           bp->sha256);
    if (s->completion) {
        printf("=== prompt ===\n%s\n", bp->text.buf);
    } else if (bp->layout != PROMPT_LAYOUT_DOCUMENTS) {
        if (bp->system.len)
            printf("=== system ===\n%s\n", bp->system.buf);
        for (size_t t = 0; t < bp->turns_nr; t++) {
            size_t from = t ? bp->turn_end[t - 1] : 0;
            if (bp->layout == PROMPT_LAYOUT_CHAT)
                printf("=== %s (turn %zu of %zu)%s ===\n", t % 2 ? "assistant" : "user", t + 1,
                       bp->turns_nr, t == bp->gold_turn ? ", gold" : "");
            else
                printf("=== assistant: tool call call_%04zu ===\n=== tool call_%04zu (result %zu "
                       "of %zu)%s ===\n",
                       t + 1, t + 1, t + 1, bp->turns_nr, t == bp->gold_turn ? ", gold" : "");
            printf("%.*s\n", (int)(bp->turn_end[t] - from), bp->turns.buf + from);
        }
        printf("=== user ===\n%s\n", bp->user.buf);
    } else {
        if (bp->system.len)
            printf("=== system ===\n%s\n", bp->system.buf);
        printf("=== user ===\n%s\n", bp->user.buf);
    }
}

int cmd_show_prompt(int argc, const char **argv)
{
    struct show_prompt s;
    int rc;

    show_prompt_init(&s);
    rc = show_prompt_parse(&s, argc, argv);
    if (rc > 0) {
        rc = DM_EXIT_OK;
    } else if (rc < 0 || show_prompt_check(&s) < 0 || show_prompt_load(&s) < 0 ||
               show_prompt_build(&s) < 0) {
        rc = DM_EXIT_USAGE;
    } else {
        if (s.json)
            print_json(&s);
        else
            print_text(&s);
        rc = DM_EXIT_OK;
    }
    show_prompt_release(&s);
    return rc;
}

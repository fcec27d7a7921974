/*
 * `dipmap show-prompt`: builds and prints the exact request of one trial
 * (question, length, depth, repeat, seed) with its realized length, depth,
 * gold position and hash -- for debugging a strange result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axes.h"
#include "builtin.h"
#include "client.h"
#include "dataset.h"
#include "json.h"
#include "num.h"
#include "opt.h"
#include "prompt.h"
#include "strbuf.h"
#include "strvec.h"
#include "tokenizer.h"
#include "trial.h"
#include "usage.h"

#include "banned.h"

static const char *const show_prompt_usage[] = {
    "dipmap show-prompt --dataset FILE [--haystack FILE] [--question ID] [--length N] "
    "[--depth PCT] [--repeat N] [--seed N] [--template NAME|FILE] [--tokenizer NAME|FILE] "
    "[--template-overhead N] [--special parse|plain] [--max-tokens N] [--completions] [--json] "
    "[--axes NAME=VALUE;...]",
    NULL,
};

int cmd_show_prompt(int argc, const char **argv)
{
    const char *dataset = NULL, *haystack = NULL, *qid = NULL, *length_s = "8k";
    const char *tpl_spec = "qa", *tok_spec = "cl100k_base";
    double depth = 50;
    long repeat = 0, seed = 0, max_tokens = CLIENT_DEFAULT_MAX_TOKENS, overhead = 0;
    int completion = 0, json = 0, ret = DM_EXIT_USAGE;
    struct strvec rest = STRVEC_INIT;
    struct golden_set gs;
    struct haystack hay;
    struct prompt_template tpl;
    struct tokenizer *tk = NULL;
    const char *special = NULL, *axes_spec = NULL;
    struct strbuf axes = STRBUF_INIT;
    struct prompt_builder *b = NULL;
    struct built_prompt bp = BUILT_PROMPT_INIT;
    struct strbuf err = STRBUF_INIT, path = STRBUF_INIT;
    struct prompt_request req;
    const struct question *q;
    long length;
    int have_gs = 0, have_hay = 0, have_tpl = 0, rc;
    struct option opts[] = {
        {OPT_STRING, "dataset", 'd', &dataset, "FILE", "golden set (JSONL, optionally .gz)", 0},
        {OPT_STRING, "haystack", 0, &haystack, "FILE", "filler chunks (JSONL or .txt)", 0},
        {OPT_STRING, "question", 'q', &qid, "ID", "question id (default: the first)", 0},
        {OPT_STRING, "length", 'l', &length_s, "N", "target length in tokens (default 8k)", 0},
        {OPT_DOUBLE, "depth", 0, &depth, "PCT", "gold depth in percent, 0..100 (default 50)", 0},
        {OPT_LONG, "repeat", 'r', &repeat, "N", "repeat index (default 0)", 0},
        {OPT_LONG, "seed", 0, &seed, "N", "run seed (default 0)", 0},
        {OPT_STRING, "template", 0, &tpl_spec, "NAME|FILE", "prompt template (default qa)", 0},
        {OPT_STRING, "tokenizer", 't', &tok_spec, "NAME|FILE", "tokenizer (default cl100k_base)",
         0},
        {OPT_STRING, "special", 0, &special, "parse|plain",
         "special-token text: its id (parse; default for tokenizer.json) or plain text", 0},
        {OPT_LONG, "max-tokens", 0, &max_tokens, "N", "answer budget shown (default 256, as run)",
         0},
        {OPT_LONG, "template-overhead", 0, &overhead, "N",
         "tokens the server adds per request (as run measured them; default 0)", 0},
        {OPT_BOOL, "completions", 0, &completion, NULL,
         "the /v1/completions rendering (one string), as run --completions", 0},
        {OPT_BOOL, "json", 0, &json, NULL, "print the request as JSON (messages or prompt)", 0},
        {OPT_STRING, "axes", 0, &axes_spec, "NAME=VALUE;...",
         "the trial's named axes, as run crosses them: e.g. 'question-at=start;needles=2;"
         "spacing=25'",
         0},
        OPT_END_MARK,
    };

    rc = parse_options(argc, argv, opts, show_prompt_usage, &rest);
    if (rc)
        return rc > 0 ? DM_EXIT_OK : DM_EXIT_USAGE;
    if (rest.nr) {
        error("show-prompt: unexpected argument '%s'", rest.v[0]);
        goto cleanup;
    }
    if (!dataset) {
        error("show-prompt: --dataset FILE is required");
        goto cleanup;
    }
    if (parse_token_count(length_s, 16L * 1024 * 1024, &length) < 0) {
        error("show-prompt: --length: '%s' is not a token count (e.g. 8k, 32768)", length_s);
        goto cleanup;
    }
    if (!(depth >= 0 && depth <= 100)) {
        error("show-prompt: --depth must be between 0 and 100 (percent)");
        goto cleanup;
    }
    if (repeat < 0 || seed < 0) {
        error("show-prompt: --repeat and --seed must be >= 0");
        goto cleanup;
    }
    if (golden_set_load(&gs, dataset) < 0)
        goto cleanup;
    have_gs = 1;
    if (haystack) {
        if (haystack_load(&hay, haystack) < 0)
            goto cleanup;
        have_hay = 1;
    }
    if (prompt_template_resolve(tpl_spec, &path) < 0) {
        error("show-prompt: template '%s' not found (%s)", tpl_spec, path.buf);
        goto cleanup;
    }
    if (prompt_template_load(&tpl, path.buf) < 0)
        goto cleanup;
    have_tpl = 1;
    q = qid ? golden_set_find(&gs, qid) : &gs.q[0];
    if (!q) {
        error("show-prompt: no question '%s' in %s", qid, dataset);
        goto cleanup;
    }
    tk = tokenizer_load(tok_spec, &err);
    if (!tk) {
        error("show-prompt: %s", err.buf);
        goto cleanup;
    }
    if (special) {
        if (strcmp(special, "parse") && strcmp(special, "plain")) {
            error("show-prompt: --special must be parse or plain, not '%s'", special);
            goto cleanup;
        }
        tokenizer_set_special(tk, !strcmp(special, "parse"));
    }
    b = prompt_builder_new(tk, &tpl, have_hay ? &hay : NULL);
    memset(&req, 0, sizeof(req));
    req.q = q;
    req.target_len = length;
    req.depth_bp = (int)(depth * 100 + 0.5);
    req.repeat = (int)repeat;
    req.seed = (unsigned long)seed;
    req.max_answer_tokens = max_tokens;
    req.chat = !completion;
    req.overhead = overhead;
    if (axes_spec && axes_canonical(axes_spec, &axes, &err) < 0) {
        error("show-prompt: --axes: %s", err.buf);
        goto cleanup;
    }
    req.axes = axes.buf;
    if (overhead < 0 || overhead >= length) {
        error("show-prompt: --template-overhead must be in 0..%ld (below the length)", length - 1);
        goto cleanup;
    }
    if (prompt_build(b, &req, &bp, &err) < 0) {
        error("show-prompt: %s", err.buf);
        goto cleanup;
    }
    if (json) {
        struct json *o = json_new_object();
        struct strbuf line = STRBUF_INIT;
        if (completion) {
            json_add_str(o, "prompt", bp.text.buf);
        } else {
            struct json *msgs = json_add_array(o, "messages"), *m;
            if (bp.system.len) {
                m = json_add_object(msgs, NULL);
                json_add_str(m, "role", "system");
                json_add_str(m, "content", bp.system.buf);
            }
            m = json_add_object(msgs, NULL);
            json_add_str(m, "role", "user");
            json_add_str(m, "content", bp.user.buf);
        }
        json_add_num(o, "max_tokens", (double)max_tokens);
        json_print(&line, o, 0);
        printf("%s\n", line.buf);
        strbuf_release(&line);
        json_free(o);
    } else {
        printf("# question %s, length %ld (realized %ld, %+.2f%%), depth %.2f%% (realized "
               "%.2f%%), repeat %ld, seed %ld\n",
               q->id, length, bp.realized_len, 100.0 * (double)(bp.realized_len - length) / length,
               depth, 100.0 * bp.realized_depth, repeat, seed);
        printf("# length: target %ld, realized %ld = content %ld + template overhead %ld\n", length,
               bp.realized_len, bp.realized_len - bp.overhead, bp.overhead);
        printf("# gold: document %zu of %zu, token offset %ld; %zu hard negatives, %zu filler "
               "chunks (%zu excluded: they contain an answer)\n",
               bp.gold_index + 1, bp.docs_nr, bp.gold_offset, bp.hard_negatives, bp.filler,
               bp.filler_dropped);
        if (have_hay)
            printf("# haystack %s: %zu chunks (%zu exact duplicates dropped)\n", hay.path, hay.nr,
                   hay.dropped_duplicates);
        printf("# template %s, tokenizer %s, sha256 %s\n", tpl.path, tokenizer_name(tk), bp.sha256);
        if (completion) {
            printf("=== prompt ===\n%s\n", bp.text.buf);
        } else {
            if (bp.system.len)
                printf("=== system ===\n%s\n", bp.system.buf);
            printf("=== user ===\n%s\n", bp.user.buf);
        }
    }
    ret = DM_EXIT_OK;
cleanup:
    built_prompt_release(&bp);
    prompt_builder_free(b);
    tokenizer_free(tk);
    if (have_tpl)
        prompt_template_release(&tpl);
    if (have_hay)
        haystack_release(&hay);
    if (have_gs)
        golden_set_release(&gs);
    strbuf_release(&err);
    strbuf_release(&axes);
    strbuf_release(&path);
    strvec_clear(&rest);
    return ret;
}

/*
 * Template overhead: what the server counts for a request minus what the
 * run's tokenizer counts for its content (the server's /tokenize with
 * messages, llama.cpp /apply-template, or a probe request).
 */
#include "client/overhead.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "prompt/layout.h"
#include "prompt/prompt.h"
#include "tokenizer/tokenizer.h"

#include "base/banned.h"

int overhead_measure(struct client *c, struct tokenizer *tk, const char *system, const char *user,
                     int chat, struct template_overhead *out, struct strbuf *err)
{
    long a = 0, b;
    memset(out, 0, sizeof(*out));
    if (client_count_request(c, chat ? system : NULL, user, chat, &out->server_count, &out->method,
                             err) < 0)
        return -1;
    if (chat && system && *system && (a = tokenizer_count_err(tk, system, strlen(system), err)) < 0)
        return -1;
    b = tokenizer_count_err(tk, user, strlen(user), err);
    if (b < 0)
        return -1;
    out->local_count = a + b;
    out->tokens = out->server_count - out->local_count;
    return 0;
}

int overhead_measure_question(struct client *c, struct tokenizer *tk,
                              const struct prompt_template *tpl, const struct question *q, int chat,
                              struct template_overhead *out, struct strbuf *err)
{
    struct prompt_builder *pb = prompt_builder_new(tk, tpl, NULL);
    struct built_prompt bp = BUILT_PROMPT_INIT;
    int rc;
    prompt_render_fixed(pb, q, &bp);
    rc = overhead_measure(c, tk, bp.system.buf, chat ? bp.user.buf : bp.text.buf, chat, out, err);
    built_prompt_release(&bp);
    prompt_builder_free(pb);
    return rc;
}

int overhead_agree(const struct template_overhead *a, const struct template_overhead *b)
{
    long longer = a->local_count > b->local_count ? a->local_count : b->local_count;
    long diff = labs(a->tokens - b->tokens);
    return diff <= 2 || (double)diff <= 0.01 * (double)longer;
}

/*
 * Probe turns: one sentence ending in punctuation, one in a letter. A template whose text
 * after a turn merges with the turn's last characters (Qwen3's "\n</tool_response>": "." +
 * "\n" is one token) counts them differently; the suffix that explains both is found below.
 */
static const char *const probe_turn[2] = {"The probe turn says nothing.",
                                          "The probe turn says nothing"};
/* Texts a template may put right after a turn's content, tried in order ("" first). */
static const char *const suffixes[] = {"", "\n", " ", "\n\n", NULL};

/*
 * The server's count of a probe of pairs turn pairs of probe_turn[kind] (*server), and the
 * run's tokenizer's count of its system and user messages (*fixed) and of one turn (*turn).
 */
static int probe_counts(struct client *c, struct tokenizer *tk, int layout, const char *system,
                        const char *user, int kind, size_t pairs, long *server, long *fixed,
                        struct strbuf *err)
{
    struct built_prompt p = BUILT_PROMPT_INIT;
    struct strbuf m = STRBUF_INIT;
    enum client_count_method method;
    long n = 0;
    int ret = -1;

    prompt_layout_probe(&p, layout, system, user, probe_turn[kind], pairs);
    prompt_messages_json(&p, NULL, &m);
    if (client_count_messages(c, m.buf, server, &method, err) < 0)
        goto out;
    *fixed = 0;
    if (p.system.len && (n = tokenizer_count_err(tk, p.system.buf, p.system.len, err)) < 0)
        goto out;
    *fixed += n;
    if ((n = tokenizer_count_err(tk, p.user.buf, p.user.len, err)) < 0)
        goto out;
    *fixed += n;
    ret = 0;
out:
    strbuf_release(&m);
    built_prompt_release(&p);
    return ret;
}

int overhead_measure_turns(struct client *c, struct tokenizer *tk, int layout, const char *system,
                           const char *user, long base, struct prompt_turn_cost *out,
                           struct strbuf *err)
{
    /* [kind][pairs - 1]: the server's counts; the run's count of system and user */
    long server[2][2], fixed = 0, per[2] = {0, 0};
    size_t turns_per_pair = (size_t)prompt_layouts[layout].turns_per_pair;
    int kind, i;

    memset(out, 0, sizeof(*out));
    for (kind = 0; kind < 2; kind++)
        for (i = 0; i < 2; i++)
            if (probe_counts(c, tk, layout, system, user, kind, (size_t)i + 1, &server[kind][i],
                             &fixed, err) < 0)
                return -1;
    for (i = 0; suffixes[i]; i++) {
        int linear = 1;
        for (kind = 0; kind < 2; kind++) {
            /* a turn as the builder counts it: with the suffix, less the suffix alone */
            long sl = (long)strlen(suffixes[i]), st = 0, t;
            struct strbuf tx = STRBUF_INIT;
            strbuf_addstr(&tx, probe_turn[kind]);
            strbuf_addstr(&tx, suffixes[i]);
            t = tokenizer_count_err(tk, tx.buf, tx.len, err);
            if (sl)
                st = tokenizer_count_err(tk, suffixes[i], (size_t)sl, err);
            strbuf_release(&tx);
            if (t < 0 || st < 0)
                return -1;
            t -= st;
            per[kind] = server[kind][0] - fixed - base - (long)turns_per_pair * t;
            linear &= server[kind][1] - server[kind][0] - (long)turns_per_pair * t == per[kind];
        }
        if (linear && per[0] == per[1]) {
            out->per_pair = per[0];
            snprintf(out->suffix, sizeof(out->suffix), "%s", suffixes[i]);
            return 0;
        }
    }
    strbuf_addf(err,
                "the server's tokens per %s turn pair are not constant (%ld with one pair of a "
                "turn ending in '.', %ld more with two; %ld with one of a turn ending in a "
                "letter)",
                prompt_layout_name(layout), server[0][0] - fixed - base,
                server[0][1] - server[0][0], server[1][0] - fixed - base);
    return -1;
}

int overhead_measure_turns_question(struct client *c, struct tokenizer *tk,
                                    const struct prompt_template *tpl, const struct question *q,
                                    int layout, long base, struct prompt_turn_cost *out,
                                    struct strbuf *err)
{
    struct prompt_builder *pb = prompt_builder_new(tk, tpl, NULL);
    struct built_prompt bp = BUILT_PROMPT_INIT;
    int rc;
    prompt_render_fixed(pb, q, &bp);
    rc = overhead_measure_turns(c, tk, layout, bp.system.buf, bp.user.buf, base, out, err);
    built_prompt_release(&bp);
    prompt_builder_free(pb);
    return rc;
}

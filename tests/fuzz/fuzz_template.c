/*
 * libFuzzer target for the prompt template parser (prompt_template.c
 * prompt_template_parse) and the renderer behind prompt_build(): any text in.
 * A failure must print nothing and name the template in err; a success must
 * have a [user] with {documents} and {question} and a [document] with {text},
 * and building a prompt from it must place the gold text inside the reported
 * gold byte range. Counting uses a remote-style tokenizer (bytes / 4), so no
 * tokenizer file is needed.
 * Build and run: `make fuzz-template` (clang, -fsanitize=fuzzer,address,undefined).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prompt/dataset.h"
#include "prompt/prompt.h"
#include "base/strbuf.h"
#include "tokenizer/tokenizer.h"
#include "run/trial.h"
#include "base/usage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct strbuf errors = STRBUF_INIT;
static int error_count;

static void hook(const char *prefix, const char *msg)
{
    if (prefix && !strncmp(prefix, "error", 5))
        error_count++;
    strbuf_addstr(&errors, msg ? msg : "");
    strbuf_addch(&errors, '\n');
}

static int quarter_count(void *ctx, const char *text, size_t len, long *count, struct strbuf *err)
{
    (void)ctx;
    (void)text;
    (void)err;
    *count = (long)(len / 4 + 1);
    return 0;
}

static const char gold_text[] = "GOLDTEXT-7f3a the passcode is 4417";

static void build(const struct prompt_template *t, const uint8_t *data, size_t size)
{
    static struct tokenizer *tk;
    struct question q;
    struct chunk gold, neg;
    struct prompt_builder *b;
    struct prompt_request r;
    struct built_prompt p = BUILT_PROMPT_INIT;
    struct strbuf err = STRBUF_INIT;
    unsigned h = size ? data[size - 1] : 0;

    if (!tk)
        tk = tokenizer_new_remote("fuzz-quarter", quarter_count, NULL);
    memset(&q, 0, sizeof(q));
    memset(&gold, 0, sizeof(gold));
    memset(&neg, 0, sizeof(neg));
    strvec_init(&q.answers);
    strvec_push(&q.answers, "4417");
    gold.id = "g";
    gold.title = "Gold {title}";
    gold.text = (char *)gold_text;
    gold.text_len = strlen(gold_text);
    neg.id = "n";
    neg.title = "";
    neg.text = "the passcode is not 9999 {documents} }} {{";
    neg.text_len = strlen(neg.text);
    q.id = "q1";
    q.question = "What is the passcode? {question}";
    q.gold = &gold;
    q.gold_nr = 1;
    q.distractors = &neg;
    q.distractors_nr = 1;

    b = prompt_builder_new(tk, t, NULL);
    memset(&r, 0, sizeof(r));
    r.q = &q;
    r.target_len = 1 + (long)(h % 64) * 8;
    r.depth_bp = (int)((h >> 1) % 11) * (DEPTH_BP_MAX / 10);
    r.chat = h & 1;
    r.seed = 7;
    if (prompt_build(b, &r, &p, &err) == 0) {
        const struct strbuf *u = &p.user;
        if (p.gold_start > p.gold_end || p.gold_end > u->len || p.realized_len <= 0)
            abort();
        {
            /* the gold text lies inside the gold range */
            char *sub = strndup(u->buf + p.gold_start, p.gold_end - p.gold_start);
            if (!sub || !strstr(sub, gold_text))
                abort();
            free(sub);
        }
        if (p.realized_depth < 0 || p.realized_depth > 1)
            abort();
    } else if (!err.len) {
        abort(); /* failures explain themselves */
    }
    built_prompt_release(&p);
    prompt_builder_free(b);
    strbuf_release(&err);
    strvec_clear(&q.answers);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct prompt_template t;
    struct strbuf err = STRBUF_INIT;
    char *text = malloc(size + 1);
    static const char name[] = "prompts/fuzz.txt";

    memcpy(text, data, size);
    text[size] = '\0';
    usage_set_hook(hook);
    strbuf_reset(&errors);
    error_count = 0;
    if (prompt_template_parse(&t, name, text, &err) < 0) {
        if (error_count != 0 || strncmp(err.buf, name, strlen(name))) {
            fprintf(stderr, "failure without a message naming the file, or printed:\n%s%s\n",
                    errors.buf, err.buf);
            abort();
        }
    } else {
        if (!t.user || !strstr(t.user, "{documents}") || !strstr(t.user, "{question}") ||
            !t.document || !strstr(t.document, "{text}") || !t.system || !t.separator ||
            strlen(t.sha256) != SHA256_HEX_LEN)
            abort();
        build(&t, data, size);
    }
    prompt_template_release(&t);
    strbuf_release(&err);
    free(text);
    return 0;
}

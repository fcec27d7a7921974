/*
 * libFuzzer target for the tokenizer (tokenizer*.c): any bytes in, ids out; decoding the ids
 * gives the input back (for the NFC tokenizer Qwen3: encoding the decoded
 * text again gives the same ids), and tokenizer_count() agrees with encode.
 * The first input byte picks the tokenizer (cl100k, o200k, GPT-2, Qwen3,
 * DeepSeek V3, Llama 2) and whether special-token text is parsed; for
 * Llama 2 (a text model) only encode, decode and count agreeing is checked.
 * Build and run: `make fuzz` (clang, -fsanitize=fuzzer,address,undefined).
 * Tokenizer files: datasets/tokenizers/ and tests/data/tokenizer/, relative
 * to the repository root.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "tokenizer/tokenizer.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct tokenizer *tks[6];

static struct tokenizer *load(const char *spec)
{
    struct strbuf err = STRBUF_INIT;
    struct tokenizer *tk = tokenizer_load(spec, &err);
    if (!tk) {
        fprintf(stderr, "fuzz_tokenizer: %s\n", err.buf);
        abort();
    }
    strbuf_release(&err);
    return tk;
}

static void init(void)
{
    tks[0] = load("datasets/tokenizers/cl100k_base.tiktoken.gz");
    tks[1] = load("datasets/tokenizers/o200k_base.tiktoken.gz");
    tks[2] = load("tests/data/tokenizer/gpt2/tokenizer.json.gz");
    tks[3] = load("tests/data/tokenizer/qwen3/tokenizer.json.gz");
    tks[4] = load("tests/data/tokenizer/deepseek_v3/tokenizer.json.gz");
    tks[5] = load("tests/data/tokenizer/llama2/tokenizer.json.gz");
}

/* libFuzzer calls this once before the first input, outside -timeout (the six loads take
 * seconds under its instrumentation); the replay driver does not, so the first input loads. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    init();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct tokenizer *tk;
    const char *text;
    uint32_t *ids, *ids2;
    size_t n, n2, len;
    int allow;
    struct strbuf dec = STRBUF_INIT;

    if (!tks[0])
        init();
    if (!size)
        return 0;
    tk = tks[data[0] % 6];
    allow = (data[0] / 6) & 1;
    text = (const char *)data + 1;
    len = size - 1;
    if (tokenizer_encode(tk, text, len, allow, &ids, &n) != 0)
        abort();
    if (tokenizer_decode(tk, ids, n, &dec) != 0)
        abort();
    if (tk == tks[5]) {
        /* a text model: invalid bytes are read as U+FFFD, the prepended space is dropped */
    } else if (tk == tks[3]) {
        if (tokenizer_encode(tk, dec.buf, dec.len, allow, &ids2, &n2) != 0 || n2 != n ||
            (n && memcmp(ids, ids2, n * sizeof(*ids))))
            abort();
        free(ids2);
    } else if (dec.len != len || (len && memcmp(dec.buf, text, len))) {
        abort();
    }
    if (allow == tokenizer_special_parse(tk) && tokenizer_count(tk, text, len) != (long)n)
        abort();
    free(ids);
    strbuf_release(&dec);
    return 0;
}

/*
 * libFuzzer target for the haystack loader (dataset.c haystack_load): the
 * first input byte picks JSONL or plain-text mode (".txt" path), the rest is
 * the file (plain or gzip). A failure must print exactly one error naming
 * the file; a success gives distinct, non-empty, normalised chunks, and
 * haystack_filter() against a small question stays within bounds.
 * Build and run: `make fuzz-haystack` (clang, -fsanitize=fuzzer,address,undefined).
 */
#include "fuzz_file.h"

#include "prompt/dataset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct haystack h;
    const char *path;
    size_t i, j;
    int txt;

    if (!size)
        return 0;
    txt = data[0] & 1;
    path = fuzz_write_file(txt, txt ? ".txt" : ".jsonl", data + 1, size - 1);
    fuzz_errors_reset();
    if (haystack_load(&h, path) < 0) {
        if (fuzz_error_count != 1 || !strstr(fuzz_errors.buf, path)) {
            fprintf(stderr, "failure without exactly one message naming the file:\n%s",
                    fuzz_errors.buf);
            abort();
        }
        haystack_release(&h);
        return 0;
    }
    if (!h.nr || strlen(h.sha256) != SHA256_HEX_LEN)
        abort();
    for (i = 0; i < h.nr; i++) {
        const struct chunk *c = &h.c[i];
        if (!c->id || !c->id[0] || !c->title || !c->text || c->text_len != strlen(c->text) ||
            !c->norm || c->norm_len != strlen(c->norm))
            abort();
        if (!utf8_valid(c->text, c->text_len))
            abort();
        /* text chunks are never empty (blank paragraphs are separators) */
        if (!c->text_len)
            abort();
        for (j = 0; j < i && j < 64; j++)
            if (!strcmp(h.c[j].norm, c->norm))
                abort(); /* exact duplicates are dropped */
    }
    {
        /* a question whose answer is the first chunk's first byte run */
        struct question q;
        struct chunk gold;
        size_t *idx = NULL, nr = 0, dropped = 0;
        memset(&q, 0, sizeof(q));
        memset(&gold, 0, sizeof(gold));
        strvec_init(&q.answers);
        strvec_push(&q.answers, h.c[0].text);
        gold.id = h.c[0].id;
        gold.title = h.c[0].title;
        gold.text = h.c[0].text;
        gold.text_len = h.c[0].text_len;
        q.id = "q";
        q.question = "?";
        q.gold = &gold;
        q.gold_nr = 1;
        haystack_filter(&h, &q, &idx, &nr, &dropped);
        if (nr + dropped != h.nr)
            abort();
        for (i = 0; i < nr; i++)
            if (idx[i] >= h.nr || idx[i] == 0)
                abort(); /* chunk 0 is the question's own gold */
        free(idx);
        strvec_clear(&q.answers);
    }
    haystack_release(&h);
    return 0;
}

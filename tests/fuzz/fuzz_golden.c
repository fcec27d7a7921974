/*
 * libFuzzer target for the golden-set loader (dataset.c golden_set_load):
 * any file content in (plain or gzip, detected from the bytes). A failure
 * must have printed exactly one error naming the file; a success must satisfy
 * the documented validation (non-empty unique ids, questions, answers, gold
 * texts) and survive a round trip through question_to_jsonl() unchanged.
 * Build and run: `make fuzz-golden` (clang, -fsanitize=fuzzer,address,undefined).
 */
#include "fuzz_file.h"

#include "prompt/dataset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int chunk_ok(const struct chunk *c)
{
    return c->id && c->id[0] && c->title && c->text && c->text[0] && c->text_len == strlen(c->text);
}

static int chunk_eq(const struct chunk *a, const struct chunk *b)
{
    return !strcmp(a->id, b->id) && !strcmp(a->title, b->title) && !strcmp(a->text, b->text) &&
           !a->value == !b->value && (!a->value || !strcmp(a->value, b->value));
}

static int opt_eq(const char *a, const char *b)
{
    return !a == !b && (!a || !strcmp(a, b));
}

static void check_set(const struct golden_set *gs)
{
    size_t i, k, j;
    if (!gs->nr || strlen(gs->sha256) != SHA256_HEX_LEN)
        abort();
    for (i = 0; i < gs->nr; i++) {
        const struct question *q = &gs->q[i];
        if (!q->id || !q->id[0] || !q->question || !q->question[0] || !q->answers.nr ||
            (!q->gold_nr && !q->retrieved_nr) || q->line < 1)
            abort(); /* only a retrieval item may have no gold (its retriever missed it) */
        for (k = 0; k < q->retrieved_nr; k++)
            if (!chunk_ok(&q->retrieved[k].c) || q->retrieved[k].source < 0 ||
                (size_t)q->retrieved[k].source >= q->retrieved_nr ||
                (k && q->retrieved[k].score > q->retrieved[k - 1].score))
                abort();
        if (q->gold_rank > q->retrieved_nr || (q->retrieved_nr && !q->gold_rank != !q->gold_nr))
            abort();
        for (k = 0; k < q->answers.nr; k++)
            if (!q->answers.v[k][0])
                abort();
        for (k = 0; k < q->gold_nr; k++)
            if (!chunk_ok(&q->gold[k]))
                abort();
        for (k = 0; k < q->distractors_nr; k++)
            if (!chunk_ok(&q->distractors[k]))
                abort();
        for (j = 0; j < i; j++)
            if (!strcmp(gs->q[j].id, q->id))
                abort(); /* duplicate ids must be refused */
        if (golden_set_find(gs, q->id) != q)
            abort();
    }
}

static void round_trip(const struct golden_set *gs)
{
    struct strbuf out = STRBUF_INIT;
    struct golden_set back;
    size_t i, k;
    for (i = 0; i < gs->nr; i++)
        question_to_jsonl(&out, &gs->q[i]);
    fuzz_errors_reset();
    if (golden_set_load(&back, fuzz_write_file(1, ".jsonl", (const uint8_t *)out.buf, out.len)) <
        0) {
        fprintf(stderr, "re-loading the written set failed: %s\n", fuzz_errors.buf);
        abort();
    }
    if (back.nr != gs->nr)
        abort();
    for (i = 0; i < gs->nr; i++) {
        const struct question *a = &gs->q[i], *b = &back.q[i];
        if (strcmp(a->id, b->id) || strcmp(a->question, b->question) ||
            a->answers.nr != b->answers.nr || a->gold_nr != b->gold_nr ||
            a->distractors_nr != b->distractors_nr || !opt_eq(a->scorer, b->scorer) ||
            !opt_eq(a->answer_regex, b->answer_regex))
            abort();
        for (k = 0; k < a->answers.nr; k++)
            if (strcmp(a->answers.v[k], b->answers.v[k]))
                abort();
        if (a->retrieved_nr != b->retrieved_nr || a->gold_rank != b->gold_rank)
            abort();
        for (k = 0; k < a->retrieved_nr; k++)
            if (!chunk_eq(&a->retrieved[k].c, &b->retrieved[k].c) ||
                a->retrieved[k].gold != b->retrieved[k].gold ||
                a->retrieved[k].source != b->retrieved[k].source ||
                !opt_eq(a->retrieved[k].doc, b->retrieved[k].doc))
                abort();
        for (k = 0; k < a->gold_nr; k++)
            if (!chunk_eq(&a->gold[k], &b->gold[k]))
                abort();
        for (k = 0; k < a->distractors_nr; k++)
            if (!chunk_eq(&a->distractors[k], &b->distractors[k]))
                abort();
    }
    golden_set_release(&back);
    strbuf_release(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct golden_set gs;
    const char *path = fuzz_write_file(0, ".jsonl", data, size);

    fuzz_errors_reset();
    if (golden_set_load(&gs, path) < 0) {
        if (fuzz_error_count != 1 || !strstr(fuzz_errors.buf, path)) {
            fprintf(stderr, "failure without exactly one message naming the file:\n%s",
                    fuzz_errors.buf);
            abort();
        }
        if (gs.nr || gs.q || gs.path)
            abort(); /* left empty */
        golden_set_release(&gs);
        return 0;
    }
    check_set(&gs);
    round_trip(&gs);
    golden_set_release(&gs);
    return 0;
}

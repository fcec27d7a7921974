/*
 * Golden set and haystack loading: valid files, gzip, every bad-input case
 * with its file:line:field message (cases in tests/data/datasets/), chunk
 * hygiene, normalisation and write/load round trips. Run from the repo root.
 */
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cJSON.h>

#include "test.h"

#include "prompt/dataset.h"
#include "run/score.h"
#include "base/strbuf.h"
#include "base/usage.h"

#define DIR "tests/data/datasets/"

static struct strbuf captured = STRBUF_INIT;
static void capture(const char *prefix, const char *msg)
{
    (void)prefix;
    strbuf_addstr(&captured, msg);
}

/* Load path as a golden set (or haystack) expecting failure with exactly msg. */
static void expect_error(int hay, const char *path, const char *msg)
{
    struct golden_set gs;
    struct haystack h;
    int rc;
    strbuf_reset(&captured);
    usage_set_hook(capture);
    rc = hay ? haystack_load(&h, path) : golden_set_load(&gs, path);
    usage_set_hook(NULL);
    CHECK_INT(rc, -1);
    CHECK_STR(captured.buf, msg);
    if (!rc) {
        if (hay)
            haystack_release(&h);
        else
            golden_set_release(&gs);
    }
}

static void test_valid_set(void)
{
    struct golden_set gs;
    const struct question *q;
    CHECK_INT(golden_set_load(&gs, DIR "valid.jsonl"), 0);
    CHECK_INT(gs.nr, 2);
    CHECK_INT(strlen(gs.sha256), 64);
    q = golden_set_find(&gs, "q1");
    CHECK(q != NULL);
    if (q) {
        CHECK_STR(q->question, "capital of france");
        CHECK_INT(q->answers.nr, 1);
        CHECK_STR(q->answers.v[0], "Paris");
        CHECK_INT(q->gold_nr, 1);
        CHECK_STR(q->gold[0].title, "T");
        CHECK_STR(q->gold[0].id, "q1/gold/0");
        CHECK_INT(q->distractors_nr, 1);
        CHECK_STR(q->distractors[0].value, "Lyon");
        CHECK_STR(q->distractors[0].id, "q1/neg/0");
        CHECK_STR(q->scorer, "litm");
        CHECK(q->answer_regex == NULL);
        CHECK_INT(q->line, 1);
    }
    q = golden_set_find(&gs, "q2");
    CHECK(q && q->answers.nr == 2 && q->gold[0].title[0] == '\0' && q->distractors_nr == 0 &&
          q->gold[0].value == NULL && q->line == 2);
    CHECK(golden_set_find(&gs, "q3") == NULL);
    golden_set_release(&gs);
}

static int gzip_file(const char *src, const char *dst)
{
    struct strbuf sb = STRBUF_INIT;
    gzFile gz;
    if (strbuf_read_file(&sb, src) < 0)
        return -1;
    gz = gzopen(dst, "wb");
    if (!gz)
        return -1;
    gzwrite(gz, sb.buf, (unsigned)sb.len);
    gzclose(gz);
    strbuf_release(&sb);
    return 0;
}

static void test_gzip(void)
{
    struct golden_set a, b;
    char path[] = "/tmp/dipmap-test-dataset-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    CHECK_INT(gzip_file(DIR "valid.jsonl", path), 0);
    CHECK_INT(golden_set_load(&a, DIR "valid.jsonl"), 0);
    CHECK_INT(golden_set_load(&b, path), 0);
    CHECK_INT(b.nr, 2);
    /* the hash is of the content, so compressing does not change it */
    CHECK_STR(a.sha256, b.sha256);
    CHECK_STR(b.q[1].gold[0].text, "Madrid is the capital of Spain.");
    golden_set_release(&a);
    golden_set_release(&b);
    unlink(path);
}

/* A gzip file cut short is an error, not a silently shorter set. */
static void test_truncated_gzip(void)
{
    char path[] = "/tmp/dipmap-test-trunc-XXXXXX";
    struct strbuf sb = STRBUF_INIT, want = STRBUF_INIT;
    int fd = mkstemp(path);
    close(fd);
    CHECK_INT(gzip_file("datasets/needle.jsonl", path), 0);
    CHECK_INT(strbuf_read_file(&sb, path), 0);
    fd = open(path, O_WRONLY | O_TRUNC);
    CHECK(write(fd, sb.buf, sb.len / 2) == (ssize_t)(sb.len / 2));
    close(fd);
    strbuf_reset(&captured);
    {
        struct golden_set gs;
        usage_set_hook(capture);
        CHECK_INT(golden_set_load(&gs, path), -1);
        usage_set_hook(NULL);
    }
    strbuf_addf(&want, "%s: truncated gzip file", path);
    CHECK(!strncmp(captured.buf, want.buf, want.len));
    unlink(path);
    strbuf_release(&sb);
    strbuf_release(&want);
}

static void test_bad_inputs(void)
{
    expect_error(0, DIR "dup-id.jsonl",
                 DIR "dup-id.jsonl:3: \"id\": duplicate question id \"q1\" (first on line 1)");
    expect_error(0, DIR "empty-text.jsonl",
                 DIR "empty-text.jsonl:3: \"gold\"[0].\"text\" must be a non-empty string");
    expect_error(0, DIR "non-string-answer.jsonl",
                 DIR "non-string-answer.jsonl:1: \"answers\" must be a non-empty array of strings");
    expect_error(0, DIR "empty-answers.jsonl",
                 DIR "empty-answers.jsonl:1: \"answers\" must be a non-empty array of strings");
    expect_error(0, DIR "bad-utf8.jsonl", DIR "bad-utf8.jsonl:2: invalid UTF-8 at byte 30");
    expect_error(0, DIR "bad-value.jsonl",
                 DIR "bad-value.jsonl:1: \"distractors\"[1].\"value\" must be a string");
    expect_error(0, DIR "bad-json.jsonl", DIR "bad-json.jsonl:1: invalid JSON (near byte 135)");
    expect_error(0, DIR "not-object.jsonl", DIR "not-object.jsonl:1: must be a JSON object");
    expect_error(0, DIR "missing-question.jsonl",
                 DIR "missing-question.jsonl:1: \"question\" must be a non-empty string");
    expect_error(0, DIR "no-such-file.jsonl",
                 DIR "no-such-file.jsonl: cannot open: No such file or directory");
    /* a gold answer empty once normalised ("A") would match any answer */
    expect_error(0, DIR "empty-gold.jsonl",
                 DIR "empty-gold.jsonl:2: \"answers\"[0]: \"A\" is empty once normalised "
                     "(articles and punctuation are removed), so it would match any answer; give "
                     "the question \"scorer\": \"exact\" or an \"answer_regex\"");
    expect_error(1, DIR "hay-empty-text.jsonl",
                 DIR "hay-empty-text.jsonl:2: \"text\" must be a non-empty string");
}

static void test_line_too_long(void)
{
    char path[] = "/tmp/dipmap-test-long-XXXXXX";
    int fd = mkstemp(path);
    FILE *fp = fdopen(fd, "w");
    struct strbuf want = STRBUF_INIT;
    size_t i;
    fprintf(fp, "{\"id\": \"q1\", \"question\": \"a\", \"answers\": [\"b\"], \"gold\": [{\"text\": "
                "\"b c\"}]}\n{\"id\": \"q2\", \"question\": \"");
    for (i = 0; i < DATASET_LINE_MAX; i++)
        fputc('x', fp);
    fprintf(fp, "\"}\n");
    fclose(fp);
    strbuf_addf(&want, "%s:2: line is longer than %d bytes", path, DATASET_LINE_MAX);
    expect_error(0, path, want.buf);
    unlink(path);
    strbuf_release(&want);
}

static void test_empty_set(void)
{
    char path[] = "/tmp/dipmap-test-empty-XXXXXX";
    int fd = mkstemp(path);
    struct strbuf want = STRBUF_INIT;
    CHECK(write(fd, "\n\n", 2) == 2);
    close(fd);
    strbuf_addf(&want, "%s: no questions in the golden set", path);
    expect_error(0, path, want.buf);
    unlink(path);
    strbuf_release(&want);
}

static void test_normalize(void)
{
    struct strbuf sb = STRBUF_INIT;
    const char *s = "  The  Wilhelm\xc2\xa0"
                    "Conrad R\xc3\x96NTGEN!  (a U.S. prize) ";
    score_normalize(s, strlen(s), &sb);
    CHECK_STR(sb.buf, "wilhelm conrad r\xc3\xb6ntgen us prize");
    strbuf_reset(&sb);
    score_normalize("...", 3, &sb);
    CHECK_STR(sb.buf, "");
    strbuf_release(&sb);
}

/*
 * The leak filter normalises with the scorer's rule (score_normalize): an
 * answer in capitals with a final sigma leaks into a lower-case chunk, and a
 * fullwidth answer into its ASCII-cased form -- the chunks are excluded.
 * (The old hand-rolled lower-casing mapped the final capital sigma to U+03C3
 * and left fullwidth letters alone, so both chunks passed as filler.)
 */
static void test_leak_non_latin(void)
{
    static const char set[] =
        "{\"id\": \"g1\", \"question\": \"who sailed home\", \"answers\": "
        "[\"\u039f\u0394\u03a5\u03a3\u03a3\u0395\u03a5\u03a3\"], \"gold\": [{\"text\": "
        "\"\u039f\u0394\u03a5\u03a3\u03a3\u0395\u03a5\u03a3: \u0397 "
        "\u0399\u03b8\u03ac\u03ba\u03b7.\"}]}\n"
        "{\"id\": \"g2\", \"question\": \"which brand\", \"answers\": "
        "[\"\uff21\uff23\uff2d\uff25\"], \"gold\": [{\"text\": \"\uff21\uff23\uff2d\uff25 "
        "\u305d\u308c.\"}]}\n";
    static const char hay[] =
        "\u03bf \u03bf\u03b4\u03c5\u03c3\u03c3\u03b5\u03c5\u03c2 "
        "\u03b3\u03cd\u03c1\u03b9\u03c3\u03b5 \u03c3\u03c0\u03af\u03c4\u03b9.\n\n"
        "\u4f1a\u793e\u306f \uff41\uff43\uff4d\uff45 \u3067\u3059\u3002\n\n"
        "\u03ba\u03b1\u03bd\u03ad\u03bd\u03b1\u03c2 \u03b4\u03b5\u03bd \u03ae\u03c1\u03b8\u03b5.\n";
    struct golden_set gs;
    struct haystack h;
    size_t *idx = NULL, nr = 0, dropped = 0;
    struct strbuf sb = STRBUF_INIT;
    FILE *fp = fopen("leak-set.jsonl", "w");
    CHECK(fp != NULL);
    if (!fp)
        return;
    fputs(set, fp);
    fclose(fp);
    fp = fopen("leak-hay.txt", "w");
    CHECK(fp != NULL);
    if (!fp)
        return;
    /* the haystack is plain UTF-8 text: decode the \u escapes through cJSON */
    {
        struct strbuf js = STRBUF_INIT;
        cJSON *j;
        strbuf_addf(&js, "\"%s\"", hay);
        j = cJSON_Parse(js.buf);
        CHECK(j && cJSON_IsString(j));
        if (j && j->valuestring)
            fputs(j->valuestring, fp);
        cJSON_Delete(j);
        strbuf_release(&js);
    }
    fclose(fp);
    CHECK_INT(golden_set_load(&gs, "leak-set.jsonl"), 0);
    CHECK_INT(haystack_load(&h, "leak-hay.txt"), 0);
    CHECK_INT(h.nr, 3);
    haystack_filter(&h, golden_set_find(&gs, "g1"), &idx, &nr, &dropped);
    CHECK_INT(dropped, 1); /* the Odysseus chunk (final sigma) */
    CHECK_INT(nr, 2);
    free(idx);
    idx = NULL;
    haystack_filter(&h, golden_set_find(&gs, "g2"), &idx, &nr, &dropped);
    CHECK_INT(dropped, 1); /* fullwidth ACME vs fullwidth acme */
    free(idx);
    strbuf_release(&sb);
    haystack_release(&h);
    golden_set_release(&gs);
    remove("leak-set.jsonl");
    remove("leak-hay.txt");
}

static void test_hygiene(void)
{
    struct golden_set gs;
    struct haystack h;
    struct question q;
    size_t *idx = NULL, nr = 0, dropped = 0, i;
    struct strbuf n = STRBUF_INIT;

    CHECK_INT(golden_set_load(&gs, DIR "valid.jsonl"), 0);
    CHECK_INT(haystack_load(&h, DIR "hay.txt"), 0);
    /* paragraph 2 repeats paragraph 1 up to case, spacing and articles */
    CHECK_INT(h.nr, 3);
    CHECK_INT(h.dropped_duplicates, 1);
    CHECK_STR(h.c[0].id, "hay.txt:1");
    CHECK_STR(h.c[0].text, "The river flows through the valley and past the old mill. It was built "
                           "in the eighteenth century.");
    /* the paragraph naming Paris is never filler for the Paris question */
    haystack_filter(&h, golden_set_find(&gs, "q1"), &idx, &nr, &dropped);
    CHECK_INT(nr, 2);
    CHECK_INT(dropped, 1);
    for (i = 0; i < nr; i++)
        CHECK(strstr(h.c[idx[i]].text, "Paris") == NULL);
    free(idx);
    haystack_filter(&h, golden_set_find(&gs, "q2"), &idx, &nr, &dropped);
    CHECK_INT(nr, 3);
    CHECK_INT(dropped, 0);
    free(idx);

    /* short answers match whole words only; long ones as substrings */
    memset(&q, 0, sizeof(q));
    strvec_init(&q.answers);
    strvec_push(&q.answers, "2");
    score_normalize("won in 2017", 11, &n);
    CHECK_INT(question_leaks_into(&q, n.buf, n.len), 0);
    strbuf_reset(&n);
    score_normalize("number 2 won", 12, &n);
    CHECK_INT(question_leaks_into(&q, n.buf, n.len), 1);
    strvec_clear(&q.answers);
    strvec_push(&q.answers, "The Beatles");
    strbuf_reset(&n);
    score_normalize("a song by the BEATLES.", 22, &n);
    CHECK_INT(question_leaks_into(&q, n.buf, n.len), 1);
    strvec_clear(&q.answers);
    strbuf_release(&n);
    haystack_release(&h);
    golden_set_release(&gs);
}

/* "A" is fine where the question compares it as it is; leaking hard negatives are dropped. */
static void test_empty_gold_and_leaking_negatives(void)
{
    struct golden_set gs;
    const struct question *q;
    CHECK_INT(golden_set_load(&gs, DIR "empty-gold-exact.jsonl"), 0);
    CHECK_INT(gs.nr, 3);
    q = golden_set_find(&gs, "neg");
    CHECK(q != NULL);
    if (q) {
        /* n1 states the answer in its text, n3 in its title; n2 is a fair distractor */
        CHECK_INT(q->distractors_nr, 1);
        CHECK_STR(q->distractors[0].id, "n2");
        CHECK_INT(q->dropped_negatives.nr, 2);
        CHECK_STR(q->dropped_negatives.v[0], "n1");
        CHECK_STR(q->dropped_negatives.v[1], "n3");
    }
    q = golden_set_find(&gs, "mc1");
    CHECK(q && q->dropped_negatives.nr == 0);
    golden_set_release(&gs);
}

static void test_long_paragraph_split(void)
{
    char path[] = "/tmp/dipmap-test-hay-XXXXXX.txt";
    int fd = mkstemps(path, 4), i;
    FILE *fp = fdopen(fd, "w");
    struct haystack h;
    for (i = 0; i < 700; i++)
        fprintf(fp, "word%d ", i);
    fputc('\n', fp);
    fclose(fp);
    CHECK_INT(haystack_load(&h, path), 0);
    CHECK_INT(h.nr, 3); /* 200 + 200 + 300 words */
    CHECK(h.nr == 3 && !strncmp(h.c[1].text, "word200 ", 8));
    CHECK(h.nr == 3 && !strcmp(h.c[2].text + h.c[2].text_len - 7, "word699"));
    haystack_release(&h);
    unlink(path);
}

static void test_round_trip(void)
{
    struct golden_set a, b;
    struct strbuf out = STRBUF_INIT, werr = STRBUF_INIT;
    struct dataset_writer *w;
    char path[] = "/tmp/dipmap-test-rt-XXXXXX.jsonl.gz";
    int fd = mkstemps(path, 9);
    size_t i;
    close(fd);
    CHECK_INT(golden_set_load(&a, DIR "valid.jsonl"), 0);
    for (i = 0; i < a.nr; i++)
        question_to_jsonl(&out, &a.q[i]);
    w = dataset_writer_open(path, &werr);
    CHECK(w != NULL);
    CHECK_INT(dataset_writer_write(w, out.buf, out.len), 0);
    CHECK_INT(dataset_writer_close(w), 0);
    CHECK_STR(werr.buf, "");
    strbuf_release(&werr);
    CHECK_INT(golden_set_load(&b, path), 0);
    CHECK_INT(b.nr, a.nr);
    for (i = 0; i < a.nr && i < b.nr; i++) {
        CHECK_STR(b.q[i].id, a.q[i].id);
        CHECK_STR(b.q[i].question, a.q[i].question);
        CHECK_STR(b.q[i].gold[0].text, a.q[i].gold[0].text);
        CHECK_INT(b.q[i].distractors_nr, a.q[i].distractors_nr);
        CHECK_INT(b.q[i].answers.nr, a.q[i].answers.nr);
    }
    CHECK_STR(b.q[0].distractors[0].value, "Lyon");
    CHECK_STR(b.q[0].scorer, "litm");
    golden_set_release(&a);
    golden_set_release(&b);
    strbuf_release(&out);
    unlink(path);
}

static void test_shipped_sets_load(void)
{
    const char *sets[] = {"datasets/nq-open.jsonl.gz", "datasets/needle.jsonl",
                          "datasets/kv.jsonl"};
    const char *hays[] = {"datasets/nq-haystack.jsonl.gz", "datasets/kv-haystack.jsonl.gz"};
    size_t i;
    for (i = 0; i < 3; i++) {
        struct golden_set gs;
        CHECK_INT(golden_set_load(&gs, sets[i]), 0);
        CHECK(gs.nr >= 30);
        golden_set_release(&gs);
    }
    for (i = 0; i < 2; i++) {
        struct haystack h;
        CHECK_INT(haystack_load(&h, hays[i]), 0);
        CHECK(h.nr >= 1000);
        haystack_release(&h);
    }
}

/* Retrieval sets: ranked chunks, gold flagged or found by the answer, source order, errors. */
static void test_retrieval_set(void)
{
    struct golden_set gs;
    struct strbuf rerr = STRBUF_INIT;
    const struct question *q;
    strbuf_reset(&captured);
    CHECK_INT(golden_set_load(&gs, DIR "retrieval.jsonl"), 0);
    CHECK_INT(gs.nr, 4);
    CHECK_INT(gs.retrieval_nr, 4);
    q = golden_set_find(&gs, "r1");
    CHECK(q != NULL);
    if (q) {
        CHECK_INT(q->retrieved_nr, 3);
        /* found by the answer as the scorer normalises it ("HOMER," states "Homer") */
        CHECK_INT(q->gold_rank, 2);
        CHECK_INT(q->gold_nr, 1);
        CHECK_STR(q->gold[0].id, "d1#10");
        CHECK_INT(q->distractors_nr, 2);
        CHECK_STR(q->retrieved[0].doc, "d2");
        CHECK_NEAR(q->retrieved[1].score, 0.8, 1e-12);
        /* source order by id, digits as numbers: d1#9, d1#10, d2#3 */
        CHECK_INT(q->retrieved[2].source, 0);
        CHECK_INT(q->retrieved[1].source, 1);
        CHECK_INT(q->retrieved[0].source, 2);
        CHECK_STR(q->retrieved[2].c.title, "");
    }
    /* no id: "line-N"; Greek capitals with tonos state the answer once normalised */
    q = golden_set_find(&gs, "line-2");
    CHECK(q && q->gold_rank == 1 && q->gold_nr == 1 && isnan(q->retrieved[0].score));
    CHECK(q && !strcmp(q->retrieved[1].c.id, "line-2/r/1"));
    /* a flag wins over the answer: "a" states it but only "b" is gold (and "a" is no fair
       hard negative for a depth run) */
    q = golden_set_find(&gs, "r3");
    CHECK(q && q->gold_rank == 2 && q->gold_nr == 1 && !q->retrieved[0].gold);
    CHECK(q && q->distractors_nr == 0 && q->dropped_negatives.nr == 1);
    /* the retriever missed it: allowed, but not for the depth experiment */
    q = golden_set_find(&gs, "r4");
    CHECK(q && q->gold_rank == 0 && q->gold_nr == 0 && q->distractors_nr == 1);
    /* the module reports through err and prints nothing: the command prints it */
    strbuf_reset(&captured);
    usage_set_hook(capture);
    CHECK_INT(golden_set_require_gold(&gs, &rerr), -1);
    usage_set_hook(NULL);
    CHECK_INT(captured.len, 0);
    CHECK(strstr(rerr.buf, DIR "retrieval.jsonl:4: no gold chunk among \"retrieved\"") == rerr.buf);
    strbuf_release(&rerr);
    golden_set_release(&gs);
    CHECK_INT(golden_set_load(&gs, DIR "valid.jsonl"), 0);
    CHECK_INT(gs.retrieval_nr, 0);
    CHECK_INT(golden_set_require_gold(&gs, &rerr), 0);
    CHECK_INT(rerr.len, 0);
    golden_set_release(&gs);

    expect_error(0, DIR "retrieval-empty.jsonl",
                 DIR "retrieval-empty.jsonl:1: \"retrieved\" must be a non-empty array of chunks, "
                     "best first");
    expect_error(0, DIR "retrieval-score-order.jsonl",
                 DIR "retrieval-score-order.jsonl:1: \"retrieved\"[1].\"score\" 0.7 is above "
                     "\"retrieved\"[0]'s 0.5: list the chunks best first");
    expect_error(0, DIR "retrieval-score-type.jsonl",
                 DIR "retrieval-score-type.jsonl:1: \"retrieved\"[0].\"score\" must be a number");
    expect_error(0, DIR "retrieval-gold-type.jsonl",
                 DIR "retrieval-gold-type.jsonl:1: \"retrieved\"[0].\"gold\" must be true or "
                     "false");
    expect_error(0, DIR "retrieval-doc-type.jsonl",
                 DIR "retrieval-doc-type.jsonl:1: \"retrieved\"[0].\"doc\" must be a string");
    expect_error(0, DIR "retrieval-no-text.jsonl",
                 DIR "retrieval-no-text.jsonl:1: \"retrieved\"[0].\"text\" must be a non-empty "
                     "string");
    expect_error(0, DIR "retrieval-dup-id.jsonl",
                 DIR "retrieval-dup-id.jsonl:1: \"retrieved\"[1].\"id\": \"c1\" is also "
                     "\"retrieved\"[0]'s id");
    expect_error(0, DIR "retrieval-with-gold.jsonl",
                 DIR "retrieval-with-gold.jsonl:1: a retrieval item (\"retrieved\") has no "
                     "\"gold\" or \"distractors\": flag its gold chunks in \"retrieved\" with "
                     "\"gold\": true");
}

int main(void)
{
    RUN(test_valid_set);
    RUN(test_gzip);
    RUN(test_truncated_gzip);
    RUN(test_bad_inputs);
    RUN(test_line_too_long);
    RUN(test_empty_set);
    RUN(test_normalize);
    RUN(test_hygiene);
    RUN(test_empty_gold_and_leaking_negatives);
    RUN(test_leak_non_latin);
    RUN(test_long_paragraph_split);
    RUN(test_round_trip);
    RUN(test_shipped_sets_load);
    RUN(test_retrieval_set);
    strbuf_release(&captured);
    return TEST_EXIT();
}

/* Unit tests for score.c: the LitM QA and KV vectors (tests/data/litm/), the normaliser and
 * dipmap's scorers.
 */
#include <cJSON.h>
#include <stdio.h>

#include "prompt/dataset.h"
#include "client/reasoning.h"
#include "run/score.h"
#include "base/strbuf.h"
#include "base/unicode.h"
#include "base/xalloc.h"

#include "test.h"

static char *norm(const char *s)
{
    struct strbuf sb = STRBUF_INIT;
    score_normalize(s, strlen(s), &sb);
    return strbuf_detach(&sb, NULL);
}

/* tests/data/litm/REL (gzip), read line by line; NULL after dataset_lines_open's message */
static struct dataset_lines *open_vectors(const char *rel)
{
    struct strbuf path = STRBUF_INIT;
    struct dataset_lines *r;
    strbuf_addf(&path, "%s/litm/%s", test_data_dir(), rel);
    r = dataset_lines_open(path.buf);
    strbuf_release(&path);
    return r;
}

static void test_qa_vectors(void)
{
    struct dataset_lines *fp = open_vectors("qa_scoring_vectors.jsonl.gz");
    char *line;
    size_t len;
    long lineno;
    int n = 0, bad = 0;
    CHECK(fp != NULL);
    if (!fp)
        return;
    while (dataset_lines_next(fp, &line, &len, &lineno) == 1) {
        cJSON *o = cJSON_Parse(line), *a, *na;
        const char **answers;
        int i, na_n, sc, raw;
        if (!o) {
            CHECK(o != NULL);
            continue;
        }
        a = cJSON_GetObjectItem(o, "answers");
        na_n = cJSON_GetArraySize(a);
        answers = xcalloc((size_t)na_n + 1, sizeof(*answers));
        for (i = 0; i < na_n; i++)
            answers[i] = cJSON_GetArrayItem(a, i)->valuestring;
        {
            const char *ma = cJSON_GetObjectItem(o, "model_answer")->valuestring;
            const char *id = cJSON_GetObjectItem(o, "id")->valuestring;
            double want = cJSON_GetObjectItem(o, "score")->valuedouble;
            double want_raw = cJSON_GetObjectItem(o, "best_subspan_em_on_raw")->valuedouble;
            double got;
            sc = score_litm(ma, answers, (size_t)na_n);
            raw = score_litm_raw(ma, answers, (size_t)na_n);
            if (sc != (int)want || raw != (int)want_raw) {
                fprintf(stderr, "  %s: score %d (want %g), raw %d (want %g)\n", id, sc, want, raw,
                        want_raw);
                bad++;
            }
            CHECK(score_answer(SCORER_LITM, ma, answers, (size_t)na_n, NULL, &got, NULL) == 0);
            CHECK(got == want);
            /* normalised forms of the gold answers */
            na = cJSON_GetObjectItem(o, "normalized_answers");
            for (i = 0; i < na_n; i++) {
                char *g = norm(answers[i]);
                if (strcmp(g, cJSON_GetArrayItem(na, i)->valuestring)) {
                    fprintf(stderr, "  %s: normalized answer \"%s\", want \"%s\"\n", id, g,
                            cJSON_GetArrayItem(na, i)->valuestring);
                    bad++;
                }
                free(g);
            }
            {
                const char *fl = cJSON_GetObjectItem(o, "first_line")->valuestring;
                const char *nfl = cJSON_GetObjectItem(o, "normalized_first_line")->valuestring;
                char *g = norm(fl);
                if (strcmp(g, nfl)) {
                    fprintf(stderr, "  %s: normalized first line \"%s\", want \"%s\"\n", id, g,
                            nfl);
                    bad++;
                }
                free(g);
            }
        }
        free(answers);
        cJSON_Delete(o);
        n++;
    }
    dataset_lines_close(fp);
    CHECK_INT(n, 629);
    CHECK_INT(bad, 0);
}

static void test_kv_vectors(void)
{
    struct dataset_lines *fp = open_vectors("kv_scoring_vectors.jsonl.gz");
    char *line;
    size_t len;
    long lineno;
    int n = 0, bad = 0;
    CHECK(fp != NULL);
    if (!fp)
        return;
    while (dataset_lines_next(fp, &line, &len, &lineno) == 1) {
        cJSON *o = cJSON_Parse(line);
        const char *ma, *val;
        double want, got = -1;
        if (!o) {
            CHECK(o != NULL);
            continue;
        }
        ma = cJSON_GetObjectItem(o, "model_answer")->valuestring;
        val = cJSON_GetObjectItem(o, "value")->valuestring;
        want = cJSON_GetObjectItem(o, "accuracy")->valuedouble;
        CHECK(score_answer(SCORER_KV, ma, &val, 1, NULL, &got, NULL) == 0);
        if (got != want) {
            fprintf(stderr, "  %s: kv %g, want %g\n", cJSON_GetObjectItem(o, "id")->valuestring,
                    got, want);
            bad++;
        }
        cJSON_Delete(o);
        n++;
    }
    dataset_lines_close(fp);
    CHECK_INT(n, 121);
    CHECK_INT(bad, 0);
}

static void check_norm(const char *in, const char *want)
{
    char *g = norm(in);
    CHECK_STR(g, want);
    free(g);
}

static void test_normalize(void)
{
    check_norm("The  Beatles!", "beatles");
    check_norm("\xc3\x89the cat", "\xc3\xa9the cat");   /* Éthe: word boundary keeps it */
    check_norm("e\xcc\x81the cat", "e\xcc\x81the cat"); /* combining mark is a word char */
    check_norm("\xe2\x80\x94the\xe2\x80\x94", "\xe2\x80\x94 \xe2\x80\x94");
    check_norm("a\xe3\x80\x80"
               "b",
               "b"); /* U+3000 is whitespace, a dropped */
    check_norm("\xce\x9f\xce\x94\xce\x9f\xce\xa3",
               "\xce\xbf\xce\xb4\xce\xbf\xcf\x82"); /* final sigma */
    check_norm("\xce\xa3", "\xcf\x83");
    check_norm("bad \xff byte", "bad \xff byte"); /* invalid UTF-8 kept */
    check_norm("", "");
    check_norm("   ", "");
}

static void test_lower(void)
{
    struct strbuf sb = STRBUF_INIT;
    unicode_lower("\xc4\xb0stanbul", 9, &sb); /* U+0130 -> i + U+0307 */
    CHECK_STR(sb.buf, "i\xcc\x87stanbul");
    strbuf_reset(&sb);
    unicode_lower("\xe1\xba\x9e", 3, &sb); /* U+1E9E capital sharp s -> U+00DF */
    CHECK_STR(sb.buf, "\xc3\x9f");
    strbuf_release(&sb);
}

static double sc(enum scorer_kind k, const char *ans, const char *g1, const char *g2,
                 const char *re)
{
    const char *golds[2] = {g1, g2};
    double s = -1;
    struct strbuf err = STRBUF_INIT;
    if (score_answer(k, ans, golds, g2 ? 2 : (g1 ? 1 : 0), re, &s, &err))
        s = -1;
    strbuf_release(&err);
    return s;
}

static void test_scorers(void)
{
    enum scorer_kind k;
    CHECK(scorer_parse("contains", &k) == 0 && k == SCORER_CONTAINS);
    CHECK(scorer_parse("all", &k) == 0 && k == SCORER_ALL);
    CHECK(scorer_parse("nope", &k) == -1);
    CHECK_STR(scorer_name(SCORER_REGEX), "regex");

    /* contains: whole output, unlike litm's first line */
    CHECK(sc(SCORER_CONTAINS, "Let me think.\nThe answer is Paris.", "Paris", NULL, NULL) == 1.0);
    CHECK(sc(SCORER_LITM, "Let me think.\nThe answer is Paris.", "Paris", NULL, NULL) == 0.0);
    CHECK(sc(SCORER_CONTAINS, "London", "Paris", "Lyon", NULL) == 0.0);
    /* a gold normalising to "" never matches for contains/all (no raw fallback) */
    CHECK(sc(SCORER_CONTAINS, "I do not know", "*", NULL, NULL) == 0.0);
    CHECK(sc(SCORER_CONTAINS, "it is 3 * 4", "*", NULL, NULL) == 0.0);
    CHECK(sc(SCORER_CONTAINS, "B. Although Rome is older, Paris.", "A", NULL, NULL) == 0.0);
    CHECK(sc(SCORER_CONTAINS, "B. Although", "A", "Paris", NULL) == 0.0);
    CHECK(sc(SCORER_ALL, "B. Although", "A", NULL, NULL) == 0.0);
    CHECK(sc(SCORER_LITM, "I do not know", "*", NULL, NULL) == 1.0);
    CHECK(score_gold_is_empty("A") && score_gold_is_empty("the") && score_gold_is_empty(" * "));
    CHECK(!score_gold_is_empty("B") && !score_gold_is_empty("an apple"));
    /* exact compares such a gold with articles kept, then as trimmed lower-case */
    CHECK(sc(SCORER_EXACT, "A.", "A", NULL, NULL) == 1.0);
    CHECK(sc(SCORER_EXACT, " a ", "A", NULL, NULL) == 1.0);
    CHECK(sc(SCORER_EXACT, "B. Although", "A", NULL, NULL) == 0.0);
    CHECK(sc(SCORER_EXACT, "The", "A", NULL, NULL) == 0.0);
    CHECK(sc(SCORER_EXACT, "*", "*", NULL, NULL) == 1.0);
    CHECK(sc(SCORER_EXACT, "x", "*", NULL, NULL) == 0.0);
    /* exact */
    CHECK(sc(SCORER_EXACT, "The Paris.", "paris", NULL, NULL) == 1.0);
    CHECK(sc(SCORER_EXACT, "Paris, France", "paris", NULL, NULL) == 0.0);
    /* all */
    CHECK(sc(SCORER_ALL, "red and blue", "Blue", "red", NULL) == 1.0);
    CHECK(sc(SCORER_ALL, "red only", "Blue", "red", NULL) == 0.0);
    CHECK(sc(SCORER_ALL, "anything", NULL, NULL, NULL) == 0.0);
    /* regex */
    CHECK(sc(SCORER_REGEX, "The year was 1901.", NULL, NULL, "\\b19\\d\\d\\b") == 1.0);
    CHECK(sc(SCORER_REGEX, "The year was 2001.", NULL, NULL, "\\b19\\d\\d\\b") == 0.0);
    CHECK(sc(SCORER_REGEX, "x", NULL, NULL, NULL) == -1);
    CHECK(sc(SCORER_REGEX, "x", NULL, NULL, "(unclosed") == -1);
    /* kv: raw, case-insensitive */
    CHECK(sc(SCORER_KV, "Value: ABC-def", "abc-DEF", NULL, NULL) == 1.0);
    CHECK(sc(SCORER_KV, "abc def", "abc-def", NULL, NULL) == 0.0);
    /* NULL answer behaves as empty */
    CHECK(sc(SCORER_CONTAINS, NULL, "x", NULL, NULL) == 0.0);
}

/* The question's scorer wins, then its answer_regex (without --scorer regex), then the run's. */
static void test_resolve(void)
{
    enum scorer_kind k = SCORER__COUNT;
    CHECK(score_resolve(SCORER_CONTAINS, NULL, NULL, &k) == 0 && k == SCORER_CONTAINS);
    CHECK(score_resolve(SCORER_CONTAINS, NULL, "^x$", &k) == 0 && k == SCORER_REGEX);
    CHECK(score_resolve(SCORER_KV, NULL, "^x$", &k) == 0 && k == SCORER_REGEX);
    CHECK(score_resolve(SCORER_CONTAINS, "exact", "^x$", &k) == 0 && k == SCORER_EXACT);
    CHECK(score_resolve(SCORER_CONTAINS, "bogus", NULL, &k) == -1);
}

/*
 * A thought that mentions the gold answer is not a correct answer: only the answer is scored
 * (the split itself: test_reasoning.c).
 */
static void test_reasoning_not_scored(void)
{
    const char *gold = "4887095";
    struct strbuf ans = STRBUF_INIT, thought = STRBUF_INIT;
    double s = -1;
    CHECK_INT(reasoning_split("<think>The key maps to 4887095? No, that is the other one."
                              "</think>6817932",
                              NULL, NULL, &ans, &thought),
              1);
    CHECK_STR(ans.buf, "6817932");
    CHECK(strstr(thought.buf, "4887095") != NULL);
    CHECK(score_answer(SCORER_CONTAINS, ans.buf, &gold, 1, NULL, &s, NULL) == 0 && s == 0.0);
    CHECK(score_answer(SCORER_LITM, ans.buf, &gold, 1, NULL, &s, NULL) == 0 && s == 0.0);
    strbuf_release(&ans);
    strbuf_release(&thought);
}

static void test_regex_check(void)
{
    struct strbuf err = STRBUF_INIT;
    CHECK(score_regex_check("^a+$", &err) == 0);
    CHECK(score_regex_check("a(b", &err) == -1);
    CHECK(strstr(err.buf, "offset 3") != NULL);
    CHECK(strstr(err.buf, "invalid answer_regex") != NULL);
    strbuf_release(&err);
    score_cache_clear();
}

int main(void)
{
    RUN(test_qa_vectors);
    RUN(test_kv_vectors);
    RUN(test_normalize);
    RUN(test_lower);
    RUN(test_scorers);
    RUN(test_resolve);
    RUN(test_reasoning_not_scored);
    RUN(test_regex_check);
    score_cache_clear();
    return TEST_EXIT();
}

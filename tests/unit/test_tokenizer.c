/*
 * Unit tests for the tokenizer (tokenizer*.c): every shared reference vector (ids identical to
 * tiktoken / HF tokenizers), whole-corpus counts, round trips, special-token
 * policy, invalid UTF-8, long pathological pieces, NFC, BOS, remote cache.
 */
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include <cJSON.h>

#include "base/strbuf.h"
#include "base/unicode.h"
#include "test.h"
#include "tokenizer/tokenizer.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif

static struct tokenizer *tk_cl, *tk_o2, *tk_gpt2, *tk_qwen;

/* Test data: tests/data/tokenizer/ (see tests/data/tokenizer/SOURCE.md); the rank files are the
   product's own. */
#define TOKDATA "tests/data/tokenizer"

static struct tokenizer *load_shared(const char *rel)
{
    struct strbuf path = STRBUF_INIT, err = STRBUF_INIT;
    struct tokenizer *tk;
    strbuf_addstr(&path, rel);
    tk = tokenizer_load(path.buf, &err);
    if (!tk)
        fprintf(stderr, "  cannot load %s: %s\n", path.buf, err.buf);
    strbuf_release(&path);
    strbuf_release(&err);
    return tk;
}

static struct tokenizer *by_name(const char *name, int *allow_special)
{
    *allow_special = 0;
    if (!strcmp(name, "cl100k_base"))
        return tk_cl;
    if (!strcmp(name, "o200k_base"))
        return tk_o2;
    *allow_special = 1; /* HF always matches added tokens (the reference's policy) */
    if (!strcmp(name, "hf:gpt2"))
        return tk_gpt2;
    if (!strcmp(name, "hf:qwen3"))
        return tk_qwen;
    return NULL;
}

static void test_load(void)
{
    CHECK(tk_cl != NULL);
    CHECK(tk_o2 != NULL);
    CHECK(tk_gpt2 != NULL);
    CHECK(tk_qwen != NULL);
    if (!tk_cl || !tk_o2 || !tk_gpt2 || !tk_qwen)
        exit(1);
    CHECK_STR(tokenizer_name(tk_cl), "cl100k_base");
    CHECK_STR(tokenizer_name(tk_o2), "o200k_base");
    CHECK_STR(tokenizer_name(tk_gpt2), "hf:gpt2/tokenizer.json");
    CHECK_STR(tokenizer_name(tk_qwen), "hf:qwen3/tokenizer.json");
    CHECK_STR(tokenizer_hash(tk_cl),
              "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7");
    CHECK_STR(tokenizer_hash(tk_o2),
              "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d");
    CHECK_INT(tokenizer_vocab_size(tk_cl), 100277);
    CHECK_INT(tokenizer_vocab_size(tk_o2), 200019);
    CHECK_INT(tokenizer_vocab_size(tk_gpt2), 50257);
    CHECK_INT(tokenizer_vocab_size(tk_qwen), 151669);
    CHECK_INT(tokenizer_special_id(tk_cl, "<|endoftext|>"), 100257);
    CHECK_INT(tokenizer_special_id(tk_qwen, "<think>"), 151667);
    CHECK_INT(tokenizer_special_id(tk_cl, "<|nope|>"), -1);
}

static void test_vectors(void)
{
    struct strbuf path = STRBUF_INIT, line = STRBUF_INIT, dec = STRBUF_INIT;
    struct strbuf all = STRBUF_INIT;
    size_t pos = 0;
    int total = 0, bad = 0, per[4] = {0, 0, 0, 0};
    strbuf_addstr(&path, TOKDATA "/vectors.jsonl.gz");
    CHECK(strbuf_read_file_gz(&all, path.buf) == 0);
    while (pos < all.len) {
        const char *nl = memchr(all.buf + pos, '\n', all.len - pos);
        size_t ll = nl ? (size_t)(nl - (all.buf + pos)) : all.len - pos;
        strbuf_reset(&line);
        strbuf_add(&line, all.buf + pos, ll);
        pos += ll + 1;
        cJSON *j = cJSON_ParseWithLength(line.buf, line.len);
        const cJSON *text = cJSON_GetObjectItemCaseSensitive(j, "text");
        const cJSON *want = cJSON_GetObjectItemCaseSensitive(j, "ids");
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "tokenizer"));
        const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "id"));
        int allow, ok = 1, k = 0;
        struct tokenizer *tk = name ? by_name(name, &allow) : NULL;
        uint32_t *ids = NULL;
        size_t n = 0, i;
        const cJSON *it;
        size_t tlen;
        CHECK(tk && cJSON_IsString(text) && cJSON_IsArray(want));
        if (!tk || !cJSON_IsString(text) || !cJSON_IsArray(want)) {
            cJSON_Delete(j);
            bad++;
            continue;
        }
        /* cJSON strings are NUL-terminated: recover embedded U+0000 via the escape count */
        tlen = strlen(text->valuestring);
        if (strstr(line.buf, "\\u0000")) {
            /* re-decode: cJSON stops at NUL, so rebuild the text by splitting on \u0000 */
            struct strbuf t = STRBUF_INIT;
            const char *p = strstr(line.buf, "\"text\":\"") + 8;
            const char *e = strstr(p, "\",\"ids\":");
            struct strbuf part = STRBUF_INIT;
            while (p < e) {
                const char *z = strstr(p, "\\u0000");
                const char *stop = z && z < e ? z : e;
                cJSON *s;
                strbuf_reset(&part);
                strbuf_addch(&part, '"');
                strbuf_add(&part, p, (size_t)(stop - p));
                strbuf_addch(&part, '"');
                s = cJSON_Parse(part.buf);
                if (s && s->valuestring)
                    strbuf_addstr(&t, s->valuestring);
                cJSON_Delete(s);
                if (stop == e)
                    break;
                strbuf_addch(&t, '\0');
                p = stop + 6;
            }
            strbuf_release(&part);
            tokenizer_encode(tk, t.buf, t.len, allow, &ids, &n);
            strbuf_reset(&dec);
            CHECK(tokenizer_decode(tk, ids, n, &dec) == 0);
            if (strcmp(name, "hf:qwen3") || !strstr(id, "nfd"))
                CHECK(dec.len == t.len && !memcmp(dec.buf, t.buf, t.len));
            strbuf_release(&t);
        } else {
            tokenizer_encode(tk, text->valuestring, tlen, allow, &ids, &n);
            strbuf_reset(&dec);
            CHECK(tokenizer_decode(tk, ids, n, &dec) == 0);
            /* decode gives the input back (for qwen3 its NFC form) */
            if (strcmp(name, "hf:qwen3") || (!strstr(id, "nfd") && !strstr(id, "788604")))
                if (dec.len != tlen || memcmp(dec.buf, text->valuestring, tlen)) {
                    fprintf(stderr, "  %s: decode differs from the text\n", id);
                    test_failed_ = 1;
                }
            if (!allow)
                CHECK_INT(tokenizer_count(tk, text->valuestring, tlen), n);
        }
        if ((size_t)cJSON_GetArraySize(want) != n)
            ok = 0;
        i = 0;
        cJSON_ArrayForEach(it, want)
        {
            if (i >= n || (double)ids[i] != it->valuedouble)
                ok = 0;
            i++;
        }
        if (!ok) {
            bad++;
            fprintf(stderr, "  vector %s: ids differ (got %zu ids:", id, n);
            for (i = 0; i < n && i < 20; i++)
                fprintf(stderr, " %u", ids[i]);
            fprintf(stderr, ")\n");
        }
        k = tk == tk_cl ? 0 : tk == tk_o2 ? 1 : tk == tk_gpt2 ? 2 : 3;
        per[k]++;
        total++;
        free(ids);
        cJSON_Delete(j);
    }
    strbuf_release(&all);
    CHECK_INT(total, 1080);
    CHECK_INT(per[0], 270);
    CHECK_INT(per[1], 270);
    CHECK_INT(per[2], 270);
    CHECK_INT(per[3], 270);
    CHECK_INT(bad, 0);
    strbuf_release(&path);
    strbuf_release(&line);
    strbuf_release(&dec);
}

/* Whole-file counts equal counts.json for all four tokenizers. Under ASan the
 * 10 MB en.txt is left out (the normal suite checks it) to keep the test fast. */
static void test_counts(void)
{
    static const char *files[] = {"en", "nonen", "code"};
    static const char *names[] = {"cl100k_base", "o200k_base", "hf:gpt2", "hf:qwen3"};
    struct strbuf path = STRBUF_INIT, json = STRBUF_INIT, text = STRBUF_INIT;
    cJSON *root;
    size_t f, t;
    strbuf_addstr(&path, TOKDATA "/counts.json");
    CHECK(strbuf_read_file(&json, path.buf) == 0);
    root = cJSON_Parse(json.buf);
    CHECK(root != NULL);
    for (f = 0; f < 3; f++) {
#ifdef UNDER_SANITIZER
        if (f == 0)
            continue;
#endif
        strbuf_reset(&path);
        strbuf_reset(&text);
        strbuf_addf(&path, TOKDATA "/corpus/%s.txt.gz", files[f]);
        CHECK(strbuf_read_file_gz(&text, path.buf) == 0);
        for (t = 0; t < 4; t++) {
            int allow;
            struct tokenizer *tk = by_name(names[t], &allow);
            struct strbuf key = STRBUF_INIT;
            const cJSON *want;
            long got;
            strbuf_addf(&key, "corpus/%s.txt", files[f]);
            want = cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "counts"),
                                                 names[t]),
                key.buf);
            CHECK(cJSON_IsNumber(want));
            got = tokenizer_count(tk, text.buf, text.len);
            if (!want || got != (long)want->valuedouble) {
                fprintf(stderr, "  %s %s: %ld, expected %.0f\n", names[t], key.buf, got,
                        want ? want->valuedouble : -1.0);
                test_failed_ = 1;
            }
            strbuf_release(&key);
        }
    }
    cJSON_Delete(root);
    strbuf_release(&path);
    strbuf_release(&json);
    strbuf_release(&text);
}

static void expect_ids(struct tokenizer *tk, const char *text, size_t len, int allow,
                       const uint32_t *want, size_t nwant)
{
    uint32_t *ids;
    size_t n, i;
    tokenizer_encode(tk, text, len, allow, &ids, &n);
    CHECK_INT(n, nwant);
    for (i = 0; i < n && i < nwant; i++)
        CHECK_INT(ids[i], want[i]);
    free(ids);
}

static void test_specials(void)
{
    static const char t[] = "Hello <|endoftext|> world";
    const uint32_t gpt2_allow[] = {15496, 220, 50256, 995};
    const uint32_t cl_allow[] = {9906, 220, 100257, 1917};
    uint32_t *ids;
    size_t n, i;
    int found = 0;
    expect_ids(tk_gpt2, t, strlen(t), 1, gpt2_allow, 4);
    expect_ids(tk_cl, t, strlen(t), 1, cl_allow, 4);
    /* default: special text is ordinary text */
    tokenizer_encode(tk_cl, t, strlen(t), 0, &ids, &n);
    for (i = 0; i < n; i++)
        if (ids[i] >= 100256)
            found = 1;
    CHECK(!found);
    CHECK(n > 4);
    free(ids);
    /* plain for a tokenizer.json is HF's encode_special_tokens: "special" tokens are text,
     * the other added tokens (Qwen3's <think>) are still matched */
    tokenizer_encode(tk_qwen, "<|im_start|>x<think>", 20, 0, &ids, &n);
    CHECK(n >= 3);
    for (i = 0; i + 1 < n; i++)
        CHECK(ids[i] < 151643);
    CHECK_INT(ids[n - 1], 151667);
    free(ids);
    /* the default for a tokenizer.json is parse, for a .tiktoken file plain */
    CHECK_INT(tokenizer_special_parse(tk_qwen), 1);
    CHECK_INT(tokenizer_special_parse(tk_cl), 0);
    CHECK_INT(tokenizer_count(tk_qwen, "<|im_start|>user", 16), 2);
    tokenizer_set_special(tk_qwen, 0);
    CHECK(tokenizer_count(tk_qwen, "<|im_start|>user", 16) > 2);
    tokenizer_set_special(tk_qwen, 1);
    CHECK_INT(tokenizer_count(tk_gpt2, t, strlen(t)), n > 0 ? tokenizer_count(tk_gpt2, t, 25) : 0);
}

static void test_roundtrip_invalid_utf8(void)
{
    static const char bad[] =
        "hello \xff\xfe world \xe2\x82 x\xc0\xaf\xed\xa0\x80 \xf4\x90\x80\x80z"
        "\x80";
    struct tokenizer *all[4];
    size_t k;
    all[0] = tk_cl;
    all[1] = tk_o2;
    all[2] = tk_gpt2;
    all[3] = tk_qwen;
    for (k = 0; k < 4; k++) {
        uint32_t *ids;
        size_t n;
        struct strbuf dec = STRBUF_INIT;
        CHECK(tokenizer_encode(all[k], bad, sizeof(bad) - 1, 0, &ids, &n) == 0);
        CHECK(tokenizer_decode(all[k], ids, n, &dec) == 0);
        CHECK(dec.len == sizeof(bad) - 1 && !memcmp(dec.buf, bad, dec.len));
        CHECK_INT(tokenizer_count(all[k], bad, sizeof(bad) - 1), n);
        free(ids);
        strbuf_release(&dec);
    }
    {
        /* every single byte value, and all byte pairs as one buffer */
        char buf[256 * 2];
        int i;
        uint32_t *ids;
        size_t n;
        struct strbuf dec = STRBUF_INIT;
        for (i = 0; i < 256; i++) {
            buf[2 * i] = (char)i;
            buf[2 * i + 1] = (char)(255 - i);
        }
        for (k = 0; k < 4; k++) {
            strbuf_reset(&dec);
            tokenizer_encode(all[k], buf, sizeof(buf), 0, &ids, &n);
            CHECK(tokenizer_decode(all[k], ids, n, &dec) == 0);
            CHECK(dec.len == sizeof(buf) && !memcmp(dec.buf, buf, sizeof(buf)));
            free(ids);
        }
        strbuf_release(&dec);
    }
}

/*
 * The SentencePiece-style (llama2: Prepend + Replace normalizers, byte_fallback),
 * NFKC (claude) and Sequence-of-Splits (deepseek_v3, normalized added tokens)
 * files against Hugging Face tokenizers' ids (hf-vectors.jsonl.gz, made by
 * bench/tokenizer/hf_reference.js): edge cases, added/special tokens in text,
 * corpus slices; ids with --special parse and plain_ids with plain.
 */
static void test_hf_families(void)
{
    static const char *const names[] = {"llama2", "claude", "deepseek_v3"};
    struct tokenizer *tks[3];
    struct strbuf all = STRBUF_INIT, line = STRBUF_INIT, err = STRBUF_INIT;
    size_t pos = 0, k;
    int total = 0, bad = 0, per[3] = {0, 0, 0};
    for (k = 0; k < 3; k++) {
        struct strbuf p = STRBUF_INIT;
        strbuf_addf(&p, TOKDATA "/%s/tokenizer.json.gz", names[k]);
        strbuf_reset(&err);
        tks[k] = tokenizer_load(p.buf, &err);
        if (!tks[k])
            fprintf(stderr, "  %s\n", err.buf);
        CHECK(tks[k] != NULL);
        strbuf_release(&p);
        if (!tks[k])
            return;
    }
    CHECK_INT(tokenizer_special_id(tks[0], "<s>"), 1);
    CHECK(strbuf_read_file_gz(&all, TOKDATA "/hf-vectors.jsonl.gz") == 0);
    while (pos < all.len) {
        const char *nl = memchr(all.buf + pos, '\n', all.len - pos);
        size_t ll = nl ? (size_t)(nl - (all.buf + pos)) : all.len - pos, i, mode;
        cJSON *j;
        const char *name, *id;
        const cJSON *text;
        strbuf_reset(&line);
        strbuf_add(&line, all.buf + pos, ll);
        pos += ll + 1;
        j = cJSON_ParseWithLength(line.buf, line.len);
        name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "tokenizer"));
        id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "id"));
        text = cJSON_GetObjectItemCaseSensitive(j, "text");
        for (k = 0; k < 3 && name; k++)
            if (!strcmp(name, names[k]))
                break;
        CHECK(k < 3 && cJSON_IsString(text));
        if (k >= 3 || !cJSON_IsString(text) || strstr(line.buf, "\\u0000")) {
            cJSON_Delete(j); /* U+0000 texts: cJSON strings end there (covered by test_vectors) */
            continue;
        }
        for (mode = 0; mode < 2; mode++) {
            const cJSON *want = cJSON_GetObjectItemCaseSensitive(j, mode ? "plain_ids" : "ids"),
                        *it;
            uint32_t *ids;
            size_t n;
            int ok = 1;
            tokenizer_encode(tks[k], text->valuestring, strlen(text->valuestring), !mode, &ids, &n);
            if ((size_t)cJSON_GetArraySize(want) != n)
                ok = 0;
            i = 0;
            cJSON_ArrayForEach(it, want)
            {
                if (i >= n || (double)ids[i] != it->valuedouble)
                    ok = 0;
                i++;
            }
            if (!ok) {
                bad++;
                fprintf(stderr, "  %s (%s): ids differ (got %zu:", id, mode ? "plain" : "parse", n);
                for (i = 0; i < n && i < 16; i++)
                    fprintf(stderr, " %u", ids[i]);
                fprintf(stderr, ", want %d)\n", cJSON_GetArraySize(want));
            }
            if (!mode) {
                long c = tokenizer_count(tks[k], text->valuestring, strlen(text->valuestring));
                CHECK_INT(c, (long)n); /* the default for tokenizer.json is parse */
            }
            free(ids);
        }
        per[k]++;
        total++;
        cJSON_Delete(j);
    }
    CHECK(per[0] > 150 && per[1] > 150 && per[2] > 150);
    CHECK_INT(bad, 0);
    {
        /* SentencePiece decode: "\xe2\x96\x81" is a space, <0xNN> a byte, the prepended space is
         * dropped */
        static const char s[] = "Hello world \xf0\x9f\xa6\x99!";
        struct strbuf dec = STRBUF_INIT;
        uint32_t *ids;
        size_t n;
        tokenizer_encode(tks[0], s, sizeof(s) - 1, 1, &ids, &n);
        CHECK(tokenizer_decode(tks[0], ids, n, &dec) == 0);
        CHECK_STR(dec.buf, s);
        free(ids);
        strbuf_release(&dec);
    }
    for (k = 0; k < 3; k++)
        tokenizer_free(tks[k]);
    strbuf_release(&all);
    strbuf_release(&line);
    strbuf_release(&err);
}

/*
 * One small tokenizer.json per pipeline piece (tests/data/tokenizer/mech/, made by
 * bench/tokenizer/mechanisms.py): the normalizers Lowercase, Strip, NFD, NFKD; the
 * pre-tokenizers Digits, Punctuation, Whitespace, WhitespaceSplit, Split with a string pattern
 * in every behavior and an inverted regex, ByteLevel with add_prefix_space, Metaspace in each
 * prepend_scheme; BPE ignore_merges, continuing_subword_prefix, end_of_word_suffix; added
 * tokens with lstrip, rstrip, single_word, normalized and special, numbered as HF numbers
 * them. Every text's ids (parsed and plain) must be Hugging Face tokenizers' (mech-vectors).
 */
static void test_hf_mechanisms(void)
{
    struct strbuf all = STRBUF_INIT, line = STRBUF_INIT, err = STRBUF_INIT, cur = STRBUF_INIT;
    struct tokenizer *tk = NULL;
    size_t pos = 0;
    int total = 0, bad = 0, files = 0;
    CHECK(strbuf_read_file_gz(&all, TOKDATA "/mech-vectors.jsonl.gz") == 0);
    while (pos < all.len) {
        const char *nl = memchr(all.buf + pos, '\n', all.len - pos);
        size_t ll = nl ? (size_t)(nl - (all.buf + pos)) : all.len - pos, i, mode;
        cJSON *j;
        const char *name, *text;
        strbuf_reset(&line);
        strbuf_add(&line, all.buf + pos, ll);
        pos += ll + 1;
        j = cJSON_ParseWithLength(line.buf, line.len);
        name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "tokenizer"));
        text = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "text"));
        CHECK(name && text);
        if (!name || !text) {
            cJSON_Delete(j);
            continue;
        }
        if (strcmp(cur.buf, name)) {
            struct strbuf p = STRBUF_INIT;
            tokenizer_free(tk);
            strbuf_reset(&cur);
            strbuf_addstr(&cur, name);
            strbuf_addf(&p, TOKDATA "/mech/%s.json.gz", name);
            strbuf_reset(&err);
            tk = tokenizer_load(p.buf, &err);
            if (!tk)
                fprintf(stderr, "  %s\n", err.buf);
            CHECK(tk != NULL);
            strbuf_release(&p);
            files++;
        }
        for (mode = 0; tk && mode < 2; mode++) {
            const cJSON *want = cJSON_GetObjectItemCaseSensitive(j, mode ? "plain_ids" : "ids"),
                        *it;
            uint32_t *ids;
            size_t n;
            int ok;
            tokenizer_encode(tk, text, strlen(text), !mode, &ids, &n);
            ok = (size_t)cJSON_GetArraySize(want) == n;
            i = 0;
            cJSON_ArrayForEach(it, want)
            {
                if (i >= n || (double)ids[i] != it->valuedouble)
                    ok = 0;
                i++;
            }
            if (!ok) {
                bad++;
                fprintf(stderr, "  %s \"%.40s\" (%s): ids differ (got %zu:", name, text,
                        mode ? "plain" : "parse", n);
                for (i = 0; i < n && i < 16; i++)
                    fprintf(stderr, " %u", ids[i]);
                fprintf(stderr, ", want %d)\n", cJSON_GetArraySize(want));
            }
            if (!mode)
                CHECK_INT(tokenizer_count(tk, text, strlen(text)), (long)n);
            free(ids);
        }
        total++;
        cJSON_Delete(j);
    }
    CHECK(files >= 25 && total >= 500);
    CHECK_INT(bad, 0);
    tokenizer_free(tk);
    strbuf_release(&all);
    strbuf_release(&line);
    strbuf_release(&err);
    strbuf_release(&cur);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void long_input(struct tokenizer *tk, const char *unit, size_t reps)
{
    size_t ul = strlen(unit), i, n;
    char *buf = malloc(ul * reps);
    uint32_t *ids;
    struct strbuf dec = STRBUF_INIT;
    double t0;
    for (i = 0; i < reps; i++)
        memcpy(buf + i * ul, unit, ul);
    t0 = now();
    CHECK(tokenizer_encode(tk, buf, ul * reps, 0, &ids, &n) == 0);
    /* not a timing assert: a quadratic merge would take minutes, and the suite times out */
    if (now() - t0 > 5)
        fprintf(stderr, "  note: %zu x '%s' took %.2f s\n", reps, unit, now() - t0);
    CHECK(n > 0);
    CHECK(tokenizer_decode(tk, ids, n, &dec) == 0);
    CHECK(dec.len == ul * reps && !memcmp(dec.buf, buf, dec.len));
    free(ids);
    free(buf);
    strbuf_release(&dec);
}

static void test_long_inputs(void)
{
    long_input(tk_cl, "a", 1000000);         /* a 1 MB word that is a run of one letter */
    long_input(tk_cl, " \n", 500000);        /* one 1 MB whitespace piece */
    long_input(tk_qwen, "\xc3\xa9", 500000); /* one 1 MB word of e-acute (NFC path) */
#ifndef UNDER_SANITIZER /* the same code paths; left out under ASan to keep it fast */
    long_input(tk_cl, "!", 1000000);
    long_input(tk_cl, " ", 1000000);
    long_input(tk_o2, "7", 1000000);
    long_input(tk_gpt2, "ab", 500000);
#endif
    {
        /* heap merge equals the linear merge: 'a' x 20000 gives 20000/8 ids in Llama/cl100k */
        uint32_t *ids;
        size_t n;
        char buf[20000];
        memset(buf, 'a', sizeof(buf));
        tokenizer_encode(tk_cl, buf, sizeof(buf), 0, &ids, &n);
        CHECK_INT(n, 2500);
        CHECK_INT(ids[0], 70540); /* "aaaaaaaa" */
        free(ids);
    }
}

/* Work (tokenizer_work()) spent on `unit` repeated reps times. */
static uint64_t work_of(struct tokenizer *tk, const char *unit, size_t reps)
{
    size_t ul = strlen(unit), i;
    char *buf = malloc(ul * reps);
    uint64_t w0 = tokenizer_work(tk);
    for (i = 0; i < reps; i++)
        memcpy(buf + i * ul, unit, ul);
    tokenizer_count(tk, buf, ul * reps);
    free(buf);
    return tokenizer_work(tk) - w0;
}

/*
 * Nothing is quadratic: for long runs of one character (no spaces), the work
 * for 4x the input is at most ~4x (a quadratic loop would be 16x), and at
 * most 64 units per byte, for every mechanism (rank BPE, merges BPE over bytes
 * and over characters, added-token matching, regex splits, normalizers).
 */
static void test_linear_work(void)
{
    static const char *const units[] = {
        "a", " ", "\n", "<", "ab", "7", "\xe2\x96\x81", "<s>", "\xc3\xa9", "\xf0\x9f\x98\x80"};
    struct strbuf err = STRBUF_INIT;
    struct tokenizer *extra[3], *all[7];
    size_t k, u, n = 20000;
    extra[0] = tokenizer_load(TOKDATA "/llama2/tokenizer.json.gz", &err);
    extra[1] = tokenizer_load(TOKDATA "/claude/tokenizer.json.gz", &err);
    extra[2] = tokenizer_load(TOKDATA "/deepseek_v3/tokenizer.json.gz", &err);
    CHECK(extra[0] && extra[1] && extra[2]);
    if (!extra[0] || !extra[1] || !extra[2])
        return;
    all[0] = tk_cl;
    all[1] = tk_gpt2;
    all[2] = tk_qwen;
    all[3] = tk_o2;
    all[4] = extra[0];
    all[5] = extra[1];
    all[6] = extra[2];
    for (k = 0; k < 7; k++)
        for (u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
            uint64_t w1 = work_of(all[k], units[u], n), w4 = work_of(all[k], units[u], 4 * n);
            size_t bytes = 4 * n * strlen(units[u]);
            if (w4 > 5 * w1 + 1000 || w4 > 64 * bytes) {
                fprintf(stderr, "  %s, '%s' x %zu: work %llu, x4: %llu\n", tokenizer_name(all[k]),
                        units[u], n, (unsigned long long)w1, (unsigned long long)w4);
                test_failed_ = 1;
            }
        }
    for (k = 0; k < 3; k++)
        tokenizer_free(extra[k]);
    strbuf_release(&err);
}

/*
 * The Unicode tables (normalizers, lower-casing, \w of the LitM normaliser) and PCRE2 (the
 * pre-tokenizers' \p{L}, \p{N} classes) must be the same Unicode version: a PCRE2 on another
 * version splits some text differently from what the tables normalize. Regenerate the tables
 * (harness/base/unicode_tables.py) with a Python of PCRE2's version when this fails.
 */
static void test_unicode_versions_agree(void)
{
    CHECK_STR(unicode_tables_version(), tokenizer_pcre2_unicode_version());
}

static void test_nfc(void)
{
    /* "e" + COMBINING ACUTE -> U+00E9 under NFC (qwen3), kept for cl100k */
    static const char nfd[] = "Caf\x65\xcc\x81 \xe1\x84\x80\xe1\x85\xa1"; /* + Hangul L V */
    struct strbuf dec = STRBUF_INIT;
    uint32_t *ids;
    size_t n;
    tokenizer_encode(tk_qwen, nfd, sizeof(nfd) - 1, 0, &ids, &n);
    CHECK(tokenizer_decode(tk_qwen, ids, n, &dec) == 0);
    CHECK_STR(dec.buf, "Caf\xc3\xa9 \xea\xb0\x80");
    free(ids);
    strbuf_reset(&dec);
    tokenizer_encode(tk_cl, nfd, sizeof(nfd) - 1, 0, &ids, &n);
    CHECK(tokenizer_decode(tk_cl, ids, n, &dec) == 0);
    CHECK_STR(dec.buf, nfd);
    free(ids);
    /* canonical reordering: a + dot below (220) after grave (230) -> U+1EA1 + grave */
    strbuf_reset(&dec);
    tokenizer_encode(tk_qwen, "a\xcc\x80\xcc\xa3", 5, 0, &ids, &n);
    CHECK(tokenizer_decode(tk_qwen, ids, n, &dec) == 0);
    CHECK_STR(dec.buf, "\xe1\xba\xa1\xcc\x80");
    free(ids);
    strbuf_release(&dec);
}

static void test_bos_and_errors(void)
{
    const uint32_t *bos;
    struct strbuf err = STRBUF_INIT;
    struct tokenizer *tk;
    FILE *fp;
    CHECK_INT(tokenizer_bos_tokens(tk_cl, &bos), 0);
    CHECK_INT(tokenizer_bos_tokens(tk_qwen, &bos), 0);
    CHECK(tokenizer_load("nonesuch_base", &err) == NULL);
    CHECK(strstr(err.buf, "unknown tokenizer 'nonesuch_base'") != NULL);
    strbuf_reset(&err);
    CHECK(tokenizer_load("/nonexistent/tokenizer.json", &err) == NULL);
    CHECK(strstr(err.buf, "/nonexistent/tokenizer.json: cannot read") != NULL);
    /* a TemplateProcessing post-processor gives BOS ids (Llama 3.1 style) */
    fp = fopen("tok-bos-test.json", "w");
    CHECK(fp != NULL);
    if (!fp)
        return;
    fputs("{\"normalizer\":null,\"pre_tokenizer\":{\"type\":\"ByteLevel\",\"add_prefix_space\":"
          "false,\"use_regex\":true},\"added_tokens\":[{\"id\":300,\"content\":\"<s>\"}],"
          "\"post_processor\":{\"type\":\"Sequence\",\"processors\":[{\"type\":\"ByteLevel\"},"
          "{\"type\":\"TemplateProcessing\",\"single\":[{\"SpecialToken\":{\"id\":\"<s>\"}},"
          "{\"Sequence\":{\"id\":\"A\"}}],\"special_tokens\":{\"<s>\":{\"id\":\"<s>\",\"ids\":"
          "[300]}}}]},\"model\":{\"type\":\"BPE\",\"vocab\":{",
          fp);
    {
        int b, n = 0;
        for (b = 0; b < 256; b++) {
            /* GPT-2 bytes_to_unicode */
            int cp = b;
            if (!((b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE)))
                cp = 256 + n++;
            if (cp == '"' || cp == '\\')
                fprintf(fp, "\"\\%c\":%d,", cp, b);
            else if (cp < 0x80)
                fprintf(fp, "\"%c\":%d,", cp, b);
            else
                fprintf(fp, "\"%c%c\":%d,", 0xC0 | (cp >> 6), 0x80 | (cp & 0x3F), b);
        }
        fputs("\"ab\":256},\"merges\":[\"a b\"]}}", fp);
    }
    fclose(fp);
    tk = tokenizer_load("tok-bos-test.json", &err);
    CHECK(tk != NULL);
    if (tk) {
        const uint32_t want[] = {256, 32, 256};
        CHECK_INT(tokenizer_bos_tokens(tk, &bos), 1);
        CHECK_INT(bos[0], 300);
        expect_ids(tk, "ab ab", 5, 0, want, 3);
        tokenizer_free(tk);
    } else {
        fprintf(stderr, "  %s\n", err.buf);
    }
    remove("tok-bos-test.json");
    strbuf_reset(&err);
    fp = fopen("tok-bad.tiktoken", "w");
    if (fp) {
        fputs("IQ== 0\nnot base64! x\n", fp);
        fclose(fp);
    }
    CHECK(tokenizer_load("tok-bad.tiktoken", &err) == NULL);
    CHECK(strstr(err.buf, "tok-bad.tiktoken:2:") != NULL);
    remove("tok-bad.tiktoken");
    strbuf_release(&err);
}

static int remote_calls;
static int fake_server_count(void *ctx, const char *text, size_t len, long *count,
                             struct strbuf *err)
{
    (void)err;
    (void)text;
    remote_calls++;
    if (!strcmp((const char *)ctx, "down")) {
        strbuf_addstr(err, "connection refused");
        return -1;
    }
    *count = (long)len; /* a stand-in tokenizer: one token per byte */
    return 0;
}

static void test_remote_cache(void)
{
    struct tokenizer *tk = tokenizer_new_remote("http://x/", fake_server_count, (void *)"up");
    struct strbuf err = STRBUF_INIT;
    CHECK(tokenizer_is_remote(tk));
    CHECK_STR(tokenizer_name(tk), "server:http://x/");
    remote_calls = 0;
    CHECK_INT(tokenizer_count(tk, "abc", 3), 3);
    CHECK_INT(tokenizer_count(tk, "abc", 3), 3);
    CHECK_INT(tokenizer_count(tk, "abcd", 4), 4);
    CHECK_INT(remote_calls, 2);
    tokenizer_free(tk);
    tk = tokenizer_new_remote("down", fake_server_count, (void *)"down");
    CHECK_INT(tokenizer_count_err(tk, "abc", 3, &err), -1);
    CHECK(strstr(err.buf, "connection refused") != NULL);
    tokenizer_free(tk);
    strbuf_release(&err);
}

struct thr_arg {
    const char *text;
    size_t len;
    long count;
};

static void *thr_count(void *a)
{
    struct thr_arg *t = a;
    int i;
    for (i = 0; i < 20; i++)
        t->count = tokenizer_count(tk_o2, t->text, t->len);
    return NULL;
}

static void test_threads(void)
{
    static const char text[] = "The quick brown fox jumps over the lazy dog's back, 12345 times! "
                               "Être ou ne pas être: voilà la question. 日本語のテキスト。";
    struct thr_arg args[4];
    pthread_t th[4];
    long want = tokenizer_count(tk_o2, text, sizeof(text) - 1);
    int i;
    for (i = 0; i < 4; i++) {
        args[i].text = text;
        args[i].len = sizeof(text) - 1;
        pthread_create(&th[i], NULL, thr_count, &args[i]);
    }
    for (i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        CHECK_INT(args[i].count, want);
    }
}

int main(void)
{
    tk_cl = load_shared("cl100k_base"); /* datasets/tokenizers/cl100k_base.tiktoken.gz */
    tk_o2 = load_shared("o200k_base");
    tk_gpt2 = load_shared(TOKDATA "/gpt2/tokenizer.json.gz");
    tk_qwen = load_shared(TOKDATA "/qwen3/tokenizer.json.gz");
    RUN(test_load);
    RUN(test_vectors);
    RUN(test_specials);
    RUN(test_hf_families);
    RUN(test_hf_mechanisms);
    RUN(test_roundtrip_invalid_utf8);
    RUN(test_long_inputs);
    RUN(test_linear_work);
    RUN(test_unicode_versions_agree);
    RUN(test_nfc);
    RUN(test_bos_and_errors);
    RUN(test_remote_cache);
    RUN(test_threads);
    if (!getenv("DIPMAP_TOKENIZER_SKIP_COUNTS"))
        RUN(test_counts);
    tokenizer_free(tk_cl);
    tokenizer_free(tk_o2);
    tokenizer_free(tk_gpt2);
    tokenizer_free(tk_qwen);
    return TEST_EXIT();
}

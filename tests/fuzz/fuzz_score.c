/*
 * libFuzzer target for the scorers (score.c): input = NUL-separated fields
 * "answer\0gold1\0gold2...\0regex" (the regex only when there are 3+
 * fields). Every scorer must return 0 with a score of exactly 0 or 1, or (the
 * regex scorer only) -1 with a reason; "all" credit implies "contains"
 * credit; an answer equal to a gold answer is credited by contains, exact
 * and kv; score_normalize() is idempotent on valid UTF-8.
 * Build and run: `make fuzz-score` (clang, -fsanitize=fuzzer,address,undefined).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prompt/dataset.h"
#include "run/score.h"
#include "base/strbuf.h"
#include "base/unicode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FIELDS 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static unsigned calls;
    char *buf = malloc(size + 1), *fields[MAX_FIELDS];
    const char *answers[MAX_FIELDS];
    size_t nf = 0, i, n;
    const char *regex = NULL;
    double s[SCORER__COUNT];
    struct strbuf err = STRBUF_INIT, a = STRBUF_INIT, b = STRBUF_INIT;
    int k;

    memcpy(buf, data, size);
    buf[size] = '\0';
    fields[nf++] = buf;
    for (i = 0; i < size && nf < MAX_FIELDS; i++)
        if (!buf[i])
            fields[nf++] = buf + i + 1;
    n = nf - 1;
    if (nf >= 3) {
        regex = fields[nf - 1];
        n--;
    }
    for (i = 0; i < n; i++)
        answers[i] = fields[i + 1];

    for (k = 0; k < SCORER__COUNT; k++) {
        int rc;
        s[k] = -1;
        strbuf_reset(&err);
        rc = score_answer((enum scorer_kind)k, fields[0], answers, n, regex, &s[k], &err);
        if (rc == 0 && s[k] != 0.0 && s[k] != 1.0)
            abort();
        if (rc < 0 && (k != SCORER_REGEX || !err.len))
            abort();
    }
    if (s[SCORER_ALL] == 1.0 && s[SCORER_CONTAINS] != 1.0)
        abort();
    if (n && !strcmp(fields[0], answers[0]) && !strchr(fields[0], '\n')) {
        score_normalize(answers[0], strlen(answers[0]), &a);
        if (a.len && (s[SCORER_CONTAINS] != 1.0 || s[SCORER_EXACT] != 1.0))
            abort();
        if (s[SCORER_KV] != 1.0)
            abort();
    }
    strbuf_reset(&a);
    score_normalize(fields[0], strlen(fields[0]), &a);
    score_normalize(a.buf, a.len, &b);
    /* (invalid bytes are kept as they are, so deleting punctuation between two of them can
       form a valid character: idempotence holds for valid UTF-8 only) */
    if (utf8_valid(fields[0], strlen(fields[0])) &&
        (a.len != b.len || memcmp(a.buf, b.buf, a.len))) {
        fprintf(stderr, "normalize not idempotent: '%s' -> '%s'\n", a.buf, b.buf);
        abort();
    }
    strbuf_reset(&b);
    unicode_lower(fields[0], strlen(fields[0]), &b);
    (void)score_litm_raw(fields[0], answers, n);
    if (regex)
        (void)score_regex_check(regex, &err);
    if (++calls % 1024 == 0)
        score_cache_clear();
    strbuf_release(&err);
    strbuf_release(&a);
    strbuf_release(&b);
    free(buf);
    return 0;
}

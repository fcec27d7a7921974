/*
 * Golden sets: JSONL lines parsed and validated with file:line:field errors (questions,
 * chunks, retrieval items), the answer normalisation behind chunk hygiene (no hard negative
 * or filler that states an answer) and the set's id index. Owns every string of a loaded set.
 * Reading and writing files is dataset_io.c; haystacks are dataset_haystack.c.
 *
 * Its error() calls print (docs/conventions.md "Errors"): the loaders golden_set_load(),
 * golden_set_load_mem(), haystack_load() and dataset_text_each() report a file:line:field
 * message and -1, and their callers (eight commands, report_doc.c, bench/ and about thirty
 * unit tests that read the message through usage_set_hook) take no err yet; moving them to
 * a `struct strbuf *err` changes every caller in one step. The writers already take one.
 */
#define _GNU_SOURCE
#include "prompt/dataset.h"
#include "prompt/dataset-int.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "run/score.h"
#include "base/sha256.h"
#include "base/strbuf.h"
#include "base/suggest.h"
#include "base/strvec.h"
#include "base/unicode.h"
#include "base/usage.h"
#include "base/xalloc.h"
#include "base/hash.h"
#include "base/hashmap.h"

#include "base/banned.h"

/* ---- UTF-8 ---- */

int utf8_valid(const char *s, size_t len)
{
    return utf8_valid_prefix((const unsigned char *)s, len) == len;
}

/* Byte offset of the first invalid UTF-8 sequence, or len. */
size_t dataset_utf8_first_invalid(const char *s, size_t len)
{
    return utf8_valid_prefix((const unsigned char *)s, len);
}

/* ---- answer dataset_leaks ---- */

/* The model sees a chunk's title and text: both are checked for dataset_leaks. */
void dataset_chunk_normalize(struct strbuf *sb, const struct chunk *c)
{
    if (c->title && c->title[0]) {
        score_normalize(c->title, strlen(c->title), sb);
        strbuf_addch(sb, ' ');
    }
    score_normalize(c->text, c->text_len, sb);
}

void dataset_norm_answers_init(struct norm_answers *na, const struct question *q)
{
    struct strbuf sb = STRBUF_INIT;
    size_t i;
    strvec_init(&na->v);
    for (i = 0; i < q->answers.nr; i++) {
        strbuf_reset(&sb);
        score_normalize(q->answers.v[i], strlen(q->answers.v[i]), &sb);
        if (sb.len)
            strvec_push(&na->v, sb.buf);
    }
    strbuf_release(&sb);
}

static int contains_word_or_sub(const char *hay, size_t hay_len, const char *needle)
{
    size_t n = strlen(needle);
    const char *p = hay, *end = hay + hay_len;
    if (n > 3)
        return memmem(hay, hay_len, needle, n) != NULL;
    while (p < end && (p = memmem(p, (size_t)(end - p), needle, n))) {
        int left = p == hay || p[-1] == ' ';
        int right = p + n == end || p[n] == ' ';
        if (left && right)
            return 1;
        p++;
    }
    return 0;
}

/* 1 when a normalised "title text" states one of the (normalised) answers. */
int dataset_states_answer(const struct norm_answers *na, const char *norm, size_t norm_len)
{
    size_t i;
    for (i = 0; i < na->v.nr; i++)
        if (contains_word_or_sub(norm, norm_len, na->v.v[i]))
            return 1;
    return 0;
}

int dataset_leaks(const struct norm_answers *na, const struct strvec *gold_norms, const char *norm,
                  size_t norm_len)
{
    size_t i;
    if (dataset_states_answer(na, norm, norm_len))
        return 1;
    for (i = 0; i < gold_norms->nr; i++)
        if (strlen(gold_norms->v[i]) == norm_len && !memcmp(gold_norms->v[i], norm, norm_len))
            return 1;
    return 0;
}

void dataset_gold_norms_init(struct strvec *gn, const struct question *q)
{
    struct strbuf sb = STRBUF_INIT;
    size_t i;
    strvec_init(gn);
    for (i = 0; i < q->gold_nr; i++) {
        strbuf_reset(&sb);
        dataset_chunk_normalize(&sb, &q->gold[i]);
        strvec_push(gn, sb.buf);
    }
    strbuf_release(&sb);
}

int question_leaks_into(const struct question *q, const char *norm, size_t norm_len)
{
    struct norm_answers na;
    struct strvec gn;
    int r;
    dataset_norm_answers_init(&na, q);
    dataset_gold_norms_init(&gn, q);
    r = dataset_leaks(&na, &gn, norm, norm_len);
    strvec_clear(&na.v);
    strvec_clear(&gn);
    return r;
}

/* ---- JSON field helpers ---- */

int dataset_ferr(const struct dataset_pos *c, const char *fmt, ...)
{
    struct strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    error("%s:%ld: %s", c->path, c->line, sb.buf);
    strbuf_release(&sb);
    return -1;
}

static int is_nonempty_string(const struct json *j)
{
    const char *s = json_str(j);
    return s && s[0];
}

/* Optional string field: 0 with *out = copy or NULL; -1 on a wrong type. */
static int opt_string(const struct dataset_pos *c, const struct json *obj, const char *key,
                      const char *where, char **out)
{
    const struct json *j = json_get(obj, key);
    *out = NULL;
    if (json_kind(j) == JSON_ABSENT || json_kind(j) == JSON_NULL)
        return 0;
    if (!json_str(j))
        return dataset_ferr(c, "%s\"%s\" must be a string", where, key);
    *out = xstrdup(json_str(j));
    return 0;
}

/*
 * A field near a known name is a typo ("distractor" for "distractors" dropped
 * the hard negatives; "answer" for "answers"): refused, naming the field and
 * the name meant. Other unknown fields are the user's own metadata, ignored
 * (docs/formats.md "Golden-set format").
 */
static int check_fields(const struct dataset_pos *c, const struct json *obj, const char *where,
                        const char *const *known)
{
    const struct json *m;
    for (m = json_first(obj); m; m = json_next(m)) {
        const char *key = json_key(m), *near;
        size_t i;
        for (i = 0; known[i] && strcmp(known[i], key); i++)
            ;
        if (known[i])
            continue;
        near = suggest_name(key, known);
        if (near) {
            size_t wl = strlen(where);
            return dataset_ferr(c, "%.*s%sunknown field \"%s\" (did you mean \"%s\"?)",
                                (int)(wl && where[wl - 1] == '.' ? wl - 1 : wl), where,
                                wl ? ": " : "", key, near);
        }
    }
    return 0;
}

static const char *const question_fields[] = {
    "id",          "question", "answers",      "gold",
    "distractors", "scorer",   "answer_regex", "answer_outside_gold",
    "retrieved",   NULL,
};
/* a "retrieved" item's "doc", "gold" and "score" are far from these: not taken for typos */
static const char *const chunk_fields[] = {"id", "title", "text", "value", NULL};

void dataset_chunk_release(struct chunk *ch)
{
    free(ch->id);
    free(ch->title);
    free(ch->text);
    free(ch->value);
    free(ch->norm);
    memset(ch, 0, sizeof(*ch));
}

/* Parse one chunk object; where = e.g. "\"gold\"[0]." for messages. */
int dataset_parse_chunk(const struct dataset_pos *c, const struct json *j, const char *where,
                        const char *def_id, struct chunk *out)
{
    const struct json *text;
    memset(out, 0, sizeof(*out));
    if (json_kind(j) != JSON_OBJECT)
        return dataset_ferr(c, "%s must be an object with a \"text\"", where);
    if (check_fields(c, j, where, chunk_fields) < 0)
        return -1;
    text = json_get(j, "text");
    if (!is_nonempty_string(text))
        return dataset_ferr(c, "%s\"text\" must be a non-empty string", where);
    if (opt_string(c, j, "id", where, &out->id) < 0 ||
        opt_string(c, j, "title", where, &out->title) < 0 ||
        opt_string(c, j, "value", where, &out->value) < 0) {
        dataset_chunk_release(out);
        return -1;
    }
    if (!out->id || !out->id[0]) {
        free(out->id);
        out->id = xstrdup(def_id);
    }
    if (!out->title)
        out->title = xstrdup("");
    out->text = xstrdup(json_str(text));
    out->text_len = strlen(out->text);
    return 0;
}

static int parse_chunk_array(const struct dataset_pos *c, const struct json *arr, const char *key,
                             const char *qid, const char *kind, struct chunk **out, size_t *nr)
{
    size_t i = 0, n = json_size(arr);
    const struct json *e;
    struct strbuf where = STRBUF_INIT, def = STRBUF_INIT;
    *out = xcalloc(n ? n : 1, sizeof(**out));
    *nr = 0;
    for (e = json_first(arr); e; e = json_next(e)) {
        strbuf_reset(&where);
        strbuf_reset(&def);
        strbuf_addf(&where, "\"%s\"[%zu].", key, i);
        strbuf_addf(&def, "%s/%s/%zu", qid, kind, i);
        if (dataset_parse_chunk(c, e, where.buf, def.buf, &(*out)[i]) < 0) {
            strbuf_release(&where);
            strbuf_release(&def);
            return -1;
        }
        *nr = ++i;
    }
    strbuf_release(&where);
    strbuf_release(&def);
    return 0;
}

static void question_release(struct question *q)
{
    size_t i;
    for (i = 0; i < q->retrieved_nr; i++) {
        dataset_chunk_release(&q->retrieved[i].c);
        free(q->retrieved[i].doc);
    }
    free(q->retrieved);
    free(q->id);
    free(q->question);
    strvec_clear(&q->answers);
    for (i = 0; i < q->gold_nr; i++)
        dataset_chunk_release(&q->gold[i]);
    free(q->gold);
    for (i = 0; i < q->distractors_nr; i++)
        dataset_chunk_release(&q->distractors[i]);
    free(q->distractors);
    strvec_clear(&q->dropped_negatives);
    free(q->scorer);
    free(q->answer_regex);
    memset(q, 0, sizeof(*q));
}

/* Common per-line checks: UTF-8 and JSON object. Returns the parsed object or NULL. */
struct json *dataset_parse_line(const struct dataset_pos *c, const char *line, size_t len)
{
    size_t bad = dataset_utf8_first_invalid(line, len);
    struct json *j;
    if (bad < len) {
        dataset_ferr(c, "invalid UTF-8 at byte %zu", bad + 1);
        return NULL;
    }
    if (memchr(line, '\0', len)) {
        dataset_ferr(c, "NUL byte in line");
        return NULL;
    }
    j = json_parse_at(line, len, &bad);
    if (!j) {
        dataset_ferr(c, "invalid JSON (near byte %zu)", bad + 1);
        return NULL;
    }
    if (json_kind(j) != JSON_OBJECT) {
        json_free(j);
        dataset_ferr(c, "must be a JSON object");
        return NULL;
    }
    return j;
}

int dataset_is_blank(const char *s, size_t len)
{
    size_t i;
    for (i = 0; i < len; i++)
        if (s[i] != ' ' && s[i] != '\t')
            return 0;
    return 1;
}

/* ---- duplicate ids and texts (base/hashmap.h over the set's own arrays) ---- */

uint64_t dataset_str_hash(const char *s, size_t n)
{
    return fnv64(FNV64_INIT_DIPMAP, s, n);
}

static int question_id_is(const void *id, size_t entry, const void *set)
{
    return !strcmp(((const struct golden_set *)set)->q[entry].id, id);
}

/* ---- golden sets ---- */

/*
 * A gold answer that normalises to "" ("A", "the", "*") would be credited
 * for any answer by a substring scorer: refused unless the question chose a
 * scorer that compares it as it is (exact, regex).
 */
static int check_empty_golds(const struct dataset_pos *c, const struct question *q)
{
    size_t i;
    if (q->scorer ? !strcmp(q->scorer, "exact") || !strcmp(q->scorer, "regex") : !!q->answer_regex)
        return 0;
    for (i = 0; i < q->answers.nr; i++)
        if (score_gold_is_empty(q->answers.v[i]))
            return dataset_ferr(c,
                                "\"answers\"[%zu]: \"%s\" is empty once normalised (articles and "
                                "punctuation are removed), so it would match any answer; give the "
                                "question \"scorer\": \"exact\" or an \"answer_regex\"",
                                i, q->answers.v[i]);
    return 0;
}

/*
 * "title\ntext" of each gold chunk, normalised, joined by spaces: what the contains family
 * of scorers would see if the model answered with the gold itself. Answers are looked for as
 * substrings, as those scorers do ("S" is in "S-shaped", normalised "sshaped"): the check
 * refuses only an answer no scorer of that family could find.
 */
static void gold_union_norm(struct strbuf *sb, const struct question *q)
{
    for (size_t i = 0; i < q->gold_nr; i++) {
        if (i)
            strbuf_addch(sb, ' ');
        dataset_chunk_normalize(sb, &q->gold[i]);
    }
}

/* 1 when the question's answer_regex matches the text of one of its gold chunks. */
static int regex_in_gold(const struct question *q)
{
    struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
    int hit = 0;
    for (size_t i = 0; i < q->gold_nr && !hit; i++) {
        double score = 0;
        strbuf_reset(&text);
        strbuf_addf(&text, "%s\n%s", q->gold[i].title ? q->gold[i].title : "", q->gold[i].text);
        /* an invalid pattern is the scorer's own error, reported when the run scores */
        if (score_answer(SCORER_REGEX, text.buf, NULL, 0, q->answer_regex, &score, &err) < 0)
            hit = 1;
        else
            hit = score > 0;
    }
    strbuf_release(&text);
    strbuf_release(&err);
    return hit;
}

/* A needle's value its own text does not state: appends why, returns 0; else 1. */
static int values_in_their_chunks(const struct question *q, struct strbuf *why)
{
    struct strbuf norm = STRBUF_INIT, v = STRBUF_INIT;
    int ok = 1;
    for (size_t i = 0; i < q->gold_nr && ok; i++) {
        const struct chunk *g = &q->gold[i];
        if (!g->value)
            continue;
        strbuf_reset(&norm);
        strbuf_reset(&v);
        dataset_chunk_normalize(&norm, g);
        score_normalize(g->value, strlen(g->value), &v);
        if (v.len && !memmem(norm.buf, norm.len, v.buf, v.len)) {
            strbuf_addf(why, "\"gold\"[%zu].\"value\": \"%s\" is not in that chunk's text", i,
                        g->value);
            ok = 0;
        }
    }
    strbuf_release(&norm);
    strbuf_release(&v);
    return ok;
}

int question_answer_in_gold(const struct question *q, struct strbuf *why)
{
    struct strbuf gold = STRBUF_INIT, a = STRBUF_INIT;
    int all, regex, ok = 1;
    size_t i, looked = 0, stated = 0, first_missing = 0;

    if (!q->gold_nr || q->retrieved_nr)
        return 1; /* a retrieval item: its gold is what states an answer */
    /*
     * A pattern may describe the answer's form rather than the gold's text (^\s*A\b for a
     * multiple-choice label): it passes when it matches the gold, else the answers decide.
     */
    regex = q->answer_regex && (!q->scorer || !strcmp(q->scorer, "regex"));
    if (regex && regex_in_gold(q))
        return values_in_their_chunks(q, why);
    gold_union_norm(&gold, q);
    all = q->scorer && !strcmp(q->scorer, "all");
    for (i = q->answers.nr; i-- > 0;) { /* backwards: first_missing ends at the first one */
        strbuf_reset(&a);
        score_normalize(q->answers.v[i], strlen(q->answers.v[i]), &a);
        if (!a.len) /* "" (the exact scorer's "A") states nothing to look for */
            continue;
        looked++;
        if (memmem(gold.buf, gold.len, a.buf, a.len))
            stated++;
        else
            first_missing = i;
    }
    if (looked && (all ? stated < looked : !stated)) {
        ok = 0;
        if (regex)
            strbuf_addf(why, "\"answer_regex\": /%s/ matches no gold chunk's text and ",
                        q->answer_regex);
        if (all)
            strbuf_addf(why,
                        "\"answers\": the gold does not state \"%s\" (scorer all needs every "
                        "answer)",
                        q->answers.v[first_missing]);
        else
            strbuf_addf(why, "\"answers\": no gold chunk states %s\"%s\"%s",
                        q->answers.nr > 1 ? "any of " : "", q->answers.v[0],
                        q->answers.nr > 2    ? ", ..."
                        : q->answers.nr == 2 ? " or the other"
                                             : "");
    }
    strbuf_release(&a);
    strbuf_release(&gold);
    return ok && values_in_their_chunks(q, why);
}

/*
 * An answer the gold never states is scored wrong at every depth ("KX-78" where the chunk
 * says KX-77): refused unless the line says the gold implies it without stating it.
 */
static int check_answer_in_gold(const struct dataset_pos *c, const struct question *q)
{
    struct strbuf why = STRBUF_INIT;
    int rc = 0;
    if (!q->answer_outside_gold && !question_answer_in_gold(q, &why))
        rc = dataset_ferr(c,
                          "%s, so the scorer would never credit the gold (compared as the "
                          "scorer normalises: lower case, no punctuation or articles); fix the "
                          "answer or the gold, or add \"answer_outside_gold\": true when the "
                          "gold implies the answer without stating it (an inference, a yes/no, "
                          "a label)",
                          why.buf);
    strbuf_release(&why);
    return rc;
}

/*
 * A hard negative that states a gold answer puts the answer at two depths at
 * once: excluded like leaking filler (question_leaks_into()), and counted.
 */
static void drop_leaking_negatives(struct question *q)
{
    struct strbuf sb = STRBUF_INIT;
    size_t i, kept = 0;
    for (i = 0; i < q->distractors_nr; i++) {
        struct chunk *d = &q->distractors[i];
        strbuf_reset(&sb);
        dataset_chunk_normalize(&sb, d);
        if (question_leaks_into(q, sb.buf, sb.len)) {
            strvec_push(&q->dropped_negatives, d->id);
            dataset_chunk_release(d);
            continue;
        }
        q->distractors[kept++] = *d;
    }
    q->distractors_nr = kept;
    strbuf_release(&sb);
}

static void chunk_copy(struct chunk *dst, const struct chunk *src)
{
    memset(dst, 0, sizeof(*dst));
    dst->id = xstrdup(src->id);
    dst->title = xstrdup(src->title);
    dst->text = xstrdup(src->text);
    dst->text_len = src->text_len;
    dst->value = src->value ? xstrdup(src->value) : NULL;
}

/* "score", "doc" and "gold" of retrieved[i] (its chunk fields are parsed already). */
static int parse_retrieved_extra(const struct dataset_pos *c, const struct json *e, size_t i,
                                 struct retrieved_chunk *rc, int *flagged)
{
    const struct json *f = json_get(e, "score");
    struct strbuf where = STRBUF_INIT;
    int rcode = 0;
    strbuf_addf(&where, "\"retrieved\"[%zu].", i);
    rc->score = NAN;
    if (json_kind(f) != JSON_ABSENT && json_kind(f) != JSON_NULL) {
        if (json_kind(f) != JSON_NUMBER || !isfinite(json_num(f, 0)))
            rcode = dataset_ferr(c, "%s\"score\" must be a number", where.buf);
        else
            rc->score = json_num(f, 0);
    }
    if (!rcode)
        rcode = opt_string(c, e, "doc", where.buf, &rc->doc);
    f = json_get(e, "gold");
    if (!rcode && json_kind(f) != JSON_ABSENT && json_kind(f) != JSON_NULL) {
        if (json_kind(f) != JSON_BOOL)
            rcode = dataset_ferr(c, "%s\"gold\" must be true or false", where.buf);
        else if (json_is_true(f)) {
            rc->gold = 1;
            *flagged = 1;
        }
    }
    strbuf_release(&where);
    return rcode;
}

/* Source order: each chunk's position among the list's ids sorted by strverscmp(). */
static const struct retrieved_chunk *source_list;

static int by_version(const void *a, const void *b)
{
    return strverscmp(source_list[*(const size_t *)a].c.id, source_list[*(const size_t *)b].c.id);
}

static int assign_source_order(const struct dataset_pos *c, struct question *q)
{
    size_t *ix = xmalloc(st_mult(q->retrieved_nr, sizeof(*ix))), i;
    int rc = 0;
    for (i = 0; i < q->retrieved_nr; i++)
        ix[i] = i;
    source_list = q->retrieved;
    qsort(ix, q->retrieved_nr, sizeof(*ix), by_version);
    for (i = 0; i < q->retrieved_nr; i++) {
        q->retrieved[ix[i]].source = (long)i;
        if (i && !strcmp(q->retrieved[ix[i]].c.id, q->retrieved[ix[i - 1]].c.id)) {
            size_t a = ix[i - 1] < ix[i] ? ix[i - 1] : ix[i], b = ix[i - 1] ^ ix[i] ^ a;
            rc =
                dataset_ferr(c, "\"retrieved\"[%zu].\"id\": \"%s\" is also \"retrieved\"[%zu]'s id",
                             b, q->retrieved[ix[i]].c.id, a);
            break;
        }
    }
    free(ix);
    return rc;
}

/*
 * A retrieval item's "retrieved": the ranked chunks, then the gold among
 * them (flagged, else stating an answer), gold and distractors as copies.
 */
static int parse_retrieved(const struct dataset_pos *c, const struct json *arr, struct question *q)
{
    struct chunk *chunks = NULL;
    size_t n = 0, i, g = 0, d = 0;
    const struct json *e;
    int flagged = 0;
    struct norm_answers na;
    struct strbuf sb = STRBUF_INIT;

    if (json_kind(arr) != JSON_ARRAY || !json_size(arr))
        return dataset_ferr(c, "\"retrieved\" must be a non-empty array of chunks, best first");
    if (parse_chunk_array(c, arr, "retrieved", q->id, "r", &chunks, &n) < 0) {
        for (i = 0; i < n; i++)
            dataset_chunk_release(&chunks[i]);
        free(chunks);
        return -1;
    }
    q->retrieved = xcalloc(n, sizeof(*q->retrieved));
    for (i = 0; i < n; i++)
        q->retrieved[i].c = chunks[i];
    q->retrieved_nr = n;
    free(chunks);
    i = 0;
    for (e = json_first(arr); e; e = json_next(e)) {
        struct retrieved_chunk *rc = &q->retrieved[i];
        if (parse_retrieved_extra(c, e, i, rc, &flagged) < 0)
            return -1;
        if (i && !isnan(rc->score) && !isnan(q->retrieved[i - 1].score) &&
            rc->score > q->retrieved[i - 1].score)
            return dataset_ferr(
                c,
                "\"retrieved\"[%zu].\"score\" %g is above \"retrieved\"[%zu]'s %g: list "
                "the chunks best first",
                i, rc->score, i - 1, q->retrieved[i - 1].score);
        i++;
    }
    if (assign_source_order(c, q) < 0)
        return -1;
    if (!flagged) {
        dataset_norm_answers_init(&na, q);
        for (i = 0; i < n; i++) {
            strbuf_reset(&sb);
            dataset_chunk_normalize(&sb, &q->retrieved[i].c);
            q->retrieved[i].gold = dataset_states_answer(&na, sb.buf, sb.len);
        }
        strvec_clear(&na.v);
        strbuf_release(&sb);
    }
    for (i = 0; i < n; i++)
        g += q->retrieved[i].gold;
    q->gold = xcalloc(g ? g : 1, sizeof(*q->gold));
    q->distractors = xcalloc(n - g ? n - g : 1, sizeof(*q->distractors));
    for (i = 0; i < n; i++) {
        if (q->retrieved[i].gold) {
            if (!q->gold_nr)
                q->gold_rank = i + 1;
            chunk_copy(&q->gold[q->gold_nr++], &q->retrieved[i].c);
        } else {
            chunk_copy(&q->distractors[d++], &q->retrieved[i].c);
            q->distractors_nr = d;
        }
    }
    return 0;
}

static int parse_question(const struct dataset_pos *c, const struct json *j, struct question *q)
{
    const struct json *f, *e, *retrieved;

    memset(q, 0, sizeof(*q));
    strvec_init(&q->answers);
    strvec_init(&q->dropped_negatives);
    q->line = c->line;

    if (check_fields(c, j, "", question_fields) < 0)
        return -1;
    retrieved = json_get(j, "retrieved");
    if (json_kind(retrieved) == JSON_NULL)
        retrieved = NULL;
    f = json_get(j, "id");
    if (retrieved && (json_kind(f) == JSON_ABSENT || json_kind(f) == JSON_NULL)) {
        struct strbuf id = STRBUF_INIT;
        strbuf_addf(&id, "line-%ld", c->line);
        q->id = strbuf_detach(&id, NULL);
    } else {
        if (!is_nonempty_string(f))
            return dataset_ferr(c, "\"id\" must be a non-empty string");
        q->id = xstrdup(json_str(f));
    }
    f = json_get(j, "question");
    if (!is_nonempty_string(f))
        return dataset_ferr(c, "\"question\" must be a non-empty string");
    q->question = xstrdup(json_str(f));
    f = json_get(j, "answers");
    if (json_kind(f) != JSON_ARRAY || !json_size(f))
        return dataset_ferr(c, "\"answers\" must be a non-empty array of strings");
    for (e = json_first(f); e; e = json_next(e)) {
        if (!is_nonempty_string(e))
            return dataset_ferr(c, "\"answers\" must be a non-empty array of strings");
        strvec_push(&q->answers, json_str(e));
    }
    if (retrieved) {
        if (json_get(j, "gold") || json_get(j, "distractors"))
            return dataset_ferr(
                c, "a retrieval item (\"retrieved\") has no \"gold\" or \"distractors\": "
                   "flag its gold chunks in \"retrieved\" with \"gold\": true");
        if (parse_retrieved(c, retrieved, q) < 0)
            return -1;
    }
    f = json_get(j, "gold");
    if (!retrieved && (json_kind(f) != JSON_ARRAY || !json_size(f)))
        return dataset_ferr(c, "\"gold\" must be a non-empty array of chunks");
    if (!retrieved && parse_chunk_array(c, f, "gold", q->id, "gold", &q->gold, &q->gold_nr) < 0)
        return -1;
    f = json_get(j, "distractors");
    if (!retrieved && json_kind(f) != JSON_ABSENT && json_kind(f) != JSON_NULL) {
        if (json_kind(f) != JSON_ARRAY)
            return dataset_ferr(c, "\"distractors\" must be an array of chunks");
        if (parse_chunk_array(c, f, "distractors", q->id, "neg", &q->distractors,
                              &q->distractors_nr) < 0)
            return -1;
    }
    if (opt_string(c, j, "scorer", "", &q->scorer) < 0 ||
        opt_string(c, j, "answer_regex", "", &q->answer_regex) < 0)
        return -1;
    f = json_get(j, "answer_outside_gold");
    if (json_kind(f) != JSON_ABSENT && json_kind(f) != JSON_NULL) {
        if (json_kind(f) != JSON_BOOL)
            return dataset_ferr(c, "\"answer_outside_gold\" must be true or false");
        q->answer_outside_gold = json_is_true(f);
    }
    if (check_empty_golds(c, q) < 0 || check_answer_in_gold(c, q) < 0)
        return -1;
    drop_leaking_negatives(q);
    return 0;
}

static int golden_set_read(struct golden_set *gs, struct line_reader *r, const char *path);

int golden_set_load(struct golden_set *gs, const char *spec)
{
    struct line_reader r;
    struct strbuf path = STRBUF_INIT;
    dataset_resolve(spec, &path);
    memset(gs, 0, sizeof(*gs));
    gs->path = strbuf_detach(&path, NULL);
    if (dataset_reader_open(&r, gs->path) < 0) {
        golden_set_release(gs);
        return -1;
    }
    return golden_set_read(gs, &r, gs->path);
}

int golden_set_load_mem(struct golden_set *gs, const char *name, const char *buf, size_t len)
{
    struct line_reader r;
    memset(gs, 0, sizeof(*gs));
    gs->path = xstrdup(name);
    dataset_reader_open_mem(&r, name, buf, len);
    return golden_set_read(gs, &r, name);
}

/* Closes r (opened by the caller) whatever happens. */
static int golden_set_read(struct golden_set *gs, struct line_reader *r, const char *path)
{
    size_t alloc = 0;
    char *line;
    size_t len;
    int rc, ret = -1;

    while ((rc = dataset_reader_next(r, &line, &len)) > 0) {
        struct dataset_pos c = {path, r->lineno};
        struct question *q;
        struct json *j;
        size_t prev;
        if (dataset_is_blank(line, len))
            continue;
        j = dataset_parse_line(&c, line, len);
        if (!j)
            goto cleanup;
        ALLOC_GROW(gs->q, gs->nr + 1, alloc);
        q = &gs->q[gs->nr];
        if (parse_question(&c, j, q) < 0) {
            question_release(q);
            json_free(j);
            goto cleanup;
        }
        json_free(j);
        gs->nr++;
        gs->retrieval_nr += q->retrieved_nr > 0;
        prev = hashmap_put(&gs->ids, dataset_str_hash(q->id, strlen(q->id)), q->id, gs->nr - 1,
                           question_id_is, gs);
        if (prev != HASHMAP_NONE) {
            dataset_ferr(&c, "\"id\": duplicate question id \"%s\" (first on line %ld)", q->id,
                         gs->q[prev].line);
            goto cleanup;
        }
    }
    if (rc < 0)
        goto cleanup;
    if (!gs->nr) {
        error("%s: no questions in the golden set", path);
        goto cleanup;
    }
    sha256_final_hex(&r->sha, gs->sha256);
    gs->text_len = r->hashed;
    ret = 0;
cleanup:
    dataset_reader_close(r);
    if (ret < 0)
        golden_set_release(gs);
    return ret;
}

void golden_set_release(struct golden_set *gs)
{
    size_t i;
    for (i = 0; i < gs->nr; i++)
        question_release(&gs->q[i]);
    free(gs->q);
    free(gs->path);
    hashmap_clear(&gs->ids);
    memset(gs, 0, sizeof(*gs));
}

size_t golden_set_negatives_note(const struct golden_set *gs, struct strbuf *out)
{
    size_t i, j, total = 0, affected = 0, listed = 0;
    for (i = 0; i < gs->nr; i++) {
        total += gs->q[i].dropped_negatives.nr;
        affected += gs->q[i].dropped_negatives.nr > 0;
    }
    if (!total)
        return 0;
    strbuf_addf(out,
                "%zu hard negative%s excluded because %s the question's answer (%zu of %zu "
                "questions affected:",
                total, total == 1 ? "" : "s", total == 1 ? "it contains" : "they contain", affected,
                gs->nr);
    for (i = 0; i < gs->nr && listed < 10; i++) {
        const struct question *q = &gs->q[i];
        if (!q->dropped_negatives.nr)
            continue;
        strbuf_addf(out, "%s %s (", listed ? ";" : "", q->id);
        for (j = 0; j < q->dropped_negatives.nr; j++)
            strbuf_addf(out, "%s%s", j ? ", " : "", q->dropped_negatives.v[j]);
        strbuf_addch(out, ')');
        listed++;
    }
    strbuf_addstr(out, affected > listed ? "; ...)" : ")");
    return total;
}

int golden_set_require_gold(const struct golden_set *gs, struct strbuf *err)
{
    size_t i;
    for (i = 0; i < gs->nr; i++)
        if (!gs->q[i].gold_nr)
            return error_to(
                err,
                "%s:%ld: no gold chunk among \"retrieved\" (none flagged \"gold\": true, "
                "none states an answer): the depth experiment needs one per question; "
                "use it with run --experiment order",
                gs->path, gs->q[i].line);
    return 0;
}

const struct question *golden_set_find(const struct golden_set *gs, const char *id)
{
    size_t i;
    if (gs->ids.nr == gs->nr && gs->nr) {
        /* the index of a set as loaded (report's lookups per trial were linear: a report of
           1M trials over 10,000 questions spent a minute here) */
        i = hashmap_find(&gs->ids, dataset_str_hash(id, strlen(id)), id, question_id_is, gs);
        return i == HASHMAP_NONE ? NULL : &gs->q[i];
    }
    for (i = 0; i < gs->nr; i++)
        if (!strcmp(gs->q[i].id, id))
            return &gs->q[i];
    return NULL;
}

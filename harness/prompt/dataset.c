/*
 * Golden sets and haystacks: streaming JSONL (optionally gzip) loading with
 * file:line:field validation, paragraph splitting of plain-text haystacks,
 * chunk hygiene (duplicates, answer leaks) and writing sets for import/gen.
 * Owns every string of the loaded sets.
 */
#define _GNU_SOURCE
#include "prompt/dataset.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "base/datadir.h"
#include "base/escape.h"
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
static size_t utf8_first_invalid(const char *s, size_t len)
{
    return utf8_valid_prefix((const unsigned char *)s, len);
}

/* ---- answer leaks ---- */

/* The model sees a chunk's title and text: both are checked for leaks. */
static void chunk_normalize(struct strbuf *sb, const struct chunk *c)
{
    if (c->title && c->title[0]) {
        score_normalize(c->title, strlen(c->title), sb);
        strbuf_addch(sb, ' ');
    }
    score_normalize(c->text, c->text_len, sb);
}

struct norm_answers {
    struct strvec v;
};

static void norm_answers_init(struct norm_answers *na, const struct question *q)
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
static int states_answer(const struct norm_answers *na, const char *norm, size_t norm_len)
{
    size_t i;
    for (i = 0; i < na->v.nr; i++)
        if (contains_word_or_sub(norm, norm_len, na->v.v[i]))
            return 1;
    return 0;
}

static int leaks(const struct norm_answers *na, const struct strvec *gold_norms, const char *norm,
                 size_t norm_len)
{
    size_t i;
    if (states_answer(na, norm, norm_len))
        return 1;
    for (i = 0; i < gold_norms->nr; i++)
        if (strlen(gold_norms->v[i]) == norm_len && !memcmp(gold_norms->v[i], norm, norm_len))
            return 1;
    return 0;
}

static void gold_norms_init(struct strvec *gn, const struct question *q)
{
    struct strbuf sb = STRBUF_INIT;
    size_t i;
    strvec_init(gn);
    for (i = 0; i < q->gold_nr; i++) {
        strbuf_reset(&sb);
        chunk_normalize(&sb, &q->gold[i]);
        strvec_push(gn, sb.buf);
    }
    strbuf_release(&sb);
}

int question_leaks_into(const struct question *q, const char *norm, size_t norm_len)
{
    struct norm_answers na;
    struct strvec gn;
    int r;
    norm_answers_init(&na, q);
    gold_norms_init(&gn, q);
    r = leaks(&na, &gn, norm, norm_len);
    strvec_clear(&na.v);
    strvec_clear(&gn);
    return r;
}

static int is_own_chunk(const struct question *q, const char *id)
{
    size_t i;
    for (i = 0; i < q->gold_nr; i++)
        if (!strcmp(q->gold[i].id, id))
            return 1;
    for (i = 0; i < q->distractors_nr; i++)
        if (!strcmp(q->distractors[i].id, id))
            return 1;
    return 0;
}

void haystack_filter(const struct haystack *h, const struct question *q, size_t **idx, size_t *nr,
                     size_t *dropped)
{
    struct norm_answers na;
    struct strvec gn;
    size_t i, n = 0;

    norm_answers_init(&na, q);
    gold_norms_init(&gn, q);
    *idx = xmalloc(st_mult(h->nr ? h->nr : 1, sizeof(**idx)));
    for (i = 0; i < h->nr; i++) {
        const struct chunk *c = &h->c[i];
        if (is_own_chunk(q, c->id) || leaks(&na, &gn, c->norm, c->norm_len))
            continue;
        (*idx)[n++] = i;
    }
    *nr = n;
    *dropped = h->nr - n;
    strvec_clear(&na.v);
    strvec_clear(&gn);
}

/* ---- streaming line reader (gzip or plain: zlib reads both) ---- */

struct line_reader {
    const char *path;
    gzFile gz;
    char *buf;
    size_t len, pos, alloc;
    int eof;
    long lineno;
    struct sha256_ctx sha;
    size_t hashed; /* bytes of content hashed so far: its length at EOF */
};

static int reader_open(struct line_reader *r, const char *path)
{
    memset(r, 0, sizeof(*r));
    r->path = path;
    errno = 0;
    r->gz = gzopen(path, "rb");
    if (!r->gz)
        return error("%s: cannot open: %s", path, errno ? strerror(errno) : "out of memory");
    sha256_init(&r->sha); /* reader_close releases it unless final took it */
    gzbuffer(r->gz, 128 * 1024);
    return 0;
}

/* A reader over text already in memory (a golden set from the store): copied, read as at EOF. */
static void reader_open_mem(struct line_reader *r, const char *name, const char *buf, size_t len)
{
    memset(r, 0, sizeof(*r));
    r->path = name;
    sha256_init(&r->sha);
    sha256_update(&r->sha, buf, len);
    r->hashed = len;
    r->alloc = len + 1;
    r->buf = xmalloc(r->alloc);
    memcpy(r->buf, buf, len);
    r->len = len;
    r->eof = 1;
}

static void reader_close(struct line_reader *r)
{
    if (r->gz)
        gzclose(r->gz);
    free(r->buf);
    sha256_release(&r->sha);
    r->gz = NULL;
    r->buf = NULL;
}

/*
 * Next line into *line and *len (NUL-terminated in place, '\r' stripped).
 * Returns 1, 0 at EOF, -1 after printing an error.
 */
static int reader_next(struct line_reader *r, char **line, size_t *len)
{
    for (;;) {
        char *nl = r->len > r->pos ? memchr(r->buf + r->pos, '\n', r->len - r->pos) : NULL;
        size_t avail = r->len - r->pos;
        if (nl || (r->eof && avail)) {
            size_t n = nl ? (size_t)(nl - (r->buf + r->pos)) : avail;
            r->lineno++;
            if (n > DATASET_LINE_MAX)
                return error("%s:%ld: line is longer than %d bytes", r->path, r->lineno,
                             DATASET_LINE_MAX);
            *line = r->buf + r->pos;
            (*line)[n] = '\0'; /* the '\n' or the spare byte at the end */
            r->pos += n + (nl ? 1 : 0);
            if (n && (*line)[n - 1] == '\r')
                (*line)[--n] = '\0';
            *len = n;
            return 1;
        }
        if (r->eof)
            return 0;
        if (avail > DATASET_LINE_MAX)
            return error("%s:%ld: line is longer than %d bytes", r->path, r->lineno + 1,
                         DATASET_LINE_MAX);
        /* compact, grow, read more */
        if (r->pos) {
            memmove(r->buf, r->buf + r->pos, avail);
            r->len = avail;
            r->pos = 0;
        }
        {
            size_t want = r->len + 256 * 1024 + 1;
            int got;
            if (want > r->alloc) {
                r->alloc = want;
                r->buf = xrealloc(r->buf, r->alloc);
            }
            got = gzread(r->gz, r->buf + r->len, (unsigned)(r->alloc - r->len - 1));
            if (got < 0) {
                int zerr;
                const char *msg = gzerror(r->gz, &zerr);
                return error("%s: read error: %s", r->path,
                             zerr == Z_ERRNO ? strerror(errno) : msg);
            }
            if (got == 0) {
                /* a truncated gzip stream ends "cleanly" with Z_BUF_ERROR set */
                int zerr;
                (void)gzerror(r->gz, &zerr);
                if (zerr == Z_BUF_ERROR)
                    return error("%s: truncated gzip file (unexpected end of file after line %ld)",
                                 r->path, r->lineno);
                r->eof = 1;
            }
            sha256_update(&r->sha, r->buf + r->len, (size_t)got);
            r->hashed += (size_t)got;
            r->len += (size_t)got;
        }
    }
}

struct dataset_lines {
    struct line_reader r;
};

struct dataset_lines *dataset_lines_open(const char *path)
{
    struct dataset_lines *d = xcalloc(1, sizeof(*d));
    if (reader_open(&d->r, path) < 0) {
        free(d);
        return NULL;
    }
    return d;
}

int dataset_lines_next(struct dataset_lines *d, char **line, size_t *len, long *lineno)
{
    int rc = reader_next(&d->r, line, len);
    *lineno = d->r.lineno;
    return rc;
}

void dataset_lines_close(struct dataset_lines *d)
{
    if (!d)
        return;
    reader_close(&d->r);
    free(d);
}

/* ---- JSON field helpers ---- */

struct ctx {
    const char *path;
    long line;
};

static int ferr(const struct ctx *c, const char *fmt, ...) DM_PRINTF(2, 3);
static int ferr(const struct ctx *c, const char *fmt, ...)
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
static int opt_string(const struct ctx *c, const struct json *obj, const char *key,
                      const char *where, char **out)
{
    const struct json *j = json_get(obj, key);
    *out = NULL;
    if (json_kind(j) == JSON_ABSENT || json_kind(j) == JSON_NULL)
        return 0;
    if (!json_str(j))
        return ferr(c, "%s\"%s\" must be a string", where, key);
    *out = xstrdup(json_str(j));
    return 0;
}

/*
 * A field near a known name is a typo ("distractor" for "distractors" dropped
 * the hard negatives; "answer" for "answers"): refused, naming the field and
 * the name meant. Other unknown fields are the user's own metadata, ignored
 * (docs/formats.md "Golden-set format").
 */
static int check_fields(const struct ctx *c, const struct json *obj, const char *where,
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
            return ferr(c, "%.*s%sunknown field \"%s\" (did you mean \"%s\"?)",
                        (int)(wl && where[wl - 1] == '.' ? wl - 1 : wl), where, wl ? ": " : "", key,
                        near);
        }
    }
    return 0;
}

static const char *const question_fields[] = {
    "id", "question", "answers", "gold", "distractors", "scorer", "answer_regex", "retrieved", NULL,
};
/* a "retrieved" item's "doc", "gold" and "score" are far from these: not taken for typos */
static const char *const chunk_fields[] = {"id", "title", "text", "value", NULL};

static void chunk_release(struct chunk *ch)
{
    free(ch->id);
    free(ch->title);
    free(ch->text);
    free(ch->value);
    free(ch->norm);
    memset(ch, 0, sizeof(*ch));
}

/* Parse one chunk object; where = e.g. "\"gold\"[0]." for messages. */
static int parse_chunk(const struct ctx *c, const struct json *j, const char *where,
                       const char *def_id, struct chunk *out)
{
    const struct json *text;
    memset(out, 0, sizeof(*out));
    if (json_kind(j) != JSON_OBJECT)
        return ferr(c, "%s must be an object with a \"text\"", where);
    if (check_fields(c, j, where, chunk_fields) < 0)
        return -1;
    text = json_get(j, "text");
    if (!is_nonempty_string(text))
        return ferr(c, "%s\"text\" must be a non-empty string", where);
    if (opt_string(c, j, "id", where, &out->id) < 0 ||
        opt_string(c, j, "title", where, &out->title) < 0 ||
        opt_string(c, j, "value", where, &out->value) < 0) {
        chunk_release(out);
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

static int parse_chunk_array(const struct ctx *c, const struct json *arr, const char *key,
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
        if (parse_chunk(c, e, where.buf, def.buf, &(*out)[i]) < 0) {
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
        chunk_release(&q->retrieved[i].c);
        free(q->retrieved[i].doc);
    }
    free(q->retrieved);
    free(q->id);
    free(q->question);
    strvec_clear(&q->answers);
    for (i = 0; i < q->gold_nr; i++)
        chunk_release(&q->gold[i]);
    free(q->gold);
    for (i = 0; i < q->distractors_nr; i++)
        chunk_release(&q->distractors[i]);
    free(q->distractors);
    strvec_clear(&q->dropped_negatives);
    free(q->scorer);
    free(q->answer_regex);
    memset(q, 0, sizeof(*q));
}

/* Common per-line checks: UTF-8 and JSON object. Returns the parsed object or NULL. */
static struct json *parse_line(const struct ctx *c, const char *line, size_t len)
{
    size_t bad = utf8_first_invalid(line, len);
    struct json *j;
    if (bad < len) {
        ferr(c, "invalid UTF-8 at byte %zu", bad + 1);
        return NULL;
    }
    if (memchr(line, '\0', len)) {
        ferr(c, "NUL byte in line");
        return NULL;
    }
    j = json_parse_at(line, len, &bad);
    if (!j) {
        ferr(c, "invalid JSON (near byte %zu)", bad + 1);
        return NULL;
    }
    if (json_kind(j) != JSON_OBJECT) {
        json_free(j);
        ferr(c, "must be a JSON object");
        return NULL;
    }
    return j;
}

static int is_blank(const char *s, size_t len)
{
    size_t i;
    for (i = 0; i < len; i++)
        if (s[i] != ' ' && s[i] != '\t')
            return 0;
    return 1;
}

/* ---- duplicate ids and texts (base/hashmap.h over the set's own arrays) ---- */

static uint64_t str_hash(const char *s, size_t n)
{
    return fnv64(FNV64_INIT_DIPMAP, s, n);
}

static int question_id_is(const void *id, size_t entry, const void *set)
{
    return !strcmp(((const struct golden_set *)set)->q[entry].id, id);
}

static int chunk_norm_is(const void *norm, size_t entry, const void *hay)
{
    return !strcmp(((const struct haystack *)hay)->c[entry].norm, norm);
}

/* ---- golden sets ---- */

/*
 * A gold answer that normalises to "" ("A", "the", "*") would be credited
 * for any answer by a substring scorer: refused unless the question chose a
 * scorer that compares it as it is (exact, regex).
 */
static int check_empty_golds(const struct ctx *c, const struct question *q)
{
    size_t i;
    if (q->scorer ? !strcmp(q->scorer, "exact") || !strcmp(q->scorer, "regex") : !!q->answer_regex)
        return 0;
    for (i = 0; i < q->answers.nr; i++)
        if (score_gold_is_empty(q->answers.v[i]))
            return ferr(c,
                        "\"answers\"[%zu]: \"%s\" is empty once normalised (articles and "
                        "punctuation are removed), so it would match any answer; give the "
                        "question \"scorer\": \"exact\" or an \"answer_regex\"",
                        i, q->answers.v[i]);
    return 0;
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
        chunk_normalize(&sb, d);
        if (question_leaks_into(q, sb.buf, sb.len)) {
            strvec_push(&q->dropped_negatives, d->id);
            chunk_release(d);
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
static int parse_retrieved_extra(const struct ctx *c, const struct json *e, size_t i,
                                 struct retrieved_chunk *rc, int *flagged)
{
    const struct json *f = json_get(e, "score");
    struct strbuf where = STRBUF_INIT;
    int rcode = 0;
    strbuf_addf(&where, "\"retrieved\"[%zu].", i);
    rc->score = NAN;
    if (json_kind(f) != JSON_ABSENT && json_kind(f) != JSON_NULL) {
        if (json_kind(f) != JSON_NUMBER || !isfinite(json_num(f, 0)))
            rcode = ferr(c, "%s\"score\" must be a number", where.buf);
        else
            rc->score = json_num(f, 0);
    }
    if (!rcode)
        rcode = opt_string(c, e, "doc", where.buf, &rc->doc);
    f = json_get(e, "gold");
    if (!rcode && json_kind(f) != JSON_ABSENT && json_kind(f) != JSON_NULL) {
        if (json_kind(f) != JSON_BOOL)
            rcode = ferr(c, "%s\"gold\" must be true or false", where.buf);
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

static int assign_source_order(const struct ctx *c, struct question *q)
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
            rc = ferr(c, "\"retrieved\"[%zu].\"id\": \"%s\" is also \"retrieved\"[%zu]'s id", b,
                      q->retrieved[ix[i]].c.id, a);
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
static int parse_retrieved(const struct ctx *c, const struct json *arr, struct question *q)
{
    struct chunk *chunks = NULL;
    size_t n = 0, i, g = 0, d = 0;
    const struct json *e;
    int flagged = 0;
    struct norm_answers na;
    struct strbuf sb = STRBUF_INIT;

    if (json_kind(arr) != JSON_ARRAY || !json_size(arr))
        return ferr(c, "\"retrieved\" must be a non-empty array of chunks, best first");
    if (parse_chunk_array(c, arr, "retrieved", q->id, "r", &chunks, &n) < 0) {
        for (i = 0; i < n; i++)
            chunk_release(&chunks[i]);
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
            return ferr(c,
                        "\"retrieved\"[%zu].\"score\" %g is above \"retrieved\"[%zu]'s %g: list "
                        "the chunks best first",
                        i, rc->score, i - 1, q->retrieved[i - 1].score);
        i++;
    }
    if (assign_source_order(c, q) < 0)
        return -1;
    if (!flagged) {
        norm_answers_init(&na, q);
        for (i = 0; i < n; i++) {
            strbuf_reset(&sb);
            chunk_normalize(&sb, &q->retrieved[i].c);
            q->retrieved[i].gold = states_answer(&na, sb.buf, sb.len);
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

static int parse_question(const struct ctx *c, const struct json *j, struct question *q)
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
            return ferr(c, "\"id\" must be a non-empty string");
        q->id = xstrdup(json_str(f));
    }
    f = json_get(j, "question");
    if (!is_nonempty_string(f))
        return ferr(c, "\"question\" must be a non-empty string");
    q->question = xstrdup(json_str(f));
    f = json_get(j, "answers");
    if (json_kind(f) != JSON_ARRAY || !json_size(f))
        return ferr(c, "\"answers\" must be a non-empty array of strings");
    for (e = json_first(f); e; e = json_next(e)) {
        if (!is_nonempty_string(e))
            return ferr(c, "\"answers\" must be a non-empty array of strings");
        strvec_push(&q->answers, json_str(e));
    }
    if (retrieved) {
        if (json_get(j, "gold") || json_get(j, "distractors"))
            return ferr(c, "a retrieval item (\"retrieved\") has no \"gold\" or \"distractors\": "
                           "flag its gold chunks in \"retrieved\" with \"gold\": true");
        if (parse_retrieved(c, retrieved, q) < 0)
            return -1;
    }
    f = json_get(j, "gold");
    if (!retrieved && (json_kind(f) != JSON_ARRAY || !json_size(f)))
        return ferr(c, "\"gold\" must be a non-empty array of chunks");
    if (!retrieved && parse_chunk_array(c, f, "gold", q->id, "gold", &q->gold, &q->gold_nr) < 0)
        return -1;
    f = json_get(j, "distractors");
    if (!retrieved && json_kind(f) != JSON_ABSENT && json_kind(f) != JSON_NULL) {
        if (json_kind(f) != JSON_ARRAY)
            return ferr(c, "\"distractors\" must be an array of chunks");
        if (parse_chunk_array(c, f, "distractors", q->id, "neg", &q->distractors,
                              &q->distractors_nr) < 0)
            return -1;
    }
    if (opt_string(c, j, "scorer", "", &q->scorer) < 0 ||
        opt_string(c, j, "answer_regex", "", &q->answer_regex) < 0)
        return -1;
    if (check_empty_golds(c, q) < 0)
        return -1;
    drop_leaking_negatives(q);
    return 0;
}

static int golden_set_read(struct golden_set *gs, struct line_reader *r, const char *path);

int dataset_resolve(const char *spec, struct strbuf *out)
{
    static const char *const suffixes[] = {"", ".jsonl", ".jsonl.gz"};
    struct strbuf rel = STRBUF_INIT;
    size_t i, base = out->len;

    if (!strchr(spec, '/') && *spec && access(spec, F_OK)) {
        for (i = 0; i < sizeof(suffixes) / sizeof(*suffixes); i++) {
            strbuf_reset(&rel);
            strbuf_addf(&rel, "datasets/%s%s", spec, suffixes[i]);
            if (!datadir_find(rel.buf, out, NULL)) {
                strbuf_release(&rel);
                return 0;
            }
        }
    }
    strbuf_release(&rel);
    strbuf_setlen(out, base);
    strbuf_addstr(out, spec);
    return 0;
}

int golden_set_load(struct golden_set *gs, const char *spec)
{
    struct line_reader r;
    struct strbuf path = STRBUF_INIT;
    dataset_resolve(spec, &path);
    memset(gs, 0, sizeof(*gs));
    gs->path = strbuf_detach(&path, NULL);
    if (reader_open(&r, gs->path) < 0) {
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
    reader_open_mem(&r, name, buf, len);
    return golden_set_read(gs, &r, name);
}

int dataset_text_each(const char *spec, dataset_block_fn fn, void *data,
                      char sha256[SHA256_HEX_LEN + 1], size_t *size)
{
    struct sha256_ctx sha;
    struct strbuf resolved = STRBUF_INIT;
    const char *path;
    gzFile gz;
    char buf[64 * 1024];
    int got, r = 0;
    dataset_resolve(spec, &resolved);
    path = resolved.buf;
    *size = 0;
    errno = 0;
    gz = gzopen(path, "rb");
    if (!gz) {
        error("%s: cannot open: %s", path, errno ? strerror(errno) : "out of memory");
        strbuf_release(&resolved);
        return -1;
    }
    sha256_init(&sha);
    while (!r && (got = gzread(gz, buf, sizeof(buf))) > 0) {
        sha256_update(&sha, buf, (size_t)got);
        *size += (size_t)got;
        r = fn(buf, (size_t)got, data);
    }
    if (!r && got < 0) {
        int zerr;
        const char *msg = gzerror(gz, &zerr);
        error("%s: read error: %s", path, zerr == Z_ERRNO ? strerror(errno) : msg);
        r = -1;
    }
    gzclose(gz);
    strbuf_release(&resolved);
    if (r) {
        sha256_release(&sha);
        return r;
    }
    sha256_final_hex(&sha, sha256);
    return 0;
}

static int add_block(const void *block, size_t len, void *data)
{
    strbuf_add(data, block, len);
    return 0;
}

int dataset_read_text(const char *spec, struct strbuf *out, char sha256[SHA256_HEX_LEN + 1])
{
    size_t size;
    strbuf_reset(out);
    return dataset_text_each(spec, add_block, out, sha256, &size);
}

/* Closes r (opened by the caller) whatever happens. */
static int golden_set_read(struct golden_set *gs, struct line_reader *r, const char *path)
{
    size_t alloc = 0;
    char *line;
    size_t len;
    int rc, ret = -1;

    while ((rc = reader_next(r, &line, &len)) > 0) {
        struct ctx c = {path, r->lineno};
        struct question *q;
        struct json *j;
        size_t prev;
        if (is_blank(line, len))
            continue;
        j = parse_line(&c, line, len);
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
        prev = hashmap_put(&gs->ids, str_hash(q->id, strlen(q->id)), q->id, gs->nr - 1,
                           question_id_is, gs);
        if (prev != HASHMAP_NONE) {
            ferr(&c, "\"id\": duplicate question id \"%s\" (first on line %ld)", q->id,
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
    reader_close(r);
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

int golden_set_require_gold(const struct golden_set *gs)
{
    size_t i;
    for (i = 0; i < gs->nr; i++)
        if (!gs->q[i].gold_nr)
            return error("%s:%ld: no gold chunk among \"retrieved\" (none flagged \"gold\": true, "
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
        i = hashmap_find(&gs->ids, str_hash(id, strlen(id)), id, question_id_is, gs);
        return i == HASHMAP_NONE ? NULL : &gs->q[i];
    }
    for (i = 0; i < gs->nr; i++)
        if (!strcmp(gs->q[i].id, id))
            return &gs->q[i];
    return NULL;
}

/* ---- haystacks ---- */

struct hay_builder {
    struct haystack *h;
    size_t alloc;
    struct hashmap seen; /* normalised text -> index */
};

/* Takes ownership of ch's strings. */
static void hay_add(struct hay_builder *hb, struct chunk *ch)
{
    struct strbuf sb = STRBUF_INIT;
    struct haystack *h = hb->h;
    chunk_normalize(&sb, ch);
    ch->norm_len = sb.len;
    ch->norm = strbuf_detach(&sb, NULL);
    ALLOC_GROW(h->c, h->nr + 1, hb->alloc);
    h->c[h->nr] = *ch;
    if (hashmap_put(&hb->seen, str_hash(ch->norm, ch->norm_len), ch->norm, h->nr, chunk_norm_is,
                    h) != HASHMAP_NONE) {
        chunk_release(&h->c[h->nr]);
        h->dropped_duplicates++;
        return;
    }
    h->nr++;
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

void haystack_paragraph_pieces(const char *s, size_t n,
                               void (*emit)(void *arg, const char *text, size_t len, size_t piece,
                                            int whole),
                               void *arg)
{
    const char *end = s + n, *p;
    size_t words = 0, piece = 0;
    int in = 0;
    for (p = s; p < end; p++) {
        int sp = *p == ' ' || *p == '\n' || *p == '\t';
        if (!sp && !in)
            words++;
        in = !sp;
    }
    while (s < end) {
        const char *cut = end, *e;
        if (words > 300) {
            size_t w = 0;
            in = 0;
            for (p = s; p < end; p++) {
                int sp = *p == ' ' || *p == '\n' || *p == '\t';
                if (!sp && !in && ++w > 200) {
                    cut = p;
                    break;
                }
                in = !sp;
            }
            words = words > 200 ? words - 200 : 0;
        }
        e = cut;
        while (e > s && (e[-1] == ' ' || e[-1] == '\n' || e[-1] == '\t'))
            e--;
        emit(arg, s, (size_t)(e - s), piece, !piece && cut == end);
        piece++;
        s = cut;
        while (s < end && (*s == ' ' || *s == '\n' || *s == '\t'))
            s++;
    }
}

struct para_ctx {
    struct hay_builder *hb;
    const char *path;
    long line;
};

static void hay_add_piece(void *arg, const char *text, size_t len, size_t piece, int whole)
{
    struct para_ctx *pc = arg;
    struct chunk ch;
    struct strbuf id = STRBUF_INIT;
    memset(&ch, 0, sizeof(ch));
    strbuf_addf(&id, "%s:%ld", base_name(pc->path), pc->line);
    if (!whole)
        strbuf_addf(&id, ".%zu", piece);
    ch.id = strbuf_detach(&id, NULL);
    ch.title = xstrdup("");
    ch.text = xmemdup(text, len);
    ch.text_len = len;
    hay_add(pc->hb, &ch);
}

/* One paragraph of a text haystack: its pieces (haystack_paragraph_pieces), ids FILE:LINE[.N]. */
static void hay_add_paragraph(struct hay_builder *hb, const char *path, long line,
                              const struct strbuf *para)
{
    struct para_ctx pc = {hb, path, line};
    haystack_paragraph_pieces(para->buf, para->len, hay_add_piece, &pc);
}

int haystack_load(struct haystack *h, const char *spec)
{
    struct line_reader r;
    struct hay_builder hb;
    struct strbuf resolved = STRBUF_INIT;
    const char *path;
    int txt;
    struct strbuf para = STRBUF_INIT, def = STRBUF_INIT;
    long para_line = 0;
    char *line;
    size_t len;
    int rc, ret = -1;

    memset(h, 0, sizeof(*h));
    memset(&hb, 0, sizeof(hb));
    hb.h = h;
    dataset_resolve(spec, &resolved);
    h->path = strbuf_detach(&resolved, NULL);
    path = h->path;
    txt = ends_with(path, ".txt") || ends_with(path, ".txt.gz");
    if (reader_open(&r, path) < 0) {
        haystack_release(h);
        return -1;
    }
    while ((rc = reader_next(&r, &line, &len)) > 0) {
        struct ctx c = {path, r.lineno};
        if (txt) {
            size_t bad = utf8_first_invalid(line, len);
            if (bad < len) {
                ferr(&c, "invalid UTF-8 at byte %zu", bad + 1);
                goto cleanup;
            }
            if (memchr(line, '\0', len)) { /* chunk texts are C strings */
                ferr(&c, "NUL byte in line");
                goto cleanup;
            }
            if (is_blank(line, len)) {
                if (para.len)
                    hay_add_paragraph(&hb, path, para_line, &para);
                strbuf_reset(&para);
                continue;
            }
            if (!para.len)
                para_line = r.lineno;
            else
                strbuf_addch(&para, ' ');
            strbuf_add(&para, line, len);
        } else {
            struct json *j;
            struct chunk ch;
            if (is_blank(line, len))
                continue;
            j = parse_line(&c, line, len);
            if (!j)
                goto cleanup;
            strbuf_reset(&def);
            strbuf_addf(&def, "%s:%ld", base_name(path), r.lineno);
            if (parse_chunk(&c, j, "", def.buf, &ch) < 0) {
                json_free(j);
                goto cleanup;
            }
            json_free(j);
            hay_add(&hb, &ch);
        }
    }
    if (rc < 0)
        goto cleanup;
    if (txt && para.len)
        hay_add_paragraph(&hb, path, para_line, &para);
    if (!h->nr) {
        error("%s: no chunks in the haystack", path);
        goto cleanup;
    }
    sha256_final_hex(&r.sha, h->sha256);
    ret = 0;
cleanup:
    reader_close(&r);
    hashmap_clear(&hb.seen);
    strbuf_release(&para);
    strbuf_release(&def);
    if (ret < 0)
        haystack_release(h);
    return ret;
}

void haystack_release(struct haystack *h)
{
    size_t i;
    for (i = 0; i < h->nr; i++)
        chunk_release(&h->c[i]);
    free(h->c);
    free(h->path);
    memset(h, 0, sizeof(*h));
}

/* ---- writing ---- */

static void chunk_obj(struct strbuf *out, const struct chunk *c)
{
    strbuf_addstr(out, "{\"id\": ");
    escape_json(out, c->id);
    strbuf_addstr(out, ", \"title\": ");
    escape_json(out, c->title ? c->title : "");
    strbuf_addstr(out, ", \"text\": ");
    escape_json(out, c->text);
    if (c->value) {
        strbuf_addstr(out, ", \"value\": ");
        escape_json(out, c->value);
    }
    strbuf_addch(out, '}');
}

void chunk_to_jsonl(struct strbuf *out, const struct chunk *c)
{
    chunk_obj(out, c);
    strbuf_addch(out, '\n');
}

void question_to_jsonl(struct strbuf *out, const struct question *q)
{
    size_t i;
    strbuf_addstr(out, "{\"id\": ");
    escape_json(out, q->id);
    strbuf_addstr(out, ", \"question\": ");
    escape_json(out, q->question);
    strbuf_addstr(out, ", \"answers\": [");
    for (i = 0; i < q->answers.nr; i++) {
        if (i)
            strbuf_addstr(out, ", ");
        escape_json(out, q->answers.v[i]);
    }
    if (q->retrieved_nr) {
        /* a retrieval item: its ranked list, the gold flagged (as found or as given) */
        strbuf_addstr(out, "], \"retrieved\": [");
        for (i = 0; i < q->retrieved_nr; i++) {
            const struct retrieved_chunk *rc = &q->retrieved[i];
            if (i)
                strbuf_addstr(out, ", ");
            chunk_obj(out, &rc->c);
            strbuf_setlen(out, out->len - 1); /* reopen the object */
            if (!isnan(rc->score))
                strbuf_addf(out, ", \"score\": %.17g", rc->score);
            if (rc->doc) {
                strbuf_addstr(out, ", \"doc\": ");
                escape_json(out, rc->doc);
            }
            if (rc->gold)
                strbuf_addstr(out, ", \"gold\": true");
            strbuf_addch(out, '}');
        }
        strbuf_addch(out, ']');
        goto overrides;
    }
    strbuf_addstr(out, "], \"gold\": [");
    for (i = 0; i < q->gold_nr; i++) {
        if (i)
            strbuf_addstr(out, ", ");
        chunk_obj(out, &q->gold[i]);
    }
    strbuf_addch(out, ']');
    if (q->distractors_nr) {
        strbuf_addstr(out, ", \"distractors\": [");
        for (i = 0; i < q->distractors_nr; i++) {
            if (i)
                strbuf_addstr(out, ", ");
            chunk_obj(out, &q->distractors[i]);
        }
        strbuf_addch(out, ']');
    }
overrides:
    if (q->scorer) {
        strbuf_addstr(out, ", \"scorer\": ");
        escape_json(out, q->scorer);
    }
    if (q->answer_regex) {
        strbuf_addstr(out, ", \"answer_regex\": ");
        escape_json(out, q->answer_regex);
    }
    strbuf_addstr(out, "}\n");
}

struct dataset_writer {
    char *path;
    char *tmp; /* written here and renamed to path on a clean close; NULL: path itself */
    gzFile gz;
};

struct dataset_writer *dataset_writer_open(const char *path)
{
    struct dataset_writer *w;
    struct stat sb;
    gzFile gz;
    char *tmp = NULL;
    int gzip = ends_with(path, ".gz");
    errno = 0;
    if (!strcmp(path, "-")) {
        int fd = dup(1);
        gz = fd < 0 ? NULL : gzdopen(fd, "wT");
    } else {
        /* a regular file appears only when complete: a failed command leaves no partial file */
        if (stat(path, &sb) != 0 || S_ISREG(sb.st_mode)) {
            struct strbuf t = STRBUF_INIT;
            strbuf_addf(&t, "%s.tmp%ld", path, (long)getpid());
            tmp = strbuf_detach(&t, NULL);
        }
        gz = gzopen(tmp ? tmp : path, gzip ? "wb9" : "wbT");
    }
    if (!gz) {
        error("%s: cannot open for writing: %s", path, errno ? strerror(errno) : "out of memory");
        free(tmp);
        return NULL;
    }
    w = xcalloc(1, sizeof(*w));
    w->path = xstrdup(path);
    w->tmp = tmp;
    w->gz = gz;
    return w;
}

int dataset_writer_write(struct dataset_writer *w, const char *buf, size_t len)
{
    while (len) {
        unsigned n = len > (1u << 30) ? (1u << 30) : (unsigned)len;
        int got = gzwrite(w->gz, buf, n);
        if (got <= 0) {
            int zerr;
            const char *msg = gzerror(w->gz, &zerr);
            return error("%s: write error: %s", w->path, zerr == Z_ERRNO ? strerror(errno) : msg);
        }
        buf += got;
        len -= (size_t)got;
    }
    return 0;
}

static int writer_finish(struct dataset_writer *w, int keep)
{
    int rc = 0, z;
    if (!w)
        return 0;
    z = gzclose(w->gz);
    if (z != Z_OK && keep)
        rc = error("%s: write error on close (%s)", w->path,
                   z == Z_ERRNO ? strerror(errno) : "zlib error");
    if (w->tmp) {
        if (!rc && keep && rename(w->tmp, w->path) != 0)
            rc = error("%s: cannot rename %s to it: %s", w->path, w->tmp, strerror(errno));
        if (rc || !keep)
            unlink(w->tmp);
    }
    free(w->path);
    free(w->tmp);
    free(w);
    return rc;
}

int dataset_writer_close(struct dataset_writer *w)
{
    return writer_finish(w, 1);
}

void dataset_writer_abort(struct dataset_writer *w)
{
    writer_finish(w, 0);
}

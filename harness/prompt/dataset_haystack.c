/*
 * Haystacks: JSONL chunks or paragraph-split plain text loaded with file:line errors, exact
 * duplicates kept once, and the filler a question may use (no chunk that states its answer).
 * Owns every string of a loaded haystack.
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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/sha256.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/usage.h"
#include "base/xalloc.h"
#include "base/hashmap.h"

#include "base/banned.h"

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

    dataset_norm_answers_init(&na, q);
    dataset_gold_norms_init(&gn, q);
    *idx = xmalloc(st_mult(h->nr ? h->nr : 1, sizeof(**idx)));
    for (i = 0; i < h->nr; i++) {
        const struct chunk *c = &h->c[i];
        if (is_own_chunk(q, c->id) || dataset_leaks(&na, &gn, c->norm, c->norm_len))
            continue;
        (*idx)[n++] = i;
    }
    *nr = n;
    *dropped = h->nr - n;
    strvec_clear(&na.v);
    strvec_clear(&gn);
}

/* ---- haystacks ---- */

static int chunk_norm_is(const void *norm, size_t entry, const void *hay)
{
    return !strcmp(((const struct haystack *)hay)->c[entry].norm, norm);
}

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
    dataset_chunk_normalize(&sb, ch);
    ch->norm_len = sb.len;
    ch->norm = strbuf_detach(&sb, NULL);
    ALLOC_GROW(h->c, h->nr + 1, hb->alloc);
    h->c[h->nr] = *ch;
    if (hashmap_put(&hb->seen, dataset_str_hash(ch->norm, ch->norm_len), ch->norm, h->nr,
                    chunk_norm_is, h) != HASHMAP_NONE) {
        dataset_chunk_release(&h->c[h->nr]);
        h->dropped_duplicates++;
        return;
    }
    h->nr++;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* A piece longer than this (bytes) is cut again at sentence ends, about every PIECE_AIM. */
#define PIECE_MAX 3000
#define PIECE_AIM 1500

static int is_space(char c)
{
    return c == ' ' || c == '\n' || c == '\t';
}

/*
 * The bytes of the sentence end at p, or 0: ".", "!" or "?" before a space or the end, or
 * the full stops of scripts written without spaces (Chinese and Japanese 。！？｡, the
 * ellipsis, Arabic ؟, Devanagari । ॥).
 */
static size_t sentence_end_at(const char *p, const char *end)
{
    static const char *const marks[] = {
        "\xe3\x80\x82", "\xef\xbc\x81", "\xef\xbc\x9f", "\xef\xbd\xa1",
        "\xe2\x80\xa6", "\xd8\x9f",     "\xe0\xa5\xa4", "\xe0\xa5\xa5",
    };
    if ((*p == '.' || *p == '!' || *p == '?') && (p + 1 == end || is_space(p[1])))
        return 1;
    for (size_t i = 0; i < sizeof(marks) / sizeof(*marks); i++) {
        size_t m = strlen(marks[i]);
        if ((size_t)(end - p) >= m && !memcmp(p, marks[i], m))
            return m;
    }
    return 0;
}

/*
 * Where the next piece of s[0..n) ends: all of it up to PIECE_MAX bytes; else after the
 * sentences that fit PIECE_AIM (at least one); a first sentence over PIECE_MAX is cut near
 * PIECE_AIM at a space, or else at a UTF-8 character boundary.
 */
static size_t next_cut(const char *s, size_t n)
{
    size_t last = 0, i = 0;
    if (n <= PIECE_MAX)
        return n;
    while (i < n) {
        size_t m = sentence_end_at(s + i, s + n);
        if (!m) {
            i++;
            continue;
        }
        if (last && i + m > PIECE_AIM)
            break;
        last = i += m;
    }
    if (!last || last > PIECE_MAX) {
        last = PIECE_AIM;
        while (last > 1 && ((unsigned char)s[last] & 0xC0) == 0x80)
            last--;
        for (size_t k = last; k > PIECE_AIM / 2; k--)
            if (is_space(s[k])) {
                last = k;
                break;
            }
    }
    return last;
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
        int sp = is_space(*p);
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
                int sp = is_space(*p);
                if (!sp && !in && ++w > 200) {
                    cut = p;
                    break;
                }
                in = !sp;
            }
            words = words > 200 ? words - 200 : 0;
        }
        /* a long run without spaces (Chinese, Japanese) is cut again at its sentence ends */
        for (const char *q = s; q < cut;) {
            size_t c = next_cut(q, (size_t)(cut - q));
            e = q + c;
            while (e > q && is_space(e[-1]))
                e--;
            emit(arg, q, (size_t)(e - q), piece, !piece && cut == end && q + c == cut);
            piece++;
            q += c;
            while (q < cut && is_space(*q))
                q++;
        }
        s = cut;
        while (s < end && is_space(*s))
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
    txt = dataset_ends_with(path, ".txt") || dataset_ends_with(path, ".txt.gz");
    if (dataset_reader_open(&r, path) < 0) {
        haystack_release(h);
        return -1;
    }
    while ((rc = dataset_reader_next(&r, &line, &len)) > 0) {
        struct dataset_pos c = {path, r.lineno};
        if (txt) {
            size_t bad = dataset_utf8_first_invalid(line, len);
            if (bad < len) {
                dataset_ferr(&c, "invalid UTF-8 at byte %zu", bad + 1);
                goto cleanup;
            }
            if (memchr(line, '\0', len)) { /* chunk texts are C strings */
                dataset_ferr(&c, "NUL byte in line");
                goto cleanup;
            }
            if (dataset_is_blank(line, len)) {
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
            if (dataset_is_blank(line, len))
                continue;
            j = dataset_parse_line(&c, line, len);
            if (!j)
                goto cleanup;
            strbuf_reset(&def);
            strbuf_addf(&def, "%s:%ld", base_name(path), r.lineno);
            if (dataset_parse_chunk(&c, j, "", def.buf, &ch) < 0) {
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
    dataset_reader_close(&r);
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
        dataset_chunk_release(&h->c[i]);
    free(h->c);
    free(h->path);
    memset(h, 0, sizeof(*h));
}

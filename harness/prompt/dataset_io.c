/*
 * Dataset files read and written: the streaming line reader (plain or gzip) behind the
 * loaders and the importers, the data-search-order resolution of a --dataset value, a
 * file's whole content with its sha256, the JSONL writers of import/gen and the output
 * file that is renamed into place only when complete.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "base/datadir.h"
#include "base/escape.h"
#include "base/sha256.h"
#include "base/strbuf.h"
#include "base/usage.h"
#include "base/xalloc.h"

#include "base/banned.h"

int dataset_ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

/* ---- streaming line reader (gzip or plain: zlib reads both) ---- */

int dataset_reader_open(struct line_reader *r, const char *path)
{
    memset(r, 0, sizeof(*r));
    r->path = path;
    errno = 0;
    r->gz = gzopen(path, "rb");
    if (!r->gz)
        return error("%s: cannot open: %s", path, errno ? strerror(errno) : "out of memory");
    sha256_init(&r->sha); /* dataset_reader_close releases it unless final took it */
    gzbuffer(r->gz, 128 * 1024);
    return 0;
}

/* A reader over text already in memory (a golden set from the store): copied, read as at EOF. */
void dataset_reader_open_mem(struct line_reader *r, const char *name, const char *buf, size_t len)
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

void dataset_reader_close(struct line_reader *r)
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
int dataset_reader_next(struct line_reader *r, char **line, size_t *len)
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
    if (dataset_reader_open(&d->r, path) < 0) {
        free(d);
        return NULL;
    }
    return d;
}

int dataset_lines_next(struct dataset_lines *d, char **line, size_t *len, long *lineno)
{
    int rc = dataset_reader_next(&d->r, line, len);
    *lineno = d->r.lineno;
    return rc;
}

void dataset_lines_close(struct dataset_lines *d)
{
    if (!d)
        return;
    dataset_reader_close(&d->r);
    free(d);
}

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
    if (q->answer_outside_gold)
        strbuf_addstr(out, ", \"answer_outside_gold\": true");
    strbuf_addstr(out, "}\n");
}

struct dataset_writer {
    char *path;
    char *tmp; /* written here and renamed to path on a clean close; NULL: path itself */
    gzFile gz;
    struct strbuf *err; /* the caller's: where write and close put their message */
};

struct dataset_writer *dataset_writer_open(const char *path, struct strbuf *err)
{
    struct dataset_writer *w;
    struct stat sb;
    gzFile gz;
    char *tmp = NULL;
    int gzip = dataset_ends_with(path, ".gz");
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
        error_to(err, "%s: cannot open for writing: %s", path,
                 errno ? strerror(errno) : "out of memory");
        free(tmp);
        return NULL;
    }
    w = xcalloc(1, sizeof(*w));
    w->path = xstrdup(path);
    w->tmp = tmp;
    w->gz = gz;
    w->err = err;
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
            return error_to(w->err, "%s: write error: %s", w->path,
                            zerr == Z_ERRNO ? strerror(errno) : msg);
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
        rc = error_to(w->err, "%s: write error on close (%s)", w->path,
                      z == Z_ERRNO ? strerror(errno) : "zlib error");
    if (w->tmp) {
        if (!rc && keep && rename(w->tmp, w->path) != 0)
            rc = error_to(w->err, "%s: cannot rename %s to it: %s", w->path, w->tmp,
                          strerror(errno));
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

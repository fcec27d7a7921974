#ifndef DATASET_INT_H
#define DATASET_INT_H
/*
 * Private to the dataset files (dataset.c: golden sets and the answer rules; dataset_io.c:
 * reading, resolving and writing files; dataset_haystack.c: haystacks): the line reader, the
 * file:line position of messages, the chunk parser and the answer normalisation they share.
 */
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "prompt/dataset.h"
#include "base/sha256.h"
#include "base/strvec.h"
#include "base/usage.h"

struct json;
struct strbuf;

/* ---- dataset_io.c: the streaming line reader (gzip or plain: zlib reads both) ---- */

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

/* 1 when s ends with suf. */
int dataset_ends_with(const char *s, const char *suf);

/* Open path; -1 after printing "PATH: cannot open: ...". */
int dataset_reader_open(struct line_reader *r, const char *path);
/* A reader over text already in memory (a golden set from the store): copied, read as at EOF. */
void dataset_reader_open_mem(struct line_reader *r, const char *name, const char *buf, size_t len);
void dataset_reader_close(struct line_reader *r);
/*
 * Next line into *line and *len (NUL-terminated in place, '\r' stripped).
 * Returns 1, 0 at EOF, -1 after printing an error.
 */
int dataset_reader_next(struct line_reader *r, char **line, size_t *len);

/* ---- dataset.c: messages, lines, chunks ---- */

/* Where a message points: the file and its 1-based line. */
struct dataset_pos {
    const char *path;
    long line;
};

/* Prints "error: PATH:LINE: MESSAGE"; returns -1. */
int dataset_ferr(const struct dataset_pos *c, const char *fmt, ...) DM_PRINTF(2, 3);
/* Byte offset of the first invalid UTF-8 sequence, or len. */
size_t dataset_utf8_first_invalid(const char *s, size_t len);
/* 1 when the line has only spaces and tabs. */
int dataset_is_blank(const char *s, size_t len);
/* The line's UTF-8 and JSON-object checks: the parsed object, or NULL after printing. */
struct json *dataset_parse_line(const struct dataset_pos *c, const char *line, size_t len);
/* Parse one chunk object; where = e.g. "\"gold\"[0]." for messages; def_id when it has no id. */
int dataset_parse_chunk(const struct dataset_pos *c, const struct json *j, const char *where,
                        const char *def_id, struct chunk *out);
void dataset_chunk_release(struct chunk *ch);
/* The string hash of the id and text tables. */
uint64_t dataset_str_hash(const char *s, size_t n);

/* ---- dataset.c: answers as the scorer's normaliser sees them ---- */

struct norm_answers {
    struct strvec v;
};

/* The model sees a chunk's title and text: "title text" normalised, appended to sb. */
void dataset_chunk_normalize(struct strbuf *sb, const struct chunk *c);
/* q's answers normalised (those that normalise to "" left out); strvec_clear(&na->v) frees. */
void dataset_norm_answers_init(struct norm_answers *na, const struct question *q);
/* q's gold chunks normalised, one string each; strvec_clear frees. */
void dataset_gold_norms_init(struct strvec *gn, const struct question *q);
/* 1 when a normalised "title text" states one of the answers (short ones as whole words). */
int dataset_states_answer(const struct norm_answers *na, const char *norm, size_t norm_len);
/* 1 when norm states an answer or equals a gold chunk (question_leaks_into()'s rule). */
int dataset_leaks(const struct norm_answers *na, const struct strvec *gold_norms, const char *norm,
                  size_t norm_len);

#endif

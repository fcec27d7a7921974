#ifndef DATASET_H
#define DATASET_H

#include <stddef.h>

#include "base/hashmap.h"
#include "base/sha256.h"
#include "base/strvec.h"

struct strbuf;

/*
 * Golden sets and haystacks (docs/design.md "Inputs"): loading with
 * validation, chunk hygiene (duplicates, answer leaks) and the normalisation
 * used for it. Files are JSONL, optionally gzip-compressed (detected from the
 * content, not the name); a haystack may also be plain text (.txt or .txt.gz),
 * split into paragraph chunks at blank lines.
 *
 * Errors: loaders print one message with error() naming file, line and field,
 * e.g. `error: datasets/x.jsonl:17: "answers" must be a non-empty array of strings`,
 * and return -1; the command then exits DM_EXIT_USAGE (2). They never exit.
 * (dataset.c says why they still print; the writer returns its message in err.)
 */

/* A JSONL line longer than this (bytes, without the newline) is an input error. */
#define DATASET_LINE_MAX (1024 * 1024)

/*
 * One chunk of text: a gold passage, a question's hard negative, or haystack
 * filler. All strings are owned by the containing set/haystack. title is ""
 * when absent (never NULL); id is never NULL (generated "<qid>/gold/N",
 * "<qid>/neg/N" or "<file>:<line>" when absent).
 */
struct chunk {
    char *id;
    char *title;
    char *text;
    size_t text_len;
    /*
     * Optional (NULL when absent): for a hard negative, the (wrong) answer the
     * chunk states, e.g. the other value in a needle/kv set. The simulated
     * model answers with it when it "attends" to this chunk.
     */
    char *value;
    /* "title text" normalised by the scorer's score_normalize(), so a leak the scorer
     * would credit is caught; haystack chunks only, else NULL. */
    char *norm;
    size_t norm_len;
};

/*
 * One chunk of a retrieval item's ranked list ("retrieved"), in rank order.
 * The chunk's id defaults to "<qid>/r/<i>".
 */
struct retrieved_chunk {
    struct chunk c;
    double score; /* the retriever's score; NAN when absent */
    char *doc;    /* the document it was cut from; NULL when absent (its own document) */
    int gold;     /* flagged "gold": true, or, when the item flags none, it states an answer */
    long source;  /* position in source order: the list's ids sorted by strverscmp() */
};

struct question {
    char *id;
    char *question;
    struct strvec answers; /* >= 1 non-empty strings */
    struct chunk *gold;    /* >= 1 for a golden-set line; a retrieval item's gold chunks (copies,
                              rank order), 0 when its retriever missed them */
    size_t gold_nr;
    /*
     * A retrieval item's ranked list (rank 1 first), NULL/0 for a golden-set
     * line; gold_rank is the rank of its best gold chunk, 0 when none was
     * retrieved. Its non-gold chunks are also its distractors (hard negatives).
     */
    struct retrieved_chunk *retrieved;
    size_t retrieved_nr;
    size_t gold_rank;
    struct chunk *distractors; /* question-specific hard negatives; may be 0 */
    size_t distractors_nr;
    /* ids of hard negatives excluded at load because they state a gold answer */
    struct strvec dropped_negatives;
    char *scorer;       /* optional override, NULL when absent */
    char *answer_regex; /* optional override, NULL when absent */
    /* "answer_outside_gold": true: the gold implies the answer without stating it */
    int answer_outside_gold;
    long line; /* 1-based line in the file */
};

struct golden_set {
    char *path;
    struct question *q;
    size_t nr;
    size_t retrieval_nr;             /* questions given as retrieval items ("retrieved") */
    char sha256[SHA256_HEX_LEN + 1]; /* of the uncompressed content */
    size_t text_len;                 /* bytes of the uncompressed content */
    struct hashmap ids;              /* id -> index of q, as loaded (golden_set_find()) */
};

/*
 * Load and validate a golden set. gs is initialised by the call (no init
 * needed); on failure it is left empty and releasable. Blank lines are
 * skipped. Validation: every line a JSON object in valid UTF-8 and at most
 * DATASET_LINE_MAX bytes; "id" non-empty string, unique; "question" non-empty
 * string; "answers" non-empty array of non-empty strings; "gold" non-empty
 * array of chunks; optional "distractors" array of chunks; chunk = object with
 * non-empty string "text", optional strings "id", "title", "value"; optional
 * string "scorer", "answer_regex". A gold answer that normalises to ""
 * (score_gold_is_empty()) is an error unless the question's "scorer" is
 * exact or regex (or it has an "answer_regex" and no "scorer"). Hard
 * negatives that leak a gold answer (question_leaks_into()) are removed and
 * their ids kept in dropped_negatives. Unknown fields are ignored. An empty
 * file is an error. Returns 0 or -1 (message printed).
 *
 * A line may instead be a retrieval item (a retrieval set: the ranked chunks
 * a retriever returned for the question): "retrieved" replaces "gold" and
 * "distractors", "id" is optional ("line-N"). "retrieved" is a non-empty
 * array of chunks in rank order (best first), each with optional number
 * "score" (non-increasing down the list), string "doc" (chunks of one
 * document) and boolean "gold"; chunk ids unique in the list. The gold
 * chunks are the ones flagged "gold": true; when none is flagged, the ones
 * whose normalised title and text state an answer (the scorer's
 * score_normalize(), the leak rule of question_leaks_into()). No gold chunk
 * at all is allowed (the retriever missed it: gold_nr 0); a depth run
 * refuses such a set (golden_set_require_gold()).
 */
int golden_set_load(struct golden_set *gs, const char *path);

/*
 * A --dataset or --haystack value to a file: a path (with a '/') or an existing file is
 * used as given; a bare NAME is datasets/NAME, datasets/NAME.jsonl or datasets/NAME.jsonl.gz
 * in the data search order (base/datadir.h), or NAME itself when none exists (the loader
 * then says it cannot be opened). golden_set_load(), haystack_load() and
 * dataset_read_text() resolve their path with it. Appends to out; returns 0.
 */
int dataset_resolve(const char *spec, struct strbuf *out);
/*
 * -1 (why appended to err, naming the file and the line; nothing printed) when a
 * question has no gold chunk (a retrieval item whose retriever missed it): the depth
 * experiment needs one per question. 0 otherwise.
 */
int golden_set_require_gold(const struct golden_set *gs, struct strbuf *err);
/*
 * The same from text in memory (a golden set kept in the store): name stands
 * for the path in messages and gs->path; buf is copied. sha256 is of buf.
 */
int golden_set_load_mem(struct golden_set *gs, const char *name, const char *buf, size_t len);
/*
 * The uncompressed content of a golden set or haystack file (plain or gzip)
 * into out (reset first) with its sha256 (what golden_set_load() puts in
 * gs->sha256). Returns 0, or -1 after printing an error naming the file.
 */
int dataset_read_text(const char *path, struct strbuf *out, char sha256[SHA256_HEX_LEN + 1]);
/*
 * The same content streamed: fn gets it in blocks of up to 64 KiB, in order;
 * *size is its length and sha256 its hash as above. Nothing is held: a 40 MB golden set
 * costs 64 KiB. Returns 0, -1 after printing an error naming the file, or fn's non-zero
 * return (which stops the read).
 */
typedef int (*dataset_block_fn)(const void *block, size_t len, void *data);
int dataset_text_each(const char *path, dataset_block_fn fn, void *data,
                      char sha256[SHA256_HEX_LEN + 1], size_t *size);
void golden_set_release(struct golden_set *gs);
/*
 * When load excluded hard negatives (dropped_negatives), appends one line
 * saying how many, for which questions (the first 10, with the chunk ids),
 * and returns the count; else appends nothing and returns 0. run and report
 * print it.
 */
size_t golden_set_negatives_note(const struct golden_set *gs, struct strbuf *out);
/*
 * 1 when q's gold states its answer as the scorer would look for it: every gold chunk's
 * "value" is in that chunk's text; an "answer_regex" (scorer regex) matches a gold chunk's
 * "title\ntext"; else one answer (scorer all: every answer), normalised by score_normalize(),
 * is in the gold's normalised text (answers that normalise to "" are not looked for). A
 * retrieval item is 1. Else appends why (no file or line) and returns 0. The loader refuses
 * such a line unless it has "answer_outside_gold": true; import and gen check with it.
 */
int question_answer_in_gold(const struct question *q, struct strbuf *why);
/* The question with this id, or NULL. */
const struct question *golden_set_find(const struct golden_set *gs, const char *id);

struct haystack {
    char *path;
    struct chunk *c; /* distinct chunks, in file order; c[i].norm is set */
    size_t nr;
    char sha256[SHA256_HEX_LEN + 1]; /* of the uncompressed content */
    size_t dropped_duplicates;       /* chunks equal (normalised) to an earlier one */
};

/*
 * Load a haystack: JSONL chunks {"id","title","text"} ("text" required,
 * non-empty; "id"/"title" optional strings), or, when the path ends in .txt or
 * .txt.gz, plain UTF-8 text split at blank lines into paragraphs (paragraphs
 * over ~300 words are split into ~200-word chunks at word boundaries).
 * Exact duplicates (title and text, normalised) are kept once and counted in
 * dropped_duplicates. Same error contract as golden_set_load().
 */
int haystack_load(struct haystack *h, const char *path);
void haystack_release(struct haystack *h);

/*
 * 1 when the normalised text (norm, norm_len) contains one of q's answers
 * (normalised). Answers that normalise to "" are ignored; answers of at most
 * 3 normalised bytes must match a whole word (so the answer "2" does not
 * exclude every chunk mentioning 2017). Also 1 when norm equals a gold
 * chunk's normalised "title text". norm is a chunk's normalised "title text".
 */
int question_leaks_into(const struct question *q, const char *norm, size_t norm_len);

/*
 * Filler eligible for q: indices of haystack chunks that do not leak q's
 * answers (question_leaks_into()) and are not one of q's own chunks (same id).
 * *idx is malloc'd (caller frees), *nr set; *dropped = chunks excluded.
 */
void haystack_filter(const struct haystack *h, const struct question *q, size_t **idx, size_t *nr,
                     size_t *dropped);

/* 1 when s[0..len) is valid UTF-8 (no overlongs, surrogates or > U+10FFFF). */
int utf8_valid(const char *s, size_t len);

/*
 * Writing sets (import/gen): append one golden-set JSONL line for q (with
 * "\n") / one haystack chunk line. Strings are JSON-escaped; chunk "value" and
 * question "scorer"/"answer_regex" are written only when set. A retrieval item
 * is written with its "retrieved" list, its gold chunks flagged "gold": true.
 */
void question_to_jsonl(struct strbuf *out, const struct question *q);
void chunk_to_jsonl(struct strbuf *out, const struct chunk *c);
/*
 * The chunks one paragraph of a text haystack becomes: the whole paragraph, or pieces of 200
 * words when it has more than 300 (the last piece takes the rest), whitespace-trimmed; a piece
 * over 3,000 bytes (a script written without spaces: Chinese, Japanese) is cut again after
 * the sentences that fit about 1,500 bytes (。！？｡… ؟ । ॥, or . ! ? before a space), a sentence
 * longer than that at a space or a character boundary. Calls
 * emit(arg, text, len, piece, whole) for each, whole set when the paragraph is one piece.
 * Used by the .txt haystack loader and by `import longbench-v2`.
 */
void haystack_paragraph_pieces(const char *s, size_t n,
                               void (*emit)(void *arg, const char *text, size_t len, size_t piece,
                                            int whole),
                               void *arg);

/*
 * Streaming line reader over a plain or gzip-compressed file (zlib detects
 * which), for importers. Lines have '\n' and a trailing '\r' removed and are
 * NUL-terminated in a buffer valid until the next call. A line over
 * DATASET_LINE_MAX bytes is an error ("FILE:LINE: line is longer than ...").
 * open returns NULL after printing "FILE: cannot open: ..."; next returns 1
 * for a line (*lineno = its 1-based number), 0 at EOF, -1 after printing.
 */
struct dataset_lines;
struct dataset_lines *dataset_lines_open(const char *path);
int dataset_lines_next(struct dataset_lines *r, char **line, size_t *len, long *lineno);
void dataset_lines_close(struct dataset_lines *r);

/*
 * Output file that is gzip-compressed when path ends in ".gz"; "-" = stdout.
 * Returns NULL with the reason, naming the path, appended to err. The writer
 * keeps err (the caller's, borrowed): a failed write or close appends its
 * message there too. A regular file is written as PATH.tmpPID and renamed to
 * PATH by a clean dataset_writer_close(), so it never exists half-written;
 * dataset_writer_abort() discards it.
 */
struct dataset_writer;
struct dataset_writer *dataset_writer_open(const char *path, struct strbuf *err);
/* Returns 0 or -1 (why in the open's err). */
int dataset_writer_write(struct dataset_writer *w, const char *buf, size_t len);
/* Flushes and closes; returns 0 or -1 (why in the open's err). Frees w either way. */
int dataset_writer_close(struct dataset_writer *w);
/* Closes without keeping anything (the command failed): the output is removed. Frees w; NULL ok. */
void dataset_writer_abort(struct dataset_writer *w);

#endif

#ifndef BM25_H
#define BM25_H

#include <stddef.h>

struct haystack;

/*
 * Lexical similarity of documents to a question, the one BM25 of dipmap: Okapi BM25
 * (k1 = 1.2, b = 0.75) over each document's "title text". Terms are maximal runs of ASCII
 * letters and digits (lower-cased) and of bytes >= 0x80 (UTF-8 letters kept whole); a query
 * term counts once. Document frequencies and the mean length are over the documents ranked,
 * so scores are those of that collection. Used for `run --distractors hard` (the question's
 * eligible filler, when the golden set gives it no hard negatives) and for the gold's rank
 * among a prompt's documents (prompt.h: built_prompt.gold_bm25_rank).
 */
struct bm25_index;

/* A document: its title (NULL: none) and the first len bytes of text (borrowed). */
struct bm25_doc {
    const char *title;
    const char *text;
    size_t len;
};

/* Terms of every chunk of hay, built once (the terms are copied; hay may go). */
struct bm25_index *bm25_index_new(const struct haystack *hay);
/* Terms of docs[0..n) (copied; docs may go), indexed 0..n-1. */
struct bm25_index *bm25_index_docs(const struct bm25_doc *docs, size_t n);
void bm25_index_free(struct bm25_index *ix);

/*
 * Reorder idx[0..n) (indexes into the index: hay->c, or docs) by descending BM25 score
 * against query, ties in the given order; scores[i] (when not NULL, n entries) gets the score
 * of the document now at idx[i].
 */
void bm25_rank(const struct bm25_index *ix, const char *query, size_t *idx, size_t n,
               double *scores);

/*
 * The rank (1-based) of docs[gold] among docs[0..n) by BM25 for query, statistics over those n
 * documents: 1 + the documents scoring at least as high as the gold (ties rank the gold below).
 * 0 when gold >= n.
 */
size_t bm25_gold_rank(const struct bm25_doc *docs, size_t n, size_t gold, const char *query);

#endif

#ifndef BM25_H
#define BM25_H

#include <stddef.h>

struct haystack;

/*
 * Lexical similarity of haystack chunks to a question, for `run
 * --distractors hard` when the golden set gives a question no hard
 * negatives: Okapi BM25 (k1 = 1.2, b = 0.75) over the chunks' "title text".
 * Terms are maximal runs of ASCII letters and digits (lower-cased) and of
 * bytes >= 0x80 (UTF-8 letters kept whole); a query term counts once.
 * Document frequencies and the mean length are over the chunks ranked (the
 * question's eligible filler), so scores are those of that collection.
 */
struct bm25_index;

/* Terms of every chunk of hay, built once (hay borrowed; must outlive it). */
struct bm25_index *bm25_index_new(const struct haystack *hay);
void bm25_index_free(struct bm25_index *ix);

/*
 * Reorder idx[0..n) (indexes into hay->c) by descending BM25 score against
 * query, ties in the given order; scores[i] (when not NULL, n entries) gets
 * the score of the chunk now at idx[i].
 */
void bm25_rank(const struct bm25_index *ix, const char *query, size_t *idx, size_t n,
               double *scores);

#endif

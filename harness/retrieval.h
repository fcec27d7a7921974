#ifndef RETRIEVAL_H
#define RETRIEVAL_H

#include <stddef.h>

struct golden_set;
struct haystack;
struct strbuf;

/*
 * The retrieved lists of the order experiment (run --experiment order): a
 * retrieval set brings its own (dataset.h "retrieved"); a golden set gets a
 * synthetic one per question, the gold's rank drawn from a rank
 * distribution, the other slots filled with the question's hard negatives
 * and then haystack filler, scores descending.
 */

struct retrieval_synth {
    const double *rank_probs; /* P(the gold is at rank r), r = 1..n; the rest: not retrieved */
    size_t n_rank_probs;
    size_t list_len;    /* chunks per list: the largest k */
    unsigned long seed; /* the run's seed */
};

/*
 * The gold rank drawn for a question (pure, seeded by (seed, question id)):
 * 1..list_len, or 0 when the draw falls past list_len or beyond the
 * distribution's mass (the retriever missed it).
 */
size_t retrieval_draw_rank(const char *question_id, const struct retrieval_synth *s);

/*
 * Give every question of gs (golden-set lines; retrieval items keep their
 * lists) a synthetic list of s->list_len chunks: the gold chunk(s) at the
 * drawn rank (consecutive ranks for several; left out when not retrieved),
 * the question's hard negatives in file order in the best free slots, then
 * filler from hay (haystack_filter(): never a chunk stating the answer) in a
 * seeded order. Scores 1 - (rank - 1) / list_len; source order a seeded
 * permutation (unrelated to rank); no documents. Returns 0, or -1 with
 * "question ID: ..." appended to err when the hard negatives and the
 * haystack cannot fill a list.
 */
int retrieval_synthesize(struct golden_set *gs, const struct haystack *hay,
                         const struct retrieval_synth *s, struct strbuf *err);

/*
 * Every question's list must hold at least k chunks (the largest --k): -1
 * with "FILE:LINE: \"retrieved\" has N chunks, --k K needs K" appended to err.
 */
int retrieval_check_lists(const struct golden_set *gs, int k, struct strbuf *err);

#endif

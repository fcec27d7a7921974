#ifndef ORDER_H
#define ORDER_H

#include <stddef.h>

struct strbuf;

/*
 * Ordering policies for retrieved chunks: the one place that says where each
 * rank goes in the prompt, used by the ordering advice (stats_run.c, computed
 * from a depth curve) and by `run --experiment order` (measured). Pure
 * functions, no I/O.
 *
 * Ranks are 1-based (1 = the retriever's best chunk); slots are 0-based
 * prompt positions (0 = first document, k-1 = last, nearest the question in
 * the shipped templates).
 */
enum ordering {
    ORDER_SOURCE,        /* source (ingestion) order: unrelated to rank */
    ORDER_BEST_FIRST,    /* rank r at slot r-1 */
    ORDER_EDGES_FIRST,   /* LongContextReorder: 1 first, 2 last, 3 second, 4 second-to-last...
                            ranks 1..6 in the prompt as 1, 3, 5, 6, 4, 2 */
    ORDER_BEST_2ND_LAST, /* "best first, second best last": 1, 3, 4, ..., k, 2 */
    ORDER_ASCENDING,     /* relevance ascending: k, ..., 2, 1 (the best nearest the question) */
    ORDER__COUNT
};

/*
 * The retriever's rank distribution when no --rank-dist is given: geometric, P(rank r) =
 * p (1-p)^(r-1) with this p (rank 1 half the time), for run --rank-p and the report's advice.
 */
#define ORDER_DEFAULT_RANK_P 0.5

/* "source", "best-first", "edges-first", "second-last", "ascending". */
const char *ordering_name(enum ordering o);

/*
 * A policy by name (ordering_name(), or "best-first-second-last", the name
 * summary.json's ordering advice keeps). Returns 0 or -1.
 */
int ordering_parse(const char *name, enum ordering *out);

/*
 * "--policies" values: a comma list of names, each once, order kept (the
 * report's column order). *out malloc'd (caller frees). Returns 0, or -1 with
 * "--policies: ..." appended to err naming the bad value and the valid ones.
 */
int ordering_parse_list(const char *s, enum ordering **out, size_t *nr, struct strbuf *err);

/*
 * Slot (0-based) of rank (1-based, 1..k) among k chunks under a policy that
 * depends on rank alone; -1 for ORDER_SOURCE (it depends on the chunks'
 * source positions) or a rank outside 1..k.
 */
int ordering_slot(enum ordering o, int rank, int k);

/* One chunk to arrange. */
struct order_item {
    int rank;        /* the retriever's rank, 1-based; distinct among the items */
    long source;     /* position in source order (distinct; smaller = earlier) */
    const char *doc; /* the document it belongs to, NULL when none (its own document) */
};

/*
 * Arrange n items (any order, ranks need not be contiguous: a budget may
 * have dropped some) under policy o: out[i] = index into items of the chunk
 * at prompt position i. Ranks are taken relative (the best item present is
 * rank 1). With group_by_doc the chunks of one document stay adjacent: the
 * documents are arranged as units ranked by their best chunk (source order
 * by their earliest chunk), and inside a document the chunks keep source
 * order.
 */
void ordering_arrange(enum ordering o, const struct order_item *items, size_t n, int group_by_doc,
                      size_t *out);

/*
 * Expected accuracy of placing k chunks with `order`, given accuracy-at-depth
 * slot_acc[0..k-1] for slot i and rank probabilities probs[0..k-1] (need not
 * sum to 1: normalised over the top k). ORDER_SOURCE: the mean over slots
 * (position uniform). Returns 0 when the probabilities sum to 0.
 */
double ordering_expected_accuracy(enum ordering order, const double *slot_acc, const double *probs,
                                  int k);

/*
 * The budget packer's choice, by rank: cost[i] is the token cost of the
 * chunk of rank i+1 (i = 0..n-1), room the tokens left for documents. Keeps
 * chunks best first while they fit; a chunk that does not fit is dropped and
 * the next lower-ranked ones are still tried (a shorter one may fit). The
 * best chunk is kept only if it fits. keep[i] = 1 for a kept chunk; returns
 * how many were kept. What is dropped depends on rank only, never on where a
 * policy would put the chunk, so every policy gets the same chunks.
 */
size_t ordering_pack(const long *cost, size_t n, long room, int *keep);

#endif

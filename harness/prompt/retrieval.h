#ifndef RETRIEVAL_H
#define RETRIEVAL_H

#include <stddef.h>

#include "prompt/order.h"
#include "run/plan.h"
#include "base/strvec.h"

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

/*
 * `run --experiment order`: its options parsed and turned into the named
 * axes policy (the policies' names), k and, with --group-by-doc, group=doc
 * (axes.h), which plan_build() crosses with the questions.
 */
struct order_setup {
    int on;              /* --experiment order */
    int order_opts_seen; /* an order option was given (cmd_run refuses it without order) */
    int rank_p_seen;
    enum ordering *policies;
    size_t npolicies;
    int *k; /* as given */
    size_t nk;
    int kmax;
    int group_by_doc;
    long budget;        /* 0: none */
    double *rank_probs; /* --rank-dist, or NULL: geometric rank_p */
    size_t n_rank_probs;
    double rank_p;
    struct plan_axis axes[3];
    size_t axes_nr;
    struct strvec policy_values, k_values;
};

/*
 * Parse the options (policies: ordering_parse_list(); ks: "3,5,10,20", each
 * 1..10000 once; budget >= 0; rank_dist a file for rank_dist_load(), or the
 * geometric rank_p in (0, 1] -- not both when rank_p_seen) and declare the
 * axes. Returns 0, or -1 with "--OPTION: ..." appended to err. Release with
 * order_setup_release() either way.
 */
int order_setup_parse(struct order_setup *x, const char *policies, const char *ks, int group_by_doc,
                      long budget, const char *rank_dist, double rank_p, struct strbuf *err);
/*
 * Synthetic lists of kmax chunks for the questions without one
 * (retrieval_synthesize(), the gold's rank from the distribution), then
 * retrieval_check_lists() for kmax. Returns 0 or -1 (err).
 */
int order_setup_lists(struct order_setup *x, struct golden_set *gs, const struct haystack *hay,
                      unsigned long seed, struct strbuf *err);
void order_setup_release(struct order_setup *x);

/* Retriever rank distributions (the ordering advice, --rank-dist). */
/*
 * Parse a rank distribution: one probability per line (rank 1 first), blank
 * lines and lines starting with '#' ignored. Values must be >= 0 and sum to
 * at most 1 + 1e-6 (the rest is the chance the answer was not retrieved).
 * On success *probs (caller frees) and *n are set; returns 0. Returns -1
 * with "line N: reason" appended to err.
 */
int rank_dist_parse(const char *text, double **probs, size_t *n, struct strbuf *err);
/*
 * The same from a file (the --rank-dist of report and run): -1 with
 * "cannot read --rank-dist FILE: ..." or "FILE:line N: reason" appended to err.
 */
int rank_dist_load(const char *path, double **probs, size_t *n, struct strbuf *err);

#endif

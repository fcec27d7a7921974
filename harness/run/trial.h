#ifndef TRIAL_H
#define TRIAL_H

#include <stddef.h>

#include "base/strpool.h"
#include "base/sha256.h"

/*
 * The trial: dipmap's unit of measurement, shared by runner, store, stats,
 * compare and report. A trial is keyed by (question, length, depth, repeat,
 * axes) within a run (axes: the named axes of axes.h, "" when none); it ends in exactly one outcome
 * (docs/statistics.md "Scoring, statistics and compare", docs/design.md "Results").
 */

/* Depths are kept in basis points (1/100 of a percent) so keys are exact: 50% = 5000. */
#define DEPTH_BP_MAX 10000

/*
 * Control trials (run --controls): per question and repeat, the same
 * template and answer budget with no documents (closed-book) or with the
 * gold chunk alone (oracle). They are keyed like any trial with length 0 and
 * a negative depth, so the store, resume, merge and export carry them
 * unchanged; stats and compare keep them out of the depth curve.
 */
#define TRIAL_CONTROL_LENGTH 0
#define DEPTH_BP_CLOSED_BOOK (-1)
#define DEPTH_BP_ORACLE      (-2)
/* 1 for a control trial's (length, depth). */
int trial_is_control(long length, int depth_bp);
/*
 * 1 for a needle-absent twin (run --absent: its axes hold absent=yes): outside the depth curve
 * and compare's endpoints, scored as abstention (docs/effects.md "Needle-absent trials").
 */
int trial_is_absent(const char *axes);
/*
 * 1 for a trial of the depth curve: neither a control nor a needle-absent twin. The curve's
 * accuracy, dip and compare count these only (docs/effects.md); the end-of-run and rescore
 * accuracy lines too, so they read as the report does.
 */
int trial_on_curve(long length, int depth_bp, const char *axes);
/* "closed-book", "oracle", or NULL when not a control. */
const char *trial_control_name(int depth_bp);

enum trial_outcome {
    OUTCOME_PENDING = 0, /* not finished (never a final state) */
    OUTCOME_CORRECT,
    OUTCOME_WRONG,
    OUTCOME_OVERFLOW,  /* server said the context was exceeded */
    OUTCOME_TRUNCATED, /* the server shortened the prompt (context shift: fewer prompt tokens) */
    OUTCOME_EMPTY,     /* no content and no sign of reasoning */
    OUTCOME_STARVED,   /* no answer after the reasoning: the answer budget went to thinking */
    OUTCOME_FILTERED,  /* content filter */
    OUTCOME_ERROR,     /* transport or server failure after retries */
    OUTCOME__COUNT
};

/* "correct", "wrong", ... ("pending" for OUTCOME_PENDING). */
const char *outcome_name(enum trial_outcome o);
/* Parse a name back; returns 0 or -1 for an unknown name. */
int outcome_parse(const char *name, enum trial_outcome *out);
/* 1 for correct/wrong: the only outcomes that enter accuracy. */
int outcome_is_scored(enum trial_outcome o);

struct trial_key {
    const char *question_id; /* borrowed */
    long length;             /* target length in tokens */
    int depth_bp;            /* requested depth, 0..10000 */
    int repeat;              /* 0-based repeat index */
    const char *axes;        /* borrowed canonical named axes (axes.h); NULL or "" = none */
};

/*
 * The facts of one built prompt that a stored trial keeps: the one record the runner's slot,
 * the batch path's members (store_batch.h) and the request (trial_send.h) carry, copied by
 * assignment: a trial_result embeds them (its columns, store-int.h TRIAL_COLUMNS).
 */
struct prompt_facts {
    char sha256[SHA256_HEX_LEN + 1]; /* prompt_sha256: the prompt bytes sent, "" unknown */
    long realized_length;            /* tokens of the whole request (template overhead in) */
    double realized_depth;           /* share of distractor tokens before the gold */
    long gold_offset;                /* token offset of the gold block */
    long gold_bm25_rank, bm25_docs;  /* the gold's BM25 rank among bm25_docs; 0 unknown */
};

/*
 * One finished (or pending) trial as stored. Strings are owned by the struct
 * and released with trial_result_release(); any may be NULL. (A trial about to
 * be stored whose strings are borrowed is a struct trial_view.)
 */
struct trial_result {
    char *question_id;
    long length;
    int depth_bp;
    int repeat;
    char *axes; /* canonical named axes (axes.h), part of the key; NULL or "" = none */

    /* the prompt sent: prompt_sha256, realized length and depth, gold offset, the gold's BM25
       rank (0 unknown: controls, order trials, runs stored before schema 11) */
    struct prompt_facts facts;
    long usage_prompt_tokens; /* server's usage.prompt_tokens, -1 when not given */

    enum trial_outcome outcome;
    int http_status;   /* last HTTP status, 0 when none */
    int attempts;      /* requests sent for this trial */
    double latency_ms; /* of the final attempt */
    long completion_tokens;
    long reasoning_tokens; /* usage.completion_tokens_details.reasoning_tokens, -1 unknown */
    long reasoning_chars;  /* bytes of reasoning text (field and inline <think>), 0 none */
    /* correct/wrong whose answer reached the answer budget (finish_reason length): scored
       on what it said, counted as "cut" in coverage */
    int cut;
    char *finish_reason;
    char *answer;
    char *reasoning;
    /* sha256 of the request body ("" unknown): byte-identical requests, for run --reuse */
    char request_sha256[SHA256_HEX_LEN + 1];
    char *reused_from;  /* "STORE:RUN" a reused answer was taken from; NULL when sent */
    double score;       /* 1 correct, 0 wrong; meaningful only when scored */
    char *error;        /* human-readable reason for overflow/truncated/error outcomes */
    double finished_at; /* unix time, seconds */
    /* llama.cpp "timings" of the final attempt (prompt cache use), -1 when not given */
    long cache_n;     /* prompt tokens reused from the server's prompt cache */
    long prompt_n;    /* prompt tokens the server computed */
    double prompt_ms; /* time the server spent computing them */
    /* usage.prompt_tokens_details.cached_tokens of the final attempt, -1 when not given */
    long cached_tokens;
    double sent_at; /* unix time the final attempt was sent, 0 unknown (reused, old stores) */
};

/*
 * The order of trial keys: by question id (NULL as ""), length, depth, repeat, axes. Pairing two
 * runs (compare, its drill-downs) and grouping a run's trials by question use it.
 */
int trial_key_cmp(const struct trial_result *x, const struct trial_result *y);
/* trial_key_cmp for qsort()/bsearch() over an array of `const struct trial_result *`. */
int trial_key_cmp_ptr(const void *a, const void *b);

/*
 * Reasoning tokens a trial spent: its reasoning_tokens when known (>= 0), else its completion
 * tokens (0 when unknown).
 */
long trial_reasoning_spent(long reasoning_tokens, long completion_tokens);

/*
 * What the statistics read of a trial (stats, compare, the gate, hops, order and axes
 * statistics): its key, outcome and token figures, without texts or digests: about 90 bytes
 * against a trial_result's 360 and its strings, so a million trials' statistics fit in about
 * 100 MB. The strings are borrowed: from the trial_results the points were taken from
 * (trial_points_of) or from the trial_point_set that holds them (the store's loader).
 */
struct trial_point {
    const char *question_id; /* NULL = "" */
    const char *axes;        /* NULL or "" = none */
    long length;
    int depth_bp;
    int repeat;
    enum trial_outcome outcome;
    unsigned char cut;    /* as trial_result's */
    unsigned char reused; /* the answer was taken from another run (reused_from set) */
    double realized_depth;
    /* token figures as in trial_result (-1 unknown); int: a prompt's count fits */
    int realized_length, usage_prompt_tokens, gold_offset;
    int completion_tokens, reasoning_tokens;
    int cache_n, prompt_n, cached_tokens;
};

/* The point of trial t (strings borrowed from t). */
void trial_point_of(struct trial_point *p, const struct trial_result *t);
/* The points of n trials in a new array (n + 1 allocated; strings borrowed from t). */
struct trial_point *trial_points_of(const struct trial_result *t, size_t n);
/* trial_key_cmp's order over points, and for qsort()/bsearch() over `const struct trial_point *`.
 */
int trial_point_cmp(const struct trial_point *x, const struct trial_point *y);
int trial_point_cmp_ptr(const void *a, const void *b);

/*
 * A run's points with the strings they borrow: question ids and axes kept once each (a run of
 * a million trials has a few thousand distinct ids). Filled by trial_point_set_add.
 */
struct trial_point_set {
    struct trial_point *v;
    size_t nr, alloc;
    struct strpool str; /* the distinct strings the points borrow */
};
#define TRIAL_POINT_SET_INIT                                                                       \
    {                                                                                              \
        .v = NULL, .nr = 0, .alloc = 0, .str = STRPOOL_INIT                                        \
    }
/* Append the point of t; its strings are copied into the set once. */
void trial_point_set_add(struct trial_point_set *s, const struct trial_result *t);
void trial_point_set_release(struct trial_point_set *s);

/*
 * A trial about to be stored whose strings are borrowed (the plan's key, the answer, an
 * error text; trial_send.h fills them): never released. figures holds every other field (its
 * own strings NULL). store_trial_put_view() copies what it keeps.
 */
struct trial_view {
    const char *question_id, *axes;
    const char *finish_reason, *answer, *reasoning, *reused_from, *error;
    struct trial_result figures;
};

void trial_result_init(struct trial_result *t);
void trial_result_release(struct trial_result *t);
/* A deep copy of src into dst (dst's old contents are not released). */
void trial_result_copy(struct trial_result *dst, const struct trial_result *src);

#endif

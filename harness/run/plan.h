#ifndef PLAN_H
#define PLAN_H

#include <stddef.h>

struct strbuf;
struct golden_set;

/*
 * The trial matrix: parsing --lengths/--depths/--repeats/--shard, enumerating
 * trials (question x length x depth x repeat) in a deterministic order, and
 * the dry-run summary (trial count, prompt tokens per length, cost).
 */

/* The matrix run, gate and plan map when --lengths or --depths is not given. */
#define PLAN_DEFAULT_LENGTHS "8k,32k"
#define PLAN_DEFAULT_DEPTHS  "0:100:10"

/*
 * "8k,32k,64k" (k = 1024, a plain number literally; parse_token_count()).
 * Duplicates are an error; order is kept. *out malloc'd (caller frees).
 * Returns 0, or -1 with a message appended to err ("--lengths: ...").
 */
int plan_parse_lengths(const char *s, long **out, size_t *nr, struct strbuf *err);
/*
 * The same, where an entry may also be a percentage of the server's context
 * ("25%,50%,90%": floor(fraction x context) tokens; above 0, at most 100);
 * context <= 0 (unknown) makes a percentage an error naming --lengths.
 * plan_lengths_relative(s): 1 when s has a percentage (the context is needed).
 */
int plan_parse_lengths_ctx(const char *s, long context, long **out, size_t *nr, struct strbuf *err);
int plan_lengths_relative(const char *s);

/*
 * Depths in percent: "start:stop:step" (e.g. "0:100:10" = 0,10,...,100; stop
 * included when reached exactly) or a comma list "0,25,50,75,100"; decimals
 * allowed ("12.5"). Values are converted to basis points (trial.h). Out of
 * 0..100, step <= 0, duplicates or empty are errors. *out malloc'd.
 */
int plan_parse_depths(const char *s, int **out, size_t *nr, struct strbuf *err);

/*
 * The axes as people write them, for reports and messages: a length as "32k"
 * when a multiple of 1024 (else the number), a depth as "12.5%" (basis points
 * shown with the fewest digits).
 */
void plan_format_length(struct strbuf *out, long tokens);
void plan_format_depth(struct strbuf *out, int depth_bp);

/* The most shards a run may be split into. */
#define PLAN_MAX_SHARDS 1000000

/*
 * "I/N" with 1 <= I <= N <= PLAN_MAX_SHARDS (shards count from 1 on the
 * command line, so 1/2 and 2/2 make a whole); *index is 0-based (I - 1).
 * Returns 0 or -1 (message in err, naming --shard and s). The one parser of
 * --shard; `--shard auto` (cmd_run.c) reads I and N from the environment and
 * applies the same limit.
 */
int plan_parse_shard(const char *s, unsigned *index, unsigned *count, struct strbuf *err);

/*
 * --shard auto: the shard from a scheduler's environment (Kubernetes indexed
 * Job, Slurm array, GitLab parallel), *index 0-based. 0, or -1 with err set.
 */
int plan_shard_auto(unsigned *index, unsigned *count, struct strbuf *err);

/*
 * A named axis (axes.h) crossed with lengths and depths: its name and its
 * values in the order given (run --question-at end,start -> {"question-at",
 * {"end", "start"}, 2}). Borrowed by the spec.
 */
struct plan_axis {
    const char *name;
    const char *const *values;
    size_t values_nr;
};

/* The most named axes one run crosses (run's option table, its identity). */
#define PLAN_AXES_MAX 16

struct plan_spec {
    const long *lengths;
    size_t lengths_nr;
    const int *depths_bp;
    size_t depths_nr;
    int repeats;                  /* >= 1 */
    unsigned shard_index;         /* 0-based; 0 when not sharded */
    unsigned shard_count;         /* 1 when not sharded (0 is taken as 1) */
    unsigned controls;            /* PLAN_CONTROL_* bits (run --controls) */
    const struct plan_axis *axes; /* NULL/0: no named axes (every trial's axes "") */
    size_t axes_nr;
    /*
     * run --absent P (docs/effects.md "Needle-absent trials"): a share P (0..1; 0 none) of the
     * depth trials, drawn per trial key from seed, also asked with the gold removed: a twin
     * whose axes add absent=yes, right after its group's depths (same group, same shard)
     */
    double absent;
    unsigned long seed;
};
/* The axis an absent twin carries (absent=yes; trial_is_absent()); present trials carry none. */
#define PLAN_ABSENT_AXIS         "absent"
#define PLAN_CONTROL_CLOSED_BOOK 1u
#define PLAN_CONTROL_ORACLE      2u
/*
 * "closed-book,oracle" (either or both) into PLAN_CONTROL_* bits. Returns 0,
 * or -1 with "--controls: ..." appended to err.
 */
int plan_parse_controls(const char *s, unsigned *out, struct strbuf *err);

struct plan_trial {
    size_t question; /* index into golden_set.q */
    long length;
    int depth_bp;
    int repeat;
    const char *axes; /* canonical named axes (axes.h), "" when none; borrowed from plan.combos */
};

struct plan {
    struct plan_trial *t; /* owned */
    size_t nr;
    char **combos;        /* owned: the canonical axes of each combination of axis values, in order
                             (one "" when the spec has no axes) */
    char **absent_combos; /* owned: each combination with absent=yes (spec->absent > 0), or NULL */
    size_t combos_nr;
    size_t total_nr;    /* trials in the whole matrix, before sharding */
    size_t controls_nr; /* control trials among total_nr (trial.h) */
};

/*
 * Enumerate the matrix in a fixed order: length, then repeat, then question
 * (file order), then the combination of named axis values (spec->axes crossed,
 * the first axis outermost, values in the order given), then depth
 * (innermost, so the depths of one (question, length, repeat, axes) -- which
 * share one distractor sequence -- are consecutive, and the axis values of one
 * (question, length, repeat) are neighbours). Sharding assigns whole
 * (length, repeat, question, axes) groups round-robin: group g goes to
 * shard g % N, so shards are balanced, disjoint, cover the matrix, and are
 * stable across runs of the same set and spec. Control trials (spec->controls)
 * come last: per repeat and question, closed-book then oracle (length 0,
 * depth DEPTH_BP_CLOSED_BOOK / DEPTH_BP_ORACLE), one group each (question,
 * repeat), continuing the round-robin; they carry no axes. Without axes the
 * matrix and its shards are exactly those of a run before axes existed.
 * Returns 0 or -1 (err: a bad axis name or value, a value given twice, an
 * axis given twice or without values).
 */
int plan_build(struct plan *p, const struct golden_set *gs, const struct plan_spec *spec,
               struct strbuf *err);
void plan_release(struct plan *p);
/*
 * The first trial of the whole matrix p was built from with spec (before sharding and
 * plan_keep_questions): the first question, length and depth, repeat 0, p's first
 * combination of axes. Every shard of one run has the same (the run's request probe,
 * trial_send.h). Its axes are borrowed from p.
 */
void plan_first_trial(const struct plan *p, const struct plan_spec *spec, struct plan_trial *out);

/*
 * The golden set's questions in an order fixed by seed (run --questions, dipmap gate's rounds):
 * sorted by a splitmix64 hash of (seed, question id), ties in file order, so the order does not
 * depend on the file's order and a question keeps its place when others are added. Returns
 * gs->nr indices into gs->q (malloc'd, caller frees; NULL when the set is empty).
 */
size_t *plan_question_order(const struct golden_set *gs, unsigned long seed);
/*
 * Keep only the trials (controls included) of the first n questions of
 * plan_question_order(gs, seed), in the plan's order; total_nr and controls_nr are left as the
 * whole matrix's. n >= gs->nr keeps everything.
 */
void plan_keep_questions(struct plan *p, const struct golden_set *gs, size_t n, unsigned long seed);

/*
 * The group of trial i: the depths of one (question, length, repeat, axes), which share one
 * distractor sequence, are consecutive in the plan. Returns the index after its last trial.
 */
size_t plan_group_end(const struct plan *p, size_t i);

/*
 * The prefix-cache estimate of the dry run: prompt tokens of the plan (trials x length) and
 * those a prefix cache could serve under run --schedule cache: in each group every trial but
 * the deepest reuses the distractors before its gold, depth x length tokens (the deepest
 * is sent whole). 0:100:10 gives 4.5 of 11 lengths per group (0.59x computed).
 */
void plan_cache_estimate(const struct plan *p, double *prompt_tokens, double *cached_tokens);

struct plan_cost {
    double price_in;        /* USD per 1M prompt tokens; < 0 = unknown */
    double price_out;       /* USD per 1M completion tokens; < 0 = unknown */
    long max_answer_tokens; /* completion budget per trial (upper bound for the cost) */
};

/*
 * Human-readable dry-run summary appended to out: trials (and shard), per
 * length the trial count and total prompt tokens (trials x target length),
 * total tokens, and with prices the estimated upper-bound cost. Also returns
 * the cost in *usd when non-NULL (-1 when prices are unknown).
 */
void plan_summary(const struct plan *p, const struct plan_spec *spec, const struct plan_cost *cost,
                  struct strbuf *out, double *usd);

/* What bounds the wall time of a run (dry run estimate). */
struct plan_pace {
    long concurrency;         /* requests in flight (>= 1) */
    long rpm, tpm;            /* limits per minute; 0 = none */
    double latency_s;         /* mean seconds per request; <= 0 = unknown */
    const char *latency_from; /* where latency_s came from; NULL: "--latency-s" */
    long max_answer_tokens;   /* answer budget per trial, charged to --tpm like the runner does */
};

/*
 * Estimated wall time appended to out: the run is bound by the slowest of
 * concurrency (trials x latency / concurrency), --rpm (trials / rpm) and
 * --tpm ((prompt + answer budget) tokens / tpm); each bound is printed and
 * the binding one named. Without a latency and without limits it says how
 * to get an estimate. *seconds (when non-NULL) is the estimate, or -1 when
 * it cannot be bounded. Retries and a slower server make it longer; it is a
 * lower bound for those, not a promise.
 */
void plan_time_summary(const struct plan *p, const struct plan_spec *spec,
                       const struct plan_pace *pace, struct strbuf *out, double *seconds);

/* "1 h 05 min", "3 min 20 s", "12 s" (rounded up to whole seconds). */
void plan_format_duration(struct strbuf *out, double seconds);

#endif

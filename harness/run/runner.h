#ifndef RUNNER_H
#define RUNNER_H

#include <stdint.h>

#include "client/client.h"
#include "run/score.h"
#include "run/trial.h"

struct golden_set;
struct haystack;
struct prompt_template;
struct tokenizer;
struct plan;
struct prompt_builder;
struct store;
struct store_done_set;

/*
 * The runner executes a trial matrix. Threads: one event loop (the calling
 * thread) owns the client, the store, scoring, retries and every
 * runner_result field; with build_threads > 0, that many prebuild workers
 * (pthreads, state in the runner's struct prebuild) only build prompts,
 * each with its own prompt_builder over the shared read-only tokenizer,
 * template and haystack, into a bounded queue the loop pops (at most
 * min(64, max(8, concurrency)) built ahead). A remote tokenizer builds
 * inline on the loop (its counts go through the client and the store).
 * Prompts are built just in time (never the whole matrix); the loop keeps
 * the in-flight window full (adaptive, AIMD on 429 storms,
 * --rpm/--tpm buckets), retries retryable failures with backoff + jitter
 * honouring server hints (the trial holds its window slot while it waits),
 * scores answers as they arrive and writes every finished trial to the store
 * in batches: by default every event-loop turn that finished trials commits
 * them before the loop waits again (flush_seconds = 0), so a kill -9 loses
 * only the requests in flight, which a resume sends again; under load one
 * turn collects many responses, so commits batch themselves.
 *
 * Signals: while runner_run() executes, the first SIGINT/SIGTERM stops
 * scheduling and waits up to drain_seconds for the requests in flight, then
 * commits and returns RUNNER_INTERRUPTED; a SIGINT after it terminates the
 * process at once with status 130 (_exit: committed trials are safe, the store
 * is never corrupted), a SIGTERM after it does not (GNU timeout sends its
 * SIGTERM twice). Once the handlers are installed, a run with trials to send
 * says "sending N trial(s): ..." on stderr. The previous handlers are restored
 * on return.
 *
 * Progress goes to stderr: a live one-line bar on a terminal (done/total,
 * rate, ETA, retries, errors, running accuracy, window), otherwise one plain
 * line every progress_interval seconds.
 */

enum runner_progress {
    RUNNER_PROGRESS_AUTO = 0, /* bar when stderr is a terminal, else lines */
    RUNNER_PROGRESS_BAR,
    RUNNER_PROGRESS_LINES,
    RUNNER_PROGRESS_NONE
};

/* Parse "auto" | "bar" | "lines" | "none"; 0 or -1. */
int runner_progress_parse(const char *s, enum runner_progress *out);

/*
 * The order trials are sent in (run --schedule):
 *   PLAN     the plan's order (length, repeat, question, depth as listed)
 *   SHUFFLE  a seeded random permutation of the whole plan
 *   CACHE    per group (the depths of one question, length and repeat, which share their
 *            distractors) the deepest gold first; the group's other trials are released when
 *            it is answered, deepest first, to the endpoint that answered it (and the same
 *            llama.cpp slot with id_slots, the same prompt_cache_key with cache_keys), so a
 *            prefix cache holds the shared distractors once. Groups interleave: the window
 *            is filled from every open group, at most 4 C / group size + 2 of them at once
 *            (enough to keep C requests in flight; more would make the server's cache hold
 *            more groups than it needs and evict the prefixes the followers reuse).
 *            With llama.cpp slots (id_slots) each slot used takes one group at a time and
 *            one request at a time (runner_id_slots_used()).
 */
enum runner_schedule { RUNNER_SCHEDULE_PLAN = 0, RUNNER_SCHEDULE_SHUFFLE, RUNNER_SCHEDULE_CACHE };
/*
 * The llama.cpp slots a CACHE run with id_slots sends to: one request in flight per slot, at
 * most concurrency of them.
 */
int runner_id_slots_used(int id_slots, int concurrency);
/* Parse "plan" | "shuffle" | "cache"; 0 or -1. */
int runner_schedule_parse(const char *s, enum runner_schedule *out);
const char *runner_schedule_name(enum runner_schedule s);

/* How --no-cache-reuse keeps the server from reusing any prompt prefix. */
enum runner_no_reuse {
    RUNNER_REUSE_ALLOWED = 0,
    RUNNER_REUSE_SALT,         /* vLLM: a "cache_salt" unique to every request */
    RUNNER_REUSE_CACHE_PROMPT, /* llama.cpp: "cache_prompt": false */
    RUNNER_REUSE_NONCE         /* others: a unique line leads the prompt */
};

struct reuse_index;

struct runner_config {
    /* Everything below is borrowed and must outlive runner_run(). */
    const char *run_name;            /* the store's run (must exist, locked by the caller) */
    const struct golden_set *gs;     /* questions the plan indexes */
    const struct plan *plan;         /* the trials to execute (this shard's share) */
    const enum scorer_kind *scorers; /* per question (gs->nr entries) */
    /* run --absent: how an answer of an absent=yes trial is scored (abstained: correct) */
    const struct abstain_rule *abstain;
    struct prompt_builder *builder; /* the event loop's builder (inline builds, retries) */
    /*
     * Build prompts ahead in this many threads, each with its own builder
     * made from tokenizer/tmpl/haystack (0: build inline in the event loop).
     * A remote tokenizer may be used from them: the client counts on pooled
     * handles and the count cache locks its own store handle.
     */
    int build_threads;
    struct tokenizer *tokenizer;
    const struct prompt_template *tmpl;
    const struct haystack *haystack;   /* may be NULL */
    struct client *client;             /* after a successful preflight */
    struct store *store;               /* open read-write */
    const struct store_done_set *done; /* trials already final (skipped); may be NULL */
    /* run --reuse: stored answers of byte-identical requests, taken instead of sending; NULL */
    const struct reuse_index *reuse;
    unsigned long seed;  /* run seed for prompt_build() */
    long max_tokens;     /* answer budget per request */
    long server_context; /* the server's context per request (preflight), <= 0 unknown */
    int chat;            /* 1 chat completions, 0 legacy completions */
    long overhead;       /* template overhead (overhead.h): prompts hold length - overhead tokens */
    /* per layout (layout.h): what the server's template adds per turn pair */
    const struct prompt_turn_cost *turn_cost;
    int mismatch_stop;   /* stop (RUNNER_MISMATCH) when one of the first answers' prompt_tokens is
                            more than 2% off the run's count (else count and warn) */
    int mismatch_warned; /* the run already warned of a mismatch (overhead measurement): once */
    int store_prompts;   /* store rendered prompts content-addressed */
    /*
     * Send one request and wait for its answer before filling the window
     * (when the preflight could not confirm the model: a fatal answer then
     * stops the run after one request instead of a window full).
     */
    int probe_first;

    int concurrency;       /* maximum (and initial) requests in flight, >= 1 */
    double rpm, tpm;       /* per-minute limits, <= 0 none */
    int max_attempts;      /* per trial, >= 1 (default 6) */
    long backoff_base_ms;  /* first backoff without a server hint (default 1000) */
    long backoff_max_ms;   /* cap on computed backoff (default 60000) */
    double max_error_rate; /* stop (RUNNER_TOO_MANY_ERRORS) above this share; default 0.05 */
    double max_cost;       /* USD, <= 0: no budget */
    double price_in;       /* USD per 1M prompt tokens (< 0 unknown) */
    double price_out;      /* USD per 1M completion tokens (< 0 unknown) */
    double drain_seconds;  /* wait for in-flight requests after a signal (default 30) */
    double flush_seconds;  /* minimum commit interval (default 0: every loop turn) */
    enum runner_progress progress;
    double progress_interval; /* seconds between plain lines (default 10) */
    uint64_t jitter_seed;     /* backoff jitter */

    enum runner_schedule schedule;
    int id_slots;   /* CACHE: pin each group to one of this many llama.cpp slots (0: no) */
    int cache_keys; /* CACHE: send a prompt_cache_key per group (OpenAI) */
    enum runner_no_reuse no_reuse;
    double price_cached_in; /* USD per 1M cached prompt tokens (< 0: as price_in) */
};

/* Requests in flight when not set (run --concurrency; the gate passes its own, the same). */
#define RUNNER_DEFAULT_CONCURRENCY 8

/* Defaults as documented above; pointers NULL. */
void runner_config_init(struct runner_config *c);

enum runner_end {
    RUNNER_COMPLETE = 0,    /* every trial of the plan reached a final state */
    RUNNER_INTERRUPTED,     /* SIGINT/SIGTERM */
    RUNNER_BUDGET,          /* --max-cost reached before the plan was done */
    RUNNER_TOO_MANY_ERRORS, /* error share above max_error_rate */
    RUNNER_FATAL,           /* the endpoint refused the run (fatal_reason) */
    RUNNER_INPUT_ERROR,     /* a prompt could not be built (e.g. not enough filler) */
    RUNNER_STORE_ERROR,     /* the store could not be written */
    RUNNER_MISMATCH,        /* the server counts prompts differently (message says how) */
    RUNNER_INCOMPLETE       /* --batch: trials left after the resubmission rounds (message) */
};

/* "complete", "interrupted", ... */
const char *runner_end_name(enum runner_end e);

#define RUNNER_TOP_ERRORS 5

struct runner_result {
    enum runner_end end;
    long planned;                  /* trials in the plan */
    long already_done;             /* final in the store before this invocation (skipped) */
    long finished;                 /* trials this invocation brought to a final state */
    long outcomes[OUTCOME__COUNT]; /* of this invocation's finished trials */
    /* of them, scored and correct on the depth curve (trial_on_curve) */
    long curve_scored, curve_correct;
    long cut;                      /* of them, correct/wrong answers cut at the answer budget */
    long reused;                   /* of them, answered from --reuse (not sent) */
    long starved_reasoning_tokens; /* reasoning tokens the starved ones spent (or completion) */
    long requests;                 /* HTTP requests sent */
    long retries;                  /* requests that were retries */
    long prompt_tokens;            /* server usage (local count when not reported) */
    long completion_tokens;
    /* of prompt_tokens, those the server says came from its cache (cached_tokens, else
       timings.cache_n): billed at price_cached_in */
    long prompt_cached;
    /* llama.cpp "timings" summed over the trials that had them (this invocation) */
    long timings_trials, cache_n, prompt_n;
    /* usage.prompt_tokens_details.cached_tokens summed over the trials that reported it */
    long cached_trials, cached_tokens;
    /*
     * Send order by depth: per distinct depth of the plan (depth_bp[i], in the plan's
     * order), the mean seconds from the run's start to the trials' sends (this invocation);
     * count 0 when none was sent. Malloc'd, depth_nr entries.
     */
    enum runner_schedule schedule; /* the order used */
    size_t depth_nr;
    int *depth_bp;
    double *depth_send_s;
    long *depth_sent;
    double cost_usd;           /* -1 when prices are unknown */
    long tokenizer_mismatches; /* |usage.prompt_tokens / realized - 1| > 2% */
    double worst_mismatch;     /* largest such ratio deviation */
    int min_window;            /* smallest in-flight limit reached (AIMD) */
    long window_decreases;     /* times the limit shrank on rate limits */
    /*
     * Time-weighted mean of requests in flight from the first submission to
     * the last answer: close to the window means the harness kept it full
     * (the server, not the harness, set the pace).
     */
    double mean_inflight;
    enum client_reason fatal_reason;
    char *message;            /* malloc'd: why the run stopped (FATAL/INPUT/STORE), or NULL */
    char *served_model;       /* first model the server echoed, malloc'd or NULL */
    char *system_fingerprint; /* first fingerprint seen, malloc'd or NULL */
    /* Most frequent error messages of trials that ended in error. */
    char *top_error[RUNNER_TOP_ERRORS];
    long top_error_count[RUNNER_TOP_ERRORS];
    double wall_seconds;
};

void runner_result_init(struct runner_result *r);
void runner_result_release(struct runner_result *r);

/*
 * Execute the plan: every trial not in cfg->done is sent, scored and stored
 * (a trial already final is never sent again). Fills *res (initialised by
 * the callee) and returns 0 when it ended for any reason in enum runner_end,
 * or -1 for a broken configuration (message printed). Never exits (except on
 * the second signal, see above) and never prints to stdout.
 */
int runner_run(const struct runner_config *cfg, struct runner_result *res);

/*
 * Score an answer of plan trial `trial` as the runner does (its question's scorer, or every
 * needle's value with a needles axis): run --batch scores its output lines with it. 0 with
 * *score, or -1 with why in err.
 */
struct strbuf;
int runner_score(const struct runner_config *cfg, size_t trial, const char *answer, double *score,
                 struct strbuf *err);
/*
 * Count a finished trial of the plan with its outcome into res (finished, outcomes, and the
 * depth curve's scored and correct: the progress lines' accuracy).
 */
struct plan_trial;
void runner_result_count(struct runner_result *res, const struct plan_trial *pt,
                         enum trial_outcome outcome);

/*
 * The one scoring rule of a trial's answer, which run, run --batch and rescore share: a
 * needle-absent twin (axes absent=yes) is correct when the answer abstains (ab; NULL: the
 * default phrase); with a needles axis every needle's value must be there (all-of); else the
 * question's scorer `kind` with its answers. 0 with *score, or -1 with why in err.
 */
struct question;
int runner_score_answer(const struct question *q, const char *axes, enum scorer_kind kind,
                        const struct abstain_rule *ab, const char *answer, double *score,
                        struct strbuf *err);

#endif

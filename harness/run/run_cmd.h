#ifndef RUN_CMD_H
#define RUN_CMD_H

/*
 * The private header of `dipmap run` (cmd/cmd_run.c), shared with the modules that
 * hold its logic where the unit tests can link it: struct run_opts (the options as
 * given), struct run_ctx (everything one run holds between its phases) and the phases
 * kept in run_options.c, run_ctx.c, run_checks.c, dry_run.c and resume_hint.c.
 */

#include <pthread.h>
#include <stddef.h>

#include "base/config.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "client/client.h"
#include "prompt/dataset.h"
#include "prompt/layout.h"
#include "prompt/prompt.h"
#include "prompt/retrieval.h"
#include "run/plan.h"
#include "run/reuse.h"
#include "run/runner.h"
#include "run/score.h"
#include "store/store.h"
#include "tokenizer/tokenizer.h"

/* The most named axes one run crosses. */
#define RUN_AXES_MAX 8

/* Everything `run` can be told, flag or config file. */
struct run_opts {
    struct strvec endpoints, headers, tags;
    const char *model, *dataset, *haystack, *lengths, *depths, *tmpl, *tokenizer;
    const char *max_tokens_field, *api_key_env, *db, *run, *shard, *scorer, *config;
    const char *progress, *reasoning_effort, *extra_body, *reasoning_tags, *controls, *special,
        *reuse, *schedule;
    const char *question_at, *distractors, *haystack_order, *needles, *spacing,
        *layout;                 /* named axes: run_axes[] */
    const char *hops, *depths_b; /* --hops 2: the axes hops and depth-b (parse_axes()) */
    const char *template_overhead;
    const char *batch_window, *batch_fallback; /* run --batch */
    long batch_max_requests, batch_max_bytes;
    int batch, batch_cancel;
    double batch_poll, price_batch_in, price_batch_out;
    long repeats, concurrency, rpm, tpm, max_tokens, seed, max_attempts, retry_base_ms;
    long questions; /* --questions N: the first N of the seeded order (0 = all) */
    double temperature, top_p, timeout, connect_timeout, price_in, price_out, max_cost;
    double max_error_rate, drain_seconds, progress_interval, latency_s;
    int completions, dry_run, probe, store_prompts, context_check, insecure, verbose,
        allow_mismatch, no_cache_reuse;
    double price_cached_in;
    int price_in_seen, price_out_seen; /* given on the command line or in the config file */
    /* the order experiment (--experiment order) */
    const char *experiment, *policies, *ks, *rank_dist;
    long budget;
    double rank_p;
    int group_by_doc;
    int lengths_seen, depths_seen;
    char *experiment_json; /* its identity settings (validate_order()), owned; NULL for depth */
};

/*
 * Everything one `dipmap run` holds between its phases. Each phase below
 * takes the context, returns 0 to go on or -1 to stop with c->ret as the
 * exit code (DM_EXIT_USAGE unless the phase says otherwise); run_ctx_release
 * frees whatever the phases got to.
 */
struct run_ctx {
    int argc;
    const char **argv;
    struct run_opts o;
    struct strvec rest;
    struct config cfgfile;
    struct strbuf err, tpl_path, sb;
    struct strbuf extra_body; /* --extra-body, checked and compact */
    char *think_open, *think_close;
    struct reuse_index *reuse; /* --reuse: stored answers by request hash */
    /* options, parsed */
    enum runner_progress progress;
    enum runner_schedule schedule; /* --schedule; chosen after the preflight when not given */
    enum client_max_tokens_field mtf;
    enum scorer_kind default_scorer;
    long *lengths, max_len;
    long overhead;       /* template overhead (overhead.h); -1 until given, stored or measured */
    int mismatch_warned; /* the overhead measurement warned of a tokenizer mismatch */
    /* per layout (layout.h): what the server adds per haystack turn pair; measured or stored */
    struct prompt_turn_cost turn_cost[PROMPT_LAYOUT__COUNT];
    int turn_overhead_known;
    int *depths;
    size_t nl, nd;
    unsigned shard_i, shard_n;
    unsigned controls; /* PLAN_CONTROL_* */
    /* inputs */
    struct golden_set gs;
    enum scorer_kind *scorers; /* per question */
    struct haystack hay;
    struct prompt_template tpl;
    struct plan_spec spec;
    struct plan_axis axes[RUN_AXES_MAX]; /* the named axes given (run_axes[]), in option order */
    struct strvec axis_values[RUN_AXES_MAX];
    size_t axes_nr;
    struct order_setup ord; /* --experiment order: its axes, k and rank distribution */
    struct plan plan;
    int have_gs, have_hay, have_tpl, have_plan;
    /* the endpoint, the store, the run */
    const char *api_key, *db;
    struct client_config ccfg;
    struct client *client;
    struct client_preflight_info pinfo;
    int have_pinfo;
    struct store *st;
    struct store_count_cache count_cache; /* --tokenizer server: counts in the store, own handle */
    struct tokenizer *tk;
    char *run_name;
    struct run_info want, have;
    int exists, locked;
    double spent_before; /* USD the run spent in earlier invocations (merged shards included) */
    /* execution */
    struct prompt_builder *builder;
    struct store_done_set *done;
    struct runner_result res;
    int ret;
};

/* run_options.c */
int shard_parse(const char *s, unsigned *index, unsigned *count, struct strbuf *err);
void run_opts_init(struct run_opts *o);
void run_opts_release(struct run_opts *o);
int check_long(const char *name, long v, long lo, long hi);
int check_double(const char *name, double v, double lo, int lo_open, double hi);
int check_settings(struct run_opts *o);
int validate_options(struct run_ctx *c);

/* run_ctx.c */
void run_ctx_init(struct run_ctx *c, int argc, const char **argv);
int run_ctx_release(struct run_ctx *c);
char *run_settings(const struct run_ctx *c);

/* run_checks.c */
int check_context(struct run_ctx *c);
int measure_template_overhead(struct run_ctx *c);
int check_lengths(struct run_ctx *c);

/* dry_run.c */
void dry_run_batch(struct run_ctx *c, double online_usd, struct strbuf *out);

/* resume_hint.c */
void resume_hint_with(int argc, const char **argv, const char *run, const char *db, int run_given,
                      const char *opt, const char *val);
void resume_hint(int argc, const char **argv, const char *run, const char *db, int run_given);

#endif

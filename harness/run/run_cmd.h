#ifndef RUN_CMD_H
#define RUN_CMD_H

/*
 * The private header of `dipmap run` (cmd/cmd_run.c), shared with the modules that
 * hold its logic where the unit tests can link it: struct run_opts (the options as
 * given), struct run_ctx (everything one run holds between its phases) and the phases
 * kept in run_options.c, run_ctx.c, run_checks.c, run_config.c, dry_run.c and resume_hint.c.
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
#define RUN_AXES_MAX PLAN_AXES_MAX

/* Everything `run` can be told, flag or config file. */
struct run_opts {
    struct strvec endpoints, headers, tags;
    const char *model, *dataset, *haystack, *lengths, *depths, *tmpl, *tokenizer;
    const char *max_tokens_field, *api_key_env, *db, *run, *shard, *scorer, *config;
    const char *progress, *reasoning_effort, *extra_body, *reasoning_tags, *controls, *special,
        *reuse, *schedule;
    const char *question_at, *distractors, *haystack_order, *needles, *spacing, *layout,
        *needle_tokens, *ordinal, *arm; /* named axes: run_axes[] */
    const char *hops, *depths_b;        /* --hops 2: the axes hops and depth-b (parse_axes()) */
    /* --absent P, --abstain-phrase, --abstain-regex (docs/effects.md "Needle-absent trials") */
    const char *absent, *abstain_phrase;
    struct strvec abstain_regex;
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
    int overhead_stored; /* c->overhead is the resumed run's: measured again, must agree */
    int mismatch_warned; /* the overhead measurement warned of a tokenizer mismatch */
    /* per layout (layout.h): what the server adds per haystack turn pair; measured or stored */
    struct prompt_turn_cost turn_cost[PROMPT_LAYOUT__COUNT];
    int turn_overhead_known;
    int *depths;
    size_t nl, nd;
    unsigned shard_i, shard_n;
    unsigned controls; /* PLAN_CONTROL_* */
    double absent;     /* --absent: the share of depth trials with an absent twin (0: none) */
    struct abstain_rule abstain; /* the detector, borrowed from c->o */
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
    int fill_probe;      /* a resumed run without a request probe gets want's (check_probe()) */
    double spent_before; /* USD the run spent in earlier invocations (merged shards included) */
    /* execution */
    struct prompt_builder *builder;
    struct store_done_set *done;
    struct runner_result res;
    int ret;
};

/*
 * run_options.c: run_opts_init() sets the defaults (the runner's own, runner_config_init());
 * run_opts_release() frees what the options own.
 */
void run_opts_init(struct run_opts *o);
void run_opts_release(struct run_opts *o);
/*
 * Every numeric setting of o against its range, the message in err naming the option, its range
 * and the value given ("--repeats must be 1 to 1000000 (got 0)"); the prices only together
 * (unset ones become -1), the batch prices default to half the online ones. 0 or -1.
 */
int run_options_check(struct run_opts *o, struct strbuf *err);
/*
 * The options of c->o checked and parsed into c (schedule, scorer, lengths, depths, controls,
 * the named axes, --experiment order, the shard), after run_options_check(). 0, or -1 with the
 * message in c->err, naming the option (c->ret stays DM_EXIT_USAGE; the command prints it).
 */
int run_options_validate(struct run_ctx *c);

/*
 * run_ctx.c: run_ctx_init() sets up an empty context for argv (c->ret DM_EXIT_USAGE);
 * run_ctx_release() frees whatever the phases got to and returns the exit code (a store that
 * fails to close turns success into DM_EXIT_INFRA).
 */
void run_ctx_init(struct run_ctx *c, int argc, const char **argv);
int run_ctx_release(struct run_ctx *c);
/*
 * Free what only sending needed (the done set, the prompt builder, the reuse index, the plan,
 * the golden set and haystack) before the closing figures read the store: a million-trial run's
 * plan and done set would otherwise sit under the statistics' points. Safe to repeat;
 * run_ctx_release() calls it.
 */
void run_ctx_release_sending(struct run_ctx *c);
/* The run's identity settings (run_identity_settings()) from what c holds now; malloc'd. */
char *run_ctx_settings(const struct run_ctx *c);
/*
 * The run's status for how res ended, *ret its exit code (enum dm_exit); *no_score 1 when it
 * completed without a single correct or wrong answer (then RUN_FAILED, never a success).
 */
enum run_status run_ctx_end_status(const struct runner_result *res, int *ret, int *no_score);

/*
 * run_checks.c, the checks before the first trial; each returns 0, or -1 after error() (the
 * exit code in c->ret). run_checks_axes(): the named axes against the golden set, the
 * template and the request kind (needles and hops need gold chunks, question-at its slots,
 * a layout chat requests); run_checks_context(): every length plus --max-tokens fits the
 * server's context (c->pinfo); run_checks_overhead(): the tokens the server adds per request
 * and per turn pair measured (c->overhead, c->turn_cost; c->want's settings updated);
 * run_checks_lengths(): the first prompt of every planned length can be built.
 */
int run_checks_axes(struct run_ctx *c);
/*
 * --needle-tokens: every question's gold sized to every size with the run's tokenizer before a
 * trial is sent, so a size that cannot hold a question's answer sentence stops the run with
 * one error naming the file, line, question and size (needle_size.h).
 */
int run_checks_needle_tokens(struct run_ctx *c);
int run_checks_context(struct run_ctx *c);
/*
 * The one message for a key the endpoint refused (401/403) at any setup step: the preflight's
 * /v1/models, /tokenize, the overhead probe. what: the refusal (the URL and the server's
 * words); the hint names the key's variable when none was sent. c->ret = DM_EXIT_USAGE
 * (README "Exit codes": auth refused). run_checks_auth(): the same when a blocking call of the
 * client was refused (client_auth_refused()); 0 when none was, else -1 after saying so.
 */
void run_auth_error(struct run_ctx *c, const char *what);
int run_checks_auth(struct run_ctx *c);
int run_checks_overhead(struct run_ctx *c);
int run_checks_lengths(struct run_ctx *c);

/*
 * run_record.c: run_record_describe() fills c->want, what identifies the run (inputs' hashes,
 * settings, endpoints, tags, shard, planned trials). run_record() creates the run row (or
 * updates a resumed one: tags added, planned counts, the request probe), keeps the golden
 * set in the store, sets status running and the served model, and commits; 0, or -1 with
 * c->ret set and the reason in c->err (empty when the store printed it).
 */
int run_record_describe(struct run_ctx *c);
int run_record(struct run_ctx *c);

/*
 * run_config.c: run_config_runner() is the runner's configuration for c's run (pointers into
 * c: c outlives the runner); run_config_schedule() sets rc's send order (--schedule, else
 * cache when the server caches prefixes and reuse is allowed, else plan), llama.cpp slots and
 * prompt_cache_key hints, the no-reuse mode for the server kind, and says so on stderr.
 */
struct runner_config run_config_runner(struct run_ctx *c);
void run_config_schedule(struct run_ctx *c, struct runner_config *rc);

/*
 * dry_run.c: the --dry-run text appended to out, for the command to print. *usd is the
 * estimated cost, -1 without prices. dry_run_estimate(): the matrix, tokens, cost, time at
 * latency_s per request (probed_len > 0: measured by --probe at that length), the batch cost
 * with --batch, the prefix cache and the power; dry_run_order(): the order experiment's
 * prompt tokens per k (counted when c->tk is a local tokenizer); dry_run_batch(): the batch
 * line. dry_run_probe(): one real request timed (the client, tokenizer and preflight ready);
 * 0, or -1 with the reason in c->err and c->ret set (the command prints both).
 */
void dry_run_estimate(struct run_ctx *c, double latency_s, long probed_len, struct strbuf *out,
                      double *usd);
void dry_run_order(struct run_ctx *c, struct strbuf *out, double *usd);
void dry_run_batch(struct run_ctx *c, double online_usd, struct strbuf *out);
int dry_run_probe(struct run_ctx *c, double *seconds, long *length);

/*
 * resume_hint.c: resume_hint_format() appends to out the lines that resume the run: the same
 * command (argv, shell-quoted, credential header values redacted) naming the run unless
 * run_given, with option opt's value replaced by val when opt is given (added when argv did
 * not have it: it came from --config). resume_hint() and resume_hint_with() print them on
 * stderr.
 */
void resume_hint_format(struct strbuf *out, int argc, const char **argv, const char *run,
                        const char *db, int run_given, const char *opt, const char *val);
void resume_hint_with(int argc, const char **argv, const char *run, const char *db, int run_given,
                      const char *opt, const char *val);
void resume_hint(int argc, const char **argv, const char *run, const char *db, int run_given);

#endif

/*
 * `dipmap run`: options (flags over a JSON config file), inputs, the trial
 * plan and --dry-run, the API key from the environment, preflight, creating
 * or resuming the run in the store (input hashes, run lock), then the runner;
 * maps how the run ended to the run's status and the exit code. The phases'
 * logic lives in run/ behind run/run_cmd.h (options, checks, dry run, context,
 * the run's record in the store).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/builtin.h"
#include "base/opt.h"
#include "base/secret.h"
#include "prompt/layout.h"
#include "prompt/prompt.h"
#include "run/batch.h"
#include "run/plan.h"
#include "run/run_identity.h"
#include "run/trial_send.h"
#include "report/runbrief.h"
#include "store/store.h"
#include "tokenizer/tokenizer.h"
#include "run/run_cmd.h"
#include "base/version.h"
#include "base/xalloc.h"
#include "base/utc.h"

#include "base/banned.h"

static const char *const run_usage[] = {
    "dipmap run --endpoint URL --model NAME --dataset FILE [--lengths " PLAN_DEFAULT_LENGTHS
    "] [options]",
    "dipmap run --config FILE [options]          (flags override the file)",
    "dipmap run --run NAME ...                   (an existing run is resumed)",
    NULL,
};

/* A key on the command line ends up in shell history and ps: refuse it outright. */
static int refuse_api_key_argument(int argc, const char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            break;
        if (!strcmp(argv[i], "--api-key") || !strncmp(argv[i], "--api-key=", 10)) {
            error("run: --api-key is not accepted: API keys are read only from the environment");
            fprintf(stderr,
                    "hint: export the key (e.g. " SECRET_DEFAULT_KEY_ENV ") and pass --api-key-env "
                    "VAR when it lives in another variable\n");
            return -1;
        }
    }
    return 0;
}

/* The options whose presence (not only their value) later checks need. */
static void note_seen_options(struct run_ctx *c, struct option *opts)
{
    c->o.lengths_seen = opt_find(opts, "lengths")->seen != 0;
    c->o.depths_seen = opt_find(opts, "depths")->seen != 0;
    c->ord.order_opts_seen = opt_find(opts, "policies")->seen || opt_find(opts, "k")->seen ||
                             opt_find(opts, "group-by-doc")->seen ||
                             opt_find(opts, "budget")->seen || opt_find(opts, "rank-dist")->seen ||
                             opt_find(opts, "rank-p")->seen;
    c->ord.rank_p_seen = opt_find(opts, "rank-p")->seen != 0;
    c->o.price_in_seen = opt_find(opts, "price-in")->seen != 0;
    c->o.price_out_seen = opt_find(opts, "price-out")->seen != 0;
}

/*
 * The option table, then the command line and --config FILE applied to it (into c->o;
 * --api-key is refused outright).
 * Long because: the table has one entry per option with its help text (some 70);
 * it stays here, in one piece, because `dipmap help run` prints it, --config applies
 * to it and test 006 reads it. The code after it is a few lines.
 */
static int parse_run_options(struct run_ctx *c)
{
    struct option opts[] = {
        OPT_GROUP("what to run"),
        OPT_LIST('e', "endpoint", &c->o.endpoints, "URL",
                 "OpenAI-compatible base URL (repeatable: replicas share the load)"),
        OPT_STRING('m', "model", &c->o.model, "NAME", "model name sent to the endpoint"),
        OPT_STRING('d', "dataset", &c->o.dataset, "FILE", "golden set (JSONL)"),
        OPT_STRING(0, "haystack", &c->o.haystack, "FILE", "filler chunks (JSONL or .txt)"),
        OPT_STRING('l', "lengths", &c->o.lengths, "LIST",
                   "prompt lengths in tokens, or percentages of the server's context (25%,50%,90%; "
                   "stored as tokens) (default " PLAN_DEFAULT_LENGTHS ")"),
        OPT_STRING(0, "depths", &c->o.depths, "SPEC",
                   "gold depths in %: start:stop:step (the steps must reach stop) or a list "
                   "(default " PLAN_DEFAULT_DEPTHS ")"),
        OPT_LONG(0, "repeats", &c->o.repeats, "N", "distractor orders per cell (default 1)"),
        OPT_LONG(
            0, "questions", &c->o.questions, "N",
            "map only N questions: the first N of an order fixed by --seed (not part of the run's "
            "identity: the same run with a larger N adds questions; dipmap gate's rounds)"),
        OPT_STRING(
            0, "controls", &c->o.controls, "LIST",
            "closed-book,oracle: per question and repeat also ask with no documents / with the "
            "gold chunk alone"),
        OPT_STRING(
            0, "question-at", &c->o.question_at, "LIST",
            "axis: end,start,both -- the question after the documents, before them, or both (the "
            "template's {question} lines before/after {documents}; e.g. --template qa-both)"),
        OPT_STRING(
            0, "distractors", &c->o.distractors, "LIST",
            "axis: hard,random,none -- the question's hard negatives (golden set \"distractors\", "
            "else haystack chunks by BM25 similarity to the question), random haystack chunks, or "
            "neutral repeated filler"),
        OPT_STRING(
            0, "haystack-order", &c->o.haystack_order, "LIST",
            "axis: coherent,shuffled -- one run of consecutive haystack chunks kept in file order, "
            "or the same chunks shuffled"),
        OPT_STRING(
            0, "arm", &c->o.arm, "LIST",
            "axis: haystack,padding,adjacent -- the haystack prompt, the same length of neutral "
            "padding with the gold at the same depth, or the haystack with the gold next to the "
            "question (with --controls oracle: the length, distraction and position penalties)"),
        OPT_STRING(
            0, "hops", &c->o.hops, "2",
            "two-hop chains: needle A (the question's first gold chunk) at the depth, needle B "
            "(its second) at each --depths-b, both needed for the answer"),
        OPT_STRING(0, "depths-b", &c->o.depths_b, "LIST",
                   "with --hops 2: needle B's depths (default: --depths)"),
        OPT_STRING(
            0, "absent", &c->o.absent, "P",
            "needle-absent trials: a share P of the trials (drawn from --seed) also asked with the "
            "gold chunk replaced by the next distractor (axis absent=yes); scored as abstention "
            "(correct) or a hallucinated answer (needs a template that says --abstain-phrase, e.g. "
            "--template qa-absent)"),
        OPT_STRING(
            0, "abstain-phrase", &c->o.abstain_phrase, "TEXT",
            "with --absent: the words that mark an abstention, as the template tells the model "
            "(default \"not in the documents\")"),
        OPT_LIST(0, "abstain-regex", &c->o.abstain_regex, "RE",
                 "with --absent: an answer matching this PCRE2 pattern abstains too (repeatable)"),
        OPT_STRING(0, "layout", &c->o.layout, "LIST",
                   "axis, comma-separated: where the haystack goes, " PROMPT_LAYOUT_HELP
                   "all but documents in chat requests only"),
        OPT_STRING(
            0, "needles", &c->o.needles, "LIST",
            "axis: e.g. 1,2,4 -- that many gold chunks, placed apart, all needed for the answer "
            "(each gold chunk's \"value\", scored all-of); depth = the first needle's"),
        OPT_STRING(0, "spacing", &c->o.spacing, "LIST",
                   "axis: e.g. 0,25,50 -- % of the distractor tokens between consecutive needles"),
        OPT_STRING(
            0, "needle-tokens", &c->o.needle_tokens, "LIST",
            "axis: e.g. 16,64,256 -- the gold chunk trimmed around its answer sentence or padded "
            "with the haystack text around it to exactly that many tokens"),
        OPT_STRING(
            0, "ordinal", &c->o.ordinal, "LIST",
            "axis: e.g. 2,4,8 -- that many similar needles (gold chunks 1..N, in order), the "
            "question naming one occurrence (gen ordinal); depth = that occurrence's, the others "
            "spread by the seed; scored exactly"),
        OPT_STRING(0, "template", &c->o.tmpl, "FILE|NAME",
                   "prompt template (default " PROMPT_DEFAULT_TEMPLATE ")"),
        OPT_STRING(
            0, "special", &c->o.special, "parse|plain",
            "special-token text in prompts: its id (parse; default for tokenizer.json) or plain "
            "text (plain; default for .tiktoken)"),
        OPT_STRING('t', "tokenizer", &c->o.tokenizer, "NAME|FILE|server",
                   "counts lengths (default " TOKENIZER_DEFAULT
                   "; server = the endpoint's /tokenize)"),
        OPT_STRING(0, "template-overhead", &c->o.template_overhead, "N|auto",
                   "tokens the server adds per request (chat template, BOS); auto measures them "
                   "(default)"),
        OPT_BOOL(0, "allow-tokenizer-mismatch", &c->o.allow_mismatch,
                 "keep going when the server counts prompts >2% off the run's tokenizer"),
        OPT_STRING(0, "scorer", &c->o.scorer, "NAME",
                   "litm, kv, contains, exact, regex, all (default contains)"),
        OPT_GROUP("request"),
        OPT_LONG(0, "max-tokens", &c->o.max_tokens, "N",
                 "answer budget (default " OPT_DEFAULT(CLIENT_DEFAULT_MAX_TOKENS) ")"),
        OPT_STRING(0, "reasoning-effort", &c->o.reasoning_effort, "E",
                   "send reasoning_effort: low, medium or high (reasoning models)"),
        OPT_STRING(0, "extra-body", &c->o.extra_body, "JSON",
                   "JSON object merged into every request, e.g. '{\"chat_template_kwargs\": "
                   "{\"enable_thinking\": false}}' (part of the run's identity)"),
        OPT_STRING(
            0, "reuse", &c->o.reuse, "DB|RUN",
            "take the stored answer of any byte-identical request (same model, prompt, parameters, "
            "extra body) from store file DB or run RUN of --db instead of sending it"),
        OPT_STRING(0, "reasoning-tags", &c->o.reasoning_tags, "OPEN,CLOSE",
                   "inline reasoning block split off the answer (default <think>,</think>)"),
        OPT_STRING(
            0, "max-tokens-field", &c->o.max_tokens_field, "F",
            "auto (switched once when the server refuses it), max_tokens or max_completion_tokens"),
        OPT_DOUBLE(0, "temperature", &c->o.temperature, "X", "0 to 2 (default 0)"),
        OPT_DOUBLE(0, "top-p", &c->o.top_p, "X", "above 0, at most 1 (default 1)"),
        OPT_LONG(0, "seed", &c->o.seed, "N", "request seed and distractor seed (default 0)"),
        OPT_BOOL(0, "completions", &c->o.completions, "use /v1/completions instead of chat"),
        OPT_STRING(0, "api-key-env", &c->o.api_key_env, "VAR",
                   "environment variable holding the API key (default " SECRET_DEFAULT_KEY_ENV ")"),
        OPT_LIST('H', "header", &c->o.headers, "'K: V'", "extra HTTP header (repeatable)"),
        OPT_DOUBLE(0, "timeout", &c->o.timeout, "SECONDS", "per request (default 600)"),
        OPT_DOUBLE(0, "connect-timeout", &c->o.connect_timeout, "SECONDS", "default 10"),
        OPT_BOOL(0, "insecure", &c->o.insecure, "do not verify TLS certificates"),
        OPT_BOOL('v', "verbose", &c->o.verbose, "log requests on stderr (key redacted)"),
        OPT_GROUP("scheduling"),
        OPT_LONG('c', "concurrency", &c->o.concurrency, "N",
                 "requests in flight (default " OPT_DEFAULT(RUNNER_DEFAULT_CONCURRENCY) ")"),
        OPT_STRING(
            0, "schedule", &c->o.schedule, "cache|shuffle|plan",
            "send order: cache (a group's deepest gold first, the rest after its answer, to the "
            "same endpoint and slot: default when the server caches prefixes), shuffle, or plan "
            "(the default otherwise)"),
        OPT_BOOL(0, "no-cache-reuse", &c->o.no_cache_reuse,
                 "forbid prefix-cache reuse (vLLM cache_salt per request, llama.cpp cache_prompt "
                 "false, else a unique first line) so latencies are not flattered"),
        OPT_LONG(0, "rpm", &c->o.rpm, "N", "requests per minute limit"),
        OPT_LONG(0, "tpm", &c->o.tpm, "N", "tokens per minute limit"),
        OPT_DOUBLE(0, "latency-s", &c->o.latency_s, "S",
                   "--dry-run: mean seconds per request, for the wall-time estimate"),
        OPT_BOOL(0, "probe", &c->o.probe,
                 "--dry-run: time one real request (the first trial at the longest length) and use "
                 "it as the latency; nothing is stored"),
        OPT_LONG(0, "max-attempts", &c->o.max_attempts, "N",
                 "per trial (default 6; at most 2 for a 500 \"Failed to parse input\", the server "
                 "rejecting the model's own output)"),
        OPT_LONG(0, "retry-base-ms", &c->o.retry_base_ms, "MS",
                 "first backoff without a server hint (default 1000)"),
        OPT_DOUBLE(0, "max-error-rate", &c->o.max_error_rate, "F",
                   "stop (exit 3) when more trials end in error (default 0.05)"),
        OPT_DOUBLE(0, "drain-seconds", &c->o.drain_seconds, "S",
                   "wait for in-flight requests after Ctrl-C (default 30)"),
        OPT_STRING(0, "shard", &c->o.shard, "I/N|auto",
                   "run shard I of N (from 1), or auto from Kubernetes/Slurm/GitLab"),
        OPT_BOOL(0, "context-check", &c->o.context_check,
                 "refuse lengths the server's context cannot hold (default on)"),
        OPT_STRING(0, "progress", &c->o.progress, "auto|bar|lines|none",
                   "progress display (default auto)"),
        OPT_DOUBLE(0, "progress-interval", &c->o.progress_interval, "S",
                   "seconds between progress lines off a terminal (default 10)"),
        OPT_GROUP("store and budget"),
        OPT_DB(&c->o.db, "SQLite store"),
        OPT_STRING(0, "run", &c->o.run, "NAME", "run name; an existing run is resumed"),
        OPT_LIST(0, "tag", &c->o.tags, "TAG", "label the run (repeatable; a resume adds tags)"),
        OPT_BOOL(0, "store-prompts", &c->o.store_prompts, "store rendered prompts"),
        OPT_BOOL(0, "dry-run", &c->o.dry_run,
                 "make the run's checks, print the matrix size, tokens and cost; generate nothing"),
        OPT_DOUBLE(0, "price-in", &c->o.price_in, "USD",
                   "per 1M prompt tokens, >= 0 (with --price-out)"),
        OPT_DOUBLE(0, "price-out", &c->o.price_out, "USD",
                   "per 1M completion tokens, >= 0 (with --price-in)"),
        OPT_DOUBLE(0, "price-cached-in", &c->o.price_cached_in, "USD",
                   "per 1M prompt tokens the server took from its cache (default: --price-in)"),
        OPT_DOUBLE(0, "max-cost", &c->o.max_cost, "USD",
                   "stop when the run (every invocation) has spent this (exit 4, resumable); needs "
                   "prices"),
        OPT_STRING(0, "config", &c->o.config, "FILE", "JSON file of these options"),
        OPT_GROUP("batch API (half price, answered within a window)"),
        OPT_BOOL(0, "batch", &c->o.batch,
                 "send the trials through the OpenAI Batch API (/v1/files, /v1/batches); the same "
                 "command after a kill re-attaches to the submitted batches"),
        OPT_STRING(0, "batch-window", &c->o.batch_window, "WINDOW",
                   "completion window asked for (default 24h)"),
        OPT_LONG(0, "batch-max-requests", &c->o.batch_max_requests, "N",
                 "requests per input file (default 50000)"),
        OPT_LONG(0, "batch-max-bytes", &c->o.batch_max_bytes, "BYTES",
                 "bytes per input file (default 200000000)"),
        OPT_STRING(0, "batch-fallback", &c->o.batch_fallback, "batch|online",
                   "expired or server-failed lines go into a new batch (default) or online"),
        OPT_BOOL(0, "batch-cancel", &c->o.batch_cancel,
                 "cancel the run's submitted batches (what they finished is stored)"),
        OPT_DOUBLE(0, "batch-poll", &c->o.batch_poll, "SECONDS",
                   "first interval between polls, doubling up to 60 (default 5)"),
        OPT_DOUBLE(0, "price-batch-in", &c->o.price_batch_in, "USD",
                   "per 1M prompt tokens in a batch (default half of --price-in)"),
        OPT_DOUBLE(0, "price-batch-out", &c->o.price_batch_out, "USD",
                   "per 1M completion tokens in a batch (default half of --price-out)"),
        OPT_GROUP("order experiment"),
        OPT_STRING(
            0, "experiment", &c->o.experiment, "depth|order",
            "depth (default): the gold moved through --depths; order: retrieved chunks passed in "
            "each --policies order for each --k"),
        OPT_STRING(0, "policies", &c->o.policies, "LIST",
                   "source,best-first,edges-first,second-last,ascending (default all)"),
        OPT_STRING(0, "k", &c->o.ks, "K,...", "chunks passed, the top k (default 3,5,10,20)"),
        OPT_BOOL(0, "group-by-doc", &c->o.group_by_doc,
                 "keep the chunks of one document (\"doc\") adjacent"),
        OPT_LONG(0, "budget", &c->o.budget, "TOKENS",
                 "each prompt fits this many tokens: the lowest-ranked chunks that do not fit are "
                 "dropped"),
        OPT_STRING(
            0, "rank-dist", &c->o.rank_dist, "FILE",
            "golden set questions: the gold's retrieval rank drawn from these probabilities (one "
            "per rank)"),
        OPT_DOUBLE(0, "rank-p", &c->o.rank_p, "P",
                   "... or from geometric P, the chance of rank 1 "
                   "(default " OPT_DEFAULT(ORDER_DEFAULT_RANK_P) ")"),
        OPT_END(),
    };
    static const char *const refused[] = {"api-key", "api_key", "apikey", NULL};
    int prc;

    if (refuse_api_key_argument(c->argc, c->argv) < 0)
        return -1;
    prc = parse_options(c->argc, c->argv, opts, run_usage, &c->rest);
    if (prc) {
        c->ret = parse_options_exit(prc);
        return -1;
    }
    if (c->rest.nr) {
        error("run: unexpected argument '%s'", c->rest.v[0]);
        return -1;
    }
    strbuf_reset(&c->err);
    if (c->o.config &&
        config_apply_file(&c->cfgfile, c->o.config, opts, refused,
                          "API keys come only from the environment (see --api-key-env)",
                          &c->err) < 0)
        return error("%s", c->err.buf);
    note_seen_options(c, opts);
    return 0;
}

/* The client; the API key comes from the environment only. */
static int open_client(struct run_ctx *c)
{
    size_t i;

    if (c->client) /* opened early by resolve_lengths() */
        return 0;
    c->api_key = secret_api_key(c->o.api_key_env);
    for (i = 0; i < c->o.endpoints.nr; i++)
        strvec_push(&c->ccfg.endpoints, c->o.endpoints.v[i]);
    for (i = 0; i < c->o.headers.nr; i++)
        strvec_push(&c->ccfg.headers, c->o.headers.v[i]);
    c->ccfg.model = c->o.model;
    c->ccfg.api_key = c->api_key;
    c->ccfg.legacy_completions = c->o.completions;
    c->ccfg.temperature = c->o.temperature;
    c->ccfg.top_p = c->o.top_p;
    c->ccfg.seed = c->o.seed;
    c->ccfg.max_tokens = c->o.max_tokens;
    c->ccfg.max_tokens_field = c->mtf;
    c->ccfg.timeout_ms = (long)(c->o.timeout * 1000);
    c->ccfg.connect_timeout_ms = (long)(c->o.connect_timeout * 1000);
    c->ccfg.reasoning_effort = c->o.reasoning_effort;
    c->ccfg.extra_body = c->extra_body.len ? c->extra_body.buf : NULL;
    c->ccfg.reasoning_open = c->think_open;
    c->ccfg.reasoning_close = c->think_close;
    c->ccfg.insecure = c->o.insecure;
    c->ccfg.verbose = c->o.verbose;
    c->ccfg.no_count_probe = c->o.dry_run && !c->o.probe;
    strbuf_reset(&c->err);
    c->client = client_new(&c->ccfg, &c->err);
    if (!c->client) {
        error("run: %s", c->err.buf);
        return -1;
    }
    return 0;
}

/* The tokenizer that counts lengths (server: the endpoint's /tokenize, cached in the store). */
static int load_tokenizer(struct run_ctx *c)
{
    if (c->tk) /* loaded by the dry run's checks */
        return 0;
    if (!strcmp(c->o.tokenizer, "server")) {
        /* named after the model, not the URL: a resume may reach it at another address */
        c->tk = tokenizer_new_remote(c->o.model, client_tokenize_cb, c->client);
        if (!c->db) {
            /* a --probe dry run opens no store: its counts are not cached */
        } else if ((c->count_cache.st = store_open(c->db, STORE_READWRITE))) {
            tokenizer_set_remote_cache(c->tk, store_count_cache_get, store_count_cache_put,
                                       &c->count_cache);
        } else {
            warning("server token counts are not cached in %s this time", c->db);
        }
    } else {
        strbuf_reset(&c->err);
        c->tk = tokenizer_load(c->o.tokenizer, &c->err);
        if (!c->tk) {
            error("run: %s", c->err.buf);
            return -1;
        }
        if (c->o.special)
            tokenizer_set_special(c->tk, !strcmp(c->o.special, "parse"));
    }
    return 0;
}

/* Preflight the endpoint before the first trial: key, model, context length. */
static int preflight(struct run_ctx *c)
{
    enum client_reason reason = CLIENT_R_NONE;
    enum client_class cls;
    if (c->have_pinfo) /* asked by the dry run's checks */
        return 0;
    strbuf_reset(&c->err);
    cls = client_preflight(c->client, &c->pinfo, &reason, &c->err);
    c->have_pinfo = 1;
    if (cls == CLIENT_FATAL) {
        if (reason == CLIENT_R_AUTH) {
            run_auth_error(c, c->err.buf);
            return -1;
        } else if (reason == CLIENT_R_MODEL_NOT_FOUND && strstr(c->err.buf, c->o.model))
            error("run: %s", c->err.buf); /* the server's words name the model already */
        else if (reason == CLIENT_R_MODEL_NOT_FOUND)
            error("run: model '%s' is not served: %s", c->o.model, c->err.buf);
        else
            error("run: preflight failed: %s", c->err.buf);
        c->ret = reason == CLIENT_R_QUOTA ? DM_EXIT_INFRA : DM_EXIT_USAGE;
        return -1;
    }
    if (cls != CLIENT_OK) {
        error("run: endpoint unreachable: %s", c->err.buf);
        c->ret = DM_EXIT_INFRA;
        return -1;
    }
    if (c->pinfo.model_listed == 0)
        warning("model '%s' is not listed by the endpoint; probing with one request", c->o.model);
    return run_checks_context(c);
}

/*
 * --lengths given as fractions of the served context (25%,50%): ask the
 * endpoint for its context (the same preflight as before the first trial)
 * and turn them into tokens, which is what the plan, the store and the run's
 * identity hold. Nothing to do for lengths in tokens.
 */
static int resolve_lengths(struct run_ctx *c)
{
    struct client_preflight_info info;
    enum client_reason reason = CLIENT_R_NONE;
    size_t i;
    int rc;
    if (!plan_lengths_relative(c->o.lengths))
        return 0;
    if (!c->o.endpoints.nr) {
        error("run: --lengths %s is relative to the server's context: give --endpoint (also "
              "with --dry-run)",
              c->o.lengths);
        return -1;
    }
    if (open_client(c) < 0)
        return -1;
    memset(&info, 0, sizeof(info));
    strbuf_reset(&c->err);
    if (client_preflight(c->client, &info, &reason, &c->err) != CLIENT_OK) {
        error("run: --lengths %s: cannot ask the server for its context: %s", c->o.lengths,
              c->err.buf);
        client_preflight_info_release(&info);
        c->ret = reason == CLIENT_R_AUTH || reason == CLIENT_R_MODEL_NOT_FOUND ? DM_EXIT_USAGE
                                                                               : DM_EXIT_INFRA;
        return -1;
    }
    strbuf_reset(&c->err);
    rc = plan_parse_lengths_ctx(c->o.lengths, info.context, &c->lengths, &c->nl, &c->err);
    client_preflight_info_release(&info);
    if (rc < 0) {
        error("run: %s", c->err.buf);
        return -1;
    }
    fprintf(stderr, "lengths %s of the server's context (%ld tokens):", c->o.lengths, info.context);
    for (i = 0; i < c->nl; i++) {
        fprintf(stderr, "%s %ld", i ? "," : "", c->lengths[i]);
        if (c->lengths[i] > c->max_len)
            c->max_len = c->lengths[i];
    }
    fprintf(stderr, " tokens\n");
    return 0;
}

/* The retrieved lists: a retrieval set's own, synthetic ones for golden-set questions. */
static int order_lists(struct run_ctx *c)
{
    struct order_setup *x = &c->ord;
    strbuf_reset(&c->err);
    if (order_setup_lists(x, &c->gs, c->have_hay ? &c->hay : NULL, (unsigned long)c->o.seed,
                          &c->err) < 0) {
        error("run: %s", c->err.buf);
        return -1;
    }
    if (c->gs.retrieval_nr < c->gs.nr)
        fprintf(stderr,
                "order experiment: %zu of %zu questions get a synthetic list of %d chunks (the "
                "gold's rank drawn from %s, then hard negatives and filler)\n",
                c->gs.nr - c->gs.retrieval_nr, c->gs.nr, x->kmax,
                x->rank_probs ? "--rank-dist" : "a geometric distribution");
    return 0;
}

/* The golden set (with its scorers), the haystack (hygiene reported), the template and the plan. */
static int load_inputs(struct run_ctx *c)
{
    size_t i;

    if (golden_set_load(&c->gs, c->o.dataset) < 0)
        return -1;
    c->have_gs = 1;
    c->scorers = xcalloc(c->gs.nr ? c->gs.nr : 1, sizeof(*c->scorers));
    for (i = 0; i < c->gs.nr; i++) {
        const struct question *q = &c->gs.q[i];
        if (score_resolve(c->default_scorer, q->scorer, q->answer_regex, &c->scorers[i]) < 0) {
            error("%s:%ld: unknown scorer '%s' (one of %s)", c->o.dataset, q->line, q->scorer,
                  scorer_names());
            return -1;
        }
        if (c->scorers[i] == SCORER_REGEX && !q->answer_regex) {
            error("%s:%ld: the regex scorer needs \"answer_regex\"", c->o.dataset, q->line);
            return -1;
        }
        if (q->answer_regex && c->scorers[i] == SCORER_REGEX) {
            strbuf_reset(&c->err);
            if (score_regex_check(q->answer_regex, &c->err) < 0) {
                error("%s:%ld: \"answer_regex\": %s", c->o.dataset, q->line, c->err.buf);
                return -1;
            }
        }
    }
    strbuf_reset(&c->err);
    if (!c->ord.on && golden_set_negatives_note(&c->gs, &c->err))
        fprintf(stderr, "golden set %s: %s\n", c->o.dataset, c->err.buf);
    strbuf_reset(&c->err);
    if (!c->ord.on && golden_set_require_gold(&c->gs, &c->err) < 0) {
        error("%s", c->err.buf);
        return -1;
    }
    if (c->o.haystack) {
        size_t leaks = 0, affected = 0;
        if (haystack_load(&c->hay, c->o.haystack) < 0)
            return -1;
        c->have_hay = 1;
        /* Chunk hygiene, reported per reason: duplicates once, answer leaks never. */
        for (i = 0; i < c->gs.nr; i++) {
            size_t *idx = NULL, nr = 0, dropped = 0;
            haystack_filter(&c->hay, &c->gs.q[i], &idx, &nr, &dropped);
            free(idx);
            leaks += dropped;
            affected += dropped > 0;
        }
        fprintf(stderr,
                "haystack %s: %zu chunks; %zu exact duplicates dropped; %zu (question, chunk) "
                "pairs excluded because the chunk contains the question's answer (%zu of %zu "
                "questions affected)\n",
                c->o.haystack, c->hay.nr, c->hay.dropped_duplicates, leaks, affected, c->gs.nr);
    }
    if (prompt_template_resolve(c->o.tmpl, &c->tpl_path) < 0) {
        error("run: template '%s' not found (a file, or a name in prompts/)", c->o.tmpl);
        return -1;
    }
    strbuf_reset(&c->err);
    if (prompt_template_load(&c->tpl, c->tpl_path.buf, &c->err) < 0)
        return error("%s", c->err.buf);
    c->have_tpl = 1;

    if (c->ord.on && order_lists(c) < 0)
        return -1;

    memset(&c->spec, 0, sizeof(c->spec));
    c->spec.lengths = c->lengths;
    c->spec.lengths_nr = c->nl;
    c->spec.depths_bp = c->depths;
    c->spec.depths_nr = c->nd;
    c->spec.repeats = (int)c->o.repeats;
    c->spec.shard_index = c->shard_i;
    c->spec.shard_count = c->shard_n;
    c->spec.controls = c->controls;
    c->spec.axes = c->axes;
    c->spec.axes_nr = c->axes_nr;
    c->spec.absent = c->absent;
    c->spec.seed = (unsigned long)c->o.seed;
    if (run_checks_axes(c) < 0)
        return -1;
    strbuf_reset(&c->err);
    if (plan_build(&c->plan, &c->gs, &c->spec, &c->err) < 0) {
        error("run: %s", c->err.buf);
        return -1;
    }
    c->have_plan = 1;
    if (c->o.questions > 0)
        plan_keep_questions(&c->plan, &c->gs, (size_t)c->o.questions, (unsigned long)c->o.seed);
    return 0;
}

/*
 * The checks the run makes before its first trial, made by --dry-run too, so a
 * dry run that passes is a run that starts, and one that fails exits as the
 * run would: with --endpoint and --model the server is asked (GET /v1/models,
 * /props: the model is served, every length fits its context) and the
 * template overhead is measured as the run measures it (a tokenizer mismatch
 * either way stops both), with the server's counting endpoints only (a probe
 * request that generates only with --probe); then the first prompt of every
 * length is built (a length the material cannot fill, a missing haystack).
 * What it could not check is said on stderr.
 */
static int dry_run_checks(struct run_ctx *c)
{
    int server = c->o.endpoints.nr && c->o.model && *c->o.model;
    int remote = !strcmp(c->o.tokenizer, "server");

    if (server && (open_client(c) || preflight(c) || load_tokenizer(c) || run_checks_overhead(c)))
        return -1;
    if (!server && remote) {
        fprintf(stderr,
                "dry run: not checked: the server (%s), and the prompts (--tokenizer "
                "server counts with it)\n",
                c->o.endpoints.nr ? "give --model" : "no --endpoint");
        return 0;
    }
    if (load_tokenizer(c) || run_checks_lengths(c))
        return -1;
    if (!server)
        fprintf(stderr,
                "dry run: not checked: the server (%s): the model, its context, the "
                "template overhead and the tokenizer match\n",
                c->o.endpoints.nr ? "give --model" : "no --endpoint");
    return 0;
}

/* The options checked and parsed into c (run_options_validate()); its message printed. */
static int validate_options(struct run_ctx *c)
{
    if (run_options_validate(c) < 0)
        return error("run: %s", c->err.buf);
    return 0;
}

/* --dry-run: the matrix, tokens and cost on stdout; stops with exit 0. */
static int dry_run(struct run_ctx *c)
{
    double usd = -1, latency_s = c->o.latency_s;
    long probed_len = 0;

    if (!c->o.dry_run)
        return 0;
    if (dry_run_checks(c) < 0)
        return -1;
    strbuf_reset(&c->sb);
    if (c->ord.on) {
        dry_run_order(c, &c->sb, &usd);
    } else {
        if (c->o.probe) {
            c->ret = DM_EXIT_INFRA;
            if (open_client(c) || load_tokenizer(c) || preflight(c))
                return -1;
            if (dry_run_probe(c, &latency_s, &probed_len) < 0)
                return error("run: %s", c->err.buf);
            fprintf(stderr, "probe: one request at %ld tokens took %.3f s\n", probed_len,
                    latency_s);
        }
        dry_run_estimate(c, latency_s, probed_len, &c->sb, &usd);
    }
    fputs(c->sb.buf, stdout);
    if (c->sb.len && c->sb.buf[c->sb.len - 1] != '\n')
        fputc('\n', stdout);
    if (c->o.max_cost > 0 && usd > c->o.max_cost)
        printf("note: the estimate exceeds --max-cost $%.2f; the run would stop there "
               "(exit 4, resumable)\n",
               c->o.max_cost);
    c->ret = DM_EXIT_OK;
    return -1;
}

/* The store and the run name (given, or the model and a UTC timestamp). */
static int open_store(struct run_ctx *c)
{
    size_t i;

    c->db = store_default_path(c->o.db);
    c->st = store_open(c->db, STORE_CREATE);
    if (!c->st) {
        c->ret = DM_EXIT_USAGE;
        return -1;
    }
    if (c->o.run) {
        c->run_name = xstrdup(c->o.run);
    } else {
        strbuf_reset(&c->sb);
        strbuf_addf(&c->sb, "%s-", c->o.model);
        if (utc_format(&c->sb, (double)time(NULL), "%Y%m%d-%H%M%S"))
            strbuf_addstr(&c->sb, "19700101-000000"); /* a clock set before 1970 */
        for (i = 0; i < c->sb.len; i++)
            if (c->sb.buf[i] == '/' || c->sb.buf[i] == ' ')
                c->sb.buf[i] = '-';
        c->run_name = strbuf_detach(&c->sb, NULL);
    }
    return 0;
}

/* An existing run of that name is resumed only with the same inputs and shard, under its lock. */
static int check_resume(struct run_ctx *c)
{
    int prc;

    prc = store_run_get(c->st, c->run_name, &c->have);
    if (prc < 0)
        return -1;
    if (prc == 1 && c->run_name[0] == '-') {
        /* report, compare, plot, export would read it as an option (an old run keeps working) */
        error("run: a new run name may not start with '-' (got '%s'): other commands would read "
              "it as an option",
              c->run_name);
        return -1;
    }
    if (prc == 0) {
        const char *field = NULL;
        c->exists = 1;
        if (c->overhead < 0) {
            /* auto on resume: the prompts were built against the stored overhead */
            c->overhead = run_identity_settings_overhead(c->have.settings_json);
            c->overhead_stored = 1;
            run_identity_settings_turn_cost(c->have.settings_json, c->turn_cost);
            c->turn_overhead_known = 1;
            free(c->want.settings_json);
            c->want.settings_json = run_ctx_settings(c);
        }
        if (!run_identity_same_run(&c->have, &c->want, &field, NULL)) {
            strbuf_reset(&c->sb);
            if (field && !strcmp(field, "settings_json"))
                run_identity_describe_settings_diff(c->have.settings_json, c->want.settings_json,
                                                    &c->sb);
            else
                strbuf_addf(&c->sb, "%s differs", field ? field : "an input");
            error("run: cannot resume run '%s': its inputs changed (%s)", c->run_name, c->sb.buf);
            fprintf(stderr,
                    "hint: use the original inputs, start a new run with another --run NAME, or "
                    "free the name: 'dipmap rm %s' (or 'dipmap rename %s NEW' to keep it)\n",
                    c->run_name, c->run_name);
            return -1;
        }
        if ((c->have.shard || c->want.shard) &&
            (!c->have.shard || !c->want.shard || strcmp(c->have.shard, c->want.shard))) {
            error("run: cannot resume run '%s': it was shard %s, this is %s", c->run_name,
                  c->have.shard ? c->have.shard : "(whole run)",
                  c->want.shard ? c->want.shard : "(whole run)");
            return -1;
        }
        prc = store_run_lock(c->st, c->run_name, 0);
        if (prc < 0) {
            if (prc == STORE_ELOCKED)
                fprintf(stderr, "hint: another dipmap process is executing this run; wait for it "
                                "or use another --run NAME\n");
            return -1;
        }
        c->locked = 1;
    }
    return 0;
}

/*
 * The run's request probe (trial_request_probe(): the prompt_sha256 this binary builds for the
 * first trial of the whole matrix) into c->want. A resumed run that recorded another for the
 * same trial was begun by a dipmap that builds other bytes: resuming would mix two prompt
 * builders in one run, so it is refused. A run recorded without a probe (an older store or
 * binary) resumes as before; it gets this binary's probe only when that claims nothing
 * unchecked: the run holds the probe trial with the same prompt hash (another hash is
 * refused like a recorded probe), or it holds no trial yet. Otherwise it stays unknown, so
 * merge does not take an unchecked probe for the earlier part's bytes.
 */
static int check_probe(struct run_ctx *c)
{
    struct runner_config rc = run_config_runner(c);
    struct plan_trial pt;
    char sha[SHA256_HEX_LEN + 1], had[SHA256_HEX_LEN + 1];
    const char *earlier = NULL;
    int prc;

    if (!c->builder) /* run_checks_lengths() made it */
        c->builder = prompt_builder_new(c->tk, &c->tpl, c->have_hay ? &c->hay : NULL);
    rc.builder = c->builder;
    strbuf_reset(&c->sb);
    strbuf_reset(&c->err);
    if (trial_request_probe(&rc, &c->spec, &c->sb, sha, &c->err) < 0) {
        if (!run_checks_auth(c))
            error("run: cannot build the first trial's prompt (the run's request probe): %s",
                  c->err.buf);
        return -1;
    }
    c->want.probe_key = xstrdup(c->sb.buf);
    c->want.probe_sha256 = xstrdup(sha);
    if (!c->exists)
        return 0;
    if (c->have.probe_key) {
        /* a probe of another trial (a binary that picks another) cannot be compared */
        if (!strcmp(c->have.probe_key, c->want.probe_key) && strcmp(c->have.probe_sha256, sha))
            earlier = c->have.probe_sha256;
    } else {
        plan_first_trial(&c->plan, &c->spec, &pt);
        prc = store_trial_prompt_of(c->st, c->run_name, c->gs.q[pt.question].id, pt.length,
                                    pt.depth_bp, pt.repeat, pt.axes, had);
        if (prc < 0) {
            error("run: %s", store_errmsg(c->st));
            c->ret = DM_EXIT_INFRA;
            return -1;
        }
        if (prc == 0 && strcmp(had, sha))
            earlier = had;
        c->fill_probe = !earlier && (prc == 0 || c->have.trials_stored == 0);
    }
    if (earlier) {
        error("run: cannot resume run '%s': this dipmap builds other bytes for its trial %s "
              "(prompt %.12s...) than the run's earlier part did (prompt %.12s...): a dipmap "
              "that builds prompts otherwise began it, and one run would mix both",
              c->run_name, c->want.probe_key, sha, earlier);
        fprintf(stderr,
                "hint: start a new run with another --run NAME (or finish this one with the "
                "dipmap that began it)\n");
        return -1;
    }
    return 0;
}

/*
 * --reuse DB|RUN: a store file (every run in it) or a run of --db. Only the
 * request hash decides, so another model or parameter never matches.
 */
static int load_reuse(struct run_ctx *c)
{
    struct store *src = NULL;
    struct run_info ri;
    const char *run = NULL;
    size_t n = 0;
    struct stat sb;

    if (!c->o.reuse)
        return 0;
    if (stat(c->o.reuse, &sb) == 0 && S_ISREG(sb.st_mode)) {
        struct stat db;
        if (stat(store_path(c->st), &db) == 0 && db.st_dev == sb.st_dev && db.st_ino == sb.st_ino)
            src = c->st;
        else if (!(src = store_open(c->o.reuse, STORE_READONLY)))
            return -1;
    } else {
        int prc = store_run_get(c->st, c->o.reuse, &ri);
        run_info_release(&ri);
        if (prc) {
            if (prc > 0)
                error("run: --reuse %s: neither a store file nor a run in %s", c->o.reuse,
                      store_path(c->st));
            c->ret = prc > 0 ? DM_EXIT_USAGE : DM_EXIT_INFRA;
            return -1;
        }
        src = c->st;
        run = c->o.reuse;
    }
    c->reuse = reuse_index_load(src, run, run ? store_path(c->st) : c->o.reuse, &n);
    if (src != c->st)
        store_close(src);
    if (!c->reuse) {
        c->ret = DM_EXIT_INFRA;
        return -1;
    }
    fprintf(stderr, "reuse: %zu stored answers from %s; byte-identical requests are not sent\n", n,
            c->o.reuse);
    return 0;
}

/*
 * llama-server answers HTTP on -np + 4 threads unless started with --threads-http (its
 * default: max(np + 4, cores - 1)), a thread per keep-alive connection: a connection beyond
 * them can wait until another's 5 s keep-alive lapses (measured: -np 2, --concurrency 8,
 * 5 of 6 runs took 5.3-7.7 s instead of 2.9 s). The server computes only np requests at
 * once, so dipmap keeps at most np + 4 connections and queues the rest itself, and closes
 * the preflight's idle one (which held a thread for 5 s: 3 of 5 runs took 5.3 s).
 */
static void llama_connections(struct run_ctx *c)
{
    long cap;
    client_close_idle(c->client);
    if (c->pinfo.kind != CLIENT_SERVER_LLAMACPP || c->pinfo.slots <= 0)
        return;
    cap = (long)c->pinfo.slots + 4;
    if (c->o.concurrency <= cap)
        return;
    client_limit_host_connections(c->client, cap);
    fprintf(stderr,
            "connections: at most %ld per llama.cpp server (%d slots + 4, the HTTP threads it "
            "starts with by default); the other %ld of --concurrency %ld wait here\n",
            cap, c->pinfo.slots, c->o.concurrency - cap, c->o.concurrency);
}

/* --batch: the trials through the Batch API (batch.c) with rc's settings. */
static int run_batches(struct run_ctx *c, const struct runner_config *rc)
{
    struct batch_config bc;
    batch_config_init(&bc);
    bc.window = c->o.batch_window;
    bc.max_requests = c->o.batch_max_requests;
    bc.max_bytes = c->o.batch_max_bytes;
    bc.fallback =
        strcmp(c->o.batch_fallback, "online") ? BATCH_FALLBACK_BATCH : BATCH_FALLBACK_ONLINE;
    bc.cancel = c->o.batch_cancel;
    bc.poll_s = c->o.batch_poll;
    bc.price_in = c->o.price_batch_in;
    bc.price_out = c->o.price_batch_out;
    return batch_run(rc, &bc, &c->res);
}

/* The runner over the plan, skipping the trials already done. */
static int execute(struct run_ctx *c)
{
    struct runner_config rc;

    if (!c->builder) /* run_checks_lengths() made it */
        c->builder = prompt_builder_new(c->tk, &c->tpl, c->have_hay ? &c->hay : NULL);
    c->done = store_done_set_load(c->st, c->run_name, 0);
    if (!c->done) {
        c->ret = DM_EXIT_INFRA;
        return -1;
    }
    fprintf(stderr,
            "%s run '%s': %zu trials (%zu already done), model %s, %zu endpoint(s), "
            "concurrency %ld%s%s\n",
            c->exists ? "resuming" : "starting", c->run_name, c->plan.nr,
            store_done_set_count(c->done), c->o.model, client_endpoint_count(c->client),
            c->o.concurrency, c->want.shard ? ", shard " : "", c->want.shard ? c->want.shard : "");

    if (c->exists && c->o.max_cost > 0) {
        /* --max-cost caps the run, not this command: what earlier invocations spent counts */
        double in = 0, out = 0, cached = 0, bin = 0, bout = 0, bcached = 0;
        double pc = c->o.price_cached_in >= 0 ? c->o.price_cached_in : c->o.price_in;
        if (store_run_usage(c->st, c->run_name, 0, &in, &out, &cached) < 0 ||
            store_run_usage(c->st, c->run_name, 1, &bin, &bout, &bcached) < 0) {
            c->ret = DM_EXIT_INFRA;
            return -1;
        }
        /* the trials batches answered cost batch prices (as batch.c prices them) */
        in -= bin;
        out -= bout;
        cached -= bcached;
        if (cached > in)
            cached = in;
        c->spent_before = (in - cached) / 1e6 * c->o.price_in + cached / 1e6 * pc +
                          out / 1e6 * c->o.price_out + bin / 1e6 * c->o.price_batch_in +
                          bout / 1e6 * c->o.price_batch_out;
        fprintf(stderr, "budget: $%.4f of --max-cost $%.2f already spent by this run\n",
                c->spent_before, c->o.max_cost);
    }

    rc = run_config_runner(c);
    run_config_schedule(c, &rc);
    llama_connections(c);
    /* the schedule joins the run's record when this invocation has trials to send */
    if (store_done_set_count(c->done) < c->plan.nr &&
        store_run_add_schedule(c->st, c->run_name, runner_schedule_name(rc.schedule))) {
        c->ret = DM_EXIT_INFRA;
        return -1;
    }
    if (c->o.batch ? run_batches(c, &rc) < 0 : runner_run(&rc, &c->res) < 0) {
        c->ret = DM_EXIT_INFRA;
        return -1;
    }
    if (c->res.served_model || c->res.system_fingerprint)
        store_run_set_served(c->st, c->run_name, c->res.served_model, c->res.system_fingerprint);
    return 0;
}

/* The run's final status, exit code, summary and what to do next. */
static int finish_run(struct run_ctx *c)
{
    size_t i;
    int no_score = 0;
    enum run_status status = run_ctx_end_status(&c->res, &c->ret, &no_score);

    if (store_run_update_status(c->st, c->run_name, status) < 0 || store_flush(c->st) < 0)
        c->ret = c->ret ? c->ret : DM_EXIT_INFRA;
    run_ctx_release_sending(c);
    runbrief_print_end(c->st, c->run_name, c->db, &c->res, status, (int)c->o.concurrency);

    switch (c->res.end) {
    case RUNNER_COMPLETE:
        if (c->res.outcomes[OUTCOME_ERROR])
            warning("%ld trial(s) ended in error; running the same command again re-sends "
                    "them",
                    c->res.outcomes[OUTCOME_ERROR]);
        break;
    case RUNNER_INTERRUPTED:
        fprintf(stderr, "interrupted: %ld of %ld trials are stored\n",
                c->res.already_done + c->res.finished, c->res.planned);
        resume_hint(c->argc, c->argv, c->run_name, c->db, c->o.run != NULL);
        break;
    case RUNNER_BUDGET:
        error("run: --max-cost $%.2f reached ($%.4f spent by the run, $%.4f of it now); %ld "
              "trial(s) not sent",
              c->o.max_cost, c->spent_before + c->res.cost_usd, c->res.cost_usd,
              c->res.planned - c->res.already_done - c->res.finished);
        if (c->res.message) /* --batch: the submission the budget refused */
            fprintf(stderr, "%s\n", c->res.message);
        {
            /* the same --max-cost stops the resume at once: suggest the run's projected cost */
            long done = c->res.already_done + c->res.finished;
            double spent = c->spent_before + c->res.cost_usd;
            double need = done > 0 ? spent * (double)c->res.planned / (double)done * 1.1 : 0;
            char val[64];
            if (need <= c->o.max_cost)
                need = c->o.max_cost * 2;
            snprintf(val, sizeof(val), "%.2f", need);
            fprintf(stderr,
                    "hint: the cap counts the whole run's cost across resumes; the run as "
                    "planned projects to about $%.2f\n",
                    done > 0 ? spent * (double)c->res.planned / (double)done : 0.0);
            resume_hint_with(c->argc, c->argv, c->run_name, c->db, c->o.run != NULL, "--max-cost",
                             val);
        }
        break;
    case RUNNER_TOO_MANY_ERRORS:
        error("run: stopped: %ld trial(s) ended in error after retries (limit %.1f%% of the "
              "trials; --max-error-rate)",
              c->res.outcomes[OUTCOME_ERROR], 100.0 * c->o.max_error_rate);
        for (i = 0; i < RUNNER_TOP_ERRORS && c->res.top_error[i]; i++)
            fprintf(stderr, "  %5ld x %s\n", c->res.top_error_count[i], c->res.top_error[i]);
        resume_hint(c->argc, c->argv, c->run_name, c->db, c->o.run != NULL);
        break;
    case RUNNER_INCOMPLETE:
        error("run: incomplete: %s", c->res.message ? c->res.message : runner_end_name(c->res.end));
        resume_hint(c->argc, c->argv, c->run_name, c->db, c->o.run != NULL);
        break;
    case RUNNER_FATAL:
        error("run: the endpoint refused the run: %s",
              c->res.message ? c->res.message : "fatal error");
        break;
    case RUNNER_INPUT_ERROR:
        error("run: %s", c->res.message ? c->res.message : runner_end_name(c->res.end));
        break;
    case RUNNER_STORE_ERROR:
        error("run: %s", c->res.message ? c->res.message : runner_end_name(c->res.end));
        fprintf(stderr,
                "hint: the stored trials are kept; make room for %s (or fix what "
                "stopped the writes), then resume\n",
                c->db);
        resume_hint(c->argc, c->argv, c->run_name, c->db, c->o.run != NULL);
        break;
    case RUNNER_MISMATCH:
        error("run: stopped: %s", c->res.message ? c->res.message : runner_end_name(c->res.end));
        /* the same command stops the same way: the lengths are counted in the wrong tokens */
        fprintf(
            stderr,
            "hint: count with the model's tokens: --tokenizer server (the endpoint's "
            "/tokenize) or its tokenizer.json, under a new --run name (the tokenizer is "
            "part of the run's identity; 'dipmap runs' lists the names in use, 'dipmap rm' frees "
            "one); "
            "--allow-tokenizer-mismatch keeps this run going as it is\n");
        break;
    }
    if (no_score) {
        struct strbuf why = STRBUF_INIT;
        int oc;
        for (oc = OUTCOME_CORRECT; oc < OUTCOME__COUNT; oc++)
            if (c->res.outcomes[oc])
                strbuf_addf(&why, "%s%ld %s", why.len ? ", " : "", c->res.outcomes[oc],
                            outcome_name((enum trial_outcome)oc));
        error("run: no trial could be scored (%s)", why.buf);
        strbuf_release(&why);
    }
    return 0;
}

/* The run row and its golden set into the store (run_record()); its message printed. */
static int record(struct run_ctx *c)
{
    strbuf_reset(&c->err);
    if (run_record(c) == 0)
        return 0;
    if (c->err.len)
        error("%s", c->err.buf);
    return -1;
}

/*
 * `dipmap run`: parse, then the phases in order. Nothing is recorded in the
 * store before preflight and the length check have passed, so a run that
 * cannot start leaves no run row behind.
 */
int cmd_run(int argc, const char **argv)
{
    struct run_ctx c;

    run_ctx_init(&c, argc, argv);
    if (parse_run_options(&c) || validate_options(&c) || resolve_lengths(&c) || load_inputs(&c) ||
        dry_run(&c) || open_client(&c) || open_store(&c) || load_tokenizer(&c) ||
        run_checks_needle_tokens(&c) || run_record_describe(&c) || check_resume(&c) ||
        preflight(&c) || run_checks_overhead(&c) || run_checks_lengths(&c) || check_probe(&c) ||
        load_reuse(&c) || record(&c) || execute(&c))
        return run_ctx_release(&c);
    finish_run(&c);
    return run_ctx_release(&c);
}

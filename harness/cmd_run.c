/*
 * `dipmap run`: options (flags over a JSON config file), inputs, the trial
 * plan and --dry-run, the API key from the environment, preflight, creating
 * or resuming the run in the store (input hashes, run lock), then the runner;
 * maps how the run ended to the run's status and the exit code.
 */
#define _GNU_SOURCE
#include <cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "client.h"
#include "config.h"
#include "dataset.h"
#include "num.h"
#include "opt.h"
#include "plan.h"
#include "prompt.h"
#include "runner.h"
#include "score.h"
#include "store.h"
#include "strbuf.h"
#include "strvec.h"
#include "tokenizer.h"
#include "usage.h"
#include "version.h"
#include "xalloc.h"

#include "banned.h"

static const char *const run_usage[] = {
    "dipmap run --endpoint URL --model NAME --dataset FILE [--lengths 8k,32k] [options]",
    "dipmap run --config FILE [options]          (flags override the file)",
    "dipmap run --run NAME ...                   (an existing run is resumed)",
    NULL,
};

/* Everything `run` can be told, flag or config file. */
struct run_opts {
    struct strvec endpoints, headers, tags;
    const char *model, *dataset, *haystack, *lengths, *depths, *tmpl, *tokenizer;
    const char *max_tokens_field, *api_key_env, *db, *run, *shard, *scorer, *config;
    const char *progress;
    long repeats, concurrency, rpm, tpm, max_tokens, seed, max_attempts, retry_base_ms;
    double temperature, top_p, timeout, connect_timeout, price_in, price_out, max_cost;
    double max_error_rate, drain_seconds, progress_interval, latency_s;
    int completions, dry_run, store_prompts, context_check, insecure, verbose;
};

/* The settings that change what a trial measures: part of the run's identity. */
static char *identity_settings(const struct run_opts *o, const long *lengths, size_t nl,
                               const int *depths, size_t nd, const char *scorer)
{
    cJSON *root = cJSON_CreateObject(), *arr;
    char *text, *ret;
    size_t i;

    /* Keys in sorted order: the store keeps settings canonical and compares them as text. */
    cJSON_AddBoolToObject(root, "completions", o->completions);
    arr = cJSON_AddArrayToObject(root, "depths_bp");
    for (i = 0; i < nd; i++)
        cJSON_AddItemToArray(arr, cJSON_CreateNumber(depths[i]));
    arr = cJSON_AddArrayToObject(root, "lengths");
    for (i = 0; i < nl; i++)
        cJSON_AddItemToArray(arr, cJSON_CreateNumber((double)lengths[i]));
    cJSON_AddNumberToObject(root, "max-tokens", (double)o->max_tokens);
    cJSON_AddStringToObject(root, "max-tokens-field", o->max_tokens_field);
    cJSON_AddNumberToObject(root, "repeats", (double)o->repeats);
    cJSON_AddStringToObject(root, "scorer", scorer);
    cJSON_AddNumberToObject(root, "seed", (double)o->seed);
    cJSON_AddNumberToObject(root, "temperature", o->temperature);
    cJSON_AddNumberToObject(root, "top-p", o->top_p);
    text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (!text)
        BUG("cJSON_PrintUnformatted failed");
    ret = xstrdup(text);
    cJSON_free(text);
    return ret;
}

/* Name the first setting that differs between two identity JSON objects. */
static void describe_settings_diff(const char *a, const char *b, struct strbuf *out)
{
    cJSON *ja = cJSON_Parse(a ? a : "{}"), *jb = cJSON_Parse(b ? b : "{}");
    const cJSON *it;
    if (ja && jb) {
        cJSON_ArrayForEach(it, ja)
        {
            const cJSON *other = cJSON_GetObjectItemCaseSensitive(jb, it->string);
            if (!other || !cJSON_Compare(it, other, 1)) {
                char *va = cJSON_PrintUnformatted(it);
                char *vb = other ? cJSON_PrintUnformatted(other) : NULL;
                strbuf_addf(out, "setting \"%s\" was %s, now %s", it->string, va ? va : "?",
                            vb ? vb : "unset");
                cJSON_free(va);
                cJSON_free(vb);
                break;
            }
        }
    }
    if (!out->len)
        strbuf_addstr(out, "settings differ");
    cJSON_Delete(ja);
    cJSON_Delete(jb);
}

/* --shard auto: Kubernetes indexed Job, Slurm array, GitLab parallel (0-based index out). */
static int shard_auto(unsigned *index, unsigned *count, struct strbuf *err)
{
    const char *ki = getenv("JOB_COMPLETION_INDEX");
    const char *si = getenv("SLURM_ARRAY_TASK_ID");
    const char *gi = getenv("CI_NODE_INDEX");
    long i, n, min = 0;

    if (ki && *ki) {
        const char *kn = getenv("DIPMAP_SHARD_COUNT");
        if (!kn || !*kn)
            kn = getenv("JOB_COMPLETIONS");
        if (!kn || !*kn) {
            strbuf_addstr(err, "--shard auto: JOB_COMPLETION_INDEX is set but not the shard count "
                               "(set DIPMAP_SHARD_COUNT or JOB_COMPLETIONS to the Job's "
                               "completions)");
            return -1;
        }
        if (parse_long_range(ki, 0, INT_MAX, &i) || parse_long_range(kn, 1, INT_MAX, &n)) {
            strbuf_addstr(err, "--shard auto: JOB_COMPLETION_INDEX and the shard count must be "
                               "integers");
            return -1;
        }
    } else if (si && *si) {
        const char *sn = getenv("SLURM_ARRAY_TASK_COUNT");
        const char *smin = getenv("SLURM_ARRAY_TASK_MIN");
        if (!sn || !*sn || parse_long_range(si, 0, INT_MAX, &i) ||
            parse_long_range(sn, 1, INT_MAX, &n) ||
            (smin && *smin && parse_long_range(smin, 0, INT_MAX, &min))) {
            strbuf_addstr(err, "--shard auto: SLURM_ARRAY_TASK_ID needs an integer "
                               "SLURM_ARRAY_TASK_COUNT");
            return -1;
        }
        i -= min;
    } else if (gi && *gi) {
        const char *gn = getenv("CI_NODE_TOTAL");
        if (!gn || !*gn || parse_long_range(gi, 1, INT_MAX, &i) ||
            parse_long_range(gn, 1, INT_MAX, &n)) {
            strbuf_addstr(err, "--shard auto: CI_NODE_INDEX needs an integer CI_NODE_TOTAL");
            return -1;
        }
        i -= 1; /* GitLab counts from 1 */
    } else {
        strbuf_addstr(err, "--shard auto: none of JOB_COMPLETION_INDEX (Kubernetes), "
                           "SLURM_ARRAY_TASK_ID (Slurm) or CI_NODE_INDEX (GitLab) is set");
        return -1;
    }
    if (i < 0 || i >= n) {
        strbuf_addf(err, "--shard auto: index %ld is outside 0..%ld", i, n - 1);
        return -1;
    }
    *index = (unsigned)i;
    *count = (unsigned)n;
    return 0;
}

/* --shard I/N, counting shards from 1 (1/2 and 2/2 make a whole). */
static int shard_parse(const char *s, unsigned *index, unsigned *count, struct strbuf *err)
{
    const char *slash;
    struct strbuf a = STRBUF_INIT;
    long i, n;
    int ret = -1;

    if (!strcmp(s, "auto"))
        return shard_auto(index, count, err);
    slash = strchr(s, '/');
    if (!slash) {
        strbuf_addf(err, "--shard '%s': expected I/N (e.g. 1/4) or auto", s);
        return -1;
    }
    strbuf_add(&a, s, (size_t)(slash - s));
    if (parse_long_range(slash + 1, 1, INT_MAX, &n) || parse_long(a.buf, &i))
        strbuf_addf(err, "--shard '%s': expected I/N (e.g. 1/4) or auto", s);
    else if (i < 1 || i > n)
        strbuf_addf(err, "--shard '%s': I counts from 1 and must be at most N", s);
    else {
        *index = (unsigned)(i - 1);
        *count = (unsigned)n;
        ret = 0;
    }
    strbuf_release(&a);
    return ret;
}

/* A template given as a name ("qa") is looked up in the prompts/ folders. */
static int resolve_template(const char *spec, struct strbuf *out)
{
    struct strvec dirs = STRVEC_INIT;
    const char *home = getenv("DIPMAP_HOME");
    char exe[PATH_MAX];
    ssize_t n;
    size_t i;
    int ret = -1;

    if (strchr(spec, '/') || access(spec, R_OK) == 0) {
        strbuf_addstr(out, spec);
        return 0;
    }
    if (home && *home)
        strvec_pushf(&dirs, "%s/prompts", home);
    n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n > 0) {
        char *slash;
        exe[n] = '\0';
        slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            strvec_pushf(&dirs, "%s/prompts", exe);
            strvec_pushf(&dirs, "%s/../prompts", exe);
        }
    }
    strvec_push(&dirs, "prompts");
    for (i = 0; i < dirs.nr && ret; i++) {
        strbuf_reset(out);
        strbuf_addf(out, "%s/%s%s", dirs.v[i], spec, strstr(spec, ".txt") ? "" : ".txt");
        if (access(out->buf, R_OK) == 0)
            ret = 0;
    }
    if (ret) {
        strbuf_reset(out);
        strbuf_addstr(out, spec);
    }
    strvec_clear(&dirs);
    return ret;
}

/* The remote tokenizer's counts live in the run store. */
static int count_cache_get(void *ctx, const char *name, const char *sha, long *count)
{
    return store_count_get(ctx, name, sha, count) == 1 ? 0 : -1;
}

static void count_cache_put(void *ctx, const char *name, const char *sha, long count)
{
    store_count_put(ctx, name, sha, count);
}

/* Quote one argv word for a copy-pasteable shell line. */
static void shell_quote(struct strbuf *sb, const char *s)
{
    const char *p;
    int plain = *s != '\0';
    for (p = s; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,@%+", *p))
            plain = 0;
    if (plain) {
        strbuf_addstr(sb, s);
        return;
    }
    strbuf_addch(sb, '\'');
    for (p = s; *p; p++) {
        if (*p == '\'')
            strbuf_addstr(sb, "'\\''");
        else
            strbuf_addch(sb, *p);
    }
    strbuf_addch(sb, '\'');
}

/*
 * A -H value that carries a credential ("X-Api-Key: sk-..."): its value is not echoed in
 * the resume hint (same words as the client's --verbose redaction).
 */
static int secret_header_arg(const char *h)
{
    static const char *const words[] = {"key", "token", "secret", "passw", "auth", "cookie"};
    const char *colon = strchr(h, ':');
    size_t len, i, k;
    if (!colon)
        return 0;
    len = (size_t)(colon - h);
    for (k = 0; k < sizeof(words) / sizeof(words[0]); k++)
        for (i = 0; i + strlen(words[k]) <= len; i++)
            if (!strncasecmp(h + i, words[k], strlen(words[k])))
                return 1;
    return 0;
}

/*
 * With an API key in memory: no core file (RLIMIT_CORE 0) and not dumpable, which also makes
 * /proc/PID/environ and ptrace unavailable to other processes of the same user.
 */
static void keep_key_out_of_dumps(void)
{
    struct rlimit rl = {0, 0};
    (void)setrlimit(RLIMIT_CORE, &rl);
    (void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

static void resume_hint(int argc, const char **argv, const char *run, const char *db, int run_given)
{
    struct strbuf sb = STRBUF_INIT, h = STRBUF_INIT;
    int i, redacted = 0;
    strbuf_addstr(&sb, "dipmap");
    for (i = 0; i < argc; i++) {
        const char *a = argv[i];
        int after_flag = i > 0 && (!strcmp(argv[i - 1], "-H") || !strcmp(argv[i - 1], "--header"));
        if (!strncmp(a, "--header=", 9) && secret_header_arg(a + 9)) {
            strbuf_reset(&h);
            strbuf_addf(&h, "--header=%.*s: <redacted>", (int)(strchr(a, ':') - a - 9), a + 9);
            a = h.buf;
            redacted = 1;
        } else if (after_flag && secret_header_arg(a)) {
            strbuf_reset(&h);
            strbuf_addf(&h, "%.*s: <redacted>", (int)(strchr(a, ':') - a), a);
            a = h.buf;
            redacted = 1;
        }
        strbuf_addch(&sb, ' ');
        shell_quote(&sb, a);
    }
    if (!run_given) {
        strbuf_addstr(&sb, " --run ");
        shell_quote(&sb, run);
    }
    fprintf(stderr, "hint: resume with: %s\n", sb.buf);
    fprintf(stderr, "hint: (run '%s' in %s; finished trials are kept)\n", run, db);
    if (redacted)
        fprintf(stderr, "hint: (credential header values are shown as <redacted>)\n");
    strbuf_release(&sb);
    strbuf_release(&h);
}

static void print_summary(const char *run, const char *db, const struct runner_result *res,
                          enum run_status status, int window)
{
    long scored = res->outcomes[OUTCOME_CORRECT] + res->outcomes[OUTCOME_WRONG];
    int o;
    printf("run %s: %s\n", run, run_status_name(status));
    printf("trials: %ld of %ld done (%ld this time, %ld kept from before)\n",
           res->already_done + res->finished, res->planned, res->finished, res->already_done);
    printf("outcomes:");
    for (o = OUTCOME_CORRECT; o < OUTCOME__COUNT; o++)
        printf(" %s %ld", outcome_name((enum trial_outcome)o), res->outcomes[o]);
    printf("\n");
    if (scored)
        printf("accuracy: %.1f%% (%ld of %ld scored trials)\n",
               100.0 * res->outcomes[OUTCOME_CORRECT] / scored, res->outcomes[OUTCOME_CORRECT],
               scored);
    printf("requests: %ld (%ld retries); tokens: %ld prompt, %ld completion", res->requests,
           res->retries, res->prompt_tokens, res->completion_tokens);
    if (res->cost_usd >= 0)
        printf("; cost $%.4f", res->cost_usd);
    printf("\n");
    if (res->mean_inflight > 0)
        printf("in flight: mean %.1f requests (window %d), %.1f s\n", res->mean_inflight, window,
               res->wall_seconds);
    if (res->window_decreases)
        printf("concurrency: lowered %ld time(s) on rate limits, down to %d\n",
               res->window_decreases, res->min_window);
    if (res->tokenizer_mismatches)
        printf("tokenizer mismatch: %ld trial(s), worst %.1f%%\n", res->tokenizer_mismatches,
               100.0 * res->worst_mismatch);
    printf("store: %s\n", db);
}

static void run_opts_init(struct run_opts *o)
{
    memset(o, 0, sizeof(*o));
    strvec_init(&o->endpoints);
    strvec_init(&o->headers);
    strvec_init(&o->tags);
    o->lengths = "8k,32k";
    o->depths = "0:100:10";
    o->tmpl = "qa";
    o->tokenizer = "cl100k_base";
    o->max_tokens_field = "auto";
    o->api_key_env = "OPENAI_API_KEY";
    o->scorer = NULL;
    o->progress = "auto";
    o->repeats = 1;
    o->concurrency = 8;
    o->max_tokens = 256;
    o->max_attempts = 6;
    o->retry_base_ms = 1000;
    o->temperature = 0;
    o->top_p = 1;
    o->timeout = 600;
    o->connect_timeout = 10;
    o->price_in = -1;
    o->price_out = -1;
    o->max_error_rate = 0.05;
    o->drain_seconds = 30;
    o->progress_interval = 10;
    o->context_check = 1;
}

static void run_opts_release(struct run_opts *o)
{
    strvec_clear(&o->endpoints);
    strvec_clear(&o->headers);
    strvec_clear(&o->tags);
}

int cmd_run(int argc, const char **argv)
{
    struct run_opts o;
    struct option opts[] = {
        {OPT_GROUP, NULL, 0, NULL, NULL, "what to run", 0},
        {OPT_LIST, "endpoint", 'e', &o.endpoints, "URL",
         "OpenAI-compatible base URL (repeatable: replicas share the load)", 0},
        {OPT_STRING, "model", 'm', &o.model, "NAME", "model name sent to the endpoint", 0},
        {OPT_STRING, "dataset", 'd', &o.dataset, "FILE", "golden set (JSONL)", 0},
        {OPT_STRING, "haystack", 0, &o.haystack, "FILE", "filler chunks (JSONL or .txt)", 0},
        {OPT_STRING, "lengths", 'l', &o.lengths, "LIST", "prompt lengths (default 8k,32k)", 0},
        {OPT_STRING, "depths", 0, &o.depths, "SPEC",
         "gold depths in %: start:stop:step or a list (default 0:100:10)", 0},
        {OPT_LONG, "repeats", 0, &o.repeats, "N", "distractor orders per cell (default 1)", 0},
        {OPT_STRING, "template", 0, &o.tmpl, "FILE|NAME", "prompt template (default qa)", 0},
        {OPT_STRING, "tokenizer", 't', &o.tokenizer, "NAME|FILE|server",
         "counts lengths (default cl100k_base; server = the endpoint's /tokenize)", 0},
        {OPT_STRING, "scorer", 0, &o.scorer, "NAME",
         "litm, kv, contains, exact, regex, all (default contains)", 0},
        {OPT_GROUP, NULL, 0, NULL, NULL, "request", 0},
        {OPT_LONG, "max-tokens", 0, &o.max_tokens, "N", "answer budget (default 256)", 0},
        {OPT_STRING, "max-tokens-field", 0, &o.max_tokens_field, "F",
         "auto, max_tokens or max_completion_tokens", 0},
        {OPT_DOUBLE, "temperature", 0, &o.temperature, "X", "default 0", 0},
        {OPT_DOUBLE, "top-p", 0, &o.top_p, "X", "default 1", 0},
        {OPT_LONG, "seed", 0, &o.seed, "N", "request seed and distractor seed (default 0)", 0},
        {OPT_BOOL, "completions", 0, &o.completions, NULL, "use /v1/completions instead of chat",
         0},
        {OPT_STRING, "api-key-env", 0, &o.api_key_env, "VAR",
         "environment variable holding the API key (default OPENAI_API_KEY)", 0},
        {OPT_LIST, "header", 'H', &o.headers, "'K: V'", "extra HTTP header (repeatable)", 0},
        {OPT_DOUBLE, "timeout", 0, &o.timeout, "SECONDS", "per request (default 600)", 0},
        {OPT_DOUBLE, "connect-timeout", 0, &o.connect_timeout, "SECONDS", "default 10", 0},
        {OPT_BOOL, "insecure", 0, &o.insecure, NULL, "do not verify TLS certificates", 0},
        {OPT_BOOL, "verbose", 'v', &o.verbose, NULL, "log requests on stderr (key redacted)", 0},
        {OPT_GROUP, NULL, 0, NULL, NULL, "scheduling", 0},
        {OPT_LONG, "concurrency", 'c', &o.concurrency, "N", "requests in flight (default 8)", 0},
        {OPT_LONG, "rpm", 0, &o.rpm, "N", "requests per minute limit", 0},
        {OPT_LONG, "tpm", 0, &o.tpm, "N", "tokens per minute limit", 0},
        {OPT_DOUBLE, "latency-s", 0, &o.latency_s, "S",
         "--dry-run: mean seconds per request, for the wall-time estimate", 0},
        {OPT_LONG, "max-attempts", 0, &o.max_attempts, "N",
         "per trial (default 6; at most 2 for a 500 \"Failed to parse input\", the server "
         "rejecting the model's own output)",
         0},
        {OPT_LONG, "retry-base-ms", 0, &o.retry_base_ms, "MS",
         "first backoff without a server hint (default 1000)", 0},
        {OPT_DOUBLE, "max-error-rate", 0, &o.max_error_rate, "F",
         "stop (exit 3) when more trials end in error (default 0.05)", 0},
        {OPT_DOUBLE, "drain-seconds", 0, &o.drain_seconds, "S",
         "wait for in-flight requests after Ctrl-C (default 30)", 0},
        {OPT_STRING, "shard", 0, &o.shard, "I/N|auto",
         "run shard I of N (from 1), or auto from Kubernetes/Slurm/GitLab", 0},
        {OPT_BOOL, "context-check", 0, &o.context_check, NULL,
         "refuse lengths the server's context cannot hold (default on)", 0},
        {OPT_STRING, "progress", 0, &o.progress, "MODE", "auto, bar, lines or none", 0},
        {OPT_DOUBLE, "progress-interval", 0, &o.progress_interval, "S",
         "seconds between progress lines off a terminal (default 10)", 0},
        {OPT_GROUP, NULL, 0, NULL, NULL, "store and budget", 0},
        {OPT_STRING, "db", 0, &o.db, "FILE", "SQLite store (default $DIPMAP_DB or dipmap.db)", 0},
        {OPT_STRING, "run", 0, &o.run, "NAME", "run name; an existing run is resumed", 0},
        {OPT_LIST, "tag", 0, &o.tags, "TAG", "label the run (repeatable)", 0},
        {OPT_BOOL, "store-prompts", 0, &o.store_prompts, NULL, "store rendered prompts", 0},
        {OPT_BOOL, "dry-run", 'n', &o.dry_run, NULL,
         "print the matrix size, tokens and cost; send nothing", 0},
        {OPT_DOUBLE, "price-in", 0, &o.price_in, "USD", "per 1M prompt tokens", 0},
        {OPT_DOUBLE, "price-out", 0, &o.price_out, "USD", "per 1M completion tokens", 0},
        {OPT_DOUBLE, "max-cost", 0, &o.max_cost, "USD",
         "stop at this spend (exit 4, resumable); needs prices", 0},
        {OPT_STRING, "config", 0, &o.config, "FILE", "JSON file of these options", 0},
        OPT_END_MARK,
    };
    static const char *const refused[] = {"api-key", "api_key", "apikey", "config", NULL};
    struct strvec rest = STRVEC_INIT;
    struct config cfgfile;
    struct strbuf err = STRBUF_INIT, tpl_path = STRBUF_INIT, sb = STRBUF_INIT;
    struct golden_set gs;
    struct haystack hay;
    struct prompt_template tpl;
    struct plan plan;
    struct plan_spec spec;
    struct client_config ccfg;
    struct client_preflight_info pinfo;
    struct run_info want, have;
    struct runner_config rc;
    struct runner_result res;
    enum runner_progress progress;
    enum client_max_tokens_field mtf;
    enum scorer_kind default_scorer = SCORER_DEFAULT;
    enum scorer_kind *scorers = NULL;
    struct client *client = NULL;
    struct tokenizer *tk = NULL;
    struct prompt_builder *builder = NULL;
    struct store *st = NULL;
    struct store_done_set *done = NULL;
    long *lengths = NULL, max_len = 0;
    int *depths = NULL;
    size_t nl = 0, nd = 0, i;
    unsigned shard_i = 0, shard_n = 1;
    const char *api_key = NULL, *db;
    char *run_name = NULL;
    int have_gs = 0, have_hay = 0, have_tpl = 0, have_plan = 0, have_pinfo = 0, exists = 0;
    int locked = 0, ret = DM_EXIT_USAGE, prc;

    run_opts_init(&o);
    config_init(&cfgfile);
    memset(&gs, 0, sizeof(gs));
    memset(&hay, 0, sizeof(hay));
    memset(&tpl, 0, sizeof(tpl));
    memset(&plan, 0, sizeof(plan));
    memset(&pinfo, 0, sizeof(pinfo));
    client_config_init(&ccfg);
    run_info_init(&want);
    run_info_init(&have);
    runner_result_init(&res);

    /* A key on the command line ends up in shell history and ps: refuse it outright. */
    for (i = 1; i < (size_t)argc; i++) {
        if (!strcmp(argv[i], "--"))
            break;
        if (!strcmp(argv[i], "--api-key") || !strncmp(argv[i], "--api-key=", 10)) {
            error("run: --api-key is not accepted: API keys are read only from the environment");
            fprintf(stderr, "hint: export the key (e.g. OPENAI_API_KEY) and pass --api-key-env "
                            "VAR when it lives in another variable\n");
            goto cleanup;
        }
    }

    prc = parse_options(argc, argv, opts, run_usage, &rest);
    if (prc) {
        ret = prc > 0 ? DM_EXIT_OK : DM_EXIT_USAGE;
        goto cleanup;
    }
    if (rest.nr) {
        error("run: unexpected argument '%s'", rest.v[0]);
        goto cleanup;
    }
    if (o.config &&
        config_apply_file(&cfgfile, o.config, opts, refused,
                          "API keys come only from the environment (see --api-key-env)") < 0)
        goto cleanup;

    /* ---- validate settings ---- */
    if (!o.dataset) {
        error("run: --dataset is required");
        goto cleanup;
    }
    if (!o.dry_run && (!o.model || !*o.model)) {
        error("run: --model is required");
        goto cleanup;
    }
    if (!o.dry_run && !o.endpoints.nr) {
        error("run: --endpoint is required");
        goto cleanup;
    }
    if (o.repeats < 1 || o.repeats > 1000000) {
        error("run: --repeats must be at least 1");
        goto cleanup;
    }
    if (o.concurrency < 1 || o.concurrency > 100000) {
        error("run: --concurrency must be at least 1");
        goto cleanup;
    }
    if (o.max_tokens < 1) {
        error("run: --max-tokens must be at least 1");
        goto cleanup;
    }
    if (o.max_attempts < 1 || o.retry_base_ms < 0 || o.rpm < 0 || o.tpm < 0) {
        error("run: --max-attempts must be >= 1; --retry-base-ms, --rpm, --tpm >= 0");
        goto cleanup;
    }
    if (o.timeout <= 0 || o.connect_timeout <= 0 || o.drain_seconds < 0 ||
        o.progress_interval <= 0) {
        error("run: --timeout, --connect-timeout and --progress-interval must be positive");
        goto cleanup;
    }
    if (o.latency_s < 0 || o.latency_s > 86400) {
        error("run: --latency-s is the mean seconds per request, 0 to 86400 (got %g)", o.latency_s);
        goto cleanup;
    }
    if (o.max_error_rate < 0 || o.max_error_rate > 1) {
        error("run: --max-error-rate is a fraction in [0,1] (e.g. 0.05)");
        goto cleanup;
    }
    if (o.max_cost < 0) {
        error("run: --max-cost must be positive");
        goto cleanup;
    }
    if (o.max_cost > 0 && (o.price_in < 0 || o.price_out < 0)) {
        error("run: --max-cost needs --price-in and --price-out (USD per 1M tokens)");
        goto cleanup;
    }
    if (runner_progress_parse(o.progress, &progress) < 0) {
        error("run: --progress must be auto, bar, lines or none");
        goto cleanup;
    }
    if (client_max_tokens_field_parse(o.max_tokens_field, &mtf) < 0) {
        error("run: --max-tokens-field must be auto, max_tokens or max_completion_tokens");
        goto cleanup;
    }
    if (o.scorer && scorer_parse(o.scorer, &default_scorer) < 0) {
        error("run: unknown scorer '%s' (one of %s)", o.scorer, scorer_names());
        goto cleanup;
    }
    if (plan_parse_lengths(o.lengths, &lengths, &nl, &err) < 0 ||
        plan_parse_depths(o.depths, &depths, &nd, &err) < 0) {
        error("run: %s", err.buf);
        goto cleanup;
    }
    for (i = 0; i < nl; i++)
        if (lengths[i] > max_len)
            max_len = lengths[i];
    if (o.shard && shard_parse(o.shard, &shard_i, &shard_n, &err) < 0) {
        error("run: %s", err.buf);
        goto cleanup;
    }
    if (shard_n > 1 && !o.run && !o.dry_run) {
        /* a timestamped default name would differ per shard and merge could not join them */
        error("run: --shard needs --run NAME, the same on every shard, so that 'dipmap merge' "
              "joins the shards into one run");
        goto cleanup;
    }

    /* ---- inputs ---- */
    if (golden_set_load(&gs, o.dataset) < 0)
        goto cleanup;
    have_gs = 1;
    scorers = xcalloc(gs.nr ? gs.nr : 1, sizeof(*scorers));
    for (i = 0; i < gs.nr; i++) {
        const struct question *q = &gs.q[i];
        if (score_resolve(default_scorer, q->scorer, q->answer_regex, &scorers[i]) < 0) {
            error("%s:%ld: unknown scorer '%s' (one of %s)", o.dataset, q->line, q->scorer,
                  scorer_names());
            goto cleanup;
        }
        if (scorers[i] == SCORER_REGEX && !q->answer_regex) {
            error("%s:%ld: the regex scorer needs \"answer_regex\"", o.dataset, q->line);
            goto cleanup;
        }
        if (q->answer_regex && scorers[i] == SCORER_REGEX) {
            strbuf_reset(&err);
            if (score_regex_check(q->answer_regex, &err) < 0) {
                error("%s:%ld: \"answer_regex\": %s", o.dataset, q->line, err.buf);
                goto cleanup;
            }
        }
    }
    strbuf_reset(&err);
    if (golden_set_negatives_note(&gs, &err))
        fprintf(stderr, "golden set %s: %s\n", o.dataset, err.buf);
    if (o.haystack) {
        size_t leaks = 0, affected = 0;
        if (haystack_load(&hay, o.haystack) < 0)
            goto cleanup;
        have_hay = 1;
        /* Chunk hygiene, reported per reason: duplicates once, answer leaks never. */
        for (i = 0; i < gs.nr; i++) {
            size_t *idx = NULL, nr = 0, dropped = 0;
            haystack_filter(&hay, &gs.q[i], &idx, &nr, &dropped);
            free(idx);
            leaks += dropped;
            affected += dropped > 0;
        }
        fprintf(stderr,
                "haystack %s: %zu chunks; %zu exact duplicates dropped; %zu (question, chunk) "
                "pairs excluded because the chunk contains the question's answer (%zu of %zu "
                "questions affected)\n",
                o.haystack, hay.nr, hay.dropped_duplicates, leaks, affected, gs.nr);
    }
    if (resolve_template(o.tmpl, &tpl_path) < 0) {
        error("run: template '%s' not found (a file, or a name in prompts/)", o.tmpl);
        goto cleanup;
    }
    if (prompt_template_load(&tpl, tpl_path.buf) < 0)
        goto cleanup;
    have_tpl = 1;

    memset(&spec, 0, sizeof(spec));
    spec.lengths = lengths;
    spec.lengths_nr = nl;
    spec.depths_bp = depths;
    spec.depths_nr = nd;
    spec.repeats = (int)o.repeats;
    spec.shard_index = shard_i;
    spec.shard_count = shard_n;
    strbuf_reset(&err);
    if (plan_build(&plan, &gs, &spec, &err) < 0) {
        error("run: %s", err.buf);
        goto cleanup;
    }
    have_plan = 1;

    if (o.dry_run) {
        struct plan_cost cost;
        struct plan_pace pace;
        double usd = -1;
        cost.price_in = o.price_in;
        cost.price_out = o.price_out;
        cost.max_answer_tokens = o.max_tokens;
        strbuf_reset(&sb);
        plan_summary(&plan, &spec, &cost, &sb, &usd);
        memset(&pace, 0, sizeof(pace));
        pace.concurrency = o.concurrency;
        pace.rpm = o.rpm;
        pace.tpm = o.tpm;
        pace.latency_s = o.latency_s;
        pace.max_answer_tokens = o.max_tokens;
        plan_time_summary(&plan, &spec, &pace, &sb, NULL);
        fputs(sb.buf, stdout);
        if (sb.len && sb.buf[sb.len - 1] != '\n')
            fputc('\n', stdout);
        if (o.max_cost > 0 && usd > o.max_cost)
            printf("note: the estimate exceeds --max-cost $%.2f; the run would stop there "
                   "(exit 4, resumable)\n",
                   o.max_cost);
        ret = DM_EXIT_OK;
        goto cleanup;
    }

    /* ---- the client (the key comes from the environment only) ---- */
    api_key = getenv(o.api_key_env);
    if (api_key && !*api_key)
        api_key = NULL;
    if (!api_key && strcmp(o.api_key_env, "OPENAI_API_KEY"))
        warning("environment variable %s (from --api-key-env) is not set; sending no API key",
                o.api_key_env);
    if (api_key)
        keep_key_out_of_dumps();
    for (i = 0; i < o.endpoints.nr; i++)
        strvec_push(&ccfg.endpoints, o.endpoints.v[i]);
    for (i = 0; i < o.headers.nr; i++)
        strvec_push(&ccfg.headers, o.headers.v[i]);
    ccfg.model = o.model;
    ccfg.api_key = api_key;
    ccfg.legacy_completions = o.completions;
    ccfg.temperature = o.temperature;
    ccfg.top_p = o.top_p;
    ccfg.seed = o.seed;
    ccfg.max_tokens = o.max_tokens;
    ccfg.max_tokens_field = mtf;
    ccfg.timeout_ms = (long)(o.timeout * 1000);
    ccfg.connect_timeout_ms = (long)(o.connect_timeout * 1000);
    ccfg.insecure = o.insecure;
    ccfg.verbose = o.verbose;
    strbuf_reset(&err);
    client = client_new(&ccfg, &err);
    if (!client) {
        error("run: %s", err.buf);
        goto cleanup;
    }

    /* ---- the store: resume checks before any request ---- */
    db = store_default_path(o.db);
    st = store_open(db, STORE_CREATE);
    if (!st) {
        ret = DM_EXIT_USAGE;
        goto cleanup;
    }
    if (o.run) {
        run_name = xstrdup(o.run);
    } else {
        char ts[32];
        time_t now = time(NULL);
        struct tm tmv;
        gmtime_r(&now, &tmv);
        strftime(ts, sizeof(ts), "%Y%m%d-%H%M%S", &tmv);
        strbuf_reset(&sb);
        strbuf_addf(&sb, "%s-%s", o.model, ts);
        for (i = 0; i < sb.len; i++)
            if (sb.buf[i] == '/' || sb.buf[i] == ' ')
                sb.buf[i] = '-';
        run_name = strbuf_detach(&sb, NULL);
    }

    if (!strcmp(o.tokenizer, "server")) {
        /* named after the model, not the URL: a resume may reach it at another address */
        tk = tokenizer_new_remote(o.model, client_tokenize_cb, client);
        tokenizer_set_remote_cache(tk, count_cache_get, count_cache_put, st);
    } else {
        strbuf_reset(&err);
        tk = tokenizer_load(o.tokenizer, &err);
        if (!tk) {
            error("run: %s", err.buf);
            goto cleanup;
        }
    }

    want.name = xstrdup(run_name);
    want.model_requested = xstrdup(o.model);
    strbuf_reset(&sb);
    for (i = 0; i < client_endpoint_count(client); i++)
        strbuf_addf(&sb, "%s%s", i ? "," : "", client_endpoint_url(client, (int)i));
    want.endpoints = strbuf_detach(&sb, NULL);
    want.settings_json =
        identity_settings(&o, lengths, nl, depths, nd, scorer_name(default_scorer));
    want.golden_sha256 = xstrdup(gs.sha256);
    if (have_hay)
        want.haystack_sha256 = xstrdup(hay.sha256);
    want.template_sha256 = xstrdup(tpl.sha256);
    want.tokenizer_name = xstrdup(tokenizer_name(tk));
    want.tokenizer_sha256 = xstrdup(tokenizer_hash(tk));
    want.dipmap_version = xstrdup(dipmap_version);
    want.dipmap_commit = xstrdup(dipmap_commit);
    if (o.tags.nr) {
        strbuf_reset(&sb);
        for (i = 0; i < o.tags.nr; i++)
            strbuf_addf(&sb, "%s%s", i ? "," : "", o.tags.v[i]);
        want.tags = strbuf_detach(&sb, NULL);
    }
    if (shard_n > 1) {
        strbuf_reset(&sb);
        strbuf_addf(&sb, "%u/%u", shard_i + 1, shard_n);
        want.shard = strbuf_detach(&sb, NULL);
    }
    want.status = RUN_RUNNING;
    want.trials_planned = (long)plan.nr;

    prc = store_run_get(st, run_name, &have);
    if (prc < 0)
        goto cleanup;
    if (prc == 0) {
        const char *field = NULL;
        exists = 1;
        if (!run_info_same_inputs(&have, &want, &field)) {
            strbuf_reset(&sb);
            if (field && !strcmp(field, "settings_json"))
                describe_settings_diff(have.settings_json, want.settings_json, &sb);
            else
                strbuf_addf(&sb, "%s differs", field ? field : "an input");
            error("run: cannot resume run '%s': its inputs changed (%s)", run_name, sb.buf);
            fprintf(stderr, "hint: use the original inputs, or start a new run with another "
                            "--run NAME\n");
            goto cleanup;
        }
        if ((have.shard || want.shard) &&
            (!have.shard || !want.shard || strcmp(have.shard, want.shard))) {
            error("run: cannot resume run '%s': it was shard %s, this is %s", run_name,
                  have.shard ? have.shard : "(whole run)", want.shard ? want.shard : "(whole run)");
            goto cleanup;
        }
        prc = store_run_lock(st, run_name, 0);
        if (prc < 0) {
            if (prc == STORE_ELOCKED)
                fprintf(stderr, "hint: another dipmap process is executing this run; wait for it "
                                "or use another --run NAME\n");
            goto cleanup;
        }
        locked = 1;
    }

    /* ---- preflight: before the first trial ---- */
    {
        enum client_reason reason = CLIENT_R_NONE;
        enum client_class cls;
        strbuf_reset(&err);
        cls = client_preflight(client, &pinfo, &reason, &err);
        have_pinfo = 1;
        if (cls == CLIENT_FATAL) {
            if (reason == CLIENT_R_AUTH)
                error("run: the endpoint refused the API key: %s", err.buf);
            else if (reason == CLIENT_R_MODEL_NOT_FOUND)
                error("run: model '%s' is not served: %s", o.model, err.buf);
            else
                error("run: preflight failed: %s", err.buf);
            if (reason == CLIENT_R_AUTH && !api_key)
                fprintf(stderr, "hint: no API key was sent; set %s\n", o.api_key_env);
            ret = reason == CLIENT_R_QUOTA ? DM_EXIT_INFRA : DM_EXIT_USAGE;
            goto cleanup;
        }
        if (cls != CLIENT_OK) {
            error("run: endpoint unreachable: %s", err.buf);
            ret = DM_EXIT_INFRA;
            goto cleanup;
        }
        if (pinfo.model_listed == 0)
            warning("model '%s' is not listed by the endpoint; probing with one request", o.model);
        if (pinfo.context > 0 && max_len + o.max_tokens > pinfo.context) {
            if (o.context_check) {
                error("run: length %ld plus --max-tokens %ld needs %ld tokens, but the server's "
                      "context is %ld",
                      max_len, o.max_tokens, max_len + o.max_tokens, pinfo.context);
                fprintf(stderr, "hint: lower --lengths or --max-tokens (or --no-context-check "
                                "to send anyway and record overflows)\n");
                goto cleanup;
            }
            warning("lengths up to %ld plus %ld answer tokens exceed the server's context of %ld; "
                    "those trials will be recorded as overflow",
                    max_len, o.max_tokens, pinfo.context);
        }
    }

    /*
     * Build the first planned prompt of every length once before anything is
     * recorded: a length the distractor material cannot fill (--lengths 10M)
     * is refused here, not after the run row exists.
     */
    {
        struct prompt_builder *pb = prompt_builder_new(tk, &tpl, have_hay ? &hay : NULL);
        struct built_prompt bp = BUILT_PROMPT_INIT;
        size_t li, ti;
        int bad = 0;
        for (li = 0; li < nl && !bad; li++) {
            for (ti = 0; ti < plan.nr && plan.t[ti].length != lengths[li]; ti++)
                ;
            if (ti == plan.nr)
                continue; /* not in this shard */
            {
                const struct plan_trial *pt = &plan.t[ti];
                struct prompt_request pr;
                memset(&pr, 0, sizeof(pr));
                pr.q = &gs.q[pt->question];
                pr.target_len = pt->length;
                pr.depth_bp = pt->depth_bp;
                pr.repeat = pt->repeat;
                pr.seed = (unsigned long)o.seed;
                pr.max_answer_tokens = o.max_tokens;
                pr.chat = !o.completions;
                strbuf_reset(&err);
                if (prompt_build(pb, &pr, &bp, &err) < 0) {
                    error("run: cannot build the prompt of question %s at length %ld, depth "
                          "%g%%: %s",
                          pr.q->id, pr.target_len, pr.depth_bp / 100.0, err.buf);
                    bad = 1;
                }
            }
        }
        built_prompt_release(&bp);
        prompt_builder_free(pb);
        if (bad)
            goto cleanup;
    }

    if (!exists) {
        prc = store_run_create(st, &want);
        if (prc < 0)
            goto cleanup;
        prc = store_run_lock(st, run_name, 0);
        if (prc < 0)
            goto cleanup;
        locked = 1;
    } else if (have.trials_planned != (long)plan.nr) {
        store_run_set_planned(st, run_name, (long)plan.nr);
    }
    if (store_run_update_status(st, run_name, RUN_RUNNING) < 0 ||
        store_run_set_served(st, run_name, pinfo.served_model, NULL) < 0 || store_flush(st) < 0) {
        ret = DM_EXIT_INFRA;
        goto cleanup;
    }

    builder = prompt_builder_new(tk, &tpl, have_hay ? &hay : NULL);
    done = store_done_set_load(st, run_name, 0);
    if (!done) {
        ret = DM_EXIT_INFRA;
        goto cleanup;
    }
    fprintf(stderr,
            "%s run '%s': %zu trials (%zu already done), model %s, %zu endpoint(s), "
            "concurrency %ld%s%s\n",
            exists ? "resuming" : "starting", run_name, plan.nr, store_done_set_count(done),
            o.model, client_endpoint_count(client), o.concurrency, want.shard ? ", shard " : "",
            want.shard ? want.shard : "");

    runner_config_init(&rc);
    rc.run_name = run_name;
    rc.gs = &gs;
    rc.plan = &plan;
    rc.scorers = scorers;
    rc.builder = builder;
    if (!tokenizer_is_remote(tk)) {
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        rc.build_threads = ncpu > 2 ? (ncpu > 5 ? 4 : (int)ncpu - 1) : 1;
        rc.tokenizer = tk;
        rc.tmpl = &tpl;
        rc.haystack = have_hay ? &hay : NULL;
    }
    rc.client = client;
    rc.store = st;
    rc.done = done;
    rc.seed = (unsigned long)o.seed;
    rc.max_tokens = o.max_tokens;
    rc.chat = !o.completions;
    rc.store_prompts = o.store_prompts;
    rc.probe_first = pinfo.model_listed != 1;
    rc.concurrency = (int)o.concurrency;
    rc.rpm = (double)o.rpm;
    rc.tpm = (double)o.tpm;
    rc.max_attempts = (int)o.max_attempts;
    rc.backoff_base_ms = o.retry_base_ms;
    rc.max_error_rate = o.max_error_rate;
    rc.max_cost = o.max_cost;
    rc.price_in = o.price_in;
    rc.price_out = o.price_out;
    rc.drain_seconds = o.drain_seconds;
    rc.progress = progress;
    rc.progress_interval = o.progress_interval;
    rc.jitter_seed = (uint64_t)o.seed * 0x9e3779b97f4a7c15ULL + (uint64_t)getpid();
    if (runner_run(&rc, &res) < 0) {
        ret = DM_EXIT_INFRA;
        goto cleanup;
    }
    if (res.served_model || res.system_fingerprint)
        store_run_set_served(st, run_name, res.served_model, res.system_fingerprint);

    {
        enum run_status status = RUN_FAILED;
        switch (res.end) {
        case RUNNER_COMPLETE:
            status = RUN_COMPLETE;
            ret = DM_EXIT_OK;
            break;
        case RUNNER_INTERRUPTED:
            status = RUN_INTERRUPTED;
            ret = DM_EXIT_INTERRUPTED;
            break;
        case RUNNER_BUDGET:
            status = RUN_BUDGET;
            ret = DM_EXIT_INCONCLUSIVE;
            break;
        case RUNNER_TOO_MANY_ERRORS:
        case RUNNER_STORE_ERROR:
            ret = DM_EXIT_INFRA;
            break;
        case RUNNER_FATAL:
            ret = res.fatal_reason == CLIENT_R_QUOTA || res.fatal_reason == CLIENT_R_NONE
                      ? DM_EXIT_INFRA
                      : DM_EXIT_USAGE;
            break;
        case RUNNER_INPUT_ERROR:
            ret = DM_EXIT_USAGE;
            break;
        }
        if (store_run_update_status(st, run_name, status) < 0 || store_flush(st) < 0)
            ret = ret ? ret : DM_EXIT_INFRA;
        print_summary(run_name, db, &res, status, (int)o.concurrency);

        switch (res.end) {
        case RUNNER_COMPLETE:
            if (res.outcomes[OUTCOME_ERROR])
                warning("%ld trial(s) ended in error; running the same command again re-sends "
                        "them",
                        res.outcomes[OUTCOME_ERROR]);
            break;
        case RUNNER_INTERRUPTED:
            fprintf(stderr, "interrupted: %ld of %ld trials are stored\n",
                    res.already_done + res.finished, res.planned);
            resume_hint(argc, argv, run_name, db, o.run != NULL);
            break;
        case RUNNER_BUDGET:
            error("run: --max-cost $%.2f reached ($%.4f spent); %ld trial(s) not sent", o.max_cost,
                  res.cost_usd, res.planned - res.already_done - res.finished);
            resume_hint(argc, argv, run_name, db, o.run != NULL);
            break;
        case RUNNER_TOO_MANY_ERRORS:
            error("run: stopped: %ld trial(s) ended in error after retries (limit %.1f%% of the "
                  "trials; --max-error-rate)",
                  res.outcomes[OUTCOME_ERROR], 100.0 * o.max_error_rate);
            for (i = 0; i < RUNNER_TOP_ERRORS && res.top_error[i]; i++)
                fprintf(stderr, "  %5ld x %s\n", res.top_error_count[i], res.top_error[i]);
            resume_hint(argc, argv, run_name, db, o.run != NULL);
            break;
        case RUNNER_FATAL:
            error("run: the endpoint refused the run: %s",
                  res.message ? res.message : "fatal error");
            break;
        case RUNNER_INPUT_ERROR:
        case RUNNER_STORE_ERROR:
            error("run: %s", res.message ? res.message : runner_end_name(res.end));
            break;
        }
    }

cleanup:
    if (st) {
        if (locked)
            store_run_unlock(st, run_name);
        if (store_close(st) < 0 && ret == DM_EXIT_OK)
            ret = DM_EXIT_INFRA;
    }
    store_done_set_free(done);
    prompt_builder_free(builder);
    tokenizer_free(tk);
    client_free(client);
    runner_result_release(&res);
    run_info_release(&want);
    run_info_release(&have);
    if (have_pinfo)
        client_preflight_info_release(&pinfo);
    client_config_release(&ccfg);
    if (have_plan)
        plan_release(&plan);
    if (have_tpl)
        prompt_template_release(&tpl);
    if (have_hay)
        haystack_release(&hay);
    if (have_gs)
        golden_set_release(&gs);
    free(scorers);
    free(lengths);
    free(depths);
    free(run_name);
    strbuf_release(&err);
    strbuf_release(&tpl_path);
    strbuf_release(&sb);
    strvec_clear(&rest);
    run_opts_release(&o);
    config_release(&cfgfile);
    return ret;
}

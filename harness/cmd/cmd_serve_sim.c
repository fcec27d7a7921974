/*
 * `dipmap serve-sim`: parse options, load the golden set and tokenizer, start
 * the simulated OpenAI-compatible server (sim.c), print the port as the first
 * stdout line, and serve until SIGTERM/SIGINT, then shut down cleanly (exit 0).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

#include "cmd/builtin.h"
#include "prompt/dataset.h"
#include "base/num.h"
#include "base/opt.h"
#include "sim/sim.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "tokenizer/tokenizer.h"
#include "base/usage.h"
#include "base/xalloc.h"

#include "base/banned.h"

static const char *const serve_sim_usage[] = {
    "dipmap serve-sim [--host ADDR] [--port P] [--dataset FILE] [--haystack FILE] [--model "
    "NAME:edge=E,dip=D,shape=S,seed=N,start=S,hard=H]...",
    "                 [--tokenizer NAME|FILE] [--faults KIND=RATE,...] [--fault-seed N]",
    "                 [--slow-ms MS] [--retry-after-ms MS] [--ctx N] [--shift-ctx N] [--reasoning "
    "P]",
    "                 [--think N [--think-form field|inline|both] [--think-stop]]",
    "                 [--api-key KEY | --api-key-env VAR] [--log FILE] [--template-overhead N]",
    "                 [--chat-template none|chatml] [--tokenize-api both|vllm|llamacpp|none]",
    "                 [--prefix-cache TOKENS] [--slots N] [--timings] [--latency-ms MS]",
    "                 [--prefill-ms-per-1k MS] [--prefill-throughput TOKENS_PER_S]",
    "                 [--decode-ms-per-token MS]",
    "                 [--tokenize-latency-ms MS] [--reject-max-tokens] [--min-max-tokens N]",
    "                 [--owned-by NAME]",
    "                 [--batch-delay-ms MS] [--batch-expire P] [--batch-errors P]",
    "                 [--batch-malformed P] [--batch-max-requests N] [--batch-max-bytes N]",
    NULL,
};

/* The options as given (defaults set in serve_sim_init) and what serve-sim builds from them. */
struct serve_sim {
    const char *host, *dataset, *haystack, *tokenizer, *faults, *ctx, *shift_ctx;
    const char *api_key, *api_key_env, *log, *chat_template, *tokenize_api, *prefix_cache;
    const char *think, *think_form;
    long port, fault_seed, slots;
    struct strvec models, rest;
    /* built from them; the options of the same type (the delays, the latency model, the
       batch shares and limits, ...) are parsed into it directly */
    struct sim_config cfg;
    struct sim_model *mv;
    size_t mnr;
    struct golden_set gs;
    struct haystack hay;
    int have_gs, have_hay;
    struct tokenizer *tk;
    struct strbuf err;
};

static void serve_sim_init(struct serve_sim *s)
{
    memset(s, 0, sizeof(*s));
    s->host = "127.0.0.1";
    s->tokenizer = TOKENIZER_DEFAULT;
    s->chat_template = "none";
    s->tokenize_api = "both";
    s->think_form = "both";
    s->port = 8000;
    strvec_init(&s->models);
    strvec_init(&s->rest);
    sim_config_init(&s->cfg);
    s->cfg.batch_max_requests = 50000;
    s->cfg.batch_max_bytes = 200000000; /* OpenAI's 200 MB per input file, as run --batch */
    strbuf_init(&s->err, 0);
}

static void serve_sim_release(struct serve_sim *s)
{
    if (s->have_gs)
        golden_set_release(&s->gs);
    if (s->have_hay)
        haystack_release(&s->hay);
    if (s->tk)
        tokenizer_free(s->tk);
    for (size_t i = 0; i < s->mnr; i++)
        sim_model_release(&s->mv[i]);
    free(s->mv);
    strvec_clear(&s->models);
    strvec_clear(&s->rest);
    strbuf_release(&s->err);
}

/*
 * The option table (dipmap help serve-sim prints it). 0, 1 after help, -1 after an error.
 * Long because: the table has one entry per option with its help text, the --model keys listed.
 */
static int serve_sim_parse(struct serve_sim *s, int argc, const char **argv)
{
    struct option opts[] = {
        OPT_GROUP("server"),
        OPT_STRING(0, "host", &s->host, "ADDR", "address to bind (default 127.0.0.1)"),
        OPT_LONG('p', "port", &s->port, "P",
                 "TCP port (default 8000; 0 = any free port); printed as the first stdout line"),
        OPT_STRING(0, "api-key", &s->api_key, "KEY", "require 'Authorization: Bearer KEY'"),
        OPT_STRING(0, "api-key-env", &s->api_key_env, "VAR",
                   "take the required API key from environment variable VAR"),
        OPT_STRING(0, "log", &s->log, "FILE", "append one JSON line per request to FILE"),
        OPT_GROUP("model"),
        OPT_STRING('d', "dataset", &s->dataset, "FILE", "golden set the model answers from"),
        OPT_STRING(0, "haystack", &s->haystack, "FILE",
                   "the haystack: its file order for shuffled=E, its text for distract=E"),
        OPT_LIST(
            'm', "model", &s->models, "SPEC",
            "NAME[:edge=0.92,dip=0.40,shape=1.6,seed=1,start=0,hard=0,needles=0,spacing=0,window=0,"
            "shuffled=0,overlap=0,size=0,flat=0,corr=0,icc=0,qseed=SEED,mid=0,halluc=0,deny=0,"
            "ordinal=0,lenpen=0,distract=0] (repeatable; default dipmap-sim); "
            "start/hard/needles/spacing/shuffled/overlap plant accuracy drops: question only "
            "before the gold, a hard negative present, per gold chunk beyond the first, times the "
            "needles' spacing, haystack out of --haystack order, times 1 - the question's token "
            "overlap with its gold (all of it mid-prompt, half at the edges); size: times how "
            "small the gold's line is (1 at 16 tokens, 0 at 256; all of it mid-prompt, half at the "
            "edges: run --needle-tokens); window: the dip deeper at half the --ctx window; flat=1: "
            "the same dip at every prompt length; corr: how much one question's draws agree across "
            "its prompts (axis values, repeats); icc=R: a question effect, the intraclass "
            "correlation of one question's 0/1 outcomes at equal accuracy (a difficulty per "
            "question hashed from qseed, default the model's seed, and the question id, hard at "
            "every depth and length; models with one qseed share it); mid=M: a middle-only "
            "regression, M lower where the gold sits at 25-75% of the prompt and unchanged at the "
            "edges; halluc=H, deny=D (a prompt that says \"not in the documents\", run --absent): "
            "with the gold absent answer with probability H, else abstain; with it present abstain "
            "with probability D; lenpen=E: length alone hurts, E x clamp(log2(T/1500)/4, 0, 1) "
            "lower in every prompt of T tokens; distract=E: E lower when a chunk of --haystack "
            "occurs (run --arm: docs/effects.md)"),
        OPT_STRING('t', "tokenizer", &s->tokenizer, "NAME|FILE",
                   "counts prompt tokens (default " TOKENIZER_DEFAULT ")"),
        OPT_STRING(0, "ctx", &s->ctx, "N", "context size: longer prompts get a 400 (e.g. 32k)"),
        OPT_STRING(0, "shift-ctx", &s->shift_ctx, "N",
                   "silently keep only the last N prompt tokens (llama.cpp context shift)"),
        OPT_LONG(0, "template-overhead", &s->cfg.template_overhead, "N",
                 "tokens added to every request's count, like a BOS (default 0)"),
        OPT_STRING(
            0, "chat-template", &s->chat_template, "MODE",
            "none (default) or chatml: a per-message template counted in usage and /tokenize"),
        OPT_STRING(
            0, "tokenize-api", &s->tokenize_api, "API",
            "counting routes: both (default), vllm, llamacpp (/apply-template with chatml), none"),
        OPT_BOOL(0, "reject-max-tokens", &s->cfg.reject_max_tokens,
                 "answer a chat request sending max_tokens with OpenAI's 400 for reasoning models "
                 "(use max_completion_tokens)"),
        OPT_LONG(
            0, "min-max-tokens", &s->cfg.min_max_tokens, "N",
            "answer a budget (max_tokens, max_completion_tokens) below N with a 400 naming it"),
        OPT_DOUBLE(0, "reasoning", &s->cfg.reasoning, "P",
                   "probability of an empty answer with reasoning_content, finish_reason length"),
        OPT_STRING(0, "think", &s->think, "N",
                   "reasoning mode: N tokens of thinking before every answer, from the same budget "
                   "(reasoning_effort low/medium scale it by 1/4, 1/2; enable_thinking false turns "
                   "it off)"),
        OPT_STRING(0, "think-form", &s->think_form, "FORM",
                   "field (reasoning_content), inline (<think> in the content) or both (default)"),
        OPT_BOOL(0, "think-stop", &s->cfg.think_stop,
                 "thinking that reaches the budget ends with finish_reason stop, not length"),
        OPT_GROUP("prefix cache and latency"),
        OPT_STRING(
            0, "prefix-cache", &s->prefix_cache, "TOKENS",
            "keep prompts' tokens (LRU, per slot) and reuse their longest common prefix; reported "
            "as usage.prompt_tokens_details.cached_tokens (default 0: off)"),
        OPT_LONG(
            0, "slots", &s->slots, "N",
            "llama.cpp-style slots: N requests at once, a cache each, id_slot honoured (default 0: "
            "unlimited, one shared cache as vLLM)"),
        OPT_BOOL(0, "timings", &s->cfg.timings,
                 "add llama.cpp's timings (cache_n, prompt_n, prompt_ms, ...) to every answer"),
        OPT_STRING(0, "owned-by", &s->cfg.owned_by, "NAME",
                   "/v1/models owned_by (default dipmap-sim); another name but llamacpp also drops "
                   "llama.cpp's /props, e.g. vllm to be detected as vLLM"),
        OPT_DOUBLE(0, "prefill-ms-per-1k", &s->cfg.prefill_ms_per_1k, "MS",
                   "latency per 1000 prompt tokens not taken from the cache (default 0)"),
        OPT_DOUBLE(0, "prefill-throughput", &s->cfg.prefill_throughput, "TOKENS_PER_S",
                   "one prefill engine shared by all requests: in arrival order, each request's "
                   "uncached tokens at this rate (default 0: off)"),
        OPT_DOUBLE(0, "decode-ms-per-token", &s->cfg.decode_ms_per_token, "MS",
                   "latency per completion token (default 0)"),
        OPT_GROUP("faults"),
        OPT_STRING('f', "faults", &s->faults, "SPEC",
                   "e.g. 429=0.05,500=0.02,503=0.01,drop=0.01,truncate=0.01,garbage=0.01,slow=0.01,"
                   "error200=0.01,html200=0.01"),
        OPT_LONG(0, "fault-seed", &s->fault_seed, "N", "seed of the fault draws (default 0)"),
        OPT_LONG(0, "latency-ms", &s->cfg.latency_ms, "MS",
                 "base latency of every generation request (default 0)"),
        OPT_LONG(0, "tokenize-latency-ms", &s->cfg.tokenize_latency_ms, "MS",
                 "added to every /tokenize and /apply-template request"),
        OPT_LONG(0, "slow-ms", &s->cfg.slow_ms, "MS", "delay of the 'slow' fault (default 5000)"),
        OPT_LONG(0, "retry-after-ms", &s->cfg.retry_after_ms, "MS",
                 "delay advertised by 429s (Retry-After, retry-after-ms; default 1000)"),
        OPT_GROUP("batch API (/v1/files, /v1/batches)"),
        OPT_LONG(0, "batch-delay-ms", &s->cfg.batch_delay_ms, "MS",
                 "time a batch spends validating, in progress and finalizing, each (default 0)"),
        OPT_DOUBLE(0, "batch-expire", &s->cfg.batch_expire, "P",
                   "share of a batch's lines that expire (batch_expired; the batch ends expired)"),
        OPT_DOUBLE(0, "batch-errors", &s->cfg.batch_errors, "P",
                   "share of a batch's lines answered with a 500 server error (error file)"),
        OPT_DOUBLE(0, "batch-malformed", &s->cfg.batch_malformed, "P",
                   "share of a batch's output lines written cut short (not JSON)"),
        OPT_LONG(0, "batch-max-requests", &s->cfg.batch_max_requests, "N",
                 "requests per input file past which a batch fails validation (default 50000)"),
        OPT_LONG(0, "batch-max-bytes", &s->cfg.batch_max_bytes, "N",
                 "bytes per input file past which a batch fails validation (default 200 MB, "
                 "OpenAI's)"),
        OPT_END(),
    };
    int rc = parse_options(argc, argv, opts, serve_sim_usage, &s->rest);
    if (rc)
        return rc;
    if (s->rest.nr)
        return error("serve-sim: unexpected argument '%s'", s->rest.v[0]);
    return 0;
}

/* --port, the delays, --min-max-tokens and --template-overhead. */
static int check_server_numbers(struct serve_sim *s)
{
    if (s->port < 0 || s->port > 65535)
        return error("serve-sim: --port must be in 0..65535");
    if (s->cfg.latency_ms < 0 || s->cfg.slow_ms < 0 || s->cfg.retry_after_ms < 0 ||
        s->fault_seed < 0 || s->cfg.tokenize_latency_ms < 0)
        return error("serve-sim: --latency-ms, --tokenize-latency-ms, --slow-ms, --retry-after-ms "
                     "and --fault-seed must be >= 0");
    if (s->cfg.min_max_tokens < 0 || s->cfg.min_max_tokens > 1000000)
        return error("serve-sim: --min-max-tokens must be in 0..1000000");
    if (s->cfg.template_overhead < 0 || s->cfg.template_overhead > 100000)
        return error("serve-sim: --template-overhead must be in 0..100000");
    if (s->cfg.batch_delay_ms < 0 || s->cfg.batch_max_requests < 0 || s->cfg.batch_max_bytes < 0)
        return error("serve-sim: --batch-delay-ms, --batch-max-requests and --batch-max-bytes "
                     "must be >= 0");
    if (!(s->cfg.batch_expire >= 0 && s->cfg.batch_expire <= 1) ||
        !(s->cfg.batch_errors >= 0 && s->cfg.batch_errors <= 1) ||
        !(s->cfg.batch_malformed >= 0 && s->cfg.batch_malformed <= 1))
        return error("serve-sim: --batch-expire, --batch-errors and --batch-malformed must be "
                     "in 0..1");
    s->cfg.port = (int)s->port;
    s->cfg.fault_seed = (uint64_t)s->fault_seed;
    return 0;
}

/* --chat-template and --tokenize-api: how prompts are counted. */
static int check_counting(struct serve_sim *s)
{
    if (!strcmp(s->chat_template, "chatml"))
        s->cfg.chat_template = SIM_TEMPLATE_CHATML;
    else if (strcmp(s->chat_template, "none"))
        return error("serve-sim: --chat-template must be none or chatml");
    if (!strcmp(s->tokenize_api, "vllm"))
        s->cfg.tokenize_api = SIM_API_VLLM;
    else if (!strcmp(s->tokenize_api, "llamacpp"))
        s->cfg.tokenize_api = SIM_API_LLAMACPP;
    else if (!strcmp(s->tokenize_api, "none"))
        s->cfg.tokenize_api = SIM_API_NONE;
    else if (strcmp(s->tokenize_api, "both"))
        return error("serve-sim: --tokenize-api must be both, vllm, llamacpp or none");
    return 0;
}

/* --prefix-cache, --slots, the prefill/decode latency model, --timings, --owned-by. */
static int check_cache(struct serve_sim *s)
{
    if (s->prefix_cache && parse_token_count(s->prefix_cache, 1L << 30, &s->cfg.prefix_cache))
        return error("serve-sim: --prefix-cache '%s': %s", s->prefix_cache,
                     parse_num_strerror(s->prefix_cache));
    if (s->slots < 0 || s->slots > 1024)
        return error("serve-sim: --slots must be in 0..1024");
    if (!(s->cfg.prefill_ms_per_1k >= 0 && s->cfg.prefill_ms_per_1k <= 1e6) ||
        !(s->cfg.decode_ms_per_token >= 0 && s->cfg.decode_ms_per_token <= 1e6))
        return error(
            "serve-sim: --prefill-ms-per-1k and --decode-ms-per-token must be in 0..1000000");
    if (!(s->cfg.prefill_throughput >= 0 && s->cfg.prefill_throughput <= 1e9))
        return error("serve-sim: --prefill-throughput must be in 0..1000000000 tokens/s");
    s->cfg.slots = (int)s->slots;
    return 0;
}

/* --reasoning, --think, --think-form, --think-stop. */
static int check_reasoning(struct serve_sim *s)
{
    if (s->cfg.reasoning < 0 || s->cfg.reasoning > 1)
        return error("serve-sim: --reasoning must be a probability in [0,1]");
    if (s->think && parse_token_count(s->think, 1L << 24, &s->cfg.think_tokens))
        return error("serve-sim: --think '%s': %s", s->think, parse_num_strerror(s->think));
    if (!strcmp(s->think_form, "both"))
        s->cfg.think_form = SIM_THINK_BOTH;
    else if (!strcmp(s->think_form, "field"))
        s->cfg.think_form = SIM_THINK_FIELD;
    else if (!strcmp(s->think_form, "inline"))
        s->cfg.think_form = SIM_THINK_INLINE;
    else
        return error("serve-sim: --think-form must be field, inline or both, got '%s'",
                     s->think_form);
    return 0;
}

/* --ctx, --shift-ctx and --faults. */
static int check_context_faults(struct serve_sim *s)
{
    if (s->ctx && parse_token_count(s->ctx, 1L << 30, &s->cfg.ctx))
        return error("serve-sim: --ctx '%s': %s", s->ctx, parse_num_strerror(s->ctx));
    if (s->shift_ctx && parse_token_count(s->shift_ctx, 1L << 30, &s->cfg.shift_ctx))
        return error("serve-sim: --shift-ctx '%s': %s", s->shift_ctx,
                     parse_num_strerror(s->shift_ctx));
    if (s->faults && sim_faults_parse(s->faults, &s->cfg.faults, &s->err))
        return error("serve-sim: %s", s->err.buf);
    return 0;
}

/* The required key: --api-key, or the variable --api-key-env names (they must agree). */
static int check_api_key(struct serve_sim *s)
{
    const char *v;
    if (s->api_key_env) {
        v = getenv(s->api_key_env);
        if (!v || !*v)
            return error("serve-sim: environment variable %s (from --api-key-env) is not set",
                         s->api_key_env);
        if (s->api_key && strcmp(s->api_key, v))
            return error("serve-sim: --api-key and --api-key-env disagree; give one");
        s->api_key = v;
    }
    s->cfg.api_key = s->api_key;
    return 0;
}

/* Every --model SPEC (default dipmap-sim), each name once. */
static int parse_models(struct serve_sim *s)
{
    if (!s->models.nr)
        strvec_push(&s->models, "dipmap-sim");
    s->mv = xcalloc(s->models.nr, sizeof(*s->mv));
    for (size_t i = 0; i < s->models.nr; i++) {
        const char *spec = s->models.v[i], *c = strchr(spec, ':');
        size_t n = c ? (size_t)(c - spec) : strlen(spec);
        for (size_t j = 0; j < s->mnr; j++)
            if (strlen(s->mv[j].name) == n && !strncmp(s->mv[j].name, spec, n))
                return error("serve-sim: model '%s' given twice", s->mv[j].name);
        if (sim_model_parse(spec, &s->mv[s->mnr], &s->err))
            return error("serve-sim: %s", s->err.buf);
        s->mnr++;
    }
    s->cfg.models = s->mv;
    s->cfg.nr_models = s->mnr;
    return 0;
}

/* The tokenizer, the golden set and the haystack (shuffled=E and distract=E need it). */
static int load_inputs(struct serve_sim *s)
{
    s->tk = tokenizer_load(s->tokenizer, &s->err);
    if (!s->tk)
        return error("serve-sim: %s", s->err.buf);
    if (s->dataset) {
        if (golden_set_load(&s->gs, s->dataset)) {
            golden_set_release(&s->gs); /* left empty but releasable */
            return -1;
        }
        s->have_gs = 1;
    }
    for (size_t i = 0; i < s->mnr && !s->haystack; i++) {
        if (s->mv[i].shuffled > 0)
            return error(
                "serve-sim: model '%s': shuffled=E needs --haystack FILE (the source order)",
                s->mv[i].name);
        if (s->mv[i].distract > 0)
            return error("serve-sim: model '%s': distract=E needs --haystack FILE (the text "
                         "that distracts)",
                         s->mv[i].name);
    }
    if (s->haystack) {
        if (haystack_load(&s->hay, s->haystack)) {
            haystack_release(&s->hay);
            return -1;
        }
        s->have_hay = 1;
    }
    s->cfg.tokenizer = s->tk;
    s->cfg.gs = s->have_gs ? &s->gs : NULL;
    s->cfg.hay = s->have_hay ? &s->hay : NULL;
    return 0;
}

/* Start the server, print its port, serve until SIGINT/SIGTERM; the exit code. */
static int serve(struct serve_sim *s)
{
    struct sim_server *srv;
    sigset_t set;
    int sig;

    s->cfg.host = s->host;
    s->cfg.log_path = s->log;
    /* Block the stop signals before any server thread exists, so only sigwait() sees them. */
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);

    srv = sim_start(&s->cfg, &s->err);
    if (!srv) {
        error("serve-sim: %s", s->err.buf);
        return DM_EXIT_INFRA;
    }
    printf("%d\n", sim_port(srv));
    fflush(stdout);
    fprintf(stderr, "serve-sim: listening on http://%s:%d (", s->host, sim_port(srv));
    for (size_t i = 0; i < s->mnr; i++)
        fprintf(stderr, "%s%s edge=%g dip=%g shape=%g seed=%llu", i ? "; " : "", s->mv[i].name,
                s->mv[i].edge, s->mv[i].dip, s->mv[i].shape, (unsigned long long)s->mv[i].seed);
    fprintf(stderr, ")%s%s\n", s->have_gs ? ", dataset " : ", no dataset",
            s->have_gs ? s->dataset : "");

    if (sigwait(&set, &sig))
        sig = SIGTERM;
    sim_stop(srv);
    fprintf(stderr, "serve-sim: stopped (%s)\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    return DM_EXIT_OK;
}

int cmd_serve_sim(int argc, const char **argv)
{
    struct serve_sim s;
    int rc;

    serve_sim_init(&s);
    rc = serve_sim_parse(&s, argc, argv);
    if (rc > 0)
        rc = DM_EXIT_OK;
    else if (rc < 0 || check_server_numbers(&s) || check_counting(&s) || check_cache(&s) ||
             check_reasoning(&s) || check_context_faults(&s) || check_api_key(&s) ||
             parse_models(&s) || load_inputs(&s))
        rc = DM_EXIT_USAGE;
    else
        rc = serve(&s);
    serve_sim_release(&s);
    return rc;
}

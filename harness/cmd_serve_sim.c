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

#include "builtin.h"
#include "dataset.h"
#include "num.h"
#include "opt.h"
#include "sim.h"
#include "strbuf.h"
#include "strvec.h"
#include "tokenizer.h"
#include "usage.h"
#include "xalloc.h"

#include "banned.h"

static const char *const serve_sim_usage[] = {
    "dipmap serve-sim [--port P] [--dataset FILE] [--haystack FILE] [--model "
    "NAME:edge=E,dip=D,shape=S,seed=N,start=S,hard=H]...",
    "                 [--faults KIND=RATE,...] [--ctx N] [--shift-ctx N] [--reasoning P]",
    "                 [--think N [--think-form field|inline|both] [--think-stop]]",
    "                 [--api-key-env VAR] [--log FILE] [--template-overhead N]",
    "                 [--chat-template none|chatml] [--tokenize-api both|vllm|llamacpp|none]",
    "                 [--prefix-cache TOKENS] [--slots N] [--timings] [--latency-ms MS]",
    "                 [--prefill-ms-per-1k MS] [--decode-ms-per-token MS]",
    "                 [--tokenize-latency-ms MS] [--reject-max-tokens] [--min-max-tokens N]",
    "                 [--owned-by NAME]",
    NULL,
};

int cmd_serve_sim(int argc, const char **argv)
{
    const char *haystack = NULL;
    const char *host = "127.0.0.1", *dataset = NULL, *tok_spec = "cl100k_base", *faults = NULL;
    const char *ctx_s = NULL, *shift_s = NULL, *api_key = NULL, *api_key_env = NULL;
    const char *log_path = NULL, *chat_template = "none", *tokenize_api = "both";
    long template_overhead = 0;
    long port = 8000, fault_seed = 0, latency_ms = 0, slow_ms = 5000, retry_after_ms = 1000;
    double reasoning = 0, prefill_ms = 0, decode_ms = 0;
    const char *prefix_cache_s = NULL;
    long slots = 0;
    int timings = 0;
    const char *owned_by = NULL;
    long tokenize_latency_ms = 0, min_max_tokens = 0;
    int reject_max_tokens = 0;
    const char *think_s = NULL, *think_form = "both";
    int think_stop = 0;
    struct strvec models = STRVEC_INIT, rest = STRVEC_INIT;
    struct option opts[] = {
        {OPT_GROUP, NULL, 0, NULL, NULL, "server", 0},
        {OPT_STRING, "host", 0, &host, "ADDR", "address to bind (default 127.0.0.1)", 0},
        {OPT_LONG, "port", 'p', &port, "P",
         "TCP port (default 8000; 0 = any free port); printed as the first stdout line", 0},
        {OPT_STRING, "api-key", 0, &api_key, "KEY", "require 'Authorization: Bearer KEY'", 0},
        {OPT_STRING, "api-key-env", 0, &api_key_env, "VAR",
         "take the required API key from environment variable VAR", 0},
        {OPT_STRING, "log", 0, &log_path, "FILE", "append one JSON line per request to FILE", 0},
        {OPT_GROUP, NULL, 0, NULL, NULL, "model", 0},
        {OPT_STRING, "dataset", 'd', &dataset, "FILE", "golden set the model answers from", 0},
        {OPT_STRING, "haystack", 0, &haystack, "FILE",
         "the haystack's source order, for shuffled=E (chunks out of file order)", 0},
        {OPT_LIST, "model", 'm', &models, "SPEC",
         "NAME[:edge=0.92,dip=0.40,shape=1.6,seed=1,start=0,hard=0,needles=0,spacing=0,window=0,"
         "shuffled=0,flat=0] (repeatable; default dipmap-sim); start/hard/needles/spacing/"
         "shuffled plant accuracy drops: question only before the gold, a hard negative "
         "present, per gold chunk beyond the first, times the needles' spacing, haystack out of "
         "--haystack order; window: the dip deeper at half the --ctx window; flat=1: the same "
         "dip at every prompt length",
         0},
        {OPT_STRING, "tokenizer", 't', &tok_spec, "NAME|FILE",
         "counts prompt tokens (default cl100k_base)", 0},
        {OPT_STRING, "ctx", 0, &ctx_s, "N", "context size: longer prompts get a 400 (e.g. 32k)", 0},
        {OPT_STRING, "shift-ctx", 0, &shift_s, "N",
         "silently keep only the last N prompt tokens (llama.cpp context shift)", 0},
        {OPT_LONG, "template-overhead", 0, &template_overhead, "N",
         "tokens added to every request's count, like a BOS (default 0)", 0},
        {OPT_STRING, "chat-template", 0, &chat_template, "MODE",
         "none (default) or chatml: a per-message template counted in usage and /tokenize", 0},
        {OPT_STRING, "tokenize-api", 0, &tokenize_api, "API",
         "counting routes: both (default), vllm, llamacpp (/apply-template with chatml), none", 0},
        {OPT_BOOL, "reject-max-tokens", 0, &reject_max_tokens, NULL,
         "answer a chat request sending max_tokens with OpenAI's 400 for reasoning models "
         "(use max_completion_tokens)",
         0},
        {OPT_LONG, "min-max-tokens", 0, &min_max_tokens, "N",
         "answer a budget (max_tokens, max_completion_tokens) below N with a 400 naming it", 0},
        {OPT_DOUBLE, "reasoning", 0, &reasoning, "P",
         "probability of an empty answer with reasoning_content, finish_reason length", 0},
        {OPT_STRING, "think", 0, &think_s, "N",
         "reasoning mode: N tokens of thinking before every answer, from the same budget "
         "(reasoning_effort low/medium scale it by 1/4, 1/2; enable_thinking false turns it off)",
         0},
        {OPT_STRING, "think-form", 0, &think_form, "FORM",
         "field (reasoning_content), inline (<think> in the content) or both (default)", 0},
        {OPT_BOOL, "think-stop", 0, &think_stop, NULL,
         "thinking that reaches the budget ends with finish_reason stop, not length", 0},
        {OPT_GROUP, NULL, 0, NULL, NULL, "prefix cache and latency", 0},
        {OPT_STRING, "prefix-cache", 0, &prefix_cache_s, "TOKENS",
         "keep prompts' tokens (LRU, per slot) and reuse their longest common prefix; reported "
         "as usage.prompt_tokens_details.cached_tokens (default 0: off)",
         0},
        {OPT_LONG, "slots", 0, &slots, "N",
         "llama.cpp-style slots: N requests at once, a cache each, id_slot honoured (default 0: "
         "unlimited, one shared cache as vLLM)",
         0},
        {OPT_BOOL, "timings", 0, &timings, NULL,
         "add llama.cpp's timings (cache_n, prompt_n, prompt_ms, ...) to every answer", 0},
        {OPT_STRING, "owned-by", 0, &owned_by, "NAME",
         "/v1/models owned_by (default dipmap-sim); another name but llamacpp also drops "
         "llama.cpp's /props, e.g. vllm to be detected as vLLM",
         0},
        {OPT_DOUBLE, "prefill-ms-per-1k", 0, &prefill_ms, "MS",
         "latency per 1000 prompt tokens not taken from the cache (default 0)", 0},
        {OPT_DOUBLE, "decode-ms-per-token", 0, &decode_ms, "MS",
         "latency per completion token (default 0)", 0},
        {OPT_GROUP, NULL, 0, NULL, NULL, "faults", 0},
        {OPT_STRING, "faults", 'f', &faults, "SPEC",
         "e.g. 429=0.05,500=0.02,503=0.01,drop=0.01,truncate=0.01,garbage=0.01,slow=0.01,"
         "error200=0.01",
         0},
        {OPT_LONG, "fault-seed", 0, &fault_seed, "N", "seed of the fault draws (default 0)", 0},
        {OPT_LONG, "latency-ms", 0, &latency_ms, "MS",
         "base latency of every generation request (default 0)", 0},
        {OPT_LONG, "tokenize-latency-ms", 0, &tokenize_latency_ms, "MS",
         "added to every /tokenize and /apply-template request", 0},
        {OPT_LONG, "slow-ms", 0, &slow_ms, "MS", "delay of the 'slow' fault (default 5000)", 0},
        {OPT_LONG, "retry-after-ms", 0, &retry_after_ms, "MS",
         "delay advertised by 429s (Retry-After, retry-after-ms; default 1000)", 0},
        OPT_END_MARK,
    };
    struct sim_config cfg;
    struct sim_model *mv = NULL;
    size_t mnr = 0;
    struct golden_set gs;
    int have_gs = 0, have_hay = 0;
    struct haystack hay;
    struct tokenizer *tk = NULL;
    struct sim_server *srv = NULL;
    struct strbuf err = STRBUF_INIT;
    sigset_t set;
    int rc, sig, ret = DM_EXIT_USAGE;

    rc = parse_options(argc, argv, opts, serve_sim_usage, &rest);
    if (rc)
        return rc > 0 ? DM_EXIT_OK : DM_EXIT_USAGE;
    sim_config_init(&cfg);
    if (rest.nr) {
        error("serve-sim: unexpected argument '%s'", rest.v[0]);
        goto cleanup;
    }
    if (port < 0 || port > 65535) {
        error("serve-sim: --port must be in 0..65535");
        goto cleanup;
    }
    if (latency_ms < 0 || slow_ms < 0 || retry_after_ms < 0 || fault_seed < 0 ||
        tokenize_latency_ms < 0) {
        error("serve-sim: --latency-ms, --tokenize-latency-ms, --slow-ms, --retry-after-ms and "
              "--fault-seed must be >= 0");
        goto cleanup;
    }
    if (min_max_tokens < 0 || min_max_tokens > 1000000) {
        error("serve-sim: --min-max-tokens must be in 0..1000000");
        goto cleanup;
    }
    if (template_overhead < 0 || template_overhead > 100000) {
        error("serve-sim: --template-overhead must be in 0..100000");
        goto cleanup;
    }
    if (!strcmp(chat_template, "chatml")) {
        cfg.chat_template = SIM_TEMPLATE_CHATML;
    } else if (strcmp(chat_template, "none")) {
        error("serve-sim: --chat-template must be none or chatml");
        goto cleanup;
    }
    if (!strcmp(tokenize_api, "vllm"))
        cfg.tokenize_api = SIM_API_VLLM;
    else if (!strcmp(tokenize_api, "llamacpp"))
        cfg.tokenize_api = SIM_API_LLAMACPP;
    else if (!strcmp(tokenize_api, "none"))
        cfg.tokenize_api = SIM_API_NONE;
    else if (strcmp(tokenize_api, "both")) {
        error("serve-sim: --tokenize-api must be both, vllm, llamacpp or none");
        goto cleanup;
    }
    cfg.template_overhead = template_overhead;
    if (prefix_cache_s && parse_token_count(prefix_cache_s, 1L << 30, &cfg.prefix_cache)) {
        error("serve-sim: --prefix-cache '%s': %s", prefix_cache_s,
              parse_num_strerror(prefix_cache_s));
        goto cleanup;
    }
    if (slots < 0 || slots > 1024) {
        error("serve-sim: --slots must be in 0..1024");
        goto cleanup;
    }
    cfg.slots = (int)slots;
    if (!(prefill_ms >= 0 && prefill_ms <= 1e6) || !(decode_ms >= 0 && decode_ms <= 1e6)) {
        error("serve-sim: --prefill-ms-per-1k and --decode-ms-per-token must be in 0..1000000");
        goto cleanup;
    }
    cfg.prefill_ms_per_1k = prefill_ms;
    cfg.decode_ms_per_token = decode_ms;
    cfg.timings = timings;
    cfg.owned_by = owned_by;
    cfg.tokenize_latency_ms = tokenize_latency_ms;
    cfg.reject_max_tokens = reject_max_tokens;
    cfg.min_max_tokens = min_max_tokens;
    if (reasoning < 0 || reasoning > 1) {
        error("serve-sim: --reasoning must be a probability in [0,1]");
        goto cleanup;
    }
    if (think_s && parse_token_count(think_s, 1L << 24, &cfg.think_tokens)) {
        error("serve-sim: --think '%s': %s", think_s, parse_num_strerror(think_s));
        goto cleanup;
    }
    if (!strcmp(think_form, "both"))
        cfg.think_form = SIM_THINK_BOTH;
    else if (!strcmp(think_form, "field"))
        cfg.think_form = SIM_THINK_FIELD;
    else if (!strcmp(think_form, "inline"))
        cfg.think_form = SIM_THINK_INLINE;
    else {
        error("serve-sim: --think-form must be field, inline or both, got '%s'", think_form);
        goto cleanup;
    }
    cfg.think_stop = think_stop;
    if (ctx_s && parse_token_count(ctx_s, 1L << 30, &cfg.ctx)) {
        error("serve-sim: --ctx '%s': %s", ctx_s, parse_num_strerror(ctx_s));
        goto cleanup;
    }
    if (shift_s && parse_token_count(shift_s, 1L << 30, &cfg.shift_ctx)) {
        error("serve-sim: --shift-ctx '%s': %s", shift_s, parse_num_strerror(shift_s));
        goto cleanup;
    }
    if (faults && sim_faults_parse(faults, &cfg.faults, &err)) {
        error("serve-sim: %s", err.buf);
        goto cleanup;
    }
    if (api_key_env) {
        const char *v = getenv(api_key_env);
        if (!v || !*v) {
            error("serve-sim: environment variable %s (from --api-key-env) is not set",
                  api_key_env);
            goto cleanup;
        }
        if (api_key && strcmp(api_key, v)) {
            error("serve-sim: --api-key and --api-key-env disagree; give one");
            goto cleanup;
        }
        api_key = v;
    }
    if (!models.nr)
        strvec_push(&models, "dipmap-sim");
    mv = xcalloc(models.nr, sizeof(*mv));
    for (size_t i = 0; i < models.nr; i++) {
        for (size_t j = 0; j < mnr; j++) {
            const char *c = strchr(models.v[i], ':');
            size_t n = c ? (size_t)(c - models.v[i]) : strlen(models.v[i]);
            if (strlen(mv[j].name) == n && !strncmp(mv[j].name, models.v[i], n)) {
                error("serve-sim: model '%s' given twice", mv[j].name);
                goto cleanup;
            }
        }
        if (sim_model_parse(models.v[i], &mv[mnr], &err)) {
            error("serve-sim: %s", err.buf);
            goto cleanup;
        }
        mnr++;
    }
    tk = tokenizer_load(tok_spec, &err);
    if (!tk) {
        error("serve-sim: %s", err.buf);
        goto cleanup;
    }
    if (dataset) {
        if (golden_set_load(&gs, dataset)) {
            golden_set_release(&gs); /* left empty but releasable */
            goto cleanup;
        }
        have_gs = 1;
    }
    for (size_t i = 0; i < mnr && !haystack; i++)
        if (mv[i].shuffled > 0) {
            error("serve-sim: model '%s': shuffled=E needs --haystack FILE (the source order)",
                  mv[i].name);
            goto cleanup;
        }
    if (haystack) {
        if (haystack_load(&hay, haystack)) {
            haystack_release(&hay);
            goto cleanup;
        }
        have_hay = 1;
    }

    cfg.host = host;
    cfg.port = (int)port;
    cfg.models = mv;
    cfg.nr_models = mnr;
    cfg.tokenizer = tk;
    cfg.gs = have_gs ? &gs : NULL;
    cfg.hay = have_hay ? &hay : NULL;
    cfg.fault_seed = (uint64_t)fault_seed;
    cfg.latency_ms = latency_ms;
    cfg.slow_ms = slow_ms;
    cfg.retry_after_ms = retry_after_ms;
    cfg.reasoning = reasoning;
    cfg.api_key = api_key;
    cfg.log_path = log_path;

    /* Block the stop signals before any server thread exists, so only sigwait() sees them. */
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);

    srv = sim_start(&cfg, &err);
    if (!srv) {
        error("serve-sim: %s", err.buf);
        ret = DM_EXIT_INFRA;
        goto cleanup;
    }
    printf("%d\n", sim_port(srv));
    fflush(stdout);
    fprintf(stderr, "serve-sim: listening on http://%s:%d (", host, sim_port(srv));
    for (size_t i = 0; i < mnr; i++)
        fprintf(stderr, "%s%s edge=%g dip=%g shape=%g seed=%llu", i ? "; " : "", mv[i].name,
                mv[i].edge, mv[i].dip, mv[i].shape, (unsigned long long)mv[i].seed);
    fprintf(stderr, ")%s%s\n", have_gs ? ", dataset " : ", no dataset", have_gs ? dataset : "");

    if (sigwait(&set, &sig))
        sig = SIGTERM;
    sim_stop(srv);
    srv = NULL;
    fprintf(stderr, "serve-sim: stopped (%s)\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    ret = DM_EXIT_OK;

cleanup:
    sim_stop(srv);
    if (have_gs)
        golden_set_release(&gs);
    if (have_hay)
        haystack_release(&hay);
    if (tk)
        tokenizer_free(tk);
    for (size_t i = 0; i < mnr; i++)
        sim_model_release(&mv[i]);
    free(mv);
    strvec_clear(&models);
    strvec_clear(&rest);
    strbuf_release(&err);
    return ret;
}

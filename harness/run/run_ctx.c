/*
 * The life cycle of struct run_ctx (one `dipmap run` between its phases) and
 * the run's identity settings built from what the context holds.
 */
#include <errno.h>
#include <pthread.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cmd/builtin.h"
#include "client/client.h"
#include "base/config.h"
#include "base/escape.h"
#include "prompt/dataset.h"
#include "base/json.h"
#include "base/num.h"
#include "base/opt.h"
#include "prompt/order.h"
#include "client/overhead.h"
#include "run/axes.h"
#include "run/estimate.h"
#include "run/batch.h"
#include "run/plan.h"
#include "stats/power.h"
#include "prompt/layout.h"
#include "prompt/prompt.h"
#include "client/reasoning.h"
#include "prompt/retrieval.h"
#include "run/reuse.h"
#include "run/run_identity.h"
#include "report/runbrief.h"
#include "run/runner.h"
#include "run/score.h"
#include "stats/stats.h"
#include "base/secret.h"
#include "store/store.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "tokenizer/tokenizer.h"
#include "base/usage.h"
#include "base/version.h"
#include "base/xalloc.h"
#include "base/utc.h"

#include "run/run_cmd.h"

#include "base/banned.h"

void run_ctx_init(struct run_ctx *c, int argc, const char **argv)
{
    memset(c, 0, sizeof(*c));
    c->argc = argc;
    c->argv = argv;
    run_opts_init(&c->o);
    strvec_init(&c->rest);
    config_init(&c->cfgfile);
    strbuf_init(&c->err, 0);
    strbuf_init(&c->tpl_path, 0);
    strbuf_init(&c->sb, 0);
    strbuf_init(&c->extra_body, 0);
    c->default_scorer = SCORER_DEFAULT;
    c->shard_n = 1;
    c->overhead = -1;
    pthread_mutex_init(&c->count_cache.mu, NULL);
    client_config_init(&c->ccfg);
    run_info_init(&c->want);
    run_info_init(&c->have);
    runner_result_init(&c->res);
    c->ret = DM_EXIT_USAGE;
}

/* Frees the context; returns the exit code (a failed close turns success into DM_EXIT_INFRA). */
int run_ctx_release(struct run_ctx *c)
{
    if (c->st) {
        if (c->locked)
            store_run_unlock(c->st, c->run_name);
        if (store_close(c->st) < 0 && c->ret == DM_EXIT_OK)
            c->ret = DM_EXIT_INFRA;
    }
    store_done_set_free(c->done);
    prompt_builder_free(c->builder);
    tokenizer_free(c->tk);
    if (c->count_cache.st)
        store_close(c->count_cache.st);
    pthread_mutex_destroy(&c->count_cache.mu);
    client_free(c->client);
    runner_result_release(&c->res);
    run_info_release(&c->want);
    run_info_release(&c->have);
    if (c->have_pinfo)
        client_preflight_info_release(&c->pinfo);
    client_config_release(&c->ccfg);
    if (c->have_plan)
        plan_release(&c->plan);
    if (c->have_tpl)
        prompt_template_release(&c->tpl);
    if (c->have_hay)
        haystack_release(&c->hay);
    if (c->have_gs)
        golden_set_release(&c->gs);
    for (size_t a = 0; a < c->axes_nr; a++)
        strvec_clear(&c->axis_values[a]);
    order_setup_release(&c->ord);
    free(c->scorers);
    free(c->lengths);
    free(c->depths);
    free(c->run_name);
    strbuf_release(&c->err);
    strbuf_release(&c->tpl_path);
    strbuf_release(&c->sb);
    strbuf_release(&c->extra_body);
    reuse_index_free(c->reuse);
    free(c->think_open);
    free(c->think_close);
    strvec_clear(&c->rest);
    run_opts_release(&c->o);
    config_release(&c->cfgfile);
    return c->ret;
}

/* The run's identity settings with what c holds now (the overhead once known). */
char *run_settings(const struct run_ctx *c)
{
    struct run_identity_opts id;
    id.completions = c->o.completions;
    id.experiment_json = c->o.experiment_json;
    id.max_tokens = c->o.max_tokens;
    id.max_tokens_field = c->o.max_tokens_field;
    id.reasoning_effort = c->o.reasoning_effort;
    id.reasoning_tags = c->o.reasoning_tags;
    id.controls = c->o.controls;
    id.repeats = c->o.repeats;
    id.seed = c->o.seed;
    id.temperature = c->o.temperature;
    id.top_p = c->o.top_p;
    id.turn_cost = c->o.layout ? c->turn_cost : NULL;
    return run_identity_settings(&id, &c->spec, scorer_name(c->default_scorer),
                                 c->extra_body.len ? c->extra_body.buf : NULL, c->overhead,
                                 tokenizer_is_remote(c->tk)       ? "server"
                                 : tokenizer_special_parse(c->tk) ? "parse"
                                                                  : "plain");
}

/*
 * The life cycle of struct run_ctx (one `dipmap run` between its phases) and
 * the run's identity settings built from what the context holds.
 */
#include <stdlib.h>
#include <string.h>

#include "run/run_identity.h"

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
void run_ctx_release_sending(struct run_ctx *c)
{
    store_done_set_free(c->done);
    c->done = NULL;
    prompt_builder_free(c->builder);
    c->builder = NULL;
    reuse_index_free(c->reuse);
    c->reuse = NULL;
    if (c->have_plan)
        plan_release(&c->plan);
    c->have_plan = 0;
    if (c->have_hay)
        haystack_release(&c->hay);
    c->have_hay = 0;
    if (c->have_gs)
        golden_set_release(&c->gs);
    c->have_gs = 0;
}

int run_ctx_release(struct run_ctx *c)
{
    if (c->st) {
        if (c->locked)
            store_run_unlock(c->st, c->run_name);
        if (store_close(c->st) < 0 && c->ret == DM_EXIT_OK)
            c->ret = DM_EXIT_INFRA;
    }
    run_ctx_release_sending(c);
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
    if (c->have_tpl)
        prompt_template_release(&c->tpl);
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
    free(c->think_open);
    free(c->think_close);
    strvec_clear(&c->rest);
    run_opts_release(&c->o);
    config_release(&c->cfgfile);
    return c->ret;
}

/* The run's identity settings with what c holds now (the overhead once known). */
char *run_ctx_settings(const struct run_ctx *c)
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
    id.abstain = c->absent > 0 ? &c->abstain : NULL;
    return run_identity_settings(&id, &c->spec, scorer_name(c->default_scorer),
                                 c->extra_body.len ? c->extra_body.buf : NULL, c->overhead,
                                 tokenizer_is_remote(c->tk)       ? "server"
                                 : tokenizer_special_parse(c->tk) ? "parse"
                                                                  : "plain");
}

/*
 * How the runner ended, as the run's status and the command's exit code: a run that
 * completed without one scorable answer (this invocation's, nothing done before) is never a
 * success.
 */
enum run_status run_ctx_end_status(const struct runner_result *res, int *ret, int *no_score)
{
    enum run_status status = RUN_FAILED;

    *no_score = 0;
    switch (res->end) {
    case RUNNER_COMPLETE:
        status = RUN_COMPLETE;
        *ret = DM_EXIT_OK;
        break;
    case RUNNER_INTERRUPTED:
        status = RUN_INTERRUPTED;
        *ret = DM_EXIT_INTERRUPTED;
        break;
    case RUNNER_BUDGET:
        status = RUN_BUDGET;
        *ret = DM_EXIT_INCONCLUSIVE;
        break;
    case RUNNER_INCOMPLETE: /* resumable: the same command submits what is left */
        status = RUN_INTERRUPTED;
        *ret = DM_EXIT_INCONCLUSIVE;
        break;
    case RUNNER_TOO_MANY_ERRORS:
    case RUNNER_STORE_ERROR:
        *ret = DM_EXIT_INFRA;
        break;
    case RUNNER_FATAL:
        *ret = res->fatal_reason == CLIENT_R_QUOTA || res->fatal_reason == CLIENT_R_NONE
                   ? DM_EXIT_INFRA
                   : DM_EXIT_USAGE;
        break;
    case RUNNER_INPUT_ERROR:
    case RUNNER_MISMATCH:
        *ret = DM_EXIT_USAGE;
        break;
    }
    if (res->end == RUNNER_COMPLETE && res->finished > 0 && !res->already_done &&
        res->outcomes[OUTCOME_CORRECT] + res->outcomes[OUTCOME_WRONG] == 0) {
        /* nothing could be scored: never a success */
        status = RUN_FAILED;
        *ret = res->outcomes[OUTCOME_ERROR] == res->finished ? DM_EXIT_INFRA : DM_EXIT_INCONCLUSIVE;
        *no_score = 1;
    }
    return status;
}

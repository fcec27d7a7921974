/*
 * Unit tests for run/run_config.c: the send order `dipmap run` picks from what the preflight
 * found (cache only when the server caches prefixes and reuse is allowed; --schedule wins),
 * the hints and no-reuse mode per server kind, llama.cpp slots with one endpoint, and the
 * budget left to the runner after what earlier invocations spent.
 */
#include "test.h"

#include "run/run_cmd.h"

static void ctx_for(struct run_ctx *c, enum client_server_kind kind, int prefix_cache, int slots)
{
    run_ctx_init(c, 0, NULL);
    c->o.concurrency = 8;
    c->pinfo.kind = kind;
    c->pinfo.prefix_cache = prefix_cache;
    c->pinfo.slots = slots;
}

static void test_schedule(void)
{
    struct run_ctx c;
    struct runner_config rc;

    /* vLLM with a prefix cache: cache, no slots, no keys */
    ctx_for(&c, CLIENT_SERVER_VLLM, 1, -1);
    runner_config_init(&rc);
    rc.concurrency = 8;
    run_config_schedule(&c, &rc);
    CHECK_INT(rc.schedule, RUNNER_SCHEDULE_CACHE);
    CHECK_INT(c.schedule, RUNNER_SCHEDULE_CACHE);
    CHECK_INT(rc.id_slots, 0);
    CHECK_INT(rc.cache_keys, 0);
    CHECK_INT(rc.no_reuse, RUNNER_REUSE_ALLOWED);
    run_ctx_release(&c);

    /* no prefix cache known: plan */
    ctx_for(&c, CLIENT_SERVER_UNKNOWN, -1, -1);
    runner_config_init(&rc);
    run_config_schedule(&c, &rc);
    CHECK_INT(rc.schedule, RUNNER_SCHEDULE_PLAN);
    run_ctx_release(&c);

    /* OpenAI: prompt_cache_key per group under cache */
    ctx_for(&c, CLIENT_SERVER_OPENAI, 1, -1);
    runner_config_init(&rc);
    run_config_schedule(&c, &rc);
    CHECK_INT(rc.schedule, RUNNER_SCHEDULE_CACHE);
    CHECK_INT(rc.cache_keys, 1);
    run_ctx_release(&c);

    /* --no-cache-reuse: never cache by default, each server kind's way of forbidding reuse */
    ctx_for(&c, CLIENT_SERVER_VLLM, 1, -1);
    c.o.no_cache_reuse = 1;
    runner_config_init(&rc);
    run_config_schedule(&c, &rc);
    CHECK_INT(rc.schedule, RUNNER_SCHEDULE_PLAN);
    CHECK_INT(rc.no_reuse, RUNNER_REUSE_SALT);
    run_ctx_release(&c);
    ctx_for(&c, CLIENT_SERVER_LLAMACPP, 1, 4);
    c.o.no_cache_reuse = 1;
    runner_config_init(&rc);
    run_config_schedule(&c, &rc);
    CHECK_INT(rc.no_reuse, RUNNER_REUSE_CACHE_PROMPT);
    run_ctx_release(&c);
    ctx_for(&c, CLIENT_SERVER_SGLANG, 1, -1);
    c.o.no_cache_reuse = 1;
    runner_config_init(&rc);
    run_config_schedule(&c, &rc);
    CHECK_INT(rc.no_reuse, RUNNER_REUSE_NONCE);
    run_ctx_release(&c);

    /* --schedule given wins over the server's cache */
    ctx_for(&c, CLIENT_SERVER_VLLM, 1, -1);
    c.o.schedule = "shuffle";
    c.schedule = RUNNER_SCHEDULE_SHUFFLE;
    runner_config_init(&rc);
    run_config_schedule(&c, &rc);
    CHECK_INT(rc.schedule, RUNNER_SCHEDULE_SHUFFLE);
    run_ctx_release(&c);
}

/*
 * --max-cost is the run's: the runner gets what earlier invocations left, never 0; with the
 * server counting tokens, one prompt builder per request in flight.
 */
static void test_budget_left(void)
{
    struct run_ctx c;
    struct runner_config rc;

    run_ctx_init(&c, 0, NULL);
    c.tk = tokenizer_new_remote("m", client_tokenize_cb, NULL); /* never called here */
    c.o.concurrency = 4;
    c.o.max_cost = 5;
    c.spent_before = 2;
    rc = run_config_runner(&c);
    CHECK_NEAR(rc.max_cost, 3, 1e-12);
    CHECK_INT(rc.concurrency, 4);
    CHECK_INT(rc.build_threads, 4); /* server counts: a builder per request in flight */
    CHECK_INT(rc.overhead, -1);
    CHECK(rc.gs == &c.gs && rc.plan == &c.plan);
    c.spent_before = 5.5;
    rc = run_config_runner(&c);
    CHECK_NEAR(rc.max_cost, 1e-9, 1e-15);
    c.o.max_cost = 0;
    rc = run_config_runner(&c);
    CHECK_NEAR(rc.max_cost, 0, 0);
    run_ctx_release(&c);
}

int main(void)
{
    RUN(test_schedule);
    RUN(test_budget_left);
    return TEST_EXIT();
}

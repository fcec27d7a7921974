/*
 * Unit tests for run/run_options.c: `dipmap run`'s settings against their ranges (the exact
 * messages), the prices only together, and the named axes, --hops and --experiment order
 * parsed into the run's context.
 */
#include "test.h"

#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/usage.h"
#include "run/run_cmd.h"

static struct strbuf captured = STRBUF_INIT;

static void hook(const char *prefix, const char *msg)
{
    strbuf_addf(&captured, "%s: %s\n", prefix, msg);
}

/* run_options_check() on the defaults with one field changed: its return and message */
static int check_one(void (*set)(struct run_opts *))
{
    struct run_opts o;
    int rc;
    run_opts_init(&o);
    set(&o);
    strbuf_reset(&captured);
    rc = run_options_check(&o, &captured); /* the hook would add a printed line */
    run_opts_release(&o);
    return rc;
}

static void set_none(struct run_opts *o)
{
    (void)o;
}
static void set_repeats_0(struct run_opts *o)
{
    o->repeats = 0;
}
static void set_top_p_0(struct run_opts *o)
{
    o->top_p = 0;
}
static void set_timeout_neg(struct run_opts *o)
{
    o->timeout = -1;
}
static void set_temperature_3(struct run_opts *o)
{
    o->temperature = 3;
}
static void set_price_in_only(struct run_opts *o)
{
    o->price_in_seen = 1;
    o->price_in = 3;
}
static void set_max_cost_no_prices(struct run_opts *o)
{
    o->max_cost = 5;
}
static void set_batch_fallback(struct run_opts *o)
{
    o->batch_fallback = "later";
}

static void test_check_ranges(void)
{
    usage_set_hook(hook);
    CHECK_INT(check_one(set_none), 0);
    CHECK_STR(captured.buf, "");
    CHECK_INT(check_one(set_repeats_0), -1);
    CHECK_STR(captured.buf, "--repeats must be 1 to 1000000 (got 0)");
    CHECK_INT(check_one(set_top_p_0), -1);
    CHECK_STR(captured.buf, "--top-p must be in (0, 1] (got 0)");
    CHECK_INT(check_one(set_timeout_neg), -1);
    CHECK_STR(captured.buf, "--timeout must be above 0 (got -1)");
    CHECK_INT(check_one(set_temperature_3), -1);
    CHECK_STR(captured.buf, "--temperature must be in [0, 2] (got 3)");
    CHECK_INT(check_one(set_price_in_only), -1);
    CHECK_STR(captured.buf, "--price-in needs --price-out too (USD per 1M prompt and "
                            "completion tokens; use 0 for a free side)");
    CHECK_INT(check_one(set_max_cost_no_prices), -1);
    CHECK_STR(captured.buf, "--max-cost needs --price-in and --price-out (USD per 1M tokens)");
    CHECK_INT(check_one(set_batch_fallback), -1);
    CHECK_STR(captured.buf, "--batch-fallback must be batch or online (got 'later')");
    usage_set_hook(NULL);
}

/* no prices: both -1 (no cost is estimated); both: the batch prices default to half */
static void test_check_prices(void)
{
    struct run_opts o;
    run_opts_init(&o);
    CHECK_INT(run_options_check(&o, &captured), 0);
    CHECK(o.price_in == -1 && o.price_out == -1);
    run_opts_release(&o);
    run_opts_init(&o);
    o.price_in_seen = o.price_out_seen = 1;
    o.price_in = 3;
    o.price_out = 15;
    CHECK_INT(run_options_check(&o, &captured), 0);
    CHECK_NEAR(o.price_batch_in, 1.5, 1e-12);
    CHECK_NEAR(o.price_batch_out, 7.5, 1e-12);
    run_opts_release(&o);
}

/* a context with what run_options_validate() requires given */
static void ctx_with_required(struct run_ctx *c)
{
    run_ctx_init(c, 0, NULL);
    c->o.dataset = "datasets/needle.jsonl";
    c->o.model = "m";
    strvec_push(&c->o.endpoints, "http://127.0.0.1:1/v1");
}

static void test_validate_axes(void)
{
    struct run_ctx c;

    ctx_with_required(&c);
    c.o.needles = "1,2";
    c.o.question_at = "end,start";
    CHECK_INT(run_options_validate(&c), 0);
    CHECK_INT(c.nl, 2);
    CHECK_INT(c.max_len, 32768);
    CHECK_INT(c.nd, 11);
    CHECK_INT(c.axes_nr, 2);
    /* run_axes[] order, not option order */
    CHECK_STR(c.axes[0].name, "question-at");
    CHECK_STR(c.axes[1].name, "needles");
    CHECK_INT(c.axes[1].values_nr, 2);
    CHECK_STR(c.axes[1].values[1], "2");
    run_ctx_release(&c);

    usage_set_hook(hook);
    ctx_with_required(&c);
    c.o.needles = "1,65";
    strbuf_reset(&captured);
    CHECK_INT(run_options_validate(&c), -1);
    CHECK_STR(c.err.buf, "--needles: '65' is not a count 1..64");
    CHECK_STR(captured.buf, "");
    run_ctx_release(&c);

    ctx_with_required(&c);
    c.o.question_at = "end,middle";
    strbuf_reset(&captured);
    CHECK_INT(run_options_validate(&c), -1);
    CHECK_STR(c.err.buf, "--question-at: unknown value 'middle' (one of end, start, both)");
    CHECK_STR(captured.buf, "");
    run_ctx_release(&c);

    ctx_with_required(&c);
    c.o.layout = "chat,chat";
    strbuf_reset(&captured);
    CHECK_INT(run_options_validate(&c), -1);
    CHECK_STR(c.err.buf, "--layout: chat given twice");
    CHECK_STR(captured.buf, "");
    run_ctx_release(&c);

    ctx_with_required(&c);
    c.o.schedule = "fifo";
    strbuf_reset(&captured);
    CHECK_INT(run_options_validate(&c), -1);
    CHECK_STR(c.err.buf, "--schedule must be cache, shuffle or plan, not 'fifo'");
    CHECK_STR(captured.buf, "");
    run_ctx_release(&c);

    ctx_with_required(&c);
    c.o.model = NULL;
    strbuf_reset(&captured);
    CHECK_INT(run_options_validate(&c), -1);
    CHECK_STR(c.err.buf, "--model is required");
    CHECK_STR(captured.buf, "");
    run_ctx_release(&c);
    usage_set_hook(NULL);
}

/* --hops 2: the axes hops=2 and depth-b, needle B's depths in percent */
static void test_validate_hops(void)
{
    struct run_ctx c;

    ctx_with_required(&c);
    c.o.hops = "2";
    c.o.depths_b = "0,50";
    CHECK_INT(run_options_validate(&c), 0);
    CHECK_INT(c.axes_nr, 2);
    CHECK_STR(c.axes[0].name, "hops");
    CHECK_STR(c.axes[1].name, "depth-b");
    CHECK_INT(c.axes[1].values_nr, 2);
    CHECK_STR(c.axes[1].values[0], "0");
    CHECK_STR(c.axes[1].values[1], "50");
    run_ctx_release(&c);

    usage_set_hook(hook);
    ctx_with_required(&c);
    c.o.depths_b = "0,50";
    strbuf_reset(&captured);
    CHECK_INT(run_options_validate(&c), -1);
    CHECK_STR(c.err.buf, "--depths-b needs --hops 2");
    CHECK_STR(captured.buf, "");
    run_ctx_release(&c);
    usage_set_hook(NULL);
}

/* --experiment order: one length (the budget), depth 0, the identity settings in JSON */
static void test_validate_order(void)
{
    struct run_ctx c;

    ctx_with_required(&c);
    c.o.experiment = "order";
    c.o.policies = "source,best-first";
    c.o.ks = "3,5";
    c.o.budget = 4000;
    CHECK_INT(run_options_validate(&c), 0);
    CHECK(c.ord.on);
    CHECK_INT(c.nl, 1);
    CHECK_INT(c.lengths[0], 4000);
    CHECK_INT(c.nd, 1);
    CHECK(c.o.experiment_json && strstr(c.o.experiment_json, "\"name\":\"order\""));
    CHECK(c.o.experiment_json &&
          strstr(c.o.experiment_json, "\"policies\":[\"source\",\"best-first\"]"));
    run_ctx_release(&c);

    usage_set_hook(hook);
    ctx_with_required(&c);
    c.o.experiment = "order";
    c.o.lengths_seen = 1;
    strbuf_reset(&captured);
    CHECK_INT(run_options_validate(&c), -1);
    CHECK(strstr(c.err.buf, "--experiment order has no --lengths or --depths") == c.err.buf);
    run_ctx_release(&c);
    usage_set_hook(NULL);
}

int main(void)
{
    RUN(test_check_ranges);
    RUN(test_check_prices);
    RUN(test_validate_axes);
    RUN(test_validate_hops);
    RUN(test_validate_order);
    strbuf_release(&captured);
    return TEST_EXIT();
}

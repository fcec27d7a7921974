/*
 * Unit tests for run/dry_run.c: the --dry-run estimate of a small plan (its trials, prompt
 * tokens and cost) and the --batch line beside it (files, batch cost against online).
 */
#include "test.h"

#include "base/strbuf.h"
#include "run/run_cmd.h"

/* needle.jsonl's 36 questions at 8192 tokens, depths 0 and 50%, max_tokens 100, $3/$15 */
static void small_plan(struct run_ctx *c)
{
    static long lengths[] = {8192};
    static int depths[] = {0, 5000};
    struct strbuf err = STRBUF_INIT;

    run_ctx_init(c, 0, NULL);
    c->o.max_tokens = 100;
    c->o.price_in = 3;
    c->o.price_out = 15;
    CHECK_INT(golden_set_load(&c->gs, "datasets/needle.jsonl"), 0);
    c->have_gs = 1;
    c->spec.lengths = lengths;
    c->spec.lengths_nr = 1;
    c->spec.depths_bp = depths;
    c->spec.depths_nr = 2;
    c->spec.repeats = 1;
    c->spec.shard_count = 1;
    CHECK_INT(plan_build(&c->plan, &c->gs, &c->spec, &err), 0);
    c->have_plan = 1;
    strbuf_release(&err);
}

static void test_estimate(void)
{
    struct run_ctx c;
    struct strbuf out = STRBUF_INIT;
    double usd = 0;

    small_plan(&c);
    dry_run_estimate(&c, 2.0, 0, &out, &usd);
    CHECK_INT(c.plan.nr, 72);
    CHECK(strstr(out.buf, "trials: 72 = 36 questions x 1 lengths x 2 depths x 1 repeats") != NULL);
    CHECK(strstr(out.buf, "total: 589,824 prompt tokens, at most 7,200 completion tokens") != NULL);
    /* 0.589824 M x $3 + 0.0072 M x $15 */
    CHECK_NEAR(usd, 1.877472, 1e-9);
    CHECK(strstr(out.buf, "estimated cost: at most $1.88") != NULL);
    CHECK(strstr(out.buf, "batch:") == NULL);
    /* no prices: no cost */
    strbuf_reset(&out);
    c.o.price_in = c.o.price_out = -1;
    dry_run_estimate(&c, 2.0, 0, &out, &usd);
    CHECK(usd < 0);
    CHECK(strstr(out.buf, "cost: at most") == NULL);
    strbuf_release(&out);
    run_ctx_release(&c);
}

static void test_batch(void)
{
    struct run_ctx c;
    struct strbuf out = STRBUF_INIT;
    double usd = 0;

    small_plan(&c);
    c.o.batch = 1;
    c.o.batch_max_requests = 50;
    c.o.price_batch_in = 1.5;
    c.o.price_batch_out = 7.5;
    dry_run_estimate(&c, 2.0, 0, &out, &usd);
    /* 72 requests in files of 50: 2 files; half of $1.877472 against the online figure */
    CHECK(strstr(out.buf, "batch: 72 request(s) in at least 2 input file(s) of at most 50; cost "
                          "$0.9387 at batch prices against $1.8775 online; answered within the "
                          "24h completion window") != NULL);
    strbuf_reset(&out);
    c.o.price_batch_in = c.o.price_batch_out = -1;
    dry_run_batch(&c, -1, &out);
    CHECK_STR(out.buf, "batch: 72 request(s) in at least 2 input file(s) of at most 50; answered "
                       "within the 24h completion window (often much sooner), instead of the "
                       "online time above\n");
    strbuf_release(&out);
    run_ctx_release(&c);
}

int main(void)
{
    RUN(test_estimate);
    RUN(test_batch);
    return TEST_EXIT();
}

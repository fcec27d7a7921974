/*
 * Unit tests for run/runner_prebuild.c, the runner's prompts built ahead: every trial not
 * done is built and handed out exactly once, inline in send order or by worker threads,
 * then the queue says it is exhausted; a prompt given back is handed out again first, and
 * ready() holds back the trials it does not allow.
 */
#include "test.h"

#include "prompt/dataset.h"
#include "run/plan.h"
#include "run/runner-int.h"
#include "tokenizer/tokenizer.h"
#include "base/utc.h"

struct fixture {
    struct golden_set gs;
    struct haystack hay;
    struct prompt_template tpl;
    struct tokenizer *tk;
    struct prompt_builder *b;
    struct plan plan;
    struct runner_config cfg;
    size_t ord[64], grp[64];
};

/* 4 questions of nq-open at 1000 tokens, depths 0 and 100%: 8 trials in 4 groups */
static int fixture_init(struct fixture *f, int threads)
{
    static const long lengths[] = {1000};
    static const int depths[] = {0, 10000};
    struct plan_spec spec = {lengths, 1, depths, 2, 1, 0, 1, 0, NULL, 0, 0, 0};
    struct strbuf err = STRBUF_INIT, p = STRBUF_INIT;
    size_t i, g = 0;

    memset(f, 0, sizeof(*f));
    if (golden_set_load(&f->gs, "datasets/nq-open.jsonl.gz") < 0 ||
        haystack_load(&f->hay, "datasets/nq-haystack.jsonl.gz") < 0)
        return -1;
    prompt_template_resolve("qa", &p);
    if (prompt_template_load(&f->tpl, p.buf, &err) < 0 ||
        !(f->tk = tokenizer_load("cl100k_base", &err)))
        return -1;
    f->b = prompt_builder_new(f->tk, &f->tpl, &f->hay);
    if (plan_build(&f->plan, &f->gs, &spec, &err) < 0)
        return -1;
    plan_keep_questions(&f->plan, &f->gs, 4, 0);
    if (f->plan.nr != 8)
        return -1;
    for (i = 0; i < f->plan.nr; g++) {
        size_t end = plan_group_end(&f->plan, i);
        for (; i < end; i++) {
            f->ord[i] = i;
            f->grp[i] = g;
        }
    }
    runner_config_init(&f->cfg);
    f->cfg.gs = &f->gs;
    f->cfg.plan = &f->plan;
    f->cfg.builder = f->b;
    f->cfg.tokenizer = f->tk;
    f->cfg.tmpl = &f->tpl;
    f->cfg.haystack = &f->hay;
    f->cfg.concurrency = 2;
    f->cfg.max_tokens = 16;
    f->cfg.chat = 1;
    f->cfg.build_threads = threads;
    strbuf_release(&err);
    strbuf_release(&p);
    return 0;
}

static void fixture_release(struct fixture *f)
{
    plan_release(&f->plan);
    prompt_builder_free(f->b);
    tokenizer_free(f->tk);
    prompt_template_release(&f->tpl);
    haystack_release(&f->hay);
    golden_set_release(&f->gs);
}

/* everything handed out once, built to its length; in send order when inline */
static void take_all(int threads)
{
    struct fixture f;
    struct prebuild *pb;
    struct prebuilt *e;
    int seen[8] = {0}, exhausted = 0, n = 0;

    if (fixture_init(&f, threads) < 0) {
        test_failed_ = 1;
        return;
    }
    pb = runner_prebuild_start(&f.cfg, f.ord, f.grp);
    while (!exhausted) {
        e = runner_prebuild_take(pb, NULL, NULL, &exhausted);
        if (!e) {
            utc_sleep_ms(1); /* a builder thread is about to deliver (the runner polls) */
            continue;
        }
        CHECK(e->trial < 8);
        CHECK(!e->failed);
        CHECK_INT(e->bp.realized_len, 1000);
        if (!threads)
            CHECK_INT(e->trial, (size_t)n); /* inline: in send order */
        if (e->trial < 8)
            seen[e->trial]++;
        n++;
        if (n == 3) {
            /* given back: the same prompt comes out next */
            size_t t = e->trial;
            runner_prebuild_unget(pb, e);
            e = runner_prebuild_take(pb, NULL, NULL, &exhausted);
            CHECK(e != NULL && e->trial == t);
        }
        runner_prebuild_recycle(pb, e);
    }
    CHECK(exhausted);
    CHECK_INT(n, 8);
    for (int i = 0; i < 8; i++)
        CHECK_INT(seen[i], 1);
    runner_prebuild_stop(pb);
    fixture_release(&f);
}

static void test_inline(void)
{
    take_all(0);
}

static void test_threads(void)
{
    take_all(2);
}

/* ready() allows only odd trials: the even ones stay queued, never handed out */
static int odd_only(void *ctx, size_t trial)
{
    (void)ctx;
    return trial % 2 == 1;
}

static void test_ready(void)
{
    struct fixture f;
    struct prebuild *pb;
    struct prebuilt *e;
    int exhausted = 0, n = 0, i;

    if (fixture_init(&f, 0) < 0) {
        test_failed_ = 1;
        return;
    }
    pb = runner_prebuild_start(&f.cfg, f.ord, f.grp);
    for (i = 0; i < 20; i++) {
        e = runner_prebuild_take(pb, odd_only, NULL, &exhausted);
        if (!e)
            continue;
        CHECK_INT(e->trial % 2, 1);
        n++;
        runner_prebuild_recycle(pb, e);
    }
    CHECK_INT(n, 4);
    CHECK(!exhausted); /* the even ones were built and are still waiting */
    runner_prebuild_stop(pb);
    fixture_release(&f);
}

int main(void)
{
    RUN(test_inline);
    RUN(test_threads);
    RUN(test_ready);
    return TEST_EXIT();
}

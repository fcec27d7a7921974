/*
 * Unit tests for run/runner_order.c, the runner's send order (--schedule): plan keeps the
 * plan's order, shuffle is a seeded permutation, cache sends a group's deepest trial first
 * and holds its followers until that leader is answered, then sends them to the endpoint
 * that answered it with the group's prompt_cache_key.
 */
#include "test.h"

#include "prompt/dataset.h"
#include "run/plan.h"
#include "run/runner-int.h"

/* needle.jsonl's 36 questions at one length, depths 0, 50 and 100%: 36 groups of 3 */
static void order_for(enum runner_schedule sched, struct golden_set *gs, struct plan *plan,
                      struct runner_config *cfg, struct runner_result *res, struct runner *r)
{
    static const long lengths[] = {1000};
    static const int depths[] = {0, 5000, 10000};
    struct plan_spec spec = {lengths, 1, depths, 3, 1, 0, 1, 0, NULL, 0, 0, 0};
    struct strbuf err = STRBUF_INIT;

    CHECK_INT(golden_set_load(gs, "datasets/needle.jsonl"), 0);
    CHECK_INT(plan_build(plan, gs, &spec, &err), 0);
    runner_config_init(cfg);
    cfg->run_name = "r";
    cfg->gs = gs;
    cfg->plan = plan;
    cfg->schedule = sched;
    cfg->concurrency = 2;
    cfg->cache_keys = 1;
    runner_result_init(res);
    memset(r, 0, sizeof(*r));
    r->cfg = cfg;
    r->res = res;
    runner_order_init(r);
    strbuf_release(&err);
}

static void order_done(struct golden_set *gs, struct plan *plan, struct runner_result *res,
                       struct runner *r)
{
    runner_order_release(r);
    runner_result_release(res);
    plan_release(plan);
    golden_set_release(gs);
}

static void test_plan_and_shuffle(void)
{
    struct golden_set gs;
    struct plan plan;
    struct runner_config cfg;
    struct runner_result res;
    struct runner r;
    size_t i, moved = 0, *seen;

    order_for(RUNNER_SCHEDULE_PLAN, &gs, &plan, &cfg, &res, &r);
    CHECK_INT(plan.nr, 108);
    CHECK_INT(r.ngroups, 36);
    CHECK(r.groups == NULL);
    for (i = 0; i < plan.nr; i++)
        CHECK_INT(r.ord[i], i);
    CHECK_INT(res.depth_nr, 3);
    order_done(&gs, &plan, &res, &r);

    order_for(RUNNER_SCHEDULE_SHUFFLE, &gs, &plan, &cfg, &res, &r);
    seen = calloc(plan.nr, sizeof(*seen));
    for (i = 0; i < plan.nr; i++) {
        seen[r.ord[i]]++;
        moved += r.ord[i] != i;
    }
    for (i = 0; i < plan.nr; i++)
        CHECK_INT(seen[i], 1); /* a permutation */
    CHECK(moved > plan.nr / 2);
    free(seen);
    order_done(&gs, &plan, &res, &r);
}

static void test_cache_groups(void)
{
    struct golden_set gs;
    struct plan plan;
    struct runner_config cfg;
    struct runner_result res;
    struct runner r;
    struct client_response resp;
    struct client_cache_hints h;
    struct slot s;
    char salt[32], key0[24];
    size_t lead, follow, last, other;

    order_for(RUNNER_SCHEDULE_CACHE, &gs, &plan, &cfg, &res, &r);
    CHECK(r.groups != NULL);
    lead = r.ord[0];
    follow = r.ord[1];
    last = r.ord[2];
    other = r.ord[3]; /* the next group's leader */
    /* deepest gold first within the group */
    CHECK_INT(plan.t[lead].depth_bp, 10000);
    CHECK_INT(plan.t[follow].depth_bp, 5000);
    CHECK_INT(plan.t[last].depth_bp, 0);
    CHECK_INT(plan.t[other].depth_bp, 10000);
    CHECK_INT(r.groups[r.grp[lead]].leader, lead);
    CHECK_INT(r.groups[r.grp[lead]].remaining, 3);
    CHECK_INT(r.open_below, 2 + 3);

    /* the leader may go, its followers wait for its answer */
    CHECK_INT(runner_order_ready(&r, lead), 1);
    CHECK_INT(runner_order_ready(&r, follow), 0);
    runner_order_taken(&r, lead);
    CHECK_INT(r.open_groups, 1);
    CHECK_INT(r.pending, 2);
    memset(&s, 0, sizeof(s));
    s.trial = lead;
    runner_order_hints(&r, &s, &h, salt);
    CHECK_INT(h.endpoint, -1);
    CHECK(h.prompt_cache_key && strlen(h.prompt_cache_key) == 23 &&
          !strncmp(h.prompt_cache_key, "dipmap-", 7));
    snprintf(key0, sizeof(key0), "%s", h.prompt_cache_key ? h.prompt_cache_key : "");

    memset(&resp, 0, sizeof(resp));
    resp.http_status = 200;
    resp.endpoint = 1;
    runner_order_answered(&r, lead, &resp);
    CHECK_INT(runner_order_ready(&r, follow), 1);
    s.trial = follow;
    runner_order_hints(&r, &s, &h, salt);
    CHECK_INT(h.endpoint, 1); /* where the leader was answered */
    CHECK_STR(h.prompt_cache_key, key0);
    s.trial = other;
    runner_order_hints(&r, &s, &h, salt);
    CHECK(h.prompt_cache_key && strcmp(h.prompt_cache_key, key0));

    /* the group closes when its last trial is final */
    runner_order_final(&r, lead);
    runner_order_final(&r, follow);
    CHECK_INT(r.open_groups, 1);
    runner_order_final(&r, last);
    CHECK_INT(r.open_groups, 0);
    order_done(&gs, &plan, &res, &r);
}

int main(void)
{
    RUN(test_plan_and_shuffle);
    RUN(test_cache_groups);
    return TEST_EXIT();
}

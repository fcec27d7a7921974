/*
 * Unit tests for run/run_ctx.c: how the runner's end maps to the run's status and the exit
 * code (a completed run with nothing scorable is never a success), and the context's life
 * cycle on an empty run.
 */
#include "prompt/dataset.h"

#include "test.h"

#include "base/usage.h"
#include "run/run_cmd.h"

static enum run_status end(enum runner_end e, long finished, long correct, long wrong, long errors,
                           int *ret, int *no_score)
{
    struct runner_result res;
    enum run_status st;
    runner_result_init(&res);
    res.end = e;
    res.finished = finished;
    res.outcomes[OUTCOME_CORRECT] = correct;
    res.outcomes[OUTCOME_WRONG] = wrong;
    res.outcomes[OUTCOME_ERROR] = errors;
    *ret = -7;
    st = run_ctx_end_status(&res, ret, no_score);
    runner_result_release(&res);
    return st;
}

static void test_end_status(void)
{
    int ret, no_score;
    CHECK_INT(end(RUNNER_COMPLETE, 10, 6, 4, 0, &ret, &no_score), RUN_COMPLETE);
    CHECK_INT(ret, DM_EXIT_OK);
    CHECK_INT(no_score, 0);
    CHECK_INT(end(RUNNER_INTERRUPTED, 3, 3, 0, 0, &ret, &no_score), RUN_INTERRUPTED);
    CHECK_INT(ret, DM_EXIT_INTERRUPTED);
    CHECK_INT(end(RUNNER_BUDGET, 3, 3, 0, 0, &ret, &no_score), RUN_BUDGET);
    CHECK_INT(ret, DM_EXIT_INCONCLUSIVE);
    CHECK_INT(end(RUNNER_TOO_MANY_ERRORS, 3, 0, 0, 3, &ret, &no_score), RUN_FAILED);
    CHECK_INT(ret, DM_EXIT_INFRA);
    CHECK_INT(end(RUNNER_MISMATCH, 3, 3, 0, 0, &ret, &no_score), RUN_FAILED);
    CHECK_INT(ret, DM_EXIT_USAGE);
    /* completed, but nothing scorable: all errors is infrastructure, else inconclusive */
    CHECK_INT(end(RUNNER_COMPLETE, 5, 0, 0, 5, &ret, &no_score), RUN_FAILED);
    CHECK_INT(ret, DM_EXIT_INFRA);
    CHECK_INT(no_score, 1);
    CHECK_INT(end(RUNNER_COMPLETE, 5, 0, 0, 2, &ret, &no_score), RUN_FAILED);
    CHECK_INT(ret, DM_EXIT_INCONCLUSIVE);
    CHECK_INT(no_score, 1);
    /* nothing sent this time (all done before): a success */
    CHECK_INT(end(RUNNER_COMPLETE, 0, 0, 0, 0, &ret, &no_score), RUN_COMPLETE);
    CHECK_INT(ret, DM_EXIT_OK);
    CHECK_INT(no_score, 0);
}

/* init then release with no phase run: the usage exit code, nothing leaked (ASan) */
static void test_life_cycle(void)
{
    struct run_ctx c;
    run_ctx_init(&c, 0, NULL);
    CHECK_INT(c.overhead, -1);
    CHECK_INT(c.shard_n, 1);
    CHECK_INT(run_ctx_release(&c), DM_EXIT_USAGE);
}

/* What sending needed freed once, before the closing figures; again, and at release, a no-op. */
static void test_release_sending(void)
{
    struct run_ctx c;
    static const char set[] = "{\"id\": \"q1\", \"question\": \"Who?\", \"answers\": [\"Ada\"], "
                              "\"gold\": [{\"title\": \"T\", \"text\": \"Ada did it.\"}]}\n";
    run_ctx_init(&c, 0, NULL);
    CHECK_INT(golden_set_load_mem(&c.gs, "mem.jsonl", set, sizeof(set) - 1), 0);
    c.have_gs = 1;
    run_ctx_release_sending(&c);
    CHECK_INT(c.have_gs, 0);
    CHECK(c.done == NULL && c.builder == NULL && c.reuse == NULL);
    run_ctx_release_sending(&c);
    CHECK_INT(run_ctx_release(&c), DM_EXIT_USAGE);
}

int main(void)
{
    RUN(test_end_status);
    RUN(test_life_cycle);
    RUN(test_release_sending);
    return TEST_EXIT();
}

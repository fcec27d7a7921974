/*
 * The runner's pure parts (run/runner.c, runner_order.c): the --progress and --schedule names, and
 * how many llama.cpp slots a cache-scheduled run sends to. Its event loop runs against serve-sim
 * over real HTTP in the CLI tests (tests/cli/86x: schedules, the prefix cache, slots, resume;
 * 309, 311).
 */
#include "run/runner.h"

#include "test.h"

static void test_progress_names(void)
{
    enum runner_progress p = RUNNER_PROGRESS_NONE;
    CHECK_INT(runner_progress_parse("auto", &p), 0);
    CHECK_INT(p, RUNNER_PROGRESS_AUTO);
    CHECK_INT(runner_progress_parse("bar", &p), 0);
    CHECK_INT(p, RUNNER_PROGRESS_BAR);
    CHECK_INT(runner_progress_parse("lines", &p), 0);
    CHECK_INT(p, RUNNER_PROGRESS_LINES);
    CHECK_INT(runner_progress_parse("none", &p), 0);
    CHECK_INT(p, RUNNER_PROGRESS_NONE);
    CHECK_INT(runner_progress_parse("Lines", &p), -1);
    CHECK_INT(runner_progress_parse("", &p), -1);
    CHECK_INT(p, RUNNER_PROGRESS_NONE); /* untouched on error */
}

/* Every schedule's name parses back to it; unknown names are refused. */
static void test_schedule_names(void)
{
    enum runner_schedule all[] = {RUNNER_SCHEDULE_PLAN, RUNNER_SCHEDULE_SHUFFLE,
                                  RUNNER_SCHEDULE_CACHE};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        enum runner_schedule s = RUNNER_SCHEDULE_PLAN;
        CHECK_INT(runner_schedule_parse(runner_schedule_name(all[i]), &s), 0);
        CHECK_INT(s, all[i]);
    }
    CHECK_STR(runner_schedule_name(RUNNER_SCHEDULE_CACHE), "cache");
    enum runner_schedule s;
    CHECK_INT(runner_schedule_parse("random", &s), -1);
}

/* One request in flight per slot: the slots used are the fewer of slots and concurrency. */
static void test_id_slots_used(void)
{
    CHECK_INT(runner_id_slots_used(2, 8), 2);
    CHECK_INT(runner_id_slots_used(2, 16), 2);
    CHECK_INT(runner_id_slots_used(4, 1), 1);
    CHECK_INT(runner_id_slots_used(8, 8), 8);
}

int main(void)
{
    RUN(test_progress_names);
    RUN(test_schedule_names);
    RUN(test_id_slots_used);
    return TEST_EXIT();
}

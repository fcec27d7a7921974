/*
 * Unit tests for run/resume_hint.c: the command that resumes a run, shell-quoted, with
 * credential header values redacted and the stopping option's value replaced.
 */
#include "test.h"

#include "base/strbuf.h"
#include "run/run_cmd.h"

static void test_plain(void)
{
    const char *argv[] = {"run",   "--endpoint", "http://h:8080/v1", "--model", "it's",
                          "--tag", "a b"};
    struct strbuf out = STRBUF_INIT;
    resume_hint_format(&out, 7, argv, "m-20261202", "x.db", 0, NULL, NULL);
    CHECK_STR(out.buf, "hint: resume with: dipmap run --endpoint http://h:8080/v1 --model "
                       "'it'\\''s' --tag 'a b' --run m-20261202\n"
                       "hint: (run 'm-20261202' in x.db; finished trials are kept)\n");
    strbuf_release(&out);
}

static void test_redacted(void)
{
    const char *argv[] = {"run",
                          "-H",
                          "Authorization: Bearer sk-secret",
                          "--header=X-Api-Key: k1",
                          "-H",
                          "X-Trace: 1",
                          "--run",
                          "r"};
    struct strbuf out = STRBUF_INIT;
    resume_hint_format(&out, 8, argv, "r", "d.db", 1, NULL, NULL);
    CHECK_STR(out.buf, "hint: resume with: dipmap run -H 'Authorization: <redacted>' "
                       "'--header=X-Api-Key: <redacted>' -H 'X-Trace: 1' --run r\n"
                       "hint: (run 'r' in d.db; finished trials are kept)\n"
                       "hint: (credential header values are shown as <redacted>)\n");
    CHECK(strstr(out.buf, "sk-secret") == NULL && strstr(out.buf, "k1") == NULL);
    strbuf_release(&out);
}

/* the option the stop was about gets the new value, given as two words or one, or from --config */
static void test_replaced(void)
{
    const char *two[] = {"run", "--max-cost", "1", "--run", "r"};
    const char *one[] = {"run", "--max-cost=1", "--run", "r"};
    const char *none[] = {"run", "--config", "c.json", "--run", "r"};
    struct strbuf out = STRBUF_INIT;
    resume_hint_format(&out, 5, two, "r", "d.db", 1, "--max-cost", "2.20");
    CHECK(strstr(out.buf, "resume with: dipmap run --max-cost 2.20 --run r\n") != NULL);
    strbuf_reset(&out);
    resume_hint_format(&out, 4, one, "r", "d.db", 1, "--max-cost", "2.20");
    CHECK(strstr(out.buf, "resume with: dipmap run --max-cost 2.20 --run r\n") != NULL);
    strbuf_reset(&out);
    resume_hint_format(&out, 5, none, "r", "d.db", 1, "--max-cost", "2.20");
    CHECK(strstr(out.buf, "resume with: dipmap run --config c.json --run r --max-cost 2.20\n") !=
          NULL);
    strbuf_release(&out);
}

int main(void)
{
    RUN(test_plain);
    RUN(test_redacted);
    RUN(test_replaced);
    return TEST_EXIT();
}

/*
 * Unit tests for run/run_checks.c: the lengths that do not fit the server's context with
 * --max-tokens, all named in one message (or sent anyway with --no-context-check).
 */
#include "test.h"

#include "base/strbuf.h"
#include "base/usage.h"
#include "run/run_cmd.h"

static struct strbuf captured = STRBUF_INIT;

static void hook(const char *prefix, const char *msg)
{
    strbuf_addf(&captured, "%s: %s\n", prefix, msg);
}

static void test_context(void)
{
    static long lengths[] = {4096, 8192, 16384};
    struct run_ctx c;

    run_ctx_init(&c, 0, NULL);
    c.lengths = malloc(sizeof(lengths));
    memcpy(c.lengths, lengths, sizeof(lengths));
    c.nl = 3;
    c.o.max_tokens = 256;
    usage_set_hook(hook);

    c.pinfo.context = 0; /* not known: nothing refused */
    CHECK_INT(run_checks_context(&c), 0);
    CHECK_STR(captured.buf, "");

    c.pinfo.context = 20000;
    CHECK_INT(run_checks_context(&c), 0);
    CHECK_STR(captured.buf, "");

    c.pinfo.context = 8300;
    CHECK_INT(run_checks_context(&c), -1);
    CHECK_STR(captured.buf, "error: run: the server's context is 8300 tokens; with --max-tokens "
                            "256, 2 of 3 lengths do not fit: 8192 (needs 8448), 16384 (needs "
                            "16640)\n");

    strbuf_reset(&captured);
    c.pinfo.context = 16500;
    CHECK_INT(run_checks_context(&c), -1);
    CHECK_STR(captured.buf, "error: run: length 16384 plus --max-tokens 256 needs 16640 tokens, "
                            "but the server's context is 16500\n");

    strbuf_reset(&captured);
    c.o.context_check = 0;
    CHECK_INT(run_checks_context(&c), 0);
    CHECK_STR(captured.buf, "warning: lengths 16384 (needs 16640) plus 256 answer tokens exceed "
                            "the server's context of 16500; those trials will be recorded as "
                            "overflow\n");
    usage_set_hook(NULL);
    c.pinfo.context = 0;
    run_ctx_release(&c);
}

int main(void)
{
    RUN(test_context);
    strbuf_release(&captured);
    return TEST_EXIT();
}

/*
 * Unit tests for run/run_checks.c: the lengths that do not fit the server's context with
 * --max-tokens, all named in one message (or sent anyway with --no-context-check); the
 * named axes refused when the golden set, the template or the request kind cannot serve them.
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

/* one named axis of one value over needle.jsonl (one gold chunk per question) and qa */
static int axes_with(const char *name, const char *value, int completions)
{
    static const char *values[1];
    struct run_ctx c;
    int rc = -1;

    run_ctx_init(&c, 0, NULL);
    c.o.dataset = "datasets/needle.jsonl";
    c.o.completions = completions;
    values[0] = value;
    c.axes[0].name = name;
    c.axes[0].values = values;
    c.axes[0].values_nr = 1;
    c.axes_nr = 1;
    if (golden_set_load(&c.gs, c.o.dataset) == 0) {
        c.have_gs = 1;
        if (prompt_template_resolve("qa", &c.tpl_path) == 0 &&
            prompt_template_load(&c.tpl, c.tpl_path.buf, &c.err) == 0) {
            c.have_tpl = 1;
            strbuf_reset(&captured);
            rc = run_checks_axes(&c);
        }
    }
    c.axes_nr = 0; /* the test's, not the context's */
    run_ctx_release(&c);
    return rc;
}

static void test_axes(void)
{
    usage_set_hook(hook);
    CHECK_INT(axes_with("needles", "1", 0), 0);
    CHECK_STR(captured.buf, "");
    CHECK_INT(axes_with("needles", "2", 0), -1);
    CHECK_STR(captured.buf, "error: datasets/needle.jsonl:1: question needle-0001 has 1 gold "
                            "chunk; --needles 2 needs as many (each with a \"value\")\n");
    CHECK_INT(axes_with("hops", "2", 0), -1);
    CHECK_STR(captured.buf, "error: datasets/needle.jsonl:1: \"gold\": question needle-0001 has "
                            "1 gold chunk; --hops 2 needs two (needle A, then needle B)\n");
    CHECK_INT(axes_with("question-at", "end", 0), 0);
    CHECK_INT(axes_with("question-at", "start", 0), -1);
    CHECK(strstr(captured.buf, "error: run: --question-at start: template ") == captured.buf);
    CHECK_INT(axes_with("layout", "chat", 0), 0);
    CHECK_INT(axes_with("layout", "documents", 1), 0);
    CHECK_INT(axes_with("layout", "tools", 1), -1);
    CHECK_STR(captured.buf, "error: run: --layout tools needs chat requests: its turns are "
                            "messages, which --completions cannot send\n");
    usage_set_hook(NULL);
}

int main(void)
{
    RUN(test_context);
    RUN(test_axes);
    strbuf_release(&captured);
    return TEST_EXIT();
}

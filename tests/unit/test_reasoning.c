/*
 * Reasoning kept apart from the answer (client/reasoning.c): inline blocks split off the
 * content with default or configured tags, --reasoning-tags parsed, blank and starved replies.
 */
#include "client/reasoning.h"

#include <stdlib.h>

#include "base/strbuf.h"
#include "test.h"

/* Split content; returns the answer (static buffer) and leaves the reasoning in rbuf. */
static struct strbuf rbuf = STRBUF_INIT;
static const char *split(const char *content, const char *o, const char *c, int want_found)
{
    static struct strbuf a = STRBUF_INIT;
    strbuf_reset(&a);
    strbuf_reset(&rbuf);
    CHECK_INT(reasoning_split(content, o, c, &a, &rbuf), want_found);
    return a.buf;
}

/* Inline reasoning split off the answer: leading blocks, unclosed, opened by the template. */
static void test_split(void)
{
    CHECK_STR(split("<think>The key maps to 4887095?</think>6817932", NULL, NULL, 1), "6817932");
    CHECK_STR(rbuf.buf, "The key maps to 4887095?");
    /* leading whitespace, two blocks, the answer's own first line is what litm sees */
    CHECK_STR(split("  \n<think>a</think>\n<think>b</think>\n\nParis\nmore", NULL, NULL, 1),
              "Paris\nmore");
    CHECK_STR(rbuf.buf, "a\nb");
    /* never closed: the budget ran out while thinking, no answer */
    CHECK_STR(split("<think>still thinking about 4887095", NULL, NULL, 1), "");
    CHECK_STR(rbuf.buf, "still thinking about 4887095");
    /* the template opened the block in the prompt (DeepSeek-R1, Qwen3) */
    CHECK_STR(split("hmm, 4887095\n</think>\n\n6817932", NULL, NULL, 1), "6817932");
    /* no tags: unchanged, nothing found; a block later in the answer is not leading */
    CHECK_STR(split("Paris", NULL, NULL, 0), "Paris");
    CHECK_STR(split("Paris <think>x</think>", NULL, NULL, 0), "Paris <think>x</think>");
    CHECK_STR(split(NULL, NULL, NULL, 0), "");
    /* configurable tags */
    CHECK_STR(split("[THINK]x[/THINK] y", "[THINK]", "[/THINK]", 1), "y");
    CHECK_STR(split("<think>x</think> y", "[THINK]", "[/THINK]", 0), "<think>x</think> y");
    {
        char *o = NULL, *c = NULL;
        struct strbuf err = STRBUF_INIT;
        CHECK(reasoning_tags_parse("[THINK],[/THINK]", &o, &c, &err) == 0);
        CHECK_STR(o, "[THINK]");
        CHECK_STR(c, "[/THINK]");
        free(o);
        free(c);
        CHECK(reasoning_tags_parse("<think>", &o, &c, &err) == -1);
        CHECK(reasoning_tags_parse(",x", &o, &c, &err) == -1);
        CHECK(strstr(err.buf, "OPEN,CLOSE") != NULL);
        strbuf_release(&err);
    }
    strbuf_release(&rbuf);
}

/* Blank: nothing but white space, or no content at all. */
static void test_blank(void)
{
    CHECK_INT(reasoning_blank(NULL), 1);
    CHECK_INT(reasoning_blank(""), 1);
    CHECK_INT(reasoning_blank(" \n\t "), 1);
    CHECK_INT(reasoning_blank(" x "), 0);
}

/*
 * A blank answer is starved when the budget went to reasoning (its text, its token count, or
 * tokens spent at finish_reason "length"), whatever finish_reason says; else simply empty.
 */
static void test_starved(void)
{
    CHECK_INT(reasoning_starved("thinking...", -1, -1, "stop"), 1);
    CHECK_INT(reasoning_starved(NULL, 120, 128, "stop"), 1);
    CHECK_INT(reasoning_starved("", -1, 256, "length"), 1);
    CHECK_INT(reasoning_starved(" ", 0, 0, "length"), 0);
    CHECK_INT(reasoning_starved(NULL, -1, 5, "stop"), 0);
    CHECK_INT(reasoning_starved(NULL, -1, -1, NULL), 0);
}

int main(void)
{
    RUN(test_split);
    RUN(test_blank);
    RUN(test_starved);
    return TEST_EXIT();
}

/*
 * The order experiment's lists and prompts: synthetic retrieved lists from a golden set (gold
 * rank drawn, hard negatives then filler, scores descending), and prompt_build_order(): the same
 * chunks for every policy, only their order differs, exact lengths, the budget packer.
 */
#include "prompt/dataset.h"
#include "prompt/order.h"
#include "prompt/prompt.h"
#include "prompt/retrieval.h"
#include "run/score.h"
#include "base/strbuf.h"
#include "test.h"
#include "tokenizer/tokenizer.h"

struct fx {
    struct golden_set gs;
    struct haystack hay;
    struct prompt_template tpl;
    struct tokenizer *tk;
    struct prompt_builder *b;
};

static int fx_init(struct fx *f, const char *set, size_t list_len, const double *probs, size_t np)
{
    struct strbuf err = STRBUF_INIT, p = STRBUF_INIT;
    struct retrieval_synth s = {probs, np, list_len, 1};
    int rc = 0;
    memset(f, 0, sizeof(*f));
    if (golden_set_load(&f->gs, set) < 0 ||
        haystack_load(&f->hay, "datasets/nq-haystack.jsonl.gz") < 0)
        return -1;
    prompt_template_resolve("qa", &p);
    if (prompt_template_load(&f->tpl, p.buf, &err) < 0)
        return -1;
    f->tk = tokenizer_load("cl100k_base", &err);
    if (!f->tk)
        return -1;
    f->b = prompt_builder_new(f->tk, &f->tpl, &f->hay);
    if (list_len && retrieval_synthesize(&f->gs, &f->hay, &s, &err) < 0) {
        fprintf(stderr, "  %s\n", err.buf);
        rc = -1;
    }
    strbuf_release(&err);
    strbuf_release(&p);
    return rc;
}

static void fx_release(struct fx *f)
{
    prompt_builder_free(f->b);
    tokenizer_free(f->tk);
    prompt_template_release(&f->tpl);
    haystack_release(&f->hay);
    golden_set_release(&f->gs);
}

static void test_draw_rank(void)
{
    double probs[3] = {0.5, 0.25, 0.125};
    struct retrieval_synth s = {probs, 3, 20, 7};
    size_t count[4] = {0}, i;
    char id[32];
    for (i = 0; i < 8000; i++) {
        snprintf(id, sizeof(id), "q%zu", i);
        count[retrieval_draw_rank(id, &s)]++;
    }
    /* frequencies within 4 standard errors of the distribution; 0 = not retrieved (12.5%) */
    CHECK_NEAR(count[1] / 8000.0, 0.5, 4 * sqrt(0.25 / 8000));
    CHECK_NEAR(count[2] / 8000.0, 0.25, 4 * sqrt(0.1875 / 8000));
    CHECK_NEAR(count[3] / 8000.0, 0.125, 4 * sqrt(0.11 / 8000));
    CHECK_NEAR(count[0] / 8000.0, 0.125, 4 * sqrt(0.11 / 8000));
    /* deterministic; a list shorter than the rank drawn misses the gold */
    CHECK_INT(retrieval_draw_rank("q1", &s), retrieval_draw_rank("q1", &s));
    s.list_len = 1;
    for (i = 0; i < 200; i++) {
        snprintf(id, sizeof(id), "q%zu", i);
        CHECK(retrieval_draw_rank(id, &s) <= 1);
    }
}

static void test_synthetic_lists(void)
{
    double probs[4] = {0.4, 0.3, 0.2, 0.1};
    struct fx f;
    struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
    size_t i, j, at_rank[5] = {0};
    if (fx_init(&f, "datasets/needle.jsonl", 20, probs, 4) < 0) {
        CHECK(0);
        return;
    }
    for (i = 0; i < f.gs.nr; i++) {
        const struct question *q = &f.gs.q[i];
        CHECK_INT(q->retrieved_nr, 20);
        CHECK(q->gold_rank >= 1 && q->gold_rank <= 4);
        at_rank[q->gold_rank]++;
        for (j = 0; j < q->retrieved_nr; j++) {
            const struct retrieved_chunk *rc = &q->retrieved[j];
            CHECK_INT(rc->gold, j + 1 == q->gold_rank);
            if (j)
                CHECK(rc->score < q->retrieved[j - 1].score);
            /* no filler states the answer */
            strbuf_reset(&sb);
            score_normalize(rc->c.text, rc->c.text_len, &sb);
            if (!rc->gold)
                CHECK(!question_leaks_into(q, sb.buf, sb.len));
        }
        /* hard negatives come first among the other slots */
        CHECK_STR(q->retrieved[q->gold_rank == 1 ? 1 : 0].c.id, q->distractors[0].id);
    }
    CHECK(at_rank[1] > 0 && at_rank[2] > 0);
    CHECK_INT(retrieval_check_lists(&f.gs, 20, &err), 0);
    CHECK_INT(retrieval_check_lists(&f.gs, 21, &err), -1);
    CHECK(strstr(err.buf, "datasets/needle.jsonl:1: \"retrieved\" has 20 chunks, --k 21 needs 21"));
    fx_release(&f);
    strbuf_release(&sb);
    strbuf_release(&err);
}

/* The chunk ids of a prompt in order, from the rendered documents. */
static void ids_in_prompt(const struct question *q, const struct built_prompt *bp,
                          struct strbuf *out)
{
    size_t j;
    const char *p = bp->user.buf;
    strbuf_reset(out);
    /* each chunk text occurs once; list them by position */
    for (;;) {
        const char *best = NULL;
        size_t bj = 0;
        for (j = 0; j < q->retrieved_nr; j++) {
            const char *h = strstr(p, q->retrieved[j].c.text);
            if (h && (!best || h < best)) {
                best = h;
                bj = j;
            }
        }
        if (!best)
            break;
        strbuf_addf(out, "%zu,", bj + 1);
        p = best + q->retrieved[bj].c.text_len;
    }
}

static void test_build_order(void)
{
    double probs[1] = {0}; /* rank set by hand below */
    struct fx f;
    struct built_prompt bp = BUILT_PROMPT_INIT;
    struct strbuf err = STRBUF_INIT, ids = STRBUF_INIT;
    struct question *q;
    struct order_request r;
    size_t j;
    if (fx_init(&f, "datasets/needle.jsonl", 10, probs, 1) < 0) {
        CHECK(0);
        return;
    }
    q = &f.gs.q[0];
    /* no gold retrieved (probability 0): flag rank 2 as gold to place it */
    CHECK_INT(q->gold_rank, 0);
    q->retrieved[1].gold = 1;
    memset(&r, 0, sizeof(r));
    r.q = q;
    r.k = 6;
    r.chat = 1;
    r.policy = ORDER_EDGES_FIRST;
    CHECK_INT(prompt_build_order(f.b, &r, &bp, &err), 0);
    ids_in_prompt(q, &bp, &ids);
    CHECK_STR(ids.buf, "1,3,5,6,4,2,");
    CHECK_INT(bp.docs_nr, 6);
    CHECK_INT(bp.gold_index, 5);
    CHECK_INT(bp.realized_len,
              tokenizer_count(f.tk, bp.user.buf, bp.user.len) +
                  (bp.system.len ? tokenizer_count(f.tk, bp.system.buf, bp.system.len) : 0));
    CHECK(bp.realized_depth == 1.0);
    CHECK_INT(bp.gold_offset,
              tokenizer_count(f.tk, bp.user.buf, bp.gold_start) +
                  (bp.system.len ? tokenizer_count(f.tk, bp.system.buf, bp.system.len) : 0));
    r.policy = ORDER_BEST_FIRST;
    CHECK_INT(prompt_build_order(f.b, &r, &bp, &err), 0);
    ids_in_prompt(q, &bp, &ids);
    CHECK_STR(ids.buf, "1,2,3,4,5,6,");
    CHECK_INT(bp.gold_index, 1);
    r.policy = ORDER_ASCENDING;
    CHECK_INT(prompt_build_order(f.b, &r, &bp, &err), 0);
    ids_in_prompt(q, &bp, &ids);
    CHECK_STR(ids.buf, "6,5,4,3,2,1,");
    /* k below the gold's rank: no gold in the prompt */
    r.k = 1;
    CHECK_INT(prompt_build_order(f.b, &r, &bp, &err), 0);
    CHECK_INT(bp.docs_nr, 1);
    CHECK_INT(bp.gold_index, 1);
    CHECK_INT(bp.gold_offset, -1);
    CHECK(bp.realized_depth < 0);

    /* a budget: every policy holds the same chunks, none over the budget */
    {
        long budget, full;
        struct strbuf first = STRBUF_INIT, sorted = STRBUF_INIT;
        int o;
        r.k = 10;
        r.policy = ORDER_BEST_FIRST;
        r.overhead = 3;
        CHECK_INT(prompt_build_order(f.b, &r, &bp, &err), 0);
        full = bp.realized_len;
        budget = full * 6 / 10;
        r.budget = budget;
        for (o = 0; o < ORDER__COUNT; o++) {
            r.policy = o;
            strbuf_reset(&err);
            CHECK_INT(prompt_build_order(f.b, &r, &bp, &err), 0);
            CHECK(bp.realized_len <= budget);
            CHECK(bp.docs_nr < 10 && bp.docs_nr >= 2);
            ids_in_prompt(q, &bp, &ids);
            /* the set, as ranks sorted */
            {
                int in[11] = {0};
                const char *c = ids.buf;
                strbuf_reset(&sorted);
                while (*c) {
                    long v = strtol(c, (char **)&c, 10);
                    if (v >= 1 && v <= 10)
                        in[v] = 1;
                    if (*c == ',')
                        c++;
                }
                for (j = 1; j <= 10; j++)
                    if (in[j])
                        strbuf_addf(&sorted, "%zu,", j);
            }
            if (!o)
                strbuf_addstr(&first, sorted.buf);
            else
                CHECK_STR(sorted.buf, first.buf);
        }
        /* the best chunk is kept: the packer drops from the bottom */
        CHECK(!strncmp(first.buf, "1,", 2));
        /* a budget below the template, question and best chunk */
        r.budget = 20;
        strbuf_reset(&err);
        CHECK_INT(prompt_build_order(f.b, &r, &bp, &err), -1);
        CHECK(strstr(err.buf, "--budget 20 holds no chunk of question needle-0001") != NULL);
        strbuf_release(&first);
        strbuf_release(&sorted);
    }
    built_prompt_release(&bp);
    strbuf_release(&err);
    strbuf_release(&ids);
    fx_release(&f);
}

int main(void)
{
    RUN(test_draw_rank);
    RUN(test_synthetic_lists);
    RUN(test_build_order);
    return TEST_EXIT();
}

/* Ordering policies (order.c): where each rank lands, arrangements, documents kept together,
 * the expected accuracy of a policy and the budget packer's choice. */
#include "order.h"
#include "strbuf.h"
#include "test.h"

/* The ranks in prompt order when items hold ranks 1..n (source = the given order). */
static void arrange_ranks(enum ordering o, const struct order_item *it, size_t n, int group,
                          int *ranks)
{
    size_t out[64], i;
    ordering_arrange(o, it, n, group, out);
    for (i = 0; i < n; i++)
        ranks[i] = it[out[i]].rank;
}

static void items_1_to(struct order_item *it, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        it[i].rank = (int)i + 1;
        it[i].source = (long)(n - i); /* source order = reverse rank */
        it[i].doc = NULL;
    }
}

static void check_ranks(const int *got, const int *want, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        CHECK_INT(got[i], want[i]);
}

static void test_long_context_reorder_example(void)
{
    /* LangChain/LlamaIndex LongContextReorder as the documents state it: ranks 1..6 land at
       positions [1, 3, 5, 6, 4, 2] */
    struct order_item it[6];
    int got[6], want[6] = {1, 3, 5, 6, 4, 2};
    items_1_to(it, 6);
    arrange_ranks(ORDER_EDGES_FIRST, it, 6, 0, got);
    check_ranks(got, want, 6);
}

static void test_policies(void)
{
    struct order_item it[6];
    int got[6];
    int best[6] = {1, 2, 3, 4, 5, 6}, b2l[6] = {1, 3, 4, 5, 6, 2}, asc[6] = {6, 5, 4, 3, 2, 1};
    int src[6] = {6, 5, 4, 3, 2, 1};
    int edges5[5] = {1, 3, 5, 4, 2};
    items_1_to(it, 6);
    arrange_ranks(ORDER_BEST_FIRST, it, 6, 0, got);
    check_ranks(got, best, 6);
    arrange_ranks(ORDER_BEST_2ND_LAST, it, 6, 0, got);
    check_ranks(got, b2l, 6);
    arrange_ranks(ORDER_ASCENDING, it, 6, 0, got);
    check_ranks(got, asc, 6);
    arrange_ranks(ORDER_SOURCE, it, 6, 0, got);
    check_ranks(got, src, 6);
    items_1_to(it, 5);
    arrange_ranks(ORDER_EDGES_FIRST, it, 5, 0, got);
    check_ranks(got, edges5, 5);
    /* one chunk: every policy puts it first */
    items_1_to(it, 1);
    arrange_ranks(ORDER_EDGES_FIRST, it, 1, 0, got);
    CHECK_INT(got[0], 1);
}

static void test_slots(void)
{
    int want_edges[5] = {0, 4, 1, 3, 2}, want_b2l[5] = {0, 4, 1, 2, 3}, r;
    for (r = 1; r <= 5; r++) {
        CHECK_INT(ordering_slot(ORDER_EDGES_FIRST, r, 5), want_edges[r - 1]);
        CHECK_INT(ordering_slot(ORDER_BEST_2ND_LAST, r, 5), want_b2l[r - 1]);
        CHECK_INT(ordering_slot(ORDER_BEST_FIRST, r, 5), r - 1);
        CHECK_INT(ordering_slot(ORDER_ASCENDING, r, 5), 5 - r);
    }
    CHECK_INT(ordering_slot(ORDER_EDGES_FIRST, 2, 4), 3);
    CHECK_INT(ordering_slot(ORDER_SOURCE, 1, 4), -1);
    CHECK_INT(ordering_slot(ORDER_BEST_FIRST, 5, 4), -1);
}

static void test_relative_ranks(void)
{
    /* a budget dropped rank 3: ranks 1, 2, 4, 5 arranged as four chunks */
    struct order_item it[4] = {{5, 0, NULL}, {1, 1, NULL}, {4, 2, NULL}, {2, 3, NULL}};
    int got[4], want[4] = {1, 4, 5, 2};
    arrange_ranks(ORDER_EDGES_FIRST, it, 4, 0, got);
    check_ranks(got, want, 4);
}

static void test_group_by_doc(void)
{
    /* doc A holds ranks 1 and 4 (source 0, 1), doc B ranks 2 and 3 (source 2, 3), rank 5 alone */
    struct order_item it[5] = {
        {1, 1, "A"}, {2, 3, "B"}, {3, 2, "B"}, {4, 0, "A"}, {5, 4, NULL},
    };
    int got[5];
    int best[5] = {4, 1, 3, 2, 5};  /* A (best 1), B (best 2), rank 5; chunks in source order */
    int edges[5] = {4, 1, 5, 3, 2}; /* units 1, 2, 3 -> A first, B last, rank 5 between */
    int plain[5] = {1, 3, 5, 4, 2};
    arrange_ranks(ORDER_BEST_FIRST, it, 5, 1, got);
    check_ranks(got, best, 5);
    arrange_ranks(ORDER_EDGES_FIRST, it, 5, 1, got);
    check_ranks(got, edges, 5);
    arrange_ranks(ORDER_EDGES_FIRST, it, 5, 0, got);
    check_ranks(got, plain, 5);
}

static void test_parse(void)
{
    enum ordering *v = NULL, o;
    size_t n = 0;
    struct strbuf err = STRBUF_INIT;
    CHECK(ordering_parse_list("source,best-first,edges-first,second-last,ascending", &v, &n,
                              &err) == 0);
    CHECK_INT(n, 5);
    CHECK_INT(v[2], ORDER_EDGES_FIRST);
    CHECK_INT(v[3], ORDER_BEST_2ND_LAST);
    free(v);
    CHECK(ordering_parse("best-first-second-last", &o) == 0 && o == ORDER_BEST_2ND_LAST);
    CHECK(ordering_parse_list("edges-first,middle", &v, &n, &err) < 0);
    CHECK(strstr(err.buf, "--policies: \"middle\" is not a policy (valid: source,") != NULL);
    strbuf_reset(&err);
    CHECK(ordering_parse_list("source,source", &v, &n, &err) < 0);
    CHECK(strstr(err.buf, "given twice") != NULL);
    strbuf_reset(&err);
    CHECK(ordering_parse_list("", &v, &n, &err) < 0);
    CHECK_STR(ordering_name(ORDER_BEST_2ND_LAST), "second-last");
    strbuf_release(&err);
}

static void test_expected_accuracy(void)
{
    double acc3[3] = {1, 0, 1}, p3[3] = {0.5, 0.25, 0.125};
    CHECK_NEAR(ordering_expected_accuracy(ORDER_SOURCE, acc3, p3, 3), 2.0 / 3, 1e-12);
    CHECK_NEAR(ordering_expected_accuracy(ORDER_BEST_FIRST, acc3, p3, 3), 0.625 / 0.875, 1e-12);
    CHECK_NEAR(ordering_expected_accuracy(ORDER_EDGES_FIRST, acc3, p3, 3), 0.75 / 0.875, 1e-12);
    CHECK_NEAR(ordering_expected_accuracy(ORDER_BEST_2ND_LAST, acc3, p3, 3), 0.75 / 0.875, 1e-12);
    CHECK_NEAR(ordering_expected_accuracy(ORDER_ASCENDING, acc3, p3, 3), 0.625 / 0.875, 1e-12);
    CHECK_STR(ordering_name(ORDER_EDGES_FIRST), "edges-first");
}

static void test_pack(void)
{
    long cost[5] = {40, 50, 30, 20, 10};
    int keep[5];
    /* 100 tokens: 40 + 50 fit, 30 does not, 20 does not (110), 10 does -> ranks 1, 2, 5 */
    CHECK_INT(ordering_pack(cost, 5, 100, keep), 3);
    CHECK(keep[0] && keep[1] && !keep[2] && !keep[3] && keep[4]);
    /* the best chunk alone does not fit: it is dropped like any other */
    CHECK_INT(ordering_pack(cost, 5, 35, keep), 1);
    CHECK(!keep[0] && !keep[1] && keep[2] && !keep[3] && !keep[4]);
    CHECK_INT(ordering_pack(cost, 5, 1000, keep), 5);
}

int main(void)
{
    RUN(test_long_context_reorder_example);
    RUN(test_policies);
    RUN(test_slots);
    RUN(test_relative_ranks);
    RUN(test_group_by_doc);
    RUN(test_parse);
    RUN(test_expected_accuracy);
    RUN(test_pack);
    return TEST_EXIT();
}

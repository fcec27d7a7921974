/*
 * Two-hop chain statistics (stats/hops.c): cells per (length, depth A, depth B), groups by hop
 * distance and order, question-clustered intervals, and the trials left out (controls,
 * unscored answers, trials without the hops axes), with hand-counted values.
 */
#include "test.h"

#include "run/trial.h"
#include "stats/hops.h"
#include "stats/stats.h"

#define MAXT 32

static struct trial_point tr[MAXT];
static size_t ntr;

static void add(const char *q, long length, int depth_bp, const char *axes, int correct)
{
    struct trial_point *t = &tr[ntr++];
    memset(t, 0, sizeof(*t));
    t->question_id = q;
    t->length = length;
    t->depth_bp = depth_bp;
    t->axes = axes;
    t->outcome = correct ? OUTCOME_CORRECT : OUTCOME_WRONG;
}

static const struct hops_group *group(const struct hops_stats *h, double d, enum hops_order o)
{
    for (size_t i = 0; i < h->n_groups; i++)
        if (h->groups[i].distance == d && h->groups[i].order == o)
            return &h->groups[i];
    return NULL;
}

static void test_cells_and_groups(void)
{
    static const char *const q[3] = {"q1", "q2", "q3"};
    const char *b0 = "depth-b=0;hops=2", *b100 = "depth-b=100;hops=2";
    struct hops_stats *h;
    const struct hops_cell *c;
    const struct hops_group *g;
    double lo, hi;
    ntr = 0;
    for (int i = 0; i < 3; i++) {
        /* B before A (A at 100%, B at 0%), 1k: q1 right, q2 wrong, q3 right */
        add(q[i], 1024, 10000, b0, i != 1);
        /* A before B at 1k and 2k: q2 wrong at both, the others right at both */
        add(q[i], 1024, 0, b100, i != 1);
        add(q[i], 2048, 0, b100, i != 1);
        /* same depth, 1k: all right */
        add(q[i], 1024, 0, b0, 1);
    }
    /* left out: a control, an unscored answer, a trial of another axis */
    add("q1", TRIAL_CONTROL_LENGTH, DEPTH_BP_ORACLE, b0, 0);
    add("q2", 1024, 10000, b0, 0);
    tr[ntr - 1].outcome = OUTCOME_ERROR;
    add("q3", 1024, 10000, "needles=2", 0);

    h = hops_stats_compute(tr, ntr, 1.959964);
    CHECK(h != NULL);
    if (!h)
        return;
    CHECK_INT(h->n_lengths, 2);
    CHECK_INT(h->n_cells, 4); /* 1k: (100,0) (0,100) (0,0); 2k: (0,100) */
    c = hops_cell_at(h, 1024, 100, 0);
    CHECK(c && c->valid == 3 && c->correct == 2);
    c = hops_cell_at(h, 2048, 0, 100);
    CHECK(c && c->valid == 3 && c->correct == 2);
    CHECK(hops_cell_at(h, 2048, 100, 0) == NULL);
    CHECK_INT(h->n_groups, 3);
    /* sorted by distance, then order */
    CHECK(h->groups[0].distance == 0 && h->groups[0].order == HOPS_SAME);
    CHECK(h->groups[1].order == HOPS_A_FIRST && h->groups[2].order == HOPS_B_FIRST);
    g = group(h, 100, HOPS_B_FIRST);
    CHECK(g && g->valid == 3 && g->correct == 2);
    if (g) {
        /* one trial per question: the plain Wilson interval */
        wilson_interval(2, 3, 1.959964, &lo, &hi);
        CHECK_NEAR(g->lo, lo, 1e-12);
        CHECK_NEAR(g->hi, hi, 1e-12);
        CHECK_NEAR(g->design_effect, 1.0, 1e-12);
    }
    g = group(h, 100, HOPS_A_FIRST);
    CHECK(g && g->valid == 6 && g->correct == 4);
    if (g) {
        /* two trials per question, alike within each: clustered, wider than plain Wilson */
        wilson_interval(4, 6, 1.959964, &lo, &hi);
        CHECK(g->design_effect > 1.5);
        CHECK(g->lo < lo - 0.01 && g->hi > hi + 0.01);
    }
    g = group(h, 0, HOPS_SAME);
    CHECK(g && g->valid == 3 && g->correct == 3);
    CHECK_STR(hops_order_name(HOPS_B_FIRST), "b-first");
    hops_stats_free(h);
}

static void test_no_hops(void)
{
    ntr = 0;
    add("q1", 1024, 5000, NULL, 1);
    add("q1", 1024, 5000, "needles=2", 1);
    CHECK(hops_stats_compute(tr, ntr, 1.96) == NULL);
}

int main(void)
{
    RUN(test_cells_and_groups);
    RUN(test_no_hops);
    return TEST_EXIT();
}

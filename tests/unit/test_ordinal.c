/*
 * Ordinal-needle statistics (stats/ordinal.c): groups by N, by the target's depth and per
 * (N, depth) with hand-counted accuracy and neighbour counts, question-clustered intervals that
 * hold their estimates, and neighbours unknown without a golden set.
 */
#include "test.h"

#include "stats/ordinal.h"

static const struct ordinal_group *find(const struct ordinal_group *v, size_t n, int nn, int d)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].n == nn && v[i].depth_bp == d)
            return &v[i];
    return NULL;
}

static void test_groups(void)
{
    /* q1..q3; N 2 and 8; depths 0 and 100% */
    static const struct ordinal_obs o[] = {
        {"q1", 2, 0, 1, 0},     {"q1", 2, 10000, 0, 1}, {"q1", 8, 0, 0, 1},
        {"q1", 8, 10000, 0, 0}, {"q2", 2, 0, 1, 0},     {"q2", 2, 10000, 1, 0},
        {"q2", 8, 0, 0, 1},     {"q2", 8, 10000, 1, 0}, {"q3", 8, 0, 0, 1},
    };
    struct ordinal_stats *s = ordinal_stats_compute(o, sizeof(o) / sizeof(o[0]), 1.96);
    const struct ordinal_group *g;
    CHECK(s && s->neighbour_known && s->n_by_n == 2 && s->n_by_depth == 2 && s->n_cells == 4);
    CHECK(s->by_n[0].n == 2 && s->by_n[1].n == 8 && s->by_n[0].depth_bp == -1);
    g = find(s->by_n, s->n_by_n, 2, -1);
    CHECK(g && g->valid == 4 && g->correct == 3 && g->neighbour == 1);
    g = find(s->by_n, s->n_by_n, 8, -1);
    CHECK(g && g->valid == 5 && g->correct == 1 && g->neighbour == 3);
    CHECK(g && g->nb_lo < 0.6 && 0.6 < g->nb_hi && g->acc_lo < 0.2 && 0.2 < g->acc_hi);
    g = find(s->by_depth, s->n_by_depth, 0, 0);
    CHECK(g && g->valid == 5 && g->correct == 2 && g->neighbour == 3);
    g = find(s->cells, s->n_cells, 8, 0);
    CHECK(g && g->valid == 3 && g->correct == 0 && g->neighbour == 3 && g->nb_hi == 1.0);
    ordinal_stats_free(s);
}

static void test_unknown_and_empty(void)
{
    static const struct ordinal_obs o[] = {{"q1", 4, 5000, 1, 0}, {"q2", 4, 5000, 0, -1}};
    struct ordinal_stats *s = ordinal_stats_compute(o, 2, 1.96);
    CHECK(s && !s->neighbour_known && s->by_n[0].neighbour == 0 && s->by_n[0].valid == 2);
    ordinal_stats_free(s);
    CHECK(ordinal_stats_compute(o, 0, 1.96) == NULL);
}

int main(void)
{
    RUN(test_groups);
    RUN(test_unknown_and_empty);
    return TEST_EXIT();
}

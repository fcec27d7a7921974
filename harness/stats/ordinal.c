/*
 * Ordinal-needle statistics (ordinal.h): the scored trials of an ordinal run grouped by N, by
 * the target occurrence's depth and by both, accuracy and neighbour rate with question-clustered
 * intervals. Owns its arrays.
 */
#include "stats/ordinal.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "stats/stats.h"

#include "base/banned.h"

static int cmp_group(const void *x, const void *y)
{
    const struct ordinal_group *a = x, *b = y;
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    return a->depth_bp < b->depth_bp ? -1 : a->depth_bp > b->depth_bp;
}

static int cmp_obs(const void *x, const void *y)
{
    const struct ordinal_obs *a = x, *b = y;
    return strcmp(a->qid, b->qid);
}

static int in_group(const struct ordinal_group *g, const struct ordinal_obs *o)
{
    return (!g->n || g->n == o->n) && (g->depth_bp < 0 || g->depth_bp == o->depth_bp);
}

/* The group of (n, depth) in v[0..*nr) (added when new). */
static void add_key(struct ordinal_group **v, size_t *nr, size_t *alloc, int n, int depth_bp)
{
    size_t i;
    for (i = 0; i < *nr; i++)
        if ((*v)[i].n == n && (*v)[i].depth_bp == depth_bp)
            return;
    ALLOC_GROW(*v, *nr + 1, *alloc);
    memset(&(*v)[*nr], 0, sizeof(**v));
    (*v)[*nr].n = n;
    (*v)[(*nr)++].depth_bp = depth_bp;
}

/* Counts and intervals of every group of v over the observations o (sorted by question). */
static void fill(struct ordinal_group *v, size_t nr, const struct ordinal_obs *o, size_t n,
                 double z)
{
    long *m = xcalloc(n + 1, sizeof(*m)), *y = xcalloc(n + 1, sizeof(*y));
    long *b = xcalloc(n + 1, sizeof(*b));
    size_t g, i, k;
    for (g = 0; g < nr; g++) {
        struct ordinal_group *x = &v[g];
        for (i = 0, k = 0; i < n;) {
            const char *q = o[i].qid;
            m[k] = y[k] = b[k] = 0;
            for (; i < n && !strcmp(o[i].qid, q); i++)
                if (in_group(x, &o[i])) {
                    m[k]++;
                    y[k] += o[i].correct;
                    b[k] += o[i].neighbour > 0;
                }
            if (m[k]) {
                x->valid += m[k];
                x->correct += y[k];
                x->neighbour += b[k];
                k++;
            }
        }
        cluster_interval(m, y, k, z, NULL, &x->acc_lo, &x->acc_hi);
        cluster_interval(m, b, k, z, NULL, &x->nb_lo, &x->nb_hi);
    }
    free(m);
    free(y);
    free(b);
}

struct ordinal_stats *ordinal_stats_compute(const struct ordinal_obs *o, size_t n, double z)
{
    struct ordinal_stats *s;
    struct ordinal_obs *sorted;
    size_t i, a1 = 0, a2 = 0, a3 = 0;
    if (!n)
        return NULL;
    s = xcalloc(1, sizeof(*s));
    sorted = xmalloc(st_mult(n, sizeof(*sorted)));
    memcpy(sorted, o, n * sizeof(*o));
    qsort(sorted, n, sizeof(*sorted), cmp_obs);
    s->neighbour_known = 1;
    for (i = 0; i < n; i++) {
        add_key(&s->by_n, &s->n_by_n, &a1, o[i].n, -1);
        add_key(&s->by_depth, &s->n_by_depth, &a2, 0, o[i].depth_bp);
        add_key(&s->cells, &s->n_cells, &a3, o[i].n, o[i].depth_bp);
        if (o[i].neighbour < 0)
            s->neighbour_known = 0;
    }
    qsort(s->by_n, s->n_by_n, sizeof(*s->by_n), cmp_group);
    qsort(s->by_depth, s->n_by_depth, sizeof(*s->by_depth), cmp_group);
    qsort(s->cells, s->n_cells, sizeof(*s->cells), cmp_group);
    fill(s->by_n, s->n_by_n, sorted, n, z);
    fill(s->by_depth, s->n_by_depth, sorted, n, z);
    fill(s->cells, s->n_cells, sorted, n, z);
    free(sorted);
    return s;
}

void ordinal_stats_free(struct ordinal_stats *s)
{
    if (!s)
        return;
    free(s->by_n);
    free(s->by_depth);
    free(s->cells);
    free(s);
}

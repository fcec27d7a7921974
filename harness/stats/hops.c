/*
 * Two-hop chain statistics (hops.h): the trials with the axes hops=2 and depth-b grouped by
 * (length, depth A, depth B) and by hop distance and order. Owns its arrays.
 */
#include "stats/hops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/num.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "run/axes.h"
#include "run/trial.h"
#include "stats/stats.h"

#include "base/banned.h"

const char *hops_order_name(enum hops_order o)
{
    static const char *const names[] = {"a-first", "same", "b-first"};
    return o < HOPS_ORDER__COUNT ? names[o] : "?";
}

static int cmp_cell(const void *x, const void *y)
{
    const struct hops_cell *a = x, *b = y;
    if (a->length != b->length)
        return a->length < b->length ? -1 : 1;
    if (a->depth_a != b->depth_a)
        return a->depth_a < b->depth_a ? -1 : 1;
    return a->depth_b < b->depth_b ? -1 : a->depth_b > b->depth_b;
}

static int cmp_group(const void *x, const void *y)
{
    const struct hops_group *a = x, *b = y;
    if (a->distance != b->distance)
        return a->distance < b->distance ? -1 : 1;
    return (int)a->order - (int)b->order;
}

/* One scored trial of a group: its question (the cluster) and outcome. */
struct hop_obs {
    size_t group;
    const char *qid;
    int correct;
};

static int cmp_obs(const void *x, const void *y)
{
    const struct hop_obs *a = x, *b = y;
    if (a->group != b->group)
        return a->group < b->group ? -1 : 1;
    return strcmp(a->qid, b->qid);
}

static enum hops_order order_of(double depth_a, double depth_b)
{
    return depth_a < depth_b ? HOPS_A_FIRST : depth_a > depth_b ? HOPS_B_FIRST : HOPS_SAME;
}

/* 1 when x is a scored two-hop trial (not a control), with its depth B (percent) in *db. */
static int hop_trial(const struct trial_point *x, struct strbuf *v, double *db)
{
    return outcome_is_scored(x->outcome) && !trial_is_control(x->length, x->depth_bp) &&
           !trial_is_absent(x->axes) && axes_has(x->axes, "hops", "2") &&
           axes_get(x->axes, "depth-b", v) && parse_double_range(v->buf, 0, 100, db) == 0;
}

/*
 * Each group's interval clustered by question (a question's depths and repeats are
 * correlated): cluster_interval() over the questions of the group's trials.
 */
static void group_intervals(struct hops_stats *h, const struct trial_point *t, size_t n, double z)
{
    struct hop_obs *o = xcalloc(n + 1, sizeof(*o));
    long *m = xcalloc(n + 1, sizeof(*m)), *y = xcalloc(n + 1, sizeof(*y));
    struct strbuf v = STRBUF_INIT;
    size_t i, j, no = 0;
    for (i = 0; i < n; i++) {
        const struct trial_point *x = &t[i];
        double db, d;
        enum hops_order ord;
        if (!hop_trial(x, &v, &db))
            continue;
        d = fabs(db - x->depth_bp / 100.0);
        ord = order_of(x->depth_bp / 100.0, db);
        for (j = 0; j < h->n_groups; j++)
            if (h->groups[j].distance == d && h->groups[j].order == ord)
                break;
        o[no].group = j;
        o[no].qid = x->question_id ? x->question_id : "";
        o[no++].correct = x->outcome == OUTCOME_CORRECT;
    }
    strbuf_release(&v);
    qsort(o, no, sizeof(*o), cmp_obs);
    for (i = 0; i < no;) {
        size_t g = o[i].group, k = 0;
        for (; i < no && o[i].group == g; k++) {
            const char *q = o[i].qid;
            m[k] = y[k] = 0;
            for (; i < no && o[i].group == g && !strcmp(o[i].qid, q); i++) {
                m[k]++;
                y[k] += o[i].correct;
            }
        }
        if (g < h->n_groups)
            cluster_interval(m, y, k, z, &h->groups[g].design_effect, &h->groups[g].lo,
                             &h->groups[g].hi);
    }
    free(o);
    free(m);
    free(y);
}

static int cmp_long(const void *x, const void *y)
{
    long a = *(const long *)x, b = *(const long *)y;
    return a < b ? -1 : a > b;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* Sort and keep each value once; returns the new count. */
static size_t uniq_long(long *v, size_t n)
{
    size_t i, k = 0;
    qsort(v, n, sizeof(*v), cmp_long);
    for (i = 0; i < n; i++)
        if (!k || v[k - 1] != v[i])
            v[k++] = v[i];
    return k;
}

static size_t uniq_double(double *v, size_t n)
{
    size_t i, k = 0;
    qsort(v, n, sizeof(*v), cmp_double);
    for (i = 0; i < n; i++)
        if (!k || v[k - 1] != v[i])
            v[k++] = v[i];
    return k;
}

struct hops_stats *hops_stats_compute(const struct trial_point *t, size_t n, double z)
{
    struct hops_stats *h;
    struct strbuf v = STRBUF_INIT;
    size_t i, j, nc = 0, alloc = 0, ga = 0;

    h = xcalloc(1, sizeof(*h));
    h->lengths = xcalloc(n + 1, sizeof(*h->lengths));
    h->depth_a = xcalloc(n + 1, sizeof(*h->depth_a));
    h->depth_b = xcalloc(n + 1, sizeof(*h->depth_b));
    for (i = 0; i < n; i++) {
        const struct trial_point *x = &t[i];
        struct hops_cell c;
        double db;
        if (!hop_trial(x, &v, &db))
            continue;
        c.length = x->length;
        c.depth_a = x->depth_bp / 100.0;
        c.depth_b = db;
        c.valid = 1;
        c.correct = x->outcome == OUTCOME_CORRECT;
        ALLOC_GROW(h->cells, nc + 1, alloc);
        h->cells[nc++] = c;
    }
    strbuf_release(&v);
    if (!nc) {
        hops_stats_free(h);
        return NULL;
    }
    /* one cell per (length, depth A, depth B) */
    qsort(h->cells, nc, sizeof(*h->cells), cmp_cell);
    for (i = 0, j = 0; i < nc; i++) {
        if (j && !cmp_cell(&h->cells[j - 1], &h->cells[i])) {
            h->cells[j - 1].valid += h->cells[i].valid;
            h->cells[j - 1].correct += h->cells[i].correct;
        } else {
            h->cells[j++] = h->cells[i];
        }
    }
    h->n_cells = j;
    for (i = 0; i < h->n_cells; i++) {
        const struct hops_cell *c = &h->cells[i];
        double d = fabs(c->depth_b - c->depth_a);
        enum hops_order o = order_of(c->depth_a, c->depth_b);
        h->lengths[h->n_lengths++] = c->length;
        h->depth_a[h->n_a++] = c->depth_a;
        h->depth_b[h->n_b++] = c->depth_b;
        for (j = 0; j < h->n_groups; j++)
            if (h->groups[j].distance == d && h->groups[j].order == o)
                break;
        if (j == h->n_groups) {
            ALLOC_GROW(h->groups, h->n_groups + 1, ga);
            memset(&h->groups[j], 0, sizeof(h->groups[j]));
            h->groups[j].distance = d;
            h->groups[j].order = o;
            h->n_groups++;
        }
        h->groups[j].valid += c->valid;
        h->groups[j].correct += c->correct;
    }
    h->n_lengths = uniq_long(h->lengths, h->n_lengths);
    h->n_a = uniq_double(h->depth_a, h->n_a);
    h->n_b = uniq_double(h->depth_b, h->n_b);
    qsort(h->groups, h->n_groups, sizeof(*h->groups), cmp_group);
    group_intervals(h, t, n, z);
    return h;
}

void hops_stats_free(struct hops_stats *h)
{
    if (!h)
        return;
    free(h->cells);
    free(h->groups);
    free(h->lengths);
    free(h->depth_a);
    free(h->depth_b);
    free(h);
}

const struct hops_cell *hops_cell_at(const struct hops_stats *h, long length, double depth_a,
                                     double depth_b)
{
    struct hops_cell key;
    key.length = length;
    key.depth_a = depth_a;
    key.depth_b = depth_b;
    return h ? bsearch(&key, h->cells, h->n_cells, sizeof(key), cmp_cell) : NULL;
}

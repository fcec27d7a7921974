/*
 * Statistics per named axis (stats_axes.h): accuracy and depth curve per
 * axis value, and each value's paired effect against the first value with a
 * bootstrap interval over questions. Pure; owns only its results.
 */
#include "stats/stats_axes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "run/axes.h"
#include "run/plan.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "base/hash.h"

#include "base/banned.h"

static int counted(const struct trial_point *t)
{
    return outcome_is_scored(t->outcome) && trial_on_curve(t->length, t->depth_bp, t->axes);
}

static int cmp_str_ptr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted unique question ids of the counted trials (borrowed pointers). */
static const char **question_ids(const struct trial_point *t, size_t n, size_t *nq)
{
    const char **ids = xcalloc(n ? n : 1, sizeof(*ids));
    size_t k = 0, i, u = 0;
    for (i = 0; i < n; i++)
        if (counted(&t[i]))
            ids[k++] = t[i].question_id ? t[i].question_id : "";
    qsort(ids, k, sizeof(*ids), cmp_str_ptr);
    for (i = 0; i < k; i++)
        if (!u || strcmp(ids[u - 1], ids[i]))
            ids[u++] = ids[i];
    *nq = u;
    return ids;
}

static size_t question_index(const char **ids, size_t nq, const char *qid)
{
    const char *key = qid ? qid : "";
    const char **hit = bsearch(&key, ids, nq, sizeof(*ids), cmp_str_ptr);
    return hit ? (size_t)(hit - ids) : 0;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

/* The sorted axis of counted trials: depths and lengths, each once. */
struct grid_axes {
    int *depths;
    size_t nd;
    long *lengths;
    size_t nl;
};

static size_t find_depth(const struct grid_axes *g, int depth)
{
    const int *hit = bsearch(&depth, g->depths, g->nd, sizeof(*g->depths), cmp_int);
    return hit ? (size_t)(hit - g->depths) : g->nd;
}

static size_t find_length(const struct grid_axes *g, long length)
{
    const long *hit = bsearch(&length, g->lengths, g->nl, sizeof(*g->lengths), cmp_long);
    return hit ? (size_t)(hit - g->lengths) : g->nl;
}

/*
 * Accuracy, clustered interval and depth curves (pooled over lengths, and
 * per length) of the trials labelled `value`. Every interval is
 * cluster_interval() over the questions, the rule of the run's own cells.
 */
static void value_stats(const struct trial_point *t, size_t n, const char *const *label,
                        const char *value, const struct grid_axes *g, const char **ids, size_t nq,
                        const struct stats_options *o, struct axis_value_stats *v)
{
    size_t nd = g->nd, nl = g->nl, ncol = nd * (nl + 1) + 1, i, j, c;
    /* per question: column 0 all trials, 1 + d pooled depth d, 1 + nd + l * nd + d cell (l, d) */
    long *m = xcalloc((nq ? nq : 1) * ncol, sizeof(*m)),
         *y = xcalloc((nq ? nq : 1) * ncol, sizeof(*y));
    long *cm = xcalloc(nq ? nq : 1, sizeof(*cm)), *cy = xcalloc(nq ? nq : 1, sizeof(*cy));
    memset(v, 0, sizeof(*v));
    v->value = xstrdup(value);
    v->n_depths = nd;
    v->depths_bp = xcalloc(nd ? nd : 1, sizeof(*v->depths_bp));
    v->depth_acc = xcalloc(nd ? nd : 1, sizeof(*v->depth_acc));
    v->depth_n = xcalloc(nd ? nd : 1, sizeof(*v->depth_n));
    v->depth_lo = xcalloc(nd ? nd : 1, sizeof(*v->depth_lo));
    v->depth_hi = xcalloc(nd ? nd : 1, sizeof(*v->depth_hi));
    v->n_lengths = nl;
    v->lengths = xcalloc(nl ? nl : 1, sizeof(*v->lengths));
    v->cells = xcalloc(nl * nd + 1, sizeof(*v->cells));
    memcpy(v->depths_bp, g->depths, nd * sizeof(*g->depths));
    memcpy(v->lengths, g->lengths, nl * sizeof(*g->lengths));
    for (i = 0; i < n; i++) {
        size_t q, d, l;
        int ok;
        if (!label[i] || strcmp(label[i], value) || !counted(&t[i]))
            continue;
        ok = t[i].outcome == OUTCOME_CORRECT;
        q = question_index(ids, nq, t[i].question_id) * ncol;
        d = find_depth(g, t[i].depth_bp);
        l = find_length(g, t[i].length);
        m[q]++;
        y[q] += ok;
        m[q + 1 + d]++;
        y[q + 1 + d] += ok;
        m[q + 1 + nd + l * nd + d]++;
        y[q + 1 + nd + l * nd + d] += ok;
    }
    for (c = 0; c < ncol; c++) {
        long tm = 0;
        double acc, lo, hi;
        for (i = 0; i < nq; i++) {
            cm[i] = m[i * ncol + c];
            cy[i] = y[i * ncol + c];
            tm += cm[i];
        }
        acc = cluster_interval(cm, cy, nq, o->z, NULL, &lo, &hi);
        if (c == 0) {
            for (i = 0; i < nq; i++) {
                v->n_questions += cm[i] > 0;
                v->n_correct += cy[i];
            }
            v->n_valid = tm;
            v->accuracy = acc;
            v->ci_lo = lo;
            v->ci_hi = hi;
        } else if (c <= nd) {
            j = c - 1;
            v->depth_n[j] = tm;
            v->depth_acc[j] = tm ? acc : NAN;
            v->depth_lo[j] = lo;
            v->depth_hi[j] = hi;
        } else {
            struct axis_cell *cell = &v->cells[c - 1 - nd];
            cell->n_valid = tm;
            cell->accuracy = tm ? acc : NAN;
            cell->ci_lo = lo;
            cell->ci_hi = hi;
        }
    }
    free(m);
    free(y);
    free(cm);
    free(cy);
}

/* The depths and lengths of the counted trials, ascending, each once. */
static void grid_of(const struct trial_point *t, size_t n, struct grid_axes *g)
{
    size_t k = 0, i, ud = 0, ul = 0;
    g->depths = xcalloc(n ? n : 1, sizeof(*g->depths));
    g->lengths = xcalloc(n ? n : 1, sizeof(*g->lengths));
    for (i = 0; i < n; i++)
        if (counted(&t[i])) {
            g->depths[k] = t[i].depth_bp;
            g->lengths[k++] = t[i].length;
        }
    qsort(g->depths, k, sizeof(*g->depths), cmp_int);
    qsort(g->lengths, k, sizeof(*g->lengths), cmp_long);
    for (i = 0; i < k; i++) {
        if (!ud || g->depths[ud - 1] != g->depths[i])
            g->depths[ud++] = g->depths[i];
        if (!ul || g->lengths[ul - 1] != g->lengths[i])
            g->lengths[ul++] = g->lengths[i];
    }
    g->nd = ud;
    g->nl = ul;
}

/* Values ordered as declared (those given first, in their order), then first-seen. */
static void grouping_ordered(const struct trial_point *t, size_t n, const char *const *label,
                             const char *name, const struct plan_axis *declared,
                             const struct stats_options *o, struct axis_stats *out)
{
    struct strvec values = STRVEC_INIT, seen = STRVEC_INIT;
    struct stats_options def;
    size_t i, nq;
    const char **ids;
    struct grid_axes g;
    if (!o) {
        stats_options_init(&def);
        o = &def;
    }
    memset(out, 0, sizeof(*out));
    out->name = xstrdup(name);
    for (i = 0; i < n; i++)
        if (label[i] && counted(&t[i]) && strvec_find(&seen, label[i]) < 0)
            strvec_push(&seen, label[i]);
    for (i = 0; declared && i < declared->values_nr; i++)
        if (strvec_find(&seen, declared->values[i]) >= 0)
            strvec_push(&values, declared->values[i]);
    for (i = 0; i < seen.nr; i++)
        if (strvec_find(&values, seen.v[i]) < 0)
            strvec_push(&values, seen.v[i]);
    strvec_clear(&seen);
    ids = question_ids(t, n, &nq);
    grid_of(t, n, &g);
    out->values = xcalloc(values.nr ? values.nr : 1, sizeof(*out->values));
    out->n_values = values.nr;
    for (i = 0; i < values.nr; i++)
        value_stats(t, n, label, values.v[i], &g, ids, nq, o, &out->values[i]);
    free(ids);
    free(g.depths);
    free(g.lengths);
    strvec_clear(&values);
}

void stats_axes_grouping(const struct trial_point *t, size_t n, const char *const *label,
                         const char *name, const char *const *order, size_t n_order,
                         const struct stats_options *o, struct axis_stats *out)
{
    struct plan_axis decl = {name, order, n_order};
    grouping_ordered(t, n, label, name, order ? &decl : NULL, o, out);
}

struct pair_entry {
    char *key;    /* everything but the axis: question, length, depth, repeat, other axes */
    size_t value; /* index into the axis's values */
    size_t q;     /* question index */
    int correct;
};

static int cmp_entry(const void *a, const void *b)
{
    const struct pair_entry *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    if (c)
        return c;
    return x->value < y->value ? -1 : x->value > y->value;
}

void stats_paired_clusters(const long *d, const long *m, size_t nq, const struct stats_options *o,
                           uint64_t seed, struct estimate *diff, long *n_pairs, size_t *n_questions)
{
    size_t k, used = 0;
    long sd = 0, sm = 0;
    for (k = 0; k < nq; k++) {
        used += m[k] > 0;
        sd += d[k];
        sm += m[k];
    }
    *n_pairs = sm;
    *n_questions = used;
    diff->est = sm ? (double)sd / (double)sm : 0;
    diff->lo = -1;
    diff->hi = 1;
    if (used >= 2 && o->bootstrap_iters) {
        size_t *qs = xcalloc(used, sizeof(*qs)), u = 0, it;
        double *rep = xcalloc(o->bootstrap_iters, sizeof(*rep));
        size_t nrep = 0;
        struct rng rng;
        for (k = 0; k < nq; k++)
            if (m[k])
                qs[u++] = k;
        rng_seed(&rng, seed);
        for (it = 0; it < o->bootstrap_iters; it++) {
            long bd = 0, bm = 0;
            for (k = 0; k < used; k++) {
                size_t q = qs[rng_index(&rng, used)];
                bd += d[q];
                bm += m[q];
            }
            if (bm)
                rep[nrep++] = (double)bd / (double)bm;
        }
        stats_bootstrap_interval(diff, rep, nrep, o->confidence, -1, 1, used);
        free(rep);
        free(qs);
    }
}

/* The paired effect of values[vi] against values[0] over the entries (sorted by key). */
static void effect(const struct pair_entry *e, size_t ne, size_t vi, size_t nq,
                   const struct stats_options *o, uint64_t seed, struct axis_effect *out)
{
    long *d = xcalloc(nq ? nq : 1, sizeof(*d)), *m = xcalloc(nq ? nq : 1, sizeof(*m));
    size_t i, j;
    for (i = 0; i < ne; i = j) {
        const struct pair_entry *ref = NULL, *val = NULL;
        for (j = i; j < ne && !strcmp(e[i].key, e[j].key); j++) {
            if (e[j].value == 0 && !ref)
                ref = &e[j];
            if (e[j].value == vi && !val)
                val = &e[j];
        }
        if (!ref || !val)
            continue;
        d[ref->q] += val->correct - ref->correct;
        m[ref->q]++;
    }
    stats_paired_clusters(d, m, nq, o, seed, &out->diff, &out->n_pairs, &out->n_questions);
    free(d);
    free(m);
}

static uint64_t name_seed(uint64_t seed, const char *a, const char *b)
{
    uint64_t h = fnv64_str(FNV64_INIT_DIPMAP ^ seed, a);
    h = fnv64_step(h, 0xff);
    return fnv64_str(h, b);
}

static void one_axis(const struct trial_point *t, size_t n, const char *name,
                     const struct plan_axis *declared, const struct stats_options *o,
                     struct axis_stats *out)
{
    const char **label = xcalloc(n ? n : 1, sizeof(*label));
    struct strvec vals = STRVEC_INIT;
    struct pair_entry *e = xcalloc(n ? n : 1, sizeof(*e));
    struct strbuf v = STRBUF_INIT, rest = STRBUF_INIT, key = STRBUF_INIT;
    size_t i, j, ne = 0, nq;
    const char **ids;

    for (i = 0; i < n; i++)
        if (axes_get(t[i].axes, name, &v))
            label[i] = strvec_push(&vals, v.buf);
    grouping_ordered(t, n, label, name, declared, o, out);
    out->paired = 1;
    ids = question_ids(t, n, &nq);
    for (i = 0; i < n; i++) {
        if (!label[i] || !counted(&t[i]))
            continue;
        for (j = 0; j < out->n_values && strcmp(out->values[j].value, label[i]); j++)
            ;
        strbuf_reset(&rest);
        axes_set(&rest, t[i].axes, name, NULL);
        strbuf_reset(&key);
        strbuf_addf(&key, "%s\x1f%ld\x1f%d\x1f%d\x1f%s", t[i].question_id ? t[i].question_id : "",
                    t[i].length, t[i].depth_bp, t[i].repeat, rest.buf);
        e[ne].key = strbuf_detach(&key, NULL);
        e[ne].value = j;
        e[ne].q = question_index(ids, nq, t[i].question_id);
        e[ne].correct = t[i].outcome == OUTCOME_CORRECT;
        ne++;
    }
    qsort(e, ne, sizeof(*e), cmp_entry);
    if (out->n_values > 1) {
        out->effects = xcalloc(out->n_values - 1, sizeof(*out->effects));
        out->n_effects = out->n_values - 1;
        for (j = 1; j < out->n_values; j++) {
            struct axis_effect *ef = &out->effects[j - 1];
            ef->value = out->values[j].value;
            ef->ref = out->values[0].value;
            effect(e, ne, j, nq, o, name_seed(o->seed, name, ef->value), ef);
        }
    }
    for (i = 0; i < ne; i++)
        free(e[i].key);
    free(e);
    free(ids);
    free(label);
    strvec_clear(&vals);
    strbuf_release(&v);
    strbuf_release(&rest);
    strbuf_release(&key);
}

void stats_axes_compute(const struct trial_point *t, size_t n, const struct plan_axis *declared,
                        size_t n_declared, const struct stats_options *o, struct axis_stats **out,
                        size_t *nr)
{
    struct strvec names = STRVEC_INIT;
    struct stats_options def;
    size_t i, j;
    if (!o) {
        stats_options_init(&def);
        o = &def;
    }
    axes_names_of(t, n, &names);
    /* the absent twins' axis has its own section (absent_stats.h), outside the curve */
    for (i = j = 0; i < names.nr; i++)
        if (strcmp(names.v[i], PLAN_ABSENT_AXIS))
            names.v[j++] = names.v[i];
        else
            free(names.v[i]);
    names.nr = j;
    *out = NULL;
    *nr = names.nr;
    if (names.nr)
        *out = xcalloc(names.nr, sizeof(**out));
    for (i = 0; i < names.nr; i++) {
        const struct plan_axis *dcl = NULL;
        for (j = 0; j < n_declared; j++)
            if (!strcmp(declared[j].name, names.v[i]))
                dcl = &declared[j];
        one_axis(t, n, names.v[i], dcl, o, &(*out)[i]);
    }
    strvec_clear(&names);
}

void stats_axes_free(struct axis_stats *a, size_t nr)
{
    size_t i, j;
    for (i = 0; i < nr; i++) {
        for (j = 0; j < a[i].n_values; j++) {
            free(a[i].values[j].value);
            free(a[i].values[j].depths_bp);
            free(a[i].values[j].depth_acc);
            free(a[i].values[j].depth_n);
            free(a[i].values[j].depth_lo);
            free(a[i].values[j].depth_hi);
            free(a[i].values[j].lengths);
            free(a[i].values[j].cells);
        }
        free(a[i].values);
        free(a[i].effects);
        free(a[i].name);
        free(a[i].note);
    }
    free(a);
}

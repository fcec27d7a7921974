/*
 * Needle-absent trials' rates (absent_stats.h): hallucination on the absent twins, false
 * absence on the present trials, per (length, depth), per length and overall, with
 * question-clustered intervals.
 */
#include "stats/absent_stats.h"

#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/xalloc.h"
#include "run/score.h"
#include "run/trial.h"
#include "stats/stats.h"

#include "base/banned.h"

/* One scored trial: its question, key and whether the event happened. */
struct obs {
    const char *qid;
    long length;
    int depth_bp;
    int event;
};

static int cmp_obs(const void *a, const void *b)
{
    const struct obs *x = a, *y = b;
    return strcmp(x->qid, y->qid);
}

/* The rate over the observations of (length, depth) (ABSENT_ALL_*: any); o sorted by question. */
static struct absent_rate rate_of(const struct obs *o, size_t n, long length, int depth_bp,
                                  double z)
{
    struct absent_rate r = {length, depth_bp, 0, 0, 0, 0, 0, 1};
    long *m = xcalloc(n + 1, sizeof(*m)), *y = xcalloc(n + 1, sizeof(*y));
    size_t c = 0;
    const char *last = NULL;
    for (size_t i = 0; i < n; i++) {
        if ((length != ABSENT_ALL_LENGTHS && o[i].length != length) ||
            (depth_bp != ABSENT_ALL_DEPTHS && o[i].depth_bp != depth_bp))
            continue;
        if (!last || strcmp(last, o[i].qid))
            c++;
        last = o[i].qid;
        m[c - 1]++;
        y[c - 1] += o[i].event;
        r.n++;
        r.k += o[i].event;
    }
    r.questions = c;
    r.rate = cluster_interval(m, y, c, z, NULL, &r.lo, &r.hi);
    free(m);
    free(y);
    return r;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The distinct values of o's lengths (depths) sorted into *out; returns the count. */
static size_t distinct_keys(const struct obs *o, size_t n, long **lens, int **depths, size_t *nd)
{
    size_t nl = 0, k;
    *lens = xcalloc(n + 1, sizeof(**lens));
    *depths = xcalloc(n + 1, sizeof(**depths));
    *nd = 0;
    for (size_t i = 0; i < n; i++) {
        (*lens)[nl++] = o[i].length;
        (*depths)[(*nd)++] = o[i].depth_bp;
    }
    qsort(*lens, nl, sizeof(**lens), cmp_long);
    qsort(*depths, *nd, sizeof(**depths), cmp_int);
    for (size_t i = k = 0; i < nl; i++)
        if (!k || (*lens)[k - 1] != (*lens)[i])
            (*lens)[k++] = (*lens)[i];
    nl = k;
    for (size_t i = k = 0; i < *nd; i++)
        if (!k || (*depths)[k - 1] != (*depths)[i])
            (*depths)[k++] = (*depths)[i];
    *nd = k;
    return nl;
}

/* Every row of o (absent_stats.h's order) into *rows. */
static void rates(struct obs *o, size_t n, double z, struct absent_rate **rows, size_t *nr)
{
    long *lens;
    int *depths;
    size_t nd, nl, alloc = 0;
    qsort(o, n, sizeof(*o), cmp_obs);
    nl = distinct_keys(o, n, &lens, &depths, &nd);
    *rows = NULL;
    *nr = 0;
    for (size_t l = 0; l < nl; l++) {
        for (size_t d = 0; d < nd; d++) {
            struct absent_rate r = rate_of(o, n, lens[l], depths[d], z);
            if (!r.n)
                continue;
            ALLOC_GROW(*rows, *nr + 1, alloc);
            (*rows)[(*nr)++] = r;
        }
        ALLOC_GROW(*rows, *nr + 1, alloc);
        (*rows)[(*nr)++] = rate_of(o, n, lens[l], ABSENT_ALL_DEPTHS, z);
    }
    ALLOC_GROW(*rows, *nr + 1, alloc);
    (*rows)[(*nr)++] = rate_of(o, n, ABSENT_ALL_LENGTHS, ABSENT_ALL_DEPTHS, z);
    free(lens);
    free(depths);
}

int absent_stats_compute(const struct trial_result *t, size_t n, const struct abstain_rule *r,
                         double z, struct absent_stats *out, struct strbuf *err)
{
    struct obs *ab = xcalloc(n + 1, sizeof(*ab)), *pr = xcalloc(n + 1, sizeof(*pr));
    size_t na = 0, np = 0;
    int rc = 0;
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < n && !rc; i++) {
        const struct trial_result *x = &t[i];
        struct obs o = {x->question_id ? x->question_id : "", x->length, x->depth_bp, 0};
        if (!outcome_is_scored(x->outcome) || trial_is_control(x->length, x->depth_bp))
            continue;
        if (trial_is_absent(x->axes)) {
            o.event = x->outcome == OUTCOME_WRONG; /* did not abstain: a hallucination */
            ab[na++] = o;
            continue;
        }
        rc = score_abstained(r, x->answer ? x->answer : "", err);
        o.event = rc > 0;
        rc = rc < 0 ? -1 : 0;
        pr[np++] = o;
    }
    if (!rc && na) {
        out->present = 1;
        rates(ab, na, z, &out->halluc, &out->n_halluc);
        rates(pr, np, z, &out->denied, &out->n_denied);
    }
    free(ab);
    free(pr);
    return rc;
}

const struct absent_rate *absent_rate_overall(const struct absent_rate *v, size_t n)
{
    return n ? &v[n - 1] : NULL;
}

void absent_stats_release(struct absent_stats *s)
{
    free(s->halluc);
    free(s->denied);
    memset(s, 0, sizeof(*s));
}

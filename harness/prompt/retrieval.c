/*
 * Retrieved lists for the order experiment: synthetic lists made from a
 * golden set and a haystack (gold rank drawn from a rank distribution, hard
 * negatives then filler), and the check that every list is long enough.
 * The lists it makes are owned by their questions (dataset.c frees them).
 */
#include "prompt/retrieval.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "prompt/dataset.h"
#include "base/num.h"
#include "base/rng.h"
#include "base/sha256.h"
#include "stats/stats.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

#include "base/banned.h"

/* A generator seeded by (seed, question id, purpose): the same lists on every machine. */
static void rng_for(struct rng *r, unsigned long seed, const char *qid, const char *what)
{
    struct sha256_ctx c;
    unsigned char h[32], b[8];
    unsigned long long v = 0;
    int i;
    for (i = 0; i < 8; i++)
        b[i] = (unsigned char)((unsigned long long)seed >> (8 * i));
    sha256_init(&c);
    sha256_update(&c, what, strlen(what) + 1);
    sha256_update(&c, b, sizeof(b));
    sha256_update(&c, qid, strlen(qid));
    sha256_final(&c, h);
    for (i = 0; i < 8; i++)
        v |= (unsigned long long)h[i] << (8 * i);
    rng_seed(r, v);
}

size_t retrieval_draw_rank(const char *question_id, const struct retrieval_synth *s)
{
    struct rng r;
    double u, cum = 0.0;
    size_t i;
    rng_for(&r, s->seed, question_id, "gold-rank");
    u = rng_unit(rng_next(&r));
    for (i = 0; i < s->n_rank_probs && i < s->list_len; i++) {
        cum += s->rank_probs[i];
        if (u < cum)
            return i + 1;
    }
    return 0;
}

static void copy_chunk(struct chunk *dst, const struct chunk *src)
{
    memset(dst, 0, sizeof(*dst));
    dst->id = xstrdup(src->id);
    dst->title = xstrdup(src->title ? src->title : "");
    dst->text = xstrdup(src->text);
    dst->text_len = src->text_len;
    dst->value = src->value ? xstrdup(src->value) : NULL;
}

static void shuffle(size_t *a, size_t n, struct rng *r)
{
    size_t i;
    for (i = n; i > 1; i--) {
        size_t j = rng_index(r, i), t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}

static int synthesize_one(struct question *q, const struct haystack *hay,
                          const struct retrieval_synth *s, struct strbuf *err)
{
    size_t n = s->list_len, rank = retrieval_draw_rank(q->id, s), g, i, slot, neg = 0;
    size_t *fill = NULL, fill_nr = 0, dropped = 0, next_fill = 0, *perm;
    struct retrieved_chunk *list = xcalloc(n ? n : 1, sizeof(*list));
    char *used = xcalloc(n ? n : 1, 1);
    struct rng r;
    int rc = -1;

    g = rank ? q->gold_nr : 0;
    if (rank && rank + g - 1 > n)
        g = n - rank + 1; /* several gold chunks: as many as fit */
    for (i = 0; i < g; i++) {
        copy_chunk(&list[rank - 1 + i].c, &q->gold[i]);
        list[rank - 1 + i].gold = 1;
        used[rank - 1 + i] = 1;
    }
    if (hay) {
        haystack_filter(hay, q, &fill, &fill_nr, &dropped);
        rng_for(&r, s->seed, q->id, "filler");
        shuffle(fill, fill_nr, &r);
    }
    for (slot = 0; slot < n; slot++) {
        if (used[slot])
            continue;
        if (neg < q->distractors_nr) {
            copy_chunk(&list[slot].c, &q->distractors[neg++]);
        } else if (next_fill < fill_nr) {
            copy_chunk(&list[slot].c, &hay->c[fill[next_fill++]]);
        } else {
            strbuf_addf(err,
                        "question %s: its %zu hard negative%s and %zu eligible haystack "
                        "chunk%s cannot fill a list of %zu (give a larger --haystack)",
                        q->id, q->distractors_nr, q->distractors_nr == 1 ? "" : "s", fill_nr,
                        fill_nr == 1 ? "" : "s", n);
            goto cleanup;
        }
        used[slot] = 1;
    }
    perm = xmalloc(st_mult(n ? n : 1, sizeof(*perm)));
    for (i = 0; i < n; i++)
        perm[i] = i;
    rng_for(&r, s->seed, q->id, "source");
    shuffle(perm, n, &r);
    for (i = 0; i < n; i++) {
        list[i].score = 1.0 - (double)i / (double)n;
        list[i].source = (long)perm[i];
        list[i].doc = NULL;
    }
    free(perm);
    q->retrieved = list;
    q->retrieved_nr = n;
    q->gold_rank = g ? rank : 0;
    list = NULL;
    rc = 0;
cleanup:
    if (list) {
        for (i = 0; i < n; i++) {
            free(list[i].c.id);
            free(list[i].c.title);
            free(list[i].c.text);
            free(list[i].c.value);
        }
        free(list);
    }
    free(used);
    free(fill);
    return rc;
}

int retrieval_synthesize(struct golden_set *gs, const struct haystack *hay,
                         const struct retrieval_synth *s, struct strbuf *err)
{
    size_t i;
    if (!s->list_len) {
        strbuf_addstr(err, "a synthetic list needs at least one chunk");
        return -1;
    }
    for (i = 0; i < gs->nr; i++)
        if (!gs->q[i].retrieved_nr && synthesize_one(&gs->q[i], hay, s, err) < 0)
            return -1;
    return 0;
}

int retrieval_check_lists(const struct golden_set *gs, int k, struct strbuf *err)
{
    size_t i, shortest = SIZE_MAX;
    const struct question *first = NULL;
    for (i = 0; i < gs->nr; i++) {
        if (gs->q[i].retrieved_nr < (size_t)k && !first)
            first = &gs->q[i];
        if (gs->q[i].retrieved_nr < shortest)
            shortest = gs->q[i].retrieved_nr;
    }
    if (!first)
        return 0;
    /* every k must fit every list: name the first short one and the largest k all allow */
    strbuf_addf(err,
                "%s:%ld: \"retrieved\" has %zu chunk%s, --k %d needs %d (the shortest list has "
                "%zu: every k must be at most that)",
                gs->path, first->line, first->retrieved_nr, first->retrieved_nr == 1 ? "" : "s", k,
                k, shortest);
    return -1;
}

int order_setup_parse(struct order_setup *x, const char *policies, const char *ks, int group_by_doc,
                      long budget, const char *rank_dist, double rank_p, struct strbuf *err)
{
    struct strvec parts = STRVEC_INIT;
    size_t i, j;
    int rc = -1;

    strvec_init(&x->policy_values);
    strvec_init(&x->k_values);
    if (ordering_parse_list(policies, &x->policies, &x->npolicies, err) < 0)
        goto out;
    strvec_split(&parts, ks, ',');
    if (!parts.nr) {
        strbuf_addstr(err, "--k: give at least one chunk count, e.g. 3,5,10,20");
        goto out;
    }
    x->k = xcalloc(parts.nr, sizeof(*x->k));
    for (i = 0; i < parts.nr; i++) {
        long v;
        if (parse_long_range(parts.v[i], 1, 10000, &v)) {
            strbuf_addf(err, "--k: \"%s\" is not a chunk count from 1 to 10000", parts.v[i]);
            goto out;
        }
        for (j = 0; j < x->nk; j++)
            if (x->k[j] == (int)v) {
                strbuf_addf(err, "--k: %ld is given twice", v);
                goto out;
            }
        x->k[x->nk++] = (int)v;
        if ((int)v > x->kmax)
            x->kmax = (int)v;
    }
    if (budget < 0 || budget > 100000000) {
        strbuf_addf(err, "--budget: %ld is not a token count from 1 to 100000000 (0: none)",
                    budget);
        goto out;
    }
    x->budget = budget;
    x->group_by_doc = group_by_doc;
    if (rank_dist && x->rank_p_seen) {
        strbuf_addstr(err, "--rank-dist and --rank-p: give one of them");
        goto out;
    }
    if (rank_dist) {
        if (rank_dist_load(rank_dist, &x->rank_probs, &x->n_rank_probs, err) < 0)
            goto out;
    } else if (!(rank_p > 0 && rank_p <= 1)) {
        strbuf_addf(err, "--rank-p must be in (0, 1], got %g", rank_p);
        goto out;
    }
    x->rank_p = rank_p;
    for (i = 0; i < x->npolicies; i++)
        strvec_push(&x->policy_values, ordering_name(x->policies[i]));
    for (i = 0; i < x->nk; i++) {
        struct strbuf v = STRBUF_INIT;
        strbuf_addf(&v, "%d", x->k[i]);
        strvec_push(&x->k_values, v.buf);
        strbuf_release(&v);
    }
    /* k outermost: the policies of one (question, k) are built one after another */
    x->axes[x->axes_nr].name = "k";
    x->axes[x->axes_nr].values = (const char *const *)x->k_values.v;
    x->axes[x->axes_nr++].values_nr = x->k_values.nr;
    x->axes[x->axes_nr].name = "policy";
    x->axes[x->axes_nr].values = (const char *const *)x->policy_values.v;
    x->axes[x->axes_nr++].values_nr = x->policy_values.nr;
    if (group_by_doc) {
        static const char *const doc[] = {"doc"};
        x->axes[x->axes_nr].name = "group";
        x->axes[x->axes_nr].values = doc;
        x->axes[x->axes_nr++].values_nr = 1;
    }
    rc = 0;
out:
    strvec_clear(&parts);
    return rc;
}

int order_setup_lists(struct order_setup *x, struct golden_set *gs, const struct haystack *hay,
                      unsigned long seed, struct strbuf *err)
{
    struct retrieval_synth s;
    double *geo = NULL;
    int rc;
    size_t r;
    memset(&s, 0, sizeof(s));
    s.list_len = (size_t)x->kmax;
    s.seed = seed;
    if (x->rank_probs) {
        s.rank_probs = x->rank_probs;
        s.n_rank_probs = x->n_rank_probs;
    } else {
        geo = xcalloc((size_t)x->kmax, sizeof(*geo));
        for (r = 0; r < (size_t)x->kmax; r++)
            geo[r] = x->rank_p * pow(1.0 - x->rank_p, (double)r);
        s.rank_probs = geo;
        s.n_rank_probs = (size_t)x->kmax;
    }
    rc = gs->retrieval_nr < gs->nr ? retrieval_synthesize(gs, hay, &s, err) : 0;
    free(geo);
    if (rc < 0)
        return -1;
    return retrieval_check_lists(gs, x->kmax, err);
}

void order_setup_release(struct order_setup *x)
{
    free(x->policies);
    free(x->k);
    free(x->rank_probs);
    strvec_clear(&x->policy_values);
    strvec_clear(&x->k_values);
    memset(x, 0, sizeof(*x));
}

int rank_dist_parse(const char *text, double **probs, size_t *n, struct strbuf *err)
{
    struct strbuf line = STRBUF_INIT;
    double *v = NULL, sum = 0.0;
    size_t nr = 0, alloc = 0, lineno = 0;
    const char *p = text;

    while (*p) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        double x;
        lineno++;
        strbuf_reset(&line);
        strbuf_add(&line, p, len);
        strbuf_trim(&line);
        p += len + (e ? 1 : 0);
        if (!line.len || line.buf[0] == '#')
            continue;
        if (parse_double(line.buf, &x) || x < 0.0 || x > 1.0) {
            strbuf_addf(err, "line %lu: \"%s\" is not a probability between 0 and 1",
                        (unsigned long)lineno, line.buf);
            goto fail;
        }
        sum += x;
        if (sum > 1.0 + 1e-6) {
            strbuf_addf(err, "line %lu: probabilities sum to %.6g, more than 1",
                        (unsigned long)lineno, sum);
            goto fail;
        }
        ALLOC_GROW(v, nr + 1, alloc);
        v[nr++] = x;
    }
    if (!nr) {
        strbuf_addstr(err, "no probabilities given");
        goto fail;
    }
    strbuf_release(&line);
    *probs = v;
    *n = nr;
    return 0;
fail:
    strbuf_release(&line);
    free(v);
    return -1;
}

int rank_dist_load(const char *path, double **probs, size_t *n, struct strbuf *err)
{
    struct strbuf text = STRBUF_INIT, why = STRBUF_INIT;
    int rc = 0;
    if (strbuf_read_file(&text, path) < 0) {
        strbuf_addf(err, "cannot read --rank-dist %s: %s", path, strerror(errno));
        rc = -1;
    } else if (rank_dist_parse(text.buf, probs, n, &why) < 0) {
        strbuf_addf(err, "%s:%s", path, why.buf);
        rc = -1;
    }
    strbuf_release(&text);
    strbuf_release(&why);
    return rc;
}

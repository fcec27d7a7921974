/*
 * Ordering policies for retrieved chunks (order.h): where each rank goes in
 * the prompt, the arrangement of a chunk set (optionally keeping documents
 * together), the expected accuracy of a policy from a depth curve, and the
 * budget packer's choice by rank. Pure functions; owns nothing.
 */
#include "prompt/order.h"

#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/xalloc.h"

#include "base/banned.h"

static const char *const ordering_names[ORDER__COUNT] = {"source", "best-first", "edges-first",
                                                         "second-last", "ascending"};

const char *ordering_name(enum ordering o)
{
    return (unsigned)o < ORDER__COUNT ? ordering_names[o] : "unknown";
}

int ordering_parse(const char *name, enum ordering *out)
{
    int o;
    for (o = 0; o < ORDER__COUNT; o++)
        if (!strcmp(name, ordering_names[o])) {
            *out = (enum ordering)o;
            return 0;
        }
    if (!strcmp(name, "best-first-second-last")) {
        *out = ORDER_BEST_2ND_LAST;
        return 0;
    }
    return -1;
}

static void valid_names(struct strbuf *err)
{
    int o;
    for (o = 0; o < ORDER__COUNT; o++)
        strbuf_addf(err, "%s%s", o ? ", " : "", ordering_names[o]);
}

int ordering_parse_list(const char *s, enum ordering **out, size_t *nr, struct strbuf *err)
{
    enum ordering *v = xcalloc(ORDER__COUNT, sizeof(*v));
    size_t n = 0;
    const char *p = s;
    struct strbuf one = STRBUF_INIT;

    for (;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p), i;
        enum ordering o;
        strbuf_reset(&one);
        strbuf_add(&one, p, len);
        strbuf_trim(&one);
        if (!one.len || ordering_parse(one.buf, &o) < 0) {
            strbuf_addf(err, "--policies: \"%s\" is not a policy (valid: ", one.buf);
            valid_names(err);
            strbuf_addch(err, ')');
            goto fail;
        }
        for (i = 0; i < n; i++)
            if (v[i] == o) {
                strbuf_addf(err, "--policies: \"%s\" is given twice", one.buf);
                goto fail;
            }
        v[n++] = o;
        if (!e)
            break;
        p = e + 1;
    }
    strbuf_release(&one);
    *out = v;
    *nr = n;
    return 0;
fail:
    strbuf_release(&one);
    free(v);
    return -1;
}

int ordering_slot(enum ordering o, int rank, int k)
{
    if (rank < 1 || rank > k)
        return -1;
    if (k == 1)
        return o == ORDER_SOURCE ? -1 : 0;
    switch (o) {
    case ORDER_BEST_FIRST:
        return rank - 1;
    case ORDER_EDGES_FIRST:
        return rank % 2 ? (rank - 1) / 2 : k - rank / 2;
    case ORDER_BEST_2ND_LAST:
        return rank == 1 ? 0 : rank == 2 ? k - 1 : rank - 2;
    case ORDER_ASCENDING:
        return k - rank;
    default:
        return -1;
    }
}

/* A unit to place: one chunk, or with group_by_doc one document's chunks. */
struct unit {
    int best;     /* best (smallest) rank of its chunks */
    long source;  /* earliest source position of its chunks */
    size_t first; /* index into the sorted member list */
    size_t nr;
};

/* An item's source position and index: sorted without a global (the runner's build threads
   arrange prompts at once; a shared pointer to the items let one thread sort by another's). */
struct source_at {
    long source;
    size_t i;
};

static int by_source(const void *a, const void *b)
{
    const struct source_at *x = a, *y = b;
    if (x->source != y->source)
        return (x->source > y->source) - (x->source < y->source);
    return (x->i > y->i) - (x->i < y->i); /* ties in index order, as the stable sort kept them */
}

static int unit_by_rank(const void *a, const void *b)
{
    const struct unit *x = a, *y = b;
    return (x->best > y->best) - (x->best < y->best);
}

static int unit_by_source(const void *a, const void *b)
{
    const struct unit *x = a, *y = b;
    return (x->source > y->source) - (x->source < y->source);
}

static int same_doc(const struct order_item *a, const struct order_item *b)
{
    return a->doc && b->doc && !strcmp(a->doc, b->doc);
}

void ordering_arrange(enum ordering o, const struct order_item *items, size_t n, int group_by_doc,
                      size_t *out)
{
    size_t *members = xmalloc(st_mult(n ? n : 1, sizeof(*members)));
    struct unit *u = xcalloc(n ? n : 1, sizeof(*u));
    size_t nu = 0, i, j, pos = 0;
    struct unit *placed;

    /* members in source order; a unit = a run of one document (or one chunk) */
    {
        struct source_at *sa = xmalloc(st_mult(n ? n : 1, sizeof(*sa)));
        for (i = 0; i < n; i++) {
            sa[i].source = items[i].source;
            sa[i].i = i;
        }
        qsort(sa, n, sizeof(*sa), by_source);
        for (i = 0; i < n; i++)
            members[i] = sa[i].i;
        free(sa);
    }
    if (group_by_doc) {
        /* gather each document's chunks behind its earliest one, keeping source order */
        size_t *g = xmalloc(st_mult(n ? n : 1, sizeof(*g)));
        char *taken = xcalloc(n ? n : 1, 1);
        size_t m = 0;
        for (i = 0; i < n; i++) {
            if (taken[i])
                continue;
            u[nu].first = m;
            for (j = i; j < n; j++)
                if (!taken[j] && (j == i || same_doc(&items[members[i]], &items[members[j]]))) {
                    taken[j] = 1;
                    g[m++] = members[j];
                }
            u[nu].nr = m - u[nu].first;
            nu++;
        }
        memcpy(members, g, st_mult(n, sizeof(*g)));
        free(g);
        free(taken);
    } else {
        for (i = 0; i < n; i++) {
            u[nu].first = i;
            u[nu].nr = 1;
            nu++;
        }
    }
    for (i = 0; i < nu; i++) {
        u[i].best = items[members[u[i].first]].rank;
        u[i].source = items[members[u[i].first]].source;
        for (j = 1; j < u[i].nr; j++)
            if (items[members[u[i].first + j]].rank < u[i].best)
                u[i].best = items[members[u[i].first + j]].rank;
    }

    placed = xcalloc(nu ? nu : 1, sizeof(*placed));
    if (o == ORDER_SOURCE) {
        memcpy(placed, u, st_mult(nu, sizeof(*u)));
        qsort(placed, nu, sizeof(*placed), unit_by_source);
    } else {
        /* relative rank: position among the units sorted best first */
        qsort(u, nu, sizeof(*u), unit_by_rank);
        for (i = 0; i < nu; i++)
            placed[ordering_slot(o, (int)i + 1, (int)nu)] = u[i];
    }
    for (i = 0; i < nu; i++)
        for (j = 0; j < placed[i].nr; j++)
            out[pos++] = members[placed[i].first + j];
    free(placed);
    free(u);
    free(members);
}

double ordering_expected_accuracy(enum ordering order, const double *slot_acc, const double *probs,
                                  int k)
{
    double num = 0.0, den = 0.0;
    int r;
    if (k <= 0)
        return 0.0;
    if (order == ORDER_SOURCE) {
        for (r = 0; r < k; r++)
            num += slot_acc[r];
        return num / k;
    }
    for (r = 1; r <= k; r++) {
        num += probs[r - 1] * slot_acc[ordering_slot(order, r, k)];
        den += probs[r - 1];
    }
    return den > 0.0 ? num / den : 0.0;
}

size_t ordering_pack(const long *cost, size_t n, long room, int *keep)
{
    size_t i, kept = 0;
    long used = 0;
    for (i = 0; i < n; i++) {
        keep[i] = cost[i] >= 0 && used + cost[i] <= room;
        if (keep[i]) {
            used += cost[i];
            kept++;
        }
    }
    return kept;
}

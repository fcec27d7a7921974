/*
 * Okapi BM25 ranking of haystack chunks against a question (bm25.h): a term
 * list per chunk built once, scores over the chunks being ranked. Used for
 * question-specific hard negatives (run --distractors hard). Owns its index.
 */
#include "prompt/bm25.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "prompt/dataset.h"
#include "base/xalloc.h"
#include "base/hash.h"

#include "base/banned.h"

#define BM25_K1 1.2
#define BM25_B  0.75

/* A chunk's terms as 64-bit hashes, sorted (so counts are runs). */
struct doc_terms {
    uint64_t *h;
    size_t nr;
};

struct bm25_index {
    const struct haystack *hay;
    struct doc_terms *d;
};

static int term_byte(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Append the term hashes of s[0..n) to h, growing it (nr entries, alloc allocated). */
static void terms_of(const char *s, size_t n, uint64_t **h, size_t *nr, size_t *alloc)
{
    size_t i = 0;
    while (i < n) {
        uint64_t x = FNV64_INIT_DIPMAP;
        size_t start;
        while (i < n && !term_byte((unsigned char)s[i]))
            i++;
        if (i >= n)
            break;
        start = i;
        while (i < n && term_byte((unsigned char)s[i])) {
            unsigned char c = (unsigned char)s[i++];
            if (c >= 'A' && c <= 'Z')
                c = (unsigned char)(c - 'A' + 'a');
            x = fnv64_step(x, c);
        }
        if (i > start) {
            ALLOC_GROW(*h, *nr + 1, *alloc);
            (*h)[(*nr)++] = x;
        }
    }
}

struct bm25_index *bm25_index_new(const struct haystack *hay)
{
    struct bm25_index *ix = xcalloc(1, sizeof(*ix));
    size_t i;
    ix->hay = hay;
    ix->d = xcalloc(hay->nr ? hay->nr : 1, sizeof(*ix->d));
    for (i = 0; i < hay->nr; i++) {
        const struct chunk *c = &hay->c[i];
        size_t alloc = 0;
        if (c->title)
            terms_of(c->title, strlen(c->title), &ix->d[i].h, &ix->d[i].nr, &alloc);
        terms_of(c->text, c->text_len, &ix->d[i].h, &ix->d[i].nr, &alloc);
        if (ix->d[i].nr)
            qsort(ix->d[i].h, ix->d[i].nr, sizeof(*ix->d[i].h), cmp_u64);
    }
    return ix;
}

void bm25_index_free(struct bm25_index *ix)
{
    size_t i;
    if (!ix)
        return;
    for (i = 0; i < ix->hay->nr; i++)
        free(ix->d[i].h);
    free(ix->d);
    free(ix);
}

/* Occurrences of t in the sorted terms of d. */
static size_t term_count(const struct doc_terms *d, uint64_t t)
{
    size_t lo = 0, hi = d->nr, n = 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->h[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    while (lo + n < d->nr && d->h[lo + n] == t)
        n++;
    return n;
}

struct ranked {
    size_t idx, pos;
    double score;
};

static int cmp_ranked(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

void bm25_rank(const struct bm25_index *ix, const char *query, size_t *idx, size_t n,
               double *scores)
{
    uint64_t *q = NULL;
    size_t nq = 0, aq = 0, i, j, u = 0;
    double avg = 0;
    struct ranked *r;
    double *idf;
    terms_of(query, strlen(query), &q, &nq, &aq);
    if (nq)
        qsort(q, nq, sizeof(*q), cmp_u64);
    for (i = 0; i < nq; i++) /* a query term counts once */
        if (!u || q[u - 1] != q[i])
            q[u++] = q[i];
    nq = u;
    for (i = 0; i < n; i++)
        avg += (double)ix->d[idx[i]].nr;
    avg = n ? avg / (double)n : 1;
    if (avg <= 0)
        avg = 1;
    idf = xcalloc(nq ? nq : 1, sizeof(*idf));
    for (j = 0; j < nq; j++) {
        size_t df = 0;
        for (i = 0; i < n; i++)
            df += term_count(&ix->d[idx[i]], q[j]) > 0;
        idf[j] = log(1.0 + ((double)n - (double)df + 0.5) / ((double)df + 0.5));
    }
    r = xcalloc(n ? n : 1, sizeof(*r));
    for (i = 0; i < n; i++) {
        const struct doc_terms *d = &ix->d[idx[i]];
        double s = 0, norm = BM25_K1 * (1 - BM25_B + BM25_B * (double)d->nr / avg);
        for (j = 0; j < nq; j++) {
            double tf = (double)term_count(d, q[j]);
            if (tf > 0)
                s += idf[j] * tf * (BM25_K1 + 1) / (tf + norm);
        }
        r[i].idx = idx[i];
        r[i].pos = i;
        r[i].score = s;
    }
    qsort(r, n, sizeof(*r), cmp_ranked);
    for (i = 0; i < n; i++) {
        idx[i] = r[i].idx;
        if (scores)
            scores[i] = r[i].score;
    }
    free(r);
    free(idf);
    free(q);
}

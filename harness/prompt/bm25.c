/*
 * Okapi BM25 ranking of documents against a question (bm25.h): a term list per
 * document built once, scores over the documents being ranked. One definition
 * serves the haystack index (run --distractors hard) and a prompt's own documents
 * (the gold's rank among them, bm25_gold_rank). Owns its index.
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
    size_t nr;
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

struct bm25_index *bm25_index_docs(const struct bm25_doc *docs, size_t n)
{
    struct bm25_index *ix = xcalloc(1, sizeof(*ix));
    size_t i;
    ix->nr = n;
    ix->d = xcalloc(n ? n : 1, sizeof(*ix->d));
    for (i = 0; i < n; i++) {
        size_t alloc = 0;
        if (docs[i].title)
            terms_of(docs[i].title, strlen(docs[i].title), &ix->d[i].h, &ix->d[i].nr, &alloc);
        terms_of(docs[i].text, docs[i].len, &ix->d[i].h, &ix->d[i].nr, &alloc);
        if (ix->d[i].nr)
            qsort(ix->d[i].h, ix->d[i].nr, sizeof(*ix->d[i].h), cmp_u64);
    }
    return ix;
}

struct bm25_index *bm25_index_new(const struct haystack *hay)
{
    struct bm25_doc *docs = xcalloc(hay->nr ? hay->nr : 1, sizeof(*docs));
    struct bm25_index *ix;
    size_t i;
    for (i = 0; i < hay->nr; i++) {
        docs[i].title = hay->c[i].title;
        docs[i].text = hay->c[i].text;
        docs[i].len = hay->c[i].text_len;
    }
    ix = bm25_index_docs(docs, hay->nr);
    free(docs);
    return ix;
}

void bm25_index_free(struct bm25_index *ix)
{
    size_t i;
    if (!ix)
        return;
    for (i = 0; i < ix->nr; i++)
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

/* The distinct terms of query, sorted, into *q (malloc'd); their count. */
static size_t query_terms(const char *query, uint64_t **q)
{
    size_t nq = 0, aq = 0, i, u = 0;
    *q = NULL;
    terms_of(query, strlen(query), q, &nq, &aq);
    if (nq)
        qsort(*q, nq, sizeof(**q), cmp_u64);
    for (i = 0; i < nq; i++) /* a query term counts once */
        if (!u || (*q)[u - 1] != (*q)[i])
            (*q)[u++] = (*q)[i];
    return u;
}

/*
 * Okapi BM25, the one scoring of this file: n documents of len[i] terms, tf[i * nq + j] the
 * occurrences of query term j in document i; document frequencies and the mean length over
 * these n. The scores into out[0..n).
 */
static void bm25_score(const size_t *len, const uint32_t *tf, size_t n, size_t nq, double *out)
{
    double avg = 0, *idf = xcalloc(nq ? nq : 1, sizeof(*idf));
    size_t i, j;
    for (i = 0; i < n; i++)
        avg += (double)len[i];
    avg = n ? avg / (double)n : 1;
    if (avg <= 0)
        avg = 1;
    for (j = 0; j < nq; j++) {
        size_t df = 0;
        for (i = 0; i < n; i++)
            df += tf[i * nq + j] > 0;
        idf[j] = log(1.0 + ((double)n - (double)df + 0.5) / ((double)df + 0.5));
    }
    for (i = 0; i < n; i++) {
        double sc = 0, norm = BM25_K1 * (1 - BM25_B + BM25_B * (double)len[i] / avg);
        for (j = 0; j < nq; j++) {
            double f = (double)tf[i * nq + j];
            if (f > 0)
                sc += idf[j] * f * (BM25_K1 + 1) / (f + norm);
        }
        out[i] = sc;
    }
    free(idf);
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
    uint64_t *q;
    size_t nq = query_terms(query, &q), i, j;
    size_t *len = xcalloc(n ? n : 1, sizeof(*len));
    uint32_t *tf = xcalloc(n * nq + 1, sizeof(*tf));
    double *sc = xcalloc(n ? n : 1, sizeof(*sc));
    struct ranked *r = xcalloc(n ? n : 1, sizeof(*r));
    for (i = 0; i < n; i++) {
        const struct doc_terms *d = &ix->d[idx[i]];
        len[i] = d->nr;
        for (j = 0; j < nq; j++)
            tf[i * nq + j] = (uint32_t)term_count(d, q[j]);
    }
    bm25_score(len, tf, n, nq, sc);
    for (i = 0; i < n; i++) {
        r[i].idx = idx[i];
        r[i].pos = i;
        r[i].score = sc[i];
    }
    qsort(r, n, sizeof(*r), cmp_ranked);
    for (i = 0; i < n; i++) {
        idx[i] = r[i].idx;
        if (scores)
            scores[i] = r[i].score;
    }
    free(r);
    free(sc);
    free(tf);
    free(len);
    free(q);
}

/* Index of t in the sorted q[0..nq), or nq. */
static size_t query_term_at(const uint64_t *q, size_t nq, uint64_t t)
{
    size_t lo = 0, hi = nq;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (q[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < nq && q[lo] == t ? lo : nq;
}

/*
 * The documents are ranked once each (a prompt's), so no index is built: each document's terms
 * are hashed into one scratch list and only the query's are counted.
 */
size_t bm25_gold_rank(const struct bm25_doc *docs, size_t n, size_t gold, const char *query)
{
    uint64_t *q, *h = NULL;
    size_t nq, i, j, rank = 1, alloc = 0;
    size_t *len;
    uint32_t *tf;
    double *sc;
    if (gold >= n)
        return 0;
    nq = query_terms(query, &q);
    len = xcalloc(n, sizeof(*len));
    tf = xcalloc(n * nq + 1, sizeof(*tf));
    sc = xcalloc(n, sizeof(*sc));
    for (i = 0; i < n; i++) {
        size_t nh = 0;
        if (docs[i].title)
            terms_of(docs[i].title, strlen(docs[i].title), &h, &nh, &alloc);
        terms_of(docs[i].text, docs[i].len, &h, &nh, &alloc);
        len[i] = nh;
        for (j = 0; j < nh; j++) {
            size_t at = query_term_at(q, nq, h[j]);
            if (at < nq)
                tf[i * nq + at]++;
        }
    }
    bm25_score(len, tf, n, nq, sc);
    for (i = 0; i < n; i++) /* ties rank the gold below */
        rank += i != gold && sc[i] >= sc[gold];
    free(sc);
    free(tf);
    free(len);
    free(h);
    free(q);
    return rank;
}

/*
 * The needle-size axis (needle_size.h): a gold chunk trimmed around its answer sentence or padded
 * with the haystack text around it to an exact token count. The sentence rule is here once, for
 * the prompt builder and for serve-sim, which finds a sized gold by its answer sentence.
 */
#define _GNU_SOURCE
#include "prompt/needle_size.h"

#include <stdio.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/num.h"
#include "base/strbuf.h"
#include "base/usage.h"
#include "base/xalloc.h"
#include "prompt/dataset.h"
#include "run/axes.h"
#include "tokenizer/tokenizer.h"

#include "base/banned.h"

struct span {
    size_t s, e; /* bytes [s, e) of the context, whitespace-trimmed */
};

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static int is_close(char c)
{
    return c == '"' || c == '\'' || c == ')' || c == ']';
}

/* The sentences of t[0..n) (needle_size.h's rule), offset by base, appended to *v. */
static void split_sentences(const char *t, size_t n, size_t base, struct span **v, size_t *nr,
                            size_t *alloc)
{
    size_t i = 0;
    while (i < n) {
        size_t s, e;
        while (i < n && is_space(t[i]))
            i++;
        if (i >= n)
            break;
        s = i;
        for (e = s; e < n; e++) {
            if (t[e] == '\n')
                break;
            if (t[e] == '.' || t[e] == '!' || t[e] == '?') {
                size_t k = e + 1;
                while (k < n && (t[k] == '.' || t[k] == '!' || t[k] == '?' || is_close(t[k])))
                    k++;
                if (k >= n || is_space(t[k])) {
                    e = k;
                    break;
                }
            }
        }
        i = e;
        while (e > s && is_space(t[e - 1]))
            e--;
        ALLOC_GROW(*v, *nr + 1, *alloc);
        (*v)[*nr].s = base + s;
        (*v)[(*nr)++].e = base + e;
    }
}

static const char *find_ascii_nocase(const char *h, size_t hn, const char *n, size_t nn)
{
    size_t i, j;
    for (i = 0; nn && i + nn <= hn; i++) {
        for (j = 0; j < nn; j++) {
            char a = h[i + j], b = n[j];
            if (a >= 'A' && a <= 'Z')
                a = (char)(a - 'A' + 'a');
            if (b >= 'A' && b <= 'Z')
                b = (char)(b - 'A' + 'a');
            if (a != b)
                break;
        }
        if (j == nn)
            return h + i;
    }
    return NULL;
}

/*
 * The answer chunk (*k: the first gold chunk that states an answer) and the bytes [*a0, *a1) of
 * its text where an answer first occurs; -1 when no gold chunk states one.
 */
static int answer_at(const struct question *q, size_t *k, size_t *a0, size_t *a1)
{
    size_t i;
    int pass;
    for (*k = 0; *k < q->gold_nr; (*k)++)
        for (pass = 0; pass < 2; pass++)
            for (i = 0; i < q->answers.nr; i++) {
                const struct chunk *g = &q->gold[*k];
                const char *a = q->answers.v[i];
                size_t n = strlen(a);
                const char *hit = pass ? find_ascii_nocase(g->text, g->text_len, a, n)
                                       : memmem(g->text, g->text_len, a, n);
                if (n && hit) {
                    *a0 = (size_t)(hit - g->text);
                    *a1 = *a0 + n;
                    return 0;
                }
            }
    return -1;
}

/* The first and last of v[0..nr) that overlap [a0, a1) into *lo, *hi. */
static void covering(const struct span *v, size_t nr, size_t a0, size_t a1, size_t *lo, size_t *hi)
{
    size_t i;
    int found = 0;
    *lo = *hi = 0;
    for (i = 0; i < nr; i++)
        if (v[i].s < a1 && v[i].e > a0) {
            if (!found)
                *lo = i;
            *hi = i;
            found = 1;
        }
}

int needle_answer_sentence(const struct question *q, size_t *chunk, size_t *start, size_t *len)
{
    struct span *v = NULL;
    size_t nr = 0, alloc = 0, a0, a1, lo, hi;
    if (answer_at(q, chunk, &a0, &a1) < 0)
        return -1;
    split_sentences(q->gold[*chunk].text, q->gold[*chunk].text_len, 0, &v, &nr, &alloc);
    covering(v, nr, a0, a1, &lo, &hi);
    *start = v[lo].s;
    *len = v[hi].e - v[lo].s;
    free(v);
    return 0;
}

int needle_tokens_of(const char *axes, long *tokens, struct strbuf *err)
{
    size_t n;
    const char *v = axes_find(axes, NEEDLE_TOKENS_AXIS, &n);
    char buf[32];
    *tokens = 0;
    if (!v)
        return 0;
    snprintf(buf, sizeof(buf), "%.*s", (int)(n < 31 ? n : 31), v);
    if (parse_long_range(buf, NEEDLE_TOKENS_MIN, NEEDLE_TOKENS_MAX, tokens) < 0) {
        strbuf_addf(err, "needle-tokens '%s' is not a size %d..%d tokens", buf, NEEDLE_TOKENS_MIN,
                    NEEDLE_TOKENS_MAX);
        return -1;
    }
    return 1;
}

/* The text being sized: padding, the gold's own text, padding; its sentences and counter. */
struct sizing {
    struct tokenizer *tk;
    struct strbuf ctx;
    struct span *v;
    size_t nr, alloc;
    struct strbuf *err;
};

static long count(struct sizing *z, size_t s, size_t e)
{
    return tokenizer_count_err(z->tk, z->ctx.buf + s, e - s, z->err);
}

/* Haystack chunk text with each whitespace run as one space, trimmed, onto out. */
static void add_flat(struct strbuf *out, const struct chunk *c)
{
    size_t i;
    int space = 0;
    for (i = 0; i < c->text_len; i++) {
        if (is_space(c->text[i])) {
            space = 1;
            continue;
        }
        if (space && out->len && !is_space(out->buf[out->len - 1]))
            strbuf_addch(out, ' ');
        space = 0;
        strbuf_addch(out, c->text[i]);
    }
}

/*
 * The context: eligible haystack chunks before the gold (enough for want bytes), the gold's
 * own text, the chunks after it; its sentences into z->v. *gold_at: the gold's first byte.
 */
static void make_context(struct sizing *z, const struct haystack *hay, const struct question *q,
                         const struct chunk *g, size_t want, size_t *gold_at)
{
    size_t *idx = NULL, nr = 0, dropped = 0, point, i, from, bytes;
    if (hay)
        haystack_filter(hay, q, &idx, &nr, &dropped);
    /* haystack_filter keeps file order; the point is where the gold's own chunk sat */
    point = nr ? (size_t)(fnv64_str(FNV64_INIT, q->id) % (nr + 1)) : 0;
    for (i = 0; hay && i < hay->nr; i++)
        if (!strcmp(hay->c[i].id, g->id)) {
            for (point = 0; point < nr && idx[point] < i; point++)
                ;
            break;
        }
    for (from = point, bytes = 0; from > 0 && bytes < want; from--)
        bytes += hay->c[idx[from - 1]].text_len + 1;
    for (i = from; i < point; i++) {
        size_t at = z->ctx.len;
        if (z->ctx.len)
            strbuf_addch(&z->ctx, ' ');
        add_flat(&z->ctx, &hay->c[idx[i]]);
        split_sentences(z->ctx.buf + at, z->ctx.len - at, at, &z->v, &z->nr, &z->alloc);
    }
    if (z->ctx.len)
        strbuf_addch(&z->ctx, ' ');
    *gold_at = z->ctx.len;
    strbuf_add(&z->ctx, g->text, g->text_len);
    split_sentences(g->text, g->text_len, *gold_at, &z->v, &z->nr, &z->alloc);
    for (i = point, bytes = 0; i < nr && bytes < want; i++) {
        size_t at = z->ctx.len;
        strbuf_addch(&z->ctx, ' ');
        add_flat(&z->ctx, &hay->c[idx[i]]);
        bytes += z->ctx.len - at;
        split_sentences(z->ctx.buf + at, z->ctx.len - at, at, &z->v, &z->nr, &z->alloc);
    }
    free(idx);
}

/* The next character boundary after byte i of the context (UTF-8). */
static size_t next_char(const struct sizing *z, size_t i)
{
    i++;
    while (i < z->ctx.len && ((unsigned char)z->ctx.buf[i] & 0xC0) == 0x80)
        i++;
    return i;
}

/*
 * [*s, *e) grown to exactly goal tokens by a piece of the next sentence after it (after = 1:
 * a prefix of it) or before it (a suffix), cut at a character boundary. Returns 1 when exact,
 * 0 when no cut of that sentence counts exactly goal, -1 on a tokenizer failure.
 */
static int cut_to(struct sizing *z, size_t *s, size_t *e, size_t lim, int after, long goal)
{
    size_t *pos = xmalloc(st_mult((after ? lim - *e : *s - lim) + 1, sizeof(*pos)));
    size_t np = 0, i, lo, hi;
    long c;
    int ret = 0;
    /* the character boundaries strictly inside the piece, nearest the window first */
    if (after) {
        for (i = next_char(z, *e); i < lim; i = next_char(z, i))
            pos[np++] = i;
    } else {
        for (i = lim; i < *s; i = next_char(z, i))
            pos[np++] = i;
        for (i = 0; i < np / 2; i++) {
            size_t t = pos[i];
            pos[i] = pos[np - 1 - i];
            pos[np - 1 - i] = t;
        }
    }
    /* invariant: a piece of pos[lo - 1] fits (lo = 0: none taken), pos[hi] does not */
    lo = 0;
    hi = np;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        c = after ? count(z, *s, pos[mid]) : count(z, pos[mid], *e);
        if (c < 0)
            goto fail;
        if (c <= goal)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* the longest fitting piece, or one a few characters shorter, that counts exactly goal */
    for (i = lo; i > 0 && lo - i < 16; i--) {
        c = after ? count(z, *s, pos[i - 1]) : count(z, pos[i - 1], *e);
        if (c < 0)
            goto fail;
        if (c == goal) {
            if (after)
                *e = pos[i - 1];
            else
                *s = pos[i - 1];
            ret = 1;
            break;
        }
    }
    free(pos);
    return ret;
fail:
    free(pos);
    return -1;
}

/* The window grown from the answer sentence [v[lo], v[hi]] to goal tokens; see the header. */
static int grow(struct sizing *z, const struct question *q, size_t lo, size_t hi, long goal,
                size_t *ws, size_t *we)
{
    long c = count(z, z->v[lo].s, z->v[hi].e);
    int stuck[2] = {0, 0}, side = 1, r;
    if (c < 0)
        return -1;
    if (c > goal)
        return error_to(z->err,
                        "question %s: the sentence that states its answer is %ld tokens; "
                        "--needle-tokens %ld cannot hold it",
                        q->id, c, goal);
    while (c < goal) {
        int can[2] = {lo > 0 && !stuck[0], hi + 1 < z->nr && !stuck[1]};
        long n;
        if (!can[0] && !can[1])
            break;
        if (!can[side])
            side = !side;
        n = side ? count(z, z->v[lo].s, z->v[hi + 1].e) : count(z, z->v[lo - 1].s, z->v[hi].e);
        if (n < 0)
            return -1;
        if (n > goal) {
            stuck[side] = 1;
            continue;
        }
        c = n;
        if (side)
            hi++;
        else
            lo--;
        side = !side;
    }
    *ws = z->v[lo].s;
    *we = z->v[hi].e;
    if (c == goal)
        return 0;
    if (hi + 1 < z->nr && (r = cut_to(z, ws, we, z->v[hi + 1].e, 1, goal)) != 0)
        return r < 0 ? -1 : 0;
    if (lo > 0 && (r = cut_to(z, ws, we, z->v[lo - 1].s, 0, goal)) != 0)
        return r < 0 ? -1 : 0;
    if (hi + 1 >= z->nr && lo == 0)
        return error_to(z->err,
                        "question %s: its gold chunk and the haystack text around it hold %ld "
                        "tokens; --needle-tokens %ld needs more",
                        q->id, c, goal);
    return error_to(z->err,
                    "question %s: no cut of the text around its gold chunk counts exactly %ld "
                    "tokens (--needle-tokens)",
                    q->id, goal);
}

int needle_size_text(struct tokenizer *tk, const struct haystack *hay, const struct question *q,
                     long tokens, struct strbuf *out, size_t *chunk, struct strbuf *err)
{
    struct sizing z = {tk, STRBUF_INIT, NULL, 0, 0, err};
    size_t gold_at = 0, a0, a1, lo, hi, ws = 0, we = 0, i, first = 0, n_gold = 0;
    int ret = -1;
    if (answer_at(q, chunk, &a0, &a1) < 0) {
        error_to(err,
                 "question %s: no gold chunk states one of its answers; --needle-tokens %ld "
                 "keeps the sentence that does",
                 q->id, tokens);
        goto cleanup;
    }
    make_context(&z, hay, q, &q->gold[*chunk], (size_t)tokens * 8 + 256, &gold_at);
    for (i = 0; i < z.nr; i++)
        if (z.v[i].s >= gold_at && z.v[i].e <= gold_at + q->gold[*chunk].text_len && !n_gold++)
            first = i;
    covering(z.v + first, n_gold, gold_at + a0, gold_at + a1, &lo, &hi);
    if (grow(&z, q, first + lo, first + hi, tokens, &ws, &we) < 0)
        goto cleanup;
    strbuf_add(out, z.ctx.buf + ws, we - ws);
    ret = 0;
cleanup:
    strbuf_release(&z.ctx);
    free(z.v);
    return ret;
}

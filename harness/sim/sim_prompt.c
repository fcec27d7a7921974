/*
 * What the simulated model reads in a prompt: finds the question asked (an
 * index over the golden set's questions), applies a llama.cpp-style context
 * shift, locates the gold chunk as a token fraction x, and hashes the rest of
 * the prompt into the salt of the draw. No HTTP and no JSON here.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "prompt/dataset.h"
#include "prompt/needle_size.h"
#include "prompt/overlap.h"
#include "prompt/prompt.h"
#include "sim/sim-int.h"
#include "sim/sim.h"
#include "base/strbuf.h"
#include "tokenizer/tokenizer.h"
#include "base/xalloc.h"
#include "base/hash.h"

#include "base/banned.h"

/* ---- question index ------------------------------------------------------- */

static uint64_t load8(const char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

void sim_qindex_build(struct qindex *ix, const struct golden_set *gs)
{
    size_t cap = 16;
    memset(ix, 0, sizeof(*ix));
    if (!gs)
        return;
    while (cap < gs->nr * 2)
        cap *= 2;
    ix->keys = xcalloc(cap, sizeof(*ix->keys));
    ix->head = xmalloc(st_mult(cap, sizeof(*ix->head)));
    for (size_t i = 0; i < cap; i++)
        ix->head[i] = SIZE_MAX;
    ix->mask = cap - 1;
    ix->next = xmalloc(st_mult(gs->nr + 1, sizeof(*ix->next)));
    ix->len = xmalloc(st_mult(gs->nr + 1, sizeof(*ix->len)));
    ix->shorts = xmalloc(st_mult(gs->nr + 1, sizeof(*ix->shorts)));
    for (size_t q = gs->nr; q-- > 0;) {
        const char *text = gs->q[q].question;
        size_t len = strlen(text), slot;
        uint64_t key;
        unsigned f;
        ix->next[q] = SIZE_MAX;
        ix->len[q] = len;
        if (len < 8) {
            ix->shorts[ix->shorts_nr++] = q;
            continue;
        }
        key = load8(text + len - 8);
        slot = sim_mix64(key) & ix->mask;
        while (ix->head[slot] != SIZE_MAX && ix->keys[slot] != key)
            slot = (slot + 1) & ix->mask;
        ix->keys[slot] = key;
        ix->next[q] = ix->head[slot];
        ix->head[slot] = q;
        f = (unsigned char)text[len - 8] | (unsigned)(unsigned char)text[len - 7] << 8;
        ix->filter[f >> 3] |= (unsigned char)(1u << (f & 7));
    }
}

void sim_hindex_build(struct qindex *ix, const struct haystack *h)
{
    size_t cap = 16;
    ix->hay = h;
    if (!h)
        return;
    while (cap < h->nr * 2)
        cap *= 2;
    ix->hkeys = xcalloc(cap, sizeof(*ix->hkeys));
    ix->hhead = xmalloc(st_mult(cap, sizeof(*ix->hhead)));
    for (size_t i = 0; i < cap; i++)
        ix->hhead[i] = SIZE_MAX;
    ix->hmask = cap - 1;
    ix->hnext = xmalloc(st_mult(h->nr + 1, sizeof(*ix->hnext)));
    for (size_t c = h->nr; c-- > 0;) {
        uint64_t key;
        size_t slot;
        ix->hnext[c] = SIZE_MAX;
        if (h->c[c].text_len < 8)
            continue;
        key = load8(h->c[c].text);
        slot = sim_mix64(key) & ix->hmask;
        while (ix->hhead[slot] != SIZE_MAX && ix->hkeys[slot] != key)
            slot = (slot + 1) & ix->hmask;
        ix->hkeys[slot] = key;
        ix->hnext[c] = ix->hhead[slot];
        ix->hhead[slot] = c;
    }
}

/*
 * features.shuffled: at least 3 haystack chunks occur in the model's view and fewer than 3/4 of
 * the consecutive pairs (prompt order) ascend in the haystack's file order; features.haystack:
 * at least one occurs that is not the question's own gold chunk (a haystack may hold the gold's
 * passage: then the gold alone is not haystack text).
 */
static int is_gold_text(const struct question *q, const struct chunk *c)
{
    for (size_t g = 0; q && g < q->gold_nr; g++)
        if (q->gold[g].text_len == c->text_len && !memcmp(q->gold[g].text, c->text, c->text_len))
            return 1;
    return 0;
}

static void haystack_order(const struct qindex *ix, const struct sim_prompt *p,
                           struct sim_analysis *a)
{
    size_t found = 0, ascending = 0, prev = SIZE_MAX, other = 0;
    if (!ix->hay)
        return;
    for (size_t s = 0; s < p->nr; s++) {
        const char *base = p->seg[s].buf + p->start[s];
        size_t len = p->seg[s].len - p->start[s];
        for (size_t i = 0; i + 8 <= len; i++) {
            uint64_t key = load8(base + i);
            size_t slot = sim_mix64(key) & ix->hmask, hit = SIZE_MAX;
            while (ix->hhead[slot] != SIZE_MAX && ix->hkeys[slot] != key)
                slot = (slot + 1) & ix->hmask;
            for (size_t c = ix->hhead[slot]; c != SIZE_MAX && hit == SIZE_MAX; c = ix->hnext[c])
                if (ix->hay->c[c].text_len <= len - i &&
                    !memcmp(base + i, ix->hay->c[c].text, ix->hay->c[c].text_len))
                    hit = c;
            if (hit == SIZE_MAX)
                continue;
            other += !is_gold_text(a->q, &ix->hay->c[hit]);
            if (found++ && hit > prev)
                ascending++;
            prev = hit;
            i += ix->hay->c[hit].text_len - 1;
        }
    }
    a->features.shuffled = found >= 3 && 4 * ascending < 3 * (found - 1);
    a->features.haystack = other > 0;
}

void sim_qindex_release(struct qindex *ix)
{
    free(ix->hkeys);
    free(ix->hhead);
    free(ix->hnext);
    free(ix->keys);
    free(ix->head);
    free(ix->next);
    free(ix->len);
    free(ix->shorts);
}

struct qmatch {
    long q; /* -1 = none */
    size_t qlen;
    size_t seg, pos; /* latest occurrence */
};

static void consider(struct qmatch *m, size_t q, size_t qlen, size_t seg, size_t pos)
{
    if (m->q < 0 || qlen > m->qlen ||
        (qlen == m->qlen && (seg > m->seg || (seg == m->seg && pos >= m->pos)))) {
        m->q = (long)q;
        m->qlen = qlen;
        m->seg = seg;
        m->pos = pos;
    }
}

static void qindex_scan(const struct qindex *ix, const struct golden_set *gs, size_t seg,
                        const char *p, size_t len, struct qmatch *m)
{
    if (!gs)
        return;
    for (size_t i = 0; i + 8 <= len; i++) {
        unsigned f = (unsigned char)p[i] | (unsigned)(unsigned char)p[i + 1] << 8;
        uint64_t key;
        size_t slot;
        if (!(ix->filter[f >> 3] & (1u << (f & 7))))
            continue;
        key = load8(p + i);
        slot = sim_mix64(key) & ix->mask;
        while (ix->head[slot] != SIZE_MAX && ix->keys[slot] != key)
            slot = (slot + 1) & ix->mask;
        for (size_t q = ix->head[slot]; q != SIZE_MAX; q = ix->next[q]) {
            size_t qlen = ix->len[q], end = i + 8;
            if (qlen <= end && !memcmp(p + end - qlen, gs->q[q].question, qlen - 8))
                consider(m, q, qlen, seg, end - qlen);
        }
    }
    for (size_t k = 0; k < ix->shorts_nr; k++) {
        const char *text = gs->q[ix->shorts[k]].question;
        size_t qlen = ix->len[ix->shorts[k]];
        const char *hit = NULL, *from = p;
        if (!qlen)
            continue;
        while ((size_t)(p + len - from) >= qlen) {
            const char *h = memmem(from, (size_t)(p + len - from), text, qlen);
            if (!h)
                break;
            hit = h;
            from = h + 1;
        }
        if (hit)
            consider(m, ix->shorts[k], qlen, seg, (size_t)(hit - p));
    }
}

/* ---- prompt analysis ------------------------------------------------------ */

void sim_prompt_release(struct sim_prompt *p)
{
    for (size_t i = 0; i < p->nr; i++) {
        strbuf_release(&p->seg[i]);
        if (p->role)
            free(p->role[i]);
    }
    free(p->role);
    free(p->seg);
    free(p->start);
    free(p->count);
    memset(p, 0, sizeof(*p));
}

struct strbuf *sim_prompt_add(struct sim_prompt *p)
{
    ALLOC_GROW(p->seg, p->nr + 1, p->alloc);
    strbuf_init(&p->seg[p->nr], 0);
    return &p->seg[p->nr++];
}

long sim_count_tokens(struct tokenizer *tok, const char *p, size_t len)
{
    long n = tokenizer_count(tok, p, len);
    return n < 0 ? 0 : n;
}

/* Byte length of the first n tokens of p[0..len). */
size_t sim_token_prefix_bytes(struct tokenizer *tok, const char *p, size_t len, long n)
{
    uint32_t *ids = NULL;
    size_t nr = 0, bytes = len;
    struct strbuf out = STRBUF_INIT;
    if (tokenizer_encode(tok, p, len, TOKENIZER_SPECIAL_DEFAULT, &ids, &nr) == 0) {
        if ((size_t)n < nr && tokenizer_decode(tok, ids, (size_t)n, &out) == 0)
            bytes = out.len <= len ? out.len : len;
    }
    free(ids);
    strbuf_release(&out);
    return bytes;
}

/* llama.cpp-style context shift: keep only the last `keep` tokens. */
static void shift_prompt(struct tokenizer *tok, struct sim_prompt *p, long keep)
{
    long total = 0;
    for (size_t i = 0; i < p->nr; i++)
        total += p->count[i];
    for (size_t i = 0; i < p->nr && total > keep; i++) {
        long excess = total - keep;
        if (p->count[i] <= excess) {
            total -= p->count[i];
            p->start[i] = p->seg[i].len;
            p->count[i] = 0;
            continue;
        }
        /* Cut inside this segment; re-tokenizing the rest can merge differently, so recheck. */
        while (total > keep) {
            const char *base = p->seg[i].buf + p->start[i];
            size_t rest = p->seg[i].len - p->start[i];
            size_t cut;
            long now;
            if (!rest)
                break;
            cut = sim_token_prefix_bytes(tok, base, rest, excess);
            if (!cut)
                cut = 1;
            p->start[i] += cut;
            now = sim_count_tokens(tok, p->seg[i].buf + p->start[i], p->seg[i].len - p->start[i]);
            total += now - p->count[i];
            p->count[i] = now;
            excess = total - keep;
        }
    }
}

/* Tokens of p before byte pos of segment seg (the model's view). */
static long token_offset(struct tokenizer *tok, const struct sim_prompt *p, size_t seg, size_t pos)
{
    long off = 0;
    for (size_t i = 0; i < seg; i++)
        off += p->count[i];
    return off + sim_count_tokens(tok, p->seg[seg].buf + p->start[seg], pos);
}

/*
 * Gold chunk g of q in base[0..len): its whole text, else, for the answer chunk, its answer
 * sentence (a chunk run --needle-tokens sized: prompt/needle_size.h); NULL when neither occurs.
 * *hit_len: the bytes found.
 */
static const char *gold_in(const struct question *q, size_t g, const char *base, size_t len,
                           size_t *hit_len)
{
    const struct chunk *c = &q->gold[g];
    const char *hit = memmem(base, len, c->text, c->text_len);
    size_t k, s, n;
    *hit_len = c->text_len;
    if (hit || needle_answer_sentence(q, &k, &s, &n) < 0 || k != g)
        return hit;
    *hit_len = n;
    return memmem(base, len, c->text + s, n);
}

/*
 * features.gold_present: the question's gold chunks that occur; with several, features.spacing:
 * the tokens from the end of the earliest (first occurrence) to the start of the latest, over T.
 */
static void needles_found(struct tokenizer *tok, const struct sim_prompt *p, struct sim_analysis *a)
{
    long first = -1, first_end = 0, last = -1, at[2] = {-1, -1};
    for (size_t g = 0; g < a->q->gold_nr; g++) {
        for (size_t i = 0; i < p->nr; i++) {
            const char *base = p->seg[i].buf + p->start[i];
            size_t hl;
            const char *hit = gold_in(a->q, g, base, p->seg[i].len - p->start[i], &hl);
            long off;
            if (!hit)
                continue;
            a->features.gold_present++;
            if (a->q->gold_nr < 2)
                break;
            off = token_offset(tok, p, i, (size_t)(hit - base));
            if (g < 2)
                at[g] = off;
            if (first < 0 || off < first) {
                first = off;
                first_end = off + sim_count_tokens(tok, hit, hl);
            }
            if (off > last)
                last = off;
            break;
        }
    }
    /* a two-hop chain read backwards: needle B (gold 1) before needle A (gold 0) */
    a->features.reversed = at[0] >= 0 && at[1] >= 0 && at[1] < at[0];
    if (a->features.gold_present > 1 && a->T > 0 && last > first_end) {
        double s = (double)(last - first_end) / (double)a->T;
        a->features.spacing = s > 1 ? 1 : s;
    }
}

/*
 * An ordinal question (run --ordinal; docs/effects.md "Ordinal needles"): scored exact and its
 * answer the value of a gold chunk. With at least two of its gold chunks in the model's view:
 * features.ordinal_n and ordinal_rank (the answer's chunk among them in prompt order), its
 * neighbours, and the gold position x at the answer's chunk rather than the first gold chunk.
 */
static void ordinal_found(struct tokenizer *tok, const struct sim_prompt *p, struct sim_analysis *a)
{
    const struct question *q = a->q;
    size_t target = prompt_ordinal_target(q), g, n = 0, rank = 0;
    long *off, target_off = -1;
    if (!target || !q->scorer || strcmp(q->scorer, "exact") || a->features.gold_present < 2)
        return;
    off = xcalloc(q->gold_nr, sizeof(*off));
    for (g = 0; g < q->gold_nr; g++) {
        off[g] = -1;
        for (size_t i = 0; i < p->nr && off[g] < 0; i++) {
            const char *base = p->seg[i].buf + p->start[i];
            const char *hit =
                memmem(base, p->seg[i].len - p->start[i], q->gold[g].text, q->gold[g].text_len);
            if (hit)
                off[g] = token_offset(tok, p, i, (size_t)(hit - base));
        }
    }
    target_off = off[target - 1];
    for (g = 0; g < q->gold_nr && target_off >= 0; g++) {
        if (off[g] < 0)
            continue;
        n++;
        rank += off[g] < target_off || (off[g] == target_off && g < target - 1);
        /* the nearest present chunk on each side: the neighbouring occurrences */
        if (off[g] < target_off && (!a->ordinal_prev || off[g] > off[a->ordinal_prev - q->gold]))
            a->ordinal_prev = &q->gold[g];
        if (off[g] > target_off && (!a->ordinal_next || off[g] < off[a->ordinal_next - q->gold]))
            a->ordinal_next = &q->gold[g];
    }
    if (target_off >= 0 && n >= 2) {
        a->features.ordinal_n = n;
        a->features.ordinal_rank = rank + 1;
        a->x = a->T > 0 ? (double)target_off / (double)a->T : 0;
        if (a->x >= 1)
            a->x = nextafter(1.0, 0.0);
    } else {
        a->ordinal_prev = a->ordinal_next = NULL;
    }
    free(off);
}

/*
 * The draws' salt: the prompt as the model sees it (each segment from its start), the gold
 * chunk's glen bytes at gpos of segment gseg left out (SIZE_MAX: no gold).
 */
static uint64_t prompt_salt(const struct sim_prompt *p, size_t gseg, size_t gpos, size_t glen)
{
    uint64_t salt = FNV64_INIT;
    for (size_t i = 0; i < p->nr; i++) {
        const char *base = p->seg[i].buf + p->start[i];
        size_t len = p->seg[i].len - p->start[i];
        uint64_t n = len;
        if (i == gseg) {
            salt = fnv64(salt, base, gpos);
            salt = fnv64(salt, base + gpos + glen, len - gpos - glen);
            n -= glen;
        } else {
            salt = fnv64(salt, base, len);
        }
        salt = fnv64(salt, &n, sizeof(n));
    }
    return salt;
}

void sim_analyse(const struct sim_config *cfg, const struct qindex *qix, struct sim_prompt *p,
                 struct sim_analysis *a)
{
    const struct golden_set *gs = cfg->gs;
    struct tokenizer *tok = cfg->tokenizer;
    struct qmatch m = {-1, 0, 0, 0};
    long total = 0;
    size_t gseg = 0, gpos = 0, glen = 0;

    memset(a, 0, sizeof(*a));
    p->start = xcalloc(p->nr + 1, sizeof(*p->start));
    p->count = xcalloc(p->nr + 1, sizeof(*p->count));
    for (size_t i = 0; i < p->nr; i++) {
        p->count[i] = sim_count_tokens(tok, p->seg[i].buf, p->seg[i].len);
        total += p->count[i];
    }
    a->sent_tokens = total;
    if (cfg->shift_ctx > 0 && total > cfg->shift_ctx) {
        shift_prompt(cfg->tokenizer, p, cfg->shift_ctx);
        a->shifted = 1;
        total = 0;
        for (size_t i = 0; i < p->nr; i++)
            total += p->count[i];
    }
    a->T = total;

    for (size_t i = 0; i < p->nr; i++)
        qindex_scan(qix, gs, i, p->seg[i].buf + p->start[i], p->seg[i].len - p->start[i], &m);
    if (m.q >= 0)
        a->q = &gs->q[m.q];

    if (a->q) {
        for (size_t g = 0; g < a->q->gold_nr && !a->gold; g++) {
            for (size_t i = 0; i < p->nr; i++) {
                const char *base = p->seg[i].buf + p->start[i];
                size_t hl;
                const char *hit = gold_in(a->q, g, base, p->seg[i].len - p->start[i], &hl);
                if (hit) {
                    a->gold = 1;
                    gseg = i;
                    gpos = (size_t)(hit - base);
                    glen = hl;
                    break;
                }
            }
        }
    }
    if (a->gold) {
        const char *base = p->seg[gseg].buf + p->start[gseg];
        size_t len = p->seg[gseg].len - p->start[gseg], ls = gpos, le = gpos + glen;
        long off = token_offset(tok, p, gseg, gpos);
        while (ls > 0 && base[ls - 1] != '\n')
            ls--;
        while (le < len && base[le] != '\n')
            le++;
        a->features.gold_tokens = sim_count_tokens(tok, base + ls, le - ls);
        a->x = a->T > 0 ? (double)off / (double)a->T : 0;
        if (a->x >= 1)
            a->x = nextafter(1.0, 0.0);
    }

    if (a->q)
        needles_found(tok, p, a);
    if (a->q && a->gold)
        ordinal_found(tok, p, a);
    a->features.ctx = cfg->ctx;
    a->features.overlap = a->gold ? overlap_share(cfg->tokenizer, a->q) : -1;
    haystack_order(qix, p, a);
    if (a->gold) {
        /* the question after the gold chunk (same segment past it, or a later segment)? */
        const char *qt = a->q->question;
        size_t ql = strlen(qt), i;
        int after = 0;
        for (i = gseg; i < p->nr && !after && ql; i++) {
            const char *base = p->seg[i].buf + p->start[i];
            size_t len = p->seg[i].len - p->start[i], from = i == gseg ? gpos + glen : 0;
            after = len >= from && memmem(base + from, len - from, qt, ql) != NULL;
        }
        a->features.question_start = !after;
        if (p->role && !strcmp(p->role[gseg], "tool"))
            a->features.gold_turn = SIM_GOLD_TOOL;
        else if (p->role && gseg + 1 < p->nr &&
                 (!strcmp(p->role[gseg], "user") || !strcmp(p->role[gseg], "assistant")))
            a->features.gold_turn = SIM_GOLD_CHAT;
    }

    a->salt = prompt_salt(p, a->gold ? gseg : SIZE_MAX, gpos, glen);

    if (a->q && a->q->distractors_nr) {
        const struct chunk **found = NULL;
        size_t nf = 0, af = 0;
        for (size_t d = 0; d < a->q->distractors_nr; d++) {
            const struct chunk *c = &a->q->distractors[d];
            for (size_t i = 0; i < p->nr; i++) {
                if (memmem(p->seg[i].buf + p->start[i], p->seg[i].len - p->start[i], c->text,
                           c->text_len)) {
                    a->features.hard = 1;
                    if (!c->value || !*c->value)
                        break;
                    ALLOC_GROW(found, nf + 1, af);
                    found[nf++] = c;
                    break;
                }
            }
        }
        if (nf)
            a->negative = found[sim_mix64(a->salt ^ 0x6e6567ULL) % nf];
        free(found);
    }
}

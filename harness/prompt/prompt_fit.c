/*
 * Exact fit: the distractor selection that brings a position-swap prompt to
 * its target token count exactly (whole chunks, then one chunk cut at a word
 * or character boundary), and the per-request selection cache.
 */
#define _GNU_SOURCE
#include "prompt/prompt.h"
#include "prompt/prompt-int.h"

#include <errno.h>
#include <stdio.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/axes.h"
#include "prompt/bm25.h"
#include "prompt/dataset.h"
#include "prompt/layout.h"
#include "base/num.h"
#include "prompt/order.h"
#include "base/num.h"
#include "run/plan.h"
#include "base/rng.h"
#include "base/sha256.h"
#include "base/strbuf.h"
#include "tokenizer/tokenizer.h"
#include "run/trial.h"
#include "base/unicode.h"
#include "base/usage.h"
#include "base/xalloc.h"

#include "base/banned.h"

/* Chunks with fewer words are never cut, but key-value pairs (see select_items()). */
#define MIN_TRIM_WORDS 8

static size_t word_count(const char *s, size_t n)
{
    size_t i, nr = 0;
    for (i = 0; i < n; i++) {
        int sp = s[i] == ' ' || s[i] == '\n' || s[i] == '\t';
        int next_sp = i + 1 == n || s[i + 1] == ' ' || s[i + 1] == '\n' || s[i + 1] == '\t';
        nr += !sp && next_sp;
    }
    return nr;
}

/* Byte offsets of the UTF-8 character boundaries of s inside (0, n]; caller frees. */
static size_t char_ends(const char *s, size_t n, size_t **out)
{
    size_t i, nr = 0, alloc = 0;
    *out = NULL;
    for (i = 1; i <= n; i++) {
        if (i < n && ((unsigned char)s[i] & 0xC0) == 0x80)
            continue;
        ALLOC_GROW(*out, nr + 1, alloc);
        (*out)[nr++] = i;
    }
    return nr;
}

/* count(pre + text[0..len) + its cut tail (c: prompt_cut_tail(), NULL: none) + post) */
static long window_count(struct prompt_builder *b, const struct chunk *c, const char *pre,
                         size_t pre_len, const char *text, size_t len, const char *post,
                         size_t post_len, struct strbuf *err)
{
    const char *tail = c ? prompt_cut_tail(c, len) : NULL;
    strbuf_reset(&b->scratch);
    strbuf_add(&b->scratch, pre, pre_len);
    strbuf_add(&b->scratch, text, len);
    if (tail)
        strbuf_addstr(&b->scratch, tail);
    strbuf_add(&b->scratch, post, post_len);
    return prompt_count_text(b, b->scratch.buf, b->scratch.len, err);
}

/* Characters below the longest fitting prefix tried for an exact count. */
#define EXACT_SCAN 24

/*
 * The longest prefix of text (at a character boundary) with
 * count(pre + prefix + post) <= goal: since a longer prefix never has fewer
 * tokens but for merges at the cut, that prefix ends at a token boundary of
 * its own encoding. When that prefix counts less than goal (a merge made the
 * next character cost two tokens), a prefix up to EXACT_SCAN characters
 * shorter that counts exactly goal is taken instead. Only prefixes of at least min bytes are
 * taken; c (may be NULL) is the chunk whose prompt_cut_tail() goes between prefix and post. Returns
 * its length in bytes (0 when even the shortest prefix is over goal), or -1
 * (err) when counting fails.
 */
static long longest_prefix(struct prompt_builder *b, const struct chunk *c, const char *pre,
                           size_t pre_len, const char *text, size_t text_len, size_t min,
                           const char *post, size_t post_len, long goal, struct strbuf *err)
{
    size_t *ends, nr = char_ends(text, text_len, &ends), lo = 0, hi = nr + 1, first = 0;
    long ret = 0;
    if (min) {
        long n0;
        while (first < nr && ends[first] < min)
            first++;
        if (first >= nr) {
            free(ends);
            return 0;
        }
        first++; /* chars in the shortest allowed prefix */
        n0 = window_count(b, c, pre, pre_len, text, ends[first - 1], post, post_len, err);
        if (n0 < 0 || n0 > goal) {
            free(ends);
            return n0 < 0 ? -1 : 0;
        }
        lo = first;
    }
    /* invariant: prefix of lo chars fits (lo = 0 assumed), prefix of hi chars does not */
    while (lo + 1 < hi) {
        size_t mid = lo + (hi - lo) / 2;
        long n1 = window_count(b, c, pre, pre_len, text, ends[mid - 1], post, post_len, err);
        if (n1 < 0) {
            free(ends);
            return -1;
        }
        if (n1 <= goal)
            lo = mid;
        else
            hi = mid;
    }
    ret = lo ? (long)ends[lo - 1] : 0;
    if (lo) {
        /*
         * A token that merges with what follows the cut can make the count
         * jump by two; a nearby character boundary often lands on goal.
         */
        long at = window_count(b, c, pre, pre_len, text, ends[lo - 1], post, post_len, err);
        size_t j;
        if (at < 0) {
            free(ends);
            return -1;
        }
        for (j = 1; at != goal && j <= EXACT_SCAN && j < lo && lo - j >= first; j++) {
            long n2 = window_count(b, c, pre, pre_len, text, ends[lo - 1 - j], post, post_len, err);
            if (n2 < 0) {
                free(ends);
                return -1;
            }
            if (n2 == goal) {
                ret = (long)ends[lo - 1 - j];
                break;
            }
        }
    }
    free(ends);
    return ret;
}

/*
 * Bytes of c's text whose block fits room tokens (0: none; -1: counting
 * failed); a member chunk (prompt_member_span()) is cut inside its value, closed.
 */
static long cut_chunk(struct prompt_builder *b, const struct chunk *c, long room,
                      struct strbuf *err)
{
    size_t at = 0, min, max, value;
    int member = prompt_member_span(c, &min, &max, &value);
    struct chunk_fields d = {COUNT_INDEX, c->title, "", c->id, 0, NULL};
    long len;
    strbuf_reset(&b->docs);
    strbuf_addstr(&b->docs, b->tpl->separator);
    prompt_render(&b->docs, prompt_template_document(b->tpl, d.title), "", NULL, &at, &d);
    len = longest_prefix(b, c, b->docs.buf, at, c->text, max, min, b->docs.buf + at,
                         b->docs.len - at, room, err);
    /* a member whose whole value fits is the whole chunk */
    return member && len == (long)max ? (long)c->text_len : len;
}

static int selected(const struct seq *s, const struct chunk *c)
{
    size_t j;
    for (j = 0; j < s->nr; j++)
        if (s->it[j].c == c)
            return 1;
    return 0;
}

/* Tokens hard negatives leave for a cut key-value pair (of a kv haystack). */
#define MEMBER_RESERVE 12

/* Candidates looked at, and swaps made, when whole chunks must fill the gap. */
#define PACK_CANDIDATES 64
#define PACK_SWAPS      16

/*
 * Without a cut item (chunks too short to cut) the gap left by whole chunks
 * is narrowed by swapping a selected filler chunk for an unselected one a
 * few tokens longer (from the next PACK_CANDIDATES of the permutation).
 * Returns the tokens gained (<= gap), or -1 (err).
 */
static long pack_whole(struct prompt_builder *b, struct seq *s, const struct qfill *f, size_t from,
                       long gap, struct strbuf *err)
{
    long gained = 0;
    int swap;
    for (swap = 0; swap < PACK_SWAPS && gap > 0; swap++) {
        long best = 0;
        size_t bi = 0, bj = 0, j, n = 0, i;
        for (j = 0; j < f->nr && n < PACK_CANDIDATES + from; j++) {
            const struct chunk *c = prompt_fill_at(b, f, j);
            long cc;
            n++;
            if (selected(s, c))
                continue;
            cc = prompt_chunk_cost(b, c, err);
            if (cc < 0)
                return -1;
            for (i = s->hard; i < s->nr; i++) {
                long d = cc - s->it[i].cost;
                if (d > best && d <= gap) {
                    best = d;
                    bi = i;
                    bj = j;
                }
            }
        }
        if (!best)
            break;
        {
            const struct chunk *c = prompt_fill_at(b, f, bj);
            s->it[bi] = (struct seq_item){c, c->text_len, s->it[bi].cost + best, 0};
        }
        gap -= best;
        gained += best;
    }
    return gained;
}

/*
 * Hard negatives for select_items(), skipped when they do not fit (below a
 * reserve that leaves a key-value filler pair room for a cut that can move).
 * Returns the tokens they take, or -1 (err).
 */
static long select_hard(struct prompt_builder *b, struct seq *s, const struct qfill *f, long budget,
                        size_t *alloc, struct strbuf *err)
{
    const struct question *q = s->key.q;
    long sum = 0, reserve = 0;
    size_t i;

    if (f->nr) {
        size_t mn, mx, mv;
        if (prompt_member_span(prompt_fill_at(b, f, 0), &mn, &mx, &mv))
            reserve = MEMBER_RESERVE;
    }
    for (i = 0; i < q->distractors_nr && (f->mode & FILL_KIND) != FILL_RANDOM &&
                (f->mode & FILL_KIND) != FILL_NONE;
         i++) {
        const struct chunk *c = &q->distractors[i];
        long cost = prompt_chunk_cost(b, c, err);
        if (cost < 0)
            return -1;
        if (sum + cost > budget - reserve)
            continue;
        ALLOC_GROW(s->it, s->nr + 1, *alloc);
        s->it[s->nr++] = (struct seq_item){c, c->text_len, cost, 1};
        s->hard++;
        sum += cost;
    }
    return sum;
}

/*
 * The length to cut filler chunk c to, for select_items(): its longest
 * prefix whose block fits the rest of the budget. When too little is left,
 * the last whole key-value pair is given back, or the previous chunk is
 * shortened (*sum follows). Returns the length (0: none fits), or -1 (err).
 */
static long cut_length(struct prompt_builder *b, struct seq *s, const struct chunk *c, int member,
                       long budget, long *sum, struct strbuf *err)
{
    long len = member && budget - *sum < MEMBER_RESERVE ? 0 : cut_chunk(b, c, budget - *sum, err);
    if (len == 0 && member && s->nr > s->hard) {
        /* too little room for a cut that can move: give the last whole pair back */
        *sum -= s->it[s->nr - 1].cost;
        s->nr--;
        s->filler--;
        len = cut_chunk(b, c, budget - *sum, err);
    } else if (len == 0 && s->nr > s->hard &&
               word_count(s->it[s->nr - 1].c->text, s->it[s->nr - 1].c->text_len) >=
                   MIN_TRIM_WORDS) {
        /*
         * The rest is smaller than a block's header: shorten the previous
         * chunk (once, for every depth) to make room for this one's
         * header and a few tokens that each depth can move.
         */
        struct seq_item *p = &s->it[s->nr - 1];
        long head = prompt_block_cost(b, c, "", 0, err), plen;
        if (head < 0)
            return -1;
        *sum -= p->cost;
        plen = cut_chunk(b, p->c, budget - *sum - head - 16, err);
        if (plen < 0)
            return -1;
        if (plen == 0) {
            s->nr--;
            s->filler--;
        } else {
            p->len = (size_t)plen;
            p->cost = prompt_block_cost(b, p->c, p->c->text, p->len, err);
            if (p->cost < 0)
                return -1;
            *sum += p->cost;
        }
        len = cut_chunk(b, c, budget - *sum, err);
    }
    return len;
}

/* The error when the distractor material runs out before the budget. Returns -1. */
static int material_short(const struct prompt_builder *b, const struct seq *s,
                          const struct qfill *f, struct strbuf *err)
{
    const struct question *q = s->key.q;
    strbuf_addf(err,
                "question %s: not enough distractor material for %ld tokens (%zu hard "
                "negative%s, %zu eligible filler chunk%s%s)",
                q->id, s->key.target, q->distractors_nr, q->distractors_nr == 1 ? "" : "s", f->nr,
                f->nr == 1 ? "" : "s", b->hay ? "" : "; no haystack given");
    return -1;
}

/*
 * Select distractors for budget tokens (estimated from cached block costs).
 * Hard negatives first (skipped when they do not fit), then filler; the
 * first filler chunk that does not fit strictly below the budget becomes the
 * cut item: its longest prefix whose block fits the rest. Returns 0, or -1
 * (err) when the material runs out or counting fails.
 */
static int select_items(struct prompt_builder *b, struct seq *s, const struct qfill *f, long budget,
                        struct strbuf *err)
{
    size_t i, alloc = 0, skipped = 0;
    long sum;
    int want_cut = 0; /* a chunk filled the budget whole: cut the next one */

    s->nr = s->hard = s->filler = 0;
    s->cut = -1;
    sum = select_hard(b, s, f, budget, &alloc, err);
    if (sum < 0)
        return -1;
    for (i = 0; i < f->nr && (sum < budget || want_cut); i++) {
        const struct chunk *c = prompt_fill_at(b, f, i);
        long cost, len, t;
        size_t mmin, mmax, mval;
        int k, avoided = 0, member;
        for (k = 0; k < s->navoid; k++)
            avoided |= s->avoid[k] == c;
        if (avoided)
            continue;
        cost = prompt_chunk_cost(b, c, err);
        if (cost < 0)
            return -1;
        ALLOC_GROW(s->it, s->nr + 1, alloc);
        /*
         * Whole while it fits strictly below the budget, so that a chunk is
         * left to cut: each depth fine-tunes the cut to its exact count.
         */
        if (sum + cost < budget) {
            s->it[s->nr++] = (struct seq_item){c, c->text_len, cost, 0};
            s->filler++;
            sum += cost;
            continue;
        }
        /*
         * A chunk of a few words (a one-line fact) is not cut in half: a later
         * chunk that fits whole is looked for instead. A key-value pair is cut
         * inside its value (prompt_member_span()).
         */
        member = prompt_member_span(c, &mmin, &mmax, &mval);
        if (!member && word_count(c->text, c->text_len) < MIN_TRIM_WORDS) {
            if (sum + cost == budget) {
                s->it[s->nr++] = (struct seq_item){c, c->text_len, cost, 0};
                s->filler++;
                sum += cost;
                break;
            }
            if (++skipped > 64)
                break;
            continue;
        }
        len = cut_length(b, s, c, member, budget, &sum, err);
        if (len < 0)
            return -1;
        if ((size_t)len == c->text_len &&
            !(s->nr > s->hard && s->it[s->nr - 1].len < s->it[s->nr - 1].c->text_len)) {
            /* whole: a cut item must be able to grow too, so cut the next chunk */
            s->it[s->nr++] = (struct seq_item){c, c->text_len, cost, 0};
            s->filler++;
            sum += cost;
            want_cut = 1;
            continue;
        }
        if (len > 0) {
            t = prompt_block_cost(b, c, c->text, (size_t)len, err);
            if (t < 0)
                return -1;
            s->cut = (long)s->nr;
            s->it[s->nr++] = (struct seq_item){c, (size_t)len, t, 0};
            s->filler++;
            sum += t;
        }
        break;
    }
    if (s->cut < 0 && sum < budget && (i < f->nr || skipped)) {
        long got = pack_whole(b, s, f, i, budget - sum, err);
        if (got < 0)
            return -1;
        sum += got;
    }
    if (i >= f->nr && budget - sum > budget / 200 + 16)
        return material_short(b, s, f, err);
    return 0;
}

/* Tokens a question-slot variant's whole last filler is shortened by, so its cut can grow. */
#define CUT_SLACK 16

/* Tokens left free below the target when no chunk can be cut (one-line facts). */
#define NOCUT_SLACK 1

/*
 * A cut member (a key-value pair) can move by a few tokens only, its value's:
 * its selection must land within two tokens of the count.
 */
static int cut_is_member(const struct seq *s)
{
    size_t min, max, value;
    return s->cut >= 0 && prompt_member_span(s->it[s->cut].c, &min, &max, &value);
}

/* What a selection for request r made now is for (the builder's state with r's members). */
static struct seq_key seq_key_of(const struct prompt_builder *b, const struct prompt_request *r,
                                 unsigned mode)
{
    return (struct seq_key){.q = r->q,
                            .user = b->user,
                            .mode = mode,
                            .needles = b->needles,
                            .target = r->target_len,
                            .seed = r->seed,
                            .chat = r->chat,
                            .overhead = r->overhead,
                            .layout = b->layout,
                            .turn_overhead = b->turn_overhead};
}

static int seq_key_eq(const struct seq_key *x, const struct seq_key *y)
{
    return x->q == y->q && x->user == y->user && x->mode == y->mode && x->needles == y->needles &&
           x->target == y->target && x->seed == y->seed && x->chat == y->chat &&
           x->overhead == y->overhead && x->layout == y->layout &&
           x->turn_overhead == y->turn_overhead;
}

/* The cached selection made for key, or NULL with *victim the least recently used. */
static struct seq *find_seq(struct prompt_builder *b, const struct seq_key *key,
                            struct seq **victim)
{
    *victim = &b->seqs[0];
    for (size_t i = 0; i < SEQ_CACHE; i++) {
        struct seq *c = &b->seqs[i];
        if (seq_key_eq(&c->key, key)) {
            c->last_used = b->tick;
            return c;
        }
        if (c->last_used < (*victim)->last_used)
            *victim = c;
    }
    return NULL;
}

/*
 * A question-slot variant takes the selection made without any question line, so every
 * --question-at value has the same distractors in the same order; each shortens the cut
 * item by its question's tokens. A layout other than documents takes the documents
 * layout's selection the same way (layout.h), its turns' tokens taken off its fillers. Returns the
 * base selection and sets *victim to the least recently used cache slot other than the base's.
 */
static struct seq *variant_base(struct prompt_builder *b, const struct prompt_request *r,
                                struct built_prompt *tmp, struct seq **victim, struct strbuf *err)
{
    const char *user = b->user;
    int layout = b->layout;
    long turn_overhead = b->turn_overhead;
    const char *turn_suffix = b->turn_suffix;
    struct seq *base;

    if (b->user != b->tpl->user) { /* a question slot variant: the selection without any */
        if (!b->user_variant[QA_NONE]) {
            struct strbuf sb = STRBUF_INIT;
            int ns, ne;
            prompt_make_user_variant(b->tpl->user, QA_NONE, &sb, &ns, &ne);
            b->user_variant[QA_NONE] = strbuf_detach(&sb, NULL);
        }
        b->user = b->user_variant[QA_NONE];
    }
    /* a layout: the documents layout's selection (layouts compare paired) */
    b->layout = PROMPT_LAYOUT_DOCUMENTS;
    b->turn_overhead = 0;
    b->turn_suffix = "";
    base = prompt_get_seq(b, r, tmp, err);
    b->user = user;
    b->layout = layout;
    b->turn_overhead = turn_overhead;
    b->turn_suffix = turn_suffix;
    if (!base)
        return NULL;
    *victim = base == &b->seqs[0] ? &b->seqs[1] : &b->seqs[0];
    for (size_t i = 0; i < SEQ_CACHE; i++)
        if (&b->seqs[i] != base && b->seqs[i].last_used < (*victim)->last_used)
            *victim = &b->seqs[i];
    return base;
}

/* The exact count of s rendered as the whole request (gold first, selection order); -1 on error. */
static long count_whole(struct prompt_builder *b, const struct seq *s,
                        const struct prompt_request *r, struct built_prompt *tmp,
                        struct strbuf *err)
{
    prompt_render_request(b, s, NULL, 0, SIZE_MAX, tmp);
    return prompt_count_request(b, tmp, r->chat, err);
}

/*
 * The fixed part (template, question and gold, no distractors) into s->fixed and the
 * tokens before the documents into s->pre_docs (each trial's gold offset comes from
 * cached counts after them). -1 when the target cannot hold the fixed part.
 */
static int seq_fixed(struct prompt_builder *b, struct seq *s, const struct prompt_request *r,
                     long content, struct built_prompt *tmp, struct strbuf *err)
{
    size_t docs_at, sys;
    long fixed, a = 0;

    fixed = count_whole(b, s, r, tmp, err);
    if (fixed < 0)
        return -1;
    if (fixed > content) {
        if (r->overhead)
            strbuf_addf(err,
                        "question %s: target length %ld is below the size of the template, "
                        "question and gold chunk (%ld tokens) plus the chat template's %ld",
                        r->q->id, r->target_len, fixed, r->overhead);
        else
            strbuf_addf(err,
                        "question %s: target length %ld is below the size of the template, "
                        "question and gold chunk (%ld tokens)",
                        r->q->id, r->target_len, fixed);
        return -1;
    }
    s->fixed = fixed;
    if (b->layout != PROMPT_LAYOUT_DOCUMENTS) {
        /* the turns come right after the system message */
        s->pre_docs =
            tmp->system.len ? prompt_count_text(b, tmp->system.buf, tmp->system.len, err) : 0;
        return s->pre_docs < 0 ? -1 : 0;
    }
    docs_at = tmp->gold_start;
    sys = r->chat ? 0 : tmp->text.len - tmp->user.len;
    if (r->chat && tmp->system.len &&
        (a = prompt_count_text(b, tmp->system.buf, tmp->system.len, err)) < 0)
        return -1;
    s->pre_docs = prompt_count_text(b, r->chat ? tmp->user.buf : tmp->text.buf, docs_at + sys, err);
    if (s->pre_docs < 0)
        return -1;
    s->pre_docs += a;
    return 0;
}

/*
 * 1 when it, shortened by deficit tokens, keeps CUT_SLACK tokens of text past its block's
 * header (a cut there can move both ways), 0 when not, -1 (err).
 */
static int keeps_room(struct prompt_builder *b, const struct seq_item *it, long deficit,
                      struct strbuf *err)
{
    long head = prompt_block_cost(b, it->c, "", 0, err);
    if (head < 0)
        return -1;
    return it->cost - deficit >= head + CUT_SLACK;
}

/*
 * A variant's selection: the base's items in the base's order; the extra tokens of this
 * variant's question lines (plus CUT_SLACK, for the cut item to grow back into) come off
 * the last whole fillers, the cut item kept. A layout's (layout.h): what the base's chunks
 * cost as turns beyond the content, counted on the whole request (again until it fits),
 * comes off the cut item when it keeps room to move both ways, else off the last fillers
 * (a dropped chunk takes its turn's share of the server's tokens along).
 */
static int seq_from_base(struct prompt_builder *b, struct seq *s, const struct seq *base,
                         const struct prompt_request *r, long content, struct built_prompt *tmp,
                         struct strbuf *err)
{
    long deficit = s->fixed - base->fixed + CUT_SLACK, extra = 0;
    size_t at, nr = base->nr;
    int layout = prompt_layout_in_turns(b->layout);

    if (layout) /* each unit's share of the server's per-pair tokens */
        extra = (long)((double)b->turn_overhead * prompt_layouts[b->layout].pairs_per_unit);

    s->it = xmalloc(st_mult(nr ? nr : 1, sizeof(*s->it)));
    memcpy(s->it, base->it, nr * sizeof(*s->it));
    s->omap = xmalloc(st_mult(nr ? nr : 1, sizeof(*s->omap)));
    for (at = 0; at < nr; at++)
        s->omap[at] = at;
    s->order_nr = nr;
    s->nr = nr;
    s->cut = base->cut;
    s->hard = base->hard;
    s->filler = base->filler;
    for (int pass = 0; pass < (layout ? 8 : 1); pass++) {
        if (layout) {
            /* a layout: count the whole request (block costs are not additive) until it fits */
            long real = count_whole(b, s, r, tmp, err);
            if (real < 0)
                return -1;
            deficit = real - content;
            if (deficit <= 0)
                break;
        }
        at = s->nr;
        while (deficit > 0 && at > s->hard) {
            struct seq_item *it;
            long len;
            if (layout && s->cut >= 0 && keeps_room(b, &s->it[s->cut], deficit, err) > 0) {
                /*
                 * The cut item alone gives the tokens back when it can (its end then moves
                 * both ways to the exact count), so no other chunk changes.
                 */
                it = &s->it[s->cut];
                len = cut_chunk(b, it->c, it->cost - deficit, err);
                if (len < 0)
                    return -1;
                if (len > 0) {
                    it->len = (size_t)len;
                    it->cost = prompt_block_cost(b, it->c, it->c->text, it->len, err);
                    if (it->cost < 0)
                        return -1;
                    break;
                }
            }
            it = &s->it[--at];
            if ((long)at == s->cut)
                continue;
            if (layout) {
                /* shortened only when the rest can still move both ways, else dropped */
                int room = keeps_room(b, it, deficit, err);
                if (room < 0)
                    return -1;
                len = room ? cut_chunk(b, it->c, it->cost - deficit, err) : 0;
            } else {
                len = it->cost <= deficit ? 0 : cut_chunk(b, it->c, it->cost - deficit, err);
            }
            if (len < 0)
                return -1;
            if (len == 0) { /* dropped: later items move down one */
                size_t m;
                deficit -= it->cost + extra;
                memmove(&s->it[at], &s->it[at + 1], (s->nr - at - 1) * sizeof(*s->it));
                for (m = 0; m < nr; m++)
                    if (s->omap[m] == at)
                        s->omap[m] = SIZE_MAX;
                    else if (s->omap[m] != SIZE_MAX && s->omap[m] > at)
                        s->omap[m]--;
                if (s->cut > (long)at)
                    s->cut--;
                s->nr--;
                s->filler--;
                continue;
            }
            it->len = (size_t)len;
            it->cost = prompt_block_cost(b, it->c, it->c->text, it->len, err);
            if (it->cost < 0)
                return -1;
            deficit = 0;
            /* a layout's shortened chunk is the one each depth moves (the old cut is small) */
            if (s->cut < 0 || layout)
                s->cut = (long)at;
        }
    }
    if (layout) {
        /* the fillers ran out before the turns' tokens did (hard negatives only are left) */
        long real = count_whole(b, s, r, tmp, err);
        if (real < 0)
            return -1;
        if (real > content)
            return 1;
    }
    return 0;
}

/*
 * The most tokens the cut item is left to grow by: the tolerance grows with the length, a
 * chunk does not (at 1M, content / 1000 is 1,049 tokens, several chunks).
 */
#define CONVERGE_MAX 48

/*
 * Converge on the exact count: cached block costs are not exactly additive (token merges
 * at boundaries, document numbers), so count the whole request (gold first, selection
 * order) and correct the budget. Each build then fine-tunes the cut item to its own exact
 * count.
 */
static int seq_converge(struct prompt_builder *b, struct seq *s, struct qfill *f,
                        const struct prompt_request *r, long content, struct built_prompt *tmp,
                        struct strbuf *err)
{
    long budget = content - s->fixed, real, best_diff = -1, best_budget = 0;
    long lo = LONG_MIN / 2, hi = LONG_MAX / 2; /* budgets known short, known over */

    for (int iter = 0; iter < 8; iter++) {
        long diff;
        if (select_items(b, s, f, budget, err) < 0)
            return -1;
        real = count_whole(b, s, r, tmp, err);
        if (real < 0)
            return -1;
        /*
         * Without a cut item no build can correct its count, so leave room
         * for the few tokens moving the gold changes.
         */
        diff = content - real - (s->cut < 0 ? NOCUT_SLACK : 0);
        if (diff <= 0 && diff > -NOCUT_SLACK && s->cut < 0)
            diff = 0;
        if ((best_diff < 0 || labs(diff) < best_diff) && diff >= -NOCUT_SLACK) {
            best_diff = labs(diff);
            best_budget = budget;
        }
        if (diff >= 0 && diff <= (cut_is_member(s)                    ? 2
                                  : content / 1000 + 1 < CONVERGE_MAX ? content / 1000 + 1
                                                                      : CONVERGE_MAX)) {
            long exact = real;
            /*
             * Some cut points cannot give the exact count (", " + "\n\n" is
             * one token fewer than ", 2" + "\n\n" less one): cut another chunk.
             */
            if (s->cut < 0 || s->navoid >= CUT_TRIES)
                return 0;
            if (prompt_fit_exact(b, s, NULL, 0, content, r->chat, tmp, &exact, err) < 0)
                return -1;
            if (exact == content)
                return 0;
            s->avoid[s->navoid++] = s->it[s->cut].c;
            continue;
        }
        /*
         * Step by the difference, but inside the budgets already seen short and over: a
         * whole chunk (and a layout's turn with it) can flip in and out at one step.
         */
        if (diff > 0 && budget > lo)
            lo = budget;
        else if (diff < 0 && budget < hi)
            hi = budget;
        budget += diff ? diff : -1;
        if (budget >= hi || budget <= lo)
            budget = lo + (hi - lo) / 2;
        if (budget == lo)
            break;
    }
    return select_items(b, s, f, best_budget, err) < 0 ? -1 : 0;
}

/* Forget a selection's items (its key and fixed part stay) to select them again. */
static void seq_drop_items(struct seq *s)
{
    free(s->it);
    free(s->omap);
    s->it = NULL;
    s->omap = NULL;
    s->nr = s->order_nr = s->hard = s->filler = 0;
    s->cut = -1;
}

/*
 * The distractor selection of a request (question, length, seed, rendering, question
 * slots), from the builder's cache or made now; NULL with err set.
 */
struct seq *prompt_get_seq(struct prompt_builder *b, const struct prompt_request *r,
                           struct built_prompt *tmp, struct strbuf *err)
{
    struct seq *s, *victim, *base = NULL;
    struct seq_key key;
    long content = r->target_len - r->overhead;
    unsigned mode;
    struct qfill *f;
    int rc;

    if (prompt_request_fill_mode(r, &mode, err) < 0)
        return NULL;
    b->tick++;
    key = seq_key_of(b, r, mode);
    s = find_seq(b, &key, &victim);
    if (s)
        return s;
    if ((b->user != b->tpl->user && b->user != b->user_variant[QA_NONE]) ||
        b->layout != PROMPT_LAYOUT_DOCUMENTS) {
        base = variant_base(b, r, tmp, &victim, err);
        if (!base)
            return NULL;
    }
    s = victim;
    prompt_seq_clear(s);
    s->key = key;
    s->cut = -1;
    s->last_used = b->tick;

    f = prompt_get_fill(b, r->q, r->seed, mode);
    s->filler_dropped = f->dropped;
    rc = seq_fixed(b, s, r, content, tmp, err);
    if (!rc && base)
        rc = seq_from_base(b, s, base, r, content, tmp, err);
    if (rc > 0) {
        /*
         * A layout whose turns cost more than the base's fillers can give back (a key-value
         * template: hard negatives fill most of the target, each one now a turn): its own
         * selection, so the request still counts the target and never more.
         */
        seq_drop_items(s);
        rc = 0;
        base = NULL;
    }
    if (!rc && !base)
        rc = seq_converge(b, s, f, r, content, tmp, err);
    if (rc < 0) {
        prompt_seq_clear(s);
        return NULL;
    }
    return s;
}

/* Bytes of context either side of the cut that can merge with it into one token. */
#define CUT_WINDOW 96

/* Render with the cut at len and count; keep the best count at most content. */
static int try_cut(struct prompt_builder *b, const struct seq *s, const size_t *order, size_t k,
                   size_t len, int chat, long content, struct built_prompt *out, long *real,
                   long *best, size_t *best_len, struct strbuf *err)
{
    prompt_render_request(b, s, order, k, len, out);
    *real = prompt_count_request(b, out, chat, err);
    if (*real < 0)
        return -1;
    if (*real <= content && *real > *best) {
        *best = *real;
        *best_len = len;
    }
    return 0;
}

/*
 * Give this build its exact count: move the cut item's end so that the
 * whole request counts content tokens (never more), counting a window
 * around the cut while searching and the whole request to confirm.
 * *real holds the exact count of out on entry and on return.
 */
int prompt_fit_exact(struct prompt_builder *b, const struct seq *s, const size_t *order, size_t k,
                     long content, int chat, struct built_prompt *out, long *real,
                     struct strbuf *err)
{
    const struct seq_item *it = s->cut >= 0 ? &s->it[s->cut] : NULL;
    size_t len = it ? out->cut_end - out->cut_start : 0, best_len = len, tried[4], cut_min = 0,
           cut_max = 0, cut_value;
    long best = *real <= content ? *real : -1;
    int iter, ntried = 0;

    if (it)
        prompt_member_span(it->c, &cut_min, &cut_max,
                           &cut_value); /* a member: any point after '"' */
    for (iter = 0; it && *real != content && iter < 4; iter++) {
        const struct strbuf *sb = out->layout != PROMPT_LAYOUT_DOCUMENTS ? &out->turns
                                  : chat                                 ? &out->user
                                                                         : &out->text;
        size_t off =
            chat || out->layout != PROMPT_LAYOUT_DOCUMENTS ? 0 : out->text.len - out->user.len;
        size_t cs = off + out->cut_start, ce = off + out->cut_end;
        size_t ws = utf8_char_start(sb->buf, cs > CUT_WINDOW ? cs - CUT_WINDOW : 0);
        size_t we = ce + CUT_WINDOW < sb->len ? utf8_char_start(sb->buf, ce + CUT_WINDOW) : sb->len;
        long cw, nl;
        int j, seen = 0;
        strbuf_reset(&b->scratch);
        strbuf_add(&b->scratch, sb->buf + ws, we - ws);
        cw = prompt_count_text(b, b->scratch.buf, b->scratch.len, err);
        if (cw < 0)
            return -1;
        {
            /* the window's pieces outlive renders: copy them */
            struct strbuf pre = STRBUF_INIT, post = STRBUF_INIT;
            strbuf_add(&pre, sb->buf + ws, cs - ws);
            /* the post without the current cut's tail (window_count() adds each one's) */
            size_t tl = prompt_cut_tail(it->c, len) ? strlen(prompt_cut_tail(it->c, len)) : 0;
            strbuf_add(&post, sb->buf + ce + tl, we - ce - tl);
            nl = longest_prefix(b, it->c, pre.buf, pre.len, it->c->text, cut_max, cut_min, post.buf,
                                post.len, cw + content - *real, err);
            strbuf_release(&pre);
            strbuf_release(&post);
        }
        if (nl < 0)
            return -1;
        for (j = 0; j < ntried; j++)
            seen |= tried[j] == (size_t)nl;
        if (seen || (size_t)nl == len || nl == 0)
            break; /* no progress (or an empty document): keep the best so far */
        tried[ntried++] = (size_t)nl;
        len = (size_t)nl;
        if (try_cut(b, s, order, k, len, chat, content, out, real, &best, &best_len, err) < 0)
            return -1;
    }
    if (it && *real != content) {
        /*
         * The window disagreed with the whole request (a merge reaching past
         * it): try the character boundaries next to the cut, whole counts.
         */
        const char *t = it->c->text;
        size_t tl = cut_max, cand = len;
        int step, dir = *real < content ? 1 : -1;
        for (step = 0; step < EXACT_SCAN && *real != content; step++) {
            if (dir > 0) {
                if (cand >= tl)
                    break;
                cand++;
                while (cand < tl && ((unsigned char)t[cand] & 0xC0) == 0x80)
                    cand++;
            } else {
                if (cand <= 1 || cand <= cut_min)
                    break;
                cand = utf8_char_start(t, cand - 1);
            }
            len = cand;
            if (try_cut(b, s, order, k, len, chat, content, out, real, &best, &best_len, err) < 0)
                return -1;
        }
    }
    if (it && best >= 0 && best_len != len) {
        prompt_render_request(b, s, order, k, best_len, out);
        *real = prompt_count_request(b, out, chat, err);
        if (*real < 0)
            return -1;
    }
    return 0;
}

/* Unselected filler chunks looked at for one whose block is as long as the gold's. */
#define ABSENT_CANDIDATES 64

int prompt_absent_subs(struct prompt_builder *b, const struct seq *s,
                       const struct prompt_request *r, struct strbuf *err)
{
    unsigned mode;
    const struct qfill *f;
    size_t g, ng = b->needles ? b->needles : r->q->gold_nr, j;
    b->absent_nr = 0;
    if (prompt_request_fill_mode(r, &mode, err) < 0)
        return -1;
    f = prompt_get_fill(b, r->q, r->seed, mode);
    for (g = 0; g < ng && g < PROMPT_MAX_NEEDLES; g++) {
        long want = prompt_chunk_cost(b, &r->q->gold[g], err), len = -1;
        const struct chunk *first = NULL, *pick = NULL;
        size_t seen = 0;
        if (want < 0)
            return -1;
        for (j = 0; j < f->nr && seen < ABSENT_CANDIDATES && !pick; j++) {
            const struct chunk *c = prompt_fill_at(b, f, j);
            long cost;
            size_t k;
            int used = selected(s, c);
            for (k = 0; k < g && !used; k++)
                used = b->absent_sub[k] == c;
            if (used)
                continue;
            seen++;
            if (!first)
                first = c;
            cost = prompt_chunk_cost(b, c, err);
            if (cost < 0)
                return -1;
            if (cost >= want) {
                len = cost == want ? (long)c->text_len : cut_chunk(b, c, want, err);
                if (len < 0)
                    return -1;
                if (len > 0)
                    pick = c;
            }
        }
        if (!pick && first) {
            pick = first;
            len = (long)first->text_len;
        }
        if (!pick) {
            strbuf_addf(err,
                        "question %s: no distractor left to stand in for the gold at %ld tokens "
                        "(--absent; %zu eligible filler chunks, all in the prompt)",
                        r->q->id, r->target_len, f->nr);
            return -1;
        }
        b->absent_sub[g] = pick;
        b->absent_len[g] = (size_t)len;
        b->absent_nr = g + 1;
    }
    return 0;
}

/*
 * The order experiment (dipmap order): the prompts of one retrieval-ordering
 * trial, the top k retrieved chunks kept within a token budget and rendered in
 * a policy's order. Owns the kept-set memo of the builder.
 */
#define _GNU_SOURCE
#include "prompt/prompt.h"
#include "prompt/prompt-int.h"

#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/axes.h"
#include "prompt/bm25.h"
#include "prompt/dataset.h"
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

/* ---- the order experiment ---- */

/* The chunks kept for one (question, k, budget, grouping): the same for every policy. */
struct pack_memo {
    struct order_request r; /* the request they were kept for (its policy aside) */
    const char *user;       /* the [user] variant (question-at) the counts were made with */
    int *keep;              /* per rank, of the top k */
};

/* Whether m's chunks are the ones r would keep with [user] variant user: any policy. */
static int pack_memo_for(const struct pack_memo *m, const struct order_request *r, const char *user)
{
    return m->r.q == r->q && m->user == user && m->r.k == r->k && m->r.budget == r->budget &&
           m->r.group_by_doc == r->group_by_doc && m->r.overhead == r->overhead &&
           m->r.chat == r->chat;
}

/* Kept sets remembered per builder: the policies of one question are built one after another. */
#define PACK_MEMO_MAX 64

void prompt_pack_memo_clear(struct prompt_builder *b)
{
    size_t i;
    for (i = 0; i < b->packs_nr; i++)
        free(b->packs[i].keep);
    free(b->packs);
    b->packs = NULL;
    b->packs_nr = b->packs_alloc = 0;
}

/*
 * Render the documents docs[0..n) (indexes into q->retrieved) in that order
 * and count the whole request exactly; the gold block is the first gold chunk.
 */
static int render_docs(struct prompt_builder *b, const struct order_request *r, const size_t *docs,
                       size_t n, struct built_prompt *out, struct strbuf *err)
{
    const struct prompt_template *t = b->tpl;
    const struct question *q = r->q;
    size_t i, docs_at = 0, gold_s = 0, gold_e = 0, gi = n;
    long before = 0, total = 0, real, pre;

    strbuf_reset(&b->docs);
    for (i = 0; i < n; i++) {
        const struct retrieved_chunk *rc = &q->retrieved[docs[i]];
        struct chunk_fields d = {(long)i + 1, rc->c.title,    rc->c.text,
                                 rc->c.id,    rc->c.text_len, NULL};
        long cost = prompt_chunk_cost(b, &rc->c, err);
        if (cost < 0)
            return -1;
        if (i)
            strbuf_addstr(&b->docs, t->separator);
        if (rc->gold && gi == n) {
            gi = i;
            gold_s = b->docs.len;
        }
        prompt_render(&b->docs, prompt_template_document(t, d.title), "", NULL, NULL, &d);
        if (gi == i)
            gold_e = b->docs.len;
        if (!rc->gold) {
            total += cost;
            if (gi == n)
                before += cost;
        }
    }
    docs_at = prompt_render_messages(b, q, out);
    real = prompt_count_request(b, out, r->chat, err);
    if (real < 0)
        return -1;
    out->overhead = r->overhead;
    out->realized_len = real + r->overhead;
    out->docs_nr = n;
    out->gold_index = gi;
    out->cut_start = out->cut_end = 0;
    out->hard_negatives = out->filler = out->filler_dropped = 0;
    out->gold_bm25_rank = out->bm25_docs = 0;
    if (gi < n) {
        out->gold_start = docs_at + gold_s;
        out->gold_end = docs_at + gold_e;
        /* the tokens before the gold block, counted as the model sees them */
        pre = prompt_count_text(b, out->user.buf, out->gold_start, err);
        if (pre < 0)
            return -1;
        if (r->chat && out->system.len) {
            long sys = prompt_count_text(b, out->system.buf, out->system.len, err);
            if (sys < 0)
                return -1;
            pre += sys;
        } else if (!r->chat && out->system.len) {
            pre = prompt_count_text(b, out->text.buf, out->system.len + 2 + out->gold_start, err);
            if (pre < 0)
                return -1;
        }
        out->gold_offset = pre;
        out->realized_depth = total > 0 ? (double)before / (double)total : 0.0;
    } else {
        out->gold_start = out->gold_end = 0;
        out->gold_offset = -1;
        out->realized_depth = -1.0;
    }
    prompt_hash_request(r->chat, out);
    return 0;
}

/* The kept chunks (ranks, ascending) arranged by policy into docs (indexes into q->retrieved). */
static size_t arrange_kept(const struct order_request *r, const int *keep, size_t top, int policy,
                           size_t *docs)
{
    struct order_item *it = xcalloc(top ? top : 1, sizeof(*it));
    size_t *pos = xcalloc(top ? top : 1, sizeof(*pos));
    size_t *idx = xcalloc(top ? top : 1, sizeof(*idx));
    size_t i, n = 0;
    for (i = 0; i < top; i++) {
        if (!keep[i])
            continue;
        it[n].rank = (int)i + 1;
        it[n].source = r->q->retrieved[i].source;
        it[n].doc = r->q->retrieved[i].doc;
        idx[n++] = i;
    }
    ordering_arrange((enum ordering)policy, it, n, r->group_by_doc, pos);
    for (i = 0; i < n; i++)
        docs[i] = idx[pos[i]];
    free(it);
    free(pos);
    free(idx);
    return n;
}

/*
 * The chunks of (q, k, budget): the top k, packed into the budget by rank,
 * then checked exactly under every policy (the lowest-ranked kept chunk goes
 * while any policy's request is over).
 */
static const int *kept_chunks(struct prompt_builder *b, const struct order_request *r, size_t top,
                              struct built_prompt *tmp, struct strbuf *err)
{
    struct pack_memo *m = NULL;
    long *cost, fixed, room;
    size_t i, *docs;
    int o, over;

    for (i = 0; i < b->packs_nr; i++)
        if (pack_memo_for(&b->packs[i], r, b->user))
            return b->packs[i].keep;
    if (b->packs_nr == PACK_MEMO_MAX)
        prompt_pack_memo_clear(b);
    ALLOC_GROW(b->packs, b->packs_nr + 1, b->packs_alloc);
    m = &b->packs[b->packs_nr];
    memset(m, 0, sizeof(*m));
    m->keep = xcalloc(top ? top : 1, sizeof(*m->keep));
    cost = xcalloc(top ? top : 1, sizeof(*cost));
    docs = xcalloc(top ? top : 1, sizeof(*docs));
    for (i = 0; i < top; i++)
        m->keep[i] = 1;
    if (r->budget > 0) {
        if (render_docs(b, r, docs, 0, tmp, err) < 0)
            goto fail;
        fixed = tmp->realized_len;
        room = r->budget - fixed;
        for (i = 0; i < top; i++) {
            cost[i] = prompt_chunk_cost(b, &r->q->retrieved[i].c, err);
            if (cost[i] < 0)
                goto fail;
        }
        ordering_pack(cost, top, room, m->keep);
        do {
            size_t n = 0;
            over = 0;
            for (o = 0; o < ORDER__COUNT && !over; o++) {
                n = arrange_kept(r, m->keep, top, o, docs);
                if (!n)
                    break;
                if (render_docs(b, r, docs, n, tmp, err) < 0)
                    goto fail;
                over = tmp->realized_len > r->budget;
            }
            if (!n) {
                strbuf_addf(err,
                            "--budget %ld holds no chunk of question %s: the template and "
                            "question take %ld tokens, its best chunk %ld more",
                            r->budget, r->q->id, fixed, top ? cost[0] : 0);
                goto fail;
            }
            if (over)
                for (i = top; i-- > 0;)
                    if (m->keep[i]) {
                        m->keep[i] = 0;
                        break;
                    }
        } while (over);
    }
    m->r = *r;
    m->user = b->user;
    b->packs_nr++;
    free(cost);
    free(docs);
    return m->keep;
fail:
    free(m->keep);
    free(cost);
    free(docs);
    return NULL;
}

int prompt_build_order(struct prompt_builder *b, const struct order_request *r,
                       struct built_prompt *out, struct strbuf *err)
{
    const struct question *q = r->q;
    size_t top, n, *docs;
    const int *keep;
    int rc;

    if (!q->retrieved_nr) {
        strbuf_addf(err, "question %s has no retrieved chunks", q->id);
        return -1;
    }
    if (r->k < 1 || r->policy < 0 || r->policy >= ORDER__COUNT) {
        strbuf_addf(err, "k %d or policy %d out of range", r->k, r->policy);
        return -1;
    }
    b->user = b->tpl->user; /* the template as is (question-slot axes are depth runs') */
    top = (size_t)r->k < q->retrieved_nr ? (size_t)r->k : q->retrieved_nr;
    keep = kept_chunks(b, r, top, out, err);
    if (!keep)
        return -1;
    docs = xcalloc(top, sizeof(*docs));
    n = arrange_kept(r, keep, top, r->policy, docs);
    rc = render_docs(b, r, docs, n, out, err);
    free(docs);
    return rc;
}

/* An order trial (its axes policy, k and group; its length the budget) as prompt_build_order(). */
int prompt_build_order_trial(struct prompt_builder *b, const struct prompt_request *r,
                             struct built_prompt *out, struct strbuf *err)
{
    struct order_request o;
    struct strbuf v = STRBUF_INIT;
    enum ordering policy;
    long k = 0;
    int rc = -1;

    memset(&o, 0, sizeof(o));
    if (!axes_get(r->axes, "policy", &v) || ordering_parse(v.buf, &policy) < 0) {
        strbuf_addf(err, "unknown ordering policy \"%s\"", v.buf);
        goto out;
    }
    if (!axes_get(r->axes, "k", &v) || parse_long_range(v.buf, 1, 10000, &k)) {
        strbuf_addf(err, "the order trial's k \"%s\" is not a chunk count", v.buf);
        goto out;
    }
    o.q = r->q;
    o.policy = policy;
    o.k = (int)k;
    o.group_by_doc = axes_has(r->axes, "group", "doc");
    o.budget = r->target_len;
    o.overhead = r->overhead;
    o.chat = r->chat;
    rc = prompt_build_order(b, &o, out, err);
out:
    strbuf_release(&v);
    return rc;
}

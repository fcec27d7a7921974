/*
 * The Hugging Face pre-tokenizers (ByteLevel, Split with every behavior,
 * Metaspace, Digits, Punctuation, Whitespace, WhitespaceSplit, Sequence),
 * run depth-first, piece by piece, so nothing is materialised.
 */
#define _GNU_SOURCE
#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/strbuf.h"
#include "tokenizer/tokenizer-int.h"
#include "tokenizer/tokenizer_hf-int.h"
#include "tokenizer/tokenizer.h"
#include "base/unicode.h"
#include "base/xalloc.h"

#include "base/banned.h"

/* ------------------------------------------------------------ pre-tokenizers */

/* One Split behavior over a stream of (piece, is_match), emitting pieces to the next level. */
struct splitter {
    struct pctx *c;
    size_t level;
    int behavior, first;
    const char *s;
    size_t pb, pe;
    int pending, pmatch, prev_match;
};

static void sp_emit(struct splitter *sp, size_t b, size_t e)
{
    if (e > b)
        hf_pretokenize(sp->c, sp->level + 1, sp->s + b, e - b, sp->first && b == 0);
}

static void sp_flush(struct splitter *sp)
{
    if (sp->pending)
        sp_emit(sp, sp->pb, sp->pe);
    sp->pending = 0;
}

static void sp_set(struct splitter *sp, size_t b, size_t e, int match)
{
    sp->pending = 1;
    sp->pb = b;
    sp->pe = e;
    sp->pmatch = match;
}

static void sp_feed(struct splitter *sp, size_t b, size_t e, int match)
{
    switch (sp->behavior) {
    case B_REMOVED:
        if (!match)
            sp_emit(sp, b, e);
        break;
    case B_ISOLATED:
        sp_emit(sp, b, e);
        break;
    case B_CONTIGUOUS:
        if (sp->pending && sp->pmatch == match) {
            sp->pe = e;
        } else {
            sp_flush(sp);
            sp_set(sp, b, e, match);
        }
        break;
    case B_MERGED_PREV:
        if (match && !sp->prev_match && sp->pending) {
            sp->pe = e;
        } else {
            sp_flush(sp);
            sp_set(sp, b, e, match);
        }
        sp->prev_match = match;
        break;
    case B_MERGED_NEXT:
        if (sp->pending && sp->pmatch && !match) {
            sp->pe = e;
            sp_flush(sp);
        } else {
            sp_flush(sp);
            if (match)
                sp_set(sp, b, e, 1);
            else
                sp_emit(sp, b, e);
        }
        break;
    }
}

/* Split s by regex or literal (HF find_matches) with the given behavior. */
static void split_run(struct pctx *c, size_t level, const struct hf_pretok *p, const pcre2_code *re,
                      int jit, const char *lit, size_t lit_len, int behavior, int invert,
                      const char *s, size_t n, int first)
{
    struct splitter sp;
    size_t start = 0, prev = 0;
    memset(&sp, 0, sizeof(sp));
    sp.c = c;
    sp.level = level;
    sp.behavior = behavior;
    sp.first = first;
    sp.s = s;
    (void)p;
    while (start < n) {
        size_t b, e;
        if (re) {
            PCRE2_SIZE *ov = pcre2_get_ovector_pointer(c->ws->md);
            int rc = jit ? pcre2_jit_match(re, (PCRE2_SPTR)s, n, start, PCRE2_NO_UTF_CHECK,
                                           c->ws->md, c->ws->mctx)
                         : pcre2_match(re, (PCRE2_SPTR)s, n, start, PCRE2_NO_UTF_CHECK, c->ws->md,
                                       c->ws->mctx);
            if (rc < 0)
                break;
            b = ov[0];
            e = ov[1];
        } else {
            const char *hit = memmem(s + start, n - start, lit, lit_len);
            if (!hit)
                break;
            b = (size_t)(hit - s);
            e = b + lit_len;
        }
        c->ws->ops++;
        if (e == b) { /* an empty match splits nothing: step over one code point */
            size_t k;
            if (b >= n)
                break;
            utf8_decode_valid((const unsigned char *)s + b, &k);
            start = b + k;
            continue;
        }
        if (b > prev)
            sp_feed(&sp, prev, b, invert);
        sp_feed(&sp, b, e, !invert);
        prev = start = e;
    }
    if (prev < n)
        sp_feed(&sp, prev, n, invert);
    sp_flush(&sp);
}

static int sp_blocked(const struct tokenizer *tk, const struct hf_model *m, uint32_t cp)
{
    char b[4];
    size_t k;
    if (cp == 0x2581)
        return 1;
    if (cp < 0x10000)
        return (m->sp_block[cp >> 3] >> (cp & 7)) & 1 || m->char_id[cp] == NO_RANK;
    k = utf8_encode(cp, b);
    return m->sp_block_astral || tk_vocab_find(tk, b, k) == NO_RANK;
}

/* Hand a final piece to the model, cut at safe word starts for SentencePiece-style files. */
static void model_pieces(struct pctx *c, const char *s, size_t n)
{
    const struct hf_model *m = c->tk->hf;
    size_t start = 0, i = 0;
    if (!m->sp_split) {
        tk_bpe_piece(c->tk, c->ws, s, n, c->out);
        return;
    }
    while (i + 3 <= n) {
        const char *hit = memmem(s + i, n - i, "\xE2\x96\x81", 3);
        size_t j;
        if (!hit)
            break;
        j = (size_t)(hit - s);
        if (j > start && !sp_blocked(c->tk, m, (uint32_t)hf_last_cp(s + start, j - start))) {
            tk_bpe_piece(c->tk, c->ws, s + start, j - start, c->out);
            start = j;
        }
        i = j + 3;
    }
    tk_bpe_piece(c->tk, c->ws, s + start, n - start, c->out);
}

void hf_pretokenize(struct pctx *c, size_t level, const char *s, size_t n, int first)
{
    const struct hf_model *m = c->tk->hf;
    const struct hf_pretok *p;
    struct strbuf *buf;
    if (!n)
        return;
    if (level == m->npts) {
        model_pieces(c, s, n);
        return;
    }
    p = &m->pts[level];
    buf = &c->ws->hbuf[3 + level];
    switch (p->kind) {
    case PT_BYTELEVEL:
        if (p->prefix && s[0] != ' ') {
            strbuf_reset(buf);
            strbuf_addch(buf, ' ');
            strbuf_add(buf, s, n);
            s = buf->buf;
            n = buf->len;
        }
        if (p->use_regex)
            split_run(c, level, p, p->re, p->jit, NULL, 0, B_ISOLATED, 0, s, n, first);
        else
            hf_pretokenize(c, level + 1, s, n, first);
        break;
    case PT_SPLIT:
        split_run(c, level, p, p->re, p->jit, p->lit, p->lit_len, p->behavior, p->invert, s, n,
                  first);
        break;
    case PT_METASPACE: {
        size_t i;
        int pre;
        strbuf_reset(buf);
        pre = p->scheme == SCHEME_ALWAYS || (p->scheme == SCHEME_FIRST && first);
        if (pre && !(n >= p->rep_len && !memcmp(s, p->rep, p->rep_len))) {
            /* the input's own spaces become replacements below; check after replacing */
            if (!(s[0] == ' ' && p->rep_len)) /* " x" -> "_x" already starts with it */
                strbuf_add(buf, p->rep, p->rep_len);
        }
        for (i = 0; i < n; i++) {
            if (s[i] == ' ')
                strbuf_add(buf, p->rep, p->rep_len);
            else
                strbuf_addch(buf, s[i]);
        }
        if (p->split)
            split_run(c, level, p, NULL, 0, p->rep, p->rep_len, B_MERGED_NEXT, 0, buf->buf,
                      buf->len, first);
        else
            hf_pretokenize(c, level + 1, buf->buf, buf->len, first);
        break;
    }
    }
}

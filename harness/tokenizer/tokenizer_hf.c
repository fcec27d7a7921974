/*
 * The Hugging Face tokenizer.json pipeline (see tokenizer.h), written after
 * huggingface/tokenizers (tokenizers/src): added tokens split out first
 * (added_vocabulary.rs: leftmost-longest, lstrip/rstrip/single_word, the
 * non-normalized ones on the raw text, the normalized ones after the
 * normalizer), then normalizers (NFC, NFD, NFKC, NFKD, Lowercase, Strip,
 * Prepend, Replace, Sequence), pre-tokenizers (ByteLevel, Split with every
 * behavior, Metaspace, Digits, Punctuation, Whitespace, WhitespaceSplit,
 * Sequence; run depth-first, piece by piece, so nothing is materialised) and
 * the BPE model (models/bpe: merges ranked by position, byte_fallback,
 * ignore_merges, continuing_subword_prefix / end_of_word_suffix, unk fusing;
 * word.rs merge_all's heap). Byte-level files keep text as raw bytes: the
 * vocabulary is mapped back through GPT-2's bytes_to_unicode at load.
 * This file: the added-token trie, the segments and hf_encode; normalizers,
 * pre-tokenizers, the BPE model and loading are tokenizer_hf_*.c behind
 * tokenizer_hf-int.h.
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

int hf_whole_word_first(const struct hf_model *m)
{
    return m->ignore_merges;
}

int hf_byte_level(const struct hf_model *m)
{
    return m->byte_level;
}

int hf_strip_leading_space(const struct hf_model *m)
{
    return m->strip_lead;
}

/* ------------------------------------------------------------ trie */

static uint32_t trie_child(const struct hf_trie *t, uint32_t node, unsigned char c)
{
    uint64_t k = (((uint64_t)node << 8) | c) + 1;
    size_t i = hf_mhash(k) & t->mask;
    for (;;) {
        if (t->slots[i].key == k)
            return t->slots[i].child;
        if (!t->slots[i].key)
            return 0; /* the root is never a child */
        i = (i + 1) & t->mask;
    }
}

static void trie_grow(struct hf_trie *t)
{
    struct trie_slot *old = t->slots;
    size_t oldn = t->slots ? t->mask + 1 : 0, i, n = oldn ? oldn * 2 : 1024;
    t->slots = xcalloc(n, sizeof(*t->slots));
    t->mask = n - 1;
    for (i = 0; i < oldn; i++) {
        if (old[i].key) {
            size_t j = hf_mhash(old[i].key) & t->mask;
            while (t->slots[j].key)
                j = (j + 1) & t->mask;
            t->slots[j] = old[i];
        }
    }
    free(old);
}

void hf_trie_add(struct hf_trie *t, const char *s, size_t n, int32_t idx)
{
    uint32_t node = 0;
    size_t i;
    if (!t->nnodes) {
        ALLOC_GROW(t->term, 1, t->alloc);
        t->term[0] = -1;
        t->nnodes = 1;
    }
    t->first[(unsigned char)s[0]] = 1;
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        uint32_t ch = t->slots ? trie_child(t, node, c) : 0;
        if (!ch) {
            uint64_t k = (((uint64_t)node << 8) | c) + 1;
            size_t j;
            if (!t->slots || (t->nslots_used + 1) * 2 > t->mask + 1)
                trie_grow(t);
            ALLOC_GROW(t->term, t->nnodes + 1, t->alloc);
            ch = (uint32_t)t->nnodes++;
            t->term[ch] = -1;
            j = hf_mhash(k) & t->mask;
            while (t->slots[j].key)
                j = (j + 1) & t->mask;
            t->slots[j].key = k;
            t->slots[j].child = ch;
            t->nslots_used++;
        }
        node = ch;
    }
    if (t->term[node] < 0) /* the same text twice: the first entry wins */
        t->term[node] = idx;
}

/* Longest added token starting at s (n bytes): its index, or -1. */
static int32_t trie_longest(const struct hf_trie *t, const char *s, size_t n, uint64_t *ops)
{
    uint32_t node = 0;
    int32_t best = -1;
    size_t i;
    for (i = 0; i < n; i++) {
        ++*ops;
        node = trie_child(t, node, (unsigned char)s[i]);
        if (!node)
            break;
        if (t->term[node] >= 0)
            best = t->term[node];
    }
    return best;
}

/* ------------------------------------------------------------ added tokens and segments */

static void text_segment(struct pctx *c, const char *s, size_t n, int first, int stage);

/*
 * Split s at the added tokens of trie t (HF find_matches): each match becomes
 * its id, the text between goes on to text_segment(stage + 1).
 */
static void added_split(struct pctx *c, const struct hf_trie *t, const char *s, size_t n, int parse,
                        int first, int stage)
{
    const struct hf_model *m = c->tk->hf;
    size_t start_off = 0, i = 0;
    while (i < n) {
        int32_t a;
        const struct hf_added *ad;
        size_t mb, me;
        if (!t->first[(unsigned char)s[i]] ||
            (a = trie_longest(t, s + i, n - i, &c->ws->ops)) < 0) {
            i++;
            continue;
        }
        ad = &m->added[a];
        mb = i;
        me = i + ad->len;
        if (!parse && ad->special) {
            i = me; /* encode_special_tokens: the match is skipped, the scan goes on after it */
            continue;
        }
        if (ad->single_word) {
            long before = hf_last_cp(s, mb);
            size_t k;
            uint32_t after = me < n ? utf8_decode_valid((const unsigned char *)s + me, &k) : 0;
            if ((before >= 0 && unicode_is_word((uint32_t)before)) ||
                (me < n && unicode_is_word(after))) {
                i = me;
                continue;
            }
        }
        if (ad->lstrip) {
            size_t j = start_off, lastnon = start_off, k;
            while (j < mb) { /* the start of the whitespace run that ends at mb */
                uint32_t cp = utf8_decode_valid((const unsigned char *)s + j, &k);
                j += k;
                if (!hf_is_white(cp))
                    lastnon = j;
            }
            mb = lastnon;
        }
        if (ad->rstrip) {
            size_t k;
            while (me < n && hf_is_white(utf8_decode_valid((const unsigned char *)s + me, &k)))
                me += k;
        }
        if (mb > start_off)
            text_segment(c, s + start_off, mb - start_off, first && start_off == 0, stage + 1);
        out_add(c->out, &ad->id, 1);
        start_off = i = me;
    }
    if (start_off < n)
        text_segment(c, s + start_off, n - start_off, first && start_off == 0, stage + 1);
}

static void normalized_segment(struct pctx *c, const char *s, size_t n, int first)
{
    const struct hf_model *m = c->tk->hf;
    size_t nn;
    const char *t = hf_normalize_text(m, c->ws, s, n, &nn, 0);
    if (m->norm.nnodes > 1)
        added_split(c, &m->norm, t, nn, c->ws->hf_parse, first, 1);
    else
        hf_pretokenize(c, 0, t, nn, first);
}

/*
 * stage 1: text between raw added tokens -> invalid UTF-8 apart (byte-level),
 * hf_normalize, then the normalized added tokens; stage 2: pre-tokenize.
 */
static void text_segment(struct pctx *c, const char *s, size_t n, int first, int stage)
{
    const struct hf_model *m = c->tk->hf;
    if (stage >= 2) {
        hf_pretokenize(c, 0, s, n, first);
        return;
    }
    if (m->byte_level) {
        size_t i = 0;
        while (i < n) {
            size_t v = utf8_valid_prefix((const unsigned char *)s + i, n - i);
            if (v) {
                normalized_segment(c, s + i, v, first && i == 0);
                i += v;
            }
            if (i < n) { /* invalid bytes: a piece of their own, so decode gives them back */
                size_t bad = utf8_invalid_run((const unsigned char *)s + i, n - i);
                tk_bpe_piece(c->tk, c->ws, s + i, bad, c->out);
                i += bad;
            }
        }
        return;
    }
    normalized_segment(c, s, n, first);
}

void hf_encode(const struct tokenizer *tk, struct workspace *ws, const char *s, size_t n, int parse,
               struct enc_out *out)
{
    const struct hf_model *m = tk->hf;
    struct pctx c;
    c.tk = tk;
    c.ws = ws;
    c.out = out;
    if (!m->byte_level && !hf_is_utf8_valid(s, n)) {
        /* text models see Unicode: invalid bytes become U+FFFD, as a decoder with errors="replace"
         */
        struct strbuf *fix = &ws->hbuf[2];
        size_t i = 0;
        strbuf_reset(fix);
        while (i < n) {
            size_t v = utf8_valid_prefix((const unsigned char *)s + i, n - i);
            strbuf_add(fix, s + i, v);
            i += v;
            if (i < n) {
                strbuf_add(fix, "\xEF\xBF\xBD", 3);
                i += utf8_invalid_run((const unsigned char *)s + i, n - i);
            }
        }
        s = fix->buf;
        n = fix->len;
    }
    ws->hf_parse = parse;
    if (m->raw.nnodes > 1)
        added_split(&c, &m->raw, s, n, parse, 1, 0);
    else
        text_segment(&c, s, n, 1, 1);
}

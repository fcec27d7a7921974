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
#include "tokenizer/tokenizer.h"
#include "base/unicode.h"
#include "base/xalloc.h"

#include "base/banned.h"

enum { NORM_NF, NORM_LOWER, NORM_STRIP, NORM_PREPEND, NORM_REPLACE };
enum { PT_SPLIT, PT_BYTELEVEL, PT_METASPACE };
enum { B_REMOVED, B_ISOLATED, B_MERGED_PREV, B_MERGED_NEXT, B_CONTIGUOUS };
enum { SCHEME_ALWAYS, SCHEME_FIRST, SCHEME_NEVER };

struct hf_norm {
    int kind;
    enum unicode_form form;
    int left, right;
    char *str, *content; /* Prepend text / Replace literal; Replace content */
    size_t len, clen;
    pcre2_code *re; /* Replace regex */
    int jit;
};

struct hf_pretok {
    int kind;
    pcre2_code *re; /* Split regex, ByteLevel's GPT-2 regex */
    int jit;
    char *lit; /* Split literal */
    size_t lit_len;
    int behavior, invert;
    int prefix, use_regex; /* ByteLevel */
    char rep[8];           /* Metaspace replacement */
    size_t rep_len;
    int scheme, split;
};

struct hf_added {
    uint32_t id;
    size_t len; /* of the matched text */
    unsigned char special, lstrip, rstrip, single_word;
};

/* Byte trie over added-token texts: child of (node, byte) in an open-addressing table. */
struct trie_slot {
    uint64_t key; /* (node << 8 | byte) + 1; 0 = empty */
    uint32_t child;
};
struct hf_trie {
    struct trie_slot *slots;
    size_t mask, nslots_used;
    int32_t *term; /* node -> index into added[], -1 */
    size_t nnodes, alloc;
    unsigned char first[256];
};

struct merge_slot {
    uint64_t key; /* (a << 32 | b) + 1; 0 = empty */
    uint32_t rank, nid;
};

struct hf_model {
    struct hf_norm *norms;
    size_t nnorms;
    struct hf_pretok pts[HF_MAX_PRETOK];
    size_t npts;
    int byte_level, byte_fallback, ignore_merges, fuse_unk;
    long unk_id;
    char *prefix, *suffix;
    size_t prefix_len, suffix_len;
    uint32_t fallback[256];
    struct merge_slot *merges;
    size_t merges_mask;
    struct hf_added *added;
    size_t nadded;
    struct hf_trie raw, norm;
    int strip_lead;
    /* text models: id of each BMP character's own token (NO_RANK: none) */
    uint32_t *char_id;
    /*
     * SentencePiece-style vocabularies ("\xe2\x96\x81" marks a word start): no token
     * contains c + "\xe2\x96\x81" for a character c not in sp_block, so BPE never merges
     * across such a boundary and a piece may be cut there (and cached word by word).
     */
    int sp_split, sp_block_astral;
    uint8_t sp_block[0x10000 / 8];
};

static const char pat_bytelevel[] =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

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

/* ------------------------------------------------------------ merges */

static inline uint64_t mkey(uint32_t a, uint32_t b)
{
    return (((uint64_t)a << 32) | b) + 1;
}

static inline size_t mhash(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return (size_t)k;
}

static inline const struct merge_slot *merge_find(const struct hf_model *m, uint32_t a, uint32_t b)
{
    uint64_t k = mkey(a, b);
    size_t i = mhash(k) & m->merges_mask;
    if (!m->merges)
        return NULL;
    for (;;) {
        const struct merge_slot *s = &m->merges[i];
        if (s->key == k)
            return s;
        if (!s->key)
            return NULL;
        i = (i + 1) & m->merges_mask;
    }
}

static void merge_put(struct hf_model *m, uint32_t a, uint32_t b, uint32_t rank, uint32_t nid)
{
    uint64_t k = mkey(a, b);
    size_t i = mhash(k) & m->merges_mask;
    while (m->merges[i].key && m->merges[i].key != k)
        i = (i + 1) & m->merges_mask;
    m->merges[i].key = k; /* a repeated pair: the later line wins, as in HF's HashMap */
    m->merges[i].rank = rank;
    m->merges[i].nid = nid;
}

/* ------------------------------------------------------------ trie */

static uint32_t trie_child(const struct hf_trie *t, uint32_t node, unsigned char c)
{
    uint64_t k = (((uint64_t)node << 8) | c) + 1;
    size_t i = mhash(k) & t->mask;
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
            size_t j = mhash(old[i].key) & t->mask;
            while (t->slots[j].key)
                j = (j + 1) & t->mask;
            t->slots[j] = old[i];
        }
    }
    free(old);
}

static void trie_add(struct hf_trie *t, const char *s, size_t n, int32_t idx)
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
            j = mhash(k) & t->mask;
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

/* ------------------------------------------------------------ character classes */

/* Unicode White_Space (Rust's char::is_whitespace, regex \s). */
static int is_white(uint32_t c)
{
    return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
           c == 0x205F || c == 0x3000;
}

/* The code point that ends at s + n (valid UTF-8), or -1 when n == 0. */
static long last_cp(const char *s, size_t n)
{
    size_t i = n, k;
    if (!n)
        return -1;
    while (i > 0 && ((unsigned char)s[i - 1] & 0xC0) == 0x80)
        i--;
    if (i > 0)
        i--;
    return (long)utf8_decode_valid((const unsigned char *)s + i, &k);
}

/* ------------------------------------------------------------ normalizers */

static int is_utf8_valid(const char *s, size_t n)
{
    return utf8_valid_prefix((const unsigned char *)s, n) == n;
}

static void replace_all(const struct hf_norm *nm, struct workspace *ws, const char *s, size_t n,
                        struct strbuf *out)
{
    size_t start = 0;
    if (!nm->re) {
        while (start <= n) {
            const char *hit = nm->len ? memmem(s + start, n - start, nm->str, nm->len) : NULL;
            if (!hit)
                break;
            strbuf_add(out, s + start, (size_t)(hit - (s + start)));
            strbuf_add(out, nm->content, nm->clen);
            start = (size_t)(hit - s) + nm->len;
        }
        strbuf_add(out, s + start, n - start);
        return;
    }
    while (start < n) {
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(ws->md);
        int rc = nm->jit ? pcre2_jit_match(nm->re, (PCRE2_SPTR)s, n, start, PCRE2_NO_UTF_CHECK,
                                           ws->md, ws->mctx)
                         : pcre2_match(nm->re, (PCRE2_SPTR)s, n, start, PCRE2_NO_UTF_CHECK, ws->md,
                                       ws->mctx);
        size_t b, e;
        if (rc < 0)
            break;
        b = ov[0];
        e = ov[1];
        strbuf_add(out, s + start, b - start);
        strbuf_add(out, nm->content, nm->clen);
        if (e == b) { /* empty match: keep one code point and go on */
            size_t k;
            if (b >= n)
                break;
            utf8_decode_valid((const unsigned char *)s + b, &k);
            strbuf_add(out, s + b, k);
            e = b + k;
        }
        start = e;
    }
    if (start < n)
        strbuf_add(out, s + start, n - start);
}

/* Apply the normalizers to valid UTF-8 s; returns the result (s itself when there are none). */
static const char *normalize(const struct hf_model *m, struct workspace *ws, const char *s,
                             size_t n, size_t *outn, int b0)
{
    size_t i;
    int cur = b0;
    for (i = 0; i < m->nnorms; i++) {
        const struct hf_norm *nm = &m->norms[i];
        struct strbuf *o = &ws->hbuf[cur];
        strbuf_reset(o);
        ws->ops += n / 64 + 1;
        switch (nm->kind) {
        case NORM_NF:
            if (unicode_is_normalized_quick(nm->form, s, n))
                continue;
            unicode_normalize(nm->form, s, n, o);
            break;
        case NORM_LOWER: {
            size_t j = 0;
            while (j < n) {
                size_t k, q, c;
                uint32_t cp = utf8_decode_valid((const unsigned char *)s + j, &k), l[2];
                if (cp < 0x80) {
                    strbuf_addch(o, cp >= 'A' && cp <= 'Z' ? (int)cp + 32 : (int)cp);
                    j++;
                    continue;
                }
                c = unicode_char_lower(cp, l);
                for (q = 0; q < c; q++)
                    utf8_put(o, l[q]);
                j += k;
            }
            break;
        }
        case NORM_STRIP: {
            size_t b = 0, e = n, k;
            while (nm->left && b < e) {
                uint32_t cp = utf8_decode_valid((const unsigned char *)s + b, &k);
                if (!is_white(cp))
                    break;
                b += k;
            }
            while (nm->right && e > b) {
                long cp = last_cp(s + b, e - b);
                char tmp[4];
                if (cp < 0 || !is_white((uint32_t)cp))
                    break;
                e -= utf8_encode((uint32_t)cp, tmp);
            }
            strbuf_add(o, s + b, e - b);
            break;
        }
        case NORM_PREPEND:
            if (!n)
                continue;
            strbuf_add(o, nm->str, nm->len);
            strbuf_add(o, s, n);
            break;
        case NORM_REPLACE:
            replace_all(nm, ws, s, n, o);
            break;
        }
        s = o->buf;
        n = o->len;
        cur = cur == b0 ? b0 + 1 : b0;
    }
    *outn = n;
    return s;
}

/* ------------------------------------------------------------ pre-tokenizers */

struct pctx {
    const struct tokenizer *tk;
    struct workspace *ws;
    struct enc_out *out;
};

static void pretok(struct pctx *c, size_t level, const char *s, size_t n, int first);

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
        pretok(sp->c, sp->level + 1, sp->s + b, e - b, sp->first && b == 0);
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
        if (j > start && !sp_blocked(c->tk, m, (uint32_t)last_cp(s + start, j - start))) {
            tk_bpe_piece(c->tk, c->ws, s + start, j - start, c->out);
            start = j;
        }
        i = j + 3;
    }
    tk_bpe_piece(c->tk, c->ws, s + start, n - start, c->out);
}

static void pretok(struct pctx *c, size_t level, const char *s, size_t n, int first)
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
            pretok(c, level + 1, s, n, first);
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
            pretok(c, level + 1, buf->buf, buf->len, first);
        break;
    }
    }
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
            long before = last_cp(s, mb);
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
                if (!is_white(cp))
                    lastnon = j;
            }
            mb = lastnon;
        }
        if (ad->rstrip) {
            size_t k;
            while (me < n && is_white(utf8_decode_valid((const unsigned char *)s + me, &k)))
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
    const char *t = normalize(m, c->ws, s, n, &nn, 0);
    if (m->norm.nnodes > 1)
        added_split(c, &m->norm, t, nn, c->ws->hf_parse, first, 1);
    else
        pretok(c, 0, t, nn, first);
}

/*
 * stage 1: text between raw added tokens -> invalid UTF-8 apart (byte-level),
 * normalize, then the normalized added tokens; stage 2: pre-tokenize.
 */
static void text_segment(struct pctx *c, const char *s, size_t n, int first, int stage)
{
    const struct hf_model *m = c->tk->hf;
    if (stage >= 2) {
        pretok(c, 0, s, n, first);
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
    if (!m->byte_level && !is_utf8_valid(s, n)) {
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

/* ------------------------------------------------------------ BPE model */

static void sym_reserve(struct workspace *ws, size_t n)
{
    if (ws->sym_alloc < n) {
        ws->sym_alloc = n < 64 ? 64 : n;
        ws->sym_c = xreallocarray(ws->sym_c, ws->sym_alloc, sizeof(uint32_t));
        ws->sym_next = xreallocarray(ws->sym_next, ws->sym_alloc, sizeof(uint32_t));
        ws->sym_prev = xreallocarray(ws->sym_prev, ws->sym_alloc, sizeof(uint32_t));
    }
}

/* A merge of symbols pos and its right neighbour into nid, at its rank (start = pos, mid = nid). */
static void hpush(struct workspace *ws, uint32_t rank, uint32_t pos, uint32_t nid)
{
    struct heap_entry e;
    e.rank = rank;
    e.start = pos;
    e.mid = nid;
    e.end = 0;
    tk_heap_push(ws, e);
}

#define DEAD UINT32_MAX

void hf_bpe(const struct tokenizer *tk, struct workspace *ws, const char *p, size_t n)
{
    const struct hf_model *m = tk->hf;
    uint32_t *c, *nx, *pv;
    size_t ns = 0, i;
    long unk = -1; /* pending (fused) unk */
    sym_reserve(ws, n + 1);
    c = ws->sym_c;
    if (m->byte_level) {
        for (i = 0; i < n; i++)
            c[ns++] = tk->byte_id[(unsigned char)p[i]];
    } else {
        char tmp[512];
        i = 0;
        while (i < n) {
            size_t k, len = 0;
            uint32_t id;
            uint32_t cp = utf8_decode_valid((const unsigned char *)p + i, &k);
            if (m->char_id && cp < 0x10000 && m->char_id[cp] != NO_RANK) {
                if (unk >= 0) {
                    c[ns++] = (uint32_t)unk;
                    unk = -1;
                }
                c[ns++] = m->char_id[cp];
                i += k;
                continue;
            }
            if (i > 0 && m->prefix_len + k + m->suffix_len <= sizeof(tmp)) {
                memcpy(tmp, m->prefix, m->prefix_len);
                len = m->prefix_len;
            }
            if (len + k + m->suffix_len > sizeof(tmp))
                len = 0;
            memcpy(tmp + len, p + i, k);
            len += k;
            if (i + k == n && len + m->suffix_len <= sizeof(tmp)) {
                memcpy(tmp + len, m->suffix, m->suffix_len);
                len += m->suffix_len;
            }
            i += k;
            id = tk_vocab_find(tk, tmp, len);
            if (id != NO_RANK) {
                if (unk >= 0) {
                    c[ns++] = (uint32_t)unk;
                    unk = -1;
                }
                c[ns++] = id;
                continue;
            }
            if (m->byte_fallback) {
                size_t q;
                for (q = 0; q < len; q++)
                    if (m->fallback[(unsigned char)tmp[q]] == NO_RANK)
                        break;
                if (q == len) {
                    sym_reserve(ws, ns + len + 2);
                    c = ws->sym_c;
                    for (q = 0; q < len; q++)
                        c[ns++] = m->fallback[(unsigned char)tmp[q]];
                    continue;
                }
            }
            if (m->unk_id >= 0) {
                if (unk >= 0 && !m->fuse_unk)
                    c[ns++] = (uint32_t)unk;
                unk = m->unk_id;
            }
        }
        if (unk >= 0)
            c[ns++] = (uint32_t)unk;
    }
    sym_reserve(ws, ns + 1);
    c = ws->sym_c;
    nx = ws->sym_next;
    pv = ws->sym_prev;
    ws->heap_nr = 0;
    for (i = 0; i < ns; i++) {
        nx[i] = i + 1 < ns ? (uint32_t)(i + 1) : DEAD;
        pv[i] = i ? (uint32_t)(i - 1) : DEAD;
        if (i + 1 < ns) {
            const struct merge_slot *ms = merge_find(m, c[i], c[i + 1]);
            if (ms) {
                struct heap_entry e;
                e.rank = ms->rank;
                e.start = (uint32_t)i;
                e.mid = ms->nid;
                e.end = 0;
                tk_heap_append(ws, e);
            }
        }
    }
    tk_heap_heapify(ws);
    ws->ops += ns;
    while (ws->heap_nr) {
        struct heap_entry top = tk_heap_pop(ws);
        ws->ops++;
        uint32_t pos = top.start, right;
        const struct merge_slot *ms;
        if (c[pos] == DEAD || nx[pos] == DEAD)
            continue;
        right = nx[pos];
        ms = merge_find(m, c[pos], c[right]);
        if (!ms || ms->nid != top.mid)
            continue; /* stale */
        c[pos] = top.mid;
        nx[pos] = nx[right];
        c[right] = DEAD;
        if (nx[pos] != DEAD)
            pv[nx[pos]] = pos;
        if (pv[pos] != DEAD) {
            ms = merge_find(m, c[pv[pos]], c[pos]);
            if (ms)
                hpush(ws, ms->rank, pv[pos], ms->nid);
        }
        if (nx[pos] != DEAD) {
            ms = merge_find(m, c[pos], c[nx[pos]]);
            if (ms)
                hpush(ws, ms->rank, pos, ms->nid);
        }
    }
    ws->pids_nr = 0;
    for (i = 0; ns && i != DEAD; i = nx[i]) {
        ALLOC_GROW(ws->pids, ws->pids_nr + 1, ws->pids_alloc);
        ws->pids[ws->pids_nr++] = c[i];
    }
}

/* ------------------------------------------------------------ loading */

/* ------------------------------------------------------------ fast JSON for vocab and merges */

/*
 * model.vocab and model.merges are most of a tokenizer.json (33 MB for Gemma 3):
 * they are read by this scanner straight from the text, and the JSON module
 * parses only the rest (the file with those two values replaced by {} and []).
 */
static const char *jws(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    return p;
}

/* p at '"': just after the closing quote, or NULL. */
static const char *jskip_string(const char *p, const char *e)
{
    p++;
    for (;;) {
        const char *q = memchr(p, '"', (size_t)(e - p)), *r;
        size_t bs = 0;
        if (!q)
            return NULL;
        for (r = q; r > p && r[-1] == '\\'; r--)
            bs++;
        if (!(bs & 1))
            return q + 1;
        p = q + 1;
    }
}

/* Just after the JSON value at p, or NULL. */
static const char *jskip_value(const char *p, const char *e)
{
    int depth = 0;
    if (p >= e)
        return NULL;
    if (*p == '"')
        return jskip_string(p, e);
    if (*p != '{' && *p != '[') {
        while (p < e && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\n' &&
               *p != '\r' && *p != '\t')
            p++;
        return p;
    }
    while (p < e) {
        char ch = *p;
        if (ch == '"') {
            p = jskip_string(p, e);
            if (!p)
                return NULL;
            continue;
        }
        if (ch == '{' || ch == '[')
            depth++;
        else if (ch == '}' || ch == ']') {
            if (--depth == 0)
                return p + 1;
        }
        p++;
    }
    return NULL;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decode the JSON string at p ('"') into out (replaced); *after = just past it. */
static int jstring(const char *p, const char *e, struct strbuf *out, const char **after)
{
    strbuf_reset(out);
    if (p >= e || *p != '"')
        return -1;
    p++;
    while (p < e) {
        const char *q = p;
        while (q < e && *q != '"' && *q != '\\')
            q++;
        strbuf_add(out, p, (size_t)(q - p));
        p = q;
        if (p >= e)
            return -1;
        if (*p == '"') {
            *after = p + 1;
            return 0;
        }
        if (++p >= e)
            return -1;
        switch (*p) {
        case '"':
        case '\\':
        case '/':
            strbuf_addch(out, *p);
            break;
        case 'b':
            strbuf_addch(out, '\b');
            break;
        case 'f':
            strbuf_addch(out, '\f');
            break;
        case 'n':
            strbuf_addch(out, '\n');
            break;
        case 'r':
            strbuf_addch(out, '\r');
            break;
        case 't':
            strbuf_addch(out, '\t');
            break;
        case 'u': {
            uint32_t cp = 0;
            int i;
            if (e - p < 5)
                return -1;
            for (i = 1; i <= 4; i++) {
                int h = hexval(p[i]);
                if (h < 0)
                    return -1;
                cp = cp * 16 + (uint32_t)h;
            }
            p += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && e - p >= 7 && p[1] == '\\' && p[2] == 'u') {
                uint32_t lo = 0;
                for (i = 3; i <= 6; i++) {
                    int h = hexval(p[i]);
                    if (h < 0)
                        return -1;
                    lo = lo * 16 + (uint32_t)h;
                }
                if (lo >= 0xDC00 && lo < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    p += 6;
                }
            }
            if (cp >= 0xD800 && cp < 0xE000)
                cp = 0xFFFD; /* a lone surrogate */
            utf8_put(out, cp);
            break;
        }
        default:
            return -1;
        }
        p++;
    }
    return -1;
}

struct jspan {
    size_t b, e; /* value range in the file; e == 0: absent */
};

/* Find model.vocab and model.merges in the top-level object. 0, or -1 when the file is not JSON. */
static int find_model_spans(const char *buf, size_t len, struct jspan *vocab, struct jspan *merges)
{
    const char *p = buf, *e = buf + len;
    struct strbuf key = STRBUF_INIT;
    int depth;
    vocab->e = merges->e = 0;
    p = jws(p, e);
    if (p >= e || *p != '{')
        return -1;
    for (depth = 0; depth < 2;) {
        const char *v;
        p = jws(p + 1, e);
        if (p < e && *p == '}')
            break;
        if (jstring(p, e, &key, &p) < 0)
            goto bad;
        p = jws(p, e);
        if (p >= e || *p != ':')
            goto bad;
        p = jws(p + 1, e);
        if (depth == 0 && !strcmp(key.buf, "model") && p < e && *p == '{') {
            depth = 1; /* descend: the loop reads model's members */
            continue;
        }
        v = jskip_value(p, e);
        if (!v)
            goto bad;
        if (depth == 1 && !strcmp(key.buf, "vocab")) {
            vocab->b = (size_t)(p - buf);
            vocab->e = (size_t)(v - buf);
        } else if (depth == 1 && !strcmp(key.buf, "merges")) {
            merges->b = (size_t)(p - buf);
            merges->e = (size_t)(v - buf);
        }
        p = jws(v, e);
        if (p < e && *p == ',')
            continue;
        if (p < e && *p == '}') {
            if (depth == 0)
                break;
            depth = 0; /* end of model: go on with the top level */
            p = jws(p + 1, e);
            if (p < e && *p == ',')
                continue;
            break;
        }
        goto bad;
    }
    strbuf_release(&key);
    return 0;
bad:
    strbuf_release(&key);
    return -1;
}

static const char *jstr(const struct json *o, const char *k)
{
    return json_get_str(o, k);
}

/* o[k] as a flag: true 1, false 0, dflt when absent or not a boolean (tokenizers' serde defaults)
 */
static int jbool(const struct json *o, const char *k, int dflt)
{
    const struct json *v = json_get(o, k);
    return json_kind(v) == JSON_BOOL ? json_is_true(v) : dflt;
}

/* GPT-2 bytes_to_unicode, inverted: code point -> byte, -1 when not a byte char. */
static void byte_level_inverse(int inv[0x144])
{
    int b, n = 0;
    for (b = 0; b < 0x144; b++)
        inv[b] = -1;
    for (b = 0; b < 256; b++) {
        if ((b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF))
            inv[b] = b;
        else
            inv[256 + n++] = b;
    }
}

static int bytelevel_decode(const int *inv, const char *s, size_t n, unsigned char *out,
                            size_t *olen)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, o = 0;
    while (i < n) {
        uint32_t cp;
        size_t k = utf8_decode(p + i, n - i, &cp);
        if (!k || cp >= 0x144 || inv[cp] < 0)
            return -1;
        i += k;
        out[o++] = (unsigned char)inv[cp];
    }
    *olen = o;
    return 0;
}

static int behavior_of(const char *b, int *out)
{
    static const char *const names[] = {"Removed", "Isolated", "MergedWithPrevious",
                                        "MergedWithNext", "Contiguous"};
    int i;
    for (i = 0; i < 5; i++)
        if (b && !strcmp(b, names[i])) {
            *out = i;
            return 0;
        }
    return -1;
}

/* A {"String": s} or {"Regex": r} pattern: literal (*lit) or compiled regex (*re). */
static int load_pattern(const struct json *pat, char **lit, size_t *lit_len, pcre2_code **re,
                        int *jit, const char *what, const char *file, struct strbuf *err)
{
    const char *s = jstr(pat, "String"), *r = jstr(pat, "Regex");
    if (s) {
        *lit = xstrdup(s);
        *lit_len = strlen(s);
        return 0;
    }
    if (r) {
        *re = tk_compile_regex(r, strlen(r), jit, err, file);
        return *re ? 0 : -1;
    }
    strbuf_addf(err, "%s: %s: pattern must be {\"String\": ...} or {\"Regex\": ...}", file, what);
    return -1;
}

static int load_normalizer(struct hf_model *m, const struct json *nm, const char *file,
                           struct strbuf *err)
{
    const char *type;
    struct hf_norm n;
    if (json_kind(nm) == JSON_ABSENT || json_kind(nm) == JSON_NULL)
        return 0;
    type = jstr(nm, "type");
    memset(&n, 0, sizeof(n));
    if (type && !strcmp(type, "Sequence")) {
        const struct json *it;
        for (it = json_first(json_get(nm, "normalizers")); it; it = json_next(it)) {
            if (load_normalizer(m, it, file, err) < 0)
                return -1;
        }
        return 0;
    }
    if (type && (!strcmp(type, "NFC") || !strcmp(type, "NFD") || !strcmp(type, "NFKC") ||
                 !strcmp(type, "NFKD"))) {
        n.kind = NORM_NF;
        n.form = !strcmp(type, "NFC")    ? UNICODE_NFC
                 : !strcmp(type, "NFD")  ? UNICODE_NFD
                 : !strcmp(type, "NFKC") ? UNICODE_NFKC
                                         : UNICODE_NFKD;
    } else if (type && !strcmp(type, "Lowercase")) {
        n.kind = NORM_LOWER;
    } else if (type && !strcmp(type, "Strip")) {
        n.kind = NORM_STRIP;
        n.left = jbool(nm, "strip_left", 1);
        n.right = jbool(nm, "strip_right", 1);
    } else if (type && !strcmp(type, "Prepend")) {
        const char *p = jstr(nm, "prepend");
        n.kind = NORM_PREPEND;
        n.str = xstrdup(p ? p : "");
        n.len = strlen(n.str);
    } else if (type && !strcmp(type, "Replace")) {
        const char *content = jstr(nm, "content");
        n.kind = NORM_REPLACE;
        if (load_pattern(json_get(nm, "pattern"), &n.str, &n.len, &n.re, &n.jit,
                         "normalizer Replace", file, err) < 0)
            return -1;
        n.content = xstrdup(content ? content : "");
        n.clen = strlen(n.content);
    } else {
        strbuf_addf(err,
                    "%s: unsupported normalizer \"%s\" (supported: NFC, NFD, NFKC, NFKD, "
                    "Lowercase, Strip, Prepend, Replace, Sequence; or use --tokenizer server)",
                    file, type ? type : "?");
        return -1;
    }
    m->norms = xreallocarray(m->norms, m->nnorms + 1, sizeof(*m->norms));
    m->norms[m->nnorms++] = n;
    return 0;
}

static int add_pretok(struct hf_model *m, struct hf_pretok *p, const char *file, struct strbuf *err)
{
    if (m->npts >= HF_MAX_PRETOK) {
        strbuf_addf(err, "%s: more than %d pre-tokenizers", file, HF_MAX_PRETOK);
        return -1;
    }
    m->pts[m->npts++] = *p;
    return 0;
}

static int split_regex(struct hf_model *m, const char *re, int behavior, int invert,
                       const char *file, struct strbuf *err)
{
    struct hf_pretok p;
    memset(&p, 0, sizeof(p));
    p.kind = PT_SPLIT;
    p.behavior = behavior;
    p.invert = invert;
    p.re = tk_compile_regex(re, strlen(re), &p.jit, err, file);
    if (!p.re)
        return -1;
    return add_pretok(m, &p, file, err);
}

static int load_pretok(struct hf_model *m, const struct json *pt, const char *file,
                       struct strbuf *err)
{
    const char *type;
    struct hf_pretok p;
    if (json_kind(pt) == JSON_ABSENT || json_kind(pt) == JSON_NULL)
        return 0;
    type = jstr(pt, "type");
    memset(&p, 0, sizeof(p));
    if (type && !strcmp(type, "Sequence")) {
        const struct json *it;
        for (it = json_first(json_get(pt, "pretokenizers")); it; it = json_next(it)) {
            if (load_pretok(m, it, file, err) < 0)
                return -1;
        }
        return 0;
    }
    if (m->byte_level == 2) {
        strbuf_addf(err, "%s: a pre-tokenizer after ByteLevel is not supported", file);
        return -1;
    }
    if (type && !strcmp(type, "ByteLevel")) {
        p.kind = PT_BYTELEVEL;
        p.prefix = jbool(pt, "add_prefix_space", 1);
        p.use_regex = jbool(pt, "use_regex", 1);
        if (p.use_regex) {
            p.re = tk_compile_regex(pat_bytelevel, strlen(pat_bytelevel), &p.jit, err, file);
            if (!p.re)
                return -1;
        }
        m->byte_level = 2;
        return add_pretok(m, &p, file, err);
    }
    if (type && !strcmp(type, "Split")) {
        p.kind = PT_SPLIT;
        if (behavior_of(jstr(pt, "behavior"), &p.behavior) < 0) {
            strbuf_addf(err, "%s: Split: unknown behavior \"%s\"", file,
                        jstr(pt, "behavior") ? jstr(pt, "behavior") : "?");
            return -1;
        }
        p.invert = jbool(pt, "invert", 0);
        if (load_pattern(json_get(pt, "pattern"), &p.lit, &p.lit_len, &p.re, &p.jit,
                         "pre-tokenizer Split", file, err) < 0)
            return -1;
        if (p.lit && !p.lit_len) { /* HF: an empty string matches nothing */
            free(p.lit);
            p.lit = NULL;
            return 0;
        }
        return add_pretok(m, &p, file, err);
    }
    if (type && !strcmp(type, "Metaspace")) {
        const char *rep = jstr(pt, "replacement"), *scheme = jstr(pt, "prepend_scheme");
        p.kind = PT_METASPACE;
        if (!rep || !*rep || strlen(rep) >= sizeof(p.rep)) {
            strbuf_addf(err, "%s: Metaspace: bad replacement", file);
            return -1;
        }
        memcpy(p.rep, rep, strlen(rep));
        p.rep_len = strlen(rep);
        if (scheme)
            p.scheme = !strcmp(scheme, "first")   ? SCHEME_FIRST
                       : !strcmp(scheme, "never") ? SCHEME_NEVER
                                                  : SCHEME_ALWAYS;
        else
            p.scheme = jbool(pt, "add_prefix_space", 1) ? SCHEME_ALWAYS : SCHEME_NEVER;
        p.split = jbool(pt, "split", 1);
        return add_pretok(m, &p, file, err);
    }
    if (type && !strcmp(type, "Digits"))
        return split_regex(m, "\\p{N}",
                           jbool(pt, "individual_digits", 0) ? B_ISOLATED : B_CONTIGUOUS, 0, file,
                           err);
    if (type && !strcmp(type, "Punctuation")) {
        int b = B_ISOLATED;
        if (jstr(pt, "behavior") && behavior_of(jstr(pt, "behavior"), &b) < 0) {
            strbuf_addf(err, "%s: Punctuation: unknown behavior", file);
            return -1;
        }
        /* char::is_ascii_punctuation || Unicode P* */
        return split_regex(m, "[\\p{P}!-/:-@\\[-`{-~]", b, 0, file, err);
    }
    if (type && !strcmp(type, "Whitespace"))
        return split_regex(m,
                           "[\\p{L}\\p{M}\\p{Nd}\\p{Pc}\\x{200C}\\x{200D}]+|"
                           "[^\\p{L}\\p{M}\\p{Nd}\\p{Pc}\\x{200C}\\x{200D}\\s]+",
                           B_REMOVED, 1, file, err);
    if (type && !strcmp(type, "WhitespaceSplit"))
        return split_regex(m, "\\s+", B_REMOVED, 0, file, err);
    strbuf_addf(err,
                "%s: unsupported pre-tokenizer \"%s\" (supported: ByteLevel, Split, Metaspace, "
                "Digits, Punctuation, Whitespace, WhitespaceSplit, Sequence; or use --tokenizer "
                "server)",
                file, type ? type : "?");
    return -1;
}

static void find_decoder(struct hf_model *m, const struct json *d)
{
    const char *type = jstr(d, "type");
    const struct json *it;
    if (!type)
        return;
    if (!strcmp(type, "Sequence")) {
        for (it = json_first(json_get(d, "decoders")); it; it = json_next(it))
            find_decoder(m, it);
        return;
    }
    if (!strcmp(type, "Strip")) {
        const struct json *st = json_get(d, "start");
        const char *content = jstr(d, "content");
        if (json_kind(st) == JSON_NUMBER && json_num(st, 0) >= 1 && content &&
            !strcmp(content, " "))
            m->strip_lead = 1;
    }
    if (!strcmp(type, "Metaspace")) {
        const char *scheme = jstr(d, "prepend_scheme");
        if (scheme ? strcmp(scheme, "never") != 0 : jbool(d, "add_prefix_space", 1))
            m->strip_lead = 1;
    }
}

static void find_bos(struct tokenizer *tk, const struct json *pp)
{
    const char *type;
    const struct json *it;
    if (json_kind(pp) != JSON_OBJECT || tk->nbos)
        return;
    type = jstr(pp, "type");
    if (!type)
        return;
    if (!strcmp(type, "Sequence")) {
        for (it = json_first(json_get(pp, "processors")); it; it = json_next(it))
            find_bos(tk, it);
        return;
    }
    if (!strcmp(type, "TemplateProcessing")) {
        const struct json *st = json_get(pp, "special_tokens");
        for (it = json_first(json_get(pp, "single")); it; it = json_next(it)) {
            const struct json *spt = json_get(it, "SpecialToken");
            const char *name;
            const struct json *ids, *idv;
            if (!spt)
                break; /* the Sequence: BOS tokens are the ones before it */
            name = jstr(spt, "id");
            ids = name ? json_get(json_get(st, name), "ids") : NULL;
            if (ids) {
                for (idv = json_first(ids); idv; idv = json_next(idv)) {
                    if (json_kind(idv) == JSON_NUMBER && json_num(idv, 0) >= 0) {
                        tk->bos = xreallocarray(tk->bos, tk->nbos + 1, sizeof(*tk->bos));
                        tk->bos[tk->nbos++] = (uint32_t)json_num(idv, 0);
                    }
                }
            } else if (name) {
                long id = tokenizer_special_id(tk, name);
                if (id >= 0) {
                    tk->bos = xreallocarray(tk->bos, tk->nbos + 1, sizeof(*tk->bos));
                    tk->bos[tk->nbos++] = (uint32_t)id;
                }
            }
        }
    }
}

static int merge_fail(struct strbuf *err, const char *file, size_t rank, const char *why)
{
    strbuf_addf(err, "%s: merges[%zu]: %s", file, rank, why);
    return -1;
}

/* One merge line, parsed: the model-space texts of a, b and a+b (byte-level: raw bytes). */
struct merge_item {
    size_t a, al, b, bl, c, cl; /* offsets into the batch arena */
    uint64_t ha, hb, hc;
};

#define MERGE_BATCH 64

/* Resolve and insert a batch: hash everything, prefetch, then look up (the table misses overlap).
 */
static int merge_batch(struct tokenizer *tk, struct merge_item *it, size_t nb, const char *arena,
                       size_t *rank, const char *file, struct strbuf *err)
{
    struct hf_model *m = tk->hf;
    uint32_t ids[MERGE_BATCH][3];
    size_t i;
    for (i = 0; i < nb; i++) {
        it[i].ha = tk_hash(arena + it[i].a, it[i].al);
        it[i].hb = tk_hash(arena + it[i].b, it[i].bl);
        it[i].hc = tk_hash(arena + it[i].c, it[i].cl);
        tk_vocab_prefetch(tk, it[i].ha);
        tk_vocab_prefetch(tk, it[i].hb);
        tk_vocab_prefetch(tk, it[i].hc);
    }
    for (i = 0; i < nb; i++) {
        ids[i][0] = tk_vocab_find_hashed(tk, arena + it[i].a, it[i].al, it[i].ha);
        ids[i][1] = tk_vocab_find_hashed(tk, arena + it[i].b, it[i].bl, it[i].hb);
        ids[i][2] = tk_vocab_find_hashed(tk, arena + it[i].c, it[i].cl, it[i].hc);
        if (ids[i][0] == NO_RANK || ids[i][1] == NO_RANK || ids[i][2] == NO_RANK) {
            strbuf_addf(err, "%s: merges[%zu]: a token of the pair is not in the vocab", file,
                        *rank + i);
            return -1;
        }
#if defined(__GNUC__)
        __builtin_prefetch(&m->merges[mhash(mkey(ids[i][0], ids[i][1])) & m->merges_mask], 1);
#endif
    }
    for (i = 0; i < nb; i++)
        merge_put(m, ids[i][0], ids[i][1], (uint32_t)(*rank + i), ids[i][2]);
    *rank += nb;
    return 0;
}

/* Append s to the arena in model space (byte-level text -> bytes); -1 when it is not. */
static int arena_add(struct strbuf *arena, const int *inv, int byte_level, const char *s, size_t n,
                     size_t *off, size_t *len)
{
    *off = arena->len;
    if (!byte_level) {
        strbuf_add(arena, s, n);
    } else {
        size_t o;
        strbuf_grow(arena, n + 1);
        if (bytelevel_decode(inv, s, n, (unsigned char *)arena->buf + arena->len, &o) < 0)
            return -1;
        strbuf_setlen(arena, arena->len + o);
    }
    *len = arena->len - *off;
    return 0;
}

static int load_merges(struct tokenizer *tk, const char *buf, struct jspan sp, const int *inv,
                       const char *file, struct strbuf *err)
{
    struct hf_model *m = tk->hf;
    const char *p = buf + sp.b, *e = buf + sp.e, *q;
    size_t n = 0, size = 1024, rank = 0, nb = 0;
    struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, arena = STRBUF_INIT;
    struct merge_item items[MERGE_BATCH];
    int rc = -1;
    if (!sp.e) {
        p = "[]";
        e = p + 2;
    }
    if (*p != '[')
        return merge_fail(err, file, 0, "model.merges is not an array");
    for (q = jws(p + 1, e); q < e && *q != ']';) { /* count, to size the table */
        q = jskip_value(q, e);
        if (!q)
            return merge_fail(err, file, n, "not valid JSON");
        n++;
        q = jws(q, e);
        if (q < e && *q == ',')
            q = jws(q + 1, e);
    }
    while (size < n + n / 2 + 2) /* load <= 2/3 */
        size <<= 1;
    m->merges = xcalloc(size, sizeof(*m->merges));
    m->merges_mask = size - 1;
    p = jws(p + 1, e);
    while (p < e && *p != ']') {
        struct merge_item *it = &items[nb];
        if (*p == '"') {
            const char *sp1;
            if (jstring(p, e, &a, &p) < 0) {
                merge_fail(err, file, rank + nb, "not valid JSON");
                goto out;
            }
            if (!strncmp(a.buf, "#version", 8))
                goto next;
            sp1 = memchr(a.buf, ' ', a.len);
            if (!sp1 || memchr(sp1 + 1, ' ', a.len - (size_t)(sp1 + 1 - a.buf))) {
                merge_fail(err, file, rank + nb, "not two tokens separated by one space");
                goto out;
            }
            strbuf_reset(&b);
            strbuf_add(&b, sp1 + 1, a.len - (size_t)(sp1 + 1 - a.buf));
            strbuf_setlen(&a, (size_t)(sp1 - a.buf));
        } else if (*p == '[') {
            p = jws(p + 1, e);
            if (jstring(p, e, &a, &p) < 0 || (p = jws(p, e)) >= e || *p != ',' ||
                jstring(jws(p + 1, e), e, &b, &p) < 0 || (p = jws(p, e)) >= e || *p != ']') {
                merge_fail(err, file, rank + nb, "not a \"a b\" string or an [a, b] pair");
                goto out;
            }
            p++;
        } else {
            merge_fail(err, file, rank + nb, "not a \"a b\" string or an [a, b] pair");
            goto out;
        }
        {
            const char *bs = b.buf;
            size_t bl = b.len;
            if (m->prefix_len && bl >= m->prefix_len && !memcmp(bs, m->prefix, m->prefix_len)) {
                bs += m->prefix_len;
                bl -= m->prefix_len;
            }
            size_t ca, cal, cb, cbl;
            /* a, b, then a+b as the copy of a followed by b without the subword prefix */
            if (arena_add(&arena, inv, m->byte_level, a.buf, a.len, &it->a, &it->al) < 0 ||
                arena_add(&arena, inv, m->byte_level, b.buf, b.len, &it->b, &it->bl) < 0 ||
                arena_add(&arena, inv, m->byte_level, a.buf, a.len, &ca, &cal) < 0 ||
                arena_add(&arena, inv, m->byte_level, bs, bl, &cb, &cbl) < 0) {
                strbuf_addf(err, "%s: merges[%zu]: \"%.*s %.*s\" is not byte-level text", file,
                            rank + nb, (int)(a.len > 80 ? 80 : a.len), a.buf,
                            (int)(b.len > 80 ? 80 : b.len), b.buf);
                goto out;
            }
            it->c = ca;
            it->cl = cal + cbl;
        }
        if (++nb == MERGE_BATCH) {
            if (merge_batch(tk, items, nb, arena.buf, &rank, file, err) < 0)
                goto out;
            nb = 0;
            strbuf_reset(&arena);
        }
    next:
        p = jws(p, e);
        if (p < e && *p == ',')
            p = jws(p + 1, e);
    }
    if (nb && merge_batch(tk, items, nb, arena.buf, &rank, file, err) < 0)
        goto out;
    rc = 0;
out:
    strbuf_release(&a);
    strbuf_release(&b);
    strbuf_release(&arena);
    return rc;
}

/* Read model.vocab from the file text: ids, and skip[] for byte-level text that is not. */
static int load_vocab(struct tokenizer *tk, const char *buf, struct jspan sp, const int *inv,
                      unsigned char **skipp, size_t *skip_alloc, const char *file,
                      struct strbuf *err)
{
    const char *p = buf + sp.b, *e = buf + sp.e;
    struct strbuf key = STRBUF_INIT;
    unsigned char *tmp = NULL;
    size_t tmp_alloc = 0;
    int rc = -1;
    if (!sp.e || *p != '{') {
        strbuf_addf(err, "%s: model.vocab is not an object", file);
        return -1;
    }
    p = jws(p + 1, e);
    while (p < e && *p != '}') {
        unsigned long id = 0;
        size_t o;
        const char *d;
        if (jstring(p, e, &key, &p) < 0 || (p = jws(p, e)) >= e || *p != ':') {
            strbuf_addf(err, "%s: model.vocab: not valid JSON", file);
            goto out;
        }
        p = d = jws(p + 1, e);
        while (p < e && *p >= '0' && *p <= '9' && id <= 0x7FFFFFF)
            id = id * 10 + (unsigned long)(*p++ - '0');
        if (p == d || id > 0x7FFFFFF || !key.len || (p < e && (*p == '.' || *p == 'e'))) {
            strbuf_addf(err, "%s: bad vocab entry \"%s\"", file, key.buf);
            goto out;
        }
        ALLOC_GROW(tmp, key.len + 1, tmp_alloc);
        if (tk->hf->byte_level && bytelevel_decode(inv, key.buf, key.len, tmp, &o) == 0 && o) {
            tk_vocab_set(tk, (uint32_t)id, tmp, o);
        } else {
            tk_vocab_set(tk, (uint32_t)id, key.buf, key.len);
            if (tk->hf->byte_level) { /* not byte-level text: never made by merging bytes */
                size_t old = *skip_alloc;
                ALLOC_GROW(*skipp, id + 1, *skip_alloc);
                memset(*skipp + old, 0, *skip_alloc - old);
                (*skipp)[id] = 1;
            }
        }
        p = jws(p, e);
        if (p < e && *p == ',')
            p = jws(p + 1, e);
    }
    rc = 0;
out:
    strbuf_release(&key);
    free(tmp);
    return rc;
}

/* Decoded bytes of each id for text (non-byte-level) models: "\xe2\x96\x81" -> " ", <0xNN> -> byte.
 */
static void build_decode(struct tokenizer *tk)
{
    struct hf_model *m = tk->hf;
    size_t id;
    tk->dec_off = xcalloc(tk->nvocab ? tk->nvocab : 1, sizeof(*tk->dec_off));
    tk->dec_len = xcalloc(tk->nvocab ? tk->nvocab : 1, sizeof(*tk->dec_len));
    for (id = 0; id < tk->nvocab; id++) {
        const char *s = tk->tok_bytes + tk->tok_off[id];
        size_t n = tk->tok_len[id], i;
        struct strbuf d = STRBUF_INIT;
        unsigned v;
        if (!n)
            continue;
        if (m->byte_fallback && n == 6 && !memcmp(s, "<0x", 3) && s[5] == '>' &&
            sscanf(s + 3, "%2X", &v) == 1) {
            char b = (char)v;
            strbuf_add(&d, &b, 1);
        } else {
            for (i = 0; i < n; i++) {
                if (n - i >= 3 && !memcmp(s + i, "\xE2\x96\x81", 3)) {
                    strbuf_addch(&d, ' ');
                    i += 2;
                } else {
                    strbuf_addch(&d, s[i]);
                }
            }
        }
        ALLOC_GROW(tk->tok_bytes, tk->tok_bytes_len + d.len + 1, tk->tok_bytes_alloc);
        memcpy(tk->tok_bytes + tk->tok_bytes_len, d.buf, d.len);
        tk->dec_off[id] = (uint32_t)tk->tok_bytes_len;
        tk->dec_len[id] = (uint32_t)d.len;
        tk->tok_bytes_len += d.len;
        strbuf_release(&d);
    }
}

/* char_id (no prefix/suffix) and the SentencePiece word-start cut rule (see struct hf_model). */
static void build_char_tables(struct tokenizer *tk)
{
    struct hf_model *m = tk->hf;
    uint32_t cp;
    size_t id;
    if (m->prefix_len || m->suffix_len)
        return; /* a character's token then depends on its position */
    m->char_id = xmalloc(0x10000 * sizeof(*m->char_id));
    for (cp = 0; cp < 0x10000; cp++) {
        char b[4];
        size_t k = utf8_encode(cp, b);
        m->char_id[cp] = cp >= 0xD800 && cp < 0xE000 ? NO_RANK : tk_vocab_find(tk, b, k);
    }
    if (m->char_id[0x2581] == NO_RANK)
        return;
    for (id = 0; id < tk->nvocab; id++) {
        const char *s = tk->tok_bytes + tk->tok_off[id];
        size_t n = tk->tok_len[id], j = 0;
        while (j + 3 <= n) {
            const char *hit = memmem(s + j, n - j, "\xE2\x96\x81", 3);
            long pc;
            if (!hit)
                break;
            j = (size_t)(hit - s);
            pc = last_cp(s, j);
            if (pc >= 0x10000)
                m->sp_block_astral = 1;
            else if (pc >= 0 && pc != 0x2581)
                m->sp_block[pc >> 3] |= (uint8_t)(1u << (pc & 7));
            j += 3;
        }
    }
    m->sp_split = 1;
}

/* Normalize an added token's content with the model's normalizers (for the normalized trie). */
static void normalize_content(struct tokenizer *tk, const char *s, struct strbuf *out)
{
    struct workspace ws;
    size_t n, i;
    const char *t;
    memset(&ws, 0, sizeof(ws));
    for (i = 0; i < HF_BUFS; i++)
        strbuf_init(&ws.hbuf[i], 0);
    ws.md = pcre2_match_data_create(2, NULL);
    ws.mctx = pcre2_match_context_create(NULL);
    t = normalize(tk->hf, &ws, s, strlen(s), &n, 0);
    strbuf_add(out, t, n);
    for (i = 0; i < HF_BUFS; i++)
        strbuf_release(&ws.hbuf[i]);
    pcre2_match_data_free(ws.md);
    pcre2_match_context_free(ws.mctx);
}

/*
 * The id of an added token as Hugging Face tokenizers gives it (the "id" in
 * the file is only checked there, AddedVocabulary::add_tokens assigns): a
 * content that is a model vocab entry, or an earlier added token, keeps that
 * id; any other takes the next id past the vocab, in file order (the vocab
 * size = its entries, nentries; *max_added tracks the largest id handed out).
 * Real files agree with their "id"s; a hand-made one may not.
 */
static uint32_t added_id(struct tokenizer *tk, const int *inv, const unsigned char *skip,
                         size_t nbpe, size_t nentries, const char *content, uint32_t file_id,
                         long *max_added)
{
    size_t n = strlen(content), o, i;
    uint32_t id = NO_RANK;
    unsigned char *dec = xmalloc(n + 1);
    if (file_id < nbpe && tk->tok_len[file_id] &&
        ((skip[file_id] || !tk->hf->byte_level)
             ? tk->tok_len[file_id] == n &&
                   !memcmp(tk->tok_bytes + tk->tok_off[file_id], content, n)
             : bytelevel_decode(inv, content, n, dec, &o) == 0 && o == tk->tok_len[file_id] &&
                   !memcmp(tk->tok_bytes + tk->tok_off[file_id], dec, o)))
        id = file_id; /* the file's id is the vocab entry of this text (every real file) */
    else if (!tk->hf->byte_level)
        id = tk_vocab_find(tk, content, n);
    else if (bytelevel_decode(inv, content, n, dec, &o) == 0 && o)
        id = tk_vocab_find(tk, (const char *)dec, o);
    free(dec);
    if (id != NO_RANK && id >= nbpe)
        id = NO_RANK;
    for (i = 0; id == NO_RANK && i < tk->nspecials; i++)
        if (tk->specials[i].len == n && !memcmp(tk->specials[i].text, content, n))
            id = tk->specials[i].id;
    if (id == NO_RANK)
        id = *max_added >= (long)nentries || !nentries ? (uint32_t)(*max_added + 1)
                                                       : (uint32_t)nentries;
    if ((long)id > *max_added)
        *max_added = id;
    return id;
}

/*
 * The tokenizer.json without model.vocab and model.merges (replaced by {} and
 * []: the fast scanner reads those two), parsed; NULL with the error in err.
 */
static struct json *parse_rest(const char *buf, size_t len, struct jspan *vs, struct jspan *ms,
                               const char *file, struct strbuf *err)
{
    struct strbuf rest = STRBUF_INIT;
    struct json *root = NULL;
    if (find_model_spans(buf, len, vs, ms) == 0) {
        const struct jspan *first = vs->e && (!ms->e || vs->b < ms->b) ? vs : ms;
        const struct jspan *second = first == vs ? ms : vs;
        size_t at = 0;
        if (first->e) {
            strbuf_add(&rest, buf, first->b);
            strbuf_addstr(&rest, first == vs ? "{}" : "[]");
            at = first->e;
        }
        if (second->e) {
            strbuf_add(&rest, buf + at, second->b - at);
            strbuf_addstr(&rest, second == vs ? "{}" : "[]");
            at = second->e;
        }
        strbuf_add(&rest, buf + at, len - at);
        root = json_parse(rest.buf, rest.len, NULL);
    }
    strbuf_release(&rest);
    if (!root)
        strbuf_addf(err, "%s: not valid JSON", file);
    return root;
}

/* "model" is a BPE model the native tokenizer can count with (type, vocab, no dropout). */
static int check_model(const struct json *model, const char *file, struct strbuf *err)
{
    const char *mtype = jstr(model, "type");
    const struct json *vocab = json_get(model, "vocab"), *dr = json_get(model, "dropout");
    if (mtype &&
        (!strcmp(mtype, "WordPiece") || !strcmp(mtype, "Unigram") || !strcmp(mtype, "WordLevel"))) {
        strbuf_addf(err,
                    "%s: %s models are not supported by the native tokenizer (BPE only); count "
                    "with the server instead: --tokenizer server",
                    file, mtype);
        return -1;
    }
    if (!mtype || strcmp(mtype, "BPE")) {
        strbuf_addf(err, "%s: not a BPE tokenizer.json (model.type is \"%s\")", file,
                    mtype ? mtype : "missing");
        return -1;
    }
    if (json_kind(vocab) != JSON_OBJECT) {
        /* the type is right; say what is wrong (it used to read "model.type is \"BPE\"") */
        strbuf_addf(err,
                    "%s: \"model.vocab\" is %s; a BPE tokenizer.json needs a vocab object "
                    "of token -> id",
                    file, vocab ? "not an object" : "missing");
        return -1;
    }
    if (json_kind(dr) == JSON_NUMBER && json_num(dr, 0) > 0) {
        strbuf_addf(err, "%s: BPE dropout %g makes token counts random; not supported", file,
                    json_num(dr, 0));
        return -1;
    }
    return 0;
}

/* The normalizer, pre-tokenizer, model flags and decoder: everything but the tables. */
static int load_pipeline(struct hf_model *m, const struct json *root, const char *file,
                         struct strbuf *err)
{
    const struct json *model = json_get(root, "model");
    const char *p = jstr(model, "continuing_subword_prefix"),
               *s = jstr(model, "end_of_word_suffix");
    if (load_normalizer(m, json_get(root, "normalizer"), file, err) < 0 ||
        load_pretok(m, json_get(root, "pre_tokenizer"), file, err) < 0)
        return -1;
    m->byte_level = m->byte_level ? 1 : 0;
    m->byte_fallback = jbool(model, "byte_fallback", 0);
    m->ignore_merges = jbool(model, "ignore_merges", 0);
    m->fuse_unk = jbool(model, "fuse_unk", 0);
    m->prefix = xstrdup(p ? p : "");
    m->prefix_len = strlen(m->prefix);
    m->suffix = xstrdup(s ? s : "");
    m->suffix_len = strlen(m->suffix);
    if (m->byte_level && (m->prefix_len || m->suffix_len)) {
        strbuf_addf(err,
                    "%s: continuing_subword_prefix / end_of_word_suffix with ByteLevel "
                    "is not supported",
                    file);
        return -1;
    }
    find_decoder(m, json_get(root, "decoder"));
    return 0;
}

/* Every added_tokens entry has a "content" and an id in range (checked before any is added). */
static int check_added(const struct json *added, const char *file, struct strbuf *err)
{
    const struct json *it;
    for (it = json_first(added); it; it = json_next(it)) {
        const struct json *idv = json_get(it, "id");
        if (!jstr(it, "content") || json_kind(idv) != JSON_NUMBER || json_num(idv, 0) < 0 ||
            json_num(idv, 0) > 0x7FFFFFF) {
            strbuf_addf(err, "%s: bad added_tokens entry", file);
            return -1;
        }
    }
    return 0;
}

/* Not byte-level: the <0xNN> byte-fallback ids, the unk id and the per-character tables. */
static void load_char_model(struct tokenizer *tk, const struct json *model)
{
    struct hf_model *m = tk->hf;
    const char *unk = jstr(model, "unk_token");
    size_t i;
    for (i = 0; i < 256; i++) {
        char name[8];
        snprintf(name, sizeof(name), "<0x%02X>", (unsigned)i);
        m->fallback[i] = tk_vocab_find(tk, name, strlen(name));
    }
    if (unk) {
        uint32_t u = tk_vocab_find(tk, unk, strlen(unk));
        m->unk_id = u == NO_RANK ? -1 : (long)u;
    }
    build_char_tables(tk);
}

/* Added tokens (checked by check_added): ids, the two tries; their text is what decode gives back.
 */
static void load_added(struct tokenizer *tk, const struct json *added, const int *inv,
                       const unsigned char *skip, size_t nbpe)
{
    struct hf_model *m = tk->hf;
    const struct json *it;
    size_t i, nentries = 0;
    long max_added = -1;
    for (i = 0; i < nbpe; i++)
        nentries += tk->tok_len[i] != 0;
    for (it = json_first(added); it; it = json_next(it)) {
        const char *content = jstr(it, "content");
        uint32_t id = (uint32_t)json_num(json_get(it, "id"), 0);
        struct hf_added a;
        struct strbuf nc = STRBUF_INIT;
        int normalized = jbool(it, "normalized", !jbool(it, "special", 0));
        if (!*content)
            continue;
        id = added_id(tk, inv, skip, nbpe, nentries, content, id, &max_added);
        tk_add_special(tk, content, strlen(content), id);
        if (normalized && m->nnorms && is_utf8_valid(content, strlen(content)))
            normalize_content(tk, content, &nc);
        else
            strbuf_addstr(&nc, content);
        a.id = id;
        a.len = nc.len;
        a.special = (unsigned char)jbool(it, "special", 0);
        a.lstrip = (unsigned char)jbool(it, "lstrip", 0);
        a.rstrip = (unsigned char)jbool(it, "rstrip", 0);
        a.single_word = (unsigned char)jbool(it, "single_word", 0);
        m->added = xreallocarray(m->added, m->nadded + 1, sizeof(*m->added));
        m->added[m->nadded] = a;
        if (nc.len)
            trie_add(normalized ? &m->norm : &m->raw, nc.buf, nc.len, (int32_t)m->nadded);
        m->nadded++;
        strbuf_release(&nc);
    }
}

int hf_load(struct tokenizer *tk, const char *file, const char *buf, size_t len, struct strbuf *err)
{
    struct json *root;
    const struct json *model, *added;
    struct jspan vs, ms;
    int inv[0x144], rc = -1;
    unsigned char *skip = NULL;
    size_t nbpe, skip_alloc = 0;
    struct hf_model *m;

    root = parse_rest(buf, len, &vs, &ms, file, err);
    if (!root)
        return -1;
    m = tk->hf = xcalloc(1, sizeof(*tk->hf));
    m->unk_id = -1;
    model = json_get(root, "model");
    added = json_get(root, "added_tokens");
    if (check_model(model, file, err) < 0 || load_pipeline(m, root, file, err) < 0)
        goto out;

    byte_level_inverse(inv);
    tk->tok_bytes_alloc = len / 4 + 64;
    tk->tok_bytes = xmalloc(tk->tok_bytes_alloc);
    if (load_vocab(tk, buf, vs, inv, &skip, &skip_alloc, file, err) < 0)
        goto out;
    nbpe = tk->nvocab;
    {
        size_t old = skip_alloc;
        ALLOC_GROW(skip, nbpe + 1, skip_alloc);
        memset(skip + old, 0, skip_alloc - old);
    }
    if (check_added(added, file, err) < 0 ||
        tk_vocab_build_hash(tk, nbpe, skip, m->byte_level, err, file) < 0)
        goto out;
    if (!m->byte_level)
        load_char_model(tk, model);
    if (load_merges(tk, buf, ms, inv, file, err) < 0)
        goto out;
    load_added(tk, added, inv, skip, nbpe);
    if (!m->byte_level)
        build_decode(tk);
    find_bos(tk, json_get(root, "post_processor"));
    rc = 0;
out:
    free(skip);
    json_free(root);
    return rc;
}

void hf_free(struct hf_model *m)
{
    size_t i;
    if (!m)
        return;
    for (i = 0; i < m->nnorms; i++) {
        free(m->norms[i].str);
        free(m->norms[i].content);
        if (m->norms[i].re)
            pcre2_code_free(m->norms[i].re);
    }
    free(m->norms);
    for (i = 0; i < m->npts; i++) {
        free(m->pts[i].lit);
        if (m->pts[i].re)
            pcre2_code_free(m->pts[i].re);
    }
    free(m->prefix);
    free(m->suffix);
    free(m->merges);
    free(m->char_id);
    free(m->added);
    free(m->raw.slots);
    free(m->raw.term);
    free(m->norm.slots);
    free(m->norm.term);
    free(m);
}

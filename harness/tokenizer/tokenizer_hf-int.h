/*
 * Private to the Hugging Face pipeline (tokenizer_hf.c: added tokens and
 * segments; tokenizer_hf_normalize.c, tokenizer_hf_pretok.c,
 * tokenizer_hf_bpe.c, tokenizer_hf_load.c): the model's tables.
 */
#ifndef TOKENIZER_HF_INT_H
#define TOKENIZER_HF_INT_H

#include <stddef.h>
#include <stdint.h>

#include "base/unicode.h"
#include "tokenizer/tokenizer-int.h"

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

struct pctx {
    const struct tokenizer *tk;
    struct workspace *ws;
    struct enc_out *out;
};
/* ------------------------------------------------------------ merges */

static inline uint64_t hf_mkey(uint32_t a, uint32_t b)
{
    return (((uint64_t)a << 32) | b) + 1;
}

static inline size_t hf_mhash(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return (size_t)k;
}

static inline const struct merge_slot *hf_merge_find(const struct hf_model *m, uint32_t a,
                                                     uint32_t b)
{
    uint64_t k = hf_mkey(a, b);
    size_t i = hf_mhash(k) & m->merges_mask;
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

/* ------------------------------------------------------------ character classes */

/* Unicode White_Space (Rust's char::is_whitespace, regex \s). */
static inline int hf_is_white(uint32_t c)
{
    return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
           c == 0x205F || c == 0x3000;
}

/* The code point that ends at s + n (valid UTF-8), or -1 when n == 0. */
static inline long hf_last_cp(const char *s, size_t n)
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
int hf_is_utf8_valid(const char *s, size_t n);

/* Apply the normalizers to valid UTF-8 s; returns the result (s itself when there are none). */
const char *hf_normalize_text(const struct hf_model *m, struct workspace *ws, const char *s,
                              size_t n, size_t *outn, int b0);

void hf_pretokenize(struct pctx *c, size_t level, const char *s, size_t n, int first);

void hf_trie_add(struct hf_trie *t, const char *s, size_t n, int32_t idx);

void hf_merge_put(struct hf_model *m, uint32_t a, uint32_t b, uint32_t rank, uint32_t nid);

#endif

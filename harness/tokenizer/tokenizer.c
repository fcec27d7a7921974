/*
 * Native byte-level BPE tokenizer (see tokenizer.h): loads .tiktoken rank files
 * and Hugging Face tokenizer.json files, splits text with PCRE2 JIT using the
 * model's pre-tokenizer regex (White_Space-fixed \s), applies NFC when the
 * file declares it, and merges with tiktoken's lowest-rank-leftmost rule
 * (linear scan for short pieces, heap + linked list for long ones). Also owns
 * remote (server-side) counting with its per-text-hash cache.
 */
#define _GNU_SOURCE
#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pcre2.h>

#include "base/datadir.h"
#include "base/sha256.h"
#include "base/strbuf.h"
#include "tokenizer/tokenizer-int.h"
#include "tokenizer/tokenizer.h"
#include "base/unicode.h"
#include "base/xalloc.h"

#include "base/banned.h"

/* ------------------------------------------------------------ patterns */

static const char pat_cl100k[] = "'(?i:[sdmt]|ll|ve|re)|[^\\r\\n\\p{L}\\p{N}]?+\\p{L}++|\\p{N}{1,3}"
                                 "+| ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*+|"
                                 "\\s++$|\\s*[\\r\\n]|\\s+(?!\\S)|\\s";
static const char pat_o200k[] =
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+"
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)?|"
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*"
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)?|"
    "\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
static const char pat_gpt2[] =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

/* Unicode White_Space (PCRE2 10.42's \s with UCP also matches U+180E). */
static const char ws_class[] = "\\t-\\r\\x20\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}"
                               "\\x{2029}\\x{202F}\\x{205F}\\x{3000}";

struct named_special {
    const char *text;
    uint32_t id;
};
static const struct named_special cl100k_specials[] = {
    {"<|endoftext|>", 100257},  {"<|fim_prefix|>", 100258},  {"<|fim_middle|>", 100259},
    {"<|fim_suffix|>", 100260}, {"<|endofprompt|>", 100276}, {NULL, 0}};
static const struct named_special o200k_specials[] = {
    {"<|endoftext|>", 199999}, {"<|endofprompt|>", 200018}, {NULL, 0}};
static const struct named_special r50k_specials[] = {{"<|endoftext|>", 50256}, {NULL, 0}};

/* ------------------------------------------------------------ hashing */

static inline uint64_t mix64(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

static inline uint64_t hash_bytes(const unsigned char *p, size_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ (n * 0x100000001B3ULL);
    uint64_t v;
    while (n >= 8) {
        memcpy(&v, p, 8);
        h = (h ^ v) * 0x87c37b91114253d5ULL;
        h = (h << 31) | (h >> 33);
        p += 8;
        n -= 8;
    }
    v = 0;
    if (n)
        memcpy(&v, p, n);
    h = (h ^ v) * 0x4cf5ad432745937fULL;
    return mix64(h);
}

static inline uint32_t vocab_find_h(const struct tokenizer *tk, const char *p, size_t n, uint64_t h)
{
    size_t i = (size_t)h & tk->ht_mask;
    uint16_t h16 = (uint16_t)(h >> 48);
    uint64_t k8 = 0;
    memcpy(&k8, p, n < 8 ? n : 8);
    for (;;) {
        const struct ht_slot *s = &tk->ht[i];
        if (!s->id_plus1)
            return NO_RANK;
        if (s->k8 == k8 && s->len == n && s->h16 == h16) {
            uint32_t id = s->id_plus1 - 1;
            if (n <= 8 || !memcmp(tk->tok_bytes + tk->tok_off[id] + 8, p + 8, n - 8))
                return id;
        }
        i = (i + 1) & tk->ht_mask;
    }
}

static inline uint32_t vocab_find(const struct tokenizer *tk, const char *p, size_t n)
{
    if (n > tk->max_tok_len)
        return NO_RANK;
    return vocab_find_h(tk, p, n, hash_bytes((const unsigned char *)p, n));
}

uint64_t tk_hash(const char *p, size_t n)
{
    return hash_bytes((const unsigned char *)p, n);
}

void tk_vocab_prefetch(const struct tokenizer *tk, uint64_t h)
{
#if defined(__GNUC__)
    __builtin_prefetch(&tk->ht[(size_t)h & tk->ht_mask]);
#else
    (void)tk;
    (void)h;
#endif
}

uint32_t tk_vocab_find_hashed(const struct tokenizer *tk, const char *p, size_t n, uint64_t h)
{
    if (n > tk->max_tok_len)
        return NO_RANK;
    return vocab_find_h(tk, p, n, h);
}

uint32_t tk_vocab_find(const struct tokenizer *tk, const char *p, size_t n)
{
    return vocab_find(tk, p, n);
}

/* ------------------------------------------------------------ vocabulary building */

void tk_vocab_set(struct tokenizer *tk, uint32_t id, const void *bytes, size_t len)
{
    if (id >= tk->nvocab) {
        size_t old = tk->nvocab, n = (size_t)id + 1;
        if (n < old * 2)
            n = old * 2;
        tk->tok_off = xreallocarray(tk->tok_off, n, sizeof(*tk->tok_off));
        tk->tok_len = xreallocarray(tk->tok_len, n, sizeof(*tk->tok_len));
        memset(tk->tok_len + old, 0, (n - old) * sizeof(*tk->tok_len));
        memset(tk->tok_off + old, 0, (n - old) * sizeof(*tk->tok_off));
        tk->nvocab = n;
    }
    ALLOC_GROW(tk->tok_bytes, tk->tok_bytes_len + len + 1, tk->tok_bytes_alloc);
    memcpy(tk->tok_bytes + tk->tok_bytes_len, bytes, len);
    tk->tok_off[id] = (uint32_t)tk->tok_bytes_len;
    tk->tok_len[id] = (uint32_t)len;
    tk->tok_bytes_len += len;
}

/* Trim nvocab to one past the largest used id. */
static void vocab_trim(struct tokenizer *tk)
{
    while (tk->nvocab && !tk->tok_len[tk->nvocab - 1])
        tk->nvocab--;
}

/* Build the hash table over BPE ids [0, nbpe) not marked in skip (may be NULL). */
int tk_vocab_build_hash(struct tokenizer *tk, size_t nbpe, const unsigned char *skip,
                        int need_bytes, struct strbuf *err, const char *file)
{
    size_t size = 1024, i;
    uint64_t *hashes = xmalloc((nbpe ? nbpe : 1) * sizeof(*hashes));
    while (size < nbpe * 2)
        size <<= 1;
    tk->ht = xcalloc(size, sizeof(*tk->ht));
    tk->ht_mask = size - 1;
    tk->max_tok_len = 0;
    /* hash everything first, then insert with the slots prefetched a few tokens ahead */
    for (i = 0; i < nbpe; i++)
        hashes[i] =
            hash_bytes((const unsigned char *)tk->tok_bytes + tk->tok_off[i], tk->tok_len[i]);
    for (i = 0; i < nbpe; i++) {
        const char *p;
        size_t n, j;
        uint64_t h;
#if defined(__GNUC__)
        if (i + 16 < nbpe)
            __builtin_prefetch(&tk->ht[(size_t)hashes[i + 16] & tk->ht_mask], 1);
#endif
        if (!tk->tok_len[i] || (skip && skip[i]))
            continue;
        p = tk->tok_bytes + tk->tok_off[i];
        n = tk->tok_len[i];
        if (n > tk->max_tok_len)
            tk->max_tok_len = n;
        h = hashes[i];
        if (vocab_find_h(tk, p, n, h) != NO_RANK)
            continue; /* duplicate bytes: keep the lowest rank */
        j = (size_t)h & tk->ht_mask;
        while (tk->ht[j].id_plus1)
            j = (j + 1) & tk->ht_mask;
        tk->ht[j].id_plus1 = (uint32_t)i + 1;
        tk->ht[j].h16 = (uint16_t)(h >> 48);
        tk->ht[j].len = (uint16_t)n;
        tk->ht[j].k8 = 0;
        memcpy(&tk->ht[j].k8, p, n < 8 ? n : 8);
    }
    free(hashes);
    tk->pair2 = xmalloc(65536 * sizeof(*tk->pair2));
    memset(tk->pair2, 0xFF, 65536 * sizeof(*tk->pair2)); /* NO_RANK */
    for (i = nbpe; i-- > 0;) { /* downwards: the lowest rank wins for duplicate bytes */
        const unsigned char *q = (const unsigned char *)tk->tok_bytes + tk->tok_off[i];
        if (tk->tok_len[i] == 2 && !(skip && skip[i]))
            tk->pair2[((unsigned)q[0] << 8) | q[1]] = (uint32_t)i;
    }
    for (i = 0; i < 256; i++) {
        char c = (char)i;
        tk->byte_id[i] = vocab_find_h(tk, &c, 1, hash_bytes((const unsigned char *)&c, 1));
        if (tk->byte_id[i] == NO_RANK && need_bytes) {
            if (err)
                strbuf_addf(err, "%s: the vocabulary has no token for byte 0x%02x", file,
                            (unsigned)i);
            return -1;
        }
    }
    return 0;
}

void tk_add_special(struct tokenizer *tk, const char *text, size_t len, uint32_t id)
{
    struct special *s;
    if (!len)
        return;
    tk->specials = xreallocarray(tk->specials, tk->nspecials + 1, sizeof(*tk->specials));
    s = &tk->specials[tk->nspecials++];
    s->text = xmemdup(text, len);
    s->len = len;
    s->id = id;
    tk->special_first[(unsigned char)text[0]] = 1;
    if (id >= tk->nvocab || !tk->tok_len[id])
        tk_vocab_set(tk, id, text, len);
}

/* ------------------------------------------------------------ regex */

/* Copy pat, replacing \s and \S by explicit Unicode White_Space classes. */
static int fix_whitespace(const char *pat, struct strbuf *out)
{
    int in_class = 0;
    size_t i, n = strlen(pat);
    for (i = 0; i < n; i++) {
        char c = pat[i];
        if (c == '\\' && i + 1 < n) {
            char d = pat[i + 1];
            if (d == 's') {
                if (in_class)
                    strbuf_addstr(out, ws_class);
                else
                    strbuf_addf(out, "[%s]", ws_class);
            } else if (d == 'S') {
                if (in_class)
                    return -1;
                strbuf_addf(out, "[^%s]", ws_class);
            } else {
                strbuf_addch(out, c);
                strbuf_addch(out, d);
            }
            i++;
            continue;
        }
        if (!in_class && c == '[') {
            in_class = 1;
            strbuf_addch(out, c);
            if (i + 1 < n && pat[i + 1] == '^')
                strbuf_addch(out, pat[++i]);
            if (i + 1 < n && pat[i + 1] == ']')
                strbuf_addch(out, pat[++i]);
            continue;
        }
        if (in_class && c == ']')
            in_class = 0;
        strbuf_addch(out, c);
    }
    return 0;
}

pcre2_code *tk_compile_regex(const char *pat, size_t len, int *jit, struct strbuf *err,
                             const char *file)
{
    struct strbuf fixed = STRBUF_INIT, src = STRBUF_INIT;
    pcre2_code *re;
    int ec;
    PCRE2_SIZE off;
    strbuf_add(&src, pat, len);
    if (fix_whitespace(src.buf, &fixed) < 0) {
        if (err)
            strbuf_addf(err, "%s: unsupported pre-tokenizer regex (\\S inside a class)", file);
        strbuf_release(&fixed);
        strbuf_release(&src);
        return NULL;
    }
    strbuf_release(&src);
    re = pcre2_compile((PCRE2_SPTR)fixed.buf, fixed.len,
                       PCRE2_UTF | PCRE2_UCP | PCRE2_DOLLAR_ENDONLY, &ec, &off, NULL);
    strbuf_release(&fixed);
    if (!re) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(ec, msg, sizeof(msg));
        if (err)
            strbuf_addf(err, "%s: cannot compile the regex /%.*s/: %s", file, (int)len, pat,
                        (const char *)msg);
        return NULL;
    }
    /* JIT failure is not fatal: the interpreter gives the same results. */
    *jit = pcre2_jit_compile(re, PCRE2_JIT_COMPLETE) == 0;
    return re;
}

static int compile_pattern(struct tokenizer *tk, const char *pat, struct strbuf *err,
                           const char *file)
{
    tk->re = tk_compile_regex(pat, strlen(pat), &tk->jit, err, file);
    return tk->re ? 0 : -1;
}

/* ------------------------------------------------------------ BPE */

static void piece_ids_push(struct workspace *ws, uint32_t id)
{
    ALLOC_GROW(ws->pids, ws->pids_nr + 1, ws->pids_alloc);
    ws->pids[ws->pids_nr++] = id;
}

static inline uint32_t pair_rank_small(const struct tokenizer *tk, const char *p,
                                       const uint32_t *start, size_t nparts, size_t i)
{
    size_t len;
    if (i + 2 >= nparts)
        return NO_RANK;
    len = start[i + 2] - start[i];
    if (len == 2)
        return tk
            ->pair2[((unsigned)(unsigned char)p[start[i]] << 8) | (unsigned char)p[start[i] + 1]];
    return vocab_find(tk, p + start[i], len);
}

/* tiktoken's byte_pair_merge for short pieces (n >= 2). */
static void bpe_small(const struct tokenizer *tk, struct workspace *ws, const char *p, size_t n)
{
    size_t nparts = n + 1, i;
    uint32_t *start, *rank;
    if (ws->small_alloc < n + 1) {
        ws->small_alloc = n + 1 < SMALL_PIECE + 1 ? SMALL_PIECE + 1 : n + 1;
        ws->pstart = xreallocarray(ws->pstart, ws->small_alloc, sizeof(uint32_t));
        ws->prank = xreallocarray(ws->prank, ws->small_alloc, sizeof(uint32_t));
    }
    start = ws->pstart;
    rank = ws->prank;
    for (i = 0; i < nparts; i++)
        start[i] = (uint32_t)i;
    for (i = 0; i < nparts; i++)
        rank[i] = pair_rank_small(tk, p, start, nparts, i);
    for (;;) {
        uint32_t best = NO_RANK;
        size_t bi = 0;
        ws->ops += nparts; /* quadratic, but only below SMALL_PIECE bytes */
        for (i = 0; i + 1 < nparts; i++)
            if (rank[i] < best) {
                best = rank[i];
                bi = i;
            }
        if (best == NO_RANK)
            break;
        memmove(start + bi + 1, start + bi + 2, (nparts - bi - 2) * sizeof(*start));
        memmove(rank + bi + 1, rank + bi + 2, (nparts - bi - 2) * sizeof(*rank));
        nparts--;
        rank[bi] = pair_rank_small(tk, p, start, nparts, bi);
        if (bi > 0)
            rank[bi - 1] = pair_rank_small(tk, p, start, nparts, bi - 1);
    }
    ws->pids_nr = 0;
    for (i = 0; i + 1 < nparts; i++) {
        size_t len = start[i + 1] - start[i];
        uint32_t id =
            len == 1 ? tk->byte_id[(unsigned char)p[start[i]]] : vocab_find(tk, p + start[i], len);
        piece_ids_push(ws, id);
    }
}

static void heap_add_pair(const struct tokenizer *tk, struct workspace *ws, const char *p,
                          uint32_t a, uint32_t b)
{
    uint32_t e = ws->end[b], r;
    struct heap_entry h;
    if (e - a > tk->max_tok_len)
        return;
    if (e - a == 2)
        r = tk->pair2[((unsigned)(unsigned char)p[a] << 8) | (unsigned char)p[a + 1]];
    else
        r = vocab_find(tk, p + a, e - a);
    if (r == NO_RANK)
        return;
    h.rank = r;
    h.start = a;
    h.mid = b;
    h.end = e;
    tk_heap_push(ws, h);
}

/* O(n log n) merge for long pieces: heap of (rank, start) over a linked list. */
static void bpe_large(const struct tokenizer *tk, struct workspace *ws, const char *p, size_t n)
{
    uint32_t *end, *prev, i;
    if (ws->large_alloc < n + 1) {
        ws->large_alloc = n + 1;
        ws->end = xreallocarray(ws->end, n + 1, sizeof(uint32_t));
        ws->prev = xreallocarray(ws->prev, n + 1, sizeof(uint32_t));
    }
    end = ws->end;
    prev = ws->prev;
    for (i = 0; i < n; i++) {
        end[i] = i + 1;
        prev[i] = i ? i - 1 : UINT32_MAX;
    }
    end[n] = 0;
    ws->heap_nr = 0;
    for (i = 0; i + 1 < n; i++) { /* initial pairs in any order, then heapify in O(n) */
        uint32_t r = tk->pair2[((unsigned)(unsigned char)p[i] << 8) | (unsigned char)p[i + 1]];
        if (r != NO_RANK) {
            struct heap_entry h;
            h.rank = r;
            h.start = i;
            h.mid = i + 1;
            h.end = i + 2;
            tk_heap_append(ws, h);
        }
    }
    tk_heap_heapify(ws);
    ws->ops += n;
    while (ws->heap_nr) {
        struct heap_entry h = tk_heap_pop(ws);
        ws->ops++;
        uint32_t nx;
        if (end[h.start] != h.mid || end[h.mid] != h.end)
            continue; /* stale */
        end[h.start] = h.end;
        end[h.mid] = 0;
        if (h.end < n)
            prev[h.end] = h.start;
        if (prev[h.start] != UINT32_MAX)
            heap_add_pair(tk, ws, p, prev[h.start], h.start);
        nx = h.end;
        if (nx < n)
            heap_add_pair(tk, ws, p, h.start, nx);
    }
    ws->pids_nr = 0;
    for (i = 0; i < n; i = end[i]) {
        size_t len = end[i] - i;
        uint32_t id = len == 1 ? tk->byte_id[(unsigned char)p[i]] : vocab_find(tk, p + i, len);
        piece_ids_push(ws, id);
    }
}

static void cache_reset(struct workspace *ws)
{
    memset(ws->slots, 0, CACHE_SLOTS * sizeof(*ws->slots));
    ws->cache_fill = 0;
    ws->keys_nr = 0;
    ws->vals_nr = 0;
}

static void bpe_piece_slow(const struct tokenizer *tk, struct workspace *ws, const char *p,
                           size_t n, uint64_t h, struct enc_out *out)
{
    size_t si = 0;
    if (n <= CACHE_MAX_KEY) {
        si = (size_t)(h >> 7) & (CACHE_SLOTS - 1);
        for (;;) {
            struct cache_slot *s = &ws->slots[si];
            if (!s->key_len)
                break;
            if (s->h == h && s->key_len == n && !memcmp(ws->keys + s->key_off, p, n)) {
                ws->pids_nr = 0;
                out_add(out, ws->vals + s->val_off, s->nvals);
                if (s->nvals <= HOT_IDS) { /* let the caller put it in the hot cache */
                    memcpy(ws->pids, ws->vals + s->val_off, s->nvals * sizeof(uint32_t));
                    ws->pids_nr = s->nvals;
                }
                return;
            }
            si = (si + 1) & (CACHE_SLOTS - 1);
        }
    }
    if (tk->hf)
        hf_bpe(tk, ws, p, n);
    else if (n < SMALL_PIECE)
        bpe_small(tk, ws, p, n);
    else
        bpe_large(tk, ws, p, n);
    out_add(out, ws->pids, ws->pids_nr);
    if (n <= CACHE_MAX_KEY) {
        struct cache_slot *s;
        if (ws->cache_fill >= CACHE_MAX_FILL) {
            cache_reset(ws);
            si = (size_t)(h >> 7) & (CACHE_SLOTS - 1);
        }
        s = &ws->slots[si];
        ALLOC_GROW(ws->keys, ws->keys_nr + n, ws->keys_alloc);
        ALLOC_GROW(ws->vals, ws->vals_nr + ws->pids_nr, ws->vals_alloc);
        memcpy(ws->keys + ws->keys_nr, p, n);
        memcpy(ws->vals + ws->vals_nr, ws->pids, ws->pids_nr * sizeof(uint32_t));
        s->h = h;
        s->key_off = (uint32_t)ws->keys_nr;
        s->key_len = (uint16_t)n;
        s->val_off = (uint32_t)ws->vals_nr;
        s->nvals = (uint16_t)ws->pids_nr;
        ws->keys_nr += n;
        ws->vals_nr += ws->pids_nr;
        ws->cache_fill++;
    }
}

void tk_bpe_piece(const struct tokenizer *tk, struct workspace *ws, const char *p, size_t n,
                  struct enc_out *out)
{
    uint64_t h, k0 = 0, k1 = 0;
    struct hot_slot *hs = NULL;
    if (n == 1 && (!tk->hf || hf_byte_level(tk->hf))) {
        out_add(out, &tk->byte_id[(unsigned char)p[0]], 1);
        return;
    }
    h = hash_bytes((const unsigned char *)p, n);
    if (n <= HOT_KEY) {
        if (n >= 8) {
            memcpy(&k0, p, 8);
            memcpy(&k1, p + 8, n - 8);
        } else {
            memcpy(&k0, p, n);
        }
        hs = &ws->hot[(size_t)(h >> 40) & (HOT_SLOTS - 1)];
        if (hs->len == n && hs->k0 == k0 && hs->k1 == k1) {
            out_add(out, hs->ids, hs->nids);
            return;
        }
    }
    ws->pids_nr = 0;
    if (n <= tk->max_tok_len && (!tk->hf || hf_whole_word_first(tk->hf))) {
        uint32_t id = vocab_find_h(tk, p, n, h);
        if (id != NO_RANK) {
            out_add(out, &id, 1);
            if (hs) {
                hs->k0 = k0;
                hs->k1 = k1;
                hs->len = (uint8_t)n;
                hs->nids = 1;
                hs->ids[0] = id;
            }
            return;
        }
    }
    bpe_piece_slow(tk, ws, p, n, h, out);
    if (hs && ws->pids_nr && ws->pids_nr <= HOT_IDS) {
        hs->k0 = k0;
        hs->k1 = k1;
        hs->len = (uint8_t)n;
        hs->nids = (uint8_t)ws->pids_nr;
        memcpy(hs->ids, ws->pids, ws->pids_nr * sizeof(uint32_t));
    }
}

/* ------------------------------------------------------------ splitting */

static void split_valid(const struct tokenizer *tk, struct workspace *ws, const char *s, size_t n,
                        struct enc_out *out)
{
    size_t start = 0;
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(ws->md);
    while (start < n) {
        /* the text was validated once (utf8_valid_prefix): never let PCRE2 re-check it */
        int rc = tk->jit ? pcre2_jit_match(tk->re, (PCRE2_SPTR)s, n, start, PCRE2_NO_UTF_CHECK,
                                           ws->md, ws->mctx)
                         : pcre2_match(tk->re, (PCRE2_SPTR)s, n, start, PCRE2_NO_UTF_CHECK, ws->md,
                                       ws->mctx);
        size_t b, e, k;
        if (rc < 0) {
            /* cannot happen with the supported patterns; cover the rest */
            tk_bpe_piece(tk, ws, s + start, n - start, out);
            return;
        }
        b = ov[0];
        e = ov[1];
        ws->ops++;
        if (b > start)
            tk_bpe_piece(tk, ws, s + start, b - start, out);
        if (e == b) { /* empty match: one code point as its own piece */
            utf8_decode_valid((const unsigned char *)s + b, &k);
            e = b + k;
        }
        tk_bpe_piece(tk, ws, s + b, e - b, out);
        start = e;
    }
}

static void encode_plain(const struct tokenizer *tk, struct workspace *ws, const char *s, size_t n,
                         struct enc_out *out)
{
    size_t i = 0;
    while (i < n) {
        size_t v = utf8_valid_prefix((const unsigned char *)s + i, n - i);
        if (v) {
            split_valid(tk, ws, s + i, v, out);
            i += v;
        }
        if (i < n) {
            size_t bad = utf8_invalid_run((const unsigned char *)s + i, n - i);
            tk_bpe_piece(tk, ws, s + i, bad, out);
            i += bad;
        }
    }
}

static void encode_text(const struct tokenizer *tk, struct workspace *ws, const char *s, size_t n,
                        int allow_special, struct enc_out *out)
{
    size_t i, seg = 0;
    if (tk->hf) {
        hf_encode(tk, ws, s, n, allow_special, out);
        return;
    }
    if (!allow_special || !tk->nspecials) {
        encode_plain(tk, ws, s, n, out);
        return;
    }
    for (i = 0; i < n;) {
        const struct special *best = NULL;
        size_t j;
        if (tk->special_first[(unsigned char)s[i]]) {
            for (j = 0; j < tk->nspecials; j++) {
                const struct special *sp = &tk->specials[j];
                if (sp->len <= n - i && (!best || sp->len > best->len) &&
                    !memcmp(s + i, sp->text, sp->len))
                    best = sp;
            }
        }
        if (!best) {
            i++;
            continue;
        }
        if (i > seg)
            encode_plain(tk, ws, s + seg, i - seg, out);
        out_add(out, &best->id, 1);
        i += best->len;
        seg = i;
    }
    if (n > seg)
        encode_plain(tk, ws, s + seg, n - seg, out);
}

/* ------------------------------------------------------------ workspaces */

static struct workspace *ws_get(struct tokenizer *tk)
{
    struct workspace *ws;
    size_t i;
    pthread_mutex_lock(&tk->lock);
    ws = tk->pool;
    if (ws)
        tk->pool = ws->next;
    pthread_mutex_unlock(&tk->lock);
    if (ws)
        return ws;
    ws = xcalloc(1, sizeof(*ws));
    ws->md = pcre2_match_data_create(2, NULL);
    ws->mctx = pcre2_match_context_create(NULL);
    ws->jit = pcre2_jit_stack_create(32 * 1024, 1024 * 1024, NULL);
    if (!ws->md || !ws->mctx || !ws->jit) {
        fprintf(stderr, "fatal: out of memory\n");
        abort();
    }
    pcre2_jit_stack_assign(ws->mctx, NULL, ws->jit);
    strbuf_init(&ws->norm, 0);
    for (i = 0; i < HF_BUFS; i++)
        strbuf_init(&ws->hbuf[i], 0);
    ws->slots = xcalloc(CACHE_SLOTS, sizeof(*ws->slots));
    ws->hot = xcalloc(HOT_SLOTS, sizeof(*ws->hot));
    return ws;
}

static void ws_put(struct tokenizer *tk, struct workspace *ws)
{
    pthread_mutex_lock(&tk->lock);
    tk->ops += ws->ops;
    ws->ops = 0;
    ws->next = tk->pool;
    tk->pool = ws;
    pthread_mutex_unlock(&tk->lock);
}

static void ws_free(struct workspace *ws)
{
    size_t i;
    pcre2_match_data_free(ws->md);
    pcre2_match_context_free(ws->mctx);
    pcre2_jit_stack_free(ws->jit);
    free(ws->pids);
    free(ws->pstart);
    free(ws->prank);
    free(ws->end);
    free(ws->prev);
    free(ws->heap);
    strbuf_release(&ws->norm);
    for (i = 0; i < HF_BUFS; i++)
        strbuf_release(&ws->hbuf[i]);
    free(ws->sym_c);
    free(ws->sym_next);
    free(ws->sym_prev);
    free(ws->slots);
    free(ws->hot);
    free(ws->keys);
    free(ws->vals);
    free(ws);
}

/* ------------------------------------------------------------ loading */

static struct tokenizer *tk_new(void)
{
    struct tokenizer *tk = xcalloc(1, sizeof(*tk));
    pthread_mutex_init(&tk->lock, NULL);
    return tk;
}

static signed char b64v[256];
static pthread_once_t b64_once = PTHREAD_ONCE_INIT;
static void b64_init(void)
{
    const char *a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    int i;
    memset(b64v, -1, sizeof(b64v));
    for (i = 0; i < 64; i++)
        b64v[(unsigned char)a[i]] = (signed char)i;
}

static int load_tiktoken(struct tokenizer *tk, const char *file, const char *buf, size_t len,
                         struct strbuf *err)
{
    const char *p = buf, *endp = buf + len;
    size_t line = 0;
    unsigned char tmp[1024];
    pthread_once(&b64_once, b64_init);
    /* preallocate: about one token per 16 bytes of file */
    tk->tok_bytes_alloc = len / 2 + 64;
    tk->tok_bytes = xmalloc(tk->tok_bytes_alloc);
    while (p < endp) {
        const char *sp, *nl;
        size_t o = 0;
        unsigned long rank = 0;
        unsigned acc = 0;
        int bits = 0;
        line++;
        nl = memchr(p, '\n', (size_t)(endp - p));
        if (!nl)
            nl = endp;
        if (nl == p || (nl == p + 1 && p[0] == '\r')) {
            p = nl + 1;
            continue;
        }
        sp = memchr(p, ' ', (size_t)(nl - p));
        if (!sp || sp == p)
            goto bad;
        for (; p < sp; p++) {
            signed char v = b64v[(unsigned char)*p];
            if (v < 0) {
                if (*p == '=')
                    continue;
                goto bad;
            }
            acc = (acc << 6) | (unsigned)v;
            bits += 6;
            if (bits >= 8) {
                bits -= 8;
                if (o >= sizeof(tmp))
                    goto bad;
                tmp[o++] = (unsigned char)(acc >> bits);
                acc &= (1u << bits) - 1;
            }
        }
        p = sp + 1;
        if (p >= nl || *p < '0' || *p > '9')
            goto bad;
        for (; p < nl && *p >= '0' && *p <= '9'; p++) {
            rank = rank * 10 + (unsigned long)(*p - '0');
            if (rank > 0x7FFFFFF)
                goto bad;
        }
        if (p < nl && *p == '\r')
            p++;
        if (p != nl || !o)
            goto bad;
        tk_vocab_set(tk, (uint32_t)rank, tmp, o);
        p = nl + 1;
    }
    if (!tk->nvocab) {
        strbuf_addf(err, "%s: no tokens in the rank file", file);
        return -1;
    }
    return tk_vocab_build_hash(tk, tk->nvocab, NULL, 1, err, file);
bad:
    strbuf_addf(err, "%s:%zu: not a .tiktoken rank line (\"<base64> <rank>\")", file, line);
    return -1;
}

/* Find datasets/tokenizers/<name>.tiktoken[.gz] in the data search order; appends the
   path to out, or the candidates to tried. */
static int find_named(const char *name, struct strbuf *out, struct strbuf *tried)
{
    struct strbuf rel = STRBUF_INIT;
    int rc;
    strbuf_addf(&rel, "datasets/tokenizers/%s.tiktoken", name);
    rc = datadir_find(rel.buf, out, tried);
    if (rc < 0) {
        strbuf_addstr(&rel, ".gz");
        rc = datadir_find(rel.buf, out, tried);
    }
    strbuf_release(&rel);
    return rc;
}

static int has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

struct tokenizer *tokenizer_load(const char *spec, struct strbuf *err)
{
    struct strbuf path = STRBUF_INIT, buf = STRBUF_INIT, tried = STRBUF_INIT, e = STRBUF_INIT;
    struct tokenizer *tk = NULL;
    const struct named_special *specials = NULL;
    const char *pattern = NULL, *base;
    int hf, rc;

    if (!spec || !*spec) {
        strbuf_addstr(&e, "empty tokenizer name");
        goto fail;
    }
    if (!strcmp(spec, "cl100k_base") || !strcmp(spec, "o200k_base")) {
        if (find_named(spec, &path, &tried) < 0) {
            strbuf_addf(&e, "tokenizer '%s': rank file not found (tried %s)", spec, tried.buf);
            goto fail;
        }
    } else if (!strchr(spec, '/') && !has_suffix(spec, ".json") && !has_suffix(spec, ".tiktoken") &&
               !has_suffix(spec, ".json.gz") && !has_suffix(spec, ".tiktoken.gz")) {
        strbuf_addf(&e,
                    "unknown tokenizer '%s' (known: cl100k_base, o200k_base, server, or a path to "
                    "a .tiktoken or tokenizer.json file)",
                    spec);
        goto fail;
    } else {
        strbuf_addstr(&path, spec);
    }
    rc = strbuf_read_file_gz(&buf, path.buf);
    if (rc < 0) {
        if (rc == -2)
            strbuf_addf(&e, "%s: cannot read: corrupt or truncated gzip data", path.buf);
        else
            strbuf_addf(&e, "%s: cannot read: %s", path.buf, strerror(errno));
        goto fail;
    }
    tk = tk_new();
    tk->path = xstrdup(path.buf);
    if (has_suffix(path.buf, ".gz")) {
        /* the identity of a compressed file is that of its content */
        sha256_hex(buf.buf, buf.len, tk->hash);
        tk->hash_done = 1;
        strbuf_setlen(&path, path.len - 3);
    }
    base = strrchr(path.buf, '/');
    base = base ? base + 1 : path.buf;
    {
        size_t i = 0;
        while (i < buf.len && (buf.buf[i] == ' ' || buf.buf[i] == '\n' || buf.buf[i] == '\t' ||
                               buf.buf[i] == '\r'))
            i++;
        hf = has_suffix(path.buf, ".json") || (i < buf.len && buf.buf[i] == '{');
    }
    if (hf) {
        struct strbuf nm = STRBUF_INIT;
        const char *dirend = base > path.buf ? base - 1 : NULL;
        rc = hf_load(tk, tk->path, buf.buf, buf.len, &e);
        tk->special_parse = 1;
        strbuf_addstr(&nm, "hf:");
        if (dirend) {
            const char *ds = dirend;
            while (ds > path.buf && ds[-1] != '/')
                ds--;
            if (dirend > ds)
                strbuf_addf(&nm, "%.*s/", (int)(dirend - ds), ds);
        }
        strbuf_addstr(&nm, base);
        tk->name = strbuf_detach(&nm, NULL);
    } else {
        size_t bl = strlen(base);
        if (has_suffix(base, ".tiktoken"))
            bl -= strlen(".tiktoken");
        tk->name = xstrndup(base, bl);
        if (strstr(base, "o200k")) {
            pattern = pat_o200k;
            specials = o200k_specials;
        } else if (strstr(base, "r50k") || strstr(base, "gpt2")) {
            pattern = pat_gpt2;
            specials = r50k_specials;
        } else {
            pattern = pat_cl100k;
            specials = strstr(base, "cl100k") ? cl100k_specials : NULL;
        }
        rc = load_tiktoken(tk, tk->path, buf.buf, buf.len, &e);
        if (!rc)
            rc = compile_pattern(tk, pattern, &e, tk->path);
        if (!rc && specials) {
            const struct named_special *s;
            for (s = specials; s->text; s++)
                if (s->id >= tk->nvocab || !tk->tok_len[s->id])
                    tk_add_special(tk, s->text, strlen(s->text), s->id);
        }
    }
    if (rc < 0)
        goto fail;
    vocab_trim(tk);
    strbuf_release(&path);
    strbuf_release(&buf);
    strbuf_release(&tried);
    strbuf_release(&e);
    return tk;
fail:
    if (err)
        strbuf_addstr(err, e.buf);
    tokenizer_free(tk);
    strbuf_release(&path);
    strbuf_release(&buf);
    strbuf_release(&tried);
    strbuf_release(&e);
    return NULL;
}

void tokenizer_free(struct tokenizer *tk)
{
    size_t i;
    if (!tk)
        return;
    while (tk->pool) {
        struct workspace *ws = tk->pool;
        tk->pool = ws->next;
        ws_free(ws);
    }
    for (i = 0; i < tk->nspecials; i++)
        free(tk->specials[i].text);
    free(tk->specials);
    free(tk->tok_off);
    free(tk->tok_len);
    free(tk->tok_bytes);
    free(tk->ht);
    free(tk->pair2);
    free(tk->bos);
    free(tk->rslots);
    free(tk->dec_off);
    free(tk->dec_len);
    hf_free(tk->hf);
    if (tk->re)
        pcre2_code_free(tk->re);
    free(tk->name);
    free(tk->path);
    pthread_mutex_destroy(&tk->lock);
    free(tk);
}

/* ------------------------------------------------------------ remote */

struct tokenizer *tokenizer_new_remote(const char *name, tokenizer_remote_fn fn, void *ctx)
{
    struct tokenizer *tk = tk_new();
    struct strbuf sb = STRBUF_INIT;
    tk->remote = 1;
    tk->fn = fn;
    tk->ctx = ctx;
    strbuf_addf(&sb, "server:%s", name ? name : "");
    tk->name = xstrdup(sb.buf);
    snprintf(tk->hash, sizeof(tk->hash), "%.*s", (int)sizeof(tk->hash) - 1, sb.buf);
    tk->hash_done = 1;
    strbuf_release(&sb);
    return tk;
}

void tokenizer_set_remote_cache(struct tokenizer *tk, tokenizer_cache_get_fn get,
                                tokenizer_cache_put_fn put, void *ctx)
{
    tk->cache_get = get;
    tk->cache_put = put;
    tk->cache_ctx = ctx;
}

static struct remote_slot *rslot_find(struct tokenizer *tk, const unsigned char *d)
{
    size_t i, mask;
    uint64_t h;
    if (!tk->rslots_alloc)
        return NULL;
    mask = tk->rslots_alloc - 1;
    memcpy(&h, d, 8);
    for (i = (size_t)h & mask;; i = (i + 1) & mask) {
        struct remote_slot *s = &tk->rslots[i];
        if (!s->used || !memcmp(s->digest, d, 32))
            return s;
    }
}

static void rslot_insert(struct tokenizer *tk, const unsigned char *d, long count)
{
    struct remote_slot *s;
    if ((tk->rslots_nr + 1) * 2 > tk->rslots_alloc) {
        struct remote_slot *old = tk->rslots;
        size_t oldn = tk->rslots_alloc, i;
        tk->rslots_alloc = oldn ? oldn * 2 : 64;
        tk->rslots = xcalloc(tk->rslots_alloc, sizeof(*tk->rslots));
        for (i = 0; i < oldn; i++)
            if (old[i].used)
                *rslot_find(tk, old[i].digest) = old[i];
        free(old);
    }
    s = rslot_find(tk, d);
    if (!s->used) {
        memcpy(s->digest, d, 32);
        s->used = 1;
        tk->rslots_nr++;
    }
    s->count = count;
}

static long remote_count(struct tokenizer *tk, const char *text, size_t len, struct strbuf *err)
{
    struct sha256_ctx c;
    unsigned char d[32];
    char hex[SHA256_HEX_LEN + 1];
    struct remote_slot *s;
    long count = -1;
    static const char digits[] = "0123456789abcdef";
    int i;

    sha256_init(&c);
    sha256_update(&c, text, len);
    sha256_final(&c, d);
    pthread_mutex_lock(&tk->lock);
    s = rslot_find(tk, d);
    if (s && s->used)
        count = s->count;
    pthread_mutex_unlock(&tk->lock);
    if (count >= 0)
        return count;
    for (i = 0; i < 32; i++) {
        hex[2 * i] = digits[d[i] >> 4];
        hex[2 * i + 1] = digits[d[i] & 15];
    }
    hex[64] = '\0';
    if (!(tk->cache_get && !tk->cache_get(tk->cache_ctx, tk->name, hex, &count) && count >= 0)) {
        count = -1;
        if (!tk->fn || tk->fn(tk->ctx, text, len, &count, err) < 0 || count < 0) {
            if (!tk->fn)
                strbuf_addstr(err, "no remote tokenize function");
            return -1;
        }
        if (tk->cache_put)
            tk->cache_put(tk->cache_ctx, tk->name, hex, count);
    }
    pthread_mutex_lock(&tk->lock);
    rslot_insert(tk, d, count);
    pthread_mutex_unlock(&tk->lock);
    return count;
}

/* ------------------------------------------------------------ public API */

long tokenizer_count_err(struct tokenizer *tk, const char *text, size_t len, struct strbuf *err)
{
    struct enc_out out = {NULL, 0, 0, 1};
    struct workspace *ws;
    if (tk->remote)
        return remote_count(tk, text, len, err);
    ws = ws_get(tk);
    encode_text(tk, ws, text, len, tk->special_parse, &out);
    ws_put(tk, ws);
    return (long)out.nr;
}

long tokenizer_count(struct tokenizer *tk, const char *text, size_t len)
{
    struct strbuf err = STRBUF_INIT;
    long n = tokenizer_count_err(tk, text, len, &err);
    if (n < 0)
        error("tokenizer %s: %s", tk->name, err.len ? err.buf : "counting failed");
    strbuf_release(&err);
    return n;
}

int tokenizer_encode(struct tokenizer *tk, const char *text, size_t len, int allow_special,
                     uint32_t **ids, size_t *n)
{
    struct enc_out out = {NULL, 0, 0, 0};
    struct workspace *ws;
    *ids = NULL;
    *n = 0;
    if (tk->remote)
        return -1;
    if (allow_special == TOKENIZER_SPECIAL_DEFAULT)
        allow_special = tk->special_parse;
    ws = ws_get(tk);
    encode_text(tk, ws, text, len, allow_special, &out);
    ws_put(tk, ws);
    *ids = out.ids;
    *n = out.nr;
    return 0;
}

/* The decoded bytes of one id (the decoder's view: for SentencePiece-style files "\xe2\x96\x81" is
 * a space, <0xNN> its byte). */
static int id_bytes(const struct tokenizer *tk, uint32_t id, const char **b, size_t *len)
{
    if (id >= tk->nvocab || !tk->tok_len[id])
        return -1;
    if (tk->dec_off) {
        *b = tk->tok_bytes + tk->dec_off[id];
        *len = tk->dec_len[id];
    } else {
        *b = tk->tok_bytes + tk->tok_off[id];
        *len = tk->tok_len[id];
    }
    return 0;
}

int tokenizer_decode(const struct tokenizer *tk, const uint32_t *ids, size_t n, struct strbuf *out)
{
    size_t i, start = out->len;
    if (tk->remote)
        return -1;
    for (i = 0; i < n; i++) {
        const char *b;
        size_t len;
        if (id_bytes(tk, ids[i], &b, &len) < 0)
            return -1;
        strbuf_add(out, b, len);
        if (i == 0 && tk->hf && hf_strip_leading_space(tk->hf) && out->len > start &&
            out->buf[start] == ' ') {
            memmove(out->buf + start, out->buf + start + 1, out->len - start - 1);
            strbuf_setlen(out, out->len - 1);
        }
    }
    return 0;
}

int tokenizer_token_bytes(const struct tokenizer *tk, uint32_t id, const char **bytes, size_t *len)
{
    if (tk->remote)
        return -1;
    return id_bytes(tk, id, bytes, len);
}

long tokenizer_special_id(const struct tokenizer *tk, const char *text)
{
    size_t i, n = strlen(text);
    for (i = 0; i < tk->nspecials; i++)
        if (tk->specials[i].len == n && !memcmp(tk->specials[i].text, text, n))
            return tk->specials[i].id;
    return -1;
}

size_t tokenizer_bos_tokens(const struct tokenizer *tk, const uint32_t **ids)
{
    *ids = tk->bos;
    return tk->nbos;
}

size_t tokenizer_vocab_size(const struct tokenizer *tk)
{
    return tk->remote ? 0 : tk->nvocab;
}

const char *tokenizer_name(const struct tokenizer *tk)
{
    return tk->name;
}

const char *tokenizer_hash(const struct tokenizer *tk)
{
    struct tokenizer *m = (struct tokenizer *)tk; /* lazy, under the lock */
    pthread_mutex_lock(&m->lock);
    if (!m->hash_done) {
        if (!m->path || sha256_file_hex(m->path, m->hash) < 0)
            snprintf(m->hash, sizeof(m->hash), "unknown");
        m->hash_done = 1;
    }
    pthread_mutex_unlock(&m->lock);
    return m->hash;
}

uint64_t tokenizer_work(struct tokenizer *tk)
{
    uint64_t n;
    pthread_mutex_lock(&tk->lock);
    n = tk->ops;
    pthread_mutex_unlock(&tk->lock);
    return n;
}

void tokenizer_set_special(struct tokenizer *tk, int parse)
{
    tk->special_parse = parse ? 1 : 0;
}

int tokenizer_special_parse(const struct tokenizer *tk)
{
    return tk->special_parse;
}

int tokenizer_is_remote(const struct tokenizer *tk)
{
    return tk->remote;
}

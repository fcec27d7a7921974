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

#include <cJSON.h>
#include <pcre2.h>

#include "sha256.h"
#include "strbuf.h"
#include "tokenizer.h"
#include "xalloc.h"

#include "banned.h"

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

/* ------------------------------------------------------------ NFC tables */

struct nfc_ccc_entry {
    uint32_t cp;
    uint8_t ccc;
};
struct nfc_decomp_entry {
    uint32_t cp;
    uint16_t off;
    uint8_t len;
};
struct nfc_comp_entry {
    uint32_t a, b, c;
};
struct nfc_range {
    uint32_t lo, hi;
};
#include "tokenizer_nfc.inc"

/* ------------------------------------------------------------ structures */

#define NO_RANK        UINT32_MAX
#define CACHE_SLOTS    (1u << 16)
#define CACHE_MAX_FILL (CACHE_SLOTS / 4 * 3)
#define CACHE_MAX_KEY  64
#define SMALL_PIECE    128

struct special {
    char *text;
    size_t len;
    uint32_t id;
};

struct cache_slot {
    uint64_t h;
    uint32_t key_off;
    uint32_t val_off;
    uint16_t key_len; /* 0 = empty */
    uint16_t nvals;
};

/* Hot cache: direct-mapped, short pieces with few ids, small enough for L2. */
#define HOT_SLOTS 8192
#define HOT_KEY   16
#define HOT_IDS   3
struct hot_slot {
    uint64_t k0, k1; /* key bytes, zero-padded */
    uint32_t ids[HOT_IDS];
    uint8_t len; /* 0 = empty */
    uint8_t nids;
    uint16_t pad;
};

struct heap_entry {
    uint32_t rank;
    uint32_t start, mid, end;
};

/* Per-thread scratch: taken from tk->pool for one call, returned after. */
struct workspace {
    struct workspace *next;
    pcre2_match_data *md;
    pcre2_match_context *mctx;
    pcre2_jit_stack *jit;
    uint32_t *pids; /* ids of the current piece */
    size_t pids_nr, pids_alloc;
    uint32_t *pstart, *prank; /* small BPE */
    size_t small_alloc;
    uint32_t *end, *prev; /* large BPE, indexed by byte position */
    size_t large_alloc;
    struct heap_entry *heap;
    size_t heap_nr, heap_alloc;
    struct strbuf norm;
    uint32_t *cps;
    size_t cps_nr, cps_alloc;
    struct cache_slot *slots;
    struct hot_slot *hot;
    size_t cache_fill;
    char *keys;
    size_t keys_nr, keys_alloc;
    uint32_t *vals;
    size_t vals_nr, vals_alloc;
};

/* Vocabulary hash slot: the first 8 bytes inline, so most checks touch one cache line. */
struct ht_slot {
    uint64_t k8;       /* first min(len, 8) bytes, zero-padded */
    uint32_t id_plus1; /* 0 = empty */
    uint16_t len;
    uint16_t h16;
};

struct remote_slot {
    unsigned char digest[32];
    long count;
    int used;
};

struct tokenizer {
    char *name;
    char *path; /* definition file, for the lazy hash */
    char hash[SHA256_HEX_LEN + 1];
    int hash_done;
    pthread_mutex_t lock;

    /* local */
    size_t nvocab;     /* id slots (BPE + specials) */
    uint32_t *tok_off; /* into tok_bytes */
    uint32_t *tok_len; /* 0 = unused id */
    char *tok_bytes;
    size_t tok_bytes_len, tok_bytes_alloc;
    struct ht_slot *ht;
    size_t ht_mask;
    size_t max_tok_len;
    uint32_t byte_id[256];
    uint32_t *pair2; /* rank of each 2-byte token, indexed by the two bytes */
    struct special *specials;
    size_t nspecials;
    unsigned char special_first[256];
    pcre2_code *re;
    int jit; /* JIT compiled: use the pcre2_jit_match() fast path */
    int nfc;
    int add_prefix_space;
    uint32_t *bos;
    size_t nbos;
    struct workspace *pool;

    /* remote */
    int remote;
    tokenizer_remote_fn fn;
    void *ctx;
    struct remote_slot *rslots;
    size_t rslots_alloc, rslots_nr;
    tokenizer_cache_get_fn cache_get;
    tokenizer_cache_put_fn cache_put;
    void *cache_ctx;
};

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

/* ------------------------------------------------------------ vocabulary building */

static void vocab_set(struct tokenizer *tk, uint32_t id, const void *bytes, size_t len)
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
static int vocab_build_hash(struct tokenizer *tk, size_t nbpe, const unsigned char *skip,
                            struct strbuf *err, const char *file)
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
        if (tk->byte_id[i] == NO_RANK) {
            if (err)
                strbuf_addf(err, "%s: the vocabulary has no token for byte 0x%02x", file,
                            (unsigned)i);
            return -1;
        }
    }
    return 0;
}

static void add_special(struct tokenizer *tk, const char *text, size_t len, uint32_t id)
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
        vocab_set(tk, id, text, len);
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

static int compile_pattern(struct tokenizer *tk, const char *pat, struct strbuf *err,
                           const char *file)
{
    struct strbuf fixed = STRBUF_INIT;
    int ec;
    PCRE2_SIZE off;
    if (fix_whitespace(pat, &fixed) < 0) {
        if (err)
            strbuf_addf(err, "%s: unsupported pre-tokenizer regex (\\S inside a class)", file);
        strbuf_release(&fixed);
        return -1;
    }
    tk->re = pcre2_compile((PCRE2_SPTR)fixed.buf, fixed.len,
                           PCRE2_UTF | PCRE2_UCP | PCRE2_DOLLAR_ENDONLY, &ec, &off, NULL);
    strbuf_release(&fixed);
    if (!tk->re) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(ec, msg, sizeof(msg));
        if (err)
            strbuf_addf(err, "%s: cannot compile the pre-tokenizer regex: %s", file,
                        (const char *)msg);
        return -1;
    }
    /* JIT failure is not fatal: the interpreter gives the same results. */
    tk->jit = pcre2_jit_compile(tk->re, PCRE2_JIT_COMPLETE) == 0;
    return 0;
}

/* ------------------------------------------------------------ UTF-8 */

/* Length of the valid UTF-8 sequence at p (1..4), or 0 when invalid. */
static inline size_t utf8_seq(const unsigned char *p, size_t n)
{
    unsigned c = p[0];
    if (c < 0x80)
        return 1;
    if (c < 0xC2)
        return 0;
    if (c < 0xE0) {
        if (n < 2 || (p[1] & 0xC0) != 0x80)
            return 0;
        return 2;
    }
    if (c < 0xF0) {
        if (n < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80)
            return 0;
        if (c == 0xE0 && p[1] < 0xA0)
            return 0;
        if (c == 0xED && p[1] >= 0xA0)
            return 0;
        return 3;
    }
    if (c < 0xF5) {
        if (n < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80)
            return 0;
        if (c == 0xF0 && p[1] < 0x90)
            return 0;
        if (c == 0xF4 && p[1] >= 0x90)
            return 0;
        return 4;
    }
    return 0;
}

static size_t utf8_valid_prefix(const unsigned char *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        size_t k;
        if (i + 8 <= n) {
            uint64_t v;
            memcpy(&v, p + i, 8);
            if (!(v & 0x8080808080808080ULL)) {
                i += 8;
                continue;
            }
        }
        k = utf8_seq(p + i, n - i);
        if (!k)
            return i;
        i += k;
    }
    return n;
}

static size_t utf8_invalid_run(const unsigned char *p, size_t n)
{
    size_t i = 0;
    while (i < n && !utf8_seq(p + i, n - i))
        i++;
    return i;
}

static inline uint32_t utf8_decode(const unsigned char *p, size_t *k)
{
    unsigned c = p[0];
    if (c < 0x80) {
        *k = 1;
        return c;
    }
    if (c < 0xE0) {
        *k = 2;
        return ((c & 0x1Fu) << 6) | (p[1] & 0x3Fu);
    }
    if (c < 0xF0) {
        *k = 3;
        return ((c & 0x0Fu) << 12) | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu);
    }
    *k = 4;
    return ((c & 0x07u) << 18) | ((p[1] & 0x3Fu) << 12) | ((p[2] & 0x3Fu) << 6) | (p[3] & 0x3Fu);
}

static void utf8_put(struct strbuf *sb, uint32_t cp)
{
    char b[4];
    if (cp < 0x80) {
        strbuf_addch(sb, (int)cp);
    } else if (cp < 0x800) {
        b[0] = (char)(0xC0 | (cp >> 6));
        b[1] = (char)(0x80 | (cp & 0x3F));
        strbuf_add(sb, b, 2);
    } else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | (cp >> 12));
        b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F));
        strbuf_add(sb, b, 3);
    } else {
        b[0] = (char)(0xF0 | (cp >> 18));
        b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[3] = (char)(0x80 | (cp & 0x3F));
        strbuf_add(sb, b, 4);
    }
}

/* ------------------------------------------------------------ NFC */

#define SBASE  0xAC00u
#define LBASE  0x1100u
#define VBASE  0x1161u
#define TBASE  0x11A7u
#define LCOUNT 19u
#define VCOUNT 21u
#define TCOUNT 28u
#define NCOUNT (VCOUNT * TCOUNT)
#define SCOUNT (LCOUNT * NCOUNT)

static int nfc_ccc_of(uint32_t cp)
{
    size_t lo = 0, hi = sizeof(nfc_ccc) / sizeof(nfc_ccc[0]);
    if (cp < 0x300)
        return 0;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (nfc_ccc[mid].cp == cp)
            return nfc_ccc[mid].ccc;
        if (nfc_ccc[mid].cp < cp)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

static int nfc_not_yes(uint32_t cp)
{
    size_t lo = 0, hi = sizeof(nfc_qc) / sizeof(nfc_qc[0]);
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cp < nfc_qc[mid].lo)
            hi = mid;
        else if (cp > nfc_qc[mid].hi)
            lo = mid + 1;
        else
            return 1;
    }
    return 0;
}

/* BMP code points with ccc != 0 or NFC_Quick_Check != Yes: one bit each. */
static uint8_t nfc_bmp_flag[0x10000 / 8];
static pthread_once_t nfc_bmp_once = PTHREAD_ONCE_INIT;
static void nfc_bmp_init(void)
{
    size_t i;
    uint32_t cp;
    for (i = 0; i < sizeof(nfc_ccc) / sizeof(nfc_ccc[0]); i++)
        if (nfc_ccc[i].cp < 0x10000)
            nfc_bmp_flag[nfc_ccc[i].cp >> 3] |= (uint8_t)(1u << (nfc_ccc[i].cp & 7));
    for (i = 0; i < sizeof(nfc_qc) / sizeof(nfc_qc[0]); i++)
        for (cp = nfc_qc[i].lo; cp <= nfc_qc[i].hi && cp < 0x10000; cp++)
            nfc_bmp_flag[cp >> 3] |= (uint8_t)(1u << (cp & 7));
}

/* NFC quick check on valid UTF-8: 1 when the text is certainly NFC. */
static int nfc_quick_yes(const unsigned char *p, size_t n)
{
    size_t i = 0;
    int last = 0;
    while (i < n) {
        size_t k;
        uint32_t cp;
        int c;
        if (p[i] < 0xCC) { /* < U+0300: ccc 0, quick-check yes */
            last = 0;
            i += p[i] < 0x80 ? 1 : 2;
            continue;
        }
        cp = utf8_decode(p + i, &k);
        i += k;
        if (cp < 0x10000 && !(nfc_bmp_flag[cp >> 3] & (1u << (cp & 7)))) {
            last = 0; /* ccc 0 and quick-check yes */
            continue;
        }
        c = nfc_ccc_of(cp);
        if (c && last > c)
            return 0;
        if (nfc_not_yes(cp))
            return 0;
        last = c;
    }
    return 1;
}

static void nfc_push(struct workspace *ws, uint32_t cp)
{
    ALLOC_GROW(ws->cps, ws->cps_nr + 1, ws->cps_alloc);
    ws->cps[ws->cps_nr++] = cp;
}

static void nfc_decompose(struct workspace *ws, uint32_t cp)
{
    size_t lo = 0, hi = sizeof(nfc_decomp) / sizeof(nfc_decomp[0]);
    if (cp >= SBASE && cp < SBASE + SCOUNT) {
        uint32_t s = cp - SBASE;
        nfc_push(ws, LBASE + s / NCOUNT);
        nfc_push(ws, VBASE + (s % NCOUNT) / TCOUNT);
        if (s % TCOUNT)
            nfc_push(ws, TBASE + s % TCOUNT);
        return;
    }
    if (cp >= 0xC0) {
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (nfc_decomp[mid].cp == cp) {
                size_t j;
                for (j = 0; j < nfc_decomp[mid].len; j++)
                    nfc_push(ws, nfc_decomp_cps[nfc_decomp[mid].off + j]);
                return;
            }
            if (nfc_decomp[mid].cp < cp)
                lo = mid + 1;
            else
                hi = mid;
        }
    }
    nfc_push(ws, cp);
}

static uint32_t nfc_compose_pair(uint32_t a, uint32_t b)
{
    size_t lo = 0, hi = sizeof(nfc_comp) / sizeof(nfc_comp[0]);
    if (a >= LBASE && a < LBASE + LCOUNT && b >= VBASE && b < VBASE + VCOUNT)
        return SBASE + ((a - LBASE) * VCOUNT + (b - VBASE)) * TCOUNT;
    if (a >= SBASE && a < SBASE + SCOUNT && (a - SBASE) % TCOUNT == 0 && b > TBASE &&
        b < TBASE + TCOUNT)
        return a + (b - TBASE);
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const struct nfc_comp_entry *e = &nfc_comp[mid];
        if (e->a == a && e->b == b)
            return e->c;
        if (e->a < a || (e->a == a && e->b < b))
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

/* Append the NFC of valid UTF-8 p[0..n) to ws->norm. */
static void nfc_normalize(struct workspace *ws, const unsigned char *p, size_t n)
{
    size_t i = 0, j, starter, w;
    int last_ccc;
    ws->cps_nr = 0;
    while (i < n) {
        size_t k;
        uint32_t cp = utf8_decode(p + i, &k);
        i += k;
        nfc_decompose(ws, cp);
    }
    /* canonical ordering: stable insertion sort of runs of non-starters */
    for (j = 1; j < ws->cps_nr; j++) {
        int c = nfc_ccc_of(ws->cps[j]);
        size_t m = j;
        if (!c)
            continue;
        while (m > 0) {
            int pc = nfc_ccc_of(ws->cps[m - 1]);
            uint32_t t;
            if (!pc || pc <= c)
                break;
            t = ws->cps[m - 1];
            ws->cps[m - 1] = ws->cps[m];
            ws->cps[m] = t;
            m--;
        }
    }
    /* canonical composition (UAX #15) */
    if (ws->cps_nr) {
        starter = nfc_ccc_of(ws->cps[0]) ? SIZE_MAX : 0;
        last_ccc = nfc_ccc_of(ws->cps[0]);
        w = 1;
        for (j = 1; j < ws->cps_nr; j++) {
            uint32_t cp = ws->cps[j];
            int c = nfc_ccc_of(cp);
            if (starter != SIZE_MAX && (w == starter + 1 || (last_ccc != 0 && last_ccc < c))) {
                uint32_t comp = nfc_compose_pair(ws->cps[starter], cp);
                if (comp) {
                    ws->cps[starter] = comp;
                    continue;
                }
            }
            if (!c)
                starter = w;
            last_ccc = c;
            ws->cps[w++] = cp;
        }
        ws->cps_nr = w;
    }
    for (j = 0; j < ws->cps_nr; j++)
        utf8_put(&ws->norm, ws->cps[j]);
}

/* 1 when cp has ccc 0 and NFC_Quick_Check Yes: normalization never crosses it. */
static int nfc_stable_starter(uint32_t cp)
{
    if (cp < 0x300)
        return 1;
    if (cp < 0x10000 && !(nfc_bmp_flag[cp >> 3] & (1u << (cp & 7))))
        return 1;
    return !nfc_ccc_of(cp) && !nfc_not_yes(cp);
}

/*
 * NFC of valid UTF-8 p[0..n) into ws->norm, normalizing only the spans
 * between stable starters around characters that fail the quick check, and
 * copying the rest unchanged.
 */
static void nfc_text(struct workspace *ws, const unsigned char *p, size_t n)
{
    size_t i = 0, safe = 0, copied = 0;
    int last = 0;
    strbuf_reset(&ws->norm);
    while (i < n) {
        size_t k, e;
        uint32_t cp;
        int c;
        if (p[i] < 0xCC) {
            safe = i;
            last = 0;
            i += p[i] < 0x80 ? 1 : 2;
            continue;
        }
        cp = utf8_decode(p + i, &k);
        if (cp < 0x10000 && !(nfc_bmp_flag[cp >> 3] & (1u << (cp & 7)))) {
            safe = i;
            last = 0;
            i += k;
            continue;
        }
        c = nfc_ccc_of(cp);
        if (!(c && last > c) && !nfc_not_yes(cp)) {
            if (!c)
                safe = i;
            last = c;
            i += k;
            continue;
        }
        /* trouble: normalize from the last stable starter to the next one */
        e = i + k;
        while (e < n) {
            size_t k2;
            uint32_t cp2 = utf8_decode(p + e, &k2);
            if (nfc_stable_starter(cp2))
                break;
            e += k2;
        }
        strbuf_add(&ws->norm, p + copied, safe - copied);
        nfc_normalize(ws, p + safe, e - safe);
        copied = i = safe = e;
        last = 0;
    }
    strbuf_add(&ws->norm, p + copied, n - copied);
}

/* ------------------------------------------------------------ output */

struct enc_out {
    uint32_t *ids;
    size_t nr, alloc;
    int count_only;
};

static inline void out_add(struct enc_out *o, const uint32_t *ids, size_t n)
{
    if (!o->count_only) {
        ALLOC_GROW(o->ids, o->nr + n, o->alloc);
        memcpy(o->ids + o->nr, ids, n * sizeof(*ids));
    }
    o->nr += n;
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

static inline int heap_less(const struct heap_entry *a, const struct heap_entry *b)
{
    return a->rank < b->rank || (a->rank == b->rank && a->start < b->start);
}

static void heap_push(struct workspace *ws, struct heap_entry e)
{
    size_t i;
    ALLOC_GROW(ws->heap, ws->heap_nr + 1, ws->heap_alloc);
    i = ws->heap_nr++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!heap_less(&e, &ws->heap[parent]))
            break;
        ws->heap[i] = ws->heap[parent];
        i = parent;
    }
    ws->heap[i] = e;
}

/* Put e at hole i and sift it down (heap of n entries). */
static void heap_sift_down(struct heap_entry *heap, size_t n, size_t i, struct heap_entry e)
{
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && heap_less(&heap[c + 1], &heap[c]))
            c++;
        if (!heap_less(&heap[c], &e))
            break;
        heap[i] = heap[c];
        i = c;
    }
    heap[i] = e;
}

static struct heap_entry heap_pop(struct workspace *ws)
{
    struct heap_entry top = ws->heap[0], last = ws->heap[--ws->heap_nr];
    if (ws->heap_nr)
        heap_sift_down(ws->heap, ws->heap_nr, 0, last);
    return top;
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
    heap_push(ws, h);
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
            ALLOC_GROW(ws->heap, ws->heap_nr + 1, ws->heap_alloc);
            ws->heap[ws->heap_nr++] = h;
        }
    }
    for (i = (uint32_t)(ws->heap_nr / 2); i-- > 0;)
        heap_sift_down(ws->heap, ws->heap_nr, i, ws->heap[i]);
    while (ws->heap_nr) {
        struct heap_entry h = heap_pop(ws);
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
    if (n < SMALL_PIECE)
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

static void bpe_piece(const struct tokenizer *tk, struct workspace *ws, const char *p, size_t n,
                      struct enc_out *out)
{
    uint64_t h, k0 = 0, k1 = 0;
    struct hot_slot *hs = NULL;
    if (n == 1) {
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
    if (n <= tk->max_tok_len) {
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
    if (tk->nfc)
        pthread_once(&nfc_bmp_once, nfc_bmp_init);
    if (tk->nfc && !nfc_quick_yes((const unsigned char *)s, n)) {
        nfc_text(ws, (const unsigned char *)s, n);
        s = ws->norm.buf;
        n = ws->norm.len;
    }
    while (start < n) {
        /* the text was validated once (utf8_valid_prefix): never let PCRE2 re-check it */
        int rc = tk->jit ? pcre2_jit_match(tk->re, (PCRE2_SPTR)s, n, start, PCRE2_NO_UTF_CHECK,
                                           ws->md, ws->mctx)
                         : pcre2_match(tk->re, (PCRE2_SPTR)s, n, start, PCRE2_NO_UTF_CHECK, ws->md,
                                       ws->mctx);
        size_t b, e, k;
        if (rc < 0) {
            /* cannot happen with the supported patterns; cover the rest */
            bpe_piece(tk, ws, s + start, n - start, out);
            return;
        }
        b = ov[0];
        e = ov[1];
        if (b > start)
            bpe_piece(tk, ws, s + start, b - start, out);
        if (e == b) { /* empty match: one code point as its own piece */
            utf8_decode((const unsigned char *)s + b, &k);
            e = b + k;
        }
        bpe_piece(tk, ws, s + b, e - b, out);
        start = e;
    }
}

static void encode_plain(const struct tokenizer *tk, struct workspace *ws, const char *s, size_t n,
                         struct enc_out *out)
{
    size_t i = 0;
    char *tmp = NULL;
    if (tk->add_prefix_space && n && s[0] != ' ') {
        tmp = xmalloc(n + 1);
        tmp[0] = ' ';
        memcpy(tmp + 1, s, n);
        s = tmp;
        n++;
    }
    while (i < n) {
        size_t v = utf8_valid_prefix((const unsigned char *)s + i, n - i);
        if (v) {
            split_valid(tk, ws, s + i, v, out);
            i += v;
        }
        if (i < n) {
            size_t bad = utf8_invalid_run((const unsigned char *)s + i, n - i);
            bpe_piece(tk, ws, s + i, bad, out);
            i += bad;
        }
    }
    free(tmp);
}

static void encode_text(const struct tokenizer *tk, struct workspace *ws, const char *s, size_t n,
                        int allow_special, struct enc_out *out)
{
    size_t i, seg = 0;
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
    ws->slots = xcalloc(CACHE_SLOTS, sizeof(*ws->slots));
    ws->hot = xcalloc(HOT_SLOTS, sizeof(*ws->hot));
    return ws;
}

static void ws_put(struct tokenizer *tk, struct workspace *ws)
{
    pthread_mutex_lock(&tk->lock);
    ws->next = tk->pool;
    tk->pool = ws;
    pthread_mutex_unlock(&tk->lock);
}

static void ws_free(struct workspace *ws)
{
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
    free(ws->cps);
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
        vocab_set(tk, (uint32_t)rank, tmp, o);
        p = nl + 1;
    }
    if (!tk->nvocab) {
        strbuf_addf(err, "%s: no tokens in the rank file", file);
        return -1;
    }
    return vocab_build_hash(tk, tk->nvocab, NULL, err, file);
bad:
    strbuf_addf(err, "%s:%zu: not a .tiktoken rank line (\"<base64> <rank>\")", file, line);
    return -1;
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

static int bytelevel_decode(const int *inv, const char *s, unsigned char *out, size_t *olen)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s), i = 0, o = 0;
    while (i < n) {
        size_t k = utf8_seq(p + i, n - i);
        uint32_t cp;
        if (!k)
            return -1;
        cp = utf8_decode(p + i, &k);
        i += k;
        if (cp >= 0x144 || inv[cp] < 0)
            return -1;
        out[o++] = (unsigned char)inv[cp];
    }
    *olen = o;
    return 0;
}

static const cJSON *find_bytelevel(const cJSON *pt, int *use_regex, int *prefix)
{
    const char *type;
    if (!cJSON_IsObject(pt))
        return NULL;
    type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(pt, "type"));
    if (!type)
        return NULL;
    if (!strcmp(type, "ByteLevel")) {
        *use_regex = !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(pt, "use_regex"));
        *prefix = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pt, "add_prefix_space"));
        return pt;
    }
    if (!strcmp(type, "Sequence")) {
        const cJSON *it;
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(pt, "pretokenizers"))
        {
            const cJSON *r = find_bytelevel(it, use_regex, prefix);
            if (r)
                return r;
        }
    }
    return NULL;
}

/* The Split regex of the pre-tokenizer, NULL when none. *count = number of Splits. */
static const char *find_split(const cJSON *pt, int *count)
{
    const char *type, *res = NULL;
    if (!cJSON_IsObject(pt))
        return NULL;
    type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(pt, "type"));
    if (!type)
        return NULL;
    if (!strcmp(type, "Split")) {
        const cJSON *pat = cJSON_GetObjectItemCaseSensitive(pt, "pattern");
        (*count)++;
        return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(pat, "Regex"));
    }
    if (!strcmp(type, "Sequence")) {
        const cJSON *it;
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(pt, "pretokenizers"))
        {
            const char *r = find_split(it, count);
            if (r && !res)
                res = r;
        }
    }
    return res;
}

static int check_normalizer(struct tokenizer *tk, const cJSON *norm, const char *file,
                            struct strbuf *err)
{
    const char *type;
    if (!norm || cJSON_IsNull(norm))
        return 0;
    type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(norm, "type"));
    if (type && !strcmp(type, "NFC")) {
        tk->nfc = 1;
        return 0;
    }
    if (type && !strcmp(type, "Sequence")) {
        const cJSON *it;
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(norm, "normalizers"))
        {
            if (check_normalizer(tk, it, file, err) < 0)
                return -1;
        }
        return 0;
    }
    strbuf_addf(err, "%s: unsupported normalizer \"%s\" (only NFC is supported)", file,
                type ? type : "?");
    return -1;
}

static void find_bos(struct tokenizer *tk, const cJSON *pp)
{
    const char *type;
    const cJSON *it;
    if (!cJSON_IsObject(pp) || tk->nbos)
        return;
    type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(pp, "type"));
    if (!type)
        return;
    if (!strcmp(type, "Sequence")) {
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(pp, "processors")) find_bos(tk, it);
        return;
    }
    if (!strcmp(type, "TemplateProcessing")) {
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(pp, "special_tokens");
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(pp, "single"))
        {
            const cJSON *spt = cJSON_GetObjectItemCaseSensitive(it, "SpecialToken");
            const char *name;
            const cJSON *ids, *idv;
            if (!spt)
                break; /* the Sequence: BOS tokens are the ones before it */
            name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(spt, "id"));
            ids = name ? cJSON_GetObjectItemCaseSensitive(
                             cJSON_GetObjectItemCaseSensitive(st, name), "ids")
                       : NULL;
            if (ids) {
                cJSON_ArrayForEach(idv, ids)
                {
                    if (cJSON_IsNumber(idv) && idv->valuedouble >= 0) {
                        tk->bos = xreallocarray(tk->bos, tk->nbos + 1, sizeof(*tk->bos));
                        tk->bos[tk->nbos++] = (uint32_t)idv->valuedouble;
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

static int load_hf(struct tokenizer *tk, const char *file, const char *buf, size_t len,
                   struct strbuf *err)
{
    cJSON *root = cJSON_ParseWithLength(buf, len);
    const cJSON *model, *vocab, *it, *pt;
    const char *mtype, *split;
    int inv[0x144], use_regex = 0, prefix = 0, nsplit = 0, rc = -1;
    unsigned char tmp[1024];
    unsigned char *skip = NULL;
    size_t nbpe = 0;

    if (!root) {
        strbuf_addf(err, "%s: not valid JSON", file);
        return -1;
    }
    model = cJSON_GetObjectItemCaseSensitive(root, "model");
    mtype = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(model, "type"));
    vocab = cJSON_GetObjectItemCaseSensitive(model, "vocab");
    if (!mtype || strcmp(mtype, "BPE") || !cJSON_IsObject(vocab)) {
        strbuf_addf(err, "%s: not a BPE tokenizer.json (model.type is \"%s\")", file,
                    mtype ? mtype : "missing");
        goto out;
    }
    pt = cJSON_GetObjectItemCaseSensitive(root, "pre_tokenizer");
    if (!find_bytelevel(pt, &use_regex, &prefix)) {
        strbuf_addf(err, "%s: not a byte-level BPE model (no ByteLevel pre-tokenizer)", file);
        goto out;
    }
    split = find_split(pt, &nsplit);
    if (nsplit > 1 || (nsplit == 1 && !split) || (split && use_regex)) {
        strbuf_addf(err, "%s: unsupported pre-tokenizer (need exactly one regex split)", file);
        goto out;
    }
    tk->add_prefix_space = prefix;
    if (check_normalizer(tk, cJSON_GetObjectItemCaseSensitive(root, "normalizer"), file, err) < 0)
        goto out;

    byte_level_inverse(inv);
    tk->tok_bytes_alloc = len / 4 + 64;
    tk->tok_bytes = xmalloc(tk->tok_bytes_alloc);
    cJSON_ArrayForEach(it, vocab)
    {
        size_t o;
        double d = it->valuedouble;
        if (!cJSON_IsNumber(it) || d < 0 || d > 0x7FFFFFF || !it->string) {
            strbuf_addf(err, "%s: bad vocab entry \"%s\"", file, it->string ? it->string : "?");
            goto out;
        }
        if (strlen(it->string) > sizeof(tmp) || bytelevel_decode(inv, it->string, tmp, &o) < 0 ||
            !o) {
            strbuf_addf(err,
                        "%s: vocab entry \"%s\" is not byte-level (GPT-2 bytes_to_unicode) text",
                        file, it->string);
            goto out;
        }
        vocab_set(tk, (uint32_t)d, tmp, o);
    }
    nbpe = tk->nvocab;
    skip = xcalloc(nbpe ? nbpe : 1, 1);
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(root, "added_tokens"))
    {
        const char *content = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "content"));
        const cJSON *idv = cJSON_GetObjectItemCaseSensitive(it, "id");
        uint32_t id;
        if (!content || !cJSON_IsNumber(idv) || idv->valuedouble < 0 ||
            idv->valuedouble > 0x7FFFFFF) {
            strbuf_addf(err, "%s: bad added_tokens entry", file);
            goto out;
        }
        id = (uint32_t)idv->valuedouble;
        if (id < nbpe)
            skip[id] = 1;
        add_special(tk, content, strlen(content), id);
    }
    if (vocab_build_hash(tk, nbpe, skip, err, file) < 0)
        goto out;
    if (compile_pattern(tk, split ? split : pat_gpt2, err, file) < 0)
        goto out;
    find_bos(tk, cJSON_GetObjectItemCaseSensitive(root, "post_processor"));
    rc = 0;
out:
    free(skip);
    cJSON_Delete(root);
    return rc;
}

static int exe_dir(struct strbuf *out)
{
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    char *slash;
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    slash = strrchr(buf, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    strbuf_addstr(out, buf);
    return 0;
}

/* Find datasets/tokenizers/<name>.tiktoken; appends the path to out. */
static int find_named(const char *name, struct strbuf *out, struct strbuf *tried)
{
    struct strbuf dir = STRBUF_INIT;
    const char *home = getenv("DIPMAP_HOME");
    int k;
    for (k = 0; k < 4; k++) {
        strbuf_reset(&dir);
        if (k == 0) {
            if (!home || !*home)
                continue;
            strbuf_addf(&dir, "%s/datasets/tokenizers", home);
        } else if (k == 1 || k == 2) {
            if (exe_dir(&dir) < 0)
                continue;
            strbuf_addstr(&dir, k == 1 ? "/datasets/tokenizers" : "/../datasets/tokenizers");
        } else {
            strbuf_addstr(&dir, "datasets/tokenizers");
        }
        strbuf_addf(&dir, "/%s.tiktoken", name);
        if (!access(dir.buf, R_OK)) {
            strbuf_addstr(out, dir.buf);
            strbuf_release(&dir);
            return 0;
        }
        strbuf_addstr(&dir, ".gz");
        if (!access(dir.buf, R_OK)) {
            strbuf_addstr(out, dir.buf);
            strbuf_release(&dir);
            return 0;
        }
        strbuf_addf(tried, "%s%s", tried->len ? ", " : "", dir.buf);
    }
    strbuf_release(&dir);
    return -1;
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
        rc = load_hf(tk, tk->path, buf.buf, buf.len, &e);
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
                    add_special(tk, s->text, strlen(s->text), s->id);
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
    encode_text(tk, ws, text, len, 0, &out);
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
    ws = ws_get(tk);
    encode_text(tk, ws, text, len, allow_special, &out);
    ws_put(tk, ws);
    *ids = out.ids;
    *n = out.nr;
    return 0;
}

int tokenizer_decode(const struct tokenizer *tk, const uint32_t *ids, size_t n, struct strbuf *out)
{
    size_t i;
    if (tk->remote)
        return -1;
    for (i = 0; i < n; i++) {
        if (ids[i] >= tk->nvocab || !tk->tok_len[ids[i]])
            return -1;
        strbuf_add(out, tk->tok_bytes + tk->tok_off[ids[i]], tk->tok_len[ids[i]]);
    }
    return 0;
}

int tokenizer_token_bytes(const struct tokenizer *tk, uint32_t id, const char **bytes, size_t *len)
{
    if (tk->remote || id >= tk->nvocab || !tk->tok_len[id])
        return -1;
    *bytes = tk->tok_bytes + tk->tok_off[id];
    *len = tk->tok_len[id];
    return 0;
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

int tokenizer_is_remote(const struct tokenizer *tk)
{
    return tk->remote;
}

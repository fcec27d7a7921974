#ifndef TOKENIZER_INT_H
#define TOKENIZER_INT_H
/*
 * Private to the tokenizer files (tokenizer.c: vocabulary, workspaces, public
 * API; tokenizer_bpe.c: rank BPE and the piece caches; tokenizer_split.c:
 * the pre-tokenizer regex and splitting; tokenizer_load.c: loading;
 * tokenizer_remote.c: server-side counts; tokenizer_hf*.c: the Hugging Face
 * tokenizer.json pipeline): the tokenizer and workspace structures and the
 * helpers they share.
 */
#ifndef PCRE2_CODE_UNIT_WIDTH
#define PCRE2_CODE_UNIT_WIDTH 8
#endif
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <pcre2.h>

#include "base/sha256.h"
#include "base/strbuf.h"
#include "tokenizer/tokenizer.h"
#include "base/xalloc.h"

/* scratch strings per workspace: normalizer ping-pong, invalid-UTF-8 repair, one per pre-tokenizer
 */
#define HF_MAX_PRETOK 8
#define HF_BUFS       (HF_MAX_PRETOK + 3)

struct hf_model;

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
    /* Hugging Face pipeline scratch (tokenizer_hf*.c) */
    struct strbuf hbuf[HF_BUFS];
    uint32_t *sym_c, *sym_next, *sym_prev;
    size_t sym_alloc;
    int hf_parse;
    uint64_t ops; /* work units (see tokenizer_work()) */
    struct cache_slot *slots;
    struct hot_slot *hot;
    size_t cache_fill;
    char *keys;
    size_t keys_nr, keys_alloc;
    uint32_t *vals;
    size_t vals_nr, vals_alloc;
};

/*
 * Vocabulary hash slot: the first 8 bytes inline, so most checks touch one cache line.
 * The tokenizer's tables (this one, the piece cache and the hot cache above) are the hot
 * ones and keep their own layouts and inline probes, not base/hashmap.h (the cold tables'
 * map compares keys through a function pointer and keeps them outside the slot: one more
 * call and cache line per probe, on the path BENCHMARKS.md's tokenizer figures time).
 */
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
    uint64_t ops; /* work units of the calls that finished */

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
    int jit;                     /* JIT compiled: use the pcre2_jit_match() fast path */
    int special_parse;           /* special-token text becomes its id (--special parse) */
    struct hf_model *hf;         /* the tokenizer.json pipeline; NULL for .tiktoken */
    uint32_t *dec_off, *dec_len; /* decoded bytes of each id when they differ from tok_* */
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

/*
 * The BPE merge heap of both models (rank BPE in tokenizer_bpe.c, merge-rank BPE in
 * tokenizer_hf_bpe.c): a binary min-heap in ws->heap ordered by rank, then start,
 * so equal ranks merge leftmost first. Inline: it is the merge loop's hot path.
 */
static inline int tk_heap_less(const struct heap_entry *a, const struct heap_entry *b)
{
    return a->rank < b->rank || (a->rank == b->rank && a->start < b->start);
}

static inline void tk_heap_push(struct workspace *ws, struct heap_entry e)
{
    size_t i;
    ALLOC_GROW(ws->heap, ws->heap_nr + 1, ws->heap_alloc);
    i = ws->heap_nr++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!tk_heap_less(&e, &ws->heap[parent]))
            break;
        ws->heap[i] = ws->heap[parent];
        i = parent;
    }
    ws->heap[i] = e;
}

/* Put e at hole i and sift it down (heap of n entries). */
static inline void tk_heap_sift_down(struct heap_entry *heap, size_t n, size_t i,
                                     struct heap_entry e)
{
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && tk_heap_less(&heap[c + 1], &heap[c]))
            c++;
        if (!tk_heap_less(&heap[c], &e))
            break;
        heap[i] = heap[c];
        i = c;
    }
    heap[i] = e;
}

/* e appended in any order, before tk_heap_heapify(). */
static inline void tk_heap_append(struct workspace *ws, struct heap_entry e)
{
    ALLOC_GROW(ws->heap, ws->heap_nr + 1, ws->heap_alloc);
    ws->heap[ws->heap_nr++] = e;
}

/* Entries appended to ws->heap in any order made a heap in O(n). */
static inline void tk_heap_heapify(struct workspace *ws)
{
    size_t i;
    for (i = ws->heap_nr / 2; i-- > 0;)
        tk_heap_sift_down(ws->heap, ws->heap_nr, i, ws->heap[i]);
}

/* The least entry, removed (ws->heap_nr > 0). */
static inline struct heap_entry tk_heap_pop(struct workspace *ws)
{
    struct heap_entry top = ws->heap[0], last = ws->heap[--ws->heap_nr];
    if (ws->heap_nr)
        tk_heap_sift_down(ws->heap, ws->heap_nr, 0, last);
    return top;
}

/*
 * The vocabulary hash of every model (inline: the BPE merge loops look ids up in it;
 * tokenizer.c builds it).
 */
static inline uint64_t tk_mix64(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

static inline uint64_t tk_hash_bytes(const unsigned char *p, size_t n)
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
    return tk_mix64(h);
}

static inline uint32_t tk_vocab_lookup_h(const struct tokenizer *tk, const char *p, size_t n,
                                         uint64_t h)
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

static inline uint32_t tk_vocab_lookup(const struct tokenizer *tk, const char *p, size_t n)
{
    if (n > tk->max_tok_len)
        return NO_RANK;
    return tk_vocab_lookup_h(tk, p, n, tk_hash_bytes((const unsigned char *)p, n));
}

/* tokenizer.c */
uint32_t tk_vocab_find(const struct tokenizer *tk, const char *p, size_t n);
/* The same in steps, so that a loader can prefetch a batch of lookups: */
uint64_t tk_hash(const char *p, size_t n);
void tk_vocab_prefetch(const struct tokenizer *tk, uint64_t h);
uint32_t tk_vocab_find_hashed(const struct tokenizer *tk, const char *p, size_t n, uint64_t h);
void tk_vocab_set(struct tokenizer *tk, uint32_t id, const void *bytes, size_t len);
/* Hash over BPE ids [0, nbpe) not marked in skip; need_bytes: all 256 single bytes must be tokens.
 */
int tk_vocab_build_hash(struct tokenizer *tk, size_t nbpe, const unsigned char *skip,
                        int need_bytes, struct strbuf *err, const char *file);
void tk_add_special(struct tokenizer *tk, const char *text, size_t len, uint32_t id);
/* Compile a pre-tokenizer regex (UTF, UCP, White_Space-fixed \s); NULL with err on failure. */
pcre2_code *tk_compile_regex(const char *pat, size_t len, int *jit, struct strbuf *err,
                             const char *file);
/* Merge one piece through the piece caches and the model (rank BPE or tk->hf). */
void tk_bpe_piece(const struct tokenizer *tk, struct workspace *ws, const char *p, size_t n,
                  struct enc_out *out);

/* tokenizer_hf*.c (loading in tokenizer_hf_load.c, the merge in tokenizer_hf_bpe.c) */
int hf_load(struct tokenizer *tk, const char *file, const char *buf, size_t len,
            struct strbuf *err);
void hf_free(struct hf_model *m);
void hf_encode(const struct tokenizer *tk, struct workspace *ws, const char *s, size_t n, int parse,
               struct enc_out *out);
/* The model's merge of one piece into ws->pids (cache misses only). */
void hf_bpe(const struct tokenizer *tk, struct workspace *ws, const char *p, size_t n);
/* 1 when the whole piece may be looked up in the vocabulary first (ignore_merges). */
int hf_whole_word_first(const struct hf_model *m);
int hf_byte_level(const struct hf_model *m);
/* Decoder: one leading space of the decoded text is dropped (Strip / Metaspace decoders). */
int hf_strip_leading_space(const struct hf_model *m);

void tk_encode_text(const struct tokenizer *tk, struct workspace *ws, const char *s, size_t n,
                    int allow_special, struct enc_out *out);

long tk_remote_count(struct tokenizer *tk, const char *text, size_t len, struct strbuf *err);

/* Trim nvocab to one past the largest used id. */
void tk_vocab_trim(struct tokenizer *tk);

void tk_ws_free(struct workspace *ws);

int tk_compile_pattern(struct tokenizer *tk, const char *pat, struct strbuf *err, const char *file);

/* ------------------------------------------------------------ loading */
struct tokenizer *tk_new(void);

#endif

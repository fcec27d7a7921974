/*
 * Rank BPE: tiktoken's lowest-rank-leftmost merge of one piece (linear
 * scan for short pieces, heap + linked list for long ones) and the piece
 * caches in front of it, for both model kinds (rank files and tk->hf).
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

#include "base/sha256.h"
#include "base/strbuf.h"
#include "tokenizer/tokenizer-int.h"
#include "tokenizer/tokenizer.h"
#include "base/unicode.h"
#include "base/xalloc.h"

#include "base/banned.h"

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
    return tk_vocab_lookup(tk, p + start[i], len);
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
        uint32_t id = len == 1 ? tk->byte_id[(unsigned char)p[start[i]]]
                               : tk_vocab_lookup(tk, p + start[i], len);
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
        r = tk_vocab_lookup(tk, p + a, e - a);
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
        uint32_t id = len == 1 ? tk->byte_id[(unsigned char)p[i]] : tk_vocab_lookup(tk, p + i, len);
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
    h = tk_hash_bytes((const unsigned char *)p, n);
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
        uint32_t id = tk_vocab_lookup_h(tk, p, n, h);
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

/*
 * The Hugging Face BPE model (models/bpe): merges ranked by position in an
 * open-addressing table, byte_fallback, ignore_merges,
 * continuing_subword_prefix / end_of_word_suffix, unk fusing; word.rs
 * merge_all's heap.
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

void hf_merge_put(struct hf_model *m, uint32_t a, uint32_t b, uint32_t rank, uint32_t nid)
{
    uint64_t k = hf_mkey(a, b);
    size_t i = hf_mhash(k) & m->merges_mask;
    while (m->merges[i].key && m->merges[i].key != k)
        i = (i + 1) & m->merges_mask;
    m->merges[i].key = k; /* a repeated pair: the later line wins, as in HF's HashMap */
    m->merges[i].rank = rank;
    m->merges[i].nid = nid;
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

/*
 * The initial symbols of a word for a model that is not byte-level: each character's id
 * (with the model's continuing prefix and end suffix), else its byte fallbacks, else unk
 * (consecutive unks fused when the model says so). Returns how many, in ws->sym_c.
 */
static size_t char_symbols(const struct tokenizer *tk, struct workspace *ws, const char *p,
                           size_t n)
{
    const struct hf_model *m = tk->hf;
    uint32_t *c = ws->sym_c;
    size_t ns = 0, i;
    long unk = -1; /* pending (fused) unk */
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
    return ns;
}

/* The merges applied, lowest rank first (a heap of candidate pairs), then the ids to ws->pids. */
static void merge_symbols(const struct hf_model *m, struct workspace *ws, size_t ns)
{
    uint32_t *c, *nx, *pv;
    size_t i;
    sym_reserve(ws, ns + 1);
    c = ws->sym_c;
    nx = ws->sym_next;
    pv = ws->sym_prev;
    ws->heap_nr = 0;
    for (i = 0; i < ns; i++) {
        nx[i] = i + 1 < ns ? (uint32_t)(i + 1) : DEAD;
        pv[i] = i ? (uint32_t)(i - 1) : DEAD;
        if (i + 1 < ns) {
            const struct merge_slot *ms = hf_merge_find(m, c[i], c[i + 1]);
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
        ms = hf_merge_find(m, c[pos], c[right]);
        if (!ms || ms->nid != top.mid)
            continue; /* stale */
        c[pos] = top.mid;
        nx[pos] = nx[right];
        c[right] = DEAD;
        if (nx[pos] != DEAD)
            pv[nx[pos]] = pos;
        if (pv[pos] != DEAD) {
            ms = hf_merge_find(m, c[pv[pos]], c[pos]);
            if (ms)
                hpush(ws, ms->rank, pv[pos], ms->nid);
        }
        if (nx[pos] != DEAD) {
            ms = hf_merge_find(m, c[pos], c[nx[pos]]);
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

void hf_bpe(const struct tokenizer *tk, struct workspace *ws, const char *p, size_t n)
{
    size_t ns = 0, i;
    sym_reserve(ws, n + 1);
    if (tk->hf->byte_level)
        for (i = 0; i < n; i++)
            ws->sym_c[ns++] = tk->byte_id[(unsigned char)p[i]];
    else
        ns = char_symbols(tk, ws, p, n);
    merge_symbols(tk->hf, ws, ns);
}

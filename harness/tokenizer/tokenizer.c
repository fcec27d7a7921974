/*
 * Native byte-level BPE tokenizer (see tokenizer.h): the vocabulary hash,
 * per-thread workspaces and the public API. Rank BPE is tokenizer_bpe.c,
 * the pre-tokenizer tokenizer_split.c, loading tokenizer_load.c, remote
 * (server-side) counting tokenizer_remote.c, the Hugging Face pipeline
 * tokenizer_hf*.c; all share tokenizer-int.h.
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

uint64_t tk_hash(const char *p, size_t n)
{
    return tk_hash_bytes((const unsigned char *)p, n);
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
    return tk_vocab_lookup_h(tk, p, n, h);
}

uint32_t tk_vocab_find(const struct tokenizer *tk, const char *p, size_t n)
{
    return tk_vocab_lookup(tk, p, n);
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
void tk_vocab_trim(struct tokenizer *tk)
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
            tk_hash_bytes((const unsigned char *)tk->tok_bytes + tk->tok_off[i], tk->tok_len[i]);
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
        if (tk_vocab_lookup_h(tk, p, n, h) != NO_RANK)
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
        tk->byte_id[i] = tk_vocab_lookup_h(tk, &c, 1, tk_hash_bytes((const unsigned char *)&c, 1));
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

void tk_ws_free(struct workspace *ws)
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

/* ------------------------------------------------------------ public API */

long tokenizer_count_err(struct tokenizer *tk, const char *text, size_t len, struct strbuf *err)
{
    struct enc_out out = {NULL, 0, 0, 1};
    struct workspace *ws;
    if (tk->remote)
        return tk_remote_count(tk, text, len, err);
    ws = ws_get(tk);
    tk_encode_text(tk, ws, text, len, tk->special_parse, &out);
    ws_put(tk, ws);
    return (long)out.nr;
}

long tokenizer_count(struct tokenizer *tk, const char *text, size_t len)
{
    struct strbuf err = STRBUF_INIT;
    long n = tokenizer_count_err(tk, text, len, &err);
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
    tk_encode_text(tk, ws, text, len, allow_special, &out);
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

const char *tokenizer_pcre2_unicode_version(void)
{
    static char v[32];
    if (!v[0] && pcre2_config(PCRE2_CONFIG_UNICODE_VERSION, v) < 0)
        snprintf(v, sizeof(v), "unknown");
    return v;
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

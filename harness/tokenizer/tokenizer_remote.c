/*
 * Remote (server-side) counting: a tokenizer whose counts come from the
 * server's /tokenize through a callback, with an in-memory cache by text
 * hash and an optional persistent cache (the run store).
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

long tk_remote_count(struct tokenizer *tk, const char *text, size_t len, struct strbuf *err)
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

/*
 * Loading a tokenizer: .tiktoken rank files (base64 token, rank) with the
 * pattern and special tokens of their encoding, Hugging Face tokenizer.json
 * files (tokenizer_hf_load.c), shipped names looked up beside the binary;
 * and freeing one.
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

#include "base/base64.h"
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

/* ------------------------------------------------------------ loading */

struct tokenizer *tk_new(void)
{
    struct tokenizer *tk = xcalloc(1, sizeof(*tk));
    pthread_mutex_init(&tk->lock, NULL);
    return tk;
}

static int load_tiktoken(struct tokenizer *tk, const char *file, const char *buf, size_t len,
                         struct strbuf *err)
{
    const char *p = buf, *endp = buf + len;
    size_t line = 0;
    unsigned char tmp[1024];
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
            int v = base64_value((unsigned char)*p);
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
            rc = tk_compile_pattern(tk, pattern, &e, tk->path);
        if (!rc && specials) {
            const struct named_special *s;
            for (s = specials; s->text; s++)
                if (s->id >= tk->nvocab || !tk->tok_len[s->id])
                    tk_add_special(tk, s->text, strlen(s->text), s->id);
        }
    }
    if (rc < 0)
        goto fail;
    tk_vocab_trim(tk);
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
        tk_ws_free(ws);
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

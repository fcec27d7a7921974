/*
 * The pre-tokenizer of the rank BPE tokenizers: the encoding's regex
 * compiled with PCRE2 JIT (White_Space-fixed \s), text split into pieces
 * (special tokens first when they are parsed), each piece merged by
 * tokenizer_bpe.c.
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

/* Unicode White_Space (PCRE2 10.42's \s with UCP also matches U+180E). */
static const char ws_class[] = "\\t-\\r\\x20\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}"
                               "\\x{2029}\\x{202F}\\x{205F}\\x{3000}";

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

int tk_compile_pattern(struct tokenizer *tk, const char *pat, struct strbuf *err, const char *file)
{
    tk->re = tk_compile_regex(pat, strlen(pat), &tk->jit, err, file);
    return tk->re ? 0 : -1;
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

void tk_encode_text(const struct tokenizer *tk, struct workspace *ws, const char *s, size_t n,
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

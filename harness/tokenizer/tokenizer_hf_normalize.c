/*
 * The Hugging Face normalizers (NFC, NFD, NFKC, NFKD, Lowercase, Strip,
 * Prepend, Replace, Sequence) and the character classes they and the
 * pre-tokenizers test.
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

/* ------------------------------------------------------------ normalizers */

int hf_is_utf8_valid(const char *s, size_t n)
{
    return utf8_valid_prefix((const unsigned char *)s, n) == n;
}

static void replace_all(const struct hf_norm *nm, struct workspace *ws, const char *s, size_t n,
                        struct strbuf *out)
{
    size_t start = 0;
    if (!nm->re) {
        while (start <= n) {
            const char *hit = nm->len ? memmem(s + start, n - start, nm->str, nm->len) : NULL;
            if (!hit)
                break;
            strbuf_add(out, s + start, (size_t)(hit - (s + start)));
            strbuf_add(out, nm->content, nm->clen);
            start = (size_t)(hit - s) + nm->len;
        }
        strbuf_add(out, s + start, n - start);
        return;
    }
    while (start < n) {
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(ws->md);
        int rc = nm->jit ? pcre2_jit_match(nm->re, (PCRE2_SPTR)s, n, start, PCRE2_NO_UTF_CHECK,
                                           ws->md, ws->mctx)
                         : pcre2_match(nm->re, (PCRE2_SPTR)s, n, start, PCRE2_NO_UTF_CHECK, ws->md,
                                       ws->mctx);
        size_t b, e;
        if (rc < 0)
            break;
        b = ov[0];
        e = ov[1];
        strbuf_add(out, s + start, b - start);
        strbuf_add(out, nm->content, nm->clen);
        if (e == b) { /* empty match: keep one code point and go on */
            size_t k;
            if (b >= n)
                break;
            utf8_decode_valid((const unsigned char *)s + b, &k);
            strbuf_add(out, s + b, k);
            e = b + k;
        }
        start = e;
    }
    if (start < n)
        strbuf_add(out, s + start, n - start);
}

/* Apply the normalizers to valid UTF-8 s; returns the result (s itself when there are none). */
const char *hf_normalize_text(const struct hf_model *m, struct workspace *ws, const char *s,
                              size_t n, size_t *outn, int b0)
{
    size_t i;
    int cur = b0;
    for (i = 0; i < m->nnorms; i++) {
        const struct hf_norm *nm = &m->norms[i];
        struct strbuf *o = &ws->hbuf[cur];
        strbuf_reset(o);
        ws->ops += n / 64 + 1;
        switch (nm->kind) {
        case NORM_NF:
            if (unicode_is_normalized_quick(nm->form, s, n))
                continue;
            unicode_normalize(nm->form, s, n, o);
            break;
        case NORM_LOWER: {
            size_t j = 0;
            while (j < n) {
                size_t k, q, c;
                uint32_t cp = utf8_decode_valid((const unsigned char *)s + j, &k), l[2];
                if (cp < 0x80) {
                    strbuf_addch(o, cp >= 'A' && cp <= 'Z' ? (int)cp + 32 : (int)cp);
                    j++;
                    continue;
                }
                c = unicode_char_lower(cp, l);
                for (q = 0; q < c; q++)
                    utf8_put(o, l[q]);
                j += k;
            }
            break;
        }
        case NORM_STRIP: {
            size_t b = 0, e = n, k;
            while (nm->left && b < e) {
                uint32_t cp = utf8_decode_valid((const unsigned char *)s + b, &k);
                if (!hf_is_white(cp))
                    break;
                b += k;
            }
            while (nm->right && e > b) {
                long cp = hf_last_cp(s + b, e - b);
                char tmp[4];
                if (cp < 0 || !hf_is_white((uint32_t)cp))
                    break;
                e -= utf8_encode((uint32_t)cp, tmp);
            }
            strbuf_add(o, s + b, e - b);
            break;
        }
        case NORM_PREPEND:
            if (!n)
                continue;
            strbuf_add(o, nm->str, nm->len);
            strbuf_add(o, s, n);
            break;
        case NORM_REPLACE:
            replace_all(nm, ws, s, n, o);
            break;
        }
        s = o->buf;
        n = o->len;
        cur = cur == b0 ? b0 + 1 : b0;
    }
    *outn = n;
    return s;
}

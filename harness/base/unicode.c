/*
 * Unicode for all of dipmap (see unicode.h): UTF-8, NFC/NFD/NFKC/NFKD with
 * quick-check fast paths, Python-compatible lower-casing and the character
 * classes of the answer normaliser. Tables: unicode_tables.inc (generated).
 */
#include "base/unicode.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/xalloc.h"

#include "base/banned.h"

struct uc_ccc_entry {
    uint32_t cp;
    uint8_t ccc;
};
struct uc_decomp_entry {
    uint32_t cp;
    uint16_t off;
    uint8_t len;
};
struct uc_comp_entry {
    uint32_t a, b, c;
};
struct uc_range {
    uint32_t lo, hi;
};
struct uc_lrange {
    uint32_t lo, hi;
    int32_t delta;
    int32_t stride;
};
#include "base/unicode_tables.inc"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------ UTF-8 */

size_t utf8_seq(const unsigned char *p, size_t n)
{
    unsigned c = p[0];
    if (c < 0x80)
        return 1;
    if (c < 0xC2)
        return 0;
    if (c < 0xE0)
        return n >= 2 && (p[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c < 0xF0) {
        if (n < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80)
            return 0;
        if ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] >= 0xA0))
            return 0;
        return 3;
    }
    if (c < 0xF5) {
        if (n < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80)
            return 0;
        if ((c == 0xF0 && p[1] < 0x90) || (c == 0xF4 && p[1] >= 0x90))
            return 0;
        return 4;
    }
    return 0;
}

size_t utf8_valid_prefix(const unsigned char *p, size_t n)
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

size_t utf8_invalid_run(const unsigned char *p, size_t n)
{
    size_t i = 0;
    while (i < n && !utf8_seq(p + i, n - i))
        i++;
    return i;
}

size_t utf8_decode(const unsigned char *s, size_t len, uint32_t *cp)
{
    size_t k;
    if (!len || !utf8_seq(s, len))
        return 0;
    *cp = utf8_decode_valid(s, &k);
    return k;
}

size_t utf8_char_start(const char *s, size_t i)
{
    while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80)
        i--;
    return i;
}

size_t utf8_encode(uint32_t cp, char b[4])
{
    if (cp >= UTF8_INVALID_BASE) {
        b[0] = (char)(cp - UTF8_INVALID_BASE);
        return 1;
    }
    if (cp < 0x80) {
        b[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        b[0] = (char)(0xC0 | (cp >> 6));
        b[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        b[0] = (char)(0xE0 | (cp >> 12));
        b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    b[0] = (char)(0xF0 | (cp >> 18));
    b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    b[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

void utf8_put(struct strbuf *sb, uint32_t cp)
{
    char b[4];
    strbuf_add(sb, b, utf8_encode(cp, b));
}

/* ------------------------------------------------------------ tables */

static int in_ranges(const struct uc_range *r, size_t n, uint32_t c)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c < r[mid].lo)
            hi = mid;
        else if (c > r[mid].hi)
            lo = mid + 1;
        else
            return 1;
    }
    return 0;
}

static int ccc_of(uint32_t cp)
{
    size_t lo = 0, hi = NELEM(uc_ccc);
    if (cp < 0x300)
        return 0;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (uc_ccc[mid].cp == cp)
            return uc_ccc[mid].ccc;
        if (uc_ccc[mid].cp < cp)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

static const struct uc_decomp_entry *decomp_find(const struct uc_decomp_entry *t, size_t n,
                                                 uint32_t cp)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t[mid].cp == cp)
            return &t[mid];
        if (t[mid].cp < cp)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

#define SBASE  0xAC00u
#define LBASE  0x1100u
#define VBASE  0x1161u
#define TBASE  0x11A7u
#define LCOUNT 19u
#define VCOUNT 21u
#define TCOUNT 28u
#define NCOUNT (VCOUNT * TCOUNT)
#define SCOUNT (LCOUNT * NCOUNT)

static int is_compat(enum unicode_form f)
{
    return f == UNICODE_NFKC || f == UNICODE_NFKD;
}
static int is_composed(enum unicode_form f)
{
    return f == UNICODE_NFC || f == UNICODE_NFKC;
}

/* 1 when cp is not quick-check Yes for the form (ignoring the ccc ordering rule). */
static int qc_not_yes(enum unicode_form f, uint32_t cp)
{
    switch (f) {
    case UNICODE_NFC:
        return in_ranges(uc_nfc_qc, NELEM(uc_nfc_qc), cp);
    case UNICODE_NFKC:
        return in_ranges(uc_nfkc_qc, NELEM(uc_nfkc_qc), cp);
    case UNICODE_NFD:
        return (cp >= SBASE && cp < SBASE + SCOUNT) ||
               decomp_find(uc_cdecomp, NELEM(uc_cdecomp), cp) != NULL;
    case UNICODE_NFKD:
        return (cp >= SBASE && cp < SBASE + SCOUNT) ||
               decomp_find(uc_cdecomp, NELEM(uc_cdecomp), cp) != NULL ||
               decomp_find(uc_kdecomp, NELEM(uc_kdecomp), cp) != NULL;
    }
    return 1;
}

/* BMP code points with ccc != 0 or not quick-check Yes, per form: one bit each. */
static uint8_t bmp_flag[4][0x10000 / 8];
static pthread_once_t bmp_once = PTHREAD_ONCE_INIT;
static void bmp_init(void)
{
    int f;
    uint32_t cp;
    for (f = 0; f < 4; f++)
        for (cp = 0x80; cp < 0x10000; cp++)
            if ((cp < 0xD800 || cp > 0xDFFF) && (ccc_of(cp) || qc_not_yes(f, cp)))
                bmp_flag[f][cp >> 3] |= (uint8_t)(1u << (cp & 7));
}

static inline int bmp_plain(enum unicode_form f, uint32_t cp)
{
    return cp < 0x10000 && !(bmp_flag[f][cp >> 3] & (1u << (cp & 7)));
}

/* ------------------------------------------------------------ normalization */

static inline void cp_push(struct unicode_cps *b, uint32_t c)
{
    ALLOC_GROW(b->v, b->n + 1, b->alloc);
    b->v[b->n++] = c;
}

void unicode_cps_push(struct unicode_cps *c, uint32_t cp)
{
    cp_push(c, cp);
}

void unicode_cps_release(struct unicode_cps *c)
{
    free(c->v);
    c->v = NULL;
    c->n = c->alloc = 0;
}

void unicode_cps_decode(struct unicode_cps *c, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        uint32_t cp;
        size_t k = utf8_decode(p + i, n - i, &cp);
        cp_push(c, k ? cp : UTF8_INVALID_BASE + p[i]);
        i += k ? k : 1;
    }
}

void unicode_cps_encode(const uint32_t *v, size_t n, struct strbuf *out)
{
    size_t i;
    for (i = 0; i < n; i++)
        utf8_put(out, v[i]); /* UTF8_INVALID_BASE + byte is written back as that byte */
}

static void decompose(struct unicode_cps *out, uint32_t cp, int compat)
{
    const struct uc_decomp_entry *e = NULL;
    size_t j;
    if (cp >= SBASE && cp < SBASE + SCOUNT) {
        uint32_t s = cp - SBASE;
        cp_push(out, LBASE + s / NCOUNT);
        cp_push(out, VBASE + (s % NCOUNT) / TCOUNT);
        if (s % TCOUNT)
            cp_push(out, TBASE + s % TCOUNT);
        return;
    }
    if (cp >= 0xA0) {
        if (compat)
            e = decomp_find(uc_kdecomp, NELEM(uc_kdecomp), cp);
        if (!e)
            e = decomp_find(uc_cdecomp, NELEM(uc_cdecomp), cp);
    }
    if (!e) {
        cp_push(out, cp);
        return;
    }
    for (j = 0; j < e->len; j++) {
        uint32_t d = (compat && e >= uc_kdecomp && e < uc_kdecomp + NELEM(uc_kdecomp))
                         ? uc_kdecomp_cps[e->off + j]
                         : uc_cdecomp_cps[e->off + j];
        if (d >= SBASE && d < SBASE + SCOUNT)
            decompose(out, d, compat);
        else
            cp_push(out, d);
    }
}

static uint32_t compose_pair(uint32_t a, uint32_t b)
{
    size_t lo = 0, hi = NELEM(uc_comp);
    if (a >= LBASE && a < LBASE + LCOUNT && b >= VBASE && b < VBASE + VCOUNT)
        return SBASE + ((a - LBASE) * VCOUNT + (b - VBASE)) * TCOUNT;
    if (a >= SBASE && a < SBASE + SCOUNT && (a - SBASE) % TCOUNT == 0 && b > TBASE &&
        b < TBASE + TCOUNT)
        return a + (b - TBASE);
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const struct uc_comp_entry *e = &uc_comp[mid];
        if (e->a == a && e->b == b)
            return e->c;
        if (e->a < a || (e->a == a && e->b < b))
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

/* Normalize valid UTF-8 p[0..n) completely (no quick check) and append it to out. */
static void normalize_span(enum unicode_form f, const unsigned char *p, size_t n,
                           struct strbuf *out, struct unicode_cps *cps)
{
    size_t i = 0, j, w, starter;
    int last_ccc;
    cps->n = 0;
    while (i < n) {
        size_t k;
        uint32_t cp = utf8_decode_valid(p + i, &k);
        i += k;
        decompose(cps, cp, is_compat(f));
    }
    /* canonical ordering: stable insertion sort of runs of non-starters */
    for (j = 1; j < cps->n; j++) {
        int c = ccc_of(cps->v[j]);
        size_t m = j;
        if (!c)
            continue;
        while (m > 0) {
            int pc = ccc_of(cps->v[m - 1]);
            uint32_t t;
            if (!pc || pc <= c)
                break;
            t = cps->v[m - 1];
            cps->v[m - 1] = cps->v[m];
            cps->v[m] = t;
            m--;
        }
    }
    if (is_composed(f) && cps->n) { /* canonical composition (UAX #15) */
        starter = ccc_of(cps->v[0]) ? SIZE_MAX : 0;
        last_ccc = ccc_of(cps->v[0]);
        w = 1;
        for (j = 1; j < cps->n; j++) {
            uint32_t cp = cps->v[j];
            int c = ccc_of(cp);
            if (starter != SIZE_MAX && (w == starter + 1 || (last_ccc != 0 && last_ccc < c))) {
                uint32_t comp = compose_pair(cps->v[starter], cp);
                if (comp) {
                    cps->v[starter] = comp;
                    continue;
                }
            }
            if (!c)
                starter = w;
            last_ccc = c;
            cps->v[w++] = cp;
        }
        cps->n = w;
    }
    for (j = 0; j < cps->n; j++)
        utf8_put(out, cps->v[j]);
}

/* 1 when cp has ccc 0 and is quick-check Yes: normalization never crosses it. */
static int stable_starter(enum unicode_form f, uint32_t cp)
{
    if (cp < 0xC0 && (f == UNICODE_NFC || f == UNICODE_NFD || cp < 0xA0))
        return 1;
    if (bmp_plain(f, cp))
        return 1;
    return !ccc_of(cp) && !qc_not_yes(f, cp);
}

int unicode_is_normalized_quick(enum unicode_form f, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    int last = 0;
    pthread_once(&bmp_once, bmp_init);
    while (i < n) {
        size_t k;
        uint32_t cp;
        int c;
        if (p[i] < 0x80) {
            last = 0;
            i++;
            continue;
        }
        cp = utf8_decode_valid(p + i, &k);
        i += k;
        if (bmp_plain(f, cp)) {
            last = 0;
            continue;
        }
        c = ccc_of(cp);
        if ((c && last > c) || qc_not_yes(f, cp))
            return 0;
        last = c;
    }
    return 1;
}

void unicode_normalize(enum unicode_form f, const char *s, size_t n, struct strbuf *out)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, safe = 0, copied = 0;
    int last = 0;
    struct unicode_cps cps = {NULL, 0, 0};
    pthread_once(&bmp_once, bmp_init);
    while (i < n) {
        size_t k, e;
        uint32_t cp;
        int c;
        if (p[i] < 0x80) {
            safe = i;
            last = 0;
            i++;
            continue;
        }
        cp = utf8_decode_valid(p + i, &k);
        if (bmp_plain(f, cp)) {
            safe = i;
            last = 0;
            i += k;
            continue;
        }
        c = ccc_of(cp);
        if (!(c && last > c) && !qc_not_yes(f, cp)) {
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
            uint32_t cp2 = utf8_decode_valid(p + e, &k2);
            if (stable_starter(f, cp2))
                break;
            e += k2;
        }
        strbuf_add(out, p + copied, safe - copied);
        normalize_span(f, p + safe, e - safe, out, &cps);
        copied = i = safe = e;
        last = 0;
    }
    strbuf_add(out, p + copied, n - copied);
    free(cps.v);
}

/* ------------------------------------------------------------ case and classes */

uint32_t unicode_lower_simple(uint32_t c)
{
    size_t lo = 0, hi = NELEM(uc_lower);
    if (c >= UTF8_INVALID_BASE)
        return c;
    if (c < 0x80)
        return (c >= 'A' && c <= 'Z') ? c + 32 : c;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct uc_lrange *r = &uc_lower[mid];
        if (c < r->lo)
            hi = mid;
        else if (c > r->hi)
            lo = mid + 1;
        else
            return (c - r->lo) % (uint32_t)r->stride ? c : (uint32_t)((int32_t)c + r->delta);
    }
    return c;
}

size_t unicode_char_lower(uint32_t c, uint32_t out[2])
{
    if (c == 0x130) {
        out[0] = 'i';
        out[1] = 0x307;
        return 2;
    }
    out[0] = unicode_lower_simple(c);
    return 1;
}

int unicode_is_word(uint32_t c)
{
    return c < UTF8_INVALID_BASE && in_ranges(uc_word, NELEM(uc_word), c);
}

int unicode_is_space(uint32_t c)
{
    size_t i;
    for (i = 0; i < NELEM(uc_space); i++)
        if (uc_space[i] == c)
            return 1;
    return 0;
}

static int is_cased(uint32_t c)
{
    return c < UTF8_INVALID_BASE && in_ranges(uc_cased, NELEM(uc_cased), c);
}

static int is_case_ignorable(uint32_t c)
{
    return c < UTF8_INVALID_BASE && in_ranges(uc_case_ignorable, NELEM(uc_case_ignorable), c);
}

int unicode_final_sigma(const uint32_t *v, size_t n, size_t i)
{
    size_t j = i;
    while (j > 0) {
        j--;
        if (is_case_ignorable(v[j]))
            continue;
        if (!is_cased(v[j]))
            return 0;
        goto after;
    }
    return 0;
after:
    for (j = i + 1; j < n; j++) {
        if (is_case_ignorable(v[j]))
            continue;
        return !is_cased(v[j]);
    }
    return 1;
}

void unicode_cps_lower(const uint32_t *v, size_t n, struct unicode_cps *out)
{
    size_t i;
    for (i = 0; i < n; i++) {
        uint32_t c = v[i], l[2];
        size_t m, j;
        if (c == 0x3A3) {
            cp_push(out, unicode_final_sigma(v, n, i) ? 0x3C2 : 0x3C3);
            continue;
        }
        m = unicode_char_lower(c, l);
        for (j = 0; j < m; j++)
            cp_push(out, l[j]);
    }
}

void unicode_lower(const char *s, size_t n, struct strbuf *out)
{
    struct unicode_cps in = UNICODE_CPS_INIT, low = UNICODE_CPS_INIT;
    unicode_cps_decode(&in, s, n);
    unicode_cps_lower(in.v, in.n, &low);
    unicode_cps_encode(low.v, low.n, out);
    unicode_cps_release(&in);
    unicode_cps_release(&low);
}

const char *unicode_tables_version(void)
{
    return UNICODE_TABLES_VERSION;
}

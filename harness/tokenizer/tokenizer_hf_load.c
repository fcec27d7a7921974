/*
 * Loading a Hugging Face tokenizer.json: a fast scan of the vocabulary and
 * merges, cJSON for the rest (normalizer, pre-tokenizer, decoder, post
 * processor, added tokens), byte-level text mapped back through GPT-2's
 * bytes_to_unicode. Owns freeing the model.
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

static const char pat_bytelevel[] =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

/* ------------------------------------------------------------ loading */

/* ------------------------------------------------------------ fast JSON for vocab and merges */

/*
 * model.vocab and model.merges are most of a tokenizer.json (33 MB for Gemma 3):
 * they are read by this scanner straight from the text, and the JSON module
 * parses only the rest (the file with those two values replaced by {} and []).
 */
static const char *jws(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    return p;
}

/* p at '"': just after the closing quote, or NULL. */
static const char *jskip_string(const char *p, const char *e)
{
    p++;
    for (;;) {
        const char *q = memchr(p, '"', (size_t)(e - p)), *r;
        size_t bs = 0;
        if (!q)
            return NULL;
        for (r = q; r > p && r[-1] == '\\'; r--)
            bs++;
        if (!(bs & 1))
            return q + 1;
        p = q + 1;
    }
}

/* Just after the JSON value at p, or NULL. */
static const char *jskip_value(const char *p, const char *e)
{
    int depth = 0;
    if (p >= e)
        return NULL;
    if (*p == '"')
        return jskip_string(p, e);
    if (*p != '{' && *p != '[') {
        while (p < e && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\n' &&
               *p != '\r' && *p != '\t')
            p++;
        return p;
    }
    while (p < e) {
        char ch = *p;
        if (ch == '"') {
            p = jskip_string(p, e);
            if (!p)
                return NULL;
            continue;
        }
        if (ch == '{' || ch == '[')
            depth++;
        else if (ch == '}' || ch == ']') {
            if (--depth == 0)
                return p + 1;
        }
        p++;
    }
    return NULL;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decode the JSON string at p ('"') into out (replaced); *after = just past it. */
static int jstring(const char *p, const char *e, struct strbuf *out, const char **after)
{
    strbuf_reset(out);
    if (p >= e || *p != '"')
        return -1;
    p++;
    while (p < e) {
        const char *q = p;
        while (q < e && *q != '"' && *q != '\\')
            q++;
        strbuf_add(out, p, (size_t)(q - p));
        p = q;
        if (p >= e)
            return -1;
        if (*p == '"') {
            *after = p + 1;
            return 0;
        }
        if (++p >= e)
            return -1;
        switch (*p) {
        case '"':
        case '\\':
        case '/':
            strbuf_addch(out, *p);
            break;
        case 'b':
            strbuf_addch(out, '\b');
            break;
        case 'f':
            strbuf_addch(out, '\f');
            break;
        case 'n':
            strbuf_addch(out, '\n');
            break;
        case 'r':
            strbuf_addch(out, '\r');
            break;
        case 't':
            strbuf_addch(out, '\t');
            break;
        case 'u': {
            uint32_t cp = 0;
            int i;
            if (e - p < 5)
                return -1;
            for (i = 1; i <= 4; i++) {
                int h = hexval(p[i]);
                if (h < 0)
                    return -1;
                cp = cp * 16 + (uint32_t)h;
            }
            p += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && e - p >= 7 && p[1] == '\\' && p[2] == 'u') {
                uint32_t lo = 0;
                for (i = 3; i <= 6; i++) {
                    int h = hexval(p[i]);
                    if (h < 0)
                        return -1;
                    lo = lo * 16 + (uint32_t)h;
                }
                if (lo >= 0xDC00 && lo < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    p += 6;
                }
            }
            if (cp >= 0xD800 && cp < 0xE000)
                cp = 0xFFFD; /* a lone surrogate */
            utf8_put(out, cp);
            break;
        }
        default:
            return -1;
        }
        p++;
    }
    return -1;
}

struct jspan {
    size_t b, e; /* value range in the file; e == 0: absent */
};

/* Find model.vocab and model.merges in the top-level object. 0, or -1 when the file is not JSON. */
static int find_model_spans(const char *buf, size_t len, struct jspan *vocab, struct jspan *merges)
{
    const char *p = buf, *e = buf + len;
    struct strbuf key = STRBUF_INIT;
    int depth;
    vocab->e = merges->e = 0;
    p = jws(p, e);
    if (p >= e || *p != '{')
        return -1;
    for (depth = 0; depth < 2;) {
        const char *v;
        p = jws(p + 1, e);
        if (p < e && *p == '}')
            break;
        if (jstring(p, e, &key, &p) < 0)
            goto bad;
        p = jws(p, e);
        if (p >= e || *p != ':')
            goto bad;
        p = jws(p + 1, e);
        if (depth == 0 && !strcmp(key.buf, "model") && p < e && *p == '{') {
            depth = 1; /* descend: the loop reads model's members */
            continue;
        }
        v = jskip_value(p, e);
        if (!v)
            goto bad;
        if (depth == 1 && !strcmp(key.buf, "vocab")) {
            vocab->b = (size_t)(p - buf);
            vocab->e = (size_t)(v - buf);
        } else if (depth == 1 && !strcmp(key.buf, "merges")) {
            merges->b = (size_t)(p - buf);
            merges->e = (size_t)(v - buf);
        }
        p = jws(v, e);
        if (p < e && *p == ',')
            continue;
        if (p < e && *p == '}') {
            if (depth == 0)
                break;
            depth = 0; /* end of model: go on with the top level */
            p = jws(p + 1, e);
            if (p < e && *p == ',')
                continue;
            break;
        }
        goto bad;
    }
    strbuf_release(&key);
    return 0;
bad:
    strbuf_release(&key);
    return -1;
}

static const char *jstr(const struct json *o, const char *k)
{
    return json_get_str(o, k);
}

/* o[k] as a flag: true 1, false 0, dflt when absent or not a boolean (tokenizers' serde defaults)
 */
static int jbool(const struct json *o, const char *k, int dflt)
{
    const struct json *v = json_get(o, k);
    return json_kind(v) == JSON_BOOL ? json_is_true(v) : dflt;
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

static int bytelevel_decode(const int *inv, const char *s, size_t n, unsigned char *out,
                            size_t *olen)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, o = 0;
    while (i < n) {
        uint32_t cp;
        size_t k = utf8_decode(p + i, n - i, &cp);
        if (!k || cp >= 0x144 || inv[cp] < 0)
            return -1;
        i += k;
        out[o++] = (unsigned char)inv[cp];
    }
    *olen = o;
    return 0;
}

static int behavior_of(const char *b, int *out)
{
    static const char *const names[] = {"Removed", "Isolated", "MergedWithPrevious",
                                        "MergedWithNext", "Contiguous"};
    int i;
    for (i = 0; i < 5; i++)
        if (b && !strcmp(b, names[i])) {
            *out = i;
            return 0;
        }
    return -1;
}

/* A {"String": s} or {"Regex": r} pattern: literal (*lit) or compiled regex (*re). */
static int load_pattern(const struct json *pat, char **lit, size_t *lit_len, pcre2_code **re,
                        int *jit, const char *what, const char *file, struct strbuf *err)
{
    const char *s = jstr(pat, "String"), *r = jstr(pat, "Regex");
    if (s) {
        *lit = xstrdup(s);
        *lit_len = strlen(s);
        return 0;
    }
    if (r) {
        *re = tk_compile_regex(r, strlen(r), jit, err, file);
        return *re ? 0 : -1;
    }
    strbuf_addf(err, "%s: %s: pattern must be {\"String\": ...} or {\"Regex\": ...}", file, what);
    return -1;
}

static int load_normalizer(struct hf_model *m, const struct json *nm, const char *file,
                           struct strbuf *err)
{
    const char *type;
    struct hf_norm n;
    if (json_kind(nm) == JSON_ABSENT || json_kind(nm) == JSON_NULL)
        return 0;
    type = jstr(nm, "type");
    memset(&n, 0, sizeof(n));
    if (type && !strcmp(type, "Sequence")) {
        const struct json *it;
        for (it = json_first(json_get(nm, "normalizers")); it; it = json_next(it)) {
            if (load_normalizer(m, it, file, err) < 0)
                return -1;
        }
        return 0;
    }
    if (type && (!strcmp(type, "NFC") || !strcmp(type, "NFD") || !strcmp(type, "NFKC") ||
                 !strcmp(type, "NFKD"))) {
        n.kind = NORM_NF;
        n.form = !strcmp(type, "NFC")    ? UNICODE_NFC
                 : !strcmp(type, "NFD")  ? UNICODE_NFD
                 : !strcmp(type, "NFKC") ? UNICODE_NFKC
                                         : UNICODE_NFKD;
    } else if (type && !strcmp(type, "Lowercase")) {
        n.kind = NORM_LOWER;
    } else if (type && !strcmp(type, "Strip")) {
        n.kind = NORM_STRIP;
        n.left = jbool(nm, "strip_left", 1);
        n.right = jbool(nm, "strip_right", 1);
    } else if (type && !strcmp(type, "Prepend")) {
        const char *p = jstr(nm, "prepend");
        n.kind = NORM_PREPEND;
        n.str = xstrdup(p ? p : "");
        n.len = strlen(n.str);
    } else if (type && !strcmp(type, "Replace")) {
        const char *content = jstr(nm, "content");
        n.kind = NORM_REPLACE;
        if (load_pattern(json_get(nm, "pattern"), &n.str, &n.len, &n.re, &n.jit,
                         "normalizer Replace", file, err) < 0)
            return -1;
        n.content = xstrdup(content ? content : "");
        n.clen = strlen(n.content);
    } else {
        strbuf_addf(err,
                    "%s: unsupported normalizer \"%s\" (supported: NFC, NFD, NFKC, NFKD, "
                    "Lowercase, Strip, Prepend, Replace, Sequence; or use --tokenizer server)",
                    file, type ? type : "?");
        return -1;
    }
    m->norms = xreallocarray(m->norms, m->nnorms + 1, sizeof(*m->norms));
    m->norms[m->nnorms++] = n;
    return 0;
}

static int add_pretok(struct hf_model *m, struct hf_pretok *p, const char *file, struct strbuf *err)
{
    if (m->npts >= HF_MAX_PRETOK) {
        strbuf_addf(err, "%s: more than %d pre-tokenizers", file, HF_MAX_PRETOK);
        return -1;
    }
    m->pts[m->npts++] = *p;
    return 0;
}

static int split_regex(struct hf_model *m, const char *re, int behavior, int invert,
                       const char *file, struct strbuf *err)
{
    struct hf_pretok p;
    memset(&p, 0, sizeof(p));
    p.kind = PT_SPLIT;
    p.behavior = behavior;
    p.invert = invert;
    p.re = tk_compile_regex(re, strlen(re), &p.jit, err, file);
    if (!p.re)
        return -1;
    return add_pretok(m, &p, file, err);
}

static int load_pretok(struct hf_model *m, const struct json *pt, const char *file,
                       struct strbuf *err)
{
    const char *type;
    struct hf_pretok p;
    if (json_kind(pt) == JSON_ABSENT || json_kind(pt) == JSON_NULL)
        return 0;
    type = jstr(pt, "type");
    memset(&p, 0, sizeof(p));
    if (type && !strcmp(type, "Sequence")) {
        const struct json *it;
        for (it = json_first(json_get(pt, "pretokenizers")); it; it = json_next(it)) {
            if (load_pretok(m, it, file, err) < 0)
                return -1;
        }
        return 0;
    }
    if (m->byte_level == 2) {
        strbuf_addf(err, "%s: a pre-tokenizer after ByteLevel is not supported", file);
        return -1;
    }
    if (type && !strcmp(type, "ByteLevel")) {
        p.kind = PT_BYTELEVEL;
        p.prefix = jbool(pt, "add_prefix_space", 1);
        p.use_regex = jbool(pt, "use_regex", 1);
        if (p.use_regex) {
            p.re = tk_compile_regex(pat_bytelevel, strlen(pat_bytelevel), &p.jit, err, file);
            if (!p.re)
                return -1;
        }
        m->byte_level = 2;
        return add_pretok(m, &p, file, err);
    }
    if (type && !strcmp(type, "Split")) {
        p.kind = PT_SPLIT;
        if (behavior_of(jstr(pt, "behavior"), &p.behavior) < 0) {
            strbuf_addf(err, "%s: Split: unknown behavior \"%s\"", file,
                        jstr(pt, "behavior") ? jstr(pt, "behavior") : "?");
            return -1;
        }
        p.invert = jbool(pt, "invert", 0);
        if (load_pattern(json_get(pt, "pattern"), &p.lit, &p.lit_len, &p.re, &p.jit,
                         "pre-tokenizer Split", file, err) < 0)
            return -1;
        if (p.lit && !p.lit_len) { /* HF: an empty string matches nothing */
            free(p.lit);
            p.lit = NULL;
            return 0;
        }
        return add_pretok(m, &p, file, err);
    }
    if (type && !strcmp(type, "Metaspace")) {
        const char *rep = jstr(pt, "replacement"), *scheme = jstr(pt, "prepend_scheme");
        p.kind = PT_METASPACE;
        if (!rep || !*rep || strlen(rep) >= sizeof(p.rep)) {
            strbuf_addf(err, "%s: Metaspace: bad replacement", file);
            return -1;
        }
        memcpy(p.rep, rep, strlen(rep));
        p.rep_len = strlen(rep);
        if (scheme)
            p.scheme = !strcmp(scheme, "first")   ? SCHEME_FIRST
                       : !strcmp(scheme, "never") ? SCHEME_NEVER
                                                  : SCHEME_ALWAYS;
        else
            p.scheme = jbool(pt, "add_prefix_space", 1) ? SCHEME_ALWAYS : SCHEME_NEVER;
        p.split = jbool(pt, "split", 1);
        return add_pretok(m, &p, file, err);
    }
    if (type && !strcmp(type, "Digits"))
        return split_regex(m, "\\p{N}",
                           jbool(pt, "individual_digits", 0) ? B_ISOLATED : B_CONTIGUOUS, 0, file,
                           err);
    if (type && !strcmp(type, "Punctuation")) {
        int b = B_ISOLATED;
        if (jstr(pt, "behavior") && behavior_of(jstr(pt, "behavior"), &b) < 0) {
            strbuf_addf(err, "%s: Punctuation: unknown behavior", file);
            return -1;
        }
        /* char::is_ascii_punctuation || Unicode P* */
        return split_regex(m, "[\\p{P}!-/:-@\\[-`{-~]", b, 0, file, err);
    }
    if (type && !strcmp(type, "Whitespace"))
        return split_regex(m,
                           "[\\p{L}\\p{M}\\p{Nd}\\p{Pc}\\x{200C}\\x{200D}]+|"
                           "[^\\p{L}\\p{M}\\p{Nd}\\p{Pc}\\x{200C}\\x{200D}\\s]+",
                           B_REMOVED, 1, file, err);
    if (type && !strcmp(type, "WhitespaceSplit"))
        return split_regex(m, "\\s+", B_REMOVED, 0, file, err);
    strbuf_addf(err,
                "%s: unsupported pre-tokenizer \"%s\" (supported: ByteLevel, Split, Metaspace, "
                "Digits, Punctuation, Whitespace, WhitespaceSplit, Sequence; or use --tokenizer "
                "server)",
                file, type ? type : "?");
    return -1;
}

static void find_decoder(struct hf_model *m, const struct json *d)
{
    const char *type = jstr(d, "type");
    const struct json *it;
    if (!type)
        return;
    if (!strcmp(type, "Sequence")) {
        for (it = json_first(json_get(d, "decoders")); it; it = json_next(it))
            find_decoder(m, it);
        return;
    }
    if (!strcmp(type, "Strip")) {
        const struct json *st = json_get(d, "start");
        const char *content = jstr(d, "content");
        if (json_kind(st) == JSON_NUMBER && json_num(st, 0) >= 1 && content &&
            !strcmp(content, " "))
            m->strip_lead = 1;
    }
    if (!strcmp(type, "Metaspace")) {
        const char *scheme = jstr(d, "prepend_scheme");
        if (scheme ? strcmp(scheme, "never") != 0 : jbool(d, "add_prefix_space", 1))
            m->strip_lead = 1;
    }
}

static void find_bos(struct tokenizer *tk, const struct json *pp)
{
    const char *type;
    const struct json *it;
    if (json_kind(pp) != JSON_OBJECT || tk->nbos)
        return;
    type = jstr(pp, "type");
    if (!type)
        return;
    if (!strcmp(type, "Sequence")) {
        for (it = json_first(json_get(pp, "processors")); it; it = json_next(it))
            find_bos(tk, it);
        return;
    }
    if (!strcmp(type, "TemplateProcessing")) {
        const struct json *st = json_get(pp, "special_tokens");
        for (it = json_first(json_get(pp, "single")); it; it = json_next(it)) {
            const struct json *spt = json_get(it, "SpecialToken");
            const char *name;
            const struct json *ids, *idv;
            if (!spt)
                break; /* the Sequence: BOS tokens are the ones before it */
            name = jstr(spt, "id");
            ids = name ? json_get(json_get(st, name), "ids") : NULL;
            if (ids) {
                for (idv = json_first(ids); idv; idv = json_next(idv)) {
                    if (json_kind(idv) == JSON_NUMBER && json_num(idv, 0) >= 0) {
                        tk->bos = xreallocarray(tk->bos, tk->nbos + 1, sizeof(*tk->bos));
                        tk->bos[tk->nbos++] = (uint32_t)json_num(idv, 0);
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

static int merge_fail(struct strbuf *err, const char *file, size_t rank, const char *why)
{
    strbuf_addf(err, "%s: merges[%zu]: %s", file, rank, why);
    return -1;
}

/* One merge line, parsed: the model-space texts of a, b and a+b (byte-level: raw bytes). */
struct merge_item {
    size_t a, al, b, bl, c, cl; /* offsets into the batch arena */
    uint64_t ha, hb, hc;
};

#define MERGE_BATCH 64

/* Resolve and insert a batch: hash everything, prefetch, then look up (the table misses overlap).
 */
static int merge_batch(struct tokenizer *tk, struct merge_item *it, size_t nb, const char *arena,
                       size_t *rank, const char *file, struct strbuf *err)
{
    struct hf_model *m = tk->hf;
    uint32_t ids[MERGE_BATCH][3];
    size_t i;
    for (i = 0; i < nb; i++) {
        it[i].ha = tk_hash(arena + it[i].a, it[i].al);
        it[i].hb = tk_hash(arena + it[i].b, it[i].bl);
        it[i].hc = tk_hash(arena + it[i].c, it[i].cl);
        tk_vocab_prefetch(tk, it[i].ha);
        tk_vocab_prefetch(tk, it[i].hb);
        tk_vocab_prefetch(tk, it[i].hc);
    }
    for (i = 0; i < nb; i++) {
        ids[i][0] = tk_vocab_find_hashed(tk, arena + it[i].a, it[i].al, it[i].ha);
        ids[i][1] = tk_vocab_find_hashed(tk, arena + it[i].b, it[i].bl, it[i].hb);
        ids[i][2] = tk_vocab_find_hashed(tk, arena + it[i].c, it[i].cl, it[i].hc);
        if (ids[i][0] == NO_RANK || ids[i][1] == NO_RANK || ids[i][2] == NO_RANK) {
            strbuf_addf(err, "%s: merges[%zu]: a token of the pair is not in the vocab", file,
                        *rank + i);
            return -1;
        }
#if defined(__GNUC__)
        __builtin_prefetch(&m->merges[hf_mhash(hf_mkey(ids[i][0], ids[i][1])) & m->merges_mask], 1);
#endif
    }
    for (i = 0; i < nb; i++)
        hf_merge_put(m, ids[i][0], ids[i][1], (uint32_t)(*rank + i), ids[i][2]);
    *rank += nb;
    return 0;
}

/* Append s to the arena in model space (byte-level text -> bytes); -1 when it is not. */
static int arena_add(struct strbuf *arena, const int *inv, int byte_level, const char *s, size_t n,
                     size_t *off, size_t *len)
{
    *off = arena->len;
    if (!byte_level) {
        strbuf_add(arena, s, n);
    } else {
        size_t o;
        strbuf_grow(arena, n + 1);
        if (bytelevel_decode(inv, s, n, (unsigned char *)arena->buf + arena->len, &o) < 0)
            return -1;
        strbuf_setlen(arena, arena->len + o);
    }
    *len = arena->len - *off;
    return 0;
}

static int load_merges(struct tokenizer *tk, const char *buf, struct jspan sp, const int *inv,
                       const char *file, struct strbuf *err)
{
    struct hf_model *m = tk->hf;
    const char *p = buf + sp.b, *e = buf + sp.e, *q;
    size_t n = 0, size = 1024, rank = 0, nb = 0;
    struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, arena = STRBUF_INIT;
    struct merge_item items[MERGE_BATCH];
    int rc = -1;
    if (!sp.e) {
        p = "[]";
        e = p + 2;
    }
    if (*p != '[')
        return merge_fail(err, file, 0, "model.merges is not an array");
    for (q = jws(p + 1, e); q < e && *q != ']';) { /* count, to size the table */
        q = jskip_value(q, e);
        if (!q)
            return merge_fail(err, file, n, "not valid JSON");
        n++;
        q = jws(q, e);
        if (q < e && *q == ',')
            q = jws(q + 1, e);
    }
    while (size < n + n / 2 + 2) /* load <= 2/3 */
        size <<= 1;
    m->merges = xcalloc(size, sizeof(*m->merges));
    m->merges_mask = size - 1;
    p = jws(p + 1, e);
    while (p < e && *p != ']') {
        struct merge_item *it = &items[nb];
        if (*p == '"') {
            const char *sp1;
            if (jstring(p, e, &a, &p) < 0) {
                merge_fail(err, file, rank + nb, "not valid JSON");
                goto out;
            }
            if (!strncmp(a.buf, "#version", 8))
                goto next;
            sp1 = memchr(a.buf, ' ', a.len);
            if (!sp1 || memchr(sp1 + 1, ' ', a.len - (size_t)(sp1 + 1 - a.buf))) {
                merge_fail(err, file, rank + nb, "not two tokens separated by one space");
                goto out;
            }
            strbuf_reset(&b);
            strbuf_add(&b, sp1 + 1, a.len - (size_t)(sp1 + 1 - a.buf));
            strbuf_setlen(&a, (size_t)(sp1 - a.buf));
        } else if (*p == '[') {
            p = jws(p + 1, e);
            if (jstring(p, e, &a, &p) < 0 || (p = jws(p, e)) >= e || *p != ',' ||
                jstring(jws(p + 1, e), e, &b, &p) < 0 || (p = jws(p, e)) >= e || *p != ']') {
                merge_fail(err, file, rank + nb, "not a \"a b\" string or an [a, b] pair");
                goto out;
            }
            p++;
        } else {
            merge_fail(err, file, rank + nb, "not a \"a b\" string or an [a, b] pair");
            goto out;
        }
        {
            const char *bs = b.buf;
            size_t bl = b.len;
            if (m->prefix_len && bl >= m->prefix_len && !memcmp(bs, m->prefix, m->prefix_len)) {
                bs += m->prefix_len;
                bl -= m->prefix_len;
            }
            size_t ca, cal, cb, cbl;
            /* a, b, then a+b as the copy of a followed by b without the subword prefix */
            if (arena_add(&arena, inv, m->byte_level, a.buf, a.len, &it->a, &it->al) < 0 ||
                arena_add(&arena, inv, m->byte_level, b.buf, b.len, &it->b, &it->bl) < 0 ||
                arena_add(&arena, inv, m->byte_level, a.buf, a.len, &ca, &cal) < 0 ||
                arena_add(&arena, inv, m->byte_level, bs, bl, &cb, &cbl) < 0) {
                strbuf_addf(err, "%s: merges[%zu]: \"%.*s %.*s\" is not byte-level text", file,
                            rank + nb, (int)(a.len > 80 ? 80 : a.len), a.buf,
                            (int)(b.len > 80 ? 80 : b.len), b.buf);
                goto out;
            }
            it->c = ca;
            it->cl = cal + cbl;
        }
        if (++nb == MERGE_BATCH) {
            if (merge_batch(tk, items, nb, arena.buf, &rank, file, err) < 0)
                goto out;
            nb = 0;
            strbuf_reset(&arena);
        }
    next:
        p = jws(p, e);
        if (p < e && *p == ',')
            p = jws(p + 1, e);
    }
    if (nb && merge_batch(tk, items, nb, arena.buf, &rank, file, err) < 0)
        goto out;
    rc = 0;
out:
    strbuf_release(&a);
    strbuf_release(&b);
    strbuf_release(&arena);
    return rc;
}

/* Read model.vocab from the file text: ids, and skip[] for byte-level text that is not. */
static int load_vocab(struct tokenizer *tk, const char *buf, struct jspan sp, const int *inv,
                      unsigned char **skipp, size_t *skip_alloc, const char *file,
                      struct strbuf *err)
{
    const char *p = buf + sp.b, *e = buf + sp.e;
    struct strbuf key = STRBUF_INIT;
    unsigned char *tmp = NULL;
    size_t tmp_alloc = 0;
    int rc = -1;
    if (!sp.e || *p != '{') {
        strbuf_addf(err, "%s: model.vocab is not an object", file);
        return -1;
    }
    p = jws(p + 1, e);
    while (p < e && *p != '}') {
        unsigned long id = 0;
        size_t o;
        const char *d;
        if (jstring(p, e, &key, &p) < 0 || (p = jws(p, e)) >= e || *p != ':') {
            strbuf_addf(err, "%s: model.vocab: not valid JSON", file);
            goto out;
        }
        p = d = jws(p + 1, e);
        while (p < e && *p >= '0' && *p <= '9' && id <= 0x7FFFFFF)
            id = id * 10 + (unsigned long)(*p++ - '0');
        if (p == d || id > 0x7FFFFFF || !key.len || (p < e && (*p == '.' || *p == 'e'))) {
            strbuf_addf(err, "%s: bad vocab entry \"%s\"", file, key.buf);
            goto out;
        }
        ALLOC_GROW(tmp, key.len + 1, tmp_alloc);
        if (tk->hf->byte_level && bytelevel_decode(inv, key.buf, key.len, tmp, &o) == 0 && o) {
            tk_vocab_set(tk, (uint32_t)id, tmp, o);
        } else {
            tk_vocab_set(tk, (uint32_t)id, key.buf, key.len);
            if (tk->hf->byte_level) { /* not byte-level text: never made by merging bytes */
                size_t old = *skip_alloc;
                ALLOC_GROW(*skipp, id + 1, *skip_alloc);
                memset(*skipp + old, 0, *skip_alloc - old);
                (*skipp)[id] = 1;
            }
        }
        p = jws(p, e);
        if (p < e && *p == ',')
            p = jws(p + 1, e);
    }
    rc = 0;
out:
    strbuf_release(&key);
    free(tmp);
    return rc;
}

/* Decoded bytes of each id for text (non-byte-level) models: "\xe2\x96\x81" -> " ", <0xNN> -> byte.
 */
static void build_decode(struct tokenizer *tk)
{
    struct hf_model *m = tk->hf;
    size_t id;
    tk->dec_off = xcalloc(tk->nvocab ? tk->nvocab : 1, sizeof(*tk->dec_off));
    tk->dec_len = xcalloc(tk->nvocab ? tk->nvocab : 1, sizeof(*tk->dec_len));
    for (id = 0; id < tk->nvocab; id++) {
        const char *s = tk->tok_bytes + tk->tok_off[id];
        size_t n = tk->tok_len[id], i;
        struct strbuf d = STRBUF_INIT;
        unsigned v;
        if (!n)
            continue;
        if (m->byte_fallback && n == 6 && !memcmp(s, "<0x", 3) && s[5] == '>' &&
            sscanf(s + 3, "%2X", &v) == 1) {
            char b = (char)v;
            strbuf_add(&d, &b, 1);
        } else {
            for (i = 0; i < n; i++) {
                if (n - i >= 3 && !memcmp(s + i, "\xE2\x96\x81", 3)) {
                    strbuf_addch(&d, ' ');
                    i += 2;
                } else {
                    strbuf_addch(&d, s[i]);
                }
            }
        }
        ALLOC_GROW(tk->tok_bytes, tk->tok_bytes_len + d.len + 1, tk->tok_bytes_alloc);
        memcpy(tk->tok_bytes + tk->tok_bytes_len, d.buf, d.len);
        tk->dec_off[id] = (uint32_t)tk->tok_bytes_len;
        tk->dec_len[id] = (uint32_t)d.len;
        tk->tok_bytes_len += d.len;
        strbuf_release(&d);
    }
}

/* char_id (no prefix/suffix) and the SentencePiece word-start cut rule (see struct hf_model). */
static void build_char_tables(struct tokenizer *tk)
{
    struct hf_model *m = tk->hf;
    uint32_t cp;
    size_t id;
    if (m->prefix_len || m->suffix_len)
        return; /* a character's token then depends on its position */
    m->char_id = xmalloc(0x10000 * sizeof(*m->char_id));
    for (cp = 0; cp < 0x10000; cp++) {
        char b[4];
        size_t k = utf8_encode(cp, b);
        m->char_id[cp] = cp >= 0xD800 && cp < 0xE000 ? NO_RANK : tk_vocab_find(tk, b, k);
    }
    if (m->char_id[0x2581] == NO_RANK)
        return;
    for (id = 0; id < tk->nvocab; id++) {
        const char *s = tk->tok_bytes + tk->tok_off[id];
        size_t n = tk->tok_len[id], j = 0;
        while (j + 3 <= n) {
            const char *hit = memmem(s + j, n - j, "\xE2\x96\x81", 3);
            long pc;
            if (!hit)
                break;
            j = (size_t)(hit - s);
            pc = hf_last_cp(s, j);
            if (pc >= 0x10000)
                m->sp_block_astral = 1;
            else if (pc >= 0 && pc != 0x2581)
                m->sp_block[pc >> 3] |= (uint8_t)(1u << (pc & 7));
            j += 3;
        }
    }
    m->sp_split = 1;
}

/* Normalize an added token's content with the model's normalizers (for the normalized trie). */
static void normalize_content(struct tokenizer *tk, const char *s, struct strbuf *out)
{
    struct workspace ws;
    size_t n, i;
    const char *t;
    memset(&ws, 0, sizeof(ws));
    for (i = 0; i < HF_BUFS; i++)
        strbuf_init(&ws.hbuf[i], 0);
    ws.md = pcre2_match_data_create(2, NULL);
    ws.mctx = pcre2_match_context_create(NULL);
    t = hf_normalize_text(tk->hf, &ws, s, strlen(s), &n, 0);
    strbuf_add(out, t, n);
    for (i = 0; i < HF_BUFS; i++)
        strbuf_release(&ws.hbuf[i]);
    pcre2_match_data_free(ws.md);
    pcre2_match_context_free(ws.mctx);
}

/*
 * The id of an added token as Hugging Face tokenizers gives it (the "id" in
 * the file is only checked there, AddedVocabulary::add_tokens assigns): a
 * content that is a model vocab entry, or an earlier added token, keeps that
 * id; any other takes the next id past the vocab, in file order (the vocab
 * size = its entries, nentries; *max_added tracks the largest id handed out).
 * Real files agree with their "id"s; a hand-made one may not.
 */
static uint32_t added_id(struct tokenizer *tk, const int *inv, const unsigned char *skip,
                         size_t nbpe, size_t nentries, const char *content, uint32_t file_id,
                         long *max_added)
{
    size_t n = strlen(content), o, i;
    uint32_t id = NO_RANK;
    unsigned char *dec = xmalloc(n + 1);
    if (file_id < nbpe && tk->tok_len[file_id] &&
        ((skip[file_id] || !tk->hf->byte_level)
             ? tk->tok_len[file_id] == n &&
                   !memcmp(tk->tok_bytes + tk->tok_off[file_id], content, n)
             : bytelevel_decode(inv, content, n, dec, &o) == 0 && o == tk->tok_len[file_id] &&
                   !memcmp(tk->tok_bytes + tk->tok_off[file_id], dec, o)))
        id = file_id; /* the file's id is the vocab entry of this text (every real file) */
    else if (!tk->hf->byte_level)
        id = tk_vocab_find(tk, content, n);
    else if (bytelevel_decode(inv, content, n, dec, &o) == 0 && o)
        id = tk_vocab_find(tk, (const char *)dec, o);
    free(dec);
    if (id != NO_RANK && id >= nbpe)
        id = NO_RANK;
    for (i = 0; id == NO_RANK && i < tk->nspecials; i++)
        if (tk->specials[i].len == n && !memcmp(tk->specials[i].text, content, n))
            id = tk->specials[i].id;
    if (id == NO_RANK)
        id = *max_added >= (long)nentries || !nentries ? (uint32_t)(*max_added + 1)
                                                       : (uint32_t)nentries;
    if ((long)id > *max_added)
        *max_added = id;
    return id;
}

/*
 * The tokenizer.json without model.vocab and model.merges (replaced by {} and
 * []: the fast scanner reads those two), parsed; NULL with the error in err.
 */
static struct json *parse_rest(const char *buf, size_t len, struct jspan *vs, struct jspan *ms,
                               const char *file, struct strbuf *err)
{
    struct strbuf rest = STRBUF_INIT;
    struct json *root = NULL;
    if (find_model_spans(buf, len, vs, ms) == 0) {
        const struct jspan *first = vs->e && (!ms->e || vs->b < ms->b) ? vs : ms;
        const struct jspan *second = first == vs ? ms : vs;
        size_t at = 0;
        if (first->e) {
            strbuf_add(&rest, buf, first->b);
            strbuf_addstr(&rest, first == vs ? "{}" : "[]");
            at = first->e;
        }
        if (second->e) {
            strbuf_add(&rest, buf + at, second->b - at);
            strbuf_addstr(&rest, second == vs ? "{}" : "[]");
            at = second->e;
        }
        strbuf_add(&rest, buf + at, len - at);
        root = json_parse(rest.buf, rest.len, NULL);
    }
    strbuf_release(&rest);
    if (!root)
        strbuf_addf(err, "%s: not valid JSON", file);
    return root;
}

/* "model" is a BPE model the native tokenizer can count with (type, vocab, no dropout). */
static int check_model(const struct json *model, const char *file, struct strbuf *err)
{
    const char *mtype = jstr(model, "type");
    const struct json *vocab = json_get(model, "vocab"), *dr = json_get(model, "dropout");
    if (mtype &&
        (!strcmp(mtype, "WordPiece") || !strcmp(mtype, "Unigram") || !strcmp(mtype, "WordLevel"))) {
        strbuf_addf(err,
                    "%s: %s models are not supported by the native tokenizer (BPE only); count "
                    "with the server instead: --tokenizer server",
                    file, mtype);
        return -1;
    }
    if (!mtype || strcmp(mtype, "BPE")) {
        strbuf_addf(err, "%s: not a BPE tokenizer.json (model.type is \"%s\")", file,
                    mtype ? mtype : "missing");
        return -1;
    }
    if (json_kind(vocab) != JSON_OBJECT) {
        /* the type is right; say what is wrong (it used to read "model.type is \"BPE\"") */
        strbuf_addf(err,
                    "%s: \"model.vocab\" is %s; a BPE tokenizer.json needs a vocab object "
                    "of token -> id",
                    file, vocab ? "not an object" : "missing");
        return -1;
    }
    if (json_kind(dr) == JSON_NUMBER && json_num(dr, 0) > 0) {
        strbuf_addf(err, "%s: BPE dropout %g makes token counts random; not supported", file,
                    json_num(dr, 0));
        return -1;
    }
    return 0;
}

/* The normalizer, pre-tokenizer, model flags and decoder: everything but the tables. */
static int load_pipeline(struct hf_model *m, const struct json *root, const char *file,
                         struct strbuf *err)
{
    const struct json *model = json_get(root, "model");
    const char *p = jstr(model, "continuing_subword_prefix"),
               *s = jstr(model, "end_of_word_suffix");
    if (load_normalizer(m, json_get(root, "normalizer"), file, err) < 0 ||
        load_pretok(m, json_get(root, "pre_tokenizer"), file, err) < 0)
        return -1;
    m->byte_level = m->byte_level ? 1 : 0;
    m->byte_fallback = jbool(model, "byte_fallback", 0);
    m->ignore_merges = jbool(model, "ignore_merges", 0);
    m->fuse_unk = jbool(model, "fuse_unk", 0);
    m->prefix = xstrdup(p ? p : "");
    m->prefix_len = strlen(m->prefix);
    m->suffix = xstrdup(s ? s : "");
    m->suffix_len = strlen(m->suffix);
    if (m->byte_level && (m->prefix_len || m->suffix_len)) {
        strbuf_addf(err,
                    "%s: continuing_subword_prefix / end_of_word_suffix with ByteLevel "
                    "is not supported",
                    file);
        return -1;
    }
    find_decoder(m, json_get(root, "decoder"));
    return 0;
}

/* Every added_tokens entry has a "content" and an id in range (checked before any is added). */
static int check_added(const struct json *added, const char *file, struct strbuf *err)
{
    const struct json *it;
    for (it = json_first(added); it; it = json_next(it)) {
        const struct json *idv = json_get(it, "id");
        if (!jstr(it, "content") || json_kind(idv) != JSON_NUMBER || json_num(idv, 0) < 0 ||
            json_num(idv, 0) > 0x7FFFFFF) {
            strbuf_addf(err, "%s: bad added_tokens entry", file);
            return -1;
        }
    }
    return 0;
}

/* Not byte-level: the <0xNN> byte-fallback ids, the unk id and the per-character tables. */
static void load_char_model(struct tokenizer *tk, const struct json *model)
{
    struct hf_model *m = tk->hf;
    const char *unk = jstr(model, "unk_token");
    size_t i;
    for (i = 0; i < 256; i++) {
        char name[8];
        snprintf(name, sizeof(name), "<0x%02X>", (unsigned)i);
        m->fallback[i] = tk_vocab_find(tk, name, strlen(name));
    }
    if (unk) {
        uint32_t u = tk_vocab_find(tk, unk, strlen(unk));
        m->unk_id = u == NO_RANK ? -1 : (long)u;
    }
    build_char_tables(tk);
}

/* Added tokens (checked by check_added): ids, the two tries; their text is what decode gives back.
 */
static void load_added(struct tokenizer *tk, const struct json *added, const int *inv,
                       const unsigned char *skip, size_t nbpe)
{
    struct hf_model *m = tk->hf;
    const struct json *it;
    size_t i, nentries = 0;
    long max_added = -1;
    for (i = 0; i < nbpe; i++)
        nentries += tk->tok_len[i] != 0;
    for (it = json_first(added); it; it = json_next(it)) {
        const char *content = jstr(it, "content");
        uint32_t id = (uint32_t)json_num(json_get(it, "id"), 0);
        struct hf_added a;
        struct strbuf nc = STRBUF_INIT;
        int normalized = jbool(it, "normalized", !jbool(it, "special", 0));
        if (!*content)
            continue;
        id = added_id(tk, inv, skip, nbpe, nentries, content, id, &max_added);
        tk_add_special(tk, content, strlen(content), id);
        if (normalized && m->nnorms && hf_is_utf8_valid(content, strlen(content)))
            normalize_content(tk, content, &nc);
        else
            strbuf_addstr(&nc, content);
        a.id = id;
        a.len = nc.len;
        a.special = (unsigned char)jbool(it, "special", 0);
        a.lstrip = (unsigned char)jbool(it, "lstrip", 0);
        a.rstrip = (unsigned char)jbool(it, "rstrip", 0);
        a.single_word = (unsigned char)jbool(it, "single_word", 0);
        m->added = xreallocarray(m->added, m->nadded + 1, sizeof(*m->added));
        m->added[m->nadded] = a;
        if (nc.len)
            hf_trie_add(normalized ? &m->norm : &m->raw, nc.buf, nc.len, (int32_t)m->nadded);
        m->nadded++;
        strbuf_release(&nc);
    }
}

int hf_load(struct tokenizer *tk, const char *file, const char *buf, size_t len, struct strbuf *err)
{
    struct json *root;
    const struct json *model, *added;
    struct jspan vs, ms;
    int inv[0x144], rc = -1;
    unsigned char *skip = NULL;
    size_t nbpe, skip_alloc = 0;
    struct hf_model *m;

    root = parse_rest(buf, len, &vs, &ms, file, err);
    if (!root)
        return -1;
    m = tk->hf = xcalloc(1, sizeof(*tk->hf));
    m->unk_id = -1;
    model = json_get(root, "model");
    added = json_get(root, "added_tokens");
    if (check_model(model, file, err) < 0 || load_pipeline(m, root, file, err) < 0)
        goto out;

    byte_level_inverse(inv);
    tk->tok_bytes_alloc = len / 4 + 64;
    tk->tok_bytes = xmalloc(tk->tok_bytes_alloc);
    if (load_vocab(tk, buf, vs, inv, &skip, &skip_alloc, file, err) < 0)
        goto out;
    nbpe = tk->nvocab;
    {
        size_t old = skip_alloc;
        ALLOC_GROW(skip, nbpe + 1, skip_alloc);
        memset(skip + old, 0, skip_alloc - old);
    }
    if (check_added(added, file, err) < 0 ||
        tk_vocab_build_hash(tk, nbpe, skip, m->byte_level, err, file) < 0)
        goto out;
    if (!m->byte_level)
        load_char_model(tk, model);
    if (load_merges(tk, buf, ms, inv, file, err) < 0)
        goto out;
    load_added(tk, added, inv, skip, nbpe);
    if (!m->byte_level)
        build_decode(tk);
    find_bos(tk, json_get(root, "post_processor"));
    rc = 0;
out:
    free(skip);
    json_free(root);
    return rc;
}

void hf_free(struct hf_model *m)
{
    size_t i;
    if (!m)
        return;
    for (i = 0; i < m->nnorms; i++) {
        free(m->norms[i].str);
        free(m->norms[i].content);
        if (m->norms[i].re)
            pcre2_code_free(m->norms[i].re);
    }
    free(m->norms);
    for (i = 0; i < m->npts; i++) {
        free(m->pts[i].lit);
        if (m->pts[i].re)
            pcre2_code_free(m->pts[i].re);
    }
    free(m->prefix);
    free(m->suffix);
    free(m->merges);
    free(m->char_id);
    free(m->added);
    free(m->raw.slots);
    free(m->raw.term);
    free(m->norm.slots);
    free(m->norm.term);
    free(m);
}

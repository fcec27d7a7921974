/*
 * Scorers: the Lost-in-the-Middle QA metric reproduced exactly (Unicode
 * lower-case, ASCII punctuation deletion, article removal with Unicode word
 * boundaries, Unicode whitespace), LitM KV, and dipmap's contains/exact/
 * regex/all scorers. Owns the PCRE2 compiled-regex cache (mutex-protected).
 */
#define _GNU_SOURCE
#include "run/score.h"

#include <ctype.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "base/strbuf.h"
#include "base/unicode.h"
#include "base/xalloc.h"

#include "base/banned.h"

static const char *const scorer_names_tab[SCORER__COUNT] = {"litm",  "kv",    "contains",
                                                            "exact", "regex", "all"};

const char *scorer_name(enum scorer_kind kind)
{
    return (unsigned)kind < SCORER__COUNT ? scorer_names_tab[kind] : "unknown";
}

int scorer_parse(const char *name, enum scorer_kind *out)
{
    int i;
    if (!name)
        return -1;
    for (i = 0; i < SCORER__COUNT; i++)
        if (!strcmp(name, scorer_names_tab[i])) {
            *out = (enum scorer_kind)i;
            return 0;
        }
    return -1;
}

void score_version(enum scorer_kind kind, struct strbuf *out)
{
    strbuf_addf(out, "%s/%d", scorer_name(kind), SCORE_VERSION);
}

const char *scorer_names(void)
{
    return "litm, kv, contains, exact, regex, all";
}

/* ---- Unicode (unicode.c) ---- */

#define is_word  unicode_is_word
#define is_space unicode_is_space

static int is_ascii_punct(uint32_t c)
{
    return c < 0x80 && c > 0x20 && c < 0x7F && !(c >= '0' && c <= '9') && !(c >= 'A' && c <= 'Z') &&
           !(c >= 'a' && c <= 'z');
}

/* Length of an article (a, an, the) at v[i] delimited by word boundaries, else 0. */
static size_t article_at(const uint32_t *v, size_t n, size_t i)
{
    static const char *const arts[] = {"a", "an", "the"};
    size_t a;
    if (i > 0 && is_word(v[i - 1]))
        return 0;
    for (a = 0; a < 3; a++) {
        size_t k, l = strlen(arts[a]);
        if (i + l > n)
            continue;
        for (k = 0; k < l; k++)
            if (v[i + k] != (uint32_t)arts[a][k])
                break;
        if (k < l)
            continue;
        if (i + l < n && is_word(v[i + l]))
            continue;
        return l;
    }
    return 0;
}

void score_normalize(const char *s, size_t len, struct strbuf *out)
{
    struct unicode_cps in = UNICODE_CPS_INIT, low = UNICODE_CPS_INIT, np = UNICODE_CPS_INIT,
                       na = UNICODE_CPS_INIT;
    size_t i;
    int pending_space = 0, any = 0;

    unicode_cps_decode(&in, s, len);
    unicode_cps_lower(in.v, in.n, &low);
    for (i = 0; i < low.n; i++)
        if (!is_ascii_punct(low.v[i]))
            unicode_cps_push(&np, low.v[i]);
    for (i = 0; i < np.n;) {
        size_t l = article_at(np.v, np.n, i);
        if (l) {
            unicode_cps_push(&na, ' ');
            i += l;
        } else {
            unicode_cps_push(&na, np.v[i++]);
        }
    }
    /* collapse whitespace: reuse `in` as the output buffer */
    in.n = 0;
    for (i = 0; i < na.n; i++) {
        if (is_space(na.v[i])) {
            pending_space = any;
            continue;
        }
        if (pending_space)
            unicode_cps_push(&in, ' ');
        pending_space = 0;
        any = 1;
        unicode_cps_push(&in, na.v[i]);
    }
    unicode_cps_encode(in.v, in.n, out);
    unicode_cps_release(&in);
    unicode_cps_release(&low);
    unicode_cps_release(&np);
    unicode_cps_release(&na);
}

static int contains(const struct strbuf *hay, const struct strbuf *needle)
{
    if (!needle->len)
        return 1;
    return memmem(hay->buf, hay->len, needle->buf, needle->len) != NULL;
}

int score_litm_raw(const char *text, const char *const *answers, size_t n)
{
    struct strbuf pred = STRBUF_INIT, gold = STRBUF_INIT;
    size_t i;
    int hit = 0;
    if (!text)
        text = "";
    score_normalize(text, strlen(text), &pred);
    for (i = 0; i < n && !hit; i++) {
        strbuf_reset(&gold);
        score_normalize(answers[i] ? answers[i] : "", answers[i] ? strlen(answers[i]) : 0, &gold);
        hit = contains(&pred, &gold);
    }
    strbuf_release(&pred);
    strbuf_release(&gold);
    return hit;
}

int score_litm(const char *text, const char *const *answers, size_t n)
{
    const char *nl;
    char *first;
    int r;
    if (!text)
        text = "";
    /* Stripping the first line is implied: normalisation trims Unicode whitespace. */
    nl = strchr(text, '\n');
    first = nl ? xstrndup(text, (size_t)(nl - text)) : xstrdup(text);
    r = score_litm_raw(first, answers, n);
    free(first);
    return r;
}

int score_kv(const char *text, const char *value)
{
    struct strbuf a = STRBUF_INIT, v = STRBUF_INIT;
    int r;
    if (!text)
        text = "";
    if (!value)
        value = "";
    unicode_lower(text, strlen(text), &a);
    unicode_lower(value, strlen(value), &v);
    r = contains(&a, &v);
    strbuf_release(&a);
    strbuf_release(&v);
    return r;
}

/*
 * dipmap's containment. A gold answer whose normalised form is empty ("A",
 * "the", "*") would match every answer, and a raw fallback credits "B.
 * Although..." for "A": such a gold never matches here. The loader refuses
 * it unless the question names the exact or regex scorer.
 */
static int gold_in(const struct strbuf *pred_norm, const char *gold)
{
    struct strbuf g = STRBUF_INIT;
    int r;
    score_normalize(gold, strlen(gold), &g);
    r = g.len && contains(pred_norm, &g);
    strbuf_release(&g);
    return r;
}

int score_gold_is_empty(const char *gold)
{
    struct strbuf g = STRBUF_INIT;
    int r;
    score_normalize(gold ? gold : "", gold ? strlen(gold) : 0, &g);
    r = g.len == 0;
    strbuf_release(&g);
    return r;
}

/* Lower-case, ASCII punctuation deleted, whitespace collapsed: the normaliser without articles. */
static void normalize_keep_articles(const char *s, struct strbuf *out)
{
    struct strbuf low = STRBUF_INIT;
    size_t i;
    int space = 0;
    unicode_lower(s, strlen(s), &low);
    for (i = 0; i < low.len; i++) {
        unsigned char c = (unsigned char)low.buf[i];
        if (c < 0x80 && ispunct(c))
            continue;
        if (c == ' ' || (c >= '\t' && c <= '\r')) {
            space = out->len > 0;
            continue;
        }
        if (space)
            strbuf_addch(out, ' ');
        space = 0;
        strbuf_addch(out, (char)c);
    }
    strbuf_release(&low);
}

/*
 * exact: equal normalised forms. A gold that normalises to "" (a multiple
 * choice "A") is compared with articles kept ("A." = "a" but "The" != "A"),
 * and one that is still empty (all punctuation, "*") as trimmed lower-case.
 */
static int exact_match(const struct strbuf *pred_norm, const char *answer, const char *gold)
{
    struct strbuf g = STRBUF_INIT, p = STRBUF_INIT;
    int r;
    score_normalize(gold, strlen(gold), &g);
    if (g.len) {
        r = g.len == pred_norm->len && !memcmp(g.buf, pred_norm->buf, g.len);
        goto out;
    }
    normalize_keep_articles(gold, &g);
    if (g.len) {
        normalize_keep_articles(answer, &p);
    } else {
        unicode_lower(gold, strlen(gold), &g);
        strbuf_trim(&g);
        unicode_lower(answer, strlen(answer), &p);
        strbuf_trim(&p);
    }
    r = g.len && g.len == p.len && !memcmp(g.buf, p.buf, g.len);
out:
    strbuf_release(&g);
    strbuf_release(&p);
    return r;
}

int score_resolve(enum scorer_kind run_default, const char *q_scorer, const char *q_regex,
                  enum scorer_kind *out)
{
    if (q_scorer)
        return scorer_parse(q_scorer, out);
    *out = q_regex ? SCORER_REGEX : run_default;
    return 0;
}

/* ---- regex cache ---- */

struct regex_entry {
    char *pattern;
    pcre2_code *code;
    struct regex_entry *next;
};

static pthread_mutex_t regex_lock = PTHREAD_MUTEX_INITIALIZER;
static struct regex_entry *regex_cache;

/* Returns the cached compiled pattern, or NULL with the reason appended to err. */
static pcre2_code *regex_get(const char *pattern, struct strbuf *err)
{
    struct regex_entry *e;
    pcre2_code *code = NULL;
    int errcode;
    PCRE2_SIZE erroff;

    pthread_mutex_lock(&regex_lock);
    for (e = regex_cache; e; e = e->next)
        if (!strcmp(e->pattern, pattern)) {
            code = e->code;
            goto out;
        }
    code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
                         PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_UCP, &errcode, &erroff, NULL);
    if (!code) {
        PCRE2_UCHAR msg[256];
        if (pcre2_get_error_message(errcode, msg, sizeof(msg)) < 0)
            msg[0] = '\0';
        if (err)
            strbuf_addf(err, "invalid answer_regex at offset %lu: %s", (unsigned long)erroff,
                        (const char *)msg);
        goto out;
    }
    e = xcalloc(1, sizeof(*e));
    e->pattern = xstrdup(pattern);
    e->code = code;
    e->next = regex_cache;
    regex_cache = e;
out:
    pthread_mutex_unlock(&regex_lock);
    return code;
}

int score_regex_check(const char *pattern, struct strbuf *err)
{
    if (!pattern) {
        if (err)
            strbuf_addstr(err, "missing answer_regex");
        return -1;
    }
    return regex_get(pattern, err) ? 0 : -1;
}

void score_cache_clear(void)
{
    pthread_mutex_lock(&regex_lock);
    while (regex_cache) {
        struct regex_entry *e = regex_cache;
        regex_cache = e->next;
        pcre2_code_free(e->code);
        free(e->pattern);
        free(e);
    }
    pthread_mutex_unlock(&regex_lock);
}

static int regex_match(const char *pattern, const char *text, double *score, struct strbuf *err)
{
    pcre2_code *code;
    pcre2_match_data *md;
    int rc;
    if (!pattern) {
        if (err)
            strbuf_addstr(err, "scorer regex needs an answer_regex");
        return -1;
    }
    code = regex_get(pattern, err);
    if (!code)
        return -1;
    md = pcre2_match_data_create(1, NULL);
    rc = pcre2_match(code, (PCRE2_SPTR)text, strlen(text), 0, 0, md, NULL);
    pcre2_match_data_free(md);
    if (rc < 0 && rc != PCRE2_ERROR_NOMATCH) {
        PCRE2_UCHAR msg[256];
        if (pcre2_get_error_message(rc, msg, sizeof(msg)) < 0)
            msg[0] = '\0';
        if (err)
            strbuf_addf(err, "answer_regex match failed: %s", (const char *)msg);
        return -1;
    }
    *score = rc >= 0 ? 1.0 : 0.0;
    return 0;
}

int score_answer(enum scorer_kind kind, const char *answer, const char *const *answers, size_t n,
                 const char *regex, double *score, struct strbuf *err)
{
    struct strbuf pred = STRBUF_INIT;
    size_t i;
    int hit = 0;

    if (!answer)
        answer = "";
    switch (kind) {
    case SCORER_LITM:
        *score = score_litm(answer, answers, n);
        return 0;
    case SCORER_KV:
        *score = n ? score_kv(answer, answers[0]) : 0.0;
        return 0;
    case SCORER_REGEX:
        return regex_match(regex, answer, score, err);
    case SCORER_CONTAINS:
    case SCORER_ALL:
        score_normalize(answer, strlen(answer), &pred);
        if (kind == SCORER_CONTAINS) {
            for (i = 0; i < n && !hit; i++)
                hit = answers[i] && gold_in(&pred, answers[i]);
        } else {
            hit = n > 0;
            for (i = 0; i < n && hit; i++)
                hit = answers[i] && gold_in(&pred, answers[i]);
        }
        break;
    case SCORER_EXACT:
        score_normalize(answer, strlen(answer), &pred);
        for (i = 0; i < n && !hit; i++)
            hit = answers[i] && exact_match(&pred, answer, answers[i]);
        break;
    default:
        if (err)
            strbuf_addf(err, "unknown scorer %d", (int)kind);
        return -1;
    }
    strbuf_release(&pred);
    *score = hit ? 1.0 : 0.0;
    return 0;
}

void score_library_version(struct strbuf *out)
{
    char v[64];
    int n = pcre2_config(PCRE2_CONFIG_VERSION, NULL);
    if (n > 0 && n <= (int)sizeof(v) && pcre2_config(PCRE2_CONFIG_VERSION, v) >= 0)
        strbuf_addf(out, "PCRE2 %s", v);
    else
        strbuf_addstr(out, "PCRE2 unknown");
}

int score_abstained(const struct abstain_rule *r, const char *answer, struct strbuf *err)
{
    double hit = 0;
    const char *phrase = r->phrase && *r->phrase ? r->phrase : ABSTAIN_PHRASE;
    if (score_answer(SCORER_CONTAINS, answer, &phrase, 1, NULL, &hit, err) < 0)
        return -1;
    for (size_t i = 0; hit < 0.5 && i < r->regex_nr; i++)
        if (score_answer(SCORER_REGEX, answer, NULL, 0, r->regex[i], &hit, err) < 0)
            return -1;
    return hit >= 0.5;
}

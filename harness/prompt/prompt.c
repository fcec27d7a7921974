/*
 * Prompt templates and the position-swap prompt builder: picks a question's
 * distractors (hard negatives, then seeded haystack filler) to reach an exact
 * token length, fixes their order from (seed, repeat), and moves only the gold
 * block between depths. Owns the per-tokenizer chunk-count and filler caches.
 */
#define _GNU_SOURCE
#include "prompt/prompt.h"

#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/axes.h"
#include "prompt/bm25.h"
#include "prompt/dataset.h"
#include "base/num.h"
#include "prompt/order.h"
#include "base/num.h"
#include "run/plan.h"
#include "base/rng.h"
#include "base/sha256.h"
#include "base/strbuf.h"
#include "tokenizer/tokenizer.h"
#include "run/trial.h"
#include "base/unicode.h"
#include "base/usage.h"
#include "base/xalloc.h"

#include "base/banned.h"

/* ---- templates ---- */

enum section { SEC_NONE = -1, SEC_SYSTEM, SEC_USER, SEC_DOCUMENT, SEC_SEPARATOR, SEC__COUNT };
static const char *const section_names[] = {"system", "user", "document", "separator"};

/* Placeholders allowed per section. */
static int placeholder_allowed(enum section s, const char *name, size_t n)
{
#define IS(lit) (n == sizeof(lit) - 1 && !memcmp(name, lit, n))
    switch (s) {
    case SEC_SYSTEM:
        return IS("question");
    case SEC_USER:
        return IS("question") || IS("documents");
    case SEC_DOCUMENT:
        return IS("index") || IS("title") || IS("text") || IS("id");
    default:
        return 0;
    }
#undef IS
}

struct sec_info {
    struct strbuf text;
    long line; /* header line, 0 when absent */
};

/*
 * Check the placeholders of one section's text; counts occurrences of
 * "documents", "question", "text" into counts[0..2]. Returns 0 or -1.
 */
static int check_placeholders(const char *name, enum section s, const struct sec_info *si,
                              int counts[3])
{
    const char *p = si->text.buf;
    long line = si->line + 1;
    for (; *p; p++) {
        if (*p == '\n') {
            line++;
        } else if (*p == '{') {
            const char *e;
            if (p[1] == '{') {
                p++;
                continue;
            }
            e = p + 1;
            while ((*e >= 'a' && *e <= 'z') || *e == '_')
                e++;
            if (*e != '}' || e == p + 1)
                return error("%s:%ld: [%s]: a lone '{' (write '{{' for a literal brace)", name,
                             line, section_names[s]);
            if (!placeholder_allowed(s, p + 1, (size_t)(e - p - 1)))
                return error("%s:%ld: [%s]: unknown placeholder {%.*s}", name, line,
                             section_names[s], (int)(e - p - 1), p + 1);
            if (!strncmp(p + 1, "documents}", 10))
                counts[0]++;
            else if (!strncmp(p + 1, "question}", 9))
                counts[1]++;
            else if (!strncmp(p + 1, "text}", 5))
                counts[2]++;
            p = e;
        } else if (*p == '}') {
            if (p[1] != '}')
                return error("%s:%ld: [%s]: a lone '}' (write '}}' for a literal brace)", name,
                             line, section_names[s]);
            p++;
        }
    }
    return 0;
}

static char *unescape_separator(const char *s)
{
    struct strbuf sb = STRBUF_INIT;
    for (; *s; s++) {
        if (*s == '\\' && s[1]) {
            s++;
            if (*s == 'n')
                strbuf_addch(&sb, '\n');
            else if (*s == 't')
                strbuf_addch(&sb, '\t');
            else
                strbuf_addch(&sb, *s);
        } else {
            strbuf_addch(&sb, *s);
        }
    }
    return strbuf_detach(&sb, NULL);
}

int prompt_template_parse(struct prompt_template *t, const char *name, const char *text)
{
    struct sec_info sec[SEC__COUNT];
    enum section cur = SEC_NONE;
    const char *p = text;
    long line = 0, last_line = 0;
    int i, ret = -1, counts[3] = {0, 0, 0}, c_sys[3] = {0, 0, 0}, c_doc[3] = {0, 0, 0};

    memset(t, 0, sizeof(*t));
    for (i = 0; i < SEC__COUNT; i++) {
        strbuf_init(&sec[i].text, 0);
        sec[i].line = 0;
    }
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        size_t m = n;
        line++;
        while (m && (p[m - 1] == ' ' || p[m - 1] == '\t' || p[m - 1] == '\r'))
            m--;
        if (m >= 3 && p[0] == '[' && p[m - 1] == ']') {
            size_t k = 1;
            while (k < m - 1 && ((p[k] >= 'a' && p[k] <= 'z') || p[k] == '_'))
                k++;
            if (k == m - 1) {
                enum section s = SEC_NONE;
                for (i = 0; i < SEC__COUNT; i++)
                    if (strlen(section_names[i]) == m - 2 &&
                        !memcmp(p + 1, section_names[i], m - 2))
                        s = (enum section)i;
                if (s == SEC_NONE) {
                    error("%s:%ld: unknown section [%.*s] (known: [system], [user], [document], "
                          "[separator])",
                          name, line, (int)(m - 2), p + 1);
                    goto cleanup;
                }
                if (sec[s].line) {
                    error("%s:%ld: section [%s] given twice (first on line %ld)", name, line,
                          section_names[s], sec[s].line);
                    goto cleanup;
                }
                sec[s].line = line;
                cur = s;
                goto next;
            }
        }
        if (cur == SEC_NONE) {
            if (m && p[0] != '#') {
                error("%s:%ld: text before the first section header (e.g. [user])", name, line);
                goto cleanup;
            }
        } else {
            /* CRLF files: the '\r' is not part of the text */
            strbuf_add(&sec[cur].text, p, n && p[n - 1] == '\r' ? n - 1 : n);
            strbuf_addch(&sec[cur].text, '\n');
        }
    next:
        last_line = line;
        if (!nl)
            break;
        p = nl + 1;
    }
    for (i = 0; i < SEC__COUNT; i++) {
        struct strbuf *sb = &sec[i].text;
        while (sb->len && (sb->buf[sb->len - 1] == '\n' || sb->buf[sb->len - 1] == '\r'))
            strbuf_setlen(sb, sb->len - 1);
    }
    if (!sec[SEC_USER].line) {
        error("%s:%ld: no [user] section", name, last_line ? last_line : 1);
        goto cleanup;
    }
    if (!sec[SEC_DOCUMENT].line) {
        error("%s:%ld: no [document] section (e.g. \"Document [{index}] (Title: {title}) {text}\")",
              name, last_line ? last_line : 1);
        goto cleanup;
    }
    if (check_placeholders(name, SEC_SYSTEM, &sec[SEC_SYSTEM], c_sys) < 0 ||
        check_placeholders(name, SEC_USER, &sec[SEC_USER], counts) < 0 ||
        check_placeholders(name, SEC_DOCUMENT, &sec[SEC_DOCUMENT], c_doc) < 0)
        goto cleanup;
    if (strchr(sec[SEC_SEPARATOR].text.buf, '{') || strchr(sec[SEC_SEPARATOR].text.buf, '}')) {
        error("%s:%ld: [separator] takes no placeholders", name, sec[SEC_SEPARATOR].line + 1);
        goto cleanup;
    }
    if (counts[0] != 1) {
        error("%s:%ld: [user] must contain {documents} exactly once (found %d)", name,
              sec[SEC_USER].line, counts[0]);
        goto cleanup;
    }
    if (counts[1] < 1) {
        error("%s:%ld: [user] has no {question} placeholder", name, sec[SEC_USER].line);
        goto cleanup;
    }
    if (c_doc[2] != 1) {
        error("%s:%ld: [document] must contain {text} exactly once", name, sec[SEC_DOCUMENT].line);
        goto cleanup;
    }
    t->path = xstrdup(name);
    t->system = strbuf_detach(&sec[SEC_SYSTEM].text, NULL);
    t->user = strbuf_detach(&sec[SEC_USER].text, NULL);
    t->document = strbuf_detach(&sec[SEC_DOCUMENT].text, NULL);
    t->separator =
        sec[SEC_SEPARATOR].line ? unescape_separator(sec[SEC_SEPARATOR].text.buf) : xstrdup("\n");
    sha256_hex(text, strlen(text), t->sha256);
    ret = 0;
cleanup:
    for (i = 0; i < SEC__COUNT; i++)
        strbuf_release(&sec[i].text);
    return ret;
}

int prompt_template_load(struct prompt_template *t, const char *path)
{
    struct strbuf sb = STRBUF_INIT;
    int rc;
    memset(t, 0, sizeof(*t));
    strbuf_set_cap(&sb, 1024 * 1024);
    if (strbuf_read_file(&sb, path) < 0) {
        rc = error("%s: cannot read template: %s", path, strerror(errno));
        strbuf_release(&sb);
        return rc;
    }
    if (memchr(sb.buf, '\0', sb.len) || !utf8_valid(sb.buf, sb.len)) {
        strbuf_release(&sb);
        return error("%s: template is not valid UTF-8 text", path);
    }
    rc = prompt_template_parse(t, path, sb.buf);
    strbuf_release(&sb);
    return rc;
}

static int file_exists(const char *p)
{
    return access(p, R_OK) == 0;
}

void prompt_request_for_trial(struct prompt_request *pr, const struct question *q,
                              const struct plan_trial *pt, unsigned long seed,
                              long max_answer_tokens, int chat)
{
    memset(pr, 0, sizeof(*pr));
    pr->q = q;
    pr->target_len = pt->length;
    pr->depth_bp = pt->depth_bp;
    pr->repeat = pt->repeat;
    pr->axes = pt->axes;
    pr->seed = seed;
    pr->max_answer_tokens = max_answer_tokens;
    pr->chat = chat;
}

int prompt_template_resolve(const char *spec, struct strbuf *out)
{
    const char *home = getenv("DIPMAP_HOME");
    struct strbuf exe = STRBUF_INIT, cand = STRBUF_INIT, name = STRBUF_INIT;
    size_t base = out->len;
    int found = -1, i;

    /* a path, or a file of that name in the current folder, is used as given (loading it
       reports why a path cannot be read) */
    if (strchr(spec, '/') || file_exists(spec)) {
        strbuf_addstr(out, spec);
        return 0;
    }
    strbuf_addstr(&name, spec);
    if (name.len > 4 && !strcmp(name.buf + name.len - 4, ".txt"))
        strbuf_setlen(&name, name.len - 4);
    strbuf_grow(&exe, 4096);
    {
        ssize_t n = readlink("/proc/self/exe", exe.buf, exe.alloc - 1);
        if (n > 0) {
            char *slash;
            strbuf_setlen(&exe, (size_t)n);
            slash = strrchr(exe.buf, '/');
            if (slash)
                strbuf_setlen(&exe, (size_t)(slash - exe.buf));
        }
    }
    for (i = 0; i < 4 && found < 0; i++) {
        strbuf_reset(&cand);
        if (i == 0 && home && *home)
            strbuf_addf(&cand, "%s/prompts/%s.txt", home, name.buf);
        else if (i == 1 && exe.len)
            strbuf_addf(&cand, "%s/prompts/%s.txt", exe.buf, name.buf);
        else if (i == 2 && exe.len)
            strbuf_addf(&cand, "%s/../prompts/%s.txt", exe.buf, name.buf);
        else if (i == 3)
            strbuf_addf(&cand, "prompts/%s.txt", name.buf);
        if (cand.len && file_exists(cand.buf))
            found = 0;
    }
    strbuf_setlen(out, base);
    if (found == 0)
        strbuf_add(out, cand.buf, cand.len);
    else
        strbuf_addf(out, "prompts/%s.txt", name.buf);
    strbuf_release(&exe);
    strbuf_release(&cand);
    strbuf_release(&name);
    return found;
}

void prompt_template_release(struct prompt_template *t)
{
    free(t->path);
    free(t->system);
    free(t->user);
    free(t->document);
    free(t->separator);
    memset(t, 0, sizeof(*t));
}

/* ---- rendering ---- */

struct doc_vals {
    long index;
    const char *title, *text, *id;
    size_t text_len;
    const char *tail; /* after the text (a cut member's closing quote), or NULL */
};

/*
 * Render a section. For [user], documents (may be NULL) is inserted for
 * {documents}; *at (if non-NULL) receives the byte offset in out of
 * {documents} (in [user]) or of {text} (in [document]).
 */
static void render(struct strbuf *out, const char *tpl, const char *question,
                   const struct strbuf *documents, size_t *at, const struct doc_vals *d)
{
    const char *p = tpl;
    while (*p) {
        const char *q = p;
        while (*q && *q != '{' && *q != '}')
            q++;
        strbuf_add(out, p, (size_t)(q - p));
        if (!*q)
            break;
        if (q[1] == q[0]) { /* {{ or }} */
            strbuf_addch(out, *q);
            p = q + 2;
            continue;
        }
        p = strchr(q, '}') + 1; /* validated at load */
#define IS(lit) (!strncmp(q + 1, lit "}", sizeof(lit)))
        if (IS("question")) {
            strbuf_addstr(out, question);
        } else if (IS("documents")) {
            if (at)
                *at = out->len;
            if (documents)
                strbuf_add(out, documents->buf, documents->len);
        } else if (d && IS("index")) {
            strbuf_addf(out, "%ld", d->index);
        } else if (d && IS("title")) {
            strbuf_addstr(out, d->title);
        } else if (d && IS("text")) {
            if (at)
                *at = out->len;
            strbuf_add(out, d->text, d->text_len);
            if (d->tail)
                strbuf_addstr(out, d->tail);
        } else if (d && IS("id")) {
            strbuf_addstr(out, d->id);
        }
#undef IS
    }
}

/* ---- seeded randomness (identical on every platform) ---- */

static uint64_t fnv64(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    size_t i;
    for (i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

static uint64_t mix_key(unsigned long seed, const char *qid, long len, long repeat, const char *tag)
{
    uint64_t h = 1469598103934665603ULL, s;
    unsigned char b[8];
    int i;
    uint64_t v[3] = {(uint64_t)seed, (uint64_t)len, (uint64_t)repeat};
    int k;
    h = fnv64(h, tag, strlen(tag) + 1);
    h = fnv64(h, qid, strlen(qid) + 1);
    for (k = 0; k < 3; k++) {
        for (i = 0; i < 8; i++) /* fixed byte order: same on every machine */
            b[i] = (unsigned char)(v[k] >> (8 * i));
        h = fnv64(h, b, 8);
    }
    s = h;
    return rng_splitmix64(&s);
}

static void shuffle_sizes(size_t *a, size_t n, uint64_t state)
{
    size_t i;
    for (i = n; i > 1; i--) {
        size_t j = (size_t)(rng_splitmix64(&state) % i);
        size_t tmp = a[i - 1];
        a[i - 1] = a[j];
        a[j] = tmp;
    }
}

/* ---- the builder ---- */

/* Pointer -> token count of the chunk's rendered document block. */
struct count_map {
    const void **key;
    long *val;
    size_t alloc, nr;
};

static size_t ptr_slot(const struct count_map *m, const void *p)
{
    uint64_t h = (uint64_t)(uintptr_t)p;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return (size_t)h & (m->alloc - 1);
}

static long *count_map_get(struct count_map *m, const void *p)
{
    size_t i;
    if (!m->alloc)
        return NULL;
    for (i = ptr_slot(m, p); m->key[i]; i = (i + 1) & (m->alloc - 1))
        if (m->key[i] == p)
            return &m->val[i];
    return NULL;
}

static void count_map_put(struct count_map *m, const void *p, long v)
{
    size_t i;
    if ((m->nr + 1) * 2 > m->alloc) {
        struct count_map n;
        n.alloc = m->alloc ? m->alloc * 2 : 1024;
        n.key = xcalloc(n.alloc, sizeof(*n.key));
        n.val = xcalloc(n.alloc, sizeof(*n.val));
        n.nr = 0;
        for (i = 0; i < m->alloc; i++)
            if (m->key[i])
                count_map_put(&n, m->key[i], m->val[i]);
        free(m->key);
        free(m->val);
        *m = n;
    }
    for (i = ptr_slot(m, p); m->key[i]; i = (i + 1) & (m->alloc - 1))
        ;
    m->key[i] = p;
    m->val[i] = v;
    m->nr++;
}

struct seq_item {
    const struct chunk *c;
    size_t len; /* bytes of c->text used: all, or a prefix for the cut item */
    long cost;  /* tokens of separator + rendered block */
    int hard;   /* a hard negative */
};

/* Repeats per selection whose cut length is remembered (struct seq.rcut). */
#define REPEAT_CUTS 4

/* Chunks tried as the cut item when one cannot reach the exact count. */
#define CUT_TRIES 3

/* The distractor selection of one (question, length, seed): independent of repeat and depth. */
struct seq {
    const struct question *q;
    const char *user; /* the [user] variant it was selected for */
    unsigned mode;    /* FILL_* it was selected with */
    size_t needles;   /* gold chunks it was selected with (0: all) */
    long target;
    unsigned long seed;
    int chat;
    long overhead;
    struct seq_item *it;
    size_t nr;
    size_t order_nr; /* items the repeat's order is drawn over (0: nr); a question-slot
                        variant draws its base's order ... */
    size_t *omap;    /* ... and maps base item i to its own item omap[i] (SIZE_MAX: dropped);
                        NULL: the identity */
    long cut;        /* index in it[] of the filler chunk cut to fill the last gap, or -1 */
    const struct chunk *avoid[CUT_TRIES]; /* chunks whose cut could not hit the count exactly */
    int navoid;
    size_t hard, filler, filler_dropped;
    long pre_docs; /* tokens of the request before the documents block */
    long fixed;    /* tokens of the request without distractors */
    uint64_t last_used;
    /*
     * The cut of each recent repeat's order with the gold first: every depth
     * of the repeat starts its fit there (a function of the repeat alone, so
     * a prompt never depends on which depths were built before it).
     */
    struct {
        int repeat, valid;
        size_t needles, len;
    } rcut[REPEAT_CUTS];
    int rcut_next;
};

/* Eligible filler of one question (seeded permutation). */
struct qfill {
    const struct question *q;
    unsigned long seed;
    unsigned mode; /* FILL_* of the request (distractors, haystack-order axes) */
    size_t *idx;   /* into hay->c, or into the builder's neutral chunks (FILL_NONE) */
    size_t nr, dropped;
};

/*
 * How a request's distractors are chosen (the distractors and haystack-order
 * axes; README "Distractor difficulty", "Haystack order"). FILL_DEFAULT: the
 * question's hard negatives, then a seeded permutation of the eligible
 * haystack (no axis: as before axes). FILL_HARD: hard negatives, then the
 * eligible haystack by BM25 similarity to the question. FILL_RANDOM: the
 * seeded permutation only (no hard negatives). FILL_NONE: neutral repeated
 * filler, no haystack chunk. FILL_RUN (with DEFAULT or RANDOM): the filler
 * is a run of consecutive eligible chunks in file order from a seeded start;
 * FILL_COHERENT keeps the prompt in that order (no repeat shuffle).
 */
enum {
    FILL_DEFAULT = 0,
    FILL_HARD = 1,
    FILL_RANDOM = 2,
    FILL_NONE = 3,
    FILL_KIND = 3, /* mask of the kinds above */
    FILL_RUN = 4,
    FILL_COHERENT = 8
};

/* Neutral filler (FILL_NONE): one sentence group, repeated, as one document. */
#define NEUTRAL_TEXT                                                                               \
    "The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again. "
#define NEUTRAL_REPEAT 8
#define NEUTRAL_MAX    8192

#define SEQ_CACHE  8
#define FILL_CACHE 64

struct pack_memo;
static void pack_memo_clear(struct prompt_builder *b);

#define PROMPT_MAX_NEEDLES 64

/* --question-at values (README "Question placement"); QA_TEMPLATE renders the template as is. */
enum qa_slot { QA_TEMPLATE, QA_END, QA_START, QA_BOTH, QA_NONE, QA__COUNT };

struct prompt_builder {
    struct tokenizer *tk;
    const struct prompt_template *tpl;
    const struct haystack *hay;
    const char *user;              /* the [user] text of the current request (a slot variant) */
    char *user_variant[QA__COUNT]; /* made on first use; [QA_TEMPLATE] unused (tpl->user);
                                      [QA_NONE] (no question line) selects the distractors */
    struct count_map counts;
    struct seq seqs[SEQ_CACHE];
    struct qfill fills[FILL_CACHE];
    size_t fill_next;
    struct bm25_index *bm25; /* made on the first FILL_HARD request */
    /*
     * The needles axis (0: every gold chunk as one block at k, as before
     * axes): gold chunks 0..needles-1, needle j at boundary pos[j].
     */
    size_t needles;
    size_t pos[PROMPT_MAX_NEEDLES];
    struct chunk *neutral; /* NEUTRAL_MAX chunks sharing one text, made on first use */
    char *neutral_text;
    uint64_t tick;
    struct strbuf scratch, docs;
    struct pack_memo *packs; /* the order experiment's kept sets (prompt_build_order) */
    size_t packs_nr, packs_alloc;
};

struct prompt_builder *prompt_builder_new(struct tokenizer *tk, const struct prompt_template *tpl,
                                          const struct haystack *hay)
{
    struct prompt_builder *b = xcalloc(1, sizeof(*b));
    b->tk = tk;
    b->tpl = tpl;
    b->hay = hay;
    b->user = tpl->user;
    strbuf_init(&b->scratch, 0);
    strbuf_init(&b->docs, 0);
    return b;
}

static void seq_clear(struct seq *s)
{
    free(s->it);
    free(s->omap);
    memset(s, 0, sizeof(*s));
}

void prompt_builder_free(struct prompt_builder *b)
{
    size_t i;
    if (!b)
        return;
    free(b->counts.key);
    free(b->counts.val);
    for (i = 0; i < SEQ_CACHE; i++)
        seq_clear(&b->seqs[i]);
    for (i = 0; i < FILL_CACHE; i++)
        free(b->fills[i].idx);
    for (i = 0; i < QA__COUNT; i++)
        free(b->user_variant[i]);
    bm25_index_free(b->bm25);
    free(b->neutral);
    free(b->neutral_text);
    strbuf_release(&b->scratch);
    strbuf_release(&b->docs);
    pack_memo_clear(b);
    free(b);
}

void built_prompt_init(struct built_prompt *p)
{
    struct built_prompt z = BUILT_PROMPT_INIT;
    *p = z;
}

void built_prompt_release(struct built_prompt *p)
{
    strbuf_release(&p->system);
    strbuf_release(&p->user);
    strbuf_release(&p->text);
    built_prompt_init(p);
}

/* Representative document number for cached counts (two digits, like most). */
#define COUNT_INDEX 10

/*
 * A chunk "KEY": "VALUE" (a JSON member with a string value: the key-value
 * haystacks, whose pairs are too short to cut like prose) is cut anywhere
 * after its opening quote and closed again (cut_tail()): a cut in the key
 * ends the key and gives it an empty value, a cut in the value ends the
 * value. *min = bytes that always stay (the opening quote), *max = the text
 * without its closing quote (all of it: the whole pair), *value = the offset
 * of the value's first byte. Returns 1 for such a chunk, else 0 (*min = 0,
 * *max = the text's length).
 */
static int member_span(const struct chunk *c, size_t *min, size_t *max, size_t *value)
{
    const char *t = c->text, *sep;
    size_t n = c->text_len;
    *min = *value = 0;
    *max = n;
    if (n < 8 || t[0] != '"' || t[n - 1] != '"' || memchr(t, '\\', n))
        return 0;
    sep = strstr(t + 1, "\": \"");
    if (!sep || (size_t)(sep - t) + 6 > n || memchr(t + 1, '"', (size_t)(sep - t) - 1) ||
        memchr(sep + 4, '"', n - 1 - (size_t)(sep + 4 - t)))
        return 0;
    *min = 2;
    *max = n - 1;
    *value = (size_t)(sep - t) + 4;
    return 1;
}

/* What follows a chunk's text cut to len bytes: a cut member's closing (member_span()), or NULL. */
static const char *cut_tail(const struct chunk *c, size_t len)
{
    static const char close_key[] = "\": \"\""; /* the key's quote, ": ", an empty value */
    size_t min, max, value;
    if (len >= c->text_len || !member_span(c, &min, &max, &value))
        return NULL;
    if (len >= value)
        return close_key + 4; /* the value's closing quote */
    if (len + 4 > value)
        return close_key + (len + 4 - value); /* inside the ": " between them */
    return close_key;
}

static long count_text(struct prompt_builder *b, const char *s, size_t n, struct strbuf *err)
{
    long c = tokenizer_count_err(b->tk, s, n, err);
    if (c < 0 && err && !err->len)
        strbuf_addstr(err, "tokenizer failed");
    return c;
}

/* Tokens of separator + the chunk's block, with text (text, len). */
static long block_cost(struct prompt_builder *b, const struct chunk *c, const char *text,
                       size_t len, struct strbuf *err)
{
    struct doc_vals d = {COUNT_INDEX, c->title, text, c->id, len, cut_tail(c, len)};
    strbuf_reset(&b->scratch);
    strbuf_addstr(&b->scratch, b->tpl->separator);
    render(&b->scratch, b->tpl->document, "", NULL, NULL, &d);
    return count_text(b, b->scratch.buf, b->scratch.len, err);
}

static long chunk_cost(struct prompt_builder *b, const struct chunk *c, struct strbuf *err)
{
    long *v = count_map_get(&b->counts, c), n;
    if (v)
        return *v;
    n = block_cost(b, c, c->text, c->text_len, err);
    if (n >= 0)
        count_map_put(&b->counts, c, n);
    return n;
}

static void make_neutral(struct prompt_builder *b)
{
    struct strbuf t = STRBUF_INIT;
    size_t i;
    int k;
    for (k = 0; k < NEUTRAL_REPEAT; k++)
        strbuf_addstr(&t, NEUTRAL_TEXT);
    strbuf_rtrim(&t);
    b->neutral_text = strbuf_detach(&t, NULL);
    b->neutral = xcalloc(NEUTRAL_MAX, sizeof(*b->neutral));
    for (i = 0; i < NEUTRAL_MAX; i++) {
        b->neutral[i].id = (char *)"neutral";
        b->neutral[i].title = (char *)"Filler";
        b->neutral[i].text = b->neutral_text;
        b->neutral[i].text_len = strlen(b->neutral_text);
    }
}

/* The i-th filler chunk of f. */
static const struct chunk *fill_at(const struct prompt_builder *b, const struct qfill *f, size_t i)
{
    return (f->mode & FILL_KIND) == FILL_NONE ? &b->neutral[f->idx[i]] : &b->hay->c[f->idx[i]];
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

static struct qfill *get_fill(struct prompt_builder *b, const struct question *q,
                              unsigned long seed, unsigned mode)
{
    struct qfill *f;
    size_t i;
    for (i = 0; i < FILL_CACHE; i++)
        if (b->fills[i].q == q && b->fills[i].seed == seed && b->fills[i].mode == mode)
            return &b->fills[i];
    f = &b->fills[b->fill_next];
    b->fill_next = (b->fill_next + 1) % FILL_CACHE;
    free(f->idx);
    memset(f, 0, sizeof(*f));
    f->q = q;
    f->seed = seed;
    f->mode = mode;
    if ((mode & FILL_KIND) == FILL_NONE) {
        if (!b->neutral)
            make_neutral(b);
        f->idx = xcalloc(NEUTRAL_MAX, sizeof(*f->idx));
        for (i = 0; i < NEUTRAL_MAX; i++)
            f->idx[i] = i;
        f->nr = NEUTRAL_MAX;
    } else if (b->hay) {
        haystack_filter(b->hay, q, &f->idx, &f->nr, &f->dropped);
        if ((mode & FILL_KIND) == FILL_HARD) {
            if (!b->bm25)
                b->bm25 = bm25_index_new(b->hay);
            bm25_rank(b->bm25, q->question, f->idx, f->nr, NULL);
        } else if (mode & FILL_RUN) {
            /* consecutive eligible chunks in file order from a seeded start (wrapping) */
            size_t *run = xmalloc(st_mult(f->nr ? f->nr : 1, sizeof(*run)));
            uint64_t st = mix_key(seed, q->id, 0, 0, "run");
            size_t start = f->nr ? (size_t)(rng_splitmix64(&st) % f->nr) : 0;
            qsort(f->idx, f->nr, sizeof(*f->idx), cmp_size);
            for (i = 0; i < f->nr; i++)
                run[i] = f->idx[(start + i) % f->nr];
            free(f->idx);
            f->idx = run;
        } else {
            shuffle_sizes(f->idx, f->nr, mix_key(seed, q->id, 0, 0, "filler"));
        }
    }
    return f;
}

/* The FILL_* mode of a request from its distractors and haystack-order axes. */
static int request_fill_mode(const struct prompt_request *r, unsigned *mode, struct strbuf *err)
{
    size_t n;
    const char *v = axes_find(r->axes, "distractors", &n);
    *mode = FILL_DEFAULT;
#define IS(lit) (n == sizeof(lit) - 1 && !memcmp(v, lit, n))
    if (v) {
        if (IS("hard"))
            *mode = FILL_HARD;
        else if (IS("random"))
            *mode = FILL_RANDOM;
        else if (IS("none"))
            *mode = FILL_NONE;
        else {
            strbuf_addf(err, "distractors '%.*s' is not hard, random or none", (int)n, v);
            return -1;
        }
    }
    v = axes_find(r->axes, "haystack-order", &n);
    if (v) {
        if (IS("coherent"))
            *mode |= FILL_COHERENT;
        else if (!IS("shuffled")) {
            strbuf_addf(err, "haystack-order '%.*s' is not coherent or shuffled", (int)n, v);
            return -1;
        }
        if ((*mode & FILL_KIND) == FILL_DEFAULT || (*mode & FILL_KIND) == FILL_RANDOM)
            *mode |= FILL_RUN;
    }
#undef IS
    return 0;
}

/*
 * The system and user messages (and the completion string) of q with the
 * documents block b->docs; returns the byte offset of the block in user.
 */
static size_t render_messages(struct prompt_builder *b, const struct question *q,
                              struct built_prompt *out)
{
    const struct prompt_template *t = b->tpl;
    size_t docs_at = 0;
    strbuf_reset(&out->system);
    strbuf_reset(&out->user);
    strbuf_reset(&out->text);
    render(&out->system, t->system, q->question, NULL, NULL, NULL);
    render(&out->user, b->user, q->question, &b->docs, &docs_at, NULL);
    if (out->system.len) {
        strbuf_add(&out->text, out->system.buf, out->system.len);
        strbuf_addstr(&out->text, "\n\n");
    }
    strbuf_add(&out->text, out->user.buf, out->user.len);
    return docs_at;
}

/*
 * Render the whole request for a distractor order (order[] indexes s->it)
 * with the gold block at boundary k, the cut item (if any) keeping cut_len
 * bytes of its text (SIZE_MAX: the selection's length). Fills out's strings,
 * byte offsets and the cut item's text range.
 */
static void render_request(struct prompt_builder *b, const struct seq *s, const size_t *order,
                           size_t k, size_t cut_len, struct built_prompt *out)
{
    const struct prompt_template *t = b->tpl;
    const struct question *q = s->q;
    size_t i, g, docs_at = 0, gold_s = 0, gold_e = 0, cut_s = 0, cut_e = 0;
    long index = 1;
    int first = 1, have_cut = 0;

    strbuf_reset(&b->docs);
    for (i = 0; i <= s->nr; i++) {
        size_t ng = b->needles ? b->needles : q->gold_nr;
        for (g = 0; g < ng; g++) {
            struct doc_vals d = {index,         q->gold[g].title,    q->gold[g].text,
                                 q->gold[g].id, q->gold[g].text_len, NULL};
            if ((b->needles ? b->pos[g] : k) != i)
                continue;
            index++;
            if (!first)
                strbuf_addstr(&b->docs, t->separator);
            first = 0;
            if (g == 0)
                gold_s = b->docs.len;
            render(&b->docs, t->document, "", NULL, NULL, &d);
            /* the gold block: all chunks (no axis), or the first needle */
            if (!b->needles || g == 0)
                gold_e = b->docs.len;
        }
        if (i < s->nr) {
            size_t j = order ? order[i] : i, at = 0;
            const struct seq_item *it = &s->it[j];
            int is_cut = (long)j == s->cut;
            size_t len = is_cut && cut_len != SIZE_MAX ? cut_len : it->len;
            struct doc_vals d = {index++,   it->c->title, it->c->text,
                                 it->c->id, len,          cut_tail(it->c, len)};
            if (!first)
                strbuf_addstr(&b->docs, t->separator);
            first = 0;
            render(&b->docs, t->document, "", NULL, &at, &d);
            if (is_cut) {
                have_cut = 1;
                cut_s = at;
                cut_e = at + len;
            }
        }
    }
    docs_at = render_messages(b, q, out);
    out->gold_start = docs_at + gold_s;
    out->gold_end = docs_at + gold_e;
    out->cut_start = have_cut ? docs_at + cut_s : 0;
    out->cut_end = have_cut ? docs_at + cut_e : 0;
}

/* Exact token count of the request's content as sent (the template overhead not included). */
static long count_request(struct prompt_builder *b, const struct built_prompt *p, int chat,
                          struct strbuf *err)
{
    long a = 0, c;
    if (!chat)
        return count_text(b, p->text.buf, p->text.len, err);
    if (p->system.len) {
        a = count_text(b, p->system.buf, p->system.len, err);
        if (a < 0)
            return -1;
    }
    c = count_text(b, p->user.buf, p->user.len, err);
    return c < 0 ? -1 : a + c;
}

static void hash_request(int chat, struct built_prompt *out)
{
    struct sha256_ctx c;
    sha256_init(&c);
    if (chat) {
        sha256_update(&c, out->system.buf, out->system.len);
        sha256_update(&c, "", 1);
        sha256_update(&c, out->user.buf, out->user.len);
    } else {
        sha256_update(&c, out->text.buf, out->text.len);
    }
    sha256_final_hex(&c, out->sha256);
}

static void prompt_hash(const struct prompt_request *r, struct built_prompt *out)
{
    hash_request(r->chat, out);
}

/*
 * A control trial (trial.h): the template with no documents (closed-book)
 * or with the gold chunk(s) alone (oracle); the length is what it is.
 */
static int build_control(struct prompt_builder *b, const struct prompt_request *r,
                         struct built_prompt *out, struct strbuf *err)
{
    const struct prompt_template *t = b->tpl;
    const struct question *q = r->q;
    size_t g, docs_at = 0;
    long real, pre;
    long index = 1;

    strbuf_reset(&b->docs);
    if (r->depth_bp == DEPTH_BP_ORACLE)
        for (g = 0; g < q->gold_nr; g++) {
            struct doc_vals d = {index++,       q->gold[g].title,    q->gold[g].text,
                                 q->gold[g].id, q->gold[g].text_len, NULL};
            if (g)
                strbuf_addstr(&b->docs, t->separator);
            render(&b->docs, t->document, "", NULL, NULL, &d);
        }
    docs_at = render_messages(b, q, out);
    out->gold_start = docs_at;
    out->gold_end = docs_at + b->docs.len;
    out->cut_start = out->cut_end = 0;
    real = count_request(b, out, r->chat, err);
    if (real < 0)
        return -1;
    pre = count_text(b, out->user.buf, docs_at, err);
    if (pre < 0)
        return -1;
    out->overhead = r->overhead;
    out->realized_len = real + r->overhead;
    out->gold_offset = r->depth_bp == DEPTH_BP_ORACLE ? pre : 0;
    out->realized_depth = 0.0;
    out->docs_nr = r->depth_bp == DEPTH_BP_ORACLE ? q->gold_nr : 0;
    out->gold_index = 0;
    out->hard_negatives = out->filler = out->filler_dropped = 0;
    prompt_hash(r, out);
    return 0;
}

/* Chunks with fewer words are never cut, but key-value pairs (see select_items()). */
#define MIN_TRIM_WORDS 8

static size_t word_count(const char *s, size_t n)
{
    size_t i, nr = 0;
    for (i = 0; i < n; i++) {
        int sp = s[i] == ' ' || s[i] == '\n' || s[i] == '\t';
        int next_sp = i + 1 == n || s[i + 1] == ' ' || s[i + 1] == '\n' || s[i + 1] == '\t';
        nr += !sp && next_sp;
    }
    return nr;
}

/* Byte offsets of the UTF-8 character boundaries of s inside (0, n]; caller frees. */
static size_t char_ends(const char *s, size_t n, size_t **out)
{
    size_t i, nr = 0, alloc = 0;
    *out = NULL;
    for (i = 1; i <= n; i++) {
        if (i < n && ((unsigned char)s[i] & 0xC0) == 0x80)
            continue;
        ALLOC_GROW(*out, nr + 1, alloc);
        (*out)[nr++] = i;
    }
    return nr;
}

/* count(pre + text[0..len) + its cut tail (c: cut_tail(), NULL: none) + post) */
static long window_count(struct prompt_builder *b, const struct chunk *c, const char *pre,
                         size_t pre_len, const char *text, size_t len, const char *post,
                         size_t post_len, struct strbuf *err)
{
    const char *tail = c ? cut_tail(c, len) : NULL;
    strbuf_reset(&b->scratch);
    strbuf_add(&b->scratch, pre, pre_len);
    strbuf_add(&b->scratch, text, len);
    if (tail)
        strbuf_addstr(&b->scratch, tail);
    strbuf_add(&b->scratch, post, post_len);
    return count_text(b, b->scratch.buf, b->scratch.len, err);
}

/* Characters below the longest fitting prefix tried for an exact count. */
#define EXACT_SCAN 24

/*
 * The longest prefix of text (at a character boundary) with
 * count(pre + prefix + post) <= goal: since a longer prefix never has fewer
 * tokens but for merges at the cut, that prefix ends at a token boundary of
 * its own encoding. When that prefix counts less than goal (a merge made the
 * next character cost two tokens), a prefix up to EXACT_SCAN characters
 * shorter that counts exactly goal is taken instead. Only prefixes of at least min bytes are
 * taken; c (may be NULL) is the chunk whose cut_tail() goes between prefix and post. Returns
 * its length in bytes (0 when even the shortest prefix is over goal), or -1
 * (err) when counting fails.
 */
static long longest_prefix(struct prompt_builder *b, const struct chunk *c, const char *pre,
                           size_t pre_len, const char *text, size_t text_len, size_t min,
                           const char *post, size_t post_len, long goal, struct strbuf *err)
{
    size_t *ends, nr = char_ends(text, text_len, &ends), lo = 0, hi = nr + 1, first = 0;
    long ret = 0;
    if (min) {
        long n0;
        while (first < nr && ends[first] < min)
            first++;
        if (first >= nr) {
            free(ends);
            return 0;
        }
        first++; /* chars in the shortest allowed prefix */
        n0 = window_count(b, c, pre, pre_len, text, ends[first - 1], post, post_len, err);
        if (n0 < 0 || n0 > goal) {
            free(ends);
            return n0 < 0 ? -1 : 0;
        }
        lo = first;
    }
    /* invariant: prefix of lo chars fits (lo = 0 assumed), prefix of hi chars does not */
    while (lo + 1 < hi) {
        size_t mid = lo + (hi - lo) / 2;
        long n1 = window_count(b, c, pre, pre_len, text, ends[mid - 1], post, post_len, err);
        if (n1 < 0) {
            free(ends);
            return -1;
        }
        if (n1 <= goal)
            lo = mid;
        else
            hi = mid;
    }
    ret = lo ? (long)ends[lo - 1] : 0;
    if (lo) {
        /*
         * A token that merges with what follows the cut can make the count
         * jump by two; a nearby character boundary often lands on goal.
         */
        long at = window_count(b, c, pre, pre_len, text, ends[lo - 1], post, post_len, err);
        size_t j;
        if (at < 0) {
            free(ends);
            return -1;
        }
        for (j = 1; at != goal && j <= EXACT_SCAN && j < lo && lo - j >= first; j++) {
            long n2 = window_count(b, c, pre, pre_len, text, ends[lo - 1 - j], post, post_len, err);
            if (n2 < 0) {
                free(ends);
                return -1;
            }
            if (n2 == goal) {
                ret = (long)ends[lo - 1 - j];
                break;
            }
        }
    }
    free(ends);
    return ret;
}

/*
 * Bytes of c's text whose block fits room tokens (0: none; -1: counting
 * failed); a member chunk (member_span()) is cut inside its value, closed.
 */
static long cut_chunk(struct prompt_builder *b, const struct chunk *c, long room,
                      struct strbuf *err)
{
    size_t at = 0, min, max, value;
    int member = member_span(c, &min, &max, &value);
    struct doc_vals d = {COUNT_INDEX, c->title, "", c->id, 0, NULL};
    long len;
    strbuf_reset(&b->docs);
    strbuf_addstr(&b->docs, b->tpl->separator);
    render(&b->docs, b->tpl->document, "", NULL, &at, &d);
    len = longest_prefix(b, c, b->docs.buf, at, c->text, max, min, b->docs.buf + at,
                         b->docs.len - at, room, err);
    /* a member whose whole value fits is the whole chunk */
    return member && len == (long)max ? (long)c->text_len : len;
}

static int selected(const struct seq *s, const struct chunk *c)
{
    size_t j;
    for (j = 0; j < s->nr; j++)
        if (s->it[j].c == c)
            return 1;
    return 0;
}

/* Tokens hard negatives leave for a cut key-value pair (of a kv haystack). */
#define MEMBER_RESERVE 12

/* Candidates looked at, and swaps made, when whole chunks must fill the gap. */
#define PACK_CANDIDATES 64
#define PACK_SWAPS      16

/*
 * Without a cut item (chunks too short to cut) the gap left by whole chunks
 * is narrowed by swapping a selected filler chunk for an unselected one a
 * few tokens longer (from the next PACK_CANDIDATES of the permutation).
 * Returns the tokens gained (<= gap), or -1 (err).
 */
static long pack_whole(struct prompt_builder *b, struct seq *s, const struct qfill *f, size_t from,
                       long gap, struct strbuf *err)
{
    long gained = 0;
    int swap;
    for (swap = 0; swap < PACK_SWAPS && gap > 0; swap++) {
        long best = 0;
        size_t bi = 0, bj = 0, j, n = 0, i;
        for (j = 0; j < f->nr && n < PACK_CANDIDATES + from; j++) {
            const struct chunk *c = fill_at(b, f, j);
            long cc;
            n++;
            if (selected(s, c))
                continue;
            cc = chunk_cost(b, c, err);
            if (cc < 0)
                return -1;
            for (i = s->hard; i < s->nr; i++) {
                long d = cc - s->it[i].cost;
                if (d > best && d <= gap) {
                    best = d;
                    bi = i;
                    bj = j;
                }
            }
        }
        if (!best)
            break;
        {
            const struct chunk *c = fill_at(b, f, bj);
            s->it[bi] = (struct seq_item){c, c->text_len, s->it[bi].cost + best, 0};
        }
        gap -= best;
        gained += best;
    }
    return gained;
}

/*
 * Select distractors for budget tokens (estimated from cached block costs).
 * Hard negatives first (skipped when they do not fit), then filler; the
 * first filler chunk that does not fit strictly below the budget becomes the
 * cut item: its longest prefix whose block fits the rest. Returns 0, or -1
 * (err) when the material runs out or counting fails.
 */
static int select_items(struct prompt_builder *b, struct seq *s, const struct qfill *f, long budget,
                        struct strbuf *err)
{
    const struct question *q = s->q;
    size_t i, alloc = 0, skipped = 0;
    long sum = 0;
    long reserve = 0;
    int want_cut = 0; /* a chunk filled the budget whole: cut the next one */

    s->nr = s->hard = s->filler = 0;
    s->cut = -1;
    if (f->nr) {
        /* hard negatives leave a key-value filler pair room for a cut that can move */
        size_t mn, mx, mv;
        if (member_span(fill_at(b, f, 0), &mn, &mx, &mv))
            reserve = MEMBER_RESERVE;
    }
    for (i = 0; i < q->distractors_nr && (f->mode & FILL_KIND) != FILL_RANDOM &&
                (f->mode & FILL_KIND) != FILL_NONE;
         i++) {
        const struct chunk *c = &q->distractors[i];
        long cost = chunk_cost(b, c, err);
        if (cost < 0)
            return -1;
        if (sum + cost > budget - reserve)
            continue;
        ALLOC_GROW(s->it, s->nr + 1, alloc);
        s->it[s->nr++] = (struct seq_item){c, c->text_len, cost, 1};
        s->hard++;
        sum += cost;
    }
    for (i = 0; i < f->nr && (sum < budget || want_cut); i++) {
        const struct chunk *c = fill_at(b, f, i);
        long cost, len, t;
        size_t mmin, mmax, mval;
        int k, avoided = 0, member;
        for (k = 0; k < s->navoid; k++)
            avoided |= s->avoid[k] == c;
        if (avoided)
            continue;
        cost = chunk_cost(b, c, err);
        if (cost < 0)
            return -1;
        ALLOC_GROW(s->it, s->nr + 1, alloc);
        /*
         * Whole while it fits strictly below the budget, so that a chunk is
         * left to cut: each depth fine-tunes the cut to its exact count.
         */
        if (sum + cost < budget) {
            s->it[s->nr++] = (struct seq_item){c, c->text_len, cost, 0};
            s->filler++;
            sum += cost;
            continue;
        }
        /*
         * A chunk of a few words (a one-line fact) is not cut in half: a later
         * chunk that fits whole is looked for instead. A key-value pair is cut
         * inside its value (member_span()).
         */
        member = member_span(c, &mmin, &mmax, &mval);
        if (!member && word_count(c->text, c->text_len) < MIN_TRIM_WORDS) {
            if (sum + cost == budget) {
                s->it[s->nr++] = (struct seq_item){c, c->text_len, cost, 0};
                s->filler++;
                sum += cost;
                break;
            }
            if (++skipped > 64)
                break;
            continue;
        }
        len = member && budget - sum < MEMBER_RESERVE ? 0 : cut_chunk(b, c, budget - sum, err);
        if (len == 0 && member && s->nr > s->hard) {
            /* too little room for a cut that can move: give the last whole pair back */
            sum -= s->it[s->nr - 1].cost;
            s->nr--;
            s->filler--;
            len = cut_chunk(b, c, budget - sum, err);
        } else if (len == 0 && s->nr > s->hard &&
                   word_count(s->it[s->nr - 1].c->text, s->it[s->nr - 1].c->text_len) >=
                       MIN_TRIM_WORDS) {
            /*
             * The rest is smaller than a block's header: shorten the previous
             * chunk (once, for every depth) to make room for this one's
             * header and a few tokens that each depth can move.
             */
            struct seq_item *p = &s->it[s->nr - 1];
            long head = block_cost(b, c, "", 0, err), plen;
            if (head < 0)
                return -1;
            sum -= p->cost;
            plen = cut_chunk(b, p->c, budget - sum - head - 16, err);
            if (plen < 0)
                return -1;
            if (plen == 0) {
                s->nr--;
                s->filler--;
            } else {
                p->len = (size_t)plen;
                p->cost = block_cost(b, p->c, p->c->text, p->len, err);
                if (p->cost < 0)
                    return -1;
                sum += p->cost;
            }
            len = cut_chunk(b, c, budget - sum, err);
        }
        if (len < 0)
            return -1;
        if ((size_t)len == c->text_len &&
            !(s->nr > s->hard && s->it[s->nr - 1].len < s->it[s->nr - 1].c->text_len)) {
            /* whole: a cut item must be able to grow too, so cut the next chunk */
            s->it[s->nr++] = (struct seq_item){c, c->text_len, cost, 0};
            s->filler++;
            sum += cost;
            want_cut = 1;
            continue;
        }
        if (len > 0) {
            t = block_cost(b, c, c->text, (size_t)len, err);
            if (t < 0)
                return -1;
            s->cut = (long)s->nr;
            s->it[s->nr++] = (struct seq_item){c, (size_t)len, t, 0};
            s->filler++;
            sum += t;
        }
        break;
    }
    if (s->cut < 0 && sum < budget && (i < f->nr || skipped)) {
        long got = pack_whole(b, s, f, i, budget - sum, err);
        if (got < 0)
            return -1;
        sum += got;
    }
    if (i >= f->nr && budget - sum > budget / 200 + 16) {
        strbuf_addf(err,
                    "question %s: not enough distractor material for %ld tokens (%zu hard "
                    "negatives, %zu eligible filler chunks%s)",
                    q->id, s->target, q->distractors_nr, f->nr,
                    b->hay ? "" : "; no haystack given");
        return -1;
    }
    return 0;
}

static int fit_exact(struct prompt_builder *b, const struct seq *s, const size_t *order, size_t k,
                     long content, int chat, struct built_prompt *out, long *real,
                     struct strbuf *err);
static int make_user_variant(const char *user, enum qa_slot want, struct strbuf *out, int *n_start,
                             int *n_end);

/* Tokens a question-slot variant's whole last filler is shortened by, so its cut can grow. */
#define CUT_SLACK 16

/* Tokens left free below the target when no chunk can be cut (one-line facts). */
#define NOCUT_SLACK 1

/*
 * A cut member (a key-value pair) can move by a few tokens only, its value's:
 * its selection must land within two tokens of the count.
 */
static int cut_is_member(const struct seq *s)
{
    size_t min, max, value;
    return s->cut >= 0 && member_span(s->it[s->cut].c, &min, &max, &value);
}

/* The cached selection for this request, or NULL with *victim the least recently used. */
static struct seq *find_seq(struct prompt_builder *b, const struct prompt_request *r, unsigned mode,
                            struct seq **victim)
{
    *victim = &b->seqs[0];
    for (size_t i = 0; i < SEQ_CACHE; i++) {
        struct seq *c = &b->seqs[i];
        if (c->q == r->q && c->user == b->user && c->mode == mode && c->needles == b->needles &&
            c->target == r->target_len && c->overhead == r->overhead && c->seed == r->seed &&
            c->chat == r->chat) {
            c->last_used = b->tick;
            return c;
        }
        if (c->last_used < (*victim)->last_used)
            *victim = c;
    }
    return NULL;
}

static struct seq *get_seq(struct prompt_builder *b, const struct prompt_request *r,
                           struct built_prompt *tmp, struct strbuf *err);

/*
 * A question-slot variant takes the selection made without any question line, so every
 * --question-at value has the same distractors in the same order; each shortens the cut
 * item by its question's tokens. Returns the base selection and sets *victim to the least
 * recently used cache slot other than the base's.
 */
static struct seq *variant_base(struct prompt_builder *b, const struct prompt_request *r,
                                struct built_prompt *tmp, struct seq **victim, struct strbuf *err)
{
    const char *user = b->user;
    struct seq *base;

    if (!b->user_variant[QA_NONE]) {
        struct strbuf sb = STRBUF_INIT;
        int ns, ne;
        make_user_variant(b->tpl->user, QA_NONE, &sb, &ns, &ne);
        b->user_variant[QA_NONE] = strbuf_detach(&sb, NULL);
    }
    b->user = b->user_variant[QA_NONE];
    base = get_seq(b, r, tmp, err);
    b->user = user;
    if (!base)
        return NULL;
    *victim = base == &b->seqs[0] ? &b->seqs[1] : &b->seqs[0];
    for (size_t i = 0; i < SEQ_CACHE; i++)
        if (&b->seqs[i] != base && b->seqs[i].last_used < (*victim)->last_used)
            *victim = &b->seqs[i];
    return base;
}

/*
 * The fixed part (template, question and gold, no distractors) into s->fixed and the
 * tokens before the documents into s->pre_docs (each trial's gold offset comes from
 * cached counts after them). -1 when the target cannot hold the fixed part.
 */
static int seq_fixed(struct prompt_builder *b, struct seq *s, const struct prompt_request *r,
                     long content, struct built_prompt *tmp, struct strbuf *err)
{
    size_t docs_at, sys;
    long fixed, a = 0;

    render_request(b, s, NULL, 0, SIZE_MAX, tmp);
    fixed = count_request(b, tmp, r->chat, err);
    if (fixed < 0)
        return -1;
    if (fixed > content) {
        if (r->overhead)
            strbuf_addf(err,
                        "question %s: target length %ld is below the size of the template, "
                        "question and gold chunk (%ld tokens) plus the chat template's %ld",
                        r->q->id, r->target_len, fixed, r->overhead);
        else
            strbuf_addf(err,
                        "question %s: target length %ld is below the size of the template, "
                        "question and gold chunk (%ld tokens)",
                        r->q->id, r->target_len, fixed);
        return -1;
    }
    s->fixed = fixed;
    docs_at = tmp->gold_start;
    sys = r->chat ? 0 : tmp->text.len - tmp->user.len;
    if (r->chat && tmp->system.len &&
        (a = count_text(b, tmp->system.buf, tmp->system.len, err)) < 0)
        return -1;
    s->pre_docs = count_text(b, r->chat ? tmp->user.buf : tmp->text.buf, docs_at + sys, err);
    if (s->pre_docs < 0)
        return -1;
    s->pre_docs += a;
    return 0;
}

/*
 * A variant's selection: the base's items in the base's order; the extra tokens of this
 * variant's question lines (plus CUT_SLACK, for the cut item to grow back into) come off
 * the last whole fillers, the cut item kept.
 */
static int seq_from_base(struct prompt_builder *b, struct seq *s, const struct seq *base,
                         struct strbuf *err)
{
    long deficit = s->fixed - base->fixed + CUT_SLACK;
    size_t at, nr = base->nr;

    s->it = xmalloc(st_mult(nr ? nr : 1, sizeof(*s->it)));
    memcpy(s->it, base->it, nr * sizeof(*s->it));
    s->omap = xmalloc(st_mult(nr ? nr : 1, sizeof(*s->omap)));
    for (at = 0; at < nr; at++)
        s->omap[at] = at;
    s->order_nr = nr;
    s->nr = nr;
    s->cut = base->cut;
    s->hard = base->hard;
    s->filler = base->filler;
    at = nr;
    while (deficit > 0 && at > s->hard) {
        struct seq_item *it = &s->it[--at];
        long len;
        if ((long)at == s->cut)
            continue;
        len = it->cost <= deficit ? 0 : cut_chunk(b, it->c, it->cost - deficit, err);
        if (len < 0)
            return -1;
        if (len == 0) { /* dropped: later items move down one */
            size_t m;
            deficit -= it->cost;
            memmove(&s->it[at], &s->it[at + 1], (s->nr - at - 1) * sizeof(*s->it));
            for (m = 0; m < nr; m++)
                if (s->omap[m] == at)
                    s->omap[m] = SIZE_MAX;
                else if (s->omap[m] != SIZE_MAX && s->omap[m] > at)
                    s->omap[m]--;
            if (s->cut > (long)at)
                s->cut--;
            s->nr--;
            s->filler--;
            continue;
        }
        it->len = (size_t)len;
        it->cost = block_cost(b, it->c, it->c->text, it->len, err);
        if (it->cost < 0)
            return -1;
        deficit = 0;
        if (s->cut < 0)
            s->cut = (long)at;
    }
    return 0;
}

/*
 * Converge on the exact count: cached block costs are not exactly additive (token merges
 * at boundaries, document numbers), so count the whole request (gold first, selection
 * order) and correct the budget. Each build then fine-tunes the cut item to its own exact
 * count.
 */
static int seq_converge(struct prompt_builder *b, struct seq *s, struct qfill *f,
                        const struct prompt_request *r, long content, struct built_prompt *tmp,
                        struct strbuf *err)
{
    long budget = content - s->fixed, real, best_diff = -1, best_budget = 0;

    for (int iter = 0; iter < 8; iter++) {
        long diff;
        if (select_items(b, s, f, budget, err) < 0)
            return -1;
        render_request(b, s, NULL, 0, SIZE_MAX, tmp);
        real = count_request(b, tmp, r->chat, err);
        if (real < 0)
            return -1;
        /*
         * Without a cut item no build can correct its count, so leave room
         * for the few tokens moving the gold changes.
         */
        diff = content - real - (s->cut < 0 ? NOCUT_SLACK : 0);
        if (diff <= 0 && diff > -NOCUT_SLACK && s->cut < 0)
            diff = 0;
        if ((best_diff < 0 || labs(diff) < best_diff) && diff >= -NOCUT_SLACK) {
            best_diff = labs(diff);
            best_budget = budget;
        }
        if (diff >= 0 && diff <= (cut_is_member(s) ? 2 : content / 1000 + 1)) {
            long exact = real;
            /*
             * Some cut points cannot give the exact count (", " + "\n\n" is
             * one token fewer than ", 2" + "\n\n" less one): cut another chunk.
             */
            if (s->cut < 0 || s->navoid >= CUT_TRIES)
                return 0;
            if (fit_exact(b, s, NULL, 0, content, r->chat, tmp, &exact, err) < 0)
                return -1;
            if (exact == content)
                return 0;
            s->avoid[s->navoid++] = s->it[s->cut].c;
            continue;
        }
        budget += diff ? diff : -1;
    }
    return select_items(b, s, f, best_budget, err) < 0 ? -1 : 0;
}

/*
 * The distractor selection of a request (question, length, seed, rendering, question
 * slots), from the builder's cache or made now; NULL with err set.
 */
static struct seq *get_seq(struct prompt_builder *b, const struct prompt_request *r,
                           struct built_prompt *tmp, struct strbuf *err)
{
    struct seq *s, *victim, *base = NULL;
    long content = r->target_len - r->overhead;
    unsigned mode;
    struct qfill *f;

    if (request_fill_mode(r, &mode, err) < 0)
        return NULL;
    b->tick++;
    s = find_seq(b, r, mode, &victim);
    if (s)
        return s;
    if (b->user != b->tpl->user && b->user != b->user_variant[QA_NONE]) {
        base = variant_base(b, r, tmp, &victim, err);
        if (!base)
            return NULL;
    }
    s = victim;
    seq_clear(s);
    s->q = r->q;
    s->user = b->user;
    s->mode = mode;
    s->needles = b->needles;
    s->target = r->target_len;
    s->overhead = r->overhead;
    s->seed = r->seed;
    s->chat = r->chat;
    s->cut = -1;
    s->last_used = b->tick;

    f = get_fill(b, r->q, r->seed, mode);
    s->filler_dropped = f->dropped;
    if (seq_fixed(b, s, r, content, tmp, err) < 0 ||
        (base ? seq_from_base(b, s, base, err) : seq_converge(b, s, f, r, content, tmp, err)) < 0) {
        seq_clear(s);
        return NULL;
    }
    return s;
}

/* Bytes of context either side of the cut that can merge with it into one token. */
#define CUT_WINDOW 96

/* Render with the cut at len and count; keep the best count at most content. */
static int try_cut(struct prompt_builder *b, const struct seq *s, const size_t *order, size_t k,
                   size_t len, int chat, long content, struct built_prompt *out, long *real,
                   long *best, size_t *best_len, struct strbuf *err)
{
    render_request(b, s, order, k, len, out);
    *real = count_request(b, out, chat, err);
    if (*real < 0)
        return -1;
    if (*real <= content && *real > *best) {
        *best = *real;
        *best_len = len;
    }
    return 0;
}

/*
 * Give this build its exact count: move the cut item's end so that the
 * whole request counts content tokens (never more), counting a window
 * around the cut while searching and the whole request to confirm.
 * *real holds the exact count of out on entry and on return.
 */
static int fit_exact(struct prompt_builder *b, const struct seq *s, const size_t *order, size_t k,
                     long content, int chat, struct built_prompt *out, long *real,
                     struct strbuf *err)
{
    const struct seq_item *it = s->cut >= 0 ? &s->it[s->cut] : NULL;
    size_t len = it ? out->cut_end - out->cut_start : 0, best_len = len, tried[4], cut_min = 0,
           cut_max = 0, cut_value;
    long best = *real <= content ? *real : -1;
    int iter, ntried = 0;

    if (it)
        member_span(it->c, &cut_min, &cut_max, &cut_value); /* a member: any point after '"' */
    for (iter = 0; it && *real != content && iter < 4; iter++) {
        const struct strbuf *sb = chat ? &out->user : &out->text;
        size_t off = chat ? 0 : out->text.len - out->user.len;
        size_t cs = off + out->cut_start, ce = off + out->cut_end;
        size_t ws = utf8_char_start(sb->buf, cs > CUT_WINDOW ? cs - CUT_WINDOW : 0);
        size_t we = ce + CUT_WINDOW < sb->len ? utf8_char_start(sb->buf, ce + CUT_WINDOW) : sb->len;
        long cw, nl;
        int j, seen = 0;
        strbuf_reset(&b->scratch);
        strbuf_add(&b->scratch, sb->buf + ws, we - ws);
        cw = count_text(b, b->scratch.buf, b->scratch.len, err);
        if (cw < 0)
            return -1;
        {
            /* the window's pieces outlive renders: copy them */
            struct strbuf pre = STRBUF_INIT, post = STRBUF_INIT;
            strbuf_add(&pre, sb->buf + ws, cs - ws);
            /* the post without the current cut's tail (window_count() adds each one's) */
            size_t tl = cut_tail(it->c, len) ? strlen(cut_tail(it->c, len)) : 0;
            strbuf_add(&post, sb->buf + ce + tl, we - ce - tl);
            nl = longest_prefix(b, it->c, pre.buf, pre.len, it->c->text, cut_max, cut_min, post.buf,
                                post.len, cw + content - *real, err);
            strbuf_release(&pre);
            strbuf_release(&post);
        }
        if (nl < 0)
            return -1;
        for (j = 0; j < ntried; j++)
            seen |= tried[j] == (size_t)nl;
        if (seen || (size_t)nl == len || nl == 0)
            break; /* no progress (or an empty document): keep the best so far */
        tried[ntried++] = (size_t)nl;
        len = (size_t)nl;
        if (try_cut(b, s, order, k, len, chat, content, out, real, &best, &best_len, err) < 0)
            return -1;
    }
    if (it && *real != content) {
        /*
         * The window disagreed with the whole request (a merge reaching past
         * it): try the character boundaries next to the cut, whole counts.
         */
        const char *t = it->c->text;
        size_t tl = cut_max, cand = len;
        int step, dir = *real < content ? 1 : -1;
        for (step = 0; step < EXACT_SCAN && *real != content; step++) {
            if (dir > 0) {
                if (cand >= tl)
                    break;
                cand++;
                while (cand < tl && ((unsigned char)t[cand] & 0xC0) == 0x80)
                    cand++;
            } else {
                if (cand <= 1 || cand <= cut_min)
                    break;
                cand = utf8_char_start(t, cand - 1);
            }
            len = cand;
            if (try_cut(b, s, order, k, len, chat, content, out, real, &best, &best_len, err) < 0)
                return -1;
        }
    }
    if (it && best >= 0 && best_len != len) {
        render_request(b, s, order, k, best_len, out);
        *real = count_request(b, out, chat, err);
        if (*real < 0)
            return -1;
    }
    return 0;
}

/*
 * Question slots: a line of [user] holding {question} is a slot, a start slot
 * before {documents} and an end slot after it (a line holding both is no
 * slot). end keeps the end slots, start the start slots, both keeps all;
 * a dropped line that was a paragraph of its own takes its blank line along.
 */
static int is_slot_line(const char *l, size_t n, const char *what)
{
    size_t wl = strlen(what), i;
    for (i = 0; i + wl <= n; i++)
        if (!memcmp(l + i, what, wl))
            return 1;
    return 0;
}

static int make_user_variant(const char *user, enum qa_slot want, struct strbuf *out, int *n_start,
                             int *n_end)
{
    const char *p = user;
    int seen_docs = 0, drop_blank = 0, prev_blank = 1;
    *n_start = *n_end = 0;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        int docs = is_slot_line(p, n, "{documents}");
        int quest = is_slot_line(p, n, "{question}");
        int blank = n == 0;
        int keep = 1;
        if (quest && !docs) {
            int start = !seen_docs;
            *n_start += start;
            *n_end += !start;
            keep = want == QA_BOTH || (start ? want == QA_START : want == QA_END);
        }
        if (docs)
            seen_docs = 1;
        if (!keep) {
            drop_blank = prev_blank; /* a paragraph of its own: its following blank line goes too */
        } else if (!(blank && drop_blank)) {
            strbuf_add(out, p, n);
            if (nl)
                strbuf_addch(out, '\n');
            drop_blank = 0;
        } else {
            drop_blank = 0;
        }
        if (keep)
            prev_blank = blank;
        if (!nl)
            break;
        p = nl + 1;
    }
    while (out->len && out->buf[out->len - 1] == '\n')
        strbuf_setlen(out, out->len - 1);
    return 0;
}

const char *prompt_question_at_check(const struct prompt_template *t, const char *value)
{
    struct strbuf sb = STRBUF_INIT;
    int ns, ne;
    make_user_variant(t->user, QA_BOTH, &sb, &ns, &ne);
    strbuf_release(&sb);
    if (strcmp(value, "end") && !ns)
        return "before";
    if (strcmp(value, "start") && !ne)
        return "after";
    return NULL;
}

/* Point b->user at the [user] text the request's question-at axis asks for. */
static int select_user(struct prompt_builder *b, const struct prompt_request *r, struct strbuf *err)
{
    static const char *const names[QA_BOTH + 1] = {NULL, "end", "start", "both"};
    size_t n;
    const char *v = axes_find(r->axes, "question-at", &n);
    int want = QA__COUNT, ns, ne;
    struct strbuf sb = STRBUF_INIT;
    if (!v) {
        b->user = b->tpl->user;
        return 0;
    }
    /* QA_NONE is the builder's own variant, not a value a request may name */
    for (want = QA_END; want <= QA_BOTH; want++)
        if (strlen(names[want]) == n && !memcmp(v, names[want], n))
            break;
    if (want > QA_BOTH) {
        strbuf_addf(err, "question-at '%.*s' is not end, start or both", (int)n, v);
        return -1;
    }
    if (b->user_variant[want]) {
        b->user = b->user_variant[want];
        return 0;
    }
    make_user_variant(b->tpl->user, (enum qa_slot)want, &sb, &ns, &ne);
    if ((want != QA_END && !ns) || (want != QA_START && !ne)) {
        strbuf_addf(err,
                    "template %s: --question-at %s needs a line with {question} %s {documents} "
                    "in [user] (the template's question slots; prompts/qa-both.txt has both)",
                    b->tpl->path ? b->tpl->path : "(template)", names[want],
                    want != QA_END && !ns ? "before" : "after");
        strbuf_release(&sb);
        return -1;
    }
    b->user_variant[want] = strbuf_detach(&sb, NULL);
    b->user = b->user_variant[want];
    return 0;
}

static int build_order_trial(struct prompt_builder *b, const struct prompt_request *r,
                             struct built_prompt *out, struct strbuf *err);

size_t prompt_needle_answers(const struct question *q, const char *axes, const char ***out)
{
    size_t n, ns, i, k;
    const char *v = axes_find(axes, "needles", &n), *sp = axes_find(axes, "spacing", &ns);
    char buf[32];
    unsigned long want;
    *out = NULL;
    if (!v && !sp)
        return 0;
    k = q->gold_nr;
    if (v) {
        snprintf(buf, sizeof(buf), "%.*s", (int)(n < 31 ? n : 31), v);
        if (parse_ulong(buf, &want) < 0 || want < 1 || want > q->gold_nr)
            return 0;
        k = (size_t)want;
    }
    for (i = 0; i < k; i++)
        if (!q->gold[i].value || !*q->gold[i].value)
            return 0;
    *out = xcalloc(k, sizeof(**out));
    for (i = 0; i < k; i++)
        (*out)[i] = q->gold[i].value;
    return k;
}

/*
 * The needles and spacing axes into b->needles (0 without them) and
 * *spacing (a fraction of the distractor tokens), every needle at boundary
 * 0 until prompt_build() places them.
 */
static int select_needles(struct prompt_builder *b, const struct prompt_request *r, double *spacing,
                          struct strbuf *err)
{
    size_t n, nl = 0;
    const char *v = axes_find(r->axes, "needles", &n), *sp = axes_find(r->axes, "spacing", &nl);
    char buf[32];
    *spacing = 0;
    b->needles = 0;
    if (sp) {
        double pct;
        snprintf(buf, sizeof(buf), "%.*s", (int)(nl < 31 ? nl : 31), sp);
        if (parse_double_range(buf, 0, 100, &pct) < 0) {
            strbuf_addf(err, "spacing '%s' is not a percentage 0..100", buf);
            return -1;
        }
        *spacing = pct / 100.0;
        b->needles = r->q->gold_nr;
    }
    if (v) {
        unsigned long k;
        snprintf(buf, sizeof(buf), "%.*s", (int)(n < 31 ? n : 31), v);
        if (parse_ulong(buf, &k) < 0 || k < 1 || k > PROMPT_MAX_NEEDLES) {
            strbuf_addf(err, "needles '%s' is not a count 1..%d", buf, PROMPT_MAX_NEEDLES);
            return -1;
        }
        if (k > r->q->gold_nr && !trial_is_control(r->target_len, r->depth_bp)) {
            strbuf_addf(err, "question %s has %zu gold chunk%s; --needles %lu needs as many",
                        r->q->id, r->q->gold_nr, r->q->gold_nr == 1 ? "" : "s", k);
            return -1;
        }
        b->needles = (size_t)k;
    }
    if (b->needles > PROMPT_MAX_NEEDLES)
        b->needles = PROMPT_MAX_NEEDLES;
    memset(b->pos, 0, sizeof(b->pos));
    return 0;
}

/*
 * Needle j >= 1 at the boundary nearest d + j x spacing of the distractor
 * tokens (clamped to the end), never before needle j - 1; needle 0 at k.
 */
static void place_needles(struct prompt_builder *b, const struct seq *s, const size_t *order,
                          size_t k, double d, double spacing, long total)
{
    size_t j, i;
    b->pos[0] = k;
    for (j = 1; j < b->needles; j++) {
        double want = d + (double)j * spacing, best = 2.0;
        long cum = 0;
        size_t at = b->pos[j - 1];
        if (want > 1)
            want = 1;
        for (i = 0; i <= s->nr; i++) {
            double dist = total > 0 ? fabs((double)cum / (double)total - want) : 0;
            if (i >= b->pos[j - 1] && dist < best - 1e-12) {
                best = dist;
                at = i;
            }
            if (i < s->nr)
                cum += s->it[order[i]].cost;
        }
        b->pos[j] = at;
    }
}

/*
 * The cut length every depth of repeat r starts from (*len; SIZE_MAX: the
 * selection's): the exact fit of the repeat's order with the gold first,
 * made once per (selection, repeat). Most depths then count exactly at the
 * first count (moving the gold rarely changes the count), where starting
 * from the selection's cut took a second full count to fix the order's
 * merges. out is scratch. Returns 0, or -1 (err).
 */
static int repeat_cut(struct prompt_builder *b, struct seq *s, const size_t *order,
                      const struct prompt_request *r, struct built_prompt *out, size_t *len,
                      struct strbuf *err)
{
    long real;
    int i;
    *len = SIZE_MAX;
    if (s->cut < 0)
        return 0;
    for (i = 0; i < REPEAT_CUTS; i++)
        if (s->rcut[i].valid && s->rcut[i].repeat == r->repeat &&
            s->rcut[i].needles == b->needles) {
            *len = s->rcut[i].len;
            return 0;
        }
    render_request(b, s, order, 0, SIZE_MAX, out);
    real = count_request(b, out, r->chat, err);
    if (real < 0 ||
        fit_exact(b, s, order, 0, r->target_len - r->overhead, r->chat, out, &real, err) < 0)
        return -1;
    *len = out->cut_end - out->cut_start;
    i = s->rcut_next;
    s->rcut_next = (s->rcut_next + 1) % REPEAT_CUTS;
    s->rcut[i].repeat = r->repeat;
    s->rcut[i].needles = b->needles;
    s->rcut[i].len = *len;
    s->rcut[i].valid = 1;
    return 0;
}

int prompt_build(struct prompt_builder *b, const struct prompt_request *r, struct built_prompt *out,
                 struct strbuf *err)
{
    struct seq *s;
    size_t *order = NULL, i, k = 0, start = SIZE_MAX;
    long total = 0, before = 0, best_num = 0, real;
    double d = (double)r->depth_bp / DEPTH_BP_MAX, spacing = 0;
    int ret = -1;

    if (select_user(b, r, err) < 0 || select_needles(b, r, &spacing, err) < 0)
        return -1;
    if (trial_is_control(r->target_len, r->depth_bp))
        return build_control(b, r, out, err);
    if (axes_find(r->axes, "policy", &(size_t){0}))
        return build_order_trial(b, r, out, err);
    if (r->depth_bp < 0 || r->depth_bp > DEPTH_BP_MAX) {
        strbuf_addf(err, "depth %d is outside 0..%d basis points", r->depth_bp, DEPTH_BP_MAX);
        return -1;
    }
    if (r->target_len <= 0) {
        strbuf_addf(err, "target length %ld must be positive", r->target_len);
        return -1;
    }
    if (r->overhead < 0 || r->overhead >= r->target_len) {
        strbuf_addf(err, "target length %ld leaves no room after the chat template's %ld tokens",
                    r->target_len, r->overhead);
        return -1;
    }
    s = get_seq(b, r, out, err);
    if (!s)
        return -1;

    /* the order of this repeat (never depends on depth) */
    {
        size_t n_ord = s->order_nr ? s->order_nr : s->nr, j = 0;
        order = xmalloc(st_mult(n_ord ? n_ord : 1, sizeof(*order)));
        for (i = 0; i < n_ord; i++)
            order[i] = i;
        /* a coherent haystack keeps its source order; else the repeat's seeded order */
        if (!(s->mode & FILL_COHERENT))
            shuffle_sizes(order, n_ord,
                          mix_key(r->seed, r->q->id, r->target_len, r->repeat, "order"));
        for (i = 0; i < n_ord; i++) {
            size_t m = s->omap ? s->omap[order[i]] : order[i];
            if (m != SIZE_MAX)
                order[j++] = m;
        }
    }

    /* the boundary nearest the requested depth (ties: the earlier one) */
    for (i = 0; i < s->nr; i++)
        total += s->it[i].cost;
    if (total > 0) {
        double best = 2.0;
        long cum = 0;
        for (i = 0; i <= s->nr; i++) {
            double dist = (double)cum / (double)total - d;
            if (dist < 0)
                dist = -dist;
            if (dist < best - 1e-12) {
                best = dist;
                k = i;
                best_num = cum;
            }
            if (i < s->nr)
                cum += s->it[order[i]].cost;
        }
        before = best_num;
    }
    if (repeat_cut(b, s, order, r, out, &start, err) < 0)
        goto cleanup;
    if (b->needles)
        place_needles(b, s, order, k, d, spacing, total);
    render_request(b, s, order, k, start, out);
    real = count_request(b, out, r->chat, err);
    if (real < 0)
        goto cleanup;
    if (fit_exact(b, s, order, k, r->target_len - r->overhead, r->chat, out, &real, err) < 0)
        goto cleanup;
    out->overhead = r->overhead;
    out->realized_len = real + r->overhead;
    /*
     * From cached counts, scaled by the real distractor tokens (standalone
     * block counts are slightly biased): exact to a few tokens.
     */
    out->gold_offset = s->pre_docs;
    if (total > 0 && real > s->fixed)
        out->gold_offset +=
            (long)((double)before * (double)(real - s->fixed) / (double)total + 0.5);
    out->realized_depth = total > 0 ? (double)before / (double)total : 0.0;
    out->docs_nr = s->nr + (b->needles ? b->needles : r->q->gold_nr);
    out->gold_index = k;
    out->hard_negatives = s->hard;
    out->filler = s->filler;
    out->filler_dropped = s->filler_dropped;
    prompt_hash(r, out);
    ret = 0;
cleanup:
    free(order);
    return ret;
}

void prompt_render_fixed(struct prompt_builder *b, const struct question *q,
                         struct built_prompt *out)
{
    struct seq s;
    memset(&s, 0, sizeof(s));
    s.q = q;
    s.cut = -1;
    render_request(b, &s, NULL, 0, SIZE_MAX, out);
}

/* ---- the order experiment ---- */

/* The chunks kept for one (question, k, budget, grouping): the same for every policy. */
struct pack_memo {
    const struct question *q;
    const char *user; /* the [user] variant (question-at) the counts were made with */
    int k, group_by_doc;
    long budget, overhead;
    int chat;
    int *keep; /* per rank, of the top k */
};

/* Kept sets remembered per builder: the policies of one question are built one after another. */
#define PACK_MEMO_MAX 64

static void pack_memo_clear(struct prompt_builder *b)
{
    size_t i;
    for (i = 0; i < b->packs_nr; i++)
        free(b->packs[i].keep);
    free(b->packs);
    b->packs = NULL;
    b->packs_nr = b->packs_alloc = 0;
}

/*
 * Render the documents docs[0..n) (indexes into q->retrieved) in that order
 * and count the whole request exactly; the gold block is the first gold chunk.
 */
static int render_docs(struct prompt_builder *b, const struct order_request *r, const size_t *docs,
                       size_t n, struct built_prompt *out, struct strbuf *err)
{
    const struct prompt_template *t = b->tpl;
    const struct question *q = r->q;
    size_t i, docs_at = 0, gold_s = 0, gold_e = 0, gi = n;
    long before = 0, total = 0, real, pre;

    strbuf_reset(&b->docs);
    for (i = 0; i < n; i++) {
        const struct retrieved_chunk *rc = &q->retrieved[docs[i]];
        struct doc_vals d = {(long)i + 1, rc->c.title, rc->c.text, rc->c.id, rc->c.text_len, NULL};
        long cost = chunk_cost(b, &rc->c, err);
        if (cost < 0)
            return -1;
        if (i)
            strbuf_addstr(&b->docs, t->separator);
        if (rc->gold && gi == n) {
            gi = i;
            gold_s = b->docs.len;
        }
        render(&b->docs, t->document, "", NULL, NULL, &d);
        if (gi == i)
            gold_e = b->docs.len;
        if (!rc->gold) {
            total += cost;
            if (gi == n)
                before += cost;
        }
    }
    docs_at = render_messages(b, q, out);
    real = count_request(b, out, r->chat, err);
    if (real < 0)
        return -1;
    out->overhead = r->overhead;
    out->realized_len = real + r->overhead;
    out->docs_nr = n;
    out->gold_index = gi;
    out->cut_start = out->cut_end = 0;
    out->hard_negatives = out->filler = out->filler_dropped = 0;
    if (gi < n) {
        out->gold_start = docs_at + gold_s;
        out->gold_end = docs_at + gold_e;
        /* the tokens before the gold block, counted as the model sees them */
        pre = count_text(b, out->user.buf, out->gold_start, err);
        if (pre < 0)
            return -1;
        if (r->chat && out->system.len) {
            long sys = count_text(b, out->system.buf, out->system.len, err);
            if (sys < 0)
                return -1;
            pre += sys;
        } else if (!r->chat && out->system.len) {
            pre = count_text(b, out->text.buf, out->system.len + 2 + out->gold_start, err);
            if (pre < 0)
                return -1;
        }
        out->gold_offset = pre;
        out->realized_depth = total > 0 ? (double)before / (double)total : 0.0;
    } else {
        out->gold_start = out->gold_end = 0;
        out->gold_offset = -1;
        out->realized_depth = -1.0;
    }
    hash_request(r->chat, out);
    return 0;
}

/* The kept chunks (ranks, ascending) arranged by policy into docs (indexes into q->retrieved). */
static size_t arrange_kept(const struct order_request *r, const int *keep, size_t top, int policy,
                           size_t *docs)
{
    struct order_item *it = xcalloc(top ? top : 1, sizeof(*it));
    size_t *pos = xcalloc(top ? top : 1, sizeof(*pos));
    size_t *idx = xcalloc(top ? top : 1, sizeof(*idx));
    size_t i, n = 0;
    for (i = 0; i < top; i++) {
        if (!keep[i])
            continue;
        it[n].rank = (int)i + 1;
        it[n].source = r->q->retrieved[i].source;
        it[n].doc = r->q->retrieved[i].doc;
        idx[n++] = i;
    }
    ordering_arrange((enum ordering)policy, it, n, r->group_by_doc, pos);
    for (i = 0; i < n; i++)
        docs[i] = idx[pos[i]];
    free(it);
    free(pos);
    free(idx);
    return n;
}

/*
 * The chunks of (q, k, budget): the top k, packed into the budget by rank,
 * then checked exactly under every policy (the lowest-ranked kept chunk goes
 * while any policy's request is over).
 */
static const int *kept_chunks(struct prompt_builder *b, const struct order_request *r, size_t top,
                              struct built_prompt *tmp, struct strbuf *err)
{
    struct pack_memo *m = NULL;
    long *cost, fixed, room;
    size_t i, *docs;
    int o, over;

    for (i = 0; i < b->packs_nr; i++) {
        struct pack_memo *c = &b->packs[i];
        if (c->q == r->q && c->user == b->user && c->k == r->k && c->budget == r->budget &&
            c->group_by_doc == r->group_by_doc && c->overhead == r->overhead && c->chat == r->chat)
            return c->keep;
    }
    if (b->packs_nr == PACK_MEMO_MAX)
        pack_memo_clear(b);
    ALLOC_GROW(b->packs, b->packs_nr + 1, b->packs_alloc);
    m = &b->packs[b->packs_nr];
    memset(m, 0, sizeof(*m));
    m->keep = xcalloc(top ? top : 1, sizeof(*m->keep));
    cost = xcalloc(top ? top : 1, sizeof(*cost));
    docs = xcalloc(top ? top : 1, sizeof(*docs));
    for (i = 0; i < top; i++)
        m->keep[i] = 1;
    if (r->budget > 0) {
        if (render_docs(b, r, docs, 0, tmp, err) < 0)
            goto fail;
        fixed = tmp->realized_len;
        room = r->budget - fixed;
        for (i = 0; i < top; i++) {
            cost[i] = chunk_cost(b, &r->q->retrieved[i].c, err);
            if (cost[i] < 0)
                goto fail;
        }
        ordering_pack(cost, top, room, m->keep);
        do {
            size_t n = 0;
            over = 0;
            for (o = 0; o < ORDER__COUNT && !over; o++) {
                n = arrange_kept(r, m->keep, top, o, docs);
                if (!n)
                    break;
                if (render_docs(b, r, docs, n, tmp, err) < 0)
                    goto fail;
                over = tmp->realized_len > r->budget;
            }
            if (!n) {
                strbuf_addf(err,
                            "--budget %ld holds no chunk of question %s: the template and "
                            "question take %ld tokens, its best chunk %ld more",
                            r->budget, r->q->id, fixed, top ? cost[0] : 0);
                goto fail;
            }
            if (over)
                for (i = top; i-- > 0;)
                    if (m->keep[i]) {
                        m->keep[i] = 0;
                        break;
                    }
        } while (over);
    }
    m->q = r->q;
    m->user = b->user;
    m->k = r->k;
    m->budget = r->budget;
    m->group_by_doc = r->group_by_doc;
    m->overhead = r->overhead;
    m->chat = r->chat;
    b->packs_nr++;
    free(cost);
    free(docs);
    return m->keep;
fail:
    free(m->keep);
    free(cost);
    free(docs);
    return NULL;
}

int prompt_build_order(struct prompt_builder *b, const struct order_request *r,
                       struct built_prompt *out, struct strbuf *err)
{
    const struct question *q = r->q;
    size_t top, n, *docs;
    const int *keep;
    int rc;

    if (!q->retrieved_nr) {
        strbuf_addf(err, "question %s has no retrieved chunks", q->id);
        return -1;
    }
    if (r->k < 1 || r->policy < 0 || r->policy >= ORDER__COUNT) {
        strbuf_addf(err, "k %d or policy %d out of range", r->k, r->policy);
        return -1;
    }
    b->user = b->tpl->user; /* the template as is (question-slot axes are depth runs') */
    top = (size_t)r->k < q->retrieved_nr ? (size_t)r->k : q->retrieved_nr;
    keep = kept_chunks(b, r, top, out, err);
    if (!keep)
        return -1;
    docs = xcalloc(top, sizeof(*docs));
    n = arrange_kept(r, keep, top, r->policy, docs);
    rc = render_docs(b, r, docs, n, out, err);
    free(docs);
    return rc;
}

/* An order trial (its axes policy, k and group; its length the budget) as prompt_build_order(). */
static int build_order_trial(struct prompt_builder *b, const struct prompt_request *r,
                             struct built_prompt *out, struct strbuf *err)
{
    struct order_request o;
    struct strbuf v = STRBUF_INIT;
    enum ordering policy;
    long k = 0;
    int rc = -1;

    memset(&o, 0, sizeof(o));
    if (!axes_get(r->axes, "policy", &v) || ordering_parse(v.buf, &policy) < 0) {
        strbuf_addf(err, "unknown ordering policy \"%s\"", v.buf);
        goto out;
    }
    if (!axes_get(r->axes, "k", &v) || parse_long_range(v.buf, 1, 10000, &k)) {
        strbuf_addf(err, "the order trial's k \"%s\" is not a chunk count", v.buf);
        goto out;
    }
    o.q = r->q;
    o.policy = policy;
    o.k = (int)k;
    o.group_by_doc = axes_has(r->axes, "group", "doc");
    o.budget = r->target_len;
    o.overhead = r->overhead;
    o.chat = r->chat;
    rc = prompt_build_order(b, &o, out, err);
out:
    strbuf_release(&v);
    return rc;
}

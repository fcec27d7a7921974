/*
 * The position-swap prompt builder: picks a question's distractors (hard
 * negatives, then seeded haystack filler), fixes their order from (seed,
 * repeat), and moves only the gold block between depths. Owns the
 * per-tokenizer chunk-count and filler caches. Templates are
 * prompt_template.c, the exact token fit prompt_fit.c, the order experiment
 * prompt_order.c, the request's layout, question-slot and needle axes
 * prompt_axes.c (all behind prompt-int.h).
 */
#define _GNU_SOURCE
#include "prompt/prompt.h"
#include "prompt/prompt-int.h"

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
#include "prompt/layout.h"
#include "prompt/needle_size.h"
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
#include "base/hash.h"

#include "base/banned.h"

/* ---- rendering ---- */

/*
 * Render a section. For [user], documents (may be NULL) is inserted for
 * {documents}; *at (if non-NULL) receives the byte offset in out of
 * {documents} (in [user]) or of {text} (in [document]).
 */
void prompt_render(struct strbuf *out, const char *tpl, const char *question,
                   const struct strbuf *documents, size_t *at, const struct chunk_fields *d)
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

uint64_t prompt_mix_key(unsigned long seed, const char *qid, long len, long repeat, const char *tag)
{
    uint64_t h = FNV64_INIT_DIPMAP, s;
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

/* ---- the builder ---- */

/* A pointer's bits mixed (a bijection: equal hashes are equal pointers). */
static uint64_t ptr_hash(const void *p)
{
    uint64_t h = (uint64_t)(uintptr_t)p;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

static int count_entry_is(const void *chunk, size_t entry, const void *map)
{
    return ((const struct count_map *)map)->e[entry].chunk == chunk;
}

static long *count_map_get(struct count_map *m, const void *p)
{
    size_t i = hashmap_find(&m->map, ptr_hash(p), p, count_entry_is, m);
    return i == HASHMAP_NONE ? NULL : &m->e[i].count;
}

/* p must not be in m yet (prompt_chunk_cost looks first). */
static void count_map_put(struct count_map *m, const void *p, long v)
{
    ALLOC_GROW(m->e, m->nr + 1, m->alloc);
    m->e[m->nr].chunk = p;
    m->e[m->nr].count = v;
    if (hashmap_put(&m->map, ptr_hash(p), p, m->nr, count_entry_is, m) != HASHMAP_NONE)
        BUG("count_map_put: a chunk counted twice");
    m->nr++;
}

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
    strbuf_init(&b->turn_scratch, 0);
    b->turn_suffix = "";
    return b;
}

void prompt_seq_clear(struct seq *s)
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
    free(b->counts.e);
    hashmap_clear(&b->counts.map);
    for (i = 0; i < SEQ_CACHE; i++)
        prompt_seq_clear(&b->seqs[i]);
    for (i = 0; i < FILL_CACHE; i++)
        free(b->fills[i].idx);
    for (i = 0; i < QA__COUNT; i++)
        free(b->user_variant[i]);
    bm25_index_free(b->bm25);
    free(b->neutral);
    free(b->neutral_text);
    free(b->pad);
    free(b->pad_text);
    strbuf_release(&b->scratch);
    strbuf_release(&b->docs);
    prompt_pack_memo_clear(b);
    strbuf_release(&b->turn_scratch);
    free(b->unit_at);
    for (i = 0; i < b->sized_nr; i++) {
        free(b->sized[i]->q.gold[b->sized[i]->k].text);
        free(b->sized[i]->q.gold);
        free(b->sized[i]);
    }
    free(b->sized);
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
    strbuf_release(&p->turns);
    free(p->turn_end);
    built_prompt_init(p);
}

/*
 * A chunk "KEY": "VALUE" (a JSON member with a string value: the key-value
 * haystacks, whose pairs are too short to cut like prose) is cut anywhere
 * after its opening quote and closed again (prompt_cut_tail()): a cut in the key
 * ends the key and gives it an empty value, a cut in the value ends the
 * value. *min = bytes that always stay (the opening quote), *max = the text
 * without its closing quote (all of it: the whole pair), *value = the offset
 * of the value's first byte. Returns 1 for such a chunk, else 0 (*min = 0,
 * *max = the text's length).
 */
int prompt_member_span(const struct chunk *c, size_t *min, size_t *max, size_t *value)
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

/* What follows a chunk's text cut to len bytes: a cut member's closing (prompt_member_span()), or
 * NULL. */
const char *prompt_cut_tail(const struct chunk *c, size_t len)
{
    static const char close_key[] = "\": \"\""; /* the key's quote, ": ", an empty value */
    size_t min, max, value;
    if (len >= c->text_len || !prompt_member_span(c, &min, &max, &value))
        return NULL;
    if (len >= value)
        return close_key + 4; /* the value's closing quote */
    if (len + 4 > value)
        return close_key + (len + 4 - value); /* inside the ": " between them */
    return close_key;
}

long prompt_count_text(struct prompt_builder *b, const char *s, size_t n, struct strbuf *err)
{
    long c = tokenizer_count_err(b->tk, s, n, err);
    if (c < 0 && err && !err->len)
        strbuf_addstr(err, "tokenizer failed");
    return c;
}

/* Tokens of separator + the chunk's block, with text (text, len). */
long prompt_block_cost(struct prompt_builder *b, const struct chunk *c, const char *text,
                       size_t len, struct strbuf *err)
{
    struct chunk_fields d = {COUNT_INDEX, c->title, text, c->id, len, prompt_cut_tail(c, len)};
    strbuf_reset(&b->scratch);
    strbuf_addstr(&b->scratch, b->tpl->separator);
    prompt_render(&b->scratch, prompt_template_document(b->tpl, d.title), "", NULL, NULL, &d);
    return prompt_count_text(b, b->scratch.buf, b->scratch.len, err);
}

long prompt_chunk_cost(struct prompt_builder *b, const struct chunk *c, struct strbuf *err)
{
    long *v = count_map_get(&b->counts, c), n;
    if (v)
        return *v;
    n = prompt_block_cost(b, c, c->text, c->text_len, err);
    if (n >= 0)
        count_map_put(&b->counts, c, n);
    return n;
}

/* NEUTRAL_MAX chunks sharing one text of repeat copies of unit (neutral filler, padding). */
static struct chunk *make_filler(const char *unit, int repeat, const char *id, const char *title,
                                 char **text)
{
    struct strbuf t = STRBUF_INIT;
    struct chunk *c;
    size_t i;
    int k;
    for (k = 0; k < repeat; k++)
        strbuf_addstr(&t, unit);
    strbuf_rtrim(&t);
    *text = strbuf_detach(&t, NULL);
    c = xcalloc(NEUTRAL_MAX, sizeof(*c));
    for (i = 0; i < NEUTRAL_MAX; i++) {
        c[i].id = (char *)id;
        c[i].title = (char *)title;
        c[i].text = *text;
        c[i].text_len = strlen(*text);
    }
    return c;
}

/* The i-th filler chunk of f. */
const struct chunk *prompt_fill_at(const struct prompt_builder *b, const struct qfill *f, size_t i)
{
    if ((f->mode & FILL_KIND) == FILL_NONE)
        return f->mode & FILL_PAD ? &b->pad[f->idx[i]] : &b->neutral[f->idx[i]];
    return &b->hay->c[f->idx[i]];
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

struct qfill *prompt_get_fill(struct prompt_builder *b, const struct question *q,
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
        if ((mode & FILL_PAD) && !b->pad)
            b->pad = make_filler(PAD_TOKEN, PAD_REPEAT, "padding", "Padding", &b->pad_text);
        else if (!(mode & FILL_PAD) && !b->neutral)
            b->neutral =
                make_filler(NEUTRAL_TEXT, NEUTRAL_REPEAT, "neutral", "Filler", &b->neutral_text);
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
            uint64_t st = prompt_mix_key(seed, q->id, 0, 0, "run");
            size_t start = f->nr ? rng_below(&st, f->nr) : 0;
            qsort(f->idx, f->nr, sizeof(*f->idx), cmp_size);
            for (i = 0; i < f->nr; i++)
                run[i] = f->idx[(start + i) % f->nr];
            free(f->idx);
            f->idx = run;
        } else {
            uint64_t st = prompt_mix_key(seed, q->id, 0, 0, "filler");
            rng_shuffle_sizes(f->idx, f->nr, &st);
        }
    }
    return f;
}

/* The FILL_* mode of a request from its arm, distractors and haystack-order axes. */
int prompt_request_fill_mode(const struct prompt_request *r, unsigned *mode, struct strbuf *err)
{
    size_t n;
    const char *v = axes_find(r->axes, "arm", &n);
    *mode = FILL_DEFAULT;
#define IS(lit) (n == sizeof(lit) - 1 && !memcmp(v, lit, n))
    if (v && IS("padding")) {
        *mode = FILL_NONE | FILL_PAD; /* no distractor at all: the other filler axes do not apply */
        return 0;
    }
    if (v && !IS("haystack") && !IS("adjacent")) {
        strbuf_addf(err, "arm '%.*s' is not haystack, padding or adjacent", (int)n, v);
        return -1;
    }
    v = axes_find(r->axes, "distractors", &n);
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
size_t prompt_render_messages(struct prompt_builder *b, const struct question *q,
                              struct built_prompt *out)
{
    const struct prompt_template *t = b->tpl;
    size_t docs_at = 0;
    strbuf_reset(&out->system);
    strbuf_reset(&out->user);
    strbuf_reset(&out->text);
    prompt_render(&out->system, t->system, q->question, NULL, NULL, NULL);
    if (b->layout != PROMPT_LAYOUT_DOCUMENTS) {
        /* the documents are earlier turns: {documents} empty, its blank paragraph dropped */
        prompt_render(&out->user, b->user, q->question, NULL, &docs_at, NULL);
        if (docs_at >= 2 && out->user.len >= docs_at + 2 &&
            !memcmp(out->user.buf + docs_at - 2, "\n\n\n\n", 4)) {
            /* "A\n\n" "" "\n\nB" -> "A\n\nB" */
            memmove(out->user.buf + docs_at, out->user.buf + docs_at + 2,
                    out->user.len - docs_at - 2);
            strbuf_setlen(&out->user, out->user.len - 2);
        }
    } else {
        prompt_render(&out->user, b->user, q->question, &b->docs, &docs_at, NULL);
    }
    if (out->system.len) {
        strbuf_add(&out->text, out->system.buf, out->system.len);
        strbuf_addstr(&out->text, "\n\n");
    }
    strbuf_add(&out->text, out->user.buf, out->user.len);
    return docs_at;
}

/*
 * Before each document block of b->docs: the separator (not before the first), and the
 * block's offset as the start of the unit (layouts) when the unit opens with it.
 */
static void start_block(struct prompt_builder *b, const char *separator, int *first, int *unit_open)
{
    if (!*first)
        strbuf_addstr(&b->docs, separator);
    *first = 0;
    if (*unit_open) {
        ALLOC_GROW(b->unit_at, b->units + 1, b->unit_alloc);
        b->unit_at[b->units++] = b->docs.len;
        *unit_open = 0;
    }
}

/*
 * Render the whole request for a distractor order (order[] indexes s->it)
 * with the gold block at boundary k, the cut item (if any) keeping cut_len
 * bytes of its text (SIZE_MAX: the selection's length). Fills out's strings,
 * byte offsets and the cut item's text range.
 */
void prompt_render_request(struct prompt_builder *b, const struct seq *s, const size_t *order,
                           size_t k, size_t cut_len, struct built_prompt *out)
{
    const struct prompt_template *t = b->tpl;
    const struct question *q = s->key.q;
    size_t i, g, docs_at = 0, gold_s = 0, gold_e = 0, cut_s = 0, cut_e = 0;
    long index = 1;
    int first = 1, have_cut = 0;

    strbuf_reset(&b->docs);
    b->units = 0;
    for (i = 0; i <= s->nr; i++) {
        size_t ng = b->needles ? b->needles : q->gold_nr;
        /* unit i (layouts) starts with the first block rendered now */
        int unit_open = i < s->nr || !s->nr;
        for (g = 0; g < ng; g++) {
            struct chunk_fields d = {index,         q->gold[g].title,    q->gold[g].text,
                                     q->gold[g].id, q->gold[g].text_len, NULL};
            if ((b->needles ? b->pos[g] : k) != i)
                continue;
            if (g < b->absent_nr) { /* a needle-absent trial: the distractor in the gold's place */
                const struct chunk *c = b->absent_sub[g];
                d = (struct chunk_fields){
                    index, c->title,         c->text,
                    c->id, b->absent_len[g], prompt_cut_tail(c, b->absent_len[g])};
            }
            index++;
            start_block(b, t->separator, &first, &unit_open);
            if (g == b->target)
                gold_s = b->docs.len;
            prompt_render(&b->docs, prompt_template_document(t, d.title), "", NULL, NULL, &d);
            /* the gold block: all chunks (no axis), or the first needle (ordinal: the target) */
            if (!b->needles || g == b->target)
                gold_e = b->docs.len;
        }
        if (i < s->nr) {
            size_t j = order ? order[i] : i, at = 0;
            const struct seq_item *it = &s->it[j];
            int is_cut = (long)j == s->cut;
            size_t len = is_cut && cut_len != SIZE_MAX ? cut_len : it->len;
            struct chunk_fields d = {index++,   it->c->title, it->c->text,
                                     it->c->id, len,          prompt_cut_tail(it->c, len)};
            start_block(b, t->separator, &first, &unit_open);
            prompt_render(&b->docs, prompt_template_document(t, d.title), "", NULL, &at, &d);
            if (is_cut) {
                have_cut = 1;
                cut_s = at;
                cut_e = at + len;
            }
        }
    }
    docs_at = prompt_render_messages(b, q, out);
    out->layout = b->layout;
    if (b->layout != PROMPT_LAYOUT_DOCUMENTS) {
        /* the same documents block as turns; the offsets move into out->turns */
        size_t *offs[4] = {&gold_s, &gold_e, &cut_s, &cut_e};
        prompt_layout_split(out, b->layout, b->docs.buf, b->docs.len, b->unit_at, b->units,
                            strlen(t->separator), offs, have_cut ? 4 : 2);
        out->gold_turn = prompt_layout_turn_at(out, gold_s);
        docs_at = 0;
    }
    out->gold_start = docs_at + gold_s;
    out->gold_end = docs_at + gold_e;
    out->cut_start = have_cut ? docs_at + cut_s : 0;
    out->cut_end = have_cut ? docs_at + cut_e : 0;
}

/* Exact token count of the request's content as sent (the template overhead not included). */
long prompt_count_request(struct prompt_builder *b, const struct built_prompt *p, int chat,
                          struct strbuf *err)
{
    long a = 0, c;
    if (!chat)
        return prompt_count_text(b, p->text.buf, p->text.len, err);
    if (p->system.len) {
        a = prompt_count_text(b, p->system.buf, p->system.len, err);
        if (a < 0)
            return -1;
    }
    if (p->layout != PROMPT_LAYOUT_DOCUMENTS) {
        /*
         * every turn counted apart, as the server's template tokenizes them (with the text
         * after it that its end merges with, less that text alone), plus its pairs
         */
        size_t sl = b->turn_suffix ? strlen(b->turn_suffix) : 0;
        long suffix = sl ? prompt_count_text(b, b->turn_suffix, sl, err) : 0;
        if (suffix < 0)
            return -1;
        for (size_t t = 0; t < p->turns_nr; t++) {
            size_t from = t ? p->turn_end[t - 1] : 0;
            strbuf_reset(&b->turn_scratch);
            strbuf_add(&b->turn_scratch, p->turns.buf + from, p->turn_end[t] - from);
            strbuf_add(&b->turn_scratch, b->turn_suffix, sl);
            c = prompt_count_text(b, b->turn_scratch.buf, b->turn_scratch.len, err);
            if (c < 0)
                return -1;
            a += c - suffix;
        }
        a += (long)prompt_layout_pairs(p->layout, p->turns_nr) * b->turn_overhead;
    }
    c = prompt_count_text(b, p->user.buf, p->user.len, err);
    return c < 0 ? -1 : a + c;
}

void prompt_hash_request(int chat, struct built_prompt *out)
{
    struct sha256_ctx c;
    sha256_init(&c);
    if (chat && out->layout != PROMPT_LAYOUT_DOCUMENTS) {
        /* the bytes a run stores for the prompt (runner.c): its messages array */
        struct strbuf m = STRBUF_INIT;
        prompt_messages_json(out, NULL, &m);
        sha256_update(&c, m.buf, m.len);
        strbuf_release(&m);
    } else if (chat) {
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
    prompt_hash_request(r->chat, out);
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
            struct chunk_fields d = {index++,       q->gold[g].title,    q->gold[g].text,
                                     q->gold[g].id, q->gold[g].text_len, NULL};
            if (g)
                strbuf_addstr(&b->docs, t->separator);
            prompt_render(&b->docs, prompt_template_document(t, d.title), "", NULL, NULL, &d);
        }
    docs_at = prompt_render_messages(b, q, out);
    out->gold_start = docs_at;
    out->gold_end = docs_at + b->docs.len;
    out->cut_start = out->cut_end = 0;
    real = prompt_count_request(b, out, r->chat, err);
    if (real < 0)
        return -1;
    pre = prompt_count_text(b, out->user.buf, docs_at, err);
    if (pre < 0)
        return -1;
    out->overhead = r->overhead;
    out->realized_len = real + r->overhead;
    out->gold_offset = r->depth_bp == DEPTH_BP_ORACLE ? pre : 0;
    out->realized_depth = 0.0;
    out->docs_nr = r->depth_bp == DEPTH_BP_ORACLE ? q->gold_nr : 0;
    out->gold_index = 0;
    out->hard_negatives = out->filler = out->filler_dropped = 0;
    out->gold_bm25_rank = out->bm25_docs = 0;
    prompt_hash(r, out);
    return 0;
}

/* Chunk c as a document the prompt shows: its title only when the template renders it. */
static void bm25_doc_of(const struct prompt_builder *b, const struct chunk *c, size_t len,
                        struct bm25_doc *d)
{
    d->title =
        c->title && strstr(prompt_template_document(b->tpl, c->title), "{title}") ? c->title : NULL;
    d->text = c->text;
    d->len = len;
}

/*
 * The gold's BM25 rank among the selection's documents (prompt.h: gold_bm25_rank): its first
 * gold chunk and every distractor the prompt holds whole, once per selection (every depth and
 * repeat of it has the same documents).
 */
static void seq_bm25_rank(const struct prompt_builder *b, struct seq *s)
{
    struct bm25_doc *docs;
    size_t i, n = 0;
    if (s->bm25_docs || !s->key.q->gold_nr)
        return;
    docs = xcalloc(s->nr + 1, sizeof(*docs));
    for (i = 0; i < s->nr; i++)
        if ((long)i != s->cut && s->it[i].len == s->it[i].c->text_len)
            bm25_doc_of(b, s->it[i].c, s->it[i].len, &docs[n++]);
    bm25_doc_of(b, &s->key.q->gold[0], s->key.q->gold[0].text_len, &docs[n++]);
    s->bm25_rank = bm25_gold_rank(docs, n, n - 1, s->key.q->question);
    s->bm25_docs = n;
    free(docs);
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
    prompt_render_request(b, s, order, 0, SIZE_MAX, out);
    real = prompt_count_request(b, out, r->chat, err);
    if (real < 0 ||
        prompt_fit_exact(b, s, order, 0, r->target_len - r->overhead, r->chat, out, &real, err) < 0)
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

/* The order of this repeat's items (never depends on depth); the caller frees it. */
static size_t *repeat_order(const struct seq *s, const struct prompt_request *r)
{
    size_t n_ord = s->order_nr ? s->order_nr : s->nr, i, j = 0;
    size_t *order = xmalloc(st_mult(n_ord ? n_ord : 1, sizeof(*order)));
    for (i = 0; i < n_ord; i++)
        order[i] = i;
    /* a coherent haystack keeps its source order; else the repeat's seeded order */
    if (!(s->key.mode & FILL_COHERENT)) {
        uint64_t st = prompt_mix_key(r->seed, r->q->id, r->target_len, r->repeat, "order");
        rng_shuffle_sizes(order, n_ord, &st);
    }
    for (i = 0; i < n_ord; i++) {
        size_t m = s->omap ? s->omap[order[i]] : order[i];
        if (m != SIZE_MAX)
            order[j++] = m;
    }
    return order;
}

/*
 * The gold's depth as a fraction: the trial's, or with arm=adjacent the end of the document
 * block next to the question (its start with --question-at start), the same distractors and
 * order as the haystack arm (docs/effects.md "Length, distraction and position").
 */
static double arm_depth(const struct prompt_request *r)
{
    if (axes_has(r->axes, "arm", "adjacent"))
        return axes_has(r->axes, "question-at", "start") ? 0.0 : 1.0;
    return (double)r->depth_bp / DEPTH_BP_MAX;
}

/* q with its gold chunk 0 at tokens tokens (the needle-tokens axis), made once per builder. */
static const struct question *sized_question(struct prompt_builder *b, const struct question *q,
                                             long tokens, struct strbuf *err)
{
    struct strbuf text = STRBUF_INIT;
    struct sized_question *e;
    size_t i, k = 0;
    for (i = b->sized_nr; i > 0; i--)
        if (b->sized[i - 1]->src == q && b->sized[i - 1]->tokens == tokens)
            return &b->sized[i - 1]->q;
    if (needle_size_text(b->tk, b->hay, q, tokens, &text, &k, err) < 0) {
        strbuf_release(&text);
        return NULL;
    }
    e = xcalloc(1, sizeof(*e));
    e->src = q;
    e->tokens = tokens;
    e->q = *q;
    e->q.gold = xcalloc(q->gold_nr, sizeof(*e->q.gold));
    memcpy(e->q.gold, q->gold, q->gold_nr * sizeof(*q->gold));
    e->k = k;
    e->q.gold[k].text_len = text.len;
    e->q.gold[k].text = strbuf_detach(&text, NULL);
    e->q.gold[k].norm = NULL;
    e->q.gold[k].norm_len = 0;
    ALLOC_GROW(b->sized, b->sized_nr + 1, b->sized_alloc);
    b->sized[b->sized_nr++] = e;
    return &e->q;
}

/* prompt_build() of a request whose gold is sized already. */
static int build_sized(struct prompt_builder *b, const struct prompt_request *r,
                       struct built_prompt *out, struct strbuf *err)
{
    struct seq *s;
    size_t *order = NULL, i, k = 0, start = SIZE_MAX;
    long total = 0, before = 0, best_num = 0, real;
    double d = arm_depth(r), spacing = 0;
    int ret = -1;

    b->absent_nr = 0;
    if (prompt_select_user(b, r, err) < 0 || prompt_select_needles(b, r, &spacing, err) < 0 ||
        prompt_select_layout(b, r, err) < 0)
        return -1;
    if (trial_is_control(r->target_len, r->depth_bp) ||
        axes_find(r->axes, "policy", &(size_t){0})) {
        /* controls and order trials: the template as written (docs/layouts-and-imports.md
         * "Conversation and tool-output layouts") */
        b->layout = PROMPT_LAYOUT_DOCUMENTS;
        b->turn_overhead = 0;
        b->turn_suffix = "";
        if (trial_is_control(r->target_len, r->depth_bp))
            return build_control(b, r, out, err);
        return prompt_build_order_trial(b, r, out, err);
    }
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
    s = prompt_get_seq(b, r, out, err);
    if (!s)
        return -1;

    order = repeat_order(s, r);

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
    /* the cut starts from the present prompt's (repeat_cut()), so present prompts never depend
     * on absent ones built before them */
    if (trial_is_absent(r->axes) && prompt_absent_subs(b, s, r, err) < 0)
        goto cleanup;
    if (b->ordinal)
        prompt_place_ordinal(b, r, s->nr, k);
    else if (b->needles)
        prompt_place_needles(b, s, order, k, d, spacing, total);
    prompt_render_request(b, s, order, k, start, out);
    real = prompt_count_request(b, out, r->chat, err);
    if (real < 0)
        goto cleanup;
    if (prompt_fit_exact(b, s, order, k, r->target_len - r->overhead, r->chat, out, &real, err) < 0)
        goto cleanup;
    if (b->layout == PROMPT_LAYOUT_CHAT && out->turns_nr < 2) {
        strbuf_addf(err,
                    "question %s: length %ld holds %zu haystack chunk%s; the chat layout needs "
                    "at least 2 (a user and an assistant turn)",
                    r->q->id, r->target_len, s->nr, s->nr == 1 ? "" : "s");
        goto cleanup;
    }
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
    if (b->layout != PROMPT_LAYOUT_DOCUMENTS)
        /* the turns before the gold's cost their pairs' share of the server's tokens */
        out->gold_offset += (long)((double)out->gold_turn * (double)b->turn_overhead /
                                       (double)prompt_layouts[b->layout].turns_per_pair +
                                   0.5);
    out->realized_depth = total > 0 ? (double)before / (double)total : 0.0;
    out->docs_nr = s->nr + (b->needles ? b->needles : r->q->gold_nr);
    out->gold_index = k;
    out->hard_negatives = s->hard;
    out->filler = s->filler;
    out->filler_dropped = s->filler_dropped;
    seq_bm25_rank(b, s);
    out->gold_bm25_rank = s->bm25_rank;
    out->bm25_docs = s->bm25_docs;
    prompt_hash(r, out);
    ret = 0;
cleanup:
    free(order);
    return ret;
}

int prompt_build(struct prompt_builder *b, const struct prompt_request *r, struct built_prompt *out,
                 struct strbuf *err)
{
    struct prompt_request sized = *r;
    long tokens;
    int has = needle_tokens_of(r->axes, &tokens, err);
    if (has < 0)
        return -1;
    if (has) {
        sized.q = sized_question(b, r->q, tokens, err);
        if (!sized.q)
            return -1;
        r = &sized;
    }
    return build_sized(b, r, out, err);
}

void prompt_render_fixed(struct prompt_builder *b, const struct question *q,
                         struct built_prompt *out)
{
    struct seq s;
    memset(&s, 0, sizeof(s));
    s.key.q = q;
    s.cut = -1;
    prompt_render_request(b, &s, NULL, 0, SIZE_MAX, out);
}

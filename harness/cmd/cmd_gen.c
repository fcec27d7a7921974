/*
 * `dipmap gen needle|assoc|kv|hops`: seeded synthetic golden sets. Needles are unique
 * facts about invented entities with hard negatives of the same sentence
 * pattern (other entities, other values); assoc needles name a landmark the
 * question names only through its country (an association table); kv sets are
 * UUID key-value pairs with other pairs as hard negatives and an optional
 * haystack of more pairs; hops sets are two-hop chains (a person's locker
 * room, then that room's door code); ordinal sets are MRCR-style: several notes of one
 * template about one entity with different values, the question naming which note counts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "prompt/dataset.h"
#include "base/datadir.h"
#include "base/opt.h"
#include "base/rng.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/usage.h"
#include "base/xalloc.h"

#include "base/banned.h"

static const char *const gen_usage[] = {
    "dipmap gen needle [--n N] [--seed N] [--negatives K] [--out FILE]",
    "dipmap gen assoc [--n N] [--seed N] [--negatives K] [--associations FILE] [--out FILE]",
    "dipmap gen hops [--n N] [--seed N] [--negatives K] [--out FILE]",
    "dipmap gen ordinal [--n N] [--seed N] [--needles N] [--max-occurrence K] [--out FILE]",
    "dipmap gen kv [--n N] [--seed N] [--negatives K] [--out FILE] [--haystack-out FILE "
    "[--haystack-size M]]",
    NULL,
};

/* ---- needles ---- */

enum value_kind { V_NUMBER, V_CODEWORD };

/* Sentence patterns: the fact is "<pre> E <mid> V <post>". */
static const struct {
    const char *pre, *mid, *post, *q_pre, *q_post;
    enum value_kind kind;
} patterns[] = {
    {"The vault code of the ", " observatory is ", ".", "What is the vault code of the ",
     " observatory?", V_NUMBER},
    {"The registration number of the ship ", " is ", ".",
     "What is the registration number of the ship ", "?", V_NUMBER},
    {"The archive of ", " keeps its oldest map in drawer ", ".",
     "In which drawer does the archive of ", " keep its oldest map?", V_NUMBER},
    {"The password of the ", " greenhouse is ", ".", "What is the password of the ", " greenhouse?",
     V_CODEWORD},
    {"The lighthouse keeper of ", " signs every logbook entry with the word ", ".",
     "With which word does the lighthouse keeper of ", " sign every logbook entry?", V_CODEWORD},
    {"The ferry to ", " leaves from pier ", " every morning.", "From which pier does the ferry to ",
     " leave every morning?", V_NUMBER},
    {"The secret ingredient of the bakery in ", " is ", ".",
     "What is the secret ingredient of the bakery in ", "?", V_CODEWORD},
};
#define NPATTERNS (sizeof(patterns) / sizeof(patterns[0]))

static const char *const syl1[] = {"Bar", "Cal", "Dor", "Fen", "Gal", "Hes",  "Ith",  "Kor",
                                   "Lum", "Mar", "Nor", "Ost", "Pel", "Quin", "Ros",  "Sal",
                                   "Tor", "Ul",  "Vel", "Wen", "Yar", "Zan",  "Brim", "Thal"};
static const char *const syl2[] = {"a", "e", "i", "o", "u", "ae", "io", "en", "ar", "ul"};
static const char *const syl3[] = {"brook", "dale",  "ford",  "gate",   "holm", "mere",
                                   "moor",  "ridge", "stead", "thorpe", "wick", "wyn",
                                   "fell",  "haven", "crest", "mouth"};
static const char *const adjs[] = {"amber",   "cobalt", "copper", "crimson", "dusky",
                                   "emerald", "frosty", "gilded", "hollow",  "ivory",
                                   "jagged",  "lunar",  "marble", "nimble",  "opal",
                                   "quiet",   "russet", "silver", "tawny",   "velvet"};
static const char *const nouns[] = {"anchor",  "badger",  "cactus",  "dragonfly", "falcon",
                                    "glacier", "harbor",  "iris",    "juniper",   "kettle",
                                    "lantern", "meadow",  "nutmeg",  "orchid",    "pebble",
                                    "quill",   "saffron", "thistle", "walrus",    "zephyr"};
#define N(a) (sizeof(a) / sizeof((a)[0]))

static void make_entity(struct strbuf *sb, uint64_t *rng)
{
    strbuf_reset(sb);
    strbuf_addstr(sb, syl1[rng_below(rng, N(syl1))]);
    strbuf_addstr(sb, syl2[rng_below(rng, N(syl2))]);
    strbuf_addstr(sb, syl3[rng_below(rng, N(syl3))]);
}

static void make_value(struct strbuf *sb, enum value_kind k, uint64_t *rng)
{
    strbuf_reset(sb);
    if (k == V_NUMBER)
        strbuf_addf(sb, "%lu", 1000000UL + (unsigned long)rng_below(rng, 9000000));
    else
        strbuf_addf(sb, "%s-%s", adjs[rng_below(rng, N(adjs))], nouns[rng_below(rng, N(nouns))]);
}

/* A hard negative: the chunk takes id's and text's buffers (emptying them); value is borrowed. */
static void set_negative(struct chunk *c, struct strbuf *id, struct strbuf *text, const char *value)
{
    c->id = strbuf_detach(id, NULL);
    c->title = "";
    c->text_len = text->len;
    c->text = strbuf_detach(text, NULL);
    c->value = (char *)value;
}

static void fact(struct strbuf *sb, size_t p, const char *e, const char *v)
{
    strbuf_reset(sb);
    strbuf_addf(sb, "%s%s%s%s%s", patterns[p].pre, e, patterns[p].mid, v, patterns[p].post);
}

/* Draw a string not yet in used (retrying), push it there and return it. */
static const char *draw_unique(struct strvec *used, struct strbuf *sb, uint64_t *rng, int entity,
                               enum value_kind k)
{
    int tries;
    for (tries = 0; tries < 10000; tries++) {
        if (entity)
            make_entity(sb, rng);
        else
            make_value(sb, k, rng);
        if (strvec_find(used, sb->buf) < 0)
            return strvec_push(used, sb->buf);
    }
    return NULL;
}

/*
 * q as one JSONL line to w (line: scratch), after the loader's answer rule: a generated gold
 * that does not state its answer is a bug of the generator, never a file run refuses.
 */
static int write_checked(struct dataset_writer *w, struct strbuf *line, const struct question *q)
{
    struct strbuf why = STRBUF_INIT;
    if (!question_answer_in_gold(q, &why))
        BUG("gen: question %s: %s", q->id, why.buf);
    strbuf_release(&why);
    strbuf_reset(line);
    question_to_jsonl(line, q);
    return dataset_writer_write(w, line->buf, line->len);
}

/* q with its one gold chunk and nneg negatives, written to w as one JSONL line (line: scratch). */
static int write_question(struct dataset_writer *w, struct strbuf *line, struct question *q,
                          struct chunk *gold, struct chunk *neg, size_t nneg)
{
    q->gold = gold;
    q->gold_nr = 1;
    q->distractors = neg;
    q->distractors_nr = nneg;
    return write_checked(w, line, q);
}

/* The scratch text of one generator: sb for draw_unique, line for the JSONL, the question,
 * the gold's text and the question id. */
struct gen_text {
    struct strbuf sb, line, qtext, gtext, id;
};
#define GEN_TEXT_INIT                                                                              \
    {                                                                                              \
        STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT                            \
    }

static void gen_text_release(struct gen_text *b)
{
    strbuf_release(&b->sb);
    strbuf_release(&b->line);
    strbuf_release(&b->qtext);
    strbuf_release(&b->gtext);
    strbuf_release(&b->id);
}

/* Distinct invented entities gen needle can draw: each needle takes negatives + 1 of them. */
static size_t needle_entities(void)
{
    return N(syl1) * N(syl2) * N(syl3) / 2;
}

static int gen_needle(struct dataset_writer *w, long n, long negatives, uint64_t rng)
{
    struct strvec entities = STRVEC_INIT, values = STRVEC_INIT;
    struct gen_text b = GEN_TEXT_INIT;
    long i, k;
    int rc = 0;

    for (i = 0; i < n && !rc; i++) {
        size_t p = (size_t)i % NPATTERNS;
        struct question q;
        struct chunk g, *neg = xcalloc((size_t)negatives + 1, sizeof(*neg));
        const char *e = draw_unique(&entities, &b.sb, &rng, 1, V_NUMBER);
        const char *v = draw_unique(&values, &b.sb, &rng, 0, patterns[p].kind);
        if (!e || !v) {
            free(neg);
            rc = error("gen: ran out of distinct entities or values");
            break;
        }
        memset(&q, 0, sizeof(q));
        memset(&g, 0, sizeof(g));
        strvec_init(&q.answers);
        strvec_push(&q.answers, v);
        strbuf_reset(&b.id);
        strbuf_addf(&b.id, "needle-%04ld", i + 1);
        strbuf_reset(&b.qtext);
        strbuf_addf(&b.qtext, "%s%s%s", patterns[p].q_pre, e, patterns[p].q_post);
        fact(&b.gtext, p, e, v);
        g.id = b.id.buf;
        g.title = "";
        g.text = b.gtext.buf;
        g.text_len = b.gtext.len;
        for (k = 0; k < negatives; k++) {
            const char *e2 = draw_unique(&entities, &b.sb, &rng, 1, V_NUMBER);
            const char *v2 = draw_unique(&values, &b.sb, &rng, 0, patterns[p].kind);
            struct strbuf t = STRBUF_INIT, nid = STRBUF_INIT;
            if (!e2 || !v2) {
                rc = error("gen: ran out of distinct entities or values");
                break;
            }
            fact(&t, p, e2, v2);
            strbuf_addf(&nid, "needle-%04ld-n%ld", i + 1, k + 1);
            set_negative(&neg[k], &nid, &t, v2);
        }
        q.id = b.id.buf;
        q.question = b.qtext.buf;
        if (!rc)
            rc = write_question(w, &b.line, &q, &g, neg, (size_t)k);
        for (k = 0; k < negatives; k++) {
            free(neg[k].id);
            free(neg[k].text);
        }
        free(neg);
        strvec_clear(&q.answers);
    }
    strvec_clear(&entities);
    strvec_clear(&values);
    gen_text_release(&b);
    return rc;
}

/* ---- associations (low lexical overlap, NoLiMa-style) ---- */

/* One row of the association table: a landmark and the country it is in. */
struct assoc {
    char *landmark, *country;
};

/*
 * The association table (datasets/associations.tsv): "landmark<TAB>country<TAB>source" per line,
 * '#' lines and blank lines skipped. Each country at most once (hard negatives must name other
 * countries). Returns the row count (>= 2), or -1 with a message naming file, line and field.
 */
static long assoc_load(const char *path, struct assoc **out)
{
    struct dataset_lines *r = dataset_lines_open(path);
    struct assoc *a = NULL;
    size_t n = 0, alloc = 0, i;
    char *line;
    size_t len;
    long lineno;
    int rc;

    *out = NULL;
    if (!r)
        return -1;
    while ((rc = dataset_lines_next(r, &line, &len, &lineno)) > 0) {
        struct strvec f = STRVEC_INIT;
        if (!len || line[0] == '#')
            continue;
        strvec_split(&f, line, '\t');
        if (f.nr != 3 || !*f.v[0] || !*f.v[1] || !*f.v[2]) {
            rc = error("%s:%ld: %s: expected landmark<TAB>country<TAB>source, all non-empty", path,
                       lineno,
                       f.nr < 1 || !*f.v[0]   ? "\"landmark\""
                       : f.nr < 2 || !*f.v[1] ? "\"country\""
                                              : "\"source\"");
            strvec_clear(&f);
            break;
        }
        for (i = 0; i < n; i++)
            if (!strcmp(a[i].country, f.v[1]))
                break;
        if (i < n) {
            rc = error("%s:%ld: \"country\": '%s' is already the country of '%s' (one row per "
                       "country: hard negatives name other countries)",
                       path, lineno, f.v[1], a[i].landmark);
            strvec_clear(&f);
            break;
        }
        ALLOC_GROW(a, n + 1, alloc);
        a[n].landmark = xstrdup(f.v[0]);
        a[n].country = xstrdup(f.v[1]);
        n++;
        strvec_clear(&f);
    }
    dataset_lines_close(r);
    if (rc >= 0 && n < 2)
        rc = error("%s: needs at least 2 associations, has %zu", path, n);
    if (rc < 0) {
        for (i = 0; i < n; i++) {
            free(a[i].landmark);
            free(a[i].country);
        }
        free(a);
        return -1;
    }
    *out = a;
    return (long)n;
}

/*
 * gen assoc: needle i is "<Name> lives next to <landmark>." for row i % rows; two questions ask
 * for it: "assoc-NNNN" by association ("Which character has been to <country>?", no content
 * word in common) and "assoc-NNNN-literal" by the needle's own words ("Which character lives
 * next to <landmark>?"); both have the same hard negatives: other names next to the landmarks of
 * other rows (seeded), so the two forms compare paired, the report's overlap terciles apart.
 */
static int gen_assoc(struct dataset_writer *w, const struct assoc *a, size_t rows, long n,
                     long negatives, uint64_t rng)
{
    struct strvec names = STRVEC_INIT;
    struct gen_text b = GEN_TEXT_INIT;
    size_t *order = xcalloc(rows, sizeof(*order));
    long i, k;
    int rc = 0;

    for (i = 0; i < n && !rc; i++) {
        size_t row = (size_t)i % rows, j, m = 0;
        struct question q;
        struct chunk g, *neg = xcalloc((size_t)negatives + 1, sizeof(*neg));
        const char *name = draw_unique(&names, &b.sb, &rng, 1, V_NUMBER);
        int form;
        if (!name) {
            free(neg);
            rc = error("gen: ran out of distinct names");
            break;
        }
        /* the other rows in a seeded order: the first `negatives` are this needle's negatives */
        for (j = 0; j < rows; j++)
            if (j != row)
                order[m++] = j;
        rng_shuffle_sizes(order, m, &rng);
        memset(&g, 0, sizeof(g));
        strbuf_reset(&b.gtext);
        strbuf_addf(&b.gtext, "%s lives next to %s.", name, a[row].landmark);
        g.title = "";
        g.text = b.gtext.buf;
        g.text_len = b.gtext.len;
        for (k = 0; k < negatives && (size_t)k < m; k++) {
            const char *n2 = draw_unique(&names, &b.sb, &rng, 1, V_NUMBER);
            struct strbuf t = STRBUF_INIT, nid = STRBUF_INIT;
            if (!n2) {
                rc = error("gen: ran out of distinct names");
                break;
            }
            strbuf_addf(&t, "%s lives next to %s.", n2, a[order[k]].landmark);
            strbuf_addf(&nid, "assoc-%04ld-n%ld", i + 1, k + 1);
            set_negative(&neg[k], &nid, &t, n2);
        }
        for (form = 0; form < 2 && !rc; form++) {
            memset(&q, 0, sizeof(q));
            strvec_init(&q.answers);
            strvec_push(&q.answers, name);
            strbuf_reset(&b.id);
            strbuf_addf(&b.id, form ? "assoc-%04ld-literal" : "assoc-%04ld", i + 1);
            strbuf_reset(&b.qtext);
            if (form)
                strbuf_addf(&b.qtext, "Which character lives next to %s?", a[row].landmark);
            else
                strbuf_addf(&b.qtext, "Which character has been to %s?", a[row].country);
            g.id = b.id.buf;
            q.id = b.id.buf;
            q.question = b.qtext.buf;
            rc = write_question(w, &b.line, &q, &g, neg, (size_t)k);
            strvec_clear(&q.answers);
        }
        for (j = 0; j < (size_t)negatives && j < m; j++) {
            free(neg[j].id);
            free(neg[j].text);
        }
        free(neg);
    }
    free(order);
    strvec_clear(&names);
    gen_text_release(&b);
    return rc;
}

/* ---- two-hop chains (run --hops 2) ---- */

/* A chunk of text t (owned by the chunk) with its value v (owned by strs). */
static void hop_chunk(struct chunk *c, struct strbuf *t, struct strvec *strs, const char *id,
                      const char *v)
{
    memset(c, 0, sizeof(*c));
    c->id = (char *)strvec_push(strs, id);
    c->title = "";
    c->text_len = t->len;
    c->text = strbuf_detach(t, NULL);
    c->value = (char *)v;
}

/*
 * Needle A "The locker of X is in room R." and needle B "The door code of room R is C.": the
 * question names X and asks for C, so it needs both (docs/axes.md "Two-hop chains"). Each hard
 * negative pair is another person's locker and its room's code. Rooms and codes are unique.
 */
static int gen_hops(struct dataset_writer *w, long n, long negatives, uint64_t rng)
{
    struct strvec entities = STRVEC_INIT, rooms = STRVEC_INIT, codes = STRVEC_INIT;
    struct strvec strs = STRVEC_INIT;
    struct strbuf sb = STRBUF_INIT, line = STRBUF_INIT, qtext = STRBUF_INIT, id = STRBUF_INIT;
    long i, k;
    int rc = 0;

    for (i = 0; i < n && !rc; i++) {
        struct question q;
        struct chunk g[2], *neg = xcalloc((size_t)negatives * 2 + 1, sizeof(*neg));
        size_t nneg = 0, j;
        for (k = -1; k < negatives && !rc; k++) {
            struct strbuf t = STRBUF_INIT, cid = STRBUF_INIT;
            const char *e = draw_unique(&entities, &sb, &rng, 1, V_NUMBER), *r = NULL, *c = NULL;
            int tries;
            for (tries = 0; e && !r && tries < 10000; tries++) {
                strbuf_reset(&sb);
                strbuf_addf(&sb, "%lu", 100UL + (unsigned long)rng_below(&rng, 900));
                if (strvec_find(&rooms, sb.buf) < 0)
                    r = strvec_push(&rooms, sb.buf);
            }
            c = r ? draw_unique(&codes, &sb, &rng, 0, V_NUMBER) : NULL;
            if (!e || !r || !c) {
                rc = error("gen: hops: ran out of distinct people, rooms or codes (at most 900 "
                           "rooms: --n x (--negatives + 1))");
                break;
            }
            if (k < 0) {
                strbuf_reset(&qtext);
                strbuf_addf(&qtext,
                            "What is the door code of the room that holds the locker of %s?", e);
                strbuf_reset(&id);
                strbuf_addf(&id, "hops-%04ld", i + 1);
            }
            strbuf_addf(&t, "The locker of %s is in room %s.", e, r);
            if (k < 0)
                strbuf_addf(&cid, "%s-a", id.buf);
            else
                strbuf_addf(&cid, "%s-n%ld-a", id.buf, k + 1);
            hop_chunk(k < 0 ? &g[0] : &neg[nneg++], &t, &strs, cid.buf, r);
            strbuf_addf(&t, "The door code of room %s is %s.", r, c);
            strbuf_reset(&cid);
            if (k < 0)
                strbuf_addf(&cid, "%s-b", id.buf);
            else
                strbuf_addf(&cid, "%s-n%ld-b", id.buf, k + 1);
            hop_chunk(k < 0 ? &g[1] : &neg[nneg++], &t, &strs, cid.buf, c);
            strbuf_release(&cid);
        }
        if (!rc) {
            memset(&q, 0, sizeof(q));
            strvec_init(&q.answers);
            strvec_push(&q.answers, g[1].value);
            q.id = id.buf;
            q.question = qtext.buf;
            q.gold = g;
            q.gold_nr = 2;
            q.distractors = neg;
            q.distractors_nr = nneg;
            rc = write_checked(w, &line, &q);
            strvec_clear(&q.answers);
            free(g[0].text);
            free(g[1].text);
        }
        for (j = 0; j < nneg; j++)
            free(neg[j].text);
        free(neg);
    }
    strvec_clear(&entities);
    strvec_clear(&rooms);
    strvec_clear(&codes);
    strvec_clear(&strs);
    strbuf_release(&sb);
    strbuf_release(&line);
    strbuf_release(&qtext);
    strbuf_release(&id);
    return rc;
}

/* ---- ordinal needles (MRCR-style) ---- */

/* "1st", "2nd", "3rd", "4th", ..., "11th", "12th", "13th", "21st", ... */
static void ordinal_word(struct strbuf *sb, long k)
{
    long tens = k % 100, unit = k % 10;
    const char *suffix = tens >= 11 && tens <= 13 ? "th"
                         : unit == 1              ? "st"
                         : unit == 2              ? "nd"
                         : unit == 3              ? "rd"
                                                  : "th";
    strbuf_addf(sb, "%ld%s", k, suffix);
}

/*
 * docs/effects.md "Ordinal needles": per question one entity and `needles` notes of one sentence
 * pattern about it, each with its own value; gold chunk i is occurrence i + 1 (the prompt
 * keeps them in that order), and the question names occurrence k (1..max_k, drawn) of the
 * notes: its answer is gold chunk k - 1's value, scored exactly (a list of values is wrong).
 */
static int gen_ordinal(struct dataset_writer *w, long n, long needles, long max_k, uint64_t rng)
{
    struct strvec entities = STRVEC_INIT;
    struct strbuf sb = STRBUF_INIT, line = STRBUF_INIT, qtext = STRBUF_INIT, id = STRBUF_INIT;
    struct strbuf word = STRBUF_INIT;
    long i, j;
    int rc = 0;

    for (i = 0; i < n && !rc; i++) {
        size_t p = (size_t)i % NPATTERNS;
        long k = 1 + (long)rng_below(&rng, (uint64_t)max_k);
        struct strvec values = STRVEC_INIT, ids = STRVEC_INIT;
        struct chunk *g = xcalloc((size_t)needles, sizeof(*g));
        const char *e = draw_unique(&entities, &sb, &rng, 1, V_NUMBER);
        struct question q;
        if (!e)
            rc = error("gen: ordinal: ran out of distinct entities");
        for (j = 0; j < needles && !rc; j++) {
            const char *v = draw_unique(&values, &sb, &rng, 0, patterns[p].kind);
            struct strbuf t = STRBUF_INIT;
            if (!v) {
                rc = error("gen: ordinal: ran out of distinct values");
                break;
            }
            fact(&sb, p, e, v);
            strbuf_addf(&t, "Note on %s: %s", e, sb.buf);
            hop_chunk(&g[j], &t, &ids, strvec_pushf(&ids, "ordinal-%04ld-%ld", i + 1, j + 1), v);
        }
        if (!rc) {
            strbuf_reset(&id);
            strbuf_addf(&id, "ordinal-%04ld", i + 1);
            strbuf_reset(&word);
            ordinal_word(&word, k);
            strbuf_reset(&qtext);
            strbuf_addf(&qtext,
                        "Several notes on %s in the documents answer the question \"%s%s%s\", "
                        "each with another value. Counting the notes on %s from the start of "
                        "the documents, what value does the %s note give?",
                        e, patterns[p].q_pre, e, patterns[p].q_post, e, word.buf);
            memset(&q, 0, sizeof(q));
            strvec_init(&q.answers);
            strvec_push(&q.answers, g[k - 1].value);
            q.id = id.buf;
            q.question = qtext.buf;
            q.gold = g;
            q.gold_nr = (size_t)needles;
            q.scorer = (char *)"exact";
            rc = write_checked(w, &line, &q);
            strvec_clear(&q.answers);
        }
        for (j = 0; j < needles; j++)
            free(g[j].text);
        free(g);
        strvec_clear(&values);
        strvec_clear(&ids);
    }
    strvec_clear(&entities);
    strbuf_release(&sb);
    strbuf_release(&line);
    strbuf_release(&qtext);
    strbuf_release(&id);
    strbuf_release(&word);
    return rc;
}

/* ---- key-value ---- */

static void uuid4(struct strbuf *sb, uint64_t *rng)
{
    unsigned char b[16];
    int i;
    uint64_t a = rng_splitmix64(rng), c = rng_splitmix64(rng);
    for (i = 0; i < 8; i++) {
        b[i] = (unsigned char)(a >> (8 * i));
        b[8 + i] = (unsigned char)(c >> (8 * i));
    }
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
    strbuf_reset(sb);
    for (i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            strbuf_addch(sb, '-');
        strbuf_addf(sb, "%02x", b[i]);
    }
}

static void kv_chunk(struct chunk *c, struct strbuf *text, const char *id, const char *k,
                     const char *v)
{
    strbuf_reset(text);
    strbuf_addf(text, "\"%s\": \"%s\"", k, v);
    memset(c, 0, sizeof(*c));
    c->id = (char *)id;
    c->title = "";
    c->text = text->buf;
    c->text_len = text->len;
    c->value = (char *)v;
}

static int gen_kv(struct dataset_writer *w, struct dataset_writer *hay, long n, long negatives,
                  long hay_size, uint64_t rng)
{
    struct strbuf key = STRBUF_INIT, val = STRBUF_INIT, line = STRBUF_INIT, qtext = STRBUF_INIT;
    struct strbuf id = STRBUF_INIT, gtext = STRBUF_INIT;
    long i, k;
    int rc = 0;

    for (i = 0; i < n && !rc; i++) {
        struct question q;
        struct chunk g, *neg = xcalloc((size_t)negatives + 1, sizeof(*neg));
        struct strvec strs = STRVEC_INIT;
        memset(&q, 0, sizeof(q));
        strvec_init(&q.answers);
        uuid4(&key, &rng);
        uuid4(&val, &rng);
        strvec_push(&q.answers, val.buf);
        strbuf_reset(&id);
        strbuf_addf(&id, "kv-%04ld", i + 1);
        strbuf_reset(&qtext);
        strbuf_addf(&qtext, "What is the value of the key \"%s\"?", key.buf);
        kv_chunk(&g, &gtext, id.buf, key.buf, val.buf);
        g.value = NULL;
        for (k = 0; k < negatives; k++) {
            struct strbuf t = STRBUF_INIT;
            uuid4(&key, &rng);
            uuid4(&val, &rng);
            kv_chunk(&neg[k], &t, strvec_pushf(&strs, "kv-%04ld-n%ld", i + 1, k + 1), key.buf,
                     strvec_push(&strs, val.buf));
            neg[k].text = strbuf_detach(&t, NULL);
        }
        q.id = id.buf;
        q.question = qtext.buf;
        rc = write_question(w, &line, &q, &g, neg, (size_t)negatives);
        for (k = 0; k < negatives; k++)
            free(neg[k].text);
        free(neg);
        strvec_clear(&strs);
        strvec_clear(&q.answers);
    }
    for (i = 0; hay && i < hay_size && !rc; i++) {
        struct chunk c;
        struct strbuf hid = STRBUF_INIT;
        uuid4(&key, &rng);
        uuid4(&val, &rng);
        strbuf_addf(&hid, "kvh-%05ld", i + 1);
        kv_chunk(&c, &gtext, hid.buf, key.buf, val.buf);
        c.value = NULL;
        strbuf_reset(&line);
        chunk_to_jsonl(&line, &c);
        rc = dataset_writer_write(hay, line.buf, line.len);
        strbuf_release(&hid);
    }
    strbuf_release(&key);
    strbuf_release(&val);
    strbuf_release(&line);
    strbuf_release(&qtext);
    strbuf_release(&id);
    strbuf_release(&gtext);
    return rc;
}

/* The counts' ranges (needles 0: not an ordinal set); -1 after printing the error. */
static int check_counts(long n, long seed, long negatives, long hay_size, long needles, long max_k)
{
    if (needles && (needles < 2 || needles > 64 || max_k < 1 || max_k > needles))
        return error(needles < 2 || needles > 64
                         ? "gen: --needles must be 2 to 64 (got %ld)"
                         : "gen: --max-occurrence must be 1 to --needles (got %ld)",
                     needles < 2 || needles > 64 ? needles : max_k);
    if (n < 1 || n > 100000 || negatives > 10000 || hay_size < 0 || hay_size > 10000000)
        return error(n < 1 || n > 100000 ? "gen: --n must be 1 to 100000 (got %ld)"
                     : negatives > 10000 ? "gen: --negatives must be 0 to 10000 (got %ld)"
                                         : "gen: --haystack-size must be 0 to 10000000 (got %ld)",
                     n < 1 || n > 100000 ? n
                     : negatives > 10000 ? negatives
                                         : hay_size);
    if (seed < 0)
        return error("gen: --seed must be >= 0");
    return 0;
}

int cmd_gen(int argc, const char **argv)
{
    const char *out = "-", *hay_out = NULL, *assoc_path = "datasets/associations.tsv";
    struct assoc *assoc = NULL;
    long assoc_nr = 0, ai;
    long n = 40, seed = 1, negatives = -1, hay_size = 2000, needles = 8, max_k = 2;
    struct strvec rest = STRVEC_INIT;
    struct strbuf assoc_found = STRBUF_INIT, werr = STRBUF_INIT; /* the writers' errors */
    struct dataset_writer *w = NULL, *hw = NULL;
    uint64_t rng;
    int rc, ret = DM_EXIT_USAGE, kv, as, hops, ord;
    struct option opts[] = {
        OPT_LONG('n', "n", &n, "N", "number of questions (default 40)"),
        OPT_LONG('s', "seed", &seed, "N", "random seed (default 1): same seed, same file"),
        OPT_LONG(0, "negatives", &negatives, "K",
                 "hard negatives per question (default 4 for needle, 20 for kv)"),
        OPT_STRING('o', "out", &out, "FILE", "golden set to write (.gz: compressed; default -)"),
        OPT_STRING(0, "haystack-out", &hay_out, "FILE", "kv: also write a haystack of pairs"),
        OPT_LONG(0, "haystack-size", &hay_size, "M", "kv: pairs in the haystack (default 2000)"),
        OPT_STRING(0, "associations", &assoc_path, "FILE",
                   "assoc: the association table (default datasets/associations.tsv)"),
        OPT_LONG(0, "needles", &needles, "N",
                 "ordinal: notes per question, occurrence 1..N (default 8, at most 64)"),
        OPT_LONG(
            0, "max-occurrence", &max_k, "K",
            "ordinal: the question names occurrence 1..K (default 2, so every run --ordinal value "
            "from 2 up places it)"),
        OPT_END(),
    };

    rc = parse_options(argc, argv, opts, gen_usage, &rest);
    if (rc)
        return parse_options_exit(rc);
    if (rest.nr != 1 ||
        (strcmp(rest.v[0], "needle") && strcmp(rest.v[0], "kv") && strcmp(rest.v[0], "assoc") &&
         strcmp(rest.v[0], "hops") && strcmp(rest.v[0], "ordinal"))) {
        if (rest.nr == 1)
            error("gen: unknown kind '%s': expected 'needle', 'assoc', 'kv', 'hops' or 'ordinal'",
                  rest.v[0]);
        else
            error("gen: expected one kind, 'needle', 'assoc', 'kv', 'hops' or 'ordinal'");
        usage_with_options(stderr, gen_usage, opts);
        goto cleanup;
    }
    kv = !strcmp(rest.v[0], "kv");
    as = !strcmp(rest.v[0], "assoc");
    hops = !strcmp(rest.v[0], "hops");
    ord = !strcmp(rest.v[0], "ordinal");
    if (negatives < 0 || ord) /* an ordinal set's other notes are its negatives */
        negatives = kv ? 20 : ord ? 0 : 4;
    if (check_counts(n, seed, negatives, hay_size, ord ? needles : 0, max_k) < 0)
        goto cleanup;
    if (hay_out && !kv) {
        error("gen: --haystack-out is for kv (needle sets use a text haystack)");
        goto cleanup;
    }
    if (as) {
        /* the shipped table is looked up in the data search order, as datasets are */
        if (!strcmp(assoc_path, "datasets/associations.tsv") &&
            !datadir_find(assoc_path, &assoc_found, NULL))
            assoc_path = assoc_found.buf;
        /* read before the output file exists: a refused command writes nothing */
        assoc_nr = assoc_load(assoc_path, &assoc);
        if (assoc_nr < 0)
            goto cleanup;
        if (negatives >= assoc_nr) {
            error("gen: assoc: --negatives %ld needs %ld other rows, %s has %ld rows", negatives,
                  negatives, assoc_path, assoc_nr);
            goto cleanup;
        }
    }
    if (!kv && (size_t)(n * (negatives + 1)) > needle_entities()) {
        /* checked before the output file exists: a refused command writes nothing */
        error("gen: needle: --n %ld with --negatives %ld needs %ld distinct entities, there are "
              "%zu: use --n %ld or less (or fewer --negatives)",
              n, negatives, n * (negatives + 1), needle_entities(),
              (long)(needle_entities() / (size_t)(negatives + 1)));
        goto cleanup;
    }
    rng = (uint64_t)seed * 0x2545f4914f6cdd1dULL + (kv ? 2 : as ? 3 : hops ? 4 : ord ? 5 : 1);
    w = dataset_writer_open(out, &werr);
    if (!w)
        goto cleanup;
    if (hay_out && !(hw = dataset_writer_open(hay_out, &werr)))
        goto cleanup;
    rc = kv     ? gen_kv(w, hw, n, negatives, hay_size, rng)
         : as   ? gen_assoc(w, assoc, (size_t)assoc_nr, n, negatives, rng)
         : hops ? gen_hops(w, n, negatives, rng)
         : ord  ? gen_ordinal(w, n, needles, max_k, rng)
                : gen_needle(w, n, negatives, rng);
    if (rc)
        goto cleanup;
    rc = dataset_writer_close(w);
    w = NULL;
    if (hw) {
        rc |= dataset_writer_close(hw);
        hw = NULL;
    }
    if (!rc)
        ret = DM_EXIT_OK;
cleanup:
    if (werr.len)
        error("%s", werr.buf);
    strbuf_release(&werr);
    dataset_writer_abort(w);
    dataset_writer_abort(hw);
    for (ai = 0; ai < assoc_nr; ai++) {
        free(assoc[ai].landmark);
        free(assoc[ai].country);
    }
    free(assoc);
    strbuf_release(&assoc_found);
    strvec_clear(&rest);
    return ret;
}

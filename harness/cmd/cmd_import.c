/*
 * `dipmap import litm FILE`: converts the Lost-in-the-Middle data files
 * (NQ-open oracle/k-document QA files, key-value retrieval files) into a
 * dipmap golden set plus a haystack of the other records' passages or pairs.
 * `dipmap import nolima FILE` and `dipmap import ruler FILE` convert NoLiMa's
 * needle-set entries and RULER's generated needle-in-a-haystack samples;
 * `dipmap import longbench-v2 FILE` makes a haystack of LongBench v2's long
 * documents (docs/layouts-and-imports.md "Importing NoLiMa, RULER and LongBench v2": the field
 * mapping).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "prompt/dataset.h"
#include "base/json.h"
#include "base/opt.h"
#include "run/score.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/usage.h"
#include "base/xalloc.h"
#include "base/hash.h"
#include "base/hashmap.h"

#include "base/banned.h"

static const char *const import_usage[] = {
    "dipmap import litm FILE --out SET.jsonl[.gz] [--haystack-out HAY.jsonl[.gz]] [--limit N] "
    "[--haystack-limit N] [--kv-negatives N] [--as golden|retrieval] [--kv-question sentence|key] "
    "[--allow-answer-outside-gold]",
    "dipmap import nolima FILE --out SET.jsonl[.gz] [--limit N] [--seed N] "
    "[--allow-answer-outside-gold]",
    "dipmap import ruler FILE --out SET.jsonl[.gz] [--limit N] [--allow-answer-outside-gold]",
    "dipmap import longbench-v2 FILE --out HAYSTACK.jsonl[.gz] [--limit N]",
    NULL,
};

struct importer {
    const char *path;
    struct dataset_writer *set, *hay;
    long limit, hay_limit, kv_negatives;
    long questions, chunks, skipped, empty_answers;
    int as_retrieval;   /* QA: write retrieval items (the ctxs as given, in file order) */
    int kv_key;         /* KV: the question is the bare key (the paper's prompt names only it) */
    unsigned long seed; /* nolima: which character of character_set each test names */
    int format; /* 0 litm (qa or kv from the first record), 3 nolima, 4 ruler, 5 longbench-v2 */
    int allow_outside;      /* --allow-answer-outside-gold */
    long outside;           /* questions marked "answer_outside_gold" */
    long renamed;           /* ids taken already, written with a line suffix */
    struct strvec ids;      /* every question id written, in order */
    struct hashmap idx;     /* id -> its entry in ids */
    struct strbuf set_text; /* the golden set as written, loaded once more at the end */
    struct strbuf line;
    struct strbuf werr; /* the writers' errors, printed when the command ends */
    char prefix[16];
};

static int write_line(struct dataset_writer *w, struct strbuf *sb)
{
    int rc = dataset_writer_write(w, sb->buf, sb->len);
    strbuf_reset(sb);
    return rc;
}

/* c as a view (nothing owned) of an untitled chunk: id and text borrowed from the caller. */
static void chunk_view(struct chunk *c, const char *id, const char *text, size_t len)
{
    memset(c, 0, sizeof(*c));
    c->id = (char *)id;
    c->title = (char *)"";
    c->text = (char *)text;
    c->text_len = len;
}

static int id_is(const void *id, size_t entry, const void *ids)
{
    return !strcmp(((const struct strvec *)ids)->v[entry], id);
}

/* 1 when id was not written yet (and is now recorded), 0 when it was. */
static int id_claim(struct importer *im, const char *id)
{
    uint64_t h = fnv64_str(FNV64_INIT_DIPMAP, id);
    if (hashmap_find(&im->idx, h, id, id_is, &im->ids) != HASHMAP_NONE)
        return 0;
    strvec_push(&im->ids, id);
    hashmap_put(&im->idx, h, id, im->ids.nr - 1, id_is, &im->ids);
    return 1;
}

/*
 * One question written (or counted against --limit), as the rest of dipmap will read it: an
 * id taken already (RULER's current niah.py writes the answer's offset as "index") gets the
 * input line as a suffix, "-L<line>", then a count until it is free; a gold that does not
 * state the answer (question_answer_in_gold()) is refused naming the input line, or, with
 * --allow-answer-outside-gold, marked "answer_outside_gold": true.
 */
static int write_question(struct importer *im, struct question *q, long lineno)
{
    struct strbuf id = STRBUF_INIT, why = STRBUF_INIT;
    char *given = q->id;
    int rc = 0;
    if (im->limit > 0 && im->questions >= im->limit)
        return 0;
    if (!question_answer_in_gold(q, &why)) {
        if (!im->allow_outside) {
            rc = error("%s:%ld: question \"%s\": %s, so it would be scored wrong at every depth "
                       "(--allow-answer-outside-gold imports it marked \"answer_outside_gold\": "
                       "true, when the gold implies the answer)",
                       im->path, lineno, q->id, why.buf);
            goto done;
        }
        q->answer_outside_gold = 1;
        im->outside++;
    }
    if (!id_claim(im, q->id)) {
        strbuf_addf(&id, "%s-L%ld", given, lineno);
        for (long k = 2; !id_claim(im, id.buf); k++) {
            strbuf_reset(&id);
            strbuf_addf(&id, "%s-L%ld-%ld", given, lineno, k);
        }
        q->id = id.buf;
        im->renamed++;
    }
    question_to_jsonl(&im->line, q);
    strbuf_add(&im->set_text, im->line.buf, im->line.len);
    rc = write_line(im->set, &im->line);
    im->questions++;
done:
    q->id = given;
    q->answer_outside_gold = 0;
    strbuf_release(&id);
    strbuf_release(&why);
    return rc;
}

/* A passage import_qa keeps as a hard negative: a non-empty text stating no answer. */
static int qa_is_negative(const struct json *e)
{
    return json_get_str(e, "text") && json_get_str(e, "text")[0] &&
           !json_is_true(json_get(e, "hasanswer"));
}

/*
 * --as retrieval: the record's passages as its retrieved list, in the file's order (a k-document
 * file's order puts the gold at its index among the distractors in retrieval order, so
 * `run --experiment order --policies best-first` passes exactly the paper's document list).
 * The list borrows g and neg[] (the chunks written for the golden set); q->retrieved is malloc'd.
 */
static void qa_as_retrieval(struct question *q, const struct json *ctxs, const struct json *gold,
                            const struct chunk *g, const struct chunk *neg, size_t nneg)
{
    const struct json *e;
    size_t n = 0, k = 0;

    q->retrieved = xcalloc(nneg + 1, sizeof(*q->retrieved));
    for (e = json_first(ctxs); e; e = json_next(e)) {
        struct retrieved_chunk *rc;
        if (e != gold && !qa_is_negative(e))
            continue;
        if (e != gold && k >= nneg)
            BUG("qa_as_retrieval: more negatives than import_qa kept");
        rc = &q->retrieved[n++];
        rc->c = e == gold ? *g : neg[k++];
        rc->score = NAN;
        rc->gold = e == gold;
    }
    q->retrieved_nr = n;
    q->gold_rank = 0;
}

/* One NQ record: question, answers, ctxs (gold marked by isgold, else the first). */
static int import_qa(struct importer *im, const struct json *j, long lineno)
{
    const struct json *ctxs = json_get(j, "ctxs");
    const struct json *answers = json_get(j, "answers"), *e, *gold = NULL;
    const char *question = json_get_str(j, "question");
    struct question q;
    struct chunk g;
    struct strbuf id = STRBUF_INIT, gid = STRBUF_INIT;
    struct chunk *neg = NULL;
    size_t n = 0, nneg = 0, alloc = 0;
    int rc = 0;

    if (!question || json_kind(answers) != JSON_ARRAY || json_kind(ctxs) != JSON_ARRAY)
        return error("%s:%ld: not a LitM QA record (needs \"question\", \"answers\", \"ctxs\")",
                     im->path, lineno);
    for (e = json_first(ctxs); e; e = json_next(e)) {
        if (json_is_true(json_get(e, "isgold"))) {
            gold = e;
            break;
        }
    }
    if (!gold)
        gold = json_at(ctxs, 0);
    if (!gold || !json_get_str(gold, "text") || !json_get_str(gold, "text")[0])
        return error("%s:%ld: \"ctxs\" has no gold passage with a \"text\"", im->path, lineno);

    memset(&q, 0, sizeof(q));
    strvec_init(&q.answers);
    for (e = json_first(answers); e; e = json_next(e)) {
        if (!json_str(e) || !json_str(e)[0])
            continue;
        /* "*" would match any answer (the loader refuses it): dropped and counted */
        if (score_gold_is_empty(json_str(e)))
            im->empty_answers++;
        else
            strvec_push(&q.answers, json_str(e));
    }
    if (!q.answers.nr) {
        im->skipped++;
        strvec_clear(&q.answers);
        return 0;
    }
    strbuf_addf(&id, "%s-%04ld", im->prefix, lineno);
    strbuf_addf(&gid, "%s-%04ld-p", im->prefix, lineno);
    memset(&g, 0, sizeof(g));
    g.id = gid.buf;
    g.title = (char *)(json_get_str(gold, "title") ? json_get_str(gold, "title") : "");
    g.text = (char *)json_get_str(gold, "text");
    g.text_len = strlen(g.text);
    /*
     * The retrieved passages of the k-document files (not gold, no answer) are
     * the question's own hard negatives, in retrieval order; the oracle file has none.
     */
    for (e = json_first(ctxs); e; e = json_next(e)) {
        struct strbuf did = STRBUF_INIT;
        if (e == gold || !qa_is_negative(e))
            continue;
        ALLOC_GROW(neg, nneg + 1, alloc);
        memset(&neg[nneg], 0, sizeof(*neg));
        if (json_get_str(e, "id"))
            strbuf_addf(&did, "wiki-%s", json_get_str(e, "id"));
        else
            strbuf_addf(&did, "%s-%04ld-c%zu", im->prefix, lineno, nneg);
        neg[nneg].id = strbuf_detach(&did, NULL);
        neg[nneg].title = (char *)(json_get_str(e, "title") ? json_get_str(e, "title") : "");
        neg[nneg].text = (char *)json_get_str(e, "text");
        neg[nneg].text_len = strlen(neg[nneg].text);
        nneg++;
    }
    q.id = id.buf;
    q.question = (char *)question;
    q.gold = &g;
    q.gold_nr = 1;
    q.distractors = neg;
    q.distractors_nr = nneg;

    if (im->questions < im->limit || im->limit <= 0) {
        if (im->as_retrieval)
            qa_as_retrieval(&q, ctxs, gold, &g, neg, nneg);
        rc = write_question(im, &q, lineno);
        free(q.retrieved);
        q.retrieved = NULL;
        q.retrieved_nr = 0;
    }
    /* every passage goes to the haystack too (filler for the other questions) */
    if (!rc && im->hay && (im->hay_limit <= 0 || im->chunks < im->hay_limit)) {
        chunk_to_jsonl(&im->line, &g);
        rc = write_line(im->hay, &im->line);
        im->chunks++;
        for (n = 0; n < nneg && !rc; n++) {
            if (im->hay_limit > 0 && im->chunks >= im->hay_limit)
                break;
            chunk_to_jsonl(&im->line, &neg[n]);
            rc = write_line(im->hay, &im->line);
            im->chunks++;
        }
    }
    for (n = 0; n < nneg; n++)
        free(neg[n].id);
    free(neg);
    strvec_clear(&q.answers);
    strbuf_release(&id);
    strbuf_release(&gid);
    return rc;
}

static void kv_text(struct strbuf *sb, const char *k, const char *v)
{
    strbuf_addf(sb, "\"%s\": \"%s\"", k, v);
}

/* One KV record: ordered_kv_records, key, value. */
static int import_kv(struct importer *im, const struct json *j, long lineno)
{
    const struct json *recs = json_get(j, "ordered_kv_records"), *e;
    const char *key = json_get_str(j, "key"), *value = json_get_str(j, "value");
    struct question q;
    struct chunk g, *neg = NULL;
    struct strbuf id = STRBUF_INIT, gtext = STRBUF_INIT, qtext = STRBUF_INIT;
    size_t i = 0, nneg = 0, alloc = 0;
    int rc = 0;

    if (!key || !value || json_kind(recs) != JSON_ARRAY)
        return error("%s:%ld: not a LitM KV record (needs \"ordered_kv_records\", \"key\", "
                     "\"value\")",
                     im->path, lineno);
    memset(&q, 0, sizeof(q));
    strvec_init(&q.answers);
    strvec_push(&q.answers, value);
    strbuf_addf(&id, "%s-%04ld", im->prefix, lineno);
    kv_text(&gtext, key, value);
    if (im->kv_key)
        strbuf_addstr(&qtext, key);
    else
        strbuf_addf(&qtext, "What is the value of the key \"%s\"?", key);
    chunk_view(&g, xstrdup(id.buf), gtext.buf, gtext.len);
    for (e = json_first(recs); e; e = json_next(e)) {
        const struct json *k = json_at(e, 0), *v = json_at(e, 1);
        struct strbuf t = STRBUF_INIT;
        i++;
        if (!json_str(k) || !json_str(v)) {
            rc = error("%s:%ld: \"ordered_kv_records\"[%zu] must be a [key, value] pair of strings",
                       im->path, lineno, i - 1);
            break;
        }
        if (!strcmp(json_str(k), key))
            continue;
        if (im->kv_negatives >= 0 && (long)nneg >= im->kv_negatives) {
            /* the rest feed the haystack */
            if (im->hay && (im->hay_limit <= 0 || im->chunks < im->hay_limit)) {
                struct chunk h;
                struct strbuf hid = STRBUF_INIT;
                strbuf_addf(&hid, "%s-%04ld-%zu", im->prefix, lineno, i - 1);
                kv_text(&t, json_str(k), json_str(v));
                chunk_view(&h, hid.buf, t.buf, t.len);
                h.value = (char *)json_str(v); /* borrowed: written, never freed */
                chunk_to_jsonl(&im->line, &h);
                rc = write_line(im->hay, &im->line);
                im->chunks++;
                strbuf_release(&hid);
            }
            strbuf_release(&t);
            if (rc)
                break;
            continue;
        }
        ALLOC_GROW(neg, nneg + 1, alloc);
        memset(&neg[nneg], 0, sizeof(*neg));
        kv_text(&t, json_str(k), json_str(v));
        {
            struct strbuf nid = STRBUF_INIT;
            strbuf_addf(&nid, "%s-%04ld-%zu", im->prefix, lineno, i - 1);
            neg[nneg].id = strbuf_detach(&nid, NULL);
        }
        neg[nneg].title = "";
        neg[nneg].text_len = t.len;
        neg[nneg].text = strbuf_detach(&t, NULL);
        neg[nneg].value = (char *)json_str(v); /* borrowed: written, never freed */
        nneg++;
    }
    if (!rc && (im->limit <= 0 || im->questions < im->limit)) {
        q.id = id.buf;
        q.question = qtext.buf;
        q.gold = &g;
        q.gold_nr = 1;
        q.distractors = neg;
        q.distractors_nr = nneg;
        rc = write_question(im, &q, lineno);
    }
    for (i = 0; i < nneg; i++) {
        free(neg[i].id);
        free(neg[i].text);
    }
    free(neg);
    free(g.id);
    strvec_clear(&q.answers);
    strbuf_release(&id);
    strbuf_release(&gtext);
    strbuf_release(&qtext);
    return rc;
}

/* ---- NoLiMa and RULER ---- */

/* s with "{1}", "{2}", ... replaced by args[0], args[1], ... and "{CHAR}" by ch (NULL: kept). */
static void fill_template(struct strbuf *out, const char *s, const struct json *args,
                          const char *ch)
{
    strbuf_reset(out);
    while (*s) {
        const char *e;
        if (*s == '{' && (e = strchr(s, '}'))) {
            size_t n = (size_t)(e - s - 1), k = 0;
            int num = n > 0;
            for (size_t i = 1; i <= n; i++)
                num &= s[i] >= '0' && s[i] <= '9';
            if (num) {
                for (size_t i = 1; i <= n; i++)
                    k = k * 10 + (size_t)(s[i] - '0');
                if (k >= 1 && json_str(json_at(args, k - 1))) {
                    strbuf_addstr(out, json_str(json_at(args, k - 1)));
                    s = e + 1;
                    continue;
                }
            } else if (ch && n == 4 && !memcmp(s + 1, "CHAR", 4)) {
                strbuf_addstr(out, ch);
                s = e + 1;
                continue;
            }
        }
        strbuf_addch(out, *s++);
    }
}

/* FNV-1a of the strings, mixed with seed: a stable choice per (entry, test, question). */
static uint64_t pick_hash(unsigned long seed, const char *a, const char *b, const char *c)
{
    uint64_t h = FNV64_INIT_DIPMAP ^ (uint64_t)seed;
    const char *parts[3] = {a, b, c};
    for (int i = 0; i < 3; i++)
        h = fnv64_step(fnv64_str(h, parts[i]), 0xff);
    return h;
}

/* A string field, or an error naming file, line and field. */
static const char *need_str(const struct importer *im, const struct json *j, const char *field,
                            long lineno)
{
    const char *v = json_get_str(j, field);
    if (!v || !*v)
        error("%s:%ld: \"%s\": missing or not a non-empty string", im->path, lineno, field);
    return v && *v ? v : NULL;
}

/*
 * One NoLiMa needle-set entry (one element of its needle_set.json per line): for every
 * question type x test, the needle with the test's input_args and a character from
 * character_set as the gold chunk (its value the character), the question with the same
 * args, the answer the character for a {CHAR} needle (as NoLiMa scores it), else the test's
 * gold_answers, the type's distractor (when given) as a hard negative.
 */
static int import_nolima(struct importer *im, const struct json *j, long lineno)
{
    const char *eid = need_str(im, j, "id", lineno), *needle = need_str(im, j, "needle", lineno);
    const struct json *qs = json_get(j, "questions"), *tests = json_get(j, "tests");
    const struct json *chars = json_get(j, "character_set"), *dis = json_get(j, "distractors");
    const struct json *qt, *t;
    struct strbuf qtext = STRBUF_INIT, gtext = STRBUF_INIT, dtext = STRBUF_INIT, id = STRBUF_INIT;
    struct strbuf gid = STRBUF_INIT, did = STRBUF_INIT;
    int rc = 0;

    if (!eid || !needle)
        return -1;
    if (json_kind(qs) != JSON_OBJECT || !json_size(qs))
        return error("%s:%ld: \"questions\": expected an object of question templates", im->path,
                     lineno);
    if (json_kind(tests) != JSON_OBJECT || !json_size(tests))
        return error("%s:%ld: \"tests\": expected an object of tests with \"input_args\"", im->path,
                     lineno);
    if (chars && (json_kind(chars) != JSON_ARRAY || !json_size(chars)))
        return error("%s:%ld: \"character_set\": expected a non-empty array of names", im->path,
                     lineno);
    for (qt = json_first(qs); qt && !rc; qt = json_next(qt)) {
        if (!json_str(qt) || !*json_str(qt)) {
            rc = error("%s:%ld: \"questions\".%s: not a question string", im->path, lineno,
                       json_key(qt));
            break;
        }
        for (t = json_first(tests); t && !rc; t = json_next(t)) {
            const struct json *args = json_get(t, "input_args"), *ga = json_get(t, "gold_answers");
            const char *ch = NULL;
            struct question q;
            struct chunk g, neg;
            if (json_kind(args) != JSON_ARRAY) {
                rc = error("%s:%ld: \"tests\".%s.input_args: expected an array of strings",
                           im->path, lineno, json_key(t));
                break;
            }
            if (chars) {
                size_t n = json_size(chars);
                ch = json_str(json_at(
                    chars, (size_t)(pick_hash(im->seed, eid, json_key(t), json_key(qt)) % n)));
                if (!ch || !*ch) {
                    rc = error("%s:%ld: \"character_set\": not all strings", im->path, lineno);
                    break;
                }
            }
            if (strstr(needle, "{CHAR}") && !ch) {
                rc = error("%s:%ld: \"character_set\": the needle names {CHAR} but the entry "
                           "has no character_set",
                           im->path, lineno);
                break;
            }
            fill_template(&qtext, json_str(qt), args, ch);
            fill_template(&gtext, needle, args, ch);
            memset(&q, 0, sizeof(q));
            strvec_init(&q.answers);
            /* NoLiMa's own rule (evaluation/async_evaluate.py): a {CHAR} needle is scored
               against the character it names, "gold_answers" only a needle without one */
            if (strstr(needle, "{CHAR}")) {
                strvec_push(&q.answers, ch);
            } else if (json_kind(ga) == JSON_ARRAY) {
                for (const struct json *a = json_first(ga); a; a = json_next(a))
                    if (json_str(a) && *json_str(a) && !score_gold_is_empty(json_str(a)))
                        strvec_push(&q.answers, json_str(a));
            } else if (ch) {
                strvec_push(&q.answers, ch);
            }
            if (!q.answers.nr) {
                strvec_clear(&q.answers);
                rc = error("%s:%ld: \"tests\".%s: no answer (neither \"gold_answers\" nor a "
                           "\"character_set\" to name the character)",
                           im->path, lineno, json_key(t));
                break;
            }
            strbuf_reset(&id);
            strbuf_addf(&id, "nolima-%s-%s-%s", eid, json_key(t), json_key(qt));
            strbuf_reset(&gid);
            strbuf_addf(&gid, "%s-needle", id.buf);
            chunk_view(&g, gid.buf, gtext.buf, gtext.len);
            g.value = (char *)q.answers.v[0];
            q.id = id.buf;
            q.question = qtext.buf;
            q.gold = &g;
            q.gold_nr = 1;
            if (json_get_str(dis, json_key(qt))) {
                /* the type's distractor: the question's words without the answer */
                fill_template(&dtext, json_get_str(dis, json_key(qt)), args, ch);
                strbuf_reset(&did);
                strbuf_addf(&did, "%s-distractor", id.buf);
                chunk_view(&neg, did.buf, dtext.buf, dtext.len);
                q.distractors = &neg;
                q.distractors_nr = 1;
            }
            rc = write_question(im, &q, lineno);
            strvec_clear(&q.answers);
        }
    }
    strbuf_release(&qtext);
    strbuf_release(&gtext);
    strbuf_release(&dtext);
    strbuf_release(&id);
    strbuf_release(&gid);
    strbuf_release(&did);
    return rc;
}

/* RULER's needle sentence and query (scripts/data/synthetic/niah.py). */
#define RULER_NEEDLE "One of the special magic "
#define RULER_QUERY  "What are all the special magic "
#define RULER_QUERY1 "What is the special magic "

/*
 * One RULER sample (its niah tasks' JSONL: index, input, outputs): every needle sentence
 * "One of the special magic T for K is: V." in input, those whose V is in outputs the gold
 * chunks (in input order) and the others hard negatives; the question the input's query
 * sentence; the answers outputs (all needed: run --needles N places them apart).
 */
static int import_ruler(struct importer *im, const struct json *j, long lineno)
{
    const char *input = need_str(im, j, "input", lineno), *p, *qs;
    const struct json *outs = json_get(j, "outputs"), *idx = json_get(j, "index");
    struct chunk *gold = NULL, *neg = NULL;
    size_t ng = 0, nn = 0, ga = 0, na = 0, i;
    struct strbuf id = STRBUF_INIT, qtext = STRBUF_INIT;
    struct strvec texts = STRVEC_INIT, ids = STRVEC_INIT;
    struct question q;
    int rc = 0;

    if (!input)
        return -1;
    if (json_kind(outs) != JSON_ARRAY || !json_size(outs))
        return error("%s:%ld: \"outputs\": expected a non-empty array of answers", im->path,
                     lineno);
    strbuf_addf(&id, "ruler-%ld", json_kind(idx) == JSON_NUMBER ? (long)json_num(idx, 0) : lineno);
    memset(&q, 0, sizeof(q));
    strvec_init(&q.answers);
    for (const struct json *o = json_first(outs); o; o = json_next(o)) {
        if (!json_str(o) || !*json_str(o)) {
            strvec_clear(&q.answers);
            strbuf_release(&id);
            return error("%s:%ld: \"outputs\": every answer must be a non-empty string", im->path,
                         lineno);
        }
        strvec_push(&q.answers, json_str(o));
    }
    /* the needle sentences, in input order */
    for (p = strstr(input, RULER_NEEDLE); p; p = strstr(p + 1, RULER_NEEDLE)) {
        const char *is = strstr(p, " is: "), *end;
        struct chunk *c;
        int hit = 0;
        if (!is || memchr(p, '\n', (size_t)(is - p)))
            continue;
        end = strchr(is + 5, '.');
        if (!end || memchr(is, '\n', (size_t)(end - is)))
            continue;
        strbuf_reset(&qtext);
        strbuf_add(&qtext, is + 5, (size_t)(end - is - 5));
        for (i = 0; i < q.answers.nr; i++)
            hit |= !strcmp(q.answers.v[i], qtext.buf);
        if (hit) {
            ALLOC_GROW(gold, ng + 1, ga);
            c = &gold[ng++];
        } else {
            ALLOC_GROW(neg, nn + 1, na);
            c = &neg[nn++];
        }
        memset(c, 0, sizeof(*c));
        strbuf_reset(&qtext);
        strbuf_add(&qtext, p, (size_t)(end + 1 - p));
        c->text = (char *)strvec_push(&texts, qtext.buf);
        c->text_len = strlen(c->text);
        strbuf_reset(&qtext);
        strbuf_add(&qtext, is + 5, (size_t)(end - is - 5));
        c->value = (char *)strvec_push(&texts, qtext.buf);
        c->title = "";
        strbuf_reset(&qtext);
        strbuf_addf(&qtext, "%s-%s%zu", id.buf, hit ? "g" : "n", hit ? ng : nn);
        c->id = (char *)strvec_push(&ids, qtext.buf);
    }
    qs = strstr(input, RULER_QUERY);
    if (!qs)
        qs = strstr(input, RULER_QUERY1);
    if (!ng) {
        rc = error("%s:%ld: \"input\": no needle sentence (\"%s... is: VALUE.\") states an "
                   "answer of \"outputs\": only RULER's niah tasks import",
                   im->path, lineno, RULER_NEEDLE);
    } else if (!qs || !strchr(qs, '?')) {
        rc = error("%s:%ld: \"input\": no query (\"%s...?\" or \"%s...?\")", im->path, lineno,
                   RULER_QUERY, RULER_QUERY1);
    } else {
        strbuf_reset(&qtext);
        strbuf_add(&qtext, qs, (size_t)(strchr(qs, '?') + 1 - qs));
        q.id = id.buf;
        q.question = qtext.buf;
        q.gold = gold;
        q.gold_nr = ng;
        q.distractors = neg;
        q.distractors_nr = nn;
        rc = write_question(im, &q, lineno);
    }
    free(gold);
    free(neg);
    strvec_clear(&texts);
    strvec_clear(&ids);
    strvec_clear(&q.answers);
    strbuf_release(&id);
    strbuf_release(&qtext);
    return rc;
}

/* ---- LongBench v2 ---- */

struct lb_ctx {
    struct importer *im;
    const char *rid;
    long n; /* chunks of this record so far */
    int rc;
};

static void lb_piece(void *arg, const char *text, size_t len, size_t piece, int whole)
{
    struct lb_ctx *c = arg;
    struct chunk ch;
    struct strbuf id = STRBUF_INIT;
    (void)piece, (void)whole; /* the record's own count numbers every chunk */
    if (c->rc || !len)
        return;
    strbuf_addf(&id, "lb2-%s#%ld", c->rid, c->n++);
    /* a copy, as a C string: text is inside the record's context */
    chunk_view(&ch, id.buf, xmemdup(text, len), len);
    chunk_to_jsonl(&c->im->line, &ch);
    c->rc = write_line(c->im->set, &c->im->line);
    c->im->chunks++;
    free(ch.text);
    strbuf_release(&id);
}

/*
 * One LongBench v2 record (one element of its data.json per line): its context cut into
 * haystack chunks (ids lb2-ID#N, no title), paragraphs at blank lines (the newlines inside
 * kept: code and tables keep their lines; CRLF and CR line ends read as LF) and long paragraphs
 * as a text haystack cuts them (200-word pieces, text without spaces at its sentence ends).
 * The multiple-choice question marks no evidence to place at a depth and is not imported.
 * --limit counts records.
 */
static int import_longbench(struct importer *im, const struct json *j, long lineno)
{
    const char *rid = need_str(im, j, "_id", lineno), *raw, *ctx, *p, *from = NULL, *to = NULL;
    struct lb_ctx c = {im, rid, 0, 0};
    struct strbuf text = STRBUF_INIT;
    if (!rid || !(raw = need_str(im, j, "context", lineno)))
        return -1;
    if (im->limit > 0 && im->questions >= im->limit)
        return 0;
    im->questions++; /* records */
    /* line ends normalised: CRLF and a lone CR are "\n" (a chunk kept a trailing "\r") */
    for (p = raw; *p; p++) {
        if (*p == '\r' && p[1] == '\n')
            continue;
        strbuf_addch(&text, *p == '\r' ? '\n' : *p);
    }
    ctx = text.buf;
    /* line by line: a blank line (only spaces, tabs, CR) ends the paragraph [from, to) */
    for (p = ctx; !c.rc; p++) {
        const char *e = strchr(p, '\n'), *q = p;
        if (!e)
            e = p + strlen(p);
        while (q < e && (*q == ' ' || *q == '\t' || *q == '\r'))
            q++;
        if (q < e) { /* text: the paragraph goes on (or starts here, indentation kept) */
            from = from ? from : p;
            to = e;
        } else if (from) {
            haystack_paragraph_pieces(from, (size_t)(to - from), lb_piece, &c);
            from = NULL;
        }
        if (!*e)
            break;
        p = e;
    }
    if (from && !c.rc)
        haystack_paragraph_pieces(from, (size_t)(to - from), lb_piece, &c);
    strbuf_release(&text);
    if (!c.rc && !c.n)
        return error("%s:%ld: \"context\": no text", im->path, lineno);
    return c.rc;
}

static int run_import(struct importer *im)
{
    struct dataset_lines *r = dataset_lines_open(im->path);
    char *line;
    size_t len;
    long lineno;
    int rc, kind = im->format; /* 1 qa, 2 kv (litm: from the first record), 3 nolima, 4 ruler,
                                  5 longbench-v2 */
    if (!r)
        return -1;
    while ((rc = dataset_lines_next(r, &line, &len, &lineno)) > 0) {
        struct json *j;
        if (!len)
            continue;
        if (!utf8_valid(line, len)) {
            rc = error("%s:%ld: invalid UTF-8", im->path, lineno);
            break;
        }
        j = json_parse(line, len, NULL);
        if (json_kind(j) != JSON_OBJECT) {
            json_free(j);
            rc = error("%s:%ld: not a JSON object", im->path, lineno);
            break;
        }
        if (!kind) {
            kind = json_get(j, "ordered_kv_records") ? 2 : 1;
            if (kind == 2)
                snprintf(im->prefix, sizeof(im->prefix), "kv%d",
                         (int)json_size(json_get(j, "ordered_kv_records")));
        }
        rc = kind == 1   ? import_qa(im, j, lineno)
             : kind == 2 ? import_kv(im, j, lineno)
             : kind == 3 ? import_nolima(im, j, lineno)
             : kind == 4 ? import_ruler(im, j, lineno)
                         : import_longbench(im, j, lineno);
        json_free(j);
        if (rc)
            break;
    }
    dataset_lines_close(r);
    if (rc < 0)
        return -1;
    if (!im->questions)
        return error("%s: no records", im->path);
    return 0;
}

/*
 * The golden set as written, loaded as run and show-prompt load it, before it is kept, and a
 * haystack with a chunk at least: an importer never leaves a file the rest of dipmap refuses
 * (longbench-v2 writes a haystack).
 */
static int check_written(struct importer *im, const char *out, const char *hay_out)
{
    struct golden_set gs;
    if (im->hay && !im->chunks)
        return error("import: no chunk is left for --haystack-out %s (a haystack needs one; with "
                     "a KV file, keep fewer pairs as hard negatives: --kv-negatives N)",
                     hay_out);
    if (im->format == 5)
        return 0;
    if (golden_set_load_mem(&gs, out, im->set_text.buf, im->set_text.len) < 0)
        return error("import: the golden set above would be refused by run: %s is not written",
                     out);
    golden_set_release(&gs);
    return 0;
}

/* The one line on stderr after a written import: what was written where, and what was not. */
static void print_summary(const struct importer *im, const char *out, const char *hay_out)
{
    if (im->format == 5)
        fprintf(stderr,
                "import: %ld record%s -> %ld haystack chunks in %s (their multiple-choice "
                "questions mark no evidence to place at a depth and are not imported)",
                im->questions, im->questions == 1 ? "" : "s", im->chunks, out);
    else
        fprintf(stderr, "import: %ld questions -> %s", im->questions, out);
    if (hay_out)
        fprintf(stderr, ", %ld haystack chunks -> %s", im->chunks, hay_out);
    if (im->skipped)
        fprintf(stderr, " (%ld records without answers skipped)", im->skipped);
    if (im->empty_answers)
        fprintf(stderr, " (%ld answers that are empty once normalised dropped, e.g. \"*\")",
                im->empty_answers);
    if (im->renamed)
        fprintf(stderr, " (%ld ids taken already got their input line as a suffix, -L<line>)",
                im->renamed);
    if (im->outside)
        fprintf(stderr,
                " (%ld questions whose gold does not state the answer marked "
                "\"answer_outside_gold\")",
                im->outside);
    fputc('\n', stderr);
}

int cmd_import(int argc, const char **argv)
{
    const char *out = NULL, *hay_out = NULL, *as = "golden", *kv_question = "sentence";
    long limit = 0, hay_limit = 0, kv_neg = -1, seed = 1;
    int allow_outside = 0;
    struct strvec rest = STRVEC_INIT;
    struct importer im;
    int rc, ret = DM_EXIT_USAGE;
    struct option opts[] = {
        OPT_STRING('o', "out", &out, "FILE",
                   "golden set to write (longbench-v2: the haystack; .gz: compressed; - stdout)"),
        OPT_STRING(0, "haystack-out", &hay_out, "FILE",
                   "haystack to write: every record's passages (QA) or the pairs not used as hard "
                   "negatives (KV)"),
        OPT_LONG(0, "limit", &limit, "N",
                 "write only the first N questions (longbench-v2: records) (0: all)"),
        OPT_LONG(0, "haystack-limit", &hay_limit, "N", "write at most N haystack chunks"),
        OPT_LONG(0, "kv-negatives", &kv_neg, "N",
                 "KV: keep N other pairs of the record as hard negatives (default: all)"),
        OPT_STRING(0, "as", &as, "golden|retrieval",
                   "QA: a golden set (default) or retrieval items: every record's passages as its "
                   "ranked list, in the file's order"),
        OPT_STRING(
            0, "kv-question", &kv_question, "sentence|key",
            "KV: the question as a sentence (default) or the bare key (for the litm-kv templates)"),
        OPT_LONG('s', "seed", &seed, "N",
                 "nolima: the seed of each test's character from character_set (default 1)"),
        OPT_BOOL(0, "allow-answer-outside-gold", &allow_outside,
                 "import a question whose gold does not state its answer (an inference, a label), "
                 "marked \"answer_outside_gold\": true, instead of refusing it"),
        OPT_END(),
    };

    rc = parse_options(argc, argv, opts, import_usage, &rest);
    if (rc)
        return parse_options_exit(rc);
    if (rest.nr != 2 || (strcmp(rest.v[0], "litm") && strcmp(rest.v[0], "nolima") &&
                         strcmp(rest.v[0], "ruler") && strcmp(rest.v[0], "longbench-v2"))) {
        error("import: expected 'litm FILE', 'nolima FILE', 'ruler FILE' or 'longbench-v2 FILE'");
        usage_with_options(stderr, import_usage, opts);
        goto cleanup;
    }
    if (!out) {
        error("import: --out FILE is required");
        goto cleanup;
    }
    if (strcmp(rest.v[0], "litm") && hay_out) {
        error("import: --haystack-out is for litm (%s sets use any text haystack)", rest.v[0]);
        goto cleanup;
    }
    if (seed < 0) {
        error("import: --seed must be >= 0");
        goto cleanup;
    }
    if (strcmp(as, "golden") && strcmp(as, "retrieval")) {
        error("import: --as must be golden or retrieval, not '%s'", as);
        goto cleanup;
    }
    if (strcmp(kv_question, "sentence") && strcmp(kv_question, "key")) {
        error("import: --kv-question must be sentence or key, not '%s'", kv_question);
        goto cleanup;
    }
    memset(&im, 0, sizeof(im));
    im.path = rest.v[1];
    im.as_retrieval = !strcmp(as, "retrieval");
    im.kv_key = !strcmp(kv_question, "key");
    im.limit = limit;
    im.hay_limit = hay_limit;
    im.kv_negatives = kv_neg;
    im.seed = (unsigned long)seed;
    im.format = !strcmp(rest.v[0], "nolima")         ? 3
                : !strcmp(rest.v[0], "ruler")        ? 4
                : !strcmp(rest.v[0], "longbench-v2") ? 5
                                                     : 0;
    im.allow_outside = allow_outside;
    strbuf_init(&im.line, 0);
    strbuf_init(&im.set_text, 0);
    strbuf_init(&im.werr, 0);
    strvec_init(&im.ids);
    snprintf(im.prefix, sizeof(im.prefix), "nq");
    im.set = dataset_writer_open(out, &im.werr);
    if (!im.set)
        goto done;
    if (hay_out && !(im.hay = dataset_writer_open(hay_out, &im.werr)))
        goto done;
    if (run_import(&im) < 0 || check_written(&im, out, hay_out) < 0)
        goto done;
    if (dataset_writer_close(im.set) < 0) {
        im.set = NULL;
        goto done;
    }
    im.set = NULL;
    if (im.hay && dataset_writer_close(im.hay) < 0) {
        im.hay = NULL;
        goto done;
    }
    im.hay = NULL;
    print_summary(&im, out, hay_out);
    ret = DM_EXIT_OK;
done:
    if (im.werr.len)
        error("%s", im.werr.buf);
    strbuf_release(&im.werr);
    dataset_writer_abort(im.set);
    dataset_writer_abort(im.hay);
    strbuf_release(&im.line);
    strbuf_release(&im.set_text);
    strvec_clear(&im.ids);
    hashmap_clear(&im.idx);
cleanup:
    strvec_clear(&rest);
    return ret;
}

/*
 * `dipmap import litm FILE`: converts the Lost-in-the-Middle data files
 * (NQ-open oracle/k-document QA files, key-value retrieval files) into a
 * dipmap golden set plus a haystack of the other records' passages or pairs.
 */
#include <math.h>
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

#include "base/banned.h"

static const char *const import_usage[] = {
    "dipmap import litm FILE --out SET.jsonl[.gz] [--haystack-out HAY.jsonl[.gz]] [--limit N] "
    "[--as golden|retrieval] [--kv-question sentence|key]",
    NULL,
};

struct importer {
    const char *path;
    struct dataset_writer *set, *hay;
    long limit, hay_limit, kv_negatives;
    long questions, chunks, skipped, empty_answers;
    int as_retrieval; /* QA: write retrieval items (the ctxs as given, in file order) */
    int kv_key;       /* KV: the question is the bare key (the paper's prompt names only it) */
    struct strbuf line;
    char prefix[16];
};

static int write_line(struct dataset_writer *w, struct strbuf *sb)
{
    int rc = dataset_writer_write(w, sb->buf, sb->len);
    strbuf_reset(sb);
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
        question_to_jsonl(&im->line, &q);
        free(q.retrieved);
        q.retrieved = NULL;
        q.retrieved_nr = 0;
        rc = write_line(im->set, &im->line);
        im->questions++;
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
    memset(&g, 0, sizeof(g));
    g.id = xstrdup(id.buf);
    g.title = "";
    g.text = gtext.buf;
    g.text_len = gtext.len;
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
                memset(&h, 0, sizeof(h));
                strbuf_addf(&hid, "%s-%04ld-%zu", im->prefix, lineno, i - 1);
                kv_text(&t, json_str(k), json_str(v));
                h.id = hid.buf;
                h.title = "";
                h.text = t.buf;
                h.text_len = t.len;
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
        question_to_jsonl(&im->line, &q);
        rc = write_line(im->set, &im->line);
        im->questions++;
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

static int run_import(struct importer *im)
{
    struct dataset_lines *r = dataset_lines_open(im->path);
    char *line;
    size_t len;
    long lineno;
    int rc, kind = 0; /* 1 qa, 2 kv */
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
        rc = kind == 1 ? import_qa(im, j, lineno) : import_kv(im, j, lineno);
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

int cmd_import(int argc, const char **argv)
{
    const char *out = NULL, *hay_out = NULL, *as = "golden", *kv_question = "sentence";
    long limit = 0, hay_limit = 0, kv_neg = -1;
    struct strvec rest = STRVEC_INIT;
    struct importer im;
    int rc, ret = DM_EXIT_USAGE;
    struct option opts[] = {
        {OPT_STRING, "out", 'o', &out, "FILE", "golden set to write (.gz: compressed; - stdout)",
         0},
        {OPT_STRING, "haystack-out", 0, &hay_out, "FILE",
         "haystack to write: every record's passages (QA) or the pairs not used as hard "
         "negatives (KV)",
         0},
        {OPT_LONG, "limit", 'n', &limit, "N", "write only the first N questions (0: all)", 0},
        {OPT_LONG, "haystack-limit", 0, &hay_limit, "N", "write at most N haystack chunks", 0},
        {OPT_LONG, "kv-negatives", 0, &kv_neg, "N",
         "KV: keep N other pairs of the record as hard negatives (default: all)", 0},
        {OPT_STRING, "as", 0, &as, "golden|retrieval",
         "QA: a golden set (default) or retrieval items: every record's passages as its "
         "ranked list, in the file's order",
         0},
        {OPT_STRING, "kv-question", 0, &kv_question, "sentence|key",
         "KV: the question as a sentence (default) or the bare key (for the litm-kv templates)", 0},
        OPT_END_MARK,
    };

    rc = parse_options(argc, argv, opts, import_usage, &rest);
    if (rc)
        return rc > 0 ? DM_EXIT_OK : DM_EXIT_USAGE;
    if (rest.nr != 2 || strcmp(rest.v[0], "litm")) {
        error("import: expected 'litm FILE'");
        usage_with_options(stderr, import_usage, opts);
        goto cleanup;
    }
    if (!out) {
        error("import: --out FILE is required");
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
    strbuf_init(&im.line, 0);
    snprintf(im.prefix, sizeof(im.prefix), "nq");
    im.set = dataset_writer_open(out);
    if (!im.set)
        goto done;
    if (hay_out && !(im.hay = dataset_writer_open(hay_out)))
        goto done;
    if (run_import(&im) < 0)
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
    fprintf(stderr, "import: %ld questions -> %s", im.questions, out);
    if (hay_out)
        fprintf(stderr, ", %ld haystack chunks -> %s", im.chunks, hay_out);
    if (im.skipped)
        fprintf(stderr, " (%ld records without answers skipped)", im.skipped);
    if (im.empty_answers)
        fprintf(stderr, " (%ld answers that are empty once normalised dropped, e.g. \"*\")",
                im.empty_answers);
    fputc('\n', stderr);
    ret = DM_EXIT_OK;
done:
    dataset_writer_abort(im.set);
    dataset_writer_abort(im.hay);
    strbuf_release(&im.line);
cleanup:
    strvec_clear(&rest);
    return ret;
}

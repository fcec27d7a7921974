/*
 * `dipmap score --scorer NAME FILE.jsonl`: score given (answer, answers)
 * pairs with a scorer exactly as `run` does (reasoning split off first), and
 * check them against expected scores when the file has them (published
 * scoring vectors). Owns only the command-line surface and the line format.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "prompt/dataset.h"
#include "base/json.h"
#include "base/opt.h"
#include "client/reasoning.h"
#include "run/score.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/usage.h"
#include "base/xalloc.h"

#include "base/banned.h"

static const char *const score_usage[] = {
    "dipmap score --scorer NAME [--reasoning-tags OPEN,CLOSE] [--each] FILE.jsonl",
    "",
    "Each line is a JSON object: \"answer\" (or \"model_answer\") is the model's output;",
    "\"answers\" (array of strings) or \"value\" (string, the kv form) the gold answers;",
    "optional \"answer_regex\" and \"scorer\" as in a golden set; optional expected score",
    "\"expected\" (or \"score\", or \"accuracy\"), 0 or 1. Exit 1 when a score differs",
    "from the expected one, 2 on bad input.",
    NULL,
};

struct score_line {
    const char *id;
    const char *answer;
    struct strvec golds;
    const char *regex, *scorer;
    double expected; /* -1: not given */
};

/* Fields of one line; returns 0 or -1 after an error naming file:line and the field. */
static int parse_line(const char *path, long lineno, const struct json *o, struct score_line *l)
{
    static const char *const answer_fields[] = {"answer", "model_answer"};
    static const char *const expected_fields[] = {"expected", "score", "accuracy"};
    struct strbuf where = STRBUF_INIT, err = STRBUF_INIT;
    const struct json *f, *e;
    size_t i;
    int rc = -1;

    strbuf_addf(&where, "%s:%ld", path, lineno);
    l->answer = NULL;
    for (i = 0; i < 2 && !l->answer; i++)
        if (json_want_str(o, answer_fields[i], where.buf, &l->answer, &err) < 0)
            goto out;
    if (!l->answer) {
        strbuf_addf(&err, "%s: needs \"answer\" (or \"model_answer\"), a string", where.buf);
        goto out;
    }
    f = json_get(o, "answers");
    if (f) {
        if (json_kind(f) != JSON_ARRAY)
            goto bad_answers;
        for (e = json_first(f); e; e = json_next(e)) {
            if (!json_str(e))
                goto bad_answers;
            strvec_push(&l->golds, json_str(e));
        }
    } else if (json_get_str(o, "value")) {
        strvec_push(&l->golds, json_get_str(o, "value"));
    } else {
        strbuf_addf(&err, "%s: needs \"answers\" (array of strings) or \"value\" (string)",
                    where.buf);
        goto out;
    }
    l->id = json_get_str(o, "id");
    l->regex = json_get_str(o, "answer_regex");
    l->scorer = json_get_str(o, "scorer");
    l->expected = -1;
    for (i = 0; i < 3; i++) {
        double v = -1;
        int got = json_want_num(o, expected_fields[i], where.buf, &v, &err);
        if (got == 1)
            continue;
        if (got < 0 || (v != 0 && v != 1)) {
            strbuf_reset(&err);
            strbuf_addf(&err, "%s: \"%s\" must be 0 or 1", where.buf, expected_fields[i]);
            goto out;
        }
        l->expected = v;
        break;
    }
    rc = 0;
    goto out;
bad_answers:
    strbuf_addf(&err, "%s: \"answers\" must be an array of strings", where.buf);
out:
    if (rc)
        error("%s", err.buf);
    strbuf_release(&where);
    strbuf_release(&err);
    return rc;
}

int cmd_score(int argc, const char **argv)
{
    const char *scorer_arg = NULL, *tags = NULL;
    int each = 0;
    struct option opts[] = {
        OPT_STRING(0, "scorer", &scorer_arg, "NAME", "litm, kv, contains, exact, regex, all"),
        OPT_STRING(
            0, "reasoning-tags", &tags, "OPEN,CLOSE",
            "inline reasoning block tags split off before scoring (default <think>,</think>)"),
        OPT_BOOL(0, "each", &each, "print LINE<TAB>ID<TAB>SCORE for every line"),
        OPT_END(),
    };
    struct strvec rest = STRVEC_INIT;
    struct dataset_lines *r = NULL;
    struct strbuf err = STRBUF_INIT, answer = STRBUF_INIT;
    char *open = NULL, *close = NULL, *line;
    enum scorer_kind run_scorer;
    size_t len;
    long lineno, n = 0, correct = 0, checked = 0, differ = 0;
    int rc = DM_EXIT_USAGE, lrc;
    int prc = parse_options(argc, argv, opts, score_usage, &rest);

    if (prc) {
        strvec_clear(&rest);
        return parse_options_exit(prc);
    }
    if (!scorer_arg || scorer_parse(scorer_arg, &run_scorer) < 0) {
        error("score: --scorer must be one of %s%s%s", scorer_names(), scorer_arg ? ", got " : "",
              scorer_arg ? scorer_arg : "");
        goto out;
    }
    if (rest.nr != 1) {
        error("score: give exactly one FILE.jsonl");
        usage_with_options(stderr, score_usage, opts);
        goto out;
    }
    if (tags && reasoning_tags_parse(tags, &open, &close, &err) < 0) {
        error("score: --reasoning-tags: %s", err.buf);
        goto out;
    }
    r = dataset_lines_open(rest.v[0]);
    if (!r)
        goto out;
    while ((lrc = dataset_lines_next(r, &line, &len, &lineno)) > 0) {
        struct score_line l = {0};
        enum scorer_kind k;
        struct json *o;
        double s = 0;
        int bad;

        if (strspn(line, " \t\r") == len)
            continue;
        o = json_parse(line, len, NULL);
        if (json_kind(o) != JSON_OBJECT) {
            json_free(o);
            error("%s:%ld: must be a JSON object", rest.v[0], lineno);
            goto out;
        }
        strvec_init(&l.golds);
        bad = parse_line(rest.v[0], lineno, o, &l);
        if (!bad && score_resolve(run_scorer, l.scorer, l.regex, &k) < 0)
            bad = error("%s:%ld: unknown scorer '%s' (one of %s)", rest.v[0], lineno, l.scorer,
                        scorer_names());
        if (!bad) {
            strbuf_reset(&answer);
            strbuf_reset(&err);
            reasoning_split(l.answer, open, close, &answer, NULL);
            if (score_answer(k, answer.buf, (const char *const *)l.golds.v, l.golds.nr, l.regex, &s,
                             &err) < 0)
                bad = error("%s:%ld: %s", rest.v[0], lineno, err.buf);
        }
        if (!bad) {
            n++;
            correct += s >= 0.5;
            if (each)
                printf("%ld\t%s\t%g\n", lineno, l.id ? l.id : "-", s);
            if (l.expected >= 0) {
                checked++;
                if (s != l.expected) {
                    differ++;
                    fprintf(stderr, "%s:%ld: %s%sscored %g, expected %g\n", rest.v[0], lineno,
                            l.id ? l.id : "", l.id ? ": " : "", s, l.expected);
                }
            }
        }
        strvec_clear(&l.golds);
        json_free(o);
        if (bad)
            goto out;
    }
    if (lrc < 0)
        goto out;
    if (!n) {
        error("%s: no answers to score", rest.v[0]);
        goto out;
    }
    printf("%s: %ld answers scored with %s: %ld correct (%.4f)\n", rest.v[0], n,
           scorer_name(run_scorer), correct, (double)correct / (double)n);
    if (checked)
        printf("%ld of %ld agree with the expected score%s\n", checked - differ, checked,
               differ ? "" : " (all)");
    rc = differ ? DM_EXIT_REGRESSION : DM_EXIT_OK;
out:
    dataset_lines_close(r);
    score_cache_clear();
    free(open);
    free(close);
    strbuf_release(&err);
    strbuf_release(&answer);
    strvec_clear(&rest);
    return rc;
}

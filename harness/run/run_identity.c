/*
 * Run identity (see run_identity.h): the input hashes, the tokenizer rule,
 * and settings compared as JSON up to key order.
 */
#include "run/run_identity.h"

#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "store/store.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

#include "base/banned.h"

static int str_eq(const char *a, const char *b)
{
    if (!a || !b)
        return !a && !b;
    return !strcmp(a, b);
}

static void short_hash(struct strbuf *out, const char *h)
{
    if (!h)
        strbuf_addstr(out, "(none)");
    else if (strlen(h) > 12)
        strbuf_addf(out, "%.12s\xe2\x80\xa6", h);
    else
        strbuf_addstr(out, h);
}

/* Compares one column; on a difference records the first field and a line in why. */
static int check_field(const char *what, const char *column, const char *a, const char *b,
                       const char **field, struct strbuf *why)
{
    if (str_eq(a, b))
        return 1;
    if (field && !*field)
        *field = column;
    if (why) {
        strbuf_addf(why, "%s differs: %s ", what, column);
        short_hash(why, a);
        strbuf_addstr(why, " vs ");
        short_hash(why, b);
        strbuf_addch(why, '\n');
    }
    return 0;
}

static const char *tokenizer_hash_of(const struct run_info *r)
{
    const char *h = r->tokenizer_sha256;
    return h && *h && strcmp(h, "unknown") ? h : NULL;
}

int run_identity_same_inputs(const struct run_info *a, const struct run_info *b, const char **field,
                             struct strbuf *why)
{
    const char *ha = tokenizer_hash_of(a), *hb = tokenizer_hash_of(b);
    int same = 1;

    if (field)
        *field = NULL;
    same &=
        check_field("golden set", "golden_sha256", a->golden_sha256, b->golden_sha256, field, why);
    same &= check_field("haystack", "haystack_sha256", a->haystack_sha256, b->haystack_sha256,
                        field, why);
    same &= check_field("template", "template_sha256", a->template_sha256, b->template_sha256,
                        field, why);
    if (ha || hb)
        same &= check_field("tokenizer", "tokenizer_sha256", ha, hb, field, why);
    else
        same &= check_field("tokenizer", "tokenizer_name", a->tokenizer_name, b->tokenizer_name,
                            field, why);
    return same;
}

char *run_identity_canonical_json(const char *json)
{
    struct json *root = json_parse_str(json);
    char *ret;
    if (!root)
        return NULL;
    json_sort_keys(root);
    ret = json_print_str(root, 0);
    json_free(root);
    return ret;
}

/* Equal as JSON up to object key order (the stored form is canonical, a caller's may not be). */
static int same_json(const char *a, const char *b)
{
    char *ca, *cb;
    int same;
    if (!a || !b)
        return !a && !b;
    if (!strcmp(a, b))
        return 1;
    ca = run_identity_canonical_json(a);
    cb = run_identity_canonical_json(b);
    same = ca && cb && !strcmp(ca, cb);
    free(ca);
    free(cb);
    return same;
}

int run_identity_same_run(const struct run_info *a, const struct run_info *b, const char **field,
                          struct strbuf *why)
{
    const char *first = NULL;
    int same = check_field("model", "model_requested", a->model_requested, b->model_requested,
                           &first, why);
    const char *in_field = NULL;

    if (!run_identity_same_inputs(a, b, &in_field, why)) {
        same = 0;
        if (!first)
            first = in_field;
    }
    if (!same_json(a->settings_json, b->settings_json)) {
        same = 0;
        if (!first)
            first = "settings_json";
        if (why)
            strbuf_addstr(why, "settings differ\n");
    }
    if (field)
        *field = first;
    return same;
}

void run_identity_scoring(const struct run_info *r, struct strbuf *out)
{
    struct json *o = json_parse_str(r->settings_json);
    const char *sc = json_get_str(o, "scorer"), *tags = json_get_str(o, "reasoning-tags");
    if (r->scorer_version)
        strbuf_addstr(out, r->scorer_version);
    else
        strbuf_addf(out, "%s/1", sc ? sc : "contains");
    if (tags)
        strbuf_addf(out, " tags %s", tags);
    json_free(o);
}

int run_identity_same_scoring(const struct run_info *a, const struct run_info *b,
                              struct strbuf *why)
{
    struct strbuf sa = STRBUF_INIT, sb = STRBUF_INIT;
    int same;
    run_identity_scoring(a, &sa);
    run_identity_scoring(b, &sb);
    same = !strcmp(sa.buf, sb.buf);
    if (!same && why)
        strbuf_addf(why, "scored differently: %s vs %s\n", sa.buf, sb.buf);
    strbuf_release(&sa);
    strbuf_release(&sb);
    return same;
}

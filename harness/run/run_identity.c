/*
 * Run identity (see run_identity.h): the input hashes, the tokenizer rule,
 * and settings compared as JSON up to key order.
 */
#include "run/run_identity.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "store/store.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "base/strvec.h"
#include "prompt/layout.h"
#include "run/plan.h"
#include "run/score.h"

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

/* Does the settings' layout axis hold the layout named name? */
static int uses_layout(const struct json *root, const char *name)
{
    const struct json *v = json_get(json_get(root, "axes"), "layout");
    for (size_t i = 0; i < json_size(v); i++) {
        const char *l = json_str(json_at(v, i));
        if (l && !strcmp(l, name))
            return 1;
    }
    return 0;
}

/*
 * "turn-overhead" and "turn-suffix" hold only the layouts the run's layout axis uses: runs
 * recorded before that wrote every layout's (the unused ones 0), and a layout added since
 * must not change an older run's identity.
 */
static void only_used_layouts(struct json *root)
{
    static const char *const keys[] = {"turn-overhead", "turn-suffix"};
    for (size_t k = 0; k < sizeof(keys) / sizeof(*keys); k++) {
        struct json *o = (struct json *)json_get(root, keys[k]);
        struct strvec drop = STRVEC_INIT;
        if (!o)
            continue;
        for (const struct json *m = json_first(o); m; m = json_next(m))
            if (!uses_layout(root, json_key(m)))
                strvec_push(&drop, json_key(m));
        for (size_t i = 0; i < drop.nr; i++)
            json_remove(o, drop.v[i]);
        strvec_clear(&drop);
        if (!json_size(o))
            json_remove(root, keys[k]);
    }
}

char *run_identity_canonical_json(const char *json)
{
    struct json *root = json_parse_str(json);
    char *ret;
    if (!root)
        return NULL;
    only_used_layouts(root);
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

int run_identity_same_series(const struct run_info *a, const struct run_info *b, const char **field,
                             struct strbuf *why)
{
    static const char *const keys[] = {"lengths", "depths_bp", "axes", "experiment"};
    struct json *ja = json_parse_str(a->settings_json), *jb = json_parse_str(b->settings_json);
    const char *first = NULL;
    int same = run_identity_same_inputs(a, b, &first, why);
    size_t i;

    for (i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
        const struct json *va = ja ? json_get(ja, keys[i]) : NULL;
        const struct json *vb = jb ? json_get(jb, keys[i]) : NULL;
        if (va || vb ? va && vb && json_equal(va, vb) : 1)
            continue;
        same = 0;
        if (!first)
            first = keys[i];
        if (why)
            strbuf_addf(why, "trial matrix differs: %s\n", keys[i]);
    }
    json_free(ja);
    json_free(jb);
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

/* The settings that change what a trial measures: part of the run's identity. */
char *run_identity_settings(const struct run_identity_opts *o, const struct plan_spec *spec,
                            const char *scorer, const char *extra_body, long overhead,
                            const char *special)
{
    struct json *root = json_new_object(), *arr, *given;
    char *ret;
    size_t i, j;
    const long *lengths = spec->lengths;
    const int *depths = spec->depths_bp;
    size_t nl = spec->lengths_nr, nd = spec->depths_nr;

    /* Keys in sorted order: the store keeps settings canonical and compares them as text. */
    if (spec->absent > 0 && o->abstain) {
        /* needle-absent trials, only when given: the share and the abstention detector */
        struct json *ab = json_add_object(root, "absent");
        json_add_str(ab, "phrase", o->abstain->phrase);
        if (o->abstain->regex_nr) {
            arr = json_add_array(ab, "regex");
            for (i = 0; i < o->abstain->regex_nr; i++)
                json_add_str(arr, NULL, o->abstain->regex[i]);
        }
        json_add_num(ab, "share", spec->absent);
    }
    if (spec->axes_nr) {
        /* named axes, only when given (runs without them keep their identity); sorted names */
        struct json *ax = json_add_object(root, "axes");
        const struct plan_axis *sorted[RUN_IDENTITY_AXES_MAX];
        size_t n = spec->axes_nr < RUN_IDENTITY_AXES_MAX ? spec->axes_nr : RUN_IDENTITY_AXES_MAX;
        for (i = 0; i < n; i++) {
            sorted[i] = &spec->axes[i];
            for (j = i; j > 0 && strcmp(sorted[j - 1]->name, sorted[j]->name) > 0; j--) {
                const struct plan_axis *t = sorted[j];
                sorted[j] = sorted[j - 1];
                sorted[j - 1] = t;
            }
        }
        for (i = 0; i < n; i++) {
            arr = json_add_array(ax, sorted[i]->name);
            for (j = 0; j < sorted[i]->values_nr; j++)
                json_add_str(arr, NULL, sorted[i]->values[j]);
        }
    }
    json_add_bool(root, "completions", o->completions);
    arr = json_add_array(root, "depths_bp");
    for (i = 0; i < nd; i++)
        json_add_num(arr, NULL, depths[i]);
    /* added only when given, so runs made before these options keep their identity */
    /* the order experiment's policies, k, grouping, budget and rank distribution */
    /* both are JSON we checked (validate_order(), client_extra_body_check()) */
    if ((given = json_parse_str(o->experiment_json)))
        json_add(root, "experiment", given);
    if ((given = json_parse_str(extra_body)))
        json_add(root, "extra-body", given);
    arr = json_add_array(root, "lengths");
    for (i = 0; i < nl; i++)
        json_add_num(arr, NULL, (double)lengths[i]);
    json_add_num(root, "max-tokens", (double)o->max_tokens);
    json_add_str(root, "max-tokens-field", o->max_tokens_field);
    if (o->reasoning_effort)
        json_add_str(root, "reasoning-effort", o->reasoning_effort);
    if (o->reasoning_tags)
        json_add_str(root, "reasoning-tags", o->reasoning_tags);
    if (o->controls)
        json_add_str(root, "controls", o->controls);
    json_add_num(root, "repeats", (double)o->repeats);
    json_add_str(root, "scorer", scorer);
    json_add_num(root, "seed", (double)o->seed);
    /* how special-token text in prompts was counted: parse, plain, or server */
    json_add_str(root, "special", special);
    json_add_num(root, "temperature", o->temperature);
    /* what prompts are built against (content + overhead = length); absent when 0 */
    if (overhead > 0)
        json_add_num(root, "template-overhead", (double)overhead);
    json_add_num(root, "top-p", o->top_p);
    if (o->turn_cost) {
        /* what layout prompts are built against: the server's tokens per turn pair ... */
        struct json *to = json_add_object(root, "turn-overhead"), *ts = NULL;
        for (int l = 0; l < PROMPT_LAYOUT__COUNT; l++)
            if (prompt_layout_in_turns(l))
                json_add_num(to, prompt_layout_name(l), (double)o->turn_cost[l].per_pair);
        /* ... and the text after a turn that its end merges with (only when any) */
        for (int l = 0; l < PROMPT_LAYOUT__COUNT; l++)
            if (prompt_layout_in_turns(l) && o->turn_cost[l].suffix[0]) {
                if (!ts)
                    ts = json_add_object(root, "turn-suffix");
                json_add_str(ts, prompt_layout_name(l), o->turn_cost[l].suffix);
            }
    }
    only_used_layouts(root);
    ret = json_print_str(root, 0);
    json_free(root);
    return ret;
}

int run_identity_abstain(const char *settings_json, double *share, struct abstain_rule *r,
                         struct abstain_keep *keep)
{
    struct json *j = json_parse_str(settings_json);
    const struct json *ab = json_get(j, "absent"), *re;
    const char *phrase = json_get_str(ab, "phrase");
    memset(keep, 0, sizeof(*keep));
    memset(r, 0, sizeof(*r));
    *share = 0;
    if (!ab || !phrase) {
        json_free(j);
        return 0;
    }
    *share = json_num(json_get(ab, "share"), 0);
    keep->phrase = xstrdup(phrase);
    re = json_get(ab, "regex");
    keep->regex = xcalloc(json_size(re) + 1, sizeof(*keep->regex));
    for (size_t i = 0; i < json_size(re); i++) {
        const char *s = json_str(json_at(re, i));
        if (s)
            keep->regex[keep->regex_nr++] = xstrdup(s);
    }
    r->phrase = keep->phrase;
    r->regex = (const char *const *)keep->regex;
    r->regex_nr = keep->regex_nr;
    json_free(j);
    return 1;
}

void run_identity_abstain_release(struct abstain_keep *keep)
{
    free(keep->phrase);
    for (size_t i = 0; i < keep->regex_nr; i++)
        free(keep->regex[i]);
    free(keep->regex);
    memset(keep, 0, sizeof(*keep));
}

/* The "template-overhead" of a stored run's settings (0 when absent: older runs, or none). */
long run_identity_settings_overhead(const char *json)
{
    struct json *j = json_parse_str(json);
    double v = json_num(json_get(j, "template-overhead"), 0);
    long n = v > 0 ? (long)v : 0;
    json_free(j);
    return n;
}

void run_identity_settings_turn_cost(const char *json, struct prompt_turn_cost *to)
{
    struct json *j = json_parse_str(json);
    const struct json *o = json_get(j, "turn-overhead"), *s = json_get(j, "turn-suffix");
    for (int l = 0; l < PROMPT_LAYOUT__COUNT; l++) {
        const char *v = l ? json_get_str(s, prompt_layout_name(l)) : NULL;
        to[l].per_pair = l ? (long)json_num(json_get(o, prompt_layout_name(l)), 0) : 0;
        snprintf(to[l].suffix, sizeof(to[l].suffix), "%s", v ? v : "");
    }
    json_free(j);
}

/* Name the first setting that differs between two identity JSON objects. */
void run_identity_describe_settings_diff(const char *a, const char *b, struct strbuf *out)
{
    struct json *ja = json_parse_str(a ? a : "{}"), *jb = json_parse_str(b ? b : "{}");
    const struct json *it;
    if (ja && jb) {
        for (it = json_first(ja); it; it = json_next(it)) {
            const struct json *other = json_get(jb, json_key(it));
            if (!other || !json_equal(it, other)) {
                char *va = json_print_str(it, 0);
                char *vb = other ? json_print_str(other, 0) : NULL;
                strbuf_addf(out, "setting \"%s\" was %s, now %s", json_key(it), va,
                            vb ? vb : "unset");
                free(va);
                free(vb);
                break;
            }
        }
    }
    if (!out->len)
        strbuf_addstr(out, "settings differ");
    json_free(ja);
    json_free(jb);
}

int run_identity_is_order(const struct run_info *r)
{
    struct json *o = json_parse_str(r ? r->settings_json : NULL);
    const char *name = json_get_str(json_get(o, "experiment"), "name");
    int order = name && !strcmp(name, "order");
    json_free(o);
    return order;
}

static int same_str(const char *a, const char *b)
{
    return a && b && !strcmp(a, b);
}

int run_identity_same_curve(const struct run_info *a, const struct run_info *r)
{
    return same_str(a->model_requested, r->model_requested) &&
           same_str(a->template_sha256, r->template_sha256) &&
           same_str(a->tokenizer_sha256, r->tokenizer_sha256) && !run_identity_is_order(r);
}

char *run_identity_rescored(const char *settings, const char *scorer, const char *tags)
{
    struct json *o = json_parse_str(settings);
    char *printed, *ret;
    if (json_kind(o) != JSON_OBJECT) {
        json_free(o);
        o = json_new_object();
    }
    json_remove(o, "scorer");
    json_add_str(o, "scorer", scorer);
    if (tags) {
        json_remove(o, "reasoning-tags");
        json_add_str(o, "reasoning-tags", tags);
    }
    printed = json_print_str(o, 0);
    json_free(o);
    ret = run_identity_canonical_json(printed);
    free(printed);
    return ret;
}

char *run_identity_reasoning_tags(const char *settings)
{
    struct json *o = json_parse_str(settings);
    const char *t = json_get_str(o, "reasoning-tags");
    char *ret = t ? xstrdup(t) : NULL;
    json_free(o);
    return ret;
}

/* The settings that shape a prompt's bytes beside its trial key, equal in a and b? */
static int same_prompt_settings(const struct run_info *a, const struct run_info *b)
{
    static const char *const keys[] = {"seed",        "template-overhead", "turn-overhead",
                                       "turn-suffix", "completions",       "special",
                                       "experiment"};
    char *ca = run_identity_canonical_json(a->settings_json);
    char *cb = run_identity_canonical_json(b->settings_json);
    struct json *ja = json_parse_str(ca ? ca : "{}"), *jb = json_parse_str(cb ? cb : "{}");
    int same = ja && jb;
    for (size_t i = 0; same && i < sizeof(keys) / sizeof(*keys); i++) {
        const struct json *x = json_get(ja, keys[i]), *y = json_get(jb, keys[i]);
        same = (!x && !y) || (x && y && json_equal(x, y));
    }
    json_free(ja);
    json_free(jb);
    free(ca);
    free(cb);
    return same;
}

int run_identity_same_prompts(struct store *sa, const struct run_info *a, struct store *sb,
                              const struct run_info *b, struct strbuf *why)
{
    struct strvec x = STRVEC_INIT, y = STRVEC_INIT;
    size_t i = 0, j = 0, shared = 0, differ = 0, first = 0;
    int ret = 1;

    if (!run_identity_same_inputs(a, b, NULL, NULL) || !same_prompt_settings(a, b))
        return 1; /* built from other inputs or settings: their prompts may differ */
    if (store_trial_prompt_index(sa, a->name, &x) < 0 ||
        store_trial_prompt_index(sb, b->name, &y) < 0) {
        ret = -1;
        goto out;
    }
    while (i < x.nr && j < y.nr) {
        const char *tx = strchr(x.v[i], '\t'), *ty = strchr(y.v[j], '\t');
        size_t lx = (size_t)(tx - x.v[i]), ly = (size_t)(ty - y.v[j]);
        int c = strncmp(x.v[i], y.v[j], lx < ly ? lx : ly);
        if (!c)
            c = lx < ly ? -1 : lx > ly;
        if (c < 0) {
            i++;
        } else if (c > 0) {
            j++;
        } else {
            shared++;
            if (strcmp(tx, ty) && !differ++)
                first = i;
            i++;
            j++;
        }
    }
    if (differ) {
        const char *tx = strchr(x.v[first], '\t');
        size_t k;
        for (k = 0; k < y.nr && strncmp(y.v[k], x.v[first], (size_t)(tx - x.v[first]) + 1); k++)
            ;
        ret = 0;
        if (why)
            strbuf_addf(why,
                        "they sent other prompts for the same trials: %zu of %zu shared trial "
                        "keys (first %.*s: prompt %.12s... vs %.12s...)\n",
                        differ, shared, (int)(tx - x.v[first]), x.v[first], tx + 1,
                        k < y.nr ? strchr(y.v[k], '\t') + 1 : "?");
    }
out:
    strvec_clear(&x);
    strvec_clear(&y);
    return ret;
}

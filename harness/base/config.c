/*
 * JSON config files for option-table commands: a file's keys set the options
 * the command line left unset (flags override), and the effective settings
 * are serialised back to JSON for the run record. Owns the strings it sets.
 */
#include "base/config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/num.h"
#include "base/opt.h"
#include "base/strbuf.h"
#include "base/suggest.h"
#include "base/usage.h"
#include "base/xalloc.h"

#include "base/banned.h"

/* Config files are small; refuse anything absurd rather than parse it. */
#define CONFIG_MAX_BYTES (4u << 20)

void config_init(struct config *c)
{
    strvec_init(&c->values);
}

void config_release(struct config *c)
{
    strvec_clear(&c->values);
}

/* "max_tokens" -> "max-tokens" */
static struct option *find_key(struct option *opts, const char *key)
{
    struct strbuf sb = STRBUF_INIT;
    struct option *o = opt_find(opts, key);
    size_t i;
    if (o && o->type != OPTION_GROUP)
        return o;
    strbuf_addstr(&sb, key);
    for (i = 0; i < sb.len; i++)
        if (sb.buf[i] == '_')
            sb.buf[i] = '-';
    o = opt_find(opts, sb.buf);
    strbuf_release(&sb);
    return o && o->type != OPTION_GROUP ? o : NULL;
}

static int in_list(const char *const *list, const char *name)
{
    for (; list && *list; list++)
        if (!strcmp(*list, name))
            return 1;
    return 0;
}

/* A scalar JSON value as option text: strings as is, integral numbers without ".0". */
static int scalar_text(const struct json *v, struct strbuf *out)
{
    if (json_str(v)) {
        strbuf_addstr(out, json_str(v));
        return 0;
    }
    if (json_kind(v) == JSON_NUMBER) {
        double d = json_num(v, 0);
        if (d == floor(d) && fabs(d) < 9e15)
            strbuf_addf(out, "%.0f", d);
        else
            strbuf_addf(out, "%.17g", d);
        return 0;
    }
    return -1;
}

static int bad_type(struct strbuf *err, const char *path, const char *key, const char *want)
{
    return error_to(err, "%s: \"%s\" must be %s", path, key, want);
}

static int apply_one(struct config *c, const char *path, struct option *o, const struct json *v,
                     struct strbuf *err)
{
    struct strbuf sb = STRBUF_INIT;
    const char *key = o->long_name;
    int ret = 0;

    switch (o->type) {
    case OPTION_BOOL:
        if (json_kind(v) != JSON_BOOL)
            return bad_type(err, path, key, "true or false");
        *(int *)o->value = json_is_true(v);
        break;
    case OPTION_LONG: {
        long n;
        if (scalar_text(v, &sb) < 0 || parse_long(sb.buf, &n) < 0)
            ret = bad_type(err, path, key, "an integer");
        else
            *(long *)o->value = n;
        break;
    }
    case OPTION_DOUBLE: {
        double d;
        if (scalar_text(v, &sb) < 0 || parse_double(sb.buf, &d) < 0)
            ret = bad_type(err, path, key, "a number");
        else
            *(double *)o->value = d;
        break;
    }
    case OPTION_POINTS: {
        double d;
        if (scalar_text(v, &sb) < 0 || parse_points(sb.buf, &d) < 0)
            ret = bad_type(err, path, key, PARSE_POINTS_FORMS);
        else
            *(double *)o->value = d;
        break;
    }
    case OPTION_STRING:
        if (json_kind(v) == JSON_ARRAY) {
            const struct json *e;
            int first = 1;
            for (e = json_first(v); e; e = json_next(e)) {
                if (!first)
                    strbuf_addch(&sb, ',');
                first = 0;
                if (scalar_text(e, &sb) < 0) {
                    ret = bad_type(err, path, key, "a string, a number or an array of them");
                    break;
                }
            }
        } else if (scalar_text(v, &sb) < 0) {
            ret = bad_type(err, path, key, "a string or a number");
        }
        if (!ret)
            *(const char **)o->value = strvec_push(&c->values, sb.buf);
        break;
    case OPTION_LIST: {
        struct strvec *sv = o->value;
        if (json_kind(v) == JSON_ARRAY) {
            const struct json *e;
            for (e = json_first(v); e; e = json_next(e)) {
                strbuf_reset(&sb);
                if (scalar_text(e, &sb) < 0) {
                    ret = bad_type(err, path, key, "a string or an array of strings");
                    break;
                }
                strvec_push(sv, sb.buf);
            }
        } else if (scalar_text(v, &sb) == 0) {
            strvec_push(sv, sb.buf);
        } else {
            ret = bad_type(err, path, key, "a string or an array of strings");
        }
        break;
    }
    default:
        ret = error_to(err, "%s: \"%s\" is not a settable option", path, key);
    }
    strbuf_release(&sb);
    if (!ret)
        o->seen = 2;
    return ret;
}

/*
 * An unknown key: the file, the key's line and the nearest option name
 * ("lenghts" -> "lengths"), so a typo is not silently a default.
 */
static void unknown_key(const char *path, const struct strbuf *text, const char *key,
                        const struct option *opts, struct strbuf *err)
{
    struct strbuf pat = STRBUF_INIT;
    const char **names;
    const char *near, *at;
    size_t n = 0, i;
    long line = 1;
    for (i = 0; opts[i].type != OPTION_END; i++)
        n++;
    names = xcalloc(n + 1, sizeof(*names));
    for (i = 0, n = 0; opts[i].type != OPTION_END; i++)
        if (opts[i].long_name && strcmp(opts[i].long_name, "config"))
            names[n++] = opts[i].long_name;
    near = suggest_name(key, names);
    strbuf_addf(&pat, "\"%s\"", key);
    at = strstr(text->buf, pat.buf);
    for (i = 0; at && text->buf + i < at; i++)
        line += text->buf[i] == '\n';
    if (near)
        error_to(err, "%s:%ld: unknown setting \"%s\" (did you mean \"%s\"?)", path, line, key,
                 near);
    else
        error_to(err,
                 "%s:%ld: unknown setting \"%s\" (the keys are the command's long option names)",
                 path, line, key);
    free(names);
    strbuf_release(&pat);
}

int config_apply_file(struct config *c, const char *path, struct option *opts,
                      const char *const *refused, const char *refused_hint, struct strbuf *err)
{
    struct strbuf sb = STRBUF_INIT;
    struct json *root = NULL;
    const struct json *item;
    size_t bad_at = 0;
    int ret = -1;

    strbuf_set_cap(&sb, CONFIG_MAX_BYTES);
    if (strbuf_read_file(&sb, path) < 0) {
        error_to(err, "cannot read config file %s: %s", path,
                 errno == EFBIG ? "file too large" : strerror(errno));
        goto cleanup;
    }
    root = json_parse_at(sb.buf, sb.len, &bad_at);
    if (!root) {
        long line = 1;
        size_t i;
        for (i = 0; i < bad_at; i++)
            line += sb.buf[i] == '\n';
        error_to(err, "%s:%ld: not valid JSON", path, line);
        goto cleanup;
    }
    if (json_kind(root) != JSON_OBJECT) {
        error_to(err, "%s: a config file must be a JSON object of option names and values", path);
        goto cleanup;
    }
    for (item = json_first(root); item; item = json_next(item)) {
        struct option *o;
        const char *key = json_key(item);
        if (!strcmp(key, "config")) {
            error_to(err,
                     "%s: \"config\" cannot be set in a config file (a config file cannot name "
                     "another; give one --config FILE)",
                     path);
            goto cleanup;
        }
        if (in_list(refused, key)) {
            error_to(err, "%s: \"%s\" cannot be set in a config file%s%s", path, key,
                     refused_hint ? "; " : "", refused_hint ? refused_hint : "");
            goto cleanup;
        }
        o = find_key(opts, key);
        if (!o || in_list(refused, o->long_name)) {
            if (o)
                error_to(err, "%s: \"%s\" cannot be set in a config file%s%s", path, key,
                         refused_hint ? "; " : "", refused_hint ? refused_hint : "");
            else
                unknown_key(path, &sb, key, opts, err);
            goto cleanup;
        }
        if (o->seen == 1)
            continue; /* the command line wins */
        if (json_kind(item) == JSON_NULL)
            continue;
        if (apply_one(c, path, o, item, err) < 0)
            goto cleanup;
    }
    ret = 0;
cleanup:
    json_free(root);
    strbuf_release(&sb);
    return ret;
}

char *config_settings_json(const struct option *opts, const char *const *exclude)
{
    struct json *root = json_new_object();
    char *ret;
    const struct option *o;

    for (o = opts; o->type != OPTION_END; o++) {
        if (o->type == OPTION_GROUP || !o->long_name || !o->value || in_list(exclude, o->long_name))
            continue;
        switch (o->type) {
        case OPTION_STRING: {
            const char *s = *(const char *const *)o->value;
            if (s)
                json_add_str(root, o->long_name, s);
            break;
        }
        case OPTION_LONG:
            json_add_num(root, o->long_name, (double)*(const long *)o->value);
            break;
        case OPTION_DOUBLE:
        case OPTION_POINTS:
            json_add_num(root, o->long_name, *(const double *)o->value);
            break;
        case OPTION_BOOL:
            json_add_bool(root, o->long_name, *(const int *)o->value);
            break;
        case OPTION_LIST: {
            const struct strvec *sv = o->value;
            struct json *arr;
            size_t i;
            if (!sv->nr)
                break;
            arr = json_add_array(root, o->long_name);
            for (i = 0; i < sv->nr; i++)
                json_add_str(arr, NULL, sv->v[i]);
            break;
        }
        default:
            break;
        }
    }
    ret = json_print_str(root, 0);
    json_free(root);
    return ret;
}

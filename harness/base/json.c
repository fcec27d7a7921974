/*
 * JSON over cJSON (see json.h): the only file that includes <cJSON.h>
 * (tests/cli/059 checks it). Owns the mapping of
 * struct json to cJSON, the trees' life cycle and printed text's ownership
 * (cJSON_free stays here), and the wording of typed-getter errors.
 */
#include "base/json.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/usage.h"
#include "base/xalloc.h"

#include "base/banned.h"

/* cJSON returns NULL when an allocation fails: as xalloc.h, dipmap then stops. */
static void die_oom(void)
{
    fputs("fatal: out of memory (JSON)\n", stderr);
    abort();
}

/* struct json is never defined: a pointer to one is a cJSON node. */
static const cJSON *C(const struct json *v)
{
    return (const cJSON *)(const void *)v;
}

static cJSON *W(struct json *v)
{
    return (cJSON *)(void *)v;
}

static struct json *J(cJSON *c)
{
    return (struct json *)(void *)c;
}

struct json *json_parse_at(const char *text, size_t len, size_t *bad_at)
{
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!root && bad_at)
        *bad_at = end && end >= text && end <= text + len ? (size_t)(end - text) : 0;
    return J(root);
}

struct json *json_parse(const char *text, size_t len, struct strbuf *err)
{
    size_t at = 0;
    struct json *root = json_parse_at(text, len, &at);
    if (!root && err)
        strbuf_addf(err, "invalid JSON at byte %zu", at + 1);
    return root;
}

struct json *json_parse_str(const char *s)
{
    return s ? json_parse_at(s, strlen(s), NULL) : NULL;
}

void json_free(struct json *root)
{
    cJSON_Delete(W(root));
}

enum json_kind json_kind(const struct json *v)
{
    const cJSON *c = C(v);
    if (!c)
        return JSON_ABSENT;
    /* cJSON_IsNull() and the others compare these bits one call each: this is on every getter */
    switch (c->type & 0xFF) {
    case cJSON_NULL:
        return JSON_NULL;
    case cJSON_False:
    case cJSON_True:
        return JSON_BOOL;
    case cJSON_Number:
        return JSON_NUMBER;
    case cJSON_String:
        return JSON_STRING;
    case cJSON_Array:
        return JSON_ARRAY;
    case cJSON_Object:
        return JSON_OBJECT;
    default:
        return JSON_ABSENT; /* cJSON_Raw/Invalid: never produced by the parser */
    }
}

const char *json_kind_name(enum json_kind k)
{
    static const char *const names[] = {"absent",   "null",     "a boolean", "a number",
                                        "a string", "an array", "an object"};
    return (unsigned)k <= JSON_OBJECT ? names[k] : "absent";
}

const struct json *json_get(const struct json *obj, const char *key)
{
    if (json_kind(obj) != JSON_OBJECT)
        return NULL;
    return (const struct json *)(const void *)cJSON_GetObjectItemCaseSensitive(C(obj), key);
}

const char *json_str(const struct json *v)
{
    return json_kind(v) == JSON_STRING ? C(v)->valuestring : NULL;
}

const char *json_get_str(const struct json *obj, const char *key)
{
    return json_str(json_get(obj, key));
}

int json_is_true(const struct json *v)
{
    return v && (C(v)->type & 0xFF) == cJSON_True;
}

int json_is_false(const struct json *v)
{
    return v && (C(v)->type & 0xFF) == cJSON_False;
}

double json_num(const struct json *v, double dflt)
{
    return json_kind(v) == JSON_NUMBER ? C(v)->valuedouble : dflt;
}

int json_equal(const struct json *a, const struct json *b)
{
    return cJSON_Compare(C(a), C(b), 1) ? 1 : 0;
}

size_t json_size(const struct json *v)
{
    if (json_kind(v) != JSON_ARRAY && json_kind(v) != JSON_OBJECT)
        return 0;
    return (size_t)cJSON_GetArraySize(C(v));
}

const struct json *json_at(const struct json *v, size_t i)
{
    const struct json *e;
    for (e = json_first(v); e && i; e = json_next(e))
        i--;
    return e;
}

const struct json *json_first(const struct json *v)
{
    if (json_kind(v) != JSON_ARRAY && json_kind(v) != JSON_OBJECT)
        return NULL;
    return (const struct json *)(const void *)C(v)->child;
}

const struct json *json_next(const struct json *v)
{
    return v ? (const struct json *)(const void *)C(v)->next : NULL;
}

const char *json_key(const struct json *member)
{
    return member ? C(member)->string : NULL;
}

/* 1 absent, 0 the kind wanted, -1 with the error appended */
static int want(const struct json *obj, const char *key, const char *where, enum json_kind kind,
                const struct json **v, struct strbuf *err)
{
    *v = json_get(obj, key);
    if (!*v)
        return 1;
    if (json_kind(*v) == kind)
        return 0;
    strbuf_addf(err, "%s: \"%s\" must be %s, not %s", where, key, json_kind_name(kind),
                json_kind_name(json_kind(*v)));
    return -1;
}

int json_want_str(const struct json *obj, const char *key, const char *where, const char **out,
                  struct strbuf *err)
{
    const struct json *v;
    int rc = want(obj, key, where, JSON_STRING, &v, err);
    if (!rc)
        *out = json_str(v);
    return rc;
}

int json_want_num(const struct json *obj, const char *key, const char *where, double *out,
                  struct strbuf *err)
{
    const struct json *v;
    int rc = want(obj, key, where, JSON_NUMBER, &v, err);
    if (!rc)
        *out = json_num(v, 0);
    return rc;
}

int json_want_bool(const struct json *obj, const char *key, const char *where, int *out,
                   struct strbuf *err)
{
    const struct json *v;
    int rc = want(obj, key, where, JSON_BOOL, &v, err);
    if (!rc)
        *out = json_is_true(v);
    return rc;
}

/* ---- writing ---- */

struct json *json_new_object(void)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        die_oom();
    return J(o);
}

struct json *json_new_array(void)
{
    cJSON *a = cJSON_CreateArray();
    if (!a)
        die_oom();
    return J(a);
}

void json_add(struct json *obj, const char *key, struct json *child)
{
    cJSON_bool ok;
    if (!child)
        die_oom();
    if (key)
        ok = cJSON_AddItemToObject(W(obj), key, W(child));
    else
        ok = cJSON_AddItemToArray(W(obj), W(child));
    if (!ok)
        BUG("json_add to a value that is no %s", key ? "object" : "array");
}

void json_add_str(struct json *obj, const char *key, const char *s)
{
    json_add(obj, key, J(s ? cJSON_CreateString(s) : cJSON_CreateNull()));
}

void json_add_num(struct json *obj, const char *key, double v)
{
    json_add(obj, key, J(isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull()));
}

void json_add_interval(struct json *obj, const char *key, double lo, double hi)
{
    struct json *a;
    if (!isfinite(lo) || !isfinite(hi)) {
        json_add_null(obj, key);
        return;
    }
    a = json_add_array(obj, key);
    json_add_num(a, NULL, lo);
    json_add_num(a, NULL, hi);
}

void json_add_bool(struct json *obj, const char *key, int v)
{
    json_add(obj, key, J(cJSON_CreateBool(v ? 1 : 0)));
}

void json_add_null(struct json *obj, const char *key)
{
    json_add(obj, key, J(cJSON_CreateNull()));
}

struct json *json_add_object(struct json *obj, const char *key)
{
    struct json *o = json_new_object();
    json_add(obj, key, o);
    return o;
}

struct json *json_add_array(struct json *obj, const char *key)
{
    struct json *a = json_new_array();
    json_add(obj, key, a);
    return a;
}

struct json *json_copy(const struct json *v)
{
    cJSON *c = cJSON_Duplicate(C(v), 1);
    if (!c)
        die_oom();
    return J(c);
}

void json_sort_keys(struct json *v)
{
    cJSON *node = W(v), *c, **items = NULL;
    size_t n = 0, alloc = 0, i, j;
    if (!node)
        return;
    for (c = node->child; c; c = c->next)
        json_sort_keys(J(c));
    if (!cJSON_IsObject(node))
        return;
    for (c = node->child; c; c = c->next) {
        ALLOC_GROW(items, n + 1, alloc);
        items[n++] = c;
    }
    /* insertion sort by key: settings objects are small */
    for (i = 1; i < n; i++) {
        cJSON *x = items[i];
        for (j = i; j > 0 && strcmp(items[j - 1]->string ? items[j - 1]->string : "",
                                    x->string ? x->string : "") > 0;
             j--)
            items[j] = items[j - 1];
        items[j] = x;
    }
    for (i = 0; i < n; i++)
        cJSON_DetachItemViaPointer(node, items[i]);
    for (i = 0; i < n; i++)
        cJSON_AddItemToArray(node, items[i]);
    free(items);
}

void json_remove(struct json *obj, const char *key)
{
    cJSON_DeleteItemFromObjectCaseSensitive(W(obj), key);
}

void json_print(struct strbuf *out, const struct json *v, int pretty)
{
    char *s = pretty ? cJSON_Print(C(v)) : cJSON_PrintUnformatted(C(v));
    if (!s)
        die_oom();
    strbuf_addstr(out, s);
    cJSON_free(s);
}

char *json_print_str(const struct json *v, int pretty)
{
    struct strbuf sb = STRBUF_INIT;
    json_print(&sb, v, pretty);
    return strbuf_detach(&sb, NULL);
}

void json_library_version(struct strbuf *out)
{
    strbuf_addf(out, "cJSON %s", cJSON_Version());
}

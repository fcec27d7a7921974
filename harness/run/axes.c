/*
 * Named trial axes: the canonical "name=value;name=value" string (names
 * sorted) that extends a trial's key, its parser, getters and setters, and
 * the grouping helpers reports use (axes.h). Owns no state.
 */
#include "run/axes.h"

#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/strvec.h"
#include "run/trial.h"
#include "base/xalloc.h"

#include "base/banned.h"

int axes_name_valid(const char *s, size_t len)
{
    size_t i;
    if (!s || !len || len > AXES_MAX_NAME || s[0] < 'a' || s[0] > 'z')
        return 0;
    for (i = 1; i < len; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
            return 0;
    }
    return 1;
}

int axes_value_valid(const char *s, size_t len)
{
    size_t i;
    if (!s || !len)
        return 0;
    for (i = 0; i < len; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '%' || c == '+' || c == '-'))
            return 0;
    }
    return 1;
}

const char *axes_or_empty(const char *axes)
{
    return axes ? axes : "";
}

int axes_next(const char **p, struct axes_pair *pr)
{
    const char *s = axes_or_empty(*p), *end, *eq;
    if (!*s)
        return 0;
    end = strchr(s, ';');
    if (!end)
        end = s + strlen(s);
    eq = memchr(s, '=', (size_t)(end - s));
    pr->name = s;
    pr->name_len = eq ? (size_t)(eq - s) : (size_t)(end - s);
    pr->value = eq ? eq + 1 : end;
    pr->value_len = eq ? (size_t)(end - eq - 1) : 0;
    if (!eq)
        return -1;
    *p = *end ? end + 1 : end;
    return 1;
}

static int pair_cmp(const void *a, const void *b)
{
    const struct axes_pair *x = a, *y = b;
    size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
    int c = memcmp(x->name, y->name, n);
    if (c)
        return c;
    return x->name_len < y->name_len ? -1 : x->name_len > y->name_len;
}

/* Split s into pairs (borrowed); -1 with err on a malformed pair. */
static int split_pairs(const char *s, struct axes_pair **out, size_t *nr, struct strbuf *err)
{
    size_t alloc = 0;
    const char *p = s;
    struct axes_pair pr;
    int r;
    *out = NULL;
    *nr = 0;
    while ((r = axes_next(&p, &pr)) != 0) {
        if (r < 0) {
            strbuf_addf(err, "axis '%.*s' has no '=value'", (int)pr.name_len, pr.name);
            goto fail;
        }
        if (!axes_name_valid(pr.name, pr.name_len)) {
            strbuf_addf(err, "'%.*s' is not an axis name (a-z first, then a-z 0-9 _ -)",
                        (int)pr.name_len, pr.name);
            goto fail;
        }
        if (!axes_value_valid(pr.value, pr.value_len)) {
            strbuf_addf(err, "axis %.*s: '%.*s' is not a value (letters, digits, _ . %% + -)",
                        (int)pr.name_len, pr.name, (int)pr.value_len, pr.value);
            goto fail;
        }
        ALLOC_GROW(*out, *nr + 1, alloc);
        (*out)[(*nr)++] = pr;
    }
    return 0;
fail:
    free(*out);
    *out = NULL;
    *nr = 0;
    return -1;
}

static void join_pairs(struct strbuf *out, const struct axes_pair *v, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (i)
            strbuf_addch(out, ';');
        strbuf_add(out, v[i].name, v[i].name_len);
        strbuf_addch(out, '=');
        strbuf_add(out, v[i].value, v[i].value_len);
    }
}

int axes_canonical(const char *s, struct strbuf *out, struct strbuf *err)
{
    struct axes_pair *v;
    size_t n, i;
    if (!s || !*s)
        return 0;
    if (split_pairs(s, &v, &n, err))
        return -1;
    qsort(v, n, sizeof(*v), pair_cmp);
    for (i = 1; i < n; i++)
        if (!pair_cmp(&v[i - 1], &v[i])) {
            strbuf_addf(err, "axis %.*s given twice", (int)v[i].name_len, v[i].name);
            free(v);
            return -1;
        }
    join_pairs(out, v, n);
    free(v);
    return 0;
}

int axes_is_canonical(const char *axes)
{
    struct strbuf c = STRBUF_INIT, err = STRBUF_INIT;
    int ok = axes_canonical(axes, &c, &err) == 0 && !strcmp(c.buf, axes_or_empty(axes));
    strbuf_release(&c);
    strbuf_release(&err);
    return ok;
}

const char *axes_find(const char *axes, const char *name, size_t *len)
{
    const char *p = axes;
    size_t nl = strlen(name);
    struct axes_pair pr;
    while (axes_next(&p, &pr) > 0)
        if (pr.name_len == nl && !memcmp(pr.name, name, nl)) {
            if (len)
                *len = pr.value_len;
            return pr.value;
        }
    return NULL;
}

int axes_get(const char *axes, const char *name, struct strbuf *out)
{
    size_t len;
    const char *v = axes_find(axes, name, &len);
    strbuf_reset(out);
    if (!v)
        return 0;
    strbuf_add(out, v, len);
    return 1;
}

int axes_has(const char *axes, const char *name, const char *value)
{
    size_t len;
    const char *v = axes_find(axes, name, &len);
    return v && strlen(value) == len && !memcmp(v, value, len);
}

void axes_set(struct strbuf *out, const char *axes, const char *name, const char *value)
{
    struct axes_pair *v = NULL, add;
    size_t n = 0, i, alloc;
    struct strbuf err = STRBUF_INIT;
    if (split_pairs(axes_or_empty(axes), &v, &n, &err))
        n = 0; /* not canonical: treated as empty (callers pass canonical strings) */
    strbuf_release(&err);
    alloc = n;
    add.name = name;
    add.name_len = strlen(name);
    add.value = value;
    add.value_len = value ? strlen(value) : 0;
    for (i = 0; i < n && pair_cmp(&v[i], &add) < 0; i++)
        ;
    if (i < n && !pair_cmp(&v[i], &add)) {
        if (value)
            v[i] = add;
        else
            memmove(&v[i], &v[i + 1], (n - i - 1) * sizeof(*v)), n--;
    } else if (value) {
        ALLOC_GROW(v, n + 1, alloc);
        memmove(&v[i + 1], &v[i], (n - i) * sizeof(*v));
        v[i] = add;
        n++;
    }
    join_pairs(out, v, n);
    free(v);
}

void axes_format(struct strbuf *out, const char *axes, const char *none)
{
    const char *p = axes_or_empty(axes);
    if (!*p) {
        strbuf_addstr(out, none ? none : "");
        return;
    }
    for (; *p; p++)
        if (*p == ';')
            strbuf_addstr(out, ", ");
        else
            strbuf_addch(out, *p);
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void axes_names_of(const struct trial_point *t, size_t n, struct strvec *names)
{
    struct strvec found = STRVEC_INIT;
    size_t i, j;
    for (i = 0; i < n; i++) {
        const char *p = t[i].axes;
        struct axes_pair pr;
        while (axes_next(&p, &pr) > 0) {
            for (j = 0; j < found.nr; j++)
                if (strlen(found.v[j]) == pr.name_len && !memcmp(found.v[j], pr.name, pr.name_len))
                    break;
            if (j == found.nr)
                strvec_pushn(&found, pr.name, pr.name_len);
        }
    }
    qsort(found.v, found.nr, sizeof(*found.v), name_cmp);
    for (j = 0; j < found.nr; j++)
        strvec_push(names, found.v[j]);
    strvec_clear(&found);
}

void axes_values_of(const struct trial_point *t, size_t n, const char *name, struct strvec *values)
{
    struct strbuf v = STRBUF_INIT;
    size_t i;
    for (i = 0; i < n; i++)
        if (axes_get(t[i].axes, name, &v) && strvec_find(values, v.buf) < 0)
            strvec_push(values, v.buf);
    strbuf_release(&v);
}

struct trial_result *axes_select(const struct trial_result *t, size_t n, const char *name,
                                 const char *value, size_t *nr)
{
    struct trial_result *out = xcalloc(n ? n : 1, sizeof(*out));
    size_t i, k = 0;
    for (i = 0; i < n; i++) {
        int keep = value ? axes_has(t[i].axes, name, value) : !axes_find(t[i].axes, name, NULL);
        if (keep)
            out[k++] = t[i];
    }
    *nr = k;
    return out;
}

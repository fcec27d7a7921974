/*
 * NULL-terminated string vectors (after git's strvec.c): argv arrays for
 * child processes, lists of option values and split fields.
 */
#include "base/strvec.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/xalloc.h"

#include "base/banned.h"

char *strvec_empty[] = {NULL};

void strvec_init(struct strvec *sv)
{
    sv->v = strvec_empty;
    sv->nr = 0;
    sv->alloc = 0;
}

static const char *push_owned(struct strvec *sv, char *s)
{
    if (sv->v == strvec_empty)
        sv->v = NULL;
    ALLOC_GROW(sv->v, sv->nr + 2, sv->alloc);
    sv->v[sv->nr++] = s;
    sv->v[sv->nr] = NULL;
    return s;
}

const char *strvec_push(struct strvec *sv, const char *s)
{
    return push_owned(sv, xstrdup(s));
}

const char *strvec_pushn(struct strvec *sv, const char *s, size_t len)
{
    return push_owned(sv, xmemdup(s, len));
}

const char *strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
    struct strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    return push_owned(sv, strbuf_detach(&sb, NULL));
}

void strvec_pop(struct strvec *sv)
{
    if (!sv->nr)
        return;
    free(sv->v[--sv->nr]);
    sv->v[sv->nr] = NULL;
}

void strvec_clear(struct strvec *sv)
{
    size_t i;
    if (sv->v != strvec_empty) {
        for (i = 0; i < sv->nr; i++)
            free(sv->v[i]);
        free(sv->v);
    }
    strvec_init(sv);
}

size_t strvec_split(struct strvec *sv, const char *s, char delim)
{
    size_t n = 0;
    for (;;) {
        const char *e = strchr(s, delim);
        if (!e) {
            strvec_push(sv, s);
            return n + 1;
        }
        strvec_pushn(sv, s, (size_t)(e - s));
        n++;
        s = e + 1;
    }
}

long strvec_find(const struct strvec *sv, const char *s)
{
    size_t i;
    for (i = 0; i < sv->nr; i++)
        if (!strcmp(sv->v[i], s))
            return (long)i;
    return -1;
}

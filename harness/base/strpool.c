/* Strings kept once (strpool.h). */
#include "base/strpool.h"

#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/xalloc.h"

#include "base/banned.h"

static int str_eq(const void *key, size_t entry, const void *data)
{
    const struct strpool *p = data;
    return !strcmp(key, p->s[entry]);
}

const char *strpool_intern(struct strpool *p, const char *str)
{
    uint64_t h;
    size_t e;
    if (!str)
        return NULL;
    h = fnv64_str(FNV64_INIT, str);
    e = hashmap_find(&p->map, h, str, str_eq, p);
    if (e != HASHMAP_NONE)
        return p->s[e];
    ALLOC_GROW(p->s, p->nr + 1, p->alloc);
    p->s[p->nr] = xstrdup(str);
    hashmap_put(&p->map, h, str, p->nr, str_eq, p);
    return p->s[p->nr++];
}

void strpool_clear(struct strpool *p)
{
    size_t i;
    for (i = 0; i < p->nr; i++)
        free(p->s[i]);
    free(p->s);
    hashmap_clear(&p->map);
    memset(p, 0, sizeof(*p));
}

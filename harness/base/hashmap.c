/*
 * The one hash table of the cold tables (hashmap.h): linear probing over
 * (hash, entry + 1) slots, doubled when half full. Owns only its slots.
 */
#include "base/hashmap.h"

#include <stdlib.h>

#include "base/xalloc.h"

#include "base/banned.h"

size_t hashmap_find(const struct hashmap *m, uint64_t hash, const void *key, hashmap_eq_fn eq,
                    const void *data)
{
    size_t i;
    if (!m->cap)
        return HASHMAP_NONE;
    for (i = (size_t)hash & (m->cap - 1); m->slot[i].entry; i = (i + 1) & (m->cap - 1))
        if (m->slot[i].hash == hash && eq(key, m->slot[i].entry - 1, data))
            return m->slot[i].entry - 1;
    return HASHMAP_NONE;
}

/* Into a free slot (the key is known to be absent). */
static void place(struct hashmap *m, uint64_t hash, size_t entry)
{
    size_t i = (size_t)hash & (m->cap - 1);
    while (m->slot[i].entry)
        i = (i + 1) & (m->cap - 1);
    m->slot[i].hash = hash;
    m->slot[i].entry = entry + 1;
    m->nr++;
}

static void grow(struct hashmap *m)
{
    struct hashmap n = {.slot = NULL, .cap = m->cap ? m->cap * 2 : 64, .nr = 0};
    size_t i;
    n.slot = xcalloc(n.cap, sizeof(*n.slot));
    for (i = 0; i < m->cap; i++)
        if (m->slot[i].entry)
            place(&n, m->slot[i].hash, m->slot[i].entry - 1);
    free(m->slot);
    *m = n;
}

size_t hashmap_put(struct hashmap *m, uint64_t hash, const void *key, size_t entry,
                   hashmap_eq_fn eq, const void *data)
{
    size_t old = hashmap_find(m, hash, key, eq, data);
    if (old != HASHMAP_NONE)
        return old;
    if ((m->nr + 1) * 2 > m->cap)
        grow(m);
    place(m, hash, entry);
    return HASHMAP_NONE;
}

void hashmap_clear(struct hashmap *m)
{
    free(m->slot);
    m->slot = NULL;
    m->cap = 0;
    m->nr = 0;
}

#ifndef STRPOOL_H
#define STRPOOL_H
/*
 * Strings kept once: strpool_intern() returns the pool's copy of a string,
 * equal strings the same pointer, valid until strpool_clear(). For tables of
 * a million rows that repeat a few thousand distinct values (a run's question
 * ids and axes: trial points, the store's set of finished trials). Found by
 * base/hashmap.h.
 */
#include <stddef.h>

#include "base/hashmap.h"

struct strpool {
    char **s; /* owned: the distinct strings */
    size_t nr, alloc;
    struct hashmap map;
};

#define STRPOOL_INIT                                                                               \
    {                                                                                              \
        .s = NULL, .nr = 0, .alloc = 0, .map = HASHMAP_INIT                                        \
    }

/* The pool's copy of str (NULL stays NULL). */
const char *strpool_intern(struct strpool *p, const char *str);
/* Free every string; the pool is empty and usable again. */
void strpool_clear(struct strpool *p);

#endif

#ifndef XALLOC_H
#define XALLOC_H

#include <stddef.h>

/*
 * Checked allocation: these never return NULL. On out-of-memory (or a size
 * computation that would overflow) they print "fatal: out of memory" and abort,
 * because no caller can do anything useful without the memory.
 * Everything they return is freed with free().
 */
void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
/* realloc to nmemb * size, aborting on multiplication overflow */
void *xreallocarray(void *ptr, size_t nmemb, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* xmemdup: copy of n bytes plus a terminating NUL */
void *xmemdup(const void *p, size_t n);

/* a + b and a * b, aborting on overflow */
size_t st_add(size_t a, size_t b);
size_t st_mult(size_t a, size_t b);

/*
 * Grow an array so that it can hold at least nr elements (git's ALLOC_GROW).
 * x: pointer to the array, nr: needed count, alloc: current capacity (updated).
 */
#define ALLOC_GROW(x, nr, alloc)                                                                   \
    do {                                                                                           \
        if ((nr) > (alloc)) {                                                                      \
            size_t alloc_grow_new_ = (alloc) < 8 ? 16 : st_mult((alloc), 2);                       \
            if (alloc_grow_new_ < (nr))                                                            \
                alloc_grow_new_ = (nr);                                                            \
            (x) = xreallocarray((x), alloc_grow_new_, sizeof(*(x)));                               \
            (alloc) = alloc_grow_new_;                                                             \
        }                                                                                          \
    } while (0)

#endif

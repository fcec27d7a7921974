/*
 * Allocation wrappers that abort on out-of-memory, so that the rest of the
 * code never has to check for NULL from malloc.
 */
#include "base/xalloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/banned.h"

static void oom(size_t size)
{
    fprintf(stderr, "fatal: out of memory allocating %zu bytes\n", size);
    abort();
}

size_t st_add(size_t a, size_t b)
{
    if (a > SIZE_MAX - b)
        oom(SIZE_MAX);
    return a + b;
}

size_t st_mult(size_t a, size_t b)
{
    if (b && a > SIZE_MAX / b)
        oom(SIZE_MAX);
    return a * b;
}

void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        oom(size);
    return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
    void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
    if (!p)
        oom(st_mult(nmemb, size));
    return p;
}

void *xrealloc(void *ptr, size_t size)
{
    void *p = realloc(ptr, size ? size : 1);
    if (!p)
        oom(size);
    return p;
}

void *xreallocarray(void *ptr, size_t nmemb, size_t size)
{
    return xrealloc(ptr, st_mult(nmemb, size));
}

void *xmemdup(const void *p, size_t n)
{
    char *r = xmalloc(st_add(n, 1));
    if (n)
        memcpy(r, p, n);
    r[n] = '\0';
    return r;
}

char *xstrdup(const char *s)
{
    return xmemdup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
    const char *end = memchr(s, '\0', n);
    return xmemdup(s, end ? (size_t)(end - s) : n);
}

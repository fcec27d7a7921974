#ifndef STRVEC_H
#define STRVEC_H

#include <stddef.h>

#include "base/usage.h"

/*
 * A NULL-terminated vector of owned strings (v[nr] == NULL), usable directly
 * as an argv. Life cycle: STRVEC_INIT / strvec_init(), then strvec_clear().
 */
struct strvec {
    char **v;
    size_t nr;
    size_t alloc;
};

extern char *strvec_empty[];
#define STRVEC_INIT                                                                                \
    {                                                                                              \
        .v = strvec_empty, .nr = 0, .alloc = 0                                                     \
    }

void strvec_init(struct strvec *sv);
void strvec_clear(struct strvec *sv);
/* Appends a copy of s; returns the stored copy (owned by the vector). */
const char *strvec_push(struct strvec *sv, const char *s);
const char *strvec_pushf(struct strvec *sv, const char *fmt, ...) DM_PRINTF(2, 3);
/* Appends a copy of the first len bytes of s. */
const char *strvec_pushn(struct strvec *sv, const char *s, size_t len);
/* Removes and frees the last element (no-op when empty). */
void strvec_pop(struct strvec *sv);
/*
 * Splits s on the delimiter character, appending every field (empty fields
 * included; "" gives one empty field). Returns the number appended.
 */
size_t strvec_split(struct strvec *sv, const char *s, char delim);
/* Index of the first element equal to s, or -1. */
long strvec_find(const struct strvec *sv, const char *s);

#endif

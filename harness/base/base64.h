#ifndef BASE64_H
#define BASE64_H
/*
 * The one base64 (RFC 4648, the standard alphabet): the encoder of the
 * report's script hash and the character values the .tiktoken loader decodes
 * its token bytes with (its loop stays in the loader, which is fast that way).
 */
#include <stddef.h>

struct strbuf;

/* Append the padded base64 of p[0..n) to out. */
void base64_encode(struct strbuf *out, const void *p, size_t n);

/* Each byte's 6-bit value plus one; 0 for a byte outside the alphabet ('=' included). */
extern const unsigned char base64_values[256];

/* The 6-bit value of base64 character c, or -1 when c is not one ('=' included). */
static inline int base64_value(unsigned char c)
{
    return (int)base64_values[c] - 1;
}

#endif

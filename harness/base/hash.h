#ifndef HASH_H
#define HASH_H
/*
 * dipmap's one FNV-1a (64-bit; Fowler, Noll and Vo), the string hash behind the
 * seeded prompt shuffles, the hard-distractor terms, import's picks, the
 * bootstrap seeds per axis, serve-sim's salts and the in-memory tables. Never
 * for anything a peer could choose to collide (secrets, adversarial keys).
 */
#include <stddef.h>
#include <stdint.h>

#define FNV64_PRIME 0x100000001b3ULL
/* The standard offset basis (14695981039346656037): serve-sim's salts. */
#define FNV64_INIT 0xcbf29ce484222325ULL
/*
 * The standard basis with its last decimal digit lost (1469598103934665603, not
 * ...6037): what the prompt shuffles, bm25 terms, import's picks and the axis
 * bootstrap seeds have always started from. Kept: the shipped sets' prompts and
 * every stored run's trials depend on it (tests/cli/217 pins them).
 */
#define FNV64_INIT_DIPMAP 1469598103934665603ULL

/* One FNV-1a step: h xor v, times the prime (v is one byte, or a whole word where a caller mixes
 * one in). */
static inline uint64_t fnv64_step(uint64_t h, uint64_t v)
{
    return (h ^ v) * FNV64_PRIME;
}

/* h advanced over n bytes of data. */
static inline uint64_t fnv64(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        h = fnv64_step(h, p[i]);
    return h;
}

/* h advanced over the bytes of the NUL-terminated s (not the NUL). */
static inline uint64_t fnv64_str(uint64_t h, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        h = fnv64_step(h, *p);
    return h;
}

#endif

#ifndef RNG_H
#define RNG_H
/*
 * splitmix64 (Steele, Lea and Flood 2014, Vigna's reference constants): the one
 * seeded step behind dipmap's reproducible draws (prompt shuffles and cuts,
 * gen's questions, the send schedule and request nonces, serve-sim's model,
 * the bootstrap PRNG's seeding). The same numbers on every platform; never
 * for secrets.
 */
#include <stdint.h>

/* Advance *state and return its next 64 bits. */
static inline uint64_t rng_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The top 53 bits of x as a double in [0, 1). */
static inline double rng_unit(uint64_t x)
{
    return (double)(x >> 11) * (1.0 / 9007199254740992.0);
}

#endif

#ifndef RNG_H
#define RNG_H
/*
 * dipmap's one family of seeded random numbers, the same on every platform and
 * never for secrets. splitmix64 (Steele, Lea and Flood 2014, Vigna's reference
 * constants) is the one seeded step behind the reproducible draws keyed by what
 * they are for (prompt shuffles and cuts, gen's questions, the send schedule
 * and request nonces, serve-sim's model); struct rng, xoshiro256** seeded by
 * splitmix64, is the stream for many draws in a row (the question bootstrap,
 * power's Monte Carlo, retrieval's synthetic ranks, the retry jitter).
 */
#include <stddef.h>
#include <stdint.h>

/* Advance *state and return its next 64 bits. */
static inline uint64_t rng_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/*
 * The next splitmix64 step of *state reduced modulo n (n > 0): the seeded index
 * of gen's names, the prompt's filler start and every shuffle below. The modulo
 * bias (below 2^-40 for the sizes dipmap draws) is kept: the shipped sets and
 * stored prompts are seeded through it (tests/cli/217, 213).
 */
static inline size_t rng_below(uint64_t *state, size_t n)
{
    return (size_t)(rng_splitmix64(state) % n);
}

/* Fisher-Yates over a[0..n-1] with rng_below from *state (the prompt's filler and order, gen's
 * rows, the shuffled send schedule). */
static inline void rng_shuffle_sizes(size_t *a, size_t n, uint64_t *state)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = rng_below(state, i), t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}

/* The top 53 bits of x as a double in [0, 1). */
static inline double rng_unit(uint64_t x)
{
    return (double)(x >> 11) * (1.0 / 9007199254740992.0);
}

/* xoshiro256** (Blackman and Vigna 2018): a stream seeded by rng_seed. */
struct rng {
    uint64_t s[4];
};

/* The state from one 64-bit seed: four splitmix64 steps (never all zero). */
static inline void rng_seed(struct rng *r, uint64_t seed)
{
    uint64_t x = seed;
    int i;
    for (i = 0; i < 4; i++)
        r->s[i] = rng_splitmix64(&x);
}

static inline uint64_t rng_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* The next 64 bits of the stream. */
static inline uint64_t rng_next(struct rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rng_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rng_rotl(s[3], 45);
    return result;
}

/* A uniform index in [0, n), n > 0: rejection sampling, no modulo bias. */
static inline size_t rng_index(struct rng *r, size_t n)
{
    uint64_t limit = ~0ULL - (~0ULL % n), x;
    do
        x = rng_next(r);
    while (x >= limit);
    return (size_t)(x % n);
}

#endif

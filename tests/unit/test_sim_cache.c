/*
 * serve-sim's prefix cache (sim_cache.c) against the rule it implements, written out the
 * slow way: a set of token prefixes, each with the time it was last touched; a lookup
 * touches the prefixes it matched, a store touches (or adds) every prefix of its prompt,
 * each prefix more recent than its extensions, then the least recently touched prefixes
 * go until the capacity holds. Thousands of random lookups and stores over prompts that
 * share prefixes the way a depth sweep's do must agree on every cached count.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "sim/sim-int.h"
#include "test.h"

#define REF_MAX 4096

struct ref_entry {
    uint32_t tok[64];
    size_t len;
    uint64_t stamp;
};

struct ref_cache {
    struct ref_entry e[REF_MAX];
    size_t nr, capacity;
    uint64_t clock;
};

static long ref_find(const struct ref_cache *r, const uint32_t *ids, size_t len)
{
    for (size_t i = 0; i < r->nr; i++)
        if (r->e[i].len == len && !memcmp(r->e[i].tok, ids, len * sizeof(*ids)))
            return (long)i;
    return -1;
}

static size_t ref_match(const struct ref_cache *r, const uint32_t *ids, size_t n)
{
    size_t m = 0;
    while (m < n && ref_find(r, ids, m + 1) >= 0)
        m++;
    return m;
}

/* Touches the prefixes ids[0..len), len = m..1: the shortest ends the most recent. */
static void ref_touch(struct ref_cache *r, const uint32_t *ids, size_t m)
{
    for (size_t len = m; len > 0; len--) {
        long i = ref_find(r, ids, len);
        if (i < 0) {
            i = (long)r->nr++;
            memcpy(r->e[i].tok, ids, len * sizeof(*ids));
            r->e[i].len = len;
        }
        r->e[i].stamp = ++r->clock;
    }
}

static long ref_acquire(struct ref_cache *r, const uint32_t *ids, size_t n)
{
    size_t m = ref_match(r, ids, n);
    ref_touch(r, ids, m);
    return (long)(m >= n ? n - 1 : m);
}

static void ref_store(struct ref_cache *r, const uint32_t *ids, size_t n)
{
    ref_touch(r, ids, n);
    while (r->nr > r->capacity) {
        size_t old = 0;
        for (size_t i = 1; i < r->nr; i++)
            if (r->e[i].stamp < r->e[old].stamp)
                old = i;
        r->e[old] = r->e[--r->nr];
    }
}

/*
 * A prompt the way a sweep builds them: a shared header, then 6 of 8 "chunks" (runs of
 * 2-5 tokens) in one of 3 orders per question, the gold chunk at one of 4 positions.
 */
static size_t make_prompt(uint64_t *rng, uint32_t *ids)
{
    size_t n = 0;
    uint64_t q = rng_splitmix64(rng) % 5, depth = rng_splitmix64(rng) % 4;
    ids[n++] = 1;
    ids[n++] = 2;
    for (uint64_t c = 0; c < 6; c++) {
        uint64_t chunk = c == depth ? 100 + q : (q * 7 + c * 3) % 8;
        size_t len = 2 + (size_t)(chunk % 4);
        for (size_t k = 0; k < len; k++)
            ids[n++] = (uint32_t)(chunk * 10 + k + 10);
    }
    if (rng_splitmix64(rng) % 4 == 0)
        n -= rng_splitmix64(rng) % n; /* a lookup of a bare prefix */
    return n ? n : 1;
}

static void test_cache_matches_reference(void)
{
    static const size_t caps[] = {1, 7, 25, 40, 90, 400};
    static struct ref_cache ref;
    uint32_t ids[64];
    for (size_t ci = 0; ci < sizeof(caps) / sizeof(caps[0]); ci++) {
        struct sim_cache *c = sim_cache_new((long)caps[ci], 0);
        uint64_t rng = 42 + ci;
        int bad = 0;
        memset(&ref, 0, sizeof(ref));
        ref.capacity = caps[ci];
        for (int step = 0; step < 3000 && !bad; step++) {
            size_t n = make_prompt(&rng, ids);
            long got = -1, want;
            int slot = sim_cache_acquire(c, ids, n, -1, &got);
            want = ref_acquire(&ref, ids, n);
            if (slot != 0 || got != want) {
                fprintf(stderr, "  capacity %zu step %d: cached %ld, reference %ld\n", caps[ci],
                        step, got, want);
                bad = 1;
            }
            if (rng_splitmix64(&rng) % 3)
                ref_store(&ref, ids, n), sim_cache_store(c, slot, ids, n);
        }
        CHECK(!bad);
        sim_cache_free(c);
    }
}

/* A prompt longer than the cache keeps its first capacity tokens; other prompts go first. */
static void test_cache_longer_than_capacity(void)
{
    struct sim_cache *c = sim_cache_new(10, 0);
    uint32_t a[16], b[16];
    long m;
    for (uint32_t i = 0; i < 16; i++)
        a[i] = i + 1, b[i] = i + 100;
    sim_cache_store(c, sim_cache_acquire(c, b, 4, -1, &m), b, 4);
    sim_cache_store(c, sim_cache_acquire(c, a, 16, -1, &m), a, 16);
    sim_cache_acquire(c, a, 16, -1, &m);
    CHECK_INT(m, 10);
    sim_cache_acquire(c, b, 4, -1, &m);
    CHECK_INT(m, 0);
    sim_cache_free(c);
}

/* With slots each slot has its own tree; a prompt goes to the slot holding over half of it. */
static void test_cache_slots(void)
{
    struct sim_cache *c = sim_cache_new(100, 2);
    uint32_t a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, b[8] = {9, 9, 9, 9, 9, 9, 9, 9};
    long m;
    int s0 = sim_cache_acquire(c, a, 8, -1, &m), s1;
    sim_cache_store(c, s0, a, 8);
    sim_cache_release(c, s0);
    s1 = sim_cache_acquire(c, b, 8, -1, &m);
    CHECK(s1 != s0); /* the least recently used slot */
    sim_cache_store(c, s1, b, 8);
    sim_cache_release(c, s1);
    CHECK_INT(sim_cache_acquire(c, a, 6, -1, &m), s0);
    CHECK_INT(m, 5);
    sim_cache_release(c, s0);
    CHECK_INT(sim_cache_acquire(c, a, 8, s1, &m), s1); /* id_slot: that slot's cache only */
    CHECK_INT(m, 0);
    sim_cache_release(c, s1);
    sim_cache_free(c);
}

int main(void)
{
    RUN(test_cache_matches_reference);
    RUN(test_cache_longer_than_capacity);
    RUN(test_cache_slots);
    return TEST_EXIT();
}

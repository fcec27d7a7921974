#ifndef HASHMAP_H
#define HASHMAP_H
/*
 * The one hash table of dipmap's cold tables (a golden set's ids and chunk
 * texts, the prompt builder's token counts, the --reuse index, the store's set
 * of finished trials): an open-addressing index (linear probing, a power of two
 * of slots, at most half full) from a 64-bit hash to entry numbers. The entries
 * and their keys stay in the caller's own array; the map keeps each entry's
 * hash, so it grows without calling back, and compares keys through the
 * caller's function only when the hashes are equal. The tokenizer's hot tables
 * keep their own layouts (tokenizer-int.h: inline probes over packed keys).
 */
#include <stddef.h>
#include <stdint.h>

struct hashmap_slot {
    uint64_t hash;
    size_t entry; /* entry number + 1; 0 = empty */
};

struct hashmap {
    struct hashmap_slot *slot; /* NULL until the first put */
    size_t cap;                /* a power of two, or 0 */
    size_t nr;
};

#define HASHMAP_INIT                                                                               \
    {                                                                                              \
        .slot = NULL, .cap = 0, .nr = 0                                                            \
    }
#define HASHMAP_NONE ((size_t)-1)

/* 1 when key equals the key of the caller's entry number `entry`; data is the caller's. */
typedef int (*hashmap_eq_fn)(const void *key, size_t entry, const void *data);

/* The entry number whose key equals key (hashed to hash), or HASHMAP_NONE. */
size_t hashmap_find(const struct hashmap *m, uint64_t hash, const void *key, hashmap_eq_fn eq,
                    const void *data);

/*
 * Put entry number `entry` (whose key is key, hashed to hash) unless an equal key is
 * there: returns that earlier entry's number (the map unchanged: first put wins), or
 * HASHMAP_NONE when entry was added.
 */
size_t hashmap_put(struct hashmap *m, uint64_t hash, const void *key, size_t entry,
                   hashmap_eq_fn eq, const void *data);

/* Free the slots; the map is empty and usable again (the caller's entries are its own). */
void hashmap_clear(struct hashmap *m);

#endif

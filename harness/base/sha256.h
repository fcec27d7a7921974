#ifndef SHA256_H
#define SHA256_H

#include <stddef.h>
#include <stdint.h>

/*
 * SHA-256 (FIPS 180-4), for prompt hashes, input provenance hashes and
 * content-addressed storage. Streaming: init, update any number of times, final.
 */
struct sha256_ctx {
    uint32_t h[8];
    uint64_t total;
    unsigned char buf[64];
    size_t buflen;
};

#define SHA256_HEX_LEN 64

void sha256_init(struct sha256_ctx *c);
void sha256_update(struct sha256_ctx *c, const void *data, size_t len);
void sha256_final(struct sha256_ctx *c, unsigned char out[32]);
/* One-shot: writes 64 lowercase hex digits and a NUL into hex (65 bytes). */
void sha256_hex(const void *data, size_t len, char hex[SHA256_HEX_LEN + 1]);
/* Finish a streaming context into hex (65 bytes). */
void sha256_final_hex(struct sha256_ctx *c, char hex[SHA256_HEX_LEN + 1]);
/* Hash a whole file into hex. Returns 0, or -1 with errno set. */
int sha256_file_hex(const char *path, char hex[SHA256_HEX_LEN + 1]);

#endif

#ifndef SHA256_H
#define SHA256_H

#include <stddef.h>

/*
 * SHA-256 (FIPS 180-4), for prompt hashes, input provenance hashes and
 * content-addressed storage, through libcrypto's EVP (the library libcurl
 * already loads; the only file that includes <openssl/...>). Streaming: init,
 * update any number of times, final.
 */
struct strbuf;
struct evp_md_ctx_st;

struct sha256_ctx {
    struct evp_md_ctx_st *md; /* owned: from sha256_init until sha256_final or sha256_release */
};

#define SHA256_HEX_LEN 64

/* Start a hash; aborts like xmalloc when libcrypto cannot (out of memory, no SHA-256). */
void sha256_init(struct sha256_ctx *c);
void sha256_update(struct sha256_ctx *c, const void *data, size_t len);
/* The digest into out; frees the context (a finished one needs no sha256_release). */
void sha256_final(struct sha256_ctx *c, unsigned char out[32]);
/* Abandon a hash not finished (an error path); safe after final and on a zeroed context. */
void sha256_release(struct sha256_ctx *c);
/* One-shot: writes 64 lowercase hex digits and a NUL into hex (65 bytes). */
void sha256_hex(const void *data, size_t len, char hex[SHA256_HEX_LEN + 1]);
/* Finish a streaming context into hex (65 bytes); frees it as sha256_final does. */
void sha256_final_hex(struct sha256_ctx *c, char hex[SHA256_HEX_LEN + 1]);
/* Hash a whole file into hex. Returns 0, or -1 with errno set. */
int sha256_file_hex(const char *path, char hex[SHA256_HEX_LEN + 1]);
/* Append "libcrypto VERSION" (the library linked at run time) for `dipmap version`. */
void sha256_library_version(struct strbuf *out);

#endif

/*
 * SHA-256 through libcrypto's EVP interface (sha256.h). dipmap hashes prompts
 * and input files for provenance; libcurl already loads libcrypto, whose
 * SHA-256 uses the CPU's SHA extensions where there are some. The digest is
 * fetched once per process; each hash owns one EVP_MD_CTX.
 */
#include "base/sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "base/strbuf.h"

#include "base/banned.h"

static EVP_MD *sha256_md; /* fetched once, kept for the process */
static pthread_once_t sha256_once = PTHREAD_ONCE_INIT;

static void fetch_md(void)
{
    sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
}

/* libcrypto failing to hash is out of memory or a broken install: abort as xmalloc does. */
static void crypto_fatal(const char *what)
{
    fprintf(stderr, "fatal: libcrypto: %s failed (out of memory, or no SHA-256 provider)\n", what);
    abort();
}

void sha256_init(struct sha256_ctx *c)
{
    pthread_once(&sha256_once, fetch_md);
    if (!sha256_md)
        crypto_fatal("EVP_MD_fetch(SHA256)");
    c->md = EVP_MD_CTX_new();
    if (!c->md || !EVP_DigestInit_ex(c->md, sha256_md, NULL))
        crypto_fatal("EVP_DigestInit_ex");
}

void sha256_update(struct sha256_ctx *c, const void *data, size_t len)
{
    if (len && !EVP_DigestUpdate(c->md, data, len))
        crypto_fatal("EVP_DigestUpdate");
}

void sha256_final(struct sha256_ctx *c, unsigned char out[32])
{
    unsigned int n = 0;
    if (!EVP_DigestFinal_ex(c->md, out, &n) || n != 32)
        crypto_fatal("EVP_DigestFinal_ex");
    sha256_release(c);
}

void sha256_release(struct sha256_ctx *c)
{
    EVP_MD_CTX_free(c->md);
    c->md = NULL;
}

void sha256_final_hex(struct sha256_ctx *c, char hex[SHA256_HEX_LEN + 1])
{
    static const char digits[] = "0123456789abcdef";
    unsigned char d[32];
    int i;
    sha256_final(c, d);
    for (i = 0; i < 32; i++) {
        hex[2 * i] = digits[d[i] >> 4];
        hex[2 * i + 1] = digits[d[i] & 15];
    }
    hex[SHA256_HEX_LEN] = '\0';
}

void sha256_hex(const void *data, size_t len, char hex[SHA256_HEX_LEN + 1])
{
    struct sha256_ctx c;
    sha256_init(&c);
    sha256_update(&c, data, len);
    sha256_final_hex(&c, hex);
}

int sha256_file_hex(const char *path, char hex[SHA256_HEX_LEN + 1])
{
    struct sha256_ctx c;
    unsigned char buf[65536];
    int fd = open(path, O_RDONLY | O_CLOEXEC), saved;
    ssize_t n;
    if (fd < 0)
        return -1;
    sha256_init(&c);
    while ((n = read(fd, buf, sizeof(buf))) != 0) {
        if (n < 0) {
            if (errno == EINTR)
                continue;
            saved = errno;
            close(fd);
            sha256_release(&c);
            errno = saved;
            return -1;
        }
        sha256_update(&c, buf, (size_t)n);
    }
    close(fd);
    sha256_final_hex(&c, hex);
    return 0;
}

void sha256_library_version(struct strbuf *out)
{
    strbuf_addf(out, "libcrypto %s", OpenSSL_version(OPENSSL_VERSION_STRING));
}

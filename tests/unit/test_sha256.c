/* SHA-256 against the FIPS 180-4 / NIST example vectors, streaming and one-shot. */
#include <stdlib.h>
#include <unistd.h>

#include "base/sha256.h"
#include "run/trial.h"

#include "test.h"

static void test_sha256_vectors(void)
{
    char hex[65];
    sha256_hex("", 0, hex);
    CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    sha256_hex("abc", 3, hex);
    CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, hex);
    CHECK_STR(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void test_sha256_streaming_million_a(void)
{
    struct sha256_ctx c;
    char hex[65], a[1001];
    int i;
    memset(a, 'a', sizeof(a));
    sha256_init(&c);
    for (i = 0; i < 1000; i++)
        sha256_update(&c, a, i % 2 ? 999 : 1001); /* uneven chunks cross block edges */
    sha256_final_hex(&c, hex);
    CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* An abandoned hash is released (ASan's leak check sees it); release is safe after final and twice.
 */
static void test_sha256_release(void)
{
    struct sha256_ctx c = {0};
    char hex[65];
    sha256_release(&c);
    sha256_init(&c);
    sha256_update(&c, "ab", 2);
    sha256_release(&c);
    CHECK(c.md == NULL);
    sha256_release(&c);
    sha256_init(&c);
    sha256_update(&c, "", 0);
    sha256_update(&c, "ab", 2);
    sha256_update(&c, "c", 1);
    sha256_final_hex(&c, hex);
    CHECK(c.md == NULL);
    sha256_release(&c);
    CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void test_sha256_file(void)
{
    char path[] = "/tmp/dipmap-sha-XXXXXX", hex[65];
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK_INT(write(fd, "abc", 3), 3);
    close(fd);
    CHECK_INT(sha256_file_hex(path, hex), 0);
    CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    unlink(path);
    CHECK_INT(sha256_file_hex(path, hex), -1);
}

static void test_outcome_names(void)
{
    enum trial_outcome o;
    int i;
    for (i = 0; i < OUTCOME__COUNT; i++) {
        CHECK_INT(outcome_parse(outcome_name((enum trial_outcome)i), &o), 0);
        CHECK_INT(o, i);
    }
    CHECK_INT(outcome_parse("bogus", &o), -1);
    CHECK(outcome_is_scored(OUTCOME_WRONG));
    CHECK(!outcome_is_scored(OUTCOME_TRUNCATED));
    CHECK(!outcome_is_scored(OUTCOME_PENDING));
}

int main(void)
{
    RUN(test_sha256_vectors);
    RUN(test_sha256_streaming_million_a);
    RUN(test_sha256_file);
    RUN(test_sha256_release);
    RUN(test_outcome_names);
    return TEST_EXIT();
}

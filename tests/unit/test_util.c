/* Unit tests for the small utilities: strbuf, strvec, num, opt, proc, xalloc, utc, base64, hash,
 * rng. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/base64.h"
#include "base/hash.h"
#include "base/hashmap.h"
#include "base/strpool.h"
#include "base/num.h"
#include "base/opt.h"
#include "base/proc.h"
#include "base/rng.h"
#include "base/secret.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/usage.h"
#include "base/utc.h"
#include "base/xalloc.h"

#include "test.h"

/* RFC 4648's test vectors both ways, and every byte outside the alphabet refused. */
static void test_base64(void)
{
    static const char *const plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    static const char *const coded[] = {"",         "Zg==",     "Zm8=",    "Zm9v",
                                        "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    const char *a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    struct strbuf sb = STRBUF_INIT;
    size_t i;
    int c, valid = 0;
    for (i = 0; i < sizeof(plain) / sizeof(*plain); i++) {
        strbuf_reset(&sb);
        base64_encode(&sb, plain[i], strlen(plain[i]));
        CHECK_STR(sb.buf, coded[i]);
    }
    for (i = 0; i < 64; i++)
        CHECK_INT(base64_value((unsigned char)a[i]), (int)i);
    for (c = 0; c < 256; c++)
        valid += base64_value((unsigned char)c) >= 0;
    CHECK_INT(valid, 64);
    CHECK_INT(base64_value('='), -1);
    strbuf_release(&sb);
}

/* UTC whatever the zone; an unset time appends nothing and says so. */
static void test_utc_format(void)
{
    struct strbuf sb = STRBUF_INIT;
    setenv("TZ", "XYZ-5", 1); /* POSIX form: five hours east, no zone files needed */
    tzset();
    CHECK_INT(utc_format(&sb, 1764494115.7, "%Y-%m-%d %H:%M:%S UTC"), 0);
    CHECK_STR(sb.buf, "2025-11-30 09:15:15 UTC");
    strbuf_reset(&sb);
    CHECK_INT(utc_format(&sb, 1764494115, "%Y-%m-%dT%H:%M:%SZ"), 0);
    CHECK_STR(sb.buf, "2025-11-30T09:15:15Z");
    strbuf_reset(&sb);
    CHECK_INT(utc_format(&sb, 0, "%Y"), -1);
    CHECK_INT(utc_format(&sb, -5, "%Y"), -1);
    CHECK_STR(sb.buf, "");
    unsetenv("TZ");
    tzset();
    strbuf_release(&sb);
}

/* FNV-1a's published 64-bit vectors, and the historic dipmap basis the prompt shuffles start from.
 */
static void test_fnv64(void)
{
    CHECK(fnv64(FNV64_INIT, "", 0) == 0xcbf29ce484222325ULL);
    CHECK(fnv64(FNV64_INIT, "a", 1) == 0xaf63dc4c8601ec8cULL);
    CHECK(fnv64_str(FNV64_INIT, "foobar") == 0x85944171f73967e8ULL);
    CHECK(fnv64(fnv64(FNV64_INIT, "foo", 3), "bar", 3) == fnv64_str(FNV64_INIT, "foobar"));
    CHECK(fnv64_step(FNV64_INIT, 'a') == 0xaf63dc4c8601ec8cULL);
    CHECK(FNV64_INIT_DIPMAP == 1469598103934665603ULL);
    CHECK(fnv64_str(FNV64_INIT_DIPMAP, "run") == fnv64(FNV64_INIT_DIPMAP, "run", 3));
}

static int word_is(const void *key, size_t entry, const void *words)
{
    return !strcmp(((const char *const *)words)[entry], key);
}

/*
 * The one hash map: first put wins, every entry found again after the table has grown,
 * absent keys are HASHMAP_NONE, and equal hashes of different keys (all hashed to 7 here)
 * are told apart by the caller's comparison.
 */
/* One copy per distinct string: equal strings the same pointer, across a table grown past 1000. */
static void test_strpool(void)
{
    struct strpool p = STRPOOL_INIT;
    const char *a = strpool_intern(&p, "q1"), *first[2000];
    char buf[16];
    int i, same = 1;
    CHECK_STR(a, "q1");
    CHECK(strpool_intern(&p, "q1") == a);
    CHECK(strpool_intern(&p, "q2") != a);
    CHECK(strpool_intern(&p, NULL) == NULL);
    CHECK(strpool_intern(&p, "") != NULL);
    for (i = 0; i < 2000; i++) {
        snprintf(buf, sizeof(buf), "id-%d", i);
        first[i] = strpool_intern(&p, buf);
    }
    for (i = 0; i < 2000; i++) {
        snprintf(buf, sizeof(buf), "id-%d", i);
        same &= strpool_intern(&p, buf) == first[i] && !strcmp(first[i], buf);
    }
    CHECK(same);
    CHECK_INT(p.nr, 2003);
    CHECK(strpool_intern(&p, "q1") == a);
    strpool_clear(&p);
    CHECK_INT(p.nr, 0);
    CHECK_STR(strpool_intern(&p, "again"), "again");
    strpool_clear(&p);
}

static void test_hashmap(void)
{
    struct hashmap m = HASHMAP_INIT, same = HASHMAP_INIT;
    char **w = xcalloc(1000, sizeof(*w));
    size_t i, found = 0;
    CHECK(hashmap_find(&m, 1, "x", word_is, w) == HASHMAP_NONE);
    for (i = 0; i < 1000; i++) {
        struct strbuf sb = STRBUF_INIT;
        strbuf_addf(&sb, "w%zu", i % 700); /* 300 repeats of earlier words */
        w[i] = strbuf_detach(&sb, NULL);
        if (hashmap_put(&m, fnv64_str(FNV64_INIT, w[i]), w[i], i, word_is, w) == HASHMAP_NONE)
            found++;
        else
            CHECK(hashmap_put(&m, fnv64_str(FNV64_INIT, w[i]), w[i], i, word_is, w) == i - 700);
    }
    CHECK_INT((long)found, 700);
    CHECK_INT((long)m.nr, 700);
    CHECK(m.cap >= 1400 && !(m.cap & (m.cap - 1)));
    for (i = 0; i < 700; i++)
        CHECK(hashmap_find(&m, fnv64_str(FNV64_INIT, w[i]), w[i], word_is, w) == i);
    CHECK(hashmap_find(&m, fnv64_str(FNV64_INIT, "w700"), "w700", word_is, w) == HASHMAP_NONE);
    for (i = 0; i < 50; i++)
        CHECK(hashmap_put(&same, 7, w[i], i, word_is, w) == HASHMAP_NONE);
    for (i = 0; i < 50; i++)
        CHECK(hashmap_find(&same, 7, w[i], word_is, w) == i);
    CHECK(hashmap_find(&same, 7, "w60", word_is, w) == HASHMAP_NONE);
    hashmap_clear(&m);
    hashmap_clear(&same);
    CHECK(m.slot == NULL && m.nr == 0 && m.cap == 0);
    CHECK(hashmap_find(&m, 1, "w1", word_is, w) == HASHMAP_NONE);
    for (i = 0; i < 1000; i++)
        free(w[i]);
    free(w);
}

/* The clocks: the wall clock agrees with time(), the monotonic one never goes back, a sleep lasts.
 */
static void test_utc_clocks(void)
{
    double wall = utc_now(), t0 = utc_monotonic_ms(), t1;
    CHECK(wall > 1.7e9 && fabs(wall - (double)time(NULL)) < 2);
    utc_sleep_ms(0);
    utc_sleep_ms(-5);
    utc_sleep_ms(2);
    t1 = utc_monotonic_ms();
    CHECK(t1 - t0 >= 1.9);
}

/* rng_below and the shuffle: a permutation, the same for a seed, pinned (the prompts seed it). */
static void test_rng_shuffle(void)
{
    size_t a[10], seen = 0, i;
    uint64_t st = 42, st2 = 42;
    for (i = 0; i < 10; i++)
        a[i] = i;
    rng_shuffle_sizes(a, 10, &st);
    for (i = 0; i < 10; i++)
        seen |= (size_t)1 << a[i];
    CHECK_INT((long)seen, 0x3ff);
    for (i = 10; i > 1; i--)
        (void)rng_below(&st2, i);
    CHECK(st == st2); /* one step per swap */
    {
        char got[32] = "";
        for (i = 0; i < 10; i++)
            got[i] = (char)('0' + a[i]);
        CHECK_STR(got, "0958647213"); /* Fisher-Yates over splitmix64 from 42, by hand in Python */
    }
    rng_shuffle_sizes(a, 1, &st);
    rng_shuffle_sizes(a, 0, &st);
    CHECK(st == st2);
}

static void test_strbuf_empty(void)
{
    struct strbuf sb = STRBUF_INIT;
    CHECK_INT(sb.len, 0);
    CHECK_STR(sb.buf, "");
    strbuf_trim(&sb);
    CHECK_STR(sb.buf, "");
    strbuf_release(&sb);
    CHECK_STR(sb.buf, "");
    {
        size_t n = 99;
        char *s = strbuf_detach(&sb, &n);
        CHECK_INT(n, 0);
        CHECK_STR(s, "");
        free(s);
    }
}

static void test_strbuf_append_huge(void)
{
    struct strbuf sb = STRBUF_INIT;
    size_t i;
    for (i = 0; i < 100000; i++)
        strbuf_addf(&sb, "%05zu", i % 100000);
    CHECK_INT(sb.len, 500000);
    CHECK(!memcmp(sb.buf + 499995, "99999", 5));
    CHECK_INT(sb.buf[sb.len], 0);
    strbuf_release(&sb);
}

static void test_strbuf_embedded_nul(void)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_add(&sb, "a\0b", 3);
    CHECK_INT(sb.len, 3);
    CHECK(!memcmp(sb.buf, "a\0b", 4));
    strbuf_addch(&sb, 0);
    CHECK_INT(sb.len, 4);
    strbuf_release(&sb);
}

static void test_strbuf_cap(void)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_set_cap(&sb, 10);
    CHECK_INT(strbuf_add_capped(&sb, "0123456789", 10), 0);
    CHECK_INT(strbuf_add_capped(&sb, "x", 1), -1);
    CHECK_INT(sb.len, 10);
    CHECK_STR(sb.buf, "0123456789");
    strbuf_reset(&sb);
    CHECK_INT(strbuf_add_capped(&sb, "abc", (size_t)-1), -1);
    CHECK_INT(sb.len, 0);
    /* the program's own appends stay within the cap without a check */
    strbuf_addf(&sb, "%s", "012345678");
    strbuf_addch(&sb, '9');
    CHECK_STR(sb.buf, "0123456789");
    strbuf_release(&sb);
}

/* A plain append that would pass the cap is a broken invariant: the child aborts in BUG(). */
static void test_strbuf_plain_append_past_cap_is_bug(void)
{
    int status = 0;
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        struct strbuf sb = STRBUF_INIT;
        if (!freopen("/dev/null", "w", stderr))
            _exit(2);
        strbuf_set_cap(&sb, 4);
        strbuf_addstr(&sb, "01234");
        _exit(0);
    }
    CHECK_INT(waitpid(pid, &status, 0), pid);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
}

static void test_strbuf_trim_and_file(void)
{
    struct strbuf sb = STRBUF_INIT;
    char path[] = "/tmp/dipmap-test-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK_INT(write(fd, "hello\nworld\n", 12), 12);
    close(fd);
    CHECK_INT(strbuf_read_file(&sb, path), 0);
    CHECK_STR(sb.buf, "hello\nworld\n");
    strbuf_trim(&sb);
    CHECK_STR(sb.buf, "hello\nworld");
    strbuf_reset(&sb);
    strbuf_set_cap(&sb, 5);
    CHECK_INT(strbuf_read_file(&sb, path), -1);
    CHECK_INT(errno, EFBIG);
    strbuf_release(&sb);
    CHECK_INT(strbuf_read_file(&sb, "/nonexistent/dipmap"), -1);
    CHECK_INT(errno, ENOENT);
    {
        FILE *fp = fopen(path, "r");
        strbuf_set_cap(&sb, 3);
        CHECK_INT(strbuf_getline(&sb, fp), -1);
        CHECK_STR(sb.buf, "hel");
        strbuf_set_cap(&sb, 0);
        CHECK_INT(strbuf_getline(&sb, fp), 1);
        CHECK_STR(sb.buf, "world");
        CHECK_INT(strbuf_getline(&sb, fp), 0);
        fclose(fp);
    }
    unlink(path);
    strbuf_release(&sb);
}

static void test_strvec(void)
{
    struct strvec sv = STRVEC_INIT;
    CHECK_INT(sv.nr, 0);
    CHECK(sv.v[0] == NULL);
    strvec_push(&sv, "a");
    strvec_pushf(&sv, "%d", 42);
    CHECK_INT(sv.nr, 2);
    CHECK_STR(sv.v[1], "42");
    CHECK(sv.v[2] == NULL);
    CHECK_INT(strvec_find(&sv, "42"), 1);
    CHECK_INT(strvec_find(&sv, "x"), -1);
    strvec_pop(&sv);
    CHECK_INT(sv.nr, 1);
    CHECK(sv.v[1] == NULL);
    strvec_clear(&sv);
    CHECK_INT(strvec_split(&sv, "8k,,32k", ','), 3);
    CHECK_STR(sv.v[0], "8k");
    CHECK_STR(sv.v[1], "");
    CHECK_STR(sv.v[2], "32k");
    strvec_clear(&sv);
    CHECK_INT(strvec_split(&sv, "", ','), 1);
    CHECK_STR(sv.v[0], "");
    strvec_clear(&sv);
    {
        size_t i;
        for (i = 0; i < 10000; i++)
            strvec_pushf(&sv, "item%zu", i);
        CHECK_STR(sv.v[9999], "item9999");
        strvec_clear(&sv);
    }
}

static void test_parse_long(void)
{
    long v = 7;
    CHECK_INT(parse_long("12", &v), 0);
    CHECK_INT(v, 12);
    CHECK_INT(parse_long("-5", &v), 0);
    CHECK_INT(v, -5);
    v = 7;
    CHECK_INT(parse_long("12x", &v), -1);
    CHECK_INT(parse_long("", &v), -1);
    CHECK_INT(parse_long("-", &v), -1);
    CHECK_INT(parse_long(" 1", &v), -1);
    CHECK_INT(parse_long("1 ", &v), -1);
    CHECK_INT(parse_long("0x10", &v), -1);
    CHECK_INT(parse_long("99999999999999999999", &v), -1);
    CHECK_INT(parse_long(NULL, &v), -1);
    CHECK_INT(v, 7);
    CHECK_INT(parse_long_range("5", 1, 4, &v), -1);
    CHECK_INT(parse_long_range("4", 1, 4, &v), 0);
    CHECK_INT(v, 4);
}

static void test_parse_ulong_double(void)
{
    unsigned long u;
    double d;
    CHECK_INT(parse_ulong("-1", &u), -1);
    CHECK_INT(parse_ulong("+1", &u), -1);
    CHECK_INT(parse_ulong("18446744073709551616", &u), -1);
    CHECK_INT(parse_ulong("42", &u), 0);
    CHECK_INT(u, 42);
    CHECK_INT(parse_double("0.25", &d), 0);
    CHECK_NEAR(d, 0.25, 0);
    CHECK_INT(parse_double("1e400", &d), -1);
    CHECK_INT(parse_double("nan", &d), -1);
    CHECK_INT(parse_double("inf", &d), -1);
    CHECK_INT(parse_double("-inf", &d), -1);
    CHECK_INT(parse_double("-nan", &d), -1);
    CHECK_INT(parse_double("1.5x", &d), -1);
    CHECK_INT(parse_double("", &d), -1);
    CHECK_INT(parse_double_range("1.5", 0, 1, &d), -1);
    CHECK_INT(parse_double_range("nan", 0, 1, &d), -1);
    CHECK_NEAR(d, 0.25, 0); /* untouched by the failures */
    CHECK_INT(parse_double_range("-0.5", -1, 1, &d), 0);
    CHECK_NEAR(d, -0.5, 0);
    CHECK_INT(parse_ulong("18446744073709551615", &u), 0);
    CHECK_INT(u == ULONG_MAX, 1);
}

/* One spelling of drops and tolerances for every option: 0.05, 5pp, 5%; a bare 5 is refused. */
static void test_parse_points(void)
{
    double d = -1;
    CHECK_INT(parse_points("0.05", &d), 0);
    CHECK_NEAR(d, 0.05, 1e-12);
    CHECK_INT(parse_points("5pp", &d), 0);
    CHECK_NEAR(d, 0.05, 1e-12);
    CHECK_INT(parse_points("5%", &d), 0);
    CHECK_NEAR(d, 0.05, 1e-12);
    CHECK_INT(parse_points("12.5pp", &d), 0);
    CHECK_NEAR(d, 0.125, 1e-12);
    CHECK_INT(parse_points("1", &d), 0);
    CHECK_NEAR(d, 1.0, 1e-12);
    CHECK_INT(parse_points("-0.1", &d), 0); /* signs pass; callers check ranges */
    CHECK_NEAR(d, -0.1, 1e-12);
    d = 7;
    CHECK_INT(parse_points("5", &d), -1); /* 5 pp or 500%? */
    CHECK_INT(parse_points("pp", &d), -1);
    CHECK_INT(parse_points("%", &d), -1);
    CHECK_INT(parse_points("5 pp", &d), -1);
    CHECK_INT(parse_points("5ppp", &d), -1);
    CHECK_INT(parse_points("", &d), -1);
    CHECK_INT(parse_points(NULL, &d), -1);
    CHECK_NEAR(d, 7, 0); /* untouched on failure */
}

static void test_parse_token_count(void)
{
    long v;
    CHECK_INT(parse_token_count("8k", 1L << 30, &v), 0);
    CHECK_INT(v, 8192);
    CHECK_INT(parse_token_count("32K", 1L << 30, &v), 0);
    CHECK_INT(v, 32768);
    CHECK_INT(parse_token_count("1m", 1L << 30, &v), 0);
    CHECK_INT(v, 1048576);
    CHECK_INT(parse_token_count("1000", 1L << 30, &v), 0);
    CHECK_INT(v, 1000);
    CHECK_INT(parse_token_count("0", 1L << 30, &v), -1);
    CHECK_INT(parse_token_count("-8k", 1L << 30, &v), -1);
    CHECK_INT(parse_token_count("8q", 1L << 30, &v), -1);
    CHECK_INT(parse_token_count("k", 1L << 30, &v), -1);
    CHECK_INT(parse_token_count("", 1L << 30, &v), -1);
    CHECK_INT(parse_token_count("10M", 1L << 20, &v), -1);
    CHECK_INT(parse_token_count("99999999999999999999k", LONG_MAX, &v), -1);
    CHECK_INT(parse_token_count("9007199254740993k", LONG_MAX, &v), -1);
}

static struct strbuf captured = STRBUF_INIT;
static void capture(const char *prefix, const char *msg)
{
    strbuf_addf(&captured, "%s: %s\n", prefix, msg);
}

static void test_error_api(void)
{
    usage_set_hook(capture);
    CHECK_INT(error("%s:%d: \"%s\" must be a string", "x.jsonl", 17, "id"), -1);
    warning("careful");
    usage_set_hook(NULL);
    CHECK_STR(captured.buf, "error: x.jsonl:17: \"id\" must be a string\nwarning: careful\n");
    strbuf_release(&captured);
}

static void test_opt(void)
{
    const char *file = NULL;
    long n = 1;
    double x = 0;
    int flag = 0;
    struct strvec list = STRVEC_INIT, rest = STRVEC_INIT;
    struct option opts[] = {
        OPT_STRING('f', "file", &file, "FILE", "a file"), OPT_LONG(0, "n", &n, "N", "a count"),
        OPT_DOUBLE(0, "x", &x, "X", "a number"),          OPT_BOOL(0, "flag", &flag, "a flag"),
        OPT_LIST(0, "header", &list, "H", "repeatable"),  OPT_END(),
    };
    const char *const usage[] = {"dipmap t [options]", NULL};
    const char *argv[] = {
        "t",   "pos1",   "--file=a.txt", "--n",  "5",        "-f",   "b.txt", "--x",
        "0.5", "--flag", "--header",     "K: V", "--header", "L: W", "--",    "--not-an-option"};
    usage_set_hook(capture);
    CHECK_INT(parse_options((int)(sizeof(argv) / sizeof(*argv)), argv, opts, usage, &rest), 0);
    CHECK_STR(file, "b.txt");
    CHECK_INT(n, 5);
    CHECK_NEAR(x, 0.5, 0);
    CHECK_INT(flag, 1);
    CHECK_INT(list.nr, 2);
    CHECK_STR(list.v[1], "L: W");
    CHECK_INT(rest.nr, 2);
    CHECK_STR(rest.v[0], "pos1");
    CHECK_STR(rest.v[1], "--not-an-option");
    CHECK(opt_find(opts, "n")->seen);
    {
        const char *bad1[] = {"t", "--bogus"};
        const char *bad2[] = {"t", "--n"};
        const char *bad3[] = {"t", "--n", "12x"};
        const char *neg[] = {"t", "--no-flag"};
        CHECK_INT(parse_options(2, bad1, opts, usage, &rest), -1);
        CHECK_INT(parse_options(2, bad2, opts, usage, &rest), -1);
        CHECK_INT(parse_options(3, bad3, opts, usage, &rest), -1);
        CHECK_INT(parse_options(2, neg, opts, usage, &rest), 0);
        CHECK_INT(flag, 0);
    }
    usage_set_hook(NULL);
    CHECK(strstr(captured.buf, "unknown option '--bogus'") != NULL);
    CHECK(strstr(captured.buf, "'--n' requires a value") != NULL);
    CHECK(strstr(captured.buf, "'--n' expects an integer, got '12x'") != NULL);
    strbuf_release(&captured);
    strvec_clear(&list);
    strvec_clear(&rest);
}

static void test_proc(void)
{
    struct strbuf out = STRBUF_INIT, err = STRBUF_INIT, big = STRBUF_INIT;
    int status = -1;
    const char *cat[] = {"cat", NULL};
    const char *sh_fail[] = {"sh", "-c", "echo oops >&2; exit 3", NULL};
    const char *missing[] = {"dipmap-no-such-program", NULL};
    const char *literal[] = {"echo", "$(touch pwned)", "`id`", NULL};
    size_t i;

    for (i = 0; i < 200000; i++)
        strbuf_addstr(&big, "0123456789");
    CHECK_INT(proc_run(cat, big.buf, big.len, &out, &err, &status), 0);
    CHECK_INT(status, 0);
    CHECK_INT(out.len, big.len);
    CHECK(!memcmp(out.buf, big.buf, big.len));
    strbuf_reset(&out);
    CHECK_INT(proc_run(sh_fail, NULL, 0, &out, &err, &status), 0);
    CHECK_INT(status, 3);
    CHECK_STR(err.buf, "oops\n");
    errno = 0;
    CHECK_INT(proc_run(missing, NULL, 0, NULL, NULL, &status), -1);
    CHECK_INT(errno, ENOENT);
    CHECK(!proc_available("dipmap-no-such-program"));
    CHECK(proc_available("sh"));
    CHECK_INT(proc_run(literal, NULL, 0, &out, NULL, &status), 0);
    CHECK_STR(out.buf, "$(touch pwned) `id`\n");
    strbuf_release(&out);
    strbuf_release(&err);
    strbuf_release(&big);
}

static void test_xalloc(void)
{
    char *s = xstrndup("abcdef", 3);
    char *m = xmemdup("a\0b", 3);
    int *arr = NULL;
    size_t nr = 0, alloc = 0;
    CHECK_STR(s, "abc");
    CHECK(!memcmp(m, "a\0b\0", 4));
    for (nr = 0; nr < 1000; nr++) {
        ALLOC_GROW(arr, nr + 1, alloc);
        arr[nr] = (int)nr;
    }
    CHECK(alloc >= 1000);
    CHECK_INT(arr[999], 999);
    CHECK_INT(st_add(1, 2), 3);
    free(arr);
    free(s);
    free(m);
}

/* The one secret detector: the union of the old client, run and store word lists. */
static void test_secret(void)
{
    static const char *const yes[] = {"Authorization",
                                      "Proxy-Authorization",
                                      "X-Api-Key",
                                      "api_key",
                                      "apikey",
                                      "x-goog-api-key",
                                      "Ocp-Apim-Subscription-Key",
                                      "Cookie",
                                      "Set-Cookie",
                                      "X-Auth-Token",
                                      "session_token",
                                      "accessToken",
                                      "Private-Token",
                                      "password",
                                      "db.passwd",
                                      "client_secret",
                                      "X-Secret-Id",
                                      "bearer",
                                      "X-Amz-Credential",
                                      "credentials",
                                      "X-Auth",
                                      NULL};
    static const char *const no[] = {"max-tokens",   "max_tokens",   "max-tokens-field",
                                     "top-p",        "Content-Type", "Keep-Alive",
                                     "X-Request-Id", "api-key-env",  "seed",
                                     "author",       "x-model",      NULL};
    size_t n = 0;
    for (int i = 0; yes[i]; i++) {
        if (!secret_name(yes[i], strlen(yes[i])))
            fprintf(stderr, "  not secret: %s\n", yes[i]);
        CHECK(secret_name(yes[i], strlen(yes[i])));
    }
    for (int i = 0; no[i]; i++) {
        if (secret_name(no[i], strlen(no[i])))
            fprintf(stderr, "  secret: %s\n", no[i]);
        CHECK(!secret_name(no[i], strlen(no[i])));
    }
    CHECK(secret_header("X-Api-Key: abc", 14, &n) && n == 9);
    CHECK(!secret_header("Content-Type: x", 15, &n));
    CHECK(!secret_header("no colon", 8, &n));
    CHECK(secret_value("Bearer abc"));
    CHECK(secret_value("  basic dXNlcjpwYXNz"));
    CHECK(secret_value("sk-0123456789abcdefghij"));
    CHECK(!secret_value("sk-short"));
    CHECK(secret_value("X-Api-Key: abc"));
    CHECK(!secret_value("http://host:8000/v1"));
}

int main(void)
{
    RUN(test_strbuf_empty);
    RUN(test_strbuf_append_huge);
    RUN(test_strbuf_embedded_nul);
    RUN(test_strbuf_cap);
    RUN(test_strbuf_plain_append_past_cap_is_bug);
    RUN(test_strbuf_trim_and_file);
    RUN(test_strvec);
    RUN(test_parse_long);
    RUN(test_parse_ulong_double);
    RUN(test_parse_points);
    RUN(test_parse_token_count);
    RUN(test_error_api);
    RUN(test_opt);
    RUN(test_proc);
    RUN(test_xalloc);
    RUN(test_secret);
    RUN(test_utc_format);
    RUN(test_base64);
    RUN(test_fnv64);
    RUN(test_hashmap);
    RUN(test_strpool);
    RUN(test_utc_clocks);
    RUN(test_rng_shuffle);
    return TEST_EXIT();
}

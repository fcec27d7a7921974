#ifndef TEST_H
#define TEST_H

/*
 * A minimal unit-test harness. Each test_*.c defines static test functions
 * and a main() that RUN()s them; every test prints "ok - name" or
 * "not ok - name" (TAP style) and tests/run.sh counts those lines. A test that
 * cannot run here (an optional tool is missing) calls TEST_SKIP("why") and
 * returns: it prints "ok - name # skip why", which tests/run.sh counts as skipped.
 */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static int test_failed_;
static int test_total_failed_;
static const char *test_skip_;

#define TEST_SKIP(why) (test_skip_ = (why))

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "  %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);             \
            test_failed_ = 1;                                                                      \
        }                                                                                          \
    } while (0)

#define CHECK_INT(a, b)                                                                            \
    do {                                                                                           \
        long long a_ = (long long)(a), b_ = (long long)(b);                                        \
        if (a_ != b_) {                                                                            \
            fprintf(stderr, "  %s:%d: %s == %lld, expected %lld\n", __FILE__, __LINE__, #a, a_,    \
                    b_);                                                                           \
            test_failed_ = 1;                                                                      \
        }                                                                                          \
    } while (0)

#define CHECK_STR(a, b)                                                                            \
    do {                                                                                           \
        const char *a_ = (a), *b_ = (b);                                                           \
        if (!a_ || !b_ || strcmp(a_, b_)) {                                                        \
            fprintf(stderr, "  %s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #a,    \
                    a_ ? a_ : "(null)", b_ ? b_ : "(null)");                                       \
            test_failed_ = 1;                                                                      \
        }                                                                                          \
    } while (0)

#define CHECK_NEAR(a, b, eps)                                                                      \
    do {                                                                                           \
        double a_ = (double)(a), b_ = (double)(b);                                                 \
        if (!(fabs(a_ - b_) <= (eps))) {                                                           \
            fprintf(stderr, "  %s:%d: %s == %.10g, expected %.10g (±%g)\n", __FILE__, __LINE__,    \
                    #a, a_, b_, (double)(eps));                                                    \
            test_failed_ = 1;                                                                      \
        }                                                                                          \
    } while (0)

/* TEST_ONLY=SUBSTRING runs only the tests whose name contains it (while developing). */
#define RUN(fn)                                                                                    \
    do {                                                                                           \
        if (getenv("TEST_ONLY") && !strstr(#fn, getenv("TEST_ONLY")))                              \
            break;                                                                                 \
        test_failed_ = 0;                                                                          \
        test_skip_ = NULL;                                                                         \
        fn();                                                                                      \
        if (test_skip_ && !test_failed_)                                                           \
            printf("ok - %s # skip %s\n", #fn, test_skip_);                                        \
        else                                                                                       \
            printf("%s - %s\n", test_failed_ ? "not ok" : "ok", #fn);                              \
        fflush(stdout);                                                                            \
        test_total_failed_ += test_failed_;                                                        \
    } while (0)

#define TEST_EXIT() (test_total_failed_ ? 1 : 0)

/* The repository's tests/data ($TESTS/data when tests/run.sh sets TESTS, else relative to the
 * repository root, where `make test` runs the unit tests). */
static inline const char *test_data_dir(void)
{
    static char buf[4096];
    const char *t = getenv("TESTS");
    if (!t || !*t)
        return "tests/data";
    snprintf(buf, sizeof(buf), "%s/data", t);
    return buf;
}

#endif

/*
 * Retry-After and rate-limit reset parsing (client/client_retry_after.c): the durations of the
 * x-ratelimit-reset-* headers, HTTP dates through curl_getdate, and the Retry-After header in
 * seconds or as a date. The fuzzed header classifier is tests/fuzz/fuzz_retry_after.c.
 */
#define _GNU_SOURCE
#include "client/client.h"

#include <time.h>

#include "client/client-int.h"
#include "base/strbuf.h"
#include "test.h"

static void test_durations(void)
{
    static const struct {
        const char *in;
        long ms;
    } cases[] = {
        {"6m0s", 360000}, {"1.5s", 1500}, {"500ms", 500},    {"12ms", 12},        {"1s", 1000},
        {"20", 20000},    {"0.5", 500},   {"1h2m", 3720000}, {"2m30.5s", 150500}, {"1d", 86400000},
        {"250us", 1},     {"0s", 0},      {" 3s", 3000},     {"3s ", 3000},       {"", -1},
        {"abc", -1},      {"6x", -1},     {"-1s", -1},       {"s", -1},           {"1.5.5s", -1},
        {"1 s", -1},      {"inf", -1},    {"nan", -1},       {"0x10", -1},        {"1e3", -1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        long got = client_parse_duration_ms(cases[i].in);
        if (got != cases[i].ms)
            fprintf(stderr, "  duration \"%s\"\n", cases[i].in);
        CHECK_INT(got, cases[i].ms);
    }
    CHECK_INT(client_parse_duration_ms(NULL), -1);
}

/* RFC 7231's three forms, and curl_getdate's wider reading (a named zone, no seconds). */
static void test_http_date(void)
{
    time_t t;
    CHECK_INT(client_parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT", &t), 0);
    CHECK_INT(t, 784111777);
    CHECK_INT(client_parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT", &t), 0);
    CHECK_INT(t, 784111777);
    CHECK_INT(client_parse_http_date("Sun Nov  6 08:49:37 1994", &t), 0);
    CHECK_INT(t, 784111777);
    CHECK_INT(client_parse_http_date("Wed, 21 Oct 2015 07:28:00 GMT", &t), 0);
    CHECK_INT(t, 1445412480);
    CHECK_INT(client_parse_http_date("Thu, 29 Feb 2024 23:59:59 GMT", &t), 0);
    CHECK_INT(t, 1709251199);
    CHECK_INT(client_parse_http_date("120", &t), -1);
    CHECK_INT(client_parse_http_date("Sun, 06 Foo 1994 08:49:37 GMT", &t), -1);
    CHECK_INT(client_parse_http_date("Sun, 06 Nov 1994 08:49 GMT", &t), 0);
    CHECK_INT(t, 784111740);
    CHECK_INT(client_parse_http_date("Sun, 06 Nov 1994 08:49:37 PST", &t), 0);
    CHECK_INT(t, 784111777 + 8 * 3600);
    CHECK_INT(client_parse_http_date("Thu, 01 Jan 1970 00:00:00 GMT", &t), 0);
    CHECK_INT(t, 0);
    CHECK_INT(client_parse_http_date("Wed, 21 Oct 1969 07:28:00 GMT", &t), -1);
    CHECK_INT(client_parse_http_date("soon", &t), -1);
    CHECK_INT(client_parse_http_date("Sun, 06 Nov", &t), -1);
    CHECK_INT(client_parse_http_date(NULL, &t), -1);
    CHECK_INT(client_parse_http_date("", &t), -1);
}

static void test_retry_after(void)
{
    time_t now = 1445412480; /* Wed, 21 Oct 2015 07:28:00 GMT */
    CHECK_INT(client_retry_after_ms("Retry-After: 3\r\n", now), 3000);
    CHECK_INT(client_retry_after_ms("retry-after: 1.5\r\n", now), 1500);
    CHECK_INT(client_retry_after_ms("Retry-After: Wed, 21 Oct 2015 07:28:07 GMT\r\n", now), 7000);
    /* a date in the past: go now */
    CHECK_INT(client_retry_after_ms("Retry-After: Wed, 21 Oct 2015 07:27:00 GMT\r\n", now), 0);
    /* retry-after-ms wins over retry-after */
    CHECK_INT(client_retry_after_ms("Retry-After: 3\r\nretry-after-ms: 250\r\n", now), 250);
    /* the larger of the reset durations */
    CHECK_INT(client_retry_after_ms("x-ratelimit-reset-requests: 1s\r\n"
                                    "x-ratelimit-reset-tokens: 6m0s\r\n",
                                    now),
              360000);
    CHECK_INT(client_retry_after_ms("x-ratelimit-reset-tokens: 500ms\n", now), 500);
    CHECK_INT(client_retry_after_ms("X-RateLimit-Reset-Requests: 1.5s\n", now), 1500);
    /* Retry-After wins over reset durations */
    CHECK_INT(client_retry_after_ms("x-ratelimit-reset-tokens: 6m0s\r\nRetry-After: 2\r\n", now),
              2000);
    /* garbage and negative values are ignored */
    CHECK_INT(client_retry_after_ms("Retry-After: soon\r\n", now), -1);
    CHECK_INT(client_retry_after_ms("Retry-After: -5\r\n", now), -1);
    CHECK_INT(client_retry_after_ms("x-ratelimit-reset-tokens: -1\r\n", now), -1);
    CHECK_INT(client_retry_after_ms("Retry-After: soon\r\nx-ratelimit-reset-tokens: 2s\r\n", now),
              2000);
    CHECK_INT(client_retry_after_ms("HTTP/1.1 429 Too Many Requests\r\nContent-Type: x\r\n", now),
              -1);
    CHECK_INT(client_retry_after_ms(NULL, now), -1);
    CHECK_INT(client_retry_after_ms("", now), -1);
    /* a header whose name only starts like it */
    CHECK_INT(client_retry_after_ms("Retry-After-Foo: 9\r\n", now), -1);

    struct strbuf v = STRBUF_INIT;
    CHECK_INT(client_header_get("A: 1\r\nX-Request-Id:  abc  \r\n", "x-request-id", &v), 0);
    CHECK_STR(v.buf, "abc");
    strbuf_reset(&v);
    CHECK_INT(client_header_get("A: 1\r\n", "b", &v), -1);
    strbuf_release(&v);
}

int main(void)
{
    RUN(test_durations);
    RUN(test_http_date);
    RUN(test_retry_after);
    return TEST_EXIT();
}

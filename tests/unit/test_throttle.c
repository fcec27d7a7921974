/*
 * The client's pacing (client/throttle.c): exponential backoff with jitter (seeded, capped, a
 * Retry-After taken as a floor), AIMD concurrency and the token buckets of --rpm and --tpm.
 */
#include "client/throttle.h"

#include <stdint.h>

#include "client/client.h"

#include "base/strbuf.h"
#include "base/utc.h"
#include "test.h"

/* A classified response as the client hands it to the pacing. */
static struct client_response resp_of(enum client_class cls, enum client_reason reason, long hint)
{
    struct client_response r;
    client_response_init(&r);
    r.cls = cls;
    r.reason = reason;
    r.retry_after_ms = hint;
    return r;
}

static void test_backoff(void)
{
    struct throttle_backoff a, b;
    throttle_backoff_init(&a, 42);
    throttle_backoff_init(&b, 42);
    for (int n = 1; n <= 10; n++) {
        long d = throttle_backoff_delay(&a, n, -1);
        long want = a.base_ms << (n - 1 > 20 ? 20 : n - 1);
        if (want > a.max_ms)
            want = a.max_ms;
        CHECK(d >= want / 2 && d <= want);
        CHECK_INT(throttle_backoff_delay(&b, n, -1), d); /* same seed, same jitter */
    }
    /* jitter varies */
    {
        long first = throttle_backoff_delay(&a, 5, -1);
        int differs = 0;
        for (int i = 0; i < 20; i++)
            differs |= throttle_backoff_delay(&a, 5, -1) != first;
        CHECK(differs);
    }
    /* server hints win, clamped */
    CHECK_INT(throttle_backoff_delay(&a, 1, 2500), 2500);
    CHECK_INT(throttle_backoff_delay(&a, 6, 100), 100);
    CHECK_INT(throttle_backoff_delay(&a, 1, 10 * 60 * 1000), 120000);
    {
        long d = throttle_backoff_delay(&a, 1, 0); /* a zero hint is no hint */
        CHECK(d >= 500 && d <= 1000);
    }
}

static void test_aimd(void)
{
    struct throttle_aimd a;
    struct client_response ok = resp_of(CLIENT_OK, CLIENT_R_NONE, -1);
    struct client_response rl = resp_of(CLIENT_RETRYABLE, CLIENT_R_RATE_LIMIT, -1);
    struct client_response se = resp_of(CLIENT_RETRYABLE, CLIENT_R_SERVER_ERROR, -1);
    double t = 0;
    throttle_aimd_init(&a, 20, 2, 64);
    CHECK_INT(throttle_aimd_limit(&a), 20);
    /* a 429 episode shrinks once: 20 -> 16 */
    throttle_aimd_update(&a, &rl, t);
    CHECK_INT(throttle_aimd_limit(&a), 16);
    for (int i = 0; i < 10; i++)
        throttle_aimd_update(&a, &rl, t + 100 * i);
    CHECK_INT(throttle_aimd_limit(&a), 16);
    CHECK_INT(a.decreases, 1);
    /* no growth during the cooldown */
    for (int i = 0; i < 50; i++)
        throttle_aimd_update(&a, &ok, t + 5000);
    CHECK_INT(throttle_aimd_limit(&a), 16);
    /* repeated 429 episodes keep shrinking, not below min */
    for (int i = 1; i <= 30; i++)
        throttle_aimd_update(&a, &rl, t + 16000.0 * i);
    CHECK_INT(throttle_aimd_limit(&a), 2);
    t = 16000.0 * 31;
    /* slow growth: +1 per `limit` successes */
    for (int i = 0; i < 2; i++)
        throttle_aimd_update(&a, &ok, t);
    CHECK_INT(throttle_aimd_limit(&a), 2); /* 2 + 1/2 + 1/2.5 = 2.9 */
    throttle_aimd_update(&a, &ok, t);
    CHECK_INT(throttle_aimd_limit(&a), 3);
    for (int i = 0; i < 3; i++)
        throttle_aimd_update(&a, &ok, t);
    CHECK_INT(throttle_aimd_limit(&a), 4);
    /* 5xx does not shrink but pauses growth */
    throttle_aimd_update(&a, &se, t);
    CHECK_INT(throttle_aimd_limit(&a), 4);
    for (int i = 0; i < 100; i++)
        throttle_aimd_update(&a, &ok, t + 1000);
    CHECK_INT(throttle_aimd_limit(&a), 4);
    for (int i = 0; i < 100000; i++)
        throttle_aimd_update(&a, &ok, t + 20000);
    CHECK_INT(throttle_aimd_limit(&a), 64);
    /* a long Retry-After extends the hold */
    throttle_aimd_init(&a, 10, 1, 10);
    rl.retry_after_ms = 60000;
    throttle_aimd_update(&a, &rl, 0);
    CHECK_INT(throttle_aimd_limit(&a), 8);
    for (int i = 0; i < 50; i++)
        throttle_aimd_update(&a, &ok, 30000);
    CHECK_INT(throttle_aimd_limit(&a), 8);
    for (int i = 0; i < 50; i++)
        throttle_aimd_update(&a, &ok, 61000);
    CHECK(throttle_aimd_limit(&a) > 8);
    /* bounds are sane */
    throttle_aimd_init(&a, 0, 0, 0);
    CHECK_INT(throttle_aimd_limit(&a), 1);
}

static void test_buckets(void)
{
    struct throttle_bucket b;
    double t = 1000;
    int sent = 0;
    /* 60 rpm: one now, then one per second (no burst: the first minute holds the limit too) */
    throttle_bucket_init(&b, 60, t);
    while (throttle_bucket_wait_ms(&b, 1, t) == 0 && sent < 100) {
        throttle_bucket_take(&b, 1, t);
        sent++;
    }
    CHECK_INT(sent, 1);
    CHECK_NEAR(throttle_bucket_wait_ms(&b, 1, t), 1000, 1e-6);
    CHECK_NEAR(throttle_bucket_wait_ms(&b, 1, t + 400), 600, 1e-6);
    CHECK_NEAR(throttle_bucket_wait_ms(&b, 1, t + 1000), 0, 1e-6);
    /* over a simulated minute (from the first request), at most the rate go */
    sent = 0;
    throttle_bucket_init(&b, 60, 0);
    for (double now = 0; now < 60000; now += 10) {
        if (throttle_bucket_wait_ms(&b, 1, now) == 0) {
            throttle_bucket_take(&b, 1, now);
            sent++;
        }
    }
    CHECK_INT(sent, 60);
    /* 600 rpm: every window of 6 s holds at most 60 (it held 100 + 60 with the burst) */
    {
        double ts[200];
        int n = 0;
        throttle_bucket_init(&b, 600, 0);
        for (double now = 0; now < 20000 && n < 200; now += 1) {
            if (throttle_bucket_wait_ms(&b, 1, now) == 0) {
                throttle_bucket_take(&b, 1, now);
                ts[n++] = now;
            }
        }
        for (int i = 0; i + 60 < n; i++)
            CHECK(ts[i + 60] - ts[i] >= 6000 - 1e-6);
    }
    /* tpm: a request bigger than the capacity goes when the bucket is full and goes negative */
    throttle_bucket_init(&b, 60000, 0); /* 1000 tokens a second */
    CHECK_NEAR(throttle_bucket_wait_ms(&b, 40000, 0), 0, 1e-9);
    throttle_bucket_take(&b, 40000, 0);
    CHECK_NEAR(throttle_bucket_wait_ms(&b, 1000, 0), 40000, 1e-6);
    /* refund when the real cost was lower */
    throttle_bucket_adjust(&b, 30000);
    CHECK_NEAR(throttle_bucket_wait_ms(&b, 1000, 0), 10000, 1e-6);
    /* unlimited */
    throttle_bucket_init(&b, 0, 0);
    CHECK_NEAR(throttle_bucket_wait_ms(&b, 1e9, 0), 0, 1e-9);
    throttle_bucket_take(&b, 1e9, 0);
    CHECK_NEAR(throttle_bucket_wait_ms(&b, 1e9, 0), 0, 1e-9);
    CHECK(utc_monotonic_ms() > 0);
}

int main(void)
{
    RUN(test_backoff);
    RUN(test_aimd);
    RUN(test_buckets);
    return TEST_EXIT();
}

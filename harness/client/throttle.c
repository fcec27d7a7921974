/*
 * Backoff, AIMD and token buckets for the runner (see throttle.h). No I/O,
 * no clock of its own: every function takes now_ms from the caller.
 */
#include "client/throttle.h"

#include <math.h>

#include "client/client.h"
#include "base/rng.h"

#include "base/banned.h"

void throttle_backoff_init(struct throttle_backoff *b, uint64_t seed)
{
    b->base_ms = 1000;
    b->max_ms = 60000;
    b->max_hint_ms = 120000;
    rng_seed(&b->rng, seed ^ 0x6a09e667f3bcc909ull);
}

long throttle_backoff_delay(struct throttle_backoff *b, int attempts, long hint_ms)
{
    double d, u;
    if (hint_ms > 0)
        return hint_ms < b->max_hint_ms ? hint_ms : b->max_hint_ms;
    if (attempts < 1)
        attempts = 1;
    d = (double)b->base_ms * ldexp(1.0, attempts > 60 ? 60 : attempts - 1);
    if (d > (double)b->max_ms)
        d = (double)b->max_ms;
    u = rng_unit(rng_next(&b->rng));
    return (long)(d / 2 + u * (d / 2));
}

void throttle_aimd_init(struct throttle_aimd *a, int initial, int min, int max)
{
    if (min < 1)
        min = 1;
    if (max < min)
        max = min;
    if (initial < min)
        initial = min;
    if (initial > max)
        initial = max;
    a->limit = initial;
    a->min = min;
    a->max = max;
    a->decrease = 0.8;
    a->increase = 1.0;
    a->cooldown_ms = 15000;
    a->hold_until_ms = -1e300;
    a->last_decrease_ms = -1e300;
    a->decreases = 0;
}

void throttle_aimd_update(struct throttle_aimd *a, const struct client_response *r, double now_ms)
{
    if (r->cls == CLIENT_RETRYABLE && r->reason == CLIENT_R_RATE_LIMIT) {
        double hold = a->cooldown_ms;
        if (r->retry_after_ms > hold)
            hold = (double)r->retry_after_ms;
        if (now_ms - a->last_decrease_ms >= a->cooldown_ms) {
            a->limit *= a->decrease;
            if (a->limit < a->min)
                a->limit = a->min;
            a->last_decrease_ms = now_ms;
            a->decreases++;
        }
        if (now_ms + hold > a->hold_until_ms)
            a->hold_until_ms = now_ms + hold;
        return;
    }
    if (r->cls == CLIENT_RETRYABLE) {
        /* transient trouble: pause growth, do not shrink */
        if (now_ms + a->cooldown_ms > a->hold_until_ms)
            a->hold_until_ms = now_ms + a->cooldown_ms;
        return;
    }
    if (now_ms < a->hold_until_ms)
        return;
    a->limit += a->increase / (a->limit > 1 ? a->limit : 1);
    if (a->limit > a->max)
        a->limit = a->max;
}

int throttle_aimd_limit(const struct throttle_aimd *a)
{
    int l = (int)floor(a->limit + 1e-9);
    if (l < a->min)
        l = a->min;
    if (l > a->max)
        l = a->max;
    return l;
}

void throttle_bucket_init(struct throttle_bucket *b, double per_minute, double now_ms)
{
    if (per_minute <= 0) {
        b->per_ms = 0;
        b->capacity = 0;
        b->tokens = 0;
    } else {
        /*
         * No burst: a limit per minute holds in every minute, the first one
         * included (a 10 s burst of rpm/6 sent --rpm 60's first 10 requests at
         * once): one unit in hand, the rest paced at the rate.
         */
        b->per_ms = per_minute / 60000.0;
        b->capacity = 1;
        b->tokens = b->capacity;
    }
    b->last_ms = now_ms;
}

static void bucket_refill(struct throttle_bucket *b, double now_ms)
{
    if (now_ms > b->last_ms) {
        b->tokens += (now_ms - b->last_ms) * b->per_ms;
        if (b->tokens > b->capacity)
            b->tokens = b->capacity;
        b->last_ms = now_ms;
    }
}

double throttle_bucket_wait_ms(struct throttle_bucket *b, double cost, double now_ms)
{
    double need;
    if (b->per_ms <= 0)
        return 0;
    bucket_refill(b, now_ms);
    need = cost < b->capacity ? cost : b->capacity;
    if (b->tokens >= need - 1e-9)
        return 0;
    return (need - b->tokens) / b->per_ms;
}

void throttle_bucket_take(struct throttle_bucket *b, double cost, double now_ms)
{
    if (b->per_ms <= 0)
        return;
    bucket_refill(b, now_ms);
    b->tokens -= cost;
}

void throttle_bucket_adjust(struct throttle_bucket *b, double delta)
{
    if (b->per_ms <= 0)
        return;
    b->tokens += delta;
    if (b->tokens > b->capacity)
        b->tokens = b->capacity;
}

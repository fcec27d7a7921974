/*
 * The runner's retry and rate policy: exponential backoff with jitter (a
 * server hint wins), the adaptive in-flight limit (AIMD), and token buckets
 * for --rpm / --tpm. Pure state machines over a caller-supplied clock
 * (utc_monotonic_ms); owned and driven by the runner's event loop. The retry
 * cap (--max-attempts) is the runner's: runner_config.max_attempts.
 */
#ifndef THROTTLE_H
#define THROTTLE_H

#include <stdint.h>

#include "base/rng.h"

struct client_response;

struct throttle_backoff {
    long base_ms;     /* first backoff, default 1000 */
    long max_ms;      /* cap on computed backoff, default 60000 */
    long max_hint_ms; /* server hints are honoured up to this, default 120000 */
    struct rng rng;   /* the jitter (seeded) */
};

/* Defaults as above; seed makes the jitter reproducible. */
void throttle_backoff_init(struct throttle_backoff *b, uint64_t seed);

/*
 * Milliseconds to wait before attempt number attempts+1. A server hint
 * (hint_ms >= 0) wins, clamped to max_hint_ms. Otherwise exponential with
 * jitter: d = min(max_ms, base_ms * 2^(attempts-1)), result uniform in
 * [d/2, d]. Advances the rng.
 */
long throttle_backoff_delay(struct throttle_backoff *b, int attempts, long hint_ms);

/*
 * Adaptive in-flight limit (AIMD, as inspect_ai): a 429 multiplies the limit
 * by `decrease` (default 0.8) at most once per cooldown (default 15 s, or the
 * server's hint if longer), never below min; every OK result (and any
 * non-429 result) after the cooldown adds increase/limit (default 1.0, i.e. about +1 per
 * window of successes), never above max. 5xx/transport errors do not shrink it
 * but pause growth for the cooldown.
 */
struct throttle_aimd {
    double limit;
    int min, max;
    double decrease;
    double increase;
    double cooldown_ms;
    double hold_until_ms; /* no growth before this time */
    double last_decrease_ms;
    long decreases; /* how many times it shrank */
};

void throttle_aimd_init(struct throttle_aimd *a, int initial, int min, int max);
/* Feed one finished response; now_ms from a monotonic clock. */
void throttle_aimd_update(struct throttle_aimd *a, const struct client_response *r, double now_ms);
/* The current limit, rounded down, in [min, max]. */
int throttle_aimd_limit(const struct throttle_aimd *a);

/*
 * Token bucket for --rpm (cost 1 per request) and --tpm (cost = prompt +
 * max tokens). rate = per minute (<= 0: unlimited); capacity 1, no burst:
 * requests are paced at the rate from the first one on, so no 60 s window
 * holds more than the limit. A request whose cost exceeds the capacity (every
 * --tpm request) may go when the bucket is full (the balance goes negative
 * by its cost, which the rate then pays back before the next), so huge
 * prompts are slowed, not starved.
 */
struct throttle_bucket {
    double per_ms;
    double capacity;
    double tokens;
    double last_ms;
};

void throttle_bucket_init(struct throttle_bucket *b, double per_minute, double now_ms);
/* Milliseconds until cost may be taken (0 = now). Unlimited buckets return 0. */
double throttle_bucket_wait_ms(struct throttle_bucket *b, double cost, double now_ms);
/* Take cost now (call when throttle_bucket_wait_ms() returned 0). */
void throttle_bucket_take(struct throttle_bucket *b, double cost, double now_ms);
/* Correct the balance once the real cost is known (delta = estimated - actual). */
void throttle_bucket_adjust(struct throttle_bucket *b, double delta);

#endif

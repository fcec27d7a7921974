/*
 * dipmap's time (utc.h): the one UTC formatter (gmtime_r and strftime into a
 * bounded buffer, appended to a strbuf) and the wall and monotonic clocks.
 */
#include "base/utc.h"

#include <math.h>
#include <time.h>

#include "base/strbuf.h"

#include "base/banned.h"

int utc_format(struct strbuf *out, double unix_time, const char *fmt)
{
    time_t secs = (time_t)unix_time;
    struct tm tm;
    char buf[64];
    size_t n = 0;
    if (unix_time <= 0 || !gmtime_r(&secs, &tm))
        return -1;
        /* fmt is checked at the callers (the strftime format attribute in utc.h) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    n = strftime(buf, sizeof(buf), fmt, &tm);
#pragma GCC diagnostic pop
    if (!n)
        return -1;
    strbuf_addstr(out, buf);
    return 0;
}

double utc_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double utc_monotonic_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

void utc_sleep_ms(double ms)
{
    struct timespec ts;
    if (ms <= 0)
        return;
    ts.tv_sec = (time_t)(ms / 1000);
    ts.tv_nsec = (long)(fmod(ms, 1000.0) * 1e6);
    nanosleep(&ts, NULL);
}

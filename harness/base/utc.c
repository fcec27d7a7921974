/*
 * The one UTC time formatter (utc.h): gmtime_r and strftime into a bounded
 * buffer, appended to a strbuf.
 */
#include "base/utc.h"

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

#ifndef UTC_H
#define UTC_H
/*
 * dipmap's time: the one UTC time formatter (a stored Unix time, seconds as the
 * store keeps it, written with strftime's format in UTC whatever the machine's
 * zone) and the two clocks every module reads.
 */
struct strbuf;

/*
 * Append unix_time in UTC as fmt says ("%Y-%m-%d %H:%M:%S UTC") to out and
 * return 0; return -1 and append nothing when the time is unset (<= 0) or
 * cannot be formatted, so the caller writes its own placeholder.
 */
#if defined(__GNUC__)
__attribute__((format(strftime, 3, 0)))
#endif
int utc_format(struct strbuf *out, double unix_time, const char *fmt);

/* The wall clock: seconds since the Unix epoch with their fraction (what the store records). */
double utc_now(void);

/*
 * Milliseconds from a monotonic clock whose zero is arbitrary: latencies, deadlines and the
 * throttle's clock, never stored (a wall-clock step does not move it).
 */
double utc_monotonic_ms(void);

/* Sleep ms milliseconds; nothing for ms <= 0, and a signal (EINTR) ends the wait early. */
void utc_sleep_ms(double ms);

#endif

#ifndef UTC_H
#define UTC_H
/*
 * The one UTC time formatter: a stored Unix time (seconds, as the store keeps
 * it) written with strftime's format in UTC, whatever the machine's zone.
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

#endif

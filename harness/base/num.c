/*
 * Checked number parsing: strtol/strtod plus end-pointer and errno checks,
 * so that "12x", "" and values that overflow are errors, never zeros.
 */
#include "base/num.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/banned.h"

static int starts_ok(const char *s)
{
    return s && *s && !isspace((unsigned char)*s);
}

static int hex_prefix(const char *s)
{
    if (*s == '-' || *s == '+')
        s++;
    return s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

int parse_long(const char *s, long *out)
{
    char *end;
    long v;
    if (!starts_ok(s) || hex_prefix(s))
        return -1;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end)
        return -1;
    *out = v;
    return 0;
}

int parse_long_range(const char *s, long min, long max, long *out)
{
    long v;
    if (parse_long(s, &v) < 0 || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

int parse_ulong(const char *s, unsigned long *out)
{
    char *end;
    unsigned long v;
    if (!starts_ok(s) || *s == '-' || *s == '+' || hex_prefix(s))
        return -1;
    errno = 0;
    v = strtoul(s, &end, 10);
    if (errno || end == s || *end)
        return -1;
    *out = v;
    return 0;
}

int parse_double(const char *s, double *out)
{
    char *end;
    double v;
    if (!starts_ok(s) || hex_prefix(s))
        return -1;
    errno = 0;
    v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int parse_points(const char *s, double *out)
{
    char buf[64];
    size_t n = s ? strlen(s) : 0;
    double v;
    int scaled = 0;
    if (!n || n >= sizeof(buf))
        return -1;
    memcpy(buf, s, n + 1);
    if (n > 2 && !strcmp(buf + n - 2, "pp")) {
        buf[n - 2] = '\0';
        scaled = 1;
    } else if (n > 1 && buf[n - 1] == '%') {
        buf[n - 1] = '\0';
        scaled = 1;
    }
    if (parse_double(buf, &v) < 0 || (!scaled && fabs(v) > 1.0))
        return -1;
    *out = scaled ? v / 100.0 : v;
    return 0;
}

int parse_double_range(const char *s, double min, double max, double *out)
{
    double v;
    if (parse_double(s, &v) < 0 || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

int parse_token_count(const char *s, long max, long *out)
{
    char digits[32];
    size_t n;
    long mult = 1, v;

    if (!s)
        return -1;
    n = strlen(s);
    if (n == 0 || n >= sizeof(digits))
        return -1;
    memcpy(digits, s, n + 1);
    switch (digits[n - 1]) {
    case 'k':
    case 'K':
        mult = 1024;
        digits[--n] = '\0';
        break;
    case 'm':
    case 'M':
        mult = 1024L * 1024L;
        digits[--n] = '\0';
        break;
    default:
        break;
    }
    if (parse_long(digits, &v) < 0 || v <= 0 || v > LONG_MAX / mult)
        return -1;
    v *= mult;
    if (v > max)
        return -1;
    *out = v;
    return 0;
}

const char *parse_num_strerror(const char *s)
{
    if (!s || !*s)
        return "empty value";
    if (isspace((unsigned char)*s))
        return "leading whitespace";
    return "not a valid number or out of range";
}

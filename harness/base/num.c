/*
 * Checked number parsing: strtol/strtod plus end-pointer and errno checks,
 * so that "12x", "" and values that overflow are errors, never zeros.
 */
#include "base/num.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
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

/* A number of one C type, as parse_num() reads it. */
enum num_kind { NUM_LONG, NUM_ULONG, NUM_DOUBLE };
union num {
    long l;
    unsigned long u;
    double d;
};

/*
 * The one checked parse behind every typed parser: s whole, base 10, no leading space or hex
 * prefix (no sign for NUM_ULONG), no overflow (errno), within [min, max] of its kind (a double
 * also finite: NaN and the infinities fail the finite bounds), then *out of that C type.
 */
static int parse_num(const char *s, enum num_kind kind, union num min, union num max, void *out)
{
    char *end;
    union num v;
    int in;

    if (!starts_ok(s) || hex_prefix(s) || (kind == NUM_ULONG && (*s == '-' || *s == '+')))
        return -1;
    errno = 0;
    if (kind == NUM_LONG) {
        v.l = strtol(s, &end, 10);
        in = v.l >= min.l && v.l <= max.l;
    } else if (kind == NUM_ULONG) {
        v.u = strtoul(s, &end, 10);
        in = v.u >= min.u && v.u <= max.u;
    } else {
        v.d = strtod(s, &end);
        in = v.d >= min.d && v.d <= max.d;
    }
    if (errno || end == s || *end || !in)
        return -1;
    if (kind == NUM_LONG)
        *(long *)out = v.l;
    else if (kind == NUM_ULONG)
        *(unsigned long *)out = v.u;
    else
        *(double *)out = v.d;
    return 0;
}

int parse_long(const char *s, long *out)
{
    return parse_long_range(s, LONG_MIN, LONG_MAX, out);
}

int parse_long_range(const char *s, long min, long max, long *out)
{
    return parse_num(s, NUM_LONG, (union num){.l = min}, (union num){.l = max}, out);
}

int parse_ulong(const char *s, unsigned long *out)
{
    return parse_num(s, NUM_ULONG, (union num){.u = 0}, (union num){.u = ULONG_MAX}, out);
}

int parse_double(const char *s, double *out)
{
    return parse_double_range(s, -DBL_MAX, DBL_MAX, out);
}

int parse_double_range(const char *s, double min, double max, double *out)
{
    return parse_num(s, NUM_DOUBLE, (union num){.d = min}, (union num){.d = max}, out);
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

/*
 * The server's delay hint: Retry-After (seconds or an RFC 7231 HTTP-date, read
 * by curl_getdate), retry-after-ms, and the x-ratelimit-reset-* Go-style
 * durations, read from a raw header block. Pure parsing: no clock of its own
 * (the caller passes now).
 */
#include "client/client.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

#include "client/client-int.h"
#include "base/num.h"
#include "base/strbuf.h"

#include "base/banned.h"

/* --------------------------------------------------------------- headers */

int client_header_get(const char *headers, const char *name, struct strbuf *out)
{
    size_t nlen;
    const char *p = headers;
    if (!headers || !name)
        return -1;
    nlen = strlen(name);
    while (*p) {
        const char *eol = p, *v, *end;
        while (*eol && *eol != '\n' && *eol != '\r')
            eol++;
        if ((size_t)(eol - p) > nlen && p[nlen] == ':' && !strncasecmp(p, name, nlen)) {
            v = p + nlen + 1;
            while (v < eol && (*v == ' ' || *v == '\t'))
                v++;
            end = eol;
            while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
                end--;
            strbuf_add(out, v, (size_t)(end - v));
            return 0;
        }
        p = eol;
        while (*p == '\n' || *p == '\r')
            p++;
    }
    return -1;
}

/*
 * Parse an unsigned decimal "12", "1.5", ".5" at *sp; advances *sp. Returns
 * -1 when there is no digit. No exponents, signs, hex, inf or nan.
 */
static int scan_decimal(const char **sp, double *out)
{
    const char *s = *sp;
    double v = 0, scale = 1;
    int digits = 0;
    while (isdigit((unsigned char)*s)) {
        if (v < 1e15)
            v = v * 10 + (*s - '0');
        else
            v *= 10;
        s++;
        digits++;
    }
    if (*s == '.') {
        s++;
        while (isdigit((unsigned char)*s)) {
            scale /= 10;
            v += (*s - '0') * scale;
            s++;
            digits++;
        }
    }
    if (!digits)
        return -1;
    *sp = s;
    *out = v;
    return 0;
}

static long ms_ceil(double ms)
{
    if (!(ms >= 0) || ms > 1e12)
        return -1;
    return (long)ceil(ms - 1e-9);
}

long client_parse_duration_ms(const char *s)
{
    double total = 0, v;
    int parts = 0;
    const char *p = s;
    if (!s)
        return -1;
    while (*p == ' ' || *p == '\t')
        p++;
    /* plain number: seconds */
    {
        const char *q = p;
        if (!scan_decimal(&q, &v)) {
            const char *r = q;
            while (*r == ' ' || *r == '\t')
                r++;
            if (!*r)
                return ms_ceil(v * 1000.0);
        }
    }
    while (*p) {
        double mult;
        if (scan_decimal(&p, &v))
            return -1;
        if (!strncmp(p, "ms", 2)) {
            mult = 1;
            p += 2;
        } else if (!strncmp(p, "us", 2) || !strncmp(p, "\xc2\xb5s", 3)) {
            mult = 0.001;
            p += p[0] == 'u' ? 2 : 3;
        } else if (!strncmp(p, "ns", 2)) {
            mult = 0.000001;
            p += 2;
        } else if (*p == 'h') {
            mult = 3600000.0;
            p++;
        } else if (*p == 'm') {
            mult = 60000.0;
            p++;
        } else if (*p == 's') {
            mult = 1000.0;
            p++;
        } else if (*p == 'd') {
            mult = 86400000.0;
            p++;
        } else {
            return -1;
        }
        total += v * mult;
        parts++;
        if (*p == ' ' || *p == '\t') {
            while (*p == ' ' || *p == '\t')
                p++;
            if (*p)
                return -1;
        }
    }
    if (!parts)
        return -1;
    return ms_ceil(total);
}

/* libcurl's date parser (the one the cookie and -z code use): every RFC 7231 form and more. */
int client_parse_http_date(const char *s, time_t *out)
{
    time_t t;
    if (!s)
        return -1;
    t = curl_getdate(s, NULL);
    if (t < 0) /* -1: not a date; below: before 1970, never a delay hint */
        return -1;
    *out = t;
    return 0;
}

/* A non-negative decimal number of units (no trailing text). -1 when not. */
static double parse_plain_number(const char *s)
{
    double v;
    const char *p = s;
    while (*p == ' ')
        p++;
    if (scan_decimal(&p, &v))
        return -1;
    while (*p == ' ')
        p++;
    return *p ? -1 : v;
}

long client_retry_after_ms(const char *headers, time_t now)
{
    struct strbuf v = STRBUF_INIT;
    long best = -1;
    if (!headers)
        return -1;
    if (!client_header_get(headers, "retry-after-ms", &v)) {
        double ms = parse_plain_number(v.buf);
        if (ms >= 0) {
            best = ms_ceil(ms);
            goto done;
        }
    }
    strbuf_reset(&v);
    if (!client_header_get(headers, "retry-after", &v)) {
        double secs = parse_plain_number(v.buf);
        time_t when;
        if (secs >= 0) {
            best = ms_ceil(secs * 1000.0);
            goto done;
        }
        if (!client_parse_http_date(v.buf, &when)) {
            double diff = difftime(when, now);
            best = diff > 0 ? ms_ceil(diff * 1000.0) : 0;
            goto done;
        }
    }
    {
        static const char *const names[] = {"x-ratelimit-reset-requests",
                                            "x-ratelimit-reset-tokens"};
        for (int i = 0; i < 2; i++) {
            long d;
            strbuf_reset(&v);
            if (client_header_get(headers, names[i], &v))
                continue;
            d = client_parse_duration_ms(v.buf);
            if (d > best)
                best = d;
        }
    }
done:
    strbuf_release(&v);
    return best;
}

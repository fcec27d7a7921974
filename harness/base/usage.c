/*
 * The error/warning/BUG API: one place that formats diagnostics, so every
 * message has the same "error: subject: problem" shape; error_to() is the
 * modules' half (the message into the caller's strbuf).
 */
#include "base/usage.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/strbuf.h"

#include "base/banned.h"

static usage_hook_fn hook;

void usage_set_hook(usage_hook_fn fn)
{
    hook = fn;
}

static void vreport(const char *prefix, const char *fmt, va_list ap) DM_PRINTF(2, 0);

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_vaddf(&sb, fmt, ap);
    if (hook)
        hook(prefix, sb.buf);
    else
        fprintf(stderr, "%s: %s\n", prefix, sb.buf);
    strbuf_release(&sb);
}

int error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport("error", fmt, ap);
    va_end(ap);
    return -1;
}

int error_to(struct strbuf *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(err, fmt, ap);
    va_end(ap);
    return -1;
}

void warning(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport("warning", fmt, ap);
    va_end(ap);
}

void bug_fl(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "BUG: %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

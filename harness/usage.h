#ifndef USAGE_H
#define USAGE_H

#include <stdarg.h>

/* Exit codes shared by every command (DESIGN.md "Exit codes"). */
enum dm_exit {
    DM_EXIT_OK = 0,           /* success; for compare: no regression */
    DM_EXIT_REGRESSION = 1,   /* compare found a significant regression */
    DM_EXIT_USAGE = 2,        /* usage, configuration or input error */
    DM_EXIT_INFRA = 3,        /* endpoint or infrastructure failure */
    DM_EXIT_INCONCLUSIVE = 4, /* inconclusive, incomplete, budget reached */
    DM_EXIT_INTERRUPTED = 130 /* interrupted; resumable */
};

#if defined(__GNUC__)
#define DM_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define DM_NORETURN     __attribute__((noreturn))
#else
#define DM_PRINTF(f, a)
#define DM_NORETURN
#endif

/* "error: ..." on stderr; always returns -1 so callers can `return error(...)`. */
int error(const char *fmt, ...) DM_PRINTF(1, 2);
/* "warning: ..." on stderr. */
void warning(const char *fmt, ...) DM_PRINTF(1, 2);
/* "fatal: ..." on stderr, then exit(code). Only commands call this. */
void die_code(int code, const char *fmt, ...) DM_PRINTF(2, 3) DM_NORETURN;
#define die(...) die_code(DM_EXIT_USAGE, __VA_ARGS__)
/* Broken internal invariant: prints file:line and aborts. */
void bug_fl(const char *file, int line, const char *fmt, ...) DM_PRINTF(3, 4) DM_NORETURN;
#define BUG(...) bug_fl(__FILE__, __LINE__, __VA_ARGS__)

/*
 * Tests capture diagnostics: when set, error()/warning() append the formatted
 * message (without prefix) to this hook instead of printing. NULL restores stderr.
 */
typedef void (*usage_hook_fn)(const char *prefix, const char *msg);
void usage_set_hook(usage_hook_fn fn);

/* Quiet mode suppresses warning() output (errors are always shown). */
void usage_set_quiet(int quiet);

#endif

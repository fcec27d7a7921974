#ifndef USAGE_H
#define USAGE_H

/*
 * Error reporting, one convention (docs/conventions.md "Errors"):
 *
 * - Commands (cmd_*.c) are the only code that decides what the user sees and
 *   how the process ends: they print with error()/warning(), add a "hint:"
 *   line where one helps, and return a DM_EXIT_* code to main.c (the only
 *   caller of exit()).
 * - Modules (everything outside cmd/ and main.c) return: 0 / -1, a pointer or
 *   NULL, or an enum with a NAME_name() / NAME_strerror() where the caller
 *   must decide (client_class, runner_end, STORE_E*). The message goes into a
 *   caller's `struct strbuf *err` ("what: why", lower case, naming the
 *   file:line and field or the option and its valid range; error_to() appends
 *   it and returns -1), never to stdout or stderr, and a module never exits.
 *   The command prints it: error("%s", err.buf), or with its own prefix.
 * - What still prints outside cmd/ is listed in docs/conventions.md "Errors",
 *   each with the comment that says why at the call.
 * - Broken invariants are BUG() (file:line, abort), never an error return;
 *   out of memory aborts in xalloc.c.
 *
 * Function length: a function reads on one or two screens, at most 120
 * lines between its column-0 braces. One that must be longer says why in the
 * comment directly above it, with "Long because: REASON" (tests/cli/063
 * checks every .c file in harness/). The reason is a table, not a sequence of steps:
 * parse_run_options is run's option table, one entry per option, kept whole
 * because `dipmap help run`, --config and test 006 read it. Steps become
 * named phases instead (builtin.h: how a command is shaped).
 *
 * File length: a .c file owns one concern and stays under 1,200 lines (tests/cli/063);
 * one that grows past it is split along its concerns behind the module's -int.h or
 * run_cmd.h, as prompt_axes.c, run_record.c and compare_text.c were.
 */

#include <stdarg.h>

struct strbuf;

/* Exit codes shared by every command (docs/troubleshooting.md "Exit codes", docs/design.md "Exit
 * codes"). */
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
/* The result must be looked at (the build has -Werror=unused-result). */
#define DM_WARN_UNUSED __attribute__((warn_unused_result))
#else
#define DM_PRINTF(f, a)
#define DM_NORETURN
#define DM_WARN_UNUSED
#endif

/* "error: ..." on stderr; always returns -1 so callers can `return error(...)`. */
int error(const char *fmt, ...) DM_PRINTF(1, 2);
/*
 * A module's error: appends the formatted message to *err (the caller's; it
 * prints) and returns -1, so a module writes `return error_to(err, ...)`.
 */
int error_to(struct strbuf *err, const char *fmt, ...) DM_PRINTF(2, 3);
/* "warning: ..." on stderr. */
void warning(const char *fmt, ...) DM_PRINTF(1, 2);
/* Broken internal invariant: prints file:line and aborts. */
void bug_fl(const char *file, int line, const char *fmt, ...) DM_PRINTF(3, 4) DM_NORETURN;
#define BUG(...) bug_fl(__FILE__, __LINE__, __VA_ARGS__)

/*
 * Tests capture diagnostics: when set, error()/warning() append the formatted
 * message (without prefix) to this hook instead of printing. NULL restores stderr.
 */
typedef void (*usage_hook_fn)(const char *prefix, const char *msg);
void usage_set_hook(usage_hook_fn fn);

#endif

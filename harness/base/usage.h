#ifndef USAGE_H
#define USAGE_H

/*
 * Error reporting, one convention per layer:
 *
 * - Commands (cmd_*.c) are the only code that decides what the user sees and
 *   how the process ends: they print with error()/warning(), add a "hint:"
 *   line where one helps, and return a DM_EXIT_* code to main.c (the only
 *   caller of exit()). die() is for commands only.
 * - Library modules return: 0 / -1, a pointer or NULL, or an enum with a
 *   NAME_name() / NAME_strerror() where the caller must decide (client_class,
 *   runner_end, STORE_E*). The message goes into a caller's `struct strbuf
 *   *err` ("what: why", lower case, naming the file:line and field or the
 *   option and its valid range), never to stdout, and a module never exits.
 *   Examples: plan_parse_*, prompt_build, client_new, tokenizer_load,
 *   sim_model_parse, run_identity_same_inputs (why).
 * - The loaders of user files and the store still print their own
 *   "error: FILE:LINE: ..." with error() and return -1 (dataset.c, config.c,
 *   prompt.c's template loader, store*.c, plot.c's gnuplot runner): their
 *   messages name the file the command cannot know; moving them to a
 *   strbuf *err is the direction, one module at a time, and a new module
 *   uses strbuf *err from the start.
 * - Broken invariants are BUG() (file:line, abort), never an error return;
 *   out of memory aborts in xalloc.c.
 *
 * Function length: a function reads on one or two screens, at most about 150
 * lines between its column-0 braces. One that must be longer says why in the
 * comment directly above it, with "Long because: REASON" (tests/cli/063
 * checks every .c file in harness/). The reason is a table, not a sequence of steps:
 * parse_run_options is run's option table, one entry per option, kept whole
 * because `dipmap help run`, --config and test 006 read it. Steps become
 * named phases instead (builtin.h: how a command is shaped).
 */

#include <stdarg.h>

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
#else
#define DM_PRINTF(f, a)
#define DM_NORETURN
#endif

/* "error: ..." on stderr; always returns -1 so callers can `return error(...)`. */
int error(const char *fmt, ...) DM_PRINTF(1, 2);
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

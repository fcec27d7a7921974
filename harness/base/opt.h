#ifndef OPT_H
#define OPT_H

#include <stdio.h>

struct strvec;

/*
 * Table-driven long-option parsing shared by every subcommand, so that every
 * command reports unknown options and missing values the same way.
 * Accepted forms: --name VALUE, --name=VALUE, -x VALUE, --flag, --no-flag
 * (booleans), and "--" to end options. -h/--help prints usage to stdout.
 */
enum opt_type {
    OPT_END = 0,
    OPT_STRING, /* value: const char **, points into argv */
    OPT_LONG,   /* value: long *, checked with parse_long */
    OPT_DOUBLE, /* value: double *, checked with parse_double */
    OPT_BOOL,   /* value: int *, set to 1 (or 0 by --no-NAME) */
    OPT_LIST,   /* value: struct strvec *, each occurrence appended */
    OPT_GROUP   /* heading line in the help output; no value */
};

struct option {
    enum opt_type type;
    const char *long_name; /* without the leading "--" */
    char short_name;       /* 0 when none */
    void *value;
    const char *argh; /* placeholder in help, e.g. "FILE" */
    const char *help;
    int seen; /* set by parse_options() when given on the command line */
};

#define OPT_END_MARK                                                                               \
    {                                                                                              \
        OPT_END, NULL, 0, NULL, NULL, NULL, 0                                                      \
    }

/*
 * Parse argv[1..argc-1] (argv[0] is the command name). Positional arguments
 * are appended to `rest`. Returns 0 on success, 1 when help was printed
 * (exit 0), -1 after printing an error naming the option (exit 2).
 * `usage` is a NULL-terminated list of synopsis lines.
 */
int parse_options(int argc, const char **argv, struct option *opts, const char *const *usage,
                  struct strvec *rest);

/* Print the synopsis lines and the option table. */
void usage_with_options(FILE *fp, const char *const *usage, const struct option *opts);

/* The option with this long name, or NULL (to ask whether it was seen). */
struct option *opt_find(struct option *opts, const char *long_name);

#endif

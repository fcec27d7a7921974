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
    OPT_POINTS, /* value: double *, a fraction, 5pp or 5% (parse_points) */
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
/*
 * The exit code of a parse_options() result that stops the command (rc != 0): DM_EXIT_OK after
 * the help, DM_EXIT_USAGE after an error (base/usage.h). Every command maps it here.
 */
int parse_options_exit(int rc);

/* Print the synopsis lines and the option table. */
void usage_with_options(FILE *fp, const char *const *usage, const struct option *opts);

/* The option with this long name, or NULL (to ask whether it was seen). */
struct option *opt_find(struct option *opts, const char *long_name);

/*
 * The man pages and shell completions are generated from the same tables as the help
 * (cmd_help.c, base/docgen.h). While a capture is set, -h/--help copies the command's
 * synopsis lines and option table into it (the strings stay the command's literals) and
 * parse_options() returns 1 without printing. opt_capture_release() frees the copies.
 */
struct opt_capture {
    const char *const *usage; /* the command's NULL-terminated synopsis (static in each cmd) */
    struct option *opts;      /* copy of the table, OPT_END-terminated; value pointers
                                 are cleared (they pointed into the command's frame) */
    int *bool_on;             /* per entry: a boolean on by default (--[no-]NAME) */
    int done;                 /* 1 once the command reached --help */
};
void opt_set_capture(struct opt_capture *cap);
void opt_capture_release(struct opt_capture *cap);
/* 1 when o (an entry of cap->opts) is a boolean that is on by default. */
int opt_capture_default_on(const struct opt_capture *cap, const struct option *o);

#endif

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
    OPTION_END = 0,
    OPTION_STRING, /* points into argv */
    OPTION_LONG,   /* checked with parse_long */
    OPTION_DOUBLE, /* checked with parse_double */
    OPTION_POINTS, /* a fraction, 5pp or 5% (parse_points) */
    OPTION_BOOL,   /* set to 1 (or 0 by --no-NAME) */
    OPTION_LIST,   /* each occurrence appended */
    OPTION_GROUP   /* heading line in the help output; no value */
};

struct option {
    enum opt_type type;    /* the value's C type is its constructor's, below */
    const char *long_name; /* without the leading "--" */
    char short_name;       /* 0 when none */
    void *value;
    const char *argh; /* placeholder in help, e.g. "FILE" */
    const char *help;
    int seen; /* set by parse_options() when given on the command line */
};

/*
 * A table's rows are written with these constructors, never as brace lists: each one names
 * the C type its value must point to, and a pointer of any other type is a compile error
 * (_Generic has no default), where `void *value` alone would let an --N option write a long
 * into an int. Arguments in git's order: short name (0 for none), long name, value, the
 * placeholder (not for booleans), help.
 */
#define OPT_TYPED_(t, ctype, s, l, v, a, h)                                                        \
    {                                                                                              \
        .type = (t), .long_name = (l), .short_name = (s),                                          \
        .value = _Generic((v), ctype                                                               \
                          : (v)),                                                                  \
        .argh = (a), .help = (h)                                                                   \
    }
#define OPT_STRING(s, l, v, a, h) OPT_TYPED_(OPTION_STRING, const char **, s, l, v, a, h)
#define OPT_LONG(s, l, v, a, h)   OPT_TYPED_(OPTION_LONG, long *, s, l, v, a, h)
#define OPT_DOUBLE(s, l, v, a, h) OPT_TYPED_(OPTION_DOUBLE, double *, s, l, v, a, h)
#define OPT_POINTS(s, l, v, a, h) OPT_TYPED_(OPTION_POINTS, double *, s, l, v, a, h)
#define OPT_BOOL(s, l, v, h)      OPT_TYPED_(OPTION_BOOL, int *, s, l, v, NULL, h)
#define OPT_LIST(s, l, v, a, h)   OPT_TYPED_(OPTION_LIST, struct strvec *, s, l, v, a, h)
/*
 * A default stated in help text, from the constant the code sets it with: "(default "
 * OPT_DEFAULT(COMPARE_DEFAULT_ALPHA) ")" is "(default 0.05)" and follows the constant.
 */
#define OPT_DEFAULT_(x) #x
#define OPT_DEFAULT(x)  OPT_DEFAULT_(x)
/* A heading line in the help output. */
#define OPT_GROUP(h)                                                                               \
    {                                                                                              \
        .type = OPTION_GROUP, .help = (h)                                                          \
    }
/* The last row of every table. */
#define OPT_END()                                                                                  \
    {                                                                                              \
        .type = OPTION_END                                                                         \
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
    struct option *opts;      /* copy of the table, OPTION_END-terminated; value pointers
                                 are cleared (they pointed into the command's frame) */
    int *bool_on;             /* per entry: a boolean on by default (--[no-]NAME) */
    int done;                 /* 1 once the command reached --help */
};
void opt_set_capture(struct opt_capture *cap);
void opt_capture_release(struct opt_capture *cap);
/* 1 when o (an entry of cap->opts) is a boolean that is on by default. */
int opt_capture_default_on(const struct opt_capture *cap, const struct option *o);

#endif

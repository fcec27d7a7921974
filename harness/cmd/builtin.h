#ifndef BUILTIN_H
#define BUILTIN_H

/*
 * Subcommands, one file each (cmd_<name>.c). Each gets argv[0] = the
 * command name and returns an exit code from enum dm_exit; none calls exit().
 *
 * A command with more than a handful of options is shaped the same way
 * (cmd_serve_sim.c, cmd_report.c, cmd_show_prompt.c, cmd_rescore.c, cmd_plan.c,
 * cmd_run.c): one struct holds the options as given, their defaults set in its
 * _init(), and what the command builds from them; NAME_parse() holds the option
 * table (opt.h: the parser, `dipmap help NAME` and test 006 read the table, so
 * it stays in cmd_<name>.c), parse_options() and the positional arguments, and
 * returns 0, 1 after --help or -1 after an error; then named phases (check the
 * values, load, run, write), each returning 0 / -1 or an exit code, keep the
 * error messages and their order; cmd_<name>() calls them in order and releases
 * the struct. Test 064 pins every option's error for those commands.
 */
int cmd_help(int argc, const char **argv);
int cmd_version(int argc, const char **argv);
int cmd_tokenize(int argc, const char **argv);
int cmd_serve_sim(int argc, const char **argv);
int cmd_run(int argc, const char **argv);
int cmd_gen(int argc, const char **argv);
int cmd_plan(int argc, const char **argv);
int cmd_import(int argc, const char **argv);
int cmd_show_prompt(int argc, const char **argv);
int cmd_runs(int argc, const char **argv);
int cmd_merge(int argc, const char **argv);
int cmd_rename(int argc, const char **argv);
int cmd_rm(int argc, const char **argv);
int cmd_report(int argc, const char **argv);
int cmd_plot(int argc, const char **argv);
int cmd_compare(int argc, const char **argv);
int cmd_gate(int argc, const char **argv);
int cmd_export(int argc, const char **argv);
int cmd_score(int argc, const char **argv);
int cmd_rescore(int argc, const char **argv);
int cmd_view(int argc, const char **argv);
int cmd_demo(int argc, const char **argv);

struct strbuf;

/*
 * The --db row of every command that opens a store: what the store is for, then the default
 * store_default_path() applies (store/store.h, which the command includes to open it).
 */
#define OPT_DB(v, what)                                                                            \
    OPT_STRING(0, "db", v, "FILE", what " (default $" DIPMAP_DB_ENV " or " DIPMAP_DEFAULT_DB ")")

/*
 * The verdict's thresholds, one row each for compare, gate and plan (which simulates compare's
 * verdict), with stats/compare.h's defaults. OPT_ALPHA is compare's level (and plan's, which
 * plans compare); gate's --alpha, the error rate over all its rounds, is a row of its own.
 */
#define OPT_ALPHA(v)                                                                               \
    OPT_DOUBLE(0, "alpha", v, "A",                                                                 \
               "significance level after Holm adjustment "                                         \
               "(default " OPT_DEFAULT(COMPARE_DEFAULT_ALPHA) ")")
#define OPT_TOLERANCE(v)                                                                           \
    OPT_POINTS(0, "tolerance", v, "T",                                                             \
               "smallest accuracy drop that counts, absolute: 0.05, 5pp or 5% "                    \
               "(default " OPT_DEFAULT(COMPARE_DEFAULT_TOLERANCE) ")")
#define OPT_FAIL_MARGIN(v)                                                                         \
    OPT_POINTS(0, "fail-margin", v, "D",                                                           \
               "FAIL means worse by more than D, absolute (default half the tolerance)")

/*
 * cmd_util.c, shared by the commands: write data to path (plot_write_file());
 * returns 0, or -1 after printing "error: cannot write PATH: why".
 */
int cmd_write_file(const char *path, const struct strbuf *data);

/* main.c's table, for `dipmap help`. */
struct cmd_struct {
    const char *name;
    int (*fn)(int argc, const char **argv);
    const char *summary;
};
extern const struct cmd_struct dipmap_commands[];
const struct cmd_struct *find_command(const char *name);

#endif

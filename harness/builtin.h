#ifndef BUILTIN_H
#define BUILTIN_H

/*
 * Subcommands, one file each (cmd_<name>.c). Each gets argv[0] = the
 * command name and returns an exit code from enum dm_exit; none calls exit().
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
int cmd_report(int argc, const char **argv);
int cmd_plot(int argc, const char **argv);
int cmd_compare(int argc, const char **argv);
int cmd_export(int argc, const char **argv);
int cmd_score(int argc, const char **argv);
int cmd_rescore(int argc, const char **argv);
int cmd_view(int argc, const char **argv);

/* main.c's table, for `dipmap help`. */
struct cmd_struct {
    const char *name;
    int (*fn)(int argc, const char **argv);
    const char *summary;
};
extern const struct cmd_struct dipmap_commands[];
const struct cmd_struct *find_command(const char *name);

#endif

/*
 * dipmap's entry point: a table-driven dispatcher from subcommand names to
 * cmd_*() functions. This is the only file that calls exit().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/builtin.h"
#include "base/suggest.h"
#include "base/usage.h"

#include "base/banned.h"

/* Keep in data-flow order; `dipmap help` lists them in this order. */
const struct cmd_struct dipmap_commands[] = {
    {"help", cmd_help, "show help for dipmap or one command"},
    {"version", cmd_version, "print the version and the commit it was built from"},
    {"gen", cmd_gen, "generate a seeded synthetic golden set (needle, assoc, hops, kv, ordinal)"},
    {"plan", cmd_plan, "power: the smallest drop compare detects, questions needed"},
    {"import", cmd_import,
     "convert litm, nolima, ruler or longbench-v2 files into a golden set or haystack"},
    {"show-prompt", cmd_show_prompt, "print the exact request of one trial"},
    {"tokenize", cmd_tokenize, "count tokens, or print ids or pieces, with a model's tokenizer"},
    {"serve-sim", cmd_serve_sim, "simulated OpenAI-compatible model with a planted dip and faults"},
    {"run", cmd_run, "run the trial matrix against an endpoint and store every trial (resumable)"},
    {"runs", cmd_runs, "list the runs in a store with model, status and progress"},
    {"merge", cmd_merge, "join shard stores of one run into one store"},
    {"rename", cmd_rename, "give a run another name in its store"},
    {"rm", cmd_rm, "delete runs and everything recorded under them from a store"},
    {"report", cmd_report, "write summary.md, report.html, summary.json and plots for a run"},
    {"plot", cmd_plot, "draw U-curves and heatmaps of runs, or the trend of a model or tag"},
    {"compare", cmd_compare, "paired regression verdict between two runs (exit 0, 1 or 4)"},
    {"gate", cmd_gate,
     "sequential gate: map baseline and candidate in rounds until the verdict is decided"},
    {"export", cmd_export, "write every trial of runs as CSV or JSON lines (pandas, DuckDB)"},
    {"rescore", cmd_rescore, "score a run's stored answers again (new scorer), sending nothing"},
    {"score", cmd_score, "score given answers with a scorer, checked against expected scores"},
    {"view", cmd_view, "local read-only web UI: runs, reports, comparisons, trends"},
    {"demo", cmd_demo, "the offline demo: simulated models mapped, compared and reported"},
    {NULL, NULL, NULL},
};

const struct cmd_struct *find_command(const char *name)
{
    const struct cmd_struct *c;
    for (c = dipmap_commands; c->name; c++)
        if (!strcmp(c->name, name))
            return c;
    return NULL;
}

/* The command nearest to a mistyped one ("compar" -> "compare"), or NULL. */
static const char *nearest_command(const char *name)
{
    const char *names[sizeof(dipmap_commands) / sizeof(dipmap_commands[0])];
    size_t i;
    for (i = 0; dipmap_commands[i].name; i++)
        names[i] = dipmap_commands[i].name;
    names[i] = NULL;
    return suggest_name(name, names);
}

/*
 * stdout and stderr into one file or pipe (2>&1, a CI log): stdout is then line-buffered, so
 * its lines are written whole and in order with the messages on stderr (block buffering
 * flushed mid-line, e.g. "tokens" then "haystack ..." on one line). Apart, stdout keeps its
 * block buffer (export to a file stays fast).
 */
static void line_buffer_when_merged(void)
{
    struct stat o, e;
    if (!fstat(1, &o) && !fstat(2, &e) && o.st_dev == e.st_dev && o.st_ino == e.st_ino)
        setvbuf(stdout, NULL, _IOLBF, 0);
}

int main(int argc, const char **argv)
{
    const struct cmd_struct *c;
    int rc;

    line_buffer_when_merged();

    if (argc < 2) {
        const char *av[] = {"help", NULL};
        rc = cmd_help(1, av);
        exit(rc ? rc : DM_EXIT_USAGE);
    }
    /* --data-dir DIR: the first folder of the data search order (base/datadir.h); exported
       as $DIPMAP_DATA so the dipmap processes a command starts (demo's server) search it too */
    while (argc >= 2 && !strncmp(argv[1], "--data-dir", 10) &&
           (argv[1][10] == '=' || argv[1][10] == '\0')) {
        const char *dir = argv[1][10] == '=' ? argv[1] + 11 : argv[2];
        int used = argv[1][10] == '=' ? 1 : 2;
        if (!dir || !*dir) {
            fprintf(stderr, "error: option '--data-dir' requires a folder\n");
            exit(DM_EXIT_USAGE);
        }
        if (setenv("DIPMAP_DATA", dir, 1)) {
            fprintf(stderr, "error: --data-dir: cannot set DIPMAP_DATA\n");
            exit(DM_EXIT_INFRA);
        }
        argc -= used;
        argv += used;
    }
    if (argc < 2) {
        const char *av[] = {"help", NULL};
        rc = cmd_help(1, av);
        exit(rc ? rc : DM_EXIT_USAGE);
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))
        argv[1] = "version";
    else if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
        argv[1] = "help";
    if (argv[1][0] == '-') {
        fprintf(stderr, "error: unknown option '%s'\nhint: see 'dipmap help'\n", argv[1]);
        exit(DM_EXIT_USAGE);
    }
    c = find_command(argv[1]);
    if (!c) {
        const char *near = nearest_command(argv[1]);
        fprintf(stderr, "error: '%s' is not a dipmap command\n", argv[1]);
        if (near)
            fprintf(stderr, "hint: did you mean 'dipmap %s'? see 'dipmap help'\n", near);
        else
            fprintf(stderr, "hint: see 'dipmap help'\n");
        exit(DM_EXIT_USAGE);
    }
    rc = c->fn(argc - 1, argv + 1);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "error: cannot write to standard output\n");
        exit(rc ? rc : DM_EXIT_INFRA);
    }
    exit(rc);
}

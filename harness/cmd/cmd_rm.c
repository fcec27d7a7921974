/*
 * `dipmap rm RUN...`: delete runs from a store with everything recorded under
 * them, after a confirmation (a terminal's answer, or --yes). Every named run is
 * looked up before anything is deleted; a run in use by a live process is
 * refused; other runs are never touched. Owns only the command-line surface;
 * store_run_delete() does the work, one transaction per run.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/builtin.h"
#include "base/opt.h"
#include "store/store.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/usage.h"
#include "base/xalloc.h"

#include "base/banned.h"

static const char *const rm_usage[] = {
    "dipmap rm [--db FILE] [--yes] [--dry-run] RUN...",
    "",
    "Delete runs from the store: their trials, lock and batches, and the stored",
    "prompts and golden sets no other run uses. Asks for confirmation on a terminal;",
    "elsewhere --yes is required. A run in use by a live process is refused. Report",
    "folders and other files are yours and stay. The store file keeps its size until",
    "SQLite reuses the pages (sqlite3 FILE VACUUM shrinks it).",
    NULL,
};

/* 1 when the user typed y or yes on the terminal. */
static int confirmed(size_t n)
{
    char line[64];
    fprintf(stderr, "delete %s? [y/N] ", n == 1 ? "this run" : "these runs");
    fflush(stderr);
    if (!fgets(line, sizeof(line), stdin))
        return 0;
    line[strcspn(line, "\r\n")] = '\0';
    return !strcmp(line, "y") || !strcmp(line, "Y") || !strcmp(line, "yes");
}

/* Looks up every run: 0 when all exist and none is in use, else an exit code. */
static int check_runs(struct store *st, const struct strvec *names)
{
    size_t i, j;
    int rc = DM_EXIT_OK;
    for (i = 0; i < names->nr; i++) {
        struct run_info r;
        int g;
        for (j = 0; j < i; j++)
            if (!strcmp(names->v[i], names->v[j]))
                break;
        if (j < i)
            continue;
        g = store_run_get(st, names->v[i], &r);
        if (g < 0)
            return DM_EXIT_INFRA;
        if (g > 0) {
            error("rm: %s: no run named '%s' (dipmap runs --db %s lists them)", store_path(st),
                  names->v[i], store_path(st));
            rc = DM_EXIT_USAGE;
            continue;
        }
        if (run_info_is_live(&r)) {
            error("rm: run '%s' is in use by pid %ld on host %s; stop it first", r.name, r.lock_pid,
                  r.lock_host ? r.lock_host : "?");
            rc = DM_EXIT_USAGE;
        } else {
            fprintf(stderr, "  %s: model %s, %s, %ld trial%s stored\n", r.name,
                    r.model_requested ? r.model_requested : "-", run_info_status_text(&r),
                    r.trials_stored, r.trials_stored == 1 ? "" : "s");
        }
        run_info_release(&r);
    }
    return rc;
}

int cmd_rm(int argc, const char **argv)
{
    const char *db = NULL;
    int yes = 0, dry = 0, rc;
    struct option opts[] = {
        OPT_DB(&db, "the store"),
        OPT_BOOL('y', "yes", &yes, "delete without asking"),
        OPT_BOOL(0, "dry-run", &dry, "list what would be deleted; delete nothing"),
        OPT_END(),
    };
    struct strvec rest = STRVEC_INIT;
    struct store *st = NULL;
    const char *path;
    size_t i, done = 0;
    int prc = parse_options(argc, argv, opts, rm_usage, &rest);

    if (prc) {
        strvec_clear(&rest);
        return parse_options_exit(prc);
    }
    rc = DM_EXIT_OK;
    if (!rest.nr) {
        error("rm: name the runs to delete (dipmap runs lists them)");
        fprintf(stderr, "usage: %s\n", rm_usage[0]);
        rc = DM_EXIT_USAGE;
        goto out;
    }
    path = store_default_path(db);
    st = store_open(path, dry ? STORE_READONLY : STORE_READWRITE);
    if (!st) {
        rc = DM_EXIT_USAGE;
        goto out;
    }
    fprintf(stderr, "%s:\n", path);
    rc = check_runs(st, &rest);
    if (rc || dry)
        goto out;
    if (!yes) {
        if (!isatty(STDIN_FILENO)) {
            error("rm: not deleting without a confirmation: pass --yes (stdin is not a "
                  "terminal)");
            rc = DM_EXIT_USAGE;
            goto out;
        }
        if (!confirmed(rest.nr)) {
            fprintf(stderr, "nothing deleted\n");
            goto out;
        }
    }
    for (i = 0; i < rest.nr; i++) {
        struct store_rm_result res;
        int d = store_run_delete(st, rest.v[i], &res);
        if (d > 0)
            continue; /* named twice */
        if (d < 0) {
            rc = DM_EXIT_INFRA;
            break;
        }
        done++;
        printf("deleted run '%s': %ld trial%s, %ld stored prompt%s, %ld golden set%s\n", rest.v[i],
               res.trials, res.trials == 1 ? "" : "s", res.prompts, res.prompts == 1 ? "" : "s",
               res.golden_sets, res.golden_sets == 1 ? "" : "s");
    }
    if (rc && done < rest.nr)
        fprintf(stderr, "%zu of %zu runs deleted; the others are as they were\n", done, rest.nr);
out:
    if (store_close(st) && !rc)
        rc = DM_EXIT_INFRA;
    strvec_clear(&rest);
    return rc;
}

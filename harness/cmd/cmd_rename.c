/*
 * `dipmap rename RUN NEW`: give a run another name in its store (its trials
 * follow). Refuses a taken or invalid name and a run in use by a live process.
 * Owns only the command-line surface; store_run_rename() does the work.
 */
#include <stdio.h>

#include "cmd/builtin.h"
#include "base/opt.h"
#include "store/store.h"
#include "base/strvec.h"
#include "base/usage.h"

#include "base/banned.h"

static const char *const rename_usage[] = {
    "dipmap rename [--db FILE] RUN NEW",
    "",
    "Rename run RUN to NEW in the store. Resuming it, reports, compare and --reuse",
    "use the new name from then on; report folders already written keep theirs.",
    NULL,
};

int cmd_rename(int argc, const char **argv)
{
    const char *db = NULL;
    struct option opts[] = {
        OPT_DB(&db, "the store"),
        OPT_END(),
    };
    struct strvec rest = STRVEC_INIT;
    struct store *st = NULL;
    const char *path;
    int rc = DM_EXIT_OK, r;
    int prc = parse_options(argc, argv, opts, rename_usage, &rest);

    if (prc) {
        strvec_clear(&rest);
        return parse_options_exit(prc);
    }
    if (rest.nr != 2) {
        error("rename: give the run's name and its new name");
        fprintf(stderr, "usage: %s\n", rename_usage[0]);
        rc = DM_EXIT_USAGE;
        goto out;
    }
    path = store_default_path(db);
    st = store_open(path, STORE_READWRITE);
    if (!st) {
        rc = DM_EXIT_USAGE;
        goto out;
    }
    r = store_run_rename(st, rest.v[0], rest.v[1]);
    if (r > 0) {
        error("rename: %s: no run named '%s' (dipmap runs --db %s lists them)", path, rest.v[0],
              path);
        rc = DM_EXIT_USAGE;
    } else if (r < 0) {
        rc = DM_EXIT_USAGE;
    } else {
        printf("renamed run '%s' to '%s' in %s\n", rest.v[0], rest.v[1], path);
    }
out:
    if (store_close(st) && !rc)
        rc = DM_EXIT_INFRA;
    strvec_clear(&rest);
    return rc;
}

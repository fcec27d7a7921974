/*
 * `dipmap merge OUT.db IN.db...`: join shard stores (from --shard I/N runs)
 * into one store, refusing shards of different runs. Owns only the
 * command-line surface; store_merge() does the work.
 */
#include <stdio.h>

#include "cmd/builtin.h"
#include "base/opt.h"
#include "store/store.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/usage.h"

#include "base/banned.h"

static const char *const merge_usage[] = {
    "dipmap merge OUT.db IN.db...",
    "",
    "Join the shard stores of one run (dipmap run --shard I/N --run NAME) into OUT.db",
    "(created when missing; merging again is idempotent). Shards of different runs",
    "(inputs or settings differ) are refused, exit 2, and nothing is written. A run",
    "missing shards is listed as 'incomplete: shard K/N missing'.",
    NULL,
};

int cmd_merge(int argc, const char **argv)
{
    struct option opts[] = {OPT_END()};
    struct strvec rest = STRVEC_INIT;
    struct store *st = NULL;
    struct run_info *v = NULL;
    size_t n = 0, i;
    int rc = DM_EXIT_OK, mrc;
    int prc = parse_options(argc, argv, opts, merge_usage, &rest);

    if (prc) {
        strvec_clear(&rest);
        return parse_options_exit(prc);
    }
    if (rest.nr < 2) {
        error("merge: need an output database and at least one input");
        fprintf(stderr, "usage: %s\n", merge_usage[0]);
        rc = DM_EXIT_USAGE;
        goto out;
    }
    mrc = store_merge(rest.v[0], (const char *const *)rest.v + 1, rest.nr - 1);
    if (mrc) {
        rc = DM_EXIT_USAGE;
        goto out;
    }
    st = store_open(rest.v[0], STORE_READONLY);
    if (!st || store_run_list(st, NULL, &v, &n)) {
        rc = DM_EXIT_INFRA;
        goto out;
    }
    printf("merged %zu input%s into %s\n", rest.nr - 1, rest.nr == 2 ? "" : "s", rest.v[0]);
    for (i = 0; i < n; i++) {
        struct strbuf m = STRBUF_INIT;
        printf("  %s: %ld/%ld trials, %s", v[i].name, v[i].trials_done, run_info_planned(&v[i]),
               run_info_status_text(&v[i]));
        if (run_info_missing_shards(&v[i], &m)) {
            printf(": shard %s missing", m.buf);
            warning("run '%s' is incomplete: shard %s missing (merge its store in too)", v[i].name,
                    m.buf);
        }
        printf("%s%s\n", v[i].shard ? ", shards " : "", v[i].shard ? v[i].shard : "");
        strbuf_release(&m);
    }
out:
    run_info_list_free(v, n);
    store_close(st);
    strvec_clear(&rest);
    return rc;
}

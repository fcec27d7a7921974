/*
 * `dipmap runs`: list the runs of a store with model, status, progress
 * (finished/planned trials), valid trials, accuracy, dip and creation time,
 * as a table or as JSON.
 * Owns only the command-line surface; the store does the reading.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/builtin.h"
#include "base/escape.h"
#include "base/json.h"
#include "base/opt.h"
#include "run/plan.h"
#include "report/report.h"
#include "report/runbrief.h"
#include "store/store.h"
#include "report/summary_json.h"
#include "base/strbuf.h"
#include "base/utc.h"
#include "base/strvec.h"
#include "base/usage.h"
#include "base/xalloc.h"

#include "base/banned.h"

static const char *const runs_usage[] = {
    "dipmap runs [--db FILE] [--model PREFIX] [--tag TAG] [--json | --names]",
    NULL,
};

/* "2026-11-30 09:15:02Z" (UTC), or "-" when unset. */
static void format_time(struct strbuf *sb, double t)
{
    if (utc_format(sb, t, "%Y-%m-%d %H:%M:%SZ") < 0)
        strbuf_addstr(sb, "-");
}

static void format_progress(struct strbuf *sb, const struct run_info *r)
{
    strbuf_addf(sb, "%ld/%ld", r->trials_done, run_info_planned(r));
    if (run_info_planned(r) > 0)
        strbuf_addf(sb, " %3.0f%%", 100.0 * (double)r->trials_done / (double)run_info_planned(r));
}

/* Human model text: requested, plus what the server echoed when it differs. */
static void format_model(struct strbuf *sb, const struct run_info *r)
{
    strbuf_addstr(sb, r->model_requested ? r->model_requested : "-");
    if (r->model_served && r->model_requested && strcmp(r->model_served, r->model_requested))
        strbuf_addf(sb, " (%s)", r->model_served);
}

/*
 * One left-aligned table cell, padded to `width` terminal columns (a name like
 * "🚀run" is 5 columns in 7 bytes); the last one of a row ends the line (no trailing blanks).
 */
static void print_cell(const char *text, size_t width, int last)
{
    size_t w = escape_display_width(text);
    if (last) {
        printf("%s\n", text);
        return;
    }
    printf("%s%*s  ", text, (int)(width > w ? width - w : 0), "");
}

/* "3/4": valid (correct or wrong) of the finished trials */
static void format_valid(struct strbuf *sb, const struct runbrief *b)
{
    strbuf_addf(sb, "%ld/%ld", b->valid, b->trials);
}

/* The largest dip over the lengths, with its length: "+44.4 pp @32k"; "-" when none. */
static void format_dip(struct strbuf *sb, const struct runbrief *b)
{
    if (isnan(b->dip_max)) {
        strbuf_addstr(sb, "-");
        return;
    }
    report_pp(sb, b->dip_max);
    strbuf_addstr(sb, " @");
    plan_format_length(sb, b->dip_max_length);
}

static void print_table(const struct run_info *v, const struct runbrief *briefs, size_t n)
{
    size_t stalled = 0;
    struct strbuf incomplete = STRBUF_INIT;
    enum {
        C_NAME,
        C_MODEL,
        C_STATUS,
        C_PROGRESS,
        C_VALID,
        C_ACCURACY,
        C_DIP,
        C_CREATED,
        C_TAGS,
        NCOLS
    };
    static const char *const head[NCOLS] = {"NAME",     "MODEL", "STATUS",  "PROGRESS", "VALID",
                                            "ACCURACY", "DIP",   "CREATED", "TAGS"};
    struct strvec cells = STRVEC_INIT;
    size_t width[NCOLS], i, c;
    struct strbuf sb = STRBUF_INIT;

    for (c = 0; c < NCOLS; c++)
        width[c] = strlen(head[c]);
    for (i = 0; i < n; i++) {
        const struct run_info *r = &v[i];
        for (c = 0; c < NCOLS; c++) {
            strbuf_reset(&sb);
            switch (c) {
            case C_NAME:
                strbuf_addstr(&sb, r->name);
                break;
            case C_MODEL:
                format_model(&sb, r);
                break;
            case C_STATUS:
                strbuf_addstr(&sb, run_info_status_text(r));
                if (r->status == RUN_RUNNING && !run_info_is_live(r))
                    stalled++;
                if (!strcmp(sb.buf, "incomplete")) {
                    struct strbuf m = STRBUF_INIT;
                    run_info_missing_shards(r, &m);
                    strbuf_addf(&incomplete,
                                "note: '%s' is incomplete: shard %s missing (the "
                                "store holds shards %s; merge the missing shard stores in)\n",
                                r->name, m.buf, r->shard);
                    strbuf_release(&m);
                }
                break;
            case C_PROGRESS:
                format_progress(&sb, r);
                break;
            case C_VALID:
                format_valid(&sb, &briefs[i]);
                break;
            case C_ACCURACY:
                if (isnan(briefs[i].accuracy))
                    strbuf_addstr(&sb, "-");
                else
                    report_pct(&sb, briefs[i].accuracy);
                break;
            case C_DIP:
                format_dip(&sb, &briefs[i]);
                break;
            case C_CREATED:
                format_time(&sb, r->created_at);
                break;
            default:
                strbuf_addstr(&sb, r->tags && *r->tags ? r->tags : "-");
                break;
            }
            if (escape_display_width(sb.buf) > width[c])
                width[c] = escape_display_width(sb.buf);
            strvec_push(&cells, sb.buf);
        }
    }
    for (c = 0; c < NCOLS; c++)
        print_cell(head[c], width[c], c + 1 == NCOLS);
    for (i = 0; i < n; i++)
        for (c = 0; c < NCOLS; c++)
            print_cell(cells.v[i * NCOLS + c], width[c], c + 1 == NCOLS);
    if (stalled)
        fprintf(stderr,
                "note: 'stalled' runs were left running by a process that is gone; resume one "
                "with 'dipmap run --run NAME' and the same inputs\n");
    fputs(incomplete.buf, stderr);
    strvec_clear(&cells);
    strbuf_release(&sb);
    strbuf_release(&incomplete);
}

/* "trials_valid", "accuracy", "dip" {"max", "length", "lengths": [{"length", "dip"}]} */
static void add_brief(struct json *o, const struct runbrief *b)
{
    struct json *dip, *arr;
    size_t k;
    json_add_num(o, "trials_valid", (double)b->valid);
    json_add_num(o, "accuracy", b->accuracy);
    dip = json_add_object(o, "dip");
    json_add_num(dip, "max", b->dip_max);
    if (isnan(b->dip_max))
        json_add_null(dip, "length");
    else
        json_add_num(dip, "length", (double)b->dip_max_length);
    arr = json_add_array(dip, "lengths");
    for (k = 0; k < b->n_dips; k++) {
        struct json *e = json_add_object(arr, NULL);
        json_add_num(e, "length", (double)b->dips[k].length);
        json_add_num(e, "dip", b->dips[k].dip);
    }
}

static int print_json(const struct run_info *v, const struct runbrief *briefs, size_t n)
{
    struct json *arr = json_new_array();
    struct strbuf text = STRBUF_INIT;
    size_t i;
    for (i = 0; i < n; i++) {
        const struct run_info *r = &v[i];
        struct json *o = summary_json_run(r);
        struct strbuf m = STRBUF_INIT;
        json_add(arr, NULL, o);
        json_add_str(o, "missing_shards", run_info_missing_shards(r, &m) ? m.buf : NULL);
        strbuf_release(&m);
        json_add_bool(o, "live", run_info_is_live(r));
        if (r->lock_host) {
            struct json *lock = json_add_object(o, "lock");
            json_add_num(lock, "pid", (double)r->lock_pid);
            json_add_str(lock, "host", r->lock_host);
            if (r->lock_heartbeat > 0)
                json_add_num(lock, "heartbeat_at", r->lock_heartbeat);
            else
                json_add_null(lock, "heartbeat_at");
        } else {
            json_add_null(o, "lock");
        }
        json_add_num(o, "trials_stored", (double)r->trials_stored);
        add_brief(o, &briefs[i]);
    }
    json_print(&text, arr, 1);
    json_free(arr);
    printf("%s\n", text.buf);
    strbuf_release(&text);
    return 0;
}

int cmd_runs(int argc, const char **argv)
{
    const char *db = NULL, *model = NULL, *tag = NULL;
    int json = 0, names = 0, rc = DM_EXIT_OK;
    struct option opts[] = {
        OPT_DB(&db, "the store"),
        OPT_STRING(0, "model", &model, "PREFIX", "only runs whose model starts with PREFIX"),
        OPT_STRING(0, "tag", &tag, "TAG", "only runs carrying this tag (e.g. nightly)"),
        OPT_BOOL(0, "json", &json, "print a JSON array with every recorded field"),
        OPT_BOOL(0, "names", &names,
                 "print only the run names, one per line (scripts, shell completion)"),
        OPT_END(),
    };
    struct strvec rest = STRVEC_INIT;
    struct run_filter f = {NULL, NULL, NULL};
    struct run_info *v = NULL;
    struct runbrief *briefs = NULL;
    size_t n = 0, i;
    struct store *st = NULL;
    const char *path;
    int prc = parse_options(argc, argv, opts, runs_usage, &rest);

    if (prc) {
        strvec_clear(&rest);
        return parse_options_exit(prc);
    }
    if (rest.nr) {
        error("runs: unexpected argument '%s'", rest.v[0]);
        rc = DM_EXIT_USAGE;
        goto out;
    }
    path = store_default_path(db);
    st = store_open(path, STORE_READONLY);
    if (!st) {
        if (!db)
            fprintf(stderr, "hint: pass --db FILE or set %s\n", DIPMAP_DB_ENV);
        rc = DM_EXIT_USAGE;
        goto out;
    }
    f.model_prefix = model;
    f.tag = tag;
    if (store_run_list(st, &f, &v, &n)) {
        rc = DM_EXIT_INFRA;
        goto out;
    }
    if (names) {
        for (i = 0; i < n; i++)
            printf("%s\n", v[i].name);
        goto out;
    }
    briefs = xcalloc(n + 1, sizeof(*briefs));
    for (i = 0; i < n; i++) {
        if (runbrief_load(st, v[i].name, &briefs[i]) < 0) {
            rc = DM_EXIT_INFRA;
            goto out;
        }
    }
    if (json) {
        if (print_json(v, briefs, n))
            rc = DM_EXIT_INFRA;
    } else if (!n) {
        fprintf(stderr, "%s: no runs%s\n", path, model || tag ? " match" : "");
    } else {
        print_table(v, briefs, n);
    }
out:
    if (briefs)
        for (i = 0; i < n; i++)
            runbrief_release(&briefs[i]);
    free(briefs);
    run_info_list_free(v, n);
    store_close(st);
    strvec_clear(&rest);
    return rc;
}

/*
 * `dipmap plot`: U-curves and depth x length heatmaps of runs, and the trend
 * of edge, middle and dip over the runs of one model (prefix) or tag, the
 * nightly drift view. Owns the command-line surface and which runs and
 * metrics are drawn; plot.c draws, stats.c computes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "base/escape.h"
#include "base/opt.h"
#include "report/plot.h"
#include "report/report.h"
#include "stats/stats.h"
#include "store/store.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "stats/trend.h"
#include "base/usage.h"
#include "base/xalloc.h"

#include "base/banned.h"

static const char *const plot_usage[] = {
    "dipmap plot RUN... [--db FILE] [--out DIR] [--format svg,png]",
    "dipmap plot --model PREFIX|--tag TAG [--db FILE] [--out DIR] [--format svg,png]",
    NULL,
};

static int parse_formats(const char *list, unsigned *out)
{
    struct strvec v = STRVEC_INIT;
    size_t i;
    int ret = 0;

    *out = 0;
    strvec_split(&v, list, ',');
    for (i = 0; i < v.nr && !ret; i++) {
        if (!strcmp(v.v[i], "svg"))
            *out |= 1u << PLOT_SVG;
        else if (!strcmp(v.v[i], "png"))
            *out |= 1u << PLOT_PNG;
        else
            ret = error("plot: unknown format '%s' (expected svg, png)", v.v[i]);
    }
    if (!ret && !*out)
        ret = error("plot: --format needs svg, png or both");
    strvec_clear(&v);
    return ret;
}

static void print_written(const char *dir, const char *name, unsigned formats)
{
    if (formats & (1u << PLOT_SVG))
        printf("wrote %s/%s.svg\n", dir, name);
    if (formats & (1u << PLOT_PNG))
        printf("wrote %s/%s.png\n", dir, name);
}

/* Turn a plot status into an exit code, saying why gnuplot is missing. */
static int plot_rc(int pr)
{
    if (pr == PLOT_NO_GNUPLOT) {
        error("plot: gnuplot not found on PATH (install gnuplot, e.g. apt-get install "
              "gnuplot-nox)");
        return DM_EXIT_INFRA;
    }
    return pr == PLOT_OK ? DM_EXIT_OK : DM_EXIT_INFRA;
}

static int load_stats(struct store *st, const char *name, struct run_info *run,
                      struct run_stats *stats)
{
    struct trial_point_set trials = TRIAL_POINT_SET_INIT;
    struct stats_options o;
    struct strbuf err = STRBUF_INIT;
    int r = store_run_get(st, name, run);

    if (r != 0) {
        if (r > 0)
            error("plot: no run named '%s' in %s", name, store_path(st));
        return r > 0 ? DM_EXIT_USAGE : DM_EXIT_INFRA;
    }
    if (store_points_load(st, name, &trials) != 0) {
        trial_point_set_release(&trials);
        return DM_EXIT_INFRA;
    }
    stats_options_init(&o);
    r = stats_compute(trials.v, trials.nr, &o, stats, &err);
    if (r < 0)
        error("plot: %s", err.buf);
    trial_point_set_release(&trials);
    strbuf_release(&err);
    return r < 0 ? DM_EXIT_USAGE : DM_EXIT_OK;
}

static int plot_runs(struct store *st, const struct strvec *names, const char *out,
                     unsigned formats)
{
    size_t i;
    int rc = DM_EXIT_OK;

    for (i = 0; i < names->nr && rc == DM_EXIT_OK; i++) {
        struct run_info run;
        struct run_stats stats;
        struct strbuf dir = STRBUF_INIT, err = STRBUF_INIT;

        run_info_init(&run);
        rc = load_stats(st, names->v[i], &run, &stats);
        if (rc == DM_EXIT_OK) {
            if (out && names->nr == 1) {
                strbuf_addstr(&dir, out);
            } else {
                strbuf_addstr(&dir, out ? out : "reports");
                strbuf_addch(&dir, '/');
                escape_folder_name(&dir, run.name);
            }
            if (report_make_dirs(dir.buf, &err) < 0) {
                error("%s", err.buf);
                rc = DM_EXIT_USAGE;
            } else {
                rc = plot_rc(report_run_plots(dir.buf, formats, &run, &stats, NULL, NULL));
                if (rc == DM_EXIT_OK) {
                    print_written(dir.buf, "ucurve", formats);
                    print_written(dir.buf, "heatmap", formats);
                }
            }
            run_stats_release(&stats);
        }
        run_info_release(&run);
        strbuf_release(&dir);
        strbuf_release(&err);
    }
    return rc;
}

/* ---- trend ---- */

static int plot_trend(struct store *st, const struct run_filter *f, const char *what,
                      const char *out, unsigned formats)
{
    struct trend tr;
    struct strbuf dir = STRBUF_INIT, err = STRBUF_INIT;
    int rc = DM_EXIT_OK, lr;

    lr = trend_load(&tr, st, f, &err);
    if (lr) {
        if (lr > 0)
            error("plot: no runs match %s in %s", what, store_path(st));
        else if (err.len)
            error("plot: %s", err.buf);
        rc = lr > 0 || err.len ? DM_EXIT_USAGE : DM_EXIT_INFRA;
        goto cleanup;
    }
    if (tr.n_other)
        fprintf(stderr,
                "plot: %lu run%s matching %s %s of another series (inputs, lengths, depths or "
                "axes differ from the newest run '%s') and left out of the trend\n",
                (unsigned long)tr.n_other, tr.n_other == 1 ? "" : "s", what,
                tr.n_other == 1 ? "is" : "are", tr.runs[tr.n - 1].name);
    if (out)
        strbuf_addstr(&dir, out);
    else {
        /* "tag nightly" -> trend-tag_nightly; unique per selection like run folders */
        struct strbuf key = STRBUF_INIT;
        const char *sp = strchr(what, ' ');
        strbuf_add(&key, what, sp && !strchr(what, ',') ? (size_t)(sp - what) : strlen(what));
        if (sp && !strchr(what, ','))
            strbuf_addf(&key, "_%s", sp + 1);
        strbuf_addstr(&dir, "reports/trend-");
        escape_folder_name(&dir, key.buf);
        strbuf_release(&key);
    }
    if (report_make_dirs(dir.buf, &err) < 0) {
        error("%s", err.buf);
        rc = DM_EXIT_USAGE;
        goto cleanup;
    }
    rc = plot_rc(trend_plot(&tr, what, dir.buf, formats, NULL));
    if (rc == DM_EXIT_OK)
        print_written(dir.buf, "trend", formats);
cleanup:
    trend_release(&tr);
    strbuf_release(&dir);
    strbuf_release(&err);
    return rc;
}

int cmd_plot(int argc, const char **argv)
{
    const char *db = NULL, *out = NULL, *formats_arg = "svg,png", *model = NULL, *tag = NULL;
    struct option opts[] = {
        OPT_DB(&db, "run store"),
        OPT_STRING('o', "out", &out, "DIR",
                   "output folder (default reports/<run>, or reports/trend-<model|tag>)"),
        OPT_STRING(0, "format", &formats_arg, "LIST", "svg, png or svg,png (default both)"),
        OPT_STRING(0, "model", &model, "PREFIX",
                   "trend over the runs whose model starts with PREFIX"),
        OPT_STRING(0, "tag", &tag, "TAG", "trend over the runs tagged TAG"),
        OPT_END(),
    };
    struct strvec rest = STRVEC_INIT;
    struct store *st = NULL;
    unsigned formats = 0;
    int rc = DM_EXIT_OK, prc = parse_options(argc, argv, opts, plot_usage, &rest);

    if (prc) {
        strvec_clear(&rest);
        return parse_options_exit(prc);
    }
    if (parse_formats(formats_arg, &formats) < 0) {
        rc = DM_EXIT_USAGE;
        goto cleanup;
    }
    if ((model || tag) && rest.nr) {
        error("plot: give run names or --model/--tag, not both");
        rc = DM_EXIT_USAGE;
        goto cleanup;
    }
    if (!model && !tag && !rest.nr) {
        error("plot: which runs? give run names, or --model PREFIX / --tag TAG for a trend");
        usage_with_options(stderr, plot_usage, opts);
        rc = DM_EXIT_USAGE;
        goto cleanup;
    }
    st = store_open(store_default_path(db), STORE_READONLY);
    if (!st) {
        rc = DM_EXIT_USAGE;
        goto cleanup;
    }
    if (rest.nr) {
        rc = plot_runs(st, &rest, out, formats);
    } else {
        struct run_filter f;
        struct strbuf what = STRBUF_INIT;
        memset(&f, 0, sizeof(f));
        f.model_prefix = model;
        f.tag = tag;
        if (model)
            strbuf_addf(&what, "model %s", model);
        if (tag)
            strbuf_addf(&what, "%stag %s", model ? ", " : "", tag);
        rc = plot_trend(st, &f, what.buf, out, formats);
        strbuf_release(&what);
    }

cleanup:
    if (st && store_close(st) < 0 && rc == DM_EXIT_OK)
        rc = DM_EXIT_INFRA;
    strvec_clear(&rest);
    return rc;
}

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

#include "builtin.h"
#include "escape.h"
#include "opt.h"
#include "plot.h"
#include "report.h"
#include "stats.h"
#include "store.h"
#include "strbuf.h"
#include "strvec.h"
#include "usage.h"
#include "xalloc.h"

#include "banned.h"

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
    struct trial_result *trials = NULL;
    size_t n = 0;
    struct stats_options o;
    struct strbuf err = STRBUF_INIT;
    int r = store_run_get(st, name, run);

    if (r != 0) {
        if (r > 0)
            error("plot: no run named '%s' in %s", name, store_path(st));
        return r > 0 ? DM_EXIT_USAGE : DM_EXIT_INFRA;
    }
    if (store_trials_load(st, name, &trials, &n) != 0)
        return DM_EXIT_INFRA;
    stats_options_init(&o);
    r = stats_compute(trials, n, &o, stats, &err);
    if (r < 0)
        error("plot: %s", err.buf);
    store_trials_free(trials, n);
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
        struct strbuf dir = STRBUF_INIT;

        run_info_init(&run);
        rc = load_stats(st, names->v[i], &run, &stats);
        if (rc == DM_EXIT_OK) {
            if (out && names->nr == 1) {
                strbuf_addstr(&dir, out);
            } else {
                strbuf_addstr(&dir, out ? out : "reports");
                strbuf_addch(&dir, '/');
                escape_filename(&dir, run.name);
            }
            if (report_make_dirs(dir.buf) < 0) {
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
    }
    return rc;
}

/* ---- trend ---- */

enum metric { M_EDGE, M_MIDDLE, M_DIP, M__COUNT };
static const char *const metric_name[M__COUNT] = {"edge", "middle", "dip"};

struct trend_data {
    const struct plot_series *s;
    size_t n;
};

static void build_trend(struct strbuf *script, const struct plot_opts *o, const void *data)
{
    const struct trend_data *t = data;
    plot_script_trend(script, o, t->s, t->n);
}

static int plot_trend(struct store *st, const struct run_filter *f, const char *what,
                      const char *out, unsigned formats)
{
    struct run_info *runs = NULL;
    size_t nruns = 0, i, j, nlen = 0, alloc_len = 0, nseries;
    struct run_stats *stats = NULL;
    long *lengths = NULL;
    struct plot_series *series = NULL;
    struct plot_point *pts = NULL;
    struct strbuf dir = STRBUF_INIT, title = STRBUF_INIT, sub = STRBUF_INIT;
    struct strvec labels = STRVEC_INIT;
    struct trend_data td;
    struct plot_opts o;
    int rc = DM_EXIT_OK, nstats = 0;

    if (store_run_list(st, f, &runs, &nruns) < 0)
        return DM_EXIT_INFRA;
    if (!nruns) {
        error("plot: no runs match %s in %s", what, store_path(st));
        rc = DM_EXIT_USAGE;
        goto cleanup;
    }
    stats = xcalloc(nruns, sizeof(*stats));
    for (i = 0; i < nruns; i++, nstats++) {
        struct run_info tmp;
        run_info_init(&tmp);
        rc = load_stats(st, runs[i].name, &tmp, &stats[i]);
        run_info_release(&tmp);
        if (rc != DM_EXIT_OK)
            goto cleanup;
        for (j = 0; j < stats[i].n_lengths; j++) {
            long len = stats[i].lengths[j].length;
            size_t k, pos;
            for (k = 0; k < nlen && lengths[k] != len; k++)
                ;
            if (k < nlen)
                continue;
            ALLOC_GROW(lengths, nlen + 1, alloc_len);
            for (pos = nlen; pos > 0 && lengths[pos - 1] > len; pos--)
                lengths[pos] = lengths[pos - 1];
            lengths[pos] = len;
            nlen++;
        }
    }

    /* one series per (length, metric); points in run order (oldest first) */
    nseries = nlen * M__COUNT;
    series = xcalloc(nseries + 1, sizeof(*series));
    pts = xcalloc(st_mult(nseries, nruns) + 1, sizeof(*pts));
    for (j = 0; j < nlen; j++) {
        int m;
        for (m = 0; m < M__COUNT; m++) {
            struct plot_series *s = &series[j * M__COUNT + (size_t)m];
            struct strbuf lab = STRBUF_INIT;
            strbuf_addf(&lab, "%s ", metric_name[m]);
            report_length(&lab, lengths[j]);
            s->label = strvec_push(&labels, lab.buf);
            strbuf_release(&lab);
            s->pts = pts + (j * M__COUNT + (size_t)m) * nruns;
            s->edge = s->middle = NAN;
            for (i = 0; i < nruns; i++) {
                struct plot_point *p = (struct plot_point *)&s->pts[s->n];
                const struct length_stats *l = NULL;
                const struct estimate *e;
                size_t k;
                for (k = 0; k < stats[i].n_lengths; k++)
                    if (stats[i].lengths[k].length == lengths[j])
                        l = &stats[i].lengths[k];
                if (!l || !l->n_depths || (m != M_EDGE && !l->has_middle))
                    continue;
                e = m == M_EDGE ? &l->edge : m == M_MIDDLE ? &l->middle_worst : &l->dip;
                p->x = runs[i].started_at > 0 ? runs[i].started_at : runs[i].created_at;
                p->y = e->est;
                p->lo = e->lo;
                p->hi = e->hi;
                s->n++;
            }
        }
    }

    if (out)
        strbuf_addstr(&dir, out);
    else {
        strbuf_addstr(&dir, "reports/trend-");
        escape_filename(&dir, what);
    }
    if (report_make_dirs(dir.buf) < 0) {
        rc = DM_EXIT_USAGE;
        goto cleanup;
    }
    memset(&o, 0, sizeof(o));
    strbuf_addf(&title, "trend of %s", what);
    strbuf_addf(&sub, "%zu runs: edge, worst middle and dip per length (95%% bootstrap intervals)",
                nruns);
    o.title = title.buf;
    o.subtitle = sub.buf;
    o.group = M__COUNT;
    td.s = series;
    td.n = nseries;
    rc = plot_rc(plot_save(dir.buf, "trend", formats, build_trend, &td, &o, NULL));
    if (rc == DM_EXIT_OK)
        print_written(dir.buf, "trend", formats);

cleanup:
    for (i = 0; i < (size_t)nstats; i++)
        run_stats_release(&stats[i]);
    free(stats);
    free(series);
    free(pts);
    free(lengths);
    strvec_clear(&labels);
    run_info_list_free(runs, nruns);
    strbuf_release(&dir);
    strbuf_release(&title);
    strbuf_release(&sub);
    return rc;
}

int cmd_plot(int argc, const char **argv)
{
    const char *db = NULL, *out = NULL, *formats_arg = "svg,png", *model = NULL, *tag = NULL;
    struct option opts[] = {
        {OPT_STRING, "db", 0, &db, "FILE", "run store (default $DIPMAP_DB or dipmap.db)", 0},
        {OPT_STRING, "out", 'o', &out, "DIR",
         "output folder (default reports/<run>, or reports/trend-<model|tag>)", 0},
        {OPT_STRING, "format", 0, &formats_arg, "LIST", "svg, png or svg,png (default both)", 0},
        {OPT_STRING, "model", 0, &model, "PREFIX",
         "trend over the runs whose model starts with PREFIX", 0},
        {OPT_STRING, "tag", 0, &tag, "TAG", "trend over the runs tagged TAG", 0},
        OPT_END_MARK,
    };
    struct strvec rest = STRVEC_INIT;
    struct store *st = NULL;
    unsigned formats = 0;
    int rc = DM_EXIT_OK, prc = parse_options(argc, argv, opts, plot_usage, &rest);

    if (prc) {
        strvec_clear(&rest);
        return prc > 0 ? DM_EXIT_OK : DM_EXIT_USAGE;
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

/*
 * `dipmap report RUN`: load a run from the store, compute its statistics and
 * write summary.md, report.html, summary.json and the plots into one folder
 * (default reports/<run>/). Owns the command-line surface and the file
 * layout; report.c writes the documents, plot.c draws, stats.c computes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "builtin.h"
#include "dataset.h"
#include "escape.h"
#include "opt.h"
#include "plot.h"
#include "report.h"
#include "order_stats.h"
#include "report_doc.h"
#include "stats.h"
#include "store.h"
#include "strbuf.h"
#include "strvec.h"
#include "summary_json.h"
#include "usage.h"

#include "banned.h"

static const char *const report_usage[] = {
    "dipmap report RUN [--db FILE] [--out DIR] [--format md,json,html] [--no-plots] "
    "[--dataset FILE]",
    "                  [--rank-dist FILE | --rank-p P] [--axis-pair A,B]",
    NULL,
};

enum { FMT_MD = 1, FMT_JSON = 2, FMT_HTML = 4 };

static int parse_formats(const char *list, unsigned *out)
{
    struct strvec v = STRVEC_INIT;
    size_t i;
    int ret = 0;

    *out = 0;
    strvec_split(&v, list, ',');
    for (i = 0; i < v.nr; i++) {
        const char *f = v.v[i];
        if (!strcmp(f, "md") || !strcmp(f, "markdown"))
            *out |= FMT_MD;
        else if (!strcmp(f, "json"))
            *out |= FMT_JSON;
        else if (!strcmp(f, "html"))
            *out |= FMT_HTML;
        else {
            ret = error("report: unknown format '%s' (expected md, json, html)", f);
            break;
        }
    }
    if (!ret && !*out)
        ret = error("report: --format needs at least one of md, json, html");
    strvec_clear(&v);
    return ret;
}

static int write_out(const char *dir, const char *name, const struct strbuf *data)
{
    struct strbuf path = STRBUF_INIT;
    int ret;

    strbuf_addf(&path, "%s/%s", dir, name);
    ret = plot_write_file(path.buf, data);
    if (!ret)
        printf("wrote %s\n", path.buf);
    strbuf_release(&path);
    return ret;
}

int cmd_report(int argc, const char **argv)
{
    const char *db = NULL, *out_dir = NULL, *formats_arg = "md,json,html", *dataset = NULL;
    const char *rank_dist = NULL, *axis_pair = NULL;
    struct strvec pair = STRVEC_INIT;
    double geometric_p = 0.5, *rank_probs = NULL, price_in = -1, price_out = -1;
    size_t n_rank_probs = 0;
    int no_plots = 0, exclude_known = 0, rc = DM_EXIT_OK, prc;
    struct option opts[] = {
        {OPT_STRING, "db", 0, &db, "FILE", "run store (default $DIPMAP_DB or dipmap.db)", 0},
        {OPT_STRING, "out", 'o', &out_dir, "DIR", "output folder (default reports/<run>)", 0},
        {OPT_STRING, "format", 0, &formats_arg, "LIST",
         "comma-separated: md (summary.md), json (summary.json), html (report.html)", 0},
        {OPT_BOOL, "no-plots", 0, &no_plots, NULL, "do not run gnuplot (tables only)", 0},
        {OPT_BOOL, "exclude-known", 0, &exclude_known, NULL,
         "leave out questions answered correctly closed-book (run --controls closed-book)", 0},
        {OPT_STRING, "dataset", 0, &dataset, "FILE",
         "the run's golden set: show the questions of failed trials", 0},
        {OPT_STRING, "rank-dist", 0, &rank_dist, "FILE",
         "ordering advice: retriever rank distribution, one probability per line (rank 1 first)",
         0},
        {OPT_DOUBLE, "rank-p", 0, &geometric_p, "P",
         "ordering advice without --rank-dist: geometric P(rank r) = p(1-p)^(r-1) (default 0.5)",
         0},
        {OPT_DOUBLE, "price-in", 0, &price_in, "USD",
         "order experiment: USD per 1M prompt tokens, for the cost per question (with "
         "--price-out)",
         0},
        {OPT_DOUBLE, "price-out", 0, &price_out, "USD", "USD per 1M completion tokens", 0},
        {OPT_STRING, "axis-pair", 0, &axis_pair, "A,B",
         "two named axes of the run: their heatmap axis-pair-A-B.svg and table (accuracy per A "
         "value x B value)",
         0},
        OPT_END_MARK,
    };
    struct strvec rest = STRVEC_INIT;
    struct store *st = NULL;
    struct report_doc d;
    struct stats_options sopt;
    struct strbuf dir = STRBUF_INIT, doc = STRBUF_INIT, err = STRBUF_INIT;
    unsigned formats = 0;

    report_doc_init(&d);
    prc = parse_options(argc, argv, opts, report_usage, &rest);
    if (prc) {
        strvec_clear(&rest);
        return prc > 0 ? DM_EXIT_OK : DM_EXIT_USAGE;
    }
    if (rest.nr != 1) {
        error(rest.nr ? "report: give exactly one run name"
                      : "report: which run? (dipmap runs "
                        "lists them)");
        usage_with_options(stderr, report_usage, opts);
        rc = DM_EXIT_USAGE;
        goto cleanup;
    }
    if (axis_pair && (strvec_split(&pair, axis_pair, ',') != 2 || !*pair.v[0] || !*pair.v[1] ||
                      !strcmp(pair.v[0], pair.v[1]))) {
        error("report: --axis-pair needs two different axis names, e.g. "
              "question-at,distractors");
        rc = DM_EXIT_USAGE;
        goto cleanup;
    }
    if (parse_formats(formats_arg, &formats) < 0) {
        rc = DM_EXIT_USAGE;
        goto cleanup;
    }
    if ((opt_find(opts, "price-in")->seen != 0) != (opt_find(opts, "price-out")->seen != 0) ||
        (opt_find(opts, "price-in")->seen && (!(price_in >= 0) || !(price_out >= 0)))) {
        error("report: --price-in and --price-out go together, each >= 0 (USD per 1M prompt "
              "and completion tokens)");
        rc = DM_EXIT_USAGE;
        goto cleanup;
    }
    if (rank_dist && opt_find(opts, "rank-p")->seen) {
        error("report: give --rank-dist FILE or --rank-p P, not both (--rank-p is the "
              "geometric model used without a measured distribution)");
        rc = DM_EXIT_USAGE;
        goto cleanup;
    }
    if (dataset) {
        /* a golden set the user named must load: nothing is written when it does not */
        struct golden_set gs;
        memset(&gs, 0, sizeof(gs));
        if (golden_set_load(&gs, dataset) < 0) {
            error("report: --dataset %s cannot be used (see above); nothing was written", dataset);
            rc = DM_EXIT_USAGE;
            goto cleanup;
        }
        golden_set_release(&gs);
    }

    st = store_open(store_default_path(db), STORE_READONLY);
    if (!st) {
        rc = DM_EXIT_USAGE;
        goto cleanup;
    }
    stats_options_init(&sopt);
    if (rank_dist) {
        if (rank_dist_load(rank_dist, &rank_probs, &n_rank_probs, &err) < 0) {
            error("report: %s", err.buf);
            rc = DM_EXIT_USAGE;
            goto cleanup;
        }
        sopt.rank_probs = rank_probs;
        sopt.n_rank_probs = n_rank_probs;
    } else if (!(geometric_p > 0 && geometric_p <= 1)) {
        error("report: --rank-p must be in (0, 1], got %g", geometric_p);
        rc = DM_EXIT_USAGE;
        goto cleanup;
    } else {
        sopt.geometric_p = geometric_p;
    }
    sopt.exclude_known = exclude_known;
    prc = report_doc_load(&d, st, rest.v[0], &sopt, &err);
    if (prc == 0 && d.have_order && price_in >= 0)
        order_stats_price(&d.order, price_in, price_out);
    if (prc != 0) {
        if (prc > 0)
            error("report: no run named '%s' in %s", rest.v[0], store_path(st));
        else if (err.len)
            error("report: %s", err.buf);
        rc = prc > 0 || err.len ? DM_EXIT_USAGE : DM_EXIT_INFRA;
        goto cleanup;
    }

    for (size_t i = 0; i < pair.nr; i++) {
        size_t k;
        for (k = 0; k < d.n_axes && (!d.axes[k].paired || strcmp(d.axes[k].name, pair.v[i])); k++)
            ;
        if (k == d.n_axes) {
            struct strbuf names = STRBUF_INIT;
            for (k = 0; k < d.n_axes; k++)
                if (d.axes[k].paired)
                    strbuf_addf(&names, "%s%s", names.len ? ", " : "", d.axes[k].name);
            error("report: --axis-pair: run '%s' has no axis '%s' (its axes: %s)", d.run.name,
                  pair.v[i], names.len ? names.buf : "none");
            strbuf_release(&names);
            rc = DM_EXIT_USAGE;
            goto cleanup;
        }
    }

    if (out_dir) {
        strbuf_addstr(&dir, out_dir);
    } else {
        /* the run name is user text: never let it leave reports/ */
        strbuf_addstr(&dir, "reports/");
        escape_folder_name(&dir, d.run.name);
    }
    if (report_make_dirs(dir.buf) < 0) {
        rc = DM_EXIT_USAGE;
        goto cleanup;
    }

    if (formats & FMT_JSON) {
        strbuf_reset(&doc);
        if (summary_json_write_order(&d.run, &d.stats, d.axes, d.n_axes,
                                     d.have_order ? &d.order : NULL, d.curve_run, &doc) < 0 ||
            write_out(dir.buf, "summary.json", &doc) < 0) {
            rc = DM_EXIT_USAGE;
            goto cleanup;
        }
    }
    if (!(formats & (FMT_MD | FMT_HTML)))
        goto cleanup;

    /* plots: a missing gnuplot costs the pictures, never the report */
    if (no_plots) {
        report_doc_plots(&d, -2);
    } else {
        int pr = d.have_order
                     ? report_order_plot(dir.buf, PLOT_BOTH, &d.run, &d.order, &d.usvg)
                     : report_run_plots(dir.buf, PLOT_BOTH, &d.run, &d.stats, &d.usvg, &d.hsvg);
        if (pr == PLOT_NO_GNUPLOT)
            warning("gnuplot not found on PATH: plots skipped (install gnuplot to draw them); "
                    "the tables are still written");
        else if (pr != PLOT_OK)
            warning("plots skipped: gnuplot failed (see the error above); the tables are still "
                    "written");
        else if (d.have_order)
            printf("wrote %s/order.svg, order.png\n", dir.buf);
        else
            printf("wrote %s/ucurve.svg, ucurve.png, heatmap.svg, heatmap.png\n", dir.buf);
        if (pr == PLOT_OK && !d.have_order && d.n_axes) {
            /* small multiples per axis (one panel per value), the --axis-pair heatmap */
            struct strbuf names = STRBUF_INIT;
            const char *pp[2] = {pair.nr == 2 ? pair.v[0] : NULL, pair.nr == 2 ? pair.v[1] : NULL};
            pr = report_doc_axis_plots(&d, dir.buf, PLOT_BOTH, pp, &names);
            if (pr != PLOT_OK)
                warning("axis plots skipped: gnuplot failed (see the error above)");
            else
                printf("wrote %s/%s (and .png)\n", dir.buf, names.buf);
            strbuf_release(&names);
            pr = PLOT_OK;
        }
        report_doc_plots(&d, pr);
    }
    /* failed trials at the worst depths, with their questions when the golden set is here */
    report_doc_failures(&d, dataset, (double)time(NULL));
    report_doc_prompts(&d, st);
    if (pair.nr == 2) {
        d.in.axis_pair[0] = pair.v[0];
        d.in.axis_pair[1] = pair.v[1];
    }

    if (formats & FMT_MD) {
        strbuf_reset(&doc);
        report_markdown(&doc, &d.in);
        if (write_out(dir.buf, "summary.md", &doc) < 0) {
            rc = DM_EXIT_USAGE;
            goto cleanup;
        }
    }
    if (formats & FMT_HTML) {
        strbuf_reset(&doc);
        report_html(&doc, &d.in);
        if (write_out(dir.buf, "report.html", &doc) < 0) {
            rc = DM_EXIT_USAGE;
            goto cleanup;
        }
    }

cleanup:
    report_doc_release(&d);
    free(rank_probs);
    if (st && store_close(st) < 0 && rc == DM_EXIT_OK)
        rc = DM_EXIT_INFRA;
    strvec_clear(&rest);
    strvec_clear(&pair);
    strbuf_release(&dir);
    strbuf_release(&doc);
    strbuf_release(&err);
    return rc;
}

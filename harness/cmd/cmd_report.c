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

#include "cmd/builtin.h"
#include "prompt/dataset.h"
#include "base/escape.h"
#include "base/opt.h"
#include "report/plot.h"
#include "report/report.h"
#include "stats/order_stats.h"
#include "report/report_doc.h"
#include "prompt/retrieval.h"
#include "stats/stats.h"
#include "store/store.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "report/summary_json.h"
#include "base/num.h"
#include "base/usage.h"

#include "base/banned.h"

static const char *const report_usage[] = {
    "dipmap report RUN [--db FILE] [--out DIR] [--format md,json,html] [--no-plots] "
    "[--dataset FILE]",
    "                  [--rank-dist FILE | --rank-p P] [--exclude-known] "
    "[--price-in USD --price-out USD]",
    "                  [--axis-pair A,B] [--ruler-threshold PCT] [--nolima-base N]",
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
    ret = cmd_write_file(path.buf, data);
    if (!ret)
        printf("wrote %s\n", path.buf);
    strbuf_release(&path);
    return ret;
}

/* The options as given (defaults in report_cmd_init) and what report builds from them. */
struct report_cmd {
    const char *db, *out_dir, *formats_arg, *dataset, *rank_dist, *axis_pair, *nolima_base_s;
    double geometric_p, price_in, price_out, ruler_threshold;
    long nolima_base;
    int no_plots, exclude_known, price_in_seen, price_out_seen, rank_p_seen;
    struct strvec rest, pair;
    unsigned formats; /* FMT_* */
    double *rank_probs;
    size_t n_rank_probs;
    struct store *st;
    struct report_doc d;
    struct strbuf dir, doc, err;
};

static void report_cmd_init(struct report_cmd *r)
{
    memset(r, 0, sizeof(*r));
    r->formats_arg = "md,json,html";
    r->geometric_p = ((struct stats_options)STATS_OPTIONS_INIT).geometric_p;
    r->price_in = r->price_out = -1;
    r->ruler_threshold = EFFECTIVE_RULER_THRESHOLD * 100.0;
    r->nolima_base = EFFECTIVE_NOLIMA_BASE_MAX;
    strvec_init(&r->rest);
    strvec_init(&r->pair);
    report_doc_init(&r->d);
    strbuf_init(&r->dir, 0);
    strbuf_init(&r->doc, 0);
    strbuf_init(&r->err, 0);
}

/* Frees everything; a failed store close turns success into DM_EXIT_INFRA. */
static int report_cmd_release(struct report_cmd *r, int rc)
{
    report_doc_release(&r->d);
    free(r->rank_probs);
    if (r->st && store_close(r->st) < 0 && rc == DM_EXIT_OK)
        rc = DM_EXIT_INFRA;
    strvec_clear(&r->rest);
    strvec_clear(&r->pair);
    strbuf_release(&r->dir);
    strbuf_release(&r->doc);
    strbuf_release(&r->err);
    return rc;
}

/* The option table (dipmap help report prints it) and the run name: 0, 1 after help, -1. */
static int report_parse(struct report_cmd *r, int argc, const char **argv)
{
    struct option opts[] = {
        OPT_DB(&r->db, "run store"),
        OPT_STRING('o', "out", &r->out_dir, "DIR", "output folder (default reports/<run>)"),
        OPT_STRING(0, "format", &r->formats_arg, "LIST",
                   "comma-separated: md (summary.md), json (summary.json), html (report.html)"),
        OPT_BOOL(0, "no-plots", &r->no_plots, "do not run gnuplot (tables only)"),
        OPT_BOOL(0, "exclude-known", &r->exclude_known,
                 "leave out questions answered correctly closed-book (run --controls closed-book)"),
        OPT_STRING(0, "dataset", &r->dataset, "FILE",
                   "the run's golden set: show the questions of failed trials"),
        OPT_STRING(0, "rank-dist", &r->rank_dist, "FILE",
                   "ordering advice: retriever rank distribution, one probability per line (rank 1 "
                   "first)"),
        OPT_DOUBLE(0, "rank-p", &r->geometric_p, "P",
                   "ordering advice without --rank-dist: geometric P(rank r) = p(1-p)^(r-1) "
                   "(default " OPT_DEFAULT(ORDER_DEFAULT_RANK_P) ")"),
        OPT_DOUBLE(0, "price-in", &r->price_in, "USD",
                   "order experiment: USD per 1M prompt tokens, for the cost per question (with "
                   "--price-out)"),
        OPT_DOUBLE(0, "price-out", &r->price_out, "USD", "USD per 1M completion tokens"),
        OPT_STRING(
            0, "axis-pair", &r->axis_pair, "A,B",
            "two named axes of the run: their heatmap axis-pair-A-B.svg and table (accuracy per A "
            "value x B value)"),
        OPT_DOUBLE(
            0, "ruler-threshold", &r->ruler_threshold, "PCT",
            "RULER's effective length: the longest length scoring above PCT % (default 85.6, "
            "Llama-2-7B at 4K)"),
        OPT_STRING(
            0, "nolima-base", &r->nolima_base_s, "N",
            "NoLiMa's effective length: the base score is the accuracy at lengths up to N tokens "
            "(default 1k)"),
        OPT_END(),
    };
    int rc = parse_options(argc, argv, opts, report_usage, &r->rest);
    if (rc)
        return rc;
    if (r->rest.nr != 1) {
        error(r->rest.nr ? "report: give exactly one run name"
                         : "report: which run? (dipmap runs "
                           "lists them)");
        usage_with_options(stderr, report_usage, opts);
        return -1;
    }
    r->price_in_seen = opt_find(opts, "price-in")->seen;
    r->price_out_seen = opt_find(opts, "price-out")->seen;
    r->rank_p_seen = opt_find(opts, "rank-p")->seen;
    return 0;
}

/* The checks that need no store: --axis-pair, --format, the prices, --rank-*, --dataset. */
static int report_check_options(struct report_cmd *r)
{
    if (r->axis_pair && (strvec_split(&r->pair, r->axis_pair, ',') != 2 || !*r->pair.v[0] ||
                         !*r->pair.v[1] || !strcmp(r->pair.v[0], r->pair.v[1])))
        return error("report: --axis-pair needs two different axis names, e.g. "
                     "question-at,distractors");
    if (parse_formats(r->formats_arg, &r->formats) < 0)
        return -1;
    if ((r->price_in_seen != 0) != (r->price_out_seen != 0) ||
        (r->price_in_seen && (!(r->price_in >= 0) || !(r->price_out >= 0))))
        return error("report: --price-in and --price-out go together, each >= 0 (USD per 1M "
                     "prompt and completion tokens)");
    if (!(r->ruler_threshold >= 0 && r->ruler_threshold <= 100))
        return error("report: --ruler-threshold must be a percentage in 0..100, got %g",
                     r->ruler_threshold);
    if (r->nolima_base_s &&
        parse_token_count(r->nolima_base_s, 16L * 1024 * 1024, &r->nolima_base) < 0)
        return error("report: --nolima-base: '%s' is not a token count (e.g. 1k, 2048)",
                     r->nolima_base_s);
    if (r->rank_dist && r->rank_p_seen)
        return error("report: give --rank-dist FILE or --rank-p P, not both (--rank-p is the "
                     "geometric model used without a measured distribution)");
    if (r->dataset) {
        /* a golden set the user named must load: nothing is written when it does not */
        struct golden_set gs;
        memset(&gs, 0, sizeof(gs));
        if (golden_set_load(&gs, r->dataset) < 0)
            return error("report: --dataset %s cannot be used (see above); nothing was written",
                         r->dataset);
        golden_set_release(&gs);
    }
    return 0;
}

/* Open the store and load the run's statistics into r->d; DM_EXIT_OK or the exit code. */
static int report_load(struct report_cmd *r)
{
    struct stats_options sopt;
    int prc;

    r->st = store_open(store_default_path(r->db), STORE_READONLY);
    if (!r->st)
        return DM_EXIT_USAGE;
    stats_options_init(&sopt);
    if (r->rank_dist) {
        if (rank_dist_load(r->rank_dist, &r->rank_probs, &r->n_rank_probs, &r->err) < 0) {
            error("report: %s", r->err.buf);
            return DM_EXIT_USAGE;
        }
        sopt.rank_probs = r->rank_probs;
        sopt.n_rank_probs = r->n_rank_probs;
    } else if (!(r->geometric_p > 0 && r->geometric_p <= 1)) {
        error("report: --rank-p must be in (0, 1], got %g", r->geometric_p);
        return DM_EXIT_USAGE;
    } else {
        sopt.geometric_p = r->geometric_p;
    }
    sopt.exclude_known = r->exclude_known;
    sopt.ruler_threshold = r->ruler_threshold / 100.0;
    sopt.nolima_base_max = r->nolima_base;
    prc = report_doc_load(&r->d, r->st, r->rest.v[0], &sopt, &r->err);
    if (prc == 0 && r->d.have_order && r->price_in >= 0)
        order_stats_price(&r->d.order, r->price_in, r->price_out);
    if (prc != 0) {
        if (prc > 0)
            error("report: no run named '%s' in %s", r->rest.v[0], store_path(r->st));
        else if (r->err.len)
            error("report: %s", r->err.buf);
        return prc > 0 || r->err.len ? DM_EXIT_USAGE : DM_EXIT_INFRA;
    }
    return DM_EXIT_OK;
}

/* Each --axis-pair name is a paired axis of the loaded run. */
static int report_check_axis_pair(const struct report_cmd *r)
{
    const struct report_doc *d = &r->d;
    for (size_t i = 0; i < r->pair.nr; i++) {
        size_t k;
        for (k = 0; k < d->n_axes && (!d->axes[k].paired || strcmp(d->axes[k].name, r->pair.v[i]));
             k++)
            ;
        if (k == d->n_axes) {
            struct strbuf names = STRBUF_INIT;
            for (k = 0; k < d->n_axes; k++)
                if (d->axes[k].paired)
                    strbuf_addf(&names, "%s%s", names.len ? ", " : "", d->axes[k].name);
            error("report: --axis-pair: run '%s' has no axis '%s' (its axes: %s)", d->run.name,
                  r->pair.v[i], names.len ? names.buf : "none");
            strbuf_release(&names);
            return -1;
        }
    }
    return 0;
}

/* The plots (a missing gnuplot costs the pictures, never the report). */
static void report_plots(struct report_cmd *r)
{
    struct report_doc *d = &r->d;
    const char *dir = r->dir.buf;
    int pr;

    if (r->no_plots) {
        report_doc_plots(d, -2);
        return;
    }
    pr = d->have_order ? report_order_plot(dir, PLOT_BOTH, &d->run, &d->order, &d->usvg)
                       : report_run_plots(dir, PLOT_BOTH, &d->run, &d->stats, &d->usvg, &d->hsvg);
    if (pr == PLOT_NO_GNUPLOT)
        warning("gnuplot not found on PATH: plots skipped (install gnuplot to draw them); "
                "the tables are still written");
    else if (pr != PLOT_OK)
        warning("plots skipped: gnuplot failed (see the error above); the tables are still "
                "written");
    else if (d->have_order)
        printf("wrote %s/order.svg, order.png\n", dir);
    else
        printf("wrote %s/ucurve.svg, ucurve.png, heatmap.svg, heatmap.png\n", dir);
    if (pr == PLOT_OK && !d->have_order && d->n_axes) {
        /* small multiples per axis (one panel per value), the --axis-pair heatmap */
        struct strbuf names = STRBUF_INIT;
        const char *pp[2] = {r->pair.nr == 2 ? r->pair.v[0] : NULL,
                             r->pair.nr == 2 ? r->pair.v[1] : NULL};
        pr = report_doc_axis_plots(d, dir, PLOT_BOTH, pp, &names);
        if (pr != PLOT_OK)
            warning("axis plots skipped: gnuplot failed (see the error above)");
        else
            printf("wrote %s/%s (and .png)\n", dir, names.buf);
        strbuf_release(&names);
        pr = PLOT_OK;
    }
    report_doc_plots(d, pr);
}

/* The output folder, then summary.json, the plots, summary.md and report.html as asked. */
static int report_write(struct report_cmd *r)
{
    struct report_doc *d = &r->d;

    if (r->out_dir) {
        strbuf_addstr(&r->dir, r->out_dir);
    } else {
        /* the run name is user text: never let it leave reports/ */
        strbuf_addstr(&r->dir, "reports/");
        escape_folder_name(&r->dir, d->run.name);
    }
    strbuf_reset(&r->err);
    if (report_make_dirs(r->dir.buf, &r->err) < 0) {
        error("%s", r->err.buf);
        return -1;
    }
    if (r->formats & FMT_JSON) {
        strbuf_reset(&r->doc);
        if (summary_json_write_order(&d->run, &d->stats, d->axes, d->n_axes,
                                     d->have_order ? &d->order : NULL, d->curve_run, d->lexical,
                                     d->n_lexical, &r->doc) < 0 ||
            write_out(r->dir.buf, "summary.json", &r->doc) < 0)
            return -1;
    }
    if (!(r->formats & (FMT_MD | FMT_HTML)))
        return 0;
    report_plots(r);
    /* failed trials at the worst depths, with their questions when the golden set is here */
    report_doc_failures(d, r->dataset, (double)time(NULL));
    report_doc_prompts(d, r->st);
    if (r->pair.nr == 2) {
        d->in.axis_pair[0] = r->pair.v[0];
        d->in.axis_pair[1] = r->pair.v[1];
    }
    if (r->formats & FMT_MD) {
        strbuf_reset(&r->doc);
        report_markdown(&r->doc, &d->in);
        if (write_out(r->dir.buf, "summary.md", &r->doc) < 0)
            return -1;
    }
    if (r->formats & FMT_HTML) {
        strbuf_reset(&r->doc);
        report_html(&r->doc, &d->in);
        if (write_out(r->dir.buf, "report.html", &r->doc) < 0)
            return -1;
    }
    return 0;
}

int cmd_report(int argc, const char **argv)
{
    struct report_cmd r;
    int rc;

    report_cmd_init(&r);
    rc = report_parse(&r, argc, argv);
    if (rc > 0)
        rc = DM_EXIT_OK;
    else if (rc < 0 || report_check_options(&r) < 0)
        rc = DM_EXIT_USAGE;
    else if ((rc = report_load(&r)) == DM_EXIT_OK &&
             (report_check_axis_pair(&r) < 0 || report_write(&r) < 0))
        rc = DM_EXIT_USAGE;
    return report_cmd_release(&r, rc);
}

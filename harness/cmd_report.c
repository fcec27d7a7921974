/*
 * `dipmap report RUN`: load a run from the store, compute its statistics and
 * write summary.md, report.html, summary.json and the plots into one folder
 * (default reports/<run>/). Owns the command-line surface and the file
 * layout; report.c writes the documents, plot.c draws, stats.c computes.
 */
#include <cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "dataset.h"
#include "escape.h"
#include "opt.h"
#include "plot.h"
#include "report.h"
#include "stats.h"
#include "store.h"
#include "strbuf.h"
#include "strvec.h"
#include "summary_json.h"
#include "usage.h"
#include "xalloc.h"

#include "banned.h"

static const char *const report_usage[] = {
    "dipmap report RUN [--db FILE] [--out DIR] [--format md,json,html] [--no-plots] "
    "[--dataset FILE]",
    NULL,
};

/* Failed trials listed per length in report.html, from its 2 worst depths. */
#define FAIL_DEPTHS     2
#define FAIL_PER_LENGTH 25

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

/* The golden-set path recorded in the run's settings ("dataset"), or NULL (caller frees). */
static char *golden_path_of(const struct run_info *run)
{
    cJSON *o = run->settings_json ? cJSON_Parse(run->settings_json) : NULL;
    cJSON *d = cJSON_GetObjectItemCaseSensitive(o, "dataset");
    char *ret = cJSON_IsString(d) && *d->valuestring ? xstrdup(d->valuestring) : NULL;
    cJSON_Delete(o);
    return ret;
}

int cmd_report(int argc, const char **argv)
{
    const char *db = NULL, *out_dir = NULL, *formats_arg = "md,json,html", *dataset = NULL;
    const char *rank_dist = NULL;
    double geometric_p = 0.5, *rank_probs = NULL;
    size_t n_rank_probs = 0;
    int no_plots = 0, rc = DM_EXIT_OK, prc, have_golden = 0;
    struct option opts[] = {
        {OPT_STRING, "db", 0, &db, "FILE", "run store (default $DIPMAP_DB or dipmap.db)", 0},
        {OPT_STRING, "out", 'o', &out_dir, "DIR", "output folder (default reports/<run>)", 0},
        {OPT_STRING, "format", 0, &formats_arg, "LIST",
         "comma-separated: md (summary.md), json (summary.json), html (report.html)", 0},
        {OPT_BOOL, "no-plots", 0, &no_plots, NULL, "do not run gnuplot (tables only)", 0},
        {OPT_STRING, "dataset", 0, &dataset, "FILE",
         "the run's golden set: show the questions of failed trials", 0},
        {OPT_STRING, "rank-dist", 0, &rank_dist, "FILE",
         "ordering advice: retriever rank distribution, one probability per line (rank 1 first)",
         0},
        {OPT_DOUBLE, "rank-p", 0, &geometric_p, "P",
         "ordering advice without --rank-dist: geometric P(rank r) = p(1-p)^(r-1) (default 0.5)",
         0},
        OPT_END_MARK,
    };
    struct strvec rest = STRVEC_INIT;
    struct store *st = NULL;
    struct run_info run;
    struct trial_result *trials = NULL;
    size_t ntrials = 0, nfail = 0, i;
    struct run_stats stats;
    struct stats_options sopt;
    struct strbuf dir = STRBUF_INIT, doc = STRBUF_INIT, err = STRBUF_INIT;
    struct strbuf usvg = STRBUF_INIT, hsvg = STRBUF_INIT, note = STRBUF_INIT;
    struct strbuf gnote = STRBUF_INIT, hnote = STRBUF_INIT;
    const struct trial_result **picked = NULL;
    struct report_failure *fails = NULL;
    struct golden_set gs;
    struct report_plot plots[2];
    struct report_input in;
    char *golden = NULL;
    unsigned formats = 0;
    int have_stats = 0, plotted = 0;

    run_info_init(&run);
    memset(&gs, 0, sizeof(gs));
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
    if (parse_formats(formats_arg, &formats) < 0) {
        rc = DM_EXIT_USAGE;
        goto cleanup;
    }

    st = store_open(store_default_path(db), STORE_READONLY);
    if (!st) {
        rc = DM_EXIT_USAGE;
        goto cleanup;
    }
    prc = store_run_get(st, rest.v[0], &run);
    if (prc != 0) {
        if (prc > 0)
            error("report: no run named '%s' in %s", rest.v[0], store_path(st));
        rc = prc > 0 ? DM_EXIT_USAGE : DM_EXIT_INFRA;
        goto cleanup;
    }
    if (store_trials_load(st, run.name, &trials, &ntrials) != 0) {
        rc = DM_EXIT_INFRA;
        goto cleanup;
    }

    stats_options_init(&sopt);
    if (rank_dist) {
        struct strbuf text = STRBUF_INIT;
        if (strbuf_read_file(&text, rank_dist) < 0) {
            error("report: cannot read --rank-dist %s: %s", rank_dist, strerror(errno));
            strbuf_release(&text);
            rc = DM_EXIT_USAGE;
            goto cleanup;
        }
        if (rank_dist_parse(text.buf, &rank_probs, &n_rank_probs, &err) < 0) {
            error("report: %s:%s", rank_dist, err.buf);
            strbuf_release(&text);
            rc = DM_EXIT_USAGE;
            goto cleanup;
        }
        strbuf_release(&text);
        sopt.rank_probs = rank_probs;
        sopt.n_rank_probs = n_rank_probs;
    } else if (!(geometric_p > 0 && geometric_p <= 1)) {
        error("report: --rank-p must be in (0, 1], got %g", geometric_p);
        rc = DM_EXIT_USAGE;
        goto cleanup;
    } else {
        sopt.geometric_p = geometric_p;
    }
    if (stats_compute(trials, ntrials, &sopt, &stats, &err) < 0) {
        error("report: %s", err.buf);
        rc = DM_EXIT_USAGE;
        goto cleanup;
    }
    have_stats = 1;

    if (out_dir) {
        strbuf_addstr(&dir, out_dir);
    } else {
        /* the run name is user text: never let it leave reports/ */
        strbuf_addstr(&dir, "reports/");
        escape_filename(&dir, run.name);
    }
    if (report_make_dirs(dir.buf) < 0) {
        rc = DM_EXIT_USAGE;
        goto cleanup;
    }

    if (formats & FMT_JSON) {
        strbuf_reset(&doc);
        if (summary_json_write(&run, &stats, &doc) < 0 ||
            write_out(dir.buf, "summary.json", &doc) < 0) {
            rc = DM_EXIT_USAGE;
            goto cleanup;
        }
    }
    if (!(formats & (FMT_MD | FMT_HTML)))
        goto cleanup;

    /* plots: a missing gnuplot costs the pictures, never the report */
    if (no_plots) {
        strbuf_addstr(&note, "Plots not drawn (--no-plots).");
    } else {
        int pr = report_run_plots(dir.buf, PLOT_BOTH, &run, &stats, &usvg, &hsvg);
        if (pr == PLOT_NO_GNUPLOT) {
            warning("gnuplot not found on PATH: plots skipped (install gnuplot to draw them); "
                    "the tables are still written");
            strbuf_addstr(&note, "Plots skipped: gnuplot was not found when this report was "
                                 "written.");
        } else if (pr != PLOT_OK) {
            warning("plots skipped: gnuplot failed (see the error above); the tables are still "
                    "written");
            strbuf_addstr(&note, "Plots skipped: gnuplot failed.");
        } else {
            plotted = 1;
            printf("wrote %s/ucurve.svg, ucurve.png, heatmap.svg, heatmap.png\n", dir.buf);
        }
    }
    plots[0].title = "Accuracy vs depth, one line per length (U-curve)";
    plots[0].file = "ucurve.svg";
    plots[0].svg = usvg.len ? usvg.buf : NULL;
    plots[1].title = "Accuracy by depth and length (heatmap)";
    plots[1].file = "heatmap.svg";
    plots[1].svg = hsvg.len ? hsvg.buf : NULL;

    /* failed trials at the worst depths, with their questions when the golden set is here */
    nfail = report_pick_failures(trials, ntrials, &stats, FAIL_DEPTHS, FAIL_PER_LENGTH, &picked);
    golden = dataset ? xstrdup(dataset) : golden_path_of(&run);
    if (nfail && !golden)
        strbuf_addstr(&gnote, "Questions and expected answers are not shown: give the run's "
                              "golden set with --dataset FILE.");
    if (golden) {
        if (access(golden, R_OK) < 0) {
            strbuf_addf(&gnote,
                        "The golden set %s is not readable from here (%s): questions and "
                        "expected answers are not shown.",
                        golden, strerror(errno));
        } else if (golden_set_load(&gs, golden) < 0) {
            strbuf_addf(&gnote, "The golden set %s could not be loaded: questions are not shown.",
                        golden);
        } else {
            have_golden = 1;
            if (run.golden_sha256 && strcmp(run.golden_sha256, gs.sha256)) {
                warning("report: %s is not the golden set of run '%s' (sha256 differs); "
                        "questions are matched by id",
                        golden, run.name);
                strbuf_addf(&gnote,
                            "Warning: %s has changed since the run (sha256 %.12s, the run used "
                            "%.12s); questions are matched by id.",
                            golden, gs.sha256, run.golden_sha256);
            }
        }
    }
    fails = xcalloc(nfail + 1, sizeof(*fails));
    for (i = 0; i < nfail; i++) {
        const struct question *q = have_golden && picked[i]->question_id
                                       ? golden_set_find(&gs, picked[i]->question_id)
                                       : NULL;
        fails[i].trial = picked[i];
        if (q) {
            fails[i].question = q->question;
            fails[i].answers = (const char *const *)q->answers.v;
            fails[i].n_answers = q->answers.nr;
        }
    }

    memset(&in, 0, sizeof(in));
    in.run = &run;
    in.stats = &stats;
    in.plots = plots;
    in.n_plots = plotted ? 2 : 0;
    in.plots_note = note.len ? note.buf : NULL;
    in.failures = fails;
    in.n_failures = nfail;
    in.golden_path = have_golden ? golden : NULL;
    in.golden_note = gnote.len && nfail ? gnote.buf : NULL;
    if (have_golden && golden_set_negatives_note(&gs, &hnote))
        in.hygiene_note = hnote.buf;
    in.generated_at = (double)time(NULL);

    if (formats & FMT_MD) {
        strbuf_reset(&doc);
        report_markdown(&doc, &in);
        if (write_out(dir.buf, "summary.md", &doc) < 0) {
            rc = DM_EXIT_USAGE;
            goto cleanup;
        }
    }
    if (formats & FMT_HTML) {
        strbuf_reset(&doc);
        report_html(&doc, &in);
        if (write_out(dir.buf, "report.html", &doc) < 0) {
            rc = DM_EXIT_USAGE;
            goto cleanup;
        }
    }

cleanup:
    if (have_stats)
        run_stats_release(&stats);
    free(rank_probs);
    free(fails);
    free(picked);
    free(golden);
    golden_set_release(&gs);
    store_trials_free(trials, ntrials);
    run_info_release(&run);
    if (st && store_close(st) < 0 && rc == DM_EXIT_OK)
        rc = DM_EXIT_INFRA;
    strvec_clear(&rest);
    strbuf_release(&dir);
    strbuf_release(&doc);
    strbuf_release(&err);
    strbuf_release(&usvg);
    strbuf_release(&hsvg);
    strbuf_release(&note);
    strbuf_release(&gnote);
    strbuf_release(&hnote);
    return rc;
}

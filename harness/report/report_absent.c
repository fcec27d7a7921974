/*
 * The Needle-absent trials section of run reports (run --absent; docs/effects.md
 * "Needle-absent trials"): per length and depth the hallucination rate on the absent twins
 * and the false-absence rate on the present trials, each with its question-clustered
 * interval, then each length over every depth and the run overall.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/xalloc.h"
#include "report/plot.h"
#include "report/report-int.h"
#include "report/report.h"
#include "run/plan.h"
#include "stats/absent_stats.h"
#include "stats/stats.h"
#include "store/store.h"

#include "base/banned.h"

/* The row of v at (length, depth), or NULL. */
static const struct absent_rate *find_rate(const struct absent_rate *v, size_t n, long length,
                                           int depth_bp)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].length == length && v[i].depth_bp == depth_bp)
            return &v[i];
    return NULL;
}

/* "12.5% [8.1%, 18.7%] (3 of 24)", or an en dash without trials. */
static void rate_cell(struct markup *d, const struct absent_rate *r)
{
    if (!r || !r->n) {
        report_cell(d, "\xE2\x80\x93");
        return;
    }
    report_cellf(d, "%.1f%% [%.1f%%, %.1f%%] (%ld of %ld)", 100.0 * r->rate, 100.0 * r->lo,
                 100.0 * r->hi, r->k, r->n);
}

void report_section_absent(struct markup *d, const struct report_input *in)
{
    const struct absent_stats *a = in->stats ? in->stats->absent : NULL;
    static const char *const head[] = {"length", "depth", "hallucination (absent twins)",
                                       "false absence (gold present)", NULL};
    struct strbuf len = STRBUF_INIT, dep = STRBUF_INIT;
    if (!a || !a->present)
        return;
    report_heading(d, 2, "Needle-absent trials", "absent");
    report_para(d, "A share of the trials was also asked with the gold chunk replaced by the next "
                   "distractor (the same prompt and length otherwise). Hallucination: an absent "
                   "twin answered instead of abstaining. False absence: a trial with the gold "
                   "present answered that the answer is not in the documents. Rates with "
                   "question-clustered 95% intervals (events of scored trials); the absent "
                   "twins are outside the depth curve and compare's endpoints.");
    if (in->absent_plot)
        report_figure(d, in->absent_plot);
    report_table_begin(d, "llll", head);
    for (size_t i = 0; i < a->n_halluc; i++) {
        const struct absent_rate *h = &a->halluc[i];
        strbuf_reset(&len);
        strbuf_reset(&dep);
        if (h->length == ABSENT_ALL_LENGTHS)
            strbuf_addstr(&len, "all");
        else
            plan_format_length(&len, h->length);
        if (h->depth_bp == ABSENT_ALL_DEPTHS)
            strbuf_addstr(&dep, "all");
        else
            plan_format_depth(&dep, h->depth_bp);
        report_row_begin(d, NULL);
        report_cell(d, len.buf);
        report_cell(d, dep.buf);
        rate_cell(d, h);
        rate_cell(d, find_rate(a->denied, a->n_denied, h->length, h->depth_bp));
        report_row_end(d);
    }
    report_table_end(d);
    strbuf_release(&len);
    strbuf_release(&dep);
}

static void build_panels(struct strbuf *script, const struct plot_opts *o, const void *data)
{
    const struct plot_panel *p = data;
    plot_script_multiples(script, o, p, 2);
}

/* The series of v (one per length: the rate by depth with its interval) into s[]; their count. */
static size_t rate_series(const struct absent_rate *v, size_t n, struct plot_series *s,
                          struct plot_point *pts, char (*labels)[32])
{
    size_t ns = 0, np = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i].length == ABSENT_ALL_LENGTHS)
            continue;
        if (v[i].depth_bp == ABSENT_ALL_DEPTHS) {
            struct strbuf l = STRBUF_INIT;
            plan_format_length(&l, v[i].length);
            snprintf(labels[ns], sizeof(labels[ns]), "%s tokens", l.buf);
            strbuf_release(&l);
            s[ns].label = labels[ns];
            s[ns].edge = s[ns].middle = NAN;
            ns++;
            continue;
        }
        if (!s[ns].pts)
            s[ns].pts = &pts[np];
        pts[np++] = (struct plot_point){v[i].depth_bp / 100.0, v[i].rate, v[i].lo, v[i].hi, 0};
        s[ns].n++;
    }
    return ns;
}

int report_absent_plot(const char *dir, unsigned formats, const struct run_info *run,
                       const struct absent_stats *a, struct strbuf *svg)
{
    size_t n = a->n_halluc > a->n_denied ? a->n_halluc : a->n_denied;
    struct plot_series *sh = xcalloc(n + 1, sizeof(*sh)), *sd = xcalloc(n + 1, sizeof(*sd));
    struct plot_point *ph = xcalloc(n + 1, sizeof(*ph)), *pd = xcalloc(n + 1, sizeof(*pd));
    char(*lh)[32] = xcalloc(n + 1, sizeof(*lh)), (*ld)[32] = xcalloc(n + 1, sizeof(*ld));
    struct strbuf title = STRBUF_INIT, th = STRBUF_INIT, td = STRBUF_INIT;
    struct plot_panel p[2];
    struct plot_opts o;
    const struct absent_rate *oh = absent_rate_overall(a->halluc, a->n_halluc),
                             *od = absent_rate_overall(a->denied, a->n_denied);
    int ret;
    strbuf_addf(&th, "hallucination: absent twins answered (n=%ld)", oh ? oh->n : 0);
    strbuf_addf(&td, "false absence: gold present, abstained (n=%ld)", od ? od->n : 0);
    p[0] = (struct plot_panel){th.buf, sh, rate_series(a->halluc, a->n_halluc, sh, ph, lh)};
    p[1] = (struct plot_panel){td.buf, sd, rate_series(a->denied, a->n_denied, sd, pd, ld)};
    memset(&o, 0, sizeof(o));
    strbuf_addf(&title, "%s \xC2\xB7 run %s", report_or_dash(run->model_requested),
                report_or_dash(run->name));
    o.title = title.buf;
    o.subtitle = "needle-absent trials: rate by depth (95% interval, clustered by question)";
    o.ylabel = "rate (fraction of scored trials)";
    o.band_label = "95% interval (by question)";
    ret = plot_save(dir, "absent", formats, build_panels, p, &o, svg);
    free(sh);
    free(sd);
    free(ph);
    free(pd);
    free(lh);
    free(ld);
    strbuf_release(&title);
    strbuf_release(&th);
    strbuf_release(&td);
    return ret;
}

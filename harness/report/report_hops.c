/*
 * The Two-hop chains section of run reports (run --hops 2, docs/axes.md "Two-hop chains"): per
 * length the accuracy of every (depth A, depth B) as a heatmap (hops-LENGTH.svg) and a table,
 * then accuracy by hop distance and order (A before B, the same depth, B before A). Reads
 * run_stats.hops (hops.h); owns nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "report/plot.h"
#include "report/report-int.h"
#include "report/report.h"
#include "stats/hops.h"
#include "stats/stats.h"
#include "store/store.h"

#include "base/banned.h"

static const char *order_words(enum hops_order o)
{
    return o == HOPS_A_FIRST ? "A before B" : o == HOPS_B_FIRST ? "B before A" : "same depth";
}

static void grid_table(struct markup *d, const struct hops_stats *h, long length)
{
    const char **head = xcalloc(h->n_b + 2, sizeof(*head));
    char *align = xcalloc(h->n_b + 2, 1);
    struct strvec labels = STRVEC_INIT;
    size_t i, j;
    head[0] = "depth A \\ depth B";
    align[0] = 'l';
    for (j = 0; j < h->n_b; j++) {
        head[j + 1] = strvec_pushf(&labels, "%g%%", h->depth_b[j]);
        align[j + 1] = 'r';
    }
    report_table_begin(d, align, head);
    for (i = 0; i < h->n_a; i++) {
        report_row_begin(d, NULL);
        report_cellf(d, "%g%%", h->depth_a[i]);
        for (j = 0; j < h->n_b; j++) {
            const struct hops_cell *c = hops_cell_at(h, length, h->depth_a[i], h->depth_b[j]);
            if (c && c->valid)
                report_cellf(d, "%.1f%% (%ld)", 100.0 * (double)c->correct / (double)c->valid,
                             c->valid);
            else
                report_cell(d, "n/a");
        }
        report_row_end(d);
    }
    report_table_end(d);
    strvec_clear(&labels);
    free(head);
    free(align);
}

void report_section_hops(struct markup *d, const struct report_input *in)
{
    const struct hops_stats *h = in->stats ? in->stats->hops : NULL;
    static const char *const head[] = {"hop distance", "order",         "accuracy",
                                       "95% interval", "scored trials", NULL};
    struct strbuf sb = STRBUF_INIT;
    size_t l, g;
    if (!h)
        return;
    report_heading(d, 2, "Two-hop chains", "hops");
    report_para(d, "Needle A (the question's first gold chunk) at the depth, needle B (its "
                   "second) at depth B; the answer needs both. Accuracy per (depth A, depth B) "
                   "at each length (rows depth A, columns depth B; n = scored trials), then by "
                   "hop distance |depth B - depth A| and order.");
    for (l = 0; l < h->n_lengths; l++) {
        strbuf_reset(&sb);
        strbuf_addf(&sb, "Length %ld: depth A x depth B", h->lengths[l]);
        report_heading(d, 3, sb.buf, NULL);
        if (in->hops_plots && l < in->n_hops_plots)
            report_figure(d, &in->hops_plots[l]);
        grid_table(d, h, h->lengths[l]);
    }
    report_heading(d, 3, "By hop distance and order", NULL);
    report_table_begin(d, "lllrr", head);
    for (g = 0; g < h->n_groups; g++) {
        const struct hops_group *x = &h->groups[g];
        report_row_begin(d, NULL);
        report_cellf(d, "%g pp", x->distance);
        report_cell(d, order_words(x->order));
        report_cell_pct(d, x->valid ? (double)x->correct / (double)x->valid : NAN);
        report_cellf(d, "[%.1f%%, %.1f%%]", 100.0 * x->lo, 100.0 * x->hi);
        report_cellf(d, "%ld", x->valid);
        report_row_end(d);
    }
    report_table_end(d);
    strbuf_release(&sb);
}

static void build_heatmap(struct strbuf *script, const struct plot_opts *o, const void *data)
{
    plot_script_heatmap(script, o, data);
}

int report_hops_plots(const char *dir, unsigned formats, const struct run_info *run,
                      const struct hops_stats *h, struct strbuf *svg, struct strbuf *files)
{
    struct strbuf title = STRBUF_INIT, sub = STRBUF_INIT, name = STRBUF_INIT;
    struct strvec rows = STRVEC_INIT, cols = STRVEC_INIT;
    size_t l, i, j;
    int ret = PLOT_OK;
    if (!h)
        return PLOT_OK;
    for (i = 0; i < h->n_a; i++)
        strvec_pushf(&rows, "%g%%", h->depth_a[i]);
    for (j = 0; j < h->n_b; j++)
        strvec_pushf(&cols, "%g%%", h->depth_b[j]);
    for (l = 0; l < h->n_lengths && ret == PLOT_OK; l++) {
        double *acc = xcalloc(h->n_a * h->n_b + 1, sizeof(*acc));
        long *n = xcalloc(h->n_a * h->n_b + 1, sizeof(*n));
        struct plot_grid g;
        struct plot_opts o;
        for (i = 0; i < h->n_a; i++)
            for (j = 0; j < h->n_b; j++) {
                const struct hops_cell *c =
                    hops_cell_at(h, h->lengths[l], h->depth_a[i], h->depth_b[j]);
                n[i * h->n_b + j] = c ? c->valid : 0;
                acc[i * h->n_b + j] = c && c->valid ? (double)c->correct / (double)c->valid : NAN;
            }
        memset(&g, 0, sizeof(g));
        g.ndepths = h->n_b;
        g.nlengths = h->n_a;
        g.acc = acc;
        g.xticks = (const char *const *)cols.v;
        g.yticks = (const char *const *)rows.v;
        g.xtitle = "depth B (needle B)";
        g.ytitle = "depth A (needle A)";
        g.n = n;
        memset(&o, 0, sizeof(o));
        strbuf_reset(&title);
        strbuf_reset(&sub);
        strbuf_reset(&name);
        strbuf_addf(&title, "%s \xC2\xB7 run %s", report_or_dash(run->model_requested),
                    report_or_dash(run->name));
        strbuf_addf(&sub,
                    "two-hop chains at %ld tokens: accuracy by depth A (rows) and depth B "
                    "(columns); n = scored trials",
                    h->lengths[l]);
        o.title = title.buf;
        o.subtitle = sub.buf;
        strbuf_addf(&name, "hops-%ld", h->lengths[l]);
        ret = plot_save(dir, name.buf, formats, build_heatmap, &g, &o, &svg[l]);
        if (ret == PLOT_OK && files) {
            strbuf_add(files, name.buf, name.len);
            strbuf_addstr(files, ".svg");
            strbuf_addch(files, '\0');
        }
        free(acc);
        free(n);
    }
    strvec_clear(&rows);
    strvec_clear(&cols);
    strbuf_release(&title);
    strbuf_release(&sub);
    strbuf_release(&name);
    return ret;
}

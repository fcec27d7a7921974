/*
 * Plot adapters of the reports: a run's statistics as plot series (the
 * U-curve per length, the length x depth grid, the order experiment) handed
 * to plot.c, and the report folder they are written to.
 */
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "stats/compare.h"
#include "base/escape.h"
#include "base/json.h"
#include "stats/order_stats.h"
#include "report/plot.h"
#include "stats/stats.h"
#include "stats/stats_axes.h"
#include "store/store.h"
#include "run/plan.h"
#include "report/report-int.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/unicode.h"
#include "base/version.h"
#include "base/xalloc.h"

#include "base/banned.h"

/* ---- plots of a run ---- */

size_t report_ucurve_series(const struct run_stats *s, struct plot_series **out)
{
    struct plot_series *v = xcalloc(s->n_lengths + 1, sizeof(*v));
    size_t li, i;

    for (li = 0; li < s->n_lengths; li++) {
        const struct length_stats *l = &s->lengths[li];
        struct plot_point *p = xcalloc(l->n_cells + 1, sizeof(*p));
        struct strbuf lab = STRBUF_INIT;

        for (i = 0; i < l->n_cells; i++) {
            const struct cell_stats *c = &s->cells[l->first_cell + i];
            p[i].x = c->depth_bp / 100.0;
            p[i].y = c->n_valid ? c->accuracy : NAN;
            p[i].lo = c->n_valid ? c->ci_lo : NAN;
            p[i].hi = c->n_valid ? c->ci_hi : NAN;
        }
        plan_format_length(&lab, l->length);
        strbuf_addstr(&lab, " tokens");
        v[li].label = strbuf_detach(&lab, NULL);
        v[li].pts = p;
        v[li].n = l->n_cells;
        v[li].edge = l->n_depths >= 2 ? l->edge.est : NAN;
        v[li].middle = l->has_middle ? l->middle.est : NAN;
    }
    *out = v;
    return s->n_lengths;
}

void report_series_free(struct plot_series *v, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        free((char *)v[i].label);
        free((struct plot_point *)v[i].pts);
    }
    free(v);
}

void report_grid(const struct run_stats *s, struct plot_grid *g)
{
    double *depths = NULL, *acc;
    long *lengths;
    size_t nd = 0, alloc = 0, i, j;

    for (i = 0; i < s->n_cells; i++) {
        double d = s->cells[i].depth_bp / 100.0;
        for (j = 0; j < nd && depths[j] != d; j++)
            ;
        if (j == nd) {
            ALLOC_GROW(depths, nd + 1, alloc);
            depths[nd++] = d;
        }
    }
    for (i = 1; i < nd; i++)
        for (j = i; j > 0 && depths[j - 1] > depths[j]; j--) {
            double t = depths[j];
            depths[j] = depths[j - 1];
            depths[j - 1] = t;
        }
    lengths = xcalloc(s->n_lengths + 1, sizeof(*lengths));
    acc = xcalloc(st_mult(nd, s->n_lengths) + 1, sizeof(*acc));
    for (i = 0; i < s->n_lengths; i++) {
        lengths[i] = s->lengths[i].length;
        for (j = 0; j < nd; j++) {
            const struct cell_stats *c =
                run_stats_cell(s, lengths[i], (int)lround(depths[j] * 100.0));
            acc[i * nd + j] = c && c->n_valid ? c->accuracy : NAN;
        }
    }
    memset(g, 0, sizeof(*g));
    g->ndepths = nd;
    g->nlengths = s->n_lengths;
    g->depths = depths;
    g->lengths = lengths;
    g->acc = acc;
}

void report_grid_release(struct plot_grid *g)
{
    free((double *)g->depths);
    free((long *)g->lengths);
    free((double *)g->acc);
    memset(g, 0, sizeof(*g));
}

struct series_set {
    const struct plot_series *s;
    size_t n;
};

static void build_ucurve(struct strbuf *script, const struct plot_opts *o, const void *data)
{
    const struct series_set *set = data;
    plot_script_ucurve(script, o, set->s, set->n);
}

static void build_heatmap(struct strbuf *script, const struct plot_opts *o, const void *data)
{
    plot_script_heatmap(script, o, data);
}

int report_run_plots(const char *dir, unsigned formats, const struct run_info *run,
                     const struct run_stats *s, struct strbuf *ucurve_svg,
                     struct strbuf *heatmap_svg)
{
    struct plot_series *series = NULL;
    struct series_set set;
    struct plot_grid grid;
    struct plot_opts o;
    struct strbuf title = STRBUF_INIT, sub = STRBUF_INIT, ctl[2] = {STRBUF_INIT, STRBUF_INIT};
    int ret;

    memset(&o, 0, sizeof(o));
    strbuf_addf(&title, "%s \xC2\xB7 run %s", report_or_dash(run->model_requested),
                report_or_dash(run->name));
    strbuf_addf(&sub, "accuracy vs depth: %ld scored trials, %zu questions", s->n_valid,
                s->n_questions);
    if (s->exclude_known)
        strbuf_addf(&sub, " (the %zu answered closed-book left out)", s->n_known);
    o.title = title.buf;
    o.subtitle = sub.buf;
    {
        const struct control_stats *cs[2] = {&s->closed_book, &s->oracle};
        static const char *const names[2] = {"closed-book (no documents)",
                                             "oracle (gold chunk alone)"};
        int k;
        for (k = 0; k < 2; k++)
            if (cs[k]->present && cs[k]->n_valid) {
                strbuf_addf(&ctl[o.n_controls], "%s %.1f%%", names[k], cs[k]->accuracy * 100.0);
                o.control_label[o.n_controls] = ctl[o.n_controls].buf;
                o.control_acc[o.n_controls++] = cs[k]->accuracy;
            }
    }
    set.n = report_ucurve_series(s, &series);
    set.s = series;
    ret = plot_save(dir, "ucurve", formats, build_ucurve, &set, &o, ucurve_svg);
    if (ret == PLOT_OK) {
        strbuf_reset(&sub);
        strbuf_addstr(&sub, "accuracy by depth and prompt length (fraction correct per cell)");
        o.subtitle = sub.buf;
        report_grid(s, &grid);
        ret = plot_save(dir, "heatmap", formats, build_heatmap, &grid, &o, heatmap_svg);
        report_grid_release(&grid);
    }
    report_series_free(series, set.n);
    strbuf_release(&title);
    strbuf_release(&sub);
    strbuf_release(&ctl[0]);
    strbuf_release(&ctl[1]);
    return ret;
}

int report_make_dirs(const char *path, struct strbuf *err)
{
    struct strbuf sb = STRBUF_INIT;
    struct stat st;
    size_t i;
    int ret = 0;

    strbuf_addstr(&sb, path);
    for (i = 1; i <= sb.len && !ret; i++) {
        char saved;
        if (i < sb.len && sb.buf[i] != '/')
            continue;
        saved = sb.buf[i];
        sb.buf[i] = '\0';
        if (mkdir(sb.buf, 0755) < 0 && errno != EEXIST)
            ret = error_to(err, "cannot create %s: %s", sb.buf, strerror(errno));
        sb.buf[i] = saved;
    }
    if (!ret && (stat(path, &st) < 0 || !S_ISDIR(st.st_mode)))
        ret = error_to(err, "%s is not a folder", path);
    strbuf_release(&sb);
    return ret;
}

static void build_order(struct strbuf *script, const struct plot_opts *o, const void *data)
{
    const struct series_set *set = data;
    plot_script_index(script, o, set->s, set->n, PLOT_INDEX_ORDER);
}

int report_order_plot(const char *dir, unsigned formats, const struct run_info *run,
                      const struct order_stats *os, struct strbuf *svg)
{
    struct plot_series *series = xcalloc(os->n_policies + 1, sizeof(*series));
    struct plot_point *pts = xcalloc(os->n_policies * os->n_ks + 1, sizeof(*pts));
    char **labels = xcalloc(os->n_ks + 1, sizeof(*labels));
    struct series_set set;
    struct plot_opts o;
    struct strbuf title = STRBUF_INIT, sub = STRBUF_INIT;
    size_t i, j;
    int ret;

    memset(&o, 0, sizeof(o));
    strbuf_addf(&title, "%s \xC2\xB7 run %s", report_or_dash(run->model_requested),
                report_or_dash(run->name));
    strbuf_addf(&sub, "ordering policies: accuracy vs k, %zu questions", os->n_questions);
    o.title = title.buf;
    o.subtitle = sub.buf;
    for (j = 0; j < os->n_ks; j++) {
        struct strbuf l = STRBUF_INIT;
        strbuf_addf(&l, "%d", os->ks[j]);
        labels[j] = strbuf_detach(&l, NULL);
    }
    o.xlabels = (const char *const *)labels;
    o.n_xlabels = os->n_ks;
    for (i = 0; i < os->n_policies; i++) {
        series[i].label = ordering_name(os->policies[i]);
        series[i].pts = &pts[i * os->n_ks];
        series[i].n = os->n_ks;
        series[i].edge = series[i].middle = NAN;
        for (j = 0; j < os->n_ks; j++) {
            const struct order_cell *c = &os->cells[i * os->n_ks + j];
            struct plot_point *p = &pts[i * os->n_ks + j];
            p->x = (double)j;
            p->y = c->accuracy;
            p->lo = c->lo;
            p->hi = c->hi;
        }
    }
    set.s = series;
    set.n = os->n_policies;
    ret = plot_save(dir, "order", formats, build_order, &set, &o, svg);
    for (j = 0; j < os->n_ks; j++)
        free(labels[j]);
    free(labels);
    free(series);
    free(pts);
    strbuf_release(&title);
    strbuf_release(&sub);
    return ret;
}

/*
 * The named-axes section of run reports (summary.md, report.html): per axis
 * the accuracy and depth curve of each value side by side (a table, and the
 * small-multiples figure axis-NAME.svg), each value's paired effect against
 * the first ("question-at start vs end: -7.2 pp [-10.1, -4.4]"), and the
 * --axis-pair heatmap (a table and axis-pair-A-B.svg). Owns nothing.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/axes.h"
#include "base/escape.h"
#include "run/plan.h"
#include "report/plot.h"
#include "report/report-int.h"
#include "report/report.h"
#include "stats/stats_axes.h"
#include "store/store.h"
#include "base/strbuf.h"
#include "run/trial.h"
#include "base/xalloc.h"

#include "base/banned.h"

static void signed_pp(struct strbuf *out, double frac)
{
    strbuf_addf(out, "%+.1f", fabs(frac) < 0.0005 ? 0.0 : frac * 100.0);
}

void report_axis_effect_text(struct strbuf *out, const struct axis_stats *a,
                             const struct axis_effect *e)
{
    strbuf_addf(out, "%s %s vs %s: ", a->name, e->value, e->ref);
    if (!e->n_pairs) {
        strbuf_addstr(out, "no pairs");
        return;
    }
    signed_pp(out, e->diff.est);
    strbuf_addstr(out, " pp [");
    signed_pp(out, e->diff.lo);
    strbuf_addstr(out, ", ");
    signed_pp(out, e->diff.hi);
    strbuf_addf(out, "] (%ld pairs, %zu questions)", e->n_pairs, e->n_questions);
}

/* The values side by side; with_depths: a column per depth (not for an order run's one depth). */
static void axis_table(struct markup *d, const struct axis_stats *a, int with_depths)
{
    const struct axis_value_stats *v0 = a->n_values ? &a->values[0] : NULL;
    size_t nd = v0 && with_depths ? v0->n_depths : 0, i, j, ncol = 4 + nd;
    const char **head = xcalloc(ncol + 1, sizeof(*head));
    char *align = xcalloc(ncol + 1, 1);
    struct strbuf *names = xcalloc(nd ? nd : 1, sizeof(*names));
    head[0] = "value";
    head[1] = "accuracy";
    head[2] = "95% interval";
    head[3] = "trials";
    memset(align, 'r', ncol);
    align[0] = 'l';
    for (j = 0; j < nd; j++) {
        strbuf_init(&names[j], 0);
        strbuf_addstr(&names[j], "at ");
        plan_format_depth(&names[j], v0->depths_bp[j]);
        head[4 + j] = names[j].buf;
    }
    report_table_begin(d, align, head);
    for (i = 0; i < a->n_values; i++) {
        const struct axis_value_stats *v = &a->values[i];
        report_row_begin(d, NULL);
        report_cell(d, v->value);
        report_cell_pct(d, v->n_valid ? v->accuracy : NAN);
        report_cellf(d, "%.1f%%\xE2\x80\x93%.1f%%", v->ci_lo * 100.0, v->ci_hi * 100.0);
        report_cellf(d, "%ld", v->n_valid);
        for (j = 0; j < nd; j++)
            report_cell_pct(d, j < v->n_depths ? v->depth_acc[j] : NAN);
        report_row_end(d);
    }
    report_table_end(d);
    for (j = 0; j < nd; j++)
        strbuf_release(&names[j]);
    free(names);
    free(head);
    free(align);
}

static const struct axis_stats *find_paired(const struct axis_stats *axes, size_t n,
                                            const char *name)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (axes[i].paired && !strcmp(axes[i].name, name))
            return &axes[i];
    return NULL;
}

/*
 * The cells of an axis pair: n[i * nb + j] scored, non-control trials with
 * a = values[i] and b = values[j] over every length and depth, k of them
 * correct (both malloc'd, a->n_values * b->n_values entries).
 */
static void pair_counts(const struct trial_result *trials, size_t n_trials,
                        const struct axis_stats *a, const struct axis_stats *b, long **n, long **k)
{
    struct strbuf va = STRBUF_INIT, vb = STRBUF_INIT;
    size_t i, j, t;
    *n = xcalloc(a->n_values * b->n_values + 1, sizeof(**n));
    *k = xcalloc(a->n_values * b->n_values + 1, sizeof(**k));
    for (t = 0; t < n_trials; t++) {
        const struct trial_result *x = &trials[t];
        if (!outcome_is_scored(x->outcome) || trial_is_control(x->length, x->depth_bp) ||
            !axes_get(x->axes, a->name, &va) || !axes_get(x->axes, b->name, &vb))
            continue;
        for (i = 0; i < a->n_values && strcmp(a->values[i].value, va.buf); i++)
            ;
        for (j = 0; j < b->n_values && strcmp(b->values[j].value, vb.buf); j++)
            ;
        if (i < a->n_values && j < b->n_values) {
            (*n)[i * b->n_values + j]++;
            (*k)[i * b->n_values + j] += x->outcome == OUTCOME_CORRECT;
        }
    }
    strbuf_release(&va);
    strbuf_release(&vb);
}

/*
 * The heatmap of an axis pair (report --axis-pair A,B) as a table: accuracy
 * of the trials with A = row value and B = column value, over every length
 * and depth; "n/a" where no trial has both. The figure comes before it.
 */
static void axis_pair_table(struct markup *d, const struct report_input *in)
{
    const struct axis_stats *a = find_paired(in->axes, in->n_axes, in->axis_pair[0]);
    const struct axis_stats *b = find_paired(in->axes, in->n_axes, in->axis_pair[1]);
    struct strbuf sb = STRBUF_INIT;
    const char **head;
    char *align;
    long *n, *k;
    size_t i, j;
    strbuf_addf(&sb, "Axes %s x %s", in->axis_pair[0], in->axis_pair[1]);
    report_heading(d, 3, sb.buf, NULL);
    if (!a || !b || a == b) {
        strbuf_reset(&sb);
        strbuf_addf(&sb, "--axis-pair %s,%s: the run has no such pair of axes.", in->axis_pair[0],
                    in->axis_pair[1]);
        report_para(d, sb.buf);
        strbuf_release(&sb);
        return;
    }
    pair_counts(in->trials, in->n_trials, a, b, &n, &k);
    head = xcalloc(b->n_values + 2, sizeof(*head));
    align = xcalloc(b->n_values + 2, 1);
    head[0] = a->name;
    align[0] = 'l';
    for (j = 0; j < b->n_values; j++) {
        head[j + 1] = b->values[j].value;
        align[j + 1] = 'r';
    }
    strbuf_reset(&sb);
    strbuf_addf(&sb, "Accuracy by %s (rows) and %s (columns), over every length and depth.",
                a->name, b->name);
    report_para(d, sb.buf);
    if (in->axis_pair_plot)
        report_figure(d, in->axis_pair_plot);
    report_table_begin(d, align, head);
    for (i = 0; i < a->n_values; i++) {
        report_row_begin(d, NULL);
        report_cell(d, a->values[i].value);
        for (j = 0; j < b->n_values; j++) {
            long nn = n[i * b->n_values + j];
            if (nn)
                report_cellf(d, "%.1f%% (%ld)", 100.0 * (double)k[i * b->n_values + j] / (double)nn,
                             nn);
            else
                report_cell(d, "n/a");
        }
        report_row_end(d);
    }
    report_table_end(d);
    free(head);
    free(align);
    free(n);
    free(k);
    strbuf_release(&sb);
}

static void build_heatmap(struct strbuf *script, const struct plot_opts *o, const void *data)
{
    plot_script_heatmap(script, o, data);
}

int report_axis_pair_plot(const char *dir, unsigned formats, const struct run_info *run,
                          const struct trial_result *trials, size_t n_trials,
                          const struct axis_stats *axes, size_t n_axes, const char *const pair[2],
                          struct strbuf *svg, struct strbuf *file)
{
    const struct axis_stats *a = find_paired(axes, n_axes, pair[0]);
    const struct axis_stats *b = find_paired(axes, n_axes, pair[1]);
    struct strbuf title = STRBUF_INIT, sub = STRBUF_INIT, name = STRBUF_INIT;
    const char **rows, **cols;
    struct plot_grid g;
    struct plot_opts o;
    double *acc;
    long *n, *k;
    size_t i, j, nc;
    int ret;
    if (!a || !b || a == b)
        return PLOT_OK;
    pair_counts(trials, n_trials, a, b, &n, &k);
    nc = a->n_values * b->n_values;
    acc = xcalloc(nc + 1, sizeof(*acc));
    for (i = 0; i < nc; i++)
        acc[i] = n[i] ? (double)k[i] / (double)n[i] : NAN;
    rows = xcalloc(a->n_values + 1, sizeof(*rows));
    cols = xcalloc(b->n_values + 1, sizeof(*cols));
    for (i = 0; i < a->n_values; i++)
        rows[i] = a->values[i].value;
    for (j = 0; j < b->n_values; j++)
        cols[j] = b->values[j].value;
    memset(&g, 0, sizeof(g));
    g.ndepths = b->n_values;
    g.nlengths = a->n_values;
    g.acc = acc;
    g.xticks = cols;
    g.yticks = rows;
    g.xtitle = b->name;
    g.ytitle = a->name;
    g.n = n;
    memset(&o, 0, sizeof(o));
    strbuf_addf(&title, "%s \xC2\xB7 run %s", report_or_dash(run->model_requested),
                report_or_dash(run->name));
    strbuf_addf(&sub,
                "accuracy by %s (rows) and %s (columns), over every length and depth; "
                "n = scored trials",
                a->name, b->name);
    o.title = title.buf;
    o.subtitle = sub.buf;
    strbuf_addstr(&name, "axis-pair-");
    escape_folder_name(&name, a->name);
    strbuf_addch(&name, '-');
    escape_folder_name(&name, b->name);
    ret = plot_save(dir, name.buf, formats, build_heatmap, &g, &o, svg);
    if (ret == PLOT_OK && file)
        strbuf_add(file, name.buf, name.len);
    free(acc);
    free(rows);
    free(cols);
    free(n);
    free(k);
    strbuf_release(&title);
    strbuf_release(&sub);
    strbuf_release(&name);
    return ret;
}

struct panel_set {
    const struct plot_panel *p;
    size_t n;
};

static void build_multiples(struct strbuf *script, const struct plot_opts *o, const void *data)
{
    const struct panel_set *set = data;
    plot_script_multiples(script, o, set->p, set->n);
}

/* The panels of one axis: per value its curve at each length, clustered bands. */
static int axis_multiples(const char *dir, unsigned formats, const struct run_info *run,
                          const struct axis_stats *ax, struct strbuf *svg, struct strbuf *file)
{
    size_t nv = ax->n_values, nl = nv ? ax->values[0].n_lengths : 0, v, l, k;
    struct plot_panel *panels = xcalloc(nv + 1, sizeof(*panels));
    struct plot_series *series = xcalloc(nv * nl + 1, sizeof(*series));
    struct plot_point *pts;
    char **titles = xcalloc(nv + 1, sizeof(*titles));
    struct strbuf title = STRBUF_INIT, sub = STRBUF_INIT, name = STRBUF_INIT;
    size_t nd = nv ? ax->values[0].n_depths : 0;
    struct panel_set set;
    struct plot_opts o;
    int ret;
    pts = xcalloc(nv * nl * nd + 1, sizeof(*pts));
    for (v = 0; v < nv; v++) {
        const struct axis_value_stats *vs = &ax->values[v];
        struct strbuf t = STRBUF_INIT;
        strbuf_addf(&t, "%s=%s (n=%ld)", ax->name, vs->value, vs->n_valid);
        titles[v] = strbuf_detach(&t, NULL);
        panels[v].title = titles[v];
        panels[v].s = &series[v * nl];
        panels[v].ns = nl;
        for (l = 0; l < nl; l++) {
            struct plot_series *se = &series[v * nl + l];
            struct plot_point *p = &pts[(v * nl + l) * nd];
            for (k = 0; k < nd; k++) {
                const struct axis_cell *c = &vs->cells[l * nd + k];
                p[k].x = vs->depths_bp[k] / 100.0;
                p[k].y = c->n_valid ? c->accuracy : NAN;
                p[k].lo = c->n_valid ? c->ci_lo : NAN;
                p[k].hi = c->n_valid ? c->ci_hi : NAN;
            }
            se->pts = p;
            se->n = nd;
            se->edge = se->middle = NAN;
        }
    }
    /* the same label per length in every panel (one key, in the first) */
    for (l = 0; l < nl; l++) {
        struct strbuf lab = STRBUF_INIT;
        plan_format_length(&lab, ax->values[0].lengths[l]);
        strbuf_addstr(&lab, " tokens");
        for (v = 0; v < nv; v++)
            series[v * nl + l].label = v ? series[l].label : strbuf_detach(&lab, NULL);
        strbuf_release(&lab);
    }
    memset(&o, 0, sizeof(o));
    strbuf_addf(&title, "%s \xC2\xB7 run %s \xC2\xB7 axis %s", report_or_dash(run->model_requested),
                report_or_dash(run->name), ax->name);
    strbuf_addf(&sub, "accuracy vs depth, one panel per %s value, one line per length", ax->name);
    o.title = title.buf;
    o.subtitle = sub.buf;
    o.band_label = "95% interval (clustered by question)";
    strbuf_addstr(&name, "axis-");
    escape_folder_name(&name, ax->name);
    set.p = panels;
    set.n = nv;
    ret = plot_save(dir, name.buf, formats, build_multiples, &set, &o, svg);
    if (ret == PLOT_OK && file)
        strbuf_add(file, name.buf, name.len);
    for (l = 0; l < nl; l++)
        free((char *)series[l].label);
    for (v = 0; v < nv; v++)
        free(titles[v]);
    free(titles);
    free(panels);
    free(series);
    free(pts);
    strbuf_release(&title);
    strbuf_release(&sub);
    strbuf_release(&name);
    return ret;
}

int report_axis_plots(const char *dir, unsigned formats, const struct run_info *run,
                      const struct axis_stats *axes, size_t n_axes, struct strbuf *svgs,
                      struct strbuf *written)
{
    struct strbuf file = STRBUF_INIT;
    size_t a;
    int ret = PLOT_OK;
    for (a = 0; a < n_axes && ret == PLOT_OK; a++) {
        strbuf_reset(&file);
        ret = axis_multiples(dir, formats, run, &axes[a], svgs ? &svgs[a] : NULL, &file);
        if (ret == PLOT_OK && written)
            strbuf_addf(written, "%s%s.svg", written->len ? ", " : "", file.buf);
    }
    strbuf_release(&file);
    return ret;
}

void report_section_axes(struct markup *d, const struct report_input *in)
{
    size_t i, k;
    struct strbuf sb = STRBUF_INIT;
    if (!in->n_axes)
        return;
    report_heading(d, 2, "Axes", "axes");
    if (in->order)
        report_para(d, "Accuracy per group of questions over every policy and k (the policies "
                       "and k are compared, paired, in the section above). The overlap terciles "
                       "group questions, so they have no paired effect.");
    else
        report_para(d, "Accuracy per value of each axis, over every length, with its depth curve "
                       "(one U-curve per value); each effect pairs trials equal in everything but "
                       "that axis (question, length, depth, repeat, other axes) and bootstraps "
                       "over questions. The overlap terciles group questions, so they have no "
                       "paired effect.");
    for (i = 0; i < in->n_axes; i++) {
        const struct axis_stats *a = &in->axes[i];
        strbuf_reset(&sb);
        strbuf_addf(&sb, "Axis: %s", a->name);
        report_heading(d, 3, sb.buf, NULL);
        if (a->note)
            report_para(d, a->note);
        if (in->axis_plots)
            report_figure(d, &in->axis_plots[i]);
        axis_table(d, a, !in->order);
        for (k = 0; k < a->n_effects; k++) {
            strbuf_reset(&sb);
            report_axis_effect_text(&sb, a, &a->effects[k]);
            report_para(d, sb.buf);
        }
    }
    if (in->axis_pair[0] && in->axis_pair[1])
        axis_pair_table(d, in);
    strbuf_release(&sb);
}

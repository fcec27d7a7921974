/*
 * The named-axes section of run reports (summary.md, report.html): per axis
 * the accuracy and depth curve of each value side by side (the small
 * multiples, as a table), and each value's paired effect against the first
 * ("question-at start vs end: -7.2 pp [-10.1, -4.4]"). Owns nothing.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "axes.h"
#include "plan.h"
#include "report-int.h"
#include "report.h"
#include "stats_axes.h"
#include "strbuf.h"
#include "trial.h"
#include "xalloc.h"

#include "banned.h"

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

static void axis_table(struct doc *d, const struct axis_stats *a)
{
    const struct axis_value_stats *v0 = a->n_values ? &a->values[0] : NULL;
    size_t nd = v0 ? v0->n_depths : 0, i, j, ncol = 4 + nd;
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

static const struct axis_stats *find_axis(const struct report_input *in, const char *name)
{
    size_t i;
    for (i = 0; i < in->n_axes; i++)
        if (!strcmp(in->axes[i].name, name))
            return &in->axes[i];
    return NULL;
}

/*
 * The heatmap of an axis pair (report --axis-pair A,B): accuracy of the
 * trials with A = row value and B = column value, over every length and
 * depth; "n/a" where no trial has both.
 */
static void axis_pair_table(struct doc *d, const struct report_input *in)
{
    const struct axis_stats *a = find_axis(in, in->axis_pair[0]);
    const struct axis_stats *b = find_axis(in, in->axis_pair[1]);
    struct strbuf sb = STRBUF_INIT, va = STRBUF_INIT, vb = STRBUF_INIT;
    const char **head;
    char *align;
    long *n, *k;
    size_t i, j, t;
    strbuf_addf(&sb, "Axes %s x %s", in->axis_pair[0], in->axis_pair[1]);
    report_heading(d, 3, sb.buf, NULL);
    if (!a || !b || !a->paired || !b->paired || a == b) {
        strbuf_reset(&sb);
        strbuf_addf(&sb, "--axis-pair %s,%s: the run has no such pair of axes.", in->axis_pair[0],
                    in->axis_pair[1]);
        report_para(d, sb.buf);
        strbuf_release(&sb);
        return;
    }
    n = xcalloc(a->n_values * b->n_values + 1, sizeof(*n));
    k = xcalloc(a->n_values * b->n_values + 1, sizeof(*k));
    for (t = 0; t < in->n_trials; t++) {
        const struct trial_result *x = &in->trials[t];
        if (!outcome_is_scored(x->outcome) || trial_is_control(x->length, x->depth_bp) ||
            !axes_get(x->axes, a->name, &va) || !axes_get(x->axes, b->name, &vb))
            continue;
        for (i = 0; i < a->n_values && strcmp(a->values[i].value, va.buf); i++)
            ;
        for (j = 0; j < b->n_values && strcmp(b->values[j].value, vb.buf); j++)
            ;
        if (i < a->n_values && j < b->n_values) {
            n[i * b->n_values + j]++;
            k[i * b->n_values + j] += x->outcome == OUTCOME_CORRECT;
        }
    }
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
    strbuf_release(&va);
    strbuf_release(&vb);
}

void report_section_axes(struct doc *d, const struct report_input *in)
{
    size_t i, k;
    struct strbuf sb = STRBUF_INIT;
    if (!in->n_axes)
        return;
    report_heading(d, 2, "Axes", "axes");
    report_para(d, "Accuracy per value of each axis, over every length, with its depth curve "
                   "(one U-curve per value); each effect pairs trials equal in everything but "
                   "that axis (question, length, depth, repeat, other axes) and bootstraps over "
                   "questions. The overlap terciles group questions, so they have no paired "
                   "effect.");
    for (i = 0; i < in->n_axes; i++) {
        const struct axis_stats *a = &in->axes[i];
        strbuf_reset(&sb);
        strbuf_addf(&sb, "Axis: %s", a->name);
        report_heading(d, 3, sb.buf, NULL);
        if (a->note)
            report_para(d, a->note);
        axis_table(d, a);
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

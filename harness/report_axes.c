/*
 * The named-axes section of run reports (summary.md, report.html): per axis
 * the accuracy and depth curve of each value side by side (the small
 * multiples, as a table), and each value's paired effect against the first
 * ("question-at start vs end: -7.2 pp [-10.1, -4.4]"). Owns nothing.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "report-int.h"
#include "report.h"
#include "stats_axes.h"
#include "strbuf.h"
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
    strbuf_release(&sb);
}

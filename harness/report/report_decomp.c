/*
 * The "Length, distraction and position" section of run reports (run --arm with --controls
 * oracle; docs/effects.md): per length the three penalties of stats/decomp.h with their
 * question-clustered intervals as one table, and the figure decomp.svg/.png (each penalty vs
 * length with its interval). Reads run_stats.decomp; owns nothing.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/xalloc.h"
#include "report/plot.h"
#include "report/report-int.h"
#include "report/report.h"
#include "stats/decomp.h"
#include "stats/stats.h"
#include "store/store.h"

#include "base/banned.h"

static const char *const what[DECOMP__COUNT] = {
    "oracle - padding: the gold alone vs the same gold in neutral padding of the length",
    "padding - haystack: neutral padding vs the haystack, the gold at the same depth",
    "adjacent - haystack: the gold next to the question vs at the depth (mean over depths)"};

void report_section_decomp(struct markup *d, const struct report_input *in)
{
    const struct decomp_stats *s = in->stats ? in->stats->decomp : NULL;
    static const char *const head[] = {"length",       "penalty", "compares",  "estimate",
                                       "95% interval", "pairs",   "questions", NULL};
    if (!s)
        return;
    report_heading(d, 2, "Length, distraction and position", "decomposition");
    report_para(d, "Each penalty is the accuracy the harder arm loses against the easier one, "
                   "paired within a question (positive: the harder arm answers worse), with a "
                   "bootstrap interval over questions (run --arm haystack,padding,adjacent "
                   "--controls oracle; Du et al., \"Context Length Alone Hurts\", arXiv "
                   "2510.05381). A penalty whose arms the run lacks is n/a.");
    if (in->decomp_plot)
        report_figure(d, in->decomp_plot);
    report_table_begin(d, "lllrrrr", head);
    for (size_t i = 0; i < s->n_lengths; i++)
        for (int k = 0; k < DECOMP__COUNT; k++) {
            const struct decomp_penalty *p = &s->lengths[i].pen[k];
            report_row_begin(d, NULL);
            report_cellf(d, "%ld", s->lengths[i].length);
            report_cell(d, decomp_name(k));
            report_cell(d, what[k]);
            if (p->n_pairs) {
                report_cellf(d, "%+.1f pp", 100.0 * p->diff.est);
                report_cellf(d, "[%+.1f, %+.1f]", 100.0 * p->diff.lo, 100.0 * p->diff.hi);
            } else {
                report_cell(d, "n/a");
                report_cell(d, "n/a");
            }
            report_cellf(d, "%ld", p->n_pairs);
            report_cellf(d, "%zu", p->n_questions);
            report_row_end(d);
        }
    report_table_end(d);
}

struct series_set {
    const struct plot_series *s;
    size_t n;
};

static void build_decomp(struct strbuf *script, const struct plot_opts *o, const void *data)
{
    const struct series_set *set = data;
    plot_script_index(script, o, set->s, set->n, PLOT_INDEX_DECOMP);
}

int report_decomp_plot(const char *dir, unsigned formats, const struct run_info *run,
                       const struct decomp_stats *s, struct strbuf *svg)
{
    struct plot_series series[DECOMP__COUNT];
    struct plot_point *pts = xcalloc(DECOMP__COUNT * s->n_lengths + 1, sizeof(*pts));
    char **labels = xcalloc(s->n_lengths + 1, sizeof(*labels));
    struct strbuf title = STRBUF_INIT, sub = STRBUF_INIT;
    struct series_set set;
    struct plot_opts o;
    int ret;

    memset(&o, 0, sizeof(o));
    strbuf_addf(&title, "%s \xC2\xB7 run %s", report_or_dash(run->model_requested),
                report_or_dash(run->name));
    strbuf_addstr(&sub, "length (oracle - padding), distraction (padding - haystack) and "
                        "position (adjacent - haystack) penalties");
    o.title = title.buf;
    o.subtitle = sub.buf;
    for (size_t i = 0; i < s->n_lengths; i++) {
        struct strbuf l = STRBUF_INIT;
        strbuf_addf(&l, "%ld", s->lengths[i].length);
        labels[i] = strbuf_detach(&l, NULL);
    }
    o.xlabels = (const char *const *)labels;
    o.n_xlabels = s->n_lengths;
    for (int k = 0; k < DECOMP__COUNT; k++) {
        series[k].label = decomp_name(k);
        series[k].pts = &pts[k * s->n_lengths];
        series[k].n = s->n_lengths;
        series[k].edge = series[k].middle = NAN;
        for (size_t i = 0; i < s->n_lengths; i++) {
            const struct decomp_penalty *p = &s->lengths[i].pen[k];
            struct plot_point *pt = &pts[k * s->n_lengths + i];
            pt->x = (double)i;
            pt->y = p->n_pairs ? p->diff.est : NAN;
            pt->lo = p->diff.lo;
            pt->hi = p->diff.hi;
        }
    }
    set.s = series;
    set.n = DECOMP__COUNT;
    ret = plot_save(dir, "decomp", formats, build_decomp, &set, &o, svg);
    for (size_t i = 0; i < s->n_lengths; i++)
        free(labels[i]);
    free(labels);
    free(pts);
    strbuf_release(&title);
    strbuf_release(&sub);
    return ret;
}

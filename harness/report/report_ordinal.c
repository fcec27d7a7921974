/*
 * The Ordinal needles section of run reports (run --ordinal N, docs/effects.md "Ordinal
 * needles"): accuracy and the rate of answering a neighbouring occurrence by N, by the target
 * occurrence's depth, and per (N, depth). report_ordinal_stats() reads the trials' answers
 * against the golden set (the neighbours' values) into stats/ordinal.h's statistics.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/num.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "prompt/dataset.h"
#include "prompt/prompt.h"
#include "report/report-int.h"
#include "report/report.h"
#include "run/axes.h"
#include "run/score.h"
#include "run/trial.h"
#include "stats/ordinal.h"
#include "stats/stats.h"

#include "base/banned.h"

/* 1 when answer is the value of occurrence k - 1 or k + 1 (1-based k) among the first n. */
static int names_neighbour(const struct question *q, size_t k, unsigned long n, const char *answer)
{
    enum scorer_kind kind;
    struct strbuf err = STRBUF_INIT;
    int hit = 0;
    if (score_resolve(SCORER_EXACT, q->scorer, q->answer_regex, &kind) < 0 || !answer)
        return 0;
    for (int side = -1; side <= 1 && !hit; side += 2) {
        size_t i = k - 1 + (size_t)(long)side; /* gold index of the neighbour */
        const char *v;
        double sc = 0;
        if ((side < 0 && k < 2) || i >= n || i >= q->gold_nr || !q->gold[i].value)
            continue;
        v = q->gold[i].value;
        hit = score_answer(kind, answer, &v, 1, q->answer_regex, &sc, &err) == 0 && sc > 0;
        strbuf_reset(&err);
    }
    strbuf_release(&err);
    return hit;
}

struct ordinal_stats *report_ordinal_stats(const struct trial_result *t, size_t n,
                                           const char *golden_text, size_t golden_len, double z)
{
    struct ordinal_obs *o = xcalloc(n + 1, sizeof(*o));
    struct golden_set gs;
    struct strbuf v = STRBUF_INIT;
    struct ordinal_stats *s;
    size_t i, no = 0;
    int have_gs = golden_text && !golden_set_load_mem(&gs, "golden set", golden_text, golden_len);
    for (i = 0; i < n; i++) {
        const struct question *q;
        unsigned long count;
        size_t k;
        if (!outcome_is_scored(t[i].outcome) || trial_is_control(t[i].length, t[i].depth_bp) ||
            !axes_get(t[i].axes, "ordinal", &v) || parse_ulong(v.buf, &count) < 0)
            continue;
        q = have_gs && t[i].question_id ? golden_set_find(&gs, t[i].question_id) : NULL;
        k = q ? prompt_ordinal_target(q) : 0;
        o[no].qid = t[i].question_id ? t[i].question_id : "";
        o[no].n = (int)count;
        o[no].depth_bp = t[i].depth_bp;
        o[no].correct = t[i].outcome == OUTCOME_CORRECT;
        o[no].neighbour = !k ? -1 : !o[no].correct && names_neighbour(q, k, count, t[i].answer);
        no++;
    }
    s = ordinal_stats_compute(o, no, z);
    if (have_gs)
        golden_set_release(&gs);
    strbuf_release(&v);
    free(o);
    return s;
}

static void group_row(struct markup *d, const struct ordinal_group *g, int known, int by_depth)
{
    report_row_begin(d, NULL);
    if (by_depth)
        report_cellf(d, "%g%%", g->depth_bp / 100.0);
    else
        report_cellf(d, "%d", g->n);
    report_cell_pct(d, g->valid ? (double)g->correct / (double)g->valid : NAN);
    report_cellf(d, "[%.1f%%, %.1f%%]", 100.0 * g->acc_lo, 100.0 * g->acc_hi);
    if (known) {
        report_cell_pct(d, g->valid ? (double)g->neighbour / (double)g->valid : NAN);
        report_cellf(d, "[%.1f%%, %.1f%%]", 100.0 * g->nb_lo, 100.0 * g->nb_hi);
    } else {
        report_cell(d, "n/a");
        report_cell(d, "n/a");
    }
    report_cellf(d, "%ld", g->valid);
    report_row_end(d);
}

void report_section_ordinal(struct markup *d, const struct report_input *in)
{
    const struct ordinal_stats *s = in->stats ? in->stats->ordinal : NULL;
    static const char *const head_n[] = {
        "N", "accuracy", "95% interval", "neighbour", "95% interval", "scored trials", NULL};
    static const char *const head_d[] = {
        "target depth",  "accuracy", "95% interval", "neighbour", "95% interval",
        "scored trials", NULL};
    static const char *const head_c[] = {"N",         "target depth",  "accuracy",
                                         "neighbour", "scored trials", NULL};
    size_t i;
    if (!s)
        return;
    report_heading(d, 2, "Ordinal needles", "ordinal");
    report_para(d, "N similar needles (one template, different values); the question names "
                   "occurrence k and the depth is that occurrence's. Accuracy, and the share of "
                   "scored trials that answered a neighbouring occurrence (the value of "
                   "occurrence k - 1 or k + 1), by N and by the target's depth; intervals "
                   "clustered by question.");
    if (!s->neighbour_known)
        report_para(d, "Neighbour rates are n/a: the run's golden set is not available to "
                       "read the neighbours' values.");
    report_heading(d, 3, "By N", NULL);
    report_table_begin(d, "rrrrrr", head_n);
    for (i = 0; i < s->n_by_n; i++)
        group_row(d, &s->by_n[i], s->neighbour_known, 0);
    report_table_end(d);
    report_heading(d, 3, "By the target occurrence's depth", NULL);
    report_table_begin(d, "rrrrrr", head_d);
    for (i = 0; i < s->n_by_depth; i++)
        group_row(d, &s->by_depth[i], s->neighbour_known, 1);
    report_table_end(d);
    report_heading(d, 3, "By N and depth", NULL);
    report_table_begin(d, "rrrrr", head_c);
    for (i = 0; i < s->n_cells; i++) {
        const struct ordinal_group *g = &s->cells[i];
        report_row_begin(d, NULL);
        report_cellf(d, "%d", g->n);
        report_cellf(d, "%g%%", g->depth_bp / 100.0);
        report_cell_pct(d, g->valid ? (double)g->correct / (double)g->valid : NAN);
        if (s->neighbour_known)
            report_cell_pct(d, g->valid ? (double)g->neighbour / (double)g->valid : NAN);
        else
            report_cell(d, "n/a");
        report_cellf(d, "%ld", g->valid);
        report_row_end(d);
    }
    report_table_end(d);
}

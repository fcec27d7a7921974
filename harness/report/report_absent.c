/*
 * The Needle-absent trials section of run reports (run --absent; docs/effects.md
 * "Needle-absent trials"): per length and depth the hallucination rate on the absent twins
 * and the false-absence rate on the present trials, each with its question-clustered
 * interval, then each length over every depth and the run overall.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/strbuf.h"
#include "report/report-int.h"
#include "report/report.h"
#include "run/plan.h"
#include "stats/absent_stats.h"
#include "stats/stats.h"

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

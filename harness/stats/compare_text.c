/*
 * How a paired verdict reads: the tests' names, the endpoints' phrases, the
 * sample-size warnings and the one-line headline every output format prints
 * (compare.h). Text only: the statistics are compare.c's.
 */
#include "stats/compare.h"

#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/strvec.h"
#include "run/axes.h"
#include "run/plan.h"
#include "stats/stats.h"

#include "base/banned.h"

void compare_test_name(struct strbuf *out, const struct compare_test *t)
{
    if (t->scope == COMPARE_OVERALL) {
        strbuf_addstr(out, "overall");
        return;
    }
    if (t->scope == COMPARE_HALLUC) {
        strbuf_addstr(out, "hallucination on needle-absent trials");
        return;
    }
    if (t->scope == COMPARE_AXIS) {
        axes_format(out, t->axes, "");
        strbuf_addstr(out, " (pooled)");
        return;
    }
    if (t->scope == COMPARE_CELL && t->axes_only) {
        axes_format(out, t->axes, "");
        return;
    }
    plan_format_length(out, t->length);
    if (compare_endpoint_of(t->scope)) {
        strbuf_addf(out, " %s", compare_endpoint_of(t->scope)->label);
        return;
    }
    strbuf_addstr(out, " @ ");
    plan_format_depth(out, t->depth_bp);
    if (t->axes) {
        strbuf_addstr(out, ", ");
        axes_format(out, t->axes, "");
    }
}

void compare_endpoint_name(struct strbuf *out, const struct compare_test *t)
{
    const struct compare_endpoint *ep = compare_endpoint_of(t->scope);
    if (ep) {
        strbuf_addf(out, "%s at ", ep->phrase);
        plan_format_length(out, t->length);
        return;
    }
    compare_test_name(out, t);
}

void compare_warnings(const struct compare_result *r, struct strvec *out)
{
    size_t i, cells = 0, lengths = 0;
    if (!r->n_questions)
        return;
    for (i = 0; i < r->n_tests; i++) {
        const struct compare_test *t = &r->tests[i];
        if (!t->n_pairs || t->n_questions >= STATS_MIN_CLUSTERS)
            continue;
        if (t->scope == COMPARE_CELL)
            cells++;
        else if (t->scope == COMPARE_LENGTH)
            lengths++;
    }
    stats_sample_warnings(r->n_questions, r->n_repeats, cells, lengths, out);
}

/* "the dip at 32k +9.8 pp": an endpoint and its change (a dip's rise, an accuracy's fall) */
static void endpoint_change(struct strbuf *out, const struct compare_test *t)
{
    const struct compare_endpoint *ep = compare_endpoint_of(t->scope);
    compare_endpoint_name(out, t);
    strbuf_addf(out, " %+.1f pp", (ep && ep->worse_up ? t->drop : -t->drop) * 100.0);
}

void compare_headline(struct strbuf *out, const struct compare_result *r)
{
    const struct compare_test *worst = NULL;
    size_t i, shown = 0;
    long shown_max = 4;

    strbuf_addstr(out, compare_verdict_name(r->verdict));
    if (r->verdict == VERDICT_FAIL && r->halluc_regression && !r->n_primary_regressions) {
        for (i = 0; i < r->n_tests && r->tests[i].scope != COMPARE_HALLUC; i++)
            ;
        strbuf_addf(out,
                    ": the hallucination rate on needle-absent trials rose %+.1f pp (%.1f%% to "
                    "%.1f%%; more than the --hallucination-margin %.1f pp: p %.2g)",
                    r->tests[i].drop * 100.0, (1.0 - r->tests[i].acc_base) * 100.0,
                    (1.0 - r->tests[i].acc_cand) * 100.0, r->opt.halluc_margin * 100.0,
                    r->tests[i].p_drop);
        return;
    }
    if (r->verdict == VERDICT_FAIL) {
        int primary = r->n_primary_regressions > 0;
        strbuf_addstr(out,
                      primary ? ": regression in " : ": regression in the cells (--gate cells): ");
        for (i = 0; i < r->n_tests; i++) {
            const struct compare_test *t = &r->tests[i];
            if (t->status != CMP_REGRESSION || t->scope == COMPARE_OVERALL || t->primary != primary)
                continue;
            if ((long)shown++ >= shown_max)
                continue; /* counted for "and N more" */
            if (shown > 1)
                strbuf_addstr(out, "; ");
            endpoint_change(out, t);
            strbuf_addf(out, " (worse by more than %.1f pp: Holm p %.2g)",
                        compare_fail_margin(&r->opt) * 100.0, t->p_drop_adj);
        }
        /* the first four, and how many more the tables list */
        if ((long)shown > shown_max)
            strbuf_addf(out, "; and %ld more", (long)shown - shown_max);
        return;
    }
    for (i = 0; i < r->n_tests; i++) {
        const struct compare_test *t = &r->tests[i];
        if (t->primary && t->status != CMP_NO_DATA && (!worst || t->upper > worst->upper))
            worst = t;
    }
    if (r->verdict == VERDICT_PASS && r->opt.pass_rule == COMPARE_PASS_NO_REGRESSION) {
        strbuf_addf(out,
                    ": no significant primary regression (--pass-rule no-regression); this does "
                    "not rule out a drop: %.1f pp is what these questions detect at 80%% power",
                    r->max_mde * 100.0);
        return;
    }
    if (r->verdict == VERDICT_PASS) {
        strbuf_addf(out, ": no primary endpoint worsened by %.1f pp or more, at %.0f%% confidence",
                    r->opt.tolerance * 100.0, (1.0 - compare_bound_level(&r->opt)) * 100.0);
        if (worst) {
            strbuf_addstr(out, " (highest upper bound ");
            strbuf_addf(out, "%+.1f pp, ", worst->upper * 100.0);
            compare_endpoint_name(out, worst);
            strbuf_addch(out, ')');
        }
        return;
    }
    if (!r->n_primary_no_data && r->n_primary_over && worst && r->n_reasons == 1) {
        strbuf_addstr(out, ": no primary regression, but ");
        compare_endpoint_name(out, worst);
        strbuf_addf(out, " may have worsened by up to %.1f pp (tolerance %.1f pp)",
                    worst->upper * 100.0, r->opt.tolerance * 100.0);
        if (r->need_questions > 0)
            strbuf_addf(out, "; a decision needs about %ld questions (have %lu)", r->need_questions,
                        (unsigned long)r->n_questions);
        return;
    }
    if (r->n_reasons)
        strbuf_addf(out, ": %s", r->reasons[0]);
}

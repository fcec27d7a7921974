/*
 * compare.json (schema dipmap.compare/1, README "compare JSON"): the options,
 * the verdict, what was tested and every test in the verdict's order (the
 * primary endpoints first), from the one verdict structure (report_verdict.c);
 * and the JSON of a comparison refused before any test.
 */
#include "report/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/axes.h"
#include "stats/compare.h"
#include "base/json.h"
#include "report/report-int.h"
#include "stats/stats.h"
#include "store/store.h"
#include "base/strbuf.h"
#include "base/strvec.h"

#include "base/banned.h"

static const char *run_model(const struct run_info *r)
{
    if (!r)
        return NULL;
    return r->model_served ? r->model_served : r->model_requested;
}

/* key: {"name", "model"}, or null without the run */
static void add_run(struct json *root, const char *key, const struct run_info *ri)
{
    struct json *o;
    if (!ri) {
        json_add_null(root, key);
        return;
    }
    o = json_add_object(root, key);
    json_add_str(o, "name", ri->name);
    json_add_str(o, "model", run_model(ri));
}

/* "axes": {"k": "10", "policy": "source"} from the test's axes; null for a length or overall */
static void add_test_axes(struct json *x, const char *axes)
{
    struct json *ax;
    const char *a = axes;
    struct axes_pair pr;
    struct strbuf k = STRBUF_INIT, val = STRBUF_INIT;
    if (!axes) {
        json_add_null(x, "axes");
        return;
    }
    ax = json_add_object(x, "axes");
    while (axes_next(&a, &pr) > 0) {
        strbuf_reset(&k);
        strbuf_reset(&val);
        strbuf_add(&k, pr.name, pr.name_len);
        strbuf_add(&val, pr.value, pr.value_len);
        json_add_str(ax, k.buf, val.buf);
    }
    strbuf_release(&k);
    strbuf_release(&val);
}

static void add_test(struct json *arr, const struct verdict_row *w, int has_axes)
{
    const struct compare_test *t = w->t;
    struct json *x = json_add_object(arr, NULL);
    json_add_str(x, "scope", compare_scope_name(t->scope));
    json_add_bool(x, "primary", t->primary);
    if (t->scope == COMPARE_OVERALL || t->scope == COMPARE_AXIS)
        json_add_null(x, "length");
    else
        json_add_num(x, "length", (double)t->length);
    if (t->scope == COMPARE_CELL)
        json_add_num(x, "depth", t->depth_bp / (double)DEPTH_BP_MAX);
    else
        json_add_null(x, "depth");
    if (has_axes)
        add_test_axes(x, t->axes);
    json_add_num(x, "keys", (double)t->n_keys);
    json_add_num(x, "pairs", (double)t->n_pairs);
    json_add_num(x, "questions", (double)t->n_questions);
    json_add_num(x, "coverage", t->coverage);
    json_add_num(x, "both_correct", (double)t->both_correct);
    json_add_num(x, "lost", (double)t->base_only);
    json_add_num(x, "gained", (double)t->cand_only);
    json_add_num(x, "both_wrong", (double)t->both_wrong);
    json_add_num(x, "accuracy_baseline", t->acc_base);
    json_add_num(x, "accuracy_candidate", t->acc_cand);
    json_add_num(x, "drop", t->drop);
    json_add_num(x, "p_drop", t->p_drop);
    json_add_num(x, "p_gain", t->p_gain);
    json_add_num(x, "p_drop_holm", t->p_drop_adj);
    json_add_num(x, "p_gain_holm", t->p_gain_adj);
    json_add_str(x, "status", compare_status_name(t->status));
    if (t->n_pairs) {
        json_add_num(x, "se", t->se);
        json_add_num(x, "upper_bound", t->upper);
    } else {
        json_add_null(x, "se");
        json_add_null(x, "upper_bound");
    }
    if (t->mde >= 0 && t->n_pairs)
        json_add_num(x, "detectable_drop", t->mde);
    else
        json_add_null(x, "detectable_drop");
    json_add_num(x, "questions_needed", (double)t->need_q);
    json_add_str(x, "measure", verdict_measure(w));
    json_add_str(x, "direction", w->ep && w->ep->worse_up ? "rise is worse" : "fall is worse");
    if (t->n_pairs)
        json_add_num(x, "change", verdict_change_of(w));
    else
        json_add_null(x, "change");
    json_add_bool(x, "gated", w->gated);
    json_add_bool(x, "fails_gate", w->fails);
    json_add_str(x, "decision", w->decision);
    if (isfinite(w->margin))
        json_add_num(x, "margin", w->margin);
    else
        json_add_null(x, "margin");
    json_add_bool(x, "shape_change", w->shape_change);
}

/* "regressions", "improvements" and "not_enough_data": the tests by outcome, gated or all. */
static void add_outcome_counts(struct json *o, long regressions, long improvements, long no_data)
{
    json_add_num(o, "regressions", (double)regressions);
    json_add_num(o, "improvements", (double)improvements);
    json_add_num(o, "not_enough_data", (double)no_data);
}

/* "gate": what the gate tested and how it came out (the headline's counts) */
static void add_gate(struct json *root, const struct verdict *v)
{
    struct json *o = json_add_object(root, "gate_counts"), *arr;
    struct strvec tested = STRVEC_INIT;
    struct strbuf sb = STRBUF_INIT;
    size_t i;
    json_add_num(o, "tested", (double)v->n_gated);
    add_outcome_counts(o, v->gated_regressions, v->gated_improvements, v->gated_no_data);
    json_add_num(o, "undecided", (double)v->gated_undecided);
    json_add_num(o, "secondary_not_gated", (double)v->n_secondary);
    json_add_num(o, "secondary_regressions", (double)v->secondary_regressions);
    verdict_counts(&sb, v);
    json_add_str(root, "counts", sb.buf);
    arr = json_add_array(root, "endpoints");
    for (i = 0; i < COMPARE_N_ENDPOINTS; i++) {
        struct json *e = json_add_object(arr, NULL);
        json_add_str(e, "scope", compare_endpoints[i].name);
        json_add_str(e, "name", compare_endpoints[i].phrase);
        json_add_str(e, "measure", compare_endpoints[i].measure);
        json_add_str(e, "worse", compare_endpoints[i].worse_up ? "rise" : "fall");
    }
    verdict_tested(&tested, v);
    arr = json_add_array(root, "tested");
    for (i = 0; i < tested.nr; i++)
        json_add_str(arr, NULL, tested.v[i]);
    strvec_clear(&tested);
    strbuf_release(&sb);
}

void report_compare_json(struct strbuf *out, const struct compare_result *r,
                         const struct compare_meta *m)
{
    struct json *root = json_new_object(), *o, *arr;
    struct strvec w = STRVEC_INIT;
    struct verdict v;
    size_t i;
    verdict_init(&v, r, m);
    json_add_str(root, "schema", "dipmap.compare/1");
    json_add_str(root, "verdict", compare_verdict_name(r->verdict));
    json_add_bool(root, "refused", 0);
    json_add_str(root, "headline", v.headline.buf);
    add_gate(root, &v);
    add_run(root, "baseline", m ? m->baseline : NULL);
    add_run(root, "candidate", m ? m->candidate : NULL);
    o = json_add_object(root, "options");
    json_add_num(o, "alpha", r->opt.alpha);
    json_add_num(o, "tolerance", r->opt.tolerance);
    json_add_num(o, "min_pairs", (double)r->opt.min_pairs);
    json_add_num(o, "min_coverage", r->opt.min_coverage);
    json_add_str(o, "gate", r->opt.gate == COMPARE_GATE_CELLS ? "cells" : "primary");
    json_add_str(o, "pass_rule",
                 r->opt.pass_rule == COMPARE_PASS_BOUND ? "bound" : "no-regression");
    json_add_num(o, "bound_alpha", compare_bound_level(&r->opt));
    json_add_str(root, "inputs_note", m ? m->inputs_note : NULL);
    add_outcome_counts(root, r->n_regressions, r->n_improvements, r->n_no_data);
    json_add_num(root, "holm_family_size", (double)r->n_family);
    json_add_num(root, "primary_family_size", (double)r->n_primary_family);
    json_add_num(root, "primary_regressions", (double)r->n_primary_regressions);
    json_add_num(root, "primary_bounds_over_tolerance", (double)r->n_primary_over);
    json_add_num(root, "questions_needed", (double)r->need_questions);
    json_add_num(root, "largest_detectable_drop", r->max_mde);
    json_add_num(root, "baseline_only_keys", (double)r->baseline_only_keys);
    json_add_num(root, "candidate_only_keys", (double)r->candidate_only_keys);
    json_add_num(root, "questions", (double)r->n_questions);
    json_add_bool(root, "exclude_known", r->opt.exclude_known);
    json_add_num(root, "known_questions", (double)r->n_known);
    arr = json_add_array(root, "reasons");
    for (i = 0; i < r->n_reasons; i++)
        json_add_str(arr, NULL, r->reasons[i]);
    arr = json_add_array(root, "warnings");
    compare_warnings(r, &w);
    for (i = 0; i < w.nr; i++)
        json_add_str(arr, NULL, w.v[i]);
    strvec_clear(&w);
    arr = json_add_array(root, "tests");
    for (i = 0; i < v.n; i++)
        add_test(arr, &v.rows[i], r->has_axes);
    json_print(out, root, 1);
    strbuf_addch(out, '\n');
    json_free(root);
    verdict_release(&v);
}

void report_compare_refused_json(struct strbuf *out, const char *baseline, const char *candidate,
                                 const char *why)
{
    struct json *root = json_new_object(), *o, *arr;
    struct strbuf h = STRBUF_INIT;
    strbuf_addf(&h, "INCONCLUSIVE: not compared: %s", why);
    json_add_str(root, "schema", "dipmap.compare/1");
    json_add_str(root, "verdict", "INCONCLUSIVE");
    json_add_str(root, "headline", h.buf);
    json_add_bool(root, "refused", 1);
    o = json_add_object(root, "baseline");
    json_add_str(o, "name", baseline);
    o = json_add_object(root, "candidate");
    json_add_str(o, "name", candidate);
    arr = json_add_array(root, "reasons");
    json_add_str(arr, NULL, why);
    json_add_array(root, "tests");
    json_print(out, root, 1);
    strbuf_addch(out, '\n');
    json_free(root);
    strbuf_release(&h);
}

/*
 * summary.json writer: run metadata, per-cell stats, per-length dip with
 * intervals, coverage, effective length and ordering advice, in the stable
 * schema documented in docs/schemas.md ("summary.json schema"). Pure: builds the
 * document with the JSON module and appends it to a strbuf.
 */
#include "report/summary_json.h"

#include <math.h>
#include <string.h>

#include "base/json.h"
#include "stats/decomp.h"
#include "stats/hops.h"
#include "stats/absent_stats.h"
#include "stats/ordinal.h"
#include "stats/order_stats.h"
#include "report/report.h"
#include "stats/stats.h"
#include "stats/stats_axes.h"
#include "run/trial.h"
#include "store/store.h"
#include "base/strbuf.h"
#include "base/strvec.h"

#include "base/banned.h"

/* Unix seconds, or null when the moment has not come (0). */
static void add_time(struct json *o, const char *key, double t)
{
    if (t > 0)
        json_add_num(o, key, t);
    else
        json_add_null(o, key);
}

/* key: the non-empty items of a comma-separated list, as an array ([] when csv is NULL). */
static void add_list(struct json *o, const char *key, const char *csv)
{
    struct json *arr = json_add_array(o, key);
    struct strvec tv = STRVEC_INIT;
    if (csv && *csv) {
        strvec_split(&tv, csv, ',');
        for (size_t i = 0; i < tv.nr; i++)
            if (*tv.v[i])
                json_add_str(arr, NULL, tv.v[i]);
    }
    strvec_clear(&tv);
}

struct json *summary_json_run(const struct run_info *r)
{
    struct json *o = json_new_object(), *in, *settings;

    json_add_str(o, "name", r->name);
    json_add_str(o, "model_requested", r->model_requested);
    json_add_str(o, "model_served", r->model_served);
    json_add_str(o, "endpoints", r->endpoints);
    json_add_str(o, "system_fingerprint", r->system_fingerprint);
    json_add_str(o, "status", run_status_name(r->status));
    add_time(o, "created_at", r->created_at);
    add_time(o, "started_at", r->started_at);
    add_time(o, "finished_at", r->finished_at);
    json_add_num(o, "trials_planned", (double)run_info_planned(r));
    json_add_num(o, "trials_done", (double)r->trials_done);
    json_add_str(o, "shard", r->shard);
    add_list(o, "tags", r->tags);
    add_list(o, "schedules", r->schedules);
    in = json_add_object(o, "inputs");
    json_add_str(in, "golden_sha256", r->golden_sha256);
    json_add_str(in, "haystack_sha256", r->haystack_sha256);
    json_add_str(in, "template_sha256", r->template_sha256);
    json_add_str(in, "tokenizer_name", r->tokenizer_name);
    json_add_str(in, "tokenizer_sha256", r->tokenizer_sha256);
    /* the request probe (store.h run_info): null while unknown (older stores, unchecked parts) */
    if (r->probe_key && r->probe_sha256) {
        struct json *probe = json_add_object(in, "request_probe");
        json_add_str(probe, "trial", r->probe_key);
        json_add_str(probe, "prompt_sha256", r->probe_sha256);
    } else {
        json_add_null(in, "request_probe");
    }
    settings = json_parse_str(r->settings_json);
    if (settings)
        json_add(o, "settings", settings);
    else
        json_add_str(o, "settings", r->settings_json); /* unparsable: kept verbatim as text */
    json_add_str(o, "dipmap_version", r->dipmap_version);
    json_add_str(o, "dipmap_commit", r->dipmap_commit);
    return o;
}

static void add_outcomes(struct json *parent, const long *counts)
{
    struct json *o = json_add_object(parent, "outcomes");
    int i;
    for (i = OUTCOME_CORRECT; i < OUTCOME__COUNT; i++)
        json_add_num(o, outcome_name((enum trial_outcome)i), (double)counts[i]);
    json_add_num(o, "pending", (double)counts[OUTCOME_PENDING]);
}

/* key: {"value", "lo", "hi"}; returns the object (borrowed) */
static struct json *add_estimate(struct json *parent, const char *key, const struct estimate *e)
{
    struct json *o = json_add_object(parent, key);
    json_add_num(o, "value", e->est);
    json_add_num(o, "lo", e->lo);
    json_add_num(o, "hi", e->hi);
    return o;
}

/* "accuracy": null without valid trials (no data, not 0). */
static void add_accuracy(struct json *o, long n_valid, double acc)
{
    if (n_valid)
        json_add_num(o, "accuracy", acc);
    else
        json_add_null(o, "accuracy");
}

/* The counts a length and the totals both open with, in this key order. */
static void add_counts(struct json *o, long trials, long valid, long correct, double accuracy,
                       double coverage, size_t questions)
{
    json_add_num(o, "trials", (double)trials);
    json_add_num(o, "valid", (double)valid);
    json_add_num(o, "correct", (double)correct);
    add_accuracy(o, valid, accuracy);
    json_add_num(o, "coverage", coverage);
    json_add_num(o, "questions", (double)questions);
}

/* "accuracy" and its "interval95", both null without valid trials. */
static void add_accuracy_ci(struct json *o, long n_valid, double acc, double lo, double hi)
{
    add_accuracy(o, n_valid, acc);
    if (n_valid)
        json_add_interval(o, "interval95", lo, hi);
    else
        json_add_null(o, "interval95");
}

/*
 * "valid", "correct" and "questions": the counts of a cell, an order cell, a control and an
 * axis value, in this key order.
 */
static void add_tally(struct json *o, long valid, long correct, size_t questions)
{
    json_add_num(o, "valid", (double)valid);
    json_add_num(o, "correct", (double)correct);
    json_add_num(o, "questions", (double)questions);
}

static void add_control(struct json *parent, const char *key, const struct control_stats *c)
{
    struct json *o;
    if (!c->present) {
        json_add_null(parent, key);
        return;
    }
    o = json_add_object(parent, key);
    add_tally(o, c->n_valid, c->n_correct, c->n_questions);
    add_accuracy_ci(o, c->n_valid, c->accuracy, c->ci_lo, c->ci_hi);
}

static double depth_frac(int bp)
{
    return bp / (double)DEPTH_BP_MAX;
}

static void add_length(struct json *arr, const struct length_stats *l)
{
    struct json *o = json_add_object(arr, NULL), *x;
    json_add_num(o, "length", (double)l->length);
    add_counts(o, l->n_trials, l->n_valid, l->n_correct, l->accuracy, l->coverage, l->n_questions);
    add_outcomes(o, l->outcomes);
    json_add_num(o, "depths_with_data", l->n_depths);
    if (l->n_depths) {
        x = json_add_object(o, "edge");
        json_add_num(x, "shallow_depth", depth_frac(l->edge_lo_depth_bp));
        json_add_num(x, "shallow_accuracy", l->edge_lo_accuracy);
        json_add_num(x, "deep_depth", depth_frac(l->edge_hi_depth_bp));
        json_add_num(x, "deep_accuracy", l->edge_hi_accuracy);
        add_estimate(x, "mean", &l->edge);
        json_add_num(o, "auc", l->auc);
    } else {
        json_add_null(o, "edge");
        json_add_null(o, "auc");
    }
    /* at the floor or the ceiling the dip is not measured: null, and "dip_bound" says why */
    if (l->has_middle) {
        add_estimate(o, "middle", &l->middle);
        if (stats_dip_bound(l))
            json_add_null(o, "dip");
        else
            add_estimate(o, "dip", &l->dip);
    } else {
        json_add_null(o, "middle");
        json_add_null(o, "dip");
    }
    if (stats_dip_bound(l))
        json_add_str(o, "dip_bound", stats_dip_bound(l));
    else
        json_add_null(o, "dip_bound");
    if (l->has_worst && !stats_dip_bound(l)) {
        x = add_estimate(o, "middle_worst", &l->middle_worst);
        json_add_num(x, "depth", depth_frac(l->middle_worst_depth_bp));
        add_estimate(o, "dip_worst", &l->dip_worst);
    } else {
        json_add_null(o, "middle_worst");
        json_add_null(o, "dip_worst");
    }
    x = json_add_object(o, "realized_length");
    json_add_num(x, "trials", (double)l->n_realized);
    json_add_num(x, "min", (double)l->realized_min);
    json_add_num(x, "max", (double)l->realized_max);
    json_add_num(x, "mean", l->realized_mean);
    x = json_add_object(o, "server_usage");
    json_add_num(x, "trials", (double)l->n_usage);
    json_add_num(x, "ratio_mean", l->usage_ratio_mean);
    json_add_num(x, "ratio_max_deviation", l->usage_ratio_max_dev);
    json_add_num(x, "tokenizer_mismatches", (double)l->tokenizer_mismatches);
}

static void add_cell(struct json *arr, const struct cell_stats *c)
{
    struct json *o = json_add_object(arr, NULL);
    json_add_num(o, "length", (double)c->length);
    json_add_num(o, "depth", depth_frac(c->depth_bp));
    json_add_num(o, "depth_bp", c->depth_bp);
    json_add_num(o, "trials", (double)c->n_trials);
    add_tally(o, c->n_valid, c->n_correct, c->n_questions);
    add_accuracy_ci(o, c->n_valid, c->accuracy, c->ci_lo, c->ci_hi);
    if (c->n_valid)
        json_add_num(o, "design_effect", c->design_effect);
    else
        json_add_null(o, "design_effect");
    json_add_num(o, "coverage", c->coverage);
    add_outcomes(o, c->outcomes);
    json_add_num(o, "cut", (double)c->n_cut);
    if (c->mean_realized_depth >= 0)
        json_add_num(o, "realized_depth_mean", c->mean_realized_depth);
    else
        json_add_null(o, "realized_depth_mean");
}

/* One point of an axis value's depth curve: {depth, valid, accuracy, interval95} (nulls: no data).
 */
static void add_depth_point(struct json *arr, int depth_bp, long n, double acc, double lo,
                            double hi)
{
    struct json *c = json_add_object(arr, NULL);
    json_add_num(c, "depth", depth_frac(depth_bp));
    json_add_num(c, "valid", (double)n);
    add_accuracy_ci(c, n, acc, lo, hi);
}

/*
 * One value of a named axis: accuracy, interval and, with curves, its depth
 * curve and the curve per length (an order run's trials have no depth or length).
 */
static void add_axis_value(struct json *arr, const struct axis_value_stats *v, int curves)
{
    struct json *vo = json_add_object(arr, NULL), *curve;
    size_t k, l;
    json_add_str(vo, "value", v->value);
    add_tally(vo, v->n_valid, v->n_correct, v->n_questions);
    add_accuracy(vo, v->n_valid, v->accuracy);
    json_add_interval(vo, "interval95", v->ci_lo, v->ci_hi);
    if (!curves)
        return;
    curve = json_add_array(vo, "by_depth");
    for (k = 0; k < v->n_depths; k++)
        add_depth_point(curve, v->depths_bp[k], v->depth_n[k], v->depth_acc[k], v->depth_lo[k],
                        v->depth_hi[k]);
    curve = json_add_array(vo, "by_length");
    for (l = 0; l < v->n_lengths; l++) {
        struct json *lo = json_add_object(curve, NULL), *cells;
        json_add_num(lo, "length", (double)v->lengths[l]);
        cells = json_add_array(lo, "by_depth");
        for (k = 0; k < v->n_depths; k++) {
            const struct axis_cell *ac = &v->cells[l * v->n_depths + k];
            add_depth_point(cells, v->depths_bp[k], ac->n_valid, ac->accuracy, ac->ci_lo,
                            ac->ci_hi);
        }
    }
}

/* One absent_stats row: its length and depth (null: all), n, events, rate and interval. */
static void add_absent_rates(struct json *o, const char *key, const struct absent_rate *v, size_t n)
{
    struct json *arr = json_add_array(o, key);
    for (size_t i = 0; i < n; i++) {
        struct json *e = json_add_object(arr, NULL);
        if (v[i].length == ABSENT_ALL_LENGTHS)
            json_add_null(e, "length");
        else
            json_add_num(e, "length", (double)v[i].length);
        if (v[i].depth_bp == ABSENT_ALL_DEPTHS) {
            json_add_null(e, "depth");
            json_add_null(e, "depth_bp");
        } else {
            json_add_num(e, "depth", v[i].depth_bp / 100.0);
            json_add_num(e, "depth_bp", v[i].depth_bp);
        }
        json_add_num(e, "n", (double)v[i].n);
        json_add_num(e, "events", (double)v[i].k);
        json_add_num(e, "questions", (double)v[i].questions);
        json_add_num(e, "rate", v[i].n ? v[i].rate : NAN);
        json_add_interval(e, "interval", v[i].lo, v[i].hi);
    }
}

/*
 * "absent": needle-absent trials (run --absent): the hallucination rate on the absent twins and
 * the false-absence rate on the present trials, per (length, depth), per length (depth
 * null) and overall (both null, last), as the cells name them.
 */
static void add_absent(struct json *root, const struct absent_stats *a)
{
    struct json *o = json_add_object(root, "absent");
    add_absent_rates(o, "hallucination", a->halluc, a->n_halluc);
    add_absent_rates(o, "false_absence", a->denied, a->n_denied);
}

/* "hops": two-hop chains (run --hops 2): per (length, depth A, depth B), and per distance. */
static void add_hops(struct json *root, const struct hops_stats *h)
{
    struct json *o = json_add_object(root, "hops"), *arr = json_add_array(o, "cells");
    size_t i;
    for (i = 0; i < h->n_cells; i++) {
        const struct hops_cell *c = &h->cells[i];
        struct json *e = json_add_object(arr, NULL);
        json_add_num(e, "length", (double)c->length);
        json_add_num(e, "depth_a", c->depth_a / 100.0);
        json_add_num(e, "depth_b", c->depth_b / 100.0);
        json_add_num(e, "valid", (double)c->valid);
        json_add_num(e, "correct", (double)c->correct);
        json_add_num(e, "accuracy", c->valid ? (double)c->correct / (double)c->valid : 0);
    }
    arr = json_add_array(o, "by_distance");
    for (i = 0; i < h->n_groups; i++) {
        const struct hops_group *g = &h->groups[i];
        struct json *e = json_add_object(arr, NULL);
        json_add_num(e, "distance", g->distance / 100.0);
        json_add_str(e, "order", hops_order_name(g->order));
        json_add_num(e, "valid", (double)g->valid);
        json_add_num(e, "correct", (double)g->correct);
        json_add_num(e, "accuracy", g->valid ? (double)g->correct / (double)g->valid : 0);
        json_add_interval(e, "interval95", g->lo, g->hi);
    }
}

static void add_ordinal_group(struct json *arr, const struct ordinal_group *g, int known)
{
    struct json *e = json_add_object(arr, NULL);
    if (g->n)
        json_add_num(e, "n", g->n);
    if (g->depth_bp >= 0)
        json_add_num(e, "depth", g->depth_bp / (double)DEPTH_BP_MAX);
    json_add_num(e, "valid", (double)g->valid);
    json_add_num(e, "correct", (double)g->correct);
    json_add_num(e, "accuracy", g->valid ? (double)g->correct / (double)g->valid : 0);
    json_add_interval(e, "interval95", g->acc_lo, g->acc_hi);
    if (known) {
        json_add_num(e, "neighbour", (double)g->neighbour);
        json_add_num(e, "neighbour_rate", g->valid ? (double)g->neighbour / (double)g->valid : 0);
        json_add_interval(e, "neighbour_interval95", g->nb_lo, g->nb_hi);
    } else {
        json_add_null(e, "neighbour");
        json_add_null(e, "neighbour_rate");
        json_add_null(e, "neighbour_interval95");
    }
}

/* "ordinal": ordinal needles (run --ordinal N): by N, by the target's depth, per (N, depth). */
static void add_ordinal(struct json *root, const struct ordinal_stats *s)
{
    struct json *o = json_add_object(root, "ordinal"), *arr;
    size_t i;
    arr = json_add_array(o, "by_n");
    for (i = 0; i < s->n_by_n; i++)
        add_ordinal_group(arr, &s->by_n[i], s->neighbour_known);
    arr = json_add_array(o, "by_depth");
    for (i = 0; i < s->n_by_depth; i++)
        add_ordinal_group(arr, &s->by_depth[i], s->neighbour_known);
    arr = json_add_array(o, "cells");
    for (i = 0; i < s->n_cells; i++)
        add_ordinal_group(arr, &s->cells[i], s->neighbour_known);
}

/* "lexical": per question its overlap share with the gold and the gold's BM25 ranks. */
static void add_lexical(struct json *root, const struct report_lexical *lex, size_t n)
{
    struct json *arr = json_add_array(root, "lexical");
    size_t i, j;
    for (i = 0; i < n; i++) {
        struct json *o = json_add_object(arr, NULL), *ranks;
        json_add_str(o, "question", lex[i].id);
        json_add_num(o, "overlap", lex[i].share >= 0 ? lex[i].share : NAN);
        ranks = json_add_array(o, "bm25_rank");
        for (j = 0; j < lex[i].n_ranks; j++) {
            struct json *r = json_add_object(ranks, NULL);
            json_add_num(r, "length", (double)lex[i].ranks[j].length);
            json_add_num(r, "min", (double)lex[i].ranks[j].min);
            json_add_num(r, "max", (double)lex[i].ranks[j].max);
            json_add_num(r, "documents", (double)lex[i].ranks[j].docs);
        }
    }
}

/* "axes": per named axis its values and paired effects. */
static void add_axes(struct json *root, const struct axis_stats *ax, size_t n, int curves)
{
    struct json *arr = json_add_array(root, "axes");
    size_t i, j;
    for (i = 0; i < n; i++) {
        const struct axis_stats *a = &ax[i];
        struct json *o = json_add_object(arr, NULL), *vals, *effs;
        json_add_str(o, "name", a->name);
        vals = json_add_array(o, "values");
        for (j = 0; j < a->n_values; j++)
            add_axis_value(vals, &a->values[j], curves);
        effs = json_add_array(o, "effects");
        for (j = 0; j < a->n_effects; j++) {
            const struct axis_effect *e = &a->effects[j];
            struct json *eo = json_add_object(effs, NULL);
            json_add_str(eo, "value", e->value);
            json_add_str(eo, "versus", e->ref);
            json_add_num(eo, "pairs", (double)e->n_pairs);
            json_add_num(eo, "questions", (double)e->n_questions);
            add_estimate(eo, "difference", &e->diff);
        }
        json_add_bool(o, "paired", a->paired);
    }
}

/*
 * "decomposition" (run --arm, stats/decomp.h): per length the length, distraction and position
 * penalties as "length_penalty", "distraction_penalty", "position_penalty", each {"pairs",
 * "questions", "penalty": {"value", "lo", "hi"}} or null without pairs.
 */
static void add_decomp(struct json *root, const struct decomp_stats *d)
{
    struct json *arr = json_add_array(root, "decomposition");
    struct strbuf key = STRBUF_INIT;
    for (size_t i = 0; i < d->n_lengths; i++) {
        struct json *o = json_add_object(arr, NULL);
        json_add_num(o, "length", (double)d->lengths[i].length);
        for (int k = 0; k < DECOMP__COUNT; k++) {
            const struct decomp_penalty *p = &d->lengths[i].pen[k];
            struct json *po;
            strbuf_reset(&key);
            strbuf_addf(&key, "%s_penalty", decomp_name(k));
            if (!p->n_pairs) {
                json_add_null(o, key.buf);
                continue;
            }
            po = json_add_object(o, key.buf);
            json_add_num(po, "pairs", (double)p->n_pairs);
            json_add_num(po, "questions", (double)p->n_questions);
            add_estimate(po, "penalty", &p->diff);
        }
    }
    strbuf_release(&key);
}

static void add_order_cell(struct json *arr, const struct order_cell *c)
{
    struct json *e = json_add_object(arr, NULL);
    json_add_str(e, "policy", ordering_name(c->policy));
    json_add_num(e, "k", c->k);
    json_add_num(e, "trials", (double)c->trials);
    add_tally(e, c->valid, c->correct, c->questions);
    add_accuracy_ci(e, c->valid, c->accuracy, c->lo, c->hi); /* NAN without valid trials */
    json_add_num(e, "recall", c->recall);
    json_add_num(e, "present_accuracy", c->present_accuracy);
    json_add_interval(e, "present_interval95", c->present_lo, c->present_hi);
    json_add_num(e, "prompt_tokens", c->prompt_tokens);
    json_add_num(e, "completion_tokens", c->completion_tokens);
    json_add_num(e, "cost_per_question", c->cost);
    json_add_num(e, "expected", c->expected);
    json_add_interval(e, "expected_interval95", c->expected_lo, c->expected_hi);
    if (c->curve_length > 0)
        json_add_num(e, "curve_length", (double)c->curve_length);
    else
        json_add_null(e, "curve_length");
}

/* The order experiment's "order" object (docs/schemas.md "summary.json schema"). */
static void add_order(struct json *root, const struct order_stats *os, const char *curve_run)
{
    struct json *o = json_add_object(root, "order"), *arr;
    struct strbuf rec = STRBUF_INIT;
    size_t i;

    arr = json_add_array(o, "policies");
    for (i = 0; i < os->n_policies; i++)
        json_add_str(arr, NULL, ordering_name(os->policies[i]));
    arr = json_add_array(o, "k");
    for (i = 0; i < os->n_ks; i++)
        json_add_num(arr, NULL, os->ks[i]);
    json_add_str(o, "reference", ordering_name(os->reference));
    json_add_num(o, "questions", (double)os->n_questions);
    json_add_str(o, "curve_run", curve_run);
    arr = json_add_array(o, "cells");
    for (i = 0; i < os->n_policies * os->n_ks; i++)
        add_order_cell(arr, &os->cells[i]);
    arr = json_add_array(o, "differences");
    for (i = 0; i < os->n_diffs; i++) {
        const struct order_diff *d = &os->diffs[i];
        struct json *e = json_add_object(arr, NULL);
        json_add_str(e, "policy", ordering_name(d->policy));
        json_add_str(e, "reference", ordering_name(d->reference));
        json_add_num(e, "k", d->k);
        json_add_num(e, "questions", (double)d->questions);
        json_add_num(e, "difference", d->diff);
        json_add_interval(e, "interval95", d->lo, d->hi);
        json_add_num(e, "p", d->p);
        json_add_num(e, "p_holm", d->p_holm);
    }
    if (os->bound)
        json_add_str(o, "no_recommendation", os->bound < 0 ? "floor" : "ceiling");
    if (os->best >= 0) {
        const struct order_cell *b = &os->cells[os->best], *r = &os->cells[os->recommended];
        struct json *e = json_add_object(o, "recommendation");
        order_recommendation(os, &rec);
        json_add_str(e, "policy", ordering_name(r->policy));
        json_add_num(e, "k", r->k);
        json_add_num(e, "margin", ORDER_MARGIN);
        json_add_str(e, "best_policy", ordering_name(b->policy));
        json_add_num(e, "best_k", b->k);
        json_add_str(e, "text", rec.buf);
    } else {
        json_add_null(o, "recommendation");
    }
    strbuf_release(&rec);
}

/* "prompt_cache": what the server's prefix cache reused (docs/schemas.md "summary.json schema"). */
static void add_cache(struct json *root, const struct cache_stats *c)
{
    struct json *o = json_add_object(root, "prompt_cache"), *e;
    json_add_num(o, "trials", (double)c->trials);
    json_add_num(o, "from_timings", (double)c->from_timings);
    json_add_num(o, "sent", (double)c->sent);
    json_add_num(o, "cached", (double)c->cached);
    json_add_num(o, "computed", (double)(c->sent - c->cached));
    json_add_num(o, "hit_rate", c->sent > 0 ? (double)c->cached / (double)c->sent : NAN);
    e = json_add_object(o, "estimate");
    json_add_num(e, "sent", c->est_sent);
    json_add_num(e, "cached", c->est_cached);
    json_add_num(e, "hit_rate", c->est_sent > 0 ? c->est_cached / c->est_sent : NAN);
}

int summary_json_write(const struct run_info *run, const struct run_stats *s,
                       const struct axis_stats *axes, size_t n_axes, struct strbuf *out)
{
    return summary_json_write_order(run, s, axes, n_axes, NULL, NULL, NULL, 0, out);
}

static void add_totals(struct json *root, const struct run_stats *s)
{
    struct json *o = json_add_object(root, "totals"), *arr;
    struct strvec w = STRVEC_INIT;
    size_t i;

    add_counts(o, s->n_trials, s->n_valid, s->n_correct, s->accuracy, s->coverage, s->n_questions);
    json_add_num(o, "repeats", s->n_repeats);
    add_outcomes(o, s->outcomes);
    json_add_num(o, "cut", (double)s->n_cut);
    json_add_num(o, "starved_reasoning_tokens", (double)s->starved_reasoning_tokens);

    arr = json_add_array(root, "warnings");
    stats_warnings(s, &w);
    for (i = 0; i < w.nr; i++)
        json_add_str(arr, NULL, w.v[i]);
    strvec_clear(&w);
}

/* effective_length.ruler / .nolima: the published definitions (stats/effective_length.h) */
static void add_published_effective(struct json *parent, const char *name,
                                    const struct published_effective *e, int nolima)
{
    struct json *o = json_add_object(parent, name);
    if (nolima) {
        json_add_num(o, "fraction", e->fraction);
        if (e->base_lengths) {
            json_add_num(o, "base_score", e->base);
            json_add_num(o, "base_lengths", (double)e->base_lengths);
            json_add_num(o, "base_longest_length", (double)e->base_longest);
        } else {
            json_add_null(o, "base_score");
            json_add_null(o, "base_lengths");
            json_add_null(o, "base_longest_length");
        }
    }
    if (e->defined || !nolima)
        json_add_num(o, "threshold", e->threshold);
    else
        json_add_null(o, "threshold");
    if (e->defined && e->length > 0)
        json_add_num(o, "length", (double)e->length);
    else
        json_add_null(o, "length");
    json_add_bool(o, "defined", e->defined);
    json_add_bool(o, "gaps", e->gaps);
}

/* "controls", "question_set", "bootstrap" and "effective_length" */
static void add_method(struct json *root, const struct run_stats *s)
{
    struct json *o = json_add_object(root, "controls");
    add_control(o, "closed_book", &s->closed_book);
    add_control(o, "oracle", &s->oracle);
    o = json_add_object(root, "question_set");
    json_add_str(o, "kind", s->exclude_known ? "excluding_known" : "all");
    json_add_num(o, "questions", (double)s->n_questions);
    if (s->closed_book.present)
        json_add_num(o, "known", (double)s->n_known);
    else
        json_add_null(o, "known");

    o = json_add_object(root, "bootstrap");
    json_add_num(o, "iterations", s->bootstrap_iters);
    json_add_num(o, "seed", (double)s->seed);
    json_add_num(o, "confidence", s->confidence);

    o = json_add_object(root, "effective_length");
    json_add_str(o, "reference", s->effective_from_oracle ? "oracle" : "shortest_length_edge");
    if (s->effective_defined) {
        json_add_num(o, "reference_accuracy", s->effective_reference);
        json_add_num(o, "threshold", s->effective_threshold);
    } else {
        json_add_null(o, "reference_accuracy");
        json_add_null(o, "threshold");
    }
    if (s->effective_length > 0)
        json_add_num(o, "length", (double)s->effective_length);
    else
        json_add_null(o, "length");
    add_published_effective(o, "ruler", &s->ruler, 0);
    add_published_effective(o, "nolima", &s->nolima, 1);
}

static void add_ordering_advice(struct json *root, const struct run_stats *s)
{
    struct json *o = json_add_object(root, "ordering_advice"), *arr;
    struct json *rd = json_add_object(o, "rank_distribution");
    size_t i;
    int k;

    if (s->n_rank_probs) {
        json_add_str(rd, "kind", "file");
        json_add_num(rd, "ranks", (double)s->n_rank_probs);
    } else {
        json_add_str(rd, "kind", "geometric");
        json_add_num(rd, "p", s->geometric_p);
    }
    arr = json_add_array(o, "entries");
    for (i = 0; i < s->n_advice; i++) {
        const struct ordering_advice *a = &s->advice[i];
        struct json *e = json_add_object(arr, NULL), *acc;
        json_add_num(e, "length", (double)a->length);
        json_add_num(e, "k", a->k);
        json_add_num(e, "retrieved", a->retrieved);
        acc = json_add_object(e, "accuracy");
        /* schema 2 named the second-last policy by its long name; "ascending" was added */
        for (k = 0; k < ORDER__COUNT; k++)
            json_add_num(acc,
                         k == ORDER_BEST_2ND_LAST ? "best-first-second-last"
                                                  : ordering_name((enum ordering)k),
                         a->accuracy[k]);
    }
}

int summary_json_write_order(const struct run_info *run, const struct run_stats *s,
                             const struct axis_stats *axes, size_t n_axes,
                             const struct order_stats *os, const char *curve_run,
                             const struct report_lexical *lex, size_t n_lex, struct strbuf *out)
{
    struct json *root = json_new_object(), *arr;
    size_t i;

    json_add_str(root, "schema", SUMMARY_JSON_SCHEMA);
    json_add_num(root, "schema_version", SUMMARY_JSON_VERSION);
    if (run)
        json_add(root, "run", summary_json_run(run));
    else
        json_add_null(root, "run");
    add_totals(root, s);
    add_method(root, s);
    arr = json_add_array(root, "lengths");
    for (i = 0; i < s->n_lengths; i++)
        add_length(arr, &s->lengths[i]);
    arr = json_add_array(root, "cells");
    for (i = 0; i < s->n_cells; i++)
        add_cell(arr, &s->cells[i]);
    add_axes(root, axes, n_axes, !os);
    add_lexical(root, lex, n_lex);
    if (s->hops)
        add_hops(root, s->hops);
    if (s->absent)
        add_absent(root, s->absent);
    if (s->ordinal)
        add_ordinal(root, s->ordinal);
    if (s->decomp)
        add_decomp(root, s->decomp);
    add_ordering_advice(root, s);
    if (os)
        add_order(root, os, curve_run);
    if (s->cache.trials)
        add_cache(root, &s->cache);

    json_print(out, root, 1);
    strbuf_addch(out, '\n');
    json_free(root);
    return 0;
}

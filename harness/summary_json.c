/*
 * summary.json writer: run metadata, per-cell stats, per-length dip with
 * intervals, coverage, effective length and ordering advice, in the stable
 * schema documented in README.md ("summary.json schema"). Pure: builds the
 * document with cJSON and appends it to a strbuf.
 */
#include "summary_json.h"

#include <cJSON.h>
#include <math.h>
#include <string.h>

#include "order_stats.h"
#include "stats.h"
#include "stats_axes.h"
#include "store.h"
#include "strbuf.h"
#include "strvec.h"

#include "banned.h"

static void add_str(cJSON *o, const char *key, const char *v)
{
    if (v)
        cJSON_AddStringToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

static void add_time(cJSON *o, const char *key, double t)
{
    if (t > 0)
        cJSON_AddNumberToObject(o, key, t);
    else
        cJSON_AddNullToObject(o, key);
}

/* key: the non-empty items of a comma-separated list, as an array ([] when csv is NULL). */
static void add_list(cJSON *o, const char *key, const char *csv)
{
    cJSON *arr = cJSON_AddArrayToObject(o, key);
    struct strvec tv = STRVEC_INIT;
    if (csv && *csv) {
        strvec_split(&tv, csv, ',');
        for (size_t i = 0; i < tv.nr; i++)
            if (*tv.v[i])
                cJSON_AddItemToArray(arr, cJSON_CreateString(tv.v[i]));
    }
    strvec_clear(&tv);
}

cJSON *summary_json_run(const struct run_info *r)
{
    cJSON *o = cJSON_CreateObject(), *in, *settings;

    add_str(o, "name", r->name);
    add_str(o, "model_requested", r->model_requested);
    add_str(o, "model_served", r->model_served);
    add_str(o, "endpoints", r->endpoints);
    add_str(o, "system_fingerprint", r->system_fingerprint);
    cJSON_AddStringToObject(o, "status", run_status_name(r->status));
    add_time(o, "created_at", r->created_at);
    add_time(o, "started_at", r->started_at);
    add_time(o, "finished_at", r->finished_at);
    cJSON_AddNumberToObject(o, "trials_planned", (double)r->trials_planned);
    cJSON_AddNumberToObject(o, "trials_done", (double)r->trials_done);
    add_str(o, "shard", r->shard);
    add_list(o, "tags", r->tags);
    add_list(o, "schedules", r->schedules);
    in = cJSON_AddObjectToObject(o, "inputs");
    add_str(in, "golden_sha256", r->golden_sha256);
    add_str(in, "haystack_sha256", r->haystack_sha256);
    add_str(in, "template_sha256", r->template_sha256);
    add_str(in, "tokenizer_name", r->tokenizer_name);
    add_str(in, "tokenizer_sha256", r->tokenizer_sha256);
    settings = r->settings_json ? cJSON_Parse(r->settings_json) : NULL;
    if (settings)
        cJSON_AddItemToObject(o, "settings", settings);
    else
        add_str(o, "settings", r->settings_json); /* unparsable: kept verbatim as text */
    add_str(o, "dipmap_version", r->dipmap_version);
    add_str(o, "dipmap_commit", r->dipmap_commit);
    return o;
}

static cJSON *outcomes_object(const long *counts)
{
    cJSON *o = cJSON_CreateObject();
    int i;
    for (i = OUTCOME_CORRECT; i < OUTCOME__COUNT; i++)
        cJSON_AddNumberToObject(o, outcome_name((enum trial_outcome)i), (double)counts[i]);
    cJSON_AddNumberToObject(o, "pending", (double)counts[OUTCOME_PENDING]);
    return o;
}

static cJSON *estimate_object(const struct estimate *e)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "value", e->est);
    cJSON_AddNumberToObject(o, "lo", e->lo);
    cJSON_AddNumberToObject(o, "hi", e->hi);
    return o;
}

/* [lo, hi], or null when either bound is not finite (no data). */
static cJSON *interval_array(double lo, double hi)
{
    cJSON *a;
    if (!isfinite(lo) || !isfinite(hi))
        return cJSON_CreateNull();
    a = cJSON_CreateArray();
    cJSON_AddItemToArray(a, cJSON_CreateNumber(lo));
    cJSON_AddItemToArray(a, cJSON_CreateNumber(hi));
    return a;
}

static cJSON *control_object(const struct control_stats *c)
{
    cJSON *o;
    if (!c->present)
        return cJSON_CreateNull();
    o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "valid", (double)c->n_valid);
    cJSON_AddNumberToObject(o, "correct", (double)c->n_correct);
    cJSON_AddNumberToObject(o, "questions", (double)c->n_questions);
    if (c->n_valid) {
        cJSON_AddNumberToObject(o, "accuracy", c->accuracy);
        cJSON_AddItemToObject(o, "interval95", interval_array(c->ci_lo, c->ci_hi));
    } else {
        cJSON_AddNullToObject(o, "accuracy");
        cJSON_AddNullToObject(o, "interval95");
    }
    return o;
}

static double depth_frac(int bp)
{
    return bp / (double)DEPTH_BP_MAX;
}

static cJSON *length_object(const struct length_stats *l)
{
    cJSON *o = cJSON_CreateObject(), *x;
    cJSON_AddNumberToObject(o, "length", (double)l->length);
    cJSON_AddNumberToObject(o, "trials", (double)l->n_trials);
    cJSON_AddNumberToObject(o, "valid", (double)l->n_valid);
    cJSON_AddNumberToObject(o, "correct", (double)l->n_correct);
    if (l->n_valid)
        cJSON_AddNumberToObject(o, "accuracy", l->accuracy);
    else
        cJSON_AddNullToObject(o, "accuracy");
    cJSON_AddNumberToObject(o, "coverage",
                            l->n_trials ? (double)l->n_valid / (double)l->n_trials : 0.0);
    cJSON_AddNumberToObject(o, "questions", (double)l->n_questions);
    cJSON_AddItemToObject(o, "outcomes", outcomes_object(l->outcomes));
    cJSON_AddNumberToObject(o, "depths_with_data", l->n_depths);
    if (l->n_depths) {
        x = cJSON_AddObjectToObject(o, "edge");
        cJSON_AddNumberToObject(x, "shallow_depth", depth_frac(l->edge_lo_depth_bp));
        cJSON_AddNumberToObject(x, "shallow_accuracy", l->edge_lo_accuracy);
        cJSON_AddNumberToObject(x, "deep_depth", depth_frac(l->edge_hi_depth_bp));
        cJSON_AddNumberToObject(x, "deep_accuracy", l->edge_hi_accuracy);
        cJSON_AddItemToObject(x, "mean", estimate_object(&l->edge));
        cJSON_AddNumberToObject(o, "auc", l->auc);
    } else {
        cJSON_AddNullToObject(o, "edge");
        cJSON_AddNullToObject(o, "auc");
    }
    if (l->has_middle) {
        cJSON_AddItemToObject(o, "middle", estimate_object(&l->middle));
        cJSON_AddItemToObject(o, "dip", estimate_object(&l->dip));
    } else {
        cJSON_AddNullToObject(o, "middle");
        cJSON_AddNullToObject(o, "dip");
    }
    if (l->has_worst) {
        x = estimate_object(&l->middle_worst);
        cJSON_AddNumberToObject(x, "depth", depth_frac(l->middle_worst_depth_bp));
        cJSON_AddItemToObject(o, "middle_worst", x);
        cJSON_AddItemToObject(o, "dip_worst", estimate_object(&l->dip_worst));
    } else {
        cJSON_AddNullToObject(o, "middle_worst");
        cJSON_AddNullToObject(o, "dip_worst");
    }
    x = cJSON_AddObjectToObject(o, "realized_length");
    cJSON_AddNumberToObject(x, "trials", (double)l->n_realized);
    cJSON_AddNumberToObject(x, "min", (double)l->realized_min);
    cJSON_AddNumberToObject(x, "max", (double)l->realized_max);
    cJSON_AddNumberToObject(x, "mean", l->realized_mean);
    x = cJSON_AddObjectToObject(o, "server_usage");
    cJSON_AddNumberToObject(x, "trials", (double)l->n_usage);
    cJSON_AddNumberToObject(x, "ratio_mean", l->usage_ratio_mean);
    cJSON_AddNumberToObject(x, "ratio_max_deviation", l->usage_ratio_max_dev);
    cJSON_AddNumberToObject(x, "tokenizer_mismatches", (double)l->tokenizer_mismatches);
    return o;
}

static cJSON *cell_object(const struct cell_stats *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "length", (double)c->length);
    cJSON_AddNumberToObject(o, "depth", depth_frac(c->depth_bp));
    cJSON_AddNumberToObject(o, "depth_bp", c->depth_bp);
    cJSON_AddNumberToObject(o, "trials", (double)c->n_trials);
    cJSON_AddNumberToObject(o, "valid", (double)c->n_valid);
    cJSON_AddNumberToObject(o, "correct", (double)c->n_correct);
    cJSON_AddNumberToObject(o, "questions", (double)c->n_questions);
    if (c->n_valid) {
        cJSON_AddNumberToObject(o, "accuracy", c->accuracy);
        cJSON_AddItemToObject(o, "interval95", interval_array(c->ci_lo, c->ci_hi));
        cJSON_AddNumberToObject(o, "design_effect", c->design_effect);
    } else {
        cJSON_AddNullToObject(o, "accuracy");
        cJSON_AddNullToObject(o, "interval95");
        cJSON_AddNullToObject(o, "design_effect");
    }
    cJSON_AddNumberToObject(o, "coverage", c->coverage);
    cJSON_AddItemToObject(o, "outcomes", outcomes_object(c->outcomes));
    cJSON_AddNumberToObject(o, "cut", (double)c->n_cut);
    if (c->mean_realized_depth >= 0)
        cJSON_AddNumberToObject(o, "realized_depth_mean", c->mean_realized_depth);
    else
        cJSON_AddNullToObject(o, "realized_depth_mean");
    return o;
}

/* One point of an axis value's depth curve: {depth, valid, accuracy, interval95} (nulls: no data).
 */
static cJSON *depth_point(int depth_bp, long n, double acc, double lo, double hi)
{
    cJSON *c = cJSON_CreateObject();
    cJSON_AddNumberToObject(c, "depth", depth_frac(depth_bp));
    cJSON_AddNumberToObject(c, "valid", (double)n);
    if (n) {
        cJSON_AddNumberToObject(c, "accuracy", acc);
        cJSON_AddItemToObject(c, "interval95", interval_array(lo, hi));
    } else {
        cJSON_AddNullToObject(c, "accuracy");
        cJSON_AddNullToObject(c, "interval95");
    }
    return c;
}

/* "axes": per named axis its values (accuracy, interval, depth curve) and paired effects. */
static cJSON *axes_array(const struct axis_stats *ax, size_t n, int curves)
{
    cJSON *arr = cJSON_CreateArray();
    size_t i, j, k, l;
    for (i = 0; i < n; i++) {
        const struct axis_stats *a = &ax[i];
        cJSON *o = cJSON_CreateObject(), *vals, *effs;
        cJSON_AddStringToObject(o, "name", a->name);
        vals = cJSON_AddArrayToObject(o, "values");
        for (j = 0; j < a->n_values; j++) {
            const struct axis_value_stats *v = &a->values[j];
            cJSON *vo = cJSON_CreateObject(), *curve;
            cJSON_AddStringToObject(vo, "value", v->value);
            cJSON_AddNumberToObject(vo, "valid", (double)v->n_valid);
            cJSON_AddNumberToObject(vo, "correct", (double)v->n_correct);
            cJSON_AddNumberToObject(vo, "questions", (double)v->n_questions);
            if (v->n_valid)
                cJSON_AddNumberToObject(vo, "accuracy", v->accuracy);
            else
                cJSON_AddNullToObject(vo, "accuracy");
            cJSON_AddItemToObject(vo, "interval95", interval_array(v->ci_lo, v->ci_hi));
            cJSON_AddItemToArray(vals, vo);
            if (!curves) /* an order run: its trials have no depth or length */
                continue;
            curve = cJSON_AddArrayToObject(vo, "by_depth");
            for (k = 0; k < v->n_depths; k++)
                cJSON_AddItemToArray(curve,
                                     depth_point(v->depths_bp[k], v->depth_n[k], v->depth_acc[k],
                                                 v->depth_lo[k], v->depth_hi[k]));
            curve = cJSON_AddArrayToObject(vo, "by_length");
            for (l = 0; l < v->n_lengths; l++) {
                cJSON *lo = cJSON_CreateObject(), *cells;
                cJSON_AddNumberToObject(lo, "length", (double)v->lengths[l]);
                cells = cJSON_AddArrayToObject(lo, "by_depth");
                for (k = 0; k < v->n_depths; k++) {
                    const struct axis_cell *ac = &v->cells[l * v->n_depths + k];
                    cJSON_AddItemToArray(cells, depth_point(v->depths_bp[k], ac->n_valid,
                                                            ac->accuracy, ac->ci_lo, ac->ci_hi));
                }
                cJSON_AddItemToArray(curve, lo);
            }
        }
        effs = cJSON_AddArrayToObject(o, "effects");
        for (j = 0; j < a->n_effects; j++) {
            const struct axis_effect *e = &a->effects[j];
            cJSON *eo = cJSON_CreateObject();
            cJSON_AddStringToObject(eo, "value", e->value);
            cJSON_AddStringToObject(eo, "versus", e->ref);
            cJSON_AddNumberToObject(eo, "pairs", (double)e->n_pairs);
            cJSON_AddNumberToObject(eo, "questions", (double)e->n_questions);
            cJSON_AddItemToObject(eo, "difference", estimate_object(&e->diff));
            cJSON_AddItemToArray(effs, eo);
        }
        cJSON_AddBoolToObject(o, "paired", a->paired);
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

/* A number, or null when it is not finite (no data). */
static void add_num(cJSON *o, const char *key, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

/* The order experiment's "order" object (README "summary.json schema"). */
static cJSON *order_object(const struct order_stats *os, const char *curve_run)
{
    cJSON *o = cJSON_CreateObject(), *arr;
    struct strbuf rec = STRBUF_INIT;
    size_t i;

    arr = cJSON_AddArrayToObject(o, "policies");
    for (i = 0; i < os->n_policies; i++)
        cJSON_AddItemToArray(arr, cJSON_CreateString(ordering_name(os->policies[i])));
    arr = cJSON_AddArrayToObject(o, "k");
    for (i = 0; i < os->n_ks; i++)
        cJSON_AddItemToArray(arr, cJSON_CreateNumber(os->ks[i]));
    cJSON_AddStringToObject(o, "reference", ordering_name(os->reference));
    cJSON_AddNumberToObject(o, "questions", (double)os->n_questions);
    add_str(o, "curve_run", curve_run);
    arr = cJSON_AddArrayToObject(o, "cells");
    for (i = 0; i < os->n_policies * os->n_ks; i++) {
        const struct order_cell *c = &os->cells[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "policy", ordering_name(c->policy));
        cJSON_AddNumberToObject(e, "k", c->k);
        cJSON_AddNumberToObject(e, "trials", (double)c->trials);
        cJSON_AddNumberToObject(e, "valid", (double)c->valid);
        cJSON_AddNumberToObject(e, "correct", (double)c->correct);
        cJSON_AddNumberToObject(e, "questions", (double)c->questions);
        add_num(e, "accuracy", c->accuracy);
        cJSON_AddItemToObject(e, "interval95", interval_array(c->lo, c->hi));
        add_num(e, "recall", c->recall);
        add_num(e, "present_accuracy", c->present_accuracy);
        cJSON_AddItemToObject(e, "present_interval95",
                              interval_array(c->present_lo, c->present_hi));
        add_num(e, "prompt_tokens", c->prompt_tokens);
        add_num(e, "completion_tokens", c->completion_tokens);
        add_num(e, "cost_per_question", c->cost);
        add_num(e, "expected", c->expected);
        cJSON_AddItemToObject(e, "expected_interval95",
                              interval_array(c->expected_lo, c->expected_hi));
        if (c->curve_length > 0)
            cJSON_AddNumberToObject(e, "curve_length", (double)c->curve_length);
        else
            cJSON_AddNullToObject(e, "curve_length");
        cJSON_AddItemToArray(arr, e);
    }
    arr = cJSON_AddArrayToObject(o, "differences");
    for (i = 0; i < os->n_diffs; i++) {
        const struct order_diff *d = &os->diffs[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "policy", ordering_name(d->policy));
        cJSON_AddStringToObject(e, "reference", ordering_name(d->reference));
        cJSON_AddNumberToObject(e, "k", d->k);
        cJSON_AddNumberToObject(e, "questions", (double)d->questions);
        add_num(e, "difference", d->diff);
        cJSON_AddItemToObject(e, "interval95", interval_array(d->lo, d->hi));
        cJSON_AddNumberToObject(e, "p", d->p);
        cJSON_AddNumberToObject(e, "p_holm", d->p_holm);
        cJSON_AddItemToArray(arr, e);
    }
    if (os->best >= 0) {
        const struct order_cell *b = &os->cells[os->best], *r = &os->cells[os->recommended];
        cJSON *e = cJSON_AddObjectToObject(o, "recommendation");
        order_recommendation(os, &rec);
        cJSON_AddStringToObject(e, "policy", ordering_name(r->policy));
        cJSON_AddNumberToObject(e, "k", r->k);
        cJSON_AddNumberToObject(e, "margin", ORDER_MARGIN);
        cJSON_AddStringToObject(e, "best_policy", ordering_name(b->policy));
        cJSON_AddNumberToObject(e, "best_k", b->k);
        cJSON_AddStringToObject(e, "text", rec.buf);
    } else {
        cJSON_AddNullToObject(o, "recommendation");
    }
    strbuf_release(&rec);
    return o;
}

/* "prompt_cache": what the server's prefix cache reused (README "summary.json schema"). */
static cJSON *cache_object(const struct cache_stats *c)
{
    cJSON *o = cJSON_CreateObject(), *e;
    cJSON_AddNumberToObject(o, "trials", (double)c->trials);
    cJSON_AddNumberToObject(o, "from_timings", (double)c->from_timings);
    cJSON_AddNumberToObject(o, "sent", (double)c->sent);
    cJSON_AddNumberToObject(o, "cached", (double)c->cached);
    cJSON_AddNumberToObject(o, "computed", (double)(c->sent - c->cached));
    add_num(o, "hit_rate", c->sent > 0 ? (double)c->cached / (double)c->sent : NAN);
    e = cJSON_AddObjectToObject(o, "estimate");
    cJSON_AddNumberToObject(e, "sent", c->est_sent);
    cJSON_AddNumberToObject(e, "cached", c->est_cached);
    add_num(e, "hit_rate", c->est_sent > 0 ? c->est_cached / c->est_sent : NAN);
    return o;
}

int summary_json_write(const struct run_info *run, const struct run_stats *s,
                       const struct axis_stats *axes, size_t n_axes, struct strbuf *out)
{
    return summary_json_write_order(run, s, axes, n_axes, NULL, NULL, out);
}

int summary_json_write_order(const struct run_info *run, const struct run_stats *s,
                             const struct axis_stats *axes, size_t n_axes,
                             const struct order_stats *os, const char *curve_run,
                             struct strbuf *out)
{
    cJSON *root = cJSON_CreateObject(), *o, *arr;
    char *text;
    size_t i;
    int k;

    if (!root)
        return -1;
    cJSON_AddStringToObject(root, "schema", SUMMARY_JSON_SCHEMA);
    cJSON_AddNumberToObject(root, "schema_version", SUMMARY_JSON_VERSION);
    if (run)
        cJSON_AddItemToObject(root, "run", summary_json_run(run));
    else
        cJSON_AddNullToObject(root, "run");

    o = cJSON_AddObjectToObject(root, "totals");
    cJSON_AddNumberToObject(o, "trials", (double)s->n_trials);
    cJSON_AddNumberToObject(o, "valid", (double)s->n_valid);
    cJSON_AddNumberToObject(o, "correct", (double)s->n_correct);
    if (s->n_valid)
        cJSON_AddNumberToObject(o, "accuracy", (double)s->n_correct / (double)s->n_valid);
    else
        cJSON_AddNullToObject(o, "accuracy");
    cJSON_AddNumberToObject(o, "coverage",
                            s->n_trials ? (double)s->n_valid / (double)s->n_trials : 0.0);
    cJSON_AddNumberToObject(o, "questions", (double)s->n_questions);
    cJSON_AddNumberToObject(o, "repeats", s->n_repeats);
    cJSON_AddItemToObject(o, "outcomes", outcomes_object(s->outcomes));
    cJSON_AddNumberToObject(o, "cut", (double)s->n_cut);
    cJSON_AddNumberToObject(o, "starved_reasoning_tokens", (double)s->starved_reasoning_tokens);

    arr = cJSON_AddArrayToObject(root, "warnings");
    {
        struct strvec w = STRVEC_INIT;
        stats_warnings(s, &w);
        for (i = 0; i < w.nr; i++)
            cJSON_AddItemToArray(arr, cJSON_CreateString(w.v[i]));
        strvec_clear(&w);
    }

    o = cJSON_AddObjectToObject(root, "controls");
    cJSON_AddItemToObject(o, "closed_book", control_object(&s->closed_book));
    cJSON_AddItemToObject(o, "oracle", control_object(&s->oracle));
    o = cJSON_AddObjectToObject(root, "question_set");
    cJSON_AddStringToObject(o, "kind", s->exclude_known ? "excluding_known" : "all");
    cJSON_AddNumberToObject(o, "questions", (double)s->n_questions);
    if (s->closed_book.present)
        cJSON_AddNumberToObject(o, "known", (double)s->n_known);
    else
        cJSON_AddNullToObject(o, "known");

    o = cJSON_AddObjectToObject(root, "bootstrap");
    cJSON_AddNumberToObject(o, "iterations", s->bootstrap_iters);
    cJSON_AddNumberToObject(o, "seed", (double)s->seed);
    cJSON_AddNumberToObject(o, "confidence", s->confidence);

    o = cJSON_AddObjectToObject(root, "effective_length");
    cJSON_AddStringToObject(o, "reference",
                            s->effective_from_oracle ? "oracle" : "shortest_length_edge");
    if (s->effective_defined) {
        cJSON_AddNumberToObject(o, "reference_accuracy", s->effective_reference);
        cJSON_AddNumberToObject(o, "threshold", s->effective_threshold);
    } else {
        cJSON_AddNullToObject(o, "reference_accuracy");
        cJSON_AddNullToObject(o, "threshold");
    }
    if (s->effective_length > 0)
        cJSON_AddNumberToObject(o, "length", (double)s->effective_length);
    else
        cJSON_AddNullToObject(o, "length");

    arr = cJSON_AddArrayToObject(root, "lengths");
    for (i = 0; i < s->n_lengths; i++)
        cJSON_AddItemToArray(arr, length_object(&s->lengths[i]));
    arr = cJSON_AddArrayToObject(root, "cells");
    for (i = 0; i < s->n_cells; i++)
        cJSON_AddItemToArray(arr, cell_object(&s->cells[i]));

    cJSON_AddItemToObject(root, "axes", axes_array(axes, n_axes, !os));

    o = cJSON_AddObjectToObject(root, "ordering_advice");
    {
        cJSON *rd = cJSON_AddObjectToObject(o, "rank_distribution");
        if (s->n_rank_probs) {
            cJSON_AddStringToObject(rd, "kind", "file");
            cJSON_AddNumberToObject(rd, "ranks", (double)s->n_rank_probs);
        } else {
            cJSON_AddStringToObject(rd, "kind", "geometric");
            cJSON_AddNumberToObject(rd, "p", s->geometric_p);
        }
    }
    arr = cJSON_AddArrayToObject(o, "entries");
    for (i = 0; i < s->n_advice; i++) {
        const struct ordering_advice *a = &s->advice[i];
        cJSON *e = cJSON_CreateObject(), *acc;
        cJSON_AddNumberToObject(e, "length", (double)a->length);
        cJSON_AddNumberToObject(e, "k", a->k);
        cJSON_AddNumberToObject(e, "retrieved", a->retrieved);
        acc = cJSON_AddObjectToObject(e, "accuracy");
        /* schema 2 named the second-last policy by its long name; "ascending" was added */
        for (k = 0; k < ORDER__COUNT; k++)
            cJSON_AddNumberToObject(acc,
                                    k == ORDER_BEST_2ND_LAST ? "best-first-second-last"
                                                             : ordering_name((enum ordering)k),
                                    a->accuracy[k]);
        cJSON_AddItemToArray(arr, e);
    }
    if (os)
        cJSON_AddItemToObject(root, "order", order_object(os, curve_run));
    if (s->cache.trials)
        cJSON_AddItemToObject(root, "prompt_cache", cache_object(&s->cache));

    text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text)
        return -1;
    strbuf_addstr(out, text);
    strbuf_addch(out, '\n');
    cJSON_free(text);
    return 0;
}

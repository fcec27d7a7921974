/*
 * Run reports: summary.md and a self-contained report.html (inline CSS and
 * SVG, no scripts, a Content-Security-Policy that forbids fetches), written
 * from one set of section builders so both always show the same numbers,
 * Every string that did not come from this file passes through escape_md()
 * or escape_html() in one place (report-int.h's document model,
 * report_markup.c). The plots of a run are report_plots.c, the compare
 * reports report_compare.c.
 */
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "stats/compare.h"
#include "base/escape.h"
#include "base/json.h"
#include "stats/order_stats.h"
#include "report/plot.h"
#include "stats/stats.h"
#include "stats/stats_axes.h"
#include "store/store.h"
#include "run/plan.h"
#include "report/report-int.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/unicode.h"
#include "base/version.h"
#include "base/xalloc.h"

#include "base/banned.h"

/* Model answers and questions longer than this are cut in the HTML list. */
#define TEXT_SHOW_MAX 1500

/* One published definition's value: "16k tokens", "none of the measured lengths", or why not. */
static void published_effective_value(struct strbuf *sb, const struct published_effective *e)
{
    if (e->length > 0) {
        plan_format_length(sb, e->length);
        strbuf_addstr(sb, " tokens");
    } else {
        strbuf_addstr(sb, "none of the measured lengths");
    }
}

/* The RULER and NoLiMa effective lengths (stats/effective_length.h), beside dipmap's own. */
static void published_effective_bullets(struct markup *d, const struct run_stats *s)
{
    struct strbuf sb = STRBUF_INIT;

    if (s->ruler.defined) {
        published_effective_value(&sb, &s->ruler);
        strbuf_addstr(&sb, " (RULER: the longest length whose accuracy over all depths is above ");
        report_pct(&sb, s->ruler.threshold);
        strbuf_addstr(&sb, fabs(s->ruler.threshold - EFFECTIVE_RULER_THRESHOLD) < 1e-9
                               ? ", Llama-2-7B's score at 4K"
                               : ", set by --ruler-threshold");
        strbuf_addch(&sb, ')');
        if (s->ruler.gaps)
            strbuf_addstr(&sb, "; a shorter length falls below it");
        report_bullet(d, "effective length, RULER", sb.buf);
    }
    strbuf_reset(&sb);
    if (s->nolima.defined) {
        published_effective_value(&sb, &s->nolima);
        strbuf_addstr(&sb, " (NoLiMa: the longest length keeping at least ");
        report_pct(&sb, s->nolima.threshold);
        strbuf_addf(&sb, ", %.0f%% of the base score ", s->nolima.fraction * 100.0);
        report_pct(&sb, s->nolima.base);
        strbuf_addf(&sb, ", the mean accuracy of the %zu length%s up to ", s->nolima.base_lengths,
                    s->nolima.base_lengths == 1 ? "" : "s");
        plan_format_length(&sb, s->nolima.base_longest);
        strbuf_addstr(&sb, " tokens)");
        if (s->nolima.gaps)
            strbuf_addstr(&sb, "; a shorter length falls below it");
        report_bullet(d, "effective length, NoLiMa", sb.buf);
    } else if (s->nolima.base_lengths) {
        report_bullet(d, "effective length, NoLiMa",
                      "undefined: the base score (accuracy on the shortest lengths) is 0.0%");
    }
    if (s->ruler.defined || s->nolima.defined || s->nolima.base_lengths)
        report_bullet(d, "which effective length",
                      "\"effective length\" is dipmap's own: every depth must hold the "
                      "threshold, so a dip in the middle shortens it; RULER's and NoLiMa's are "
                      "the published definitions, over the accuracy averaged across all depths, "
                      "so a dip lowers them less and they are usually the longer");
    strbuf_release(&sb);
}

/* ---- sections ---- */

static void control_text(struct strbuf *sb, const char *name, const struct control_stats *c)
{
    if (!c->present)
        return;
    strbuf_addf(sb, "%s ", name);
    if (!c->n_valid) {
        strbuf_addstr(sb, "no scored trials");
        return;
    }
    report_pct(sb, c->accuracy);
    strbuf_addstr(sb, " [");
    report_pct(sb, c->ci_lo);
    strbuf_addstr(sb, ", ");
    report_pct(sb, c->ci_hi);
    strbuf_addf(sb, "] (%ld of %ld, %zu questions)", c->n_correct, c->n_valid, c->n_questions);
}

/* "+12.0 pp [+8.1, +15.9] (edge 90.0%, middle 25-75% 78.0%; 40 questions)" */
static void dip_summary(struct strbuf *sb, const struct length_stats *l)
{
    report_pp(sb, l->dip.est);
    strbuf_addstr(sb, " [");
    report_pp(sb, l->dip.lo);
    strbuf_addstr(sb, ", ");
    report_pp(sb, l->dip.hi);
    strbuf_addstr(sb, "] (edge ");
    report_pct(sb, l->edge.est);
    strbuf_addstr(sb, ", middle 25-75% ");
    report_pct(sb, l->middle.est);
    strbuf_addf(sb, "; %zu questions)", l->n_questions);
}
static void section_summary(struct markup *d, const struct report_input *in)
{
    const struct run_info *r = in->run;
    const struct run_stats *s = in->stats;
    struct strbuf sb = STRBUF_INIT, sb2 = STRBUF_INIT;
    long mismatches = 0;
    size_t i;

    report_heading(d, 2, "Summary", "summary");
    report_bullets_begin(d);
    report_bullet(d, "model", report_or_dash(r->model_requested));
    if (r->model_served && r->model_requested && strcmp(r->model_served, r->model_requested))
        report_bullet(d, "model served", r->model_served);
    strbuf_addf(&sb, "%s", run_info_status_text(r));
    if (run_info_missing_shards(r, &sb2))
        strbuf_addf(&sb, ": shard %s missing (this store holds shards %s)", sb2.buf, r->shard);
    strbuf_addf(&sb, ", %ld of %ld planned trials finished", r->trials_done, run_info_planned(r));
    report_bullet(d, "status", sb.buf);

    strbuf_reset(&sb);
    if (s->n_valid > 0) {
        report_pct(&sb, s->accuracy);
        strbuf_addf(&sb, " (%ld correct of %ld scored trials; %ld trials in all, %zu questions)",
                    s->n_correct, s->n_valid, s->n_trials, s->n_questions);
    } else {
        strbuf_addf(&sb, "no scored trials (%ld trials in all)", s->n_trials);
    }
    report_bullet(d, "accuracy", sb.buf);

    for (i = 0; i < s->n_lengths; i++) {
        const struct length_stats *l = &s->lengths[i];
        if (!l->has_middle)
            continue;
        strbuf_reset(&sb);
        if (stats_dip_bound_text(l))
            strbuf_addstr(&sb, stats_dip_bound_text(l));
        else
            dip_summary(&sb, l);
        {
            struct strbuf lab = STRBUF_INIT;
            strbuf_addstr(&lab, "dip at ");
            plan_format_length(&lab, l->length);
            report_bullet(d, lab.buf, sb.buf);
            strbuf_release(&lab);
        }
    }

    if (s->closed_book.present || s->oracle.present) {
        strbuf_reset(&sb);
        control_text(&sb, "closed-book (no documents)", &s->closed_book);
        if (s->closed_book.present && s->oracle.present)
            strbuf_addstr(&sb, "; ");
        control_text(&sb, "oracle (the gold chunk alone)", &s->oracle);
        report_bullet(d, "controls", sb.buf);
    }
    strbuf_reset(&sb);
    if (s->exclude_known)
        strbuf_addf(&sb,
                    "%zu questions: the %zu answered correctly closed-book are left out "
                    "(--exclude-known) of every table below except the closed-book control",
                    s->n_questions, s->n_known);
    else if (s->closed_book.present)
        strbuf_addf(&sb,
                    "all %zu questions, %zu of them answered correctly closed-book "
                    "(--exclude-known leaves those out)",
                    s->n_questions, s->n_known);
    else
        strbuf_addf(&sb, "all %zu questions", s->n_questions);
    report_bullet(d, "question set", sb.buf);

    strbuf_reset(&sb);
    if (in->order) {
        /* an order experiment has no depth curve: no effective length */
    } else if (!s->effective_defined) {
        strbuf_addstr(&sb, "undefined: ");
        if (s->n_valid)
            strbuf_addstr(&sb, "the shortest length's edge accuracy is 0.0%, so there is no "
                               "accuracy to hold");
        else
            strbuf_addstr(&sb, "no scored trials");
    } else {
        if (s->effective_length > 0) {
            plan_format_length(&sb, s->effective_length);
            strbuf_addf(&sb, " tokens (dipmap's definition: the longest length where every depth "
                             "reaches ");
        } else {
            strbuf_addstr(&sb, "none of the measured lengths (dipmap's definition: no length "
                               "where every depth reaches ");
        }
        report_pct(&sb, s->effective_threshold);
        strbuf_addf(&sb, ", %.0f%% of the %s accuracy ",
                    s->effective_threshold / s->effective_reference * 100.0,
                    s->effective_from_oracle ? "oracle control's" : "shortest length's edge");
        report_pct(&sb, s->effective_reference);
        strbuf_addch(&sb, ')');
    }
    if (!in->order) {
        report_bullet(d, "effective length", sb.buf);
        published_effective_bullets(d, s);
    }

    for (i = 0; i < s->n_lengths; i++)
        mismatches += s->lengths[i].tokenizer_mismatches;
    strbuf_reset(&sb);
    if (mismatches)
        strbuf_addf(&sb,
                    "MISMATCH: %ld trials where the server counted the prompt differently "
                    "from the local tokenizer (see Tokenizer agreement)",
                    mismatches);
    else
        strbuf_addstr(&sb, "local counts agree with the server's usage (or it sent none)");
    report_bullet(d, "tokenizer", sb.buf);
    report_bullets_end(d);
    strbuf_release(&sb);
    strbuf_release(&sb2);
}

static void section_warnings(struct markup *d, const struct run_stats *s)
{
    struct strvec w = STRVEC_INIT;
    size_t i;
    stats_warnings(s, &w);
    if (w.nr) {
        report_heading(d, 2, "Warnings", "warnings");
        report_bullets_begin(d);
        for (i = 0; i < w.nr; i++)
            report_bullet(d, "warning", w.v[i]);
        report_bullets_end(d);
    }
    strvec_clear(&w);
}

static void section_plots(struct markup *d, const struct report_input *in)
{
    size_t i;

    report_heading(d, 2, "Plots", "plots");
    if (in->plots_note)
        report_para(d, in->plots_note);
    for (i = 0; i < in->n_plots; i++)
        report_figure(d, &in->plots[i]);
}

void report_figure(struct markup *d, const struct report_plot *p)
{
    if (d->html) {
        if (!p->svg)
            return;
        report_svg_figure(d, p->svg, p->title, NULL);
    } else {
        struct strbuf sb = STRBUF_INIT;
        if (!p->file)
            return;
        /* the file name is ours (ucurve.svg ...); the alt text is escaped */
        strbuf_addstr(d->out, "![");
        escape_md(d->out, p->title);
        strbuf_addstr(d->out, "](");
        escape_filename(&sb, p->file);
        strbuf_addstr(d->out, sb.buf);
        strbuf_addstr(d->out, ")\n\n");
        strbuf_release(&sb);
    }
}

static void interval_cell(struct markup *d, const struct estimate *e)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_addch(&sb, '[');
    report_pp(&sb, e->lo);
    strbuf_addstr(&sb, ", ");
    report_pp(&sb, e->hi);
    strbuf_addch(&sb, ']');
    report_cell(d, sb.buf);
    strbuf_release(&sb);
}

static void pp_cell(struct markup *d, double x)
{
    struct strbuf sb = STRBUF_INIT;
    report_pp(&sb, x);
    report_cell(d, sb.buf);
    strbuf_release(&sb);
}

static void section_dip(struct markup *d, const struct run_stats *s)
{
    static const char *const head[] = {
        "length",      "edge",         "edge interval", "middle 25-75%",      "dip", "dip interval",
        "worst depth", "worst middle", "dip_worst",     "dip_worst interval", "AUC", "questions",
    };
    size_t i;

    report_heading(d, 2, "Dip per length", "dip");
    report_para(
        d, "Edge = mean of the shallowest and deepest depth; middle = mean of the interior "
           "depths in 25-75%; dip = edge - middle (the primary figure), with a 95% bootstrap "
           "interval over questions (each resampled question brings all its depths and "
           "repeats). dip_worst = edge - the worst interior depth, secondary: the minimum of "
           "noisy cells reads larger than the true dip; its bootstrap re-selects the worst depth "
           "in every resample.");
    report_table_begin(d, "lrrrrrrrrrrr", head);
    for (i = 0; i < s->n_lengths; i++) {
        const struct length_stats *l = &s->lengths[i];
        report_row_begin(d, NULL);
        report_cell_length(d, l->length);
        report_cell_pct(d, l->n_depths ? l->edge.est : NAN);
        report_cell_interval(d, l->n_depths ? l->edge.lo : NAN, l->n_depths ? l->edge.hi : NAN);
        if (stats_dip_bound(l)) { /* 0% or 100% everywhere: no dip to measure */
            report_cell_pct(d, l->middle.est);
            report_cellf(d, "not measurable (%s)", stats_dip_bound(l));
            report_cell(d, "\xE2\x80\x93");
        } else if (l->has_middle) {
            report_cell_pct(d, l->middle.est);
            pp_cell(d, l->dip.est);
            interval_cell(d, &l->dip);
        } else {
            report_cell(d, "\xE2\x80\x93");
            report_cell(d, "\xE2\x80\x93");
            report_cell(d, "\xE2\x80\x93");
        }
        if (l->has_worst && !stats_dip_bound(l)) {
            report_cell_depth(d, l->middle_worst_depth_bp);
            report_cell_pct(d, l->middle_worst.est);
            pp_cell(d, l->dip_worst.est);
            interval_cell(d, &l->dip_worst);
        } else {
            report_cell(d, "\xE2\x80\x93");
            report_cell(d, "\xE2\x80\x93");
            report_cell(d, "\xE2\x80\x93");
            report_cell(d, "\xE2\x80\x93");
        }
        if (l->n_depths) /* summary.json's "auc" is null then too: no depth has data */
            report_cellf(d, "%.3f", l->auc);
        else
            report_cell(d, "n/a");
        report_cellf(d, "%zu", l->n_questions);
        report_row_end(d);
    }
    report_table_end(d);
}

/* Depth rows x length columns of accuracies: the table version of the heatmap. */
static void section_grid(struct markup *d, const struct run_stats *s)
{
    int *depths = NULL;
    size_t nd = 0, alloc = 0, i, j;
    struct strbuf align = STRBUF_INIT;
    const char **head;

    for (i = 0; i < s->n_cells; i++) {
        int dbp = s->cells[i].depth_bp;
        for (j = 0; j < nd && depths[j] != dbp; j++)
            ;
        if (j == nd) {
            ALLOC_GROW(depths, nd + 1, alloc);
            depths[nd++] = dbp;
        }
    }
    for (i = 1; i < nd; i++) /* insertion sort; a handful of depths */
        for (j = i; j > 0 && depths[j - 1] > depths[j]; j--) {
            int t = depths[j];
            depths[j] = depths[j - 1];
            depths[j - 1] = t;
        }
    head = xcalloc(s->n_lengths + 2, sizeof(*head));
    head[0] = "depth";
    strbuf_addch(&align, 'l');
    {
        struct strvec names = STRVEC_INIT;
        for (i = 0; i < s->n_lengths; i++) {
            struct strbuf sb = STRBUF_INIT;
            plan_format_length(&sb, s->lengths[i].length);
            strvec_push(&names, sb.buf);
            strbuf_release(&sb);
            strbuf_addch(&align, 'r');
        }
        for (i = 0; i < s->n_lengths; i++)
            head[i + 1] = names.v[i];
        report_heading(d, 2, "Accuracy by depth and length", "grid");
        report_table_begin(d, align.buf, head);
        for (j = 0; j < nd; j++) {
            report_row_begin(d, NULL);
            report_cell_depth(d, depths[j]);
            for (i = 0; i < s->n_lengths; i++) {
                const struct cell_stats *c = run_stats_cell(s, s->lengths[i].length, depths[j]);
                report_cell_pct(d, c && c->n_valid ? c->accuracy : NAN);
            }
            report_row_end(d);
        }
        report_table_end(d);
        strvec_clear(&names);
    }
    free(head);
    free(depths);
    strbuf_release(&align);
}

static void section_cells(struct markup *d, const struct report_input *in)
{
    static const char *const head[] = {
        "length",    "depth",         "accuracy", "95% interval",   "n (scored)", "correct",
        "questions", "design effect", "coverage", "realized depth", "outcomes",
    };
    const struct run_stats *s = in->stats;
    struct strbuf oc = STRBUF_INIT;
    size_t i;

    report_heading(d, 2, "Accuracy per cell", "cells");
    report_para(
        d, "95% interval: Wilson at the effective size n / design effect, clustered by question "
           "(a question's repeats are correlated; with one repeat it is the plain Wilson "
           "interval).");
    report_table_begin(d, "lrrrrrrrrrl", head);
    for (i = 0; i < s->n_cells; i++) {
        const struct cell_stats *c = &s->cells[i];
        report_row_begin(d, NULL);
        report_cell_length(d, c->length);
        report_cell_depth(d, c->depth_bp);
        report_cell_pct(d, c->n_valid ? c->accuracy : NAN);
        if (c->n_valid)
            report_cell_interval(d, c->ci_lo, c->ci_hi);
        else
            report_cell(d, "\xE2\x80\x93");
        report_cellf(d, "%ld", c->n_valid);
        report_cellf(d, "%ld", c->n_correct);
        report_cellf(d, "%zu", c->n_questions);
        if (c->n_valid)
            report_cellf(d, "%.2f", c->design_effect);
        else
            report_cell(d, "\xE2\x80\x93");
        report_cell_pct(d, c->n_trials ? c->coverage : NAN);
        if (c->mean_realized_depth >= 0)
            report_cell_pct(d, c->mean_realized_depth);
        else
            report_cell(d, "\xE2\x80\x93");
        strbuf_reset(&oc);
        report_cell_outcomes(in, c, &oc);
        report_cell(d, oc.buf);
        report_row_end(d);
    }
    report_table_end(d);
    strbuf_release(&oc);
}

static void section_coverage(struct markup *d, const struct run_stats *s)
{
    const char *head[3 + OUTCOME__COUNT];
    char align[4 + OUTCOME__COUNT];
    size_t i;
    int o, k = 2;

    head[0] = "length";
    head[1] = "depth";
    memcpy(align, "ll", 2);
    for (o = OUTCOME_CORRECT; o < OUTCOME__COUNT; o++, k++) {
        head[k] = outcome_name((enum trial_outcome)o);
        align[k] = 'r';
    }
    head[k] = outcome_name(OUTCOME_PENDING);
    align[k++] = 'r';
    head[k] = "cut";
    align[k++] = 'r';
    align[k] = '\0';

    report_heading(d, 2, "Coverage per outcome", "coverage");
    report_para(d,
                "Only correct and wrong enter accuracy; every other outcome is counted here, never "
                "as wrong. \"cut\" counts the correct and wrong answers that reached the answer "
                "budget (finish_reason length): they are scored on what they said. \"truncated\" "
                "is a prompt the server shortened; \"starved\" a trial whose answer budget went to "
                "reasoning.");
    if (s->outcomes[OUTCOME_STARVED]) {
        struct strbuf sb = STRBUF_INIT;
        strbuf_addf(&sb,
                    "%ld starved trial%s spent %ld reasoning tokens and gave no answer: raise "
                    "--max-tokens or lower --reasoning-effort.",
                    s->outcomes[OUTCOME_STARVED], s->outcomes[OUTCOME_STARVED] == 1 ? "" : "s",
                    s->starved_reasoning_tokens);
        report_para(d, sb.buf);
        strbuf_release(&sb);
    }
    report_table_begin(d, align, head);
    for (i = 0; i < s->n_cells; i++) {
        const struct cell_stats *c = &s->cells[i];
        report_row_begin(d, NULL);
        report_cell_length(d, c->length);
        report_cell_depth(d, c->depth_bp);
        for (o = OUTCOME_CORRECT; o < OUTCOME__COUNT; o++)
            report_cellf(d, "%ld", c->outcomes[o]);
        report_cellf(d, "%ld", c->outcomes[OUTCOME_PENDING]);
        report_cellf(d, "%ld", c->n_cut);
        report_row_end(d);
    }
    report_row_begin(d, "total");
    report_cell(d, "all");
    report_cell(d, "");
    for (o = OUTCOME_CORRECT; o < OUTCOME__COUNT; o++)
        report_cellf(d, "%ld", s->outcomes[o]);
    report_cellf(d, "%ld", s->outcomes[OUTCOME_PENDING]);
    report_cellf(d, "%ld", s->n_cut);
    report_row_end(d);
    report_table_end(d);
}

static void section_tokenizer(struct markup *d, const struct run_stats *s)
{
    static const char *const head[] = {
        "length",        "realized min",  "realized mean", "realized max", "with server usage",
        "usage / local", "max deviation", "mismatches",
    };
    size_t i;

    report_heading(d, 2, "Tokenizer agreement", "tokenizer");
    report_para(d, "Local token count of each prompt against the server's usage.prompt_tokens; a "
                   "deviation over 2% is a tokenizer mismatch (lengths and depths are then off).");
    report_table_begin(d, "lrrrrrrr", head);
    for (i = 0; i < s->n_lengths; i++) {
        const struct length_stats *l = &s->lengths[i];
        report_row_begin(d, l->tokenizer_mismatches ? "warn" : NULL);
        report_cell_length(d, l->length);
        if (l->n_realized) {
            report_cellf(d, "%ld", l->realized_min);
            report_cellf(d, "%.0f", l->realized_mean);
            report_cellf(d, "%ld", l->realized_max);
        } else {
            report_cell(d, "\xE2\x80\x93");
            report_cell(d, "\xE2\x80\x93");
            report_cell(d, "\xE2\x80\x93");
        }
        report_cellf(d, "%ld", l->n_usage);
        if (l->n_usage) {
            report_cellf(d, "%.4f", l->usage_ratio_mean);
            report_cell_pct(d, l->usage_ratio_max_dev);
        } else {
            report_cell(d, "\xE2\x80\x93");
            report_cell(d, "\xE2\x80\x93");
        }
        report_cellf(d, "%ld", l->tokenizer_mismatches);
        report_row_end(d);
    }
    report_table_end(d);
}

/* What the server's prefix cache reused (only when some trial reports it). */
static void section_cache(struct markup *d, const struct report_input *in)
{
    static const char *const head[] = {"", "tokens", "share of sent"};
    const struct cache_stats *c = &in->stats->cache;
    const char *sched = in->run->schedules;
    struct strbuf sb = STRBUF_INIT;
    double sent = c->sent > 0 ? (double)c->sent : 1.0;

    if (!c->trials)
        return;
    report_heading(d, 2, "Prompt cache", "cache");
    strbuf_addf(&sb,
                "What the server says it took from its prefix cache, over the %ld trial%s that "
                "report it (usage.prompt_tokens_details.cached_tokens%s). The run's schedule "
                "(run --schedule) decides how much of each group's shared prefix is still cached.",
                c->trials, c->trials == 1 ? "" : "s",
                c->from_timings ? ", else llama.cpp timings.cache_n" : "");
    report_para(d, sb.buf);
    strbuf_reset(&sb);
    if (!sched || !*sched)
        strbuf_addstr(&sb, "Schedule: not recorded (a run made before dipmap stored it).");
    else if (strchr(sched, ','))
        strbuf_addf(&sb,
                    "Schedules: %s (the run's invocations used different --schedule values; "
                    "the figures mix them).",
                    sched);
    else
        strbuf_addf(&sb, "Schedule: %s.", sched);
    report_para(d, sb.buf);
    report_table_begin(d, "lrr", head);
    report_row_begin(d, NULL);
    report_cell(d, "prompt tokens sent");
    report_cellf(d, "%ld", c->sent);
    report_cell_pct(d, 1.0);
    report_row_end(d);
    report_row_begin(d, NULL);
    report_cell(d, "from the server's cache");
    report_cellf(d, "%ld", c->cached);
    report_cell_pct(d, (double)c->cached / sent);
    report_row_end(d);
    report_row_begin(d, NULL);
    report_cell(d, "computed");
    report_cellf(d, "%ld", c->sent - c->cached);
    report_cell_pct(d, (double)(c->sent - c->cached) / sent);
    report_row_end(d);
    report_table_end(d);
    if (c->est_sent > 0) {
        strbuf_reset(&sb);
        strbuf_addf(&sb,
                    "Estimate, not a measurement: sending each group's deepest prompt first "
                    "(--schedule cache) to a server that keeps whole prefixes could reuse about "
                    "%.0f of %.0f target prompt tokens (%.1f%%) against none in a naive order.",
                    c->est_cached, c->est_sent, 100.0 * c->est_cached / c->est_sent);
        report_para(d, sb.buf);
    }
    strbuf_release(&sb);
}

static void section_advice(struct markup *d, const struct run_stats *s)
{
    const char *head[3 + ORDER__COUNT + 1];
    char align[4 + ORDER__COUNT + 1];
    size_t i;
    int o;

    if (!s->n_advice)
        return;
    head[0] = "length";
    head[1] = "k chunks";
    head[2] = "answer retrieved";
    memcpy(align, "lrr", 3);
    for (o = 0; o < ORDER__COUNT; o++) {
        head[3 + o] = ordering_name((enum ordering)o);
        align[3 + o] = 'r';
    }
    head[3 + ORDER__COUNT] = "best order";
    align[3 + ORDER__COUNT] = 'l';
    align[4 + ORDER__COUNT] = '\0';

    report_heading(d, 2, "Ordering advice", "advice");
    report_para(
        d, "Expected accuracy when k retrieved chunks are placed in each order, given the answer "
           "was retrieved, from this run's accuracy-by-depth curve and the retriever's rank "
           "distribution.");
    report_table_begin(d, align, head);
    for (i = 0; i < s->n_advice; i++) {
        const struct ordering_advice *a = &s->advice[i];
        int best = 0;
        report_row_begin(d, NULL);
        report_cell_length(d, a->length);
        report_cellf(d, "%d", a->k);
        report_cell_pct(d, a->retrieved);
        int tie = 1;
        for (o = 0; o < ORDER__COUNT; o++) {
            report_cell_pct(d, a->accuracy[o]);
            if (a->accuracy[o] > a->accuracy[best] + 1e-12)
                best = o;
            tie &= fabs(a->accuracy[o] - a->accuracy[0]) <= 1e-12;
        }
        /* every order the same (0% everywhere at the floor): no advice from a tie */
        report_cell(d, tie ? "none (every order ties)" : ordering_name((enum ordering)best));
        report_row_end(d);
    }
    report_table_end(d);
}

/* The order experiment's paired differences: each policy against the reference at the same k. */
static void order_diff_table(struct markup *d, const struct order_stats *os)
{
    static const char *const dhead[] = {
        "k", "policy", "against", "difference", "95% interval", "questions", "p", "p (Holm)", NULL};
    struct strbuf sb = STRBUF_INIT;
    size_t i;

    strbuf_addf(&sb,
                "Each policy against %s (rank order) at the same k: the mean per-question "
                "difference in accuracy (normal 95%% interval over questions) and compare's "
                "exact sign-flip test over questions, two-sided, Holm-adjusted over the table.",
                ordering_name(os->reference));
    report_para(d, sb.buf);
    report_table_begin(d, "rllrlrrr", dhead);
    for (i = 0; i < os->n_diffs; i++) {
        const struct order_diff *x = &os->diffs[i];
        struct strbuf v = STRBUF_INIT;
        report_row_begin(d, x->p_holm < 0.05 ? "sig" : NULL);
        report_cellf(d, "%d", x->k);
        report_cell(d, ordering_name(x->policy));
        report_cell(d, ordering_name(x->reference));
        report_pp(&v, x->diff);
        report_cell(d, v.buf);
        strbuf_reset(&v);
        if (isfinite(x->lo)) {
            strbuf_addch(&v, '[');
            report_pp(&v, x->lo);
            strbuf_addstr(&v, ", ");
            report_pp(&v, x->hi);
            strbuf_addch(&v, ']');
        }
        report_cell(d, v.len ? v.buf : "\xE2\x80\x93");
        report_cellf(d, "%zu", x->questions);
        report_cellf(d, "%.3g", x->p);
        report_cellf(d, "%.3g", x->p_holm);
        report_row_end(d);
        strbuf_release(&v);
    }
    report_table_end(d);
    strbuf_release(&sb);
}

/* The order experiment: the recommendation, the (policy, k) table and the paired differences. */
static void section_order(struct markup *d, const struct report_input *in)
{
    static const char *const head[] = {"policy",
                                       "k",
                                       "accuracy",
                                       "95% interval",
                                       "expected",
                                       "expected interval",
                                       "recall@k",
                                       "answer-present",
                                       "prompt tokens",
                                       "completion tokens",
                                       "cost per question",
                                       "scored",
                                       "not scored",
                                       NULL};
    const struct order_stats *os = in->order;
    struct strbuf sb = STRBUF_INIT;
    size_t i;

    report_heading(d, 2, "Ordering experiment", "order");
    if (os->bound)
        report_para(d, os->bound < 0
                           ? "No recommendation: every policy and k scored 0% (the accuracy "
                             "floor), so this run cannot tell the orders apart."
                           : "No recommendation: every policy and k scored 100% (the accuracy "
                             "ceiling), so this run cannot tell the orders apart.");
    order_recommendation(os, &sb);
    if (sb.len) {
        struct strbuf p = STRBUF_INIT;
        strbuf_addstr(&p, "Recommendation: ");
        strbuf_add(&p, sb.buf, sb.len);
        strbuf_addf(&p,
                    ". The cheapest (policy, k) within %.0f pp of the most accurate one; "
                    "measured on this model, not computed.",
                    100.0 * ORDER_MARGIN);
        report_para(d, p.buf);
        strbuf_release(&p);
    }
    strbuf_reset(&sb);
    strbuf_addf(
        &sb,
        "%zu questions. For each question and k the top k retrieved chunks, the same for "
        "every policy: only their order differs, so the policies are paired by question. "
        "Accuracy with question-clustered 95%% intervals; recall@k = the questions whose "
        "gold chunk was in the prompt; answer-present = the accuracy of those; not scored = "
        "trials that ended in another outcome (overflow, error...: never counted as "
        "wrong). ",
        os->n_questions);
    if (in->curve_run)
        strbuf_addf(&sb,
                    "Expected = computed from the depth run %s (same model, template and "
                    "tokenizer): its accuracy at each prompt's gold depth, at its length nearest "
                    "the prompt's tokens, 0 when the gold was not in the prompt; its interval "
                    "from the curve's own cell intervals.",
                    in->curve_run);
    else
        strbuf_addstr(&sb, "Expected: no depth run of this model, template and tokenizer in the "
                           "store (map its depth curve with dipmap run to see the computed "
                           "figure next to the measured one).");
    report_para(d, sb.buf);
    report_table_begin(d, "lrrlrlrrrrrrr", head);
    for (i = 0; i < os->n_policies * os->n_ks; i++) {
        const struct order_cell *c = &os->cells[i];
        report_row_begin(d, (int)i == os->recommended ? "best" : NULL);
        report_cell(d, ordering_name(c->policy));
        report_cellf(d, "%d", c->k);
        report_cell_pct(d, c->accuracy);
        report_cell_interval(d, c->lo, c->hi);
        report_cell_pct(d, c->expected);
        if (isfinite(c->expected_lo))
            report_cell_interval(d, c->expected_lo, c->expected_hi);
        else
            report_cell(d, "\xE2\x80\x93");
        report_cell_pct(d, c->recall);
        report_cell_pct(d, c->present_accuracy);
        report_cellf(d, "%.0f", c->prompt_tokens);
        report_cellf(d, "%.1f", c->completion_tokens);
        if (isfinite(c->cost))
            report_cellf(d, "$%.4f", c->cost);
        else
            report_cell(d, "\xE2\x80\x93");
        report_cellf(d, "%ld", c->valid);
        report_cellf(d, "%ld", c->trials - c->valid);
        report_row_end(d);
    }
    report_table_end(d);
    if (os->n_diffs)
        order_diff_table(d, os);
    strbuf_release(&sb);
}

static void kv_row(struct markup *d, const char *k, const char *v)
{
    report_row_begin(d, NULL);
    report_cell(d, k);
    report_cell(d, report_or_dash(v));
    report_row_end(d);
}

static void section_run(struct markup *d, const struct report_input *in)
{
    static const char *const head[] = {"field", "value"};
    static const char *const prov_head[] = {"input", "sha256"};
    static const char *const set_head[] = {"setting", "value"};
    const struct run_info *r = in->run;
    struct strbuf sb = STRBUF_INIT;
    struct json *settings = NULL;
    const struct json *it;

    report_heading(d, 2, "Run", "run");
    report_table_begin(d, "ll", head);
    kv_row(d, "run", r->name);
    kv_row(d, "model requested", r->model_requested);
    kv_row(d, "model served", r->model_served);
    kv_row(d, "endpoints", r->endpoints);
    kv_row(d, "system fingerprint", r->system_fingerprint);
    kv_row(d, "status", run_info_status_text(r));
    strbuf_addf(&sb, "%ld planned, %ld finished, %ld stored", run_info_planned(r), r->trials_done,
                r->trials_stored);
    kv_row(d, "trials", sb.buf);
    strbuf_reset(&sb);
    report_time(&sb, r->created_at);
    kv_row(d, "created", sb.buf);
    strbuf_reset(&sb);
    report_time(&sb, r->started_at);
    kv_row(d, "started", sb.buf);
    strbuf_reset(&sb);
    report_time(&sb, r->finished_at);
    kv_row(d, "finished", sb.buf);
    kv_row(d, "tags", r->tags);
    kv_row(d, "shard", r->shard);
    strbuf_reset(&sb);
    strbuf_addf(&sb, "%s%s%s%s", report_or_dash(r->dipmap_version),
                r->dipmap_commit ? " (commit " : "", r->dipmap_commit ? r->dipmap_commit : "",
                r->dipmap_commit ? ")" : "");
    kv_row(d, "dipmap", sb.buf);
    report_table_end(d);

    report_heading(d, 3, "Provenance", "provenance");
    report_table_begin(d, "ll", prov_head);
    kv_row(d, "golden set", r->golden_sha256);
    kv_row(d, "haystack", r->haystack_sha256);
    kv_row(d, "template", r->template_sha256);
    strbuf_reset(&sb);
    strbuf_addf(&sb, "tokenizer (%s)", report_or_dash(r->tokenizer_name));
    kv_row(d, sb.buf, r->tokenizer_sha256);
    report_table_end(d);
    if (in->hygiene_note)
        report_para(d, in->hygiene_note);

    settings = json_parse_str(r->settings_json);
    report_heading(d, 3, "Settings", "settings");
    report_table_begin(d, "ll", set_head);
    if (json_kind(settings) == JSON_OBJECT) {
        for (it = json_first(settings); it; it = json_next(it)) {
            char *v = json_str(it) ? NULL : json_print_str(it, 0);
            kv_row(d, json_key(it), json_str(it) ? json_str(it) : v);
            free(v);
        }
    } else {
        kv_row(d, "settings", r->settings_json);
    }
    report_table_end(d);
    json_free(settings);
    strbuf_release(&sb);
}

/* Cut s at most max bytes on a UTF-8 boundary, with an ellipsis when cut. */
static void shown_text(struct strbuf *out, const char *s)
{
    size_t n;
    if (!s)
        return;
    n = strlen(s);
    if (n <= TEXT_SHOW_MAX) {
        strbuf_add(out, s, n);
        return;
    }
    n = utf8_char_start(s, TEXT_SHOW_MAX);
    strbuf_add(out, s, n);
    strbuf_addf(out, " \xE2\x80\xA6 (%zu bytes more)", strlen(s) - n);
}

static void section_failures(struct markup *d, const struct report_input *in)
{
    static const char *const head[] = {
        "question id", "question", "expected",       "model answer",
        "outcome",     "repeat",   "realized depth",
    };
    size_t i = 0;

    report_heading(d, 2, "Failed trials at the worst depths", "failures");
    if (in->golden_path) {
        struct strbuf sb = STRBUF_INIT;
        strbuf_addf(&sb, "Questions from %s.", in->golden_path);
        report_para(d, sb.buf);
        strbuf_release(&sb);
    }
    if (in->golden_note)
        report_para(d, in->golden_note);
    if (!in->n_failures) {
        report_para(d, "No failed trials at the worst depths.");
        return;
    }
    while (i < in->n_failures) {
        const struct trial_result *t0 = in->failures[i].trial;
        const struct cell_stats *c = run_stats_cell(in->stats, t0->length, t0->depth_bp);
        size_t j = i, k;
        struct strbuf sb = STRBUF_INIT;

        while (j < in->n_failures && in->failures[j].trial->length == t0->length &&
               in->failures[j].trial->depth_bp == t0->depth_bp)
            j++;
        plan_format_length(&sb, t0->length);
        strbuf_addstr(&sb, " tokens, depth ");
        plan_format_depth(&sb, t0->depth_bp);
        if (c && c->n_valid) {
            strbuf_addstr(&sb, " (accuracy ");
            report_pct(&sb, c->accuracy);
            strbuf_addch(&sb, ')');
        }
        if (c && c->n_trials - c->n_correct > (long)(j - i))
            strbuf_addf(&sb, ": %zu of %ld failed trials shown", j - i, c->n_trials - c->n_correct);
        else
            strbuf_addf(&sb, ": %zu failed trial%s shown", j - i, j - i == 1 ? "" : "s");
        report_open(d, "details", NULL);
        report_element(d, "summary", NULL, sb.buf);
        report_nl(d);
        report_table_begin(d, "lllllrr", head);
        for (k = i; k < j; k++) {
            const struct report_failure *f = &in->failures[k];
            const struct trial_result *t = f->trial;
            size_t a;
            report_row_begin(d, NULL);
            report_cell(d, report_or_dash(t->question_id));
            strbuf_reset(&sb);
            shown_text(&sb, f->question);
            report_cell(d, f->question ? sb.buf : "(not available)");
            strbuf_reset(&sb);
            for (a = 0; a < f->n_answers; a++) {
                if (a)
                    strbuf_addstr(&sb, " | ");
                shown_text(&sb, f->answers[a]);
            }
            report_cell(d, f->n_answers ? sb.buf : "(not available)");
            strbuf_reset(&sb);
            shown_text(&sb, t->answer);
            if (t->error && *t->error) {
                strbuf_addstr(&sb, sb.len ? " [" : "[");
                shown_text(&sb, t->error);
                strbuf_addch(&sb, ']');
            }
            report_cell(d, sb.len ? sb.buf : "(no answer)");
            report_cell(d, outcome_name(t->outcome));
            report_cellf(d, "%d", t->repeat);
            report_cell_pct(d, t->facts.realized_length > 0 ? t->facts.realized_depth : NAN);
            report_row_end(d);
        }
        report_table_end(d);
        report_close(d, "details");
        report_nl(d);
        strbuf_release(&sb);
        i = j;
    }
}

static void title_text(struct strbuf *sb, const struct report_input *in)
{
    strbuf_addstr(sb, "dipmap report: ");
    strbuf_addstr(sb, report_or_dash(in->run->name));
    strbuf_addstr(sb, " (");
    strbuf_addstr(sb, report_or_dash(in->run->model_requested));
    strbuf_addch(sb, ')');
}

static void footer(struct markup *d, const struct report_input *in)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "Generated by dipmap %s (%s)", dipmap_version, dipmap_commit);
    if (in->generated_at > 0) {
        strbuf_addstr(&sb, " at ");
        report_time(&sb, in->generated_at);
    }
    strbuf_addch(&sb, '.');
    report_footer(d, sb.buf);
    strbuf_release(&sb);
}

static void write_sections(struct markup *d, const struct report_input *in)
{
    section_summary(d, in);
    section_warnings(d, in->stats);
    section_plots(d, in);
    if (in->order) {
        section_order(d, in);
        report_section_axes(d, in);
        section_run(d, in);
        footer(d, in);
        return;
    }
    section_dip(d, in->stats);
    section_grid(d, in->stats);
    report_section_axes(d, in);
    report_section_hops(d, in);
    report_section_absent(d, in);
    report_section_ordinal(d, in);
    report_section_decomp(d, in);
    section_cells(d, in);
    report_section_questions(d, in);
    section_coverage(d, in->stats);
    section_tokenizer(d, in->stats);
    section_cache(d, in);
    section_advice(d, in->stats);
    if (d->html)
        section_failures(d, in);
    section_run(d, in);
    footer(d, in);
}

void report_markdown(struct strbuf *out, const struct report_input *in)
{
    struct markup d = report_markup_md(out);
    struct strbuf sb = STRBUF_INIT;

    title_text(&sb, in);
    strbuf_addstr(out, "# ");
    escape_md(out, sb.buf);
    strbuf_addch(out, '\n');
    strbuf_release(&sb);
    write_sections(&d, in);
}

const char *report_css(void)
{
    return "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0 auto;"
           "max-width:1180px;padding:1rem 1.5rem;color:#222;line-height:1.45}\n"
           "h1{font-size:1.5rem;border-bottom:2px solid #0072B2;padding-bottom:.3rem}\n"
           "h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ddd}\n"
           "h3{font-size:1rem}\n"
           "table{border-collapse:collapse;margin:.5rem 0;font-size:.9rem}\n"
           "th,td{border:1px solid #ccc;padding:.25rem .5rem;vertical-align:top;text-align:left}\n"
           "th{background:#f3f6f9}\n"
           "td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}\n"
           /* numbers never break; headers do, so no table is wider than the page at 1280 px */
           "td.num{white-space:nowrap}\nth{white-space:normal}\n"
           "td.iv{white-space:normal}\ntd.iv span{white-space:nowrap}\n"
           "tr.warn td{background:#fff3cd}\n"
           "tr.total td{font-weight:bold}\n"
           "tr.regression td{background:#f8d7da}\n"
           "td{overflow-wrap:anywhere;max-width:28rem}\n"
           "td:first-child{white-space:nowrap}\n"
           ".scroll{overflow-x:auto}\n"
           "figure{margin:1rem 0}\n"
           "figure svg{max-width:100%;height:auto}\n"
           "figcaption{font-size:.85rem;color:#555}\n"
           "details{margin:.5rem 0}\nsummary{cursor:pointer;font-weight:600}\n"
           ".verdict{font-size:1.1rem;font-weight:bold;padding:.5rem;border-radius:4px}\n"
           ".verdict.fail{background:#f8d7da}.verdict.pass{background:#d4edda}"
           ".verdict.inconclusive{background:#fff3cd}\n"
           "footer{margin-top:2rem;font-size:.8rem;color:#666}\n"
           /* question x depth matrices and trial details (report_questions.c) */
           "table.qm{font-size:.8rem}\ntable.qm td{padding:.1rem .3rem;text-align:center;"
           "white-space:nowrap;max-width:none}\n"
           "table.qm th[scope=row]{max-width:14rem;overflow:hidden;text-overflow:ellipsis;"
           "white-space:nowrap;font-weight:normal;background:#fff}\n"
           "table.qm td a{text-decoration:none;color:inherit;padding:0 .1rem}\n"
           "button.sort{font:inherit;font-weight:600;border:0;background:none;cursor:pointer;"
           "padding:0}\n"
           ".o-c{background:#d4edda}.o-w{background:#f8d7da}.o-d{background:#f0a98f}"
           ".o-x{background:#fff3cd}.o-p{background:#e9ecef}\n"
           "details.trial{margin:.15rem 0;font-size:.85rem}\n"
           "details.trial:target{outline:2px solid #0072B2}\n"
           "details.trial dl{display:grid;grid-template-columns:11rem 1fr;gap:.1rem .8rem;"
           "margin:.3rem 0 .6rem 1rem}\n"
           "details.trial dd{margin:0;overflow-wrap:anywhere}\n"
           /* compare.html: the change heatmap (report_flips.c), red drops to blue gains */
           ".chg-n3{background:#b2182b;color:#fff}.chg-n2{background:#ef8a62}"
           ".chg-n1{background:#fddbc7}.chg-0{background:#f7f7f7}.chg-p1{background:#d1e5f0}"
           ".chg-p2{background:#67a9cf}.chg-p3{background:#2166ac;color:#fff}"
           ".chg-na{background:#fff}\np.legend span{padding:0 .3rem}\n"
           "pre.prompt{white-space:pre-wrap;overflow-wrap:anywhere;max-height:28rem;"
           "overflow-y:auto;font-size:.8rem;background:#f7f7f7;padding:.5rem;margin:0}\n";
}

void report_html(struct strbuf *out, const struct report_input *in)
{
    struct markup d = report_markup_html(out);
    struct strbuf sb = STRBUF_INIT;

    title_text(&sb, in);
    report_html_page_head(&d, sb.buf, 1);
    strbuf_release(&sb);
    write_sections(&d, in);
    report_script(&d);
    report_page_end(&d);
}

/* ---- failure selection ---- */

static int cmp_trial_ptr(const void *a, const void *b)
{
    const struct trial_result *x = *(const struct trial_result *const *)a;
    const struct trial_result *y = *(const struct trial_result *const *)b;
    int c;

    if (x->length != y->length)
        return x->length < y->length ? -1 : 1;
    if (x->depth_bp != y->depth_bp)
        return x->depth_bp < y->depth_bp ? -1 : 1;
    c = strcmp(x->question_id ? x->question_id : "", y->question_id ? y->question_id : "");
    if (c)
        return c;
    return x->repeat < y->repeat ? -1 : x->repeat > y->repeat;
}

/* 1 when cell a is worse than cell b (lower accuracy; interior first on ties). */
static int worse(const struct cell_stats *a, const struct cell_stats *b, int lo_bp, int hi_bp)
{
    int a_in = a->depth_bp != lo_bp && a->depth_bp != hi_bp;
    int b_in = b->depth_bp != lo_bp && b->depth_bp != hi_bp;
    if (a->accuracy != b->accuracy)
        return a->accuracy < b->accuracy;
    return a_in > b_in;
}

size_t report_pick_failures(const struct trial_result *trials, size_t n, const struct run_stats *s,
                            int depths, size_t per_length, const struct trial_result ***out)
{
    const struct trial_result **v = NULL;
    size_t nr = 0, alloc = 0, li, i;

    *out = NULL;
    for (li = 0; li < s->n_lengths; li++) {
        const struct length_stats *l = &s->lengths[li];
        const struct cell_stats **worst =
            xcalloc((size_t)(depths > 0 ? depths : 1) + 1, sizeof(*worst));
        int nw = 0, w;
        size_t taken = 0;

        /* the `depths` worst cells with scored trials, kept sorted */
        for (i = 0; i < l->n_cells; i++) {
            const struct cell_stats *c = &s->cells[l->first_cell + i];
            int pos;
            if (!c->n_valid)
                continue;
            for (pos = nw;
                 pos > 0 && worse(c, worst[pos - 1], l->edge_lo_depth_bp, l->edge_hi_depth_bp);
                 pos--)
                ;
            if (pos >= depths)
                continue;
            for (w = nw < depths ? nw : depths - 1; w > pos; w--)
                worst[w] = worst[w - 1];
            worst[pos] = c;
            if (nw < depths)
                nw++;
        }
        for (w = 0; w < nw; w++)
            for (i = 0; i < n && taken < per_length; i++) {
                const struct trial_result *t = &trials[i];
                if (t->length != l->length || t->depth_bp != worst[w]->depth_bp)
                    continue;
                if (t->outcome == OUTCOME_CORRECT || t->outcome == OUTCOME_PENDING)
                    continue;
                ALLOC_GROW(v, nr + 1, alloc);
                v[nr++] = t;
                taken++;
            }
        free(worst);
    }
    if (nr)
        qsort(v, nr, sizeof(*v), cmp_trial_ptr);
    *out = v;
    return nr;
}

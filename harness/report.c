/*
 * Run reports: summary.md and a self-contained report.html (inline CSS and
 * SVG, no scripts, a Content-Security-Policy that forbids fetches), written
 * from one set of section builders so both always show the same numbers.
 * Every string that did not come from this file passes through escape_md()
 * or escape_html() in one place (table cells and paragraphs).
 */
#include "report.h"

#include <cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "compare.h"
#include "escape.h"
#include "plot.h"
#include "stats.h"
#include "store.h"
#include "strbuf.h"
#include "strvec.h"
#include "version.h"
#include "xalloc.h"

#include "banned.h"

/* Model answers and questions longer than this are cut in the HTML list. */
#define TEXT_SHOW_MAX 1500

/* ---- formatting helpers ---- */

void report_pct(struct strbuf *out, double frac)
{
    if (!isfinite(frac))
        strbuf_addstr(out, "\xE2\x80\x93");
    else
        strbuf_addf(out, "%.1f%%", frac * 100.0);
}

void report_pp(struct strbuf *out, double frac)
{
    if (!isfinite(frac))
        strbuf_addstr(out, "\xE2\x80\x93");
    else
        /* no "-0.0 pp" for a tiny negative */
        strbuf_addf(out, "%+.1f pp", fabs(frac) < 0.0005 ? 0.0 : frac * 100.0);
}

void report_length(struct strbuf *out, long tokens)
{
    if (tokens >= 1024 && tokens % 1024 == 0)
        strbuf_addf(out, "%ldk", tokens / 1024);
    else
        strbuf_addf(out, "%ld", tokens);
}

void report_time(struct strbuf *out, double t)
{
    time_t tt = (time_t)t;
    struct tm tm;
    char buf[64];

    if (t <= 0 || !gmtime_r(&tt, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S UTC", &tm))
        strbuf_addstr(out, "\xE2\x80\x93");
    else
        strbuf_addstr(out, buf);
}

static void add_interval(struct strbuf *out, double lo, double hi)
{
    strbuf_addch(out, '[');
    report_pct(out, lo);
    strbuf_addstr(out, ", ");
    report_pct(out, hi);
    strbuf_addch(out, ']');
}

static void add_depth(struct strbuf *out, int depth_bp)
{
    if (depth_bp % 100 == 0)
        strbuf_addf(out, "%d%%", depth_bp / 100);
    else
        strbuf_addf(out, "%.2f%%", depth_bp / 100.0);
}

/* ---- a tiny document model: every piece of text is escaped here ---- */

struct doc {
    struct strbuf *out;
    int html;
    const char *align; /* per column 'l' or 'r' for the current table */
    int col;
};

static void heading(struct doc *d, int level, const char *title, const char *id)
{
    if (d->html) {
        strbuf_addf(d->out, "<h%d", level);
        if (id)
            strbuf_addf(d->out, " id=\"%s\"", id); /* ids are constants from this file */
        strbuf_addch(d->out, '>');
        escape_html(d->out, title);
        strbuf_addf(d->out, "</h%d>\n", level);
    } else {
        strbuf_addf(d->out, "\n%.*s ", level, "######");
        escape_md(d->out, title);
        strbuf_addstr(d->out, "\n\n");
    }
}

static void para(struct doc *d, const char *s)
{
    if (d->html) {
        strbuf_addstr(d->out, "<p>");
        escape_html(d->out, s);
        strbuf_addstr(d->out, "</p>\n");
    } else {
        escape_md(d->out, s);
        strbuf_addstr(d->out, "\n\n");
    }
}

static void bullets_begin(struct doc *d)
{
    if (d->html)
        strbuf_addstr(d->out, "<ul>\n");
}

/* One bullet "label: value" with the label in bold. */
static void bullet(struct doc *d, const char *label, const char *value)
{
    if (d->html) {
        strbuf_addstr(d->out, "<li><b>");
        escape_html(d->out, label);
        strbuf_addstr(d->out, ":</b> ");
        escape_html(d->out, value);
        strbuf_addstr(d->out, "</li>\n");
    } else {
        strbuf_addstr(d->out, "- **");
        escape_md(d->out, label);
        strbuf_addstr(d->out, ":** ");
        escape_md(d->out, value);
        strbuf_addch(d->out, '\n');
    }
}

static void bullets_end(struct doc *d)
{
    strbuf_addstr(d->out, d->html ? "</ul>\n" : "\n");
}

static void table_begin(struct doc *d, const char *align, const char *const *head)
{
    size_t i, n = strlen(align);

    d->align = align;
    if (d->html) {
        strbuf_addstr(d->out, "<div class=\"scroll\"><table>\n<thead><tr>");
        for (i = 0; i < n; i++) {
            strbuf_addstr(d->out, align[i] == 'r' ? "<th class=\"num\">" : "<th>");
            escape_html(d->out, head[i]);
            strbuf_addstr(d->out, "</th>");
        }
        strbuf_addstr(d->out, "</tr></thead>\n<tbody>\n");
    } else {
        strbuf_addch(d->out, '|');
        for (i = 0; i < n; i++) {
            strbuf_addch(d->out, ' ');
            escape_md(d->out, head[i]);
            strbuf_addstr(d->out, " |");
        }
        strbuf_addstr(d->out, "\n|");
        for (i = 0; i < n; i++)
            strbuf_addstr(d->out, align[i] == 'r' ? "---:|" : "---|");
        strbuf_addch(d->out, '\n');
    }
}

static void row_begin(struct doc *d, const char *cls)
{
    d->col = 0;
    if (d->html) {
        if (cls)
            strbuf_addf(d->out, "<tr class=\"%s\">", cls);
        else
            strbuf_addstr(d->out, "<tr>");
    } else {
        strbuf_addch(d->out, '|');
    }
}

static void cell(struct doc *d, const char *s)
{
    int right = d->align && d->align[d->col] == 'r';
    if (d->html) {
        strbuf_addstr(d->out, right ? "<td class=\"num\">" : "<td>");
        escape_html(d->out, s);
        strbuf_addstr(d->out, "</td>");
    } else {
        strbuf_addch(d->out, ' ');
        escape_md(d->out, s);
        strbuf_addstr(d->out, " |");
    }
    if (d->align && d->align[d->col + 1])
        d->col++;
}

/* A cell built in a scratch buffer (numbers and escaped text alike). */
static void cellf(struct doc *d, const char *fmt, ...) DM_PRINTF(2, 3);
static void cellf(struct doc *d, const char *fmt, ...)
{
    struct strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    cell(d, sb.buf);
    strbuf_release(&sb);
}

static void row_end(struct doc *d)
{
    strbuf_addstr(d->out, d->html ? "</tr>\n" : "\n");
}

static void table_end(struct doc *d)
{
    strbuf_addstr(d->out, d->html ? "</tbody></table></div>\n" : "\n");
    d->align = NULL;
}

/* Cell helpers on a scratch strbuf. */
static void cell_pct(struct doc *d, double v)
{
    struct strbuf sb = STRBUF_INIT;
    report_pct(&sb, v);
    cell(d, sb.buf);
    strbuf_release(&sb);
}

static void cell_interval(struct doc *d, double lo, double hi)
{
    struct strbuf sb = STRBUF_INIT;
    add_interval(&sb, lo, hi);
    cell(d, sb.buf);
    strbuf_release(&sb);
}

static void cell_length(struct doc *d, long len)
{
    struct strbuf sb = STRBUF_INIT;
    report_length(&sb, len);
    if (len >= 1024 && len % 1024 == 0)
        strbuf_addf(&sb, " (%ld)", len);
    cell(d, sb.buf);
    strbuf_release(&sb);
}

static void cell_depth(struct doc *d, int depth_bp)
{
    struct strbuf sb = STRBUF_INIT;
    add_depth(&sb, depth_bp);
    cell(d, sb.buf);
    strbuf_release(&sb);
}

static const char *or_dash(const char *s)
{
    return s && *s ? s : "\xE2\x80\x93";
}

/* ---- sections ---- */

static void section_summary(struct doc *d, const struct report_input *in)
{
    const struct run_info *r = in->run;
    const struct run_stats *s = in->stats;
    struct strbuf sb = STRBUF_INIT;
    long mismatches = 0;
    size_t i;

    heading(d, 2, "Summary", "summary");
    bullets_begin(d);
    bullet(d, "model", or_dash(r->model_requested));
    if (r->model_served && r->model_requested && strcmp(r->model_served, r->model_requested))
        bullet(d, "model served", r->model_served);
    strbuf_addf(&sb, "%s, %ld of %ld planned trials finished", run_status_name(r->status),
                r->trials_done, r->trials_planned);
    bullet(d, "status", sb.buf);

    strbuf_reset(&sb);
    if (s->n_valid > 0) {
        report_pct(&sb, (double)s->n_correct / (double)s->n_valid);
        strbuf_addf(&sb, " (%ld correct of %ld scored trials; %ld trials in all, %zu questions)",
                    s->n_correct, s->n_valid, s->n_trials, s->n_questions);
    } else {
        strbuf_addf(&sb, "no scored trials (%ld trials in all)", s->n_trials);
    }
    bullet(d, "accuracy", sb.buf);

    for (i = 0; i < s->n_lengths; i++) {
        const struct length_stats *l = &s->lengths[i];
        if (!l->has_middle)
            continue;
        strbuf_reset(&sb);
        report_pp(&sb, l->dip.est);
        strbuf_addstr(&sb, " [");
        report_pp(&sb, l->dip.lo);
        strbuf_addstr(&sb, ", ");
        report_pp(&sb, l->dip.hi);
        strbuf_addch(&sb, ']');
        strbuf_addstr(&sb, " (edge ");
        report_pct(&sb, l->edge.est);
        strbuf_addstr(&sb, ", worst middle ");
        report_pct(&sb, l->middle_worst.est);
        strbuf_addstr(&sb, " at ");
        add_depth(&sb, l->middle_worst_depth_bp);
        strbuf_addch(&sb, ')');
        {
            struct strbuf lab = STRBUF_INIT;
            strbuf_addstr(&lab, "dip at ");
            report_length(&lab, l->length);
            bullet(d, lab.buf, sb.buf);
            strbuf_release(&lab);
        }
    }

    strbuf_reset(&sb);
    if (s->effective_length > 0) {
        report_length(&sb, s->effective_length);
        strbuf_addf(&sb, " tokens (longest length where every depth reaches ");
    } else {
        strbuf_addstr(&sb, "none of the measured lengths (no length where every depth reaches ");
    }
    report_pct(&sb, s->effective_threshold);
    strbuf_addch(&sb, ')');
    bullet(d, "effective length", sb.buf);

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
    bullet(d, "tokenizer", sb.buf);
    bullets_end(d);
    strbuf_release(&sb);
}

static void section_plots(struct doc *d, const struct report_input *in)
{
    size_t i;

    heading(d, 2, "Plots", "plots");
    if (in->plots_note)
        para(d, in->plots_note);
    for (i = 0; i < in->n_plots; i++) {
        const struct report_plot *p = &in->plots[i];
        if (d->html) {
            if (!p->svg)
                continue;
            strbuf_addstr(d->out, "<figure>");
            if (plot_svg_element(d->out, p->svg) < 0)
                strbuf_addstr(d->out, "<p>(plot unavailable)</p>");
            strbuf_addstr(d->out, "<figcaption>");
            escape_html(d->out, p->title);
            strbuf_addstr(d->out, "</figcaption></figure>\n");
        } else {
            struct strbuf sb = STRBUF_INIT;
            if (!p->file)
                continue;
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
}

static void section_dip(struct doc *d, const struct run_stats *s)
{
    static const char *const head[] = {
        "length",       "edge",          "edge interval", "worst depth", "middle",    "dip",
        "dip interval", "middle 25-75%", "dip vs 25-75%", "AUC",         "questions",
    };
    size_t i;

    heading(d, 2, "Dip per length", "dip");
    para(d, "Edge = mean of the shallowest and deepest depth; middle = the worst interior depth; "
            "dip = edge - middle, with a bootstrap interval over questions.");
    table_begin(d, "lrrrrrrrrrr", head);
    for (i = 0; i < s->n_lengths; i++) {
        const struct length_stats *l = &s->lengths[i];
        row_begin(d, NULL);
        cell_length(d, l->length);
        cell_pct(d, l->n_depths ? l->edge.est : NAN);
        cell_interval(d, l->n_depths ? l->edge.lo : NAN, l->n_depths ? l->edge.hi : NAN);
        if (l->has_middle) {
            cell_depth(d, l->middle_worst_depth_bp);
            cell_pct(d, l->middle_worst.est);
            {
                struct strbuf sb = STRBUF_INIT;
                report_pp(&sb, l->dip.est);
                cell(d, sb.buf);
                strbuf_reset(&sb);
                strbuf_addch(&sb, '[');
                report_pp(&sb, l->dip.lo);
                strbuf_addstr(&sb, ", ");
                report_pp(&sb, l->dip.hi);
                strbuf_addch(&sb, ']');
                cell(d, sb.buf);
                strbuf_release(&sb);
            }
        } else {
            cell(d, "\xE2\x80\x93");
            cell(d, "\xE2\x80\x93");
            cell(d, "\xE2\x80\x93");
            cell(d, "\xE2\x80\x93");
        }
        if (l->has_middle_mean) {
            struct strbuf sb = STRBUF_INIT;
            cell_pct(d, l->middle_mean.est);
            report_pp(&sb, l->dip_mean.est);
            cell(d, sb.buf);
            strbuf_release(&sb);
        } else {
            cell(d, "\xE2\x80\x93");
            cell(d, "\xE2\x80\x93");
        }
        cellf(d, "%.3f", l->auc);
        cellf(d, "%zu", l->n_questions);
        row_end(d);
    }
    table_end(d);
}

/* Depth rows x length columns of accuracies: the table version of the heatmap. */
static void section_grid(struct doc *d, const struct run_stats *s)
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
            report_length(&sb, s->lengths[i].length);
            strvec_push(&names, sb.buf);
            strbuf_release(&sb);
            strbuf_addch(&align, 'r');
        }
        for (i = 0; i < s->n_lengths; i++)
            head[i + 1] = names.v[i];
        heading(d, 2, "Accuracy by depth and length", "grid");
        table_begin(d, align.buf, head);
        for (j = 0; j < nd; j++) {
            row_begin(d, NULL);
            cell_depth(d, depths[j]);
            for (i = 0; i < s->n_lengths; i++) {
                const struct cell_stats *c = run_stats_cell(s, s->lengths[i].length, depths[j]);
                cell_pct(d, c && c->n_valid ? c->accuracy : NAN);
            }
            row_end(d);
        }
        table_end(d);
        strvec_clear(&names);
    }
    free(head);
    free(depths);
    strbuf_release(&align);
}

static void section_cells(struct doc *d, const struct run_stats *s)
{
    static const char *const head[] = {
        "length",     "depth",   "accuracy", "95% Wilson interval",
        "n (scored)", "correct", "coverage", "realized depth",
    };
    size_t i;

    heading(d, 2, "Accuracy per cell", "cells");
    table_begin(d, "lrrrrrrr", head);
    for (i = 0; i < s->n_cells; i++) {
        const struct cell_stats *c = &s->cells[i];
        row_begin(d, NULL);
        cell_length(d, c->length);
        cell_depth(d, c->depth_bp);
        cell_pct(d, c->n_valid ? c->accuracy : NAN);
        if (c->n_valid)
            cell_interval(d, c->wilson_lo, c->wilson_hi);
        else
            cell(d, "\xE2\x80\x93");
        cellf(d, "%ld", c->n_valid);
        cellf(d, "%ld", c->n_correct);
        cell_pct(d, c->n_trials ? c->coverage : NAN);
        if (c->mean_realized_depth >= 0)
            cell_pct(d, c->mean_realized_depth);
        else
            cell(d, "\xE2\x80\x93");
        row_end(d);
    }
    table_end(d);
}

static void section_coverage(struct doc *d, const struct run_stats *s)
{
    const char *head[2 + OUTCOME__COUNT];
    char align[3 + OUTCOME__COUNT];
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
    align[k] = '\0';

    heading(d, 2, "Coverage per outcome", "coverage");
    para(d, "Only correct and wrong enter accuracy; every other outcome is counted here, never "
            "as wrong.");
    table_begin(d, align, head);
    for (i = 0; i < s->n_cells; i++) {
        const struct cell_stats *c = &s->cells[i];
        row_begin(d, NULL);
        cell_length(d, c->length);
        cell_depth(d, c->depth_bp);
        for (o = OUTCOME_CORRECT; o < OUTCOME__COUNT; o++)
            cellf(d, "%ld", c->outcomes[o]);
        cellf(d, "%ld", c->outcomes[OUTCOME_PENDING]);
        row_end(d);
    }
    row_begin(d, "total");
    cell(d, "all");
    cell(d, "");
    for (o = OUTCOME_CORRECT; o < OUTCOME__COUNT; o++)
        cellf(d, "%ld", s->outcomes[o]);
    cellf(d, "%ld", s->outcomes[OUTCOME_PENDING]);
    row_end(d);
    table_end(d);
}

static void section_tokenizer(struct doc *d, const struct run_stats *s)
{
    static const char *const head[] = {
        "length",        "realized min",  "realized mean", "realized max", "with server usage",
        "usage / local", "max deviation", "mismatches",
    };
    size_t i;

    heading(d, 2, "Tokenizer agreement", "tokenizer");
    para(d, "Local token count of each prompt against the server's usage.prompt_tokens; a "
            "deviation over 2% is a tokenizer mismatch (lengths and depths are then off).");
    table_begin(d, "lrrrrrrr", head);
    for (i = 0; i < s->n_lengths; i++) {
        const struct length_stats *l = &s->lengths[i];
        row_begin(d, l->tokenizer_mismatches ? "warn" : NULL);
        cell_length(d, l->length);
        if (l->n_realized) {
            cellf(d, "%ld", l->realized_min);
            cellf(d, "%.0f", l->realized_mean);
            cellf(d, "%ld", l->realized_max);
        } else {
            cell(d, "\xE2\x80\x93");
            cell(d, "\xE2\x80\x93");
            cell(d, "\xE2\x80\x93");
        }
        cellf(d, "%ld", l->n_usage);
        if (l->n_usage) {
            cellf(d, "%.4f", l->usage_ratio_mean);
            cell_pct(d, l->usage_ratio_max_dev);
        } else {
            cell(d, "\xE2\x80\x93");
            cell(d, "\xE2\x80\x93");
        }
        cellf(d, "%ld", l->tokenizer_mismatches);
        row_end(d);
    }
    table_end(d);
}

static void section_advice(struct doc *d, const struct run_stats *s)
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

    heading(d, 2, "Ordering advice", "advice");
    para(d, "Expected accuracy when k retrieved chunks are placed in each order, given the answer "
            "was retrieved, from this run's accuracy-by-depth curve and the retriever's rank "
            "distribution.");
    table_begin(d, align, head);
    for (i = 0; i < s->n_advice; i++) {
        const struct ordering_advice *a = &s->advice[i];
        int best = 0;
        row_begin(d, NULL);
        cell_length(d, a->length);
        cellf(d, "%d", a->k);
        cell_pct(d, a->retrieved);
        for (o = 0; o < ORDER__COUNT; o++) {
            cell_pct(d, a->accuracy[o]);
            if (a->accuracy[o] > a->accuracy[best] + 1e-12)
                best = o;
        }
        cell(d, ordering_name((enum ordering)best));
        row_end(d);
    }
    table_end(d);
}

static void kv_row(struct doc *d, const char *k, const char *v)
{
    row_begin(d, NULL);
    cell(d, k);
    cell(d, or_dash(v));
    row_end(d);
}

static void section_run(struct doc *d, const struct report_input *in)
{
    static const char *const head[] = {"field", "value"};
    static const char *const prov_head[] = {"input", "sha256"};
    static const char *const set_head[] = {"setting", "value"};
    const struct run_info *r = in->run;
    struct strbuf sb = STRBUF_INIT;
    cJSON *settings = NULL, *it;

    heading(d, 2, "Run", "run");
    table_begin(d, "ll", head);
    kv_row(d, "run", r->name);
    kv_row(d, "model requested", r->model_requested);
    kv_row(d, "model served", r->model_served);
    kv_row(d, "endpoints", r->endpoints);
    kv_row(d, "system fingerprint", r->system_fingerprint);
    kv_row(d, "status", run_status_name(r->status));
    strbuf_addf(&sb, "%ld planned, %ld finished, %ld stored", r->trials_planned, r->trials_done,
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
    strbuf_addf(&sb, "%s%s%s%s", or_dash(r->dipmap_version), r->dipmap_commit ? " (commit " : "",
                r->dipmap_commit ? r->dipmap_commit : "", r->dipmap_commit ? ")" : "");
    kv_row(d, "dipmap", sb.buf);
    table_end(d);

    heading(d, 3, "Provenance", "provenance");
    table_begin(d, "ll", prov_head);
    kv_row(d, "golden set", r->golden_sha256);
    kv_row(d, "haystack", r->haystack_sha256);
    kv_row(d, "template", r->template_sha256);
    strbuf_reset(&sb);
    strbuf_addf(&sb, "tokenizer (%s)", or_dash(r->tokenizer_name));
    kv_row(d, sb.buf, r->tokenizer_sha256);
    table_end(d);
    if (in->hygiene_note)
        para(d, in->hygiene_note);

    if (r->settings_json)
        settings = cJSON_Parse(r->settings_json);
    heading(d, 3, "Settings", "settings");
    table_begin(d, "ll", set_head);
    if (cJSON_IsObject(settings)) {
        cJSON_ArrayForEach(it, settings)
        {
            char *v = cJSON_IsString(it) ? NULL : cJSON_PrintUnformatted(it);
            kv_row(d, it->string, cJSON_IsString(it) ? it->valuestring : v);
            free(v);
        }
    } else {
        kv_row(d, "settings", r->settings_json);
    }
    table_end(d);
    cJSON_Delete(settings);
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
    n = TEXT_SHOW_MAX;
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
        n--;
    strbuf_add(out, s, n);
    strbuf_addf(out, " \xE2\x80\xA6 (%zu bytes more)", strlen(s) - n);
}

static void section_failures(struct doc *d, const struct report_input *in)
{
    static const char *const head[] = {
        "question id", "question", "expected",       "model answer",
        "outcome",     "repeat",   "realized depth",
    };
    size_t i = 0;

    heading(d, 2, "Failed trials at the worst depths", "failures");
    if (in->golden_path) {
        struct strbuf sb = STRBUF_INIT;
        strbuf_addf(&sb, "Questions from %s.", in->golden_path);
        para(d, sb.buf);
        strbuf_release(&sb);
    }
    if (in->golden_note)
        para(d, in->golden_note);
    if (!in->n_failures) {
        para(d, "No failed trials at the worst depths.");
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
        report_length(&sb, t0->length);
        strbuf_addstr(&sb, " tokens, depth ");
        add_depth(&sb, t0->depth_bp);
        if (c && c->n_valid) {
            strbuf_addstr(&sb, " (accuracy ");
            report_pct(&sb, c->accuracy);
            strbuf_addch(&sb, ')');
        }
        if (c && c->n_trials - c->n_correct > (long)(j - i))
            strbuf_addf(&sb, ": %zu of %ld failed trials shown", j - i, c->n_trials - c->n_correct);
        else
            strbuf_addf(&sb, ": %zu failed trial%s shown", j - i, j - i == 1 ? "" : "s");
        strbuf_addstr(d->out, "<details><summary>");
        escape_html(d->out, sb.buf);
        strbuf_addstr(d->out, "</summary>\n");
        table_begin(d, "lllllrr", head);
        for (k = i; k < j; k++) {
            const struct report_failure *f = &in->failures[k];
            const struct trial_result *t = f->trial;
            size_t a;
            row_begin(d, NULL);
            cell(d, or_dash(t->question_id));
            strbuf_reset(&sb);
            shown_text(&sb, f->question);
            cell(d, f->question ? sb.buf : "(not available)");
            strbuf_reset(&sb);
            for (a = 0; a < f->n_answers; a++) {
                if (a)
                    strbuf_addstr(&sb, " | ");
                shown_text(&sb, f->answers[a]);
            }
            cell(d, f->n_answers ? sb.buf : "(not available)");
            strbuf_reset(&sb);
            shown_text(&sb, t->answer);
            if (t->error && *t->error) {
                strbuf_addstr(&sb, sb.len ? " [" : "[");
                shown_text(&sb, t->error);
                strbuf_addch(&sb, ']');
            }
            cell(d, sb.len ? sb.buf : "(no answer)");
            cell(d, outcome_name(t->outcome));
            cellf(d, "%d", t->repeat);
            cell_pct(d, t->realized_length > 0 ? t->realized_depth : NAN);
            row_end(d);
        }
        table_end(d);
        strbuf_addstr(d->out, "</details>\n");
        strbuf_release(&sb);
        i = j;
    }
}

static void title_text(struct strbuf *sb, const struct report_input *in)
{
    strbuf_addstr(sb, "dipmap report: ");
    strbuf_addstr(sb, or_dash(in->run->name));
    strbuf_addstr(sb, " (");
    strbuf_addstr(sb, or_dash(in->run->model_requested));
    strbuf_addch(sb, ')');
}

static void footer(struct doc *d, const struct report_input *in)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "Generated by dipmap %s (%s)", dipmap_version, dipmap_commit);
    if (in->generated_at > 0) {
        strbuf_addstr(&sb, " at ");
        report_time(&sb, in->generated_at);
    }
    strbuf_addch(&sb, '.');
    if (d->html) {
        strbuf_addstr(d->out, "<footer>");
        escape_html(d->out, sb.buf);
        strbuf_addstr(d->out, "</footer>\n");
    } else {
        strbuf_addstr(d->out, "---\n\n");
        para(d, sb.buf);
    }
    strbuf_release(&sb);
}

static void body(struct doc *d, const struct report_input *in)
{
    section_summary(d, in);
    section_plots(d, in);
    section_dip(d, in->stats);
    section_grid(d, in->stats);
    section_cells(d, in->stats);
    section_coverage(d, in->stats);
    section_tokenizer(d, in->stats);
    section_advice(d, in->stats);
    if (d->html)
        section_failures(d, in);
    section_run(d, in);
    footer(d, in);
}

void report_markdown(struct strbuf *out, const struct report_input *in)
{
    struct doc d = {out, 0, NULL, 0};
    struct strbuf sb = STRBUF_INIT;

    title_text(&sb, in);
    strbuf_addstr(out, "# ");
    escape_md(out, sb.buf);
    strbuf_addch(out, '\n');
    strbuf_release(&sb);
    body(&d, in);
}

const char *report_css(void)
{
    return "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0 auto;"
           "max-width:1100px;padding:1rem 1.5rem;color:#222;line-height:1.45}\n"
           "h1{font-size:1.5rem;border-bottom:2px solid #0072B2;padding-bottom:.3rem}\n"
           "h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ddd}\n"
           "h3{font-size:1rem}\n"
           "table{border-collapse:collapse;margin:.5rem 0;font-size:.9rem}\n"
           "th,td{border:1px solid #ccc;padding:.25rem .5rem;vertical-align:top;text-align:left}\n"
           "th{background:#f3f6f9}\n"
           "td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
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
           "footer{margin-top:2rem;font-size:.8rem;color:#666}\n";
}

/*
 * The start of every self-contained page (report.html, compare.html): a
 * Content-Security-Policy that forbids scripts and network fetches, the
 * inline stylesheet, and the escaped title as <title> and <h1>.
 */
static void html_page_head(struct strbuf *out, const char *title)
{
    strbuf_addstr(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                       "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
                       "'none'; style-src 'unsafe-inline'; img-src data:\">\n"
                       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                       "<title>");
    escape_html(out, title);
    strbuf_addstr(out, "</title>\n<style>\n");
    strbuf_addstr(out, report_css());
    strbuf_addstr(out, "</style>\n</head>\n<body>\n<h1>");
    escape_html(out, title);
    strbuf_addstr(out, "</h1>\n");
}

void report_html(struct strbuf *out, const struct report_input *in)
{
    struct doc d = {out, 1, NULL, 0};
    struct strbuf sb = STRBUF_INIT;

    title_text(&sb, in);
    html_page_head(out, sb.buf);
    strbuf_release(&sb);
    body(&d, in);
    strbuf_addstr(out, "</body>\n</html>\n");
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

/* ---- plots of a run ---- */

size_t report_ucurve_series(const struct run_stats *s, struct plot_series **out)
{
    struct plot_series *v = xcalloc(s->n_lengths + 1, sizeof(*v));
    size_t li, i;

    for (li = 0; li < s->n_lengths; li++) {
        const struct length_stats *l = &s->lengths[li];
        struct plot_point *p = xcalloc(l->n_cells + 1, sizeof(*p));
        struct strbuf lab = STRBUF_INIT;

        for (i = 0; i < l->n_cells; i++) {
            const struct cell_stats *c = &s->cells[l->first_cell + i];
            p[i].x = c->depth_bp / 100.0;
            p[i].y = c->n_valid ? c->accuracy : NAN;
            p[i].lo = c->n_valid ? c->wilson_lo : NAN;
            p[i].hi = c->n_valid ? c->wilson_hi : NAN;
        }
        report_length(&lab, l->length);
        strbuf_addstr(&lab, " tokens");
        v[li].label = strbuf_detach(&lab, NULL);
        v[li].pts = p;
        v[li].n = l->n_cells;
        v[li].edge = l->n_depths >= 2 ? l->edge.est : NAN;
        v[li].middle = l->has_middle ? l->middle_worst.est : NAN;
    }
    *out = v;
    return s->n_lengths;
}

void report_series_free(struct plot_series *v, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        free((char *)v[i].label);
        free((struct plot_point *)v[i].pts);
    }
    free(v);
}

void report_grid(const struct run_stats *s, struct plot_grid *g)
{
    double *depths = NULL, *acc;
    long *lengths;
    size_t nd = 0, alloc = 0, i, j;

    for (i = 0; i < s->n_cells; i++) {
        double d = s->cells[i].depth_bp / 100.0;
        for (j = 0; j < nd && depths[j] != d; j++)
            ;
        if (j == nd) {
            ALLOC_GROW(depths, nd + 1, alloc);
            depths[nd++] = d;
        }
    }
    for (i = 1; i < nd; i++)
        for (j = i; j > 0 && depths[j - 1] > depths[j]; j--) {
            double t = depths[j];
            depths[j] = depths[j - 1];
            depths[j - 1] = t;
        }
    lengths = xcalloc(s->n_lengths + 1, sizeof(*lengths));
    acc = xcalloc(st_mult(nd, s->n_lengths) + 1, sizeof(*acc));
    for (i = 0; i < s->n_lengths; i++) {
        lengths[i] = s->lengths[i].length;
        for (j = 0; j < nd; j++) {
            const struct cell_stats *c =
                run_stats_cell(s, lengths[i], (int)lround(depths[j] * 100.0));
            acc[i * nd + j] = c && c->n_valid ? c->accuracy : NAN;
        }
    }
    g->ndepths = nd;
    g->nlengths = s->n_lengths;
    g->depths = depths;
    g->lengths = lengths;
    g->acc = acc;
}

void report_grid_release(struct plot_grid *g)
{
    free((double *)g->depths);
    free((long *)g->lengths);
    free((double *)g->acc);
    memset(g, 0, sizeof(*g));
}

struct series_set {
    const struct plot_series *s;
    size_t n;
};

static void build_ucurve(struct strbuf *script, const struct plot_opts *o, const void *data)
{
    const struct series_set *set = data;
    plot_script_ucurve(script, o, set->s, set->n);
}

static void build_heatmap(struct strbuf *script, const struct plot_opts *o, const void *data)
{
    plot_script_heatmap(script, o, data);
}

int report_run_plots(const char *dir, unsigned formats, const struct run_info *run,
                     const struct run_stats *s, struct strbuf *ucurve_svg,
                     struct strbuf *heatmap_svg)
{
    struct plot_series *series = NULL;
    struct series_set set;
    struct plot_grid grid;
    struct plot_opts o;
    struct strbuf title = STRBUF_INIT, sub = STRBUF_INIT;
    int ret;

    memset(&o, 0, sizeof(o));
    strbuf_addf(&title, "%s \xC2\xB7 run %s", or_dash(run->model_requested), or_dash(run->name));
    strbuf_addf(&sub, "accuracy vs depth: %ld scored trials, %zu questions", s->n_valid,
                s->n_questions);
    o.title = title.buf;
    o.subtitle = sub.buf;
    set.n = report_ucurve_series(s, &series);
    set.s = series;
    ret = plot_save(dir, "ucurve", formats, build_ucurve, &set, &o, ucurve_svg);
    if (ret == PLOT_OK) {
        strbuf_reset(&sub);
        strbuf_addstr(&sub, "accuracy by depth and prompt length (fraction correct per cell)");
        o.subtitle = sub.buf;
        report_grid(s, &grid);
        ret = plot_save(dir, "heatmap", formats, build_heatmap, &grid, &o, heatmap_svg);
        report_grid_release(&grid);
    }
    report_series_free(series, set.n);
    strbuf_release(&title);
    strbuf_release(&sub);
    return ret;
}

/* ---- compare --out: overlay plot and compare.html ---- */

static const char *run_label(const struct run_info *r)
{
    return r && r->name ? r->name : "?";
}

static void compare_test_row(struct doc *d, const struct compare_test *t)
{
    struct strbuf sb = STRBUF_INIT;

    row_begin(d, t->status == CMP_REGRESSION    ? "regression"
                 : t->status == CMP_IMPROVEMENT ? "improvement"
                                                : NULL);
    if (t->scope == COMPARE_OVERALL)
        cell(d, "all");
    else
        cell_length(d, t->length);
    if (t->scope == COMPARE_CELL)
        cell_depth(d, t->depth_bp);
    else
        cell(d, "all");
    cellf(d, "%ld", t->n_pairs);
    cell_pct(d, t->n_pairs ? t->acc_base : NAN);
    cell_pct(d, t->n_pairs ? t->acc_cand : NAN);
    report_pp(&sb, t->n_pairs ? -t->drop : NAN);
    cell(d, sb.buf);
    cellf(d, "%ld", t->base_only);
    cellf(d, "%ld", t->cand_only);
    if (t->status == CMP_NO_DATA) {
        cell(d, "\xE2\x80\x93");
    } else {
        strbuf_reset(&sb);
        strbuf_addf(&sb, "%.3g", t->p_drop_adj);
        cell(d, sb.buf);
    }
    cell(d, compare_status_name(t->status));
    row_end(d);
    strbuf_release(&sb);
}

static void compare_runs_table(struct doc *d, const struct compare_meta *m)
{
    static const char *const head[] = {"", "baseline", "candidate"};
    const struct run_info *b = m ? m->baseline : NULL, *c = m ? m->candidate : NULL;
    struct strbuf x = STRBUF_INIT, y = STRBUF_INIT;

#define RUNROW(label, field)                                                                       \
    do {                                                                                           \
        row_begin(d, NULL);                                                                        \
        cell(d, label);                                                                            \
        cell(d, or_dash(b ? b->field : NULL));                                                     \
        cell(d, or_dash(c ? c->field : NULL));                                                     \
        row_end(d);                                                                                \
    } while (0)
    heading(d, 2, "Runs", "runs");
    table_begin(d, "lll", head);
    RUNROW("run", name);
    RUNROW("model requested", model_requested);
    RUNROW("model served", model_served);
    RUNROW("endpoints", endpoints);
    RUNROW("golden set sha256", golden_sha256);
    RUNROW("haystack sha256", haystack_sha256);
    RUNROW("template sha256", template_sha256);
    RUNROW("tokenizer", tokenizer_name);
    RUNROW("tokenizer sha256", tokenizer_sha256);
#undef RUNROW
    report_time(&x, b ? b->created_at : 0);
    report_time(&y, c ? c->created_at : 0);
    row_begin(d, NULL);
    cell(d, "created");
    cell(d, x.buf);
    cell(d, y.buf);
    row_end(d);
    strbuf_reset(&x);
    strbuf_reset(&y);
    if (b)
        strbuf_addf(&x, "%s, %ld of %ld trials", run_status_name(b->status), b->trials_done,
                    b->trials_planned);
    if (c)
        strbuf_addf(&y, "%s, %ld of %ld trials", run_status_name(c->status), c->trials_done,
                    c->trials_planned);
    row_begin(d, NULL);
    cell(d, "status");
    cell(d, or_dash(x.buf));
    cell(d, or_dash(y.buf));
    row_end(d);
    table_end(d);
    strbuf_release(&x);
    strbuf_release(&y);
}

void report_compare_html(struct strbuf *out, const struct compare_result *r,
                         const struct compare_meta *m, const char *svg)
{
    static const char *const head[] = {
        "length", "depth",     "pairs",     "baseline",          "candidate",
        "change", "drops (b)", "gains (c)", "adjusted p (drop)", "status",
    };
    struct doc d = {out, 1, NULL, 0};
    struct strbuf sb = STRBUF_INIT;
    const char *cls = r->verdict == VERDICT_PASS   ? "pass"
                      : r->verdict == VERDICT_FAIL ? "fail"
                                                   : "inconclusive";
    size_t i;

    strbuf_addf(&sb, "dipmap compare: %s vs %s", run_label(m ? m->baseline : NULL),
                run_label(m ? m->candidate : NULL));
    html_page_head(out, sb.buf);

    strbuf_reset(&sb);
    strbuf_addf(&sb,
                "%s: %ld regression%s, %ld improvement%s, %ld test%s without enough data "
                "(alpha %g, tolerance %.1f pp)",
                compare_verdict_name(r->verdict), r->n_regressions,
                r->n_regressions == 1 ? "" : "s", r->n_improvements,
                r->n_improvements == 1 ? "" : "s", r->n_no_data, r->n_no_data == 1 ? "" : "s",
                r->opt.alpha, r->opt.tolerance * 100.0);
    strbuf_addf(out, "<p class=\"verdict %s\">", cls);
    escape_html(out, sb.buf);
    strbuf_addstr(out, "</p>\n");
    if (r->n_reasons) {
        strbuf_addstr(out, "<ul>\n");
        for (i = 0; i < r->n_reasons; i++) {
            strbuf_addstr(out, "<li>");
            escape_html(out, r->reasons[i]);
            strbuf_addstr(out, "</li>\n");
        }
        strbuf_addstr(out, "</ul>\n");
    }
    if (m && m->inputs_note)
        para(&d, m->inputs_note);

    heading(&d, 2, "Baseline vs candidate", "plot");
    if (svg) {
        strbuf_addstr(out, "<figure>");
        if (plot_svg_element(out, svg) < 0)
            strbuf_addstr(out, "<p>(plot unavailable)</p>");
        strbuf_addstr(out, "<figcaption>Baseline dashed, candidate solid; circled: cells with a "
                           "significant regression.</figcaption></figure>\n");
    } else {
        para(&d, "Plot not drawn (gnuplot not available).");
    }

    heading(&d, 2, "Per length", "lengths");
    table_begin(&d, "llrrrrrrrl", head);
    for (i = 0; i < r->n_tests; i++)
        if (r->tests[i].scope != COMPARE_CELL)
            compare_test_row(&d, &r->tests[i]);
    table_end(&d);
    heading(&d, 2, "Per cell", "cells");
    para(&d,
         "Exact one-sided McNemar test on discordant pairs, Holm-adjusted over all cells and "
         "lengths; a regression needs adjusted p < alpha and a drop of at least the tolerance.");
    table_begin(&d, "llrrrrrrrl", head);
    for (i = 0; i < r->n_tests; i++)
        if (r->tests[i].scope == COMPARE_CELL)
            compare_test_row(&d, &r->tests[i]);
    table_end(&d);
    if (r->baseline_only_keys || r->candidate_only_keys) {
        strbuf_reset(&sb);
        strbuf_addf(&sb, "Unpaired trials: %ld only in the baseline, %ld only in the candidate.",
                    r->baseline_only_keys, r->candidate_only_keys);
        para(&d, sb.buf);
    }
    compare_runs_table(&d, m);
    strbuf_reset(&sb);
    strbuf_addf(&sb, "Generated by dipmap %s (%s).", dipmap_version, dipmap_commit);
    strbuf_addstr(out, "<footer>");
    escape_html(out, sb.buf);
    strbuf_addstr(out, "</footer>\n</body>\n</html>\n");
    strbuf_release(&sb);
}

struct overlay {
    const struct plot_series *b, *c;
    size_t nb, nc;
};

static void build_overlay(struct strbuf *script, const struct plot_opts *o, const void *data)
{
    const struct overlay *ov = data;
    plot_script_compare(script, o, ov->b, ov->nb, ov->c, ov->nc);
}

/* Label series "8k baseline" / "8k candidate" (labels are owned by the series). */
static void relabel(struct plot_series *v, size_t n, const char *role)
{
    size_t i;
    for (i = 0; i < n; i++) {
        struct strbuf sb = STRBUF_INIT;
        const char *sp = strchr(v[i].label, ' ');
        strbuf_add(&sb, v[i].label, sp ? (size_t)(sp - v[i].label) : strlen(v[i].label));
        strbuf_addf(&sb, " %s", role);
        free((char *)v[i].label);
        v[i].label = strbuf_detach(&sb, NULL);
        v[i].edge = v[i].middle = NAN;
    }
}

static int append_file(const char *path, const char *text)
{
    struct strbuf old = STRBUF_INIT;
    int ret;
    if (strbuf_read_file(&old, path) < 0 && old.len == 0)
        strbuf_reset(&old);
    strbuf_addstr(&old, text);
    ret = plot_write_file(path, &old);
    strbuf_release(&old);
    return ret;
}

/*
 * The baseline/candidate overlay: both runs' U-curves (no bootstrap: only cell
 * accuracies and Wilson bands are drawn), candidate cells with a significant
 * regression flagged, rendered by plot_save() into dir (NULL: only into svg).
 * Returns a plot_status, or -2 after an error (statistics failed).
 */
static int draw_overlay(const char *dir, unsigned formats, const struct compare_result *r,
                        const struct compare_meta *m, const struct trial_result *base, size_t nb,
                        const struct trial_result *cand, size_t nc, struct strbuf *svg)
{
    struct run_stats sb, sc;
    struct stats_options o;
    struct strbuf err = STRBUF_INIT, title = STRBUF_INIT;
    struct plot_series *vb = NULL, *vc = NULL;
    struct overlay ov;
    struct plot_opts po;
    size_t i, j;
    int pr = -2, have_b = 0, have_c = 0;

    stats_options_init(&o);
    o.bootstrap_iters = 0;
    ov.nb = ov.nc = 0;
    if (stats_compute(base, nb, &o, &sb, &err) < 0) {
        error("compare: %s", err.buf);
        goto cleanup;
    }
    have_b = 1;
    if (stats_compute(cand, nc, &o, &sc, &err) < 0) {
        error("compare: %s", err.buf);
        goto cleanup;
    }
    have_c = 1;
    ov.nb = report_ucurve_series(&sb, &vb);
    ov.nc = report_ucurve_series(&sc, &vc);
    relabel(vb, ov.nb, "baseline");
    relabel(vc, ov.nc, "candidate");
    for (i = 0; i < ov.nc; i++) {
        const struct length_stats *l = &sc.lengths[i];
        for (j = 0; j < vc[i].n; j++) {
            const struct cell_stats *c = &sc.cells[l->first_cell + j];
            size_t k;
            for (k = 0; k < r->n_tests; k++) {
                const struct compare_test *t = &r->tests[k];
                if (t->scope == COMPARE_CELL && t->length == c->length &&
                    t->depth_bp == c->depth_bp && t->status == CMP_REGRESSION)
                    ((struct plot_point *)vc[i].pts)[j].flag = 1;
            }
        }
    }
    ov.b = vb;
    ov.c = vc;
    memset(&po, 0, sizeof(po));
    strbuf_addf(&title, "%s (%s) vs %s (%s)", run_label(m ? m->baseline : NULL),
                or_dash(m && m->baseline ? m->baseline->model_requested : NULL),
                run_label(m ? m->candidate : NULL),
                or_dash(m && m->candidate ? m->candidate->model_requested : NULL));
    po.title = title.buf;
    po.subtitle = compare_verdict_name(r->verdict);
    pr = plot_save(dir, "compare", formats, build_overlay, &ov, &po, svg);

cleanup:
    if (have_b)
        run_stats_release(&sb);
    if (have_c)
        run_stats_release(&sc);
    report_series_free(vb, ov.nb);
    report_series_free(vc, ov.nc);
    strbuf_release(&err);
    strbuf_release(&title);
    return pr;
}

int report_compare_files(const char *dir, const struct compare_result *r,
                         const struct compare_meta *m, const struct trial_result *base, size_t nb,
                         const struct trial_result *cand, size_t nc)
{
    struct strbuf svg = STRBUF_INIT, html = STRBUF_INIT, path = STRBUF_INIT;
    int ret = 0, pr;

    pr = draw_overlay(dir, PLOT_BOTH, r, m, base, nb, cand, nc, &svg);
    if (pr == -2) {
        ret = -1;
        goto cleanup;
    }
    if (pr == PLOT_NO_GNUPLOT)
        warning("gnuplot not found on PATH: the compare plot is skipped; compare.html is still "
                "written");
    else if (pr != PLOT_OK)
        warning("the compare plot is skipped: gnuplot failed");
    else {
        strbuf_addf(&path, "%s/compare.md", dir);
        if (append_file(path.buf, "\n![Baseline (dashed) vs candidate (solid); circled: "
                                  "significant regressions](compare.svg)\n") < 0)
            ret = -1;
    }

    report_compare_html(&html, r, m, svg.len ? svg.buf : NULL);
    strbuf_reset(&path);
    strbuf_addf(&path, "%s/compare.html", dir);
    if (plot_write_file(path.buf, &html) < 0)
        ret = -1;

cleanup:
    strbuf_release(&svg);
    strbuf_release(&html);
    strbuf_release(&path);
    return ret;
}

int report_compare_page(struct strbuf *out, const struct compare_result *r,
                        const struct compare_meta *m, const struct trial_result *base, size_t nb,
                        const struct trial_result *cand, size_t nc)
{
    struct strbuf svg = STRBUF_INIT;
    int pr = draw_overlay(NULL, 1u << PLOT_SVG, r, m, base, nb, cand, nc, &svg);
    if (pr != -2)
        report_compare_html(out, r, m, pr == PLOT_OK && svg.len ? svg.buf : NULL);
    strbuf_release(&svg);
    return pr == -2 ? -1 : 0;
}

int report_make_dirs(const char *path)
{
    struct strbuf sb = STRBUF_INIT;
    struct stat st;
    size_t i;
    int ret = 0;

    strbuf_addstr(&sb, path);
    for (i = 1; i <= sb.len && !ret; i++) {
        char saved;
        if (i < sb.len && sb.buf[i] != '/')
            continue;
        saved = sb.buf[i];
        sb.buf[i] = '\0';
        if (mkdir(sb.buf, 0755) < 0 && errno != EEXIST)
            ret = error("cannot create %s: %s", sb.buf, strerror(errno));
        sb.buf[i] = saved;
    }
    if (!ret && (stat(path, &st) < 0 || !S_ISDIR(st.st_mode)))
        ret = error("%s is not a folder", path);
    strbuf_release(&sb);
    return ret;
}

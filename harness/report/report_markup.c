/*
 * The report's document model: headings, paragraphs, bullets and tables
 * written as Markdown or HTML from one set of calls, every piece of text
 * escaped here; and the number formats (percent, pp, time, interval) the
 * reports share.
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
#include "base/utc.h"
#include "base/version.h"
#include "base/xalloc.h"

#include "base/banned.h"

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

void report_time(struct strbuf *out, double t)
{
    if (utc_format(out, t, "%Y-%m-%d %H:%M:%S UTC") < 0)
        strbuf_addstr(out, "\xE2\x80\x93");
}

void report_add_interval(struct strbuf *out, double lo, double hi)
{
    strbuf_addch(out, '[');
    report_pct(out, lo);
    strbuf_addstr(out, ", ");
    report_pct(out, hi);
    strbuf_addch(out, ']');
}

/* ---- a tiny document model: every piece of text is escaped here ---- */

void report_heading(struct markup *d, int level, const char *title, const char *id)
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

void report_para(struct markup *d, const char *s)
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

void report_bullets_begin(struct markup *d)
{
    if (d->html)
        strbuf_addstr(d->out, "<ul>\n");
}

/* One bullet "label: value" with the label in bold. */
void report_bullet(struct markup *d, const char *label, const char *value)
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

void report_bullets_end(struct markup *d)
{
    strbuf_addstr(d->out, d->html ? "</ul>\n" : "\n");
}

void report_table_begin(struct markup *d, const char *align, const char *const *head)
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

void report_row_begin(struct markup *d, const char *cls)
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

void report_cell(struct markup *d, const char *s)
{
    int right = d->align && d->align[d->col] == 'r';
    size_t n = s ? strlen(s) : 0;
    const char *comma = n > 2 && s[0] == '[' && s[n - 1] == ']' ? strstr(s, ", ") : NULL;
    if (d->html && right && comma) {
        /* an interval "[lo, hi]" may break after its comma, never inside a number */
        strbuf_addstr(d->out, "<td class=\"num iv\"><span>");
        escape_html_n(d->out, s, (size_t)(comma - s) + 1);
        strbuf_addstr(d->out, "</span> <span>");
        escape_html(d->out, comma + 2);
        strbuf_addstr(d->out, "</span></td>");
    } else if (d->html) {
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
void report_cellf(struct markup *d, const char *fmt, ...) DM_PRINTF(2, 3);

void report_cellf(struct markup *d, const char *fmt, ...)
{
    struct strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    report_cell(d, sb.buf);
    strbuf_release(&sb);
}

void report_row_end(struct markup *d)
{
    strbuf_addstr(d->out, d->html ? "</tr>\n" : "\n");
}

void report_table_end(struct markup *d)
{
    strbuf_addstr(d->out, d->html ? "</tbody></table></div>\n" : "\n");
    d->align = NULL;
}

/* Cell helpers on a scratch strbuf. */
void report_cell_pct(struct markup *d, double v)
{
    struct strbuf sb = STRBUF_INIT;
    report_pct(&sb, v);
    report_cell(d, sb.buf);
    strbuf_release(&sb);
}

void report_cell_interval(struct markup *d, double lo, double hi)
{
    struct strbuf sb = STRBUF_INIT;
    report_add_interval(&sb, lo, hi);
    report_cell(d, sb.buf);
    strbuf_release(&sb);
}

void report_cell_length(struct markup *d, long len)
{
    struct strbuf sb = STRBUF_INIT;
    plan_format_length(&sb, len);
    if (len >= 1024 && len % 1024 == 0)
        strbuf_addf(&sb, " (%ld)", len);
    report_cell(d, sb.buf);
    strbuf_release(&sb);
}

void report_cell_depth(struct markup *d, int depth_bp)
{
    struct strbuf sb = STRBUF_INIT;
    plan_format_depth(&sb, depth_bp);
    report_cell(d, sb.buf);
    strbuf_release(&sb);
}

const char *report_or_dash(const char *s)
{
    return s && *s ? s : "\xE2\x80\x93";
}

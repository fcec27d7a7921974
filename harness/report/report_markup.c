/*
 * The report's document model: headings, paragraphs, bullets, tables,
 * elements and pages written as Markdown or HTML from one set of calls, every
 * piece of text and every attribute value escaped here (the only file under
 * report/ that writes a tag); and the number formats (percent, pp, time,
 * interval) the reports share.
 */
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
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
        char tag[4] = {'h', (char)('0' + level), 0};
        report_open_attrs(d, tag, "id", id, NULL);
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

static void table_begin(struct markup *d, const char *cls, const char *align,
                        const char *const *head)
{
    size_t i, n = strlen(align);

    d->align = align;
    d->bare = cls != NULL;
    if (d->html) {
        if (cls) {
            report_open(d, "table", cls);
            strbuf_addstr(d->out, "\n<thead><tr>");
        } else {
            strbuf_addstr(d->out, "<div class=\"scroll\"><table>\n<thead><tr>");
        }
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

void report_table_begin(struct markup *d, const char *align, const char *const *head)
{
    table_begin(d, NULL, align, head);
}

void report_table_begin_class(struct markup *d, const char *cls, const char *align,
                              const char *const *head)
{
    table_begin(d, cls, align, head);
}

void report_row_begin(struct markup *d, const char *cls)
{
    d->col = 0;
    if (d->html) {
        report_open(d, "tr", cls);
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
    if (!d->html)
        strbuf_addch(d->out, '\n');
    else
        strbuf_addstr(d->out, d->bare ? "</tbody>\n</table>\n" : "</tbody></table></div>\n");
    d->align = NULL;
    d->bare = 0;
}

void report_cell_class(struct markup *d, const char *cls, const char *s)
{
    int right = d->align && d->align[d->col] == 'r';
    if (!d->html || !cls) {
        report_cell(d, s);
        return;
    }
    strbuf_addstr(d->out, right ? "<td class=\"num " : "<td class=\"");
    escape_html(d->out, cls);
    strbuf_addstr(d->out, "\">");
    escape_html(d->out, s);
    strbuf_addstr(d->out, "</td>");
    if (d->align && d->align[d->col + 1])
        d->col++;
}

/* ---- elements (HTML only), text, trusted fragments, pages ---- */

const char report_attr_bare[] = "";

void report_open(struct markup *d, const char *tag, const char *cls)
{
    report_open_attrs(d, tag, "class", cls, NULL);
}

void report_open_attrs(struct markup *d, const char *tag, ...)
{
    const char *name;
    va_list ap;

    if (!d->html)
        return;
    strbuf_addch(d->out, '<');
    strbuf_addstr(d->out, tag);
    va_start(ap, tag);
    while ((name = va_arg(ap, const char *))) {
        const char *v = va_arg(ap, const char *);
        if (!v)
            continue;
        strbuf_addch(d->out, ' ');
        strbuf_addstr(d->out, name);
        if (v == report_attr_bare)
            continue;
        strbuf_addstr(d->out, "=\"");
        escape_html(d->out, v);
        strbuf_addch(d->out, '"');
    }
    va_end(ap);
    strbuf_addch(d->out, '>');
}

void report_close(struct markup *d, const char *tag)
{
    if (!d->html)
        return;
    strbuf_addstr(d->out, "</");
    strbuf_addstr(d->out, tag);
    strbuf_addch(d->out, '>');
}

void report_nl(struct markup *d)
{
    if (d->html)
        strbuf_addch(d->out, '\n');
}

void report_text(struct markup *d, const char *s)
{
    if (d->html)
        escape_html(d->out, s);
    else
        escape_md(d->out, s);
}

void report_textf(struct markup *d, const char *fmt, ...)
{
    struct strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    report_text(d, sb.buf);
    strbuf_release(&sb);
}

void report_element(struct markup *d, const char *tag, const char *cls, const char *s)
{
    report_open(d, tag, cls);
    report_text(d, s);
    report_close(d, tag);
}

void report_para_class(struct markup *d, const char *cls, const char *s)
{
    if (!d->html) {
        report_para(d, s);
        return;
    }
    report_element(d, "p", cls, s);
    report_nl(d);
}

void report_link(struct markup *d, const char *href, const char *s)
{
    report_open_attrs(d, "a", "href", href, NULL);
    report_text(d, s);
    report_close(d, "a");
}

void report_item(struct markup *d, const char *s)
{
    if (d->html) {
        report_element(d, "li", NULL, s);
        report_nl(d);
    } else {
        strbuf_addstr(d->out, "- ");
        escape_md(d->out, s);
        strbuf_addch(d->out, '\n');
    }
}

void report_trusted(struct markup *d, const char *html)
{
    if (d->html)
        strbuf_addstr(d->out, html);
}

int report_svg(struct markup *d, const char *svg)
{
    size_t len;
    const char *start = plot_svg_element(svg, &len);
    if (!start)
        return -1;
    if (d->html)
        strbuf_add(d->out, start, len);
    return 0;
}

void report_svg_figure(struct markup *d, const char *svg, const char *caption,
                       const char *caption_html)
{
    report_open(d, "figure", NULL);
    if (report_svg(d, svg) < 0)
        report_element(d, "p", NULL, "(plot unavailable)");
    report_open(d, "figcaption", NULL);
    if (caption)
        report_text(d, caption);
    else
        report_trusted(d, caption_html);
    report_close(d, "figcaption");
    report_close(d, "figure");
    report_nl(d);
}

void report_footer(struct markup *d, const char *s)
{
    if (d->html) {
        report_element(d, "footer", NULL, s);
        report_nl(d);
    } else {
        strbuf_addstr(d->out, "---\n\n");
        report_para(d, s);
    }
}

void report_page_begin(struct markup *d, const struct markup_page *p)
{
    strbuf_addstr(d->out,
                  "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    if (p->csp) {
        /* trusted: our policy, whose quotes ('none') must stay quotes */
        strbuf_addstr(d->out, "<meta http-equiv=\"Content-Security-Policy\" content=\"");
        strbuf_addstr(d->out, p->csp);
        strbuf_addstr(d->out, "\">\n");
    }
    strbuf_addstr(d->out, "<meta name=\"viewport\" content=\"width=device-width, "
                          "initial-scale=1\">\n");
    report_element(d, "title", NULL, p->title);
    strbuf_addstr(d->out, "\n<style>\n");
    strbuf_addstr(d->out, report_css());
    if (p->extra_css)
        strbuf_addstr(d->out, p->extra_css);
    strbuf_addstr(d->out, "</style>\n</head>\n<body>\n");
    if (p->nav)
        p->nav(d);
    report_element(d, "h1", NULL, p->title);
    report_nl(d);
}

void report_page_end(struct markup *d)
{
    strbuf_addstr(d->out, "</body>\n</html>\n");
}

void report_html_page_head(struct markup *d, const char *title, int script)
{
    struct strbuf csp = STRBUF_INIT;
    struct markup_page p = {title, NULL, NULL, NULL};

    strbuf_addstr(&csp, "default-src 'none'; style-src 'unsafe-inline'; img-src data:");
    if (script) {
        strbuf_addstr(&csp, "; script-src ");
        strbuf_addstr(&csp, report_script_csp());
    }
    p.csp = csp.buf;
    report_page_begin(d, &p);
    strbuf_release(&csp);
}

/* sb, a formatted number, as the next cell; sb is released. */
static void cell_take(struct markup *d, struct strbuf *sb)
{
    report_cell(d, sb->buf);
    strbuf_release(sb);
}

void report_cell_pct(struct markup *d, double v)
{
    struct strbuf sb = STRBUF_INIT;
    report_pct(&sb, v);
    cell_take(d, &sb);
}

void report_cell_interval(struct markup *d, double lo, double hi)
{
    struct strbuf sb = STRBUF_INIT;
    report_add_interval(&sb, lo, hi);
    cell_take(d, &sb);
}

/* "32k (32768)": a multiple of 1024 with its exact count too (32k could read as 32,000) */
void report_cell_length(struct markup *d, long len)
{
    struct strbuf sb = STRBUF_INIT;
    plan_format_length(&sb, len);
    if (len >= 1024 && len % 1024 == 0)
        strbuf_addf(&sb, " (%ld)", len);
    cell_take(d, &sb);
}

void report_cell_depth(struct markup *d, int depth_bp)
{
    struct strbuf sb = STRBUF_INIT;
    plan_format_depth(&sb, depth_bp);
    cell_take(d, &sb);
}

const char *report_or_dash(const char *s)
{
    return s && *s ? s : "\xE2\x80\x93";
}

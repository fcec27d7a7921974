/*
 * Unit tests for report_markup.c, the document model every page is written
 * through: its elements, cells, links, figures and pages escape every value
 * (a class, an attribute, a cell, a summary); trusted fragments are written
 * as they are and only in HTML; and the change grid of report_flips.c, one
 * description rendered to HTML and Markdown, colours each cell by the value
 * the Markdown shows, with the legend built from the same thresholds.
 */
#include "report/report.h"

#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "report/report-int.h"
#include "stats/compare.h"
#include "test.h"

#define HOSTILE      "<script>alert(\"x&y\")</script>'"
#define HOSTILE_HTML "&lt;script&gt;alert(&quot;x&amp;y&quot;)&lt;/script&gt;&#39;"

static void test_elements_escape(void)
{
    struct strbuf out = STRBUF_INIT;
    struct markup d = report_markup_html(&out);
    static const char *const head[] = {"a", HOSTILE, NULL};

    report_open(&d, "span", HOSTILE);
    CHECK_STR(out.buf, "<span class=\"" HOSTILE_HTML "\">");
    strbuf_reset(&out);
    report_element(&d, "summary", NULL, HOSTILE);
    CHECK_STR(out.buf, "<summary>" HOSTILE_HTML "</summary>");
    strbuf_reset(&out);
    report_open_attrs(&d, "th", "scope", "row", "data-v", HOSTILE, "title", NULL, "selected",
                      REPORT_BARE, NULL);
    CHECK_STR(out.buf, "<th scope=\"row\" data-v=\"" HOSTILE_HTML "\" selected>");
    strbuf_reset(&out);
    report_link(&d, "/run?name=a&b=\"c\"", HOSTILE);
    CHECK_STR(out.buf, "<a href=\"/run?name=a&amp;b=&quot;c&quot;\">" HOSTILE_HTML "</a>");
    strbuf_reset(&out);
    report_para_class(&d, HOSTILE, HOSTILE);
    CHECK_STR(out.buf, "<p class=\"" HOSTILE_HTML "\">" HOSTILE_HTML "</p>\n");
    strbuf_reset(&out);
    report_textf(&d, "%s!", HOSTILE);
    CHECK_STR(out.buf, HOSTILE_HTML "!");
    strbuf_reset(&out);
    report_item(&d, HOSTILE);
    report_footer(&d, HOSTILE);
    CHECK_STR(out.buf, "<li>" HOSTILE_HTML "</li>\n<footer>" HOSTILE_HTML "</footer>\n");
    strbuf_reset(&out);
    report_heading(&d, 3, HOSTILE, HOSTILE);
    CHECK_STR(out.buf, "<h3 id=\"" HOSTILE_HTML "\">" HOSTILE_HTML "</h3>\n");
    strbuf_reset(&out);

    /* a table with a class and a cell with a class */
    report_table_begin_class(&d, HOSTILE, "lr", head);
    report_row_begin(&d, HOSTILE);
    report_cell_class(&d, HOSTILE, HOSTILE);
    report_cell_class(&d, HOSTILE, HOSTILE);
    report_row_end(&d);
    report_table_end(&d);
    CHECK_STR(out.buf, "<table class=\"" HOSTILE_HTML "\">\n<thead><tr><th>a</th><th "
                       "class=\"num\">" HOSTILE_HTML "</th></tr></thead>\n<tbody>\n"
                       "<tr class=\"" HOSTILE_HTML "\"><td class=\"" HOSTILE_HTML "\">" HOSTILE_HTML
                       "</td><td class=\"num " HOSTILE_HTML "\">" HOSTILE_HTML "</td></tr>\n"
                       "</tbody>\n</table>\n");
    strbuf_reset(&out);

    /* a figure's caption and a page's title */
    report_svg_figure(&d, "<?xml version=\"1.0\"?>\n<svg x=\"1\"><text>t</text></svg>\n", HOSTILE,
                      NULL);
    CHECK_STR(out.buf, "<figure><svg x=\"1\"><text>t</text></svg><figcaption>" HOSTILE_HTML
                       "</figcaption></figure>\n");
    strbuf_reset(&out);
    report_svg_figure(&d, "no svg here", HOSTILE, NULL);
    CHECK(strstr(out.buf, "<p>(plot unavailable)</p>"));
    strbuf_reset(&out);
    report_html_page_head(&d, HOSTILE, 0);
    report_page_end(&d);
    CHECK(strstr(out.buf, "<title>" HOSTILE_HTML "</title>"));
    CHECK(strstr(out.buf, "<h1>" HOSTILE_HTML "</h1>"));
    CHECK(strstr(out.buf, "content=\"default-src 'none';"));
    CHECK(!strstr(out.buf, "<script"));
    CHECK(strstr(out.buf, "</body>\n</html>\n"));
    strbuf_release(&out);
}

static void test_markdown_and_trusted(void)
{
    struct strbuf out = STRBUF_INIT;
    struct markup md = report_markup_md(&out), h = report_markup_html(&out);

    /* elements and trusted fragments are HTML only; text is escaped for Markdown */
    report_open(&md, "td", HOSTILE);
    report_trusted(&md, "<b>");
    CHECK(report_svg(&md, "<svg></svg>") == 0);
    report_close(&md, "td");
    report_nl(&md);
    CHECK_INT(out.len, 0);
    report_element(&md, "span", "x", "a|b*c<d>");
    CHECK_STR(out.buf, "a\\|b\\*c&lt;d&gt;");
    strbuf_reset(&out);
    report_trusted(&h, "&ndash;<b>");
    CHECK_STR(out.buf, "&ndash;<b>");
    strbuf_reset(&out);
    CHECK(report_svg(&h, "<?xml?><svg/> no end") < 0);
    CHECK_INT(out.len, 0);
    strbuf_release(&out);
}

/* The band a shown change (pp) belongs to: |change| >= 2.5, 10, 20 steps outward. */
static const char *expected_band(double pp)
{
    static const char *const neg[] = {"chg-0", "chg-n1", "chg-n2", "chg-n3"};
    static const char *const pos[] = {"chg-0", "chg-p1", "chg-p2", "chg-p3"};
    double a = fabs(pp);
    int k = (a >= 2.5) + (a >= 10) + (a >= 20);
    return pp < 0 ? neg[k] : pos[k];
}

/*
 * One grid (one length, a depth per change) rendered both ways: every cell
 * shows the same text in both, and its HTML colour is the band of the value
 * the Markdown shows (at the thresholds too: -0.19996 reads "-20.0 pp", so it
 * is "<= -20 pp"); the legend is the one the thresholds give.
 */
static void test_change_grid_bands(void)
{
    static const double change[] = {-0.3,    -0.2,   -0.19996, -0.1996, -0.15,  -0.1,
                                    -0.0999, -0.05,  -0.025,   -0.0249, -0.024, 0,
                                    0.0004,  0.024,  0.0249,   0.025,   0.05,   0.0999,
                                    0.1,     0.1996, 0.19996,  0.2,     0.3};
    enum { N = sizeof(change) / sizeof(change[0]) };
    struct compare_test tests[N];
    struct compare_result r;
    struct strbuf html = STRBUF_INIT, md = STRBUF_INIT;
    struct markup d = report_markup_html(&html);
    const char *h, *m;
    size_t i;

    memset(&r, 0, sizeof(r));
    memset(tests, 0, sizeof(tests));
    for (i = 0; i < N; i++) {
        tests[i].scope = COMPARE_CELL;
        tests[i].length = 8192;
        tests[i].depth_bp = (int)(i * 100);
        tests[i].n_pairs = 100;
        tests[i].drop = -change[i];
        tests[i].status = CMP_OK;
    }
    r.tests = tests;
    r.n_tests = N;
    report_compare_heatmap_html(&d, &r);
    report_compare_heatmap_md(&md, &r);

    h = html.buf;
    m = strstr(md.buf, "|---|---:|\n");
    CHECK(m != NULL);
    for (i = 0; m && i < N; i++) {
        char cls[32], text[64], mtext[64];
        const char *end;
        size_t n;
        h = strstr(h, "<td class=\"num ");
        CHECK(h != NULL);
        if (!h)
            break;
        h += strlen("<td class=\"num ");
        n = strcspn(h, "\"");
        CHECK(n < sizeof(cls));
        memcpy(cls, h, n);
        cls[n] = 0;
        h = strchr(h, '>') + 1;
        end = strstr(h, "</td>");
        n = (size_t)(end - h);
        memcpy(text, h, n);
        text[n] = 0;
        /* the Markdown row "| depth | text |" of the same cell */
        m = strchr(m, '\n') + 1;
        m = strstr(m, " | ") + 3;
        end = strstr(m, " |");
        n = (size_t)(end - m);
        memcpy(mtext, m, n);
        mtext[n] = 0;
        CHECK_STR(text, mtext);
        CHECK_STR(cls, expected_band(strtod(mtext, NULL)));
        CHECK_STR(cls, report_change_band(change[i]));
    }
    CHECK(strstr(html.buf, "<table class=\"change\">\n<thead><tr><th>depth</th><th "
                           "class=\"num\">8k</th></tr></thead>\n<tbody>\n<tr><td>0%</td><td "
                           "class=\"num chg-n3\">-30.0 pp</td></tr>\n"));
    CHECK(strstr(html.buf, "</tbody>\n</table>\n<p class=\"legend\">Colour: "
                           "<span class=\"chg-n3\">&le; &minus;20 pp</span> "
                           "<span class=\"chg-n2\">&minus;10 to &minus;20</span> "
                           "<span class=\"chg-n1\">&minus;2.5 to &minus;10</span> "
                           "<span class=\"chg-0\">within &plusmn;2.5</span> "
                           "<span class=\"chg-p1\">+2.5 to +10</span> "
                           "<span class=\"chg-p2\">+10 to +20</span> "
                           "<span class=\"chg-p3\">&ge; +20 pp</span></p>\n"));
    CHECK_STR(report_change_band(NAN), "chg-na");
    strbuf_release(&html);
    strbuf_release(&md);
}

int main(void)
{
    RUN(test_elements_escape);
    RUN(test_markdown_and_trusted);
    RUN(test_change_grid_bands);
    return TEST_EXIT();
}

/*
 * The pages of `dipmap view` (see view.h): the runs of a store, a run's
 * report, two runs compared, a tag's trend. Each request opens the store
 * read-only and renders from it; report.c, report_doc.c and trend.c write the
 * documents, this file composes pages, links and the response headers.
 */
#include "report/view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "stats/compare.h"
#include "base/escape.h"
#include "base/httpd.h"
#include "run/plan.h"
#include "report/plot.h"
#include "report/report.h"
#include "report/report_doc.h"
#include "report/runbrief.h"
#include "store/store.h"
#include "base/strbuf.h"
#include "base/utc.h"
#include "base/strvec.h"
#include "stats/trend.h"
#include "base/xalloc.h"

#include "base/banned.h"

/*
 * No fetch, no framing, forms only to this server, and no script but the
 * report's sorting script (by its hash). Sent as a header on every page.
 */
static const char *view_csp(void)
{
    static char csp[256];
    if (!csp[0])
        snprintf(csp, sizeof(csp),
                 "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src %s; "
                 "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
                 report_script_csp());
    return csp;
}

static const char view_css[] =
    "nav{background:#f3f6fa;border-bottom:1px solid #ccd;padding:.4rem 1.5rem;font-size:.95rem}\n"
    "nav a{margin-right:1.2rem}\n"
    "td.fail,span.fail{color:#b00020;font-weight:600}td.pass{color:#1b6e20}\n"
    "form.cmp{margin:1rem 0;padding:.6rem;border:1px solid #ddd;background:#fafafa}\n"
    "form.cmp select{max-width:20rem}\n";

static void set_headers(struct httpd_response *resp)
{
    resp->headers[0][0] = "Content-Security-Policy";
    resp->headers[0][1] = view_csp();
    resp->headers[1][0] = "X-Content-Type-Options";
    resp->headers[1][1] = "nosniff";
    resp->headers[2][0] = "Referrer-Policy";
    resp->headers[2][1] = "no-referrer";
    resp->headers[3][0] = "Cache-Control";
    resp->headers[3][1] = "no-store";
    resp->nheaders = 4;
}

static const char nav_html[] = "<nav><a href=\"/\">All runs</a></nav>\n";

static void page_head(struct strbuf *out, const char *title)
{
    strbuf_addstr(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                       "<title>");
    escape_html(out, title);
    strbuf_addstr(out, "</title>\n<style>\n");
    strbuf_addstr(out, report_css());
    strbuf_addstr(out, view_css);
    strbuf_addstr(out, "</style>\n</head>\n<body>\n");
    strbuf_addstr(out, nav_html);
    strbuf_addstr(out, "<h1>");
    escape_html(out, title);
    strbuf_addstr(out, "</h1>\n");
}

static void page_tail(struct strbuf *out)
{
    strbuf_addstr(out, "</body>\n</html>\n");
}

/* A whole document from report.c with the view's navigation bar and CSS added. */
static void add_document(struct strbuf *out, const struct strbuf *doc)
{
    const char *body = strstr(doc->buf, "<body>\n");
    const char *style = strstr(doc->buf, "</style>");
    if (!body || !style || style > body) {
        strbuf_add(out, doc->buf, doc->len);
        return;
    }
    strbuf_add(out, doc->buf, (size_t)(style - doc->buf));
    strbuf_addstr(out, view_css);
    strbuf_add(out, style, (size_t)(body - style) + strlen("<body>\n"));
    strbuf_addstr(out, nav_html);
    strbuf_addstr(out, body + strlen("<body>\n"));
}

static void error_page(struct httpd_response *resp, int status, const char *title,
                       const char *detail)
{
    resp->status = status;
    strbuf_reset(&resp->body);
    page_head(&resp->body, title);
    strbuf_addstr(&resp->body, "<p>");
    escape_html(&resp->body, detail);
    strbuf_addstr(&resp->body, "</p>\n");
    page_tail(&resp->body);
}

static void link_run(struct strbuf *out, const char *name)
{
    strbuf_addstr(out, "<a href=\"/run?name=");
    escape_url_component(out, name);
    strbuf_addstr(out, "\">");
    escape_html(out, name);
    strbuf_addstr(out, "</a>");
}

static void link_compare(struct strbuf *out, const char *base, const char *cand, const char *text)
{
    strbuf_addstr(out, "<a href=\"/compare?base=");
    escape_url_component(out, base);
    strbuf_addstr(out, "&amp;cand=");
    escape_url_component(out, cand);
    strbuf_addstr(out, "\">");
    escape_html(out, text);
    strbuf_addstr(out, "</a>");
}

static void format_time(struct strbuf *out, double t)
{
    if (utc_format(out, t, "%Y-%m-%d %H:%M") < 0)
        strbuf_addstr(out, "&ndash;");
}

static void tag_links(struct strbuf *out, const char *tags)
{
    struct strvec v = STRVEC_INIT;
    size_t i;
    int any = 0;
    strvec_split(&v, tags ? tags : "", ',');
    for (i = 0; i < v.nr; i++) {
        if (!*v.v[i])
            continue;
        strbuf_addstr(out, any ? ", " : "");
        strbuf_addstr(out, "<a href=\"/trend?tag=");
        escape_url_component(out, v.v[i]);
        strbuf_addstr(out, "\">");
        escape_html(out, v.v[i]);
        strbuf_addstr(out, "</a>");
        any = 1;
    }
    if (!any)
        strbuf_addstr(out, "&ndash;");
    strvec_clear(&v);
}

static void run_select(struct strbuf *out, const char *name, const char *label,
                       const struct run_info *v, size_t n, size_t selected)
{
    size_t i;
    strbuf_addf(out, "<label>%s <select name=\"%s\">", label, name);
    for (i = 0; i < n; i++) {
        strbuf_addstr(out, "<option value=\"");
        escape_html(out, v[i].name);
        strbuf_addstr(out, i == selected ? "\" selected>" : "\">");
        escape_html(out, v[i].name);
        strbuf_addstr(out, "</option>");
    }
    strbuf_addstr(out, "</select></label>\n");
}

/* ---- / : the runs ---- */

static void page_runs(struct store *st, const char *db, struct httpd_response *resp)
{
    struct strbuf *out = &resp->body;
    struct run_info *v = NULL;
    size_t n = 0, i;

    if (store_run_list(st, NULL, &v, &n) < 0) {
        error_page(resp, 500, "Cannot read the store", db);
        return;
    }
    page_head(out, "dipmap runs");
    strbuf_addstr(out, "<p>Store <code>");
    escape_html(out, db);
    strbuf_addf(out,
                "</code>: %zu run%s, oldest first. Read-only; every page is rendered from "
                "the store when it is requested.</p>\n",
                n, n == 1 ? "" : "s");
    if (n >= 2) {
        strbuf_addstr(out, "<form class=\"cmp\" method=\"get\" action=\"/compare\">\n"
                           "<strong>Compare two runs</strong> ");
        run_select(out, "base", "baseline", v, n, n - 2);
        run_select(out, "cand", "candidate", v, n, n - 1);
        strbuf_addstr(out, "<button type=\"submit\">Compare</button>\n</form>\n");
    }
    strbuf_addstr(out, "<table id=\"runs\">\n<thead><tr><th>Run</th><th>Model</th><th>Tags</th>"
                       "<th>Status</th><th>Valid / finished</th><th>Accuracy</th>"
                       "<th>Dip (largest)</th><th>Created (UTC)</th></tr></thead>\n<tbody>\n");
    for (i = 0; i < n; i++) {
        struct runbrief b;
        int brc = runbrief_load(st, v[i].name, &b);
        strbuf_addstr(out, "<tr><td>");
        link_run(out, v[i].name);
        strbuf_addstr(out, "</td><td>");
        escape_html(out, v[i].model_requested);
        if (v[i].model_served && v[i].model_requested &&
            strcmp(v[i].model_served, v[i].model_requested)) {
            strbuf_addstr(out, " (");
            escape_html(out, v[i].model_served);
            strbuf_addstr(out, ")");
        }
        strbuf_addstr(out, "</td><td>");
        tag_links(out, v[i].tags);
        strbuf_addf(out, "</td><td>%s</td>", run_info_status_text(&v[i]));
        if (brc) {
            strbuf_addstr(out, "<td colspan=\"3\">cannot read trials</td>");
        } else {
            strbuf_addf(out, "<td class=\"num\">%ld / %ld</td><td class=\"num\">", b.valid,
                        b.trials);
            if (isnan(b.accuracy))
                strbuf_addstr(out, "&ndash;");
            else
                report_pct(out, b.accuracy);
            strbuf_addstr(out, "</td><td class=\"num\">");
            if (isnan(b.dip_max)) {
                strbuf_addstr(out, "&ndash;");
            } else {
                report_pp(out, b.dip_max);
                strbuf_addstr(out, " at ");
                plan_format_length(out, b.dip_max_length);
            }
            strbuf_addstr(out, "</td>");
            runbrief_release(&b);
        }
        strbuf_addstr(out, "<td>");
        format_time(out, v[i].created_at);
        strbuf_addstr(out, "</td></tr>\n");
    }
    strbuf_addstr(out, "</tbody>\n</table>\n");
    if (!n)
        strbuf_addstr(out, "<p>No runs yet: <code>dipmap run ... --db</code> this store.</p>\n");
    page_tail(out);
    run_info_list_free(v, n);
}

/* ---- /run?name=R ---- */

static void page_run(struct store *st, const char *name, struct httpd_response *resp)
{
    struct report_doc d;
    struct strbuf err = STRBUF_INIT, doc = STRBUF_INIT;
    int rc;

    report_doc_init(&d);
    rc = report_doc_load(&d, st, name, NULL, &err);
    if (rc) {
        if (rc > 0)
            error_page(resp, 404, "No such run", name);
        else
            error_page(resp, 500, "Cannot load the run", err.len ? err.buf : name);
        goto cleanup;
    }
    report_doc_plots(
        &d, d.have_order
                ? report_order_plot(NULL, 1u << PLOT_SVG, &d.run, &d.order, &d.usvg)
                : report_run_plots(NULL, 1u << PLOT_SVG, &d.run, &d.stats, &d.usvg, &d.hsvg));
    report_doc_axis_plots(&d, NULL, 1u << PLOT_SVG, NULL, NULL); /* a failure only drops them */
    report_doc_failures(&d, NULL, (double)time(NULL));
    report_doc_prompts(&d, st);
    report_html(&doc, &d.in);
    add_document(&resp->body, &doc);
cleanup:
    report_doc_release(&d);
    strbuf_release(&err);
    strbuf_release(&doc);
}

/* ---- /compare?base=A&cand=B ---- */

static void page_compare(struct store *st, const char *base, const char *cand,
                         struct httpd_response *resp)
{
    struct run_info bi, ci;
    struct compare_doc cd;
    struct strbuf doc = STRBUF_INIT;
    int rb, rcand;

    run_info_init(&bi);
    run_info_init(&ci);
    compare_doc_init(&cd);
    rb = store_run_get(st, base, &bi);
    rcand = store_run_get(st, cand, &ci);
    if (rb || rcand) {
        error_page(resp, rb > 0 || rcand > 0 ? 404 : 500, "No such run", rb ? base : cand);
        goto cleanup;
    }
    if (!strcmp(base, cand)) {
        error_page(resp, 400, "Pick two different runs",
                   "A run compared with itself proves nothing: choose another baseline.");
        goto cleanup;
    }
    if (compare_doc_load(&cd, st, st, &bi, &ci, NULL, 0) < 0) {
        error_page(resp, 500, "Cannot load the trials", base);
        goto cleanup;
    }
    if (report_compare_page(&doc, &cd.res, &cd.meta, cd.base_trials, cd.n_base, cd.cand_trials,
                            cd.n_cand) < 0) {
        error_page(resp, 500, "Cannot compare the runs", cand);
        goto cleanup;
    }
    add_document(&resp->body, &doc);
cleanup:
    compare_doc_release(&cd);
    run_info_release(&bi);
    run_info_release(&ci);
    strbuf_release(&doc);
}

/* ---- /trend?tag=T ---- */

static void add_estimate_cell(struct strbuf *out, const struct length_stats *l, int dip)
{
    strbuf_addstr(out, "<td class=\"num\">");
    if (!l || !l->has_middle) {
        strbuf_addstr(out, "&ndash;</td>");
        return;
    }
    if (dip)
        report_pp(out, l->dip.est);
    else
        report_pct(out, l->edge.est);
    strbuf_addstr(out, "</td>");
}

static void page_trend(struct store *st, const char *tag, struct httpd_response *resp)
{
    struct strbuf *out = &resp->body, svg = STRBUF_INIT, err = STRBUF_INIT, what = STRBUF_INIT;
    struct run_filter f = {NULL, tag, NULL};
    struct trend tr;
    size_t i, j;
    int rc, pr;

    strbuf_addf(&what, "tag %s", tag);
    rc = trend_load(&tr, st, &f, &err);
    if (rc) {
        if (rc > 0)
            error_page(resp, 404, "No runs carry this tag", tag);
        else
            error_page(resp, 500, "Cannot load the trend", err.len ? err.buf : tag);
        goto cleanup;
    }
    page_head(out, what.buf);
    pr = trend_plot(&tr, what.buf, NULL, 1u << PLOT_SVG, &svg);
    if (pr == PLOT_OK && plot_svg_element(out, svg.buf) == 0)
        strbuf_addstr(out, "\n");
    else
        strbuf_addstr(out, "<p class=\"note\">Trend plot not drawn: gnuplot is not available "
                           "here.</p>\n");
    strbuf_addstr(out, "<h2>Runs, oldest first</h2>\n<table id=\"trend\">\n<thead><tr><th>Run</th>"
                       "<th>Created (UTC)</th><th>Status</th>");
    for (j = 0; j < tr.nlen; j++) {
        strbuf_addstr(out, "<th>Edge ");
        plan_format_length(out, tr.lengths[j]);
        strbuf_addstr(out, "</th><th>Dip ");
        plan_format_length(out, tr.lengths[j]);
        strbuf_addstr(out, "</th>");
    }
    strbuf_addstr(out, "<th>vs previous complete run</th></tr></thead>\n<tbody>\n");
    for (i = 0; i < tr.n; i++) {
        const struct trend_run *t = &tr.t[i];
        int failed = t->compared && t->verdict == VERDICT_FAIL;
        strbuf_addstr(out, failed ? "<tr class=\"regressed\"><td>" : "<tr><td>");
        link_run(out, tr.runs[i].name);
        strbuf_addstr(out, "</td><td>");
        format_time(out, tr.runs[i].created_at);
        strbuf_addf(out, "</td><td>%s</td>", run_info_status_text(&tr.runs[i]));
        for (j = 0; j < tr.nlen; j++) {
            const struct length_stats *l = NULL;
            size_t k;
            for (k = 0; k < t->stats.n_lengths; k++)
                if (t->stats.lengths[k].length == tr.lengths[j])
                    l = &t->stats.lengths[k];
            add_estimate_cell(out, l, 0);
            add_estimate_cell(out, l, 1);
        }
        if (t->prev < 0) {
            strbuf_addstr(out, "<td>&ndash; (no earlier complete run)</td>");
        } else if (!t->compared) {
            strbuf_addstr(out, "<td>not comparable (inputs differ)</td>");
        } else {
            struct strbuf txt = STRBUF_INIT;
            strbuf_addf(&txt, "%s vs %s", compare_verdict_name(t->verdict), tr.runs[t->prev].name);
            if (failed)
                strbuf_addf(&txt, " (%ld regression%s)", t->regressions,
                            t->regressions == 1 ? "" : "s");
            strbuf_addf(out, "<td class=\"%s\">", failed ? "fail" : "pass");
            link_compare(out, tr.runs[t->prev].name, tr.runs[i].name, txt.buf);
            strbuf_addstr(out, "</td>");
            strbuf_release(&txt);
        }
        strbuf_addstr(out, "</tr>\n");
    }
    strbuf_addstr(out, "</tbody>\n</table>\n");
    page_tail(out);
cleanup:
    trend_release(&tr);
    strbuf_release(&svg);
    strbuf_release(&err);
    strbuf_release(&what);
}

/* ---- dispatch ---- */

/* Loopback serving: only Host names of this machine (no DNS rebinding from a web page). */
static int host_allowed(const struct view_ctx *v, const char *host)
{
    struct strvec ok = STRVEC_INIT;
    size_t i;
    int yes = 0;
    if (!v->hosts)
        return 1;
    if (!host)
        return 0;
    strvec_split(&ok, v->hosts, ',');
    for (i = 0; i < ok.nr && !yes; i++) {
        struct strbuf want = STRBUF_INIT;
        strbuf_addf(&want, "%s:%d", ok.v[i], v->port);
        yes = !strcasecmp(host, want.buf);
        strbuf_release(&want);
    }
    strvec_clear(&ok);
    return yes;
}

static const char *need(const struct httpd_request *rq, const char *key,
                        struct httpd_response *resp)
{
    const char *v = httpd_query(rq, key);
    if (!v || !*v) {
        struct strbuf msg = STRBUF_INIT;
        strbuf_addf(&msg, "This page needs ?%s=... in its address.", key);
        error_page(resp, 400, "Missing parameter", msg.buf);
        strbuf_release(&msg);
        return NULL;
    }
    return v;
}

void view_handle(const struct httpd_request *rq, struct httpd_response *resp, void *data)
{
    const struct view_ctx *v = data;
    struct store *st = NULL;
    const char *a, *b;

    set_headers(resp);
    if (!host_allowed(v, httpd_header(rq, "Host"))) {
        error_page(resp, 421, "Wrong host",
                   "dipmap view answers only to 127.0.0.1, localhost and [::1] (start it with "
                   "--listen to serve other names).");
        return;
    }
    if (!strcmp(rq->path, "/favicon.ico")) {
        resp->status = 204;
        return;
    }
    st = store_open(v->db, STORE_READONLY);
    if (!st) {
        error_page(resp, 500, "Cannot open the store", v->db);
        return;
    }
    if (!strcmp(rq->path, "/")) {
        page_runs(st, v->db, resp);
    } else if (!strcmp(rq->path, "/run")) {
        if ((a = need(rq, "name", resp)))
            page_run(st, a, resp);
    } else if (!strcmp(rq->path, "/compare")) {
        if ((a = need(rq, "base", resp)) && (b = need(rq, "cand", resp)))
            page_compare(st, a, b, resp);
    } else if (!strcmp(rq->path, "/trend")) {
        if ((a = need(rq, "tag", resp)))
            page_trend(st, a, resp);
    } else {
        error_page(resp, 404, "Not found", rq->path);
    }
    store_close(st);
}

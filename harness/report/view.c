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
#include "report/report-int.h"
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

/* The navigation bar above every page's title. */
static void view_nav(struct markup *d)
{
    report_open(d, "nav", NULL);
    report_link(d, "/", "All runs");
    report_close(d, "nav");
    report_nl(d);
}

static void page_head(struct markup *d, const char *title)
{
    struct markup_page p = {title, NULL, view_css, view_nav};
    report_page_begin(d, &p);
}

/* A whole document from report.c with the view's navigation bar and CSS added. */
static void add_document(struct strbuf *out, const struct strbuf *doc)
{
    struct markup d = report_markup_html(out);
    const char *body = strstr(doc->buf, "<body>\n");
    const char *style = strstr(doc->buf, "</style>");
    if (!body || !style || style > body) {
        strbuf_add(out, doc->buf, doc->len);
        return;
    }
    strbuf_add(out, doc->buf, (size_t)(style - doc->buf));
    strbuf_addstr(out, view_css);
    strbuf_add(out, style, (size_t)(body - style) + strlen("<body>\n"));
    view_nav(&d);
    strbuf_addstr(out, body + strlen("<body>\n"));
}

static void error_page(struct httpd_response *resp, int status, const char *title,
                       const char *detail)
{
    struct markup d = report_markup_html(&resp->body);
    resp->status = status;
    strbuf_reset(&resp->body);
    page_head(&d, title);
    report_para(&d, detail);
    report_page_end(&d);
}

static void link_run(struct markup *d, const char *name)
{
    struct strbuf href = STRBUF_INIT;
    strbuf_addstr(&href, "/run?name=");
    escape_url_component(&href, name);
    report_link(d, href.buf, name);
    strbuf_release(&href);
}

static void link_compare(struct markup *d, const char *base, const char *cand, const char *text)
{
    struct strbuf href = STRBUF_INIT;
    strbuf_addstr(&href, "/compare?base=");
    escape_url_component(&href, base);
    strbuf_addstr(&href, "&cand=");
    escape_url_component(&href, cand);
    report_link(d, href.buf, text);
    strbuf_release(&href);
}

static void dash(struct markup *d)
{
    report_trusted(d, "&ndash;");
}

static void format_time(struct markup *d, double t)
{
    struct strbuf sb = STRBUF_INIT;
    if (utc_format(&sb, t, "%Y-%m-%d %H:%M") < 0)
        dash(d);
    else
        report_text(d, sb.buf);
    strbuf_release(&sb);
}

static void tag_links(struct markup *d, const char *tags)
{
    struct strvec v = STRVEC_INIT;
    struct strbuf href = STRBUF_INIT;
    size_t i;
    int any = 0;
    strvec_split(&v, tags ? tags : "", ',');
    for (i = 0; i < v.nr; i++) {
        if (!*v.v[i])
            continue;
        if (any)
            report_text(d, ", ");
        strbuf_reset(&href);
        strbuf_addstr(&href, "/trend?tag=");
        escape_url_component(&href, v.v[i]);
        report_link(d, href.buf, v.v[i]);
        any = 1;
    }
    if (!any)
        dash(d);
    strvec_clear(&v);
    strbuf_release(&href);
}

static void run_select(struct markup *d, const char *name, const char *label,
                       const struct run_info *v, size_t n, size_t selected)
{
    size_t i;
    report_open(d, "label", NULL);
    report_text(d, label);
    report_text(d, " ");
    report_open_attrs(d, "select", "name", name, NULL);
    for (i = 0; i < n; i++) {
        report_open_attrs(d, "option", "value", v[i].name, "selected",
                          i == selected ? REPORT_BARE : NULL, NULL);
        report_text(d, v[i].name);
        report_close(d, "option");
    }
    report_close(d, "select");
    report_close(d, "label");
    report_nl(d);
}

/* A table with an id, its columns' titles, and the opening of its body. */
static void table_begin(struct markup *d, const char *id, const char *const *head)
{
    size_t i;
    report_open_attrs(d, "table", "id", id, NULL);
    report_nl(d);
    report_open(d, "thead", NULL);
    report_open(d, "tr", NULL);
    for (i = 0; head[i]; i++)
        report_element(d, "th", NULL, head[i]);
    report_close(d, "tr");
    report_close(d, "thead");
    report_nl(d);
    report_open(d, "tbody", NULL);
    report_nl(d);
}

static void table_end(struct markup *d)
{
    report_close(d, "tbody");
    report_nl(d);
    report_close(d, "table");
    report_nl(d);
}

/* ---- / : the runs ---- */

/* The numbers cell of a run: accuracy or dip, an en dash when not estimable. */
static void number_cell(struct markup *d, const char *text)
{
    report_open(d, "td", "num");
    if (text)
        report_text(d, text);
    else
        dash(d);
    report_close(d, "td");
}

/* One run of the list: name, model, tags, status, valid / finished, accuracy, dip, created. */
static void runs_row(struct markup *d, struct store *st, const struct run_info *r)
{
    struct strbuf sb = STRBUF_INIT;
    struct runbrief b;
    int brc = runbrief_load(st, r->name, &b);

    report_open(d, "tr", NULL);
    report_open(d, "td", NULL);
    link_run(d, r->name);
    report_close(d, "td");
    report_open(d, "td", NULL);
    report_text(d, r->model_requested);
    if (r->model_served && r->model_requested && strcmp(r->model_served, r->model_requested)) {
        report_text(d, " (");
        report_text(d, r->model_served);
        report_text(d, ")");
    }
    report_close(d, "td");
    report_open(d, "td", NULL);
    tag_links(d, r->tags);
    report_close(d, "td");
    report_element(d, "td", NULL, run_info_status_text(r));
    if (brc) {
        report_open_attrs(d, "td", "colspan", "3", NULL);
        report_text(d, "cannot read trials");
        report_close(d, "td");
    } else {
        strbuf_addf(&sb, "%ld / %ld", b.valid, b.trials);
        number_cell(d, sb.buf);
        strbuf_reset(&sb);
        report_pct(&sb, b.accuracy);
        number_cell(d, isnan(b.accuracy) ? NULL : sb.buf);
        strbuf_reset(&sb);
        report_pp(&sb, b.dip_max);
        strbuf_addstr(&sb, " at ");
        plan_format_length(&sb, b.dip_max_length);
        number_cell(d, isnan(b.dip_max) ? NULL : sb.buf);
        runbrief_release(&b);
    }
    report_open(d, "td", NULL);
    format_time(d, r->created_at);
    report_close(d, "td");
    report_close(d, "tr");
    report_nl(d);
    strbuf_release(&sb);
}

static void page_runs(struct store *st, const char *db, struct httpd_response *resp)
{
    static const char *const head[] = {
        "Run",      "Model",         "Tags",          "Status", "Valid / finished",
        "Accuracy", "Dip (largest)", "Created (UTC)", NULL};
    struct markup m = report_markup_html(&resp->body), *d = &m;
    struct run_info *v = NULL;
    size_t n = 0, i;

    if (store_run_list(st, NULL, &v, &n) < 0) {
        error_page(resp, 500, "Cannot read the store", db);
        return;
    }
    page_head(d, "dipmap runs");
    report_open(d, "p", NULL);
    report_text(d, "Store ");
    report_element(d, "code", NULL, db);
    report_textf(d,
                 ": %zu run%s, oldest first. Read-only; every page is rendered from the store "
                 "when it is requested.",
                 n, n == 1 ? "" : "s");
    report_close(d, "p");
    report_nl(d);
    if (n >= 2) {
        report_open_attrs(d, "form", "class", "cmp", "method", "get", "action", "/compare", NULL);
        report_nl(d);
        report_element(d, "strong", NULL, "Compare two runs");
        report_text(d, " ");
        run_select(d, "base", "baseline", v, n, n - 2);
        run_select(d, "cand", "candidate", v, n, n - 1);
        report_open_attrs(d, "button", "type", "submit", NULL);
        report_text(d, "Compare");
        report_close(d, "button");
        report_nl(d);
        report_close(d, "form");
        report_nl(d);
    }
    table_begin(d, "runs", head);
    for (i = 0; i < n; i++)
        runs_row(d, st, &v[i]);
    table_end(d);
    if (!n) {
        report_open(d, "p", NULL);
        report_text(d, "No runs yet: ");
        report_element(d, "code", NULL, "dipmap run ... --db");
        report_text(d, " this store.");
        report_close(d, "p");
        report_nl(d);
    }
    report_page_end(d);
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
    struct strbuf doc = STRBUF_INIT, why = STRBUF_INIT;
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
                            cd.n_cand, &why) < 0) {
        error_page(resp, 500, "Cannot compare the runs", why.buf);
        goto cleanup;
    }
    add_document(&resp->body, &doc);
cleanup:
    compare_doc_release(&cd);
    run_info_release(&bi);
    run_info_release(&ci);
    strbuf_release(&doc);
    strbuf_release(&why);
}

/* ---- /trend?tag=T ---- */

static void add_estimate_cell(struct markup *d, const struct length_stats *l, int dip)
{
    struct strbuf sb = STRBUF_INIT;
    if (l && l->has_middle) {
        if (dip)
            report_pp(&sb, l->dip.est);
        else
            report_pct(&sb, l->edge.est);
    }
    number_cell(d, l && l->has_middle ? sb.buf : NULL);
    strbuf_release(&sb);
}

static void page_trend(struct store *st, const char *tag, struct httpd_response *resp)
{
    struct markup m = report_markup_html(&resp->body), *d = &m;
    struct strbuf svg = STRBUF_INIT, err = STRBUF_INIT, what = STRBUF_INIT, sb = STRBUF_INIT;
    struct strvec head = STRVEC_INIT;
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
    page_head(d, what.buf);
    pr = trend_plot(&tr, what.buf, NULL, 1u << PLOT_SVG, &svg);
    if (pr == PLOT_OK && report_svg(d, svg.buf) == 0)
        report_nl(d);
    else
        report_para_class(d, "note", "Trend plot not drawn: gnuplot is not available here.");
    report_heading(d, 2, "Runs, oldest first", NULL);
    strvec_push(&head, "Run");
    strvec_push(&head, "Created (UTC)");
    strvec_push(&head, "Status");
    for (j = 0; j < tr.nlen; j++) {
        strbuf_reset(&sb);
        strbuf_addstr(&sb, "Edge ");
        plan_format_length(&sb, tr.lengths[j]);
        strvec_push(&head, sb.buf);
        strbuf_reset(&sb);
        strbuf_addstr(&sb, "Dip ");
        plan_format_length(&sb, tr.lengths[j]);
        strvec_push(&head, sb.buf);
    }
    strvec_push(&head, "vs last passing run (--against last-pass)");
    table_begin(d, "trend", (const char *const *)head.v);
    for (i = 0; i < tr.n; i++) {
        const struct trend_run *t = &tr.t[i];
        int failed = t->compared && t->verdict == VERDICT_FAIL;
        report_open(d, "tr", failed ? "regressed" : NULL);
        report_open(d, "td", NULL);
        link_run(d, tr.runs[i].name);
        report_close(d, "td");
        report_open(d, "td", NULL);
        format_time(d, tr.runs[i].created_at);
        report_close(d, "td");
        report_element(d, "td", NULL, run_info_status_text(&tr.runs[i]));
        for (j = 0; j < tr.nlen; j++) {
            const struct length_stats *l = NULL;
            size_t k;
            for (k = 0; k < t->stats.n_lengths; k++)
                if (t->stats.lengths[k].length == tr.lengths[j])
                    l = &t->stats.lengths[k];
            add_estimate_cell(d, l, 0);
            add_estimate_cell(d, l, 1);
        }
        if (t->prev < 0) {
            report_open(d, "td", NULL);
            dash(d);
            report_text(d, " (no earlier complete run)");
            report_close(d, "td");
        } else if (!t->compared) {
            report_element(d, "td", NULL, "not comparable (inputs differ)");
        } else {
            strbuf_reset(&sb);
            strbuf_addf(&sb, "%s vs %s", compare_verdict_name(t->verdict), tr.runs[t->prev].name);
            if (failed)
                strbuf_addf(&sb, " (%ld regression%s)", t->regressions,
                            t->regressions == 1 ? "" : "s");
            report_open(d, "td", failed ? "fail" : "pass");
            link_compare(d, tr.runs[t->prev].name, tr.runs[i].name, sb.buf);
            report_close(d, "td");
        }
        report_close(d, "tr");
        report_nl(d);
    }
    table_end(d);
    report_page_end(d);
cleanup:
    trend_release(&tr);
    strvec_clear(&head);
    strbuf_release(&svg);
    strbuf_release(&err);
    strbuf_release(&what);
    strbuf_release(&sb);
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

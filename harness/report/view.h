#ifndef VIEW_H
#define VIEW_H

struct httpd_request;
struct httpd_response;

/*
 * The pages of `dipmap view`, rendered from the store on every request (the
 * store is opened read-only per request, so a page is never stale):
 *   /                      the runs: model, tags, status, valid trials, accuracy, dip;
 *                          a form to compare any two
 *   /run?name=R            run R's report (the same page as report.html)
 *   /compare?base=A&cand=B the comparison of two runs (the same page as compare.html)
 *   /trend?tag=T           the trend of a tag: plot and table, one point per run, runs whose
 *                          comparison with the previous complete run failed marked
 * Every value from the store is HTML-escaped; pages carry a Content-Security-Policy
 * that allows no script, no fetch and no form target but this server.
 */
struct view_ctx {
    const char *db;    /* store path */
    const char *hosts; /* accepted Host header names, comma-separated; NULL: any (--listen) */
    int port;
};

/* The httpd handler; data is a struct view_ctx. */
void view_handle(const struct httpd_request *rq, struct httpd_response *resp, void *data);

#endif

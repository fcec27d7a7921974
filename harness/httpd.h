#ifndef HTTPD_H
#define HTTPD_H

#include "strbuf.h"

/*
 * A small HTTP/1.1 server for dipmap's own pages (dipmap view): libmicrohttpd
 * behind a request -> response callback, so no other module sees its types.
 * One internal thread serves the requests one at a time (the handler needs no
 * locking). Only GET and HEAD reach the handler; other methods get 405, a
 * request body is refused with 413.
 */

struct httpd;

struct httpd_request {
    const char *method; /* "GET" or "HEAD" */
    const char *path;   /* URL path, percent-decoded, without the query */
    void *conn;         /* private */
};

/* A decoded query-string value (?key=value), or NULL. Valid during the handler. */
const char *httpd_query(const struct httpd_request *rq, const char *key);
/* A request header, or NULL. Valid during the handler. */
const char *httpd_header(const struct httpd_request *rq, const char *name);

#define HTTPD_MAX_HEADERS 8

/* What the handler fills in; status defaults to 200, content_type to text/html. */
struct httpd_response {
    int status;
    const char *content_type; /* static string */
    struct strbuf body;
    const char *headers[HTTPD_MAX_HEADERS][2]; /* extra headers (name, value), static strings */
    int nheaders;
};

typedef void (*httpd_handler)(const struct httpd_request *rq, struct httpd_response *resp,
                              void *data);

/*
 * Listen on host:port (port 0: any free port) and serve with fn(rq, resp,
 * data). Returns NULL with the reason in err (address in use, cannot resolve).
 */
struct httpd *httpd_start(const char *host, int port, httpd_handler fn, void *data,
                          struct strbuf *err);
/* The port actually bound. */
int httpd_port(const struct httpd *h);
/* Stop serving (in-flight requests finish) and free. NULL is a no-op. */
void httpd_stop(struct httpd *h);

#endif

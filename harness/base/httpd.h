#ifndef HTTPD_H
#define HTTPD_H

#include <stddef.h>

#include "base/strbuf.h"

/*
 * dipmap's HTTP/1.1 servers (dipmap view's pages, serve-sim's OpenAI routes):
 * libmicrohttpd behind a request -> response callback, so no other module
 * sees its types. How requests are served is the caller's choice
 * (struct httpd_options): view takes GET/HEAD only on one thread (its handler
 * needs no locking), serve-sim takes any method with a body, a thread per
 * connection (its handlers run at the same time and lock what they share).
 */

struct httpd;

struct httpd_request {
    const char *method; /* "GET", "HEAD", "POST", ... */
    const char *path;   /* URL path, percent-decoded, without the query */
    /* the request body (with httpd_options.bodies; "" when none), NUL-terminated */
    const char *body;
    size_t body_len;
    int body_too_big; /* the body was larger than httpd_options.body_max: body is cut */
    void *conn;       /* private */
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
    /* extra headers (name, value): static strings, or values copied by httpd_add_header() */
    const char *headers[HTTPD_MAX_HEADERS][2];
    int nheaders;
    char *owned[HTTPD_MAX_HEADERS]; /* private: the copies */
    /* faults (serve-sim): close the connection without a response; or send the first half of
       the body under the full Content-Length, then close */
    int drop;
    int truncate;
};

/* Add a header (name a static string; value copied). Headers past HTTPD_MAX_HEADERS are dropped. */
void httpd_add_header(struct httpd_response *resp, const char *name, const char *value);

typedef void (*httpd_handler)(const struct httpd_request *rq, struct httpd_response *resp,
                              void *data);

struct httpd_options {
    const char *host; /* address to listen on (a name or literal, IPv4 or IPv6) */
    int port;         /* 0: any free port */
    /*
     * 0: GET and HEAD only (others 405, a request body 413), one thread serves the
     * requests one at a time. 1: every method and its body reach the handler, a thread per
     * connection (handlers run concurrently).
     */
    int bodies;
    size_t body_max;          /* with bodies: bytes kept of a body (body_too_big past it) */
    unsigned max_connections; /* at the same time */
    unsigned timeout_s;       /* an idle connection is closed after this */
    size_t conn_memory;       /* per connection, for headers (libmicrohttpd's pool) */
    unsigned backlog;         /* listen() backlog; 0: the library's default */
};

/*
 * Listen as o says and serve with fn(rq, resp, data). Returns NULL with the
 * reason in err (address in use, cannot resolve).
 */
struct httpd *httpd_start(const struct httpd_options *o, httpd_handler fn, void *data,
                          struct strbuf *err);
/* The port actually bound. */
int httpd_port(const struct httpd *h);
/* Stop serving (in-flight requests finish) and free. NULL is a no-op. */
void httpd_stop(struct httpd *h);

struct strbuf;
/* Appends "libmicrohttpd VERSION" of the library linked at run time (dipmap --version). */
void httpd_library_version(struct strbuf *out);

#endif

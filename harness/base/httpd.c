/*
 * The HTTP server layer of dipmap view and serve-sim (see httpd.h):
 * libmicrohttpd (the only file that includes <microhttpd.h>) with the
 * threading, body and method rules of struct httpd_options, responses built
 * by a callback into a strbuf. Owns the daemon, the per-connection body and
 * the mapping of the library's types.
 */
#define _GNU_SOURCE
#include "base/httpd.h"

#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "base/strbuf.h"
#include "base/xalloc.h"

#include "base/banned.h"

struct httpd {
    struct MHD_Daemon *daemon;
    struct httpd_options o;
    httpd_handler fn;
    void *data;
    int port;
};

/* Per connection: the request body read so far. */
struct conn {
    struct strbuf body;
    int too_big;
};

const char *httpd_query(const struct httpd_request *rq, const char *key)
{
    return MHD_lookup_connection_value(rq->conn, MHD_GET_ARGUMENT_KIND, key);
}

const char *httpd_header(const struct httpd_request *rq, const char *name)
{
    return MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, name);
}

void httpd_add_header(struct httpd_response *resp, const char *name, const char *value)
{
    int i = resp->nheaders;
    if (i >= HTTPD_MAX_HEADERS)
        return;
    resp->owned[i] = xstrdup(value);
    resp->headers[i][0] = name;
    resp->headers[i][1] = resp->owned[i];
    resp->nheaders++;
}

static enum MHD_Result send_text(struct MHD_Connection *c, unsigned status, const char *text)
{
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
    enum MHD_Result ret;
    if (!resp)
        return MHD_NO;
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
    ret = MHD_queue_response(c, status, resp);
    MHD_destroy_response(resp);
    return ret;
}

/* A truncated transfer: the first `send` bytes of body, then the connection fails. */
struct trunc_state {
    char *body;
    size_t send;
};

static ssize_t trunc_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    struct trunc_state *t = cls;
    size_t n;
    if (pos >= t->send)
        return MHD_CONTENT_READER_END_WITH_ERROR;
    n = t->send - (size_t)pos;
    if (n > max)
        n = max;
    memcpy(buf, t->body + pos, n);
    return (ssize_t)n;
}

static void trunc_free(void *cls)
{
    struct trunc_state *t = cls;
    free(t->body);
    free(t);
}

static void response_release(struct httpd_response *resp)
{
    int i;
    strbuf_release(&resp->body);
    for (i = 0; i < HTTPD_MAX_HEADERS; i++)
        free(resp->owned[i]);
}

static enum MHD_Result send_response(struct MHD_Connection *c, struct httpd_response *resp)
{
    struct MHD_Response *mr;
    enum MHD_Result ret;
    size_t len;
    char *body;
    int i;

    if (resp->drop)
        return MHD_NO;
    body = strbuf_detach(&resp->body, &len);
    if (resp->truncate && len > 1) {
        struct trunc_state *t = xmalloc(sizeof(*t));
        t->body = body;
        t->send = len / 2;
        mr = MHD_create_response_from_callback(len, 4096, trunc_reader, t, trunc_free);
        if (!mr)
            trunc_free(t);
    } else {
        mr = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
        if (!mr)
            free(body);
    }
    if (!mr)
        return MHD_NO;
    MHD_add_response_header(mr, MHD_HTTP_HEADER_CONTENT_TYPE, resp->content_type);
    for (i = 0; i < resp->nheaders && i < HTTPD_MAX_HEADERS; i++)
        MHD_add_response_header(mr, resp->headers[i][0], resp->headers[i][1]);
    if (resp->truncate)
        MHD_add_response_header(mr, MHD_HTTP_HEADER_CONNECTION, "close");
    ret = MHD_queue_response(c, (unsigned)resp->status, mr);
    MHD_destroy_response(mr);
    return ret;
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode toe)
{
    struct httpd *h = cls;
    (void)c;
    (void)toe;
    if (*con_cls && *con_cls != h) {
        struct conn *k = *con_cls;
        strbuf_release(&k->body);
        free(k);
    }
    *con_cls = NULL;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_size, void **con_cls)
{
    struct httpd *h = cls;
    struct conn *k = NULL;
    struct httpd_request rq;
    struct httpd_response resp;
    enum MHD_Result ret;

    (void)version;
    if (!*con_cls) { /* first call: headers only */
        if (h->o.bodies) {
            k = xcalloc(1, sizeof(*k));
            strbuf_init(&k->body, 0);
            strbuf_set_cap(&k->body, h->o.body_max);
            *con_cls = k;
        } else {
            *con_cls = h;
        }
        return MHD_YES;
    }
    if (h->o.bodies) {
        k = *con_cls;
        if (*upload_size) {
            if (!k->too_big && strbuf_add_capped(&k->body, upload_data, *upload_size))
                k->too_big = 1;
            *upload_size = 0;
            return MHD_YES;
        }
    } else {
        if (*upload_size) {
            *upload_size = 0;
            return send_text(c, MHD_HTTP_CONTENT_TOO_LARGE, "request bodies are not accepted\n");
        }
        if (strcmp(method, "GET") && strcmp(method, "HEAD"))
            return send_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "read-only: GET only\n");
    }

    memset(&rq, 0, sizeof(rq));
    rq.method = method;
    rq.path = url;
    rq.body = k && k->body.buf ? k->body.buf : "";
    rq.body_len = k ? k->body.len : 0;
    rq.body_too_big = k ? k->too_big : 0;
    rq.conn = c;
    memset(&resp, 0, sizeof(resp));
    resp.status = 200;
    resp.content_type = "text/html; charset=utf-8";
    strbuf_init(&resp.body, 0);
    h->fn(&rq, &resp, h->data);
    ret = send_response(c, &resp);
    response_release(&resp);
    return ret;
}

struct httpd *httpd_start(const struct httpd_options *o, httpd_handler fn, void *data,
                          struct strbuf *err)
{
    struct addrinfo hints, *res = NULL;
    struct sockaddr_storage ss;
    char portstr[16];
    const union MHD_DaemonInfo *info;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ITC;
    struct httpd *h;
    int rc;

    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    snprintf(portstr, sizeof(portstr), "%d", o->port);
    rc = getaddrinfo(o->host, portstr, &hints, &res);
    if (rc || !res) {
        strbuf_addf(err, "cannot resolve host '%s': %s", o->host, gai_strerror(rc));
        return NULL;
    }
    memset(&ss, 0, sizeof(ss));
    memcpy(&ss, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
    if (ss.ss_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    if (o->bodies)
        flags |= MHD_USE_THREAD_PER_CONNECTION;

    h = xcalloc(1, sizeof(*h));
    h->o = *o;
    h->fn = fn;
    h->data = data;
    h->daemon = MHD_start_daemon(
        flags, (uint16_t)o->port, NULL, NULL, on_request, h, MHD_OPTION_SOCK_ADDR,
        (const struct sockaddr *)&ss, MHD_OPTION_NOTIFY_COMPLETED, completed, h,
        MHD_OPTION_CONNECTION_LIMIT, o->max_connections, MHD_OPTION_CONNECTION_TIMEOUT,
        o->timeout_s, MHD_OPTION_CONNECTION_MEMORY_LIMIT, o->conn_memory,
        o->backlog ? MHD_OPTION_LISTEN_BACKLOG_SIZE : MHD_OPTION_END, o->backlog, MHD_OPTION_END);
    if (!h->daemon) {
        strbuf_addf(err, "cannot listen on %s:%d (port in use or address not available)", o->host,
                    o->port);
        free(h);
        return NULL;
    }
    info = MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
    h->port = info ? info->port : o->port;
    return h;
}

int httpd_port(const struct httpd *h)
{
    return h->port;
}

void httpd_stop(struct httpd *h)
{
    if (!h)
        return;
    MHD_stop_daemon(h->daemon);
    free(h);
}

void httpd_library_version(struct strbuf *out)
{
    strbuf_addf(out, "libmicrohttpd %s", MHD_get_version());
}

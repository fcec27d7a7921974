/*
 * The HTTP server layer of dipmap's own pages (see httpd.h): libmicrohttpd
 * with one internal polling thread, GET/HEAD only, responses built by a
 * callback into a strbuf. Owns the daemon and the mapping of its types.
 */
#define _GNU_SOURCE
#include "httpd.h"

#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "xalloc.h"

#include "banned.h"

struct httpd {
    struct MHD_Daemon *daemon;
    httpd_handler fn;
    void *data;
    int port;
};

const char *httpd_query(const struct httpd_request *rq, const char *key)
{
    return MHD_lookup_connection_value(rq->conn, MHD_GET_ARGUMENT_KIND, key);
}

const char *httpd_header(const struct httpd_request *rq, const char *name)
{
    return MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, name);
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

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_size, void **con_cls)
{
    struct httpd *h = cls;
    struct httpd_request rq;
    struct httpd_response resp;
    struct MHD_Response *mr;
    size_t len;
    char *body;
    enum MHD_Result ret;
    int i;

    (void)version;
    (void)upload_data;
    if (!*con_cls) { /* first call: headers only */
        *con_cls = h;
        return MHD_YES;
    }
    if (*upload_size) {
        *upload_size = 0;
        return send_text(c, MHD_HTTP_CONTENT_TOO_LARGE, "request bodies are not accepted\n");
    }
    if (strcmp(method, "GET") && strcmp(method, "HEAD"))
        return send_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "read-only: GET only\n");

    rq.method = method;
    rq.path = url;
    rq.conn = c;
    memset(&resp, 0, sizeof(resp));
    resp.status = 200;
    resp.content_type = "text/html; charset=utf-8";
    strbuf_init(&resp.body, 0);
    h->fn(&rq, &resp, h->data);

    body = strbuf_detach(&resp.body, &len);
    mr = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
    if (!mr) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(mr, MHD_HTTP_HEADER_CONTENT_TYPE, resp.content_type);
    for (i = 0; i < resp.nheaders && i < HTTPD_MAX_HEADERS; i++)
        MHD_add_response_header(mr, resp.headers[i][0], resp.headers[i][1]);
    ret = MHD_queue_response(c, (unsigned)resp.status, mr);
    MHD_destroy_response(mr);
    return ret;
}

struct httpd *httpd_start(const char *host, int port, httpd_handler fn, void *data,
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
    snprintf(portstr, sizeof(portstr), "%d", port);
    rc = getaddrinfo(host, portstr, &hints, &res);
    if (rc || !res) {
        strbuf_addf(err, "cannot resolve '%s': %s", host, gai_strerror(rc));
        return NULL;
    }
    memset(&ss, 0, sizeof(ss));
    memcpy(&ss, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
    if (ss.ss_family == AF_INET6)
        flags |= MHD_USE_IPv6;

    h = xcalloc(1, sizeof(*h));
    h->fn = fn;
    h->data = data;
    h->daemon =
        MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, on_request, h, MHD_OPTION_SOCK_ADDR,
                         (const struct sockaddr *)&ss, MHD_OPTION_CONNECTION_LIMIT, (unsigned)64,
                         MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)60,
                         MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024), MHD_OPTION_END);
    if (!h->daemon) {
        strbuf_addf(err, "cannot listen on %s:%d (port in use or address not available)", host,
                    port);
        free(h);
        return NULL;
    }
    info = MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
    h->port = info ? info->port : port;
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

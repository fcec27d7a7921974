/*
 * `dipmap view [--db FILE] [--port P] [--listen ADDR]`: a local, read-only web
 * UI over a store (view.c renders the pages, httpd.c serves them). Owns the
 * flags, the bind address (loopback unless --listen) and the wait for a stop
 * signal.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/builtin.h"
#include "base/httpd.h"
#include "base/opt.h"
#include "store/store.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/usage.h"
#include "report/view.h"

#include "base/banned.h"

static const char *const view_usage[] = {
    "dipmap view [--db FILE] [--port P] [--listen ADDR]",
    NULL,
};

#define VIEW_DEFAULT_PORT 8765

int cmd_view(int argc, const char **argv)
{
    const char *db = NULL, *listen = NULL;
    long port = VIEW_DEFAULT_PORT;
    struct option opts[] = {
        OPT_DB(&db, "the store to show, opened read-only"),
        OPT_LONG('p', "port", &port, "P",
                 "TCP port (default 8765; 0 picks a free one); the URL is printed first"),
        OPT_STRING(
            0, "listen", &listen, "ADDR",
            "serve on ADDR (e.g. 0.0.0.0) instead of 127.0.0.1: anyone who reaches it can read "
            "the store, there is no login"),
        OPT_END(),
    };
    struct strvec rest = STRVEC_INIT;
    struct strbuf err = STRBUF_INIT;
    struct view_ctx ctx;
    struct httpd *h = NULL;
    struct store *st;
    sigset_t set;
    int rc = DM_EXIT_USAGE, sig, prc;

    prc = parse_options(argc, argv, opts, view_usage, &rest);
    if (prc) {
        rc = parse_options_exit(prc);
        goto cleanup;
    }
    if (rest.nr) {
        error("view: unexpected argument '%s'", rest.v[0]);
        goto cleanup;
    }
    if (port < 0 || port > 65535) {
        error("view: --port must be 0..65535, not %ld", port);
        goto cleanup;
    }
    memset(&ctx, 0, sizeof(ctx));
    ctx.db = store_default_path(db);
    /* fail now, not on the first page, when the store cannot be read */
    st = store_open(ctx.db, STORE_READONLY);
    if (!st) {
        if (!db)
            fprintf(stderr, "hint: pass --db FILE or set %s\n", DIPMAP_DB_ENV);
        goto cleanup;
    }
    store_close(st);
    ctx.hosts = listen ? NULL : "127.0.0.1,localhost,[::1]";

    /* block the stop signals before the server thread exists, so only sigwait() sees them */
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);

    {
        /* GET/HEAD on one thread: the pages are read-only and the handler needs no locking */
        struct httpd_options o = {
            .host = listen ? listen : "127.0.0.1",
            .port = (int)port,
            .max_connections = 64,
            .timeout_s = 60,
            .conn_memory = (size_t)64 * 1024,
        };
        h = httpd_start(&o, view_handle, &ctx, &err);
    }
    if (!h) {
        error("view: %s", err.buf);
        rc = DM_EXIT_INFRA;
        goto cleanup;
    }
    ctx.port = httpd_port(h);
    if (listen &&
        (!strcmp(listen, "0.0.0.0") || !strcmp(listen, "::") || !strcmp(listen, "[::]"))) {
        /* every address: no browser opens http://0.0.0.0/ elsewhere; the host's name works */
        char host[256] = "";
        if (gethostname(host, sizeof(host) - 1) != 0 || !host[0])
            snprintf(host, sizeof(host), "127.0.0.1");
        printf("http://%s:%d/\n", host, ctx.port);
    } else if (listen && strchr(listen, ':')) {
        printf("http://[%s]:%d/\n", listen, ctx.port);
    } else {
        printf("http://%s:%d/\n", listen ? listen : "127.0.0.1", ctx.port);
    }
    fflush(stdout);
    fprintf(stderr, "view: serving %s read-only on %s:%d (Ctrl-C stops)\n", ctx.db,
            listen ? listen : "127.0.0.1", ctx.port);
    if (listen)
        warning("view: --listen %s: the pages are open to anyone who can reach this address",
                listen);
    if (sigwait(&set, &sig))
        sig = SIGTERM;
    fprintf(stderr, "view: stopped (%s)\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    rc = DM_EXIT_OK;

cleanup:
    httpd_stop(h);
    strvec_clear(&rest);
    strbuf_release(&err);
    return rc;
}

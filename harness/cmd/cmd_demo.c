/*
 * `dipmap demo`: the offline demo (simulated server, two mapped models, compare, reports, the
 * ordering experiment) into a folder of the user's choice, from the installed data. The steps
 * are scripts/demo.sh, found in the data search order (base/datadir.h) like the datasets it
 * names; this command runs it with this binary and waits for it.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/builtin.h"
#include "base/datadir.h"
#include "base/opt.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/usage.h"

#include "base/banned.h"

static const char *const demo_usage[] = {
    "dipmap demo [--out DIR] [--lengths L]",
    "",
    "Starts dipmap serve-sim with three simulated models on a free port, maps demo-base and",
    "demo-cand (whose middle-of-context dip is deeper), compares them, measures which order to",
    "pass retrieved chunks in (demo-rag), writes the reports into DIR and stops the server.",
    "Fresh run names every time (demo-<UTC time>-base, -cand), in DIR/demo.db. Offline.",
    NULL,
};

/* The running binary's path, for the script to call back. */
static int self_path(struct strbuf *out)
{
    ssize_t n;
    strbuf_grow(out, 4096);
    n = readlink("/proc/self/exe", out->buf, out->alloc - 1);
    if (n <= 0 || (size_t)n >= out->alloc - 1)
        return -1;
    strbuf_setlen(out, (size_t)n);
    return 0;
}

/* Runs bash SCRIPT SELF with DEMO_OUT (and DEMO_LENGTHS) set; returns its exit code. */
static int run_script(const char *script, const char *self)
{
    const char *argv[] = {"bash", script, self, NULL};
    void (*old_int)(int), (*old_term)(int);
    int status = 0;
    pid_t pid;

    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0)
        return error("demo: cannot start bash: %s", strerror(errno)), DM_EXIT_INFRA;
    if (pid == 0) {
        execvp(argv[0], (char *const *)argv);
        fprintf(stderr, "error: demo: cannot run bash: %s\n", strerror(errno));
        _exit(127);
    }
    /* Ctrl-C reaches the script too (same process group): it stops the server, says what
       was kept and exits 130; wait for that instead of dying first */
    old_int = signal(SIGINT, SIG_IGN);
    old_term = signal(SIGTERM, SIG_IGN);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    signal(SIGINT, old_int);
    signal(SIGTERM, old_term);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    if (WEXITSTATUS(status) == 127)
        return DM_EXIT_INFRA;
    return WEXITSTATUS(status);
}

int cmd_demo(int argc, const char **argv)
{
    const char *out = "reports", *lengths = NULL;
    struct option opts[] = {
        OPT_STRING('o', "out", &out, "DIR",
                   "folder for the store (demo.db) and the reports (default ./reports)"),
        OPT_STRING('l', "lengths", &lengths, "L", "prompt lengths to map (default 8k,32k)"),
        OPT_END(),
    };
    struct strvec rest = STRVEC_INIT;
    struct strbuf script = STRBUF_INIT, tried = STRBUF_INIT, self = STRBUF_INIT;
    int rc = parse_options(argc, argv, opts, demo_usage, &rest);

    if (rc) {
        rc = parse_options_exit(rc);
        goto out;
    }
    rc = DM_EXIT_USAGE;
    if (rest.nr) {
        error("demo: unexpected argument '%s'", rest.v[0]);
        goto out;
    }
    if (!*out) {
        error("demo: --out must name a folder");
        goto out;
    }
    if (datadir_find("scripts/demo.sh", &script, &tried) < 0) {
        error("demo: scripts/demo.sh not found (tried %s)", tried.buf);
        fprintf(stderr, "hint: pass --data-dir DIR or set DIPMAP_DATA to dipmap's share folder\n");
        goto out;
    }
    if (self_path(&self) < 0) {
        error("demo: cannot find the dipmap binary (/proc/self/exe)");
        rc = DM_EXIT_INFRA;
        goto out;
    }
    if (setenv("DEMO_OUT", out, 1) || (lengths && setenv("DEMO_LENGTHS", lengths, 1))) {
        error("demo: cannot set the environment: %s", strerror(errno));
        rc = DM_EXIT_INFRA;
        goto out;
    }
    rc = run_script(script.buf, self.buf);
out:
    strvec_clear(&rest);
    strbuf_release(&script);
    strbuf_release(&tried);
    strbuf_release(&self);
    return rc;
}

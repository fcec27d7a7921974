/*
 * Child processes without a shell: fork/execvp with an argv array, stdin fed
 * and stdout/stderr drained through poll(). Used to drive gnuplot.
 */
#define _GNU_SOURCE
#include "base/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/strbuf.h"

#include "base/banned.h"

static void close_pair(int p[2])
{
    if (p[0] >= 0)
        close(p[0]);
    if (p[1] >= 0)
        close(p[1]);
    p[0] = p[1] = -1;
}

int proc_available(const char *prog)
{
    const char *path, *p;
    struct strbuf sb = STRBUF_INIT;
    int found = 0;

    if (strchr(prog, '/'))
        return access(prog, X_OK) == 0;
    path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    for (p = path; !found;) {
        const char *e = strchr(p, ':');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        strbuf_reset(&sb);
        strbuf_add(&sb, n ? p : ".", n ? n : 1);
        strbuf_addch(&sb, '/');
        strbuf_addstr(&sb, prog);
        found = access(sb.buf, X_OK) == 0;
        if (!e)
            break;
        p = e + 1;
    }
    strbuf_release(&sb);
    return found;
}

int proc_run(const char *const argv[], const char *in, size_t inlen, struct strbuf *out,
             struct strbuf *err, int *status)
{
    int pin[2] = {-1, -1}, pout[2] = {-1, -1}, perr[2] = {-1, -1}, pexec[2] = {-1, -1};
    pid_t pid;
    int wstatus, exec_errno = 0, saved;
    size_t written = 0;
    void (*old_pipe)(int);

    if (pipe2(pin, O_CLOEXEC) || pipe2(pout, O_CLOEXEC) || pipe2(perr, O_CLOEXEC) ||
        pipe2(pexec, O_CLOEXEC) || (pid = fork()) < 0) {
        saved = errno;
        close_pair(pin);
        close_pair(pout);
        close_pair(perr);
        close_pair(pexec);
        errno = saved;
        return -1;
    }
    if (pid == 0) {
        int e;
        dup2(pin[0], 0);
        dup2(pout[1], 1);
        dup2(perr[1], 2);
        execvp(argv[0], (char *const *)argv);
        e = errno;
        if (write(pexec[1], &e, sizeof(e)) < 0)
            _exit(127);
        _exit(127);
    }
    close(pin[0]);
    close(pout[1]);
    close(perr[1]);
    close(pexec[1]);
    pin[0] = pout[1] = perr[1] = pexec[1] = -1;

    if (read(pexec[0], &exec_errno, sizeof(exec_errno)) != (ssize_t)sizeof(exec_errno))
        exec_errno = 0;
    close(pexec[0]);

    old_pipe = signal(SIGPIPE, SIG_IGN);
    if (exec_errno || !in || !inlen) {
        close(pin[1]);
        pin[1] = -1;
    } else {
        /* non-blocking, so a partial write never stalls draining stdout */
        fcntl(pin[1], F_SETFL, fcntl(pin[1], F_GETFL) | O_NONBLOCK);
    }
    while (pout[0] >= 0 || perr[0] >= 0 || pin[1] >= 0) {
        struct pollfd fds[3];
        int nfds = 0, i;
        if (pin[1] >= 0)
            fds[nfds++] = (struct pollfd){.fd = pin[1], .events = POLLOUT};
        if (pout[0] >= 0)
            fds[nfds++] = (struct pollfd){.fd = pout[0], .events = POLLIN};
        if (perr[0] >= 0)
            fds[nfds++] = (struct pollfd){.fd = perr[0], .events = POLLIN};
        if (poll(fds, (nfds_t)nfds, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (i = 0; i < nfds; i++) {
            if (!fds[i].revents)
                continue;
            if (fds[i].fd == pin[1]) {
                ssize_t n = write(pin[1], in + written, inlen - written);
                if (n > 0)
                    written += (size_t)n;
                if (n < 0 && errno != EINTR && errno != EAGAIN)
                    written = inlen;
                if (written >= inlen) {
                    close(pin[1]);
                    pin[1] = -1;
                }
            } else {
                int *fdp = fds[i].fd == pout[0] ? &pout[0] : &perr[0];
                struct strbuf *dst = fdp == &pout[0] ? out : err;
                char buf[8192];
                ssize_t n = read(*fdp, buf, sizeof(buf));
                if (n > 0) {
                    if (dst)
                        strbuf_add(dst, buf, (size_t)n);
                } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
                    close(*fdp);
                    *fdp = -1;
                }
            }
        }
    }
    signal(SIGPIPE, old_pipe);
    while (waitpid(pid, &wstatus, 0) < 0)
        if (errno != EINTR)
            return -1;
    if (exec_errno) {
        errno = exec_errno;
        return -1;
    }
    if (WIFEXITED(wstatus))
        *status = WEXITSTATUS(wstatus);
    else if (WIFSIGNALED(wstatus))
        *status = 128 + WTERMSIG(wstatus);
    else
        *status = -1;
    return 0;
}

#ifndef PROC_H
#define PROC_H

#include <stddef.h>

struct strbuf;

/*
 * Run a program with fork/execvp and an argv array (never a shell), feed it
 * `in` (may be NULL) on stdin, and collect stdout/stderr into `out`/`err`
 * (either may be NULL: that stream is discarded). Pipes are serviced with
 * poll(), so a child that writes a lot before reading cannot deadlock.
 *
 * Returns 0 when the program ran; *status is its exit code, or 128+signal
 * when it was killed. Returns -1 with errno set when it could not be started
 * (ENOENT: program not found), without printing.
 */
int proc_run(const char *const argv[], const char *in, size_t inlen, struct strbuf *out,
             struct strbuf *err, int *status);

/* 1 when `prog` can be found on PATH (or is an executable path), else 0. */
int proc_available(const char *prog);

#endif

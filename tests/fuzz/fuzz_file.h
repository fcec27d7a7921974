/*
 * Shared by the file-loader fuzz targets (golden set, haystack, config): the
 * input is written to a scratch file with a chosen suffix (the loaders read
 * paths, detect gzip from the content and pick plain-text mode from ".txt"),
 * and error() messages are captured instead of printed, so a target can
 * assert that every failure said something naming the file.
 */
#ifndef FUZZ_FILE_H
#define FUZZ_FILE_H

#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/strbuf.h"
#include "base/usage.h"

static struct strbuf fuzz_errors = STRBUF_INIT;
static int fuzz_error_count;

static void fuzz_hook(const char *prefix, const char *msg)
{
    if (prefix && !strncmp(prefix, "error", 5))
        fuzz_error_count++;
    strbuf_addstr(&fuzz_errors, msg ? msg : "");
    strbuf_addch(&fuzz_errors, '\n');
}

/* Reset the captured messages; call at the start of each input. */
static void fuzz_errors_reset(void)
{
    usage_set_hook(fuzz_hook);
    strbuf_reset(&fuzz_errors);
    fuzz_error_count = 0;
}

static char fuzz_paths[4][256];
static int fuzz_fds[4] = {-1, -1, -1, -1};

static void fuzz_cleanup_files(void)
{
    int i;
    for (i = 0; i < 4; i++)
        if (fuzz_paths[i][0])
            unlink(fuzz_paths[i]);
}

/*
 * Write data to a per-process scratch file ending in suffix (created once
 * per slot 0..3, removed at exit) and return its path (static storage).
 */
static const char *fuzz_write_file(int slot, const char *suffix, const uint8_t *data, size_t size)
{
    if (fuzz_fds[slot] < 0) {
        const char *tmp = getenv("TMPDIR");
        snprintf(fuzz_paths[slot], sizeof(fuzz_paths[slot]), "%s/dipmap-fuzz-%ld-%d-XXXXXX%s",
                 tmp && *tmp ? tmp : "/tmp", (long)getpid(), slot, suffix);
        fuzz_fds[slot] = mkstemps(fuzz_paths[slot], (int)strlen(suffix));
        if (fuzz_fds[slot] < 0) {
            perror("mkstemps");
            abort();
        }
        atexit(fuzz_cleanup_files);
    }
    if (ftruncate(fuzz_fds[slot], 0) < 0 ||
        pwrite(fuzz_fds[slot], data, size, 0) != (ssize_t)size) {
        perror("fuzz scratch file");
        abort();
    }
    return fuzz_paths[slot];
}

#endif

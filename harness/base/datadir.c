/*
 * The data search order (datadir.h): $DIPMAP_DATA, the share folder relative to the
 * binary, the source tree. The template, dataset and tokenizer lookups all call this.
 */
#include "base/datadir.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/strbuf.h"

#include "base/banned.h"

int datadir_exe_dir(struct strbuf *out)
{
    struct strbuf exe = STRBUF_INIT;
    ssize_t n;
    char *slash;

    strbuf_grow(&exe, 4096);
    n = readlink("/proc/self/exe", exe.buf, exe.alloc - 1);
    if (n <= 0 || (size_t)n >= exe.alloc - 1) {
        strbuf_release(&exe);
        return -1;
    }
    strbuf_setlen(&exe, (size_t)n);
    slash = strrchr(exe.buf, '/');
    if (!slash) {
        strbuf_release(&exe);
        return -1;
    }
    strbuf_add(out, exe.buf, (size_t)(slash - exe.buf));
    strbuf_release(&exe);
    return 0;
}

int datadir_find(const char *rel, struct strbuf *out, struct strbuf *tried)
{
    const char *env = getenv("DIPMAP_DATA");
    struct strbuf exe = STRBUF_INIT, cand = STRBUF_INIT;
    int have_exe = datadir_exe_dir(&exe) == 0, found = -1, i;

    for (i = 0; i < 5 && found < 0; i++) {
        strbuf_reset(&cand);
        if (i == 0 && env && *env)
            strbuf_addf(&cand, "%s/%s", env, rel);
        else if (i == 1 && have_exe)
            strbuf_addf(&cand, "%s/../share/dipmap/%s", exe.buf, rel);
        else if (i == 2 && have_exe)
            strbuf_addf(&cand, "%s/%s", exe.buf, rel);
        else if (i == 3 && have_exe)
            strbuf_addf(&cand, "%s/../%s", exe.buf, rel);
        else if (i == 4)
            strbuf_addstr(&cand, rel);
        if (!cand.len)
            continue;
        if (!access(cand.buf, R_OK))
            found = 0;
        else if (tried)
            strbuf_addf(tried, "%s%s", tried->len ? ", " : "", cand.buf);
    }
    if (!found)
        strbuf_add(out, cand.buf, cand.len);
    strbuf_release(&exe);
    strbuf_release(&cand);
    return found;
}

/*
 * What several commands share (declared in builtin.h): writing an output file
 * and printing the reason a module returned in its `err`, so the commands word
 * and print a module's failure one way (docs/conventions.md "Errors").
 */
#include "cmd/builtin.h"

#include "base/strbuf.h"
#include "base/usage.h"
#include "report/plot.h"

#include "base/banned.h"

int cmd_write_file(const char *path, const struct strbuf *data)
{
    struct strbuf err = STRBUF_INIT;
    int rc = plot_write_file(path, data, &err);
    if (rc)
        error("%s", err.buf);
    strbuf_release(&err);
    return rc;
}

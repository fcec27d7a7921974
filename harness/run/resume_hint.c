/*
 * The "hint: resume with: ..." lines of `dipmap run`: the same command again,
 * shell-quoted, naming the run, credential header values redacted.
 */
#include <errno.h>
#include <pthread.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cmd/builtin.h"
#include "client/client.h"
#include "base/config.h"
#include "base/escape.h"
#include "prompt/dataset.h"
#include "base/json.h"
#include "base/num.h"
#include "base/opt.h"
#include "prompt/order.h"
#include "client/overhead.h"
#include "run/axes.h"
#include "run/estimate.h"
#include "run/batch.h"
#include "run/plan.h"
#include "stats/power.h"
#include "prompt/layout.h"
#include "prompt/prompt.h"
#include "client/reasoning.h"
#include "prompt/retrieval.h"
#include "run/reuse.h"
#include "run/run_identity.h"
#include "report/runbrief.h"
#include "run/runner.h"
#include "run/score.h"
#include "stats/stats.h"
#include "base/secret.h"
#include "store/store.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "tokenizer/tokenizer.h"
#include "base/usage.h"
#include "base/version.h"
#include "base/xalloc.h"
#include "base/utc.h"

#include "run/run_cmd.h"

#include "base/banned.h"

/* Quote one argv word for a copy-pasteable shell line. */
static void shell_quote(struct strbuf *sb, const char *s)
{
    const char *p;
    int plain = *s != '\0';
    for (p = s; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,@%+", *p))
            plain = 0;
    if (plain) {
        strbuf_addstr(sb, s);
        return;
    }
    strbuf_addch(sb, '\'');
    for (p = s; *p; p++) {
        if (*p == '\'')
            strbuf_addstr(sb, "'\\''");
        else
            strbuf_addch(sb, *p);
    }
    strbuf_addch(sb, '\'');
}

/*
 * A -H value that carries a credential ("X-Api-Key: sk-..."): its value is not echoed in
 * the resume hint (same words as the client's --verbose redaction).
 */

void resume_hint_with(int argc, const char **argv, const char *run, const char *db, int run_given,
                      const char *opt, const char *val)
{
    struct strbuf sb = STRBUF_INIT, h = STRBUF_INIT;
    size_t optlen = opt ? strlen(opt) : 0;
    int i, redacted = 0, replaced = 0;
    strbuf_addstr(&sb, "dipmap");
    for (i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (opt && !strncmp(a, opt, optlen) && (!a[optlen] || a[optlen] == '=')) {
            /* the option the stop was about gets the value that lets the resume go on */
            strbuf_addf(&sb, " %s ", opt);
            shell_quote(&sb, val);
            if (!a[optlen] && i + 1 < argc)
                i++;
            replaced = 1;
            continue;
        }
        int after_flag = i > 0 && (!strcmp(argv[i - 1], "-H") || !strcmp(argv[i - 1], "--header"));
        if (!strncmp(a, "--header=", 9) && secret_header(a + 9, strlen(a + 9), NULL)) {
            strbuf_reset(&h);
            strbuf_addf(&h, "--header=%.*s: <redacted>", (int)(strchr(a, ':') - a - 9), a + 9);
            a = h.buf;
            redacted = 1;
        } else if (after_flag && secret_header(a, strlen(a), NULL)) {
            strbuf_reset(&h);
            strbuf_addf(&h, "%.*s: <redacted>", (int)(strchr(a, ':') - a), a);
            a = h.buf;
            redacted = 1;
        }
        strbuf_addch(&sb, ' ');
        shell_quote(&sb, a);
    }
    if (opt && !replaced) { /* it came from a config file */
        strbuf_addf(&sb, " %s ", opt);
        shell_quote(&sb, val);
    }
    if (!run_given) {
        strbuf_addstr(&sb, " --run ");
        shell_quote(&sb, run);
    }
    fprintf(stderr, "hint: resume with: %s\n", sb.buf);
    fprintf(stderr, "hint: (run '%s' in %s; finished trials are kept)\n", run, db);
    if (redacted)
        fprintf(stderr, "hint: (credential header values are shown as <redacted>)\n");
    strbuf_release(&sb);
    strbuf_release(&h);
}

/* The same command again, naming the run: what resumes it. */
void resume_hint(int argc, const char **argv, const char *run, const char *db, int run_given)
{
    resume_hint_with(argc, argv, run, db, run_given, NULL, NULL);
}

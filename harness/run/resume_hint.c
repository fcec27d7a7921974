/*
 * The "hint: resume with: ..." lines of `dipmap run`: the same command again,
 * shell-quoted, naming the run, credential header values redacted.
 */
#include <stdio.h>
#include <string.h>

#include "base/escape.h"
#include "base/secret.h"

#include "run/run_cmd.h"

#include "base/banned.h"

/*
 * A -H value that carries a credential ("X-Api-Key: sk-..."): its value is not echoed in
 * the resume hint (same words as the client's --verbose redaction).
 */
void resume_hint_format(struct strbuf *out, int argc, const char **argv, const char *run,
                        const char *db, int run_given, const char *opt, const char *val)
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
            escape_shell_word(&sb, val);
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
        escape_shell_word(&sb, a);
    }
    if (opt && !replaced) { /* it came from a config file */
        strbuf_addf(&sb, " %s ", opt);
        escape_shell_word(&sb, val);
    }
    if (!run_given) {
        strbuf_addstr(&sb, " --run ");
        escape_shell_word(&sb, run);
    }
    strbuf_addf(out, "hint: resume with: %s\n", sb.buf);
    strbuf_addf(out, "hint: (run '%s' in %s; finished trials are kept)\n", run, db);
    if (redacted)
        strbuf_addstr(out, "hint: (credential header values are shown as <redacted>)\n");
    strbuf_release(&sb);
    strbuf_release(&h);
}

void resume_hint_with(int argc, const char **argv, const char *run, const char *db, int run_given,
                      const char *opt, const char *val)
{
    struct strbuf out = STRBUF_INIT;
    resume_hint_format(&out, argc, argv, run, db, run_given, opt, val);
    fputs(out.buf, stderr);
    strbuf_release(&out);
}

void resume_hint(int argc, const char **argv, const char *run, const char *db, int run_given)
{
    resume_hint_with(argc, argv, run, db, run_given, NULL, NULL);
}

/*
 * The option parser every subcommand uses: one table per command describes
 * its flags, types and help text, so parsing, errors and help stay uniform.
 *
 * Its error() calls print, though it lives in base/: parse_options() is the command's own
 * first phase, called only from a cmd_*() function with that command's argv, and its messages
 * ("run: unknown option '--x'", the nearest option, --help's text) are the command's usage
 * output, printed before any module runs; every caller maps its -1 to DM_EXIT_USAGE and
 * prints nothing more. Printing here keeps that wording in one place instead of in each of
 * the commands (usage.h, "Errors").
 */
#include "base/opt.h"

#include <stdlib.h>
#include <string.h>

#include "base/num.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/suggest.h"
#include "base/usage.h"
#include "base/xalloc.h"

#include "base/banned.h"

static struct opt_capture *capture;

void opt_set_capture(struct opt_capture *cap)
{
    capture = cap;
}

void opt_capture_release(struct opt_capture *cap)
{
    free(cap->opts);
    free(cap->bool_on);
    memset(cap, 0, sizeof(*cap));
}

static void capture_table(const char *const *usage, const struct option *opts)
{
    size_t n = 0;
    while (opts[n].type != OPTION_END)
        n++;
    size_t i;
    free(capture->opts);
    free(capture->bool_on);
    capture->opts = xcalloc(n + 1, sizeof(*opts));
    capture->bool_on = xcalloc(n + 1, sizeof(int));
    memcpy(capture->opts, opts, (n + 1) * sizeof(*opts));
    for (i = 0; i < n; i++) {
        capture->bool_on[i] = opts[i].type == OPTION_BOOL && opts[i].value && *(int *)opts[i].value;
        capture->opts[i].value = NULL;
    }
    capture->usage = usage;
    capture->done = 1;
}

int opt_capture_default_on(const struct opt_capture *cap, const struct option *o)
{
    if (!cap->opts || !cap->bool_on || o < cap->opts)
        return 0;
    return cap->bool_on[o - cap->opts];
}

struct option *opt_find(struct option *opts, const char *long_name)
{
    for (; opts->type != OPTION_END; opts++)
        if (opts->long_name && !strcmp(opts->long_name, long_name))
            return opts;
    return NULL;
}

void usage_with_options(FILE *fp, const char *const *usage, const struct option *o)
{
    const char *prefix = "usage: ";
    int text = 0;
    /*
     * Synopsis lines: the first after "usage: ", other forms after "   or: ", a line that
     * starts with a space continues the previous form. After an empty entry: description
     * lines, printed as they are.
     */
    for (; usage && *usage; usage++) {
        if (!**usage && !text) {
            text = 1;
            fputc('\n', fp);
            continue;
        }
        if (text)
            fprintf(fp, "%s\n", *usage);
        else
            fprintf(fp, "%s%s\n", **usage == ' ' ? "       " : prefix, *usage);
        prefix = "   or: ";
    }
    if (o && o->type != OPTION_END)
        fputc('\n', fp);
    for (const struct option *first = o; o && o->type != OPTION_END; o++) {
        struct strbuf sb = STRBUF_INIT;
        if (o->type == OPTION_GROUP) {
            /* one blank line before a group, also when it opens the list */
            fprintf(fp, "%s%s\n", o == first ? "" : "\n", o->help);
            continue;
        }
        strbuf_addstr(&sb, "    ");
        if (o->short_name)
            strbuf_addf(&sb, "-%c, ", o->short_name);
        /* a boolean that is on by default is turned off with --no-NAME */
        strbuf_addf(&sb, "--%s%s",
                    o->type == OPTION_BOOL && o->value && *(int *)o->value ? "[no-]" : "",
                    o->long_name);
        if (o->type != OPTION_BOOL)
            strbuf_addf(&sb, " %s", o->argh ? o->argh : "VALUE");
        if (sb.len < 30)
            fprintf(fp, "%-30s%s\n", sb.buf, o->help ? o->help : "");
        else
            fprintf(fp, "%s\n%30s%s\n", sb.buf, "", o->help ? o->help : "");
        strbuf_release(&sb);
    }
}

static struct option *find_short(struct option *opts, char c)
{
    for (; opts->type != OPTION_END; opts++)
        if (opts->short_name == c && opts->type != OPTION_GROUP)
            return opts;
    return NULL;
}

/* The long option nearest to a mistyped one ("lenghts" -> "lengths"), or NULL. */
static const char *nearest_option(const struct option *opts, const char *name)
{
    size_t n = 0, i = 0;
    const char **names, *near;
    while (opts[n].type != OPTION_END)
        n++;
    names = xcalloc(n + 1, sizeof(*names));
    for (; opts->type != OPTION_END; opts++)
        if (opts->type != OPTION_GROUP && opts->long_name)
            names[i++] = opts->long_name;
    near = suggest_name(name, names); /* one of the table's literals */
    free(names);
    return near;
}

static int set_value(const char *cmd, struct option *o, const char *arg)
{
    o->seen = 1;
    switch (o->type) {
    case OPTION_STRING:
        *(const char **)o->value = arg;
        return 0;
    case OPTION_LONG:
        if (parse_long(arg, (long *)o->value) < 0)
            return error("%s: option '--%s' expects an integer, got '%s'", cmd, o->long_name, arg);
        return 0;
    case OPTION_DOUBLE:
        if (parse_double(arg, (double *)o->value) < 0)
            return error("%s: option '--%s' expects a number, got '%s'", cmd, o->long_name, arg);
        return 0;
    case OPTION_POINTS:
        if (parse_points(arg, (double *)o->value) < 0)
            return error("%s: option '--%s' takes %s, not '%s'", cmd, o->long_name,
                         PARSE_POINTS_FORMS, arg);
        return 0;
    case OPTION_LIST:
        strvec_push((struct strvec *)o->value, arg);
        return 0;
    default:
        BUG("set_value on option type %d", (int)o->type);
    }
}

int parse_options_exit(int rc)
{
    return rc > 0 ? DM_EXIT_OK : DM_EXIT_USAGE;
}

int parse_options(int argc, const char **argv, struct option *opts, const char *const *usage,
                  struct strvec *rest)
{
    const char *cmd = argv[0];
    int i;

    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        struct option *o = NULL;
        const char *val = NULL;
        int negated = 0;

        if (!strcmp(a, "--")) {
            for (i++; i < argc; i++)
                strvec_push(rest, argv[i]);
            break;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            if (capture) {
                capture_table(usage, opts);
                return 1;
            }
            usage_with_options(stdout, usage, opts);
            return 1;
        }
        if (a[0] != '-' || !a[1]) {
            strvec_push(rest, a);
            continue;
        }
        if (a[1] == '-') {
            const char *name = a + 2;
            const char *eq = strchr(name, '=');
            struct strbuf key = STRBUF_INIT;
            strbuf_add(&key, name, eq ? (size_t)(eq - name) : strlen(name));
            o = opt_find(opts, key.buf);
            if (!o && !strncmp(key.buf, "no-", 3)) {
                o = opt_find(opts, key.buf + 3);
                if (o && o->type == OPTION_BOOL)
                    negated = 1;
                else
                    o = NULL;
            }
            if (!o || o->type == OPTION_GROUP) {
                const char *near = nearest_option(opts, key.buf);
                error("%s: unknown option '--%s'", cmd, key.buf);
                strbuf_release(&key);
                if (near)
                    fprintf(stderr, "hint: did you mean '--%s'? see 'dipmap help %s'\n", near, cmd);
                else
                    fprintf(stderr, "hint: see 'dipmap help %s'\n", cmd);
                return -1;
            }
            strbuf_release(&key);
            if (eq)
                val = eq + 1;
        } else {
            o = a[2] ? NULL : find_short(opts, a[1]);
            if (!o) {
                /* "-x" may be a run name or a file: say how to pass it */
                error("%s: unknown option '%s'", cmd, a);
                fprintf(stderr,
                        "hint: see 'dipmap help %s'; an argument that starts with '-' goes "
                        "after '--': dipmap %s -- %s\n",
                        cmd, cmd, a);
                return -1;
            }
        }
        if (o->type == OPTION_BOOL) {
            if (val)
                return error("%s: option '--%s' takes no value", cmd, o->long_name);
            *(int *)o->value = !negated;
            o->seen = 1;
            continue;
        }
        if (!val) {
            if (i + 1 >= argc)
                return error("%s: option '--%s' requires a value (%s)", cmd, o->long_name,
                             o->argh ? o->argh : "VALUE");
            val = argv[++i];
        }
        if (set_value(cmd, o, val) < 0)
            return -1;
    }
    return 0;
}

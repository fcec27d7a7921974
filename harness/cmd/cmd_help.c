/*
 * `dipmap help [COMMAND]` and `dipmap version`: the command list from main.c's
 * table, one command's usage (by running it with --help), the man pages and
 * completion scripts made from the same tables (help --man, help --completion;
 * help_docs.c), and the build.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/builtin.h"
#include "cmd/help_docs.h"
#include "base/httpd.h"
#include "base/json.h"
#include "base/sha256.h"
#include "base/strbuf.h"
#include "base/usage.h"
#include "client/client.h"
#include "run/score.h"
#include "store/store.h"
#include "base/version.h"

#include "base/banned.h"

int cmd_help(int argc, const char **argv)
{
    const struct cmd_struct *c;

    if (argc >= 2 && !strcmp(argv[1], "--man")) {
        if (argc > 3) {
            error("help: --man takes at most one command");
            return DM_EXIT_USAGE;
        }
        return help_man_page(stdout, argc == 3 ? argv[2] : NULL) ? DM_EXIT_USAGE : DM_EXIT_OK;
    }
    if (argc >= 2 && !strcmp(argv[1], "--markdown")) {
        if (argc > 3) {
            error("help: --markdown takes at most one command");
            return DM_EXIT_USAGE;
        }
        return help_markdown_page(stdout, argc == 3 ? argv[2] : NULL) ? DM_EXIT_USAGE : DM_EXIT_OK;
    }
    if (argc >= 2 && !strncmp(argv[1], "--completion", 12)) {
        const char *shell = argv[1][12] == '=' ? argv[1] + 13 : argc == 3 ? argv[2] : NULL;
        if (!shell || (argv[1][12] != '=' && argv[1][12]) || argc > (argv[1][12] ? 2 : 3)) {
            error("help: usage: dipmap help --completion bash|zsh");
            return DM_EXIT_USAGE;
        }
        return help_completion(stdout, shell) ? DM_EXIT_USAGE : DM_EXIT_OK;
    }
    if (argc >= 2) {
        const char *av[] = {argv[1], "--help", NULL};
        c = find_command(argv[1]);
        if (!c) {
            error("help: '%s' is not a dipmap command", argv[1]);
            fprintf(stderr, "hint: see 'dipmap help'\n");
            return DM_EXIT_USAGE;
        }
        if (c->fn == cmd_help || c->fn == cmd_version) {
            printf("usage: dipmap %s%s\n\n%s\n", c->name,
                   c->fn == cmd_help ? " [COMMAND]\n   or: dipmap help --man [COMMAND]\n"
                                       "   or: dipmap help --markdown [COMMAND]\n"
                                       "   or: dipmap help --completion bash|zsh"
                                     : "",
                   c->summary);
            return DM_EXIT_OK;
        }
        return c->fn(2, av);
    }
    printf("usage: dipmap <command> [options]\n\n"
           "dipmap maps how a model's accuracy depends on where the evidence sits in a\n"
           "long prompt, and turns that map into regression verdicts.\n\n"
           "commands:\n");
    for (c = dipmap_commands; c->name; c++)
        printf("   %-12s %s\n", c->name, c->summary);
    printf("\nglobal options (before the command):\n"
           "   --data-dir DIR  look for named templates, datasets and tokenizers in DIR first\n"
           "   --version       the release, linked libraries and build flags\n");
    printf("\nexit codes: 0 ok, 1 regression, 2 usage/input error, 3 endpoint failure,\n"
           "            4 inconclusive/incomplete, 130 interrupted (resumable)\n"
           "\nSee 'dipmap help <command>' for one command's options.\n");
    return DM_EXIT_OK;
}

int cmd_version(int argc, const char **argv)
{
    (void)argv;
    if (argc > 1) {
        error("version: takes no arguments");
        return DM_EXIT_USAGE;
    }
    struct strbuf sb = STRBUF_INIT;
    printf("dipmap %s (commit %s)\n", dipmap_version, dipmap_commit);
    client_library_version(&sb);
    strbuf_addstr(&sb, ", ");
    store_library_version(&sb);
    strbuf_addstr(&sb, ", ");
    score_library_version(&sb);
    strbuf_addstr(&sb, ", ");
    json_library_version(&sb);
    strbuf_addstr(&sb, ", ");
    httpd_library_version(&sb);
    strbuf_addstr(&sb, ", ");
    strbuf_library_version(&sb);
    strbuf_addstr(&sb, ", ");
    sha256_library_version(&sb);
    printf("libraries: %s\n", sb.buf);
    printf("build: %s; %s\n", dipmap_compiler, dipmap_cflags);
    strbuf_release(&sb);
    return DM_EXIT_OK;
}

#ifndef HELP_DOCS_H
#define HELP_DOCS_H

#include <stdio.h>

/*
 * Documentation generated from the tables `dipmap help` prints (main.c's command list, each
 * command's synopsis and option table): the same source, so a page or a completion cannot
 * list an option the command does not have.
 */

/* The man page of COMMAND (dipmap-COMMAND(1)), or dipmap(1) when command is NULL, in roff.
   Returns 0, or -1 after an error naming an unknown command. */
int help_man_page(FILE *out, const char *command);

/* The Markdown reference page of COMMAND (in docs/reference/, named after it), or the index of all
   commands (docs/reference/README.md) when command is NULL. 0, or -1 after an error. */
int help_markdown_page(FILE *out, const char *command);

/* The completion script for shell "bash" or "zsh"; -1 after an error for another shell.
   Run names are completed at completion time by `dipmap runs --names`. */
int help_completion(FILE *out, const char *shell);

#endif

#ifndef DATADIR_H
#define DATADIR_H

struct strbuf;

/*
 * Where dipmap finds the data it ships (prompts/, datasets/, datasets/tokenizers/): the
 * one search order of every command (docs/install.md "Where dipmap finds its data"). A file given
 * by path in an option (--template FILE, --dataset FILE, --tokenizer FILE) is used as
 * given and never searched; a bare name (--template qa, --dataset needle, --tokenizer
 * cl100k_base) is looked up as REL ("prompts/qa.txt") in, in order:
 *
 *   1. the folder of the global option --data-dir DIR (main.c exports it as $DIPMAP_DATA,
 *      so it wins over the environment and reaches the children dipmap starts)
 *   2. $DIPMAP_DATA
 *   3. the share folder relative to the binary: <bin>/../share/dipmap (make install, .deb)
 *   4. the source tree: the binary's folder (./dipmap in a checkout), its parent
 *      (build-asan/dipmap), then the current folder (programs run from the checkout's root,
 *      such as the unit tests in build/tests/unit/)
 *
 * datadir_find() appends the first readable candidate to out and returns 0; otherwise it
 * returns -1 and, when tried is non-NULL, appends the candidates it tried, comma-separated
 * (for the error message). Prints nothing.
 */
int datadir_find(const char *rel, struct strbuf *out, struct strbuf *tried);

/* The folder that holds the running binary (no trailing slash); 0, or -1 when unknown. */
int datadir_exe_dir(struct strbuf *out);

#endif

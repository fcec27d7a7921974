/*
 * `dipmap tokenize`: count, list ids or pieces of files (or stdin) with a
 * local tokenizer (tokenizer.c) or with the server's own /tokenize endpoint
 * (client.c does the HTTP). Owns only the command-line surface.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "client/client.h"
#include "base/opt.h"
#include "base/secret.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "tokenizer/tokenizer.h"
#include "base/usage.h"

#include "base/banned.h"

static const char *const tokenize_usage[] = {
    "dipmap tokenize --tokenizer NAME|FILE [--ids|--pieces] [--special parse|plain] "
    "[--allow-special] [FILE...]",
    "dipmap tokenize --tokenizer server --endpoint URL [--model NAME] [--api-key-env VAR] "
    "[FILE...]",
    NULL,
};

/* One token's bytes, printable: UTF-8 kept, controls and invalid bytes as escapes. */
static void print_piece(const char *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)p[i];
        if (c == '\\') {
            fputs("\\\\", stdout);
        } else if (c == '\n') {
            fputs("\\n", stdout);
        } else if (c == '\t') {
            fputs("\\t", stdout);
        } else if (c == '\r') {
            fputs("\\r", stdout);
        } else if (c < 0x20 || c == 0x7F) {
            printf("\\x%02x", c);
        } else if (c < 0x80) {
            putchar(c);
        } else {
            size_t k = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0, j;
            int ok = k && k <= n - i && c < 0xF5;
            for (j = 1; ok && j < k; j++)
                if (((unsigned char)p[i + j] & 0xC0) != 0x80)
                    ok = 0;
            if (ok) {
                fwrite(p + i, 1, k, stdout);
                i += k;
                continue;
            }
            printf("\\x%02x", c);
        }
        i++;
    }
    putchar('\n');
}

struct tokenize_opts {
    const char *spec, *endpoint, *model, *special, *api_key_env;
    int ids, pieces, allow_special;
};

/* The options that go together; 0, or -1 after error(). --allow-special becomes --special parse. */
static int check_options(struct tokenize_opts *o)
{
    if (!o->spec)
        return error("tokenize: --tokenizer is required");
    if (o->special && strcmp(o->special, "parse") && strcmp(o->special, "plain"))
        return error("tokenize: --special must be parse or plain, not '%s'", o->special);
    if (o->allow_special) {
        if (o->special && strcmp(o->special, "parse"))
            return error("tokenize: --allow-special contradicts --special %s", o->special);
        o->special = "parse";
    }
    if (o->ids && o->pieces)
        return error("tokenize: --ids and --pieces cannot be used together");
    if (!strcmp(o->spec, "server")) {
        if (!o->endpoint)
            return error("tokenize: --tokenizer server needs --endpoint URL");
        if (o->ids || o->pieces || o->special)
            return error("tokenize: --ids, --pieces and --special need a local tokenizer");
    } else if (o->endpoint) {
        warning("tokenize: --endpoint is only used with --tokenizer server");
    }
    return 0;
}

/* The tokenizer named by --tokenizer (the server's through *client); NULL after error(). */
static struct tokenizer *open_tokenizer(const struct tokenize_opts *o, struct client **client)
{
    struct strbuf err = STRBUF_INIT;
    struct tokenizer *tk = NULL;
    if (!strcmp(o->spec, "server")) {
        struct client_config cfg;
        client_config_init(&cfg);
        strvec_push(&cfg.endpoints, o->endpoint);
        cfg.model = o->model;
        cfg.api_key = secret_api_key(o->api_key_env);
        *client = client_new(&cfg, &err);
        cfg.api_key = NULL;
        client_config_release(&cfg);
        if (*client)
            tk = tokenizer_new_remote(o->endpoint, client_tokenize_cb, *client);
    } else {
        tk = tokenizer_load(o->spec, &err);
        if (tk && o->special)
            tokenizer_set_special(tk, !strcmp(o->special, "parse"));
    }
    if (!tk)
        error("tokenize: %s", err.buf);
    strbuf_release(&err);
    return tk;
}

/* --ids or --pieces of one input's text on stdout. */
static void print_tokens(struct tokenizer *tk, const struct tokenize_opts *o,
                         const struct strbuf *text)
{
    uint32_t *v;
    size_t n, j;
    tokenizer_encode(tk, text->buf, text->len, TOKENIZER_SPECIAL_DEFAULT, &v, &n);
    if (o->ids) {
        for (j = 0; j < n; j++)
            printf("%s%u", j ? " " : "", v[j]);
        putchar('\n');
    } else {
        for (j = 0; j < n; j++) {
            const char *b;
            size_t bl;
            if (!tokenizer_token_bytes(tk, v[j], &b, &bl))
                print_piece(b, bl);
        }
    }
    free(v);
}

/*
 * The count of one input's text in *n; DM_EXIT_OK, or the exit code after error(): a server
 * without a /tokenize endpoint or refusing the API key (client, may be NULL) is a usage error,
 * a transport failure an infrastructure one.
 */
static int count_tokens(struct tokenizer *tk, struct client *client, const char *key_env,
                        const struct strbuf *text, long *n)
{
    struct strbuf err = STRBUF_INIT;
    int rc = DM_EXIT_OK;
    *n = tokenizer_count_err(tk, text->buf, text->len, &err);
    if (*n < 0) {
        error("tokenize: %s", err.buf);
        if (client && client_auth_refused(client, NULL)) {
            fprintf(stderr, "hint: the server refused the API key; it is read from %s\n", key_env);
            rc = DM_EXIT_USAGE;
        } else {
            rc = strstr(err.buf, "no /tokenize endpoint") ||
                         strstr(err.buf, "did not count tokens") ||
                         strstr(err.buf, "unexpected /tokenize answer")
                     ? DM_EXIT_USAGE
                     : DM_EXIT_INFRA;
        }
    }
    strbuf_release(&err);
    return rc;
}

/* Each input (the files, or stdin) counted or listed; DM_EXIT_OK or an exit code. */
static int tokenize_inputs(struct tokenizer *tk, struct client *client,
                           const struct tokenize_opts *o, const struct strvec *files)
{
    struct strbuf text = STRBUF_INIT;
    size_t i, ninputs = files->nr ? files->nr : 1;
    long total = 0, n;
    int rc = DM_EXIT_OK;
    for (i = 0; i < ninputs && rc == DM_EXIT_OK; i++) {
        const char *path = files->nr ? files->v[i] : "-";
        /* gzip-compressed input (by its magic bytes) is decompressed */
        int r;
        strbuf_reset(&text);
        r = strbuf_read_file_gz(&text, path);
        if (r < 0) {
            error("tokenize: cannot read %s: %s", strcmp(path, "-") ? path : "standard input",
                  r == -2 ? "corrupt or truncated gzip data" : strerror(errno));
            rc = DM_EXIT_USAGE;
        } else if (o->ids || o->pieces) {
            print_tokens(tk, o, &text);
        } else if ((rc = count_tokens(tk, client, o->api_key_env, &text, &n)) == DM_EXIT_OK) {
            total += n;
            if (files->nr > 1)
                printf("%ld\t%s\n", n, path);
            else
                printf("%ld\n", n);
        }
    }
    if (rc == DM_EXIT_OK && files->nr > 1 && !o->ids && !o->pieces)
        printf("%ld\ttotal\n", total);
    strbuf_release(&text);
    return rc;
}

int cmd_tokenize(int argc, const char **argv)
{
    struct tokenize_opts o = {.model = "default", .api_key_env = SECRET_DEFAULT_KEY_ENV};
    struct option opts[] = {
        OPT_STRING('t', "tokenizer", &o.spec, "NAME|FILE|server",
                   "cl100k_base, o200k_base, a .tiktoken or tokenizer.json path, or server"),
        OPT_STRING(0, "endpoint", &o.endpoint, "URL", "server base URL (for --tokenizer server)"),
        OPT_STRING(0, "model", &o.model, "NAME", "model name sent to the server's /tokenize"),
        OPT_STRING(0, "api-key-env", &o.api_key_env, "VAR",
                   "with --tokenizer server: the environment variable holding the API key sent "
                   "(default " SECRET_DEFAULT_KEY_ENV ")"),
        OPT_BOOL(0, "ids", &o.ids, "print the token ids (one line per input)"),
        OPT_BOOL(0, "pieces", &o.pieces, "print each token's text, one per line"),
        OPT_STRING(0, "special", &o.special, "parse|plain",
                   "special-token text (<|endoftext|>, added tokens): its id (parse; default for "
                   "tokenizer.json) or ordinary text (plain; default for .tiktoken)"),
        OPT_BOOL(0, "allow-special", &o.allow_special, "the same as --special parse"),
        OPT_END(),
    };
    struct strvec files = STRVEC_INIT;
    struct tokenizer *tk = NULL;
    struct client *client = NULL;
    int rc = parse_options(argc, argv, opts, tokenize_usage, &files);

    if (rc)
        rc = parse_options_exit(rc);
    else if (check_options(&o) < 0 || !(tk = open_tokenizer(&o, &client)))
        rc = DM_EXIT_USAGE;
    else
        rc = tokenize_inputs(tk, client, &o, &files);
    tokenizer_free(tk);
    if (client)
        client_free(client);
    strvec_clear(&files);
    return rc;
}

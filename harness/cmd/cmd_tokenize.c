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
#include "base/strbuf.h"
#include "base/strvec.h"
#include "tokenizer/tokenizer.h"
#include "base/usage.h"

#include "base/banned.h"

static const char *const tokenize_usage[] = {
    "dipmap tokenize --tokenizer NAME|FILE [--ids|--pieces] [--special parse|plain] "
    "[--allow-special] [FILE...]",
    "dipmap tokenize --tokenizer server --endpoint URL [--model NAME] [FILE...]",
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

int cmd_tokenize(int argc, const char **argv)
{
    const char *spec = NULL, *endpoint = NULL, *model = "default";
    const char *special = NULL;
    int ids = 0, pieces = 0, allow_special = 0, rc = DM_EXIT_OK;
    struct option opts[] = {
        {OPT_STRING, "tokenizer", 't', &spec, "NAME|FILE|server",
         "cl100k_base, o200k_base, a .tiktoken or tokenizer.json path, or server", 0},
        {OPT_STRING, "endpoint", 0, &endpoint, "URL", "server base URL (for --tokenizer server)",
         0},
        {OPT_STRING, "model", 0, &model, "NAME", "model name sent to the server's /tokenize", 0},
        {OPT_BOOL, "ids", 0, &ids, NULL, "print the token ids (one line per input)", 0},
        {OPT_BOOL, "pieces", 0, &pieces, NULL, "print each token's text, one per line", 0},
        {OPT_STRING, "special", 0, &special, "parse|plain",
         "special-token text (<|endoftext|>, added tokens): its id (parse; default for "
         "tokenizer.json) or ordinary text (plain; default for .tiktoken)",
         0},
        {OPT_BOOL, "allow-special", 0, &allow_special, NULL, "the same as --special parse", 0},
        OPT_END_MARK,
    };
    struct strvec files = STRVEC_INIT;
    struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
    struct tokenizer *tk = NULL;
    struct client *client = NULL;
    long total = 0;
    size_t i, ninputs;
    int prc = parse_options(argc, argv, opts, tokenize_usage, &files);

    if (prc) {
        strvec_clear(&files);
        return prc > 0 ? DM_EXIT_OK : DM_EXIT_USAGE;
    }
    if (!spec) {
        error("tokenize: --tokenizer is required");
        rc = DM_EXIT_USAGE;
        goto out;
    }
    if (special && strcmp(special, "parse") && strcmp(special, "plain")) {
        error("tokenize: --special must be parse or plain, not '%s'", special);
        rc = DM_EXIT_USAGE;
        goto out;
    }
    if (allow_special) {
        if (special && strcmp(special, "parse")) {
            error("tokenize: --allow-special contradicts --special %s", special);
            rc = DM_EXIT_USAGE;
            goto out;
        }
        special = "parse";
    }
    if (ids && pieces) {
        error("tokenize: --ids and --pieces cannot be used together");
        rc = DM_EXIT_USAGE;
        goto out;
    }
    if (!strcmp(spec, "server")) {
        struct client_config cfg;
        if (!endpoint) {
            error("tokenize: --tokenizer server needs --endpoint URL");
            rc = DM_EXIT_USAGE;
            goto out;
        }
        if (ids || pieces || special) {
            error("tokenize: --ids, --pieces and --special need a local tokenizer");
            rc = DM_EXIT_USAGE;
            goto out;
        }
        client_config_init(&cfg);
        strvec_push(&cfg.endpoints, endpoint);
        cfg.model = model;
        client = client_new(&cfg, &err);
        client_config_release(&cfg);
        if (!client) {
            error("tokenize: %s", err.buf);
            rc = DM_EXIT_USAGE;
            goto out;
        }
        tk = tokenizer_new_remote(endpoint, client_tokenize_cb, client);
    } else {
        if (endpoint)
            warning("tokenize: --endpoint is only used with --tokenizer server");
        tk = tokenizer_load(spec, &err);
        if (!tk) {
            error("tokenize: %s", err.buf);
            rc = DM_EXIT_USAGE;
            goto out;
        }
        if (special)
            tokenizer_set_special(tk, !strcmp(special, "parse"));
    }

    ninputs = files.nr ? files.nr : 1;
    for (i = 0; i < ninputs; i++) {
        const char *path = files.nr ? files.v[i] : "-";
        strbuf_reset(&text);
        /* gzip-compressed input (by its magic bytes) is decompressed */
        int r = strbuf_read_file_gz(&text, path);
        if (r < 0) {
            error("tokenize: cannot read %s: %s", strcmp(path, "-") ? path : "standard input",
                  r == -2 ? "corrupt or truncated gzip data" : strerror(errno));
            rc = DM_EXIT_USAGE;
            goto out;
        }
        if (ids || pieces) {
            uint32_t *v;
            size_t n, j;
            tokenizer_encode(tk, text.buf, text.len, TOKENIZER_SPECIAL_DEFAULT, &v, &n);
            if (ids) {
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
        } else {
            long n;
            strbuf_reset(&err);
            n = tokenizer_count_err(tk, text.buf, text.len, &err);
            if (n < 0) {
                error("tokenize: %s", err.buf);
                /* no /tokenize endpoint: a usage error; transport failures: infra */
                rc = strstr(err.buf, "no /tokenize endpoint") ||
                             strstr(err.buf, "did not count tokens") ||
                             strstr(err.buf, "unexpected /tokenize answer")
                         ? DM_EXIT_USAGE
                         : DM_EXIT_INFRA;
                goto out;
            }
            total += n;
            if (files.nr > 1)
                printf("%ld\t%s\n", n, path);
            else
                printf("%ld\n", n);
        }
    }
    if (files.nr > 1 && !ids && !pieces)
        printf("%ld\ttotal\n", total);
out:
    tokenizer_free(tk);
    if (client)
        client_free(client);
    strvec_clear(&files);
    strbuf_release(&err);
    strbuf_release(&text);
    return rc;
}

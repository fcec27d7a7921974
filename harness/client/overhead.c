/*
 * Template overhead: what the server counts for a request minus what the
 * run's tokenizer counts for its content (the server's /tokenize with
 * messages, llama.cpp /apply-template, or a probe request).
 */
#include "client/overhead.h"

#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "tokenizer/tokenizer.h"

#include "base/banned.h"

int overhead_measure(struct client *c, struct tokenizer *tk, const char *system, const char *user,
                     int chat, struct template_overhead *out, struct strbuf *err)
{
    long a = 0, b;
    memset(out, 0, sizeof(*out));
    if (client_count_request(c, chat ? system : NULL, user, chat, &out->server_count, &out->method,
                             err) < 0)
        return -1;
    if (chat && system && *system && (a = tokenizer_count_err(tk, system, strlen(system), err)) < 0)
        return -1;
    b = tokenizer_count_err(tk, user, strlen(user), err);
    if (b < 0)
        return -1;
    out->local_count = a + b;
    out->tokens = out->server_count - out->local_count;
    return 0;
}

int overhead_agree(const struct template_overhead *a, const struct template_overhead *b)
{
    long longer = a->local_count > b->local_count ? a->local_count : b->local_count;
    long diff = labs(a->tokens - b->tokens);
    return diff <= 2 || (double)diff <= 0.01 * (double)longer;
}

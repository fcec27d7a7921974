#ifndef OVERHEAD_H
#define OVERHEAD_H

#include "client/client.h"

struct tokenizer;
struct strbuf;

/*
 * The template overhead: tokens the server adds around a request's content
 * (chat template, BOS), measured, never guessed. One place for run and for
 * tests against real servers (tests/llama).
 */
struct template_overhead {
    long tokens;                     /* server_count - local_count */
    long server_count, local_count;  /* of the same request */
    enum client_count_method method; /* how server_count was obtained */
};

/*
 * Measure with one request's content (chat: system, may be "", and user;
 * else the completion prompt user): the server's count (client_count_request)
 * minus the run's tokenizer's count of the same content (system + user
 * counted apart, as the prompt builder counts them). Returns 0, or -1 with a
 * message appended to err. out->tokens may be negative (the run's tokenizer
 * counts more than the server: a tokenizer mismatch).
 */
int overhead_measure(struct client *c, struct tokenizer *tk, const char *system, const char *user,
                     int chat, struct template_overhead *out, struct strbuf *err);

/*
 * A template adds the same tokens to every request, whatever its content: two
 * measurements of requests of different sizes whose overheads differ by more
 * than 1% of the longer one's local count (and 2 tokens) mean the run's
 * tokenizer counts the content differently from the server's, in either
 * direction. Returns 1 when a and b agree, 0 when they show a mismatch.
 */
int overhead_agree(const struct template_overhead *a, const struct template_overhead *b);

#endif

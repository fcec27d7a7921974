#ifndef OVERHEAD_H
#define OVERHEAD_H

#include "client/client.h"

struct tokenizer;
struct strbuf;
struct prompt_turn_cost;
struct prompt_template;
struct question;

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
 * The measurement run makes, and show-prompt --tokenizer server with it: question q's request
 * rendered by tpl without documents (prompt_render_fixed(): chat its system and user, else
 * the completion prompt) measured by overhead_measure(). Same returns.
 */
int overhead_measure_question(struct client *c, struct tokenizer *tk,
                              const struct prompt_template *tpl, const struct question *q, int chat,
                              struct template_overhead *out, struct strbuf *err);

/*
 * A template adds the same tokens to every request, whatever its content: two
 * measurements of requests of different sizes whose overheads differ by more
 * than 1% of the longer one's local count (and 2 tokens) mean the run's
 * tokenizer counts the content differently from the server's, in either
 * direction. Returns 1 when a and b agree, 0 when they show a mismatch.
 */
int overhead_agree(const struct template_overhead *a, const struct template_overhead *b);

/*
 * What the server adds per haystack turn pair of a layout (layout.h; chat: a user and an
 * assistant message, tools: an assistant tool call and its tool result), measured as the
 * server counts whole message lists: probe requests of system, user and 1 and 2 pairs of a
 * sentence ending in '.' and of one ending in a letter, each server count less the run's
 * tokenizer's count of its contents and less base (the request's template overhead). The
 * suffix (out->suffix: "", "\n", " " or "\n\n", the first that works) is the text the
 * template puts after a turn that its end merges with: a turn counted with it (less it
 * alone) must give one per-pair count for both sentences and both sizes. Else -1 with the
 * counts in err. 0 with *out set (per_pair may be negative: a tokenizer mismatch).
 */
int overhead_measure_turns(struct client *c, struct tokenizer *tk, int layout, const char *system,
                           const char *user, long base, struct prompt_turn_cost *out,
                           struct strbuf *err);

/*
 * overhead_measure_turns() on question q's request rendered by tpl without documents, as run
 * measures a layout's turn pairs (and show-prompt --tokenizer server with it).
 */
int overhead_measure_turns_question(struct client *c, struct tokenizer *tk,
                                    const struct prompt_template *tpl, const struct question *q,
                                    int layout, long base, struct prompt_turn_cost *out,
                                    struct strbuf *err);

#endif

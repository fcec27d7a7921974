/*
 * Private to the client (client.c, client_classify.c, client_retry_after.c):
 * the small helpers the transfer and the classifier share. client.h stays
 * the API.
 */
#ifndef CLIENT_INT_H
#define CLIENT_INT_H

#include <stddef.h>

#include "base/strbuf.h"

struct client_response;
struct json;

/* 1 when s starts with prefix, ASCII case-insensitively. */
int client_has_prefix_ci(const char *s, const char *prefix);

/* Appends s[0..len) to sb, control bytes as spaces, at most max bytes (then "...").  */
void client_add_clean(struct strbuf *sb, const char *s, size_t len, size_t max);

/* A non-negative number or numeric string at o[key] (json.h) as a long; -1 when absent or invalid.
 */
long client_obj_long(const struct json *o, const char *key);

/*
 * What an error answer says about the answer-budget field the request sent
 * (field: "max_tokens" or "max_completion_tokens"), the one reading of it for
 * the overhead probe and the trials (client.c budget_refused()):
 * CLIENT_BUDGET_FIELD when the server does not support the field (OpenAI's
 * reasoning models: "Unsupported parameter: 'max_tokens' ... Use
 * 'max_completion_tokens' instead."), CLIENT_BUDGET_TOO_SMALL when it refuses
 * the value as below its minimum (*min = the minimum it states, else 0),
 * CLIENT_BUDGET_OK otherwise (another error, or not a 400/422). The error
 * must name the field (its "param", else its message).
 */
enum client_budget_verdict { CLIENT_BUDGET_OK = 0, CLIENT_BUDGET_FIELD, CLIENT_BUDGET_TOO_SMALL };
enum client_budget_verdict client_budget_verdict(long status, const char *body, size_t len,
                                                 const char *field, long *min);

/* Sets r->error (replacing any) to the formatted message. */
void client_set_error(struct client_response *r, const char *fmt, ...) DM_PRINTF(2, 3);

#endif

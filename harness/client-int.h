/*
 * Private to the client (client.c, client_classify.c, client_retry_after.c):
 * the small helpers the transfer and the classifier share. client.h stays
 * the API.
 */
#ifndef CLIENT_INT_H
#define CLIENT_INT_H

#include <stddef.h>

#include <cJSON.h>

#include "strbuf.h"

struct client_response;

/* 1 when s starts with prefix, ASCII case-insensitively. */
int client_has_prefix_ci(const char *s, const char *prefix);

/* Appends s[0..len) to sb, control bytes as spaces, at most max bytes (then "...").  */
void client_add_clean(struct strbuf *sb, const char *s, size_t len, size_t max);

/* o[key] when o is an object, else NULL; the string value or NULL. Borrowed from o. */
const cJSON *client_obj_get(const cJSON *o, const char *key);
const char *client_obj_str(const cJSON *o, const char *key);
/* A number or numeric string at o[key] as a long; -1 when absent or invalid. */
long client_obj_long(const cJSON *o, const char *key);

/* Sets r->error (replacing any) to the formatted message. */
void client_set_error(struct client_response *r, const char *fmt, ...) DM_PRINTF(2, 3);

#endif

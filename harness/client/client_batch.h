#ifndef CLIENT_BATCH_H
#define CLIENT_BATCH_H

#include <stddef.h>
#include <stdio.h>

struct client;
struct strbuf;

/*
 * The OpenAI Batch API on the client's first endpoint (blocking calls; run --batch):
 * POST /v1/files (multipart, purpose "batch"), GET /v1/files/{id}/content, POST /v1/batches,
 * GET /v1/batches/{id}, GET /v1/batches (to find a batch whose create answer was lost),
 * POST /v1/batches/{id}/cancel; and the parsing of one output or error file line. Every call
 * returns 0 on success, CLIENT_BATCH_UNKNOWN when the provider answers 404 (it does not
 * know the id), -1 otherwise with the provider's message (or the transport's) in err.
 */
#define CLIENT_BATCH_UNKNOWN 1

/* A batch as the provider describes it. Strings malloc'd (NULL when absent). */
struct client_batch {
    char *id;
    char *status; /* validating, failed, in_progress, finalizing, completed, expired,
                     cancelling, cancelled */
    char *input_file_id, *output_file_id, *error_file_id;
    char *errors; /* a failed batch's errors.data, "line N: message (code); ..." */
    char *tag;    /* metadata.dipmap (what dipmap wrote when it created the batch) */
    long total, completed, failed; /* request_counts, -1 unknown */
};
void client_batch_init(struct client_batch *b);
void client_batch_release(struct client_batch *b);
/* 1 for the states a batch never leaves: failed, completed, expired, cancelled. */
int client_batch_is_final(const char *status);

/* Upload path as name (purpose "batch"); the new file's id appended to id. */
int client_file_upload(struct client *c, const char *path, const char *name, struct strbuf *id,
                       struct strbuf *err);
/* The content of file id written to out. */
int client_file_download(struct client *c, const char *id, FILE *out, struct strbuf *err);
/* Create a batch of input_file_id for the client's generation path; tag into metadata. */
int client_batch_create(struct client *c, const char *input_file_id, const char *window,
                        const char *tag, struct client_batch *out, struct strbuf *err);
int client_batch_get(struct client *c, const char *id, struct client_batch *out,
                     struct strbuf *err);
int client_batch_cancel(struct client *c, const char *id, struct client_batch *out,
                        struct strbuf *err);
/*
 * Find the batch created from input_file_id (the newest first, up to 10 pages of 100): 1
 * and *out when one is, 0 when none is, -1 on error.
 */
int client_batch_find(struct client *c, const char *input_file_id, struct client_batch *out,
                      struct strbuf *err);

/*
 * One line of an output or error file: {"custom_id", "response": {"status_code", "body"},
 * "error": {"code", "message"}}. body is the response body as JSON text (for
 * client_classify_answer()); status 0 when the line has no response. Strings malloc'd.
 */
struct client_batch_line {
    char *custom_id;
    long status;
    char *body;
    size_t body_len;
    char *error_code, *error_message;
};
void client_batch_line_init(struct client_batch_line *l);
void client_batch_line_release(struct client_batch_line *l);
/* Parse a line; -1 with what is wrong in err (not JSON, no custom_id, neither part). */
int client_batch_line_parse(const char *line, size_t len, struct client_batch_line *out,
                            struct strbuf *err);

#endif

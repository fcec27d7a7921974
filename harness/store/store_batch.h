#ifndef STORE_BATCH_H
#define STORE_BATCH_H

#include <stddef.h>

#include "base/sha256.h"
#include "run/trial.h"

struct store;

/*
 * The batches a run submitted through the Batch API (run --batch) and the trials each holds,
 * in the run's store (schema 10). A batch is written with all its trials in one transaction
 * before its input file is uploaded (state "prepared"); the file id ("uploaded"), the intent
 * to create it ("creating": the create request may have reached the provider) and its
 * provider id ("submitted") each in their own transaction before the next step, so a process
 * killed at any point leaves a store that says what the provider may hold. "done" once its
 * output is stored; "lost" when the provider no longer knows it. Errors print error() and
 * return -1 as everywhere in the store.
 */

struct store_batch {
    long id;   /* row id */
    char *tag; /* dipmap's name for it (the input file's name and metadata.dipmap) */
    char *state;
    char *input_file_id, *batch_id, *status; /* NULL until known */
    long requests, bytes;
    double created_at, updated_at;
};

/* One trial of a batch: its key, custom_id and what its prompt was (for the trial row). */
struct store_batch_trial {
    char *custom_id;
    char *question_id;
    long length;
    int depth_bp;
    int repeat;
    char *axes; /* "" none */
    char request_sha256[SHA256_HEX_LEN + 1];
    struct prompt_facts facts; /* its prompt's (trial.h; gold_bm25_rank 0 unknown) */
};

void store_batch_release(struct store_batch *b);
void store_batch_list_free(struct store_batch *v, size_t nr);
void store_batch_trials_free(struct store_batch_trial *v, size_t nr);

/*
 * Record a new batch of run (state "prepared") with its n trials, in one transaction (buffered
 * trial writes are flushed first). *id set to its row id. Returns 0 or -1.
 */
int store_batch_add(struct store *st, const char *run, const char *tag, long bytes,
                    const struct store_batch_trial *t, size_t n, long *id);
/* Set a batch's state and, where non-NULL, its input file id, provider id and status. */
int store_batch_set(struct store *st, long id, const char *state, const char *input_file_id,
                    const char *batch_id, const char *status);
/* Forget a batch the provider never saw (state "prepared"), with its trials. */
int store_batch_delete(struct store *st, long id);
/* The batches of run, oldest first (*out malloc'd; store_batch_list_free). 0, 1 no run, -1. */
int store_batch_list(struct store *st, const char *run, struct store_batch **out, size_t *nr);
/* The trials of batch id, in the order written (*out malloc'd; store_batch_trials_free). */
int store_batch_trials(struct store *st, long id, struct store_batch_trial **out, size_t *nr);

#endif

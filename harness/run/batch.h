#ifndef BATCH_H
#define BATCH_H

#include "run/runner.h"

/*
 * run --batch: the plan's trials through the OpenAI Batch API instead of one request each.
 * The bodies are client_request_body()'s (the very bodies online mode sends), one line per
 * trial with the trial key as custom_id, in input files within max_requests / max_bytes, the
 * trials of a group (a question's depths at one length and repeat) together, deepest gold
 * first (the prefix-cache order). Each batch and its trials are in the store (store_batch.h)
 * before its file is uploaded; the file id before the batch is created; so the same command
 * after a kill re-attaches to what it submitted (a create whose answer was lost is found by
 * its input file) and submits only trials never submitted. Output and error lines are
 * classified by the online classifier (client_classify_answer()), scored and stored; lines
 * that expired or failed for the server's reasons go into a new batch (or online with
 * BATCH_FALLBACK_ONLINE); a line refused for its own fault gets the online outcome. SIGINT
 * leaves submitted batches running (RUNNER_INTERRUPTED: the same command collects them);
 * cancel cancels them and stores what they finished. A batch the provider no longer knows is
 * reported (RUNNER_FATAL), never submitted again silently. Lines the provider still expired
 * or failed after max_rounds batches end the run incomplete (RUNNER_INCOMPLETE, resumable).
 */

enum batch_fallback { BATCH_FALLBACK_BATCH = 0, BATCH_FALLBACK_ONLINE };

struct batch_config {
    const char *window; /* completion_window ("24h") */
    long max_requests;  /* lines per input file (default 50000) */
    long max_bytes;     /* bytes per input file (default 200 MB) */
    enum batch_fallback fallback;
    int cancel;        /* cancel the run's batches, store what they finished, stop */
    double poll_s;     /* first poll interval (default 5 s); doubles up to poll_max_s */
    double poll_max_s; /* default 60 s */
    double price_in;   /* USD per 1M prompt tokens in a batch (< 0 unknown) */
    double price_out;  /* USD per 1M completion tokens in a batch (< 0 unknown) */
    int max_rounds;    /* new batches for expired/failed lines at most (default 5) */
    const char *spool; /* folder for input files while they upload (default $TMPDIR, /tmp) */
};

#define BATCH_DEFAULT_MAX_REQUESTS 50000
#define BATCH_DEFAULT_MAX_BYTES    200000000L

void batch_config_init(struct batch_config *bc);

/*
 * Execute rc's plan through batches (rc as for runner_run(): client after the preflight,
 * store open read-write and the run locked; rc->max_cost is checked before each submission
 * at the batch prices). Fills res as runner_run() does. Returns 0, or -1 for a broken
 * configuration.
 */
int batch_run(const struct runner_config *rc, const struct batch_config *bc,
              struct runner_result *res);

#endif

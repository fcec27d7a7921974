#ifndef RUNBRIEF_H
#define RUNBRIEF_H

#include <stddef.h>

#include "store/store.h"

struct runner_result;
struct store;

/*
 * One run in a listing (dipmap runs, dipmap view): how many finished trials
 * are valid (correct/wrong, the only ones in accuracy), the accuracy over
 * them, and the dip (edge - the 25-75% middle) per length as point estimates
 * (no bootstrap: a listing must stay fast over many runs). Computed from the
 * store's trials by stats_run.c, so it agrees with `dipmap report`.
 */
struct runbrief_dip {
    long length;
    double dip; /* NAN when the length has fewer than 3 depths with data */
};

struct runbrief {
    long trials; /* finished (not pending) */
    long valid;
    long correct;
    double accuracy;           /* NAN when valid == 0 */
    struct runbrief_dip *dips; /* ascending length, malloc'd */
    size_t n_dips;
    double dip_max; /* the largest dip over the lengths, NAN when none */
    long dip_max_length;
};

/* Fill *b for run `name`. Returns 0, 1 when no such run, -1 on a store error. */
int runbrief_load(struct store *st, const char *name, struct runbrief *b);
void runbrief_release(struct runbrief *b);

/*
 * The end-of-run lines of `dipmap run` on stdout. res's outcomes are this
 * invocation's; the accuracy line is the whole run's (run_correct of
 * run_valid, from the store, trials kept from before included) when
 * run_valid >= 0, else this invocation's. run_stored: the run's finished
 * trials in the store (-1 unknown); fewer than this invocation accounts for
 * (the store could not be written) and the trials line says what is stored.
 */
void runbrief_print_run(const char *run, const char *db, const struct runner_result *res,
                        enum run_status status, int window, long run_correct, long run_valid,
                        long run_stored);
/*
 * runbrief_print_run() for run in st as it ended: the whole run's accuracy and its stored
 * trials read from the store (unknown when it cannot be read).
 */
void runbrief_print_end(struct store *st, const char *run, const char *db,
                        const struct runner_result *res, enum run_status status, int window);

/*
 * The schedule and what the server's prefix cache did with it: prompt tokens
 * sent, those it says it took from its cache, those it computed; and the mean
 * send time per depth (a schedule must not send one depth systematically
 * earlier than another).
 */
void runbrief_print_schedule(const struct runner_result *res);

#endif

/*
 * Listing figures of a run (valid trials, accuracy, dip per length): load the
 * trials, run the statistics without the bootstrap, keep the few numbers a
 * listing shows. Used by `dipmap runs` and `dipmap view`.
 */
#include "report/runbrief.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"
#include "store/store.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

#include "base/banned.h"

int runbrief_load(struct store *st, const char *name, struct runbrief *b)
{
    struct trial_result *t = NULL;
    size_t n = 0, i;
    struct stats_options o;
    struct run_stats s;
    struct strbuf err = STRBUF_INIT;
    int rc;

    memset(b, 0, sizeof(*b));
    b->accuracy = NAN;
    b->dip_max = NAN;
    rc = store_trials_load(st, name, &t, &n);
    if (rc)
        return rc;
    stats_options_init(&o);
    o.bootstrap_iters = 0;
    if (stats_compute(t, n, &o, &s, &err) < 0) {
        strbuf_release(&err);
        store_trials_free(t, n);
        return -1;
    }
    b->trials = s.n_trials;
    b->valid = s.n_valid;
    b->correct = s.n_correct;
    if (s.n_valid)
        b->accuracy = s.accuracy;
    b->n_dips = s.n_lengths;
    b->dips = xcalloc(s.n_lengths + 1, sizeof(*b->dips));
    for (i = 0; i < s.n_lengths; i++) {
        const struct length_stats *l = &s.lengths[i];
        b->dips[i].length = l->length;
        b->dips[i].dip = l->has_middle ? l->dip.est : NAN;
        if (l->has_middle && (isnan(b->dip_max) || l->dip.est > b->dip_max)) {
            b->dip_max = l->dip.est;
            b->dip_max_length = l->length;
        }
    }
    run_stats_release(&s);
    strbuf_release(&err);
    store_trials_free(t, n);
    return 0;
}

void runbrief_release(struct runbrief *b)
{
    free(b->dips);
    memset(b, 0, sizeof(*b));
}

/*
 * The estimates --dry-run prints beyond the plan's own summary: what a
 * prefix cache could save with --schedule cache, and what compare could
 * detect with the matrix (power at dipmap plan's defaults).
 */
#include "run/estimate.h"

#include <stdlib.h>
#include <string.h>

#include "run/plan.h"
#include "stats/compare.h"
#include "stats/power.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

#include "base/banned.h"

/*
 * Gates the dry run simulates (power_gate_simulate(), as dipmap plan --gates does; plan's
 * default is 200): its mean questions carry a standard error of 5-15 questions, see
 * VALIDATION.md "`dipmap plan` against the gate"; at a fifth of plan's CPU time (a 400-question
 * set: about 8 s of CPU).
 */
#define DRY_RUN_GATES 40

/*
 * The power section of --dry-run: what compare could detect with this
 * matrix, at dipmap plan's defaults (accuracy 70%, independent draws): the primary
 * endpoints, the cells, and the gate's chance to PASS an unchanged model with the golden set as
 * its cap, simulated with compare's own tests (power_summary(), the code dipmap plan prints).
 */
void estimate_power(const struct plan_spec *spec, size_t questions, struct strbuf *out)
{
    struct power_cell *cells =
        xcalloc(st_mult(spec->lengths_nr, spec->depths_nr) + 1, sizeof(*cells));
    struct power_spec ps;
    size_t i, j, n = 0;
    long *lengths = xcalloc(spec->lengths_nr + 1, sizeof(*lengths));
    int *depths = xcalloc(spec->depths_nr + 1, sizeof(*depths));
    memcpy(lengths, spec->lengths, spec->lengths_nr * sizeof(*lengths));
    memcpy(depths, spec->depths_bp, spec->depths_nr * sizeof(*depths));
    for (i = 1; i < spec->lengths_nr; i++) /* compare's order: ascending */
        for (j = i; j > 0 && lengths[j - 1] > lengths[j]; j--) {
            long t = lengths[j];
            lengths[j] = lengths[j - 1];
            lengths[j - 1] = t;
        }
    for (i = 1; i < spec->depths_nr; i++)
        for (j = i; j > 0 && depths[j - 1] > depths[j]; j--) {
            int t = depths[j];
            depths[j] = depths[j - 1];
            depths[j - 1] = t;
        }
    for (i = 0; i < spec->lengths_nr; i++)
        for (j = 0; j < spec->depths_nr; j++) {
            cells[n].length = lengths[i];
            cells[n].depth_bp = depths[j];
            cells[n++].accuracy = 0.7;
        }
    memset(&ps, 0, sizeof(ps));
    ps.questions = questions;
    ps.repeats = spec->repeats;
    ps.alpha = COMPARE_DEFAULT_ALPHA;
    ps.tolerance = COMPARE_DEFAULT_TOLERANCE;
    ps.discordance = -1.0;
    ps.cells = cells;
    ps.n_cells = n;
    ps.gate_reps = DRY_RUN_GATES;
    strbuf_addstr(out, "\nassuming accuracy 70% and independent draws (dipmap plan --pilot RUN "
                       "measures them; dipmap plan --detect 10pp gives the questions needed):\n");
    if (ps.questions)
        power_summary(&ps, 0.0, out);
    free(cells);
    free(lengths);
    free(depths);
}

/* What a prefix cache could save with --schedule cache (and its cost with and without). */
void estimate_cache(const struct plan *plan, const struct plan_cost *cost, double price_cached_in,
                    struct strbuf *out)
{
    double in, cached, pc = price_cached_in >= 0 ? price_cached_in : cost->price_in;
    plan_cache_estimate(plan, &in, &cached);
    if (!(in > 0))
        return;
    if (out->len && out->buf[out->len - 1] != '\n')
        strbuf_addch(out, '\n');
    strbuf_addf(out,
                "prefix cache: with --schedule cache a server that caches prefixes can serve "
                "about %.0f of %.0f prompt tokens (%.0f%%; it computes %.2fx)\n",
                cached, in, 100.0 * cached / in, (in - cached) / in);
    if (cost->price_in >= 0 && cost->price_out >= 0) {
        double outt = (double)plan->nr * (double)cost->max_answer_tokens * cost->price_out / 1e6;
        double whole = in * cost->price_in / 1e6 + outt;
        double with = (in - cached) * cost->price_in / 1e6 + cached * pc / 1e6 + outt;
        if (price_cached_in >= 0 && price_cached_in != cost->price_in)
            strbuf_addf(out,
                        "cost with the cache schedule: about $%.4f instead of $%.4f (cached "
                        "prompt tokens at $%g per 1M)\n",
                        with, whole, pc);
        else
            strbuf_addf(out,
                        "cost with the cache schedule: about $%.4f, the same as without (cached "
                        "prompt tokens priced as --price-in; give --price-cached-in for the "
                        "saving)\n",
                        whole);
    }
}

#ifndef ESTIMATE_H
#define ESTIMATE_H

#include <stddef.h>

struct plan;
struct plan_cost;
struct plan_spec;
struct strbuf;

/*
 * Appends to out what a server that caches prefixes could serve with
 * --schedule cache (plan_cache_estimate) and, with both prices known, the
 * cost with and without it (cached prompt tokens at price_cached_in USD per
 * 1M, < 0: at cost->price_in). Nothing when the plan sends no prompt tokens.
 */
void estimate_cache(const struct plan *plan, const struct plan_cost *cost, double price_cached_in,
                    struct strbuf *out);

/*
 * Appends the power section of --dry-run to out: what compare could detect
 * with spec's lengths x depths x repeats over `questions` questions, at
 * dipmap plan's defaults (accuracy 70%, independent draws).
 */
void estimate_power(const struct plan_spec *spec, size_t questions, struct strbuf *out);

#endif

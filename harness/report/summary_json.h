#ifndef SUMMARY_JSON_H
#define SUMMARY_JSON_H

#include <stddef.h>

struct json;
struct strbuf;
struct run_info;
struct run_stats;

/*
 * summary.json: the documented, stable machine-readable summary of one run
 * (docs/schemas.md "summary.json schema"), read by CI scripts and the nightly
 * trend. `dipmap report RUN --format json` writes it.
 *
 * The schema is versioned by the top-level "schema" field
 * ("dipmap.summary/2", and "schema_version": 2); fields are only ever added
 * within a version. Version 2: "dip" is edge - the 25-75% interior mean (v1:
 * edge - the worst depth, now "dip_worst"), cells carry the question-clustered
 * "interval95" and "design_effect" (v1: "wilson95"); docs/schemas.md lists every change.
 */
#define SUMMARY_JSON_SCHEMA  "dipmap.summary/2"
#define SUMMARY_JSON_VERSION 2

/*
 * Append the summary of `run` (metadata) and `stats` (stats_compute()) to
 * out as one pretty-printed JSON document ending in a newline, with "axes":
 * the named axes' statistics (stats_axes.h; an empty array without). run may be
 * NULL (the "run" object is then null). Returns 0 (out of memory stops
 * dipmap, as xalloc.h).
 */
struct axis_stats;
int summary_json_write(const struct run_info *run, const struct run_stats *stats,
                       const struct axis_stats *axes, size_t n_axes, struct strbuf *out);
/*
 * The same with the order experiment's "order" object (order_stats.h) when os
 * is not NULL; curve_run names the depth run its expectations came from (NULL: none);
 * "lexical": per question of lex[0..n_lex) (report.h) its overlap share and BM25 ranks.
 */
struct order_stats;
struct report_lexical;
int summary_json_write_order(const struct run_info *run, const struct run_stats *stats,
                             const struct axis_stats *axes, size_t n_axes,
                             const struct order_stats *os, const char *curve_run,
                             const struct report_lexical *lex, size_t n_lex, struct strbuf *out);

/*
 * The JSON object of one run, the one writer of a run record: summary.json's
 * "run" and each entry of `dipmap runs --json` (which adds its live state).
 * Keys: name, model_requested, model_served, endpoints, system_fingerprint,
 * status, created_at / started_at / finished_at (Unix seconds or null),
 * trials_planned, trials_done, shard, tags (array), inputs {golden_sha256,
 * haystack_sha256, template_sha256, tokenizer_name, tokenizer_sha256},
 * settings (object; the stored text when it does not parse), dipmap_version,
 * dipmap_commit. The caller owns the result (json_free(), or json_add() it to a tree).
 */
struct json *summary_json_run(const struct run_info *r);

#endif

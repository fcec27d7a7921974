#ifndef RUN_IDENTITY_H
#define RUN_IDENTITY_H

#include <stddef.h>

/*
 * What makes two runs comparable, and what makes them one run: the one place
 * these rules live. Resume (cmd_run.c) and merge (store_merge.c) ask
 * run_identity_same_run(); compare, trend and view ask
 * run_identity_same_inputs().
 *
 * A tokenizer is known by its file hash when either run has one (the same
 * bytes under another name or path is the same tokenizer), else by name
 * (server tokenizers have no file; "unknown" counts as no hash).
 */

struct plan_spec;
#include "run/plan.h"

struct prompt_turn_cost;
struct run_info;
struct strbuf;

/* The most named axes one run crosses: every one of them is in the identity. */
#define RUN_IDENTITY_AXES_MAX PLAN_AXES_MAX

/* The options of `run` that are part of its identity (beside the plan's lengths, depths, axes). */
struct run_identity_opts {
    int completions;
    const char *experiment_json; /* the order experiment's settings (JSON), NULL for depth */
    long max_tokens;
    const char *max_tokens_field, *reasoning_effort, *reasoning_tags, *controls;
    long repeats, seed;
    double temperature, top_p;
    /*
     * The layout axis (prompt/layout.h): what the server's template adds per haystack turn
     * pair, indexed by enum prompt_layout, kept as "turn-overhead" (tokens) and
     * "turn-suffix" (the text turns merge with, when any): what layout prompts are built
     * against; NULL when the run has no --layout (absent, so other runs keep their identity)
     */
    const struct prompt_turn_cost *turn_cost;
    /* run --absent (spec->absent > 0): the abstention detector, kept as "absent" */
    const struct abstain_rule *abstain;
};

/*
 * The settings that change what a trial measures, as the canonical JSON the
 * store keeps (keys sorted): o, spec's lengths/depths/axes, the scorer, the
 * --extra-body JSON (NULL: none), the template overhead (0: absent) and how
 * special tokens were counted. malloc'd; the caller frees.
 */
char *run_identity_settings(const struct run_identity_opts *o, const struct plan_spec *spec,
                            const char *scorer, const char *extra_body, long overhead,
                            const char *special);

/*
 * The "absent" of a stored run's settings (run --absent): 1 with the share in *share and the
 * abstention detector in *r (its strings and regex array owned by *keep: release with
 * run_identity_abstain_release()), 0 when the run has none.
 */
struct abstain_rule;
struct abstain_keep {
    char *phrase;
    char **regex;
    size_t regex_nr;
};
int run_identity_abstain(const char *settings_json, double *share, struct abstain_rule *r,
                         struct abstain_keep *keep);
void run_identity_abstain_release(struct abstain_keep *keep);

/* The "template-overhead" of a stored run's settings (0 when absent: older runs, or none). */
long run_identity_settings_overhead(const char *json);

/* The "turn-overhead" and "turn-suffix" of a stored run's settings into to[PROMPT_LAYOUT__COUNT]
 * (0 and "" when absent). */
void run_identity_settings_turn_cost(const char *json, struct prompt_turn_cost *to);

/* Appends to out the first setting that differs between two identity JSON objects. */
void run_identity_describe_settings_diff(const char *a, const char *b, struct strbuf *out);

/*
 * The data two runs measured with: golden set, haystack, template and
 * tokenizer. Returns 1 when the same; else 0, sets *field (when non-NULL) to
 * the first differing column ("golden_sha256", ..., "tokenizer_name") and
 * appends one line per difference to why (when non-NULL), e.g.
 * "golden set differs: golden_sha256 1a2b3c4d5e6f… vs 9f8e7d6c5b4a…".
 */
int run_identity_same_inputs(const struct run_info *a, const struct run_info *b, const char **field,
                             struct strbuf *why);

/*
 * One run: the same inputs, the same model requested and the same settings
 * (settings_json equal as JSON, key order aside). Endpoints, tags, shard and
 * versions are not identity. Returns 1 or 0 with *field / why as above
 * ("model_requested", "settings_json" for those two).
 */
int run_identity_same_run(const struct run_info *a, const struct run_info *b, const char **field,
                          struct strbuf *why);

/*
 * One series (a trend, compare --latest's baseline): the same inputs and the
 * same trial matrix, the settings' "lengths", "depths_bp", "axes" and
 * "experiment" equal as JSON (absent in both counts as equal). The model and
 * its sampling settings may differ: that is what a series watches. An order
 * run and a depth run with one tag, or runs at other lengths, are not one
 * series. Returns 1 or 0 with *field ("lengths", ...) / why as above ("trial
 * matrix differs: lengths").
 */
int run_identity_same_series(const struct run_info *a, const struct run_info *b, const char **field,
                             struct strbuf *why);

/*
 * What was sent: two runs of the same inputs whose prompt settings are equal (seed, template
 * and turn overheads, completions, special tokens, experiment) build the same prompt for a
 * trial key, so they must have sent the same bytes. Compares the stored prompt hashes of every
 * trial key both runs hold (sa, sb: the stores holding a and b). Returns 1 (the same, or not
 * expected to be), 0 with "they sent other prompts for the same trials: N of M shared trial
 * keys (first KEY: prompt 1a2b... vs 9f8e...)" appended to why (when non-NULL), -1 on a store
 * error. compare refuses such runs (a run recorded by a path that built other requests, such
 * as --batch before the one trial pipeline).
 */
struct store;
int run_identity_same_prompts(struct store *sa, const struct run_info *a, struct store *sb,
                              const struct run_info *b, struct strbuf *why);

/*
 * How a run was scored: "SCORER/VERSION" (its recorded scorer_version, or
 * the settings' "scorer" with version 1 for runs made before versions were
 * recorded), plus " tags OPEN,CLOSE" when it split other reasoning tags.
 * Appends to out.
 */
void run_identity_scoring(const struct run_info *r, struct strbuf *out);
/*
 * Scored alike (compare refuses otherwise unless told). Returns 1, or 0 with
 * "scored differently: kv/1 vs kv/2" appended to why (when non-NULL).
 */
int run_identity_same_scoring(const struct run_info *a, const struct run_info *b,
                              struct strbuf *why);

/*
 * An order experiment (run --experiment order): its settings name the experiment. The one
 * place that decides it (report, view and the curve search below read it here).
 */
int run_identity_is_order(const struct run_info *r);

/*
 * A depth curve of r can stand for a's expectations (the order report's computed column):
 * the same model requested, template and tokenizer by their sha256 (two tokenizer.json
 * files of one name are not one tokenizer), and r a depth run. 1 or 0.
 */
int run_identity_same_curve(const struct run_info *a, const struct run_info *r);

/*
 * A run's settings scored again (rescore): "scorer" replaced, and "reasoning-tags" when tags is
 * non-NULL, in the store's canonical form. malloc'd; the caller frees.
 */
char *run_identity_rescored(const char *settings, const char *scorer, const char *tags);
/* The settings' own "reasoning-tags", or NULL (malloc'd; the caller frees). */
char *run_identity_reasoning_tags(const char *settings);

/*
 * json with object keys sorted at every level, unformatted: the form the
 * store keeps settings in, so equal settings are equal text. malloc'd (the
 * caller frees); NULL when json is NULL or not JSON.
 */
char *run_identity_canonical_json(const char *json);

#endif

/*
 * `dipmap export RUN... --format csv|jsonl|eee [--out FILE|DIR]`: every trial of the
 * runs as one row, with the run's identity and the trial's axes and stored
 * fields, for pandas, DuckDB or a spreadsheet. Owns the column table (docs/schemas.md
 * "Export schema"); the store streams the trials. `--format eee --out DIR` writes Every Eval
 * Ever's records instead (below).
 */
#include <errno.h>
#include <sys/stat.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/builtin.h"
#include "base/escape.h"
#include "base/json.h"
#include "base/sha256.h"
#include "prompt/dataset.h"
#include "stats/stats.h"
#include "base/opt.h"
#include "store/store.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/usage.h"
#include "base/xalloc.h"

#include "base/banned.h"

static const char *const export_usage[] = {
    "dipmap export RUN... [--db FILE] [--format csv|jsonl] [--out FILE]",
    "dipmap export RUN... [--db FILE] --format eee --out DIR",
    NULL,
};

enum col_type { COL_STR, COL_INT, COL_REAL, COL_BOOL };

/* One value: a string (NULL = null), or a number with `null` set when absent. */
struct value {
    enum col_type type;
    const char *s;
    double d;
    long l;
    int null;
};

struct row {
    const struct run_info *run;
    const struct trial_result *t;
};

typedef void (*col_get_fn)(const struct row *r, struct value *v);

struct column {
    const char *name;
    col_get_fn get;
};

static void v_str(struct value *v, const char *s)
{
    v->type = COL_STR;
    v->s = s && *s ? s : NULL;
    v->null = !v->s;
}

static void v_int(struct value *v, long l, int null)
{
    v->type = COL_INT;
    v->l = l;
    v->null = null;
}

static void v_real(struct value *v, double d)
{
    v->type = COL_REAL;
    v->d = d;
    v->null = !isfinite(d);
}

static void v_bool(struct value *v, int b)
{
    v->type = COL_BOOL;
    v->l = b;
    v->null = 0;
}

/* clang-format off */
#define RUN_STR(field) \
    static void get_##field(const struct row *r, struct value *v) { v_str(v, r->run->field); }
RUN_STR(model_requested)
RUN_STR(model_served)
RUN_STR(system_fingerprint)
RUN_STR(tags)
RUN_STR(shard)
RUN_STR(golden_sha256)
RUN_STR(haystack_sha256)
RUN_STR(template_sha256)
RUN_STR(tokenizer_name)
RUN_STR(tokenizer_sha256)
RUN_STR(dipmap_version)
RUN_STR(dipmap_commit)
#undef RUN_STR
/* clang-format on */

static void get_run(const struct row *r, struct value *v)
{
    v_str(v, r->run->name);
}
static void get_run_status(const struct row *r, struct value *v)
{
    v_str(v, run_status_name(r->run->status));
}
static void get_question_id(const struct row *r, struct value *v)
{
    v_str(v, r->t->question_id);
}
static void get_axes(const struct row *r, struct value *v)
{
    v_str(v, r->t->axes ? r->t->axes : "");
}
static void get_length(const struct row *r, struct value *v)
{
    v_int(v, r->t->length, 0);
}
static void get_depth_bp(const struct row *r, struct value *v)
{
    v_int(v, r->t->depth_bp, 0);
}
static void get_depth(const struct row *r, struct value *v)
{
    v_real(v, (double)r->t->depth_bp / DEPTH_BP_MAX);
}
static void get_repeat(const struct row *r, struct value *v)
{
    v_int(v, r->t->repeat, 0);
}
static void get_prompt_sha256(const struct row *r, struct value *v)
{
    v_str(v, r->t->facts.sha256);
}
static void get_realized_length(const struct row *r, struct value *v)
{
    v_int(v, r->t->facts.realized_length, r->t->facts.realized_length <= 0);
}
static void get_usage_prompt_tokens(const struct row *r, struct value *v)
{
    v_int(v, r->t->usage_prompt_tokens, r->t->usage_prompt_tokens < 0);
}
static void get_realized_depth(const struct row *r, struct value *v)
{
    v_real(v, r->t->facts.realized_length > 0 ? r->t->facts.realized_depth : NAN);
}
static void get_gold_offset(const struct row *r, struct value *v)
{
    v_int(v, r->t->facts.gold_offset, r->t->facts.realized_length <= 0);
}
static void get_outcome(const struct row *r, struct value *v)
{
    v_str(v, outcome_name(r->t->outcome));
}
static void get_scored(const struct row *r, struct value *v)
{
    v_bool(v, outcome_is_scored(r->t->outcome));
}
static void get_correct(const struct row *r, struct value *v)
{
    if (outcome_is_scored(r->t->outcome))
        v_bool(v, r->t->outcome == OUTCOME_CORRECT);
    else
        v_int(v, 0, 1);
}
static void get_score(const struct row *r, struct value *v)
{
    v_real(v, outcome_is_scored(r->t->outcome) ? r->t->score : NAN);
}
static void get_http_status(const struct row *r, struct value *v)
{
    v_int(v, r->t->http_status, r->t->http_status <= 0);
}
static void get_attempts(const struct row *r, struct value *v)
{
    v_int(v, r->t->attempts, 0);
}
static void get_latency_ms(const struct row *r, struct value *v)
{
    v_real(v, r->t->latency_ms);
}
static void get_completion_tokens(const struct row *r, struct value *v)
{
    v_int(v, r->t->completion_tokens, r->t->completion_tokens < 0);
}
static void get_finish_reason(const struct row *r, struct value *v)
{
    v_str(v, r->t->finish_reason);
}
static void get_answer(const struct row *r, struct value *v)
{
    v_str(v, r->t->answer);
}
static void get_reasoning(const struct row *r, struct value *v)
{
    v_str(v, r->t->reasoning);
}
static void get_cut(const struct row *r, struct value *v)
{
    v_int(v, r->t->cut, 0);
}
static void get_reasoning_tokens(const struct row *r, struct value *v)
{
    v_int(v, r->t->reasoning_tokens, r->t->reasoning_tokens < 0);
}
static void get_reasoning_chars(const struct row *r, struct value *v)
{
    v_int(v, r->t->reasoning_chars, 0);
}
static void get_request_sha256(const struct row *r, struct value *v)
{
    v_str(v, r->t->request_sha256[0] ? r->t->request_sha256 : NULL);
}
static void get_reused_from(const struct row *r, struct value *v)
{
    v_str(v, r->t->reused_from);
}
static void get_error(const struct row *r, struct value *v)
{
    v_str(v, r->t->error);
}
static void get_finished_at(const struct row *r, struct value *v)
{
    v_real(v, r->t->finished_at > 0 ? r->t->finished_at : NAN);
}

static void get_cache_n(const struct row *r, struct value *v)
{
    v_int(v, r->t->cache_n, r->t->cache_n < 0);
}
static void get_prompt_n(const struct row *r, struct value *v)
{
    v_int(v, r->t->prompt_n, r->t->prompt_n < 0);
}
static void get_prompt_ms(const struct row *r, struct value *v)
{
    v_real(v, r->t->prompt_ms >= 0 ? r->t->prompt_ms : NAN);
}
static void get_cached_tokens(const struct row *r, struct value *v)
{
    v_int(v, r->t->cached_tokens, r->t->cached_tokens < 0);
}
static void get_sent_at(const struct row *r, struct value *v)
{
    v_real(v, r->t->sent_at > 0 ? r->t->sent_at : NAN);
}
static void get_gold_bm25_rank(const struct row *r, struct value *v)
{
    v_int(v, r->t->facts.gold_bm25_rank, r->t->facts.gold_bm25_rank <= 0);
}
static void get_bm25_docs(const struct row *r, struct value *v)
{
    v_int(v, r->t->facts.bm25_docs, r->t->facts.gold_bm25_rank <= 0);
}

/*
 * The export schema, in column order (docs/schemas.md "Export schema" documents each).
 * tests/cli/510 checks that every column of the store's trials table is here.
 */
static const struct column columns[] = {
    /* the run's identity */
    {"run", get_run},
    {"model_requested", get_model_requested},
    {"model_served", get_model_served},
    {"system_fingerprint", get_system_fingerprint},
    {"tags", get_tags},
    {"shard", get_shard},
    {"run_status", get_run_status},
    {"golden_sha256", get_golden_sha256},
    {"haystack_sha256", get_haystack_sha256},
    {"template_sha256", get_template_sha256},
    {"tokenizer_name", get_tokenizer_name},
    {"tokenizer_sha256", get_tokenizer_sha256},
    {"dipmap_version", get_dipmap_version},
    {"dipmap_commit", get_dipmap_commit},
    /* the trial's axes */
    {"question_id", get_question_id},
    {"length", get_length},
    {"depth_bp", get_depth_bp},
    {"depth", get_depth},
    {"repeat", get_repeat},
    /* what was sent and what came back */
    {"prompt_sha256", get_prompt_sha256},
    {"realized_length", get_realized_length},
    {"usage_prompt_tokens", get_usage_prompt_tokens},
    {"realized_depth", get_realized_depth},
    {"gold_offset", get_gold_offset},
    {"outcome", get_outcome},
    {"scored", get_scored},
    {"correct", get_correct},
    {"score", get_score},
    {"http_status", get_http_status},
    {"attempts", get_attempts},
    {"latency_ms", get_latency_ms},
    {"completion_tokens", get_completion_tokens},
    {"finish_reason", get_finish_reason},
    {"answer", get_answer},
    {"reasoning", get_reasoning},
    {"error", get_error},
    {"finished_at", get_finished_at},
    /* schema 3: reasoning and budget, request identity (run --reuse) */
    {"cut", get_cut},
    {"reasoning_tokens", get_reasoning_tokens},
    {"reasoning_chars", get_reasoning_chars},
    {"request_sha256", get_request_sha256},
    {"reused_from", get_reused_from},
    /* the server's prompt-cache timings (llama.cpp) */
    {"cache_n", get_cache_n},
    {"prompt_n", get_prompt_n},
    {"prompt_ms", get_prompt_ms},
    /* usage.prompt_tokens_details.cached_tokens; when the final attempt was sent */
    {"cached_tokens", get_cached_tokens},
    {"sent_at", get_sent_at},
    {"axes", get_axes},
    /* schema 11: the gold's BM25 rank among the prompt's documents */
    {"gold_bm25_rank", get_gold_bm25_rank},
    {"bm25_docs", get_bm25_docs},
};
#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))

enum export_format { EXPORT_CSV, EXPORT_JSONL, EXPORT_EEE };

struct export_ctx {
    enum export_format format;
    FILE *fp;
    const struct run_info *run;
    struct strbuf line;
    long rows;
};

/* A number as text: integers exactly, reals with enough digits to round-trip. */
static void add_number(struct strbuf *sb, const struct value *v)
{
    if (v->type == COL_INT)
        strbuf_addf(sb, "%ld", v->l);
    else if (v->type == COL_BOOL)
        strbuf_addstr(sb, v->l ? "true" : "false");
    else
        strbuf_addf(sb, "%.17g", v->d);
}

static void format_row(struct export_ctx *x, const struct row *r)
{
    size_t i;
    strbuf_reset(&x->line);
    if (x->format == EXPORT_JSONL)
        strbuf_addch(&x->line, '{');
    for (i = 0; i < NCOLUMNS; i++) {
        struct value v;
        memset(&v, 0, sizeof(v));
        columns[i].get(r, &v);
        if (x->format == EXPORT_JSONL) {
            strbuf_addstr(&x->line, i ? ",\"" : "\"");
            strbuf_addstr(&x->line, columns[i].name);
            strbuf_addstr(&x->line, "\":");
            if (v.null)
                strbuf_addstr(&x->line, "null");
            else if (v.type == COL_STR)
                escape_json(&x->line, v.s);
            else
                add_number(&x->line, &v);
        } else {
            if (i)
                strbuf_addch(&x->line, ',');
            if (v.null)
                continue;
            if (v.type == COL_STR)
                escape_csv(&x->line, v.s);
            else
                add_number(&x->line, &v);
        }
    }
    strbuf_addstr(&x->line, x->format == EXPORT_JSONL ? "}\n" : "\r\n");
}

static int write_line(struct export_ctx *x)
{
    if (fwrite(x->line.buf, 1, x->line.len, x->fp) != x->line.len)
        return -1;
    return 0;
}

static int export_trial(const struct trial_result *t, void *data)
{
    struct export_ctx *x = data;
    struct row r;
    if (t->outcome == OUTCOME_PENDING)
        return 0; /* not a measurement yet */
    r.run = x->run;
    r.t = t;
    format_row(x, &r);
    x->rows++;
    return write_line(x) ? 2 : 0;
}

/* ---- Every Eval Ever (--format eee) ---------------------------------------------------------
 *
 * Every Eval Ever (evaleval/every_eval_ever, schema 0.3.0) keeps an evaluation as one aggregate
 * record (eval.schema.json) and its samples as JSON lines (instance_level_eval.schema.json), in
 * data/BENCHMARK/DEVELOPER/MODEL/UUID.json and UUID_samples.jsonl. A run becomes one of each:
 * a result per (length, depth) cell (accuracy, its question-clustered 95% interval and the
 * valid trials) and per length the dip (edge - middle, its bootstrap interval over questions),
 * depth and length in each result's metadata, the run's settings as generation config, and
 * every finished trial as an instance. The UUID is derived from the run (name, creation time,
 * golden set), so exporting a run again replaces the same files. tests/cli/513 validates the
 * output against the published schemas (tests/data/eee/).
 */
#define EEE_SCHEMA_VERSION "0.3.0"
#define EEE_BENCHMARK      "dipmap"

struct eee_run {
    const struct run_info *run;
    struct golden_set gs; /* the stored golden set (question texts, answers); nr 0 if absent */
    struct run_stats stats;
    struct strbuf uuid, developer, model, dir, eval_id, samples_rel;
    struct json *gen; /* generation_config, copied into every result */
    FILE *samples;
    long rows;
};

/* A version-4-shaped UUID from the run's identity (deterministic: the same run, the same id). */
static void eee_uuid(const struct run_info *r, struct strbuf *out)
{
    struct strbuf key = STRBUF_INIT;
    char hex[SHA256_HEX_LEN + 1];
    strbuf_addf(&key, "%s\n%.6f\n%s", r->name, r->created_at,
                r->golden_sha256 ? r->golden_sha256 : "");
    sha256_hex(key.buf, key.len, hex);
    hex[12] = '4';
    hex[16] = "89ab"[(hex[16] >= 'a' ? hex[16] - 'a' + 10 : hex[16] - '0') & 3];
    strbuf_reset(out);
    strbuf_addf(out, "%.8s-%.4s-%.4s-%.4s-%.12s", hex, hex + 8, hex + 12, hex + 16, hex + 20);
    strbuf_release(&key);
}

/* A path component from a model name: '/' and anything outside [A-Za-z0-9._-] as '_'. */
static void eee_component(struct strbuf *out, const char *s, size_t n)
{
    size_t i;
    strbuf_reset(out);
    for (i = 0; i < n; i++) {
        char c = s[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '-';
        strbuf_addch(out, ok ? c : '_');
    }
    if (!out->len || !strcmp(out->buf, ".") || !strcmp(out->buf, ".."))
        strbuf_addstr(out, "unknown");
}

static int mkdir_each(const char *path)
{
    struct strbuf sb = STRBUF_INIT;
    const char *p = path;
    int rc = 0;
    while (!rc && (p = strchr(p + 1, '/')) != NULL) {
        strbuf_reset(&sb);
        strbuf_add(&sb, path, (size_t)(p - path));
        if (mkdir(sb.buf, 0777) && errno != EEXIST)
            rc = error("export: cannot create %s: %s", sb.buf, strerror(errno));
    }
    if (!rc && mkdir(path, 0777) && errno != EEXIST)
        rc = error("export: cannot create %s: %s", path, strerror(errno));
    strbuf_release(&sb);
    return rc;
}

/* Every setting of the run as generation config: the sampling ones in generation_args, all of
   them (as JSON text) in additional_details, which the schema keeps string-valued. */
static struct json *eee_generation_config(const struct run_info *r)
{
    struct json *g = json_new_object(), *args = json_add_object(g, "generation_args");
    struct json *det = json_add_object(g, "additional_details");
    struct json *s = json_parse_str(r->settings_json);
    const struct json *m;
    if (json_get(s, "temperature"))
        json_add_num(args, "temperature", json_num(json_get(s, "temperature"), 0));
    if (json_get(s, "top-p"))
        json_add_num(args, "top_p", json_num(json_get(s, "top-p"), 1));
    if (json_num(json_get(s, "max-tokens"), 0) >= 1)
        json_add_num(args, "max_tokens", json_num(json_get(s, "max-tokens"), 256));
    for (m = json_first(s); m; m = json_next(m)) {
        char *text = json_kind(m) == JSON_STRING ? NULL : json_print_str(m, 0);
        json_add_str(det, json_key(m), text ? text : json_str(m));
        free(text);
    }
    json_add_str(det, "template_sha256", r->template_sha256);
    json_add_str(det, "haystack_sha256", r->haystack_sha256);
    json_add_str(det, "tokenizer", r->tokenizer_name);
    json_free(s);
    return g;
}

static void eee_source_data(struct json *res, const struct run_info *r)
{
    struct json *sd = json_add_object(res, "source_data"), *det;
    json_add_str(sd, "dataset_name", "dipmap golden set");
    json_add_str(sd, "source_type", "other");
    det = json_add_object(sd, "additional_details");
    json_add_str(det, "golden_sha256", r->golden_sha256 ? r->golden_sha256 : "");
    json_add_str(det, "haystack_sha256", r->haystack_sha256 ? r->haystack_sha256 : "");
}

static void eee_cell_id(struct strbuf *sb, long length, int depth_bp)
{
    strbuf_reset(sb);
    strbuf_addf(sb, "accuracy@length=%ld,depth=%g", length, (double)depth_bp / DEPTH_BP_MAX);
}

/* One result: the metric, its score, interval and sample count, and its metadata. */
static struct json *eee_result(struct eee_run *e, struct json *results, const char *id,
                               const char *metric, double score, double lo, double hi, long n)
{
    struct json *res = json_new_object(), *mc, *sd, *unc, *ci;
    int dip = !strcmp(metric, "dip");
    json_add_str(res, "evaluation_result_id", id);
    json_add_str(res, "evaluation_name", dip ? "dipmap dip" : "dipmap depth accuracy");
    eee_source_data(res, e->run);
    mc = json_add_object(res, "metric_config");
    json_add_str(mc, "evaluation_description",
                 dip ? "edge accuracy minus the mean accuracy at depths 25-75% of the prompt"
                     : "accuracy with the evidence at this depth of a prompt of this length");
    json_add_str(mc, "metric_id", dip ? "dipmap.dip" : "accuracy");
    json_add_str(mc, "metric_name", dip ? "Dip (edge - middle)" : "Accuracy");
    json_add_str(mc, "metric_kind", dip ? "accuracy_difference" : "accuracy");
    json_add_str(mc, "metric_unit", "proportion");
    json_add_bool(mc, "lower_is_better", dip);
    json_add_str(mc, "score_type", "continuous");
    json_add_num(mc, "min_score", dip ? -1 : 0);
    json_add_num(mc, "max_score", 1);
    json_add_object(mc, "additional_details");
    sd = json_add_object(res, "score_details");
    json_add_num(sd, "score", score);
    json_add_object(sd, "details");
    unc = json_add_object(sd, "uncertainty");
    ci = json_add_object(unc, "confidence_interval");
    json_add_num(ci, "lower", lo);
    json_add_num(ci, "upper", hi);
    json_add_num(ci, "confidence_level", 0.95);
    json_add_str(ci, "method",
                 dip ? "percentile bootstrap over questions"
                     : "Wilson, question-clustered (design effect)");
    json_add_num(unc, "num_samples", (double)n);
    if (dip)
        json_add_num(unc, "num_bootstrap_samples", (double)e->stats.bootstrap_iters);
    json_add(res, "generation_config", json_copy(e->gen));
    json_add(results, NULL, res);
    return res;
}

/* sb emptied and set to the formatted value; its text (the EEE schema's values are strings). */
static const char *eee_value(struct strbuf *sb, const char *fmt, ...) DM_PRINTF(2, 3);
static const char *eee_value(struct strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    strbuf_reset(sb);
    va_start(ap, fmt);
    strbuf_vaddf(sb, fmt, ap);
    va_end(ap);
    return sb->buf;
}

/* The metadata strings of a result: in metric_config and score_details (both string maps). */
static void eee_meta(struct json *res, const char *key, const char *value)
{
    json_add_str((struct json *)json_get(json_get(res, "metric_config"), "additional_details"), key,
                 value);
    json_add_str((struct json *)json_get(json_get(res, "score_details"), "details"), key, value);
}

static void eee_results(struct eee_run *e, struct json *results)
{
    struct strbuf id = STRBUF_INIT, v = STRBUF_INIT;
    size_t i;
    for (i = 0; i < e->stats.n_cells; i++) {
        const struct cell_stats *c = &e->stats.cells[i];
        struct json *res;
        if (!c->n_valid)
            continue;
        eee_cell_id(&id, c->length, c->depth_bp);
        res =
            eee_result(e, results, id.buf, "accuracy", c->accuracy, c->ci_lo, c->ci_hi, c->n_valid);
        eee_meta(res, "length_tokens", eee_value(&v, "%ld", c->length));
        eee_meta(res, "depth", eee_value(&v, "%g", (double)c->depth_bp / DEPTH_BP_MAX));
        eee_meta(res, "questions", eee_value(&v, "%zu", c->n_questions));
    }
    for (i = 0; i < e->stats.n_lengths; i++) {
        const struct length_stats *l = &e->stats.lengths[i];
        struct json *res;
        if (!l->has_middle)
            continue;
        strbuf_reset(&id);
        strbuf_addf(&id, "dip@length=%ld", l->length);
        res = eee_result(e, results, id.buf, "dip", l->dip.est, l->dip.lo, l->dip.hi,
                         (long)l->n_questions);
        eee_meta(res, "length_tokens", eee_value(&v, "%ld", l->length));
        eee_meta(res, "middle_depths", "0.25-0.75");
    }
    strbuf_release(&id);
    strbuf_release(&v);
}

static void eee_model_info(struct json *root, const struct run_info *r, const struct eee_run *e)
{
    struct json *mi = json_add_object(root, "model_info"), *det;
    json_add_str(mi, "name", r->model_served ? r->model_served : r->model_requested);
    json_add_str(mi, "id", r->model_requested);
    if (strcmp(e->developer.buf, "unknown"))
        json_add_str(mi, "developer", e->developer.buf);
    det = json_add_object(mi, "additional_details");
    json_add_str(det, "deployment_type", "unknown");
    json_add_str(det, "model_availability", "unknown");
    if (r->system_fingerprint)
        json_add_str(det, "system_fingerprint", r->system_fingerprint);
}

/* The aggregate record, after the samples file (its checksum and row count). */
static struct json *eee_aggregate(struct eee_run *e, const char *samples_sha256)
{
    const struct run_info *r = e->run;
    struct json *root = json_new_object(), *sm, *lib, *det, *der;
    struct strbuf sb = STRBUF_INIT;
    json_add_str(root, "schema_version", EEE_SCHEMA_VERSION);
    json_add_str(root, "evaluation_id", e->eval_id.buf);
    strbuf_addf(&sb, "%.0f", r->started_at > 0 ? r->started_at : r->created_at);
    json_add_str(root, "evaluation_timestamp", sb.buf);
    json_add_str(root, "retrieved_timestamp",
                 eee_value(&sb, "%.0f", r->finished_at > 0 ? r->finished_at : r->created_at));
    sm = json_add_object(root, "source_metadata");
    json_add_str(sm, "source_name", "dipmap");
    json_add_str(sm, "source_type", "evaluation_run");
    json_add_str(sm, "source_organization_name", "unknown");
    json_add_str(sm, "evaluator_relationship", "other");
    det = json_add_object(sm, "additional_details");
    json_add_str(det, "run", r->name);
    json_add_str(det, "status", run_status_name(r->status));
    lib = json_add_object(root, "eval_library");
    json_add_str(lib, "name", "dipmap");
    json_add_str(lib, "version", r->dipmap_version ? r->dipmap_version : "unknown");
    det = json_add_object(lib, "additional_details");
    json_add_str(det, "commit", r->dipmap_commit ? r->dipmap_commit : "unknown");
    eee_model_info(root, r, e);
    eee_results(e, json_add_array(root, "evaluation_results"));
    der = json_add_object(root, "detailed_evaluation_results");
    json_add_str(der, "format", "jsonl");
    json_add_str(der, "file_path", e->samples_rel.buf);
    json_add_str(der, "hash_algorithm", "sha256");
    json_add_str(der, "checksum", samples_sha256);
    json_add_num(der, "total_rows", (double)e->rows);
    strbuf_release(&sb);
    return root;
}

/* One trial as an instance-level record. */
static int eee_trial(const struct trial_result *t, void *data)
{
    struct eee_run *e = data;
    const struct question *q = e->gs.nr ? golden_set_find(&e->gs, t->question_id) : NULL;
    struct json *o, *in, *ref, *out, *attr, *ev, *meta;
    struct strbuf sb = STRBUF_INIT;
    char *line;
    size_t i;
    int scored = outcome_is_scored(t->outcome), rc;
    if (t->outcome == OUTCOME_PENDING)
        return 0;
    o = json_new_object();
    json_add_str(o, "schema_version", EEE_SCHEMA_VERSION);
    json_add_str(o, "evaluation_id", e->eval_id.buf);
    json_add_str(o, "model_id", e->run->model_requested);
    json_add_str(o, "evaluation_name", "dipmap depth accuracy");
    eee_cell_id(&sb, t->length, t->depth_bp);
    json_add_str(o, "evaluation_result_id", sb.buf);
    strbuf_reset(&sb);
    strbuf_addf(&sb, "%s@length=%ld,depth=%g,repeat=%d%s%s", t->question_id, t->length,
                (double)t->depth_bp / DEPTH_BP_MAX, t->repeat, t->axes && *t->axes ? "," : "",
                t->axes ? t->axes : "");
    json_add_str(o, "sample_id", sb.buf);
    json_add_str(o, "sample_hash", t->facts.sha256[0] ? t->facts.sha256 : NULL);
    json_add_str(o, "interaction_type", "single_turn");
    in = json_add_object(o, "input");
    json_add_str(in, "raw", q ? q->question : t->question_id);
    ref = json_add_array(in, "reference");
    for (i = 0; q && i < q->answers.nr; i++)
        json_add_str(ref, NULL, q->answers.v[i]);
    out = json_add_object(o, "output");
    json_add_str(json_add_array(out, "raw"), NULL, t->answer ? t->answer : "");
    attr = json_add_object(json_add_array(o, "answer_attribution"), NULL);
    json_add_num(attr, "turn_idx", 0);
    json_add_str(attr, "source", "output.raw");
    json_add_str(attr, "extracted_value", t->answer ? t->answer : "");
    json_add_str(attr, "extraction_method", "dipmap scorer");
    json_add_bool(attr, "is_terminal", 1);
    ev = json_add_object(o, "evaluation");
    json_add_num(ev, "score", scored ? t->score : 0);
    json_add_bool(ev, "is_correct", t->outcome == OUTCOME_CORRECT);
    if (t->usage_prompt_tokens >= 0 && t->completion_tokens >= 0) {
        struct json *u = json_add_object(o, "token_usage");
        json_add_num(u, "input_tokens", (double)t->usage_prompt_tokens);
        json_add_num(u, "output_tokens", (double)t->completion_tokens);
        json_add_num(u, "total_tokens", (double)(t->usage_prompt_tokens + t->completion_tokens));
    }
    if (isfinite(t->latency_ms) && t->latency_ms >= 0)
        json_add_num(json_add_object(o, "performance"), "latency_ms", t->latency_ms);
    json_add_str(o, "error", t->error && *t->error ? t->error : NULL);
    meta = json_add_object(o, "metadata");
    json_add_str(meta, "question_id", t->question_id);
    json_add_str(meta, "length_tokens", eee_value(&sb, "%ld", t->length));
    json_add_str(meta, "depth", eee_value(&sb, "%g", (double)t->depth_bp / DEPTH_BP_MAX));
    json_add_str(meta, "repeat", eee_value(&sb, "%d", t->repeat));
    json_add_str(meta, "outcome", outcome_name(t->outcome));
    if (t->axes && *t->axes)
        json_add_str(meta, "axes", t->axes);
    line = json_print_str(o, 0);
    rc = fprintf(e->samples, "%s\n", line) < 0 ? 2 : 0;
    e->rows++;
    free(line);
    json_free(o);
    strbuf_release(&sb);
    return rc;
}

/* Names, folders, statistics and the stored golden set of one run. */
static int eee_setup(struct eee_run *e, struct store *st, const struct run_info *r,
                     const char *out_dir)
{
    struct trial_point_set pts = TRIAL_POINT_SET_INIT;
    struct stats_options o;
    struct strbuf err = STRBUF_INIT;
    const char *slash = strchr(r->model_requested, '/');
    char *text = NULL;
    size_t len = 0;
    int rc;

    e->run = r;
    eee_uuid(r, &e->uuid);
    eee_component(&e->developer, r->model_requested,
                  slash ? (size_t)(slash - r->model_requested) : 0);
    eee_component(&e->model, slash ? slash + 1 : r->model_requested,
                  strlen(slash ? slash + 1 : r->model_requested));
    strbuf_addf(&e->samples_rel, "data/%s/%s/%s/%s_samples.jsonl", EEE_BENCHMARK, e->developer.buf,
                e->model.buf, e->uuid.buf);
    strbuf_addf(&e->dir, "%s/data/%s/%s/%s", out_dir, EEE_BENCHMARK, e->developer.buf,
                e->model.buf);
    strbuf_addf(&e->eval_id, "%s/%s/%.0f", EEE_BENCHMARK, r->model_requested,
                r->finished_at > 0 ? r->finished_at : r->created_at);
    e->gen = eee_generation_config(r);
    if (mkdir_each(e->dir.buf))
        return -1;
    if (r->golden_sha256 && store_golden_get(st, r->golden_sha256, &text, &len) == 1) {
        rc = golden_set_load_mem(&e->gs, "the stored golden set", text, len);
        free(text);
        if (rc)
            return -1;
    }
    if (store_points_load(st, r->name, &pts))
        return -1;
    stats_options_init(&o);
    rc = stats_compute(pts.v, pts.nr, &o, &e->stats, &err);
    if (rc < 0)
        error("export: %s: %s", r->name, err.buf);
    trial_point_set_release(&pts);
    strbuf_release(&err);
    return rc < 0 ? -1 : 0;
}

static void eee_release(struct eee_run *e)
{
    golden_set_release(&e->gs);
    run_stats_release(&e->stats);
    strbuf_release(&e->uuid);
    strbuf_release(&e->developer);
    strbuf_release(&e->model);
    strbuf_release(&e->dir);
    strbuf_release(&e->eval_id);
    strbuf_release(&e->samples_rel);
    json_free(e->gen);
}

/* Write FILE.tmp.PID with fn, then rename it to FILE: a partial file never replaces a whole. */
static int eee_write(const char *path, int (*fn)(FILE *, void *), void *data)
{
    struct strbuf tmp = STRBUF_INIT;
    FILE *fp;
    int rc;
    strbuf_addf(&tmp, "%s.tmp.%ld", path, (long)getpid());
    fp = fopen(tmp.buf, "w");
    if (!fp) {
        rc = error("export: cannot write %s: %s", tmp.buf, strerror(errno));
        strbuf_release(&tmp);
        return rc;
    }
    rc = fn(fp, data);
    if ((fclose(fp) || rc) && !rc)
        rc = error("export: cannot write %s: %s", tmp.buf, strerror(errno));
    if (!rc && rename(tmp.buf, path))
        rc = error("export: cannot rename %s to %s: %s", tmp.buf, path, strerror(errno));
    if (rc)
        unlink(tmp.buf);
    strbuf_release(&tmp);
    return rc;
}

struct eee_samples_arg {
    struct store *st;
    struct eee_run *e;
};

static int eee_samples_fn(FILE *fp, void *data)
{
    struct eee_samples_arg *a = data;
    a->e->samples = fp;
    return store_trials_each(a->st, a->e->run->name, eee_trial, a->e) ? -1 : 0;
}

static int eee_aggregate_fn(FILE *fp, void *data)
{
    return fputs(data, fp) < 0 || fputc('\n', fp) < 0 ? -1 : 0;
}

/* One run's aggregate record and samples under out_dir; 0 or an exit code. */
static int export_eee_run(struct store *st, const struct run_info *r, const char *out_dir)
{
    struct eee_run e;
    struct eee_samples_arg a = {st, &e};
    struct strbuf path = STRBUF_INIT;
    char hex[SHA256_HEX_LEN + 1];
    char *text = NULL;
    struct json *agg;
    int rc = DM_EXIT_INFRA;

    memset(&e, 0, sizeof(e));
    strbuf_init(&e.uuid, 40);
    strbuf_init(&e.developer, 32);
    strbuf_init(&e.model, 64);
    strbuf_init(&e.dir, 128);
    strbuf_init(&e.eval_id, 128);
    strbuf_init(&e.samples_rel, 128);
    if (eee_setup(&e, st, r, out_dir))
        goto done;
    strbuf_addf(&path, "%s/%s_samples.jsonl", e.dir.buf, e.uuid.buf);
    if (eee_write(path.buf, eee_samples_fn, &a) || sha256_file_hex(path.buf, hex))
        goto done;
    agg = eee_aggregate(&e, hex);
    text = json_print_str(agg, 1);
    json_free(agg);
    strbuf_reset(&path);
    strbuf_addf(&path, "%s/%s.json", e.dir.buf, e.uuid.buf);
    if (eee_write(path.buf, eee_aggregate_fn, text))
        goto done;
    fprintf(stderr, "wrote %s and %ld samples beside it (Every Eval Ever %s)\n", path.buf, e.rows,
            EEE_SCHEMA_VERSION);
    rc = DM_EXIT_OK;
done:
    free(text);
    eee_release(&e);
    strbuf_release(&path);
    return rc;
}

static int parse_format(const char *s, enum export_format *out)
{
    if (!strcmp(s, "csv"))
        *out = EXPORT_CSV;
    else if (!strcmp(s, "jsonl") || !strcmp(s, "ndjson"))
        *out = EXPORT_JSONL;
    else if (!strcmp(s, "eee"))
        *out = EXPORT_EEE;
    else
        return error("export: --format '%s': expected csv, jsonl or eee", s);
    return 0;
}

/* Load every named run first, so a typo fails before anything is written. */
static int load_runs(struct store *st, const struct strvec *names, struct run_info *runs)
{
    size_t i;
    for (i = 0; i < names->nr; i++) {
        int rc = store_run_get(st, names->v[i], &runs[i]);
        if (rc == 1)
            return error("export: no run named '%s' in %s (dipmap runs --db %s lists them)",
                         names->v[i], store_path(st), store_path(st));
        if (rc)
            return -1;
    }
    return 0;
}

/* Write every run's trials to x->fp; returns 0, or an exit code. */
static int export_runs(struct store *st, struct export_ctx *x, const struct run_info *runs,
                       size_t n, const char *dest)
{
    size_t i;
    if (x->format == EXPORT_CSV) {
        strbuf_reset(&x->line);
        for (i = 0; i < NCOLUMNS; i++) {
            if (i)
                strbuf_addch(&x->line, ',');
            strbuf_addstr(&x->line, columns[i].name);
        }
        strbuf_addstr(&x->line, "\r\n");
        if (write_line(x))
            goto write_failed;
    }
    for (i = 0; i < n; i++) {
        int rc;
        x->run = &runs[i];
        rc = store_trials_each(st, runs[i].name, export_trial, x);
        if (rc == 2)
            goto write_failed;
        if (rc)
            return DM_EXIT_INFRA;
    }
    if (fflush(x->fp) || ferror(x->fp))
        goto write_failed;
    return DM_EXIT_OK;
write_failed:
    error("export: cannot write %s: %s", dest, strerror(errno ? errno : EIO));
    return DM_EXIT_INFRA;
}

int cmd_export(int argc, const char **argv)
{
    const char *db = NULL, *format_arg = "csv", *out = NULL;
    struct option opts[] = {
        OPT_DB(&db, "the store"),
        OPT_STRING(
            0, "format", &format_arg, "csv|jsonl|eee",
            "csv (RFC 4180, header row), jsonl (one JSON object per line), or eee (Every Eval Ever "
            "0.3.0: per run an aggregate record and its instance-level samples under --out DIR); "
            "default csv"),
        OPT_STRING(
            'o', "out", &out, "FILE|DIR",
            "write to FILE (replaced only when complete) instead of standard output; with eee, the "
            "folder the data/ tree goes into"),
        OPT_END(),
    };
    struct strvec rest = STRVEC_INIT;
    struct store *st = NULL;
    struct run_info *runs = NULL;
    struct export_ctx x;
    struct strbuf tmp = STRBUF_INIT;
    size_t i;
    int rc = DM_EXIT_USAGE, prc;

    memset(&x, 0, sizeof(x));
    strbuf_init(&x.line, 1024);
    prc = parse_options(argc, argv, opts, export_usage, &rest);
    if (prc) {
        rc = parse_options_exit(prc);
        goto cleanup;
    }
    if (!rest.nr) {
        error("export: which runs? give one or more run names (dipmap runs lists them)");
        usage_with_options(stderr, export_usage, opts);
        goto cleanup;
    }
    if (parse_format(format_arg, &x.format))
        goto cleanup;
    if (x.format == EXPORT_EEE && !out) {
        error("export: --format eee writes two files per run: give the folder with --out DIR");
        goto cleanup;
    }
    st = store_open(store_default_path(db), STORE_READONLY);
    if (!st)
        goto cleanup;
    runs = xcalloc(rest.nr, sizeof(*runs));
    for (i = 0; i < rest.nr; i++)
        run_info_init(&runs[i]);
    if (load_runs(st, &rest, runs))
        goto cleanup;

    if (x.format == EXPORT_EEE) {
        for (i = 0, rc = DM_EXIT_OK; i < rest.nr && rc == DM_EXIT_OK; i++)
            rc = export_eee_run(st, &runs[i], out);
        goto cleanup;
    }
    if (out) {
        /* a partial file never takes the place of a complete one */
        strbuf_addf(&tmp, "%s.tmp.%ld", out, (long)getpid());
        x.fp = fopen(tmp.buf, "w");
        if (!x.fp) {
            error("export: cannot write %s: %s", tmp.buf, strerror(errno));
            goto cleanup;
        }
    } else {
        x.fp = stdout;
    }
    rc = export_runs(st, &x, runs, rest.nr, out ? tmp.buf : "standard output");
    if (out) {
        if (fclose(x.fp) && rc == DM_EXIT_OK) {
            error("export: cannot write %s: %s", tmp.buf, strerror(errno));
            rc = DM_EXIT_INFRA;
        }
        x.fp = NULL;
        if (rc == DM_EXIT_OK && rename(tmp.buf, out)) {
            error("export: cannot rename %s to %s: %s", tmp.buf, out, strerror(errno));
            rc = DM_EXIT_INFRA;
        }
        if (rc != DM_EXIT_OK)
            unlink(tmp.buf);
        else
            fprintf(stderr, "wrote %ld trials of %zu run%s to %s\n", x.rows, rest.nr,
                    rest.nr == 1 ? "" : "s", out);
    }

cleanup:
    if (runs)
        for (i = 0; i < rest.nr; i++)
            run_info_release(&runs[i]);
    free(runs);
    if (st && store_close(st) < 0 && rc == DM_EXIT_OK)
        rc = DM_EXIT_INFRA;
    strbuf_release(&x.line);
    strbuf_release(&tmp);
    strvec_clear(&rest);
    return rc;
}

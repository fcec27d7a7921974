/*
 * `dipmap export RUN... --format csv|jsonl [--out FILE]`: every trial of the
 * runs as one row, with the run's identity and the trial's axes and stored
 * fields, for pandas, DuckDB or a spreadsheet. Owns the column table (README
 * "Export schema"); the store streams the trials.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/builtin.h"
#include "base/escape.h"
#include "base/opt.h"
#include "store/store.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/usage.h"
#include "base/xalloc.h"

#include "base/banned.h"

static const char *const export_usage[] = {
    "dipmap export RUN... [--db FILE] [--format csv|jsonl] [--out FILE]",
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
    v_str(v, r->t->prompt_sha256);
}
static void get_realized_length(const struct row *r, struct value *v)
{
    v_int(v, r->t->realized_length, r->t->realized_length <= 0);
}
static void get_usage_prompt_tokens(const struct row *r, struct value *v)
{
    v_int(v, r->t->usage_prompt_tokens, r->t->usage_prompt_tokens < 0);
}
static void get_realized_depth(const struct row *r, struct value *v)
{
    v_real(v, r->t->realized_length > 0 ? r->t->realized_depth : NAN);
}
static void get_gold_offset(const struct row *r, struct value *v)
{
    v_int(v, r->t->gold_offset, r->t->realized_length <= 0);
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
    v_int(v, r->t->gold_bm25_rank, r->t->gold_bm25_rank <= 0);
}
static void get_bm25_docs(const struct row *r, struct value *v)
{
    v_int(v, r->t->bm25_docs, r->t->gold_bm25_rank <= 0);
}

/*
 * The export schema, in column order (README "Export schema" documents each).
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

enum export_format { EXPORT_CSV, EXPORT_JSONL };

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

static int parse_format(const char *s, enum export_format *out)
{
    if (!strcmp(s, "csv"))
        *out = EXPORT_CSV;
    else if (!strcmp(s, "jsonl") || !strcmp(s, "ndjson"))
        *out = EXPORT_JSONL;
    else
        return error("export: --format '%s': expected csv or jsonl", s);
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
        {OPT_STRING, "db", 0, &db, "FILE",
         "the store (default $DIPMAP_DB or " DIPMAP_DEFAULT_DB ")", 0},
        {OPT_STRING, "format", 0, &format_arg, "csv|jsonl",
         "csv (RFC 4180, header row) or jsonl (one JSON object per line); default csv", 0},
        {OPT_STRING, "out", 'o', &out, "FILE",
         "write to FILE (replaced only when complete) instead of standard output", 0},
        OPT_END_MARK,
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
        rc = prc > 0 ? DM_EXIT_OK : DM_EXIT_USAGE;
        goto cleanup;
    }
    if (!rest.nr) {
        error("export: which runs? give one or more run names (dipmap runs lists them)");
        usage_with_options(stderr, export_usage, opts);
        goto cleanup;
    }
    if (parse_format(format_arg, &x.format))
        goto cleanup;
    st = store_open(store_default_path(db), STORE_READONLY);
    if (!st)
        goto cleanup;
    runs = xcalloc(rest.nr, sizeof(*runs));
    for (i = 0; i < rest.nr; i++)
        run_info_init(&runs[i]);
    if (load_runs(st, &rest, runs))
        goto cleanup;

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

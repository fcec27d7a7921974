/*
 * Unit tests for the run store, on real SQLite files in a temporary directory:
 * schema and migration, runs, trial round-trips and upserts, resume sets,
 * locks and concurrency between processes (fork), crash safety (kill -9),
 * merge, secrets refusal and error paths.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/proc.h"
#include "run/run_identity.h"
#include "store/store.h"
#include "store/store_batch.h"
#include "store/store-int.h"
#include "base/strbuf.h"
#include "base/usage.h"
#include "base/xalloc.h"

#include "test.h"

static char tmpdir[256];
static struct strbuf errs = STRBUF_INIT;

static void capture(const char *prefix, const char *msg)
{
    strbuf_addf(&errs, "%s: %s\n", prefix, msg);
}

static void capture_start(void)
{
    strbuf_reset(&errs);
    usage_set_hook(capture);
}

static void capture_stop(void)
{
    usage_set_hook(NULL);
}

/* A fresh path in the temporary directory (static buffer rotation). */
static const char *tpath(const char *name)
{
    static char bufs[8][512];
    static int i;
    char *b = bufs[i++ % 8];
    snprintf(b, 512, "%s/%s", tmpdir, name);
    return b;
}

static void fill_run(struct run_info *r, const char *name, const char *model)
{
    run_info_init(r);
    r->name = xstrdup(name);
    r->model_requested = xstrdup(model);
    r->endpoints = xstrdup("http://127.0.0.1:8000/v1");
    r->settings_json =
        xstrdup("{\"temperature\":0,\"max-tokens\":64,\"api-key-env\":\"OPENAI_API_KEY\","
                "\"depths\":\"0:100:10\"}");
    r->golden_sha256 = xstrdup("aa");
    r->haystack_sha256 = xstrdup("bb");
    r->template_sha256 = xstrdup("cc");
    r->tokenizer_name = xstrdup("cl100k_base");
    r->tokenizer_sha256 = xstrdup("dd");
    r->dipmap_version = xstrdup("0.1.0");
    r->dipmap_commit = xstrdup("abc");
    r->status = RUN_RUNNING;
    r->trials_planned = 10;
}

static struct store *fresh_store(const char *name)
{
    const char *p = tpath(name);
    struct strbuf sb = STRBUF_INIT;
    unlink(p);
    strbuf_addf(&sb, "%s-wal", p);
    unlink(sb.buf);
    strbuf_reset(&sb);
    strbuf_addf(&sb, "%s-shm", p);
    unlink(sb.buf);
    strbuf_release(&sb);
    return store_open(p, STORE_CREATE);
}

static int make_run(struct store *st, const char *name, const char *model)
{
    struct run_info r;
    int rc;
    fill_run(&r, name, model);
    rc = store_run_create(st, &r);
    run_info_release(&r);
    return rc;
}

static void make_trial(struct trial_result *t, const char *qid, long length, int depth, int rep,
                       enum trial_outcome o)
{
    trial_result_init(t);
    t->question_id = xstrdup(qid);
    t->length = length;
    t->depth_bp = depth;
    t->repeat = rep;
    t->outcome = o;
    t->attempts = 1;
    t->http_status = 200;
    t->score = o == OUTCOME_CORRECT ? 1 : 0;
    t->answer = xstrdup("Röntgen");
    t->finished_at = 1700000000.5;
}

static long count_trials(struct store *st, const char *run)
{
    struct trial_result *v;
    size_t n;
    if (store_trials_load(st, run, &v, &n))
        return -1;
    store_trials_free(v, n);
    return (long)n;
}

/* Run the sqlite3 command-line tool on a file (independent of our API). */
static int sqlite_cli(const char *path, const char *sql, struct strbuf *out)
{
    const char *argv[] = {"sqlite3", path, sql, NULL};
    int status;
    if (proc_run(argv, NULL, 0, out, NULL, &status))
        return -1;
    return status;
}

/* ---- tests --------------------------------------------------------------- */

static void test_create_schema(void)
{
    struct store *st = fresh_store("schema.db");
    struct strbuf out = STRBUF_INIT;
    CHECK(st != NULL);
    if (!st)
        return;
    CHECK_INT(store_schema_version(st), STORE_SCHEMA_VERSION);
    CHECK_STR(store_path(st), tpath("schema.db"));
    CHECK_INT(store_integrity_check(st), 0);
    CHECK_INT(store_close(st), 0);
    if (proc_available("sqlite3")) {
        CHECK_INT(sqlite_cli(tpath("schema.db"), "PRAGMA journal_mode", &out), 0);
        CHECK_STR(out.buf, "wal\n");
        strbuf_reset(&out);
        CHECK_INT(sqlite_cli(tpath("schema.db"), "PRAGMA user_version", &out), 0);
        CHECK_INT(strtol(out.buf, NULL, 10), STORE_SCHEMA_VERSION);
    }
    /* reopening read-only works and changes nothing */
    st = store_open(tpath("schema.db"), STORE_READONLY);
    CHECK(st != NULL);
    CHECK_INT(store_close(st), 0);
    strbuf_release(&out);
}

static void test_migration_v1_to_v2(void)
{
    const char *p = tpath("v1.db");
    struct strbuf out = STRBUF_INIT;
    struct store *st;
    struct run_info r;
    unlink(p);
    CHECK_INT(store_create_at_version(p, 1), 0);
    if (!proc_available("sqlite3")) {
        fprintf(stderr, "  (sqlite3 CLI missing: migration data check skipped)\n");
    } else {
        CHECK_INT(sqlite_cli(p, "PRAGMA user_version", &out), 0);
        CHECK_STR(out.buf, "1\n");
        /* a v1 run row, written by an independent tool */
        CHECK_INT(sqlite_cli(p,
                             "INSERT INTO runs (name, model_requested, created_at, status, "
                             "trials_planned) VALUES ('old', 'm1', 1000, 'complete', 3);"
                             "INSERT INTO trials (run_id, question_id, length, depth_bp, repeat, "
                             "outcome) VALUES (1, 'q1', 8192, 5000, 0, 'correct')",
                             NULL),
                  0);
    }
    /* read-only cannot migrate: clear message */
    capture_start();
    st = store_open(p, STORE_READONLY);
    capture_stop();
    CHECK(st == NULL);
    CHECK(strstr(errs.buf, "schema version 1 is older than 2") != NULL);
    store_close(st);

    st = store_open(p, STORE_READWRITE);
    CHECK(st != NULL);
    if (!st)
        return;
    CHECK_INT(store_schema_version(st), STORE_SCHEMA_VERSION);
    if (proc_available("sqlite3")) {
        CHECK_INT(store_run_get(st, "old", &r), 0);
        CHECK_STR(r.model_requested, "m1");
        CHECK(r.tags == NULL);
        CHECK_INT(r.trials_done, 1);
        CHECK_INT(r.status, RUN_COMPLETE);
        run_info_release(&r);
    }
    /* v2 features work on the migrated file */
    CHECK_INT(store_count_put(st, "tok", "h", 7), 0);
    {
        struct run_info n;
        fill_run(&n, "new", "m2");
        n.tags = xstrdup("nightly");
        CHECK_INT(store_run_create(st, &n), 0);
        run_info_release(&n);
    }
    CHECK_INT(store_close(st), 0);
    st = store_open(p, STORE_READONLY);
    CHECK(st != NULL);
    if (st) {
        long c = 0;
        CHECK_INT(store_count_get(st, "tok", "h", &c), 1);
        CHECK_INT(c, 7);
        CHECK_INT(store_run_get(st, "new", &r), 0);
        CHECK_STR(r.tags, "nightly");
        run_info_release(&r);
    }
    store_close(st);
    strbuf_release(&out);
}

/*
 * A version-2 store (before reasoning, cut, request hashes, golden sets) stays
 * readable read-only as it is, and a read-write open migrates it with its data.
 */
/* a version-3 store (no timings columns) reads read-only, timings unknown; read-write adds them */
static void test_migration_v3_to_v4(void)
{
    const char *p = tpath("v3.db");
    struct store *st;
    struct trial_result *v = NULL;
    size_t n = 0;
    unlink(p);
    CHECK_INT(store_create_at_version(p, 3), 0);
    if (!proc_available("sqlite3")) {
        fprintf(stderr, "  (sqlite3 CLI missing: v3 migration check skipped)\n");
        return;
    }
    CHECK_INT(sqlite_cli(p,
                         "INSERT INTO runs (name, model_requested, created_at, status, "
                         "trials_planned) VALUES ('old', 'm1', 1000, 'complete', 1);"
                         "INSERT INTO trials (run_id, question_id, length, depth_bp, repeat, "
                         "outcome, cut) VALUES (1, 'q1', 8192, 5000, 0, 'wrong', 1)",
                         NULL),
              0);
    st = store_open(p, STORE_READONLY);
    CHECK(st != NULL);
    if (st) {
        CHECK_INT(store_schema_version(st), 3);
        CHECK_INT(store_trials_load(st, "old", &v, &n), 0);
        CHECK_INT(n, 1);
        if (n == 1) {
            CHECK_INT(v[0].cut, 1);
            CHECK_INT(v[0].cache_n, -1);
            CHECK_INT(v[0].prompt_n, -1);
            CHECK(v[0].prompt_ms < 0);
        }
        store_trials_free(v, n);
        store_close(st);
    }
    st = store_open(p, STORE_READWRITE);
    CHECK(st != NULL);
    if (!st)
        return;
    CHECK_INT(store_schema_version(st), STORE_SCHEMA_VERSION);
    CHECK_INT(store_trials_load(st, "old", &v, &n), 0);
    CHECK_INT(n, 1);
    if (n == 1)
        CHECK_INT(v[0].cache_n, -1);
    store_trials_free(v, n);
    store_close(st);
}

/* a version-4 store (no cached_tokens, no sent_at) reads read-only as unknown; read-write adds them
 */
static void test_migration_v4_to_v5(void)
{
    const char *p = tpath("v4.db");
    struct store *st;
    struct trial_result *v = NULL, t;
    size_t n = 0;
    unlink(p);
    CHECK_INT(store_create_at_version(p, 4), 0);
    if (!proc_available("sqlite3")) {
        fprintf(stderr, "  (sqlite3 CLI missing: v4 migration check skipped)\n");
        return;
    }
    CHECK_INT(sqlite_cli(p,
                         "INSERT INTO runs (name, model_requested, created_at, status, "
                         "trials_planned) VALUES ('old', 'm1', 1000, 'complete', 2);"
                         "INSERT INTO trials (run_id, question_id, length, depth_bp, repeat, "
                         "outcome, cache_n, prompt_n) VALUES (1, 'q1', 8192, 5000, 0, 'wrong', "
                         "4000, 4192)",
                         NULL),
              0);
    st = store_open(p, STORE_READONLY);
    CHECK(st != NULL);
    if (st) {
        CHECK_INT(store_schema_version(st), 4);
        CHECK_INT(store_trials_load(st, "old", &v, &n), 0);
        CHECK_INT(n, 1);
        if (n == 1) {
            CHECK_INT(v[0].cache_n, 4000);
            CHECK_INT(v[0].cached_tokens, -1);
            CHECK_NEAR(v[0].sent_at, 0, 0);
        }
        store_trials_free(v, n);
        store_close(st);
    }
    st = store_open(p, STORE_READWRITE);
    CHECK(st != NULL);
    if (!st)
        return;
    CHECK_INT(store_schema_version(st), STORE_SCHEMA_VERSION);
    trial_result_init(&t);
    t.question_id = "q2";
    t.length = 8192;
    t.depth_bp = 0;
    t.outcome = OUTCOME_CORRECT;
    t.cached_tokens = 3072;
    t.sent_at = 1764495000.5;
    CHECK_INT(store_trial_put(st, "old", &t), 0);
    CHECK_INT(store_flush(st), 0);
    CHECK_INT(store_trials_load(st, "old", &v, &n), 0);
    CHECK_INT(n, 2);
    if (n == 2) {
        CHECK_INT(v[0].cache_n, 4000); /* the old row keeps its data */
        CHECK_INT(v[0].cached_tokens, -1);
        CHECK_INT(v[1].cached_tokens, 3072);
        CHECK_NEAR(v[1].sent_at, 1764495000.5, 0);
    }
    store_trials_free(v, n);
    store_close(st);
}

/*
 * A version-5 store (trials keyed without axes) reads read-only with axes "",
 * and a read-write open rebuilds the trials table with axes in its primary
 * key: every column of every trial kept, the request index and the cascade
 * from runs kept, and the same (question, length, depth, repeat) may then
 * hold one trial per axis value.
 */
/*
 * A store created at schema `version` holding one complete run 'old', written
 * by the sqlite3 CLI (an independent tool); -1 (check skipped, said why) when
 * there is no sqlite3 CLI.
 */
static int old_store_with_run(const char *p, int version, const char *what)
{
    unlink(p);
    CHECK_INT(store_create_at_version(p, version), 0);
    if (!proc_available("sqlite3")) {
        fprintf(stderr, "  (sqlite3 CLI missing: %s check skipped)\n", what);
        return -1;
    }
    CHECK_INT(sqlite_cli(p,
                         "INSERT INTO runs (name, model_requested, created_at, status, "
                         "trials_planned) VALUES ('old', 'm1', 1000, 'complete', 2);",
                         NULL),
              0);
    return 0;
}

/* Schema 7: a run's schedules, read as NULL from a v6 store, appended once each, in order. */
static void test_run_schedules(void)
{
    const char *p = tpath("v6.db");
    struct store *st;
    struct run_info r;
    if (old_store_with_run(p, 6, "schedules") < 0)
        return;
    st = store_open(p, STORE_READWRITE);
    CHECK(st != NULL);
    if (!st)
        return;
    CHECK_INT(store_schema_version(st), STORE_SCHEMA_VERSION);
    CHECK_INT(store_run_get(st, "old", &r), 0);
    CHECK(r.schedules == NULL);
    run_info_release(&r);
    CHECK_INT(store_run_add_schedule(st, "old", "plan"), 0);
    CHECK_INT(store_run_add_schedule(st, "old", "cache"), 0);
    CHECK_INT(store_run_add_schedule(st, "old", "plan"), 0);
    CHECK_INT(store_run_get(st, "old", &r), 0);
    CHECK_STR(r.schedules, "plan,cache");
    run_info_release(&r);
    CHECK(store_run_add_schedule(st, "missing", "plan") != 0);
    store_close(st);
}

/*
 * Schema 10 (the Batch API's batches and batch_trials): a schema 9 store read
 * only has no batches (no table to read, no error); opened read-write it
 * migrates, keeps its run and takes a batch with its trials. Every older schema
 * migrates step by step to the same tables.
 */
static void test_migration_v9_to_v10(void)
{
    const char *p = tpath("v9.db");
    struct store *st;
    struct store_batch *b = NULL;
    struct store_batch_trial t, *got = NULL;
    size_t nr = 99, ntr = 0;
    long id = 0;
    int v;

    if (old_store_with_run(p, 9, "schema 10") < 0)
        return;
    st = store_open(p, STORE_READONLY);
    CHECK(st != NULL);
    if (!st)
        return;
    CHECK_INT(store_schema_version(st), 9);
    CHECK_INT(store_batch_list(st, "old", &b, &nr), 0);
    CHECK(nr == 0 && b == NULL);
    store_close(st);

    st = store_open(p, STORE_READWRITE);
    CHECK(st != NULL);
    if (!st)
        return;
    CHECK_INT(store_schema_version(st), STORE_SCHEMA_VERSION);
    memset(&t, 0, sizeof(t));
    t.custom_id = (char *)"q1-8192-5000-0";
    t.question_id = (char *)"q1";
    t.length = 8192;
    t.depth_bp = 5000;
    t.axes = (char *)"";
    CHECK_INT(store_batch_add(st, "old", "dipmap-old-1", 100, &t, 1, &id), 0);
    CHECK_INT(store_batch_set(st, id, "uploaded", "file-1", NULL, NULL), 0);
    CHECK_INT(store_batch_list(st, "old", &b, &nr), 0);
    CHECK(nr == 1);
    if (nr == 1) {
        CHECK_STR(b[0].state, "uploaded");
        CHECK_STR(b[0].input_file_id, "file-1");
        CHECK(b[0].requests == 1);
    }
    store_batch_list_free(b, nr);
    CHECK_INT(store_batch_trials(st, id, &got, &ntr), 0);
    CHECK(ntr == 1);
    if (ntr == 1) {
        CHECK_STR(got[0].custom_id, "q1-8192-5000-0");
        CHECK(got[0].length == 8192 && got[0].depth_bp == 5000);
    }
    store_batch_trials_free(got, ntr);
    store_close(st);

    for (v = 1; v < STORE_SCHEMA_VERSION; v++) {
        char name[32];
        struct strbuf out = STRBUF_INIT;
        snprintf(name, sizeof(name), "step%d.db", v);
        unlink(tpath(name));
        CHECK_INT(store_create_at_version(tpath(name), v), 0);
        st = store_open(tpath(name), STORE_READWRITE);
        CHECK(st != NULL);
        if (st)
            CHECK_INT(store_schema_version(st), STORE_SCHEMA_VERSION);
        store_close(st);
        CHECK_INT(sqlite_cli(tpath(name),
                             "SELECT group_concat(name) FROM (SELECT name FROM sqlite_master "
                             "WHERE name IN ('batches', 'batch_trials', 'gate_rounds') "
                             "ORDER BY name)",
                             &out),
                  0);
        CHECK_STR(out.buf, "batch_trials,batches,gate_rounds\n");
        strbuf_release(&out);
    }
}

/*
 * 10 -> 11: the gold's BM25 rank per trial and per batch trial. A trial of a v10 store reads
 * rank 0 (unknown: NULL) read-only and after the migration; a rank written round-trips, and a
 * trial without one stores NULL.
 */
static void test_migration_v10_to_v11(void)
{
    const char *p = tpath("v10.db");
    struct store *st;
    struct trial_result *v = NULL, t;
    struct store_batch_trial bt, *got = NULL;
    struct strbuf out = STRBUF_INIT;
    size_t n = 0, ntr = 0;
    long id = 0;
    unlink(p);
    CHECK_INT(store_create_at_version(p, 10), 0);
    if (!proc_available("sqlite3")) {
        fprintf(stderr, "  (sqlite3 CLI missing: v10 migration check skipped)\n");
        return;
    }
    CHECK_INT(sqlite_cli(p,
                         "INSERT INTO runs (name, model_requested, created_at, status, "
                         "trials_planned) VALUES ('old', 'm1', 1000, 'complete', 2);"
                         "INSERT INTO trials (run_id, question_id, length, depth_bp, repeat, "
                         "outcome, answer) VALUES (1, 'q1', 8192, 0, 0, 'correct', 'Paris')",
                         NULL),
              0);
    st = store_open(p, STORE_READONLY);
    CHECK(st != NULL);
    if (st) {
        CHECK_INT(store_schema_version(st), 10);
        CHECK_INT(store_trials_load(st, "old", &v, &n), 0);
        CHECK_INT(n, 1);
        if (n == 1)
            CHECK_INT(v[0].facts.gold_bm25_rank, 0);
        store_trials_free(v, n);
        store_close(st);
    }
    st = store_open(p, STORE_READWRITE);
    CHECK(st != NULL);
    if (!st)
        return;
    CHECK_INT(store_schema_version(st), STORE_SCHEMA_VERSION);
    trial_result_init(&t);
    t.question_id = "q1";
    t.length = 8192;
    t.depth_bp = 5000;
    t.outcome = OUTCOME_CORRECT;
    t.facts.gold_bm25_rank = 3;
    t.facts.bm25_docs = 17;
    CHECK_INT(store_trial_put(st, "old", &t), 0);
    CHECK_INT(store_flush(st), 0);
    CHECK_INT(store_trials_load(st, "old", &v, &n), 0);
    CHECK_INT(n, 2);
    if (n == 2) {
        CHECK_INT(v[0].facts.gold_bm25_rank, 0);
        CHECK_INT(v[0].facts.bm25_docs, 0);
        CHECK_INT(v[1].facts.gold_bm25_rank, 3);
        CHECK_INT(v[1].facts.bm25_docs, 17);
    }
    store_trials_free(v, n);
    memset(&bt, 0, sizeof(bt));
    bt.custom_id = "q1-8192-0-0";
    bt.question_id = "q1";
    bt.length = 8192;
    bt.axes = "";
    bt.facts.gold_bm25_rank = 2;
    bt.facts.bm25_docs = 9;
    CHECK_INT(store_batch_add(st, "old", "dipmap-old-1", 100, &bt, 1, &id), 0);
    CHECK_INT(store_batch_trials(st, id, &got, &ntr), 0);
    CHECK(ntr == 1);
    if (ntr == 1)
        CHECK(got[0].facts.gold_bm25_rank == 2 && got[0].facts.bm25_docs == 9);
    store_batch_trials_free(got, ntr);
    store_close(st);
    CHECK_INT(sqlite_cli(p, "SELECT count(*) FROM trials WHERE gold_bm25_rank IS NULL", &out), 0);
    CHECK_STR(out.buf, "1\n");
    strbuf_release(&out);
}

/*
 * 11 -> 12: a run's request probe (run_info.probe_key, probe_sha256). A run of a v11 store
 * reads none (unknown) read-only and after the migration; a probe set or given to
 * store_run_create() round-trips; store_trial_prompt_of() finds a key's stored prompt hash.
 */
static void test_migration_v11_to_v12(void)
{
    const char *p = tpath("v11.db");
    const char *sha = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    struct store *st;
    struct run_info r, got;
    struct trial_result t;
    char had[SHA256_HEX_LEN + 1] = "";
    unlink(p);
    CHECK_INT(store_create_at_version(p, 11), 0);
    if (!proc_available("sqlite3")) {
        fprintf(stderr, "  (sqlite3 CLI missing: v11 migration check skipped)\n");
        return;
    }
    CHECK_INT(sqlite_cli(p,
                         "INSERT INTO runs (name, model_requested, created_at, status, "
                         "trials_planned) VALUES ('old', 'm1', 1000, 'complete', 2)",
                         NULL),
              0);
    st = store_open(p, STORE_READONLY);
    CHECK(st != NULL);
    if (st) {
        CHECK_INT(store_schema_version(st), 11);
        CHECK_INT(store_run_get(st, "old", &got), 0);
        CHECK(got.probe_key == NULL && got.probe_sha256 == NULL);
        run_info_release(&got);
        store_close(st);
    }
    st = store_open(p, STORE_READWRITE);
    CHECK(st != NULL);
    if (!st)
        return;
    CHECK_INT(store_schema_version(st), STORE_SCHEMA_VERSION);
    CHECK_INT(store_run_get(st, "old", &got), 0);
    CHECK(got.probe_key == NULL && got.probe_sha256 == NULL);
    run_info_release(&got);
    CHECK_INT(store_run_set_probe(st, "old", "q1|1024|0|0|", sha), 0);
    CHECK_INT(store_run_get(st, "old", &got), 0);
    CHECK_STR(got.probe_key, "q1|1024|0|0|");
    CHECK_STR(got.probe_sha256, sha);
    run_info_release(&got);
    fill_run(&r, "new", "m1");
    r.probe_key = xstrdup("q2|2048|5000|1|layout=chat");
    r.probe_sha256 = xstrdup(sha);
    CHECK_INT(store_run_create(st, &r), 0);
    run_info_release(&r);
    CHECK_INT(store_run_get(st, "new", &got), 0);
    CHECK_STR(got.probe_key, "q2|2048|5000|1|layout=chat");
    run_info_release(&got);
    trial_result_init(&t);
    t.question_id = "q1";
    t.length = 1024;
    t.outcome = OUTCOME_CORRECT;
    memcpy(t.facts.sha256, sha, sizeof(t.facts.sha256));
    CHECK_INT(store_trial_put(st, "old", &t), 0);
    CHECK_INT(store_flush(st), 0);
    CHECK_INT(store_trial_prompt_of(st, "old", "q1", 1024, 0, 0, NULL, had), 0);
    CHECK_STR(had, sha);
    CHECK_INT(store_trial_prompt_of(st, "old", "q1", 1024, 0, 0, "layout=chat", had), 1);
    CHECK_INT(store_trial_prompt_of(st, "missing", "q1", 1024, 0, 0, NULL, had), 1);
    store_close(st);
}

static void test_migration_v5_to_v6(void)
{
    const char *p = tpath("v5.db");
    struct store *st;
    struct trial_result *v = NULL, t;
    struct strbuf out = STRBUF_INIT;
    size_t n = 0;
    unlink(p);
    CHECK_INT(store_create_at_version(p, 5), 0);
    if (!proc_available("sqlite3")) {
        fprintf(stderr, "  (sqlite3 CLI missing: v5 migration check skipped)\n");
        return;
    }
    CHECK_INT(sqlite_cli(p,
                         "INSERT INTO runs (name, model_requested, created_at, status, "
                         "trials_planned) VALUES ('old', 'm1', 1000, 'complete', 2);"
                         "INSERT INTO trials (run_id, question_id, length, depth_bp, repeat, "
                         "outcome, answer, cut, cache_n, prompt_ms, request_sha256, "
                         "cached_tokens, sent_at) VALUES "
                         "(1, 'q1', 8192, 5000, 0, 'wrong', 'Lyon', 1, 12, 3.5, 'abc', 640, 99.5),"
                         "(1, 'q1', 8192, 0, 0, 'correct', 'Paris', 0, NULL, NULL, NULL, NULL, "
                         "NULL)",
                         NULL),
              0);
    st = store_open(p, STORE_READONLY);
    CHECK(st != NULL);
    if (st) {
        CHECK_INT(store_schema_version(st), 5);
        CHECK_INT(store_trials_load(st, "old", &v, &n), 0);
        CHECK_INT(n, 2);
        if (n == 2)
            CHECK_STR(v[0].axes, "");
        store_trials_free(v, n);
        store_close(st);
    }
    st = store_open(p, STORE_READWRITE);
    CHECK(st != NULL);
    if (!st)
        return;
    CHECK_INT(store_schema_version(st), STORE_SCHEMA_VERSION);
    CHECK_INT(store_trials_load(st, "old", &v, &n), 0);
    CHECK_INT(n, 2);
    if (n == 2) {
        /* ordered by depth: 0 then 5000 */
        CHECK_STR(v[0].answer, "Paris");
        CHECK_INT(v[0].cache_n, -1);
        CHECK_STR(v[1].answer, "Lyon");
        CHECK_INT(v[1].cut, 1);
        CHECK_INT(v[1].cache_n, 12);
        CHECK(v[1].prompt_ms == 3.5);
        CHECK_INT(v[1].cached_tokens, 640);
        CHECK(v[1].sent_at == 99.5);
        CHECK_INT(v[0].cached_tokens, -1);
        CHECK_STR(v[1].axes, "");
    }
    store_trials_free(v, n);
    /* the same key with an axis value is another trial; the same axes replace */
    trial_result_init(&t);
    t.question_id = "q1";
    t.length = 8192;
    t.depth_bp = 5000;
    t.outcome = OUTCOME_CORRECT;
    t.axes = "question-at=start";
    CHECK_INT(store_trial_put(st, "old", &t), 0);
    t.outcome = OUTCOME_WRONG;
    CHECK_INT(store_trial_put(st, "old", &t), 0);
    CHECK_INT(store_flush(st), 0);
    CHECK_INT(store_trials_load(st, "old", &v, &n), 0);
    CHECK_INT(n, 3);
    if (n == 3) {
        CHECK_STR(v[1].axes, "");
        CHECK_STR(v[1].answer, "Lyon");
        CHECK_STR(v[2].axes, "question-at=start");
        CHECK_INT(v[2].outcome, OUTCOME_WRONG);
    }
    store_trials_free(v, n);
    CHECK_INT(store_integrity_check(st), 0);
    store_close(st);
    CHECK_INT(sqlite_cli(p, "SELECT name FROM sqlite_master WHERE name = 'trials_request'", &out),
              0);
    CHECK_STR(out.buf, "trials_request\n");
    strbuf_reset(&out);
    CHECK_INT(sqlite_cli(p,
                         "PRAGMA foreign_keys = ON; DELETE FROM runs; SELECT count(*) FROM trials",
                         &out),
              0);
    CHECK_STR(out.buf, "0\n");
    strbuf_release(&out);
}

static void test_migration_v2_to_v3(void)
{
    const char *p = tpath("v2.db");
    struct store *st;
    struct trial_result *v = NULL, t;
    size_t n = 0;
    unlink(p);
    CHECK_INT(store_create_at_version(p, 2), 0);
    if (!proc_available("sqlite3")) {
        fprintf(stderr, "  (sqlite3 CLI missing: v2 migration check skipped)\n");
        return;
    }
    CHECK_INT(sqlite_cli(p,
                         "INSERT INTO runs (name, model_requested, created_at, status, "
                         "trials_planned, tags) VALUES ('old', 'm1', 1000, 'complete', 1, 'x');"
                         "INSERT INTO trials (run_id, question_id, length, depth_bp, repeat, "
                         "outcome, answer, finish_reason, completion_tokens) VALUES (1, 'q1', "
                         "8192, 5000, 0, 'truncated', 'Par', 'length', 4)",
                         NULL),
              0);
    st = store_open(p, STORE_READONLY);
    CHECK(st != NULL);
    if (st) {
        CHECK_INT(store_schema_version(st), 2);
        CHECK_INT(store_trials_load(st, "old", &v, &n), 0);
        CHECK_INT(n, 1);
        if (n == 1) {
            CHECK_STR(v[0].answer, "Par");
            CHECK_INT(v[0].cut, 0);
            CHECK_INT(v[0].reasoning_tokens, -1);
            CHECK_STR(v[0].request_sha256, "");
            CHECK(v[0].reused_from == NULL);
            CHECK_INT(v[0].cache_n, -1);
        }
        store_trials_free(v, n);
        store_close(st);
    }
    st = store_open(p, STORE_READWRITE);
    CHECK(st != NULL);
    if (!st)
        return;
    CHECK_INT(store_schema_version(st), STORE_SCHEMA_VERSION);
    trial_result_init(&t);
    t.question_id = "q2";
    t.length = 8192;
    t.depth_bp = 0;
    t.outcome = OUTCOME_WRONG;
    t.cut = 1;
    t.reasoning_tokens = 77;
    t.reasoning_chars = 300;
    memset(t.request_sha256, 'a', SHA256_HEX_LEN);
    t.request_sha256[SHA256_HEX_LEN] = '\0';
    t.reused_from = "base.db:r1";
    CHECK_INT(store_trial_put(st, "old", &t), 0);
    CHECK_INT(store_flush(st), 0);
    CHECK_INT(store_trials_load(st, "old", &v, &n), 0);
    CHECK_INT(n, 2);
    if (n == 2) {
        CHECK_STR(v[0].answer, "Par"); /* the v2 row kept */
        CHECK_INT(v[1].cut, 1);
        CHECK_INT(v[1].reasoning_tokens, 77);
        CHECK_INT(v[1].reasoning_chars, 300);
        CHECK_STR(v[1].request_sha256, t.request_sha256);
        CHECK_STR(v[1].reused_from, "base.db:r1");
    }
    store_trials_free(v, n);
    CHECK_INT(store_close(st), 0);
}

static void test_newer_schema_refused(void)
{
    const char *p = tpath("newer.db");
    struct store *st = fresh_store("newer.db");
    CHECK(st != NULL);
    store_close(st);
    if (!proc_available("sqlite3"))
        return;
    CHECK_INT(sqlite_cli(p, "PRAGMA user_version = 99", NULL), 0);
    capture_start();
    st = store_open(p, STORE_READWRITE);
    capture_stop();
    CHECK(st == NULL);
    CHECK(strstr(errs.buf, "created by a newer dipmap") != NULL);
}

static void test_errors_missing_corrupt(void)
{
    struct store *st;
    const char *p = tpath("garbage.db");
    FILE *fp;
    int i;

    capture_start();
    st = store_open(tpath("does-not-exist.db"), STORE_READONLY);
    CHECK(st == NULL);
    CHECK(strstr(errs.buf, "does-not-exist.db: no such database") != NULL);
    strbuf_reset(&errs);
    st = store_open(tpath("does-not-exist.db"), STORE_READWRITE);
    CHECK(st == NULL);
    CHECK(strstr(errs.buf, "no such database") != NULL);

    fp = fopen(p, "wb");
    for (i = 0; i < 8192; i++)
        fputc((i * 7919) & 0xff, fp);
    fclose(fp);
    for (i = 0; i < 3; i++) {
        strbuf_reset(&errs);
        st = store_open(p, i == 0 ? STORE_READONLY : i == 1 ? STORE_READWRITE : STORE_CREATE);
        CHECK(st == NULL);
        CHECK(strstr(errs.buf, "garbage.db: not a dipmap database") != NULL);
    }
    /* a SQLite file that is someone else's database */
    if (proc_available("sqlite3")) {
        const char *o = tpath("other.db");
        unlink(o);
        CHECK_INT(sqlite_cli(o, "CREATE TABLE x(a); INSERT INTO x VALUES (1)", NULL), 0);
        strbuf_reset(&errs);
        st = store_open(o, STORE_READWRITE);
        CHECK(st == NULL);
        CHECK(strstr(errs.buf, "not a dipmap database") != NULL);
    }
    /* a dipmap database with a damaged page: opens or fails with a message, never crashes */
    {
        struct store *w = fresh_store("damaged.db");
        struct trial_result t;
        int fd, k;
        char junk[4096];
        CHECK_INT(make_run(w, "r", "m"), 0);
        for (k = 0; k < 200; k++) {
            make_trial(&t, "q", 100, k % 10001, k, OUTCOME_CORRECT);
            store_trial_put(w, "r", &t);
            trial_result_release(&t);
        }
        CHECK_INT(store_close(w), 0);
        /* checkpoint into the main file so damage lands on real pages */
        w = store_open(tpath("damaged.db"), STORE_READWRITE);
        store_close(w);
        if (proc_available("sqlite3"))
            sqlite_cli(tpath("damaged.db"), "PRAGMA wal_checkpoint(TRUNCATE)", NULL);
        memset(junk, 0x5a, sizeof(junk));
        fd = open(tpath("damaged.db"), O_WRONLY);
        CHECK(fd >= 0);
        CHECK(pwrite(fd, junk, sizeof(junk), 4096) == (ssize_t)sizeof(junk));
        close(fd);
        strbuf_reset(&errs);
        st = store_open(tpath("damaged.db"), STORE_READONLY);
        if (st) {
            struct trial_result *v = NULL;
            size_t n = 0;
            int rc = store_integrity_check(st);
            CHECK_INT(rc, -1);
            rc = store_trials_load(st, "r", &v, &n);
            store_trials_free(v, n);
            store_close(st);
        }
        CHECK(errs.len > 0);
        CHECK(strstr(errs.buf, "damaged.db") != NULL);
    }
    capture_stop();
}

static void test_readonly_refuses_writes(void)
{
    struct store *st = fresh_store("ro.db");
    struct trial_result t;
    CHECK_INT(make_run(st, "r", "m"), 0);
    store_close(st);
    st = store_open(tpath("ro.db"), STORE_READONLY);
    CHECK(st != NULL);
    if (!st)
        return;
    make_trial(&t, "q", 1, 0, 0, OUTCOME_CORRECT);
    capture_start();
    CHECK_INT(store_trial_put(st, "r", &t), -1);
    CHECK(strstr(errs.buf, "opened read-only") != NULL);
    CHECK_INT(store_run_update_status(st, "r", RUN_COMPLETE), -1);
    CHECK(make_run(st, "r2", "m") < 0);
    capture_stop();
    trial_result_release(&t);
    CHECK_INT(store_close(st), 0);
}

static void test_runs_create_get_list(void)
{
    struct store *st = fresh_store("runs.db");
    struct run_info r, *v;
    struct run_filter f = {NULL, NULL, NULL};
    size_t n;

    fill_run(&r, "b-run", "gpt-4o-mini");
    r.tags = xstrdup("nightly,gpu");
    r.created_at = 2000;
    r.system_fingerprint = xstrdup("fp_1");
    r.shard = xstrdup("0/2");
    CHECK_INT(store_run_create(st, &r), 0);
    run_info_release(&r);
    fill_run(&r, "a-run", "llama-3-8b");
    r.created_at = 1000;
    CHECK_INT(store_run_create(st, &r), 0);
    capture_start();
    CHECK_INT(store_run_create(st, &r), STORE_EEXIST);
    CHECK(strstr(errs.buf, "a run named 'a-run' already exists") != NULL);
    capture_stop();
    run_info_release(&r);
    fill_run(&r, "c-run", "gpt-4o");
    r.created_at = 3000;
    r.tags = xstrdup("nightlyx");
    CHECK_INT(store_run_create(st, &r), 0);
    run_info_release(&r);

    CHECK_INT(store_run_get(st, "b-run", &r), 0);
    CHECK_STR(r.name, "b-run");
    CHECK_STR(r.model_requested, "gpt-4o-mini");
    CHECK(r.model_served == NULL);
    CHECK_STR(r.endpoints, "http://127.0.0.1:8000/v1");
    CHECK_STR(r.system_fingerprint, "fp_1");
    /* canonical settings: keys sorted, compact */
    CHECK_STR(r.settings_json, "{\"api-key-env\":\"OPENAI_API_KEY\",\"depths\":\"0:100:10\","
                               "\"max-tokens\":64,\"temperature\":0}");
    CHECK_STR(r.golden_sha256, "aa");
    CHECK_STR(r.haystack_sha256, "bb");
    CHECK_STR(r.template_sha256, "cc");
    CHECK_STR(r.tokenizer_name, "cl100k_base");
    CHECK_STR(r.tokenizer_sha256, "dd");
    CHECK_STR(r.dipmap_version, "0.1.0");
    CHECK_STR(r.dipmap_commit, "abc");
    CHECK_STR(r.tags, "nightly,gpu");
    CHECK_STR(r.shard, "0/2");
    CHECK_NEAR(r.created_at, 2000, 0);
    CHECK_NEAR(r.started_at, 0, 0);
    CHECK_INT(r.status, RUN_RUNNING);
    CHECK_INT(r.trials_planned, 10);
    CHECK_INT(r.trials_done, 0);
    run_info_release(&r);
    CHECK_INT(store_run_get(st, "nope", &r), 1);
    CHECK(r.name == NULL);

    CHECK_INT(store_run_list(st, NULL, &v, &n), 0);
    CHECK_INT(n, 3);
    if (n == 3) {
        CHECK_STR(v[0].name, "a-run");
        CHECK_STR(v[1].name, "b-run");
        CHECK_STR(v[2].name, "c-run");
    }
    run_info_list_free(v, n);
    f.model_prefix = "gpt-4o";
    CHECK_INT(store_run_list(st, &f, &v, &n), 0);
    CHECK_INT(n, 2);
    run_info_list_free(v, n);
    f.model_prefix = "%"; /* no wildcard semantics */
    CHECK_INT(store_run_list(st, &f, &v, &n), 0);
    CHECK_INT(n, 0);
    run_info_list_free(v, n);
    f.model_prefix = NULL;
    f.tag = "nightly"; /* exact tag, not "nightlyx" */
    CHECK_INT(store_run_list(st, &f, &v, &n), 0);
    CHECK_INT(n, 1);
    if (n == 1)
        CHECK_STR(v[0].name, "b-run");
    run_info_list_free(v, n);

    /* status and served model */
    CHECK_INT(store_run_update_status(st, "a-run", RUN_RUNNING), 0);
    CHECK_INT(store_run_set_served(st, "a-run", "llama-3-8b-instruct", NULL), 0);
    CHECK_INT(store_run_set_planned(st, "a-run", 42), 0);
    CHECK_INT(store_run_update_status(st, "a-run", RUN_INTERRUPTED), 0);
    CHECK_INT(store_run_get(st, "a-run", &r), 0);
    CHECK_INT(r.status, RUN_INTERRUPTED);
    CHECK(r.started_at > 1e9);
    CHECK(r.finished_at >= r.started_at);
    CHECK_STR(r.model_served, "llama-3-8b-instruct");
    CHECK_INT(r.trials_planned, 42);
    run_info_release(&r);
    capture_start();
    CHECK_INT(store_run_update_status(st, "ghost", RUN_COMPLETE), -1);
    CHECK(strstr(errs.buf, "no run named 'ghost'") != NULL);
    capture_stop();

    {
        enum run_status s;
        int i;
        for (i = 0; i < RUN_STATUS__COUNT; i++) {
            CHECK_INT(run_status_parse(run_status_name((enum run_status)i), &s), 0);
            CHECK_INT(s, i);
        }
        CHECK_INT(run_status_parse("bogus", &s), -1);
    }
    CHECK_INT(store_close(st), 0);
}

static void test_secrets_refused(void)
{
    static const char *const bad_settings[] = {
        "{\"api-key\":\"sk-abcdefghijklmnopqrstuvwx\"}",
        "{\"api_key\":\"whatever\"}",
        "{\"header\":[\"Authorization: Bearer abc123\"]}",
        "{\"header\":[\"X-Api-Key: abc123\"]}",
        "{\"nested\":{\"password\":\"x\"}}",
        "{\"token\":\"Bearer abc\"}",
        "{\"note\":\"sk-proj-aaaaaaaaaaaaaaaaaaaaaa\"}",
        "not json",
        NULL,
    };
    static const char *const bad_endpoints[] = {
        "https://user:secret-pw@example.com/v1",
        "https://example.openai.azure.com/openai?api-key=SECRET123",
        NULL,
    };
    struct store *st = fresh_store("secrets.db");
    struct strbuf file = STRBUF_INIT;
    struct run_info r;
    int i;

    capture_start();
    for (i = 0; bad_settings[i]; i++) {
        fill_run(&r, "s", "m");
        free(r.settings_json);
        r.settings_json = xstrdup(bad_settings[i]);
        strbuf_reset(&errs);
        CHECK_INT(store_run_create(st, &r), -1);
        CHECK(strstr(errs.buf, "run 's'") != NULL);
        run_info_release(&r);
    }
    CHECK(strstr(errs.buf, "settings must be a JSON object") != NULL);
    for (i = 0; bad_endpoints[i]; i++) {
        fill_run(&r, "e", "m");
        free(r.endpoints);
        r.endpoints = xstrdup(bad_endpoints[i]);
        strbuf_reset(&errs);
        CHECK_INT(store_run_create(st, &r), -1);
        CHECK(strstr(errs.buf, "credentials") != NULL);
        run_info_release(&r);
    }
    capture_stop();
    /* the env variable's NAME and ordinary headers are fine */
    fill_run(&r, "ok", "m");
    free(r.settings_json);
    r.settings_json = xstrdup("{\"api-key-env\":\"MY_KEY\",\"header\":[\"X-Org: research\"],"
                              "\"max-tokens\":32,\"tokenizer\":\"server\"}");
    CHECK_INT(store_run_create(st, &r), 0);
    run_info_release(&r);
    CHECK_INT(store_close(st), 0);
    /* nothing refused reached the file */
    CHECK_INT(strbuf_read_file(&file, tpath("secrets.db")), 0);
    {
        struct strbuf wal = STRBUF_INIT;
        struct strbuf p = STRBUF_INIT;
        strbuf_addf(&p, "%s-wal", tpath("secrets.db"));
        strbuf_read_file(&wal, p.buf);
        strbuf_add(&file, wal.buf, wal.len);
        strbuf_release(&wal);
        strbuf_release(&p);
    }
    CHECK(memmem(file.buf, file.len, "abc123", 6) == NULL);
    CHECK(memmem(file.buf, file.len, "SECRET123", 9) == NULL);
    CHECK(memmem(file.buf, file.len, "secret-pw", 9) == NULL);
    CHECK(memmem(file.buf, file.len, "sk-", 3) == NULL);
    CHECK(memmem(file.buf, file.len, "MY_KEY", 6) != NULL); /* the file was read */
    strbuf_release(&file);
}

static void test_trial_roundtrip(void)
{
    struct store *st = fresh_store("trials.db");
    struct trial_result a, b, *v = NULL;
    struct strbuf big = STRBUF_INIT;
    size_t n = 0, i;

    CHECK_INT(make_run(st, "r", "m"), 0);
    for (i = 0; i < 100 * 1024; i++)
        strbuf_addch(&big, "ab'\"\\\n%_é"[i % 10]);

    trial_result_init(&a);
    a.question_id = xstrdup("q'1\"; DROP TABLE trials; --");
    a.length = 65536;
    a.depth_bp = 10000;
    a.repeat = 3;
    memset(a.facts.sha256, 'f', SHA256_HEX_LEN);
    a.facts.sha256[SHA256_HEX_LEN] = '\0';
    a.facts.realized_length = 65500;
    a.usage_prompt_tokens = 65530;
    a.facts.realized_depth = 0.987654321;
    a.facts.gold_offset = 64000;
    a.outcome = OUTCOME_TRUNCATED;
    a.http_status = 200;
    a.attempts = 4;
    a.latency_ms = 1234.5;
    a.completion_tokens = 17;
    a.finish_reason = xstrdup("length");
    a.answer = xstrdup(big.buf);
    a.reasoning = xstrdup("thinking \"quoted\" 'single'");
    a.score = 0;
    a.error = xstrdup("server counted 65530 < 65536");
    a.finished_at = 1764495000.25;
    a.cache_n = 61000;
    a.prompt_n = 4530;
    a.prompt_ms = 987.25;
    a.cached_tokens = 60928;
    a.sent_at = 1764494999.75;
    CHECK_INT(store_trial_put(st, "r", &a), 0);

    /* NULL strings, NaN depth, -1 usage, zero time */
    trial_result_init(&b);
    b.question_id = xstrdup("q2");
    b.length = 8192;
    b.depth_bp = 0;
    b.facts.realized_depth = NAN;
    b.outcome = OUTCOME_ERROR;
    CHECK_INT(store_trial_put(st, "r", &b), 0);
    CHECK_INT(store_pending(st), 2);
    /* not visible before the flush */
    CHECK_INT(count_trials(st, "r"), 0);
    CHECK_INT(store_flush(st), 0);
    CHECK_INT(store_pending(st), 0);
    CHECK_INT(store_close(st), 0);

    st = store_open(tpath("trials.db"), STORE_READONLY);
    CHECK_INT(store_trials_load(st, "r", &v, &n), 0);
    CHECK_INT(n, 2);
    if (n == 2) {
        const struct trial_result *x = &v[0], *y = &v[1]; /* ordered by question_id */
        CHECK_STR(x->question_id, a.question_id);
        CHECK_INT(x->length, 65536);
        CHECK_INT(x->depth_bp, 10000);
        CHECK_INT(x->repeat, 3);
        CHECK_STR(x->facts.sha256, a.facts.sha256);
        CHECK_INT(x->facts.realized_length, 65500);
        CHECK_INT(x->usage_prompt_tokens, 65530);
        CHECK_NEAR(x->facts.realized_depth, 0.987654321, 0);
        CHECK_INT(x->facts.gold_offset, 64000);
        CHECK_INT(x->outcome, OUTCOME_TRUNCATED);
        CHECK_INT(x->http_status, 200);
        CHECK_INT(x->attempts, 4);
        CHECK_NEAR(x->latency_ms, 1234.5, 0);
        CHECK_INT(x->completion_tokens, 17);
        CHECK_STR(x->finish_reason, "length");
        CHECK(x->answer && strlen(x->answer) == big.len && !strcmp(x->answer, big.buf));
        CHECK_STR(x->reasoning, a.reasoning);
        CHECK_NEAR(x->score, 0, 0);
        CHECK_STR(x->error, a.error);
        CHECK_NEAR(x->finished_at, 1764495000.25, 0);
        CHECK_INT(x->cache_n, 61000);
        CHECK_INT(x->prompt_n, 4530);
        CHECK_NEAR(x->prompt_ms, 987.25, 0);
        CHECK_INT(x->cached_tokens, 60928);
        CHECK_NEAR(x->sent_at, 1764494999.75, 0);

        CHECK_STR(y->question_id, "q2");
        CHECK_STR(y->facts.sha256, "");
        CHECK(isnan(y->facts.realized_depth));
        CHECK_INT(y->usage_prompt_tokens, -1);
        CHECK_INT(y->completion_tokens, -1);
        CHECK_INT(y->outcome, OUTCOME_ERROR);
        CHECK(y->finish_reason == NULL);
        CHECK(y->answer == NULL);
        CHECK(y->reasoning == NULL);
        CHECK(y->error == NULL);
        CHECK_NEAR(y->finished_at, 0, 0);
        CHECK_INT(y->cache_n, -1); /* no timings: NULL in the store */
        CHECK_INT(y->prompt_n, -1);
        CHECK(y->prompt_ms < 0);
        CHECK_INT(y->cached_tokens, -1);
        CHECK_NEAR(y->sent_at, 0, 0);
    }
    store_trials_free(v, n);
    CHECK_INT(store_trials_load(st, "no-such-run", &v, &n), 1);
    CHECK_INT(n, 0);
    store_close(st);
    trial_result_release(&a);
    trial_result_release(&b);
    strbuf_release(&big);
}

/*
 * Every column of table in the store at path but skip has exactly one row of cols[0..n), of
 * its SQL type, and no two rows hold one member.
 */
static void check_columns(const char *path, const char *table, const char *skip,
                          const struct trial_col *cols, size_t n)
{
    struct strbuf out = STRBUF_INIT, sql = STRBUF_INIT;
    struct strvec lines = STRVEC_INIT;
    size_t i, j;
    strbuf_addf(&sql, "SELECT name || ' ' || type FROM pragma_table_info('%s') WHERE name <> '%s'",
                table, skip);
    CHECK_INT(sqlite_cli(path, sql.buf, &out), 0);
    strbuf_rtrim(&out);
    strvec_split(&lines, out.buf, '\n');
    CHECK_INT(lines.nr, n);
    for (i = 0; i < lines.nr; i++) {
        size_t found = 0;
        for (j = 0; j < n; j++) {
            struct strbuf row = STRBUF_INIT;
            strbuf_addf(&row, "%s %s", cols[j].name, cols[j].sql_type);
            found += !strcmp(row.buf, lines.v[i]);
            strbuf_release(&row);
        }
        if (found != 1)
            fprintf(stderr, "# %s column '%s': %zu rows in its column table\n", table, lines.v[i],
                    found);
        CHECK_INT(found, 1);
    }
    for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++)
            CHECK(cols[i].offset != cols[j].offset);
    strvec_clear(&lines);
    strbuf_release(&out);
    strbuf_release(&sql);
}

/*
 * The column table (store-int.h TRIAL_COLUMNS) against a new store's trials table: every
 * column but run_id has exactly one row, of the same SQL type, and no two rows hold one
 * member; a trial with every field set to its own value is stored with each value in the
 * column of its name (read with the sqlite3 tool, not our reader) and reads back equal.
 */
static void test_trial_columns_match_schema(void)
{
    static const struct {
        const char *col, *stored;
    } want[] = {
        {"question_id", "'q101'"},
        {"length", "102"},
        {"depth_bp", "103"},
        {"repeat", "104"},
        {"axes", "'layout=chat'"},
        {"prompt_sha256", "'aaaa'"},
        {"realized_length", "105"},
        {"usage_prompt_tokens", "106"},
        {"realized_depth", "0.107"},
        {"gold_offset", "108"},
        {"outcome", "'filtered'"},
        {"http_status", "109"},
        {"attempts", "110"},
        {"latency_ms", "111.5"},
        {"completion_tokens", "112"},
        {"finish_reason", "'f113'"},
        {"answer", "'a114'"},
        {"reasoning", "'r115'"},
        {"score", "0.116"},
        {"error", "'e117'"},
        {"finished_at", "1700000118.5"},
        {"cut", "1"},
        {"reasoning_tokens", "119"},
        {"reasoning_chars", "120"},
        {"request_sha256", "'bbbb'"},
        {"reused_from", "'s:121'"},
        {"cache_n", "122"},
        {"prompt_n", "123"},
        {"prompt_ms", "124.5"},
        {"cached_tokens", "125"},
        {"sent_at", "1700000126.5"},
        {"gold_bm25_rank", "127"},
        {"bm25_docs", "128"},
    };
    size_t nwant = sizeof(want) / sizeof(want[0]), i, n = 0;
    struct store *st = fresh_store("columns.db");
    struct strbuf out = STRBUF_INIT, sql = STRBUF_INIT, expect = STRBUF_INIT;
    struct trial_result a, *v = NULL;

    /* the tables' rows against the schema */
    check_columns(tpath("columns.db"), "trials", "run_id", store_trial_cols, TC__COUNT);
    check_columns(tpath("columns.db"), "batch_trials", "batch", store_batch_trial_cols, BTC__COUNT);
    CHECK_INT(nwant, TC__COUNT); /* a new column needs its row above */

    CHECK_INT(make_run(st, "r", "m"), 0);
    trial_result_init(&a);
    a.question_id = xstrdup("q101");
    a.length = 102;
    a.depth_bp = 103;
    a.repeat = 104;
    a.axes = xstrdup("layout=chat");
    memset(a.facts.sha256, 'a', SHA256_HEX_LEN);
    a.facts.realized_length = 105;
    a.usage_prompt_tokens = 106;
    a.facts.realized_depth = 0.107;
    a.facts.gold_offset = 108;
    a.outcome = OUTCOME_FILTERED;
    a.http_status = 109;
    a.attempts = 110;
    a.latency_ms = 111.5;
    a.completion_tokens = 112;
    a.finish_reason = xstrdup("f113");
    a.answer = xstrdup("a114");
    a.reasoning = xstrdup("r115");
    a.score = 0.116;
    a.error = xstrdup("e117");
    a.finished_at = 1700000118.5;
    a.cut = 1;
    a.reasoning_tokens = 119;
    a.reasoning_chars = 120;
    memset(a.request_sha256, 'b', SHA256_HEX_LEN);
    a.reused_from = xstrdup("s:121");
    a.cache_n = 122;
    a.prompt_n = 123;
    a.prompt_ms = 124.5;
    a.cached_tokens = 125;
    a.sent_at = 1700000126.5;
    a.facts.gold_bm25_rank = 127;
    a.facts.bm25_docs = 128;
    CHECK_INT(store_trial_put(st, "r", &a), 0);
    CHECK_INT(store_flush(st), 0);
    CHECK_INT(store_close(st), 0);

    /* each value in the column of its name: the hashes by their first four characters */
    strbuf_addstr(&sql, "SELECT ");
    for (i = 0; i < nwant; i++) {
        int sha = !strcmp(want[i].col, "prompt_sha256") || !strcmp(want[i].col, "request_sha256");
        strbuf_addf(&sql, "%squote(%s%s%s)", i ? " || '|' || " : "", sha ? "substr(" : "",
                    want[i].col, sha ? ", 1, 4)" : "");
        strbuf_addf(&expect, "%s%s", i ? "|" : "", want[i].stored);
    }
    strbuf_addstr(&sql, " FROM trials");
    strbuf_addch(&expect, '\n');
    strbuf_reset(&out);
    CHECK_INT(sqlite_cli(tpath("columns.db"), sql.buf, &out), 0);
    CHECK_STR(out.buf, expect.buf);

    st = store_open(tpath("columns.db"), STORE_READONLY);
    CHECK_INT(store_trials_load(st, "r", &v, &n), 0);
    CHECK_INT(n, 1);
    if (n == 1) {
        const struct trial_result *x = &v[0];
        CHECK_STR(x->question_id, a.question_id);
        CHECK_INT(x->length, a.length);
        CHECK_INT(x->depth_bp, a.depth_bp);
        CHECK_INT(x->repeat, a.repeat);
        CHECK_STR(x->axes, a.axes);
        CHECK_STR(x->facts.sha256, a.facts.sha256);
        CHECK_INT(x->facts.realized_length, a.facts.realized_length);
        CHECK_INT(x->usage_prompt_tokens, a.usage_prompt_tokens);
        CHECK_NEAR(x->facts.realized_depth, a.facts.realized_depth, 0);
        CHECK_INT(x->facts.gold_offset, a.facts.gold_offset);
        CHECK_INT(x->outcome, a.outcome);
        CHECK_INT(x->http_status, a.http_status);
        CHECK_INT(x->attempts, a.attempts);
        CHECK_NEAR(x->latency_ms, a.latency_ms, 0);
        CHECK_INT(x->completion_tokens, a.completion_tokens);
        CHECK_STR(x->finish_reason, a.finish_reason);
        CHECK_STR(x->answer, a.answer);
        CHECK_STR(x->reasoning, a.reasoning);
        CHECK_NEAR(x->score, a.score, 0);
        CHECK_STR(x->error, a.error);
        CHECK_NEAR(x->finished_at, a.finished_at, 0);
        CHECK_INT(x->cut, a.cut);
        CHECK_INT(x->reasoning_tokens, a.reasoning_tokens);
        CHECK_INT(x->reasoning_chars, a.reasoning_chars);
        CHECK_STR(x->request_sha256, a.request_sha256);
        CHECK_STR(x->reused_from, a.reused_from);
        CHECK_INT(x->cache_n, a.cache_n);
        CHECK_INT(x->prompt_n, a.prompt_n);
        CHECK_NEAR(x->prompt_ms, a.prompt_ms, 0);
        CHECK_INT(x->cached_tokens, a.cached_tokens);
        CHECK_NEAR(x->sent_at, a.sent_at, 0);
        CHECK_INT(x->facts.gold_bm25_rank, a.facts.gold_bm25_rank);
        CHECK_INT(x->facts.bm25_docs, a.facts.bm25_docs);
    }
    store_trials_free(v, n);
    store_close(st);
    trial_result_release(&a);
    strbuf_release(&out);
    strbuf_release(&sql);
    strbuf_release(&expect);
}

/*
 * The optional kinds (store-int.h) at their boundary: an unknown (LONG_OPT and REAL_OPT below
 * 0, LONG_POS below 1) is stored as NULL and reads back as -1, -1 and 0; the least known value
 * (0, 0.0, 1) is stored as itself and reads back equal.
 */
static void test_optional_columns_null(void)
{
    struct store *st = fresh_store("optional.db");
    struct strbuf out = STRBUF_INIT;
    struct trial_result t, *v = NULL;
    size_t n = 0;

    CHECK_INT(make_run(st, "r", "m"), 0);
    make_trial(&t, "unknown", 1024, 0, 0, OUTCOME_CORRECT);
    t.reasoning_tokens = -1;
    t.cache_n = -7;
    t.prompt_ms = -0.5;
    t.facts.gold_bm25_rank = 0;
    CHECK_INT(store_trial_put(st, "r", &t), 0);
    trial_result_release(&t);
    make_trial(&t, "known", 1024, 0, 0, OUTCOME_CORRECT);
    t.reasoning_tokens = 0;
    t.cache_n = 0;
    t.prompt_ms = 0;
    t.facts.gold_bm25_rank = 1;
    CHECK_INT(store_trial_put(st, "r", &t), 0);
    trial_result_release(&t);
    CHECK_INT(store_close(st), 0);

    CHECK_INT(
        sqlite_cli(tpath("optional.db"),
                   "SELECT question_id, quote(reasoning_tokens), quote(cache_n),"
                   " quote(prompt_ms), quote(gold_bm25_rank) FROM trials ORDER BY question_id",
                   &out),
        0);
    CHECK_STR(out.buf, "known|0|0|0.0|1\nunknown|NULL|NULL|NULL|NULL\n");

    st = store_open(tpath("optional.db"), STORE_READONLY);
    CHECK_INT(store_trials_load(st, "r", &v, &n), 0);
    CHECK_INT(n, 2);
    if (n == 2) {
        CHECK_STR(v[0].question_id, "known");
        CHECK_INT(v[0].reasoning_tokens, 0);
        CHECK_INT(v[0].cache_n, 0);
        CHECK_NEAR(v[0].prompt_ms, 0, 0);
        CHECK_INT(v[0].facts.gold_bm25_rank, 1);
        CHECK_INT(v[1].reasoning_tokens, -1);
        CHECK_INT(v[1].cache_n, -1);
        CHECK_NEAR(v[1].prompt_ms, -1, 0);
        CHECK_INT(v[1].facts.gold_bm25_rank, 0);
    }
    store_trials_free(v, n);
    store_close(st);
    strbuf_release(&out);
}

/*
 * A run's points (store_points_load): every field the statistics read equal to the point of
 * the trial store_trials_load gives, in its order; each distinct id and axes kept once; the
 * answers only through store_trial_answer (by key, axes part of it; 1 for a missing trial or
 * run).
 */
static void test_points_and_answers(void)
{
    struct store *st = fresh_store("points.db");
    struct trial_result t, *v = NULL;
    struct trial_point_set ps = TRIAL_POINT_SET_INIT;
    struct trial_key k = {"q1", 8192, 5000, 1, "needles=2"};
    char *answer = (char *)"unset";
    size_t n = 0, i;

    CHECK_INT(make_run(st, "r", "m"), 0);
    for (i = 0; i < 12; i++) {
        char q[8];
        snprintf(q, sizeof(q), "q%zu", i % 3);
        make_trial(&t, q, 8192, (int)(i / 3) * 2500, 1, i % 4 ? OUTCOME_CORRECT : OUTCOME_WRONG);
        t.axes = xstrdup(i % 2 ? "needles=2" : "");
        t.facts.realized_length = 8000 + (long)i;
        t.usage_prompt_tokens = 8100 + (long)i;
        t.facts.realized_depth = (double)i / 12;
        t.facts.gold_offset = 100 * (long)i;
        t.completion_tokens = 5;
        t.reasoning_tokens = i % 2 ? 3 : -1;
        t.cut = i == 7;
        t.cache_n = (long)i;
        t.prompt_n = 8000;
        t.cached_tokens = i % 3 ? (long)i : -1;
        if (i == 5)
            t.reused_from = xstrdup("other.db:r0");
        free(t.answer);
        t.answer = xstrdup(i == 7 ? "the answer of q1 at 50%" : "x");
        CHECK_INT(store_trial_put(st, "r", &t), 0);
        trial_result_release(&t);
    }
    CHECK_INT(store_flush(st), 0);
    CHECK_INT(store_trials_load(st, "r", &v, &n), 0);
    CHECK_INT(store_points_load(st, "r", &ps), 0);
    CHECK_INT(ps.nr, n);
    CHECK_INT(ps.str.nr, 5); /* q0 q1 q2, "needles=2", "" */
    for (i = 0; i < n && i < ps.nr; i++) {
        struct trial_point want, *p = &ps.v[i];
        trial_point_of(&want, &v[i]);
        CHECK_STR(p->question_id, want.question_id);
        CHECK_STR(p->axes, want.axes);
        CHECK(!trial_point_cmp(p, &want));
        CHECK_INT(p->outcome, want.outcome);
        CHECK_INT(p->cut, want.cut);
        CHECK_INT(p->reused, want.reused);
        CHECK_NEAR(p->realized_depth, want.realized_depth, 1e-12);
        CHECK_INT(p->realized_length, want.realized_length);
        CHECK_INT(p->usage_prompt_tokens, want.usage_prompt_tokens);
        CHECK_INT(p->gold_offset, want.gold_offset);
        CHECK_INT(p->completion_tokens, want.completion_tokens);
        CHECK_INT(p->reasoning_tokens, want.reasoning_tokens);
        CHECK_INT(p->cache_n, want.cache_n);
        CHECK_INT(p->prompt_n, want.prompt_n);
        CHECK_INT(p->cached_tokens, want.cached_tokens);
        /* one copy of each string per set */
        CHECK(i == 0 || strcmp(p->question_id, ps.v[i - 1].question_id) ||
              p->question_id == ps.v[i - 1].question_id);
    }
    CHECK_INT(store_trial_answer(st, "r", &k, &answer), 0);
    CHECK_STR(answer, "the answer of q1 at 50%");
    free(answer);
    k.axes = "";
    CHECK_INT(store_trial_answer(st, "r", &k, &answer), 1); /* q1 at 50% has needles=2 only */
    CHECK(answer == NULL);
    CHECK_INT(store_trial_answer(st, "nope", &k, &answer), 1);
    trial_point_set_release(&ps);
    CHECK_INT(store_points_load(st, "nope", &ps), 1);
    trial_point_set_release(&ps);
    store_trials_free(v, n);
    store_close(st);
}

/*
 * A golden set written in pieces (store_golden_begin/write/end): the content read back whole;
 * a set already kept is not written again; a set left short, or ended not ok, keeps nothing.
 */
static void test_golden_streamed(void)
{
    struct store *st = fresh_store("golden.db");
    struct store_golden_writer *w = NULL;
    char *content = NULL;
    size_t len = 0;
    const char *text = "{\"id\": \"q1\"}\n{\"id\": \"q2\"}\n";
    size_t n = strlen(text);

    CHECK_INT(store_golden_begin(st, "aa", n, &w), 0);
    CHECK_INT(store_golden_write(w, text, 5), 0);
    CHECK_INT(store_golden_write(w, text + 5, n - 5), 0);
    CHECK_INT(store_golden_write(w, "x", 1), -1); /* past the size given */
    CHECK_INT(store_golden_end(w, 1), 0);         /* a failed write: rolled back */
    CHECK_INT(store_golden_get(st, "aa", &content, &len), 0);
    CHECK_INT(store_golden_begin(st, "aa", n, &w), 0);
    CHECK_INT(store_golden_write(w, text, n), 0);
    CHECK_INT(store_golden_end(w, 1), 0);
    CHECK_INT(store_golden_get(st, "aa", &content, &len), 1);
    CHECK_INT(len, n);
    CHECK(content && !memcmp(content, text, n));
    free(content);
    CHECK_INT(store_golden_begin(st, "aa", n, &w), 1); /* kept already */
    CHECK(w == NULL);
    /* short, then ended not ok: nothing kept under either name */
    CHECK_INT(store_golden_begin(st, "bb", n, &w), 0);
    CHECK_INT(store_golden_write(w, text, n - 1), 0);
    CHECK_INT(store_golden_end(w, 1), 0);
    CHECK_INT(store_golden_get(st, "bb", &content, &len), 0);
    CHECK_INT(store_golden_begin(st, "cc", n, &w), 0);
    CHECK_INT(store_golden_write(w, text, n), 0);
    CHECK_INT(store_golden_end(w, 0), 0);
    CHECK_INT(store_golden_get(st, "cc", &content, &len), 0);
    store_close(st);
}

static void test_trial_put_validation(void)
{
    struct store *st = fresh_store("valid.db");
    struct trial_result t;
    CHECK_INT(make_run(st, "r", "m"), 0);
    capture_start();
    make_trial(&t, "q", 1, 10001, 0, OUTCOME_CORRECT);
    /* each reason recorded for the command to print (store_errmsg), none printed */
    CHECK_INT(store_trial_put(st, "r", &t), -1);
    CHECK(strstr(store_errmsg(st), "depth 10001 bp out of range") != NULL);
    t.depth_bp = 0;
    CHECK_INT(store_trial_put(st, "ghost", &t), -1);
    CHECK(strstr(store_errmsg(st), "no run named 'ghost'") != NULL);
    free(t.question_id);
    t.question_id = NULL;
    CHECK_INT(store_trial_put(st, "r", &t), -1);
    CHECK(strstr(store_errmsg(st), "trial without a question id") != NULL);
    capture_stop();
    CHECK_STR(errs.buf, "");
    trial_result_release(&t);
    CHECK_INT(store_pending(st), 0);
    store_close(st);
}

static void test_upsert_no_duplicates(void)
{
    struct store *st = fresh_store("upsert.db");
    struct trial_result t, *v;
    size_t n;
    int i;
    CHECK_INT(make_run(st, "r", "m"), 0);
    CHECK_INT(make_run(st, "other", "m"), 0);
    /* a pending row, replaced by the resumed final result */
    make_trial(&t, "q", 8192, 5000, 0, OUTCOME_PENDING);
    CHECK_INT(store_trial_put(st, "r", &t), 0);
    CHECK_INT(store_trial_put(st, "other", &t), 0); /* same key, other run: separate row */
    CHECK_INT(store_flush(st), 0);
    for (i = 0; i < 3; i++) {
        t.outcome = i == 2 ? OUTCOME_WRONG : OUTCOME_CORRECT;
        t.attempts = 10 + i;
        CHECK_INT(store_trial_put(st, "r", &t), 0);
        CHECK_INT(store_flush(st), 0);
    }
    /* same key twice within one batch: the last wins */
    t.outcome = OUTCOME_CORRECT;
    t.attempts = 20;
    CHECK_INT(store_trial_put(st, "r", &t), 0);
    t.attempts = 21;
    CHECK_INT(store_trial_put(st, "r", &t), 0);
    CHECK_INT(store_flush(st), 0);
    /* a late pending write never downgrades a finished trial */
    t.outcome = OUTCOME_PENDING;
    t.attempts = 99;
    CHECK_INT(store_trial_put(st, "r", &t), 0);
    CHECK_INT(store_flush(st), 0);

    CHECK_INT(store_trials_load(st, "r", &v, &n), 0);
    CHECK_INT(n, 1);
    if (n == 1) {
        CHECK_INT(v[0].outcome, OUTCOME_CORRECT);
        CHECK_INT(v[0].attempts, 21);
    }
    store_trials_free(v, n);
    CHECK_INT(count_trials(st, "other"), 1);
    trial_result_release(&t);
    store_close(st);
}

static void test_done_set(void)
{
    struct store *st = fresh_store("done.db");
    struct store_done_set *d;
    struct trial_result t;
    struct trial_key k;
    int q, dep;
    char qid[32];
    CHECK_INT(make_run(st, "r", "m"), 0);
    for (q = 0; q < 50; q++)
        for (dep = 0; dep <= 10000; dep += 1000) {
            enum trial_outcome o = (q + dep / 1000) % 5 == 0   ? OUTCOME_PENDING
                                   : (q + dep / 1000) % 5 == 1 ? OUTCOME_ERROR
                                                               : OUTCOME_CORRECT;
            snprintf(qid, sizeof(qid), "q%03d", q);
            make_trial(&t, qid, 8192, dep, 0, o);
            CHECK_INT(store_trial_put(st, "r", &t), 0);
            trial_result_release(&t);
        }
    CHECK_INT(store_flush(st), 0);
    d = store_done_set_load(st, "r", 0);
    CHECK(d != NULL);
    CHECK_INT(store_done_set_count(d), 550 - 110 - 110);
    for (q = 0; q < 50; q++)
        for (dep = 0; dep <= 10000; dep += 1000) {
            int r = (q + dep / 1000) % 5;
            snprintf(qid, sizeof(qid), "q%03d", q);
            k.question_id = qid;
            k.length = 8192;
            k.depth_bp = dep;
            k.repeat = 0;
            k.axes = NULL;
            CHECK_INT(store_done_set_has(d, &k), r >= 2);
            k.axes = "";
            CHECK_INT(store_done_set_has(d, &k), r >= 2);
            /* another axis value of a done key is not done */
            k.axes = "needles=2";
            CHECK_INT(store_done_set_has(d, &k), 0);
            k.axes = NULL;
            k.repeat = 1;
            CHECK_INT(store_done_set_has(d, &k), 0);
            k.repeat = 0;
            k.length = 8193;
            CHECK_INT(store_done_set_has(d, &k), 0);
        }
    store_done_set_free(d);
    d = store_done_set_load(st, "r", STORE_DONE_KEEP_ERRORS);
    CHECK_INT(store_done_set_count(d), 550 - 110);
    store_done_set_free(d);
    d = store_done_set_load(st, "unknown-run", 0);
    CHECK(d != NULL);
    CHECK_INT(store_done_set_count(d), 0);
    store_done_set_free(d);
    store_close(st);
}

static void test_counts_and_prompts(void)
{
    struct store *st = fresh_store("cache.db");
    char sha[SHA256_HEX_LEN + 1], sha2[SHA256_HEX_LEN + 1], expect[SHA256_HEX_LEN + 1];
    char *text;
    size_t len;
    long c = 0;
    const char prompt[] = "system: be brief\0user: \"who\"?";
    struct strbuf out = STRBUF_INIT;

    CHECK_INT(store_count_get(st, "server:http://x/v1:m", "abc", &c), 0);
    CHECK_INT(store_count_put(st, "server:http://x/v1:m", "abc", 1234), 0);
    CHECK_INT(store_count_put(st, "cl100k_base", "abc", 999), 0);
    CHECK_INT(store_prompt_put(st, prompt, sizeof(prompt) - 1, sha), 0);
    CHECK_INT(store_prompt_put(st, prompt, sizeof(prompt) - 1, sha2), 0); /* deduplicated */
    CHECK_INT(store_pending(st), 1);
    sha256_hex(prompt, sizeof(prompt) - 1, expect);
    CHECK_STR(sha, expect);
    CHECK_STR(sha2, expect);
    CHECK_INT(store_close(st), 0);

    st = store_open(tpath("cache.db"), STORE_READWRITE);
    CHECK_INT(store_count_get(st, "server:http://x/v1:m", "abc", &c), 1);
    CHECK_INT(c, 1234);
    CHECK_INT(store_count_get(st, "cl100k_base", "abc", &c), 1);
    CHECK_INT(c, 999);
    CHECK_INT(store_prompt_put(st, prompt, sizeof(prompt) - 1, NULL), 0); /* already stored */
    CHECK_INT(store_flush(st), 0);
    CHECK_INT(store_prompt_get(st, expect, &text, &len), 1);
    CHECK_INT(len, sizeof(prompt) - 1);
    CHECK(text && !memcmp(text, prompt, len));
    free(text);
    CHECK_INT(store_prompt_get(st, "0000", &text, &len), 0);
    CHECK_INT(store_close(st), 0);
    /* a read-only store keeps new counts in memory (base/hashmap.h): found again, the first
     * of a repeated key kept, the file's counts still read, a miss still a miss */
    st = store_open(tpath("cache.db"), STORE_READONLY);
    for (int i = 0; i < 300; i++) {
        char h[32];
        snprintf(h, sizeof(h), "h%d", i);
        CHECK_INT(store_count_put(st, "mem", h, i), 0);
    }
    CHECK_INT(store_count_put(st, "mem", "h7", 70), 0);
    for (int i = 0; i < 300; i += 37) {
        char h[32];
        snprintf(h, sizeof(h), "h%d", i);
        CHECK_INT(store_count_get(st, "mem", h, &c), 1);
        CHECK_INT(c, i);
    }
    CHECK_INT(store_count_get(st, "mem", "h7", &c), 1);
    CHECK_INT(c, 7);
    CHECK_INT(store_count_get(st, "mem", "h300", &c), 0);
    CHECK_INT(store_count_get(st, "cl100k_base", "abc", &c), 1);
    CHECK_INT(c, 999);
    store_close(st);
    if (proc_available("sqlite3")) {
        CHECK_INT(sqlite_cli(tpath("cache.db"), "SELECT count(*) FROM prompts", &out), 0);
        CHECK_STR(out.buf, "1\n");
    }
    /* read-only handles remember counts in memory */
    st = store_open(tpath("cache.db"), STORE_READONLY);
    CHECK_INT(store_count_put(st, "t", "h", 5), 0);
    CHECK_INT(store_count_get(st, "t", "h", &c), 1);
    CHECK_INT(c, 5);
    store_close(st);
    strbuf_release(&out);
}

/* ---- multi-process ------------------------------------------------------- */

static void wait_child(pid_t pid, int *code)
{
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    *code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void test_lock_between_processes(void)
{
    struct store *st = fresh_store("lock.db");
    int to_parent[2], to_child[2], code, rc;
    pid_t pid;
    char c;

    CHECK_INT(make_run(st, "r", "m"), 0);
    CHECK_INT(make_run(st, "other", "m"), 0);
    store_close(st);
    CHECK_INT(pipe(to_parent), 0);
    CHECK_INT(pipe(to_child), 0);
    pid = fork();
    if (pid == 0) {
        struct store *cs = store_open(tpath("lock.db"), STORE_READWRITE);
        int ok = cs && store_run_lock(cs, "r", 0) == 0;
        c = ok ? 'L' : 'F';
        if (write(to_parent[1], &c, 1) != 1)
            _exit(3);
        if (read(to_child[0], &c, 1) != 1) /* wait for the parent */
            _exit(3);
        if (c == 'U') {
            store_close(cs); /* releases the lock */
            c = 'D';
            if (write(to_parent[1], &c, 1) != 1)
                _exit(3);
            _exit(0);
        }
        pause(); /* killed by the parent */
        _exit(0);
    }
    CHECK_INT(read(to_parent[0], &c, 1), 1);
    CHECK_INT(c, 'L');
    st = store_open(tpath("lock.db"), STORE_READWRITE);
    capture_start();
    rc = store_run_lock(st, "r", 0);
    capture_stop();
    CHECK_INT(rc, STORE_ELOCKED);
    {
        struct strbuf want = STRBUF_INIT;
        strbuf_addf(&want, "run 'r' is in use by pid %ld on host ", (long)pid);
        CHECK(strstr(errs.buf, want.buf) != NULL);
        strbuf_release(&want);
    }
    /* a different run in the same database is independent */
    CHECK_INT(store_run_lock(st, "other", 0), 0);
    CHECK_INT(store_run_lock(st, "other", 0), 0); /* re-taking our own lock is fine */
    /* the holder exits cleanly: the lock is free again */
    c = 'U';
    CHECK_INT(write(to_child[1], &c, 1), 1);
    CHECK_INT(read(to_parent[0], &c, 1), 1);
    wait_child(pid, &code);
    CHECK_INT(code, 0);
    CHECK_INT(store_run_lock(st, "r", 0), 0);
    CHECK_INT(store_run_unlock(st, "r"), 0);
    store_close(st);

    /* the holder dies (kill -9): its dead pid makes the lock stale at once */
    pid = fork();
    if (pid == 0) {
        struct store *cs = store_open(tpath("lock.db"), STORE_READWRITE);
        c = cs && store_run_lock(cs, "r", 0) == 0 ? 'L' : 'F';
        if (write(to_parent[1], &c, 1) != 1)
            _exit(3);
        pause();
        _exit(0);
    }
    CHECK_INT(read(to_parent[0], &c, 1), 1);
    CHECK_INT(c, 'L');
    st = store_open(tpath("lock.db"), STORE_READWRITE);
    capture_start();
    CHECK_INT(store_run_lock(st, "r", 0), STORE_ELOCKED);
    kill(pid, SIGKILL);
    wait_child(pid, &code);
    CHECK_INT(code, 128 + SIGKILL);
    strbuf_reset(&errs);
    CHECK_INT(store_run_lock(st, "r", 0), 0);
    CHECK(strstr(errs.buf, "taking over the lock") != NULL);
    CHECK(strstr(errs.buf, "process is gone") != NULL);
    capture_stop();
    store_close(st);

    /* a live holder whose heartbeat is old: taken over after stale_seconds */
    pid = fork();
    if (pid == 0) {
        struct store *cs = store_open(tpath("lock.db"), STORE_READWRITE);
        c = cs && store_run_lock(cs, "r", 0) == 0 ? 'L' : 'F';
        if (write(to_parent[1], &c, 1) != 1)
            _exit(3);
        if (read(to_child[0], &c, 1) != 1)
            _exit(3);
        /* it then notices the loss on its next heartbeat */
        capture_start();
        c = store_run_heartbeat(cs) == -1 && strstr(errs.buf, "lost its lock") ? 'G' : 'B';
        capture_stop();
        if (write(to_parent[1], &c, 1) != 1)
            _exit(3);
        _exit(0);
    }
    CHECK_INT(read(to_parent[0], &c, 1), 1);
    CHECK_INT(c, 'L');
    st = store_open(tpath("lock.db"), STORE_READWRITE);
    capture_start();
    CHECK_INT(store_run_lock(st, "r", 5), STORE_ELOCKED);
    sleep(2);
    strbuf_reset(&errs);
    CHECK_INT(store_run_lock(st, "r", 1), 0);
    CHECK(strstr(errs.buf, "no heartbeat for") != NULL);
    capture_stop();
    c = 'H';
    CHECK_INT(write(to_child[1], &c, 1), 1);
    CHECK_INT(read(to_parent[0], &c, 1), 1);
    CHECK_INT(c, 'G');
    wait_child(pid, &code);
    CHECK_INT(code, 0);
    store_close(st);
    close(to_parent[0]);
    close(to_parent[1]);
    close(to_child[0]);
    close(to_child[1]);
}

/* Child body: write `n` trials of `run` in batches of `batch`, flushing each. */
static int write_trials(const char *path, const char *run, int n, int batch)
{
    struct store *st = store_open(path, STORE_READWRITE);
    struct trial_result t;
    char qid[32];
    int i;
    if (!st)
        return 1;
    if (store_run_lock(st, run, 0))
        return 2;
    for (i = 0; i < n; i++) {
        snprintf(qid, sizeof(qid), "q%05d", i);
        make_trial(&t, qid, 8192, i % 11 * 1000, 0, OUTCOME_CORRECT);
        if (store_trial_put(st, run, &t))
            return 3;
        trial_result_release(&t);
        if ((i + 1) % batch == 0 && store_flush(st))
            return 4;
    }
    return store_close(st) ? 5 : 0;
}

static void test_two_writers_one_database(void)
{
    struct store *st = fresh_store("two.db");
    pid_t p1, p2;
    int c1, c2;
    CHECK_INT(make_run(st, "one", "m"), 0);
    CHECK_INT(make_run(st, "two", "m"), 0);
    store_close(st);
    p1 = fork();
    if (p1 == 0)
        _exit(write_trials(tpath("two.db"), "one", 3000, 10));
    p2 = fork();
    if (p2 == 0)
        _exit(write_trials(tpath("two.db"), "two", 3000, 10));
    wait_child(p1, &c1);
    wait_child(p2, &c2);
    CHECK_INT(c1, 0);
    CHECK_INT(c2, 0);
    st = store_open(tpath("two.db"), STORE_READONLY);
    CHECK_INT(count_trials(st, "one"), 3000);
    CHECK_INT(count_trials(st, "two"), 3000);
    CHECK_INT(store_integrity_check(st), 0);
    store_close(st);
}

static void test_reader_sees_whole_batches(void)
{
    struct store *st = fresh_store("reader.db");
    pid_t pid;
    int code, reads = 0, bad = 0;
    long last = 0;
    CHECK_INT(make_run(st, "r", "m"), 0);
    store_close(st);
    pid = fork();
    if (pid == 0)
        _exit(write_trials(tpath("reader.db"), "r", 4000, 50));
    st = store_open(tpath("reader.db"), STORE_READONLY);
    for (;;) {
        struct run_info r;
        long n;
        int done = waitpid(pid, &code, WNOHANG) == pid;
        n = count_trials(st, "r");
        if (store_run_get(st, "r", &r) == 0) {
            /* a batch is all or nothing; counts never go backwards */
            if (r.trials_stored % 50 != 0 || r.trials_stored < last)
                bad++;
            last = r.trials_stored;
            run_info_release(&r);
        }
        if (n % 50 != 0)
            bad++;
        reads++;
        if (done) {
            code = WIFEXITED(code) ? WEXITSTATUS(code) : 128 + WTERMSIG(code);
            break;
        }
    }
    CHECK_INT(code, 0);
    CHECK_INT(bad, 0);
    CHECK(reads > 1);
    CHECK_INT(count_trials(st, "r"), 4000);
    store_close(st);
}

static void test_kill9_loses_only_unflushed(void)
{
    struct store *st = fresh_store("crash.db");
    int fds[2], code, round;
    pid_t pid;
    char c;
    CHECK_INT(make_run(st, "r", "m"), 0);
    store_close(st);
    CHECK_INT(pipe(fds), 0);

    /* exact: 7 flushed batches of 100, then 60 buffered, then kill -9 */
    pid = fork();
    if (pid == 0) {
        struct store *cs = store_open(tpath("crash.db"), STORE_READWRITE);
        struct trial_result t;
        char qid[32];
        int i;
        if (!cs || store_run_lock(cs, "r", 0))
            _exit(1);
        for (i = 0; i < 760; i++) {
            snprintf(qid, sizeof(qid), "q%05d", i);
            make_trial(&t, qid, 8192, 5000, 0, OUTCOME_WRONG);
            store_trial_put(cs, "r", &t);
            trial_result_release(&t);
            if ((i + 1) % 100 == 0 && store_flush(cs))
                _exit(2);
        }
        c = 'R';
        if (write(fds[1], &c, 1) != 1)
            _exit(3);
        pause();
        _exit(0);
    }
    CHECK_INT(read(fds[0], &c, 1), 1);
    kill(pid, SIGKILL);
    wait_child(pid, &code);
    CHECK_INT(code, 128 + SIGKILL);
    st = store_open(tpath("crash.db"), STORE_READWRITE);
    CHECK(st != NULL);
    if (!st)
        return;
    CHECK_INT(store_integrity_check(st), 0);
    CHECK_INT(count_trials(st, "r"), 700);
    /* the dead writer's lock does not block a resume */
    capture_start();
    CHECK_INT(store_run_lock(st, "r", 0), 0);
    capture_stop();
    CHECK(strstr(errs.buf, "process is gone") != NULL);
    store_close(st);

    /* kill at an arbitrary moment while batches are being committed */
    for (round = 0; round < 3; round++) {
        long n;
        pid = fork();
        if (pid == 0) {
            struct store *cs = store_open(tpath("crash.db"), STORE_READWRITE);
            struct trial_result t;
            char qid[32];
            int i;
            if (!cs)
                _exit(1);
            for (i = 0;; i++) {
                snprintf(qid, sizeof(qid), "k%d-%07d", round, i);
                make_trial(&t, qid, 8192, 0, 0, OUTCOME_CORRECT);
                free(t.answer);
                t.answer = xstrdup("a fairly long answer text to make each batch take a while "
                                   "to write out to the database file");
                store_trial_put(cs, "r", &t);
                trial_result_release(&t);
                if ((i + 1) % 200 == 0) {
                    if (store_flush(cs))
                        _exit(2);
                    if (i + 1 == 1000) {
                        c = 'R';
                        if (write(fds[1], &c, 1) != 1)
                            _exit(3);
                    }
                }
            }
        }
        CHECK_INT(read(fds[0], &c, 1), 1);
        usleep(1000 * (unsigned)(3 + round * 7));
        kill(pid, SIGKILL);
        wait_child(pid, &code);
        CHECK_INT(code, 128 + SIGKILL);
        st = store_open(tpath("crash.db"), STORE_READWRITE);
        CHECK(st != NULL);
        if (!st)
            return;
        CHECK_INT(store_integrity_check(st), 0);
        n = count_trials(st, "r") - 700 - round * 0;
        /* only whole batches, at least the 1000 acknowledged ones */
        {
            struct trial_result *v;
            size_t nv, i;
            long mine = 0;
            char prefix[16];
            snprintf(prefix, sizeof(prefix), "k%d-", round);
            store_trials_load(st, "r", &v, &nv);
            for (i = 0; i < nv; i++)
                if (!strncmp(v[i].question_id, prefix, strlen(prefix)))
                    mine++;
            store_trials_free(v, nv);
            CHECK(mine >= 1000);
            CHECK_INT(mine % 200, 0);
        }
        (void)n;
        store_close(st);
    }
    close(fds[0]);
    close(fds[1]);
}

/* ---- merge --------------------------------------------------------------- */

static void make_shard(const char *file, const char *shard, int part, int nparts, int total)
{
    struct store *st = fresh_store(file);
    struct run_info r;
    struct trial_result t;
    char qid[32];
    int i;
    fill_run(&r, "big", "m");
    r.shard = shard ? xstrdup(shard) : NULL;
    r.status = RUN_COMPLETE;
    r.trials_planned = total / nparts;
    CHECK_INT(store_run_create(st, &r), 0);
    run_info_release(&r);
    for (i = 0; i < total; i++) {
        if (i % nparts != part)
            continue;
        snprintf(qid, sizeof(qid), "q%04d", i);
        make_trial(&t, qid, 8192, (i * 37) % 10001, i % 3, i % 4 ? OUTCOME_CORRECT : OUTCOME_WRONG);
        CHECK_INT(store_trial_put(st, "big", &t), 0);
        trial_result_release(&t);
    }
    CHECK_INT(store_prompt_put(st, shard ? shard : "whole", strlen(shard ? shard : "whole"), NULL),
              0);
    CHECK_INT(store_count_put(st, "tok", shard ? shard : "whole", part), 0);
    CHECK_INT(store_close(st), 0);
}

static void test_merge_union(void)
{
    const char *ins[2];
    struct store *st;
    struct trial_result *whole, *merged;
    size_t nw, nm, i;
    struct run_info r;
    char *text;
    size_t len;
    long c;

    make_shard("shard0.db", "0/2", 0, 2, 300);
    make_shard("shard1.db", "1/2", 1, 2, 300);
    make_shard("whole.db", NULL, 0, 1, 300);
    ins[0] = tpath("shard0.db");
    ins[1] = tpath("shard1.db");
    unlink(tpath("merged.db"));
    CHECK_INT(store_merge(tpath("merged.db"), ins, 2), 0);

    st = store_open(tpath("whole.db"), STORE_READONLY);
    CHECK_INT(store_trials_load(st, "big", &whole, &nw), 0);
    store_close(st);
    st = store_open(tpath("merged.db"), STORE_READONLY);
    CHECK_INT(store_trials_load(st, "big", &merged, &nm), 0);
    CHECK_INT(nm, 300);
    CHECK_INT(nw, nm);
    for (i = 0; i < nm && i < nw; i++) {
        CHECK_STR(merged[i].question_id, whole[i].question_id);
        CHECK_INT(merged[i].depth_bp, whole[i].depth_bp);
        CHECK_INT(merged[i].repeat, whole[i].repeat);
        CHECK_INT(merged[i].outcome, whole[i].outcome);
    }
    CHECK_INT(store_run_get(st, "big", &r), 0);
    CHECK_INT(r.trials_planned, 300);
    CHECK_INT(r.trials_done, 300);
    CHECK_INT(r.status, RUN_COMPLETE);
    CHECK(r.shard == NULL);
    run_info_release(&r);
    CHECK_INT(store_prompt_get(st, "x", &text, &len), 0);
    {
        char sha[SHA256_HEX_LEN + 1];
        sha256_hex("1/2", 3, sha);
        CHECK_INT(store_prompt_get(st, sha, &text, &len), 1);
        free(text);
    }
    CHECK_INT(store_count_get(st, "tok", "1/2", &c), 1);
    CHECK_INT(c, 1);
    CHECK_INT(store_integrity_check(st), 0);
    store_close(st);
    store_trials_free(whole, nw);
    store_trials_free(merged, nm);

    /* merging the same shard again adds nothing and counts it once */
    capture_start();
    ins[0] = tpath("shard0.db");
    CHECK_INT(store_merge(tpath("merged.db"), ins, 1), 0);
    capture_stop();
    CHECK(strstr(errs.buf, "150 trial(s) were present in more than one input") != NULL);
    st = store_open(tpath("merged.db"), STORE_READONLY);
    CHECK_INT(count_trials(st, "big"), 300);
    CHECK_INT(store_run_get(st, "big", &r), 0);
    CHECK_INT(r.trials_planned, 300);
    run_info_release(&r);
    store_close(st);

    /* one shard alone: planned is its share, the label says which */
    unlink(tpath("half.db"));
    ins[0] = tpath("shard1.db");
    CHECK_INT(store_merge(tpath("half.db"), ins, 1), 0);
    st = store_open(tpath("half.db"), STORE_READONLY);
    CHECK_INT(store_run_get(st, "big", &r), 0);
    CHECK_INT(r.trials_planned, 150);
    CHECK_STR(r.shard, "1/2");
    run_info_release(&r);
    store_close(st);
}

static void test_merge_refuses_different_runs(void)
{
    const char *ins[2];
    struct store *st;
    struct run_info r;
    size_t n;
    struct run_info *v;

    make_shard("a.db", "0/2", 0, 2, 20);
    st = fresh_store("b.db");
    fill_run(&r, "big", "m");
    free(r.golden_sha256);
    r.golden_sha256 = xstrdup("different");
    r.shard = xstrdup("1/2");
    CHECK_INT(store_run_create(st, &r), 0);
    run_info_release(&r);
    store_close(st);
    ins[0] = tpath("a.db");
    ins[1] = tpath("b.db");
    unlink(tpath("refused.db"));
    capture_start();
    CHECK_INT(store_merge(tpath("refused.db"), ins, 2), STORE_EMISMATCH);
    capture_stop();
    CHECK(strstr(errs.buf, "golden_sha256 differs") != NULL);
    CHECK(strstr(errs.buf, "refusing to merge shards of different runs") != NULL);
    CHECK(strstr(errs.buf, "a.db") != NULL && strstr(errs.buf, "b.db") != NULL);
    /* nothing was written */
    st = store_open(tpath("refused.db"), STORE_READONLY);
    if (st) {
        CHECK_INT(store_run_list(st, NULL, &v, &n), 0);
        CHECK_INT(n, 0);
        run_info_list_free(v, n);
        store_close(st);
    }
    /* output equal to an input, missing input */
    capture_start();
    CHECK_INT(store_merge(tpath("a.db"), ins, 1), -1);
    CHECK(strstr(errs.buf, "both the output and an input") != NULL);
    ins[0] = tpath("missing.db");
    CHECK_INT(store_merge(tpath("refused.db"), ins, 1), -1);
    CHECK(strstr(errs.buf, "missing.db: no such database") != NULL);
    capture_stop();
}

static void test_same_inputs(void)
{
    struct store *st = fresh_store("same.db");
    struct run_info stored, want;
    const char *field = "x";
    CHECK_INT(make_run(st, "r", "m"), 0);
    CHECK_INT(store_run_get(st, "r", &stored), 0);
    /* the caller's settings in another key order (the stored form is canonical) */
    fill_run(&want, "r", "m");
    free(want.settings_json);
    want.settings_json =
        xstrdup("{\"depths\": \"0:100:10\", \"temperature\": 0, \"max-tokens\": 64,"
                " \"api-key-env\": \"OPENAI_API_KEY\"}");
    free(want.endpoints);
    want.endpoints = xstrdup("http://replica-2:8000/v1"); /* not part of identity */
    CHECK_INT(run_identity_same_run(&stored, &want, &field, NULL), 1);
    CHECK(field == NULL);
    free(want.settings_json);
    want.settings_json = xstrdup("{\"depths\":\"0:100:10\",\"temperature\":0.7,\"max-tokens\":64,"
                                 "\"api-key-env\":\"OPENAI_API_KEY\"}");
    CHECK_INT(run_identity_same_run(&stored, &want, &field, NULL), 0);
    CHECK_STR(field, "settings_json");
    free(want.template_sha256);
    want.template_sha256 = xstrdup("changed");
    CHECK_INT(run_identity_same_run(&stored, &want, &field, NULL), 0);
    CHECK_STR(field, "template_sha256");
    free(want.haystack_sha256);
    want.haystack_sha256 = NULL;
    CHECK_INT(run_identity_same_run(&stored, &want, &field, NULL), 0);
    CHECK_STR(field, "haystack_sha256");
    run_info_release(&want);
    run_info_release(&stored);
    store_close(st);
}

static void test_run_liveness(void)
{
    struct store *st = fresh_store("live.db"), *other;
    struct run_info r;
    int fds[2], code;
    pid_t pid;
    char c;
    CHECK_INT(make_run(st, "r", "m"), 0);
    CHECK_INT(store_run_get(st, "r", &r), 0);
    CHECK_INT(run_info_is_live(&r), 0); /* status running, nobody holds it: stalled */
    CHECK_INT(r.lock_pid, 0);
    run_info_release(&r);
    CHECK_INT(store_run_lock(st, "r", 0), 0);
    other = store_open(tpath("live.db"), STORE_READONLY);
    CHECK_INT(store_run_get(other, "r", &r), 0);
    CHECK_INT(run_info_is_live(&r), 1);
    CHECK_INT(r.lock_pid, getpid());
    CHECK(r.lock_host != NULL && r.lock_heartbeat > 0);
    run_info_release(&r);
    CHECK_INT(store_run_unlock(st, "r"), 0);
    CHECK_INT(store_run_get(other, "r", &r), 0);
    CHECK_INT(run_info_is_live(&r), 0);
    run_info_release(&r);
    /* held by a process that is then killed: no longer live */
    CHECK_INT(pipe(fds), 0);
    pid = fork();
    if (pid == 0) {
        struct store *cs = store_open(tpath("live.db"), STORE_READWRITE);
        c = cs && store_run_lock(cs, "r", 0) == 0 ? 'L' : 'F';
        if (write(fds[1], &c, 1) != 1)
            _exit(3);
        pause();
        _exit(0);
    }
    CHECK_INT(read(fds[0], &c, 1), 1);
    CHECK_INT(store_run_get(other, "r", &r), 0);
    CHECK_INT(run_info_is_live(&r), 1);
    CHECK_INT(r.lock_pid, pid);
    run_info_release(&r);
    kill(pid, SIGKILL);
    wait_child(pid, &code);
    CHECK_INT(store_run_get(other, "r", &r), 0);
    CHECK_INT(run_info_is_live(&r), 0);
    run_info_release(&r);
    close(fds[0]);
    close(fds[1]);
    store_close(other);
    store_close(st);
}

static void test_default_path(void)
{
    unsetenv(DIPMAP_DB_ENV);
    CHECK_STR(store_default_path(NULL), DIPMAP_DEFAULT_DB);
    CHECK_STR(store_default_path("x.db"), "x.db");
    setenv(DIPMAP_DB_ENV, "/tmp/env.db", 1);
    CHECK_STR(store_default_path(NULL), "/tmp/env.db");
    CHECK_STR(store_default_path("x.db"), "x.db");
    unsetenv(DIPMAP_DB_ENV);
}

/*
 * `test_store --fixtures DIR`: write the databases the CLI tests (tests/cli/5xx)
 * read, through the store API: runs.db (three runs), shard0/1.db (two shards of
 * run "big"), other-run.db (a run "big" with a different golden set).
 */
static int make_fixtures(const char *dir)
{
    struct store *st;
    struct run_info r;
    struct trial_result t;
    int i;
    snprintf(tmpdir, sizeof(tmpdir), "%s", dir);
    st = fresh_store("runs.db");
    if (!st)
        return 1;
    fill_run(&r, "llama-nightly-1", "llama-3-8b");
    r.created_at = 1764460800; /* 2025-11-30 00:00:00Z */
    r.tags = xstrdup("nightly");
    r.status = RUN_COMPLETE;
    r.trials_planned = 4;
    store_run_create(st, &r);
    run_info_release(&r);
    fill_run(&r, "gpt-ci", "gpt-4o-mini");
    r.created_at = 1764547200.9; /* 2025-12-01 00:00:00Z */
    r.status = RUN_INTERRUPTED;
    r.trials_planned = 8;
    store_run_create(st, &r);
    run_info_release(&r);
    store_run_set_served(st, "gpt-ci", "gpt-4o-mini-2024-07-18", "fp_x");
    fill_run(&r, "llama-nightly-2", "llama-3-8b");
    r.created_at = 1764633600; /* 2025-12-02 00:00:00Z */
    r.tags = xstrdup("nightly,gpu");
    r.status = RUN_RUNNING;
    r.trials_planned = 0;
    store_run_create(st, &r);
    run_info_release(&r);
    for (i = 0; i < 4; i++) {
        make_trial(&t, "q1", 8192, i * 2500, 0, i == 3 ? OUTCOME_WRONG : OUTCOME_CORRECT);
        store_trial_put(st, "llama-nightly-1", &t);
        t.outcome = i < 2 ? OUTCOME_CORRECT : OUTCOME_PENDING;
        store_trial_put(st, "gpt-ci", &t);
        trial_result_release(&t);
    }
    if (store_close(st))
        return 1;
    make_shard("shard0.db", "0/2", 0, 2, 300);
    make_shard("shard1.db", "1/2", 1, 2, 300);
    st = fresh_store("other-run.db");
    fill_run(&r, "big", "m");
    free(r.golden_sha256);
    r.golden_sha256 = xstrdup("another-golden-set");
    r.shard = xstrdup("1/2");
    store_run_create(st, &r);
    run_info_release(&r);
    if (store_close(st))
        return 1;
    return test_total_failed_ || test_failed_ ? 1 : 0;
}

int main(int argc, char **argv)
{
    const char *base = getenv("TMPDIR");
    if (argc == 3 && !strcmp(argv[1], "--fixtures"))
        return make_fixtures(argv[2]);
    snprintf(tmpdir, sizeof(tmpdir), "%s/dipmap-store.XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    RUN(test_create_schema);
    RUN(test_migration_v1_to_v2);
    RUN(test_migration_v2_to_v3);
    RUN(test_migration_v3_to_v4);
    RUN(test_migration_v4_to_v5);
    RUN(test_migration_v5_to_v6);
    RUN(test_run_schedules);
    RUN(test_migration_v9_to_v10);
    RUN(test_migration_v10_to_v11);
    RUN(test_migration_v11_to_v12);
    RUN(test_newer_schema_refused);
    RUN(test_errors_missing_corrupt);
    RUN(test_readonly_refuses_writes);
    RUN(test_runs_create_get_list);
    RUN(test_secrets_refused);
    RUN(test_trial_roundtrip);
    RUN(test_trial_columns_match_schema);
    RUN(test_optional_columns_null);
    RUN(test_points_and_answers);
    RUN(test_golden_streamed);
    RUN(test_trial_put_validation);
    RUN(test_upsert_no_duplicates);
    RUN(test_done_set);
    RUN(test_counts_and_prompts);
    RUN(test_lock_between_processes);
    RUN(test_two_writers_one_database);
    RUN(test_reader_sees_whole_batches);
    RUN(test_kill9_loses_only_unflushed);
    RUN(test_merge_union);
    RUN(test_merge_refuses_different_runs);
    RUN(test_same_inputs);
    RUN(test_run_liveness);
    RUN(test_default_path);
    if (!test_total_failed_) {
        const char *rm_argv[] = {"rm", "-rf", tmpdir, NULL};
        int status;
        proc_run(rm_argv, NULL, 0, NULL, NULL, &status);
    } else {
        fprintf(stderr, "  files kept in %s\n", tmpdir);
    }
    strbuf_release(&errs);
    return TEST_EXIT();
}

/*
 * The run store on SQLite: opening a store, the schema and its forward
 * migrations, the prepared statements, transactions and the helpers the
 * other store files share (store-int.h). Runs and locks are store_run.c,
 * trials, counts and prompts store_trial.c, the merge of shard stores
 * store_merge.c. Every statement with data in it is prepared and bound,
 * only constant DDL is exec'd.
 */
#include "store/store.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store-int.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/usage.h"
#include "base/xalloc.h"
#include "base/utc.h"

#include "base/banned.h"

/* PRAGMA application_id of a dipmap store: "DIPM". */
#define STORE_APP_ID          0x4449504d
#define STORE_BUSY_TIMEOUT_MS 30000

/*
 * The trials columns of schema versions 2-5, as migration 6 copies them (frozen: today's columns
 * are store-int.h's TRIAL_COLUMNS).
 */
#define TRIAL_COLS_V2                                                                              \
    "question_id, length, depth_bp, repeat, prompt_sha256, realized_length,"                       \
    " usage_prompt_tokens, realized_depth, gold_offset, outcome, http_status, attempts,"           \
    " latency_ms, completion_tokens, finish_reason, answer, reasoning, score, error, finished_at"
#define TRIAL_COLS_V3                                                                              \
    TRIAL_COLS_V2 ", cut, reasoning_tokens, reasoning_chars, request_sha256, reused_from"
#define TRIAL_COLS_V4 TRIAL_COLS_V3 ", cache_n, prompt_n, prompt_ms"
#define TRIAL_COLS_V5 TRIAL_COLS_V4 ", cached_tokens, sent_at"

/*
 * The columns of the version-1 trials table, which migration 6's rebuild keeps first: one text
 * in both migrations, each of which stays byte for byte as it ran (frozen, like TRIAL_COLS_V2).
 */
#define TRIALS_V1_COLUMNS                                                                          \
    " run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"                              \
    " question_id TEXT NOT NULL,"                                                                  \
    " length INTEGER NOT NULL,"                                                                    \
    " depth_bp INTEGER NOT NULL,"                                                                  \
    " repeat INTEGER NOT NULL,"                                                                    \
    " prompt_sha256 TEXT,"                                                                         \
    " realized_length INTEGER,"                                                                    \
    " usage_prompt_tokens INTEGER,"                                                                \
    " realized_depth REAL,"                                                                        \
    " gold_offset INTEGER,"                                                                        \
    " outcome TEXT NOT NULL,"                                                                      \
    " http_status INTEGER,"                                                                        \
    " attempts INTEGER,"                                                                           \
    " latency_ms REAL,"                                                                            \
    " completion_tokens INTEGER,"                                                                  \
    " finish_reason TEXT,"                                                                         \
    " answer TEXT,"                                                                                \
    " reasoning TEXT,"                                                                             \
    " score REAL,"                                                                                 \
    " error TEXT,"                                                                                 \
    " finished_at REAL,"

/*
 * Forward migrations: entry i takes the schema from version i to i + 1. Append
 * a new entry (and bump STORE_SCHEMA_VERSION) to change the schema; never edit
 * an entry that has shipped, nor the texts above that shipped entries are made of.
 */
static const char *const migrations[] = {
    /* 0 -> 1: runs, trials, locks */
    "CREATE TABLE runs ("
    " id INTEGER PRIMARY KEY,"
    " name TEXT NOT NULL UNIQUE,"
    " model_requested TEXT NOT NULL,"
    " model_served TEXT,"
    " endpoints TEXT,"
    " system_fingerprint TEXT,"
    " settings_json TEXT,"
    " golden_sha256 TEXT,"
    " haystack_sha256 TEXT,"
    " template_sha256 TEXT,"
    " tokenizer_name TEXT,"
    " tokenizer_sha256 TEXT,"
    " dipmap_version TEXT,"
    " dipmap_commit TEXT,"
    " created_at REAL NOT NULL,"
    " started_at REAL,"
    " finished_at REAL,"
    " status TEXT NOT NULL,"
    " trials_planned INTEGER NOT NULL DEFAULT 0);"
    "CREATE TABLE trials (" TRIALS_V1_COLUMNS
    " PRIMARY KEY (run_id, question_id, length, depth_bp, repeat));"
    "CREATE TABLE locks ("
    " run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,"
    " pid INTEGER NOT NULL,"
    " host TEXT NOT NULL,"
    " token TEXT NOT NULL,"
    " acquired_at REAL NOT NULL,"
    " heartbeat_at REAL NOT NULL);",
    /* 1 -> 2: run tags and shard, token-count cache, stored prompts */
    "ALTER TABLE runs ADD COLUMN tags TEXT;"
    "ALTER TABLE runs ADD COLUMN shard TEXT;"
    "CREATE INDEX runs_created ON runs(created_at, name);"
    "CREATE TABLE token_counts ("
    " tokenizer TEXT NOT NULL,"
    " text_sha256 TEXT NOT NULL,"
    " count INTEGER NOT NULL,"
    " PRIMARY KEY (tokenizer, text_sha256)) WITHOUT ROWID;"
    "CREATE TABLE prompts ("
    " sha256 TEXT PRIMARY KEY,"
    " text TEXT NOT NULL);",
    /*
     * 2 -> 3: reasoning and budget per trial, the request hash (run --reuse),
     * where a reused answer came from; the scorer that scored a run; golden
     * sets content-addressed (report and rescore need no --dataset)
     */
    "ALTER TABLE trials ADD COLUMN cut INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE trials ADD COLUMN reasoning_tokens INTEGER;"
    "ALTER TABLE trials ADD COLUMN reasoning_chars INTEGER;"
    "ALTER TABLE trials ADD COLUMN request_sha256 TEXT;"
    "ALTER TABLE trials ADD COLUMN reused_from TEXT;"
    "CREATE INDEX trials_request ON trials(request_sha256);"
    "ALTER TABLE runs ADD COLUMN scorer_version TEXT;"
    "CREATE TABLE golden_sets ("
    " sha256 TEXT PRIMARY KEY,"
    " content BLOB NOT NULL);",
    /* 3 -> 4: the server's prompt-cache timings per trial (llama.cpp "timings") */
    "ALTER TABLE trials ADD COLUMN cache_n INTEGER;"
    "ALTER TABLE trials ADD COLUMN prompt_n INTEGER;"
    "ALTER TABLE trials ADD COLUMN prompt_ms REAL;",
    /*
     * 4 -> 5: prompt tokens the server says it took from its prefix cache
     * (usage.prompt_tokens_details.cached_tokens: OpenAI, vLLM, SGLang, newer llama.cpp) and
     * when the final attempt was sent (the schedule's send order: run --schedule)
     */
    "ALTER TABLE trials ADD COLUMN cached_tokens INTEGER;"
    "ALTER TABLE trials ADD COLUMN sent_at REAL;",
    /*
     * 5 -> 6: named axes (axes.h) join the trial key. SQLite cannot change a
     * primary key in place, so the table is rebuilt with every column kept;
     * existing trials get axes '' (no extra axes).
     */
    "CREATE TABLE trials_v6 (" TRIALS_V1_COLUMNS " cut INTEGER NOT NULL DEFAULT 0,"
    " reasoning_tokens INTEGER,"
    " reasoning_chars INTEGER,"
    " request_sha256 TEXT,"
    " reused_from TEXT,"
    " cache_n INTEGER,"
    " prompt_n INTEGER,"
    " prompt_ms REAL,"
    " cached_tokens INTEGER,"
    " sent_at REAL,"
    " axes TEXT NOT NULL DEFAULT '',"
    " PRIMARY KEY (run_id, question_id, length, depth_bp, repeat, axes));"
    "INSERT INTO trials_v6 (run_id, " TRIAL_COLS_V5 ") SELECT run_id, " TRIAL_COLS_V5
    " FROM trials;"
    "DROP TABLE trials;"
    "ALTER TABLE trials_v6 RENAME TO trials;"
    "CREATE INDEX trials_request ON trials(request_sha256);",
    /*
     * 6 -> 7: the send schedules a run used (run --schedule), comma-separated in the order
     * its invocations first used them ("plan,cache" after a resume changed it)
     */
    "ALTER TABLE runs ADD COLUMN schedules TEXT;",
    /* 7 -> 8: dipmap gate's rounds, one row each, the round's state as JSON (store_gate.c) */
    "CREATE TABLE gate_rounds ("
    " gate TEXT NOT NULL,"
    " round INTEGER NOT NULL,"
    " state_json TEXT NOT NULL,"
    " created_at REAL,"
    " PRIMARY KEY (gate, round));",
    /*
     * 8 -> 9: the trials of the whole matrix, all shards (trials_planned is the shard's share),
     * so a shard or a partial merge reads 240/360, not 240/240; NULL before schema 9
     */
    "ALTER TABLE runs ADD COLUMN matrix_planned INTEGER;",
    /*
     * 9 -> 10: the Batch API (run --batch): each batch a run submitted (its local tag, input
     * file, provider id, state) and the trials it holds, written before the batch is created
     * so that a killed run re-attaches instead of paying twice (store_batch.c)
     */
    "CREATE TABLE batches ("
    " id INTEGER PRIMARY KEY,"
    " run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    " tag TEXT NOT NULL,"
    " state TEXT NOT NULL,"
    " input_file_id TEXT,"
    " batch_id TEXT,"
    " status TEXT,"
    " requests INTEGER NOT NULL,"
    " bytes INTEGER NOT NULL,"
    " created_at REAL NOT NULL,"
    " updated_at REAL NOT NULL);"
    "CREATE INDEX batches_run ON batches(run_id);"
    "CREATE TABLE batch_trials ("
    " batch INTEGER NOT NULL REFERENCES batches(id) ON DELETE CASCADE,"
    " custom_id TEXT NOT NULL,"
    " question_id TEXT NOT NULL,"
    " length INTEGER NOT NULL,"
    " depth_bp INTEGER NOT NULL,"
    " repeat INTEGER NOT NULL,"
    " axes TEXT NOT NULL DEFAULT '',"
    " prompt_sha256 TEXT,"
    " request_sha256 TEXT,"
    " realized_length INTEGER,"
    " realized_depth REAL,"
    " gold_offset INTEGER,"
    " PRIMARY KEY (batch, custom_id)) WITHOUT ROWID;",
    /*
     * 10 -> 11: the gold's BM25 rank for the question among its prompt's documents and how
     * many were ranked (prompt.h: built_prompt.gold_bm25_rank), per trial and per batch trial;
     * NULL before schema 11
     */
    "ALTER TABLE trials ADD COLUMN gold_bm25_rank INTEGER;"
    "ALTER TABLE trials ADD COLUMN bm25_docs INTEGER;"
    "ALTER TABLE batch_trials ADD COLUMN gold_bm25_rank INTEGER;"
    "ALTER TABLE batch_trials ADD COLUMN bm25_docs INTEGER;",
    /*
     * 11 -> 12: the run's request probe: one fixed trial of its whole matrix (the first key,
     * the same for every shard) and the prompt_sha256 the recording binary built for it, so
     * merge and a resume refuse parts whose binaries build other bytes (run_info.probe_key);
     * NULL before schema 12 or for runs recorded by older binaries (unknown)
     */
    "ALTER TABLE runs ADD COLUMN request_probe_key TEXT;"
    "ALTER TABLE runs ADD COLUMN request_probe TEXT;",
};

#define NMIGRATIONS ((int)(sizeof(migrations) / sizeof(migrations[0])))

#define RUN_COLS                                                                                   \
    "name, model_requested, model_served, endpoints, system_fingerprint, settings_json,"           \
    " golden_sha256, haystack_sha256, template_sha256, tokenizer_name, tokenizer_sha256,"          \
    " dipmap_version, dipmap_commit, tags, shard, created_at, started_at, finished_at, status,"    \
    " trials_planned"

/* A run's finished trials' token sums (store_run_usage); ?1 the run's id. */
#define RUN_USAGE_SQL                                                                              \
    "SELECT total(CASE WHEN usage_prompt_tokens >= 0 THEN usage_prompt_tokens"                     \
    " WHEN outcome IN ('correct', 'wrong', 'truncated', 'empty', 'starved')"                       \
    " THEN realized_length ELSE 0 END),"                                                           \
    " total(max(ifnull(completion_tokens, 0), 0)),"                                                \
    " total(max(coalesce(cached_tokens, cache_n, 0), 0))"                                          \
    " FROM trials t WHERE run_id = ?1 AND outcome <> 'pending'"

const char *const store_stmt_sql[S__COUNT] = {
    [S_BEGIN] = "BEGIN IMMEDIATE",
    [S_BEGIN_READ] = "BEGIN DEFERRED",
    [S_COMMIT] = "COMMIT",
    [S_ROLLBACK] = "ROLLBACK",
    [S_RUN_ID] = "SELECT id FROM runs WHERE name = ?1",
    [S_RUN_INSERT] = "INSERT INTO runs (" RUN_COLS ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9,"
                     " ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)",
    [S_RUN_LIST] =
        "SELECT " RUN_COLS ","
        " (SELECT count(*) FROM trials t WHERE t.run_id = runs.id AND t.outcome <> 'pending'),"
        " (SELECT count(*) FROM trials t WHERE t.run_id = runs.id),"
        " l.pid, l.host, l.heartbeat_at"
        " FROM runs LEFT JOIN locks l ON l.run_id = runs.id WHERE (?1 IS NULL OR "
        "substr(model_requested, 1, length(?1)) = ?1"
        "  OR substr(ifnull(model_served, ''), 1, length(?1)) = ?1)"
        " AND (?2 IS NULL OR instr(',' || ifnull(tags, '') || ',', ',' || ?2 || ',') > 0)"
        " AND (?3 IS NULL OR name = ?3)"
        " ORDER BY created_at, name",
    [S_RUN_STATUS] = "UPDATE runs SET status = ?2,"
                     " started_at = CASE WHEN ?2 = 'running' AND started_at IS NULL THEN ?3"
                     "  ELSE started_at END,"
                     " finished_at = CASE WHEN ?2 = 'running' THEN finished_at ELSE ?3 END"
                     " WHERE name = ?1",
    [S_RUN_SERVED] = "UPDATE runs SET model_served = ifnull(?2, model_served),"
                     " system_fingerprint = ifnull(?3, system_fingerprint) WHERE name = ?1",
    [S_RUN_PLANNED] = "UPDATE runs SET trials_planned = ?2 WHERE name = ?1",
    [S_RUN_TAGS] = "UPDATE runs SET tags = ?2 WHERE name = ?1",
    [S_RUN_MERGED] = "UPDATE runs SET status = ?2, trials_planned = ?3, shard = ?4,"
                     " started_at = ?5, finished_at = ?6 WHERE name = ?1",
    [S_TRIAL_UPSERT] =
        TRIAL_UPSERT_SQL " WHERE trials.outcome = 'pending' OR excluded.outcome <> 'pending'",
    [S_TRIAL_MERGE] =
        TRIAL_UPSERT_SQL " WHERE trials.outcome = 'pending' AND excluded.outcome <> 'pending'",
    [S_DONE] = "SELECT question_id, length, depth_bp, repeat, axes FROM trials WHERE run_id = ?1"
               " AND outcome <> 'pending' AND (?2 OR outcome <> 'error')",
    [S_LOCK_GET] = "SELECT pid, host, token, heartbeat_at FROM locks WHERE run_id = ?1",
    [S_LOCK_SET] = "INSERT OR REPLACE INTO locks (run_id, pid, host, token, acquired_at,"
                   " heartbeat_at) VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
    [S_LOCK_BEAT] = "UPDATE locks SET heartbeat_at = ?3 WHERE run_id = ?1 AND token = ?2",
    [S_LOCK_DEL] = "DELETE FROM locks WHERE run_id = ?1 AND token = ?2",
    [S_COUNT_GET] = "SELECT count FROM token_counts WHERE tokenizer = ?1 AND text_sha256 = ?2",
    [S_COUNT_PUT] = "INSERT OR REPLACE INTO token_counts (tokenizer, text_sha256, count)"
                    " VALUES (?1, ?2, ?3)",
    [S_PROMPT_PUT] = "INSERT OR IGNORE INTO prompts (sha256, text) VALUES (?1, ?2)",
    [S_PROMPT_GET] = "SELECT text FROM prompts WHERE sha256 = ?1",
    [S_PROMPT_ALL] = "SELECT sha256, text FROM prompts",
    [S_COUNT_ALL] = "SELECT tokenizer, text_sha256, count FROM token_counts",
    /* tokens the server processed for a run's finished trials (see store_run_usage) */
    [S_RUN_USAGE] = RUN_USAGE_SQL,
    /* the same over the trials a batch of the run held (run --batch) */
    [S_RUN_USAGE_BATCH] =
        RUN_USAGE_SQL " AND EXISTS (SELECT 1 FROM batch_trials bt"
                      " JOIN batches b ON b.id = bt.batch WHERE b.run_id = t.run_id"
                      " AND bt.question_id = t.question_id AND bt.length = t.length"
                      " AND bt.depth_bp = t.depth_bp AND bt.repeat = t.repeat"
                      " AND bt.axes = t.axes)",
    [S_RUN_SCORER_GET] = "SELECT scorer_version FROM runs WHERE name = ?1",
    [S_RUN_SCORER_SET] = "UPDATE runs SET scorer_version = ?2 WHERE name = ?1",
    [S_RUN_SCHEDULES_GET] = "SELECT schedules FROM runs WHERE name = ?1",
    [S_RUN_SCHEDULES_SET] = "UPDATE runs SET schedules = ?2 WHERE name = ?1",
    [S_RUN_MATRIX_GET] = "SELECT matrix_planned FROM runs WHERE name = ?1",
    [S_RUN_MATRIX_SET] = "UPDATE runs SET matrix_planned = ?2 WHERE name = ?1",
    [S_RUN_PROBE_GET] = "SELECT request_probe_key, request_probe FROM runs WHERE name = ?1",
    [S_RUN_PROBE_SET] =
        "UPDATE runs SET request_probe_key = ?2, request_probe = ?3 WHERE name = ?1",
    [S_RUN_SETTINGS_SET] = "UPDATE runs SET settings_json = ?2 WHERE name = ?1",
    [S_GOLDEN_PUT] = "INSERT OR IGNORE INTO golden_sets (sha256, content) VALUES (?1, ?2)",
    [S_GOLDEN_GET] = "SELECT content FROM golden_sets WHERE sha256 = ?1",
    [S_GOLDEN_ALL] = "SELECT sha256, content FROM golden_sets",
};

/* ---- small helpers ------------------------------------------------------- */

const char *store_errmsg(const struct store *st)
{
    return st ? st->err.buf : "";
}

int store_set_error(struct store *st, const char *fmt, ...)
{
    va_list ap;
    strbuf_reset(&st->err);
    va_start(ap, fmt);
    strbuf_vaddf(&st->err, fmt, ap);
    va_end(ap);
    /*
     * This error() call prints, the one line the store still prints (docs/conventions.md
     * "Errors"): about 190 callers outside store/ pass its -1 on without a message of their
     * own (store.h's conventions), so the message is printed here, once, until every
     * command prints store_errmsg() itself.
     */
    error("%s", st->err.buf);
    return -1;
}

int store_db_error(struct store *st, const char *what)
{
    return store_set_error(st, "%s: %s: %s", st->path, what, sqlite3_errmsg(st->db));
}

int store_print_error(struct store *st)
{
    char *msg = xstrdup(st->err.buf);
    store_set_error(st, "%s", msg);
    free(msg);
    return -1;
}

int store_record_error(struct store *st, const char *fmt, ...)
{
    va_list ap;
    strbuf_reset(&st->err);
    va_start(ap, fmt);
    strbuf_vaddf(&st->err, fmt, ap);
    va_end(ap);
    return -1;
}

sqlite3_stmt *store_stmt_get(struct store *st, enum stmt_id id)
{
    sqlite3_stmt *s = st->stmt[id];
    if (s) {
        sqlite3_reset(s);
        sqlite3_clear_bindings(s);
        return s;
    }
    if (sqlite3_prepare_v3(st->db, store_stmt_sql[id], -1, SQLITE_PREPARE_PERSISTENT, &s, NULL) !=
        SQLITE_OK) {
        store_db_error(st, "cannot prepare statement");
        sqlite3_finalize(s);
        return NULL;
    }
    st->stmt[id] = s;
    return s;
}

/* Run a statement that returns no rows. */
int store_stmt_done(struct store *st, sqlite3_stmt *s, const char *what)
{
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return store_db_error(st, what);
    return 0;
}

int store_exec_simple(struct store *st, enum stmt_id id, const char *what)
{
    sqlite3_stmt *s = store_stmt_get(st, id);
    if (!s)
        return -1;
    return store_stmt_done(st, s, what);
}

int store_txn_begin(struct store *st)
{
    if (st->in_outer_txn)
        return 0;
    return store_exec_simple(st, S_BEGIN, "cannot begin a transaction");
}

/*
 * A read snapshot: every query until store_read_end() sees the store as of the
 * first one (WAL read transaction), so a report of a run that another process
 * is writing reads the run row and its trials from the same moment.
 */
int store_read_begin(struct store *st)
{
    if (st->in_outer_txn || !sqlite3_get_autocommit(st->db))
        return 0;
    return store_exec_simple(st, S_BEGIN_READ, "cannot begin a read snapshot");
}

void store_read_end(struct store *st)
{
    if (st->in_outer_txn || sqlite3_get_autocommit(st->db))
        return;
    (void)store_exec_simple(st, S_COMMIT, "cannot end a read snapshot");
}

int store_txn_commit(struct store *st)
{
    if (st->in_outer_txn)
        return 0;
    return store_exec_simple(st, S_COMMIT, "cannot commit");
}

void store_txn_rollback(struct store *st)
{
    if (st->in_outer_txn || sqlite3_get_autocommit(st->db))
        return;
    sqlite3_stmt *s = store_stmt_get(st, S_ROLLBACK);
    if (s) {
        sqlite3_step(s);
        sqlite3_reset(s);
    }
}

void store_bind_text(sqlite3_stmt *s, int i, const char *v)
{
    if (v)
        sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(s, i);
}

/* Times and doubles: 0 is stored as NULL for times so "not set" survives. */
void store_bind_time(sqlite3_stmt *s, int i, double v)
{
    if (v != 0)
        sqlite3_bind_double(s, i, v);
    else
        sqlite3_bind_null(s, i);
}

char *store_col_text(sqlite3_stmt *s, int i)
{
    const unsigned char *v = sqlite3_column_text(s, i);
    return v ? xstrdup((const char *)v) : NULL;
}

double store_col_time(sqlite3_stmt *s, int i)
{
    return sqlite3_column_type(s, i) == SQLITE_NULL ? 0 : sqlite3_column_double(s, i);
}

/* NaN is stored by SQLite as NULL; read NULL back as NaN so it round-trips. */
double store_col_real_nan(sqlite3_stmt *s, int i)
{
    return sqlite3_column_type(s, i) == SQLITE_NULL ? NAN : sqlite3_column_double(s, i);
}

const char *store_default_path(const char *flag)
{
    const char *env;
    if (flag && *flag)
        return flag;
    env = getenv(DIPMAP_DB_ENV);
    if (env && *env)
        return env;
    return DIPMAP_DEFAULT_DB;
}

/* ---- status names -------------------------------------------------------- */

static const char *const status_names[RUN_STATUS__COUNT] = {
    "running", "complete", "interrupted", "failed", "budget",
};

const char *run_status_name(enum run_status s)
{
    return (unsigned)s < RUN_STATUS__COUNT ? status_names[s] : "unknown";
}

int run_status_parse(const char *name, enum run_status *out)
{
    int i;
    for (i = 0; i < RUN_STATUS__COUNT; i++)
        if (name && !strcmp(status_names[i], name)) {
            *out = (enum run_status)i;
            return 0;
        }
    return -1;
}

/* ---- open, schema, migrations -------------------------------------------- */

static int pragma_int(struct store *st, const char *sql, int *out)
{
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(s);
        if (rc == SQLITE_ROW) {
            *out = sqlite3_column_int(s, 0);
            rc = SQLITE_OK;
        } else if (rc == SQLITE_DONE) {
            *out = 0;
            rc = SQLITE_OK;
        }
    }
    sqlite3_finalize(s);
    return rc;
}

/* Constant DDL/PRAGMA text only (never data). */
static int exec_const(struct store *st, const char *sql, const char *what)
{
    char *msg = NULL;
    if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        store_set_error(st, "%s: %s: %s", st->path, what, msg ? msg : sqlite3_errmsg(st->db));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

/*
 * Switch the file to WAL (persistent, so usually it already is). SQLite does
 * not call the busy handler when the journal-mode change meets another
 * connection's lock (two processes creating one new store at once), so wait
 * for it here, up to the same busy timeout.
 */
static int enable_wal(struct store *st)
{
    int waited_ms = 0;
    for (;;) {
        sqlite3_stmt *s = NULL;
        int rc = sqlite3_prepare_v2(st->db, "PRAGMA journal_mode = WAL", -1, &s, NULL);
        const unsigned char *mode = NULL;
        if (rc == SQLITE_OK) {
            rc = sqlite3_step(s);
            if (rc == SQLITE_ROW)
                mode = sqlite3_column_text(s, 0);
        }
        if (rc == SQLITE_ROW && mode && !strcasecmp((const char *)mode, "wal")) {
            sqlite3_finalize(s);
            return 0;
        }
        sqlite3_finalize(s);
        if (((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED) &&
            waited_ms < STORE_BUSY_TIMEOUT_MS) {
            usleep(20000);
            waited_ms += 20;
            continue;
        }
        if (rc == SQLITE_ROW)
            return store_set_error(st, "%s: cannot switch to WAL mode (journal mode is %s)",
                                   st->path, mode ? (const char *)mode : "unknown");
        return store_set_error(st, "%s: cannot switch to WAL mode: %s", st->path,
                               sqlite3_errmsg(st->db));
    }
}

static int count_tables(struct store *st, int *n)
{
    return pragma_int(st, "SELECT count(*) FROM sqlite_master", n);
}

/*
 * Bring the schema from its current version to `target` in one write
 * transaction. Another process may be migrating the same file; re-reading the
 * version inside the transaction makes the second one a no-op.
 */
static int migrate(struct store *st, int target)
{
    int v, n, i;
    char pragma[64];

    if (exec_const(st, "BEGIN IMMEDIATE", "cannot begin the schema transaction"))
        return -1;
    if (pragma_int(st, "PRAGMA user_version", &v) != SQLITE_OK ||
        count_tables(st, &n) != SQLITE_OK) {
        store_db_error(st, "cannot read the schema version");
        goto fail;
    }
    if (v == 0 && n > 0) {
        store_set_error(st, "%s: not a dipmap database (it has tables but no dipmap schema)",
                        st->path);
        goto fail;
    }
    for (i = v; i < target; i++) {
        struct strbuf what = STRBUF_INIT;
        int rc;
        strbuf_addf(&what, "schema migration %d -> %d failed", i, i + 1);
        rc = exec_const(st, migrations[i], what.buf);
        strbuf_release(&what);
        if (rc)
            goto fail;
    }
    if (v < target) {
        snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", target);
        if (exec_const(st, pragma, "cannot set the schema version"))
            goto fail;
        if (v == 0) {
            snprintf(pragma, sizeof(pragma), "PRAGMA application_id = %d", STORE_APP_ID);
            if (exec_const(st, pragma, "cannot set the application id"))
                goto fail;
        }
    }
    if (exec_const(st, "COMMIT", "cannot commit the schema"))
        goto fail;
    st->version = v > target ? v : target;
    return 0;
fail:
    if (!sqlite3_get_autocommit(st->db))
        sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

static void make_token(struct store *st)
{
    struct strbuf seed = STRBUF_INIT;
    char hex[SHA256_HEX_LEN + 1];
    strbuf_addf(&seed, "%ld %s %.6f %p", (long)getpid(), st->host, utc_now(), (void *)st);
    sha256_hex(seed.buf, seed.len, hex);
    memcpy(st->token, hex, 32);
    st->token[32] = '\0';
    strbuf_release(&seed);
}

static void store_free(struct store *st);

static struct store *open_at(const char *path, enum store_open_mode mode, int target)
{
    struct store *st;
    struct stat sb;
    int flags, v = 0, app = 0, rc;

    /* the handle first: every failure below is recorded in it (store_set_error) */
    st = xcalloc(1, sizeof(*st));
    st->path = xstrdup(path ? path : "");
    st->readonly = mode == STORE_READONLY;
    strvec_init(&st->locked);
    strbuf_init(&st->err, 0);
    if (!path || !*path) {
        store_set_error(st, "no database path given");
        goto fail;
    }
    if (mode != STORE_CREATE && stat(path, &sb) != 0) {
        store_set_error(st, "%s: no such database%s", path,
                        errno == ENOENT ? "" : " (cannot access it)");
        goto fail;
    }
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        /* SQLite says only "disk I/O error" for a directory */
        store_set_error(st, "%s: is a directory; --db names the store file (e.g. %s/dipmap.db)",
                        path, path);
        goto fail;
    }
    if (gethostname(st->host, sizeof(st->host) - 1) != 0 || !st->host[0])
        snprintf(st->host, sizeof(st->host), "unknown");
    make_token(st);

    flags = st->readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
    if (mode == STORE_CREATE)
        flags |= SQLITE_OPEN_CREATE;
    rc = sqlite3_open_v2(path, &st->db, flags, NULL);
    if (rc != SQLITE_OK) {
        store_set_error(st, "%s: cannot open database: %s", path,
                        st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc));
        goto fail;
    }
    sqlite3_extended_result_codes(st->db, 1);
    sqlite3_busy_timeout(st->db, STORE_BUSY_TIMEOUT_MS);

    /* The first real read tells a non-database file apart. */
    rc = pragma_int(st, "PRAGMA user_version", &v);
    if (rc == SQLITE_OK)
        rc = pragma_int(st, "PRAGMA application_id", &app);
    if (rc != SQLITE_OK) {
        if ((rc & 0xff) == SQLITE_NOTADB || (rc & 0xff) == SQLITE_CORRUPT)
            store_set_error(st, "%s: not a dipmap database (%s)", path, sqlite3_errstr(rc));
        else
            store_db_error(st, "cannot read the database");
        goto fail;
    }
    if ((v > 0 || app != 0) && app != STORE_APP_ID) {
        store_set_error(st, "%s: not a dipmap database (application id %d); left unchanged", path,
                        app);
        goto fail;
    }
    if (v > STORE_SCHEMA_VERSION) {
        store_set_error(
            st, "%s: created by a newer dipmap (schema version %d, this build reads up to %d)",
            path, v, STORE_SCHEMA_VERSION);
        goto fail;
    }
    if (st->readonly) {
        if (v == 0) {
            int n = 0;
            if (count_tables(st, &n) == SQLITE_OK && n == 0)
                store_set_error(st, "%s: empty database (no runs yet)", path);
            else
                store_set_error(st, "%s: not a dipmap database (no dipmap schema)", path);
            goto fail;
        }
        /* a read-only handle reads stores back to STORE_READ_MIN_VERSION as they are */
        if (v < STORE_READ_MIN_VERSION) {
            store_set_error(
                st,
                "%s: schema version %d is older than %d; open it read-write once (e.g. with "
                "'dipmap run') to upgrade it",
                path, v, STORE_READ_MIN_VERSION);
            goto fail;
        }
        st->version = v;
    } else {
        /*
         * Refuse another application's file before the first write (switching to WAL
         * rewrites the header's format-version bytes): tables without a dipmap schema
         * (another application id was refused above). migrate() re-checks inside its
         * transaction (a race with a process that is creating this very store).
         */
        int n = 0;
        if (v == 0 && count_tables(st, &n) == SQLITE_OK && n > 0 &&
            /* another process may have created the schema between the two reads */
            !(pragma_int(st, "PRAGMA user_version", &v) == SQLITE_OK && v > 0 &&
              pragma_int(st, "PRAGMA application_id", &app) == SQLITE_OK && app == STORE_APP_ID)) {
            store_set_error(
                st,
                "%s: not a dipmap database (it has tables but no dipmap schema); left unchanged",
                path);
            goto fail;
        }
        /* WAL: readers never block the writer and vice versa; see store.h on durability. */
        if (enable_wal(st) ||
            exec_const(st, "PRAGMA synchronous = NORMAL", "cannot set synchronous mode"))
            goto fail;
        if (v < target && migrate(st, target))
            goto fail;
        if (v >= target)
            st->version = v;
    }
    if (exec_const(st, "PRAGMA foreign_keys = ON", "cannot enable foreign keys"))
        goto fail;
    return st;
fail:
    store_free(st);
    return NULL;
}

struct store *store_open(const char *path, enum store_open_mode mode)
{
    return open_at(path, mode, STORE_SCHEMA_VERSION);
}

int store_create_at_version(const char *path, int version)
{
    struct store *st;
    struct stat sb;
    /* a test's own setup: a wrong version or an existing file is the test's bug */
    if (version < 1 || version > STORE_SCHEMA_VERSION)
        BUG("store_create_at_version: no schema version %d", version);
    if (stat(path, &sb) == 0)
        BUG("store_create_at_version: %s already exists", path);
    st = open_at(path, STORE_CREATE, version);
    if (!st)
        return -1;
    store_free(st);
    return 0;
}

const char *store_path(const struct store *st)
{
    return st->path;
}

int store_schema_version(const struct store *st)
{
    return st->version;
}

void store_op_release(struct op *o)
{
    trial_result_release(&o->t);
    free(o->text);
    o->text = NULL;
}

static void store_free(struct store *st)
{
    size_t i;
    if (!st)
        return;
    for (i = 0; i < S__COUNT; i++)
        sqlite3_finalize(st->stmt[i]);
    if (st->db)
        sqlite3_close(st->db);
    for (i = 0; i < st->nops; i++)
        store_op_release(&st->ops[i]);
    free(st->ops);
    for (i = 0; i < st->nids; i++)
        free(st->ids[i].name);
    free(st->ids);
    for (i = 0; i < st->ncounts; i++)
        free(st->counts[i].key);
    hashmap_clear(&st->counts_map);
    free(st->counts);
    strvec_clear(&st->locked);
    strbuf_release(&st->err);
    free(st->path);
    free(st);
}

int store_close(struct store *st)
{
    int rc = 0;
    if (!st)
        return 0;
    if (!st->readonly) {
        if (st->nops && store_flush(st))
            rc = -1;
        while (st->locked.nr) {
            char *name = xstrdup(st->locked.v[st->locked.nr - 1]);
            if (store_run_unlock(st, name))
                strvec_pop(&st->locked);
            free(name);
        }
    }
    store_free(st);
    return rc;
}

int store_integrity_check(struct store *st)
{
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(st->db, "PRAGMA integrity_check", -1, &s, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(s);
    if (rc != SQLITE_ROW) {
        sqlite3_finalize(s);
        return store_db_error(st, "integrity check failed");
    }
    if (strcmp((const char *)sqlite3_column_text(s, 0), "ok")) {
        store_set_error(st, "%s: integrity check failed: %s", st->path,
                        (const char *)sqlite3_column_text(s, 0));
        sqlite3_finalize(s);
        return -1;
    }
    sqlite3_finalize(s);
    return 0;
}

int store_count_cache_get(void *ctx, const char *name, const char *sha, long *count)
{
    struct store_count_cache *cc = ctx;
    int r;
    pthread_mutex_lock(&cc->mu);
    r = store_count_get(cc->st, name, sha, count) == 1 ? 0 : -1;
    pthread_mutex_unlock(&cc->mu);
    return r;
}

void store_count_cache_put(void *ctx, const char *name, const char *sha, long count)
{
    struct store_count_cache *cc = ctx;
    pthread_mutex_lock(&cc->mu);
    store_count_put(cc->st, name, sha, count);
    pthread_mutex_unlock(&cc->mu);
}

void store_library_version(struct strbuf *out)
{
    strbuf_addf(out, "SQLite %s", sqlite3_libversion());
}

/*
 * The run store on SQLite: schema and forward migrations, runs, trials (batched
 * upserts), run locks, the token-count cache, content-addressed prompts and the
 * merge of shard stores. The only file that includes <sqlite3.h>; every
 * statement with data in it is prepared and bound, only constant DDL is exec'd.
 */
#include "store.h"

#include <cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <unistd.h>

#include "strbuf.h"
#include "strvec.h"
#include "usage.h"
#include "xalloc.h"

#include "banned.h"

/* PRAGMA application_id of a dipmap store: "DIPM". */
#define STORE_APP_ID          0x4449504d
#define STORE_BUSY_TIMEOUT_MS 30000

/*
 * Forward migrations: entry i takes the schema from version i to i + 1. Append
 * a new entry (and bump STORE_SCHEMA_VERSION) to change the schema; never edit
 * an entry that has shipped.
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
    "CREATE TABLE trials ("
    " run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    " question_id TEXT NOT NULL,"
    " length INTEGER NOT NULL,"
    " depth_bp INTEGER NOT NULL,"
    " repeat INTEGER NOT NULL,"
    " prompt_sha256 TEXT,"
    " realized_length INTEGER,"
    " usage_prompt_tokens INTEGER,"
    " realized_depth REAL,"
    " gold_offset INTEGER,"
    " outcome TEXT NOT NULL,"
    " http_status INTEGER,"
    " attempts INTEGER,"
    " latency_ms REAL,"
    " completion_tokens INTEGER,"
    " finish_reason TEXT,"
    " answer TEXT,"
    " reasoning TEXT,"
    " score REAL,"
    " error TEXT,"
    " finished_at REAL,"
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
};

#define NMIGRATIONS ((int)(sizeof(migrations) / sizeof(migrations[0])))

/* Prepared statements, prepared on first use and kept for the handle's life. */
enum stmt_id {
    S_BEGIN,
    S_COMMIT,
    S_ROLLBACK,
    S_RUN_ID,
    S_RUN_INSERT,
    S_RUN_LIST,
    S_RUN_STATUS,
    S_RUN_SERVED,
    S_RUN_PLANNED,
    S_RUN_MERGED,
    S_TRIAL_UPSERT,
    S_TRIAL_MERGE,
    S_TRIAL_SELECT,
    S_DONE,
    S_LOCK_GET,
    S_LOCK_SET,
    S_LOCK_BEAT,
    S_LOCK_DEL,
    S_COUNT_GET,
    S_COUNT_PUT,
    S_PROMPT_PUT,
    S_PROMPT_GET,
    S_PROMPT_ALL,
    S_COUNT_ALL,
    S__COUNT
};

#define RUN_COLS                                                                                   \
    "name, model_requested, model_served, endpoints, system_fingerprint, settings_json,"           \
    " golden_sha256, haystack_sha256, template_sha256, tokenizer_name, tokenizer_sha256,"          \
    " dipmap_version, dipmap_commit, tags, shard, created_at, started_at, finished_at, status,"    \
    " trials_planned"

#define TRIAL_COLS                                                                                 \
    "question_id, length, depth_bp, repeat, prompt_sha256, realized_length,"                       \
    " usage_prompt_tokens, realized_depth, gold_offset, outcome, http_status, attempts,"           \
    " latency_ms, completion_tokens, finish_reason, answer, reasoning, score, error, finished_at"

#define TRIAL_VALUES                                                                               \
    "?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, "  \
    "?21"

#define TRIAL_UPDATE                                                                               \
    " ON CONFLICT (run_id, question_id, length, depth_bp, repeat) DO UPDATE SET"                   \
    " prompt_sha256 = excluded.prompt_sha256, realized_length = excluded.realized_length,"         \
    " usage_prompt_tokens = excluded.usage_prompt_tokens,"                                         \
    " realized_depth = excluded.realized_depth, gold_offset = excluded.gold_offset,"               \
    " outcome = excluded.outcome, http_status = excluded.http_status,"                             \
    " attempts = excluded.attempts, latency_ms = excluded.latency_ms,"                             \
    " completion_tokens = excluded.completion_tokens, finish_reason = excluded.finish_reason,"     \
    " answer = excluded.answer, reasoning = excluded.reasoning, score = excluded.score,"           \
    " error = excluded.error, finished_at = excluded.finished_at"

static const char *const stmt_sql[S__COUNT] = {
    [S_BEGIN] = "BEGIN IMMEDIATE",
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
    [S_RUN_MERGED] = "UPDATE runs SET status = ?2, trials_planned = ?3, shard = ?4,"
                     " started_at = ?5, finished_at = ?6 WHERE name = ?1",
    [S_TRIAL_UPSERT] =
        "INSERT INTO trials (run_id, " TRIAL_COLS ") VALUES (" TRIAL_VALUES ")" TRIAL_UPDATE
        " WHERE trials.outcome = 'pending' OR excluded.outcome <> 'pending'",
    [S_TRIAL_MERGE] =
        "INSERT INTO trials (run_id, " TRIAL_COLS ") VALUES (" TRIAL_VALUES ")" TRIAL_UPDATE
        " WHERE trials.outcome = 'pending' AND excluded.outcome <> 'pending'",
    [S_TRIAL_SELECT] = "SELECT " TRIAL_COLS " FROM trials WHERE run_id = ?1"
                       " ORDER BY question_id, length, depth_bp, repeat",
    [S_DONE] = "SELECT question_id, length, depth_bp, repeat FROM trials WHERE run_id = ?1"
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
};

enum op_kind { OP_TRIAL, OP_PROMPT };

/* One buffered write. */
struct op {
    enum op_kind kind;
    int merge; /* OP_TRIAL: keep an existing final row (store_merge) */
    sqlite3_int64 run_id;
    struct trial_result t;
    char *text; /* OP_PROMPT */
    size_t len;
    char sha[SHA256_HEX_LEN + 1];
};

struct run_id_cache {
    char *name;
    sqlite3_int64 id;
};

/* Counts remembered by a read-only handle. */
struct mem_count {
    char *key;
    long count;
};

struct store {
    sqlite3 *db;
    char *path;
    int readonly;
    int version;
    int in_outer_txn;  /* store_merge holds one transaction around everything */
    size_t merge_kept; /* merge writes that kept an existing row (duplicates across inputs) */
    sqlite3_stmt *stmt[S__COUNT];

    struct op *ops;
    size_t nops, aops;

    struct run_id_cache *ids;
    size_t nids, aids;

    struct strvec locked; /* run names this handle holds the lock of */
    char token[40];
    char host[256];

    struct mem_count *counts;
    size_t ncounts, acounts;
};

/* ---- small helpers ------------------------------------------------------- */

static double now_seconds(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static char *xstrdup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

static int db_error(struct store *st, const char *what)
{
    return error("%s: %s: %s", st->path, what, sqlite3_errmsg(st->db));
}

static sqlite3_stmt *stmt_get(struct store *st, enum stmt_id id)
{
    sqlite3_stmt *s = st->stmt[id];
    if (s) {
        sqlite3_reset(s);
        sqlite3_clear_bindings(s);
        return s;
    }
    if (sqlite3_prepare_v3(st->db, stmt_sql[id], -1, SQLITE_PREPARE_PERSISTENT, &s, NULL) !=
        SQLITE_OK) {
        db_error(st, "cannot prepare statement");
        sqlite3_finalize(s);
        return NULL;
    }
    st->stmt[id] = s;
    return s;
}

/* Run a statement that returns no rows. */
static int stmt_done(struct store *st, sqlite3_stmt *s, const char *what)
{
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return db_error(st, what);
    return 0;
}

static int exec_simple(struct store *st, enum stmt_id id, const char *what)
{
    sqlite3_stmt *s = stmt_get(st, id);
    if (!s)
        return -1;
    return stmt_done(st, s, what);
}

static int txn_begin(struct store *st)
{
    if (st->in_outer_txn)
        return 0;
    return exec_simple(st, S_BEGIN, "cannot begin a transaction");
}

static int txn_commit(struct store *st)
{
    if (st->in_outer_txn)
        return 0;
    return exec_simple(st, S_COMMIT, "cannot commit");
}

static void txn_rollback(struct store *st)
{
    if (st->in_outer_txn || sqlite3_get_autocommit(st->db))
        return;
    sqlite3_stmt *s = stmt_get(st, S_ROLLBACK);
    if (s) {
        sqlite3_step(s);
        sqlite3_reset(s);
    }
}

static void bind_text(sqlite3_stmt *s, int i, const char *v)
{
    if (v)
        sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(s, i);
}

/* Times and doubles: 0 is stored as NULL for times so "not set" survives. */
static void bind_time(sqlite3_stmt *s, int i, double v)
{
    if (v != 0)
        sqlite3_bind_double(s, i, v);
    else
        sqlite3_bind_null(s, i);
}

static char *col_text(sqlite3_stmt *s, int i)
{
    const unsigned char *v = sqlite3_column_text(s, i);
    return v ? xstrdup((const char *)v) : NULL;
}

static double col_time(sqlite3_stmt *s, int i)
{
    return sqlite3_column_type(s, i) == SQLITE_NULL ? 0 : sqlite3_column_double(s, i);
}

/* NaN is stored by SQLite as NULL; read NULL back as NaN so it round-trips. */
static double col_real_nan(sqlite3_stmt *s, int i)
{
    return sqlite3_column_type(s, i) == SQLITE_NULL ? NAN : sqlite3_column_double(s, i);
}

static int streq_null(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return !strcmp(a, b);
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
        error("%s: %s: %s", st->path, what, msg ? msg : sqlite3_errmsg(st->db));
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
            return error("%s: cannot switch to WAL mode (journal mode is %s)", st->path,
                         mode ? (const char *)mode : "unknown");
        return error("%s: cannot switch to WAL mode: %s", st->path, sqlite3_errmsg(st->db));
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
        db_error(st, "cannot read the schema version");
        goto fail;
    }
    if (v == 0 && n > 0) {
        error("%s: not a dipmap database (it has tables but no dipmap schema)", st->path);
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
    strbuf_addf(&seed, "%ld %s %.6f %p", (long)getpid(), st->host, now_seconds(), (void *)st);
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

    if (!path || !*path) {
        error("no database path given");
        return NULL;
    }
    if (mode != STORE_CREATE && stat(path, &sb) != 0) {
        error("%s: no such database%s", path, errno == ENOENT ? "" : " (cannot access it)");
        return NULL;
    }
    st = xcalloc(1, sizeof(*st));
    st->path = xstrdup(path);
    st->readonly = mode == STORE_READONLY;
    strvec_init(&st->locked);
    if (gethostname(st->host, sizeof(st->host) - 1) != 0 || !st->host[0])
        snprintf(st->host, sizeof(st->host), "unknown");
    make_token(st);

    flags = st->readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
    if (mode == STORE_CREATE)
        flags |= SQLITE_OPEN_CREATE;
    rc = sqlite3_open_v2(path, &st->db, flags, NULL);
    if (rc != SQLITE_OK) {
        error("%s: cannot open database: %s", path,
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
            error("%s: not a dipmap database (%s)", path, sqlite3_errstr(rc));
        else
            db_error(st, "cannot read the database");
        goto fail;
    }
    if (v > 0 && app != STORE_APP_ID) {
        error("%s: not a dipmap database (application id %d)", path, app);
        goto fail;
    }
    if (v > STORE_SCHEMA_VERSION) {
        error("%s: created by a newer dipmap (schema version %d, this build reads up to %d)", path,
              v, STORE_SCHEMA_VERSION);
        goto fail;
    }
    if (st->readonly) {
        if (v == 0) {
            int n = 0;
            if (count_tables(st, &n) == SQLITE_OK && n == 0)
                error("%s: empty database (no runs yet)", path);
            else
                error("%s: not a dipmap database (no dipmap schema)", path);
            goto fail;
        }
        if (v < STORE_SCHEMA_VERSION) {
            error("%s: schema version %d is older than %d; open it read-write once (e.g. with "
                  "'dipmap run') to upgrade it",
                  path, v, STORE_SCHEMA_VERSION);
            goto fail;
        }
        st->version = v;
    } else {
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
    if (version < 1 || version > STORE_SCHEMA_VERSION)
        return error("store_create_at_version: no schema version %d", version);
    if (stat(path, &sb) == 0)
        return error("%s: already exists", path);
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

static void op_release(struct op *o)
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
        op_release(&st->ops[i]);
    free(st->ops);
    for (i = 0; i < st->nids; i++)
        free(st->ids[i].name);
    free(st->ids);
    for (i = 0; i < st->ncounts; i++)
        free(st->counts[i].key);
    free(st->counts);
    strvec_clear(&st->locked);
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
        return db_error(st, "integrity check failed");
    }
    if (strcmp((const char *)sqlite3_column_text(s, 0), "ok")) {
        error("%s: integrity check failed: %s", st->path, (const char *)sqlite3_column_text(s, 0));
        sqlite3_finalize(s);
        return -1;
    }
    sqlite3_finalize(s);
    return 0;
}

/* ---- runs ---------------------------------------------------------------- */

void run_info_init(struct run_info *r)
{
    memset(r, 0, sizeof(*r));
}

void run_info_release(struct run_info *r)
{
    free(r->name);
    free(r->model_requested);
    free(r->model_served);
    free(r->endpoints);
    free(r->system_fingerprint);
    free(r->settings_json);
    free(r->golden_sha256);
    free(r->haystack_sha256);
    free(r->template_sha256);
    free(r->tokenizer_name);
    free(r->tokenizer_sha256);
    free(r->dipmap_version);
    free(r->dipmap_commit);
    free(r->tags);
    free(r->shard);
    free(r->lock_host);
    run_info_init(r);
}

void run_info_list_free(struct run_info *v, size_t nr)
{
    size_t i;
    for (i = 0; i < nr; i++)
        run_info_release(&v[i]);
    free(v);
}

/* Sort the keys of every object in a JSON tree (canonical form). */
static void sort_json_keys(cJSON *node)
{
    cJSON *c, **items = NULL;
    size_t n = 0, alloc = 0, i, j;
    for (c = node->child; c; c = c->next)
        sort_json_keys(c);
    if (!cJSON_IsObject(node))
        return;
    for (c = node->child; c; c = c->next) {
        ALLOC_GROW(items, n + 1, alloc);
        items[n++] = c;
    }
    /* insertion sort by key: settings objects are small */
    for (i = 1; i < n; i++) {
        cJSON *x = items[i];
        for (j = i; j > 0 && strcmp(items[j - 1]->string ? items[j - 1]->string : "",
                                    x->string ? x->string : "") > 0;
             j--)
            items[j] = items[j - 1];
        items[j] = x;
    }
    for (i = 0; i < n; i++)
        cJSON_DetachItemViaPointer(node, items[i]);
    for (i = 0; i < n; i++)
        cJSON_AddItemToArray(node, items[i]);
    free(items);
}

/* Equal as JSON up to object key order (the stored form is canonical, a caller's may not be). */
static int same_json(const char *a, const char *b)
{
    cJSON *ja, *jb;
    int same = 0;
    if (!a || !b)
        return 0;
    ja = cJSON_Parse(a);
    jb = cJSON_Parse(b);
    if (ja && jb) {
        sort_json_keys(ja);
        sort_json_keys(jb);
        same = cJSON_Compare(ja, jb, 1);
    }
    cJSON_Delete(ja);
    cJSON_Delete(jb);
    return same;
}

int run_info_same_inputs(const struct run_info *a, const struct run_info *b, const char **field)
{
#define SAME(f)                                                                                    \
    if (!streq_null(a->f, b->f)) {                                                                 \
        if (field)                                                                                 \
            *field = #f;                                                                           \
        return 0;                                                                                  \
    }
    SAME(model_requested);
    SAME(golden_sha256);
    SAME(haystack_sha256);
    SAME(template_sha256);
    SAME(tokenizer_name);
    SAME(tokenizer_sha256);
#undef SAME
    if (!streq_null(a->settings_json, b->settings_json) &&
        !same_json(a->settings_json, b->settings_json)) {
        if (field)
            *field = "settings_json";
        return 0;
    }
    if (field)
        *field = NULL;
    return 1;
}

/* Lower-case `s` with '-', '_', ' ' and '.' removed, for secret-name checks. */
static void norm_name(struct strbuf *out, const char *s, size_t len)
{
    size_t i;
    strbuf_reset(out);
    for (i = 0; i < len && s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '-' || c == '_' || c == ' ' || c == '.')
            continue;
        strbuf_addch(out, tolower(c));
    }
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

static int is_secret_name(const char *name, size_t len)
{
    static const char *const exact[] = {"authorization", "proxyauthorization",
                                        "cookie",        "accesstoken",
                                        "authtoken",     "bearertoken",
                                        "bearer",        "token",
                                        "key",           NULL};
    static const char *const suffix[] = {"apikey", "password",        "passwd",
                                         "secret", "subscriptionkey", NULL};
    struct strbuf n = STRBUF_INIT;
    int i, hit = 0;
    norm_name(&n, name, len);
    for (i = 0; exact[i] && !hit; i++)
        hit = !strcmp(n.buf, exact[i]);
    for (i = 0; suffix[i] && !hit; i++)
        hit = ends_with(n.buf, suffix[i]);
    strbuf_release(&n);
    return hit;
}

/* A string value that is a credential or a header carrying one. */
static int is_secret_value(const char *v)
{
    const char *colon;
    size_t len;
    while (*v == ' ' || *v == '\t')
        v++;
    if (!strncasecmp(v, "bearer ", 7) || !strncasecmp(v, "basic ", 6))
        return 1;
    len = strlen(v);
    if (!strncmp(v, "sk-", 3) && len >= 20 && !strchr(v, ' '))
        return 1;
    colon = strchr(v, ':');
    if (colon && colon > v && is_secret_name(v, (size_t)(colon - v)))
        return 1;
    return 0;
}

/* Walk a JSON value: refuse secret-looking keys and values. */
static int check_json(cJSON *node, const char *path, struct strbuf *why)
{
    cJSON *c;
    if (cJSON_IsString(node) && node->valuestring && is_secret_value(node->valuestring)) {
        strbuf_addf(why, "the value of \"%s\" looks like a credential", path);
        return -1;
    }
    if (cJSON_IsObject(node)) {
        for (c = node->child; c; c = c->next) {
            if (c->string && is_secret_name(c->string, strlen(c->string))) {
                strbuf_addf(why, "setting \"%s\" looks like a credential", c->string);
                return -1;
            }
            if (check_json(c, c->string ? c->string : path, why))
                return -1;
        }
    } else if (cJSON_IsArray(node)) {
        for (c = node->child; c; c = c->next)
            if (check_json(c, path, why))
                return -1;
    }
    return 0;
}

/* Canonical settings JSON (malloc'd) in *out, or -1 after error(). */
static int canonical_settings(const char *run, const char *json, char **out)
{
    cJSON *root;
    struct strbuf why = STRBUF_INIT;
    char *p;
    *out = NULL;
    if (!json)
        return 0;
    root = cJSON_Parse(json);
    if (!root || !cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return error("run '%s': settings must be a JSON object", run);
    }
    if (check_json(root, "settings", &why)) {
        error("run '%s': refusing to store the settings: %s (API keys and Authorization "
              "headers are never stored)",
              run, why.buf);
        strbuf_release(&why);
        cJSON_Delete(root);
        return -1;
    }
    strbuf_release(&why);
    sort_json_keys(root);
    p = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (!p)
        return error("run '%s': cannot serialise the settings", run);
    *out = xstrdup(p);
    cJSON_free(p);
    return 0;
}

/* Endpoints must not carry credentials (user:pass@host or ?api-key=...). */
static int check_endpoints(const char *run, const char *endpoints)
{
    struct strvec parts = STRVEC_INIT;
    struct strbuf n = STRBUF_INIT;
    size_t i;
    int rc = 0;
    if (!endpoints)
        return 0;
    strvec_split(&parts, endpoints, ',');
    for (i = 0; i < parts.nr && !rc; i++) {
        const char *u = parts.v[i], *auth = strstr(u, "://"), *q;
        size_t alen;
        auth = auth ? auth + 3 : u;
        alen = strcspn(auth, "/?#");
        if (memchr(auth, '@', alen))
            rc = -1;
        q = strchr(u, '?');
        while (q && !rc) {
            const char *name = q + 1;
            size_t nlen = strcspn(name, "=&#");
            if (is_secret_name(name, nlen))
                rc = -1;
            else {
                norm_name(&n, name, nlen);
                if (ends_with(n.buf, "key") || ends_with(n.buf, "token") || !strcmp(n.buf, "sig"))
                    rc = -1;
            }
            q = strchr(name, '&');
        }
    }
    if (rc)
        error("run '%s': refusing to store an endpoint with credentials in it (%s); pass keys "
              "through --api-key-env",
              run, parts.v[i - 1]);
    strbuf_release(&n);
    strvec_clear(&parts);
    return rc;
}

static int valid_run_name(const char *name)
{
    const unsigned char *p;
    if (!name || !*name || strlen(name) > 256)
        return 0;
    for (p = (const unsigned char *)name; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return 0;
    return 1;
}

/* Look a run's id up (cached). 0 found, 1 not found, -1 error. */
static int run_id(struct store *st, const char *name, sqlite3_int64 *id)
{
    size_t i;
    sqlite3_stmt *s;
    int rc;
    if (!name)
        return 1;
    for (i = 0; i < st->nids; i++)
        if (!strcmp(st->ids[i].name, name)) {
            *id = st->ids[i].id;
            return 0;
        }
    s = stmt_get(st, S_RUN_ID);
    if (!s)
        return -1;
    bind_text(s, 1, name);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        *id = sqlite3_column_int64(s, 0);
        sqlite3_reset(s);
        ALLOC_GROW(st->ids, st->nids + 1, st->aids);
        st->ids[st->nids].name = xstrdup(name);
        st->ids[st->nids++].id = *id;
        return 0;
    }
    sqlite3_reset(s);
    if (rc == SQLITE_DONE)
        return 1;
    return db_error(st, "cannot look up the run");
}

static int need_writable(struct store *st)
{
    if (st->readonly)
        return error("%s: opened read-only", st->path);
    return 0;
}

static int insert_run(struct store *st, const struct run_info *r, const char *settings)
{
    sqlite3_stmt *s = stmt_get(st, S_RUN_INSERT);
    int rc;
    if (!s)
        return -1;
    bind_text(s, 1, r->name);
    bind_text(s, 2, r->model_requested);
    bind_text(s, 3, r->model_served);
    bind_text(s, 4, r->endpoints);
    bind_text(s, 5, r->system_fingerprint);
    bind_text(s, 6, settings);
    bind_text(s, 7, r->golden_sha256);
    bind_text(s, 8, r->haystack_sha256);
    bind_text(s, 9, r->template_sha256);
    bind_text(s, 10, r->tokenizer_name);
    bind_text(s, 11, r->tokenizer_sha256);
    bind_text(s, 12, r->dipmap_version);
    bind_text(s, 13, r->dipmap_commit);
    bind_text(s, 14, r->tags);
    bind_text(s, 15, r->shard);
    sqlite3_bind_double(s, 16, r->created_at != 0 ? r->created_at : now_seconds());
    bind_time(s, 17, r->started_at);
    bind_time(s, 18, r->finished_at);
    bind_text(s, 19, run_status_name(r->status));
    sqlite3_bind_int64(s, 20, r->trials_planned);
    rc = sqlite3_step(s);
    sqlite3_reset(s);
    if (rc == SQLITE_CONSTRAINT_UNIQUE || (rc & 0xff) == SQLITE_CONSTRAINT) {
        error("%s: a run named '%s' already exists", st->path, r->name);
        return STORE_EEXIST;
    }
    if (rc != SQLITE_DONE)
        return db_error(st, "cannot create the run");
    return 0;
}

int store_run_create(struct store *st, const struct run_info *r)
{
    char *settings = NULL;
    int rc;
    if (need_writable(st))
        return -1;
    if (!valid_run_name(r->name))
        return error("invalid run name '%s' (1-256 characters, no control characters)",
                     r->name ? r->name : "");
    if (!r->model_requested || !*r->model_requested)
        return error("run '%s': no model given", r->name);
    if ((unsigned)r->status >= RUN_STATUS__COUNT)
        return error("run '%s': invalid status %d", r->name, (int)r->status);
    if (check_endpoints(r->name, r->endpoints) ||
        canonical_settings(r->name, r->settings_json, &settings))
        return -1;
    rc = insert_run(st, r, settings);
    free(settings);
    return rc;
}

static void run_from_row(sqlite3_stmt *s, struct run_info *r)
{
    run_info_init(r);
    r->name = col_text(s, 0);
    r->model_requested = col_text(s, 1);
    r->model_served = col_text(s, 2);
    r->endpoints = col_text(s, 3);
    r->system_fingerprint = col_text(s, 4);
    r->settings_json = col_text(s, 5);
    r->golden_sha256 = col_text(s, 6);
    r->haystack_sha256 = col_text(s, 7);
    r->template_sha256 = col_text(s, 8);
    r->tokenizer_name = col_text(s, 9);
    r->tokenizer_sha256 = col_text(s, 10);
    r->dipmap_version = col_text(s, 11);
    r->dipmap_commit = col_text(s, 12);
    r->tags = col_text(s, 13);
    r->shard = col_text(s, 14);
    r->created_at = col_time(s, 15);
    r->started_at = col_time(s, 16);
    r->finished_at = col_time(s, 17);
    if (run_status_parse((const char *)sqlite3_column_text(s, 18), &r->status))
        r->status = RUN_FAILED;
    r->trials_planned = (long)sqlite3_column_int64(s, 19);
    r->trials_done = (long)sqlite3_column_int64(s, 20);
    r->trials_stored = (long)sqlite3_column_int64(s, 21);
    r->lock_pid = (long)sqlite3_column_int64(s, 22);
    r->lock_host = col_text(s, 23);
    r->lock_heartbeat = col_time(s, 24);
}

int store_run_list(struct store *st, const struct run_filter *f, struct run_info **out, size_t *nr)
{
    sqlite3_stmt *s = stmt_get(st, S_RUN_LIST);
    size_t alloc = 0;
    int rc;
    *out = NULL;
    *nr = 0;
    if (!s)
        return -1;
    if (f) {
        bind_text(s, 1, f->model_prefix);
        bind_text(s, 2, f->tag);
        bind_text(s, 3, f->name);
    }
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        ALLOC_GROW(*out, *nr + 1, alloc);
        run_from_row(s, &(*out)[(*nr)++]);
    }
    sqlite3_reset(s);
    if (rc != SQLITE_DONE) {
        run_info_list_free(*out, *nr);
        *out = NULL;
        *nr = 0;
        return db_error(st, "cannot list runs");
    }
    return 0;
}

int store_run_get(struct store *st, const char *name, struct run_info *out)
{
    struct run_filter f = {NULL, NULL, name};
    struct run_info *v;
    size_t n;
    run_info_init(out);
    if (!name)
        return 1;
    if (store_run_list(st, &f, &v, &n))
        return -1;
    if (!n) {
        free(v);
        return 1;
    }
    *out = v[0];
    free(v);
    return 0;
}

/* Run an UPDATE on one run by name; an unknown run is an error. */
static int update_run_done(struct store *st, sqlite3_stmt *s, const char *name)
{
    if (stmt_done(st, s, "cannot update the run"))
        return -1;
    if (sqlite3_changes(st->db) == 0)
        return error("%s: no run named '%s'", st->path, name);
    return 0;
}

int store_run_update_status(struct store *st, const char *name, enum run_status status)
{
    sqlite3_stmt *s;
    if (need_writable(st))
        return -1;
    if ((unsigned)status >= RUN_STATUS__COUNT)
        return error("invalid run status %d", (int)status);
    s = stmt_get(st, S_RUN_STATUS);
    if (!s)
        return -1;
    bind_text(s, 1, name);
    bind_text(s, 2, run_status_name(status));
    sqlite3_bind_double(s, 3, now_seconds());
    return update_run_done(st, s, name);
}

int store_run_set_served(struct store *st, const char *name, const char *model_served,
                         const char *system_fingerprint)
{
    sqlite3_stmt *s;
    if (need_writable(st))
        return -1;
    s = stmt_get(st, S_RUN_SERVED);
    if (!s)
        return -1;
    bind_text(s, 1, name);
    bind_text(s, 2, model_served);
    bind_text(s, 3, system_fingerprint);
    return update_run_done(st, s, name);
}

int store_run_set_planned(struct store *st, const char *name, long trials_planned)
{
    sqlite3_stmt *s;
    if (need_writable(st))
        return -1;
    s = stmt_get(st, S_RUN_PLANNED);
    if (!s)
        return -1;
    bind_text(s, 1, name);
    sqlite3_bind_int64(s, 2, trials_planned);
    return update_run_done(st, s, name);
}

/* ---- locks --------------------------------------------------------------- */

static int pid_alive(long pid)
{
    if (pid <= 0)
        return 0;
    if (kill((pid_t)pid, 0) == 0)
        return 1;
    return errno != ESRCH;
}

int run_info_is_live(const struct run_info *r)
{
    char host[256] = {0};
    if (!r->lock_host || r->lock_pid <= 0)
        return 0;
    if (now_seconds() - r->lock_heartbeat > STORE_LOCK_STALE_SECONDS)
        return 0;
    if (gethostname(host, sizeof(host) - 1) == 0) {
        host[sizeof(host) - 1] = '\0';
        if (!strcmp(host, r->lock_host) && !pid_alive(r->lock_pid))
            return 0;
    }
    return 1;
}

static int holds_lock(struct store *st, const char *run)
{
    return strvec_find(&st->locked, run) >= 0;
}

int store_run_lock(struct store *st, const char *run, int stale_seconds)
{
    sqlite3_int64 id;
    sqlite3_stmt *s;
    int rc, free_lock = 1;
    double now;

    if (need_writable(st))
        return -1;
    if (stale_seconds <= 0)
        stale_seconds = STORE_LOCK_STALE_SECONDS;
    rc = run_id(st, run, &id);
    if (rc)
        return rc < 0 ? -1 : error("%s: no run named '%s' to lock", st->path, run);
    if (txn_begin(st))
        return -1;
    now = now_seconds();
    s = stmt_get(st, S_LOCK_GET);
    if (!s)
        goto fail;
    sqlite3_bind_int64(s, 1, id);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        long pid = (long)sqlite3_column_int64(s, 0);
        const char *host = (const char *)sqlite3_column_text(s, 1);
        const char *token = (const char *)sqlite3_column_text(s, 2);
        double beat = sqlite3_column_double(s, 3);
        int same_host = host && !strcmp(host, st->host);
        if (token && !strcmp(token, st->token)) {
            free_lock = 1; /* ours already: refresh */
        } else if (same_host && !pid_alive(pid)) {
            warning("run '%s': taking over the lock of pid %ld on %s (process is gone)", run, pid,
                    host);
        } else if (now - beat > stale_seconds) {
            warning("run '%s': taking over the lock of pid %ld on %s (no heartbeat for %.0fs)", run,
                    pid, host ? host : "?", now - beat);
        } else {
            error("run '%s' is in use by pid %ld on host %s (heartbeat %.0fs ago); wait for it "
                  "to finish, or stop that process and try again",
                  run, pid, host ? host : "?", now - beat < 0 ? 0 : now - beat);
            sqlite3_reset(s);
            txn_rollback(st);
            return STORE_ELOCKED;
        }
    } else if (rc != SQLITE_DONE) {
        sqlite3_reset(s);
        db_error(st, "cannot read the run lock");
        goto fail;
    }
    sqlite3_reset(s);
    (void)free_lock;
    s = stmt_get(st, S_LOCK_SET);
    if (!s)
        goto fail;
    sqlite3_bind_int64(s, 1, id);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)getpid());
    bind_text(s, 3, st->host);
    bind_text(s, 4, st->token);
    sqlite3_bind_double(s, 5, now);
    if (stmt_done(st, s, "cannot take the run lock") || txn_commit(st))
        goto fail;
    if (!holds_lock(st, run))
        strvec_push(&st->locked, run);
    return 0;
fail:
    txn_rollback(st);
    return -1;
}

/* Refresh heartbeats inside the caller's transaction; lost locks are dropped. */
static int beat_locks(struct store *st, int report)
{
    size_t i = 0;
    int rc = 0;
    double now = now_seconds();
    while (i < st->locked.nr) {
        sqlite3_int64 id;
        sqlite3_stmt *s;
        const char *run = st->locked.v[i];
        if (run_id(st, run, &id))
            return -1;
        s = stmt_get(st, S_LOCK_BEAT);
        if (!s)
            return -1;
        sqlite3_bind_int64(s, 1, id);
        bind_text(s, 2, st->token);
        sqlite3_bind_double(s, 3, now);
        if (stmt_done(st, s, "cannot refresh the run lock"))
            return -1;
        if (sqlite3_changes(st->db) == 0) {
            if (report)
                rc = error("run '%s': this process lost its lock (taken over as stale)", run);
            else
                warning("run '%s': this process lost its lock (taken over as stale)", run);
            /* remove entry i */
            free(st->locked.v[i]);
            memmove(&st->locked.v[i], &st->locked.v[i + 1],
                    (st->locked.nr - i) * sizeof(*st->locked.v));
            st->locked.nr--;
            continue;
        }
        i++;
    }
    return rc;
}

int store_run_heartbeat(struct store *st)
{
    int rc;
    if (!st->locked.nr)
        return 0;
    if (txn_begin(st))
        return -1;
    rc = beat_locks(st, 1);
    if (txn_commit(st)) {
        txn_rollback(st);
        return -1;
    }
    return rc;
}

int store_run_unlock(struct store *st, const char *run)
{
    sqlite3_int64 id;
    sqlite3_stmt *s;
    long ix = strvec_find(&st->locked, run);
    if (ix < 0)
        return 0;
    if (run_id(st, run, &id))
        return -1;
    s = stmt_get(st, S_LOCK_DEL);
    if (!s)
        return -1;
    sqlite3_bind_int64(s, 1, id);
    bind_text(s, 2, st->token);
    if (stmt_done(st, s, "cannot release the run lock"))
        return -1;
    free(st->locked.v[ix]);
    memmove(&st->locked.v[ix], &st->locked.v[ix + 1],
            (st->locked.nr - (size_t)ix) * sizeof(*st->locked.v));
    st->locked.nr--;
    return 0;
}

/* ---- trials -------------------------------------------------------------- */

static void trial_copy(struct trial_result *dst, const struct trial_result *src)
{
    *dst = *src;
    dst->question_id = xstrdup_or_null(src->question_id);
    dst->finish_reason = xstrdup_or_null(src->finish_reason);
    dst->answer = xstrdup_or_null(src->answer);
    dst->reasoning = xstrdup_or_null(src->reasoning);
    dst->error = xstrdup_or_null(src->error);
}

static int check_trial(const char *run, const struct trial_result *t)
{
    if (!t->question_id || !*t->question_id)
        return error("run '%s': trial without a question id", run);
    if (t->depth_bp < 0 || t->depth_bp > DEPTH_BP_MAX)
        return error("run '%s': trial %s: depth %d bp out of range", run, t->question_id,
                     t->depth_bp);
    if ((unsigned)t->outcome >= OUTCOME__COUNT)
        return error("run '%s': trial %s: invalid outcome %d", run, t->question_id,
                     (int)t->outcome);
    return 0;
}

static int queue_trial(struct store *st, const char *run, const struct trial_result *t, int merge)
{
    sqlite3_int64 id;
    int rc;
    struct op *o;
    if (need_writable(st) || check_trial(run, t))
        return -1;
    rc = run_id(st, run, &id);
    if (rc)
        return rc < 0 ? -1 : error("%s: no run named '%s'", st->path, run);
    ALLOC_GROW(st->ops, st->nops + 1, st->aops);
    o = &st->ops[st->nops++];
    memset(o, 0, sizeof(*o));
    o->kind = OP_TRIAL;
    o->merge = merge;
    o->run_id = id;
    trial_copy(&o->t, t);
    if (st->nops >= STORE_BATCH_MAX)
        return store_flush(st);
    return 0;
}

int store_trial_put(struct store *st, const char *run, const struct trial_result *t)
{
    return queue_trial(st, run, t, 0);
}

static int write_trial(struct store *st, const struct op *o)
{
    sqlite3_stmt *s = stmt_get(st, o->merge ? S_TRIAL_MERGE : S_TRIAL_UPSERT);
    const struct trial_result *t = &o->t;
    if (!s)
        return -1;
    sqlite3_bind_int64(s, 1, o->run_id);
    bind_text(s, 2, t->question_id);
    sqlite3_bind_int64(s, 3, t->length);
    sqlite3_bind_int(s, 4, t->depth_bp);
    sqlite3_bind_int(s, 5, t->repeat);
    bind_text(s, 6, t->prompt_sha256[0] ? t->prompt_sha256 : NULL);
    sqlite3_bind_int64(s, 7, t->realized_length);
    sqlite3_bind_int64(s, 8, t->usage_prompt_tokens);
    sqlite3_bind_double(s, 9, t->realized_depth);
    sqlite3_bind_int64(s, 10, t->gold_offset);
    bind_text(s, 11, outcome_name(t->outcome));
    sqlite3_bind_int(s, 12, t->http_status);
    sqlite3_bind_int(s, 13, t->attempts);
    sqlite3_bind_double(s, 14, t->latency_ms);
    sqlite3_bind_int64(s, 15, t->completion_tokens);
    bind_text(s, 16, t->finish_reason);
    bind_text(s, 17, t->answer);
    bind_text(s, 18, t->reasoning);
    sqlite3_bind_double(s, 19, t->score);
    bind_text(s, 20, t->error);
    bind_time(s, 21, t->finished_at);
    return stmt_done(st, s, "cannot write a trial");
}

static int write_prompt(struct store *st, const struct op *o)
{
    sqlite3_stmt *s = stmt_get(st, S_PROMPT_PUT);
    if (!s)
        return -1;
    bind_text(s, 1, o->sha);
    sqlite3_bind_text64(s, 2, o->text, o->len, SQLITE_STATIC, SQLITE_UTF8);
    return stmt_done(st, s, "cannot write a prompt");
}

int store_flush(struct store *st)
{
    size_t i;
    if (st->readonly)
        return 0;
    if (!st->nops && !st->locked.nr)
        return 0;
    if (txn_begin(st))
        return -1;
    for (i = 0; i < st->nops; i++) {
        const struct op *o = &st->ops[i];
        if (o->kind == OP_TRIAL) {
            if (write_trial(st, o))
                goto fail;
            if (o->merge && sqlite3_changes(st->db) == 0)
                st->merge_kept++;
        } else if (write_prompt(st, o)) {
            goto fail;
        }
    }
    if (beat_locks(st, 0) || txn_commit(st))
        goto fail;
    for (i = 0; i < st->nops; i++)
        op_release(&st->ops[i]);
    st->nops = 0;
    return 0;
fail:
    txn_rollback(st);
    return -1;
}

size_t store_pending(const struct store *st)
{
    return st->nops;
}

static void trial_from_row(sqlite3_stmt *s, struct trial_result *t)
{
    const unsigned char *sha;
    enum trial_outcome o;
    trial_result_init(t);
    t->question_id = col_text(s, 0);
    t->length = (long)sqlite3_column_int64(s, 1);
    t->depth_bp = sqlite3_column_int(s, 2);
    t->repeat = sqlite3_column_int(s, 3);
    sha = sqlite3_column_text(s, 4);
    if (sha) {
        size_t n = strlen((const char *)sha);
        if (n > SHA256_HEX_LEN)
            n = SHA256_HEX_LEN;
        memcpy(t->prompt_sha256, sha, n);
        t->prompt_sha256[n] = '\0';
    }
    t->realized_length = (long)sqlite3_column_int64(s, 5);
    t->usage_prompt_tokens = (long)sqlite3_column_int64(s, 6);
    t->realized_depth = col_real_nan(s, 7);
    t->gold_offset = (long)sqlite3_column_int64(s, 8);
    t->outcome = outcome_parse((const char *)sqlite3_column_text(s, 9), &o) ? OUTCOME_ERROR : o;
    t->http_status = sqlite3_column_int(s, 10);
    t->attempts = sqlite3_column_int(s, 11);
    t->latency_ms = col_real_nan(s, 12);
    t->completion_tokens = (long)sqlite3_column_int64(s, 13);
    t->finish_reason = col_text(s, 14);
    t->answer = col_text(s, 15);
    t->reasoning = col_text(s, 16);
    t->score = col_real_nan(s, 17);
    t->error = col_text(s, 18);
    t->finished_at = col_time(s, 19);
}

int store_trials_each(struct store *st, const char *run, store_trial_fn fn, void *data)
{
    sqlite3_int64 id;
    sqlite3_stmt *s;
    int rc = run_id(st, run, &id);
    if (rc)
        return rc;
    /* A private statement: fn may call back into the store (e.g. merge puts). */
    if (sqlite3_prepare_v2(st->db, stmt_sql[S_TRIAL_SELECT], -1, &s, NULL) != SQLITE_OK) {
        sqlite3_finalize(s);
        return db_error(st, "cannot read trials");
    }
    sqlite3_bind_int64(s, 1, id);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        struct trial_result t;
        int r;
        trial_from_row(s, &t);
        r = fn(&t, data);
        trial_result_release(&t);
        if (r) {
            sqlite3_finalize(s);
            return r;
        }
    }
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE)
        return db_error(st, "cannot read trials");
    return 0;
}

struct load_ctx {
    struct trial_result *v;
    size_t nr, alloc;
};

static int load_one(const struct trial_result *t, void *data)
{
    struct load_ctx *c = data;
    ALLOC_GROW(c->v, c->nr + 1, c->alloc);
    trial_copy(&c->v[c->nr++], t);
    return 0;
}

int store_trials_load(struct store *st, const char *run, struct trial_result **out, size_t *nr)
{
    struct load_ctx c = {NULL, 0, 0};
    int rc = store_trials_each(st, run, load_one, &c);
    *out = NULL;
    *nr = 0;
    if (rc) {
        store_trials_free(c.v, c.nr);
        return rc;
    }
    *out = c.v;
    *nr = c.nr;
    return 0;
}

void store_trials_free(struct trial_result *v, size_t nr)
{
    size_t i;
    for (i = 0; i < nr; i++)
        trial_result_release(&v[i]);
    free(v);
}

/* ---- done set ------------------------------------------------------------ */

struct done_entry {
    char *qid; /* NULL = empty slot */
    long length;
    int depth_bp;
    int repeat;
};

struct store_done_set {
    struct done_entry *slots;
    size_t cap; /* power of two */
    size_t nr;
};

static size_t key_hash(const char *qid, long length, int depth, int repeat)
{
    unsigned long long h = 1469598103934665603ULL;
    const unsigned char *p;
    for (p = (const unsigned char *)qid; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    h = (h ^ (unsigned long long)length) * 1099511628211ULL;
    h = (h ^ (unsigned long long)(unsigned)depth) * 1099511628211ULL;
    h = (h ^ (unsigned long long)(unsigned)repeat) * 1099511628211ULL;
    return (size_t)(h ^ (h >> 29));
}

static struct done_entry *done_find(const struct store_done_set *s, const char *qid, long length,
                                    int depth, int repeat)
{
    size_t i = key_hash(qid, length, depth, repeat) & (s->cap - 1);
    for (;;) {
        struct done_entry *e = &s->slots[i];
        if (!e->qid || (e->length == length && e->depth_bp == depth && e->repeat == repeat &&
                        !strcmp(e->qid, qid)))
            return e;
        i = (i + 1) & (s->cap - 1);
    }
}

static void done_add(struct store_done_set *s, char *qid, long length, int depth, int repeat)
{
    struct done_entry *e;
    if ((s->nr + 1) * 2 > s->cap) {
        struct store_done_set bigger = {NULL, s->cap * 2, 0};
        size_t i;
        bigger.slots = xcalloc(bigger.cap, sizeof(*bigger.slots));
        for (i = 0; i < s->cap; i++)
            if (s->slots[i].qid) {
                struct done_entry *d = done_find(&bigger, s->slots[i].qid, s->slots[i].length,
                                                 s->slots[i].depth_bp, s->slots[i].repeat);
                *d = s->slots[i];
            }
        free(s->slots);
        s->slots = bigger.slots;
        s->cap = bigger.cap;
    }
    e = done_find(s, qid, length, depth, repeat);
    if (e->qid) {
        free(qid);
        return;
    }
    e->qid = qid;
    e->length = length;
    e->depth_bp = depth;
    e->repeat = repeat;
    s->nr++;
}

struct store_done_set *store_done_set_load(struct store *st, const char *run, unsigned flags)
{
    struct store_done_set *set = xcalloc(1, sizeof(*set));
    sqlite3_int64 id;
    sqlite3_stmt *s;
    int rc;
    set->cap = 64;
    set->slots = xcalloc(set->cap, sizeof(*set->slots));
    rc = run_id(st, run, &id);
    if (rc > 0)
        return set;
    if (rc < 0 || !(s = stmt_get(st, S_DONE))) {
        store_done_set_free(set);
        return NULL;
    }
    sqlite3_bind_int64(s, 1, id);
    sqlite3_bind_int(s, 2, (flags & STORE_DONE_KEEP_ERRORS) ? 1 : 0);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        done_add(set, col_text(s, 0), (long)sqlite3_column_int64(s, 1), sqlite3_column_int(s, 2),
                 sqlite3_column_int(s, 3));
    sqlite3_reset(s);
    if (rc != SQLITE_DONE) {
        db_error(st, "cannot read finished trials");
        store_done_set_free(set);
        return NULL;
    }
    return set;
}

int store_done_set_has(const struct store_done_set *s, const struct trial_key *k)
{
    if (!s || !k->question_id)
        return 0;
    return done_find(s, k->question_id, k->length, k->depth_bp, k->repeat)->qid != NULL;
}

size_t store_done_set_count(const struct store_done_set *s)
{
    return s ? s->nr : 0;
}

void store_done_set_free(struct store_done_set *s)
{
    size_t i;
    if (!s)
        return;
    for (i = 0; i < s->cap; i++)
        free(s->slots[i].qid);
    free(s->slots);
    free(s);
}

/* ---- token counts -------------------------------------------------------- */

static char *count_key(const char *tokenizer, const char *sha)
{
    struct strbuf k = STRBUF_INIT;
    strbuf_addf(&k, "%s\n%s", tokenizer, sha);
    return strbuf_detach(&k, NULL);
}

int store_count_get(struct store *st, const char *tokenizer, const char *text_sha256, long *count)
{
    sqlite3_stmt *s;
    int rc;
    if (!tokenizer || !text_sha256)
        return 0;
    if (st->ncounts) {
        char *k = count_key(tokenizer, text_sha256);
        size_t i;
        for (i = 0; i < st->ncounts; i++)
            if (!strcmp(st->counts[i].key, k)) {
                *count = st->counts[i].count;
                free(k);
                return 1;
            }
        free(k);
    }
    s = stmt_get(st, S_COUNT_GET);
    if (!s)
        return -1;
    bind_text(s, 1, tokenizer);
    bind_text(s, 2, text_sha256);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        *count = (long)sqlite3_column_int64(s, 0);
        sqlite3_reset(s);
        return 1;
    }
    sqlite3_reset(s);
    if (rc == SQLITE_DONE)
        return 0;
    return db_error(st, "cannot read the token-count cache");
}

int store_count_put(struct store *st, const char *tokenizer, const char *text_sha256, long count)
{
    sqlite3_stmt *s;
    if (!tokenizer || !text_sha256)
        return error("store_count_put: tokenizer and hash are required");
    if (st->readonly) {
        ALLOC_GROW(st->counts, st->ncounts + 1, st->acounts);
        st->counts[st->ncounts].key = count_key(tokenizer, text_sha256);
        st->counts[st->ncounts++].count = count;
        return 0;
    }
    s = stmt_get(st, S_COUNT_PUT);
    if (!s)
        return -1;
    bind_text(s, 1, tokenizer);
    bind_text(s, 2, text_sha256);
    sqlite3_bind_int64(s, 3, count);
    return stmt_done(st, s, "cannot write the token-count cache");
}

/* ---- prompts ------------------------------------------------------------- */

int store_prompt_put(struct store *st, const char *text, size_t len,
                     char sha_out[SHA256_HEX_LEN + 1])
{
    struct op *o;
    char sha[SHA256_HEX_LEN + 1];
    size_t i;
    sha256_hex(text, len, sha);
    if (sha_out)
        memcpy(sha_out, sha, sizeof(sha));
    if (need_writable(st))
        return -1;
    for (i = 0; i < st->nops; i++)
        if (st->ops[i].kind == OP_PROMPT && !strcmp(st->ops[i].sha, sha))
            return 0;
    ALLOC_GROW(st->ops, st->nops + 1, st->aops);
    o = &st->ops[st->nops++];
    memset(o, 0, sizeof(*o));
    trial_result_init(&o->t);
    o->kind = OP_PROMPT;
    o->text = xmemdup(text, len);
    o->len = len;
    memcpy(o->sha, sha, sizeof(sha));
    if (st->nops >= STORE_BATCH_MAX)
        return store_flush(st);
    return 0;
}

int store_prompt_get(struct store *st, const char *sha256, char **text, size_t *len)
{
    sqlite3_stmt *s = stmt_get(st, S_PROMPT_GET);
    int rc;
    *text = NULL;
    *len = 0;
    if (!s)
        return -1;
    bind_text(s, 1, sha256);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        const void *p = sqlite3_column_blob(s, 0);
        *len = (size_t)sqlite3_column_bytes(s, 0);
        *text = xmemdup(p ? p : "", *len);
        sqlite3_reset(s);
        return 1;
    }
    sqlite3_reset(s);
    if (rc == SQLITE_DONE)
        return 0;
    return db_error(st, "cannot read a prompt");
}

/* ---- merge --------------------------------------------------------------- */

/* One run name across the merge: the first definition and the shard bookkeeping. */
struct merge_run {
    struct run_info info; /* first definition seen (output first, then inputs) */
    const char *from;     /* file it came from */
    int in_out;           /* already in the output store */
    struct strvec shards; /* shard tokens accounted for ("" = whole run) */
    long planned;
    int rank; /* worst status seen, see status_rank() */
    double started_at, finished_at;
};

static int status_rank(enum run_status s)
{
    switch (s) {
    case RUN_COMPLETE:
        return 0;
    case RUN_INTERRUPTED:
    case RUN_RUNNING:
        return 1;
    case RUN_BUDGET:
        return 2;
    default:
        return 3;
    }
}

static enum run_status rank_status(int rank)
{
    static const enum run_status s[] = {RUN_COMPLETE, RUN_INTERRUPTED, RUN_BUDGET, RUN_FAILED};
    return s[rank];
}

/* Account for one part (a run definition from one file) of a merged run. */
static void merge_account(struct merge_run *m, const struct run_info *r)
{
    struct strvec toks = STRVEC_INIT;
    size_t i;
    int fresh = 1;
    if (r->shard && *r->shard)
        strvec_split(&toks, r->shard, ',');
    else
        strvec_push(&toks, "");
    for (i = 0; i < toks.nr; i++)
        if (strvec_find(&m->shards, toks.v[i]) >= 0 || strvec_find(&m->shards, "") >= 0)
            fresh = 0;
    if (fresh) {
        m->planned += r->trials_planned;
        for (i = 0; i < toks.nr; i++)
            strvec_push(&m->shards, toks.v[i]);
    }
    if (status_rank(r->status) > m->rank)
        m->rank = status_rank(r->status);
    if (r->started_at != 0 && (m->started_at == 0 || r->started_at < m->started_at))
        m->started_at = r->started_at;
    if (r->finished_at > m->finished_at)
        m->finished_at = r->finished_at;
    strvec_clear(&toks);
}

/* The merged shard label: NULL when the parts cover a whole run. */
static char *merged_shard(const struct merge_run *m)
{
    struct strbuf sb = STRBUF_INIT;
    long n = -1;
    size_t i;
    int all_same_n = 1;
    if (strvec_find(&m->shards, "") >= 0)
        return NULL;
    for (i = 0; i < m->shards.nr; i++) {
        const char *slash = strchr(m->shards.v[i], '/');
        long k = slash ? strtol(slash + 1, NULL, 10) : -1;
        if (n < 0)
            n = k;
        else if (k != n)
            all_same_n = 0;
        strbuf_addf(&sb, "%s%s", i ? "," : "", m->shards.v[i]);
    }
    if (all_same_n && n > 0 && (size_t)n == m->shards.nr) {
        strbuf_release(&sb);
        return NULL;
    }
    return strbuf_detach(&sb, NULL);
}

struct merge_copy {
    struct store *out;
    const char *run;
};

static int merge_trial(const struct trial_result *t, void *data)
{
    struct merge_copy *c = data;
    return queue_trial(c->out, c->run, t, 1) ? -1 : 0;
}

static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) || stat(b, &sb))
        return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Copy the prompts and token counts of `in` into `out` (inside out's transaction). */
static int merge_extras(struct store *out, struct store *in)
{
    sqlite3_stmt *s = NULL;
    int rc;
    if (sqlite3_prepare_v2(in->db, stmt_sql[S_PROMPT_ALL], -1, &s, NULL) != SQLITE_OK)
        goto fail;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        struct op o;
        memset(&o, 0, sizeof(o));
        o.kind = OP_PROMPT;
        o.text = (char *)sqlite3_column_blob(s, 1);
        o.len = (size_t)sqlite3_column_bytes(s, 1);
        snprintf(o.sha, sizeof(o.sha), "%s", (const char *)sqlite3_column_text(s, 0));
        if (!o.text)
            o.text = (char *)"";
        if (write_prompt(out, &o)) {
            sqlite3_finalize(s);
            return -1;
        }
    }
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE)
        goto fail;
    if (sqlite3_prepare_v2(in->db, stmt_sql[S_COUNT_ALL], -1, &s, NULL) != SQLITE_OK)
        goto fail;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (store_count_put(out, (const char *)sqlite3_column_text(s, 0),
                            (const char *)sqlite3_column_text(s, 1),
                            (long)sqlite3_column_int64(s, 2))) {
            sqlite3_finalize(s);
            return -1;
        }
    }
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE)
        goto fail;
    return 0;
fail:
    sqlite3_finalize(s);
    return db_error(in, "cannot read prompts or token counts");
}

int store_merge(const char *out_path, const char *const *in_paths, size_t nin)
{
    struct store *out = NULL, **ins = NULL;
    struct merge_run *runs = NULL;
    size_t nruns = 0, aruns = 0, i, j;
    int rc = -1;

    if (!nin)
        return error("merge: no input databases");
    ins = xcalloc(nin, sizeof(*ins));
    for (i = 0; i < nin; i++) {
        if (same_file(out_path, in_paths[i])) {
            error("merge: %s is both the output and an input", in_paths[i]);
            goto cleanup;
        }
        ins[i] = store_open(in_paths[i], STORE_READONLY);
        if (!ins[i])
            goto cleanup;
    }
    out = store_open(out_path, STORE_CREATE);
    if (!out)
        goto cleanup;

    /* Pass 1: collect every run name and check that its parts agree. Nothing is written. */
    for (i = 0; i <= nin; i++) {
        struct store *st = i == 0 ? out : ins[i - 1];
        struct run_info *v;
        size_t n, k;
        if (store_run_list(st, NULL, &v, &n))
            goto cleanup;
        for (k = 0; k < n; k++) {
            struct merge_run *m = NULL;
            const char *field;
            for (j = 0; j < nruns; j++)
                if (!strcmp(runs[j].info.name, v[k].name))
                    m = &runs[j];
            if (!m) {
                ALLOC_GROW(runs, nruns + 1, aruns);
                m = &runs[nruns++];
                memset(m, 0, sizeof(*m));
                strvec_init(&m->shards);
                m->info = v[k];
                run_info_init(&v[k]);
                m->from = store_path(st);
                m->in_out = i == 0;
                merge_account(m, &m->info);
                continue;
            }
            if (!run_info_same_inputs(&m->info, &v[k], &field)) {
                error("merge: %s and %s hold different runs named '%s' (%s differs); refusing "
                      "to merge shards of different runs",
                      m->from, store_path(st), v[k].name, field);
                run_info_list_free(v, n);
                rc = STORE_EMISMATCH;
                goto cleanup;
            }
            merge_account(m, &v[k]);
        }
        run_info_list_free(v, n);
    }

    /* Pass 2: write everything in one transaction (all or nothing). */
    if (exec_simple(out, S_BEGIN, "cannot begin the merge"))
        goto cleanup;
    out->in_outer_txn = 1;
    for (j = 0; j < nruns; j++) {
        struct merge_run *m = &runs[j];
        sqlite3_stmt *s;
        char *shard = merged_shard(m);
        if (!m->in_out && insert_run(out, &m->info, m->info.settings_json)) {
            free(shard);
            goto rollback;
        }
        s = stmt_get(out, S_RUN_MERGED);
        if (!s) {
            free(shard);
            goto rollback;
        }
        bind_text(s, 1, m->info.name);
        bind_text(s, 2, run_status_name(rank_status(m->rank)));
        sqlite3_bind_int64(s, 3, m->planned);
        bind_text(s, 4, shard);
        bind_time(s, 5, m->started_at);
        bind_time(s, 6, m->rank == 0 || m->finished_at != 0 ? m->finished_at : 0);
        if (stmt_done(out, s, "cannot update the merged run")) {
            free(shard);
            goto rollback;
        }
        free(shard);
        for (i = 0; i < nin; i++) {
            struct merge_copy c = {out, m->info.name};
            int r = store_trials_each(ins[i], m->info.name, merge_trial, &c);
            if (r < 0 || store_flush(out))
                goto rollback;
        }
    }
    for (i = 0; i < nin; i++)
        if (merge_extras(out, ins[i]))
            goto rollback;
    out->in_outer_txn = 0;
    if (exec_simple(out, S_COMMIT, "cannot commit the merge"))
        goto rollback;
    if (out->merge_kept)
        warning("merge: %zu trial(s) were present in more than one input; kept the first "
                "finished result of each",
                out->merge_kept);
    rc = 0;
    goto cleanup;
rollback:
    for (i = 0; i < out->nops; i++)
        op_release(&out->ops[i]);
    out->nops = 0;
    out->in_outer_txn = 0;
    txn_rollback(out);
cleanup:
    for (j = 0; j < nruns; j++) {
        run_info_release(&runs[j].info);
        strvec_clear(&runs[j].shards);
    }
    free(runs);
    if (out && store_close(out))
        rc = -1;
    for (i = 0; i < nin; i++)
        store_close(ins[i]);
    free(ins);
    return rc;
}

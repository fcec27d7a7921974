/*
 * Private to the store (store.c, store_run.c, store_trial.c, store_merge.c),
 * the way sqliteInt.h sits behind sqlite3.h: the handle, the prepared
 * statement ids, the write buffer and the helpers the four files share.
 * store.h stays the API; only these files include <sqlite3.h>.
 */
#ifndef STORE_INT_H
#define STORE_INT_H

#include <stddef.h>

#include <sqlite3.h>

#include "store/store.h"
#include "base/hashmap.h"
#include "base/strbuf.h"
#include "base/strvec.h"

/*
 * The trials table's columns (after run_id), one row each: the column, its SQL type, the schema
 * version that added it, what a store from before that version reads instead, how it is bound
 * and read (enum trial_col_kind) and the struct trial_result member it holds. The INSERT and its
 * upsert (store.c), the SELECT that reads trials back and the binding and reading
 * (store_trial.c) all come from these lists; the migrations (store.c) are frozen history, and
 * test_store's schema check holds a new store's table and the lists together. A new column is
 * one row here plus its migration. The key columns come first; F is the first row of each list
 * (a list without a leading comma), C every other. The key and prompt columns are also
 * batch_trials' (BATCH_TRIAL_COLUMNS).
 */
#define TRIAL_KEY_COLUMNS(F, C)                                                                    \
    F(question_id, "TEXT", 1, "''", TCOL_TEXT_NOT_NULL, question_id)                               \
    C(length, "INTEGER", 1, "0", TCOL_LONG, length)                                                \
    C(depth_bp, "INTEGER", 1, "0", TCOL_INT, depth_bp)                                             \
    C(repeat, "INTEGER", 1, "0", TCOL_INT, repeat)                                                 \
    C(axes, "TEXT", 6, "''", TCOL_TEXT_NOT_NULL, axes)
/* What a trial's prompt was: its facts (trial.h: struct prompt_facts) and request hash. */
#define TRIAL_PROMPT_COLUMNS(F, C)                                                                 \
    F(prompt_sha256, "TEXT", 1, "NULL", TCOL_SHA, facts.sha256)                                    \
    C(request_sha256, "TEXT", 3, "NULL", TCOL_SHA, request_sha256)                                 \
    C(realized_length, "INTEGER", 1, "NULL", TCOL_LONG, facts.realized_length)                     \
    C(realized_depth, "REAL", 1, "NULL", TCOL_REAL, facts.realized_depth)                          \
    C(gold_offset, "INTEGER", 1, "NULL", TCOL_LONG, facts.gold_offset)                             \
    C(gold_bm25_rank, "INTEGER", 11, "NULL", TCOL_LONG_POS, facts.gold_bm25_rank)                  \
    C(bm25_docs, "INTEGER", 11, "NULL", TCOL_LONG_POS, facts.bm25_docs)
/* What the server answered and how the trial went. */
#define TRIAL_ANSWER_COLUMNS(C)                                                                    \
    C(usage_prompt_tokens, "INTEGER", 1, "NULL", TCOL_LONG, usage_prompt_tokens)                   \
    C(outcome, "TEXT", 1, "NULL", TCOL_OUTCOME, outcome)                                           \
    C(http_status, "INTEGER", 1, "NULL", TCOL_INT, http_status)                                    \
    C(attempts, "INTEGER", 1, "NULL", TCOL_INT, attempts)                                          \
    C(latency_ms, "REAL", 1, "NULL", TCOL_REAL, latency_ms)                                        \
    C(completion_tokens, "INTEGER", 1, "NULL", TCOL_LONG, completion_tokens)                       \
    C(finish_reason, "TEXT", 1, "NULL", TCOL_TEXT, finish_reason)                                  \
    C(answer, "TEXT", 1, "NULL", TCOL_TEXT, answer)                                                \
    C(reasoning, "TEXT", 1, "NULL", TCOL_TEXT, reasoning)                                          \
    C(score, "REAL", 1, "NULL", TCOL_REAL, score)                                                  \
    C(error, "TEXT", 1, "NULL", TCOL_TEXT, error)                                                  \
    C(finished_at, "REAL", 1, "NULL", TCOL_TIME, finished_at)                                      \
    C(cut, "INTEGER", 3, "0", TCOL_BOOL, cut)                                                      \
    C(reasoning_tokens, "INTEGER", 3, "NULL", TCOL_LONG_OPT, reasoning_tokens)                     \
    C(reasoning_chars, "INTEGER", 3, "0", TCOL_LONG, reasoning_chars)                              \
    C(reused_from, "TEXT", 3, "NULL", TCOL_TEXT, reused_from)                                      \
    C(cache_n, "INTEGER", 4, "NULL", TCOL_LONG_OPT, cache_n)                                       \
    C(prompt_n, "INTEGER", 4, "NULL", TCOL_LONG_OPT, prompt_n)                                     \
    C(prompt_ms, "REAL", 4, "NULL", TCOL_REAL_OPT, prompt_ms)                                      \
    C(cached_tokens, "INTEGER", 5, "NULL", TCOL_LONG_OPT, cached_tokens)                           \
    C(sent_at, "REAL", 5, "NULL", TCOL_TIME, sent_at)
#define TRIAL_DATA_COLUMNS(F, C) TRIAL_PROMPT_COLUMNS(F, C) TRIAL_ANSWER_COLUMNS(C)
#define TRIAL_COLUMNS(C)         TRIAL_KEY_COLUMNS(C, C) TRIAL_DATA_COLUMNS(C, C)

/*
 * The batch_trials table's columns (after batch), the same way, members of struct
 * store_batch_trial (store_batch.c binds and reads them): its custom_id, then the trial's key
 * and prompt columns. The table came with schema version BATCH_TRIALS_SINCE: a trials column
 * from before it is a batch_trials column since then (BATCH_TRIAL_SINCE).
 */
#define BATCH_TRIALS_SINCE 10
#define BATCH_TRIAL_COLUMNS(C)                                                                     \
    C(custom_id, "TEXT", BATCH_TRIALS_SINCE, "NULL", TCOL_TEXT, custom_id)                         \
    TRIAL_KEY_COLUMNS(C, C) TRIAL_PROMPT_COLUMNS(C, C)
#define BATCH_TRIAL_SINCE(since) ((since) > BATCH_TRIALS_SINCE ? (since) : BATCH_TRIALS_SINCE)

/* How a column is bound from and read into its member (a NULL column reads as the unknown). */
enum trial_col_kind {
    TCOL_TEXT,          /* char *, malloc'd: NULL <-> NULL */
    TCOL_TEXT_NOT_NULL, /* char *, malloc'd: NULL binds '' */
    TCOL_SHA,      /* char[SHA256_HEX_LEN + 1]: "" <-> NULL; other than 64 characters reads "" */
    TCOL_LONG,     /* long: NULL reads 0 */
    TCOL_LONG_OPT, /* long: -1 (unknown) <-> NULL */
    TCOL_LONG_POS, /* long: 0 (unknown) <-> NULL */
    TCOL_INT,      /* int: NULL reads 0 */
    TCOL_BOOL,     /* int: binds 0 or 1 */
    TCOL_REAL,     /* double: NaN <-> NULL */
    TCOL_REAL_OPT, /* double: -1 (unknown) <-> NULL */
    TCOL_TIME,     /* double, unix time: 0 (unknown) <-> NULL */
    TCOL_OUTCOME   /* enum trial_outcome by its name; unknown names read as error */
};

/* 1 when e, a member, has the C type of a column kind (a long read through an int would be wrong).
 */
#define TCOL_TYPE_OK_TCOL_TEXT(e)          _Generic((e), char * : 1, default : 0)
#define TCOL_TYPE_OK_TCOL_TEXT_NOT_NULL(e) _Generic((e), char * : 1, default : 0)
#define TCOL_TYPE_OK_TCOL_SHA(e)           (sizeof(e) == SHA256_HEX_LEN + 1)
#define TCOL_TYPE_OK_TCOL_LONG(e)          _Generic((e), long : 1, default : 0)
#define TCOL_TYPE_OK_TCOL_LONG_OPT(e)      _Generic((e), long : 1, default : 0)
#define TCOL_TYPE_OK_TCOL_LONG_POS(e)      _Generic((e), long : 1, default : 0)
#define TCOL_TYPE_OK_TCOL_INT(e)           _Generic((e), int : 1, default : 0)
#define TCOL_TYPE_OK_TCOL_BOOL(e)          _Generic((e), int : 1, default : 0)
#define TCOL_TYPE_OK_TCOL_REAL(e)          _Generic((e), double : 1, default : 0)
#define TCOL_TYPE_OK_TCOL_REAL_OPT(e)      _Generic((e), double : 1, default : 0)
#define TCOL_TYPE_OK_TCOL_TIME(e)          _Generic((e), double : 1, default : 0)
#define TCOL_TYPE_OK_TCOL_OUTCOME(e)       _Generic((e), enum trial_outcome : 1, default : 0)
/* The columns by name: TC_question_id is the first, the SELECT's column TC_x is x. */
#define TRIAL_COL_ID(name, ...) TC_##name,
enum trial_col_id { TRIAL_COLUMNS(TRIAL_COL_ID) TC__COUNT };

struct trial_col {
    const char *name, *sql_type;
    int since;          /* the schema version that added the column */
    const char *before; /* SQL read instead from a store older than since */
    enum trial_col_kind kind;
    size_t offset; /* of the member in struct trial_result */
};
/* The rows of TRIAL_COLUMNS, in its order (store_trial.c). */
extern const struct trial_col store_trial_cols[TC__COUNT];
#define BATCH_TRIAL_COL_ID(name, ...) BTC_##name,
enum batch_trial_col_id { BATCH_TRIAL_COLUMNS(BATCH_TRIAL_COL_ID) BTC__COUNT };
/* The rows of BATCH_TRIAL_COLUMNS (offsets in struct store_batch_trial; store_batch.c). */
extern const struct trial_col store_batch_trial_cols[BTC__COUNT];
/* Binds column col of the record rec (its table's struct) to parameter i. */
void store_bind_col(sqlite3_stmt *s, int i, const void *rec, const struct trial_col *col);
/* Column c of row s, described by col, into rec; its texts only when texts is set. */
void store_read_col(sqlite3_stmt *s, int c, void *rec, const struct trial_col *col, int texts);

/* The upsert of a trial (store.c: S_TRIAL_UPSERT, S_TRIAL_MERGE add their WHERE). */
#define TRIAL_SQL_NAME(name, ...)      ", " #name
#define TRIAL_SQL_PARAM(name, ...)     ", ?"
#define TRIAL_SQL_SET_FIRST(name, ...) " " #name " = excluded." #name
#define TRIAL_SQL_SET(name, ...)       ", " #name " = excluded." #name
#define TRIAL_SQL_NAMES                TRIAL_COLUMNS(TRIAL_SQL_NAME)
#define TRIAL_SQL_PARAMS               TRIAL_COLUMNS(TRIAL_SQL_PARAM)
#define TRIAL_SQL_KEY                  TRIAL_KEY_COLUMNS(TRIAL_SQL_NAME, TRIAL_SQL_NAME)
#define TRIAL_SQL_SETS                 TRIAL_DATA_COLUMNS(TRIAL_SQL_SET_FIRST, TRIAL_SQL_SET)
#define TRIAL_UPSERT_SQL                                                                           \
    "INSERT INTO trials (run_id" TRIAL_SQL_NAMES ") VALUES (?" TRIAL_SQL_PARAMS ")"                \
    " ON CONFLICT (run_id" TRIAL_SQL_KEY ") DO UPDATE SET" TRIAL_SQL_SETS

/* Prepared statements, prepared on first use and kept for the handle's life. */
enum stmt_id {
    S_BEGIN,
    S_BEGIN_READ,
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
    S_RUN_USAGE,
    S_RUN_USAGE_BATCH,
    S_RUN_TAGS,
    S_RUN_SCORER_GET,
    S_RUN_SCORER_SET,
    S_RUN_SCHEDULES_GET,
    S_RUN_SCHEDULES_SET,
    S_RUN_MATRIX_GET,
    S_RUN_MATRIX_SET,
    S_RUN_PROBE_GET,
    S_RUN_PROBE_SET,
    S_RUN_SETTINGS_SET,
    S_GOLDEN_PUT,
    S_GOLDEN_GET,
    S_GOLDEN_ALL,
    S__COUNT
};

/* The SQL of each statement (store.c). */
extern const char *const store_stmt_sql[S__COUNT];

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

    struct strbuf err;    /* the last error (store_set_error, store_errmsg) */
    struct strvec locked; /* run names this handle holds the lock of */
    char token[40];
    char host[256];

    struct mem_count *counts; /* a read-only store's token counts, found by counts_map */
    size_t ncounts, acounts;
    struct hashmap counts_map;
};

/* ---- helpers (store.c) --------------------------------------------------- */

/*
 * store_set_error(st, "FILE: <what>: <sqlite message>"); returns -1 (store.h's conventions).
 */
int store_db_error(struct store *st, const char *what);
/*
 * Records why a store call fails (store_errmsg: the command prints it) and returns -1, printing
 * nothing (store_set_error() records and prints). The files moved to it (store_trial.c,
 * store_batch.c) print nothing themselves, except through store_db_error().
 */
int store_record_error(struct store *st, const char *fmt, ...) DM_PRINTF(2, 3);
/* Prints the reason a record-only failure left (store_record_error) as store_set_error() does;
 * returns -1. */
int store_print_error(struct store *st);
/* The statement for id, prepared on first use and reset; NULL after printing an error. */
sqlite3_stmt *store_stmt_get(struct store *st, enum stmt_id id);
/* Steps s to SQLITE_DONE: 0, or -1 after printing an error naming what. */
int store_stmt_done(struct store *st, sqlite3_stmt *s, const char *what);
int store_exec_simple(struct store *st, enum stmt_id id, const char *what);
/* BEGIN IMMEDIATE / COMMIT / ROLLBACK, skipped inside store_merge's outer transaction. */
int store_txn_begin(struct store *st);
int store_txn_commit(struct store *st);
void store_txn_rollback(struct store *st);
/* Binding and reading columns: NULL text binds NULL, NaN times bind NULL, col_text is malloc'd. */
void store_bind_text(sqlite3_stmt *s, int i, const char *v);
void store_bind_time(sqlite3_stmt *s, int i, double v);
char *store_col_text(sqlite3_stmt *s, int i);
double store_col_time(sqlite3_stmt *s, int i);
double store_col_real_nan(sqlite3_stmt *s, int i);
/* Frees what one buffered write owns. */
void store_op_release(struct op *o);

/* ---- runs and locks (store_run.c) ---------------------------------------- */

/* The row id of run name (cached per handle): 0, 1 when there is no such run, -1 on error. */
int store_run_id(struct store *st, const char *name, sqlite3_int64 *id);
/* 1 when name is a valid run name: 1-256 bytes, no control characters. */
int store_valid_run_name(const char *name);
/* 0 when the handle may write, else -1 after printing why. */
int store_need_writable(struct store *st);
/* Inserts the runs row of r with its canonical settings JSON. */
int store_insert_run(struct store *st, const struct run_info *r, const char *settings);
/* Refreshes the heartbeat of every lock this handle holds (report: print failures). */
int store_beat_locks(struct store *st, int report);

/* ---- trials and prompts (store_trial.c) ---------------------------------- */

/* Buffers one trial write (merge: keep an existing final row). */
int store_queue_trial(struct store *st, const char *run, const struct trial_result *t, int merge);
/*
 * The SELECT of a run's trials (?1 the run's id) in store_trial_cols' order, for a store of
 * schema version (a column added later reads as its `before`), appended to out.
 */
void store_trial_select_sql(int version, struct strbuf *out);
/* Writes one buffered OP_PROMPT. */
int store_write_prompt(struct store *st, const struct op *o);

#endif

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
    S_TRIAL_SELECT,
    S_TRIAL_SELECT_V2,
    S_TRIAL_SELECT_V3,
    S_TRIAL_SELECT_V4,
    S_TRIAL_SELECT_V5,
    S_TRIAL_SELECT_V10,
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
/* Writes one buffered OP_PROMPT. */
int store_write_prompt(struct store *st, const struct op *o);

#endif

/*
 * The batches table and the trials each batch holds (store_batch.h): what run --batch writes
 * before each step at the provider, so a killed run re-attaches to what it submitted.
 */
#include "store/store_batch.h"

#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "base/usage.h"
#include "base/xalloc.h"
#include "store/store-int.h"
#include "base/utc.h"

#include "base/banned.h"

void store_batch_release(struct store_batch *b)
{
    free(b->tag);
    free(b->state);
    free(b->input_file_id);
    free(b->batch_id);
    free(b->status);
    memset(b, 0, sizeof(*b));
}

void store_batch_list_free(struct store_batch *v, size_t nr)
{
    for (size_t i = 0; i < nr; i++)
        store_batch_release(&v[i]);
    free(v);
}

void store_batch_trials_free(struct store_batch_trial *v, size_t nr)
{
    for (size_t i = 0; i < nr; i++) {
        free(v[i].custom_id);
        free(v[i].question_id);
        free(v[i].axes);
    }
    free(v);
}

/* Prepare sql (not cached: batches are few); NULL after an error naming what. */
static sqlite3_stmt *prepare(struct store *st, const char *sql, const char *what)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
        store_db_error(st, what);
        sqlite3_finalize(s);
        return NULL;
    }
    return s;
}

/* Step s to its end and finalize it: 0 or -1 after an error naming what. */
static int done(struct store *st, sqlite3_stmt *s, const char *what)
{
    int rc = sqlite3_step(s);
    if (rc != SQLITE_DONE) {
        store_db_error(st, what);
        sqlite3_finalize(s);
        return -1;
    }
    sqlite3_finalize(s);
    return 0;
}

#define BATCH_TRIAL_COL_ROW(name_, type_, since_, before_, kind_, member_)                         \
    {.name = #name_,                                                                               \
     .sql_type = type_,                                                                            \
     .since = BATCH_TRIAL_SINCE(since_),                                                           \
     .before = before_,                                                                            \
     .kind = kind_,                                                                                \
     .offset = offsetof(struct store_batch_trial, member_)},
const struct trial_col store_batch_trial_cols[BTC__COUNT] = {
    BATCH_TRIAL_COLUMNS(BATCH_TRIAL_COL_ROW)};
#define BATCH_TRIAL_COL_CHECK(name_, type_, since_, before_, kind_, member_)                       \
    _Static_assert(TCOL_TYPE_OK_##kind_(((struct store_batch_trial *)0)->member_),                 \
                   "batch_trials column " #name_ ": " #kind_ " does not fit its member");
BATCH_TRIAL_COLUMNS(BATCH_TRIAL_COL_CHECK)

int store_batch_add(struct store *st, const char *run, const char *tag, long bytes,
                    const struct store_batch_trial *t, size_t n, long *id)
{
    sqlite3_int64 run_id;
    sqlite3_stmt *s;
    double now = utc_now();
    int rc;

    if (store_need_writable(st) || store_flush(st))
        return -1;
    rc = store_run_id(st, run, &run_id);
    if (rc)
        return rc < 0 ? -1 : store_record_error(st, "%s: no run '%s'", st->path, run);
    if (store_txn_begin(st))
        return -1;
    s = prepare(st,
                "INSERT INTO batches (run_id, tag, state, requests, bytes, created_at, "
                "updated_at) VALUES (?1, ?2, 'prepared', ?3, ?4, ?5, ?5)",
                "cannot record a batch");
    if (!s)
        goto fail;
    sqlite3_bind_int64(s, 1, run_id);
    store_bind_text(s, 2, tag);
    sqlite3_bind_int64(s, 3, (sqlite3_int64)n);
    sqlite3_bind_int64(s, 4, bytes);
    sqlite3_bind_double(s, 5, now);
    if (done(st, s, "cannot record a batch"))
        goto fail;
    *id = (long)sqlite3_last_insert_rowid(st->db);
    s = prepare(st,
                "INSERT INTO batch_trials (batch" BATCH_TRIAL_COLUMNS(
                    TRIAL_SQL_NAME) ") VALUES (?" BATCH_TRIAL_COLUMNS(TRIAL_SQL_PARAM) ")",
                "cannot record a batch's trials");
    if (!s)
        goto fail;
    for (size_t i = 0; i < n; i++) {
        sqlite3_reset(s);
        sqlite3_clear_bindings(s);
        sqlite3_bind_int64(s, 1, *id);
        for (int c = 0; c < BTC__COUNT; c++) /* parameter c + 2: after batch */
            store_bind_col(s, c + 2, &t[i], &store_batch_trial_cols[c]);
        if (sqlite3_step(s) != SQLITE_DONE) {
            store_db_error(st, "cannot record a batch's trials");
            sqlite3_finalize(s);
            goto fail;
        }
    }
    sqlite3_finalize(s);
    if (store_txn_commit(st))
        goto fail;
    return 0;
fail:
    store_txn_rollback(st);
    return -1;
}

int store_batch_set(struct store *st, long id, const char *state, const char *input_file_id,
                    const char *batch_id, const char *status)
{
    sqlite3_stmt *s;
    if (store_need_writable(st))
        return -1;
    s = prepare(st,
                "UPDATE batches SET state = ?2, input_file_id = coalesce(?3, input_file_id),"
                " batch_id = coalesce(?4, batch_id), status = coalesce(?5, status),"
                " updated_at = ?6 WHERE id = ?1",
                "cannot update a batch");
    if (!s)
        return -1;
    sqlite3_bind_int64(s, 1, id);
    store_bind_text(s, 2, state);
    store_bind_text(s, 3, input_file_id);
    store_bind_text(s, 4, batch_id);
    store_bind_text(s, 5, status);
    sqlite3_bind_double(s, 6, utc_now());
    return done(st, s, "cannot update a batch");
}

int store_batch_delete(struct store *st, long id)
{
    sqlite3_stmt *s;
    if (store_need_writable(st))
        return -1;
    /* foreign keys are on: the batch's trials go with it */
    s = prepare(st, "DELETE FROM batches WHERE id = ?1", "cannot delete a batch");
    if (!s)
        return -1;
    sqlite3_bind_int64(s, 1, id);
    return done(st, s, "cannot delete a batch");
}

int store_batch_list(struct store *st, const char *run, struct store_batch **out, size_t *nr)
{
    sqlite3_int64 run_id;
    sqlite3_stmt *s;
    size_t alloc = 0;
    int rc;

    *out = NULL;
    *nr = 0;
    if (st->version < 10)
        return 0; /* a read-only handle on an older store: no batches */
    rc = store_run_id(st, run, &run_id);
    if (rc)
        return rc;
    s = prepare(st,
                "SELECT id, tag, state, input_file_id, batch_id, status, requests, bytes,"
                " created_at, updated_at FROM batches WHERE run_id = ?1 ORDER BY id",
                "cannot read the batches");
    if (!s)
        return -1;
    sqlite3_bind_int64(s, 1, run_id);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        struct store_batch *b;
        ALLOC_GROW(*out, *nr + 1, alloc);
        b = &(*out)[(*nr)++];
        memset(b, 0, sizeof(*b));
        b->id = (long)sqlite3_column_int64(s, 0);
        b->tag = store_col_text(s, 1);
        b->state = store_col_text(s, 2);
        b->input_file_id = store_col_text(s, 3);
        b->batch_id = store_col_text(s, 4);
        b->status = store_col_text(s, 5);
        b->requests = (long)sqlite3_column_int64(s, 6);
        b->bytes = (long)sqlite3_column_int64(s, 7);
        b->created_at = sqlite3_column_double(s, 8);
        b->updated_at = sqlite3_column_double(s, 9);
    }
    if (rc != SQLITE_DONE) {
        store_db_error(st, "cannot read the batches");
        sqlite3_finalize(s);
        store_batch_list_free(*out, *nr);
        *out = NULL;
        *nr = 0;
        return -1;
    }
    sqlite3_finalize(s);
    return 0;
}

int store_batch_trials(struct store *st, long id, struct store_batch_trial **out, size_t *nr)
{
    sqlite3_stmt *s;
    size_t alloc = 0;
    int rc;

    *out = NULL;
    *nr = 0;
    /* a SELECT of the columns of BATCH_TRIAL_COLUMNS, in its order */
    s = prepare(
        st,
        "SELECT batch" BATCH_TRIAL_COLUMNS(TRIAL_SQL_NAME) " FROM batch_trials WHERE batch = ?1",
        "cannot read a batch's trials");
    if (!s)
        return -1;
    sqlite3_bind_int64(s, 1, id);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        struct store_batch_trial *t;
        ALLOC_GROW(*out, *nr + 1, alloc);
        t = &(*out)[(*nr)++];
        memset(t, 0, sizeof(*t));
        for (int c = 0; c < BTC__COUNT; c++) /* column c + 1: after batch */
            store_read_col(s, c + 1, t, &store_batch_trial_cols[c], 1);
    }
    if (rc != SQLITE_DONE) {
        store_db_error(st, "cannot read a batch's trials");
        sqlite3_finalize(s);
        store_batch_trials_free(*out, *nr);
        *out = NULL;
        *nr = 0;
        return -1;
    }
    sqlite3_finalize(s);
    return 0;
}

/*
 * Removing and renaming runs (`dipmap rm`, `dipmap rename`). Both take the run's lock
 * first (store_run_lock's rule: a run another live process holds is refused), then work in
 * one transaction, so a crash leaves the run whole or gone, never half.
 *
 * Removing deletes the runs row; its trials, lock and batches go with it (every table that
 * references runs(id) does so ON DELETE CASCADE). The content-addressed rows it leaves
 * unreferenced go too: a stored prompt is kept while any table's prompt_sha256 column
 * names it (prompt_gc_sql), a golden set while any run's golden_sha256 names it. Other runs
 * are never touched.
 */
#include <stdlib.h>
#include <string.h>

#include "store/store-int.h"
#include "base/usage.h"
#include "base/xalloc.h"

#include "base/banned.h"

/* Drops name from the handle's id cache and lock list (the rows are gone or renamed). */
static void forget_run(struct store *st, const char *name)
{
    size_t i;
    long ix;
    for (i = 0; i < st->nids; i++)
        if (!strcmp(st->ids[i].name, name)) {
            free(st->ids[i].name);
            st->ids[i] = st->ids[--st->nids];
            break;
        }
    ix = strvec_find(&st->locked, name);
    if (ix >= 0) {
        free(st->locked.v[ix]);
        memmove(&st->locked.v[ix], &st->locked.v[ix + 1],
                (st->locked.nr - (size_t)ix) * sizeof(*st->locked.v));
        st->locked.nr--;
    }
}

/* Runs sql with the run id bound to every ?1; 0 or -1 after an error naming what. */
static int exec_run(struct store *st, const char *sql, sqlite3_int64 id, const char *what)
{
    sqlite3_stmt *s = NULL;
    int rc;
    if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
        return store_db_error(st, what);
    if (id)
        sqlite3_bind_int64(s, 1, id);
    rc = sqlite3_step(s);
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return store_db_error(st, what);
    return 0;
}

/* The one integer sql returns, with the run id bound to ?1 unless 0; -1 after an error. */
static long query_long(struct store *st, const char *sql, sqlite3_int64 id)
{
    sqlite3_stmt *s = NULL;
    long v = -1;
    if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
        return store_db_error(st, "cannot read the store");
    if (id)
        sqlite3_bind_int64(s, 1, id);
    if (sqlite3_step(s) == SQLITE_ROW)
        v = (long)sqlite3_column_int64(s, 0);
    else
        store_db_error(st, "cannot read the store");
    sqlite3_finalize(s);
    return v;
}

/*
 * The stored prompts the deleted run named that no row names any more: one NOT IN per table
 * with a prompt_sha256 column (each builds one index: linear in the store, not prompts x
 * trials). A schema that adds such a column adds its table here; test 985 checks the list
 * against the schema.
 */
static const char prompt_gc_sql[] =
    "DELETE FROM prompts WHERE sha256 IN (SELECT sha FROM temp.rm_prompts)"
    " AND sha256 NOT IN (SELECT prompt_sha256 FROM trials WHERE prompt_sha256 IS NOT NULL)"
    " AND sha256 NOT IN (SELECT prompt_sha256 FROM batch_trials WHERE prompt_sha256 IS NOT NULL)";

/* The run's id after taking its lock: 0, 1 when there is no such run, -1 when refused. */
static int lock_existing(struct store *st, const char *name, sqlite3_int64 *id)
{
    int rc;
    if (store_need_writable(st) || store_flush(st))
        return -1;
    rc = store_run_id(st, name, id);
    if (rc)
        return rc;
    return store_run_lock(st, name, 0) ? -1 : 0;
}

int store_run_delete(struct store *st, const char *name, struct store_rm_result *out)
{
    sqlite3_int64 id;
    long before_prompts, before_golden;
    int rc = lock_existing(st, name, &id);

    memset(out, 0, sizeof(*out));
    if (rc)
        return rc;
    if (store_txn_begin(st))
        return -1;
    out->trials = query_long(st, "SELECT count(*) FROM trials WHERE run_id = ?1", id);
    before_prompts = query_long(st, "SELECT count(*) FROM prompts", 0);
    before_golden = st->version >= 3 ? query_long(st, "SELECT count(*) FROM golden_sets", 0) : 0;
    if (out->trials < 0 || before_prompts < 0 || before_golden < 0)
        goto fail;
    if (exec_run(st,
                 "CREATE TEMP TABLE IF NOT EXISTS rm_prompts (sha TEXT PRIMARY KEY) WITHOUT ROWID",
                 0, "cannot make a scratch table") ||
        exec_run(st, "DELETE FROM temp.rm_prompts", 0, "cannot make a scratch table") ||
        exec_run(st,
                 "INSERT OR IGNORE INTO temp.rm_prompts SELECT prompt_sha256 FROM trials"
                 " WHERE run_id = ?1 AND prompt_sha256 IS NOT NULL",
                 id, "cannot collect the run's prompts") ||
        exec_run(st,
                 "CREATE TEMP TABLE IF NOT EXISTS rm_golden (sha TEXT PRIMARY KEY) WITHOUT ROWID",
                 0, "cannot make a scratch table") ||
        exec_run(st, "DELETE FROM temp.rm_golden", 0, "cannot make a scratch table") ||
        exec_run(st,
                 "INSERT OR IGNORE INTO temp.rm_golden SELECT golden_sha256 FROM runs"
                 " WHERE id = ?1 AND golden_sha256 IS NOT NULL",
                 id, "cannot collect the run's golden set") ||
        exec_run(st, "DELETE FROM runs WHERE id = ?1", id, "cannot delete the run"))
        goto fail;
    if (exec_run(st, prompt_gc_sql, 0, "cannot delete the run's prompts"))
        goto fail;
    if (st->version >= 3 &&
        exec_run(st,
                 "DELETE FROM golden_sets WHERE sha256 IN (SELECT sha FROM temp.rm_golden)"
                 " AND sha256 NOT IN (SELECT golden_sha256 FROM runs"
                 " WHERE golden_sha256 IS NOT NULL)",
                 0, "cannot delete the run's golden set"))
        goto fail;
    out->prompts = before_prompts - query_long(st, "SELECT count(*) FROM prompts", 0);
    out->golden_sets = st->version >= 3
                           ? before_golden - query_long(st, "SELECT count(*) FROM golden_sets", 0)
                           : 0;
    if (store_txn_commit(st))
        goto fail;
    forget_run(st, name);
    return 0;
fail:
    store_txn_rollback(st);
    return -1;
}

int store_run_rename(struct store *st, const char *old_name, const char *new_name)
{
    sqlite3_int64 id, other;
    sqlite3_stmt *s = NULL;
    int rc;

    if (!store_valid_run_name(new_name))
        return store_set_error(st,
                               "invalid run name '%s' (1-256 characters, no control characters)",
                               new_name ? new_name : "");
    rc = lock_existing(st, old_name, &id);
    if (rc)
        return rc;
    rc = store_run_id(st, new_name, &other);
    if (rc <= 0)
        return rc < 0 ? -1
                      : store_set_error(
                            st, "%s: a run named '%s' exists already; remove it first (dipmap rm)",
                            st->path, new_name);
    if (store_txn_begin(st))
        return -1;
    if (sqlite3_prepare_v2(st->db, "UPDATE runs SET name = ?2 WHERE id = ?1", -1, &s, NULL) !=
        SQLITE_OK)
        goto fail;
    sqlite3_bind_int64(s, 1, id);
    store_bind_text(s, 2, new_name);
    rc = sqlite3_step(s);
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE || store_txn_commit(st))
        goto fail;
    forget_run(st, old_name);
    /* the lock row follows the id; the handle holds it under the new name now */
    strvec_push(&st->locked, new_name);
    return 0;
fail:
    store_db_error(st, "cannot rename the run");
    store_txn_rollback(st);
    return -1;
}

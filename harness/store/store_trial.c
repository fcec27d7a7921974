/*
 * Trials in the store: the batched write buffer (trials and content-addressed
 * prompts, flushed in one transaction), reading a run's trials back, the
 * done set that resume skips, and the token-count cache.
 */
#include "store/store.h"

#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "run/axes.h"
#include "store/store-int.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/usage.h"
#include "base/strpool.h"
#include "base/xalloc.h"
#include "base/hash.h"
#include "base/hashmap.h"

#include "base/banned.h"

/* ---- trials -------------------------------------------------------------- */

static int check_trial(struct store *st, const char *run, const struct trial_result *t)
{
    if (!t->question_id || !*t->question_id)
        return store_record_error(st, "run '%s': trial without a question id", run);
    if ((t->depth_bp < 0 || t->depth_bp > DEPTH_BP_MAX) &&
        !trial_is_control(t->length, t->depth_bp))
        return store_record_error(st, "run '%s': trial %s: depth %d bp out of range", run,
                                  t->question_id, t->depth_bp);
    if ((unsigned)t->outcome >= OUTCOME__COUNT)
        return store_record_error(st, "run '%s': trial %s: invalid outcome %d", run, t->question_id,
                                  (int)t->outcome);
    return 0;
}

int store_queue_trial(struct store *st, const char *run, const struct trial_result *t, int merge)
{
    sqlite3_int64 id;
    int rc;
    struct op *o;
    if (store_need_writable(st) || check_trial(st, run, t))
        return -1;
    rc = store_run_id(st, run, &id);
    if (rc)
        return rc < 0 ? -1 : store_record_error(st, "%s: no run named '%s'", st->path, run);
    ALLOC_GROW(st->ops, st->nops + 1, st->aops);
    o = &st->ops[st->nops++];
    memset(o, 0, sizeof(*o));
    o->kind = OP_TRIAL;
    o->merge = merge;
    o->run_id = id;
    trial_result_copy(&o->t, t);
    if (st->nops >= STORE_BATCH_MAX)
        return store_flush(st);
    return 0;
}

int store_trial_put(struct store *st, const char *run, const struct trial_result *t)
{
    return store_queue_trial(st, run, t, 0);
}

int store_trial_put_view(struct store *st, const char *run, const struct trial_view *v)
{
    /* the view's strings in a trial_result for store_trial_put(), which only copies them */
    struct trial_result t = v->figures;
    t.question_id = (char *)v->question_id;
    t.axes = (char *)v->axes;
    t.finish_reason = (char *)v->finish_reason;
    t.answer = (char *)v->answer;
    t.reasoning = (char *)v->reasoning;
    t.reused_from = (char *)v->reused_from;
    t.error = (char *)v->error;
    return store_trial_put(st, run, &t);
}

/* ---- the column table (store-int.h: TRIAL_COLUMNS) ---------------------- */

#define TRIAL_COL_ROW(name_, type_, since_, before_, kind_, member_)                               \
    {.name = #name_,                                                                               \
     .sql_type = type_,                                                                            \
     .since = since_,                                                                              \
     .before = before_,                                                                            \
     .kind = kind_,                                                                                \
     .offset = offsetof(struct trial_result, member_)},
const struct trial_col store_trial_cols[TC__COUNT] = {TRIAL_COLUMNS(TRIAL_COL_ROW)};

/* Each row's kind matches its member's C type (store-int.h TCOL_TYPE_OK_*). */
#define TRIAL_COL_CHECK(name_, type_, since_, before_, kind_, member_)                             \
    _Static_assert(TCOL_TYPE_OK_##kind_(((struct trial_result *)0)->member_),                      \
                   "trials column " #name_ ": " #kind_ " does not fit trial_result." #member_);
TRIAL_COLUMNS(TRIAL_COL_CHECK)

/*
 * The optional kinds (store-int.h), whose unknown the store keeps as NULL: what NULL reads as
 * (LONG_OPT and REAL_OPT -1, LONG_POS 0), one below the least value each knows.
 */
static long opt_unknown(enum trial_col_kind kind)
{
    return kind == TCOL_LONG_POS ? 0 : -1;
}

/* 1 when member m holds its optional kind's unknown (a value below the least known, NaN). */
static int opt_is_unknown(const void *m, enum trial_col_kind kind)
{
    long least = opt_unknown(kind) + 1;
    switch (kind) {
    case TCOL_LONG_OPT:
    case TCOL_LONG_POS:
        return *(const long *)m < least;
    case TCOL_REAL_OPT:
        return !(*(const double *)m >= (double)least);
    default:
        return 0;
    }
}

void store_bind_col(sqlite3_stmt *s, int i, const void *rec, const struct trial_col *col)
{
    const void *m = (const char *)rec + col->offset;
    if (opt_is_unknown(m, col->kind)) {
        sqlite3_bind_null(s, i);
        return;
    }
    switch (col->kind) {
    case TCOL_TEXT:
        store_bind_text(s, i, *(char *const *)m);
        return;
    case TCOL_TEXT_NOT_NULL:
        sqlite3_bind_text(s, i, axes_or_empty(*(char *const *)m), -1, SQLITE_STATIC);
        return;
    case TCOL_SHA:
        store_bind_text(s, i, *(const char *)m ? (const char *)m : NULL);
        return;
    case TCOL_LONG:
    case TCOL_LONG_OPT:
    case TCOL_LONG_POS:
        sqlite3_bind_int64(s, i, *(const long *)m);
        return;
    case TCOL_INT:
        sqlite3_bind_int(s, i, *(const int *)m);
        return;
    case TCOL_BOOL:
        sqlite3_bind_int(s, i, *(const int *)m ? 1 : 0);
        return;
    case TCOL_REAL:
    case TCOL_REAL_OPT:
        sqlite3_bind_double(s, i, *(const double *)m);
        return;
    case TCOL_TIME:
        store_bind_time(s, i, *(const double *)m);
        return;
    case TCOL_OUTCOME:
        store_bind_text(s, i, outcome_name(*(const enum trial_outcome *)m));
        return;
    }
    BUG("trials column %s: kind %d", col->name, (int)col->kind);
}

void store_read_col(sqlite3_stmt *s, int c, void *rec, const struct trial_col *col, int texts)
{
    void *m = (char *)rec + col->offset;
    int null = sqlite3_column_type(s, c) == SQLITE_NULL;
    const char *name;
    enum trial_outcome o;
    switch (col->kind) {
    case TCOL_TEXT:
    case TCOL_TEXT_NOT_NULL:
        if (texts)
            *(char **)m = store_col_text(s, c);
        return;
    case TCOL_SHA:
        name = (const char *)sqlite3_column_text(s, c);
        if (texts && name && strlen(name) == SHA256_HEX_LEN)
            memcpy(m, name, SHA256_HEX_LEN + 1);
        return;
    case TCOL_LONG:
        *(long *)m = (long)sqlite3_column_int64(s, c);
        return;
    case TCOL_LONG_OPT:
    case TCOL_LONG_POS:
        *(long *)m = null ? opt_unknown(col->kind) : (long)sqlite3_column_int64(s, c);
        return;
    case TCOL_INT:
    case TCOL_BOOL:
        *(int *)m =
            col->kind == TCOL_BOOL ? sqlite3_column_int(s, c) != 0 : sqlite3_column_int(s, c);
        return;
    case TCOL_REAL:
        *(double *)m = store_col_real_nan(s, c);
        return;
    case TCOL_REAL_OPT:
        *(double *)m = null ? (double)opt_unknown(col->kind) : sqlite3_column_double(s, c);
        return;
    case TCOL_TIME:
        *(double *)m = store_col_time(s, c);
        return;
    case TCOL_OUTCOME:
        name = (const char *)sqlite3_column_text(s, c);
        *(enum trial_outcome *)m = !name || outcome_parse(name, &o) ? OUTCOME_ERROR : o;
        return;
    }
    BUG("trials column %s: kind %d", col->name, (int)col->kind);
}

void store_trial_select_sql(int version, struct strbuf *out)
{
    const char *sep = "SELECT ";
    for (int c = 0; c < TC__COUNT; c++, sep = ", ") {
        strbuf_addstr(out, sep);
        strbuf_addstr(out, version >= store_trial_cols[c].since ? store_trial_cols[c].name
                                                                : store_trial_cols[c].before);
    }
    strbuf_addstr(out, " FROM trials WHERE run_id = ?1 ORDER BY");
    sep = " ";
    for (int c = TC_question_id; c <= TC_axes; c++)
        if (version >= store_trial_cols[c].since) {
            strbuf_addf(out, "%s%s", sep, store_trial_cols[c].name);
            sep = ", ";
        }
}

static int write_trial(struct store *st, const struct op *o)
{
    sqlite3_stmt *s = store_stmt_get(st, o->merge ? S_TRIAL_MERGE : S_TRIAL_UPSERT);
    if (!s)
        return -1;
    sqlite3_bind_int64(s, 1, o->run_id);
    for (int c = 0; c < TC__COUNT; c++)
        store_bind_col(
            s, c + 2, &o->t,
            &store_trial_cols[c]); /* parameter c + 2: TRIAL_UPSERT_SQL's order after run_id */
    return store_stmt_done(st, s, "cannot write a trial");
}

int store_write_prompt(struct store *st, const struct op *o)
{
    sqlite3_stmt *s = store_stmt_get(st, S_PROMPT_PUT);
    if (!s)
        return -1;
    store_bind_text(s, 1, o->sha);
    sqlite3_bind_text64(s, 2, o->text, o->len, SQLITE_STATIC, SQLITE_UTF8);
    return store_stmt_done(st, s, "cannot write a prompt");
}

int store_flush(struct store *st)
{
    size_t i;
    if (st->readonly)
        return 0;
    if (!st->nops && !st->locked.nr)
        return 0;
    if (store_txn_begin(st))
        return -1;
    for (i = 0; i < st->nops; i++) {
        const struct op *o = &st->ops[i];
        if (o->kind == OP_TRIAL) {
            if (write_trial(st, o))
                goto fail;
            if (o->merge && sqlite3_changes(st->db) == 0)
                st->merge_kept++;
        } else if (store_write_prompt(st, o)) {
            goto fail;
        }
    }
    if (store_beat_locks(st, 0) || store_txn_commit(st))
        goto fail;
    for (i = 0; i < st->nops; i++)
        store_op_release(&st->ops[i]);
    st->nops = 0;
    return 0;
fail:
    store_txn_rollback(st);
    return -1;
}

size_t store_pending(const struct store *st)
{
    return st->nops;
}

/*
 * Row s (the columns of store_trial_select_sql) into t. texts: also its strings and digests
 * (malloc'd, owned by t); without, t's strings stay NULL (what trial points read of a row:
 * no answer, reasoning or error is copied).
 */
static void trial_from_row(sqlite3_stmt *s, struct trial_result *t, int texts)
{
    trial_result_init(t);
    for (int c = 0; c < TC__COUNT; c++)
        store_read_col(s, c, t, &store_trial_cols[c], texts);
}

/*
 * A private statement of sql over run's trials with ?1 bound to the run's id (private: the
 * caller may call back into the store, e.g. merge puts): 0, 1 when there is no run named run,
 * -1 after an error naming what. sql reads columns of schema version since: an older store
 * (opened read-only) has nothing for it, *out NULL. The caller finalizes *out.
 */
static int run_stmt(struct store *st, const char *run, int since, const char *sql, const char *what,
                    sqlite3_stmt **out)
{
    sqlite3_int64 id;
    int rc = store_run_id(st, run, &id);
    *out = NULL;
    if (rc || st->version < since)
        return rc;
    if (sqlite3_prepare_v2(st->db, sql, -1, out, NULL) != SQLITE_OK) {
        store_db_error(st, what);
        sqlite3_finalize(*out);
        *out = NULL;
        return -1;
    }
    sqlite3_bind_int64(*out, 1, id);
    return 0;
}

/* The statement over run's trials of trial_from_row's columns (run_stmt). */
static int trials_stmt(struct store *st, const char *run, sqlite3_stmt **out)
{
    struct strbuf sql = STRBUF_INIT;
    int rc;
    /* a store of an older version opened read-only reads the later columns as their defaults */
    store_trial_select_sql(st->version, &sql);
    rc = run_stmt(st, run, 0, sql.buf, "cannot read trials", out);
    strbuf_release(&sql);
    return rc;
}

/*
 * Calls fn for each of run's trials in store_trials_load's order: t read from row s by
 * trial_from_row (texts as given; fn may read more of s and owns what t holds). A non-zero
 * return from fn stops the walk and is returned; else 0, 1 when no such run, -1 on error.
 */
typedef int (*trial_row_fn)(sqlite3_stmt *s, struct trial_result *t, void *data);
static int trials_walk(struct store *st, const char *run, int texts, trial_row_fn fn, void *data)
{
    sqlite3_stmt *s;
    int rc = trials_stmt(st, run, &s);
    if (rc)
        return rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        struct trial_result t;
        int r;
        trial_from_row(s, &t, texts);
        r = fn(s, &t, data);
        if (r) {
            sqlite3_finalize(s);
            return r;
        }
    }
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? 0 : store_db_error(st, "cannot read trials");
}

struct each_ctx {
    store_trial_fn fn;
    void *data;
};

static int each_row(sqlite3_stmt *s, struct trial_result *t, void *data)
{
    const struct each_ctx *c = data;
    int r = c->fn(t, c->data);
    (void)s;
    trial_result_release(t);
    return r;
}

int store_trials_each(struct store *st, const char *run, store_trial_fn fn, void *data)
{
    struct each_ctx c = {fn, data};
    return trials_walk(st, run, 1, each_row, &c);
}

/* NULL for a NULL column, else its text (valid until the next step). */
static const char *col_text_or_null(sqlite3_stmt *s, int col)
{
    return sqlite3_column_type(s, col) == SQLITE_NULL ? NULL
                                                      : (const char *)sqlite3_column_text(s, col);
}

/* One trial of a run by its primary key, the run's id ?1 (run_stmt); before schema 6 no axes. */
#define TRIAL_BY_KEY                                                                               \
    " FROM trials WHERE run_id = ?1 AND question_id = ?2 AND length = ?3 AND depth_bp = ?4 AND"    \
    " repeat = ?5"
#define TRIAL_BY_KEY_AXES TRIAL_BY_KEY " AND axes = ?6"

/*
 * The one text column sql selects (TRIAL_BY_KEY or TRIAL_BY_KEY_AXES, of schema version since)
 * of run's trial k, into *text (malloc'd; NULL when NULL): 0, 1 when there is no such run or
 * trial (or the store predates since), -1 after an error naming what.
 */
static int trial_text(struct store *st, const char *run, const struct trial_key *k, int since,
                      const char *sql, const char *what, char **text)
{
    sqlite3_stmt *s;
    int rc = run_stmt(st, run, since, sql, what, &s);
    *text = NULL;
    if (rc || !s)
        return rc < 0 ? -1 : 1;
    sqlite3_bind_text(s, 2, k->question_id ? k->question_id : "", -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 3, (sqlite3_int64)k->length);
    sqlite3_bind_int(s, 4, k->depth_bp);
    sqlite3_bind_int(s, 5, k->repeat);
    if (st->version >= 6)
        sqlite3_bind_text(s, 6, axes_or_empty(k->axes), -1, SQLITE_STATIC);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        *text = store_col_text(s, 0);
    sqlite3_finalize(s);
    if (rc == SQLITE_ROW)
        return 0;
    return rc == SQLITE_DONE ? 1 : store_db_error(st, what);
}

int store_trial_answer(struct store *st, const char *run, const struct trial_key *k, char **answer)
{
    /* a store before version 6 has no axes column (every axes is "") */
    return trial_text(st, run, k, 0,
                      st->version >= 6 ? "SELECT answer" TRIAL_BY_KEY_AXES
                                       : "SELECT answer" TRIAL_BY_KEY,
                      "cannot read a trial's answer", answer);
}

int store_trial_prompt_index(struct store *st, const char *run, struct strvec *out)
{
    sqlite3_stmt *s;
    /* before version 6 no axes column: keys cannot be told apart; nothing to check */
    int rc = run_stmt(st, run, 6,
                      "SELECT question_id || '|' || length || '|' || depth_bp || '|' || repeat"
                      " || '|' || axes, prompt_sha256 FROM trials WHERE run_id = ?1 AND"
                      " prompt_sha256 IS NOT NULL AND prompt_sha256 <> '' ORDER BY 1",
                      "cannot read a run's prompt hashes", &s);
    if (rc || !s)
        return rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        struct strbuf e = STRBUF_INIT;
        strbuf_addf(&e, "%s\t%s", (const char *)sqlite3_column_text(s, 0),
                    (const char *)sqlite3_column_text(s, 1));
        strvec_push(out, e.buf);
        strbuf_release(&e);
    }
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? 0 : store_db_error(st, "cannot read a run's prompt hashes");
}

int store_trial_prompt_of(struct store *st, const char *run, const char *question_id, long length,
                          int depth_bp, int repeat, const char *axes, char *sha)
{
    struct trial_key k = {.question_id = question_id,
                          .length = length,
                          .depth_bp = depth_bp,
                          .repeat = repeat,
                          .axes = axes};
    char *text;
    /* before version 6 no axes column: the key cannot be told apart */
    int rc = trial_text(st, run, &k, 6, "SELECT prompt_sha256" TRIAL_BY_KEY_AXES,
                        "cannot read a trial's prompt hash", &text);
    if (!rc && (!text || strlen(text) != SHA256_HEX_LEN))
        rc = 1; /* no hash, or not one */
    if (!rc)
        memcpy(sha, text, SHA256_HEX_LEN + 1);
    free(text);
    return rc;
}

/* t read without its texts (trial_from_row): it owns nothing. */
static int point_row(sqlite3_stmt *s, struct trial_result *t, void *data)
{
    struct trial_point_set *out = data;
    /* borrowed for the copy trial_point_set_add makes (the set keeps each string once) */
    t->question_id = (char *)col_text_or_null(s, TC_question_id);
    t->axes = (char *)col_text_or_null(s, TC_axes);
    trial_point_set_add(out, t);
    out->v[out->nr - 1].reused = sqlite3_column_type(s, TC_reused_from) != SQLITE_NULL;
    return 0;
}

int store_points_load(struct store *st, const char *run, struct trial_point_set *out)
{
    return trials_walk(st, run, 0, point_row, out);
}

struct load_ctx {
    struct trial_result *v;
    size_t nr, alloc;
};

static int load_one(const struct trial_result *t, void *data)
{
    struct load_ctx *c = data;
    ALLOC_GROW(c->v, c->nr + 1, c->alloc);
    trial_result_copy(&c->v[c->nr++], t);
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
    const char *qid;  /* in the set's pool */
    const char *axes; /* in the set's pool; "" for none */
    long length;
    int depth_bp;
    int repeat;
};

/*
 * The finished trials, found by base/hashmap.h; ids and axes kept once (a resumed run of a
 * million trials: 32 bytes and a slot per trial, not two strings each).
 */
struct store_done_set {
    struct done_entry *e;
    size_t nr, alloc;
    struct hashmap map;
    struct strpool str;
};

static uint64_t key_hash(const struct trial_key *k)
{
    uint64_t h = fnv64_str(FNV64_INIT_DIPMAP, k->question_id);
    h = fnv64_step(h, (uint64_t)k->length);
    h = fnv64_step(h, (uint64_t)(unsigned)k->depth_bp);
    h = fnv64_step(h, (uint64_t)(unsigned)k->repeat);
    h = fnv64_str(h, axes_or_empty(k->axes));
    return h ^ (h >> 29);
}

static int done_entry_is(const void *key, size_t entry, const void *set)
{
    const struct trial_key *k = key;
    const struct done_entry *e = &((const struct store_done_set *)set)->e[entry];
    return e->length == k->length && e->depth_bp == k->depth_bp && e->repeat == k->repeat &&
           !strcmp(e->qid, k->question_id) && !strcmp(e->axes, axes_or_empty(k->axes));
}

/* qid and axes (axes NULL is "") are copied into the set's pool; a key already there is kept. */
static void done_add(struct store_done_set *s, const char *qid, long length, int depth, int repeat,
                     const char *axes)
{
    struct trial_key k;
    ALLOC_GROW(s->e, s->nr + 1, s->alloc);
    k.question_id = s->e[s->nr].qid = strpool_intern(&s->str, qid ? qid : "");
    k.length = s->e[s->nr].length = length;
    k.depth_bp = s->e[s->nr].depth_bp = depth;
    k.repeat = s->e[s->nr].repeat = repeat;
    k.axes = s->e[s->nr].axes = strpool_intern(&s->str, axes ? axes : "");
    if (hashmap_put(&s->map, key_hash(&k), &k, s->nr, done_entry_is, s) == HASHMAP_NONE)
        s->nr++;
}

struct store_done_set *store_done_set_load(struct store *st, const char *run, unsigned flags)
{
    struct store_done_set *set = xcalloc(1, sizeof(*set));
    sqlite3_int64 id;
    sqlite3_stmt *s;
    int rc;
    rc = store_run_id(st, run, &id);
    if (rc > 0)
        return set;
    if (rc < 0 || !(s = store_stmt_get(st, S_DONE))) {
        store_done_set_free(set);
        return NULL;
    }
    sqlite3_bind_int64(s, 1, id);
    sqlite3_bind_int(s, 2, (flags & STORE_DONE_KEEP_ERRORS) ? 1 : 0);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        done_add(set, (const char *)sqlite3_column_text(s, 0), (long)sqlite3_column_int64(s, 1),
                 sqlite3_column_int(s, 2), sqlite3_column_int(s, 3),
                 (const char *)sqlite3_column_text(s, 4));
    sqlite3_reset(s);
    if (rc != SQLITE_DONE) {
        store_db_error(st, "cannot read finished trials");
        store_done_set_free(set);
        return NULL;
    }
    return set;
}

int store_done_set_has(const struct store_done_set *s, const struct trial_key *k)
{
    if (!s || !k->question_id)
        return 0;
    return hashmap_find(&s->map, key_hash(k), k, done_entry_is, s) != HASHMAP_NONE;
}

size_t store_done_set_count(const struct store_done_set *s)
{
    return s ? s->nr : 0;
}

void store_done_set_free(struct store_done_set *s)
{
    if (!s)
        return;
    free(s->e);
    hashmap_clear(&s->map);
    strpool_clear(&s->str);
    free(s);
}

/* ---- token counts -------------------------------------------------------- */

static char *count_key(const char *tokenizer, const char *sha)
{
    struct strbuf k = STRBUF_INIT;
    strbuf_addf(&k, "%s\n%s", tokenizer, sha);
    return strbuf_detach(&k, NULL);
}

static int mem_count_is(const void *key, size_t entry, const void *store)
{
    return !strcmp(((const struct store *)store)->counts[entry].key, key);
}

/* The token-count statement id (S_COUNT_GET, S_COUNT_PUT) with its key bound; NULL after an error.
 */
static sqlite3_stmt *count_stmt(struct store *st, enum stmt_id id, const char *tokenizer,
                                const char *text_sha256)
{
    sqlite3_stmt *s = store_stmt_get(st, id);
    if (s) {
        store_bind_text(s, 1, tokenizer);
        store_bind_text(s, 2, text_sha256);
    }
    return s;
}

int store_count_get(struct store *st, const char *tokenizer, const char *text_sha256, long *count)
{
    sqlite3_stmt *s;
    int rc;
    if (!tokenizer || !text_sha256)
        return 0;
    if (st->ncounts) {
        char *k = count_key(tokenizer, text_sha256);
        size_t i = hashmap_find(&st->counts_map, fnv64_str(FNV64_INIT, k), k, mem_count_is, st);
        free(k);
        if (i != HASHMAP_NONE) {
            *count = st->counts[i].count;
            return 1;
        }
    }
    s = count_stmt(st, S_COUNT_GET, tokenizer, text_sha256);
    if (!s)
        return -1;
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        *count = (long)sqlite3_column_int64(s, 0);
        sqlite3_reset(s);
        return 1;
    }
    sqlite3_reset(s);
    if (rc == SQLITE_DONE)
        return 0;
    return store_db_error(st, "cannot read the token-count cache");
}

int store_count_put(struct store *st, const char *tokenizer, const char *text_sha256, long count)
{
    sqlite3_stmt *s;
    if (!tokenizer || !text_sha256)
        return store_record_error(st, "store_count_put: tokenizer and hash are required");
    if (st->readonly) {
        char *k = count_key(tokenizer, text_sha256);
        size_t i = hashmap_put(&st->counts_map, fnv64_str(FNV64_INIT, k), k, st->ncounts,
                               mem_count_is, st);
        if (i != HASHMAP_NONE) { /* counted before: the first count stays */
            free(k);
            return 0;
        }
        ALLOC_GROW(st->counts, st->ncounts + 1, st->acounts);
        st->counts[st->ncounts].key = k;
        st->counts[st->ncounts++].count = count;
        return 0;
    }
    s = count_stmt(st, S_COUNT_PUT, tokenizer, text_sha256);
    if (!s)
        return -1;
    sqlite3_bind_int64(s, 3, count);
    return store_stmt_done(st, s, "cannot write the token-count cache");
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
    if (store_need_writable(st))
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

/*
 * One content-addressed blob (a prompt, a golden set) by its SHA-256: 1 and a copy in *out (the
 * caller frees it), 0 when there is none, -1 on a database error (`what` names the read).
 */
static int blob_get(struct store *st, enum stmt_id stmt, const char *sha256, char **out,
                    size_t *len, const char *what)
{
    sqlite3_stmt *s = store_stmt_get(st, stmt);
    int rc;
    if (!s)
        return -1;
    store_bind_text(s, 1, sha256);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        const void *p = sqlite3_column_blob(s, 0);
        *len = (size_t)sqlite3_column_bytes(s, 0);
        *out = xmemdup(p ? p : "", *len);
        sqlite3_reset(s);
        return 1;
    }
    sqlite3_reset(s);
    if (rc == SQLITE_DONE)
        return 0;
    return store_db_error(st, what);
}

int store_prompt_get(struct store *st, const char *sha256, char **text, size_t *len)
{
    *text = NULL;
    *len = 0;
    return blob_get(st, S_PROMPT_GET, sha256, text, len, "cannot read a prompt");
}

/* ---- golden sets --------------------------------------------------------- */

int store_golden_put(struct store *st, const char *sha256, const char *content, size_t len)
{
    sqlite3_stmt *s;
    if (store_need_writable(st))
        return -1;
    s = store_stmt_get(st, S_GOLDEN_PUT);
    if (!s)
        return -1;
    store_bind_text(s, 1, sha256);
    sqlite3_bind_blob64(s, 2, content, len, SQLITE_STATIC);
    return store_stmt_done(st, s, "cannot store the golden set");
}

struct store_golden_writer {
    struct store *st;
    sqlite3_blob *blob;
    size_t size, off;
    int failed;
};

int store_golden_begin(struct store *st, const char *sha256, size_t size,
                       struct store_golden_writer **w)
{
    sqlite3_stmt *s = NULL;
    sqlite3_blob *blob = NULL;
    int rc;
    *w = NULL;
    if (store_need_writable(st))
        return -1;
    if (size > (size_t)INT_MAX)
        return store_record_error(
            st, "%s: a golden set of %zu bytes is past what one SQLite value holds", store_path(st),
            size);
    if (store_txn_begin(st))
        return -1;
    if (sqlite3_prepare_v2(st->db, "SELECT 1 FROM golden_sets WHERE sha256 = ?1", -1, &s, NULL) !=
        SQLITE_OK)
        goto fail;
    sqlite3_bind_text(s, 1, sha256, -1, SQLITE_STATIC);
    rc = sqlite3_step(s);
    sqlite3_finalize(s);
    s = NULL;
    if (rc == SQLITE_ROW) {
        store_txn_rollback(st);
        return 1;
    }
    if (rc != SQLITE_DONE ||
        sqlite3_prepare_v2(st->db,
                           "INSERT INTO golden_sets (sha256, content) VALUES (?1, zeroblob(?2))",
                           -1, &s, NULL) != SQLITE_OK)
        goto fail;
    sqlite3_bind_text(s, 1, sha256, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)size);
    rc = sqlite3_step(s);
    sqlite3_finalize(s);
    s = NULL;
    if (rc != SQLITE_DONE ||
        sqlite3_blob_open(st->db, "main", "golden_sets", "content",
                          sqlite3_last_insert_rowid(st->db), 1, &blob) != SQLITE_OK)
        goto fail;
    *w = xcalloc(1, sizeof(**w));
    (*w)->st = st;
    (*w)->blob = blob;
    (*w)->size = size;
    return 0;
fail:
    sqlite3_finalize(s);
    sqlite3_blob_close(blob);
    rc = store_db_error(st, "cannot store the golden set");
    store_txn_rollback(st);
    return rc;
}

int store_golden_write(struct store_golden_writer *w, const void *data, size_t len)
{
    if (w->failed || len > w->size - w->off ||
        sqlite3_blob_write(w->blob, data, (int)len, (int)w->off) != SQLITE_OK) {
        w->failed = 1;
        return -1;
    }
    w->off += len;
    return 0;
}

int store_golden_end(struct store_golden_writer *w, int ok)
{
    struct store *st = w->st;
    int rc = 0;
    ok = ok && !w->failed && w->off == w->size;
    if (sqlite3_blob_close(w->blob) != SQLITE_OK)
        ok = 0;
    free(w);
    if (ok && store_txn_commit(st) == 0)
        return 0;
    if (ok)
        rc = -1; /* the commit failed (printed) */
    store_txn_rollback(st);
    return rc;
}

int store_golden_get(struct store *st, const char *sha256, char **content, size_t *len)
{
    *content = NULL;
    *len = 0;
    if (st->version < 3 || !sha256)
        return 0;
    return blob_get(st, S_GOLDEN_GET, sha256, content, len, "cannot read a golden set");
}

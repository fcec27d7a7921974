/*
 * Runs in the store: the runs rows (create, list, get, status), the rules for
 * what a run's settings may hold (no secrets, canonical JSON), and the run
 * locks with their heartbeat and stale-lock takeover.
 */
#include "store/store.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/json.h"
#include "run/run_identity.h"
#include "base/secret.h"
#include "store/store-int.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/usage.h"
#include "base/xalloc.h"
#include "base/utc.h"

#include "base/banned.h"

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
    free(r->scorer_version);
    free(r->schedules);
    free(r->probe_key);
    free(r->probe_sha256);
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

/* Walk a JSON value: refuse secret-looking keys and values. */
static int check_json(const struct json *node, const char *path, struct strbuf *why)
{
    const struct json *c;
    if (json_str(node) && secret_value(json_str(node))) {
        strbuf_addf(why, "the value of \"%s\" looks like a credential", path);
        return -1;
    }
    /* an object's members have keys, an array's elements none (they keep the path) */
    for (c = json_first(node); c; c = json_next(c)) {
        const char *key = json_key(c);
        if (key && secret_name(key, strlen(key))) {
            strbuf_addf(why, "setting \"%s\" looks like a credential", key);
            return -1;
        }
        if (check_json(c, key ? key : path, why))
            return -1;
    }
    return 0;
}

/* Canonical settings JSON (malloc'd) in *out, or -1 (store_set_error). */
static int canonical_settings(struct store *st, const char *run, const char *json, char **out)
{
    struct json *root;
    struct strbuf why = STRBUF_INIT;
    *out = NULL;
    if (!json)
        return 0;
    root = json_parse_str(json);
    if (json_kind(root) != JSON_OBJECT) {
        json_free(root);
        return store_set_error(st, "run '%s': settings must be a JSON object", run);
    }
    if (check_json(root, "settings", &why)) {
        store_set_error(st,
                        "run '%s': refusing to store the settings: %s (API keys and Authorization "
                        "headers are never stored)",
                        run, why.buf);
        strbuf_release(&why);
        json_free(root);
        return -1;
    }
    strbuf_release(&why);
    json_free(root);
    *out = run_identity_canonical_json(json);
    if (!*out)
        return store_set_error(st, "run '%s': cannot serialise the settings", run);
    return 0;
}

/* Endpoints must not carry credentials (user:pass@host or ?api-key=...). */
static int check_endpoints(struct store *st, const char *run, const char *endpoints)
{
    struct strvec parts = STRVEC_INIT;
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
            /* a signed URL's "sig" (Azure SAS) is a credential too */
            if (secret_name(name, nlen) || (nlen == 3 && !strncasecmp(name, "sig", 3)))
                rc = -1;
            q = strchr(name, '&');
        }
    }
    if (rc)
        store_set_error(
            st,
            "run '%s': refusing to store an endpoint with credentials in it (%s); pass keys "
            "through --api-key-env",
            run, parts.v[i - 1]);
    strvec_clear(&parts);
    return rc;
}

int store_valid_run_name(const char *name)
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
int store_run_id(struct store *st, const char *name, sqlite3_int64 *id)
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
    s = store_stmt_get(st, S_RUN_ID);
    if (!s)
        return -1;
    store_bind_text(s, 1, name);
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
    return store_db_error(st, "cannot look up the run");
}

int store_need_writable(struct store *st)
{
    if (st->readonly)
        return store_set_error(st, "%s: opened read-only", st->path);
    return 0;
}

int store_insert_run(struct store *st, const struct run_info *r, const char *settings)
{
    sqlite3_stmt *s = store_stmt_get(st, S_RUN_INSERT);
    int rc;
    if (!s)
        return -1;
    store_bind_text(s, 1, r->name);
    store_bind_text(s, 2, r->model_requested);
    store_bind_text(s, 3, r->model_served);
    store_bind_text(s, 4, r->endpoints);
    store_bind_text(s, 5, r->system_fingerprint);
    store_bind_text(s, 6, settings);
    store_bind_text(s, 7, r->golden_sha256);
    store_bind_text(s, 8, r->haystack_sha256);
    store_bind_text(s, 9, r->template_sha256);
    store_bind_text(s, 10, r->tokenizer_name);
    store_bind_text(s, 11, r->tokenizer_sha256);
    store_bind_text(s, 12, r->dipmap_version);
    store_bind_text(s, 13, r->dipmap_commit);
    store_bind_text(s, 14, r->tags);
    store_bind_text(s, 15, r->shard);
    sqlite3_bind_double(s, 16, r->created_at != 0 ? r->created_at : utc_now());
    store_bind_time(s, 17, r->started_at);
    store_bind_time(s, 18, r->finished_at);
    store_bind_text(s, 19, run_status_name(r->status));
    sqlite3_bind_int64(s, 20, r->trials_planned);
    rc = sqlite3_step(s);
    sqlite3_reset(s);
    if (rc == SQLITE_CONSTRAINT_UNIQUE || (rc & 0xff) == SQLITE_CONSTRAINT) {
        store_set_error(st, "%s: a run named '%s' already exists", st->path, r->name);
        return STORE_EEXIST;
    }
    if (rc != SQLITE_DONE)
        return store_db_error(st, "cannot create the run");
    if (r->scorer_version && store_run_set_scorer(st, r->name, r->scorer_version))
        return -1;
    return 0;
}

static int update_run_done(struct store *st, sqlite3_stmt *s, const char *name);

int store_run_set_scorer(struct store *st, const char *name, const char *scorer_version)
{
    sqlite3_stmt *s;
    if (store_need_writable(st))
        return -1;
    s = store_stmt_get(st, S_RUN_SCORER_SET);
    if (!s)
        return -1;
    store_bind_text(s, 1, name);
    store_bind_text(s, 2, scorer_version);
    return update_run_done(st, s, name);
}

int store_run_set_settings(struct store *st, const char *name, const char *settings_json)
{
    sqlite3_stmt *s;
    char *canon = NULL;
    int rc;
    if (store_need_writable(st))
        return -1;
    if (canonical_settings(st, name, settings_json, &canon))
        return -1;
    s = store_stmt_get(st, S_RUN_SETTINGS_SET);
    if (!s) {
        free(canon);
        return -1;
    }
    store_bind_text(s, 1, name);
    store_bind_text(s, 2, canon);
    rc = update_run_done(st, s, name);
    free(canon);
    return rc;
}

/* One text column of a run by name (stmt: SELECT col FROM runs WHERE name = ?1); NULL if none. */
static char *run_text_column(struct store *st, enum stmt_id which, const char *name)
{
    sqlite3_stmt *s = store_stmt_get(st, which);
    char *v = NULL;
    if (!s)
        return NULL;
    store_bind_text(s, 1, name);
    if (sqlite3_step(s) == SQLITE_ROW)
        v = store_col_text(s, 0);
    sqlite3_reset(s);
    return v;
}

int store_run_add_schedule(struct store *st, const char *name, const char *schedule)
{
    struct strbuf sb = STRBUF_INIT;
    struct strvec have = STRVEC_INIT;
    sqlite3_stmt *s;
    char *cur;
    int rc = 0, found = 0;

    if (store_need_writable(st))
        return -1;
    cur = run_text_column(st, S_RUN_SCHEDULES_GET, name);
    if (cur && *cur) {
        strvec_split(&have, cur, ',');
        for (size_t i = 0; i < have.nr; i++)
            found |= !strcmp(have.v[i], schedule);
        strbuf_addstr(&sb, cur);
    }
    if (!found) {
        if (sb.len)
            strbuf_addch(&sb, ',');
        strbuf_addstr(&sb, schedule);
        s = store_stmt_get(st, S_RUN_SCHEDULES_SET);
        if (!s)
            rc = -1;
        else {
            store_bind_text(s, 1, name);
            store_bind_text(s, 2, sb.buf);
            rc = update_run_done(st, s, name);
        }
    }
    strvec_clear(&have);
    strbuf_release(&sb);
    free(cur);
    return rc;
}

/* scorer_version of a run (schema 3); NULL for older stores and runs made before it. */
static char *run_scorer_version(struct store *st, const char *name)
{
    return st->version < 3 ? NULL : run_text_column(st, S_RUN_SCORER_GET, name);
}

int store_run_create(struct store *st, const struct run_info *r)
{
    char *settings = NULL;
    int rc;
    if (store_need_writable(st))
        return -1;
    if (!store_valid_run_name(r->name))
        return store_set_error(st,
                               "invalid run name '%s' (1-256 characters, no control characters)",
                               r->name ? r->name : "");
    if (!r->model_requested || !*r->model_requested)
        return store_set_error(st, "run '%s': no model given", r->name);
    if ((unsigned)r->status >= RUN_STATUS__COUNT)
        return store_set_error(st, "run '%s': invalid status %d", r->name, (int)r->status);
    if (check_endpoints(st, r->name, r->endpoints) ||
        canonical_settings(st, r->name, r->settings_json, &settings))
        return -1;
    rc = store_insert_run(st, r, settings);
    free(settings);
    if (!rc && r->matrix_planned > 0)
        rc = store_run_set_matrix(st, r->name, r->matrix_planned);
    if (!rc && r->probe_key && r->probe_sha256)
        rc = store_run_set_probe(st, r->name, r->probe_key, r->probe_sha256);
    return rc;
}

static void run_from_row(sqlite3_stmt *s, struct run_info *r)
{
    run_info_init(r);
    r->name = store_col_text(s, 0);
    r->model_requested = store_col_text(s, 1);
    r->model_served = store_col_text(s, 2);
    r->endpoints = store_col_text(s, 3);
    r->system_fingerprint = store_col_text(s, 4);
    r->settings_json = store_col_text(s, 5);
    r->golden_sha256 = store_col_text(s, 6);
    r->haystack_sha256 = store_col_text(s, 7);
    r->template_sha256 = store_col_text(s, 8);
    r->tokenizer_name = store_col_text(s, 9);
    r->tokenizer_sha256 = store_col_text(s, 10);
    r->dipmap_version = store_col_text(s, 11);
    r->dipmap_commit = store_col_text(s, 12);
    r->tags = store_col_text(s, 13);
    r->shard = store_col_text(s, 14);
    r->created_at = store_col_time(s, 15);
    r->started_at = store_col_time(s, 16);
    r->finished_at = store_col_time(s, 17);
    if (run_status_parse((const char *)sqlite3_column_text(s, 18), &r->status))
        r->status = RUN_FAILED;
    r->trials_planned = (long)sqlite3_column_int64(s, 19);
    r->trials_done = (long)sqlite3_column_int64(s, 20);
    r->trials_stored = (long)sqlite3_column_int64(s, 21);
    r->lock_pid = (long)sqlite3_column_int64(s, 22);
    r->lock_host = store_col_text(s, 23);
    r->lock_heartbeat = store_col_time(s, 24);
}

/* The request probe of run r (schema 12): both columns, or neither when one is unset. */
static int run_probe(struct store *st, struct run_info *r)
{
    sqlite3_stmt *s = store_stmt_get(st, S_RUN_PROBE_GET);
    int rc;
    if (!s)
        return -1;
    store_bind_text(s, 1, r->name);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL &&
        sqlite3_column_type(s, 1) != SQLITE_NULL) {
        r->probe_key = store_col_text(s, 0);
        r->probe_sha256 = store_col_text(s, 1);
    }
    sqlite3_reset(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : store_db_error(st, "cannot read a run");
}

int store_run_list(struct store *st, const struct run_filter *f, struct run_info **out, size_t *nr)
{
    sqlite3_stmt *s = store_stmt_get(st, S_RUN_LIST);
    size_t alloc = 0;
    int rc;
    *out = NULL;
    *nr = 0;
    if (!s)
        return -1;
    if (f) {
        store_bind_text(s, 1, f->model_prefix);
        store_bind_text(s, 2, f->tag);
        store_bind_text(s, 3, f->name);
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
        return store_db_error(st, "cannot list runs");
    }
    for (size_t i = 0; i < *nr; i++) {
        (*out)[i].scorer_version = run_scorer_version(st, (*out)[i].name);
        if (st->version >= 7)
            (*out)[i].schedules = run_text_column(st, S_RUN_SCHEDULES_GET, (*out)[i].name);
        if (st->version >= 9) {
            char *m = run_text_column(st, S_RUN_MATRIX_GET, (*out)[i].name);
            (*out)[i].matrix_planned = m ? strtol(m, NULL, 10) : 0;
            free(m);
        }
        if (st->version >= 12 && run_probe(st, &(*out)[i])) {
            run_info_list_free(*out, *nr);
            *out = NULL;
            *nr = 0;
            return -1;
        }
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
    if (store_stmt_done(st, s, "cannot update the run"))
        return -1;
    if (sqlite3_changes(st->db) == 0)
        return store_set_error(st, "%s: no run named '%s'", st->path, name);
    return 0;
}

int store_run_update_status(struct store *st, const char *name, enum run_status status)
{
    sqlite3_stmt *s;
    if (store_need_writable(st))
        return -1;
    if ((unsigned)status >= RUN_STATUS__COUNT)
        return store_set_error(st, "invalid run status %d", (int)status);
    s = store_stmt_get(st, S_RUN_STATUS);
    if (!s)
        return -1;
    store_bind_text(s, 1, name);
    store_bind_text(s, 2, run_status_name(status));
    sqlite3_bind_double(s, 3, utc_now());
    return update_run_done(st, s, name);
}

int store_run_set_served(struct store *st, const char *name, const char *model_served,
                         const char *system_fingerprint)
{
    sqlite3_stmt *s;
    if (store_need_writable(st))
        return -1;
    s = store_stmt_get(st, S_RUN_SERVED);
    if (!s)
        return -1;
    store_bind_text(s, 1, name);
    store_bind_text(s, 2, model_served);
    store_bind_text(s, 3, system_fingerprint);
    return update_run_done(st, s, name);
}

int store_run_set_planned(struct store *st, const char *name, long trials_planned)
{
    sqlite3_stmt *s;
    if (store_need_writable(st))
        return -1;
    s = store_stmt_get(st, S_RUN_PLANNED);
    if (!s)
        return -1;
    store_bind_text(s, 1, name);
    sqlite3_bind_int64(s, 2, trials_planned);
    return update_run_done(st, s, name);
}

int store_run_set_matrix(struct store *st, const char *name, long matrix_planned)
{
    sqlite3_stmt *s;
    if (store_need_writable(st))
        return -1;
    s = store_stmt_get(st, S_RUN_MATRIX_SET);
    if (!s)
        return -1;
    store_bind_text(s, 1, name);
    sqlite3_bind_int64(s, 2, matrix_planned);
    return update_run_done(st, s, name);
}

int store_run_set_probe(struct store *st, const char *name, const char *key, const char *sha256)
{
    sqlite3_stmt *s;
    if (store_need_writable(st))
        return -1;
    s = store_stmt_get(st, S_RUN_PROBE_SET);
    if (!s)
        return -1;
    store_bind_text(s, 1, name);
    store_bind_text(s, 2, key);
    store_bind_text(s, 3, sha256);
    return update_run_done(st, s, name);
}

long run_info_planned(const struct run_info *r)
{
    return r->matrix_planned > r->trials_planned ? r->matrix_planned : r->trials_planned;
}

int store_run_set_tags(struct store *st, const char *name, const char *tags)
{
    sqlite3_stmt *s;
    if (store_need_writable(st))
        return -1;
    s = store_stmt_get(st, S_RUN_TAGS);
    if (!s)
        return -1;
    store_bind_text(s, 1, name);
    store_bind_text(s, 2, tags && *tags ? tags : NULL);
    return update_run_done(st, s, name);
}

int store_run_usage(struct store *st, const char *name, int batched, double *prompt_tokens,
                    double *completion_tokens, double *cached_tokens)
{
    sqlite3_int64 id;
    sqlite3_stmt *s;
    int rc;

    *prompt_tokens = *completion_tokens = *cached_tokens = 0;
    rc = store_run_id(st, name, &id);
    if (rc)
        return rc;
    s = store_stmt_get(st, batched ? S_RUN_USAGE_BATCH : S_RUN_USAGE);
    if (!s)
        return -1;
    sqlite3_bind_int64(s, 1, id);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        *prompt_tokens = sqlite3_column_double(s, 0);
        *completion_tokens = sqlite3_column_double(s, 1);
        *cached_tokens = sqlite3_column_double(s, 2);
    }
    sqlite3_reset(s);
    if (rc != SQLITE_ROW)
        return store_db_error(st, "cannot read the run's token usage");
    return 0;
}

/* ---- locks --------------------------------------------------------------- */

/*
 * Whether pid is a running process on this host. A process killed with -9 is a
 * zombie until its parent reaps it (a supervisor or script may take seconds):
 * kill(pid, 0) still succeeds then, so /proc's state decides (Z zombie, X dead).
 */
static int pid_alive(long pid)
{
    struct strbuf path = STRBUF_INIT, stat = STRBUF_INIT;
    const char *close_paren;
    int alive = 1;

    if (pid <= 0)
        return 0;
    if (kill((pid_t)pid, 0) != 0)
        return errno != ESRCH;
    strbuf_addf(&path, "/proc/%ld/stat", pid);
    /* "pid (comm) S ...": comm may hold spaces and parentheses, the state follows the last ')' */
    if (strbuf_read_file(&stat, path.buf) >= 0 && (close_paren = strrchr(stat.buf, ')')) &&
        close_paren[1] == ' ' && (close_paren[2] == 'Z' || close_paren[2] == 'X'))
        alive = 0;
    strbuf_release(&path);
    strbuf_release(&stat);
    return alive;
}

int run_info_is_live(const struct run_info *r)
{
    char host[256] = {0};
    if (!r->lock_host || r->lock_pid <= 0)
        return 0;
    if (utc_now() - r->lock_heartbeat > STORE_LOCK_STALE_SECONDS)
        return 0;
    if (gethostname(host, sizeof(host) - 1) == 0) {
        host[sizeof(host) - 1] = '\0';
        if (!strcmp(host, r->lock_host) && !pid_alive(r->lock_pid))
            return 0;
    }
    return 1;
}

size_t run_info_missing_shards(const struct run_info *r, struct strbuf *out)
{
    struct strvec have = STRVEC_INIT;
    struct strbuf tok = STRBUF_INIT;
    long n = 0, k;
    size_t i, missing = 0;
    const char *slash;

    if (!r->shard || !*r->shard)
        return 0;
    strvec_split(&have, r->shard, ',');
    slash = strchr(have.v[0], '/');
    if (slash)
        n = strtol(slash + 1, NULL, 10);
    for (i = 1; i < have.nr; i++) {
        slash = strchr(have.v[i], '/');
        if (!slash || strtol(slash + 1, NULL, 10) != n)
            n = 0; /* parts of different shard counts: no single set to complete */
    }
    for (k = 1; n > 0 && n <= 100000 && k <= n; k++) {
        strbuf_reset(&tok);
        strbuf_addf(&tok, "%ld/%ld", k, n);
        if (strvec_find(&have, tok.buf) >= 0)
            continue;
        strbuf_addf(out, "%s%s", missing ? "," : "", tok.buf);
        missing++;
    }
    strvec_clear(&have);
    strbuf_release(&tok);
    return missing;
}

const char *run_info_status_text(const struct run_info *r)
{
    struct strbuf sb = STRBUF_INIT;
    size_t missing;
    if (r->status == RUN_RUNNING && !run_info_is_live(r))
        return "stalled";
    if (r->status != RUN_COMPLETE)
        return run_status_name(r->status);
    missing = run_info_missing_shards(r, &sb);
    strbuf_release(&sb);
    return missing ? "incomplete" : run_status_name(r->status);
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

    if (store_need_writable(st))
        return -1;
    if (stale_seconds <= 0)
        stale_seconds = STORE_LOCK_STALE_SECONDS;
    rc = store_run_id(st, run, &id);
    if (rc)
        return rc < 0 ? -1 : store_set_error(st, "%s: no run named '%s' to lock", st->path, run);
    if (store_txn_begin(st))
        return -1;
    now = utc_now();
    s = store_stmt_get(st, S_LOCK_GET);
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
            store_set_error(
                st,
                "run '%s' is in use by pid %ld on host %s (heartbeat %.0fs ago); wait for it "
                "to finish, or stop that process and try again",
                run, pid, host ? host : "?", now - beat < 0 ? 0 : now - beat);
            sqlite3_reset(s);
            store_txn_rollback(st);
            return STORE_ELOCKED;
        }
    } else if (rc != SQLITE_DONE) {
        sqlite3_reset(s);
        store_db_error(st, "cannot read the run lock");
        goto fail;
    }
    sqlite3_reset(s);
    (void)free_lock;
    s = store_stmt_get(st, S_LOCK_SET);
    if (!s)
        goto fail;
    sqlite3_bind_int64(s, 1, id);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)getpid());
    store_bind_text(s, 3, st->host);
    store_bind_text(s, 4, st->token);
    sqlite3_bind_double(s, 5, now);
    if (store_stmt_done(st, s, "cannot take the run lock") || store_txn_commit(st))
        goto fail;
    if (!holds_lock(st, run))
        strvec_push(&st->locked, run);
    return 0;
fail:
    store_txn_rollback(st);
    return -1;
}

/* Refresh heartbeats inside the caller's transaction; lost locks are dropped. */
int store_beat_locks(struct store *st, int report)
{
    size_t i = 0;
    int rc = 0;
    double now = utc_now();
    while (i < st->locked.nr) {
        sqlite3_int64 id;
        sqlite3_stmt *s;
        const char *run = st->locked.v[i];
        if (store_run_id(st, run, &id))
            return -1;
        s = store_stmt_get(st, S_LOCK_BEAT);
        if (!s)
            return -1;
        sqlite3_bind_int64(s, 1, id);
        store_bind_text(s, 2, st->token);
        sqlite3_bind_double(s, 3, now);
        if (store_stmt_done(st, s, "cannot refresh the run lock"))
            return -1;
        if (sqlite3_changes(st->db) == 0) {
            if (report)
                rc = store_set_error(
                    st, "run '%s': this process lost its lock (taken over as stale)", run);
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
    if (store_txn_begin(st))
        return -1;
    rc = store_beat_locks(st, 1);
    if (store_txn_commit(st)) {
        store_txn_rollback(st);
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
    if (store_run_id(st, run, &id))
        return -1;
    s = store_stmt_get(st, S_LOCK_DEL);
    if (!s)
        return -1;
    sqlite3_bind_int64(s, 1, id);
    store_bind_text(s, 2, st->token);
    if (store_stmt_done(st, s, "cannot release the run lock"))
        return -1;
    free(st->locked.v[ix]);
    memmove(&st->locked.v[ix], &st->locked.v[ix + 1],
            (st->locked.nr - (size_t)ix) * sizeof(*st->locked.v));
    st->locked.nr--;
    return 0;
}

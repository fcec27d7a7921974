/*
 * Merging shard stores into one: runs are accounted across inputs (status,
 * planned trials, shard list), finished trials win over pending ones, and
 * prompts and token counts are copied; all in one outer transaction. Parts of
 * one run must be one run (identity), have sent the same prompts for the keys
 * they share, and the stores must count every text alike (the tokenizer).
 */
#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "run/run_identity.h"
#include "store/store-int.h"
#include "base/strbuf.h"
#include "base/hash.h"
#include "base/hashmap.h"
#include "base/strvec.h"
#include "base/usage.h"
#include "base/xalloc.h"

#include "base/banned.h"

/* ---- merge --------------------------------------------------------------- */

/* One run name across the merge: the first definition and the shard bookkeeping. */
struct merge_run {
    struct run_info info; /* first definition seen (output first, then inputs) */
    const char *from;     /* file it came from */
    struct store *st;     /* the store it came from (borrowed) */
    int in_out;           /* already in the output store */
    struct strvec shards; /* shard tokens accounted for ("" = whole run) */
    long planned;
    long matrix;       /* the whole matrix's trials, the largest any part recorded (0: none did) */
    int rank;          /* worst status seen, see status_rank() */
    int probe_unknown; /* a part recorded no request probe: the merged run records none */
    const char *probe_from; /* the file of the first part with a probe (info.probe_key) */
    struct store *clash;    /* the first part whose probe differs (check_probes()), borrowed */
    char *clash_sha;        /* its probe's prompt hash, malloc'd */
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
    if (r->matrix_planned > m->matrix)
        m->matrix = r->matrix_planned;
    if (status_rank(r->status) > m->rank)
        m->rank = status_rank(r->status);
    if (r->started_at != 0 && (m->started_at == 0 || r->started_at < m->started_at))
        m->started_at = r->started_at;
    if (r->finished_at > m->finished_at)
        m->finished_at = r->finished_at;
    strvec_clear(&toks);
    if (r != &m->info && r->schedules && *r->schedules) {
        /* the schedules any part was sent with, each once (store_run_add_schedule dedups) */
        struct strbuf sb = STRBUF_INIT;
        if (m->info.schedules && *m->info.schedules)
            strbuf_addf(&sb, "%s,", m->info.schedules);
        strbuf_addstr(&sb, r->schedules);
        free(m->info.schedules);
        m->info.schedules = strbuf_detach(&sb, NULL);
    }
}

/* Record on the merged run every schedule its parts were sent with. */
static int merge_schedules(struct store *out, const struct merge_run *m)
{
    struct strvec v = STRVEC_INIT;
    int rc = 0;
    if (m->info.schedules && *m->info.schedules)
        strvec_split(&v, m->info.schedules, ',');
    for (size_t i = 0; i < v.nr && !rc; i++)
        if (*v.v[i])
            rc = store_run_add_schedule(out, m->info.name, v.v[i]);
    strvec_clear(&v);
    return rc;
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
    /* store_trial.c records its reasons (store_errmsg); this file still prints its own */
    return store_queue_trial(c->out, c->run, t, 1) ? store_print_error(c->out) : 0;
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
    if (sqlite3_prepare_v2(in->db, store_stmt_sql[S_PROMPT_ALL], -1, &s, NULL) != SQLITE_OK)
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
        if (store_write_prompt(out, &o)) {
            sqlite3_finalize(s);
            return -1;
        }
    }
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE)
        goto fail;
    if (sqlite3_prepare_v2(in->db, store_stmt_sql[S_COUNT_ALL], -1, &s, NULL) != SQLITE_OK)
        goto fail;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (store_count_put(out, (const char *)sqlite3_column_text(s, 0),
                            (const char *)sqlite3_column_text(s, 1),
                            (long)sqlite3_column_int64(s, 2))) {
            sqlite3_finalize(s);
            return store_print_error(out);
        }
    }
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE)
        goto fail;
    s = NULL;
    if (in->version >= 3) {
        if (sqlite3_prepare_v2(in->db, store_stmt_sql[S_GOLDEN_ALL], -1, &s, NULL) != SQLITE_OK)
            goto fail;
        while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
            const char *blob = sqlite3_column_blob(s, 1);
            if (store_golden_put(out, (const char *)sqlite3_column_text(s, 0), blob ? blob : "",
                                 (size_t)sqlite3_column_bytes(s, 1))) {
                sqlite3_finalize(s);
                return -1;
            }
        }
        sqlite3_finalize(s);
        if (rc != SQLITE_DONE)
            goto fail;
    }
    return 0;
fail:
    sqlite3_finalize(s);
    return store_db_error(in, "cannot read prompts, token counts or golden sets");
}

/* The runs of the merge, one list over output and inputs */
struct merge_runs {
    struct merge_run *v;
    size_t nr, alloc;
};

/* The N of a shard token "I/N" (0: none). */
static long shard_of(const char *tok)
{
    const char *slash = strchr(tok, '/');
    return slash ? strtol(slash + 1, NULL, 10) : 0;
}

/*
 * r is a shard of the same N as every part of m seen so far and none of them: round-robin
 * groups (plan.c) never give two such shards one trial key, so they share no prompt to check.
 */
static int disjoint_shards(const struct merge_run *m, const struct run_info *r)
{
    struct strvec toks = STRVEC_INIT;
    long n = m->shards.nr ? shard_of(m->shards.v[0]) : 0;
    int disjoint = r->shard && *r->shard && n > 0;
    size_t i;
    if (disjoint)
        strvec_split(&toks, r->shard, ',');
    for (i = 0; disjoint && i < m->shards.nr; i++)
        disjoint = shard_of(m->shards.v[i]) == n;
    for (i = 0; disjoint && i < toks.nr; i++)
        disjoint = shard_of(toks.v[i]) == n && strvec_find(&m->shards, toks.v[i]) < 0;
    strvec_clear(&toks);
    return disjoint;
}

/*
 * Two parts of one run that hold the same trial keys sent the same prompts for them
 * (run_identity_same_prompts): equal settings do not say which bytes a binary built (an
 * older batch path, another builder). 0, -1, or STORE_EMISMATCH after store_set_error().
 */
static int same_prompts(const struct merge_run *m, struct store *st, const struct run_info *r)
{
    struct strbuf why = STRBUF_INIT;
    int same = run_identity_same_prompts(m->st, &m->info, st, r, &why);
    strbuf_rtrim(&why);
    if (!same)
        store_set_error(st,
                        "merge: %s and %s hold parts of run '%s' and %s; refusing to merge parts "
                        "that sent other bytes",
                        m->from, store_path(st), r->name, why.buf);
    strbuf_release(&why);
    return same > 0 ? 0 : same < 0 ? -1 : STORE_EMISMATCH;
}

/*
 * The request probes of two parts of one run (run_info.probe_key: the prompt a binary built
 * for the first trial of the whole matrix, the same key in every shard): disjoint shards share
 * no trial key to compare, but binaries that build other bytes built another probe. Known in
 * both and of one key, they must be equal: the first part that differs is kept in m for
 * check_probes(), which reports it after the checks that say more (shared keys, token
 * counts). A part without one (an older store or binary) is not checked, and the merged run
 * then records none (its earlier part's bytes are unknown).
 */
static void note_probe(struct merge_run *m, struct store *st, const struct run_info *r)
{
    struct run_info *a = &m->info;
    if (!r->probe_key) {
        m->probe_unknown = 1;
        return;
    }
    if (!a->probe_key) {
        /* the first part with a probe is the one the later parts are held to */
        a->probe_key = xstrdup(r->probe_key);
        a->probe_sha256 = xstrdup(r->probe_sha256);
        m->probe_from = store_path(st);
        return;
    }
    if (strcmp(a->probe_key, r->probe_key)) {
        m->probe_unknown = 1; /* a probe of another trial (a binary that picks another) */
        return;
    }
    if (m->clash || !strcmp(a->probe_sha256, r->probe_sha256))
        return;
    m->clash = st;
    m->clash_sha = xstrdup(r->probe_sha256);
}

/* The first run whose parts' probes differ (note_probe()). 0, or STORE_EMISMATCH. */
static int check_probes(const struct merge_runs *runs)
{
    for (size_t i = 0; i < runs->nr; i++) {
        const struct merge_run *m = &runs->v[i];
        if (!m->clash)
            continue;
        store_set_error(m->clash,
                        "merge: %s and %s hold parts of run '%s' recorded by dipmap binaries "
                        "that build other bytes for the same trial: the run's request probe, "
                        "trial %s, is prompt %.12s... in %s and %.12s... in %s; refusing to "
                        "merge parts that sent other bytes",
                        m->probe_from, store_path(m->clash), m->info.name, m->info.probe_key,
                        m->info.probe_sha256, m->probe_from, m->clash_sha, store_path(m->clash));
        return STORE_EMISMATCH;
    }
    return 0;
}

/* One token count of the merge: (tokenizer, text) -> count, and the store that holds it. */
struct merge_count {
    char *key; /* "TOKENIZER\tTEXT_SHA256", malloc'd */
    long count;
    const char *from; /* borrowed */
};

struct merge_counts {
    struct merge_count *v;
    size_t nr, alloc;
    struct hashmap map;
};

static int count_is(const void *key, size_t entry, const void *data)
{
    return !strcmp(((const struct merge_counts *)data)->v[entry].key, key);
}

/* Add one store's counts; STORE_EMISMATCH after store_set_error() at the first that differs. */
static int counts_add(struct merge_counts *c, struct store *st)
{
    sqlite3_stmt *s = NULL;
    int rc;
    if (sqlite3_prepare_v2(st->db, store_stmt_sql[S_COUNT_ALL], -1, &s, NULL) != SQLITE_OK)
        return store_db_error(st, "cannot read token counts");
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        const char *tk = (const char *)sqlite3_column_text(s, 0);
        const char *sha = (const char *)sqlite3_column_text(s, 1);
        struct merge_count *e;
        struct strbuf key = STRBUF_INIT;
        size_t had;
        strbuf_addf(&key, "%s\t%s", tk ? tk : "", sha ? sha : "");
        ALLOC_GROW(c->v, c->nr + 1, c->alloc);
        e = &c->v[c->nr];
        e->key = strbuf_detach(&key, NULL);
        e->count = (long)sqlite3_column_int64(s, 2);
        e->from = store_path(st);
        had = hashmap_put(&c->map, fnv64_str(FNV64_INIT, e->key), e->key, c->nr, count_is, c);
        if (had == HASHMAP_NONE) {
            c->nr++;
            continue;
        }
        if (c->v[had].count != e->count) {
            store_set_error(st,
                            "merge: %s counts a text (sha256 %.12s...) as %ld tokens of tokenizer "
                            "'%s', %s as %ld: their runs counted with other tokenizers under one "
                            "name (a server tokenizer is named after the model) and cut their "
                            "prompts elsewhere; refusing to merge",
                            c->v[had].from, sha ? sha : "", c->v[had].count, tk ? tk : "", e->from,
                            e->count);
            free(e->key);
            sqlite3_finalize(s);
            return STORE_EMISMATCH;
        }
        free(e->key);
    }
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? 0 : store_db_error(st, "cannot read token counts");
}

/*
 * Every store counts a text alike under one tokenizer name. The runs' identities know a
 * server tokenizer by its name only, so shards mapped against servers of other tokenizers
 * compare equal while their prompts differ: their stored counts of the same haystack texts
 * tell. 0, -1, or STORE_EMISMATCH after store_set_error().
 */
static int check_counts(struct store *const *stores, size_t n_stores)
{
    struct merge_counts c = {.v = NULL, .nr = 0, .alloc = 0, .map = HASHMAP_INIT};
    int rc = 0;
    for (size_t i = 0; i < n_stores && !rc; i++)
        rc = counts_add(&c, stores[i]);
    for (size_t i = 0; i < c.nr; i++)
        free(c.v[i].key);
    free(c.v);
    hashmap_clear(&c.map);
    return rc;
}

/*
 * Pass 1: collect every run name of out (stores[0]) and the inputs and check that its parts
 * agree. Nothing is written. 0, -1, or STORE_EMISMATCH (store_set_error on the input).
 */
static int collect_runs(struct store *const *stores, size_t n_stores, struct merge_runs *runs)
{
    size_t i, j;
    for (i = 0; i < n_stores; i++) {
        struct store *st = stores[i];
        struct run_info *v;
        size_t n, k;
        if (store_run_list(st, NULL, &v, &n))
            return -1;
        for (k = 0; k < n; k++) {
            struct merge_run *m = NULL;
            const char *field;
            for (j = 0; j < runs->nr; j++)
                if (!strcmp(runs->v[j].info.name, v[k].name))
                    m = &runs->v[j];
            if (!m) {
                ALLOC_GROW(runs->v, runs->nr + 1, runs->alloc);
                m = &runs->v[runs->nr++];
                memset(m, 0, sizeof(*m));
                strvec_init(&m->shards);
                m->info = v[k];
                run_info_init(&v[k]);
                m->from = store_path(st);
                m->st = st;
                m->in_out = i == 0;
                m->probe_unknown = !m->info.probe_key;
                m->probe_from = m->from;
                merge_account(m, &m->info);
                continue;
            }
            if (!run_identity_same_run(&m->info, &v[k], &field, NULL)) {
                store_set_error(st,
                                "merge: %s and %s hold different runs named '%s' (%s differs); "
                                "refusing to merge shards of different runs",
                                m->from, store_path(st), v[k].name, field);
                run_info_list_free(v, n);
                return STORE_EMISMATCH;
            }
            note_probe(m, st, &v[k]);
            if (!disjoint_shards(m, &v[k])) {
                int rc = same_prompts(m, st, &v[k]);
                if (rc) {
                    run_info_list_free(v, n);
                    return rc;
                }
            }
            merge_account(m, &v[k]);
        }
        run_info_list_free(v, n);
    }
    return 0;
}

/* Pass 2, inside the merge's transaction: one merged run, its schedules and its trials. */
static int write_run(struct store *out, struct store **ins, size_t nin, struct merge_run *m)
{
    sqlite3_stmt *s;
    char *shard = merged_shard(m);
    size_t i;
    int rc = -1;
    if (!m->in_out && store_insert_run(out, &m->info, m->info.settings_json))
        goto out;
    s = store_stmt_get(out, S_RUN_MERGED);
    if (!s)
        goto out;
    store_bind_text(s, 1, m->info.name);
    store_bind_text(s, 2, run_status_name(rank_status(m->rank)));
    sqlite3_bind_int64(s, 3, m->planned);
    store_bind_text(s, 4, shard);
    store_bind_time(s, 5, m->started_at);
    store_bind_time(s, 6, m->rank == 0 || m->finished_at != 0 ? m->finished_at : 0);
    if (store_stmt_done(out, s, "cannot update the merged run"))
        goto out;
    if (merge_schedules(out, m) ||
        (m->matrix > 0 && store_run_set_matrix(out, m->info.name, m->matrix)) ||
        store_run_set_probe(out, m->info.name, m->probe_unknown ? NULL : m->info.probe_key,
                            m->probe_unknown ? NULL : m->info.probe_sha256))
        goto out;
    for (i = 0; i < nin; i++) {
        struct merge_copy c = {.out = out, .run = m->info.name};
        int r = store_trials_each(ins[i], m->info.name, merge_trial, &c);
        if (r < 0 || store_flush(out))
            goto out;
    }
    rc = 0;
out:
    free(shard);
    return rc;
}

/* Pass 2: write everything in one transaction (all or nothing). 0, or -1 rolled back. */
static int write_runs(struct store *out, struct store **ins, size_t nin,
                      const struct merge_runs *runs)
{
    size_t i;
    if (store_exec_simple(out, S_BEGIN, "cannot begin the merge"))
        return -1;
    out->in_outer_txn = 1;
    for (i = 0; i < runs->nr; i++)
        if (write_run(out, ins, nin, &runs->v[i]))
            goto rollback;
    for (i = 0; i < nin; i++)
        if (merge_extras(out, ins[i]))
            goto rollback;
    out->in_outer_txn = 0;
    if (store_exec_simple(out, S_COMMIT, "cannot commit the merge"))
        goto rollback;
    return 0;
rollback:
    for (i = 0; i < out->nops; i++)
        store_op_release(&out->ops[i]);
    out->nops = 0;
    out->in_outer_txn = 0;
    store_txn_rollback(out);
    return -1;
}

int store_merge(const char *out_path, const char *const *in_paths, size_t nin)
{
    struct store **stores = NULL; /* the output, then the inputs */
    struct merge_runs runs = {.v = NULL, .nr = 0, .alloc = 0};
    size_t i;
    int rc = -1;

    if (!nin)
        BUG("store_merge: no input databases");
    stores = xcalloc(nin + 1, sizeof(*stores));
    for (i = 0; i < nin; i++) {
        stores[i + 1] = store_open(in_paths[i], STORE_READONLY);
        if (!stores[i + 1])
            goto cleanup;
        /* after the (read-only) open, so the input's handle carries the message */
        if (same_file(out_path, in_paths[i])) {
            store_set_error(stores[i + 1], "merge: %s is both the output and an input",
                            in_paths[i]);
            goto cleanup;
        }
    }
    stores[0] = store_open(out_path, STORE_CREATE);
    if (!stores[0])
        goto cleanup;
    /*
     * A page cache of up to 64 MiB (SQLite's default is 2 MiB) for the one transaction that
     * writes every shard's trials: with 8 shards of a million-trial run the default spilled
     * and re-read pages (CPU 15.9 s, 16x the 100k merge's; 11.5 s and 14x with it, peak RSS
     * 108 -> 178 MB; BENCHMARKS.md). Only a hint: merging works without it.
     */
    (void)sqlite3_exec(stores[0]->db, "PRAGMA cache_size = -65536", NULL, NULL, NULL);
    rc = collect_runs(stores, nin + 1, &runs);
    if (!rc)
        rc = check_counts(stores, nin + 1);
    if (!rc)
        rc = check_probes(&runs);
    if (rc)
        goto cleanup;
    rc = write_runs(stores[0], stores + 1, nin, &runs);
    if (!rc && stores[0]->merge_kept)
        warning("merge: %zu trial(s) were present in more than one input; kept the first "
                "finished result of each",
                stores[0]->merge_kept);
cleanup:
    for (i = 0; i < runs.nr; i++) {
        run_info_release(&runs.v[i].info);
        strvec_clear(&runs.v[i].shards);
        free(runs.v[i].clash_sha);
    }
    free(runs.v);
    if (stores[0] && store_close(stores[0]))
        rc = -1;
    for (i = 0; i < nin; i++)
        store_close(stores[i + 1]);
    free(stores);
    return rc;
}

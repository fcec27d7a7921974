#ifndef STORE_H
#define STORE_H

#include <pthread.h>

#include <stddef.h>

#include "base/sha256.h"
#include "base/usage.h"
#include "run/trial.h"

/*
 * The run store: one SQLite database file holding any number of runs, their
 * trials, run locks, a token-count cache and (optionally) rendered prompts.
 * Only the store module (store.c, store_*.c behind store-int.h) includes
 * SQLite; nothing SQLite-specific leaks through this header.
 *
 * Conventions for every function below:
 * - Errors: a failing function records its message in the handle
 *   (store_set_error(), read back with store_errmsg()) and returns -1 (or
 *   NULL, or its STORE_E* code); nothing here prints to stdout or exits. A
 *   message names the database file, the run and SQLite's own words. For now
 *   store_set_error() also prints the message with error(), the one print left
 *   in the store (docs/conventions.md "Errors"): about 190 calls in 22 files
 *   outside store/ (runner, batch, reports, statistics, commands) pass its -1
 *   on without a message of their own, so a caller must not print a second
 *   line. When every command prints store_errmsg() itself, that print goes.
 *   Already there: store_trial.c and store_batch.c (store_trial_put and its
 *   queue, store_count_put, store_golden_begin, store_batch_add) record their
 *   own reasons without printing (store_record_error()); their callers print
 *   store_errmsg().
 * - Strings passed in are borrowed and copied when kept; strings handed out
 *   in structs are owned by the struct and freed by the matching release or free function.
 * - Timestamps are unix time in seconds (double); 0 means "not set".
 * - A handle is used by one thread at a time. Several PROCESSES may open the
 *   same file and write different runs side by side (WAL mode, busy timeout).
 *
 * Durability: the database runs in WAL mode with synchronous=NORMAL. A process
 * crash (kill -9, abort) loses only trials put but not yet flushed; every
 * committed batch survives and the file is never corrupted. A power loss or
 * OS crash may additionally roll back the most recent committed batches (not
 * yet checkpointed) but still never corrupts the file. We trade that for
 * commits that cost no fsync; the runner's flush interval bounds the loss.
 */

/* Database used when neither --db nor $DIPMAP_DB is given. */
#define DIPMAP_DEFAULT_DB "dipmap.db"
/* Environment variable that overrides DIPMAP_DEFAULT_DB. */
#define DIPMAP_DB_ENV "DIPMAP_DB"

/* Schema version this build creates and understands (PRAGMA user_version). */
#define STORE_SCHEMA_VERSION 12
/*
 * Oldest schema a read-only handle reads as it is (no migration): columns
 * added since read as their defaults (cut 0, reasoning tokens unknown, no
 * request hash, no axes), golden sets as not stored. Older files need a read-write
 * open once.
 */
#define STORE_READ_MIN_VERSION 2

/* Heartbeat age after which a run lock is considered abandoned. */
#define STORE_LOCK_STALE_SECONDS 60
/* store_trial_put() flushes by itself once this many writes are buffered. */
#define STORE_BATCH_MAX 512

/* Negative returns with a meaning beyond "failed" (-1). */
#define STORE_ELOCKED   (-2) /* the run is locked by another live process */
#define STORE_EEXIST    (-3) /* store_run_create: a run with that name exists */
#define STORE_EMISMATCH (-4) /* store_merge: inputs are shards of different runs */

struct store;
struct strbuf;

/* The --db value: `flag` when non-NULL, else $DIPMAP_DB when set and non-empty, else the default.
 */
const char *store_default_path(const char *flag);

enum store_open_mode {
    STORE_READONLY = 0, /* the file must exist; nothing is written, no migration */
    STORE_READWRITE,    /* the file must exist; migrated forward if older */
    STORE_CREATE        /* read-write, created (with the current schema) if missing */
};

/*
 * Open a store. Sets WAL mode, a busy timeout (several processes may write),
 * synchronous=NORMAL and foreign keys; creates or migrates the schema.
 * Returns NULL after error() naming the file: missing file ("no such
 * database"), not a SQLite file or corrupted ("not a dipmap database"),
 * schema newer than this build ("created by a newer dipmap"), read-only
 * handle on a database older than STORE_READ_MIN_VERSION.
 */
struct store *store_open(const char *path, enum store_open_mode mode);
/*
 * Flush buffered writes, release the run locks this handle holds, close, free.
 * Returns 0, or -1 when the final flush failed (the handle is freed anyway).
 * NULL is a no-op.
 */
int store_close(struct store *st);
/*
 * The handle's last error (docs/conventions.md "Errors"): a store function
 * that fails records its message ("FILE: what: why", naming the run and
 * SQLite's own words) with store_set_error() and returns its documented
 * negative code; store_errmsg() reads it back for the command to print.
 * store_errmsg() returns "" when nothing failed; the string is owned by the
 * handle and valid until the next store call on it. store_set_error()
 * replaces the last message and returns -1.
 */
const char *store_errmsg(const struct store *st);
int store_set_error(struct store *st, const char *fmt, ...) DM_PRINTF(2, 3);
/* The path given to store_open() (owned by the handle). */
const char *store_path(const struct store *st);
/* The schema version of the open database (STORE_SCHEMA_VERSION after a read-write open). */
int store_schema_version(const struct store *st);

/*
 * For migration tests: create `path` (which must not exist) with the schema as
 * it was at `version` (1..STORE_SCHEMA_VERSION), i.e. applying only the first
 * `version` migrations. Returns 0 or -1.
 */
int store_create_at_version(const char *path, int version);

/*
 * Run SQLite's PRAGMA integrity_check. Returns 0 when the file is sound, -1
 * after error() quoting the first problem.
 */
int store_integrity_check(struct store *st);

/* ---- runs ---------------------------------------------------------------- */

enum run_status {
    RUN_RUNNING = 0,
    RUN_COMPLETE,
    RUN_INTERRUPTED, /* SIGINT/SIGTERM; resumable */
    RUN_FAILED,      /* fatal endpoint error or too many errors */
    RUN_BUDGET,      /* --max-cost reached; resumable */
    RUN_STATUS__COUNT
};
/* "running", "complete", "interrupted", "failed", "budget". */
const char *run_status_name(enum run_status s);
/* Returns 0, or -1 for an unknown name. */
int run_status_parse(const char *name, enum run_status *out);

/*
 * One run. Every string is owned (malloc'd) and may be NULL unless noted.
 * Hashes are 64 lowercase hex digits.
 */
struct run_info {
    char *name;               /* required, unique in the database */
    char *model_requested;    /* required: --model */
    char *model_served;       /* "model" echoed by the server */
    char *endpoints;          /* base URL(s), comma-separated, without credentials */
    char *system_fingerprint; /* when the server sends one */
    /*
     * Every setting as one JSON object (config_settings_json()). Must not
     * contain the shard (see `shard`) nor any secret: store_run_create()
     * refuses keys like "api-key"/"authorization"/"password"/"secret" and
     * string values like "Bearer ..." or "Authorization: ..." (the NAME of
     * the key's environment variable, "api-key-env", is fine). Stored in a
     * canonical form (keys sorted, compact), so equal settings compare equal.
     */
    char *settings_json;
    char *golden_sha256;
    char *haystack_sha256;
    char *template_sha256;
    char *tokenizer_name;
    char *tokenizer_sha256;
    char *dipmap_version;
    char *dipmap_commit;
    char *tags;  /* comma-separated, e.g. "nightly,gpu-a" */
    char *shard; /* "I/N" for a shard store, NULL for a whole run; not part of identity */
    /*
     * The scorer that scored the run's trials, "NAME/VERSION" (score_version());
     * NULL for runs made before it was recorded. Filled by store_run_get()
     * only; not part of identity (compare checks it).
     */
    char *scorer_version;
    /*
     * The send schedules the run's invocations used (run --schedule), comma-separated in
     * first-use order, e.g. "cache" or "plan,cache"; NULL when none was recorded (dry runs,
     * stores before schema 7). Filled by store_run_get()/store_run_list(); not identity.
     */
    char *schedules;
    double created_at; /* set to now by store_run_create() when 0 */
    double started_at;
    double finished_at;
    enum run_status status;
    long trials_planned; /* trials in this run (this shard's share when sharded) */
    /*
     * Trials in the whole matrix, every shard included (store schema 9); 0 when not recorded
     * (older stores: run_info_planned() falls back to trials_planned).
     */
    long matrix_planned;
    /*
     * The request probe (store schema 12): the key of one fixed trial of the whole matrix
     * ("QID|LENGTH|DEPTH_BP|REPEAT|AXES", the first of the plan before sharding, so every
     * shard names the same) and the prompt_sha256 the recording binary built for it. Both
     * NULL when unknown (older stores and binaries). Not identity: merge refuses parts whose
     * known probes of one key differ, run refuses to resume with another. Filled by
     * store_run_get()/store_run_list(); written by store_run_create() when set.
     */
    char *probe_key;
    char *probe_sha256;

    /* Filled by store_run_get()/store_run_list(); ignored on create. */
    long trials_done;      /* trials in a final state (outcome != pending) */
    long trials_stored;    /* trial rows, pending included */
    long lock_pid;         /* holder of the run lock, 0 when none */
    char *lock_host;       /* its hostname, NULL when none */
    double lock_heartbeat; /* its last heartbeat, 0 when none */
};

void run_info_init(struct run_info *r);
/*
 * 1 when a process is executing the run right now: a lock is held, its
 * heartbeat is younger than STORE_LOCK_STALE_SECONDS and, when the holder is
 * on this host, its pid is alive. A run with status RUNNING that is not live
 * was killed (or lost its machine) and can be resumed.
 */
int run_info_is_live(const struct run_info *r);
/*
 * The shards of a sharded run that this store does not hold: r->shard lists
 * the parts present ("1/4,2/4,3/4" after merging three of four); appends the
 * missing ones ("4/4", comma-separated) to out and returns how many. 0 for a
 * whole run or a complete set.
 */
size_t run_info_missing_shards(const struct run_info *r, struct strbuf *out);
/*
 * The status as shown to people (runs, report, view, merge): "stalled" for a
 * RUNNING run no process holds, "incomplete" for a complete run that lacks
 * shards (see run_info_missing_shards), else run_status_name().
 */
const char *run_info_status_text(const struct run_info *r);
/*
 * The trials planned for the whole run, every shard counted, as runs, report
 * and summary.json show them: matrix_planned when recorded, else
 * trials_planned (a whole run, or a store older than schema 9).
 */
long run_info_planned(const struct run_info *r);
void run_info_release(struct run_info *r);
/* Free an array returned by store_run_list(). */
void run_info_list_free(struct run_info *v, size_t nr);

/*
 * Insert a new run (status, times, planned count as given; created_at = now
 * when 0). Returns 0; STORE_EEXIST (after error()) when the name is taken;
 * -1 on a refused field (secret in settings_json, credentials in endpoints,
 * missing name or model) or a database error.
 */
int store_run_create(struct store *st, const struct run_info *r);

/* Load one run into *out (initialised by the callee). Returns 0, 1 when no
 * such run (nothing printed, *out empty), -1 on error. Free with run_info_release(). */
int store_run_get(struct store *st, const char *name, struct run_info *out);
/* A consistent snapshot for several reads (see store.c); end it before writing. */
int store_read_begin(struct store *st);
void store_read_end(struct store *st);

/*
 * Set a run's status. RUNNING also sets started_at to now when it was unset;
 * any other status sets finished_at to now. Returns 0, -1 (no such run: error).
 */
int store_run_update_status(struct store *st, const char *name, enum run_status status);
/* Record what the server echoed (either may be NULL = leave unchanged). Returns 0 or -1. */
int store_run_set_served(struct store *st, const char *name, const char *model_served,
                         const char *system_fingerprint);
/* Record the scorer that scored a run ("contains/2"). Returns 0 or -1. */
int store_run_set_scorer(struct store *st, const char *name, const char *scorer_version);
/*
 * Record that the run is being sent with `schedule` ("cache", "shuffle", "plan"): appended to
 * run_info.schedules unless already there. Returns 0 or -1 (error printed).
 */
int store_run_add_schedule(struct store *st, const char *name, const char *schedule);
/* Replace a run's settings (rescore in place changes "scorer"); canonicalised. 0 or -1. */
int store_run_set_settings(struct store *st, const char *name, const char *settings_json);
/* Change the planned trial count (e.g. when a resume extends the matrix). Returns 0 or -1. */
int store_run_set_planned(struct store *st, const char *name, long trials_planned);
/* Record the whole matrix's trial count (all shards; run_info.matrix_planned). Returns 0 or -1. */
int store_run_set_matrix(struct store *st, const char *name, long matrix_planned);
/*
 * Record the run's request probe (run_info.probe_key, probe_sha256; both NULL = unknown).
 * Returns 0 or -1.
 */
int store_run_set_probe(struct store *st, const char *name, const char *key, const char *sha256);
/* Replace a run's tags (comma-separated, NULL = none). Returns 0 or -1. */
int store_run_set_tags(struct store *st, const char *name, const char *tags);
/*
 * The tokens a run's finished trials made the server process, for its spend across
 * invocations and merged shards: per trial the server's usage.prompt_tokens, else the local
 * count when the server answered (an overflow or error without usage counts 0), plus its
 * completion tokens, and of the prompt tokens those the server said it took from its cache
 * (cached_tokens, else llama.cpp's cache_n). batched: only the trials a batch of the run
 * held (run --batch; their cost is at batch prices). Returns 0, 1 when no such run (all 0),
 * -1 on error.
 */
int store_run_usage(struct store *st, const char *name, int batched, double *prompt_tokens,
                    double *completion_tokens, double *cached_tokens);

/* Filter for store_run_list(); NULL fields match everything. */
struct run_filter {
    const char *model_prefix; /* model_requested or model_served starts with this */
    const char *tag;          /* one of the run's comma-separated tags equals this */
    const char *name;         /* exact run name */
};

/*
 * The runs matching `f` (NULL = all), oldest created first (ties by name),
 * with trials_done/trials_stored filled. *out is a malloc'd array of *nr runs
 * (NULL when none); free with run_info_list_free(). Returns 0 or -1.
 */
int store_run_list(struct store *st, const struct run_filter *f, struct run_info **out, size_t *nr);

/* ---- run locks ----------------------------------------------------------- */

/*
 * Take the lock on `run` (which must exist) for this handle, so that one run
 * is executed by one process at a time; different runs lock independently.
 * A lock row records pid, hostname and a heartbeat; it is taken over when it
 * is stale: its pid is dead on this host, or its heartbeat is older than
 * `stale_seconds` (<= 0: STORE_LOCK_STALE_SECONDS). Taking a lock this
 * handle already holds succeeds.
 * Returns 0; STORE_ELOCKED after error() naming the holder, e.g.
 *   error: run 'x' is in use by pid 4242 on host gpu-1 (heartbeat 3s ago)
 * or -1 on a database error.
 */
int store_run_lock(struct store *st, const char *run, int stale_seconds);
/* Refresh the heartbeat of every lock this handle holds (store_flush() does
 * this too). Returns 0 or -1 (e.g. the lock was taken over as stale: error). */
int store_run_heartbeat(struct store *st);
/* Release this handle's lock on `run` (no-op when not held). Returns 0 or -1. */
int store_run_unlock(struct store *st, const char *run);

/* What store_run_delete removed. */
struct store_rm_result {
    long trials;      /* the run's trials */
    long prompts;     /* stored prompts no other row names any more */
    long golden_sets; /* golden sets no other run uses any more */
};
/*
 * Delete run `name` with everything recorded under it, and the stored prompts and golden
 * sets nothing else names (store_rm.c); other runs are untouched. Takes the run's lock
 * first: a run another live process holds is refused. One transaction.
 * Returns 0; 1 when there is no such run (nothing printed); -1 after error().
 */
int store_run_delete(struct store *st, const char *name, struct store_rm_result *out);
/*
 * Rename a run (its trials follow: they hold the run's id). Refuses an invalid or taken
 * new name and a run another live process holds. Returns 0; 1 when there is no run
 * old_name (nothing printed); -1 after error().
 */
int store_run_rename(struct store *st, const char *old_name, const char *new_name);

/* ---- trials -------------------------------------------------------------- */

/*
 * Buffer one trial of `run` for writing (every field of *t is copied; t is
 * not kept). Nothing reaches the file until store_flush() (or an automatic
 * flush once STORE_BATCH_MAX writes are buffered). The write is an upsert on
 * (run, question_id, length, depth_bp, repeat): it replaces the existing row,
 * so a resumed trial never duplicates — except that a PENDING result never
 * overwrites a row already in a final state.
 * Returns 0, or -1 (unknown run, missing question_id, depth out of range,
 * failed automatic flush).
 */
int store_trial_put(struct store *st, const char *run, const struct trial_result *t);
/*
 * The prompt hash of each of run's trials that has one, as "KEY\tSHA256" lines (KEY:
 * "QID|LENGTH|DEPTH_BP|REPEAT|AXES") in KEY order, appended to out (run_identity.h compares
 * two runs' prompts with it). 0, 1 no such run, -1.
 */
struct strvec;
int store_trial_prompt_index(struct store *st, const char *run, struct strvec *out);
/*
 * The prompt hash run stored for one trial key (question id, length, depth_bp, repeat, axes;
 * NULL axes = ""), into sha (SHA256_HEX_LEN + 1 bytes). 0 found, 1 when the run holds no
 * hash for the key (or the store predates schema 6, whose keys have no axes), -1 on error.
 */
int store_trial_prompt_of(struct store *st, const char *run, const char *question_id, long length,
                          int depth_bp, int repeat, const char *axes, char *sha);
/* The same for a trial whose strings are borrowed (trial.h: struct trial_view). */
int store_trial_put_view(struct store *st, const char *run, const struct trial_view *v);

/*
 * Commit every buffered write in one transaction and refresh this handle's
 * lock heartbeats. On failure the transaction is rolled back, the buffer is
 * KEPT (a later flush retries it) and -1 is returned. Returns 0 on success.
 */
int store_flush(struct store *st);
/* Writes buffered and not yet flushed. */
size_t store_pending(const struct store *st);

/*
 * Load all trials of `run`, ordered by (question_id, length, depth_bp,
 * repeat). *out is a malloc'd array of *nr results (NULL when none), free
 * with store_trials_free(). Returns 0, 1 when no such run, -1 on error.
 * Buffered (unflushed) writes of this handle are not visible.
 */
int store_trials_load(struct store *st, const char *run, struct trial_result **out, size_t *nr);
void store_trials_free(struct trial_result *v, size_t nr);

/*
 * Stream the trials of `run` in the same order without holding them all:
 * fn is called once per trial (t is valid only during the call); a non-zero
 * return from fn stops the walk and is returned. Returns 0 when all were
 * visited, 1 when no such run, -1 on error, or fn's non-zero value.
 */
typedef int (*store_trial_fn)(const struct trial_result *t, void *data);
int store_trials_each(struct store *st, const char *run, store_trial_fn fn, void *data);

/*
 * Append the points of run's trials (what the statistics read: trial.h) to out, in the order
 * of store_trials_load, reading no answer, reasoning or error text: a million trials take
 * about 90 MB. Returns 0, 1 when no such run, -1 on error (out keeps what was read).
 */
int store_points_load(struct store *st, const char *run, struct trial_point_set *out);

/*
 * The answer of run's trial k (malloc'd into *answer; NULL when it has none): what a report
 * lists of a few trials whose points it holds. Returns 0, 1 when no such run or trial, -1 on
 * error.
 */
int store_trial_answer(struct store *st, const char *run, const struct trial_key *k, char **answer);

/* ---- resume: the set of finished trials ---------------------------------- */

/* Flags for store_done_set_load(). */
#define STORE_DONE_KEEP_ERRORS 1 /* count OUTCOME_ERROR as done (default: re-send them) */

struct store_done_set;
/*
 * The keys of `run` already in a final state — outcome other than pending
 * and, unless STORE_DONE_KEEP_ERRORS, other than error — as a hash set for
 * O(1) lookups while planning a resume. A run with no trials (or no such
 * run) gives an empty set. Returns NULL on a database error.
 */
struct store_done_set *store_done_set_load(struct store *st, const char *run, unsigned flags);
/* 1 when the key is in the set, else 0. */
int store_done_set_has(const struct store_done_set *s, const struct trial_key *k);
size_t store_done_set_count(const struct store_done_set *s);
void store_done_set_free(struct store_done_set *s);

/* ---- token-count cache (--tokenizer server and friends) ------------------ */

/*
 * Cached token count of a text for a tokenizer. `tokenizer` identifies it
 * exactly (e.g. "server:http://host/v1:modelname" or a tokenizer file's
 * sha256); `text_sha256` is the sha256 hex of the text.
 * store_count_get: 1 and *count when cached, 0 when not, -1 on error.
 * store_count_put: writes at once (own small transaction); 0 or -1. A
 * read-only handle keeps counts in memory only and returns 0.
 */
int store_count_get(struct store *st, const char *tokenizer, const char *text_sha256, long *count);
int store_count_put(struct store *st, const char *tokenizer, const char *text_sha256, long count);

/*
 * The remote tokenizer's counts live in the run store, through a handle of
 * their own: prompt builders in several threads count while the runner
 * writes trials on the main handle.
 */
struct store_count_cache {
    pthread_mutex_t mu;
    struct store *st;
};

/* store_count_get/put under cc->mu on cc->st: the tokenizer's remote count cache callbacks
 * (tokenizer_set_remote_cache, ctx = the struct store_count_cache). */
int store_count_cache_get(void *ctx, const char *name, const char *sha, long *count);
void store_count_cache_put(void *ctx, const char *name, const char *sha, long count);

/* ---- rendered prompts (--store-prompts) ---------------------------------- */

/*
 * Store a rendered prompt content-addressed (key = sha256 hex of its bytes,
 * computed here and written to sha_out when non-NULL); a prompt already
 * stored is not written again. Buffered and committed by store_flush()
 * together with the trials. Returns 0 or -1.
 */
int store_prompt_put(struct store *st, const char *text, size_t len,
                     char sha_out[SHA256_HEX_LEN + 1]);
/* Fetch a stored prompt: 1 and *text (malloc'd, NUL-terminated, caller frees) with *len,
 * 0 when not stored, -1 on error. */
int store_prompt_get(struct store *st, const char *sha256, char **text, size_t *len);

/* ---- golden sets (content-addressed, once per store) ---------------------- */

/*
 * Keep a golden set's uncompressed content under its sha256 (the run's
 * golden_sha256); a set already kept is not written again. Own transaction.
 * Returns 0 or -1.
 */
int store_golden_put(struct store *st, const char *sha256, const char *content, size_t len);
/*
 * Fetch a kept golden set: 1 and *content (malloc'd, NUL-terminated, caller
 * frees) with *len; 0 when not kept (or the store predates schema 3); -1 on error.
 */
int store_golden_get(struct store *st, const char *sha256, char **content, size_t *len);

/*
 * A golden set kept without holding it in memory: store_golden_begin() opens a transaction
 * and a blob of size bytes under sha256 (returns 1 when the store already keeps that set:
 * nothing to write; 0 with *w open; -1 on error), store_golden_write() appends to it in
 * order, store_golden_end() commits when ok and everything was written, else rolls back
 * (nothing of it kept). A kill in between leaves no partial set. Returns 0 or -1.
 */
struct store_golden_writer;
int store_golden_begin(struct store *st, const char *sha256, size_t size,
                       struct store_golden_writer **w);
int store_golden_write(struct store_golden_writer *w, const void *data, size_t len);
int store_golden_end(struct store_golden_writer *w, int ok);

/* ---- dipmap gate's rounds (store_gate.c) ----------------------------------- */

struct strvec;

/*
 * Record round `round` (1-based) of gate `gate`: its state as JSON text (the
 * gate's own document, kept verbatim). A round already recorded is replaced.
 * Own transaction. Returns 0 or -1 (printed).
 */
int store_gate_round_put(struct store *st, const char *gate, long round, const char *state_json);
/*
 * The recorded rounds of gate `gate` in round order: their states appended to
 * out (one JSON text each; rounds 1..out->nr, a gap ends the list). A store
 * before schema 8 has none. Returns the number appended, or -1 (printed).
 */
int store_gate_rounds(struct store *st, const char *gate, struct strvec *out);

/* ---- merge --------------------------------------------------------------- */

/*
 * Join shard stores into `out_path` (created when missing; it may already hold
 * runs). Runs are matched by name; all runs of one name — in the inputs and
 * in the output — must have the same inputs (run_identity_same_run()) and,
 * where two parts can share trial keys (not two shards I/N of one N), the same
 * prompt hashes for the keys they share (run_identity_same_prompts()); every
 * store must count a text alike under one tokenizer name (a server tokenizer
 * is known by name only). Else nothing is written and STORE_EMISMATCH is
 * returned after an error naming both files and what differs. Trials are
 * united: where two inputs hold
 * the same key, a final result beats a pending one, and between two final
 * results the first input wins (a warning counts such conflicts). Planned
 * counts of distinct shards add up; the merged status is "complete" only when
 * every part is. Stored prompts and token counts are copied too.
 * Returns 0, STORE_EMISMATCH, or -1 (unreadable input, write failure).
 */
int store_merge(const char *out_path, const char *const *in_paths, size_t nin);

/* Appends "SQLite VERSION" of the library linked at run time (dipmap --version). */
void store_library_version(struct strbuf *out);

#endif

/*
 * run --batch (batch.h): writes the input files, records each batch in the store before each
 * step at the provider, polls, downloads and turns output lines into stored trials; owns the
 * re-attach after a kill, the new batches for expired lines and the online fallback.
 */
#define _GNU_SOURCE
#include "run/batch.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/escape.h"
#include "base/strbuf.h"
#include "base/usage.h"
#include "base/xalloc.h"
#include "client/client.h"
#include "client/client_batch.h"
#include "prompt/dataset.h"
#include "prompt/prompt.h"
#include "run/plan.h"
#include "run/trial_send.h"
#include "base/rng.h"
#include "store/store.h"
#include "store/store_batch.h"
#include "base/utc.h"

#include "base/banned.h"

void batch_config_init(struct batch_config *bc)
{
    memset(bc, 0, sizeof(*bc));
    bc->window = "24h";
    bc->max_requests = BATCH_DEFAULT_MAX_REQUESTS;
    bc->max_bytes = BATCH_DEFAULT_MAX_BYTES;
    bc->poll_s = 5;
    bc->poll_max_s = 60;
    bc->price_in = -1;
    bc->price_out = -1;
    bc->max_rounds = 5;
}

/* ---- signals ------------------------------------------------------------------ */

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* ---- the state of one invocation ---------------------------------------------- */

struct bstate {
    const struct runner_config *rc;
    const struct batch_config *bc;
    struct runner_result *res;
    struct store_done_set *done; /* final in the store (refreshed each round) */
    char **inflight;             /* custom ids in live batches, sorted */
    size_t ninflight;
    struct strbuf err;
    struct built_prompt bp;
    struct trial_request req; /* the request of the trial being written (trial_send.h) */
    uint64_t nonce_next;      /* --no-cache-reuse nonces, as online */
    long answers_checked;     /* answers whose prompt count was checked (the first may stop) */
    struct strbuf mismatch;   /* a mismatch that stops the run once its batch is stored */
    int stop;
    double start;
    double spent;     /* USD of the lines stored this invocation (batch prices) */
    double committed; /* USD at most of the batches submitted since the last collection */
    long requeued;    /* lines that expired or failed for the server's reasons */
};

static void set_message(struct bstate *b, enum runner_end end, const char *fmt, ...)
    DM_PRINTF(3, 4);
static void set_message(struct bstate *b, enum runner_end end, const char *fmt, ...)
{
    struct strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    free(b->res->message);
    b->res->message = strbuf_detach(&sb, NULL);
    b->res->end = end;
    b->stop = 1;
}

/* The trial key as custom_id: "QID|LENGTH|DEPTH_BP|REPEAT[|AXES]". */
static void custom_id_of(const struct runner_config *rc, size_t i, struct strbuf *out)
{
    const struct plan_trial *pt = &rc->plan->t[i];
    strbuf_reset(out);
    strbuf_addf(out, "%s|%ld|%d|%d", rc->gs->q[pt->question].id, pt->length, pt->depth_bp,
                pt->repeat);
    if (pt->axes && *pt->axes)
        strbuf_addf(out, "|%s", pt->axes);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int trial_final(const struct bstate *b, size_t i)
{
    const struct plan_trial *pt = &b->rc->plan->t[i];
    struct trial_key k = {b->rc->gs->q[pt->question].id, pt->length, pt->depth_bp, pt->repeat,
                          pt->axes};
    return store_done_set_has(b->done, &k);
}

static int trial_in_flight(const struct bstate *b, const char *cid)
{
    return b->ninflight &&
           bsearch(&cid, b->inflight, b->ninflight, sizeof(char *), cmp_str) != NULL;
}

static void inflight_clear(struct bstate *b)
{
    for (size_t i = 0; i < b->ninflight; i++)
        free(b->inflight[i]);
    free(b->inflight);
    b->inflight = NULL;
    b->ninflight = 0;
}

static int live_state(const char *state)
{
    return strcmp(state, "done") && strcmp(state, "lost") && strcmp(state, "failed");
}

/* The done set and the custom ids of the live batches, from the store. */
static int refresh(struct bstate *b, struct store_batch *v, size_t nr)
{
    size_t alloc = 0;
    store_done_set_free(b->done);
    b->done = store_done_set_load(b->rc->store, b->rc->run_name, 0);
    if (!b->done)
        return -1;
    inflight_clear(b);
    for (size_t i = 0; i < nr; i++) {
        struct store_batch_trial *t;
        size_t n;
        if (!live_state(v[i].state))
            continue;
        if (store_batch_trials(b->rc->store, v[i].id, &t, &n) < 0)
            return -1;
        for (size_t k = 0; k < n; k++) {
            ALLOC_GROW(b->inflight, b->ninflight + 1, alloc);
            b->inflight[b->ninflight++] = xstrdup(t[k].custom_id);
        }
        store_batch_trials_free(t, n);
    }
    if (b->ninflight)
        qsort(b->inflight, b->ninflight, sizeof(char *), cmp_str);
    return 0;
}

/* ---- building and submitting ----------------------------------------------------- */

/* One input file being written. */
struct infile {
    FILE *f;
    struct strbuf path, tag;
    long bytes;
    struct store_batch_trial *t;
    size_t n, alloc;
    double est_usd;
};

static void infile_reset(struct infile *in)
{
    if (in->f)
        fclose(in->f);
    in->f = NULL;
    if (in->path.len)
        unlink(in->path.buf);
    strbuf_reset(&in->path);
    strbuf_reset(&in->tag);
    store_batch_trials_free(in->t, in->n);
    in->t = NULL;
    in->n = in->alloc = 0;
    in->bytes = 0;
    in->est_usd = 0;
}

static int infile_open(struct bstate *b, struct infile *in, int seq)
{
    const char *dir = b->bc->spool ? b->bc->spool : getenv("TMPDIR");
    int fd;
    strbuf_addf(&in->tag, "dipmap-%s-%ld-%d", b->rc->run_name, (long)time(NULL), seq);
    for (size_t i = 0; i < in->tag.len; i++)
        if (!(isalnum((unsigned char)in->tag.buf[i]) || strchr("-_.", in->tag.buf[i])))
            in->tag.buf[i] = '_';
    strbuf_addf(&in->path, "%s/%s-XXXXXX", dir && *dir ? dir : "/tmp", in->tag.buf);
    fd = mkstemp(in->path.buf);
    if (fd < 0 || !(in->f = fdopen(fd, "w"))) {
        set_message(b, RUNNER_STORE_ERROR, "cannot write a batch input file in %s: %s",
                    dir && *dir ? dir : "/tmp", strerror(errno));
        if (fd >= 0)
            close(fd);
        strbuf_reset(&in->path);
        return -1;
    }
    return 0;
}

static double batch_cost(const struct batch_config *bc, double in, double out)
{
    if (bc->price_in < 0 || bc->price_out < 0)
        return -1;
    return in / 1e6 * bc->price_in + out / 1e6 * bc->price_out;
}

/* Build trial i's request line into in. 0, or -1 (the run stops: message set). */
static int add_trial(struct bstate *b, struct infile *in, size_t i, struct strbuf *line)
{
    const struct runner_config *rc = b->rc;
    const struct plan_trial *pt = &rc->plan->t[i];
    const struct question *q = &rc->gs->q[pt->question];
    struct prompt_request pr;
    struct client_cache_hints hints = {-1, -1, NULL, NULL, 0};
    struct strbuf body = STRBUF_INIT, cid = STRBUF_INIT;
    struct store_batch_trial *t;
    char key[32], nonce[40];

    trial_prompt_request(rc, i, &pr);
    strbuf_reset(&b->err);
    if (prompt_build(rc->builder, &pr, &b->bp, &b->err) < 0) {
        set_message(b, RUNNER_INPUT_ERROR,
                    "cannot build the prompt of question %s at length %ld, depth %g%%: %s", q->id,
                    pt->length, pt->depth_bp / 100.0, b->err.buf);
        return -1;
    }
    if (rc->no_reuse == RUNNER_REUSE_NONCE)
        snprintf(nonce, sizeof(nonce), "[request %016llx]\n",
                 (unsigned long long)rng_splitmix64(&b->nonce_next));
    trial_request_make(rc, &b->bp, rc->no_reuse == RUNNER_REUSE_NONCE ? nonce : NULL, &b->req);
    if (rc->store_prompts && trial_request_store_prompt(rc, &b->req) < 0) {
        set_message(b, RUNNER_STORE_ERROR, "cannot store a rendered prompt in %s",
                    store_path(rc->store));
        return -1;
    }
    if (rc->cache_keys) {
        /* the group's key: its depths share a prefix (the same rule as online) */
        snprintf(key, sizeof(key), "dipmap-%.16s", b->bp.sha256);
        hints.prompt_cache_key = key;
        b->req.req.hints = &hints;
    }
    client_request_body(rc->client, &b->req.req, &body);
    custom_id_of(rc, i, &cid);
    strbuf_reset(line);
    strbuf_addstr(line, "{\"custom_id\":");
    escape_json_n(line, cid.buf, cid.len);
    strbuf_addstr(line, ",\"method\":\"POST\",\"url\":");
    escape_json_n(line, client_request_path(rc->client), strlen(client_request_path(rc->client)));
    strbuf_addstr(line, ",\"body\":");
    strbuf_add(line, body.buf, body.len);
    strbuf_addstr(line, "}\n");

    ALLOC_GROW(in->t, in->n + 1, in->alloc);
    t = &in->t[in->n++];
    memset(t, 0, sizeof(*t));
    t->custom_id = strbuf_detach(&cid, NULL);
    t->question_id = xstrdup(q->id);
    t->length = pt->length;
    t->depth_bp = pt->depth_bp;
    t->repeat = pt->repeat;
    t->axes = xstrdup(pt->axes ? pt->axes : "");
    t->facts = b->req.facts;
    client_request_sha256(rc->client, &b->req.req, t->request_sha256);
    b->req.req.hints = NULL;
    {
        double c = batch_cost(b->bc, (double)b->bp.realized_len, (double)rc->max_tokens);
        in->est_usd += c > 0 ? c : 0;
    }
    strbuf_release(&body);
    return 0;
}

/* Record, upload and create the batch of in (each step in the store before the next). */
static int submit(struct bstate *b, struct infile *in)
{
    const struct runner_config *rc = b->rc;
    struct strbuf fid = STRBUF_INIT;
    struct client_batch cb;
    long id;
    int rc2;

    if (fflush(in->f) || fsync(fileno(in->f))) {
        set_message(b, RUNNER_STORE_ERROR, "cannot write %s: %s", in->path.buf, strerror(errno));
        return -1;
    }
    /* the batches submitted before this one are not answered yet: their cost is committed */
    if (rc->max_cost > 0 && b->spent + b->committed + in->est_usd > rc->max_cost) {
        set_message(b, RUNNER_BUDGET,
                    "a batch of %zu requests would cost up to $%.4f at batch prices; $%.4f of "
                    "--max-cost is left",
                    in->n, in->est_usd, rc->max_cost - b->spent - b->committed);
        return -1;
    }
    if (store_batch_add(rc->store, rc->run_name, in->tag.buf, in->bytes, in->t, in->n, &id) < 0) {
        set_message(b, RUNNER_STORE_ERROR, "cannot record a batch in %s: %s", store_path(rc->store),
                    store_errmsg(rc->store));
        return -1;
    }
    strbuf_reset(&b->err);
    {
        struct strbuf name = STRBUF_INIT;
        strbuf_addf(&name, "%s.jsonl", in->tag.buf);
        rc2 = client_file_upload(rc->client, in->path.buf, name.buf, &fid, &b->err);
        strbuf_release(&name);
    }
    if (rc2) {
        store_batch_delete(rc->store, id);
        set_message(b, RUNNER_FATAL, "%s", b->err.buf);
        strbuf_release(&fid);
        return -1;
    }
    if (store_batch_set(rc->store, id, "uploaded", fid.buf, NULL, NULL) < 0) {
        set_message(b, RUNNER_STORE_ERROR, "cannot record file %s in %s", fid.buf,
                    store_path(rc->store));
        strbuf_release(&fid);
        return -1;
    }
    if (store_batch_set(rc->store, id, "creating", NULL, NULL, NULL) < 0) {
        set_message(b, RUNNER_STORE_ERROR, "cannot update a batch in %s", store_path(rc->store));
        strbuf_release(&fid);
        return -1;
    }
    client_batch_init(&cb);
    strbuf_reset(&b->err);
    rc2 = client_batch_create(rc->client, fid.buf, b->bc->window, in->tag.buf, &cb, &b->err);
    if (rc2) {
        /* refused: nothing was created (the store says "uploaded" again; a rerun retries) */
        store_batch_set(rc->store, id, "uploaded", NULL, NULL, NULL);
        set_message(b, RUNNER_FATAL, "%s", b->err.buf);
    } else {
        if (store_batch_set(rc->store, id, "submitted", NULL, cb.id, cb.status) < 0) {
            set_message(b, RUNNER_STORE_ERROR, "cannot record batch %s in %s", cb.id,
                        store_path(rc->store));
            rc2 = -1;
        } else {
            b->res->requests += (long)in->n;
            b->committed += in->est_usd;
            fprintf(stderr, "batch %s: %zu requests (%.1f MB) submitted as %s\n", in->tag.buf,
                    in->n, (double)in->bytes / 1e6, cb.id);
        }
    }
    client_batch_release(&cb);
    strbuf_release(&fid);
    return rc2 ? -1 : 0;
}

/*
 * The trials neither final nor in a live batch, in input files: groups in plan order, each
 * group's depths deepest first (the prefix-cache schedule), a new file at either limit.
 */
static int submit_pending(struct bstate *b, long *submitted)
{
    const struct runner_config *rc = b->rc;
    const struct plan *plan = rc->plan;
    struct infile in;
    struct strbuf line = STRBUF_INIT, cid = STRBUF_INIT;
    size_t *ord = NULL, i = 0;
    int seq = 0, ret = 0;

    memset(&in, 0, sizeof(in));
    strbuf_init(&in.path, 0);
    strbuf_init(&in.tag, 0);
    ord = xmalloc(st_mult(plan->nr ? plan->nr : 1, sizeof(*ord)));
    *submitted = 0;
    b->committed = 0; /* every earlier batch was collected: its cost is in b->spent */
    while (i < plan->nr && !b->stop && !interrupted) {
        size_t end = plan_group_end(plan, i), n = 0;
        for (size_t k = i; k < end; k++) {
            custom_id_of(rc, k, &cid);
            if (!trial_final(b, k) && !trial_in_flight(b, cid.buf))
                ord[n++] = k;
        }
        /* deepest gold first (a group is a handful of depths) */
        for (size_t a = 1; a < n; a++)
            for (size_t c = a; c > 0 && plan->t[ord[c]].depth_bp > plan->t[ord[c - 1]].depth_bp;
                 c--) {
                size_t t = ord[c];
                ord[c] = ord[c - 1];
                ord[c - 1] = t;
            }
        for (size_t k = 0; k < n && !b->stop; k++) {
            double before = in.est_usd, line_usd;
            if (add_trial(b, &in, ord[k], &line) < 0) {
                ret = -1;
                break;
            }
            line_usd = in.est_usd - before;
            if (in.f && ((long)in.n > b->bc->max_requests ||
                         in.bytes + (long)line.len > b->bc->max_bytes)) {
                /* this line (and its cost) goes into the next file */
                struct store_batch_trial last = in.t[--in.n];
                in.est_usd -= line_usd;
                if (submit(b, &in) < 0) {
                    in.t[in.n++] = last;
                    ret = -1;
                    break;
                }
                *submitted += (long)in.n;
                infile_reset(&in);
                in.t = xmalloc(sizeof(*in.t));
                in.alloc = 1;
                in.t[in.n++] = last;
                in.est_usd = line_usd;
            }
            if (!in.f) {
                if (infile_open(b, &in, ++seq) < 0) {
                    ret = -1;
                    break;
                }
            }
            if ((long)line.len > b->bc->max_bytes) {
                set_message(b, RUNNER_INPUT_ERROR,
                            "one request is %zu bytes, over --batch-max-bytes %ld", line.len,
                            b->bc->max_bytes);
                ret = -1;
                break;
            }
            fwrite(line.buf, 1, line.len, in.f);
            in.bytes += (long)line.len;
        }
        if (ret)
            break;
        i = end;
    }
    if (!ret && !b->stop && in.f && in.n) {
        if (submit(b, &in) < 0)
            ret = -1;
        else
            *submitted += (long)in.n;
    }
    infile_reset(&in);
    strbuf_release(&in.path);
    strbuf_release(&in.tag);
    strbuf_release(&line);
    strbuf_release(&cid);
    free(ord);
    return ret;
}

/* ---- collecting ------------------------------------------------------------------ */

static int cmp_member(const void *a, const void *b)
{
    return strcmp(((const struct store_batch_trial *)a)->custom_id,
                  ((const struct store_batch_trial *)b)->custom_id);
}

/* The plan index of a member's key, or SIZE_MAX (not in this plan: another shard's, say). */
static size_t plan_index(const struct bstate *b, const struct store_batch_trial *t)
{
    struct strbuf cid = STRBUF_INIT;
    size_t found = SIZE_MAX;
    /* plans are small next to their lines' prompts; a linear pass per batch is built once */
    (void)cid;
    for (size_t i = 0; i < b->rc->plan->nr; i++) {
        const struct plan_trial *pt = &b->rc->plan->t[i];
        if (pt->length == t->length && pt->depth_bp == t->depth_bp && pt->repeat == t->repeat &&
            !strcmp(b->rc->gs->q[pt->question].id, t->question_id) &&
            !strcmp(pt->axes ? pt->axes : "", t->axes ? t->axes : "")) {
            found = i;
            break;
        }
    }
    strbuf_release(&cid);
    return found;
}

/* Store one answered line of member m (plan trial i). */
static void store_line(struct bstate *b, const struct store_batch_trial *m, size_t i,
                       struct client_response *resp)
{
    const struct runner_config *rc = b->rc;
    struct runner_result *res = b->res;
    struct trial_answer_meta meta = {.attempts = 1, .sent_at = 0, .reused_from = NULL};
    struct trial_view v;
    const struct trial_result *t = &v.figures;
    enum trial_outcome outcome;
    double score = 0, in, out;
    struct strbuf msg = STRBUF_INIT;

    outcome = trial_answer_outcome(rc, i, resp, &score, &msg);
    memcpy(resp->request_sha256, m->request_sha256, sizeof(resp->request_sha256));
    if (trial_answer_record(rc, i, &m->facts, resp, outcome, score,
                            outcome_is_scored(outcome) ? NULL : msg.buf, &meta, &v) < 0)
        set_message(b, RUNNER_STORE_ERROR, "cannot store trial %s/%ld/%d/%d: %s", m->question_id,
                    m->length, m->depth_bp, m->repeat, store_errmsg(rc->store));
    runner_result_count(res, &rc->plan->t[i], outcome);
    res->cut += t->cut;
    in = resp->prompt_tokens >= 0 ? (double)resp->prompt_tokens
         : resp->cls == CLIENT_OK || resp->cls == CLIENT_TRUNCATED
             ? (double)m->facts.realized_length
             : 0;
    out = resp->completion_tokens >= 0 ? (double)resp->completion_tokens : 0;
    res->prompt_tokens += (long)in;
    res->completion_tokens += (long)out;
    if (resp->cached_tokens >= 0) {
        res->cached_trials++;
        res->cached_tokens += resp->cached_tokens;
        res->prompt_cached += resp->cached_tokens;
    }
    if (outcome == OUTCOME_STARVED)
        res->starved_reasoning_tokens +=
            trial_reasoning_spent(t->reasoning_tokens, t->completion_tokens);
    {
        double c = batch_cost(b->bc, in, out);
        if (c >= 0)
            b->spent += c;
    }
    if (!res->served_model && resp->model)
        res->served_model = xstrdup(resp->model);
    if (!res->system_fingerprint && resp->system_fingerprint)
        res->system_fingerprint = xstrdup(resp->system_fingerprint);
    strbuf_release(&msg);
}

/*
 * The server's count of an answered line against the run's (trial_count_mismatch(), the
 * online rule): counted; on one of the first answers, with mismatches stopping the run, the
 * run stops once the batch is stored (its lines are paid for).
 */
static void check_mismatch(struct bstate *b, const struct store_batch_trial *m,
                           const struct client_response *resp)
{
    const struct runner_config *rc = b->rc;
    double dev = trial_count_mismatch(rc, m->facts.realized_length, resp);
    if (dev < 0)
        return;
    b->answers_checked++;
    if (dev <= TRIAL_MISMATCH_RATIO)
        return;
    b->res->tokenizer_mismatches++;
    if (dev > b->res->worst_mismatch)
        b->res->worst_mismatch = dev;
    if (rc->mismatch_stop && b->answers_checked <= TRIAL_MISMATCH_FIRST && !b->mismatch.len)
        trial_mismatch_message(rc, m->facts.realized_length, resp, dev, &b->mismatch);
}

/* One line of an output or error file. */
static void take_line(struct bstate *b, struct store_batch_trial *m, size_t nm, const char *fid,
                      long lineno, const char *line, size_t len, long *malformed)
{
    struct client_batch_line bl;
    struct store_batch_trial key, *hit;
    struct client_response resp;
    size_t i;

    client_batch_line_init(&bl);
    strbuf_reset(&b->err);
    if (client_batch_line_parse(line, len, &bl, &b->err) < 0) {
        warning("batch file %s:%ld: %s (its trial goes into a new batch)", fid, lineno, b->err.buf);
        (*malformed)++;
        client_batch_line_release(&bl);
        return;
    }
    key.custom_id = bl.custom_id;
    hit = nm ? bsearch(&key, m, nm, sizeof(*m), cmp_member) : NULL;
    if (!hit) {
        warning("batch file %s:%ld: custom_id \"%s\" is not a trial of this batch", fid, lineno,
                bl.custom_id);
        (*malformed)++;
        client_batch_line_release(&bl);
        return;
    }
    i = plan_index(b, hit);
    if (i == SIZE_MAX) {
        client_batch_line_release(&bl);
        return;
    }
    if (!bl.status) {
        /* batch_expired, batch_cancelled, ...: never run; a new batch (or online) takes it */
        b->requeued++;
        client_batch_line_release(&bl);
        return;
    }
    client_response_init(&resp);
    client_classify_answer(b->rc->client, bl.status, NULL, bl.body, bl.body_len,
                           hit->facts.realized_length, b->rc->server_context, &resp);
    if (resp.cls == CLIENT_RETRYABLE) {
        b->requeued++; /* the server's reasons (5xx, 429): another batch */
    } else if (resp.cls == CLIENT_FATAL) {
        b->res->fatal_reason = resp.reason;
        set_message(b, RUNNER_FATAL, "%s%s%s (HTTP %ld, batch line %s)",
                    client_reason_name(resp.reason), resp.error ? ": " : "",
                    resp.error ? resp.error : "", resp.http_status, bl.custom_id);
    } else {
        check_mismatch(b, hit, &resp);
        store_line(b, hit, i, &resp);
    }
    client_response_release(&resp);
    client_batch_line_release(&bl);
}

/* Download file id and hand each of its lines to take_line(). */
static int take_file(struct bstate *b, struct store_batch_trial *m, size_t nm, const char *id,
                     long *malformed)
{
    FILE *f = tmpfile();
    struct strbuf line = STRBUF_INIT;
    long lineno = 0;
    int rc;
    if (!f) {
        set_message(b, RUNNER_STORE_ERROR, "cannot create a temporary file: %s", strerror(errno));
        return -1;
    }
    strbuf_reset(&b->err);
    rc = client_file_download(b->rc->client, id, f, &b->err);
    if (rc) {
        set_message(b, RUNNER_FATAL, "%s", b->err.buf);
        fclose(f);
        return -1;
    }
    rewind(f);
    while (strbuf_getline(&line, f) != 0 && !b->stop) {
        lineno++;
        if (line.len)
            take_line(b, m, nm, id, lineno, line.buf, line.len, malformed);
    }
    fclose(f);
    strbuf_release(&line);
    if (store_flush(b->rc->store) < 0)
        set_message(b, RUNNER_STORE_ERROR, "cannot commit trials to %s", store_path(b->rc->store));
    return b->stop ? -1 : 0;
}

/* A final batch: its output and error lines stored, then the batch marked done. */
static int collect(struct bstate *b, const struct store_batch *sb, const struct client_batch *cb)
{
    struct store_batch_trial *m;
    size_t nm;
    long malformed = 0, before = b->res->finished, requeued = b->requeued;

    if (!strcmp(cb->status, "failed")) {
        store_batch_set(b->rc->store, sb->id, "failed", NULL, NULL, cb->status);
        set_message(b, RUNNER_FATAL, "batch %s failed validation: %s", cb->id,
                    cb->errors ? cb->errors : "the provider gave no reason");
        return -1;
    }
    if (store_batch_trials(b->rc->store, sb->id, &m, &nm) < 0) {
        set_message(b, RUNNER_STORE_ERROR, "cannot read batch %s from the store", cb->id);
        return -1;
    }
    qsort(m, nm, sizeof(*m), cmp_member);
    if (cb->output_file_id && take_file(b, m, nm, cb->output_file_id, &malformed) < 0)
        goto fail;
    if (cb->error_file_id && take_file(b, m, nm, cb->error_file_id, &malformed) < 0)
        goto fail;
    if (store_batch_set(b->rc->store, sb->id, "done", NULL, NULL, cb->status) < 0) {
        set_message(b, RUNNER_STORE_ERROR, "cannot update batch %s in the store", cb->id);
        goto fail;
    }
    fprintf(stderr, "batch %s %s: %ld trials stored, %ld to send again%s", cb->id, cb->status,
            b->res->finished - before, b->requeued - requeued, malformed ? "" : "\n");
    if (malformed)
        fprintf(stderr, ", %ld malformed line(s)\n", malformed);
    store_batch_trials_free(m, nm);
    if (b->mismatch.len) {
        set_message(b, RUNNER_MISMATCH, "%s", b->mismatch.buf);
        return -1;
    }
    return 0;
fail:
    store_batch_trials_free(m, nm);
    return -1;
}

static void fmt_secs(struct strbuf *sb, double s)
{
    if (s >= 3600)
        strbuf_addf(sb, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
    else if (s >= 60)
        strbuf_addf(sb, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
    else
        strbuf_addf(sb, "%.0fs", s);
}

static void progress(const struct bstate *b, const struct store_batch *sb,
                     const struct client_batch *cb)
{
    struct strbuf line = STRBUF_INIT;
    double el = utc_now() - sb->created_at;
    strbuf_addf(&line, "batch %s: %s", cb->id, cb->status);
    if (cb->total > 0)
        strbuf_addf(&line, ", %ld/%ld done, %ld failed", cb->completed, cb->total,
                    cb->failed > 0 ? cb->failed : 0);
    strbuf_addstr(&line, ", ");
    fmt_secs(&line, el);
    strbuf_addstr(&line, " elapsed");
    if (cb->total > 0 && cb->completed > 0 && cb->completed < cb->total &&
        !client_batch_is_final(cb->status)) {
        strbuf_addstr(&line, ", ETA ");
        fmt_secs(&line, el / (double)cb->completed * (double)(cb->total - cb->completed));
    }
    (void)b;
    fprintf(stderr, "%s\n", line.buf);
    strbuf_release(&line);
}

/*
 * Bring every live batch of the store to an end: the ones never created are created (or
 * found, when the create's answer was lost), then all are polled until final and collected.
 */
static int attach_and_wait(struct bstate *b)
{
    const struct runner_config *rc = b->rc;
    struct store_batch *v = NULL;
    size_t nr = 0;
    double wait = b->bc->poll_s;
    int ret = 0;

    if (store_batch_list(rc->store, rc->run_name, &v, &nr) < 0) {
        set_message(b, RUNNER_STORE_ERROR, "cannot read the batches of run %s", rc->run_name);
        return -1;
    }
    for (size_t i = 0; i < nr && !b->stop; i++) {
        struct store_batch *sb = &v[i];
        struct client_batch cb;
        int rc2;
        if (!strcmp(sb->state, "prepared")) {
            /* never uploaded as far as the store knows: its trials go into a new batch */
            store_batch_delete(rc->store, sb->id);
            free(sb->state);
            sb->state = xstrdup("lost");
            continue;
        }
        if (strcmp(sb->state, "uploaded") && strcmp(sb->state, "creating"))
            continue;
        client_batch_init(&cb);
        strbuf_reset(&b->err);
        rc2 = !strcmp(sb->state, "creating")
                  ? client_batch_find(rc->client, sb->input_file_id, &cb, &b->err)
                  : 0;
        if (rc2 < 0) {
            set_message(b, RUNNER_FATAL, "%s", b->err.buf);
        } else if (rc2 == 0) {
            if (client_batch_create(rc->client, sb->input_file_id, b->bc->window, sb->tag, &cb,
                                    &b->err))
                set_message(b, RUNNER_FATAL, "%s", b->err.buf);
            else
                fprintf(stderr, "batch %s: created as %s from file %s (uploaded before)\n", sb->tag,
                        cb.id, sb->input_file_id);
        } else {
            fprintf(stderr, "batch %s: found %s, created before from file %s\n", sb->tag, cb.id,
                    sb->input_file_id);
        }
        if (!b->stop) {
            store_batch_set(rc->store, sb->id, "submitted", NULL, cb.id, cb.status);
            free(sb->state);
            sb->state = xstrdup("submitted");
            free(sb->batch_id);
            sb->batch_id = xstrdup(cb.id);
        }
        client_batch_release(&cb);
    }
    for (;;) {
        int live = 0;
        for (size_t i = 0; i < nr && !b->stop && !interrupted; i++) {
            struct store_batch *sb = &v[i];
            struct client_batch cb;
            int rc2;
            if (strcmp(sb->state, "submitted"))
                continue;
            client_batch_init(&cb);
            strbuf_reset(&b->err);
            rc2 = b->bc->cancel ? client_batch_cancel(rc->client, sb->batch_id, &cb, &b->err)
                                : client_batch_get(rc->client, sb->batch_id, &cb, &b->err);
            if (rc2 == -1 && b->bc->cancel &&
                !client_batch_get(rc->client, sb->batch_id, &cb, &b->err))
                rc2 = 0; /* already final: cannot be cancelled */
            if (rc2 == CLIENT_BATCH_UNKNOWN) {
                store_batch_set(rc->store, sb->id, "lost", NULL, NULL, NULL);
                set_message(b, RUNNER_FATAL,
                            "batch %s (%s, %ld requests) is unknown to the provider: %s; its "
                            "trials were not submitted again (check the endpoint and key; "
                            "runs --db names its batches)",
                            sb->batch_id, sb->tag, sb->requests, b->err.buf);
            } else if (rc2) {
                set_message(b, RUNNER_FATAL, "%s", b->err.buf);
            } else if (client_batch_is_final(cb.status)) {
                progress(b, sb, &cb);
                if (collect(b, sb, &cb) == 0) {
                    free(sb->state);
                    sb->state = xstrdup("done");
                }
            } else {
                if (!b->bc->cancel || strcmp(cb.status, "cancelling"))
                    progress(b, sb, &cb);
                store_batch_set(rc->store, sb->id, "submitted", NULL, NULL, cb.status);
                live++;
            }
            client_batch_release(&cb);
        }
        if (!live || b->stop || interrupted)
            break;
        utc_sleep_ms(wait * 1000.0);
        wait = wait * 2 < b->bc->poll_max_s ? wait * 2 : b->bc->poll_max_s;
    }
    if (interrupted && !b->stop) {
        fprintf(stderr, "interrupted: the submitted batches keep running at the provider:");
        for (size_t i = 0; i < nr; i++)
            if (!strcmp(v[i].state, "submitted"))
                fprintf(stderr, " %s", v[i].batch_id);
        fprintf(stderr, "\nrun the same command again to collect their answers (nothing is sent "
                        "twice), or add --batch-cancel to cancel them\n");
        set_message(b, RUNNER_INTERRUPTED, "interrupted");
        ret = -1;
    }
    store_batch_list_free(v, nr);
    return b->stop ? -1 : ret;
}

/* ---- the whole ------------------------------------------------------------------- */

static long count_final(struct bstate *b)
{
    long n = 0;
    for (size_t i = 0; i < b->rc->plan->nr; i++)
        n += trial_final(b, i);
    return n;
}

/* The trials left after the batches, online through the runner. */
static int run_online(struct bstate *b)
{
    struct runner_config rc = *b->rc;
    struct runner_result online;
    int rc2;
    rc.done = b->done;
    if (rc.max_cost > 0)
        rc.max_cost = rc.max_cost - b->spent > 1e-9 ? rc.max_cost - b->spent : 1e-9;
    fprintf(stderr, "online: %ld trial(s) the batches left (--batch-fallback online)\n",
            (long)b->rc->plan->nr - count_final(b));
    rc2 = runner_run(&rc, &online);
    if (rc2 < 0)
        return -1;
    b->res->finished += online.finished;
    for (int o = 0; o < OUTCOME__COUNT; o++)
        b->res->outcomes[o] += online.outcomes[o];
    b->res->curve_scored += online.curve_scored;
    b->res->curve_correct += online.curve_correct;
    b->res->requests += online.requests;
    b->res->retries += online.retries;
    b->res->prompt_tokens += online.prompt_tokens;
    b->res->completion_tokens += online.completion_tokens;
    b->res->cut += online.cut;
    if (online.cost_usd > 0)
        b->spent += online.cost_usd;
    if (online.end != RUNNER_COMPLETE) {
        b->res->end = online.end;
        b->res->fatal_reason = online.fatal_reason;
        free(b->res->message);
        b->res->message = online.message ? xstrdup(online.message) : NULL;
        b->stop = 1;
    }
    runner_result_release(&online);
    return 0;
}

int batch_run(const struct runner_config *rc, const struct batch_config *bc,
              struct runner_result *res)
{
    struct bstate b;
    struct sigaction sa, old_int, old_term;
    int round;

    runner_result_init(res);
    if (!rc->run_name || !rc->gs || !rc->plan || !rc->builder || !rc->client || !rc->store ||
        bc->max_requests < 1 || bc->max_bytes < 1)
        BUG("batch: incomplete configuration");
    memset(&b, 0, sizeof(b));
    b.rc = rc;
    b.bc = bc;
    b.res = res;
    b.start = utc_now();
    strbuf_init(&b.err, 0);
    strbuf_init(&b.mismatch, 0);
    built_prompt_init(&b.bp);
    b.req = (struct trial_request)TRIAL_REQUEST_INIT;
    b.nonce_next = rc->jitter_seed ^ 0x6e6f6e6365ULL;
    res->end = RUNNER_COMPLETE;
    res->planned = (long)rc->plan->nr;
    res->schedule = RUNNER_SCHEDULE_CACHE;
    res->min_window = rc->concurrency;

    interrupted = 0;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);

    if (refresh(&b, NULL, 0) < 0) {
        set_message(&b, RUNNER_STORE_ERROR, "cannot read the run's trials");
        goto out;
    }
    res->already_done = count_final(&b);
    for (round = 0; !b.stop; round++) {
        struct store_batch *v = NULL;
        size_t nr = 0;
        long submitted = 0, left;
        /* what the provider holds for this run first: re-attach, wait, collect */
        if (attach_and_wait(&b) < 0)
            break;
        if (store_batch_list(rc->store, rc->run_name, &v, &nr) < 0 || refresh(&b, v, nr) < 0) {
            store_batch_list_free(v, nr);
            set_message(&b, RUNNER_STORE_ERROR, "cannot read the run's batches");
            break;
        }
        store_batch_list_free(v, nr);
        left = (long)rc->plan->nr - count_final(&b);
        if (!left || bc->cancel)
            break;
        if (round > 0 && bc->fallback == BATCH_FALLBACK_ONLINE) {
            run_online(&b);
            break;
        }
        if (round >= bc->max_rounds) {
            /* nothing interrupted the run: the provider expired or failed these lines in
               every round (exit 4, resumable) */
            set_message(&b, RUNNER_INCOMPLETE,
                        "%ld of %ld trial(s) still unanswered after %d batch rounds: the "
                        "provider expired or failed their lines in every round; running the "
                        "same command again submits them (--batch-fallback online sends the "
                        "rest online)",
                        left, (long)rc->plan->nr, round);
            break;
        }
        if (submit_pending(&b, &submitted) < 0 || interrupted) {
            if (res->end == RUNNER_BUDGET && !interrupted) {
                /* the batches submitted within the budget are paid for: collect them */
                b.stop = 0;
                attach_and_wait(&b);
                b.stop = 1;
            }
            break;
        }
        if (!submitted)
            break;
    }
    if (interrupted && !b.stop) {
        res->end = RUNNER_INTERRUPTED;
        fprintf(stderr, "interrupted: run the same command again to collect the submitted "
                        "batches, or add --batch-cancel to cancel them\n");
    }
out:
    store_flush(rc->store);
    if (bc->cancel && res->end == RUNNER_COMPLETE && count_final(&b) < (long)rc->plan->nr)
        res->end = RUNNER_INTERRUPTED;
    if (res->end == RUNNER_COMPLETE && res->finished + res->already_done < res->planned) {
        if (refresh(&b, NULL, 0) == 0 && count_final(&b) < (long)rc->plan->nr)
            res->end = RUNNER_INTERRUPTED;
    }
    res->cost_usd = bc->price_in >= 0 && bc->price_out >= 0 ? b.spent : -1;
    res->wall_seconds = utc_now() - b.start;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    store_done_set_free(b.done);
    inflight_clear(&b);
    built_prompt_release(&b.bp);
    trial_request_release(&b.req);
    strbuf_release(&b.mismatch);
    strbuf_release(&b.err);
    return 0;
}

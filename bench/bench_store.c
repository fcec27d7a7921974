/*
 * Store benchmark (not a test): trials written per second through the
 * production path (WAL, synchronous=NORMAL, store_trial_put + store_flush) at
 * several batch sizes, database bytes per trial, and read speed of
 * store_trials_load / store_done_set_load. Run by bench/bench_store.sh.
 *
 * usage: bench_store DIR [TRIALS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store/store.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

#include "base/banned.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU time of the process: less distorted when other jobs share the machine. */
static double cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) ? 0 : (long)sb.st_size;
}

static void remove_db(const char *path)
{
    struct strbuf sb = STRBUF_INIT;
    unlink(path);
    strbuf_addf(&sb, "%s-wal", path);
    unlink(sb.buf);
    strbuf_reset(&sb);
    strbuf_addf(&sb, "%s-shm", path);
    unlink(sb.buf);
    strbuf_release(&sb);
}

/* A realistic finished trial: NQ-style id, a short answer, a prompt hash. */
static void fill(struct trial_result *t, long i)
{
    char qid[32];
    static const long lengths[] = {8192, 32768, 65536};
    snprintf(qid, sizeof(qid), "nq-%05ld", i / 33);
    trial_result_init(t);
    t->question_id = xstrdup(qid);
    t->length = lengths[(i / 11) % 3];
    t->depth_bp = (int)(i % 11) * 1000;
    t->repeat = 0;
    sha256_hex(qid, strlen(qid), t->facts.sha256);
    t->facts.realized_length = t->length - 37;
    t->usage_prompt_tokens = t->length - 35;
    t->facts.realized_depth = (double)t->depth_bp / 10000.0;
    t->facts.gold_offset = t->length / 2;
    t->outcome = i % 4 ? OUTCOME_CORRECT : OUTCOME_WRONG;
    t->http_status = 200;
    t->attempts = 1;
    t->latency_ms = 843.25;
    t->completion_tokens = 12;
    t->finish_reason = xstrdup("stop");
    t->answer = xstrdup("The first Nobel Prize in Physics went to Wilhelm Conrad Röntgen.");
    t->score = t->outcome == OUTCOME_CORRECT;
    t->finished_at = 1764495000.0 + (double)i;
}

static int write_run(const char *path, long n, long batch, double *secs, double *cpus,
                     double *bytes)
{
    double c0;
    struct store *st;
    struct run_info r;
    double t0;
    long i;
    remove_db(path);
    st = store_open(path, STORE_CREATE);
    if (!st)
        return -1;
    run_info_init(&r);
    r.name = xstrdup("bench");
    r.model_requested = xstrdup("model");
    r.settings_json = xstrdup("{\"concurrency\":64}");
    r.trials_planned = n;
    if (store_run_create(st, &r) || store_run_lock(st, "bench", 0))
        return -1;
    run_info_release(&r);
    t0 = now();
    c0 = cpu();
    for (i = 0; i < n; i++) {
        struct trial_result t;
        fill(&t, i);
        if (store_trial_put(st, "bench", &t))
            return -1;
        trial_result_release(&t);
        if (batch && (i + 1) % batch == 0 && store_flush(st))
            return -1;
    }
    if (store_flush(st))
        return -1;
    *secs = now() - t0;
    *cpus = cpu() - c0;
    if (store_close(st))
        return -1;
    /* size after the last connection checkpointed the WAL into the file */
    *bytes = (double)file_size(path);
    {
        struct strbuf w = STRBUF_INIT;
        strbuf_addf(&w, "%s-wal", path);
        *bytes += (double)file_size(w.buf);
        strbuf_release(&w);
    }
    return 0;
}

int main(int argc, char **argv)
{
    static const long batches[] = {0, 64, 8, 1};
    struct strbuf path = STRBUF_INIT;
    long n = 100000, b;
    size_t k;
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: bench_store DIR [TRIALS]\n");
        return 2;
    }
    if (argc == 3)
        n = strtol(argv[2], NULL, 10);
    strbuf_addf(&path, "%s/bench.db", argv[1]);
    for (k = 0; k < sizeof(batches) / sizeof(batches[0]); k++) {
        double secs, cpus, bytes;
        long count = batches[k] == 1 ? n / 10 : n; /* one commit per trial: fewer trials */
        b = batches[k];
        if (write_run(path.buf, count, b, &secs, &cpus, &bytes)) {
            fprintf(stderr, "bench_store: write failed\n");
            return 1;
        }
        if (b)
            printf("write  flush every %-4ld trials: %8.0f trials/s wall, %8.0f trials/CPU-s  "
                   "(%ld trials)\n",
                   b, (double)count / secs, (double)count / cpus, count);
        else
            printf("write  auto flush (%d/batch):    %8.0f trials/s wall, %8.0f trials/CPU-s  "
                   "(%ld trials), %.0f bytes/trial\n",
                   STORE_BATCH_MAX, (double)count / secs, (double)count / cpus, count,
                   bytes / (double)count);
    }
    /* reads of the last full database (batch 1 wrote n/10; rewrite n with auto flush) */
    {
        double secs, cpus, bytes, t0, c0;
        struct store *st;
        struct trial_result *v;
        struct store_done_set *d;
        size_t nv;
        if (write_run(path.buf, n, 0, &secs, &cpus, &bytes))
            return 1;
        st = store_open(path.buf, STORE_READONLY);
        if (!st)
            return 1;
        t0 = now();
        c0 = cpu();
        if (store_trials_load(st, "bench", &v, &nv))
            return 1;
        secs = now() - t0;
        cpus = cpu() - c0;
        printf("read   store_trials_load:       %8.0f trials/s wall, %8.0f trials/CPU-s  (%zu "
               "trials)\n",
               (double)nv / secs, (double)nv / cpus, nv);
        store_trials_free(v, nv);
        t0 = now();
        c0 = cpu();
        d = store_done_set_load(st, "bench", 0);
        secs = now() - t0;
        cpus = cpu() - c0;
        printf("read   store_done_set_load:     %8.0f keys/s wall,   %8.0f keys/CPU-s    (%zu "
               "keys)\n",
               (double)store_done_set_count(d) / secs, (double)store_done_set_count(d) / cpus,
               store_done_set_count(d));
        store_done_set_free(d);
        store_close(st);
    }
    remove_db(path.buf);
    strbuf_release(&path);
    return 0;
}

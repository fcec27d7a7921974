/*
 * Tokenizer benchmark (not a test): for one tokenizer, the load time (best of
 * 5 loads, ready to encode), then MB/s of tokenizer_count() over each corpus
 * file (one call over the whole file, best of 3, after one warm-up run; times are
 * the thread's CPU time, so other load on the machine distorts them less), the
 * token counts, and the peak RSS of the process. Run by bench/bench_tokenizer.sh.
 *
 * usage: bench_tokenizer TOKENIZER FILE...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "base/strbuf.h"
#include "tokenizer/tokenizer.h"

#include "base/banned.h"

/* CPU time of this thread: stable when other processes share the machine. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    struct strbuf err = STRBUF_INIT;
    struct tokenizer *tk = NULL;
    double best_load = 1e9;
    struct rusage ru;
    int i, k;

    if (argc < 3) {
        fprintf(stderr, "usage: bench_tokenizer TOKENIZER FILE...\n");
        return 2;
    }
    for (k = 0; k < 5; k++) {
        double t0 = now(), t;
        struct tokenizer *t2 = tokenizer_load(argv[1], &err);
        if (!t2) {
            fprintf(stderr, "bench_tokenizer: %s\n", err.buf);
            return 2;
        }
        tokenizer_count(t2, "warm", 4); /* first encode creates the workspace */
        t = now() - t0;
        if (t < best_load)
            best_load = t;
        if (tk)
            tokenizer_free(tk);
        tk = t2;
    }
    printf("tokenizer=%s load_ms=%.1f", tokenizer_name(tk), best_load * 1000);
    for (i = 2; i < argc; i++) {
        struct strbuf text = STRBUF_INIT;
        double best = 1e9;
        long n = 0;
        const char *base = strrchr(argv[i], '/');
        if (strbuf_read_file_gz(&text, argv[i]) < 0) {
            fprintf(stderr, "bench_tokenizer: cannot read %s\n", argv[i]);
            return 2;
        }
        for (k = 0; k < 4; k++) {
            double t0 = now(), t;
            n = tokenizer_count(tk, text.buf, text.len);
            t = now() - t0;
            if (k && t < best) /* k == 0 is the warm-up */
                best = t;
        }
        printf(" %s=%.1fMB/s,%ld", base ? base + 1 : argv[i], (double)text.len / 1e6 / best, n);
        strbuf_release(&text);
    }
    {
        /* pathological single pieces: 1 MB of one letter, 1 MB of " \n" */
        static const char *units[] = {"a", " \n"};
        static const char *labels[] = {"1MB_a_ms", "1MB_sp_nl_ms"};
        size_t u;
        for (u = 0; u < 2; u++) {
            size_t ul = strlen(units[u]), reps = 1000000 / ul, j;
            char *buf = malloc(ul * reps);
            double t0;
            if (!buf)
                return 2;
            for (j = 0; j < reps; j++)
                memcpy(buf + j * ul, units[u], ul);
            t0 = now();
            tokenizer_count(tk, buf, ul * reps);
            printf(" %s=%.0f", labels[u], (now() - t0) * 1000);
            free(buf);
        }
    }
    getrusage(RUSAGE_SELF, &ru);
    printf(" peak_rss_mb=%.1f\n", (double)ru.ru_maxrss / 1024.0);
    tokenizer_free(tk);
    strbuf_release(&err);
    return 0;
}

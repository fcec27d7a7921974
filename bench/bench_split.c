/*
 * Physical-limit benchmark (not a test): the speed of the pre-tokenizer split
 * alone -- PCRE2 JIT matching of the cl100k_base pattern over a file, no BPE,
 * no vocabulary lookups -- in MB/s of the thread's CPU time (best of 5). The
 * whole tokenizer can never be faster than this. Run by bench/bench_limits.sh.
 *
 * usage: bench_split FILE...
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char pat[] = "'(?i:[sdmt]|ll|ve|re)|[^\\r\\n\\p{L}\\p{N}]?+\\p{L}++|\\p{N}{1,3}+|"
                          " ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*+|\\s++$|\\s*[\\r\\n]|\\s+(?!\\S)|\\s";

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    int errc, i, k;
    PCRE2_SIZE erro;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP,
                                   &errc, &erro, NULL);
    pcre2_match_data *md;
    if (!re || pcre2_jit_compile(re, PCRE2_JIT_COMPLETE)) {
        fprintf(stderr, "bench_split: cannot compile the pattern\n");
        return 1;
    }
    md = pcre2_match_data_create_from_pattern(re, NULL);
    for (i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        char *buf;
        long n;
        double best = 1e9;
        size_t pieces = 0;
        if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET)) {
            fprintf(stderr, "bench_split: cannot read %s\n", argv[i]);
            return 1;
        }
        buf = malloc((size_t)n);
        if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
            return 1;
        fclose(f);
        for (k = 0; k < 6; k++) {
            double t0 = now();
            PCRE2_SIZE at = 0, *ov = pcre2_get_ovector_pointer(md);
            pieces = 0;
            while (at < (PCRE2_SIZE)n) {
                if (pcre2_jit_match(re, (PCRE2_SPTR)buf, (PCRE2_SIZE)n, at, PCRE2_NO_UTF_CHECK, md,
                                    NULL) < 0)
                    break;
                at = ov[1] > ov[0] ? ov[1] : ov[0] + 1;
                pieces++;
            }
            t0 = now() - t0;
            if (k && t0 < best) /* the first pass warms up */
                best = t0;
        }
        printf("%s %.1f MB/s split, %zu pieces, %ld bytes\n",
               strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i], (double)n / best / 1e6,
               pieces, n);
        free(buf);
    }
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    return 0;
}

/*
 * Prompt-building benchmark (not a test): builds a question x length x depth
 * matrix (default: 100 questions x 8k/32k/64k x 11 depths, one repeat) with
 * the real builder and tokenizer, and prints per length the prompts per
 * second and MB/s of rendered prompt (CPU time of the process, and wall
 * time), the time of the first build of each (question, length) -- which
 * selects and trims the distractors -- and the peak RSS. Run by
 * bench/bench_prompt.sh.
 *
 * usage: bench_prompt DATASET HAYSTACK TEMPLATE TOKENIZER [QUESTIONS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "prompt/dataset.h"
#include "base/num.h"
#include "prompt/prompt.h"
#include "base/strbuf.h"
#include "tokenizer/tokenizer.h"

#include "base/banned.h"

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    static const long lengths[] = {8192, 32768, 65536};
    struct golden_set gs;
    struct haystack hay;
    struct prompt_template tpl;
    struct tokenizer *tk;
    struct strbuf err = STRBUF_INIT, path = STRBUF_INIT;
    struct built_prompt bp = BUILT_PROMPT_INIT;
    long nq = 100;
    size_t li;
    double t0;

    if (argc < 5 || (argc > 5 && parse_long_range(argv[5], 1, 1000000, &nq) < 0)) {
        fprintf(stderr, "usage: bench_prompt DATASET HAYSTACK TEMPLATE TOKENIZER [QUESTIONS]\n");
        return 2;
    }
    t0 = clock_s(CLOCK_MONOTONIC);
    if (golden_set_load(&gs, argv[1]) < 0 || haystack_load(&hay, argv[2]) < 0)
        return 2;
    prompt_template_resolve(argv[3], &path);
    if (prompt_template_load(&tpl, path.buf, &err) < 0)
        return 2;
    tk = tokenizer_load(argv[4], &err);
    if (!tk) {
        fprintf(stderr, "%s\n", err.buf);
        return 2;
    }
    if ((size_t)nq > gs.nr)
        nq = (long)gs.nr;
    printf("setup: %ld questions, %zu haystack chunks, load %.2f s (wall), tokenizer %s\n", nq,
           hay.nr, clock_s(CLOCK_MONOTONIC) - t0, tokenizer_name(tk));
    printf("%-8s %8s %12s %10s %12s %10s %14s %12s\n", "length", "prompts", "prompts/s", "MB/s",
           "prompts/s", "MB/s", "first build", "worst err");
    printf("%-8s %8s %12s %10s %12s %10s %14s %12s\n", "", "", "(cpu)", "(cpu)", "(wall)", "(wall)",
           "ms (cpu, avg)", "(% tokens)");
    for (li = 0; li < 3; li++) {
        /* a fresh builder per length: chunk counts are cached from cold */
        struct prompt_builder *b = prompt_builder_new(tk, &tpl, &hay);
        double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
        double first = 0, bytes = 0, worst = 0;
        long n = 0, q;
        int d;
        for (q = 0; q < nq; q++) {
            for (d = 0; d <= 100; d += 10) {
                struct prompt_request r = {.q = &gs.q[q],
                                           .target_len = lengths[li],
                                           .depth_bp = d * 100,
                                           .max_answer_tokens = 100,
                                           .chat = 1};
                double f0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), e;
                if (prompt_build(b, &r, &bp, &err) < 0) {
                    fprintf(stderr, "%s\n", err.buf);
                    return 1;
                }
                if (d == 0)
                    first += clock_s(CLOCK_PROCESS_CPUTIME_ID) - f0;
                bytes += (double)(bp.system.len + bp.user.len);
                e = 100.0 * (double)labs(bp.realized_len - lengths[li]) / (double)lengths[li];
                if (e > worst)
                    worst = e;
                n++;
            }
        }
        {
            double c = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0, w = clock_s(CLOCK_MONOTONIC) - w0;
            printf("%-8ld %8ld %12.1f %10.1f %12.1f %10.1f %14.1f %12.3f\n", lengths[li], n, n / c,
                   bytes / c / 1e6, n / w, bytes / w / 1e6, 1000.0 * first / (double)nq, worst);
        }
        prompt_builder_free(b);
    }
    {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        printf("peak RSS: %.1f MB\n", (double)ru.ru_maxrss / 1024.0);
    }
    built_prompt_release(&bp);
    tokenizer_free(tk);
    prompt_template_release(&tpl);
    haystack_release(&hay);
    golden_set_release(&gs);
    strbuf_release(&err);
    strbuf_release(&path);
    return 0;
}

/*
 * The trial matrix: --lengths/--depths/--shard parsing and errors, the fixed
 * enumeration order, sharding (disjoint, covering, balanced, stable) and the
 * dry-run summary with cost.
 */
#include "test.h"

#include "prompt/dataset.h"
#include "run/plan.h"
#include "base/strbuf.h"
#include "run/trial.h"

static void test_lengths(void)
{
    long *l = NULL;
    size_t n = 0;
    struct strbuf err = STRBUF_INIT;
    CHECK_INT(plan_parse_lengths("8k,32k,64k", &l, &n, &err), 0);
    CHECK_INT(n, 3);
    CHECK(n == 3 && l[0] == 8192 && l[1] == 32768 && l[2] == 65536);
    free(l);
    CHECK_INT(plan_parse_lengths("1000", &l, &n, &err), 0);
    CHECK(n == 1 && l[0] == 1000);
    free(l);
    CHECK_INT(plan_parse_lengths("8k,x", &l, &n, &err), -1);
    CHECK(strstr(err.buf, "--lengths: 'x' is not a token count") != NULL);
    strbuf_reset(&err);
    CHECK_INT(plan_parse_lengths("8k,8192", &l, &n, &err), -1);
    CHECK(strstr(err.buf, "8192 given twice") != NULL);
    strbuf_reset(&err);
    CHECK_INT(plan_parse_lengths("0", &l, &n, &err), -1);
    CHECK_INT(plan_parse_lengths("", &l, &n, &err), -1);
    CHECK(l == NULL && n == 0);
    strbuf_release(&err);
}

/* --lengths as fractions of the served context: floor(fraction x context) tokens */
static void test_lengths_relative(void)
{
    long *l = NULL;
    size_t n = 0;
    struct strbuf err = STRBUF_INIT;
    CHECK(plan_lengths_relative("25%,8k"));
    CHECK(!plan_lengths_relative("8k,32k"));
    CHECK_INT(plan_parse_lengths_ctx("25%,50%,90%,1k", 8192, &l, &n, &err), 0);
    CHECK(n == 4 && l[0] == 2048 && l[1] == 4096 && l[2] == 7372 && l[3] == 1024);
    free(l);
    CHECK_INT(plan_parse_lengths_ctx("12.5%", 10000, &l, &n, &err), 0);
    CHECK(n == 1 && l[0] == 1250);
    free(l);
    CHECK_INT(plan_parse_lengths_ctx("50%", -1, &l, &n, &err), -1);
    CHECK(strstr(err.buf, "--lengths: 50% needs the server's context size") != NULL);
    strbuf_reset(&err);
    CHECK_INT(plan_parse_lengths_ctx("0%", 8192, &l, &n, &err), -1);
    CHECK(strstr(err.buf, "'0%' is not a percentage of the context") != NULL);
    strbuf_reset(&err);
    CHECK_INT(plan_parse_lengths_ctx("150%", 8192, &l, &n, &err), -1);
    strbuf_reset(&err);
    CHECK_INT(plan_parse_lengths_ctx("50%,4k", 8192, &l, &n, &err), -1);
    CHECK(strstr(err.buf, "4096 given twice") != NULL);
    strbuf_release(&err);
}

static void test_depths(void)
{
    int *d = NULL;
    size_t n = 0, i;
    struct strbuf err = STRBUF_INIT;
    CHECK_INT(plan_parse_depths("0:100:10", &d, &n, &err), 0);
    CHECK_INT(n, 11);
    for (i = 0; i < n; i++)
        CHECK_INT(d[i], (int)i * 1000);
    free(d);
    CHECK_INT(plan_parse_depths("0,25,50,75,100", &d, &n, &err), 0);
    CHECK(n == 5 && d[1] == 2500 && d[4] == DEPTH_BP_MAX);
    free(d);
    CHECK_INT(plan_parse_depths("0:100:12.5", &d, &n, &err), 0);
    CHECK(n == 9 && d[1] == 1250 && d[8] == 10000);
    free(d);
    /* a step that does not reach the stop is refused (0:100:33 used to end at 99%) */
    CHECK_INT(plan_parse_depths("0:100:33", &d, &n, &err), -1);
    CHECK(strstr(err.buf, "'0:100:33': steps of 33 from 0 end at 99%, not at the stop 100; "
                          "use a step that divides the span (e.g. 0:100:25)") != NULL);
    strbuf_reset(&err);
    CHECK_INT(plan_parse_depths("0:90:40", &d, &n, &err), -1);
    CHECK(strstr(err.buf, "end at 80%, not at the stop 90; use a step that divides the span "
                          "(e.g. 0:90:30)") != NULL);
    strbuf_reset(&err);
    CHECK_INT(plan_parse_depths("10:10:5", &d, &n, &err), 0); /* start == stop: one depth */
    CHECK(n == 1 && d[0] == 1000);
    free(d);
    CHECK_INT(plan_parse_depths("0,120", &d, &n, &err), -1);
    CHECK(strstr(err.buf, "'120' is not a percentage in 0..100") != NULL);
    strbuf_reset(&err);
    CHECK_INT(plan_parse_depths("-10:100:10", &d, &n, &err), -1);
    CHECK_INT(plan_parse_depths("0:100:0", &d, &n, &err), -1);
    CHECK(strstr(err.buf, "step must be") != NULL);
    CHECK_INT(plan_parse_depths("50:10:10", &d, &n, &err), -1);
    CHECK_INT(plan_parse_depths("0:100", &d, &n, &err), -1);
    CHECK_INT(plan_parse_depths("10,10", &d, &n, &err), -1);
    CHECK_INT(plan_parse_depths("", &d, &n, &err), -1);
    strbuf_release(&err);
}

static void test_shard_parse(void)
{
    unsigned i, n;
    struct strbuf err = STRBUF_INIT;
    CHECK_INT(plan_parse_shard("2/4", &i, &n, &err), 0);
    CHECK(i == 1 && n == 4);
    CHECK_INT(plan_parse_shard("4/4", &i, &n, &err), 0);
    CHECK(i == 3 && n == 4);
    CHECK_INT(plan_parse_shard("5/4", &i, &n, &err), -1);
    CHECK_INT(plan_parse_shard("0/4", &i, &n, &err), -1);
    CHECK_INT(plan_parse_shard("1", &i, &n, &err), -1);
    CHECK_INT(plan_parse_shard("a/2", &i, &n, &err), -1);
    CHECK_INT(plan_parse_shard("0/0", &i, &n, &err), -1);
    strbuf_release(&err);
}

static int same_trial(const struct plan_trial *a, const struct plan_trial *b)
{
    return a->question == b->question && a->length == b->length && a->depth_bp == b->depth_bp &&
           a->repeat == b->repeat && !strcmp(a->axes, b->axes);
}

static int same_trials(const struct plan *a, const struct plan *b)
{
    size_t i;
    if (a->nr != b->nr)
        return 0;
    for (i = 0; i < a->nr; i++)
        if (!same_trial(&a->t[i], &b->t[i]))
            return 0;
    return 1;
}

static void test_matrix_and_shards(void)
{
    struct golden_set gs;
    const long lengths[] = {8192, 32768};
    const int depths[] = {0, 5000, 10000};
    struct plan_spec spec = {lengths, 2, depths, 3, 2, 0, 1, 0, NULL, 0, 0, 0};
    struct plan all, sh;
    struct strbuf err = STRBUF_INIT;
    unsigned s, k;
    size_t i, covered = 0;
    char *seen;

    CHECK_INT(golden_set_load(&gs, "datasets/needle.jsonl"), 0);
    CHECK_INT(plan_build(&all, &gs, &spec, &err), 0);
    CHECK_INT(all.nr, gs.nr * 2 * 3 * 2);
    CHECK_INT(all.total_nr, all.nr);
    /* order: length, repeat, question, depth */
    CHECK(all.t[0].length == 8192 && all.t[0].repeat == 0 && all.t[0].question == 0 &&
          all.t[0].depth_bp == 0);
    CHECK(all.t[1].depth_bp == 5000 && all.t[3].question == 1);
    CHECK(all.t[3 * gs.nr].repeat == 1);
    CHECK(all.t[all.nr - 1].length == 32768 && all.t[all.nr - 1].depth_bp == 10000);

    seen = calloc(all.nr, 1);
    for (s = 0; s < 3; s++) {
        struct plan again;
        spec.shard_index = s;
        spec.shard_count = 3;
        CHECK_INT(plan_build(&sh, &gs, &spec, &err), 0);
        CHECK_INT(sh.total_nr, all.nr);
        /* balanced to one group of depths */
        CHECK(sh.nr + 3 >= all.nr / 3 && sh.nr <= all.nr / 3 + 3);
        for (i = 0; i < sh.nr; i++) {
            /* find it in the full matrix; each trial exactly once over all shards */
            size_t j;
            for (j = 0; j < all.nr; j++)
                if (same_trial(&all.t[j], &sh.t[i]))
                    break;
            CHECK(j < all.nr);
            if (j < all.nr) {
                CHECK(!seen[j]);
                seen[j] = 1;
                covered++;
            }
        }
        /* stable: the same shard again is identical */
        CHECK_INT(plan_build(&again, &gs, &spec, &err), 0);
        CHECK(same_trials(&again, &sh));
        /* the depths of one (question, length, repeat) stay together */
        for (k = 0; k + 2 < sh.nr; k += 3)
            CHECK(sh.t[k].question == sh.t[k + 2].question && sh.t[k].depth_bp == 0 &&
                  sh.t[k + 2].depth_bp == 10000);
        plan_release(&again);
        plan_release(&sh);
    }
    CHECK_INT(covered, all.nr);
    free(seen);
    spec.shard_index = 3;
    CHECK_INT(plan_build(&sh, &gs, &spec, &err), -1);
    plan_release(&all);
    golden_set_release(&gs);
    strbuf_release(&err);
}

static void test_summary(void)
{
    struct golden_set gs;
    const long lengths[] = {8192, 65536};
    const int depths[] = {0, 2500, 5000, 7500, 10000};
    struct plan_spec spec = {lengths, 2, depths, 5, 1, 0, 1, 0, NULL, 0, 0, 0};
    struct plan p;
    struct plan_cost cost = {3.0, 15.0, 100};
    struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
    double usd = 0;

    CHECK_INT(golden_set_load(&gs, "datasets/needle.jsonl"), 0);
    CHECK_INT(plan_build(&p, &gs, &spec, &err), 0);
    plan_summary(&p, &spec, &cost, &out, &usd);
    /* 36 questions x 5 depths = 180 trials per length */
    CHECK(strstr(out.buf, "trials: 360 = 36 questions x 2 lengths x 5 depths x 1 repeats") != NULL);
    CHECK(strstr(out.buf, "length 8192: 180 trials, 1,474,560 prompt tokens") != NULL);
    CHECK(strstr(out.buf, "length 65536: 180 trials, 11,796,480 prompt tokens") != NULL);
    CHECK(strstr(out.buf, "total: 13,271,040 prompt tokens, at most 36,000 completion tokens") !=
          NULL);
    /* 13.27104 M x $3 + 0.036 M x $15 = 39.81312 + 0.54 */
    CHECK_NEAR(usd, 40.35312, 1e-6);
    CHECK(strstr(out.buf, "estimated cost: at most $40.35") != NULL);
    strbuf_reset(&out);
    cost.price_in = -1;
    plan_summary(&p, &spec, &cost, &out, &usd);
    CHECK(usd < 0 && !strstr(out.buf, "cost"));
    plan_release(&p);
    spec.shard_index = 1;
    spec.shard_count = 4;
    CHECK_INT(plan_build(&p, &gs, &spec, &err), 0);
    strbuf_reset(&out);
    plan_summary(&p, &spec, NULL, &out, NULL);
    CHECK(strstr(out.buf, "trials: 90 (shard 2/4 of 360) = 36 questions") != NULL);
    plan_release(&p);
    golden_set_release(&gs);
    strbuf_release(&out);
    strbuf_release(&err);
}

/*
 * The dry run's prefix-cache estimate: per group the deepest is sent whole and every other
 * depth reuses depth x length; 0:100:10 computes 6.5 of 11 lengths (0.59x); controls and
 * depth 0 reuse nothing; the depths' order in the spec does not matter.
 */
static void test_cache_estimate(void)
{
    struct golden_set gs;
    const long lengths[] = {1000};
    int depths[11];
    const int shuffled[] = {5000, 10000, 0, 2500};
    struct plan_spec spec = {lengths, 1, depths, 11, 2, 0, 1, PLAN_CONTROL_CLOSED_BOOK,
                             NULL,    0, 0,      0};
    struct plan p;
    struct strbuf err = STRBUF_INIT;
    double in, cached;
    int i;

    for (i = 0; i < 11; i++)
        depths[i] = i * 1000;
    CHECK_INT(golden_set_load(&gs, "datasets/needle.jsonl"), 0);
    CHECK_INT(plan_build(&p, &gs, &spec, &err), 0);
    plan_cache_estimate(&p, &in, &cached);
    /* 36 questions x 2 repeats x 11 depths x 1000 tokens; the closed-book trials are length 0 */
    CHECK_NEAR(in, 36.0 * 2 * 11 * 1000, 1e-6);
    CHECK_NEAR(cached, 36.0 * 2 * 4500, 1e-6);
    CHECK_NEAR((in - cached) / in, 6.5 / 11, 1e-9);
    plan_release(&p);
    spec.depths_bp = shuffled;
    spec.depths_nr = 4;
    CHECK_INT(plan_build(&p, &gs, &spec, &err), 0);
    plan_cache_estimate(&p, &in, &cached);
    CHECK_NEAR(cached, 36.0 * 2 * (500 + 250), 1e-6);
    plan_release(&p);
    golden_set_release(&gs);
    strbuf_release(&err);
}

/* --controls: per repeat and question a closed-book and an oracle trial, sharded like groups. */
static void test_controls(void)
{
    struct golden_set gs;
    const long lengths[] = {8192};
    const int depths[] = {0, 10000};
    struct plan_spec spec = {lengths, 1, depths, 2,
                             2,       0, 1,      PLAN_CONTROL_CLOSED_BOOK | PLAN_CONTROL_ORACLE,
                             NULL,    0, 0,      0};
    struct plan all, a, b;
    struct strbuf err = STRBUF_INIT;
    unsigned bits;
    size_t i, nc = 0;
    CHECK_INT(golden_set_load(&gs, "datasets/needle.jsonl"), 0);
    CHECK_INT(plan_build(&all, &gs, &spec, &err), 0);
    CHECK_INT(all.nr, gs.nr * 2 * 2 + gs.nr * 2 * 2);
    CHECK_INT(all.controls_nr, gs.nr * 2 * 2);
    for (i = 0; i < all.nr; i++)
        if (trial_is_control(all.t[i].length, all.t[i].depth_bp))
            nc++;
    CHECK_INT(nc, gs.nr * 4);
    i = gs.nr * 4; /* first control: repeat 0, question 0, closed-book then oracle */
    CHECK(all.t[i].length == 0 && all.t[i].depth_bp == DEPTH_BP_CLOSED_BOOK &&
          all.t[i].question == 0 && all.t[i].repeat == 0);
    CHECK(all.t[i + 1].depth_bp == DEPTH_BP_ORACLE && all.t[i + 1].question == 0);
    spec.shard_count = 2;
    CHECK_INT(plan_build(&a, &gs, &spec, &err), 0);
    spec.shard_index = 1;
    CHECK_INT(plan_build(&b, &gs, &spec, &err), 0);
    CHECK_INT(a.nr + b.nr, all.nr);
    CHECK_INT(plan_parse_controls("oracle", &bits, &err), 0);
    CHECK_INT(bits, PLAN_CONTROL_ORACLE);
    CHECK_INT(plan_parse_controls("oracle,nope", &bits, &err), -1);
    CHECK(strstr(err.buf, "unknown control 'nope'") != NULL);
    plan_release(&all);
    plan_release(&a);
    plan_release(&b);
    golden_set_release(&gs);
    strbuf_release(&err);
}

/*
 * Named axes: crossed with lengths and depths (first axis outermost), each
 * trial's canonical axes string, the depths of one (question, length, repeat,
 * axes) consecutive, shards of whole groups, bad axes refused; no axes gives
 * the matrix of a run before axes ("" everywhere, the same shards).
 */
static void test_axes(void)
{
    struct golden_set gs;
    const long lengths[] = {8192, 16384};
    const int depths[] = {0, 5000, 10000};
    const char *const qa[] = {"end", "start"};
    const char *const nd[] = {"1", "2", "4"};
    struct plan_axis ax[] = {{"question-at", qa, 2}, {"needles", nd, 3}};
    struct plan_spec spec = {lengths, 2, depths, 3, 2, 0, 1, 0, ax, 2, 0, 0};
    struct plan all, sh, plain;
    struct strbuf err = STRBUF_INIT;
    size_t i, j, covered = 0;
    unsigned s;
    CHECK_INT(golden_set_load(&gs, "datasets/needle.jsonl"), 0);
    CHECK_INT(plan_build(&all, &gs, &spec, &err), 0);
    CHECK_INT(all.combos_nr, 6);
    CHECK_INT(all.nr, gs.nr * 2 * 2 * 6 * 3);
    CHECK_STR(all.combos[0], "needles=1;question-at=end");
    CHECK_STR(all.combos[1], "needles=2;question-at=end");
    CHECK_STR(all.combos[3], "needles=1;question-at=start");
    /* question 0, combo 0, depths; then combo 1 of the same question */
    CHECK(all.t[0].question == 0 && all.t[2].depth_bp == 10000 &&
          !strcmp(all.t[2].axes, all.combos[0]));
    CHECK(all.t[3].question == 0 && all.t[3].depth_bp == 0 &&
          !strcmp(all.t[3].axes, "needles=2;question-at=end"));
    CHECK(all.t[18].question == 1 && !strcmp(all.t[18].axes, all.combos[0]));
    for (i = 0; i + 2 < all.nr; i += 3)
        CHECK(all.t[i].depth_bp == 0 && all.t[i + 2].depth_bp == 10000 &&
              !strcmp(all.t[i].axes, all.t[i + 2].axes));
    for (s = 0; s < 4; s++) {
        struct plan_trial first;
        spec.shard_index = s;
        spec.shard_count = 4;
        CHECK_INT(plan_build(&sh, &gs, &spec, &err), 0);
        /* every shard names the whole matrix's first trial (the run's request probe) */
        plan_first_trial(&sh, &spec, &first);
        CHECK(first.question == all.t[0].question && first.length == all.t[0].length &&
              first.depth_bp == all.t[0].depth_bp && first.repeat == all.t[0].repeat &&
              !strcmp(first.axes, all.t[0].axes));
        for (i = 0; i + 2 < sh.nr; i += 3)
            CHECK(sh.t[i].depth_bp == 0 && sh.t[i].question == sh.t[i + 2].question &&
                  !strcmp(sh.t[i].axes, sh.t[i + 2].axes));
        covered += sh.nr;
        plan_release(&sh);
    }
    CHECK_INT(covered, all.nr);
    spec.shard_index = 0;
    spec.shard_count = 1;
    /* without axes: one combination "", the old order */
    spec.axes = NULL;
    spec.axes_nr = 0;
    CHECK_INT(plan_build(&plain, &gs, &spec, &err), 0);
    CHECK_INT(plain.combos_nr, 1);
    CHECK_INT(plain.nr, gs.nr * 2 * 2 * 3);
    for (i = 0; i < plain.nr; i++)
        CHECK_STR(plain.t[i].axes, "");
    /* the axis trials of combo 0 are the plain trials with axes added */
    for (i = 0, j = 0; i < all.nr && j < plain.nr; i++)
        if (!strcmp(all.t[i].axes, all.combos[0])) {
            CHECK(all.t[i].question == plain.t[j].question &&
                  all.t[i].length == plain.t[j].length && all.t[i].repeat == plain.t[j].repeat &&
                  all.t[i].depth_bp == plain.t[j].depth_bp);
            j++;
        }
    CHECK_INT(j, plain.nr);
    plan_release(&plain);
    plan_release(&all);
    /* errors */
    spec.axes = ax;
    spec.axes_nr = 2;
    {
        const char *const dup[] = {"end", "end"};
        const char *const bad[] = {"a;b"};
        struct plan_axis a1[] = {{"question-at", dup, 2}};
        struct plan_axis a2[] = {{"needles", bad, 1}};
        struct plan_axis a3[] = {{"Needles", nd, 3}};
        struct plan_axis a4[] = {{"needles", nd, 3}, {"needles", nd, 3}};
        struct plan p;
        spec.axes = a1;
        spec.axes_nr = 1;
        CHECK_INT(plan_build(&p, &gs, &spec, &err), -1);
        CHECK(strstr(err.buf, "--question-at: end given twice") != NULL);
        strbuf_reset(&err);
        spec.axes = a2;
        CHECK_INT(plan_build(&p, &gs, &spec, &err), -1);
        CHECK(strstr(err.buf, "--needles: 'a;b' is not a value") != NULL);
        strbuf_reset(&err);
        spec.axes = a3;
        CHECK_INT(plan_build(&p, &gs, &spec, &err), -1);
        CHECK(strstr(err.buf, "'Needles' is not an axis name") != NULL);
        strbuf_reset(&err);
        spec.axes = a4;
        spec.axes_nr = 2;
        CHECK_INT(plan_build(&p, &gs, &spec, &err), -1);
        CHECK(strstr(err.buf, "axis needles given twice") != NULL);
    }
    golden_set_release(&gs);
    strbuf_release(&err);
}

/*
 * run --absent P: each depth trial drawn (per key, from the seed) gets a twin keyed absent=yes
 * right after its group's depths; the present trials are the matrix without --absent; the total
 * counts the twins; another seed draws other keys.
 */
static void test_absent(void)
{
    struct golden_set gs;
    const long lengths[] = {8192};
    const int depths[] = {0, 2500, 5000, 7500, 10000};
    struct plan_spec spec = {lengths, 1, depths, 5, 2, 0, 1, 0, NULL, 0, 0.5, 7};
    struct plan p, plain, other;
    struct strbuf err = STRBUF_INIT;
    size_t i, twins = 0, present = 0, differ = 0;
    CHECK_INT(golden_set_load(&gs, "datasets/needle.jsonl"), 0);
    CHECK_INT(plan_build(&p, &gs, &spec, &err), 0);
    spec.absent = 0;
    CHECK_INT(plan_build(&plain, &gs, &spec, &err), 0);
    spec.absent = 0.5;
    spec.seed = 8;
    CHECK_INT(plan_build(&other, &gs, &spec, &err), 0);
    for (i = 0; i < p.nr; i++) {
        const struct plan_trial *t = &p.t[i];
        if (!trial_is_absent(t->axes)) {
            CHECK(present < plain.nr && t->depth_bp == plain.t[present].depth_bp &&
                  t->question == plain.t[present].question && !strcmp(t->axes, ""));
            present++;
            continue;
        }
        twins++;
        CHECK_STR(t->axes, "absent=yes");
        /* after its group's depths: the trial before it is its question's, same repeat */
        CHECK(i > 0 && p.t[i - 1].question == t->question && p.t[i - 1].repeat == t->repeat);
    }
    CHECK_INT(present, plain.nr);
    CHECK(twins > plain.nr * 3 / 10 && twins < plain.nr * 7 / 10);
    CHECK_INT(p.total_nr, plain.nr + twins);
    for (i = 0; i < p.nr && i < other.nr; i++)
        differ += p.t[i].depth_bp != other.t[i].depth_bp || strcmp(p.t[i].axes, other.t[i].axes);
    CHECK(differ > 0);
    plan_release(&p);
    plan_release(&plain);
    plan_release(&other);
    golden_set_release(&gs);
    strbuf_release(&err);
}

int main(void)
{
    RUN(test_lengths);
    RUN(test_lengths_relative);
    RUN(test_depths);
    RUN(test_shard_parse);
    RUN(test_matrix_and_shards);
    RUN(test_controls);
    RUN(test_summary);
    RUN(test_axes);
    RUN(test_absent);
    RUN(test_cache_estimate);
    return TEST_EXIT();
}

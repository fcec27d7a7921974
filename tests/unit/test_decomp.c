/*
 * The decomposition penalties (stats/decomp.c, run --arm): per length the length (oracle -
 * padding), distraction (padding - haystack) and position (adjacent - haystack) penalties over
 * hand-counted pairs; the trials left out (unscored, without the arm axis, other lengths); no
 * arm axis gives NULL.
 */
#include "test.h"

#include "run/trial.h"
#include "stats/decomp.h"
#include "stats/stats.h"

#define MAXT 64

static struct trial_point tr[MAXT];
static size_t ntr;

static void add(const char *q, long length, int depth_bp, int repeat, const char *axes,
                enum trial_outcome o)
{
    struct trial_point *t = &tr[ntr++];
    memset(t, 0, sizeof(*t));
    t->question_id = q;
    t->length = length;
    t->depth_bp = depth_bp;
    t->repeat = repeat;
    t->axes = axes;
    t->outcome = o;
}

#define OK  OUTCOME_CORRECT
#define BAD OUTCOME_WRONG

static void test_penalties(void)
{
    struct stats_options o;
    struct decomp_stats *s;
    const struct decomp_length *l;
    stats_options_init(&o);
    ntr = 0;
    /* q1: oracle right; padding 1 of 2 right; haystack 0 of 2; adjacent 2 of 2 */
    add("q1", TRIAL_CONTROL_LENGTH, DEPTH_BP_ORACLE, 0, "", OK);
    add("q1", 2048, 0, 0, "arm=padding", OK);
    add("q1", 2048, 10000, 0, "arm=padding", BAD);
    add("q1", 2048, 0, 0, "arm=haystack", BAD);
    add("q1", 2048, 10000, 0, "arm=haystack", BAD);
    add("q1", 2048, 0, 0, "arm=adjacent", OK);
    add("q1", 2048, 10000, 0, "arm=adjacent", OK);
    /* q2: oracle wrong; padding 2 of 2; haystack 2 of 2; adjacent 1 of 2 */
    add("q2", TRIAL_CONTROL_LENGTH, DEPTH_BP_ORACLE, 0, "", BAD);
    add("q2", 2048, 0, 0, "arm=padding", OK);
    add("q2", 2048, 10000, 0, "arm=padding", OK);
    add("q2", 2048, 0, 0, "arm=haystack", OK);
    add("q2", 2048, 10000, 0, "arm=haystack", OK);
    add("q2", 2048, 0, 0, "arm=adjacent", BAD);
    add("q2", 2048, 10000, 0, "arm=adjacent", OK);
    /* left out: an error, a trial without the arm, an unpaired padding trial of repeat 1 */
    add("q2", 2048, 5000, 0, "arm=haystack", OUTCOME_ERROR);
    add("q2", 2048, 5000, 0, "", BAD);
    add("q1", 2048, 0, 1, "arm=padding", BAD);
    /* another length: distraction pairs, and the padding trial against the same oracle */
    add("q1", 4096, 0, 0, "arm=padding", OK);
    add("q1", 4096, 0, 0, "arm=haystack", BAD);

    s = decomp_stats_compute(tr, ntr, &o);
    CHECK(s != NULL);
    if (!s)
        return;
    CHECK_INT(s->n_lengths, 2);
    l = &s->lengths[0];
    CHECK_INT(l->length, 2048);
    /* length: q1 (1-1) + (1-0), q2 (0-1) + (0-1): 4 pairs, -1/4 */
    CHECK_INT(l->pen[DECOMP_LENGTH].n_pairs, 4);
    CHECK_NEAR(l->pen[DECOMP_LENGTH].diff.est, -0.25, 1e-12);
    /* distraction: q1 (1-0) + (0-0), q2 0 + 0: 1/4 */
    CHECK_INT(l->pen[DECOMP_DISTRACTION].n_pairs, 4);
    CHECK_NEAR(l->pen[DECOMP_DISTRACTION].diff.est, 0.25, 1e-12);
    /* position: q1 (1-0) + (1-0), q2 (0-1) + (1-1): 1/4 */
    CHECK_INT(l->pen[DECOMP_POSITION].n_pairs, 4);
    CHECK_NEAR(l->pen[DECOMP_POSITION].diff.est, 0.25, 1e-12);
    CHECK_INT(l->pen[DECOMP_POSITION].n_questions, 2);
    CHECK(l->pen[DECOMP_POSITION].diff.lo <= 0.25 && 0.25 <= l->pen[DECOMP_POSITION].diff.hi);
    l = &s->lengths[1];
    CHECK_INT(l->length, 4096);
    CHECK_INT(l->pen[DECOMP_LENGTH].n_pairs, 1); /* the oracle has no length: paired at each */
    CHECK_NEAR(l->pen[DECOMP_LENGTH].diff.est, 0.0, 1e-12);
    CHECK_INT(l->pen[DECOMP_POSITION].n_pairs, 0);
    CHECK_INT(l->pen[DECOMP_DISTRACTION].n_pairs, 1);
    CHECK_NEAR(l->pen[DECOMP_DISTRACTION].diff.est, 1.0, 1e-12);
    /* one question: the interval is the whole range */
    CHECK_NEAR(l->pen[DECOMP_DISTRACTION].diff.lo, -1.0, 1e-12);
    CHECK_STR(decomp_name(DECOMP_DISTRACTION), "distraction");
    decomp_stats_free(s);
}

static void test_no_arm(void)
{
    struct stats_options o;
    stats_options_init(&o);
    ntr = 0;
    add("q1", 2048, 0, 0, "", OK);
    add("q1", 2048, 0, 0, "distractors=none", OK);
    CHECK(decomp_stats_compute(tr, ntr, &o) == NULL);
}

int main(void)
{
    RUN(test_penalties);
    RUN(test_no_arm);
    return TEST_EXIT();
}

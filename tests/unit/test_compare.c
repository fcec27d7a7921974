/* Unit tests for compare.c: pairing, verdicts on constructed runs, writers and escaping. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stats/compare.h"
#include "base/escape.h"
#include "base/proc.h"
#include "report/report.h"
#include "run/run_identity.h"
#include "stats/stats.h"
#include "store/store.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"

#include "test.h"

struct tset {
    struct trial_result *t;
    size_t n, alloc;
    struct trial_point *p; /* P(): the points statistics read */
};

/* s's trials as points (trial.h), taken again on every call (trials may have changed). */
static const struct trial_point *P(struct tset *s)
{
    free(s->p);
    s->p = trial_points_of(s->t, s->n);
    return s->p;
}

static void add(struct tset *s, const char *q, long len, int depth, int rep, enum trial_outcome o)
{
    struct trial_result *t;
    ALLOC_GROW(s->t, s->n + 1, s->alloc);
    t = &s->t[s->n++];
    trial_result_init(t);
    t->question_id = xstrdup(q);
    t->length = len;
    t->depth_bp = depth;
    t->repeat = rep;
    t->outcome = o;
}

static void tset_free(struct tset *s)
{
    size_t i;
    for (i = 0; i < s->n; i++)
        trial_result_release(&s->t[i]);
    free(s->t);
    free(s->p);
    memset(s, 0, sizeof(*s));
}

/*
 * nq questions x depths 0/25/50/75/100 at 8k. The baseline is right
 * everywhere except question k wrong at depth (k % 5) when k % 4 == 0.
 * The first mid_drop questions additionally go wrong at 50% ("deeper dip");
 * from question overflow_from on (when >= 0) every trial overflows.
 */
static void make_run(struct tset *s, int nq, int mid_drop, int overflow_from)
{
    int q, d;
    char id[16];
    for (q = 0; q < nq; q++) {
        snprintf(id, sizeof(id), "q%03d", q);
        for (d = 0; d <= 10000; d += 2500) {
            enum trial_outcome o =
                (q % 4 == 0 && d == (q % 5) * 2500) ? OUTCOME_WRONG : OUTCOME_CORRECT;
            if (d == 5000 && q < mid_drop)
                o = OUTCOME_WRONG;
            if (overflow_from >= 0 && q >= overflow_from)
                o = OUTCOME_OVERFLOW;
            add(s, id, 8192, d, 0, o);
        }
    }
}

static const struct compare_test *find(const struct compare_result *r, enum compare_scope sc,
                                       long len, int depth)
{
    size_t i;
    for (i = 0; i < r->n_tests; i++)
        if (r->tests[i].scope == sc && r->tests[i].length == len &&
            (sc != COMPARE_CELL || r->tests[i].depth_bp == depth))
            return &r->tests[i];
    return NULL;
}

/*
 * Identical runs: with 150 questions every primary (betting) bound is below 5 pp: PASS.
 * With 40 it is not: INCONCLUSIVE, saying how many questions a decision needs (the
 * observed zeros repeated); the old rule (no-regression) passes both.
 */
static void test_identical_pass(void)
{
    struct tset a = {0}, b = {0};
    struct compare_result r;
    struct compare_options o;
    const struct compare_test *t;
    make_run(&a, 150, 0, -1);
    make_run(&b, 150, 0, -1);
    compare_runs(P(&a), a.n, P(&b), b.n, NULL, &r);
    CHECK_INT(r.verdict, VERDICT_PASS);
    CHECK_INT(r.n_regressions, 0);
    CHECK_INT(r.n_no_data, 0);
    /* 5 cells, the length's all depths, middle and dip, overall */
    CHECK_INT(r.n_tests, 5 + 3 + 1);
    CHECK_INT(r.n_family, 5);
    CHECK_INT(r.n_primary_family, 3);
    t = find(&r, COMPARE_CELL, 8192, 5000);
    CHECK(t && t->n_pairs == 150 && t->base_only == 0 && t->cand_only == 0);
    CHECK(t && t->p_signflip_drop == 1.0 && t->p_drop == 1.0);
    t = find(&r, COMPARE_MIDDLE, 8192, -1);
    CHECK(t && t->primary && t->n_middle == 3 && t->n_edge == 2 && t->n_pairs == 450);
    CHECK(t && t->upper > 0.0 && t->upper < 0.05 && t->lower < 0.0);
    CHECK_INT(r.tests[r.n_tests - 1].scope, COMPARE_OVERALL);
    CHECK_INT(r.tests[r.n_tests - 1].n_pairs, 750);
    compare_result_release(&r);
    tset_free(&a);
    tset_free(&b);

    make_run(&a, 40, 0, -1);
    make_run(&b, 40, 0, -1);
    compare_runs(P(&a), a.n, P(&b), b.n, NULL, &r);
    CHECK_INT(r.verdict, VERDICT_INCONCLUSIVE);
    CHECK(r.n_primary_over == 3 && r.need_questions > 40);
    CHECK(r.n_reasons == 1 && strstr(r.reasons[0], "upper bound") != NULL &&
          strstr(r.reasons[0], "a decision needs about") != NULL);
    compare_result_release(&r);
    compare_options_init(&o);
    o.pass_rule = COMPARE_PASS_NO_REGRESSION;
    compare_runs(P(&a), a.n, P(&b), b.n, &o, &r);
    CHECK_INT(r.verdict, VERDICT_PASS);
    {
        struct strbuf h = STRBUF_INIT;
        compare_headline(&h, &r);
        CHECK(strstr(h.buf, "does not rule out a drop") != NULL);
        strbuf_release(&h);
    }
    compare_result_release(&r);
    tset_free(&a);
    tset_free(&b);
}

static void test_middle_dip_fails(void)
{
    struct tset a = {0}, b = {0};
    struct compare_result r;
    const struct compare_test *t;
    struct strbuf md = STRBUF_INIT, ann = STRBUF_INIT;
    make_run(&a, 200, 0, -1);
    make_run(&b, 200, 100, -1);
    compare_runs(P(&a), a.n, P(&b), b.n, NULL, &r);
    CHECK_INT(r.verdict, VERDICT_FAIL);
    t = find(&r, COMPARE_CELL, 8192, 5000);
    CHECK(t != NULL);
    if (t) {
        CHECK_INT(t->status, CMP_REGRESSION);
        /* q0, q4, q8 are not wrong at 50% in the baseline (their wrong depth is 0, 4->20..) */
        CHECK(t->base_only >= 90 && t->cand_only == 0);
        CHECK_NEAR(t->p_signflip_drop, ldexp(1.0, -(int)t->base_only), 1e-15);
        CHECK(t->p_drop_adj < 0.05 && t->lower > 0.025);
        CHECK(t->drop >= 0.25);
    }
    CHECK_INT(find(&r, COMPARE_CELL, 8192, 0)->status, CMP_OK);
    CHECK_INT(find(&r, COMPARE_CELL, 8192, 10000)->status, CMP_OK);
    CHECK_INT(find(&r, COMPARE_LENGTH, 8192, -1)->status, CMP_REGRESSION);
    /* middle (25, 50, 75%): 95 of 600 pairs lost (q12, q32, .., q92 were wrong at 50% already),
       a third of the cell's drop */
    t = find(&r, COMPARE_MIDDLE, 8192, -1);
    CHECK(t && t->status == CMP_REGRESSION && t->base_only == 95 && t->cand_only == 0);
    CHECK(t && fabs(t->drop - 95.0 / 200.0 / 3.0) < 1e-12);
    /* the dip rises by as much (the edges are unchanged) */
    t = find(&r, COMPARE_DIP, 8192, -1);
    CHECK(t && t->status == CMP_REGRESSION && fabs(t->drop - 95.0 / 600.0) < 1e-12);
    CHECK(t && fabs((t->acc_cand - t->acc_base) - 95.0 / 600.0) < 1e-12);
    CHECK(t && !t->shape_change);
    CHECK_INT(r.n_primary_regressions, 3);
    CHECK_INT(r.n_regressions, 4);
    report_compare_markdown(&md, &r, NULL, 0);
    CHECK(strstr(md.buf, "FAIL") != NULL);
    CHECK(strstr(md.buf, "### Primary endpoints (the gate)") != NULL);
    CHECK(strstr(md.buf, "### Primary endpoints") <
          strstr(md.buf, "### Secondary regressions and improvements"));
    CHECK(strstr(md.buf, "| 8k middle (25-75%) | 200 | ") != NULL);
    CHECK(strstr(md.buf, "### Secondary regressions and improvements") != NULL);
    CHECK(strstr(md.buf, "| 8k @ 50% |") != NULL);
    report_compare_annotations(&ann, &r, 10);
    CHECK(strstr(ann.buf, "::error title=dipmap regression 8k (all depths)::") != NULL);
    /* a secondary cell is a warning after every primary error: it does not fail the gate */
    CHECK(strstr(ann.buf, "::warning title=dipmap secondary 8k @ 50%25::8k @ 50%25: accuracy") !=
          NULL);
    CHECK(strstr(ann.buf, "::error title=dipmap regression 8k dip::8k dip: dip ") != NULL);
    CHECK(strstr(ann.buf, "::warning") > strstr(ann.buf, "::error title=dipmap regression 8k dip"));
    compare_result_release(&r);
    strbuf_release(&md);
    strbuf_release(&ann);
    tset_free(&a);
    tset_free(&b);
}

static void test_drop_below_tolerance_passes(void)
{
    struct tset a = {0}, b = {0};
    struct compare_result r;
    struct compare_options o;
    int q;
    char id[16];
    /* 1000 pairs in one cell, 10 lost: any drop is significant (sign flip) but 1 pp is below
       the 2.5 pp margin and the bound below the 5 pp tolerance: PASS */
    for (q = 0; q < 1000; q++) {
        snprintf(id, sizeof(id), "q%d", q);
        add(&a, id, 1000, 5000, 0, OUTCOME_CORRECT);
        add(&b, id, 1000, 5000, 0, q < 10 ? OUTCOME_WRONG : OUTCOME_CORRECT);
    }
    compare_runs(P(&a), a.n, P(&b), b.n, NULL, &r);
    CHECK_INT(r.verdict, VERDICT_PASS);
    CHECK(r.tests[0].p_signflip_drop < 0.05 && r.tests[0].p_drop_adj > 0.05);
    compare_result_release(&r);
    /* a margin of 0 claims any drop */
    compare_options_init(&o);
    o.fail_margin = 0.0;
    compare_runs(P(&a), a.n, P(&b), b.n, &o, &r);
    CHECK_INT(r.verdict, VERDICT_FAIL);
    compare_result_release(&r);
    tset_free(&a);
    tset_free(&b);
}

static void test_improvement_reported(void)
{
    struct tset a = {0}, b = {0};
    struct compare_result r;
    make_run(&a, 200, 100, -1);
    make_run(&b, 200, 0, -1);
    compare_runs(P(&a), a.n, P(&b), b.n, NULL, &r);
    CHECK_INT(r.verdict, VERDICT_PASS);
    CHECK_INT(find(&r, COMPARE_CELL, 8192, 5000)->status, CMP_IMPROVEMENT);
    CHECK(r.n_improvements >= 1);
    compare_result_release(&r);
    tset_free(&a);
    tset_free(&b);
}

static void test_too_few_inconclusive(void)
{
    struct tset a = {0}, b = {0};
    struct compare_result r;
    struct strbuf junit = STRBUF_INIT;
    make_run(&a, 6, 0, -1);
    make_run(&b, 6, 0, -1);
    compare_runs(P(&a), a.n, P(&b), b.n, NULL, &r);
    CHECK_INT(r.verdict, VERDICT_INCONCLUSIVE);
    /* every cell: 6 pairs < 10; the length (30), middle (18) and dip (30) are tested */
    CHECK_INT(r.n_no_data, 5);
    CHECK_INT(r.n_primary_no_data, 0);
    CHECK(r.n_reasons == 1 && strstr(r.reasons[0], "upper bound") != NULL);
    report_compare_junit(&junit, &r, NULL);
    CHECK(strstr(junit.buf, "<skipped message=\"not enough data\">") != NULL);
    /* INCONCLUSIVE is not green: the overall testcase and the undecided endpoints fail */
    CHECK(strstr(junit.buf, "failures=\"0\"") == NULL);
    CHECK(strstr(junit.buf, "<testcase classname=\"dipmap.compare\" name=\"overall\" "
                            "time=\"0\">\n      <failure type=\"inconclusive\"") != NULL);
    CHECK(strstr(junit.buf, "name=\"middle (25-75%)\" time=\"0\">\n      <failure "
                            "type=\"inconclusive\"") != NULL);
    compare_result_release(&r);
    strbuf_reset(&junit);
    /* --gate cells: the cells must be tested too */
    {
        struct compare_options o;
        compare_options_init(&o);
        o.gate = COMPARE_GATE_CELLS;
        compare_runs(P(&a), a.n, P(&b), b.n, &o, &r);
        CHECK(r.n_reasons && strstr(r.reasons[0], "5 cells without enough data") != NULL);
        CHECK(r.n_reasons && strstr(r.reasons[0], "8k @ 0% (6 pairs") != NULL);
        compare_result_release(&r);
    }
    strbuf_release(&junit);
    /* no candidate trials at all */
    compare_runs(P(&a), a.n, NULL, 0, NULL, &r);
    CHECK_INT(r.verdict, VERDICT_INCONCLUSIVE);
    CHECK(r.n_reasons && strstr(r.reasons[0], "candidate run has no trials") != NULL);
    CHECK_INT(r.baseline_only_keys, 30);
    compare_result_release(&r);
    tset_free(&a);
    tset_free(&b);
}

/*
 * Cells are the secondary family (issue 29): 40 of 200 questions lose the 0% edge, a 20 pp
 * cell drop, while all depths drop 4 pp (under the tolerance), the middle not at all and the
 * dip narrows. The cell is tested and shown as a regression but does not fail the gate;
 * --gate cells makes it FAIL.
 */
static void test_secondary_cells_gate(void)
{
    struct tset a = {0}, b = {0};
    struct compare_result r;
    struct compare_options o;
    size_t i;
    make_run(&a, 200, 0, -1);
    make_run(&b, 200, 0, -1);
    for (i = 0; i < b.n; i++)
        if (b.t[i].depth_bp == 0 && strcmp(b.t[i].question_id, "q040") < 0)
            b.t[i].outcome = OUTCOME_WRONG;
    compare_runs(P(&a), a.n, P(&b), b.n, NULL, &r);
    CHECK_INT(find(&r, COMPARE_CELL, 8192, 0)->status, CMP_REGRESSION);
    CHECK_INT(r.n_primary_regressions, 0);
    CHECK(r.n_regressions >= 1);
    CHECK(r.verdict != VERDICT_FAIL);
    compare_result_release(&r);
    compare_options_init(&o);
    o.gate = COMPARE_GATE_CELLS;
    compare_runs(P(&a), a.n, P(&b), b.n, &o, &r);
    CHECK_INT(r.verdict, VERDICT_FAIL);
    CHECK_INT(find(&r, COMPARE_CELL, 8192, 0)->status, CMP_REGRESSION);
    compare_result_release(&r);
    tset_free(&a);
    tset_free(&b);
}

static void test_low_coverage_inconclusive(void)
{
    struct tset a = {0}, b = {0};
    struct compare_result r;
    /* the candidate overflows on half of the questions: never counted as wrong */
    make_run(&a, 40, 0, -1);
    make_run(&b, 40, 0, 20);
    compare_runs(P(&a), a.n, P(&b), b.n, NULL, &r);
    CHECK_INT(r.verdict, VERDICT_INCONCLUSIVE);
    CHECK_INT(r.n_regressions, 0);
    CHECK(r.n_reasons && strstr(r.reasons[0], "coverage 50.0%") != NULL);
    CHECK_INT(find(&r, COMPARE_CELL, 8192, 5000)->n_pairs, 20);
    compare_result_release(&r);
    tset_free(&a);
    tset_free(&b);
}

static void test_pending_and_duplicates(void)
{
    struct tset a = {0}, b = {0};
    struct compare_result r;
    add(&a, "q", 1, 0, 0, OUTCOME_CORRECT);
    add(&a, "q", 1, 0, 0, OUTCOME_WRONG); /* duplicate key: first kept */
    add(&a, "q", 1, 0, 1, OUTCOME_PENDING);
    add(&b, "q", 1, 0, 0, OUTCOME_CORRECT);
    add(&b, "q", 1, 0, 1, OUTCOME_CORRECT);
    compare_runs(P(&a), a.n, P(&b), b.n, NULL, &r);
    CHECK_INT(r.tests[0].n_keys, 2);
    CHECK_INT(r.tests[0].n_pairs, 1);
    CHECK_INT(r.tests[0].both_correct, 1);
    CHECK_INT(r.candidate_only_keys, 1);
    compare_result_release(&r);
    tset_free(&a);
    tset_free(&b);
}

/*
 * One repeat per question: every cell's test is exactly the McNemar test on
 * its discordant pairs (the sign-flip test with d in {-1, 0, 1}), while the
 * length test works on per-question sums over the depths.
 */
static void test_one_repeat_equals_mcnemar(void)
{
    struct tset a = {0}, b = {0};
    struct compare_result r;
    const struct compare_test *t;
    long d[60];
    size_t i, nd = 0;
    make_run(&a, 60, 0, -1);
    make_run(&b, 60, 14, -1);
    /* 3 questions gain at 50% (wrong in the baseline, right in the candidate) */
    for (i = 0; i < a.n; i++)
        if (a.t[i].depth_bp == 5000 && (i / 5) >= 50 && (i / 5) < 53)
            a.t[i].outcome = OUTCOME_WRONG;
    compare_runs(P(&a), a.n, P(&b), b.n, NULL, &r);
    t = find(&r, COMPARE_CELL, 8192, 5000);
    CHECK(t != NULL);
    if (t) {
        CHECK(t->p_signflip_drop == mcnemar_drop_p(t->base_only, t->cand_only));
        CHECK(t->p_signflip_gain == mcnemar_gain_p(t->base_only, t->cand_only));
        CHECK_INT(t->n_questions, 60);
    }
    t = find(&r, COMPARE_LENGTH, 8192, -1);
    CHECK(t != NULL);
    if (t) {
        /* per question: baseline correct minus candidate correct over its 5 depths */
        for (i = 0; i < 60; i++) {
            long diff = 0;
            size_t k;
            for (k = 0; k < 5; k++)
                diff += (a.t[i * 5 + k].outcome == OUTCOME_CORRECT) -
                        (b.t[i * 5 + k].outcome == OUTCOME_CORRECT);
            d[nd++] = diff;
        }
        CHECK(t->p_signflip_drop == signflip_drop_p(d, nd));
    }
    compare_result_release(&r);
    tset_free(&a);
    tset_free(&b);
}

/*
 * The case: one question x 100 repeats. Trial-level McNemar called
 * it p = 8.9e-08; one question is one cluster, so the best a drop can do is
 * p = 1/2 (its sign), and the verdict cannot be FAIL; the warnings say why.
 */
static void test_one_question_is_one_cluster(void)
{
    struct tset a = {0}, b = {0};
    struct compare_result r;
    const struct compare_test *t;
    struct strvec w = STRVEC_INIT;
    int rep;
    for (rep = 0; rep < 100; rep++) {
        add(&a, "only", 8192, 5000, rep, OUTCOME_CORRECT);
        add(&b, "only", 8192, 5000, rep, rep < 30 ? OUTCOME_WRONG : OUTCOME_CORRECT);
    }
    compare_runs(P(&a), a.n, P(&b), b.n, NULL, &r);
    t = find(&r, COMPARE_CELL, 8192, 5000);
    CHECK(t != NULL);
    if (t) {
        CHECK_INT(t->base_only, 30);
        CHECK(mcnemar_drop_p(30, 0) < 1e-8); /* what the trial-level test said */
        CHECK_NEAR(t->p_signflip_drop, 0.5, 1e-12);
        CHECK(t->p_drop > 0.05);
        CHECK_INT(t->n_questions, 1);
        CHECK_INT(t->n_repeats, 100);
    }
    CHECK(r.verdict != VERDICT_FAIL);
    compare_warnings(&r, &w);
    CHECK_INT(w.nr, 3);
    CHECK(w.nr == 3 && strstr(w.v[1], "100 repeats exceed the 1 question"));
    strvec_clear(&w);
    compare_result_release(&r);
    tset_free(&a);
    tset_free(&b);
}

/* Control trials are never tested; --exclude-known drops known questions from every test. */
static void test_controls_and_exclude_known(void)
{
    struct tset a = {0}, b = {0};
    struct compare_result r;
    struct compare_options o;
    size_t i;
    make_run(&a, 40, 0, -1);
    make_run(&b, 40, 0, -1);
    add(&a, "q000", TRIAL_CONTROL_LENGTH, DEPTH_BP_CLOSED_BOOK, 0, OUTCOME_CORRECT);
    add(&b, "q000", TRIAL_CONTROL_LENGTH, DEPTH_BP_CLOSED_BOOK, 0, OUTCOME_WRONG);
    add(&a, "q001", TRIAL_CONTROL_LENGTH, DEPTH_BP_ORACLE, 0, OUTCOME_CORRECT);
    add(&b, "q001", TRIAL_CONTROL_LENGTH, DEPTH_BP_ORACLE, 0, OUTCOME_CORRECT);
    compare_runs(P(&a), a.n, P(&b), b.n, NULL, &r);
    for (i = 0; i < r.n_tests; i++)
        CHECK(r.tests[i].scope == COMPARE_OVERALL || r.tests[i].length == 8192);
    CHECK_INT(r.n_questions, 40);
    CHECK_INT(r.n_known, 1);
    compare_result_release(&r);
    compare_options_init(&o);
    o.exclude_known = 1;
    compare_runs(P(&a), a.n, P(&b), b.n, &o, &r);
    CHECK_INT(r.n_questions, 39);
    CHECK_INT(r.tests[r.n_tests - 1].n_pairs, 39 * 5);
    compare_result_release(&r);
    tset_free(&a);
    tset_free(&b);
}

static void test_same_inputs(void)
{
    struct run_info x, y;
    struct strbuf why = STRBUF_INIT;
    run_info_init(&x);
    run_info_init(&y);
    x.golden_sha256 = xstrdup("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    y.golden_sha256 = xstrdup(x.golden_sha256);
    x.tokenizer_name = xstrdup("cl100k_base");
    y.tokenizer_name = xstrdup("cl100k_base");
    CHECK(run_identity_same_inputs(&x, &y, NULL, &why) == 1);
    CHECK_INT(why.len, 0);
    y.template_sha256 = xstrdup("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
    CHECK(run_identity_same_inputs(&x, &y, NULL, &why) == 0);
    CHECK(strstr(why.buf, "template differs: template_sha256 (none) vs bbbbbbbbbbbb") != NULL);
    strbuf_reset(&why);
    free(y.tokenizer_name);
    y.tokenizer_name = xstrdup("o200k_base");
    CHECK(run_identity_same_inputs(&x, &y, NULL, &why) == 0);
    CHECK(strstr(why.buf, "tokenizer differs: tokenizer_name") != NULL);
    /* one tokenizer rule: the file hash when there is one, whatever the name */
    free(y.template_sha256);
    y.template_sha256 = NULL;
    x.tokenizer_sha256 =
        xstrdup("cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc");
    y.tokenizer_sha256 = xstrdup(x.tokenizer_sha256);
    CHECK(run_identity_same_inputs(&x, &y, NULL, NULL) == 1);
    {
        const char *field = NULL;
        x.model_requested = xstrdup("m");
        y.model_requested = xstrdup("m");
        CHECK(run_identity_same_run(&x, &y, &field, NULL) == 1);
        CHECK(field == NULL);
        /* "unknown" (a server tokenizer) is no hash: the names decide */
        free(x.tokenizer_sha256);
        free(y.tokenizer_sha256);
        x.tokenizer_sha256 = xstrdup("unknown");
        y.tokenizer_sha256 = xstrdup("unknown");
        CHECK(run_identity_same_run(&x, &y, &field, NULL) == 0);
        CHECK(field && !strcmp(field, "tokenizer_name"));
    }
    run_info_release(&x);
    run_info_release(&y);
    strbuf_release(&why);
}

static void test_xml_escape(void)
{
    struct strbuf sb = STRBUF_INIT;
    escape_xml(&sb, "a<b&c\"d'e>\x01\x1b[0m\xff\xef\xbf\xbe\tz\xc3\xa9");
    CHECK_STR(sb.buf, "a&lt;b&amp;c&quot;d&apos;e&gt;[0m&#9;z\xc3\xa9");
    strbuf_release(&sb);
}

static int xmllint_ok(const char *xml)
{
    const char *argv[] = {"xmllint", "--noout", "-", NULL};
    struct strbuf err = STRBUF_INIT;
    int st = -1;
    if (proc_run(argv, xml, strlen(xml), NULL, &err, &st) < 0)
        st = -1;
    if (st)
        fprintf(stderr, "  xmllint: %s\n", err.buf);
    strbuf_release(&err);
    return st == 0;
}

static void test_junit_injection(void)
{
    struct tset a = {0}, b = {0};
    struct compare_result r;
    struct run_info x, y;
    struct compare_meta m = {0};
    struct strbuf junit = STRBUF_INIT, md = STRBUF_INIT;
    run_info_init(&x);
    run_info_init(&y);
    x.name = xstrdup("base</testsuite><x a=\"1\">&\x01\x1b");
    x.model_requested = xstrdup("m | `rm -rf` <script>");
    y.name = xstrdup("cand]]><!--");
    m.baseline = &x;
    m.candidate = &y;
    make_run(&a, 200, 0, -1);
    make_run(&b, 200, 100, -1);
    compare_runs(P(&a), a.n, P(&b), b.n, NULL, &r);
    report_compare_junit(&junit, &r, &m);
    CHECK(xmllint_ok(junit.buf));
    CHECK(strstr(junit.buf, "base&lt;/testsuite&gt;&lt;x a=&quot;1&quot;&gt;&amp;") != NULL);
    CHECK(strchr(junit.buf, '\x01') == NULL && strchr(junit.buf, '\x1b') == NULL);
    /* GitLab's fields: testcase classname, name, time; failure / skipped content */
    /* a secondary cell that regressed is not a failure (only --gate cells makes it one) */
    CHECK(strstr(junit.buf, "<testcase classname=\"dipmap.compare.length.8k\" name=\"depth 50%\" "
                            "time=\"0\">\n      <system-out>") != NULL);
    CHECK(strstr(junit.buf,
                 "<testcase classname=\"dipmap.compare.length.8k\" name=\"all depths\"") != NULL);
    CHECK(strstr(junit.buf, "<testcase classname=\"dipmap.compare\" name=\"overall\"") != NULL);
    /* cell 50%, the length's all depths, middle, dip, and overall */
    CHECK(strstr(junit.buf, "tests=\"9\" failures=\"4\"") != NULL);
    CHECK(strstr(junit.buf, "<testcase classname=\"dipmap.compare.length.8k\" name=\"dip\" "
                            "time=\"0\">\n      <failure type=\"regression\"") != NULL);
    report_compare_markdown(&md, &r, &m, 0);
    CHECK(strstr(md.buf, "<script>") == NULL);
    CHECK(strstr(md.buf, "&lt;script&gt;") != NULL);
    CHECK(strstr(md.buf, "m \\| \\`rm") != NULL);
    compare_result_release(&r);
    run_info_release(&x);
    run_info_release(&y);
    strbuf_release(&junit);
    strbuf_release(&md);
    tset_free(&a);
    tset_free(&b);
}

static void test_markdown_limit_and_annotation_cap(void)
{
    struct tset a = {0}, b = {0};
    struct compare_result r;
    struct compare_options o;
    struct strbuf md = STRBUF_INIT, ann = STRBUF_INIT;
    int q, d, lines = 0;
    char id[16];
    const char *p;
    /* 30 lengths x 11 depths, every cell collapses in the candidate */
    for (q = 0; q < 40; q++) {
        snprintf(id, sizeof(id), "q%d", q);
        for (long len = 1000; len < 31000; len += 1000)
            for (d = 0; d <= 10000; d += 1000) {
                add(&a, id, len, d, 0, OUTCOME_CORRECT);
                add(&b, id, len, d, 0, OUTCOME_WRONG);
            }
    }
    compare_options_init(&o);
    compare_runs(P(&a), a.n, P(&b), b.n, &o, &r);
    CHECK_INT(r.verdict, VERDICT_FAIL);
    CHECK_INT(r.n_regressions, 30 * 11 + 30 * 2); /* cells, all depths and middles */
    CHECK_INT(r.n_primary_regressions, 30 * 2);   /* the dips stay: everything fell alike */
    report_compare_markdown(&md, &r, NULL, 8192);
    CHECK(md.len <= 8192);
    CHECK(strstr(md.buf, "rows omitted") != NULL);
    report_compare_annotations(&ann, &r, 10);
    for (p = ann.buf; (p = strstr(p, "::error ")); p++)
        lines++;
    CHECK_INT(lines, 10);
    /* 60 primary regressions, 30 undecided dips, 330 secondary cells: 9 lines and the rest */
    CHECK(strstr(ann.buf, "411 more; see the step summary") != NULL);
    compare_result_release(&r);
    strbuf_release(&md);
    strbuf_release(&ann);
    tset_free(&a);
    tset_free(&b);
}

static void test_json(void)
{
    struct tset a = {0}, b = {0};
    struct compare_result r;
    struct strbuf js = STRBUF_INIT;
    make_run(&a, 200, 0, -1);
    make_run(&b, 200, 100, -1);
    compare_runs(P(&a), a.n, P(&b), b.n, NULL, &r);
    report_compare_json(&js, &r, NULL);
    CHECK(strstr(js.buf, "\"schema\":\t\"dipmap.compare/1\"") != NULL);
    CHECK(strstr(js.buf, "\"verdict\":\t\"FAIL\"") != NULL);
    CHECK(strstr(js.buf, "\"status\":\t\"regression\"") != NULL);
    compare_result_release(&r);
    strbuf_release(&js);
    tset_free(&a);
    tset_free(&b);
}

/*
 * Order-run-like trials (length and depth 0) with axes "k=K;policy=P": the
 * candidate loses every question under policy=source at k=10 only. Each (k,
 * policy) is its own cell named by the axes alone; the pooled lines exist per
 * axis value; no length test; FAIL names the one cell.
 */
static void test_axes_cells(void)
{
    static const char *const combos[] = {"k=10;policy=best-first", "k=10;policy=source",
                                         "k=5;policy=best-first", "k=5;policy=source"};
    struct tset b = {0}, c = {0};
    struct compare_result r;
    struct strbuf name = STRBUF_INIT;
    size_t i, k, cells = 0, lengths = 0, pooled = 0;
    char id[16];
    int q;
    for (q = 0; q < 30; q++) {
        snprintf(id, sizeof(id), "q%03d", q);
        for (k = 0; k < 4; k++) {
            add(&b, id, 0, 0, 0, OUTCOME_CORRECT);
            b.t[b.n - 1].axes = xstrdup(combos[k]);
            add(&c, id, 0, 0, 0, k == 1 ? OUTCOME_WRONG : OUTCOME_CORRECT);
            c.t[c.n - 1].axes = xstrdup(combos[k]);
        }
    }
    compare_runs(P(&b), b.n, P(&c), c.n, NULL, &r);
    CHECK(r.has_axes && r.axes_only);
    CHECK(r.verdict == VERDICT_FAIL);
    for (i = 0; i < r.n_tests; i++) {
        const struct compare_test *t = &r.tests[i];
        strbuf_reset(&name);
        compare_test_name(&name, t);
        if (t->scope == COMPARE_CELL) {
            cells++;
            CHECK(t->n_pairs == 30);
            CHECK((t->status == CMP_REGRESSION) == !strcmp(t->axes, "k=10;policy=source"));
            if (!strcmp(t->axes, "k=10;policy=source"))
                CHECK_STR(name.buf, "k=10, policy=source");
        } else if (t->scope == COMPARE_LENGTH) {
            lengths++;
        } else if (t->scope == COMPARE_AXIS) {
            pooled++;
            CHECK(t->n_pairs == 60);
            if (!strcmp(t->axes, "policy=source"))
                CHECK_STR(name.buf, "policy=source (pooled)");
        }
    }
    CHECK(cells == 4 && lengths == 0 && pooled == 4);
    /* without lengths the cells are the primary family, the pooled lines the secondary */
    CHECK(r.n_primary_family == 4 && r.n_family == 4);
    compare_result_release(&r);
    /* without axes the same outcomes pool into one cell (and one length) */
    for (i = 0; i < b.n; i++) {
        free(b.t[i].axes);
        free(c.t[i].axes);
        b.t[i].axes = c.t[i].axes = NULL;
        b.t[i].repeat = c.t[i].repeat = (int)(i % 4);
    }
    compare_runs(P(&b), b.n, P(&c), c.n, NULL, &r);
    CHECK(!r.has_axes && r.n_tests == 3);
    CHECK(r.tests[0].scope == COMPARE_CELL && r.tests[0].axes == NULL && r.tests[0].n_pairs == 120);
    compare_result_release(&r);
    strbuf_release(&name);
    tset_free(&b);
    tset_free(&c);
}

/*
 * compare_upper_bound: x = {1, 0, 0, 0}: the augmented sample {1, 0, 0, 0, 1, -1}
 * has mean 1/6 and sd sqrt(2.8333 / 5); se = sd / sqrt(4); the bound is 0.25 +
 * t(3; 0.95) se (t = 2.3534). Identical runs (all 0): only the pseudo-questions
 * make the bound, sqrt(2 / (n + 1)) / sqrt(n) t. No question: no bound (1).
 */
static void test_upper_bound(void)
{
    static const double x[] = {1, 0, 0, 0};
    double zeros[100] = {0}, se = 0, u;
    u = compare_upper_bound(x, 4, 0.05, &se);
    CHECK_NEAR(se, sqrt(2.8333333333 / 5.0) / 2.0, 1e-6);
    CHECK_NEAR(u, 0.25 + 2.3534 * se, 0.01);
    u = compare_upper_bound(zeros, 100, 0.05, &se);
    CHECK_NEAR(se, sqrt(2.0 / 101.0) / 10.0, 1e-9);
    CHECK_NEAR(u, 1.6604 * se, 1e-3);
    CHECK(u > 0.0 && u < 0.05);
    u = compare_upper_bound(zeros, 40, 0.05, &se);
    CHECK(u > 0.05); /* 40 questions cannot rule out 5 pp */
    CHECK_NEAR(compare_upper_bound(NULL, 0, 0.05, &se), 1.0, 0);
    /* a lower level gives a higher bound */
    CHECK(compare_upper_bound(x, 4, 0.01, NULL) > compare_upper_bound(x, 4, 0.05, NULL));
}

/*
 * The dip's sign-flip test: depths 0, 50, 100 (one middle, two edges). The
 * candidate loses 10 questions at 50% and gains the same 10 at 0%: the middle
 * drops 10 of 40, the edges gain 5 of 40 on average, so the dip rises by 37.5 pp.
 * Per question d = 2 * (middle) - 1 * (edges) = 2 - (-1) = 3 for those 10 and 0
 * for the rest: the exact test gives 2^-10. The all-depths test sees no change.
 */
static void test_dip_signflip(void)
{
    struct tset a = {0}, b = {0};
    struct compare_result r;
    const struct compare_test *t;
    char id[16];
    int q;
    for (q = 0; q < 40; q++) {
        snprintf(id, sizeof(id), "q%03d", q);
        add(&a, id, 4096, 0, 0, q < 10 ? OUTCOME_WRONG : OUTCOME_CORRECT);
        add(&a, id, 4096, 5000, 0, OUTCOME_CORRECT);
        add(&a, id, 4096, 10000, 0, OUTCOME_CORRECT);
        add(&b, id, 4096, 0, 0, OUTCOME_CORRECT);
        add(&b, id, 4096, 5000, 0, q < 10 ? OUTCOME_WRONG : OUTCOME_CORRECT);
        add(&b, id, 4096, 10000, 0, OUTCOME_CORRECT);
    }
    compare_runs(P(&a), a.n, P(&b), b.n, NULL, &r);
    t = find(&r, COMPARE_DIP, 4096, -1);
    CHECK(t != NULL);
    if (t) {
        CHECK_NEAR(t->acc_base, (0.75 + 1.0) / 2.0 - 1.0, 1e-12);
        CHECK_NEAR(t->acc_cand, 1.0 - 0.75, 1e-12);
        CHECK_NEAR(t->drop, 0.375, 1e-12);
        CHECK_NEAR(t->p_signflip_drop, 1.0 / 1024.0, 1e-12);
        CHECK(t->upper > t->drop && t->lower < t->drop);
    }
    t = find(&r, COMPARE_LENGTH, 4096, -1);
    CHECK(t && t->drop == 0.0 && t->status == CMP_OK);
    compare_result_release(&r);
    tset_free(&a);
    tset_free(&b);
}

/* A cell with no valid pair shows n/a in Markdown and JUnit, not "baseline 0.0%". */
static void test_no_pairs_na(void)
{
    struct tset a = {0}, b = {0};
    struct compare_result r;
    struct strbuf md = STRBUF_INIT, junit = STRBUF_INIT;
    size_t i;
    make_run(&a, 60, 0, -1);
    make_run(&b, 60, 0, -1);
    for (i = 0; i < b.n; i++)
        if (b.t[i].depth_bp == 10000)
            b.t[i].outcome = OUTCOME_OVERFLOW;
    compare_runs(P(&a), a.n, P(&b), b.n, NULL, &r);
    report_compare_markdown(&md, &r, NULL, 0);
    CHECK(strstr(md.buf, "| 8k @ 100% | 0 | n/a | n/a | n/a |") != NULL);
    CHECK(strstr(md.buf, "| 8k @ 100% | 0 | 0.0%") == NULL);
    report_compare_junit(&junit, &r, NULL);
    CHECK(strstr(junit.buf, "no pairs: baseline n/a, candidate n/a") != NULL);
    CHECK(strstr(junit.buf, "name=\"depth 100%\" time=\"0\">\n      <skipped message=\"not "
                            "enough data\">0 valid pairs of 60 keys (coverage 0.0%) over 0 "
                            "questions; no pairs: baseline n/a") != NULL);
    compare_result_release(&r);
    strbuf_release(&md);
    strbuf_release(&junit);
    tset_free(&a);
    tset_free(&b);
}

/* A refused comparison's JUnit: one testcase with an error saying why; well-formed. */
static void test_junit_error(void)
{
    struct strbuf x = STRBUF_INIT;
    report_compare_junit_error(&x, "b<1>", NULL, "golden set differs: a & b");
    CHECK(xmllint_ok(x.buf));
    CHECK(strstr(x.buf, "tests=\"1\" failures=\"0\" errors=\"1\"") != NULL);
    CHECK(strstr(x.buf, "<error type=\"refused\" message=\"golden set differs: a &amp; b\">") !=
          NULL);
    CHECK(strstr(x.buf, "b&lt;1&gt; vs ?") != NULL);
    strbuf_release(&x);
}

/*
 * Issue 42 item 2: the edges improve by 30 pp (the first 60 of 200 questions were wrong at
 * 0% and 100% in the baseline, right in the candidate), the middle is identical: the dip
 * grows by 30 pp from better edges. That is a change of shape, never a regression (the old
 * rule FAILed it: the dip's sign-flip p was 2^-60).
 */
static void test_edges_only_improvement_never_fails(void)
{
    struct tset a = {0}, b = {0};
    struct compare_result r;
    const struct compare_test *t;
    char id[16];
    for (int q = 0; q < 200; q++) {
        snprintf(id, sizeof(id), "e%03d", q);
        for (int d = 0; d <= 10000; d += 2500) {
            int edge = d == 0 || d == 10000;
            enum trial_outcome mid = q % 7 == 0 ? OUTCOME_WRONG : OUTCOME_CORRECT;
            add(&a, id, 8192, d, 0, edge ? (q < 60 ? OUTCOME_WRONG : OUTCOME_CORRECT) : mid);
            add(&b, id, 8192, d, 0, edge ? OUTCOME_CORRECT : mid);
        }
    }
    compare_runs(P(&a), a.n, P(&b), b.n, NULL, &r);
    t = find(&r, COMPARE_DIP, 8192, -1);
    CHECK(t && t->drop > 0.29 && t->p_drop_adj < 0.05);
    CHECK(t && t->status != CMP_REGRESSION && t->shape_change);
    CHECK_INT(r.n_shape_changes, 1);
    CHECK_INT(r.n_primary_regressions, 0);
    CHECK(r.verdict != VERDICT_FAIL);
    compare_result_release(&r);
    tset_free(&a);
    tset_free(&b);
}

/*
 * Issue 42 item 1: a candidate whose true drop is 3 pp (under the 5 pp tolerance) that by
 * chance lost 6 of 100 questions entirely: the estimate is 6 pp >= the tolerance and the
 * old rule FAILed (sign-flip p 2^-6, Holm 0.047). FAIL now claims "worse by more than 2.5
 * pp at 95%", which 6 whole questions of 100 do not show.
 */
static void test_chance_estimate_over_tolerance_does_not_fail(void)
{
    struct tset a = {0}, b = {0};
    struct compare_result r;
    const struct compare_test *t;
    char id[16];
    for (int q = 0; q < 100; q++) {
        snprintf(id, sizeof(id), "c%03d", q);
        for (int d = 0; d <= 10000; d += 2500) {
            add(&a, id, 8192, d, 0, OUTCOME_CORRECT);
            add(&b, id, 8192, d, 0, q < 6 ? OUTCOME_WRONG : OUTCOME_CORRECT);
        }
    }
    compare_runs(P(&a), a.n, P(&b), b.n, NULL, &r);
    t = find(&r, COMPARE_LENGTH, 8192, -1);
    CHECK(t && fabs(t->drop - 0.06) < 1e-12 && t->p_signflip_drop < 0.05 / 3);
    CHECK(t && t->lower < 0.025);
    CHECK_INT(r.n_primary_regressions, 0);
    CHECK(r.verdict != VERDICT_FAIL);
    compare_result_release(&r);
    tset_free(&a);
    tset_free(&b);
}

/*
 * Issue 42 item 5: 10 identical questions. The old planner took the two pseudo-questions'
 * spread as the variance and asked for 762; from what was observed (no difference at all,
 * repeated) the betting bounds decide in 121 questions (the dip's range is twice the
 * middle's).
 */
static void test_need_from_observed(void)
{
    struct tset a = {0}, b = {0};
    struct compare_result r;
    make_run(&a, 10, 0, -1);
    make_run(&b, 10, 0, -1);
    compare_runs(P(&a), a.n, P(&b), b.n, NULL, &r);
    CHECK_INT(r.verdict, VERDICT_INCONCLUSIVE);
    CHECK(r.need_questions > 10 && r.need_questions < 200);
    CHECK(r.n_reasons == 1 && strstr(r.reasons[0], "differ as these 10 did") != NULL);
    compare_result_release(&r);
    tset_free(&a);
    tset_free(&b);
}

int main(void)
{
    RUN(test_identical_pass);
    RUN(test_middle_dip_fails);
    RUN(test_drop_below_tolerance_passes);
    RUN(test_improvement_reported);
    RUN(test_too_few_inconclusive);
    RUN(test_secondary_cells_gate);
    RUN(test_low_coverage_inconclusive);
    RUN(test_pending_and_duplicates);
    RUN(test_one_repeat_equals_mcnemar);
    RUN(test_one_question_is_one_cluster);
    RUN(test_controls_and_exclude_known);
    RUN(test_same_inputs);
    RUN(test_xml_escape);
    RUN(test_junit_injection);
    RUN(test_markdown_limit_and_annotation_cap);
    RUN(test_json);
    RUN(test_axes_cells);
    RUN(test_upper_bound);
    RUN(test_dip_signflip);
    RUN(test_no_pairs_na);
    RUN(test_junit_error);
    RUN(test_edges_only_improvement_never_fails);
    RUN(test_chance_estimate_over_tolerance_does_not_fail);
    RUN(test_need_from_observed);
    return TEST_EXIT();
}

/*
 * The error rates of the gate's verdict rules by an in-process Monte Carlo on serve-sim's own
 * planted model (sim_decide(): the draw serve-sim answers with, question effect icc=R and
 * middle-only regression mid=M included), so the numbers hold for what the HTTP study
 * (gate_study.sh) and the CLI tests see, with many more replicates than HTTP allows.
 *
 * One length (1000 tokens, flat=1: the dip is full at every length), depths 0:100:10, one
 * repeat. Each replicate is a pair of models with their own seeds (and so their own hard
 * questions: qseed defaults to the seed). Two baselines:
 *   high  edge=0.99,dip=0.05,shape=1.6,flat=1  (about 95.5% overall: gate_study.sh's)
 *   low   edge=0.90,dip=0.20,shape=1.6,flat=1  (90% at the edges, about 70% in the middle)
 * Scenarios (struct scenario): unchanged; middle drops of 2, 2.5 (the fail margin), 3, 4, 5
 * (the tolerance) and 10 pp; edges +8 pp with the middle unchanged (low only: edge=0.98 with
 * mid=0.08); the baseline itself with 5.5% of its questions lost whole (every depth wrong:
 * the drop sits on whole questions, about 5.2 pp, at the tolerance or above).
 *
 * Part 1, compare (the fixed design) at 36, 100, 200 and 400 questions at compare's defaults
 * (alpha 0.05, tolerance 5 pp, fail margin 2.5 pp, primary endpoints, PASS by upper bounds);
 * then a frozen sampled baseline: 20 baseline draws, each compared with fresh draws of the
 * unchanged model (what --reuse of a sampled baseline would do). Part 2, the sequential gate
 * (`dipmap gate`'s rule: compare_look_levels() and compare_look_apply(), the questions in the
 * order they entered; rounds of 20, at most SEQ_MAX): its rates and mean questions to a
 * decision, and beside them what `dipmap plan` predicts (power_gate_simulate()). Every rate comes
 * with its Monte Carlo standard error (in parentheses, pp).
 *
 * Exit 1 when a criterion fails (VALIDATION.md): FAIL where every true drop is at most the
 * fail margin (unchanged, -2, -2.5 pp, edges-only improvement), or PASS where a drop is at
 * the tolerance or above (-5, -10 pp, the whole-question loss), above alpha + 2 pp in any
 * row; a frozen baseline whose own FAIL rate exceeds the same.
 *
 * Part 3, the hallucination endpoint (--hallucination-margin 10 pp, halluc_rates() below):
 * its FAIL rate on needle-absent twins, compare at 100 and 200 questions, and the sequential
 * gate (rounds of 20, at most 200 questions) on four rows; HALLUC_REPLICATES per row (400:
 * about 80 s of CPU). Exit 1 as above when a row without a rise above the margin FAILs by it
 * above alpha + 2 pp.
 *
 * usage: gate_rates [REPLICATES [SEQ_REPLICATES [SEED [ROWS [HALLUC_REPLICATES]]]]] (defaults
 * 200, 100, 29000, all, 400; ROWS runs the rows whose "baseline/scenario/icc" contains it, e.g.
 * "low/unchanged/0.3" or "lost whole", or "halluc/SCENARIO": "halluc" alone runs part 3 only);
 * built by `make test`
 * (so it keeps compiling) and run by `make validate` (build/tests/validate/gate_rates).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "run/axes.h"
#include "run/plan.h"
#include "sim/sim.h"
#include "stats/compare.h"
#include "stats/compare_seq.h"
#include "stats/power.h"

#define LENGTH    1000
#define DEPTHS    11
#define SEQ_ROUND 20
#define SEQ_MAX   400
#define SEQ_LOOKS (SEQ_MAX / SEQ_ROUND)
/* VALIDATION.md's criteria: FAIL on an unchanged model and PASS on a drop at the tolerance at
   most alpha + 2 pp, in every design */
#define CRITERION 0.07

static int criteria_failed;
static const char *only; /* BASELINE/SCENARIO/ICC of the one sequential row to run, or NULL */

static void check(const char *what, double rate)
{
    if (rate > CRITERION) {
        printf("CRITERION FAILED: %s %.1f%% > %.0f%%\n", what, 100.0 * rate, 100.0 * CRITERION);
        criteria_failed = 1;
    }
}

static const char *const base_spec[] = {
    "edge=0.99,dip=0.05,shape=1.6,flat=1", /* high */
    "edge=0.90,dip=0.20,shape=1.6,flat=1", /* low */
};
static const char *const base_name[] = {"high", "low"};

static void model(struct sim_model *m, int base, double icc, double mid, unsigned long seed)
{
    struct strbuf spec = STRBUF_INIT, err = STRBUF_INIT;
    strbuf_addf(&spec, "m:%s,icc=%g,mid=%g,seed=%lu", base_spec[base], icc, mid, seed);
    if (sim_model_parse(spec.buf, m, &err)) {
        fprintf(stderr, "gate_rates: %s\n", err.buf);
        exit(1);
    }
    strbuf_release(&spec);
    strbuf_release(&err);
}

/* The trials of questions 0..q-1 (question by question, depths inside) of model m. */
static void answer(struct trial_point *t, int q, const struct sim_model *m, char ids[][16])
{
    int k = 0;
    for (int i = 0; i < q; i++)
        for (int d = 0; d < DEPTHS; d++) {
            memset(&t[k], 0, sizeof(t[k]));
            t[k].question_id = ids[i];
            t[k].length = LENGTH;
            t[k].depth_bp = d * 1000;
            t[k].outcome = sim_decide(m, ids[i], d / 10.0, LENGTH, (uint64_t)d) ? OUTCOME_CORRECT
                                                                                : OUTCOME_WRONG;
            k++;
        }
}

/* What the candidate is: a planted middle drop, better edges with the middle unchanged, or the
   baseline itself with a share of whole questions lost (every trial wrong). */
enum kind { MIDDLE, EDGES, SKEW };
struct scenario {
    enum kind kind;
    double v;         /* middle drop, edge gain, or the share of questions lost */
    const char *name; /* the row's scenario column */
    int want;         /* the right decision: 0 FAIL, 1 PASS, -1 none (drop between margin and
                         tolerance: either is allowed) */
    int check;        /* criterion: 0 FAIL rate <= CRITERION, 1 PASS rate <= CRITERION, -1 none */
};

static const struct scenario scenarios[] = {
    {MIDDLE, 0.0, "unchanged", 1, 0},
    {MIDDLE, 0.02, "middle -2 pp", 1, 0},
    {MIDDLE, 0.025, "middle -2.5 pp (= fail margin)", 1, 0},
    {MIDDLE, 0.03, "middle -3 pp", -1, -1},
    {MIDDLE, 0.04, "middle -4 pp", -1, -1},
    {MIDDLE, 0.05, "middle -5 pp (= tolerance)", 0, 1},
    {MIDDLE, 0.10, "middle -10 pp", 0, 1},
    {EDGES, 0.08, "edges +8 pp, middle unchanged", 1, 0},
    {SKEW, 0.055, "5.5% of questions lost whole", 0, 1},
};
#define N_SCENARIOS (sizeof(scenarios) / sizeof(*scenarios))

/* The candidate's model: the baseline's spec with the scenario's change, its own seed. */
static void cand_model(struct sim_model *m, int base, double icc, const struct scenario *sc,
                       unsigned long seed)
{
    struct strbuf spec = STRBUF_INIT, err = STRBUF_INIT;
    if (sc->kind == EDGES)
        strbuf_addf(&spec, "m:%s,icc=%g,edge=%g,mid=%g,seed=%lu", base_spec[base], icc,
                    base ? 0.90 + sc->v : 0.99, sc->v, seed);
    else
        strbuf_addf(&spec, "m:%s,icc=%g,mid=%g,seed=%lu", base_spec[base], icc,
                    sc->kind == MIDDLE ? sc->v : 0.0, seed);
    if (sim_model_parse(spec.buf, m, &err)) {
        fprintf(stderr, "gate_rates: %s\n", err.buf);
        exit(1);
    }
    strbuf_release(&spec);
    strbuf_release(&err);
}

/* SKEW: the candidate is the baseline with each question lost whole with probability v. */
static void lose_questions(struct trial_point *tc, const struct trial_point *tb, int q, double v,
                           unsigned long seed)
{
    /* the stream starts at a mixed point: seed * gamma would start consecutive replicates'
       streams a few steps apart on splitmix64's one sequence (the same questions lost) */
    uint64_t mix = seed, st = rng_splitmix64(&mix);
    memcpy(tc, tb, (size_t)q * DEPTHS * sizeof(*tc));
    for (int i = 0; i < q; i++) {
        double u = (double)(rng_splitmix64(&st) >> 11) / 9007199254740992.0;
        if (u < v)
            for (int d = 0; d < DEPTHS; d++)
                tc[i * DEPTHS + d].outcome = OUTCOME_WRONG;
    }
}

/* One replicate's two runs of q questions. */
static void draw(struct trial_point *tb, struct trial_point *tc, int q, int base, double icc,
                 const struct scenario *sc, unsigned long *seed, char ids[][16])
{
    struct sim_model mb, mc;
    model(&mb, base, icc, 0.0, ++*seed);
    answer(tb, q, &mb, ids);
    if (sc->kind == SKEW) {
        lose_questions(tc, tb, q, sc->v, ++*seed);
    } else {
        cand_model(&mc, base, icc, sc, ++*seed);
        answer(tc, q, &mc, ids);
        sim_model_release(&mc);
    }
    sim_model_release(&mb);
}

/* The Monte Carlo standard error of a rate from reps replicates, in percent. */
static double mc_se(double rate, int reps)
{
    return 100.0 * sqrt(rate * (1.0 - rate) / reps);
}

static void criterion(const struct scenario *sc, int base, const char *design, const int *v,
                      int reps)
{
    char what[160];
    /* the low baseline's lost questions were right 70-90% of the time: losing 5.5% of them
       drops 3.9-4.3 pp, under the tolerance, where PASS is no error */
    if (sc->check < 0 || (sc->kind == SKEW && base == 1))
        return;
    snprintf(what, sizeof(what), "%s %s rate, %s", design, sc->check ? "PASS" : "FAIL", sc->name);
    check(what, (double)v[sc->check ? 1 : 0] / reps);
}

static int verdict_index(enum compare_verdict v)
{
    return v == VERDICT_FAIL ? 0 : v == VERDICT_PASS ? 1 : 2;
}

static void fixed_rates(int reps, int base, double icc, const struct scenario *sc, int q,
                        unsigned long *seed)
{
    int n = q * DEPTHS, v[3] = {0, 0, 0};
    char(*ids)[16];
    struct trial_point *tb, *tc;
    if (only && !strstr(sc->name, only))
        return;
    ids = xcalloc((size_t)q, sizeof(*ids));
    tb = xcalloc((size_t)n, sizeof(*tb));
    tc = xcalloc((size_t)n, sizeof(*tc));
    for (int i = 0; i < q; i++)
        snprintf(ids[i], sizeof(ids[i]), "q%04d", i);
    for (int rep = 0; rep < reps; rep++) {
        struct compare_result r;
        draw(tb, tc, q, base, icc, sc, seed, ids);
        compare_runs(tb, (size_t)n, tc, (size_t)n, NULL, &r);
        v[verdict_index(r.verdict)]++;
        compare_result_release(&r);
    }
    printf("fixed | %s | %s | %d | %.1f | %d | %.1f%% (%.1f) | %.1f%% (%.1f) | %.1f%%\n",
           base_name[base], sc->name, q, icc, reps, 100.0 * v[0] / reps,
           mc_se((double)v[0] / reps, reps), 100.0 * v[1] / reps, mc_se((double)v[1] / reps, reps),
           100.0 * v[2] / reps);
    criterion(sc, base, "fixed", v, reps);
    fflush(stdout);
    free(ids);
    free(tb);
    free(tc);
}

/*
 * What `dipmap plan` predicts for a sequential row (power_gate_simulate(): the same tests on its
 * own draws of the planted per-depth accuracies, at most 40 gates: its own Monte Carlo error is
 * a few questions): the mean questions to a decision. -1 for the whole-question loss, which is no
 * per-depth drop.
 */
static double plan_mean_questions(int base, double icc, const struct scenario *sc, int reps)
{
    struct power_cell cells[DEPTHS];
    double drop[DEPTHS + 1];
    struct power_spec ps;
    struct power_gate_rates g;
    struct sim_model mb, mc;
    if (sc->kind == SKEW)
        return -1.0;
    model(&mb, base, icc, 0.0, 1);
    cand_model(&mc, base, icc, sc, 2);
    for (int d = 0; d < DEPTHS; d++) {
        cells[d].length = LENGTH;
        cells[d].depth_bp = d * 1000;
        cells[d].accuracy = sim_curve_p(&mb, d / 10.0, LENGTH);
        drop[d] = cells[d].accuracy - sim_curve_p(&mc, d / 10.0, LENGTH);
    }
    memset(&ps, 0, sizeof(ps));
    ps.questions = SEQ_MAX;
    ps.repeats = 1;
    ps.alpha = 0.05;
    ps.tolerance = 0.05;
    ps.icc = icc;
    ps.discordance = -1.0;
    ps.cells = cells;
    ps.n_cells = DEPTHS;
    ps.round = SEQ_ROUND;
    power_gate_simulate(&ps, drop, (unsigned)reps, 1, &g);
    sim_model_release(&mb);
    sim_model_release(&mc);
    return g.mean_questions;
}

static void sequential(int reps, int base, double icc, const struct scenario *sc,
                       unsigned long *seed, const struct compare_look *lv)
{
    int q = SEQ_MAX, n = q * DEPTHS, v[3] = {0, 0, 0};
    double asn = 0;
    char(*ids)[16] = xcalloc((size_t)q, sizeof(*ids));
    const char **order = xcalloc((size_t)q, sizeof(*order));
    struct trial_point *tb = xcalloc((size_t)n, sizeof(*tb));
    struct trial_point *tc = xcalloc((size_t)n, sizeof(*tc));

    if (only) {
        char key[160];
        snprintf(key, sizeof(key), "%s/%s/%.1f", base_name[base], sc->name, icc);
        if (!strstr(key, only)) {
            free(ids);
            free(order);
            free(tb);
            free(tc);
            return;
        }
    }
    for (int i = 0; i < q; i++) {
        snprintf(ids[i], sizeof(ids[i]), "q%04d", i);
        order[i] = ids[i];
    }
    for (int rep = 0; rep < reps; rep++) {
        draw(tb, tc, q, base, icc, sc, seed, ids);
        for (int k = 0; k < SEQ_LOOKS; k++) {
            size_t m = (size_t)(k + 1) * SEQ_ROUND * DEPTHS; /* the first questions' trials */
            struct compare_result r;
            struct compare_options co;
            compare_options_init(&co);
            compare_look_apply(&lv[k], &co);
            /* the gate's order: the questions in the order they entered the rounds */
            co.order = order;
            co.n_order = (size_t)(k + 1) * SEQ_ROUND;
            compare_runs(tb, m, tc, m, &co, &r);
            if (r.verdict == VERDICT_FAIL || r.verdict == VERDICT_PASS || k == SEQ_LOOKS - 1) {
                v[verdict_index(r.verdict)]++;
                asn += (k + 1) * SEQ_ROUND;
                compare_result_release(&r);
                break;
            }
            compare_result_release(&r);
        }
    }
    asn /= reps;
    printf("sequential | %s | %s | %.1f | %d | FAIL %.1f%% (%.1f) | PASS %.1f%% (%.1f) | "
           "INCONCLUSIVE %.1f%% | mean questions %.1f | plan predicts %.1f\n",
           base_name[base], sc->name, icc, reps, 100.0 * v[0] / reps,
           mc_se((double)v[0] / reps, reps), 100.0 * v[1] / reps, mc_se((double)v[1] / reps, reps),
           100.0 * v[2] / reps, asn, plan_mean_questions(base, icc, sc, reps < 40 ? reps : 40));
    criterion(sc, base, "sequential", v, reps);
    fflush(stdout);
    free(ids);
    free(order);
    free(tb);
    free(tc);
}

/*
 * A frozen sampled baseline (issue 42 item 4): nb baselines drawn once each, every one
 * compared with nc fresh draws of the unchanged model, as `--reuse` of a sampled baseline
 * would: the FAIL rate per baseline (conditional on its draw) and over all of them.
 */
static void frozen(int nb, int nc, int base, double icc, int q, unsigned long *seed)
{
    int n = q * DEPTHS, total = 0, worst = 0, pass_total = 0;
    char(*ids)[16] = xcalloc((size_t)q, sizeof(*ids));
    struct trial_point *tb = xcalloc((size_t)n, sizeof(*tb));
    struct trial_point *tc = xcalloc((size_t)n, sizeof(*tc));
    double pmin = 1, pmax = 0;
    for (int i = 0; i < q; i++)
        snprintf(ids[i], sizeof(ids[i]), "q%04d", i);
    for (int b = 0; b < nb; b++) {
        struct sim_model mb;
        int fails = 0, passes = 0;
        model(&mb, base, icc, 0.0, ++*seed);
        answer(tb, q, &mb, ids);
        for (int c = 0; c < nc; c++) {
            struct sim_model mc;
            struct compare_result r;
            model(&mc, base, icc, 0.0, ++*seed);
            answer(tc, q, &mc, ids);
            compare_runs(tb, (size_t)n, tc, (size_t)n, NULL, &r);
            fails += r.verdict == VERDICT_FAIL;
            passes += r.verdict == VERDICT_PASS;
            compare_result_release(&r);
            sim_model_release(&mc);
        }
        sim_model_release(&mb);
        total += fails;
        pass_total += passes;
        if (fails > worst)
            worst = fails;
        if ((double)passes / nc < pmin)
            pmin = (double)passes / nc;
        if ((double)passes / nc > pmax)
            pmax = (double)passes / nc;
    }
    printf("frozen | %s | unchanged, %d baselines x %d candidates | %d | %.1f | FAIL %.2f%% "
           "(%.2f) overall, at most %.1f%% for one baseline | PASS %.1f%% overall, %.0f-%.0f%% "
           "by baseline\n",
           base_name[base], nb, nc, q, icc, 100.0 * total / (nb * nc),
           mc_se((double)total / (nb * nc), nb * nc), 100.0 * worst / nc,
           100.0 * pass_total / (nb * nc), 100.0 * pmin, 100.0 * pmax);
    check("frozen baseline FAIL rate of one baseline", (double)worst / nc);
    fflush(stdout);
    free(ids);
    free(tb);
    free(tc);
}

/*
 * The hallucination endpoint (compare_options.halluc_margin; gate/compare
 * --hallucination-margin): the rate of FAIL by that endpoint alone (compare_result
 * halluc_regression), on runs with needle-absent twins as `run --absent 0.3` draws them (each
 * depth trial has a twin with probability 0.3, the same twins in both runs, axes absent=yes)
 * beside present trials of the unchanged high model. A twin hallucinates (WRONG) when
 * serve-sim's own draw for it (sim_model_draw() against halluc=H, the model's question effect
 * icc=R included) says so, else abstains (CORRECT). SKEW rows: a share of the questions
 * hallucinate on every twin (each run its own questions), the others at the rate that keeps
 * the overall one.
 */
#define HALLUC_MARGIN 0.10
#define HALLUC_ABSENT 0.3

struct halluc_row {
    const char *name;
    double base, cand; /* hallucination rates */
    double icc;        /* serve-sim's question effect on the twins' draws */
    double always;     /* share of questions that hallucinate on every twin (0: none) */
    int check;         /* 1: FAIL rate <= CRITERION (no rise above the margin); 0: reported */
};

static const struct halluc_row halluc_rows[] = {
    {"unchanged 5%", 0.05, 0.05, 0.0, 0.0, 1},
    {"unchanged 30%", 0.30, 0.30, 0.0, 0.0, 1},
    {"unchanged 30%, icc 0.3", 0.30, 0.30, 0.3, 0.0, 1},
    {"+5 pp (5% to 10%)", 0.05, 0.10, 0.0, 0.0, 1},
    {"+5 pp (30% to 35%)", 0.30, 0.35, 0.0, 0.0, 1},
    {"+10 pp = margin (30% to 40%)", 0.30, 0.40, 0.0, 0.0, 1},
    {"+20 pp = 2x margin (5% to 25%)", 0.05, 0.25, 0.0, 0.0, 0},
    {"+20 pp = 2x margin (30% to 50%)", 0.30, 0.50, 0.0, 0.0, 0},
    {"improvement (30% to 20%)", 0.30, 0.20, 0.0, 0.0, 1},
    {"improvement (5% to 2%)", 0.05, 0.02, 0.0, 0.0, 1},
    {"skew: 5% overall, 4% of questions always", 0.05, 0.05, 0.0, 0.04, 1},
    {"skew: 30% overall, 20% of questions always", 0.30, 0.30, 0.0, 0.20, 1},
};
#define N_HALLUC_ROWS (sizeof(halluc_rows) / sizeof(*halluc_rows))

/* A uniform in [0,1) from a stream state. */
static double unit_draw(uint64_t *st)
{
    return rng_unit(rng_splitmix64(st));
}

/*
 * One run's absent twins, question by question: the twins are those of `twin` (1 when the
 * depth trial has one); rate the run's hallucination rate; end[i] the twins of questions 0..i
 * (the same in both runs: they share `twin`). Returns the trials written.
 */
static int absent_twins(struct trial_point *t, const unsigned char *twin, int q, double rate,
                        const struct halluc_row *row, const char *axes, unsigned long seed,
                        char ids[][16], int *end)
{
    struct strbuf spec = STRBUF_INIT, err = STRBUF_INIT;
    struct sim_model m;
    uint64_t mix = seed, st = rng_splitmix64(&mix);
    /* the others' rate that keeps the overall one: always + (1 - always) * rest = rate */
    double rest = row->always > 0 ? (rate - row->always) / (1.0 - row->always) : rate;
    int k = 0;
    strbuf_addf(&spec, "m:%s,icc=%g,halluc=%g,seed=%lu", base_spec[0], row->icc, rest, seed);
    if (sim_model_parse(spec.buf, &m, &err)) {
        fprintf(stderr, "gate_rates: %s\n", err.buf);
        exit(1);
    }
    for (int i = 0; i < q; i++) {
        int always = row->always > 0 && unit_draw(&st) < row->always;
        for (int d = 0; d < DEPTHS; d++) {
            double u;
            if (!twin[i * DEPTHS + d])
                continue;
            memset(&t[k], 0, sizeof(t[k]));
            t[k].question_id = ids[i];
            t[k].axes = axes;
            t[k].length = LENGTH;
            t[k].depth_bp = d * 1000;
            /* serve-sim's draw for a twin (sim_generate.c decide_abstain(): x 0, its own salt) */
            u = sim_model_draw(&m, ids[i], 0.0, LENGTH, 0x4a11c0ULL ^ (uint64_t)d);
            t[k].outcome = always || u < m.halluc ? OUTCOME_WRONG : OUTCOME_CORRECT;
            k++;
        }
        end[i] = k;
    }
    sim_model_release(&m);
    strbuf_release(&spec);
    strbuf_release(&err);
    return k;
}

/* The gate's looks at the hallucination endpoint: rounds of SEQ_ROUND up to HALLUC_GATE_MAX. */
#define HALLUC_GATE_MAX   200
#define HALLUC_GATE_LOOKS (HALLUC_GATE_MAX / SEQ_ROUND)

/* The first m questions of a run: its present trials (a prefix), then its twins of them. */
static size_t first_questions(struct trial_point *out, const struct trial_point *t, int n,
                              const int *end, int m)
{
    memcpy(out, t, (size_t)m * DEPTHS * sizeof(*out));
    memcpy(out + m * DEPTHS, t + n, (size_t)end[m - 1] * sizeof(*out));
    return (size_t)m * DEPTHS + (size_t)end[m - 1];
}

/*
 * One row: q questions with compare's fixed design (looks 0), or the sequential gate's rule
 * (looks > 0: rounds of SEQ_ROUND, lv's levels, the questions in the order they entered, stop
 * at the first FAIL or PASS, up to q questions).
 */
static void halluc_rates(int reps, const struct halluc_row *row, int q, int looks,
                         const struct compare_look *lv, unsigned long *seed)
{
    int n = q * DEPTHS, fails = 0, passes = 0, *end;
    long twins = 0;
    double asn = 0;
    char(*ids)[16];
    const char **order;
    char key[160];
    unsigned char *twin;
    struct trial_point *tb, *tc, *lb, *lc;
    struct strbuf axes = STRBUF_INIT;

    snprintf(key, sizeof(key), "halluc/%s", row->name);
    if (only && !strstr(key, only))
        return;
    axes_set(&axes, "", PLAN_ABSENT_AXIS, "yes");
    ids = xcalloc((size_t)q, sizeof(*ids));
    order = xcalloc((size_t)q, sizeof(*order));
    end = xcalloc((size_t)q, sizeof(*end));
    twin = xcalloc((size_t)n, 1);
    tb = xcalloc((size_t)n * 2, sizeof(*tb));
    tc = xcalloc((size_t)n * 2, sizeof(*tc));
    lb = xcalloc((size_t)n * 2, sizeof(*lb));
    lc = xcalloc((size_t)n * 2, sizeof(*lc));
    for (int i = 0; i < q; i++) {
        snprintf(ids[i], sizeof(ids[i]), "q%04d", i);
        order[i] = ids[i];
    }
    for (int rep = 0; rep < reps; rep++) {
        struct sim_model mb, mc;
        uint64_t mix = ++*seed, st = rng_splitmix64(&mix);
        int last = looks > 0 ? looks : 1;
        for (int k = 0; k < n; k++)
            twin[k] = unit_draw(&st) < HALLUC_ABSENT;
        model(&mb, 0, 0.0, 0.0, ++*seed);
        model(&mc, 0, 0.0, 0.0, ++*seed);
        answer(tb, q, &mb, ids);
        answer(tc, q, &mc, ids);
        absent_twins(tb + n, twin, q, row->base, row, axes.buf, ++*seed, ids, end);
        absent_twins(tc + n, twin, q, row->cand, row, axes.buf, ++*seed, ids, end);
        for (int k = 0; k < last; k++) {
            int m = looks > 0 ? (k + 1) * SEQ_ROUND : q;
            size_t nb = first_questions(lb, tb, n, end, m), nc = first_questions(lc, tc, n, end, m);
            struct compare_result r;
            struct compare_options co;
            compare_options_init(&co);
            co.halluc_margin = HALLUC_MARGIN;
            if (looks > 0) {
                compare_look_apply(&lv[k], &co);
                co.order = order;
                co.n_order = (size_t)m;
            }
            compare_runs(lb, nb, lc, nc, &co, &r);
            if (r.verdict == VERDICT_FAIL || r.verdict == VERDICT_PASS || k == last - 1) {
                fails += r.verdict == VERDICT_FAIL && r.halluc_regression;
                passes += r.verdict == VERDICT_PASS;
                asn += m;
                twins += end[m - 1];
                compare_result_release(&r);
                break;
            }
            compare_result_release(&r);
        }
        sim_model_release(&mb);
        sim_model_release(&mc);
    }
    printf("halluc | %s | %s | %d | %.0f | %d | %.1f%% (%.1f) | %.1f%% | %.0f\n",
           looks > 0 ? "gate" : "compare", row->name, q, (double)twins / reps, reps,
           100.0 * fails / reps, mc_se((double)fails / reps, reps), 100.0 * passes / reps,
           asn / reps);
    if (row->check) {
        char what[200];
        snprintf(what, sizeof(what), "hallucination endpoint FAIL rate, %s, %s, %d questions",
                 looks > 0 ? "gate" : "compare", row->name, q);
        check(what, (double)fails / reps);
    }
    fflush(stdout);
    strbuf_release(&axes);
    free(ids);
    free(order);
    free(end);
    free(twin);
    free(tb);
    free(tc);
    free(lb);
    free(lc);
}

int main(int argc, char **argv)
{
    static const int qs[] = {36, 100, 200, 400};
    static const double iccs[] = {0.0, 0.3};
    static const int halluc_qs[] = {100, 200};
    /* the sequential gate's rows: unchanged 30%, +10 pp (= margin), +20 pp, the 30% skew */
    static const size_t halluc_gate_rows[] = {1, 5, 7, 11};
    int reps = argc > 1 ? atoi(argv[1]) : 200, seq_reps = argc > 2 ? atoi(argv[2]) : 100;
    int halluc_reps = argc > 5 ? atoi(argv[5]) : 400;
    only = argc > 4 ? argv[4] : NULL;
    unsigned long seed = argc > 3 ? strtoul(argv[3], NULL, 10) : 29000;
    double t[SEQ_LOOKS];
    struct compare_look lv[SEQ_LOOKS];

    printf("design | baseline | scenario | questions | icc | replicates | FAIL (MC se) | "
           "PASS (MC se) | INCONCLUSIVE\n");
    for (int b = 0; b < 2 && reps > 0; b++)
        for (size_t c = 0; c < N_SCENARIOS; c++)
            for (size_t i = 0; i < sizeof(iccs) / sizeof(*iccs); i++)
                for (size_t a = 0; a < sizeof(qs) / sizeof(*qs); a++) {
                    if (scenarios[c].kind == EDGES && b == 0)
                        continue; /* the high baseline's edges cannot gain 8 pp */
                    fixed_rates(reps, b, iccs[i], &scenarios[c], qs[a], &seed);
                }
    if (reps > 0 && !only)
        for (int b = 0; b < 2; b++)
            frozen(20, reps / 8 > 10 ? reps / 8 : 10, b, 0.3, 200, &seed);

    if (halluc_reps > 0) {
        printf("\nhallucination endpoint (margin %.0f pp, run --absent %g, compare's defaults "
               "otherwise)\nendpoint | design | scenario | questions (cap) | absent twins (mean) | "
               "replicates | "
               "FAIL by it (MC se) | PASS | mean questions\n",
               100.0 * HALLUC_MARGIN, HALLUC_ABSENT);
        for (size_t h = 0; h < N_HALLUC_ROWS; h++)
            for (size_t a = 0; a < sizeof(halluc_qs) / sizeof(*halluc_qs); a++)
                halluc_rates(halluc_reps, &halluc_rows[h], halluc_qs[a], 0, NULL, &seed);
        for (int k = 0; k < HALLUC_GATE_LOOKS; k++)
            t[k] = (double)(k + 1) / HALLUC_GATE_LOOKS;
        for (int k = 0; k < HALLUC_GATE_LOOKS; k++)
            compare_look_levels(SEQ_SPEND_POCOCK, 0.05, t, (size_t)k, COMPARE_N_ENDPOINTS, &lv[k]);
        for (size_t h = 0; h < sizeof(halluc_gate_rows) / sizeof(*halluc_gate_rows); h++)
            halluc_rates(halluc_reps, &halluc_rows[halluc_gate_rows[h]], HALLUC_GATE_MAX,
                         HALLUC_GATE_LOOKS, lv, &seed);
    }

    for (int k = 0; k < SEQ_LOOKS; k++)
        t[k] = (double)(k + 1) / SEQ_LOOKS;
    for (int k = 0; k < SEQ_LOOKS; k++)
        compare_look_levels(SEQ_SPEND_POCOCK, 0.05, t, (size_t)k, COMPARE_N_ENDPOINTS, &lv[k]);
    printf("\nsequential gate (rounds of %d, at most %d questions, the questions in the order "
           "they entered)\n",
           SEQ_ROUND, SEQ_MAX);
    for (int b = 0; b < 2 && seq_reps > 0; b++)
        for (size_t c = 0; c < N_SCENARIOS; c++)
            for (size_t i = 0; i < sizeof(iccs) / sizeof(*iccs); i++) {
                if (scenarios[c].kind == EDGES && b == 0)
                    continue;
                sequential(seq_reps, b, iccs[i], &scenarios[c], &seed, lv);
            }
    return criteria_failed;
}

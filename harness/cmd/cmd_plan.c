/*
 * `dipmap plan`: power of `dipmap compare` for a trial matrix (power.h):
 * the minimum drop detected at 80% power per primary endpoint (per length:
 * all depths, middle, dip), per cell (secondary) and overall, the questions
 * a target drop needs (--detect), the chance an unchanged model PASSes and
 * the questions it needs to, and the chance of FAIL, PASS and INCONCLUSIVE
 * for a drop profile (--power). Accuracies are assumed (--accuracy: one, or
 * one per depth) or measured per cell from an earlier run (--pilot RUN).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "prompt/dataset.h"
#include "base/num.h"
#include "base/opt.h"
#include "run/plan.h"
#include "stats/compare_seq.h"
#include "stats/power.h"
#include "stats/stats.h"
#include "store/store.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/usage.h"
#include "base/xalloc.h"

#include "base/banned.h"

static const char *const plan_usage[] = {
    "dipmap plan (--dataset FILE | --questions N) [--lengths L] [--depths D] [--repeats R] "
    "[options]",
    "dipmap plan --pilot RUN [--db FILE] [options]",
    NULL,
};

struct plan_opts {
    const char *dataset, *lengths, *depths, *pilot, *db, *detect, *power, *accuracy, *gate;
    long questions, repeats, iters, seed, round, gates;
    double alpha, tolerance, discordance, icc;
};

/*
 * --power: "10pp" (every depth), "10pp@25-75" (depths in 25..75%), or one drop per depth; *read
 * gets the drops as read, in pp (0.1, 10pp and 10% all read "10.0 pp").
 */
static int parse_power(const char *spec, const struct power_cell *cells, size_t n, size_t ndepths,
                       double *drop, struct strbuf *read, struct strbuf *err)
{
    struct strvec parts = STRVEC_INIT;
    const char *at = strchr(spec, '@');
    size_t i;
    int rc = 0;
    if (strchr(spec, ',')) {
        strvec_split(&parts, spec, ',');
        if (parts.nr != ndepths) {
            strbuf_addf(err, "--power: %zu drops for %zu depths (give one per depth)", parts.nr,
                        ndepths);
            rc = -1;
        }
        for (i = 0; !rc && i < n; i++)
            rc = power_parse_drop(parts.v[i % ndepths], &drop[i], err);
        for (i = 0; !rc && i < ndepths && i < n; i++)
            strbuf_addf(read, "%s%.1f", i ? ", " : "", drop[i] * 100.0);
        strbuf_addstr(read, " pp (one per depth)");
    } else {
        struct strbuf d = STRBUF_INIT;
        double v, lo = 0.0, hi = 100.0;
        strbuf_add(&d, spec, at ? (size_t)(at - spec) : strlen(spec));
        rc = power_parse_drop(d.buf, &v, err);
        if (!rc && at) {
            char *dash = strchr(at + 1, '-');
            struct strbuf a = STRBUF_INIT;
            if (dash)
                strbuf_add(&a, at + 1, (size_t)(dash - at - 1));
            if (!dash || parse_double(a.buf, &lo) || parse_double(dash + 1, &hi) || lo > hi) {
                strbuf_addf(err, "--power: '%s': expected DROP@LO-HI with depths in %%", spec);
                rc = -1;
            }
            strbuf_release(&a);
        }
        strbuf_addf(read, "%.1f pp", v * 100.0);
        if (at)
            strbuf_addf(read, " at depths %g-%g%%", lo, hi);
        for (i = 0; !rc && i < n; i++) {
            double dp = cells[i].depth_bp / 100.0;
            drop[i] = dp >= lo - 1e-9 && dp <= hi + 1e-9 ? v : 0.0;
        }
        strbuf_release(&d);
    }
    for (i = 0; !rc && i < n; i++)
        if (drop[i] > cells[i].accuracy + 1e-12) {
            strbuf_addf(err, "--power: a drop of %.1f pp at a cell of accuracy %.1f%%",
                        drop[i] * 100.0, cells[i].accuracy * 100.0);
            rc = -1;
        }
    strvec_clear(&parts);
    return rc;
}

/* Cells of the matrix from the pilot run's statistics (its own lengths and depths). */
static int pilot_cells(const struct plan_opts *o, struct power_cell **cells, size_t *n,
                       size_t *questions, int *repeats)
{
    struct store *st = store_open(store_default_path(o->db), STORE_READONLY);
    struct trial_point_set t = TRIAL_POINT_SET_INIT;
    size_t i;
    struct run_stats rs;
    struct stats_options so;
    int lr;
    if (!st)
        return -1;
    lr = store_points_load(st, o->pilot, &t);
    if (lr) {
        trial_point_set_release(&t);
        if (lr > 0)
            error("plan: no run named '%s' in %s", o->pilot, store_path(st));
        store_close(st);
        return -1;
    }
    stats_options_init(&so);
    so.bootstrap_iters = 0;
    if (stats_compute(t.v, t.nr, &so, &rs, NULL) < 0 || !rs.n_valid) {
        error("plan: run '%s' has no scored trials to measure accuracy from", o->pilot);
        trial_point_set_release(&t);
        store_close(st);
        return -1;
    }
    *cells = xcalloc(rs.n_cells + 1, sizeof(**cells));
    *n = 0;
    for (i = 0; i < rs.n_cells; i++) {
        const struct cell_stats *c = &rs.cells[i];
        struct power_cell *pc = &(*cells)[(*n)++];
        pc->length = c->length;
        pc->depth_bp = c->depth_bp;
        pc->accuracy = c->n_valid ? c->accuracy : rs.accuracy;
    }
    *questions = rs.n_questions;
    *repeats = rs.n_repeats > 0 ? rs.n_repeats : 1;
    run_stats_release(&rs);
    trial_point_set_release(&t);
    store_close(st);
    return 0;
}

/*
 * --accuracy: one accuracy for every cell, or one per depth (in the order of
 * --depths) into acc[0..nd-1]. Returns 0 or -1 (error printed).
 */
static int parse_accuracy(const char *spec, size_t nd, double *acc)
{
    struct strvec parts = STRVEC_INIT;
    size_t i;
    int rc = 0;
    strvec_split(&parts, spec, ',');
    if (parts.nr != 1 && parts.nr != nd)
        rc = error("plan: --accuracy: %zu values for %zu depths (give one, or one per depth)",
                   parts.nr, nd);
    for (i = 0; !rc && i < nd; i++) {
        const char *v = parts.v[parts.nr == 1 ? 0 : i];
        if (parse_double(v, &acc[i]) || !(acc[i] >= 0.0 && acc[i] <= 1.0))
            rc = error("plan: --accuracy: '%s' is not an accuracy in [0,1]", v);
    }
    strvec_clear(&parts);
    return rc;
}

static int assumed_cells(const struct plan_opts *o, struct power_cell **cells, size_t *n,
                         size_t *questions)
{
    long *lengths = NULL;
    int *depths = NULL;
    double *acc = NULL;
    size_t nl = 0, nd = 0, i, j;
    struct strbuf err = STRBUF_INIT;
    if (plan_parse_lengths(o->lengths, &lengths, &nl, &err) < 0 ||
        plan_parse_depths(o->depths, &depths, &nd, &err) < 0) {
        error("plan: %s", err.buf);
        strbuf_release(&err);
        free(lengths);
        free(depths);
        return -1;
    }
    strbuf_release(&err);
    acc = xcalloc(nd + 1, sizeof(*acc));
    if (parse_accuracy(o->accuracy ? o->accuracy : "0.7", nd, acc) < 0) {
        free(lengths);
        free(depths);
        free(acc);
        return -1;
    }
    if (o->dataset) {
        struct golden_set gs;
        if (golden_set_load(&gs, o->dataset) < 0) {
            free(lengths);
            free(depths);
            free(acc);
            return -1;
        }
        *questions = gs.nr;
        golden_set_release(&gs);
    } else {
        *questions = (size_t)o->questions;
    }
    /* sorted by (length, depth) like compare's tests */
    for (i = 1; i < nl; i++)
        for (j = i; j > 0 && lengths[j - 1] > lengths[j]; j--) {
            long tmp = lengths[j];
            lengths[j] = lengths[j - 1];
            lengths[j - 1] = tmp;
        }
    for (i = 1; i < nd; i++)
        for (j = i; j > 0 && depths[j - 1] > depths[j]; j--) {
            int tmp = depths[j];
            double ta = acc[j];
            depths[j] = depths[j - 1];
            depths[j - 1] = tmp;
            acc[j] = acc[j - 1];
            acc[j - 1] = ta;
        }
    *cells = xcalloc(st_mult(nl, nd) + 1, sizeof(**cells));
    *n = 0;
    for (i = 0; i < nl; i++)
        for (j = 0; j < nd; j++) {
            struct power_cell *c = &(*cells)[(*n)++];
            c->length = lengths[i];
            c->depth_bp = depths[j];
            c->accuracy = acc[j];
        }
    free(lengths);
    free(depths);
    free(acc);
    return 0;
}

static void plan_opts_init(struct plan_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->lengths = PLAN_DEFAULT_LENGTHS;
    o->depths = PLAN_DEFAULT_DEPTHS;
    o->repeats = 1;
    o->alpha = COMPARE_DEFAULT_ALPHA;
    o->tolerance = COMPARE_DEFAULT_TOLERANCE;
    o->discordance = -1.0;
    o->iters = 20000;
    o->seed = 1;
    o->round = SEQ_DEFAULT_ROUND;
    o->gates = 200;
}

/*
 * The option table (dipmap help plan prints it) and where the question count comes from:
 * 0, 1 after help, -1 after an error.
 */
static int plan_parse(struct plan_opts *o, int argc, const char **argv)
{
    struct option opts[] = {
        OPT_GROUP("the matrix (as dipmap run takes it)"),
        OPT_STRING('d', "dataset", &o->dataset, "FILE", "golden set: its question count"),
        OPT_LONG('q', "questions", &o->questions, "N", "questions (instead of --dataset)"),
        OPT_STRING('l', "lengths", &o->lengths, "LIST",
                   "prompt lengths (default " PLAN_DEFAULT_LENGTHS ")"),
        OPT_STRING(0, "depths", &o->depths, "SPEC",
                   "depths in % (default " PLAN_DEFAULT_DEPTHS ")"),
        OPT_LONG(0, "repeats", &o->repeats, "N", "repeats per cell (default 1)"),
        OPT_GROUP("compare's settings"),
        OPT_ALPHA(&o->alpha),
        OPT_TOLERANCE(&o->tolerance),
        OPT_GROUP("what the model does"),
        OPT_STRING(0, "accuracy", &o->accuracy, "A",
                   "assumed baseline accuracy of every cell (default 0.7), or one per depth "
                   "(0.99,0.95,...)"),
        OPT_DOUBLE(0, "discordance", &o->discordance, "D",
                   "share of pairs that differ between the runs (default: independent draws, "
                   "p(1-q)+q(1-p))"),
        OPT_DOUBLE(0, "icc", &o->icc, "R",
                   "correlation of two pairs' differences within a question (default 0)"),
        OPT_STRING(0, "pilot", &o->pilot, "RUN",
                   "measure accuracy per cell (and the matrix) from this run"),
        OPT_DB(&o->db, "store of --pilot"),
        OPT_GROUP("questions"),
        OPT_STRING(0, "detect", &o->detect, "DROP",
                   "also print the questions needed to detect DROP (e.g. 5pp) at 80% power"),
        OPT_STRING(
            0, "power", &o->power, "SPEC",
            "chance that compare says FAIL, PASS or INCONCLUSIVE for a drop: 10pp, 10pp@25-75 "
            "(depths in %) or one drop per depth"),
        OPT_STRING(0, "gate", &o->gate, "WHAT",
                   "what fails the gate, as compare --gate: primary (default) or cells"),
        OPT_LONG(0, "iterations", &o->iters, "N",
                 "Monte Carlo draws of --power and the PASS sizes (20000)"),
        OPT_LONG(0, "seed", &o->seed, "N", "Monte Carlo seed (default 1)"),
        OPT_GROUP("the sequential gate (dipmap gate), simulated"),
        OPT_LONG(0, "round", &o->round, "N",
                 "questions per round, as dipmap gate --round "
                 "(default " OPT_DEFAULT(SEQ_DEFAULT_ROUND) "); the cap is the questions"),
        OPT_LONG(
            0, "gates", &o->gates, "N",
            "gates simulated with compare's own tests (default 200; 0: only the normal model)"),
        OPT_END(),
    };
    struct strvec rest = STRVEC_INIT;
    int rc = parse_options(argc, argv, opts, plan_usage, &rest);

    if (rc) {
        strvec_clear(&rest);
        return rc;
    }
    if (rest.nr)
        rc = error("plan: unexpected argument '%s'", rest.v[0]);
    else if (o->pilot && (opt_find(opts, "lengths")->seen || opt_find(opts, "depths")->seen ||
                          opt_find(opts, "accuracy")->seen || o->dataset))
        rc = error("plan: --pilot takes the matrix and accuracies from the run; drop --lengths, "
                   "--depths, --dataset and --accuracy");
    else if (!o->pilot && !o->dataset && !opt_find(opts, "questions")->seen)
        rc = error("plan: how many questions? give --dataset FILE, --questions N or --pilot RUN");
    else if (opt_find(opts, "questions")->seen && o->dataset && !o->pilot)
        rc = error("plan: give --dataset or --questions, not both");
    strvec_clear(&rest);
    return rc;
}

/* The ranges, and --detect as a drop (into *target). */
static int plan_check(const struct plan_opts *o, double *target)
{
    struct strbuf err = STRBUF_INIT;
    int rc = 0;

    if (o->questions < 0 || o->questions > 1000000 || o->repeats < 1 || o->repeats > 10000)
        return error("plan: --questions must be 1..1000000 and --repeats 1..10000");
    if (!(o->alpha > 0 && o->alpha < 1) || !(o->tolerance >= 0 && o->tolerance < 1) ||
        !(o->icc >= 0 && o->icc <= 1) || (o->discordance >= 0 && o->discordance > 1) ||
        o->iters < 100 || o->iters > 10000000 || o->seed < 1 || o->round < 1 || o->gates < 0 ||
        o->gates > 100000)
        return error("plan: --alpha must be in (0,1), --tolerance in [0,1), --icc and "
                     "--discordance in [0,1], --iterations 100..10000000, --seed >= 1, --round "
                     ">= 1, --gates 0..100000");
    if (o->gate && strcmp(o->gate, "primary") && strcmp(o->gate, "cells"))
        return error("plan: --gate: '%s' is not primary or cells", o->gate);
    if (o->detect && power_parse_drop(o->detect, target, &err) < 0)
        rc = error("plan: --detect: %s", err.buf);
    else if (o->detect && !(*target > 0))
        rc = error("plan: --detect must be a drop above 0");
    strbuf_release(&err);
    return rc;
}

/* --power: compare's verdict rates for the drop, and with no drop, by Monte Carlo. */
static int plan_power(const struct plan_opts *o, const struct power_spec *spec, size_t ndepths,
                      struct strbuf *out)
{
    size_t n = spec->n_cells;
    double *drop = xcalloc(n + 1, sizeof(double));
    double *zero = xcalloc(n + 1, sizeof(double));
    struct strbuf err = STRBUF_INIT, read = STRBUF_INIT;
    struct power_verdicts v, v0;
    int rc = 0;

    if (parse_power(o->power, spec->cells, n, ndepths, drop, &read, &err) < 0) {
        rc = error("plan: %s", err.buf);
    } else {
        power_verdict_rates(spec, drop, (unsigned)o->iters, (unsigned long long)o->seed, &v);
        power_verdict_rates(spec, zero, (unsigned)o->iters, (unsigned long long)o->seed, &v0);
        strbuf_addf(out,
                    "power: compare says FAIL with probability %.1f%%, PASS %.1f%%, "
                    "INCONCLUSIVE %.1f%% for the drop %s; with no drop FAIL %.1f%%, PASS "
                    "%.1f%% (%s; %ld Monte Carlo draws, seed %ld)\n",
                    v.fail * 100.0, v.pass * 100.0, v.inconclusive * 100.0, read.buf,
                    v0.fail * 100.0, v0.pass * 100.0,
                    spec->gate == POWER_GATE_CELLS
                        ? "--gate cells: a primary or a cell regression fails"
                        : "a primary regression fails, the cells do not",
                    o->iters, o->seed);
        if (spec->gate_reps) {
            struct power_gate_rates g;
            power_gate_simulate(spec, drop, spec->gate_reps, (unsigned long long)o->seed, &g);
            strbuf_addf(out, "power: for the drop %s, ", read.buf);
            power_gate_line(spec, &g, out);
            strbuf_addch(out, '\n');
        }
    }
    free(drop);
    free(zero);
    strbuf_release(&err);
    strbuf_release(&read);
    return rc;
}

int cmd_plan(int argc, const char **argv)
{
    struct plan_opts o;
    struct power_cell *cells = NULL;
    struct power_spec spec;
    struct strbuf out = STRBUF_INIT;
    size_t n = 0, questions = 0, ndepths = 0, i;
    int repeats, prc, rc = DM_EXIT_USAGE;
    double target = 0.0;

    plan_opts_init(&o);
    prc = plan_parse(&o, argc, argv);
    if (prc)
        return parse_options_exit(prc);
    if (plan_check(&o, &target) < 0)
        goto cleanup;
    repeats = (int)o.repeats;
    if (o.pilot ? pilot_cells(&o, &cells, &n, &questions, &repeats)
                : assumed_cells(&o, &cells, &n, &questions))
        goto cleanup;
    if (!questions) {
        error("plan: no questions");
        goto cleanup;
    }
    if (o.pilot && o.repeats > 1)
        repeats = (int)o.repeats; /* plan more repeats than the pilot had */
    for (i = 0; i < n && cells[i].length == cells[0].length; i++)
        ndepths++;
    memset(&spec, 0, sizeof(spec));
    spec.questions = questions;
    spec.repeats = repeats;
    spec.alpha = o.alpha;
    spec.tolerance = o.tolerance;
    spec.icc = o.icc;
    spec.discordance = o.discordance;
    spec.cells = cells;
    spec.n_cells = n;
    spec.gate = o.gate && !strcmp(o.gate, "cells") ? POWER_GATE_CELLS : POWER_GATE_PRIMARY;
    spec.iters = (unsigned)o.iters;
    spec.seed = (unsigned long long)o.seed;
    spec.gate_reps = (unsigned)o.gates;
    spec.round = (size_t)o.round;
    if (o.pilot)
        strbuf_addf(&out, "accuracy per cell measured from run '%s' (%zu questions)\n", o.pilot,
                    questions);
    else if (!o.accuracy || !strchr(o.accuracy, ','))
        strbuf_addf(&out, "assumed accuracy %.1f%% in every cell (--accuracy)\n",
                    cells[0].accuracy * 100.0);
    else {
        strbuf_addstr(&out, "assumed accuracy per depth (--accuracy):");
        for (i = 0; i < ndepths; i++)
            strbuf_addf(&out, " %.1f%%", cells[i].accuracy * 100.0);
        strbuf_addch(&out, '\n');
    }
    if (o.discordance >= 0)
        strbuf_addf(&out, "discordance %.3f of pairs (--discordance); icc %g\n", o.discordance,
                    o.icc);
    else
        strbuf_addf(&out, "discordance of independent draws, p(1-q)+q(1-p); icc %g\n", o.icc);
    power_summary(&spec, target, &out);
    if (o.power && plan_power(&o, &spec, ndepths, &out) < 0)
        goto cleanup;
    fputs(out.buf, stdout);
    rc = DM_EXIT_OK;
cleanup:
    free(cells);
    strbuf_release(&out);
    return rc;
}

/*
 * `dipmap gate`: the sequential regression gate. Maps the baseline and the
 * candidate in rounds of questions (the first n of an order fixed by --seed,
 * through `dipmap run --questions n`, so a round resumes like a run), compares
 * the questions so far after every round (compare.c's primary endpoints at the
 * round's group-sequential levels, sequential.h) and stops as soon as the
 * verdict is decided. Every round's state is kept in the store (gate_rounds)
 * and in compare.json; exit 0 PASS, 1 FAIL, 4 INCONCLUSIVE.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/json.h"
#include "base/opt.h"
#include "base/secret.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/usage.h"
#include "base/xalloc.h"
#include "cmd/builtin.h"
#include "prompt/dataset.h"
#include "prompt/prompt.h"
#include "report/plot.h"
#include "report/report.h"
#include "run/plan.h"
#include "run/runner.h"
#include "stats/compare_seq.h"
#include "store/store.h"
#include "tokenizer/tokenizer.h"

#include "base/banned.h"

static const char *const gate_usage[] = {
    "dipmap gate --endpoint URL --baseline-model A --model B --dataset FILE [--lengths L] "
    "[--round N] [--max-questions N] [options]",
    NULL,
};

struct gate_cmd {
    /* options as given */
    const char *endpoint, *baseline_endpoint, *model, *baseline_model, *dataset, *haystack;
    const char *lengths, *depths, *tmpl, *tokenizer, *scorer, *db, *name, *reuse, *api_key_env;
    const char *junit, *json, *out_dir, *spending_s, *progress;
    long repeats, seed, concurrency, round, max_questions, max_tokens;
    double alpha, tolerance, fail_margin;
    double halluc_margin; /* --hallucination-margin (< 0: off) */
    struct strvec run_args;
    struct strvec rest;

    /* derived */
    enum seq_spending spending;
    struct golden_set gs;
    int have_gs;
    size_t *order; /* the seeded question order (plan_question_order) */
    size_t nmax;   /* questions at the last look: min(--max-questions, the set) */
    size_t looks;  /* rounds planned */
    double *t;     /* information fraction of each look */
    struct strbuf base_run, cand_run, db_path;
    char *settings;       /* the gate's identity (JSON), compared on resume */
    struct strvec stored; /* the rounds' states kept in the store */

    /* the last round analysed */
    struct trial_point_set bt, ct;
    struct compare_result res;
    int have_res;
    struct run_info bi, ci;
    struct json *rounds; /* every round's state, for compare.json */
    const char *decision;
    size_t decided_round;
};

static int gate_parse(struct gate_cmd *c, int argc, const char **argv)
{
    struct option opts[] = {
        OPT_GROUP("what to map (as dipmap run)"),
        OPT_STRING('e', "endpoint", &c->endpoint, "URL",
                   "OpenAI-compatible base URL of the candidate (and of the baseline)"),
        OPT_STRING(0, "baseline-endpoint", &c->baseline_endpoint, "URL",
                   "the baseline's URL when not --endpoint"),
        OPT_STRING(0, "baseline-model", &c->baseline_model, "NAME", "the baseline model"),
        OPT_STRING('m', "model", &c->model, "NAME", "the candidate model"),
        OPT_STRING('d', "dataset", &c->dataset, "FILE", "golden set (JSONL)"),
        OPT_STRING(0, "haystack", &c->haystack, "FILE", "filler chunks"),
        OPT_STRING('l', "lengths", &c->lengths, "LIST",
                   "prompt lengths (default " PLAN_DEFAULT_LENGTHS ")"),
        OPT_STRING(0, "depths", &c->depths, "SPEC",
                   "gold depths (default " PLAN_DEFAULT_DEPTHS ")"),
        OPT_LONG(0, "repeats", &c->repeats, "N", "distractor orders per cell (default 1)"),
        OPT_STRING(0, "template", &c->tmpl, "FILE|NAME",
                   "prompt template (default " PROMPT_DEFAULT_TEMPLATE ")"),
        OPT_STRING('t', "tokenizer", &c->tokenizer, "NAME|FILE|server",
                   "counts lengths (default " TOKENIZER_DEFAULT ")"),
        OPT_STRING(0, "scorer", &c->scorer, "NAME", "scorer (default contains)"),
        OPT_LONG(0, "seed", &c->seed, "N",
                 "run seed: distractors and the order questions enter the rounds in (default 0)"),
        OPT_LONG('c', "concurrency", &c->concurrency, "N",
                 "requests in flight (default " OPT_DEFAULT(RUNNER_DEFAULT_CONCURRENCY) ")"),
        OPT_LONG(0, "max-tokens", &c->max_tokens, "N",
                 "answer budget (default " OPT_DEFAULT(CLIENT_DEFAULT_MAX_TOKENS) ")"),
        OPT_STRING(0, "api-key-env", &c->api_key_env, "VAR",
                   "environment variable holding the API key (default " SECRET_DEFAULT_KEY_ENV ")"),
        OPT_STRING(
            0, "reuse", &c->reuse, "DB|RUN",
            "baseline answers of byte-identical requests from store DB or run RUN (run --reuse): "
            "not sent again"),
        OPT_LIST(0, "run-arg", &c->run_args, "ARG",
                 "one more argument for both runs, e.g. --run-arg=--no-cache-reuse (repeatable)"),
        OPT_STRING(
            0, "progress", &c->progress, "MODE",
            "the runs' progress: auto, bar, lines or none (default none; the gate prints a line "
            "per round)"),
        OPT_GROUP("the sequential design"),
        OPT_LONG(0, "round", &c->round, "N",
                 "questions added per round (default " OPT_DEFAULT(SEQ_DEFAULT_ROUND) ")"),
        OPT_LONG(0, "max-questions", &c->max_questions, "N",
                 "cap on the questions mapped (default the golden set); reaching it undecided is "
                 "INCONCLUSIVE"),
        OPT_DOUBLE(
            0, "alpha", &c->alpha, "A",
            "error rate of FAIL on no change and of PASS on a drop >= tolerance, over every round "
            "(default " OPT_DEFAULT(COMPARE_DEFAULT_ALPHA) ")"),
        OPT_TOLERANCE(&c->tolerance),
        OPT_FAIL_MARGIN(&c->fail_margin),
        OPT_POINTS(
            0, "hallucination-margin", &c->halluc_margin, "D",
            "also FAIL when the candidate's hallucination rate on needle-absent trials (both runs "
            "with --run-arg=--absent=P) is higher by more than D, absolute (default: not tested)"),
        OPT_STRING(0, "spending", &c->spending_s, "pocock|obf",
                   "kept for gates started with it: the rounds' tests are anytime-valid and spend "
                   "nothing, so it changes no level"),
        OPT_GROUP("store and output"),
        OPT_DB(&c->db, "SQLite store"),
        OPT_STRING(0, "name", &c->name, "NAME",
                   "the gate: its runs are NAME-baseline and NAME-candidate (default gate)"),
        OPT_STRING(0, "junit", &c->junit, "FILE", "write JUnit XML at the end"),
        OPT_STRING(0, "json", &c->json, "FILE",
                   "write compare.json with every round (\"sequential\") at the end"),
        OPT_STRING(0, "out", &c->out_dir, "DIR",
                   "write compare.md, compare.json and junit.xml into DIR"),
        OPT_END(),
    };
    int pr = parse_options(argc, argv, opts, gate_usage, &c->rest);
    if (pr)
        return parse_options_exit(pr);
    return -1;
}

static int gate_check(struct gate_cmd *c)
{
    if (c->rest.nr)
        return error("gate: unexpected argument '%s'", c->rest.v[0]);
    if (!c->endpoint || !c->model || !c->baseline_model || !c->dataset)
        return error("gate needs --endpoint, --baseline-model, --model and --dataset");
    if (!strcmp(c->model, c->baseline_model) &&
        (!c->baseline_endpoint || !strcmp(c->baseline_endpoint, c->endpoint)))
        warning("gate: baseline and candidate are the same model at the same endpoint");
    if (c->round < 1)
        return error("--round must be at least 1, not %ld", c->round);
    if (c->max_questions < 0)
        return error("--max-questions must be at least 1, not %ld", c->max_questions);
    if (!(c->alpha > 0 && c->alpha < 0.5))
        return error("--alpha must be above 0 and below 0.5, not %g", c->alpha);
    if (!(c->tolerance >= 0 && c->tolerance <= 1))
        return error("--tolerance must be between 0 and 1 (an absolute accuracy drop), not %g",
                     c->tolerance);
    if (c->fail_margin >= 0 && !(c->fail_margin <= c->tolerance))
        return error("--fail-margin must be between 0 and the tolerance (%g), not %g", c->tolerance,
                     c->fail_margin);
    if (c->halluc_margin >= 0 && !(c->halluc_margin <= 1))
        return error("--hallucination-margin must be between 0 and 1 (an absolute rise of the "
                     "hallucination rate), not %g",
                     c->halluc_margin);
    if (c->spending_s && seq_spending_parse(c->spending_s, &c->spending))
        return error("--spending must be pocock or obf, not '%s'", c->spending_s);
    if (c->name && (!*c->name || c->name[0] == '-'))
        return error("--name must be non-empty and not start with '-'");
    return 0;
}

/* The golden set, the question order and the looks: n_k = min(k round, nmax), t_k = n_k/nmax. */
static int gate_design(struct gate_cmd *c)
{
    if (golden_set_load(&c->gs, c->dataset) < 0)
        return -1;
    c->have_gs = 1;
    if (!c->gs.nr)
        return error("%s: the golden set has no questions", c->dataset);
    c->nmax = c->max_questions > 0 && (size_t)c->max_questions < c->gs.nr ? (size_t)c->max_questions
                                                                          : c->gs.nr;
    if (c->max_questions > 0 && (size_t)c->max_questions > c->gs.nr)
        warning("gate: --max-questions %ld is more than the golden set's %zu questions: the gate "
                "stops at %zu (every question of %s)",
                c->max_questions, c->gs.nr, c->gs.nr, c->dataset);
    c->looks = (c->nmax + (size_t)c->round - 1) / (size_t)c->round;
    c->t = xcalloc(c->looks, sizeof(double));
    for (size_t k = 0; k < c->looks; k++) {
        size_t n = (k + 1) * (size_t)c->round;
        c->t[k] = (double)(n < c->nmax ? n : c->nmax) / (double)c->nmax;
    }
    c->order = plan_question_order(&c->gs, (unsigned long)c->seed);
    strbuf_addf(&c->base_run, "%s-baseline", c->name);
    strbuf_addf(&c->cand_run, "%s-candidate", c->name);
    strbuf_addstr(&c->db_path, store_default_path(c->db));
    {
        struct json *s = json_new_object();
        json_add_num(s, "alpha", c->alpha);
        json_add_str(s, "baseline_model", c->baseline_model);
        json_add_num(s, "fail_margin", c->fail_margin >= 0 ? c->fail_margin : c->tolerance / 2);
        json_add_str(s, "candidate_model", c->model);
        json_add_str(s, "golden_sha256", c->gs.sha256);
        if (c->halluc_margin >= 0) /* only when given: gates started before keep their identity */
            json_add_num(s, "hallucination_margin", c->halluc_margin);
        json_add_num(s, "max_questions", (double)c->nmax);
        json_add_num(s, "round", (double)c->round);
        json_add_num(s, "seed", (double)c->seed);
        json_add_str(s, "spending", seq_spending_name(c->spending));
        json_add_num(s, "tolerance", c->tolerance);
        c->settings = json_print_str(s, 0);
        json_free(s);
    }
    return 0;
}

static size_t look_questions(const struct gate_cmd *c, size_t k)
{
    size_t n = (k + 1) * (size_t)c->round;
    return n < c->nmax ? n : c->nmax;
}

/* The rounds already recorded; refuses a gate started with other settings. */
static int gate_resume(struct gate_cmd *c)
{
    struct store *st = store_open(c->db_path.buf, STORE_CREATE);
    int n;
    if (!st)
        return -1;
    n = store_gate_rounds(st, c->name, &c->stored);
    store_close(st);
    if (n < 0)
        return -1;
    if (n > 0) {
        struct json *first = json_parse_str(c->stored.v[0]), *want = json_parse_str(c->settings);
        const struct json *have = first ? json_get(first, "settings") : NULL;
        int same = have && want && json_equal(have, want);
        json_free(first);
        json_free(want);
        if (!same) {
            error("gate '%s' in %s was started with other settings (models, golden set, "
                  "--round, --max-questions, --seed, --alpha, --tolerance, --fail-margin or "
                  "--spending)",
                  c->name, c->db_path.buf);
            fprintf(stderr, "hint: use the original options, or start another gate with --name\n");
            return -1;
        }
        fprintf(stderr, "gate '%s': resuming after round %d of %zu\n", c->name, n, c->looks);
    }
    return 0;
}

/* "--name" and its value onto av, when the value is given. */
static void push_opt(struct strvec *av, const char *name, const char *value)
{
    if (!value)
        return;
    strvec_push(av, name);
    strvec_push(av, value);
}

/* `dipmap run` for one side of round k, its stdout (the run summary) sent to stderr. */
static int gate_run(struct gate_cmd *c, int baseline, size_t n)
{
    struct strvec av = STRVEC_INIT;
    int rc, saved;
    strvec_push(&av, "run");
    push_opt(&av, "--endpoint",
             baseline && c->baseline_endpoint ? c->baseline_endpoint : c->endpoint);
    push_opt(&av, "--model", baseline ? c->baseline_model : c->model);
    push_opt(&av, "--dataset", c->dataset);
    push_opt(&av, "--db", c->db_path.buf);
    push_opt(&av, "--run", baseline ? c->base_run.buf : c->cand_run.buf);
    strvec_pushf(&av, "--questions=%zu", n);
    strvec_pushf(&av, "--seed=%ld", c->seed);
    strvec_pushf(&av, "--repeats=%ld", c->repeats);
    strvec_pushf(&av, "--concurrency=%ld", c->concurrency);
    push_opt(&av, "--progress", c->progress ? c->progress : "none");
    if (c->max_tokens > 0)
        strvec_pushf(&av, "--max-tokens=%ld", c->max_tokens);
    push_opt(&av, "--haystack", c->haystack);
    push_opt(&av, "--lengths", c->lengths);
    push_opt(&av, "--depths", c->depths);
    push_opt(&av, "--template", c->tmpl);
    push_opt(&av, "--tokenizer", c->tokenizer);
    push_opt(&av, "--scorer", c->scorer);
    push_opt(&av, "--api-key-env", c->api_key_env);
    if (baseline)
        push_opt(&av, "--reuse", c->reuse);
    for (size_t i = 0; i < c->run_args.nr; i++)
        strvec_push(&av, c->run_args.v[i]);
    fflush(stdout);
    saved = dup(STDOUT_FILENO);
    if (saved >= 0)
        dup2(STDERR_FILENO, STDOUT_FILENO);
    rc = cmd_run((int)av.nr, (const char **)av.v);
    fflush(stdout);
    if (saved >= 0) {
        dup2(saved, STDOUT_FILENO);
        close(saved);
    }
    if (rc)
        error("gate: the %s run '%s' exited %d; running the same gate command again resumes it",
              baseline ? "baseline" : "candidate", baseline ? c->base_run.buf : c->cand_run.buf,
              rc);
    strvec_clear(&av);
    return rc;
}

static void free_trials(struct gate_cmd *c)
{
    trial_point_set_release(&c->bt);
    trial_point_set_release(&c->ct);
}

static int cmp_id(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Keep the trials of the first n questions of the order (the questions of looks 1..k): the
   ids sorted once, each trial found by binary search (was a scan of n ids per trial). */
static void keep_first(struct gate_cmd *c, struct trial_point *v, size_t *nr, size_t n)
{
    const char **ids = xcalloc(n ? n : 1, sizeof(*ids));
    size_t kept = 0;
    for (size_t j = 0; j < n; j++)
        ids[j] = c->gs.q[c->order[j]].id;
    qsort(ids, n, sizeof(*ids), cmp_id);
    for (size_t i = 0; i < *nr; i++) {
        const char *id = v[i].question_id;
        if (id && bsearch(&id, ids, n, sizeof(*ids), cmp_id))
            v[kept++] = v[i];
    }
    *nr = kept;
    free(ids);
}

/* Compare the first look_questions(k) questions at look k's levels; fills c->res. */
static int gate_analyse(struct gate_cmd *c, size_t k, struct json **state)
{
    struct store *st = store_open(c->db_path.buf, STORE_READONLY);
    struct compare_options co;
    struct compare_look lv;
    size_t n = look_questions(c, k);
    long sent = 0;
    struct json *s, *eps;
    const char **order = NULL;
    int ret = -1;

    if (!st)
        return -1;
    free_trials(c);
    run_info_release(&c->bi);
    run_info_release(&c->ci);
    run_info_init(&c->bi);
    run_info_init(&c->ci);
    if (store_run_get(st, c->base_run.buf, &c->bi) || store_run_get(st, c->cand_run.buf, &c->ci) ||
        store_points_load(st, c->base_run.buf, &c->bt) ||
        store_points_load(st, c->cand_run.buf, &c->ct)) {
        error("gate: cannot read the runs of round %zu from %s", k + 1, c->db_path.buf);
        goto out;
    }
    keep_first(c, c->bt.v, &c->bt.nr, n);
    keep_first(c, c->ct.v, &c->ct.nr, n);
    for (size_t i = 0; i < c->bt.nr; i++)
        sent += !c->bt.v[i].reused;
    for (size_t i = 0; i < c->ct.nr; i++)
        sent += !c->ct.v[i].reused;

    compare_options_init(&co);
    co.tolerance = c->tolerance;
    co.alpha = c->alpha;
    co.fail_margin = c->fail_margin;
    co.halluc_margin = c->halluc_margin;
    /* the betting tests take the questions in the order they entered the rounds */
    order = xcalloc(n ? n : 1, sizeof(*order));
    for (size_t j = 0; j < n; j++)
        order[j] = c->gs.q[c->order[j]].id;
    co.order = order;
    co.n_order = n;
    if (c->have_res)
        compare_result_release(&c->res);
    compare_runs_look(c->bt.v, c->bt.nr, c->ct.v, c->ct.nr, &co, c->spending, c->t, k, &lv,
                      &c->res);
    c->have_res = 1;

    s = json_new_object();
    json_add_num(s, "round", (double)(k + 1));
    json_add_num(s, "questions", (double)n);
    json_add_num(s, "information_fraction", c->t[k]);
    json_add_num(s, "trials", (double)(c->bt.nr + c->ct.nr));
    json_add_num(s, "trials_sent", (double)sent);
    json_add_num(s, "primary_tests", (double)lv.primary_tests);
    json_add_num(s, "fail_z", lv.fail_z < SEQ_NEVER ? lv.fail_z : -1);
    json_add_num(s, "fail_alpha", lv.fail_alpha);
    json_add_num(s, "bound_z", lv.bound_z < SEQ_NEVER ? lv.bound_z : -1);
    json_add_num(s, "bound_alpha", lv.bound_alpha);
    json_add_str(s, "compare_verdict", compare_verdict_name(c->res.verdict));
    eps = json_add_array(s, "endpoints");
    for (size_t i = 0; i < c->res.n_tests; i++) {
        const struct compare_test *t = &c->res.tests[i];
        struct json *e;
        struct strbuf nm = STRBUF_INIT;
        if (!t->primary)
            continue;
        e = json_new_object();
        compare_endpoint_name(&nm, t);
        json_add_str(e, "name", nm.buf);
        json_add_str(e, "scope", compare_scope_name(t->scope));
        json_add_num(e, "length", (double)t->length);
        json_add_str(e, "status", compare_status_name(t->status));
        if (t->status != CMP_NO_DATA) {
            json_add_num(e, "drop", t->drop);
            json_add_num(e, "upper", t->upper);
            json_add_num(e, "p_drop", t->p_drop);
            json_add_num(e, "p_drop_holm", t->p_drop_adj);
        }
        json_add_num(e, "questions", (double)t->n_questions);
        json_add(eps, NULL, e);
        strbuf_release(&nm);
    }
    *state = s;
    ret = 0;
out:
    free(order);
    store_close(st);
    return ret;
}

/* "continue", or the decision of look k: PASS, FAIL, or INCONCLUSIVE at the last look. */
static const char *look_decision(const struct gate_cmd *c, size_t k)
{
    if (c->res.verdict == VERDICT_FAIL)
        return "FAIL";
    if (c->res.verdict == VERDICT_PASS)
        return "PASS";
    return k + 1 >= c->looks ? "INCONCLUSIVE" : "continue";
}

static void progress_line(const struct gate_cmd *c, size_t k, const struct json *s,
                          const char *decision)
{
    struct strbuf sb = STRBUF_INIT;
    const struct json *eps = json_get(s, "endpoints");
    strbuf_addf(&sb,
                "gate round %zu/%zu: %zu of %zu questions, %.0f trials (%.0f sent); FAIL below "
                "Holm p %.4g, PASS when every %.1f%% bound < %.1f pp:",
                k + 1, c->looks, look_questions(c, k), c->nmax, json_num(json_get(s, "trials"), 0),
                json_num(json_get(s, "trials_sent"), 0), json_num(json_get(s, "fail_alpha"), 0),
                100.0 * (1.0 - json_num(json_get(s, "bound_alpha"), 0)), 100.0 * c->tolerance);
    for (size_t i = 0; i < json_size(eps); i++) {
        const struct json *e = json_at(eps, i);
        if (!json_get(e, "drop")) {
            strbuf_addf(&sb, " %s n/a;", json_get_str(e, "name"));
            continue;
        }
        strbuf_addf(&sb, " %s %+.1f pp (bound %+.1f, p %.3g);", json_get_str(e, "name"),
                    100.0 * json_num(json_get(e, "drop"), 0),
                    100.0 * json_num(json_get(e, "upper"), 0),
                    json_num(json_get(e, "p_drop_holm"), 1));
    }
    strbuf_rtrim(&sb);
    if (sb.len && sb.buf[sb.len - 1] == ';')
        strbuf_setlen(&sb, sb.len - 1);
    fprintf(stderr, "%s -> %s\n", sb.buf, decision);
    strbuf_release(&sb);
}

/* The rounds: run both sides to n_k questions, analyse, record, stop when decided. */
static int gate_rounds(struct gate_cmd *c)
{
    c->rounds = json_new_array();
    for (size_t k = 0; k < c->looks; k++) {
        struct json *state = NULL;
        const char *decision;
        if (k < c->stored.nr) {
            struct json *have = json_parse_str(c->stored.v[k]);
            const char *d = have ? json_get_str(have, "decision") : NULL;
            if (!have || !d) {
                json_free(have);
                return error("gate '%s': round %zu in %s is unreadable", c->name, k + 1,
                             c->db_path.buf);
            }
            decision = !strcmp(d, "PASS")           ? "PASS"
                       : !strcmp(d, "FAIL")         ? "FAIL"
                       : !strcmp(d, "INCONCLUSIVE") ? "INCONCLUSIVE"
                                                    : "continue";
            json_add(c->rounds, NULL, have);
            if (strcmp(decision, "continue")) {
                /* decided before: the outputs again, from the same trials */
                if (gate_analyse(c, k, &state) < 0)
                    return -1;
                json_free(state);
                c->decision = decision;
                c->decided_round = k;
                return 0;
            }
            continue;
        }
        {
            int rc = gate_run(c, 1, look_questions(c, k));
            if (!rc)
                rc = gate_run(c, 0, look_questions(c, k));
            if (rc)
                return rc;
        }
        if (gate_analyse(c, k, &state) < 0)
            return -1;
        decision = look_decision(c, k);
        json_add_str(state, "decision", decision);
        json_add(state, "settings", json_parse_str(c->settings));
        {
            char *text = json_print_str(state, 0);
            struct store *st = store_open(c->db_path.buf, STORE_READWRITE);
            int bad = !st || store_gate_round_put(st, c->name, (long)k + 1, text) < 0;
            store_close(st);
            free(text);
            if (bad) {
                json_free(state);
                return -1;
            }
        }
        progress_line(c, k, state, decision);
        json_add(c->rounds, NULL, state);
        if (strcmp(decision, "continue")) {
            c->decision = decision;
            c->decided_round = k;
            return 0;
        }
    }
    return error("gate '%s': no round left to decide", c->name);
}

/* Which limit the last look is: the --max-questions cap or the whole golden set. */
static const char *gate_limit_name(const struct gate_cmd *c)
{
    return c->max_questions > 0 && (size_t)c->max_questions <= c->gs.nr
               ? "--max-questions"
               : "every question of the golden set";
}

/* The gate's own Markdown: the verdict, the design and a line per round. */
static void gate_markdown(struct strbuf *out, const struct gate_cmd *c)
{
    const struct json *last = json_at(c->rounds, json_size(c->rounds) - 1);
    strbuf_addf(out, "## dipmap gate: %s after %zu of %zu questions (round %zu of %zu)\n\n",
                c->decision, look_questions(c, c->decided_round), c->nmax, c->decided_round + 1,
                c->looks);
    if (!strcmp(c->decision, "INCONCLUSIVE"))
        strbuf_addf(out,
                    "The gate reached %s (%zu) without a decision: neither a "
                    "significant primary regression nor every bound below the tolerance.\n\n",
                    gate_limit_name(c), c->nmax);
    strbuf_addf(out,
                "Sequential design: rounds of %ld questions; anytime-valid betting tests at alpha "
                "%.3g at every round: FAIL when a primary endpoint is worse by more than %.1f pp "
                "(Holm over the primary endpoints), PASS when every primary upper bound is below "
                "the tolerance, %.1f pp. %.0f trials (%.0f sent).\n\n",
                c->round, c->alpha,
                100.0 * (c->fail_margin >= 0 ? c->fail_margin : c->tolerance / 2),
                100.0 * c->tolerance, json_num(json_get(last, "trials"), 0),
                json_num(json_get(last, "trials_sent"), 0));
    strbuf_addstr(out, "| round | questions | trials | FAIL below Holm p | PASS bound level | "
                       "decision |\n|---:|---:|---:|---:|---:|---|\n");
    for (size_t i = 0; i < json_size(c->rounds); i++) {
        const struct json *r = json_at(c->rounds, i);
        strbuf_addf(out, "| %.0f | %.0f | %.0f | %.4g | %.2f%% | %s |\n",
                    json_num(json_get(r, "round"), 0), json_num(json_get(r, "questions"), 0),
                    json_num(json_get(r, "trials"), 0), json_num(json_get(r, "fail_alpha"), 0),
                    100.0 * (1.0 - json_num(json_get(r, "bound_alpha"), 0)),
                    json_get_str(r, "decision"));
    }
    strbuf_addstr(out, "\n");
}

/* compare.json of the last round with "sequential": the design and every round. */
static void gate_json(struct strbuf *out, const struct gate_cmd *c, const struct compare_meta *m)
{
    struct strbuf cj = STRBUF_INIT;
    struct json *root, *seq;
    report_compare_json(&cj, &c->res, m);
    root = json_parse_str(cj.buf);
    if (!root)
        root = json_new_object();
    json_remove(root, "verdict");
    json_add_str(root, "verdict", c->decision);
    seq = json_add_object(root, "sequential");
    json_add_str(seq, "decision", c->decision);
    json_add_num(seq, "decided_round", (double)(c->decided_round + 1));
    json_add_num(seq, "rounds_planned", (double)c->looks);
    json_add_num(seq, "questions", (double)look_questions(c, c->decided_round));
    json_add_num(seq, "max_questions", (double)c->nmax);
    json_add_num(seq, "round_size", (double)c->round);
    json_add_str(seq, "spending", seq_spending_name(c->spending));
    json_add_num(seq, "alpha", c->alpha);
    json_add_num(seq, "tolerance", c->tolerance);
    json_add_num(seq, "fail_margin", c->fail_margin >= 0 ? c->fail_margin : c->tolerance / 2);
    if (c->halluc_margin >= 0)
        json_add_num(seq, "hallucination_margin", c->halluc_margin);
    json_add_str(seq, "baseline_run", c->base_run.buf);
    json_add_str(seq, "candidate_run", c->cand_run.buf);
    json_add(seq, "rounds", json_copy(c->rounds));
    json_print(out, root, 1);
    strbuf_addch(out, '\n');
    json_free(root);
    strbuf_release(&cj);
}

/* The verdict on stdout and in the step summary; --json, --junit, --out. */
static int gate_write(struct gate_cmd *c)
{
    struct compare_meta m;
    struct strbuf md = STRBUF_INIT, x = STRBUF_INIT;
    const char *env;
    size_t head;
    int rc = !strcmp(c->decision, "PASS")   ? DM_EXIT_OK
             : !strcmp(c->decision, "FAIL") ? DM_EXIT_REGRESSION
                                            : DM_EXIT_INCONCLUSIVE;

    struct store *st = store_open(c->db_path.buf, STORE_READONLY);
    struct compare_answers ans = {st, st, c->base_run.buf, c->cand_run.buf};

    memset(&m, 0, sizeof(m));
    m.baseline = &c->bi;
    m.candidate = &c->ci;
    m.base_trials = c->bt.v;
    m.cand_trials = c->ct.v;
    m.n_base = c->bt.nr;
    m.n_cand = c->ct.nr;
    if (st) {
        /* the answers of the flips listed, read when listed */
        m.answer = compare_answer_from_store;
        m.answer_ctx = &ans;
    }
    /* the last round's comparison carries the gate's decision (INCONCLUSIVE at the cap) */
    c->res.verdict = !strcmp(c->decision, "PASS")   ? VERDICT_PASS
                     : !strcmp(c->decision, "FAIL") ? VERDICT_FAIL
                                                    : VERDICT_INCONCLUSIVE;
    gate_markdown(&md, c);
    head = md.len;
    report_compare_markdown(&md, &c->res, &m, 0);
    fwrite(md.buf, 1, md.len, stdout);
    fflush(stdout);
    env = getenv("GITHUB_STEP_SUMMARY");
    if (env && *env) {
        size_t room = report_step_summary_room(env);
        if (room > head) {
            /* the gate's own lines, then compare's Markdown within what is left */
            strbuf_add(&x, md.buf, head);
            report_compare_markdown(&x, &c->res, &m, room - head);
            report_step_summary_append(env, &x);
            strbuf_reset(&x);
        }
    }
    if (c->junit) {
        report_compare_junit(&x, &c->res, &m);
        if (cmd_write_file(c->junit, &x))
            rc = DM_EXIT_USAGE;
    }
    if (c->json) {
        strbuf_reset(&x);
        gate_json(&x, c, &m);
        if (cmd_write_file(c->json, &x))
            rc = DM_EXIT_USAGE;
    }
    if (c->out_dir) {
        struct strbuf p = STRBUF_INIT;
        if (report_make_dirs(c->out_dir, &p) < 0) {
            error("%s", p.buf);
            rc = DM_EXIT_USAGE;
        } else {
            strbuf_addf(&p, "%s/compare.md", c->out_dir);
            if (cmd_write_file(p.buf, &md))
                rc = DM_EXIT_USAGE;
            strbuf_reset(&p);
            strbuf_reset(&x);
            gate_json(&x, c, &m);
            strbuf_addf(&p, "%s/compare.json", c->out_dir);
            if (cmd_write_file(p.buf, &x))
                rc = DM_EXIT_USAGE;
            strbuf_reset(&p);
            strbuf_reset(&x);
            report_compare_junit(&x, &c->res, &m);
            strbuf_addf(&p, "%s/junit.xml", c->out_dir);
            if (cmd_write_file(p.buf, &x))
                rc = DM_EXIT_USAGE;
        }
        strbuf_release(&p);
    }
    strbuf_release(&md);
    strbuf_release(&x);
    store_close(st);
    return rc;
}

int cmd_gate(int argc, const char **argv)
{
    struct gate_cmd c;
    int rc;

    memset(&c, 0, sizeof(c));
    strvec_init(&c.run_args);
    strvec_init(&c.rest);
    strvec_init(&c.stored);
    strbuf_init(&c.base_run, 0);
    strbuf_init(&c.cand_run, 0);
    strbuf_init(&c.db_path, 0);
    run_info_init(&c.bi);
    run_info_init(&c.ci);
    c.repeats = 1;
    c.concurrency = RUNNER_DEFAULT_CONCURRENCY;
    c.round = SEQ_DEFAULT_ROUND;
    c.alpha = COMPARE_DEFAULT_ALPHA;
    c.tolerance = COMPARE_DEFAULT_TOLERANCE;
    c.spending = SEQ_SPEND_POCOCK;
    c.fail_margin = -1;
    c.halluc_margin = -1;
    c.name = "gate";

    rc = gate_parse(&c, argc, argv);
    if (rc >= 0)
        goto cleanup;
    rc = DM_EXIT_USAGE;
    if (gate_check(&c) || gate_design(&c) || gate_resume(&c))
        goto cleanup;
    rc = gate_rounds(&c);
    if (rc < 0)
        rc = DM_EXIT_INFRA;
    if (rc)
        goto cleanup;
    rc = gate_write(&c);
cleanup:
    free_trials(&c);
    if (c.have_res)
        compare_result_release(&c.res);
    run_info_release(&c.bi);
    run_info_release(&c.ci);
    json_free(c.rounds);
    if (c.have_gs)
        golden_set_release(&c.gs);
    free(c.order);
    free(c.t);
    free(c.settings);
    strbuf_release(&c.base_run);
    strbuf_release(&c.cand_run);
    strbuf_release(&c.db_path);
    strvec_clear(&c.run_args);
    strvec_clear(&c.rest);
    strvec_clear(&c.stored);
    return rc;
}

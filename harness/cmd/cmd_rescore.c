/*
 * `dipmap rescore RUN --scorer NAME [--as NEW_RUN]`: score a run's stored
 * answers again without sending anything (a new scorer, a fixed normaliser or
 * answer/reasoning split, a changed answer_regex), in place or into a new run,
 * recording the scorer version. The golden set comes from the store.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "prompt/dataset.h"
#include "base/json.h"
#include "base/opt.h"
#include "client/reasoning.h"
#include "run/run_identity.h"
#include "run/runner.h"
#include "run/score.h"
#include "store/store.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/usage.h"
#include "base/xalloc.h"

#include "base/banned.h"

static const char *const rescore_usage[] = {
    "dipmap rescore RUN --scorer NAME [--as NEW_RUN] [--db FILE] [--dataset FILE]",
    "               [--reasoning-tags OPEN,CLOSE]",
    NULL,
};

struct rescore_counts {
    long scored, changed, to_correct, to_wrong, cut_now_scored, starved;
    /* the accuracy line's counts: the depth curve's trials only (trial_on_curve) */
    long correct_before, correct_after, valid_before, valid_after, off_curve;
};

/*
 * An answer cut at the answer budget that an older dipmap stored as
 * "truncated" (finish_reason length, the prompt not shortened): an answer.
 */
static int is_old_cut_answer(const struct trial_result *t)
{
    int prompt_short = t->usage_prompt_tokens >= 0 && t->facts.realized_length > 0 &&
                       (double)t->usage_prompt_tokens < 0.98 * (double)t->facts.realized_length;
    return t->outcome == OUTCOME_TRUNCATED && t->finish_reason &&
           !strcmp(t->finish_reason, "length") && !reasoning_blank(t->answer) && !prompt_short;
}

/*
 * Score one stored trial again: t is updated in place (answer/reasoning split
 * again, outcome, score, cut). Returns 0, or -1 after an error.
 */
static int rescore_trial(struct trial_result *t, const struct golden_set *gs,
                         const enum scorer_kind *scorers, const struct abstain_rule *ab,
                         const char *open, const char *close, struct rescore_counts *n)
{
    const struct question *q;
    struct strbuf ans = STRBUF_INIT, rs = STRBUF_INIT, err = STRBUF_INIT;
    enum trial_outcome before = t->outcome;
    double s = 0;
    size_t qi;
    int old_cut = is_old_cut_answer(t);
    int curve = trial_on_curve(t->length, t->depth_bp, t->axes);

    n->off_curve += !curve;
    if (curve && outcome_is_scored(before)) {
        n->valid_before++;
        n->correct_before += before == OUTCOME_CORRECT;
    }
    if (!outcome_is_scored(before) && !old_cut &&
        !(before == OUTCOME_EMPTY && !reasoning_blank(t->reasoning)))
        return 0;
    q = golden_set_find(gs, t->question_id);
    if (!q) {
        error("rescore: question '%s' of the run is not in its golden set", t->question_id);
        return -1;
    }
    qi = (size_t)(q - gs->q);
    /* an older dipmap kept inline thinking in the answer: split it off now */
    if (t->reasoning && *t->reasoning) {
        strbuf_addstr(&rs, t->reasoning);
        strbuf_addch(&rs, '\n');
    }
    if (t->answer && reasoning_split(t->answer, open, close, &ans, &rs)) {
        free(t->answer);
        t->answer = strbuf_detach(&ans, NULL);
        free(t->reasoning);
        t->reasoning_chars = (long)rs.len;
        t->reasoning = strbuf_detach(&rs, NULL);
    }
    if (reasoning_blank(t->answer)) {
        t->outcome = reasoning_starved(t->reasoning, t->reasoning_tokens, t->completion_tokens,
                                       t->finish_reason)
                         ? OUTCOME_STARVED
                         : OUTCOME_EMPTY;
        t->score = 0;
        t->cut = 0;
        n->starved += t->outcome == OUTCOME_STARVED;
    } else {
        int rc = runner_score_answer(q, t->axes, scorers[qi], ab, t->answer, &s, &err);
        if (rc < 0) {
            error("rescore: question '%s': %s", q->id, err.buf);
            strbuf_release(&err);
            strbuf_release(&ans);
            strbuf_release(&rs);
            return -1;
        }
        t->outcome = s >= 0.5 ? OUTCOME_CORRECT : OUTCOME_WRONG;
        t->score = s;
        t->cut = t->finish_reason && !strcmp(t->finish_reason, "length");
        if (old_cut) {
            n->cut_now_scored++;
            free(t->error);
            t->error = NULL;
        }
        n->scored++;
        n->valid_after += curve;
        n->correct_after += curve && t->outcome == OUTCOME_CORRECT;
    }
    if (t->outcome != before) {
        n->changed++;
        n->to_correct += t->outcome == OUTCOME_CORRECT;
        n->to_wrong += t->outcome == OUTCOME_WRONG;
    }
    strbuf_release(&err);
    strbuf_release(&ans);
    strbuf_release(&rs);
    return 0;
}

static int load_golden(struct store *st, const struct run_info *run, const char *dataset,
                       struct golden_set *gs)
{
    char *text = NULL;
    size_t len = 0;
    int rc;
    if (dataset) {
        if (golden_set_load(gs, dataset) < 0)
            return -1;
        if (run->golden_sha256 && strcmp(run->golden_sha256, gs->sha256)) {
            golden_set_release(gs);
            return error("rescore: %s is not the golden set of run '%s' (sha256 %.12s, the run "
                         "used %.12s)",
                         dataset, run->name, gs->sha256, run->golden_sha256);
        }
        return 0;
    }
    rc = store_golden_get(st, run->golden_sha256, &text, &len);
    if (rc < 0)
        return -1;
    if (rc == 0)
        return error("rescore: the golden set of run '%s' is not in %s (runs made before dipmap "
                     "kept it there): give it with --dataset FILE",
                     run->name, store_path(st));
    rc = golden_set_load_mem(gs, "the store", text, len);
    free(text);
    return rc;
}

/* What rescore did, on stdout. */
static void print_summary(const char *from, const char *version, const char *target,
                          const struct rescore_counts *n)
{
    printf("rescored run %s with %s into %s: %ld answers scored, %ld trials changed outcome "
           "(%ld now correct, %ld now wrong)\n",
           from, version, target, n->scored, n->changed, n->to_correct, n->to_wrong);
    if (n->cut_now_scored)
        printf("%ld answers cut at the answer budget (stored as truncated by an older dipmap) are "
               "now scored, flagged cut\n",
               n->cut_now_scored);
    if (n->starved)
        printf("%ld trials without an answer after the reasoning are now starved\n", n->starved);
    printf("accuracy: ");
    if (n->valid_before)
        printf("%.1f%% (%ld of %ld)", 100.0 * n->correct_before / n->valid_before,
               n->correct_before, n->valid_before);
    else
        printf("none");
    printf(" -> ");
    if (n->valid_after)
        printf("%.1f%% (%ld of %ld)\n", 100.0 * n->correct_after / n->valid_after, n->correct_after,
               n->valid_after);
    else
        printf("none\n");
    if (n->off_curve)
        printf("the accuracy counts the depth curve's trials, as the report does: %ld control and "
               "needle-absent trial(s) are reported apart\n",
               n->off_curve);
    printf("nothing was sent; scorer version recorded: %s\n", version);
}

/* The options as given and what rescore loads and writes. */
struct rescore_cmd {
    const char *db, *scorer_arg, *as, *dataset, *tags;
    struct abstain_rule abstain; /* run --absent's detector (the default phrase without) */
    struct abstain_keep abstain_keep;
    struct strvec rest;
    enum scorer_kind def, *scorers; /* --scorer, and per question */
    struct store *st;
    struct run_info run, out;
    struct golden_set gs;
    int have_gs, locked;
    struct trial_result *v;
    size_t nt;
    struct rescore_counts n;
    char *open, *close, *run_tags, *settings;
    struct strbuf err, ver;
};

static void rescore_cmd_init(struct rescore_cmd *r)
{
    memset(r, 0, sizeof(*r));
    strvec_init(&r->rest);
    run_info_init(&r->run);
    run_info_init(&r->out);
    strbuf_init(&r->err, 0);
    strbuf_init(&r->ver, 0);
}

/* Frees everything; a failed store close turns success into DM_EXIT_INFRA. */
static int rescore_cmd_release(struct rescore_cmd *r, int rc)
{
    if (r->locked)
        store_run_unlock(r->st, r->run.name);
    if (r->st && store_close(r->st) < 0 && rc == DM_EXIT_OK)
        rc = DM_EXIT_INFRA;
    store_trials_free(r->v, r->nt);
    if (r->have_gs)
        golden_set_release(&r->gs);
    run_info_release(&r->run);
    run_info_release(&r->out);
    score_cache_clear();
    free(r->scorers);
    free(r->open);
    free(r->close);
    free(r->run_tags);
    free(r->settings);
    run_identity_abstain_release(&r->abstain_keep);
    strvec_clear(&r->rest);
    strbuf_release(&r->err);
    strbuf_release(&r->ver);
    return rc;
}

/* The option table (dipmap help rescore prints it), the run name, --scorer: 0, 1, -1. */
static int rescore_parse(struct rescore_cmd *r, int argc, const char **argv)
{
    struct option opts[] = {
        OPT_STRING(0, "scorer", &r->scorer_arg, "NAME", "litm, kv, contains, exact, regex, all"),
        OPT_STRING(0, "as", &r->as, "NEW_RUN", "write a new run (default: the run in place)"),
        OPT_DB(&r->db, "SQLite store"),
        OPT_STRING(0, "dataset", &r->dataset, "FILE",
                   "the run's golden set, for runs made before the store kept it (hash-checked)"),
        OPT_STRING(
            0, "reasoning-tags", &r->tags, "OPEN,CLOSE",
            "inline reasoning block to split off (default: the run's, else <think>,</think>)"),
        OPT_END(),
    };
    int rc = parse_options(argc, argv, opts, rescore_usage, &r->rest);
    if (rc)
        return rc;
    if (r->rest.nr != 1) {
        error("rescore: give exactly one run name");
        usage_with_options(stderr, rescore_usage, opts);
        return -1;
    }
    if (!r->scorer_arg || scorer_parse(r->scorer_arg, &r->def) < 0)
        return error("rescore: --scorer must be one of %s%s%s", scorer_names(),
                     r->scorer_arg ? ", got " : "", r->scorer_arg ? r->scorer_arg : "");
    return 0;
}

/* The store and the run; --as names no run yet, or the run is not executing. An exit code. */
static int rescore_open_run(struct rescore_cmd *r)
{
    int prc;

    r->st = store_open(store_default_path(r->db), STORE_READWRITE);
    if (!r->st)
        return DM_EXIT_USAGE;
    prc = store_run_get(r->st, r->rest.v[0], &r->run);
    if (prc) {
        if (prc > 0)
            error("rescore: no run named '%s' in %s", r->rest.v[0], store_path(r->st));
        return prc > 0 ? DM_EXIT_USAGE : DM_EXIT_INFRA;
    }
    if (r->as) {
        prc = store_run_get(r->st, r->as, &r->out);
        if (prc <= 0) {
            if (!prc)
                error("rescore: a run named '%s' already exists in %s", r->as, store_path(r->st));
            return prc ? DM_EXIT_INFRA : DM_EXIT_USAGE;
        }
    } else if (run_info_is_live(&r->run)) {
        error("rescore: run '%s' is being executed right now (pid %ld): rescore it when it is "
              "done, or use --as NEW_RUN",
              r->run.name, r->run.lock_pid);
        return DM_EXIT_USAGE;
    }
    return DM_EXIT_OK;
}

/* The reasoning tags, the golden set and each question's scorer. */
static int rescore_inputs(struct rescore_cmd *r)
{
    r->run_tags = r->tags ? xstrdup(r->tags) : run_identity_reasoning_tags(r->run.settings_json);
    if (r->run_tags && reasoning_tags_parse(r->run_tags, &r->open, &r->close, &r->err) < 0)
        return error("rescore: --reasoning-tags: %s", r->err.buf);
    if (load_golden(r->st, &r->run, r->dataset, &r->gs) < 0)
        return -1;
    r->have_gs = 1;
    r->scorers = xcalloc(r->gs.nr ? r->gs.nr : 1, sizeof(*r->scorers));
    for (size_t i = 0; i < r->gs.nr; i++) {
        const struct question *q = &r->gs.q[i];
        if (score_resolve(r->def, q->scorer, q->answer_regex, &r->scorers[i]) < 0)
            return error("%s:%ld: unknown scorer '%s' (one of %s)", r->gs.path, q->line, q->scorer,
                         scorer_names());
        if (r->scorers[i] == SCORER_REGEX && !q->answer_regex)
            return error("%s:%ld: the regex scorer needs \"answer_regex\"", r->gs.path, q->line);
    }
    return 0;
}

/* Load the run's trials and score each again (in memory). An exit code. */
static int rescore_trials(struct rescore_cmd *r)
{
    double share;
    if (!run_identity_abstain(r->run.settings_json, &share, &r->abstain, &r->abstain_keep))
        r->abstain.phrase = ABSTAIN_PHRASE;
    if (store_trials_load(r->st, r->run.name, &r->v, &r->nt) != 0)
        return DM_EXIT_INFRA;
    for (size_t i = 0; i < r->nt; i++)
        if (rescore_trial(&r->v[i], &r->gs, r->scorers, &r->abstain, r->open, r->close, &r->n) < 0)
            return DM_EXIT_USAGE;
    return DM_EXIT_OK;
}

/* Write: a new run with the same inputs (--as), or the run in place, locked. An exit code. */
static int rescore_write(struct rescore_cmd *r)
{
    const char *target = r->as ? r->as : r->run.name;

    score_version(r->def, &r->ver);
    r->settings = run_identity_rescored(r->run.settings_json, scorer_name(r->def), r->tags);
    if (r->as) {
        r->out = r->run;
        run_info_init(&r->run); /* `out` owns the strings now */
        free(r->out.name);
        r->out.name = xstrdup(r->as);
        free(r->out.settings_json);
        r->out.settings_json = xstrdup(r->settings);
        free(r->out.scorer_version);
        r->out.scorer_version = xstrdup(r->ver.buf);
        free(r->out.lock_host);
        r->out.lock_host = NULL;
        r->out.created_at = 0;
        if (store_run_create(r->st, &r->out) < 0 || store_run_get(r->st, r->as, &r->run) != 0)
            return DM_EXIT_USAGE;
    } else {
        if (store_run_lock(r->st, r->run.name, 0) < 0)
            return DM_EXIT_USAGE;
        r->locked = 1;
        if (store_run_set_settings(r->st, r->run.name, r->settings) < 0 ||
            store_run_set_scorer(r->st, r->run.name, r->ver.buf) < 0)
            return DM_EXIT_USAGE;
    }
    for (size_t i = 0; i < r->nt; i++)
        if (store_trial_put(r->st, target, &r->v[i]) < 0) {
            error("rescore: %s", store_errmsg(r->st));
            return DM_EXIT_INFRA;
        }
    if (store_flush(r->st) < 0)
        return DM_EXIT_INFRA;
    print_summary(r->rest.v[0], r->ver.buf, target, &r->n);
    return DM_EXIT_OK;
}

int cmd_rescore(int argc, const char **argv)
{
    struct rescore_cmd r;
    int rc;

    rescore_cmd_init(&r);
    rc = rescore_parse(&r, argc, argv);
    if (rc)
        return rescore_cmd_release(&r, parse_options_exit(rc));
    rc = rescore_open_run(&r);
    if (rc == DM_EXIT_OK)
        rc = rescore_inputs(&r) < 0 ? DM_EXIT_USAGE : rescore_trials(&r);
    if (rc == DM_EXIT_OK)
        rc = rescore_write(&r);
    return rescore_cmd_release(&r, rc);
}

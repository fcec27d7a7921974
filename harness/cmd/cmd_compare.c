/*
 * `dipmap compare BASELINE CANDIDATE`: load two runs from the store, refuse
 * runs with different inputs, compute the paired verdict (compare.c) and
 * write it as Markdown (stdout, $GITHUB_STEP_SUMMARY), JUnit, JSON and
 * GitHub annotations. Exit 0 PASS, 1 FAIL, 4 INCONCLUSIVE, 2 usage/input.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/builtin.h"
#include "stats/compare.h"
#include "base/opt.h"
#include "report/plot.h"
#include "report/report.h"
#include "report/report_doc.h"
#include "run/run_identity.h"
#include "store/store.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "stats/trend.h"
#include "base/usage.h"

#include "base/banned.h"

#define MAX_ANNOTATIONS 10

static const char *const compare_usage[] = {
    "dipmap compare BASELINE CANDIDATE [--db FILE] [--alpha A] [--tolerance T] [--junit FILE] "
    "[--json FILE] [--out DIR]",
    "dipmap compare --tag TAG --latest [--against previous|last-pass|RUN] [--db FILE] [options]",
    NULL,
};

static int append_step_summary(const char *path, const struct compare_result *r,
                               const struct compare_meta *m)
{
    struct strbuf md = STRBUF_INIT;
    size_t room = report_step_summary_room(path);
    if (room) {
        report_compare_markdown(&md, r, m, room);
        report_step_summary_append(path, &md);
    }
    strbuf_release(&md);
    return 0;
}

/*
 * --out DIR: the comparison as files. compare.md, compare.json and junit.xml
 * are written here; compare.html and the overlay plot come from the report
 * module (report_compare_files()), from the same trials and result.
 */
static int write_out_dir(const char *dir, const struct compare_result *r,
                         const struct compare_meta *m, const struct trial_point *base, size_t nb,
                         const struct trial_point *cand, size_t nc)
{
    struct strbuf path = STRBUF_INIT, sb = STRBUF_INIT, err = STRBUF_INIT;
    int ret = 0;
    if (mkdir(dir, 0777) && errno != EEXIST) {
        ret = error("cannot create %s: %s", dir, strerror(errno));
        goto cleanup;
    }
    strbuf_addf(&path, "%s/compare.md", dir);
    report_compare_markdown(&sb, r, m, 0);
    if (cmd_write_file(path.buf, &sb))
        ret = -1;
    strbuf_reset(&path);
    strbuf_reset(&sb);
    strbuf_addf(&path, "%s/compare.json", dir);
    report_compare_json(&sb, r, m);
    if (cmd_write_file(path.buf, &sb))
        ret = -1;
    strbuf_reset(&path);
    strbuf_reset(&sb);
    strbuf_addf(&path, "%s/junit.xml", dir);
    report_compare_junit(&sb, r, m);
    if (cmd_write_file(path.buf, &sb))
        ret = -1;
    /* compare.html and the baseline/candidate overlay plot (report.c) */
    if (!ret && report_compare_files(dir, r, m, base, nb, cand, nc, &err) < 0)
        ret = error("%s", err.buf);
cleanup:
    strbuf_release(&path);
    strbuf_release(&sb);
    strbuf_release(&err);
    return ret;
}

static int load_run(struct store *st, const char *path, const char *name, struct run_info *ri)
{
    int rc = store_run_get(st, name, ri);
    if (rc == 1)
        return error("%s: no run named '%s' (see: dipmap runs --db %s)", path, name, path);
    return rc;
}

/* 1 when both paths name one file (a CI typo: the baseline compared with itself) */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (!strcmp(a, b))
        return 1;
    return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/*
 * --tag TAG --latest: the newest run with the tag is the candidate; the baseline
 * is, among the runs of its series (trend.h: same inputs and trial matrix), the
 * previous complete run (--against previous, the default: trend_previous(), the
 * rule the trend plot and dipmap view mark with), the newest earlier run whose
 * own comparison passed (--against last-pass: trend_last_pass(), so that a
 * regression that persists keeps failing), or the pinned run --against RUN.
 * Pushes BASELINE then CANDIDATE onto names. Returns 0, or an exit code (exit 4
 * with the reason in refused when there is nothing to compare with).
 */
static int pick_latest(struct store *st, const char *tag, const char *against,
                       const struct compare_options *co, struct strvec *names,
                       struct strbuf *refused)
{
    struct run_filter f = {NULL, tag, NULL};
    struct run_info *v = NULL;
    size_t n = 0;
    long prev;
    int rc = DM_EXIT_OK;
    int last_pass = against && !strcmp(against, "last-pass");
    int pinned = against && strcmp(against, "previous") && !last_pass;

    if (store_run_list(st, &f, &v, &n) < 0)
        return DM_EXIT_INFRA;
    if (!n) {
        error("compare: no run in %s is tagged '%s'", store_path(st), tag);
        rc = DM_EXIT_USAGE;
        goto out;
    }
    if (pinned) {
        if (!strcmp(against, v[n - 1].name)) {
            error("compare: --against %s is the newest run tagged '%s' itself", against, tag);
            rc = DM_EXIT_USAGE;
            goto out;
        }
        strvec_push(names, against);
    } else {
        prev = last_pass ? trend_last_pass(st, v, n - 1, co) : trend_previous(v, n - 1);
        if (prev == -2) {
            rc = DM_EXIT_INFRA;
            goto out;
        }
        if (prev < 0) {
            strbuf_addf(refused,
                        "'%s' is the only run tagged '%s' of its series (same inputs, lengths, "
                        "depths and axes) with no complete run before it: nothing to compare "
                        "with yet",
                        v[n - 1].name, tag);
            error("compare: %s", refused->buf);
            rc = DM_EXIT_INCONCLUSIVE;
            goto out;
        }
        strvec_push(names, v[prev].name);
    }
    strvec_push(names, v[n - 1].name);
    fprintf(stderr, "compare: newest run tagged '%s' is '%s'; baseline '%s'%s\n", tag, names->v[1],
            names->v[0],
            pinned      ? " (--against)"
            : last_pass ? " (last run whose comparison passed)"
                        : " (previous complete run)");
out:
    run_info_list_free(v, n);
    return rc;
}

static void warn_unfinished(const char *role, const struct run_info *ri)
{
    if (ri->status != RUN_COMPLETE)
        warning("%s run '%s' is %s (%ld of %ld trials done)", role, ri->name,
                run_status_name(ri->status), ri->trials_done, run_info_planned(ri));
}

/* One `compare` invocation: its options, stores and runs, and the comparison. */
struct compare_cmd {
    const char *db, *base_db, *junit, *json, *out_dir, *tag, *against, *gate, *pass_rule;
    int allow_diff, allow_scoring, latest;
    struct compare_options co;
    struct strvec rest; /* BASELINE CANDIDATE */
    const char *db_path, *base_path;
    struct store *st, *bst; /* bst: --baseline-db, NULL when the baseline is in st */
    struct run_info bi, ci;
    struct compare_doc doc;
    struct strbuf refused; /* why the runs were not compared (exit 4 before a verdict) */
};

/* Returns -1 to go on, else the exit code (help printed, or a usage error). */
static int compare_parse(struct compare_cmd *c, int argc, const char **argv)
{
    struct compare_options *co = &c->co;
    struct option opts[] = {
        OPT_DB(&c->db, "store holding the runs"),
        OPT_STRING(0, "baseline-db", &c->base_db, "FILE",
                   "store holding the baseline run, when not the same as --db"),
        OPT_STRING(0, "tag", &c->tag, "TAG", "with --latest: the runs carrying TAG"),
        OPT_BOOL(0, "latest", &c->latest,
                 "compare the newest run tagged TAG instead of naming two runs (nightly alerting)"),
        OPT_STRING(
            0, "against", &c->against, "previous|last-pass|RUN",
            "with --latest: the baseline, the previous complete run of the same series with the "
            "tag (default), the newest earlier one whose comparison passed (last-pass: a "
            "regression that persists keeps failing), or a pinned RUN"),
        OPT_GROUP("verdict"),
        OPT_ALPHA(&co->alpha),
        OPT_TOLERANCE(&co->tolerance),
        OPT_FAIL_MARGIN(&co->fail_margin),
        OPT_POINTS(0, "hallucination-margin", &co->halluc_margin, "D",
                   "also FAIL when the candidate's hallucination rate on needle-absent trials (run "
                   "--absent) is higher by more than D, absolute (default: not tested)"),
        OPT_STRING(
            0, "gate", &c->gate, "primary|cells",
            "what fails the gate: the primary endpoints, per length all depths, the middle band "
            "(25-75%) and the dip (default), or those and every cell and axis value"),
        OPT_STRING(
            0, "pass-rule", &c->pass_rule, "bound|no-regression",
            "what PASS means: every primary endpoint's upper confidence bound on the drop is below "
            "the tolerance (default), or only that nothing regressed significantly (which does not "
            "show that no regression exists)"),
        OPT_LONG(0, "min-pairs", &co->min_pairs, "N",
                 "valid pairs a cell or length needs to be tested (default 10)"),
        OPT_DOUBLE(0, "min-coverage", &co->min_coverage, "F",
                   "fraction of trial keys that must be valid in both runs (default 0.8)"),
        OPT_BOOL(0, "exclude-known", &co->exclude_known,
                 "leave out questions answered correctly closed-book in either run"),
        OPT_BOOL(0, "allow-different-inputs", &c->allow_diff,
                 "compare even when golden set, haystack, template or tokenizer differ"),
        OPT_BOOL(0, "allow-different-scoring", &c->allow_scoring,
                 "compare even when the runs were scored differently (scorer or its version)"),
        OPT_GROUP("output"),
        OPT_STRING(0, "junit", &c->junit, "FILE", "write JUnit XML"),
        OPT_STRING(0, "json", &c->json, "FILE", "write the verdict and every test as JSON"),
        OPT_STRING(0, "out", &c->out_dir, "DIR",
                   "write compare.md, compare.json, junit.xml, compare.html and the overlay plot "
                   "(compare.svg/png) into DIR"),
        OPT_END(),
    };
    int pr = parse_options(argc, argv, opts, compare_usage, &c->rest);
    if (pr)
        return parse_options_exit(pr);
    return -1;
}

/* The run names or --latest, and the verdict options in range; 0 or -1 (printed). */
static int compare_check_options(struct compare_cmd *c)
{
    struct compare_options *co = &c->co;
    if (c->latest || c->tag || c->against) {
        if (!c->latest || !c->tag)
            return error("compare: --tag, --latest and --against go together: --tag TAG "
                         "--latest [--against previous|last-pass|RUN]");
        if (c->rest.nr)
            return error("compare --latest picks the runs itself; drop '%s'", c->rest.v[0]);
    } else if (c->rest.nr != 2) {
        error("compare needs two run names: BASELINE CANDIDATE (or --tag TAG --latest)");
        usage_with_options(stderr, compare_usage, NULL);
        return -1;
    }
    if (c->gate && strcmp(c->gate, "primary") && strcmp(c->gate, "cells"))
        return error("--gate must be 'primary' or 'cells', not '%s'", c->gate);
    if (c->pass_rule && strcmp(c->pass_rule, "bound") && strcmp(c->pass_rule, "no-regression"))
        return error("--pass-rule must be 'bound' or 'no-regression', not '%s'", c->pass_rule);
    if (!(co->alpha > 0.0 && co->alpha < 1.0))
        return error("--alpha must be between 0 and 1, not %g", co->alpha);
    if (!(co->tolerance >= 0.0 && co->tolerance <= 1.0))
        return error("--tolerance must be between 0 and 1 (an absolute accuracy drop), not %g",
                     co->tolerance);
    if (co->fail_margin >= 0.0 && !(co->fail_margin <= co->tolerance))
        return error("--fail-margin must be between 0 and the tolerance (%g), not %g",
                     co->tolerance, co->fail_margin);
    if (co->halluc_margin >= 0.0 && !(co->halluc_margin <= 1.0))
        return error("--hallucination-margin must be between 0 and 1 (an absolute rise of the "
                     "hallucination rate), not %g",
                     co->halluc_margin);
    co->gate = c->gate && !strcmp(c->gate, "cells") ? COMPARE_GATE_CELLS : COMPARE_GATE_PRIMARY;
    co->pass_rule = c->pass_rule && !strcmp(c->pass_rule, "no-regression")
                        ? COMPARE_PASS_NO_REGRESSION
                        : COMPARE_PASS_BOUND;
    if (co->min_pairs < 1)
        return error("--min-pairs must be at least 1, not %ld", co->min_pairs);
    if (!(co->min_coverage >= 0.0 && co->min_coverage <= 1.0))
        return error("--min-coverage must be between 0 and 1, not %g", co->min_coverage);
    return 0;
}

/* Open the store(s), pick the runs of --latest, read both runs. Returns DM_EXIT_OK or a code. */
static int compare_open(struct compare_cmd *c)
{
    int rc;
    c->db_path = store_default_path(c->db);
    c->base_path = c->base_db ? c->base_db : c->db_path;
    if (!c->latest && !strcmp(c->rest.v[0], c->rest.v[1]) && same_file(c->base_path, c->db_path)) {
        error("compare: baseline and candidate are the same run ('%s' in %s); "
              "compare two different runs",
              c->rest.v[0], c->db_path);
        return DM_EXIT_USAGE;
    }
    c->st = store_open(c->db_path, STORE_READONLY);
    if (!c->st)
        return DM_EXIT_USAGE;
    if (c->base_db) {
        c->bst = store_open(c->base_path, STORE_READONLY);
        if (!c->bst)
            return DM_EXIT_USAGE;
    }
    if (c->latest) {
        /* a pinned --against RUN may live in --baseline-db; "previous" is always in --db */
        rc = pick_latest(c->st, c->tag, c->against, &c->co, &c->rest, &c->refused);
        if (rc != DM_EXIT_OK)
            return rc;
        if (!(c->against && strcmp(c->against, "previous") && strcmp(c->against, "last-pass")) &&
            c->bst) {
            store_close(c->bst);
            c->bst = NULL;
            c->base_path = c->db_path;
        }
    }
    if (load_run(c->bst ? c->bst : c->st, c->base_path, c->rest.v[0], &c->bi) ||
        load_run(c->st, c->db_path, c->rest.v[1], &c->ci))
        return DM_EXIT_USAGE;
    return DM_EXIT_OK;
}

/*
 * Runs with different inputs or scored differently are refused (exit 4) unless the option
 * allows them, then warned about. Returns DM_EXIT_OK or the exit code.
 */
static int compare_check_runs(struct compare_cmd *c)
{
    struct strbuf why = STRBUF_INIT;
    int rc = DM_EXIT_OK;

    if (!run_identity_same_inputs(&c->bi, &c->ci, NULL, &why)) {
        strbuf_rtrim(&why);
        if (!c->allow_diff) {
            error("runs '%s' and '%s' are not comparable:\n%s\n"
                  "(pass --allow-different-inputs to compare them anyway)",
                  c->bi.name, c->ci.name, why.buf);
            strbuf_addf(&c->refused,
                        "runs '%s' and '%s' are not comparable (different inputs; "
                        "--allow-different-inputs compares them anyway):\n%s",
                        c->bi.name, c->ci.name, why.buf);
            rc = DM_EXIT_INCONCLUSIVE;
            goto out;
        }
        for (size_t i = 0; i < why.len; i++)
            if (why.buf[i] == '\n')
                why.buf[i] = ';';
        warning("comparing runs with different inputs: %s", why.buf);
    }
    strbuf_reset(&why);
    /* what was sent: the same inputs and prompt settings must have sent the same prompts */
    if (!run_identity_same_prompts(c->bst ? c->bst : c->st, &c->bi, c->st, &c->ci, &why)) {
        strbuf_rtrim(&why);
        if (!c->allow_diff) {
            error("runs '%s' and '%s' are not comparable: %s\n"
                  "(pass --allow-different-inputs to compare them anyway)",
                  c->bi.name, c->ci.name, why.buf);
            strbuf_addf(&c->refused,
                        "runs '%s' and '%s' are not comparable (%s; --allow-different-inputs "
                        "compares them anyway)",
                        c->bi.name, c->ci.name, why.buf);
            rc = DM_EXIT_INCONCLUSIVE;
            goto out;
        }
        warning("comparing runs that sent other prompts: %s", why.buf);
    }
    strbuf_reset(&why);
    if (!run_identity_same_scoring(&c->bi, &c->ci, &why)) {
        strbuf_rtrim(&why);
        if (!c->allow_scoring) {
            error("runs '%s' and '%s' are not comparable: %s\n"
                  "(rescore one with 'dipmap rescore RUN --scorer NAME', or pass "
                  "--allow-different-scoring)",
                  c->bi.name, c->ci.name, why.buf);
            strbuf_addf(&c->refused,
                        "runs '%s' and '%s' are not comparable: %s (rescore one with 'dipmap "
                        "rescore RUN --scorer NAME', or pass --allow-different-scoring)",
                        c->bi.name, c->ci.name, why.buf);
            rc = DM_EXIT_INCONCLUSIVE;
            goto out;
        }
        warning("comparing runs scored differently: %s", why.buf);
    }
    warn_unfinished("baseline", &c->bi);
    warn_unfinished("candidate", &c->ci);
out:
    strbuf_release(&why);
    return rc;
}

/* The verdict on stdout (and the GitHub step summary, annotations), then the files asked for. */
static int compare_write(const struct compare_cmd *c)
{
    const struct compare_result *res = &c->doc.res;
    const struct compare_meta *meta = &c->doc.meta;
    const char *env;
    struct strbuf x = STRBUF_INIT;
    int rc = res->verdict == VERDICT_PASS   ? DM_EXIT_OK
             : res->verdict == VERDICT_FAIL ? DM_EXIT_REGRESSION
                                            : DM_EXIT_INCONCLUSIVE;

    report_compare_markdown(&x, res, meta, 0);
    fwrite(x.buf, 1, x.len, stdout);
    env = getenv("GITHUB_ACTIONS");
    if (env && !strcmp(env, "true")) {
        strbuf_reset(&x);
        report_compare_annotations(&x, res, MAX_ANNOTATIONS);
        fwrite(x.buf, 1, x.len, stdout);
    }
    fflush(stdout);
    env = getenv("GITHUB_STEP_SUMMARY");
    if (env && *env)
        append_step_summary(env, res, meta);
    if (c->junit) {
        strbuf_reset(&x);
        report_compare_junit(&x, res, meta);
        if (cmd_write_file(c->junit, &x))
            rc = DM_EXIT_USAGE;
    }
    if (c->json) {
        strbuf_reset(&x);
        report_compare_json(&x, res, meta);
        if (cmd_write_file(c->json, &x))
            rc = DM_EXIT_USAGE;
    }
    if (c->out_dir && write_out_dir(c->out_dir, res, meta, c->doc.base_trials, c->doc.n_base,
                                    c->doc.cand_trials, c->doc.n_cand))
        rc = DM_EXIT_USAGE;
    strbuf_release(&x);
    return rc;
}

/*
 * A comparison refused before any test (exit 4): the CI outputs still appear, so a JUnit
 * report step finds its file and the step summary says why: the summary, --junit (one
 * testcase with an <error>), --json and --out's compare.md, compare.json and junit.xml.
 */
static int compare_write_refused(const struct compare_cmd *c)
{
    const char *b = c->bi.name ? c->bi.name : c->rest.nr > 0 ? c->rest.v[0] : NULL;
    const char *cn = c->ci.name ? c->ci.name : c->rest.nr > 1 ? c->rest.v[1] : NULL;
    const char *why = c->refused.buf;
    const char *env = getenv("GITHUB_STEP_SUMMARY");
    struct strbuf x = STRBUF_INIT, path = STRBUF_INIT;
    int rc = DM_EXIT_INCONCLUSIVE;

    if (env && *env) {
        report_compare_refused_markdown(&x, b, cn, why);
        if (report_step_summary_room(env) > x.len)
            report_step_summary_append(env, &x);
    }
    env = getenv("GITHUB_ACTIONS");
    if (env && !strcmp(env, "true")) {
        strbuf_reset(&x);
        report_compare_refused_annotation(&x, why);
        fwrite(x.buf, 1, x.len, stdout);
        fflush(stdout);
    }
    if (c->junit) {
        strbuf_reset(&x);
        report_compare_junit_error(&x, b, cn, why);
        if (cmd_write_file(c->junit, &x))
            rc = DM_EXIT_USAGE;
    }
    if (c->json) {
        strbuf_reset(&x);
        report_compare_refused_json(&x, b, cn, why);
        if (cmd_write_file(c->json, &x))
            rc = DM_EXIT_USAGE;
    }
    if (c->out_dir) {
        if (mkdir(c->out_dir, 0777) && errno != EEXIST) {
            error("cannot create %s: %s", c->out_dir, strerror(errno));
            rc = DM_EXIT_USAGE;
            goto out;
        }
        strbuf_reset(&x);
        strbuf_addf(&path, "%s/compare.md", c->out_dir);
        report_compare_refused_markdown(&x, b, cn, why);
        if (cmd_write_file(path.buf, &x))
            rc = DM_EXIT_USAGE;
        strbuf_reset(&x);
        strbuf_reset(&path);
        strbuf_addf(&path, "%s/compare.json", c->out_dir);
        report_compare_refused_json(&x, b, cn, why);
        if (cmd_write_file(path.buf, &x))
            rc = DM_EXIT_USAGE;
        strbuf_reset(&x);
        strbuf_reset(&path);
        strbuf_addf(&path, "%s/junit.xml", c->out_dir);
        report_compare_junit_error(&x, b, cn, why);
        if (cmd_write_file(path.buf, &x))
            rc = DM_EXIT_USAGE;
        strbuf_reset(&x);
        strbuf_reset(&path);
        strbuf_addf(&path, "%s/compare.html", c->out_dir);
        report_compare_refused_html(&x, b, cn, why);
        if (cmd_write_file(path.buf, &x))
            rc = DM_EXIT_USAGE;
    }
out:
    strbuf_release(&x);
    strbuf_release(&path);
    return rc;
}

int cmd_compare(int argc, const char **argv)
{
    struct compare_cmd c;
    int rc;

    memset(&c, 0, sizeof(c));
    compare_options_init(&c.co);
    strvec_init(&c.rest);
    run_info_init(&c.bi);
    run_info_init(&c.ci);
    compare_doc_init(&c.doc);
    strbuf_init(&c.refused, 0);
    rc = compare_parse(&c, argc, argv);
    if (rc >= 0)
        goto cleanup;
    rc = DM_EXIT_USAGE;
    if (compare_check_options(&c))
        goto cleanup;
    rc = compare_open(&c);
    if (rc == DM_EXIT_OK)
        rc = compare_check_runs(&c);
    if (rc == DM_EXIT_INCONCLUSIVE && c.refused.len)
        rc = compare_write_refused(&c);
    if (rc != DM_EXIT_OK)
        goto cleanup;
    rc = DM_EXIT_USAGE;
    if (compare_doc_load(&c.doc, c.bst ? c.bst : c.st, c.st, &c.bi, &c.ci, &c.co,
                         c.allow_diff || c.allow_scoring) < 0)
        goto cleanup;
    rc = compare_write(&c);
cleanup:
    compare_doc_release(&c.doc);
    run_info_release(&c.bi);
    run_info_release(&c.ci);
    store_close(c.st);
    store_close(c.bst);
    strvec_clear(&c.rest);
    strbuf_release(&c.refused);
    return rc;
}

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

#include "builtin.h"
#include "compare.h"
#include "opt.h"
#include "report.h"
#include "run_identity.h"
#include "store.h"
#include "strbuf.h"
#include "strvec.h"
#include "trend.h"
#include "usage.h"

#include "banned.h"

/* GitHub's per-step summary limit is 1 MiB; keep a margin for other steps' text. */
#define STEP_SUMMARY_MAX (1024 * 1024 - 16 * 1024)
#define MAX_ANNOTATIONS  10

static const char *const compare_usage[] = {
    "dipmap compare BASELINE CANDIDATE [--db FILE] [--alpha A] [--tolerance T] [--junit FILE] "
    "[--json FILE] [--out DIR]",
    "dipmap compare --tag TAG --latest [--against previous|RUN] [--db FILE] [options]",
    NULL,
};

static int write_file(const char *path, const struct strbuf *sb)
{
    FILE *fp = fopen(path, "w");
    int bad;
    if (!fp)
        return error("cannot write %s: %s", path, strerror(errno));
    bad = fwrite(sb->buf, 1, sb->len, fp) != sb->len;
    if (fclose(fp) || bad)
        return error("cannot write %s: %s", path, strerror(errno ? errno : EIO));
    return 0;
}

static int append_step_summary(const char *path, const struct compare_result *r,
                               const struct compare_meta *m)
{
    struct stat st;
    struct strbuf md = STRBUF_INIT;
    size_t room = STEP_SUMMARY_MAX;
    FILE *fp;
    int ret = 0;

    if (!stat(path, &st) && st.st_size > 0)
        room = (size_t)st.st_size >= room ? 0 : room - (size_t)st.st_size;
    if (room < 2048) {
        warning("$GITHUB_STEP_SUMMARY (%s) is already near GitHub's 1 MiB limit; "
                "summary not appended",
                path);
        return 0;
    }
    report_compare_markdown(&md, r, m, room);
    fp = fopen(path, "a");
    if (!fp) {
        warning("cannot append to $GITHUB_STEP_SUMMARY (%s): %s", path, strerror(errno));
        strbuf_release(&md);
        return 0;
    }
    if (fwrite(md.buf, 1, md.len, fp) != md.len)
        ret = -1;
    if (fclose(fp) || ret)
        warning("cannot append to $GITHUB_STEP_SUMMARY (%s): %s", path, strerror(errno));
    strbuf_release(&md);
    return 0;
}

/*
 * --out DIR: the comparison as files. compare.md, compare.json and junit.xml
 * are written here; compare.html and the overlay plot come from the report
 * module (report_compare_files()), from the same trials and result.
 */
static int write_out_dir(const char *dir, const struct compare_result *r,
                         const struct compare_meta *m, const struct trial_result *base, size_t nb,
                         const struct trial_result *cand, size_t nc)
{
    struct strbuf path = STRBUF_INIT, sb = STRBUF_INIT;
    int ret = 0;
    if (mkdir(dir, 0777) && errno != EEXIST) {
        ret = error("cannot create %s: %s", dir, strerror(errno));
        goto cleanup;
    }
    strbuf_addf(&path, "%s/compare.md", dir);
    report_compare_markdown(&sb, r, m, 0);
    if (write_file(path.buf, &sb))
        ret = -1;
    strbuf_reset(&path);
    strbuf_reset(&sb);
    strbuf_addf(&path, "%s/compare.json", dir);
    report_compare_json(&sb, r, m);
    if (write_file(path.buf, &sb))
        ret = -1;
    strbuf_reset(&path);
    strbuf_reset(&sb);
    strbuf_addf(&path, "%s/junit.xml", dir);
    report_compare_junit(&sb, r, m);
    if (write_file(path.buf, &sb))
        ret = -1;
    /* compare.html and the baseline/candidate overlay plot (report.c) */
    if (!ret && report_compare_files(dir, r, m, base, nb, cand, nc) < 0)
        ret = -1;
cleanup:
    strbuf_release(&path);
    strbuf_release(&sb);
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
 * is the previous complete run with the tag (trend_previous(), the rule the
 * trend plot and dipmap view mark with) or the pinned run --against RUN.
 * Pushes BASELINE then CANDIDATE onto names. Returns 0, or an exit code.
 */
static int pick_latest(struct store *st, const char *tag, const char *against, struct strvec *names)
{
    struct run_filter f = {NULL, tag, NULL};
    struct run_info *v = NULL;
    size_t n = 0;
    long prev;
    int rc = DM_EXIT_OK;

    if (store_run_list(st, &f, &v, &n) < 0)
        return DM_EXIT_INFRA;
    if (!n) {
        error("compare: no run in %s is tagged '%s'", store_path(st), tag);
        rc = DM_EXIT_USAGE;
        goto out;
    }
    if (against && strcmp(against, "previous")) {
        if (!strcmp(against, v[n - 1].name)) {
            error("compare: --against %s is the newest run tagged '%s' itself", against, tag);
            rc = DM_EXIT_USAGE;
            goto out;
        }
        strvec_push(names, against);
    } else {
        prev = trend_previous(v, n - 1);
        if (prev < 0) {
            error("compare: '%s' is the only run tagged '%s' with no complete run before it: "
                  "nothing to compare with yet",
                  v[n - 1].name, tag);
            rc = DM_EXIT_INCONCLUSIVE;
            goto out;
        }
        strvec_push(names, v[prev].name);
    }
    strvec_push(names, v[n - 1].name);
    fprintf(stderr, "compare: newest run tagged '%s' is '%s'; baseline '%s'%s\n", tag, names->v[1],
            names->v[0],
            against && strcmp(against, "previous") ? " (--against)" : " (previous complete run)");
out:
    run_info_list_free(v, n);
    return rc;
}

static void warn_unfinished(const char *role, const struct run_info *ri)
{
    if (ri->status != RUN_COMPLETE)
        warning("%s run '%s' is %s (%ld of %ld trials done)", role, ri->name,
                run_status_name(ri->status), ri->trials_done, ri->trials_planned);
}

int cmd_compare(int argc, const char **argv)
{
    const char *db = NULL, *base_db = NULL, *junit = NULL, *json = NULL, *out_dir = NULL;
    const char *tag = NULL, *against = NULL;
    int allow_diff = 0, allow_scoring = 0, latest = 0, rc = DM_EXIT_USAGE;
    struct compare_options co;
    struct strvec rest = STRVEC_INIT;
    struct store *st = NULL, *bst = NULL;
    struct run_info bi, ci;
    struct trial_result *bt = NULL, *ct = NULL;
    size_t nb = 0, nc = 0;
    struct compare_result res;
    struct compare_meta meta = {0};
    struct strbuf why = STRBUF_INIT, sb = STRBUF_INIT;
    const char *db_path, *base_path, *env;
    int have_res = 0;

    compare_options_init(&co);
    {
        struct option opts[] = {
            {OPT_STRING, "db", 0, &db, "FILE",
             "store holding the runs (default $DIPMAP_DB or dipmap.db)", 0},
            {OPT_STRING, "baseline-db", 0, &base_db, "FILE",
             "store holding the baseline run, when not the same as --db", 0},
            {OPT_STRING, "tag", 0, &tag, "TAG", "with --latest: the runs carrying TAG", 0},
            {OPT_BOOL, "latest", 0, &latest, NULL,
             "compare the newest run tagged TAG instead of naming two runs (nightly alerting)", 0},
            {OPT_STRING, "against", 0, &against, "previous|RUN",
             "with --latest: the baseline, the previous complete run with the tag (default) or "
             "a pinned RUN",
             0},
            {OPT_GROUP, NULL, 0, NULL, NULL, "verdict", 0},
            {OPT_DOUBLE, "alpha", 0, &co.alpha, "A",
             "significance level after Holm adjustment (default 0.05)", 0},
            {OPT_DOUBLE, "tolerance", 0, &co.tolerance, "T",
             "smallest accuracy drop that counts, absolute (default 0.05 = 5 points)", 0},
            {OPT_LONG, "min-pairs", 0, &co.min_pairs, "N",
             "valid pairs a cell or length needs to be tested (default 10)", 0},
            {OPT_DOUBLE, "min-coverage", 0, &co.min_coverage, "F",
             "fraction of trial keys that must be valid in both runs (default 0.8)", 0},
            {OPT_BOOL, "exclude-known", 0, &co.exclude_known, NULL,
             "leave out questions answered correctly closed-book in either run", 0},
            {OPT_BOOL, "allow-different-inputs", 0, &allow_diff, NULL,
             "compare even when golden set, haystack, template or tokenizer differ", 0},
            {OPT_BOOL, "allow-different-scoring", 0, &allow_scoring, NULL,
             "compare even when the runs were scored differently (scorer or its version)", 0},
            {OPT_GROUP, NULL, 0, NULL, NULL, "output", 0},
            {OPT_STRING, "junit", 0, &junit, "FILE", "write JUnit XML", 0},
            {OPT_STRING, "json", 0, &json, "FILE", "write the verdict and every test as JSON", 0},
            {OPT_STRING, "out", 0, &out_dir, "DIR",
             "write compare.md, compare.json, junit.xml, compare.html and the overlay plot "
             "(compare.svg/png) into DIR",
             0},
            OPT_END_MARK,
        };
        int pr = parse_options(argc, argv, opts, compare_usage, &rest);
        if (pr)
            return pr > 0 ? DM_EXIT_OK : DM_EXIT_USAGE;
    }
    run_info_init(&bi);
    run_info_init(&ci);
    if (latest || tag || against) {
        if (!latest || !tag) {
            error("compare: --tag, --latest and --against go together: --tag TAG --latest "
                  "[--against previous|RUN]");
            goto cleanup;
        }
        if (rest.nr) {
            error("compare --latest picks the runs itself; drop '%s'", rest.v[0]);
            goto cleanup;
        }
    } else if (rest.nr != 2) {
        error("compare needs two run names: BASELINE CANDIDATE (or --tag TAG --latest)");
        usage_with_options(stderr, compare_usage, NULL);
        goto cleanup;
    }
    if (!(co.alpha > 0.0 && co.alpha < 1.0)) {
        error("--alpha must be between 0 and 1, not %g", co.alpha);
        goto cleanup;
    }
    if (!(co.tolerance >= 0.0 && co.tolerance <= 1.0)) {
        error("--tolerance must be between 0 and 1 (an absolute accuracy drop), not %g",
              co.tolerance);
        goto cleanup;
    }
    if (co.min_pairs < 1) {
        error("--min-pairs must be at least 1, not %ld", co.min_pairs);
        goto cleanup;
    }
    if (!(co.min_coverage >= 0.0 && co.min_coverage <= 1.0)) {
        error("--min-coverage must be between 0 and 1, not %g", co.min_coverage);
        goto cleanup;
    }

    db_path = store_default_path(db);
    base_path = base_db ? base_db : db_path;
    if (!latest && !strcmp(rest.v[0], rest.v[1]) && same_file(base_path, db_path)) {
        error("compare: baseline and candidate are the same run ('%s' in %s); "
              "compare two different runs",
              rest.v[0], db_path);
        goto cleanup;
    }
    st = store_open(db_path, STORE_READONLY);
    if (!st)
        goto cleanup;
    if (base_db) {
        bst = store_open(base_path, STORE_READONLY);
        if (!bst)
            goto cleanup;
    }
    if (latest) {
        /* a pinned --against RUN may live in --baseline-db; "previous" is always in --db */
        rc = pick_latest(st, tag, against, &rest);
        if (rc != DM_EXIT_OK)
            goto cleanup;
        rc = DM_EXIT_USAGE;
        if (!(against && strcmp(against, "previous")) && bst) {
            store_close(bst);
            bst = NULL;
            base_path = db_path;
        }
    }
    if (load_run(bst ? bst : st, base_path, rest.v[0], &bi) ||
        load_run(st, db_path, rest.v[1], &ci))
        goto cleanup;

    if (!run_identity_same_inputs(&bi, &ci, NULL, &why)) {
        strbuf_rtrim(&why);
        if (!allow_diff) {
            error("runs '%s' and '%s' are not comparable:\n%s\n"
                  "(pass --allow-different-inputs to compare them anyway)",
                  bi.name, ci.name, why.buf);
            rc = DM_EXIT_INCONCLUSIVE;
            goto cleanup;
        }
        for (size_t i = 0; i < why.len; i++)
            if (why.buf[i] == '\n')
                why.buf[i] = ';';
        warning("comparing runs with different inputs: %s", why.buf);
        strbuf_addf(&sb, "inputs differ (--allow-different-inputs): %s", why.buf);
        meta.inputs_note = sb.buf;
    }
    strbuf_reset(&why);
    if (!run_identity_same_scoring(&bi, &ci, &why)) {
        strbuf_rtrim(&why);
        if (!allow_scoring) {
            error("runs '%s' and '%s' are not comparable: %s\n"
                  "(rescore one with 'dipmap rescore RUN --scorer NAME', or pass "
                  "--allow-different-scoring)",
                  bi.name, ci.name, why.buf);
            rc = DM_EXIT_INCONCLUSIVE;
            goto cleanup;
        }
        warning("comparing runs scored differently: %s", why.buf);
    }
    warn_unfinished("baseline", &bi);
    warn_unfinished("candidate", &ci);

    if (store_trials_load(bst ? bst : st, bi.name, &bt, &nb) < 0 ||
        store_trials_load(st, ci.name, &ct, &nc) < 0)
        goto cleanup;

    meta.baseline = &bi;
    meta.candidate = &ci;
    meta.base_trials = bt;
    meta.n_base = nb;
    meta.cand_trials = ct;
    meta.n_cand = nc;
    compare_runs(bt, nb, ct, nc, &co, &res);
    have_res = 1;

    {
        struct strbuf md = STRBUF_INIT;
        report_compare_markdown(&md, &res, &meta, 0);
        fwrite(md.buf, 1, md.len, stdout);
        strbuf_release(&md);
    }
    env = getenv("GITHUB_ACTIONS");
    if (env && !strcmp(env, "true")) {
        struct strbuf ann = STRBUF_INIT;
        report_compare_annotations(&ann, &res, MAX_ANNOTATIONS);
        fwrite(ann.buf, 1, ann.len, stdout);
        strbuf_release(&ann);
    }
    fflush(stdout);
    env = getenv("GITHUB_STEP_SUMMARY");
    if (env && *env)
        append_step_summary(env, &res, &meta);

    rc = res.verdict == VERDICT_PASS   ? DM_EXIT_OK
         : res.verdict == VERDICT_FAIL ? DM_EXIT_REGRESSION
                                       : DM_EXIT_INCONCLUSIVE;
    if (junit) {
        struct strbuf x = STRBUF_INIT;
        report_compare_junit(&x, &res, &meta);
        if (write_file(junit, &x))
            rc = DM_EXIT_USAGE;
        strbuf_release(&x);
    }
    if (json) {
        struct strbuf x = STRBUF_INIT;
        report_compare_json(&x, &res, &meta);
        if (write_file(json, &x))
            rc = DM_EXIT_USAGE;
        strbuf_release(&x);
    }
    if (out_dir && write_out_dir(out_dir, &res, &meta, bt, nb, ct, nc))
        rc = DM_EXIT_USAGE;

cleanup:
    if (have_res)
        compare_result_release(&res);
    store_trials_free(bt, nb);
    store_trials_free(ct, nc);
    run_info_release(&bi);
    run_info_release(&ci);
    store_close(st);
    store_close(bst);
    strvec_clear(&rest);
    strbuf_release(&why);
    strbuf_release(&sb);
    return rc;
}

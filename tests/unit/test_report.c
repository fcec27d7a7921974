/*
 * Unit tests for report.c: Markdown and HTML reports from statistics computed
 * over synthetic trials (stats_compute), escaping of hostile model output and
 * names, failure selection at the worst depths, formatting helpers.
 */
#include "report/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "stats/compare.h"
#include "report/plot.h"
#include "base/sha256.h"

#include "run/plan.h"
#include "stats/stats.h"
#include "store/store.h"
#include "base/strbuf.h"
#include "base/usage.h"
#include "test.h"
#include "test_points.h"
#include "base/xalloc.h"

#define HOSTILE_ANSWER "<script>document.title='pwned'</script>\"><img src=x onerror=alert(1)>"

static struct strbuf serr = STRBUF_INIT;
static const int depths[] = {0, 2500, 5000, 7500, 10000};
/* correct answers out of 10 questions per (length, depth) */
static const int correct8k[] = {10, 8, 5, 7, 9};
static const int correct32k[] = {9, 6, 3, 6, 9};

static size_t make_trials(struct trial_result **out)
{
    size_t n = 0, li, di, q;
    struct trial_result *t = xcalloc(2 * 5 * 10 + 1, sizeof(*t));

    for (li = 0; li < 2; li++)
        for (di = 0; di < 5; di++)
            for (q = 0; q < 10; q++) {
                struct trial_result *r = &t[n++];
                int k = li ? correct32k[di] : correct8k[di];
                char id[16];
                trial_result_init(r);
                snprintf(id, sizeof(id), "q%02zu", q);
                r->question_id = xstrdup(id);
                r->length = li ? 32768 : 8192;
                r->depth_bp = depths[di];
                r->facts.realized_length = r->length - 3;
                r->usage_prompt_tokens =
                    li ? (long)(r->facts.realized_length * 1.05) : r->facts.realized_length;
                r->facts.realized_depth = depths[di] / 10000.0;
                r->outcome = (int)q < k ? OUTCOME_CORRECT : OUTCOME_WRONG;
                r->answer = xstrdup((int)q < k ? "right" : "wrong answer");
            }
    /* one hostile answer in the worst 32k cell, one non-scored outcome */
    free(t[50 + 20 + 9].answer);
    t[50 + 20 + 9].answer = xstrdup(HOSTILE_ANSWER);
    t[50 + 20 + 8].outcome = OUTCOME_EMPTY;
    free(t[50 + 20 + 8].answer);
    t[50 + 20 + 8].answer = NULL;
    *out = t;
    return n;
}

static void free_trials(struct trial_result *t, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        trial_result_release(&t[i]);
    free(t);
}

static void fill_run(struct run_info *r)
{
    memset(r, 0, sizeof(*r));
    r->name = "nightly-<1>";
    r->model_requested = "x\"; system(\"touch pwned\"); \"";
    r->model_served = "served|model";
    r->endpoints = "http://127.0.0.1:9/v1";
    r->settings_json = "{\"dataset\":\"datasets/q.jsonl\",\"lengths\":\"8k,32k\",\"repeats\":1}";
    r->golden_sha256 = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    r->template_sha256 = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
    r->tokenizer_name = "cl100k_base";
    r->status = RUN_COMPLETE;
    r->trials_planned = 100;
    r->trials_done = 100;
    r->created_at = 1764490000;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    const char *p = hay;
    while ((p = strstr(p, needle))) {
        n++;
        p += strlen(needle);
    }
    return n;
}

static void test_helpers(void)
{
    struct strbuf sb = STRBUF_INIT;
    report_pct(&sb, 0.955);
    CHECK_STR(sb.buf, "95.5%");
    strbuf_reset(&sb);
    report_pct(&sb, NAN);
    CHECK_STR(sb.buf, "\xE2\x80\x93");
    strbuf_reset(&sb);
    report_pp(&sb, 0.25);
    CHECK_STR(sb.buf, "+25.0 pp");
    strbuf_reset(&sb);
    report_pp(&sb, -0.031);
    CHECK_STR(sb.buf, "-3.1 pp");
    strbuf_reset(&sb);
    plan_format_length(&sb, 32768);
    CHECK_STR(sb.buf, "32k");
    strbuf_reset(&sb);
    plan_format_length(&sb, 1000);
    CHECK_STR(sb.buf, "1000");
    strbuf_reset(&sb);
    plan_format_length(&sb, 1048576); /* --lengths 1m reads back as 1m, not 1024k */
    CHECK_STR(sb.buf, "1m");
    strbuf_reset(&sb);
    plan_format_length(&sb, 3L * 1048576 / 2);
    CHECK_STR(sb.buf, "1536k");
    strbuf_reset(&sb);
    report_time(&sb, 1764490000);
    CHECK_STR(sb.buf, "2025-11-30 08:06:40 UTC");
    strbuf_release(&sb);
}

static void test_pick_failures(void)
{
    struct trial_result *t;
    size_t n = make_trials(&t), k, i;
    struct run_stats s;
    struct stats_options o;
    const struct trial_result **f = NULL;

    stats_options_init(&o);
    o.bootstrap_iters = 200;
    CHECK_INT(stats_compute(pts(0, t, n), n, &o, &s, &serr), 0);
    /* worst depth only: 8k at 50% has 5 failures, 32k at 50% has 7 (one empty) */
    k = report_pick_failures(t, n, &s, 1, 100, &f);
    CHECK_INT(k, 5 + 7);
    for (i = 0; i < k; i++) {
        CHECK_INT(f[i]->depth_bp, 5000);
        CHECK(f[i]->outcome != OUTCOME_CORRECT);
    }
    CHECK_INT(f[0]->length, 8192);
    CHECK_INT(f[k - 1]->length, 32768);
    free(f);
    /* two worst depths, capped at 6 per length */
    k = report_pick_failures(t, n, &s, 2, 6, &f);
    CHECK_INT(k, 12);
    for (i = 0; i < k; i++)
        CHECK(f[i]->depth_bp == 5000 || f[i]->depth_bp == 7500 || f[i]->depth_bp == 2500);
    free(f);
    k = report_pick_failures(t, n, &s, 0, 6, &f);
    CHECK_INT(k, 0);
    CHECK(f == NULL);
    run_stats_release(&s);
    free_trials(t, n);
}

static void build(struct strbuf *md, struct strbuf *html)
{
    struct trial_result *t;
    size_t n = make_trials(&t), k, i;
    struct run_stats s;
    struct stats_options o;
    struct run_info r;
    const struct trial_result **f = NULL;
    struct report_failure *rf;
    const char *answers[] = {"right", "<b>also</b> right"};
    struct report_plot plots[] = {
        {"U-curve", "ucurve.svg",
         "<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"><g id=\"u\"/></svg>"},
        {"heatmap", "../heatmap.svg", NULL},
    };
    struct report_input in;

    stats_options_init(&o);
    o.bootstrap_iters = 200;
    CHECK_INT(stats_compute(pts(0, t, n), n, &o, &s, &serr), 0);
    fill_run(&r);
    k = report_pick_failures(t, n, &s, 1, 100, &f);
    rf = xcalloc(k + 1, sizeof(*rf));
    for (i = 0; i < k; i++) {
        rf[i].trial = f[i];
        rf[i].question = "who wrote <i>Ulysses</i>?";
        rf[i].answers = answers;
        rf[i].n_answers = 2;
    }
    memset(&in, 0, sizeof(in));
    in.run = &r;
    in.stats = &s;
    in.plots = plots;
    in.n_plots = 2;
    in.failures = rf;
    in.n_failures = k;
    in.golden_path = "datasets/q.jsonl";
    in.generated_at = 1764490000;
    report_markdown(md, &in);
    report_html(html, &in);
    free(rf);
    free(f);
    run_stats_release(&s);
    free_trials(t, n);
}

static void test_markdown(void)
{
    struct strbuf md = STRBUF_INIT, html = STRBUF_INIT;

    build(&md, &html);
    if (getenv("DUMP_MD"))
        fputs(md.buf, stdout);
    if (getenv("DUMP_HTML"))
        fputs(html.buf, stderr);
    CHECK(!strncmp(md.buf,
                   "# dipmap report: nightly-&lt;1&gt; (x\"; system(\"touch pwned\"); \")\n",
                   strlen("# dipmap report: nightly-&lt;1&gt;")));
    CHECK(strstr(md.buf, "## Dip per length"));
    CHECK(strstr(md.buf, "| length | depth | accuracy | 95% interval | n (scored) | correct | "
                         "questions | design effect |"));
    /* 8k at 50%: 5 of 10 -> 50.0% with the Wilson interval [23.7%, 76.3%] */
    CHECK(strstr(md.buf, "| 8k (8192) | 50% | 50.0% | \\[23.7%, 76.3%\\] | 10 | 5 |"));
    /* 32k at 50%: 3 correct, 6 wrong, 1 empty -> 33.3% of 9 scored */
    CHECK(strstr(md.buf, "| 32k (32768) | 50% | 33.3% |"));
    /*
     * dip at 8k: edge (100% + 90%)/2 = 95%, middle = mean of 25/50/75% =
     * (80 + 50 + 70)/3 = 66.7% -> +28.3 pp; dip_worst: worst middle 50% -> +45.0 pp
     */
    CHECK(strstr(md.buf, "| 8k (8192) | 95.0% |"));
    CHECK(strstr(md.buf, "| 66.7% | +28.3 pp |"));
    CHECK(strstr(md.buf, "| 50% | 50.0% | +45.0 pp |"));
    CHECK(strstr(md.buf, "- **dip at 8k:** +28.3 pp \\["));
    CHECK(strstr(md.buf, "(edge 95.0%, middle 25-75% 66.7%; 10 questions)"));
    CHECK(strstr(md.buf, "- **warning:** only 10 questions carry a result"));
    /* the 32k server counts 5% more: every 32k trial is a mismatch */
    CHECK(strstr(md.buf, "MISMATCH: 50 trials"));
    /* coverage counts the empty outcome */
    CHECK(strstr(md.buf, "| 32k (32768) | 50% | 3 | 6 | 0 | 0 | 1 | 0 | 0 | 0 |"));
    /* plots: the file name is sanitised, alt text escaped */
    CHECK(strstr(md.buf, "![U-curve](ucurve.svg)"));
    CHECK(strstr(md.buf, "![heatmap](_._heatmap.svg)"));
    /* provenance and settings */
    CHECK(strstr(md.buf, "| golden set | aaaaaaaa"));
    CHECK(strstr(md.buf, "| lengths | 8k,32k |"));
    CHECK(strstr(md.buf, "| repeats | 1 |"));
    CHECK(strstr(md.buf, "| model served | served\\|model |"));
    CHECK(strstr(md.buf, "## Ordering advice"));
    /* model answers are not in summary.md (only the HTML lists failures) */
    CHECK(!strstr(md.buf, "<script"));
    CHECK(!strstr(md.buf, "Failed trials"));
    /* every table row has the same number of unescaped pipes as its header */
    {
        const char *line = md.buf;
        while (line && *line) {
            const char *nl = strchr(line, '\n');
            size_t len = nl ? (size_t)(nl - line) : strlen(line);
            if (len && line[0] == '|') {
                size_t i, pipes = 0;
                for (i = 0; i < len; i++)
                    if (line[i] == '|' && (i == 0 || line[i - 1] != '\\'))
                        pipes++;
                CHECK(pipes >= 3);
            }
            line = nl ? nl + 1 : NULL;
        }
    }
    strbuf_release(&md);
    strbuf_release(&html);
}

static void test_html(void)
{
    struct strbuf md = STRBUF_INIT, html = STRBUF_INIT;

    build(&md, &html);
    CHECK(!strncmp(html.buf, "<!DOCTYPE html>", 15));
    CHECK(strstr(html.buf, "</html>\n"));
    CHECK(strstr(html.buf, "Content-Security-Policy"));
    /* one script element, the report's own (allowed by its hash), no handler attribute, no fetch */
    {
        const char *sc = strstr(html.buf, "<script");
        static const char want[] = "<script>document.querySelectorAll('table.sortable')";
        CHECK(sc && !strncmp(sc, want, sizeof(want) - 1));
        CHECK(sc && !strstr(sc + 1, "<script"));
        CHECK(strstr(html.buf, report_script_csp()));
    }
    CHECK(!strstr(html.buf, "<img"));
    /* links only within the document (the question matrix's cells to their trials) */
    for (const char *h = strstr(html.buf, "href="); h; h = strstr(h + 1, "href="))
        CHECK(!strncmp(h, "href=\"#", 7));
    /* the hostile answer is shown as text */
    CHECK(strstr(html.buf, "&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt;&quot;&gt;"
                           "&lt;img src=x onerror=alert(1)&gt;"));
    CHECK(strstr(html.buf, "who wrote &lt;i&gt;Ulysses&lt;/i&gt;?"));
    CHECK(strstr(html.buf, "right | &lt;b&gt;also&lt;/b&gt; right"));
    CHECK(strstr(html.buf, "<title>dipmap report: nightly-&lt;1&gt; (x&quot;; system(&quot;touch "
                           "pwned&quot;); &quot;)</title>"));
    /* the SVG is inlined without its XML prolog */
    CHECK(
        strstr(html.buf, "<figure><svg xmlns=\"http://www.w3.org/2000/svg\"><g id=\"u\"/></svg>"));
    CHECK(!strstr(html.buf, "<?xml"));
    /* failures: one block per worst cell, 5 + 7 rows */
    CHECK_INT(count(html.buf, "<details>"), 2);
    CHECK(strstr(html.buf, "8k tokens, depth 50% (accuracy 50.0%): 5 failed trials shown"));
    CHECK(strstr(html.buf, "32k tokens, depth 50% (accuracy 33.3%): 7 failed trials shown"));
    CHECK(strstr(html.buf, "<td>empty</td>"));
    CHECK(strstr(html.buf, "(no answer)"));
    CHECK(strstr(html.buf, "Questions from datasets/q.jsonl."));
    CHECK(strstr(html.buf, "<td class=\"num\">50.0%</td>"));
    CHECK(strstr(html.buf, "+45.0 pp"));
    strbuf_release(&md);
    strbuf_release(&html);
}

static void test_empty_run(void)
{
    struct strbuf md = STRBUF_INIT, html = STRBUF_INIT;
    struct run_stats s;
    struct stats_options o;
    struct run_info r;
    struct report_input in;

    stats_options_init(&o);
    CHECK_INT(stats_compute(NULL, 0, &o, &s, &serr), 0);
    memset(&r, 0, sizeof(r));
    memset(&in, 0, sizeof(in));
    in.run = &r;
    in.stats = &s;
    in.plots_note = "plots skipped: gnuplot not found";
    report_markdown(&md, &in);
    report_html(&html, &in);
    CHECK(strstr(md.buf, "no scored trials"));
    CHECK(strstr(md.buf, "plots skipped: gnuplot not found"));
    CHECK(strstr(html.buf, "No failed trials at the worst depths."));
    run_stats_release(&s);
    strbuf_release(&md);
    strbuf_release(&html);
}

static void test_long_answer_cut(void)
{
    struct strbuf md = STRBUF_INIT, html = STRBUF_INIT;
    struct trial_result t[3];
    struct run_stats s;
    struct stats_options o;
    struct run_info r;
    struct report_input in;
    struct report_failure f;
    char *longa = xmalloc(5001);
    size_t i;

    /* 2-byte characters so a cut in the middle of one would be visible */
    for (i = 0; i < 5000; i += 2)
        memcpy(longa + i, "\xC3\xA9", 2);
    longa[5000] = '\0';
    for (i = 0; i < 3; i++) {
        trial_result_init(&t[i]);
        t[i].question_id = xstrdup("q1");
        t[i].length = 1000;
        t[i].depth_bp = (int)i * 5000;
        t[i].outcome = i == 1 ? OUTCOME_WRONG : OUTCOME_CORRECT;
    }
    t[1].answer = longa;
    stats_options_init(&o);
    o.bootstrap_iters = 0;
    CHECK_INT(stats_compute(pts(0, t, 3), 3, &o, &s, &serr), 0);
    fill_run(&r);
    memset(&in, 0, sizeof(in));
    memset(&f, 0, sizeof(f));
    f.trial = &t[1];
    in.run = &r;
    in.stats = &s;
    in.failures = &f;
    in.n_failures = 1;
    report_html(&html, &in);
    CHECK(strstr(html.buf, "\xC3\xA9 \xE2\x80\xA6 (3500 bytes more)"));
    CHECK(!strstr(html.buf, "\xEF\xBF\xBD"));
    CHECK(strstr(html.buf, "(not available)"));
    run_stats_release(&s);
    for (i = 0; i < 3; i++)
        trial_result_release(&t[i]);
    strbuf_release(&md);
    strbuf_release(&html);
}

static void test_plot_adapters(void)
{
    struct trial_result *t;
    size_t n = make_trials(&t), k;
    struct run_stats s;
    struct stats_options o;
    struct plot_series *v = NULL;
    struct plot_grid g;

    stats_options_init(&o);
    o.bootstrap_iters = 0;
    CHECK_INT(stats_compute(pts(0, t, n), n, &o, &s, &serr), 0);
    k = report_ucurve_series(&s, &v);
    CHECK_INT(k, 2);
    CHECK_STR(v[0].label, "8k tokens");
    CHECK_STR(v[1].label, "32k tokens");
    CHECK_INT(v[1].n, 5);
    CHECK_NEAR(v[1].pts[2].x, 50.0, 1e-9);
    CHECK_NEAR(v[1].pts[2].y, 3.0 / 9.0, 1e-9);
    CHECK(v[1].pts[2].lo < v[1].pts[2].y && v[1].pts[2].hi > v[1].pts[2].y);
    CHECK_NEAR(v[0].edge, 0.95, 1e-9);
    CHECK_NEAR(v[0].middle, 2.0 / 3.0, 1e-9); /* the 25-75% mean, not the worst depth */
    report_series_free(v, k);
    report_grid(&s, &g);
    CHECK_INT(g.ndepths, 5);
    CHECK_INT(g.nlengths, 2);
    CHECK_NEAR(g.depths[4], 100.0, 1e-9);
    CHECK_INT(g.lengths[1], 32768);
    CHECK_NEAR(g.acc[1 * 5 + 2], 3.0 / 9.0, 1e-9);
    CHECK_NEAR(g.acc[0 * 5 + 0], 1.0, 1e-9);
    report_grid_release(&g);
    run_stats_release(&s);
    free_trials(t, n);
}

static void test_compare_html(void)
{
    struct trial_result *b, *c;
    size_t nb = make_trials(&b), nc = make_trials(&c), i;
    struct compare_result r;
    struct compare_options co;
    struct compare_meta m;
    struct run_info rb, rc;
    struct strbuf html = STRBUF_INIT;

    /* the candidate loses every trial at 8k: a regression there, in its cells too (50% -> 0%
       at 50%); the anytime-valid tests need a drop this large to decide on 10 questions */
    for (i = 0; i < nc; i++)
        if (c[i].length == 8192)
            c[i].outcome = OUTCOME_WRONG;
    compare_options_init(&co);
    co.alpha = 0.9; /* 10 questions are too few for 0.05; the page is what is tested */
    compare_runs(pts(0, b, nb), nb, pts(1, c, nc), nc, &co, &r);
    fill_run(&rb);
    fill_run(&rc);
    rb.name = "base<x>";
    rc.name = "cand\"y";
    memset(&m, 0, sizeof(m));
    m.baseline = &rb;
    m.candidate = &rc;
    report_compare_html(&html, &r, &m, NULL);
    CHECK(strstr(html.buf, "<title>dipmap compare: base&lt;x&gt; vs cand&quot;y</title>"));
    CHECK(strstr(html.buf, "Plot not drawn"));
    CHECK(!strstr(html.buf, "<script"));
    /* the page states the verdict compare reached (on 10 questions the anytime-valid tests
       leave it INCONCLUSIVE; test 721 checks a FAIL in every format) */
    CHECK(strstr(html.buf, r.verdict == VERDICT_FAIL ? "<p class=\"verdict fail\">FAIL:"
                                                     : "<p class=\"verdict inconclusive\">"
                                                       "INCONCLUSIVE:"));
    /* the cell's row: name, pairs, both accuracies, the change, candidate minus baseline */
    CHECK(strstr(html.buf, "<td>8k @ 50%</td><td "
                           "class=\"num\">10</td><td class=\"num\">50.0%</td><td "
                           "class=\"num\">0.0%</td><td class=\"num\">-50.0 pp</td>"));
    /* the dip's rows say "dip", never a depth "all" or an accuracy with the other sign */
    CHECK(strstr(html.buf, "<td>8k dip</td>"));
    CHECK(!strstr(html.buf, "<td>all</td>"));
    compare_result_release(&r);
    strbuf_release(&html);
    free_trials(b, nb);
    free_trials(c, nc);
}

/* ---- fixture mode: fill a real store for the CLI tests (tests/cli/7xx) ---- */

/*
 * test_report --make-store DB --run NAME [--model M] [--tag T] [--time UNIX]
 *             [--dip FRACTION] [--golden FILE] [--hostile] [--questions N]
 * Adds one complete run to DB (created when missing): lengths 8k and 32k,
 * depths 0/25/50/75/100%, N questions (default 20), one repeat; accuracy
 * 0.95 at the edges falling by --dip (default 0.4) at 50% (32k: 1.25x the
 * dip). --golden writes the matching golden set and records it as the run's
 * "dataset" setting. --hostile makes the failed answers at 50% of 32k
 * hostile HTML. Prints nothing; exits 0 or 1.
 */
static int make_store(int argc, char **argv)
{
    const char *db = NULL, *name = NULL, *model = "fixture-model", *tag = NULL, *golden = NULL;
    double when = 1764000000, dip = 0.4;
    int hostile = 0, nq = 20, i, li, di, q, rc = 1;
    struct store *st;
    struct run_info r;
    struct strbuf settings = STRBUF_INIT;
    char golden_hex[SHA256_HEX_LEN + 1];
    static const long lengths[] = {8192, 32768};

    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--hostile")) {
            hostile = 1;
            continue;
        }
        if (!v)
            return fprintf(stderr, "missing value for %s\n", a), 1;
        i++;
        if (!strcmp(a, "--make-store"))
            db = v;
        else if (!strcmp(a, "--run"))
            name = v;
        else if (!strcmp(a, "--model"))
            model = v;
        else if (!strcmp(a, "--tag"))
            tag = v;
        else if (!strcmp(a, "--golden"))
            golden = v;
        else if (!strcmp(a, "--time"))
            when = strtod(v, NULL);
        else if (!strcmp(a, "--dip"))
            dip = strtod(v, NULL);
        else if (!strcmp(a, "--questions"))
            nq = (int)strtol(v, NULL, 10);
        else
            return fprintf(stderr, "unknown option %s\n", a), 1;
    }
    if (!db || !name || nq < 1)
        return fprintf(stderr, "need --make-store DB --run NAME\n"), 1;
    if (golden) {
        FILE *f = fopen(golden, "w");
        if (!f)
            return perror(golden), 1;
        for (q = 0; q < nq; q++)
            fprintf(f,
                    "{\"id\": \"q%02d\", \"question\": \"what is <b>code</b> number %d?\", "
                    "\"answers\": [\"answer-%d\", \"A&%d\"], \"gold\": [{\"id\": \"g%d\", "
                    "\"title\": \"t\", \"text\": \"the code number %d is answer-%d\"}]}\n",
                    q, q, q, q, q, q, q);
        fclose(f);
        strbuf_addstr(&settings, "{\"dataset\":\"");
        strbuf_addstr(&settings, golden); /* test paths need no JSON escaping */
        strbuf_addstr(&settings, "\",\"lengths\":\"8k,32k\",\"depths\":\"0:100:25\"}");
    } else {
        strbuf_addstr(&settings, "{\"lengths\":\"8k,32k\",\"depths\":\"0:100:25\"}");
    }
    st = store_open(db, STORE_CREATE);
    if (!st)
        goto out;
    memset(&r, 0, sizeof(r));
    r.name = (char *)name;
    r.model_requested = (char *)model;
    r.endpoints = "http://127.0.0.1:1/v1";
    r.settings_json = settings.buf;
    r.golden_sha256 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    if (golden && sha256_file_hex(golden, golden_hex) == 0)
        r.golden_sha256 = golden_hex; /* the real hash, as dipmap run records it */
    r.template_sha256 = "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210";
    r.tokenizer_name = "cl100k_base";
    r.tags = (char *)tag;
    r.created_at = when;
    r.started_at = when;
    r.finished_at = when + 600;
    r.status = RUN_COMPLETE;
    r.trials_planned = 2 * 5 * nq;
    if (store_run_create(st, &r) < 0)
        goto out;
    for (li = 0; li < 2; li++)
        for (di = 0; di < 5; di++) {
            double shape = 1.0 - fabs(depths[di] / 5000.0 - 1.0); /* 0 at edges, 1 at 50% */
            double acc = 0.95 - dip * (li ? 1.25 : 1.0) * shape;
            int k = (int)lround(acc * nq);
            for (q = 0; q < nq; q++) {
                struct trial_result t;
                char id[16], ans[64];
                trial_result_init(&t);
                snprintf(id, sizeof(id), "q%02d", q);
                t.question_id = id;
                t.length = lengths[li];
                t.depth_bp = depths[di];
                t.facts.realized_length = lengths[li] - 7;
                t.usage_prompt_tokens = t.facts.realized_length;
                t.facts.realized_depth = depths[di] / 10000.0;
                t.outcome = q < k ? OUTCOME_CORRECT : OUTCOME_WRONG;
                t.attempts = 1;
                t.finished_at = when + 1;
                if (q < k)
                    snprintf(ans, sizeof(ans), "answer-%d", q);
                else if (hostile && li == 1 && di == 2)
                    snprintf(ans, sizeof(ans), "%s",
                             q % 2 ? "<script>document.title='PWNED'</script>"
                                   : "\"><img src=x onerror=\"document.title='PWNED'\">");
                else
                    snprintf(ans, sizeof(ans), "wrong-%d", q);
                t.answer = ans;
                t.score = q < k;
                if (store_trial_put(st, name, &t) < 0)
                    goto out;
            }
        }
    if (store_flush(st) < 0)
        goto out;
    rc = 0;
out:
    if (st && store_close(st) < 0)
        rc = 1;
    strbuf_release(&settings);
    return rc;
}

/* The step summary's room: GitHub's 1 MiB less 16 KiB, less the file; none under 2 KiB. */
static void test_step_summary_room(void)
{
    char path[] = "/tmp/dipmap-test-summary.XXXXXX";
    int fd = mkstemp(path);
    struct strbuf md = STRBUF_INIT;
    FILE *fp;
    CHECK(fd >= 0);
    close(fd);
    CHECK(report_step_summary_room(path) == 1024 * 1024 - 16 * 1024);
    strbuf_addstr(&md, "## verdict\n");
    report_step_summary_append(path, &md);
    report_step_summary_append(path, &md);
    CHECK(report_step_summary_room(path) == 1024 * 1024 - 16 * 1024 - 2 * md.len);
    fp = fopen(path, "a");
    CHECK(fp != NULL);
    for (int i = 0; i < 1024 * 1024 - 16 * 1024 - 2000; i++)
        fputc('x', fp);
    fclose(fp);
    CHECK(report_step_summary_room(path) == 0); /* under 2 KiB left (and a warning) */
    unlink(path);
    CHECK(report_step_summary_room(path) == 1024 * 1024 - 16 * 1024); /* no file yet */
    strbuf_release(&md);
}

static struct strbuf printed = STRBUF_INIT;
static void capture_printed(const char *prefix, const char *msg)
{
    strbuf_addf(&printed, "%s%s\n", prefix ? prefix : "", msg);
}

/* report_make_dirs reports through err and prints nothing: the command prints it once. */
static void test_make_dirs(void)
{
    char tmpl[] = "/tmp/dipmap-make-dirs.XXXXXX";
    struct strbuf path = STRBUF_INIT, err = STRBUF_INIT;
    FILE *f;

    CHECK(mkdtemp(tmpl) != NULL);
    strbuf_addf(&path, "%s/a/b", tmpl);
    strbuf_reset(&printed);
    usage_set_hook(capture_printed);
    CHECK_INT(report_make_dirs(path.buf, &err), 0);
    CHECK_INT(err.len, 0);
    /* a file where a folder must be */
    strbuf_reset(&path);
    strbuf_addf(&path, "%s/file", tmpl);
    f = fopen(path.buf, "w");
    CHECK(f != NULL);
    if (f)
        fclose(f);
    CHECK_INT(report_make_dirs(path.buf, &err), -1);
    CHECK(strstr(err.buf, "/file is not a folder") != NULL);
    strbuf_reset(&err);
    strbuf_addstr(&path, "/sub");
    CHECK_INT(report_make_dirs(path.buf, &err), -1);
    CHECK(strstr(err.buf, "cannot create ") == err.buf);
    usage_set_hook(NULL);
    CHECK_STR(printed.buf, "");
    strbuf_setlen(&path, path.len - strlen("/sub"));
    CHECK_INT(unlink(path.buf), 0);
    strbuf_reset(&path);
    strbuf_addf(&path, "%s/a/b", tmpl);
    CHECK_INT(rmdir(path.buf), 0);
    strbuf_setlen(&path, path.len - 2);
    CHECK_INT(rmdir(path.buf), 0);
    CHECK_INT(rmdir(tmpl), 0);
    strbuf_release(&path);
    strbuf_release(&err);
    strbuf_release(&printed);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--make-store"))
        return make_store(argc, argv);
    RUN(test_helpers);
    RUN(test_pick_failures);
    RUN(test_markdown);
    RUN(test_html);
    RUN(test_empty_run);
    RUN(test_long_answer_cut);
    RUN(test_plot_adapters);
    RUN(test_compare_html);
    RUN(test_step_summary_room);
    RUN(test_make_dirs);
    test_points_free();
    return TEST_EXIT();
}

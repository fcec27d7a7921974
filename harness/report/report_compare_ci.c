/*
 * The CI outputs of a comparison: JUnit XML, GitHub annotations and the step
 * summary's limits, from the one verdict structure (report_verdict.c), and the
 * same outputs for a comparison refused before any test.
 */
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "run/axes.h"
#include "stats/compare.h"
#include "base/escape.h"
#include "run/plan.h"
#include "report/report-int.h"
#include "store/store.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"

#include "base/banned.h"

static const char *run_name(const struct run_info *r)
{
    return r && r->name ? r->name : "?";
}

/* ---- JUnit ---- */

static void xml_attr(struct strbuf *out, const char *name, const char *value)
{
    strbuf_addf(out, " %s=\"", name);
    escape_xml(out, value);
    strbuf_addch(out, '"');
}

/* classname and name of a test's testcase */
static void junit_names(struct strbuf *cls, struct strbuf *name, const struct compare_test *t)
{
    const struct compare_endpoint *ep = compare_endpoint_of(t->scope);
    if (t->scope == COMPARE_OVERALL) {
        strbuf_addstr(cls, "dipmap.compare");
        strbuf_addstr(name, "overall");
    } else if (t->scope == COMPARE_AXIS) {
        strbuf_addstr(cls, "dipmap.compare.axis");
        compare_test_name(name, t);
    } else if (t->axes_only) {
        strbuf_addstr(cls, "dipmap.compare.axes");
        compare_test_name(name, t);
    } else {
        strbuf_addstr(cls, "dipmap.compare.length.");
        plan_format_length(cls, t->length);
        if (ep) {
            /* "all depths", "middle (25-75%)", "dip": the table's label without parentheses */
            strbuf_addstr(name, ep->all_depths ? ep->phrase : ep->label);
        } else {
            strbuf_addstr(name, "depth ");
            plan_format_depth(name, t->depth_bp);
            if (t->axes) {
                strbuf_addstr(name, ", ");
                axes_format(name, t->axes, "");
            }
        }
    }
}

/* The testcase's text: keys, pairs, coverage, then the row's sentence. */
static void test_details(struct strbuf *out, const struct verdict_row *w)
{
    const struct compare_test *t = w->t;
    strbuf_addf(out, "%ld valid pairs of %ld keys (coverage %.1f%%) over %lu questions; ",
                t->n_pairs, t->n_keys, t->coverage * 100.0, (unsigned long)t->n_questions);
    if (!t->n_pairs) {
        strbuf_addstr(out, "no pairs: baseline n/a, candidate n/a");
        return;
    }
    strbuf_addf(out, "lost %ld, gained %ld; p(drop) %.6g; ", t->base_only, t->cand_only, t->p_drop);
    verdict_sentence(out, w);
    if (t->mde >= 0)
        strbuf_addf(out, "; detectable at 80%% power %.1f pp", t->mde * 100.0);
}

static void junit_element(struct strbuf *out, const char *tag, const char *type, const char *msg,
                          const char *body)
{
    strbuf_addf(out, "      <%s", tag);
    if (type)
        strbuf_addf(out, " type=\"%s\"", type);
    xml_attr(out, "message", msg);
    strbuf_addch(out, '>');
    escape_xml(out, body);
    strbuf_addf(out, "</%s>\n", tag);
}

/* The <failure>, <skipped> or nothing of one testcase: only what the gate tested fails. */
static void junit_outcome(struct strbuf *out, const struct verdict *v, const struct verdict_row *w,
                          const char *details)
{
    struct strbuf msg = STRBUF_INIT, body = STRBUF_INIT;
    const struct compare_result *r = v->r;
    size_t k;
    if (w->t->scope == COMPARE_OVERALL && r->verdict != VERDICT_PASS) {
        /* INCONCLUSIVE is not green: the verdict's test fails with its reasons */
        strbuf_addf(&body, "%s\n", v->headline.buf);
        verdict_counts(&body, v);
        strbuf_addch(&body, '\n');
        for (k = 0; k < r->n_reasons; k++)
            strbuf_addf(&body, "%s\n", r->reasons[k]);
        junit_element(out, "failure", r->verdict == VERDICT_FAIL ? "regression" : "inconclusive",
                      v->headline.buf, body.buf);
    } else if (w->fails) {
        verdict_sentence(&msg, w);
        junit_element(out, "failure", "regression", msg.buf, details);
    } else if (w->undecided) {
        strbuf_addf(&msg, "undecided: upper bound %+.1f pp is not below the tolerance %.1f pp",
                    w->t->upper * 100.0, r->opt.tolerance * 100.0);
        if (w->t->need_q > 0)
            strbuf_addf(&msg, "; a decision needs about %ld questions", w->t->need_q);
        junit_element(out, "failure", "inconclusive", msg.buf, details);
    } else if (w->t->status == CMP_NO_DATA && w->t->scope != COMPARE_OVERALL) {
        junit_element(out, "skipped", NULL, "not enough data", details);
    }
    strbuf_release(&msg);
    strbuf_release(&body);
}

static void junit_head(struct strbuf *out, const struct verdict *v, long failures, long skipped)
{
    const struct compare_meta *m = v->m;
    struct strbuf sb = STRBUF_INIT;
    struct strvec tested = STRVEC_INIT;
    size_t i;
    strbuf_addf(&sb, "dipmap compare %s vs %s", run_name(m ? m->baseline : NULL),
                run_name(m ? m->candidate : NULL));
    strbuf_addstr(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites");
    xml_attr(out, "name", "dipmap compare");
    strbuf_addf(out, " tests=\"%lu\" failures=\"%ld\" errors=\"0\" skipped=\"%ld\" time=\"0\">\n",
                (unsigned long)v->n, failures, skipped);
    strbuf_addstr(out, "  <testsuite");
    xml_attr(out, "name", sb.buf);
    strbuf_addf(out, " tests=\"%lu\" failures=\"%ld\" errors=\"0\" skipped=\"%ld\" time=\"0\">\n",
                (unsigned long)v->n, failures, skipped);
    strbuf_addstr(out, "    <properties>\n      <property name=\"baseline\"");
    xml_attr(out, "value", run_name(m ? m->baseline : NULL));
    strbuf_addstr(out, "/>\n      <property name=\"candidate\"");
    xml_attr(out, "value", run_name(m ? m->candidate : NULL));
    strbuf_addf(out,
                "/>\n      <property name=\"verdict\" value=\"%s\"/>\n"
                "      <property name=\"alpha\" value=\"%g\"/>\n"
                "      <property name=\"tolerance\" value=\"%g\"/>\n"
                "      <property name=\"gate\" value=\"%s\"/>\n",
                compare_verdict_name(v->r->verdict), v->r->opt.alpha, v->r->opt.tolerance,
                v->r->opt.gate == COMPARE_GATE_CELLS ? "cells" : "primary");
    strbuf_reset(&sb);
    verdict_counts(&sb, v);
    strbuf_addstr(out, "      <property name=\"counts\"");
    xml_attr(out, "value", sb.buf);
    strbuf_addstr(out, "/>\n");
    verdict_tested(&tested, v);
    for (i = 0; i < tested.nr; i++) {
        strbuf_addstr(out, "      <property name=\"tested\"");
        xml_attr(out, "value", tested.v[i]);
        strbuf_addstr(out, "/>\n");
    }
    strbuf_addstr(out, "    </properties>\n");
    strvec_clear(&tested);
    strbuf_release(&sb);
}

void report_compare_junit(struct strbuf *out, const struct compare_result *r,
                          const struct compare_meta *m)
{
    struct strbuf sb = STRBUF_INIT, name = STRBUF_INIT, cls = STRBUF_INIT;
    struct verdict v;
    long failures = 0, skipped = 0;
    size_t i;
    verdict_init(&v, r, m);
    for (i = 0; i < v.n; i++) {
        const struct verdict_row *w = &v.rows[i];
        if (w->t->scope == COMPARE_OVERALL)
            failures += r->verdict != VERDICT_PASS;
        else if (w->fails || w->undecided)
            failures++;
        else if (w->t->status == CMP_NO_DATA)
            skipped++;
    }
    junit_head(out, &v, failures, skipped);
    for (i = 0; i < v.n; i++) {
        strbuf_reset(&name);
        strbuf_reset(&cls);
        strbuf_reset(&sb);
        junit_names(&cls, &name, v.rows[i].t);
        test_details(&sb, &v.rows[i]);
        strbuf_addstr(out, "    <testcase");
        xml_attr(out, "classname", cls.buf);
        xml_attr(out, "name", name.buf);
        strbuf_addstr(out, " time=\"0\">\n");
        junit_outcome(out, &v, &v.rows[i], sb.buf);
        strbuf_addstr(out, "      <system-out>");
        escape_xml(out, sb.buf);
        strbuf_addstr(out, "</system-out>\n    </testcase>\n");
    }
    strbuf_addstr(out, "  </testsuite>\n</testsuites>\n");
    verdict_release(&v);
    strbuf_release(&sb);
    strbuf_release(&name);
    strbuf_release(&cls);
}

void report_compare_junit_error(struct strbuf *out, const char *baseline, const char *candidate,
                                const char *why)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "dipmap compare %s vs %s", baseline ? baseline : "?",
                candidate ? candidate : "?");
    strbuf_addstr(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites");
    xml_attr(out, "name", "dipmap compare");
    strbuf_addstr(out, " tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0\">\n");
    strbuf_addstr(out, "  <testsuite");
    xml_attr(out, "name", sb.buf);
    strbuf_addstr(out, " tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0\">\n");
    strbuf_addstr(out, "    <properties>\n      <property name=\"verdict\" "
                       "value=\"INCONCLUSIVE\"/>\n    </properties>\n");
    strbuf_addstr(out, "    <testcase classname=\"dipmap.compare\" name=\"overall\" time=\"0\">\n"
                       "      <error type=\"refused\"");
    xml_attr(out, "message", why);
    strbuf_addch(out, '>');
    escape_xml(out, why);
    strbuf_addstr(out, "</error>\n    </testcase>\n  </testsuite>\n</testsuites>\n");
    strbuf_release(&sb);
}

void report_compare_refused_markdown(struct strbuf *out, const char *baseline,
                                     const char *candidate, const char *why)
{
    strbuf_addstr(out, "## dipmap compare: INCONCLUSIVE \xe2\x9a\xa0\xef\xb8\x8f\n\n"
                       "**INCONCLUSIVE: not compared.** Baseline **");
    escape_md(out, baseline ? baseline : "?");
    strbuf_addstr(out, "** vs candidate **");
    escape_md(out, candidate ? candidate : "?");
    strbuf_addstr(out, "**.\n\n### Not compared because\n\n");
    for (const char *p = why; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        struct strbuf line = STRBUF_INIT;
        strbuf_add(&line, p, len);
        if (line.len) {
            strbuf_addstr(out, "- ");
            escape_md(out, line.buf);
            strbuf_addch(out, '\n');
        }
        strbuf_release(&line);
        p += len + (nl != NULL);
    }
    strbuf_addch(out, '\n');
}

/* ---- GitHub annotations ---- */

static void gh_escape(struct strbuf *out, const char *s, int property)
{
    for (; *s; s++) {
        if (*s == '%')
            strbuf_addstr(out, "%25");
        else if (*s == '\r')
            strbuf_addstr(out, "%0D");
        else if (*s == '\n')
            strbuf_addstr(out, "%0A");
        else if (property && *s == ':')
            strbuf_addstr(out, "%3A");
        else if (property && *s == ',')
            strbuf_addstr(out, "%2C");
        else
            strbuf_addch(out, *s);
    }
}

static void annotation(struct strbuf *out, const char *level, const char *title, const char *msg)
{
    strbuf_addf(out, "::%s title=", level);
    gh_escape(out, title, 1);
    strbuf_addstr(out, "::");
    gh_escape(out, msg, 0);
    strbuf_addch(out, '\n');
}

/*
 * The rows worth a line, in the verdict's order (what the gate tested first): gated
 * regressions (::error), then undecided endpoints and regressions that are not gated
 * (::warning).
 */
static int annotated(const struct verdict_row *w, int errors)
{
    if (w->t->scope == COMPARE_OVERALL)
        return 0;
    return errors ? w->fails : (!w->fails && (w->undecided || w->t->status == CMP_REGRESSION));
}

void report_compare_annotations(struct strbuf *out, const struct compare_result *r, int max_lines)
{
    struct strbuf msg = STRBUF_INIT, title = STRBUF_INIT;
    struct verdict v;
    size_t i, n = 0, emitted = 0;
    int errors;
    if (max_lines <= 0)
        return;
    verdict_init(&v, r, NULL);
    for (i = 0; i < v.n; i++)
        n += annotated(&v.rows[i], 1) || annotated(&v.rows[i], 0);
    for (errors = 1; errors >= 0; errors--)
        for (i = 0; i < v.n && emitted < (size_t)max_lines; i++) {
            const struct verdict_row *w = &v.rows[i];
            if (!annotated(w, errors))
                continue;
            strbuf_reset(&msg);
            strbuf_reset(&title);
            if (emitted == (size_t)max_lines - 1 && n - emitted > 1) {
                strbuf_addf(&msg, "%lu more; see the step summary or JUnit report",
                            (unsigned long)(n - emitted));
                annotation(out, errors ? "error" : "warning", "dipmap compare", msg.buf);
                emitted = (size_t)max_lines;
                break;
            }
            strbuf_addstr(&title, w->fails       ? "dipmap regression "
                                  : w->undecided ? "dipmap undecided "
                                                 : "dipmap secondary ");
            compare_test_name(&title, w->t);
            verdict_sentence(&msg, w);
            annotation(out, errors ? "error" : "warning", title.buf, msg.buf);
            emitted++;
        }
    verdict_release(&v);
    strbuf_release(&msg);
    strbuf_release(&title);
}

void report_compare_refused_annotation(struct strbuf *out, const char *why)
{
    strbuf_addstr(out, "::error title=dipmap compare refused::");
    gh_escape(out, why, 0);
    strbuf_addch(out, '\n');
}

/* GitHub's per-step summary limit is 1 MiB; keep a margin for other steps' text. */
#define STEP_SUMMARY_MAX (1024 * 1024 - 16 * 1024)
#define STEP_SUMMARY_MIN 2048

size_t report_step_summary_room(const char *path)
{
    struct stat st;
    size_t room = STEP_SUMMARY_MAX;
    if (!stat(path, &st) && st.st_size > 0)
        room = (size_t)st.st_size >= room ? 0 : room - (size_t)st.st_size;
    if (room < STEP_SUMMARY_MIN) {
        warning("$GITHUB_STEP_SUMMARY (%s) is already near GitHub's 1 MiB limit; "
                "summary not appended",
                path);
        return 0;
    }
    return room;
}

void report_step_summary_append(const char *path, const struct strbuf *md)
{
    FILE *fp = fopen(path, "a");
    int bad = !fp;
    if (fp) {
        bad = fwrite(md->buf, 1, md->len, fp) != md->len;
        bad |= fclose(fp) != 0;
    }
    if (bad)
        warning("cannot append to $GITHUB_STEP_SUMMARY (%s): %s", path, strerror(errno));
}

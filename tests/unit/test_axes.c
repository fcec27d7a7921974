/*
 * Named trial axes (axes.h): the canonical string (sorted names, each once),
 * its errors, getters and setters, and the grouping helpers reports use.
 */
#include <stdlib.h>
#include <string.h>

#include "run/axes.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "run/trial.h"

#include "test.h"
#include "test_points.h"

static void test_canonical(void)
{
    struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
    CHECK_INT(axes_canonical("question-at=start;needles=2;distractors=hard", &out, &err), 0);
    CHECK_STR(out.buf, "distractors=hard;needles=2;question-at=start");
    CHECK(axes_is_canonical(out.buf));
    CHECK(!axes_is_canonical("needles=2;distractors=hard"));
    CHECK(axes_is_canonical(""));
    CHECK(axes_is_canonical(NULL));
    strbuf_reset(&out);
    CHECK_INT(axes_canonical("", &out, &err), 0);
    CHECK_STR(out.buf, "");
    CHECK_INT(axes_canonical(NULL, &out, &err), 0);
    CHECK_INT(axes_canonical("needles=2;needles=4", &out, &err), -1);
    CHECK(strstr(err.buf, "axis needles given twice") != NULL);
    strbuf_reset(&err);
    CHECK_INT(axes_canonical("needles", &out, &err), -1);
    CHECK(strstr(err.buf, "axis 'needles' has no '=value'") != NULL);
    strbuf_reset(&err);
    CHECK_INT(axes_canonical("Needles=2", &out, &err), -1);
    CHECK(strstr(err.buf, "'Needles' is not an axis name") != NULL);
    strbuf_reset(&err);
    CHECK_INT(axes_canonical("needles=", &out, &err), -1);
    CHECK(strstr(err.buf, "axis needles: '' is not a value") != NULL);
    strbuf_reset(&err);
    CHECK_INT(axes_canonical("lengths=50%", &out, &err), 0);
    strbuf_release(&out);
    strbuf_release(&err);
}

static void test_get_set(void)
{
    struct strbuf v = STRBUF_INIT, out = STRBUF_INIT;
    const char *a = "needles=2;question-at=start;spacing=25";
    size_t len = 0;
    CHECK(axes_find(a, "needles", &len) == a + 8 && len == 1);
    CHECK_INT(axes_get(a, "question-at", &v), 1);
    CHECK_STR(v.buf, "start");
    CHECK_INT(axes_get(a, "spacing", &v), 1);
    CHECK_STR(v.buf, "25");
    /* a name that is a prefix of another is not that one */
    CHECK(axes_find("needles-x=1", "needles", NULL) == NULL);
    CHECK_INT(axes_get(a, "distractors", &v), 0);
    CHECK_STR(v.buf, "");
    CHECK_INT(axes_get(NULL, "needles", &v), 0);
    CHECK(axes_has(a, "question-at", "start"));
    CHECK(!axes_has(a, "question-at", "star"));
    axes_set(&out, a, "distractors", "hard");
    CHECK_STR(out.buf, "distractors=hard;needles=2;question-at=start;spacing=25");
    strbuf_reset(&out);
    axes_set(&out, a, "question-at", "end");
    CHECK_STR(out.buf, "needles=2;question-at=end;spacing=25");
    strbuf_reset(&out);
    axes_set(&out, a, "needles", NULL);
    CHECK_STR(out.buf, "question-at=start;spacing=25");
    strbuf_reset(&out);
    axes_set(&out, "", "zz", "1");
    CHECK_STR(out.buf, "zz=1");
    strbuf_reset(&out);
    axes_format(&out, a, "-");
    CHECK_STR(out.buf, "needles=2, question-at=start, spacing=25");
    strbuf_reset(&out);
    axes_format(&out, "", "-");
    CHECK_STR(out.buf, "-");
    strbuf_release(&v);
    strbuf_release(&out);
}

/* axes_next: the one walk over "name=value;..." (find, split, names_of, compare, reports) */
static void test_next(void)
{
    const char *p = "needles=2;question-at=start", *bad = "a=1;oops;b=2", *none = NULL;
    struct axes_pair pr;
    CHECK_INT(axes_next(&p, &pr), 1);
    CHECK_INT((int)pr.name_len, 7);
    CHECK(!memcmp(pr.name, "needles", 7) && pr.value_len == 1 && pr.value[0] == '2');
    CHECK_INT(axes_next(&p, &pr), 1);
    CHECK(pr.name_len == 11 && !memcmp(pr.name, "question-at", 11));
    CHECK(pr.value_len == 5 && !memcmp(pr.value, "start", 5));
    CHECK_INT(axes_next(&p, &pr), 0);
    CHECK_INT(axes_next(&p, &pr), 0); /* stays at the end */
    CHECK_INT(axes_next(&none, &pr), 0);
    CHECK_INT(axes_next(&bad, &pr), 1);
    CHECK_INT(axes_next(&bad, &pr), -1); /* "oops" has no '=': named, not skipped */
    CHECK(pr.name_len == 4 && !memcmp(pr.name, "oops", 4));
    CHECK(!strcmp(bad, "oops;b=2"));
}

static void test_grouping(void)
{
    struct trial_result t[4];
    struct strvec names = STRVEC_INIT, values = STRVEC_INIT;
    struct trial_result *sel;
    size_t n, i;
    for (i = 0; i < 4; i++)
        trial_result_init(&t[i]);
    t[0].axes = "question-at=start";
    t[1].axes = "needles=2;question-at=end";
    t[2].axes = "";
    t[3].axes = NULL;
    axes_names_of(pts(0, t, 4), 4, &names);
    CHECK_INT(names.nr, 2);
    CHECK_STR(names.v[0], "needles");
    CHECK_STR(names.v[1], "question-at");
    axes_values_of(pts(0, t, 4), 4, "question-at", &values);
    CHECK_INT(values.nr, 2);
    CHECK_STR(values.v[0], "start");
    CHECK_STR(values.v[1], "end");
    sel = axes_select(t, 4, "question-at", "end", &n);
    CHECK_INT(n, 1);
    CHECK(n == 1 && sel[0].axes == t[1].axes);
    free(sel);
    sel = axes_select(t, 4, "needles", NULL, &n);
    CHECK_INT(n, 3);
    free(sel);
    strvec_clear(&names);
    strvec_clear(&values);
}

int main(void)
{
    RUN(test_canonical);
    RUN(test_get_set);
    RUN(test_next);
    RUN(test_grouping);
    test_points_free();
    return TEST_EXIT();
}

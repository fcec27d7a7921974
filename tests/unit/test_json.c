/* Unit tests for json.c: parsing and its errors, typed getters' file:line messages, walking, the
 * writer. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/strbuf.h"

#include "test.h"

static void test_parse_and_errors(void)
{
    struct strbuf err = STRBUF_INIT;
    const char *text = "{\"a\": 1, \"b\": [true, null, \"x\"], \"c\": {\"d\": \"\xc3\xa9\"}} tail";
    struct json *root = json_parse(text, 56, &err);
    CHECK(root != NULL);
    CHECK_INT(err.len, 0);
    CHECK_INT(json_kind(root), JSON_OBJECT);
    CHECK_NEAR(json_num(json_get(root, "a"), -1), 1.0, 0);
    CHECK_INT(json_size(json_get(root, "b")), 3);
    CHECK(json_is_true(json_at(json_get(root, "b"), 0)));
    CHECK_INT(json_kind(json_at(json_get(root, "b"), 1)), JSON_NULL);
    CHECK_STR(json_str(json_at(json_get(root, "b"), 2)), "x");
    CHECK(json_at(json_get(root, "b"), 3) == NULL);
    CHECK_STR(json_get_str(json_get(root, "c"), "d"), "\xc3\xa9");
    CHECK(json_get(root, "A") == NULL);                /* case-sensitive */
    CHECK(json_get(json_get(root, "b"), "a") == NULL); /* not an object */
    CHECK_INT(json_kind(json_get(root, "zz")), JSON_ABSENT);
    json_free(root);

    /* not JSON: NULL and where it broke */
    CHECK(json_parse("{\"a\": tru}", 10, &err) == NULL);
    CHECK_STR(err.buf, "invalid JSON at byte 7");
    strbuf_reset(&err);
    /* the length bounds the text: "[1]x" cut at 3 parses */
    root = json_parse("[1]x", 3, &err);
    CHECK(root != NULL);
    json_free(root);
    json_free(NULL);
    strbuf_release(&err);
}

static void test_typed_getters(void)
{
    struct strbuf err = STRBUF_INIT;
    struct json *o = json_parse("{\"s\": \"v\", \"n\": 2.5, \"b\": false, \"bad\": [1]}", 46, NULL);
    const char *s = "untouched";
    double n = 0;
    int b = 7;

    CHECK(o != NULL);
    CHECK_INT(json_want_str(o, "s", "f.jsonl:3", &s, &err), 0);
    CHECK_STR(s, "v");
    CHECK_INT(json_want_num(o, "n", "f.jsonl:3", &n, &err), 0);
    CHECK_NEAR(n, 2.5, 0);
    CHECK_INT(json_want_bool(o, "b", "f.jsonl:3", &b, &err), 0);
    CHECK_INT(b, 0);
    s = "untouched";
    CHECK_INT(json_want_str(o, "missing", "f.jsonl:3", &s, &err), 1);
    CHECK_STR(s, "untouched");
    CHECK_INT(err.len, 0);
    CHECK_INT(json_want_str(o, "bad", "f.jsonl:3", &s, &err), -1);
    CHECK_STR(err.buf, "f.jsonl:3: \"bad\" must be a string, not an array");
    strbuf_reset(&err);
    CHECK_INT(json_want_num(o, "s", "cfg.json", &n, &err), -1);
    CHECK_STR(err.buf, "cfg.json: \"s\" must be a number, not a string");
    json_free(o);
    strbuf_release(&err);
}

static void test_walk_members(void)
{
    struct json *o = json_parse("{\"x\": 1, \"y\": 2}", 16, NULL);
    const struct json *m;
    struct strbuf keys = STRBUF_INIT;
    for (m = json_first(o); m; m = json_next(m))
        strbuf_addstr(&keys, json_key(m));
    CHECK_STR(keys.buf, "xy");
    CHECK(json_first(json_get(o, "x")) == NULL); /* a number has no children */
    CHECK_INT(json_size(o), 2);
    json_free(o);
    strbuf_release(&keys);
}

static void test_writer(void)
{
    struct json *o = json_new_object(), *arr, *inner;
    struct strbuf out = STRBUF_INIT;
    char *s;

    json_add_str(o, "name", "a \"q\"\n\x01");
    json_add_str(o, "none", NULL);
    json_add_num(o, "n", 3);
    json_add_bool(o, "ok", 1);
    arr = json_add_array(o, "list");
    json_add_num(arr, NULL, 1.5);
    json_add_null(arr, NULL);
    inner = json_new_object();
    json_add_str(inner, "k", "v");
    json_add(arr, NULL, inner);
    json_add_str(o, "gone", "x");
    json_remove(o, "gone");
    json_print(&out, o, 0);
    CHECK_STR(out.buf, "{\"name\":\"a \\\"q\\\"\\n\\u0001\",\"none\":null,\"n\":3,\"ok\":true,"
                       "\"list\":[1.5,null,{\"k\":\"v\"}]}");
    /* the printed text is ours to free() */
    s = json_print_str(inner, 0);
    CHECK_STR(s, "{\"k\":\"v\"}");
    free(s);
    /* and it parses back to the same text */
    {
        struct json *back = json_parse(out.buf, out.len, NULL);
        struct strbuf again = STRBUF_INIT;
        json_print(&again, back, 0);
        CHECK_STR(again.buf, out.buf);
        strbuf_release(&again);
        json_free(back);
    }
    json_free(o);
    strbuf_release(&out);
}

/* json_copy: a deep copy that outlives its source; json_is_false only for the literal false */
static void test_copy_and_false(void)
{
    const char text[] = "{\"a\":false,\"b\":true,\"c\":null,\"d\":{\"e\":[1,\"x\",false]}}";
    struct json *src = json_parse(text, strlen(text), NULL), *copy, *o = json_new_object();
    char *s;
    CHECK(json_is_false(json_get(src, "a")));
    CHECK(!json_is_false(json_get(src, "b")));
    CHECK(!json_is_false(json_get(src, "c")));
    CHECK(!json_is_false(json_get(src, "missing")));
    CHECK(json_is_false(json_at(json_get(json_get(src, "d"), "e"), 2)));
    copy = json_copy(json_get(src, "d"));
    json_free(src);
    json_add(o, "d", copy);
    s = json_print_str(o, 0);
    CHECK_STR(s, "{\"d\":{\"e\":[1,\"x\",false]}}");
    free(s);
    json_free(o);
}

static void test_sort_keys(void)
{
    const char *t = "{\"b\":{\"y\":1,\"x\":2},\"a\":[{\"d\":1,\"c\":2}]}";
    struct json *o = json_parse(t, strlen(t), NULL);
    char *s;
    json_sort_keys(o);
    s = json_print_str(o, 0);
    CHECK_STR(s, "{\"a\":[{\"c\":2,\"d\":1}],\"b\":{\"x\":2,\"y\":1}}");
    free(s);
    json_free(o);
}

/* numbers without data are null, intervals [lo, hi] or null; stored text parses or gives NULL */
static void test_numbers_intervals_equal(void)
{
    struct json *o = json_new_object(), *a, *b;
    char *s;
    json_add_num(o, "nan", NAN);
    json_add_num(o, "inf", -INFINITY);
    json_add_interval(o, "ci", 0.25, 0.5);
    json_add_interval(o, "none", 0.25, NAN);
    CHECK_INT(json_kind(json_get(o, "nan")), JSON_NULL);
    CHECK_INT(json_kind(json_get(o, "inf")), JSON_NULL);
    s = json_print_str(o, 0);
    CHECK_STR(s, "{\"nan\":null,\"inf\":null,\"ci\":[0.25,0.5],\"none\":null}");
    free(s);
    json_free(o);

    CHECK(json_parse_str(NULL) == NULL);
    CHECK(json_parse_str("{\"a\":") == NULL);
    a = json_parse_str("{\"a\":[1,2],\"b\":{\"c\":\"x\"}}");
    b = json_parse_str("{\"b\":{\"c\":\"x\"},\"a\":[1,2]}");
    CHECK(a && b);
    CHECK_INT(json_equal(a, b), 1); /* member order aside */
    CHECK_INT(json_equal(json_get(a, "a"), json_get(b, "b")), 0);
    json_free(b);
    b = json_parse_str("{\"a\":[2,1],\"b\":{\"c\":\"x\"}}");
    CHECK_INT(json_equal(a, b), 0); /* element order counts */
    json_free(a);
    json_free(b);
}

int main(void)
{
    RUN(test_parse_and_errors);
    RUN(test_typed_getters);
    RUN(test_walk_members);
    RUN(test_writer);
    RUN(test_sort_keys);
    RUN(test_numbers_intervals_equal);
    RUN(test_copy_and_false);
    return TEST_EXIT();
}

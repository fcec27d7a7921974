/* Unit tests for escape.c: HTML, Markdown, gnuplot, file-name and shell-word escaping. */
#include "base/escape.h"
#include "base/unicode.h"
#include "base/strbuf.h"
#include "test.h"

static char *esc(void (*fn)(struct strbuf *, const char *), const char *s)
{
    static struct strbuf sb = STRBUF_INIT;
    strbuf_reset(&sb);
    fn(&sb, s);
    return sb.buf;
}

static void test_html(void)
{
    CHECK_STR(esc(escape_html, "<script>alert(1)</script>"),
              "&lt;script&gt;alert(1)&lt;/script&gt;");
    CHECK_STR(esc(escape_html, "\"><img src=x onerror='alert(1)'>"),
              "&quot;&gt;&lt;img src=x onerror=&#39;alert(1)&#39;&gt;");
    CHECK_STR(esc(escape_html, "a & b\nc\td"), "a &amp; b\nc\td");
    CHECK_STR(esc(escape_html, NULL), "");
    CHECK_STR(esc(escape_html, "R\xC3\xB6ntgen"), "R\xC3\xB6ntgen");
    /* control characters and invalid UTF-8 become U+FFFD */
    CHECK_STR(esc(escape_html, "a\x01z"), "a\xEF\xBF\xBDz");
    CHECK_STR(esc(escape_html, "a\xFFz"), "a\xEF\xBF\xBDz");
    CHECK_STR(esc(escape_html, "a\xC3"), "a\xEF\xBF\xBD");
    /* overlong encoding of '<' must not sneak through */
    CHECK_STR(esc(escape_html, "\xC0\xBC"), "\xEF\xBF\xBD\xEF\xBF\xBD");
    /* surrogates are invalid in UTF-8 */
    CHECK_STR(esc(escape_html, "\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
}

static void test_html_n(void)
{
    struct strbuf sb = STRBUF_INIT;
    escape_html_n(&sb, "a\0<b", 4);
    CHECK_INT(sb.len, strlen("a\xEF\xBF\xBD&lt;b"));
    CHECK(!memcmp(sb.buf, "a\xEF\xBF\xBD&lt;b", sb.len));
    strbuf_release(&sb);
}

static void test_md(void)
{
    CHECK_STR(esc(escape_md, "a|b"), "a\\|b");
    CHECK_STR(esc(escape_md, "line1\nline2\r\tx"), "line1 line2  x");
    CHECK_STR(esc(escape_md, "<script>"), "&lt;script&gt;");
    CHECK_STR(esc(escape_md, "**bold** _i_ `code` [l](u) \\"),
              "\\*\\*bold\\*\\* \\_i\\_ \\`code\\` \\[l\\](u) \\\\");
    CHECK_STR(esc(escape_md, "# h ![x](y) ~"), "\\# h !\\[x\\](y) \\~");
    CHECK_STR(esc(escape_md, ""), "");
    CHECK_STR(esc(escape_md, "caf\xC3\xA9"), "caf\xC3\xA9");
}

static void test_gnuplot(void)
{
    CHECK_STR(esc(escape_gnuplot, "plain"), "'plain'");
    CHECK_STR(esc(escape_gnuplot, "x\"; system(\"touch pwned\"); \""),
              "'x\"; system(\"touch pwned\"); \"'");
    CHECK_STR(esc(escape_gnuplot, "it's"), "'it''s'");
    CHECK_STR(esc(escape_gnuplot, "a\nb\rc"), "'a b c'");
    CHECK_STR(esc(escape_gnuplot, "`id` @m \\"), "'`id` @m \\'");
    CHECK_STR(esc(escape_gnuplot, NULL), "''");
    CHECK_STR(esc(escape_gnuplot, "\xE2\x80\xA8"), "' '");
}

static void test_filename(void)
{
    CHECK_STR(esc(escape_filename, "run-1.2_x"), "run-1.2_x");
    CHECK_STR(esc(escape_filename, "../../etc/passwd"), "_._.._etc_passwd");
    CHECK_STR(esc(escape_filename, ".."), "_.");
    CHECK_STR(esc(escape_filename, "."), "_");
    CHECK_STR(esc(escape_filename, ""), "_");
    CHECK_STR(esc(escape_filename, NULL), "_");
    CHECK_STR(esc(escape_filename, "a/b\\c d"), "a_b_c_d");
    CHECK_STR(esc(escape_filename, "caf\xC3\xA9"), "caf__");
    {
        char longname[300];
        memset(longname, 'a', sizeof(longname) - 1);
        longname[sizeof(longname) - 1] = '\0';
        CHECK_INT(strlen(esc(escape_filename, longname)), 100);
    }
}

static void test_utf8_decode(void)
{
    unsigned cp = 0;
    CHECK_INT(utf8_decode((const unsigned char *)"\xF0\x9F\x98\x80", 4, &cp), 4);
    CHECK_INT(cp, 0x1F600);
    CHECK_INT(utf8_decode((const unsigned char *)"\xF0\x9F\x98", 3, &cp), 0);
    CHECK_INT(utf8_decode((const unsigned char *)"\xF4\x90\x80\x80", 4, &cp), 0);
    CHECK_INT(utf8_decode((const unsigned char *)"\xE0\x80\x80", 3, &cp), 0);
}

static void test_json(void)
{
    CHECK_STR(esc(escape_json, NULL), "\"\"");
    CHECK_STR(esc(escape_json, "a\"b\\c\nd\te\r"), "\"a\\\"b\\\\c\\nd\\te\\r\"");
    CHECK_STR(esc(escape_json, "x\x01\x1fy\x7f"), "\"x\\u0001\\u001fy\\u007f\"");
    /* exact text: C1 and U+2028 are kept (valid JSON), invalid UTF-8 becomes U+FFFD */
    CHECK_STR(esc(escape_json, "\xC2\x85\xE2\x80\xA8"), "\"\xC2\x85\xE2\x80\xA8\"");
    CHECK_STR(esc(escape_json, "a\xFFz"), "\"a\xEF\xBF\xBDz\"");
    CHECK_STR(esc(escape_json, "</script>"), "\"</script>\"");
}

/* The client's request bodies: a length, NUL bytes, long runs; invalid UTF-8 as escape_json. */
static void test_json_n(void)
{
    struct strbuf sb = STRBUF_INIT, big = STRBUF_INIT, want = STRBUF_INIT;
    size_t i;
    escape_json_n(&sb, "a\0b\"", 4);
    CHECK_STR(sb.buf, "\"a\\u0000b\\\"\"");
    strbuf_reset(&sb);
    escape_json_n(&sb, "x\x01\x1fy\x7f\\", 6);
    CHECK_STR(sb.buf, "\"x\\u0001\\u001fy\\u007f\\\\\"");
    /* a valid JSON string whatever the bytes (a strict server parser refuses raw 0xFF) */
    strbuf_reset(&sb);
    escape_json_n(&sb, "q\xFF\xC3\xED\xA0\x80\xF0\x9F\x98\x80!", 11);
    CHECK_STR(sb.buf, "\"q\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"
                      "\xF0\x9F\x98\x80!\"");
    strbuf_addch(&want, '"');
    for (i = 0; i < 5000; i++) {
        strbuf_addstr(&big, i % 7 ? "w\xC3\xA9rd " : "\"q\"\n");
        strbuf_addstr(&want, i % 7 ? "w\xC3\xA9rd " : "\\\"q\\\"\\n");
    }
    strbuf_addch(&want, '"');
    strbuf_reset(&sb);
    escape_json_n(&sb, big.buf, big.len);
    CHECK_STR(sb.buf, want.buf);
    strbuf_release(&want);
    strbuf_release(&big);
    strbuf_release(&sb);
}

static void test_csv(void)
{
    CHECK_STR(esc(escape_csv, NULL), "");
    CHECK_STR(esc(escape_csv, "plain text"), "plain text");
    CHECK_STR(esc(escape_csv, "a,b"), "\"a,b\"");
    CHECK_STR(esc(escape_csv, "say \"hi\""), "\"say \"\"hi\"\"\"");
    CHECK_STR(esc(escape_csv, "two\nlines"), "\"two\nlines\"");
    CHECK_STR(esc(escape_csv, "cr\r"), "\"cr\r\"");
    CHECK_STR(esc(escape_csv, " padded "), "\" padded \"");
    CHECK_STR(esc(escape_csv, "bad\xC3"), "bad\xEF\xBF\xBD");
}

/* The shell words of the resume hints and the completion scripts: one quoting rule. */
static void test_shell(void)
{
    CHECK_STR(esc(escape_shell, "plain"), "'plain'");
    CHECK_STR(esc(escape_shell, "it's"), "'it'\\''s'");
    CHECK_STR(esc(escape_shell, ""), "''");
    CHECK_STR(esc(escape_shell_word, "--max-cost=2.20"), "--max-cost=2.20");
    CHECK_STR(esc(escape_shell_word, "http://h:8080/v1,a@b%c+d"), "http://h:8080/v1,a@b%c+d");
    CHECK_STR(esc(escape_shell_word, ""), "''");
    CHECK_STR(esc(escape_shell_word, "two words"), "'two words'");
    CHECK_STR(esc(escape_shell_word, "$HOME"), "'$HOME'");
    CHECK_STR(esc(escape_shell_word, "it's"), "'it'\\''s'");
    CHECK_STR(esc(escape_shell_word, "a;rm -rf x"), "'a;rm -rf x'");
}

int main(void)
{
    RUN(test_html);
    RUN(test_html_n);
    RUN(test_md);
    RUN(test_gnuplot);
    RUN(test_filename);
    RUN(test_utf8_decode);
    RUN(test_json);
    RUN(test_json_n);
    RUN(test_csv);
    RUN(test_shell);
    return TEST_EXIT();
}

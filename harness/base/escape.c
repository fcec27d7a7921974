/*
 * Escaping of untrusted text (model output, dataset text, run and model names)
 * for HTML, Markdown, gnuplot string literals, file names and shell words. Owns no state;
 * shared by report, plot and any command that writes such formats.
 */
#include "base/escape.h"

#include <string.h>

#include "base/sha256.h"
#include "base/strbuf.h"
#include "base/unicode.h"

#include "base/banned.h"

static const char replacement[] = "\xEF\xBF\xBD"; /* U+FFFD */

/*
 * Walk s as UTF-8, calling `one` for each ASCII byte; multi-byte characters
 * are copied as they are, invalid bytes become U+FFFD. WALK_DISPLAY (pages,
 * plots, Markdown) also hands C1 controls and the line/paragraph separators to
 * `one` as spaces: invisible trouble on a page. WALK_EXACT (data formats:
 * export) keeps the text itself.
 */
typedef void (*ascii_fn)(struct strbuf *out, unsigned char c);
enum walk_mode { WALK_DISPLAY, WALK_EXACT };

static void walk(struct strbuf *out, const char *s, size_t len, ascii_fn one, enum walk_mode mode)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;

    while (i < len) {
        uint32_t cp;
        size_t n;
        if (p[i] < 0x80) {
            one(out, p[i]);
            i++;
            continue;
        }
        n = utf8_decode(p + i, len - i, &cp);
        if (!n) {
            strbuf_addstr(out, replacement);
            i++;
            continue;
        }
        if (mode == WALK_DISPLAY && ((cp >= 0x80 && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029))
            one(out, ' ');
        else
            strbuf_add(out, p + i, n);
        i += n;
    }
}

/*
 * The five markup characters of HTML and XML as entities; `apos` spells the quote (&#39; for HTML
 * 4 readers, &apos; in XML). Returns 1 when c was one of them.
 */
static int markup_entity(struct strbuf *out, unsigned c, const char *apos)
{
    switch (c) {
    case '&':
        strbuf_addstr(out, "&amp;");
        return 1;
    case '<':
        strbuf_addstr(out, "&lt;");
        return 1;
    case '>':
        strbuf_addstr(out, "&gt;");
        return 1;
    case '"':
        strbuf_addstr(out, "&quot;");
        return 1;
    case '\'':
        strbuf_addstr(out, apos);
        return 1;
    default:
        return 0;
    }
}

static void html_one(struct strbuf *out, unsigned char c)
{
    if (markup_entity(out, c, "&#39;"))
        return;
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F)
        strbuf_addstr(out, replacement);
    else
        strbuf_addch(out, (char)c);
}

void escape_html_n(struct strbuf *out, const char *s, size_t len)
{
    if (s)
        walk(out, s, len, html_one, WALK_DISPLAY);
}

void escape_html(struct strbuf *out, const char *s)
{
    if (s)
        walk(out, s, strlen(s), html_one, WALK_DISPLAY);
}

static void md_one(struct strbuf *out, unsigned char c)
{
    switch (c) {
    case '&':
        strbuf_addstr(out, "&amp;");
        break;
    case '<':
        strbuf_addstr(out, "&lt;");
        break;
    case '>':
        strbuf_addstr(out, "&gt;");
        break;
    case '|':
    case '\\':
    case '`':
    case '*':
    case '_':
    case '[':
    case ']':
    case '#':
    case '~':
        strbuf_addch(out, '\\');
        strbuf_addch(out, c);
        break;
    default:
        strbuf_addch(out, c < 0x20 || c == 0x7F ? ' ' : c);
    }
}

void escape_md(struct strbuf *out, const char *s)
{
    if (s)
        walk(out, s, strlen(s), md_one, WALK_DISPLAY);
}

static void gnuplot_one(struct strbuf *out, unsigned char c)
{
    if (c == '\'')
        strbuf_addstr(out, "''");
    else
        strbuf_addch(out, c < 0x20 || c == 0x7F ? ' ' : c);
}

void escape_gnuplot(struct strbuf *out, const char *s)
{
    struct strbuf tmp = STRBUF_INIT;
    size_t i;
    if (s)
        walk(&tmp, s, strlen(s), gnuplot_one, WALK_DISPLAY);
    strbuf_addch(out, '\'');
    /*
     * gnuplot's SVG terminal escapes '<' and '&' but not '>', so "]]>" in a label would make
     * the SVG ill-formed XML: a zero-width space (U+200B) goes between "]]" and '>'.
     */
    for (i = 0; i < tmp.len; i++) {
        if (tmp.buf[i] == '>' && i >= 2 && tmp.buf[i - 1] == ']' && tmp.buf[i - 2] == ']')
            strbuf_addstr(out, "\xE2\x80\x8B");
        strbuf_addch(out, tmp.buf[i]);
    }
    strbuf_addch(out, '\'');
    strbuf_release(&tmp);
}

void escape_filename(struct strbuf *out, const char *s)
{
    size_t start = out->len, i, n = s ? strlen(s) : 0;

    for (i = 0; i < n && out->len - start < 100; i++) {
        unsigned char c = (unsigned char)s[i];
        int keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                   c == '.' || c == '_' || c == '-';
        if (out->len == start && c == '.')
            keep = 0;
        strbuf_addch(out, keep ? (char)c : '_');
    }
    if (out->len == start)
        strbuf_addch(out, '_');
}

void escape_folder_name(struct strbuf *out, const char *name)
{
    size_t start = out->len;
    char hex[SHA256_HEX_LEN + 1];
    const char *s = name ? name : "";

    escape_filename(out, s);
    if (!strcmp(out->buf + start, s))
        return;
    sha256_hex(s, strlen(s), hex);
    strbuf_addf(out, "-%.8s", hex);
}

/* 0, 1 or 2 columns for one code point (a small wcwidth: the ranges that matter in names) */
static int cp_width(unsigned c)
{
    if ((c >= 0x300 && c <= 0x36F) || (c >= 0x1AB0 && c <= 0x1AFF) ||
        (c >= 0x1DC0 && c <= 0x1DFF) || (c >= 0x200B && c <= 0x200F) ||
        (c >= 0x20D0 && c <= 0x20FF) || (c >= 0xFE00 && c <= 0xFE0F) || c == 0xFEFF ||
        (c >= 0xFE20 && c <= 0xFE2F) || (c >= 0xE0100 && c <= 0xE01EF))
        return 0;
    if ((c >= 0x1100 && c <= 0x115F) || (c >= 0x231A && c <= 0x231B) ||
        (c >= 0x2329 && c <= 0x232A) || (c >= 0x23E9 && c <= 0x23EC) ||
        (c >= 0x25FD && c <= 0x25FE) || (c >= 0x2614 && c <= 0x2615) ||
        (c >= 0x2648 && c <= 0x2653) || (c >= 0x26AA && c <= 0x26AB) ||
        (c >= 0x26BD && c <= 0x26BE) || (c >= 0x26C4 && c <= 0x26C5) ||
        (c >= 0x2705 && c <= 0x2705) || (c >= 0x270A && c <= 0x270B) ||
        (c >= 0x2E80 && c <= 0x303E) || (c >= 0x3041 && c <= 0x33FF) ||
        (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x4E00 && c <= 0x9FFF) ||
        (c >= 0xA000 && c <= 0xA4CF) || (c >= 0xA960 && c <= 0xA97F) ||
        (c >= 0xAC00 && c <= 0xD7A3) || (c >= 0xF900 && c <= 0xFAFF) ||
        (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF00 && c <= 0xFF60) ||
        (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x1F300 && c <= 0x1F64F) ||
        (c >= 0x1F680 && c <= 0x1F6FF) || (c >= 0x1F900 && c <= 0x1F9FF) ||
        (c >= 0x1FA70 && c <= 0x1FAFF) || (c >= 0x20000 && c <= 0x3FFFD))
        return 2;
    return 1;
}

size_t escape_display_width(const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t len = strlen((const char *)p), i = 0, w = 0;

    while (i < len) {
        unsigned cp;
        size_t n = p[i] < 0x80 ? 1 : utf8_decode(p + i, len - i, &cp);
        if (p[i] < 0x80 || !n) {
            w++;
            i++;
            continue;
        }
        w += (size_t)cp_width(cp);
        i += n;
    }
    return w;
}

static void json_one(struct strbuf *out, unsigned char c)
{
    switch (c) {
    case '"':
        strbuf_addstr(out, "\\\"");
        break;
    case '\\':
        strbuf_addstr(out, "\\\\");
        break;
    case '\n':
        strbuf_addstr(out, "\\n");
        break;
    case '\r':
        strbuf_addstr(out, "\\r");
        break;
    case '\t':
        strbuf_addstr(out, "\\t");
        break;
    default:
        if (c < 0x20 || c == 0x7F)
            strbuf_addf(out, "\\u%04x", c);
        else
            strbuf_addch(out, (char)c);
    }
}

void escape_json(struct strbuf *out, const char *s)
{
    escape_json_n(out, s ? s : "", s ? strlen(s) : 0);
}

/*
 * walk(WALK_EXACT) with json_one(), but the runs between escapes are copied
 * whole: this escapes every request body the client sends (prompts of megabytes).
 */
void escape_json_n(struct strbuf *out, const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, run = 0;
    strbuf_grow(out, len + 2);
    strbuf_addch(out, '"');
    while (i < len) {
        unsigned char c = p[i];
        size_t n;
        if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') {
            i++;
            continue;
        }
        if (c >= 0x80 && (n = utf8_seq(p + i, len - i)) != 0) { /* what utf8_decode() accepts */
            i += n;
            continue;
        }
        strbuf_add(out, s + run, i - run);
        if (c >= 0x80)
            strbuf_addstr(out, replacement);
        else
            json_one(out, c);
        run = ++i;
    }
    strbuf_add(out, s + run, i - run);
    strbuf_addch(out, '"');
}

static void csv_one(struct strbuf *out, unsigned char c)
{
    if (c == '"')
        strbuf_addstr(out, "\"\"");
    else
        strbuf_addch(out, (char)c);
}

void escape_csv(struct strbuf *out, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    int quote = n && (strpbrk(s, ",\"\r\n") || s[0] == ' ' || s[n - 1] == ' ');
    if (quote)
        strbuf_addch(out, '"');
    if (s)
        walk(out, s, n, csv_one, WALK_EXACT); /* unquoted text has no '"' to double */
    if (quote)
        strbuf_addch(out, '"');
}

void escape_url_component(struct strbuf *out, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    for (; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            *p == '-' || *p == '.' || *p == '_' || *p == '~') {
            strbuf_addch(out, (char)*p);
        } else {
            strbuf_addch(out, '%');
            strbuf_addch(out, hex[*p >> 4]);
            strbuf_addch(out, hex[*p & 15]);
        }
    }
}

void escape_xml(struct strbuf *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t len = strlen((const char *)p), i = 0;
    while (i < len) {
        unsigned cp;
        size_t k = utf8_decode(p + i, len - i, &cp);
        if (!k) { /* invalid byte: dropped */
            i++;
            continue;
        }
        if ((cp < 0x20 && cp != 0x9 && cp != 0xA && cp != 0xD) || (cp >= 0xD800 && cp <= 0xDFFF) ||
            cp == 0xFFFE || cp == 0xFFFF) {
            i += k;
            continue;
        }
        /* tab and line ends as references: an attribute value keeps them (XML 1.0 3.3.3) */
        if (markup_entity(out, cp, "&apos;"))
            ;
        else if (cp == '\n' || cp == '\r' || cp == '\t')
            strbuf_addf(out, "&#%u;", cp);
        else
            strbuf_add(out, p + i, k);
        i += k;
    }
}

void escape_shell(struct strbuf *out, const char *s)
{
    strbuf_addch(out, '\'');
    for (; *s; s++) {
        if (*s == '\'')
            strbuf_addstr(out, "'\\''");
        else
            strbuf_addch(out, *s);
    }
    strbuf_addch(out, '\'');
}

void escape_shell_word(struct strbuf *out, const char *s)
{
    if (*s &&
        s[strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,@%+")] ==
            '\0')
        strbuf_addstr(out, s);
    else
        escape_shell(out, s);
}

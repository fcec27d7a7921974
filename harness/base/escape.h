#ifndef ESCAPE_H
#define ESCAPE_H

#include <stddef.h>

struct strbuf;

/*
 * Escaping for every output format that shows text from users, datasets or
 * models: HTML, Markdown, gnuplot string literals, file names. Every function
 * appends to `out` (never resets it), accepts any bytes (s may be NULL: treated
 * as ""), and replaces invalid UTF-8 with U+FFFD so the result is always valid
 * UTF-8 (an SVG or HTML file with a stray byte would not parse).
 */

/*
 * HTML text and attribute values (double- or single-quoted): & < > " ' become
 * entities; control characters other than tab/newline/CR become U+FFFD.
 */
void escape_html(struct strbuf *out, const char *s);
void escape_html_n(struct strbuf *out, const char *s, size_t len);

/*
 * One Markdown table cell or inline text: | and Markdown punctuation
 * (\ ` * _ [ ] # ~; parentheses and ! are inert once [ ] are) are backslash-escaped, & < > become
 * entities (so renderers that allow inline HTML show it as text), newlines/tabs/CR become spaces (a
 * newline would end the table row). Empty input appends nothing.
 */
void escape_md(struct strbuf *out, const char *s);

/*
 * A complete gnuplot string literal, quotes included: '...'. gnuplot does no
 * backslash, backtick or @macro processing inside single quotes; a single
 * quote is doubled, newlines and other control characters become spaces (a
 * newline would end the command). Use with `noenhanced` text so { } ^ _ @ &
 * show literally. "]]>" gets a zero-width space before '>' (gnuplot's SVG
 * output does not escape '>', and "]]>" is not allowed in XML text).
 */
void escape_gnuplot(struct strbuf *out, const char *s);

/*
 * A safe single file-name component from any text (e.g. a run name for
 * reports/<run>/): keeps [A-Za-z0-9._-], maps everything else to '_', never
 * starts with '.', at most 100 bytes; "" (or NULL) gives "_". The result can
 * never be "..", contain '/', or escape the parent folder.
 */
void escape_filename(struct strbuf *out, const char *s);

/*
 * The folder name for a run's files, reports/<folder>/ (report and plot):
 * the name itself when escape_filename() keeps it unchanged, else that
 * readable slug plus "-" and the first 8 hex digits of the name's SHA-256, so
 * two names never share a folder ("a b" and "a/b" give a_b-c8687a08 and a_b-c14cddc0).
 */
void escape_folder_name(struct strbuf *out, const char *name);

/*
 * Terminal columns the UTF-8 text takes (for aligned tables): East Asian
 * wide and fullwidth characters and emoji count 2, combining marks and
 * zero-width characters 0, everything else (an invalid byte too) 1.
 */
size_t escape_display_width(const char *s);

/*
 * Data formats (dipmap export): the exact text, only invalid UTF-8 replaced.
 * escape_json: a complete JSON string literal, quotes included; " \ and
 * control characters escaped (\n \r \t, else \u00XX). NULL gives "".
 * escape_csv: one RFC 4180 field: quoted (with "" for ") when it holds a
 * comma, quote, CR or LF or starts or ends with a space; else as is. NULL or
 * "" appends nothing (an empty field).
 */
/* XML 1.0 text/attribute escaping (JUnit): characters illegal in XML 1.0 and invalid UTF-8 dropped.
 */
void escape_xml(struct strbuf *out, const char *s);
void escape_json(struct strbuf *out, const char *s);
/* escape_json of s[0..len) (NUL bytes as \u0000): the client's request bodies. */
void escape_json_n(struct strbuf *out, const char *s, size_t len);
void escape_csv(struct strbuf *out, const char *s);

/*
 * One URL query value or path segment: every byte except the unreserved
 * A-Z a-z 0-9 - . _ ~ percent-encoded (so & = # / ? and quotes are inert).
 */
void escape_url_component(struct strbuf *out, const char *s);

/*
 * One word for a POSIX shell (sh, bash, zsh), to copy and paste: escape_shell() always in
 * single quotes, a ' as '\''; escape_shell_word() leaves a word of only letters, digits and
 * -_./:=,@%+ as it is (the resume hints' plain options) and quotes the rest, "" included.
 */
void escape_shell(struct strbuf *out, const char *s);
void escape_shell_word(struct strbuf *out, const char *s);

#endif

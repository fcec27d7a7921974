/*
 * Prompt templates: parsing and validating the [system]/[user]/[document]/
 * [separator] sections and their placeholders, resolving --template, and
 * releasing a template.
 */
#define _GNU_SOURCE
#include "prompt/prompt.h"
#include "prompt/prompt-int.h"

#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/axes.h"
#include "prompt/bm25.h"
#include "prompt/dataset.h"
#include "base/datadir.h"
#include "base/num.h"
#include "prompt/order.h"
#include "base/num.h"
#include "run/plan.h"
#include "base/rng.h"
#include "base/sha256.h"
#include "base/strbuf.h"
#include "tokenizer/tokenizer.h"
#include "run/trial.h"
#include "base/unicode.h"
#include "base/usage.h"
#include "base/xalloc.h"

#include "base/banned.h"

/* ---- templates ---- */

enum section {
    SEC_NONE = -1,
    SEC_SYSTEM,
    SEC_USER,
    SEC_DOCUMENT,
    SEC_SEPARATOR,
    SEC_DOCUMENT_UNTITLED,
    SEC__COUNT
};
static const char *const section_names[] = {"system", "user", "document", "separator",
                                            "document_untitled"};

/* Placeholders allowed per section. */
static int placeholder_allowed(enum section s, const char *name, size_t n)
{
#define IS(lit) (n == sizeof(lit) - 1 && !memcmp(name, lit, n))
    switch (s) {
    case SEC_SYSTEM:
        return IS("question");
    case SEC_USER:
        return IS("question") || IS("documents");
    case SEC_DOCUMENT:
        return IS("index") || IS("title") || IS("text") || IS("id");
    case SEC_DOCUMENT_UNTITLED: /* a chunk without a title: no {title} to fill */
        return IS("index") || IS("text") || IS("id");
    default:
        return 0;
    }
#undef IS
}

struct sec_info {
    struct strbuf text;
    long line; /* header line, 0 when absent */
};

/*
 * Check the placeholders of one section's text; counts occurrences of
 * "documents", "question", "text" into counts[0..2]. Returns 0 or -1.
 */
static int check_placeholders(const char *name, enum section s, const struct sec_info *si,
                              int counts[3], struct strbuf *err)
{
    const char *p = si->text.buf;
    long line = si->line + 1;
    for (; *p; p++) {
        if (*p == '\n') {
            line++;
        } else if (*p == '{') {
            const char *e;
            if (p[1] == '{') {
                p++;
                continue;
            }
            e = p + 1;
            while ((*e >= 'a' && *e <= 'z') || *e == '_')
                e++;
            if (*e != '}' || e == p + 1)
                return error_to(err, "%s:%ld: [%s]: a lone '{' (write '{{' for a literal brace)",
                                name, line, section_names[s]);
            if (!placeholder_allowed(s, p + 1, (size_t)(e - p - 1)))
                return error_to(err, "%s:%ld: [%s]: unknown placeholder {%.*s}", name, line,
                                section_names[s], (int)(e - p - 1), p + 1);
            if (!strncmp(p + 1, "documents}", 10))
                counts[0]++;
            else if (!strncmp(p + 1, "question}", 9))
                counts[1]++;
            else if (!strncmp(p + 1, "text}", 5))
                counts[2]++;
            p = e;
        } else if (*p == '}') {
            if (p[1] != '}')
                return error_to(err, "%s:%ld: [%s]: a lone '}' (write '}}' for a literal brace)",
                                name, line, section_names[s]);
            p++;
        }
    }
    return 0;
}

static char *unescape_separator(const char *s)
{
    struct strbuf sb = STRBUF_INIT;
    for (; *s; s++) {
        if (*s == '\\' && s[1]) {
            s++;
            if (*s == 'n')
                strbuf_addch(&sb, '\n');
            else if (*s == 't')
                strbuf_addch(&sb, '\t');
            else
                strbuf_addch(&sb, *s);
        } else {
            strbuf_addch(&sb, *s);
        }
    }
    return strbuf_detach(&sb, NULL);
}

/* A header line naming no known section. */
#define SEC_UNKNOWN (-2)

/* The section of a header line p[0..m) ("[user]"): SEC_NONE when it is no header. */
static int section_of(const char *p, size_t m)
{
    size_t k = 1;
    int i;
    if (m < 3 || p[0] != '[' || p[m - 1] != ']')
        return SEC_NONE;
    while (k < m - 1 && ((p[k] >= 'a' && p[k] <= 'z') || p[k] == '_'))
        k++;
    if (k != m - 1)
        return SEC_NONE;
    for (i = 0; i < SEC__COUNT; i++)
        if (strlen(section_names[i]) == m - 2 && !memcmp(p + 1, section_names[i], m - 2))
            return i;
    return SEC_UNKNOWN;
}

/*
 * The text's lines into the sections' texts (sec[].line: the header's line), comments
 * before the first header skipped; *last_line the text's last line. 0, or -1 with err.
 */
static int split_sections(const char *name, const char *text, struct sec_info *sec, long *last_line,
                          struct strbuf *err)
{
    enum section cur = SEC_NONE;
    const char *p = text;
    long line = 0;
    int i;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        size_t m = n;
        int s;
        line++;
        while (m && (p[m - 1] == ' ' || p[m - 1] == '\t' || p[m - 1] == '\r'))
            m--;
        s = section_of(p, m);
        if (s == SEC_UNKNOWN)
            return error_to(err,
                            "%s:%ld: unknown section [%.*s] (known: [system], [user], [document], "
                            "[document_untitled], [separator])",
                            name, line, (int)(m - 2), p + 1);
        if (s != SEC_NONE && sec[s].line)
            return error_to(err, "%s:%ld: section [%s] given twice (first on line %ld)", name, line,
                            section_names[s], sec[s].line);
        if (s != SEC_NONE) {
            sec[s].line = line;
            cur = (enum section)s;
        } else if (cur == SEC_NONE) {
            if (m && p[0] != '#')
                return error_to(err, "%s:%ld: text before the first section header (e.g. [user])",
                                name, line);
        } else {
            /* CRLF files: the '\r' is not part of the text */
            strbuf_add(&sec[cur].text, p, n && p[n - 1] == '\r' ? n - 1 : n);
            strbuf_addch(&sec[cur].text, '\n');
        }
        *last_line = line;
        if (!nl)
            break;
        p = nl + 1;
    }
    for (i = 0; i < SEC__COUNT; i++) {
        struct strbuf *sb = &sec[i].text;
        while (sb->len && (sb->buf[sb->len - 1] == '\n' || sb->buf[sb->len - 1] == '\r'))
            strbuf_setlen(sb, sb->len - 1);
    }
    return 0;
}

/* The sections a template needs and their placeholders; 0, or -1 with err. */
static int check_sections(const char *name, const struct sec_info *sec, long last_line,
                          struct strbuf *err)
{
    int counts[3] = {0, 0, 0}, c_sys[3] = {0, 0, 0}, c_doc[3] = {0, 0, 0},
        c_untitled[3] = {0, 0, 0};
    if (!sec[SEC_USER].line)
        return error_to(err, "%s:%ld: no [user] section", name, last_line ? last_line : 1);
    if (!sec[SEC_DOCUMENT].line)
        return error_to(
            err,
            "%s:%ld: no [document] section (e.g. \"Document [{index}] (Title: {title}) {text}\")",
            name, last_line ? last_line : 1);
    if (check_placeholders(name, SEC_SYSTEM, &sec[SEC_SYSTEM], c_sys, err) < 0 ||
        check_placeholders(name, SEC_USER, &sec[SEC_USER], counts, err) < 0 ||
        check_placeholders(name, SEC_DOCUMENT, &sec[SEC_DOCUMENT], c_doc, err) < 0 ||
        check_placeholders(name, SEC_DOCUMENT_UNTITLED, &sec[SEC_DOCUMENT_UNTITLED], c_untitled,
                           err) < 0)
        return -1;
    if (strchr(sec[SEC_SEPARATOR].text.buf, '{') || strchr(sec[SEC_SEPARATOR].text.buf, '}'))
        return error_to(err, "%s:%ld: [separator] takes no placeholders", name,
                        sec[SEC_SEPARATOR].line + 1);
    if (counts[0] != 1)
        return error_to(err, "%s:%ld: [user] must contain {documents} exactly once (found %d)",
                        name, sec[SEC_USER].line, counts[0]);
    if (counts[1] < 1)
        return error_to(err, "%s:%ld: [user] has no {question} placeholder", name,
                        sec[SEC_USER].line);
    if (c_doc[2] != 1)
        return error_to(err, "%s:%ld: [document] must contain {text} exactly once", name,
                        sec[SEC_DOCUMENT].line);
    if (sec[SEC_DOCUMENT_UNTITLED].line && c_untitled[2] != 1)
        return error_to(err, "%s:%ld: [document_untitled] must contain {text} exactly once", name,
                        sec[SEC_DOCUMENT_UNTITLED].line);
    return 0;
}

int prompt_template_parse(struct prompt_template *t, const char *name, const char *text,
                          struct strbuf *err)
{
    struct sec_info sec[SEC__COUNT];
    long last_line = 0;
    int i, ret = -1;

    memset(t, 0, sizeof(*t));
    for (i = 0; i < SEC__COUNT; i++) {
        strbuf_init(&sec[i].text, 0);
        sec[i].line = 0;
    }
    if (split_sections(name, text, sec, &last_line, err) < 0 ||
        check_sections(name, sec, last_line, err) < 0)
        goto cleanup;
    t->path = xstrdup(name);
    t->system = strbuf_detach(&sec[SEC_SYSTEM].text, NULL);
    t->user = strbuf_detach(&sec[SEC_USER].text, NULL);
    t->document = strbuf_detach(&sec[SEC_DOCUMENT].text, NULL);
    t->document_untitled = sec[SEC_DOCUMENT_UNTITLED].line
                               ? strbuf_detach(&sec[SEC_DOCUMENT_UNTITLED].text, NULL)
                               : NULL;
    t->separator =
        sec[SEC_SEPARATOR].line ? unescape_separator(sec[SEC_SEPARATOR].text.buf) : xstrdup("\n");
    sha256_hex(text, strlen(text), t->sha256);
    ret = 0;
cleanup:
    for (i = 0; i < SEC__COUNT; i++)
        strbuf_release(&sec[i].text);
    return ret;
}

int prompt_template_load(struct prompt_template *t, const char *path, struct strbuf *err)
{
    struct strbuf sb = STRBUF_INIT;
    int rc;
    memset(t, 0, sizeof(*t));
    strbuf_set_cap(&sb, 1024 * 1024);
    if (strbuf_read_file(&sb, path) < 0) {
        rc = error_to(err, "%s: cannot read template: %s", path, strerror(errno));
        strbuf_release(&sb);
        return rc;
    }
    if (memchr(sb.buf, '\0', sb.len) || !utf8_valid(sb.buf, sb.len)) {
        strbuf_release(&sb);
        return error_to(err, "%s: template is not valid UTF-8 text", path);
    }
    rc = prompt_template_parse(t, path, sb.buf, err);
    strbuf_release(&sb);
    return rc;
}

static int file_exists(const char *p)
{
    return access(p, R_OK) == 0;
}

void prompt_request_for_trial(struct prompt_request *pr, const struct question *q,
                              const struct plan_trial *pt, unsigned long seed,
                              long max_answer_tokens, int chat)
{
    memset(pr, 0, sizeof(*pr));
    pr->q = q;
    pr->target_len = pt->length;
    pr->depth_bp = pt->depth_bp;
    pr->repeat = pt->repeat;
    pr->axes = pt->axes;
    pr->seed = seed;
    pr->max_answer_tokens = max_answer_tokens;
    pr->chat = chat;
}

const char *prompt_template_document(const struct prompt_template *t, const char *title)
{
    return t->document_untitled && (!title || !*title) ? t->document_untitled : t->document;
}

int prompt_template_resolve(const char *spec, struct strbuf *out)
{
    struct strbuf rel = STRBUF_INIT;
    size_t base = out->len;
    int found;

    /* a path, or a file of that name in the current folder, is used as given (loading it
       reports why a path cannot be read) */
    if (strchr(spec, '/') || file_exists(spec)) {
        strbuf_addstr(out, spec);
        return 0;
    }
    strbuf_addf(&rel, "prompts/%s", spec);
    if (rel.len < 4 || strcmp(rel.buf + rel.len - 4, ".txt"))
        strbuf_addstr(&rel, ".txt");
    found = datadir_find(rel.buf, out, NULL);
    if (found < 0) {
        strbuf_setlen(out, base);
        strbuf_add(out, rel.buf, rel.len);
    }
    strbuf_release(&rel);
    return found;
}

void prompt_template_release(struct prompt_template *t)
{
    free(t->path);
    free(t->system);
    free(t->user);
    free(t->document);
    free(t->document_untitled);
    free(t->separator);
    memset(t, 0, sizeof(*t));
}

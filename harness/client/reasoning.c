/*
 * Reasoning kept apart from the answer: inline <think> blocks (configurable
 * tags) split off a model's content, so that scorers only ever see the
 * answer. Pure string work; owns nothing.
 */
#define _GNU_SOURCE
#include "client/reasoning.h"

#include <ctype.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/xalloc.h"

#include "base/banned.h"

static const char *skip_space(const char *s)
{
    while (*s && isspace((unsigned char)*s))
        s++;
    return s;
}

int reasoning_blank(const char *s)
{
    return !s || !*skip_space(s);
}

int reasoning_starved(const char *reasoning, long reasoning_tokens, long completion_tokens,
                      const char *finish_reason)
{
    int length = finish_reason && !strcmp(finish_reason, "length");
    return !reasoning_blank(reasoning) || reasoning_tokens > 0 || (length && completion_tokens > 0);
}

static void add_block(struct strbuf *reasoning, const char *s, size_t n, int *found)
{
    if (reasoning) {
        if (*found)
            strbuf_addch(reasoning, '\n');
        strbuf_add(reasoning, s, n);
    }
    *found = 1;
}

int reasoning_split(const char *content, const char *open, const char *close, struct strbuf *answer,
                    struct strbuf *reasoning)
{
    const char *p, *end;
    size_t lo, lc;
    int found = 0;

    if (!content)
        content = "";
    if (!open || !*open)
        open = REASONING_OPEN_DEFAULT;
    if (!close || !*close)
        close = REASONING_CLOSE_DEFAULT;
    lo = strlen(open);
    lc = strlen(close);
    p = skip_space(content);
    if (strncmp(p, open, lo)) {
        /* the template opened the block in the prompt: the output starts inside it */
        end = strstr(p, close);
        if (end && !memmem(p, (size_t)(end - p), open, lo)) {
            add_block(reasoning, p, (size_t)(end - p), &found);
            p = skip_space(end + lc);
        }
    }
    while (!strncmp(p, open, lo)) {
        const char *body = p + lo;
        end = strstr(body, close);
        if (!end) { /* never closed: all of it was thinking */
            add_block(reasoning, body, strlen(body), &found);
            p = body + strlen(body);
            break;
        }
        add_block(reasoning, body, (size_t)(end - body), &found);
        p = skip_space(end + lc);
    }
    if (answer)
        strbuf_addstr(answer, found ? p : content);
    return found;
}

int reasoning_tags_parse(const char *spec, char **open, char **close, struct strbuf *err)
{
    const char *comma = spec ? strchr(spec, ',') : NULL;
    if (!comma || comma == spec || !comma[1] || strchr(comma + 1, ',')) {
        strbuf_addf(err, "expected OPEN,CLOSE (e.g. \"<think>,</think>\"), got \"%s\"",
                    spec ? spec : "");
        return -1;
    }
    *open = xstrndup(spec, (size_t)(comma - spec));
    *close = xstrdup(comma + 1);
    return 0;
}

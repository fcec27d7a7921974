/*
 * Prompt layouts: the documents block of a built prompt split into conversation turns or
 * tool results (layout.h), and the "messages" array a request sends. Owns nothing beyond
 * the turn buffers of a built_prompt.
 */
#include "prompt/layout.h"

#include <stdio.h>
#include <string.h>

#include "base/escape.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "prompt/prompt.h"

#include "base/banned.h"

#define PROMPT_LAYOUT_DEF_ROW(e, name_, what, in_turns_, turns_per_pair_, pairs_per_unit_,         \
                              measured_as_)                                                        \
    [PROMPT_LAYOUT_##e] = {.name = name_,                                                          \
                           .in_turns = in_turns_,                                                  \
                           .turns_per_pair = turns_per_pair_,                                      \
                           .pairs_per_unit = pairs_per_unit_,                                      \
                           .measured_as = PROMPT_LAYOUT_##measured_as_},
const struct prompt_layout_def prompt_layouts[PROMPT_LAYOUT__COUNT] = {
    PROMPT_LAYOUT_ROWS(PROMPT_LAYOUT_DEF_ROW)};

#define PROMPT_LAYOUT_NAME_ROW(e, name, ...) name,
const char *const prompt_layout_names[PROMPT_LAYOUT__COUNT + 1] = {
    PROMPT_LAYOUT_ROWS(PROMPT_LAYOUT_NAME_ROW) NULL};

int prompt_layout_in_turns(int layout)
{
    return layout > 0 && layout < PROMPT_LAYOUT__COUNT && prompt_layouts[layout].in_turns;
}

int prompt_layout_parse(const char *s, size_t n)
{
    for (int i = 0; i < PROMPT_LAYOUT__COUNT; i++)
        if (strlen(prompt_layouts[i].name) == n && !memcmp(s, prompt_layouts[i].name, n))
            return i;
    return -1;
}

const char *prompt_layout_name(int layout)
{
    return layout >= 0 && layout < PROMPT_LAYOUT__COUNT ? prompt_layouts[layout].name : "?";
}

size_t prompt_layout_turn_of(int layout, size_t i, size_t units)
{
    switch (layout) {
    case PROMPT_LAYOUT_CHAT:
        /* an even number of turns from user to assistant: an odd count pairs the first two */
        return units % 2 && units > 1 && i > 0 ? i - 1 : i;
    case PROMPT_LAYOUT_TOOL_LONG:
        return 0;
    default:
        return i;
    }
}

size_t prompt_layout_pairs(int layout, size_t turns)
{
    size_t per = (size_t)prompt_layouts[layout].turns_per_pair;
    return (turns + per - 1) / per;
}

void prompt_layout_split(struct built_prompt *p, int layout, const char *docs, size_t docs_len,
                         const size_t *unit_at, size_t units, size_t sep_len, size_t **offs,
                         size_t noffs)
{
    size_t i, k, mapped = 0; /* bit k: offs[k] mapped (noffs is small) */
    p->layout = layout;
    strbuf_reset(&p->turns);
    p->turns_nr = 0;
    for (i = 0; i < units; i++) {
        size_t t = prompt_layout_turn_of(layout, i, units);
        size_t end = i + 1 < units ? unit_at[i + 1] - sep_len : docs_len;
        size_t from = unit_at[i];
        if (t == p->turns_nr) { /* a new turn */
            ALLOC_GROW(p->turn_end, p->turns_nr + 1, p->turns_alloc);
            p->turns_nr++;
        } else { /* the same turn: keep the separator before this unit */
            strbuf_add(&p->turns, docs + from - sep_len, sep_len);
        }
        for (k = 0; k < noffs; k++)
            if (!(mapped >> k & 1) && *offs[k] >= from && *offs[k] <= end) {
                *offs[k] = p->turns.len + (*offs[k] - from);
                mapped |= (size_t)1 << k;
            }
        strbuf_add(&p->turns, docs + from, end - from);
        p->turn_end[p->turns_nr - 1] = p->turns.len;
    }
}

size_t prompt_layout_turn_at(const struct built_prompt *p, size_t off)
{
    size_t t;
    for (t = 0; t + 1 < p->turns_nr && off >= p->turn_end[t]; t++)
        ;
    return t;
}

/* ",\"content\":" and the content (the pending prefix first), then the object's '}'. */
static void add_content(struct strbuf *out, const char *content, size_t len, const char **prefix)
{
    strbuf_addstr(out, ",\"content\":");
    if (*prefix) {
        struct strbuf c = STRBUF_INIT;
        strbuf_addstr(&c, *prefix);
        strbuf_add(&c, content, len);
        escape_json_n(out, c.buf, c.len);
        strbuf_release(&c);
        *prefix = NULL;
    } else {
        escape_json_n(out, content, len);
    }
    strbuf_addch(out, '}');
}

static void add_message(struct strbuf *out, const char *role, const char *content, size_t len,
                        const char **prefix)
{
    strbuf_addf(out, "%s{\"role\":\"%s\"", out->buf[out->len - 1] == '[' ? "" : ",", role);
    add_content(out, content, len, prefix);
}

void prompt_messages_json(const struct built_prompt *p, const char *prefix, struct strbuf *out)
{
    size_t t;
    strbuf_addch(out, '[');
    if (p->system.len)
        add_message(out, "system", p->system.buf, p->system.len, &prefix);
    for (t = 0; p->layout != PROMPT_LAYOUT_DOCUMENTS && t < p->turns_nr; t++) {
        size_t s = t ? p->turn_end[t - 1] : 0, e = p->turn_end[t];
        if (p->layout == PROMPT_LAYOUT_CHAT) {
            add_message(out, t % 2 ? "assistant" : "user", p->turns.buf + s, e - s, &prefix);
            continue;
        }
        /*
         * A call, then its result. Ids and arguments are fixed width, so every call costs
         * the server the same tokens (the per-pair overhead is measured once).
         */
        strbuf_addf(out,
                    "%s{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"id\":"
                    "\"call_%04zu\",\"type\":\"function\",\"function\":{\"name\":"
                    "\"read_document\",\"arguments\":\"{\\\"document\\\": \\\"%04zu\\\"}\"}}]}",
                    out->buf[out->len - 1] == '[' ? "" : ",", t + 1, t + 1);
        strbuf_addf(out, ",{\"role\":\"tool\",\"tool_call_id\":\"call_%04zu\"", t + 1);
        add_content(out, p->turns.buf + s, e - s, &prefix);
    }
    add_message(out, "user", p->user.buf, p->user.len, &prefix);
    strbuf_addch(out, ']');
}

void prompt_layout_probe(struct built_prompt *p, int layout, const char *system, const char *user,
                         const char *turn, size_t pairs)
{
    size_t i, turns = layout == PROMPT_LAYOUT_CHAT ? 2 * pairs : pairs;
    strbuf_reset(&p->system);
    strbuf_reset(&p->user);
    strbuf_reset(&p->text);
    strbuf_addstr(&p->system, system ? system : "");
    strbuf_addstr(&p->user, user);
    p->layout = layout;
    strbuf_reset(&p->turns);
    p->turns_nr = 0;
    for (i = 0; i < turns; i++) {
        strbuf_addstr(&p->turns, turn);
        ALLOC_GROW(p->turn_end, p->turns_nr + 1, p->turns_alloc);
        p->turn_end[p->turns_nr++] = p->turns.len;
    }
}

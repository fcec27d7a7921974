#ifndef LAYOUT_H
#define LAYOUT_H

#include <stddef.h>

struct strbuf;
struct built_prompt;

/*
 * Prompt layouts (run --layout, docs/layouts-and-imports.md "Conversation and tool-output
 * layouts"): where the haystack sits in the request. The builder selects and orders the same chunks
 * for every layout and places the gold at the same chunk boundary; a layout only says which message
 * each chunk's block goes into:
 *
 *   documents  one user message holding the documents block (the template as written)
 *   chat       earlier conversation turns, alternating user and assistant, one chunk per turn
 *              (an odd count: the first user turn holds two), the last an assistant turn
 *   tools      one tool call per chunk: an assistant message with tool_calls, then a
 *              "tool" message with the matching tool_call_id holding the chunk
 *   tool-long  one tool call whose single result holds the whole documents block
 *
 * The gold block goes inside the turn of the chunk after its boundary (at its start), or at
 * the end of the last turn; the question is the final user message (the template's [user]
 * with {documents} empty). Turn roles and count depend on the chunks only, never on depth.
 */
/*
 * The layouts, one row each: enum suffix, name (--layout's value), what the help says of it,
 * then the prompt_layout_def fields (in_turns, turns_per_pair, pairs_per_unit, measured_as).
 * The enum, prompt_layouts, prompt_layout_names, PROMPT_LAYOUT_HELP and PROMPT_LAYOUT_LIST
 * come from it, so a new layout is one row (docs/internals/adding-a-layout.md).
 */
#define PROMPT_LAYOUT_ROWS(R)                                                                      \
    R(DOCUMENTS, "documents", "the template's documents block", 0, 1, 0, DOCUMENTS)                \
    /* a user turn and an assistant turn per pair, one chunk per turn */                           \
    R(CHAT, "chat", "earlier conversation turns", 1, 2, 0.5, CHAT)                                 \
    /* a tool call and its result per chunk */                                                     \
    R(TOOLS, "tools", "one tool result per chunk", 1, 1, 1, TOOLS)                                 \
    /* one tool call whose result holds every chunk: one pair of the tools layout */               \
    R(TOOL_LONG, "tool-long", "one long tool result", 1, 1, 0, TOOLS)

#define PROMPT_LAYOUT_ENUM_ROW(e, ...) PROMPT_LAYOUT_##e,
enum prompt_layout { PROMPT_LAYOUT_ROWS(PROMPT_LAYOUT_ENUM_ROW) PROMPT_LAYOUT__COUNT };

/* "documents (the template's documents block), chat (...), ..., " for a help text. */
#define PROMPT_LAYOUT_HELP_ROW(e, name, what, ...) name " (" what "), "
#define PROMPT_LAYOUT_HELP                         PROMPT_LAYOUT_ROWS(PROMPT_LAYOUT_HELP_ROW)
/* " documents chat tools tool-long" for a message. */
#define PROMPT_LAYOUT_LIST_ROW(e, name, ...) " " name
#define PROMPT_LAYOUT_LIST                   PROMPT_LAYOUT_ROWS(PROMPT_LAYOUT_LIST_ROW)

/*
 * What the server's chat template adds to a layout's haystack turns (client/overhead.h
 * measures it on whole message lists): per_pair tokens per turn pair, and suffix, the text
 * it puts right after each turn's content that the content's last characters merge with
 * (Qwen3's tool results end "\n</tool_response>": "." + "\n" is one token, "d" + "\n"
 * two), "" when none does. A turn is counted as its content with the suffix less the
 * suffix alone.
 */
#define PROMPT_TURN_SUFFIX_MAX 4
struct prompt_turn_cost {
    long per_pair;
    char suffix[PROMPT_TURN_SUFFIX_MAX];
};

/*
 * The layout table: what each layout is, in one place. Option parsing takes its values from
 * prompt_layout_names, the identity and the overhead measurement iterate it, and the builder
 * reads a layout's row instead of testing enum values (docs/internals/adding-a-layout.md).
 */
struct prompt_layout_def {
    const char *name;
    int in_turns;          /* the documents go into earlier turns, not the template's block */
    int turns_per_pair;    /* turns per pair (the unit the server's per-turn cost is measured in) */
    double pairs_per_unit; /* pairs each document unit adds (its share of the per-pair cost) */
    int measured_as;       /* the layout whose per-pair cost it is built against */
};
extern const struct prompt_layout_def prompt_layouts[PROMPT_LAYOUT__COUNT];
/* The layouts' names in table order, NULL-terminated (--layout's values). */
extern const char *const prompt_layout_names[PROMPT_LAYOUT__COUNT + 1];
/* 1 when layout puts the documents into turns (a valid layout other than documents). */
int prompt_layout_in_turns(int layout);

/* The layout named s[0..n) (a name of PROMPT_LAYOUT_ROWS), or -1. */
int prompt_layout_parse(const char *s, size_t n);
/* "documents", "chat", ... */
const char *prompt_layout_name(int layout);

/* The turn of unit (a chunk with the gold blocks before it) i of units, in layout. */
size_t prompt_layout_turn_of(int layout, size_t i, size_t units);
/* The turn pairs (the unit the server's per-turn overhead is measured in) of turns turns. */
size_t prompt_layout_pairs(int layout, size_t turns);

/*
 * Split a documents block into p->turns (layout != documents): units units, unit i from
 * byte unit_at[i] of docs, consecutive units of one turn joined by the separator (sep_len
 * bytes, dropped between turns). The byte offsets *offs[0..noffs) in docs are mapped to
 * offsets in p->turns. Sets p->layout, turns, turn_end, turns_nr.
 */
void prompt_layout_split(struct built_prompt *p, int layout, const char *docs, size_t docs_len,
                         const size_t *unit_at, size_t units, size_t sep_len, size_t **offs,
                         size_t noffs);

/* The turn holding byte off of p->turns. */
size_t prompt_layout_turn_at(const struct built_prompt *p, size_t off);

/*
 * The request's "messages" array as sent (compact JSON) appended to out: the system
 * message (when not empty), the layout's turns, the user message. prefix (NULL: none) is
 * put before the first message's content (run --no-cache-reuse's nonce). A documents
 * layout gives [system,] user.
 */
void prompt_messages_json(const struct built_prompt *p, const char *prefix, struct strbuf *out);

/*
 * A probe request for measuring a layout's per-pair overhead (overhead.h): system and user
 * with pairs turn pairs, each turn's content turn. p must be initialised; its other fields
 * are reset.
 */
void prompt_layout_probe(struct built_prompt *p, int layout, const char *system, const char *user,
                         const char *turn, size_t pairs);

#endif

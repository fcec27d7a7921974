#ifndef PROMPT_H
#define PROMPT_H

#include <stddef.h>

#include "base/sha256.h"
#include "base/strbuf.h"

struct tokenizer;
struct question;
struct haystack;

/*
 * Prompt templates (files in prompts/) and the position-swap prompt builder
 * (docs/design.md "The experiment", "Prompts").
 *
 * Template file format: sections start with a header line "[system]",
 * "[user]", "[document]" or "[separator]"; a section's text is the lines up
 * to the next header with trailing newlines removed. Lines before the first
 * header that start with '#' or are blank are comments. In [separator] the
 * escapes \n and \t and \\ are interpreted (default separator: "\n").
 * Placeholders: {documents} and {question} (in [user], each exactly once;
 * {question} may also appear in [system] or a second time in [user]),
 * {index} (1-based position of the document), {title}, {text}, {id} (in
 * [document]; {text} required). "{{" and "}}" are literal braces. A missing
 * required placeholder, an unknown placeholder or an unknown section is an
 * error naming the file and line.
 *
 * Renderings: chat = system message (omitted when [system] is empty) + user
 * message; completion = system + "\n\n" + user (or just user).
 */
struct prompt_template {
    char *path;
    char *system;                    /* owned, may be "" */
    char *user;                      /* owned */
    char *document;                  /* owned */
    char *document_untitled;         /* owned; NULL: [document] renders untitled chunks too */
    char *separator;                 /* owned, escapes interpreted */
    char sha256[SHA256_HEX_LEN + 1]; /* of the file's bytes */
};

/* Returns 0, or -1 with the message in err ("prompts/x.txt:7: ..."). */
int prompt_template_load(struct prompt_template *t, const char *path, struct strbuf *err);
/* Same, from a string; name is used in messages and as path. */
int prompt_template_parse(struct prompt_template *t, const char *name, const char *text,
                          struct strbuf *err);
/* The section that renders a chunk with this title: [document_untitled] for a chunk without
   a title (a needle) when the template has one, else [document]. */
const char *prompt_template_document(const struct prompt_template *t, const char *title);
void prompt_template_release(struct prompt_template *t);

/* The template run, gate and show-prompt use when --template is not given (prompts/qa.txt). */
#define PROMPT_DEFAULT_TEMPLATE "qa"

/*
 * Resolve a --template spec to a file, the one rule of run and show-prompt:
 * a spec containing '/', or naming a file in the current folder, is that
 * file; otherwise NAME or NAME.txt means prompts/NAME.txt searched in the
 * data search order (base/datadir.h).
 * Appends the path to out; returns 0 (a path is returned as given, even when
 * it cannot be read: the loader says why), or -1 when NAME is not found (out
 * holds prompts/NAME.txt for the message).
 */
int prompt_template_resolve(const char *spec, struct strbuf *out);

/*
 * The builder keeps per-tokenizer caches: each distinct chunk's rendered
 * token count is computed once, the eligible filler per question once, and
 * the distractor sequence of the last few (question, length, repeat) keys, so
 * the 11 depths of one key cost one sequence plus one exact count each.
 * tk, tpl and hay (may be NULL: hard negatives only) are borrowed and must
 * outlive the builder. Not thread-safe: use one builder per thread.
 */
struct prompt_builder;
struct prompt_builder *prompt_builder_new(struct tokenizer *tk, const struct prompt_template *tpl,
                                          const struct haystack *hay);
void prompt_builder_free(struct prompt_builder *b);

struct prompt_turn_cost;

struct prompt_request {
    const struct question *q; /* borrowed */
    long target_len;          /* tokens of the whole request as the model sees it */
    int depth_bp;       /* 0..DEPTH_BP_MAX (trial.h): fraction of distractor tokens before gold */
    int repeat;         /* 0-based; selects the distractor order */
    unsigned long seed; /* run seed; selects filler and orders */
    long max_answer_tokens; /* recorded only; the runner checks length + this fits the context */
    int chat;               /* 1: length counts system + user messages; 0: the completion string */
    long overhead;    /* tokens the server adds around the content (chat template, BOS), measured
                         (overhead.h); the content is built to target_len - overhead */
    const char *axes; /* canonical named axes (axes.h; NULL or "" none), borrowed: the builder
                         reads its axes' values with axes_find() */
    /*
     * The layout axis (layout.h): what the server adds per haystack turn pair, indexed by
     * enum prompt_layout (measured, overhead.h: overhead_measure_turns()); NULL: none. Borrowed.
     */
    const struct prompt_turn_cost *turn_cost;
};

/*
 * --question-at: a line of [user] holding {question} is a question slot,
 * before {documents} a start slot, after it an end slot; "end" keeps the end
 * slots, "start" the start slots, "both" all (a dropped line that was a
 * paragraph of its own takes its blank line along). The distractors are
 * selected once without any question line, so every value has the same
 * distractors in the same order, the last filler shortened by the value's
 * question tokens. Returns NULL when t has the slots `value` needs, else
 * "before" or "after" (where the missing slot would be).
 */
const char *prompt_question_at_check(const struct prompt_template *t, const char *value);

/*
 * The needles axis (--needles N, --spacing S): gold chunks 0..N-1 placed
 * separately, needle 0 at the depth, needle j at the depth + j x spacing of
 * the distractor tokens (clamped at the end, never before needle j - 1);
 * --spacing alone spaces every gold chunk. A question with fewer gold chunks
 * than N is an error. Scored all-of: prompt_needle_answers() gives the
 * answers a trial needs -- the "value" of each needle in the prompt -- into
 * *out (malloc'd array of borrowed strings; the caller frees the array) and
 * returns their count, or 0 when the trial has no needles axis or a needle
 * has no value (the question's own answers and scorer then apply).
 */
size_t prompt_needle_answers(const struct question *q, const char *axes, const char ***out);

/*
 * The ordinal axis (run --ordinal N, docs/effects.md "Ordinal needles"): the occurrence k
 * (1-based) the question names, the first gold chunk whose "value" is its first answer (gold
 * chunk i is occurrence i + 1 in the prompt); 0 when no gold chunk's value is the answer.
 */
size_t prompt_ordinal_target(const struct question *q);

struct plan_trial;

/*
 * The request of one planned trial: question q (borrowed) at the trial's
 * length, depth and repeat, with the run's seed, answer budget and chat mode;
 * everything else zero. The one place a plan_trial becomes a prompt request
 * (the length check of `run`, the runner, and its prebuild workers).
 */
void prompt_request_for_trial(struct prompt_request *pr, const struct question *q,
                              const struct plan_trial *pt, unsigned long seed,
                              long max_answer_tokens, int chat);

/*
 * The rendered request for one trial. Release with built_prompt_release();
 * init with built_prompt_init() (or BUILT_PROMPT_INIT) before the first build;
 * a built_prompt may be reused across builds.
 */
struct built_prompt {
    struct strbuf system;  /* chat system message ("" when none) */
    struct strbuf user;    /* chat user message */
    struct strbuf text;    /* completion rendering */
    long realized_len;     /* exact token count of the request as the model sees it: the content
                              (chat or completion, per request) counted by the run's tokenizer plus
                              overhead; never above target_len */
    long overhead;         /* the request's overhead (copied from it) */
    double realized_depth; /* fraction of distractor tokens before the gold block, 0..1 */
    long gold_offset; /* token offset of the gold block in the request (from cached counts: exact up
                         to merges at block boundaries, i.e. a few tokens) */
    size_t gold_start, gold_end; /* byte range of the gold block (all gold chunks) in user */
    size_t cut_start, cut_end;   /* byte range in user of the cut filler chunk's text (the
                                    prefix used), 0/0 when no chunk is cut */
    size_t docs_nr;              /* documents in the prompt, gold included */
    size_t gold_index;           /* 0-based document position of the first gold chunk */
    size_t hard_negatives;       /* question's own distractors used */
    size_t filler;               /* haystack chunks used (the last possibly trimmed) */
    size_t filler_dropped;       /* haystack chunks excluded for this question (answer leaks) */
    /*
     * The gold's Okapi BM25 rank for the question (bm25.h: bm25_gold_rank, ties rank the gold
     * below) among the prompt's documents: its first gold chunk and the distractors it holds
     * whole (hard negatives and filler; a filler chunk held in part -- the cut one, whose end
     * moves by a few tokens between depths, or one shortened to make room for a question
     * line -- is not ranked), each as the template shows it (its title
     * only when the template's document section renders {title}), statistics over those
     * bm25_docs documents.
     * The same at every depth and repeat of a (question, length, axes): computed once per
     * distractor selection. 0/0 for controls and order trials.
     */
    size_t gold_bm25_rank, bm25_docs;
    char sha256[SHA256_HEX_LEN + 1]; /* of the request: system "\0" user (chat) or text; with a
                                        layout, of its messages JSON (prompt_messages_json()) */
    /*
     * The layout axis (layout.h). PROMPT_LAYOUT_DOCUMENTS: the request is system + user as
     * above. Otherwise the haystack is earlier turns (turns_nr of them, their contents one
     * after another in turns, turn t ending at turn_end[t]) between the system message and
     * user (the template with an empty {documents}: the question as the final user turn);
     * gold_start/gold_end and cut_start/cut_end are then byte offsets in turns, and
     * gold_turn the turn holding the gold block.
     */
    int layout;
    struct strbuf turns;
    size_t *turn_end;
    size_t turns_nr, turns_alloc, gold_turn;
};
/* the buffers empty, every figure 0 (fields not named are zero) */
#define BUILT_PROMPT_INIT                                                                          \
    {                                                                                              \
        .system = STRBUF_INIT, .user = STRBUF_INIT, .text = STRBUF_INIT, .turns = STRBUF_INIT,     \
        .turn_end = NULL                                                                           \
    }
void built_prompt_init(struct built_prompt *p);
void built_prompt_release(struct built_prompt *p);

/*
 * Build the prompt of one trial. Distractors: the question's hard negatives
 * first (file order), then haystack filler (a seeded permutation of the
 * eligible chunks), taken until the target length is reached, the last filler
 * chunk cut (the "cut item"); the selection depends on (seed, question,
 * length) only, the order additionally on repeat, never on depth. The gold
 * chunk(s) go to the chunk boundary whose share of distractor tokens before
 * it is nearest depth_bp (ties to the earlier boundary).
 * Hard negatives that do not fit are skipped; a filler chunk of fewer than 8
 * words (a one-line fact) is never cut, a later one that fits whole is taken
 * instead; a key-value pair ("KEY": "VALUE", a JSON member) is cut anywhere
 * after its opening quote and closed again (a cut key gets an empty value),
 * and hard negatives then leave a few tokens of room for it. The selection is tuned against exact
 * counts of the whole request (gold first) to within 0.1% + 1 token. Moving the gold changes the
 * count by a few tokens (boundary merges, document numbers), so each build then moves the end of
 * the cut item (from where it is exact for the repeat's order with the gold first), at a token
 * boundary, until the exact count of the whole request is target_len -
 * overhead: every prompt is at most the target, and exactly the target unless no chunk could be cut
 * (haystacks of one-line facts only) or the cut cannot reach it. Only the cut item's last few
 * tokens differ between the depths of one (question, length, repeat); the chunks and their order do
 * not. A control trial (trial_is_control(target_len, depth_bp)) renders the template with no
 * documents (closed-book) or the gold chunk(s) alone (oracle), at whatever length that is. Returns
 * 0, or -1 with a message appended to err (target below the fixed template + question + gold size,
 * not enough filler to reach the target, tokenizer failure). Prints nothing.
 */
int prompt_build(struct prompt_builder *b, const struct prompt_request *r, struct built_prompt *out,
                 struct strbuf *err);

/*
 * The order experiment (run --experiment order): q's retrieved chunks
 * (dataset.h: a retrieval item's, or a synthetic list) passed as documents.
 * The chunks are the top k by rank (all when fewer); with budget > 0 the
 * request must fit budget tokens (overhead included): the packer keeps the
 * best-ranked chunks that fit (ordering_pack(), by rank, never by where a
 * policy puts them) and checks every policy's arrangement by exact count,
 * dropping the lowest-ranked kept chunk while any exceeds the budget, so all
 * policies of one (question, k, budget) hold the same chunks and only their
 * order differs. The kept set is then arranged by `policy`
 * (ordering_arrange(), documents kept together with group_by_doc).
 */
struct order_request {
    const struct question *q; /* borrowed; q->retrieved_nr > 0 */
    int policy;               /* enum ordering (order.h) */
    int k;                    /* >= 1 */
    int group_by_doc;
    long budget;   /* tokens of the whole request, 0 = no budget */
    long overhead; /* the template overhead (as prompt_request) */
    int chat;
};

/*
 * Build the request of one order trial into out: realized_len exact
 * (content + overhead), docs_nr the chunks passed, gold_index the position
 * of the first gold chunk (docs_nr when no gold chunk is in the prompt),
 * gold_offset the exact tokens before its block (-1 when none),
 * realized_depth the share of the other chunks' tokens before it (-1 when
 * none), gold_start/gold_end its block's bytes in user. Returns 0, or -1
 * with a reason in err (no retrieved list, a budget below the template,
 * question and best chunk, tokenizer failure).
 */
int prompt_build_order(struct prompt_builder *b, const struct order_request *r,
                       struct built_prompt *out, struct strbuf *err);

/*
 * Render q's request without distractors (template, question, gold): the
 * content the template overhead is measured with (overhead.h).
 */
void prompt_render_fixed(struct prompt_builder *b, const struct question *q,
                         struct built_prompt *out);

#endif

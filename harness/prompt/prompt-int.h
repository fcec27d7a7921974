/*
 * Private to the prompt builder (prompt.c, prompt_fit.c, prompt_order.c, prompt_axes.c):
 * the builder's state and its selection caches. prompt.h stays the API.
 */
#ifndef PROMPT_INT_H
#define PROMPT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "prompt/prompt.h"
#include "prompt/dataset.h"
#include "base/hashmap.h"
#include "base/strbuf.h"

/* Chunk -> token count of its rendered document block: the entries, indexed by base/hashmap.h. */
struct count_entry {
    const void *chunk;
    long count;
};
struct count_map {
    struct count_entry *e;
    size_t nr, alloc;
    struct hashmap map;
};

struct seq_item {
    const struct chunk *c;
    size_t len; /* bytes of c->text used: all, or a prefix for the cut item */
    long cost;  /* tokens of separator + rendered block */
    int hard;   /* a hard negative */
};

/* Repeats per selection whose cut length is remembered (struct seq.rcut). */
#define REPEAT_CUTS 4

/* Chunks tried as the cut item when one cannot reach the exact count. */
#define CUT_TRIES 3

/*
 * What a selection is made for: a request's question, length, seed, chat mode and overhead
 * with the builder's state at the time (seq_key_of(), prompt_fit.c); the selection cache
 * finds a selection by it.
 */
struct seq_key {
    const struct question *q;
    const char *user; /* the [user] variant it was selected for */
    unsigned mode;    /* FILL_* it was selected with */
    size_t needles;   /* gold chunks it was selected with (0: all) */
    long target;
    unsigned long seed;
    int chat;
    long overhead;
    int layout;         /* enum prompt_layout it was selected for */
    long turn_overhead; /* ... and the server's tokens per turn pair */
};

/* The distractor selection of one (question, length, seed): independent of repeat and depth. */
struct seq {
    struct seq_key key;
    struct seq_item *it;
    size_t nr;
    size_t order_nr; /* items the repeat's order is drawn over (0: nr); a question-slot
                        variant draws its base's order ... */
    size_t *omap;    /* ... and maps base item i to its own item omap[i] (SIZE_MAX: dropped);
                        NULL: the identity */
    long cut;        /* index in it[] of the filler chunk cut to fill the last gap, or -1 */
    const struct chunk *avoid[CUT_TRIES]; /* chunks whose cut could not hit the count exactly */
    int navoid;
    size_t hard, filler, filler_dropped;
    size_t bm25_rank, bm25_docs; /* the gold's (built_prompt.gold_bm25_rank); 0: not yet */
    long pre_docs;               /* tokens of the request before the documents block */
    long fixed;                  /* tokens of the request without distractors */
    uint64_t last_used;
    /*
     * The cut of each recent repeat's order with the gold first: every depth
     * of the repeat starts its fit there (a function of the repeat alone, so
     * a prompt never depends on which depths were built before it).
     */
    struct {
        int repeat, valid;
        size_t needles, len;
    } rcut[REPEAT_CUTS];
    int rcut_next;
};

/* Eligible filler of one question (seeded permutation). */
struct qfill {
    const struct question *q;
    unsigned long seed;
    unsigned mode; /* FILL_* of the request (distractors, haystack-order axes) */
    size_t *idx;   /* into hay->c, or into the builder's neutral chunks (FILL_NONE) */
    size_t nr, dropped;
};

/*
 * How a request's distractors are chosen (the distractors and haystack-order
 * axes; docs/axes.md "Distractor difficulty", "Haystack order"). FILL_DEFAULT: the
 * question's hard negatives, then a seeded permutation of the eligible
 * haystack (no axis: as before axes). FILL_HARD: hard negatives, then the
 * eligible haystack by BM25 similarity to the question. FILL_RANDOM: the
 * seeded permutation only (no hard negatives). FILL_NONE: neutral repeated
 * filler, no haystack chunk. FILL_RUN (with DEFAULT or RANDOM): the filler
 * is a run of consecutive eligible chunks in file order from a seeded start;
 * FILL_COHERENT keeps the prompt in that order (no repeat shuffle).
 */
enum {
    FILL_DEFAULT = 0,
    FILL_HARD = 1,
    FILL_RANDOM = 2,
    FILL_NONE = 3,
    FILL_KIND = 3, /* mask of the kinds above */
    FILL_RUN = 4,
    FILL_COHERENT = 8,
    FILL_PAD = 16 /* with FILL_NONE: the padding arm's chunks (arm=padding) */
};

/* Neutral filler (FILL_NONE): one sentence group, repeated, as one document. */
#define NEUTRAL_TEXT                                                                               \
    "The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again. "
#define NEUTRAL_REPEAT 8
#define NEUTRAL_MAX    8192

/*
 * The padding arm (arm=padding; docs/effects.md "Length, distraction and position"): one
 * neutral token, " .", repeated PAD_REPEAT times per padding document, in place of every
 * distractor. Each repeat is one token of cl100k_base and o200k_base (a pre-token of its own),
 * and the fit cuts the last document at a token boundary, so the prompt is exactly its length.
 */
#define PAD_TOKEN  " ."
#define PAD_REPEAT 100

#define SEQ_CACHE  8
#define FILL_CACHE 64

struct pack_memo;

#define PROMPT_MAX_NEEDLES 64

/* --question-at values (docs/axes.md "Question placement"); QA_TEMPLATE renders the template as is.
 */
enum qa_slot { QA_TEMPLATE, QA_END, QA_START, QA_BOTH, QA_NONE, QA__COUNT };

struct prompt_builder {
    struct tokenizer *tk;
    const struct prompt_template *tpl;
    const struct haystack *hay;
    const char *user;              /* the [user] text of the current request (a slot variant) */
    char *user_variant[QA__COUNT]; /* made on first use; [QA_TEMPLATE] unused (tpl->user);
                                      [QA_NONE] (no question line) selects the distractors */
    struct count_map counts;
    struct seq seqs[SEQ_CACHE];
    struct qfill fills[FILL_CACHE];
    size_t fill_next;
    struct bm25_index *bm25; /* made on the first FILL_HARD request */
    /*
     * The needles axis (0: every gold chunk as one block at k, as before
     * axes): gold chunks 0..needles-1, needle j at boundary pos[j].
     */
    size_t needles;
    size_t pos[PROMPT_MAX_NEEDLES];
    /*
     * The two-hop axes (hops=2, depth-b=PCT; docs/axes.md "Two-hop chains"): gold chunk 0
     * (needle A) at the depth, gold chunk 1 (needle B) at the boundary nearest depth_b on
     * its own; depth_b < 0 without them.
     */
    double depth_b;
    /*
     * run --absent (axis absent=yes; docs/effects.md "Needle-absent trials"): gold chunk g is
     * rendered as absent_sub[g], its first absent_len[g] bytes (cut to the gold's tokens), for
     * g < absent_nr; 0 for every other request
     */
    const struct chunk *absent_sub[PROMPT_MAX_NEEDLES];
    size_t absent_len[PROMPT_MAX_NEEDLES], absent_nr;
    /*
     * The ordinal axis (ordinal=N; docs/effects.md "Ordinal needles"): gold chunks 0..N-1 in
     * that order, gold chunk `target` (the question's occurrence k - 1) at the depth, the ones
     * before it between the start and the depth, the ones after it between the depth and
     * the end, spread by the seed; ordinal 0 without the axis (target then 0: gold chunk 0).
     */
    size_t ordinal, target;
    struct chunk *neutral; /* NEUTRAL_MAX chunks sharing one text, made on first use */
    char *neutral_text;
    struct chunk *pad; /* NEUTRAL_MAX padding chunks (FILL_PAD), made on first use */
    char *pad_text;
    uint64_t tick;
    struct strbuf scratch, docs;
    struct pack_memo *packs; /* the order experiment's kept sets (prompt_build_order) */
    size_t packs_nr, packs_alloc;
    /*
     * The layout axis (layout.h) of the current request and the server's tokens per turn
     * pair in it; unit_at[i]: the byte in docs where chunk i's unit (the gold blocks before
     * it, then its block) starts, as prompt_render_request() left them.
     */
    int layout;
    long turn_overhead;
    const char *turn_suffix; /* layout.h: struct prompt_turn_cost */
    struct strbuf turn_scratch;
    size_t *unit_at, units, unit_alloc;
    /*
     * The needle-tokens axis (needle_size.h): a question copied with its gold chunk 0 sized,
     * one allocation each and kept for the builder's life, since the selection caches key on
     * the question's address.
     */
    struct sized_question **sized;
    size_t sized_nr, sized_alloc;
};
struct sized_question {
    const struct question *src;
    long tokens;
    size_t k;          /* the gold chunk sized (needle_size.h: the answer chunk) */
    struct question q; /* src's fields (borrowed) but gold: owned, gold[k].text sized */
};
/* Representative document number for cached counts (two digits, like most). */
#define COUNT_INDEX 10

struct chunk_fields {
    long index;
    const char *title, *text, *id;
    size_t text_len;
    const char *tail; /* after the text (a cut member's closing quote), or NULL */
};
/* Tokens of separator + the chunk's block, with text (text, len). */
long prompt_block_cost(struct prompt_builder *b, const struct chunk *c, const char *text,
                       size_t len, struct strbuf *err);

/* An order trial (its axes policy, k and group; its length the budget) as prompt_build_order(). */
int prompt_build_order_trial(struct prompt_builder *b, const struct prompt_request *r,
                             struct built_prompt *out, struct strbuf *err);

long prompt_chunk_cost(struct prompt_builder *b, const struct chunk *c, struct strbuf *err);

/*
 * A needle-absent request (absent=yes): the distractors that stand in for the gold chunks,
 * into b->absent_sub/absent_len: for each gold chunk the next eligible filler chunk the
 * selection s does not hold (the first of the next few whose block is at least the gold's,
 * cut to the gold's tokens; else the next whole), so the prompt keeps its length. Returns 0,
 * or -1 (err: no filler left, or counting failed).
 */
int prompt_absent_subs(struct prompt_builder *b, const struct seq *s,
                       const struct prompt_request *r, struct strbuf *err);

/* Exact token count of the request's content as sent (the template overhead not included). */
long prompt_count_request(struct prompt_builder *b, const struct built_prompt *p, int chat,
                          struct strbuf *err);

long prompt_count_text(struct prompt_builder *b, const char *s, size_t n, struct strbuf *err);

/* What follows a chunk's text cut to len bytes: a cut member's closing (member_span()), or NULL. */
const char *prompt_cut_tail(const struct chunk *c, size_t len);

/* The i-th filler chunk of f. */
const struct chunk *prompt_fill_at(const struct prompt_builder *b, const struct qfill *f, size_t i);

/*
 * Give this build its exact count: move the cut item's end so that the
 * whole request counts content tokens (never more), counting a window
 * around the cut while searching and the whole request to confirm.
 * *real holds the exact count of out on entry and on return.
 */
int prompt_fit_exact(struct prompt_builder *b, const struct seq *s, const size_t *order, size_t k,
                     long content, int chat, struct built_prompt *out, long *real,
                     struct strbuf *err);

struct qfill *prompt_get_fill(struct prompt_builder *b, const struct question *q,
                              unsigned long seed, unsigned mode);

/*
 * The distractor selection of a request (question, length, seed, rendering, question
 * slots), from the builder's cache or made now; NULL with err set.
 */
struct seq *prompt_get_seq(struct prompt_builder *b, const struct prompt_request *r,
                           struct built_prompt *tmp, struct strbuf *err);

void prompt_hash_request(int chat, struct built_prompt *out);

int prompt_make_user_variant(const char *user, enum qa_slot want, struct strbuf *out, int *n_start,
                             int *n_end);

/*
 * A chunk "KEY": "VALUE" (a JSON member with a string value: the key-value
 * haystacks, whose pairs are too short to cut like prose) is cut anywhere
 * after its opening quote and closed again (prompt_cut_tail()): a cut in the key
 * ends the key and gives it an empty value, a cut in the value ends the
 * value. *min = bytes that always stay (the opening quote), *max = the text
 * without its closing quote (all of it: the whole pair), *value = the offset
 * of the value's first byte. Returns 1 for such a chunk, else 0 (*min = 0,
 * *max = the text's length).
 */
int prompt_member_span(const struct chunk *c, size_t *min, size_t *max, size_t *value);

void prompt_pack_memo_clear(struct prompt_builder *b);

/*
 * Render a section. For [user], documents (may be NULL) is inserted for
 * {documents}; *at (if non-NULL) receives the byte offset in out of
 * {documents} (in [user]) or of {text} (in [document]).
 */
void prompt_render(struct strbuf *out, const char *tpl, const char *question,
                   const struct strbuf *documents, size_t *at, const struct chunk_fields *d);

/*
 * The system and user messages (and the completion string) of q with the
 * documents block b->docs; returns the byte offset of the block in user.
 */
size_t prompt_render_messages(struct prompt_builder *b, const struct question *q,
                              struct built_prompt *out);

/*
 * Render the whole request for a distractor order (order[] indexes s->it)
 * with the gold block at boundary k, the cut item (if any) keeping cut_len
 * bytes of its text (SIZE_MAX: the selection's length). Fills out's strings,
 * byte offsets and the cut item's text range.
 */
void prompt_render_request(struct prompt_builder *b, const struct seq *s, const size_t *order,
                           size_t k, size_t cut_len, struct built_prompt *out);

/* The FILL_* mode of a request from its distractors and haystack-order axes. */
int prompt_request_fill_mode(const struct prompt_request *r, unsigned *mode, struct strbuf *err);

void prompt_seq_clear(struct seq *s);

/*
 * Question slots: a line of [user] holding {question} is a slot, a start slot
 * before {documents} and an end slot after it (a line holding both is no
 * slot). end keeps the end slots, start the start slots, both keeps all;
 * a dropped line that was a paragraph of its own takes its blank line along.
 */
int prompt_is_slot_line(const char *l, size_t n, const char *what);

/*
 * The seeded stream of (seed, question, length, repeat) under a tag ("run", "filler",
 * "order", "ordinal"): the same on every platform (fixed byte order).
 */
uint64_t prompt_mix_key(unsigned long seed, const char *qid, long len, long repeat,
                        const char *tag);

/*
 * The request's axes into the builder (prompt_axes.c), each 0 or -1 with err filled:
 * the layout axis into b->layout and its per-pair server tokens; b->user to the [user]
 * variant the question-at axis asks for; the needles, spacing, hops and ordinal axes
 * into b->needles, *spacing (a fraction of the distractor tokens), b->depth_b,
 * b->ordinal and b->target, every needle at boundary 0 until placed.
 */
int prompt_select_layout(struct prompt_builder *b, const struct prompt_request *r,
                         struct strbuf *err);
int prompt_select_user(struct prompt_builder *b, const struct prompt_request *r,
                       struct strbuf *err);
int prompt_select_needles(struct prompt_builder *b, const struct prompt_request *r, double *spacing,
                          struct strbuf *err);

/*
 * Where the needles go once the gold's boundary k is known: ordinal needles around k
 * among nr boundaries, by the seed; or needle j >= 1 at the boundary nearest
 * d + j x spacing of the distractor tokens (total), never before needle j - 1.
 */
void prompt_place_ordinal(struct prompt_builder *b, const struct prompt_request *r, size_t nr,
                          size_t k);
void prompt_place_needles(struct prompt_builder *b, const struct seq *s, const size_t *order,
                          size_t k, double d, double spacing, long total);

#endif

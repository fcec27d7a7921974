#ifndef NEEDLE_SIZE_H
#define NEEDLE_SIZE_H

#include <stddef.h>

struct haystack;
struct question;
struct strbuf;
struct tokenizer;

/*
 * The needle-size axis (run --needle-tokens N; docs/effects.md "Needle size"): a question's
 * answer chunk -- its first gold chunk (dataset order) that states one of its answers --
 * trimmed around the sentence that states it, or padded with the haystack text around it, to
 * exactly N tokens of the run's tokenizer. The other gold chunks keep their text.
 *
 * Sentences: a chunk's text splits after [.!?] (and closing quotes or brackets) followed by
 * whitespace, and at newlines. The answer chunk is the first gold chunk in which one of the
 * question's answers occurs (byte for byte; else, in a second pass, ignoring ASCII case); its
 * answer sentence is every sentence that overlaps that answer's first occurrence.
 */

/* The axis name (run --needle-tokens): the value is the gold's size in tokens. */
#define NEEDLE_TOKENS_AXIS "needle-tokens"
/* The sizes the axis takes (run_options.c checks them). */
#define NEEDLE_TOKENS_MIN 1
#define NEEDLE_TOKENS_MAX 65536

/*
 * q's answer chunk (*chunk, an index of q->gold) and its answer sentence: *len bytes of its
 * text from *start. Returns 0, or -1 when no gold chunk states one of q's answers.
 */
int needle_answer_sentence(const struct question *q, size_t *chunk, size_t *start, size_t *len);

/*
 * q's answer chunk (*chunk: its index in q->gold) at exactly tokens tokens (tokenizer_count of
 * the text alone) into out (appended): the answer sentence kept byte for byte, then whole
 * neighbouring sentences, after and before in turn, while they fit, and the last one cut at a
 * character boundary so the count is exact. Neighbouring text past the chunk's own is the
 * haystack's (hay may be NULL: none): the chunks eligible for q (haystack_filter(), so none states
 * an answer) in file order around the gold -- after the haystack chunk with the gold's id when the
 * haystack has it, else around a point a hash of the question id picks -- with each whitespace run
 * of theirs written as one space, one space between chunks. Returns 0, or -1 with err naming the
 * question and the size: the answer sentence alone is over tokens, no gold chunk states an answer,
 * or the text around it is too short to reach tokens.
 */
int needle_size_text(struct tokenizer *tk, const struct haystack *hay, const struct question *q,
                     long tokens, struct strbuf *out, size_t *chunk, struct strbuf *err);

/*
 * The needle-tokens value of a trial's axes into *tokens: 1 when the axis is there, 0 when not
 * (*tokens 0), -1 with err when its value is not a size NEEDLE_TOKENS_MIN..NEEDLE_TOKENS_MAX.
 */
int needle_tokens_of(const char *axes, long *tokens, struct strbuf *err);

#endif

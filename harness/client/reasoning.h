#ifndef REASONING_H
#define REASONING_H

struct strbuf;

/*
 * Reasoning kept apart from the answer. Servers put a reasoning model's
 * thinking in message.reasoning_content / message.reasoning, or inline in the
 * content as a leading <think>...</think> block; only what follows it is the
 * answer, and only the answer is ever scored (a thought that mentions the
 * gold answer is not a correct answer).
 */

#define REASONING_OPEN_DEFAULT  "<think>"
#define REASONING_CLOSE_DEFAULT "</think>"

/*
 * Split model output into answer and inline reasoning, with the tags
 * open/close (NULL: the defaults). After leading whitespace:
 * - every leading open...close block is reasoning;
 * - an open tag never closed makes the rest reasoning (the budget ran out
 *   while thinking: no answer);
 * - with no leading open tag, text up to the first close tag is reasoning
 *   (chat templates that open the block in the prompt, e.g. DeepSeek-R1,
 *   Qwen3), unless no close tag occurs at all.
 * The answer is what follows, leading whitespace removed. content NULL is "".
 * Appends to answer and reasoning (either may be NULL: not wanted); the
 * reasoning blocks are joined by "\n". Returns 1 when some reasoning was
 * found, else 0 (then answer receives content unchanged).
 */
int reasoning_split(const char *content, const char *open, const char *close, struct strbuf *answer,
                    struct strbuf *reasoning);

/* 1 when s is NULL or only white space: no answer (no reasoning) at all. */
int reasoning_blank(const char *s);

/*
 * A reply with no answer (blank content): 1 when it was starved, the answer budget spent on
 * reasoning (reasoning text, reasoning tokens, or tokens spent with nothing to show at
 * finish_reason "length"), whatever finish_reason says (servers report "stop" after forcing the
 * end of thinking); 0 when it was simply empty. Counts < 0 are unknown. One rule for the client's
 * classification and for rescore.
 */
int reasoning_starved(const char *reasoning, long reasoning_tokens, long completion_tokens,
                      const char *finish_reason);

/*
 * Parse a --reasoning-tags value "OPEN,CLOSE" (both non-empty, no spaces
 * needed, e.g. "<think>,</think>" or "[THINK],[/THINK]"). On success *open and
 * *close are malloc'd (caller frees) and 0 is returned; -1 with a reason
 * appended to err otherwise.
 */
int reasoning_tags_parse(const char *spec, char **open, char **close, struct strbuf *err);

#endif

#ifndef OVERLAP_H
#define OVERLAP_H

#include <stddef.h>

struct tokenizer;
struct question;

/*
 * Lexical overlap of a question with its evidence, the one definition the report's overlap
 * terciles and serve-sim's planted overlap=E effect share: the share of the question's
 * distinct token ids (tokenizer tk) that also occur among its gold chunks' token ids (all gold
 * chunks, each followed by "\n"). 1: every question token is in the gold; 0: none is.
 * Returns -1 when q has no gold chunk (a retrieval item whose retriever missed it) or the
 * tokenizer fails, 0 for a question with no tokens.
 */
double overlap_share(struct tokenizer *tk, const struct question *q);

#endif

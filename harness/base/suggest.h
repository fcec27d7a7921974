#ifndef SUGGEST_H
#define SUGGEST_H

#include <stddef.h>

/*
 * "Did you mean": the name in names (NULL-terminated) nearest to s by edit
 * distance (insertions, deletions, substitutions and adjacent transpositions,
 * case-insensitive, '_' and '-' equal), when it is at most max(1, strlen(s)/4)
 * edits away (lenghts -> lengths, distractor -> distractors, answer ->
 * answers); NULL when none is that near. One helper for config keys, golden-
 * set fields and option names.
 */
const char *suggest_name(const char *s, const char *const *names);

#endif

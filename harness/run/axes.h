#ifndef AXES_H
#define AXES_H

#include <stddef.h>

struct strbuf;
struct strvec;
struct trial_point;

/*
 * Named axes of a trial beyond (question, length, depth, repeat): the one
 * representation every module shares (docs/axes.md "Axes beyond depth"). A trial's axes are a
 * canonical string
 *
 *     "name=value;name=value"     names sorted ascending (strcmp), each once
 *
 * and "" when the trial has none, so keys compare with strcmp, hash as text
 * and fit one TEXT column of the store. A name is [a-z][a-z0-9_-]*, a value
 * is one or more of [A-Za-z0-9_.%+-] (no '=', ';', spaces). A run without
 * extra axes stores "" everywhere and behaves exactly as before axes existed.
 *
 * Declaring an axis: plan_spec.axes (plan.h) lists each axis name with its
 * values; plan_build() crosses them with lengths and depths and gives every
 * plan_trial its canonical string. A prompt builder reads its value with
 * axes_get(pr->axes, "question-at", ...); reports find the axes present in a
 * run's trials with axes_names_of() and group with axes_get().
 */

#define AXES_MAX_NAME 32

/* 1 when s is a valid axis name / value (rules above). */
int axes_name_valid(const char *s, size_t len);
int axes_value_valid(const char *s, size_t len);

/*
 * Parse "name=value;..." in any order (";" or "," between pairs) into the
 * canonical form, appended to out. Empty or NULL is "". Returns 0, or -1
 * with a reason appended to err (a bad name or value, a name given twice).
 */
int axes_canonical(const char *s, struct strbuf *out, struct strbuf *err);

/*
 * One pair of an axes string, borrowed from it (not NUL-terminated). The one
 * walk over "name=value;..." every module uses:
 *
 *     const char *p = axes;  struct axes_pair pr;
 *     while (axes_next(&p, &pr) > 0)
 *         use pr.name, pr.name_len, pr.value, pr.value_len;
 *
 * Returns 1 and advances *p past the pair, 0 at the end, -1 at a pair
 * without '=' (pr then holds that piece as its name, *p is not moved).
 * NULL *p is "". Names and values are not checked (axes_canonical does).
 */
struct axes_pair {
    const char *name, *value;
    size_t name_len, value_len;
};
int axes_next(const char **p, struct axes_pair *pr);

/* 1 when axes (NULL is "") is already canonical. */
int axes_is_canonical(const char *axes);

/*
 * The value of axis name in canonical axes (NULL is ""): a pointer into axes
 * and its length in *len, or NULL when the axis is absent. Borrowed.
 */
const char *axes_find(const char *axes, const char *name, size_t *len);
/* The same, copied into out (reset first); returns 1 found, 0 absent. */
int axes_get(const char *axes, const char *name, struct strbuf *out);
/* 1 when axes has name=value. */
int axes_has(const char *axes, const char *name, const char *value);

/*
 * Canonical axes with name set to value (added or replaced; value NULL
 * removes it), appended to out. axes must be canonical.
 */
void axes_set(struct strbuf *out, const char *axes, const char *name, const char *value);

/* "" for NULL: the canonical string of "no axes". */
const char *axes_or_empty(const char *axes);

/*
 * For reports: "question-at=start, needles=2" (", " between, as written), or
 * `none` when axes is empty. Appended to out.
 */
void axes_format(struct strbuf *out, const char *axes, const char *none);

/*
 * The axis names present in trials[0..n-1] (sorted, each once) appended to
 * names; the values of one axis (in first-seen order, each once) to values.
 */
void axes_names_of(const struct trial_point *t, size_t n, struct strvec *names);
void axes_values_of(const struct trial_point *t, size_t n, const char *name, struct strvec *values);

/*
 * The trials whose axis name has value (a shallow copy: struct copies that
 * borrow the strings of t; free only the array, never release the entries).
 * value NULL selects the trials without that axis. *nr set; returns the
 * malloc'd array (possibly empty, never NULL).
 */
struct trial_result *axes_select(const struct trial_result *t, size_t n, const char *name,
                                 const char *value, size_t *nr);

#endif

#ifndef NUM_H
#define NUM_H

/*
 * Checked number parsing. Each returns 0 on success and -1 when the text is
 * not entirely a number of the requested kind or is out of range; *out is
 * written only on success. They never print: callers name the field.
 * Leading/trailing whitespace, "", "-", "12x", "0x10" are all rejected.
 */
int parse_long(const char *s, long *out);
int parse_long_range(const char *s, long min, long max, long *out);
int parse_ulong(const char *s, unsigned long *out); /* rejects a sign */
int parse_double(const char *s, double *out);       /* finite values only */
int parse_double_range(const char *s, double min, double max, double *out);

/*
 * A token count with an optional k/K (x1024) or m/M (x1048576) suffix, as in
 * "8k" = 8192 (RULER's convention). Must be in 1..max.
 */
int parse_token_count(const char *s, long max, long *out);

/*
 * An accuracy, a share or a difference of them, in any of the forms the options take: a
 * fraction ("0.05"), percentage points ("5pp") or per cent ("5%"); *out is the fraction.
 * A bare number above 1 ("5") is refused: 5 pp or 500%? The caller names the option and
 * the forms (PARSE_POINTS_FORMS). Signs pass; callers check their range.
 */
int parse_points(const char *s, double *out);
#define PARSE_POINTS_FORMS "a fraction or points: 0.05, 5pp or 5%"

/* Human text for why the last parse failed, e.g. for "12x": "not a number". */
const char *parse_num_strerror(const char *s);

#endif

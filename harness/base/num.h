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

/* Human text for why the last parse failed, e.g. for "12x": "not a number". */
const char *parse_num_strerror(const char *s);

#endif

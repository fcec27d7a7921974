#ifndef JSON_H
#define JSON_H

#include <stddef.h>

struct strbuf;

/*
 * dipmap's JSON, read and written through one module over cJSON, so that
 * cJSON's types and its ownership rules (cJSON_Delete for trees,
 * cJSON_free for printed text, borrowed valuestring pointers) stay in
 * json.c. A tree is one `struct json` root: json_parse() and json_new_*()
 * give one the caller frees with json_free(); every other pointer these
 * functions return is borrowed from its tree and lives until that root is
 * freed.
 */
struct json;

/* ---- reading ---- */

/*
 * Parse text[0..len) (len may stop before a NUL). Returns the root, or NULL
 * for text that is not JSON (with "invalid JSON at byte N" appended to err
 * when err is non-NULL).
 */
struct json *json_parse(const char *text, size_t len, struct strbuf *err);
/* The same; on failure *bad_at (when non-NULL) is the offset of the byte where it broke. */
struct json *json_parse_at(const char *text, size_t len, size_t *bad_at);
/* A NUL-terminated text (a stored settings column): NULL when s is NULL or not JSON. */
struct json *json_parse_str(const char *s);
/* Free a tree (NULL is a no-op). */
void json_free(struct json *root);

enum json_kind {
    JSON_ABSENT = 0,
    JSON_NULL,
    JSON_BOOL,
    JSON_NUMBER,
    JSON_STRING,
    JSON_ARRAY,
    JSON_OBJECT
};
/* The kind of v; JSON_ABSENT for NULL (a member that is not there). */
enum json_kind json_kind(const struct json *v);
/* "null", "a boolean", "a number", "a string", "an array", "an object", "absent". */
const char *json_kind_name(enum json_kind k);

/* Member key of obj (case-sensitive), or NULL when obj is not an object or has none. */
const struct json *json_get(const struct json *obj, const char *key);
/* The text of a string value; NULL when v is not a string. */
const char *json_str(const struct json *v);
/* json_str(json_get(obj, key)). */
const char *json_get_str(const struct json *obj, const char *key);
/* 1 for the literal true, 0 otherwise; json_is_false: 1 for the literal false. */
int json_is_true(const struct json *v);
int json_is_false(const struct json *v);
/* A number's value; dflt when v is not a number. */
double json_num(const struct json *v, double dflt);

/* 1 when a and b are the same JSON (keys case-sensitive, member order aside), else 0. */
int json_equal(const struct json *a, const struct json *b);

/* Elements of an array, members of an object: 0 for anything else. */
size_t json_size(const struct json *v);
/* Element i of an array (or member i of an object), NULL past the end. */
const struct json *json_at(const struct json *v, size_t i);
/* Walk an array's elements or an object's members: first child, then the next one; NULL at the end.
 */
const struct json *json_first(const struct json *v);
const struct json *json_next(const struct json *v);
/* The key of an object member (from json_first/json_next over an object), else NULL. */
const char *json_key(const struct json *member);

/*
 * Typed getters for a record of a file: where names the record ("file:line"
 * or a file), key the member. Each returns 0 and sets *out, 1 when the
 * member is absent (*out untouched), or -1 with
 * `where: "key" must be a string` (an array of strings, a number, ...)
 * appended to err.
 */
int json_want_str(const struct json *obj, const char *key, const char *where, const char **out,
                  struct strbuf *err);
int json_want_num(const struct json *obj, const char *key, const char *where, double *out,
                  struct strbuf *err);
int json_want_bool(const struct json *obj, const char *key, const char *where, int *out,
                   struct strbuf *err);

/* ---- writing ---- */

/* A new empty object or array: a root (json_free) until added to another tree. */
struct json *json_new_object(void);
struct json *json_new_array(void);
/*
 * Add a member (obj an object, key its name) or an element (obj an array,
 * key NULL). The _add_object/_add_array forms return the new container
 * (borrowed). json_add() takes ownership of child (a root).
 */
void json_add_str(struct json *obj, const char *key, const char *s); /* s NULL: null */
/* JSON has no NaN or infinity: a v that is not finite (no data) is written null. */
void json_add_num(struct json *obj, const char *key, double v);
/* An interval [lo, hi], or null when either bound is not finite (no data). */
void json_add_interval(struct json *obj, const char *key, double lo, double hi);
void json_add_bool(struct json *obj, const char *key, int v);
void json_add_null(struct json *obj, const char *key);
void json_add(struct json *obj, const char *key, struct json *child);
struct json *json_add_object(struct json *obj, const char *key);
struct json *json_add_array(struct json *obj, const char *key);
/* A deep copy of v: a root (json_free) until added to another tree. */
struct json *json_copy(const struct json *v);
/* Sort the members of every object in v by key (byte order), at every level. */
void json_sort_keys(struct json *v);
/* Remove member key of obj (when there). */
void json_remove(struct json *obj, const char *key);

/* Append v as JSON text to out: one line, or indented with pretty. */
void json_print(struct strbuf *out, const struct json *v, int pretty);
/* The same, as a malloc'd string the caller free()s. */
char *json_print_str(const struct json *v, int pretty);

/* Appends "cJSON VERSION" of the library linked at run time (dipmap --version). */
void json_library_version(struct strbuf *out);

#endif

#ifndef STRBUF_H
#define STRBUF_H

#include <stdarg.h>
#include <stddef.h>

#include "base/usage.h"

/*
 * A growable byte string, always NUL-terminated (buf[len] == '\0'), which may
 * hold embedded NULs. Life cycle: strbuf_init()/STRBUF_INIT, then
 * strbuf_release() (frees the storage; the struct is reusable afterwards).
 *
 * cap, when non-zero, is the most bytes the buffer may hold, so that a
 * hostile peer cannot exhaust memory (HTTP bodies and headers, file reads).
 * cap == 0 means no limit. Two families of appends:
 *
 * - strbuf_add, _addstr, _addch, _addf, _vaddf cannot fail and return nothing.
 *   They are for bytes the program chose; one that would take a capped buffer
 *   past its cap is a broken invariant (BUG()).
 * - strbuf_add_capped is the append for bytes from outside: past the cap it
 *   changes nothing and returns -1, and the compiler refuses a caller that
 *   ignores the result (warn_unused_result; the build has -Werror=unused-result).
 *   The readers below (strbuf_read_*, strbuf_getline) honour the cap the same way.
 */
struct strbuf {
    char *buf;
    size_t len;
    size_t alloc;
    size_t cap;
};

extern char strbuf_slopbuf[];
#define STRBUF_INIT                                                                                \
    {                                                                                              \
        .buf = strbuf_slopbuf, .len = 0, .alloc = 0, .cap = 0                                      \
    }

void strbuf_init(struct strbuf *sb, size_t hint);
void strbuf_release(struct strbuf *sb);
/* Give up ownership: returns the malloc'd string (caller frees), resets sb. */
char *strbuf_detach(struct strbuf *sb, size_t *len);
void strbuf_set_cap(struct strbuf *sb, size_t cap);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_reset(struct strbuf *sb);
void strbuf_setlen(struct strbuf *sb, size_t len);

/* Appends of the program's own bytes: they always append (a capped buffer's cap is a BUG()). */
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) DM_PRINTF(2, 3);
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap) DM_PRINTF(2, 0);
/* The append of bytes from outside: 0, or -1 when the cap would be exceeded (sb unchanged). */
int strbuf_add_capped(struct strbuf *sb, const void *data, size_t len) DM_WARN_UNUSED;

/* Trim ASCII whitespace at the end / both ends. */
void strbuf_rtrim(struct strbuf *sb);
void strbuf_trim(struct strbuf *sb);

/*
 * Read a whole file (path "-" is stdin) and append it. Returns 0, or -1 with
 * errno set (EFBIG when the cap is exceeded). Does not print.
 */
int strbuf_read_file(struct strbuf *sb, const char *path);
/* Read all of an open descriptor; same contract as strbuf_read_file(). */
int strbuf_read_fd(struct strbuf *sb, int fd);
/*
 * strbuf_read_file(), and when the bytes read start with the gzip magic
 * (1f 8b) they are replaced by their decompressed content (concatenated gzip
 * members are all read; the cap applies to the decompressed size). Returns 0,
 * -1 with errno set as strbuf_read_file(), or -2 when the gzip data is corrupt
 * or truncated (sb unchanged). Does not print.
 */
int strbuf_read_file_gz(struct strbuf *sb, const char *path);

/*
 * Read one line ('\n' removed, '\r' kept) from a stdio stream, replacing the
 * contents. Returns 1 for a line, 0 at EOF, -1 when the line is longer than
 * the cap (the rest of the line is skipped, sb holds the first cap bytes).
 */
int strbuf_getline(struct strbuf *sb, void *stdio_file);

/* Appends "zlib VERSION" of the library linked at run time (dipmap --version). */
void strbuf_library_version(struct strbuf *out);

#endif

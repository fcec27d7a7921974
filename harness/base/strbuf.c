/*
 * The growable string buffer (after git's strbuf.c), with an optional size
 * cap so that untrusted input cannot grow it without bound.
 */
#include "base/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "base/xalloc.h"

#include "base/banned.h"

char strbuf_slopbuf[1];

void strbuf_init(struct strbuf *sb, size_t hint)
{
    sb->buf = strbuf_slopbuf;
    sb->len = 0;
    sb->alloc = 0;
    sb->cap = 0;
    if (hint)
        strbuf_grow(sb, hint);
}

void strbuf_release(struct strbuf *sb)
{
    if (sb->alloc)
        free(sb->buf);
    strbuf_init(sb, 0);
}

char *strbuf_detach(struct strbuf *sb, size_t *len)
{
    char *r;
    if (!sb->alloc)
        strbuf_grow(sb, 0);
    r = sb->buf;
    if (len)
        *len = sb->len;
    strbuf_init(sb, 0);
    return r;
}

void strbuf_set_cap(struct strbuf *sb, size_t cap)
{
    sb->cap = cap;
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
    size_t need = st_add(st_add(sb->len, extra), 1);
    int fresh = !sb->alloc;
    if (need <= sb->alloc)
        return;
    if (fresh)
        sb->buf = NULL;
    if (need < 64)
        need = 64;
    if (need < sb->alloc + sb->alloc / 2)
        need = sb->alloc + sb->alloc / 2;
    sb->buf = xrealloc(sb->buf, need);
    sb->alloc = need;
    if (fresh)
        sb->buf[0] = '\0';
}

void strbuf_reset(struct strbuf *sb)
{
    strbuf_setlen(sb, 0);
}

void strbuf_setlen(struct strbuf *sb, size_t len)
{
    if (len > sb->len && len >= sb->alloc)
        BUG("strbuf_setlen beyond allocation");
    sb->len = len;
    if (sb->alloc)
        sb->buf[len] = '\0';
}

static int over_cap(const struct strbuf *sb, size_t extra)
{
    return sb->cap && (extra > sb->cap || sb->len > sb->cap - extra);
}

static void append(struct strbuf *sb, const void *data, size_t len)
{
    strbuf_grow(sb, len);
    if (len)
        memcpy(sb->buf + sb->len, data, len);
    strbuf_setlen(sb, sb->len + len);
}

int strbuf_add_capped(struct strbuf *sb, const void *data, size_t len)
{
    if (over_cap(sb, len))
        return -1;
    append(sb, data, len);
    return 0;
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
    if (over_cap(sb, len))
        BUG("strbuf_add past the cap of %zu bytes: bytes from outside take strbuf_add_capped",
            sb->cap);
    append(sb, data, len);
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
    strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, int c)
{
    char ch = (char)c;
    strbuf_add(sb, &ch, 1);
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
    va_list cp;
    int n;
    size_t avail;

    strbuf_grow(sb, 64);
    avail = sb->alloc - sb->len;
    va_copy(cp, ap);
    n = vsnprintf(sb->buf + sb->len, avail, fmt, cp);
    va_end(cp);
    if (n < 0)
        BUG("vsnprintf failed for format '%s'", fmt);
    if (over_cap(sb, (size_t)n))
        BUG("strbuf_addf past the cap of %zu bytes: bytes from outside take strbuf_add_capped",
            sb->cap);
    if ((size_t)n >= avail) {
        strbuf_grow(sb, (size_t)n);
        avail = sb->alloc - sb->len;
        va_copy(cp, ap);
        n = vsnprintf(sb->buf + sb->len, avail, fmt, cp);
        va_end(cp);
        if (n < 0 || (size_t)n >= avail)
            BUG("vsnprintf changed its mind for format '%s'", fmt);
    }
    strbuf_setlen(sb, sb->len + (size_t)n);
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(sb, fmt, ap);
    va_end(ap);
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

void strbuf_rtrim(struct strbuf *sb)
{
    while (sb->len && is_space(sb->buf[sb->len - 1]))
        sb->len--;
    if (sb->alloc)
        sb->buf[sb->len] = '\0';
}

void strbuf_trim(struct strbuf *sb)
{
    size_t i = 0;
    strbuf_rtrim(sb);
    while (i < sb->len && is_space(sb->buf[i]))
        i++;
    if (i) {
        memmove(sb->buf, sb->buf + i, sb->len - i);
        strbuf_setlen(sb, sb->len - i);
    }
}

int strbuf_read_fd(struct strbuf *sb, int fd)
{
    for (;;) {
        ssize_t n;
        size_t want = 65536;
        if (sb->cap) {
            if (sb->len >= sb->cap) {
                char probe;
                n = read(fd, &probe, 1);
                if (n == 0)
                    return 0;
                if (n < 0 && errno == EINTR)
                    continue;
                if (n > 0)
                    errno = EFBIG;
                return -1;
            }
            if (want > sb->cap - sb->len)
                want = sb->cap - sb->len;
        }
        strbuf_grow(sb, want);
        n = read(fd, sb->buf + sb->len, want);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            sb->buf[sb->len] = '\0';
            return -1;
        }
        if (n == 0)
            return 0;
        strbuf_setlen(sb, sb->len + (size_t)n);
    }
}

int strbuf_read_file(struct strbuf *sb, const char *path)
{
    int fd, r, saved;
    if (!strcmp(path, "-"))
        return strbuf_read_fd(sb, 0);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    r = strbuf_read_fd(sb, fd);
    saved = errno;
    close(fd);
    errno = saved;
    return r;
}

/* Inflate gz[0..n) (one or more gzip members) and append to sb. */
static int gunzip_append(struct strbuf *sb, const unsigned char *gz, size_t n)
{
    z_stream zs;
    size_t left = n;
    int rc = -2;
    memset(&zs, 0, sizeof(zs));
    if (inflateInit2(&zs, 15 + 16) != Z_OK)
        return -2;
    zs.next_in = (unsigned char *)gz;
    for (;;) {
        size_t want = 1u << 20;
        int zr;
        if (!zs.avail_in && left) {
            size_t chunk = left > (1u << 30) ? (1u << 30) : left;
            zs.avail_in = (uInt)chunk;
            left -= chunk;
        }
        if (sb->cap && sb->len + want > sb->cap)
            want = sb->cap > sb->len ? sb->cap - sb->len : 0;
        if (!want) {
            errno = EFBIG;
            rc = -1;
            break;
        }
        strbuf_grow(sb, want);
        zs.next_out = (unsigned char *)sb->buf + sb->len;
        zs.avail_out = (uInt)want;
        zr = inflate(&zs, Z_NO_FLUSH);
        strbuf_setlen(sb, sb->len + (want - zs.avail_out));
        if (zr == Z_STREAM_END) {
            if (!zs.avail_in && !left) {
                rc = 0;
                break;
            }
            if (inflateReset(&zs) != Z_OK) /* another member follows */
                break;
            continue;
        }
        if (zr == Z_BUF_ERROR && !zs.avail_in && !left)
            break; /* truncated: the member needs input that is not there */
        if (zr != Z_OK && zr != Z_BUF_ERROR)
            break;
    }
    inflateEnd(&zs);
    return rc;
}

int strbuf_read_file_gz(struct strbuf *sb, const char *path)
{
    struct strbuf raw = STRBUF_INIT;
    size_t old = sb->len;
    int r;
    raw.cap = 0;
    if (strbuf_read_file(&raw, path) < 0) {
        int saved = errno;
        strbuf_release(&raw);
        errno = saved;
        return -1;
    }
    if (raw.len < 2 || (unsigned char)raw.buf[0] != 0x1f || (unsigned char)raw.buf[1] != 0x8b) {
        r = strbuf_add_capped(sb, raw.buf, raw.len);
        if (r < 0)
            errno = EFBIG;
        strbuf_release(&raw);
        return r;
    }
    r = gunzip_append(sb, (const unsigned char *)raw.buf, raw.len);
    if (r < 0) {
        int saved = errno;
        strbuf_setlen(sb, old);
        errno = saved;
    }
    strbuf_release(&raw);
    return r;
}

int strbuf_getline(struct strbuf *sb, void *stdio_file)
{
    FILE *fp = stdio_file;
    int c, too_long = 0;
    strbuf_reset(sb);
    c = getc(fp);
    if (c == EOF)
        return 0;
    while (c != EOF && c != '\n') {
        char ch = (char)c;
        if (!too_long && strbuf_add_capped(sb, &ch, 1) < 0)
            too_long = 1;
        c = getc(fp);
    }
    return too_long ? -1 : 1;
}

void strbuf_library_version(struct strbuf *out)
{
    strbuf_addf(out, "zlib %s", zlibVersion());
}

/*
 * Replays fuzz inputs through a libFuzzer target without libFuzzer, so the
 * seed corpora and the crash regressions run in `make test` (and under ASan
 * in `make test-asan`) with gcc. Built as BUILD/tests/unit/test_fuzz_NAME from
 * tests/fuzz/fuzz_NAME.c. Arguments: files or directories; with none, it
 * replays tests/fuzz/NAME/ and tests/fuzz/regressions/NAME/ (relative to the
 * repository root, the directory `make test` runs from). Prints one TAP line
 * per directory; a failing input aborts with its path on stderr.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t len = 0, alloc = 0, got;
    if (!fp) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    do {
        if (len + 65536 > alloc) {
            alloc = (len + 65536) * 2;
            buf = realloc(buf, alloc);
            if (!buf)
                abort();
        }
        got = fread(buf + len, 1, alloc - len, fp);
        len += got;
    } while (got);
    fclose(fp);
    /* an exactly-sized copy, so ASan sees reads past the input */
    {
        uint8_t *exact = malloc(len ? len : 1);
        if (len)
            memcpy(exact, buf, len);
        free(buf);
        fprintf(stderr, "replaying %s\n", path);
        LLVMFuzzerTestOneInput(exact, len);
        free(exact);
    }
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Returns the number of inputs replayed, -1 when path is missing. */
static long replay_path(const char *path)
{
    struct stat st;
    DIR *d;
    struct dirent *e;
    char **names = NULL;
    size_t nr = 0, alloc = 0, i;
    long count = 0;
    if (stat(path, &st) < 0)
        return -1;
    if (!S_ISDIR(st.st_mode))
        return replay_file(path) < 0 ? -1 : 1;
    d = opendir(path);
    if (!d)
        return -1;
    while ((e = readdir(d))) {
        char *p;
        size_t n;
        if (e->d_name[0] == '.')
            continue;
        n = strlen(path) + strlen(e->d_name) + 2;
        p = malloc(n);
        snprintf(p, n, "%s/%s", path, e->d_name);
        if (nr == alloc) {
            alloc = alloc ? alloc * 2 : 16;
            names = realloc(names, alloc * sizeof(*names));
        }
        names[nr++] = p;
    }
    closedir(d);
    if (nr)
        qsort(names, nr, sizeof(*names), cmp_str);
    for (i = 0; i < nr; i++) {
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode) && replay_file(names[i]) == 0)
            count++;
        free(names[i]);
    }
    free(names);
    return count;
}

int main(int argc, char **argv)
{
    const char *base = strrchr(argv[0], '/');
    const char *name;
    char dirs[2][512];
    int i, failed = 0;

    base = base ? base + 1 : argv[0];
    name = strncmp(base, "test_fuzz_", 10) ? base : base + 10;
    if (argc > 1) {
        for (i = 1; i < argc; i++) {
            long n = replay_path(argv[i]);
            printf("%s - fuzz_%s replays %s (%ld inputs)\n", n < 0 ? "not ok" : "ok", name, argv[i],
                   n < 0 ? 0 : n);
            failed |= n < 0;
        }
        return failed;
    }
    snprintf(dirs[0], sizeof(dirs[0]), "tests/fuzz/%s", name);
    snprintf(dirs[1], sizeof(dirs[1]), "tests/fuzz/regressions/%s", name);
    for (i = 0; i < 2; i++) {
        long n = replay_path(dirs[i]);
        if (n < 0 && i == 1)
            continue; /* no regressions for this target */
        printf("%s - fuzz_%s replays %s (%ld inputs)\n", n <= 0 ? "not ok" : "ok", name, dirs[i],
               n < 0 ? 0 : n);
        failed |= n <= 0;
    }
    return failed;
}

/* "Did you mean": the nearest known name to a misspelled one (suggest.h). */
#include "base/suggest.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

#include "base/banned.h"

static int fold(int ch)
{
    return ch == '_' ? '-' : tolower((unsigned char)ch);
}

/* Optimal string alignment distance between a and b (both short). */
static size_t osa_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b), i, j, d;
    size_t *row = xcalloc((n + 1) * (m + 1), sizeof(*row));
#define D(i, j) row[(i) * (m + 1) + (j)]
    for (i = 0; i <= n; i++)
        D(i, 0) = i;
    for (j = 0; j <= m; j++)
        D(0, j) = j;
    for (i = 1; i <= n; i++)
        for (j = 1; j <= m; j++) {
            size_t cost = fold(a[i - 1]) != fold(b[j - 1]);
            size_t best = D(i - 1, j) + 1;
            if (D(i, j - 1) + 1 < best)
                best = D(i, j - 1) + 1;
            if (D(i - 1, j - 1) + cost < best)
                best = D(i - 1, j - 1) + cost;
            if (i > 1 && j > 1 && fold(a[i - 1]) == fold(b[j - 2]) &&
                fold(a[i - 2]) == fold(b[j - 1]) && D(i - 2, j - 2) + 1 < best)
                best = D(i - 2, j - 2) + 1;
            D(i, j) = best;
        }
    d = D(n, m);
#undef D
    free(row);
    return d;
}

const char *suggest_name(const char *s, const char *const *names)
{
    size_t limit = strlen(s) / 4, best_d = (size_t)-1, i;
    const char *best = NULL;
    if (limit < 1)
        limit = 1;
    if (strlen(s) > 256)
        return NULL;
    for (i = 0; names && names[i]; i++) {
        size_t d;
        if (strlen(names[i]) > 256)
            continue;
        d = osa_distance(s, names[i]);
        if (d <= limit && d < best_d) {
            best_d = d;
            best = names[i];
        }
    }
    return best;
}

/*
 * Lexical overlap of a question with its gold chunk(s) (overlap.h): distinct token ids,
 * sorted, intersected. Owns nothing; the tokenizer is borrowed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "prompt/dataset.h"
#include "prompt/overlap.h"
#include "tokenizer/tokenizer.h"

#include "base/banned.h"

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Distinct token ids of text, sorted, into *ids (malloc'd); the count, or -1 on failure. */
static long distinct_ids(struct tokenizer *tk, const char *text, size_t len, uint32_t **ids)
{
    size_t n = 0, i, u = 0;
    *ids = NULL;
    if (tokenizer_encode(tk, text, len, TOKENIZER_SPECIAL_DEFAULT, ids, &n) < 0)
        return -1;
    if (n < 2) /* qsort's array may not be NULL, even for 0 elements */
        return (long)n;
    qsort(*ids, n, sizeof(**ids), cmp_u32);
    for (i = 0; i < n; i++)
        if (!u || (*ids)[u - 1] != (*ids)[i])
            (*ids)[u++] = (*ids)[i];
    return (long)u;
}

double overlap_share(struct tokenizer *tk, const struct question *q)
{
    struct strbuf gold = STRBUF_INIT;
    uint32_t *qi = NULL, *gi = NULL;
    long nqi, ngi, a = 0, b = 0, common = 0;
    double share = -1;
    size_t k;

    if (!q->gold_nr)
        return -1;
    for (k = 0; k < q->gold_nr; k++) {
        strbuf_add(&gold, q->gold[k].text, q->gold[k].text_len);
        strbuf_addch(&gold, '\n');
    }
    nqi = distinct_ids(tk, q->question, strlen(q->question), &qi);
    ngi = distinct_ids(tk, gold.buf, gold.len, &gi);
    if (nqi >= 0 && ngi >= 0) {
        while (a < nqi && b < ngi) {
            if (qi[a] == gi[b])
                common++, a++, b++;
            else if (qi[a] < gi[b])
                a++;
            else
                b++;
        }
        share = nqi ? (double)common / (double)nqi : 0;
    }
    free(qi);
    free(gi);
    strbuf_release(&gold);
    return share;
}

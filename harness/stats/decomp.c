/*
 * The length, distraction and position penalties of a run with the arm axis (decomp.h):
 * trials paired by key, differences summed per question, intervals by the axes' clustered
 * bootstrap (stats_paired_clusters). Pure; owns only its results.
 */
#include "stats/decomp.h"

#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "run/axes.h"
#include "run/trial.h"
#include "stats/stats_axes.h"

#include "base/banned.h"

enum { ARM_HAYSTACK, ARM_PADDING, ARM_ADJACENT, ARM__COUNT };

const char *decomp_name(int which)
{
    static const char *const names[DECOMP__COUNT] = {"length", "distraction", "position"};
    return which >= 0 && which < DECOMP__COUNT ? names[which] : "?";
}

/* One scored trial: its pairing key (everything but the arm), arm, question and outcome. */
struct entry {
    char *key;
    const char *qid; /* borrowed from the trial */
    int repeat;
    long length;
    int arm;  /* ARM_*, or -1 for an oracle control */
    size_t q; /* question index */
    int correct;
};

static int cmp_entry(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : x->arm - y->arm;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

static int arm_of(const char *axes)
{
    static const char *const arms[ARM__COUNT] = {"haystack", "padding", "adjacent"};
    for (int i = 0; i < ARM__COUNT; i++)
        if (axes_has(axes, "arm", arms[i]))
            return i;
    return -2; /* no arm: not part of the decomposition */
}

/* The oracle's pairing key of a question and repeat (also a padding trial's, to find it). */
static char *oracle_key(const char *qid, int repeat)
{
    struct strbuf k = STRBUF_INIT;
    strbuf_addf(&k, "%s\x1f%d", qid ? qid : "", repeat);
    return strbuf_detach(&k, NULL);
}

static const struct entry *find_oracle(const struct entry *o, size_t no, const char *key)
{
    size_t lo = 0, hi = no;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(o[mid].key, key);
        if (!c)
            return &o[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static uint64_t pen_seed(unsigned long long seed, long length, int which)
{
    uint64_t h = fnv64_str(FNV64_INIT_DIPMAP ^ seed, "decomp");
    h = fnv64_step(h, (unsigned char)which);
    return fnv64_step(h, (unsigned char)(length & 0xff)) ^ (uint64_t)length;
}

/* The penalties of one length from the sorted entries (arms) and oracles. */
static void one_length(const struct entry *e, size_t ne, const struct entry *orc, size_t no,
                       size_t nq, const struct stats_options *o, struct decomp_length *out)
{
    long *d[DECOMP__COUNT], *m[DECOMP__COUNT];
    size_t i, j;
    for (int k = 0; k < DECOMP__COUNT; k++) {
        d[k] = xcalloc(nq ? nq : 1, sizeof(*d[k]));
        m[k] = xcalloc(nq ? nq : 1, sizeof(*m[k]));
    }
    for (i = 0; i < ne; i = j) {
        const struct entry *arm[ARM__COUNT] = {NULL, NULL, NULL};
        for (j = i; j < ne && !strcmp(e[i].key, e[j].key); j++)
            if (e[j].length == out->length && !arm[e[j].arm])
                arm[e[j].arm] = &e[j];
        if (arm[ARM_PADDING] && arm[ARM_HAYSTACK]) {
            d[DECOMP_DISTRACTION][arm[ARM_PADDING]->q] +=
                arm[ARM_PADDING]->correct - arm[ARM_HAYSTACK]->correct;
            m[DECOMP_DISTRACTION][arm[ARM_PADDING]->q]++;
        }
        if (arm[ARM_ADJACENT] && arm[ARM_HAYSTACK]) {
            d[DECOMP_POSITION][arm[ARM_ADJACENT]->q] +=
                arm[ARM_ADJACENT]->correct - arm[ARM_HAYSTACK]->correct;
            m[DECOMP_POSITION][arm[ARM_ADJACENT]->q]++;
        }
    }
    for (i = 0; i < ne; i++) {
        const struct entry *p = &e[i], *oracle;
        char *key;
        if (p->arm != ARM_PADDING || p->length != out->length)
            continue;
        key = oracle_key(p->qid, p->repeat);
        oracle = find_oracle(orc, no, key);
        free(key);
        if (!oracle)
            continue;
        d[DECOMP_LENGTH][p->q] += oracle->correct - p->correct;
        m[DECOMP_LENGTH][p->q]++;
    }
    for (int k = 0; k < DECOMP__COUNT; k++) {
        stats_paired_clusters(d[k], m[k], nq, o, pen_seed(o->seed, out->length, k),
                              &out->pen[k].diff, &out->pen[k].n_pairs, &out->pen[k].n_questions);
        free(d[k]);
        free(m[k]);
    }
}

struct decomp_stats *decomp_stats_compute(const struct trial_point *t, size_t n,
                                          const struct stats_options *o)
{
    struct entry *e = xcalloc(n ? n : 1, sizeof(*e)), *orc = xcalloc(n ? n : 1, sizeof(*orc));
    const char **ids = xcalloc(n ? n : 1, sizeof(*ids));
    long *lengths = xcalloc(n ? n : 1, sizeof(*lengths));
    size_t ne = 0, no = 0, nq = 0, nl = 0, i;
    struct strbuf rest = STRBUF_INIT, key = STRBUF_INIT;
    struct decomp_stats *s = NULL;
    int any = 0;

    for (i = 0; i < n; i++)
        any |= arm_of(t[i].axes) >= 0;
    if (!any)
        goto cleanup;
    for (i = 0; i < n; i++)
        if (outcome_is_scored(t[i].outcome))
            ids[nq++] = t[i].question_id ? t[i].question_id : "";
    qsort(ids, nq, sizeof(*ids), cmp_str);
    for (i = 0; i < nq; i++)
        if (!nl || strcmp(ids[nl - 1], ids[i]))
            ids[nl++] = ids[i];
    nq = nl;
    nl = 0;
    for (i = 0; i < n; i++) {
        const char *qid = t[i].question_id ? t[i].question_id : "";
        const char **hit;
        int arm;
        if (!outcome_is_scored(t[i].outcome))
            continue;
        hit = bsearch(&qid, ids, nq, sizeof(*ids), cmp_str);
        if (t[i].length == TRIAL_CONTROL_LENGTH && t[i].depth_bp == DEPTH_BP_ORACLE) {
            orc[no].key = oracle_key(qid, t[i].repeat);
            orc[no].arm = -1;
            orc[no].q = (size_t)(hit - ids);
            orc[no++].correct = t[i].outcome == OUTCOME_CORRECT;
            continue;
        }
        arm = arm_of(t[i].axes);
        if (arm < 0 || trial_is_control(t[i].length, t[i].depth_bp))
            continue;
        strbuf_reset(&rest);
        axes_set(&rest, t[i].axes, "arm", NULL);
        strbuf_reset(&key);
        strbuf_addf(&key, "%s\x1f%d\x1f%ld\x1f%d\x1f%s", qid, t[i].repeat, t[i].length,
                    t[i].depth_bp, rest.buf);
        e[ne].key = strbuf_detach(&key, NULL);
        e[ne].qid = qid;
        e[ne].repeat = t[i].repeat;
        e[ne].length = t[i].length;
        e[ne].arm = arm;
        e[ne].q = (size_t)(hit - ids);
        e[ne++].correct = t[i].outcome == OUTCOME_CORRECT;
        lengths[nl++] = t[i].length;
    }
    qsort(e, ne, sizeof(*e), cmp_entry);
    qsort(orc, no, sizeof(*orc), cmp_entry);
    qsort(lengths, nl, sizeof(*lengths), cmp_long);
    s = xcalloc(1, sizeof(*s));
    s->lengths = xcalloc(nl ? nl : 1, sizeof(*s->lengths));
    for (i = 0; i < nl; i++)
        if (!s->n_lengths || s->lengths[s->n_lengths - 1].length != lengths[i])
            s->lengths[s->n_lengths++].length = lengths[i];
    for (i = 0; i < s->n_lengths; i++)
        one_length(e, ne, orc, no, nq, o, &s->lengths[i]);
cleanup:
    for (i = 0; i < ne; i++)
        free(e[i].key);
    for (i = 0; i < no; i++)
        free(orc[i].key);
    free(e);
    free(orc);
    free(ids);
    free(lengths);
    strbuf_release(&rest);
    strbuf_release(&key);
    return s;
}

void decomp_stats_free(struct decomp_stats *s)
{
    if (!s)
        return;
    free(s->lengths);
    free(s);
}

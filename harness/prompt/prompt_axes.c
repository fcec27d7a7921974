/*
 * The request's axes into the prompt builder's state: the layout, the
 * question slots (--question-at), the needles, spacing and hops axes and
 * ordinal needles, and where the extra needles go once the gold's boundary
 * is known. prompt_build() (prompt.c) calls them, behind prompt-int.h.
 */
#define _GNU_SOURCE
#include "prompt/prompt.h"
#include "prompt/prompt-int.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/num.h"
#include "base/rng.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "prompt/layout.h"
#include "run/axes.h"
#include "run/trial.h"

#include "base/banned.h"

/*
 * Question slots: a line of [user] holding {question} is a slot, a start slot
 * before {documents} and an end slot after it (a line holding both is no
 * slot). end keeps the end slots, start the start slots, both keeps all;
 * a dropped line that was a paragraph of its own takes its blank line along.
 */
int prompt_is_slot_line(const char *l, size_t n, const char *what)
{
    size_t wl = strlen(what), i;
    for (i = 0; i + wl <= n; i++)
        if (!memcmp(l + i, what, wl))
            return 1;
    return 0;
}

int prompt_make_user_variant(const char *user, enum qa_slot want, struct strbuf *out, int *n_start,
                             int *n_end)
{
    const char *p = user;
    int seen_docs = 0, drop_blank = 0, prev_blank = 1;
    *n_start = *n_end = 0;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        int docs = prompt_is_slot_line(p, n, "{documents}");
        int quest = prompt_is_slot_line(p, n, "{question}");
        int blank = n == 0;
        int keep = 1;
        if (quest && !docs) {
            int start = !seen_docs;
            *n_start += start;
            *n_end += !start;
            keep = want == QA_BOTH || (start ? want == QA_START : want == QA_END);
        }
        if (docs)
            seen_docs = 1;
        if (!keep) {
            drop_blank = prev_blank; /* a paragraph of its own: its following blank line goes too */
        } else if (!(blank && drop_blank)) {
            strbuf_add(out, p, n);
            if (nl)
                strbuf_addch(out, '\n');
            drop_blank = 0;
        } else {
            drop_blank = 0;
        }
        if (keep)
            prev_blank = blank;
        if (!nl)
            break;
        p = nl + 1;
    }
    while (out->len && out->buf[out->len - 1] == '\n')
        strbuf_setlen(out, out->len - 1);
    return 0;
}

const char *prompt_question_at_check(const struct prompt_template *t, const char *value)
{
    struct strbuf sb = STRBUF_INIT;
    int ns, ne;
    prompt_make_user_variant(t->user, QA_BOTH, &sb, &ns, &ne);
    strbuf_release(&sb);
    if (strcmp(value, "end") && !ns)
        return "before";
    if (strcmp(value, "start") && !ne)
        return "after";
    return NULL;
}

/* The request's layout axis into b->layout and its per-pair server tokens (layout.h). */
int prompt_select_layout(struct prompt_builder *b, const struct prompt_request *r,
                         struct strbuf *err)
{
    size_t n;
    const char *v = axes_find(r->axes, "layout", &n);
    b->layout = PROMPT_LAYOUT_DOCUMENTS;
    b->turn_overhead = 0;
    b->turn_suffix = "";
    if (!v)
        return 0;
    b->layout = prompt_layout_parse(v, n);
    if (b->layout < 0) {
        b->layout = PROMPT_LAYOUT_DOCUMENTS;
        strbuf_addf(err, "layout '%.*s' is not one of" PROMPT_LAYOUT_LIST, (int)n, v);
        return -1;
    }
    if (b->layout != PROMPT_LAYOUT_DOCUMENTS && !r->chat) {
        strbuf_addf(err, "the %s layout needs chat requests (not --completions)",
                    prompt_layout_name(b->layout));
        b->layout = PROMPT_LAYOUT_DOCUMENTS;
        return -1;
    }
    b->turn_overhead = r->turn_cost ? r->turn_cost[b->layout].per_pair : 0;
    b->turn_suffix = r->turn_cost ? r->turn_cost[b->layout].suffix : "";
    return 0;
}

/* Point b->user at the [user] text the request's question-at axis asks for. */
int prompt_select_user(struct prompt_builder *b, const struct prompt_request *r, struct strbuf *err)
{
    static const char *const names[QA_BOTH + 1] = {NULL, "end", "start", "both"};
    size_t n;
    const char *v = axes_find(r->axes, "question-at", &n);
    int want = QA__COUNT, ns, ne;
    struct strbuf sb = STRBUF_INIT;
    if (!v) {
        b->user = b->tpl->user;
        return 0;
    }
    /* QA_NONE is the builder's own variant, not a value a request may name */
    for (want = QA_END; want <= QA_BOTH; want++)
        if (strlen(names[want]) == n && !memcmp(v, names[want], n))
            break;
    if (want > QA_BOTH) {
        strbuf_addf(err, "question-at '%.*s' is not end, start or both", (int)n, v);
        return -1;
    }
    if (b->user_variant[want]) {
        b->user = b->user_variant[want];
        return 0;
    }
    prompt_make_user_variant(b->tpl->user, (enum qa_slot)want, &sb, &ns, &ne);
    if ((want != QA_END && !ns) || (want != QA_START && !ne)) {
        strbuf_addf(err,
                    "template %s: --question-at %s needs a line with {question} %s {documents} "
                    "in [user] (the template's question slots; prompts/qa-both.txt has both)",
                    b->tpl->path ? b->tpl->path : "(template)", names[want],
                    want != QA_END && !ns ? "before" : "after");
        strbuf_release(&sb);
        return -1;
    }
    b->user_variant[want] = strbuf_detach(&sb, NULL);
    b->user = b->user_variant[want];
    return 0;
}

size_t prompt_needle_answers(const struct question *q, const char *axes, const char ***out)
{
    size_t n, ns, i, k;
    const char *v = axes_find(axes, "needles", &n), *sp = axes_find(axes, "spacing", &ns);
    char buf[32];
    unsigned long want;
    *out = NULL;
    if (!v && !sp)
        return 0;
    k = q->gold_nr;
    if (v) {
        snprintf(buf, sizeof(buf), "%.*s", (int)(n < 31 ? n : 31), v);
        if (parse_ulong(buf, &want) < 0 || want < 1 || want > q->gold_nr)
            return 0;
        k = (size_t)want;
    }
    for (i = 0; i < k; i++)
        if (!q->gold[i].value || !*q->gold[i].value)
            return 0;
    *out = xcalloc(k, sizeof(**out));
    for (i = 0; i < k; i++)
        (*out)[i] = q->gold[i].value;
    return k;
}

size_t prompt_ordinal_target(const struct question *q)
{
    size_t i;
    for (i = 0; q->answers.nr && i < q->gold_nr; i++)
        if (q->gold[i].value && !strcmp(q->gold[i].value, q->answers.v[0]))
            return i + 1;
    return 0;
}

/*
 * The ordinal axis into b->ordinal and b->target (b->needles = N): N 2..64 gold chunks, the
 * question's occurrence among them. Not with the other needle axes.
 */
static int select_ordinal(struct prompt_builder *b, const struct prompt_request *r,
                          struct strbuf *err)
{
    size_t n, k;
    const char *v = axes_find(r->axes, "ordinal", &n);
    char buf[32];
    unsigned long want;
    b->ordinal = b->target = 0;
    if (!v)
        return 0;
    snprintf(buf, sizeof(buf), "%.*s", (int)(n < 31 ? n : 31), v);
    if (parse_ulong(buf, &want) < 0 || want < 2 || want > PROMPT_MAX_NEEDLES) {
        strbuf_addf(err, "ordinal '%s' is not a count 2..%d", buf, PROMPT_MAX_NEEDLES);
        return -1;
    }
    if (b->needles) {
        strbuf_addstr(err, "ordinal places its own needles: not with needles, spacing or hops");
        return -1;
    }
    if (trial_is_control(r->target_len, r->depth_bp))
        return 0;
    k = prompt_ordinal_target(r->q);
    if (want > r->q->gold_nr || !k || k > want) {
        strbuf_addf(err,
                    "question %s: --ordinal %lu needs %lu gold chunks with the answer the "
                    "value of one of them (it has %zu, the answer %s)",
                    r->q->id, want, want, r->q->gold_nr,
                    !k         ? "in none"
                    : k > want ? "in a later one"
                               : "in one");
        return -1;
    }
    b->ordinal = b->needles = (size_t)want;
    b->target = k - 1;
    return 0;
}

static int cmp_fraction(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/*
 * Ordinal needles: the target at boundary k; the b->target needles before it at seeded
 * boundaries in 0..k, the others after it in k..nr, each group in gold order, the same
 * seeded fractions at every depth of a (question, length, repeat, N).
 */
void prompt_place_ordinal(struct prompt_builder *b, const struct prompt_request *r, size_t nr,
                          size_t k)
{
    double u[PROMPT_MAX_NEEDLES];
    size_t j, m;
    uint64_t st = prompt_mix_key(r->seed, r->q->id, r->target_len, r->repeat, "ordinal");
    for (j = 0; j < b->ordinal; j++)
        u[j] = rng_unit(rng_splitmix64(&st));
    /* each side's fractions ascending: the needles keep their gold order */
    qsort(u, b->target, sizeof(*u), cmp_fraction);
    qsort(u + b->target + 1, b->ordinal - b->target - 1, sizeof(*u), cmp_fraction);
    for (j = 0; j < b->ordinal; j++) {
        if (j < b->target)
            m = (size_t)(u[j] * (double)(k + 1));
        else if (j == b->target)
            m = k;
        else
            m = k + (size_t)(u[j] * (double)(nr - k + 1));
        b->pos[j] = m > nr ? nr : m;
    }
}

/*
 * The needles and spacing axes into b->needles (0 without them) and
 * *spacing (a fraction of the distractor tokens), every needle at boundary
 * 0 until prompt_build() places them.
 */
int prompt_select_needles(struct prompt_builder *b, const struct prompt_request *r, double *spacing,
                          struct strbuf *err)
{
    size_t n, nl = 0;
    const char *v = axes_find(r->axes, "needles", &n), *sp = axes_find(r->axes, "spacing", &nl);
    char buf[32];
    *spacing = 0;
    b->needles = 0;
    if (sp) {
        double pct;
        snprintf(buf, sizeof(buf), "%.*s", (int)(nl < 31 ? nl : 31), sp);
        if (parse_double_range(buf, 0, 100, &pct) < 0) {
            strbuf_addf(err, "spacing '%s' is not a percentage 0..100", buf);
            return -1;
        }
        *spacing = pct / 100.0;
        b->needles = r->q->gold_nr;
    }
    if (v) {
        unsigned long k;
        snprintf(buf, sizeof(buf), "%.*s", (int)(n < 31 ? n : 31), v);
        if (parse_ulong(buf, &k) < 0 || k < 1 || k > PROMPT_MAX_NEEDLES) {
            strbuf_addf(err, "needles '%s' is not a count 1..%d", buf, PROMPT_MAX_NEEDLES);
            return -1;
        }
        if (k > r->q->gold_nr && !trial_is_control(r->target_len, r->depth_bp)) {
            strbuf_addf(err, "question %s has %zu gold chunk%s; --needles %lu needs as many",
                        r->q->id, r->q->gold_nr, r->q->gold_nr == 1 ? "" : "s", k);
            return -1;
        }
        b->needles = (size_t)k;
    }
    b->depth_b = -1;
    v = axes_find(r->axes, "hops", &n);
    if (v) {
        double pct;
        if (n != 1 || *v != '2') {
            strbuf_addf(err, "hops '%.*s' is not 2", (int)n, v);
            return -1;
        }
        sp = axes_find(r->axes, "depth-b", &nl);
        snprintf(buf, sizeof(buf), "%.*s", sp ? (int)(nl < 31 ? nl : 31) : 0, sp ? sp : "");
        if (!sp || parse_double_range(buf, 0, 100, &pct) < 0) {
            strbuf_addf(err, "hops 2 needs a depth-b axis of a percentage 0..100 (got '%s')", buf);
            return -1;
        }
        if (r->q->gold_nr < 2 && !trial_is_control(r->target_len, r->depth_bp)) {
            strbuf_addf(err,
                        "question %s has %zu gold chunk; --hops 2 needs two (needle A, then "
                        "needle B)",
                        r->q->id, r->q->gold_nr);
            return -1;
        }
        b->needles = 2;
        b->depth_b = pct / 100.0;
    }
    if (b->needles > PROMPT_MAX_NEEDLES)
        b->needles = PROMPT_MAX_NEEDLES;
    memset(b->pos, 0, sizeof(b->pos));
    return select_ordinal(b, r, err);
}

/*
 * Needle j >= 1 at the boundary nearest d + j x spacing of the distractor
 * tokens (clamped to the end), never before needle j - 1; needle 0 at k.
 */
void prompt_place_needles(struct prompt_builder *b, const struct seq *s, const size_t *order,
                          size_t k, double d, double spacing, long total)
{
    size_t j, i;
    b->pos[0] = k;
    for (j = 1; j < b->needles; j++) {
        double want = d + (double)j * spacing, best = 2.0;
        long cum = 0;
        size_t at = b->pos[j - 1], from = b->pos[j - 1];
        if (b->depth_b >= 0) /* two hops: needle B at its own depth, before A or after */
            want = b->depth_b, from = 0, at = 0;
        if (want > 1)
            want = 1;
        for (i = 0; i <= s->nr; i++) {
            double dist = total > 0 ? fabs((double)cum / (double)total - want) : 0;
            if (i >= from && dist < best - 1e-12) {
                best = dist;
                at = i;
            }
            if (i < s->nr)
                cum += s->it[order[i]].cost;
        }
        b->pos[j] = at;
    }
}

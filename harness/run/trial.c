/*
 * Trial outcome names and the trial_result life cycle, shared by the runner,
 * the store, statistics and reports.
 */
#include "run/trial.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "run/axes.h"
#include "base/xalloc.h"

#include "base/banned.h"

static const char *const names[OUTCOME__COUNT] = {
    "pending", "correct", "wrong", "overflow", "truncated", "empty", "starved", "filtered", "error",
};

const char *outcome_name(enum trial_outcome o)
{
    return (unsigned)o < OUTCOME__COUNT ? names[o] : "unknown";
}

int outcome_parse(const char *name, enum trial_outcome *out)
{
    int i;
    for (i = 0; i < OUTCOME__COUNT; i++)
        if (!strcmp(names[i], name)) {
            *out = (enum trial_outcome)i;
            return 0;
        }
    return -1;
}

int outcome_is_scored(enum trial_outcome o)
{
    return o == OUTCOME_CORRECT || o == OUTCOME_WRONG;
}

/* The key order: question id (NULL as ""), length, depth, repeat, named axes. */
static int key_cmp(const struct trial_key *x, const struct trial_key *y)
{
    int c = strcmp(x->question_id ? x->question_id : "", y->question_id ? y->question_id : "");
    if (c)
        return c;
    if (x->length != y->length)
        return x->length < y->length ? -1 : 1;
    if (x->depth_bp != y->depth_bp)
        return x->depth_bp < y->depth_bp ? -1 : 1;
    if (x->repeat != y->repeat)
        return x->repeat < y->repeat ? -1 : 1;
    /* named axes: a pair is one key, so the two trials have equal axis values */
    return strcmp(axes_or_empty(x->axes), axes_or_empty(y->axes));
}

#define KEY_OF(t)                                                                                  \
    {                                                                                              \
        (t)->question_id, (t)->length, (t)->depth_bp, (t)->repeat, (t)->axes                       \
    }

int trial_key_cmp(const struct trial_result *x, const struct trial_result *y)
{
    struct trial_key a = KEY_OF(x), b = KEY_OF(y);
    return key_cmp(&a, &b);
}

int trial_point_cmp(const struct trial_point *x, const struct trial_point *y)
{
    struct trial_key a = KEY_OF(x), b = KEY_OF(y);
    return key_cmp(&a, &b);
}

int trial_point_cmp_ptr(const void *a, const void *b)
{
    return trial_point_cmp(*(const struct trial_point *const *)a,
                           *(const struct trial_point *const *)b);
}

/* A long token figure as the point's int (counts past INT_MAX are not real; kept at INT_MAX). */
static int point_int(long v)
{
    return v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : (int)v;
}

void trial_point_of(struct trial_point *p, const struct trial_result *t)
{
    p->question_id = t->question_id;
    p->axes = t->axes;
    p->length = t->length;
    p->depth_bp = t->depth_bp;
    p->repeat = t->repeat;
    p->outcome = t->outcome;
    p->cut = t->cut != 0;
    p->reused = t->reused_from != NULL;
    p->realized_depth = t->facts.realized_depth;
    p->realized_length = point_int(t->facts.realized_length);
    p->usage_prompt_tokens = point_int(t->usage_prompt_tokens);
    p->gold_offset = point_int(t->facts.gold_offset);
    p->completion_tokens = point_int(t->completion_tokens);
    p->reasoning_tokens = point_int(t->reasoning_tokens);
    p->cache_n = point_int(t->cache_n);
    p->prompt_n = point_int(t->prompt_n);
    p->cached_tokens = point_int(t->cached_tokens);
}

struct trial_point *trial_points_of(const struct trial_result *t, size_t n)
{
    struct trial_point *v = xcalloc(n + 1, sizeof(*v));
    size_t i;
    for (i = 0; i < n; i++)
        trial_point_of(&v[i], &t[i]);
    return v;
}

void trial_point_set_add(struct trial_point_set *s, const struct trial_result *t)
{
    struct trial_point *p;
    ALLOC_GROW(s->v, s->nr + 1, s->alloc);
    p = &s->v[s->nr++];
    trial_point_of(p, t);
    p->question_id = strpool_intern(&s->str, t->question_id);
    p->axes = strpool_intern(&s->str, t->axes);
}

void trial_point_set_release(struct trial_point_set *s)
{
    strpool_clear(&s->str);
    free(s->v);
    memset(s, 0, sizeof(*s));
}

int trial_key_cmp_ptr(const void *a, const void *b)
{
    return trial_key_cmp(*(const struct trial_result *const *)a,
                         *(const struct trial_result *const *)b);
}

long trial_reasoning_spent(long reasoning_tokens, long completion_tokens)
{
    if (reasoning_tokens >= 0)
        return reasoning_tokens;
    return completion_tokens > 0 ? completion_tokens : 0;
}

void trial_result_init(struct trial_result *t)
{
    memset(t, 0, sizeof(*t));
    t->usage_prompt_tokens = -1;
    t->completion_tokens = -1;
    t->reasoning_tokens = -1;
    t->cache_n = -1;
    t->prompt_n = -1;
    t->prompt_ms = -1;
    t->cached_tokens = -1;
}

void trial_result_release(struct trial_result *t)
{
    free(t->question_id);
    free(t->axes);
    free(t->finish_reason);
    free(t->answer);
    free(t->reasoning);
    free(t->error);
    free(t->reused_from);
    trial_result_init(t);
}

static char *dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

void trial_result_copy(struct trial_result *dst, const struct trial_result *src)
{
    *dst = *src;
    dst->question_id = dup_or_null(src->question_id);
    dst->axes = dup_or_null(src->axes);
    dst->finish_reason = dup_or_null(src->finish_reason);
    dst->answer = dup_or_null(src->answer);
    dst->reasoning = dup_or_null(src->reasoning);
    dst->error = dup_or_null(src->error);
    dst->reused_from = dup_or_null(src->reused_from);
}

int trial_is_absent(const char *axes)
{
    return axes_has(axes, "absent", "yes");
}

int trial_on_curve(long length, int depth_bp, const char *axes)
{
    return !trial_is_control(length, depth_bp) && !trial_is_absent(axes);
}

int trial_is_control(long length, int depth_bp)
{
    return length == TRIAL_CONTROL_LENGTH &&
           (depth_bp == DEPTH_BP_CLOSED_BOOK || depth_bp == DEPTH_BP_ORACLE);
}

const char *trial_control_name(int depth_bp)
{
    return depth_bp == DEPTH_BP_CLOSED_BOOK ? "closed-book"
           : depth_bp == DEPTH_BP_ORACLE    ? "oracle"
                                            : NULL;
}

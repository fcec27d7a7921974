/*
 * Trial outcome names and the trial_result life cycle, shared by the runner,
 * the store, statistics and reports.
 */
#include "run/trial.h"

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

int trial_key_cmp(const struct trial_result *x, const struct trial_result *y)
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

int trial_key_cmp_ptr(const void *a, const void *b)
{
    return trial_key_cmp(*(const struct trial_result *const *)a,
                         *(const struct trial_result *const *)b);
}

long trial_reasoning_spent(const struct trial_result *t)
{
    if (t->reasoning_tokens >= 0)
        return t->reasoning_tokens;
    return t->completion_tokens > 0 ? t->completion_tokens : 0;
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

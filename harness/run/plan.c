/*
 * The trial matrix: parses --lengths/--depths/--shard, enumerates (question,
 * length, depth, repeat) trials in a fixed order with deterministic sharding,
 * and formats the dry-run summary (trials, prompt tokens, cost).
 */
#include "run/plan.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/axes.h"
#include "prompt/dataset.h"
#include "base/num.h"
#include "base/rng.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "run/trial.h"
#include "base/xalloc.h"

#include "base/hash.h"

#include "base/banned.h"

#define MAX_LENGTH (16L * 1024 * 1024)

int plan_lengths_relative(const char *s)
{
    return s && strchr(s, '%') != NULL;
}

/* A list parser's failure: its words cleared, the list so far freed and emptied; NULL. */
static void *list_fail(struct strvec *parts, void *list, size_t *nr)
{
    strvec_clear(parts);
    free(list);
    *nr = 0;
    return NULL;
}

int plan_parse_lengths_ctx(const char *s, long context, long **out, size_t *nr, struct strbuf *err)
{
    struct strvec parts = STRVEC_INIT;
    size_t i, j;
    *out = NULL;
    *nr = 0;
    strvec_split(&parts, s, ',');
    *out = xmalloc(st_mult(parts.nr ? parts.nr : 1, sizeof(**out)));
    for (i = 0; i < parts.nr; i++) {
        long v;
        size_t pl = strlen(parts.v[i]);
        if (pl && parts.v[i][pl - 1] == '%') {
            /* a fraction of the served context, stored as tokens */
            double pct;
            parts.v[i][pl - 1] = '\0';
            if (parse_double_range(parts.v[i], 0, 100, &pct) < 0 || !(pct > 0)) {
                strbuf_addf(err,
                            "--lengths: '%s%%' is not a percentage of the context (above 0, "
                            "at most 100)",
                            parts.v[i]);
                goto fail;
            }
            if (context <= 0) {
                strbuf_addf(err,
                            "--lengths: %s%% needs the server's context size, and the server "
                            "reports none (vLLM max_model_len, llama.cpp n_ctx): give tokens",
                            parts.v[i]);
                goto fail;
            }
            v = (long)floor(pct / 100.0 * (double)context);
            if (v < 1) {
                strbuf_addf(err, "--lengths: %s%% of a %ld-token context is no token", parts.v[i],
                            context);
                goto fail;
            }
        } else if (parse_token_count(parts.v[i], MAX_LENGTH, &v) < 0) {
            strbuf_addf(err,
                        "--lengths: '%s' is not a token count (e.g. 8k, 32k, 4096) or a "
                        "percentage of the server's context (e.g. 50%%)",
                        parts.v[i]);
            goto fail;
        }
        for (j = 0; j < *nr; j++)
            if ((*out)[j] == v) {
                strbuf_addf(err, "--lengths: %ld given twice", v);
                goto fail;
            }
        (*out)[(*nr)++] = v;
    }
    strvec_clear(&parts);
    return 0;
fail:
    *out = list_fail(&parts, *out, nr);
    return -1;
}

int plan_parse_lengths(const char *s, long **out, size_t *nr, struct strbuf *err)
{
    return plan_parse_lengths_ctx(s, -1, out, nr, err);
}

/* Percent text to basis points; -1 when not a number in 0..100. */
static int pct_to_bp(const char *s, int *bp)
{
    double v;
    if (parse_double_range(s, 0, 100, &v) < 0)
        return -1;
    *bp = (int)lround(v * 100.0);
    return 0;
}

int plan_parse_depths(const char *s, int **out, size_t *nr, struct strbuf *err)
{
    struct strvec parts = STRVEC_INIT;
    size_t i, j, alloc = 0;
    *out = NULL;
    *nr = 0;
    if (strchr(s, ':')) {
        int a, b, step, v;
        strvec_split(&parts, s, ':');
        if (parts.nr != 3) {
            strbuf_addf(err, "--depths: '%s' must be START:STOP:STEP (percent), e.g. 0:100:10", s);
            goto fail;
        }
        if (pct_to_bp(parts.v[0], &a) < 0 || pct_to_bp(parts.v[1], &b) < 0) {
            strbuf_addf(err, "--depths: '%s': start and stop must be percentages in 0..100", s);
            goto fail;
        }
        if (pct_to_bp(parts.v[2], &step) < 0 || step <= 0) {
            strbuf_addf(err, "--depths: '%s': step must be a percentage above 0", s);
            goto fail;
        }
        if (b < a) {
            strbuf_addf(err, "--depths: '%s': stop is below start", s);
            goto fail;
        }
        if ((b - a) % step) {
            /* 0:100:33 would silently end at 99%: the stop is part of what the user asked for */
            int fit = step;
            while ((b - a) % fit)
                fit--; /* the largest step below the given one that lands on the stop */
            strbuf_addf(err,
                        "--depths: '%s': steps of %s from %s end at %g%%, not at the stop %s; "
                        "use a step that divides the span (e.g. %s:%s:%g) or list the depths",
                        s, parts.v[2], parts.v[0], (a + (b - a) / step * step) / 100.0, parts.v[1],
                        parts.v[0], parts.v[1], fit / 100.0);
            goto fail;
        }
        for (v = a; v <= b; v += step) {
            ALLOC_GROW(*out, *nr + 1, alloc);
            (*out)[(*nr)++] = v;
        }
    } else {
        strvec_split(&parts, s, ',');
        for (i = 0; i < parts.nr; i++) {
            int v;
            if (pct_to_bp(parts.v[i], &v) < 0) {
                strbuf_addf(err, "--depths: '%s' is not a percentage in 0..100", parts.v[i]);
                goto fail;
            }
            for (j = 0; j < *nr; j++)
                if ((*out)[j] == v) {
                    strbuf_addf(err, "--depths: %s given twice", parts.v[i]);
                    goto fail;
                }
            ALLOC_GROW(*out, *nr + 1, alloc);
            (*out)[(*nr)++] = v;
        }
    }
    if (!*nr) {
        strbuf_addf(err, "--depths: no depths in '%s'", s);
        goto fail;
    }
    strvec_clear(&parts);
    return 0;
fail:
    *out = list_fail(&parts, *out, nr);
    return -1;
}

int plan_parse_shard(const char *s, unsigned *index, unsigned *count, struct strbuf *err)
{
    const char *slash = strchr(s, '/');
    struct strbuf a = STRBUF_INIT;
    long i, n;
    int rc = -1;
    if (!slash) {
        strbuf_addf(err,
                    "--shard '%s': expected I/N (shard I of N, counting from 1, e.g. 1/4) "
                    "or auto",
                    s);
        return -1;
    }
    strbuf_add(&a, s, (size_t)(slash - s));
    if (parse_long_range(slash + 1, 1, PLAN_MAX_SHARDS, &n) < 0 ||
        parse_long_range(a.buf, 1, n, &i) < 0)
        strbuf_addf(err, "--shard '%s': expected I/N with 1 <= I <= N <= %ld", s,
                    (long)PLAN_MAX_SHARDS);
    else {
        *index = (unsigned)(i - 1);
        *count = (unsigned)n;
        rc = 0;
    }
    strbuf_release(&a);
    return rc;
}

/* The combinations of axis values into p->combos (first axis outermost). */
static int build_combos(struct plan *p, const struct plan_spec *spec, struct strbuf *err)
{
    size_t total = 1, i, j, k;
    for (i = 0; i < spec->axes_nr; i++) {
        const struct plan_axis *a = &spec->axes[i];
        if (!a->name || !axes_name_valid(a->name, strlen(a->name))) {
            strbuf_addf(err, "'%s' is not an axis name", a->name ? a->name : "");
            return -1;
        }
        if (!a->values_nr) {
            strbuf_addf(err, "--%s: no values", a->name);
            return -1;
        }
        for (j = 0; j < i; j++)
            if (!strcmp(spec->axes[j].name, a->name)) {
                strbuf_addf(err, "axis %s given twice", a->name);
                return -1;
            }
        for (j = 0; j < a->values_nr; j++) {
            if (!axes_value_valid(a->values[j], strlen(a->values[j]))) {
                strbuf_addf(err, "--%s: '%s' is not a value (letters, digits, _ . %% + -)", a->name,
                            a->values[j]);
                return -1;
            }
            for (k = 0; k < j; k++)
                if (!strcmp(a->values[k], a->values[j])) {
                    strbuf_addf(err, "--%s: %s given twice", a->name, a->values[j]);
                    return -1;
                }
        }
        total *= a->values_nr;
    }
    p->combos = xcalloc(total, sizeof(*p->combos));
    p->combos_nr = total;
    for (k = 0; k < total; k++) {
        struct strbuf c = STRBUF_INIT, next = STRBUF_INIT;
        size_t rest = k, stride = total;
        for (i = 0; i < spec->axes_nr; i++) {
            const struct plan_axis *a = &spec->axes[i];
            stride /= a->values_nr;
            strbuf_reset(&next);
            axes_set(&next, c.buf, a->name, a->values[rest / stride]);
            rest %= stride;
            strbuf_reset(&c);
            strbuf_addstr(&c, next.buf);
        }
        strbuf_release(&next);
        p->combos[k] = strbuf_detach(&c, NULL);
    }
    return 0;
}

/* 1 when the depth trial (question id, length, repeat, depth, axes) has an absent twin. */
static int absent_drawn(const struct plan_spec *spec, const char *qid, long length, int repeat,
                        int depth_bp, const char *axes)
{
    uint64_t h = fnv64_str(FNV64_INIT_DIPMAP ^ (uint64_t)spec->seed, "absent");
    h = fnv64_str(fnv64_step(h, 0), qid);
    h = fnv64_step(fnv64_step(fnv64_step(h, (uint64_t)length), (uint64_t)repeat),
                   (uint64_t)depth_bp);
    h = fnv64_str(fnv64_step(h, 0), axes);
    return rng_unit(rng_splitmix64(&h)) < spec->absent;
}

static void add_trial(struct plan *p, size_t *alloc, size_t qi, long length, int depth_bp,
                      int repeat, const char *axes)
{
    ALLOC_GROW(p->t, p->nr + 1, *alloc);
    p->t[p->nr].question = qi;
    p->t[p->nr].length = length;
    p->t[p->nr].depth_bp = depth_bp;
    p->t[p->nr].repeat = repeat;
    p->t[p->nr].axes = axes;
    p->nr++;
}

/* The absent twins' axes (each combination with absent=yes) into p->absent_combos. */
static void build_absent_combos(struct plan *p)
{
    p->absent_combos = xcalloc(p->combos_nr, sizeof(*p->absent_combos));
    for (size_t k = 0; k < p->combos_nr; k++) {
        struct strbuf c = STRBUF_INIT;
        axes_set(&c, p->combos[k], PLAN_ABSENT_AXIS, "yes");
        p->absent_combos[k] = strbuf_detach(&c, NULL);
    }
}

int plan_build(struct plan *p, const struct golden_set *gs, const struct plan_spec *spec,
               struct strbuf *err)
{
    size_t li, qi, ci, di, alloc = 0, group = 0;
    unsigned count = spec->shard_count ? spec->shard_count : 1;
    int r;

    memset(p, 0, sizeof(*p));
    if (!spec->lengths_nr || !spec->depths_nr || spec->repeats < 1) {
        strbuf_addstr(err, "the trial matrix needs at least one length, one depth and one repeat");
        return -1;
    }
    if (spec->shard_index >= count) {
        strbuf_addf(err, "shard %u/%u: index must be below the shard count", spec->shard_index,
                    count);
        return -1;
    }
    if (build_combos(p, spec, err)) {
        plan_release(p);
        return -1;
    }
    if (spec->absent > 0)
        build_absent_combos(p);
    for (li = 0; li < spec->lengths_nr; li++)
        for (r = 0; r < spec->repeats; r++)
            for (qi = 0; qi < gs->nr; qi++)
                for (ci = 0; ci < p->combos_nr; ci++, group++) {
                    int mine = group % count == spec->shard_index;
                    p->total_nr += spec->depths_nr;
                    for (di = 0; mine && di < spec->depths_nr; di++)
                        add_trial(p, &alloc, qi, spec->lengths[li], spec->depths_bp[di], r,
                                  p->combos[ci]);
                    /* the absent twins: the same group, after its depths */
                    for (di = 0; spec->absent > 0 && di < spec->depths_nr; di++)
                        if (absent_drawn(spec, gs->q[qi].id, spec->lengths[li], r,
                                         spec->depths_bp[di], p->combos[ci])) {
                            p->total_nr++;
                            if (mine)
                                add_trial(p, &alloc, qi, spec->lengths[li], spec->depths_bp[di], r,
                                          p->absent_combos[ci]);
                        }
                }
    if (spec->controls)
        for (r = 0; r < spec->repeats; r++)
            for (qi = 0; qi < gs->nr; qi++, group++) {
                static const int kinds[2] = {DEPTH_BP_CLOSED_BOOK, DEPTH_BP_ORACLE};
                int k;
                for (k = 0; k < 2; k++) {
                    if (!(spec->controls & (1u << k)))
                        continue;
                    p->total_nr++;
                    p->controls_nr++;
                    if (group % count != spec->shard_index)
                        continue;
                    ALLOC_GROW(p->t, p->nr + 1, alloc);
                    p->t[p->nr].question = qi;
                    p->t[p->nr].length = TRIAL_CONTROL_LENGTH;
                    p->t[p->nr].depth_bp = kinds[k];
                    p->t[p->nr].repeat = r;
                    p->t[p->nr].axes = "";
                    p->nr++;
                }
            }
    return 0;
}

void plan_first_trial(const struct plan *p, const struct plan_spec *spec, struct plan_trial *out)
{
    /* plan_build()'s order: length, repeat, question, axes, depth; group 0 is shard 1's */
    out->question = 0;
    out->length = spec->lengths[0];
    out->depth_bp = spec->depths_bp[0];
    out->repeat = 0;
    out->axes = p->combos_nr ? p->combos[0] : "";
}

int plan_parse_controls(const char *s, unsigned *out, struct strbuf *err)
{
    struct strvec v = STRVEC_INIT;
    size_t i;
    int rc = 0;
    *out = 0;
    strvec_split(&v, s, ',');
    for (i = 0; i < v.nr && !rc; i++) {
        if (!strcmp(v.v[i], "closed-book"))
            *out |= PLAN_CONTROL_CLOSED_BOOK;
        else if (!strcmp(v.v[i], "oracle"))
            *out |= PLAN_CONTROL_ORACLE;
        else {
            strbuf_addf(err, "--controls: unknown control '%s' (known: closed-book, oracle)",
                        v.v[i]);
            rc = -1;
        }
    }
    if (!rc && !*out) {
        strbuf_addstr(err, "--controls: give closed-book, oracle or both");
        rc = -1;
    }
    strvec_clear(&v);
    return rc;
}

size_t plan_group_end(const struct plan *p, size_t i)
{
    size_t e = i + 1;
    while (e < p->nr && p->t[e].question == p->t[i].question && p->t[e].length == p->t[i].length &&
           p->t[e].repeat == p->t[i].repeat &&
           !strcmp(p->t[e].axes ? p->t[e].axes : "", p->t[i].axes ? p->t[i].axes : ""))
        e++;
    return e;
}

void plan_cache_estimate(const struct plan *p, double *prompt_tokens, double *cached_tokens)
{
    size_t i = 0, j;
    *prompt_tokens = *cached_tokens = 0;
    while (i < p->nr) {
        size_t end = plan_group_end(p, i), deepest = i;
        for (j = i; j < end; j++) {
            *prompt_tokens += (double)p->t[j].length;
            if (p->t[j].depth_bp > p->t[deepest].depth_bp)
                deepest = j;
        }
        for (j = i; j < end; j++)
            if (j != deepest && p->t[j].depth_bp > 0 &&
                !trial_is_control(p->t[j].length, p->t[j].depth_bp))
                *cached_tokens += (double)p->t[j].depth_bp / DEPTH_BP_MAX * (double)p->t[j].length;
        i = end;
    }
}

struct order_key {
    uint64_t h;
    size_t i;
};

static int order_key_cmp(const void *a, const void *b)
{
    const struct order_key *x = a, *y = b;
    if (x->h != y->h)
        return x->h < y->h ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

size_t *plan_question_order(const struct golden_set *gs, unsigned long seed)
{
    struct order_key *k;
    size_t *order;
    if (!gs->nr)
        return NULL;
    k = xcalloc(gs->nr, sizeof(*k));
    for (size_t i = 0; i < gs->nr; i++) {
        uint64_t st = (uint64_t)seed ^ 0x9a7e0dd3c1ULL, h = rng_splitmix64(&st);
        for (const unsigned char *c = (const unsigned char *)gs->q[i].id; *c; c++) {
            st = h ^ *c;
            h = rng_splitmix64(&st);
        }
        k[i].h = h;
        k[i].i = i;
    }
    qsort(k, gs->nr, sizeof(*k), order_key_cmp);
    order = xcalloc(gs->nr, sizeof(*order));
    for (size_t i = 0; i < gs->nr; i++)
        order[i] = k[i].i;
    free(k);
    return order;
}

void plan_keep_questions(struct plan *p, const struct golden_set *gs, size_t n, unsigned long seed)
{
    size_t *order, kept = 0;
    unsigned char *keep;
    if (n >= gs->nr)
        return;
    order = plan_question_order(gs, seed);
    keep = xcalloc(gs->nr, 1);
    for (size_t i = 0; i < n; i++)
        keep[order[i]] = 1;
    for (size_t i = 0; i < p->nr; i++)
        if (keep[p->t[i].question])
            p->t[kept++] = p->t[i];
    p->nr = kept;
    free(keep);
    free(order);
}

void plan_release(struct plan *p)
{
    size_t i;
    for (i = 0; i < p->combos_nr; i++) {
        free(p->combos[i]);
        if (p->absent_combos)
            free(p->absent_combos[i]);
    }
    free(p->combos);
    free(p->absent_combos);
    free(p->t);
    memset(p, 0, sizeof(*p));
}

static void add_thousands(struct strbuf *out, double v)
{
    char tmp[64];
    int n = snprintf(tmp, sizeof(tmp), "%.0f", v), i;
    for (i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0 && tmp[i - 1] != '-')
            strbuf_addch(out, ',');
        strbuf_addch(out, tmp[i]);
    }
}

/* The control trials among the plan's kept trials. */
static size_t plan_controls_kept(const struct plan *p)
{
    size_t i, nc = 0;
    for (i = 0; i < p->nr; i++)
        nc += trial_is_control(p->t[i].length, p->t[i].depth_bp);
    return nc;
}

void plan_summary(const struct plan *p, const struct plan_spec *spec, const struct plan_cost *cost,
                  struct strbuf *out, double *usd)
{
    size_t li, i, per_question, all_q, kept_q;
    double total_in = 0, total_out = 0;
    unsigned count = spec->shard_count ? spec->shard_count : 1;

    strbuf_addstr(out, "trials: ");
    add_thousands(out, (double)p->nr);
    if (count > 1) {
        strbuf_addf(out, " (shard %u/%u of ", spec->shard_index + 1, count);
        add_thousands(out, (double)p->total_nr);
        strbuf_addch(out, ')');
    }
    /* a question's trials: its lengths x depths x repeats x combinations of named axis values */
    per_question = spec->lengths_nr * spec->depths_nr * (size_t)spec->repeats *
                   (p->combos_nr > 1 ? p->combos_nr : 1);
    all_q = (p->total_nr - p->controls_nr) / per_question;
    kept_q = count > 1 ? all_q : (p->nr - plan_controls_kept(p)) / per_question;
    if (kept_q < all_q) /* run --questions N: the first N of the seed's order */
        strbuf_addf(out, " = %zu of %zu questions (--questions)", kept_q, all_q);
    else
        strbuf_addf(out, " = %zu questions", all_q);
    strbuf_addf(out, " x %zu lengths x %zu depths x %d repeats", spec->lengths_nr, spec->depths_nr,
                spec->repeats);
    if (p->combos_nr > 1) /* "distractors=hard;question-at=end", ... */
        strbuf_addf(out, " x %zu axis combinations", p->combos_nr);
    strbuf_addch(out, '\n');
    for (li = 0; li < spec->lengths_nr; li++) {
        double n = 0, toks;
        for (i = 0; i < p->nr; i++)
            if (p->t[i].length == spec->lengths[li])
                n++;
        toks = n * (double)spec->lengths[li];
        total_in += toks;
        strbuf_addf(out, "length %ld: ", spec->lengths[li]);
        add_thousands(out, n);
        strbuf_addstr(out, " trials, ");
        add_thousands(out, toks);
        strbuf_addstr(out, " prompt tokens\n");
    }
    if (p->controls_nr) {
        strbuf_addstr(out, "controls: ");
        add_thousands(out, (double)plan_controls_kept(p));
        strbuf_addstr(out, " trials (closed-book: no documents; oracle: the gold chunk alone; "
                           "short prompts, not in the totals below)\n");
    }
    if (cost && cost->max_answer_tokens > 0)
        total_out = (double)p->nr * (double)cost->max_answer_tokens;
    strbuf_addstr(out, "total: ");
    add_thousands(out, total_in);
    strbuf_addstr(out, " prompt tokens");
    if (total_out > 0) {
        strbuf_addstr(out, ", at most ");
        add_thousands(out, total_out);
        strbuf_addstr(out, " completion tokens");
    }
    strbuf_addch(out, '\n');
    if (cost && cost->price_in >= 0 && cost->price_out >= 0) {
        double c = total_in / 1e6 * cost->price_in + total_out / 1e6 * cost->price_out;
        strbuf_addf(out, "estimated cost: at most $%.2f (prompt $%.2f + completion $%.2f)\n", c,
                    total_in / 1e6 * cost->price_in, total_out / 1e6 * cost->price_out);
        if (usd)
            *usd = c;
    } else if (usd) {
        *usd = -1;
    }
}

void plan_format_length(struct strbuf *out, long tokens)
{
    if (tokens >= 1024L * 1024 && tokens % (1024L * 1024) == 0)
        strbuf_addf(out, "%ldm", tokens / (1024L * 1024)); /* as --lengths writes it: 1m */
    else if (tokens >= 1024 && tokens % 1024 == 0)
        strbuf_addf(out, "%ldk", tokens / 1024);
    else
        strbuf_addf(out, "%ld", tokens);
}

void plan_format_depth(struct strbuf *out, int depth_bp)
{
    if (depth_bp % 100 == 0)
        strbuf_addf(out, "%d%%", depth_bp / 100);
    else
        strbuf_addf(out, "%g%%", depth_bp / 100.0);
}

void plan_format_duration(struct strbuf *out, double seconds)
{
    double s = ceil(seconds);
    if (s >= 86400 * 2)
        strbuf_addf(out, "%.0f d %02.0f h", floor(s / 86400), floor(fmod(s, 86400) / 3600));
    else if (s >= 3600)
        strbuf_addf(out, "%.0f h %02.0f min", floor(s / 3600), floor(fmod(s, 3600) / 60));
    else if (s >= 60)
        strbuf_addf(out, "%.0f min %02.0f s", floor(s / 60), fmod(s, 60));
    else
        strbuf_addf(out, "%.0f s", s);
}

void plan_time_summary(const struct plan *p, const struct plan_spec *spec,
                       const struct plan_pace *pace, struct strbuf *out, double *seconds)
{
    double n = (double)p->nr, tokens = 0, best = -1;
    double t_conc = -1, t_rpm = -1, t_tpm = -1;
    const char *binding = NULL;
    size_t i;
    long c = pace->concurrency > 0 ? pace->concurrency : 1;

    (void)spec;
    for (i = 0; i < p->nr; i++)
        tokens += (double)p->t[i].length +
                  (double)(pace->max_answer_tokens > 0 ? pace->max_answer_tokens : 0);
    if (pace->latency_s > 0)
        t_conc = n * pace->latency_s / (double)c;
    if (pace->rpm > 0)
        t_rpm = n / (double)pace->rpm * 60.0;
    if (pace->tpm > 0)
        t_tpm = tokens / (double)pace->tpm * 60.0;
    if (t_conc >= 0) {
        best = t_conc;
        binding = "concurrency";
    }
    if (t_rpm > best) {
        best = t_rpm;
        binding = "--rpm";
    }
    if (t_tpm > best) {
        best = t_tpm;
        binding = "--tpm";
    }
    if (seconds)
        *seconds = pace->latency_s > 0 ? best : -1;
    if (!n)
        return;
    strbuf_addstr(out, "time: ");
    if (pace->latency_s > 0) {
        plan_format_duration(out, best);
        strbuf_addf(out, " estimated (bound by %s)\n", binding);
    } else if (best >= 0) {
        strbuf_addstr(out, "at least ");
        plan_format_duration(out, best);
        strbuf_addf(out, " (bound by %s; give --latency-s or --probe for the concurrency bound)\n",
                    binding);
    } else {
        strbuf_addstr(out, "unknown: give --latency-s SECONDS (mean seconds per request) or "
                           "--probe (time one real request) for an estimate\n");
    }
    if (t_conc >= 0) {
        strbuf_addf(out, "  concurrency %ld x %.3g s per request (%s): ", c, pace->latency_s,
                    pace->latency_from ? pace->latency_from : "--latency-s");
        plan_format_duration(out, t_conc);
        strbuf_addch(out, '\n');
    }
    if (t_rpm >= 0) {
        strbuf_addf(out, "  --rpm %ld: ", pace->rpm);
        plan_format_duration(out, t_rpm);
        strbuf_addch(out, '\n');
    }
    if (t_tpm >= 0) {
        strbuf_addf(out, "  --tpm %ld (prompt + answer budget): ", pace->tpm);
        plan_format_duration(out, t_tpm);
        strbuf_addch(out, '\n');
    }
}

/* --shard auto: Kubernetes indexed Job, Slurm array, GitLab parallel (0-based index out). */
int plan_shard_auto(unsigned *index, unsigned *count, struct strbuf *err)
{
    const char *ki = getenv("JOB_COMPLETION_INDEX");
    const char *si = getenv("SLURM_ARRAY_TASK_ID");
    const char *gi = getenv("CI_NODE_INDEX");
    long i, n, min = 0;

    if (ki && *ki) {
        const char *kn = getenv("DIPMAP_SHARD_COUNT");
        if (!kn || !*kn)
            kn = getenv("JOB_COMPLETIONS");
        if (!kn || !*kn) {
            strbuf_addstr(err, "--shard auto: JOB_COMPLETION_INDEX is set but not the shard count "
                               "(set DIPMAP_SHARD_COUNT or JOB_COMPLETIONS to the Job's "
                               "completions)");
            return -1;
        }
        if (parse_long_range(ki, 0, INT_MAX, &i) || parse_long_range(kn, 1, INT_MAX, &n)) {
            strbuf_addstr(err, "--shard auto: JOB_COMPLETION_INDEX and the shard count must be "
                               "integers");
            return -1;
        }
    } else if (si && *si) {
        const char *sn = getenv("SLURM_ARRAY_TASK_COUNT");
        const char *smin = getenv("SLURM_ARRAY_TASK_MIN");
        if (!sn || !*sn || parse_long_range(si, 0, INT_MAX, &i) ||
            parse_long_range(sn, 1, INT_MAX, &n) ||
            (smin && *smin && parse_long_range(smin, 0, INT_MAX, &min))) {
            strbuf_addstr(err, "--shard auto: SLURM_ARRAY_TASK_ID needs an integer "
                               "SLURM_ARRAY_TASK_COUNT");
            return -1;
        }
        i -= min;
    } else if (gi && *gi) {
        const char *gn = getenv("CI_NODE_TOTAL");
        if (!gn || !*gn || parse_long_range(gi, 1, INT_MAX, &i) ||
            parse_long_range(gn, 1, INT_MAX, &n)) {
            strbuf_addstr(err, "--shard auto: CI_NODE_INDEX needs an integer CI_NODE_TOTAL");
            return -1;
        }
        i -= 1; /* GitLab counts from 1 */
    } else {
        strbuf_addstr(err, "--shard auto: none of JOB_COMPLETION_INDEX (Kubernetes), "
                           "SLURM_ARRAY_TASK_ID (Slurm) or CI_NODE_INDEX (GitLab) is set");
        return -1;
    }
    if (n > PLAN_MAX_SHARDS) {
        strbuf_addf(err, "--shard auto: %ld shards is more than %ld", n, (long)PLAN_MAX_SHARDS);
        return -1;
    }
    if (i < 0 || i >= n) {
        strbuf_addf(err, "--shard auto: index %ld is outside 0..%ld", i, n - 1);
        return -1;
    }
    *index = (unsigned)i;
    *count = (unsigned)n;
    return 0;
}

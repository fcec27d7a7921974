/*
 * `dipmap run`'s settings checked: the defaults of struct run_opts, every
 * numeric option against its range (one message per option), the named axes
 * (--question-at, --needles, ..., --hops), --experiment order and the shard.
 * Owns struct run_opts' defaults; the option table stays in cmd/cmd_run.c.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/num.h"
#include "base/secret.h"
#include "run/batch.h"
#include "run/plan.h"
#include "client/reasoning.h"
#include "prompt/layout.h"
#include "prompt/needle_size.h"
#include "prompt/order.h"
#include "prompt/prompt.h"
#include "tokenizer/tokenizer.h"

#include "base/usage.h"
#include "run/run_cmd.h"

#include "base/banned.h"

/*
 * --shard I/N, counting shards from 1 (1/2 and 2/2 make a whole: plan_parse_shard), or auto
 * from the scheduler's environment.
 */
static int parse_shard(const char *s, unsigned *index, unsigned *count, struct strbuf *err)
{
    if (!strcmp(s, "auto"))
        return plan_shard_auto(index, count, err);
    return plan_parse_shard(s, index, count, err);
}

void run_opts_init(struct run_opts *o)
{
    struct runner_config d;

    runner_config_init(&d); /* the runner's defaults are the options' */
    memset(o, 0, sizeof(*o));
    strvec_init(&o->endpoints);
    strvec_init(&o->headers);
    strvec_init(&o->tags);
    o->lengths = PLAN_DEFAULT_LENGTHS;
    o->depths = PLAN_DEFAULT_DEPTHS;
    o->tmpl = PROMPT_DEFAULT_TEMPLATE;
    o->tokenizer = TOKENIZER_DEFAULT;
    o->max_tokens_field = "auto";
    o->api_key_env = SECRET_DEFAULT_KEY_ENV;
    o->scorer = NULL;
    o->progress = "auto";
    o->template_overhead = "auto";
    o->repeats = 1;
    o->concurrency = d.concurrency;
    o->max_tokens = d.max_tokens;
    o->max_attempts = d.max_attempts;
    o->retry_base_ms = d.backoff_base_ms;
    o->temperature = 0;
    o->top_p = 1;
    o->timeout = 600;
    o->connect_timeout = 10;
    o->price_in = d.price_in;
    o->price_out = d.price_out;
    o->price_cached_in = d.price_cached_in;
    o->max_error_rate = d.max_error_rate;
    o->drain_seconds = d.drain_seconds;
    o->progress_interval = d.progress_interval;
    o->context_check = 1;
    o->experiment = "depth";
    o->policies = "source,best-first,edges-first,second-last,ascending";
    o->ks = "3,5,10,20";
    o->rank_p = ORDER_DEFAULT_RANK_P;
    o->batch_window = "24h";
    o->batch_fallback = "batch";
    o->batch_max_requests = BATCH_DEFAULT_MAX_REQUESTS;
    o->batch_max_bytes = BATCH_DEFAULT_MAX_BYTES;
    o->batch_poll = 5;
    o->price_batch_in = o->price_batch_out = -1;
}

void run_opts_release(struct run_opts *o)
{
    free(o->experiment_json);
    strvec_clear(&o->endpoints);
    strvec_clear(&o->headers);
    strvec_clear(&o->tags);
    strvec_clear(&o->abstain_regex);
}

/* --absent P and the abstention detector (docs/effects.md "Needle-absent trials"). */
static int parse_absent(struct run_ctx *c)
{
    c->abstain.phrase = c->o.abstain_phrase ? c->o.abstain_phrase : ABSTAIN_PHRASE;
    c->abstain.regex = (const char *const *)c->o.abstain_regex.v;
    c->abstain.regex_nr = c->o.abstain_regex.nr;
    if (!c->o.absent) {
        if (c->o.abstain_phrase || c->o.abstain_regex.nr)
            return error_to(&c->err, "--abstain-phrase and --abstain-regex need --absent P");
        return 0;
    }
    if (parse_double_range(c->o.absent, 0, 1, &c->absent) < 0 || !(c->absent > 0))
        return error_to(&c->err, "--absent: '%s' is not a share in (0, 1] (e.g. 0.25)",
                        c->o.absent);
    if (!*c->abstain.phrase)
        return error_to(&c->err, "--abstain-phrase: give the words (not empty)");
    for (size_t i = 0; i < c->o.abstain_regex.nr; i++) {
        struct strbuf why = STRBUF_INIT;
        int rc = score_regex_check(c->o.abstain_regex.v[i], &why);
        if (rc < 0)
            error_to(&c->err, "--abstain-regex '%s': %s", c->o.abstain_regex.v[i], why.buf);
        strbuf_release(&why);
        if (rc < 0)
            return -1;
    }
    if (c->ord.on)
        return error_to(&c->err, "--absent: the order experiment has no gold depth to remove");
    return 0;
}

/*
 * The run options that are named axes (axes.h): the option's name is the
 * axis name, its value a comma list of the values to cross. A new axis is a
 * field in run_opts, an OPT_STRING above and a row here; its prompts read
 * the value with axes_find(prompt_request.axes, NAME) (docs/axes.md "Axes").
 */
struct run_axis {
    const char *name;
    size_t opt_offset;         /* offsetof(struct run_opts, field) */
    const char *const *values; /* the values allowed (NULL-terminated), or NULL: check() */
    const char *what;          /* with check(): what a value is, for the message */
    int (*check)(const char *value);
};

/* --needles: a count 1..64 */
static int check_needles(const char *v)
{
    unsigned long n;
    return parse_ulong(v, &n) == 0 && n >= 1 && n <= 64 ? 0 : -1;
}

/* --spacing: a percentage of the document block, 0..100 */
static int check_spacing(const char *v)
{
    double d;
    return parse_double_range(v, 0, 100, &d);
}
/* --needle-tokens: a size in tokens (needle_size.h) */
static int check_needle_tokens(const char *v)
{
    long n;
    return parse_long_range(v, NEEDLE_TOKENS_MIN, NEEDLE_TOKENS_MAX, &n);
}

/* --ordinal: a count of needles 2..64 */
static int check_ordinal(const char *v)
{
    unsigned long n;
    return parse_ulong(v, &n) == 0 && n >= 2 && n <= 64 ? 0 : -1;
}

static const char *const question_at_values[] = {"end", "start", "both", NULL};
static const char *const distractors_values[] = {"hard", "random", "none", NULL};
static const char *const haystack_order_values[] = {"coherent", "shuffled", NULL};
static const char *const arm_values[] = {"haystack", "padding", "adjacent", NULL};
static const struct run_axis run_axes[] = {
    {"question-at", offsetof(struct run_opts, question_at), question_at_values, NULL, NULL},
    {"distractors", offsetof(struct run_opts, distractors), distractors_values, NULL, NULL},
    {"haystack-order", offsetof(struct run_opts, haystack_order), haystack_order_values, NULL,
     NULL},
    {"needles", offsetof(struct run_opts, needles), NULL, "a count 1..64", check_needles},
    {"spacing", offsetof(struct run_opts, spacing), NULL, "a percentage 0..100", check_spacing},
    {"ordinal", offsetof(struct run_opts, ordinal), NULL, "a count 2..64", check_ordinal},
    {"layout", offsetof(struct run_opts, layout), prompt_layout_names, NULL, NULL},
    {NEEDLE_TOKENS_AXIS, offsetof(struct run_opts, needle_tokens), NULL, "a size 1..65536 tokens",
     check_needle_tokens},
    {"arm", offsetof(struct run_opts, arm), arm_values, NULL, NULL},
};

/* One "--NAME a,b" into c->axes; the values checked against ax->values. */
static int add_axis(struct run_ctx *c, const struct run_axis *ax, const char *list)
{
    struct strvec *v = &c->axis_values[c->axes_nr];
    size_t i, j;
    if (c->axes_nr >= RUN_AXES_MAX)
        return error_to(&c->err, "more than %d named axes", RUN_AXES_MAX);
    strvec_init(v);
    strvec_split(v, list, ',');
    c->axes_nr++; /* from here on released with the context */
    if (!v->nr)
        return error_to(&c->err, "--%s: give at least one value", ax->name);
    for (i = 0; i < v->nr; i++) {
        if (ax->check) {
            if (ax->check(v->v[i]) < 0)
                return error_to(&c->err, "--%s: '%s' is not %s", ax->name, v->v[i], ax->what);
            goto unique;
        }
        for (j = 0; ax->values[j] && strcmp(ax->values[j], v->v[i]); j++)
            ;
        if (!ax->values[j]) {
            struct strbuf known = STRBUF_INIT;
            for (j = 0; ax->values[j]; j++)
                strbuf_addf(&known, "%s%s", j ? ", " : "", ax->values[j]);
            error_to(&c->err, "--%s: unknown value '%s' (one of %s)", ax->name, v->v[i], known.buf);
            strbuf_release(&known);
            return -1;
        }
    unique:
        for (j = 0; j < i; j++)
            if (!strcmp(v->v[j], v->v[i]))
                return error_to(&c->err, "--%s: %s given twice", ax->name, v->v[i]);
    }
    c->axes[c->axes_nr - 1].name = ax->name;
    c->axes[c->axes_nr - 1].values = (const char *const *)v->v;
    c->axes[c->axes_nr - 1].values_nr = v->nr;
    return 0;
}

/*
 * --hops 2 (docs/axes.md "Two-hop chains"): the axis hops=2 and the axis depth-b, needle B's depth
 * swept on its own (--depths-b, default the run's --depths), crossed with the depth (needle A).
 */
static int parse_hops(struct run_ctx *c)
{
    static const char *const hops_values[] = {"2", NULL};
    static const struct run_axis hops = {"hops", 0, hops_values, NULL, NULL};
    static const struct run_axis depth_b = {"depth-b", 0, NULL, "a percentage 0..100",
                                            check_spacing};
    struct strbuf list = STRBUF_INIT;
    int *d = c->depths, *own = NULL, ret;
    size_t n = c->nd, i;
    if (!c->o.hops) {
        if (c->o.depths_b)
            return error_to(&c->err, "--depths-b needs --hops 2");
        return 0;
    }
    if (strcmp(c->o.hops, "2"))
        return error_to(&c->err, "--hops: '%s' is not 2 (needle A, then needle B)", c->o.hops);
    if (c->o.depths_b) {
        struct strbuf why = STRBUF_INIT;
        ret = plan_parse_depths(c->o.depths_b, &own, &n, &why);
        if (ret < 0)
            error_to(&c->err, "--depths-b: %s", why.buf);
        strbuf_release(&why);
        if (ret < 0)
            return -1;
        d = own;
    }
    for (i = 0; i < n; i++)
        strbuf_addf(&list, "%s%g", i ? "," : "", d[i] / 100.0);
    ret = add_axis(c, &hops, "2") < 0 || add_axis(c, &depth_b, list.buf) < 0 ? -1 : 0;
    free(own);
    strbuf_release(&list);
    return ret;
}

/* The named axes given (run_axes[], then --hops) into c->axes, in the table's order. */
static int parse_axes(struct run_ctx *c)
{
    size_t i;
    for (i = 0; i < sizeof(run_axes) / sizeof(run_axes[0]); i++) {
        const char *list = *(const char *const *)((const char *)&c->o + run_axes[i].opt_offset);
        if (list && add_axis(c, &run_axes[i], list) < 0)
            return -1;
    }
    if (c->o.ordinal && (c->o.needles || c->o.spacing || c->o.hops))
        return error_to(&c->err, "--ordinal places its own needles: not with --%s",
                        c->o.needles   ? "needles"
                        : c->o.spacing ? "spacing"
                                       : "hops");
    return parse_hops(c);
}

/* --NAME's value is in lo..hi; else an error naming the option, the range and the value. */
static int check_long(struct strbuf *err, const char *name, long v, long lo, long hi)
{
    if (v >= lo && v <= hi)
        return 0;
    if (hi == LONG_MAX)
        return error_to(err, "--%s must be at least %ld (got %ld)", name, lo, v);
    return error_to(err, "--%s must be %ld to %ld (got %ld)", name, lo, hi, v);
}

/* --NAME's value is in [lo, hi], or in (lo, hi] when lo_open; hi INFINITY = no upper bound. */
static int check_double(struct strbuf *err, const char *name, double v, double lo, int lo_open,
                        double hi)
{
    if (!isnan(v) && (lo_open ? v > lo : v >= lo) && v <= hi)
        return 0;
    if (isinf(hi))
        return error_to(err, "--%s must be %s %g (got %g)", name, lo_open ? "above" : "at least",
                        lo, v);
    return error_to(err, "--%s must be in %c%g, %g] (got %g)", name, lo_open ? '(' : '[', lo, hi,
                    v);
}

/*
 * Every numeric setting against its range, one message per option. Prices are unset (-1)
 * unless given, and then only together: a cost from one of them would be a wrong number.
 */
int run_options_check(struct run_opts *o, struct strbuf *err)
{
    int in = o->price_in_seen, out = o->price_out_seen;

    if (check_long(err, "repeats", o->repeats, 1, 1000000) ||
        check_long(err, "questions", o->questions, 0, LONG_MAX) ||
        check_long(err, "concurrency", o->concurrency, 1, 100000) ||
        check_long(err, "max-tokens", o->max_tokens, 1, 10000000) ||
        check_long(err, "max-attempts", o->max_attempts, 1, 1000) ||
        check_long(err, "retry-base-ms", o->retry_base_ms, 0, 3600000) ||
        check_long(err, "rpm", o->rpm, 0, LONG_MAX) ||
        check_long(err, "tpm", o->tpm, 0, LONG_MAX) ||
        check_double(err, "temperature", o->temperature, 0, 0, 2) ||
        check_double(err, "top-p", o->top_p, 0, 1, 1) ||
        check_double(err, "timeout", o->timeout, 0, 1, INFINITY) ||
        check_double(err, "connect-timeout", o->connect_timeout, 0, 1, INFINITY) ||
        check_double(err, "drain-seconds", o->drain_seconds, 0, 0, INFINITY) ||
        check_double(err, "progress-interval", o->progress_interval, 0, 1, INFINITY) ||
        check_double(err, "max-error-rate", o->max_error_rate, 0, 0, 1) ||
        check_double(err, "max-cost", o->max_cost, 0, 0, INFINITY))
        return -1;
    if (!(o->latency_s >= 0 && o->latency_s <= 86400))
        return error_to(err, "--latency-s is the mean seconds per request, 0 to 86400 (got %g)",
                        o->latency_s);
    if ((in && check_double(err, "price-in", o->price_in, 0, 0, INFINITY)) ||
        (out && check_double(err, "price-out", o->price_out, 0, 0, INFINITY)))
        return -1;
    if (in != out)
        return error_to(err,
                        "--%s needs --%s too (USD per 1M prompt and completion tokens; "
                        "use 0 for a free side)",
                        in ? "price-in" : "price-out", in ? "price-out" : "price-in");
    if (!in)
        o->price_in = o->price_out = -1;
    if (o->max_cost > 0 && !in)
        return error_to(err, "--max-cost needs --price-in and --price-out (USD per 1M tokens)");
    if (check_long(err, "batch-max-requests", o->batch_max_requests, 1, 50000000) ||
        check_long(err, "batch-max-bytes", o->batch_max_bytes, 1024, 100000000000L) ||
        check_double(err, "batch-poll", o->batch_poll, 0, 1, 3600))
        return -1;
    if (strcmp(o->batch_fallback, "batch") && strcmp(o->batch_fallback, "online"))
        return error_to(err, "--batch-fallback must be batch or online (got '%s')",
                        o->batch_fallback);
    if ((o->price_batch_in >= 0) != (o->price_batch_out >= 0))
        return error_to(err, "--price-batch-in and --price-batch-out go together");
    if (o->price_batch_in >= 0 && !in)
        return error_to(err, "--price-batch-in needs --price-in and --price-out");
    if (o->price_batch_in < 0 && in) {
        o->price_batch_in = o->price_in / 2;
        o->price_batch_out = o->price_out / 2;
    }
    if (o->batch_cancel)
        o->batch = 1;
    if (o->price_cached_in != -1) {
        if (check_double(err, "price-cached-in", o->price_cached_in, 0, 0, INFINITY))
            return -1;
        if (!in)
            return error_to(err, "--price-cached-in needs --price-in and --price-out");
    }
    return 0;
}

/*
 * --experiment order: the policies, k and grouping become the named axes
 * policy, k and group (axes.h), so store, resume, shards, merge and compare
 * pair them like any axis; every trial is at length --budget (0: none) and
 * depth 0 (the chunks' order, not a depth, places the gold).
 */
static int validate_order(struct run_ctx *c)
{
    struct order_setup *x = &c->ord;
    struct json *j, *arr;
    size_t i;

    if (strcmp(c->o.experiment, "depth") && strcmp(c->o.experiment, "order")) {
        return error_to(&c->err, "--experiment must be depth or order, not '%s'", c->o.experiment);
    }
    x->on = !strcmp(c->o.experiment, "order");
    if (!x->on) {
        if (x->order_opts_seen) {
            return error_to(&c->err,
                            "--policies, --k, --group-by-doc, --budget, --rank-dist and --rank-p "
                            "go with --experiment order");
        }
        return 0;
    }
    if (c->o.lengths_seen || c->o.depths_seen) {
        return error_to(&c->err,
                        "--experiment order has no --lengths or --depths: a prompt holds the top k "
                        "chunks in the policy's order (--budget TOKENS caps its length)");
    }
    strbuf_reset(&c->err);
    if (order_setup_parse(x, c->o.policies, c->o.ks, c->o.group_by_doc, c->o.budget, c->o.rank_dist,
                          c->o.rank_p, &c->err) < 0) {
        return -1;
    }
    for (i = 0; i < x->axes_nr; i++) {
        if (c->axes_nr >= RUN_AXES_MAX) {
            return error_to(&c->err, "more than %d named axes", RUN_AXES_MAX);
        }
        c->axes[c->axes_nr++] = x->axes[i];
    }
    c->lengths[0] = c->o.budget;
    c->nl = 1;
    c->depths[0] = 0;
    c->nd = 1;
    /* the identity: what the axes do not say (budget, rank distribution) */
    j = json_new_object();
    json_add_num(j, "budget", (double)c->o.budget);
    json_add_bool(j, "group-by-doc", c->o.group_by_doc);
    arr = json_add_array(j, "k");
    for (i = 0; i < x->nk; i++)
        json_add_num(arr, NULL, x->k[i]);
    json_add_str(j, "name", "order");
    arr = json_add_array(j, "policies");
    for (i = 0; i < x->npolicies; i++)
        json_add_str(arr, NULL, ordering_name(x->policies[i]));
    if (x->rank_probs) {
        arr = json_add_array(j, "rank-dist");
        for (i = 0; i < x->n_rank_probs; i++)
            json_add_num(arr, NULL, x->rank_probs[i]);
    } else {
        json_add_num(j, "rank-p", x->rank_p);
    }
    c->o.experiment_json = json_print_str(j, 0);
    json_free(j);
    return 0;
}

/* Ranges and names of the options; the axes and the shard parsed. */
int run_options_validate(struct run_ctx *c)
{
    size_t i;

    strbuf_reset(&c->err);
    if (c->o.schedule && runner_schedule_parse(c->o.schedule, &c->schedule) < 0) {
        return error_to(&c->err, "--schedule must be cache, shuffle or plan, not '%s'",
                        c->o.schedule);
    }
    if (c->o.special && strcmp(c->o.special, "parse") && strcmp(c->o.special, "plain")) {
        return error_to(&c->err, "--special must be parse or plain, not '%s'", c->o.special);
    }
    if (c->o.special && !strcmp(c->o.tokenizer, "server")) {
        return error_to(&c->err,
                        "--special needs a local tokenizer (with --tokenizer server the server "
                        "decides)");
    }
    if (!c->o.dataset) {
        return error_to(&c->err, "--dataset is required");
    }
    if (c->o.probe && (!c->o.dry_run || !c->o.endpoints.nr || !c->o.model || !*c->o.model)) {
        return error_to(
            &c->err, "--probe goes with --dry-run and needs --endpoint and --model (it sends one "
                     "request)");
    }
    if (!c->o.dry_run && (!c->o.model || !*c->o.model)) {
        return error_to(&c->err, "--model is required");
    }
    if (!c->o.dry_run && !c->o.endpoints.nr) {
        return error_to(&c->err, "--endpoint is required");
    }
    if (run_options_check(&c->o, &c->err) < 0)
        return -1;
    if (strcmp(c->o.template_overhead, "auto")) {
        char *end;
        errno = 0;
        c->overhead = strtol(c->o.template_overhead, &end, 10);
        if (errno || end == c->o.template_overhead || *end || c->overhead < 0 ||
            c->overhead > 1000000) {
            return error_to(&c->err,
                            "--template-overhead must be auto or a token count (0..1000000)");
        }
    }
    if (runner_progress_parse(c->o.progress, &c->progress) < 0) {
        return error_to(&c->err, "--progress must be auto, bar, lines or none");
    }
    if (client_max_tokens_field_parse(c->o.max_tokens_field, &c->mtf) < 0) {
        return error_to(&c->err,
                        "--max-tokens-field must be auto, max_tokens or max_completion_tokens");
    }
    if (c->o.scorer && scorer_parse(c->o.scorer, &c->default_scorer) < 0) {
        return error_to(&c->err, "unknown scorer '%s' (one of %s)", c->o.scorer, scorer_names());
    }
    if (c->o.reasoning_effort && strcmp(c->o.reasoning_effort, "low") &&
        strcmp(c->o.reasoning_effort, "medium") && strcmp(c->o.reasoning_effort, "high")) {
        return error_to(&c->err, "--reasoning-effort must be low, medium or high, got '%s'",
                        c->o.reasoning_effort);
    }
    strbuf_reset(&c->err);
    if (c->o.extra_body && client_extra_body_check(c->o.extra_body, &c->extra_body, &c->err) < 0) {
        return -1;
    }
    if (c->o.reasoning_tags) {
        struct strbuf why = STRBUF_INIT;
        int rc = reasoning_tags_parse(c->o.reasoning_tags, &c->think_open, &c->think_close, &why);
        if (rc < 0)
            error_to(&c->err, "--reasoning-tags: %s", why.buf);
        strbuf_release(&why);
        if (rc < 0)
            return -1;
    }
    if ((!plan_lengths_relative(c->o.lengths) &&
         plan_parse_lengths(c->o.lengths, &c->lengths, &c->nl, &c->err) < 0) ||
        plan_parse_depths(c->o.depths, &c->depths, &c->nd, &c->err) < 0 ||
        (c->o.controls && plan_parse_controls(c->o.controls, &c->controls, &c->err) < 0)) {
        return -1;
    }
    if (parse_axes(c) < 0 || validate_order(c) < 0 || parse_absent(c) < 0)
        return -1;
    for (i = 0; i < c->nl; i++)
        if (c->lengths[i] > c->max_len)
            c->max_len = c->lengths[i];
    if (c->o.shard && parse_shard(c->o.shard, &c->shard_i, &c->shard_n, &c->err) < 0) {
        return -1;
    }
    if (c->shard_n > 1 && !c->o.run && !c->o.dry_run) {
        /* a timestamped default name would differ per shard and merge could not join them */
        return error_to(&c->err,
                        "--shard needs --run NAME, the same on every shard, so that 'dipmap merge' "
                        "joins the shards into one run");
    }
    return 0;
}

/*
 * `dipmap run --dry-run`'s estimates, as text for the command to print: the
 * order experiment's prompt tokens per k, the batch cost beside the online one,
 * and --probe's one timed request.
 */
#include <stdio.h>
#include <string.h>

#include "run/estimate.h"

#include "base/usage.h"
#include "run/run_cmd.h"

#include "base/banned.h"

/* --batch --dry-run: the batch cost beside the online one, and the time the window allows. */
void dry_run_batch(struct run_ctx *c, double online_usd, struct strbuf *out)
{
    struct plan_cost cost;
    struct strbuf scratch = STRBUF_INIT;
    double usd = -1;
    size_t files;
    cost.price_in = c->o.price_batch_in;
    cost.price_out = c->o.price_batch_out;
    cost.max_answer_tokens = c->o.max_tokens;
    if (cost.price_in >= 0)
        plan_summary(&c->plan, &c->spec, &cost, &scratch, &usd);
    files = (c->plan.nr + (size_t)c->o.batch_max_requests - 1) / (size_t)c->o.batch_max_requests;
    if (out->len && out->buf[out->len - 1] != '\n')
        strbuf_addch(out, '\n');
    strbuf_addf(out, "batch: %zu request(s) in at least %zu input file(s) of at most %ld",
                c->plan.nr, files ? files : 1, c->o.batch_max_requests);
    if (usd >= 0 && online_usd >= 0)
        strbuf_addf(out, "; cost $%.4f at batch prices against $%.4f online", usd, online_usd);
    strbuf_addf(out,
                "; answered within the %s completion window (often much sooner), instead "
                "of the online time above\n",
                c->o.batch_window);
    strbuf_release(&scratch);
}

/*
 * --dry-run --probe: send the plan's first trial at its longest length once
 * and time it (submit to done, as the runner measures latency). Nothing is
 * written: no store is opened, a server tokenizer counts without its cache.
 * Returns 0 with *seconds and *length, or -1 with the reason in c->err (c->ret set) when the
 * request fails.
 */
int dry_run_probe(struct run_ctx *c, double *seconds, long *length)
{
    struct prompt_builder *pb = NULL;
    struct built_prompt bp = BUILT_PROMPT_INIT;
    struct strbuf messages = STRBUF_INIT;
    struct client_request req;
    struct client_response *resp = NULL;
    const struct plan_trial *pt = NULL;
    struct prompt_request pr;
    struct strbuf why = STRBUF_INIT;
    size_t i;
    int ret = -1;

    c->ret = DM_EXIT_INFRA;
    strbuf_reset(&c->err);
    for (i = 0; i < c->plan.nr && !pt; i++)
        if (c->plan.t[i].length == c->max_len)
            pt = &c->plan.t[i];
    if (!pt) {
        error_to(&c->err, "--probe: no trial at length %ld in this plan", c->max_len);
        goto out;
    }
    prompt_request_for_trial(&pr, &c->gs.q[pt->question], pt, (unsigned long)c->o.seed,
                             c->o.max_tokens, !c->o.completions);
    pr.turn_cost = c->turn_cost;
    pb = prompt_builder_new(c->tk, &c->tpl, c->have_hay ? &c->hay : NULL);
    if (prompt_build(pb, &pr, &bp, &why) < 0) {
        error_to(&c->err, "--probe: cannot build the prompt of question %s at length %ld: %s",
                 pr.q->id, pr.target_len, why.buf);
        c->ret = DM_EXIT_USAGE;
        goto out;
    }
    memset(&req, 0, sizeof(req));
    req.system = pr.chat ? bp.system.buf : NULL;
    req.user = pr.chat ? bp.user.buf : bp.text.buf;
    req.user_len = pr.chat ? bp.user.len : bp.text.len;
    if (pr.chat && bp.layout != PROMPT_LAYOUT_DOCUMENTS) {
        prompt_messages_json(&bp, NULL, &messages);
        req.messages = messages.buf;
    }
    req.max_tokens = c->o.max_tokens;
    req.expected_prompt_tokens = bp.realized_len;
    if (client_submit(c->client, &req, &why) < 0) {
        error_to(&c->err, "--probe: %s", why.buf);
        goto out;
    }
    while (!(resp = client_take(c->client))) {
        if (client_poll(c->client, 1000, &why) < 0) {
            error_to(&c->err, "--probe: %s", why.buf);
            goto out;
        }
    }
    if (resp->http_status != 200) {
        error_to(&c->err, "--probe: the request failed (%s%s%s)", client_class_name(resp->cls),
                 resp->error ? ": " : "", resp->error ? resp->error : "");
        goto out;
    }
    *seconds = resp->latency_ms / 1000.0;
    *length = pt->length;
    ret = 0;
    c->ret = DM_EXIT_OK;
out:
    strbuf_release(&why);
    client_response_free(resp);
    built_prompt_release(&bp);
    strbuf_release(&messages);
    prompt_builder_free(pb);
    return ret;
}

/*
 * --dry-run of the order experiment: trials per k and their prompt tokens,
 * counted exactly (each (question, k) built once, best-first: every policy
 * holds the same chunks) with a local tokenizer; the template overhead is
 * not known before the endpoint is asked, so it is left out.
 */
void dry_run_order(struct run_ctx *c, struct strbuf *out, double *usd)
{
    const struct order_setup *x = &c->ord;
    struct prompt_builder *pb = NULL;
    struct built_prompt bp = BUILT_PROMPT_INIT;
    double total = 0, per_k;
    long trials_k = (long)(c->gs.nr * x->npolicies) * c->o.repeats, n = 0, completion;
    size_t ki, qi;

    strbuf_addf(out,
                "order experiment: %zu questions x %zu k x %zu policies x %ld repeats = %ld "
                "trials",
                c->gs.nr, x->nk, x->npolicies, c->o.repeats, trials_k * (long)x->nk);
    if (c->plan.controls_nr)
        strbuf_addf(out, " (+ %zu control trials)", c->plan.controls_nr);
    if (c->shard_n > 1)
        strbuf_addf(out, "; this shard runs %zu", c->plan.nr);
    strbuf_addch(out, '\n');
    if (c->tk && !tokenizer_is_remote(c->tk))
        pb = prompt_builder_new(c->tk, &c->tpl, c->have_hay ? &c->hay : NULL);
    for (ki = 0; ki < x->nk; ki++) {
        long lo = -1, hi = 0;
        per_k = 0;
        for (qi = 0; pb && qi < c->gs.nr; qi++) {
            struct order_request r;
            memset(&r, 0, sizeof(r));
            r.q = &c->gs.q[qi];
            r.policy = ORDER_BEST_FIRST;
            r.k = x->k[ki];
            r.group_by_doc = x->group_by_doc;
            r.budget = x->budget;
            r.chat = !c->o.completions;
            r.overhead = c->overhead > 0 ? c->overhead : 0;
            strbuf_reset(&c->err);
            if (prompt_build_order(pb, &r, &bp, &c->err) < 0) {
                strbuf_addf(out, "  k=%d: question %s: %s\n", x->k[ki], r.q->id, c->err.buf);
                break;
            }
            per_k += (double)bp.realized_len;
            lo = lo < 0 || bp.realized_len < lo ? bp.realized_len : lo;
            hi = bp.realized_len > hi ? bp.realized_len : hi;
        }
        if (pb && c->gs.nr && lo >= 0) {
            strbuf_addf(out,
                        "  k=%d: %ld trials, prompts of %.0f tokens on average (%ld to %ld), "
                        "%.0f prompt tokens\n",
                        x->k[ki], trials_k, per_k / (double)c->gs.nr, lo, hi,
                        per_k * (double)x->npolicies * (double)c->o.repeats);
            total += per_k * (double)x->npolicies * (double)c->o.repeats;
            n++;
        }
    }
    completion = trials_k * (long)x->nk * c->o.max_tokens;
    if (n == (long)x->nk)
        strbuf_addf(out,
                    "total: %.0f prompt tokens (before the template overhead), at most %ld "
                    "completion tokens\n",
                    total, completion);
    else if (!pb)
        strbuf_addstr(out, "prompt tokens: not counted with --tokenizer server in a dry run\n");
    if (n == (long)x->nk && c->o.price_in >= 0) {
        *usd = (total * c->o.price_in + (double)completion * c->o.price_out) / 1e6;
        strbuf_addf(out, "cost: at most $%.2f\n", *usd);
    }
    built_prompt_release(&bp);
    prompt_builder_free(pb);
}

void dry_run_estimate(struct run_ctx *c, double latency_s, long probed_len, struct strbuf *out,
                      double *usd)
{
    struct plan_cost cost;
    struct plan_pace pace;
    struct strbuf probe_from = STRBUF_INIT;

    *usd = -1;
    cost.price_in = c->o.price_in;
    cost.price_out = c->o.price_out;
    cost.max_answer_tokens = c->o.max_tokens;
    plan_summary(&c->plan, &c->spec, &cost, out, usd);
    memset(&pace, 0, sizeof(pace));
    pace.concurrency = c->o.concurrency;
    pace.rpm = c->o.rpm;
    pace.tpm = c->o.tpm;
    pace.latency_s = latency_s;
    pace.max_answer_tokens = c->o.max_tokens;
    if (probed_len > 0) {
        strbuf_addf(&probe_from, "probe: one request at %ld tokens", probed_len);
        pace.latency_from = probe_from.buf;
    }
    plan_time_summary(&c->plan, &c->spec, &pace, out, NULL);
    if (c->o.batch)
        dry_run_batch(c, *usd, out);
    estimate_cache(&c->plan, &cost, c->o.price_cached_in, out);
    estimate_power(&c->spec, c->gs.nr, out);
    strbuf_release(&probe_from);
}

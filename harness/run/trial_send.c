/*
 * One trial, one request (trial_send.h): the prompt request of a planned trial, the request
 * a built prompt is sent as and the bytes stored for it, the tokenizer-mismatch rule, and an
 * answer's outcome and stored trial. Online (runner.c) and --batch (batch.c) both call these.
 */
#include "run/trial_send.h"

#include <math.h>
#include <string.h>

#include "base/utc.h"
#include "prompt/dataset.h"
#include "prompt/layout.h"
#include "prompt/prompt.h"
#include "run/plan.h"
#include "run/runner.h"
#include "run/score.h"
#include "store/store.h"
#include "tokenizer/tokenizer.h"

#include "base/banned.h"

/* The prompt request of planned trial pt under cfg (trial_prompt_request, the probe). */
static void prompt_request_of(const struct runner_config *cfg, const struct plan_trial *pt,
                              struct prompt_request *pr)
{
    prompt_request_for_trial(pr, &cfg->gs->q[pt->question], pt, cfg->seed, cfg->max_tokens,
                             cfg->chat);
    pr->overhead = cfg->overhead;
    pr->turn_cost = cfg->turn_cost;
}

void trial_prompt_request(const struct runner_config *cfg, size_t i, struct prompt_request *pr)
{
    prompt_request_of(cfg, &cfg->plan->t[i], pr);
}

int trial_request_probe(const struct runner_config *cfg, const struct plan_spec *spec,
                        struct strbuf *key, char sha[SHA256_HEX_LEN + 1], struct strbuf *err)
{
    struct plan_trial pt;
    struct prompt_request pr;
    struct built_prompt bp = BUILT_PROMPT_INIT;
    int rc;

    plan_first_trial(cfg->plan, spec, &pt);
    prompt_request_of(cfg, &pt, &pr);
    rc = prompt_build(cfg->builder, &pr, &bp, err);
    if (!rc) {
        strbuf_addf(key, "%s|%ld|%d|%d|%s", cfg->gs->q[pt.question].id, pt.length, pt.depth_bp,
                    pt.repeat, pt.axes ? pt.axes : "");
        memcpy(sha, bp.sha256, SHA256_HEX_LEN + 1);
    }
    built_prompt_release(&bp);
    return rc < 0 ? -1 : 0;
}

void trial_prompt_facts(const struct built_prompt *bp, struct prompt_facts *out)
{
    memcpy(out->sha256, bp->sha256, sizeof(out->sha256));
    out->realized_length = bp->realized_len;
    out->realized_depth = bp->realized_depth;
    out->gold_offset = bp->gold_offset;
    out->gold_bm25_rank = (long)bp->gold_bm25_rank;
    out->bm25_docs = (long)bp->bm25_docs;
}

void trial_request_release(struct trial_request *tr)
{
    strbuf_release(&tr->messages);
    strbuf_release(&tr->nonce);
    strbuf_release(&tr->prompt);
}

/* The prompt's bytes as prompt_build() hashed them (bp->sha256): what is stored. */
static void prompt_bytes(const struct runner_config *cfg, const struct built_prompt *bp,
                         struct strbuf *out)
{
    strbuf_reset(out);
    if (cfg->chat && prompt_layout_in_turns(bp->layout)) {
        prompt_messages_json(bp, NULL, out);
    } else if (cfg->chat) {
        strbuf_add(out, bp->system.buf, bp->system.len);
        strbuf_addch(out, '\0');
        strbuf_add(out, bp->user.buf, bp->user.len);
    } else {
        strbuf_add(out, bp->text.buf, bp->text.len);
    }
}

void trial_request_make(const struct runner_config *cfg, const struct built_prompt *bp,
                        const char *nonce, struct trial_request *tr)
{
    struct client_request *req = &tr->req;
    int layout = cfg->chat && prompt_layout_in_turns(bp->layout);

    trial_prompt_facts(bp, &tr->facts);
    if (cfg->store_prompts)
        prompt_bytes(cfg, bp, &tr->prompt);
    memset(req, 0, sizeof(*req));
    req->system = cfg->chat ? bp->system.buf : NULL;
    req->user = cfg->chat ? bp->user.buf : bp->text.buf;
    req->user_len = cfg->chat ? bp->user.len : bp->text.len;
    req->max_tokens = cfg->max_tokens;
    req->expected_prompt_tokens = bp->realized_len;
    req->context_tokens = cfg->server_context;
    if (layout) {
        /* the layout's turns; a nonce opens the first message's content */
        strbuf_reset(&tr->messages);
        prompt_messages_json(bp, nonce, &tr->messages);
        req->messages = tr->messages.buf;
    }
    if (nonce) {
        /* a unique first line: no two requests share a prefix (--no-cache-reuse) */
        const char *first = req->system && *req->system ? req->system : req->user;
        size_t first_len = req->system && *req->system ? strlen(req->system) : req->user_len;
        if (cfg->tokenizer) {
            long n = tokenizer_count(cfg->tokenizer, nonce, strlen(nonce));
            req->expected_prompt_tokens += n > 0 ? n : 0;
        }
        strbuf_reset(&tr->nonce);
        strbuf_addstr(&tr->nonce, nonce);
        strbuf_add(&tr->nonce, first, first_len);
        if (first == req->system) {
            req->system = tr->nonce.buf;
        } else {
            req->user = tr->nonce.buf;
            req->user_len = tr->nonce.len;
        }
    }
}

int trial_request_store_prompt(const struct runner_config *cfg, const struct trial_request *tr)
{
    return store_prompt_put(cfg->store, tr->prompt.buf, tr->prompt.len, NULL);
}

/*
 * The server says it cut the prompt: a context shift leaves it at the context size. With the
 * context unknown, a shorter count says nothing about a cut: it is a tokenizer mismatch.
 */
static int server_cut(const struct runner_config *cfg, const struct client_response *resp)
{
    return cfg->server_context > 0 &&
           resp->prompt_tokens + cfg->max_tokens + 16 >= cfg->server_context;
}

double trial_count_mismatch(const struct runner_config *cfg, long realized,
                            const struct client_response *resp)
{
    if (resp->prompt_tokens <= 0 || realized <= 0 ||
        (resp->cls == CLIENT_TRUNCATED && resp->reason != CLIENT_R_PROMPT_SHORT) ||
        (resp->reason == CLIENT_R_PROMPT_SHORT && server_cut(cfg, resp)))
        return -1;
    return fabs((double)resp->prompt_tokens / (double)realized - 1.0);
}

void trial_mismatch_message(const struct runner_config *cfg, long realized,
                            const struct client_response *resp, double dev, struct strbuf *out)
{
    strbuf_addf(out,
                "tokenizer mismatch: the server counted %ld prompt tokens where the run's "
                "tokenizer counted %ld (template overhead %ld included), %.1f%% off: the lengths "
                "are not in the model's tokens; use --tokenizer server or the model's tokenizer "
                "(or --allow-tokenizer-mismatch to keep going)",
                resp->prompt_tokens, realized, cfg->overhead, dev * 100);
}

enum trial_outcome trial_answer_outcome(const struct runner_config *cfg, size_t i,
                                        struct client_response *resp, double *score,
                                        struct strbuf *msg)
{
    const char *why;
    enum trial_outcome o;

    *score = 0;
    if (resp->cls == CLIENT_TRUNCATED && resp->reason == CLIENT_R_PROMPT_SHORT &&
        !server_cut(cfg, resp))
        resp->cls = CLIENT_OK; /* counted differently, not cut: a mismatch, scored as usual */
    switch (resp->cls) {
    case CLIENT_OK: {
        struct strbuf err = STRBUF_INIT;
        if (runner_score(cfg, i, resp->content, score, &err) < 0) {
            strbuf_addf(msg, "cannot score: %s", err.buf);
            strbuf_release(&err);
            return OUTCOME_ERROR;
        }
        strbuf_release(&err);
        return *score >= 0.5 ? OUTCOME_CORRECT : OUTCOME_WRONG;
    }
    case CLIENT_OVERFLOW:
        o = OUTCOME_OVERFLOW, why = "context exceeded";
        break;
    case CLIENT_TRUNCATED:
        o = OUTCOME_TRUNCATED, why = "truncated";
        break;
    case CLIENT_EMPTY:
        o = OUTCOME_EMPTY, why = "empty answer";
        break;
    case CLIENT_STARVED:
        o = OUTCOME_STARVED, why = "no answer";
        break;
    case CLIENT_FILTERED:
        o = OUTCOME_FILTERED, why = "content filter";
        break;
    case CLIENT_RETRYABLE:
        o = OUTCOME_ERROR, why = "request failed";
        break;
    default:
        o = OUTCOME_ERROR, why = "unexpected response";
        break;
    }
    strbuf_addstr(msg, resp->error ? resp->error : why);
    return o;
}

int trial_answer_record(const struct runner_config *cfg, size_t i, const struct prompt_facts *f,
                        const struct client_response *resp, enum trial_outcome outcome,
                        double score, const char *error, const struct trial_answer_meta *meta,
                        struct trial_view *out)
{
    const struct plan_trial *pt = &cfg->plan->t[i];
    struct trial_result *t = &out->figures;

    trial_result_init(t);
    out->question_id = cfg->gs->q[pt->question].id;
    out->axes = pt->axes;
    t->length = pt->length;
    t->depth_bp = pt->depth_bp;
    t->repeat = pt->repeat;
    t->facts = *f;
    t->usage_prompt_tokens = resp ? resp->prompt_tokens : -1;
    t->outcome = outcome;
    t->http_status = resp ? (int)resp->http_status : 0;
    t->attempts = meta->attempts;
    t->latency_ms = resp ? resp->latency_ms : 0;
    t->completion_tokens = resp ? resp->completion_tokens : -1;
    t->reasoning_tokens = resp ? resp->reasoning_tokens : -1;
    t->reasoning_chars = resp && resp->reasoning ? (long)strlen(resp->reasoning) : 0;
    t->cut = resp && resp->cut && outcome_is_scored(outcome);
    out->reused_from = meta->reused_from;
    if (resp)
        memcpy(t->request_sha256, resp->request_sha256, sizeof(t->request_sha256));
    out->finish_reason = resp ? resp->finish_reason : NULL;
    out->answer = resp ? resp->content : NULL;
    out->reasoning = resp ? resp->reasoning : NULL;
    t->score = score;
    out->error = error;
    t->finished_at = utc_now();
    t->cache_n = resp ? resp->timings_cache_n : -1;
    t->prompt_n = resp ? resp->timings_prompt_n : -1;
    t->prompt_ms = resp ? resp->timings_prompt_ms : -1;
    t->cached_tokens = resp ? resp->cached_tokens : -1;
    t->sent_at = meta->sent_at;
    return store_trial_put_view(cfg->store, cfg->run_name, out);
}

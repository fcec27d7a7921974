#ifndef TRIAL_SEND_H
#define TRIAL_SEND_H

/*
 * One trial, one request: the single pipeline every way a run sends goes through (online,
 * --batch, shards, --reuse, the gate's rounds). A planned trial becomes its prompt request
 * (trial_prompt_request()), the built prompt becomes the request that is sent and the bytes
 * that are hashed and stored (trial_request_make()), and the answer becomes the outcome and
 * the stored trial (trial_answer_outcome(), trial_answer_record()). No other file assembles a
 * request or a stored trial of a run.
 */

#include <stddef.h>

#include "base/sha256.h"
#include "base/strbuf.h"
#include "client/client.h"
#include "run/trial.h"

struct runner_config;
struct prompt_request;
struct built_prompt;

/* The prompt request of trial i of cfg's plan: the run's seed, budget, chat mode, template
   overhead and turn costs. */
void trial_prompt_request(const struct runner_config *cfg, size_t i, struct prompt_request *pr);

/*
 * The run's request probe: the first trial of spec's whole matrix (plan_first_trial(), the
 * same for every shard; cfg->plan is the plan built from spec), built as the run builds it
 * (trial_prompt_request's request, cfg->builder). Its key "QID|LENGTH|DEPTH_BP|REPEAT|AXES"
 * is appended to key and its prompt_sha256 copied into sha: what two binaries that build
 * the same bytes agree on (model-independent). 0, or -1 with the reason in err.
 */
struct plan_spec;
int trial_request_probe(const struct runner_config *cfg, const struct plan_spec *spec,
                        struct strbuf *key, char sha[SHA256_HEX_LEN + 1], struct strbuf *err);

/* The facts of a built prompt (prompt_sha256 and the realized figures). */
void trial_prompt_facts(const struct built_prompt *bp, struct prompt_facts *out);

/*
 * The request of one built trial. req points into bp and the buffers below (valid while both
 * live and until the next trial_request_make()); prompt holds the prompt's bytes as sent
 * without the --no-cache-reuse nonce (a layout's messages JSON; chat system "\0" user; the
 * completion text): what --store-prompts keeps under facts.sha256.
 */
struct trial_request {
    struct client_request req;
    struct prompt_facts facts;
    struct strbuf messages; /* a layout's messages array, as sent */
    struct strbuf nonce;    /* the nonce-led first message (--no-cache-reuse nonce) */
    struct strbuf prompt;   /* the stored prompt bytes */
};
#define TRIAL_REQUEST_INIT                                                                         \
    {                                                                                              \
        .messages = STRBUF_INIT, .nonce = STRBUF_INIT, .prompt = STRBUF_INIT                       \
    }
void trial_request_release(struct trial_request *tr);

/*
 * Fill tr with the request of built prompt bp under cfg: system and user, or a layout's
 * messages; the answer budget, expected prompt tokens, the server's context; nonce (NULL:
 * none) leads the first message (its tokens added to the expected count with cfg's
 * tokenizer). hints and tag are the caller's (left NULL).
 */
void trial_request_make(const struct runner_config *cfg, const struct built_prompt *bp,
                        const char *nonce, struct trial_request *tr);

/* Store tr's prompt bytes (--store-prompts); 0 or -1. */
int trial_request_store_prompt(const struct runner_config *cfg, const struct trial_request *tr);

/*
 * The share by which the server's count of a prompt (resp->prompt_tokens) is off the run's
 * count (realized, template overhead included), or -1 when the answer cannot say (no count,
 * a prompt the server cut). The rule of the tokenizer-mismatch check of online and batch runs.
 */
double trial_count_mismatch(const struct runner_config *cfg, long realized,
                            const struct client_response *resp);
/* A share above which trial_count_mismatch() is a mismatch (2%). */
#define TRIAL_MISMATCH_RATIO 0.02
/* Answers whose prompt count can stop the run as a tokenizer mismatch (the first ones). */
#define TRIAL_MISMATCH_FIRST 8
/* The message of a mismatch that stops the run (dev: trial_count_mismatch()), into out. */
void trial_mismatch_message(const struct runner_config *cfg, long realized,
                            const struct client_response *resp, double dev, struct strbuf *out);

/*
 * The outcome of an answer (not retryable, not fatal) of trial i: a prompt the server only
 * counted shorter is scored; CLIENT_OK is scored with the trial's scorer (an answer that
 * cannot be scored is an error); every other class its outcome. *score is set; *msg gets the
 * error text of a non-scored outcome (appended). Never sends or stores.
 */
enum trial_outcome trial_answer_outcome(const struct runner_config *cfg, size_t i,
                                        struct client_response *resp, double *score,
                                        struct strbuf *msg);

/*
 * What an answer adds to the trial beside its key and facts: how many requests, when the
 * last was sent, where a reused answer came from (NULL: sent).
 */
struct trial_answer_meta {
    int attempts;
    double sent_at;
    const char *reused_from;
};

/*
 * The stored trial of an answer: trial i's key, the facts its request was built with and
 * resp's fields (resp NULL: never answered), into a view whose strings are borrowed from
 * cfg's plan, resp and error (valid while they live), then written to cfg's store. 0, or -1
 * (the store refused it).
 */
int trial_answer_record(const struct runner_config *cfg, size_t i, const struct prompt_facts *f,
                        const struct client_response *resp, enum trial_outcome outcome,
                        double score, const char *error, const struct trial_answer_meta *meta,
                        struct trial_view *out);

#endif

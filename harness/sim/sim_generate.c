/*
 * serve-sim's generation (POST /v1/chat/completions, /v1/completions, a batch's lines): the
 * planted model's answer to a checked request (sim_request.c), cut to its budget, thinking
 * first in reasoning mode; the prefix cache, the slots and the shared prefill engine; the
 * server's time for it (latency, prefill, decoding) and the fault drawn for it (sim_fault.c).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "prompt/dataset.h"
#include "base/json.h"
#include "sim/sim-int.h"
#include "base/strbuf.h"
#include "tokenizer/tokenizer.h"
#include "base/xalloc.h"
#include "base/hash.h"
#include "base/utc.h"

#include "base/banned.h"

#define REASONING_TOKENS 256
#define IDK              "I don't know"

/* Ids above any vocabulary: a message boundary (by role) or a cache salt in the cached ids. */
#define CACHE_MARK  0xffffff00u
#define IS_MARK(id) ((id) >= CACHE_MARK)

/*
 * The tokens the prefix cache compares: per message a marker of its role, then its
 * tokens as the model sees them (after a context shift); a cache_salt leads with its own
 * marker, so differently salted requests share nothing.
 */
static void cache_ids(struct sim_server *s, struct sim_gen *g)
{
    size_t alloc = 0;
    if (g->cache_salt) {
        /* 63 bits of the salt's hash, 7 per marker: two salts share a prefix 1 in 2^63 */
        uint64_t h = fnv64_str(FNV64_INIT, g->cache_salt);
        ALLOC_GROW(g->ids, g->nids + 9, alloc);
        for (int k = 0; k < 9; k++, h >>= 7)
            g->ids[g->nids++] = CACHE_MARK | (uint32_t)(h & 0x7f);
    }
    for (size_t i = 0; i < g->prompt.nr; i++) {
        const char *role = g->prompt.role ? g->prompt.role[i] : "prompt";
        uint32_t *t = NULL;
        size_t n = 0;
        ALLOC_GROW(g->ids, g->nids + 1, alloc);
        g->ids[g->nids++] = CACHE_MARK | 0x80u | (uint32_t)(fnv64_str(FNV64_INIT, role) & 0x7f);
        if (tokenizer_encode(s->cfg->tokenizer, g->prompt.seg[i].buf + g->prompt.start[i],
                             g->prompt.seg[i].len - g->prompt.start[i], TOKENIZER_SPECIAL_DEFAULT,
                             &t, &n) == 0 &&
            n) {
            ALLOC_GROW(g->ids, g->nids + n, alloc);
            memcpy(g->ids + g->nids, t, n * sizeof(*t));
            g->nids += n;
        }
        free(t);
    }
}

static double since_start_ms(const struct sim_server *s)
{
    return utc_monotonic_ms() - s->t0_ms;
}

/*
 * --prefill-throughput: wait for the shared prefill engine (FIFO: tickets in arrival
 * order). 0 with the engine held (g->engine), -1 when the server is stopping.
 */
static int engine_enter(struct sim_server *s, struct sim_gen *g, struct sim_logrec *l)
{
    double t = since_start_ms(s);
    uint64_t me;
    int stopped;
    pthread_mutex_lock(&s->stop_lock);
    me = s->engine_next++;
    while (!s->stopping && s->engine_serving != me)
        pthread_cond_wait(&s->engine_cond, &s->stop_lock);
    stopped = s->stopping;
    pthread_mutex_unlock(&s->stop_lock);
    if (stopped)
        return -1;
    g->engine = 1;
    l->engine_start_ms = since_start_ms(s);
    l->queue_ms = l->engine_start_ms - t;
    return 0;
}

/* The prefill is done (or abandoned): the next request's turn. */
static void engine_leave(struct sim_server *s, struct sim_gen *g, struct sim_logrec *l)
{
    if (!g->engine)
        return;
    g->engine = 0;
    l->engine_end_ms = since_start_ms(s);
    pthread_mutex_lock(&s->stop_lock);
    s->engine_serving++;
    pthread_cond_broadcast(&s->engine_cond);
    pthread_mutex_unlock(&s->stop_lock);
}

/* Take a slot and look the prompt up in its cache; 0, or -1 when the server is stopping. */
static int cache_lookup(struct sim_server *s, struct sim_gen *g)
{
    long m = 0, marks = 0;
    size_t i;
    g->slot = sim_cache_acquire(s->cache, g->ids, g->nids, g->id_slot, &m);
    if (g->slot < 0)
        return -1;
    if (!g->cache_prompt)
        m = 0;
    for (i = 0; i < (size_t)m; i++)
        marks += IS_MARK(g->ids[i]) != 0; /* markers are not tokens */
    m -= marks;
    if (m > g->T - 1)
        m = g->T > 0 ? g->T - 1 : 0;
    g->cached = m < 0 ? 0 : m;
    return 0;
}

static char *new_id(struct sim_server *s, const char *prefix)
{
    struct strbuf sb = STRBUF_INIT;
    uint64_t n = atomic_fetch_add(&s->id_counter, 1);
    strbuf_addf(&sb, "%s-%016llx", prefix, (unsigned long long)sim_mix64(n ^ (uint64_t)time(NULL)));
    return strbuf_detach(&sb, NULL);
}

/* The answer text, possibly cut to max_tokens (sets *finish to "length"). */
static void cut_answer(struct sim_server *s, struct strbuf *ans, long max_tokens, long *ntok,
                       const char **finish)
{
    *ntok = sim_count_tokens(s->cfg->tokenizer, ans->buf, ans->len);
    *finish = "stop";
    if (max_tokens >= 0 && *ntok > max_tokens) {
        size_t bytes = sim_token_prefix_bytes(s->cfg->tokenizer, ans->buf, ans->len, max_tokens);
        strbuf_setlen(ans, bytes);
        *ntok = max_tokens;
        *finish = "length";
    }
}

/*
 * Reasoning mode: g->think tokens of thinking (which mention the gold answer,
 * so crediting them would show) come out of the same budget as the answer.
 * Thinking that reaches the budget leaves no answer: finish_reason "length",
 * or "stop" with --think-stop (a server forcing the end of thinking). The form
 * is the reasoning_content field or an inline <think> block in the content
 * (--think-form; "both" alternates by question and position).
 */
static void think_then_answer(struct sim_server *s, const struct sim_gen *g,
                              const struct sim_analysis *a, struct strbuf *answer,
                              struct strbuf *thinking, long *ctok, long *rtok, int *inline_form,
                              const char **finish, struct sim_logrec *l)
{
    const struct sim_config *cfg = s->cfg;
    long budget = g->max_tokens, n;
    struct strbuf content = STRBUF_INIT;
    int starved;

    strbuf_addf(thinking, "Is the answer %s? ", a->q ? a->q->answers.v[0] : "in the documents");
    while ((n = sim_count_tokens(cfg->tokenizer, thinking->buf, thinking->len)) < g->think)
        strbuf_addstr(thinking, "Let me read the documents once more and check. ");
    n = g->think;
    starved = budget >= 0 && n >= budget;
    if (starved)
        n = budget;
    strbuf_setlen(thinking,
                  sim_token_prefix_bytes(cfg->tokenizer, thinking->buf, thinking->len, n));
    *rtok = n;
    if (cfg->think_form == SIM_THINK_BOTH)
        *inline_form = (sim_mix64(a->salt ^ (a->q ? fnv64_str(FNV64_INIT, a->q->id) : 0)) & 1) != 0;
    else
        *inline_form = cfg->think_form == SIM_THINK_INLINE;
    if (starved) {
        strbuf_reset(answer);
        *ctok = n;
        *finish = cfg->think_stop ? "stop" : "length";
        l->outcome = "starved";
    } else {
        long atok;
        cut_answer(s, answer, budget >= 0 ? budget - n : -1, &atok, finish);
        *ctok = n + atok;
    }
    if (*inline_form) {
        /* the block closes unless the budget ran out while thinking (no forced stop) */
        strbuf_addf(&content, "<think>%s", thinking->buf);
        if (!starved || cfg->think_stop)
            strbuf_addstr(&content, "</think>\n\n");
        strbuf_add(&content, answer->buf, answer->len);
        strbuf_reset(answer);
        strbuf_add(answer, content.buf, content.len);
    }
    l->think = n;
    l->think_form = *inline_form ? "inline" : "field";
    strbuf_release(&content);
}

/* The server's time for a request: base latency, prefill of the uncached prompt, decoding. */
static double prefill_ms(const struct sim_config *cfg, const struct sim_gen *g)
{
    return cfg->prefill_ms_per_1k * (double)(g->T - g->cached) / 1000.0;
}

/* --prefill-throughput: the request's time on the shared prefill engine (0 without) */
static double engine_ms(const struct sim_config *cfg, const struct sim_gen *g)
{
    if (!(cfg->prefill_throughput > 0))
        return 0;
    return 1000.0 * (double)(g->T - g->cached) / cfg->prefill_throughput;
}

static double decode_ms(const struct sim_config *cfg, const struct sim_gen *g)
{
    return cfg->decode_ms_per_token * (double)g->ctok;
}

/*
 * Several gold chunks in the prompt, each with a "value": the all-of answer
 * lists them (dataset order). Returns 1 when it wrote one.
 */
static int sim_needle_answer(const struct question *q, const struct sim_prompt *p,
                             struct strbuf *answer)
{
    size_t g, i, n = 0;
    for (g = 0; g < q->gold_nr; g++) {
        int found = 0;
        for (i = 0; i < p->nr && !found; i++)
            found = memmem(p->seg[i].buf + p->start[i], p->seg[i].len - p->start[i],
                           q->gold[g].text, q->gold[g].text_len) != NULL;
        if (!found)
            continue;
        if (!q->gold[g].value || !*q->gold[g].value)
            return 0;
        n++;
    }
    if (n < 2)
        return 0;
    for (g = 0, n = 0; g < q->gold_nr; g++) {
        int found = 0;
        for (i = 0; i < p->nr && !found; i++)
            found = memmem(p->seg[i].buf + p->start[i], p->seg[i].len - p->start[i],
                           q->gold[g].text, q->gold[g].text_len) != NULL;
        if (found)
            strbuf_addf(answer, "%s%s", n++ ? ", " : "", q->gold[g].value);
    }
    return 1;
}

/* What the model answers: the text, its reasoning, the tokens and why it stopped. */
struct gen_answer {
    struct strbuf text, reasoning;
    const char *finish;
    long ctok, rtok; /* completion tokens; reasoning tokens, -1 none */
    int reasoning_only, inline_form;
};

/*
 * Read the prompt as the model sees it (sim_analyse) and count it as the server does (the
 * template's tokens added); 0, or -1 with OpenAI's 400 context_length_exceeded in r when the
 * prompt and the budget do not fit --ctx.
 */
static int analyse_request(struct sim_server *s, struct sim_gen *g, struct sim_analysis *a,
                           struct sim_reply *r, struct sim_logrec *l)
{
    const struct sim_config *cfg = s->cfg;
    long extra;
    sim_analyse(cfg, &s->qix, &g->prompt, a);
    extra = sim_template_tokens(s, &g->prompt, g->chat, g->no_think);
    a->T += extra;
    a->sent_tokens += extra;
    l->T = a->T;
    l->sent_tokens = a->sent_tokens;
    l->question_id = a->q ? a->q->id : NULL;
    l->gold = a->gold;
    if (a->gold)
        l->x = a->x;
    l->overlap = a->features.overlap;
    l->gold_tokens = a->features.gold_tokens;
    if (cfg->hay)
        l->haystack = a->features.haystack;
    if (a->q && a->q->gold_nr >= 2 && a->features.gold_present >= 2) {
        l->reversed = a->features.reversed;
        l->spacing = a->features.spacing;
    }
    if (!(cfg->ctx > 0 && a->T + (g->max_tokens > 0 ? g->max_tokens : 0) > cfg->ctx))
        return 0;
    if (g->max_tokens > 0)
        sim_error_reply(r, 400, "invalid_request_error", "messages", "context_length_exceeded",
                        "This model's maximum context length is %ld tokens. However, you "
                        "requested %ld tokens (%ld in the messages, %ld in the completion). "
                        "Please reduce the length of the messages or completion.",
                        cfg->ctx, a->T + g->max_tokens, a->T, g->max_tokens);
    else
        sim_error_reply(r, 400, "invalid_request_error", "messages", "context_length_exceeded",
                        "This model's maximum context length is %ld tokens. However, your "
                        "messages resulted in %ld tokens. Please reduce the length of the "
                        "messages.",
                        cfg->ctx, a->T);
    l->outcome = "overflow";
    return -1;
}

/* Salts of the abstention draws (halluc=, deny=): independent of the answer's draw. */
#define HALLUC_SALT 0x4a11c0ULL
#define DENY_SALT   0xde7e7ULL
#define ABSTAINED   "The answer is " SIM_ABSTAIN "."

/* 1 when a segment of p holds text (what the model is told). */
static int prompt_says(const struct sim_prompt *p, const char *text)
{
    for (size_t i = 0; i < p->nr; i++)
        if (memmem(p->seg[i].buf, p->seg[i].len, text, strlen(text)))
            return 1;
    return 0;
}

/*
 * A model told to say SIM_ABSTAIN when the answer is missing (sim.h halluc=, deny=): with the
 * gold absent it hallucinates the first answer with probability halluc, else abstains; with
 * the gold present it abstains with probability deny. Returns 1 when it answered here.
 */
static int decide_abstain(const struct sim_gen *g, const struct sim_analysis *a,
                          struct strbuf *answer, struct sim_logrec *l)
{
    double u;
    if (!prompt_says(&g->prompt, SIM_ABSTAIN))
        return 0;
    if (!a->gold) {
        u = sim_model_draw(g->model, a->q->id, 0, a->T, a->salt ^ HALLUC_SALT);
        l->p = g->model->halluc;
        l->u = u;
        strbuf_addstr(answer, u < g->model->halluc ? a->q->answers.v[0] : ABSTAINED);
        l->outcome = u < g->model->halluc ? "hallucinated" : "abstained";
        return 1;
    }
    u = sim_model_draw(g->model, a->q->id, a->x, a->T, a->salt ^ DENY_SALT);
    if (!(u < g->model->deny))
        return 0;
    strbuf_addstr(answer, ABSTAINED);
    l->outcome = "denied";
    return 1;
}

/*
 * The planted ordinal effect (--model NAME:ordinal=E; docs/effects.md "Ordinal needles"): an
 * answer that would be correct names a neighbouring occurrence's value instead with probability
 * E x log2(N) (at most 1), N the question's notes in the prompt; the neighbour before or after
 * it, drawn evenly where both exist. A draw of its own, so E = 0 leaves every answer as it was.
 * Returns 1 when it wrote the neighbour's value.
 */
static int ordinal_slip(const struct sim_model *m, const struct sim_analysis *a,
                        struct strbuf *answer)
{
    const struct chunk *c;
    double q, v;
    if (!a->features.ordinal_n || m->ordinal <= 0)
        return 0;
    q = m->ordinal * log2((double)a->features.ordinal_n);
    v = sim_to_unit(sim_mix64(a->salt ^ 0x0d1a1ULL ^ sim_mix64(m->seed)));
    if (v >= q)
        return 0;
    c = !a->ordinal_prev                                                ? a->ordinal_next
        : !a->ordinal_next                                              ? a->ordinal_prev
        : sim_to_unit(sim_mix64(a->salt ^ 0x5e1ec7ULL ^ m->seed)) < 0.5 ? a->ordinal_prev
                                                                        : a->ordinal_next;
    if (!c || !c->value)
        return 0;
    strbuf_addstr(answer, c->value);
    return 1;
}

/* The planted model's answer: the gold's, a hard negative's value, or "I don't know". */
static void decide(const struct sim_gen *g, const struct sim_analysis *a, struct strbuf *answer,
                   struct sim_logrec *l)
{
    if (a->q && decide_abstain(g, a, answer, l))
        return;
    if (a->q) {
        double p = a->gold ? sim_axes_p(g->model, a->x, a->T, &a->features) : 0;
        double u = sim_model_draw(g->model, a->q->id, a->gold ? a->x : 0, a->T, a->salt);
        l->p = p;
        l->u = u;
        if (u < p && ordinal_slip(g->model, a, answer)) {
            l->outcome = "neighbour";
        } else if (u < p) {
            /* an ordinal question wants the one value it names, never the list */
            if (a->features.ordinal_n || !sim_needle_answer(a->q, &g->prompt, answer))
                strbuf_addstr(answer, a->q->answers.v[0]);
            l->outcome = "correct";
        } else if (a->negative) {
            strbuf_addstr(answer, a->negative->value);
            l->outcome = "negative";
        } else {
            strbuf_addstr(answer, IDK);
            l->outcome = "idk";
        }
    } else {
        strbuf_addstr(answer, IDK);
        l->outcome = "unrecognised";
    }
}

/* The answer within the budget: thinking first (--think), reasoning only (--reasoning), or cut. */
static void spend_budget(struct sim_server *s, const struct sim_gen *g,
                         const struct sim_analysis *a, struct gen_answer *ans, struct sim_logrec *l)
{
    const struct sim_config *cfg = s->cfg;
    if (g->think > 0) {
        think_then_answer(s, g, a, &ans->text, &ans->reasoning, &ans->ctok, &ans->rtok,
                          &ans->inline_form, &ans->finish, l);
    } else if (cfg->reasoning > 0 &&
               sim_to_unit(sim_mix64(sim_mix64(g->model->seed ^ 0x7ea5011ULL) ^ a->salt ^
                                     (a->q ? fnv64_str(FNV64_INIT, a->q->id) : 0))) <
                   cfg->reasoning) {
        ans->reasoning_only = 1;
        strbuf_addstr(&ans->reasoning,
                      "The user wants the answer to a question about the documents. "
                      "Let me go through the documents one by one and check "
                      "which of them mentions it. The first document says");
        ans->ctok = g->max_tokens > 0 ? g->max_tokens : REASONING_TOKENS;
        ans->finish = "length";
        l->outcome = "empty";
    } else {
        cut_answer(s, &ans->text, g->max_tokens, &ans->ctok, &ans->finish);
    }
}

/* The chat.completion or text_completion object, usage and (--timings) llama.cpp's timings. */
static struct json *completion_json(struct sim_server *s, const struct sim_gen *g, long T,
                                    const struct gen_answer *ans)
{
    const struct sim_config *cfg = s->cfg;
    struct json *root = json_new_object(), *choice = json_new_object(), *usage;
    const char *text = ans->reasoning_only ? "" : ans->text.buf;
    int with_reasoning = ans->reasoning_only || (ans->rtok >= 0 && !ans->inline_form);
    char *id = new_id(s, g->chat ? "chatcmpl" : "cmpl");
    json_add_str(root, "id", id);
    free(id);
    json_add_str(root, "object", g->chat ? "chat.completion" : "text_completion");
    json_add_num(root, "created", (double)time(NULL));
    json_add_str(root, "model", g->model->name);
    json_add(json_add_array(root, "choices"), NULL, choice);
    json_add_num(choice, "index", 0);
    if (g->chat) {
        struct json *msg = json_add_object(choice, "message");
        json_add_str(msg, "role", "assistant");
        json_add_str(msg, "content", text);
        if (with_reasoning)
            json_add_str(msg, "reasoning_content", ans->reasoning.buf);
    } else {
        json_add_str(choice, "text", text);
        if (with_reasoning)
            json_add_str(choice, "reasoning_content", ans->reasoning.buf);
    }
    json_add_null(choice, "logprobs");
    json_add_str(choice, "finish_reason", ans->finish);
    usage = json_add_object(root, "usage");
    json_add_num(usage, "prompt_tokens", (double)T);
    json_add_num(usage, "completion_tokens", (double)ans->ctok);
    json_add_num(usage, "total_tokens", (double)(T + ans->ctok));
    if (ans->reasoning_only || ans->rtok >= 0)
        json_add_num(json_add_object(usage, "completion_tokens_details"), "reasoning_tokens",
                     (double)(ans->rtok >= 0 ? ans->rtok : ans->ctok));
    if (cfg->prefix_cache > 0) /* as vLLM with --enable-prompt-tokens-details, SGLang, OpenAI */
        json_add_num(json_add_object(usage, "prompt_tokens_details"), "cached_tokens",
                     (double)g->cached);
    if (cfg->timings) {
        /* llama.cpp's timings: cache_n + prompt_n = the prompt's tokens */
        struct json *t = json_add_object(root, "timings");
        json_add_num(t, "cache_n", (double)g->cached);
        json_add_num(t, "prompt_n", (double)(T - g->cached));
        json_add_num(t, "prompt_ms", engine_ms(cfg, g) + prefill_ms(cfg, g));
        json_add_num(t, "predicted_n", (double)ans->ctok);
        json_add_num(t, "predicted_ms", decode_ms(cfg, g));
    }
    json_add_str(root, "system_fingerprint", "dipmap-sim");
    return root;
}

static void answer_completion(struct sim_server *s, struct sim_gen *g, struct sim_reply *r,
                              struct sim_logrec *l)
{
    struct sim_analysis a;
    struct gen_answer ans = {STRBUF_INIT, STRBUF_INIT, "stop", 0, -1, 0, 0};

    if (analyse_request(s, g, &a, r, l))
        goto cleanup;
    g->T = a.T;
    if (sim_cache_keeps(s->cache))
        cache_ids(s, g); /* tokenized on arrival, as a server does before queueing the request */
    /* with the shared engine the cache is looked up when the request's prefill starts */
    if (s->cfg->prefill_throughput > 0 && engine_enter(s, g, l)) {
        r->drop = 1; /* shutting down while waiting for the engine */
        goto cleanup;
    }
    if (cache_lookup(s, g)) {
        r->drop = 1; /* shutting down while waiting for a slot */
        goto cleanup;
    }
    l->cached = g->cached;
    l->slot = sim_cache_slots(s->cache) ? g->slot : -1;
    decide(g, &a, &ans.text, l);
    spend_budget(s, g, &a, &ans, l);
    g->ctok = ans.ctok;
    sim_json_reply(r, 200, completion_json(s, g, a.T, &ans));
    l->finish = ans.finish;
cleanup:
    strbuf_release(&ans.text);
    strbuf_release(&ans.reasoning);
}

/*
 * The server's time for a request, after its answer is made: its turn on the shared prefill
 * engine (--prefill-throughput; the engine is held for that alone), then the per-request part
 * (--latency-ms, --prefill-ms-per-1k); then the prompt is in the cache (a streamed first token
 * would go now); then the decoding (and the "slow" fault). A shutdown drops the answer.
 */
static void serve_time(struct sim_server *s, struct sim_gen *g, enum sim_fault fault,
                       struct sim_reply *r, struct sim_logrec *l)
{
    const struct sim_config *cfg = s->cfg;
    int keep = g->slot >= 0 && g->cache_prompt && r->status == 200;
    if (!r->drop && sim_delay_ms(s, engine_ms(cfg, g)))
        r->drop = 1;
    if (g->engine) {
        if (keep && !r->drop)
            sim_cache_store(s->cache, g->slot, g->ids, g->nids);
        engine_leave(s, g, l);
    }
    if (!r->drop && sim_delay_ms(s, (double)cfg->latency_ms + prefill_ms(cfg, g)))
        r->drop = 1;
    if (!(cfg->prefill_throughput > 0) && keep && !r->drop)
        sim_cache_store(s->cache, g->slot, g->ids, g->nids);
    if (!r->drop &&
        sim_delay_ms(s, decode_ms(cfg, g) + (fault == SIM_FAULT_SLOW ? (double)cfg->slow_ms : 0)))
        r->drop = 1;
}

void sim_handle_generation(struct sim_server *s, int chat, const char *body, size_t len,
                           struct sim_reply *r, struct sim_logrec *l)
{
    struct sim_gen g;
    struct json *req = json_parse(body, len, NULL);
    enum sim_fault fault;

    memset(&g, 0, sizeof(g));
    g.chat = chat;
    g.id_slot = -1;
    g.cache_prompt = 1;
    g.slot = -1;
    if (sim_gen_parse(s, req, &g, r, l))
        goto cleanup;
    fault =
        sim_fault_draw(&s->cfg->faults, s->cfg->fault_seed, atomic_fetch_add(&s->gen_counter, 1));
    l->fault = fault;
    answer_completion(s, &g, r, l);
    sim_fault_apply(s, fault, r);
    serve_time(s, &g, fault, r, l);
cleanup:
    engine_leave(s, &g, l);
    if (g.slot >= 0)
        sim_cache_release(s->cache, g.slot);
    free(g.ids);
    sim_prompt_release(&g.prompt);
    json_free(req);
}

int sim_generate(struct sim_server *s, int chat, const char *body, size_t len, char **out,
                 size_t *out_len)
{
    struct sim_reply r;
    struct sim_logrec l;
    memset(&r, 0, sizeof(r));
    sim_logrec_init(&l, "batch");
    sim_handle_generation(s, chat, body, len, &r, &l);
    sim_write_log(s, &l, r.status);
    json_free(l.extra);
    *out = r.body;
    *out_len = r.len;
    return r.status;
}

/*
 * Before the first trial of `dipmap run`: every length fits the server's
 * context, the first prompt of every length can be built, and the tokens the
 * server adds per request and per turn pair (measured, given or stored).
 *
 * Its error() calls print, though it lives in run/: these are phases of the `run` command
 * (cmd_run.c calls each one in its chain of phases, over the command's own struct run_ctx),
 * kept out of cmd_run.c for its size. Each decides the exit code (c->ret) with the message,
 * as a command does, and no other caller exists (run_cmd.h).
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "base/escape.h"
#include "base/num.h"
#include "client/overhead.h"
#include "prompt/needle_size.h"
#include "run/axes.h"

#include "run/run_cmd.h"
#include "run/trial_send.h"

#include "base/banned.h"

void run_auth_error(struct run_ctx *c, const char *what)
{
    error("run: the endpoint refused the API key: %s", what);
    if (!c->api_key)
        fprintf(stderr, "hint: no API key was sent; set %s\n", c->o.api_key_env);
    else
        fprintf(stderr, "hint: the key in %s was sent and refused; set the one the server takes\n",
                c->o.api_key_env);
    c->ret = DM_EXIT_USAGE;
}

int run_checks_auth(struct run_ctx *c)
{
    struct strbuf what = STRBUF_INIT;
    long status = c->client ? client_auth_refused(c->client, &what) : 0;
    if (!status) {
        strbuf_release(&what);
        return 0;
    }
    strbuf_addf(&what, " answered HTTP %ld", status);
    run_auth_error(c, what.buf);
    strbuf_release(&what);
    return -1;
}

/*
 * Every length plus --max-tokens must fit the server's context (when known):
 * all the lengths that do not are named at once, so one correction is enough.
 * With --no-context-check they are sent anyway and recorded as overflows.
 */
int run_checks_context(struct run_ctx *c)
{
    struct strbuf bad = STRBUF_INIT;
    size_t i, nbad = 0;
    long ctx = c->pinfo.context, first = 0;

    if (ctx <= 0)
        return 0;
    for (i = 0; i < c->nl; i++)
        if (c->lengths[i] + c->o.max_tokens > ctx) {
            strbuf_addf(&bad, "%s%ld (needs %ld)", nbad ? ", " : "", c->lengths[i],
                        c->lengths[i] + c->o.max_tokens);
            if (!nbad++)
                first = c->lengths[i];
        }
    if (!nbad) {
        strbuf_release(&bad);
        return 0;
    }
    if (c->o.context_check) {
        long need = 0;
        for (i = 0; i < c->nl; i++)
            if (c->lengths[i] + c->o.max_tokens > need)
                need = c->lengths[i] + c->o.max_tokens;
        if (nbad == 1)
            error("run: length %ld plus --max-tokens %ld needs %ld tokens, but the server's "
                  "context is %ld",
                  first, c->o.max_tokens, first + c->o.max_tokens, ctx);
        else
            error("run: the server's context is %ld tokens; with --max-tokens %ld, %zu of %zu "
                  "lengths do not fit: %s",
                  ctx, c->o.max_tokens, nbad, c->nl, bad.buf);
        if (c->pinfo.kind == CLIENT_SERVER_LLAMACPP && c->pinfo.slots > 1)
            fprintf(stderr,
                    "hint: llama.cpp splits -c across its slots: this server has %d slots of "
                    "%ld tokens (-c %ld -np %d); for %ld tokens a request start it with -c %ld "
                    "-np %d, or -np 1 -c %ld\n",
                    c->pinfo.slots, ctx, ctx * c->pinfo.slots, c->pinfo.slots, need,
                    need * c->pinfo.slots, c->pinfo.slots, need);
        else if (c->pinfo.kind == CLIENT_SERVER_LLAMACPP && c->pinfo.slots < 0)
            fprintf(stderr,
                    "hint: llama.cpp splits -c across its slots (-np): the context above is one "
                    "slot's; for %ld tokens a request give -c %ld times -np\n",
                    need, need);
        fprintf(stderr, "hint: lower --lengths or --max-tokens (or --no-context-check "
                        "to send anyway and record overflows)\n");
        strbuf_release(&bad);
        return -1;
    }
    warning("lengths %s plus %ld answer tokens exceed the server's context of %ld; "
            "those trials will be recorded as overflow",
            bad.buf, c->o.max_tokens, ctx);
    strbuf_release(&bad);
    return 0;
}

/*
 * --distractors hard over questions without hard negatives (golden set "distractors"): their
 * hard prompts are the haystack ranked by BM25 only (docs/axes.md "Distractor difficulty"), said
 * once, so that a set whose hard negatives were lost (a misspelled field, another converter)
 * does not pass for one that has them.
 */
static void warn_hard_without_negatives(const struct run_ctx *c)
{
    size_t i, v, q, none = 0;
    for (i = 0; i < c->axes_nr; i++)
        for (v = 0; !strcmp(c->axes[i].name, "distractors") && v < c->axes[i].values_nr; v++)
            if (!strcmp(c->axes[i].values[v], "hard")) {
                for (q = 0; q < c->gs.nr; q++)
                    none += c->gs.q[q].distractors_nr == 0;
                break;
            }
    if (!none)
        return;
    if (none == c->gs.nr)
        warning("--distractors hard: no question of %s has hard negatives (golden set "
                "\"distractors\"): its hard prompts are the haystack ranked by BM25 only",
                c->o.dataset);
    else
        warning("--distractors hard: %zu of %zu questions of %s have no hard negatives (golden "
                "set \"distractors\"): their hard prompts are the haystack ranked by BM25 only",
                none, c->gs.nr, c->o.dataset);
}

/* One --needle-tokens axis: run_checks_needle_tokens(). */
static int check_needle_tokens(struct run_ctx *c, const struct plan_axis *ax)
{
    struct strbuf text = STRBUF_INIT, why = STRBUF_INIT;
    size_t k;
    int ret = 0;
    for (size_t v = 0; v < ax->values_nr && !ret; v++)
        for (size_t q = 0; q < c->gs.nr && !ret; q++) {
            long n = 0;
            (void)parse_long(ax->values[v], &n);
            strbuf_reset(&text);
            if (needle_size_text(c->tk, c->have_hay ? &c->hay : NULL, &c->gs.q[q], n, &text, &k,
                                 &why) < 0) {
                error("%s:%ld: %s", c->o.dataset, c->gs.q[q].line, why.buf);
                ret = -1;
            }
        }
    strbuf_release(&text);
    strbuf_release(&why);
    return ret;
}

int run_checks_needle_tokens(struct run_ctx *c)
{
    for (size_t i = 0; i < c->axes_nr; i++)
        if (!strcmp(c->axes[i].name, NEEDLE_TOKENS_AXIS) && check_needle_tokens(c, &c->axes[i]) < 0)
            return -1;
    return 0;
}

/* 1 when the template's [system] or [user] text holds phrase (as the abstention detector reads). */
static int template_says(const struct prompt_template *t, const char *phrase)
{
    struct abstain_rule r = {phrase, NULL, 0};
    struct strbuf err = STRBUF_INIT;
    int hit = score_abstained(&r, t->system, &err) > 0 || score_abstained(&r, t->user, &err) > 0;
    strbuf_release(&err);
    return hit;
}

/*
 * The named axes against the inputs: --needles N and --hops 2 need that many gold chunks in
 * every question, --question-at a template with the question's slots, --layout other than
 * documents chat requests; --distractors hard without hard negatives is said.
 */
int run_checks_axes(struct run_ctx *c)
{
    size_t i;

    warn_hard_without_negatives(c);

    for (i = 0; i < c->axes_nr; i++)
        for (size_t v = 0; !strcmp(c->axes[i].name, "needles") && v < c->axes[i].values_nr; v++)
            for (size_t q = 0; q < c->gs.nr; q++) {
                unsigned long k = 0;
                (void)parse_ulong(c->axes[i].values[v], &k);
                if (c->gs.q[q].gold_nr < k) {
                    error("%s:%ld: question %s has %zu gold chunk%s; --needles %lu needs as "
                          "many (each with a \"value\")",
                          c->o.dataset, c->gs.q[q].line, c->gs.q[q].id, c->gs.q[q].gold_nr,
                          c->gs.q[q].gold_nr == 1 ? "" : "s", k);
                    return -1;
                }
            }
    for (i = 0; i < c->axes_nr; i++)
        for (size_t v = 0; !strcmp(c->axes[i].name, "ordinal") && v < c->axes[i].values_nr; v++)
            for (size_t q = 0; q < c->gs.nr; q++) {
                unsigned long n = 0;
                size_t k = prompt_ordinal_target(&c->gs.q[q]);
                (void)parse_ulong(c->axes[i].values[v], &n);
                if (c->gs.q[q].gold_nr < n || !k || k > n) {
                    error("%s:%ld: \"gold\": question %s has %zu gold chunk%s, its answer the "
                          "value of occurrence %zu (0: of none); --ordinal %lu needs %lu gold "
                          "chunks and the answer's occurrence within them (dipmap gen ordinal "
                          "--max-occurrence K writes such sets)",
                          c->o.dataset, c->gs.q[q].line, c->gs.q[q].id, c->gs.q[q].gold_nr,
                          c->gs.q[q].gold_nr == 1 ? "" : "s", k, n, n);
                    return -1;
                }
            }
    for (i = 0; i < c->axes_nr; i++)
        for (size_t v = 0; !strcmp(c->axes[i].name, "question-at") && v < c->axes[i].values_nr;
             v++) {
            const char *missing = prompt_question_at_check(&c->tpl, c->axes[i].values[v]);
            if (missing) {
                error("run: --question-at %s: template %s has no line with {question} %s "
                      "{documents} in [user] (the question slots; prompts/qa-both.txt has both)",
                      c->axes[i].values[v], c->tpl_path.buf, missing);
                return -1;
            }
        }
    for (i = 0; i < c->axes_nr; i++)
        for (size_t q = 0; !strcmp(c->axes[i].name, "hops") && q < c->gs.nr; q++)
            if (c->gs.q[q].gold_nr < 2) {
                error("%s:%ld: \"gold\": question %s has %zu gold chunk; --hops 2 needs two "
                      "(needle A, then needle B)",
                      c->o.dataset, c->gs.q[q].line, c->gs.q[q].id, c->gs.q[q].gold_nr);
                return -1;
            }
    if (c->absent > 0 && !template_says(&c->tpl, c->abstain.phrase)) {
        error("run: --absent: template %s never tells the model what to say when the answer "
              "is missing (no \"%s\" in [system] or [user]); use --template qa-absent, add "
              "that sentence, or name the template's own words with --abstain-phrase",
              c->tpl_path.buf, c->abstain.phrase);
        return -1;
    }
    for (i = 0; i < c->axes_nr; i++)
        for (size_t v = 0; !strcmp(c->axes[i].name, "layout") && v < c->axes[i].values_nr; v++)
            if (c->o.completions && strcmp(c->axes[i].values[v], "documents")) {
                error("run: --layout %s needs chat requests: its turns are messages, which "
                      "--completions cannot send",
                      c->axes[i].values[v]);
                return -1;
            }
    return 0;
}

/*
 * The first planned trial of the shortest planned length, built without an
 * overhead: the longer of the two requests the overhead is measured on.
 * Returns 0, or -1 when it cannot be built (run_checks_lengths() says why).
 */
static int build_shortest_trial(struct run_ctx *c, struct built_prompt *bp)
{
    struct prompt_builder *pb = prompt_builder_new(c->tk, &c->tpl, c->have_hay ? &c->hay : NULL);
    struct prompt_request pr;
    struct strbuf axes = STRBUF_INIT;
    size_t ti, best = 0;
    int rc;
    for (ti = 1; ti < c->plan.nr; ti++)
        if (c->plan.t[ti].length < c->plan.t[best].length)
            best = ti;
    prompt_request_for_trial(&pr, &c->gs.q[c->plan.t[best].question], &c->plan.t[best],
                             (unsigned long)c->o.seed, c->o.max_tokens, !c->o.completions);
    pr.overhead = 0;
    if (axes_find(pr.axes, "layout", &(size_t){0})) {
        /* the template as written: one system and one user message (turns are counted apart) */
        axes_set(&axes, pr.axes, "layout", "documents");
        pr.axes = axes.buf;
    }
    strbuf_reset(&c->err);
    rc = prompt_build(pb, &pr, bp, &c->err);
    prompt_builder_free(pb);
    strbuf_release(&axes);
    return rc;
}

/*
 * The layout axis (docs/layouts-and-imports.md "Conversation and tool-output layouts"): the
 * server's tokens per haystack turn pair of each layout the run crosses, measured on whole message
 * lists (overhead_measure_turns()), unless stored with the resumed run. Not fatal, as above.
 */
static int measure_turn_overhead(struct run_ctx *c)
{
    int ret = 0;
    const struct plan_axis *ax = NULL;
    size_t i;

    for (i = 0; i < c->axes_nr; i++)
        if (!strcmp(c->axes[i].name, "layout"))
            ax = &c->axes[i];
    if (ax && !c->turn_overhead_known && c->plan.nr && !c->o.completions) {
        int measured[PROMPT_LAYOUT__COUNT] = {0};
        for (i = 0; i < ax->values_nr; i++) {
            int l = prompt_layout_parse(ax->values[i], strlen(ax->values[i]));
            struct prompt_turn_cost tc;
            if (!prompt_layout_in_turns(l))
                continue;
            l = prompt_layouts[l].measured_as; /* tool-long: one pair of the tools layout */
            if (measured[l])
                continue;
            measured[l] = 1;
            strbuf_reset(&c->err);
            if (overhead_measure_turns_question(c->client, c->tk, &c->tpl,
                                                &c->gs.q[c->plan.t[0].question], l, c->overhead,
                                                &tc, &c->err) < 0) {
                if (run_checks_auth(c)) {
                    ret = -1;
                    break;
                }
                warning("cannot measure the tokens the server adds per %s turn pair (%s); "
                        "taking 0",
                        ax->values[i], c->err.buf);
                continue;
            }
            c->turn_cost[l] = tc;
            fprintf(stderr,
                    "turn overhead: %ld tokens per %s turn pair (whole message lists "
                    "counted by the server",
                    tc.per_pair, prompt_layout_name(l));
            if (tc.suffix[0]) {
                struct strbuf e = STRBUF_INIT;
                escape_json_n(&e, tc.suffix, strlen(tc.suffix));
                fprintf(stderr, "; a turn's end merges with the %s the template puts after it",
                        e.buf);
                strbuf_release(&e);
            }
            fprintf(stderr, ")\n");
        }
        for (int l = 0; l < PROMPT_LAYOUT__COUNT; l++)
            c->turn_cost[l] = c->turn_cost[prompt_layouts[l].measured_as];
    }
    free(c->want.settings_json);
    c->want.settings_json = run_ctx_settings(c);
    return ret;
}

/*
 * The tokens the server adds per request (chat template, BOS), measured with
 * the first planned question's request without distractors (overhead.h),
 * unless given, and measured again on the first trial at the shortest length:
 * a template adds the same tokens to both, so overheads that differ (or a
 * negative one) are a tokenizer mismatch, whichever side counts more; it stops
 * the run (exit 2) unless --allow-tokenizer-mismatch. Not fatal when the server
 * cannot count: the first answers' prompt counts catch a mismatch above 2%
 * (mismatch stop). A key the server refuses stops here (run_checks_auth()), so
 * no run is recorded with an overhead that was never measured. A resumed run's
 * stored overhead is measured again: one that differs (a first run that could
 * not count, a server with another template) refuses the resume, since the
 * stored trials were built against it; one the server cannot count now is kept.
 */
int run_checks_overhead(struct run_ctx *c)
{
    struct built_prompt bp2 = BUILT_PROMPT_INIT;
    struct template_overhead ov, ov2;
    struct strbuf why = STRBUF_INIT;
    int chat = !c->o.completions, ret = 0;
    long stored = c->overhead_stored ? c->overhead : -1, measured;

    if (c->overhead >= 0 && stored < 0)
        return measure_turn_overhead(c); /* --template-overhead N */
    c->overhead = stored > 0 ? stored : 0;
    if (!c->plan.nr)
        return 0;
    strbuf_reset(&c->err);
    if (overhead_measure_question(c->client, c->tk, &c->tpl, &c->gs.q[c->plan.t[0].question], chat,
                                  &ov, &c->err) < 0) {
        if (run_checks_auth(c))
            ret = -1;
        else if (stored >= 0)
            warning("cannot measure the tokens the server adds per request again (%s); keeping "
                    "the %ld stored with run '%s'",
                    c->err.buf, stored, c->run_name);
        else
            warning("cannot measure the tokens the server adds per request (%s); taking 0, give "
                    "them with --template-overhead N",
                    c->err.buf);
        goto done;
    }
    if (ov.tokens < 0) {
        strbuf_addf(&why,
                    "tokenizer mismatch: the server counted %ld prompt tokens where the run's "
                    "tokenizer counted %ld for the same request (no template removes tokens)",
                    ov.server_count, ov.local_count);
    } else if (build_shortest_trial(c, &bp2) == 0 &&
               overhead_measure(c->client, c->tk, bp2.system.buf,
                                chat ? bp2.user.buf : bp2.text.buf, chat, &ov2, &c->err) == 0 &&
               !overhead_agree(&ov, &ov2)) {
        strbuf_addf(&why,
                    "tokenizer mismatch: the server counted %ld prompt tokens where the run's "
                    "tokenizer counted %ld for one request (%+ld) and %ld where it counted %ld "
                    "for a longer one (%+ld); a template adds the same tokens to every request, "
                    "so the two tokenizers count the content differently",
                    ov.server_count, ov.local_count, ov.tokens, ov2.server_count, ov2.local_count,
                    ov2.tokens);
    }
    if (run_checks_auth(c)) {
        ret = -1;
        goto done;
    }
    if (why.len && !c->o.allow_mismatch) {
        error("run: %s: the lengths would not be in the model's tokens; use --tokenizer server "
              "or the model's tokenizer (or --allow-tokenizer-mismatch to keep going)",
              why.buf);
        ret = -1;
        goto done;
    }
    if (why.len) {
        warning("%s; template overhead taken as %ld", why.buf, ov.tokens > 0 ? ov.tokens : 0);
        c->mismatch_warned = 1;
    }
    measured = ov.tokens > 0 ? ov.tokens : 0;
    if (stored >= 0 && measured != stored) {
        error("run: cannot resume run '%s': its prompts were built for a template overhead of "
              "%ld tokens per request, but the server adds %ld (%s: the server counts %ld, the "
              "run's tokenizer %ld for the same content), so its stored trials are not at their "
              "lengths for this server",
              c->run_name, stored, measured, client_count_method_name(ov.method), ov.server_count,
              ov.local_count);
        fprintf(stderr,
                "hint: start a new run (another --run NAME, or 'dipmap rm %s' first); "
                "--template-overhead %ld resumes it as it was built\n",
                c->run_name, stored);
        ret = -1;
        goto done;
    }
    c->overhead = measured;
    fprintf(stderr,
            "template overhead: %ld tokens per request (%s: the server counts %ld, the "
            "run's tokenizer %ld for the same content%s)\n",
            c->overhead, client_count_method_name(ov.method), ov.server_count, ov.local_count,
            stored >= 0 ? "; measured again, as stored with the run" : "");
done:
    free(c->want.settings_json);
    c->want.settings_json = run_ctx_settings(c);
    strbuf_release(&why);
    built_prompt_release(&bp2);
    if (ret == 0)
        ret = measure_turn_overhead(c);
    return ret;
}

/*
 * Build the first planned prompt of every length once before anything is
 * recorded: a length the distractor material cannot fill (--lengths 10M)
 * is refused here, not after the run row exists. Every length that fails is named.
 * The request is the runner's (trial_prompt_request()) and the builder the run's own
 * (c->builder, made here and kept for the probe and the run).
 */
int run_checks_lengths(struct run_ctx *c)
{
    struct runner_config rc;
    struct built_prompt bp = BUILT_PROMPT_INIT;
    size_t li, ti;
    int bad = 0;

    if (!c->builder)
        c->builder = prompt_builder_new(c->tk, &c->tpl, c->have_hay ? &c->hay : NULL);
    rc = run_config_runner(c);
    for (li = 0; li < c->nl; li++) {
        struct prompt_request pr;
        for (ti = 0; ti < c->plan.nr && c->plan.t[ti].length != c->lengths[li]; ti++)
            ;
        if (ti == c->plan.nr)
            continue; /* not in this shard */
        trial_prompt_request(&rc, ti, &pr);
        if (pr.overhead < 0)
            pr.overhead = 0; /* the dry run checks before the overhead is measured */
        strbuf_reset(&c->err);
        if (prompt_build(c->builder, &pr, &bp, &c->err) < 0) {
            if (run_checks_auth(c)) {
                bad = 1;
                break;
            }
            error("run: cannot build the prompt of question %s at length %ld, depth %g%%: %s",
                  pr.q->id, pr.target_len, pr.depth_bp / 100.0, c->err.buf);
            bad = 1;
        }
    }
    built_prompt_release(&bp);
    return bad ? -1 : 0;
}

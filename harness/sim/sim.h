#ifndef SIM_H
#define SIM_H

#include <stddef.h>
#include <stdint.h>

struct strbuf;
struct tokenizer;
struct golden_set;

/*
 * The simulated model behind `dipmap serve-sim`: an OpenAI-compatible HTTP
 * server (libmicrohttpd; this is the only module that includes it) whose
 * accuracy as a function of evidence position is planted, plus injectable
 * faults. The planted curve is a pure function, exposed here so unit tests
 * and acceptance tests can compute the accuracy the server plants.
 *
 * ---- The planted model ----------------------------------------------------
 *
 * Prompt text. /v1/completions: the "prompt" string (or the first element of
 * a string array). /v1/chat/completions: the list of message contents, in
 * order (a content that is an array of parts contributes its "text" parts,
 * concatenated). Each message is a separate segment:
 *     T = sum over messages of tokenizer_count(content)
 * i.e. no chat template and no per-message overhead -- the same count as
 * dipmap's prompt builder (system text tokens + user text tokens). /tokenize
 * with "messages" returns this same count, so it equals usage.prompt_tokens.
 *
 * Question. The golden-set question whose "question" text occurs verbatim
 * in the prompt (a template may repeat it; any occurrence counts). When
 * several questions occur, the longest question text wins; equal lengths:
 * the one occurring latest.
 *
 * Gold position. The gold chunk is the first of the question's "gold"
 * chunks (dataset order) whose "text" occurs verbatim in the prompt; its
 * first occurrence is used. Its token offset is
 *     offset = tokens of the messages before it
 *            + tokenizer_count(its message's content up to the chunk's first byte)
 * and the relative position is
 *     x = offset / T            (0 <= x < 1)
 * So x is the gold chunk's start as a fraction of the whole prompt (template
 * text, instructions and question included), not the fraction of
 * distractors before it. The prompt builder's gold_offset marks the start
 * of the gold document's rendered block (its "Document [i] (Title: ...)"
 * header included), a few tokens before the chunk text, so
 * gold_offset / length is slightly smaller than x; the --log lines carry the
 * exact x, T and p for each request (tests/cli/900 reads them).
 *
 * Accuracy. P(x,T) = edge - depth(T) * (1 - |2x - 1|^shape), clamped to
 * [0,1], with depth(T) = dip * clamp(log2(T / 1500) / 4, 0, 1) (depth(T) = dip at
 * every T with flat=1: prompts of different lengths share one curve).
 * A prompt is answered correctly iff u < P(x,T), where u in [0,1) is a
 * deterministic hash of (seed, question id, x bucket, T bucket, salt):
 * x bucket = floor(x * 100) (percent), T bucket = floor(8 * log2(T)), and
 * salt = a 64-bit hash of the prompt text with the gold chunk's bytes left
 * out (it distinguishes repeats, which order the distractors differently,
 * while all depths of one repeat share it). Same prompt and same seed ->
 * the same u, so reruns are identical and two models sharing a seed differ
 * only where their P differ (u < P_a but not u < P_b).
 * When answered correctly the content is the question's first listed answer.
 * Otherwise: the "value" of a hard-negative distractor whose text occurs in
 * the prompt (when several do, one chosen by the same hash), else
 * "I don't know". No gold chunk in the prompt -> never correct.
 * No recognised question -> "I don't know".
 */

/*
 * Planted axis effects (run's named axes, docs/axes.md "Axes"): accuracy drops
 * subtracted from P(x,T) (then clamped) when the prompt shows the feature:
 *   start=S  the question occurs only before the gold chunk (--question-at start)
 *   hard=H   one of the question's own distractors (golden set "distractors") occurs
 *   needles=N  N per gold chunk beyond the first in the prompt (run --needles)
 *   spacing=E  E times the spacing of the needles: with several gold chunks present, the
 *            tokens from the end of the earliest to the start of the latest, over T
 *            (run --spacing)
 *   shuffled=E the haystack chunks in the prompt are out of their source order: at least 3
 *            chunks of serve-sim --haystack occur and fewer than 3/4 of the consecutive pairs
 *            (prompt order) ascend in file order (run --haystack-order shuffled; a run's
 *            usual seeded distractor order counts as shuffled too); needs --haystack
 *   chat=E   the gold chunk is in an earlier conversation turn: a user or assistant message
 *            before the last message (run --layout chat)
 *   tools=E  the gold chunk is in a tool result: a "tool" message (run --layout tools, tool-long)
 *   reversed=E the question's second gold chunk occurs before its first (run --hops 2: needle B
 *            before needle A; spacing=E is then the planted effect of the hop distance)
 *   window=E the dip deepened by E * (1 - |2 fill - 1|), fill = T / --ctx: deepest when
 *            the prompt fills half the served window (run --lengths 25%,50%,90%); no
 *            effect without --ctx
 *   overlap=E  paraphrased evidence is harder: E * (1 - o) * (1 + w(x)) / 2 subtracted, o the
 *            question's lexical overlap with its gold chunk(s) (prompt/overlap.h, the
 *            server's tokenizer), w(x) = 1 - |2x - 1|^shape the dip's shape at the gold's
 *            position: half the drop at the edges, all of it in the middle (NoLiMa: without
 *            literal matches accuracy falls with position as well as length)
 *   size=E   a small gold is harder (run --needle-tokens): E * s(g) * (1 + w(x)) / 2
 *            subtracted, g the tokens of the prompt line that holds the gold (the text between
 *            the newlines around it: the gold's document block in the shipped templates),
 *            s = sim_size_smallness(g), w(x) the dip's shape at the gold: accuracy falls as
 *            the gold gets smaller and the dip deepens (Lost in the Haystack, arXiv
 *            2505.18148). A gold chunk trimmed by --needle-tokens is found by its answer
 *            sentence (prompt/needle_size.h) when its whole text does not occur
 *   lenpen=E length alone hurts: E * clamp(log2(T / 1500) / 4, 0, 1) subtracted from every
 *            prompt (the dip's growth with length: nothing up to 1,500 tokens, all of E from
 *            24,000), whatever fills it (run --arm padding: the length penalty)
 *   distract=E the filler distracts: E subtracted when a chunk of serve-sim --haystack occurs
 *            (run --arm haystack vs padding: the distraction penalty); needs --haystack
 * All default to 0 (no effect), so models without them answer as before.
 * With several gold chunks in the prompt a correct answer lists the "value"
 * of each (dataset order, ", " between) when they all have one (all-of).
 */

/*
 * Question difficulty (icc=R, qseed=N). Every question has a latent difficulty
 * V_q, uniform on [0,1), a hash of (qseed, question id) alone: the same at
 * every depth, length, repeat and axis value (a question that is hard
 * everywhere). Each prompt takes V_q as its draw u with probability sqrt(R)
 * (a second hash of the prompt's draw decides), else its own draw. u stays
 * uniform, so every planted accuracy is unchanged, and two prompts of one
 * question with the same accuracy P agree as
 *     P(both correct) = R P + (1 - R) P^2
 * i.e. the intraclass correlation of their 0/1 outcomes is exactly R (the
 * quantity dipmap plan --icc assumes); across depths with different P it is
 * R min(P1,P2)(1 - max(P1,P2)) / sqrt(P1(1-P1)P2(1-P2)) <= R. R = 0 leaves
 * every draw bit for bit as before. qseed defaults to the model's seed (each
 * model its own hard questions: the question x model interaction a paired
 * comparison cannot cancel); models given the same qseed share them.
 *
 * Middle-only regression (mid=M): M is subtracted from P(x,T) where
 * 0.25 <= x <= 0.75 (the report's middle band), nothing at the edges: with
 * depths 0:100:10 five of eleven depths lose M, so the all-depths accuracy
 * drops by 5/11 M (4.5 pp for M = 0.10, under compare's 5 pp tolerance)
 * while the middle drops by M and the dip grows by M.
 */

/*
 * A model served by the simulator:
 * NAME:edge=E,dip=D,shape=S,seed=N,start=S,hard=H,needles=N,spacing=E,window=E,shuffled=E,
 * overlap=E,chat=E,tools=E,reversed=E,size=E,flat=F,corr=C,icc=R,qseed=N,mid=M,halluc=H,deny=D,
 * ordinal=E,lenpen=E,distract=E.
 */
struct sim_model {
    char *name;      /* owned */
    double edge;     /* accuracy at the edges, 0..1 (default 0.92) */
    double dip;      /* full depth of the dip at long contexts, 0..1 (default 0.40) */
    double shape;    /* > 0; larger = narrower dip (default 1.6) */
    uint64_t seed;   /* default 1 */
    double start;    /* planted drop when the question comes only before the gold, 0..1 */
    double hard;     /* planted drop when a hard negative of the question is present, 0..1 */
    double needles;  /* planted drop per gold chunk beyond the first present, 0..1 */
    int flat;        /* flat=1: the dip is full at every length, depth(T) = dip (default 0) */
    double spacing;  /* planted drop per unit of needle spacing (fraction of T), 0..1 */
    double window;   /* planted dip deepening at half the served window, 0..1 */
    double shuffled; /* planted drop when the haystack is out of source order, 0..1 */
    double corr;     /* correlation of one question's draws across its prompts, 0..1 (default 0) */
    double icc;      /* intraclass correlation of one question's outcomes (question effect), 0..1 */
    uint64_t qseed;  /* seed of the question effect (qseed_set), else the model's seed */
    int qseed_set;
    double mid;      /* planted middle-only drop where 0.25 <= x <= 0.75, 0..1 (default 0) */
    double overlap;  /* planted drop for evidence sharing few tokens with the question, 0..1 */
    double chat;     /* planted drop when the gold is in an earlier conversation turn, 0..1 */
    double tools;    /* planted drop when the gold is in a tool result, 0..1 */
    double reversed; /* planted drop when gold chunk 2 comes before gold chunk 1, 0..1 */
    double size;     /* planted drop for a small gold chunk (its line's tokens), 0..1 */
    /*
     * Abstention (run --absent; docs/effects.md "Needle-absent trials"), only when the prompt
     * tells the model to say "not in the documents" (SIM_ABSTAIN, prompts/qa-absent.txt):
     * halluc=H  with the question's gold absent from the prompt, answer the question's first
     *           answer with probability H (a hallucination), else abstain with the phrase;
     * deny=D    with the gold present, abstain with probability D (a false absence), else answer
     *           as the planted curve says. Each its own draw (sim_model_draw with a salt of
     *           its own). Both 0 by default: a told model abstains exactly when the gold is absent.
     */
    double halluc, deny;
    double ordinal;  /* ordinal needles: P(a correct answer names a neighbouring occurrence
                        instead) = ordinal x log2(N), N the question's notes in the prompt */
    double lenpen;   /* planted drop with length alone (lenpen=E above), 0..1 */
    double distract; /* planted drop when haystack text is present, 0..1 */
};
#define SIM_ABSTAIN "not in the documents"

/* The prompt features the planted axis effects look at (sim_analyse fills them). */
struct sim_features {
    int question_start;  /* gold present and no occurrence of the question after it */
    int hard;            /* a hard negative of the question occurs */
    size_t gold_present; /* the question's gold chunks that occur */
    double spacing;      /* gold_present > 1: tokens from the end of the earliest gold chunk to
                            the start of the latest, over T (0..1); else 0 */
    long ctx;            /* the served window (serve-sim --ctx), 0 = none */
    int shuffled;        /* haystack chunks out of source order (needs sim_config.hay) */
    double overlap;      /* the question's lexical overlap with its gold (prompt/overlap.h),
                            -1 when unknown (no gold in the prompt) */
    int gold_turn;       /* where the gold chunk is: SIM_GOLD_* */
    int reversed;        /* the second gold chunk (needle B) occurs before the first (A) */
    long gold_tokens;    /* tokens of the prompt line holding the gold (0: no gold) */
    /* an ordinal question (scored exact, its answer a gold chunk's value; run --ordinal): the
       gold chunks present (N) and the rank of the answer's chunk among them in prompt order */
    size_t ordinal_n, ordinal_rank;
    int haystack; /* a chunk of serve-sim --haystack occurs (needs sim_config.hay) */
};
/*
 * The message holding the gold chunk (run --layout): the last message or a system message
 * (SIM_GOLD_REQUEST: the documents layout), a user or assistant message before the last (an
 * earlier conversation turn), or a "tool" message (a tool result).
 */
enum { SIM_GOLD_REQUEST = 0, SIM_GOLD_CHAT, SIM_GOLD_TOOL };
/*
 * How small a gold of g tokens is for size=E: clamp(log2(256 / g) / 4, 0, 1) -- 1 at 16 tokens
 * or fewer, 0.5 at 64, 0 at 256 or more; 0 when g <= 0 (no gold).
 */
double sim_size_smallness(long gold_tokens);
/* P(x,T) less the planted effects of the features present, clamped to [0,1]. */
double sim_axes_p(const struct sim_model *m, double x, long T, const struct sim_features *f);

/*
 * Parse "NAME" or "NAME:key=value,..." (keys edge, dip, shape, seed, start, hard, needles, spacing,
 * window, shuffled, overlap, flat, corr, icc, qseed, mid, lenpen, distract; any subset, defaults as
 * above). NAME is non-empty and has no ':' or
 * ','. Returns 0, or -1 with a message appended to err (nothing printed). Release with
 * sim_model_release().
 */
int sim_model_parse(const char *spec, struct sim_model *out, struct strbuf *err);
void sim_model_release(struct sim_model *m);

/* depth(T) = dip * clamp(log2(T/1500)/4, 0, 1); 0 for T <= 0. */
double sim_depth(double dip, long T);
/* P(x,T) for a model (less its mid=M drop in the middle band), clamped to [0,1]; x is clamped. */
double sim_curve_p(const struct sim_model *m, double x, long T);
/* The uniform draw u in [0,1) described above (pure, deterministic). */
double sim_draw(uint64_t seed, const char *question_id, double x, long T, uint64_t salt);
/*
 * The model's draw for a prompt: sim_draw() with corr = 0. With corr = c > 0
 * a Gaussian copula mixes a normal the question shares across its prompts
 * at about the same gold position and length (one per (seed, question,
 * round(log2 T)) and grid point of x every 0.1, interpolated continuously in
 * x) with the prompt's own one (sim_draw's hash):
 *     u = Phi(sqrt(c) z_question(x, T) + sqrt(1 - c) z_prompt)
 * still uniform on [0,1), so P(correct) = P(x,T) less the planted effects is
 * unchanged, but prompts of one question that differ only in an axis value
 * (or a repeat) share most of their randomness, as a real model's outcomes
 * do: the common random numbers a paired design benefits from, while depths
 * a grid step apart stay nearly independent. corr = 1: the prompts of a
 * question at one position and length draw the same u. Then icc = R > 0
 * replaces u by the question's difficulty V_q with probability sqrt(R)
 * (above).
 */
/* The question's difficulty V_q in [0,1) (pure; see icc=R above). */
double sim_question_difficulty(const struct sim_model *m, const char *question_id);
double sim_model_draw(const struct sim_model *m, const char *question_id, double x, long T,
                      uint64_t salt);
/* 1 when the planted model answers correctly: sim_draw(...) < sim_curve_p(...). */
int sim_decide(const struct sim_model *m, const char *question_id, double x, long T, uint64_t salt);

/* ---- Faults --------------------------------------------------------------
 *
 * Each generation request (POST /v1/chat/completions, /v1/completions) draws
 * one fault from a hash of (fault seed, request counter) -- independent of
 * content, so a retry of the same request can succeed. Kinds, in draw order:
 *   429       429 with Retry-After (seconds, integer) and retry-after-ms headers
 *   500       500 with a vLLM error body
 *   503       503 with a llama.cpp "Loading model" body
 *   drop      the connection is closed without any response
 *   truncate  a 200 whose body is shorter than its Content-Length
 *   garbage   a 200 whose body is a completion cut short (not JSON)
 *   slow      a normal answer after slow_ms extra delay
 *   error200  a 200 carrying {"error":{...}} and no choices
 *   html200   a 200 whose body is an HTML page (a proxy's or gateway's glitch)
 * Other routes never fault.
 */
enum sim_fault {
    SIM_FAULT_NONE = 0,
    SIM_FAULT_429,
    SIM_FAULT_500,
    SIM_FAULT_503,
    SIM_FAULT_DROP,
    SIM_FAULT_TRUNCATE,
    SIM_FAULT_GARBAGE,
    SIM_FAULT_SLOW,
    SIM_FAULT_ERROR200,
    SIM_FAULT_HTML200,
    SIM_FAULT__COUNT
};
/* "none", "429", "500", "503", "drop", "truncate", "garbage", "slow", "error200", "html200". */
const char *sim_fault_name(enum sim_fault f);

struct sim_faults {
    double rate[SIM_FAULT__COUNT]; /* rate[SIM_FAULT_NONE] unused */
};

/*
 * Parse "429=0.05,500=0.02,drop=0.01,..." (any subset; rates in [0,1] whose
 * sum is at most 1). Returns 0, or -1 with a message appended to err.
 */
int sim_faults_parse(const char *spec, struct sim_faults *out, struct strbuf *err);
/* The fault of the counter-th generation request (pure). */
enum sim_fault sim_fault_draw(const struct sim_faults *f, uint64_t fault_seed, uint64_t counter);

/* ---- The server ----------------------------------------------------------
 *
 * Routes (a thread per connection; bodies up to 256 MiB, over a 200 MB batch file; else 413):
 *   GET  /health               {"status":"ok"} (never needs the API key)
 *   GET  /v1/models            {"object":"list","data":[{"id",...,"max_model_len" (with ctx)}]}
 *   GET  /v1/models/{id}       one model object, or 404 model_not_found
 *   POST /v1/chat/completions  OpenAI/vLLM chat response; max_completion_tokens or
 *                              max_tokens cut the answer (finish_reason "length")
 *   POST /v1/completions       legacy completions; "prompt" string, [string] or token ids;
 *                              max_tokens defaults to 16 as in OpenAI's API
 *   /v1/files, /v1/batches     the Batch API (sim_batch.c): files create (multipart), list
 *                              (?purpose, ?order, ?after, ?limit), retrieve, content, delete;
 *                              batches create, retrieve, list (?after, ?limit), cancel
 *   POST /tokenize             vLLM {"prompt"} | {"messages"} -> {"count","max_model_len",
 *                              "tokens","token_strs"} (messages counted as above, no BOS;
 *                              max_model_len = ctx or 1048576); llama.cpp {"content",
 *                              "parse_special"=true,"with_pieces"} -> {"tokens":[...]}
 *   POST /detokenize           {"tokens"} -> {"prompt","content"}
 *   GET  /props                llama.cpp: default_generation_settings.n_ctx = ctx or
 *                              shift_ctx (absent when neither), build_info
 * Every answer carries an "x-request-id: req_<32 hex>" header (logged as request_id).
 * Errors are OpenAI's error object {"error":{"message","type","param","code"}}: type
 * "invalid_request_error", param the field at fault or null, code a string or null.
 * "model" absent = the first model; unknown -> 404 {"error":{"message":"The model `X` does
 * not exist or you do not have access to it.","type":"invalid_request_error","param":null,
 * "code":"model_not_found"}}. Bad requests -> 400 ("stream": true and n > 1 are refused);
 * an unknown route 404 "Invalid URL (METHOD PATH)", a known one with another method 405.
 * Over-long (T + max_tokens > ctx) -> 400 {"error":{"message":"This model's maximum context
 * length is N tokens. ...","type":"invalid_request_error","param":"messages",
 * "code":"context_length_exceeded"}}. Missing/wrong key -> 401 (code "invalid_api_key");
 * accepted: "Authorization: Bearer KEY" or "api-key: KEY". The faults keep the shapes of the
 * servers they imitate (500 vLLM's, 503 llama.cpp's, 429 OpenAI's).
 *
 * Request log (log_path): one JSON object per request and line, flushed at once:
 *   ts, route, request_id (the x-request-id sent; none for a batch's lines), status (0 = dropped),
 * model, question_id, x, T (prompt tokens the model saw), sent_tokens (before a context shift), p
 * and u (when a question was recognised), gold (bool), outcome, fault, finish_reason (of an
 * answer), reasoning_effort (as sent), think and think_form (reasoning mode), extra (request fields
 * serve-sim does not use, e.g. chat_template_kwargs), inflight (generation and counting routes:
 * requests of the same kind -- generation, or /tokenize and /apply-template -- in flight when this
 * one arrived, itself included). outcome is what the model answered; fault says whether the answer
 * was delivered (none/slow) or replaced. Outcomes of generation requests: "correct", "negative" (a
 * hard negative's value), "idk", "unrecognised" (no question), "empty" (reasoning only), "starved"
 * (reasoning mode: the thinking reached the budget), "overflow" (ctx 400), "bad_request",
 * "unknown_model"; other routes "ok"; "unauthorised", "too_big", "bad_route".
 */

/* Where the reasoning mode puts its thinking. */
enum sim_think_form {
    SIM_THINK_BOTH = 0, /* alternate by question and position */
    SIM_THINK_FIELD,    /* message.reasoning_content */
    SIM_THINK_INLINE    /* a leading <think>...</think> block in the content */
};
/*
 * What the simulated server adds to a request's token count (usage.prompt_tokens, the --ctx
 * check and the counting routes): --template-overhead N tokens (like a BOS, every request),
 * and with --chat-template chatml the tokens of the rendered ChatML template
 * ("<|im_start|>ROLE\n" CONTENT "<|im_end|>\n" per message, then "<|im_start|>assistant\n")
 * minus those of the messages: a per-message overhead.
 * --tokenize-api: vllm (/tokenize {"prompt"} and {"messages","add_generation_prompt"}),
 * llamacpp (/tokenize {"content","add_special"} and, with chatml, /apply-template
 * {"messages"} -> {"prompt"}), both (default), none (no counting route: clients must probe).
 */
enum sim_chat_template { SIM_TEMPLATE_NONE = 0, SIM_TEMPLATE_CHATML };
enum sim_tokenize_api { SIM_API_BOTH = 0, SIM_API_VLLM, SIM_API_LLAMACPP, SIM_API_NONE };

struct sim_config {
    const char *host;         /* bind address, default "127.0.0.1" */
    int port;                 /* 0 = pick a free port */
    struct sim_model *models; /* borrowed; nr_models >= 1 */
    size_t nr_models;
    struct tokenizer *tokenizer; /* borrowed; required */
    const struct golden_set *gs; /* borrowed; may be NULL (then "I don't know") */
    const struct haystack *hay;  /* borrowed; may be NULL: source order for shuffled=E */
    struct sim_faults faults;
    uint64_t fault_seed;
    long latency_ms;          /* added to every generation request */
    long tokenize_latency_ms; /* added to every POST /tokenize and /apply-template */
    /*
     * Reasoning-model / Azure budget rules: reject_max_tokens answers a chat
     * request that sends "max_tokens" with OpenAI's 400 unsupported_parameter
     * ("Use 'max_completion_tokens' instead."); min_max_tokens > 0 answers a
     * budget below it with a 400 integer_below_min_value naming the field.
     */
    int reject_max_tokens;
    long min_max_tokens;
    long slow_ms;        /* delay of the "slow" fault */
    long retry_after_ms; /* advertised by 429s */
    long ctx;            /* 0 = unlimited; else prompt+max_tokens > ctx -> 400 */
    long shift_ctx;      /* 0 = off; else keep only the last shift_ctx tokens */
    double reasoning;    /* probability of an empty answer with reasoning_content */
    long think_tokens;   /* reasoning mode: thinking before every answer (0 = off) */
    enum sim_think_form think_form;
    int think_stop;         /* thinking that reaches the budget ends with finish_reason "stop" */
    long template_overhead; /* BOS-like tokens added to every request's count */
    enum sim_chat_template chat_template; /* tokens a chat template adds per message */
    enum sim_tokenize_api tokenize_api;   /* which counting routes exist */
    /*
     * Prefix cache and slots (sim_cache.c): prefix_cache tokens kept (per slot with slots;
     * 0 = no cache), slots 0 = unlimited concurrency, one cache (vLLM-like), N = at most N
     * requests at once, one cache each, "id_slot" honoured (llama.cpp-like). A request takes
     * latency_ms + prefill_ms_per_1k per 1000 uncached prompt tokens + decode_ms_per_token
     * per completion token; its prompt enters the cache when the prefill is done.
     * prefill_throughput > 0 (tokens/s) adds one prefill engine all requests share, before
     * the per-request latency: in arrival order, one at a time, each looks its prompt up in the
     * cache when its turn comes and holds the engine for its uncached tokens / prefill_throughput
     * (a GPU's prefill compute is shared; decoding stays per request).
     * usage.prompt_tokens_details.cached_tokens is reported when the cache is on; timings:
     * llama.cpp "timings" {cache_n, prompt_n, prompt_ms, predicted_n, predicted_ms}.
     */
    long prefix_cache;
    int slots;
    double prefill_ms_per_1k;
    double prefill_throughput;
    double decode_ms_per_token;
    int timings;
    /*
     * /v1/models' owned_by (NULL: "dipmap-sim"); any other name but "llamacpp" also drops
     * llama.cpp's /props, so a client detects the server by owned_by alone (e.g. "vllm").
     */
    const char *owned_by;
    /*
     * The Batch API (sim_batch.c): each of validating, in_progress and finalizing lasts
     * batch_delay_ms; shares of lines that expire (batch_expired), fail with a 500 server
     * error, or come back cut short in the output file; the limits per input file
     * (requests, bytes; <= 0 none) past which a batch fails validation.
     */
    long batch_delay_ms;
    double batch_expire, batch_errors, batch_malformed;
    long batch_max_requests, batch_max_bytes;
    const char *api_key;  /* borrowed; NULL = no auth */
    const char *log_path; /* NULL = no request log */
};

/*
 * Defaults for everything but models/tokenizer (host 127.0.0.1, port 0, no
 * faults, slow_ms 5000, retry_after_ms 1000).
 */
void sim_config_init(struct sim_config *cfg);

struct sim_server;

/*
 * Start serving in background threads (one thread per connection). Returns
 * NULL with a message appended to err (e.g. port in use, log unwritable).
 * The config and everything it points to must outlive the server.
 */
struct sim_server *sim_start(const struct sim_config *cfg, struct strbuf *err);
/* The bound TCP port (useful with port 0). */
int sim_port(const struct sim_server *s);
/* Stop: wakes delayed requests, closes connections, joins threads, frees s. */
void sim_stop(struct sim_server *s);

#endif

#ifndef TOKENIZER_H
#define TOKENIZER_H

#include <stddef.h>
#include <stdint.h>

struct strbuf;

/*
 * Exact token counts in a model's own tokens: OpenAI .tiktoken rank files
 * (cl100k_base, o200k_base; byte-level BPE, rank = token id, PCRE2 JIT
 * pre-tokenization) and Hugging Face tokenizer.json BPE models with their
 * whole pipeline (tokenizer_hf*.c: added tokens, normalizers, pre-tokenizers,
 * merges, byte_fallback; GPT-2, Llama 2/3, Gemma, Qwen, DeepSeek, gpt-oss...),
 * giving the ids Hugging Face tokenizers gives; plus "remote" tokenizers that
 * ask the server under test (POST /tokenize) through a caller-provided function.
 * Any file may be gzip-compressed (.gz).
 *
 * Special/added tokens: see tokenizer_set_special() (parse by default for
 * tokenizer.json, plain for .tiktoken).
 *
 * Invalid UTF-8 is accepted. Byte-level models: each maximal run of invalid
 * bytes becomes a piece of its own (byte-level BPE covers all 256 bytes), so
 * decode(encode(x)) == x for any bytes (for NFC/NFKC files: the normal form of
 * the valid parts). Text models (SentencePiece-style): invalid bytes are read
 * as U+FFFD, as a decoder with errors="replace" does.
 *
 * BOS/EOS are never added by encode/count; see tokenizer_bos_tokens().
 */
struct tokenizer;

/* What counts a run's lengths when --tokenizer is not given (run, serve-sim, show-prompt). */
#define TOKENIZER_DEFAULT "cl100k_base"

/*
 * spec: "cl100k_base" or "o200k_base" (datasets/tokenizers/NAME.tiktoken[.gz] in the
 * data search order, base/datadir.h), a path to a
 * .tiktoken file (pattern chosen from the name: o200k* -> o200k, else cl100k),
 * or a path to a Hugging Face tokenizer.json (BPE; WordPiece and Unigram are
 * refused naming --tokenizer server); either may end in .gz.
 * Returns NULL and appends to err (if non-NULL) a message naming the file and
 * the problem; prints nothing. Free with tokenizer_free().
 */
struct tokenizer *tokenizer_load(const char *spec, struct strbuf *err);
void tokenizer_free(struct tokenizer *tk);

/*
 * Special-token text in the input (--special parse|plain). parse: the text of
 * an added/special token becomes its id, matched as Hugging Face tokenizers
 * does (leftmost-longest; lstrip, rstrip, single_word and normalized honoured);
 * plain: special tokens are ordinary text (HF's encode_special_tokens: added
 * tokens that are not "special" are still matched). Default: parse for
 * tokenizer.json files (what vLLM, llama.cpp and SGLang do with the model's
 * tokenizer), plain for .tiktoken files (what OpenAI's API does). Set before
 * concurrent use.
 */
void tokenizer_set_special(struct tokenizer *tk, int parse);
int tokenizer_special_parse(const struct tokenizer *tk);

/*
 * Token count of text with the tokenizer's special-token mode (see
 * tokenizer_set_special(); no BOS). Thread-safe: may be called concurrently from several
 * threads on one tokenizer. Returns -1 only for a remote tokenizer failure,
 * without a message: its callers (the runner's --no-cache-reuse nonce, serve-sim)
 * count 0 then; a caller that must say why uses tokenizer_count_err().
 */
long tokenizer_count(struct tokenizer *tk, const char *text, size_t len);
/* The same, and a remote failure's message is appended to err. */
long tokenizer_count_err(struct tokenizer *tk, const char *text, size_t len, struct strbuf *err);

/* allow_special for tokenizer_encode(): the tokenizer's own mode. */
#define TOKENIZER_SPECIAL_DEFAULT (-1)

/*
 * Encode to token ids (no BOS); allow_special 1 = parse, 0 = plain,
 * TOKENIZER_SPECIAL_DEFAULT = the tokenizer's mode. *ids is malloc'd (caller frees; may be NULL
 * when *n == 0). Returns 0, or -1 for a remote tokenizer (ids are not
 * available remotely). Thread-safe like tokenizer_count().
 */
int tokenizer_encode(struct tokenizer *tk, const char *text, size_t len, int allow_special,
                     uint32_t **ids, size_t *n);

/*
 * Append the bytes of the ids to out. Returns 0, or -1 for an unknown id
 * (the bytes of the ids before it are appended) or a remote tokenizer.
 */
int tokenizer_decode(const struct tokenizer *tk, const uint32_t *ids, size_t n, struct strbuf *out);

/*
 * The bytes of one token (for --pieces). Returns 0 and points *bytes and *len
 * into the tokenizer (valid until tokenizer_free), or -1 for an unknown id.
 */
int tokenizer_token_bytes(const struct tokenizer *tk, uint32_t id, const char **bytes, size_t *len);

/* Id of a special/added token given its text (e.g. "<|im_start|>"), or -1. */
long tokenizer_special_id(const struct tokenizer *tk, const char *text);

/*
 * Tokens the model's own pipeline puts in front of a text when special tokens
 * are added (Hugging Face post_processor TemplateProcessing "single", e.g.
 * Llama 3.1's <|begin_of_text|>). Returns how many and points *ids at them
 * (owned by the tokenizer); 0 for tiktoken encodings and files without BOS.
 */
size_t tokenizer_bos_tokens(const struct tokenizer *tk, const uint32_t **ids);

/* One more than the largest token id (including special tokens); 0 for remote. */
size_t tokenizer_vocab_size(const struct tokenizer *tk);

/* e.g. "cl100k_base", "hf:qwen3/tokenizer.json", "server:<name>". Owned by tk. */
const char *tokenizer_name(const struct tokenizer *tk);
/* sha256 hex of the definition file; "server:<name>" for remote. Owned by tk. */
const char *tokenizer_hash(const struct tokenizer *tk);
/* The Unicode version of the linked PCRE2 (its \p{...} classes split pre-tokenizer text), e.g.
   "14.0.0"; unicode_tables_version() must equal it. */
const char *tokenizer_pcre2_unicode_version(void);
int tokenizer_is_remote(const struct tokenizer *tk);

/*
 * Work units done so far (pieces split, symbols merged, heap pops, added-token
 * trie steps), summed over every finished call: lets a test show that the work
 * grows linearly with the input, without a timer.
 */
uint64_t tokenizer_work(struct tokenizer *tk);

/*
 * Remote (server-side) counting: the HTTP call is done by fn (client.c owns
 * curl); fn returns 0 and sets *count, or -1 and appends a message to err.
 * The tokenizer caches counts in memory keyed by sha256 of the text, so each
 * distinct chunk is counted once (failures are not cached). name is copied;
 * ctx is borrowed and must outlive the tokenizer. fn may be called from
 * several threads at once when tokenizer_count() is.
 */
typedef int (*tokenizer_remote_fn)(void *ctx, const char *text, size_t len, long *count,
                                   struct strbuf *err);
struct tokenizer *tokenizer_new_remote(const char *name, tokenizer_remote_fn fn, void *ctx);

/*
 * Optional persistent cache for remote counts (the run store): lookup returns
 * 0 and sets *count when the sha256 hex of a text is known for this
 * tokenizer's name; store records a new count. Either may be NULL.
 * Set before any concurrent use.
 */
typedef int (*tokenizer_cache_get_fn)(void *ctx, const char *tokenizer_name,
                                      const char *text_sha256_hex, long *count);
typedef void (*tokenizer_cache_put_fn)(void *ctx, const char *tokenizer_name,
                                       const char *text_sha256_hex, long count);
void tokenizer_set_remote_cache(struct tokenizer *tk, tokenizer_cache_get_fn get,
                                tokenizer_cache_put_fn put, void *ctx);

#endif

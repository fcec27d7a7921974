#ifndef SCORE_H
#define SCORE_H

#include <stddef.h>

struct strbuf;

/*
 * Scorers: decide whether one model answer is correct against a question's
 * gold answers. Pure functions of their inputs (the only state is a
 * thread-safe cache of compiled regexes), safe to call from worker threads.
 *
 * Only answers that reached the scorer are scored: trials that ended as
 * overflow/truncated/empty/filtered/error never reach it and are never
 * counted as wrong (see trial.h, stats.h "coverage").
 */
enum scorer_kind {
    SCORER_LITM,     /* Lost-in-the-Middle QA metric: first line, SQuAD-normalised substring */
    SCORER_KV,       /* LitM KV retrieval: case-insensitive substring of the raw output */
    SCORER_CONTAINS, /* normalised containment over the whole answer (default) */
    SCORER_EXACT,    /* whole normalised answer equals a normalised gold answer */
    SCORER_REGEX,    /* PCRE2 pattern (the question's answer_regex) matches the raw answer */
    SCORER_ALL,      /* every gold answer is contained (normalised) in the whole answer */
    SCORER__COUNT
};

#define SCORER_DEFAULT SCORER_CONTAINS

/*
 * Version of the scoring rules: bumped whenever a scorer, the normaliser or
 * the answer/reasoning split changes what is credited, so that runs scored
 * differently are never compared as if they were not (compare refuses them;
 * dipmap rescore brings a run up to date). Runs without a recorded version
 * were scored by version 1 (before the empty-gold and <think> fixes).
 */
#define SCORE_VERSION 2

/* Appends "NAME/VERSION", e.g. "contains/2": what a run records as its scorer_version. */
void score_version(enum scorer_kind kind, struct strbuf *out);

/* "litm", "kv", "contains", "exact", "regex", "all". */
const char *scorer_name(enum scorer_kind kind);
/* Parse a scorer name; returns 0, or -1 for an unknown name (does not print). */
int scorer_parse(const char *name, enum scorer_kind *out);
/* The accepted names joined with ", " (static string, for error messages). */
const char *scorer_names(void);

/*
 * Score one answer. answer may be NULL (treated as ""). answers[0..n-1] are
 * the gold answers (the KV scorer uses answers[0] as the value). regex is the
 * question's answer_regex: required by SCORER_REGEX, ignored otherwise.
 * On success sets *score to 1.0 or 0.0 and returns 0. Returns -1 and appends
 * a reason to err (when non-NULL) for an invalid or missing regex; does not
 * print.
 */
int score_answer(enum scorer_kind kind, const char *answer, const char *const *answers, size_t n,
                 const char *regex, double *score, struct strbuf *err);

/*
 * The scorer of one question: its own "scorer" when it names one (returns -1
 * for an unknown name), else regex when it has an "answer_regex" (the golden
 * set chooses per question, with or without --scorer regex), else the run's.
 * The one place this rule lives: run, rescore and report use it.
 */
int score_resolve(enum scorer_kind run_default, const char *q_scorer, const char *q_regex,
                  enum scorer_kind *out);

/*
 * 1 when a gold answer normalises to "" ("A", "the", "*"): under contains/
 * all/litm it would match any answer, so the golden-set loader refuses it
 * unless the question names the exact or regex scorer. contains and all
 * never credit such a gold; exact compares it with articles kept ("A." is
 * "A", "The" is not), then as trimmed lower-case text; litm keeps the
 * peer's behaviour (matches everything), as the published vectors require.
 */
int score_gold_is_empty(const char *gold);

/*
 * Check that a pattern compiles (for golden-set validation: the caller adds
 * "file:line"). Returns 0, or -1 with the PCRE2 message and offset appended
 * to err. Compiled patterns are cached, so a later score_answer() with the
 * same pattern does not compile again.
 */
int score_regex_check(const char *pattern, struct strbuf *err);

/*
 * The abstention detector of needle-absent trials (run --absent, docs/effects.md "Needle-absent
 * trials"): an answer abstains when it contains the phrase the template tells the model to say
 * when the documents lack the answer (normalised as the contains scorer: case, punctuation and
 * articles do not matter), or when one of the regexes (PCRE2, the raw answer) matches.
 * Borrowed strings. ABSTAIN_PHRASE is the default phrase (prompts/qa-absent.txt says it).
 */
struct abstain_rule {
    const char *phrase;
    const char *const *regex;
    size_t regex_nr;
};
#define ABSTAIN_PHRASE "not in the documents"
/* 1 when answer abstains, 0 when it does not, -1 (err) when a regex is invalid. */
int score_abstained(const struct abstain_rule *r, const char *answer, struct strbuf *err);

/* Free the compiled-regex cache (optional; for leak checkers at exit). */
void score_cache_clear(void);

/*
 * The SQuAD / Lost-in-the-Middle normaliser (lost-in-the-middle.md §5.1):
 * Unicode lower-case as Python str.lower(), delete the 32 ASCII punctuation
 * characters, replace whole words a/an/the (Unicode word boundaries) by a
 * space, collapse Unicode whitespace runs to one space and trim. Input is
 * UTF-8 (invalid bytes are kept as they are). Appends to out.
 */
void score_normalize(const char *s, size_t len, struct strbuf *out);

/*
 * LitM best_subspan_em on the whole text (field best_subspan_em_on_raw of the
 * shared vectors): 1 when some normalised gold answer is a substring of the
 * normalised text (a gold answer normalising to "" matches anything), else 0.
 */
int score_litm_raw(const char *text, const char *const *answers, size_t n);
/* The LitM pipeline (field `score`): first line (split on LF, Unicode strip), then the metric. */
int score_litm(const char *text, const char *const *answers, size_t n);
/* LitM KV: value lower-cased is a substring of the lower-cased raw text. */
int score_kv(const char *text, const char *value);

/* Appends "PCRE2 VERSION" of the library linked at run time (dipmap --version). */
void score_library_version(struct strbuf *out);

#endif

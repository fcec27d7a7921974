#ifndef CONFIG_H
#define CONFIG_H

#include "base/strvec.h"

struct option;
struct strbuf;

/*
 * JSON config files for commands with an option table (`dipmap run --config
 * FILE`). The file is one JSON object whose keys are the command's long option
 * names ("max-tokens"; "max_tokens" is accepted too). Values:
 *   string options   a string, a number, or an array (joined with ',': "lengths": ["8k", 16384])
 *   integer/number   a number or a numeric string
 *   boolean          true/false
 *   repeatable       a string or an array of strings ("endpoint": ["http://a", "http://b"])
 * Flags override the file: an option already set on the command line (its
 * `seen` flag) keeps the flag's value, a repeatable one keeps only the flag's values.
 *
 * Life cycle: config_init(), config_apply_file() any number of times, and
 * config_release() only after the option values are no longer used (string
 * options taken from the file point into the struct).
 */
struct config {
    struct strvec values; /* owned storage behind OPT_STRING values from files */
};

void config_init(struct config *c);
void config_release(struct config *c);

/*
 * Read `path` and set every option of `opts` it names that the command line
 * did not set; those get seen = 2 (1 means "from the command line").
 * Keys listed in `refused` (NULL-terminated, may be NULL) are rejected with
 * the message "<key> cannot be set in a config file" plus `refused_hint`
 * when non-NULL (e.g. the API key, which only comes from the environment).
 * Returns 0, or -1 with one message in err naming the file and the key:
 * unreadable file, bad JSON, not an object, unknown key, wrong value type.
 */
int config_apply_file(struct config *c, const char *path, struct option *opts,
                      const char *const *refused, const char *refused_hint, struct strbuf *err);

/*
 * The effective settings of an option table as one compact JSON object
 * (keys = long option names, only options that have a value: set by flag,
 * file, or a non-empty default). Options named in `exclude` (NULL-terminated,
 * may be NULL) are left out. Returns a malloc'd string; the caller frees it.
 */
char *config_settings_json(const struct option *opts, const char *const *exclude);

#endif

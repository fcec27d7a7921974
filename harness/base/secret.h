#ifndef SECRET_H
#define SECRET_H

#include <stddef.h>

/*
 * The one secret detector: what the client's -v log redacts, what the resume
 * hint redacts, and what the store refuses to keep. A name (a header name, a
 * JSON key, a URL query parameter) is compared lower-case with '-', '_', ' '
 * and '.' removed: it is a credential when it ends in key, token, auth,
 * authorization, password, passwd, secret, cookie, bearer, credential or
 * credentials, or holds secret, passw, cookie, bearer or credential anywhere
 * ("X-Api-Key", "session_token", "X-Amz-Credential"; not "max-tokens").
 */
int secret_name(const char *name, size_t len);

/*
 * A "Name: value" header line of n bytes whose name is a credential: 1 and
 * *name_len = the name's length (before the colon), else 0.
 */
int secret_header(const char *line, size_t n, size_t *name_len);

/*
 * A value that is a credential: "Bearer ..." / "Basic ...", an "sk-..." key
 * of 20 or more characters without spaces, or a "Name: value" header line
 * with a secret name.
 */
int secret_value(const char *v);

/* The environment variable the API key is read from when --api-key-env is not given. */
#define SECRET_DEFAULT_KEY_ENV "OPENAI_API_KEY"

/*
 * The API key every command that talks to an endpoint sends (run, gate's runs, show-prompt and
 * tokenize with --tokenizer server): the value of the environment variable var (the
 * --api-key-env option, default SECRET_DEFAULT_KEY_ENV), NULL when unset or empty (no auth header;
 * a warning when var is not the default, which the user named on purpose). With a key in
 * memory the process makes no core file and is not dumpable (no /proc/PID/environ, no
 * ptrace by other processes of the same user).
 */
const char *secret_api_key(const char *var);

#endif

/*
 * The secret detector (see secret.h): one word list, used by the client,
 * `run` and the store.
 */
#include "base/secret.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include "base/strbuf.h"
#include "base/usage.h"

#include "base/banned.h"

static const char *const secret_suffix[] = {
    "key",    "token",  "auth",   "authorization", "password",    "passwd",
    "secret", "cookie", "bearer", "credential",    "credentials", NULL,
};
static const char *const secret_infix[] = {"secret", "passw",      "cookie",
                                           "bearer", "credential", NULL};

int secret_name(const char *name, size_t len)
{
    struct strbuf n = STRBUF_INIT;
    int i, hit = 0;
    for (size_t k = 0; k < len && name[k]; k++) {
        unsigned char c = (unsigned char)name[k];
        if (c == '-' || c == '_' || c == ' ' || c == '.')
            continue;
        strbuf_addch(&n, tolower(c));
    }
    for (i = 0; secret_suffix[i] && !hit; i++) {
        size_t m = strlen(secret_suffix[i]);
        hit = n.len >= m && !strcmp(n.buf + n.len - m, secret_suffix[i]);
    }
    for (i = 0; secret_infix[i] && !hit; i++)
        hit = strstr(n.buf, secret_infix[i]) != NULL;
    strbuf_release(&n);
    return hit;
}

int secret_header(const char *line, size_t n, size_t *name_len)
{
    const char *colon = memchr(line, ':', n);
    size_t len;
    if (!colon)
        return 0;
    len = (size_t)(colon - line);
    while (len && (line[len - 1] == ' ' || line[len - 1] == '\t'))
        len--;
    if (name_len)
        *name_len = (size_t)(colon - line);
    return secret_name(line, len);
}

int secret_value(const char *v)
{
    size_t len;
    while (*v == ' ' || *v == '\t')
        v++;
    if (!strncasecmp(v, "bearer ", 7) || !strncasecmp(v, "basic ", 6))
        return 1;
    len = strlen(v);
    if (!strncmp(v, "sk-", 3) && len >= 20 && !strchr(v, ' '))
        return 1;
    return strchr(v, ':') && strchr(v, ':') > v && secret_header(v, len, NULL);
}

const char *secret_api_key(const char *var)
{
    const char *key = getenv(var);
    struct rlimit rl = {0, 0};
    if (key && !*key)
        key = NULL;
    if (!key) {
        if (strcmp(var, SECRET_DEFAULT_KEY_ENV))
            warning("environment variable %s (from --api-key-env) is not set; sending no API key",
                    var);
        return NULL;
    }
    (void)setrlimit(RLIMIT_CORE, &rl);
    (void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    return key;
}

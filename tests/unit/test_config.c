/* Unit tests for config.c: JSON config files applied to an option table, flags winning. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/config.h"
#include "base/opt.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/usage.h"

#include "test.h"

static struct strbuf captured = STRBUF_INIT;

static void hook(const char *prefix, const char *msg)
{
    strbuf_addf(&captured, "%s%s\n", prefix, msg);
}

static const char *write_tmp(const char *text)
{
    static char path[256];
    const char *dir = getenv("TMPDIR");
    FILE *fp;
    snprintf(path, sizeof(path), "%s/test_config_%d.json", dir && *dir ? dir : "/tmp",
             (int)getpid());
    fp = fopen(path, "w");
    fputs(text, fp);
    fclose(fp);
    return path;
}

struct vals {
    const char *model, *lengths, *config;
    long conc;
    double temp;
    int dry;
    struct strvec endpoints;
};

#define TABLE(v)                                                                                   \
    {                                                                                              \
        OPT_STRING(0, "model", &(v).model, "NAME", "model"),                                       \
            OPT_STRING(0, "lengths", &(v).lengths, "LIST", "lengths"),                             \
            OPT_LONG(0, "concurrency", &(v).conc, "N", "c"),                                       \
            OPT_DOUBLE(0, "temperature", &(v).temp, "X", "t"),                                     \
            OPT_BOOL(0, "dry-run", &(v).dry, "dry"),                                               \
            OPT_LIST(0, "endpoint", &(v).endpoints, "URL", "ep"),                                  \
            OPT_STRING(0, "config", &(v).config, "FILE", "cfg"), OPT_END()                         \
    }

static void test_apply_all_types(void)
{
    struct vals v = {.conc = 4, .endpoints = STRVEC_INIT};
    struct option opts[] = TABLE(v);
    struct config c;
    const char *argv[] = {"run", "--model", "flagmodel", "--endpoint", "http://flag", NULL};
    struct strvec rest = STRVEC_INIT;
    const char *path;

    CHECK_INT(parse_options(5, argv, opts, NULL, &rest), 0);
    path = write_tmp("{\"model\": \"filemodel\", \"lengths\": [\"1k\", 2048], \"concurrency\": 16,"
                     " \"temperature\": 0.5, \"dry_run\": true,"
                     " \"endpoint\": [\"http://a\", \"http://b\"]}");
    config_init(&c);
    CHECK_INT(config_apply_file(&c, path, opts, NULL, NULL, &captured), 0);
    CHECK_STR(v.model, "flagmodel"); /* flag wins */
    CHECK_STR(v.lengths, "1k,2048");
    CHECK_INT(v.conc, 16);
    CHECK_NEAR(v.temp, 0.5, 1e-12);
    CHECK_INT(v.dry, 1);
    CHECK_INT(v.endpoints.nr, 1); /* the flag's list replaces the file's */
    CHECK_STR(v.endpoints.v[0], "http://flag");
    CHECK_INT(opt_find(opts, "concurrency")->seen, 2);
    {
        char *js = config_settings_json(opts, NULL);
        CHECK(strstr(js, "\"model\":\"flagmodel\"") != NULL);
        CHECK(strstr(js, "\"concurrency\":16") != NULL);
        CHECK(strstr(js, "\"endpoint\":[\"http://flag\"]") != NULL);
        free(js);
    }
    unlink(path);
    config_release(&c);
    strvec_clear(&v.endpoints);
    strvec_clear(&rest);
}

static void test_errors(void)
{
    struct vals v = {.conc = 4, .endpoints = STRVEC_INIT};
    struct option opts[] = TABLE(v);
    struct config c;
    const char *refused[] = {"api-key", NULL};
    const char *path;

    config_init(&c);
    usage_set_hook(hook);

    strbuf_reset(&captured);
    path = write_tmp("{\"modle\": \"x\"}");
    CHECK_INT(config_apply_file(&c, path, opts, refused, NULL, &captured), -1);
    CHECK(strstr(captured.buf, "unknown setting \"modle\"") != NULL);

    strbuf_reset(&captured);
    path = write_tmp("{\"concurrency\": \"many\"}");
    CHECK_INT(config_apply_file(&c, path, opts, refused, NULL, &captured), -1);
    CHECK(strstr(captured.buf, "\"concurrency\" must be an integer") != NULL);

    strbuf_reset(&captured);
    path = write_tmp("{\"api-key\": \"sk-secret\"}");
    CHECK_INT(config_apply_file(&c, path, opts, refused, "use --api-key-env", &captured), -1);
    CHECK(strstr(captured.buf, "cannot be set in a config file; use --api-key-env") != NULL);
    CHECK(strstr(captured.buf, "sk-secret") == NULL);

    strbuf_reset(&captured);
    path = write_tmp("{\n\"model\": \"x\",\n oops}");
    CHECK_INT(config_apply_file(&c, path, opts, refused, NULL, &captured), -1);
    CHECK(strstr(captured.buf, ":3: not valid JSON") != NULL);

    strbuf_reset(&captured);
    path = write_tmp("[1,2]");
    CHECK_INT(config_apply_file(&c, path, opts, refused, NULL, &captured), -1);
    CHECK(strstr(captured.buf, "must be a JSON object") != NULL);

    strbuf_reset(&captured);
    CHECK_INT(config_apply_file(&c, "/nonexistent/x.json", opts, refused, NULL, &captured), -1);
    CHECK(strstr(captured.buf, "cannot read config file /nonexistent/x.json") != NULL);

    usage_set_hook(NULL);
    unlink(path);
    config_release(&c);
    strvec_clear(&v.endpoints);
}

int main(void)
{
    RUN(test_apply_all_types);
    RUN(test_errors);
    strbuf_release(&captured);
    return TEST_EXIT();
}

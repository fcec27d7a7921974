/*
 * libFuzzer target for the config-file parser (config.c config_apply_file):
 * any file content against an option table with every option type, one
 * option already set on the command line and one refused key. A failure
 * must print nothing and leave a message naming the file in err; a success leaves the
 * command-line option untouched, never sets the refused one, and
 * config_settings_json() gives valid JSON.
 * Build and run: `make fuzz-config` (clang, -fsanitize=fuzzer,address,undefined).
 */
#include "fuzz_file.h"

#include <cJSON.h>

#include "base/config.h"
#include "base/opt.h"
#include "base/strvec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *model = NULL, *lengths = NULL, *flag_value = "from-flag", *api_key = NULL;
    long repeats = 0, concurrency = 0;
    double temperature = 0;
    int verbose = 0;
    struct strvec endpoints = STRVEC_INIT;
    struct option opts[] = {
        OPT_GROUP("Run"),
        OPT_STRING('m', "model", &model, "NAME", "model"),
        OPT_STRING(0, "lengths", &lengths, "LIST", "lengths"),
        OPT_STRING(0, "run", &flag_value, "NAME", "run name"),
        OPT_STRING(0, "api-key", &api_key, "KEY", "refused"),
        OPT_LONG(0, "repeats", &repeats, "N", "repeats"),
        OPT_LONG(0, "max-tokens", &concurrency, "N", "max tokens"),
        OPT_DOUBLE(0, "temperature", &temperature, "T", "temperature"),
        OPT_BOOL('v', "verbose", &verbose, "verbose"),
        OPT_LIST(0, "endpoint", &endpoints, "URL", "endpoints"),
        OPT_END(),
    };
    static const char *const refused[] = {"api-key", "api_key", NULL};
    static const char *const exclude[] = {"verbose", NULL};
    struct config c;
    struct strbuf err = STRBUF_INIT;
    const char *path = fuzz_write_file(0, ".json", data, size);
    char *json;
    cJSON *back;

    opts[3].seen = 1; /* --run was given on the command line */
    config_init(&c);
    fuzz_errors_reset();
    if (config_apply_file(&c, path, opts, refused, "use the environment", &err) < 0) {
        if (fuzz_error_count != 0 || !strstr(err.buf, path)) {
            fprintf(stderr, "failure without a message naming the file, or printed:\n%s%s\n",
                    fuzz_errors.buf, err.buf);
            abort();
        }
    } else {
        if (strcmp(flag_value, "from-flag") || opts[3].seen != 1)
            abort(); /* the command line wins */
        if (api_key || opts[4].seen)
            abort(); /* refused keys are never set */
        if (verbose != 0 && verbose != 1)
            abort();
    }
    json = config_settings_json(opts, exclude);
    back = json ? cJSON_Parse(json) : NULL;
    if (!back || !cJSON_IsObject(back) || cJSON_GetObjectItemCaseSensitive(back, "verbose")) {
        fprintf(stderr, "config_settings_json gave: %s\n", json ? json : "(null)");
        abort();
    }
    cJSON_Delete(back);
    free(json);
    strvec_clear(&endpoints);
    config_release(&c);
    strbuf_release(&err);
    return 0;
}

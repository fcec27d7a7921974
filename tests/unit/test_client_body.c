/*
 * Unit tests for client/client_body.c: the exact JSON body of a chat and a completions
 * request, the cache hints appended except those --extra-body sets itself, the reuse key
 * (sha256) blind to the hints, and --extra-body refused when it sets a member dipmap sets.
 */
#include "test.h"

#include "base/sha256.h"
#include "base/strbuf.h"
#include "client/client.h"

static struct client *client_with(const char *extra, int completions)
{
    struct client_config cfg;
    struct strbuf err = STRBUF_INIT;
    struct client *c;
    client_config_init(&cfg);
    strvec_push(&cfg.endpoints, "http://127.0.0.1:1/v1");
    cfg.model = "m";
    cfg.max_tokens = 64;
    cfg.max_tokens_field = CLIENT_MTF_MAX_TOKENS;
    cfg.extra_body = extra;
    cfg.legacy_completions = completions;
    c = client_new(&cfg, &err);
    if (!c)
        fprintf(stderr, "  client_new: %s\n", err.buf);
    client_config_release(&cfg);
    strbuf_release(&err);
    return c;
}

static void test_bodies(void)
{
    struct client *c = client_with(NULL, 0);
    struct client_request req;
    struct client_cache_hints h = {-1, 2, "k1", NULL, 0};
    struct strbuf b = STRBUF_INIT;

    if (!c) {
        test_failed_ = 1;
        return;
    }
    memset(&req, 0, sizeof(req));
    req.system = "be brief";
    req.user = "say \"hi\"";
    req.user_len = strlen(req.user);
    client_request_body(c, &req, &b);
    CHECK_STR(b.buf,
              "{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"be brief\"},"
              "{\"role\":\"user\",\"content\":\"say \\\"hi\\\"\"}],\"temperature\":0,"
              "\"top_p\":1,\"seed\":0,\"max_tokens\":64,\"n\":1,\"stream\":false}");
    CHECK_STR(client_request_path(c), "/v1/chat/completions");
    strbuf_reset(&b);
    req.hints = &h;
    client_request_body(c, &req, &b);
    CHECK(strstr(b.buf, ",\"stream\":false,\"id_slot\":2,\"prompt_cache_key\":\"k1\"}") != NULL);
    client_free(c);

    c = client_with(NULL, 1);
    strbuf_reset(&b);
    req.hints = NULL;
    client_request_body(c, &req, &b);
    CHECK_STR(b.buf, "{\"model\":\"m\",\"prompt\":\"say \\\"hi\\\"\",\"temperature\":0,\"top_p\":1,"
                     "\"seed\":0,\"max_tokens\":64,\"n\":1,\"stream\":false}");
    CHECK_STR(client_request_path(c), "/v1/completions");
    client_free(c);
    strbuf_release(&b);
}

/* an extra body's own id_slot wins (appears once); the reuse key ignores every hint */
static void test_hints_and_key(void)
{
    struct client *c = client_with("{\"id_slot\": 0, \"chat_template_kwargs\": {\"x\": true}}", 0);
    struct client_request req;
    struct client_cache_hints h = {-1, 3, "k2", "salt", 0};
    struct strbuf b = STRBUF_INIT;
    char plain[SHA256_HEX_LEN + 1], hinted[SHA256_HEX_LEN + 1];
    const char *p;
    int n = 0;

    if (!c) {
        test_failed_ = 1;
        return;
    }
    memset(&req, 0, sizeof(req));
    req.user = "q";
    req.user_len = 1;
    client_request_sha256(c, &req, plain);
    req.hints = &h;
    client_request_sha256(c, &req, hinted);
    CHECK_STR(plain, hinted);
    client_request_body(c, &req, &b);
    for (p = b.buf; (p = strstr(p, "\"id_slot\"")); p++)
        n++;
    CHECK_INT(n, 1);
    CHECK(strstr(b.buf, "\"id_slot\":0") != NULL);
    CHECK(strstr(b.buf, "\"chat_template_kwargs\":{\"x\":true}") != NULL);
    CHECK(strstr(b.buf, ",\"cache_salt\":\"salt\",\"prompt_cache_key\":\"k2\"}") != NULL);
    client_free(c);
    strbuf_release(&b);
}

static void test_extra_body_check(void)
{
    struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
    CHECK_INT(client_extra_body_check("{\"top_k\": 5}", &out, &err), 0);
    CHECK_STR(out.buf, "{\"top_k\":5}");
    CHECK_INT(client_extra_body_check("{\"temperature\": 1}", &out, &err), -1);
    CHECK_STR(err.buf, "--extra-body must not set \"temperature\": dipmap sets it (use its own "
                       "option)");
    strbuf_reset(&err);
    CHECK_INT(client_extra_body_check("[1]", &out, &err), -1);
    CHECK(strstr(err.buf, "--extra-body must be a JSON object") == err.buf);
    strbuf_release(&out);
    strbuf_release(&err);
}

int main(void)
{
    RUN(test_bodies);
    RUN(test_hints_and_key);
    RUN(test_extra_body_check);
    return TEST_EXIT();
}

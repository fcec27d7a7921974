/*
 * Client tests: the pure classifier on every error-body shape of the
 * reference; then the real client over real HTTP against
 * tests/servers/fake_openai.py on 127.0.0.1 (port 0). Retry-After parsing is in
 * test_retry_after.c, the pacing in test_throttle.c, reasoning in test_reasoning.c.
 */
#define _GNU_SOURCE
#include "client/client.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "client/client-int.h"
#include "base/strbuf.h"
#include "test.h"
#include "client/throttle.h"
#include "base/utc.h"

/* ------------------------------------------------------------ pure parts */

static void test_names(void)
{
    CHECK_STR(client_class_name(CLIENT_OK), "ok");
    CHECK_STR(client_class_name(CLIENT_OVERFLOW), "overflow");
    CHECK_STR(client_class_name(CLIENT_TRUNCATED), "truncated");
    CHECK_STR(client_class_name(CLIENT_EMPTY), "empty");
    CHECK_STR(client_class_name(CLIENT_STARVED), "starved");
    CHECK_STR(client_class_name(CLIENT_FILTERED), "filtered");
    CHECK_STR(client_class_name(CLIENT_RETRYABLE), "retryable");
    CHECK_STR(client_class_name(CLIENT_FATAL), "fatal");
    CHECK_STR(client_class_name(CLIENT_CLASS__COUNT), "unknown");
    CHECK_STR(client_reason_name(CLIENT_R_RATE_LIMIT), "rate-limit");
    CHECK_STR(client_reason_name(CLIENT_R_BAD_REQUEST), "bad-request");
    for (int i = 0; i < CLIENT_REASON__COUNT; i++)
        CHECK(strcmp(client_reason_name((enum client_reason)i), "unknown") != 0);
    enum client_max_tokens_field f;
    CHECK_INT(client_max_tokens_field_parse("auto", &f), 0);
    CHECK_INT(f, CLIENT_MTF_AUTO);
    CHECK_INT(client_max_tokens_field_parse("max_completion_tokens", &f), 0);
    CHECK_INT(f, CLIENT_MTF_MAX_COMPLETION_TOKENS);
    CHECK_INT(client_max_tokens_field_parse("max_tokens", &f), 0);
    CHECK_INT(f, CLIENT_MTF_MAX_TOKENS);
    CHECK_INT(client_max_tokens_field_parse("n_predict", &f), -1);
}

static void test_normalize(void)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"http://h:8000", "http://h:8000"},
        {"http://h:8000/", "http://h:8000"},
        {"http://h:8000/v1", "http://h:8000"},
        {"http://h:8000/v1/", "http://h:8000"},
        {"https://api.openai.com/v1/chat/completions", "https://api.openai.com"},
        {"http://h/v1/completions", "http://h"},
        {"http://h/proxy/v1", "http://h/proxy"},
        {"https://x.openai.azure.com/openai/deployments/gpt4o/chat/completions",
         "https://x.openai.azure.com/openai/deployments/gpt4o"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct strbuf out = STRBUF_INIT;
        CHECK_INT(client_normalize_base(cases[i].in, &out, NULL), 0);
        CHECK_STR(out.buf, cases[i].out);
        strbuf_release(&out);
    }
    struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
    CHECK_INT(client_normalize_base("ftp://h", &out, &err), -1);
    CHECK(strstr(err.buf, "http://") != NULL);
    CHECK_INT(client_normalize_base("http://", &out, NULL), -1);
    CHECK_INT(client_normalize_base("localhost:8000", &out, NULL), -1);
    strbuf_release(&out);
    strbuf_release(&err);

    CHECK_INT(client_is_reasoning_model("o1"), 1);
    CHECK_INT(client_is_reasoning_model("o3-mini"), 1);
    CHECK_INT(client_is_reasoning_model("o4-mini-2025-04-16"), 1);
    CHECK_INT(client_is_reasoning_model("gpt-5-nano"), 1);
    CHECK_INT(client_is_reasoning_model("openai/o3"), 1);
    CHECK_INT(client_is_reasoning_model("gpt-4o"), 0);
    CHECK_INT(client_is_reasoning_model("llama3:8b"), 0);
    CHECK_INT(client_is_reasoning_model("o1x"), 0);
    CHECK_INT(client_is_reasoning_model("Qwen/Qwen3-8B"), 0);
}

/* Every error-body shape in reference §3 and the overflow messages of §4.4. */
static void test_error_message(void)
{
    static const struct {
        const char *body, *msg, *code;
        int structured;
    } cases[] = {
        /* OpenAI */
        {"{\"error\":{\"message\":\"Incorrect API key\",\"type\":\"invalid_request_error\","
         "\"param\":null,\"code\":\"invalid_api_key\"}}",
         "Incorrect API key", "invalid_api_key", 0},
        /* vLLM current: code is the HTTP status int -> type is more useful */
        {"{\"error\":{\"message\":\"The model `x` does not exist.\",\"type\":\"NotFoundError\","
         "\"param\":null,\"code\":404}}",
         "The model `x` does not exist.", "NotFoundError", 0},
        /* vLLM older / FastChat / SGLang: no wrapper */
        {"{\"object\":\"error\",\"message\":\"bad things\",\"type\":\"BadRequestError\","
         "\"param\":null,\"code\":400}",
         "bad things", "BadRequestError", 0},
        /* llama.cpp */
        {"{\"error\":{\"code\":400,\"message\":\"request (13392 tokens) exceeds the available "
         "context size (8192 tokens), try increasing it\",\"type\":\"exceed_context_size_error\","
         "\"n_prompt_tokens\":13392,\"n_ctx\":8192}}",
         "request (13392 tokens) exceeds the available context size (8192 tokens), try "
         "increasing it",
         "exceed_context_size_error", 0},
        /* Ollama /v1 */
        {"{\"error\":{\"message\":\"model \\\"llama9\\\" not found\",\"type\":\"not_found_error\","
         "\"param\":null,\"code\":null}}",
         "model \"llama9\" not found", "not_found_error", 0},
        /* Ollama native */
        {"{\"error\":\"model 'x' not found\"}", "model 'x' not found", "", 0},
        /* TGI */
        {"{\"error\":\"Input validation error: `inputs` must have less than 4096 tokens. Given: "
         "5000\",\"error_type\":\"validation\"}",
         "Input validation error: `inputs` must have less than 4096 tokens. Given: 5000",
         "validation", 0},
        /* LiteLLM: code as a string "400", type null */
        {"{\"error\":{\"message\":\"litellm.BadRequestError: OpenAIException - {...}\","
         "\"type\":null,\"param\":null,\"code\":\"400\"}}",
         "litellm.BadRequestError: OpenAIException - {...}", "400", 0},
        /* FastAPI */
        {"{\"detail\":\"Not Found\"}", "Not Found", "", 0},
        {"{\"detail\":[{\"loc\":[\"body\",\"messages\"],\"msg\":\"field required\","
         "\"type\":\"value_error.missing\"},{\"msg\":\"second\"}]}",
         "field required; second", "", 0},
        /* top-level message */
        {"{\"message\":\"Too many requests\"}", "Too many requests", "", 0},
        /* raw bodies */
        {"<html><body>502 Bad Gateway</body></html>", "<html><body>502 Bad Gateway</body></html>",
         "", -1},
        {"  upstream\nconnect error  ", "upstream connect error", "", -1},
        {"[1,2,3]", "[1,2,3]", "", -1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct strbuf m = STRBUF_INIT, c = STRBUF_INIT;
        int r = client_error_message(cases[i].body, strlen(cases[i].body), &m, &c);
        if (r != cases[i].structured || strcmp(m.buf, cases[i].msg) || strcmp(c.buf, cases[i].code))
            fprintf(stderr, "  error body case %zu\n", i);
        CHECK_INT(r, cases[i].structured);
        CHECK_STR(m.buf, cases[i].msg);
        CHECK_STR(c.buf, cases[i].code);
        strbuf_release(&m);
        strbuf_release(&c);
    }
    /* long raw bodies are cut */
    {
        struct strbuf big = STRBUF_INIT, m = STRBUF_INIT;
        for (int i = 0; i < 10000; i++)
            strbuf_addch(&big, 'a');
        client_error_message(big.buf, big.len, &m, NULL);
        CHECK(m.len <= 4100);
        strbuf_release(&big);
        strbuf_release(&m);
    }
}

static void test_overflow_messages(void)
{
    static const char *const yes[] = {
        "This model's maximum context length is 8192 tokens. However, your messages resulted in "
        "9000 tokens. Please reduce the length of the messages.",
        "You passed 9000 input tokens and requested 100 output tokens. However, the model's "
        "context length is only 8192 tokens, resulting in a maximum input length of 8092 tokens. "
        "Please reduce the length of the input prompt. (parameter=input_tokens, value=9000)",
        "'max_tokens' or 'max_completion_tokens' is too large: 500. This model's maximum context "
        "length is 4096 tokens and your request has 3900 input tokens (500 > 4096 - 3900).",
        "request (13392 tokens) exceeds the available context size (8192 tokens), try increasing "
        "it",
        "the request exceeds the available context size. try increasing the context size or "
        "enable context shift",
        "the prompt is longer than the context length currently available to the model; shorten "
        "the prompt, adjust the context length in settings, or use a model with a longer context "
        "length",
        "The input (9000 tokens) is longer than the model's context length (8192 tokens).",
        "Requested token count exceeds the model's maximum context length of 8192 tokens. You "
        "requested a total of 9100 tokens: 9000 tokens from the input messages and 100 tokens "
        "for the completion.",
        "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 4000 "
        "`inputs` tokens and 200 `max_new_tokens`",
        "Input validation error: `inputs` must have less than 4096 tokens. Given: 5000",
        "context_length_exceeded",
        "exceed_context_size_error",
    };
    static const char *const no[] = {
        "Incorrect API key provided",
        "Rate limit reached for gpt-4o",
        ("Unsupported parameter: 'max_tokens' is not supported with this model. Use "
         "'max_completion_tokens' instead."),
        "The model `x` does not exist.",
        "",
    };
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (!client_is_overflow_message(yes[i]))
            fprintf(stderr, "  not recognised: %s\n", yes[i]);
        CHECK_INT(client_is_overflow_message(yes[i]), 1);
    }
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
        CHECK_INT(client_is_overflow_message(no[i]), 0);
    CHECK_INT(client_is_overflow_message(NULL), 0);
}

#define CHAT_OK(content, finish)                                                                   \
    "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"model\":\"m-served\","                \
    "\"system_fingerprint\":\"fp_1\",\"choices\":[{\"index\":0,\"message\":{\"role\":"             \
    "\"assistant\",\"content\":" content "},\"finish_reason\":" finish "}],\"usage\":{"            \
    "\"prompt_tokens\":1000,\"completion_tokens\":7,\"total_tokens\":1007}}"

struct ccase {
    long status;
    const char *headers;
    const char *body;
    int legacy;
    long expected;
    enum client_class cls;
    enum client_reason reason;
    const char *error_has; /* substring of r.error, or NULL */
};

static const struct ccase ccases[] = {
    /* successes and their variants */
    {200, NULL, CHAT_OK("\"Paris\"", "\"stop\""), 0, 1000, CLIENT_OK, CLIENT_R_NONE, NULL},
    {200, NULL, CHAT_OK("\"Paris\"", "\"stop\""), 0, 0, CLIENT_OK, CLIENT_R_NONE, NULL},
    {200, NULL, CHAT_OK("\"Paris\"", "\"stop\""), 0, 1020, CLIENT_OK, CLIENT_R_NONE, NULL},
    {200, NULL, CHAT_OK("\"Paris\"", "null"), 0, 0, CLIENT_OK, CLIENT_R_NONE, NULL},
    /* silent truncation: 1000 < 0.98 * 1100 */
    {200, NULL, CHAT_OK("\"Paris\"", "\"stop\""), 0, 1100, CLIENT_TRUNCATED, CLIENT_R_PROMPT_SHORT,
     "1000 prompt tokens"},
    /* an answer cut at the answer budget is an answer (flagged cut), not a truncated prompt */
    {200, NULL, CHAT_OK("\"Par\"", "\"length\""), 0, 1000, CLIENT_OK, CLIENT_R_NONE, NULL},
    /* budget spent with nothing shown: starved */
    {200, NULL, CHAT_OK("null", "\"length\""), 0, 1000, CLIENT_STARVED, CLIENT_R_LENGTH,
     "no answer after the reasoning"},
    /* an inline <think> block is reasoning: nothing after it = starved, even with "stop" */
    {200, NULL, CHAT_OK("\"<think>the answer may be Paris</think>\"", "\"stop\""), 0, 1000,
     CLIENT_STARVED, CLIENT_R_NONE, "finish_reason stop"},
    {200, NULL, CHAT_OK("\"<think>the answer may be Paris\"", "\"length\""), 0, 1000,
     CLIENT_STARVED, CLIENT_R_LENGTH, NULL},
    {200, NULL, CHAT_OK("\"<think>hmm</think>\\n\\nParis\"", "\"stop\""), 0, 1000, CLIENT_OK,
     CLIENT_R_NONE, NULL},
    {200, NULL, CHAT_OK("\"  \\n\"", "\"stop\""), 0, 1000, CLIENT_EMPTY, CLIENT_R_NONE, NULL},
    {200, NULL, CHAT_OK("\"\"", "\"content_filter\""), 0, 1000, CLIENT_FILTERED, CLIENT_R_NONE,
     "content_filter"},
    {200, NULL, CHAT_OK("\"partial\"", "\"content_filter\""), 0, 1000, CLIENT_FILTERED,
     CLIENT_R_NONE, NULL},
    {200, NULL, CHAT_OK("\"x\"", "\"error\""), 0, 1000, CLIENT_RETRYABLE, CLIENT_R_SERVER_ERROR,
     NULL},
    /* refusal with no content */
    {200, NULL,
     "{\"choices\":[{\"index\":0,\"message\":{\"content\":null,\"refusal\":\"I can't\"},"
     "\"finish_reason\":\"stop\"}]}",
     0, 0, CLIENT_FILTERED, CLIENT_R_NONE, "refusal"},
    /* legacy completions */
    {200, NULL,
     "{\"choices\":[{\"text\":\" Paris\",\"index\":0,\"finish_reason\":\"stop\"}],"
     "\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":2}}",
     1, 10, CLIENT_OK, CLIENT_R_NONE, NULL},
    /* choices out of order: index 0 is used */
    {200, NULL,
     "{\"choices\":[{\"index\":1,\"message\":{\"content\":\"B\"},\"finish_reason\":\"length\"},"
     "{\"index\":0,\"message\":{\"content\":\"A\"},\"finish_reason\":\"stop\"}]}",
     0, 0, CLIENT_OK, CLIENT_R_NONE, NULL},
    /* broken 2xx bodies: retry */
    {200, NULL, "{\"choices\":[{\"index\":0,\"mess", 0, 0, CLIENT_RETRYABLE, CLIENT_R_BAD_BODY,
     "not a JSON object"},
    /* an HTML page (a proxy's glitch, or a login page): retried; the runner stops on
       CLIENT_HTML_ANSWERS_MAX in a row (html_page) */
    {200, NULL, "<html><body>Sign in</body></html>", 0, 0, CLIENT_RETRYABLE, CLIENT_R_BAD_BODY,
     "HTML page"},
    {200, NULL, "", 0, 0, CLIENT_RETRYABLE, CLIENT_R_BAD_BODY, NULL},
    {200, NULL, "{\"choices\":[]}", 0, 0, CLIENT_RETRYABLE, CLIENT_R_BAD_BODY, "choices"},
    {200, NULL, "{\"choices\":", 0, 0, CLIENT_RETRYABLE, CLIENT_R_BAD_BODY, NULL},
    {200, NULL, "{\"choices\":[{\"index\":0}]}", 0, 0, CLIENT_RETRYABLE, CLIENT_R_BAD_BODY, NULL},
    /* a 200 carrying an error object (TGI 2.4) */
    {200, NULL, "{\"error\":\"Request failed during generation: Server error\"}", 0, 0,
     CLIENT_RETRYABLE, CLIENT_R_ERROR_IN_BODY, "Server error"},
    /* found by fuzzing: an empty error string still gives a message */
    {200, NULL, "{\"error\":\"\"}", 0, 0, CLIENT_RETRYABLE, CLIENT_R_ERROR_IN_BODY, "error object"},
    {200, NULL, "{\"error\":{\"message\":\"overloaded\",\"code\":503}}", 0, 0, CLIENT_RETRYABLE,
     CLIENT_R_ERROR_IN_BODY, "overloaded"},
    {200, NULL,
     "{\"error\":\"Input validation error: `inputs` must have less than 4096 tokens. Given: "
     "5000\",\"error_type\":\"validation\"}",
     0, 0, CLIENT_OVERFLOW, CLIENT_R_NONE, "4096"},
    /* overflow by server */
    {400, NULL,
     "{\"error\":{\"message\":\"This model's maximum context length is 8192 tokens. However, your "
     "messages resulted in 9000 tokens.\",\"type\":\"invalid_request_error\",\"param\":"
     "\"messages\",\"code\":\"context_length_exceeded\"}}",
     0, 0, CLIENT_OVERFLOW, CLIENT_R_NONE, "8192"},
    {400, NULL,
     "{\"error\":{\"message\":\"You passed 9000 input tokens and requested 100 output tokens. "
     "However, the model's context length is only 8192 tokens\",\"type\":\"BadRequestError\","
     "\"param\":\"input_tokens\",\"code\":400}}",
     0, 0, CLIENT_OVERFLOW, CLIENT_R_NONE, NULL},
    {400, NULL,
     "{\"object\":\"error\",\"message\":\"This model's maximum context length is 4096 tokens. "
     "However, you requested 5000 tokens\",\"type\":\"BadRequestError\",\"param\":null,\"code\":"
     "400}",
     0, 0, CLIENT_OVERFLOW, CLIENT_R_NONE, NULL},
    {400, NULL,
     "{\"error\":{\"code\":400,\"message\":\"request (13392 tokens) exceeds the available context "
     "size (8192 tokens), try increasing it\",\"type\":\"exceed_context_size_error\","
     "\"n_prompt_tokens\":13392,\"n_ctx\":8192}}",
     0, 0, CLIENT_OVERFLOW, CLIENT_R_NONE, "13392"},
    {400, NULL,
     "{\"error\":{\"message\":\"the prompt is longer than the context length currently available "
     "to the model\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":null}}",
     0, 0, CLIENT_OVERFLOW, CLIENT_R_NONE, NULL},
    {400, NULL,
     "{\"object\":\"error\",\"message\":\"The input (9000 tokens) is longer than the model's "
     "context length (8192 tokens).\",\"type\":\"BadRequestError\",\"code\":400}",
     0, 0, CLIENT_OVERFLOW, CLIENT_R_NONE, NULL},
    {422, NULL,
     "{\"error\":\"Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. "
     "Given: 4000 `inputs` tokens and 200 `max_new_tokens`\",\"error_type\":\"validation\"}",
     0, 0, CLIENT_OVERFLOW, CLIENT_R_NONE, NULL},
    {413, NULL, "<html>413 Request Entity Too Large</html>", 0, 0, CLIENT_OVERFLOW, CLIENT_R_NONE,
     "413"},
    {400, NULL,
     "{\"error\":{\"message\":\"litellm.ContextWindowExceededError: ... maximum context length "
     "...\",\"type\":null,\"param\":null,\"code\":\"400\"}}",
     0, 0, CLIENT_OVERFLOW, CLIENT_R_NONE, NULL},
    /* rate limits and quota */
    {429, "Retry-After: 2\r\n",
     "{\"error\":{\"message\":\"Rate limit reached for requests\",\"type\":\"requests\","
     "\"param\":null,\"code\":\"rate_limit_exceeded\"}}",
     0, 0, CLIENT_RETRYABLE, CLIENT_R_RATE_LIMIT, "Rate limit"},
    {429, NULL, "", 0, 0, CLIENT_RETRYABLE, CLIENT_R_RATE_LIMIT, NULL},
    {429, NULL,
     "{\"error\":{\"message\":\"You exceeded your current quota, please check your plan and "
     "billing details.\",\"type\":\"insufficient_quota\",\"param\":null,\"code\":"
     "\"insufficient_quota\"}}",
     0, 0, CLIENT_FATAL, CLIENT_R_QUOTA, "quota"},
    /* transient */
    {408, NULL, "", 0, 0, CLIENT_RETRYABLE, CLIENT_R_HTTP_RETRYABLE, NULL},
    {409, NULL, "{\"message\":\"conflict\"}", 0, 0, CLIENT_RETRYABLE, CLIENT_R_HTTP_RETRYABLE,
     "conflict"},
    {500, NULL, "{\"error\":{\"message\":\"boom\",\"type\":\"server_error\",\"code\":500}}", 0, 0,
     CLIENT_RETRYABLE, CLIENT_R_SERVER_ERROR, "boom"},
    /* llama.cpp's chat parser rejecting the model's output: its own reason (retried once) */
    {500, NULL,
     "{\"error\":{\"code\":500,\"message\":\"Failed to parse input at pos 7: <tool_call>x\","
     "\"type\":\"server_error\"}}",
     0, 0, CLIENT_RETRYABLE, CLIENT_R_OUTPUT_PARSE, "Failed to parse input at pos 7"},
    {502, NULL, "<html>502 Bad Gateway</html>", 0, 0, CLIENT_RETRYABLE, CLIENT_R_SERVER_ERROR,
     "Bad Gateway"},
    {503, NULL,
     "{\"error\":{\"code\":503,\"message\":\"Loading model\",\"type\":\"unavailable_error\"}}", 0,
     0, CLIENT_RETRYABLE, CLIENT_R_SERVER_ERROR, "Loading model"},
    {503, NULL, "{\"error\":\"server busy, please try again.  maximum pending requests exceeded\"}",
     0, 0, CLIENT_RETRYABLE, CLIENT_R_SERVER_ERROR, "busy"},
    {504, NULL, "", 0, 0, CLIENT_RETRYABLE, CLIENT_R_SERVER_ERROR, "504"},
    /* fatal for the run */
    {401, NULL,
     "{\"error\":{\"message\":\"Incorrect API key provided: sk-abc***xyz.\",\"type\":"
     "\"invalid_request_error\",\"param\":null,\"code\":\"invalid_api_key\"}}",
     0, 0, CLIENT_FATAL, CLIENT_R_AUTH, "Incorrect API key"},
    {401, NULL,
     "{\"error\":{\"code\":401,\"message\":\"Invalid API Key\",\"type\":\"authentication_error\"}}",
     0, 0, CLIENT_FATAL, CLIENT_R_AUTH, NULL},
    {403, NULL, "{\"detail\":\"Forbidden\"}", 0, 0, CLIENT_FATAL, CLIENT_R_AUTH, "Forbidden"},
    {404, NULL,
     "{\"error\":{\"message\":\"The model `m` does not exist.\",\"type\":\"NotFoundError\","
     "\"param\":null,\"code\":404}}",
     0, 0, CLIENT_FATAL, CLIENT_R_MODEL_NOT_FOUND, "does not exist"},
    {404, NULL, "{\"error\":\"model 'x' not found, try pulling it first\"}", 0, 0, CLIENT_FATAL,
     CLIENT_R_MODEL_NOT_FOUND, "pulling"},
    {400, NULL,
     "{\"error\":{\"message\":\"Unsupported parameter: 'max_tokens' is not supported with this "
     "model. Use 'max_completion_tokens' instead.\",\"type\":\"invalid_request_error\",\"param\":"
     "\"max_tokens\",\"code\":\"unsupported_parameter\"}}",
     0, 0, CLIENT_FATAL, CLIENT_R_UNSUPPORTED_PARAM, "max_completion_tokens"},
    {400, NULL,
     "{\"error\":{\"message\":\"Unsupported value: 'temperature' does not support 0 with this "
     "model.\",\"type\":\"invalid_request_error\",\"param\":\"temperature\",\"code\":"
     "\"unsupported_value\"}}",
     0, 0, CLIENT_FATAL, CLIENT_R_UNSUPPORTED_PARAM, "temperature"},
    {400, NULL,
     "{\"error\":{\"code\":400,\"message\":\"Only one completion choice is allowed\",\"type\":"
     "\"invalid_request_error\"}}",
     0, 0, CLIENT_FATAL, CLIENT_R_BAD_REQUEST, "Only one"},
    {400, "x-should-retry: true\r\n", "{\"error\":{\"message\":\"try again\"}}", 0, 0,
     CLIENT_RETRYABLE, CLIENT_R_HTTP_RETRYABLE, NULL},
    {501, NULL,
     "{\"error\":{\"code\":501,\"message\":\"not supported\",\"type\":\"not_supported_error\"}}", 0,
     0, CLIENT_FATAL, CLIENT_R_BAD_REQUEST, NULL},
    /* content filter by error */
    {400, NULL,
     "{\"error\":{\"message\":\"The response was filtered due to the prompt triggering Azure "
     "OpenAI's content management policy.\",\"type\":null,\"param\":\"prompt\",\"code\":"
     "\"content_filter\",\"status\":400}}",
     0, 0, CLIENT_FILTERED, CLIENT_R_NONE, "content management"},
    /* redirects are config errors */
    {301, "Location: https://elsewhere/v1\r\n", "", 0, 0, CLIENT_FATAL, CLIENT_R_BAD_REQUEST,
     "https://elsewhere/v1"},
};

/* What a refusal says about the budget field: the one reading of the probe and the trials. */
static void test_budget_verdict(void)
{
    static const char openai[] =
        "{\"error\":{\"message\":\"Unsupported parameter: 'max_tokens' is not supported with "
        "this model. Use 'max_completion_tokens' instead.\",\"type\":\"invalid_request_error\","
        "\"param\":\"max_tokens\",\"code\":\"unsupported_parameter\"}}";
    static const char small[] =
        "{\"error\":{\"message\":\"Invalid 'max_output_tokens': integer below minimum value. "
        "Expected a value >= 16, but got 1 instead.\",\"type\":\"invalid_request_error\","
        "\"param\":\"max_output_tokens\",\"code\":\"integer_below_min_value\"}}";
    static const char small_msg[] =
        "{\"error\":{\"message\":\"max_tokens must be at least 5\",\"code\":400}}";
    static const char other[] =
        "{\"error\":{\"message\":\"Unsupported parameter: 'temperature'\",\"param\":"
        "\"temperature\",\"code\":\"unsupported_parameter\"}}";
    long min = -1;
    CHECK_INT(client_budget_verdict(400, openai, strlen(openai), "max_tokens", &min),
              CLIENT_BUDGET_FIELD);
    /* the param names the field sent: the same text says nothing about max_completion_tokens */
    CHECK_INT(client_budget_verdict(400, openai, strlen(openai), "max_completion_tokens", &min),
              CLIENT_BUDGET_OK);
    CHECK_INT(client_budget_verdict(400, small, strlen(small), "max_output_tokens", &min),
              CLIENT_BUDGET_TOO_SMALL);
    CHECK_INT(min, 16);
    CHECK_INT(client_budget_verdict(400, small, strlen(small), "max_tokens", &min),
              CLIENT_BUDGET_OK);
    CHECK_INT(client_budget_verdict(400, small_msg, strlen(small_msg), "max_tokens", &min),
              CLIENT_BUDGET_TOO_SMALL);
    CHECK_INT(min, 5);
    CHECK_INT(client_budget_verdict(400, other, strlen(other), "max_tokens", &min),
              CLIENT_BUDGET_OK);
    CHECK_INT(client_budget_verdict(500, openai, strlen(openai), "max_tokens", &min),
              CLIENT_BUDGET_OK);
    CHECK_INT(client_budget_verdict(400, "<html>", 6, "max_tokens", &min), CLIENT_BUDGET_OK);
}

static void test_classify_table(void)
{
    for (size_t i = 0; i < sizeof(ccases) / sizeof(ccases[0]); i++) {
        const struct ccase *k = &ccases[i];
        struct client_exchange ex = {0};
        struct client_response r;
        ex.status = k->status;
        ex.headers = k->headers;
        ex.body = k->body;
        ex.body_len = strlen(k->body);
        ex.legacy = k->legacy;
        ex.expected_prompt_tokens = k->expected;
        ex.now = time(NULL);
        client_response_init(&r);
        client_classify(&ex, &r);
        if (r.cls != k->cls || r.reason != k->reason ||
            (k->error_has && (!r.error || !strstr(r.error, k->error_has))))
            fprintf(stderr, "  classify case %zu (HTTP %ld): got %s/%s error=%s\n", i, k->status,
                    client_class_name(r.cls), client_reason_name(r.reason),
                    r.error ? r.error : "(null)");
        CHECK_INT(r.cls, k->cls);
        CHECK_INT(r.reason, k->reason);
        CHECK_INT(r.http_status, k->status);
        if (k->error_has)
            CHECK(r.error && strstr(r.error, k->error_has));
        if (k->cls != CLIENT_OK)
            CHECK(r.error != NULL);
        /* html_page marks exactly the HTML pages (the runner counts them in a row) */
        CHECK_INT(r.html_page, k->error_has && !strcmp(k->error_has, "HTML page"));
        client_response_release(&r);
    }
}

/* prompt + answer beyond the server's context: the server shifted (llama.cpp --context-shift) */
static void test_classify_context_shift(void)
{
    struct client_exchange ex = {0};
    struct client_response r;
    const char *body = CHAT_OK("\"Paris\"", "\"stop\""); /* 1000 prompt + 7 answer tokens */
    ex.status = 200;
    ex.body = body;
    ex.body_len = strlen(body);
    ex.expected_prompt_tokens = 1000;
    client_response_init(&r);
    ex.context_tokens = 1006;
    client_classify(&ex, &r);
    CHECK_INT(r.cls, CLIENT_TRUNCATED);
    CHECK_INT(r.reason, CLIENT_R_CONTEXT_SHIFT);
    CHECK(r.error && strstr(r.error, "context of 1006 tokens cannot hold the 1000 prompt and 7"));
    CHECK_STR(client_reason_name(r.reason), "context-shift");
    ex.context_tokens = 1007; /* exactly full: nothing had to go */
    client_classify(&ex, &r);
    CHECK_INT(r.cls, CLIENT_OK);
    ex.context_tokens = 0; /* unknown context: no check */
    client_classify(&ex, &r);
    CHECK_INT(r.cls, CLIENT_OK);
    client_response_release(&r);
}

static void test_classify_fields(void)
{
    struct client_exchange ex = {0};
    struct client_response r;
    const char *body =
        "{\"id\":\"abc\",\"model\":\"Qwen/Qwen3-8B\",\"system_fingerprint\":\"b4567\","
        "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"42\","
        "\"reasoning_content\":\"let me think\"},\"finish_reason\":\"stop\"}],"
        "\"usage\":{\"prompt_tokens\":8000,\"completion_tokens\":120,"
        "\"completion_tokens_details\":{\"reasoning_tokens\":100},"
        "\"prompt_tokens_details\":{\"cached_tokens\":4096}},"
        "\"timings\":{\"cache_n\":4096,\"prompt_n\":3904,\"prompt_ms\":812.5,\"predicted_n\":120}}";
    ex.status = 200;
    ex.headers = "HTTP/1.1 200 OK\r\nx-request-id: req-9\r\nx-ratelimit-reset-tokens: 6m0s\r\n";
    ex.body = body;
    ex.body_len = strlen(body);
    ex.expected_prompt_tokens = 8100;
    client_response_init(&r);
    client_classify(&ex, &r);
    CHECK_INT(r.cls, CLIENT_OK);
    CHECK_STR(r.content, "42");
    CHECK_STR(r.reasoning, "let me think");
    CHECK_STR(r.finish_reason, "stop");
    CHECK_STR(r.model, "Qwen/Qwen3-8B");
    CHECK_STR(r.system_fingerprint, "b4567");
    CHECK_STR(r.request_id, "req-9");
    CHECK_INT(r.prompt_tokens, 8000);
    CHECK_INT(r.completion_tokens, 120);
    CHECK_INT(r.reasoning_tokens, 100);
    CHECK_INT(r.cached_tokens, 4096);
    CHECK_INT(r.timings_cache_n, 4096);
    CHECK_INT(r.timings_prompt_n, 3904);
    CHECK(r.timings_prompt_ms == 812.5);
    CHECK_INT(r.expected_prompt_tokens, 8100);
    /* reset headers on a 200 are no delay hint */
    CHECK_INT(r.retry_after_ms, -1);
    CHECK(r.error == NULL);

    /* Ollama/vLLM "reasoning" field; empty content keeps the reasoning text */
    body = "{\"choices\":[{\"index\":0,\"message\":{\"content\":\"\",\"reasoning\":\"hmm...\"},"
           "\"finish_reason\":\"length\"}],\"usage\":{\"prompt_tokens\":50}}";
    ex.headers = NULL;
    ex.body = body;
    ex.body_len = strlen(body);
    ex.expected_prompt_tokens = 50;
    client_classify(&ex, &r);
    CHECK_INT(r.cls, CLIENT_STARVED);
    CHECK_STR(r.reasoning, "hmm...");
    CHECK_INT(r.prompt_tokens, 50);
    CHECK_INT(r.completion_tokens, -1);
    CHECK_INT(r.cached_tokens, -1);
    CHECK_INT(r.timings_cache_n, -1);
    CHECK_INT(r.timings_prompt_n, -1);
    CHECK(r.timings_prompt_ms < 0);
    CHECK(r.request_id == NULL);

    /* reasoning kept apart: the field's text, then the inline block; only the answer is content */
    body = "{\"choices\":[{\"index\":0,\"message\":{\"content\":\"<think>is it 4887095?</think>\\n"
           "6817932\",\"reasoning_content\":\"field part\"},\"finish_reason\":\"length\"}],"
           "\"usage\":{\"prompt_tokens\":50,\"completion_tokens\":9,"
           "\"completion_tokens_details\":{\"reasoning_tokens\":7}}}";
    ex.body = body;
    ex.body_len = strlen(body);
    client_classify(&ex, &r);
    CHECK_INT(r.cls, CLIENT_OK);
    CHECK_STR(r.content, "6817932");
    CHECK_STR(r.reasoning, "field part\nis it 4887095?");
    CHECK_INT(r.reasoning_tokens, 7);
    CHECK_INT(r.cut, 1);
    /* configurable tags */
    body = "{\"choices\":[{\"index\":0,\"message\":{\"content\":\"[T]x[/T] y\"},"
           "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":50}}";
    ex.body = body;
    ex.body_len = strlen(body);
    ex.reasoning_open = "[T]";
    ex.reasoning_close = "[/T]";
    client_classify(&ex, &r);
    CHECK_INT(r.cls, CLIENT_OK);
    CHECK_STR(r.content, "y");
    CHECK_INT(r.cut, 0);
    ex.reasoning_open = ex.reasoning_close = NULL;
    /* reasoning tokens reported, empty content, finish stop (a forced end of thinking) */
    body = "{\"choices\":[{\"index\":0,\"message\":{\"content\":\"\"},\"finish_reason\":\"stop\"}],"
           "\"usage\":{\"prompt_tokens\":50,\"completion_tokens\":64,"
           "\"completion_tokens_details\":{\"reasoning_tokens\":64}}}";
    ex.body = body;
    ex.body_len = strlen(body);
    client_classify(&ex, &r);
    CHECK_INT(r.cls, CLIENT_STARVED);
    CHECK(r.error && strstr(r.error, "64 reasoning tokens"));

    /* the truncation ratio is configurable */
    body = CHAT_OK("\"x\"", "\"stop\"");
    ex.body = body;
    ex.body_len = strlen(body);
    ex.expected_prompt_tokens = 1100;
    ex.truncation_ratio = 0.9;
    client_classify(&ex, &r);
    CHECK_INT(r.cls, CLIENT_OK);
    ex.truncation_ratio = 0.95;
    client_classify(&ex, &r);
    CHECK_INT(r.cls, CLIENT_TRUNCATED);

    /* 429 carries the hint */
    ex.status = 429;
    ex.headers = "retry-after-ms: 1234\r\n";
    ex.body = "";
    ex.body_len = 0;
    client_classify(&ex, &r);
    CHECK_INT(r.retry_after_ms, 1234);
    /* error code text */
    ex.status = 400;
    ex.headers = NULL;
    ex.body = "{\"error\":{\"message\":\"too long: maximum context length\",\"code\":"
              "\"context_length_exceeded\"}}";
    ex.body_len = strlen(ex.body);
    client_classify(&ex, &r);
    CHECK_INT(r.cls, CLIENT_OVERFLOW);
    CHECK_STR(r.error_code, "context_length_exceeded");
    /* a body with embedded NUL and no terminator beyond body_len */
    {
        char buf[4] = {'{', '\0', '}', 'X'};
        ex.status = 200;
        ex.body = buf;
        ex.body_len = 3;
        client_classify(&ex, &r);
        CHECK_INT(r.cls, CLIENT_RETRYABLE);
    }
    client_response_release(&r);
}

/* ------------------------------------------------------- fake HTTP server */

struct fake {
    pid_t pid;
    int port;
    char dir[128];
    char log[200];
    char url[64];
};

static const char *repo_dir(void)
{
    const char *r = getenv("REPO");
    return r && *r ? r : ".";
}

static int fake_spawn(struct fake *f, const char *script)
{
    char path[256], portf[256], server[512];
    FILE *fp;
    memset(f, 0, sizeof(*f));
    snprintf(f->dir, sizeof(f->dir), "%s/dipmap-client-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(path, sizeof(path), "%s/script.json", f->dir);
    snprintf(portf, sizeof(portf), "%s/port", f->dir);
    snprintf(f->log, sizeof(f->log), "%s/log.jsonl", f->dir);
    snprintf(server, sizeof(server), "%s/tests/servers/fake_openai.py", repo_dir());
    fp = fopen(path, "w");
    if (!fp)
        return -1;
    fputs(script, fp);
    fclose(fp);
    f->pid = fork();
    if (f->pid < 0)
        return -1;
    if (f->pid == 0) {
        execlp("python3", "python3", server, "--script", path, "--port-file", portf, "--log",
               f->log, (char *)NULL);
        _exit(127);
    }
    /* up to 60 s: python3 starts slowly on a busy machine (5 s was not enough at load 45) */
    for (int i = 0; i < 6000; i++) {
        fp = fopen(portf, "r");
        if (fp) {
            if (fscanf(fp, "%d", &f->port) != 1)
                f->port = 0;
            fclose(fp);
            if (f->port > 0) {
                snprintf(f->url, sizeof(f->url), "http://127.0.0.1:%d", f->port);
                return 0;
            }
        }
        usleep(10000);
    }
    fprintf(stderr, "  fake server did not start\n");
    return -1;
}

static void fake_kill(struct fake *f)
{
    char cmd[300];
    if (f->pid > 0) {
        kill(f->pid, SIGKILL);
        waitpid(f->pid, NULL, 0);
        f->pid = 0;
    }
    snprintf(cmd, sizeof(cmd), "%s/script.json", f->dir);
    unlink(cmd);
    snprintf(cmd, sizeof(cmd), "%s/port", f->dir);
    unlink(cmd);
    unlink(f->log);
    rmdir(f->dir);
}

/* POST a new script to the server's control endpoint (plain socket: no curl in tests). */
static int fake_set_script(const struct fake *f, const char *script)
{
    struct sockaddr_in sa;
    struct strbuf req = STRBUF_INIT;
    char buf[256];
    ssize_t n;
    int fd = socket(AF_INET, SOCK_STREAM, 0), ok = -1;
    if (fd < 0)
        return -1;
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons((unsigned short)f->port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
        strbuf_addf(&req,
                    "POST /__script HTTP/1.0\r\nContent-Type: application/json\r\n"
                    "Content-Length: %zu\r\n\r\n%s",
                    strlen(script), script);
        if (write(fd, req.buf, req.len) == (ssize_t)req.len &&
            (n = read(fd, buf, sizeof(buf) - 1)) > 0) {
            buf[n] = '\0';
            ok = strstr(buf, " 204 ") ? 0 : -1;
        }
    }
    close(fd);
    strbuf_release(&req);
    return ok;
}

/*
 * Two fake servers live for the whole test binary (python starts slowly on a
 * busy machine); fake_start() gives a test slot 0 with a fresh script and an
 * empty log, fake_start_slot() another slot. fake_stop() is a no-op.
 */
static struct fake pool[2];

static int fake_start_slot(struct fake *f, int slot, const char *script)
{
    if (!pool[slot].pid && fake_spawn(&pool[slot], "{}"))
        return -1;
    *f = pool[slot];
    return fake_set_script(f, script);
}

static int fake_start(struct fake *f, const char *script)
{
    return fake_start_slot(f, 0, script);
}

static void fake_stop(struct fake *f)
{
    (void)f;
}

/* A TCP port on 127.0.0.1 nobody listens on (bound, then closed). */
static int dead_port(void)
{
    struct sockaddr_in sa;
    socklen_t len = sizeof(sa);
    int port = 0, fd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
        getsockname(fd, (struct sockaddr *)&sa, &len) == 0)
        port = ntohs(sa.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

/* The server's request log as a cJSON array (caller deletes). */
static cJSON *fake_log(struct fake *f)
{
    struct strbuf sb = STRBUF_INIT, line = STRBUF_INIT;
    cJSON *arr = cJSON_CreateArray();
    FILE *fp = fopen(f->log, "r");
    if (fp) {
        while (strbuf_getline(&line, fp) == 1) {
            cJSON *o = cJSON_Parse(line.buf);
            if (o)
                cJSON_AddItemToArray(arr, o);
        }
        fclose(fp);
    }
    strbuf_release(&sb);
    strbuf_release(&line);
    return arr;
}

static const char *jstr(const cJSON *o, const char *path1, const char *path2)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, path1);
    if (path2)
        v = cJSON_GetObjectItemCaseSensitive(v, path2);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static struct client *make_client(const char *url, const char *key,
                                  void (*tweak)(struct client_config *))
{
    struct client_config cfg;
    struct strbuf err = STRBUF_INIT;
    struct client *c;
    client_config_init(&cfg);
    strvec_push(&cfg.endpoints, url);
    cfg.model = "m";
    cfg.api_key = key;
    cfg.timeout_ms = 5000;
    cfg.connect_timeout_ms = 2000;
    if (tweak)
        tweak(&cfg);
    c = client_new(&cfg, &err);
    if (!c)
        fprintf(stderr, "  client_new: %s\n", err.buf);
    client_config_release(&cfg);
    strbuf_release(&err);
    return c;
}

/* Submit one request and wait for its response. */
static struct client_response *roundtrip(struct client *c, const char *user, long expected)
{
    struct client_request req = {0};
    struct strbuf err = STRBUF_INIT;
    struct client_response *r = NULL;
    double t0 = utc_monotonic_ms();
    req.system = "You are terse.";
    req.user = user;
    req.user_len = strlen(user);
    req.expected_prompt_tokens = expected;
    if (client_submit(c, &req, &err)) {
        fprintf(stderr, "  submit: %s\n", err.buf);
        strbuf_release(&err);
        return NULL;
    }
    while (!(r = client_take(c)) && utc_monotonic_ms() - t0 < 15000) {
        if (client_poll(c, 200, &err) < 0)
            break;
    }
    strbuf_release(&err);
    return r;
}

#define OKBODY(content, finish, pt)                                                                \
    "{\"json\":{\"id\":\"x\",\"model\":\"m-echo\",\"system_fingerprint\":\"fp9\",\"choices\":[{"   \
    "\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":" content "},"                    \
    "\"finish_reason\":\"" finish "\"}],\"usage\":{\"prompt_tokens\":" pt                          \
    ",\"completion_tokens\":3}}}"

static void test_http_request_shape(void)
{
    struct fake f;
    struct client *c;
    struct client_response *r;
    cJSON *log, *e, *body;
    if (fake_start(&f, "{\"/v1/chat/completions\":[" OKBODY("\"Paris\"", "stop", "10") "]}")) {
        CHECK(0);
        return;
    }
    c = make_client(f.url, "sk-test-SECRET-123", NULL);
    CHECK(c != NULL);
    if (!c)
        goto out;
    r = roundtrip(c, "What is the capital of \"France\"?\n\x01", 10);
    CHECK(r != NULL);
    if (r) {
        CHECK_INT(r->cls, CLIENT_OK);
        CHECK_INT(r->http_status, 200);
        CHECK_STR(r->content, "Paris");
        CHECK_STR(r->model, "m-echo");
        CHECK_STR(r->system_fingerprint, "fp9");
        CHECK_INT(r->prompt_tokens, 10);
        CHECK_INT(r->completion_tokens, 3);
        CHECK_INT(r->endpoint, 0);
        CHECK(r->latency_ms > 0);
    }
    client_response_free(r);
    CHECK_INT(client_inflight(c), 0);
    log = fake_log(&f);
    CHECK_INT(cJSON_GetArraySize(log), 1);
    e = cJSON_GetArrayItem(log, 0);
    CHECK_STR(jstr(e, "path", NULL), "/v1/chat/completions");
    CHECK_STR(jstr(e, "method", NULL), "POST");
    CHECK_STR(jstr(e, "headers", "authorization"), "Bearer sk-test-SECRET-123");
    CHECK_STR(jstr(e, "headers", "content-type"), "application/json");
    CHECK(jstr(e, "headers", "expect") == NULL);
    body = cJSON_GetObjectItemCaseSensitive(e, "body");
    CHECK_STR(jstr(body, "model", NULL), "m");
    {
        const cJSON *msgs = cJSON_GetObjectItemCaseSensitive(body, "messages");
        CHECK_INT(cJSON_GetArraySize(msgs), 2);
        CHECK_STR(jstr(cJSON_GetArrayItem(msgs, 0), "role", NULL), "system");
        CHECK_STR(jstr(cJSON_GetArrayItem(msgs, 0), "content", NULL), "You are terse.");
        CHECK_STR(jstr(cJSON_GetArrayItem(msgs, 1), "role", NULL), "user");
        CHECK_STR(jstr(cJSON_GetArrayItem(msgs, 1), "content", NULL),
                  "What is the capital of \"France\"?\n\x01");
        CHECK(cJSON_GetObjectItemCaseSensitive(body, "temperature") &&
              cJSON_GetObjectItemCaseSensitive(body, "temperature")->valuedouble == 0);
        CHECK(cJSON_GetObjectItemCaseSensitive(body, "top_p") &&
              cJSON_GetObjectItemCaseSensitive(body, "top_p")->valuedouble == 1);
        CHECK(cJSON_GetObjectItemCaseSensitive(body, "seed") != NULL);
        CHECK(cJSON_GetObjectItemCaseSensitive(body, "max_tokens") &&
              cJSON_GetObjectItemCaseSensitive(body, "max_tokens")->valuedouble == 256);
        CHECK(cJSON_GetObjectItemCaseSensitive(body, "max_completion_tokens") == NULL);
        CHECK(cJSON_GetObjectItemCaseSensitive(body, "n") &&
              cJSON_GetObjectItemCaseSensitive(body, "n")->valuedouble == 1);
    }
    cJSON_Delete(log);
    /*
     * A body over 1 MiB: libcurl would add "Expect: 100-continue" and wait for
     * the server; the client's empty Expect: header prevents it.
     */
    {
        size_t big = 1200 * 1024;
        char *text = malloc(big + 1);
        memset(text, 'a', big);
        text[big] = '\0';
        r = roundtrip(c, text, 0);
        CHECK(r && r->cls == CLIENT_OK);
        client_response_free(r);
        free(text);
        log = fake_log(&f);
        CHECK_INT(cJSON_GetArraySize(log), 2);
        e = cJSON_GetArrayItem(log, 1);
        CHECK(jstr(e, "headers", "expect") == NULL);
        CHECK(jstr(e, "headers", "content-length") &&
              atol(jstr(e, "headers", "content-length")) > (long)big);
        cJSON_Delete(log);
    }
out:
    client_free(c);
    fake_stop(&f);
}

static void legacy_tweak(struct client_config *cfg)
{
    cfg->legacy_completions = 1;
    cfg->max_tokens = 32;
    cfg->temperature = 0.7;
    cfg->seed = 1234;
    strvec_push(&cfg->headers, "X-Team: dipmap");
}

static void mct_tweak(struct client_config *cfg)
{
    cfg->max_tokens_field = CLIENT_MTF_MAX_COMPLETION_TOKENS;
}

static void test_http_legacy_and_fields(void)
{
    struct fake f;
    struct client *c;
    struct client_response *r;
    cJSON *log, *body;
    if (fake_start(&f, "{\"/v1/completions\":[{\"json\":{\"choices\":[{\"index\":0,\"text\":"
                       "\" Paris\",\"finish_reason\":\"stop\"}]}}],"
                       "\"/v1/chat/completions\":[" OKBODY("\"ok\"", "stop", "5") "]}")) {
        CHECK(0);
        return;
    }
    c = make_client(f.url, NULL, legacy_tweak);
    r = c ? roundtrip(c, "The capital of France is", 0) : NULL;
    CHECK(r && r->cls == CLIENT_OK && r->content && !strcmp(r->content, " Paris"));
    client_response_free(r);
    client_free(c);
    /* base URL given with /v1/ and a forced max_completion_tokens */
    {
        struct strbuf u = STRBUF_INIT;
        strbuf_addf(&u, "%s/v1/", f.url);
        c = make_client(u.buf, "", mct_tweak);
        strbuf_release(&u);
    }
    r = c ? roundtrip(c, "hi", 0) : NULL;
    CHECK(r && r->cls == CLIENT_OK);
    client_response_free(r);
    client_free(c);
    log = fake_log(&f);
    CHECK_INT(cJSON_GetArraySize(log), 2);
    body = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(log, 0), "body");
    CHECK_STR(jstr(cJSON_GetArrayItem(log, 0), "path", NULL), "/v1/completions");
    CHECK_STR(jstr(body, "prompt", NULL), "The capital of France is");
    CHECK(cJSON_GetObjectItemCaseSensitive(body, "messages") == NULL);
    CHECK(cJSON_GetObjectItemCaseSensitive(body, "max_tokens")->valuedouble == 32);
    CHECK(cJSON_GetObjectItemCaseSensitive(body, "temperature")->valuedouble == 0.7);
    CHECK(cJSON_GetObjectItemCaseSensitive(body, "seed")->valuedouble == 1234);
    CHECK_STR(jstr(cJSON_GetArrayItem(log, 0), "headers", "x-team"), "dipmap");
    /* no key: no Authorization header */
    CHECK(jstr(cJSON_GetArrayItem(log, 0), "headers", "authorization") == NULL);
    CHECK(jstr(cJSON_GetArrayItem(log, 1), "headers", "authorization") == NULL);
    body = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(log, 1), "body");
    CHECK_STR(jstr(cJSON_GetArrayItem(log, 1), "path", NULL), "/v1/chat/completions");
    CHECK(cJSON_GetObjectItemCaseSensitive(body, "max_completion_tokens") != NULL);
    CHECK(cJSON_GetObjectItemCaseSensitive(body, "max_tokens") == NULL);
    cJSON_Delete(log);
    fake_stop(&f);
}

/* Azure deployment URLs: the path as given, api-version kept, api-key header */
static void test_http_azure(void)
{
    struct fake f;
    struct client *c;
    struct client_response *r;
    struct strbuf u = STRBUF_INIT;
    cJSON *log, *e;
    if (fake_start(&f, "{\"/openai/deployments/gpt4o/chat/completions\":[" OKBODY("\"ok\"", "stop",
                                                                                  "1") "]}")) {
        CHECK(0);
        return;
    }
    strbuf_addf(&u, "%s/openai/deployments/gpt4o?api-version=2024-10-21", f.url);
    c = make_client(u.buf, "azure-key-1", NULL);
    r = c ? roundtrip(c, "hi", 0) : NULL;
    CHECK(r && r->cls == CLIENT_OK);
    client_response_free(r);
    client_free(c);
    log = fake_log(&f);
    CHECK_INT(cJSON_GetArraySize(log), 1);
    e = cJSON_GetArrayItem(log, 0);
    CHECK_STR(jstr(e, "path", NULL),
              "/openai/deployments/gpt4o/chat/completions?api-version=2024-10-21");
    CHECK_STR(jstr(e, "headers", "api-key"), "azure-key-1");
    CHECK(jstr(e, "headers", "authorization") == NULL);
    CHECK(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(e, "body"),
                                           "max_completion_tokens") != NULL);
    cJSON_Delete(log);
    strbuf_release(&u);
    fake_stop(&f);
}

/* One scripted response per step, each checked over real HTTP. */
static void test_http_classes(void)
{
    static const struct {
        const char *step;
        long expected;
        enum client_class cls;
        enum client_reason reason;
        long status;
    } steps[] = {
        {OKBODY("\"Paris\"", "stop", "100"), 100, CLIENT_OK, CLIENT_R_NONE, 200},
        {"{\"status\":400,\"json\":{\"error\":{\"message\":\"This model's maximum context length "
         "is 4096 tokens. However, you requested 5000 tokens\",\"type\":\"BadRequestError\","
         "\"param\":null,\"code\":400}}}",
         0, CLIENT_OVERFLOW, CLIENT_R_NONE, 400},
        {OKBODY("\"Paris\"", "stop", "50"), 100, CLIENT_TRUNCATED, CLIENT_R_PROMPT_SHORT, 200},
        {OKBODY("\"Par\"", "length", "100"), 100, CLIENT_OK, CLIENT_R_NONE, 200},
        {OKBODY("null", "length", "100"), 100, CLIENT_STARVED, CLIENT_R_LENGTH, 200},
        {OKBODY("\"\"", "content_filter", "100"), 100, CLIENT_FILTERED, CLIENT_R_NONE, 200},
        {"{\"status\":429,\"headers\":{\"Retry-After\":\"7\"},\"json\":{\"error\":{\"message\":"
         "\"slow down\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}}",
         0, CLIENT_RETRYABLE, CLIENT_R_RATE_LIMIT, 429},
        {"{\"status\":503,\"body\":\"<html>down</html>\",\"headers\":{\"Content-Type\":"
         "\"text/html\"}}",
         0, CLIENT_RETRYABLE, CLIENT_R_SERVER_ERROR, 503},
        {"{\"status\":200,\"body\":\"<html>captive portal</html>\",\"headers\":{\"Content-Type\":"
         "\"text/html\"}}",
         0, CLIENT_RETRYABLE, CLIENT_R_BAD_BODY, 200}, /* html_page: the runner counts them */
        {"{\"status\":200,\"body\":\"{\\\"choices\\\":[\"}", 0, CLIENT_RETRYABLE, CLIENT_R_BAD_BODY,
         200},
        {"{\"status\":200,\"json\":{\"error\":{\"message\":\"generation failed\"}}}", 0,
         CLIENT_RETRYABLE, CLIENT_R_ERROR_IN_BODY, 200},
        {"{\"status\":401,\"json\":{\"error\":{\"message\":\"bad key sk-test-SECRET-123\","
         "\"type\":\"invalid_request_error\",\"code\":\"invalid_api_key\"}}}",
         0, CLIENT_FATAL, CLIENT_R_AUTH, 401},
        {"{\"status\":404,\"json\":{\"error\":{\"message\":\"The model `m` does not exist.\","
         "\"type\":\"NotFoundError\",\"param\":null,\"code\":404}}}",
         0, CLIENT_FATAL, CLIENT_R_MODEL_NOT_FOUND, 404},
        {"{\"status\":429,\"json\":{\"error\":{\"message\":\"You exceeded your current quota\","
         "\"type\":\"insufficient_quota\",\"code\":\"insufficient_quota\"}}}",
         0, CLIENT_FATAL, CLIENT_R_QUOTA, 429},
        /* (a refused budget field is switched and sent again: test_budget_verdict, cli/856) */
        {"{\"status\":400,\"json\":{\"error\":{\"message\":\"Unsupported value: 'temperature' "
         "does not support 0 with this model.\",\"param\":\"temperature\",\"code\":"
         "\"unsupported_value\"}}}",
         0, CLIENT_FATAL, CLIENT_R_UNSUPPORTED_PARAM, 400},
        {"{\"body_size\":300000}", 0, CLIENT_RETRYABLE, CLIENT_R_TOO_LARGE, 200},
        {"{\"body_size\":300000,\"chunked\":true}", 0, CLIENT_RETRYABLE, CLIENT_R_TOO_LARGE, 200},
        {"{\"chunked\":true,\"json\":{\"choices\":[{\"index\":0,\"message\":{\"content\":"
         "\"chunks\"},\"finish_reason\":\"stop\"}]}}",
         0, CLIENT_OK, CLIENT_R_NONE, 200},
        {"{\"hang\":true}", 0, CLIENT_RETRYABLE, CLIENT_R_TIMEOUT, 0},
    };
    struct strbuf script = STRBUF_INIT;
    struct fake f;
    struct client *c;
    size_t n = sizeof(steps) / sizeof(steps[0]);
    strbuf_addstr(&script, "{\"/v1/chat/completions\":[");
    for (size_t i = 0; i < n; i++)
        strbuf_addf(&script, "%s%s", i ? "," : "", steps[i].step);
    strbuf_addstr(&script, "]}");
    if (fake_start(&f, script.buf)) {
        CHECK(0);
        strbuf_release(&script);
        return;
    }
    strbuf_release(&script);
    c = make_client(f.url, "sk-test-SECRET-123", NULL);
    if (!c) {
        CHECK(0);
        fake_stop(&f);
        return;
    }
    /* a small cap and timeout for the last two steps */
    client_free(c);
    {
        struct client_config cfg;
        struct strbuf err = STRBUF_INIT;
        client_config_init(&cfg);
        strvec_push(&cfg.endpoints, f.url);
        cfg.model = "m";
        cfg.api_key = "sk-test-SECRET-123";
        cfg.timeout_ms = 1500;
        cfg.max_response_bytes = 100000;
        c = client_new(&cfg, &err);
        client_config_release(&cfg);
        strbuf_release(&err);
    }
    for (size_t i = 0; i < n && c; i++) {
        struct client_response *r = roundtrip(c, "one two three", steps[i].expected);
        CHECK(r != NULL);
        if (!r)
            continue;
        if (r->cls != steps[i].cls || r->reason != steps[i].reason ||
            r->http_status != steps[i].status)
            fprintf(stderr, "  step %zu: got %s/%s HTTP %ld: %s\n", i, client_class_name(r->cls),
                    client_reason_name(r->reason), r->http_status, r->error ? r->error : "");
        CHECK_INT(r->cls, steps[i].cls);
        CHECK_INT(r->reason, steps[i].reason);
        CHECK_INT(r->http_status, steps[i].status);
        if (steps[i].reason == CLIENT_R_RATE_LIMIT)
            CHECK_INT(r->retry_after_ms, 7000);
        if (steps[i].status == 0 || steps[i].reason == CLIENT_R_TOO_LARGE)
            CHECK(r->curl_code != 0);
        /* the key is never echoed back */
        if (r->error)
            CHECK(strstr(r->error, "SECRET") == NULL);
        if (steps[i].reason == CLIENT_R_AUTH)
            CHECK(r->error && strstr(r->error, "<redacted>"));
        client_response_free(r);
    }
    client_free(c);
    fake_stop(&f);
}

/* the server reads the request and closes the connection without answering */
static void test_http_drop(void)
{
    struct fake f;
    struct client *c;
    struct client_response *r;
    if (fake_start(&f, "{\"*\":[{\"drop\":true}]}")) {
        CHECK(0);
        return;
    }
    c = make_client(f.url, NULL, NULL);
    r = c ? roundtrip(c, "x", 0) : NULL;
    CHECK(r != NULL);
    if (r) {
        CHECK_INT(r->cls, CLIENT_RETRYABLE);
        CHECK_INT(r->reason, CLIENT_R_TRANSPORT);
        CHECK_INT(r->http_status, 0);
        CHECK(r->curl_code != 0);
        CHECK(r->error && *r->error);
    }
    client_response_free(r);
    client_free(c);
    fake_stop(&f);
}

static void test_http_unreachable(void)
{
    struct client *c;
    struct client_response *r;
    /* a port nobody listens on: bind, note, close */
    int port = dead_port();
    {
        char url[64];
        snprintf(url, sizeof(url), "http://127.0.0.1:%d", port);
        c = make_client(url, NULL, NULL);
    }
    r = c ? roundtrip(c, "x", 0) : NULL;
    CHECK(r != NULL);
    if (r) {
        CHECK_INT(r->cls, CLIENT_RETRYABLE);
        CHECK_INT(r->reason, CLIENT_R_CONNECT);
        CHECK_INT(r->http_status, 0);
        CHECK(r->error && *r->error);
    }
    client_response_free(r);
    client_free(c);
}

static int count_ports(cJSON *log)
{
    int ports[256], n = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, log)
    {
        int p = (int)cJSON_GetObjectItemCaseSensitive(e, "port")->valuedouble, seen = 0;
        for (int i = 0; i < n; i++)
            seen |= ports[i] == p;
        if (!seen && n < 256)
            ports[n++] = p;
    }
    return n;
}

static double log_time(cJSON *log, int i)
{
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(log, i), "t")->valuedouble;
}

/* N in flight at once, connection reuse, least-in-flight across endpoints. */
static void test_http_concurrency(void)
{
    struct fake f1, f2;
    struct client_config cfg;
    struct strbuf err = STRBUF_INIT;
    struct client *c = NULL;
    cJSON *l1 = NULL, *l2 = NULL;
    int got = 0, ok = 0, on[2] = {0, 0};
    struct strbuf script = STRBUF_INIT;
    /* {"delay":0.4,"json":...}: splice the delay into the step object */
    {
        static const char ok_step[] = OKBODY("\"x\"", "stop", "1");
        strbuf_addf(&script, "{\"/v1/chat/completions\":[{\"delay\":0.4,%s]}", &ok_step[1]);
    }
    if (fake_start_slot(&f1, 0, script.buf) || fake_start_slot(&f2, 1, script.buf)) {
        CHECK(0);
        strbuf_release(&script);
        return;
    }
    strbuf_release(&script);
    client_config_init(&cfg);
    strvec_push(&cfg.endpoints, f1.url);
    strvec_push(&cfg.endpoints, f2.url);
    cfg.model = "m";
    c = client_new(&cfg, &err);
    client_config_release(&cfg);
    CHECK(c != NULL);
    if (!c)
        goto out;
    CHECK_INT(client_endpoint_count(c), 2);
    CHECK_STR(client_endpoint_url(c, 1), f2.url);
    for (int round = 0; round < 2; round++) {
        double t0 = utc_monotonic_ms();
        for (int i = 0; i < 16; i++) {
            struct client_request req = {0};
            req.user = "hello";
            req.user_len = 5;
            req.tag = (void *)(long)(i + 1);
            CHECK_INT(client_submit(c, &req, &err), 0);
        }
        CHECK_INT(client_inflight(c), 16);
        CHECK_INT(client_endpoint_inflight(c, 0), 8);
        CHECK_INT(client_endpoint_inflight(c, 1), 8);
        while (client_inflight(c) && utc_monotonic_ms() - t0 < 15000) {
            struct client_response *r;
            CHECK(client_poll(c, 100, &err) >= 0);
            while ((r = client_take(c))) {
                got++;
                ok += r->cls == CLIENT_OK;
                CHECK(r->tag != NULL);
                if (r->endpoint >= 0 && r->endpoint < 2)
                    on[r->endpoint]++;
                client_response_free(r);
            }
        }
    }
    CHECK_INT(got, 32);
    CHECK_INT(ok, 32);
    CHECK_INT(on[0], 16);
    CHECK_INT(on[1], 16);
    l1 = fake_log(&f1);
    l2 = fake_log(&f2);
    CHECK_INT(cJSON_GetArraySize(l1), 16);
    CHECK_INT(cJSON_GetArraySize(l2), 16);
    /* 8 concurrent per server in round one; round two reuses those connections */
    CHECK(count_ports(l1) <= 8);
    CHECK(count_ports(l2) <= 8);
    /* all 8 requests of a round were at the server together (each takes 0.4 s) */
    {
        double first = 1e18, last = 0;
        for (int i = 0; i < 8; i++) {
            double t =
                cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(l1, i), "t")->valuedouble;
            first = t < first ? t : first;
            last = t > last ? t : last;
        }
        if (!(last - first < 0.4)) {
            fprintf(stderr, "  round one arrivals spread over %.3f s:", last - first);
            for (int i = 0; i < 16; i++)
                fprintf(stderr, " %.3f/%d", log_time(l1, i) - first,
                        (int)cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(l1, i), "port")
                            ->valuedouble);
            fprintf(stderr, "\n");
        }
        CHECK(last - first < 0.4);
    }
out:
    cJSON_Delete(l1);
    cJSON_Delete(l2);
    client_free(c);
    strbuf_release(&err);
    fake_stop(&f1);
    fake_stop(&f2);
}

/*
 * A tiny runner: retry with throttle_backoff until done; returns the final
 * response and the number of attempts.
 */
static struct client_response *run_with_retries(struct client *c, struct throttle_backoff *b,
                                                int max_attempts, int *attempts)
{
    struct client_response *r = NULL;
    *attempts = 0;
    for (;;) {
        long delay;
        double until;
        r = roundtrip(c, "q", 0);
        ++*attempts;
        if (!r || r->cls != CLIENT_RETRYABLE || *attempts >= max_attempts)
            return r;
        delay = throttle_backoff_delay(b, *attempts, r->retry_after_ms);
        client_response_free(r);
        until = utc_monotonic_ms() + (double)delay;
        while (utc_monotonic_ms() < until) {
            struct strbuf err = STRBUF_INIT;
            client_poll(c, (int)(until - utc_monotonic_ms()) + 1, &err);
            usleep(1000);
            strbuf_release(&err);
        }
    }
}

static void test_http_retry_after(void)
{
    struct fake f;
    struct client *c;
    struct throttle_backoff b;
    struct client_response *r;
    int attempts = 0;
    cJSON *log;
    if (fake_start(&f, "{\"/v1/chat/completions\":["
                       "{\"status\":429,\"headers\":{\"Retry-After\":\"1\"},\"json\":{\"error\":"
                       "{\"message\":\"rate\",\"code\":\"rate_limit_exceeded\"}}},"
                       "{\"status\":503,\"headers\":{\"retry-after-ms\":\"300\"},\"body\":\"\"},"
                       "{\"status\":429,\"headers\":{\"x-ratelimit-reset-requests\":\"120ms\","
                       "\"x-ratelimit-reset-tokens\":\"0.6s\"},\"body\":\"{}\"},"
                       "{\"status\":500,\"body\":\"\"}," OKBODY("\"done\"", "stop", "1") "]}")) {
        CHECK(0);
        return;
    }
    c = make_client(f.url, NULL, NULL);
    throttle_backoff_init(&b, 7);
    b.base_ms = 50; /* fast backoff without a hint */
    r = c ? run_with_retries(c, &b, 6, &attempts) : NULL;
    CHECK(r && r->cls == CLIENT_OK && r->content && !strcmp(r->content, "done"));
    CHECK_INT(attempts, 5);
    client_response_free(r);
    log = fake_log(&f);
    CHECK_INT(cJSON_GetArraySize(log), 5);
    if (cJSON_GetArraySize(log) == 5) {
        double g1 = log_time(log, 1) - log_time(log, 0);
        double g2 = log_time(log, 2) - log_time(log, 1);
        double g3 = log_time(log, 3) - log_time(log, 2);
        double g4 = log_time(log, 4) - log_time(log, 3);
        fprintf(stderr, "  gaps: %.3f %.3f %.3f %.3f s\n", g1, g2, g3, g4);
        CHECK(g1 >= 1.0); /* Retry-After: 1 */
        CHECK(g2 >= 0.3); /* retry-after-ms: 300 */
        CHECK(g3 >= 0.6); /* larger of the reset durations */
        CHECK(g4 >= 0.2); /* backoff: attempt 4 with base 50 ms -> [200, 400] ms */
    }
    cJSON_Delete(log);
    /* attempt cap */
    client_free(c);
    fake_stop(&f);
    if (fake_start(&f, "{\"/v1/chat/completions\":[{\"status\":502,\"body\":\"\"}]}")) {
        CHECK(0);
        return;
    }
    c = make_client(f.url, NULL, NULL);
    throttle_backoff_init(&b, 7);
    b.base_ms = 5;
    r = c ? run_with_retries(c, &b, 3, &attempts) : NULL;
    CHECK(r && r->cls == CLIENT_RETRYABLE);
    CHECK_INT(attempts, 3);
    client_response_free(r);
    log = fake_log(&f);
    CHECK_INT(cJSON_GetArraySize(log), 3);
    cJSON_Delete(log);
    client_free(c);
    fake_stop(&f);
}

static void missing_model_tweak(struct client_config *cfg)
{
    cfg->model = "missing-model";
}

static void test_http_preflight(void)
{
    struct fake f;
    struct client *c;
    struct client_preflight_info info;
    enum client_reason reason;
    struct strbuf err = STRBUF_INIT;

    /* vLLM: model listed with max_model_len; /props 404 */
    if (fake_start(&f,
                   "{\"/v1/models\":[{\"json\":{\"object\":\"list\",\"data\":[{\"id\":\"other\","
                   "\"max_model_len\":1000},{\"id\":\"m\",\"object\":\"model\",\"owned_by\":"
                   "\"vllm\",\"max_model_len\":32768}]}}]}")) {
        CHECK(0);
        return;
    }
    c = make_client(f.url, "k", NULL);
    CHECK_INT(client_preflight(c, &info, &reason, &err), CLIENT_OK);
    CHECK_INT(info.context, 32768);
    CHECK_INT(info.model_listed, 1);
    CHECK_STR(info.served_model, "m");
    client_preflight_info_release(&info);
    client_free(c);
    /* the model is not there: fatal, and the message names what is served */
    c = make_client(f.url, "k", missing_model_tweak);
    strbuf_reset(&err);
    CHECK_INT(client_preflight(c, &info, &reason, &err), CLIENT_FATAL);
    CHECK_INT(reason, CLIENT_R_MODEL_NOT_FOUND);
    CHECK(strstr(err.buf, "missing-model") && strstr(err.buf, "\"other\""));
    client_preflight_info_release(&info);
    client_free(c);
    fake_stop(&f);

    /* llama.cpp: /props gives n_ctx; a single listed model that differs is fine */
    if (fake_start(&f, "{\"/v1/models\":[{\"json\":{\"object\":\"list\",\"data\":[{\"id\":"
                       "\"qwen.gguf\",\"owned_by\":\"llamacpp\",\"meta\":{\"n_ctx_train\":"
                       "131072}}]}}],\"/props\":[{\"json\":{\"default_generation_settings\":"
                       "{\"n_ctx\":8192},\"total_slots\":4,\"build_info\":\"b5000-abc\"}}]}")) {
        CHECK(0);
        return;
    }
    c = make_client(f.url, NULL, NULL);
    strbuf_reset(&err);
    CHECK_INT(client_preflight(c, &info, &reason, &err), CLIENT_OK);
    CHECK_INT(info.context, 8192);
    CHECK_INT(info.model_listed, 0);
    CHECK_STR(info.server_info, "b5000-abc");
    client_preflight_info_release(&info);
    client_free(c);
    fake_stop(&f);

    /* wrong key */
    if (fake_start(&f, "{\"*\":[{\"status\":401,\"json\":{\"error\":{\"message\":\"Incorrect API "
                       "key provided\",\"type\":\"invalid_request_error\",\"code\":"
                       "\"invalid_api_key\"}}}]}")) {
        CHECK(0);
        return;
    }
    c = make_client(f.url, "bad", NULL);
    strbuf_reset(&err);
    CHECK_INT(client_preflight(c, &info, &reason, &err), CLIENT_FATAL);
    CHECK_INT(reason, CLIENT_R_AUTH);
    CHECK(strstr(err.buf, "Incorrect API key") != NULL);
    client_preflight_info_release(&info);
    client_free(c);
    fake_stop(&f);

    /* no /v1/models, but the chat path exists (an empty request gets a 400): unknown, not fatal */
    if (fake_start(
            &f, "{\"/v1/chat/completions\":[{\"status\":400,\"json\":{\"error\":"
                "\"messages is required\"}}],\"*\":[{\"status\":404,\"body\":\"not found\"}]}")) {
        CHECK(0);
        return;
    }
    c = make_client(f.url, NULL, NULL);
    strbuf_reset(&err);
    CHECK_INT(client_preflight(c, &info, &reason, &err), CLIENT_OK);
    CHECK_INT(info.context, -1);
    CHECK_INT(info.model_listed, -1);
    client_preflight_info_release(&info);
    client_free(c);
    fake_stop(&f);

    /* 404 at /v1/models and at the chat path: no API at this address (a wrong path) */
    if (fake_start(&f, "{\"*\":[{\"status\":404,\"body\":\"not found\"}]}")) {
        CHECK(0);
        return;
    }
    c = make_client(f.url, NULL, NULL);
    strbuf_reset(&err);
    CHECK_INT(client_preflight(c, &info, &reason, &err), CLIENT_FATAL);
    CHECK_INT(reason, CLIENT_R_BAD_REQUEST);
    CHECK(strstr(err.buf, "no OpenAI-compatible API at ") != NULL);
    client_preflight_info_release(&info);
    client_free(c);
    {
        int port = dead_port();
        char url[64];
        fake_stop(&f);
        /* unreachable */
        snprintf(url, sizeof(url), "http://127.0.0.1:%d", port);
        c = make_client(url, NULL, NULL);
        strbuf_reset(&err);
        CHECK_INT(client_preflight(c, &info, &reason, &err), CLIENT_RETRYABLE);
        CHECK_INT(reason, CLIENT_R_CONNECT);
        CHECK(strstr(err.buf, url) != NULL);
        client_preflight_info_release(&info);
        client_free(c);
    }
    strbuf_release(&err);
}

static void test_http_tokenize(void)
{
    struct fake f;
    struct client *c;
    struct strbuf err = STRBUF_INIT;
    long n = -1;
    cJSON *log;

    /* vLLM shape */
    if (fake_start(&f, "{\"/tokenize\":[{\"echo_tokens\":true}]}")) {
        CHECK(0);
        return;
    }
    {
        struct strbuf u = STRBUF_INIT;
        strbuf_addf(&u, "%s/v1", f.url); /* /tokenize is at the root, not under /v1 */
        c = make_client(u.buf, NULL, NULL);
        strbuf_release(&u);
    }
    CHECK_INT(client_tokenize(c, "a b c d", 7, &n, &err), 0);
    CHECK_INT(n, 4);
    CHECK_INT(client_tokenize_cb(c, "one two", 7, &n, &err), 0);
    CHECK_INT(n, 2);
    CHECK_INT(client_tokenize(c, "", 0, &n, &err), 0);
    CHECK_INT(n, 0);
    client_free(c);
    log = fake_log(&f);
    CHECK_INT(cJSON_GetArraySize(log), 2);
    CHECK_STR(jstr(cJSON_GetArrayItem(log, 0), "path", NULL), "/tokenize");
    CHECK_STR(jstr(cJSON_GetArrayItem(log, 0), "body", "prompt"), "a b c d");
    CHECK_STR(jstr(cJSON_GetArrayItem(log, 0), "body", "model"), "m");
    cJSON_Delete(log);
    fake_stop(&f);

    /* llama.cpp shape: {"prompt"} gets [] back, {"content"} works, and is remembered */
    if (fake_start(&f, "{\"/tokenize\":[{\"llama_tokenize\":true}]}")) {
        CHECK(0);
        return;
    }
    c = make_client(f.url, NULL, NULL);
    CHECK_INT(client_tokenize(c, "a b c", 5, &n, &err), 0);
    CHECK_INT(n, 3);
    CHECK_INT(client_tokenize(c, "x y", 3, &n, &err), 0);
    CHECK_INT(n, 2);
    client_free(c);
    log = fake_log(&f);
    CHECK_INT(cJSON_GetArraySize(log), 3);
    CHECK_STR(jstr(cJSON_GetArrayItem(log, 2), "body", "content"), "x y");
    cJSON_Delete(log);
    fake_stop(&f);

    /* no /tokenize */
    if (fake_start(&f, "{\"*\":[{\"status\":404,\"json\":{\"detail\":\"Not Found\"}}]}")) {
        CHECK(0);
        return;
    }
    c = make_client(f.url, NULL, NULL);
    strbuf_reset(&err);
    CHECK_INT(client_tokenize(c, "a b", 3, &n, &err), -1);
    CHECK(strstr(err.buf, "no /tokenize endpoint") != NULL);
    client_free(c);
    fake_stop(&f);
    strbuf_release(&err);
}

static void verbose_tweak(struct client_config *cfg)
{
    cfg->verbose = 1;
}

/* verbose output shows the exchange but never the key */
static void test_http_verbose_redacts(void)
{
    struct fake f;
    struct client *c;
    struct client_response *r;
    char path[256];
    struct strbuf out = STRBUF_INIT;
    int saved, fd;
    if (fake_start(&f, "{\"/v1/chat/completions\":[" OKBODY("\"x\"", "stop", "1") "]}")) {
        CHECK(0);
        return;
    }
    snprintf(path, sizeof(path), "%s/stderr", f.dir);
    fflush(stderr);
    saved = dup(2);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 2);
    close(fd);
    c = make_client(f.url, "sk-live-VERYSECRET", verbose_tweak);
    r = c ? roundtrip(c, "hi", 0) : NULL;
    client_free(c);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    CHECK(r && r->cls == CLIENT_OK);
    client_response_free(r);
    CHECK_INT(strbuf_read_file(&out, path), 0);
    CHECK(strstr(out.buf, "POST /v1/chat/completions") != NULL);
    CHECK(strstr(out.buf, "Authorization: <redacted>") != NULL);
    CHECK(strstr(out.buf, "VERYSECRET") == NULL);
    unlink(path);
    strbuf_release(&out);
    fake_stop(&f);
}

static void test_config_errors(void)
{
    struct client_config cfg;
    struct strbuf err = STRBUF_INIT;
    client_config_init(&cfg);
    CHECK(client_new(&cfg, &err) == NULL);
    CHECK(strstr(err.buf, "endpoint") != NULL);
    strvec_push(&cfg.endpoints, "http://127.0.0.1:9");
    strbuf_reset(&err);
    CHECK(client_new(&cfg, &err) == NULL);
    CHECK(strstr(err.buf, "model") != NULL);
    cfg.model = "m";
    strvec_push(&cfg.headers, "no colon here");
    strbuf_reset(&err);
    CHECK(client_new(&cfg, &err) == NULL);
    CHECK(strstr(err.buf, "Name: value") != NULL);
    strvec_clear(&cfg.headers);
    strvec_push(&cfg.endpoints, "localhost:8000");
    strbuf_reset(&err);
    CHECK(client_new(&cfg, &err) == NULL);
    CHECK(strstr(err.buf, "http://") != NULL);
    client_config_release(&cfg);
    strbuf_release(&err);
}

/* ------------------------------------------------ against dipmap serve-sim */

struct sim {
    pid_t pid;
    char url[64];
};

/* Start `$DIPMAP serve-sim --port 0 ARGS...`; the port is its first stdout line. */
static int sim_start(struct sim *s, const char *const *args)
{
    const char *bin = getenv("DIPMAP");
    const char *argv[32];
    int pipefd[2], n = 0, port = 0;
    char buf[64];
    size_t got = 0;
    memset(s, 0, sizeof(*s));
    if (!bin || access(bin, X_OK))
        return -1;
    argv[n++] = bin;
    argv[n++] = "serve-sim";
    argv[n++] = "--port";
    argv[n++] = "0";
    for (int i = 0; args[i] && n < 30; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    if (pipe(pipefd))
        return -1;
    s->pid = fork();
    if (s->pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        dup2(pipefd[1], 1);
        dup2(devnull, 2);
        close(pipefd[0]);
        execv(bin, (char *const *)argv);
        _exit(127);
    }
    close(pipefd[1]);
    while (got < sizeof(buf) - 1) {
        ssize_t r = read(pipefd[0], buf + got, 1);
        if (r <= 0 || buf[got] == '\n')
            break;
        got++;
    }
    buf[got] = '\0';
    close(pipefd[0]);
    /* "8123" or "listening on http://127.0.0.1:8123" */
    {
        const char *p = strrchr(buf, ':');
        port = (int)strtol(p ? p + 1 : buf, NULL, 10);
    }
    if (port <= 0) {
        fprintf(stderr, "  serve-sim did not print its port (got \"%s\")\n", buf);
        return -1;
    }
    snprintf(s->url, sizeof(s->url), "http://127.0.0.1:%d", port);
    return 0;
}

static void sim_stop(struct sim *s)
{
    if (s->pid > 0) {
        kill(s->pid, SIGTERM);
        waitpid(s->pid, NULL, 0);
        s->pid = 0;
    }
}

static const char *long_text(void)
{
    static char buf[8192];
    if (!buf[0]) {
        size_t n = 0;
        while (n + 32 < sizeof(buf))
            n += (size_t)snprintf(buf + n, sizeof(buf) - n, "The quick brown fox %zu. ", n);
    }
    return buf;
}

static const char *sim_model = "dipmap-sim";

static long sim_max_tokens;

static void sim_tweak(struct client_config *cfg)
{
    cfg->model = sim_model;
    if (sim_max_tokens > 0)
        cfg->max_tokens = sim_max_tokens;
}

/* One request to a fresh simulator started with args; returns its classification. */
static struct client_response *sim_once(const char *const *args, const char *key, const char *text,
                                        long expected)
{
    struct sim s;
    struct client *c;
    struct client_response *r;
    if (sim_start(&s, args))
        return NULL;
    c = make_client(s.url, key, sim_tweak);
    r = c ? roundtrip(c, text, expected) : NULL;
    client_free(c);
    sim_stop(&s);
    return r;
}

/* The client's classes against H3's simulator (skipped when $DIPMAP is not set). */
static void test_sim_interop(void)
{
    static const struct {
        const char *args[6];
        int long_prompt;
        enum client_class cls;
        enum client_reason reason;
    } cases[] = {
        {{NULL}, 0, CLIENT_OK, CLIENT_R_NONE},
        {{"--faults", "429=1", "--retry-after-ms", "700", NULL},
         0,
         CLIENT_RETRYABLE,
         CLIENT_R_RATE_LIMIT},
        {{"--faults", "500=1", NULL}, 0, CLIENT_RETRYABLE, CLIENT_R_SERVER_ERROR},
        {{"--faults", "503=1", NULL}, 0, CLIENT_RETRYABLE, CLIENT_R_SERVER_ERROR},
        {{"--faults", "drop=1", NULL}, 0, CLIENT_RETRYABLE, CLIENT_R_TRANSPORT},
        {{"--faults", "garbage=1", NULL}, 0, CLIENT_RETRYABLE, CLIENT_R_BAD_BODY},
        {{"--faults", "error200=1", NULL}, 0, CLIENT_RETRYABLE, CLIENT_R_ERROR_IN_BODY},
        /* a body cut short (Content-Length not met) */
        {{"--faults", "truncate=1", NULL}, 0, CLIENT_RETRYABLE, CLIENT_R_TRANSPORT},
        /* max_tokens 1: finish_reason length: an answer, cut */
        {{"MAX1", NULL}, 0, CLIENT_OK, CLIENT_R_NONE},
        {{"--reasoning", "1", NULL}, 0, CLIENT_STARVED, CLIENT_R_LENGTH},
        {{"--ctx", "256", NULL}, 1, CLIENT_OVERFLOW, CLIENT_R_NONE},
        {{"--shift-ctx", "256", NULL}, 1, CLIENT_TRUNCATED, CLIENT_R_PROMPT_SHORT},
        {{"--api-key", "right-key", NULL}, 0, CLIENT_FATAL, CLIENT_R_AUTH},
    };
    struct client_response *r;
    long full_count = -1;
    if (!getenv("DIPMAP")) {
        TEST_SKIP("$DIPMAP not set (tests/run.sh sets it)");
        return;
    }
    /* the prompt's token count as the simulator counts it, for the truncation check */
    {
        const char *none[] = {NULL};
        r = sim_once(none, NULL, long_text(), 0);
        CHECK(r && r->cls == CLIENT_OK && r->prompt_tokens > 1000);
        if (r)
            full_count = r->prompt_tokens;
        client_response_free(r);
    }
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int max1 = cases[i].args[0] && !strcmp(cases[i].args[0], "MAX1");
        static const char *const none[] = {NULL};
        sim_max_tokens = max1 ? 1 : 0;
        r = sim_once(max1 ? none : cases[i].args, "wrong-key",
                     cases[i].long_prompt ? long_text() : "Hello?",
                     cases[i].long_prompt ? full_count : 0);
        sim_max_tokens = 0;
        CHECK(r != NULL);
        if (!r)
            continue;
        if (r->cls != cases[i].cls || r->reason != cases[i].reason)
            fprintf(stderr, "  sim case %zu (%s %s): got %s/%s HTTP %ld: %s\n", i,
                    cases[i].args[0] ? cases[i].args[0] : "",
                    cases[i].args[1] ? cases[i].args[1] : "", client_class_name(r->cls),
                    client_reason_name(r->reason), r->http_status, r->error ? r->error : "");
        CHECK_INT(r->cls, cases[i].cls);
        CHECK_INT(r->reason, cases[i].reason);
        if (cases[i].reason == CLIENT_R_RATE_LIMIT)
            CHECK_INT(r->retry_after_ms, 700);
        if (cases[i].cls == CLIENT_OK)
            CHECK(r->model && r->content && r->prompt_tokens > 0);
        if (cases[i].cls == CLIENT_STARVED)
            CHECK(r->reasoning && *r->reasoning);
        CHECK_INT(r->cut, max1);
        client_response_free(r);
    }
    /* preflight: context from /v1/models or /props, a missing model is fatal */
    {
        const char *args[] = {"--ctx", "32k", NULL};
        struct sim s;
        struct client *c;
        struct client_preflight_info info;
        enum client_reason reason;
        struct strbuf err = STRBUF_INIT;
        long n = -1;
        if (sim_start(&s, args) == 0) {
            c = make_client(s.url, NULL, sim_tweak);
            CHECK_INT(client_preflight(c, &info, &reason, &err), CLIENT_OK);
            CHECK_INT(info.context, 32768);
            CHECK_INT(info.model_listed, 1);
            client_preflight_info_release(&info);
            /* server-side token counts agree with usage.prompt_tokens */
            CHECK_INT(client_tokenize(c, long_text(), strlen(long_text()), &n, &err), 0);
            CHECK(n > 1000 && n <= full_count);
            client_free(c);
            sim_model = "no-such-model";
            c = make_client(s.url, NULL, sim_tweak);
            sim_model = "dipmap-sim";
            strbuf_reset(&err);
            CHECK_INT(client_preflight(c, &info, &reason, &err), CLIENT_FATAL);
            CHECK_INT(reason, CLIENT_R_MODEL_NOT_FOUND);
            client_preflight_info_release(&info);
            client_free(c);
            sim_stop(&s);
        } else {
            CHECK(0);
        }
        strbuf_release(&err);
    }
}

/* RUN, and report slow tests on stderr */
#define TRUN(fn)                                                                                   \
    do {                                                                                           \
        double t0_ = utc_monotonic_ms();                                                           \
        RUN(fn);                                                                                   \
        if (utc_monotonic_ms() - t0_ > 1500)                                                       \
            fprintf(stderr, "  %s took %.1f s\n", #fn, (utc_monotonic_ms() - t0_) / 1000);         \
    } while (0)

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    TRUN(test_names);
    TRUN(test_normalize);
    TRUN(test_error_message);
    TRUN(test_overflow_messages);
    TRUN(test_budget_verdict);
    TRUN(test_classify_table);
    TRUN(test_classify_fields);
    TRUN(test_classify_context_shift);
    TRUN(test_config_errors);
    TRUN(test_http_request_shape);
    TRUN(test_http_legacy_and_fields);
    TRUN(test_http_azure);
    TRUN(test_http_classes);
    TRUN(test_http_drop);
    TRUN(test_http_unreachable);
    TRUN(test_http_concurrency);
    TRUN(test_http_retry_after);
    TRUN(test_http_preflight);
    TRUN(test_http_tokenize);
    TRUN(test_http_verbose_redacts);
    TRUN(test_sim_interop);
    fake_kill(&pool[0]);
    fake_kill(&pool[1]);
    return TEST_EXIT();
}

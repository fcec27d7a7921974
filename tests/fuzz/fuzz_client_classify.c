/*
 * libFuzzer target for the client's pure classifier: any status, header
 * block and body in; the response must be consistent (a class in range, an
 * error message for everything not OK, content for OK) and nothing may read
 * past the body (it is copied into an exactly-sized buffer for ASan).
 * Input: 2 bytes status, 1 byte flags, then "headers\n\n body".
 * Build and run: `make fuzz-client` (clang, -fsanitize=fuzzer,address,undefined).
 */
#define _GNU_SOURCE /* memmem */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "base/strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int blank(const char *s)
{
    for (; s && *s; s++)
        if (!isspace((unsigned char)*s))
            return 0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const long statuses[] = {200, 201, 400, 401, 403, 404, 408, 409, 413,
                                    422, 429, 500, 501, 502, 503, 504, 301, 100};
    struct client_exchange ex;
    struct client_response r;
    struct strbuf headers = STRBUF_INIT, msg = STRBUF_INIT, code = STRBUF_INIT;
    const uint8_t *split, *body;
    size_t body_len;
    char *body_copy;
    unsigned st;

    if (size < 3)
        return 0;
    st = (unsigned)data[0] << 8 | data[1];
    memset(&ex, 0, sizeof(ex));
    ex.status =
        st < 0x8000 ? statuses[st % (sizeof(statuses) / sizeof(statuses[0]))] : (long)(st % 700);
    ex.legacy = data[2] & 1;
    ex.expected_prompt_tokens = (data[2] & 2) ? 1000 : 0;
    ex.truncation_ratio = (data[2] & 4) ? 0.5 : 0;
    ex.now = 1445412480;
    data += 3;
    size -= 3;
    split = size >= 2 ? memmem(data, size, "\n\n", 2) : NULL;
    if (split) {
        strbuf_add(&headers, data, (size_t)(split - data));
        body = split + 2;
    } else {
        body = data;
    }
    body_len = size - (size_t)(body - data);
    body_copy = malloc(body_len ? body_len : 1);
    if (body_len)
        memcpy(body_copy, body, body_len);
    ex.headers = split ? headers.buf : NULL;
    ex.body = body_copy;
    ex.body_len = body_len;

    client_response_init(&r);
    r.tag = &r;
    client_classify(&ex, &r);
    if ((int)r.cls < 0 || r.cls >= CLIENT_CLASS__COUNT)
        abort();
    if ((int)r.reason < 0 || r.reason >= CLIENT_REASON__COUNT)
        abort();
    if (r.tag != &r || r.http_status != ex.status)
        abort();
    if (r.cls != CLIENT_OK && !r.error)
        abort();
    if (r.cls == CLIENT_OK && blank(r.content))
        abort();
    if (r.retry_after_ms < -1)
        abort();
    if (r.error && strlen(r.error) > 8192)
        abort();
    /* classifying twice into the same response must not leak or crash */
    client_classify(&ex, &r);
    client_response_release(&r);

    client_error_message(body_copy, body_len, &msg, &code);
    (void)client_is_overflow_message(msg.buf);
    strbuf_release(&msg);
    strbuf_release(&code);
    strbuf_release(&headers);
    free(body_copy);
    return 0;
}

/*
 * libFuzzer target for the client's header parsers: Retry-After (seconds or
 * HTTP-date), retry-after-ms, x-ratelimit-reset-* durations ("6m0s"), and
 * the raw duration / HTTP-date parsers. Results must be -1 or a sane delay.
 * Build and run: `make fuzz-client` (clang, -fsanitize=fuzzer,address,undefined).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client/client.h"
#include "base/strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct strbuf s = STRBUF_INIT, block = STRBUF_INIT, v = STRBUF_INIT;
    static const char *const names[] = {"Retry-After", "retry-after-ms",
                                        "x-ratelimit-reset-requests", "x-ratelimit-reset-tokens"};
    time_t t;
    long ms;

    strbuf_add(&s, data, size);
    /* as a bare value */
    ms = client_parse_duration_ms(s.buf);
    if (ms < -1 || ms > 1000000000000L)
        abort();
    (void)client_parse_http_date(s.buf, &t);
    /* as a whole header block */
    ms = client_retry_after_ms(s.buf, 1445412480);
    if (ms < -1)
        abort();
    /* as the value of each header the client reads */
    if (size && !memchr(data, '\n', size) && !memchr(data, '\r', size)) {
        const char *name = names[data[0] % 4];
        strbuf_addf(&block, "HTTP/1.1 429 Too Many Requests\r\n%s: %s\r\n", name, s.buf);
        ms = client_retry_after_ms(block.buf, 1445412480);
        if (ms < -1)
            abort();
        if (client_header_get(block.buf, name, &v) != 0)
            abort();
    }
    strbuf_release(&s);
    strbuf_release(&block);
    strbuf_release(&v);
    return 0;
}

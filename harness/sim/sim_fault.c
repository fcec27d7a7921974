/*
 * serve-sim's fault injection: the --faults spec, the fault drawn for each generation request
 * (a hash of the fault seed and the request counter, independent of the content, so a retry
 * can succeed) and the reply it puts in place of the answer, in the shape of the server it
 * imitates (sim.h "Faults").
 */
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/num.h"
#include "sim/sim-int.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"

#include "base/banned.h"

static const char *const fault_names[SIM_FAULT__COUNT] = {
    "none", "429", "500", "503", "drop", "truncate", "garbage", "slow", "error200", "html200",
};

const char *sim_fault_name(enum sim_fault f)
{
    return (unsigned)f < SIM_FAULT__COUNT ? fault_names[f] : "unknown";
}

int sim_faults_parse(const char *spec, struct sim_faults *out, struct strbuf *err)
{
    struct sim_faults f;
    struct strvec kv = STRVEC_INIT;
    double sum = 0;
    int ret = -1;

    memset(&f, 0, sizeof(f));
    strvec_split(&kv, spec, ',');
    for (size_t i = 0; i < kv.nr; i++) {
        char *eq = strchr(kv.v[i], '=');
        int k;
        double r;
        if (!*kv.v[i] && kv.nr == 1)
            break; /* "" = no faults */
        if (!eq) {
            strbuf_addf(err, "faults: '%s' is not KIND=RATE", kv.v[i]);
            goto cleanup;
        }
        *eq = '\0';
        for (k = 1; k < SIM_FAULT__COUNT; k++)
            if (!strcmp(kv.v[i], fault_names[k]))
                break;
        if (k == SIM_FAULT__COUNT) {
            strbuf_addf(err,
                        "faults: unknown kind '%s' (known: 429, 500, 503, drop, truncate, "
                        "garbage, slow, error200, html200)",
                        kv.v[i]);
            goto cleanup;
        }
        if (parse_double_range(eq + 1, 0, 1, &r)) {
            strbuf_addf(err, "faults: rate of '%s' must be a number in [0,1]", kv.v[i]);
            goto cleanup;
        }
        f.rate[k] = r;
    }
    for (int k = 1; k < SIM_FAULT__COUNT; k++)
        sum += f.rate[k];
    if (sum > 1 + 1e-9) {
        strbuf_addf(err, "faults: the rates add up to %g, more than 1", sum);
        goto cleanup;
    }
    *out = f;
    ret = 0;
cleanup:
    strvec_clear(&kv);
    return ret;
}

enum sim_fault sim_fault_draw(const struct sim_faults *f, uint64_t fault_seed, uint64_t counter)
{
    double u = sim_to_unit(sim_mix64(sim_mix64(fault_seed ^ 0xfa017ULL) ^ counter)), acc = 0;
    for (int k = 1; k < SIM_FAULT__COUNT; k++) {
        acc += f->rate[k];
        if (u < acc)
            return (enum sim_fault)k;
    }
    return SIM_FAULT_NONE;
}

void sim_fault_apply(struct sim_server *s, enum sim_fault f, struct sim_reply *r)
{
    /* a completion cut mid-body by a flaky proxy: not JSON, and asking again helps (an HTML
       page would stop the run: client_body_is_html) */
    static const char garbage[] = "{\"id\":\"chatcmpl-sim\",\"object\":\"chat.completion\","
                                  "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assi";
    struct json *root, *e;
    switch (f) {
    case SIM_FAULT_NONE:
    case SIM_FAULT_SLOW:
        break;
    case SIM_FAULT_429:
        sim_error_reply(r, 429, "requests", NULL, "rate_limit_exceeded",
                        "Rate limit reached for requests (simulated by dipmap serve-sim). "
                        "Please try again later.");
        r->retry_after_ms = s->cfg->retry_after_ms > 0 ? s->cfg->retry_after_ms : 1;
        break;
    case SIM_FAULT_500:
        /* vLLM's shape: the exception's class as the type, the status as an integer code */
        root = json_new_object();
        e = json_add_object(root, "error");
        json_add_str(e, "message", "Internal server error (simulated by dipmap serve-sim)");
        json_add_str(e, "type", "InternalServerError");
        json_add_null(e, "param");
        json_add_num(e, "code", 500);
        sim_json_reply(r, 500, root);
        break;
    case SIM_FAULT_503:
        /* llama.cpp's shape: {"error":{"code":503,"message":"Loading model","type":...}} */
        root = json_new_object();
        e = json_add_object(root, "error");
        json_add_num(e, "code", 503);
        json_add_str(e, "message", "Loading model");
        json_add_str(e, "type", "unavailable_error");
        sim_json_reply(r, 503, root);
        break;
    case SIM_FAULT_DROP:
        r->drop = 1;
        break;
    case SIM_FAULT_TRUNCATE:
        r->truncate = 1;
        break;
    case SIM_FAULT_GARBAGE:
        free(r->body);
        r->body = xstrdup(garbage);
        r->len = strlen(garbage);
        r->status = 200;
        r->content_type = "application/json";
        break;
    case SIM_FAULT_ERROR200:
        sim_error_reply(r, 500, "server_error", NULL, NULL,
                        "The server had an error while processing your request (simulated).");
        r->status = 200;
        break;
    case SIM_FAULT_HTML200:
        /* a gateway's page for one request, then the API again: retried (runner.c) */
        free(r->body);
        r->body = xstrdup("<html><body>bad gateway (simulated by dipmap serve-sim)</body></html>");
        r->len = strlen(r->body);
        r->status = 200;
        r->content_type = "text/html";
        break;
    case SIM_FAULT__COUNT:
        break;
    }
}

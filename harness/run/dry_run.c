/*
 * `dipmap run --dry-run`'s estimates, as text for the command to print: the
 * order experiment's prompt tokens per k, the batch cost beside the online one,
 * and --probe's one timed request.
 */
#include <errno.h>
#include <pthread.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cmd/builtin.h"
#include "client/client.h"
#include "base/config.h"
#include "base/escape.h"
#include "prompt/dataset.h"
#include "base/json.h"
#include "base/num.h"
#include "base/opt.h"
#include "prompt/order.h"
#include "client/overhead.h"
#include "run/axes.h"
#include "run/estimate.h"
#include "run/batch.h"
#include "run/plan.h"
#include "stats/power.h"
#include "prompt/layout.h"
#include "prompt/prompt.h"
#include "client/reasoning.h"
#include "prompt/retrieval.h"
#include "run/reuse.h"
#include "run/run_identity.h"
#include "report/runbrief.h"
#include "run/runner.h"
#include "run/score.h"
#include "stats/stats.h"
#include "base/secret.h"
#include "store/store.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "tokenizer/tokenizer.h"
#include "base/usage.h"
#include "base/version.h"
#include "base/xalloc.h"
#include "base/utc.h"

#include "run/run_cmd.h"

#include "base/banned.h"

/* --batch --dry-run: the batch cost beside the online one, and the time the window allows. */
void dry_run_batch(struct run_ctx *c, double online_usd, struct strbuf *out)
{
    struct plan_cost cost;
    struct strbuf scratch = STRBUF_INIT;
    double usd = -1;
    size_t files;
    cost.price_in = c->o.price_batch_in;
    cost.price_out = c->o.price_batch_out;
    cost.max_answer_tokens = c->o.max_tokens;
    if (cost.price_in >= 0)
        plan_summary(&c->plan, &c->spec, &cost, &scratch, &usd);
    files = (c->plan.nr + (size_t)c->o.batch_max_requests - 1) / (size_t)c->o.batch_max_requests;
    if (out->len && out->buf[out->len - 1] != '\n')
        strbuf_addch(out, '\n');
    strbuf_addf(out, "batch: %zu request(s) in at least %zu input file(s) of at most %ld",
                c->plan.nr, files ? files : 1, c->o.batch_max_requests);
    if (usd >= 0 && online_usd >= 0)
        strbuf_addf(out, "; cost $%.4f at batch prices against $%.4f online", usd, online_usd);
    strbuf_addf(out,
                "; answered within the %s completion window (often much sooner), instead "
                "of the online time above\n",
                c->o.batch_window);
    strbuf_release(&scratch);
}

/*
 * The run --reuse index: stored answers by request hash (see reuse.h).
 * Owns copies of the trials it indexes, found by base/hashmap.h. A request
 * that stored runs answered differently is not reused.
 */
#include "run/reuse.h"

#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "base/json.h"
#include "base/usage.h"
#include "base/hashmap.h"
#include "base/strbuf.h"
#include "run/trial.h"
#include "base/xalloc.h"

#include "base/banned.h"

struct reuse_entry {
    struct trial_result t; /* owned */
    size_t source;         /* index into sources */
    int conflict;          /* another stored run answered the same request otherwise */
};

struct reuse_index {
    struct reuse_entry *e;
    size_t nr, alloc;
    struct hashmap map; /* request hash -> entry */
    char **sources;
    size_t nsources;
};

static int reusable(const struct trial_result *t)
{
    return t->request_sha256[0] && (t->outcome == OUTCOME_CORRECT || t->outcome == OUTCOME_WRONG ||
                                    t->outcome == OUTCOME_EMPTY || t->outcome == OUTCOME_STARVED);
}

/* The first 16 hex digits: a sha256 is already uniform. */
static uint64_t hash_hex(const char *hex)
{
    uint64_t h = 0;
    for (int i = 0; i < 16 && hex[i]; i++)
        h = h * 16 + (uint64_t)(hex[i] <= '9' ? hex[i] - '0' : hex[i] - 'a' + 10);
    return h;
}

static void add(struct reuse_index *ix, const struct trial_result *t, size_t source)
{
    struct reuse_entry *e;
    ALLOC_GROW(ix->e, ix->nr + 1, ix->alloc);
    e = &ix->e[ix->nr++];
    trial_result_copy(&e->t, t);
    e->source = source;
    e->conflict = 0;
}

static int request_is(const void *hex, size_t entry, const void *index)
{
    return !strcmp(((const struct reuse_index *)index)->e[entry].t.request_sha256, hex);
}

/* One answer: the same text (scored runs may score it otherwise), the same unscored outcome. */
static int same_answer(const struct trial_result *a, const struct trial_result *b)
{
    const char *x = a->answer ? a->answer : "", *y = b->answer ? b->answer : "";
    if ((!outcome_is_scored(a->outcome) || !outcome_is_scored(b->outcome)) &&
        a->outcome != b->outcome)
        return 0;
    return !strcmp(x, y);
}

/*
 * The first stored answer of a request wins (hashmap_put keeps the earlier entry), unless
 * another answer of the same bytes differs: at temperature 0 one request has one answer
 * from one model, so two mean two servers (or models) under one model name -- the request
 * body cannot tell which one this run talks to -- and the request is sent again. Returns
 * the requests so marked; *a and *b name the first pair's sources.
 */
static size_t build_table(struct reuse_index *ix, const char **a, const char **b)
{
    size_t conflicts = 0;
    for (size_t i = 0; i < ix->nr; i++) {
        const char *hex = ix->e[i].t.request_sha256;
        size_t had = hashmap_put(&ix->map, hash_hex(hex), hex, i, request_is, ix);
        struct reuse_entry *first = had == HASHMAP_NONE ? NULL : &ix->e[had];
        if (!first || first->conflict || same_answer(&first->t, &ix->e[i].t))
            continue;
        first->conflict = 1;
        if (!conflicts++) {
            *a = ix->sources[first->source];
            *b = ix->sources[ix->e[i].source];
        }
    }
    return conflicts;
}

/*
 * The temperature a stored run sampled its answers at (its settings; 0 when absent). An
 * answer drawn at temperature > 0 is one draw of many: reusing it freezes that draw, and
 * every comparison against it would be conditional on it (VALIDATION.md, "A frozen
 * sampled baseline"). Such answers are not reused: the requests are sent again (redrawn).
 */
static double run_temperature(const struct run_info *r)
{
    struct json *o = json_parse_str(r->settings_json);
    double t = o ? json_num(json_get(o, "temperature"), 0.0) : 0.0;
    json_free(o);
    return t;
}

struct reuse_index *reuse_index_load(struct store *st, const char *run, const char *label,
                                     size_t *n_out)
{
    struct reuse_index *ix = xcalloc(1, sizeof(*ix));
    struct run_info *runs = NULL;
    struct run_filter f = {NULL, NULL, run};
    size_t nruns = 0, conflicts;
    const char *first_a = NULL, *first_b = NULL;

    if (store_run_list(st, run ? &f : NULL, &runs, &nruns) < 0)
        goto fail;
    ix->sources = xcalloc(nruns ? nruns : 1, sizeof(*ix->sources));
    for (size_t r = 0; r < nruns; r++) {
        struct trial_result *v = NULL;
        struct strbuf sb = STRBUF_INIT;
        size_t n = 0;
        double temp = run_temperature(&runs[r]);
        if (temp > 0.0) {
            warning("reuse: %s:%s was sampled at temperature %g: its answers are drawn again, "
                    "not reused (a frozen draw would make every comparison against it "
                    "conditional on that one draw)",
                    label, runs[r].name, temp);
            continue;
        }
        if (store_trials_load(st, runs[r].name, &v, &n) < 0)
            goto fail;
        strbuf_addf(&sb, "%s:%s", label, runs[r].name);
        ix->sources[ix->nsources++] = strbuf_detach(&sb, NULL);
        for (size_t i = 0; i < n; i++)
            if (reusable(&v[i]))
                add(ix, &v[i], ix->nsources - 1);
        store_trials_free(v, n);
    }
    run_info_list_free(runs, nruns);
    conflicts = build_table(ix, &first_a, &first_b);
    if (conflicts)
        warning("reuse: %zu request(s) were answered otherwise by %s than by %s (the same bytes "
                "at temperature 0: another server or model under the same name?): not reused, "
                "sent again",
                conflicts, first_b, first_a);
    if (n_out)
        *n_out = ix->nr;
    return ix;
fail:
    run_info_list_free(runs, nruns);
    reuse_index_free(ix);
    return NULL;
}

const struct trial_result *reuse_find(const struct reuse_index *ix,
                                      const char hex[SHA256_HEX_LEN + 1], const char **source)
{
    const struct reuse_entry *e;
    size_t i;
    if (!ix || !hex[0])
        return NULL;
    i = hashmap_find(&ix->map, hash_hex(hex), hex, request_is, ix);
    if (i == HASHMAP_NONE)
        return NULL;
    e = &ix->e[i];
    if (e->conflict)
        return NULL;
    if (source)
        *source = ix->sources[e->source];
    return &e->t;
}

void reuse_index_free(struct reuse_index *ix)
{
    if (!ix)
        return;
    for (size_t i = 0; i < ix->nr; i++)
        trial_result_release(&ix->e[i].t);
    for (size_t i = 0; i < ix->nsources; i++)
        free(ix->sources[i]);
    free(ix->sources);
    free(ix->e);
    hashmap_clear(&ix->map);
    free(ix);
}

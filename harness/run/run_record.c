/*
 * `dipmap run`'s record in the store: what identifies the run (its inputs'
 * hashes, settings, endpoints, tags, shard, the matrix it plans), then its row
 * created or brought up to date on a resume (tags added, planned counts, the
 * request probe), the golden set kept once per store, status running and the
 * served model, committed. Errors go into c->err (cmd_run.c prints them);
 * the tags-added notice and the changed-golden-set warning print here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sha256.h"
#include "base/strbuf.h"
#include "base/usage.h"
#include "base/version.h"
#include "base/xalloc.h"
#include "prompt/dataset.h"
#include "run/run_cmd.h"
#include "run/score.h"
#include "store/store.h"

#include "base/banned.h"

/*
 * The trials of the whole matrix, every shard's (plan.total_nr), of the
 * --questions kept: each question holds the same share of it.
 */
static long matrix_planned(const struct run_ctx *c)
{
    size_t n = c->plan.total_nr;
    if (c->o.questions > 0 && (size_t)c->o.questions < c->gs.nr)
        n = n / c->gs.nr * (size_t)c->o.questions;
    return (long)n;
}

/* What identifies this run (c->want): inputs' hashes, settings, endpoints, tags, shard. */
int run_record_describe(struct run_ctx *c)
{
    size_t i;

    c->want.name = xstrdup(c->run_name);
    c->want.model_requested = xstrdup(c->o.model);
    strbuf_reset(&c->sb);
    for (i = 0; i < client_endpoint_count(c->client); i++)
        strbuf_addf(&c->sb, "%s%s", i ? "," : "", client_endpoint_url(c->client, (int)i));
    c->want.endpoints = strbuf_detach(&c->sb, NULL);
    c->want.settings_json = run_ctx_settings(c);
    c->want.golden_sha256 = xstrdup(c->gs.sha256);
    strbuf_reset(&c->sb);
    score_version(c->default_scorer, &c->sb);
    c->want.scorer_version = strbuf_detach(&c->sb, NULL);
    if (c->have_hay)
        c->want.haystack_sha256 = xstrdup(c->hay.sha256);
    c->want.template_sha256 = xstrdup(c->tpl.sha256);
    c->want.tokenizer_name = xstrdup(tokenizer_name(c->tk));
    c->want.tokenizer_sha256 = xstrdup(tokenizer_hash(c->tk));
    c->want.dipmap_version = xstrdup(dipmap_version);
    c->want.dipmap_commit = xstrdup(dipmap_commit);
    if (c->o.tags.nr) {
        strbuf_reset(&c->sb);
        for (i = 0; i < c->o.tags.nr; i++)
            strbuf_addf(&c->sb, "%s%s", i ? "," : "", c->o.tags.v[i]);
        c->want.tags = strbuf_detach(&c->sb, NULL);
    }
    if (c->shard_n > 1) {
        strbuf_reset(&c->sb);
        strbuf_addf(&c->sb, "%u/%u", c->shard_i + 1, c->shard_n);
        c->want.shard = strbuf_detach(&c->sb, NULL);
    }
    c->want.status = RUN_RUNNING;
    c->want.trials_planned = (long)c->plan.nr;
    c->want.matrix_planned = matrix_planned(c);
    return 0;
}

/* --tag on a resume: the run gets the tags it does not have yet (labels, not identity). */
static int add_tags(struct run_ctx *c)
{
    struct strvec have = STRVEC_INIT, added = STRVEC_INIT;
    size_t i;
    int ret = 0;

    if (c->have.tags && *c->have.tags)
        strvec_split(&have, c->have.tags, ',');
    for (i = 0; i < c->o.tags.nr; i++)
        if (strvec_find(&have, c->o.tags.v[i]) < 0 && strvec_find(&added, c->o.tags.v[i]) < 0)
            strvec_push(&added, c->o.tags.v[i]);
    if (added.nr) {
        strbuf_reset(&c->sb);
        for (i = 0; i < have.nr + added.nr; i++)
            strbuf_addf(&c->sb, "%s%s", i ? "," : "",
                        i < have.nr ? have.v[i] : added.v[i - have.nr]);
        if (store_run_set_tags(c->st, c->run_name, c->sb.buf) < 0) {
            c->ret = DM_EXIT_INFRA;
            ret = -1;
        } else {
            fprintf(stderr, "run '%s': tag(s) added: ", c->run_name);
            for (i = 0; i < added.nr; i++)
                fprintf(stderr, "%s%s", i ? ", " : "", added.v[i]);
            fprintf(stderr, " (now %s)\n", c->sb.buf);
        }
    }
    strvec_clear(&have);
    strvec_clear(&added);
    return ret;
}

/* One block of the golden set's text into the store's blob (dataset_text_each()'s callback). */
static int golden_block(const void *block, size_t len, void *data)
{
    return store_golden_write(data, block, len) ? 1 : 0;
}

/*
 * The golden set goes into the store (once per store, by its sha256), so report and
 * rescore need no --dataset. Read again from the file, and kept only if it is still
 * the content the run loaded.
 */
static int keep_golden_set(struct run_ctx *c)
{
    struct store_golden_writer *w;
    char sha[SHA256_HEX_LEN + 1];
    size_t size;
    int rc, same;
    /*
     * Streamed into the store's blob under the hash and length the load measured (a golden
     * set of tens of MB is never held in memory; it was, twice); not read at all when kept.
     */
    rc = store_golden_begin(c->st, c->gs.sha256, c->gs.text_len, &w);
    if (rc < 0) {
        strbuf_addf(&c->err, "run: %s", store_errmsg(c->st));
        return -1;
    }
    if (rc)
        return 0; /* kept already */
    rc = dataset_text_each(c->o.dataset, golden_block, w, sha, &size);
    same = !rc && size == c->gs.text_len && !strcmp(sha, c->gs.sha256);
    if (store_golden_end(w, same) < 0)
        return -1;
    if (!same)
        warning("run: %s changed while the run started: its golden set is not kept in the store",
                c->o.dataset);
    return 0;
}

/* The run row, its lock, status running and the served model, committed. */
int run_record(struct run_ctx *c)
{
    int prc;

    if (!c->exists) {
        prc = store_run_create(c->st, &c->want);
        if (prc < 0)
            return -1;
        prc = store_run_lock(c->st, c->run_name, 0);
        if (prc < 0)
            return -1;
        c->locked = 1;
    } else {
        if (add_tags(c) < 0)
            return -1;
        if (c->have.trials_planned != (long)c->plan.nr)
            store_run_set_planned(c->st, c->run_name, (long)c->plan.nr);
        if (c->have.matrix_planned != matrix_planned(c))
            store_run_set_matrix(c->st, c->run_name, matrix_planned(c));
        if (c->fill_probe &&
            store_run_set_probe(c->st, c->run_name, c->want.probe_key, c->want.probe_sha256) < 0) {
            c->ret = DM_EXIT_INFRA;
            return -1;
        }
    }
    if (keep_golden_set(c) < 0) {
        c->ret = DM_EXIT_INFRA;
        return -1;
    }
    if (store_run_update_status(c->st, c->run_name, RUN_RUNNING) < 0 ||
        store_run_set_served(c->st, c->run_name, c->pinfo.served_model, NULL) < 0 ||
        store_flush(c->st) < 0) {
        c->ret = DM_EXIT_INFRA;
        return -1;
    }
    return 0;
}

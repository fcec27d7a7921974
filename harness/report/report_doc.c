/*
 * Gathers what a run report shows (see report_doc.h): run, trials, statistics,
 * plot notes, failed trials with their questions. Shared by `dipmap report`
 * (files) and `dipmap view` (pages); report.c writes the documents.
 */
#include "report/report_doc.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/escape.h"
#include "base/json.h"
#include "run/plan.h"
#include "report/plot.h"
#include "prompt/overlap.h"
#include "stats/hops.h"
#include "stats/absent_stats.h"
#include "run/run_identity.h"
#include "run/score.h"
#include "run/run_identity.h"
#include "tokenizer/tokenizer.h"
#include "base/unicode.h"
#include "base/usage.h"
#include "base/xalloc.h"

#include "base/banned.h"

/* Failed trials listed per length in report.html, from its 2 worst depths. */
#define FAIL_DEPTHS     2
#define FAIL_PER_LENGTH 25

void report_doc_init(struct report_doc *d)
{
    memset(d, 0, sizeof(*d));
    run_info_init(&d->run);
    strbuf_init(&d->usvg, 0);
    strbuf_init(&d->hsvg, 0);
    strbuf_init(&d->plots_note, 0);
    strbuf_init(&d->golden_note, 0);
    strbuf_init(&d->hygiene_note, 0);
    strbuf_init(&d->axis_files, 0);
    strbuf_init(&d->absent_svg, 0);
    strbuf_init(&d->pair_svg, 0);
    strbuf_init(&d->pair_file, 0);
    strbuf_init(&d->decomp_svg, 0);
}

int report_doc_axis_plots(struct report_doc *d, const char *dir, unsigned formats,
                          const char *const *pair, struct strbuf *written)
{
    struct strbuf names = STRBUF_INIT;
    size_t i, off = 0;
    int ret = PLOT_OK;
    if (d->n_axes && !d->axis_svg) {
        d->axis_svg = xcalloc(d->n_axes, sizeof(*d->axis_svg));
        for (i = 0; i < d->n_axes; i++)
            strbuf_init(&d->axis_svg[i], 0);
        ret = report_axis_plots(dir, formats, &d->run, d->axes, d->n_axes, d->axis_svg, &names);
        if (ret == PLOT_OK) {
            d->axis_plots = xcalloc(d->n_axes, sizeof(*d->axis_plots));
            for (i = 0; i < d->n_axes; i++) {
                strbuf_addstr(&d->axis_files, "axis-");
                escape_folder_name(&d->axis_files, d->axes[i].name);
                strbuf_addstr(&d->axis_files, ".svg");
                strbuf_addch(&d->axis_files, '\0');
            }
            for (i = 0; i < d->n_axes; i++) {
                d->axis_plots[i].title = d->axes[i].paired
                                             ? "Accuracy vs depth, one panel per axis value"
                                             : "Accuracy vs depth, one panel per group";
                d->axis_plots[i].file = dir ? d->axis_files.buf + off : NULL;
                d->axis_plots[i].svg = d->axis_svg[i].len ? d->axis_svg[i].buf : NULL;
                off += strlen(d->axis_files.buf + off) + 1;
            }
            if (written)
                strbuf_add(written, names.buf, names.len);
        }
    }
    if (ret == PLOT_OK && d->have_stats && d->stats.absent && !d->have_absent_plot) {
        ret = report_absent_plot(dir, formats, &d->run, d->stats.absent, &d->absent_svg);
        if (ret == PLOT_OK) {
            d->have_absent_plot = 1;
            d->absent_plot.title = "Needle-absent trials: hallucination and false absence by depth";
            d->absent_plot.file = dir ? "absent.svg" : NULL;
            d->absent_plot.svg = d->absent_svg.len ? d->absent_svg.buf : NULL;
            if (written)
                strbuf_addf(written, "%sabsent.svg", written->len ? ", " : "");
        }
    }
    if (ret == PLOT_OK && d->have_stats && d->stats.hops && !d->hops_svg) {
        const struct hops_stats *h = d->stats.hops;
        size_t at = 0;
        d->hops_svg = xcalloc(h->n_lengths, sizeof(*d->hops_svg));
        for (i = 0; i < h->n_lengths; i++)
            strbuf_init(&d->hops_svg[i], 0);
        strbuf_init(&d->hops_files, 0);
        ret = report_hops_plots(dir, formats, &d->run, h, d->hops_svg, &d->hops_files);
        if (ret == PLOT_OK) {
            d->hops_plots = xcalloc(h->n_lengths, sizeof(*d->hops_plots));
            d->n_hops_plots = h->n_lengths;
            for (i = 0; i < h->n_lengths; i++) {
                d->hops_plots[i].title = "Two-hop chains: accuracy by depth A and depth B";
                d->hops_plots[i].file = dir ? d->hops_files.buf + at : NULL;
                d->hops_plots[i].svg = d->hops_svg[i].len ? d->hops_svg[i].buf : NULL;
                if (written)
                    strbuf_addf(written, "%s%s", written->len ? ", " : "", d->hops_files.buf + at);
                at += strlen(d->hops_files.buf + at) + 1;
            }
        }
    }
    if (ret == PLOT_OK && d->have_stats && d->stats.decomp && !d->have_decomp_plot) {
        ret = report_decomp_plot(dir, formats, &d->run, d->stats.decomp, &d->decomp_svg);
        if (ret == PLOT_OK) {
            d->decomp_plot.title = "Length, distraction and position penalties vs length";
            d->decomp_plot.file = dir ? "decomp.svg" : NULL;
            d->decomp_plot.svg = d->decomp_svg.len ? d->decomp_svg.buf : NULL;
            d->have_decomp_plot = 1;
            if (written)
                strbuf_addf(written, "%sdecomp.svg", written->len ? ", " : "");
        }
    }
    if (ret == PLOT_OK && pair && pair[0] && pair[1]) {
        ret = report_axis_pair_plot(dir, formats, &d->run, d->trials, d->ntrials, d->axes,
                                    d->n_axes, pair, &d->pair_svg, &d->pair_file);
        if (ret == PLOT_OK && d->pair_file.len) {
            strbuf_addstr(&d->pair_file, ".svg");
            d->pair_plot.title = "Accuracy per pair of axis values (heatmap)";
            d->pair_plot.file = dir ? d->pair_file.buf : NULL;
            d->pair_plot.svg = d->pair_svg.len ? d->pair_svg.buf : NULL;
            d->have_pair_plot = 1;
            if (written)
                strbuf_addf(written, "%s%s", written->len ? ", " : "", d->pair_file.buf);
        }
    }
    strbuf_release(&names);
    return ret;
}

/*
 * The axes the run declared (settings "axes": {"name": [values]}) give each
 * axis its value order (the first is the reference); then the statistics.
 */
static void declared_axes(const char *settings, struct report_doc *d, const struct stats_options *o)
{
    struct json *j = json_parse_str(settings);
    const struct json *a;
    struct plan_axis decl[16];
    const char *vals[16][32];
    size_t n = 0;
    for (a = json_first(json_get(j, "axes")); a; a = json_next(a)) {
        const struct json *v;
        size_t k = 0;
        if (n >= 16 || !json_key(a) || json_kind(a) != JSON_ARRAY)
            continue;
        for (v = json_first(a); v; v = json_next(v))
            if (json_str(v) && k < 32)
                vals[n][k++] = json_str(v);
        decl[n].name = json_key(a);
        decl[n].values = vals[n];
        decl[n].values_nr = k;
        n++;
    }
    stats_axes_compute(d->points, d->ntrials, decl, n, o, &d->axes, &d->n_axes);
    json_free(j);
}

/* A complete depth run of the same model, template and tokenizer (run_identity_same_curve). */
static int curve_candidate(const struct run_info *me, const struct run_info *r)
{
    return strcmp(me->name, r->name) && r->status == RUN_COMPLETE && run_identity_same_curve(me, r);
}

/*
 * The order experiment's statistics, and its expectations from the newest
 * depth run in the store that can give them (a depth curve at some length).
 */
static void load_order(struct report_doc *d, struct store *st)
{
    struct strbuf err = STRBUF_INIT;
    struct run_info *runs = NULL;
    size_t nr = 0, i;

    if (!run_identity_is_order(&d->run) ||
        order_stats_compute(d->points, d->ntrials, &d->order, &err) < 0) {
        strbuf_release(&err);
        return; /* not an order experiment */
    }
    d->have_order = 1;
    if (store_run_list(st, NULL, &runs, &nr) < 0)
        nr = 0;
    for (i = nr; i-- > 0;) {
        struct trial_point_set t = TRIAL_POINT_SET_INIT;
        size_t l;
        struct run_stats rs;
        int found = 0;
        if (!curve_candidate(&d->run, &runs[i]) || store_points_load(st, runs[i].name, &t)) {
            trial_point_set_release(&t);
            continue;
        }
        strbuf_reset(&err);
        if (stats_compute(t.v, t.nr, NULL, &rs, &err) == 0) {
            for (l = 0; l < rs.n_lengths; l++)
                found |= rs.lengths[l].n_depths >= 2;
            if (found) {
                order_stats_expect(&d->order, d->points, d->ntrials, &rs);
                d->curve_run = xstrdup(runs[i].name);
            }
            run_stats_release(&rs);
        }
        trial_point_set_release(&t);
        if (found)
            break;
    }
    run_info_list_free(runs, nr);
    strbuf_release(&err);
}

struct q_overlap {
    const char *id;
    double overlap;
};

struct q_tercile {
    const char *id, *label;
};

static int cmp_tercile(const void *a, const void *b)
{
    return strcmp(((const struct q_tercile *)a)->id, ((const struct q_tercile *)b)->id);
}

/* Each trial's label from its question's (by_id[0..nq-1], sorted here; NULL when its question
   has none): a new array of d->ntrials labels. */
static const char **label_trials(const struct report_doc *d, struct q_tercile *by_id, size_t nq)
{
    const char **label = xcalloc(d->ntrials ? d->ntrials : 1, sizeof(*label));
    qsort(by_id, nq, sizeof(*by_id), cmp_tercile);
    for (size_t i = 0; i < d->ntrials; i++) {
        struct q_tercile key = {d->trials[i].question_id, NULL}, *hit;
        if (!key.id)
            continue;
        hit = bsearch(&key, by_id, nq, sizeof(*by_id), cmp_tercile);
        if (hit)
            label[i] = hit->label;
    }
    return label;
}

static int cmp_overlap(const void *a, const void *b)
{
    const struct q_overlap *x = a, *y = b;
    if (x->overlap != y->overlap)
        return x->overlap < y->overlap ? -1 : 1;
    return strcmp(x->id, y->id);
}

/* A trial's BM25 rank as the grouping "bm25-rank" labels it (docs/axes.md "Lexical overlap"). */
static const char *const bm25_values[] = {"1", "2-3", "4+"};
static const char *bm25_label(long rank)
{
    return rank <= 0   ? NULL
           : rank == 1 ? bm25_values[0]
           : rank <= 3 ? bm25_values[1]
                       : bm25_values[2];
}

/* One more grouping of the trials (three values; label[i] per trial, NULL: none) with its note. */
static void add_grouping(struct report_doc *d, const char **label, const char *name,
                         const char *const *values, const struct stats_options *o,
                         struct strbuf *note)
{
    d->axes = xrealloc(d->axes, (d->n_axes + 1) * sizeof(*d->axes));
    stats_axes_grouping(d->points, d->ntrials, label, name, values, 3, o, &d->axes[d->n_axes]);
    d->axes[d->n_axes].note = strbuf_detach(note, NULL);
    d->n_axes++;
}

/*
 * The gold's BM25 rank for the question among each trial's prompt documents (trial.h
 * gold_bm25_rank), as the grouping "bm25-rank": 1, 2-3, 4+. Only when some trial carries a
 * rank (runs stored since schema 11; not order trials or controls).
 */
static void bm25_axis(struct report_doc *d, const struct stats_options *o)
{
    const char **label;
    struct strbuf note = STRBUF_INIT;
    size_t i, ranked = 0, first = 0;

    label = xcalloc(d->ntrials ? d->ntrials : 1, sizeof(*label));
    for (i = 0; i < d->ntrials; i++) {
        label[i] = bm25_label(d->trials[i].facts.gold_bm25_rank);
        ranked += label[i] != NULL;
        first += d->trials[i].facts.gold_bm25_rank == 1;
    }
    if (ranked) {
        strbuf_addf(&note,
                    "Trials by the gold's BM25 rank for the question among the documents of "
                    "its prompt (the gold, hard negatives and filler; Okapi BM25, k1 1.2, b "
                    "0.75; a tie ranks the gold below): 1 in %zu of %zu trials.",
                    first, ranked);
        if (first == ranked)
            strbuf_addstr(&note, " Every gold ranks first: the question's words alone find it "
                                 "in every prompt, so these prompts test no lexical difficulty "
                                 "and the grouping compares nothing (a set with hard negatives "
                                 "or run --distractors hard gives ranks below 1).");
        add_grouping(d, label, "bm25-rank", bm25_values, o, &note);
    }
    free(label);
}

static int cmp_overlap_id(const void *a, const void *b)
{
    return strcmp(((const struct q_overlap *)a)->id, ((const struct q_overlap *)b)->id);
}

static int cmp_lexical(const void *a, const void *b)
{
    return strcmp(((const struct report_lexical *)a)->id, ((const struct report_lexical *)b)->id);
}

const struct report_lexical *report_lexical_find(const struct report_lexical *lex, size_t n,
                                                 const char *id)
{
    struct report_lexical key;
    if (!lex || !id)
        return NULL;
    memset(&key, 0, sizeof(key));
    key.id = id;
    return bsearch(&key, lex, n, sizeof(*lex), cmp_lexical);
}

const struct report_lexical_rank *report_lexical_rank_at(const struct report_lexical *e,
                                                         long length)
{
    for (size_t k = 0; e && k < e->n_ranks; k++)
        if (e->ranks[k].length == length)
            return &e->ranks[k];
    return NULL;
}

void report_lexical_rank_text(struct strbuf *out, const struct report_lexical_rank *rk)
{
    if (rk->min == rk->max)
        strbuf_addf(out, "%ld / %ld", rk->min, rk->docs);
    else
        strbuf_addf(out, "%ld-%ld / %ld", rk->min, rk->max, rk->docs);
}

/*
 * d->lexical: per question with trials (controls aside) its overlap share (qo[0..nq), by id;
 * -1 when absent) and per length the min and max of its trials' BM25 ranks.
 */
static void lexical_table(struct report_doc *d, const struct q_overlap *qo, size_t nq)
{
    const struct trial_result **t = xcalloc(d->ntrials + 1, sizeof(*t));
    struct q_overlap *by_id = xcalloc(nq + 1, sizeof(*by_id));
    size_t i, n = 0, alloc = 0;
    if (nq)
        memcpy(by_id, qo, nq * sizeof(*qo));
    qsort(by_id, nq, sizeof(*by_id), cmp_overlap_id);
    for (i = 0; i < d->ntrials; i++)
        if (d->trials[i].question_id &&
            !trial_is_control(d->trials[i].length, d->trials[i].depth_bp))
            t[n++] = &d->trials[i];
    qsort(t, n, sizeof(*t), trial_key_cmp_ptr);
    for (i = 0; i < n; i++) {
        struct report_lexical *e = d->n_lexical ? &d->lexical[d->n_lexical - 1] : NULL;
        struct report_lexical_rank *r;
        if (!e || strcmp(e->id, t[i]->question_id)) {
            struct q_overlap key = {t[i]->question_id, 0}, *hit;
            ALLOC_GROW(d->lexical, d->n_lexical + 1, alloc);
            e = &d->lexical[d->n_lexical++];
            memset(e, 0, sizeof(*e));
            e->id = t[i]->question_id;
            e->share = -1;
            hit = bsearch(&key, by_id, nq, sizeof(*by_id), cmp_overlap_id);
            if (hit)
                e->share = hit->overlap;
        }
        if (t[i]->facts.gold_bm25_rank <= 0)
            continue;
        r = e->n_ranks ? &e->ranks[e->n_ranks - 1] : NULL;
        if (!r || r->length != t[i]->length) {
            e->ranks = xrealloc(e->ranks, (e->n_ranks + 1) * sizeof(*e->ranks));
            r = &e->ranks[e->n_ranks++];
            r->length = t[i]->length;
            r->min = r->max = t[i]->facts.gold_bm25_rank;
            r->docs = 0;
        }
        if (t[i]->facts.gold_bm25_rank < r->min)
            r->min = t[i]->facts.gold_bm25_rank;
        if (t[i]->facts.gold_bm25_rank > r->max)
            r->max = t[i]->facts.gold_bm25_rank;
        if (t[i]->facts.bm25_docs > r->docs)
            r->docs = t[i]->facts.bm25_docs;
    }
    free(by_id);
    free(t);
}

/*
 * Lexical overlap, an analysis without new prompts: per question the share
 * of its distinct tokens (the run's tokenizer) that occur in its gold
 * chunk(s), the questions split into terciles (low, mid, high; equal counts,
 * ties by id), and each tercile's accuracy and depth curve, appended to
 * d->axes as the grouping "overlap". Returns the shares (malloc'd, *nq_out of them, ids
 * borrowed from gs), NULL when no tokenizer loads.
 */
static struct q_overlap *overlap_terciles(struct report_doc *d, const struct stats_options *o,
                                          const struct golden_set *gs, size_t *nq_out)
{
    struct tokenizer *tk;
    struct strbuf err = STRBUF_INIT, note = STRBUF_INIT;
    const char *tname = d->run.tokenizer_name, **label;
    struct q_overlap *qo;
    size_t i, nq = 0, k;
    int fallback = 0;
    tk = tname && strcmp(tname, "server") ? tokenizer_load(tname, &err) : NULL;
    if (!tk) {
        strbuf_reset(&err);
        tk = tokenizer_load(TOKENIZER_DEFAULT, &err);
        fallback = 1;
    }
    if (!tk) {
        strbuf_release(&err);
        return NULL;
    }
    qo = xcalloc(gs->nr ? gs->nr : 1, sizeof(*qo));
    for (i = 0; i < gs->nr; i++) {
        const struct question *q = &gs->q[i];
        double share = overlap_share(tk, q);
        if (share < 0)
            continue; /* a retrieval item whose retriever missed the gold: no overlap to measure */
        qo[nq].id = q->id;
        qo[nq++].overlap = share;
    }
    qsort(qo, nq, sizeof(*qo), cmp_overlap);
    {
        /* the tercile of each question, looked up by id */
        struct q_tercile *by_id = xcalloc(nq ? nq : 1, sizeof(*by_id));
        for (k = 0; k < nq; k++) {
            by_id[k].id = qo[k].id;
            by_id[k].label = k * 3 < nq ? "low" : k * 3 < 2 * nq ? "mid" : "high";
        }
        label = label_trials(d, by_id, nq);
        free(by_id);
    }
    strbuf_addf(&note,
                "Questions in terciles of lexical overlap with their gold chunk: the share of the "
                "question's distinct tokens (%s%s) found in the gold text; low %.0f%%-%.0f%%, "
                "mid to %.0f%%, high to %.0f%%.",
                fallback ? TOKENIZER_DEFAULT "; the run's tokenizer is not local"
                         : "the run's tokenizer",
                "", nq ? qo[0].overlap * 100 : 0, nq ? qo[(nq - 1) / 3].overlap * 100 : 0,
                nq ? qo[(2 * nq - 1) / 3].overlap * 100 : 0, nq ? qo[nq - 1].overlap * 100 : 0);
    {
        static const char *const terciles[] = {"low", "mid", "high"};
        add_grouping(d, label, "overlap", terciles, o, &note);
    }
    free(label);
    tokenizer_free(tk);
    strbuf_release(&err);
    *nq_out = nq;
    return qo;
}

/*
 * The overlap grouping (overlap_terciles) and the per-question lexical table (lexical_table),
 * from the golden set kept in the store.
 */
static void overlap_axis(struct report_doc *d, const struct stats_options *o)
{
    struct golden_set gs;
    struct q_overlap *qo = NULL;
    size_t nq = 0;
    int loaded =
        d->golden_text && !golden_set_load_mem(&gs, "golden set", d->golden_text, d->golden_len);
    if (loaded)
        qo = overlap_terciles(d, o, &gs, &nq);
    lexical_table(d, qo, nq); /* before the set is released: qo's ids are its */
    free(qo);
    if (loaded)
        golden_set_release(&gs);
}

/* Needle-absent trials (run --absent): their rates, by the run's own abstention detector. */
static int absent_stats(struct report_doc *d, const struct stats_options *o, struct strbuf *err)
{
    struct abstain_rule rule;
    struct abstain_keep keep;
    double share;
    struct absent_stats *a;
    int rc;
    if (!run_identity_abstain(d->run.settings_json, &share, &rule, &keep))
        return 0;
    a = xcalloc(1, sizeof(*a));
    rc = absent_stats_compute(d->trials, d->ntrials, &rule, o->z, a, err);
    run_identity_abstain_release(&keep);
    if (rc < 0 || !a->present) {
        absent_stats_release(a);
        free(a);
        return rc;
    }
    d->stats.absent = a;
    return 0;
}

int report_doc_load(struct report_doc *d, struct store *st, const char *name,
                    const struct stats_options *o, struct strbuf *err)
{
    struct stats_options def;
    int rc;

    /* the run row and its trials from one moment, while another process may write */
    if (store_read_begin(st))
        return -1;
    rc = store_run_get(st, name, &d->run);
    if (!rc && store_trials_load(st, d->run.name, &d->trials, &d->ntrials) != 0)
        rc = -1;
    if (!rc && store_golden_get(st, d->run.golden_sha256, &d->golden_text, &d->golden_len) < 0)
        rc = -1;
    store_read_end(st);
    if (rc)
        return rc;
    d->points = trial_points_of(d->trials, d->ntrials);
    if (!o) {
        stats_options_init(&def);
        o = &def;
    }
    if (stats_compute(d->points, d->ntrials, o, &d->stats, err) < 0)
        return -1;
    d->have_stats = 1;
    if (absent_stats(d, o, err) < 0)
        return -1;
    /*
     * an order experiment's axes (policy, k) have its own section; other runs' axes get the
     * Axes section; every run gets the overlap terciles there
     */
    load_order(d, st);
    if (!d->have_order)
        declared_axes(d->run.settings_json, d, o);
    overlap_axis(d, o);
    bm25_axis(d, o);
    d->stats.ordinal =
        report_ordinal_stats(d->trials, d->ntrials, d->golden_text, d->golden_len, o->z);
    return 0;
}

void report_doc_plots(struct report_doc *d, int plot_status)
{
    if (plot_status == -2)
        strbuf_addstr(&d->plots_note, "Plots not drawn (--no-plots).");
    else if (plot_status == PLOT_NO_GNUPLOT)
        strbuf_addstr(&d->plots_note,
                      "Plots skipped: gnuplot was not found when this report was written.");
    else if (plot_status != PLOT_OK)
        strbuf_addstr(&d->plots_note, "Plots skipped: gnuplot failed.");
    if (d->have_order) {
        d->plots[0].title = "Accuracy vs k, one line per ordering policy";
        d->plots[0].file = "order.svg";
        d->plots[0].svg = d->usvg.len ? d->usvg.buf : NULL;
        d->in.n_plots = plot_status == PLOT_OK ? 1 : 0;
        return;
    }
    d->plots[0].title = "Accuracy vs depth, one line per length (U-curve)";
    d->plots[0].file = "ucurve.svg";
    d->plots[0].svg = d->usvg.len ? d->usvg.buf : NULL;
    d->plots[1].title = "Accuracy by depth and length (heatmap)";
    d->plots[1].file = "heatmap.svg";
    d->plots[1].svg = d->hsvg.len ? d->hsvg.buf : NULL;
    d->in.n_plots = plot_status == PLOT_OK ? 2 : 0;
}

/* The golden-set path recorded in the run's settings ("dataset"), or NULL (caller frees). */
static char *golden_path_of(const struct run_info *run)
{
    struct json *o = json_parse_str(run->settings_json);
    const char *g = json_get_str(o, "dataset");
    char *ret = g && *g ? xstrdup(g) : NULL;
    json_free(o);
    return ret;
}

static void load_golden(struct report_doc *d)
{
    const char *golden = d->golden;
    if (!golden && d->golden_text) {
        /* kept in the store by the run: exactly the set it used */
        strbuf_reset(&d->golden_note);
        strbuf_addf(&d->golden_note, "the store (golden set %.12s)", d->run.golden_sha256);
        d->golden = strbuf_detach(&d->golden_note, NULL);
        if (golden_set_load_mem(&d->gs, d->golden, d->golden_text, d->golden_len) == 0)
            d->have_golden = 1;
        else
            strbuf_addstr(&d->golden_note, "The golden set kept in the store could not be "
                                           "loaded: questions are not shown.");
        return;
    }
    if (!golden) {
        strbuf_addstr(&d->golden_note, "Questions and expected answers are not shown: give the "
                                       "run's golden set with --dataset FILE.");
        return;
    }
    if (access(golden, R_OK) < 0) {
        strbuf_addf(&d->golden_note,
                    "The golden set %s is not readable from here (%s): questions and expected "
                    "answers are not shown.",
                    golden, strerror(errno));
        return;
    }
    if (golden_set_load(&d->gs, golden) < 0) {
        strbuf_addf(&d->golden_note,
                    "The golden set %s could not be loaded: questions are not shown.", golden);
        return;
    }
    d->have_golden = 1;
    if (d->run.golden_sha256 && strcmp(d->run.golden_sha256, d->gs.sha256)) {
        warning("report: %s is not the golden set of run '%s' (sha256 differs); questions are "
                "matched by id",
                golden, d->run.name);
        strbuf_addf(&d->golden_note,
                    "Warning: %s has changed since the run (sha256 %.12s, the run used %.12s); "
                    "questions are matched by id.",
                    golden, d->gs.sha256, d->run.golden_sha256);
    }
}

void report_doc_failures(struct report_doc *d, const char *dataset, double generated_at)
{
    size_t i, n_plots = d->in.n_plots;

    d->nfail = report_pick_failures(d->trials, d->ntrials, &d->stats, FAIL_DEPTHS, FAIL_PER_LENGTH,
                                    &d->picked);
    d->golden = dataset ? xstrdup(dataset) : d->golden_text ? NULL : golden_path_of(&d->run);
    load_golden(d); /* also for the hygiene note when nothing failed */
    d->fails = xcalloc(d->nfail + 1, sizeof(*d->fails));
    for (i = 0; i < d->nfail; i++) {
        const struct question *q = d->have_golden && d->picked[i]->question_id
                                       ? golden_set_find(&d->gs, d->picked[i]->question_id)
                                       : NULL;
        d->fails[i].trial = d->picked[i];
        if (q) {
            d->fails[i].question = q->question;
            d->fails[i].answers = (const char *const *)q->answers.v;
            d->fails[i].n_answers = q->answers.nr;
        }
    }
    memset(&d->in, 0, sizeof(d->in));
    d->in.run = &d->run;
    d->in.stats = &d->stats;
    d->in.plots = d->plots;
    d->in.n_plots = n_plots;
    d->in.plots_note = d->plots_note.len ? d->plots_note.buf : NULL;
    d->in.failures = d->fails;
    d->in.n_failures = d->nfail;
    d->in.golden_path = d->have_golden ? d->golden : NULL;
    d->in.golden_note = d->golden_note.len && d->nfail ? d->golden_note.buf : NULL;
    if (d->have_golden && golden_set_negatives_note(&d->gs, &d->hygiene_note))
        d->in.hygiene_note = d->hygiene_note.buf;
    d->in.generated_at = generated_at;
    d->in.trials = d->trials;
    d->in.n_trials = d->ntrials;
    d->in.axes = d->axes;
    d->in.n_axes = d->n_axes;
    d->in.axis_plots = d->axis_plots;
    d->in.axis_pair_plot = d->have_pair_plot ? &d->pair_plot : NULL;
    d->in.hops_plots = d->hops_plots;
    d->in.n_hops_plots = d->n_hops_plots;
    d->in.absent_plot = d->have_absent_plot ? &d->absent_plot : NULL;
    d->in.decomp_plot = d->have_decomp_plot ? &d->decomp_plot : NULL;
    d->in.golden = d->have_golden ? &d->gs : NULL;
    d->in.lexical = d->lexical;
    d->in.n_lexical = d->n_lexical;
    d->in.order = d->have_order ? &d->order : NULL;
    d->in.curve_run = d->curve_run;
}

/* Bytes of prompt shown before and after the gold chunk's text. */
#define EXCERPT_BEFORE 400
#define EXCERPT_AFTER  400

/* The prompt around the first of the question's gold chunks found in it; NULL when none is. */
static char *excerpt_of(const char *text, size_t len, const struct question *q)
{
    size_t g;
    for (g = 0; q && g < q->gold_nr; g++) {
        const char *hit =
            q->gold[g].text && *q->gold[g].text ? strstr(text, q->gold[g].text) : NULL;
        struct strbuf sb = STRBUF_INIT;
        size_t at, from, to;
        if (!hit)
            continue;
        at = (size_t)(hit - text);
        from = utf8_char_start(text, at > EXCERPT_BEFORE ? at - EXCERPT_BEFORE : 0);
        to = at + q->gold[g].text_len + EXCERPT_AFTER;
        to = to >= len ? len : utf8_char_start(text, to);
        if (from > 0)
            strbuf_addf(&sb, "\xE2\x80\xA6 (%zu bytes before)\n", from);
        strbuf_add(&sb, text + from, to - from);
        if (to < len)
            strbuf_addf(&sb, "\n\xE2\x80\xA6 (%zu bytes after)", len - to);
        return strbuf_detach(&sb, NULL);
    }
    return NULL;
}

/*
 * A stored chat prompt is its system text, a NUL, then its user text (runner.c):
 * shown as "[system]" and "[user]" sections. Completions prompts are one text.
 * Takes ownership of text; returns a NUL-terminated display string.
 */
static char *display_prompt(char *text, size_t *len)
{
    const char *nul = memchr(text, '\0', *len);
    struct strbuf sb = STRBUF_INIT;
    if (!nul)
        return text;
    strbuf_addstr(&sb, "[system]\n");
    strbuf_add(&sb, text, (size_t)(nul - text));
    strbuf_addstr(&sb, "\n\n[user]\n");
    strbuf_add(&sb, nul + 1, *len - (size_t)(nul - text) - 1);
    free(text);
    return strbuf_detach(&sb, len);
}

void report_doc_prompts(struct report_doc *d, struct store *st)
{
    size_t i, example = d->ntrials, fallback = d->ntrials;

    d->excerpts = xcalloc(d->ntrials + 1, sizeof(*d->excerpts));
    /* the example: a failed trial at a worst depth, else any trial with a stored prompt */
    for (i = 0; i < d->nfail && example == d->ntrials; i++)
        if (d->picked[i]->facts.sha256[0])
            example = (size_t)(d->picked[i] - d->trials);
    for (i = 0; i < d->ntrials; i++) {
        const struct trial_result *t = &d->trials[i];
        char *text = NULL;
        size_t len = 0;
        if (!t->facts.sha256[0])
            continue;
        if (fallback == d->ntrials)
            fallback = i;
        if (!report_trial_detailed(d->ntrials, t) && i != example)
            continue;
        if (store_prompt_get(st, t->facts.sha256, &text, &len) != 1)
            continue;
        text = display_prompt(text, &len);
        if (d->have_golden)
            d->excerpts[i] = excerpt_of(text, len, golden_set_find(&d->gs, t->question_id));
        if (i == example)
            d->example_prompt = text;
        else
            free(text);
    }
    if (example == d->ntrials && fallback < d->ntrials) {
        char *text = NULL;
        size_t len = 0;
        if (store_prompt_get(st, d->trials[fallback].facts.sha256, &text, &len) == 1) {
            example = fallback;
            d->example_prompt = display_prompt(text, &len);
        }
    }
    d->in.excerpts = (const char *const *)d->excerpts;
    d->in.example_prompt = d->example_prompt;
    d->in.example_trial = example;
}

void report_doc_release(struct report_doc *d)
{
    if (d->have_stats)
        run_stats_release(&d->stats);
    for (size_t i = 0; d->axis_svg && i < d->n_axes; i++)
        strbuf_release(&d->axis_svg[i]);
    free(d->axis_svg);
    free(d->axis_plots);
    strbuf_release(&d->axis_files);
    strbuf_release(&d->pair_svg);
    strbuf_release(&d->pair_file);
    for (size_t i = 0; d->hops_svg && i < d->n_hops_plots; i++)
        strbuf_release(&d->hops_svg[i]);
    free(d->hops_svg);
    free(d->hops_plots);
    strbuf_release(&d->absent_svg);
    strbuf_release(&d->hops_files);
    strbuf_release(&d->decomp_svg);
    stats_axes_free(d->axes, d->n_axes);
    d->axes = NULL;
    for (size_t i = 0; i < d->n_lexical; i++)
        free(d->lexical[i].ranks);
    free(d->lexical);
    d->n_axes = 0;
    if (d->have_order)
        order_stats_release(&d->order);
    free(d->curve_run);
    for (size_t i = 0; d->excerpts && i < d->ntrials; i++)
        free(d->excerpts[i]);
    free(d->excerpts);
    free(d->example_prompt);
    free(d->fails);
    free(d->picked);
    free(d->golden);
    free(d->golden_text);
    golden_set_release(&d->gs);
    free(d->points);
    store_trials_free(d->trials, d->ntrials);
    run_info_release(&d->run);
    strbuf_release(&d->usvg);
    strbuf_release(&d->hsvg);
    strbuf_release(&d->plots_note);
    strbuf_release(&d->golden_note);
    strbuf_release(&d->hygiene_note);
    memset(d, 0, sizeof(*d));
}

/* ---- two runs compared ---- */

void compare_doc_init(struct compare_doc *d)
{
    memset(d, 0, sizeof(*d));
    strbuf_init(&d->note, 0);
}

/* "inputs differ: ...; scored differently: ..." for the report, "" when the runs agree. */
static void identity_note(struct strbuf *out, const struct run_info *bi, const struct run_info *ci,
                          int forced)
{
    struct strbuf why = STRBUF_INIT;
    size_t i;

    if (!run_identity_same_inputs(bi, ci, NULL, &why)) {
        strbuf_rtrim(&why);
        for (i = 0; i < why.len; i++)
            if (why.buf[i] == '\n')
                why.buf[i] = ';';
        strbuf_addf(out, "inputs differ%s: %s", forced ? " (--allow-different-inputs)" : "",
                    why.buf);
    }
    strbuf_reset(&why);
    if (!run_identity_same_scoring(bi, ci, &why)) {
        strbuf_rtrim(&why);
        if (out->len)
            strbuf_addstr(out, "; ");
        strbuf_add(out, why.buf, why.len);
        if (forced)
            strbuf_addstr(out, " (--allow-different-scoring)");
    }
    strbuf_release(&why);
}

char *compare_answer_from_store(void *ctx, int candidate, const struct trial_point *p)
{
    const struct compare_answers *a = ctx;
    struct trial_key k = {p->question_id, p->length, p->depth_bp, p->repeat, p->axes};
    char *answer = NULL;
    if (store_trial_answer(candidate ? a->cand_st : a->base_st,
                           candidate ? a->cand_run : a->base_run, &k, &answer) < 0)
        warning("compare: a flipped trial's answer could not be read: shown as none");
    return answer;
}

int compare_doc_load(struct compare_doc *d, struct store *base_st, struct store *cand_st,
                     const struct run_info *bi, const struct run_info *ci,
                     const struct compare_options *o, int forced)
{
    /* the points only: the few answers the flip lists show are read when shown */
    if (store_points_load(base_st, bi->name, &d->base) < 0 ||
        store_points_load(cand_st, ci->name, &d->cand) < 0)
        return -1;
    d->base_trials = d->base.v;
    d->n_base = d->base.nr;
    d->cand_trials = d->cand.v;
    d->n_cand = d->cand.nr;
    identity_note(&d->note, bi, ci, forced);
    d->answers.base_st = base_st;
    d->answers.cand_st = cand_st;
    d->answers.base_run = bi->name;
    d->answers.cand_run = ci->name;
    d->meta.baseline = bi;
    d->meta.candidate = ci;
    d->meta.inputs_note = d->note.len ? d->note.buf : NULL;
    d->meta.base_trials = d->base_trials;
    d->meta.n_base = d->n_base;
    d->meta.cand_trials = d->cand_trials;
    d->meta.n_cand = d->n_cand;
    d->meta.answer = compare_answer_from_store;
    d->meta.answer_ctx = &d->answers;
    compare_runs(d->base_trials, d->n_base, d->cand_trials, d->n_cand, o, &d->res);
    d->have_res = 1;
    return 0;
}

void compare_doc_release(struct compare_doc *d)
{
    if (d->have_res)
        compare_result_release(&d->res);
    trial_point_set_release(&d->base);
    trial_point_set_release(&d->cand);
    strbuf_release(&d->note);
    compare_doc_init(d);
}

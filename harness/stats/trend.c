/*
 * The trend of runs over time (see trend.h): loads each run's statistics,
 * compares each with its previous complete run, and builds the trend plot's
 * series (one point per run, labelled by name). Owns the "previous run" rule.
 */
#include "stats/trend.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/plan.h"
#include "report/plot.h"
#include "report/report.h"
#include "run/run_identity.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"

#include "base/banned.h"

long trend_previous(const struct run_info *runs, size_t i)
{
    size_t j = i;
    while (j-- > 0)
        if (runs[j].status == RUN_COMPLETE &&
            run_identity_same_series(&runs[j], &runs[i], NULL, NULL))
            return (long)j;
    return -1;
}

long trend_last_pass(struct store *st, const struct run_info *runs, size_t i,
                     const struct compare_options *opt)
{
    struct trial_point_set bt = TRIAL_POINT_SET_INIT, ct = TRIAL_POINT_SET_INIT;
    size_t j;
    long base = -1;

    for (j = 0; j < i; j++) {
        struct compare_result r;
        if (runs[j].status != RUN_COMPLETE ||
            !run_identity_same_series(&runs[j], &runs[i], NULL, NULL))
            continue;
        if (base < 0) {
            base = (long)j;
            if (store_points_load(st, runs[j].name, &bt) != 0)
                goto fail;
            continue;
        }
        if (store_points_load(st, runs[j].name, &ct) != 0)
            goto fail;
        compare_runs(bt.v, bt.nr, ct.v, ct.nr, opt, &r);
        if (r.verdict == VERDICT_PASS) {
            trial_point_set_release(&bt);
            bt = ct;
            base = (long)j;
        } else {
            trial_point_set_release(&ct);
        }
        memset(&ct, 0, sizeof(ct));
        compare_result_release(&r);
    }
    trial_point_set_release(&bt);
    return base;
fail:
    trial_point_set_release(&bt);
    trial_point_set_release(&ct);
    return -2;
}

/* Keep only the runs of the newest run's series (the trend is one series). */
static void keep_series(struct trend *tr)
{
    size_t i, k = 0, last = tr->n - 1;
    for (i = 0; i < tr->n; i++) {
        if (i == last || run_identity_same_series(&tr->runs[i], &tr->runs[last], NULL, NULL)) {
            if (k != i) {
                struct run_info tmp = tr->runs[k];
                tr->runs[k] = tr->runs[i];
                tr->runs[i] = tmp;
            }
            k++;
        }
    }
    tr->n_other = tr->n - k;
    /* the others stay allocated past n for run_info_list_free(); remember them */
    tr->n_all = tr->n;
    tr->n = k;
}

static void add_length(struct trend *tr, long len, size_t *alloc)
{
    size_t k, pos;
    for (k = 0; k < tr->nlen; k++)
        if (tr->lengths[k] == len)
            return;
    ALLOC_GROW(tr->lengths, tr->nlen + 1, *alloc);
    for (pos = tr->nlen; pos > 0 && tr->lengths[pos - 1] > len; pos--)
        tr->lengths[pos] = tr->lengths[pos - 1];
    tr->lengths[pos] = len;
    tr->nlen++;
}

int trend_load(struct trend *tr, struct store *st, const struct run_filter *f, struct strbuf *err)
{
    struct trial_point_set *trials = NULL;
    size_t i, alloc = 0;
    struct stats_options o;
    int ret = 0;

    memset(tr, 0, sizeof(*tr));
    if (store_run_list(st, f, &tr->runs, &tr->n) < 0)
        return -1;
    if (!tr->n)
        return 1;
    keep_series(tr);
    tr->t = xcalloc(tr->n, sizeof(*tr->t));
    trials = xcalloc(tr->n, sizeof(*trials));
    stats_options_init(&o);
    for (i = 0; i < tr->n; i++) {
        struct trend_run *t = &tr->t[i];
        size_t k;
        t->prev = -1;
        if (store_points_load(st, tr->runs[i].name, &trials[i]) != 0) {
            ret = -1;
            goto cleanup;
        }
        if (stats_compute(trials[i].v, trials[i].nr, &o, &t->stats, err) < 0) {
            ret = -1;
            goto cleanup;
        }
        t->have_stats = 1;
        for (k = 0; k < t->stats.n_lengths; k++)
            add_length(tr, t->stats.lengths[k].length, &alloc);
        t->prev = trend_previous(tr->runs, i);
        if (t->prev >= 0) {
            struct compare_result r;
            size_t p = (size_t)t->prev;
            compare_runs(trials[p].v, trials[p].nr, trials[i].v, trials[i].nr, NULL, &r);
            t->compared = 1;
            t->verdict = r.verdict;
            t->regressions = r.n_regressions;
            compare_result_release(&r);
        }
    }
cleanup:
    for (i = 0; i < tr->n; i++)
        trial_point_set_release(&trials[i]);
    free(trials);
    return ret;
}

void trend_release(struct trend *tr)
{
    size_t i;
    for (i = 0; tr->t && i < tr->n; i++)
        if (tr->t[i].have_stats)
            run_stats_release(&tr->t[i].stats);
    free(tr->t);
    free(tr->lengths);
    run_info_list_free(tr->runs, tr->n_all ? tr->n_all : tr->n);
    memset(tr, 0, sizeof(*tr));
}

enum metric { M_EDGE, M_MIDDLE, M_DIP, M__COUNT };
static const char *const metric_name[M__COUNT] = {"edge", "middle", "dip"};

struct trend_data {
    const struct plot_series *s;
    size_t n;
};

static void build_trend(struct strbuf *script, const struct plot_opts *o, const void *data)
{
    const struct trend_data *t = data;
    plot_script_trend(script, o, t->s, t->n);
}

int trend_plot(const struct trend *tr, const char *what, const char *dir, unsigned formats,
               struct strbuf *svg)
{
    size_t nseries = tr->nlen * M__COUNT, i, j;
    struct plot_series *series = xcalloc(nseries + 1, sizeof(*series));
    struct plot_point *pts = xcalloc(st_mult(nseries, tr->n) + 1, sizeof(*pts));
    const char **names = xcalloc(tr->n + 1, sizeof(*names));
    struct strvec labels = STRVEC_INIT;
    struct strbuf title = STRBUF_INIT, sub = STRBUF_INIT;
    struct trend_data td;
    struct plot_opts o;
    long failed = 0;
    int pr;

    for (i = 0; i < tr->n; i++) {
        names[i] = tr->runs[i].name;
        failed += tr->t[i].compared && tr->t[i].verdict == VERDICT_FAIL;
    }
    /* one series per (length, metric); one point per run, at the run's index */
    for (j = 0; j < tr->nlen; j++) {
        int m;
        for (m = 0; m < M__COUNT; m++) {
            struct plot_series *s = &series[j * M__COUNT + (size_t)m];
            struct strbuf lab = STRBUF_INIT;
            strbuf_addf(&lab, "%s ", metric_name[m]);
            plan_format_length(&lab, tr->lengths[j]);
            s->label = strvec_push(&labels, lab.buf);
            strbuf_release(&lab);
            s->pts = pts + (j * M__COUNT + (size_t)m) * tr->n;
            s->edge = s->middle = NAN;
            for (i = 0; i < tr->n; i++) {
                const struct run_stats *rs = &tr->t[i].stats;
                struct plot_point *p = (struct plot_point *)&s->pts[s->n];
                const struct length_stats *l = NULL;
                const struct estimate *e;
                size_t k;
                for (k = 0; k < rs->n_lengths; k++)
                    if (rs->lengths[k].length == tr->lengths[j])
                        l = &rs->lengths[k];
                if (!l || !l->n_depths || (m != M_EDGE && !l->has_middle))
                    continue;
                e = m == M_EDGE ? &l->edge : m == M_MIDDLE ? &l->middle : &l->dip;
                p->x = (double)i;
                p->y = e->est;
                p->lo = e->lo;
                p->hi = e->hi;
                p->flag = m == M_DIP && tr->t[i].compared && tr->t[i].verdict == VERDICT_FAIL;
                s->n++;
            }
        }
    }
    memset(&o, 0, sizeof(o));
    strbuf_addf(&title, "trend of %s", what);
    strbuf_addf(&sub, "%zu runs, 95%% intervals; %ld failed vs the previous run", tr->n, failed);
    o.title = title.buf;
    o.subtitle = sub.buf;
    o.group = M__COUNT;
    o.xlabels = names;
    o.n_xlabels = tr->n;
    if (tr->n > 12)
        o.width = 900 + 40 * (int)(tr->n > 40 ? 28 : tr->n - 12);
    td.s = series;
    td.n = nseries;
    pr = plot_save(dir, "trend", formats, build_trend, &td, &o, svg);
    free(series);
    free(pts);
    free(names);
    strvec_clear(&labels);
    strbuf_release(&title);
    strbuf_release(&sub);
    return pr;
}

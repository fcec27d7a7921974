/*
 * report.html's per-question view: for each length a question x depth matrix
 * (cells coloured by outcome, each linking to its trial's details: answer,
 * expected, outcome, realized length and depth, the stored prompt's excerpt
 * around the gold), the distractor-answer flag, outcome counts per cell, one
 * whole example prompt, and the small sorting script (progressive
 * enhancement, allowed by its hash in the CSP). Private to the report files.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prompt/dataset.h"
#include "base/base64.h"
#include "base/escape.h"
#include "run/plan.h"
#include "report/report-int.h"
#include "report/report.h"
#include "run/score.h"
#include "base/sha256.h"
#include "stats/stats.h"
#include "base/strbuf.h"
#include "base/unicode.h"
#include "base/xalloc.h"

#include "base/banned.h"

/*
 * Trials with a details block; past it only the ones that did not end correct get one, and
 * at most this many of them (those of the rows shown, least accurate question first).
 */
#define DETAIL_MAX 4000
/*
 * Question rows per length in the matrix: past it the least accurate ones are shown and the
 * page says so (a 1M-trial run of 10,000 questions wrote a page no browser opens comfortably).
 */
#define QROWS_MAX 500
/* Repeats shown one symbol each in a matrix cell; more are summarised as counts. */
#define SYMBOLS_MAX 3
/* Bytes of an answer or question shown in the details. */
#define DETAIL_TEXT_MAX 2000

/*
 * Sorts every table.sortable by a clicked column header (th[data-sort]):
 * numbers by value (cells' data-v), text otherwise; a second click reverses.
 * Without it the rows stay in the order written (worst question first).
 */
static const char sort_script[] =
    "document.querySelectorAll('table.sortable').forEach(function(t){"
    "t.querySelectorAll('th[data-sort]').forEach(function(h){"
    "var b=document.createElement('button');b.type='button';b.className='sort';"
    "b.textContent=h.textContent;h.textContent='';h.appendChild(b);"
    "b.addEventListener('click',function(){"
    "var i=h.cellIndex,tb=t.tBodies[0],rows=Array.prototype.slice.call(tb.rows),"
    "dir=h.getAttribute('aria-sort')==='ascending'?-1:1;"
    "t.querySelectorAll('th[aria-sort]').forEach(function(x){x.removeAttribute('aria-sort');});"
    "h.setAttribute('aria-sort',dir>0?'ascending':'descending');"
    "rows.sort(function(a,c){var x=a.cells[i].getAttribute('data-v')||a.cells[i].textContent,"
    "y=c.cells[i].getAttribute('data-v')||c.cells[i].textContent,nx=parseFloat(x),"
    "ny=parseFloat(y);if(!isNaN(nx)&&!isNaN(ny)&&nx!==ny)return(nx-ny)*dir;"
    "return x<y?-dir:x>y?dir:0;});"
    "rows.forEach(function(r){tb.appendChild(r);});});});});";

const char *report_script_csp(void)
{
    static char csp[64];
    if (!csp[0]) {
        struct sha256_ctx c;
        unsigned char dg[32];
        struct strbuf sb = STRBUF_INIT;
        sha256_init(&c);
        sha256_update(&c, sort_script, strlen(sort_script));
        sha256_final(&c, dg);
        strbuf_addstr(&sb, "'sha256-");
        base64_encode(&sb, dg, sizeof(dg));
        strbuf_addch(&sb, '\'');
        memcpy(csp, sb.buf, sb.len < sizeof(csp) - 1 ? sb.len : sizeof(csp) - 1);
        strbuf_release(&sb);
    }
    return csp;
}

void report_script(struct markup *d)
{
    report_open(d, "script", NULL);
    report_trusted(d, sort_script);
    report_close(d, "script");
    report_nl(d);
}

/* ---- distractor answers ---- */

static const struct question *find_question(const struct report_input *in, const char *id)
{
    return in->golden && id ? golden_set_find(in->golden, id) : NULL;
}

/*
 * The hard negative whose stated value the wrong answer gives (the scorer's
 * "contains" rule against the distractor's value), or NULL.
 */
static const struct chunk *distractor_of(const struct question *q, const struct trial_result *t)
{
    size_t i;
    if (!q || t->outcome != OUTCOME_WRONG || !t->answer)
        return NULL;
    for (i = 0; i < q->distractors_nr; i++) {
        const char *v = q->distractors[i].value;
        double sc = 0;
        if (v && *v && score_answer(SCORER_CONTAINS, t->answer, &v, 1, NULL, &sc, NULL) == 0 &&
            sc > 0.5)
            return &q->distractors[i];
    }
    return NULL;
}

void report_cell_outcomes(const struct report_input *in, const struct cell_stats *c,
                          struct strbuf *out)
{
    long distract = 0;
    int o, any = 0;
    size_t i;

    for (i = 0; in->golden && i < in->n_trials; i++) {
        const struct trial_result *t = &in->trials[i];
        if (t->length == c->length && t->depth_bp == c->depth_bp &&
            distractor_of(find_question(in, t->question_id), t))
            distract++;
    }
    for (o = OUTCOME_CORRECT; o < OUTCOME__COUNT; o++) {
        if (!c->outcomes[o])
            continue;
        strbuf_addf(out, "%s%ld %s", any ? ", " : "", c->outcomes[o],
                    outcome_name((enum trial_outcome)o));
        if (o == OUTCOME_WRONG && distract)
            strbuf_addf(out, " (%ld distractor)", distract);
        any = 1;
    }
    if (c->n_pending)
        strbuf_addf(out, "%s%ld pending", any ? ", " : "", c->n_pending);
}

/* ---- the matrix ---- */

struct trial_ref {
    const struct trial_result *t;
    size_t idx; /* into in->trials: the anchor "t<idx>" */
};

static int cmp_ref(const void *a, const void *b)
{
    return trial_key_cmp(((const struct trial_ref *)a)->t, ((const struct trial_ref *)b)->t);
}

/* One question's trials: refs[start..end). */
struct qrow {
    const char *id;
    size_t start, end;
    double acc; /* at the length being drawn; NAN without valid trials */
};

static int cmp_row(const void *a, const void *b)
{
    const struct qrow *x = a, *y = b;
    if (isnan(x->acc) != isnan(y->acc))
        return isnan(x->acc) ? 1 : -1;
    if (!isnan(x->acc) && x->acc != y->acc)
        return x->acc < y->acc ? -1 : 1;
    return strcmp(x->id, y->id);
}

static const char *outcome_class(const struct trial_result *t, int distractor)
{
    switch (t->outcome) {
    case OUTCOME_CORRECT:
        return "o-c";
    case OUTCOME_WRONG:
        return distractor ? "o-d" : "o-w";
    case OUTCOME_PENDING:
        return "o-p";
    default:
        return "o-x";
    }
}

static const char *outcome_symbol(const struct trial_result *t, int distractor)
{
    switch (t->outcome) {
    case OUTCOME_CORRECT:
        return "\xE2\x9C\x93"; /* check mark */
    case OUTCOME_WRONG:
        return distractor ? "D" : "\xE2\x9C\x97"; /* ballot x */
    case OUTCOME_OVERFLOW:
        return "O";
    case OUTCOME_TRUNCATED:
        return "T";
    case OUTCOME_EMPTY:
        return "E";
    case OUTCOME_FILTERED:
        return "F";
    case OUTCOME_ERROR:
        return "!";
    default:
        return "\xC2\xB7"; /* middle dot: pending */
    }
}

int report_trial_detailed(size_t n_trials, const struct trial_result *t)
{
    if (!trial_on_curve(t->length, t->depth_bp, t->axes))
        return 0; /* controls and absent twins have their own sections, outside the curve */
    return n_trials <= DETAIL_MAX || t->outcome != OUTCOME_CORRECT;
}

/* The trials given a details block (by index into in->trials), chosen as the rows are drawn. */
struct shown {
    unsigned char *detailed;
    size_t n, max;
};

static void link_trial(struct markup *d, const struct shown *sh, const struct trial_ref *r,
                       const char *text)
{
    if (sh->detailed[r->idx]) {
        char href[32];
        snprintf(href, sizeof(href), "#t%zu", r->idx);
        report_link(d, href, text);
    } else {
        report_text(d, text);
    }
}

static void matrix_cell(struct markup *d, const struct report_input *in, const struct shown *sh,
                        const struct trial_ref *refs, size_t n)
{
    size_t i, k = 0, first_bad = n;
    long counts[OUTCOME__COUNT] = {0};
    int dis = 0;

    if (!n) {
        report_element(d, "td", NULL, "");
        return;
    }
    for (i = 0; i < n; i++) {
        counts[refs[i].t->outcome]++;
        dis += distractor_of(find_question(in, refs[i].t->question_id), refs[i].t) != NULL;
        if (refs[i].t->outcome != OUTCOME_CORRECT && first_bad == n)
            first_bad = i;
    }
    if (n <= SYMBOLS_MAX) {
        /* the cell takes the colour of its worst trial; each symbol links to its trial */
        const struct trial_ref *worst = first_bad < n ? &refs[first_bad] : &refs[0];
        int wd = distractor_of(find_question(in, worst->t->question_id), worst->t) != NULL;
        report_open(d, "td", outcome_class(worst->t, wd));
        for (i = 0; i < n; i++) {
            int di = distractor_of(find_question(in, refs[i].t->question_id), refs[i].t) != NULL;
            link_trial(d, sh, &refs[i], outcome_symbol(refs[i].t, di));
        }
        report_close(d, "td");
        return;
    }
    /* many repeats: "correct/valid", linking to the first trial that did not end correct */
    {
        struct strbuf txt = STRBUF_INIT;
        long valid = counts[OUTCOME_CORRECT] + counts[OUTCOME_WRONG];
        const struct trial_ref *to = first_bad < n ? &refs[first_bad] : &refs[0];
        const char *cls = first_bad == n          ? "o-c"
                          : counts[OUTCOME_WRONG] ? (dis ? "o-d" : "o-w")
                                                  : "o-x";
        strbuf_addf(&txt, "%ld/%ld", counts[OUTCOME_CORRECT], valid);
        if ((long)n > valid)
            strbuf_addf(&txt, "+%ld", (long)n - valid);
        report_open(d, "td", cls);
        link_trial(d, sh, to, txt.buf);
        report_close(d, "td");
        strbuf_release(&txt);
        k = 1;
    }
    (void)k;
}

/*
 * A question's overlap share and its gold's BM25 rank at this length ("3 / 41": rank 3 of 41
 * documents; "1-2 / 41" when its axis values differ), en dash when unknown.
 */
static void lexical_cells(struct markup *d, const struct report_input *in, const char *id,
                          long length)
{
    const struct report_lexical *e = report_lexical_find(in->lexical, in->n_lexical, id);
    const struct report_lexical_rank *rk = report_lexical_rank_at(e, length);
    struct strbuf text = STRBUF_INIT;
    char v[32];
    if (e && e->share >= 0) {
        snprintf(v, sizeof(v), "%.6f", e->share);
        report_open_attrs(d, "td", "class", "num", "data-v", v, NULL);
        report_textf(d, "%.0f%%", 100.0 * e->share);
    } else {
        report_open_attrs(d, "td", "class", "num", "data-v", "-1", NULL);
        report_trusted(d, "&ndash;");
    }
    report_close(d, "td");
    if (rk) {
        snprintf(v, sizeof(v), "%ld", rk->min);
        report_open_attrs(d, "td", "class", "num", "data-v", v, NULL);
        report_lexical_rank_text(&text, rk);
        report_text(d, text.buf);
    } else {
        report_open_attrs(d, "td", "class", "num", "data-v", "-1", NULL);
        report_trusted(d, "&ndash;");
    }
    report_close(d, "td");
    strbuf_release(&text);
}

static void matrix_length(struct markup *d, const struct report_input *in,
                          const struct length_stats *l, const struct trial_ref *refs,
                          struct qrow *rows, size_t nrows, struct shown *sh)
{
    const struct run_stats *s = in->stats;
    struct strbuf sb = STRBUF_INIT;
    size_t r, j, nshow;

    for (r = 0; r < nrows; r++) {
        long ok = 0, valid = 0;
        size_t i;
        for (i = rows[r].start; i < rows[r].end; i++) {
            const struct trial_result *t = refs[i].t;
            if (t->length != l->length || !outcome_is_scored(t->outcome))
                continue;
            valid++;
            ok += t->outcome == OUTCOME_CORRECT;
        }
        rows[r].acc = valid ? (double)ok / (double)valid : NAN;
    }
    qsort(rows, nrows, sizeof(*rows), cmp_row);
    nshow = nrows > QROWS_MAX ? QROWS_MAX : nrows;
    /* the details: the shown rows' trials, in this order, while there is room */
    for (r = 0; r < nshow; r++) {
        size_t i;
        for (i = rows[r].start; i < rows[r].end && sh->n < sh->max; i++)
            if (refs[i].t->length == l->length && report_trial_detailed(in->n_trials, refs[i].t)) {
                sh->detailed[refs[i].idx] = 1;
                sh->n++;
            }
    }

    plan_format_length(&sb, l->length);
    strbuf_addf(&sb, " tokens: %zu questions x %zu depths", nrows, l->n_cells);
    report_heading(d, 3, sb.buf, NULL);
    if (nshow < nrows) {
        report_open(d, "p", "cut");
        report_textf(d,
                     "The %zu least accurate of the %zu questions at this length (the matrix "
                     "stops at %d rows to keep the page small; every trial: ",
                     nshow, nrows, QROWS_MAX);
        report_element(d, "code", NULL, "dipmap export");
        report_text(d, ").");
        report_close(d, "p");
        report_nl(d);
    }
    report_open(d, "table", "qm sortable");
    report_nl(d);
    report_open(d, "thead", NULL);
    report_open(d, "tr", NULL);
    report_open_attrs(d, "th", "data-sort", "text", NULL);
    report_text(d, "question");
    report_close(d, "th");
    report_open_attrs(d, "th", "data-sort", "num", "class", "num", NULL);
    report_text(d, "accuracy");
    report_close(d, "th");
    if (in->lexical) {
        report_open_attrs(d, "th", "data-sort", "num", "class", "num", "title",
                          "share of the question's distinct tokens found in its gold text", NULL);
        report_text(d, "overlap");
        report_close(d, "th");
        report_open_attrs(d, "th", "data-sort", "num", "class", "num", "title",
                          "the gold's BM25 rank for the question among the prompt's documents",
                          NULL);
        report_text(d, "BM25 rank");
        report_close(d, "th");
    }
    for (j = 0; j < l->n_cells; j++) {
        strbuf_reset(&sb);
        plan_format_depth(&sb, s->cells[l->first_cell + j].depth_bp);
        report_element(d, "th", "num", sb.buf);
    }
    report_close(d, "tr");
    report_close(d, "thead");
    report_nl(d);
    report_open(d, "tbody", NULL);
    report_nl(d);
    for (r = 0; r < nshow; r++) {
        const struct question *q = find_question(in, rows[r].id);
        size_t i = rows[r].start;
        report_open(d, "tr", NULL);
        report_open_attrs(d, "th", "scope", "row", "data-v", rows[r].id, "title",
                          q ? q->question : NULL, NULL);
        report_text(d, rows[r].id);
        report_close(d, "th");
        strbuf_reset(&sb);
        if (isnan(rows[r].acc)) {
            report_open_attrs(d, "td", "class", "num", "data-v", "-1", NULL);
            report_trusted(d, "&ndash;");
        } else {
            strbuf_addf(&sb, "%.6f", rows[r].acc);
            report_open_attrs(d, "td", "class", "num", "data-v", sb.buf, NULL);
            report_textf(d, "%.0f%%", 100.0 * rows[r].acc);
        }
        report_close(d, "td");
        if (in->lexical)
            lexical_cells(d, in, rows[r].id, l->length);
        for (j = 0; j < l->n_cells; j++) {
            int dbp = s->cells[l->first_cell + j].depth_bp;
            size_t a, b;
            while (i < rows[r].end &&
                   (refs[i].t->length < l->length ||
                    (refs[i].t->length == l->length && refs[i].t->depth_bp < dbp)))
                i++;
            a = i;
            for (b = a;
                 b < rows[r].end && refs[b].t->length == l->length && refs[b].t->depth_bp == dbp;
                 b++)
                ;
            matrix_cell(d, in, sh, refs + a, b - a);
            i = b;
        }
        report_close(d, "tr");
        report_nl(d);
    }
    report_close(d, "tbody");
    report_nl(d);
    report_close(d, "table");
    report_nl(d);
    strbuf_release(&sb);
}

/* ---- trial details ---- */

/* s escaped, cut at DETAIL_TEXT_MAX bytes on a UTF-8 boundary ("... (N bytes more)"). */
static void capped(struct markup *d, const char *s)
{
    struct strbuf sb = STRBUF_INIT;
    size_t n = s ? strlen(s) : 0, k = n;
    if (!s)
        return;
    if (k > DETAIL_TEXT_MAX) {
        k = utf8_char_start(s, DETAIL_TEXT_MAX);
    }
    strbuf_add(&sb, s, k);
    if (k < n)
        strbuf_addf(&sb, " \xE2\x80\xA6 (%zu bytes more)", n - k);
    report_text(d, sb.buf);
    strbuf_release(&sb);
}

/* A term of the details list and the opening of its description (closed by dd_end). */
static void dt(struct markup *d, const char *term)
{
    report_element(d, "dt", NULL, term);
    report_open(d, "dd", NULL);
}

static void dd_end(struct markup *d)
{
    report_close(d, "dd");
}

static void trial_details(struct markup *d, const struct report_input *in, size_t idx)
{
    const struct trial_result *t = &in->trials[idx];
    const struct question *q = find_question(in, t->question_id);
    const struct chunk *dis = distractor_of(q, t);
    struct strbuf sb = STRBUF_INIT;
    size_t a;

    strbuf_addf(&sb, "t%zu", idx);
    report_open_attrs(d, "details", "id", sb.buf, "class", "trial", NULL);
    report_open(d, "summary", NULL);
    strbuf_reset(&sb);
    strbuf_addstr(&sb, t->question_id ? t->question_id : "");
    strbuf_addstr(&sb, " \xC2\xB7 ");
    plan_format_length(&sb, t->length);
    strbuf_addstr(&sb, " \xC2\xB7 ");
    plan_format_depth(&sb, t->depth_bp);
    strbuf_addf(&sb, " \xC2\xB7 repeat %d \xC2\xB7 ", t->repeat);
    report_text(d, sb.buf);
    report_open(d, "span", outcome_class(t, dis != NULL));
    report_text(d, outcome_name(t->outcome));
    if (dis)
        report_trusted(d, " (a distractor's value)"); /* a constant: its quote stays a quote */
    report_close(d, "span");
    report_close(d, "summary");
    report_nl(d);
    report_open(d, "dl", NULL);
    if (q) {
        dt(d, "question");
        capped(d, q->question);
        dd_end(d);
        dt(d, "expected");
        for (a = 0; a < q->answers.nr; a++) {
            if (a)
                report_text(d, " | ");
            capped(d, q->answers.v[a]);
        }
        dd_end(d);
    }
    dt(d, "answer");
    if (t->answer && *t->answer)
        capped(d, t->answer);
    else
        report_text(d, "(no answer)");
    dd_end(d);
    if (dis) {
        dt(d, "distractor");
        report_text(d, "the answer gives the value of hard negative ");
        report_text(d, dis->id);
        report_text(d, ": ");
        capped(d, dis->value);
        dd_end(d);
    }
    if (t->error && *t->error) {
        dt(d, "reason");
        capped(d, t->error);
        dd_end(d);
    }
    dt(d, "length");
    if (t->facts.realized_length > 0)
        report_textf(d, "%ld tokens realized (target %ld)", t->facts.realized_length, t->length);
    else
        report_textf(d, "target %ld (no prompt recorded)", t->length);
    if (t->usage_prompt_tokens >= 0)
        report_textf(d, "; the server counted %ld", t->usage_prompt_tokens);
    dd_end(d);
    dt(d, "depth");
    strbuf_reset(&sb);
    plan_format_depth(&sb, t->depth_bp);
    strbuf_addstr(&sb, " requested");
    if (t->facts.realized_length > 0 && isfinite(t->facts.realized_depth))
        strbuf_addf(&sb, ", %.1f%% realized (gold at token %ld)", 100.0 * t->facts.realized_depth,
                    t->facts.gold_offset);
    report_text(d, sb.buf);
    dd_end(d);
    if (t->finish_reason || t->http_status) {
        dt(d, "server");
        if (t->http_status)
            report_textf(d, "HTTP %d", t->http_status);
        if (t->finish_reason) {
            report_text(d, t->http_status ? ", finish_reason " : "finish_reason ");
            report_text(d, t->finish_reason);
        }
        report_textf(d, ", %d attempt%s", t->attempts, t->attempts == 1 ? "" : "s");
        dd_end(d);
    }
    if (in->excerpts && in->excerpts[idx]) {
        dt(d, "prompt around the gold");
        report_element(d, "pre", "prompt", in->excerpts[idx]);
        dd_end(d);
    }
    report_close(d, "dl");
    report_close(d, "details");
    report_nl(d);
    strbuf_release(&sb);
}

/* The legend of the matrix's marks: class and label (constant HTML: an entity, no value). */
static const struct {
    const char *cls, *label;
} outcome_legend[] = {
    {"o-c", "&#10003; correct"},
    {"o-w", "&#10007; wrong"},
    {"o-d", "D wrong with a distractor's value"},
    {"o-x", "T truncated, O overflow, E empty, F filtered, ! error"},
    {"o-p", "&middot; pending"},
};

/*
 * summary.md's per-question table (report.html shows the same in its matrix): per question
 * its overlap share and its gold's BM25 rank at each length, by id, at most QROWS_MAX rows.
 */
static void lexical_md(struct markup *d, const struct report_input *in)
{
    const struct run_stats *s = in->stats;
    size_t n = s->n_lengths, i, li, shown;
    const char **head;
    char *align;
    struct strbuf *titles, text = STRBUF_INIT;

    if (!in->lexical || !in->n_lexical)
        return;
    head = xcalloc(n + 3, sizeof(*head));
    align = xcalloc(n + 3, 1);
    titles = xcalloc(n + 1, sizeof(*titles));
    report_heading(d, 2, "Lexical overlap per question", "lexical");
    report_para(d, "Per question the share of its distinct tokens found in its gold text and, at "
                   "each length, its gold's Okapi BM25 rank for the question among its prompt's "
                   "documents (rank / documents ranked; docs/axes.md \"Lexical overlap\").");
    head[0] = "question";
    head[1] = "overlap";
    align[0] = 'l';
    align[1] = 'r';
    for (li = 0; li < n; li++) {
        strbuf_init(&titles[li], 0);
        strbuf_addstr(&titles[li], "BM25 rank at ");
        plan_format_length(&titles[li], s->lengths[li].length);
        head[li + 2] = titles[li].buf;
        align[li + 2] = 'r';
    }
    report_table_begin(d, align, head);
    shown = in->n_lexical > QROWS_MAX ? QROWS_MAX : in->n_lexical;
    for (i = 0; i < shown; i++) {
        const struct report_lexical *e = &in->lexical[i];
        report_row_begin(d, NULL);
        report_cell(d, e->id);
        report_cell_pct(d, e->share >= 0 ? e->share : NAN);
        for (li = 0; li < n; li++) {
            const struct report_lexical_rank *rk = report_lexical_rank_at(e, s->lengths[li].length);
            strbuf_reset(&text);
            if (rk)
                report_lexical_rank_text(&text, rk);
            report_cell(d, rk ? text.buf : "\xE2\x80\x93");
        }
        report_row_end(d);
    }
    report_table_end(d);
    if (shown < in->n_lexical) {
        struct strbuf sb = STRBUF_INIT;
        strbuf_addf(&sb,
                    "The first %zu of %zu questions by id; summary.json's \"lexical\" has every "
                    "question.",
                    shown, in->n_lexical);
        report_para(d, sb.buf);
        strbuf_release(&sb);
    }
    strbuf_release(&text);
    for (li = 0; li < n; li++)
        strbuf_release(&titles[li]);
    free(titles);
    free(align);
    free(head);
}

void report_section_questions(struct markup *d, const struct report_input *in)
{
    const struct run_stats *s = in->stats;
    struct strbuf sb = STRBUF_INIT;
    struct trial_ref *refs;
    struct qrow *rows = NULL;
    struct shown sh;
    size_t i, nrows = 0, alloc = 0, li, nbad = 0, ncurve = 0;

    if (!d->html) {
        lexical_md(d, in);
        return;
    }
    report_heading(d, 2, "Questions by depth", "questions");
    if (!in->trials || !in->n_trials) {
        report_para(d, "No trials.");
        return;
    }
    report_open(d, "p", NULL);
    report_text(d, "One row per question, one column per depth; each mark is one trial (one per "
                   "repeat) and links to its details below: ");
    for (i = 0; i < sizeof(outcome_legend) / sizeof(outcome_legend[0]); i++) {
        if (i)
            report_text(d, " ");
        report_open(d, "span", outcome_legend[i].cls);
        report_trusted(d, outcome_legend[i].label);
        report_close(d, "span");
    }
    report_text(d, ". A cell takes the colour of its worst trial. Rows start with the least "
                   "accurate question; with scripts on, click a column title to sort.");
    report_close(d, "p");
    report_nl(d);
    if (!in->golden)
        report_para(d, "The golden set is not available here: questions, expected answers and "
                       "the distractor-answer flag are not shown.");

    refs = xcalloc(in->n_trials + 1, sizeof(*refs));
    for (i = 0; i < in->n_trials; i++) {
        refs[i].t = &in->trials[i];
        refs[i].idx = i;
    }
    qsort(refs, in->n_trials, sizeof(*refs), cmp_ref);
    for (i = 0; i < in->n_trials; i++) {
        const char *id = refs[i].t->question_id ? refs[i].t->question_id : "";
        if (!nrows || strcmp(rows[nrows - 1].id, id)) {
            ALLOC_GROW(rows, nrows + 1, alloc);
            rows[nrows].id = id;
            rows[nrows].start = i;
            nrows++;
        }
        rows[nrows - 1].end = i + 1;
    }
    sh.detailed = xcalloc(in->n_trials + 1, 1);
    sh.n = 0;
    sh.max = in->n_trials <= DETAIL_MAX ? in->n_trials : DETAIL_MAX;
    for (li = 0; li < s->n_lengths; li++)
        matrix_length(d, in, &s->lengths[li], refs, rows, nrows, &sh);

    /* the details, in question order */
    for (i = 0; i < in->n_trials; i++) {
        nbad += report_trial_detailed(in->n_trials, refs[i].t);
        ncurve += !trial_is_control(refs[i].t->length, refs[i].t->depth_bp);
    }
    report_heading(d, 3, "Trial details", "trials");
    report_open(d, "p", NULL);
    report_textf(d, "%zu trial%s", sh.n, sh.n == 1 ? "" : "s");
    if (sh.n < nbad)
        report_textf(d,
                     " (%zu of the %zu %s: those of the questions shown above, least accurate "
                     "first, up to %d; the run has %zu)",
                     sh.n, nbad, in->n_trials <= DETAIL_MAX ? "trials" : "that did not end correct",
                     DETAIL_MAX, ncurve);
    else if (sh.n < ncurve)
        report_textf(d, " (the %zu that did not end correct; the run has %zu)", sh.n, ncurve);
    report_text(d, ", by question, length, depth and repeat.");
    report_close(d, "p");
    report_nl(d);
    report_open(d, "div", "trials");
    report_nl(d);
    for (i = 0; i < in->n_trials; i++)
        if (sh.detailed[refs[i].idx])
            trial_details(d, in, refs[i].idx);
    report_close(d, "div");
    report_nl(d);
    free(sh.detailed);
    free(refs);
    free(rows);

    /* one whole prompt */
    report_heading(d, 3, "Example prompt", "example-prompt");
    if (in->example_prompt && in->example_trial < in->n_trials) {
        const struct trial_result *t = &in->trials[in->example_trial];
        report_open(d, "details", "prompt");
        report_open(d, "summary", NULL);
        strbuf_addstr(&sb, "The prompt of question ");
        strbuf_addstr(&sb, t->question_id ? t->question_id : "");
        strbuf_addstr(&sb, " at ");
        plan_format_length(&sb, t->length);
        strbuf_addstr(&sb, " tokens, depth ");
        plan_format_depth(&sb, t->depth_bp);
        strbuf_addf(&sb, ", repeat %d (%zu bytes), as sent", t->repeat, strlen(in->example_prompt));
        report_text(d, sb.buf);
        report_close(d, "summary");
        report_nl(d);
        report_element(d, "pre", "prompt", in->example_prompt);
        report_close(d, "details");
        report_nl(d);
    } else {
        report_para(d, "No prompt of this run was stored (run with --store-prompts to keep them); "
                       "`dipmap show-prompt` rebuilds any trial's prompt from the same inputs.");
    }
    strbuf_release(&sb);
}

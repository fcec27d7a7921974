/*
 * report.html's per-question view: for each length a question x depth matrix
 * (cells coloured by outcome, each linking to its trial's details: answer,
 * expected, outcome, realized length and depth, the stored prompt's excerpt
 * around the gold), the distractor-answer flag, outcome counts per cell, one
 * whole example prompt, and the small sorting script (progressive
 * enhancement, allowed by its hash in the CSP). Private to the report files.
 */
#include <math.h>
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

void report_script(struct strbuf *out)
{
    strbuf_addstr(out, "<script>");
    strbuf_addstr(out, sort_script);
    strbuf_addstr(out, "</script>\n");
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
    if (trial_is_control(t->length, t->depth_bp))
        return 0; /* controls have their own section, outside the curve */
    return n_trials <= DETAIL_MAX || t->outcome != OUTCOME_CORRECT;
}

/* The trials given a details block (by index into in->trials), chosen as the rows are drawn. */
struct shown {
    unsigned char *detailed;
    size_t n, max;
};

static void link_trial(struct strbuf *out, const struct shown *sh, const struct trial_ref *r,
                       const char *text)
{
    if (sh->detailed[r->idx]) {
        strbuf_addf(out, "<a href=\"#t%zu\">", r->idx);
        strbuf_addstr(out, text);
        strbuf_addstr(out, "</a>");
    } else {
        strbuf_addstr(out, text);
    }
}

static void matrix_cell(struct strbuf *out, const struct report_input *in, const struct shown *sh,
                        const struct trial_ref *refs, size_t n)
{
    size_t i, k = 0, first_bad = n;
    long counts[OUTCOME__COUNT] = {0};
    int dis = 0;

    if (!n) {
        strbuf_addstr(out, "<td></td>");
        return;
    }
    for (i = 0; i < n; i++) {
        int d = distractor_of(find_question(in, refs[i].t->question_id), refs[i].t) != NULL;
        counts[refs[i].t->outcome]++;
        dis += d;
        if (refs[i].t->outcome != OUTCOME_CORRECT && first_bad == n)
            first_bad = i;
    }
    if (n <= SYMBOLS_MAX) {
        /* the cell takes the colour of its worst trial; each symbol links to its trial */
        const struct trial_ref *worst = first_bad < n ? &refs[first_bad] : &refs[0];
        int wd = distractor_of(find_question(in, worst->t->question_id), worst->t) != NULL;
        strbuf_addf(out, "<td class=\"%s\">", outcome_class(worst->t, wd));
        for (i = 0; i < n; i++) {
            int d = distractor_of(find_question(in, refs[i].t->question_id), refs[i].t) != NULL;
            link_trial(out, sh, &refs[i], outcome_symbol(refs[i].t, d));
        }
        strbuf_addstr(out, "</td>");
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
        strbuf_addf(out, "<td class=\"%s\">", cls);
        link_trial(out, sh, to, txt.buf);
        strbuf_addstr(out, "</td>");
        strbuf_release(&txt);
        k = 1;
    }
    (void)k;
}

static void matrix_length(struct markup *d, const struct report_input *in,
                          const struct length_stats *l, const struct trial_ref *refs,
                          struct qrow *rows, size_t nrows, struct shown *sh)
{
    const struct run_stats *s = in->stats;
    struct strbuf *out = d->out;
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

    strbuf_addstr(out, "<h3>");
    plan_format_length(out, l->length);
    strbuf_addf(out, " tokens: %zu questions x %zu depths</h3>\n", nrows, l->n_cells);
    if (nshow < nrows) {
        strbuf_addf(out,
                    "<p class=\"cut\">The %zu least accurate of the %zu questions at this length "
                    "(the matrix stops at %d rows to keep the page small; every trial: "
                    "<code>dipmap export</code>).</p>\n",
                    nshow, nrows, QROWS_MAX);
    }
    strbuf_addstr(out, "<table class=\"qm sortable\">\n<thead><tr><th data-sort=\"text\">question"
                       "</th><th data-sort=\"num\" class=\"num\">accuracy</th>");
    for (j = 0; j < l->n_cells; j++) {
        strbuf_addstr(out, "<th class=\"num\">");
        plan_format_depth(out, s->cells[l->first_cell + j].depth_bp);
        strbuf_addstr(out, "</th>");
    }
    strbuf_addstr(out, "</tr></thead>\n<tbody>\n");
    for (r = 0; r < nshow; r++) {
        const struct question *q = find_question(in, rows[r].id);
        size_t i = rows[r].start;
        strbuf_addstr(out, "<tr><th scope=\"row\" data-v=\"");
        escape_html(out, rows[r].id);
        strbuf_addstr(out, "\"");
        if (q) {
            strbuf_addstr(out, " title=\"");
            escape_html(out, q->question);
            strbuf_addstr(out, "\"");
        }
        strbuf_addstr(out, ">");
        escape_html(out, rows[r].id);
        strbuf_addstr(out, "</th>");
        if (isnan(rows[r].acc))
            strbuf_addstr(out, "<td class=\"num\" data-v=\"-1\">&ndash;</td>");
        else
            strbuf_addf(out, "<td class=\"num\" data-v=\"%.6f\">%.0f%%</td>", rows[r].acc,
                        100.0 * rows[r].acc);
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
            matrix_cell(out, in, sh, refs + a, b - a);
            i = b;
        }
        strbuf_addstr(out, "</tr>\n");
    }
    strbuf_addstr(out, "</tbody>\n</table>\n");
}

/* ---- trial details ---- */

static void capped(struct strbuf *out, const char *s)
{
    size_t n = s ? strlen(s) : 0, k = n;
    if (!s)
        return;
    if (k > DETAIL_TEXT_MAX) {
        k = utf8_char_start(s, DETAIL_TEXT_MAX);
    }
    escape_html_n(out, s, k);
    if (k < n)
        strbuf_addf(out, " \xE2\x80\xA6 (%zu bytes more)", n - k);
}

static void dt(struct strbuf *out, const char *term)
{
    strbuf_addstr(out, "<dt>");
    strbuf_addstr(out, term);
    strbuf_addstr(out, "</dt><dd>");
}

static void trial_details(struct strbuf *out, const struct report_input *in, size_t idx)
{
    const struct trial_result *t = &in->trials[idx];
    const struct question *q = find_question(in, t->question_id);
    const struct chunk *dis = distractor_of(q, t);
    size_t a;

    strbuf_addf(out, "<details id=\"t%zu\" class=\"trial\"><summary>", idx);
    escape_html(out, t->question_id);
    strbuf_addstr(out, " \xC2\xB7 ");
    plan_format_length(out, t->length);
    strbuf_addstr(out, " \xC2\xB7 ");
    plan_format_depth(out, t->depth_bp);
    strbuf_addf(out, " \xC2\xB7 repeat %d \xC2\xB7 <span class=\"%s\">%s%s</span></summary>\n<dl>",
                t->repeat, outcome_class(t, dis != NULL), outcome_name(t->outcome),
                dis ? " (a distractor's value)" : "");
    if (q) {
        dt(out, "question");
        capped(out, q->question);
        strbuf_addstr(out, "</dd>");
        dt(out, "expected");
        for (a = 0; a < q->answers.nr; a++) {
            if (a)
                strbuf_addstr(out, " | ");
            capped(out, q->answers.v[a]);
        }
        strbuf_addstr(out, "</dd>");
    }
    dt(out, "answer");
    if (t->answer && *t->answer)
        capped(out, t->answer);
    else
        strbuf_addstr(out, "(no answer)");
    strbuf_addstr(out, "</dd>");
    if (dis) {
        dt(out, "distractor");
        strbuf_addstr(out, "the answer gives the value of hard negative ");
        escape_html(out, dis->id);
        strbuf_addstr(out, ": ");
        capped(out, dis->value);
        strbuf_addstr(out, "</dd>");
    }
    if (t->error && *t->error) {
        dt(out, "reason");
        capped(out, t->error);
        strbuf_addstr(out, "</dd>");
    }
    dt(out, "length");
    if (t->realized_length > 0)
        strbuf_addf(out, "%ld tokens realized (target %ld)", t->realized_length, t->length);
    else
        strbuf_addf(out, "target %ld (no prompt recorded)", t->length);
    if (t->usage_prompt_tokens >= 0)
        strbuf_addf(out, "; the server counted %ld", t->usage_prompt_tokens);
    strbuf_addstr(out, "</dd>");
    dt(out, "depth");
    plan_format_depth(out, t->depth_bp);
    strbuf_addstr(out, " requested");
    if (t->realized_length > 0 && isfinite(t->realized_depth))
        strbuf_addf(out, ", %.1f%% realized (gold at token %ld)", 100.0 * t->realized_depth,
                    t->gold_offset);
    strbuf_addstr(out, "</dd>");
    if (t->finish_reason || t->http_status) {
        dt(out, "server");
        if (t->http_status)
            strbuf_addf(out, "HTTP %d", t->http_status);
        if (t->finish_reason) {
            strbuf_addstr(out, t->http_status ? ", finish_reason " : "finish_reason ");
            escape_html(out, t->finish_reason);
        }
        strbuf_addf(out, ", %d attempt%s", t->attempts, t->attempts == 1 ? "" : "s");
        strbuf_addstr(out, "</dd>");
    }
    if (in->excerpts && in->excerpts[idx]) {
        dt(out, "prompt around the gold");
        strbuf_addstr(out, "<pre class=\"prompt\">");
        escape_html(out, in->excerpts[idx]);
        strbuf_addstr(out, "</pre></dd>");
    }
    strbuf_addstr(out, "</dl></details>\n");
}

void report_section_questions(struct markup *d, const struct report_input *in)
{
    const struct run_stats *s = in->stats;
    struct strbuf *out = d->out;
    struct trial_ref *refs;
    struct qrow *rows = NULL;
    struct shown sh;
    size_t i, nrows = 0, alloc = 0, li, nbad = 0, ncurve = 0;

    if (!d->html)
        return;
    report_heading(d, 2, "Questions by depth", "questions");
    if (!in->trials || !in->n_trials) {
        report_para(d, "No trials.");
        return;
    }
    strbuf_addstr(
        out, "<p>One row per question, one column per depth; each mark is one trial "
             "(one per repeat) and links to its details below: "
             "<span class=\"o-c\">&#10003; correct</span> "
             "<span class=\"o-w\">&#10007; wrong</span> "
             "<span class=\"o-d\">D wrong with a distractor's value</span> "
             "<span class=\"o-x\">T truncated, O overflow, E empty, F filtered, ! error</span> "
             "<span class=\"o-p\">&middot; pending</span>. A cell takes the colour of its "
             "worst trial. Rows start with the least accurate question; with scripts on, "
             "click a column title to sort.</p>\n");
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
    strbuf_addf(out, "<h3 id=\"trials\">Trial details</h3>\n<p>%zu trial%s", sh.n,
                sh.n == 1 ? "" : "s");
    if (sh.n < nbad)
        strbuf_addf(out,
                    " (%zu of the %zu %s: those of the questions shown above, least accurate "
                    "first, up to %d; the run has %zu)",
                    sh.n, nbad, in->n_trials <= DETAIL_MAX ? "trials" : "that did not end correct",
                    DETAIL_MAX, ncurve);
    else if (sh.n < ncurve)
        strbuf_addf(out, " (the %zu that did not end correct; the run has %zu)", sh.n, ncurve);
    strbuf_addstr(out, ", by question, length, depth and repeat.</p>\n<div class=\"trials\">\n");
    for (i = 0; i < in->n_trials; i++)
        if (sh.detailed[refs[i].idx])
            trial_details(out, in, refs[i].idx);
    strbuf_addstr(out, "</div>\n");
    free(sh.detailed);
    free(refs);
    free(rows);

    /* one whole prompt */
    strbuf_addstr(out, "<h3 id=\"example-prompt\">Example prompt</h3>\n");
    if (in->example_prompt && in->example_trial < in->n_trials) {
        const struct trial_result *t = &in->trials[in->example_trial];
        strbuf_addstr(out, "<details class=\"prompt\"><summary>The prompt of question ");
        escape_html(out, t->question_id);
        strbuf_addstr(out, " at ");
        plan_format_length(out, t->length);
        strbuf_addstr(out, " tokens, depth ");
        plan_format_depth(out, t->depth_bp);
        strbuf_addf(out, ", repeat %d (%zu bytes), as sent</summary>\n<pre class=\"prompt\">",
                    t->repeat, strlen(in->example_prompt));
        escape_html(out, in->example_prompt);
        strbuf_addstr(out, "</pre></details>\n");
    } else {
        report_para(d, "No prompt of this run was stored (run with --store-prompts to keep them); "
                       "`dipmap show-prompt` rebuilds any trial's prompt from the same inputs.");
    }
}

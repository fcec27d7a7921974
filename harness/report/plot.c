/*
 * gnuplot scripts for U-curves, depth x length heatmaps, compare overlays and
 * trends, and running gnuplot on them (proc_run: no shell, script on stdin,
 * image on stdout). Owns the plot styling; every label goes through
 * escape_gnuplot() and all text is drawn noenhanced.
 */
#include "report/plot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/escape.h"
#include "run/plan.h"
#include "base/proc.h"
#include "base/strbuf.h"
#include "base/usage.h"
#include "base/xalloc.h"

#include "base/banned.h"

#define DEFAULT_WIDTH  900
#define DEFAULT_HEIGHT 560

/* Okabe-Ito: distinguishable with the common colour-vision deficiencies. */
static const char *const palette[] = {
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442",
};
#define NCOLORS (sizeof(palette) / sizeof(palette[0]))

const char *plot_format_ext(enum plot_format f)
{
    return f == PLOT_PNG ? "png" : "svg";
}

/* filled circle, filled square, filled triangle */
static const int trend_points[3] = {7, 5, 9};

static const char *color(size_t i)
{
    return palette[i % NCOLORS];
}

/* A finite number for a data block; "%.10g" keeps unix times exact; the C locale gives a dot. */
static void add_num(struct strbuf *sb, double v)
{
    strbuf_addf(sb, "%.10g", v);
}

/* The terminal (format, size in pixels, font), writing to stdout. */
static void terminal(struct strbuf *sb, const struct plot_opts *o, int w, int h)
{
    strbuf_addstr(sb, "# dipmap plot script (generated)\nreset\nset encoding utf8\n");
    if (o->format == PLOT_PNG)
        strbuf_addf(sb, "set terminal pngcairo size %d,%d noenhanced font 'Sans,10'\n", w, h);
    else
        strbuf_addf(sb,
                    "set terminal svg size %d,%d noenhanced font 'Sans,12' background "
                    "rgb 'white'\n",
                    w, h);
    strbuf_addstr(sb, "set output\n"); /* stdout */
}

/* The title and subtitle as one gnuplot string expression. */
/* Characters (not bytes) of a UTF-8 string: "·" is one. */
static size_t utf8_chars(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

static void title_expr(struct strbuf *sb, const struct plot_opts *o)
{
    escape_gnuplot(sb, o->title ? o->title : "");
    if (o->subtitle && *o->subtitle) {
        strbuf_addstr(sb, " . \"\\n\" . ");
        escape_gnuplot(sb, o->subtitle);
    }
}

static void preamble(struct strbuf *sb, const struct plot_opts *o)
{
    terminal(sb, o, o->width > 0 ? o->width : DEFAULT_WIDTH,
             o->height > 0 ? o->height : DEFAULT_HEIGHT);
    strbuf_addstr(sb, "set title ");
    title_expr(sb, o);
    strbuf_addstr(sb, " noenhanced\n");
    strbuf_addstr(sb, "set grid lc rgb '#dddddd'\nset border lc rgb '#444444'\n");
}

/* A tick label: tick labels are format strings to gnuplot, so a '%' is doubled. */
static void tic_label(struct strbuf *sb, const char *s)
{
    struct strbuf t = STRBUF_INIT;
    for (; s && *s; s++) {
        if (*s == '%')
            strbuf_addch(&t, '%');
        strbuf_addch(&t, *s);
    }
    escape_gnuplot(sb, t.buf);
    strbuf_release(&t);
}

/* o's x labels as the tics at 0, 1, ...: "'a' 0, 'b' 1)" and the x range around them. */
static void xlabel_tics(struct strbuf *sb, const struct plot_opts *o)
{
    size_t i;
    for (i = 0; i < o->n_xlabels; i++) {
        if (i)
            strbuf_addstr(sb, ", ");
        tic_label(sb, o->xlabels[i] ? o->xlabels[i] : "?");
        strbuf_addf(sb, " %zu", i);
    }
    strbuf_addf(sb, ")\nset xrange [-0.5:%g]\n", (double)o->n_xlabels - 0.5);
}

/* Points with data, as "x y lo hi" lines; returns how many were written. */
static size_t data_block(struct strbuf *sb, const char *name, const struct plot_series *s,
                         int flagged_only)
{
    size_t i, k = 0;

    strbuf_addf(sb, "$%s << EOD\n", name);
    for (i = 0; i < s->n; i++) {
        const struct plot_point *p = &s->pts[i];
        if (!isfinite(p->x) || !isfinite(p->y))
            continue;
        if (flagged_only && !p->flag)
            continue;
        add_num(sb, p->x);
        strbuf_addch(sb, ' ');
        add_num(sb, p->y);
        strbuf_addch(sb, ' ');
        add_num(sb, isfinite(p->lo) ? p->lo : p->y);
        strbuf_addch(sb, ' ');
        add_num(sb, isfinite(p->hi) ? p->hi : p->y);
        strbuf_addch(sb, '\n');
        k++;
    }
    strbuf_addstr(sb, "EOD\n");
    return k;
}

/* A horizontal level across the series' depth span, as a two-point block. */
static int level_block(struct strbuf *sb, const char *name, const struct plot_series *s,
                       double level)
{
    double lo = INFINITY, hi = -INFINITY;
    size_t i;

    if (!isfinite(level))
        return 0;
    for (i = 0; i < s->n; i++)
        if (isfinite(s->pts[i].x) && isfinite(s->pts[i].y)) {
            lo = s->pts[i].x < lo ? s->pts[i].x : lo;
            hi = s->pts[i].x > hi ? s->pts[i].x : hi;
        }
    if (lo > hi)
        return 0;
    strbuf_addf(sb, "$%s << EOD\n", name);
    add_num(sb, lo);
    strbuf_addch(sb, ' ');
    add_num(sb, level);
    strbuf_addch(sb, '\n');
    add_num(sb, hi);
    strbuf_addch(sb, ' ');
    add_num(sb, level);
    strbuf_addstr(sb, "\nEOD\n");
    return 1;
}

/* Separator between plot elements: "plot " first, then ", \\\n     ". */
static void next_elem(struct strbuf *sb, int *first)
{
    strbuf_addstr(sb, *first ? "plot " : ", \\\n     ");
    *first = 0;
}

static void depth_axes(struct strbuf *sb)
{
    strbuf_addstr(sb, "set xlabel 'depth of the answer in the document block (% of distractor "
                      "tokens before it)' noenhanced\n"
                      "set ylabel 'accuracy (fraction correct)' noenhanced\n"
                      "set xrange [-3:103]\nset yrange [0:1.05]\n"
                      "set xtics 0,10,100\nset ytics 0,0.1,1\nset format y '%.1f'\n");
}

/*
 * The data blocks and the plot command of a U-curve: bands, levels, lines,
 * controls and (with key) the key entries explaining them. Block names start
 * with `prefix`, so the panels of one multiplot never share one.
 */
static void ucurve_plot(struct strbuf *sb, const struct plot_opts *o, const struct plot_series *s,
                        size_t ns, const char *prefix, int key)
{
    size_t i;
    int first = 1, any_edge = 0, any_middle = 0;
    int any_band = 0;
    int *has_edge = xcalloc(ns + 1, sizeof(int));
    int *has_middle = xcalloc(ns + 1, sizeof(int));
    size_t *npts = xcalloc(ns + 1, sizeof(size_t));

    for (i = 0; i < ns; i++) {
        char name[64];
        snprintf(name, sizeof(name), "%ss%zu", prefix, i);
        npts[i] = data_block(sb, name, &s[i], 0);
        snprintf(name, sizeof(name), "%se%zu", prefix, i);
        has_edge[i] = level_block(sb, name, &s[i], s[i].edge);
        snprintf(name, sizeof(name), "%sm%zu", prefix, i);
        has_middle[i] = level_block(sb, name, &s[i], s[i].middle);
        any_edge |= has_edge[i];
        any_middle |= has_middle[i];
    }
    for (i = 0; i < (size_t)o->n_controls && i < 2; i++)
        strbuf_addf(sb, "$%sc%zu << EOD\n0 %.6f\n100 %.6f\nEOD\n", prefix, i, o->control_acc[i],
                    o->control_acc[i]);
    /* bands first, so every line is drawn over every band */
    for (i = 0; i < ns; i++)
        if (npts[i]) {
            next_elem(sb, &first);
            strbuf_addf(sb, "$%ss%zu using 1:3:4 with filledcurves lc rgb '%s' notitle", prefix, i,
                        color(i));
            any_band = 1;
        }
    for (i = 0; i < ns; i++) {
        if (has_edge[i]) {
            next_elem(sb, &first);
            strbuf_addf(sb, "$%se%zu using 1:2 with lines dt 2 lw 1.2 lc rgb '%s' notitle", prefix,
                        i, color(i));
        }
        if (has_middle[i]) {
            next_elem(sb, &first);
            strbuf_addf(sb, "$%sm%zu using 1:2 with lines dt 3 lw 1.5 lc rgb '%s' notitle", prefix,
                        i, color(i));
        }
    }
    for (i = 0; i < ns; i++)
        if (npts[i]) {
            next_elem(sb, &first);
            strbuf_addf(sb, "$%ss%zu using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '%s' ",
                        prefix, i, color(i));
            if (key) {
                strbuf_addstr(sb, "title ");
                escape_gnuplot(sb, s[i].label);
            } else {
                strbuf_addstr(sb, "notitle");
            }
        }
    for (i = 0; i < (size_t)o->n_controls && i < 2; i++) {
        next_elem(sb, &first);
        strbuf_addf(sb, "$%sc%zu using 1:2 with lines dt %d lw 1.5 lc rgb '#000000' title ", prefix,
                    i, i ? 4 : 5);
        escape_gnuplot(sb, o->control_label[i] ? o->control_label[i] : "control");
    }
    if (any_edge && key) {
        next_elem(sb, &first);
        strbuf_addstr(sb, "keyentry with lines dt 2 lc rgb '#666666' title 'edge level (dashed)'");
    }
    if (any_middle && key) {
        next_elem(sb, &first);
        strbuf_addstr(sb,
                      "keyentry with lines dt 3 lc rgb '#666666' title 'middle 25-75% (dotted)'");
    }
    if (any_band && key) {
        /* the band explained once; keyentry draws nothing in the plot itself */
        next_elem(sb, &first);
        strbuf_addstr(sb, "keyentry with filledcurves lc rgb '#999999' title ");
        escape_gnuplot(sb, o->band_label ? o->band_label : "95% interval (by question)");
    }
    if (first)
        strbuf_addstr(sb, "set label 1 'no data' at graph 0.5, graph 0.5 center\nplot NaN notitle");
    strbuf_addch(sb, '\n');
    free(has_edge);
    free(has_middle);
    free(npts);
}

void plot_script_ucurve(struct strbuf *sb, const struct plot_opts *o, const struct plot_series *s,
                        size_t ns)
{
    preamble(sb, o);
    depth_axes(sb);
    strbuf_addstr(sb, "set key outside right top box samplen 3\n"
                      "set style fill transparent solid 0.15 noborder\n");
    ucurve_plot(sb, o, s, ns, "", 1);
}

void plot_script_multiples(struct strbuf *sb, const struct plot_opts *o, const struct plot_panel *p,
                           size_t np)
{
    size_t cols = np <= 3 ? (np ? np : 1) : np == 4 ? 2 : 3, rows = np ? (np + cols - 1) / cols : 1;
    /* the key goes below the panels, one line per series and one for the band: inside a
     * panel it would cover that panel's low-accuracy points */
    int key_px = np ? 14 * (int)(p[0].ns + 1) + 8 : 0;
    int w = o->width > 0 ? o->width : (int)(80 + 340 * cols);
    int h = o->height > 0 ? o->height : (int)(120 + 300 * rows) + key_px;
    size_t i;

    /* one or two panels must not clip the figure's title lines (8 px a character is
       gnuplot's default font at its widest) */
    if (o->width <= 0) {
        size_t tl = o->title ? utf8_chars(o->title) : 0;
        if (o->subtitle && utf8_chars(o->subtitle) > tl)
            tl = utf8_chars(o->subtitle);
        if ((int)(40 + 8 * tl) > w)
            w = (int)(40 + 8 * tl);
    }

    terminal(sb, o, w, h);
    strbuf_addstr(sb, "set grid lc rgb '#dddddd'\nset border lc rgb '#444444'\n"
                      "set style fill transparent solid 0.15 noborder\n"
                      "set xrange [-3:103]\nset yrange [0:1.05]\nset xtics 0,25,100\n"
                      "set ytics ('0%%' 0, '25%%' 0.25, '50%%' 0.5, '75%%' 0.75, '100%%' 1)\n");
    /* margins in pixels (as screen fractions): y ticks and title left, two title lines and
     * the panel title above, x ticks, x title and the key below */
    strbuf_addf(sb,
                "set multiplot layout %zu,%zu rowsfirst margins %.4f,%.4f,%.4f,%.4f "
                "spacing %.4f,%.4f title ",
                rows, cols, 70.0 / w, 1 - 15.0 / w, (60.0 + key_px) / h, 1 - 85.0 / h, 60.0 / w,
                90.0 / h);
    title_expr(sb, o);
    strbuf_addstr(sb, " noenhanced\n");
    for (i = 0; i < np; i++) {
        char prefix[32];
        snprintf(prefix, sizeof(prefix), "p%zu", i);
        strbuf_addstr(sb, "set title ");
        escape_gnuplot(sb, p[i].title ? p[i].title : "");
        strbuf_addstr(sb, " noenhanced\n");
        /* shared axes: the x title under the bottom row, the y title left of the first column */
        if (i + cols >= np)
            strbuf_addstr(sb, "set xlabel 'depth of the answer (% of the document block)' "
                              "noenhanced\n");
        else
            strbuf_addstr(sb, "unset xlabel\n");
        if (i % cols == 0 && o->ylabel) {
            strbuf_addstr(sb, "set ylabel ");
            escape_gnuplot(sb, o->ylabel);
            strbuf_addstr(sb, " noenhanced\n");
        } else if (i % cols == 0)
            strbuf_addstr(sb, "set ylabel 'accuracy' noenhanced\n");
        else
            strbuf_addstr(sb, "unset ylabel\n");
        if (i == 0)
            strbuf_addf(sb,
                        "set key at screen 0.5, screen %.4f center bottom Left reverse "
                        "samplen 2 font ',9'\n",
                        4.0 / h);
        else
            strbuf_addstr(sb, "unset key\n");
        strbuf_addstr(sb, "unset label 1\n");
        ucurve_plot(sb, o, p[i].s, p[i].ns, prefix, i == 0);
    }
    if (!np)
        strbuf_addstr(sb,
                      "set label 1 'no data' at graph 0.5, graph 0.5 center\nplot NaN notitle\n");
    strbuf_addstr(sb, "unset multiplot\n");
}

void plot_script_heatmap(struct strbuf *sb, const struct plot_opts *o, const struct plot_grid *g)
{
    struct strbuf lab = STRBUF_INIT;
    size_t d, l;
    int any = 0;

    preamble(sb, o);
    strbuf_addstr(sb, "set xlabel ");
    escape_gnuplot(sb, g->xtitle ? g->xtitle : "depth of the answer (% of the document block)");
    strbuf_addstr(sb, " noenhanced\nset ylabel ");
    escape_gnuplot(sb, g->ytitle ? g->ytitle : "prompt length (tokens)");
    strbuf_addstr(sb, " noenhanced\n"
                      "set cblabel 'accuracy (fraction correct)' noenhanced\n"
                      "set cbrange [0:1]\nset cbtics 0,0.2,1\n"
                      "set palette defined (0 '#b2182b', 0.5 '#fee08b', 1 '#1a9850')\n"
                      "unset key\nunset grid\nset tics out nomirror\n"
                      "set style fill solid 1.0 border rgb 'white'\n");
    /* labelled rows read top-down like the table; lengths grow upwards */
    if (g->yticks)
        strbuf_addf(sb, "set xrange [-0.5:%g]\nset yrange [%g:-0.5]\n", (double)g->ndepths - 0.5,
                    (double)g->nlengths - 0.5);
    else
        strbuf_addf(sb, "set xrange [-0.5:%g]\nset yrange [-0.5:%g]\n", (double)g->ndepths - 0.5,
                    (double)g->nlengths - 0.5);
    strbuf_addstr(sb, "set xtics (");
    for (d = 0; d < g->ndepths; d++) {
        strbuf_reset(&lab);
        if (g->xticks)
            strbuf_addstr(&lab, g->xticks[d] ? g->xticks[d] : "?");
        else
            strbuf_addf(&lab, "%g", g->depths[d]);
        if (d)
            strbuf_addstr(sb, ", ");
        tic_label(sb, lab.buf);
        strbuf_addf(sb, " %zu", d);
    }
    strbuf_addstr(sb, ")\nset ytics (");
    for (l = 0; l < g->nlengths; l++) {
        strbuf_reset(&lab);
        if (g->yticks)
            strbuf_addstr(&lab, g->yticks[l] ? g->yticks[l] : "?");
        else
            plan_format_length(&lab, g->lengths ? g->lengths[l] : 0);
        if (l)
            strbuf_addstr(sb, ", ");
        tic_label(sb, lab.buf);
        strbuf_addf(sb, " %zu", l);
    }
    strbuf_release(&lab);
    strbuf_addstr(sb, ")\n$grid << EOD\n");
    for (l = 0; l < g->nlengths; l++)
        for (d = 0; d < g->ndepths; d++) {
            double a = g->acc[l * g->ndepths + d];
            if (!isfinite(a))
                continue;
            strbuf_addf(sb, "%zu %zu ", d, l);
            add_num(sb, a);
            if (g->n)
                strbuf_addf(sb, " %ld", g->n[l * g->ndepths + d]);
            strbuf_addch(sb, '\n');
            any = 1;
        }
    strbuf_addstr(sb, "EOD\n");
    if (any && g->n)
        strbuf_addstr(sb, "plot $grid using 1:2:(0.5):(0.5):3 with boxxyerror fc palette "
                          "notitle, \\\n     $grid using 1:2:(sprintf(\"%.2f\\nn=%d\", $3, $4)) "
                          "with labels font ',10' notitle\n");
    else if (any)
        strbuf_addstr(sb, "plot $grid using 1:2:(0.5):(0.5):3 with boxxyerror fc palette "
                          "notitle, \\\n     $grid using 1:2:(sprintf('%.2f', $3)) with labels "
                          "font ',10' notitle\n");
    else
        strbuf_addstr(sb, "set label 1 'no scored trials' at graph 0.5, graph 0.5 center\n"
                          "set xrange [0:1]\nset yrange [0:1]\nunset colorbox\n"
                          "plot NaN notitle\n");
}

void plot_script_compare(struct strbuf *sb, const struct plot_opts *o,
                         const struct plot_series *base, size_t nbase,
                         const struct plot_series *cand, size_t ncand)
{
    size_t i, nflag = 0;
    int first = 1;
    size_t *nb = xcalloc(nbase + 1, sizeof(size_t));
    size_t *nc = xcalloc(ncand + 1, sizeof(size_t));
    preamble(sb, o);
    depth_axes(sb);
    strbuf_addstr(sb, "set key outside right top box samplen 3\n"
                      "set style fill transparent solid 0.10 noborder\n");
    for (i = 0; i < nbase; i++) {
        char name[32];
        snprintf(name, sizeof(name), "b%zu", i);
        nb[i] = data_block(sb, name, &base[i], 0);
    }
    for (i = 0; i < ncand; i++) {
        char name[32];
        snprintf(name, sizeof(name), "c%zu", i);
        nc[i] = data_block(sb, name, &cand[i], 0);
        snprintf(name, sizeof(name), "f%zu", i);
        nflag += data_block(sb, name, &cand[i], 1);
    }
    for (i = 0; i < ncand; i++)
        if (nc[i]) {
            next_elem(sb, &first);
            strbuf_addf(sb, "$c%zu using 1:3:4 with filledcurves lc rgb '%s' title ", i, color(i));
            {
                struct strbuf lab = STRBUF_INIT;
                strbuf_addf(&lab, "%s 95%% interval", cand[i].label ? cand[i].label : "");
                escape_gnuplot(sb, lab.buf);
                strbuf_release(&lab);
            }
        }
    for (i = 0; i < nbase; i++)
        if (nb[i]) {
            next_elem(sb, &first);
            strbuf_addf(sb,
                        "$b%zu using 1:2 with linespoints dt 2 lw 1.5 pt 6 ps 0.8 lc rgb '%s' "
                        "title ",
                        i, color(i));
            escape_gnuplot(sb, base[i].label);
        }
    for (i = 0; i < ncand; i++)
        if (nc[i]) {
            next_elem(sb, &first);
            strbuf_addf(sb, "$c%zu using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '%s' title ",
                        i, color(i));
            escape_gnuplot(sb, cand[i].label);
        }
    if (nflag) {
        int titled = 0;
        for (i = 0; i < ncand; i++) {
            size_t k, has = 0;
            for (k = 0; k < cand[i].n; k++)
                has += cand[i].pts[k].flag && isfinite(cand[i].pts[k].y);
            if (!has)
                continue;
            next_elem(sb, &first);
            strbuf_addf(sb, "$f%zu using 1:2 with points pt 6 ps 2.6 lw 2.5 lc rgb '#d7191c' %s", i,
                        titled ? "notitle" : "title 'significant regression'");
            titled = 1;
        }
    }
    if (first)
        strbuf_addstr(sb, "set label 1 'no data' at graph 0.5, graph 0.5 center\nplot NaN notitle");
    strbuf_addch(sb, '\n');
    free(nb);
    free(nc);
}

void plot_script_trend(struct strbuf *sb, const struct plot_opts *o, const struct plot_series *s,
                       size_t ns)
{
    size_t i, k, *npts, nflag = 0;
    int first = 1;
    double ymin = 0;

    preamble(sb, o);
    for (i = 0; i < ns; i++)
        for (k = 0; k < s[i].n; k++) {
            const struct plot_point *p = &s[i].pts[k];
            if (!isfinite(p->x) || !isfinite(p->y))
                continue;
            if (p->y < ymin)
                ymin = p->y;
            if (isfinite(p->lo) && p->lo < ymin)
                ymin = p->lo;
        }
    ymin = floor(ymin * 10.0 - 1e-9) / 10.0;
    if (ymin < -1)
        ymin = -1;
    strbuf_addstr(sb, "set ylabel 'accuracy / dip (fraction, 95% interval)' noenhanced\n"
                      "set key outside right top box\n");
    if (o->n_xlabels) {
        /* one tick per run, labelled with its (unique) name */
        strbuf_addstr(sb, "set xlabel 'run (oldest first)' noenhanced\nset xtics rotate by -30 (");
        xlabel_tics(sb, o);
    } else {
        strbuf_addstr(sb, "set xlabel 'run started (UTC)' noenhanced\n"
                          "set xdata time\nset timefmt '%s'\nset format x \"%Y-%m-%d\\n%H:%M\"\n"
                          "set offsets graph 0.03, graph 0.03, 0, 0\n");
    }
    strbuf_addf(sb, "set yrange [%g:1.05]\n", ymin);
    npts = xcalloc(ns + 1, sizeof(size_t));
    for (i = 0; i < ns; i++) {
        char name[32];
        snprintf(name, sizeof(name), "t%zu", i);
        npts[i] = data_block(sb, name, &s[i], 0);
    }
    /* every flagged point of every series in one block: one key entry for the rings */
    strbuf_addstr(sb, "$rings << EOD\n");
    for (i = 0; i < ns; i++)
        for (k = 0; k < s[i].n; k++) {
            const struct plot_point *p = &s[i].pts[k];
            if (!p->flag || !isfinite(p->x) || !isfinite(p->y))
                continue;
            add_num(sb, p->x);
            strbuf_addch(sb, ' ');
            add_num(sb, p->y);
            strbuf_addch(sb, '\n');
            nflag++;
        }
    strbuf_addstr(sb, "EOD\n");
    for (i = 0; i < ns; i++) {
        if (!npts[i])
            continue;
        next_elem(sb, &first);
        strbuf_addf(sb,
                    "$t%zu using 1:2:3:4 with yerrorlines lw 2 dt %zu pt %d ps 0.8 lc rgb '%s' "
                    "title ",
                    i, o->group > 1 ? i % (size_t)o->group + 1 : 1,
                    o->group > 1 ? trend_points[i % (size_t)o->group % 3] : 7,
                    color(o->group > 1 ? i / (size_t)o->group : i));
        escape_gnuplot(sb, s[i].label);
    }
    if (nflag && !first)
        strbuf_addstr(sb,
                      ", \\\n     $rings using 1:2 with points pt 6 ps 2.6 lw 2 lc rgb '#D55E00' "
                      "title 'failed vs last passing run'");
    if (first)
        strbuf_addstr(sb, "set label 1 'no runs' at graph 0.5, graph 0.5 center\n"
                          "set xdata\nset format x '%g'\nset xrange [0:1]\nplot NaN notitle");
    strbuf_addch(sb, '\n');
    free(npts);
}

static const char *gnuplot_program(void)
{
    const char *p = getenv("DIPMAP_GNUPLOT");
    return p && *p ? p : "gnuplot";
}

int plot_available(void)
{
    return proc_available(gnuplot_program());
}

enum plot_status plot_render(const struct strbuf *script, struct strbuf *out, struct strbuf *why)
{
    const char *argv[] = {gnuplot_program(), NULL};
    struct strbuf err = STRBUF_INIT;
    size_t before = out->len;
    int status = 0;
    enum plot_status ret = PLOT_OK;

    if (!proc_available(argv[0]))
        return PLOT_NO_GNUPLOT;
    if (proc_run(argv, script->buf, script->len, out, &err, &status) < 0) {
        if (errno == ENOENT) {
            ret = PLOT_NO_GNUPLOT;
        } else {
            error_to(why, "cannot run %s: %s", argv[0], strerror(errno));
            ret = PLOT_FAILED;
        }
        goto cleanup;
    }
    if (status != 0 || out->len == before) {
        strbuf_trim(&err);
        error_to(why, "%s failed (exit %d)%s%s", argv[0], status, err.len ? ": " : "",
                 err.len ? err.buf : "");
        strbuf_setlen(out, before);
        ret = PLOT_FAILED;
    }
cleanup:
    strbuf_release(&err);
    return ret;
}

int plot_write_file(const char *path, const struct strbuf *data, struct strbuf *err)
{
    size_t off = 0;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

    if (fd < 0)
        return error_to(err, "cannot write %s: %s", path, strerror(errno));
    while (off < data->len) {
        ssize_t w = write(fd, data->buf + off, data->len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = errno;
            close(fd);
            return error_to(err, "cannot write %s: %s", path, strerror(e));
        }
        off += (size_t)w;
    }
    if (close(fd) < 0)
        return error_to(err, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

const char *plot_svg_element(const char *svg, size_t *len)
{
    const char *start = svg ? strstr(svg, "<svg") : NULL;
    const char *end;

    if (!start)
        return NULL;
    end = strstr(start, "</svg>");
    if (!end)
        return NULL;
    *len = (size_t)(end - start) + strlen("</svg>");
    return start;
}

enum plot_status plot_save(const char *dir, const char *name, unsigned formats, plot_builder build,
                           const void *data, const struct plot_opts *o, struct strbuf *svg)
{
    struct strbuf script = STRBUF_INIT, img = STRBUF_INIT, path = STRBUF_INIT;
    struct strbuf err = STRBUF_INIT;
    enum plot_status ret = PLOT_OK;
    int f;

    if (!plot_available())
        return PLOT_NO_GNUPLOT;
    for (f = PLOT_SVG; f <= PLOT_PNG && ret == PLOT_OK; f++) {
        struct plot_opts fo = *o;
        if (!(formats & (1u << f)))
            continue;
        fo.format = (enum plot_format)f;
        strbuf_reset(&script);
        strbuf_reset(&img);
        build(&script, &fo, data);
        ret = plot_render(&script, &img, &err);
        if (ret != PLOT_OK)
            break;
        strbuf_reset(&path);
        strbuf_addf(&path, "%s/%s.%s", dir ? dir : ".", name, plot_format_ext(fo.format));
        if (dir && plot_write_file(path.buf, &img, &err) < 0)
            ret = PLOT_FAILED;
        else if (svg && f == PLOT_SVG)
            strbuf_add(svg, img.buf, img.len);
    }
    /*
     * This error() call prints (docs/conventions.md "Errors"): plot_save's callers (the
     * report pages, report_compare.c, the trend of harness/stats/trend.c) return a
     * plot_status, which says "failed", not why, and each then warns that the plot is
     * skipped. This line is the why, until they take an err.
     */
    if (ret == PLOT_FAILED)
        error("%s", err.buf);
    strbuf_release(&err);
    strbuf_release(&script);
    strbuf_release(&img);
    strbuf_release(&path);
    return ret;
}

/* The axes of each index plot (labels and the y range as gnuplot text), by enum plot_index. */
static const char *const index_axes[] = {
    [PLOT_INDEX_ORDER] = "set ylabel 'accuracy (fraction correct, 95% interval)' noenhanced\n"
                         "set xlabel 'k: retrieved chunks passed to the model' noenhanced\n"
                         "set yrange [0:1.05]\n",
    [PLOT_INDEX_DECOMP] =
        "set ylabel 'penalty (accuracy lost, 95% interval by question)' noenhanced\n"
        "set xlabel 'prompt length (tokens)' noenhanced\n"
        "set yrange [-0.5:1]\nset xzeroaxis lt 0 lw 1 lc rgb '#888888'\n",
};

void plot_script_index(struct strbuf *sb, const struct plot_opts *o, const struct plot_series *s,
                       size_t ns, enum plot_index kind)
{
    size_t i, *npts = xcalloc(ns + 1, sizeof(size_t));
    int first = 1;

    if ((unsigned)kind >= sizeof(index_axes) / sizeof(index_axes[0]))
        BUG("plot_script_index: kind %d", (int)kind);
    preamble(sb, o);
    strbuf_addstr(sb, index_axes[kind]);
    strbuf_addstr(sb, "set key outside right top box\nset xtics (");
    xlabel_tics(sb, o);
    for (i = 0; i < ns; i++) {
        char name[32];
        snprintf(name, sizeof(name), "o%zu", i);
        npts[i] = data_block(sb, name, &s[i], 0);
    }
    for (i = 0; i < ns; i++) {
        if (!npts[i])
            continue;
        next_elem(sb, &first);
        strbuf_addf(sb, "$o%zu using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 0.8 lc rgb '%s' title ",
                    i, color(i));
        escape_gnuplot(sb, s[i].label);
    }
    if (first)
        strbuf_addstr(sb, "set label 1 'no data' at graph 0.5, graph 0.5 center\nplot NaN notitle");
    strbuf_addch(sb, '\n');
    free(npts);
}

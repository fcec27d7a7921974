#ifndef PLOT_H
#define PLOT_H

#include <stddef.h>

struct strbuf;

/*
 * Plots drawn by gnuplot, run as a child process (proc_run: fork/execvp, the
 * script on stdin, the image on stdout; never a shell, no temp files: data is
 * inlined as $data << EOD blocks). Every label is escaped with
 * escape_gnuplot() and drawn `noenhanced`, so names can never run commands.
 *
 * The core takes plain arrays, so it can be used and tested without a store:
 * build a script with plot_script_*(), turn it into an image with
 * plot_render(), write it with plot_write_file().
 */

/*
 * One point of a curve. x: depth in percent (0..100) for U-curves, unix time
 * (seconds) for trends. y: accuracy 0..1 (or a dip, -1..1). lo/hi: its
 * interval (NAN when none). A point with y NAN is missing and not drawn.
 * flag: nonzero marks the point (compare: a significant regression).
 */
struct plot_point {
    double x, y, lo, hi;
    int flag;
};

/* One line: a length in a U-curve, or one metric in a trend. Borrowed data. */
struct plot_series {
    const char *label; /* legend text, e.g. "8k tokens" */
    const struct plot_point *pts;
    size_t n;
    double edge;   /* U-curves: edge accuracy, drawn as a dashed level (NAN: none) */
    double middle; /* U-curves: middle accuracy, drawn as a dotted level (NAN: none) */
};

/*
 * A depth x length grid of accuracies, acc[l * ndepths + d] (NAN: no data).
 * The same grid of any two factors (report --axis-pair: columns = values of
 * B, rows = values of A) with xticks/yticks naming the columns/rows and
 * xtitle/ytitle the axes; n (optional) prints each cell's trial count.
 */
struct plot_grid {
    size_t ndepths, nlengths;
    const double *depths; /* percent, ndepths entries, ascending (unused with xticks) */
    const long *lengths;  /* tokens, nlengths entries, ascending (unused with yticks) */
    const double *acc;
    const char *const *xticks, *const *yticks; /* column / row labels, or NULL */
    const char *xtitle, *ytitle;               /* axis titles, or NULL: depth / length */
    const long *n;                             /* trials per cell, or NULL: not shown */
};

/* One panel of a small-multiples figure: its title and its U-curve lines (borrowed). */
struct plot_panel {
    const char *title; /* e.g. "question-at=start (n=300)" */
    const struct plot_series *s;
    size_t ns;
};

enum plot_format { PLOT_SVG = 0, PLOT_PNG = 1 };

struct plot_opts {
    const char *title;    /* first title line (e.g. "model · run"); any text, escaped */
    const char *subtitle; /* second title line, or NULL */
    enum plot_format format;
    int width, height; /* pixels; 0 for the default 900 x 560 */
    /*
     * trend only: series come in groups of `group` (e.g. edge, middle, dip of
     * one length) sharing a colour, the k-th of each group drawn with dash
     * type k+1. 0 or 1: every series its own colour, solid.
     */
    int group;
    /*
     * trend only: one x tick per run. With labels, x is the run's index
     * (0..n_labels-1), each tick labelled with labels[i] (a run name: unique,
     * so no tick label repeats). Without them x is unix time.
     */
    const char *const *xlabels;
    size_t n_xlabels;
    /*
     * U-curves only: up to 2 control accuracies (closed-book, oracle) drawn
     * as black horizontal levels across every depth, titled control_label[i].
     */
    int n_controls;
    const char *control_label[2];
    double control_acc[2];
    /* U-curves: the legend of the interval bands (NULL: "95% interval (by question)") */
    const char *band_label;
    /* small multiples: the y axis title (NULL: "accuracy") */
    const char *ylabel;
};

/* File extension for a format: "svg" or "png". */
const char *plot_format_ext(enum plot_format f);

/*
 * Script builders. Each appends a complete gnuplot script to `script` that
 * writes the image to stdout. Pure functions (no I/O, no errors); the series
 * and grid are only read.
 *
 * ucurve:  accuracy vs depth, one line per series, the interval as a shaded
 *          band, edge/middle levels, axes "depth of the answer (% of the
 *          document block)" and "accuracy (fraction correct)".
 * heatmap: depth x length cells coloured by accuracy, the value printed in
 *          each cell (blank where there is no data).
 * compare: baseline series drawn dashed, candidate series solid, candidate
 *          points with flag set circled and listed in the key as
 *          "significant regression". nbase and ncand may differ.
 * trend:   x is the run index (o->xlabels) or unix time; each series is a metric over runs,
 *          with its interval as error bars; flagged points (a failed comparison with the
 *          previous run) are ringed and named in the key.
 */
void plot_script_ucurve(struct strbuf *script, const struct plot_opts *o,
                        const struct plot_series *s, size_t ns);
void plot_script_heatmap(struct strbuf *script, const struct plot_opts *o,
                         const struct plot_grid *g);
void plot_script_compare(struct strbuf *script, const struct plot_opts *o,
                         const struct plot_series *base, size_t nbase,
                         const struct plot_series *cand, size_t ncand);
void plot_script_trend(struct strbuf *script, const struct plot_opts *o,
                       const struct plot_series *s, size_t ns);

/*
 * multiples: small multiples of U-curves (gnuplot multiplot), one panel per
 *          plot_panel in rows of up to 3, every panel on the same axes (depth
 *          0-100 %, accuracy 0-100 %), each titled with its panel title, the
 *          key (the series' labels, e.g. one line per length, and o->band_label)
 *          in the first panel only, so series i has the same colour in every
 *          panel.
 */
void plot_script_multiples(struct strbuf *script, const struct plot_opts *o,
                           const struct plot_panel *p, size_t np);

/*
 * The index plots: one line per series with its interval as error bars, x the index of
 * o->xlabels (each tick named by it), so small and large values get equal room; the kind
 * gives the axes.
 * PLOT_INDEX_ORDER:  the order experiment: accuracy vs k (chunks passed), one line per
 *                    policy (o->xlabels "3", "5", ...).
 * PLOT_INDEX_DECOMP: the length, distraction and position penalties (run --arm) vs length,
 *                    one line per penalty (o->xlabels the lengths), a zero line.
 */
enum plot_index { PLOT_INDEX_ORDER, PLOT_INDEX_DECOMP };
void plot_script_index(struct strbuf *script, const struct plot_opts *o,
                       const struct plot_series *s, size_t ns, enum plot_index kind);

enum plot_status {
    PLOT_OK = 0,
    PLOT_NO_GNUPLOT = 1, /* gnuplot not on PATH: nothing printed; caller warns once */
    PLOT_FAILED = -1     /* gnuplot failed (plot_render: why in its err; plot_save printed it) */
};

/*
 * Run gnuplot (the program named by $DIPMAP_GNUPLOT, default "gnuplot", found
 * on PATH) on the script and append its stdout (SVG text or PNG bytes) to out.
 * PLOT_FAILED appends why to `why` ("gnuplot failed (exit 1): its message").
 */
enum plot_status plot_render(const struct strbuf *script, struct strbuf *out, struct strbuf *why);

/* 1 when gnuplot can be started. */
int plot_available(void);

/*
 * Write data to path (created or truncated, mode 0644 before umask).
 * Returns 0, or -1 with "cannot write PATH: why" appended to err.
 */
int plot_write_file(const char *path, const struct strbuf *data, struct strbuf *err);

/*
 * Build-render-write in one step: for each format in `formats` (bit 1 <<
 * PLOT_SVG, 1 << PLOT_PNG) build the script with build(script, opts, data)
 * (opts->format set per format), render it, and write DIR/NAME.svg / .png.
 * When svg is non-NULL and SVG was rendered, the SVG text is appended to it.
 * dir NULL: nothing is written, the SVG is only appended to svg (dipmap view).
 * Returns PLOT_OK, PLOT_NO_GNUPLOT (nothing written, nothing printed) or
 * PLOT_FAILED (error printed; files rendered before the failure are kept).
 */
typedef void (*plot_builder)(struct strbuf *script, const struct plot_opts *o, const void *data);
#define PLOT_BOTH ((1u << PLOT_SVG) | (1u << PLOT_PNG))
enum plot_status plot_save(const char *dir, const char *name, unsigned formats, plot_builder build,
                           const void *data, const struct plot_opts *o, struct strbuf *svg);

/*
 * The <svg ...>...</svg> element of a gnuplot SVG, without the XML prolog, for
 * inlining into HTML (report_svg() writes it): its start in svg and its length
 * in *len; NULL when svg has none.
 */
const char *plot_svg_element(const char *svg, size_t *len);

#endif

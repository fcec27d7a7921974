/*
 * Unit tests for plot.c: script contents (escaping, one curve per series) and
 * real gnuplot renders (SVG well-formed enough to find every curve, PNG
 * signature and IHDR size, hostile labels inert). The renders need gnuplot;
 * without it those tests report "# skip" (and fail when DIPMAP_REQUIRE_GNUPLOT is set).
 */
#define _GNU_SOURCE
#include "report/plot.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/strbuf.h"
#include "test.h"

#define HOSTILE "x\"; system(\"touch pwned\"); \" `touch pwned2` @x '; print 1\n'"

/* gnuplot's failure messages (plot_render's err) */
static struct strbuf gp_err = STRBUF_INIT;

static struct plot_point pts8[] = {
    {0, 0.95, 0.88, 0.98, 0},  {25, 0.80, 0.70, 0.87, 0},  {50, 0.55, 0.45, 0.65, 1},
    {75, 0.70, 0.60, 0.79, 0}, {100, 0.92, 0.85, 0.96, 0},
};
static struct plot_point pts32[] = {
    {0, 0.90, 0.82, 0.95, 0}, {25, 0.60, 0.50, 0.69, 1},  {50, 0.40, 0.31, 0.50, 1},
    {75, 0.58, NAN, NAN, 0},  {100, 0.85, 0.77, 0.91, 0}, {110, NAN, 0, 0, 0},
};

static void series(struct plot_series s[2])
{
    s[0].label = "8k tokens";
    s[0].pts = pts8;
    s[0].n = sizeof(pts8) / sizeof(pts8[0]);
    s[0].edge = 0.935;
    s[0].middle = 0.55;
    s[1].label = "32k tokens";
    s[1].pts = pts32;
    s[1].n = sizeof(pts32) / sizeof(pts32[0]);
    s[1].edge = 0.875;
    s[1].middle = NAN;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    const char *p = hay;
    while ((p = strstr(p, needle))) {
        n++;
        p += strlen(needle);
    }
    return n;
}

static int have_gnuplot(const char *what);

static void test_ucurve_script(void)
{
    struct strbuf sb = STRBUF_INIT;
    struct plot_series s[2];
    struct plot_opts o = {HOSTILE, "run 'nightly'", PLOT_SVG, 0,    0,   0, NULL, 0,
                          0,       {NULL, NULL},    {0, 0},   NULL, NULL};

    series(s);
    plot_script_ucurve(&sb, &o, s, 2);
    /* the title is a single-quoted literal, quote doubled, newline gone */
    CHECK(strstr(sb.buf, "set title 'x\"; system(\"touch pwned\"); \" `touch pwned2` @x ''; "
                         "print 1 ''' . \"\\n\" . 'run ''nightly''' noenhanced\n"));
    CHECK(strstr(sb.buf, "title '8k tokens'"));
    CHECK(strstr(sb.buf, "title '32k tokens'"));
    CHECK_INT(count(sb.buf, "with linespoints"), 2);
    CHECK_INT(count(sb.buf, "using 1:3:4 with filledcurves"), 2);
    /* 8k has an edge and a middle level, 32k only an edge; one key entry each */
    CHECK_INT(count(sb.buf, "using 1:2 with lines dt 2"), 2);
    CHECK_INT(count(sb.buf, "using 1:2 with lines dt 3"), 1);
    CHECK_INT(count(sb.buf, "keyentry"), 3);
    /* a missing interval falls back to the point, a missing point is left out */
    CHECK(strstr(sb.buf, "\n75 0.58 0.58 0.58\n"));
    CHECK(!strstr(sb.buf, "\n110 "));
    CHECK(strstr(sb.buf, "set terminal svg size 900,560"));
    CHECK(!strstr(sb.buf, "$c0"));
    /* controls: a level across every depth each, titled, escaped */
    strbuf_reset(&sb);
    o.n_controls = 2;
    o.control_label[0] = "closed-book 12.5%";
    o.control_acc[0] = 0.125;
    o.control_label[1] = "oracle 'gold'";
    o.control_acc[1] = 0.9;
    plot_script_ucurve(&sb, &o, s, 2);
    CHECK(strstr(sb.buf, "$c0 << EOD\n0 0.125000\n100 0.125000\nEOD\n"));
    CHECK(strstr(sb.buf, "$c1 using 1:2 with lines dt 4 lw 1.5 lc rgb '#000000' title 'oracle "
                         "''gold'''"));
    CHECK(strstr(sb.buf, "$c0 << EOD") < strstr(sb.buf, "\nplot "));
    strbuf_release(&sb);
}

static void test_empty_scripts(void)
{
    struct strbuf sb = STRBUF_INIT;
    struct plot_opts o = {"t", NULL, PLOT_SVG,     0,      0,    0,   NULL,
                          0,   0,    {NULL, NULL}, {0, 0}, NULL, NULL};
    struct plot_grid g = {0, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};

    plot_script_ucurve(&sb, &o, NULL, 0);
    CHECK(strstr(sb.buf, "plot NaN notitle"));
    strbuf_reset(&sb);
    plot_script_heatmap(&sb, &o, &g);
    CHECK(strstr(sb.buf, "no scored trials"));
    strbuf_reset(&sb);
    plot_script_compare(&sb, &o, NULL, 0, NULL, 0);
    CHECK(strstr(sb.buf, "plot NaN notitle"));
    strbuf_reset(&sb);
    plot_script_trend(&sb, &o, NULL, 0);
    CHECK(strstr(sb.buf, "plot NaN notitle"));
    strbuf_release(&sb);
}

/* A run without data still gives a (mostly empty) picture, never a gnuplot error. */
static void test_render_empty(void)
{
    struct strbuf sb = STRBUF_INIT, img = STRBUF_INIT;
    struct plot_opts o = {"t", NULL, PLOT_SVG,     0,      0,    0,   NULL,
                          0,   0,    {NULL, NULL}, {0, 0}, NULL, NULL};
    struct plot_grid g = {0, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    double depths[] = {0, 100};
    long lengths[] = {1000};
    double acc[] = {NAN, NAN};
    struct plot_grid g2 = {2, 1, depths, lengths, acc, NULL, NULL, NULL, NULL, NULL};
    int i;

    if (!have_gnuplot("empty renders"))
        return;
    for (i = 0; i < 5; i++) {
        strbuf_reset(&sb);
        strbuf_reset(&img);
        if (i == 0)
            plot_script_ucurve(&sb, &o, NULL, 0);
        else if (i == 1)
            plot_script_heatmap(&sb, &o, &g);
        else if (i == 2)
            plot_script_heatmap(&sb, &o, &g2);
        else if (i == 3)
            plot_script_compare(&sb, &o, NULL, 0, NULL, 0);
        else
            plot_script_trend(&sb, &o, NULL, 0);
        CHECK_INT(plot_render(&sb, &img, &gp_err), PLOT_OK);
        CHECK(strstr(img.buf, "</svg>"));
    }
    strbuf_release(&sb);
    strbuf_release(&img);
}

static void test_compare_script(void)
{
    struct strbuf sb = STRBUF_INIT;
    struct plot_series b[2], c[2];
    struct plot_opts o = {"compare", NULL, PLOT_SVG,     0,      0,    0,   NULL,
                          0,         0,    {NULL, NULL}, {0, 0}, NULL, NULL};

    series(b);
    series(c);
    b[0].label = "8k baseline";
    b[1].label = "32k baseline";
    c[0].label = "8k candidate";
    c[1].label = "32k candidate";
    plot_script_compare(&sb, &o, b, 2, c, 2);
    CHECK(strstr(sb.buf, "title '8k baseline'"));
    CHECK(strstr(sb.buf, "title '32k candidate'"));
    CHECK_INT(count(sb.buf, "title 'significant regression'"), 1);
    CHECK_INT(count(sb.buf, "with points pt 6"), 2);
    /* the flagged block of 32k holds exactly its two flagged points */
    CHECK(strstr(sb.buf, "$f1 << EOD\n25 0.6 0.5 0.69\n50 0.4 0.31 0.5\nEOD\n"));
    strbuf_release(&sb);
}

static void test_heatmap_script(void)
{
    struct strbuf sb = STRBUF_INIT;
    double depths[] = {0, 50, 100};
    long lengths[] = {8192, 1000};
    double acc[] = {0.9, 0.5, NAN, 0.8, 0.25, 0.75};
    struct plot_grid g = {3, 2, depths, lengths, acc, NULL, NULL, NULL, NULL, NULL};
    struct plot_opts o = {"heat", NULL, PLOT_PNG,     640,    480,  0,   NULL,
                          0,      0,    {NULL, NULL}, {0, 0}, NULL, NULL};

    plot_script_heatmap(&sb, &o, &g);
    CHECK(strstr(sb.buf, "set terminal pngcairo size 640,480"));
    CHECK(strstr(sb.buf, "set ytics ('8k' 0, '1000' 1)"));
    CHECK(strstr(sb.buf, "set xtics ('0' 0, '50' 1, '100' 2)"));
    CHECK(strstr(sb.buf, "$grid << EOD\n0 0 0.9\n1 0 0.5\n0 1 0.8\n1 1 0.25\n2 1 0.75\nEOD\n"));
    CHECK(strstr(sb.buf, "with labels"));
    strbuf_release(&sb);
}

static void test_trend_script(void)
{
    struct strbuf sb = STRBUF_INIT;
    struct plot_point p[] = {{1764000000, 0.3, -0.25, 0.4, 0}, {1764086400, 0.2, 0.1, 0.3, 0}};
    struct plot_series s = {"dip 8k", p, 2, NAN, NAN};
    struct plot_opts o = {"trend", NULL, PLOT_SVG,     0,      0,    0,   NULL,
                          0,       0,    {NULL, NULL}, {0, 0}, NULL, NULL};

    plot_script_trend(&sb, &o, &s, 1);
    CHECK(strstr(sb.buf, "set xdata time"));
    CHECK(strstr(sb.buf, "set yrange [-0.3:1.05]"));
    CHECK(strstr(sb.buf, "$t0 << EOD\n1764000000 0.3 -0.25 0.4\n"));
    CHECK(strstr(sb.buf, "with yerrorlines"));
    strbuf_release(&sb);
}

/* one tick per run, labelled (escaped) with its name; flagged points ringed in one key entry */
static void test_trend_labels_rings(void)
{
    struct strbuf sb = STRBUF_INIT;
    struct plot_point p[] = {{0, 0.1, 0.0, 0.2, 0}, {1, 0.5, 0.4, 0.6, 1}, {2, 0.5, 0.4, 0.6, 0}};
    struct plot_series s[] = {{"dip 8k", p, 3, NAN, NAN}, {"dip 32k", p, 3, NAN, NAN}};
    const char *names[] = {"n1", "it's", "n1"};
    struct plot_opts o = {"trend", NULL, PLOT_SVG,     0,      0,    0,   names,
                          3,       0,    {NULL, NULL}, {0, 0}, NULL, NULL};

    plot_script_trend(&sb, &o, s, 2);
    CHECK(!strstr(sb.buf, "set xdata time"));
    CHECK(strstr(sb.buf, "set xtics rotate by -30 ('n1' 0, 'it''s' 1, 'n1' 2)\n"));
    CHECK(strstr(sb.buf, "set xrange [-0.5:2.5]"));
    CHECK(strstr(sb.buf, "$rings << EOD\n1 0.5\n1 0.5\nEOD\n"));
    CHECK(strstr(sb.buf, "title 'failed vs last passing run'"));
    /* without flags: no ring entry in the key */
    p[1].flag = 0;
    strbuf_reset(&sb);
    plot_script_trend(&sb, &o, s, 2);
    CHECK(!strstr(sb.buf, "failed vs previous run"));
    strbuf_release(&sb);
}

/* the order experiment: one tick per k (labels escaped), one line per policy with error bars */
static void test_order_script(void)
{
    struct strbuf sb = STRBUF_INIT, img = STRBUF_INIT;
    struct plot_point p[] = {{0, 0.6, 0.55, 0.65, 0}, {1, 0.7, 0.66, 0.74, 0}};
    struct plot_point q[] = {{0, 0.66, 0.6, 0.7, 0}, {1, NAN, NAN, NAN, 0}};
    struct plot_series s[] = {{"best-first", p, 2, NAN, NAN}, {"edges'first", q, 2, NAN, NAN}};
    const char *ks[] = {"5", "10"};
    struct plot_opts o = {"order", NULL, PLOT_SVG,     0,      0,    0,   ks,
                          2,       0,    {NULL, NULL}, {0, 0}, NULL, NULL};

    plot_script_index(&sb, &o, s, 2, PLOT_INDEX_ORDER);
    CHECK(strstr(sb.buf, "set xtics ('5' 0, '10' 1)\n"));
    CHECK(strstr(sb.buf, "set xrange [-0.5:1.5]"));
    CHECK(strstr(sb.buf, "$o0 << EOD\n0 0.6 0.55 0.65\n1 0.7 0.66 0.74\n"));
    CHECK(strstr(sb.buf, "$o1 using 1:2:3:4 with yerrorlines"));
    CHECK(strstr(sb.buf, "title 'edges''first'"));
    CHECK(strstr(sb.buf, "k: retrieved chunks passed to the model"));
    if (plot_available()) {
        CHECK_INT(plot_render(&sb, &img, &gp_err), PLOT_OK);
        CHECK(strstr(img.buf, "<text>best-first</text>"));
    }
    strbuf_release(&sb);
    strbuf_release(&img);
}

/* ---- real renders ---- */

static int have_gnuplot(const char *what)
{
    if (plot_available())
        return 1;
    /* CI (.ci/run) installs gnuplot and sets DIPMAP_REQUIRE_GNUPLOT: no silent skip there */
    if (getenv("DIPMAP_REQUIRE_GNUPLOT") && *getenv("DIPMAP_REQUIRE_GNUPLOT")) {
        fprintf(stderr, "  %s: gnuplot not found on PATH (DIPMAP_REQUIRE_GNUPLOT is set)\n", what);
        test_failed_ = 1;
        return 0;
    }
    TEST_SKIP("gnuplot not found on PATH");
    return 0;
}

static unsigned be32(const unsigned char *p)
{
    return (unsigned)p[0] << 24 | (unsigned)p[1] << 16 | (unsigned)p[2] << 8 | p[3];
}

static void test_render_svg_png(void)
{
    struct strbuf script = STRBUF_INIT, img = STRBUF_INIT;
    struct plot_series s[2];
    struct plot_opts o = {"model-a \xC2\xB7 run <1> & co",
                          NULL,
                          PLOT_SVG,
                          0,
                          0,
                          0,
                          NULL,
                          0,
                          0,
                          {NULL, NULL},
                          {0, 0},
                          NULL,
                          NULL};

    if (!have_gnuplot("svg/png render"))
        return;
    series(s);
    plot_script_ucurve(&script, &o, s, 2);
    CHECK_INT(plot_render(&script, &img, &gp_err), PLOT_OK);
    CHECK(!strncmp(img.buf, "<?xml", 5));
    CHECK(strstr(img.buf, "</svg>"));
    /* one titled curve per length in the key */
    CHECK_INT(count(img.buf, "<text>8k tokens</text>"), 1);
    CHECK_INT(count(img.buf, "<text>32k tokens</text>"), 1);
    /* gnuplot escaped the markup characters of the title for XML */
    CHECK(strstr(img.buf, "run &lt;1> &amp; co"));

    strbuf_reset(&script);
    strbuf_reset(&img);
    o.format = PLOT_PNG;
    o.width = 640;
    o.height = 400;
    plot_script_ucurve(&script, &o, s, 2);
    CHECK_INT(plot_render(&script, &img, &gp_err), PLOT_OK);
    CHECK(img.len > 33);
    if (img.len > 33) {
        const unsigned char *p = (const unsigned char *)img.buf;
        CHECK(!memcmp(p, "\x89PNG\r\n\x1a\n", 8));
        CHECK(!memcmp(p + 12, "IHDR", 4));
        CHECK_INT(be32(p + 16), 640);
        CHECK_INT(be32(p + 20), 400);
    }
    strbuf_release(&script);
    strbuf_release(&img);
}

static void test_render_all_kinds(void)
{
    struct strbuf script = STRBUF_INIT, img = STRBUF_INIT;
    struct plot_series s[2];
    double depths[] = {0, 50, 100};
    long lengths[] = {8192, 32768};
    double acc[] = {0.9, 0.5, NAN, 0.8, 0.25, 0.75};
    struct plot_grid g = {3, 2, depths, lengths, acc, NULL, NULL, NULL, NULL, NULL};
    struct plot_point tp[] = {{1764000000, 0.3, 0.2, 0.4, 0}, {1764086400, 0.2, 0.1, 0.3, 0}};
    struct plot_series ts[2] = {{"dip 8k", tp, 2, NAN, NAN}, {"edge 8k", tp, 2, NAN, NAN}};
    struct plot_opts o = {"all", NULL, PLOT_SVG,     0,      0,    0,   NULL,
                          0,     0,    {NULL, NULL}, {0, 0}, NULL, NULL};

    if (!have_gnuplot("heatmap/compare/trend renders"))
        return;
    series(s);
    plot_script_heatmap(&script, &o, &g);
    CHECK_INT(plot_render(&script, &img, &gp_err), PLOT_OK);
    CHECK(strstr(img.buf, "<text>0.25</text>"));
    CHECK(strstr(img.buf, "<text>0.90</text>"));

    strbuf_reset(&script);
    strbuf_reset(&img);
    plot_script_compare(&script, &o, s, 2, s, 2);
    CHECK_INT(plot_render(&script, &img, &gp_err), PLOT_OK);
    CHECK_INT(count(img.buf, "<text>significant regression</text>"), 1);

    strbuf_reset(&script);
    strbuf_reset(&img);
    plot_script_trend(&script, &o, ts, 2);
    CHECK_INT(plot_render(&script, &img, &gp_err), PLOT_OK);
    CHECK(strstr(img.buf, "<text>dip 8k</text>"));
    CHECK(strstr(img.buf, "<text>edge 8k</text>"));
    strbuf_release(&script);
    strbuf_release(&img);
}

/* A hostile title renders literally and runs nothing (in a scratch folder). */
static void test_render_injection(void)
{
    struct strbuf script = STRBUF_INIT, img = STRBUF_INIT;
    struct plot_series s[2];
    struct plot_opts o = {HOSTILE, HOSTILE, PLOT_SVG,     0,      0,    0,   NULL,
                          0,       0,       {NULL, NULL}, {0, 0}, NULL, NULL};
    char dir[] = "/tmp/dipmap-test-plot.XXXXXX";
    char *old = getcwd(NULL, 0);
    struct stat st;

    if (!have_gnuplot("injection render"))
        goto cleanup;
    if (!mkdtemp(dir) || chdir(dir) < 0) {
        CHECK(!"cannot make a scratch folder");
        goto cleanup;
    }
    series(s);
    s[0].label = HOSTILE;
    plot_script_ucurve(&script, &o, s, 2);
    CHECK_INT(plot_render(&script, &img, &gp_err), PLOT_OK);
    CHECK(stat("pwned", &st) < 0 && errno == ENOENT);
    CHECK(stat("pwned2", &st) < 0 && errno == ENOENT);
    CHECK(strstr(img.buf, "<text>x\"; system(\"touch pwned\"); \" `touch pwned2` @x '; print 1 "
                          "'</text>"));
    CHECK(!chdir(old));
    rmdir(dir);
cleanup:
    free(old);
    strbuf_release(&script);
    strbuf_release(&img);
}

static void test_render_missing_gnuplot(void)
{
    struct strbuf script = STRBUF_INIT, img = STRBUF_INIT;
    struct plot_opts o = {"t", NULL, PLOT_SVG,     0,      0,    0,   NULL,
                          0,   0,    {NULL, NULL}, {0, 0}, NULL, NULL};

    setenv("DIPMAP_GNUPLOT", "dipmap-no-such-gnuplot", 1);
    plot_script_ucurve(&script, &o, NULL, 0);
    CHECK_INT(plot_available(), 0);
    CHECK_INT(plot_render(&script, &img, &gp_err), PLOT_NO_GNUPLOT);
    CHECK_INT(img.len, 0);
    unsetenv("DIPMAP_GNUPLOT");
    strbuf_release(&script);
    strbuf_release(&img);
}

static void test_render_error(void)
{
    struct strbuf script = STRBUF_INIT, img = STRBUF_INIT;

    if (!have_gnuplot("render error"))
        return;
    strbuf_addstr(&script, "set terminal svg\nplot $nosuchblock using 1:2\n");
    strbuf_reset(&gp_err);
    CHECK_INT(plot_render(&script, &img, &gp_err), PLOT_FAILED);
    CHECK_INT(img.len, 0);
    CHECK(strstr(gp_err.buf, "failed (exit ") != NULL);
    strbuf_release(&script);
    strbuf_release(&img);
}

static void test_svg_element(void)
{
    const char *svg = "<?xml version='1.0'?>\n<svg a='1'><g/></svg>\n", *start;
    size_t len = 0;
    start = plot_svg_element(svg, &len);
    CHECK(start == svg + strlen("<?xml version='1.0'?>\n"));
    CHECK_INT(len, strlen("<svg a='1'><g/></svg>"));
    CHECK(plot_svg_element("<html>", &len) == NULL);
    CHECK(plot_svg_element("<svg a='1'> no end", &len) == NULL);
    CHECK_STR(plot_format_ext(PLOT_PNG), "png");
    CHECK_STR(plot_format_ext(PLOT_SVG), "svg");
}

/* Small multiples: one titled panel per plot_panel, blocks per panel, one key (the first panel). */
static void test_multiples_script(void)
{
    struct strbuf sb = STRBUF_INIT, img = STRBUF_INIT;
    struct plot_point a[] = {{0, 0.9, 0.8, 0.95, 0}, {100, 0.7, 0.6, 0.8, 0}};
    struct plot_point b[] = {{0, 0.4, 0.3, 0.5, 0}, {100, 0.2, 0.1, 0.3, 0}};
    struct plot_series sa = {"1k tokens", a, 2, NAN, NAN}, sb2 = {"1k tokens", b, 2, NAN, NAN};
    struct plot_panel p[4] = {{"k=end (n=20)", &sa, 1},
                              {"k=start (n=20)", &sb2, 1},
                              {"k=both (n=20)", &sa, 1},
                              {"k=25% (n=20)", &sb2, 1}};
    struct plot_opts o = {"multi", "sub", PLOT_SVG,     0,      0,      0,   NULL,
                          0,       0,     {NULL, NULL}, {0, 0}, "band", NULL};

    plot_script_multiples(&sb, &o, p, 4);
    CHECK(strstr(sb.buf, "set multiplot layout 2,2 rowsfirst margins "));
    CHECK(strstr(sb.buf, " title 'multi' . \"\\n\" . 'sub'"));
    /* the key below the panels, not inside the first one over its points */
    CHECK(strstr(sb.buf, "set key at screen 0.5, screen "));
    CHECK_INT(count(sb.buf, "\nset title "), 4);
    CHECK(strstr(sb.buf, "$p0s0 << EOD\n0 0.9 0.8 0.95\n100 0.7 0.6 0.8\nEOD\n"));
    CHECK(strstr(sb.buf, "$p1s0 << EOD\n0 0.4 0.3 0.5\n100 0.2 0.1 0.3\nEOD\n"));
    /* one key: the line titles and the band explained in the first panel only */
    CHECK_INT(count(sb.buf, "title '1k tokens'"), 1);
    CHECK_INT(count(sb.buf, "title 'band'"), 1);
    CHECK_INT(count(sb.buf, "unset key"), 3);
    CHECK(strstr(sb.buf, "unset multiplot\n"));
    if (have_gnuplot("multiples render")) {
        CHECK_INT(plot_render(&sb, &img, &gp_err), PLOT_OK);
        CHECK_INT(count(img.buf, "<text>k=end (n=20)</text>"), 1);
        CHECK_INT(count(img.buf, "<text>k=start (n=20)</text>"), 1);
        CHECK_INT(count(img.buf, "<text>k=25% (n=20)</text>"), 1);
        CHECK_INT(count(img.buf, "<text>100%</text>"), 4); /* every panel on the 0-100 % axis */
    }
    strbuf_release(&sb);
    strbuf_release(&img);
}

/* A labelled grid (report --axis-pair): value ticks ('%' doubled), rows top-down, counts. */
static void test_heatmap_labels(void)
{
    struct strbuf sb = STRBUF_INIT, img = STRBUF_INIT;
    const char *cols[] = {"coherent", "shuffled"}, *rows[] = {"25%", "hard"};
    double acc[] = {0.5, NAN, 0.25, 1};
    long n[] = {4, 0, 8, 2};
    struct plot_grid g = {2, 2, NULL, NULL, acc, cols, rows, "haystack-order", "distractors", n};
    struct plot_opts o = {"pair", NULL, PLOT_SVG,     0,      0,    0,   NULL,
                          0,      0,    {NULL, NULL}, {0, 0}, NULL, NULL};

    plot_script_heatmap(&sb, &o, &g);
    CHECK(strstr(sb.buf, "set xtics ('coherent' 0, 'shuffled' 1)"));
    CHECK(strstr(sb.buf, "set ytics ('25%%' 0, 'hard' 1)"));
    CHECK(strstr(sb.buf, "set yrange [1.5:-0.5]"));
    CHECK(strstr(sb.buf, "set xlabel 'haystack-order'"));
    CHECK(strstr(sb.buf, "$grid << EOD\n0 0 0.5 4\n0 1 0.25 8\n1 1 1 2\nEOD\n"));
    if (have_gnuplot("labelled heatmap render")) {
        CHECK_INT(plot_render(&sb, &img, &gp_err), PLOT_OK);
        CHECK(strstr(img.buf, "<text>25%</text>"));
        CHECK(strstr(img.buf, "<text>n=8</text>"));
        CHECK(strstr(img.buf, "<text>0.25</text>"));
    }
    strbuf_release(&sb);
    strbuf_release(&img);
}

/* A value of a named axis is its tic label whole, however long (it was cut at 63 bytes). */
static void test_heatmap_long_label(void)
{
    struct strbuf sb = STRBUF_INIT, want = STRBUF_INIT;
    char v[201];
    const char *cols[] = {v}, *rows[] = {"r"};
    double acc[] = {0.5};
    struct plot_grid g = {1, 1, NULL, NULL, acc, cols, rows, NULL, NULL, NULL};
    struct plot_opts o = {"long", NULL, PLOT_SVG,     0,      0,    0,   NULL,
                          0,      0,    {NULL, NULL}, {0, 0}, NULL, NULL};

    memset(v, 'v', 200);
    v[200] = '\0';
    plot_script_heatmap(&sb, &o, &g);
    strbuf_addf(&want, "set xtics ('%s' 0)", v);
    CHECK(strstr(sb.buf, want.buf));
    strbuf_release(&sb);
    strbuf_release(&want);
}

int main(void)
{
    RUN(test_ucurve_script);
    RUN(test_empty_scripts);
    RUN(test_compare_script);
    RUN(test_heatmap_script);
    RUN(test_multiples_script);
    RUN(test_heatmap_labels);
    RUN(test_heatmap_long_label);
    RUN(test_trend_script);
    RUN(test_trend_labels_rings);
    RUN(test_order_script);
    RUN(test_render_svg_png);
    RUN(test_render_all_kinds);
    RUN(test_render_injection);
    RUN(test_render_missing_gnuplot);
    RUN(test_render_error);
    RUN(test_render_empty);
    RUN(test_svg_element);
    return TEST_EXIT();
}

/*
 * Lan-DeMets alpha-spending boundaries for dipmap gate (sequential.h): the
 * spending functions and the recursive numerical integration of the
 * canonical joint distribution of the looks' Z statistics.
 */
#include "stats/sequential.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "stats/stats.h"

#include "base/banned.h"

int seq_spending_parse(const char *s, enum seq_spending *out)
{
    if (!strcmp(s, "obf"))
        *out = SEQ_SPEND_OBF;
    else if (!strcmp(s, "pocock"))
        *out = SEQ_SPEND_POCOCK;
    else
        return -1;
    return 0;
}

const char *seq_spending_name(enum seq_spending f)
{
    return f == SEQ_SPEND_POCOCK ? "pocock" : "obf";
}

double seq_spent(enum seq_spending f, double alpha, double t)
{
    if (t <= 0)
        return 0;
    if (t >= 1)
        return alpha;
    if (f == SEQ_SPEND_POCOCK)
        return alpha * log(1.0 + (exp(1.0) - 1.0) * t);
    return 2.0 * stats_norm_upper(stats_norm_upper_inv(alpha / 2.0) / sqrt(t));
}

double seq_nominal(double c)
{
    return c >= SEQ_NEVER ? 0 : stats_norm_upper(c);
}

/* The B-value grid: the sub-density of B(t) on the paths still running, at lo + i h. */
struct grid {
    double lo, h;
    size_t n; /* points */
    double *g;
};

#define GRID_LO   (-9.0)
#define GRID_STEP 0.01

/* P(cross at b) from the previous grid: the integral of g(y) Q((b - y) / sd) dy (trapezoid). */
static double exit_prob(const struct grid *p, double b, double sd)
{
    double s = 0;
    for (size_t i = 0; i < p->n; i++) {
        double w = (i == 0 || i + 1 == p->n) ? 0.5 : 1.0;
        s += w * p->g[i] * stats_norm_upper((b - (p->lo + (double)i * p->h)) / sd);
    }
    return s * p->h;
}

static double phi(double z)
{
    return exp(-0.5 * z * z) / sqrt(2.0 * M_PI);
}

/* The grid below b at look variance t, from the previous one with increment sd (or none). */
static void grid_next(struct grid *out, const struct grid *prev, double b, double t, double sd)
{
    size_t n = (size_t)ceil((b - GRID_LO) / GRID_STEP);
    if (n < 2)
        n = 2;
    out->lo = GRID_LO;
    out->h = (b - GRID_LO) / (double)(n - 1);
    out->n = n;
    out->g = xcalloc(n, sizeof(double));
    for (size_t i = 0; i < n; i++) {
        double x = out->lo + (double)i * out->h;
        if (!prev) {
            out->g[i] = phi(x / sqrt(t)) / sqrt(t);
            continue;
        }
        double s = 0;
        for (size_t j = 0; j < prev->n; j++) {
            double w = (j == 0 || j + 1 == prev->n) ? 0.5 : 1.0;
            double z = (x - (prev->lo + (double)j * prev->h)) / sd;
            if (z > -9 && z < 9)
                s += w * prev->g[j] * phi(z);
        }
        out->g[i] = s * prev->h / sd;
    }
}

int seq_bounds(enum seq_spending f, double alpha, const double *t, size_t k, double *c)
{
    struct grid prev = {0, 0, 0, NULL}, cur;
    double spent = 0;

    if (!(alpha > 0 && alpha < 0.5) || !k)
        return -1;
    for (size_t j = 0; j < k; j++)
        if (!(t[j] > 0 && t[j] <= 1) || (j && !(t[j] > t[j - 1])))
            return -1;
    for (size_t j = 0; j < k; j++) {
        double target = seq_spent(f, alpha, t[j]) - spent, sd, lo, hi, b;
        if (target <= 1e-15) {
            c[j] = SEQ_NEVER;
            b = 12.0; /* nothing crosses: the running paths stay (B at most ~ 9 sd) */
        } else if (j == 0) {
            c[j] = stats_norm_upper_inv(target);
            b = c[j] * sqrt(t[j]);
        } else {
            sd = sqrt(t[j] - t[j - 1]);
            lo = -10;
            hi = 40;
            if (exit_prob(&prev, lo * sqrt(t[j]), sd) < target) {
                c[j] = lo; /* cannot spend so much: cross at once */
            } else {
                for (int it = 0; it < 60; it++) {
                    double mid = 0.5 * (lo + hi);
                    if (exit_prob(&prev, mid * sqrt(t[j]), sd) > target)
                        lo = mid;
                    else
                        hi = mid;
                }
                c[j] = 0.5 * (lo + hi);
            }
            b = c[j] * sqrt(t[j]);
        }
        spent += target > 0 ? target : 0;
        if (j + 1 < k) {
            grid_next(&cur, j ? &prev : NULL, b > 12.0 ? 12.0 : b, t[j],
                      j ? sqrt(t[j] - t[j - 1]) : 0);
            free(prev.g);
            prev = cur;
        }
    }
    free(prev.g);
    return 0;
}

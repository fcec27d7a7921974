/*
 * The statistical building blocks: Wilson and cluster intervals, the exact
 * binomial, McNemar and sign-flip tests, Holm's adjustment, the normal and
 * Student t quantiles and quantiles of sorted values. The run
 * statistics built from them are stats_run.c. Pure: no I/O and no global
 * state.
 */
#include "stats/stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/num.h"
#include "run/plan.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"

#include "base/banned.h"

/* ---- building blocks ---- */

void wilson_interval_p(double p, double n, double z, double *lo, double *hi)
{
    double z2, denom, center, half;
    if (!(n > 0)) {
        *lo = 0.0;
        *hi = 1.0;
        return;
    }
    z2 = z * z;
    denom = 1.0 + z2 / n;
    center = (p + z2 / (2.0 * n)) / denom;
    half = z * sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denom;
    *lo = center - half < 0.0 ? 0.0 : center - half;
    *hi = center + half > 1.0 ? 1.0 : center + half;
    if (p <= 0.0)
        *lo = 0.0;
    if (p >= 1.0)
        *hi = 1.0;
}

void wilson_interval(long k, long n, double z, double *lo, double *hi)
{
    if (n <= 0) {
        *lo = 0.0;
        *hi = 1.0;
        return;
    }
    wilson_interval_p((double)k / (double)n, (double)n, z, lo, hi);
}

double cluster_design_effect(const long *m, const long *y, size_t n)
{
    double total = 0.0, succ = 0.0, p, ss = 0.0, v_cl, v_bin;
    size_t i, q = 0, big = 0;
    for (i = 0; i < n; i++) {
        if (m[i] <= 0)
            continue;
        q++;
        total += (double)m[i];
        succ += (double)y[i];
        if (m[i] > 1)
            big++;
    }
    if (!q || !big)
        return 1.0;
    p = succ / total;
    /* not estimable: treat the clusters as perfectly correlated (n_eff = clusters) */
    if (q < 2 || p <= 0.0 || p >= 1.0)
        return total / (double)q;
    for (i = 0; i < n; i++) {
        double r;
        if (m[i] <= 0)
            continue;
        r = (double)y[i] - p * (double)m[i];
        ss += r * r;
    }
    v_cl = (double)q / (double)(q - 1) * ss / (total * total);
    v_bin = p * (1.0 - p) / total;
    return v_cl / v_bin > 1.0 ? v_cl / v_bin : 1.0;
}

double cluster_interval(const long *m, const long *y, size_t n, double z, double *deff, double *lo,
                        double *hi)
{
    long tm = 0, ty = 0;
    double p, de;
    size_t i;
    for (i = 0; i < n; i++)
        if (m[i] > 0) {
            tm += m[i];
            ty += y[i];
        }
    de = cluster_design_effect(m, y, n);
    if (deff)
        *deff = de;
    if (!tm) {
        *lo = 0.0;
        *hi = 1.0;
        return 0.0;
    }
    p = (double)ty / (double)tm;
    wilson_interval_p(p, (double)tm / de, z, lo, hi);
    return p;
}

static double log_choose(long n, long k)
{
    return lgamma((double)n + 1.0) - lgamma((double)k + 1.0) - lgamma((double)(n - k) + 1.0);
}

double binom_half_upper_tail(long k, long n)
{
    double maxl = -INFINITY, sum = 0.0, r;
    long i;
    if (k <= 0)
        return 1.0;
    if (k > n)
        return 0.0;
    for (i = k; i <= n; i++) {
        double l = log_choose(n, i);
        if (l > maxl)
            maxl = l;
    }
    for (i = k; i <= n; i++)
        sum += exp(log_choose(n, i) - maxl);
    r = exp(maxl + log(sum) - (double)n * log(2.0));
    return r > 1.0 ? 1.0 : r;
}

double mcnemar_drop_p(long b, long c)
{
    if (b + c <= 0)
        return 1.0;
    return binom_half_upper_tail(b, b + c);
}

double mcnemar_gain_p(long b, long c)
{
    if (b + c <= 0)
        return 1.0;
    return binom_half_upper_tail(c, b + c);
}

double mcnemar_two_sided_p(long b, long c)
{
    double p;
    if (b + c <= 0)
        return 1.0;
    p = 2.0 * binom_half_upper_tail(b > c ? b : c, b + c);
    return p > 1.0 ? 1.0 : p;
}

double stats_norm_upper(double z)
{
    return 0.5 * erfc(z / sqrt(2.0));
}

/*
 * The lower-tail normal quantile: Acklam's rational approximation (relative
 * error 1.15e-9) refined by one Halley step on erfc, which brings it to
 * double precision; no iteration (serve-sim draws two per trial).
 */
static double norm_lower_inv(double p)
{
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                               -2.759285104469687e+02, 1.383577518672690e+02,
                               -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                               -1.556989798598866e+02, 6.680131188771972e+01,
                               -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                               -2.400758277161838e+00, -2.549732539343734e+00,
                               4.374664141464968e+00,  2.938163982698783e+00};
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                               3.754408661907416e+00};
    double q, r, x, e, u;
    if (p <= 0.0)
        return -40.0;
    if (p >= 1.0)
        return 40.0;
    if (p < 0.02425) {
        q = sqrt(-2.0 * log(p));
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
    } else if (p <= 1.0 - 0.02425) {
        q = p - 0.5;
        r = q * q;
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
            (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
    } else {
        q = sqrt(-2.0 * log(1.0 - p));
        x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
    }
    e = 0.5 * erfc(-x / sqrt(2.0)) - p;
    u = e * sqrt(2.0 * M_PI) * exp(x * x / 2.0);
    return x - u / (1.0 + x * u / 2.0);
}

double stats_norm_upper_inv(double p)
{
    /* the upper tail from the lower one of 1 - p would lose small p's digits */
    return -norm_lower_inv(p);
}

/*
 * P(|T| < t) for Student's t with an integer df: the finite sums of
 * Abramowitz & Stegun 26.7.3 (odd df) and 26.7.4 (even df) in theta =
 * atan(t / sqrt(df)); exact.
 */
static double t_abs_below(double t, long df)
{
    double th = atan(t / sqrt((double)df)), cs = cos(th), c2 = cs * cs, sum, term;
    long k;
    if (df % 2) {
        if (df == 1)
            return 2.0 * th / M_PI;
        sum = term = 1.0;
        for (k = 3; k <= df - 2; k += 2) {
            term *= c2 * (double)(k - 1) / (double)k;
            sum += term;
        }
        return 2.0 / M_PI * (th + sin(th) * cs * sum);
    }
    sum = term = 1.0;
    for (k = 2; k <= df - 2; k += 2) {
        term *= c2 * (double)(k - 1) / (double)k;
        sum += term;
    }
    return sin(th) * sum;
}

/* Above this many degrees of freedom the Cornish-Fisher expansion is exact to 1e-10. */
#define T_EXACT_MAX_DF 1000

double stats_t_upper_inv(double p, long df)
{
    double z, lo, hi, target;
    int i;
    if (df < 1)
        return NAN;
    if (p == 0.5)
        return 0.0; /* the median (1 - p is p again: no recursion) */
    if (p > 0.5)
        return p >= 1.0 ? -INFINITY : -stats_t_upper_inv(1.0 - p, df);
    if (p <= 0.0)
        return INFINITY;
    if (df == 1)
        return tan(M_PI * (0.5 - p));
    if (df == 2)
        return (1.0 - 2.0 * p) / sqrt(2.0 * p * (1.0 - p));
    z = stats_norm_upper_inv(p);
    if (df > T_EXACT_MAX_DF) {
        double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z, v = (double)df;
        return z + (z3 + z) / (4.0 * v) + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * v * v) +
               (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / (384.0 * v * v * v);
    }
    /* the t quantile lies between z and the df = 1 quantile; bisect the exact CDF */
    target = 1.0 - 2.0 * p;
    lo = z;
    hi = tan(M_PI * (0.5 - p));
    for (i = 0; i < 100 && hi - lo > 1e-12 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        if (t_abs_below(mid, df) < target)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* Above this many steps of the exact convolution the normal approximation is used. */
#define SIGNFLIP_EXACT_MAX 60000000.0

/*
 * P(sum s_i |d_i| >= t) for each t[j], j < nt, with uniform random signs s_i: one
 * convolution for both tails of a test. The convolution only visits the sums
 * reachable so far (total +- the magnitudes seen), about half the grid on average.
 */
static void signflip_upper(const long *d, size_t n, const long *t, double *p, size_t nt)
{
    long total = 0, a, reach = 0;
    size_t i, j, nz = 0, ones = 0;
    double *cur, *nxt, ss = 0.0;
    long x, w;
    for (i = 0; i < n; i++) {
        a = labs(d[i]);
        total += a;
        ss += (double)a * (double)a;
        if (a) {
            nz++;
            ones += a == 1;
        }
    }
    for (j = 0; j < nt; j++) {
        if (!nz)
            p[j] = t[j] <= 0 ? 1.0 : 0.0;
        else if (t[j] > total)
            p[j] = 0.0;
        else if (t[j] <= -total)
            p[j] = 1.0;
        else if (ones == nz)
            /* every difference is +-1: sum = 2 * (#plus) - nz, the exact binomial (McNemar) */
            p[j] = binom_half_upper_tail((t[j] + (long)nz + 1) / 2, (long)nz);
        else if ((double)nz * (double)total > SIGNFLIP_EXACT_MAX)
            /* continuity-corrected normal approximation (sums move in steps of 2) */
            p[j] = stats_norm_upper(((double)t[j] - 1.0) / sqrt(ss));
        else
            p[j] = -1.0; /* from the convolution below */
    }
    for (j = 0; j < nt && p[j] >= 0.0; j++)
        ;
    if (j == nt)
        return;
    w = 2 * total + 1;
    cur = xcalloc((size_t)w, sizeof(*cur));
    nxt = xcalloc((size_t)w, sizeof(*nxt));
    cur[total] = 1.0;
    for (i = 0; i < n; i++) {
        a = labs(d[i]);
        if (!a)
            continue;
        /* sums reachable before this step: total - reach .. total + reach */
        memset(nxt + (total - reach - a), 0, (size_t)(2 * (reach + a) + 1) * sizeof(*nxt));
        for (x = total - reach; x <= total + reach; x++) {
            if (cur[x] == 0.0)
                continue;
            nxt[x - a] += 0.5 * cur[x];
            nxt[x + a] += 0.5 * cur[x];
        }
        reach += a;
        {
            double *tmp = cur;
            cur = nxt;
            nxt = tmp;
        }
    }
    for (j = 0; j < nt; j++) {
        double q = 0.0;
        if (p[j] >= 0.0)
            continue;
        for (x = t[j] + total; x < w; x++)
            q += cur[x];
        p[j] = q > 1.0 ? 1.0 : q;
    }
    free(cur);
    free(nxt);
}

void signflip_p(const long *d, size_t n, double *p_drop, double *p_gain)
{
    long t[2] = {0, 0};
    double p[2];
    size_t i;
    int any = 0;
    for (i = 0; i < n; i++) {
        t[0] += d[i];
        any |= d[i] != 0;
    }
    if (!any) {
        *p_drop = *p_gain = 1.0;
        return;
    }
    /* by symmetry P(sum <= observed) = P(sum >= -observed) */
    t[1] = -t[0];
    signflip_upper(d, n, t, p, 2);
    *p_drop = p[0];
    *p_gain = p[1];
}

double signflip_drop_p(const long *d, size_t n)
{
    double drop, gain;
    signflip_p(d, n, &drop, &gain);
    return drop;
}

double signflip_gain_p(const long *d, size_t n)
{
    double drop, gain;
    signflip_p(d, n, &drop, &gain);
    return gain;
}

struct pidx {
    double p;
    size_t i;
};

static int cmp_pidx(const void *a, const void *b)
{
    const struct pidx *x = a, *y = b;
    if (x->p < y->p)
        return -1;
    if (x->p > y->p)
        return 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

void holm_adjust(const double *p, size_t n, double *adj)
{
    struct pidx *v;
    size_t j;
    double run = 0.0;
    if (!n)
        return;
    v = xcalloc(n, sizeof(*v));
    for (j = 0; j < n; j++) {
        v[j].p = p[j];
        v[j].i = j;
    }
    qsort(v, n, sizeof(*v), cmp_pidx);
    for (j = 0; j < n; j++) {
        double a = (double)(n - j) * v[j].p;
        if (a > 1.0)
            a = 1.0;
        if (a > run)
            run = a;
        adj[v[j].i] = run;
    }
    free(v);
}

double stats_quantile_sorted(const double *sorted, size_t n, double q)
{
    double h;
    size_t lo;
    if (n == 1 || q <= 0.0)
        return sorted[0];
    if (q >= 1.0)
        return sorted[n - 1];
    h = (double)(n - 1) * q;
    lo = (size_t)floor(h);
    if (lo + 1 >= n)
        return sorted[n - 1];
    return sorted[lo] + (h - (double)lo) * (sorted[lo + 1] - sorted[lo]);
}

/*
 * The simulated model of `dipmap serve-sim`: the planted accuracy curve (pure
 * functions of the question, position, length and seed) and the model specs. The
 * prompt analysis is in sim_prompt.c, the faults in sim_fault.c, the HTTP server in
 * sim_http.c (all behind sim-int.h).
 */
#include "sim/sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/num.h"
#include "sim/sim-int.h"
#include "stats/stats.h"
#include "base/strbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "base/hash.h"

#include "base/banned.h"

/* ---- the planted curve ---------------------------------------------------- */

static double clamp01(double v)
{
    return v < 0 ? 0 : v > 1 ? 1 : v;
}

double sim_depth(double dip, long T)
{
    if (T <= 0)
        return 0;
    return dip * clamp01(log2((double)T / 1500.0) / 4.0);
}

static double curve(const struct sim_model *m, double x, double depth)
{
    double p = m->edge - depth * (1.0 - pow(fabs(2 * clamp01(x) - 1), m->shape));
    if (m->mid > 0 && x >= 0.25 && x <= 0.75)
        p -= m->mid;
    return p;
}

double sim_curve_p(const struct sim_model *m, double x, long T)
{
    return clamp01(curve(m, x, m->flat ? m->dip : sim_depth(m->dip, T)));
}

double sim_size_smallness(long gold_tokens)
{
    if (gold_tokens <= 0)
        return 0;
    return clamp01(log2(256.0 / (double)gold_tokens) / 4.0);
}

double sim_axes_p(const struct sim_model *m, double x, long T, const struct sim_features *f)
{
    double depth = m->flat ? m->dip : sim_depth(m->dip, T), p;
    if (f && f->ctx > 0 && T > 0)
        depth += m->window * clamp01(1.0 - fabs(2.0 * (double)T / (double)f->ctx - 1.0));
    p = clamp01(curve(m, x, depth));
    if (f && f->question_start)
        p -= m->start;
    if (f && f->hard)
        p -= m->hard;
    if (f && f->gold_present > 1)
        p -= m->needles * (double)(f->gold_present - 1);
    if (f)
        p -= m->spacing * f->spacing;
    if (f && f->shuffled)
        p -= m->shuffled;
    if (f && f->overlap >= 0)
        p -= m->overlap * (1.0 - f->overlap) *
             (1.0 + (1.0 - pow(fabs(2 * clamp01(x) - 1), m->shape))) / 2.0;
    if (f && f->gold_turn == SIM_GOLD_CHAT)
        p -= m->chat;
    if (f && f->gold_turn == SIM_GOLD_TOOL)
        p -= m->tools;
    if (f && f->reversed)
        p -= m->reversed;
    if (f && f->gold_tokens > 0)
        p -= m->size * sim_size_smallness(f->gold_tokens) *
             (1.0 + (1.0 - pow(fabs(2 * clamp01(x) - 1), m->shape))) / 2.0;
    p -= sim_depth(m->lenpen, T);
    if (f && f->haystack)
        p -= m->distract;
    return clamp01(p);
}

static uint64_t draw_hash(uint64_t seed, const char *qid, double x, long T, uint64_t salt)
{
    long xb = (long)floor(clamp01(x) * 100.0);
    long tb = T > 0 ? (long)floor(8.0 * log2((double)T)) : -1;
    uint64_t h = sim_mix64(seed ^ 0x5157a11ceULL);
    h = sim_mix64(h ^ fnv64_str(FNV64_INIT, qid ? qid : ""));
    h = sim_mix64(h ^ (uint64_t)xb);
    h = sim_mix64(h ^ (uint64_t)tb);
    return sim_mix64(h ^ salt);
}

double sim_draw(uint64_t seed, const char *question_id, double x, long T, uint64_t salt)
{
    return sim_to_unit(draw_hash(seed, question_id, x, T, salt));
}

/* A standard normal from a hash (its uniform kept off 0 and 1, where the quantile is infinite). */
static double hash_normal(uint64_t h)
{
    double q = sim_to_unit(h);
    q = q < 1e-12 ? 1e-12 : q > 1 - 1e-12 ? 1 - 1e-12 : q;
    return stats_norm_upper_inv(1.0 - q);
}

/*
 * The question's shared normal at position x and length T: one normal per
 * (seed, question, round(log2 T), grid point of x every CORR_STEP), linearly
 * interpolated between the two grid points around x and rescaled to unit
 * variance, so it moves continuously with x: two prompts whose gold sits a
 * few tokens apart (another --question-at, other distractors) share it,
 * depths a grid step or more apart do not.
 */
#define CORR_STEP 0.1
static double shared_normal(uint64_t seed, const char *qid, double x, long T)
{
    double g = clamp01(x) / CORR_STEP, t = g - floor(g), z[2];
    long i = (long)floor(g), lb = T > 0 ? lround(log2((double)T)) : -1;
    uint64_t h = sim_mix64(seed ^ 0xc0441e1a7edULL);
    h = sim_mix64(h ^ fnv64_str(FNV64_INIT, qid ? qid : ""));
    h = sim_mix64(h ^ (uint64_t)lb);
    for (int k = 0; k < 2; k++)
        z[k] = hash_normal(sim_mix64(h ^ (uint64_t)(i + k)));
    return ((1.0 - t) * z[0] + t * z[1]) / sqrt((1.0 - t) * (1.0 - t) + t * t);
}

double sim_question_difficulty(const struct sim_model *m, const char *question_id)
{
    uint64_t h = sim_mix64((m->qseed_set ? m->qseed : m->seed) ^ 0xd1ff1c0174ULL);
    const char *q = question_id ? question_id : "";
    return sim_to_unit(sim_mix64(h ^ fnv64_str(FNV64_INIT, q)));
}

double sim_model_draw(const struct sim_model *m, const char *question_id, double x, long T,
                      uint64_t salt)
{
    double u = sim_draw(m->seed, question_id, x, T, salt), c = m->corr, z;
    if (c > 0) {
        z = sqrt(c) * shared_normal(m->seed, question_id, x, T) +
            sqrt(1.0 - c) * hash_normal(draw_hash(m->seed, question_id, x, T, salt));
        u = 1.0 - stats_norm_upper(z);
        u = u < 1.0 ? u : nextafter(1.0, 0.0);
    }
    /* icc = 0: independent draws, bit for bit as before */
    if (m->icc > 0 && sim_to_unit(sim_mix64(draw_hash(m->seed, question_id, x, T, salt) ^
                                            0x1cc5e1ec7ULL)) < sqrt(m->icc))
        u = sim_question_difficulty(m, question_id);
    return u;
}

int sim_decide(const struct sim_model *m, const char *question_id, double x, long T, uint64_t salt)
{
    return sim_model_draw(m, question_id, x, T, salt) < sim_curve_p(m, x, T);
}

/* ---- model specs ---------------------------------------------------------- */

void sim_model_release(struct sim_model *m)
{
    free(m->name);
    m->name = NULL;
}

int sim_model_parse(const char *spec, struct sim_model *out, struct strbuf *err)
{
    const char *colon = strchr(spec, ':');
    size_t nlen = colon ? (size_t)(colon - spec) : strlen(spec);
    struct sim_model m = {.edge = 0.92, .dip = 0.40, .shape = 1.6, .seed = 1};
    struct strvec kv = STRVEC_INIT;
    int ret = -1;

    if (!nlen || memchr(spec, ',', nlen) || memchr(spec, '=', nlen)) {
        strbuf_addf(
            err,
            "model '%s': expected NAME or "
            "NAME:edge=E,dip=D,shape=S,seed=N,start=S,hard=H,needles=N,spacing=E,"
            "window=E,shuffled=E,overlap=E,chat=E,tools=E,reversed=E,size=E,flat=F,corr=C,icc=R,"
            "qseed=N,mid=M,halluc=H,deny=D,ordinal=E,lenpen=E,distract=E",
            spec);
        return -1;
    }
    if (colon)
        strvec_split(&kv, colon + 1, ',');
    for (size_t i = 0; i < kv.nr; i++) {
        char *eq = strchr(kv.v[i], '=');
        const char *key = kv.v[i], *val;
        if (!eq) {
            strbuf_addf(err, "model '%s': '%s' is not key=value", spec, kv.v[i]);
            goto cleanup;
        }
        *eq = '\0';
        val = eq + 1;
        if (!strcmp(key, "edge")) {
            if (parse_double_range(val, 0, 1, &m.edge)) {
                strbuf_addf(err, "model '%s': edge must be a number in [0,1]", spec);
                goto cleanup;
            }
        } else if (!strcmp(key, "dip")) {
            if (parse_double_range(val, 0, 1, &m.dip)) {
                strbuf_addf(err, "model '%s': dip must be a number in [0,1]", spec);
                goto cleanup;
            }
        } else if (!strcmp(key, "shape")) {
            if (parse_double(val, &m.shape) || !(m.shape > 0) || m.shape > 1000) {
                strbuf_addf(err, "model '%s': shape must be a number > 0", spec);
                goto cleanup;
            }
        } else if (!strcmp(key, "start") || !strcmp(key, "hard") || !strcmp(key, "needles") ||
                   !strcmp(key, "spacing") || !strcmp(key, "window") || !strcmp(key, "shuffled") ||
                   !strcmp(key, "corr") || !strcmp(key, "icc") || !strcmp(key, "mid") ||
                   !strcmp(key, "overlap") || !strcmp(key, "chat") || !strcmp(key, "tools") ||
                   !strcmp(key, "reversed") || !strcmp(key, "size") || !strcmp(key, "halluc") ||
                   !strcmp(key, "deny") || !strcmp(key, "ordinal") || !strcmp(key, "lenpen") ||
                   !strcmp(key, "distract")) {
            if (parse_double_range(val, 0, 1,
                                   !strcmp(key, "start")      ? &m.start
                                   : !strcmp(key, "hard")     ? &m.hard
                                   : !strcmp(key, "needles")  ? &m.needles
                                   : !strcmp(key, "spacing")  ? &m.spacing
                                   : !strcmp(key, "window")   ? &m.window
                                   : !strcmp(key, "shuffled") ? &m.shuffled
                                   : !strcmp(key, "icc")      ? &m.icc
                                   : !strcmp(key, "mid")      ? &m.mid
                                   : !strcmp(key, "overlap")  ? &m.overlap
                                   : !strcmp(key, "chat")     ? &m.chat
                                   : !strcmp(key, "tools")    ? &m.tools
                                   : !strcmp(key, "reversed") ? &m.reversed
                                   : !strcmp(key, "size")     ? &m.size
                                   : !strcmp(key, "halluc")   ? &m.halluc
                                   : !strcmp(key, "deny")     ? &m.deny
                                   : !strcmp(key, "ordinal")  ? &m.ordinal
                                   : !strcmp(key, "lenpen")   ? &m.lenpen
                                   : !strcmp(key, "distract") ? &m.distract
                                                              : &m.corr)) {
                strbuf_addf(err, "model '%s': %s must be a number in [0,1]", spec, key);
                goto cleanup;
            }
        } else if (!strcmp(key, "flat")) {
            if (strcmp(val, "0") && strcmp(val, "1")) {
                strbuf_addf(err, "model '%s': flat must be 0 or 1", spec);
                goto cleanup;
            }
            m.flat = !strcmp(val, "1");
        } else if (!strcmp(key, "seed") || !strcmp(key, "qseed")) {
            unsigned long s;
            if (parse_ulong(val, &s)) {
                strbuf_addf(err, "model '%s': %s must be a non-negative integer", spec, key);
                goto cleanup;
            }
            if (!strcmp(key, "seed")) {
                m.seed = s;
            } else {
                m.qseed = s;
                m.qseed_set = 1;
            }
        } else {
            strbuf_addf(
                err,
                "model '%s': unknown key '%s' (known: edge, dip, shape, seed, start, hard, "
                "needles, spacing, window, shuffled, overlap, chat, tools, reversed, size, flat, "
                "corr, icc, qseed, mid, halluc, deny, ordinal, lenpen, distract)",
                spec, key);
            goto cleanup;
        }
    }
    m.name = xstrndup(spec, nlen);
    *out = m;
    ret = 0;
cleanup:
    strvec_clear(&kv);
    return ret;
}

void sim_config_init(struct sim_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->host = "127.0.0.1";
    cfg->slow_ms = 5000;
    cfg->retry_after_ms = 1000;
}

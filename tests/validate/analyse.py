#!/usr/bin/env python3
"""Figures of the simulation study (tests/validate/validate.sh, VALIDATION.md).

usage: analyse.py WORK DIPMAP N_PAIRS N_PAIRS3 N_POWER

Truth comes from the server: serve-sim's --log line of every request carries
the probability p the simulated model used (P(x, T) of harness/sim/sim.h at the
prompt's realized gold position x and length T). Per run (one model name per
run) and question, the logged requests sorted by x are the depths in order
(R repeats per depth), so the planted accuracy of a cell is the mean p of its
trials, and the planted dip / dip_worst follow from those cell means exactly
as the estimator defines them. Prints the figures, writes WORK/results.json,
and exits 1 when a criterion of the issue fails.
"""
import json
import math
import os
import subprocess
import sys

DEPTHS = list(range(0, 10001, 1000))
CRITERIA = []


def check(name, ok, text):
    CRITERIA.append({"criterion": name, "ok": bool(ok), "figure": text})
    print("%-4s %s: %s" % ("ok" if ok else "FAIL", name, text))


def load_log(path):
    by = {}
    with open(path) as f:
        for line in f:
            d = json.loads(line)
            if not d["route"].endswith("/completions") or d.get("p") is None:
                continue
            if d["status"] != 200 or d.get("fault", "none") not in ("none", "slow"):
                continue
            by.setdefault(d["model"], {}).setdefault(d["question_id"], []).append((d["x"], d["p"]))
    return by


def truth(per_q, repeats):
    """Planted cell accuracies (mean p) for one run."""
    sums = [0.0] * len(DEPTHS)
    counts = [0] * len(DEPTHS)
    for q, reqs in per_q.items():
        if len(reqs) != len(DEPTHS) * repeats:
            raise SystemExit("question %s: %d logged requests, expected %d" %
                             (q, len(reqs), len(DEPTHS) * repeats))
        reqs.sort()
        for i, (_, p) in enumerate(reqs):
            sums[i // repeats] += p
            counts[i // repeats] += 1
    return [s / c for s, c in zip(sums, counts)]


def planted_stats(cells):
    edge = (cells[0] + cells[-1]) / 2
    interior = cells[1:-1]
    mid = [cells[i] for i, d in enumerate(DEPTHS) if 2500 <= d <= 7500 and 0 < i < len(DEPTHS) - 1]
    return edge - sum(mid) / len(mid), edge - min(interior)


def summary(work, run):
    return json.load(open(os.path.join(work, "reports", run, "summary.json")))


def binom_se(p, n):
    return math.sqrt(max(p * (1 - p), 1e-12) / n)


def wilson(k, n, z=1.959963984540054):
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def main():
    work, dipmap, n_pairs, n_pairs3, n_power = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:6])
    log = load_log(os.path.join(work, "sim.log"))
    res = {"design": {"questions": 60, "depths": len(DEPTHS), "length": 3000,
                      "baseline": "edge=0.9,dip=0.6,shape=1.6", "candidate": "edge=0.9,dip=1.0,shape=1.6",
                      "runs_1_repeat": 2 * n_pairs, "null_pairs_1_repeat": n_pairs,
                      "null_pairs_3_repeats": n_pairs3, "power_pairs": n_power}}

    # ---- coverage and bias over the 1-repeat replicate runs (b1..b2N) ----
    runs = ["b%d" % i for i in range(1, 2 * n_pairs + 1)]
    cell_in = cell_n = dip_in = dw_in = 0
    dip_err = []
    dw_err = []
    nominal = None
    for r in runs:
        s = summary(work, r)
        assert s["totals"]["valid"] == s["totals"]["trials"] == 660, (r, s["totals"])
        t = truth(log[r], 1)
        for c, tv in zip(s["cells"], t):
            lo, hi = c["interval95"]
            cell_in += lo - 1e-12 <= tv <= hi + 1e-12
            cell_n += 1
        pd, pw = planted_stats(t)
        L = s["lengths"][0]
        dip_in += L["dip"]["lo"] - 1e-12 <= pd <= L["dip"]["hi"] + 1e-12
        dw_in += L["dip_worst"]["lo"] - 1e-12 <= pw <= L["dip_worst"]["hi"] + 1e-12
        dip_err.append(L["dip"]["value"] - pd)
        dw_err.append(L["dip_worst"]["value"] - pw)
        nominal = pd if nominal is None else nominal
    n = len(runs)
    me = sum(dip_err) / n
    sd = math.sqrt(sum((e - me) ** 2 for e in dip_err) / (n - 1))
    mw = sum(dw_err) / n
    cov_cell, cov_dip, cov_dw = cell_in / cell_n, dip_in / n, dw_in / n
    res["replicates"] = {"runs": n, "dip_mean_error_pp": 100 * me, "dip_error_sd_pp": 100 * sd,
                         "dip_mean_error_se_pp": 100 * sd / math.sqrt(n),
                         "dip_worst_mean_error_pp": 100 * mw,
                         "coverage_cells": cov_cell, "cells": cell_n, "coverage_dip": cov_dip,
                         "coverage_dip_worst": cov_dw}
    check("dip mean error within +-1 pp", abs(me) <= 0.01,
          "%+.2f pp (SE %.2f pp, sd %.2f pp, %d runs)" % (100 * me, 100 * sd / math.sqrt(n), 100 * sd, n))
    check("cell 95% coverage in [93%, 97%]", 0.93 <= cov_cell <= 0.97,
          "%.1f%% of %d cell intervals (MC SE %.1f pp)" % (100 * cov_cell, cell_n, 100 * binom_se(cov_cell, cell_n)))
    check("dip 95% coverage in [93%, 97%]", 0.93 <= cov_dip <= 0.97,
          "%.1f%% of %d runs (MC SE %.1f pp)" % (100 * cov_dip, n, 100 * binom_se(cov_dip, n)))
    check("dip_worst 95% coverage in [93%, 97%]", 0.93 <= cov_dw <= 0.97,
          "%.1f%% of %d runs (MC SE %.1f pp); dip_worst mean error %+.2f pp" %
          (100 * cov_dw, n, 100 * binom_se(cov_dw, n), 100 * mw))

    # cells with 3 repeats (r runs): coverage of the clustered interval, for the record
    c3_in = c3_n = 0
    for i in range(1, 2 * n_pairs3 + 1):
        r = "r%d" % i
        s = summary(work, r)
        t = truth(log[r], 3)
        for c, tv in zip(s["cells"], t):
            lo, hi = c["interval95"]
            c3_in += lo - 1e-12 <= tv <= hi + 1e-12
            c3_n += 1
    if c3_n:
        res["replicates"]["coverage_cells_3_repeats"] = c3_in / c3_n
        print("     cells with 3 repeats: %.1f%% of %d intervals hold the planted accuracy" %
              (100 * c3_in / c3_n, c3_n))

    # ---- compare on the same model twice ----
    alpha = 0.05

    def verdicts(prefix, count):
        v = []
        for k in range(1, count + 1):
            v.append(json.load(open(os.path.join(work, "cmp", "%s-%d.json" % (prefix, k))))["verdict"])
        return v

    for prefix, count, label in (("null1", n_pairs, "1 repeat"), ("null3", n_pairs3, "3 repeats")):
        v = verdicts(prefix, count)
        fails = v.count("FAIL")
        rate = fails / len(v)
        lo, hi = wilson(fails, len(v))
        res["null_" + label.replace(" ", "_")] = {"pairs": len(v), "fail": fails, "rate": rate,
                                                 "inconclusive": v.count("INCONCLUSIVE")}
        check("same model, %s: FAIL rate <= alpha + 2 pp" % label, rate <= alpha + 0.02,
              "%d of %d pairs (%.1f%%, 95%% CI %.1f-%.1f%%)" % (fails, len(v), 100 * rate, 100 * lo, 100 * hi))

    # ---- power: planted mid-context drop; planner's prediction ----
    v = verdicts("power", n_power)
    fails = v.count("FAIL")
    rate = fails / len(v)
    # the planted drop per depth, mean over the power pairs (baseline b(2k-1) vs candidate ck)
    drop = [0.0] * len(DEPTHS)
    for k in range(1, n_power + 1):
        tb = truth(log["b%d" % (2 * k - 1)], 1)
        tc = truth(log["c%d" % k], 1)
        for i in range(len(DEPTHS)):
            drop[i] += (tb[i] - tc[i]) / n_power
    spec = ",".join("%.3fpp" % (100 * d) for d in drop)
    # the planner, piloted on one baseline replicate (its measured accuracy per cell)
    out = subprocess.run([dipmap, "plan", "--pilot", "b1", "--db", os.path.join(work, "stores", "b1.db"),
                          "--power", spec, "--iterations", "20000"],
                         capture_output=True, text=True, check=True).stdout
    line = [x for x in out.splitlines() if x.startswith("power: compare says FAIL")][0]
    pred = float(line.split("probability ")[1].split("%")[0]) / 100
    lo, hi = wilson(fails, len(v))
    res["power"] = {"pairs": len(v), "fail": fails, "rate": rate, "predicted": pred,
                    "planted_drop_pp": [round(100 * d, 2) for d in drop], "planner_output": out}
    print("     planted drop per depth (pp): " + " ".join("%.1f" % (100 * d) for d in drop))
    check("planner power within +-10 pp of the detection rate", abs(pred - rate) <= 0.10,
          "predicted %.1f%%, observed %d of %d (%.1f%%, 95%% CI %.1f-%.1f%%)" %
          (100 * pred, fails, len(v), 100 * rate, 100 * lo, 100 * hi))
    res["criteria"] = CRITERIA
    with open(os.path.join(work, "results.json"), "w") as f:
        json.dump(res, f, indent=1)
    bad = [c for c in CRITERIA if not c["ok"]]
    print("validate: %d of %d criteria met; figures in %s/results.json" %
          (len(CRITERIA) - len(bad), len(CRITERIA), work))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

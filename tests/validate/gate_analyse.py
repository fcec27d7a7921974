#!/usr/bin/env python3
"""The gate study's figures (VALIDATION.md "The gate over HTTP").

usage: gate_analyse.py WORKDIR REPS [ALPHA]

Reads WORKDIR/gate/out/{KIND}{i}-fixed100.json, -fixed200.json (compare --json) and
-gate.json (dipmap gate --json) for KIND n0 (unchanged model, ICC 0), n3 (unchanged, ICC 0.3)
and rg (middle-only regression), prints the table and writes WORKDIR/gate/results.json.
Exit 1 when a criterion fails: the FAIL rate on an unchanged model above alpha + 2 pp (fixed
at 100 and 200 questions and sequential, at ICC 0 and 0.3).
"""
import json
import math
import os
import re
import sys

work, reps = sys.argv[1], int(sys.argv[2])
alpha = float(sys.argv[3]) if len(sys.argv) > 3 else 0.05
out = os.path.join(work, "gate", "out")
KINDS = {"n0": "unchanged, ICC 0", "n3": "unchanged, ICC 0.3", "rg": "middle-only regression"}
TRIALS = {100: 2 * 100 * 11, 200: 2 * 200 * 11}


def wilson(k, n, z=1.959964):
    if n == 0:
        return (float("nan"), float("nan"))
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (c - h, c + h)


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


res = {"alpha": alpha, "reps": reps, "conditions": {}}
fails = []
for kind, label in KINDS.items():
    cond = {"label": label}
    for design in ("fixed100", "fixed200", "gate"):
        verdicts, trials, questions = [], [], []
        for i in range(1, reps + 1):
            d = load(os.path.join(out, f"{kind}{i}-{design}.json"))
            if d is None:
                continue
            v = d.get("verdict")
            verdicts.append(v)
            if design == "gate":
                s = d["sequential"]
                last = s["rounds"][-1]
                trials.append(last["trials"])
                questions.append(s["questions"])
            else:
                n = int(design[5:])
                trials.append(TRIALS[n])
                questions.append(n)
        n = len(verdicts)
        row = {"n": n}
        for v in ("PASS", "FAIL", "INCONCLUSIVE"):
            k = sum(1 for x in verdicts if x == v)
            row[v] = k
            row[v + "_rate"] = k / n if n else float("nan")
            row[v + "_ci95"] = wilson(k, n)
        row["mean_trials"] = sum(trials) / n if n else float("nan")
        row["mean_questions"] = sum(questions) / n if n else float("nan")
        cond[design] = row
        if kind in ("n0", "n3") and n and row["FAIL_rate"] > alpha + 0.02:
            fails.append(f"{label}, {design}: FAIL rate {row['FAIL_rate']:.3f} > {alpha + 0.02:.2f}")
    res["conditions"][kind] = cond

# the planner: "compare says FAIL with probability X% for the drop ...; with no drop Y%"
plan = {}
for icc in ("0", "0.3"):
    for q in (100, 200):
        try:
            with open(os.path.join(out, f"plan-icc{icc}-{q}.txt")) as f:
                text = f.read()
        except OSError:
            continue
        m = re.search(r"FAIL with probability ([0-9.]+)% for the drop \S+ .*?with no drop ([0-9.]+)%",
                      text)
        if m:
            plan[f"icc{icc}-{q}"] = {"fail_drop": float(m.group(1)) / 100,
                                     "fail_none": float(m.group(2)) / 100}
res["planner"] = plan


def pct(r):
    return "n/a" if r != r else f"{100 * r:.1f}%"


print(f"gate study: {reps} pairs per condition, alpha {alpha}")
print(f"{'condition':28} {'design':9} {'n':>4} {'PASS':>7} {'FAIL':>7} {'INCONCL':>8} "
      f"{'mean trials':>12} {'mean q':>7}")
for kind, cond in res["conditions"].items():
    for design in ("fixed100", "fixed200", "gate"):
        r = cond[design]
        print(f"{cond['label']:28} {design:9} {r['n']:>4} {pct(r['PASS_rate']):>7} "
              f"{pct(r['FAIL_rate']):>7} {pct(r['INCONCLUSIVE_rate']):>8} "
              f"{r['mean_trials']:>12.0f} {r['mean_questions']:>7.1f}")
for key, p in plan.items():
    icc, q = key[3:].split("-")
    obs_none = res["conditions"]["n3" if icc == "0.3" else "n0"][f"fixed{q}"]
    line = (f"planner, ICC {icc}, {q} questions: FAIL {100 * p['fail_none']:.1f}% with no drop "
            f"(observed {pct(obs_none['FAIL_rate'])})")
    if icc == "0":
        obs = res["conditions"]["rg"][f"fixed{q}"]
        line += f", {100 * p['fail_drop']:.1f}% for the middle drop (observed {pct(obs['FAIL_rate'])})"
    print(line)
for kind in ("n0", "rg"):
    g, f = res["conditions"][kind]["gate"], res["conditions"][kind]["fixed200"]
    if g["n"] and f["n"]:
        print(f"{KINDS[kind]}: sequential mean trials {g['mean_trials']:.0f} = "
              f"{g['mean_trials'] / f['mean_trials']:.2f} x the fixed design at 200 questions")
with open(os.path.join(work, "gate", "results.json"), "w") as fh:
    json.dump(res, fh, indent=1, default=str)
for m in fails:
    print("FAILED:", m)
sys.exit(1 if fails else 0)

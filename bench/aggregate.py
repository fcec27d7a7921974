#!/usr/bin/env python3
"""Collect the figures of `make bench` (bench/run.sh) into bench/results.json.

usage: bench/aggregate.py WORKDIR OUT.json REPEATS META.json

WORKDIR holds <stage>.<repeat>.txt, the raw output of each per-stage benchmark
(bench_tokenizer.sh, bench_prompt.sh, bench_store.sh, bench_runner.sh,
bench_scale.sh, peer_promptfoo.sh) for repeats 1..REPEATS. Every numeric cell
becomes a figure (stage, section, row key, column) with min/median/max over the
repeats that produced it. Prints one table (median and spread) on stdout.
Numbers only: a stage that printed nothing parsable is reported, never fatal.
"""
import json
import os
import re
import statistics
import sys

NUM = re.compile(r"[-+]?\d+(?:\.\d+)?")
# Markdown table columns that name a row (configuration), not a measurement.
KEY_COLS = {"c", "np", "length", "tool", "tokenizer", "operation", "ratio dipmap/promptfoo", "trials",
            "dry-run trials", "prompts"}


def num(cell):
    m = NUM.search(cell.replace(",", ""))
    return float(m.group(0)) if m else None


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def parse_markdown(text):
    """'### Section' + '| h | h |' tables -> (section, key, column, value)."""
    out, section, header, keys = [], "", None, []
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("#"):
            section = s.lstrip("#").strip()
            header = None
            continue
        if not s.startswith("|"):
            header = None if not s else header
            continue
        row = cells(s)
        if header is None:
            header = row
            keys = [i for i, h in enumerate(header) if h.lower() in KEY_COLS]
            if not keys:
                keys = [0]
            continue
        if all(set(c) <= set("-: ") for c in row):
            continue
        key = ", ".join("%s=%s" % (header[i], row[i]) for i in keys if i < len(row))
        for i, c in enumerate(row):
            if i in keys or i >= len(header):
                continue
            v = num(c)
            if v is not None:
                out.append((section, key, header[i], v))
    return out


def parse_tokenizer(text):
    out, section, header = [], "", None
    for line in text.splitlines():
        if line.startswith("=="):
            section = ("dipmap native" if "native" in line else "npm tiktoken" if "tiktoken" in line
                       else "families vs HF tokenizers" if "Hugging Face tokenizers" in line else section)
            header = None
            continue
        f = line.split()
        if not f:
            continue
        if f[0] == "tokenizer":
            header = f[:5] + (["ratio en", "ratio nonen", "ratio code"] if "ratio" in line else f[5:])
            continue
        if header and len(f) >= 2:
            for h, c in zip(header[1:], f[1:]):
                v = num(c)
                if v is not None:
                    out.append((section, "tokenizer=" + f[0], h, v))
    return out


def parse_prompt(text):
    out, tk = [], ""
    cols = ["prompts", "prompts/s (CPU)", "MB/s (CPU)", "prompts/s (wall)", "MB/s (wall)",
            "first build ms (CPU)", "worst length error %"]
    for line in text.splitlines():
        if line.startswith("-- tokenizer"):
            tk = "/".join(line.split(None, 2)[2].split("/")[-2:])
            continue
        m = re.match(r"peak RSS: ([\d.]+)", line)
        if m:
            out.append(("prompt building", "tokenizer=" + tk, "peak RSS MB", float(m.group(1))))
            continue
        f = line.split()
        if len(f) == 8 and f[0].isdigit():
            for h, c in zip(cols, f[1:]):
                out.append(("prompt building", "tokenizer=%s, length=%s" % (tk, f[0]), h, float(c)))
    return out


def parse_store(text):
    out = []
    for line in text.splitlines():
        m = re.match(r"(write|read)\s+(.+?):\s+(.*)$", line)
        if not m:
            continue
        op = "%s %s" % (m.group(1), re.sub(r"\s+", " ", m.group(2)))
        for val, unit in re.findall(r"([\d.]+) ([\w/-]+(?: wall)?)", m.group(3)):
            if unit in ("trials", "keys"):
                continue
            out.append(("store", "operation=" + op, unit, float(val)))
    return out


PARSERS = {"tokenizer": parse_tokenizer, "prompt": parse_prompt, "store": parse_store}


def main():
    work, out_path, repeats, meta_path = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    meta = json.load(open(meta_path))
    stages = meta.get("stages", [])
    results = dict(meta)
    results["repeats"] = repeats
    results["figures"] = []
    results["notes"] = {}
    rows = []
    for stage in stages:
        samples, order = {}, []
        for r in range(1, repeats + 1):
            p = os.path.join(work, "%s.%d.txt" % (stage, r))
            if not os.path.exists(p):
                continue
            text = open(p, errors="replace").read()
            for line in text.splitlines():
                if re.match(r"^[\w-]+: skipped", line):
                    results["notes"][stage] = line
            for rec in PARSERS.get(stage, parse_markdown)(text):
                k = rec[:3]
                if k not in samples:
                    samples[k] = []
                    order.append(k)
                samples[k].append(rec[3])
        if not order and stage not in results["notes"]:
            results["notes"][stage] = "no figures (see the raw output in the log)"
        for k in order:
            v = samples[k]
            fig = {"stage": stage, "section": k[0], "row": k[1], "figure": k[2],
                   "median": statistics.median(v), "min": min(v), "max": max(v), "n": len(v)}
            results["figures"].append(fig)
            rows.append(fig)
    with open(out_path, "w") as f:
        json.dump(results, f, indent=1)
        f.write("\n")

    def fmt(x):
        return ("%.3g" % x) if abs(x) < 100 else ("%.0f" % x)

    print("| stage | row | figure | median | min | max | n |")
    print("|---|---|---|---:|---:|---:|---:|")
    for g in rows:
        print("| %s | %s | %s | %s | %s | %s | %d |" % (
            g["stage"] + (" / " + g["section"] if g["section"] and g["section"] != g["stage"] else ""),
            g["row"], g["figure"], fmt(g["median"]), fmt(g["min"]), fmt(g["max"]), g["n"]))
    for stage, note in results["notes"].items():
        print("note: %s: %s" % (stage, note))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# The lexical-overlap terciles a report should show, recomputed independently of the C code:
# per question of a golden set, |question ids & gold ids| / |question ids| with the real
# tokenizer (`dipmap tokenize --ids`), sorted, cut in thirds (low gets the extra one).
# usage: overlap_terciles.py DIPMAP GOLDEN.jsonl [TOKENIZER]   ->  JSON {"low": [ids], ...}
import json, subprocess, sys

dipmap, golden = sys.argv[1], sys.argv[2]
tokenizer = sys.argv[3] if len(sys.argv) > 3 else "cl100k_base"


def ids(text):
    out = subprocess.run([dipmap, "tokenize", "--tokenizer", tokenizer, "--ids"],
                         input=text.encode(), capture_output=True, check=True).stdout
    return set(map(int, out.split()))


ov = []
for line in open(golden):
    o = json.loads(line)
    q, g = ids(o["question"]), ids("".join(c["text"] + "\n" for c in o["gold"]))
    ov.append((len(q & g) / len(q), o["id"]))
ov.sort()
n = len(ov)
a, b = (n + 2) // 3, (2 * n + 2) // 3
json.dump({"low": [i for _, i in ov[:a]], "mid": [i for _, i in ov[a:b]],
           "high": [i for _, i in ov[b:]]}, sys.stdout)

# dipmap report --format json: summary.json follows the documented schema
# (README "summary.json schema"), shows the planted middle dip with a bootstrap
# interval, and is byte-identical when written twice (seeded bootstrap).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/compare-lib.sh"
cmp_gen g 30 1
cmp_sim g.jsonl
cmp_run d1 deep g 8k 0:100:25
expect_code 0 "$DIPMAP" report d1 --db t.db --format json --out r1
expect_code 0 "$DIPMAP" report d1 --db t.db --format json --out r2
cmp r1/summary.json r2/summary.json || fail "summary.json is not reproducible"
python3 - r1/summary.json <<'PY' || fail "summary.json does not match the schema"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "dipmap.summary/2" and d["schema_version"] == 2
for k in ("run", "totals", "warnings", "bootstrap", "effective_length", "lengths", "cells", "ordering_advice"):
    assert k in d, k
r = d["run"]
assert r["name"] == "d1" and r["model_requested"] == "deep" and r["status"] == "complete"
assert len(r["inputs"]["golden_sha256"]) == 64
t = d["totals"]
assert t["trials"] == 150 and t["valid"] + sum(v for k, v in t["outcomes"].items() if k not in ("correct", "wrong", "pending")) == 150
assert t["outcomes"]["correct"] == t["correct"]
assert len(d["cells"]) == 5 and [c["depth_bp"] for c in d["cells"]] == [0, 2500, 5000, 7500, 10000]
for c in d["cells"]:
    lo, hi = c["interval95"]
    assert lo <= c["accuracy"] <= hi and c["trials"] == 30
    assert c["design_effect"] == 1 and c["questions"] == 30   # one repeat: plain Wilson
L = d["lengths"][0]
assert L["length"] == 8192 and L["questions"] == 30
dip = L["dip"]
assert dip["lo"] <= dip["value"] <= dip["hi"], dip
assert dip["value"] > 0.15, dip            # the planted dip (edge 0.95, middle ~0.6)
assert 0.25 <= L["middle_worst"]["depth"] <= 0.75
assert L["edge"]["mean"]["value"] > L["middle"]["value"]
# the primary dip is edge - the 25-75% mean; dip_worst uses the worst depth
assert abs(dip["value"] - (L["edge"]["mean"]["value"] - L["middle"]["value"])) < 1e-12
assert L["dip_worst"]["value"] >= dip["value"]
assert d["warnings"] == [], d["warnings"]   # 30 questions, 1 repeat
assert d["bootstrap"]["iterations"] == 2000
a = d["ordering_advice"]
assert a["rank_distribution"] == {"kind": "geometric", "p": 0.5}
e = a["entries"][0]
assert set(e["accuracy"]) == {"source", "best-first", "edges-first", "best-first-second-last", "ascending"}
assert e["accuracy"]["edges-first"] >= e["accuracy"]["source"]
PY

# compare on two order runs tests each (policy, k) as its own paired cell: serve-sim's
# candidate has a deeper dip, and with the gold always at rank 1 only the source order (which
# puts it anywhere) moves it into the dip (shape 0.3, a dip sharp in the middle: where
# best-first and edges-first put the gold, the first of k chunks, about 5% into the prompt at
# k=10, the candidate is at most 2.5 pp, the fail margin, lower; with the default shape 1.6 it
# was about 9 pp lower there, a real regression the bets find at 100 questions): compare names
# the cells "k=10, policy=source" and "k=20, policy=source" as the regressions, passes the best-first and edges-first cells, pools
# each axis value over the other ("policy=source (pooled)"), has no length tests (length and
# depth are constant), exits 1, and names the axes in compare.md, compare.json, JUnit,
# compare.html and in every row of the flipped-questions tables.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/sim-lib.sh"
# 100 generated needles: on the shipped 36 the anytime-valid cell tests cannot yet tell the
# source cells' drop from the margin (INCONCLUSIVE, exit 4)
"$DIPMAP" gen needle --n 100 --seed 1 --out needle-100.jsonl >/dev/null || fail "gen needle"
start_sim sim --dataset needle-100.jsonl --model base:edge=0.95,dip=0.05,flat=1 \
    --model cand:edge=0.95,dip=0.8,shape=0.3,flat=1
printf '1\n' >rank1.txt
for m in base cand; do
    expect_code 0 "$DIPMAP" run --dataset needle-100.jsonl \
        --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --experiment order --k 10,20 \
        --policies source,best-first,edges-first --rank-dist rank1.txt --db t.db --progress none \
        --endpoint "$SIM_URL" --model $m --run $m
done
expect_code 1 "$DIPMAP" compare base cand --db t.db --json cmp.json --junit cmp.xml --out o
cp out cmp.md
assert_contains cmp.md "A cell is one combination of the named axes"
assert_contains cmp.md "| k=10, policy=source | 100 |"
assert_contains cmp.md "| policy=source (pooled) | 200 |"
assert_contains cmp.md "#### k=10, policy=source: "
assert_contains cmp.md "| question | axes | repeat | baseline answer | candidate answer |"
grep -q " @ 0%" cmp.md && fail "a cell named by the constant length and depth: $(grep ' @ 0%' cmp.md)"
python3 - <<'PY' || fail "compare.json (above)"
import json
c = json.load(open("cmp.json"))
assert c["verdict"] == "FAIL", c["verdict"]
cells = [t for t in c["tests"] if t["scope"] == "cell"]
assert len(cells) == 6, [t["axes"] for t in cells]
bad = sorted((t["axes"]["policy"], t["axes"]["k"]) for t in cells if t["status"] == "regression")
assert bad == [("source", "10"), ("source", "20")], bad
for t in cells:
    assert t["pairs"] == 100, t
    if t["axes"]["policy"] != "source":
        assert t["status"] == "ok", t
assert not [t for t in c["tests"] if t["scope"] == "length"], "length tests on an order run"
pooled = {tuple(t["axes"].items())[0]: t for t in c["tests"] if t["scope"] == "axis"}
assert set(pooled) == {("policy", "source"), ("policy", "best-first"), ("policy", "edges-first"),
                       ("k", "10"), ("k", "20")}, pooled.keys()
assert pooled[("policy", "source")]["status"] == "regression"
assert pooled[("policy", "best-first")]["status"] == "ok"
# the cells are the primary family (no lengths), the pooled values the secondary
assert c["primary_family_size"] == 6, c["primary_family_size"]
assert c["holm_family_size"] == 5, c["holm_family_size"]
assert all(t["primary"] for t in cells)
over = [t for t in c["tests"] if t["scope"] == "overall"][0]
assert over["axes"] is None and over["pairs"] == 600, over
PY
python3 - <<'PY' || fail "JUnit (above)"
import xml.etree.ElementTree as ET
cases = {(tc.get("classname"), tc.get("name")): tc for tc in ET.parse("cmp.xml").iter("testcase")}
tc = cases[("dipmap.compare.axes", "k=20, policy=source")]
assert tc.find("failure") is not None
ok = cases[("dipmap.compare.axes", "k=20, policy=best-first")].find("failure")
assert ok is None or ok.get("type") != "regression", ok.attrib
# a pooled axis value is secondary: reported as a regression, not a failure of the gate
pooled = cases[("dipmap.compare.axis", "policy=source (pooled)")]
assert pooled.find("failure") is None and "regression (not gated)" in pooled.find("system-out").text
PY
assert_contains o/compare.html "<td>k=10, policy=source</td>"
assert_contains o/compare.html "k=20, policy=source: "
assert_contains o/compare.html "<td>policy=source (pooled)</td>"

# `dipmap report --rank-dist FILE` feeds the user's retriever rank distribution
# into the ordering advice (summary.json records it, and the advice changes);
# `--rank-p` sets the default geometric distribution; bad files and values exit 2
# naming the file and line.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/7xx-lib.bash"
make_run t.db --run r1 --golden gold.jsonl
expect_code 0 "$DIPMAP" report r1 --db t.db --out def --format json --no-plots
printf '# rank probabilities\n1.0\n' >top1.txt
expect_code 0 "$DIPMAP" report r1 --db t.db --out top1 --format json --no-plots --rank-dist top1.txt
expect_code 0 "$DIPMAP" report r1 --db t.db --out p9 --format json --no-plots --rank-p 0.9
python3 - <<'PY' || fail "rank distribution not applied"
import json
d = json.load(open("def/summary.json"))["ordering_advice"]
t = json.load(open("top1/summary.json"))["ordering_advice"]
p = json.load(open("p9/summary.json"))["ordering_advice"]
assert d["rank_distribution"] == {"kind": "geometric", "p": 0.5}, d["rank_distribution"]
assert t["rank_distribution"] == {"kind": "file", "ranks": 1}, t["rank_distribution"]
assert p["rank_distribution"] == {"kind": "geometric", "p": 0.9}, p["rank_distribution"]
# with the answer always at rank 1, best-first puts it first: its expected accuracy is
# the shallowest depth's accuracy, whatever k; the default distribution gives another value
for de, te in zip(d["entries"], t["entries"]):
    assert te["retrieved"] == 1.0, te
assert any(abs(de["accuracy"]["best-first"] - te["accuracy"]["best-first"]) > 1e-9
           for de, te in zip(d["entries"], t["entries"])), "advice did not change"
PY
printf '0.7\nabc\n' >bad.txt
expect_code 2 "$DIPMAP" report r1 --db t.db --out x --no-plots --rank-dist bad.txt
assert_contains err "error: report: bad.txt:line 2"
expect_code 2 "$DIPMAP" report r1 --db t.db --out x --no-plots --rank-dist missing.txt
assert_contains err "cannot read --rank-dist missing.txt"
expect_code 2 "$DIPMAP" report r1 --db t.db --out x --no-plots --rank-p 1.5
assert_contains err "--rank-p must be in (0, 1]"
exit 0

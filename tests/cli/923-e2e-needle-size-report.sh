# The report of a --needle-tokens run (docs/effects.md "Needle size") gives accuracy by needle
# size and by size x depth in every format: summary.md's "Axis: needle-tokens" table (one row
# per size in the order given, a column per depth) and its paired effects; summary.json's
# axes entry with each size's accuracy, interval, by_depth curve and by_length cells, and the
# effects; report.html the same section; and the figure axis-needle-tokens.svg/.png through the
# plot code (one panel per size), shown in summary.md and inline in report.html. The numbers
# agree with the stored trials. Without the axis there is no such section and this fails.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
. "$TESTS/cli/lib/e2e-lib.sh"
has_tool gnuplot DIPMAP_REQUIRE_GNUPLOT || require_or_skip DIPMAP_REQUIRE_GNUPLOT "gnuplot is not installed"
e2e_gen 10 6
start_sim sim --dataset golden.jsonl --model m:seed=4,size=0.4
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model m --dataset golden.jsonl --template needle \
    --haystack "$REPO/datasets/books-haystack.jsonl.gz" --lengths 1k,2k --depths 0:100:50 \
    --needle-tokens 24,64,256 --progress none --db t.db --run a
expect_code 0 "$DIPMAP" report a --db t.db --out rep
for f in summary.md summary.json report.html axis-needle-tokens.svg axis-needle-tokens.png; do
    [ -s "rep/$f" ] || fail "the report has no $f"
done
assert_contains rep/summary.md "### Axis: needle-tokens"
assert_contains rep/summary.md "![Accuracy vs depth, one panel per axis value](axis-needle-tokens.svg)"
assert_contains rep/summary.md "| value | accuracy | 95% interval | trials | at 0% | at 50% | at 100% |"
assert_contains rep/summary.md "needle-tokens 64 vs 24: "
assert_contains rep/summary.md "needle-tokens 256 vs 24: "
assert_contains rep/report.html "Axis: needle-tokens"
python3 - <<'PY' || fail "the needle-size report does not agree with the stored trials (above)"
import json, re, sqlite3
c = sqlite3.connect("t.db")
trials = c.execute("select axes, depth_bp, length, outcome from trials").fetchall()
ax = {a["name"]: a for a in json.load(open("rep/summary.json"))["axes"]}["needle-tokens"]
assert [v["value"] for v in ax["values"]] == ["24", "64", "256"], ax["values"]
md = open("rep/summary.md").read().split("### Axis: needle-tokens")[1].split("\n### ")[0]
for v in ax["values"]:
    mine = [t for t in trials if t[0] == "needle-tokens=" + v["value"]]
    right = sum(t[3] == "correct" for t in mine)
    assert v["valid"] == len(mine) == 60 and v["correct"] == right, (v["value"], v["valid"], right)
    assert v["interval95"][0] <= v["accuracy"] <= v["interval95"][1]
    assert [round(p["depth"], 2) for p in v["by_depth"]] == [0.0, 0.5, 1.0], v["by_depth"]
    for p in v["by_depth"]:
        cell = [t for t in mine if t[1] == round(p["depth"] * 10000)]
        assert p["valid"] == len(cell) and abs(p["accuracy"] - sum(t[3] == "correct" for t in cell) / len(cell)) < 1e-9
    assert [l["length"] for l in v["by_length"]] == [1024, 2048], v["by_length"]
    row = re.search(r"^\| %s \| ([0-9.]+)%% \|" % v["value"], md, re.M)
    assert row and abs(float(row.group(1)) - 100 * v["accuracy"]) < 0.051, (v["value"], row)
assert {(e["value"], e["versus"]) for e in ax["effects"]} == {("64", "24"), ("256", "24")}, ax["effects"]
html = open("rep/report.html").read().split("Axis: needle-tokens")[1]
assert "<svg" in html.split("Axis: ")[0], "no inline figure in report.html's needle-tokens section"
svg = open("rep/axis-needle-tokens.svg").read()
assert all(f"needle-tokens={n}" in svg for n in (24, 64, 256)), "a panel is missing"
PY

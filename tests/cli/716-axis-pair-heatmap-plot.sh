# report --axis-pair A,B draws the heatmap axis-pair-A-B.svg/png with real gnuplot: one cell per
# (A value, B value), rows in A's order from the top, columns in B's order, each labelled with
# the accuracy of the trials having both values (over every length and depth) and its n, read
# back from the SVG and checked against the stored trials; the tick labels name the values;
# summary.md links it above the same numbers as a table, report.html inlines it.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
need_tool gnuplot DIPMAP_REQUIRE_GNUPLOT "gnuplot not installed"
start_sim sim --dataset "$REPO/datasets/needle.jsonl" \
    --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --model dipmap-sim:hard=0.4,shuffled=0.2
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim \
    --dataset "$REPO/datasets/needle.jsonl" --haystack "$REPO/datasets/nq-haystack.jsonl.gz" \
    --template needle --lengths 1k --depths 0,50,100 --distractors hard,random,none \
    --haystack-order coherent,shuffled --progress none --db t.db --run p
expect_code 0 "$DIPMAP" report p --db t.db --out rep --axis-pair distractors,haystack-order
assert_contains out "axis-pair-distractors-haystack-order.svg"
svg=rep/axis-pair-distractors-haystack-order.svg
[ -s "${svg%.svg}.png" ] || fail "no png"
assert_contains rep/summary.md "](axis-pair-distractors-haystack-order.svg)"
assert_contains rep/report.html "<figcaption>Accuracy per pair of axis values (heatmap)</figcaption>"
q t.db "select axes, count(*), sum(outcome = 'correct') from trials group by axes" >cells.txt
pylib - "$svg" <<'PY' || fail "the heatmap's cells do not match the trials"
import sys, gnuplot_svg
svg = open(sys.argv[1]).read()
want = {}
for line in open("cells.txt"):
    axes, n, k = line.strip().split("|")
    kv = dict(p.split("=") for p in axes.split(";"))
    want[(kv["distractors"], kv["haystack-order"])] = (int(k) / int(n), int(n))
rows, cols = ["hard", "random", "none"], ["coherent", "shuffled"]
for v in rows + cols:
    assert svg.count("<text>%s</text>" % v) == 1, v
cells = gnuplot_svg.heatmap_cells(sys.argv[1])
assert len(cells) == 6, cells
xs = sorted({c[0] for c in cells})
ys = sorted({c[1] for c in cells})
assert len(xs) == 2 and len(ys) == 3, (xs, ys)
got = {(rows[ys.index(c[1])], cols[xs.index(c[0])]): (c[2], c[3]) for c in cells}
for key, (acc, n) in want.items():
    assert got[key] == ("%.2f" % acc, n), (key, got[key], acc, n)
# the planted effects show: hard below random, shuffled below coherent
assert want[("hard", "coherent")][0] < want[("random", "coherent")][0]
PY
# the table keeps the same numbers in the markdown
grep -F "| hard |" rep/summary.md | tail -n 1 >row
n=$(q t.db "select count(*) from trials where axes = 'distractors=hard;haystack-order=shuffled'")
k=$(q t.db "select count(*) from trials where axes = 'distractors=hard;haystack-order=shuffled' and outcome = 'correct'")
assert_contains row "$(python3 -c "print('%.1f%% (%d)' % (100.0 * $k / $n, $n))")"

# The decomposition figure (run --arm, report's decomp.svg/.png through plot.c): one error-bar line
# per penalty the run has, one point per length (x ticks the lengths), the y axis the penalty;
# a penalty whose arms the run lacks (here position: no adjacent arm) is not drawn. The SVG is
# XML, the PNG 900 x 560, report.html inlines the figure and summary.md links it.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
. "$TESTS/cli/lib/7xx-lib.bash"
need_tool gnuplot
zcat "$REPO/datasets/nq-open.jsonl.gz" | head -n 6 >golden.jsonl
HAY=$REPO/datasets/nq-haystack.jsonl.gz
start_sim sim --dataset golden.jsonl --haystack "$HAY" --model "dipmap-sim:lenpen=0.5,distract=0.2"
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim --dataset golden.jsonl \
    --haystack "$HAY" --lengths 2k,4k --depths 0,50,100 --progress none --arm haystack,padding \
    --controls oracle --db t.db --run d
expect_code 0 "$DIPMAP" report d --db t.db --out rep
xmllint --noout rep/decomp.svg || fail "decomp.svg is not XML"
[ "$(png_size rep/decomp.png)" = "900 560" ] || fail "decomp.png is not 900 x 560"
pylib - rep/decomp.svg <<'PY' || fail "decomp.svg does not draw the penalties per length"
import sys, gnuplot_svg as svg
series = svg.marker_counts(sys.argv[1])
assert series == {"length": 2, "distraction": 2}, series
texts = svg.texts(sys.argv[1])
for t in ("2048", "4096", "prompt length (tokens)",
          "penalty (accuracy lost, 95% interval by question)"):
    assert t in texts, (t, texts)
PY
assert_contains rep/summary.md "![Length, distraction and position penalties vs length](decomp.svg)"
grep -q '<svg' rep/report.html || fail "report.html has no inline SVG"
python3 - <<'PY' || fail "report.html does not inline the decomposition figure"
html = open("rep/report.html").read()
i = html.index("Length, distraction and position")
assert "penalty (accuracy lost, 95% interval by question)" in html[i:], "figure not in the section"
PY

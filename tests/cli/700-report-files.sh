# `dipmap report RUN` writes summary.md, summary.json, report.html and the
# plots into reports/<run>/; the numbers match the stored trials; the SVGs are
# XML with one curve per length (5 depths each); the PNGs are 900x560 PNGs.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/7xx-lib.bash"
make_run t.db --run r1 --model m-7b --golden gold.jsonl
expect_code 0 "$DIPMAP" report r1 --db t.db
d=reports/r1
for f in summary.md summary.json report.html ucurve.svg ucurve.png heatmap.svg heatmap.png; do
    [ -s "$d/$f" ] || fail "$d/$f missing or empty"
done
assert_contains out "wrote reports/r1/summary.md"
assert_contains out "wrote reports/r1/report.html"
assert_contains out "wrote reports/r1/summary.json"
[ -s err ] && fail "unexpected stderr: $(cat err)"

# key numbers: 8k edge 95%, 50% depth 55.0% (11 of 20); 32k 50% depth 45.0% (9 of 20)
assert_contains $d/summary.md "| 8k (8192) | 50% | 55.0% |"
assert_contains $d/summary.md "| 32k (32768) | 50% | 45.0% |"
# dip = edge - mean of the 25/50/75% depths: 8k 95 - (75+55+75)/3 = +26.7 pp,
# 32k 95 - (70+45+70)/3 = +33.3 pp; dip_worst (the 50% depth) +40.0 / +50.0 pp
assert_contains $d/summary.md "**dip at 8k:** +26.7 pp"
assert_contains $d/summary.md "**dip at 32k:** +33.3 pp"
assert_contains $d/summary.md "| 50% | 55.0% | +40.0 pp |"
assert_contains $d/summary.md "| 50% | 45.0% | +50.0 pp |"
assert_contains $d/summary.md "![Accuracy vs depth, one line per length (U-curve)](ucurve.svg)"
assert_contains $d/summary.md "| golden set | $(sha256sum gold.jsonl | cut -d' ' -f1) |"
assert_contains $d/summary.md "## Coverage per outcome"
assert_contains $d/summary.md "## Tokenizer agreement"
assert_contains $d/summary.md "## Ordering advice"
assert_contains $d/summary.md "**effective length:**"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"].startswith("dipmap.summary/"), d["schema"]' \
    $d/summary.json || fail "summary.json does not parse"

# SVGs: well-formed XML; the U-curve has exactly one curve per length
xmllint --noout $d/ucurve.svg $d/heatmap.svg || fail "SVG is not well-formed XML"
svg_curves $d/ucurve.svg " tokens" >curves
[ "$(cat curves)" = "$(printf '8k_tokens 5\n32k_tokens 5')" ] || fail "curves: $(cat curves)"
# the heatmap prints each cell's value
grep -q '<text>0.45</text>' $d/heatmap.svg || fail "heatmap lacks the 32k/50% value"
grep -q '<text>0.55</text>' $d/heatmap.svg || fail "heatmap lacks the 8k/50% value"

[ "$(png_size $d/ucurve.png)" = "900 560" ] || fail "ucurve.png size $(png_size $d/ucurve.png)"
[ "$(png_size $d/heatmap.png)" = "900 560" ] || fail "heatmap.png size"

# the HTML has both plots inline and lists the failed trials with their questions
[ "$(grep -o '<svg' $d/report.html | wc -l)" = 2 ] || fail "report.html should inline 2 SVGs"
assert_contains $d/report.html "32k tokens, depth 50% (accuracy 45.0%): 11 failed trials shown"
assert_contains $d/report.html "what is &lt;b&gt;code&lt;/b&gt; number 19?"
assert_contains $d/report.html "answer-19 | A&amp;19"
assert_contains $d/report.html "<td>wrong-19</td>"
exit 0

# Hostile names and model output are inert: a model named
# x"; system("touch pwned"); " runs nothing in gnuplot and its title appears
# literally in the SVG; <script> and "><img onerror=...> answers are escaped.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/7xx-lib.bash"
model='x"; system("touch pwned"); " `touch pwned2` '"'"'; system("touch pwned3")'
make_run t.db --run 'r1' --model "$model" --golden gold.jsonl --hostile
expect_code 0 "$DIPMAP" report r1 --db t.db
expect_code 0 "$DIPMAP" plot r1 --db t.db --out plots
d=reports/r1
found=$(find . -name 'pwned*')
[ -z "$found" ] && [ ! -e "$REPO/pwned" ] || fail "a command ran: $found"
xmllint --noout $d/ucurve.svg $d/heatmap.svg plots/ucurve.svg || fail "SVG not well-formed"
# the title is shown literally (XML text of the first title line)
python3 - "$d/ucurve.svg" "$model · run r1" <<'PY' || fail "title not literal in the SVG"
import sys, xml.etree.ElementTree as ET
texts = [t.text for t in ET.parse(sys.argv[1]).getroot().iter('{http://www.w3.org/2000/svg}text')]
assert sys.argv[2] in texts, texts[-5:]
PY
# HTML: the answers are text, never markup; the one <script> is the report's own sorting script
[ "$(grep -o '<script' $d/report.html | wc -l)" = 1 ] || fail "report.html has other <script> elements"
assert_contains $d/report.html "<script>document.querySelectorAll('table.sortable')"
assert_not_contains $d/report.html "<img"
assert_contains $d/report.html "&lt;script&gt;document.title=&#39;PWNED&#39;&lt;/script&gt;"
assert_contains $d/report.html "&quot;&gt;&lt;img src=x onerror=&quot;document.title=&#39;PWNED&#39;&quot;&gt;"
assert_contains $d/report.html "<title>dipmap report: r1 (x&quot;; system(&quot;touch pwned&quot;);"
# Markdown: the model name cannot break out of its table cell or inject HTML
assert_contains $d/summary.md '| model requested | x"; system("touch pwned"); " \`touch pwned2\`'
assert_not_contains $d/summary.md "<script"
exit 0

# Untrusted text: hostile run names reach JUnit XML, compare.md (Markdown), compare.json,
# compare.html and the gnuplot chart escaped: the XML parses and holds the names literally,
# Markdown cells cannot be split by '|', no markup gets through and no command runs.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/compare-lib.sh"
b='b<]]>&"x'
c="c'|<script>alert(1)</script>|\$(touch pwned)\`touch pwned2\`"
cmp_gen g 12 1
cmp_sim g.jsonl
for r in "$b" "$c"; do
    expect_code 0 "$DIPMAP" run --endpoint "$CMP_URL" --model base --dataset g.jsonl --haystack g-hay.jsonl \
        --template "$REPO/prompts/kv.txt" --scorer kv --progress none --lengths 1k --depths 0:100:50 \
        --db t.db --run "$r"
done
expect_code 0 "$DIPMAP" compare "$b" "$c" --db t.db --junit junit.xml --json cmp.json --out outdir \
    --pass-rule no-regression
found=$(find . -name 'pwned*')
[ -z "$found" ] || fail "a command ran: $found"
# JUnit: well-formed, names literal in the parsed attributes
xmllint --noout junit.xml outdir/junit.xml || fail "junit.xml is not well-formed"
python3 - junit.xml "$b" "$c" <<'PY' || fail "JUnit does not hold the run names literally"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
props = {p.get('name'): p.get('value') for p in root.iter('property')}
assert props['baseline'] == sys.argv[2], props
assert props['candidate'] == sys.argv[3], props
suite = root.find('testsuite').get('name')
assert sys.argv[2] in suite and sys.argv[3] in suite, suite
PY
# JSON: parses, names exact
python3 - cmp.json "$b" "$c" <<'PY' || fail "compare JSON does not hold the run names"
import json, sys
d = json.load(open(sys.argv[1]))
s = json.dumps(d)
assert sys.argv[2] in [v for v in d.values() if isinstance(v, str)] or json.dumps(sys.argv[2])[1:-1] in s, s[:300]
assert json.dumps(sys.argv[3])[1:-1] in s, s[:300]
PY
# Markdown (stdout and compare.md): pipes escaped, no raw markup
for f in out outdir/compare.md; do
    assert_contains "$f" 'c'"'"'\|&lt;script&gt;alert(1)&lt;/script&gt;\|$(touch pwned)'
    assert_contains "$f" 'b&lt;\]\]&gt;&amp;"x'
    assert_not_contains "$f" "<script>"
done
# HTML and SVG
assert_not_contains outdir/compare.html "<script>alert(1)"
assert_contains outdir/compare.html "&lt;script&gt;alert(1)&lt;/script&gt;"
xmllint --noout outdir/compare.svg || fail "compare.svg is not well-formed"
exit 0

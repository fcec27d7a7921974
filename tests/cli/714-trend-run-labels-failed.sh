# The trend plot has one labelled point per run: runs created in the same second get one x tick
# each, labelled with the run name (no tick label repeats), every series has one point per
# run with its interval, and the dip of a run whose comparison with the last passing run (what
# the nightly job's `compare --latest --against last-pass` makes) failed is ringed and named in
# the key: n3 and n4 (a regression that persists), although n4 passes against n3 itself.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/7xx-lib.bash"
for i in 1 2 3 4; do
    d=0.1
    [ $i -ge 3 ] && d=0.6
    make_run t.db --run "n$i" --model prod --tag nightly --time 1764000000 --dip $d --questions 40
done
expect_code 1 "$DIPMAP" compare n2 n3 --db t.db
expect_code 0 "$DIPMAP" compare n3 n4 --db t.db --pass-rule no-regression
expect_code 0 "$DIPMAP" plot --tag nightly --db t.db --format svg
f=reports/trend-tag_nightly/trend.svg
xmllint --noout $f || fail "trend.svg not XML"
pylib - $f <<'PY' || fail "trend plot wrong"
import sys, gnuplot_svg as svg
texts = svg.texts(sys.argv[1])
for n in ('n1', 'n2', 'n3', 'n4'):
    assert texts.count(n) == 1, (n, texts.count(n), texts)
assert not any(':' in t and t[:4].isdigit() for t in texts), f'date ticks remain: {texts}'
assert '4 runs, 95% intervals; 2 failed vs the last passing run' in texts, texts
series = svg.marker_counts(sys.argv[1])
want = {f'{m} {l}': 4 for m in ('edge', 'middle', 'dip') for l in ('8k', '32k')}
want['failed vs last passing run'] = 4   # n3's and n4's dip at 8k and 32k
assert series == want, series
PY
# runs far apart in time keep one tick per run too (the old time axis gave 4 identical dates)
grep -c '<text' $f >/dev/null
exit 0

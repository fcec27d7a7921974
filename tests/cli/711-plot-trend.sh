# `dipmap plot --tag T` / `--model PREFIX`: edge, middle and dip per length
# over the matching runs (one point per run), the nightly drift view.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/7xx-lib.bash"
for i in 1 2 3 4; do
    make_run t.db --run "n$i" --model prod-v1 --tag nightly --time $((1764000000 + i * 86400)) \
        --dip "0.$((i + 1))" --questions 80
done
make_run t.db --run other --model dev-v2 --tag adhoc --time 1764500000
expect_code 0 "$DIPMAP" plot --tag nightly --db t.db
f=reports/trend-tag_nightly/trend.svg
xmllint --noout $f || fail "trend.svg not XML"
[ "$(png_size reports/trend-tag_nightly/trend.png)" = "900 560" ] || fail "trend.png"
pylib - $f <<'PY' || fail "trend series wrong"
import sys, gnuplot_svg as svg
series = svg.marker_counts(sys.argv[1])  # one point per run
want = {f'{m} {l}': 4 for m in ('edge', 'middle', 'dip') for l in ('8k', '32k')}
# a dip drifting 10 pp a night: n2 is not a PASS against n1 (80 questions: INCONCLUSIVE under
# the anytime-valid rule of issue 42, 60-90 are; at 100 the 10 pp drift already FAILs, and 20
# questions decide nothing), so n3 and n4 are compared with n1 (the nightly job's last-pass
# rule) and fail at both lengths
want['failed vs last passing run'] = 4
assert series == want, series
texts = svg.texts(sys.argv[1])
assert 'trend of tag nightly' in texts, texts
PY
# by model prefix: only the dev run
expect_code 0 "$DIPMAP" plot --model dev- --db t.db --format svg --out dev
grep -q '<text>dip 8k</text>' dev/trend.svg || fail "dev trend lacks dip 8k"
expect_code 2 "$DIPMAP" plot --tag nosuch --db t.db
assert_contains err "error: plot: no runs match tag nosuch"
exit 0

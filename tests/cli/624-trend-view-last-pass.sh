# The trend and `dipmap view` show the verdict of the comparison the nightly job makes
# (README's nightly.sh: `compare --tag T --latest --against last-pass`). Four nights on
# serve-sim: two good nights, then a regression (a deeper dip) that persists. The nightly
# compare FAILs nights 3 and 4, both against night 2; the trend plot rings the dip of both
# nights and the view's trend page says "FAIL vs n2" on both. (It used to ring only night 3 and
# show night 4 as "PASS vs n3": the trend compared each night with the one before it.)
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/compare-lib.sh"
# 200 questions: two nights of one model differ on few questions, and the anytime-valid PASS bound
# needs 121 questions or more to clear the tolerance (at 80 night 2 is INCONCLUSIVE)
cmp_gen g 200 7
cmp_sim g.jsonl
declare -A nightly
night() { # night NAME MODEL: a run tagged nightly, then the nightly job's compare (if any)
    cmp_run "$1" "$2" g 8k 0:100:25 --tag nightly
    "$DIPMAP" compare --tag nightly --latest --against last-pass --db t.db >"cmp-$1.out" 2>"cmp-$1.err"
    nightly[$1]=$?
}
night n1 base
night n2 base
night n3 deep
night n4 deep
[ "${nightly[n1]}" = 4 ] || fail "night 1 has nothing to compare with: exit ${nightly[n1]}"
[ "${nightly[n2]}" = 0 ] || fail "night 2 should PASS against n1: exit ${nightly[n2]}"
for n in n3 n4; do
    [ "${nightly[$n]}" = 1 ] || fail "night $n should FAIL: exit ${nightly[$n]}"
    assert_contains "cmp-$n.err" "is '$n'; baseline 'n2' (last run whose comparison passed)"
done

# the trend plot: the dip of nights 3 and 4 ringed (one length: one ring each)
if has_tool gnuplot DIPMAP_REQUIRE_GNUPLOT; then
    expect_code 0 "$DIPMAP" plot --tag nightly --db t.db --format svg --out trend
    pylib - trend/trend.svg <<'PY' || fail "trend plot does not ring nights 3 and 4"
import sys, gnuplot_svg as svg
texts = svg.texts(sys.argv[1])
assert '4 runs, 95% intervals; 2 failed vs the last passing run' in texts, texts
series = svg.marker_counts(sys.argv[1])
assert series.get('failed vs last passing run') == 2, series
PY
fi

# the view's trend page: every night's verdict and baseline as the nightly job saw them
start_view t.db
curl -s "${VIEW_URL}trend?tag=nightly" >trend.html || fail "trend page"
python3 - trend.html <<'PY' || fail "view's trend page disagrees with the nightly job"
import sys, re
t = open(sys.argv[1], encoding='utf-8').read()
rows = re.findall(r'<tr[^>]*>.*?</tr>', t, re.S)
row = {re.search(r'name=(n\d)', r).group(1): re.sub(r'<[^>]+>', '', r) for r in rows if 'name=n' in r}
assert 'no earlier complete run' in row['n1'], row['n1']
assert 'PASS vs n1' in row['n2'], row['n2']
assert 'FAIL vs n2' in row['n3'], row['n3']
assert 'FAIL vs n2' in row['n4'], row['n4']
assert 'vs last passing run' in t
PY
exit 0

# Acceptance: a nightly-style sequence of three runs tagged nightly (real runs
# against serve-sim, one per "night") gives `dipmap runs --tag nightly` three
# rows and `dipmap plot --tag nightly` a trend with three points per series.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
. "$TESTS/cli/lib/e2e-lib.sh"
e2e_gen 12 71
start_sim sim --dataset golden.jsonl --model prod:seed=1
for night in 1 2 3; do
    e2e_run "nightly-$night" "$SIM_URL" prod --lengths 2k,4k --depths 0:100:25 --tag nightly --seed "$night"
done
e2e_run adhoc "$SIM_URL" prod --lengths 2k,4k --depths 0:100:25 --tag adhoc
expect_code 0 "$DIPMAP" runs --db t.db --tag nightly --json
python3 -c 'import json,sys; r=json.load(open("out")); assert sorted(x["name"] for x in r)==["nightly-1","nightly-2","nightly-3"], r' ||
    fail "runs --tag nightly"
expect_code 0 "$DIPMAP" plot --tag nightly --db t.db --out trend --format svg
xmllint --noout trend/trend.svg || fail "trend.svg is not XML"
python3 - trend/trend.svg <<'PY' || fail "the trend does not have three points per series"
import sys, xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
root = ET.parse(sys.argv[1]).getroot()
series = {}
for g in root.iter(ns + 'g'):
    if not (g.get('id') or '').startswith('gnuplot_plot_'):
        continue
    texts = [t.text for t in g.iter(ns + 'text')]
    if texts:
        # points are <use> markers: one per run plus one in the key
        series[texts[0]] = len(list(g.iter(ns + 'use'))) - 1
print(series)
want = {f'{m} {l}': 3 for m in ('edge', 'middle', 'dip') for l in ('2k', '4k')}
assert series == want, series
PY

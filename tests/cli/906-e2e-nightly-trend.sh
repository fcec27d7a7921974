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
pylib - trend/trend.svg <<'PY' || fail "the trend does not have three points per series"
import sys, gnuplot_svg as svg
series = svg.marker_counts(sys.argv[1])  # one point per run
print(series)
want = {f'{m} {l}': 3 for m in ('edge', 'middle', 'dip') for l in ('2k', '4k')}
assert series == want, series
PY

# End to end: `dipmap run` against serve-sim (planted dip), then
# `dipmap report --dataset`: the report checks the golden set against the run's hash and
# lists failed trials with their questions; the plots show both lengths.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
. "$TESTS/cli/lib/7xx-lib.bash"
make_kv 8
start_sim sim --dataset golden.jsonl --model 'dipmap-sim:edge=0.95,dip=0.6'
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:25 --repeats 2 \
    --db t.db --run e2e
expect_code 0 "$DIPMAP" report e2e --db t.db --dataset golden.jsonl
[ -s err ] && fail "stderr: $(cat err)"
d=reports/e2e
for f in summary.md summary.json report.html ucurve.svg ucurve.png heatmap.svg heatmap.png; do
    [ -s "$d/$f" ] || fail "$d/$f missing"
done
svg_curves $d/ucurve.svg " tokens" >curves
[ "$(cat curves)" = "$(printf '1k_tokens 5\n2k_tokens 5')" ] || fail "curves: $(cat curves)"
assert_contains $d/summary.md "| model requested | dipmap-sim |"
assert_contains $d/summary.md "complete, 160 of 160 planned trials finished"
# every stored cell appears in the per-cell table (2 lengths x 5 depths)
[ "$(grep -c '^| [12]k ([0-9]*) | [0-9]*% | [0-9.]*% | \\\[' $d/summary.md)" = 10 ] ||
    fail "per-cell table rows: $(grep -c '^| [12]k' $d/summary.md)"
# the failure list shows the questions from the golden set given with --dataset
assert_contains $d/report.html "Questions from golden.jsonl."
grep -q '<td>[^<]*</td><td>' $d/report.html || fail "no failure rows"
assert_not_contains $d/report.html "(not available)"
# without --dataset the questions come from the golden set the run kept in the store (issue 20);
# a store without it (an older dipmap) says how to get them
expect_code 0 "$DIPMAP" report e2e --db t.db --no-plots --out kept
assert_contains kept/report.html "Questions from the store (golden set"
assert_not_contains kept/report.html "(not available)"
sqlite3 t.db "delete from golden_sets"
expect_code 0 "$DIPMAP" report e2e --db t.db --no-plots --out noq
assert_contains noq/report.html "give the run&#39;s golden set with --dataset FILE"
# a different file is flagged, not silently trusted
"$DIPMAP" gen kv --n 8 --seed 2 --out other.jsonl >/dev/null || fail "gen other"
expect_code 0 "$DIPMAP" report e2e --db t.db --no-plots --out other --dataset other.jsonl
assert_contains err "warning: report: other.jsonl is not the golden set of run 'e2e'"
exit 0

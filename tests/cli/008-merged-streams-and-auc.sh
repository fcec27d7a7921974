# With stdout and stderr in one file (2>&1, a CI log) lines come whole and in order: stdout
# used to be block-buffered, so its lines landed after (or, past 4 KiB, in the middle of) the
# stderr messages. summary.md shows AUC n/a for a length without data, as summary.json's null
# (it printed 0.000).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 3
start_sim sim --dataset golden.jsonl --ctx 1500
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k,2k --depths 0,50,100 --db t.db --run o \
    --max-tokens 64 --no-context-check
DIPMAP_GNUPLOT=/nonexistent/gnuplot "$DIPMAP" report o --db t.db >merged.txt 2>&1 || fail "report failed"
sed -n 1p merged.txt | grep -q '^wrote reports/o/summary.json$' || fail "stdout line not first: $(cat merged.txt)"
sed -n 2p merged.txt | grep -q '^warning: gnuplot not found' || fail "warning not second: $(cat merged.txt)"
sed -n 3p merged.txt | grep -q '^wrote reports/o/summary.md$' || fail "order lost: $(cat merged.txt)"
# 2k: every trial overflowed, no depth with data
python3 -c 'import json; d = json.load(open("reports/o/summary.json")); l = [x for x in d["lengths"] if x["length"] == 2048][0]; assert l["auc"] is None, l["auc"]' ||
    fail "summary.json auc for 2k is not null"
# the dip table's 2k row: its AUC column (11th of 12) reads n/a
grep '^| 2k (2048) | – | \\\[–' reports/o/summary.md >row2k || fail "no 2k dip row in summary.md"
[ "$(awk -F' [|] ' '{print $11}' row2k)" = n/a ] || fail "AUC of 2k is not n/a: $(cat row2k)"
assert_not_contains row2k "0.000"
